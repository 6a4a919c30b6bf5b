//! The frame plan: the dispatches the passes add to a frame, in order, each with its kernel,
//! its dispatch table entry and its workgroups. Built by walking the passes (`crate::passes`)
//! whenever the parameters, the pins or the layout change, and replayed every frame. Also the
//! layouts a frame can take, how `Auto` picks one, and what the plan knows of the device.

use crate::model::ClothModel;
use crate::params::{SolverMode, SolverParams};
use crate::struct_layout;
use crate::wgsl::StructLayout;
use bytemuck::{Pod, Zeroable};

/// How a frame is spread over compute dispatches. Layouts change the speed, never the result:
/// every layout of a mode follows the same order, bit for bit. They arrange the projections:
/// mass-spring, which projects nothing, dispatches particle by particle in every layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DispatchStrategy {
    /// Picks a layout by adapter, mode and cloth size (`auto_layout` in `src/passes/plan.rs`
    /// has the rule).
    #[default]
    Auto,
    /// Each substep's iterations in one dispatch of one workgroup, colours separated by
    /// barriers: `2·substeps + 1` dispatches per frame with predict, finalize and normals (more
    /// on CPU adapters when a substep would outrun llvmpipe's loop limit). Best when dispatches
    /// are expensive or the cloth is small; wastes a large GPU on a large cloth.
    SingleWorkgroup,
    /// One dispatch per colour per iteration (Gauss-Seidel) or two per iteration (Jacobi:
    /// project, then gather), plus predict, one dispatch between substeps (finalize and the next
    /// predict), finalize and normals: fills a GPU with one thread per unit.
    PerColour,
    /// Gauss-Seidel in stripes ([`crate::schedule::stripes`]): one dispatch per phase per
    /// iteration, one workgroup per stripe, colours separated by barriers inside the workgroup,
    /// on a copy of the stripe's particles in workgroup memory when they fit:
    /// `substeps · (2·iterations + 1) + 2` dispatches per frame. Uses every core of a CPU
    /// adapter with two dispatches per iteration. Jacobi runs as in `PerColour`.
    Striped,
}

/// Invocations per workgroup of the kernels whose size is chosen per adapter (WGSL overrides
/// `SUBSTEP_WORKGROUP_SIZE` and `STRIPE_WORKGROUP_SIZE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WorkgroupSizes {
    /// The single-workgroup kernels.
    pub substep: u32,
    /// The striped kernel.
    pub stripe: u32,
}

impl WorkgroupSizes {
    /// GPUs: 256 for the single workgroup (the WebGPU default maximum) and 64 per stripe.
    /// CPU adapters (llvmpipe runs 8 invocations per SIMD vector, one workgroup per core):
    /// 64 for the single workgroup (keeps its loops short for llvmpipe's limit) and 8 per stripe
    /// (a stripe's colours hold few units, so wider groups mostly run masked-off lanes).
    pub fn for_adapter(cpu: bool) -> Self {
        if cpu {
            Self { substep: 64, stripe: 8 }
        } else {
            Self { substep: 256, stripe: 64 }
        }
    }
}

/// What a workgroup-memory kernel keeps of each particle and how many particles
/// (`shaders/passes/iterations/gauss_seidel_workgroup.wgsl`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Block {
    pub particles: u32,
    /// Positions beside displacements (two `vec4` per particle), or displacements only.
    pub positions: bool,
}

impl Block {
    /// The block for `particles` particles in `bytes` of workgroup memory: positions and
    /// displacements where they fit, displacements alone where only they do, else none.
    pub fn fitting(particles: usize, bytes: u32) -> Option<Self> {
        let vector = 16;
        // Slots are 16-bit.
        let fits = |per_particle: usize| particles <= (1 << 16) && particles * per_particle * vector <= bytes as usize;
        let particles = particles as u32;
        if fits(2) {
            Some(Self { particles, positions: true })
        } else {
            fits(1).then_some(Self { particles, positions: false })
        }
    }

    /// `vec4`s the block holds.
    pub fn vectors(self) -> u32 {
        self.particles.max(1) * if self.positions { 2 } else { 1 }
    }
}

/// The blocks of the workgroup-memory kernels: the widest stripe's and the whole cloth's, or
/// `None` where they do not fit the device (those kernels then run in place).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BlockSizes {
    pub stripe: Option<Block>,
    pub cloth: Option<Block>,
}

impl BlockSizes {
    /// The blocks of `model` in `bytes` of workgroup memory.
    pub fn of(model: &ClothModel, bytes: u32) -> Self {
        Self {
            stripe: Block::fitting(model.schedule().widest_stripe(), bytes),
            cloth: Block::fitting(model.particle_count(), bytes),
        }
    }
}

/// What the passes know of the device they plan for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GpuFacts {
    /// A CPU adapter (llvmpipe and its like).
    pub cpu: bool,
    pub sizes: WorkgroupSizes,
    pub blocks: BlockSizes,
}

impl GpuFacts {
    /// The loop budget of one invocation ([`CPU_LOOP_BUDGET`] on CPU adapters, none on GPUs).
    pub fn loop_budget(&self) -> Option<u64> {
        self.cpu.then_some(CPU_LOOP_BUDGET)
    }
}

/// Workgroup size of the per-element kernels (`WORKGROUP_SIZE` in WGSL).
pub const WORKGROUP_SIZE: u32 = 64;
/// Most workgroups in one dimension of a dispatch (WebGPU default limit).
pub(crate) const MAX_WORKGROUPS_PER_DIMENSION: u32 = 65_535;
/// Dynamic uniform offsets must be multiples of this (WebGPU's default
/// `min_uniform_buffer_offset_alignment`), so dispatch table entries are this far apart.
pub const DISPATCH_ENTRY_STRIDE: u64 = 256;

/// On GPUs, cloths up to this many particles run in a single workgroup: their per-colour
/// dispatches would be mostly launch overhead.
const GPU_SINGLE_WORKGROUP_MAX_PARTICLES: usize = 1024;
/// llvmpipe silently ends every loop of a shader invocation once they have run 65535
/// iterations in total (Mesa gallivm `LP_MAX_TGSI_LOOP_ITERATIONS`). A single-workgroup or
/// striped dispatch on a CPU adapter must stay below this estimate, with a margin.
pub(crate) const CPU_LOOP_BUDGET: u64 = 60_000;

/// The layout `Auto` resolves to, by this rule:
/// - CPU adapters (few threads, expensive dispatches, costly workgroup barriers): Gauss-Seidel
///   striped (a phase's stripes spread over the threads in one dispatch, each stripe one SIMD
///   group, so its colour barriers cost little), Jacobi per colour. A single workgroup, with
///   its barriers across many SIMD groups, is slower at every size measured (BENCHMARKS.md
///   "Layouts").
/// - GPUs (thousands of threads, cheap dispatches): one workgroup up to 1024 particles; above,
///   Gauss-Seidel striped (two dispatches per iteration, each stripe's colours behind
///   workgroup barriers: on an H200 it beat a dispatch per colour at 64², 128² and 256², with
///   as few as a handful of stripes per phase; BENCHMARKS.md "Where a frame goes"), and Jacobi
///   a dispatch per colour with a thread per unit.
///
/// A layout whose frame cannot stay within llvmpipe's loop limit falls back to the next that
/// can (striped, then per colour).
pub(crate) fn auto_layout(cpu: bool, params: &SolverParams, model: &ClothModel) -> DispatchStrategy {
    let particles = model.particle_count();
    match (cpu, params.mode) {
        // Mass-spring dispatches particle by particle whatever the layout.
        (_, SolverMode::MassSpring(_)) => DispatchStrategy::PerColour,
        (true, SolverMode::GaussSeidel) => DispatchStrategy::Striped,
        (true, SolverMode::Jacobi { .. }) => DispatchStrategy::PerColour,
        (false, _) if particles <= GPU_SINGLE_WORKGROUP_MAX_PARTICLES => DispatchStrategy::SingleWorkgroup,
        (false, SolverMode::GaussSeidel) => DispatchStrategy::Striped,
        (false, _) => DispatchStrategy::PerColour,
    }
}

/// `DispatchInfo` in WGSL: what one dispatch works on. Stored [`DISPATCH_ENTRY_STRIDE`] bytes
/// apart in the dispatch table and selected with a dynamic offset.
#[allow(missing_docs)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct DispatchInfo {
    pub substep: u32,
    pub first_iteration: u32,
    pub iterations: u32,
    pub colour_first: u32,
    pub colour_count: u32,
    pub stripe_entries: u32,
}

impl DispatchInfo {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout = struct_layout!(
        DispatchInfo as "DispatchInfo",
        substep,
        first_iteration,
        iterations,
        colour_first,
        colour_count,
        stripe_entries
    );

    /// The entry of a dispatch in `substep` that reads nothing else.
    pub fn substep(substep: u32) -> Self {
        Self { substep, ..Self::zeroed() }
    }
}

/// One dispatch of a frame: which kernel (by name, [`crate::passes::Kernel::name`]), what it
/// works on, how many workgroups, and the pass that added it ([`crate::passes::Pass::name`],
/// or where two passes share the dispatch the name the fusing pass gives it): what a profile
/// times it as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dispatch {
    pub kernel: &'static str,
    pub pass: &'static str,
    pub info: DispatchInfo,
    pub workgroups: [u32; 2],
}

/// The dispatches of one frame, in order, as the passes add them ([`crate::passes::Pass::dispatch`]).
pub(crate) struct FramePlan {
    /// The device planned for.
    pub facts: GpuFacts,
    /// The layout, resolved (`Striped` with Jacobi plans as `PerColour`).
    pub layout: DispatchStrategy,
    pub dispatches: Vec<Dispatch>,
    /// The pass adding dispatches now (set by [`FramePlan::begin_pass`]).
    pass: &'static str,
}

impl FramePlan {
    /// An empty plan.
    pub fn new(facts: GpuFacts, layout: DispatchStrategy) -> Self {
        Self { facts, layout, dispatches: Vec::new(), pass: "" }
    }

    /// Marks the dispatches pushed from now on as `pass`'s.
    pub fn begin_pass(&mut self, pass: &'static str) {
        self.pass = pass;
    }

    /// Appends a dispatch of `kernel`.
    pub fn push(&mut self, kernel: &'static str, info: DispatchInfo, workgroups: [u32; 2]) {
        self.dispatches.push(Dispatch { kernel, pass: self.pass, info, workgroups });
    }

    /// Replaces the last dispatch by one of `fused` with `info` and the same workgroups when it
    /// is a dispatch of `kernel` (two kernels merged into one dispatch, timed as `pass`);
    /// returns whether it did.
    pub fn fuse_with_last(
        &mut self,
        kernel: &str,
        fused: &'static str,
        pass: &'static str,
        info: DispatchInfo,
    ) -> bool {
        match self.dispatches.last_mut() {
            Some(last) if last.kernel == kernel => {
                *last = Dispatch { kernel: fused, pass, info, ..*last };
                true
            }
            _ => false,
        }
    }

    /// The dispatch table (each distinct entry once, in order of first use) and each
    /// dispatch's entry in it.
    pub fn table(&self) -> (Vec<DispatchInfo>, Vec<u32>) {
        let mut table: Vec<DispatchInfo> = Vec::new();
        let entries = self
            .dispatches
            .iter()
            .map(|d| match table.iter().position(|e| *e == d.info) {
                Some(i) => i as u32,
                None => {
                    table.push(d.info);
                    table.len() as u32 - 1
                }
            })
            .collect();
        (table, entries)
    }
}

/// Workgroups for `n` threads of [`WORKGROUP_SIZE`], spilling into y beyond the per-dimension
/// limit.
pub(crate) fn workgroups_for(n: u32) -> [u32; 2] {
    grid_of(n.div_ceil(WORKGROUP_SIZE))
}

/// A grid of `groups` workgroups (at least one), spilling into y beyond the per-dimension
/// limit: the kernel numbers them `y · x_count + x` and skips those past its work.
pub(crate) fn grid_of(groups: u32) -> [u32; 2] {
    let groups = groups.max(1);
    if groups <= MAX_WORKGROUPS_PER_DIMENSION {
        [groups, 1]
    } else {
        [MAX_WORKGROUPS_PER_DIMENSION, groups.div_ceil(MAX_WORKGROUPS_PER_DIMENSION)]
    }
}
