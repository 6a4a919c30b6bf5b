//! The cloth model: fixed topology and rest data derived once from a mesh — masses, stretch and
//! bending constraints sorted into colours, and the adjacency lists the kernels gather over.

use crate::coloring::{color_constraints, Coloring, MAX_COLOURS};
use crate::error::{Error, MeshError, ParamError};
use crate::math::{dihedral_angle, normalize_or_up, weighted_face_normal};
use crate::mesh::{ClothMesh, MeshEdge};
use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use std::ops::Range;

/// Marks the unused particle slots of a distance constraint.
pub const NO_PARTICLE: u32 = u32::MAX;

/// One constraint as the GPU reads it (`Constraint` in `shaders/common.wgsl`).
/// Stretch: `particles = [a, b, NO_PARTICLE, NO_PARTICLE]`, `rest` = rest length (m).
/// Bending: `particles = [edge a, edge b, wing of one triangle, wing of the other]`,
/// `rest` = rest dihedral angle (rad, π when flat).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct Constraint {
    /// Particle indices; unused slots hold [`NO_PARTICLE`].
    pub particles: [u32; 4],
    /// Rest length (m) or rest dihedral angle (rad).
    pub rest: f32,
}

impl Constraint {
    /// The particles the constraint actually uses.
    pub fn used_particles(&self) -> &[u32] {
        let n = self.particles.iter().take_while(|&&p| p != NO_PARTICLE).count();
        &self.particles[..n]
    }
}

/// A compressed-row adjacency list: row `i` is `items[offsets[i]..offsets[i + 1]]`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Csr {
    /// `rows + 1` offsets into `items`.
    pub offsets: Vec<u32>,
    /// The rows' items, one row after the other.
    pub items: Vec<u32>,
}

impl Csr {
    /// Builds rows from `(row, item)` pairs; items keep their order within a row.
    pub(crate) fn from_pairs(rows: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> Self {
        let mut offsets = vec![0u32; rows + 1];
        for (r, _) in pairs.clone() {
            offsets[r as usize + 1] += 1;
        }
        for i in 0..rows {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut items = vec![0u32; offsets[rows] as usize];
        for (r, item) in pairs {
            items[fill[r as usize] as usize] = item;
            fill[r as usize] += 1;
        }
        Self { offsets, items }
    }

    /// The items of row `i`.
    pub fn row(&self, i: usize) -> &[u32] {
        &self.items[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
}

/// Cloth topology and rest data, shared by the GPU solver and the CPU reference.
#[derive(Debug, Clone, PartialEq)]
pub struct ClothModel {
    /// The rest-state mesh.
    pub mesh: ClothMesh,
    /// Lumped particle masses in kg (PBD §4.1).
    pub masses: Vec<f32>,
    /// `1/m`, or 0 for pinned particles (PBD §3.6).
    pub inverse_masses: Vec<f32>,
    /// All constraints: stretch constraints by colour, then bending constraints by colour.
    pub constraints: Vec<Constraint>,
    /// How many of `constraints` are stretch constraints (they come first).
    pub stretch_count: usize,
    /// Each colour's range of `constraints`, in projection order; the first
    /// `stretch_colour_count` are stretch colours.
    pub colours: Vec<Range<u32>>,
    /// How many of `colours` are stretch colours.
    pub stretch_colour_count: usize,
    /// Jacobi gather lists: particle → correction slots `4·constraint + k`, by constraint index.
    pub particle_slots: Csr,
    /// Normal gather lists: vertex → adjacent triangles.
    pub vertex_triangles: Csr,
}

/// Default surface density of the cloth, kg/m² (a medium cotton).
pub const DEFAULT_DENSITY: f32 = 0.2;

impl ClothModel {
    /// Derives the model from a validated mesh. `density` is in kg/m²; `pins` are the vertices
    /// held in place (inverse mass 0) — they can move as kinematic targets later.
    pub fn new(mesh: ClothMesh, density: f32, pins: &[u32]) -> Result<Self, Error> {
        mesh.validate()?;
        if !(density.is_finite() && density > 0.0) {
            return Err(ParamError { name: "density", value: density.to_string(), expected: "finite and > 0" }.into());
        }
        let n = mesh.positions.len();
        if let Some(&index) = pins.iter().find(|&&p| p as usize >= n) {
            return Err(MeshError::PinOutOfRange { index, vertex_count: n }.into());
        }
        let masses = mesh.vertex_masses(density);
        let mut inverse_masses: Vec<f32> = masses.iter().map(|m| 1.0 / m).collect();
        if masses.iter().zip(&inverse_masses).any(|(m, w)| !(m.is_finite() && w.is_finite() && *m > 0.0)) {
            return Err(ParamError {
                name: "density",
                value: density.to_string(),
                expected: "a density that gives every vertex a finite, non-zero mass",
            }
            .into());
        }
        for &p in pins {
            inverse_masses[p as usize] = 0.0;
        }
        let edges = mesh.edges()?;
        let stretch = stretch_constraints(&mesh, &edges);
        let bending = bending_constraints(&mesh, &edges);
        let (stretch, stretch_ranges) = sort_by_colour(stretch, n, 0)?;
        let (bending, bending_ranges) = sort_by_colour(bending, n, stretch_ranges.len())?;
        let stretch_count = stretch.len();
        let stretch_colour_count = stretch_ranges.len();
        let colours = stretch_ranges
            .into_iter()
            .chain(bending_ranges.into_iter().map(|r| r.start + stretch_count as u32..r.end + stretch_count as u32))
            .collect();
        let constraints: Vec<Constraint> = stretch.into_iter().chain(bending).collect();
        let particle_slots = Csr::from_pairs(
            n,
            constraints.iter().enumerate().flat_map(|(c, con)| {
                con.used_particles().iter().enumerate().map(move |(k, &p)| (p, 4 * c as u32 + k as u32))
            }),
        );
        let vertex_triangles = Csr::from_pairs(
            n,
            mesh.triangles.iter().enumerate().flat_map(|(t, tri)| tri.iter().map(move |&v| (v, t as u32))),
        );
        Ok(Self {
            mesh,
            masses,
            inverse_masses,
            constraints,
            stretch_count,
            colours,
            stretch_colour_count,
            particle_slots,
            vertex_triangles,
        })
    }

    /// Checks the invariants the solvers rely on — useful when a model was edited by hand:
    /// constraint particles in range, stretch constraints first, colours tiling the constraints
    /// without a kind straddling a colour, finite positive masses, and consistent gather lists.
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |what: &str| Err(Error::Mesh(MeshError::InvalidModel { reason: what.to_string() }));
        let n = self.particle_count();
        if self.masses.len() != n || self.inverse_masses.len() != n {
            return bad("one mass and inverse mass per particle");
        }
        if self.masses.iter().any(|m| !(m.is_finite() && *m > 0.0))
            || self.inverse_masses.iter().any(|w| !(w.is_finite() && *w >= 0.0))
        {
            return bad("masses finite and positive, inverse masses finite and non-negative");
        }
        if self.stretch_count > self.constraints.len() || self.stretch_colour_count > self.colours.len() {
            return bad("stretch constraints and colours within the lists");
        }
        for (c, con) in self.constraints.iter().enumerate() {
            let arity = if c < self.stretch_count { 2 } else { 4 };
            let used = con.used_particles();
            if used.len() != arity || used.iter().any(|&p| p as usize >= n) || !con.rest.is_finite() {
                return bad("constraint particles in range and finite rest values");
            }
        }
        let mut next = 0;
        for (k, range) in self.colours.iter().enumerate() {
            let in_stretch = k < self.stretch_colour_count;
            let boundary = self.stretch_count as u32;
            let straddles = if in_stretch { range.end > boundary } else { range.start < boundary };
            if range.start != next || range.end < range.start || straddles {
                return bad("colours tile the constraints in order, one kind each");
            }
            next = range.end;
        }
        if next as usize != self.constraints.len() {
            return bad("colours cover every constraint");
        }
        let csr_ok = |csr: &Csr, items: usize, bound: usize| {
            csr.offsets.len() == n + 1
                && csr.offsets.windows(2).all(|w| w[0] <= w[1])
                && csr.offsets[n] as usize == items
                && csr.items.len() == items
                && csr.items.iter().all(|&i| (i as usize) < bound)
        };
        let slots: usize = self.constraints.iter().map(|c| c.used_particles().len()).sum();
        if !csr_ok(&self.particle_slots, slots, 4 * self.constraints.len())
            || !csr_ok(&self.vertex_triangles, 3 * self.mesh.triangles.len(), self.mesh.triangles.len())
        {
            return bad("gather lists consistent with the constraints and triangles");
        }
        Ok(())
    }

    /// Number of particles (mesh vertices).
    pub fn particle_count(&self) -> usize {
        self.mesh.positions.len()
    }

    /// Number of bending constraints.
    pub fn bending_count(&self) -> usize {
        self.constraints.len() - self.stretch_count
    }

    /// The stretch colours' ranges of `constraints`.
    pub fn stretch_colours(&self) -> &[Range<u32>] {
        &self.colours[..self.stretch_colour_count]
    }

    /// Area-weighted unit vertex normals of `positions`: each vertex sums
    /// [`weighted_face_normal`] over its triangles in gather-list order (the order the normals
    /// kernel uses) and normalises.
    pub fn vertex_normals(&self, positions: &[Vec3]) -> Vec<Vec3> {
        (0..self.particle_count())
            .map(|i| {
                let sum = self.vertex_triangles.row(i).iter().fold(Vec3::ZERO, |s, &t| {
                    let [a, b, c] = self.mesh.triangles[t as usize].map(|v| positions[v as usize]);
                    s + weighted_face_normal(a, b, c)
                });
                normalize_or_up(sum)
            })
            .collect()
    }

    /// The bending colours' ranges of `constraints`.
    pub fn bending_colours(&self) -> &[Range<u32>] {
        &self.colours[self.stretch_colour_count..]
    }
}

/// A distance constraint per edge at its rest length (PBD §4.1).
fn stretch_constraints(mesh: &ClothMesh, edges: &[MeshEdge]) -> Vec<Constraint> {
    edges
        .iter()
        .map(|e| Constraint {
            particles: [e.a, e.b, NO_PARTICLE, NO_PARTICLE],
            rest: mesh.positions[e.a as usize].distance(mesh.positions[e.b as usize]),
        })
        .collect()
}

/// A dihedral bending constraint per interior edge, at its rest angle (PBD §4.1).
fn bending_constraints(mesh: &ClothMesh, edges: &[MeshEdge]) -> Vec<Constraint> {
    let wing = |t: u32, e: &MeshEdge| {
        *mesh.triangles[t as usize]
            .iter()
            .find(|&&v| v != e.a && v != e.b)
            .expect("a valid triangle has a third vertex")
    };
    edges
        .iter()
        .filter_map(|e| {
            let right = e.right?;
            let particles = [e.a, e.b, wing(e.left, e), wing(right, e)];
            let [p0, p1, p2, p3] = particles.map(|i| mesh.positions[i as usize]);
            // Validated triangles have area, so the rest angle always exists.
            let rest = dihedral_angle(p0, p1, p2, p3)?;
            Some(Constraint { particles, rest })
        })
        .collect()
}

/// Colours one constraint kind and returns it reordered by colour with the colour ranges.
fn sort_by_colour(
    constraints: Vec<Constraint>,
    particle_count: usize,
    colours_before: usize,
) -> Result<(Vec<Constraint>, Vec<Range<u32>>), Error> {
    let particles: Vec<&[u32]> = constraints.iter().map(Constraint::used_particles).collect();
    let Coloring { order, ranges } = color_constraints(&particles, particle_count)
        .map_err(|needed| Error::TooManyColours { needed: needed + colours_before, max: MAX_COLOURS })?;
    if colours_before + ranges.len() > MAX_COLOURS {
        return Err(Error::TooManyColours { needed: colours_before + ranges.len(), max: MAX_COLOURS });
    }
    Ok((order.iter().map(|&c| constraints[c as usize]).collect(), ranges))
}
