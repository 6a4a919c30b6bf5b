//! The hinge units: a bending constraint (dihedral, or isometric in the isometric hinge: the
//! cloth's [`super::BendingModel`]) and the stretch constraint of its edge, projected together;
//! and the bend units, a bending constraint alone, for a cloth with a membrane.
//! Both act on the hinge's edge, so its four particles are loaded and stored once for the two — a
//! plan optimisation: the schedule numbers the hinge edges' stretch constraints like their
//! bending constraints (hinge `u` is stretch constraint `u` and bending constraint `u` of the
//! cloth's model), and the kinds' data stays apart. Gauss-Seidel projects the stretch
//! constraint first and the bending constraint from the moved positions; Jacobi projects both
//! from the same positions. WGSL twin: `shaders/constraints/hinge.wgsl`.

use super::hinge_constraints::BendingCorrection;
use super::{Constraints, JacobiScales, Kind, Multipliers, SolveState};
use crate::wgsl::WgslFile;
use crate::wgsl_file;
use glam::Vec3;

/// The WGSL twin.
pub const WGSL: WgslFile = wgsl_file!("constraints/hinge.wgsl");

/// The correction of bending constraint `u` of `kind` (dihedral or isometric).
fn bending_correction(
    constraints: &Constraints,
    kind: Kind,
    u: usize,
    state: &SolveState,
    multipliers: &Multipliers,
) -> Option<BendingCorrection> {
    match kind {
        Kind::Isometric => constraints.isometric.correction(u, state, multipliers),
        _ => constraints.bending.correction(u, state, multipliers),
    }
}

/// Gauss-Seidel projection of hinge `u` whose bending constraint is of `kind`: its edge's
/// stretch constraint, then its bending constraint from the moved positions.
pub(crate) fn project_hinge(
    constraints: &Constraints,
    kind: Kind,
    u: usize,
    state: &mut SolveState,
    multipliers: &mut Multipliers,
) {
    super::stretch::project_free_edge(&constraints.stretch, u, state, multipliers);
    project_bend(constraints, kind, u, state, multipliers);
}

/// Gauss-Seidel projection of bending constraint `u` of `kind` alone (the bend units of a
/// cloth with a membrane, whose edges have no stretch constraint).
pub(crate) fn project_bend(
    constraints: &Constraints,
    kind: Kind,
    u: usize,
    state: &mut SolveState,
    multipliers: &mut Multipliers,
) {
    if let Some(k) = bending_correction(constraints, kind, u, state, multipliers) {
        for (&p, dp) in constraints.of(kind).constraint_particles(u).iter().zip(k.dp) {
            state.displacements[p as usize] += dp;
        }
        multipliers[kind][u] += k.dlambda;
    }
}

/// Jacobi projection of bending constraint `u` of `kind` alone, scaled by `scale` into
/// `slots`.
pub(crate) fn jacobi_bend(
    constraints: &Constraints,
    kind: Kind,
    u: usize,
    scale: f32,
    state: &SolveState,
    multipliers: &mut Multipliers,
    slots: &mut [Vec3],
) {
    let bending = bending_correction(constraints, kind, u, state, multipliers);
    let dp = bending.map_or([Vec3::ZERO; 4], |k| k.dp);
    slots.iter_mut().zip(dp).for_each(|(slot, dp)| *slot = dp * scale);
    multipliers[kind][u] += bending.map_or(0.0, |k| k.dlambda) * scale;
}

/// Jacobi projection of hinge `u` whose bending constraint is of `kind`: both constraints from
/// the same positions, each scaled by its own share (`relaxation` times [`JacobiScales`]),
/// summed per particle into `slots`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn jacobi_hinge(
    constraints: &Constraints,
    kind: Kind,
    u: usize,
    relaxation: f32,
    scales: &JacobiScales,
    state: &SolveState,
    multipliers: &mut Multipliers,
    slots: &mut [Vec3],
) {
    let stretch = constraints.stretch.correction(u, state, multipliers);
    let bending = bending_correction(constraints, kind, u, state, multipliers);
    let (s, b) = (relaxation * scales[Kind::Stretch][u], relaxation * scales[kind][u]);
    let stretch_dp = stretch.map_or([Vec3::ZERO; 2], |k| k.dp);
    let bending_dp = bending.map_or([Vec3::ZERO; 4], |k| k.dp);
    for (k, slot) in slots.iter_mut().enumerate() {
        let edge = if k < 2 { stretch_dp[k] } else { Vec3::ZERO };
        *slot = edge * s + bending_dp[k] * b;
    }
    if let Some(k) = stretch {
        multipliers[Kind::Stretch][u] = k.lambda + k.dlambda * s;
    }
    multipliers[kind][u] += bending.map_or(0.0, |k| k.dlambda) * b;
}
