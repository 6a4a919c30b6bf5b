//! The passes of a frame and their order, written once.
//!
//! A pass is one step of PBD's loop (Alg. 1 with XPBD substepping): predict, the constraint
//! iterations, area limits, tethers, self-collision, the directional limit, the rigid bodies
//! (their prediction, and their contacts with the particles), the collider contacts with the
//! velocity update (finalize), and around them the forces of the air and the springs, the
//! rigid damping, and the normals. Each lives in one module here and one WGSL file
//! (or folder) of the same name in `shaders/passes/`, and its module declares everything about
//! it (the trait
//! `Pass`): its host preparation, which the GPU solver and the CPU reference both call; its
//! parameter block; its binding table, from which the bind group layout, the bind group and the
//! WGSL declarations are generated; its WGSL module and kernels; the dispatches it adds to a
//! frame; and its CPU twin. `passes()` lists them in frame order, and `frame_order` is the order
//! of a frame, which `GpuSolver`'s frame plan and `CpuSolver::step` both follow.
//!
//! Adding a pass (`tethers.rs` is the example to copy) touches its module, its WGSL file, its
//! line in `passes()` and its field in [`crate::SolverParams`]; `docs/architecture.md` walks
//! through it and says where each pass lives.

pub mod air;
pub mod area_limits;
pub mod attachments;
pub mod bodies;
pub mod contacts;
pub mod depenetration;
pub mod directional;
pub mod finalize;
pub mod iterations;
pub mod normals;
pub mod plan;
pub mod predict;
pub mod rigid_damping;
pub mod self_collision;
pub mod springs;
pub mod tethers;

use crate::bodies::{BodyShape, BodyState};
use crate::collision::{Collider, ColliderSet, MovingCollider, SubstepContacts};
use crate::constraints::{SolveState, UnitType};
use crate::error::Error;
use crate::math::{DENOMINATOR_EPSILON, GEOMETRY_EPSILON, TAN_PI_8};
use crate::metrics::Overflows;
use crate::model::ClothModel;
use crate::params::SolverParams;
use crate::pins::{PinRecord, Pins};
use crate::struct_layout;
use crate::wgsl::{Binding, BindingTable, Constant, StructLayout, WgslFile};
use crate::wgsl_file;
use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use plan::{DispatchInfo, FramePlan, GpuFacts, DISPATCH_ENTRY_STRIDE, WORKGROUP_SIZE};
use std::any::Any;
use std::fmt::Debug;
use std::mem::size_of;

/// Every pass, in the order a frame runs them (see [`frame_order`]): each registered by one
/// line.
pub(crate) fn passes() -> Vec<Box<dyn Pass>> {
    vec![
        Box::new(rigid_damping::RigidDampingPass),
        Box::new(depenetration::DepenetrationPass),
        Box::new(air::AirPass::default()),
        Box::new(springs::SpringsPass::default()),
        Box::new(predict::PredictPass),
        Box::new(bodies::BodyPredictPass),
        Box::new(attachments::AttachmentsPass),
        Box::new(contacts::ContactsPass),
        Box::new(iterations::IterationsPass::default()),
        Box::new(area_limits::AreaLimitsPass::default()),
        Box::new(tethers::TethersPass::default()),
        Box::new(self_collision::SelfCollisionPass::default()),
        Box::new(directional::DirectionalPass::default()),
        Box::new(bodies::BodiesPass),
        Box::new(finalize::FinalizePass),
        Box::new(normals::NormalsPass),
    ]
}

/// The WGSL modules of `passes`, as `build` asks, each once (predict and finalize share one).
pub(crate) fn shaders(passes: &[Box<dyn Pass>], build: &Build) -> Vec<Shader> {
    let mut shaders: Vec<Shader> = Vec::new();
    for shader in passes.iter().flat_map(|p| p.shaders(build)) {
        if !shaders.iter().any(|s| s.label == shader.label) {
            shaders.push(shader);
        }
    }
    shaders
}

/// The order of a frame, followed by both solvers: `(pass, substep)` for the frame's first
/// passes (substep 0), then each substep's passes `substeps` times, then its last passes (the
/// last substep), each stage in [`passes`] order.
pub(crate) fn frame_order(passes: &[Box<dyn Pass>], substeps: u32) -> Vec<(usize, u32)> {
    let at = |stage: Stage| passes.iter().enumerate().filter(move |(_, p)| p.stage() == stage).map(|(i, _)| i);
    let mut order: Vec<(usize, u32)> = at(Stage::FrameStart).map(|i| (i, 0)).collect();
    for substep in 0..substeps {
        order.extend(at(Stage::Substep).map(|i| (i, substep)));
    }
    order.extend(at(Stage::FrameEnd).map(|i| (i, substeps - 1)));
    order
}

/// When in a frame a pass runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    /// Once, before the first substep.
    FrameStart,
    /// Once per substep.
    Substep,
    /// Once, after the last substep.
    FrameEnd,
}

/// One pass: everything the solvers need of it. Its module also holds its pure physics, which
/// [`Pass::run_cpu`] calls and its WGSL twin mirrors with the same names and argument order.
pub(crate) trait Pass: PassObject + Debug + Send + Sync {
    /// Its name, as a profile reports it: its module's.
    fn name(&self) -> &'static str;

    /// When it runs.
    fn stage(&self) -> Stage;

    /// Its WGSL modules and their kernels, as `build` asks (none: it dispatches kernels of
    /// another pass's module).
    fn shaders(&self, _build: &Build) -> Vec<Shader> {
        Vec::new()
    }

    /// Brings its host data up to date for `setup`: builds what the parameters need the first
    /// time they use it, rebuilds what depends on the pins when they changed, and says in
    /// `uploads` what the GPU must hold (its parameter block, its buffers). Both solvers call
    /// it before stepping with new parameters or pins. Errors: parameters the cloth cannot run
    /// with (springs too stiff for the substep). Nothing, for a pass with nothing to prepare.
    fn prepare(&mut self, _setup: &Setup, _uploads: &mut Uploads) -> Result<(), Error> {
        Ok(())
    }

    /// Says in `uploads` what only some plans need, once `plan` is made for `setup` (GPU):
    /// buffers that the plan's kernels read and other layouts' do not.
    fn prepare_for_plan(&mut self, _setup: &Setup, _plan: &FramePlan, _uploads: &mut Uploads) {}

    /// The most bytes its buffers can take whatever the pins, where they depend on them (by
    /// name): the GPU solver checks them against the device when it is made, so that a change of
    /// pins can never fail. Buffers that depend on the parameters alone are checked when they
    /// are first used.
    fn capacity(&self, _model: &ClothModel) -> Vec<(&'static str, u64)> {
        Vec::new()
    }

    /// Adds its dispatches in `substep` (or of the frame, for the frame's first and last
    /// passes) to `plan`. Refused when the layout cannot stay within the device's loop budget.
    fn dispatch(&self, setup: &Setup, plan: &mut FramePlan, substep: u32) -> Result<(), LayoutRefused>;

    /// What its dispatches do, on the CPU: the reference the GPU is tested against.
    fn run_cpu(&mut self, setup: &Setup, frame: &mut CpuFrame, substep: u32);

    /// Its GPU state after the cloth is put back at rest ([`crate::GpuSolver::reset`]).
    fn reset(&self, _uploads: &mut Uploads) {}
}

/// What every pass is as an object, for any `Pass + Clone`.
pub(crate) trait PassObject {
    /// A copy, to prepare new parameters on without touching the solver's until they are
    /// accepted.
    fn boxed_clone(&self) -> Box<dyn Pass>;

    /// Itself, to read a pass's own data (the springs of mass-spring mode).
    fn as_any(&self) -> &dyn Any;
}

impl<T: Pass + Clone + 'static> PassObject for T {
    fn boxed_clone(&self) -> Box<dyn Pass> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Clone for Box<dyn Pass> {
    fn clone(&self) -> Self {
        self.boxed_clone()
    }
}

/// A layout the device's loop budget cannot run ([`Pass::dispatch`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LayoutRefused;

/// What the WGSL modules are built for: the device, and the unit types of the cloth (the
/// projections dispatch over those alone).
pub(crate) struct Build<'a> {
    pub facts: &'a GpuFacts,
    pub unit_types: &'a [UnitType],
    /// Whether every cloth keeps the solver's self-collision contact (none of its own, no
    /// pair's friction): the kernels then take it from the parameters, their table code left out
    /// ([`crate::ClothModel::has_own_contacts`]).
    pub uniform_contacts: bool,
}

/// What a pass is prepared and planned for.
pub(crate) struct Setup<'a> {
    pub model: &'a ClothModel,
    pub params: &'a SolverParams,
    pub pins: &'a Pins,
    /// The device, for the GPU solver; `None` for the CPU reference.
    pub gpu: Option<&'a GpuFacts>,
    /// Whether the cloth has colliders.
    pub colliders: bool,
    /// Whether one of them bounces (a restitution above zero): finalize then reads each
    /// particle's predicted displacement ([`predict`]).
    pub bouncing: bool,
    /// Whether one of them is met by sphere tracing (a capsule, box or mesh: see
    /// [`CollisionKernel`]).
    pub traced_colliders: bool,
    /// The rigid bodies and the particles attached to them ([`bodies`]).
    pub bodies: BodyCount,
}

/// How many rigid bodies a solver has (and how many of them are boxes), how many particles are
/// attached to them and how many ropes hold them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct BodyCount {
    pub bodies: usize,
    /// Their pairs cost the GPU's pairs' pass most ([`bodies::push_finish_phases`]).
    pub boxes: usize,
    pub attached: usize,
    pub ropes: usize,
}

impl BodyCount {
    /// The count of `bodies`, with `attached` particles and `ropes` ropes.
    pub fn of(bodies: &[BodyState], attached: usize, ropes: usize) -> Self {
        let boxes = bodies.iter().filter(|body| matches!(body.shape, BodyShape::Box { .. })).count();
        Self { bodies: bodies.len(), boxes, attached, ropes }
    }
}

impl<'a> Setup<'a> {
    /// The setup of `model` with `params`, `pins`, `colliders` and `bodies`, on `gpu` (`None`:
    /// the CPU reference).
    pub fn new(
        model: &'a ClothModel,
        params: &'a SolverParams,
        pins: &'a Pins,
        gpu: Option<&'a GpuFacts>,
        colliders: &ColliderSet,
        bodies: BodyCount,
    ) -> Self {
        let bouncing = colliders.bounces(params.contact_material());
        let traced_colliders = colliders.shapes().iter().any(Collider::is_traced);
        let colliders = !colliders.shapes().is_empty();
        Self { model, params, pins, gpu, colliders, bouncing, traced_colliders, bodies }
    }

    /// Whether the collider contacts are projected in the iterations: asked for
    /// ([`SolverParams::contacts_in_iterations`]) on a cloth with colliders.
    pub fn iteration_contacts(&self) -> bool {
        self.colliders && self.params.contacts_in_iterations
    }
}

/// The cloth as the CPU passes read and write it during a frame.
pub(crate) struct CpuFrame<'a> {
    /// `x`: positions at the start of the substep (m).
    pub positions: &'a mut [Vec3],
    /// `v` between substeps (m/s).
    pub velocities: &'a mut [Vec3],
    /// Area-weighted unit normals, from the frame's end.
    pub normals: &'a mut Vec<Vec3>,
    /// The substep's displacements, inverse masses and responses, from predict to finalize.
    pub solve: &'a mut SolveState,
    /// Each particle's acceleration from the air in the substep (m/s²).
    pub air_accelerations: &'a mut [Vec3],
    /// Each particle's acceleration from its springs in the substep (mass-spring mode).
    pub spring_accelerations: &'a mut [Vec3],
    /// The colliders over the frame.
    pub colliders: &'a [MovingCollider],
    /// Each particle's contacts in the substep's iterations ([`contacts`]).
    pub contacts: &'a mut [SubstepContacts],
    /// Whether a particle started the frame inside a collider, and each particle's speed then
    /// ([`depenetration`]).
    pub depenetration: &'a mut depenetration::Depenetration,
    /// What fixed capacities left out, counted like the GPU's atomic counters.
    pub overflows: &'a mut Overflows,
    /// Simulated time at the start of the frame (s), advanced by its last finalize.
    pub time: &'a mut f32,
    /// The rigid bodies.
    pub bodies: &'a mut [crate::bodies::BodyState],
    /// The particles attached to them.
    pub body_attachments: &'a bodies::attachments::BodyAttachments,
    /// The ropes holding them.
    pub body_ropes: &'a [bodies::ropes::BodyRope],
}

/// What a pass's preparation asks the GPU to hold, applied only once the new parameters are
/// accepted. The CPU reference prepares with [`Uploads::none`], which computes nothing.
#[derive(Debug, Default)]
pub(crate) struct Uploads {
    wanted: bool,
    list: Vec<Upload>,
}

/// One buffer change ([`Uploads`]). Buffers are named by their binding ([`Binding::name`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Upload {
    /// The buffer grown to hold these bytes if it must, and written with them.
    Write { buffer: &'static str, bytes: Vec<u8> },
    /// The buffer grown to at least this many bytes (a new buffer starts zeroed).
    Reserve { buffer: &'static str, bytes: u64 },
    /// The buffer zeroed.
    Zero { buffer: &'static str },
    /// A pass's block of the frame's parameters written ([`Shader::block`]).
    Block { member: &'static str, bytes: Vec<u8> },
}

impl Uploads {
    /// Uploads for the GPU solver.
    pub fn gpu() -> Self {
        Self { wanted: true, list: Vec::new() }
    }

    /// None, for the CPU reference: the closures below are not called.
    pub fn none() -> Self {
        Self::default()
    }

    /// Writes `bytes()` into `buffer`.
    pub fn write(&mut self, buffer: &'static str, bytes: impl FnOnce() -> Vec<u8>) {
        if self.wanted {
            self.list.push(Upload::Write { buffer, bytes: bytes() });
        }
    }

    /// Writes `words()` into `buffer`.
    pub fn words(&mut self, buffer: &'static str, words: impl FnOnce() -> Vec<u32>) {
        self.write(buffer, || bytemuck::cast_slice(&words()).to_vec());
    }

    /// Writes the pass's block of the frame's parameters, `params.<member>` in WGSL.
    pub fn block<T: Pod>(&mut self, member: &'static str, block: impl FnOnce() -> T) {
        if self.wanted {
            self.list.push(Upload::Block { member, bytes: bytemuck::bytes_of(&block()).to_vec() });
        }
    }

    /// Grows `buffer` to at least `bytes`.
    pub fn reserve(&mut self, buffer: &'static str, bytes: u64) {
        if self.wanted {
            self.list.push(Upload::Reserve { buffer, bytes });
        }
    }

    /// Zeroes `buffer`.
    pub fn zero(&mut self, buffer: &'static str) {
        if self.wanted {
            self.list.push(Upload::Zero { buffer });
        }
    }

    /// The changes, in order.
    pub fn into_list(self) -> Vec<Upload> {
        self.list
    }
}

/// A WGSL module a pass brings: its source after the shared prelude ([`COMMON_WGSL`] and the
/// frame's group 0), the constants generated ahead of it, the bind groups its kernels take
/// after the frame's, the host-shared structs it declares and its kernels.
#[derive(Debug, Clone)]
pub(crate) struct Shader {
    /// Names the module (and, by it, its compiled copy: modules of one label are one).
    pub label: &'static str,
    /// Constants with Rust twins, declared ahead of the source.
    pub constants: Vec<Constant>,
    /// Groups 1, 2…: the particles the kernels access, then the pass's own data.
    pub groups: Vec<&'static BindingTable>,
    /// Its files and generated code, in order.
    pub parts: Vec<Part>,
    /// The layouts of the host-shared structs it declares ([`StructLayout`]).
    pub structs: Vec<StructLayout>,
    /// Its pass's block of the frame's parameters: the member of `Params` that holds it and the
    /// layout of its struct (declared in the module's files). Every kernel reads its block as
    /// `params.<member>`: the blocks live in the frame's one uniform buffer (one binding for all
    /// passes, and the uniform layout drivers handle best).
    pub block: Option<(&'static str, StructLayout)>,
    pub kernels: Vec<Kernel>,
}

/// A piece of a module's source.
#[derive(Debug, Clone)]
pub(crate) enum Part {
    /// A file of `shaders/`.
    File(WgslFile),
    /// Code generated from Rust (the kinds' constants, the dispatch over unit types).
    Generated(String),
}

/// One kernel of a module: its entry point, built into a pipeline with these overrides, and
/// named for the frame plan (entry points built twice with other overrides get other names).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Kernel {
    pub name: &'static str,
    pub entry_point: &'static str,
    pub overrides: Vec<(&'static str, f64)>,
    /// The bindings of the module's last group (its pass's own data) that the kernel uses, when
    /// it uses only some: its pipeline then binds only those, at their places in the table. A
    /// module whose kernels read different parts of one table (Gauss-Seidel's and Jacobi's)
    /// keeps each kernel's bind group as small as it was written: drivers such as lavapipe set
    /// every binding of a group at each pipeline switch.
    pub uses: Option<&'static [&'static str]>,
}

impl Kernel {
    /// A kernel named after its entry point, without overrides, binding all of its groups.
    pub fn plain(entry_point: &'static str) -> Self {
        Self { name: entry_point, entry_point, overrides: Vec::new(), uses: None }
    }
}

/// A kernel that meets the colliders, built twice from one entry point: as written, and without
/// the sphere trace of capsules, boxes and meshes (`TRACED_SHAPES` false in
/// `shaders/collision.wgsl`) for cloths whose colliders are all planes and spheres. A CPU
/// adapter (llvmpipe runs both sides of every branch) otherwise pays for the trace for every
/// particle in every substep, whatever the shapes (BENCHMARKS.md, "Where a frame goes").
/// Made by [`collision_kernel!`], which names the build without the trace after the entry point.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CollisionKernel {
    /// Its entry point, and its name where some collider is traced.
    pub traced: &'static str,
    /// Its name where every collider is a plane or a sphere: the entry point's, `_analytic`.
    pub analytic: &'static str,
}

/// The [`CollisionKernel`] of entry point `$entry_point`.
macro_rules! collision_kernel {
    ($entry_point:literal) => {
        $crate::passes::CollisionKernel { traced: $entry_point, analytic: concat!($entry_point, "_analytic") }
    };
}
pub(crate) use collision_kernel;

/// The WGSL override that leaves the sphere trace out of a [`CollisionKernel`]'s build
/// (`shaders/collision.wgsl`).
const TRACED_SHAPES: &str = "TRACED_SHAPES";

impl CollisionKernel {
    /// Both builds, binding `uses` of the module's last group (all of it: `None`).
    pub fn kernels(self, uses: Option<&'static [&'static str]>) -> [Kernel; 2] {
        let traced = Kernel { uses, ..Kernel::plain(self.traced) };
        let analytic = Kernel { name: self.analytic, overrides: vec![(TRACED_SHAPES, 0.0)], ..traced.clone() };
        [traced, analytic]
    }

    /// The build for the colliders of `setup`.
    pub fn name(self, setup: &Setup) -> &'static str {
        if setup.traced_colliders {
            self.traced
        } else {
            self.analytic
        }
    }
}

impl Shader {
    /// The module's whole WGSL source, its block at its offset in `params`.
    pub fn source(&self, params: &ParamsLayout) -> String {
        let mut source = COMMON_WGSL.source.to_string();
        source += &crate::wgsl::constant_declarations("common", &common_constants());
        if !self.constants.is_empty() {
            source += &crate::wgsl::constant_declarations(self.label, &self.constants);
        }
        source += &params.declaration(self.block.map(|(member, _)| member));
        source += &FRAME.declarations(0);
        for (group, table) in (1..).zip(&self.groups) {
            source += &table.declarations(group);
        }
        for part in &self.parts {
            match part {
                Part::File(file) => source += file.source,
                Part::Generated(code) => source += code,
            }
        }
        source
    }

    /// Its files.
    pub fn files(&self) -> impl Iterator<Item = WgslFile> + '_ {
        self.parts.iter().filter_map(|p| match p {
            Part::File(file) => Some(*file),
            Part::Generated(_) => None,
        })
    }
}

/// The structs, constants and helpers every module starts with.
pub(crate) const COMMON_WGSL: WgslFile = wgsl_file!("common.wgsl");

/// The constants of [`COMMON_WGSL`].
fn common_constants() -> [Constant; 8] {
    [
        Constant::u32("NOT_ATTACHED", crate::pins::NOT_ATTACHED),
        Constant::u32("WORKGROUP_SIZE", WORKGROUP_SIZE),
        Constant::f32("GEOMETRY_EPSILON", GEOMETRY_EPSILON),
        Constant::f32("DENOMINATOR_EPSILON", DENOMINATOR_EPSILON),
        Constant::f32("F32_MAX", f32::MAX),
        Constant::f32("PI", std::f32::consts::PI),
        Constant::f32("TAU", std::f32::consts::TAU),
        Constant::f32("TAN_PI_8", TAN_PI_8),
    ]
}

/// The host-shared structs of [`COMMON_WGSL`].
pub(crate) fn common_structs() -> [StructLayout; 2] {
    [DispatchInfo::LAYOUT, PinRecord::LAYOUT]
}

/// Group 0 of every kernel: the frame's parameters and the dispatch's entry of the dispatch
/// table.
pub(crate) static FRAME: BindingTable = BindingTable {
    label: "frame",
    bindings: &[
        Binding::uniform("params", "Params", size_of::<GpuParams>() as u64, "The frame's parameters (GpuParams)."),
        Binding {
            name: "dispatch",
            ty: "DispatchInfo",
            access: crate::wgsl::Access::DynamicUniform,
            min_bytes: size_of::<DispatchInfo>() as u64,
            doc: "The dispatch's entry, at a dynamic offset (entries DISPATCH_ENTRY_STRIDE bytes apart).",
        },
    ],
};
const _: () = assert!(size_of::<DispatchInfo>() as u64 <= DISPATCH_ENTRY_STRIDE);

/// Group 1 of the passes that project on the particles: their positions at the start of the
/// substep, read, and the substep's displacements with the inverse masses, read and written.
pub(crate) static SOLVE: BindingTable = BindingTable {
    label: "particles (solve)",
    bindings: &[
        Binding::read("positions", "array<vec4<f32>>", 16, "x: positions at the start of the substep (w = 1)."),
        Binding::read_write("velocities", "array<vec4<f32>>", 16, VELOCITIES),
    ],
};

/// What the `frame_start` buffer holds, for the tables that bind it.
pub(crate) const FRAME_START: &str =
    "What the frame started with: [its time (s), advanced by the frame's last finalize], then each\n\
             particle's speed (m/s), written by the depenetration pass (src/passes/depenetration.rs).";

/// The mesh colliders' distance fields, for the tables of the kernels that collide.
pub(crate) const DISTANCE_FIELDS: Binding = Binding {
    name: "distance_fields",
    ty: "texture_3d<f32>",
    access: crate::wgsl::Access::Texture3d,
    min_bytes: 0,
    doc: "The mesh colliders' distance fields, stacked along z (src/gpu/fields.rs).",
};

/// What the `velocities` buffer holds, for the tables that bind it.
pub(crate) const VELOCITIES: &str = "Between substeps the velocity v (m/s); from predict to finalize the substep's\n\
     displacement q = p − x (m). w: the inverse mass (0 = pinned).";

/// `Params` in WGSL (`shaders/common.wgsl`): what every kernel may read of the frame.
#[allow(missing_docs)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuParams {
    pub acceleration: [f32; 4],
    pub h: f32,
    pub damping_factor: f32,
    pub restitution_threshold: f32,
    pub particle_count: u32,
    pub pin_count: u32,
    pub substeps: u32,
    pub iteration_contacts: u32,
    pub max_depenetration_speed: f32,
}

impl GpuParams {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout = struct_layout!(
        GpuParams as "Params",
        acceleration,
        h,
        damping_factor,
        restitution_threshold,
        particle_count,
        pin_count,
        substeps,
        iteration_contacts,
        max_depenetration_speed
    );

    /// The frame's parameters for `params`, `model` and `pin_count` pins.
    pub fn new(params: &SolverParams, model: &ClothModel, pin_count: usize) -> Self {
        let h = params.substep_dt();
        let acceleration = params.gravity + params.external_acceleration;
        Self {
            acceleration: acceleration.extend(0.0).to_array(),
            h,
            damping_factor: (1.0 - params.damping * h).max(0.0),
            restitution_threshold: params.restitution_threshold(),
            particle_count: model.particle_count() as u32,
            pin_count: pin_count as u32,
            substeps: params.substeps,
            iteration_contacts: u32::from(params.contacts_in_iterations),
            max_depenetration_speed: params.max_depenetration_speed,
        }
    }
}

// The passes' blocks start 16-byte aligned after it (ParamsLayout::declaration).
const _: () = assert!(size_of::<GpuParams>().is_multiple_of(16));

/// The WGSL members of `Params` before the passes' blocks: [`GpuParams`]'s (tests/shaders.rs
/// checks that they lie where its fields do).
const PARAMS_MEMBERS: &str = "    // Gravity plus external acceleration (m/s²); w unused.
    acceleration: vec4<f32>,
    // Substep length h (s).
    h: f32,
    // max(0, 1 − damping·h).
    damping_factor: f32,
    // Normal speed under which restitution is off (2|g|h).
    restitution_threshold: f32,
    particle_count: u32,
    pin_count: u32,
    substeps: u32,
    // SolverParams::contacts_in_iterations (finalize reads the substep contacts when set and
    // the cloth has colliders).
    iteration_contacts: u32,
    // SolverParams::max_depenetration_speed (m/s; infinity: unbounded).
    max_depenetration_speed: f32,
";

/// Where each pass's block lies in the frame's parameters: [`GpuParams`] first, then the blocks in
/// `passes()` order, each at a 16-byte boundary (uniform structs are 16-byte aligned).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamsLayout {
    /// `(member, WGSL struct, offset)` of each block.
    blocks: Vec<(&'static str, &'static str, u64)>,
    /// Bytes of the whole.
    size: u64,
}

impl ParamsLayout {
    /// The layout of the blocks of `shaders` (a block that several modules read once).
    pub(crate) fn new(shaders: &[Shader]) -> Self {
        let mut layout = Self { blocks: Vec::new(), size: size_of::<GpuParams>() as u64 };
        for (member, block) in shaders.iter().filter_map(|s| s.block) {
            if layout.offset(member).is_none() {
                let offset = layout.size.next_multiple_of(16);
                layout.blocks.push((member, block.name, offset));
                layout.size = offset + (block.size as u64).next_multiple_of(16);
            }
        }
        layout
    }

    /// Bytes of the frame's parameters.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Where block `member` starts.
    pub fn offset(&self, member: &str) -> Option<u64> {
        self.blocks.iter().find(|(m, _, _)| *m == member).map(|&(_, _, offset)| offset)
    }

    /// The WGSL struct `Params` of a module: the frame's own members, then the module's block
    /// (`member`) at its offset, past the other passes' blocks.
    fn declaration(&self, member: Option<&str>) -> String {
        let mut source = "// The frame's parameters, generated by src/passes.rs (ParamsLayout): GpuParams, then this\n\
                          // module's block at its offset among the passes' blocks.\nstruct Params {\n"
            .to_string();
        source += PARAMS_MEMBERS;
        if let Some(&(member, ty, offset)) = member.and_then(|m| self.blocks.iter().find(|(b, _, _)| *b == m)) {
            // Skipped in whole vec4s (every offset is a multiple of 16): an explicit @size is lost
            // where the WGSL becomes GLSL, whose std140 layout knows only natural sizes.
            let skipped = (offset - size_of::<GpuParams>() as u64) / 16;
            if skipped > 0 {
                source += &format!("    _other_blocks: array<vec4<u32>, {skipped}>,\n");
            }
            source += &format!("    {member}: {ty},\n");
        }
        source + "}\n"
    }
}

/// Every WGSL module drape builds (every unit type, both workgroup-memory variants) with its
/// full source, for tests and tools that validate them.
pub fn shader_modules() -> Vec<ShaderModule> {
    let facts = iterations::every_variant();
    let build = Build { facts: &facts, unit_types: &UnitType::ALL, uniform_contacts: false };
    let shaders = shaders(&passes(), &build);
    let params = ParamsLayout::new(&shaders);
    let mut modules: Vec<ShaderModule> = Vec::new();
    for shader in shaders {
        let block =
            shader.block.map(|(member, layout)| (member, params.offset(member).expect("laid out") as usize, layout));
        modules.push(ShaderModule {
            label: shader.label,
            source: shader.source(&params),
            files: std::iter::once(COMMON_WGSL).chain(shader.files()).collect(),
            constants: common_constants().into_iter().chain(shader.constants.iter().cloned()).collect(),
            structs: common_structs().into_iter().chain(shader.structs.iter().copied()).collect(),
            block,
            entry_points: shader.kernels.iter().map(|k| k.entry_point).collect(),
        });
    }
    modules
}

/// A WGSL module as built ([`shader_modules`]).
#[derive(Debug, Clone)]
pub struct ShaderModule {
    /// Its label.
    pub label: &'static str,
    /// Its whole source.
    pub source: String,
    /// The files of `shaders/` it is made of.
    pub files: Vec<WgslFile>,
    /// The constants generated from Rust into it.
    pub constants: Vec<Constant>,
    /// The host-shared structs it declares, with their Rust layouts.
    pub structs: Vec<StructLayout>,
    /// Its pass's block of `Params`: the member, its offset and its struct's layout.
    pub block: Option<(&'static str, usize, StructLayout)>,
    /// Its kernels' entry points.
    pub entry_points: Vec<&'static str>,
}
