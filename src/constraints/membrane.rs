//! The membrane: three constraints per triangle on the in-plane strain of woven cloth, measured
//! in the rest state's material frame (warp along the texture's `u`, weft across it), each with
//! its own modulus. WGSL twin: `shaders/constraints/membrane.wgsl` (same names, same argument
//! order).
//!
//! The model is Strain Based Dynamics (Müller, Chentanez, Kim & Macklin 2014) in XPBD form.
//! A triangle's deformation gradient `F = D_s D_m⁻¹` maps its rest material coordinates (metres
//! along warp and weft, `D_m`) to its current edges (`D_s`); its columns `f_u`, `f_v` are where
//! a unit warp and a unit weft thread went. The constraints are the warp and weft stretches
//! `C = |f| − 1` and the shear `C = f̂_u·f̂_v` (the cosine of the angle between the threads, the
//! engineering shear strain while it is small). Each holds the energy `½ E A C²` of the
//! triangle's rest area `A` under its modulus `E` in N/m (force per unit width per unit strain,
//! as fabric tensile and shear tests report it), so its XPBD compliance is `1/(E A)` and the
//! membrane is the same material at every resolution. Why this model: woven fabric is
//! orthotropic, its warp and weft many times stiffer than its shear (a measured denim 8 and 38
//! times, a shirting's estimate a hundred), which per-edge distance constraints cannot express
//! (every edge, diagonals included, resists alike, so the sheet cannot shear); SBD's three
//! strains map one-to-one onto the three moduli a fabric lab measures, each constraint is cheap
//! (its gradient is a multiple of one or two vectors) and stays well-defined under large
//! rotation. The Poisson coupling of a continuum (StVK) is left out: woven fabric has little at
//! small strain, and the three constraints stay independent.

use super::{scaled_compliance, Kind, KindConstraints, Multipliers, Response, SolveState, DENOMINATOR_EPSILON};
use crate::math::GEOMETRY_EPSILON;
use crate::struct_layout;
use crate::wgsl::{StructLayout, WgslFile};
use crate::wgsl_file;
use bytemuck::{Pod, Zeroable};
use glam::{Vec2, Vec3};

/// The WGSL twin.
pub const WGSL: WgslFile = wgsl_file!("constraints/membrane.wgsl");

/// A fabric's in-plane moduli (N/m: force per unit width per unit strain).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Moduli {
    /// Tensile modulus along the warp (the texture's `u`).
    pub warp: f32,
    /// Tensile modulus along the weft (the texture's `v`).
    pub weft: f32,
    /// In-plane shear modulus, per radian of shear angle.
    pub shear: f32,
}

/// The membrane constraints of a cloth: triangle `t` has the particles `triangles[t]`, its rest
/// shape in the material frame, its material (moduli) and its stiffness scale. A cloth has one
/// material; cloths of several fabrics joined ([`crate::ClothModel::joined`]) have one each,
/// at most [`MAX_MATERIALS`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MembraneConstraints {
    triangles: Vec<[u32; 3]>,
    rest: Vec<RestFrame>,
    /// The distinct moduli, the first the kind's.
    materials: Vec<Moduli>,
    /// Each constraint's entry of `materials`.
    material: Vec<u32>,
    /// Each constraint's stiffness scale (its material map, 1 by default).
    stiffness_scales: Vec<f32>,
}

/// Distinct materials (membrane moduli, or curvature rigidities) a model's constraints of one
/// kind can have: the GPU reads their responses from a table in its parameters.
pub const MAX_MATERIALS: usize = 16;

/// The distinct entries of `parts`' material tables, in order of first appearance, and each
/// part's entries' places in them.
pub(crate) fn merged_materials<T: Copy + PartialEq>(parts: &[&[T]]) -> (Vec<T>, Vec<Vec<u32>>) {
    let mut merged: Vec<T> = Vec::new();
    let places = parts
        .iter()
        .map(|materials| {
            materials
                .iter()
                .map(|m| match merged.iter().position(|n| n == m) {
                    Some(place) => place as u32,
                    None => {
                        merged.push(*m);
                        merged.len() as u32 - 1
                    }
                })
                .collect()
        })
        .collect();
    (merged, places)
}

/// A triangle's rest data: its shape in the material frame, `D_m` (the curvature's too,
/// [`material_edges`]). The GPU reads these four words and derives `D_m⁻¹` and the area, as
/// [`RestFrame::inverse`] and [`RestFrame::area`] do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RestFrame {
    /// The rest edges from vertex 0 to vertices 1 and 2 in the warp/weft frame `(û, v̂)` (m):
    /// the columns of `D_m`.
    pub frame: [Vec2; 2],
}

impl RestFrame {
    /// The rest frame of triangle `(p0, p1, p2)` with the warp along `warp` (projected into the
    /// triangle's plane), `None` for a degenerate triangle or a warp along its normal.
    pub fn new(p: [Vec3; 3], warp: Vec3) -> Option<Self> {
        let frame = material_edges(p, warp)?;
        let det = frame[0].perp_dot(frame[1]);
        (det.abs() >= GEOMETRY_EPSILON * GEOMETRY_EPSILON).then_some(Self { frame })
    }

    /// `D_m⁻¹ = [[d00, d01], [d10, d11]]` row by row: `f_u = d00·e1 + d10·e2`, `f_v = d01·e1 +
    /// d11·e2` for the edges `e1 = p1 − p0`, `e2 = p2 − p0` (WGSL: in `membrane_rest`).
    pub fn inverse(&self) -> [f32; 4] {
        let [r1, r2] = self.frame;
        let det = r1.x * r2.y - r2.x * r1.y;
        [r2.y / det, -r2.x / det, -r1.y / det, r1.x / det]
    }

    /// Rest area (m²).
    pub fn area(&self) -> f32 {
        0.5 * double_area(self.frame)
    }

    /// The weights `c` with `f_u = Σ c_k p_k` (they sum to zero: a translation is no strain).
    pub fn warp_weights(&self) -> [f32; 3] {
        let [d00, _, d10, _] = self.inverse();
        [-(d00 + d10), d00, d10]
    }

    /// The weights `c` with `f_v = Σ c_k p_k`.
    pub fn weft_weights(&self) -> [f32; 3] {
        let [_, d01, _, d11] = self.inverse();
        [-(d01 + d11), d01, d11]
    }
}

/// The edges from vertex 0 to vertices 1 and 2 of triangle `p` in its material frame: along
/// the warp `û` (`warp` projected into the triangle's plane) and the weft `v̂ = n̂ × û`. `None`
/// for a degenerate triangle or a warp along its normal. The membrane's and the curvature's
/// rest shapes.
pub fn material_edges(p: [Vec3; 3], warp: Vec3) -> Option<[Vec2; 2]> {
    let (e1, e2) = (p[1] - p[0], p[2] - p[0]);
    let normal = e1.cross(e2);
    let twice_area = normal.length();
    if twice_area < GEOMETRY_EPSILON * GEOMETRY_EPSILON {
        return None;
    }
    let n = normal / twice_area;
    let along = warp - n * warp.dot(n);
    if along.length() < 1e-3 * warp.length() || !along.is_finite() {
        return None;
    }
    let u = along.normalize();
    let v = n.cross(u);
    Some([Vec2::new(e1.dot(u), e1.dot(v)), Vec2::new(e2.dot(u), e2.dot(v))])
}

/// Twice the area of a triangle whose edges from vertex 0 are `frame` (m²): the membrane's and
/// the curvature's rest areas. WGSL twin `double_area` in `shaders/constraints/membrane.wgsl`.
pub fn double_area(frame: [Vec2; 2]) -> f32 {
    frame[0].perp_dot(frame[1]).abs()
}

/// The warp direction of triangle `(p, uv)` at rest: `∂x/∂u`, where the texture coordinates
/// give one, else the world's `x` axis (or `z` where `x` is nearly the triangle's normal).
pub fn warp_direction(p: [Vec3; 3], uv: [Vec2; 3]) -> Vec3 {
    let (e1, e2) = (p[1] - p[0], p[2] - p[0]);
    let (d1, d2) = (uv[1] - uv[0], uv[2] - uv[0]);
    let det = d1.x * d2.y - d2.x * d1.y;
    let scale = d1.length_squared().max(d2.length_squared());
    if det.abs() > 1e-6 * scale && scale > 0.0 {
        let tangent = (e1 * d2.y - e2 * d1.y) / det;
        if tangent.is_finite() && tangent.length() > 0.0 {
            return tangent;
        }
    }
    let n = e1.cross(e2).normalize_or_zero();
    if n.x.abs() < 0.9 {
        Vec3::X
    } else {
        Vec3::Z
    }
}

impl MembraneConstraints {
    /// A constraint per triangle of `triangles` at `positions`, the warp from `uvs`
    /// ([`warp_direction`]), with `moduli`; returns the constraints and, for each triangle,
    /// whether it got one (not where it is degenerate).
    pub(crate) fn at_rest(
        triangles: &[[u32; 3]],
        positions: &[Vec3],
        uvs: &[Vec2],
        moduli: Moduli,
    ) -> (Self, Vec<bool>) {
        let mut built = Self { materials: vec![moduli], ..Self::default() };
        let kept = triangles
            .iter()
            .map(|&t| {
                let p = t.map(|i| positions[i as usize]);
                let frame = RestFrame::new(p, warp_direction(p, t.map(|i| uvs[i as usize])));
                frame.map(|frame| built.push(t, frame, 0, 1.0)).is_some()
            })
            .collect();
        (built, kept)
    }

    fn push(&mut self, triangle: [u32; 3], rest: RestFrame, material: u32, stiffness_scale: f32) {
        self.triangles.push(triangle);
        self.rest.push(rest);
        self.material.push(material);
        self.stiffness_scales.push(stiffness_scale);
    }

    /// The constraints of separate cloths as one cloth's ([`crate::ClothModel::joined`]), or
    /// of one cloth reordered (one part, offset 0): constraint `k` of the result is constraint `picks[k].1` of `parts[picks[k].0]`, its
    /// particles moved by that part's `offsets` entry.
    /// Each keeps its moduli: the materials are the parts' distinct ones, in order of first
    /// appearance (more than [`MAX_MATERIALS`] is the caller's to refuse).
    pub(crate) fn gathered(parts: &[&Self], picks: &[(usize, u32)], offsets: &[u32]) -> Self {
        let tables: Vec<&[Moduli]> = parts.iter().map(|p| p.materials.as_slice()).collect();
        let (materials, places) = merged_materials(&tables);
        let mut gathered = Self { materials, ..Self::default() };
        for &(part, c) in picks {
            let (from, c) = (parts[part], c as usize);
            let triangle = from.triangles[c].map(|i| i + offsets[part]);
            gathered.push(triangle, from.rest[c], places[part][from.material[c] as usize], from.stiffness_scales[c]);
        }
        gathered
    }

    /// Number of constraints (triangles).
    pub fn len(&self) -> usize {
        self.triangles.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty()
    }

    /// Every constraint's particles.
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// The rest frame of constraint `c`.
    pub fn rest(&self, c: usize) -> RestFrame {
        self.rest[c]
    }

    /// The moduli of its first material (the cloth's; the first cloth's of several joined),
    /// `None` for a cloth without a membrane.
    pub fn moduli(&self) -> Option<Moduli> {
        self.materials.first().copied()
    }

    /// Its distinct moduli, each constraint's [`MembraneConstraints::material`] an entry.
    pub fn materials(&self) -> &[Moduli] {
        &self.materials
    }

    /// Constraint `c`'s entry of [`MembraneConstraints::materials`].
    pub fn material(&self, c: usize) -> u32 {
        self.material[c]
    }

    /// Constraint `c`'s stiffnesses `E·A·scale` (N·m) for warp, weft and shear: the inverse of
    /// their XPBD compliances.
    pub fn stiffnesses(&self, c: usize) -> [f32; 3] {
        let (m, s) = (self.materials[self.material[c] as usize], self.rest[c].area() * self.stiffness_scales[c]);
        [m.warp * s, m.weft * s, m.shear * s]
    }

    /// The responses `[k, α̃/E]` of the warp, weft and shear strains of material `m` per unit
    /// of area and stiffness scale, from the kind's `response` per unit of stiffness: the GPU
    /// reads them from its table of materials (`[k, α̃/E_warp, α̃/E_weft, α̃/E_shear]`), so a
    /// record holds no stiffness. At most the largest f32 (a cloth without a membrane has no
    /// moduli).
    pub fn area_responses(&self, m: usize, response: Response) -> [Response; 3] {
        let [k, alpha_tilde] = response;
        let moduli = self.materials.get(m).map_or([0.0; 3], |m| [m.warp, m.weft, m.shear]);
        moduli.map(|e| [k, (alpha_tilde / e).min(f32::MAX)])
    }

    /// The GPU records, multipliers zeroed.
    pub fn records(&self) -> Vec<MembraneRecord> {
        (0..self.len())
            .map(|c| {
                let [f1, f2] = self.rest[c].frame;
                MembraneRecord {
                    frame: [f1.x, f1.y, f2.x, f2.y],
                    stiffness_scale: self.stiffness_scales[c],
                    material: self.material[c],
                    lambdas: [0.0; 3],
                }
            })
            .collect()
    }
}

impl KindConstraints for MembraneConstraints {
    fn constraint_count(&self) -> usize {
        self.len()
    }

    fn constraint_particles(&self, c: usize) -> &[u32] {
        &self.triangles[c]
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

/// One membrane constraint as the GPU reads it (`MembraneConstraint` in WGSL): the triangle's
/// rest shape in its material frame (`D_m`: its inverse and area follow, [`RestFrame`]), the
/// stiffness scale of a material map, its material and the three XPBD multipliers of the
/// current substep. The materials' moduli are in a table of responses
/// ([`MembraneConstraints::area_responses`]); the scale and the material are read only where a
/// constraint's differ from 1 and 0. Its particles come from its unit.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct MembraneRecord {
    /// The rest edges from vertex 0 to vertices 1 and 2 in the warp/weft frame, `(u, v)` each
    /// (m).
    pub frame: [f32; 4],
    /// How many times stiffer than its material's moduli (its material map).
    pub stiffness_scale: f32,
    /// Its entry of the materials ([`MembraneConstraints::materials`]).
    pub material: u32,
    /// XPBD multipliers (warp, weft, shear), reset at the first iteration of every substep.
    pub lambdas: [f32; 3],
}

impl MembraneRecord {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout =
        struct_layout!(MembraneRecord as "MembraneConstraint", frame, stiffness_scale, material, lambdas);
}

/// The correction of one strain constraint of a triangle: position changes of its three
/// particles and the change of its multiplier.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StrainCorrection {
    /// Position change of each particle (m).
    pub dp: [Vec3; 3],
    /// Change of the multiplier.
    pub dlambda: f32,
}

/// `Δλ = k(−C − α̃λ)/(Σ w_k|∇_k C|² + α̃)`, `Δp_k = w_k ∇_k C Δλ` (XPBD eq. 18) for the
/// constraint value `c` and gradients `g`. `None` when no particle can move.
fn xpbd_step(c: f32, g: [Vec3; 3], w: [f32; 3], lambda: f32, response: Response) -> Option<StrainCorrection> {
    let [k, alpha_tilde] = response;
    let weighted = w[0] * g[0].length_squared() + w[1] * g[1].length_squared() + w[2] * g[2].length_squared();
    let denominator = weighted + alpha_tilde;
    if denominator < DENOMINATOR_EPSILON {
        return None;
    }
    let dlambda = k * (-c - alpha_tilde * lambda) / denominator;
    Some(StrainCorrection { dp: [g[0] * (w[0] * dlambda), g[1] * (w[1] * dlambda), g[2] * (w[2] * dlambda)], dlambda })
}

/// `Σ c_k p_k`.
fn combine(c: [f32; 3], p: [Vec3; 3]) -> Vec3 {
    p[0] * c[0] + p[1] * c[1] + p[2] * c[2]
}

/// Stretch along one thread, `C = |f| − 1` with `f = Σ c_k p_k` (the warp's or the weft's
/// weights), `∇_k C = c_k f̂`. `None` for a thread squashed to a point.
pub fn thread_correction(
    p: [Vec3; 3],
    w: [f32; 3],
    c: [f32; 3],
    lambda: f32,
    response: Response,
) -> Option<StrainCorrection> {
    let f = combine(c, p);
    let length = f.length();
    if length < GEOMETRY_EPSILON {
        return None;
    }
    let n = f / length;
    xpbd_step(length - 1.0, [n * c[0], n * c[1], n * c[2]], w, lambda, response)
}

/// Shear, `C = f̂_u·f̂_v` for `f_u = Σ cu_k p_k`, `f_v = Σ cv_k p_k`: with `∂C/∂f_u = (f̂_v − C f̂_u)/|f_u|`
/// and `∂C/∂f_v = (f̂_u − C f̂_v)/|f_v|`, `∇_k C = cu_k ∂C/∂f_u + cv_k ∂C/∂f_v`. `None` for a
/// thread squashed to a point.
pub fn shear_correction(
    p: [Vec3; 3],
    w: [f32; 3],
    cu: [f32; 3],
    cv: [f32; 3],
    lambda: f32,
    response: Response,
) -> Option<StrainCorrection> {
    let (fu, fv) = (combine(cu, p), combine(cv, p));
    let (lu, lv) = (fu.length(), fv.length());
    if lu < GEOMETRY_EPSILON || lv < GEOMETRY_EPSILON {
        return None;
    }
    let (nu, nv) = (fu / lu, fv / lv);
    let c = nu.dot(nv);
    let (gu, gv) = ((nv - nu * c) / lu, (nu - nv * c) / lv);
    let g = [gu * cu[0] + gv * cv[0], gu * cu[1] + gv * cv[1], gu * cu[2] + gv * cv[2]];
    xpbd_step(c, g, w, lambda, response)
}

/// The three strains of a triangle at `p` with rest frame `rest`: warp and weft stretch
/// (`|f| − 1`) and shear (`f̂_u·f̂_v`); zero for a thread squashed to a point.
pub fn strains(p: [Vec3; 3], rest: &RestFrame) -> [f32; 3] {
    let (fu, fv) = (combine(rest.warp_weights(), p), combine(rest.weft_weights(), p));
    let shear = if fu.length() < GEOMETRY_EPSILON || fv.length() < GEOMETRY_EPSILON {
        0.0
    } else {
        fu.normalize().dot(fv.normalize())
    };
    [fu.length() - 1.0, fv.length() - 1.0, shear]
}

/// Which strain of a triangle a correction is for, in projection order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strain {
    /// Stretch along the warp.
    Warp,
    /// Stretch along the weft.
    Weft,
    /// Shear between them.
    Shear,
}

impl Strain {
    /// The three, in projection order.
    pub const ALL: [Strain; 3] = [Self::Warp, Self::Weft, Self::Shear];
}

impl MembraneConstraints {
    /// The correction of strain `strain` of constraint `c` at positions `p`, with inverse
    /// masses `w` and multipliers `lambdas` (warp, weft, shear), under `response` per unit of
    /// stiffness (`[1, 1/h²]`: compliance `1/(E·A)` once scaled).
    pub(crate) fn strain_correction(
        &self,
        c: usize,
        strain: Strain,
        p: [Vec3; 3],
        w: [f32; 3],
        lambda: f32,
        response: Response,
    ) -> Option<StrainCorrection> {
        let rest = &self.rest[c];
        let scale = rest.area() * self.stiffness_scales[c];
        let area_response = self.area_responses(self.material[c] as usize, response)[strain as usize];
        let response = scaled_compliance(area_response, scale);
        match strain {
            Strain::Warp => thread_correction(p, w, rest.warp_weights(), lambda, response),
            Strain::Weft => thread_correction(p, w, rest.weft_weights(), lambda, response),
            Strain::Shear => shear_correction(p, w, rest.warp_weights(), rest.weft_weights(), lambda, response),
        }
    }

    fn particles_of(&self, c: usize, state: &SolveState) -> ([usize; 3], [Vec3; 3], [f32; 3]) {
        let ids = self.triangles[c].map(|i| i as usize);
        (ids, ids.map(|i| state.position(i)), ids.map(|i| state.inverse_masses[i]))
    }
}

/// The multiplier slot of strain `s` of constraint `c`: the membrane's multipliers are kept
/// three per triangle.
fn lambda_index(c: usize, s: Strain) -> usize {
    3 * c + s as usize
}

/// Gauss-Seidel projection of membrane constraint `c` (a triangle unit, or a shell's first
/// part): warp, weft and shear one after the other,
/// each from the positions the one before left.
pub(crate) fn project_triangle(
    membrane: &MembraneConstraints,
    c: usize,
    state: &mut SolveState,
    multipliers: &mut Multipliers,
) {
    let response = state.responses.membrane;
    for strain in Strain::ALL {
        let (ids, p, w) = membrane.particles_of(c, state);
        let slot = lambda_index(c, strain);
        let lambda = multipliers[Kind::Membrane][slot];
        if let Some(k) = membrane.strain_correction(c, strain, p, w, lambda, response) {
            for (&i, dp) in ids.iter().zip(k.dp) {
                state.displacements[i] += dp;
            }
            multipliers[Kind::Membrane][slot] = lambda + k.dlambda;
        }
    }
}

/// Jacobi projection of membrane constraint `c`: the three strains from the same positions, each
/// scaled by `scale`, summed per particle into `slots`.
pub(crate) fn jacobi_triangle(
    membrane: &MembraneConstraints,
    c: usize,
    scale: f32,
    state: &SolveState,
    multipliers: &mut Multipliers,
    slots: &mut [Vec3],
) {
    slots.fill(Vec3::ZERO);
    let (_, p, w) = membrane.particles_of(c, state);
    for strain in Strain::ALL {
        let slot = lambda_index(c, strain);
        let lambda = multipliers[Kind::Membrane][slot];
        if let Some(k) = membrane.strain_correction(c, strain, p, w, lambda, state.responses.membrane) {
            slots.iter_mut().zip(k.dp).for_each(|(s, dp)| *s += dp * scale);
            multipliers[Kind::Membrane][slot] = lambda + k.dlambda * scale;
        }
    }
}
