//! Rigid bodies against each other, once every body has met the particles and the colliders in
//! a substep: each pair in order (Gauss-Seidel), pushed apart along the line between their
//! nearest points with the XPBD contact of two bodies (`λ = d/(w_a + w_b)`, each its
//! generalised inverse mass at the contact), then positional friction on their points' relative
//! slide, up to the mean of their frictions times the push. Balls and capsules meet exactly,
//! by the nearest points of their axes (a ball's is a point); a box meets the other body at its
//! corners, and the other body's corners (a ball's centre, a capsule's ends, a box's corners)
//! meet the box. Both impulses act at one point, so a pair keeps its momentum and angular
//! momentum. One thread does every pair, `O(n²)` (a pair's bounding balls first: cheap for the
//! few bodies a scene has, and a solver of thousands of bodies spends most of its substep
//! there). WGSL twin: `shaders/passes/body_pairs.wgsl`.

use super::body_corners;
use crate::bodies::{BodyShape, BodyState};
use crate::collision::box_point;
use crate::math::{DENOMINATOR_EPSILON, GEOMETRY_EPSILON};
use glam::Vec3;

/// Every pair of `bodies`, `(0, 1), (0, 2), …, (1, 2), …`, in order.
pub fn collide_pairs(bodies: &mut [BodyState]) {
    for i in 0..bodies.len() {
        let (head, tail) = bodies.split_at_mut(i + 1);
        for other in tail {
            collide_pair(&mut head[i], other);
        }
    }
}

/// `a` against `b`, where the substep left them.
pub fn collide_pair(a: &mut BodyState, b: &mut BodyState) {
    if out_of_reach(a, b) {
        return;
    }
    match (axis(a), axis(b)) {
        (Some(axis_a), Some(axis_b)) => {
            if let Some((point, n, depth)) = axes_contact(a, b, axis_a, axis_b) {
                push_apart(a, b, point, n, depth);
            }
        }
        _ => {
            corners_against(a, b);
            corners_against(b, a);
        }
    }
}

/// Whether `a` and `b` cannot touch: their bounding balls miss each other.
fn out_of_reach(a: &BodyState, b: &BodyState) -> bool {
    let reach = a.shape.bounding_radius() + b.shape.bounding_radius();
    a.pose().translation.distance(b.pose().translation) > reach
}

/// Every contact of `a` and `b` where they are, as [`collide_pair`] meets them but without
/// moving them: each as its point and the normal pushing `a` off `b`.
pub fn pair_contacts(a: &BodyState, b: &BodyState, mut each: impl FnMut(Vec3, Vec3)) {
    if out_of_reach(a, b) {
        return;
    }
    if let (Some(axis_a), Some(axis_b)) = (axis(a), axis(b)) {
        if let Some((point, n, _)) = axes_contact(a, b, axis_a, axis_b) {
            each(point, n);
        }
        return;
    }
    let (a_corners, b_corners) = (a.shape.rounded_box().0, b.shape.rounded_box().0);
    for (point, n, _) in body_corners(a_corners).filter_map(|corner| corner_contact(a, b, corner)) {
        each(point, n);
    }
    for (point, n, _) in body_corners(b_corners).filter_map(|corner| corner_contact(b, a, corner)) {
        each(point, -n);
    }
}

/// The contact of two round bodies (balls and capsules) along their axes ([`axis`]), by the
/// axes' nearest points: the point on `a`, the normal pushing `a` off `b` and the depth, where
/// they touch.
fn axes_contact(
    a: &BodyState,
    b: &BodyState,
    (a0, a1): (Vec3, Vec3),
    (b0, b1): (Vec3, Vec3),
) -> Option<(Vec3, Vec3, f32)> {
    let (pa, pb) = closest_points(a0, a1, b0, b1);
    let (radius_a, radius_b) = (a.shape.rounded_box().1, b.shape.rounded_box().1);
    let gap = pa - pb;
    let length = gap.length();
    let depth = radius_a + radius_b - length;
    let n = if length > GEOMETRY_EPSILON { gap / length } else { Vec3::Y };
    (depth > 0.0).then_some((pa - n * radius_a, n, depth))
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

/// The corners of `x` ([`body_corners`]), grown by its radius, against `y`'s surface: each
/// inside pushes the two apart.
fn corners_against(x: &mut BodyState, y: &mut BodyState) {
    for corner in body_corners(x.shape.rounded_box().0) {
        if let Some((point, n, depth)) = corner_contact(x, y, corner) {
            push_apart(x, y, point, n, depth);
        }
    }
}

/// `x`'s corner `corner` (in its frame), grown by its radius, against `y`'s surface: the
/// contact's point on `x`, the normal pushing `x` off `y` and the depth, where it is inside.
fn corner_contact(x: &BodyState, y: &BodyState, corner: Vec3) -> Option<(Vec3, Vec3, f32)> {
    let radius = x.shape.rounded_box().1;
    let (half_extents, rounding) = y.shape.rounded_box();
    let point = x.pose().to_world(corner);
    let there = y.pose();
    let surface = box_point(point, there.translation, half_extents, there.rotation, rounding);
    let depth = radius - surface.distance;
    (depth > 0.0).then_some((point - surface.normal * radius, surface.normal, depth))
}

/// `a` pushed along `n` and `b` against it, at `point`, to close `depth`; then positional
/// friction on the relative slide of their points there.
fn push_apart(a: &mut BodyState, b: &mut BodyState, point: Vec3, n: Vec3, depth: f32) {
    let (ra, rb) = (point - a.pose().translation, point - b.pose().translation);
    let lambda = depth / (a.inverse_mass_at(ra, n) + b.inverse_mass_at(rb, n)).max(DENOMINATOR_EPSILON);
    a.apply_impulse(n * lambda, ra);
    b.apply_impulse(-n * lambda, rb);
    let (ra, rb) = (point - a.pose().translation, point - b.pose().translation);
    let relative = a.point_displacement(point) - b.point_displacement(point);
    let slide = relative - n * relative.dot(n);
    let length = slide.length();
    if length > GEOMETRY_EPSILON {
        let t = slide / length;
        let resisted = length / (a.inverse_mass_at(ra, t) + b.inverse_mass_at(rb, t)).max(DENOMINATOR_EPSILON);
        let friction = resisted.min(0.5 * (a.friction + b.friction) * lambda);
        a.apply_impulse(-t * friction, ra);
        b.apply_impulse(t * friction, rb);
    }
}
