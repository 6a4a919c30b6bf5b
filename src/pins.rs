//! Pins (PBD §3.6 attachments): pinned particles have inverse mass 0 and follow a kinematic
//! target that the caller may move every frame. Shared by the GPU solver and the CPU reference.

use crate::error::Error;
use crate::model::ClothModel;
use crate::struct_layout;
use crate::wgsl::StructLayout;
use bytemuck::{Pod, Zeroable};
use glam::Vec3;

/// Per-particle pin state: inverse masses (0 = pinned) and targets.
#[derive(Debug, Clone, PartialEq)]
pub struct Pins {
    masses: Vec<f32>,
    inverse_masses: Vec<f32>,
    targets: Vec<Vec3>,
}

impl Pins {
    /// The model's pins, each targeting its rest position.
    pub fn new(model: &ClothModel) -> Self {
        Self {
            masses: model.masses().to_vec(),
            inverse_masses: model.inverse_masses().to_vec(),
            targets: model.mesh().positions.clone(),
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

    /// Pins a particle: it moves to `target` over the next frame's substeps, then stays there.
    pub fn pin(&mut self, index: u32, target: Vec3) -> Result<(), Error> {
        let i = self.check(index)?;
        Self::check_target(target)?;
        self.inverse_masses[i] = 0.0;
        self.targets[i] = target;
        Ok(())
    }

    /// Moves the target of a pinned particle (an error if it is not pinned).
    pub fn set_target(&mut self, index: u32, target: Vec3) -> Result<(), Error> {
        let i = self.check(index)?;
        Self::check_target(target)?;
        if self.inverse_masses[i] != 0.0 {
            return Err(Error::Pin(format!("particle {index} is not pinned")));
        }
        self.targets[i] = target;
        Ok(())
    }

    /// Releases a particle: it gets its mass back.
    pub fn unpin(&mut self, index: u32) -> Result<(), Error> {
        let i = self.check(index)?;
        self.inverse_masses[i] = 1.0 / self.masses[i];
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

    /// Pin targets (meaningful for pinned particles only).
    pub fn targets(&self) -> &[Vec3] {
        &self.targets
    }

    /// The pinned particles' GPU records, in particle order.
    pub fn records(&self) -> Vec<PinRecord> {
        (0..self.masses.len())
            .filter(|&i| self.inverse_masses[i] == 0.0)
            .map(|i| PinRecord { position: self.targets[i].to_array(), particle: i as u32 })
            .collect()
    }
}

/// A pinned particle as the GPU reads it (`Pin` in `shaders/common.wgsl`): predict and finalize
/// move it along its kinematic path to its target `position`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct PinRecord {
    /// Target position (m).
    pub position: [f32; 3],
    /// The pinned particle.
    pub particle: u32,
}

impl PinRecord {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout = struct_layout!(PinRecord as "Pin", position, particle);
}
