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
//! a stripe's kernel then keeps its particles there for the whole sweep.

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

/// Splits `constraints` (each given by its particles) into stripes of consecutive levels whose
/// particles number at most `max_particles` (counted by level, so an upper bound), or one level
/// where a single level's constraints touch more. Deterministic.
pub fn stripes(constraints: &[&[u32]], particle_count: usize, max_particles: usize) -> Stripes {
    let incidence = Csr::from_pairs(
        particle_count,
        constraints.iter().enumerate().flat_map(|(c, particles)| particles.iter().map(move |&p| (p, c as u32))),
    );
    let levels = bfs_levels(constraints, &incidence);
    let lowest: Vec<u32> =
        constraints.iter().map(|ps| ps.iter().map(|&p| levels[p as usize]).min().unwrap_or(0)).collect();
    let level_count = lowest.iter().map(|&m| m as usize + 1).max().unwrap_or(0);
    // Particles per level, one level past the last constraint level (its constraints reach it).
    let mut level_particles = vec![0usize; level_count + 1];
    for &level in &levels {
        if let Some(n) = level_particles.get_mut(level as usize) {
            *n += 1;
        }
    }
    // Constraint levels [first, m] touch particle levels [first, m + 1].
    let mut stripe_of_level = Vec::with_capacity(level_count);
    let (mut stripe, mut first) = (0u32, 0usize);
    for m in 0..level_count {
        if m > first && level_particles[first..=m + 1].iter().sum::<usize>() > max_particles {
            stripe += 1;
            first = m;
        }
        stripe_of_level.push(stripe);
    }
    let of_constraint: Vec<u32> = lowest.iter().map(|&m| stripe_of_level[m as usize]).collect();
    let count = of_constraint.iter().map(|&s| s + 1).max().unwrap_or(0);
    Stripes { of_constraint, count }
}

/// Breadth-first level of every particle; each connected component starts from a
/// pseudo-peripheral particle (the farthest from its lowest-index particle) so the levels run
/// along the component's long axis. Particles in no constraint get level 0.
fn bfs_levels(constraints: &[&[u32]], incidence: &Csr) -> Vec<u32> {
    const UNSEEN: u32 = u32::MAX;
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

/// Breadth-first search from `start`, writing levels into `levels` (entries still `u32::MAX`
/// are unvisited); returns the visited particles in visiting order.
fn bfs(start: u32, constraints: &[&[u32]], incidence: &Csr, levels: &mut [u32]) -> Vec<u32> {
    let mut order = vec![start];
    let mut queue = VecDeque::from([start]);
    levels[start as usize] = 0;
    while let Some(p) = queue.pop_front() {
        let next = levels[p as usize] + 1;
        for &c in incidence.row(p as usize) {
            for &q in constraints[c as usize] {
                if levels[q as usize] == u32::MAX {
                    levels[q as usize] = next;
                    order.push(q);
                    queue.push_back(q);
                }
            }
        }
    }
    order
}

/// Checks that stripes of one phase share no particle; returns the first shared particle.
pub fn validate_stripes(stripes: &Stripes, constraints: &[&[u32]], particle_count: usize) -> Result<(), String> {
    if stripes.of_constraint.len() != constraints.len() || stripes.of_constraint.iter().any(|&s| s >= stripes.count) {
        return Err("one stripe in range per constraint".into());
    }
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
