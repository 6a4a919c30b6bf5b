//! `#[repr(C)]` mirrors of the frame structs in `shaders/common.wgsl`, built from host types.
//! Field meanings are documented once, on the WGSL side; `tests/shaders.rs` checks sizes and
//! offsets against naga's layout. The kinds' records live with their kinds
//! ([`crate::constraints`]), the pin record with the pins ([`crate::pins`]).

use crate::collision::{Collider, Motion, MovingCollider};
use crate::constraints::{Constraints, Kind, UnitType};
use crate::model::{ClothModel, JacobiPlan};
use crate::params::{Aerodynamics, SolverMode, SolverParams};
use crate::passes::rigid_damping::frame_fraction;
use crate::passes::self_collision::hash_table_size;
use crate::passes::self_collision::triangles::fixed_point_exponent;
use bytemuck::{Pod, Zeroable};

/// Workgroup size of the per-element kernels (`WORKGROUP_SIZE` in `common.wgsl`).
pub const WORKGROUP_SIZE: u32 = 64;
/// Unit types the parameters describe (`MAX_UNIT_TYPES` in `common.wgsl`).
pub const MAX_UNIT_TYPES: usize = 4;
const _: () = assert!(UnitType::ALL.len() <= MAX_UNIT_TYPES);
/// Constraint kinds the parameters describe (`MAX_KINDS` in `common.wgsl`).
pub const MAX_KINDS: usize = 4;
const _: () = assert!(Kind::COUNT <= MAX_KINDS);
/// Dynamic uniform offsets must be multiples of this (WebGPU's default
/// `min_uniform_buffer_offset_alignment`), so dispatch table entries are this far apart.
pub const DISPATCH_ENTRY_STRIDE: u64 = 256;

/// `Collider` in WGSL.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuCollider {
    /// Plane: normal xyz, offset w. Sphere: centre xyz, radius w. Capsule: end `a` xyz, radius
    /// w. Box: centre xyz, rounding w. Mesh: translation xyz, cell size w.
    pub a: [f32; 4],
    /// Capsule: end `b` xyz. Box: half extents xyz. Mesh: the field's origin xyz.
    pub b: [f32; 4],
    /// Box and mesh: rotation quaternion (x, y, z, w).
    pub rotation: [f32; 4],
    /// The frame's motion ([`Motion`]): the translation at its start (w unused).
    pub start_translation: [f32; 4],
    /// The rotation quaternion at its start.
    pub start_rotation: [f32; 4],
    /// The translation at its end (w unused).
    pub end_translation: [f32; 4],
    /// The rotation quaternion at its end.
    pub end_rotation: [f32; 4],
    /// Its [`crate::collision::ContactMaterial`]: margin, static and dynamic friction,
    /// restitution.
    pub material: [f32; 4],
    /// The sphere around everything it sweeps in the frame: centre xyz, radius w (−1 for a
    /// plane, unbounded).
    pub bounds: [f32; 4],
    /// Mesh: the field's samples along x, y and z, and the texture layer its samples start at
    /// (`FieldAtlas` in `src/gpu/fields.rs`).
    pub field: [u32; 4],
    /// [`GpuCollider::PLANE`], [`GpuCollider::SPHERE`], [`GpuCollider::CAPSULE`],
    /// [`GpuCollider::BOX`] or [`GpuCollider::MESH`].
    pub kind: u32,
    /// Pads the array stride to 176 bytes.
    pub _pad: [u32; 3],
}

impl GpuCollider {
    /// `COLLIDER_PLANE` in WGSL.
    pub const PLANE: u32 = 0;
    /// `COLLIDER_SPHERE` in WGSL.
    pub const SPHERE: u32 = 1;
    /// `COLLIDER_CAPSULE` in WGSL.
    pub const CAPSULE: u32 = 2;
    /// `COLLIDER_BOX` in WGSL.
    pub const BOX: u32 = 3;
    /// `COLLIDER_MESH` in WGSL.
    pub const MESH: u32 = 4;

    /// The record of `collider` over the coming frame; a mesh's field starts at texture layer
    /// `first_layer` (`FieldAtlas::first_layer` in `src/gpu/fields.rs`, 0 for other shapes).
    pub fn new(collider: &MovingCollider, first_layer: u32) -> Self {
        let zero = [0.0; 4];
        let MovingCollider { ref shape, motion, material, bounds } = *collider;
        let no_field = [0; 4];
        let (a, b, rotation, field, kind) = match *shape {
            Collider::Plane { normal, offset } => (normal.extend(offset).to_array(), zero, zero, no_field, Self::PLANE),
            Collider::Sphere { center, radius } => {
                (center.extend(radius).to_array(), zero, zero, no_field, Self::SPHERE)
            }
            Collider::Capsule { a, b, radius } => {
                (a.extend(radius).to_array(), b.extend(0.0).to_array(), zero, no_field, Self::CAPSULE)
            }
            Collider::Box { center, half_extents, rotation, rounding } => (
                center.extend(rounding).to_array(),
                half_extents.extend(0.0).to_array(),
                rotation.to_array(),
                no_field,
                Self::BOX,
            ),
            Collider::Mesh { ref field, pose } => (
                pose.translation.extend(field.cell_size()).to_array(),
                field.origin().extend(0.0).to_array(),
                pose.rotation.to_array(),
                field.size().extend(first_layer).to_array(),
                Self::MESH,
            ),
        };
        let Motion { start, end } = motion;
        Self {
            a,
            b,
            rotation,
            start_translation: start.translation.extend(0.0).to_array(),
            start_rotation: start.rotation.to_array(),
            end_translation: end.translation.extend(0.0).to_array(),
            end_rotation: end.rotation.to_array(),
            material: [
                material.collision_margin,
                material.static_friction,
                material.dynamic_friction,
                material.restitution,
            ],
            bounds: bounds.map_or([0.0, 0.0, 0.0, -1.0], |sphere| sphere.center.extend(sphere.radius).to_array()),
            field,
            kind,
            _pad: [0; 3],
        }
    }
}

/// The head of `ColliderList` in WGSL, before its `Collider` records.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuColliderListHead {
    /// Particle substeps near more colliders than fit ([`crate::metrics::Overflows::colliders`]).
    pub overflow: u32,
    /// How many records follow.
    pub count: u32,
    /// Aligns the records to 16 bytes.
    pub _pad: [u32; 2],
}

/// The head of `SpatialHashTable` in WGSL (`shaders/passes/self_collision.wgsl`), before its bucket
/// starts.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuSpatialHashHead {
    /// Particle and triangle substeps that overflowed a self-collision capacity
    /// ([`crate::metrics::Overflows::self_contacts`]).
    pub overflow: u32,
    /// Aligns the buckets to 16 bytes.
    pub _pad: [u32; 3],
}

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

/// `Air` in WGSL: the air of [`Aerodynamics`], all zero when it is off.
#[allow(missing_docs)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuAir {
    pub wind: [f32; 4],
    pub density: f32,
    pub drag_coefficient: f32,
    pub lift_coefficient: f32,
    pub gust_strength: f32,
    pub gust_frequency: f32,
    /// Pads the struct to 16 bytes.
    pub _pad: [u32; 3],
}

impl GpuAir {
    fn new(aero: Option<&Aerodynamics>) -> Self {
        let Some(aero) = aero else {
            return Self::zeroed();
        };
        let wind = aero.wind;
        Self {
            wind: [wind.x, wind.y, wind.z, wind.length()],
            density: aero.air_density,
            drag_coefficient: aero.drag_coefficient,
            lift_coefficient: aero.lift_coefficient,
            gust_strength: aero.gusts.strength,
            gust_frequency: aero.gusts.frequency,
            _pad: [0; 3],
        }
    }
}

/// `Params` in WGSL: everything a frame's kernels read, derived from [`SolverParams`].
#[allow(missing_docs)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuParams {
    pub acceleration: [f32; 4],
    pub unit_types: [[u32; 4]; MAX_UNIT_TYPES],
    pub kinds: [GpuKind; MAX_KINDS],
    pub tether: [f32; 4],
    pub strain_limits: [f32; 4],
    pub area_limits: [f32; 4],
    pub air: GpuAir,
    pub springs: [f32; 4],
    pub self_collision: [f32; 4],
    pub relaxation: f32,
    pub h: f32,
    pub damping_factor: f32,
    pub restitution_threshold: f32,
    pub particle_count: u32,
    pub pin_count: u32,
    pub colour_count: u32,
    pub substeps: u32,
    pub unit_table: u32,
    pub jacobi_items: u32,
    pub jacobi_unit_table: u32,
    pub tether_particles: u32,
    pub rigid_damping: f32,
    pub hash_table_size: u32,
    pub triangle_count: u32,
    /// Pads the struct to 16 bytes.
    pub _pad: u32,
}

impl GpuParams {
    /// Derives the GPU parameters; `params` must already be validated.
    /// `jacobi` is the model's Jacobi plan when Jacobi's buffers exist; `unit_table` is where the
    /// unit table starts in the schedule buffer; `tether_particles` counts the tethered particles.
    pub fn new(
        params: &SolverParams,
        model: &ClothModel,
        pin_count: usize,
        jacobi: Option<&JacobiPlan>,
        unit_table: u32,
        tether_particles: usize,
    ) -> Self {
        let h = params.substep_dt();
        let responses = params.responses();
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
            entry.mapped = u32::from(model.constraints().of(*kind).stiffness_scales().iter().any(|&s| s != 1.0));
        }
        let acceleration = params.gravity + params.external_acceleration;
        Self {
            acceleration: [acceleration.x, acceleration.y, acceleration.z, 0.0],
            unit_types,
            kinds,
            tether: {
                let [k, alpha_tilde] = params.tether_response();
                [k, alpha_tilde, params.tethers.scale, 0.0]
            },
            strain_limits: match params.strain_limits {
                Some(limits) => [limits.min, limits.max, 1.0, 0.0],
                None => [0.0; 4],
            },
            area_limits: match params.area_limits {
                Some(limits) => [limits.min, limits.max, 0.0, 0.0],
                None => [0.0; 4],
            },
            air: GpuAir::new(params.aerodynamics.as_ref()),
            springs: match params.mode {
                SolverMode::MassSpring(springs) => springs.gpu_constants(),
                _ => [0.0; 4],
            },
            self_collision: match params.self_collision {
                Some(s) => [s.thickness, s.friction, fixed_point_exponent(s.thickness) as f32, 0.0],
                None => [0.0; 4],
            },
            relaxation: match params.mode {
                SolverMode::Jacobi { relaxation } => relaxation,
                _ => 1.0,
            },
            h,
            damping_factor: (1.0 - params.damping * h).max(0.0),
            restitution_threshold: params.restitution_threshold(),
            particle_count: model.particle_count() as u32,
            pin_count: pin_count as u32,
            colour_count: model.schedule().colours.len() as u32,
            substeps: params.substeps,
            unit_table,
            jacobi_items: jacobi_layout.map_or(0, |layout| layout.items),
            jacobi_unit_table: jacobi_layout.map_or(0, |layout| layout.unit_table),
            tether_particles: tether_particles as u32,
            rigid_damping: frame_fraction(params.rigid_damping, params.time_step),
            hash_table_size: hash_table_size(model.particle_count()),
            triangle_count: model.mesh().triangles.len() as u32,
            _pad: 0,
        }
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

/// Where Jacobi's lists sit in its plan buffer (`jacobi_plan` in `shaders/passes/iterations/jacobi_slots.wgsl`):
/// the gather offsets, the gather items, each kind's shares, then the unit table.
#[derive(Debug, Clone, Copy)]
pub struct JacobiLayout {
    items: u32,
    shares: [u32; Kind::COUNT],
    unit_table: u32,
}

impl JacobiLayout {
    /// The layout of `plan` for `model`.
    pub fn of(model: &ClothModel, plan: &JacobiPlan) -> Self {
        let items = model.particle_count() as u32 + 1;
        let mut next = items + plan.gather.items().len() as u32;
        let shares = Kind::ALL.map(|k| {
            let start = next;
            next += plan.scales[k].len() as u32;
            start
        });
        Self { items, shares, unit_table: next }
    }

    /// The buffer's words.
    pub fn words(model: &ClothModel, plan: &JacobiPlan) -> Vec<u32> {
        let mut words = plan.gather.words();
        words.extend(Kind::ALL.iter().flat_map(|&k| plan.scales[k].iter().map(|s| s.to_bits())));
        words.extend(unit_table(model));
        words
    }
}

/// Where each kind's records start in [`super::buffers::constraint_records`] (words).
pub fn record_bases(constraints: &Constraints) -> [u32; Kind::COUNT] {
    let mut next = 0;
    Kind::ALL.map(|k| {
        let start = next;
        next += (constraints.of(k).constraint_count() * k.record_words()) as u32;
        start
    })
}

/// The unit table: each unit's particles (its unit type's arity of them), unit type by unit type
/// in [`UnitType::ALL`] order, units in index order. A kind's record holds its rest data only;
/// a projection takes its particles from its unit, so constraints projected together (a hinge)
/// store their shared particles once.
pub fn unit_table(model: &ClothModel) -> Vec<u32> {
    UnitType::ALL
        .iter()
        .flat_map(|&t| model.units(t).flat_map(move |u| t.particles(model.constraints(), u as usize).iter().copied()))
        .collect()
}

/// Where each unit type's units start in the unit table ([`unit_table`]), in [`UnitType::ALL`]
/// order.
pub fn unit_table_offsets(model: &ClothModel) -> Vec<u32> {
    let mut next = 0;
    UnitType::ALL
        .iter()
        .map(|&t| {
            let start = next;
            next += model.units(t).len() as u32 * t.arity() as u32;
            start
        })
        .collect()
}
