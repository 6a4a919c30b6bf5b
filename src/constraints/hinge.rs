//! The hinge units: a bending constraint (dihedral, or isometric in the isometric hinge: the
//! cloth's [`super::BendingModel`]) and the stretch constraint of its edge, projected together.
//! Both act on the hinge's edge, so its four particles are loaded and stored once for the two — a
//! plan optimisation: the schedule numbers the hinge edges' stretch constraints like their
//! bending constraints (hinge `u` is stretch constraint `u` and bending constraint `u` of the
//! cloth's model), and the kinds' data stays apart. Gauss-Seidel projects the stretch
//! constraint first and the bending constraint from the moved positions; Jacobi projects both
//! from the same positions. WGSL twin: `shaders/constraints/hinge.wgsl`.
//!
//! Both bending models keep their constraints in a [`HingeConstraints`]: the hinges, each
//! one's rest data of its model ([`HingeModel`]) and its stiffness scale.

use super::bending::BendingCorrection;
use super::{Constraints, JacobiScales, Kind, KindConstraints, Multipliers, SolveState};
use bytemuck::Pod;
use glam::Vec3;
use std::fmt::Debug;

/// The WGSL twin.
pub const WGSL: &str = include_str!("../../shaders/constraints/hinge.wgsl");

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
    if let Some(k) = bending_correction(constraints, kind, u, state, multipliers) {
        for (&p, dp) in constraints.of(kind).constraint_particles(u).iter().zip(k.dp) {
            state.displacements[p as usize] += dp;
        }
        multipliers[kind][u] += k.dlambda;
    }
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

/// A bending model's rest data per hinge and its GPU record.
pub trait HingeModel {
    /// What the model measures of a hinge at rest.
    type Rest: Copy + Debug + PartialEq;
    /// Its GPU record: the rest data, the XPBD multiplier and the stiffness scale.
    type Record: Pod;

    /// The rest data of the hinge `(p0, p1; p2, p3)` (shared edge, then the wings), `None` where
    /// the model cannot use it (a degenerate edge or triangle).
    fn rest(p: [Vec3; 4]) -> Option<Self::Rest>;

    /// The record of a constraint, multiplier zeroed.
    fn record(rest: Self::Rest, stiffness_scale: f32) -> Self::Record;
}

/// The bending constraints of a cloth by model `M`: constraint `c` acts on `hinges[c] = [edge a,
/// edge b, wing of one triangle, wing of the other]` with rest data `rest[c]`.
#[derive(Debug, Clone, PartialEq)]
pub struct HingeConstraints<M: HingeModel> {
    hinges: Vec<[u32; 4]>,
    rest: Vec<M::Rest>,
    /// Each constraint's stiffness scale (its material map, 1 by default).
    stiffness_scales: Vec<f32>,
}

impl<M: HingeModel> Default for HingeConstraints<M> {
    fn default() -> Self {
        Self { hinges: Vec::new(), rest: Vec::new(), stiffness_scales: Vec::new() }
    }
}

impl<M: HingeModel> HingeConstraints<M> {
    /// A constraint for each hinge that the model can use at `positions`, with its rest data
    /// there; returns the constraints and, for each hinge, whether it got one.
    pub(crate) fn at_rest(hinges: &[[u32; 4]], positions: &[Vec3]) -> (Self, Vec<bool>) {
        let mut built = Self::default();
        let kept = hinges
            .iter()
            .map(|&hinge| {
                M::rest(hinge.map(|i| positions[i as usize])).map(|rest| built.push(hinge, rest, 1.0)).is_some()
            })
            .collect();
        (built, kept)
    }

    fn push(&mut self, hinge: [u32; 4], rest: M::Rest, stiffness_scale: f32) {
        self.hinges.push(hinge);
        self.rest.push(rest);
        self.stiffness_scales.push(stiffness_scale);
    }

    /// Number of constraints.
    pub fn len(&self) -> usize {
        self.hinges.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.hinges.is_empty()
    }

    /// The four particles of constraint `c`: the shared edge, then the two wings.
    pub fn particles(&self, c: usize) -> [u32; 4] {
        self.hinges[c]
    }

    /// Every constraint's particles.
    pub fn hinges(&self) -> &[[u32; 4]] {
        &self.hinges
    }

    /// The rest data of constraint `c`.
    pub fn rest(&self, c: usize) -> M::Rest {
        self.rest[c]
    }

    /// The constraints reordered: constraint `k` of the result is constraint `order[k]`.
    pub(crate) fn permuted(&self, order: impl Iterator<Item = u32>) -> Self {
        let mut permuted = Self::default();
        for c in order.map(|c| c as usize) {
            permuted.push(self.hinges[c], self.rest[c], self.stiffness_scales[c]);
        }
        permuted
    }

    /// The GPU records, multipliers zeroed.
    pub fn records(&self) -> Vec<M::Record> {
        self.rest.iter().zip(&self.stiffness_scales).map(|(&rest, &scale)| M::record(rest, scale)).collect()
    }
}

impl<M: HingeModel> KindConstraints for HingeConstraints<M> {
    fn constraint_count(&self) -> usize {
        self.len()
    }

    fn constraint_particles(&self, c: usize) -> &[u32] {
        &self.hinges[c]
    }

    fn gpu_records(&self) -> Vec<u32> {
        bytemuck::cast_slice(&self.records()).to_vec()
    }

    fn stiffness_scales(&self) -> &[f32] {
        &self.stiffness_scales
    }

    fn stiffness_scales_mut(&mut self) -> &mut [f32] {
        &mut self.stiffness_scales
    }
}
