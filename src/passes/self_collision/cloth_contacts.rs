//! What each pair of cloths keeps between them in self-collision: each cloth's thickness and
//! friction ([`crate::ClothModel::with_contact`], or the solver's [`SelfCollision`]) and the
//! frictions set between pairs ([`crate::ClothModel::with_pair_friction`]), and which cloth each
//! particle and triangle belongs to. A contact between cloths `a` and `b` keeps them the mean
//! of their thicknesses apart, each cloth's surface half its thickness from its particles, with
//! the pair's friction: the mean of theirs unless the pair has its own (the combination PhysX
//! and Newton make by default). A cloth against itself keeps its own, every bit, so a model of
//! one cloth collides as the solver's [`SelfCollision`] says. The GPU reads the same values from
//! the `rest_shape` binding ([`ClothContacts::gpu_words`]).

use crate::math::{largest, smallest};
use crate::model::ClothModel;
use crate::params::SelfCollision;

/// Each cloth's thickness, each pair's friction, and each particle's and triangle's cloth.
#[derive(Debug, Clone, PartialEq)]
pub struct ClothContacts {
    /// Each cloth's thickness (m).
    thicknesses: Vec<f32>,
    /// The friction of cloths `a` and `b` at `a·cloths + b`, symmetric.
    frictions: Vec<f32>,
    /// Each particle's cloth.
    particle_cloths: Vec<u32>,
    /// Each triangle's cloth.
    triangle_cloths: Vec<u32>,
}

impl ClothContacts {
    /// The contacts of `model`'s cloths, those without their own taking `defaults`.
    pub fn new(model: &ClothModel, defaults: &SelfCollision) -> Self {
        let own: Vec<SelfCollision> = model.cloths().iter().map(|cloth| cloth.contact.unwrap_or(*defaults)).collect();
        let n = own.len();
        let mut frictions: Vec<f32> = (0..n * n).map(|k| mean(own[k / n].friction, own[k % n].friction)).collect();
        for pair in model.pair_frictions() {
            let [a, b] = pair.cloths.map(|c| c as usize);
            frictions[a * n + b] = pair.friction;
            frictions[b * n + a] = pair.friction;
        }
        let of_each = |ranges: Vec<std::ops::Range<u32>>| -> Vec<u32> {
            ranges.into_iter().enumerate().flat_map(|(c, range)| range.map(move |_| c as u32)).collect()
        };
        Self {
            thicknesses: own.iter().map(|contact| contact.thickness).collect(),
            frictions,
            particle_cloths: of_each(model.cloths().iter().map(|cloth| cloth.particles.clone()).collect()),
            triangle_cloths: of_each(model.cloths().iter().map(|cloth| cloth.triangles.clone()).collect()),
        }
    }

    /// What a contact between cloths `a` and `b` keeps: the mean of their thicknesses (cloth
    /// `a`'s own when `a == b`, every bit) and the pair's friction.
    pub fn between(&self, a: u32, b: u32) -> SelfCollision {
        let (a, b) = (a as usize, b as usize);
        let n = self.thicknesses.len();
        SelfCollision { thickness: mean(self.thicknesses[a], self.thicknesses[b]), friction: self.frictions[a * n + b] }
    }

    /// Cloth `c`'s thickness.
    pub fn thickness(&self, c: u32) -> f32 {
        self.thicknesses[c as usize]
    }

    /// The most a free particle of cloth `c` departs from its cloth's rigid motion in one
    /// substep ([`SelfCollision::max_displacement`] of its thickness): two particles of one
    /// cloth close in by at most the sum of their halves (two cloths' rigid motions are not
    /// limited).
    pub fn max_displacement(&self, c: u32) -> f32 {
        0.5 * self.thickness(c)
    }

    /// The farthest cloth `c` touches another: its thickness against the thickest cloth's.
    pub fn reach(&self, c: u32) -> f32 {
        mean(self.thickness(c), self.largest_thickness())
    }

    /// The nearest cloth `c` keeps another: its thickness against the thinnest cloth's.
    pub fn nearest(&self, c: u32) -> f32 {
        mean(self.thickness(c), self.smallest_thickness())
    }

    /// The thickest cloth's thickness.
    pub fn largest_thickness(&self) -> f32 {
        self.thicknesses.iter().copied().fold(0.0, largest)
    }

    /// The thinnest cloth's thickness.
    pub fn smallest_thickness(&self) -> f32 {
        self.thicknesses.iter().copied().fold(f32::INFINITY, smallest)
    }

    /// The edge of a hash cell: [`SelfCollision::cell_size`] of the thickest cloth, so that
    /// every contact lies within the 27 cells around a particle's own.
    pub fn cell_size(&self, spacing: f32) -> f32 {
        self.largest_thickness().max(spacing)
    }

    /// Particle `i`'s cloth.
    pub fn particle_cloth(&self, i: usize) -> u32 {
        self.particle_cloths[i]
    }

    /// Triangle `t`'s cloth.
    pub fn triangle_cloth(&self, t: usize) -> u32 {
        self.triangle_cloths[t]
    }

    /// Whether particles `i` and `j` belong to one cloth: only then can they be neighbours at
    /// rest, which never collide.
    pub fn same_cloth(&self, i: usize, j: usize) -> bool {
        self.particle_cloths[i] == self.particle_cloths[j]
    }

    /// The words the GPU reads after the rest shape: each cloth's thickness, then each pair's
    /// friction (row by row), as f32 bits.
    pub fn gpu_words(&self) -> Vec<u32> {
        self.thicknesses.iter().chain(&self.frictions).map(|v| v.to_bits()).collect()
    }
}

/// The mean of `a` and `b`: `a` itself, every bit, when they are equal.
fn mean(a: f32, b: f32) -> f32 {
    0.5 * (a + b)
}
