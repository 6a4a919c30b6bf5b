//! Signed distance fields of closed triangle meshes: the shape of a mesh collider
//! ([`crate::Collider::Mesh`]). The host samples the exact distance to the mesh on a regular grid
//! once; the solver interpolates it trilinearly, with its gradient as the surface normal
//! (`shaders/collision.wgsl`'s `field_point` is the WGSL twin of [`DistanceField::surface_point`]).
//!
//! Building follows Bridson's level-set construction: exact point–triangle distances in a band
//! around each triangle, spread to the whole grid by fast sweeping (each sample tries the
//! nearest triangles of its already-swept neighbours), and the sign from the parity of rays'
//! crossings with the mesh along x, y and z (the majority of the three).

use crate::error::Error;
use crate::math::{bounding_box, closest_on_triangle, GEOMETRY_EPSILON};
use crate::mesh::ClothMesh;
use glam::{DVec2, I64Vec3, UVec3, Vec3};
use std::path::Path;

/// Empty cells kept around the mesh on every side, so the field is defined wherever a contact
/// within a few cells of the surface can ask.
pub const FIELD_PADDING: u32 = 3;

/// Fewest samples along the field's longest side ([`DistanceField::from_mesh`]): one cell across
/// the mesh besides the padding.
pub const MIN_FIELD_RESOLUTION: u32 = 2 * FIELD_PADDING + 2;

/// Most samples along the field's longest side: a field of `256³` samples takes 64 MiB.
pub const MAX_FIELD_RESOLUTION: u32 = 256;

/// The largest coordinate a mesh collider's mesh may have (m): far beyond any scene, and far
/// enough within f32's range that distances and their squares stay finite.
pub const MAX_FIELD_COORDINATE: f32 = 1e5;

/// The steepest slope of a trilinearly interpolated distance field: each partial derivative
/// is a blend of finite differences of a 1-Lipschitz function, so `|∇d| ≤ √3`. Sphere tracing
/// divides its steps by it so that no step crosses the interpolated surface.
pub const FIELD_SLOPE: f32 = 1.732_050_8;

/// Cells around a triangle whose samples get its exact distance before sweeping.
const BAND: i64 = 2;

/// A signed distance field (negative inside) sampled on a regular grid, with the closed mesh it
/// was built from (for drawing).
#[derive(Debug, Clone, PartialEq)]
pub struct DistanceField {
    /// Where sample `(0, 0, 0)` lies (m, in the mesh's frame).
    origin: Vec3,
    /// Distance between neighbouring samples (m).
    cell: f32,
    /// Samples along x, y and z (each ≥ `2·FIELD_PADDING + 1`).
    size: UVec3,
    /// Signed distances (m), x fastest, then y, then z.
    samples: Vec<f32>,
    /// The mesh.
    mesh: ClothMesh,
    /// The smallest box around the mesh, `(low, high)`.
    mesh_bounds: (Vec3, Vec3),
}

/// A signed distance and the direction it grows fastest in (the outward normal).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldPoint {
    /// Signed distance (m, negative inside).
    pub distance: f32,
    /// The interpolated gradient (not normalised; about unit length near the surface).
    pub gradient: Vec3,
}

impl DistanceField {
    /// The field of a closed mesh (every edge shared by two triangles, as
    /// [`ClothMesh::validate`] checks manifoldness, coordinates within
    /// ±[`MAX_FIELD_COORDINATE`]), `resolution` samples along its longest side
    /// ([`MIN_FIELD_RESOLUTION`] to [`MAX_FIELD_RESOLUTION`]), [`FIELD_PADDING`] of them beyond
    /// the mesh at each end. Thin parts need a cell well below their thickness. Between samples
    /// the interpolated distance of a curved surface is off by up to about a tenth of a cell (it
    /// rounds edges and bulges over curved parts), so contacts keep the margin to within that.
    pub fn from_mesh(mesh: &ClothMesh, resolution: u32) -> Result<Self, Error> {
        if !(MIN_FIELD_RESOLUTION..=MAX_FIELD_RESOLUTION).contains(&resolution) {
            return Err(Error::Collider(format!(
                "field resolution {resolution} must be in {MIN_FIELD_RESOLUTION}..={MAX_FIELD_RESOLUTION}"
            )));
        }
        let edges = mesh.validated_edges()?;
        if let Some(open) = edges.iter().find(|e| e.right.is_none()) {
            return Err(Error::Collider(format!(
                "a mesh collider needs a closed mesh, but edge {}-{} has one triangle",
                open.a, open.b
            )));
        }
        let (low, high) = bounding_box(&mesh.positions);
        if low.min_element() < -MAX_FIELD_COORDINATE || high.max_element() > MAX_FIELD_COORDINATE {
            return Err(Error::Collider(format!(
                "a mesh collider's mesh must lie within ±{MAX_FIELD_COORDINATE} m, not {low} to {high}"
            )));
        }
        let cell = (high - low).max_element() / (resolution - 1 - 2 * FIELD_PADDING) as f32;
        if cell <= GEOMETRY_EPSILON {
            return Err(Error::Collider("a mesh collider's mesh must have a positive size".into()));
        }
        let origin = low - Vec3::splat(FIELD_PADDING as f32 * cell);
        let cells = ((high - low) / cell).ceil().as_uvec3();
        let size = (cells + UVec3::splat(1 + 2 * FIELD_PADDING)).min(UVec3::splat(resolution));
        let mut field = Self { origin, cell, size, samples: Vec::new(), mesh: mesh.clone(), mesh_bounds: (low, high) };
        let distances = field.unsigned_distances();
        let inside = field.inside();
        field.samples = distances.iter().zip(inside).map(|(&d, inside)| if inside { -d } else { d }).collect();
        Ok(field)
    }

    /// The field of the closed mesh in an OBJ file ([`DistanceField::from_mesh`]).
    pub fn from_obj(path: impl AsRef<Path>, resolution: u32) -> Result<Self, Error> {
        Self::from_mesh(&ClothMesh::from_obj(path)?, resolution)
    }

    /// Where sample `(0, 0, 0)` lies (m, in the mesh's frame).
    pub fn origin(&self) -> Vec3 {
        self.origin
    }

    /// Distance between neighbouring samples (m).
    pub fn cell_size(&self) -> f32 {
        self.cell
    }

    /// Samples along x, y and z.
    pub fn size(&self) -> UVec3 {
        self.size
    }

    /// The signed distances, x fastest, then y, then z.
    pub fn samples(&self) -> &[f32] {
        &self.samples
    }

    /// The mesh the field was built from.
    pub fn mesh(&self) -> &ClothMesh {
        &self.mesh
    }

    /// The smallest box around the mesh, `(low, high)` (m, in the mesh's frame).
    pub fn mesh_bounds(&self) -> (Vec3, Vec3) {
        self.mesh_bounds
    }

    /// The field at `p` (m, in the mesh's frame): inside the sampled box the trilinear
    /// interpolation of the eight samples around `p` and its exact gradient; outside it,
    /// `max(a, d(c) − a)` at the distance `a` from the box's nearest point `c` — a lower bound of
    /// the distance to the mesh (which lies in the box, `d(c)` from `c`), so that sphere tracing
    /// from outside never steps through — with the gradient at `c`.
    pub fn surface_point(&self, p: Vec3) -> FieldPoint {
        let top = (self.size - UVec3::ONE).as_vec3();
        let grid = (p - self.origin) / self.cell;
        let clamped = grid.clamp(Vec3::ZERO, top);
        let outside = ((grid - clamped) * self.cell).length();
        let base = clamped.floor().min(top - Vec3::ONE);
        let f = clamped - base;
        let corner = base.as_uvec3();
        let d = |dx: u32, dy: u32, dz: u32| self.sample(corner + UVec3::new(dx, dy, dz));
        let (d000, d100, d010, d110) = (d(0, 0, 0), d(1, 0, 0), d(0, 1, 0), d(1, 1, 0));
        let (d001, d101, d011, d111) = (d(0, 0, 1), d(1, 0, 1), d(0, 1, 1), d(1, 1, 1));
        let (e00, e10) = (lerp(d000, d100, f.x), lerp(d010, d110, f.x));
        let (e01, e11) = (lerp(d001, d101, f.x), lerp(d011, d111, f.x));
        let (f0, f1) = (lerp(e00, e10, f.y), lerp(e01, e11, f.y));
        let value = lerp(f0, f1, f.z);
        let along_x = lerp(lerp(d100 - d000, d110 - d010, f.y), lerp(d101 - d001, d111 - d011, f.y), f.z);
        let gradient = Vec3::new(along_x, lerp(e10 - e00, e11 - e01, f.z), f1 - f0) / self.cell;
        let distance = if outside > 0.0 { outside.max(value - outside) } else { value };
        FieldPoint { distance, gradient }
    }

    /// The sample at grid point `i`.
    fn sample(&self, i: UVec3) -> f32 {
        self.samples[self.index(i)]
    }

    fn index(&self, i: UVec3) -> usize {
        ((i.z * self.size.y + i.y) * self.size.x + i.x) as usize
    }

    fn point(&self, i: UVec3) -> Vec3 {
        self.origin + i.as_vec3() * self.cell
    }

    fn triangle(&self, t: usize) -> [Vec3; 3] {
        self.mesh.triangles[t].map(|i| self.mesh.positions[i as usize])
    }

    /// Each sample's distance to the mesh: exact in a band of [`BAND`] cells around each
    /// triangle, then two rounds of fast sweeping in the eight diagonal orders, each sample
    /// trying the nearest triangles of its three neighbours behind it (a triangle nearest to a
    /// sample is nearest to one of them in practice; beyond the band the distances are within a
    /// fraction of a percent).
    fn unsigned_distances(&self) -> Vec<f32> {
        let count = self.samples_count();
        let (mut distance, mut nearest) = (vec![f32::INFINITY; count], vec![u32::MAX; count]);
        let top = (self.size - UVec3::ONE).as_i64vec3();
        for t in 0..self.mesh.triangles.len() {
            let triangle = self.triangle(t);
            let (low, high) = bounding_box(&triangle);
            let from = (((low - self.origin) / self.cell).floor().as_i64vec3() - BAND).clamp(I64Vec3::ZERO, top);
            let to = (((high - self.origin) / self.cell).ceil().as_i64vec3() + BAND).clamp(I64Vec3::ZERO, top);
            for z in from.z..=to.z {
                for y in from.y..=to.y {
                    for x in from.x..=to.x {
                        self.offer(UVec3::new(x as u32, y as u32, z as u32), t as u32, &mut distance, &mut nearest);
                    }
                }
            }
        }
        for _ in 0..2 {
            for direction in 0..8 {
                let step = [1, 2, 4].map(|bit| if direction & bit == 0 { 1i64 } else { -1 });
                self.sweep(step, &mut distance, &mut nearest);
            }
        }
        distance
    }

    /// One fast sweep along `step` (±1 per axis).
    fn sweep(&self, step: [i64; 3], distance: &mut [f32], nearest: &mut [u32]) {
        let s = self.size.as_i64vec3();
        let order = |n: i64, step: i64| (0..n).map(move |k| if step > 0 { k } else { n - 1 - k });
        for z in order(s.z, step[2]) {
            for y in order(s.y, step[1]) {
                for x in order(s.x, step[0]) {
                    let i = UVec3::new(x as u32, y as u32, z as u32);
                    let index = self.index(i);
                    for axis in 0..3 {
                        let mut n = [x, y, z];
                        n[axis] -= step[axis];
                        if n[axis] < 0 || n[axis] >= s[axis] {
                            continue;
                        }
                        let t = nearest[self.index(UVec3::new(n[0] as u32, n[1] as u32, n[2] as u32))];
                        if t != u32::MAX && t != nearest[index] {
                            self.offer(i, t, distance, nearest);
                        }
                    }
                }
            }
        }
    }

    /// Makes triangle `t` sample `i`'s nearest when it is nearer than the one it has.
    fn offer(&self, i: UVec3, t: u32, distance: &mut [f32], nearest: &mut [u32]) {
        let (index, p) = (self.index(i), self.point(i));
        let d = p.distance(closest_on_triangle(p, self.triangle(t as usize)));
        if d < distance[index] {
            (distance[index], nearest[index]) = (d, t);
        }
    }

    fn samples_count(&self) -> usize {
        (self.size.x * self.size.y * self.size.z) as usize
    }

    /// Which samples lie inside the mesh: the majority of three votes, each the parity of the
    /// mesh's crossings before the sample along grid rows in x, y or z
    /// ([`DistanceField::parity_along`]). A row that grazes an edge or a vertex miscounts its
    /// crossings and flips the rest of that row; the two other directions outvote it.
    fn inside(&self) -> Vec<bool> {
        let votes = [0, 1, 2].map(|axis| self.parity_along(axis));
        (0..self.samples_count()).map(|k| votes.iter().filter(|vote| vote[k]).count() >= 2).collect()
    }

    /// Which samples an odd number of the mesh's faces lie before along the grid row through
    /// them in the direction of `axis`. The rows are moved off the grid by a fraction of a cell
    /// (irrational multiples of it), so that no row passes exactly through a vertex or an edge
    /// of a mesh built on round coordinates; crossings are counted in f64.
    fn parity_along(&self, axis: usize) -> Vec<bool> {
        let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
        let size = self.size.to_array().map(|n| n as usize);
        let cell = f64::from(self.cell);
        let origin = self.origin.as_dvec3().to_array();
        let across = |p: [f64; 3]| DVec2::new(p[u], p[v]);
        let row_origin = across(origin) + DVec2::new(1.414_213_562e-4, 1.732_050_808e-4) * cell;
        let index = |along: usize, iu: usize, iv: usize| {
            let mut i = [0; 3];
            (i[axis], i[u], i[v]) = (along, iu, iv);
            (i[2] * size[1] + i[1]) * size[0] + i[0]
        };
        let mut crossings = vec![0u32; self.samples_count()];
        for t in 0..self.mesh.triangles.len() {
            let corners = self.triangle(t).map(|c| c.as_dvec3().to_array());
            let [a, b, c] = corners.map(across);
            let first = ((a.min(b).min(c) - row_origin) / cell).ceil().max(DVec2::ZERO);
            let last = ((a.max(b).max(c) - row_origin) / cell)
                .floor()
                .min(DVec2::new((size[u] - 1) as f64, (size[v] - 1) as f64));
            if first.x > last.x || first.y > last.y {
                continue;
            }
            for iv in first.y as usize..=last.y as usize {
                for iu in first.x as usize..=last.x as usize {
                    let ray = row_origin + DVec2::new(iu as f64, iv as f64) * cell;
                    let w = [cross2(b - ray, c - ray), cross2(c - ray, a - ray), cross2(a - ray, b - ray)];
                    if !(w.iter().all(|&x| x > 0.0) || w.iter().all(|&x| x < 0.0)) {
                        continue;
                    }
                    let hit = (0..3).map(|k| w[k] * corners[k][axis]).sum::<f64>() / (w[0] + w[1] + w[2]);
                    let after = ((hit - origin[axis]) / cell).floor() + 1.0;
                    if after < size[axis] as f64 {
                        crossings[index(after.max(0.0) as usize, iu, iv)] += 1;
                    }
                }
            }
        }
        let mut inside = vec![false; crossings.len()];
        for iv in 0..size[v] {
            for iu in 0..size[u] {
                let mut parity = false;
                for along in 0..size[axis] {
                    let k = index(along, iu, iv);
                    parity ^= crossings[k] % 2 == 1;
                    inside[k] = parity;
                }
            }
        }
        inside
    }
}

/// `a + (b − a)·t`, written out (the WGSL twin computes the same bits; `mix` may not).
fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}

fn cross2(a: DVec2, b: DVec2) -> f64 {
    a.x * b.y - a.y * b.x
}
