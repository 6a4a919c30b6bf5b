//! The constraint iterations (PBD Alg. 1 lines 9–11): each substep projects every constraint
//! `iterations` times, each followed by the collider contacts' projection ([`super::contacts`]),
//! by coloured Gauss-Seidel (PBD §3.2: the units of one colour share no
//! particle, colours one after the other) or by Jacobi (every unit from the same positions,
//! each particle then adding its corrections in a fixed order), with PBD stiffness or XPBD
//! compliance (the multipliers start from zero every substep, XPBD eq. 18). What is projected
//! comes from the constraint kinds and unit types of [`crate::constraints`]; the WGSL dispatch
//! over them is generated (`unit_dispatch.rs`), so a new kind touches nothing here. The
//! projections are spread over dispatches by the frame's layout ([`DispatchStrategy`]).
//! Mass-spring mode projects nothing. WGSL twins: `shaders/passes/iterations/` and the kinds'
//! files in `shaders/constraints/`.

mod buffers;
mod unit_dispatch;

use super::contacts::{project_contacts, PROJECT_CONTACTS};
use super::plan::{
    workgroups_for, Block, BlockSizes, DispatchInfo, DispatchStrategy, FramePlan, GpuFacts, WorkgroupSizes,
};
use super::{Build, CpuFrame, Kernel, LayoutRefused, Part, Pass, Setup, Shader, Stage, Uploads, SOLVE};
use crate::constraints::membrane::MAX_MATERIALS;
use crate::constraints::{Kind, Multipliers, SolveState, UnitType};
use crate::error::Error;
use crate::model::{ClothModel, JacobiPlan};
use crate::params::{SolverMode, SolverParams};
use crate::schedule::Stripe;
use crate::struct_layout;
use crate::wgsl::{Binding, BindingTable, Constant, Scalar, StructLayout, WgslFile};
use crate::wgsl_file;
use buffers::{constraint_records, record_bases, schedule_words, unit_table_offsets, JacobiLayout, ScheduleLayout};
use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use std::sync::Arc;
use unit_dispatch::unit_dispatch;

/// Unit types the parameters describe (`MAX_UNIT_TYPES` in WGSL).
pub const MAX_UNIT_TYPES: usize = 8;
const _: () = assert!(UnitType::ALL.len() <= MAX_UNIT_TYPES);
/// Constraint kinds the parameters describe (`MAX_KINDS` in WGSL).
pub const MAX_KINDS: usize = 5;
const _: () = assert!(Kind::COUNT <= MAX_KINDS);

/// The iterations pass.
#[derive(Debug, Clone, Default)]
pub(crate) struct IterationsPass {
    /// Jacobi's plan, once Jacobi mode is used.
    jacobi: Option<Arc<JacobiPlan>>,
    /// Where the schedule buffer's parts start, once laid out (GPU).
    schedule: Option<ScheduleLayout>,
    /// Whether the schedule buffer holds the unit table; `None` before it is uploaded.
    schedule_has_unit_table: Option<bool>,
    /// The XPBD multipliers (CPU).
    multipliers: Option<Multipliers>,
}

impl Pass for IterationsPass {
    fn name(&self) -> &'static str {
        "iterations"
    }

    fn stage(&self) -> Stage {
        Stage::Substep
    }

    /// The projections on the particles in storage, and on a copy in workgroup memory where
    /// the stripes or the whole cloth fit it.
    fn shaders(&self, build: &Build) -> Vec<Shader> {
        let (sizes, blocks) = (build.facts.sizes, build.facts.blocks);
        let sized =
            |name, uses| Kernel { name, entry_point: name, overrides: workgroup_sizes(sizes), uses: Some(uses) };
        let gauss_seidel =
            ["project_colour", "project_stripes", "project_substep"].map(|k| sized(k, GAUSS_SEIDEL_USES));
        let jacobi = ["jacobi_project", "jacobi_apply", "jacobi_substep"].map(|k| sized(k, JACOBI_USES));
        let storage = wgsl_file!("passes/iterations/gauss_seidel_storage.wgsl");
        let kernels = gauss_seidel.into_iter().chain(jacobi).collect();
        let mut shaders = vec![solver_shader("solver", build.unit_types, storage, true, kernels)];
        let in_workgroup = |name, entry_point, block: Option<Block>, whole_cloth: bool| {
            block.map(|block| {
                let mut overrides = workgroup_sizes(sizes);
                overrides.push(("BLOCK_VECTORS", f64::from(block.vectors())));
                overrides.push(("POSITIONS_IN_BLOCK", f64::from(u8::from(block.positions))));
                overrides.push(("WHOLE_CLOTH", f64::from(u8::from(whole_cloth))));
                Kernel { name, entry_point, overrides, uses: Some(GAUSS_SEIDEL_USES) }
            })
        };
        let in_workgroup: Vec<Kernel> = [
            in_workgroup(STRIPES_IN_WORKGROUP, "project_stripes", blocks.stripe, false),
            in_workgroup(SUBSTEP_IN_WORKGROUP, "project_substep", blocks.cloth, true),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !in_workgroup.is_empty() {
            let workgroup = wgsl_file!("passes/iterations/gauss_seidel_workgroup.wgsl");
            shaders.push(solver_shader("solver (workgroup memory)", build.unit_types, workgroup, false, in_workgroup));
        }
        shaders
    }

    /// The kinds' records and the schedule's layout the first time (GPU), Jacobi's plan the
    /// first time Jacobi mode is used, and the parameter block.
    fn prepare(&mut self, setup: &Setup, uploads: &mut Uploads) -> Result<(), Error> {
        let (model, params) = (setup.model, setup.params);
        if let (Some(facts), None) = (setup.gpu, self.schedule) {
            uploads.words("constraint_records", || constraint_records(model.constraints()));
            self.schedule = Some(ScheduleLayout::of(model, facts.blocks.stripe.is_some()));
        }
        if matches!(params.mode, SolverMode::Jacobi { .. }) && self.jacobi.is_none() {
            let plan = self.jacobi.insert(Arc::new(model.jacobi_plan()));
            uploads.reserve("corrections", 16 * u64::from(plan.slot_count.max(1)));
            uploads.words("jacobi_plan", || JacobiLayout::words(model, plan));
        }
        let unit_table = self.schedule.map_or(0, |layout| layout.unit_table);
        let jacobi = self.jacobi.as_deref();
        uploads.block("constraints", || GpuConstraintParams::new(params, model, jacobi, unit_table));
        Ok(())
    }

    /// The schedule, the first time and when a plan's kernels first read its unit table (a
    /// layout changed from the striped one in workgroup memory, which does not: the table is
    /// 48 bytes per particle of a grid, 60 % of the schedule).
    fn prepare_for_plan(&mut self, setup: &Setup, plan: &FramePlan, uploads: &mut Uploads) {
        let Some(facts) = setup.gpu else { return };
        let needed = plan.dispatches.iter().any(|d| reads_unit_table(d.kernel));
        if self.schedule_has_unit_table.is_none_or(|held| needed && !held) {
            let slots = facts.blocks.stripe.is_some();
            uploads.words("schedule", || schedule_words(setup.model, slots, needed));
            self.schedule_has_unit_table = Some(needed);
        }
    }

    fn dispatch(&self, setup: &Setup, plan: &mut FramePlan, _substep: u32) -> Result<(), LayoutRefused> {
        let (model, params) = (setup.model, setup.params);
        let jacobi = matches!(params.mode, SolverMode::Jacobi { .. });
        let facts = plan.facts;
        match plan.layout {
            _ if !params.mode.projects() => {}
            DispatchStrategy::SingleWorkgroup => {
                let cost = if jacobi {
                    jacobi_iteration_cost(model, &facts, self.jacobi.as_deref())
                } else {
                    gauss_seidel_iteration_cost(model, &facts)
                };
                let mut chunks = iteration_chunks(params.iterations, cost, facts.loop_budget()).ok_or(LayoutRefused)?;
                if setup.iteration_contacts() {
                    // The contacts are projected after every iteration.
                    chunks = (0..params.iterations).map(|first| (first, 1)).collect();
                }
                let kernel = match (jacobi, facts.blocks.cloth) {
                    (true, _) => "jacobi_substep",
                    (false, Some(_)) => SUBSTEP_IN_WORKGROUP,
                    (false, None) => "project_substep",
                };
                for (first_iteration, iterations) in chunks {
                    plan.push(kernel, DispatchInfo { first_iteration, iterations, ..DispatchInfo::zeroed() }, [1, 1]);
                    push_contacts(setup, plan);
                }
            }
            layout => {
                let striped = layout == DispatchStrategy::Striped && !jacobi;
                if striped && facts.loop_budget().is_some_and(|budget| striped_loop_cost(model, &facts) > budget) {
                    return Err(LayoutRefused);
                }
                for iteration in 0..params.iterations {
                    self.push_iteration(model, plan, jacobi, striped, iteration.min(1));
                    push_contacts(setup, plan);
                }
            }
        }
        Ok(())
    }

    fn run_cpu(&mut self, setup: &Setup, frame: &mut CpuFrame, _substep: u32) {
        let (model, params) = (setup.model, setup.params);
        let multipliers = self.multipliers.get_or_insert_with(|| Multipliers::zeros(model.constraints()));
        multipliers.reset();
        for _ in 0..params.iterations {
            match params.mode {
                SolverMode::GaussSeidel => project_gauss_seidel(model, frame.solve, multipliers),
                SolverMode::Jacobi { relaxation } => {
                    let plan = self.jacobi.as_deref().expect("planned when Jacobi mode was set");
                    project_jacobi(model, plan, relaxation, frame.solve, multipliers);
                }
                SolverMode::MassSpring(_) => break,
            }
            if setup.iteration_contacts() {
                project_contacts(frame.solve, &*frame.contacts);
            }
        }
    }
}

impl IterationsPass {
    /// One iteration's dispatches in a multi-workgroup layout; `first` is 0 for a substep's
    /// first iteration (which resets the XPBD multipliers), 1 after.
    fn push_iteration(&self, model: &ClothModel, plan: &mut FramePlan, jacobi: bool, striped: bool, first: u32) {
        let iteration = DispatchInfo { first_iteration: first, iterations: 1, ..DispatchInfo::zeroed() };
        if jacobi {
            plan.push("jacobi_project", iteration, workgroups_for(model.unit_count() as u32));
            plan.push("jacobi_apply", iteration, workgroups_for(model.particle_count() as u32));
        } else if striped {
            let kernel = if plan.facts.blocks.stripe.is_some() { STRIPES_IN_WORKGROUP } else { "project_stripes" };
            let layout = self.schedule.expect("the schedule is uploaded before the GPU plans");
            for (phase, &base) in model.schedule().phases.iter().zip(&layout.stripe_entries) {
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
                plan.push("project_colour", info, workgroups_for(colour.units.len() as u32));
            }
        }
    }
}

/// The contact projection after an iteration, on a cloth with colliders ([`super::contacts`]).
fn push_contacts(setup: &Setup, plan: &mut FramePlan) {
    if setup.iteration_contacts() {
        plan.push(
            PROJECT_CONTACTS.name(setup),
            DispatchInfo::zeroed(),
            workgroups_for(setup.model.particle_count() as u32),
        );
    }
}

/// The striped kernel on a copy of each stripe in workgroup memory.
const STRIPES_IN_WORKGROUP: &str = "project_stripes_in_workgroup";
/// The single-workgroup Gauss-Seidel kernel on a copy of the cloth in workgroup memory.
const SUBSTEP_IN_WORKGROUP: &str = "project_substep_in_workgroup";

/// Whether `kernel` reads the unit table: every Gauss-Seidel kernel but the striped one in
/// workgroup memory, whose units' slots address their stripe's copy and particle list
/// (`reads_unit_table` in `shaders/passes/iterations/gauss_seidel_workgroup.wgsl`).
fn reads_unit_table(kernel: &str) -> bool {
    matches!(kernel, SUBSTEP_IN_WORKGROUP | "project_colour" | "project_stripes" | "project_substep")
}

/// One coloured Gauss-Seidel sweep: the schedule's colours in order, each unit applied at once.
fn project_gauss_seidel(model: &ClothModel, state: &mut SolveState, multipliers: &mut Multipliers) {
    for colour in &model.schedule().colours {
        let unit_type = UnitType::ALL[colour.unit_type];
        for u in colour.units.clone() {
            unit_type.project(model.constraints(), u as usize, state, multipliers);
        }
    }
}

/// One Jacobi sweep: every unit reads the same positions and writes its scaled corrections to
/// its slots; each particle then adds its slots, summed in the fixed order of its gather list.
fn project_jacobi(
    model: &ClothModel,
    plan: &JacobiPlan,
    relaxation: f32,
    state: &mut SolveState,
    multipliers: &mut Multipliers,
) {
    let mut slots = vec![Vec3::ZERO; plan.slot_count as usize];
    for (t, unit_type) in UnitType::ALL.into_iter().enumerate() {
        let units = model.units(unit_type);
        let arity = unit_type.arity();
        for u in units.clone() {
            let first = (plan.slot_bases[t] + (u - units.start) * arity as u32) as usize;
            unit_type.jacobi(
                model.constraints(),
                u as usize,
                relaxation,
                &plan.scales,
                state,
                multipliers,
                &mut slots[first..first + arity],
            );
        }
    }
    for (i, q) in state.displacements.iter_mut().enumerate() {
        let sum = plan.gather.row(i).iter().fold(Vec3::ZERO, |s, &slot| s + slots[slot as usize]);
        *q += sum;
    }
}

/// The overrides of the workgroup sizes chosen per adapter.
fn workgroup_sizes(sizes: WorkgroupSizes) -> Vec<(&'static str, f64)> {
    vec![("STRIPE_WORKGROUP_SIZE", f64::from(sizes.stripe)), ("SUBSTEP_WORKGROUP_SIZE", f64::from(sizes.substep))]
}

/// A projection module `label` with `kernels`, on the particle access of `access` (in storage,
/// or on a copy in workgroup memory), dispatching over `unit_types`: the shared interface, the
/// schedule and Jacobi's slots, the kinds' and unit types' files, the generated dispatch, then
/// the Gauss-Seidel kernels and, `with_jacobi`, Jacobi's.
fn solver_shader(
    label: &'static str,
    unit_types: &[UnitType],
    access: WgslFile,
    with_jacobi: bool,
    kernels: Vec<Kernel>,
) -> Shader {
    let mut constants = vec![
        Constant::u32("MAX_UNIT_TYPES", MAX_UNIT_TYPES as u32),
        Constant::u32("MAX_KINDS", MAX_KINDS as u32),
        Constant::u32("MAX_MATERIALS", MAX_MATERIALS as u32),
        Constant::u32("MATERIAL_SHIFT", crate::constraints::curvature::MATERIAL_SHIFT),
    ];
    for kind in Kind::ALL {
        let name = kind.name().to_uppercase();
        constants.push(Constant::named(format!("KIND_{name}"), Scalar::U32(kind.id() as u32)));
        constants.push(Constant::named(format!("{name}_RECORD_WORDS"), Scalar::U32(kind.record_words() as u32)));
    }
    constants.push(Constant::f32("MAX_BENDING_STEP", crate::constraints::bending::MAX_BENDING_STEP));
    let mut parts = vec![
        Part::File(wgsl_file!("passes/iterations/units.wgsl")),
        Part::File(wgsl_file!("passes/iterations/schedule.wgsl")),
        Part::File(wgsl_file!("passes/iterations/jacobi_slots.wgsl")),
        Part::File(access),
    ];
    parts.extend(Kind::ALL.iter().map(|k| Part::File(k.wgsl())));
    parts.extend(UnitType::ALL.iter().filter_map(|t| t.wgsl()).map(Part::File));
    parts.push(Part::Generated(unit_dispatch(unit_types)));
    parts.push(Part::File(wgsl_file!("passes/iterations/gauss_seidel.wgsl")));
    if with_jacobi {
        parts.push(Part::File(wgsl_file!("passes/iterations/jacobi.wgsl")));
    }
    let mut structs = vec![GpuKind::LAYOUT];
    structs.extend(Kind::ALL.iter().map(|k| k.record_layout()));
    let block = Some(("constraints", GpuConstraintParams::LAYOUT));
    Shader { label, constants, groups: vec![&SOLVE, &ITERATIONS], parts, structs, block, kernels }
}

/// What the Gauss-Seidel kernels bind of [`ITERATIONS`]: the records and the schedule.
const GAUSS_SEIDEL_USES: &[&str] = &["constraint_records", "schedule"];
/// What the Jacobi kernels bind of [`ITERATIONS`]: the records, the slots and Jacobi's plan.
const JACOBI_USES: &[&str] = &["constraint_records", "corrections", "jacobi_plan"];

/// Group 2 of the iterations: its WGSL declarations serve the kernels of Gauss-Seidel and of
/// Jacobi, each of which binds only its part ([`GAUSS_SEIDEL_USES`], [`JACOBI_USES`]).
static ITERATIONS: BindingTable = BindingTable {
    label: "iterations",
    bindings: &[
        Binding::read_write(
            "constraint_records",
            "array<u32>",
            4,
            "Every kind's records, kind after kind (src/passes/iterations/buffers.rs\n\
             `constraint_records`), multipliers written.",
        ),
        Binding::read(
            "schedule",
            "array<u32>",
            4,
            "The Gauss-Seidel schedule (shaders/passes/iterations/schedule.wgsl).",
        ),
        Binding::read_write("corrections", "array<vec4<f32>>", 16, "Jacobi's correction slots."),
        Binding::read("jacobi_plan", "array<u32>", 4, "Jacobi's plan (shaders/passes/iterations/jacobi_slots.wgsl)."),
    ],
};

/// `KindParams` in WGSL: what the kernels read of one constraint kind.
#[allow(missing_docs)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuKind {
    pub response: [f32; 4],
    pub records: u32,
    pub jacobi_shares: u32,
    pub mapped: u32,
    /// Pads the uniform array stride to 32 bytes.
    pub _pad: u32,
}

impl GpuKind {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout = struct_layout!(GpuKind as "KindParams", response, records, jacobi_shares, mapped);
}

/// `ConstraintParams` in WGSL: what the projections read, derived from [`SolverParams`].
#[allow(missing_docs)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuConstraintParams {
    pub unit_types: [[u32; 4]; MAX_UNIT_TYPES],
    pub kinds: [GpuKind; MAX_KINDS],
    /// The membrane's materials' responses ([`Kind::gpu_materials`]).
    pub membrane_materials: [[f32; 4]; MAX_MATERIALS],
    /// The curvature's materials' responses ([`Kind::gpu_materials`]).
    pub curvature_materials: [[f32; 4]; MAX_MATERIALS],
    pub strain_limits: [f32; 4],
    pub relaxation: f32,
    pub colour_count: u32,
    pub unit_table: u32,
    pub jacobi_items: u32,
    pub jacobi_unit_table: u32,
    /// Pads the struct to 16 bytes.
    pub _pad: [u32; 3],
}

impl GpuConstraintParams {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout = struct_layout!(
        GpuConstraintParams as "ConstraintParams",
        unit_types,
        kinds,
        membrane_materials,
        curvature_materials,
        strain_limits,
        relaxation,
        colour_count,
        unit_table,
        jacobi_items,
        jacobi_unit_table
    );

    /// The block for validated `params`; `jacobi` is the model's Jacobi plan when Jacobi's
    /// buffers exist, `unit_table` where the unit table starts in the schedule buffer.
    fn new(params: &SolverParams, model: &ClothModel, jacobi: Option<&JacobiPlan>, unit_table: u32) -> Self {
        let responses = model.responses(params);
        let mut unit_types = [[0; 4]; MAX_UNIT_TYPES];
        let table_offsets = unit_table_offsets(model);
        for ((t, entry), table_offset) in UnitType::ALL.iter().zip(&mut unit_types).zip(table_offsets) {
            let units = model.units(*t);
            let slot_base = jacobi.map_or(0, |plan| plan.slot_bases[t.id() as usize]);
            *entry = [units.start, units.end - units.start, slot_base, table_offset];
        }
        let jacobi_layout = jacobi.map(|plan| JacobiLayout::of(model, plan));
        let mut kinds = [GpuKind::zeroed(); MAX_KINDS];
        for ((kind, entry), records) in Kind::ALL.iter().zip(&mut kinds).zip(record_bases(model.constraints())) {
            entry.response = kind.gpu_response(&responses);
            entry.records = records;
            entry.jacobi_shares = jacobi_layout.map_or(0, |layout| layout.shares[kind.id()]);
            entry.mapped = u32::from(model.constraints().of(*kind).scaled());
        }
        let table = |kind: Kind| {
            let mut table = [[0.0; 4]; MAX_MATERIALS];
            for (entry, material) in table.iter_mut().zip(kind.gpu_materials(&responses, model.constraints())) {
                *entry = material;
            }
            table
        };
        Self {
            unit_types,
            kinds,
            membrane_materials: table(Kind::Membrane),
            curvature_materials: table(Kind::Curvature),
            strain_limits: match params.strain_limits {
                Some(limits) => [limits.min, limits.max, 1.0, 0.0],
                None => [0.0; 4],
            },
            relaxation: match params.mode {
                SolverMode::Jacobi { relaxation } => relaxation,
                _ => 1.0,
            },
            colour_count: model.schedule().colours.len() as u32,
            unit_table,
            jacobi_items: jacobi_layout.map_or(0, |layout| layout.items),
            jacobi_unit_table: jacobi_layout.map_or(0, |layout| layout.unit_table),
            _pad: [0; 3],
        }
    }
}

/// A device with both workgroup-memory variants, for building every module
/// ([`super::shader_modules`]).
pub(crate) fn every_variant() -> GpuFacts {
    let block = Some(Block { particles: 512, positions: true });
    GpuFacts {
        cpu: false,
        sizes: WorkgroupSizes::for_adapter(false),
        blocks: BlockSizes { stripe: block, cloth: block },
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
fn gauss_seidel_iteration_cost(model: &ClothModel, facts: &GpuFacts) -> (u64, u64) {
    let size = facts.sizes.substep;
    let colours = &model.schedule().colours;
    let per_iteration = colours.iter().map(|c| colour_loop_cost(c.units.len(), size)).sum::<u64>() + 2;
    let copies = if facts.blocks.cloth.is_some() { 2 * (strided(model.particle_count(), size) + 1) } else { 0 };
    (per_iteration, copies + 1)
}

/// The same for the single-workgroup Jacobi kernel: every unit, then every particle's gather.
fn jacobi_iteration_cost(model: &ClothModel, facts: &GpuFacts, jacobi: Option<&JacobiPlan>) -> (u64, u64) {
    let size = facts.sizes.substep;
    let particles = model.particle_count();
    let units = model.unit_count();
    let longest_gather =
        jacobi.map_or(0, |plan| (0..particles).map(|i| plan.gather.row(i).len()).max().unwrap_or(0)) as u64;
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
fn striped_loop_cost(model: &ClothModel, facts: &GpuFacts) -> u64 {
    let size = facts.sizes.stripe;
    let cost = |s: &Stripe| {
        let colours: u64 = s.units.iter().map(|r| colour_loop_cost(r.len(), size)).sum();
        let copies = if facts.blocks.stripe.is_some() { 2 * (strided(s.particles.len(), size) + 1) } else { 0 };
        colours + 1 + copies
    };
    model.schedule().phases.iter().flat_map(|p| &p.stripes).map(cost).max().unwrap_or(0)
}
