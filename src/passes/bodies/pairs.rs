//! Rigid bodies against each other, once every body has met the particles and the colliders in
//! a substep ([`collide_pairs`]): the pairs whose bounding balls meet, in order (Gauss-Seidel),
//! each pushed apart along the line between their nearest points with the XPBD contact of two
//! bodies (`λ = d/(w_a + w_b)`, each its generalised inverse mass at the contact); then each
//! body a pair pushed meets the colliders again; then each pair's positional friction on its
//! points' relative slide where it pushed them, up to the mean of their frictions times the
//! push. Balls and capsules meet exactly, by the nearest points of their axes (a ball's is a
//! point); a box meets the other body at its corners, and the other body's corners (a ball's
//! centre, a capsule's ends, a box's corners) meet the box. Both impulses act at one point, so
//! a pair keeps its momentum and angular momentum. One thread does every pair (cheap for the few
//! bodies a scene has; a solver of thousands of bodies spends most of its substep there), and
//! the GPU keeps no pushes: it replays the pushes on copies of the bodies for their friction.
//! WGSL twin: `shaders/passes/body_pairs.wgsl`.

use super::body_corners;
use crate::bodies::{BodyShape, BodyState};
use crate::collision::box_point;
use crate::math::{DENOMINATOR_EPSILON, GEOMETRY_EPSILON};
use glam::Vec3;

/// Every pair of `bodies` within reach as the pass begins (their bounding balls meet,
/// [`pairs_in_reach`]), in order: first each pair's pushes ([`push_pair_apart`]); then each body
/// a pair pushed meets the colliders again (`held`: [`super::collide_body`]); then each pair's
/// friction on its pushes (`pair_friction`).
///
/// A pair's pushes tilt the lower body of a stack as if nothing held it, and its friction makes
/// the upper body follow the lower's tilting face. Met with the ground only before the pairs, a
/// cube on a cube slid on at 1 cm/s after 4 s (the lower one's shifts stayed); met with it only
/// after them, the upper cube drifted off at a speed growing with its offset (doubling every
/// 3 s). Met with the ground again between the pairs' pushes and their friction, the lower body
/// rests level as the friction measures the slide, and the ground's friction has the load from
/// above in its budget: two stacked cubes rest within µm/s.
pub fn collide_pairs(bodies: &mut [BodyState], mut held: impl FnMut(usize, &mut BodyState)) {
    let pairs = pairs_in_reach(bodies);
    let mut pushes = Vec::new();
    for &(i, j) in &pairs {
        let (a, b) = pair_mut(bodies, i, j);
        push_pair_apart(a, b, |push| pushes.push((i, j, push)));
    }
    let mut pushed = vec![false; bodies.len()];
    for &(i, j, _) in &pushes {
        (pushed[i], pushed[j]) = (true, true);
    }
    for (k, body) in bodies.iter_mut().enumerate().filter(|&(k, _)| pushed[k]) {
        held(k, body);
    }
    for (i, j, push) in pushes {
        let (a, b) = pair_mut(bodies, i, j);
        pair_friction(a, b, push);
    }
}

/// The pairs `(i, j)`, `i < j`, of `bodies` whose bounding balls meet, in the order `(0, 1),
/// (0, 2), …, (1, 2), …`.
pub fn pairs_in_reach(bodies: &[BodyState]) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for (i, a) in bodies.iter().enumerate() {
        for (j, b) in bodies.iter().enumerate().skip(i + 1) {
            if !out_of_reach(a, b) {
                pairs.push((i, j));
            }
        }
    }
    pairs
}

/// Bodies `i` and `j` (`i < j`) of `bodies`, both mutable.
pub(crate) fn pair_mut(bodies: &mut [BodyState], i: usize, j: usize) -> (&mut BodyState, &mut BodyState) {
    let (head, tail) = bodies.split_at_mut(j);
    (&mut head[i], &mut tail[0])
}

/// One push of a pair ([`push_pair_apart`]): its point in the first body's frame, the normal
/// pushing the first off the second, and the push.
#[derive(Debug, Clone, Copy)]
pub struct PairPush {
    local: Vec3,
    normal: Vec3,
    lambda: f32,
}

/// `a` and `b` pushed apart where they press into each other, each push given to `pushed`:
/// balls and capsules by their axes' nearest points, a box at its corners against the other
/// body and at the other's corners against it.
pub fn push_pair_apart(a: &mut BodyState, b: &mut BodyState, mut pushed: impl FnMut(PairPush)) {
    if let (Some(axis_a), Some(axis_b)) = (axis(a), axis(b)) {
        if let Some((point, n, depth)) = axes_contact(a, b, axis_a, axis_b, 0.0) {
            pushed(push_apart(a, b, point, n, depth));
        }
        return;
    }
    for corner in body_corners(a.shape.rounded_box().0) {
        if let Some((point, n, depth)) = corner_contact(a, b, corner, 0.0) {
            pushed(push_apart(a, b, point, n, depth));
        }
    }
    for corner in body_corners(b.shape.rounded_box().0) {
        if let Some((point, n, depth)) = corner_contact(b, a, corner, 0.0) {
            pushed(push_apart(a, b, point, -n, depth));
        }
    }
}

/// The pairs in reach the GPU lists once a substep (`list_pairs_in_reach` in WGSL) for its
/// visits; past them each visit tests every pair's bounding balls again.
pub const REACH_CAPACITY: u32 = 1024;

/// How far apart two bodies may be and still count as touching at the velocity level
/// ([`pair_contacts`]) and as within reach (m). Bodies resting on each other fall alike in the
/// prediction, so the gap the pushes left them at is all their contact has: rounding puts it
/// either side of zero (a stick on a stick at `−9e-10` m), and a contact found or not changed
/// the pile's velocities by 0.1 m/s from one adapter to another.
pub const PAIR_CONTACT_SLOP: f32 = 1e-5;

/// Whether `a` and `b` cannot touch: their bounding balls miss each other by more than
/// [`PAIR_CONTACT_SLOP`].
fn out_of_reach(a: &BodyState, b: &BodyState) -> bool {
    let reach = a.shape.bounding_radius() + b.shape.bounding_radius() + PAIR_CONTACT_SLOP;
    a.pose().translation.distance(b.pose().translation) > reach
}

/// Every contact of `a` and `b` where they are, as [`push_pair_apart`] meets them but without
/// moving them, and those nearer touching than [`PAIR_CONTACT_SLOP`]: each as its point and the
/// normal pushing `a` off `b`.
pub fn pair_contacts(a: &BodyState, b: &BodyState, mut each: impl FnMut(Vec3, Vec3)) {
    if out_of_reach(a, b) {
        return;
    }
    if let (Some(axis_a), Some(axis_b)) = (axis(a), axis(b)) {
        if let Some((point, n, _)) = axes_contact(a, b, axis_a, axis_b, PAIR_CONTACT_SLOP) {
            each(point, n);
        }
        return;
    }
    let (a_corners, b_corners) = (a.shape.rounded_box().0, b.shape.rounded_box().0);
    let touching = |x, y, corner| corner_contact(x, y, corner, PAIR_CONTACT_SLOP);
    for (point, n, _) in body_corners(a_corners).filter_map(|corner| touching(a, b, corner)) {
        each(point, n);
    }
    for (point, n, _) in body_corners(b_corners).filter_map(|corner| touching(b, a, corner)) {
        each(point, -n);
    }
}

/// The contact of two round bodies (balls and capsules) along their axes ([`axis`]), by the
/// axes' nearest points: the point on `a`, the normal pushing `a` off `b` and the depth, where
/// the depth exceeds `−slop`.
fn axes_contact(
    a: &BodyState,
    b: &BodyState,
    (a0, a1): (Vec3, Vec3),
    (b0, b1): (Vec3, Vec3),
    slop: f32,
) -> Option<(Vec3, Vec3, f32)> {
    let (pa, pb) = closest_points(a0, a1, b0, b1);
    let (radius_a, radius_b) = (a.shape.rounded_box().1, b.shape.rounded_box().1);
    let gap = pa - pb;
    let length = gap.length();
    let depth = radius_a + radius_b - length;
    let n = if length > GEOMETRY_EPSILON { gap / length } else { Vec3::Y };
    (depth > -slop).then_some((pa - n * radius_a, n, depth))
}

/// The segment a ball's or a capsule's surface lies `radius` around, where the substep left
/// it (a ball's: its centre twice); `None` for a box.
fn axis(body: &BodyState) -> Option<(Vec3, Vec3)> {
    if matches!(body.shape, BodyShape::Box { .. }) {
        return None;
    }
    let (half_extents, _) = body.shape.rounded_box();
    let pose = body.pose();
    Some((pose.to_world(-half_extents), pose.to_world(half_extents)))
}

/// The nearest points of segments `p1–q1` and `p2–q2` (Ericson, "Real-Time Collision
/// Detection" §5.1.9), the first's first.
pub fn closest_points(p1: Vec3, q1: Vec3, p2: Vec3, q2: Vec3) -> (Vec3, Vec3) {
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, e, f) = (d1.dot(d1), d2.dot(d2), d2.dot(r));
    let (s, t) = if a <= DENOMINATOR_EPSILON && e <= DENOMINATOR_EPSILON {
        (0.0, 0.0)
    } else if a <= DENOMINATOR_EPSILON {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = d1.dot(r);
        if e <= DENOMINATOR_EPSILON {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = d1.dot(d2);
            let denominator = a * e - b * b;
            let s =
                if denominator > DENOMINATOR_EPSILON { ((b * f - c * e) / denominator).clamp(0.0, 1.0) } else { 0.0 };
            let t = (b * s + f) / e;
            if t < 0.0 {
                ((-c / a).clamp(0.0, 1.0), 0.0)
            } else if t > 1.0 {
                (((b - c) / a).clamp(0.0, 1.0), 1.0)
            } else {
                (s, t)
            }
        }
    };
    (p1 + d1 * s, p2 + d2 * t)
}

/// `x`'s corner `corner` (in its frame), grown by its radius, against `y`'s surface: the
/// contact's point on `x`, the normal pushing `x` off `y` and the depth, where the depth
/// exceeds `−slop`.
fn corner_contact(x: &BodyState, y: &BodyState, corner: Vec3, slop: f32) -> Option<(Vec3, Vec3, f32)> {
    let radius = x.shape.rounded_box().1;
    let (half_extents, rounding) = y.shape.rounded_box();
    let point = x.pose().to_world(corner);
    let there = y.pose();
    let surface = box_point(point, there.translation, half_extents, there.rotation, rounding);
    let depth = radius - surface.distance;
    (depth > -slop).then_some((point - surface.normal * radius, surface.normal, depth))
}

/// `a` pushed along `n` and `b` against it, at `point`, to close `depth`
/// (`λ = d/(w_a + w_b)`).
fn push_apart(a: &mut BodyState, b: &mut BodyState, point: Vec3, n: Vec3, depth: f32) -> PairPush {
    let (ra, rb) = (point - a.pose().translation, point - b.pose().translation);
    let lambda = depth / (a.inverse_mass_at(ra, n) + b.inverse_mass_at(rb, n)).max(DENOMINATOR_EPSILON);
    let local = a.pose().to_local(point);
    a.apply_impulse(n * lambda, ra);
    b.apply_impulse(-n * lambda, rb);
    PairPush { local, normal: n, lambda }
}

/// Positional friction on the relative slide of `a`'s and `b`'s points where `push` pushed
/// them, up to the mean of their frictions times the push.
fn pair_friction(a: &mut BodyState, b: &mut BodyState, push: PairPush) {
    let (point, n) = (a.pose().to_world(push.local), push.normal);
    let (ra, rb) = (point - a.pose().translation, point - b.pose().translation);
    let relative = a.point_displacement(point) - b.point_displacement(point);
    let slide = relative - n * relative.dot(n);
    let length = slide.length();
    if length > GEOMETRY_EPSILON {
        let t = slide / length;
        let resisted = length / (a.inverse_mass_at(ra, t) + b.inverse_mass_at(rb, t)).max(DENOMINATOR_EPSILON);
        let friction = resisted.min(0.5 * (a.friction + b.friction) * push.lambda);
        a.apply_impulse(-t * friction, ra);
        b.apply_impulse(t * friction, rb);
    }
}
