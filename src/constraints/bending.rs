//! Dihedral bending: a constraint per interior edge on the signed angle between its two
//! triangles (PBD §4.1, with the exact gradients of Bridson et al. 2003). WGSL twin: `shaders/constraints/bending.wgsl`
//! (same names, same argument order).

use super::hinge_constraints::{BendingCorrection, HingeConstraints, HingeModel};
use super::{scaled_response, Kind, Multipliers, Response, SolveState, DENOMINATOR_EPSILON};
use crate::math::{atan2, GEOMETRY_EPSILON};
use crate::struct_layout;
use crate::wgsl::{StructLayout, WgslFile};
use crate::wgsl_file;
use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use std::f32::consts::{PI, TAU};

/// The WGSL twin.
pub const WGSL: WgslFile = wgsl_file!("constraints/bending.wgsl");

/// The dihedral model: a hinge's rest data is its rest angle (rad).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DihedralModel;

impl HingeModel for DihedralModel {
    type Rest = f32;
    type Record = BendingRecord;

    fn rest([p0, p1, p2, p3]: [Vec3; 4]) -> Option<f32> {
        dihedral_angle(p0, p1, p2, p3)
    }

    fn record(rest_angle: f32, stiffness_scale: f32) -> BendingRecord {
        BendingRecord { rest_angle, lambda: 0.0, stiffness_scale }
    }
}

/// The dihedral bending constraints of a cloth, one per hinge with its rest angle.
pub type BendingConstraints = HingeConstraints<DihedralModel>;

impl BendingConstraints {
    /// Rest angle of constraint `c` (rad).
    pub fn rest_angle(&self, c: usize) -> f32 {
        self.rest(c)
    }

    /// The correction of constraint `c` from the state's positions and multiplier.
    pub(crate) fn correction(
        &self,
        c: usize,
        state: &SolveState,
        multipliers: &Multipliers,
    ) -> Option<BendingCorrection> {
        let [a, b, d, e] = self.particles(c).map(|i| i as usize);
        let w = [a, b, d, e].map(|i| state.inverse_masses[i]);
        bending_correction(
            state.position(a),
            state.position(b),
            state.position(d),
            state.position(e),
            w,
            self.rest(c),
            multipliers[Kind::Bending][c],
            scaled_response(state.responses.bending, self.response_scale(c)),
        )
    }
}

/// One bending constraint as the GPU reads it (`BendingConstraint` in WGSL): its rest data and
/// the XPBD multiplier of the current substep. Its particles come from its unit.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct BendingRecord {
    /// Rest angle (rad).
    pub rest_angle: f32,
    /// XPBD multiplier λ, reset at the first iteration of every substep.
    pub lambda: f32,
    /// How many times stiffer than its kind's response this constraint is.
    pub stiffness_scale: f32,
}

impl BendingRecord {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout =
        struct_layout!(BendingRecord as "BendingConstraint", rest_angle, lambda, stiffness_scale);
}

/// The signed dihedral angle of the hinge `(p0, p1; p2, p3)` and its gradient with respect to
/// each particle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dihedral {
    /// The angle (rad) in `[−π, π]`, 0 for a flat pair.
    pub angle: f32,
    /// `∇_{p_i} angle`.
    pub gradients: [Vec3; 4],
}

/// The signed dihedral angle between triangles `(p0, p1, p2)` and `(p0, p1, p3)` sharing the
/// edge `e = p1 − p0`: with `n_A = e × (p2 − p0)` and `n_B = (p3 − p0) × e` (parallel for a flat
/// pair), `θ = atan2((n_A × n_B)·ê, n_A·n_B)`. Unlike PBD §4.1's `acos(n1·n2)`, the sign tells
/// which way the hinge folds, so a curved rest shape cannot flip to its mirror image. The
/// gradients are the exact ones of Bridson et al. 2003 (§4): `∇_{p2} = −|e| n_A/|n_A|²`,
/// `∇_{p3} = −|e| n_B/|n_B|²`, and with `t_A = (p2 − p0)·e/|e|²`, `t_B = (p3 − p0)·e/|e|²` the
/// edge's `∇_{p0} = −(1 − t_A)∇_{p2} − (1 − t_B)∇_{p3}`, `∇_{p1} = −t_A ∇_{p2} − t_B ∇_{p3}`, which
/// sum to zero (translation) and have no singularity at flat. [`atan2`] keeps the angle the
/// same bits as on the GPU. `None` when the edge or a triangle is degenerate.
pub fn dihedral(p0: Vec3, p1: Vec3, p2: Vec3, p3: Vec3) -> Option<Dihedral> {
    let (e, a, b) = (p1 - p0, p2 - p0, p3 - p0);
    let (normal_a, normal_b) = (e.cross(a), b.cross(e));
    let (edge_length, area_a, area_b) = (e.length(), normal_a.length_squared(), normal_b.length_squared());
    let degenerate = GEOMETRY_EPSILON * GEOMETRY_EPSILON;
    if edge_length < GEOMETRY_EPSILON || area_a < degenerate || area_b < degenerate {
        return None;
    }
    let angle = atan2(normal_a.cross(normal_b).dot(e) / edge_length, normal_a.dot(normal_b));
    let wing_a = normal_a * (-edge_length / area_a);
    let wing_b = normal_b * (-edge_length / area_b);
    let edge_squared = edge_length * edge_length;
    let (t_a, t_b) = (a.dot(e) / edge_squared, b.dot(e) / edge_squared);
    Some(Dihedral {
        angle,
        gradients: [-(wing_a * (1.0 - t_a)) - wing_b * (1.0 - t_b), -(wing_a * t_a) - wing_b * t_b, wing_a, wing_b],
    })
}

/// The signed dihedral angle of [`dihedral`] alone.
pub fn dihedral_angle(p0: Vec3, p1: Vec3, p2: Vec3, p3: Vec3) -> Option<f32> {
    dihedral(p0, p1, p2, p3).map(|d| d.angle)
}

/// The largest angle error one projection of a bending constraint acts on (rad): a quarter
/// turn. The projection moves each particle along its gradient, a straight line, while the angle
/// turns the wings about the edge: a step meant to turn a wing of height `h` by `C` leaves its
/// circle by `h(√(1 + C²) − 1)`, 0.86 h at a quarter turn and 2.3 h at a half turn. A hinge
/// folded further than a quarter turn from rest (a whipping free edge folding over itself) is
/// turned back a quarter turn at most per projection, the rest in the projections after.
/// Without this bound, a 192² benchmark cloth at 20 × 1 gained energy as hinges folded past
/// 2.5 rad, from 7.7 J to 133 J in 73 frames (BENCHMARKS.md, "Hinges folded over"). Hinges
/// within a quarter turn of rest, all of a draping cloth's, are projected as before.
pub const MAX_BENDING_STEP: f32 = std::f32::consts::FRAC_PI_2;

/// `angle − rest` wrapped into `[−π, π]`, so a hinge near ±π bends the short way round.
pub fn angle_error(angle: f32, rest: f32) -> f32 {
    let c = angle - rest;
    if c > PI {
        c - TAU
    } else if c < -PI {
        c + TAU
    } else {
        c
    }
}

/// Projects the bending constraint `C = θ − rest` on the signed dihedral angle θ of
/// [`dihedral`] (PBD §4.1 with exact gradients) in the unified PBD/XPBD form
/// `Δλ = k(−C − α̃λ)/(Σ w_i|∇_i C|² + α̃)`, `Δp_i = w_i ∇_i C Δλ` (XPBD eq. 18), with `C`
/// bounded by [`MAX_BENDING_STEP`]. `None` for a degenerate hinge or when no particle can move.
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
    let Dihedral { angle, gradients: g } = dihedral(p0, p1, p2, p3)?;
    let [k, alpha_tilde] = response;
    let weighted = w[0] * g[0].length_squared()
        + w[1] * g[1].length_squared()
        + w[2] * g[2].length_squared()
        + w[3] * g[3].length_squared();
    let denominator = weighted + alpha_tilde;
    if denominator < DENOMINATOR_EPSILON {
        return None;
    }
    let error = angle_error(angle, rest).clamp(-MAX_BENDING_STEP, MAX_BENDING_STEP);
    let dlambda = k * (-error - alpha_tilde * lambda) / denominator;
    Some(BendingCorrection {
        dp: [g[0] * (w[0] * dlambda), g[1] * (w[1] * dlambda), g[2] * (w[2] * dlambda), g[3] * (w[3] * dlambda)],
        dlambda,
    })
}
