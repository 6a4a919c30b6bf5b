//! Tethers: long-range attachments (Kim, Chentanez & Müller 2012). Each free particle is kept
//! within `scale` times its rest distance *along the mesh* from each of its nearest pinned
//! particles (up to [`MAX_ANCHORS`]), a unilateral constraint `|p − a| ≤ scale·r`. Edge
//! constraints alone let a hanging cloth stretch like rubber at few iterations, because the
//! weight below a row reaches the pins only through a chain of edges; a tether holds each
//! particle to the pins directly, in one projection.
//!
//! Anchors are pinned, so a tether moves only its particle: the tethers of different particles
//! never share a written particle, and the solver projects them all at once, particle by
//! particle, once per substep after the iterations. Projected once, a multiplier would always
//! start from zero, so tethers keep none. They depend on which particles are pinned, not only on
//! the mesh: the solvers rebuild them whenever the set of pins changes. WGSL twin:
//! `shaders/constraints/tether.wgsl`.

use super::{Response, SolveState, DENOMINATOR_EPSILON};
use crate::graph::Csr;
use crate::math::GEOMETRY_EPSILON;
use crate::model::ClothModel;
use glam::Vec3;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The WGSL twin.
pub const WGSL: &str = include_str!("../../shaders/constraints/tether.wgsl");

/// Most anchors per particle.
pub const MAX_ANCHORS: usize = 4;

/// The tethers of a cloth with a given set of pins: particle `particles[k]` is tethered to
/// `anchors[j]` at rest distance `rest_distances[j]` (m) for `j` in `offsets[k]..offsets[k + 1]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Tethers {
    particles: Vec<u32>,
    offsets: Vec<u32>,
    anchors: Vec<u32>,
    rest_distances: Vec<f32>,
}

impl Tethers {
    /// Each free particle (`inverse_masses[i] > 0`) tethered to its [`MAX_ANCHORS`] nearest
    /// pinned particles, by shortest path over the mesh edges at their rest lengths (fewer where
    /// fewer pinned particles are connected to it; none where none is). Ties break by distance,
    /// then particle index, so the result does not depend on anything but its inputs.
    ///
    /// # Panics
    /// If `inverse_masses` does not have one entry per particle.
    pub fn build(model: &ClothModel, inverse_masses: &[f32]) -> Self {
        let n = model.particle_count();
        assert_eq!(inverse_masses.len(), n, "one inverse mass per particle");
        let nearest = nearest_pins(model, inverse_masses);
        let mut tethers = Self { offsets: vec![0], ..Self::default() };
        for (i, found) in nearest.iter().enumerate() {
            if inverse_masses[i] == 0.0 || found.is_empty() {
                continue;
            }
            tethers.particles.push(i as u32);
            for &(anchor, distance) in found {
                tethers.anchors.push(anchor);
                tethers.rest_distances.push(distance as f32);
            }
            tethers.offsets.push(tethers.anchors.len() as u32);
        }
        tethers
    }

    /// Number of tethered particles.
    pub fn particle_count(&self) -> usize {
        self.particles.len()
    }

    /// Number of tethers.
    pub fn len(&self) -> usize {
        self.anchors.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.anchors.is_empty()
    }

    /// The `k`-th tethered particle and its `(anchor, rest distance)` pairs.
    pub fn of(&self, k: usize) -> (u32, impl Iterator<Item = (u32, f32)> + '_) {
        let range = self.offsets[k] as usize..self.offsets[k + 1] as usize;
        (self.particles[k], self.anchors[range.clone()].iter().copied().zip(self.rest_distances[range].iter().copied()))
    }

    /// The GPU words (`tethers` in `shaders/constraints/tether.wgsl`): the tethered particles,
    /// then their list offsets (one more than particles), then `(anchor, rest distance bits)`
    /// per tether.
    pub fn words(&self) -> Vec<u32> {
        let pairs = self.anchors.iter().zip(&self.rest_distances).flat_map(|(&a, r)| [a, r.to_bits()]);
        self.particles.iter().chain(&self.offsets).copied().chain(pairs).collect()
    }
}

/// The tethers in use and the pinned particles they were built for (`None`: tethers off), so
/// that both solvers rebuild them exactly when the pins or the switch change.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct PinnedTethers {
    pub tethers: Tethers,
    pinned: Option<Vec<bool>>,
}

impl PinnedTethers {
    /// The tethers for `enabled` and the pins of `inverse_masses` (0 = pinned), or `None` when
    /// these are already built for them.
    pub fn rebuilt(&self, model: &ClothModel, enabled: bool, inverse_masses: &[f32]) -> Option<Self> {
        let pinned = enabled.then(|| inverse_masses.iter().map(|&w| w == 0.0).collect());
        (pinned != self.pinned).then(|| Self {
            tethers: if enabled { Tethers::build(model, inverse_masses) } else { Tethers::default() },
            pinned,
        })
    }
}

/// For every particle, up to [`MAX_ANCHORS`] `(pinned particle, distance)` pairs, nearest
/// first: a Dijkstra search from every pinned particle at once, where each particle accepts the
/// first [`MAX_ANCHORS`] distinct sources that reach it. Distances add up in f64.
fn nearest_pins(model: &ClothModel, inverse_masses: &[f32]) -> Vec<Vec<(u32, f64)>> {
    let n = model.particle_count();
    let stretch = &model.constraints().stretch;
    let edges = stretch.edges();
    let incidence =
        Csr::from_pairs(n, edges.iter().enumerate().flat_map(|(e, &[a, b])| [(a, e as u32), (b, e as u32)]));
    let mut found: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
    let mut heap = BinaryHeap::new();
    for (i, &w) in inverse_masses.iter().enumerate() {
        if w == 0.0 {
            heap.push(Reverse((Distance(0.0), i as u32, i as u32)));
        }
    }
    while let Some(Reverse((Distance(distance), particle, source))) = heap.pop() {
        let accepted = &mut found[particle as usize];
        if accepted.len() == MAX_ANCHORS || accepted.iter().any(|&(s, _)| s == source) {
            continue;
        }
        accepted.push((source, distance));
        for &e in incidence.row(particle as usize) {
            let [a, b] = edges[e as usize];
            let next = if a == particle { b } else { a };
            let reached = &found[next as usize];
            if reached.len() < MAX_ANCHORS && !reached.iter().any(|&(s, _)| s == source) {
                let length = f64::from(stretch.rest_length(e as usize));
                heap.push(Reverse((Distance(distance + length), next, source)));
            }
        }
    }
    found
}

/// A path length, ordered totally (lengths are finite and ≥ 0).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Distance(f64);

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

/// The correction of particle `p` (inverse mass `w`) by a tether to the pinned anchor `a` with
/// length limit `limit`: `C = |p − a| − limit`, active only while `C > 0` (a tether never
/// pushes), `Δλ = k·(−C)/(w + α̃)`, `Δp = w·Δλ·(p − a)/|p − a|` (XPBD eq. 18 with λ = 0 and
/// `w_a = 0`). Zero when inactive, at the anchor, or for a pinned particle.
pub fn tether_correction(p: Vec3, a: Vec3, limit: f32, w: f32, response: Response) -> Vec3 {
    let delta = p - a;
    let length = delta.length();
    let c = length - limit;
    let [k, alpha_tilde] = response;
    let denominator = w + alpha_tilde;
    if c <= 0.0 || length < GEOMETRY_EPSILON || denominator < DENOMINATOR_EPSILON {
        return Vec3::ZERO;
    }
    let dlambda = k * -c / denominator;
    delta / length * (w * dlambda)
}

/// Projects the `k`-th tethered particle's tethers in order (CPU reference), each from the
/// position the previous one left; `scale` multiplies every rest distance. The last tether
/// holds exactly; pulling towards one anchor can leave an earlier one a little long.
pub(crate) fn project_tethers(tethers: &Tethers, k: usize, scale: f32, response: Response, state: &mut SolveState) {
    let (particle, list) = tethers.of(k);
    let i = particle as usize;
    for (anchor, rest) in list {
        let dp = tether_correction(
            state.position(i),
            state.position(anchor as usize),
            scale * rest,
            state.inverse_masses[i],
            response,
        );
        state.displacements[i] += dp;
    }
}
