//! Graph colouring: constraints of one colour share no particle, so the GPU can project them
//! in parallel without races (coloured Gauss-Seidel).

use crate::model::Csr;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ops::Range;

/// The colour table's capacity (stretch and bending colours together): colours are tracked as
/// bits of a `u128` and the GPU keeps one table entry per colour.
pub const MAX_COLOURS: usize = 128;

/// A partition of constraints into colours, as contiguous ranges of one reordered list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coloring {
    /// Constraint indices grouped by colour: colour `c` is `order[ranges[c]]`.
    pub order: Vec<u32>,
    /// The range of `order` that each colour occupies, in colour order.
    pub ranges: Vec<Range<u32>>,
}

impl Coloring {
    /// Number of colours.
    pub fn colour_count(&self) -> usize {
        self.ranges.len()
    }
}

/// Colours constraints (each given by the particles it touches) with DSatur: repeatedly take
/// the uncoloured constraint with the most distinct neighbour colours (ties: most neighbours,
/// then lowest index) and give it the smallest colour its neighbours do not use. Deterministic.
/// Returns `Err(needed)` if more than [`MAX_COLOURS`] colours would be needed.
///
/// # Panics
/// If a constraint refers to a particle `≥ particle_count` ([`crate::ClothModel::new`] builds
/// constraints from a validated mesh, so they never do).
pub fn color_constraints(constraints: &[&[u32]], particle_count: usize) -> Result<Coloring, usize> {
    // Particle → incident constraints.
    let incidence = Csr::from_pairs(
        particle_count,
        constraints.iter().enumerate().flat_map(|(c, particles)| particles.iter().map(move |&p| (p, c as u32))),
    );
    let neighbours = |c: usize| {
        constraints[c].iter().flat_map(|&p| incidence.row(p as usize)).copied().filter(move |&o| o as usize != c)
    };
    const NONE: u32 = u32::MAX;
    let mut colour = vec![NONE; constraints.len()];
    let mut forbidden = vec![0u128; constraints.len()];
    let degree: Vec<u32> = (0..constraints.len()).map(|c| neighbours(c).count() as u32).collect();
    let mut heap: BinaryHeap<(u32, u32, Reverse<u32>)> =
        (0..constraints.len() as u32).map(|c| (0, degree[c as usize], Reverse(c))).collect();
    while let Some((saturation, _, Reverse(c))) = heap.pop() {
        let c = c as usize;
        if colour[c] != NONE || saturation != forbidden[c].count_ones() {
            continue; // already coloured, or a stale heap entry
        }
        let chosen = forbidden[c].trailing_ones() as usize;
        if chosen >= MAX_COLOURS {
            return Err(chosen + 1);
        }
        colour[c] = chosen as u32;
        let bit = 1u128 << chosen;
        for o in neighbours(c).collect::<Vec<_>>() {
            let o = o as usize;
            if colour[o] == NONE && forbidden[o] & bit == 0 {
                forbidden[o] |= bit;
                heap.push((forbidden[o].count_ones(), degree[o], Reverse(o as u32)));
            }
        }
    }
    let colour_count = colour.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
    let mut order: Vec<u32> = (0..constraints.len() as u32).collect();
    order.sort_by_key(|&c| (colour[c as usize], c));
    let mut ranges = Vec::with_capacity(colour_count);
    let mut start = 0u32;
    for k in 0..colour_count as u32 {
        let count = colour.iter().filter(|&&c| c == k).count() as u32;
        ranges.push(start..start + count);
        start += count;
    }
    Ok(Coloring { order, ranges })
}

/// Checks a colouring: the ranges tile `order` exactly, every constraint appears once, and no
/// two constraints of one colour share a particle. Returns a description of the first fault,
/// including indices out of range.
pub fn validate_coloring(coloring: &Coloring, constraints: &[&[u32]], particle_count: usize) -> Result<(), String> {
    let mut expected_start = 0;
    for (k, range) in coloring.ranges.iter().enumerate() {
        if range.start != expected_start || range.end < range.start {
            return Err(format!("colour {k} range {range:?} does not follow the previous one"));
        }
        expected_start = range.end;
    }
    if expected_start as usize != coloring.order.len() || coloring.order.len() != constraints.len() {
        return Err("the colour ranges do not cover every constraint exactly once".into());
    }
    check_particles_exist(constraints, particle_count)?;
    if let Some(c) = coloring.order.iter().find(|&&c| c as usize >= constraints.len()) {
        return Err(format!("constraint {c} does not exist (there are {})", constraints.len()));
    }
    let mut seen = vec![false; constraints.len()];
    let mut last_colour_of_particle = vec![usize::MAX; particle_count];
    for (k, range) in coloring.ranges.iter().enumerate() {
        for &c in &coloring.order[range.start as usize..range.end as usize] {
            if std::mem::replace(&mut seen[c as usize], true) {
                return Err(format!("constraint {c} appears twice"));
            }
            for &p in constraints[c as usize] {
                if std::mem::replace(&mut last_colour_of_particle[p as usize], k) == k {
                    return Err(format!("particle {p} is used twice in colour {k}"));
                }
            }
        }
    }
    Ok(())
}

/// Fails with a description when a constraint refers to a particle `≥ particle_count`.
pub(crate) fn check_particles_exist(constraints: &[&[u32]], particle_count: usize) -> Result<(), String> {
    match constraints.iter().flat_map(|c| c.iter()).find(|&&p| p as usize >= particle_count) {
        Some(p) => Err(format!("particle {p} does not exist (there are {particle_count})")),
        None => Ok(()),
    }
}
