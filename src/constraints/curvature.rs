//! Curvature bending: three constraints per triangle on its curvature tensor, measured from
//! the dihedral angles of its three edges in the rest material frame, each with its own
//! bending rigidity. WGSL twin: `shaders/constraints/curvature.wgsl` (same names, same
//! argument order).
//!
//! The curvature tensor of a triangle is the discrete shape operator of Grinspun, Gingold,
//! Reisman & Zorin 2006 ("Computing discrete shape operators on general meshes"), for small
//! angles: `S = Σ_k θ_k |e_k|/(2A) t_k t_kᵀ`, with `θ_k` the signed dihedral angle across edge
//! `k` (against its rest angle), `|e_k|` its rest length, `A` the triangle's rest area and `t_k`
//! the unit in-plane normal of the edge. On a grid of right triangles, a sheet rolled into a
//! cylinder of curvature `κ` along either axis gives `S = κ â âᵀ` exactly; rolled obliquely it
//! holds what per-hinge stiffnesses hold (up to 1.48 times the plate at 45°, where the grid's
//! diagonals take the twist at twice a plate's stiffness: a property of that mesh). The
//! constraints are
//! its components in the warp/weft frame, `C = (S_uu, S_vv, √2 S_uv)`, with compliances
//! `1/(B_warp A)`, `1/(B_weft A)` and `1/(B_twist A)`, so the triangle holds the orthotropic
//! plate energy `½ A (B_warp κ_uu² + B_weft κ_vv² + 2 B_twist κ_uv²)`.
//!
//! Why this model and not a stiffness per hinge ([`super::bending`], [`super::isometric`]):
//! a hinge alone cannot tell bending from twisting. On a triangulated strip, a fold along a
//! diagonal turns the strip about its width as much as about its length, so a strip loaded in
//! bending folds its diagonals too, each in series with the hinges across it: with per-hinge
//! stiffnesses that hold the same energy as curvature on smooth bends, a clamped strip still
//! bends as one of 0.94 times its rigidity at 8 cells over the overhang and 0.87 at 16, softer
//! as the cells shrink (the cantilever of `tests/lab.rs`, minimised in f64). The shape operator
//! sums a triangle's three angles before squaring them, so a diagonal's fold adds to the
//! triangle's curvature along the strip instead of beside it, and the strip bends as its
//! rigidity says.
//!
//! Each triangle projects its three constraints in one unit of six particles: its own three
//! and the far vertex of the triangle across each edge (the vertex itself across a boundary
//! edge, whose weights are zero). The three angles and their gradients are computed once per
//! projection; the constraints follow one after the other, each from the values the one before
//! left, to first order (Gauss-Seidel within the unit).

use super::bending::{angle_error, dihedral, MAX_BENDING_STEP};
use super::membrane::{double_area, material_edges, merged_materials, warp_direction};
use super::{scaled_compliance, Kind, KindConstraints, Multipliers, Response, SolveState, DENOMINATOR_EPSILON};
use crate::mesh::MeshEdge;
use crate::struct_layout;
use crate::wgsl::{StructLayout, WgslFile};
use crate::wgsl_file;
use bytemuck::{Pod, Zeroable};
use glam::{Mat3, Vec2, Vec3};
use std::collections::HashMap;

/// The WGSL twin.
pub const WGSL: WgslFile = wgsl_file!("constraints/curvature.wgsl");

/// A triangle's rest data: its shape in the material frame, which of its edges have a
/// triangle across, and each edge's rest angle. The weights and the area follow from the shape
/// (on the GPU too: four words instead of ten read per projection).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurvatureRest {
    /// The rest edges from vertex 0 to vertices 1 and 2 in the warp/weft frame `(û, v̂)` (m).
    pub frame: [Vec2; 2],
    /// Whether edge `k` (from vertex `k` to vertex `k + 1`) has a triangle across, with a rest
    /// hinge that is not degenerate (else the edge counts in no curvature).
    pub interior: [bool; 3],
    /// Each edge's rest dihedral angle (rad), as the unit measures it.
    pub rest_angles: [f32; 3],
}

impl CurvatureRest {
    /// Twice the rest area (m²).
    pub fn double_area(&self) -> f32 {
        double_area(self.frame)
    }

    /// Rest area (m²).
    pub fn area(&self) -> f32 {
        0.5 * self.double_area()
    }

    /// Each edge's weights in `(S_uu, S_vv, √2 S_uv)` (1/m): `|e_k|/(2A) · ((t_k·û)², (t_k·v̂)²,
    /// √2 (t_k·û)(t_k·v̂))`, `t_k` the edge's in-plane unit normal, zero for a boundary edge.
    pub fn weights(&self) -> [[f32; 3]; 3] {
        let [f1, f2] = self.frame;
        let edges = [f1, f2 - f1, -f2];
        std::array::from_fn(|k| edge_weights(edges[k], self.double_area(), self.interior[k]))
    }
}

/// The weights of an edge `e` (in the material frame) of a triangle of twice the area
/// `double_area`: with `t = (e_v, −e_u)/|e|`, `|e|/(2A) (t_u², t_v², √2 t_u t_v)` is
/// `(e_v², e_u², −√2 e_u e_v)/(2A |e|)`; zero for a boundary edge or a degenerate one.
fn edge_weights(e: Vec2, double_area: f32, interior: bool) -> [f32; 3] {
    let d = double_area * e.length();
    if !(interior && d > 0.0) {
        return [0.0; 3];
    }
    [e.y * e.y / d, e.x * e.x / d, -std::f32::consts::SQRT_2 * e.x * e.y / d]
}

/// The curvature constraints of a cloth: triangle `t` has the particles `units[t]` (its three
/// vertices, then the far vertex across each edge) and its rest data.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CurvatureConstraints {
    units: Vec<[u32; 6]>,
    rest: Vec<CurvatureRest>,
    /// The distinct rigidities `B_warp`, `B_weft` and `B_twist` (N·m), the first the kind's: a
    /// cloth has one; cloths of several fabrics joined one each, at most
    /// [`super::membrane::MAX_MATERIALS`].
    materials: Vec<[f32; 3]>,
    /// Each constraint's entry of `materials`.
    material: Vec<u32>,
    /// Each constraint's stiffness scale (its material map, 1 by default).
    stiffness_scales: Vec<f32>,
}

impl CurvatureConstraints {
    /// A constraint per triangle of `triangles` whose rest shape gives a frame, with unit
    /// rigidities until [`CurvatureConstraints::set_rigidities`]; with each triangle's flag of
    /// whether it got one. `edges` are the mesh's edges with the triangles on each side.
    pub(crate) fn at_rest(
        triangles: &[[u32; 3]],
        positions: &[Vec3],
        uvs: &[Vec2],
        edges: &[MeshEdge],
    ) -> (Self, Vec<bool>) {
        let sides: HashMap<(u32, u32), (u32, Option<u32>)> =
            edges.iter().map(|e| ((e.a, e.b), (e.left, e.right))).collect();
        let mut built = Self { materials: vec![[1.0; 3]], ..Self::default() };
        let kept = triangles
            .iter()
            .enumerate()
            .map(|(t, &tri)| {
                let far = |k: usize| {
                    let (a, b) = (tri[k], tri[(k + 1) % 3]);
                    let (left, right) = sides[&(a.min(b), a.max(b))];
                    let other = if left == t as u32 { right } else { Some(left) };
                    other.and_then(|o| triangles[o as usize].iter().copied().find(|&v| v != a && v != b))
                };
                let flaps = [far(0), far(1), far(2)];
                let unit = [tri[0], tri[1], tri[2], 0, 0, 0];
                let unit =
                    std::array::from_fn(|k| if k < 3 { unit[k] } else { flaps[k - 3].unwrap_or(tri[(k - 1) % 3]) });
                let p = unit.map(|i: u32| positions[i as usize]);
                let warp = warp_direction([p[0], p[1], p[2]], tri.map(|i| uvs[i as usize]));
                let rest = rest_of(p, flaps.map(|f| f.is_some()), warp);
                rest.map(|rest| {
                    built.units.push(unit);
                    built.rest.push(rest);
                    built.material.push(0);
                    built.stiffness_scales.push(1.0);
                })
                .is_some()
            })
            .collect();
        (built, kept)
    }

    /// The constraints of separate cloths as one cloth's ([`crate::ClothModel::joined`]), or
    /// of one cloth reordered (one part, offset 0): constraint `k` of the result is constraint `picks[k].1` of `parts[picks[k].0]`, its
    /// particles moved by that part's `offsets` entry.
    /// Each keeps its rigidities: the materials are the parts' distinct ones, in order of first
    /// appearance (more than [`super::membrane::MAX_MATERIALS`] is the caller's to refuse).
    pub(crate) fn gathered(parts: &[&Self], picks: &[(usize, u32)], offsets: &[u32]) -> Self {
        let pick = |&(part, c): &(usize, u32)| (parts[part], c as usize, offsets[part]);
        let tables: Vec<&[[f32; 3]]> = parts.iter().map(|p| p.materials.as_slice()).collect();
        let (materials, places) = merged_materials(&tables);
        Self {
            materials,
            material: picks.iter().map(|&(part, c)| places[part][parts[part].material[c as usize] as usize]).collect(),
            units: picks.iter().map(pick).map(|(from, c, offset)| from.units[c].map(|i| i + offset)).collect(),
            rest: picks.iter().map(pick).map(|(from, c, _)| from.rest[c]).collect(),
            stiffness_scales: picks.iter().map(pick).map(|(from, c, _)| from.stiffness_scales[c]).collect(),
        }
    }

    /// Sets the rigidities `B_warp`, `B_weft` and `B_twist` (N·m) every triangle bends by.
    pub(crate) fn set_rigidities(&mut self, rigidities: [f32; 3]) {
        self.materials = vec![rigidities];
        self.material.fill(0);
    }

    /// Its distinct rigidities, each constraint's [`CurvatureConstraints::material`] an entry.
    pub fn materials(&self) -> &[[f32; 3]] {
        &self.materials
    }

    /// Constraint `c`'s entry of [`CurvatureConstraints::materials`].
    pub fn material(&self, c: usize) -> u32 {
        self.material[c]
    }

    /// Number of constraints (triangles).
    pub fn len(&self) -> usize {
        self.units.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.units.is_empty()
    }

    /// Each unit's particles: the triangle's three vertices, then the far vertex across each
    /// of its edges.
    pub fn units(&self) -> &[[u32; 6]] {
        &self.units
    }

    /// Constraint `c`'s rest data.
    pub fn rest(&self, c: usize) -> CurvatureRest {
        self.rest[c]
    }

    /// Constraint `c`'s stiffnesses `B·A·scale` (N·m³) for the warp, weft and twist
    /// curvatures: the inverse of their XPBD compliances.
    pub fn stiffnesses(&self, c: usize) -> [f32; 3] {
        let s = self.rest[c].area() * self.stiffness_scales[c];
        self.materials[self.material[c] as usize].map(|b| b * s)
    }

    /// The responses `[k, α̃/B]` of the warp, weft and twist curvatures of material `m` per unit
    /// of area and stiffness scale, from the kind's `response` per unit of stiffness: the GPU
    /// reads them from its table of materials (`[k, α̃/B_warp, α̃/B_weft, α̃/B_twist]`), so a
    /// record holds a material's index instead of three stiffnesses per triangle.
    /// At most the largest f32 (a rigidity of zero, as in a cloth without curvature
    /// constraints, gives it rather than infinity).
    pub fn area_responses(&self, m: usize, response: Response) -> [Response; 3] {
        let [k, alpha_tilde] = response;
        self.materials.get(m).copied().unwrap_or([0.0; 3]).map(|b| [k, (alpha_tilde / b).min(f32::MAX)])
    }

    /// The GPU records, multipliers zeroed.
    pub fn records(&self) -> Vec<CurvatureRecord> {
        (0..self.len())
            .map(|c| {
                let rest = &self.rest[c];
                let [f1, f2] = rest.frame;
                CurvatureRecord {
                    frame: [f1.x, f1.y, f2.x, f2.y],
                    rest_angles: rest.rest_angles,
                    stiffness_scale: self.stiffness_scales[c],
                    lambdas: [0.0; 3],
                    topology: topology(&self.units[c], rest.interior) | self.material[c] << MATERIAL_SHIFT,
                }
            })
            .collect()
    }

    /// The correction of constraint `c` at the six positions `p` with inverse masses `w` and
    /// multipliers `lambdas`, under `response` per unit of stiffness.
    pub(crate) fn correction(
        &self,
        c: usize,
        p: [Vec3; 6],
        w: [f32; 6],
        lambdas: [f32; 3],
        response: Response,
    ) -> CurvatureCorrection {
        let rest = &self.rest[c];
        let scale = rest.area() * self.stiffness_scales[c];
        let responses = self.area_responses(self.material[c] as usize, response).map(|r| scaled_compliance(r, scale));
        curvature_correction(p, w, rest.weights(), rest.rest_angles, lambdas, responses, aliases(&self.units[c]))
    }
}

/// The rest data of a triangle unit at `p` (its vertices, then each edge's far vertex),
/// `interior[k]` whether edge `k` has a triangle across, with its warp along `warp`. `None` for
/// a degenerate triangle.
fn rest_of(p: [Vec3; 6], interior: [bool; 3], warp: Vec3) -> Option<CurvatureRest> {
    let frame = material_edges([p[0], p[1], p[2]], warp)?;
    let mut rest = CurvatureRest { frame, interior, rest_angles: [0.0; 3] };
    for k in 0..3 {
        let hinge = edge_hinge(p, k);
        let angle = dihedral(hinge[0], hinge[1], hinge[2], hinge[3]).map(|d| d.angle);
        rest.rest_angles[k] = angle.unwrap_or(0.0);
        rest.interior[k] &= angle.is_some();
    }
    Some(rest)
}

/// Where a record's material starts in its topology word (the topology takes bits 0–11).
pub const MATERIAL_SHIFT: u32 = 16;

/// The GPU record's `topology`: the unit's [`aliases`] in bits 0–8, and in bit `9 + k` whether
/// edge `k` has a triangle across.
pub fn topology(unit: &[u32; 6], interior: [bool; 3]) -> u32 {
    (0..3).fold(aliases(unit), |bits, k| bits | u32::from(interior[k]) << (9 + k))
}

/// For each far vertex of `unit` (places 3, 4, 5), three bits: the first place holding the same
/// particle, or 7 where none does (a boundary edge's far vertex is the triangle's own third
/// vertex; two edges can share a far vertex where a vertex has only three triangles).
pub fn aliases(unit: &[u32; 6]) -> u32 {
    (3..6).fold(0, |bits, k| {
        let first = (0..k).find(|&j| unit[j] == unit[k]).map_or(7, |j| j as u32);
        bits | first << (3 * (k - 3))
    })
}

/// The hinge of edge `k` of a unit at `p`: the edge from vertex `k` to `k + 1`, the triangle's
/// own third vertex, then the far vertex. Every edge's first wing is the triangle itself, so
/// the three angles share its normal's sign convention.
fn edge_hinge(p: [Vec3; 6], k: usize) -> [Vec3; 4] {
    [p[k], p[(k + 1) % 3], p[(k + 2) % 3], p[3 + k]]
}

/// The particle slots (0..6) of edge `k`'s hinge, in [`edge_hinge`]'s order.
const fn hinge_slots(k: usize) -> [usize; 4] {
    [k, (k + 1) % 3, (k + 2) % 3, 3 + k]
}

/// One curvature constraint as the GPU reads it (`CurvatureConstraint` in WGSL): the triangle's
/// rest shape in its material frame (its weights and area follow, [`CurvatureRest`]), the rest
/// angles, the stiffness scale of a material map, the three XPBD multipliers of the current
/// substep, and its unit's topology with its material. The materials' rigidities are in a table
/// of responses ([`CurvatureConstraints::area_responses`]); the scale and the material are read
/// only where a constraint's differ from 1 and 0. Its particles come from its unit.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct CurvatureRecord {
    /// The rest edges from vertex 0 to vertices 1 and 2 in the warp/weft frame, `(u, v)` each
    /// (m).
    pub frame: [f32; 4],
    /// Each edge's rest angle (rad).
    pub rest_angles: [f32; 3],
    /// How many times stiffer than its material's rigidities (its material map).
    pub stiffness_scale: f32,
    /// XPBD multipliers, reset at the first iteration of every substep.
    pub lambdas: [f32; 3],
    /// [`topology`]: the unit's aliases (the steps gather a particle's gradient in its first
    /// place, and the GPU's Gauss-Seidel stores each particle once) and its interior edges;
    /// from bit [`MATERIAL_SHIFT`] on, its entry of the materials
    /// ([`CurvatureConstraints::materials`]), so that the record stays 12 words.
    pub topology: u32,
}

impl CurvatureRecord {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout = struct_layout!(
        CurvatureRecord as "CurvatureConstraint",
        frame,
        rest_angles,
        stiffness_scale,
        lambdas,
        topology
    );
}

impl KindConstraints for CurvatureConstraints {
    fn constraint_count(&self) -> usize {
        self.len()
    }

    fn constraint_particles(&self, c: usize) -> &[u32] {
        &self.units[c]
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

    /// Where a constraint has a map or a material other than the first.
    fn scaled(&self) -> bool {
        self.stiffness_scales.iter().any(|&s| s != 1.0) || self.material.iter().any(|&m| m != 0)
    }
}

/// The correction of a triangle's three curvature constraints: position changes of its six
/// particles and the changes of its multipliers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurvatureCorrection {
    /// Position change of each particle (m).
    pub dp: [Vec3; 6],
    /// Change of each multiplier.
    pub dlambdas: [f32; 3],
}

/// The three curvature constraints of a unit at `p`, solved one after the other by XPBD
/// (`Δλ = k(−C − α̃λ)/(Σ w|∇C|² + α̃)`, `Δp = w ∇C Δλ`, XPBD eq. 18) with `C_j = Σ_k
/// weights[k][j]·(θ_k − rest_k)` and `∇C_j = Σ_k weights[k][j] ∇θ_k`: the angles and their
/// gradients once, at `p`, each constraint's value then moved to first order by the
/// corrections before it. An edge whose hinge is degenerate (or whose angle error passes
/// [`MAX_BENDING_STEP`]) counts with its error bounded, or not at all. Each gradient is gathered
/// per particle by the unit's [`aliases`] (a particle in two places counts once, its moves in
/// its first place).
///
/// The steps run in the angles' space: with `A_i` the gradients of the three angles at
/// particle `i` (one column per angle) and `G = Σ_i w_i A_iᵀ A_i` their weighted Gram matrix,
/// constraint `j` with weights `W_j` has `Σ w|∇C_j|² = W_jᵀ G W_j`, the corrections before it
/// `Δp_i = w_i A_i μ` (`μ = Σ W_j Δλ_j`) move its value by `W_jᵀ G μ`, and the unit's moves are
/// `w_i A_i μ` once at the end: the same steps as with the particles' gradients, for a 3 × 3
/// matrix built once instead of six gradients per constraint.
pub fn curvature_correction(
    p: [Vec3; 6],
    w: [f32; 6],
    weights: [[f32; 3]; 3],
    rest_angles: [f32; 3],
    lambdas: [f32; 3],
    responses: [Response; 3],
    aliases: u32,
) -> CurvatureCorrection {
    let mut errors = Vec3::ZERO;
    // columns[place][k]: angle k's gradient at the place, then gathered per particle.
    let mut columns = [[Vec3::ZERO; 3]; 6];
    for k in 0..3 {
        let [a, b, c, d] = edge_hinge(p, k);
        if let Some(hinge) = dihedral(a, b, c, d) {
            errors[k] = angle_error(hinge.angle, rest_angles[k]).clamp(-MAX_BENDING_STEP, MAX_BENDING_STEP);
            for (slot, g) in hinge_slots(k).into_iter().zip(hinge.gradients) {
                columns[slot][k] += g;
            }
        }
    }
    for far in 3..6 {
        let first = (aliases >> (3 * (far - 3)) & 7) as usize;
        if first != 7 {
            let shares = std::mem::take(&mut columns[far]);
            (0..3).for_each(|k| columns[first][k] += shares[k]);
        }
    }
    let gram = Mat3::from_cols_array_2d(&std::array::from_fn(|k| {
        std::array::from_fn(|l| (0..6).map(|i| w[i] * columns[i][k].dot(columns[i][l])).sum())
    }));
    let mut mu = Vec3::ZERO;
    let mut dlambdas = [0.0; 3];
    for j in 0..3 {
        let weights_j = Vec3::new(weights[0][j], weights[1][j], weights[2][j]);
        // First order: the constraint as the corrections before it left it.
        let value = weights_j.dot(errors + gram * mu);
        let [k, alpha_tilde] = responses[j];
        let denominator = weights_j.dot(gram * weights_j) + alpha_tilde;
        if denominator < DENOMINATOR_EPSILON {
            continue;
        }
        dlambdas[j] = k * (-value - alpha_tilde * lambdas[j]) / denominator;
        mu += weights_j * dlambdas[j];
    }
    let dp = std::array::from_fn(|i| (columns[i][0] * mu.x + columns[i][1] * mu.y + columns[i][2] * mu.z) * w[i]);
    CurvatureCorrection { dp, dlambdas }
}

/// The curvature tensor's components `(S_uu, S_vv, √2 S_uv)` of a unit at `p` (1/m), against
/// its rest shape.
pub fn curvatures(p: [Vec3; 6], rest: &CurvatureRest) -> [f32; 3] {
    let mut s = [0.0; 3];
    for (k, weights) in rest.weights().into_iter().enumerate() {
        let [a, b, c, d] = edge_hinge(p, k);
        let error = dihedral(a, b, c, d).map_or(0.0, |h| angle_error(h.angle, rest.rest_angles[k]));
        for (value, weight) in s.iter_mut().zip(weights) {
            *value += weight * error;
        }
    }
    s
}

impl CurvatureConstraints {
    fn particles_of(&self, c: usize, state: &SolveState) -> ([usize; 6], [Vec3; 6], [f32; 6]) {
        let ids = self.units[c].map(|i| i as usize);
        (ids, ids.map(|i| state.position(i)), ids.map(|i| state.inverse_masses[i]))
    }

    fn lambdas(c: usize, multipliers: &Multipliers) -> [f32; 3] {
        std::array::from_fn(|j| multipliers[Kind::Curvature][3 * c + j])
    }
}

/// Gauss-Seidel projection of curvature constraint `c` (a curvature unit, or a shell's second
/// part). A boundary edge's far vertex is the
/// triangle's own, moved by nothing (its weights are zero).
pub(crate) fn project_curvature(
    curvature: &CurvatureConstraints,
    c: usize,
    state: &mut SolveState,
    multipliers: &mut Multipliers,
) {
    let (ids, p, w) = curvature.particles_of(c, state);
    let lambdas = CurvatureConstraints::lambdas(c, multipliers);
    let k = curvature.correction(c, p, w, lambdas, state.responses.curvature);
    for (&i, dp) in ids.iter().zip(k.dp) {
        state.displacements[i] += dp;
    }
    for j in 0..3 {
        multipliers[Kind::Curvature][3 * c + j] = lambdas[j] + k.dlambdas[j];
    }
}

/// Jacobi projection of curvature constraint `c`, scaled by `scale`, into `slots`.
pub(crate) fn jacobi_curvature(
    curvature: &CurvatureConstraints,
    c: usize,
    scale: f32,
    state: &SolveState,
    multipliers: &mut Multipliers,
    slots: &mut [Vec3],
) {
    let (_, p, w) = curvature.particles_of(c, state);
    let lambdas = CurvatureConstraints::lambdas(c, multipliers);
    let k = curvature.correction(c, p, w, lambdas, state.responses.curvature);
    slots.iter_mut().zip(k.dp).for_each(|(slot, dp)| *slot = dp * scale);
    for j in 0..3 {
        multipliers[Kind::Curvature][3 * c + j] = lambdas[j] + k.dlambdas[j] * scale;
    }
}
