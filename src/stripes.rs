//! Stripes: a partition of the constraints into bands across the cloth such that bands two
//! apart share no particle. The Gauss-Seidel sweep runs in two phases — even stripes, then odd
//! stripes — and within a phase each stripe is one independent workgroup, so a whole phase is
//! one dispatch however many colours it has.
//!
//! Construction: breadth-first levels over the particle graph in which two particles are
//! neighbours when they share a constraint. Every constraint's particles are then pairwise
//! neighbours, so their levels are `m` or `m + 1` for the constraint's lowest level `m`. A
//! stripe takes the constraints whose `m` lies in a run of consecutive levels `[a_s, a_{s+1})`
//! and so touches levels `[a_s, a_{s+1}]` only; stripe `s + 2` starts at `a_{s+2} > a_{s+1}`.
//!
//! Stripes are cut so that those particles fit a workgroup's memory where the levels allow:
//! a stripe's kernel then keeps its particles there for the whole sweep. Where the levels allow,
//! their number is a multiple of [`STRIPE_COUNT_MULTIPLE`] and they share the constraints out
//! about evenly, so each phase splits into equal halves: on a two-thread CPU driver (one
//! workgroup per thread) a phase of three equal stripes keeps one core idle half the phase.

use crate::model::Csr;
use std::collections::VecDeque;

/// Stripe and phase of every constraint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stripes {
    /// The stripe of each constraint (in the order given to [`stripes`]).
    pub of_constraint: Vec<u32>,
    /// Number of stripes; stripe `s` belongs to phase `s % 2`.
    pub count: u32,
}

/// Stripe counts are rounded up to a multiple of this where the levels allow: an even number
/// of stripes per phase, so both phases divide evenly between the two threads of a two-core CPU
/// driver.
pub const STRIPE_COUNT_MULTIPLE: u32 = 4;

/// Splits `constraints` (each given by its particles) into stripes of consecutive levels whose
/// particles number at most `max_particles` (counted by level, so an upper bound), or one level
/// where a single level's constraints touch more. Aims at the fewest stripes that fit, rounded up
/// to a multiple of [`STRIPE_COUNT_MULTIPLE`], each with an equal share of the constraints as far
/// as the levels allow; when capacity cuts make that count miss the multiple, the next multiples
/// are tried, else the first cut is kept. Deterministic.
///
/// # Panics
/// If a constraint refers to a particle `≥ particle_count`.
pub fn stripes(constraints: &[&[u32]], particle_count: usize, max_particles: usize) -> Stripes {
    let incidence = Csr::from_pairs(
        particle_count,
        constraints.iter().enumerate().flat_map(|(c, particles)| particles.iter().map(move |&p| (p, c as u32))),
    );
    let levels = bfs_levels(constraints, &incidence);
    let lowest: Vec<u32> =
        constraints.iter().map(|ps| ps.iter().map(|&p| levels[p as usize]).min().unwrap_or(0)).collect();
    let level_count = lowest.iter().map(|&m| m as usize + 1).max().unwrap_or(0);
    let mut profile = LevelProfile {
        // One level past the last constraint level: its constraints reach it.
        particles: vec![0; level_count + 1],
        constraints: vec![0; level_count],
        max_particles,
    };
    for &level in &levels {
        if let Some(n) = profile.particles.get_mut(level as usize) {
            *n += 1;
        }
    }
    for &m in &lowest {
        profile.constraints[m as usize] += 1;
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
    let of_constraint: Vec<u32> = lowest.iter().map(|&m| stripe_of_level[m as usize]).collect();
    Stripes { of_constraint, count: stripe_count(&stripe_of_level) }
}

/// Particles and constraints per breadth-first level (a constraint counts at its lowest level).
struct LevelProfile {
    particles: Vec<usize>,
    constraints: Vec<usize>,
    max_particles: usize,
}

impl LevelProfile {
    /// The stripe of each constraint level when the levels are cut into `target` stripes: each
    /// stripe takes an equal share of the constraints not yet taken (cut at the level boundary
    /// nearest it), and is cut early wherever its particles would exceed the capacity, which
    /// shrinks the shares of the stripes after it. Constraint levels `[first, m]` touch particle
    /// levels `[first, m + 1]`.
    fn cut(&self, target: u32) -> Vec<u32> {
        let total: usize = self.constraints.iter().sum();
        let mut stripe_of_level = Vec::with_capacity(self.constraints.len());
        let (mut stripe, mut first, mut done, mut taken_before) = (0u32, 0usize, 0usize, 0usize);
        for (m, &work) in self.constraints.iter().enumerate() {
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

/// A particle that no breadth-first search has reached yet.
const UNSEEN: u32 = u32::MAX;

/// Breadth-first level of every particle; each connected component starts from a
/// pseudo-peripheral particle (the farthest from its lowest-index particle) so the levels run
/// along the component's long axis. Particles in no constraint get level 0.
fn bfs_levels(constraints: &[&[u32]], incidence: &Csr) -> Vec<u32> {
    let n = incidence.offsets.len() - 1;
    let mut levels = vec![UNSEEN; n];
    let mut scratch = vec![UNSEEN; n];
    for start in 0..n {
        if levels[start] != UNSEEN {
            continue;
        }
        let far = *bfs(start as u32, constraints, incidence, &mut scratch).last().expect("start is visited");
        bfs(far, constraints, incidence, &mut levels);
    }
    levels
}

/// Breadth-first search from `start`, writing levels into `levels` (entries still [`UNSEEN`]
/// are unvisited); returns the visited particles in visiting order.
fn bfs(start: u32, constraints: &[&[u32]], incidence: &Csr, levels: &mut [u32]) -> Vec<u32> {
    let mut order = vec![start];
    let mut queue = VecDeque::from([start]);
    levels[start as usize] = 0;
    while let Some(p) = queue.pop_front() {
        let next = levels[p as usize] + 1;
        for &c in incidence.row(p as usize) {
            for &q in constraints[c as usize] {
                if levels[q as usize] == UNSEEN {
                    levels[q as usize] = next;
                    order.push(q);
                    queue.push_back(q);
                }
            }
        }
    }
    order
}

/// Checks that stripes of one phase share no particle; describes the first shared particle, or
/// an index out of range.
pub fn validate_stripes(stripes: &Stripes, constraints: &[&[u32]], particle_count: usize) -> Result<(), String> {
    if stripes.of_constraint.len() != constraints.len() || stripes.of_constraint.iter().any(|&s| s >= stripes.count) {
        return Err("one stripe in range per constraint".into());
    }
    crate::coloring::check_particles_exist(constraints, particle_count)?;
    let mut owner = [vec![u32::MAX; particle_count], vec![u32::MAX; particle_count]];
    for (particles, &stripe) in constraints.iter().zip(&stripes.of_constraint) {
        let owners = &mut owner[stripe as usize % 2];
        for &p in *particles {
            let previous = std::mem::replace(&mut owners[p as usize], stripe);
            if previous != u32::MAX && previous != stripe {
                return Err(format!("particle {p} is in stripes {previous} and {stripe} of one phase"));
            }
        }
    }
    Ok(())
}
