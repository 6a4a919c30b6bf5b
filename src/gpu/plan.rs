//! The frame plan: which kernels a frame dispatches, in what order, with which dispatch table
//! entry and how many workgroups — built when parameters change, replayed every frame.

use super::layout::{DispatchInfo, STAGE_FINALIZE, STAGE_PREDICT, WORKGROUP_SIZE};
use crate::model::{ClothModel, Stripe};
use crate::params::{DispatchStrategy, SolverMode, SolverParams};
use bytemuck::Zeroable;

/// Invocations per workgroup of the kernels whose size is chosen per adapter (WGSL overrides
/// `FUSED_WORKGROUP_SIZE` and `STRIPE_WORKGROUP_SIZE`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct WorkgroupSizes {
    /// The single-workgroup kernels.
    pub fused: u32,
    /// The striped kernel.
    pub stripe: u32,
}

impl WorkgroupSizes {
    /// GPUs: 256 for the single workgroup (the WebGPU default maximum) and 64 per stripe.
    /// CPU adapters (llvmpipe runs 8 invocations per SIMD vector, one workgroup per core):
    /// 64 for the single workgroup (~15 % faster per frame than 256 on lavapipe and keeps its
    /// loops short for llvmpipe's limit) and 8 per stripe (a stripe's colours hold ~100
    /// constraints, so wider groups mostly run masked-off lanes; ~15 % faster than 64).
    pub fn for_adapter(cpu: bool) -> Self {
        if cpu {
            Self { fused: 64, stripe: 8 }
        } else {
            Self { fused: 256, stripe: 64 }
        }
    }
}

/// Most workgroups in one dimension of a dispatch (WebGPU default limit).
pub(crate) const MAX_WORKGROUPS_PER_DIMENSION: u32 = 65_535;

/// The kernels of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kernel {
    Predict,
    ProjectStretchColour,
    ProjectHingeColour,
    JacobiProject,
    JacobiApply,
    Finalize,
    FinalizeAndPredict,
    FusedGaussSeidel,
    FusedJacobi,
    ProjectStripes,
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

/// Builds the frame's dispatches. `loop_budget` is `Some` on CPU adapters (see
/// the solver's CPU loop budget); `None` when a single-workgroup or striped frame cannot stay
/// within it. `stripe_entries` says where each phase's stripe entries start in the index lists.
pub(crate) fn frame_plan(
    params: &SolverParams,
    strategy: DispatchStrategy,
    model: &ClothModel,
    sizes: WorkgroupSizes,
    loop_budget: Option<u64>,
    stripe_entries: [u32; 2],
) -> Option<FramePlan> {
    let jacobi = matches!(params.mode, SolverMode::Jacobi { .. });
    let mut plan = FramePlan::default();
    let info = |substep| DispatchInfo { substep, ..DispatchInfo::zeroed() };
    if strategy == DispatchStrategy::SingleWorkgroup {
        let kernel = if jacobi { Kernel::FusedJacobi } else { Kernel::FusedGaussSeidel };
        let costs = FusedLoopCosts::new(params, model, sizes.fused);
        let chunks = costs.chunks(params.iterations, loop_budget)?;
        for substep in 0..params.substeps {
            for &(iterations, stages) in &chunks {
                plan.push(kernel, DispatchInfo { iterations, stages, ..info(substep) }, [1, 1]);
            }
        }
        return Some(plan);
    }
    // Jacobi has no stripes: the solver plans its striped layout as the per-colour one.
    let striped = strategy == DispatchStrategy::Striped;
    if striped && loop_budget.is_some_and(|budget| striped_loop_cost(model, sizes.stripe) > budget) {
        return None;
    }
    let particles = model.particle_count() as u32;
    // Jacobi projects one edge per thread: a hinge, or a free edge (`shaders/jacobi.wgsl`).
    let edges = model.stretch_count as u32;
    plan.push(Kernel::Predict, info(0), workgroups_for(particles));
    for substep in 0..params.substeps {
        for _ in 0..params.iterations {
            if jacobi {
                plan.push(Kernel::JacobiProject, info(0), workgroups_for(edges));
                plan.push(Kernel::JacobiApply, info(0), workgroups_for(particles));
            } else if striped {
                for ((index, phase), base) in model.phases.iter().enumerate().zip(stripe_entries) {
                    if phase.stripes.is_empty() {
                        continue;
                    }
                    let stripes = DispatchInfo { stripe_entries: base, phase: index as u32, ..info(0) };
                    plan.push(Kernel::ProjectStripes, stripes, [phase.stripes.len() as u32, 1]);
                }
            } else {
                for range in &model.colours {
                    let colour =
                        DispatchInfo { colour_start: range.start, colour_count: range.end - range.start, ..info(0) };
                    let kernel = if (range.start as usize) < model.stretch_count {
                        Kernel::ProjectStretchColour
                    } else {
                        Kernel::ProjectHingeColour
                    };
                    plan.push(kernel, colour, workgroups_for(range.end - range.start));
                }
            }
        }
        // Finalize and the next substep's predict work particle by particle: one dispatch.
        let next = substep + 1;
        let (kernel, boundary) =
            if next < params.substeps { (Kernel::FinalizeAndPredict, info(next)) } else { (Kernel::Finalize, info(0)) };
        plan.push(kernel, boundary, workgroups_for(particles));
    }
    Some(plan)
}

/// Upper bounds of the loop iterations one invocation of a single-workgroup kernel runs in each
/// part of a substep: its strided loops over particles and constraints, the per-colour loops, the
/// gather and collider loops inside them, and the uniform loops around them.
struct FusedLoopCosts {
    predict: u64,
    iteration: u64,
    finalize: u64,
}

impl FusedLoopCosts {
    fn new(params: &SolverParams, model: &ClothModel, workgroup_size: u32) -> Self {
        let strided = |n: usize| (n as u64).div_ceil(u64::from(workgroup_size));
        let particles = model.particle_count();
        let constraints = model.constraints.len();
        let longest_gather = (0..particles).map(|i| model.particle_slots.row(i).len()).max().unwrap_or(0) as u64;
        let sweep: u64 = match params.mode {
            SolverMode::GaussSeidel => model.colours.iter().map(|r| strided((r.end - r.start) as usize) + 1).sum(),
            SolverMode::Jacobi { .. } => strided(model.stretch_count) + strided(particles) * (longest_gather + 1),
        };
        let colliders = crate::collider::MAX_COLLIDERS as u64;
        Self {
            predict: strided(particles) + strided(constraints),
            iteration: sweep + 1,
            finalize: strided(particles) * (2 * colliders + 1),
        }
    }

    /// Splits a substep's iterations into dispatches of `(iterations, stages)` that each stay
    /// within `budget` (one dispatch per substep without a budget); `None` if impossible.
    fn chunks(&self, iterations: u32, budget: Option<u64>) -> Option<Vec<(u32, u32)>> {
        let Some(budget) = budget else {
            return Some(vec![(iterations, STAGE_PREDICT | STAGE_FINALIZE)]);
        };
        let mut chunks = Vec::new();
        let (mut left, mut first) = (u64::from(iterations), true);
        loop {
            let predict = if first { STAGE_PREDICT } else { 0 };
            let room = budget.checked_sub(if first { self.predict } else { 0 })?;
            if left * self.iteration + self.finalize <= room {
                chunks.push((left as u32, predict | STAGE_FINALIZE));
                return Some(chunks);
            }
            let fitting = (room / self.iteration).min(left);
            if fitting == 0 && !first {
                return None;
            }
            chunks.push((fitting as u32, predict));
            left -= fitting;
            first = false;
        }
    }
}

/// Loop iterations one invocation of the striped kernel runs at most: per colour of the
/// largest stripe, its strided loop plus the loop around it, and the two strided copies of the
/// stripe's particles.
fn striped_loop_cost(model: &ClothModel, workgroup_size: u32) -> u64 {
    let strided = |n: u32| u64::from(n).div_ceil(u64::from(workgroup_size));
    let stripes = model.phases.iter().flat_map(|p| &p.stripes);
    let cost = |s: &Stripe| {
        let colours: u64 = s.ranges.iter().map(|r| strided(r.end - r.start) + 1).sum();
        colours + 1 + 2 * (strided(s.particles.len() as u32) + 1)
    };
    stripes.map(cost).max().unwrap_or(0)
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
