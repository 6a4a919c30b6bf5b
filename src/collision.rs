//! Colliders and the collision response: the shapes the cloth collides with (each moved
//! through a frame by its pose, with its own contact material), the contact projection of
//! PBD §3.4 (every collider at once, so that a particle in a crevice between two colliders ends
//! outside both), static friction on positions and the velocity response of PBD Alg. 1 line 16.
//! WGSL twin: `shaders/collision.wgsl` (same names, same argument order, the same operations in
//! the same order, so that the GPU computes the same bits).
//!
//! The code lies in child modules along the sections of the WGSL twin, their items re-exported
//! here (each keeps its path `collision::Name`): `pose` (poses and the quaternion arithmetic),
//! `material` (contact materials), `shapes` (the collider shapes and their signed distances),
//! `contacts` (the half-spaces and their projection), `motion` (moving colliders and the
//! solver's collider set) and `response` (friction, restitution and a free particle's response).
//! This module keeps what the WGSL twin shares with them all: its constants and the GPU records
//! of the collider list.

mod contacts;
mod material;
mod motion;
mod pose;
mod response;
mod shapes;

pub use contacts::{plane_half_space, resolve_contacts, sphere_half_space, traced_half_space, Contacts, HalfSpace};
pub use contacts::{MAX_CONTACTS, PARALLEL_EPSILON, PASS_PIECES, TRACE_STEPS, TRACE_TOLERANCE};
pub use material::ContactMaterial;
pub(crate) use motion::ColliderSet;
pub use motion::{Motion, MovingCollider};
pub use pose::{normalized_quaternion, quaternion_product, rotate, turn_rate, Pose};
pub use response::{contact_velocity, contacts_static_friction, near_colliders, respond_to_colliders, stick};
pub use response::{depenetration_speed_limit, limit_speed, starts_inside};
pub use response::{project_substep_contacts, substep_contacts, SubstepContacts, ITERATION_CONTACTS, NO_COLLIDER};
pub use response::{ContactResponse, NearColliders, Response, MAX_NEAR_COLLIDERS};
pub(crate) use shapes::{box_point, SurfacePoint};
pub use shapes::{validate_colliders, BoundingSphere, Collider};

use crate::distance_field::FIELD_SLOPE;
use crate::struct_layout;
use crate::wgsl::{Constant, StructLayout, WgslFile};
use crate::wgsl_file;
use bytemuck::{Pod, Zeroable};

/// The WGSL twin.
pub const WGSL: WgslFile = wgsl_file!("collision.wgsl");

/// The constants the WGSL twin shares with this module.
pub fn wgsl_constants() -> Vec<Constant> {
    vec![
        Constant::u32("COLLIDER_PLANE", GpuCollider::PLANE),
        Constant::u32("COLLIDER_SPHERE", GpuCollider::SPHERE),
        Constant::u32("COLLIDER_CAPSULE", GpuCollider::CAPSULE),
        Constant::u32("COLLIDER_BOX", GpuCollider::BOX),
        Constant::u32("COLLIDER_MESH", GpuCollider::MESH),
        Constant::u32("MAX_NEAR_COLLIDERS", MAX_NEAR_COLLIDERS as u32),
        Constant::u32("MAX_CONTACTS", MAX_CONTACTS as u32),
        Constant::u32("ITERATION_CONTACTS", ITERATION_CONTACTS as u32),
        Constant::u32("NO_COLLIDER", NO_COLLIDER),
        Constant::f32("PARALLEL_EPSILON", PARALLEL_EPSILON),
        Constant::f32("FIELD_SLOPE", FIELD_SLOPE),
        Constant::u32("TRACE_STEPS", TRACE_STEPS),
        Constant::u32("PASS_PIECES", PASS_PIECES),
        Constant::f32("TRACE_TOLERANCE", TRACE_TOLERANCE),
    ]
}

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
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout = struct_layout!(
        GpuCollider as "Collider",
        a,
        b,
        rotation,
        start_translation,
        start_rotation,
        end_translation,
        end_rotation,
        material,
        bounds,
        field,
        kind
    );

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
    /// Nonzero when a particle started the frame inside a collider
    /// ([`crate::passes::depenetration`]), set by the GPU each frame.
    pub depenetrating: u32,
    /// Aligns the records to 16 bytes.
    pub _pad: u32,
}

impl GpuColliderListHead {
    /// The layout its WGSL twin (the members before the records) must have.
    pub const LAYOUT: StructLayout =
        struct_layout!(GpuColliderListHead as "ColliderList" tail "colliders", overflow, count, depenetrating);
}

/// `SubstepContacts` in WGSL: one particle's [`SubstepContacts`], which the GPU writes and reads
/// alone (the host only reserves them).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuSubstepContacts {
    /// Each slot's half-space: normal xyz, offset w.
    pub spaces: [[f32; 4]; ITERATION_CONTACTS],
    /// The predicted displacement.
    pub predicted: [f32; 3],
    /// The slots' colliders, 16 bits each (slot 0 low), [`NO_COLLIDER`] where unused.
    pub colliders: u32,
}

impl GpuSubstepContacts {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout =
        struct_layout!(GpuSubstepContacts as "SubstepContacts", spaces, predicted, colliders);
}
