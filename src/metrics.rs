//! Measurements of a cloth state used by the headless runner, the benchmarks and the tests.

pub mod self_contact;
pub mod stretch;

pub use self_contact::{min_self_distance, self_intersections};
pub use stretch::{StretchReport, StretchStats};

use crate::collision::Collider;
use crate::math::{largest, smallest, weighted_face_normal};
use crate::model::ClothModel;
use glam::Vec3;

/// A summary of one cloth state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClothMetrics {
    /// Largest stretch ratio `l / l0` over the stretch constraints.
    pub max_stretch: f32,
    /// Mean stretch ratio over the stretch constraints.
    pub mean_stretch: f32,
    /// Smallest and largest area ratio `A / A0` over the triangles.
    pub area_ratio_range: [f32; 2],
    /// Smallest signed distance from a particle to a collider surface (m); `+∞` with none.
    pub min_collider_distance: f32,
    /// Mass-weighted centre of mass (m).
    pub centre_of_mass: Vec3,
    /// `Σ ½ m v²` over all particles (J).
    pub kinetic_energy: f32,
    /// How many position and velocity components are NaN or infinite.
    pub non_finite: usize,
    /// What the solver's fixed capacities left out so far.
    pub overflows: Overflows,
}

/// What a solver's fixed capacities left out since it was made, reset or its colliders were
/// last set: counted, never dropped silently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Overflows {
    /// Particle substeps near more colliders than one particle takes
    /// ([`crate::collision::MAX_NEAR_COLLIDERS`]; it took the first ones in list order).
    pub colliders: u32,
    /// Particle and triangle substeps of self-collision that met a hash bucket fuller than
    /// [`crate::passes::self_collision::MAX_BUCKET_ENTRIES`] (whose particles they skipped), more than
    /// [`crate::passes::self_collision::MAX_CANDIDATES`] candidates for a particle or
    /// [`crate::passes::self_collision::triangles::MAX_TRIANGLE_CANDIDATES`] for a triangle (the rest
    /// skipped), a triangle spanning more than
    /// [`crate::passes::self_collision::triangles::MAX_TRIANGLE_COLUMNS`] columns of cells or visiting
    /// more than [`crate::passes::self_collision::triangles::MAX_TRIANGLE_STEPS`] cells and entries
    /// (its contacts, or the rest of them, skipped), and particles given more than
    /// [`crate::passes::self_collision::triangles::MAX_PARTICLE_CORRECTIONS`] triangle-contact
    /// corrections (all of them skipped).
    pub self_contacts: u32,
    /// Invocations of the bodies' last kernel (`finish_bodies`) that a CPU driver's loop limit
    /// cut short: llvmpipe and lavapipe end every loop of an invocation after 65535 passes in
    /// all, and a pile of thousands of pairs in reach passes that even with the kernel's phases
    /// split over several dispatches ([`crate::passes::bodies`]). Zero on GPUs.
    pub bodies: u32,
}

impl ClothMetrics {
    /// Measures `positions` and `velocities` of `model` against `colliders`, with the solver's
    /// `overflows`.
    ///
    /// # Panics
    /// If `positions` or `velocities` has fewer entries than the model has particles.
    pub fn measure(
        model: &ClothModel,
        positions: &[Vec3],
        velocities: &[Vec3],
        colliders: &[Collider],
        overflows: Overflows,
    ) -> Self {
        let stretch = model.edges();
        let ratios = (0..stretch.len()).map(|c| {
            let [a, b] = stretch.particles(c).map(|i| positions[i as usize]);
            a.distance(b) / stretch.rest_length(c)
        });
        let (max_stretch, sum) = ratios.fold((0f32, 0f64), |(m, s), r| (largest(m, r), s + f64::from(r)));
        let area_ratio_range = area_ratio_range(model, positions);
        let min_collider_distance = colliders
            .iter()
            .flat_map(|c| positions.iter().map(move |&p| c.signed_distance(p)))
            .fold(f32::INFINITY, smallest);
        let total_mass: f32 = model.masses().iter().sum();
        let centre_of_mass = positions.iter().zip(model.masses()).map(|(p, m)| *p * *m).sum::<Vec3>() / total_mass;
        let kinetic_energy = velocities.iter().zip(model.masses()).map(|(v, m)| 0.5 * m * v.length_squared()).sum();
        let non_finite =
            positions.iter().chain(velocities).flat_map(|v| v.to_array()).filter(|x| !x.is_finite()).count();
        Self {
            max_stretch,
            mean_stretch: (sum / stretch.len().max(1) as f64) as f32,
            area_ratio_range,
            min_collider_distance,
            centre_of_mass,
            kinetic_energy,
            non_finite,
            overflows,
        }
    }
}

/// The smallest and largest `A / A0` over the model's triangles.
fn area_ratio_range(model: &ClothModel, positions: &[Vec3]) -> [f32; 2] {
    let mesh = model.mesh();
    let doubled_area =
        |x: &[Vec3], [a, b, c]: [u32; 3]| weighted_face_normal(x[a as usize], x[b as usize], x[c as usize]).length();
    let ratios = mesh.triangles.iter().map(|&t| doubled_area(positions, t) / doubled_area(&mesh.positions, t));
    ratios.fold([f32::INFINITY, 0.0], |[low, high], r| [smallest(low, r), largest(high, r)])
}
