//! The hinge unit: a bending constraint and the stretch constraint of its edge, projected
//! together. Both act on the hinge's edge, so its four particles are loaded and stored once for
//! the two — a plan optimisation: the schedule numbers the hinge edges' stretch constraints like
//! their bending constraints (hinge `u` is stretch constraint `u` and bending constraint `u`),
//! and the kinds' data stays apart. Gauss-Seidel projects the stretch constraint first and the
//! bending constraint from the moved positions; Jacobi projects both from the same positions.
//! WGSL twin: `shaders/constraints/hinge.wgsl`.

use super::{Constraints, JacobiScales, Kind, Multipliers, SolveState};
use glam::Vec3;

/// The WGSL twin.
pub const WGSL: &str = include_str!("../../shaders/constraints/hinge.wgsl");

/// Gauss-Seidel projection of hinge `u`: its edge's stretch constraint, then its bending
/// constraint from the moved positions.
pub(crate) fn project_hinge(
    constraints: &Constraints,
    u: usize,
    state: &mut SolveState,
    multipliers: &mut Multipliers,
) {
    super::stretch::project_free_edge(&constraints.stretch, u, state, multipliers);
    if let Some(k) = constraints.bending.correction(u, state, multipliers) {
        for (&p, dp) in constraints.bending.particles(u).iter().zip(k.dp) {
            state.displacements[p as usize] += dp;
        }
        multipliers[Kind::Bending][u] += k.dlambda;
    }
}

/// Jacobi projection of hinge `u`: both constraints from the same positions, each scaled by its
/// own share (`relaxation` times [`JacobiScales`]), summed per particle into `slots`.
pub(crate) fn jacobi_hinge(
    constraints: &Constraints,
    u: usize,
    relaxation: f32,
    scales: &JacobiScales,
    state: &SolveState,
    multipliers: &mut Multipliers,
    slots: &mut [Vec3],
) {
    let stretch = constraints.stretch.correction(u, state, multipliers);
    let bending = constraints.bending.correction(u, state, multipliers);
    let (s, b) = (relaxation * scales[Kind::Stretch][u], relaxation * scales[Kind::Bending][u]);
    let stretch_dp = stretch.map_or([Vec3::ZERO; 2], |k| k.dp);
    let bending_dp = bending.map_or([Vec3::ZERO; 4], |k| k.dp);
    for (k, slot) in slots.iter_mut().enumerate() {
        let edge = if k < 2 { stretch_dp[k] } else { Vec3::ZERO };
        *slot = edge * s + bending_dp[k] * b;
    }
    if let Some(k) = stretch {
        multipliers[Kind::Stretch][u] = k.lambda + k.dlambda * s;
    }
    multipliers[Kind::Bending][u] += bending.map_or(0.0, |k| k.dlambda) * b;
}
