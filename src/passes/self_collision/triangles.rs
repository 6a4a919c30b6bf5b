//! Point–triangle self contacts (PBD §4.3, eq. 12–13): a particle closer than the thickness `h`
//! to the face of a triangle it is not part of is pushed back to `h` on the side it came from,
//! and the triangle's corners take the opposite momentum. Particle contacts alone
//! ([`super::pair_correction`]) let a particle slip through a triangle whose corners are all
//! farther than `h` from it; these contacts keep coarse cloth from passing through itself.
//!
//! A triangle whose face lies within `h` of its corners everywhere ([`covered_by_corners`]: a
//! cloth whose particles are closer than about `1.7h`) is left to the pair contacts. Each other
//! triangle looks up the hashed particles (the hash the particle contacts built) in the cells
//! of its box grown by `h` that come within `h` of its plane: column by column across the axis
//! nearest its normal ([`plane_axes`]), the cells of each column that the slab within `h` of
//! the plane crosses ([`slab_cells`]). A contact is taken when the particle's projection on the
//! plane lies on the triangle (on or inside its edges), it is less than `h` from the plane but
//! at least `h` from each corner (the particle contact with a corner acts there: both would
//! push the particle twice, and a folded cloth jittered at rest), and at least `h` from the
//! triangle at rest (a particle of a neighbouring triangle would otherwise push the cloth apart
//! at rest, as for the particle pairs). Each contact takes out half its depth
//! ([`RELAXATION`]). The search tests the candidates by their predicted positions alone
//! ([`face_contact`]) and lists those that touch; their contacts are computed after it, so that
//! a SIMD CPU driver, which runs both sides of a branch, does not run the contact's code in every
//! step of the search (llvmpipe: 1.2 s of a 1.4 s frame, stack scene at 64², before).
//!
//! The side a particle came from is that of its position at the substep's start against the
//! triangle's plane then, so a particle that crossed the plane during the substep is taken
//! back. The deformation limit ([`super::SelfCollision::max_displacement`]) keeps the
//! crossing within `h`, where the contact finds it.
//!
//! A triangle's thread adds its contacts' four corrections to the particles' sums, which many
//! threads write at once: the sums are integers (fixed point, [`to_fixed`]) added by integer
//! atomics, whose total does not depend on the order of arrival, so the results are
//! bit-identical from run to run. WGSL twin: `shaders/passes/self_collision/triangles.wgsl`.

use super::cloth_contacts::ClothContacts;
use super::{cell_coordinate, cell_hash, cell_of, friction_kept, SelfCollision, SpatialHash, MAX_BUCKET_ENTRIES};
use crate::constraints::SolveState;
use crate::math::{closest_on_triangle, weighted_face_normal, DENOMINATOR_EPSILON, GEOMETRY_EPSILON};
use crate::mesh::ClothMesh;
use crate::wgsl::{Constant, WgslFile};
use crate::wgsl_file;
use glam::{IVec3, IVec4, Vec3};

/// The WGSL twin.
pub const WGSL: WgslFile = wgsl_file!("passes/self_collision/triangles.wgsl");

/// The constants the WGSL twin shares with this module.
pub fn wgsl_constants() -> [Constant; 6] {
    [
        Constant::f32("RELAXATION", RELAXATION),
        Constant::u32("MAX_TRIANGLE_COLUMNS", MAX_TRIANGLE_COLUMNS),
        Constant::u32("MAX_TRIANGLE_CANDIDATES", MAX_TRIANGLE_CANDIDATES),
        Constant::u32("MAX_TRIANGLE_STEPS", MAX_TRIANGLE_STEPS),
        Constant::f32("MAX_FIXED_POINT", MAX_FIXED_POINT),
        Constant::i32("MAX_PARTICLE_CORRECTIONS", MAX_PARTICLE_CORRECTIONS),
    ]
}

/// Most columns of cells in one triangle's box grown by `h` (cells `s` wide,
/// [`SelfCollision::cell_size`]), across the axis nearest its normal; a larger triangle takes no
/// contacts and counts an overflow. A triangle of side `L` spans up to `((L + 2h)/s + 1)²`
/// columns: 1024 covers triangles up to 29 cells across in any orientation, with cells as wide
/// as the mean edge a triangle some 25 times longer than the mean.
pub const MAX_TRIANGLE_COLUMNS: u32 = 1024;
/// Most particles within a triangle's grown box it examines per substep; beyond, it stops and
/// counts an overflow.
pub const MAX_TRIANGLE_CANDIDATES: u32 = 128;
/// Most cells plus bucket entries one triangle visits per substep; beyond, it stops and counts
/// an overflow. Keeps each invocation's loops well within the 65 535 iterations a CPU adapter
/// (llvmpipe) allows an invocation, past which it would end them silently.
pub const MAX_TRIANGLE_STEPS: u32 = 16_384;
/// The fraction of its depth one contact takes out. Where two layers touch, every gap between
/// them is closed twice, by the particles of each layer against the faces of the other: at full
/// strength the sum overshoots to the gap's mirror image, and a sheet resting on another
/// alternated between contact and none every substep (measured: 1.7 cm/s, `g·Δt`). A lone
/// particle against a face closes its gap over a few substeps; one that crossed the face still
/// ends on its side, since the deformation limit keeps the crossing within `h`.
///
/// Friction is not relaxed: it removes the whole slide up to `μ` times the push (Coulomb's
/// bound on what the push took out). Relaxed, it removed half the slide of a particle at rest,
/// which a depth measured in positions does not need, so the other half stayed in its velocity:
/// a sheet crept at `g·sin θ·Δt` (5.6 mm/s) down a pinned sheet tilted by 20° with a friction
/// of 0.5.
pub const RELAXATION: f32 = 0.5;
/// Bits of a thickness in fixed point: the unit is a power of two of at most `h·2⁻²⁴` metres.
/// Each correction is rounded to it, so a contact's corrections keep momentum to within half a
/// unit each, a random walk over the contacts (with 20 bits, a collision of coarse sheets
/// drifted by 3·10⁻⁵ of its momentum; with 24, by 2·10⁻⁵ at 40 substeps a frame).
pub const FIXED_POINT_BITS: i32 = 24;
/// Largest magnitude of one correction component in fixed-point units (`2²⁶`, from 2 to 4
/// thicknesses: a contact moves a particle by at most about `h` unless its corners' masses
/// differ greatly).
pub const MAX_FIXED_POINT: f32 = 67_108_864.0;
/// Most triangle-contact corrections one particle takes per substep: 31 of the largest still
/// sum within `i32`. A particle given more takes none of them and counts an overflow, so that
/// no sum wraps.
pub const MAX_PARTICLE_CORRECTIONS: i32 = 31;

/// The exponent `e` of the fixed-point unit `2⁻ᵉ` m for thickness `h`: the smallest with
/// `2⁻ᵉ ≤ h·2⁻²⁴`. A power of two, so scaling by it is exact.
pub fn fixed_point_exponent(thickness: f32) -> i32 {
    // At most 126, so that the unit stays a normal f32 (thicknesses below 2⁻¹⁰² m).
    (FIXED_POINT_BITS - thickness.log2().floor() as i32).min(126)
}

/// `v` in fixed-point units of `2⁻ᵉ` m: rounded to nearest (ties to even, as WGSL's `round`),
/// clamped to ±[`MAX_FIXED_POINT`], NaN to 0.
pub fn to_fixed(v: Vec3, exponent: i32) -> IVec3 {
    let scaled = v * 2f32.powi(exponent);
    let component = |c: f32| c.round_ties_even().clamp(-MAX_FIXED_POINT, MAX_FIXED_POINT) as i32;
    IVec3::new(component(scaled.x), component(scaled.y), component(scaled.z))
}

/// The vector of a fixed-point sum. Each component converts in two exact parts (its high bits
/// and its low 12), so the one rounding is the final addition's, the same on every GPU (WGSL
/// leaves the rounding of an inexact integer conversion open).
pub fn from_fixed(sum: IVec3, exponent: i32) -> Vec3 {
    let component = |c: i32| ((c >> 12) as f32 * 4096.0 + (c & 0xfff) as f32) * 2f32.powi(-exponent);
    Vec3::new(component(sum.x), component(sum.y), component(sum.z))
}

/// The axes `[d, u, v]` of a plane of unit normal `n`: `d` the one `n` is most along (the first
/// on ties), then the other two in cyclic order.
pub fn plane_axes(n: Vec3) -> [usize; 3] {
    let m = n.abs();
    let d = if m.x >= m.y && m.x >= m.z {
        0
    } else if m.y >= m.z {
        1
    } else {
        2
    };
    [d, (d + 1) % 3, (d + 2) % 3]
}

/// The first and last cells along axis `d` (of `axes = [d, u, v]`) of the column of cells at
/// `column` (its `u` and `v` cell coordinates) that come within `reach` of the plane through `a`
/// with unit normal `n`: over the column's square the plane's `d` coordinate stays within
/// `|n_u| + |n_v|` half cells over `|n_d|` of its value at the centre, and the slab within
/// `reach` of the plane is `reach / |n_d|` thick along `d` on either side.
pub fn slab_cells(column: [i32; 2], axes: [usize; 3], a: Vec3, n: Vec3, cell_size: f32, reach: f32) -> [i32; 2] {
    let [d, u, v] = axes;
    let half = 0.5 * cell_size;
    let centre_u = column[0] as f32 * cell_size + half;
    let centre_v = column[1] as f32 * cell_size + half;
    let middle = a[d] - (n[u] * (centre_u - a[u]) + n[v] * (centre_v - a[v])) / n[d];
    let spread = (half * (n[u].abs() + n[v].abs()) + reach) / n[d].abs();
    [cell_coordinate(middle - spread, cell_size), cell_coordinate(middle + spread, cell_size)]
}

/// Where a point `p₀` lies against the triangle `p₁p₂p₃` (predicted positions), when it can
/// touch its face: closer than `h` to its plane, at least `h` from each corner, its projection on
/// the triangle ([`face_contact`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaceContact {
    /// The triangle's unit normal.
    pub normal: Vec3,
    /// `n·(p₀ − p₁)`, in `(−h, h)`.
    pub height: f32,
    /// The projection's barycentric weights, each ≥ 0.
    pub weights: [f32; 3],
}

/// The face contact of the point `p[0]` with the triangle `p[1..4]` at thickness `h`, or `None`
/// (the tests of [`point_triangle_correction`] that need no more than the predicted positions:
/// a triangle examines its candidates with them before it reads any particle's state).
pub fn face_contact(p: [Vec3; 4], h: f32) -> Option<FaceContact> {
    let area_normal = weighted_face_normal(p[1], p[2], p[3]);
    let doubled_area = area_normal.length();
    // Not `<= ε`: a NaN triangle has no contact either.
    let has_area = doubled_area > GEOMETRY_EPSILON;
    if !has_area {
        return None;
    }
    let n = area_normal / doubled_area;
    let height = n.dot(p[0] - p[1]);
    let within_reach = height < h && height > -h; // false for NaN
    if !within_reach {
        return None;
    }
    // Within h of a corner the pair contact with it acts: both would push the point twice.
    let h_squared = h * h;
    let clear_of_corners = (1..4).all(|k| (p[0] - p[k]).length_squared() >= h_squared);
    if !clear_of_corners {
        return None;
    }
    // The projection's weights: the areas the point cuts the triangle into, signed by `n`.
    let weights = [
        n.dot(weighted_face_normal(p[0], p[2], p[3])) / doubled_area,
        n.dot(weighted_face_normal(p[0], p[3], p[1])) / doubled_area,
        n.dot(weighted_face_normal(p[0], p[1], p[2])) / doubled_area,
    ];
    if !weights.iter().all(|&b| b >= 0.0) {
        return None;
    }
    Some(FaceContact { normal: n, height, weights })
}

/// What one point–triangle contact moves its four particles by — the point (index 0), then the
/// triangle's corners `a, b, c` — each at its substep start `x` with displacement `q` and inverse
/// mass `w`; `None` when there is no contact.
///
/// With `p = x + q`, a face contact of the point with the predicted triangle ([`face_contact`]:
/// unit normal `n`, weights `β`), the point's side `s` (the sign of its start against the start
/// plane) and height `s·n·(p₀ − p_a)`:
/// `C = s·n·(p₀ − Σβₖpₖ) − h ≥ 0` (PBD §4.3 eq. 12 at the closest point), so
/// `λ = −C / (w₀ + Σβₖ²wₖ)`, the point moves by `λw₀·s·n` and corner `k` by `−λβₖwₖ·s·n`
/// (eq. 13 with `n` held fixed): their momenta cancel since `Σβₖ = 1`. The relative tangential
/// displacement `t` of the point against the triangle's point beneath it is removed or reduced
/// as in [`super::pair_correction`], with the same shares. The push is scaled by
/// [`RELAXATION`], and friction's bound with it (`μ` times the push); the slide within it is
/// removed whole.
pub fn point_triangle_correction(x: [Vec3; 4], q: [Vec3; 4], w: [f32; 4], params: &SelfCollision) -> Option<[Vec3; 4]> {
    let h = params.thickness;
    let p = [x[0] + q[0], x[1] + q[1], x[2] + q[2], x[3] + q[3]];
    let FaceContact { normal: n, height, weights: [b_a, b_b, b_c] } = face_contact(p, h)?;
    let came_from_above = weighted_face_normal(x[1], x[2], x[3]).dot(x[0] - x[1]) >= 0.0;
    let side = if came_from_above { 1.0 } else { -1.0 };
    let generalised_mass = w[0] + b_a * b_a * w[1] + b_b * b_b * w[2] + b_c * b_c * w[3];
    let movable = generalised_mass > DENOMINATOR_EPSILON;
    if !movable {
        return None;
    }
    let depth = h - side * height;
    let relative = q[0] - (q[1] * b_a + q[2] * b_b + q[3] * b_c);
    let tangential = relative - n * n.dot(relative);
    let pushed = RELAXATION * depth;
    let kept = friction_kept(tangential.length(), pushed, params);
    let push = (n * (side * pushed) - tangential * kept) / generalised_mass;
    Some([push * w[0], push * (-b_a * w[1]), push * (-b_b * w[2]), push * (-b_c * w[3])])
}

/// One substep's point–triangle contacts on the clamped `state` (the reference of WGSL's
/// `triangle_contacts_of`), each at what its particle's and triangle's cloths keep
/// (`contacts`): adds each contact's corrections, in fixed point of exponent
/// [`fixed_point_exponent`] of the thickest cloth, to the particles' `sums` (xyz), and counts
/// them (w). Returns the triangles that met a full bucket, too many columns, steps or candidates.
pub fn add_triangle_contacts(
    state: &SolveState,
    predicted: &[Vec3],
    mesh: &ClothMesh,
    hash: &SpatialHash,
    contacts: &ClothContacts,
    sums: &mut [IVec4],
) -> u32 {
    let exponent = fixed_point_exponent(contacts.largest_thickness());
    let triangles = TriangleContacts { state, predicted, mesh, hash, contacts, exponent };
    let mut overflows = 0u32;
    let mut touching = Vec::with_capacity(MAX_TRIANGLE_CANDIDATES as usize);
    for (t, &corners) in mesh.triangles.iter().enumerate() {
        touching.clear();
        let cloth = contacts.triangle_cloth(t);
        overflows += u32::from(triangles.find_touching(corners, cloth, &mut touching));
        for &j in &touching {
            triangles.add_contact(j, corners, cloth, sums);
        }
    }
    overflows
}

/// What a triangle's contacts read.
struct TriangleContacts<'a> {
    state: &'a SolveState,
    predicted: &'a [Vec3],
    mesh: &'a ClothMesh,
    hash: &'a SpatialHash,
    contacts: &'a ClothContacts,
    /// [`fixed_point_exponent`] of the thickest cloth's thickness.
    exponent: i32,
}

impl TriangleContacts<'_> {
    /// Lists in `touching` the particles that touch the face of the triangle of `corners` of
    /// cloth `cloth` ([`face_contact`] at their pair's thickness), found by its predicted
    /// positions alone; returns whether it overflowed a capacity. The box is grown by the
    /// cloth's reach ([`ClothContacts::reach`]); a triangle covered by its corners at the
    /// thinnest pair it can make ([`ClothContacts::nearest`]) is left to them. Their contacts
    /// are added once the search is over, so that a GPU thread runs the contact's code once per
    /// contact, not masked off in every step of the search (llvmpipe runs both sides of a
    /// branch).
    fn find_touching(&self, corners: [u32; 3], cloth: u32, touching: &mut Vec<u32>) -> bool {
        let h = self.contacts.reach(cloth);
        let size = self.hash.cell_size();
        let p = corners.map(|k| self.predicted[k as usize]);
        if !p.iter().all(|v| v.is_finite()) || covered_by_corners(p, self.contacts.nearest(cloth)) {
            return false;
        }
        let area_normal = weighted_face_normal(p[0], p[1], p[2]);
        let doubled_area = area_normal.length();
        let has_area = doubled_area > GEOMETRY_EPSILON; // false for NaN
        if !has_area {
            return false;
        }
        let n = area_normal / doubled_area;
        let low = p[0].min(p[1]).min(p[2]) - h;
        let high = p[0].max(p[1]).max(p[2]) + h;
        let first = cell_of(low, size);
        let last = cell_of(high, size);
        let axes = plane_axes(n);
        let [d, u, v] = axes;
        let (across_u, across_v) = (last[u] - first[u] + 1, last[v] - first[v] + 1);
        // In steps, so that the product cannot overflow.
        let most = MAX_TRIANGLE_COLUMNS as i32;
        if across_u > most || across_v > most || across_u * across_v > most {
            return true;
        }
        let mut overflow = false;
        let (mut examined, mut steps) = (0u32, 0u32);
        for column_u in first[u]..=last[u] {
            for column_v in first[v]..=last[v] {
                let [from, to] = slab_cells([column_u, column_v], axes, p[0], n, size, h);
                for along in from.max(first[d])..=to.min(last[d]) {
                    let mut cell = [0; 3];
                    (cell[d], cell[u], cell[v]) = (along, column_u, column_v);
                    let entries = self.hash.bucket(cell_hash(cell, self.hash.table_size()));
                    steps += 1;
                    if entries.len() > MAX_BUCKET_ENTRIES as usize {
                        overflow = true;
                        continue;
                    }
                    steps += entries.len() as u32;
                    if steps > MAX_TRIANGLE_STEPS {
                        return true;
                    }
                    for &j in entries {
                        let p_j = self.predicted[j as usize];
                        // Each particle is taken in its own cell only, so once, though cells
                        // share buckets.
                        if corners.contains(&j) || cell_of(p_j, size) != cell || !within(p_j, low, high) {
                            continue;
                        }
                        examined += 1;
                        if examined > MAX_TRIANGLE_CANDIDATES {
                            return true;
                        }
                        // Most candidates are out of reach of the plane: rejected before the
                        // whole test.
                        let near_plane = n.dot(p_j - p[0]).abs() < h;
                        if !near_plane {
                            continue;
                        }
                        let pair = self.contacts.between(cloth, self.contacts.particle_cloth(j as usize));
                        if face_contact([p_j, p[0], p[1], p[2]], pair.thickness).is_some() {
                            touching.push(j);
                        }
                    }
                }
            }
        }
        overflow
    }

    /// Adds the contact of particle `j` against the triangle of `corners` of cloth `cloth`, if
    /// any, to `sums`; only a particle of the triangle's cloth can be its neighbour at rest.
    fn add_contact(&self, j: u32, corners: [u32; 3], cloth: u32, sums: &mut [IVec4]) {
        let particles = [j, corners[0], corners[1], corners[2]].map(|k| k as usize);
        let state = self.state;
        let x = particles.map(|k| state.positions[k]);
        let q = particles.map(|k| state.displacements[k]);
        let w = particles.map(|k| state.inverse_masses[k]);
        let own_cloth = self.contacts.particle_cloth(particles[0]);
        let pair = self.contacts.between(cloth, own_cloth);
        let Some(corrections) = point_triangle_correction(x, q, w, &pair) else {
            return;
        };
        let rest = particles.map(|k| self.mesh.positions[k]);
        let apart_at_rest = rest[0] - closest_on_triangle(rest[0], [rest[1], rest[2], rest[3]]);
        let h = pair.thickness;
        if own_cloth == cloth && apart_at_rest.dot(apart_at_rest) < h * h {
            return;
        }
        for ((k, correction), w) in particles.into_iter().zip(corrections).zip(w) {
            if w > 0.0 {
                sums[k] = sums[k].wrapping_add(to_fixed(correction, self.exponent).extend(1));
            }
        }
    }
}

/// The correction a particle's fixed-point `sum` of triangle-contact corrections (xyz) stands
/// for, or `None` when it took more than [`MAX_PARTICLE_CORRECTIONS`] of them (w), whose sum
/// may have wrapped.
pub fn summed_correction(sum: IVec4, exponent: i32) -> Option<Vec3> {
    (sum.w <= MAX_PARTICLE_CORRECTIONS).then(|| from_fixed(sum.truncate(), exponent))
}

/// Whether every point of the triangle `p` lies within `h` of one of its corners: a point then
/// cannot cross its face without coming within `h` of a corner, where the pair contact acts,
/// so the triangle needs no contacts of its own. True when the longest edge is below `√3·h`,
/// since no point of a triangle lies farther from its nearest corner than the longest edge over
/// `√3` (the equilateral triangle's circumradius).
pub fn covered_by_corners(p: [Vec3; 3], h: f32) -> bool {
    let longest =
        (p[1] - p[0]).length_squared().max((p[2] - p[1]).length_squared()).max((p[0] - p[2]).length_squared());
    longest < 3.0 * h * h
}

/// Whether `p` lies in the box from `low` to `high`.
fn within(p: Vec3, low: Vec3, high: Vec3) -> bool {
    p.cmpge(low).all() && p.cmple(high).all()
}
