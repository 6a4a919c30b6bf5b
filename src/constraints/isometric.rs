//! Isometric bending (Bergou, Wardetzky, Harmon, Zorin & Grinspun 2006, *A Quadratic Bending
//! Model for Inextensible Surfaces*; GAMES103 lecture 6): a constraint per interior edge on the
//! discrete mean-curvature vector of its two triangles, the other bending model beside
//! [`super::bending`]'s dihedral angle. WGSL twin: `shaders/constraints/isometric.wgsl` (same
//! names, same argument order).
//!
//! Hinge `(x0, x1; x2, x3)` (shared edge, then the wings) has the constant cotangent weights
//! `K = (c03 + c04, c01 + c02, −c01 − c03, −c02 − c04)` of its rest triangles, `c0j` the
//! cotangent of the angle at `x0` between the edge and `xj`'s side, `c1j` the same at `x1`.
//! `Σ K_i x_i` vanishes for the flat rest hinge and any affine image of it (in-plane stretch and
//! shear are not bending) and, on a smooth surface, is proportional to its Laplacian
//! `Δx = 2H n`. Bergou's energy is `½ Σ_ij Q_ij x_i·x_j` with `Q ∝ K Kᵀ/(A0 + A1)`; with the
//! weights `W = K / sqrt(A0 + A1)` the constraint `C = |Σ W_i x_i|` (dimensionless, like an
//! angle) gives XPBD the energy `C²/(2α)` per edge, which sums to the plate energy
//! `½ D ∫ (κ1 + κ2)² dA` with `D = 1/α` (N·m): the bending compliance is the inverse flexural
//! rigidity. (Bergou writes `3/(A0 + A1)`; the factor 3 only rescales the stiffness, and the
//! tests measure the sum against the plate on rolled sheets.) That holds in every direction on
//! equilateral triangles; on a grid of right triangles the per-edge form is anisotropic, exact
//! for bends along the grid lines and up to 1.54 times stiffer along the diagonals.
//!
//! When each model fits: the isometric energy is quadratic in the positions with a constant
//! Hessian (the weights never change), so one projection removes a PBD stiffness `k`'s share of
//! the curvature exactly and it costs a dot product, no trigonometry — but it measures
//! curvature against the *rest lengths*, so it is exact only while the cloth does not stretch
//! (a stiff, tethered or strain-limited cloth), and it bends toward *flat*: a cloth whose rest
//! mesh is curved (a tube, a sleeve) would lose its rest shape, so the model refuses one
//! ([`FLAT_REST_TOLERANCE`]). The dihedral model keeps any rest
//! angle and is independent of stretch, at the price of angles, their gradients and a
//! position-dependent denominator.

use super::hinge_constraints::{BendingCorrection, HingeConstraints, HingeModel};
use super::{scaled_response, Kind, Multipliers, Response, SolveState, DENOMINATOR_EPSILON};
use crate::math::GEOMETRY_EPSILON;
use crate::struct_layout;
use crate::wgsl::{StructLayout, WgslFile};
use crate::wgsl_file;
use bytemuck::{Pod, Zeroable};
use glam::Vec3;

/// The WGSL twin.
pub const WGSL: WgslFile = wgsl_file!("constraints/isometric.wgsl");

/// The isometric model: a hinge's rest data is its weights `W` (see the module).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IsometricModel;

impl HingeModel for IsometricModel {
    type Rest = [f32; 4];
    type Record = IsometricRecord;

    fn rest([p0, p1, p2, p3]: [Vec3; 4]) -> Option<[f32; 4]> {
        isometric_weights(p0, p1, p2, p3)
    }

    fn record(weights: [f32; 4], stiffness_scale: f32) -> IsometricRecord {
        IsometricRecord { weights, lambda: 0.0, stiffness_scale }
    }
}

/// The isometric bending constraints of a cloth, one per hinge with its weights.
pub type IsometricConstraints = HingeConstraints<IsometricModel>;

impl IsometricConstraints {
    /// The weights `W` of constraint `c` (see the module).
    pub fn weights(&self, c: usize) -> [f32; 4] {
        self.rest(c)
    }

    /// The correction of constraint `c` from the state's positions and multiplier.
    pub(crate) fn correction(
        &self,
        c: usize,
        state: &SolveState,
        multipliers: &Multipliers,
    ) -> Option<BendingCorrection> {
        let particles = self.particles(c).map(|i| i as usize);
        isometric_correction(
            particles.map(|i| state.position(i)),
            particles.map(|i| state.inverse_masses[i]),
            self.rest(c),
            multipliers[Kind::Isometric][c],
            scaled_response(state.responses.bending, self.response_scale(c)),
        )
    }
}

/// One isometric bending constraint as the GPU reads it (`IsometricConstraint` in WGSL): its
/// weights and the XPBD multiplier of the current substep. Its particles come from its unit.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct IsometricRecord {
    /// `W` of the edge's two particles, then the wings'.
    pub weights: [f32; 4],
    /// XPBD multiplier λ, reset at the first iteration of every substep.
    pub lambda: f32,
    /// How many times stiffer than its kind's response this constraint is.
    pub stiffness_scale: f32,
}

impl IsometricRecord {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout =
        struct_layout!(IsometricRecord as "IsometricConstraint", weights, lambda, stiffness_scale);
}

/// The cotangent of the angle between `a` and `b`, `None` when they are parallel.
fn cotangent(a: Vec3, b: Vec3) -> Option<f32> {
    let sine = a.cross(b).length();
    (sine >= GEOMETRY_EPSILON * GEOMETRY_EPSILON).then(|| a.dot(b) / sine)
}

/// The weights `W = K / sqrt(A0 + A1)` of hinge `(p0, p1; p2, p3)` at rest (Bergou et al.
/// 2006 §4, see the module), `None` when an edge or a triangle is degenerate.
pub fn isometric_weights(p0: Vec3, p1: Vec3, p2: Vec3, p3: Vec3) -> Option<[f32; 4]> {
    let edge = p1 - p0;
    let c01 = cotangent(edge, p2 - p0)?;
    let c02 = cotangent(edge, p3 - p0)?;
    let c03 = cotangent(-edge, p2 - p1)?;
    let c04 = cotangent(-edge, p3 - p1)?;
    let area = 0.5 * (edge.cross(p2 - p0).length() + edge.cross(p3 - p0).length());
    let scale = area.sqrt().recip();
    let weights = [c03 + c04, c01 + c02, -c01 - c03, -c02 - c04].map(|k| k * scale);
    weights.iter().all(|w| w.is_finite()).then_some(weights)
}

/// The most a hinge's rest curvature `|Σ W_i x̄_i|` may be for the isometric model
/// ([`rest_curvature`]): about `θ·|e|/√(A₀ + A₁)` for a rest hinge folded by `θ` (a fold of
/// 0.8° across a grid cell's diagonal). The model bends every hinge toward flat, so a curved
/// rest mesh would lose its shape: [`crate::ClothModel::with_bending_model`] refuses it
/// ([`crate::Error::CurvedRestHinge`]) and the dihedral model keeps it.
pub const FLAT_REST_TOLERANCE: f32 = 0.02;

/// A hinge's rest curvature for the isometric model: `|Σ W_i x̄_i|` of its rest corners `rest`
/// with its weights, the constraint's own value in the rest state (zero when it is flat).
pub fn rest_curvature(rest: [Vec3; 4], weights: [f32; 4]) -> f32 {
    curvature_vector(rest, weights).length()
}

/// `Σ W_i p_i`, the hinge's (scaled) mean-curvature vector: zero when it is flat.
pub fn curvature_vector(p: [Vec3; 4], weights: [f32; 4]) -> Vec3 {
    p[0] * weights[0] + p[1] * weights[1] + p[2] * weights[2] + p[3] * weights[3]
}

/// Projects the isometric constraint `C = |v|`, `v = Σ W_i p_i`, in the unified PBD/XPBD form
/// `Δλ = k(−C − α̃λ)/(Σ w_i W_i² + α̃)`, `Δp_i = w_i W_i v̂ Δλ` (XPBD eq. 18; `∇_i C = W_i v̂`,
/// so the denominator does not depend on the positions and a PBD step with `k = 1` flattens the
/// hinge exactly). `None` when the hinge is flat (`v = 0`, no direction) or no particle can
/// move.
pub fn isometric_correction(
    p: [Vec3; 4],
    w: [f32; 4],
    weights: [f32; 4],
    lambda: f32,
    response: Response,
) -> Option<BendingCorrection> {
    let v = curvature_vector(p, weights);
    let c = v.length();
    let [k, alpha_tilde] = response;
    let weighted = w[0] * weights[0] * weights[0]
        + w[1] * weights[1] * weights[1]
        + w[2] * weights[2] * weights[2]
        + w[3] * weights[3] * weights[3];
    let denominator = weighted + alpha_tilde;
    if c <= 0.0 || denominator < DENOMINATOR_EPSILON {
        return None;
    }
    let dlambda = k * (-c - alpha_tilde * lambda) / denominator;
    let direction = v / c;
    Some(BendingCorrection { dp: [0, 1, 2, 3].map(|i| direction * (w[i] * weights[i] * dlambda)), dlambda })
}
