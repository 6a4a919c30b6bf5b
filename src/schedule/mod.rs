//! The Gauss-Seidel schedule: how units (a constraint, or constraints projected together on
//! shared particles) are batched so that the GPU projects them in parallel without races.
//!
//! The units are cut into stripes ([`stripes`]) whose even and odd halves form two phases; each
//! phase's units of each unit type are coloured on their own ([`coloring`]), and each colour
//! lists its units stripe by stripe. The sweep runs phase 0's colours, then phase 1's; every
//! layout (a colour per dispatch, a phase of stripes per dispatch, a substep in one workgroup)
//! follows this one order, so they agree bit for bit.

pub mod coloring;
pub mod stripes;

use crate::graph::Csr;
use std::ops::Range;

/// One colour: units of one type that share no particle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Colour {
    /// The unit type (an index into the unit sets given to [`Schedule::new`]).
    pub unit_type: usize,
    /// The colour's units, as indices of the unit type's index space (see [`Schedule::new`]).
    pub units: Range<u32>,
}

/// One phase: stripes that share no particle, each projected by its own workgroup.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Phase {
    /// This phase's colours, as indices into [`Schedule::colours`].
    pub colours: Range<usize>,
    /// The phase's stripes, in order.
    pub stripes: Vec<Stripe>,
}

/// One stripe of a phase: its share of each of the phase's colours and the particles its units
/// touch.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Stripe {
    /// `units[j]` is the part of colour `phase.colours.start + j` this stripe owns (possibly
    /// empty).
    pub units: Vec<Range<u32>>,
    /// The particles of the stripe's units, ascending.
    pub particles: Vec<u32>,
}

/// The Gauss-Seidel order of a set of units.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    /// For each unit type, its input units in schedule order: the unit at index `base + k` of
    /// the type's index space is input unit `order[k]`.
    pub order: Vec<Vec<u32>>,
    /// The colours in projection order: phase 0's, then phase 1's; within a phase, unit type by
    /// unit type in the order the types were given.
    pub colours: Vec<Colour>,
    /// The two phases (even stripes, odd stripes).
    pub phases: [Phase; 2],
}

impl Schedule {
    /// Schedules `unit_sets[t]` (unit → particles) for each unit type `t`, whose units are
    /// numbered from `bases[t]` in schedule order. Stripes hold at most `stripe_particles`
    /// particles where the levels allow; `sources` are candidate starts of the breadth-first
    /// levels ([`stripes::levels`]).
    pub fn new(
        unit_sets: &[&Csr],
        bases: &[u32],
        particle_count: usize,
        sources: &[Vec<u32>],
        stripe_particles: usize,
    ) -> Self {
        // All units in one list: type 0's, then type 1's, …
        let mut all = Csr::default();
        let mut first_of_type = Vec::with_capacity(unit_sets.len());
        for set in unit_sets {
            first_of_type.push(all.rows() as u32);
            all.extend(set);
        }
        let incidence = all.transpose(particle_count);
        let stripes = stripes::stripes(&all, &incidence, sources, stripe_particles);
        let stripes_per_phase = [stripes.count.div_ceil(2), stripes.count / 2].map(|n| n as usize);
        let mut order: Vec<Vec<u32>> = unit_sets.iter().map(|s| Vec::with_capacity(s.rows())).collect();
        let mut colours = Vec::new();
        let mut phases: [Phase; 2] = Default::default();
        for (parity, phase) in phases.iter_mut().enumerate() {
            phase.colours.start = colours.len();
            phase.stripes = vec![Stripe::default(); stripes_per_phase[parity]];
            for (t, set) in unit_sets.iter().enumerate() {
                let first = first_of_type[t];
                let members: Vec<u32> = (first..first + set.rows() as u32)
                    .filter(|&u| stripes.of_unit[u as usize] as usize % 2 == parity)
                    .collect();
                for mut colour in coloring::colour_units(&all, &incidence, &members) {
                    colour.sort_unstable_by_key(|&u| (stripes.of_unit[u as usize], u));
                    let start = bases[t] + order[t].len() as u32;
                    // Each stripe's share is a contiguous run of the colour.
                    let mut next = start;
                    for (local, stripe) in phase.stripes.iter_mut().enumerate() {
                        let global = (2 * local + parity) as u32;
                        let count = colour[(next - start) as usize..]
                            .iter()
                            .take_while(|&&u| stripes.of_unit[u as usize] == global)
                            .count() as u32;
                        stripe.units.push(next..next + count);
                        next += count;
                    }
                    order[t].extend(colour.iter().map(|&u| u - first));
                    colours.push(Colour { unit_type: t, units: start..bases[t] + order[t].len() as u32 });
                }
            }
            phase.colours.end = colours.len();
        }
        let mut schedule = Self { order, colours, phases };
        let (all, first_of_type) = (&all, &first_of_type);
        let particles = |schedule: &Self, stripe: &Stripe, phase: &Phase| {
            let mut list: Vec<u32> = schedule.colours[phase.colours.clone()]
                .iter()
                .zip(&stripe.units)
                .flat_map(|(colour, units)| {
                    let t = colour.unit_type;
                    units.clone().flat_map(move |u| {
                        let input = schedule.order[t][(u - bases[t]) as usize];
                        all.row((first_of_type[t] + input) as usize).iter().copied()
                    })
                })
                .collect();
            list.sort_unstable();
            list.dedup();
            list
        };
        let lists: Vec<Vec<Vec<u32>>> = schedule
            .phases
            .iter()
            .map(|phase| phase.stripes.iter().map(|stripe| particles(&schedule, stripe, phase)).collect())
            .collect();
        for (phase, lists) in schedule.phases.iter_mut().zip(lists) {
            for (stripe, list) in phase.stripes.iter_mut().zip(lists) {
                stripe.particles = list;
            }
        }
        schedule
    }

    /// The largest number of particles a stripe touches.
    pub fn widest_stripe(&self) -> usize {
        self.phases.iter().flat_map(|p| &p.stripes).map(|s| s.particles.len()).max().unwrap_or(0)
    }
}
