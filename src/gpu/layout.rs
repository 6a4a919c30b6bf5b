//! `#[repr(C)]` mirrors of the structs in `shaders/common.wgsl`, built from host types by
//! `from_*`/`new` functions. Field meanings are documented once, on the WGSL side. `tests/shaders.rs` checks sizes and offsets against naga's layout.

use crate::collider::{Collider, MAX_COLLIDERS};
use crate::coloring::MAX_COLOURS;
use crate::model::{ClothModel, Phase};
use crate::params::{SolverMode, SolverParams};
use bytemuck::{Pod, Zeroable};

/// Workgroup size of the per-element kernels (`WORKGROUP_SIZE` in `common.wgsl`).
pub const WORKGROUP_SIZE: u32 = 64;
/// Dynamic uniform offsets must be multiples of this (WebGPU's default
/// `min_uniform_buffer_offset_alignment`), so dispatch table entries are this far apart.
pub const DISPATCH_ENTRY_STRIDE: u64 = 256;

/// `Collider` in WGSL.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuCollider {
    /// Plane: normal xyz, offset w. Sphere: centre xyz, radius w.
    pub shape: [f32; 4],
    /// 0 = plane, 1 = sphere.
    pub kind: u32,
    /// Pads the uniform array stride to 32 bytes.
    pub _pad: [u32; 3],
}

impl GpuCollider {
    /// `COLLIDER_PLANE` in WGSL.
    pub const PLANE: u32 = 0;
    /// `COLLIDER_SPHERE` in WGSL.
    pub const SPHERE: u32 = 1;

    fn from_collider(collider: &Collider) -> Self {
        let (shape, kind) = match *collider {
            Collider::Plane { normal, offset } => ([normal.x, normal.y, normal.z, offset], Self::PLANE),
            Collider::Sphere { center, radius } => ([center.x, center.y, center.z, radius], Self::SPHERE),
        };
        Self { shape, kind, _pad: [0; 3] }
    }
}

/// `Params` in WGSL: everything a frame's kernels read, derived from [`SolverParams`].
#[allow(missing_docs)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuParams {
    pub acceleration: [f32; 4],
    pub phase_colours: [u32; 4],
    pub stretch: [f32; 2],
    pub compression: [f32; 2],
    pub bending: [f32; 2],
    pub relaxation: f32,
    pub h: f32,
    pub damping_factor: f32,
    pub friction: f32,
    pub restitution: f32,
    pub restitution_threshold: f32,
    pub collision_margin: f32,
    pub particle_count: u32,
    pub constraint_count: u32,
    pub stretch_count: u32,
    pub colour_count: u32,
    pub substeps: u32,
    pub iterations: u32,
    pub collider_count: u32,
    pub colliders: [GpuCollider; MAX_COLLIDERS],
}

impl GpuParams {
    /// Derives the GPU parameters; `params` and `colliders` must already be validated.
    pub fn new(params: &SolverParams, model: &ClothModel, colliders: &[Collider]) -> Self {
        let h = params.substep_dt();
        let [stretch, compression, bending] = params.responses();
        let mut gpu_colliders = [GpuCollider::zeroed(); MAX_COLLIDERS];
        for (slot, collider) in gpu_colliders.iter_mut().zip(colliders) {
            *slot = GpuCollider::from_collider(collider);
        }
        let acceleration = params.gravity + params.external_acceleration;
        let kinds = |p: &Phase| [p.stretch_colours as u32, p.bending_colours() as u32];
        let [p0, p1] = model.phases.each_ref().map(kinds);
        Self {
            acceleration: [acceleration.x, acceleration.y, acceleration.z, 0.0],
            phase_colours: [p0[0], p0[1], p1[0], p1[1]],
            stretch,
            compression,
            bending,
            relaxation: match params.mode {
                SolverMode::Jacobi { relaxation } => relaxation,
                SolverMode::GaussSeidel => 1.0,
            },
            h,
            damping_factor: (1.0 - params.damping * h).max(0.0),
            friction: params.friction,
            restitution: params.restitution,
            restitution_threshold: params.restitution_threshold(),
            collision_margin: params.collision_margin,
            particle_count: model.particle_count() as u32,
            constraint_count: model.constraints.len() as u32,
            stretch_count: model.stretch_count as u32,
            colour_count: model.colours.len() as u32,
            substeps: params.substeps,
            iterations: params.iterations,
            collider_count: colliders.len() as u32,
            colliders: gpu_colliders,
        }
    }
}

/// `ColourTable` in WGSL: `[first constraint, count, 0, 0]` per colour.
#[allow(missing_docs)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct ColourTable {
    pub entries: [[u32; 4]; MAX_COLOURS],
}

impl ColourTable {
    /// The model's colours in projection order.
    pub fn from_model(model: &ClothModel) -> Self {
        let mut table = Self::zeroed();
        for (entry, range) in table.entries.iter_mut().zip(&model.colours) {
            *entry = [range.start, range.end - range.start, 0, 0];
        }
        table
    }
}

/// `DispatchInfo` in WGSL: what one dispatch works on. Stored [`DISPATCH_ENTRY_STRIDE`] bytes
/// apart in the dispatch table and selected with a dynamic offset.
#[allow(missing_docs)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct DispatchInfo {
    pub substep: u32,
    pub colour_start: u32,
    pub colour_count: u32,
    pub iterations: u32,
    pub stages: u32,
    pub stripe_entries: u32,
    pub phase: u32,
}

/// `STAGE_PREDICT` in WGSL: the dispatch starts its substep.
pub const STAGE_PREDICT: u32 = 1;
/// `STAGE_FINALIZE` in WGSL: the dispatch ends its substep.
pub const STAGE_FINALIZE: u32 = 2;

/// The `lists` buffer (`u32`s): the Jacobi gather lists (offsets, then slots); then for each
/// phase, stripe by stripe, an entry `[particle list start, particle count, then a (start,
/// count) pair per colour of the phase]`; then the stripes' particle lists. Returns the words
/// and where each phase's stripe entries start.
pub fn index_lists(model: &ClothModel) -> (Vec<u32>, [u32; 2]) {
    let mut words = model.particle_slots.words();
    let entry_words: usize = model.phases.iter().map(|p| p.stripes.len() * (2 + 2 * p.colours.len())).sum();
    let mut particle_list = (words.len() + entry_words) as u32;
    let mut bases = [0; 2];
    for (base, phase) in bases.iter_mut().zip(&model.phases) {
        *base = words.len() as u32;
        for stripe in &phase.stripes {
            let count = stripe.particles.len() as u32;
            words.extend([particle_list, count]);
            particle_list += count;
            for range in &stripe.ranges {
                words.extend([range.start, range.end - range.start]);
            }
        }
    }
    words.extend(model.phases.iter().flat_map(|p| &p.stripes).flat_map(|s| &s.particles));
    (words, bases)
}
