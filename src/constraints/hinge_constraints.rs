//! The constraints of a bending model, one per hinge (an interior edge and the wings of its two
//! triangles): the container both bending kinds keep theirs in ([`HingeConstraints`]: the
//! hinges, each one's rest data of its model and its stiffness scale), the model trait that
//! says what rest data and GPU record a model has ([`HingeModel`]), and the correction every
//! bending constraint produces ([`BendingCorrection`]).

use super::KindConstraints;
use bytemuck::Pod;
use glam::Vec3;
use std::fmt::Debug;

/// The correction of a bending constraint: position changes of its four particles and the
/// change of its multiplier.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BendingCorrection {
    /// Position change of each particle (m).
    pub dp: [Vec3; 4],
    /// Change of the multiplier.
    pub dlambda: f32,
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
    /// Each constraint's own stiffness where the cloth has a bending rigidity
    /// ([`crate::ClothModel::with_bending_rigidity`]; N·m, the inverse of its compliance in its
    /// model's `C`), else 1: the kind's response applies as it is.
    stiffnesses: Vec<f32>,
}

impl<M: HingeModel> Default for HingeConstraints<M> {
    fn default() -> Self {
        Self { hinges: Vec::new(), rest: Vec::new(), stiffness_scales: Vec::new(), stiffnesses: Vec::new() }
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
                let rest = M::rest(hinge.map(|i| positions[i as usize]));
                rest.map(|rest| built.push(hinge, rest, 1.0, 1.0)).is_some()
            })
            .collect();
        (built, kept)
    }

    fn push(&mut self, hinge: [u32; 4], rest: M::Rest, stiffness_scale: f32, stiffness: f32) {
        self.hinges.push(hinge);
        self.rest.push(rest);
        self.stiffness_scales.push(stiffness_scale);
        self.stiffnesses.push(stiffness);
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

    /// The constraints of separate cloths as one cloth's ([`crate::ClothModel::joined`]), or
    /// of one cloth reordered (one part, offset 0): constraint `k` of the result is constraint `picks[k].1` of `parts[picks[k].0]`, its
    /// particles moved by that part's `offsets` entry.
    pub(crate) fn gathered(parts: &[&Self], picks: &[(usize, u32)], offsets: &[u32]) -> Self {
        let mut gathered = Self::default();
        for &(part, c) in picks {
            let (from, c) = (parts[part], c as usize);
            let hinge = from.hinges[c].map(|i| i + offsets[part]);
            gathered.push(hinge, from.rest[c], from.stiffness_scales[c], from.stiffnesses[c]);
        }
        gathered
    }

    /// Constraint `c`'s own stiffness (N·m, the inverse of its compliance; 1 where the kind's
    /// response applies as it is).
    pub fn stiffness(&self, c: usize) -> f32 {
        self.stiffnesses[c]
    }

    /// Sets each constraint's own stiffness.
    pub(crate) fn set_stiffnesses(&mut self, stiffnesses: Vec<f32>) {
        assert_eq!(stiffnesses.len(), self.len(), "one stiffness per hinge");
        self.stiffnesses = stiffnesses;
    }

    /// How many times stiffer than the kind's response constraint `c` is: its material map
    /// times its own stiffness.
    pub fn response_scale(&self, c: usize) -> f32 {
        self.stiffness_scales[c] * self.stiffnesses[c]
    }

    /// The GPU records, multipliers zeroed.
    pub fn records(&self) -> Vec<M::Record> {
        (0..self.len()).map(|c| M::record(self.rest[c], self.response_scale(c))).collect()
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

    fn scaled(&self) -> bool {
        (0..self.len()).any(|c| self.response_scale(c) != 1.0)
    }

    fn stiffness_scales(&self) -> &[f32] {
        &self.stiffness_scales
    }

    fn stiffness_scales_mut(&mut self) -> &mut [f32] {
        &mut self.stiffness_scales
    }
}
