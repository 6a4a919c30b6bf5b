//! The collider shapes: [`Collider`] (plane, sphere, capsule, rounded box, triangle mesh through
//! its distance field), their exact signed distances and outward normals (`SurfacePoint`), their
//! placement by a pose, their bounds and the [`BoundingSphere`] the broad phase tests paths
//! against, and their validation. WGSL twin: the surface-point section of
//! `shaders/collision.wgsl` (`SurfacePoint`, `capsule_point`, `box_point`, the field lookups,
//! `mesh_point`, `trace_slope`, `closest`) and `bounds_meet_path`.

use super::pose::{quaternion_product, rotate, Pose};
use crate::distance_field::{DistanceField, FIELD_SLOPE};
use crate::error::Error;
use crate::math::{DENOMINATOR_EPSILON, GEOMETRY_EPSILON};
use glam::{Quat, Vec3};
use std::sync::Arc;

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
    /// Whether a particle meets it by sphere tracing its distance ([`Collider::closest`]):
    /// capsules, boxes and meshes. Planes and spheres have a closed form.
    pub fn is_traced(&self) -> bool {
        matches!(self, Self::Capsule { .. } | Self::Box { .. } | Self::Mesh { .. })
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
    ///
    /// [`near_colliders`]: crate::collision::near_colliders
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
    pub(super) fn closest(&self, p: Vec3) -> SurfacePoint {
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
pub(crate) struct SurfacePoint {
    pub(crate) distance: f32,
    pub(crate) normal: Vec3,
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

/// The rounded box: in the box's frame `l = R⁻¹(p − c)`, the excess `d = |l| − e` per axis;
/// outside the core box the distance is `|max(d, 0)| − rounding` along `sign(l)·max(d, 0)`,
/// inside it `max(d) − rounding` out of the nearest face (the lowest axis on ties).
pub(crate) fn box_point(p: Vec3, center: Vec3, half_extents: Vec3, rotation: Quat, rounding: f32) -> SurfacePoint {
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

/// Validates a collider list (each shape).
pub fn validate_colliders(colliders: &[Collider]) -> Result<(), Error> {
    colliders.iter().try_for_each(Collider::validate)
}
