//! Colliders in motion: a collider's [`Motion`] over a frame or substep (its poses at the start
//! and end, the velocity of its surface, its half-space for a particle's path relative to it,
//! the sphere it sweeps), the [`MovingCollider`] the response takes, and the solver's
//! `ColliderSet` that carries the colliders from frame to frame. WGSL twin: the motion section of
//! `shaders/collision.wgsl` (`Motion`, `substep_motion`, `motion_is_still`, `motion_velocity`,
//! `moving_half_space`); the set itself is host state, uploaded as `Collider` records.

use super::contacts::HalfSpace;
use super::material::ContactMaterial;
use super::pose::{quaternion_product, rotate, turn_rate, Pose};
use super::shapes::{validate_colliders, BoundingSphere, Collider};
use crate::error::Error;
use glam::Vec3;

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
        let omega = turn_rate(quaternion_product(self.end.rotation, self.start.rotation.conjugate()), h);
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

    /// Whether a collider bounces: a restitution above zero in its material (`default` where it
    /// has none of its own).
    pub fn bounces(&self, default: ContactMaterial) -> bool {
        self.materials(default).iter().any(|m| m.restitution > 0.0)
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

    /// Where collider `c` is now, at the start of the coming frame (`None`: no such collider).
    pub fn pose_now(&self, c: u32) -> Option<Pose> {
        self.motions.get(c as usize).map(|m| m.start)
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
