//! Dihedral bending: a constraint per interior edge on the angle between its two triangles
//! (PBD §4.1, gradients of PBD Appendix A). WGSL twin: `shaders/constraints/bending.wgsl`
//! (same names, same argument order).

use super::{Multipliers, Response, SolveState, DENOMINATOR_EPSILON};
use crate::math::GEOMETRY_EPSILON;
use bytemuck::{Pod, Zeroable};
use glam::Vec3;

/// The bending constraints of a cloth: constraint `c` acts on `hinges[c] = [edge a, edge b, wing
/// of one triangle, wing of the other]` with rest angle `rest_angles[c]` (rad).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BendingConstraints {
    hinges: Vec<[u32; 4]>,
    rest_angles: Vec<f32>,
}

impl BendingConstraints {
    /// A constraint for each hinge whose triangles both have a normal at `positions`, at its
    /// angle there; returns the constraints and, for each hinge, whether it got one.
    pub(crate) fn at_rest(hinges: &[[u32; 4]], positions: &[Vec3]) -> (Self, Vec<bool>) {
        let mut built = Self::default();
        let kept = hinges
            .iter()
            .map(|&hinge| {
                let [p0, p1, p2, p3] = hinge.map(|i| positions[i as usize]);
                dihedral_angle(p0, p1, p2, p3)
                    .map(|angle| {
                        built.hinges.push(hinge);
                        built.rest_angles.push(angle);
                    })
                    .is_some()
            })
            .collect();
        (built, kept)
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

    /// Rest angle of constraint `c` (rad).
    pub fn rest_angle(&self, c: usize) -> f32 {
        self.rest_angles[c]
    }

    /// The constraints reordered: constraint `k` of the result is constraint `order[k]`.
    pub(crate) fn permuted(&self, order: impl Iterator<Item = u32>) -> Self {
        let (hinges, rest_angles) = order.map(|c| (self.hinges[c as usize], self.rest_angles[c as usize])).unzip();
        Self { hinges, rest_angles }
    }

    /// The GPU records, multipliers zeroed.
    pub fn records(&self) -> Vec<BendingRecord> {
        self.hinges
            .iter()
            .zip(&self.rest_angles)
            .map(|(&particles, &rest_angle)| BendingRecord { particles, rest_angle, lambda: 0.0 })
            .collect()
    }

    /// The correction of constraint `c` from the state's positions and multiplier.
    pub(crate) fn correction(
        &self,
        c: usize,
        state: &SolveState,
        multipliers: &Multipliers,
    ) -> Option<BendingCorrection> {
        let [a, b, d, e] = self.hinges[c].map(|i| i as usize);
        let w = [a, b, d, e].map(|i| state.inverse_masses[i]);
        bending_correction(
            state.position(a),
            state.position(b),
            state.position(d),
            state.position(e),
            w,
            self.rest_angles[c],
            multipliers.bending[c],
            state.responses.bending,
        )
    }
}

/// One bending constraint as the GPU reads it (`BendingConstraint` in WGSL), with the XPBD
/// multiplier of the current substep.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct BendingRecord {
    /// The shared edge's particles, then the two wings.
    pub particles: [u32; 4],
    /// Rest angle (rad).
    pub rest_angle: f32,
    /// XPBD multiplier λ, reset at the first iteration of every substep.
    pub lambda: f32,
}

/// The correction of a bending constraint: position changes of its four particles and the
/// change of its multiplier.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BendingCorrection {
    /// Position change of each particle (m).
    pub dp: [Vec3; 4],
    /// Change of the multiplier.
    pub dlambda: f32,
}

/// The unsigned dihedral angle between triangles `(p0, p1, p2)` and `(p0, p1, p3)` sharing the
/// edge `p0–p1`, as PBD §4.1 defines it: `acos(n1·n2)` with `n1 ∝ (p1−p0)×(p2−p0)`,
/// `n2 ∝ (p1−p0)×(p3−p0)` — π for a flat pair. Evaluated as `atan2(|n1×n2|, n1·n2)`, which
/// equals the `acos` but stays accurate near 0 and π. `None` when a triangle is collinear.
pub fn dihedral_angle(p0: Vec3, p1: Vec3, p2: Vec3, p3: Vec3) -> Option<f32> {
    let e = p1 - p0;
    let (c1, c2) = (e.cross(p2 - p0), e.cross(p3 - p0));
    let (l1, l2) = (c1.length(), c2.length());
    if l1 < GEOMETRY_EPSILON || l2 < GEOMETRY_EPSILON {
        return None;
    }
    let (n1, n2) = (c1 / l1, c2 / l2);
    Some(n1.cross(n2).length().atan2(n1.dot(n2)))
}

/// Projects the dihedral bending constraint `C = acos(n1·n2) − rest` (PBD §4.1) with the
/// gradients of PBD Appendix A: with `p0` moved to the origin (`e = p1`, `a = p2`, `b = p3`),
/// `d = n1·n2`, `q2 = (e×n2 + (n1×e)d)/|e×a|`, `q3 = (e×n1 + (n2×e)d)/|e×b|`,
/// `q1 = −(a×n2 + (n1×a)d)/|e×a| − (b×n1 + (n2×b)d)/|e×b|`, `q0 = −q1 − q2 − q3`, and
/// `∇_i C = q_i / √(1 − d²)`. Writing the XPBD update with `s = √(1 − d²)` multiplied through,
/// `Δλ = s²·k(−C − α̃λ)/(Σ w|q|² + α̃s²)` and `Δp_i = w_i q_i s·k(−C − α̃λ)/(Σ w|q|² + α̃s²)`,
/// which for `α̃ = 0, k = 1` is exactly the paper's `Δp_i = −w_i √(1−d²)(acos d − φ0) q_i / Σ w|q|²`
/// and never divides by `s` (zero for a flat pair). `None` for collinear triangles or when no
/// particle can move.
#[allow(clippy::too_many_arguments)]
pub fn bending_correction(
    p0: Vec3,
    p1: Vec3,
    p2: Vec3,
    p3: Vec3,
    w: [f32; 4],
    rest: f32,
    lambda: f32,
    response: Response,
) -> Option<BendingCorrection> {
    let (e, a, b) = (p1 - p0, p2 - p0, p3 - p0);
    let (c1, c2) = (e.cross(a), e.cross(b));
    let (l1, l2) = (c1.length(), c2.length());
    if l1 < GEOMETRY_EPSILON || l2 < GEOMETRY_EPSILON {
        return None;
    }
    let (n1, n2) = (c1 / l1, c2 / l2);
    let d = n1.dot(n2).clamp(-1.0, 1.0);
    let s = n1.cross(n2).length();
    let c = s.atan2(d) - rest;

    let q2 = (e.cross(n2) + n1.cross(e) * d) / l1;
    let q3 = (e.cross(n1) + n2.cross(e) * d) / l2;
    let q1 = -(a.cross(n2) + n1.cross(a) * d) / l1 - (b.cross(n1) + n2.cross(b) * d) / l2;
    let q0 = -q1 - q2 - q3;

    let [k, alpha_tilde] = response;
    let weighted = w[0] * q0.length_squared()
        + w[1] * q1.length_squared()
        + w[2] * q2.length_squared()
        + w[3] * q3.length_squared();
    let denominator = weighted + alpha_tilde * s * s;
    if denominator < DENOMINATOR_EPSILON {
        return None;
    }
    let f = k * (-c - alpha_tilde * lambda) / denominator;
    Some(BendingCorrection {
        dp: [q0 * (w[0] * s * f), q1 * (w[1] * s * f), q2 * (w[2] * s * f), q3 * (w[3] * s * f)],
        dlambda: s * s * f,
    })
}
