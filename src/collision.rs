//! Colliders and the collision response: the shapes the cloth collides with (changed between
//! frames), the contact projections of PBD §3.4 and the velocity response of PBD Alg. 1 line 16.
//! WGSL twin: `shaders/collide.wgsl` (same names, same argument order).

use crate::error::Error;
use crate::math::GEOMETRY_EPSILON;
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
    /// The contact of a particle moving from `x` to `p` with this collider, grown by `margin`.
    pub fn contact(&self, x: Vec3, p: Vec3, margin: f32) -> Option<Contact> {
        match *self {
            Self::Plane { normal, offset } => collide_plane(p, normal, offset, margin),
            Self::Sphere { center, radius } => collide_sphere(x, p, center, radius, margin),
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

/// A contact found by [`collide_plane`] or [`collide_sphere`]: the surface normal (pointing out
/// of the collider) and how far the particle was moved along it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contact {
    /// Unit surface normal, out of the collider.
    pub normal: Vec3,
    /// Distance the particle was pushed out along the normal (m).
    pub depth: f32,
}

/// The half-space `n·p ≥ offset + margin` (PBD §3.4 inequality constraint `C(p) = n·p − d ≥ 0`).
/// A plane needs no ray test: the entry point lies on the plane itself. Returns the contact when
/// `p` is inside; the projected position is `p + normal·depth`.
pub fn collide_plane(p: Vec3, normal: Vec3, offset: f32, margin: f32) -> Option<Contact> {
    let c = normal.dot(p) - offset - margin;
    (c < 0.0).then_some(Contact { normal, depth: -c })
}

/// A sphere (radius grown by `margin`), PBD §3.4: when the segment `x → p` enters the sphere,
/// the constraint is `(p − q)·n ≥ 0` at the entry point `q` with normal `n` (continuous
/// collision); when `x` already starts inside, `q` is the surface point closest to `p` (static
/// fallback). Returns the contact when `p` is inside; the projected position is
/// `p + normal·depth`.
pub fn collide_sphere(x: Vec3, p: Vec3, center: Vec3, radius: f32, margin: f32) -> Option<Contact> {
    let r = radius + margin;
    let rel_p = p - center;
    if rel_p.length_squared() >= r * r {
        return None;
    }
    let rel_x = x - center;
    let d = p - x;
    let travel = d.length();
    let (q, normal) = if rel_x.length_squared() >= r * r && travel > GEOMETRY_EPSILON {
        // Entry point of the ray x + s·dir: closest approach at s = −rel_x·dir, where the
        // perpendicular offset is rel_x + s·dir; the entry lies √(r² − offset²) before it.
        // Measuring the offset directly avoids the cancellation of the quadratic's discriminant.
        let dir = d / travel;
        let closest = -rel_x.dot(dir);
        let offset = rel_x + dir * closest;
        let half_chord = (r * r - offset.length_squared()).max(0.0).sqrt();
        let q = x + dir * (closest - half_chord).clamp(0.0, travel);
        (q, (q - center) / r)
    } else {
        let length = rel_p.length();
        let normal = if length > GEOMETRY_EPSILON { rel_p / length } else { Vec3::Y };
        (center + normal * r, normal)
    };
    let c = (p - q).dot(normal);
    (c < 0.0).then_some(Contact { normal, depth: -c })
}

/// Velocity response of a particle in contact (PBD Alg. 1 line 16): dynamic Coulomb friction
/// removes up to `friction·depth/h` of the tangential speed (the normal correction `depth`
/// over `h` is the normal impulse per unit mass, XPBD rigid bodies §3.6), and the normal speed
/// becomes `max(−e·v̄_n, 0)` of the approach speed `v̄_n` (the velocity before the contact
/// response), with `e = 0` when `|v̄_n| ≤ threshold` (`2|g|h`, against jitter).
#[allow(clippy::too_many_arguments)]
pub fn contact_velocity(
    v: Vec3,
    v_before: Vec3,
    contact: Contact,
    h: f32,
    friction: f32,
    restitution: f32,
    restitution_threshold: f32,
) -> Vec3 {
    let n = contact.normal;
    let vn = v.dot(n);
    let vt = v - n * vn;
    let vt_length = vt.length();
    let vt = if vt_length > GEOMETRY_EPSILON {
        vt * (1.0 - friction * contact.depth / (h * vt_length)).max(0.0)
    } else {
        Vec3::ZERO
    };
    let vn_before = v_before.dot(n);
    let e = if vn_before.abs() > restitution_threshold { restitution } else { 0.0 };
    vt + n * (-e * vn_before).max(0.0)
}
