//! Pins (PBD §3.6 attachments): pinned particles have inverse mass 0 and follow a kinematic
//! target that the caller may move every frame, or a point of a collider they are attached to
//! ([`crate::passes::attachments`]). Shared by the GPU solver and the CPU reference.

use crate::collision::Pose;
use crate::error::Error;
use crate::model::ClothModel;
use crate::struct_layout;
use crate::wgsl::StructLayout;
use bytemuck::{Pod, Zeroable};
use glam::Vec3;

/// [`PinRecord::collider`] of a pin attached to no collider.
pub const NOT_ATTACHED: u32 = u32::MAX;

/// Per-particle pin state: inverse masses (0 = pinned), targets, and the colliders pins are
/// attached to.
#[derive(Debug, Clone, PartialEq)]
pub struct Pins {
    masses: Vec<f32>,
    inverse_masses: Vec<f32>,
    /// A pin's target; an attached pin's point in its collider's frame.
    targets: Vec<Vec3>,
    /// The collider each pin is attached to, or [`NOT_ATTACHED`].
    colliders: Vec<u32>,
}

impl Pins {
    /// The model's pins, each targeting its rest position.
    pub fn new(model: &ClothModel) -> Self {
        Self {
            masses: model.masses().to_vec(),
            inverse_masses: model.inverse_masses().to_vec(),
            targets: model.mesh().positions.clone(),
            colliders: vec![NOT_ATTACHED; model.particle_count()],
        }
    }

    /// These pins, then those of `cloth` (its model's, each targeting its rest position): the
    /// pins of a model with `cloth` joined after this one's ([`ClothModel::joined`]).
    pub fn appended(&self, cloth: &ClothModel) -> Self {
        let added = Self::new(cloth);
        Self {
            masses: [self.masses.as_slice(), &added.masses].concat(),
            inverse_masses: [self.inverse_masses.as_slice(), &added.inverse_masses].concat(),
            targets: [self.targets.as_slice(), &added.targets].concat(),
            colliders: [self.colliders.as_slice(), &added.colliders].concat(),
        }
    }

    fn check(&self, index: u32) -> Result<usize, Error> {
        let i = index as usize;
        if i < self.masses.len() {
            Ok(i)
        } else {
            Err(Error::ParticleOutOfRange { index, particle_count: self.masses.len() })
        }
    }

    fn check_target(target: Vec3) -> Result<(), Error> {
        if target.is_finite() {
            Ok(())
        } else {
            Err(Error::Pin(format!("target {target} is not finite")))
        }
    }

    /// Pins a particle: it moves to `target` over the next frame's substeps, then stays there
    /// (an attached particle is released from its collider).
    pub fn pin(&mut self, index: u32, target: Vec3) -> Result<(), Error> {
        let i = self.check(index)?;
        Self::check_target(target)?;
        self.inverse_masses[i] = 0.0;
        self.targets[i] = target;
        self.colliders[i] = NOT_ATTACHED;
        Ok(())
    }

    /// Attaches a particle to collider `collider` at `local`, a point of the collider's own
    /// frame (its shape as given): a pin whose target is that point wherever the collider is,
    /// substep by substep. The collider's index is the solver's to check (its `attach`).
    pub(crate) fn attach(&mut self, index: u32, collider: u32, local: Vec3) -> Result<(), Error> {
        let i = self.check(index)?;
        Self::check_target(local)?;
        if collider == NOT_ATTACHED {
            return Err(Error::Pin(format!("collider {collider} cannot be attached to")));
        }
        self.inverse_masses[i] = 0.0;
        self.targets[i] = local;
        self.colliders[i] = collider;
        Ok(())
    }

    /// The collider a particle is attached to and its point there, in the collider's frame.
    pub fn attachment(&self, index: u32) -> Option<(u32, Vec3)> {
        let i = index as usize;
        let collider = *self.colliders.get(i)?;
        (collider != NOT_ATTACHED && self.inverse_masses[i] == 0.0).then(|| (collider, self.targets[i]))
    }

    /// Whether a pin is attached to a collider.
    pub fn has_attachments(&self) -> bool {
        (0..self.colliders.len()).any(|i| self.attachment(i as u32).is_some())
    }

    /// Refuses to let the colliders be replaced while a particle is attached to one: the new
    /// collider of its index would carry it off (release it first).
    pub fn check_no_attachments(&self) -> Result<(), Error> {
        match (0..self.colliders.len() as u32).find_map(|i| self.attachment(i).map(|(c, _)| (i, c))) {
            Some((i, c)) => Err(Error::Pin(format!("particle {i} is attached to collider {c}: release it first"))),
            None => Ok(()),
        }
    }

    /// Where a pin's target is in the world, its collider at `poses` for an attached one.
    pub fn world_target(&self, index: u32, poses: &[Pose]) -> Vec3 {
        match self.attachment(index) {
            Some((c, local)) => poses.get(c as usize).map_or(local, |pose| pose.to_world(local)),
            None => self.targets[index as usize],
        }
    }

    /// Moves the target of a pinned particle (an error if it is not pinned, or attached to a
    /// collider, which moves it).
    pub fn set_target(&mut self, index: u32, target: Vec3) -> Result<(), Error> {
        let i = self.check(index)?;
        Self::check_target(target)?;
        if self.inverse_masses[i] != 0.0 {
            return Err(Error::Pin(format!("particle {index} is not pinned")));
        }
        if let Some((collider, _)) = self.attachment(index) {
            return Err(Error::Pin(format!("particle {index} is attached to collider {collider}, which moves it")));
        }
        self.targets[i] = target;
        Ok(())
    }

    /// Releases a particle, pinned or attached: it gets its mass back.
    pub fn unpin(&mut self, index: u32) -> Result<(), Error> {
        let i = self.check(index)?;
        self.inverse_masses[i] = 1.0 / self.masses[i];
        self.colliders[i] = NOT_ATTACHED;
        Ok(())
    }

    /// Whether a particle is pinned.
    pub fn is_pinned(&self, index: u32) -> bool {
        self.inverse_masses.get(index as usize) == Some(&0.0)
    }

    /// Inverse masses, 0 for pinned particles.
    pub fn inverse_masses(&self) -> &[f32] {
        &self.inverse_masses
    }

    /// Pin targets (meaningful for pinned particles only; an attached particle's is its point
    /// in its collider's frame, [`Pins::world_target`]).
    pub fn targets(&self) -> &[Vec3] {
        &self.targets
    }

    /// The pinned particles' GPU records, in particle order.
    pub fn records(&self) -> Vec<PinRecord> {
        (0..self.masses.len())
            .filter(|&i| self.inverse_masses[i] == 0.0)
            .map(|i| PinRecord {
                position: self.targets[i].to_array(),
                particle: i as u32,
                collider: self.colliders[i],
                _pad: [0; 3],
            })
            .collect()
    }
}

/// A pinned particle as the GPU reads it (`Pin` in `shaders/common.wgsl`): predict and finalize
/// move it along its kinematic path to its target `position`, or, attached, the attachments'
/// kernel and finalize to its collider's point `position`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct PinRecord {
    /// Target position (m), or the point in its collider's frame.
    pub position: [f32; 3],
    /// The pinned particle.
    pub particle: u32,
    /// The collider it is attached to, or [`NOT_ATTACHED`].
    pub collider: u32,
    /// Pads the record to 32 bytes.
    pub _pad: [u32; 3],
}

impl PinRecord {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout = struct_layout!(PinRecord as "Pin", position, particle, collider);
}
