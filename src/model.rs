//! The cloth model: fixed topology and rest data derived once from a mesh — masses, stretch and
//! bending constraints sorted into the Gauss-Seidel schedule (two phases of stripes, each phase
//! coloured), and the adjacency lists the kernels gather over.

use crate::coloring::{color_constraints, Coloring, MAX_COLOURS};
use crate::error::{Error, MeshError, ParamError};
use crate::math::{dihedral_angle, normalize_or_up, weighted_face_normal};
use crate::mesh::{ClothMesh, MeshEdge};
use crate::stripes::{stripes, validate_stripes, Stripes};
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
    /// Where each particle sits in its stripe's particle list ([`Stripe::particles`]) when the
    /// model's stripes fit workgroup memory ([`ClothModel::stripes_fit_workgroup`]), else 0 (and
    /// 0 for a hinge's stretch constraint, which works on its bending constraint's particles).
    /// The striped kernel addresses its workgroup copy of the stripe with these. WGSL reads
    /// them as two `u32`, low half first.
    pub stripe_slots: [u16; 4],
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

    /// The list as the kernels read it: the offsets, then the items, in one array.
    pub(crate) fn words(&self) -> Vec<u32> {
        self.offsets.iter().chain(&self.items).copied().collect()
    }

    /// The items of row `i` (panics if `i` is not a row, as slice indexing does).
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
    /// All constraints: stretch constraints, then bending constraints. Each bending constraint
    /// forms a *hinge* with the stretch constraint of its edge, which Gauss-Seidel projects just
    /// before it from the same particle loads: stretch constraint `j < bending_count()` is the
    /// edge of bending constraint `stretch_count + j` ([`ClothModel::hinge_stretch`]). The other
    /// stretch constraints are the free edges, which have no bending constraint (boundary
    /// edges, or interior edges next to a triangle too small for a normal). Free edges and
    /// bending constraints are ordered by phase, then colour, then stripe.
    pub constraints: Vec<Constraint>,
    /// How many of `constraints` are stretch constraints (they come first).
    pub stretch_count: usize,
    /// Each colour's range of `constraints`, in projection order (the Gauss-Seidel order):
    /// phase 0's stretch colours (free edges), its bending colours (hinges), then phase 1's.
    pub colours: Vec<Range<u32>>,
    /// The two Gauss-Seidel phases (even stripes, odd stripes).
    pub phases: [Phase; 2],
    /// Jacobi gather lists: particle → correction slots `4·constraint + k`, by constraint index.
    pub particle_slots: Csr,
    /// Normal gather lists: vertex → adjacent triangles.
    pub vertex_triangles: Csr,
}

/// One Gauss-Seidel phase: stripes that share no particle ([`crate::stripes`]), each coloured on
/// its own; a phase's colours are the union of its stripes' colours. A bending colour projects
/// each of its hinges: the edge's stretch constraint, then the bending constraint.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Phase {
    /// This phase's colours, as indices into [`ClothModel::colours`]: `stretch_colours` stretch
    /// colours, then bending colours.
    pub colours: Range<usize>,
    /// How many of this phase's colours are stretch colours.
    pub stretch_colours: usize,
    /// The phase's stripes, in order.
    pub stripes: Vec<Stripe>,
}

/// One stripe of a phase: its share of each of the phase's colours and the particles its
/// constraints touch.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Stripe {
    /// `ranges[j]` is the part of colour `phase.colours.start + j` this stripe owns (possibly
    /// empty).
    pub ranges: Vec<Range<u32>>,
    /// The particles of the stripe's constraints, ascending.
    pub particles: Vec<u32>,
}

impl Phase {
    /// How many of this phase's colours are bending colours (they follow the stretch colours).
    pub fn bending_colours(&self) -> usize {
        self.colours.len() - self.stretch_colours
    }
}

/// Most particles a stripe's kernel keeps in workgroup memory: 1024 `vec4<f32>` are 16 KiB,
/// WebGPU's default `maxComputeWorkgroupStorageSize` (`STRIPE_CAPACITY` in
/// `shaders/common.wgsl`). Stripes are cut to fit it wherever the cloth's breadth-first levels
/// allow; where they do not, the kernel works on the particles in place.
pub const STRIPE_CAPACITY: usize = 1024;

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
        let (hinges, free) = edge_constraints(&mesh, &edges);
        let (constraints, stretch_count, colours, phases) = schedule(free, hinges, n)?;
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
            phases,
            particle_slots,
            vertex_triangles,
        })
    }

    /// Checks the invariants the solvers rely on — useful when a model was edited by hand: a
    /// valid mesh ([`ClothMesh::validate`]), constraint particles in range, stretch constraints
    /// first, a valid Gauss-Seidel schedule (see `validate_schedule`), finite positive masses,
    /// and consistent gather lists.
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |what: &str| Err(Error::Mesh(MeshError::InvalidModel { reason: what.to_string() }));
        self.mesh.validate()?;
        let n = self.particle_count();
        if self.masses.len() != n || self.inverse_masses.len() != n {
            return bad("one mass and inverse mass per particle");
        }
        if self.masses.iter().any(|m| !(m.is_finite() && *m > 0.0))
            || self.inverse_masses.iter().any(|w| !(w.is_finite() && *w >= 0.0))
        {
            return bad("masses finite and positive, inverse masses finite and non-negative");
        }
        if self.stretch_count > self.constraints.len() || self.bending_count() > self.stretch_count {
            return bad("stretch constraints within the list, at least one per bending constraint");
        }
        for (c, con) in self.constraints.iter().enumerate() {
            let arity = if c < self.stretch_count { 2 } else { 4 };
            let used = con.used_particles();
            if used.len() != arity || used.iter().any(|&p| p as usize >= n) || !con.rest.is_finite() {
                return bad("constraint particles in range and finite rest values");
            }
        }
        if let Err(reason) = self.validate_schedule() {
            return bad(&reason);
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

    /// Whether every stripe's particles fit a workgroup's memory ([`STRIPE_CAPACITY`]), so the
    /// striped kernel can work on a copy there (and [`Constraint::stripe_slots`] are set).
    pub fn stripes_fit_workgroup(&self) -> bool {
        stripes_fit_workgroup(&self.phases)
    }

    /// Number of particles (mesh vertices).
    pub fn particle_count(&self) -> usize {
        self.mesh.positions.len()
    }

    /// Number of bending constraints.
    pub fn bending_count(&self) -> usize {
        self.constraints.len() - self.stretch_count
    }

    /// The stretch constraint of bending constraint `c`'s edge, projected with it as a hinge;
    /// `None` when `c` is a stretch constraint. `c` must be a constraint index.
    pub fn hinge_stretch(&self, c: usize) -> Option<usize> {
        c.checked_sub(self.stretch_count)
    }

    /// Stretch colours of both phases (the free edges; the others are projected with their
    /// hinges in the bending colours).
    pub fn stretch_colour_count(&self) -> usize {
        self.phases.iter().map(|p| p.stretch_colours).sum()
    }

    /// Bending colours of both phases.
    pub fn bending_colour_count(&self) -> usize {
        self.phases.iter().map(Phase::bending_colours).sum()
    }

    /// Checks the Gauss-Seidel schedule: each hinge's stretch constraint lies on its bending
    /// constraint's edge; the phases' colours run through `colours` in order, stretch colours
    /// (free edges only) first; every colour holds one kind and no two of its constraints share
    /// a particle; the colours and hinges cover every constraint once; each stripe's ranges tile
    /// its colours in stripe order; and stripes of one phase share no particle.
    fn validate_schedule(&self) -> Result<(), String> {
        let boundary = self.stretch_count as u32;
        let hinges = self.bending_count();
        let (hinge_edges, bending) = (&self.constraints[..hinges], &self.constraints[self.stretch_count..]);
        if hinge_edges.iter().zip(bending).any(|(edge, hinge)| edge.particles[..2] != hinge.particles[..2]) {
            return Err("each hinge's stretch constraint lies on its bending constraint's edge".into());
        }
        let mut covered = vec![false; self.constraints.len()];
        let mut stripe_of = vec![u32::MAX; self.constraints.len()];
        let mut colour_of_particle = vec![usize::MAX; self.particle_count()];
        let mut next_colour = 0;
        for (p, phase) in self.phases.iter().enumerate() {
            if phase.colours.start != next_colour
                || phase.colours.end > self.colours.len()
                || phase.colours.start + phase.stretch_colours > phase.colours.end
            {
                return Err("phases list the colours in order".into());
            }
            next_colour = phase.colours.end;
            for (j, k) in phase.colours.clone().enumerate() {
                let range = self.colours[k].clone();
                let stretch = j < phase.stretch_colours;
                if range.start > range.end
                    || range.end as usize > covered.len()
                    || (stretch && (range.start < hinges as u32 || range.end > boundary))
                    || (!stretch && range.start < boundary)
                {
                    return Err("each colour holds one kind, stretch colours (free edges) first in a phase".into());
                }
                let mut next = range.start;
                for (s, stripe) in phase.stripes.iter().enumerate() {
                    let part = stripe.ranges.get(j).cloned().unwrap_or(next..next);
                    if stripe.ranges.len() != phase.colours.len()
                        || part.start != next
                        || part.end < part.start
                        || part.end > range.end
                    {
                        return Err("each stripe's ranges tile the phase's colours".into());
                    }
                    stripe_of[part.start as usize..part.end as usize].fill((2 * s + p) as u32);
                    next = part.end;
                }
                if next != range.end {
                    return Err("each stripe's ranges tile the phase's colours".into());
                }
                for seen in &mut covered[range.start as usize..range.end as usize] {
                    if std::mem::replace(seen, true) {
                        return Err("no constraint in two colours".into());
                    }
                }
                for con in &self.constraints[range.start as usize..range.end as usize] {
                    for &particle in con.used_particles() {
                        if std::mem::replace(&mut colour_of_particle[particle as usize], k) == k {
                            return Err(format!("particle {particle} is used twice in colour {k}"));
                        }
                    }
                }
            }
        }
        // A hinge's stretch constraint is projected with its bending constraint: the bending
        // constraints' entries (the tail) carry over to the hinge edges (the head).
        covered.copy_within(self.stretch_count.., 0);
        stripe_of.copy_within(self.stretch_count.., 0);
        if next_colour != self.colours.len() || covered.iter().any(|&c| !c) {
            return Err("colours and hinges cover every constraint".into());
        }
        let count =
            self.phases.iter().enumerate().map(|(p, ph)| 2 * ph.stripes.len() as u32 + p as u32).max().unwrap_or(0);
        let particles: Vec<&[u32]> = self.constraints.iter().map(Constraint::used_particles).collect();
        validate_stripes(&Stripes { of_constraint: stripe_of, count }, &particles, self.particle_count())?;
        self.validate_stripe_particles()
    }

    /// Checks each stripe's particle list: ascending, exactly its constraints' particles, and —
    /// when the stripes fit workgroup memory — matched by every constraint's stripe slots.
    fn validate_stripe_particles(&self) -> Result<(), String> {
        let fit = self.stripes_fit_workgroup();
        for stripe in self.phases.iter().flat_map(|p| &p.stripes) {
            if stripe_particles(&self.constraints, &stripe.ranges) != stripe.particles {
                return Err("each stripe lists exactly its constraints' particles, ascending".into());
            }
            for con in stripe_constraints(&self.constraints, &stripe.ranges).filter(|_| fit) {
                let slots = con.stripe_slots.iter().map(|&s| stripe.particles.get(usize::from(s)));
                if con.used_particles().iter().zip(slots).any(|(&p, listed)| listed != Some(&p)) {
                    return Err(format!("constraint on particles {:?} has wrong stripe slots", con.used_particles()));
                }
            }
        }
        Ok(())
    }

    /// Area-weighted unit vertex normals of `positions`: each vertex sums
    /// [`weighted_face_normal`] over its triangles in gather-list order (the order the normals
    /// kernel uses) and normalises.
    ///
    /// # Panics
    /// If `positions` has fewer entries than the model has particles.
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
}

/// A bending constraint and the stretch constraint of its edge. The Gauss-Seidel sweep projects
/// them as one unit, stretch first: both work on the same four particles, which are then loaded
/// and stored once for the two.
#[derive(Debug, Clone, Copy)]
struct Hinge {
    stretch: Constraint,
    bending: Constraint,
}

/// A distance constraint per edge at its rest length and a dihedral bending constraint per
/// interior edge at its rest angle (PBD §4.1): the hinges, and the free edges. Free edges are the
/// boundary edges, and any interior edge next to a triangle too small for a normal (doubled area
/// below `GEOMETRY_EPSILON`, which mesh validation lets through down to 1e-12 m²).
fn edge_constraints(mesh: &ClothMesh, edges: &[MeshEdge]) -> (Vec<Hinge>, Vec<Constraint>) {
    let wing = |t: u32, e: &MeshEdge| {
        *mesh.triangles[t as usize]
            .iter()
            .find(|&&v| v != e.a && v != e.b)
            .expect("a valid triangle has a third vertex")
    };
    let (mut hinges, mut free) = (Vec::new(), Vec::new());
    for e in edges {
        let stretch = Constraint {
            particles: [e.a, e.b, NO_PARTICLE, NO_PARTICLE],
            rest: mesh.positions[e.a as usize].distance(mesh.positions[e.b as usize]),
            stripe_slots: [0; 4],
        };
        let bending = e.right.and_then(|right| {
            let particles = [e.a, e.b, wing(e.left, e), wing(right, e)];
            let [p0, p1, p2, p3] = particles.map(|i| mesh.positions[i as usize]);
            let rest = dihedral_angle(p0, p1, p2, p3)?;
            Some(Constraint { particles, rest, stripe_slots: [0; 4] })
        });
        match bending {
            Some(bending) => hinges.push(Hinge { stretch, bending }),
            None => free.push(stretch),
        }
    }
    (hinges, free)
}

/// The constraints in Gauss-Seidel schedule order with `(constraints, stretch count, colours,
/// phases)`. Free edges and hinges are split into stripes together; each kind's share of each
/// phase is coloured on its own and ordered by colour, then stripe. The list holds the hinges'
/// stretch constraints (in hinge order), the free edges, then the hinges' bending constraints.
type Schedule = (Vec<Constraint>, usize, Vec<Range<u32>>, [Phase; 2]);

fn schedule(free: Vec<Constraint>, hinges: Vec<Hinge>, particle_count: usize) -> Result<Schedule, Error> {
    let free_units: Vec<&[u32]> = free.iter().map(Constraint::used_particles).collect();
    let hinge_units: Vec<&[u32]> = hinges.iter().map(|h| h.bending.used_particles()).collect();
    let units: Vec<&[u32]> = free_units.iter().chain(&hinge_units).copied().collect();
    let stripes = stripes(&units, particle_count, STRIPE_CAPACITY);
    let (free_stripes, hinge_stripes) = stripes.of_constraint.split_at(free.len());
    let PhaseColouring { order: free_order, ranges: free_ranges } =
        colour_phases(&free_units, free_stripes, particle_count)?;
    let PhaseColouring { order: hinge_order, ranges: hinge_ranges } =
        colour_phases(&hinge_units, hinge_stripes, particle_count)?;
    let stretch_count = hinges.len() + free.len();
    let mut constraints: Vec<Constraint> = (hinge_order.iter().map(|&h| hinges[h].stretch))
        .chain(free_order.iter().map(|&f| free[f]))
        .chain(hinge_order.iter().map(|&h| hinges[h].bending))
        .collect();
    let stripe_order: Vec<u32> = (hinge_order.iter().map(|&h| hinge_stripes[h]))
        .chain(free_order.iter().map(|&f| free_stripes[f]))
        .chain(hinge_order.iter().map(|&h| hinge_stripes[h]))
        .collect();
    let mut colours = Vec::new();
    let phases = [0, 1].map(|phase| {
        let start = colours.len();
        colours.extend(shifted(&free_ranges[phase], hinges.len()));
        let stretch_colours = colours.len() - start;
        colours.extend(shifted(&hinge_ranges[phase], stretch_count));
        let phase_colours = &colours[start..];
        let stripes = (phase as u32..stripes.count)
            .step_by(2)
            .map(|stripe| {
                let ranges: Vec<Range<u32>> = phase_colours
                    .iter()
                    .map(|range| {
                        let within = &stripe_order[range.start as usize..range.end as usize];
                        let begin = range.start + within.partition_point(|&s| s < stripe) as u32;
                        let end = range.start + within.partition_point(|&s| s <= stripe) as u32;
                        begin..end
                    })
                    .collect();
                let particles = stripe_particles(&constraints, &ranges);
                Stripe { ranges, particles }
            })
            .collect();
        Phase { colours: start..colours.len(), stretch_colours, stripes }
    });
    if colours.len() > MAX_COLOURS {
        return Err(Error::TooManyColours { needed: colours.len(), max: MAX_COLOURS });
    }
    if stripes_fit_workgroup(&phases) {
        assign_stripe_slots(&mut constraints, &phases);
    }
    Ok((constraints, stretch_count, colours, phases))
}

/// `ranges` moved `by` places on.
fn shifted(ranges: &[Range<u32>], by: usize) -> impl Iterator<Item = Range<u32>> + '_ {
    ranges.iter().map(move |r| r.start + by as u32..r.end + by as u32)
}

/// One kind's units in schedule order — phase 0's colours, then phase 1's, each colour ordered
/// by stripe — and each phase's colour ranges of that order.
struct PhaseColouring {
    order: Vec<usize>,
    ranges: [Vec<Range<u32>>; 2],
}

/// Colours each phase's units of one kind (each given by its particles, with its stripe in
/// `stripe_of`) on its own.
fn colour_phases(units: &[&[u32]], stripe_of: &[u32], particle_count: usize) -> Result<PhaseColouring, Error> {
    let mut order = Vec::with_capacity(units.len());
    let mut ranges: [Vec<Range<u32>>; 2] = Default::default();
    for (phase, phase_ranges) in ranges.iter_mut().enumerate() {
        let members: Vec<usize> = (0..units.len()).filter(|&u| stripe_of[u] as usize % 2 == phase).collect();
        let member_particles: Vec<&[u32]> = members.iter().map(|&u| units[u]).collect();
        let Coloring { order: coloured, ranges: colour_ranges } = color_constraints(&member_particles, particle_count)
            .map_err(|needed| Error::TooManyColours { needed, max: MAX_COLOURS })?;
        for range in colour_ranges {
            let mut colour: Vec<usize> =
                coloured[range.start as usize..range.end as usize].iter().map(|&k| members[k as usize]).collect();
            colour.sort_by_key(|&u| (stripe_of[u], u));
            let start = order.len() as u32;
            order.extend(colour);
            phase_ranges.push(start..order.len() as u32);
        }
    }
    Ok(PhaseColouring { order, ranges })
}

/// Whether every stripe of `phases` holds at most [`STRIPE_CAPACITY`] particles.
fn stripes_fit_workgroup(phases: &[Phase; 2]) -> bool {
    phases.iter().flat_map(|p| &p.stripes).all(|s| s.particles.len() <= STRIPE_CAPACITY)
}

/// The constraints of a stripe, colour by colour.
fn stripe_constraints<'a>(
    constraints: &'a [Constraint],
    ranges: &'a [Range<u32>],
) -> impl Iterator<Item = &'a Constraint> {
    ranges.iter().flat_map(|r| &constraints[r.start as usize..r.end as usize])
}

/// The particles a stripe's constraints touch, ascending ([`Stripe::particles`]).
fn stripe_particles(constraints: &[Constraint], ranges: &[Range<u32>]) -> Vec<u32> {
    let mut particles: Vec<u32> =
        stripe_constraints(constraints, ranges).flat_map(|c| c.used_particles().iter().copied()).collect();
    particles.sort_unstable();
    particles.dedup();
    particles
}

/// Sets the [`Constraint::stripe_slots`] of every scheduled constraint from its stripe's
/// particle list.
fn assign_stripe_slots(constraints: &mut [Constraint], phases: &[Phase; 2]) {
    for stripe in phases.iter().flat_map(|p| &p.stripes) {
        for range in &stripe.ranges {
            for con in &mut constraints[range.start as usize..range.end as usize] {
                let used = con.used_particles().len();
                for k in 0..used {
                    let slot = stripe.particles.binary_search(&con.particles[k]).expect("a stripe lists its particles");
                    con.stripe_slots[k] = slot as u16;
                }
            }
        }
    }
}
