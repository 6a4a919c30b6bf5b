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

use crate::graph::{starts, Csr};
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

/// Where a unit of a merged schedule ([`Schedule::merged`]) comes from: the part, and the
/// unit's index in the part's index space of its type.
pub type UnitSource = (usize, u32);

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
        // Each phase's units of each type, coloured on their own; the two phases in parallel.
        let colour_phase = |parity: usize| -> Vec<Vec<Vec<u32>>> {
            unit_sets
                .iter()
                .zip(&first_of_type)
                .map(|(set, &first)| {
                    let members: Vec<u32> = (first..first + set.rows() as u32)
                        .filter(|&u| stripes.of_unit[u as usize] as usize % 2 == parity)
                        .collect();
                    coloring::colour_units(&all, &incidence, &members)
                })
                .collect()
        };
        let (even, odd) = join(|| colour_phase(0), || colour_phase(1));
        let stripes_per_phase = [stripes.count.div_ceil(2), stripes.count / 2].map(|n| n as usize);
        let mut order: Vec<Vec<u32>> = unit_sets.iter().map(|s| Vec::with_capacity(s.rows())).collect();
        let mut colours = Vec::new();
        let mut phases: [Phase; 2] = Default::default();
        for ((parity, phase), colourings) in phases.iter_mut().enumerate().zip([even, odd]) {
            phase.colours.start = colours.len();
            phase.stripes = vec![Stripe::default(); stripes_per_phase[parity]];
            for (t, colouring) in colourings.into_iter().enumerate() {
                let first = first_of_type[t];
                for mut colour in colouring {
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
        let mut lists = stripe_particles_of(&incidence, &stripes).into_iter();
        for s in 0..stripes.count as usize {
            phases[s % 2].stripes[s / 2].particles = lists.next().expect("one list per stripe");
        }
        Self { order, colours, phases }
    }

    /// The schedules of separate cloths, `parts`, as one: phase by phase and unit type by unit
    /// type, colour `j` holds each part's colour `j` in turn, so the parts share colours (in each
    /// phase a unit type has as many as the part with the most there, not their sum) and every
    /// part's units keep their projection order, bit for bit. Each phase's stripes are the parts' stripes in turn.
    /// `bases[t]` is where unit type `t` starts in the merged index space and `offsets[c]` part
    /// `c`'s first particle. Returns the schedule and, for each unit type, the part and the
    /// part's unit index of each merged unit (the merged order of inputs: the parts' inputs in
    /// turn).
    pub fn merged(parts: &[&Schedule], bases: &[u32], offsets: &[u32]) -> (Self, Vec<Vec<UnitSource>>) {
        let types = bases.len();
        let mut sources: Vec<Vec<UnitSource>> = vec![Vec::new(); types];
        let mut colours = Vec::new();
        let mut phases: [Phase; 2] = Default::default();
        for (p, phase) in phases.iter_mut().enumerate() {
            phase.colours.start = colours.len();
            let mut first_stripe = Vec::with_capacity(parts.len());
            for (part, &offset) in parts.iter().zip(offsets) {
                first_stripe.push(phase.stripes.len());
                phase.stripes.extend(part.phases[p].stripes.iter().map(|stripe| Stripe {
                    units: Vec::new(),
                    particles: stripe.particles.iter().map(|&i| i + offset).collect(),
                }));
            }
            for (t, &base) in bases.iter().enumerate() {
                // Each part's colours of type t in this phase.
                let of_type: Vec<Vec<usize>> = parts
                    .iter()
                    .map(|part| part.phases[p].colours.clone().filter(|&c| part.colours[c].unit_type == t).collect())
                    .collect();
                for j in 0..of_type.iter().map(Vec::len).max().unwrap_or(0) {
                    let start = base + sources[t].len() as u32;
                    for (c, part) in parts.iter().enumerate() {
                        let segment = base + sources[t].len() as u32;
                        let phase_part = &part.phases[p];
                        let colour = of_type[c].get(j).map(|&k| (k, &part.colours[k]));
                        for (s, stripe) in phase_part.stripes.iter().enumerate() {
                            let share = match colour {
                                Some((k, colour)) => {
                                    let share = &stripe.units[k - phase_part.colours.start];
                                    segment + share.start - colour.units.start..segment + share.end - colour.units.start
                                }
                                None => segment..segment,
                            };
                            phase.stripes[first_stripe[c] + s].units.push(share);
                        }
                        if let Some((_, colour)) = colour {
                            sources[t].extend(colour.units.clone().map(|u| (c, u)));
                        }
                    }
                    colours.push(Colour { unit_type: t, units: start..base + sources[t].len() as u32 });
                }
            }
            phase.colours.end = colours.len();
        }
        let order = sources
            .iter()
            .enumerate()
            .map(|(t, type_sources)| {
                // A part's inputs follow the earlier parts' inputs of the type.
                let firsts = starts(parts.iter().map(|part| part.order[t].len() as u32));
                // A part's first colour of the type starts its index space.
                let part_bases: Vec<u32> = parts
                    .iter()
                    .map(|part| part.colours.iter().find(|k| k.unit_type == t).map_or(0, |k| k.units.start))
                    .collect();
                type_sources.iter().map(|&(c, u)| firsts[c] + parts[c].order[t][(u - part_bases[c]) as usize]).collect()
            })
            .collect();
        (Self { order, colours, phases }, sources)
    }

    /// The largest number of particles a stripe touches.
    pub fn widest_stripe(&self) -> usize {
        self.phases.iter().flat_map(|p| &p.stripes).map(|s| s.particles.len()).max().unwrap_or(0)
    }
}

/// The particles each stripe's units touch, ascending: particle by particle, each joins the
/// (at most a few) stripes of its units.
fn stripe_particles_of(incidence: &Csr, stripes: &stripes::Stripes) -> Vec<Vec<u32>> {
    let mut lists = vec![Vec::new(); stripes.count as usize];
    let mut joined = Vec::new();
    for p in 0..incidence.rows() {
        joined.clear();
        for &u in incidence.row(p) {
            let s = stripes.of_unit[u as usize];
            if !joined.contains(&s) {
                joined.push(s);
                lists[s as usize].push(p as u32);
            }
        }
    }
    lists
}

/// Runs `a` and `b` and returns both results: on a second thread where the platform has threads
/// (building the model is the host's heaviest work), one after the other on the web.
fn join<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::thread::scope(|scope| {
            let b = scope.spawn(b);
            let a = a();
            (a, b.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
        })
    }
    #[cfg(target_arch = "wasm32")]
    {
        (a(), b())
    }
}
