//! The cloth mesh: a generated grid or an OBJ file, validated, with lumped vertex masses.

use crate::error::{Error, MeshError};
use glam::{Vec2, Vec3};
use std::collections::HashMap;
use std::path::Path;

/// Triangles whose doubled area is below this (m²) are rejected as degenerate.
const MIN_DOUBLE_AREA: f32 = 1e-12;

/// OBJ faces are triangulated and keep separate indices for positions and texture coordinates
/// (tobj's GPU options would split a vertex wherever its texture coordinates or normals change).
const OBJ_LOAD_OPTIONS: tobj::LoadOptions = tobj::LoadOptions { single_index: false, ..tobj::GPU_LOAD_OPTIONS };

/// Most vertices a generated grid may have (keeps every index and triangle count in `u32`).
const MAX_GRID_VERTICES: u32 = 1 << 28;

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

    fn validated(positions: Vec<Vec3>, triangles: Vec<[u32; 3]>, uvs: Vec<Vec2>) -> Result<Self, MeshError> {
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
        if nx.checked_mul(ny).is_none_or(|n| n > MAX_GRID_VERTICES) {
            return Err(MeshError::InvalidGrid { reason: "more than 2^28 vertices" }.into());
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

    /// Loads an OBJ file; quads and polygons are triangulated, all models are merged.
    ///
    /// A cloth vertex is an OBJ position, whatever texture coordinates or normals its faces give
    /// it, so UV seams and per-face normals do not cut the cloth apart; a vertex on a UV seam
    /// keeps the texture coordinate of its first corner. Equal positions are one vertex, so
    /// objects and groups that share vertices stay joined; so do coincident `v` lines (a slit
    /// modelled with duplicated vertices is sewn shut). Vertices are numbered in the order the
    /// faces first use them.
    pub fn from_obj(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        let models = tobj::load_obj(path, &OBJ_LOAD_OPTIONS).map(|(models, _)| models);
        Self::from_obj_result(path.display().to_string(), models)
    }

    /// Parses OBJ text (the same rules as [`ClothMesh::from_obj`]; materials are ignored).
    pub fn from_obj_str(text: &str) -> Result<Self, Error> {
        let mut reader = std::io::BufReader::new(text.as_bytes());
        let models = tobj::load_obj_buf(&mut reader, &OBJ_LOAD_OPTIONS, |_| Err(tobj::LoadError::OpenFileFailed))
            .map(|(models, _)| models);
        Self::from_obj_result("<memory>".into(), models)
    }

    fn from_obj_result(path: String, models: Result<Vec<tobj::Model>, tobj::LoadError>) -> Result<Self, Error> {
        let models = match models {
            Ok(models) => models,
            Err(e) => return Err(Error::Obj { path, message: e.to_string() }),
        };
        Self::from_obj_models(&models).map_err(|error| Error::ObjMesh { path, error })
    }

    fn from_obj_models(models: &[tobj::Model]) -> Result<Self, MeshError> {
        let (mut positions, mut triangles, mut uvs) = (Vec::new(), Vec::new(), Vec::new());
        let mut vertex_of_position = HashMap::new();
        for model in models {
            let m = &model.mesh;
            let corner_vertices: Vec<u32> = m
                .indices
                .iter()
                .enumerate()
                .map(|(corner, &index)| {
                    let at = 3 * index as usize;
                    // + 0.0 turns −0.0 into 0.0, so that the two weld.
                    let position = Vec3::from_slice(&m.positions[at..at + 3]) + 0.0;
                    *vertex_of_position.entry(position.to_array().map(f32::to_bits)).or_insert_with(|| {
                        positions.push(position);
                        uvs.push(corner_uv(m, corner));
                        positions.len() as u32 - 1
                    })
                })
                .collect();
            triangles.extend(corner_vertices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]));
        }
        Self::validated(positions, triangles, uvs)
    }

    /// Checks that the mesh can be simulated: non-empty, indices in range, finite positions, one
    /// texture coordinate per vertex, no zero-area or duplicate triangle, every edge shared by at
    /// most two triangles.
    pub fn validate(&self) -> Result<(), MeshError> {
        if self.positions.is_empty() || self.triangles.is_empty() {
            return Err(MeshError::Empty);
        }
        if let Some(vertex) = self.positions.iter().position(|p| !p.is_finite()) {
            return Err(MeshError::NonFinitePosition { vertex });
        }
        let vertex_count = self.positions.len();
        if self.uvs.len() != vertex_count {
            return Err(MeshError::TexCoordCount { uvs: self.uvs.len(), vertex_count });
        }
        let mut seen = HashMap::with_capacity(self.triangles.len());
        for (triangle, tri) in self.triangles.iter().enumerate() {
            if let Some(&index) = tri.iter().find(|&&i| i as usize >= vertex_count) {
                return Err(MeshError::IndexOutOfRange { triangle, index, vertex_count });
            }
            if self.double_area(tri) < MIN_DOUBLE_AREA {
                return Err(MeshError::DegenerateTriangle { triangle });
            }
            let mut key = *tri;
            key.sort_unstable();
            if let Some(first) = seen.insert(key, triangle) {
                return Err(MeshError::DuplicateTriangle { first, second: triangle });
            }
        }
        let mut used = vec![false; vertex_count];
        self.triangles.iter().flatten().for_each(|&v| used[v as usize] = true);
        if let Some(vertex) = used.iter().position(|&u| !u) {
            return Err(MeshError::UnreferencedVertex { vertex });
        }
        self.edges().map(|_| ())
    }

    /// Twice the area of a triangle, `|(p1 − p0) × (p2 − p0)|`.
    fn double_area(&self, t: &[u32; 3]) -> f32 {
        let [a, b, c] = t.map(|i| self.positions[i as usize]);
        (b - a).cross(c - a).length()
    }

    /// Every edge once, in order of first appearance, with its one or two triangles.
    pub fn edges(&self) -> Result<Vec<MeshEdge>, MeshError> {
        let mut index: HashMap<(u32, u32), usize> = HashMap::with_capacity(self.triangles.len() * 2);
        let mut edges: Vec<MeshEdge> = Vec::with_capacity(self.triangles.len() * 2);
        for (t, tri) in self.triangles.iter().enumerate() {
            for k in 0..3 {
                let (u, v) = (tri[k], tri[(k + 1) % 3]);
                let key = (u.min(v), u.max(v));
                match index.get(&key) {
                    None => {
                        index.insert(key, edges.len());
                        edges.push(MeshEdge { a: key.0, b: key.1, left: t as u32, right: None });
                    }
                    Some(&e) if edges[e].right.is_none() => edges[e].right = Some(t as u32),
                    Some(_) => {
                        let triangles =
                            self.triangles.iter().filter(|o| o.contains(&key.0) && o.contains(&key.1)).count();
                        return Err(MeshError::NonManifoldEdge { a: key.0, b: key.1, triangles });
                    }
                }
            }
        }
        Ok(edges)
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

/// The texture coordinate an OBJ face corner gives its vertex: zero where the file has none; a
/// corner without one in a file that has them gets the previous corner's (tobj's rule).
fn corner_uv(mesh: &tobj::Mesh, corner: usize) -> Vec2 {
    let texcoord = mesh.texcoord_indices.get(corner).map(|&t| 2 * t as usize);
    texcoord.and_then(|at| mesh.texcoords.get(at..at + 2)).map_or(Vec2::ZERO, Vec2::from_slice)
}
