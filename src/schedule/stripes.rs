//! Stripes: a partition of the units (constraints, or constraints projected together) into
//! bands across the cloth such that bands two apart share no particle. The Gauss-Seidel sweep runs in two phases — even stripes, then odd
//! stripes — and within a phase each stripe is one independent workgroup, so a whole phase is
//! one dispatch however many colours it has.
//!
//! Construction: breadth-first levels over the particle graph in which two particles are
//! neighbours when they share a unit. Every unit's particles are then pairwise neighbours, so
//! their levels are `m` or `m + 1` for the unit's lowest level `m`. A stripe takes the units
//! whose `m` lies in a run of consecutive levels `[a_s, a_{s+1})` and so touches levels
//! `[a_s, a_{s+1}]` only; stripe `s + 2` starts at `a_{s+2} > a_{s+1}`.
//!
//! Stripes are cut so that those particles fit a workgroup's memory where the levels allow:
//! a stripe's kernel then keeps its particles there for the whole sweep. Where the levels allow,
//! their number is a multiple of [`STRIPE_COUNT_MULTIPLE`] and they share the units out
//! about evenly, so each phase splits into equal halves: on a two-thread CPU driver (one
//! workgroup per thread) a phase of three equal stripes keeps one core idle half the phase.

use crate::graph::{bfs, neighbours, Csr, UNSEEN};

/// The stripe of every unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stripes {
    /// The stripe of each unit (in the order of the `units` given to [`stripes`]).
    pub of_unit: Vec<u32>,
    /// Number of stripes; stripe `s` belongs to phase `s % 2`.
    pub count: u32,
}

/// Stripe counts are rounded up to a multiple of this where the levels allow: an even number
/// of stripes per phase, so both phases divide evenly between the two threads of a two-core CPU
/// driver.
pub const STRIPE_COUNT_MULTIPLE: u32 = 4;

/// Splits `units` (unit → particles; `incidence` is its transpose) into stripes of consecutive
/// breadth-first levels whose particles number at most `max_particles` (counted by level, so an
/// upper bound), or one level where a single level's units touch more. Aims at the fewest
/// stripes that fit, rounded up to a multiple of [`STRIPE_COUNT_MULTIPLE`], each with an equal
/// share of the units as far as the levels allow; when capacity cuts make that count miss the
/// multiple, the next multiples are tried, else the first cut is kept. `sources` are candidate
/// starting sets for the levels (see [`levels`]). Deterministic.
pub fn stripes(units: &Csr, incidence: &Csr, sources: &[Vec<u32>], max_particles: usize) -> Stripes {
    let levels = levels(units, incidence, sources);
    let lowest: Vec<u32> =
        (0..units.rows()).map(|u| units.row(u).iter().map(|&p| levels[p as usize]).min().unwrap_or(0)).collect();
    let level_count = lowest.iter().map(|&m| m as usize + 1).max().unwrap_or(0);
    let mut profile = LevelProfile {
        // One level past the last unit level: its units reach it.
        particles: vec![0; level_count + 1],
        units: vec![0; level_count],
        max_particles,
    };
    for &level in &levels {
        if let Some(n) = profile.particles.get_mut(level as usize) {
            *n += 1;
        }
    }
    for &m in &lowest {
        profile.units[m as usize] += 1;
    }
    // With a target of one stripe no share is ever reached: only capacity cuts.
    let fewest = stripe_count(&profile.cut(1));
    let first_target = fewest.next_multiple_of(STRIPE_COUNT_MULTIPLE);
    let first_cut = profile.cut(first_target);
    let stripe_of_level = if stripe_count(&first_cut).is_multiple_of(STRIPE_COUNT_MULTIPLE) {
        first_cut
    } else {
        // Capacity cuts added stripes: try the next multiples, else keep the first cut.
        (first_target + STRIPE_COUNT_MULTIPLE..)
            .step_by(STRIPE_COUNT_MULTIPLE as usize)
            .take_while(|&target| target as usize <= level_count)
            .map(|target| profile.cut(target))
            .find(|cut| stripe_count(cut).is_multiple_of(STRIPE_COUNT_MULTIPLE))
            .unwrap_or(first_cut)
    };
    let of_unit: Vec<u32> = lowest.iter().map(|&m| stripe_of_level[m as usize]).collect();
    Stripes { of_unit, count: stripe_count(&stripe_of_level) }
}

/// Particles and units per breadth-first level (a unit counts at its lowest level).
struct LevelProfile {
    particles: Vec<usize>,
    units: Vec<usize>,
    max_particles: usize,
}

impl LevelProfile {
    /// The stripe of each unit level when the levels are cut into `target` stripes: each stripe
    /// takes an equal share of the units not yet taken (cut at the level boundary nearest it),
    /// and is cut early wherever its particles would exceed the capacity, which shrinks the
    /// shares of the stripes after it. Unit levels `[first, m]` touch particle levels
    /// `[first, m + 1]`.
    fn cut(&self, target: u32) -> Vec<u32> {
        let total: usize = self.units.iter().sum();
        let mut stripe_of_level = Vec::with_capacity(self.units.len());
        let (mut stripe, mut first, mut done, mut taken_before) = (0u32, 0usize, 0usize, 0usize);
        for (m, &work) in self.units.iter().enumerate() {
            let full = self.particles[first..=m + 1].iter().sum::<usize>() > self.max_particles;
            // Level m lies mostly past this stripe's share of what the earlier stripes left.
            let stripes_left = (target as usize).saturating_sub(stripe as usize).max(1);
            let share_reached = (2 * (done - taken_before) + work) * stripes_left > 2 * (total - taken_before);
            if m > first && (full || share_reached) {
                stripe += 1;
                first = m;
                taken_before = done;
            }
            stripe_of_level.push(stripe);
            done += work;
        }
        stripe_of_level
    }
}

/// Stripes in a level → stripe map (stripes are numbered from 0 without gaps).
fn stripe_count(stripe_of_level: &[u32]) -> u32 {
    stripe_of_level.last().map_or(0, |&s| s + 1)
}

/// Breadth-first level of every particle, per connected component from the candidate start
/// whose levels are narrowest (fewest particles in the widest two consecutive levels, the least a
/// stripe can touch; the first candidate on ties). The
/// candidates are a pseudo-peripheral particle (the farthest from the component's lowest-index
/// particle) and each set of `sources` that starts in the component: the model passes the sides
/// of the mesh boundary, so a rectangle is cut into rows, not diagonals (a 511² grid's rows of
/// 512 particles fit two to a stripe). Every unit's particles are pairwise neighbours, so their
/// levels differ by at most one. Particles in no unit get level 0.
pub fn levels(units: &Csr, incidence: &Csr, sources: &[Vec<u32>]) -> Vec<u32> {
    let graph = neighbours(units, incidence);
    let n = incidence.rows();
    let mut component = vec![UNSEEN; n];
    let mut levels = vec![UNSEEN; n];
    let mut scratch = vec![UNSEEN; n];
    let mut source_component: Vec<u32> = sources.iter().map(|_| UNSEEN).collect();
    for start in 0..n {
        if levels[start] != UNSEEN {
            continue;
        }
        let members = bfs(&[start as u32], &graph, &mut scratch);
        for &p in &members {
            component[p as usize] = start as u32;
        }
        for (owner, set) in source_component.iter_mut().zip(sources) {
            if set.first().is_some_and(|&s| component[s as usize] == start as u32) {
                *owner = start as u32;
            }
        }
        let far = *members.last().expect("start is visited");
        let mut best: Option<(usize, &[u32])> = None;
        let candidates = std::iter::once(std::slice::from_ref(&far)).chain(
            sources.iter().zip(&source_component).filter(|(_, &c)| c == start as u32).map(|(s, _)| s.as_slice()),
        );
        for candidate in candidates {
            for &p in &members {
                scratch[p as usize] = UNSEEN;
            }
            bfs(candidate, &graph, &mut scratch);
            let width = widest_level_pair(&members, &scratch);
            if best.is_none_or(|(w, _)| width < w) {
                best = Some((width, candidate));
            }
        }
        let (_, chosen) = best.expect("one candidate at least");
        bfs(chosen, &graph, &mut levels);
    }
    levels
}

/// Particles in the most populated two consecutive levels of `members`.
fn widest_level_pair(members: &[u32], levels: &[u32]) -> usize {
    let mut counts = vec![0usize; members.len() + 1];
    for &p in members {
        counts[(levels[p as usize] as usize).min(members.len())] += 1;
    }
    counts.windows(2).map(|pair| pair[0] + pair[1]).max().unwrap_or(counts[0])
}
