//! The bodies' contacts at the velocity level (the XPBD rigid-body notes, Müller et al. 2020,
//! §3.6, Alg. 2 line 14), once the substep's velocities come from its displacements: each
//! contact the substep met sets the normal speed of its point relative to the other side to
//! `max(−e v̄ₙ, 0)`, for the speed `v̄ₙ` it met it with (before the solve; restitution `e` off
//! below `2|g|h`, as the cloth's) by a velocity impulse `Δvₙ/(w_a + w_b)` at the point, each
//! side's generalised inverse mass there.
//!
//! The positions alone leave a contact met at several points with the speed of the pushes'
//! overshoot: each push turns the body, so the later ones close more than their depth. A box
//! landing flat at 3 m/s left the ground at 0.4 m/s, two boxes closing at 1.5 m/s parted at
//! 0.2 m/s. Here a contact pulls as well as pushes (`Δvₙ < 0` where it parts faster than
//! restitution says), as §3.6 has it.
//!
//! The contacts are found again, without moving anything, by the same tests
//! ([`corner_on_collider`], [`core_contact`], [`pair_contacts`]) on the bodies as the solve met
//! them: a body's contacts with the colliders on the body as the colliders' pass began (after
//! the particles' impulses; so a second collider's contacts are looked for before the first's
//! pushes) and, for a body a pair pushed, also as it met them again after the pairs' pushes; a
//! pair's on the bodies as the pairs' pass began (after the ropes). A box lifted out of the
//! ground by its second meeting, after a box landed on it, was above the ground as the first
//! began: with the first meeting's contacts alone, the two rose at 0.02 m/s; with the second's
//! alone, a body a pair pushed sideways off its push out of the ground would lose its landing.
//! Their points are carried to where the bodies are now in one body's frame (a pair's in its
//! first body's), and a pair takes both impulses at that one point, so it keeps momentum and
//! angular momentum.
//!
//! Every contact is swept [`VELOCITY_SWEEPS`] times ([`settle_contacts`]): in each sweep the
//! colliders' contacts body by body (each body apart: a thread each on the GPU), then the pairs
//! in order (one thread). The pairs' contacts are found once, before the sweeps, since the
//! bodies they are found on do not move; the GPU lists the pairs in reach once and finds their
//! contacts again each sweep (the same points: the same tests on the same snapshots). WGSL twin:
//! `settle_on_colliders` in `shaders/passes/bodies.wgsl` and `settle_pair_contacts` in
//! `shaders/passes/body_pairs.wgsl`.

use super::pairs::{pair_contacts, pair_mut, pairs_in_reach};
use super::{body_corners, collider_cores, core_contact, corner_on_collider};
use crate::bodies::BodyState;
use crate::collision::{Motion, MovingCollider};
use crate::math::DENOMINATOR_EPSILON;
use glam::Vec3;

/// Sweeps over every contact, the colliders' then the pairs'. Each contact sets its own speed
/// and disturbs the others' (a corner's impulse turns the body; a pair's pushes the lower body
/// of a stack into the ground). A box landing flat left the ground at 0.15 m/s after one
/// sweep, 0.03 after two, none after four; a box dropped onto a box on the ground rose at
/// 0.24 m/s with four sweeps of each pair alone after the colliders', 0.03 with four sweeps of
/// all, none with eight.
pub const VELOCITY_SWEEPS: u32 = 8;

/// Every contact of `bodies` at the velocity level, once their velocities are updated:
/// [`VELOCITY_SWEEPS`] sweeps of each body's contacts with `colliders` ([`settle_on_colliders`],
/// found on `met`, the bodies as the colliders' pass began, then on `again`, each body a pair
/// pushed as it met the colliders again) and then of the pairs' (found once on `paired`, as
/// the pairs' pass began, `settle_pairs`).
#[allow(clippy::too_many_arguments)]
pub fn settle_contacts(
    bodies: &mut [BodyState],
    met: &[BodyState],
    again: &[Option<BodyState>],
    paired: &[BodyState],
    colliders: &[MovingCollider],
    substep: u32,
    substeps: u32,
    h: f32,
    threshold: f32,
) {
    let contacts = pairs_contacts(paired);
    for _ in 0..VELOCITY_SWEEPS {
        for ((body, met), again) in bodies.iter_mut().zip(met).zip(again) {
            for met in std::iter::once(met).chain(again) {
                settle_on_colliders(body, met, colliders, substep, substeps, h, threshold);
            }
        }
        settle_pairs(bodies, paired, &contacts, threshold);
    }
}

/// The change of a contact's normal speed `v_n` (positive parting) that leaves it parting at
/// `max(−e v̄ₙ, 0)`, for the speed `before` it met at: restitution `e` where `|v̄ₙ|` exceeds
/// `threshold`, none below (a resting contact must not bounce on gravity's speed).
pub fn normal_speed_change(v_n: f32, before: f32, e: f32, threshold: f32) -> f32 {
    let e = if before.abs() > threshold { e } else { 0.0 };
    (-e * before).max(0.0) - v_n
}

/// `body`'s contacts with `colliders` in substep `substep` of `substeps` of `h` seconds, found
/// on `met` (the body as the colliders last met it), collider by collider, each setting its
/// normal speed relative to the collider's surface ([`normal_speed_change`] with the body's
/// restitution): one sweep.
pub fn settle_on_colliders(
    body: &mut BodyState,
    met: &BodyState,
    colliders: &[MovingCollider],
    substep: u32,
    substeps: u32,
    h: f32,
    threshold: f32,
) {
    let corners = met.shape.rounded_box().0;
    for collider in colliders {
        let motion = collider.motion.substep(substep, substeps);
        let (cores, core_radius) = collider_cores(&collider.shape, &motion);
        let contacts: Vec<(Vec3, Vec3)> = body_corners(corners)
            .filter_map(|corner| corner_on_collider(met, corner, &collider.shape, &motion))
            .chain(cores.iter().filter_map(|&[a, b]| core_contact(met, a, b, core_radius)))
            .map(|(point, n, _)| (point, n))
            .collect();
        for &(point, n) in &contacts {
            settle_on_collider(body, met, point, n, &motion, h, threshold);
        }
    }
}

/// One contact of `body` with a collider moving by `motion`, met at `point` along `n` by `met`.
fn settle_on_collider(
    body: &mut BodyState,
    met: &BodyState,
    point: Vec3,
    n: Vec3,
    motion: &Motion,
    h: f32,
    threshold: f32,
) {
    let now = body.pose().to_world(met.pose().to_local(point));
    let before = n.dot(met.point_velocity(point) - motion.velocity(point, h));
    let v_n = n.dot(body.point_velocity(now) - motion.velocity(now, h));
    let r = now - body.pose().translation;
    let change = normal_speed_change(v_n, before, body.restitution, threshold);
    body.apply_velocity_impulse(n * (change / body.inverse_mass_at(r, n).max(DENOMINATOR_EPSILON)), r);
}

/// A contact of the bodies `first` and `second`: its point and the normal pushing `first` off
/// `second`.
struct PairContact {
    first: usize,
    second: usize,
    point: Vec3,
    normal: Vec3,
}

/// Every contact of every pair of `met` (the bodies as the pairs' pass began), pair by pair in
/// the order of [`super::pairs::collide_pairs`].
fn pairs_contacts(met: &[BodyState]) -> Vec<PairContact> {
    let mut contacts = Vec::new();
    for (first, second) in pairs_in_reach(met) {
        pair_contacts(&met[first], &met[second], |point, normal| {
            contacts.push(PairContact { first, second, point, normal });
        });
    }
    contacts
}

/// `contacts` ([`pairs_contacts`], found on `met`) in order, each setting its normal speed
/// ([`normal_speed_change`] with the pair's mean restitution): one sweep.
fn settle_pairs(bodies: &mut [BodyState], met: &[BodyState], contacts: &[PairContact], threshold: f32) {
    for contact in contacts {
        let (a, b) = pair_mut(bodies, contact.first, contact.second);
        let met = [&met[contact.first], &met[contact.second]];
        settle_pair(a, b, met, contact, threshold);
    }
}

/// `contact` of `a` and `b`, met by `met`. It pulls as well as pushes, within
/// [`super::pairs::PAIR_CONTACT_SLOP`] too: a corner the snapshot finds just short of the other
/// body may have been pushed in the solve (the pushes before it turned the body), and two boxes
/// meeting face on without restitution parted at 0.23 m/s when those only pushed.
fn settle_pair(a: &mut BodyState, b: &mut BodyState, met: [&BodyState; 2], contact: &PairContact, threshold: f32) {
    let (point, n) = (contact.point, contact.normal);
    let now = a.pose().to_world(met[0].pose().to_local(point));
    let before = n.dot(met[0].point_velocity(point) - met[1].point_velocity(point));
    let v_n = n.dot(a.point_velocity(now) - b.point_velocity(now));
    let (ra, rb) = (now - a.pose().translation, now - b.pose().translation);
    let change = normal_speed_change(v_n, before, 0.5 * (a.restitution + b.restitution), threshold);
    let w = a.inverse_mass_at(ra, n) + b.inverse_mass_at(rb, n);
    let p = n * (change / w.max(DENOMINATOR_EPSILON));
    a.apply_velocity_impulse(p, ra);
    b.apply_velocity_impulse(-p, rb);
}
