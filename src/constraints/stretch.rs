//! Stretch: a distance constraint per mesh edge at its rest length (PBD §3.3 eq. 10–11, §4.1),
//! with separate responses when the edge is longer or shorter than rest. WGSL twin:
//! `shaders/constraints/stretch.wgsl` (same names, same argument order).

use super::{scaled_response, Kind, KindConstraints, Multipliers, Response, SolveState, DENOMINATOR_EPSILON};
use crate::math::GEOMETRY_EPSILON;
use crate::struct_layout;
use crate::wgsl::{StructLayout, WgslFile};
use crate::wgsl_file;
use bytemuck::{Pod, Zeroable};
use glam::Vec3;

/// The WGSL twin.
pub const WGSL: WgslFile = wgsl_file!("constraints/stretch.wgsl");

/// The stretch constraints of a cloth: edge `c` joins `edges[c]` at `rest_lengths[c]` metres.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StretchConstraints {
    edges: Vec<[u32; 2]>,
    rest_lengths: Vec<f32>,
    /// Each constraint's stiffness scale (its material map, 1 by default).
    stiffness_scales: Vec<f32>,
}

impl StretchConstraints {
    /// Edges between `positions` at their current distances.
    pub(crate) fn between(edges: Vec<[u32; 2]>, positions: &[Vec3]) -> Self {
        let rest_lengths = edges.iter().map(|&[a, b]| positions[a as usize].distance(positions[b as usize])).collect();
        let stiffness_scales = vec![1.0; edges.len()];
        Self { edges, rest_lengths, stiffness_scales }
    }

    /// The constraints of separate cloths as one cloth's ([`crate::ClothModel::joined`]), or
    /// of one cloth reordered (one part, offset 0): constraint `k` of the result is constraint `picks[k].1` of `parts[picks[k].0]`, its
    /// particles moved by that part's `offsets` entry.
    pub(crate) fn gathered(parts: &[&Self], picks: &[(usize, u32)], offsets: &[u32]) -> Self {
        let (mut edges, mut rest_lengths, mut stiffness_scales) = (Vec::new(), Vec::new(), Vec::new());
        for &(part, c) in picks {
            let (from, c) = (parts[part], c as usize);
            edges.push(from.edges[c].map(|i| i + offsets[part]));
            rest_lengths.push(from.rest_lengths[c]);
            stiffness_scales.push(from.stiffness_scales[c]);
        }
        Self { edges, rest_lengths, stiffness_scales }
    }

    /// Number of constraints.
    pub fn len(&self) -> usize {
        self.edges.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.edges.is_empty()
    }

    /// The two particles of constraint `c`.
    pub fn particles(&self, c: usize) -> [u32; 2] {
        self.edges[c]
    }

    /// Every constraint's particles.
    pub fn edges(&self) -> &[[u32; 2]] {
        &self.edges
    }

    /// Rest length of constraint `c` (m).
    pub fn rest_length(&self, c: usize) -> f32 {
        self.rest_lengths[c]
    }

    /// The GPU records, multipliers zeroed.
    pub fn records(&self) -> Vec<StretchRecord> {
        let records = self.rest_lengths.iter().zip(&self.stiffness_scales);
        records
            .map(|(&rest_length, &stiffness_scale)| StretchRecord { rest_length, lambda: 0.0, stiffness_scale })
            .collect()
    }
}

impl KindConstraints for StretchConstraints {
    fn constraint_count(&self) -> usize {
        self.len()
    }

    fn constraint_particles(&self, c: usize) -> &[u32] {
        &self.edges[c]
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

/// One stretch constraint as the GPU reads it (`StretchConstraint` in WGSL): its rest data and
/// the XPBD multiplier of the current substep, read together. Its particles come from its unit
/// (the unit table of `src/passes/iterations/buffers.rs`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct StretchRecord {
    /// Rest length (m).
    pub rest_length: f32,
    /// XPBD multiplier λ, reset at the first iteration of every substep.
    pub lambda: f32,
    /// How many times stiffer than its kind's response this constraint is.
    pub stiffness_scale: f32,
}

impl StretchRecord {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout =
        struct_layout!(StretchRecord as "StretchConstraint", rest_length, lambda, stiffness_scale);
}

/// The correction of a distance constraint: position changes of its two particles and the
/// change of its multiplier.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DistanceCorrection {
    /// Position change of each particle (m).
    pub dp: [Vec3; 2],
    /// The multiplier the correction started from: the stored one, or zero where it was
    /// accumulated in the other regime (stretched or compressed).
    pub lambda: f32,
    /// Change of the multiplier.
    pub dlambda: f32,
}

/// Projects a distance constraint `C = |p0 − p1| − rest` (PBD §3.3 eq. 10–11) in the unified
/// PBD/XPBD form `Δλ = k·(−C − α̃λ)/(w0 + w1 + α̃)`, `Δp_i = w_i ∇_i C Δλ` (XPBD eq. 18).
/// `stretch` and `compression` are the responses used when the edge is longer or shorter than
/// `rest`. A multiplier accumulated in the other regime is not reused under this one's
/// compliance: stretch multipliers are ≤ 0 and compression ones ≥ 0, so the other sign restarts
/// from zero. `None` for a zero-length edge or two immovable particles.
#[allow(clippy::too_many_arguments)]
pub fn distance_correction(
    p0: Vec3,
    p1: Vec3,
    w0: f32,
    w1: f32,
    rest: f32,
    lambda: f32,
    stretch: Response,
    compression: Response,
) -> Option<DistanceCorrection> {
    let delta = p0 - p1;
    let length = delta.length();
    if length < GEOMETRY_EPSILON {
        return None;
    }
    let c = length - rest;
    let stretched = c > 0.0;
    let [k, alpha_tilde] = if stretched { stretch } else { compression };
    let lambda = if stretched { lambda.min(0.0) } else { lambda.max(0.0) };
    let denominator = w0 + w1 + alpha_tilde;
    if denominator < DENOMINATOR_EPSILON {
        return None;
    }
    let dlambda = k * (-c - alpha_tilde * lambda) / denominator;
    let n = delta / length;
    Some(DistanceCorrection { dp: [n * (w0 * dlambda), n * (-w1 * dlambda)], lambda, dlambda })
}

/// Bounds on a ratio to rest: an edge's stretch `l / l0` ([`crate::SolverParams::strain_limits`])
/// or a triangle's area `A / A0` ([`crate::SolverParams::area_limits`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StrainLimits {
    /// Smallest allowed ratio, in `[0, 1]` (0: no compression limit).
    pub min: f32,
    /// Largest allowed ratio, finite and ≥ 1.
    pub max: f32,
}

/// Strain limiting (GAMES103 lecture 6): the correction `k` of the edge `p0`–`p1` extended so
/// that the edge ends within `[limits.min, limits.max]` times `rest` — the PBD projection of the
/// limit, `Δp_i = ∓ w_i/(w0 + w1)·(l' − clamp(l'))·n'` on the edge as `k` leaves it (length `l'`,
/// direction `n'`). A hard bound on top of a soft (compliant) stretch constraint; the multiplier
/// is the soft constraint's alone. Unchanged for a zero-length edge or two immovable particles.
pub fn limit_strain(
    k: DistanceCorrection,
    p0: Vec3,
    p1: Vec3,
    w0: f32,
    w1: f32,
    rest: f32,
    limits: StrainLimits,
) -> DistanceCorrection {
    let delta = (p0 + k.dp[0]) - (p1 + k.dp[1]);
    let length = delta.length();
    let limited = length.max(limits.min * rest).min(limits.max * rest);
    let w = w0 + w1;
    if length < GEOMETRY_EPSILON || w < DENOMINATOR_EPSILON {
        return k;
    }
    let s = (length - limited) / w;
    let n = delta / length;
    DistanceCorrection { dp: [k.dp[0] - n * (w0 * s), k.dp[1] + n * (w1 * s)], ..k }
}

impl StretchConstraints {
    /// The correction of constraint `c` from the state's positions and multiplier, within the
    /// strain limits when they are on.
    pub(crate) fn correction(
        &self,
        c: usize,
        state: &SolveState,
        multipliers: &Multipliers,
    ) -> Option<DistanceCorrection> {
        let [a, b] = self.edges[c].map(|i| i as usize);
        let (p0, p1) = (state.position(a), state.position(b));
        let (w0, w1) = (state.inverse_masses[a], state.inverse_masses[b]);
        let rest = self.rest_lengths[c];
        let responses = &state.responses;
        let lambda = multipliers[Kind::Stretch][c];
        let scale = self.stiffness_scales[c];
        let (stretch, compression) =
            (scaled_response(responses.stretch, scale), scaled_response(responses.compression, scale));
        let k = distance_correction(p0, p1, w0, w1, rest, lambda, stretch, compression)?;
        Some(match responses.strain_limits {
            Some(limits) => limit_strain(k, p0, p1, w0, w1, rest, limits),
            None => k,
        })
    }
}

/// Gauss-Seidel projection of free-edge unit `c` (a stretch constraint on its own): moves its
/// particles at once.
pub(crate) fn project_free_edge(
    stretch: &StretchConstraints,
    c: usize,
    state: &mut SolveState,
    multipliers: &mut Multipliers,
) {
    if let Some(k) = stretch.correction(c, state, multipliers) {
        let [a, b] = stretch.edges[c].map(|i| i as usize);
        state.displacements[a] += k.dp[0];
        state.displacements[b] += k.dp[1];
        multipliers[Kind::Stretch][c] = k.lambda + k.dlambda;
    }
}

/// Jacobi projection of free-edge unit `c`: its particles' corrections scaled by `scale`
/// (relaxation over the constraint's share, [`super::JacobiScales`]) into `slots`, and its
/// multiplier advanced by the same share.
pub(crate) fn jacobi_free_edge(
    stretch: &StretchConstraints,
    c: usize,
    scale: f32,
    state: &SolveState,
    multipliers: &mut Multipliers,
    slots: &mut [Vec3],
) {
    let Some(k) = stretch.correction(c, state, multipliers) else {
        slots.fill(Vec3::ZERO);
        return;
    };
    slots[0] = k.dp[0] * scale;
    slots[1] = k.dp[1] * scale;
    multipliers[Kind::Stretch][c] = k.lambda + k.dlambda * scale;
}
