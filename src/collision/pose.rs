//! Where a collider is: its [`Pose`] (a rotation about the origin, then a translation), the
//! quaternion arithmetic that carries points by it ([`rotate`], [`quaternion_product`], each
//! written out) and the blend between two poses ([`Pose::towards`]). WGSL twin: the pose section
//! of `shaders/collision.wgsl` (`Pose`, `pose_towards`, `dot4`, `quaternion_product`) and its
//! `rotate`, beside the shapes' surface points.

use crate::error::Error;
use crate::math::{atan2, GEOMETRY_EPSILON};
use glam::{Quat, Vec3, Vec4};

/// `v` rotated by the unit quaternion `r`: `v + 2w(u × v) + 2u × (u × v)` with `u = r.xyz`
/// (written out, so that the WGSL twin computes the same bits).
pub fn rotate(r: Quat, v: Vec3) -> Vec3 {
    let u = Vec3::new(r.x, r.y, r.z);
    let t = u.cross(v) * 2.0;
    v + t * r.w + u.cross(t)
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

    /// A point of the world in the shape's own frame ([`Pose::to_world`] undone).
    pub fn to_local(&self, p: Vec3) -> Vec3 {
        rotate(self.rotation.conjugate(), p - self.translation)
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

/// `q` over its length, the length's square summed in index order (the WGSL twin
/// `normalized_quaternion` in `shaders/passes/bodies.wgsl` computes the same operations).
pub fn normalized_quaternion(q: Quat) -> Quat {
    let v = Vec4::from(q);
    Quat::from_vec4(v / dot4(v, v).sqrt())
}

/// The angular velocity that turns by the unit quaternion `turn` in `h` seconds: its axis times
/// its angle `2·atan2(|v|, w)` of `(v, w)`, the shorter way, over `h`.
pub fn turn_rate(turn: Quat, h: f32) -> Vec3 {
    let turn = if turn.w < 0.0 { -turn } else { turn };
    let axis = Vec3::new(turn.x, turn.y, turn.z);
    let sine = axis.length();
    axis * (2.0 * atan2(sine, turn.w) / sine.max(GEOMETRY_EPSILON) / h)
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
