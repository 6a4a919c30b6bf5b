//! Static colliders the cloth collides with. They can be changed between frames.

use crate::error::Error;
use glam::Vec3;

/// The most colliders a solver takes at once (the GPU keeps them in a uniform array).
pub const MAX_COLLIDERS: usize = 8;

/// A collider shape.
#[derive(Debug, Clone, Copy, PartialEq)]
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
}

impl Collider {
    /// A horizontal ground plane at height `y`.
    pub fn ground(y: f32) -> Self {
        Self::Plane { normal: Vec3::Y, offset: y }
    }

    /// A sphere.
    pub fn sphere(center: Vec3, radius: f32) -> Self {
        Self::Sphere { center, radius }
    }

    /// The same shape with a unit plane normal ([`Collider::validate`] accepts ±1e-3 of length
    /// error; the collision math needs it exact).
    pub fn normalized(&self) -> Self {
        match *self {
            Self::Plane { normal, offset } => Self::Plane { normal: normal.normalize(), offset },
            sphere => sphere,
        }
    }

    /// Signed distance from `p` to the surface (negative inside).
    pub fn signed_distance(&self, p: Vec3) -> f32 {
        match *self {
            Self::Plane { normal, offset } => normal.dot(p) - offset,
            Self::Sphere { center, radius } => p.distance(center) - radius,
        }
    }

    /// Checks the shape is finite, the plane normal is unit length (±1e-3) and the radius > 0.
    pub fn validate(&self) -> Result<(), Error> {
        match *self {
            Self::Plane { normal, offset } if !normal.is_finite() || !offset.is_finite() => {
                Err(Error::Collider("plane normal and offset must be finite".into()))
            }
            Self::Plane { normal, .. } if (normal.length() - 1.0).abs() > 1e-3 => {
                Err(Error::Collider(format!("plane normal {normal} must have unit length")))
            }
            Self::Sphere { center, radius } if !(center.is_finite() && radius.is_finite() && radius > 0.0) => {
                Err(Error::Collider(format!("sphere needs a finite centre and a radius > 0, got {radius}")))
            }
            _ => Ok(()),
        }
    }
}

/// Validates a collider list (each shape, and at most [`MAX_COLLIDERS`]).
pub fn validate_colliders(colliders: &[Collider]) -> Result<(), Error> {
    if colliders.len() > MAX_COLLIDERS {
        return Err(Error::Collider(format!("{} colliders given, at most {MAX_COLLIDERS} supported", colliders.len())));
    }
    colliders.iter().try_for_each(Collider::validate)
}
