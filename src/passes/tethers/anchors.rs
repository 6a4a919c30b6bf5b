//! Each particle's nearest pinned particles along the mesh, found by a Dijkstra search from
//! every pin at once and kept current as pins come and go: a new pin is searched from alone, and
//! a released one is searched around only where it was among a particle's nearest, so a drag in
//! the demo (one pin added, later released) costs one search from the grabbed particle rather
//! than a search from every pin.
//!
//! The lists hold the `MAX_ANCHORS` smallest `(distance, pin)` pairs, distance first and pin
//! index second, whatever the history of changes: an update gives what a fresh search gives.
//! That rests on one property: if pin `s` is among particle `i`'s nearest, it is among the
//! nearest of every particle on its shortest path to `i` (any pin ahead of `s` there would be
//! ahead of it at `i` too). So a pin travels only through particles that keep it, and a list
//! that loses a released pin can be refilled from its neighbours' lists.

use crate::graph::Csr;
use crate::model::ClothModel;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Most anchors per particle.
pub const MAX_ANCHORS: usize = 4;

/// The mesh's edges seen from each particle: the edges at it and their two ends and rest
/// lengths (m, as f64, so that path lengths add up without loss on meshes of sane scale).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct EdgeGraph {
    incidence: Csr,
    ends: Vec<[u32; 2]>,
    lengths: Vec<f64>,
}

impl EdgeGraph {
    /// The stretch constraints' edges of `model` at their rest lengths.
    pub fn new(model: &ClothModel) -> Self {
        let stretch = &model.constraints().stretch;
        let ends = stretch.edges().to_vec();
        let incidence = Csr::from_rows(&ends).transpose(model.particle_count());
        let lengths = (0..ends.len()).map(|e| f64::from(stretch.rest_length(e))).collect();
        Self { incidence, ends, lengths }
    }

    /// The particles next to particle `i`, each with the rest length of the edge to it.
    fn neighbours(&self, i: u32) -> impl Iterator<Item = (u32, f64)> + '_ {
        self.incidence.row(i as usize).iter().map(move |&e| {
            let [a, b] = self.ends[e as usize];
            (if a == i { b } else { a }, self.lengths[e as usize])
        })
    }
}

/// A path length, ordered totally (lengths are finite and ≥ 0).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) struct Distance(pub f64);

impl Eq for Distance {}

impl PartialOrd for Distance {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Distance {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// A pin at its distance from a particle; smaller is nearer (ties go to the lower index).
type Entry = (Distance, u32);

/// One particle's nearest pins, nearest first: at most [`MAX_ANCHORS`], each pin once.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Nearest {
    len: u8,
    entries: [Entry; MAX_ANCHORS],
}

impl Nearest {
    fn entries(&self) -> &[Entry] {
        &self.entries[..usize::from(self.len)]
    }

    fn is_full(&self) -> bool {
        usize::from(self.len) == MAX_ANCHORS
    }

    /// Whether `entry` would be kept: a pin not listed yet, with room for it or nearer than the
    /// farthest listed.
    fn admits(&self, entry: Entry) -> bool {
        let listed = self.entries();
        !listed.iter().any(|&(_, pin)| pin == entry.1) && (!self.is_full() || entry < listed[MAX_ANCHORS - 1])
    }

    /// Puts `entry` in its place if [`Nearest::admits`] it (dropping the farthest from a full
    /// list); whether it did.
    fn insert(&mut self, entry: Entry) -> bool {
        if !self.admits(entry) {
            return false;
        }
        let at = self.entries().partition_point(|&listed| listed < entry);
        let end = usize::from(self.len).min(MAX_ANCHORS - 1);
        self.entries.copy_within(at..end, at + 1);
        self.entries[at] = entry;
        self.len = (end + 1) as u8;
        true
    }

    /// Drops the pins that `released` names; whether any went.
    fn drop_released(&mut self, released: impl Fn(u32) -> bool) -> bool {
        let before = self.len;
        let mut kept = 0;
        for k in 0..usize::from(self.len) {
            if !released(self.entries[k].1) {
                self.entries[kept] = self.entries[k];
                kept += 1;
            }
        }
        self.len = kept as u8;
        self.len != before
    }
}

/// Every particle's nearest pins for one set of pins.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct NearestPins {
    lists: Vec<Nearest>,
}

impl NearestPins {
    /// The lists of `particles` particles while nothing is pinned: all empty.
    pub fn new(particles: usize) -> Self {
        Self { lists: vec![Nearest::default(); particles] }
    }

    /// Particle `i`'s nearest pins, nearest first, with their distances along the mesh.
    pub fn of(&self, i: usize) -> impl Iterator<Item = (u32, f64)> + '_ {
        self.lists[i].entries().iter().map(|&(Distance(d), pin)| (pin, d))
    }

    /// Brings the lists from the pins `before` to the pins `after` (`true` = pinned).
    /// Released pins leave every list. A list that was full and lost one may now take farther
    /// pins, so it is searched again: emptied, and fed by its neighbours outside the search and
    /// the pins inside it (a pin's path to a particle inside either enters from outside, where
    /// the lists are exact and hold it, or starts inside). A list that was not full held every
    /// pin it can reach and stays exact. New pins start a search of their own. All feed one
    /// Dijkstra search, in which an entry spreads from a particle only when that particle keeps
    /// it.
    pub fn update(&mut self, graph: &EdgeGraph, before: &[bool], after: &[bool]) {
        let released = |pin: u32| before[pin as usize] && !after[pin as usize];
        let mut reopened = vec![false; self.lists.len()];
        for (list, reopen) in self.lists.iter_mut().zip(&mut reopened) {
            let was_full = list.is_full();
            if list.drop_released(released) && was_full {
                *list = Nearest::default();
                *reopen = true;
            }
        }
        let mut heap = BinaryHeap::new();
        for i in (0..self.lists.len() as u32).filter(|&i| reopened[i as usize]) {
            for (j, length) in graph.neighbours(i).filter(|&(j, _)| !reopened[j as usize]) {
                for &(Distance(d), pin) in self.lists[j as usize].entries() {
                    heap.push(Reverse((Distance(d + length), i, pin)));
                }
            }
        }
        for (i, (&was, &is)) in before.iter().zip(after).enumerate() {
            if is && (!was || reopened[i]) {
                heap.push(Reverse((Distance(0.0), i as u32, i as u32)));
            }
        }
        self.search(graph, heap);
    }

    /// Dijkstra's search over `(distance, particle, pin)` candidates, nearest first.
    fn search(&mut self, graph: &EdgeGraph, mut heap: BinaryHeap<Reverse<(Distance, u32, u32)>>) {
        while let Some(Reverse((Distance(d), i, pin))) = heap.pop() {
            if !self.lists[i as usize].insert((Distance(d), pin)) {
                continue;
            }
            for (next, length) in graph.neighbours(i) {
                let entry = (Distance(d + length), pin);
                if self.lists[next as usize].admits(entry) {
                    heap.push(Reverse((entry.0, next, pin)));
                }
            }
        }
    }
}
