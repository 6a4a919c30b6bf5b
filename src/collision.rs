//! Colliders and the collision response: the shapes the cloth collides with (each moved
//! through a frame by its pose, with its own contact material), the contact projection of
//! PBD §3.4 (every collider at once, so that a particle in a crevice between two colliders ends
//! outside both), static friction on positions and the velocity response of PBD Alg. 1 line 16.
//! WGSL twin: `shaders/collision.wgsl` (same names, same argument order, the same operations in
//! the same order, so that the GPU computes the same bits).

use crate::distance_field::{DistanceField, FIELD_SLOPE};
use crate::error::{Error, ParamError};
use crate::math::{atan2, DENOMINATOR_EPSILON, GEOMETRY_EPSILON};
use crate::struct_layout;
use crate::wgsl::{Constant, StructLayout, WgslFile};
use crate::wgsl_file;
use bytemuck::{Pod, Zeroable};
use glam::{Quat, Vec3, Vec4};
use std::sync::Arc;

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
        Constant::f32("PARALLEL_EPSILON", PARALLEL_EPSILON),
        Constant::f32("FIELD_SLOPE", FIELD_SLOPE),
        Constant::u32("TRACE_STEPS", TRACE_STEPS),
        Constant::f32("TRACE_TOLERANCE", TRACE_TOLERANCE),
    ]
}

/// The most colliders one particle meets in one substep: those whose surface lies within its
/// reach ([`near_colliders`]). A solver takes any number of colliders; a particle near more
/// takes the first ones in list order and the substep is counted as an overflow
/// ([`crate::metrics::Overflows::colliders`]).
pub const MAX_NEAR_COLLIDERS: usize = 8;

/// A collider shape. Every shape but the mesh is convex, so the tangent half-space where a
/// particle meets it lies outside it; a mesh's is its tangent plane at the contact, outside it
/// near there (what every distance-field collider projects onto).
#[derive(Debug, Clone, PartialEq)]
pub enum Collider {
    /// The half-space `normal·p ≥ offset` (a ground plane: `normal = +Y`, `offset = height`).
    Plane {
        /// Unit normal pointing out of the solid side.
        normal: Vec3,
        /// Plane height along the normal (m).
        offset: f32,
    },
    /// A solid sphere.
    Sphere {
        /// Centre (m).
        center: Vec3,
        /// Radius (m).
        radius: f32,
    },
    /// The points within `radius` of the segment from `a` to `b` (a limb, a bar, a pole).
    Capsule {
        /// One end of the axis (m).
        a: Vec3,
        /// The other end (m); equal to `a` makes a sphere.
        b: Vec3,
        /// Radius (m).
        radius: f32,
    },
    /// An oriented box, its edges and corners rounded by `rounding` (the points within
    /// `rounding` of the box with half extents `half_extents`, rotated by `rotation` about
    /// `center`).
    Box {
        /// Centre (m).
        center: Vec3,
        /// Half the box's size along its own axes before rounding (m, > 0).
        half_extents: Vec3,
        /// From the box's axes to the world's (unit quaternion).
        rotation: Quat,
        /// Radius of the rounded edges and corners (m, ≥ 0; the box grows by it).
        rounding: f32,
    },
    /// A closed triangle mesh, through its signed distance field (static in its own frame;
    /// poses move it like any collider).
    Mesh {
        /// The mesh's field, shared by every collider of the same mesh.
        field: Arc<DistanceField>,
        /// Where the mesh's frame lies in the world.
        pose: Pose,
    },
}

impl Collider {
    /// The half-space a particle that starts the substep at `x` and moves by `q` must end in,
    /// outside this collider grown by `margin` ([`plane_half_space`], [`sphere_half_space`],
    /// [`traced_half_space`]).
    pub fn half_space(&self, x: Vec3, q: Vec3, margin: f32) -> HalfSpace {
        match *self {
            Self::Plane { normal, offset } => plane_half_space(normal, offset, margin),
            Self::Sphere { center, radius } => sphere_half_space(x, q, center, radius, margin),
            _ => traced_half_space(self, x, q, margin),
        }
    }

    /// A horizontal ground plane at height `y`.
    pub fn ground(y: f32) -> Self {
        Self::Plane { normal: Vec3::Y, offset: y }
    }

    /// A sphere.
    pub fn sphere(center: Vec3, radius: f32) -> Self {
        Self::Sphere { center, radius }
    }

    /// A capsule around the segment `a`–`b`.
    pub fn capsule(a: Vec3, b: Vec3, radius: f32) -> Self {
        Self::Capsule { a, b, radius }
    }

    /// An oriented box with sharp edges.
    pub fn cuboid(center: Vec3, half_extents: Vec3, rotation: Quat) -> Self {
        Self::Box { center, half_extents, rotation, rounding: 0.0 }
    }

    /// A mesh collider at `pose`.
    pub fn mesh(field: Arc<DistanceField>, pose: Pose) -> Self {
        Self::Mesh { field, pose }
    }

    /// The same shape with a unit plane normal and a unit box rotation ([`Collider::validate`]
    /// accepts ±1e-3 of length error; the collision math needs them exact).
    pub fn normalized(&self) -> Self {
        match *self {
            Self::Plane { normal, offset } => Self::Plane { normal: normal.normalize(), offset },
            Self::Box { center, half_extents, rotation, rounding } => {
                Self::Box { center, half_extents, rotation: rotation.normalize(), rounding }
            }
            Self::Mesh { ref field, pose } => Self::Mesh { field: field.clone(), pose: pose.normalized() },
            ref shape => shape.clone(),
        }
    }

    /// Signed distance from `p` to the surface (negative inside).
    pub fn signed_distance(&self, p: Vec3) -> f32 {
        self.closest(p).distance
    }

    /// The shape at `pose` in the world (a sphere or capsule keeps no orientation of its own).
    pub fn placed(&self, pose: &Pose) -> Self {
        match *self {
            Self::Plane { normal, offset } => {
                let normal = rotate(pose.rotation, normal);
                Self::Plane { normal, offset: offset + normal.dot(pose.translation) }
            }
            Self::Sphere { center, radius } => Self::Sphere { center: pose.to_world(center), radius },
            Self::Capsule { a, b, radius } => Self::Capsule { a: pose.to_world(a), b: pose.to_world(b), radius },
            Self::Box { center, half_extents, rotation, rounding } => Self::Box {
                center: pose.to_world(center),
                half_extents,
                rotation: quaternion_product(pose.rotation, rotation),
                rounding,
            },
            Self::Mesh { ref field, pose: own } => Self::Mesh {
                field: field.clone(),
                pose: Pose {
                    translation: pose.to_world(own.translation),
                    rotation: quaternion_product(pose.rotation, own.rotation),
                },
            },
        }
    }

    /// The smallest axis-aligned box `(min, max)` around a bounded shape (`None` for a plane).
    pub fn bounds(&self) -> Option<(Vec3, Vec3)> {
        let (center, extent) = match *self {
            Self::Plane { .. } => return None,
            Self::Sphere { center, radius } => (center, Vec3::splat(radius)),
            Self::Capsule { a, b, radius } => (0.5 * (a + b), 0.5 * (b - a).abs() + radius),
            Self::Box { center, half_extents, rotation, rounding } => {
                (center, rotated_extent(rotation, half_extents) + rounding)
            }
            Self::Mesh { ref field, pose } => {
                let (center, half) = mesh_box(field);
                (pose.to_world(center), rotated_extent(pose.rotation, half))
            }
        };
        Some((center - extent, center + extent))
    }

    /// A sphere around a bounded shape (`None` for a plane): the broad phase of
    /// [`near_colliders`].
    pub fn bounding_sphere(&self) -> Option<BoundingSphere> {
        let (center, radius) = match *self {
            Self::Plane { .. } => return None,
            Self::Sphere { center, radius } => (center, radius),
            Self::Capsule { a, b, radius } => (0.5 * (a + b), 0.5 * a.distance(b) + radius),
            Self::Box { center, half_extents, rounding, .. } => (center, half_extents.length() + rounding),
            Self::Mesh { ref field, pose } => {
                let (center, half) = mesh_box(field);
                (pose.to_world(center), half.length())
            }
        };
        Some(BoundingSphere { center, radius })
    }

    /// Checks the shape is finite, the plane normal and box rotation are unit length (±1e-3),
    /// radii and half extents > 0 and the rounding ≥ 0.
    pub fn validate(&self) -> Result<(), Error> {
        let unit = |v: f32| (v - 1.0).abs() <= 1e-3;
        match *self {
            Self::Plane { normal, offset } if !normal.is_finite() || !offset.is_finite() => {
                Err(Error::Collider("plane normal and offset must be finite".into()))
            }
            Self::Plane { normal, .. } if !unit(normal.length()) => {
                Err(Error::Collider(format!("plane normal {normal} must have unit length")))
            }
            Self::Sphere { center, radius } if !(center.is_finite() && radius.is_finite() && radius > 0.0) => {
                Err(Error::Collider(format!("sphere needs a finite centre and a radius > 0, got {radius}")))
            }
            Self::Capsule { a, b, radius }
                if !(a.is_finite() && b.is_finite() && radius.is_finite() && radius > 0.0) =>
            {
                Err(Error::Collider(format!("capsule needs finite ends and a radius > 0, got {radius}")))
            }
            Self::Box { center, half_extents, rotation, rounding } => {
                if !(center.is_finite() && half_extents.is_finite() && half_extents.min_element() > 0.0) {
                    Err(Error::Collider(format!("box needs a finite centre and half extents > 0, got {half_extents}")))
                } else if !(rounding.is_finite() && rounding >= 0.0) {
                    Err(Error::Collider(format!("box rounding must be finite and ≥ 0, got {rounding}")))
                } else if !(rotation.is_finite() && unit(rotation.length())) {
                    Err(Error::Collider(format!("box rotation {rotation} must be a unit quaternion")))
                } else {
                    Ok(())
                }
            }
            Self::Mesh { pose, .. } => pose.validate(),
            _ => Ok(()),
        }
    }

    /// The signed distance from `p` to the surface and the outward unit normal there (the
    /// direction from the closest surface point, or out of the nearest face from inside a box):
    /// the exact Euclidean distance, so that a step of that length never crosses the surface.
    fn closest(&self, p: Vec3) -> SurfacePoint {
        match *self {
            Self::Plane { normal, offset } => SurfacePoint { distance: normal.dot(p) - offset, normal },
            Self::Sphere { center, radius } => capsule_point(p, center, center, radius),
            Self::Capsule { a, b, radius } => capsule_point(p, a, b, radius),
            Self::Box { center, half_extents, rotation, rounding } => {
                box_point(p, center, half_extents, rotation, rounding)
            }
            Self::Mesh { ref field, pose } => mesh_point(p, field, pose),
        }
    }

    /// The steepest slope of the shape's distance: 1 for an exact distance, [`FIELD_SLOPE`] for
    /// a mesh's interpolated one. Sphere tracing divides its steps by it.
    pub fn trace_slope(&self) -> f32 {
        match self {
            Self::Mesh { .. } => FIELD_SLOPE,
            _ => 1.0,
        }
    }
}

/// The half extents of the box `rotation` turns `half_extents` into, along the world's axes.
fn rotated_extent(rotation: Quat, half_extents: Vec3) -> Vec3 {
    let axes = [Vec3::X, Vec3::Y, Vec3::Z].map(|axis| rotate(rotation, axis).abs());
    axes[0] * half_extents.x + axes[1] * half_extents.y + axes[2] * half_extents.z
}

/// The centre and half extents of the box around a field's mesh, in the mesh's frame.
fn mesh_box(field: &DistanceField) -> (Vec3, Vec3) {
    let (low, high) = field.mesh_bounds();
    (0.5 * (low + high), 0.5 * (high - low))
}

/// A mesh at `pose`: `p` in the mesh's frame, the field there ([`DistanceField::surface_point`]),
/// its normalised gradient turned back into the world (`+Y` where it vanishes).
fn mesh_point(p: Vec3, field: &DistanceField, pose: Pose) -> SurfacePoint {
    let local = rotate(pose.rotation.conjugate(), p - pose.translation);
    let here = field.surface_point(local);
    let length = here.gradient.length();
    let normal = if length > GEOMETRY_EPSILON { here.gradient / length } else { Vec3::Y };
    SurfacePoint { distance: here.distance, normal: rotate(pose.rotation, normal) }
}

/// A point's signed distance to a surface and the outward unit normal there.
#[derive(Debug, Clone, Copy, PartialEq)]
struct SurfacePoint {
    distance: f32,
    normal: Vec3,
}

/// Capsule `a`–`b` of `radius`: the distance to the closest point `c` of the axis, less the
/// radius; the normal along `p − c`, or on the axis itself a direction across it (so the
/// tangent plane there still supports the capsule; `+Y` for a sphere, `a = b`).
fn capsule_point(p: Vec3, a: Vec3, b: Vec3, radius: f32) -> SurfacePoint {
    let axis = b - a;
    let along = ((p - a).dot(axis) / axis.length_squared().max(DENOMINATOR_EPSILON)).clamp(0.0, 1.0);
    let out = p - (a + axis * along);
    let length = out.length();
    let away = if axis.y.abs() < axis.x.abs().max(axis.z.abs()) { Vec3::Y } else { Vec3::X };
    let across = axis.cross(away);
    let across_length = across.length();
    let normal = if length > GEOMETRY_EPSILON {
        out / length
    } else if across_length > GEOMETRY_EPSILON {
        across / across_length
    } else {
        Vec3::Y
    };
    SurfacePoint { distance: length - radius, normal }
}

/// `v` rotated by the unit quaternion `r`: `v + 2w(u × v) + 2u × (u × v)` with `u = r.xyz`
/// (written out, so that the WGSL twin computes the same bits).
pub fn rotate(r: Quat, v: Vec3) -> Vec3 {
    let u = Vec3::new(r.x, r.y, r.z);
    let t = u.cross(v) * 2.0;
    v + t * r.w + u.cross(t)
}

/// The rounded box: in the box's frame `l = R⁻¹(p − c)`, the excess `d = |l| − e` per axis;
/// outside the core box the distance is `|max(d, 0)| − rounding` along `sign(l)·max(d, 0)`,
/// inside it `max(d) − rounding` out of the nearest face (the lowest axis on ties).
fn box_point(p: Vec3, center: Vec3, half_extents: Vec3, rotation: Quat, rounding: f32) -> SurfacePoint {
    let local = rotate(rotation.conjugate(), p - center);
    let side = Vec3::select(local.cmpge(Vec3::ZERO), Vec3::ONE, Vec3::NEG_ONE);
    let excess = local.abs() - half_extents;
    let outside = excess.max(Vec3::ZERO);
    let out_length = outside.length();
    let deepest = excess.max_element();
    let (distance, local_normal) = if out_length > GEOMETRY_EPSILON {
        (out_length - rounding, side * outside / out_length)
    } else {
        let face = if excess.x >= deepest {
            Vec3::X
        } else if excess.y >= deepest {
            Vec3::Y
        } else {
            Vec3::Z
        };
        (deepest.min(0.0) + out_length - rounding, side * face)
    };
    SurfacePoint { distance, normal: rotate(rotation, local_normal) }
}

/// Steps of the continuous collision search along a particle's path ([`traced_half_space`]).
pub const TRACE_STEPS: u32 = 16;

/// A path point within this of the grown surface counts as the entry (m).
pub const TRACE_TOLERANCE: f32 = 1e-5;

/// The half-space tangent to a capsule or box grown by `margin` where the particle meets it
/// (PBD §3.4): at the entry point of `x → x + q` when `x` starts outside and the path enters
/// (continuous collision), otherwise at the surface point closest to `x + q`. The entry is
/// found by sphere tracing: from `s = 0`, step `s += d(x + s·q)/|q|`, where `d` is the exact
/// distance to the grown surface, so no step crosses it; at most [`TRACE_STEPS`] steps, a hit
/// once `d ≤` [`TRACE_TOLERANCE`]. A path straight at a face stops in one step; one at a
/// glancing angle closes in more slowly, and if it has not arrived by the last step but ends
/// inside, or passes through the shape and out (`passes_through`), the last point traced,
/// short of the surface on the near side, is the contact. The plane through the grown surface
/// point nearest the contact point, with its normal, supports the convex shape, so it lies
/// outside it.
pub fn traced_half_space(collider: &Collider, x: Vec3, q: Vec3, margin: f32) -> HalfSpace {
    let length = q.length();
    let start = collider.closest(x);
    let end = collider.closest(x + q);
    let (mut contact, mut point) = (end, x + q);
    if start.distance - margin >= 0.0 && length > GEOMETRY_EPSILON {
        let mut s = 0.0;
        let mut here = start;
        let mut arrived = false;
        for _ in 0..TRACE_STEPS {
            arrived = here.distance - margin <= TRACE_TOLERANCE;
            if arrived {
                break;
            }
            s += (here.distance - margin) / (length * collider.trace_slope());
            if s > 1.0 {
                break;
            }
            here = collider.closest(x + q * s);
        }
        if arrived || (s <= 1.0 && (end.distance - margin < 0.0 || passes_through(collider, x, q, s, margin))) {
            (contact, point) = (here, x + q * s);
        }
    }
    HalfSpace { normal: contact.normal, offset: contact.normal.dot(point) - (contact.distance - margin) }
}

/// Whether the rest of the path, `x + q·s` for `s` from `from` to 1, dips inside the shape grown
/// by `margin`: the distance to a convex shape along a line is convex, so a golden-section
/// search ([`TRACE_STEPS`] rounds) finds its least value. For a glancing path whose trace ran
/// out of steps and whose end is outside again.
fn passes_through(collider: &Collider, x: Vec3, q: Vec3, from: f32, margin: f32) -> bool {
    const GOLDEN: f32 = 0.381_966;
    let distance = |s: f32| collider.closest(x + q * s).distance;
    let (mut low, mut high) = (from, 1.0);
    for _ in 0..TRACE_STEPS {
        let (near, far) = (low + (high - low) * GOLDEN, high - (high - low) * GOLDEN);
        if distance(near) < distance(far) {
            high = far;
        } else {
            low = near;
        }
    }
    distance(0.5 * (low + high)) - margin < 0.0
}

/// Where a collider is: its shape as given, turned by `rotation` about the origin, then moved
/// by `translation`. The identity leaves it as given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    /// Moves the turned shape (m).
    pub translation: Vec3,
    /// Turns the shape about the origin (unit quaternion).
    pub rotation: Quat,
}

impl Default for Pose {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Pose {
    /// The shape as given.
    pub const IDENTITY: Self = Self { translation: Vec3::ZERO, rotation: Quat::IDENTITY };

    /// Checks the pose is finite and its rotation a unit quaternion (±1e-3).
    pub fn validate(&self) -> Result<(), Error> {
        if !(self.translation.is_finite() && self.rotation.is_finite()) {
            Err(Error::Collider(format!("pose {self:?} must be finite")))
        } else if (self.rotation.length() - 1.0).abs() > 1e-3 {
            Err(Error::Collider(format!("pose rotation {} must be a unit quaternion", self.rotation)))
        } else {
            Ok(())
        }
    }

    /// The same pose with an exactly unit rotation.
    pub fn normalized(&self) -> Self {
        Self { rotation: self.rotation.normalize(), ..*self }
    }

    /// A point of the shape's own frame in the world.
    pub fn to_world(&self, p: Vec3) -> Vec3 {
        rotate(self.rotation, p) + self.translation
    }

    /// The pose a fraction `s` of the way to `to`: the translation interpolated linearly, the
    /// rotation along the shorter arc (normalised linear interpolation). The ends are the poses
    /// themselves, exactly, and equal rotations stay exactly as they are, so a collider that
    /// only slides keeps its orientation's bits.
    pub fn towards(&self, to: &Pose, s: f32) -> Pose {
        if s == 0.0 {
            return *self;
        }
        if s == 1.0 {
            return *to;
        }
        let translation = self.translation + (to.translation - self.translation) * s;
        if self.rotation == to.rotation {
            return Pose { translation, rotation: self.rotation };
        }
        let (a, b) = (Vec4::from(self.rotation), Vec4::from(to.rotation));
        let b = if dot4(a, b) < 0.0 { -b } else { b };
        let blend = a * (1.0 - s) + b * s;
        Pose { translation, rotation: Quat::from_vec4(blend / dot4(blend, blend).sqrt().max(GEOMETRY_EPSILON)) }
    }
}

/// A 4-vector dot product summed in index order (glam's may pair the terms differently; the
/// WGSL twin sums them in this order).
fn dot4(a: Vec4, b: Vec4) -> f32 {
    ((a.x * b.x + a.y * b.y) + a.z * b.z) + a.w * b.w
}

/// A sphere around a shape, or around everything a moving shape sweeps in a frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoundingSphere {
    /// Centre (m).
    pub center: Vec3,
    /// Radius (m).
    pub radius: f32,
}

impl BoundingSphere {
    /// Whether the path `x → x + q` passes within `reach` of the sphere.
    pub fn meets_path(&self, x: Vec3, q: Vec3, reach: f32) -> bool {
        let s = ((self.center - x).dot(q) / q.length_squared().max(DENOMINATOR_EPSILON)).clamp(0.0, 1.0);
        (x + q * s).distance(self.center) <= self.radius + reach
    }
}

/// A collider's motion over a frame or a substep: its pose at the start and at the end.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Motion {
    /// The pose at the start.
    pub start: Pose,
    /// The pose at the end.
    pub end: Pose,
}

impl Motion {
    /// Resting at `pose`.
    pub fn still(pose: Pose) -> Self {
        Self { start: pose, end: pose }
    }

    /// Substep `substep` of `substeps` of this frame's motion: from `k/n` to `(k + 1)/n` of the
    /// way (a still motion as it is: what the interpolation gives it, without computing it).
    pub fn substep(&self, substep: u32, substeps: u32) -> Motion {
        if self.start == self.end {
            return *self;
        }
        let n = substeps as f32;
        Motion {
            start: self.start.towards(&self.end, substep as f32 / n),
            end: self.start.towards(&self.end, (substep + 1) as f32 / n),
        }
    }

    /// The velocity over `h` seconds of the collider's material point that ends at `p`: the
    /// translation's rate plus `ω × (p − t_end)`, with `ω` the rotation from start to end as
    /// axis times angle over `h` (the angle `2·atan2(|v|, w)` of the quaternion `(v, w)` between
    /// them, the shorter way). Zero for a collider at rest, exactly.
    pub fn velocity(&self, p: Vec3, h: f32) -> Vec3 {
        if self.start == self.end {
            return Vec3::ZERO;
        }
        let turn = quaternion_product(self.end.rotation, self.start.rotation.conjugate());
        let turn = if turn.w < 0.0 { -turn } else { turn };
        let axis = Vec3::new(turn.x, turn.y, turn.z);
        let sine = axis.length();
        let omega = axis * (2.0 * atan2(sine, turn.w) / sine.max(GEOMETRY_EPSILON) / h);
        (self.end.translation - self.start.translation) / h + omega.cross(p - self.end.translation)
    }

    /// The half-space of [`Collider::half_space`] for `collider` in this motion: the particle's
    /// start `x` in the shape's frame at the start pose, its end `x + q` at the end pose (so a
    /// moving collider's continuous collision follows the relative path), the half-space found
    /// there and turned back into the world at the end pose. The local step is
    /// `R₁⁻¹(q − Δt) + (R₁⁻¹ − R₀⁻¹)(x − t₀)`, so at rest it is `R⁻¹q` without recomputing `q`
    /// from positions. At rest at the identity this is the shape's own half-space, bit for bit,
    /// and it is computed as such (the common case costs no transformation).
    pub fn half_space(&self, collider: &Collider, x: Vec3, q: Vec3, margin: f32) -> HalfSpace {
        if *self == Motion::still(Pose::IDENTITY) {
            return collider.half_space(x, q, margin);
        }
        let (start, end) = (self.start, self.end);
        let from_start = x - start.translation;
        let x_local = rotate(start.rotation.conjugate(), from_start);
        let to_end = end.rotation.conjugate();
        let q_local =
            rotate(to_end, q - (end.translation - start.translation)) + (rotate(to_end, from_start) - x_local);
        let local = collider.half_space(x_local, q_local, margin);
        let normal = rotate(end.rotation, local.normal);
        HalfSpace { normal, offset: local.offset + normal.dot(end.translation) }
    }

    /// A sphere around everything `shape` sweeps in this motion (`None` for a plane). The
    /// translation moves the shape's bounding sphere along a segment; a turn also swings its
    /// centre `c` about the pose's origin, by at most `|c|`.
    pub fn swept_bounds(&self, shape: &Collider) -> Option<BoundingSphere> {
        let local = shape.bounding_sphere()?;
        let (start, end) = (self.start.to_world(local.center), self.end.to_world(local.center));
        Some(if self.start.rotation == self.end.rotation {
            BoundingSphere { center: 0.5 * (start + end), radius: local.radius + 0.5 * start.distance(end) }
        } else {
            let (t0, t1) = (self.start.translation, self.end.translation);
            BoundingSphere {
                center: 0.5 * (t0 + t1),
                radius: local.radius + local.center.length() + 0.5 * t0.distance(t1),
            }
        })
    }
}

/// The Hamilton product `a·b` written out (the WGSL twin computes the same bits).
pub fn quaternion_product(a: Quat, b: Quat) -> Quat {
    Quat::from_xyzw(
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    )
}

/// Validates a collider list (each shape).
pub fn validate_colliders(colliders: &[Collider]) -> Result<(), Error> {
    colliders.iter().try_for_each(Collider::validate)
}

/// A solver's colliders: their shapes as given and their motion over the coming frame, from
/// where the last frame left them to the poses set since (shared by the GPU solver and the CPU
/// reference).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ColliderSet {
    shapes: Vec<Collider>,
    motions: Vec<Motion>,
    /// Each collider's own material, or `None` for the solver's parameters'.
    materials: Vec<Option<ContactMaterial>>,
}

impl ColliderSet {
    /// `colliders` (validated), each resting at the identity pose.
    pub fn new(colliders: &[Collider]) -> Result<Self, Error> {
        validate_colliders(colliders)?;
        Ok(Self {
            shapes: colliders.iter().map(Collider::normalized).collect(),
            motions: vec![Motion::default(); colliders.len()],
            materials: vec![None; colliders.len()],
        })
    }

    /// Each collider's material, one per collider (validated): its own, or `None` for the
    /// solver's parameters'.
    pub fn set_materials(&mut self, materials: &[Option<ContactMaterial>]) -> Result<(), Error> {
        if materials.len() != self.shapes.len() {
            let message = format!("{} materials given for {} colliders", materials.len(), self.shapes.len());
            return Err(Error::Collider(message));
        }
        for material in materials.iter().flatten() {
            material.validate()?;
        }
        self.materials = materials.to_vec();
        Ok(())
    }

    /// Each collider's material, `default` where it has none of its own.
    fn materials(&self, default: ContactMaterial) -> Vec<ContactMaterial> {
        self.materials.iter().map(|m| m.unwrap_or(default)).collect()
    }

    /// The poses the colliders reach by the end of the next frame, one per collider
    /// (validated); the frame moves them there from where they are.
    pub fn set_poses(&mut self, poses: &[Pose]) -> Result<(), Error> {
        if poses.len() != self.shapes.len() {
            return Err(Error::Collider(format!("{} poses given for {} colliders", poses.len(), self.shapes.len())));
        }
        poses.iter().try_for_each(Pose::validate)?;
        for (motion, pose) in self.motions.iter_mut().zip(poses) {
            motion.end = pose.normalized();
        }
        Ok(())
    }

    /// Puts the colliders at `poses` (validated) at once, at rest: no frame carries them there.
    pub fn place(&mut self, poses: &[Pose]) -> Result<(), Error> {
        self.set_poses(poses)?;
        self.end_frame();
        Ok(())
    }

    /// Ends a frame: every collider rests where it arrived. Whether any had moved.
    pub fn end_frame(&mut self) -> bool {
        let moved = self.motions.iter().any(|m| m.start != m.end);
        for motion in &mut self.motions {
            *motion = Motion::still(motion.end);
        }
        moved
    }

    /// Each collider over the coming frame, `default` its material where it has none of its own.
    pub fn this_frame(&self, default: ContactMaterial) -> Vec<MovingCollider> {
        let materials = self.materials(default);
        let parts = self.shapes.iter().zip(&self.motions).zip(materials);
        parts
            .map(|((shape, &motion), material)| MovingCollider {
                shape: shape.clone(),
                motion,
                material,
                bounds: motion.swept_bounds(shape),
            })
            .collect()
    }

    /// The shapes as given.
    pub fn shapes(&self) -> &[Collider] {
        &self.shapes
    }

    /// The poses they reach by the end of the coming frame.
    pub fn poses(&self) -> Vec<Pose> {
        self.motions.iter().map(|m| m.end).collect()
    }

    /// The shapes at the pose `pose` picks from each motion.
    fn placed_at(&self, pose: impl Fn(&Motion) -> Pose) -> Vec<Collider> {
        self.shapes.iter().zip(&self.motions).map(|(shape, motion)| shape.placed(&pose(motion))).collect()
    }

    /// The shapes at the poses they reach by the end of the coming frame (where they are,
    /// unless poses were set since the last frame).
    pub fn placed(&self) -> Vec<Collider> {
        self.placed_at(|motion| motion.end)
    }

    /// The shapes where the last frame left them (where the cloth last met them).
    pub fn placed_at_start(&self) -> Vec<Collider> {
        self.placed_at(|motion| motion.start)
    }
}

/// A linear collision constraint `normal·p ≥ offset` (PBD §3.4, `C(p) = n·p − d ≥ 0`): a
/// half-space outside a collider grown by the margin, so that every position in it keeps at
/// least the margin from the collider's surface.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct HalfSpace {
    /// Unit normal, out of the collider.
    pub normal: Vec3,
    /// `normal·p` on the boundary (m).
    pub offset: f32,
}

/// The plane's own half-space, moved out by `margin`.
pub fn plane_half_space(normal: Vec3, offset: f32, margin: f32) -> HalfSpace {
    HalfSpace { normal, offset: offset + margin }
}

/// The half-space behind the plane tangent to the sphere grown by `margin` (radius
/// `r = radius + margin`) where the particle meets it (PBD §3.4): at the entry point of the
/// segment `x → x + q` when `x` starts outside and the segment enters (continuous collision: a
/// fast particle cannot pass through), otherwise at the surface point closest to `x + q`. The
/// sphere is convex, so the half-space lies outside it.
///
/// The entry is the smaller root of `|x − c + s·q|² = r²`, computed as
/// `s = c₀/(√(b² − a·c₀) − b)` with `a = |q|²`, `b = (x − c)·q`, `c₀ = |x − c|² − r²`: the
/// stable form of the quadratic formula, without cancellation when `x` lies on the surface
/// (`c₀ ≈ 0`). The displacement `q` is given rather than the end point so that nothing
/// recomputes it as a difference of metre-scale coordinates.
pub fn sphere_half_space(x: Vec3, q: Vec3, center: Vec3, radius: f32, margin: f32) -> HalfSpace {
    let r = radius + margin;
    let relative = x - center;
    let outside = relative.length_squared() - r * r;
    let along = relative.dot(q);
    let discriminant = along * along - q.length_squared() * outside;
    let entry = outside / (discriminant.max(0.0).sqrt() - along).max(DENOMINATOR_EPSILON);
    let enters = outside >= 0.0 && along < 0.0 && discriminant >= 0.0 && entry <= 1.0;
    let touch = if enters { relative + q * entry } else { relative + q };
    let length = touch.length();
    let normal = if length > GEOMETRY_EPSILON { touch / length } else { Vec3::Y };
    HalfSpace { normal, offset: normal.dot(center) + r }
}

/// Most contacts resolved at once: in three dimensions three independent half-spaces already
/// fix a point.
pub const MAX_CONTACTS: usize = 3;

/// Below this `det` of the contact normals' Gram matrix (`1 − cos²` for two normals, about
/// 0.6° apart) the newest contact alone is kept: nearly parallel half-spaces cannot be solved
/// together, and the newest, the most violated, is the stricter one.
pub const PARALLEL_EPSILON: f32 = 1e-4;

/// The contacts that acted on one particle: the normals of their half-spaces and how far the
/// particle was pushed along each (the contact's normal impulse times `h`, per unit mass).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Contacts {
    /// Unit normals, out of the colliders; the first `count` are in use.
    pub normals: [Vec3; MAX_CONTACTS],
    /// Pushes along the normals (m, ≥ 0).
    pub depths: [f32; MAX_CONTACTS],
    /// How many contacts acted (0 to [`MAX_CONTACTS`]).
    pub count: usize,
    /// The residuals `b_i − n_i·p` of the active half-spaces at the projected point `p`.
    residuals: [f32; MAX_CONTACTS],
    /// Which half-space each contact came from.
    sources: [usize; MAX_CONTACTS],
}

impl Contacts {
    /// The total push `Σ depth_i·normal_i` (m).
    pub fn displacement(&self) -> Vec3 {
        let mut sum = Vec3::ZERO;
        for k in 0..self.count {
            sum += self.normals[k] * self.depths[k];
        }
        sum
    }

    fn push(&mut self, space: HalfSpace, residual: f32, source: usize) {
        let k = self.count;
        (self.normals[k], self.residuals[k], self.sources[k], self.depths[k]) = (space.normal, residual, source, 0.0);
        self.count += 1;
    }

    fn remove(&mut self, k: usize) {
        for i in k..self.count - 1 {
            self.normals[i] = self.normals[i + 1];
            self.residuals[i] = self.residuals[i + 1];
            self.sources[i] = self.sources[i + 1];
        }
        self.count -= 1;
    }

    /// The index of the half-space (the collider) contact `k` came from.
    pub fn source(&self, k: usize) -> usize {
        self.sources[k]
    }

    /// These contacts with each source `s` renumbered to `ids[s]` (from a list of half-spaces
    /// to the colliders they came from).
    pub fn renumbered(&self, ids: &[usize]) -> Contacts {
        let mut renumbered = *self;
        for k in 0..self.count {
            renumbered.sources[k] = ids[self.sources[k]];
        }
        renumbered
    }

    fn contains(&self, source: usize) -> bool {
        self.sources[..self.count].contains(&source)
    }

    /// Solves the Gram system `Σ_j (n_i·n_j) λ_j = r_i` of the active contacts for their depths,
    /// dropping the oldest contact while the normals are nearly dependent and the most negative
    /// `λ` (a contact that would pull) until every depth is ≥ 0.
    fn solve(&mut self) {
        while self.count > 0 {
            let (n, r) = (self.normals, self.residuals);
            let (g01, g02, g12) = (n[0].dot(n[1]), n[0].dot(n[2]), n[1].dot(n[2]));
            let lambda = match self.count {
                1 => [r[0], 0.0, 0.0],
                2 => {
                    let det = 1.0 - g01 * g01;
                    if det < PARALLEL_EPSILON {
                        self.remove(0);
                        continue;
                    }
                    [(r[0] - g01 * r[1]) / det, (r[1] - g01 * r[0]) / det, 0.0]
                }
                _ => {
                    // Cramer's rule on the symmetric 3 × 3 Gram matrix (unit diagonal).
                    let c00 = 1.0 - g12 * g12;
                    let c01 = g02 * g12 - g01;
                    let c02 = g01 * g12 - g02;
                    let c11 = 1.0 - g02 * g02;
                    let c12 = g01 * g02 - g12;
                    let c22 = 1.0 - g01 * g01;
                    let det = c00 + g01 * c01 + g02 * c02;
                    if det < PARALLEL_EPSILON {
                        self.remove(0);
                        continue;
                    }
                    [
                        (c00 * r[0] + c01 * r[1] + c02 * r[2]) / det,
                        (c01 * r[0] + c11 * r[1] + c12 * r[2]) / det,
                        (c02 * r[0] + c12 * r[1] + c22 * r[2]) / det,
                    ]
                }
            };
            let mut pulling = MAX_CONTACTS;
            for k in 0..self.count {
                if lambda[k] < 0.0 && (pulling == MAX_CONTACTS || lambda[k] < lambda[pulling]) {
                    pulling = k;
                }
            }
            if pulling == MAX_CONTACTS {
                self.depths = lambda;
                return;
            }
            self.remove(pulling);
        }
    }
}

/// Moves `p` to the closest point inside every half-space, `p + Δ` with the least `|Δ|`
/// subject to `n_i·(p + Δ) ≥ b_i` — PBD §3.4's projection for all colliders together: projecting
/// onto one collider after another can push a particle back into the previous one, and in a
/// narrow crevice (a sphere resting on the ground) alternating projections converge slowly.
///
/// A dual active-set method (Goldfarb and Idnani 1983, for a point): from `p`, the most violated
/// half-space joins the active set, `Δ = Σ λ_i n_i` is solved for equality on the active ones
/// (a Gram system of size 1 to 3), and contacts with `λ_i < 0` leave the set; at most
/// [`MAX_CONTACTS`] + 1 rounds. Returns the active half-spaces as contacts, `depth_i = λ_i`.
pub fn resolve_contacts(p: Vec3, spaces: &[HalfSpace]) -> Contacts {
    let mut contacts = Contacts::default();
    for _ in 0..=MAX_CONTACTS {
        let moved = p + contacts.displacement();
        let mut worst = spaces.len();
        let mut violation = 0.0;
        for (i, space) in spaces.iter().enumerate() {
            let v = space.offset - space.normal.dot(moved);
            if v > violation && !contacts.contains(i) {
                (worst, violation) = (i, v);
            }
        }
        if worst == spaces.len() || contacts.count == MAX_CONTACTS {
            break;
        }
        contacts.push(spaces[worst], spaces[worst].offset - spaces[worst].normal.dot(p), worst);
        contacts.solve();
    }
    contacts
}

/// Static friction on positions (XPBD rigid bodies §3.5): the particle's motion over the
/// substep `q` along the contacts' common tangent space (the plane of one contact, the line of
/// two, nothing for three) is undone when it is shorter than `μ_s` times the normal push — the
/// friction impulse it needs is within `μ_s` times the normal one. What it removes is orthogonal
/// to every contact normal, so the particle stays in every active half-space.
pub fn stick(q: Vec3, contacts: &Contacts, static_friction: f32) -> Vec3 {
    let n = contacts.normals;
    let tangential = match contacts.count {
        0 => return q,
        1 => q - n[0] * q.dot(n[0]),
        2 => {
            let axis = n[0].cross(n[1]);
            let t = axis / axis.length().max(GEOMETRY_EPSILON);
            t * q.dot(t)
        }
        _ => Vec3::ZERO,
    };
    if tangential.length() < static_friction * contacts.displacement().length() {
        q - tangential
    } else {
        q
    }
}

/// Velocity response of a particle in contact (PBD Alg. 1 line 16): dynamic Coulomb friction
/// removes up to `friction·depth/h` of the tangential speed (the normal push `depth` over `h`
/// is the normal impulse per unit mass, XPBD rigid bodies §3.6), and the normal speed becomes
/// `max(−e·v̄_n, 0)` of the approach speed `v̄_n` (the velocity before the contact response),
/// with `e = 0` when `|v̄_n| ≤ threshold` (`2|g|h`, against jitter).
#[allow(clippy::too_many_arguments)]
pub fn contact_velocity(
    v: Vec3,
    v_before: Vec3,
    normal: Vec3,
    depth: f32,
    h: f32,
    friction: f32,
    restitution: f32,
    restitution_threshold: f32,
) -> Vec3 {
    let vn = v.dot(normal);
    let vt = v - normal * vn;
    let vt_length = vt.length();
    let vt = if vt_length > GEOMETRY_EPSILON {
        vt * (1.0 - friction * depth / (h * vt_length)).max(0.0)
    } else {
        Vec3::ZERO
    };
    let vn_before = v_before.dot(normal);
    let e = if vn_before.abs() > restitution_threshold { restitution } else { 0.0 };
    vt + normal * (-e * vn_before).max(0.0)
}

/// How a collider's surface meets the cloth. Each collider may have its own
/// ([`crate::GpuSolver::set_collider_materials`]); the others take the solver's parameters'
/// ([`crate::SolverParams::contact_material`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactMaterial {
    /// Distance kept between particles and the surface (m, ≥ 0).
    pub collision_margin: f32,
    /// Static Coulomb friction (≥ 0): a particle does not slide while its tangential motion
    /// needs less than this times the normal impulse.
    pub static_friction: f32,
    /// Dynamic Coulomb friction (≥ 0), on sliding particles.
    pub dynamic_friction: f32,
    /// Restitution (in [0, 1]), off for normal speeds below `2|g|h`.
    pub restitution: f32,
}

impl ContactMaterial {
    /// Checks every coefficient is finite and in range (naming the field that is not).
    pub fn validate(&self) -> Result<(), ParamError> {
        let non_negative = |v: f32| v.is_finite() && v >= 0.0;
        let checks = [
            (non_negative(self.collision_margin), "collision_margin", self.collision_margin, "finite and ≥ 0"),
            (non_negative(self.static_friction), "static_friction", self.static_friction, "finite and ≥ 0"),
            (non_negative(self.dynamic_friction), "dynamic_friction", self.dynamic_friction, "finite and ≥ 0"),
            ((0.0..=1.0).contains(&self.restitution), "restitution", self.restitution, "in [0, 1]"),
        ];
        match checks.into_iter().find(|&(ok, ..)| !ok) {
            Some((_, name, value, expected)) => Err(ParamError { name, value: value.to_string(), expected }),
            None => Ok(()),
        }
    }
}

/// What the collision response needs of the parameters besides the colliders' materials
/// ([`crate::SolverParams::contact_response`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactResponse {
    /// Substep length (s).
    pub h: f32,
    /// The normal speed below which restitution is off: `2|g|h`.
    pub restitution_threshold: f32,
}

/// A collider over a frame or one of its substeps: its shape as given, its motion over that
/// time, its material and a sphere around everything it sweeps in the frame.
#[derive(Debug, Clone, PartialEq)]
pub struct MovingCollider {
    /// The shape as given (placed by the motion's poses).
    pub shape: Collider,
    /// Its motion over the frame or substep.
    pub motion: Motion,
    /// Its contact material.
    pub material: ContactMaterial,
    /// Around everything it sweeps in the frame (`None` for a plane).
    pub bounds: Option<BoundingSphere>,
}

impl MovingCollider {
    /// This collider over substep `substep` of `substeps` of its frame.
    pub fn substep(&self, substep: u32, substeps: u32) -> Self {
        Self { motion: self.motion.substep(substep, substeps), ..self.clone() }
    }
}

/// The half-spaces of the colliders near one particle in one substep, in list order, with the
/// index of the collider each came from.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct NearColliders {
    /// Their half-spaces; the first `count` are in use.
    pub spaces: [HalfSpace; MAX_NEAR_COLLIDERS],
    /// The collider each came from.
    pub ids: [usize; MAX_NEAR_COLLIDERS],
    /// How many are in use.
    pub count: usize,
    /// Whether more colliders were near than fit (those after the first
    /// [`MAX_NEAR_COLLIDERS`] were left out).
    pub overflow: bool,
}

/// The colliders a particle that starts the substep at `x` and moves by `q` may meet, with their
/// half-spaces ([`Motion::half_space`]): those whose swept bounding sphere the path passes
/// within `reach` of, and whose half-space boundary lies within `reach` of `x + q` or beyond,
/// with `reach = |q| + margin`. Further surfaces cannot take part in the projection of a
/// particle that moved by `q` (the broad phase also spares a far box or capsule its sphere
/// tracing). More than [`MAX_NEAR_COLLIDERS`] sets [`NearColliders::overflow`].
pub fn near_colliders(x: Vec3, q: Vec3, colliders: &[MovingCollider]) -> NearColliders {
    let mut near = NearColliders::default();
    let travel = q.length();
    for (id, collider) in colliders.iter().enumerate() {
        let margin = collider.material.collision_margin;
        let reach = travel + margin;
        if collider.bounds.is_some_and(|bounds| !bounds.meets_path(x, q, reach)) {
            continue;
        }
        let space = collider.motion.half_space(&collider.shape, x, q, margin);
        if space.offset - space.normal.dot(x + q) <= -reach {
            continue;
        }
        if near.count == MAX_NEAR_COLLIDERS {
            near.overflow = true;
            break;
        }
        (near.spaces[near.count], near.ids[near.count]) = (space, id);
        near.count += 1;
    }
    near
}

/// The static friction of the active contacts together: each contact's coefficient weighted by
/// its push (so the friction they can hold is the sum of what each can), exactly the common
/// coefficient when they share one. The contacts' sources index `colliders`.
pub fn contacts_static_friction(contacts: &Contacts, colliders: &[MovingCollider]) -> f32 {
    let friction = |k: usize| colliders[contacts.source(k)].material.static_friction;
    let mut weighted = 0.0;
    let mut pushes = 0.0;
    let mut shared = true;
    for k in 0..contacts.count {
        weighted += friction(k) * contacts.depths[k];
        pushes += contacts.depths[k];
        shared &= friction(k) == friction(0);
    }
    match contacts.count {
        0 => 0.0,
        _ if shared => friction(0),
        _ => weighted / pushes.max(DENOMINATOR_EPSILON),
    }
}

/// A free particle's collision response over a substep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Response {
    /// Its displacement over the substep (m).
    pub q: Vec3,
    /// Its velocity at the end of the substep (m/s).
    pub v: Vec3,
    /// Whether more colliders were near it than [`MAX_NEAR_COLLIDERS`].
    pub overflow: bool,
}

/// The end of a substep for a free particle that started it at `x` and moved by `q` (PBD Alg. 1
/// lines 8, 12–16), against `colliders` over the substep: the contact projection against the
/// half-spaces of the colliders near it ([`near_colliders`]), each grown by its margin
/// ([`resolve_contacts`]), static friction on the motion relative to the surfaces touched
/// (their mean displacement at the particle, their coefficients weighted by push; [`stick`])
/// and the projection again (static friction only undoes motion along the contacts, but a
/// third collider may lie in the way), then `v = q/h` with each contact's dynamic friction and
/// restitution on the velocity relative to its surface. At rest, every surface velocity is zero
/// and this is the static response.
///
/// A particle that starts outside every collider (as every substep leaves it) ends outside
/// every collider near it, by at least the margin: each half-space lies outside its convex
/// collider. A particle near more than [`MAX_NEAR_COLLIDERS`] colliders (an overflow, counted)
/// ignores those after the first ones in list order.
/// One that starts inside (a collider was moved onto it) is pushed to the surface point closest
/// to where it went; where two colliders overlap it may take a few substeps to get out.
pub fn respond_to_colliders(x: Vec3, q: Vec3, colliders: &[MovingCollider], response: &ContactResponse) -> Response {
    let near = near_colliders(x, q, colliders);
    let spaces = &near.spaces[..near.count];
    let contacts = resolve_contacts(x + q, spaces).renumbered(&near.ids);
    let pushed = q + contacts.displacement();
    let mut surface = Vec3::ZERO;
    for k in 0..contacts.count {
        surface += colliders[contacts.source(k)].motion.velocity(x + pushed, response.h) * response.h;
    }
    let surface = surface / contacts.count.max(1) as f32;
    let stuck = surface + stick(pushed - surface, &contacts, contacts_static_friction(&contacts, colliders));
    let settled = stuck + resolve_contacts(x + stuck, spaces).displacement();
    let approach = q / response.h;
    let mut v = settled / response.h;
    for k in 0..contacts.count {
        let MovingCollider { motion, material, .. } = &colliders[contacts.source(k)];
        let carried = motion.velocity(x + settled, response.h);
        v = carried
            + contact_velocity(
                v - carried,
                approach - carried,
                contacts.normals[k],
                contacts.depths[k],
                response.h,
                material.dynamic_friction,
                material.restitution,
                response.restitution_threshold,
            );
    }
    Response { q: settled, v, overflow: near.overflow }
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
    /// Aligns the records to 16 bytes.
    pub _pad: [u32; 2],
}

impl GpuColliderListHead {
    /// The layout its WGSL twin (the members before the records) must have.
    pub const LAYOUT: StructLayout =
        struct_layout!(GpuColliderListHead as "ColliderList" tail "colliders", overflow, count);
}
