//! The cloth mesh: a generated grid or an OBJ file, validated, with lumped vertex masses.

use crate::error::{Error, MeshError};
use crate::graph::Csr;
use glam::{Quat, Vec2, Vec3};
use std::collections::HashMap;
use std::path::Path;

/// Triangles whose height is below this fraction of their longest edge (doubled area below it
/// times the longest edge squared) are rejected as degenerate: a size-independent test, so a
/// collinear triangle is caught whatever the rounding of its cross product, and a small but
/// well-shaped one passes.
const MIN_HEIGHT_RATIO: f32 = 1e-6;

/// Triangles whose area is below this fraction of the mesh's median triangle area are rejected
/// as too small ([`MeshError::TinyTriangle`]): a vertex's mass is a third of its triangles' area
/// times the density, so such a triangle puts particles whose masses differ a millionfold and
/// more into one solve, where f32 corrections lose the light ones.
pub const MIN_AREA_RATIO: f32 = 1e-6;

/// OBJ faces are triangulated and keep separate indices for positions and texture coordinates
/// (tobj's GPU options would split a vertex wherever its texture coordinates or normals change).
const OBJ_LOAD_OPTIONS: tobj::LoadOptions = tobj::LoadOptions { single_index: false, ..tobj::GPU_LOAD_OPTIONS };

/// Most vertices a mesh may have. With [`MAX_TRIANGLES`] it keeps every count the model and the
/// GPU derive from the mesh in `u32` with room to spare: edges, hinges and their four particles
/// each, Jacobi's correction slots and every adjacency list stay below 2³⁰.
pub const MAX_VERTICES: usize = 1 << 26;
/// Most triangles a mesh may have (see [`MAX_VERTICES`]).
pub const MAX_TRIANGLES: usize = 1 << 27;

/// Triangle corners welded by position, as the file loaders weld them: equal positions (−0.0
/// and 0.0 too) are one vertex, so vertices split at texture or normal seams, and pieces that
/// share positions, are joined; vertices are numbered in the order the corners first reach them.
pub(crate) struct Welding {
    /// Each corner's vertex.
    pub vertices: Vec<u32>,
    /// Each vertex's first corner.
    pub firsts: Vec<usize>,
}

impl Welding {
    /// The welding of the corners at `positions`, three per triangle.
    pub fn by_position(positions: impl IntoIterator<Item = Vec3>) -> Self {
        let mut vertex_of_position = HashMap::new();
        let mut firsts = Vec::new();
        let vertices = (positions.into_iter().enumerate())
            .map(|(corner, position)| {
                // + 0.0 turns −0.0 into 0.0, so that the two weld.
                let key = (position + 0.0).to_array().map(f32::to_bits);
                *vertex_of_position.entry(key).or_insert_with(|| {
                    firsts.push(corner);
                    firsts.len() as u32 - 1
                })
            })
            .collect();
        Self { vertices, firsts }
    }

    /// The triangles of the welded vertices.
    pub fn triangles(&self) -> Vec<[u32; 3]> {
        self.vertices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect()
    }
}

/// Which plane a generated grid lies in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GridPlane {
    /// The XZ plane (normal +Y): a cloth lying flat, e.g. above a collider.
    Horizontal,
    /// The XY plane (normal +Z): a cloth hanging like a curtain.
    Vertical,
}

/// A triangle mesh describing the cloth's rest state.
#[derive(Debug, Clone, PartialEq)]
pub struct ClothMesh {
    /// Rest positions in metres.
    pub positions: Vec<Vec3>,
    /// Counter-clockwise vertex indices.
    pub triangles: Vec<[u32; 3]>,
    /// Rest-state texture coordinates, one per vertex (zero where the source had none).
    pub uvs: Vec<Vec2>,
}

/// An edge with the triangles on either side (`right` is `None` on the boundary).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeshEdge {
    /// Lower vertex index.
    pub a: u32,
    /// Higher vertex index.
    pub b: u32,
    /// The first triangle found that uses this edge.
    pub left: u32,
    /// The second triangle, if the edge is interior.
    pub right: Option<u32>,
}

impl ClothMesh {
    /// Builds a mesh and validates it.
    pub fn new(positions: Vec<Vec3>, triangles: Vec<[u32; 3]>, uvs: Option<Vec<Vec2>>) -> Result<Self, Error> {
        let uvs = uvs.unwrap_or_else(|| vec![Vec2::ZERO; positions.len()]);
        Ok(Self::validated(positions, triangles, uvs)?)
    }

    /// [`ClothMesh::new`] with the texture coordinates given, and its error as a mesh error.
    pub(crate) fn validated(positions: Vec<Vec3>, triangles: Vec<[u32; 3]>, uvs: Vec<Vec2>) -> Result<Self, MeshError> {
        let mesh = Self { positions, triangles, uvs };
        mesh.validate()?;
        Ok(mesh)
    }

    /// A regular grid of `nx × ny` vertices, `spacing` metres apart, its first vertex at
    /// `origin`. Cell diagonals alternate in a checkerboard, so the cloth has no preferred shear
    /// direction. Vertices are numbered row by row (`index = j·nx + i`); row `j = 0` is the top
    /// of a vertical grid and the far edge (−Z) of a horizontal one.
    pub fn grid(nx: u32, ny: u32, spacing: f32, plane: GridPlane, origin: Vec3) -> Result<Self, Error> {
        if nx < 2 || ny < 2 {
            return Err(MeshError::InvalidGrid { reason: "needs at least 2 × 2 vertices" }.into());
        }
        if nx.checked_mul(ny).is_none_or(|n| n as usize > MAX_VERTICES) {
            return Err(MeshError::InvalidGrid { reason: "more than 2^26 vertices" }.into());
        }
        if !(spacing.is_finite() && spacing > 0.0 && origin.is_finite()) {
            return Err(MeshError::InvalidGrid { reason: "spacing must be positive and origin finite" }.into());
        }
        let mut positions = Vec::with_capacity((nx * ny) as usize);
        let mut uvs = Vec::with_capacity(positions.capacity());
        for j in 0..ny {
            for i in 0..nx {
                let (u, v) = (i as f32 * spacing, j as f32 * spacing);
                positions.push(match plane {
                    GridPlane::Horizontal => origin + Vec3::new(u, 0.0, v),
                    GridPlane::Vertical => origin + Vec3::new(u, -v, 0.0),
                });
                uvs.push(Vec2::new(i as f32 / (nx - 1) as f32, j as f32 / (ny - 1) as f32));
            }
        }
        let mut triangles = Vec::with_capacity(((nx - 1) * (ny - 1) * 2) as usize);
        for j in 0..ny - 1 {
            for i in 0..nx - 1 {
                let a = j * nx + i; // top left
                let b = a + 1; // top right
                let c = a + nx; // bottom left
                let d = c + 1; // bottom right
                               // Counter-clockwise seen from +Y (horizontal) and +Z (vertical).
                let quad = if (i + j) % 2 == 0 { [[a, c, d], [a, d, b]] } else { [[a, c, b], [b, c, d]] };
                triangles.extend(quad);
            }
        }
        Self::new(positions, triangles, Some(uvs))
    }

    /// A closed torus about the y axis through the origin: `segments` vertices around the ring
    /// of radius `major` (the tube's centre line), `sides` around the tube of radius `minor`,
    /// triangles counter-clockwise seen from outside. A mesh collider's shape
    /// ([`crate::DistanceField`]) more than a cloth.
    pub fn torus(major: f32, minor: f32, segments: u32, sides: u32) -> Result<Self, Error> {
        if !(minor > 0.0 && major > minor && major.is_finite() && segments >= 3 && sides >= 3) {
            return Err(MeshError::InvalidGrid {
                reason: "a torus needs 0 < minor < major and ≥ 3 segments and sides",
            }
            .into());
        }
        if segments.checked_mul(sides).is_none_or(|n| n as usize > MAX_VERTICES) {
            let count = segments as usize * sides as usize;
            return Err(MeshError::TooLarge { what: "vertices", count, limit: MAX_VERTICES }.into());
        }
        let vertex = |i: u32, j: u32| (i % segments) * sides + j % sides;
        let mut positions = Vec::with_capacity((segments * sides) as usize);
        for i in 0..segments {
            let (sin_around, cos_around) = (std::f32::consts::TAU * i as f32 / segments as f32).sin_cos();
            for j in 0..sides {
                let (sin_tube, cos_tube) = (std::f32::consts::TAU * j as f32 / sides as f32).sin_cos();
                let ring = major + minor * cos_tube;
                positions.push(Vec3::new(ring * cos_around, minor * sin_tube, ring * sin_around));
            }
        }
        let mut triangles = Vec::with_capacity(2 * positions.len());
        for i in 0..segments {
            for j in 0..sides {
                let (a, b, c, d) = (vertex(i, j), vertex(i, j + 1), vertex(i + 1, j + 1), vertex(i + 1, j));
                triangles.extend([[a, b, c], [a, c, d]]);
            }
        }
        Self::new(positions, triangles, None)
    }

    /// This mesh moved rigidly: turned by `rotation` about the origin, then moved by
    /// `translation`.
    pub fn moved(&self, rotation: Quat, translation: Vec3) -> Self {
        let positions = self.positions.iter().map(|&p| rotation * p + translation).collect();
        Self { positions, ..self.clone() }
    }

    /// The meshes as one cloth of separate pieces, their vertices and triangles in order
    /// (validated: the pieces together must stay within the mesh limits).
    pub fn joined(pieces: &[ClothMesh]) -> Result<Self, Error> {
        let (mut positions, mut triangles, mut uvs) = (Vec::new(), Vec::new(), Vec::new());
        for piece in pieces {
            let (count, limit) = (positions.len() + piece.positions.len(), MAX_VERTICES);
            if count > limit {
                return Err(MeshError::TooLarge { what: "vertices", count, limit }.into());
            }
            let first = positions.len() as u32;
            triangles.extend(piece.triangles.iter().map(|t| t.map(|i| i + first)));
            positions.extend_from_slice(&piece.positions);
            uvs.extend_from_slice(&piece.uvs);
        }
        Self::new(positions, triangles, Some(uvs))
    }

    /// Loads an OBJ file; quads and polygons are triangulated, all models are merged.
    ///
    /// A cloth vertex is an OBJ position, whatever texture coordinates or normals its faces give
    /// it, so UV seams and per-face normals do not cut the cloth apart; a vertex on a UV seam
    /// keeps the texture coordinate of its first corner. Equal positions are one vertex, so
    /// objects and groups that share vertices stay joined; so do coincident `v` lines (a slit
    /// modelled with duplicated vertices is sewn shut). Vertices are numbered in the order the
    /// faces first use them.
    /// A face (`f` line) with fewer than three vertices is an error ([`MeshError::ShortFace`]);
    /// materials are ignored.
    pub fn from_obj(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::Obj { path: path.display().to_string(), message: e.to_string() })?;
        Self::parse_obj(path.display().to_string(), &text)
    }

    /// Parses OBJ text (the same rules as [`ClothMesh::from_obj`]).
    pub fn from_obj_str(text: &str) -> Result<Self, Error> {
        Self::parse_obj("<memory>".into(), text)
    }

    fn parse_obj(path: String, text: &str) -> Result<Self, Error> {
        check_face_lengths(text).map_err(|error| Error::ObjMesh { path: path.clone(), error })?;
        let mut reader = std::io::BufReader::new(text.as_bytes());
        let models = tobj::load_obj_buf(&mut reader, &OBJ_LOAD_OPTIONS, |_| Err(tobj::LoadError::OpenFileFailed))
            .map_err(|e| Error::Obj { path: path.clone(), message: e.to_string() })?
            .0;
        Self::from_obj_models(&models).map_err(|error| Error::ObjMesh { path, error })
    }

    fn from_obj_models(models: &[tobj::Model]) -> Result<Self, MeshError> {
        let corners: Vec<(Vec3, Vec2)> = (models.iter())
            .flat_map(|model| {
                let m = &model.mesh;
                m.indices.iter().enumerate().map(move |(corner, &index)| {
                    let at = 3 * index as usize;
                    (Vec3::from_slice(&m.positions[at..at + 3]), corner_uv(m, corner))
                })
            })
            .collect();
        let welding = Welding::by_position(corners.iter().map(|&(p, _)| p));
        let positions = welding.firsts.iter().map(|&c| corners[c].0 + 0.0).collect();
        let uvs = welding.firsts.iter().map(|&c| corners[c].1).collect();
        Self::validated(positions, welding.triangles(), uvs)
    }

    /// Checks that the mesh can be simulated: non-empty, at most [`MAX_VERTICES`] and
    /// [`MAX_TRIANGLES`], indices in range, finite positions, one
    /// texture coordinate per vertex, no degenerate (height below a millionth of the longest edge),
    /// tiny (area below [`MIN_AREA_RATIO`] of the median triangle's) or duplicate triangle, every
    /// edge shared by at most two triangles.
    pub fn validate(&self) -> Result<(), MeshError> {
        self.validated_edges().map(|_| ())
    }

    /// [`ClothMesh::validate`], returning the edges ([`ClothMesh::edges`]) it had to find.
    pub fn validated_edges(&self) -> Result<Vec<MeshEdge>, MeshError> {
        if self.positions.is_empty() || self.triangles.is_empty() {
            return Err(MeshError::Empty);
        }
        for (what, count, limit) in
            [("vertices", self.positions.len(), MAX_VERTICES), ("triangles", self.triangles.len(), MAX_TRIANGLES)]
        {
            if count > limit {
                return Err(MeshError::TooLarge { what, count, limit });
            }
        }
        if let Some(vertex) = self.positions.iter().position(|p| !p.is_finite()) {
            return Err(MeshError::NonFinitePosition { vertex });
        }
        let vertex_count = self.positions.len();
        if self.uvs.len() != vertex_count {
            return Err(MeshError::TexCoordCount { uvs: self.uvs.len(), vertex_count });
        }
        for (triangle, tri) in self.triangles.iter().enumerate() {
            if let Some(&index) = tri.iter().find(|&&i| i as usize >= vertex_count) {
                return Err(MeshError::IndexOutOfRange { triangle, index, vertex_count });
            }
            if self.is_degenerate(tri) {
                return Err(MeshError::DegenerateTriangle { triangle });
            }
        }
        self.check_areas()?;
        let (ends, triangles) = self.edge_triangles();
        if let Some((first, second)) = self.duplicate_pair(&triangles) {
            return Err(MeshError::DuplicateTriangle { first, second });
        }
        let mut used = vec![false; vertex_count];
        self.triangles.iter().flatten().for_each(|&v| used[v as usize] = true);
        if let Some(vertex) = used.iter().position(|&u| !u) {
            return Err(MeshError::UnreferencedVertex { vertex });
        }
        manifold_edges(&ends, &triangles)
    }

    /// Two triangles with the same three vertices, the pair whose second index is lowest, found
    /// among the triangles of each edge (duplicates share all their edges).
    fn duplicate_pair(&self, edge_triangles: &Csr) -> Option<(usize, usize)> {
        let key = |t: u32| {
            let mut key = self.triangles[t as usize];
            key.sort_unstable();
            key
        };
        let mut lowest: Option<(usize, usize)> = None;
        for e in 0..edge_triangles.rows() {
            let row = edge_triangles.row(e);
            for (k, &second) in row.iter().enumerate().skip(1) {
                if let Some(&first) = row[..k].iter().find(|&&first| key(first) == key(second)) {
                    if lowest.is_none_or(|(_, s)| (second as usize) < s) {
                        lowest = Some((first as usize, second as usize));
                    }
                }
            }
        }
        lowest
    }

    /// [`MeshError::TinyTriangle`] for the first triangle whose area is below
    /// [`MIN_AREA_RATIO`] of the median triangle's.
    fn check_areas(&self) -> Result<(), MeshError> {
        let areas: Vec<f32> = self.triangles.iter().map(|t| 0.5 * self.double_area(t)).collect();
        let mut sorted = areas.clone();
        let middle = sorted.len() / 2;
        let median = *sorted.select_nth_unstable_by(middle, f32::total_cmp).1;
        match areas.iter().position(|&area| area < MIN_AREA_RATIO * median) {
            Some(triangle) => Err(MeshError::TinyTriangle { triangle, area: areas[triangle], median }),
            None => Ok(()),
        }
    }

    /// Whether the triangle's height is below [`MIN_HEIGHT_RATIO`] of its longest edge.
    fn is_degenerate(&self, t: &[u32; 3]) -> bool {
        let [a, b, c] = t.map(|i| self.positions[i as usize]);
        let longest = a.distance_squared(b).max(b.distance_squared(c)).max(c.distance_squared(a));
        self.double_area(t) <= MIN_HEIGHT_RATIO * longest
    }

    /// Twice the area of a triangle, `|(p1 − p0) × (p2 − p0)|`.
    fn double_area(&self, t: &[u32; 3]) -> f32 {
        let [a, b, c] = t.map(|i| self.positions[i as usize]);
        (b - a).cross(c - a).length()
    }

    /// Every edge once, in order of first appearance, with its one or two triangles; an edge of
    /// more triangles is [`MeshError::NonManifoldEdge`] (the one with the lowest vertices).
    ///
    /// # Panics
    /// If a triangle index is out of range (a mesh that fails [`ClothMesh::validate`]).
    pub fn edges(&self) -> Result<Vec<MeshEdge>, MeshError> {
        let (ends, triangles) = self.edge_triangles();
        manifold_edges(&ends, &triangles)
    }

    /// Every edge's vertices `[a, b]` (`a < b`), in order of first appearance among the
    /// triangles' sides, and its triangles, ascending. Linear: the sides are bucketed by their
    /// lower vertex, and within a bucket `latest[b]` finds the edge `(a, b)` already met.
    fn edge_triangles(&self) -> (Vec<[u32; 2]>, Csr) {
        let sides = self.triangles.len() * 3;
        let side_ends = |s: usize| {
            let tri = self.triangles[s / 3];
            let (u, v) = (tri[s % 3], tri[(s + 1) % 3]);
            [u.min(v), u.max(v)]
        };
        let by_lower = Csr::from_pairs(self.positions.len(), (0..sides).map(|s| (side_ends(s)[0], s as u32)));
        // Number the edges as the buckets meet them, then renumber by first side.
        const NONE: u32 = u32::MAX;
        let mut bucket_edge = vec![NONE; sides];
        let mut latest = vec![(NONE, NONE); self.positions.len()];
        let mut edge_count = 0;
        for a in 0..self.positions.len() as u32 {
            for &s in by_lower.row(a as usize) {
                let b = side_ends(s as usize)[1] as usize;
                if latest[b].0 != a {
                    latest[b] = (a, edge_count);
                    edge_count += 1;
                }
                bucket_edge[s as usize] = latest[b].1;
            }
        }
        let mut renumbered = vec![NONE; edge_count as usize];
        let mut ends = Vec::with_capacity(edge_count as usize);
        for (s, &e) in bucket_edge.iter().enumerate() {
            if renumbered[e as usize] == NONE {
                renumbered[e as usize] = ends.len() as u32;
                ends.push(side_ends(s));
            }
        }
        let triangles = Csr::from_pairs(
            ends.len(),
            bucket_edge.iter().enumerate().map(|(s, &e)| (renumbered[e as usize], (s / 3) as u32)),
        );
        (ends, triangles)
    }

    /// The mesh boundary cut into sides: each boundary loop split at its corners (vertices where
    /// it turns by more than 45°), or whole where it has none; the longest eight, longest first.
    /// A rectangle gives its four sides. Used as starting sets for the breadth-first levels of
    /// the Gauss-Seidel stripes. `edges` are the mesh's ([`ClothMesh::edges`]).
    pub fn boundary_sides(&self, edges: &[MeshEdge]) -> Vec<Vec<u32>> {
        let boundary: Vec<[u32; 2]> = edges.iter().filter(|e| e.right.is_none()).map(|e| [e.a, e.b]).collect();
        let incident = Csr::from_pairs(
            self.positions.len(),
            boundary.iter().enumerate().flat_map(|(e, &[a, b])| [(a, e as u32), (b, e as u32)]),
        );
        let mut used = vec![false; boundary.len()];
        let mut sides = Vec::new();
        for first in 0..boundary.len() {
            if used[first] {
                continue;
            }
            // Walk the loop through unused boundary edges.
            used[first] = true;
            let [start, mut at] = boundary[first];
            let mut walk = vec![start, at];
            while let Some(&e) = incident.row(at as usize).iter().find(|&&e| !used[e as usize]) {
                used[e as usize] = true;
                let [a, b] = boundary[e as usize];
                at = if a == at { b } else { a };
                walk.push(at);
            }
            let closed = walk.len() > 2 && walk.first() == walk.last();
            if closed {
                walk.pop();
            }
            sides.extend(self.split_at_corners(&walk, closed));
        }
        sides.sort_by_key(|side: &Vec<u32>| std::cmp::Reverse(side.len()));
        sides.truncate(8);
        sides
    }

    /// A boundary path cut at the vertices where it turns by more than 45°, each side keeping
    /// its end corners.
    fn split_at_corners(&self, path: &[u32], closed: bool) -> Vec<Vec<u32>> {
        let n = path.len();
        let position = |k: usize| self.positions[path[k % n] as usize];
        let is_corner = |k: usize| {
            if !closed && (k == 0 || k == n - 1) {
                return true;
            }
            let incoming = (position(k) - position(k + n - 1)).normalize_or_zero();
            let outgoing = (position(k + 1) - position(k)).normalize_or_zero();
            incoming.dot(outgoing) < std::f32::consts::FRAC_1_SQRT_2
        };
        let corners: Vec<usize> = (0..n).filter(|&k| is_corner(k)).collect();
        if corners.is_empty() {
            return vec![path.to_vec()];
        }
        let segments = if closed { corners.len() } else { corners.len() - 1 };
        (0..segments)
            .map(|i| {
                let (from, to) = (corners[i], corners[(i + 1) % corners.len()]);
                let to = if to <= from { to + n } else { to };
                (from..=to).map(|k| path[k % n]).collect()
            })
            .collect()
    }

    /// The rest area (m²): the sum of the triangles' areas.
    pub fn area(&self) -> f32 {
        let p = &self.positions;
        let area = |t: &[u32; 3]| {
            0.5 * (p[t[1] as usize] - p[t[0] as usize]).cross(p[t[2] as usize] - p[t[0] as usize]).length()
        };
        self.triangles.iter().map(area).sum()
    }

    /// Lumped vertex masses in kg: each triangle gives `density · area / 3` to each of its
    /// vertices (PBD §4.1). `density` is in kg/m².
    ///
    /// # Panics
    /// If a triangle index is out of range (a mesh that fails [`ClothMesh::validate`]).
    pub fn vertex_masses(&self, density: f32) -> Vec<f32> {
        let mut masses = vec![0.0; self.positions.len()];
        for tri in &self.triangles {
            let share = density * 0.5 * self.double_area(tri) / 3.0;
            for &i in tri {
                masses[i as usize] += share;
            }
        }
        masses
    }
}

/// The edges of [`ClothMesh::edge_triangles`] with their one or two triangles, or the
/// non-manifold edge with the lowest vertices.
fn manifold_edges(ends: &[[u32; 2]], triangles: &Csr) -> Result<Vec<MeshEdge>, MeshError> {
    let crowded = (0..ends.len()).filter(|&e| triangles.row(e).len() > 2).min_by_key(|&e| ends[e]);
    if let Some(e) = crowded {
        let [a, b] = ends[e];
        return Err(MeshError::NonManifoldEdge { a, b, triangles: triangles.row(e).len() });
    }
    Ok(ends
        .iter()
        .enumerate()
        .map(|(e, &[a, b])| {
            let row = triangles.row(e);
            MeshEdge { a, b, left: row[0], right: row.get(1).copied() }
        })
        .collect())
}

/// Rejects an OBJ face with fewer than three vertices, which the loader would drop silently
/// (or read as a line).
fn check_face_lengths(text: &str) -> Result<(), MeshError> {
    for (number, line) in text.lines().enumerate() {
        let mut tokens = line.split_whitespace();
        if tokens.next() == Some("f") {
            let vertices = tokens.count();
            if vertices < 3 {
                return Err(MeshError::ShortFace { line: number + 1, vertices });
            }
        }
    }
    Ok(())
}

/// The texture coordinate an OBJ face corner gives its vertex: zero where the file has none; a
/// corner without one in a file that has them gets the previous corner's (tobj's rule).
fn corner_uv(mesh: &tobj::Mesh, corner: usize) -> Vec2 {
    let texcoord = mesh.texcoord_indices.get(corner).map(|&t| 2 * t as usize);
    texcoord.and_then(|at| mesh.texcoords.get(at..at + 2)).map_or(Vec2::ZERO, Vec2::from_slice)
}
