//! Each particle's nearest pinned particles by geodesic distance on the rest surface, kept
//! current as pins come and go: each pin's distances are measured once, when it is pinned, and
//! dropped when it is released, so a drag in the demo (one pin added, later released) costs one
//! search from the grabbed particle. A pin's distances do not depend on the other pins, so a list
//! updated through any history of changes is the one a fresh build gives.
//!
//! The lists hold the `MAX_ANCHORS` smallest `(distance, pin)` pairs, distance first and pin
//! index second.

use crate::geodesic::GeodesicSurface;
use crate::model::ClothModel;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Most anchors per particle.
pub const MAX_ANCHORS: usize = 4;

/// The cloth's rest surface, on which tether lengths are measured.
pub(super) fn rest_surface(model: &ClothModel) -> GeodesicSurface {
    GeodesicSurface::new(&model.mesh().positions, &model.mesh().triangles)
}

/// A pin at its distance (m) from a particle; smaller is nearer (ties go to the lower index).
type Entry = (f32, u32);

/// Every particle's nearest pins for one set of pins.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct NearestPins {
    /// Each pin's geodesic distance to every particle (`∞` where unreachable).
    distances: BTreeMap<u32, Arc<Vec<f32>>>,
    /// Each particle's nearest pins, nearest first.
    lists: Vec<Vec<Entry>>,
}

impl NearestPins {
    /// The lists of `particles` particles while nothing is pinned: all empty.
    pub fn new(particles: usize) -> Self {
        Self { distances: BTreeMap::new(), lists: vec![Vec::new(); particles] }
    }

    /// Particle `i`'s nearest pins, nearest first, with their distances on the rest surface.
    pub fn of(&self, i: usize) -> impl Iterator<Item = (u32, f32)> + '_ {
        self.lists[i].iter().map(|&(d, pin)| (pin, d))
    }

    /// Brings the lists to the pins `pinned` (`true` = pinned): measures from the new pins,
    /// forgets the released ones, and takes each particle's nearest.
    pub fn update(&mut self, surface: &GeodesicSurface, pinned: &[bool]) {
        self.distances.retain(|&pin, _| pinned[pin as usize]);
        for pin in (0..pinned.len() as u32).filter(|&i| pinned[i as usize]) {
            self.distances
                .entry(pin)
                .or_insert_with(|| Arc::new(surface.distances_from(pin).into_iter().map(|d| d as f32).collect()));
        }
        for (i, list) in self.lists.iter_mut().enumerate() {
            list.clear();
            for (&pin, distances) in &self.distances {
                let entry = (distances[i], pin);
                if entry.0.is_finite() && (list.len() < MAX_ANCHORS || entry < list[MAX_ANCHORS - 1]) {
                    let at = list.partition_point(|listed| *listed < entry);
                    list.insert(at, entry);
                    list.truncate(MAX_ANCHORS);
                }
            }
        }
    }
}
