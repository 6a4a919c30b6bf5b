//! The words of the iterations' buffers as the kernels read them: the kinds' records
//! (`shaders/passes/iterations/units.wgsl`), the Gauss-Seidel schedule
//! (`shaders/passes/iterations/schedule.wgsl`) and Jacobi's plan
//! (`shaders/passes/iterations/jacobi_slots.wgsl`).

use crate::constraints::{Constraints, Kind, UnitType};
use crate::model::{ClothModel, JacobiPlan};
use crate::schedule::Colour;

/// Where the parts of the `schedule` buffer start (words): each phase's stripe entries, the
/// stripes' particle lists, the units' workgroup slots and the unit table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ScheduleLayout {
    pub stripe_entries: [u32; 2],
    pub lists: u32,
    pub slots: u32,
    pub unit_table: u32,
}

impl ScheduleLayout {
    /// Where the parts of `model`'s schedule start, with each unit's workgroup slots when
    /// `workgroup_slots` ([`schedule_words`]).
    pub fn of(model: &ClothModel, workgroup_slots: bool) -> Self {
        let schedule = model.schedule();
        let mut next = 4 * schedule.colours.len() as u32;
        let mut stripe_entries = [0; 2];
        for (base, phase) in stripe_entries.iter_mut().zip(&schedule.phases) {
            *base = next;
            next += (phase.stripes.len() * (2 + 2 * phase.colours.len())) as u32;
        }
        let lists = next;
        let slots =
            lists + schedule.phases.iter().flat_map(|p| &p.stripes).map(|s| s.particles.len() as u32).sum::<u32>();
        let slot_words = schedule.colours.iter().map(slot_word_count).sum::<u32>();
        Self { stripe_entries, lists, slots, unit_table: slots + if workgroup_slots { slot_words } else { 0 } }
    }
}

/// Words of the packed slots of a colour's units (two 16-bit slots a word).
fn slot_word_count(colour: &Colour) -> u32 {
    (colour.units.len() * UnitType::ALL[colour.unit_type].arity().div_ceil(2)) as u32
}

/// The `schedule` buffer's words, laid out as [`ScheduleLayout::of`] says. With
/// `workgroup_slots`, each unit's particles also get their 16-bit slots in their stripe's
/// particle list (the striped kernel addresses its workgroup copy with them). With
/// `unit_table`, the unit table ends it; the striped kernel in workgroup memory does not read
/// it.
pub(crate) fn schedule_words(model: &ClothModel, workgroup_slots: bool, unit_table: bool) -> Vec<u32> {
    let schedule = model.schedule();
    let layout = ScheduleLayout::of(model, workgroup_slots);
    let mut words = Vec::with_capacity(layout.unit_table as usize);
    // Colour table, with each colour's first slot word.
    let mut slot_word = layout.slots;
    for colour in &schedule.colours {
        let unit_type = UnitType::ALL[colour.unit_type];
        words.extend([unit_type.id(), colour.units.start, colour.units.len() as u32, slot_word]);
        slot_word += slot_word_count(colour);
    }
    // Stripe entries, then the particle lists.
    let mut list = layout.lists;
    for stripe in schedule.phases.iter().flat_map(|p| &p.stripes) {
        let count = stripe.particles.len() as u32;
        words.extend([list, count]);
        list += count;
        for units in &stripe.units {
            words.extend([units.start, units.len() as u32]);
        }
    }
    words.extend(schedule.phases.iter().flat_map(|p| &p.stripes).flat_map(|s| &s.particles));
    if workgroup_slots {
        words.extend(slot_words(model));
    }
    debug_assert_eq!(words.len(), layout.unit_table as usize);
    if unit_table {
        words.extend(self::unit_table(model));
    }
    words
}

/// Each unit's particles' slots in its stripe's particle list, two per word (low half first),
/// colour by colour in unit order.
fn slot_words(model: &ClothModel) -> Vec<u32> {
    let schedule = model.schedule();
    let mut words = Vec::new();
    for phase in &schedule.phases {
        for (j, colour) in schedule.colours[phase.colours.clone()].iter().enumerate() {
            let unit_type = UnitType::ALL[colour.unit_type];
            for stripe in &phase.stripes {
                for u in stripe.units[j].clone() {
                    let slots: Vec<u32> = unit_type
                        .particles(model.constraints(), u as usize)
                        .iter()
                        .map(|p| stripe.particles.binary_search(p).expect("a stripe lists its particles") as u32)
                        .collect();
                    words.extend(slots.chunks(2).map(|pair| pair[0] | pair.get(1).map_or(0, |s| s << 16)));
                }
            }
        }
    }
    words
}

/// The `constraint_records` buffer's words: every kind's GPU records, kind after kind in
/// [`Kind::ALL`] order, from the words [`record_bases`] gives.
pub(crate) fn constraint_records(constraints: &Constraints) -> Vec<u32> {
    Kind::ALL.iter().flat_map(|&k| constraints.of(k).gpu_records()).collect()
}

/// Where each kind's records start in [`constraint_records`] (words).
pub(crate) fn record_bases(constraints: &Constraints) -> [u32; Kind::COUNT] {
    let mut next = 0;
    Kind::ALL.map(|k| {
        let start = next;
        next += (constraints.of(k).constraint_count() * k.record_words()) as u32;
        start
    })
}

/// The unit table: each unit's particles (its unit type's arity of them), unit type by unit type
/// in [`UnitType::ALL`] order, units in index order. A kind's record holds its rest data only;
/// a projection takes its particles from its unit, so constraints projected together (a hinge)
/// store their shared particles once.
pub(crate) fn unit_table(model: &ClothModel) -> Vec<u32> {
    UnitType::ALL
        .iter()
        .flat_map(|&t| model.units(t).flat_map(move |u| t.particles(model.constraints(), u as usize).iter().copied()))
        .collect()
}

/// Where each unit type's units start in the unit table ([`unit_table`]), in [`UnitType::ALL`]
/// order.
pub(crate) fn unit_table_offsets(model: &ClothModel) -> Vec<u32> {
    let mut next = 0;
    UnitType::ALL
        .iter()
        .map(|&t| {
            let start = next;
            next += model.units(t).len() as u32 * t.arity() as u32;
            start
        })
        .collect()
}

/// Where Jacobi's lists sit in its plan buffer (`jacobi_plan`): the gather offsets, the gather
/// items, each kind's shares, then the unit table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct JacobiLayout {
    pub items: u32,
    pub shares: [u32; Kind::COUNT],
    pub unit_table: u32,
}

impl JacobiLayout {
    /// The layout of `plan` for `model`.
    pub fn of(model: &ClothModel, plan: &JacobiPlan) -> Self {
        let items = model.particle_count() as u32 + 1;
        let mut next = items + plan.gather.items().len() as u32;
        let shares = Kind::ALL.map(|k| {
            let start = next;
            next += plan.scales[k].len() as u32;
            start
        });
        Self { items, shares, unit_table: next }
    }

    /// The buffer's words.
    pub fn words(model: &ClothModel, plan: &JacobiPlan) -> Vec<u32> {
        let mut words = plan.gather.words();
        words.extend(Kind::ALL.iter().flat_map(|&k| plan.scales[k].iter().map(|s| s.to_bits())));
        words.extend(unit_table(model));
        words
    }
}
