//! The mass-spring cloth, a baseline to compare PBD and XPBD with (pbd-game-physics-notes.zh.md,
//! "经典牛顿力学应用"; GAMES103 lab 1): particles joined by Hookean springs with damping along
//! them, integrated by semi-implicit Euler, `v ← v + h·M⁻¹F(x, v)`, `x ← x + h·v`. Nothing is
//! projected, so the cloth is as stiff as its springs and only stable while the substep is short
//! enough for them ([`SpringNetwork::check_stability`]): the limit that position-based solvers
//! remove.
//!
//! The springs of a triangle mesh, generalising the notes' grid. A *quad diagonal* is an interior
//! edge clearly the longest side of both its triangles (a quad split in two: a grid's
//! diagonals; an equilateral mesh has none). **Structural** springs run along every other edge;
//! **shear** springs along each quad diagonal and across its quad (the other diagonal);
//! **flexion** springs join the far ends of two structural edges that meet nearly straight at a
//! vertex. On a grid these are the notes' springs: the four neighbours, the diagonals and the
//! neighbours one further. Each particle sums the forces of its springs in a fixed order, so the
//! GPU kernel (`shaders/passes/springs.wgsl`) gathers without atomics.
//!
//! A flexion spring spans a straight pair of edges: folding the pair by `θ` shortens it by only
//! about `ℓθ²/4`, so it has no stiffness against small bends and resists folds with an energy
//! growing as `θ⁴` — the classic spring cloth's weak, nonlinear bending.

use super::plan::{workgroups_for, DispatchInfo, FramePlan};
use super::{Build, CpuFrame, Kernel, LayoutRefused, Part, Pass, Setup, Shader, Stage, Uploads, SOLVE};
use crate::error::{Error, ParamError};
use crate::graph::Csr;
use crate::math::GEOMETRY_EPSILON;
use crate::mesh::{ClothMesh, MeshEdge};
use crate::model::ClothModel;
use crate::params::{MassSpringParams, SolverMode, MAX_SUBSTEPS};
use crate::struct_layout;
use crate::wgsl::{Binding, BindingTable, Constant, StructLayout};
use crate::wgsl_file;
use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use std::collections::HashSet;
use std::sync::Arc;

/// Two edges meeting at a vertex at this angle or straighter (cos ≤ −cos 30°, i.e. ≥ 150°)
/// carry a flexion spring between their far ends.
const FLEXION_MAX_COSINE: f32 = -0.866;
/// A quad diagonal is longer than each other side of its triangles by at least this factor (a
/// grid's by √2; an equilateral mesh's edges tie).
const DIAGONAL_MARGIN: f32 = 1.05;

/// Where a spring's GPU entry keeps its kind: the bits of the other particle's index from this
/// one up (`SPRING_KIND_SHIFT` in `shaders/passes/springs.wgsl`, with the mask of the bits below).
pub const SPRING_KIND_SHIFT: u32 = 30;
const _: () = assert!(crate::mesh::MAX_VERTICES <= 1 << SPRING_KIND_SHIFT);

impl MassSpringParams {
    /// The stiffness of springs of `kind`.
    pub fn stiffness(&self, kind: SpringKind) -> f32 {
        match kind {
            SpringKind::Structural => self.structural,
            SpringKind::Shear => self.shear,
            SpringKind::Flexion => self.flexion,
        }
    }

    /// `[structural, shear, flexion, damping]` as the kernel reads them (indexed by
    /// [`SpringKind::id`], damping last).
    pub fn gpu_constants(&self) -> [f32; 4] {
        let [structural, shear, flexion] = SpringKind::ALL.map(|kind| self.stiffness(kind));
        [structural, shear, flexion, self.damping]
    }
}

/// What a spring models.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpringKind {
    /// Along an edge: stretch and compression.
    Structural,
    /// Along a quad's diagonals: shear.
    Shear,
    /// Over two nearly straight structural edges: folds.
    Flexion,
}

impl SpringKind {
    /// Every kind, in id order.
    pub const ALL: [SpringKind; 3] = [Self::Structural, Self::Shear, Self::Flexion];

    /// Its index in [`MassSpringParams::gpu_constants`] (bits 30–31 of its GPU entries).
    pub fn id(self) -> u32 {
        self as u32
    }
}

/// One spring between two particles, at its rest length (m).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spring {
    /// The particles it joins.
    pub ends: [u32; 2],
    /// What it models.
    pub kind: SpringKind,
    /// Its length in the rest state, m.
    pub rest_length: f32,
}

impl Spring {
    /// The end that is not `end` (one of its ends).
    pub fn other(&self, end: u32) -> u32 {
        debug_assert!(self.ends.contains(&end), "{end} is not an end of {self:?}");
        if self.ends[0] == end {
            self.ends[1]
        } else {
            self.ends[0]
        }
    }
}

/// The springs of a cloth and, per particle, its springs in ascending order (the order both the
/// CPU reference and the kernel sum their forces in).
#[derive(Debug, Clone, PartialEq)]
pub struct SpringNetwork {
    springs: Vec<Spring>,
    incident: Csr,
    /// The model's particle masses (kg), for the stability bound.
    masses: Vec<f32>,
}

impl SpringNetwork {
    /// The springs of `model`'s mesh (see the module docs): structural and shear in edge order,
    /// then flexion by vertex. No pair of particles gets two springs.
    pub fn new(model: &ClothModel) -> Self {
        let mesh = model.mesh();
        let positions = &mesh.positions;
        let edges = mesh.edges().expect("a model's mesh is validated");
        let mut springs = Vec::new();
        let mut joined = HashSet::new();
        let mut add = |a: u32, b: u32, kind| {
            if a != b && joined.insert((a.min(b), a.max(b))) {
                let rest_length = positions[a as usize].distance(positions[b as usize]);
                springs.push(Spring { ends: [a, b], kind, rest_length });
            }
        };
        let mut structural = Vec::new();
        for edge in &edges {
            match quad(mesh, edge) {
                Some([c, d]) => {
                    add(edge.a, edge.b, SpringKind::Shear);
                    add(c, d, SpringKind::Shear);
                }
                None => {
                    add(edge.a, edge.b, SpringKind::Structural);
                    structural.extend([(edge.a, edge.b), (edge.b, edge.a)]);
                }
            }
        }
        let n = positions.len();
        let neighbours = Csr::from_pairs(n, structural.iter().copied());
        for v in 0..n {
            let row = neighbours.row(v);
            for (k, &u) in row.iter().enumerate() {
                for &w in &row[k + 1..] {
                    if straight(positions[u as usize], positions[v], positions[w as usize]) {
                        add(u, w, SpringKind::Flexion);
                    }
                }
            }
        }
        let incident =
            Csr::from_pairs(n, springs.iter().enumerate().flat_map(|(s, spring)| spring.ends.map(|p| (p, s as u32))));
        Self { springs, incident, masses: model.masses().to_vec() }
    }

    /// Every spring.
    pub fn springs(&self) -> &[Spring] {
        &self.springs
    }

    /// How many springs are of `kind`.
    pub fn count(&self, kind: SpringKind) -> usize {
        self.springs.iter().filter(|s| s.kind == kind).count()
    }

    /// Particle `i`'s acceleration from its springs (m/s²), summed in its list's order; zero for
    /// a pinned particle (`inverse_masses[i] == 0`).
    ///
    /// # Panics
    /// If `i` or a neighbour of it is not a particle of `state` (a state of another cloth).
    pub fn acceleration(&self, params: &MassSpringParams, state: &ParticleState, i: usize) -> Vec3 {
        let w = state.inverse_masses[i];
        if w == 0.0 {
            return Vec3::ZERO;
        }
        let force = self.incident.row(i).iter().fold(Vec3::ZERO, |sum, &s| {
            let spring = &self.springs[s as usize];
            let j = spring.other(i as u32) as usize;
            let k = params.stiffness(spring.kind);
            sum + spring_force(state.end(i), state.end(j), spring.rest_length, k, params.damping)
        });
        force * w
    }

    /// How many words [`SpringNetwork::words`] has.
    pub fn word_count(&self) -> usize {
        self.incident.rows() + 1 + 2 * self.incident.items().len()
    }

    /// The kernel's words (`springs` in `shaders/passes/springs.wgsl`): each particle's list offset
    /// (one more than particles), then per list entry the other particle with the spring's kind
    /// in bits 30–31, and the rest length's bits.
    pub fn words(&self) -> Vec<u32> {
        let n = self.incident.rows();
        let mut words: Vec<u32> = self.incident.words()[..=n].to_vec();
        for i in 0..n {
            for &s in self.incident.row(i) {
                let spring = &self.springs[s as usize];
                words.extend([
                    spring.other(i as u32) | spring.kind.id() << SPRING_KIND_SHIFT,
                    spring.rest_length.to_bits(),
                ]);
            }
        }
        words
    }

    /// Semi-implicit Euler's stability number for substep `h` (s): `h²·K + 2h·C`, where `K` and
    /// `C` bound the largest eigenvalues of the springs' stiffness and damping matrices over the
    /// masses (Gershgorin on `M^(−½)·K·M^(−½)`: each row sums `k(1/m_i + 1/√(m_i·m_j))` over its
    /// springs, a spring's Hessian having norm `k` at any stretch and down to half its rest
    /// length). One oscillator `x'' = −ω²x − γx'` is stable under semi-implicit Euler while
    /// `h²ω² + 2hγ < 4`; the solvers accept a number up to [`STABILITY_LIMIT`]. Every particle
    /// counts as free, so the verdict holds whatever is pinned. Infinite for a substep that is
    /// not positive or for constants [`MassSpringParams::validate`] refuses.
    pub fn stability_number(&self, params: &MassSpringParams, h: f32) -> f32 {
        if !(h.is_finite() && h > 0.0) || params.validate().is_err() {
            return f32::INFINITY;
        }
        let (mut stiffness, mut damping) = (0.0f64, 0.0f64);
        for i in 0..self.incident.rows() {
            let (mut k_row, mut c_row) = (0.0, 0.0);
            for &s in self.incident.row(i) {
                let spring = &self.springs[s as usize];
                let (m_i, m_j) = (f64::from(self.masses[i]), f64::from(self.masses[spring.other(i as u32) as usize]));
                let coupling = 1.0 / m_i + 1.0 / (m_i * m_j).sqrt();
                k_row += f64::from(params.stiffness(spring.kind)) * coupling;
                c_row += f64::from(params.damping) * coupling;
            }
            stiffness = stiffness.max(k_row);
            damping = damping.max(c_row);
        }
        let h = f64::from(h);
        (h * h * stiffness + 2.0 * h * damping) as f32
    }

    /// The fewest substeps (up to `max_substeps`) of a frame of `time_step` seconds at which
    /// [`SpringNetwork::check_stability`] accepts `params`; `None` when even `max_substeps` are
    /// too few (or the time step is not positive).
    pub fn min_stable_substeps(&self, params: &MassSpringParams, time_step: f32, max_substeps: u32) -> Option<u32> {
        let stable = |s: u32| self.stability_number(params, time_step / s as f32) <= STABILITY_LIMIT;
        // The number falls as substeps rise: bisect for the first stable count.
        if max_substeps == 0 || !stable(max_substeps) {
            return None;
        }
        let (mut unstable, mut fewest) = (0, max_substeps);
        while fewest - unstable > 1 {
            let middle = (unstable + fewest) / 2;
            if stable(middle) {
                fewest = middle;
            } else {
                unstable = middle;
            }
        }
        Some(fewest)
    }

    /// Rejects springs too stiff or too damped for `substeps` substeps of a `time_step` frame
    /// ([`SpringNetwork::stability_number`] above [`STABILITY_LIMIT`]), saying how many substeps
    /// (up to `max_substeps`) would do.
    pub fn check_stability(
        &self,
        params: &MassSpringParams,
        time_step: f32,
        substeps: u32,
        max_substeps: u32,
    ) -> Result<(), ParamError> {
        let number = self.stability_number(params, time_step / substeps as f32);
        if number <= STABILITY_LIMIT {
            return Ok(());
        }
        let advice = match self.min_stable_substeps(params, time_step, max_substeps) {
            Some(fewest) => format!("stable from {fewest} substeps"),
            None => format!("unstable even at {max_substeps} substeps"),
        };
        Err(ParamError {
            name: "mode (mass-spring stability)",
            value: format!("springs with h²K + 2hC = {number:.3} at {substeps} substeps ({advice})"),
            expected: "h²K + 2hC ≤ 3.6, semi-implicit Euler's stability limit with a margin: raise the substeps or \
                       soften the springs or their damping",
        })
    }
}

/// The largest [`SpringNetwork::stability_number`] the solvers accept: 90 % of the bound 4. The
/// bound is exact for one oscillator and for damping proportional to stiffness; the margin
/// covers damping that is not (one damping constant for springs of three stiffnesses), springs
/// compressed below half their rest length, and rounding. Measured: a grid's cloth blows up by
/// 1.5 times the accepted substep (`tests/mass_spring.rs`).
pub const STABILITY_LIMIT: f32 = 3.6;

/// What a spring force reads of a particle: its position and velocity.
#[derive(Debug, Clone, Copy)]
pub struct SpringEnd {
    /// Position (m).
    pub position: Vec3,
    /// Velocity (m/s).
    pub velocity: Vec3,
}

/// The particles' positions, velocities and inverse masses at the start of a substep.
#[derive(Debug, Clone, Copy)]
pub struct ParticleState<'a> {
    /// Positions (m).
    pub positions: &'a [Vec3],
    /// Velocities (m/s).
    pub velocities: &'a [Vec3],
    /// Inverse masses (0 = pinned).
    pub inverse_masses: &'a [f32],
}

impl ParticleState<'_> {
    fn end(&self, i: usize) -> SpringEnd {
        SpringEnd { position: self.positions[i], velocity: self.velocities[i] }
    }
}

/// The force on `end` of a spring to `other` with rest length `rest` (m), stiffness `k` (N/m)
/// and damping `c` (N·s/m): Hooke's `k(L − L₀)` plus `c` times the ends' closing speed, along
/// the spring `d̂ = (x_other − x)/L`. Zero for ends closer than [`GEOMETRY_EPSILON`], which have
/// no direction.
pub fn spring_force(end: SpringEnd, other: SpringEnd, rest: f32, k: f32, c: f32) -> Vec3 {
    let delta = other.position - end.position;
    let length = delta.length();
    if length < GEOMETRY_EPSILON {
        return Vec3::ZERO;
    }
    let direction = delta / length;
    let tension = k * (length - rest) + c * (other.velocity - end.velocity).dot(direction);
    direction * tension
}

/// The wing pair `[c, d]` of `edge` when it is a quad diagonal: interior, and longer than each
/// other side of both its triangles by [`DIAGONAL_MARGIN`].
fn quad(mesh: &ClothMesh, edge: &MeshEdge) -> Option<[u32; 2]> {
    let right = edge.right?;
    let positions = &mesh.positions;
    let length = |a: u32, b: u32| positions[a as usize].distance(positions[b as usize]);
    let diagonal = length(edge.a, edge.b);
    let wings = [edge.left, right].map(|t| opposite(mesh.triangles[t as usize], edge));
    let clearly_longest = wings
        .iter()
        .all(|&c| diagonal >= DIAGONAL_MARGIN * length(edge.a, c) && diagonal >= DIAGONAL_MARGIN * length(edge.b, c));
    clearly_longest.then_some(wings)
}

/// The vertex of `triangle` not on `edge`.
fn opposite(triangle: [u32; 3], edge: &MeshEdge) -> u32 {
    triangle.into_iter().find(|&v| v != edge.a && v != edge.b).expect("a triangle has a vertex off each of its edges")
}

/// Whether the edges `v–u` and `v–w` continue each other nearly straight (at least 150°).
fn straight(u: Vec3, v: Vec3, w: Vec3) -> bool {
    let (a, b) = (u - v, w - v);
    a.dot(b) <= FLEXION_MAX_COSINE * a.length() * b.length()
}

/// The springs pass (mass-spring mode): each particle's acceleration from its springs at the
/// start of every substep, for predict to add.
#[derive(Debug, Clone, Default)]
pub(crate) struct SpringsPass {
    /// The springs, once mass-spring mode is used.
    network: Option<Arc<SpringNetwork>>,
    /// Whether the springs' words were uploaded (once: they depend on the model alone).
    uploaded: bool,
    /// The constants, frame time step and substeps last found stable (the CPU reference
    /// prepares every frame).
    stable: Option<(MassSpringParams, f32, u32)>,
    /// Whether the mode was mass-spring when last prepared: left, it leaves zero accelerations
    /// behind, since predict reads them in every mode.
    on: bool,
}

impl SpringsPass {
    /// The springs, once mass-spring mode has been used.
    pub fn network(&self) -> Option<&SpringNetwork> {
        self.network.as_deref()
    }
}

impl Pass for SpringsPass {
    fn name(&self) -> &'static str {
        "springs"
    }

    fn stage(&self) -> Stage {
        Stage::Substep
    }

    fn shaders(&self, _build: &Build) -> Vec<Shader> {
        vec![Shader {
            label: "springs",
            constants: vec![
                Constant::u32("SPRING_KIND_SHIFT", SPRING_KIND_SHIFT),
                Constant::u32("SPRING_PARTICLE_MASK", (1 << SPRING_KIND_SHIFT) - 1),
            ],
            groups: vec![&SOLVE, &SPRINGS],
            parts: vec![Part::File(wgsl_file!("passes/springs.wgsl"))],
            structs: Vec::new(),
            block: Some(("springs", GpuSpringParams::LAYOUT)),
            kernels: vec![Kernel::plain("apply_springs")],
        }]
    }

    /// Builds the springs the first time mass-spring mode is used and checks that they are
    /// stable at the substep.
    fn prepare(&mut self, setup: &Setup, uploads: &mut Uploads) -> Result<(), Error> {
        let params = setup.params;
        let constants = match params.mode {
            SolverMode::MassSpring(springs) => {
                let network = self.network.get_or_insert_with(|| Arc::new(SpringNetwork::new(setup.model)));
                let checked = (springs, params.time_step, params.substeps);
                if self.stable != Some(checked) {
                    network.check_stability(&springs, params.time_step, params.substeps, MAX_SUBSTEPS)?;
                    self.stable = Some(checked);
                }
                if !self.uploaded {
                    uploads.words("springs", || network.words());
                    uploads.reserve("spring_accelerations", 16 * setup.model.particle_count() as u64);
                    self.uploaded = true;
                }
                springs.gpu_constants()
            }
            _ => {
                if self.on {
                    uploads.zero("spring_accelerations");
                }
                [0.0; 4]
            }
        };
        uploads.block("springs", || GpuSpringParams { constants });
        self.on = !params.mode.projects();
        Ok(())
    }

    fn dispatch(&self, setup: &Setup, plan: &mut FramePlan, substep: u32) -> Result<(), LayoutRefused> {
        if !setup.params.mode.projects() {
            let particles = setup.model.particle_count() as u32;
            plan.push("apply_springs", DispatchInfo::substep(substep), workgroups_for(particles));
        }
        Ok(())
    }

    fn run_cpu(&mut self, setup: &Setup, frame: &mut CpuFrame, _substep: u32) {
        let (SolverMode::MassSpring(springs), Some(network)) = (setup.params.mode, &self.network) else {
            return frame.spring_accelerations.fill(Vec3::ZERO);
        };
        let state = ParticleState {
            positions: frame.positions,
            velocities: frame.velocities,
            inverse_masses: setup.pins.inverse_masses(),
        };
        for (i, a) in frame.spring_accelerations.iter_mut().enumerate() {
            *a = network.acceleration(&springs, &state, i);
        }
    }
}

/// Group 2 of the springs.
static SPRINGS: BindingTable = BindingTable {
    label: "springs",
    bindings: &[
        Binding::read(
            "springs",
            "array<u32>",
            4,
            "Words (SpringNetwork::words): particle_count + 1 list offsets, then per list entry the\n\
             other particle with the spring's kind in bits 30–31, and the rest length's bits.",
        ),
        Binding::read_write(
            "spring_accelerations",
            "array<vec4<f32>>",
            16,
            "Each particle's acceleration from its springs (m/s²), read by predict.",
        ),
    ],
};

/// `SpringParams` in WGSL.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuSpringParams {
    /// [`MassSpringParams::gpu_constants`], zero outside mass-spring mode.
    pub constants: [f32; 4],
}

impl GpuSpringParams {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout = struct_layout!(GpuSpringParams as "SpringParams", constants);
}
