//! The frame plan: which kernels a frame dispatches, in what order, with which dispatch table
//! entry and how many workgroups — built when parameters or the layout change, replayed every
//! frame. Also the layouts themselves and how `Auto` picks one.

use super::records::{DispatchInfo, WORKGROUP_SIZE};
use crate::constraints::UnitType;
use crate::model::{ClothModel, JacobiPlan};
use crate::params::{SolverMode, SolverParams};
use crate::schedule::Stripe;
use bytemuck::Zeroable;
use std::ops::Range;

/// How a frame is spread over compute dispatches. Layouts change the speed, never the result:
/// every layout of a mode follows the same order, bit for bit. They arrange the projections:
/// mass-spring, which projects nothing, dispatches particle by particle in every layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DispatchStrategy {
    /// Picks a layout by adapter, mode and cloth size (`auto_layout` in `src/gpu/plan.rs` has
    /// the rule).
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
#[derive(Debug, Clone, Copy)]
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

/// Most workgroups in one dimension of a dispatch (WebGPU default limit).
pub(crate) const MAX_WORKGROUPS_PER_DIMENSION: u32 = 65_535;

/// On GPUs, cloths up to this many particles run in a single workgroup: their per-colour
/// dispatches would be mostly launch overhead.
const GPU_SINGLE_WORKGROUP_MAX_PARTICLES: usize = 1024;
/// On GPUs, Gauss-Seidel runs striped once each phase has at least this many stripes: four
/// workgroups for each compute unit of a large GPU (wgpu does not report the count; 64 covers
/// most desktop parts). With fewer, most of the GPU would idle, and colours are dispatched one
/// by one instead.
const GPU_MIN_STRIPES_PER_PHASE: usize = 256;
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
///   Gauss-Seidel striped when each phase has at least 256 stripes (four workgroups per compute
///   unit of a 64-unit GPU: wgpu does not report the count), otherwise, and for Jacobi, a
///   dispatch per colour with a thread per unit.
///
/// A layout whose frame cannot stay within llvmpipe's loop limit falls back to the next that
/// can (striped, then per colour).
pub(crate) fn auto_layout(cpu: bool, params: &SolverParams, model: &ClothModel) -> DispatchStrategy {
    let particles = model.particle_count();
    let fewest_stripes = model.schedule().phases.iter().map(|p| p.stripes.len()).min().unwrap_or(0);
    match (cpu, params.mode) {
        // Mass-spring dispatches particle by particle whatever the layout.
        (_, SolverMode::MassSpring(_)) => DispatchStrategy::PerColour,
        (true, SolverMode::GaussSeidel) => DispatchStrategy::Striped,
        (true, SolverMode::Jacobi { .. }) => DispatchStrategy::PerColour,
        (false, _) if particles <= GPU_SINGLE_WORKGROUP_MAX_PARTICLES => DispatchStrategy::SingleWorkgroup,
        (false, SolverMode::GaussSeidel) if fewest_stripes >= GPU_MIN_STRIPES_PER_PHASE => DispatchStrategy::Striped,
        (false, _) => DispatchStrategy::PerColour,
    }
}

/// The kernels of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kernel {
    Predict,
    Finalize,
    FinalizeAndPredict,
    ProjectColour,
    /// The striped kernel, on a copy in workgroup memory or in place.
    ProjectStripes {
        in_workgroup: bool,
    },
    /// The single-workgroup Gauss-Seidel kernel, on a copy in workgroup memory or in place.
    ProjectSubstep {
        in_workgroup: bool,
    },
    JacobiProject,
    JacobiApply,
    JacobiSubstep,
    ProjectTethers,
    LimitAreas,
    Aerodynamics,
    SumMoments,
    SolveRigidMotion,
    DampToRigidMotion,
    Springs,
    /// Self-collision (`shaders/passes/self_collision.wgsl`): the hash rebuild's four kernels, then
    /// the particle and triangle contacts and their application.
    HashCount,
    HashPrefixSum,
    HashScatter,
    HashSortBuckets,
    SelfContacts,
    TriangleContacts,
    ApplySelfContacts,
}

/// One recorded dispatch: which kernel, which dispatch table entry, how many workgroups.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Dispatch {
    pub kernel: Kernel,
    pub table_entry: u32,
    pub workgroups: [u32; 2],
}

/// The dispatches of one frame (normals excluded), in order, and the dispatch table entries
/// they select.
#[derive(Default)]
pub(crate) struct FramePlan {
    pub dispatches: Vec<Dispatch>,
    pub table: Vec<DispatchInfo>,
}

impl FramePlan {
    /// Appends a dispatch, reusing an identical table entry if there is one.
    fn push(&mut self, kernel: Kernel, info: DispatchInfo, workgroups: [u32; 2]) {
        let table_entry = match self.table.iter().position(|e| *e == info) {
            Some(i) => i,
            None => {
                self.table.push(info);
                self.table.len() - 1
            }
        } as u32;
        self.dispatches.push(Dispatch { kernel, table_entry, workgroups });
    }
}

/// What the plan needs to know beside the parameters and the model.
pub(crate) struct PlanContext<'a> {
    pub sizes: WorkgroupSizes,
    /// `Some` on CPU adapters (see [`CPU_LOOP_BUDGET`]).
    pub loop_budget: Option<u64>,
    /// Where each phase's stripe entries start in the schedule buffer.
    pub stripe_entries: [u32; 2],
    /// Whether the stripes, and the whole cloth, fit a workgroup's memory.
    pub stripes_in_workgroup: bool,
    pub cloth_in_workgroup: bool,
    /// Jacobi's plan, when Jacobi mode is used.
    pub jacobi: Option<&'a JacobiPlan>,
    /// Tethered particles (none: no tether dispatch).
    pub tether_particles: u32,
    /// Each colour's range of triangles when the area limits are projected (none: off).
    pub area_colours: &'a [Range<u32>],
    /// The self-collision hash table's buckets when self-collision is on.
    pub hash_buckets: Option<u32>,
}

/// Builds the frame's dispatches for a resolved layout (`Striped` with Jacobi plans as
/// `PerColour`). `None` when a single-workgroup or striped frame cannot stay within the loop
/// budget.
pub(crate) fn frame_plan(
    params: &SolverParams,
    layout: DispatchStrategy,
    model: &ClothModel,
    context: &PlanContext,
) -> Option<FramePlan> {
    let jacobi = matches!(params.mode, SolverMode::Jacobi { .. });
    let mut plan = FramePlan::default();
    let particles = model.particle_count() as u32;
    let projections = match layout {
        _ if !params.mode.projects() => Projections::None,
        DispatchStrategy::SingleWorkgroup => {
            let cost = if jacobi {
                jacobi_iteration_cost(model, context)
            } else {
                gauss_seidel_iteration_cost(model, context)
            };
            Projections::InOneWorkgroup(iteration_chunks(params.iterations, cost, context.loop_budget)?)
        }
        DispatchStrategy::Striped if !jacobi => {
            if context.loop_budget.is_some_and(|budget| striped_loop_cost(model, context) > budget) {
                return None;
            }
            Projections::PerIteration
        }
        _ => Projections::PerIteration,
    };
    if params.rigid_damping > 0.0 {
        let whole = DispatchInfo::zeroed();
        plan.push(Kernel::SumMoments, whole, workgroups_for(particles));
        plan.push(Kernel::SolveRigidMotion, whole, [1, 1]);
        plan.push(Kernel::DampToRigidMotion, whole, workgroups_for(particles));
    }
    // The air and the springs act on the state at the start of each substep, which only exists
    // between finalize and predict: with either, they are dispatched apart.
    let air = params.aerodynamics.is_some();
    let springs = !params.mode.projects();
    for substep in 0..params.substeps {
        let start = DispatchInfo { substep, ..DispatchInfo::zeroed() };
        if air {
            plan.push(Kernel::Aerodynamics, start, workgroups_for(particles));
        }
        if springs {
            plan.push(Kernel::Springs, start, workgroups_for(particles));
        }
        if air || springs || substep == 0 {
            plan.push(Kernel::Predict, start, workgroups_for(particles));
        }
        match &projections {
            // Semi-implicit Euler: predict alone moves the particles.
            Projections::None => {}
            Projections::InOneWorkgroup(chunks) => {
                let kernel = if jacobi {
                    Kernel::JacobiSubstep
                } else {
                    Kernel::ProjectSubstep { in_workgroup: context.cloth_in_workgroup }
                };
                for &(first_iteration, iterations) in chunks {
                    plan.push(kernel, DispatchInfo { first_iteration, iterations, ..DispatchInfo::zeroed() }, [1, 1]);
                }
            }
            Projections::PerIteration => {
                for it in 0..params.iterations {
                    push_iteration(&mut plan, jacobi, layout, model, context, it.min(1));
                }
            }
        }
        for colour in context.area_colours {
            let info = DispatchInfo {
                colour_first: colour.start,
                colour_count: colour.len() as u32,
                ..DispatchInfo::zeroed()
            };
            plan.push(Kernel::LimitAreas, info, workgroups_for(colour.len() as u32));
        }
        if context.tether_particles > 0 {
            plan.push(Kernel::ProjectTethers, DispatchInfo::zeroed(), workgroups_for(context.tether_particles));
        }
        if let Some(buckets) = context.hash_buckets {
            push_self_collision(&mut plan, particles, model.mesh().triangles.len() as u32, buckets);
        }
        // Finalize and the next substep's predict work particle by particle: one dispatch.
        let next = substep + 1;
        let (kernel, info) = if next < params.substeps && !air && !springs {
            (Kernel::FinalizeAndPredict, DispatchInfo { substep: next, ..DispatchInfo::zeroed() })
        } else {
            (Kernel::Finalize, DispatchInfo { substep, ..DispatchInfo::zeroed() })
        };
        plan.push(kernel, info, workgroups_for(particles));
    }
    Some(plan)
}

/// A substep's self-collision: the hash rebuilt from the predicted positions in four dispatches
/// (count, prefix sum in one workgroup, scatter, sort each bucket), the particle contacts and
/// the triangle contacts, then their application (which also clears the table's buckets and
/// sums).
fn push_self_collision(plan: &mut FramePlan, particles: u32, triangles: u32, buckets: u32) {
    let whole = DispatchInfo::zeroed();
    plan.push(Kernel::HashCount, whole, workgroups_for(particles));
    plan.push(Kernel::HashPrefixSum, whole, [1, 1]);
    plan.push(Kernel::HashScatter, whole, workgroups_for(particles));
    plan.push(Kernel::HashSortBuckets, whole, workgroups_for(buckets));
    plan.push(Kernel::SelfContacts, whole, workgroups_for(particles));
    plan.push(Kernel::TriangleContacts, whole, workgroups_for(triangles));
    plan.push(Kernel::ApplySelfContacts, whole, workgroups_for(particles.max(buckets + 1)));
}

/// How a substep's iterations are dispatched.
enum Projections {
    /// Not at all (mass-spring).
    None,
    /// In one workgroup, `(first iteration, iterations)` per dispatch.
    InOneWorkgroup(Vec<(u32, u32)>),
    /// Each iteration in dispatches of its own ([`push_iteration`]).
    PerIteration,
}

/// One iteration's dispatches in a multi-workgroup layout; `first` is 0 for a substep's first
/// iteration (which resets the XPBD multipliers), 1 after.
fn push_iteration(
    plan: &mut FramePlan,
    jacobi: bool,
    layout: DispatchStrategy,
    model: &ClothModel,
    context: &PlanContext,
    first: u32,
) {
    let iteration = DispatchInfo { first_iteration: first, iterations: 1, ..DispatchInfo::zeroed() };
    if jacobi {
        plan.push(Kernel::JacobiProject, iteration, workgroups_for(model.unit_count() as u32));
        plan.push(Kernel::JacobiApply, iteration, workgroups_for(model.particle_count() as u32));
    } else if layout == DispatchStrategy::Striped {
        let kernel = Kernel::ProjectStripes { in_workgroup: context.stripes_in_workgroup };
        for (phase, &base) in model.schedule().phases.iter().zip(&context.stripe_entries) {
            if phase.stripes.is_empty() {
                continue;
            }
            let info = DispatchInfo {
                colour_first: phase.colours.start as u32,
                colour_count: phase.colours.len() as u32,
                stripe_entries: base,
                ..iteration
            };
            plan.push(kernel, info, [phase.stripes.len() as u32, 1]);
        }
    } else {
        for (c, colour) in model.schedule().colours.iter().enumerate() {
            let info = DispatchInfo { colour_first: c as u32, colour_count: 1, ..iteration };
            plan.push(Kernel::ProjectColour, info, workgroups_for(colour.units.len() as u32));
        }
    }
}

/// Rounds of `n` over `threads` invocations.
fn strided(n: usize, threads: u32) -> u64 {
    (n as u64).div_ceil(u64::from(threads))
}

/// Loop iterations counted against llvmpipe's limit for one colour share of `units` units over
/// `threads` threads: the strided loop of the colour's unit type, the exit test of every unit
/// type's loop in the generated dispatch (SIMD drivers run the cases not taken too, masked
/// off), and one iteration of the loop over colours.
fn colour_loop_cost(units: usize, threads: u32) -> u64 {
    strided(units, threads) + UnitType::ALL.len() as u64 + 1
}

/// Loop iterations one invocation of the single-workgroup Gauss-Seidel kernel runs per
/// iteration, and once (its copies in and out, the loop around the iterations).
fn gauss_seidel_iteration_cost(model: &ClothModel, context: &PlanContext) -> (u64, u64) {
    let size = context.sizes.substep;
    let colours = &model.schedule().colours;
    let per_iteration = colours.iter().map(|c| colour_loop_cost(c.units.len(), size)).sum::<u64>() + 2;
    let copies = if context.cloth_in_workgroup { 2 * (strided(model.particle_count(), size) + 1) } else { 0 };
    (per_iteration, copies + 1)
}

/// The same for the single-workgroup Jacobi kernel: every unit, then every particle's gather.
fn jacobi_iteration_cost(model: &ClothModel, context: &PlanContext) -> (u64, u64) {
    let size = context.sizes.substep;
    let particles = model.particle_count();
    let units = model.unit_count();
    let longest_gather =
        context.jacobi.map_or(0, |plan| (0..particles).map(|i| plan.gather.row(i).len()).max().unwrap_or(0)) as u64;
    (strided(units, size) + 1 + strided(particles, size) * (longest_gather + 1) + 1 + 1, 1)
}

/// Splits a substep's iterations into dispatches `(first iteration, iterations)` that each stay
/// within `budget` (one dispatch without a budget); `None` if one iteration does not fit.
fn iteration_chunks(
    iterations: u32,
    (per_iteration, once): (u64, u64),
    budget: Option<u64>,
) -> Option<Vec<(u32, u32)>> {
    let Some(budget) = budget else {
        return Some(vec![(0, iterations)]);
    };
    let fitting = budget.checked_sub(once)? / per_iteration;
    if fitting == 0 {
        return None;
    }
    let per_chunk = fitting.min(u64::from(iterations)) as u32;
    Some((0..iterations).step_by(per_chunk as usize).map(|first| (first, per_chunk.min(iterations - first))).collect())
}

/// Loop iterations one invocation of the striped kernel runs at most: per colour of the largest
/// stripe, its strided loop plus the loop around it, and its copies in and out.
fn striped_loop_cost(model: &ClothModel, context: &PlanContext) -> u64 {
    let size = context.sizes.stripe;
    let cost = |s: &Stripe| {
        let colours: u64 = s.units.iter().map(|r| colour_loop_cost(r.len(), size)).sum();
        let copies = if context.stripes_in_workgroup { 2 * (strided(s.particles.len(), size) + 1) } else { 0 };
        colours + 1 + copies
    };
    model.schedule().phases.iter().flat_map(|p| &p.stripes).map(cost).max().unwrap_or(0)
}

/// Workgroups for `n` threads, spilling into y beyond the per-dimension limit.
pub(crate) fn workgroups_for(n: u32) -> [u32; 2] {
    let groups = n.div_ceil(WORKGROUP_SIZE).max(1);
    if groups <= MAX_WORKGROUPS_PER_DIMENSION {
        [groups, 1]
    } else {
        [MAX_WORKGROUPS_PER_DIMENSION, groups.div_ceil(MAX_WORKGROUPS_PER_DIMENSION)]
    }
}
