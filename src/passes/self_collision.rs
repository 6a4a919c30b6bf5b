//! Self-collision: the cloth keeps a thickness `h` between its own particles, and between its
//! particles and its triangles' faces (PBD §4.3). With several cloths, each has its own
//! thickness and friction and a pair keeps the mean of their thicknesses with its own friction
//! ([`cloth_contacts`]); `h` below is then the pair's, and each cloth's deformation is limited
//! to half its own.
//!
//! Once per substep, after the constraints and before the colliders, the solver
//! 1. limits how far each free particle's displacement departs from the rigid motion of its
//!    cloth's free particles' displacements ([`limit_deformation`]) to [`SelfCollision::max_displacement`]
//!    (`h/2`), so two nearby particles close in by at most `h` per substep and cannot pass each
//!    other between two contact passes. A rigid motion keeps every distance, so it cannot bring
//!    the cloth into contact with itself: only the deformation is limited, and a cloth thrown,
//!    falling or carried by a moving body moves as fast as without self-collision. What the
//!    limit takes from the particles it shortens (their momentum and angular momentum) goes
//!    back to their whole cloth as a rigid motion ([`momentum_restored`]), added with the
//!    contacts' corrections, so that the limit keeps the cloth's momentum too;
//! 2. hashes the predicted positions `p = x + q` into cells at least `h` wide
//!    ([`SelfCollision::cell_size`], [`cell_of`], [`cell_hash`]), so every particle within `h`
//!    of `p` lies in the 27 cells around its own ([`query_cells`]), of which those within `h` of
//!    `p` are examined ([`cell_within_reach`]), each taking its own particles from its bucket;
//! 3. finds every contact in the clamped state: each pair of particles closer than `h` whose
//!    rest distance is at least `h` (pairs closer at rest, such as the particles of one
//!    triangle, would push each other apart at rest) is pushed back to `h` apart, shared by
//!    inverse mass, with Coulomb friction on the pair's relative tangential displacement
//!    ([`pair_correction`]); each particle closer than `h` to a triangle's face is pushed back
//!    to `h` on the side it came from ([`triangles`]), which particle pairs miss where the
//!    cloth's particles are more than `h` apart;
//! 4. moves each particle by the sum of its contacts' corrections, Jacobi style. Each contact's
//!    corrections carry opposite momenta, so the contacts keep the cloth's momentum; dividing
//!    by the number of contacts (Jacobi averaging) would not, and measurably made a folded
//!    cloth creep at rest.
//!
//! Order (Huh & Metaxas 2006, clump-free resolution: self → self-proximity → body →
//! body-proximity): the self contacts come before the colliders' response, which ends every
//! substep so that no substep ends inside a collider. Penetration and proximity are one contact
//! here (closer than `h`), in one pass: the deformation limit keeps nearby pairs from crossing, and a
//! particle that crossed a triangle is taken back to the side it came from, so there are no
//! self penetrations to resolve before the proximity. The colliders' response is likewise one
//! pass for both. Pieces that are not connected (two sheets of one mesh) collide like any other
//! particles.
//!
//! Results do not depend on thread order: each hash bucket lists its particles by index (the
//! GPU sorts them after its atomic scatter), every particle sums its pair contacts in that
//! order, and the triangle contacts are summed in fixed point by integer atomics.
//! The GPU keeps each particle's predicted position beside its index in the bucket's slot, so a
//! particle reads its candidates in one run.
//! Fixed capacities — [`MAX_BUCKET_ENTRIES`] per bucket, [`MAX_CANDIDATES`] per particle and
//! those of [`triangles`] — are counted in [`crate::Overflows::self_contacts`] when exceeded.
//! WGSL twin: `shaders/passes/self_collision.wgsl`.

pub mod cloth_contacts;
pub mod triangles;

use super::plan::{grid_of, workgroups_for, DispatchInfo, FramePlan, WORKGROUP_SIZE};
use super::rigid_damping::{
    free_particle_moments, prepare_rigid_motions, push_rigid_motions, rigid_motion, GpuClothMotion, RigidMotion,
    CLOTH_MOTIONS, CLOTH_MOTION_WGSL,
};
use super::{Build, CpuFrame, Kernel, LayoutRefused, Part, Pass, Setup, Shader, Stage, Uploads, SOLVE};
use crate::constraints::SolveState;
use crate::error::Error;
use crate::math::GEOMETRY_EPSILON;
use crate::mesh::ClothMesh;
use crate::model::{Cloth, ClothModel};
use crate::params::SelfCollision;
use crate::struct_layout;
use crate::wgsl::{Binding, BindingTable, Constant, StructLayout};
use crate::wgsl_file;
use bytemuck::{Pod, Zeroable};
use cloth_contacts::ClothContacts;
use glam::{IVec4, Vec3};
use std::mem::size_of;
use triangles::{add_triangle_contacts, fixed_point_exponent, summed_correction};

/// Most particles in one hash bucket whose contacts are taken: the particles of a fuller bucket
/// are skipped by their neighbours, which count an overflow. Buckets are sorted by one thread
/// each, in `O(n²)`.
pub const MAX_BUCKET_ENTRIES: u32 = 64;

/// Buckets of one block of the prefix sum over the hash table's counts, a workgroup's
/// ([`WORKGROUP_SIZE`] threads, `SCAN_BLOCK / WORKGROUP_SIZE` buckets each, in a row): the count
/// also counts each block's total, then each block scans its own from the sum of those before
/// it, so that no thread walks a long run of buckets alone (one workgroup over a 64² cloth's
/// 16384 buckets took 47 µs a substep on an H200).
pub const SCAN_BLOCK: u32 = 256;
// The scan deals a block's buckets evenly to a workgroup's threads, whose count it halves.
const _: () = assert!(SCAN_BLOCK.is_multiple_of(WORKGROUP_SIZE) && WORKGROUP_SIZE.is_power_of_two());
/// Most other particles one particle examines per substep; beyond, it stops and counts an
/// overflow.
pub const MAX_CANDIDATES: u32 = 128;
/// Cell coordinates are clamped to ±this, so far or non-finite positions still hash.
pub const CELL_LIMIT: f32 = 1e9;
/// Multipliers of the cell hash (Teschner et al. 2003, as in Müller's self-collision demo).
pub const HASH_PRIMES: [u32; 3] = [92_837_111, 689_287_499, 283_923_481];

impl SelfCollision {
    /// The edge of a hash cell for a cloth of particles `spacing` apart ([`particle_spacing`]):
    /// `h`, or the spacing where `h` is smaller. At least `h`, so the particles within `h` of a
    /// point lie in the 27 cells around its own; no smaller than the spacing, so that a triangle
    /// examines a bounded number of cells whatever `h` is, about `3(L/s + 2h/s + 1)²` for a side
    /// `L` (with cells `h` wide at `h` = 1 cm, a cloth 1.9 cm apart had each triangle walk ~50
    /// cells, most of them empty). Where the particles are closer than `h`, cells of `h` hold
    /// fewer candidates than larger ones would.
    pub fn cell_size(&self, spacing: f32) -> f32 {
        self.thickness.max(spacing)
    }

    /// The most a free particle's displacement departs from the cloth's rigid motion in one
    /// substep: `h/2`, so a nearby pair closes in by at most `h` and a pair at least `h` apart
    /// cannot cross between two contact passes.
    pub fn max_displacement(&self) -> f32 {
        0.5 * self.thickness
    }
}

/// The mean length of the edges of `mesh`'s triangles (each interior edge counted once per
/// triangle): the spacing of its particles, for [`SelfCollision::cell_size`].
pub fn particle_spacing(mesh: &ClothMesh) -> f32 {
    let positions = &mesh.positions;
    let total: f64 = (mesh.triangles.iter())
        .flat_map(|&[a, b, c]| [(a, b), (b, c), (c, a)])
        .map(|(i, j)| f64::from(positions[i as usize].distance(positions[j as usize])))
        .sum();
    (total / (3 * mesh.triangles.len().max(1)) as f64) as f32
}

/// Buckets of the hash table for `particles` particles: the power of two at or above twice
/// their number (few buckets shared by distant cells).
pub fn hash_table_size(particles: usize) -> u32 {
    (2 * particles.max(1)).next_power_of_two() as u32
}

/// The integer cell of `p` for cells `cell_size` wide (coordinates clamped, NaN to 0).
pub fn cell_of(p: Vec3, cell_size: f32) -> [i32; 3] {
    [p.x, p.y, p.z].map(|c| cell_coordinate(c, cell_size))
}

/// The integer cell coordinate of `c` along one axis (clamped, NaN to 0).
pub fn cell_coordinate(c: f32, cell_size: f32) -> i32 {
    (c / cell_size).floor().clamp(-CELL_LIMIT, CELL_LIMIT) as i32
}

/// The bucket of `cell` in a table of `table_size` buckets (a power of two).
pub fn cell_hash(cell: [i32; 3], table_size: u32) -> u32 {
    let [x, y, z] = cell.map(|c| c as u32);
    let mixed = x.wrapping_mul(HASH_PRIMES[0]) ^ y.wrapping_mul(HASH_PRIMES[1]) ^ z.wrapping_mul(HASH_PRIMES[2]);
    mixed & (table_size - 1)
}

/// The 27 cells around `p`'s own, in a fixed order (x fastest): they hold every point within
/// one cell's width of `p`.
pub fn query_cells(p: Vec3, cell_size: f32) -> [[i32; 3]; 27] {
    let [x, y, z] = cell_of(p, cell_size);
    std::array::from_fn(|k| {
        let k = k as i32;
        [x + k % 3 - 1, y + (k / 3) % 3 - 1, z + k / 9 - 1]
    })
}

/// Whether the box of `cell` (cells `cell_size` wide) comes within `reach` of `p`: a cell
/// farther away holds no particle closer than `reach`. With cells as wide as the reach, the own
/// cell and its six face neighbours do (but for a point exactly on a face); an edge neighbour
/// does about 79 % of the time and a corner one 52 %, so about 21 of the 27 cells are visited.
/// The maxima are comparisons, defined for NaN (a NaN point reaches every cell), so that the
/// WGSL twin computes the same on every driver.
pub fn cell_within_reach(p: Vec3, cell: [i32; 3], cell_size: f32, reach: f32) -> bool {
    let low = Vec3::new(cell[0] as f32, cell[1] as f32, cell[2] as f32) * cell_size;
    let (below, above) = (low - p, p - (low + cell_size));
    let far = Vec3::select(below.cmpgt(above), below, above);
    let gap = Vec3::select(far.cmpgt(Vec3::ZERO), far, Vec3::ZERO);
    gap.dot(gap) < reach * reach
}

/// Displacement `q` of a particle at `r` from the reference point whose departure from the
/// rigid displacement `motion.at(r)` is shortened to at most `limit` long; `q` itself (every bit)
/// when it departs less.
pub fn limit_deformation(q: Vec3, r: Vec3, motion: &RigidMotion, limit: f32) -> Vec3 {
    let rigid = motion.at(r);
    let departure = q - rigid;
    let length = departure.length();
    if length > limit {
        rigid + departure * (limit / length)
    } else {
        q
    }
}

/// What gives back the momentum the deformation limit took, at `r` from the reference point:
/// the rigid motion of the displacements before the limit, `around`, less that of the limited
/// displacements, `limited`. Their difference is the rigid motion of what the limit removed
/// (PBD §3.5's sums are linear in the displacements, over the same positions and masses, so the
/// two share their centre), so adding it to every free particle restores the free particles'
/// linear momentum, and their angular momentum unless their inertia is singular (then neither
/// motion turns). It moves a pair apart only by the small rotation of what was removed. Taken as
/// differences of the motions' parts, it is zero, every bit, when the limit shortened nothing:
/// the two motions are then summed from the same displacements.
pub fn momentum_restored(r: Vec3, around: &RigidMotion, limited: &RigidMotion) -> Vec3 {
    let turn = around.angular_velocity - limited.angular_velocity;
    (around.velocity - limited.velocity) + turn.cross(r - limited.centre)
}

/// What one contact moves particle `i` by: `i` at `p_i` (displacement `q_i`, inverse mass
/// `w_i > 0`) against `j`, or `None` when they are at least `h` apart or coincide (no
/// direction). The pair is pushed to `h` apart along `p_i − p_j`, `i` taking the share
/// `w_i / (w_i + w_j)` (PBD §3.3 eq. 9 for `C = |p_i − p_j| − h ≥ 0`), and friction takes up
/// to `μ·depth` of its relative tangential displacement ([`friction_kept`]), with the same
/// share.
pub fn pair_correction(
    p_i: Vec3,
    p_j: Vec3,
    q_i: Vec3,
    q_j: Vec3,
    w_i: f32,
    w_j: f32,
    params: &SelfCollision,
) -> Option<Vec3> {
    let h = params.thickness;
    let d = p_i - p_j;
    let distance_squared = d.dot(d);
    let distance = distance_squared.sqrt();
    // Not `distance_squared >= h²`: a NaN distance is no contact either.
    let close = distance_squared < h * h;
    if !close || distance <= GEOMETRY_EPSILON {
        return None;
    }
    let normal = d / distance;
    let depth = h - distance;
    let share = w_i / (w_i + w_j);
    let relative = q_i - q_j;
    let tangential = relative - normal * normal.dot(relative);
    let kept = friction_kept(tangential.length(), depth, params);
    Some((normal * depth - tangential * kept) * share)
}

/// The fraction of a contact's relative tangential displacement (`slide` long) its friction
/// removes: all of it while `slide ≤ μ·depth`, otherwise `μ·depth` of it — Coulomb's law in
/// positions with one coefficient, as Bridson et al. 2002 give cloth layers.
///
/// Not a static and a kinetic coefficient (Macklin et al. 2014, eq. 24), as the colliders
/// have: with `μ_k < μ_s` the removed slide drops from `μ_s·depth` to `μ_k·depth` the moment
/// the slide passes `μ_s·depth`, and a layer whose friction load settles at that limit
/// stick-slips by micrometres every few substeps, millimetres per second. A strip folded on
/// itself did so in every mode (0.3/0.2: Jacobi 1–4 mm/s, mass-spring 1–5 mm/s; 0.5/0.2:
/// Gauss-Seidel 7 mm/s); with one coefficient each comes to rest (≤ 3·10⁻⁵ m/s).
pub fn friction_kept(slide: f32, depth: f32, params: &SelfCollision) -> f32 {
    (params.friction * depth / slide.max(GEOMETRY_EPSILON)).min(1.0)
}

/// A spatial hash of points: bucket `b` holds the points `entries[starts[b]..starts[b + 1]]`,
/// by increasing index (what the GPU builds by count, prefix sum, scatter and sort).
#[derive(Debug, Clone)]
pub struct SpatialHash {
    starts: Vec<u32>,
    entries: Vec<u32>,
    cell_size: f32,
}

impl SpatialHash {
    /// Hashes `points` into `table_size` buckets (a power of two) of cells `cell_size` wide.
    pub fn new(points: &[Vec3], cell_size: f32, table_size: u32) -> Self {
        let buckets: Vec<u32> = points.iter().map(|&p| cell_hash(cell_of(p, cell_size), table_size)).collect();
        let mut starts = vec![0u32; table_size as usize + 1];
        for &b in &buckets {
            starts[b as usize + 1] += 1;
        }
        for b in 0..table_size as usize {
            starts[b + 1] += starts[b];
        }
        let mut cursors = starts.clone();
        let mut entries = vec![0u32; points.len()];
        for (i, &b) in buckets.iter().enumerate() {
            entries[cursors[b as usize] as usize] = i as u32;
            cursors[b as usize] += 1;
        }
        Self { starts, entries, cell_size }
    }

    /// The edge of its cells.
    pub fn cell_size(&self) -> f32 {
        self.cell_size
    }

    /// Its buckets (a power of two).
    pub fn table_size(&self) -> u32 {
        self.starts.len() as u32 - 1
    }

    /// The points in bucket `bucket`, by increasing index.
    pub fn bucket(&self, bucket: u32) -> &[u32] {
        let b = bucket as usize;
        &self.entries[self.starts[b] as usize..self.starts[b + 1] as usize]
    }
}

/// One substep's self-collision on `state` of the mesh `mesh` of `cloths`, whose particles are
/// `spacing` apart ([`particle_spacing`]), each pair of cloths keeping what `contacts` says
/// (the reference of the GPU's kernels): limits the free particles' deformation around their own
/// cloth's rigid motion, then moves each particle by the sum of its pair and triangle contacts'
/// corrections, all computed from the limited state, and each free particle by the momentum the
/// limit took ([`momentum_restored`]). Returns the particles and triangles that met a full
/// bucket, too many columns, steps, candidates or triangle-contact corrections.
pub fn collide_self(
    state: &mut SolveState,
    mesh: &ClothMesh,
    cloths: &[Cloth],
    spacing: f32,
    contacts: &ClothContacts,
) -> u32 {
    debug_assert_eq!(cloths.last().map_or(0, |c| c.indices().end), state.positions.len());
    let around = limit_deformations(state, cloths, contacts);
    let limited: Vec<RigidMotion> = cloths.iter().map(|cloth| free_rigid_motion(state, cloth)).collect();
    let n = state.positions.len();
    let predicted: Vec<Vec3> = (0..n).map(|i| state.position(i)).collect();
    let hash = SpatialHash::new(&predicted, contacts.cell_size(spacing), hash_table_size(n));
    let rest = &mesh.positions;
    let mut overflows = 0u32;
    let corrections: Vec<Vec3> = (0..n)
        .map(|i| {
            if state.inverse_masses[i] == 0.0 {
                return Vec3::ZERO;
            }
            let (correction, overflow) = particle_correction(i, state, &predicted, rest, &hash, contacts);
            overflows += u32::from(overflow);
            correction
        })
        .collect();
    let mut sums = vec![IVec4::ZERO; n];
    overflows += add_triangle_contacts(state, &predicted, mesh, &hash, contacts, &mut sums);
    let exponent = fixed_point_exponent(contacts.largest_thickness());
    for (c, cloth) in cloths.iter().enumerate() {
        let reference = state.positions[cloth.indices().start];
        for i in cloth.indices() {
            let triangles = summed_correction(sums[i], exponent).unwrap_or_else(|| {
                overflows += 1;
                Vec3::ZERO
            });
            let restored = if state.inverse_masses[i] > 0.0 {
                momentum_restored(state.positions[i] - reference, &around[c], &limited[c])
            } else {
                Vec3::ZERO
            };
            state.displacements[i] = state.displacements[i] + corrections[i] + triangles + restored;
        }
    }
    overflows
}

/// The rigid motion of `cloth`'s free particles' displacements, summed in index order about its
/// first particle (the GPU sums the same terms in a fixed tree: they differ by rounding, which
/// reaches only the particles the limit moves and the momentum it gives back).
fn free_rigid_motion(state: &SolveState, cloth: &Cloth) -> RigidMotion {
    let range = cloth.indices();
    let (positions, displacements) = (&state.positions[range.clone()], &state.displacements[range.clone()]);
    rigid_motion(&free_particle_moments(positions, displacements, &state.inverse_masses[range]))
}

/// Limits each free particle's departure from the rigid motion of its cloth's free particles'
/// displacements ([`limit_deformation`]) to its cloth's [`ClothContacts::max_displacement`], and
/// returns each cloth's motion.
fn limit_deformations(state: &mut SolveState, cloths: &[Cloth], contacts: &ClothContacts) -> Vec<RigidMotion> {
    let mut motions = Vec::with_capacity(cloths.len());
    for (c, cloth) in cloths.iter().enumerate() {
        let limit = contacts.max_displacement(c as u32);
        let motion = free_rigid_motion(state, cloth);
        let reference = state.positions[cloth.indices().start];
        for i in cloth.indices().filter(|&i| state.inverse_masses[i] > 0.0) {
            let r = state.positions[i] - reference;
            state.displacements[i] = limit_deformation(state.displacements[i], r, &motion, limit);
        }
        motions.push(motion);
    }
    motions
}

/// Particle `i`'s contact correction (the sum over its contacts), and whether it overflowed a
/// capacity. Cells that share a bucket each take their own particles from it, so each particle
/// is examined once. The cells and candidates within its cloth's reach
/// ([`ClothContacts::reach`]) are examined, each contact at its pair's thickness; only particles
/// of one cloth can be neighbours at rest.
fn particle_correction(
    i: usize,
    state: &SolveState,
    predicted: &[Vec3],
    rest: &[Vec3],
    hash: &SpatialHash,
    contacts: &ClothContacts,
) -> (Vec3, bool) {
    let cloth = contacts.particle_cloth(i);
    let reach = contacts.reach(cloth);
    let mut sum = Vec3::ZERO;
    let mut examined = 0u32;
    let mut overflow = false;
    let cell_size = hash.cell_size();
    'cells: for cell in query_cells(predicted[i], cell_size) {
        if !cell_within_reach(predicted[i], cell, cell_size, reach) {
            continue;
        }
        let entries = hash.bucket(cell_hash(cell, hash.table_size()));
        if entries.len() > MAX_BUCKET_ENTRIES as usize {
            overflow = true;
            continue;
        }
        for &j in entries {
            let j = j as usize;
            if j == i || cell_of(predicted[j], cell_size) != cell {
                continue;
            }
            examined += 1;
            if examined > MAX_CANDIDATES {
                overflow = true;
                break 'cells;
            }
            // Most candidates are out of reach: rejected before reading their state (the GPU
            // reads it only then).
            let d = predicted[i] - predicted[j];
            let within = d.dot(d) < reach * reach; // false for NaN
            if !within {
                continue;
            }
            let pair = contacts.between(cloth, contacts.particle_cloth(j));
            let (q_i, q_j) = (state.displacements[i], state.displacements[j]);
            let (w_i, w_j) = (state.inverse_masses[i], state.inverse_masses[j]);
            let Some(c) = pair_correction(predicted[i], predicted[j], q_i, q_j, w_i, w_j, &pair) else {
                continue;
            };
            let apart_at_rest = rest[i] - rest[j];
            if !contacts.same_cloth(i, j) || apart_at_rest.dot(apart_at_rest) >= pair.thickness * pair.thickness {
                sum += c;
            }
        }
    }
    (sum, overflow)
}

/// The self-collision pass: ten dispatches per substep (eleven on a CPU adapter), after the
/// tethers (the rigid motion in two, the hash rebuilt in four with the limited displacements'
/// rigid motion in two after its first, the particle and triangle contacts, their application).
#[derive(Debug, Clone, Default)]
pub(crate) struct SelfCollisionPass {
    /// The cloth's particle spacing ([`particle_spacing`]), measured the first time
    /// self-collision is on, when its buffers are made.
    spacing: Option<f32>,
    /// While self-collision is on, the solver's contact and what each pair of cloths keeps with
    /// it (made again only when the solver's contact changes).
    contacts: Option<(SelfCollision, ClothContacts)>,
}

impl Pass for SelfCollisionPass {
    fn name(&self) -> &'static str {
        "self_collision"
    }

    fn stage(&self) -> Stage {
        Stage::Substep
    }

    fn shaders(&self, build: &Build) -> Vec<Shader> {
        let [x, y, z] = HASH_PRIMES;
        let constants = vec![
            Constant::u32("UNIFORM_CONTACTS", u32::from(build.uniform_contacts)),
            Constant::u32("MAX_BUCKET_ENTRIES", MAX_BUCKET_ENTRIES),
            Constant::u32("SCAN_BLOCK", SCAN_BLOCK),
            Constant::u32("MAX_CANDIDATES", MAX_CANDIDATES),
            Constant::f32("CELL_LIMIT", CELL_LIMIT),
            Constant::u32("HASH_PRIME_X", x),
            Constant::u32("HASH_PRIME_Y", y),
            Constant::u32("HASH_PRIME_Z", z),
        ];
        vec![Shader {
            label: "self-collision",
            constants: constants.into_iter().chain(triangles::wgsl_constants()).collect(),
            groups: vec![&SOLVE, &SELF_COLLISION],
            parts: vec![
                Part::File(CLOTH_MOTION_WGSL),
                Part::File(wgsl_file!("passes/self_collision.wgsl")),
                Part::File(triangles::WGSL),
            ],
            structs: vec![GpuSpatialHashHead::LAYOUT, GpuClothMotion::LAYOUT],
            block: Some(("self_collision", GpuSelfCollisionParams::LAYOUT)),
            kernels: [
                "hash_count",
                "hash_block_starts",
                "hash_scatter",
                "hash_sort_buckets",
                "self_contacts",
                "pair_contacts",
                "triangle_contacts",
                "apply_self_contacts",
            ]
            .map(Kernel::plain)
            .to_vec(),
        }]
    }

    /// Measures the particle spacing and makes the hash table (zeroed), the hashed particles and
    /// the corrections the first time self-collision is on; writes the rest shape with what each
    /// pair of cloths keeps whenever it is on (the solver's thickness and friction may change).
    fn prepare(&mut self, setup: &Setup, uploads: &mut Uploads) -> Result<(), Error> {
        let (model, params) = (setup.model, setup.params);
        let n = model.particle_count();
        if params.self_collision.is_some() && self.spacing.is_none() {
            // New buffers start zeroed: the hash table's buckets and sums are zero between
            // substeps.
            uploads.reserve("hash_table", hash_table_bytes(n));
            uploads.reserve("hashed", 32 * n as u64);
            uploads.reserve("self_corrections", 16 * n as u64);
            self.spacing = Some(particle_spacing(model.mesh()));
        }
        let kept = self.contacts.as_ref().map(|(defaults, _)| *defaults);
        if params.self_collision != kept {
            self.contacts = params.self_collision.map(|defaults| (defaults, ClothContacts::new(model, &defaults)));
            if let Some((_, contacts)) = &self.contacts {
                uploads.write("rest_shape", || bytemuck::cast_slice(&rest_shape(model, contacts)).to_vec());
            }
        }
        if params.self_collision.is_some() {
            prepare_rigid_motions(model, uploads);
        }
        let contacts = self.contacts.as_ref().map(|(_, contacts)| contacts).zip(self.spacing);
        uploads.block("self_collision", || GpuSelfCollisionParams {
            largest_thickness: contacts.map_or(0.0, |(c, _)| c.largest_thickness()),
            smallest_thickness: contacts.map_or(0.0, |(c, _)| c.smallest_thickness()),
            cell_size: contacts.map_or(0.0, |(c, spacing)| c.cell_size(spacing)),
            fixed_point_exponent: contacts.map_or(0, |(c, _)| fixed_point_exponent(c.largest_thickness())),
            hash_table_size: hash_table_size(n),
            triangle_count: model.mesh().triangles.len() as u32,
            cloth_count: model.cloths().len() as u32,
            friction: params.self_collision.map_or(0.0, |s| s.friction),
        });
        Ok(())
    }

    /// The rigid motion of the displacements in two dispatches (rigid damping's kernels), the
    /// hash rebuilt from the limited predicted positions in four (count, which limits the
    /// displacements, keeps the motion they were limited around and counts each block of
    /// buckets, then the limited displacements' rigid motion in two more; the prefix sum, a
    /// workgroup per block of buckets; scatter; sort each bucket), the particle and the triangle
    /// contacts in one (in two on a CPU adapter), then their application with the momentum the
    /// limit took (which also clears the table's buckets, blocks and sums).
    fn dispatch(&self, setup: &Setup, plan: &mut FramePlan, _substep: u32) -> Result<(), LayoutRefused> {
        if setup.params.self_collision.is_none() {
            return Ok(());
        }
        let particles = setup.model.particle_count() as u32;
        let triangles = setup.model.mesh().triangles.len() as u32;
        let buckets = hash_table_size(particles as usize);
        let whole = DispatchInfo::zeroed();
        push_rigid_motions(setup.model, plan);
        plan.push("hash_count", whole, workgroups_for(particles));
        push_rigid_motions(setup.model, plan);
        let blocks = grid_of(buckets.div_ceil(SCAN_BLOCK));
        plan.push("hash_block_starts", whole, blocks);
        plan.push("hash_scatter", whole, workgroups_for(particles));
        plan.push("hash_sort_buckets", whole, workgroups_for(buckets));
        if plan.facts.cpu {
            // A CPU adapter ran the two searches in one dispatch 11 % slower (lavapipe, the
            // stack at 64²): it has no idle cores to fill.
            plan.push("pair_contacts", whole, workgroups_for(particles));
            plan.push("triangle_contacts", whole, workgroups_for(triangles));
        } else {
            // The particles' workgroups, then the triangles'.
            let searches = particles.next_multiple_of(WORKGROUP_SIZE) + triangles;
            plan.push("self_contacts", whole, workgroups_for(searches));
        }
        plan.push("apply_self_contacts", whole, workgroups_for(particles.max(buckets + 1)));
        Ok(())
    }

    fn run_cpu(&mut self, setup: &Setup, frame: &mut CpuFrame, _substep: u32) {
        if let Some((_, contacts)) = &self.contacts {
            let spacing = self.spacing.expect("measured when self-collision was turned on");
            let overflows = collide_self(frame.solve, setup.model.mesh(), setup.model.cloths(), spacing, contacts);
            // Wraps like the GPU's atomic counter.
            frame.overflows.self_contacts = frame.overflows.self_contacts.wrapping_add(overflows);
        }
    }
}

/// Bytes of the hash table of `particles` particles: its head, [`hash_table_size`] + 1 bucket
/// starts, each particle's fixed-point sum of triangle-contact corrections (xyz) and their
/// count, then each scan block's total of bucket counts.
fn hash_table_bytes(particles: usize) -> u64 {
    let buckets = hash_table_size(particles) as usize;
    let blocks = buckets.div_ceil(SCAN_BLOCK as usize);
    (size_of::<GpuSpatialHashHead>() + 4 * (buckets + 1 + 4 * particles + blocks)) as u64
}

/// The rest shape with what each pair of cloths keeps (`rest_shape` in WGSL): each rest
/// position's bits with its particle's cloth, each triangle's corners with its cloth, then
/// [`ClothContacts::gpu_words`], four to an entry.
fn rest_shape(model: &ClothModel, contacts: &ClothContacts) -> Vec<[u32; 4]> {
    let mesh = model.mesh();
    let positions = (mesh.positions.iter().enumerate())
        .map(|(i, p)| [p.x.to_bits(), p.y.to_bits(), p.z.to_bits(), contacts.particle_cloth(i)]);
    let triangles = (mesh.triangles.iter().enumerate()).map(|(t, &[a, b, c])| [a, b, c, contacts.triangle_cloth(t)]);
    let words = contacts.gpu_words();
    let table = words.chunks(4).map(|chunk| std::array::from_fn(|k| chunk.get(k).copied().unwrap_or(0)));
    positions.chain(triangles).chain(table).collect()
}

/// Group 2 of self-collision.
static SELF_COLLISION: BindingTable = BindingTable {
    label: "self-collision",
    bindings: &[
        Binding::read_write(
            "hash_table",
            "SpatialHashTable",
            size_of::<GpuSpatialHashHead>() as u64 + 4,
            "The hash table (its head, with the overflow count, then the bucket starts and four\n\
             fixed-point sum words per particle).",
        ),
        Binding::read_write(
            "hashed",
            "array<vec4<u32>>",
            16,
            "Slots 0 to n − 1: each slot s's particle (x) and its predicted position's bits (yzw), each\n\
             bucket's slots sorted by particle index, so that a particle's candidates are read in one\n\
             run. Entries n to 2n − 1, per particle i: its bucket (x) and its rank in the bucket by\n\
             arrival (y).",
        ),
        Binding::read_write(
            "self_corrections",
            "array<vec4<f32>>",
            16,
            "Each particle's contact correction of the substep (xyz).",
        ),
        CLOTH_MOTIONS,
        Binding::read(
            "rest_shape",
            "array<vec4<u32>>",
            16,
            "The rest positions' bits (xyz) and cloth (w), one per particle: pairs of one cloth closer than\n\
             its thickness at rest never collide. Then each triangle's corners (xyz) and cloth (w). Then\n\
             four words to an entry, each cloth's thickness, then the friction of cloths a and b at\n\
             a * cloth_count + b (f32 bits; src/passes/self_collision/cloth_contacts.rs).",
        ),
    ],
};

/// The head of `SpatialHashTable` in WGSL, before its bucket starts.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuSpatialHashHead {
    /// Particle and triangle substeps that overflowed a self-collision capacity
    /// ([`crate::metrics::Overflows::self_contacts`]).
    pub overflow: u32,
    /// Aligns the buckets to 16 bytes.
    pub _pad: [u32; 3],
}

impl GpuSpatialHashHead {
    /// The layout its WGSL twin (the members before the starts) must have.
    pub const LAYOUT: StructLayout = struct_layout!(GpuSpatialHashHead as "SpatialHashTable" tail "starts", overflow);
}

/// `SelfCollisionParams` in WGSL.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuSelfCollisionParams {
    /// [`ClothContacts::largest_thickness`] (m), zero while off.
    pub largest_thickness: f32,
    /// [`ClothContacts::smallest_thickness`] (m), zero while off.
    pub smallest_thickness: f32,
    /// The triangle contacts' fixed-point exponent ([`fixed_point_exponent`]).
    pub fixed_point_exponent: i32,
    /// Buckets of the hash table ([`hash_table_size`]).
    pub hash_table_size: u32,
    /// The cloth's triangles.
    pub triangle_count: u32,
    /// The edge of a hash cell ([`ClothContacts::cell_size`]), zero while off.
    pub cell_size: f32,
    /// The model's cloths (entries of `cloth_motions`).
    pub cloth_count: u32,
    /// [`SelfCollision::friction`] of the solver's contact: every pair's where every cloth keeps
    /// it ([`Build::uniform_contacts`]; their thickness is then the largest), else unread.
    pub friction: f32,
}

impl GpuSelfCollisionParams {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout = struct_layout!(
        GpuSelfCollisionParams as "SelfCollisionParams",
        largest_thickness,
        smallest_thickness,
        fixed_point_exponent,
        hash_table_size,
        triangle_count,
        cell_size,
        cloth_count,
        friction
    );
}
