// Rigid bodies against each other (src/passes/bodies/pairs.rs): the same names and operations
// in the same order. Included in the bodies module after shaders/passes/bodies.wgsl.

// The kind of a box (GpuBody::kind in src/bodies.rs).
const BODY_BOX: u32 = 2u;

// closest_points in src/passes/bodies/pairs.rs: the nearest points of p1–q1 and p2–q2.
struct SegmentPoints {
    first: vec3<f32>,
    second: vec3<f32>,
}

fn closest_points(p1: vec3<f32>, q1: vec3<f32>, p2: vec3<f32>, q2: vec3<f32>) -> SegmentPoints {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let a = dot(d1, d1);
    let e = dot(d2, d2);
    let f = dot(d2, r);
    var s = 0.0;
    var t = 0.0;
    if (a <= DENOMINATOR_EPSILON && e <= DENOMINATOR_EPSILON) {
        s = 0.0;
        t = 0.0;
    } else if (a <= DENOMINATOR_EPSILON) {
        t = clamp(f / e, 0.0, 1.0);
    } else {
        let c = dot(d1, r);
        if (e <= DENOMINATOR_EPSILON) {
            s = clamp(-c / a, 0.0, 1.0);
        } else {
            let b = dot(d1, d2);
            let denominator = a * e - b * b;
            if (denominator > DENOMINATOR_EPSILON) {
                s = clamp((b * f - c * e) / denominator, 0.0, 1.0);
            }
            t = (b * s + f) / e;
            if (t < 0.0) {
                s = clamp(-c / a, 0.0, 1.0);
                t = 0.0;
            } else if (t > 1.0) {
                s = clamp((b - c) / a, 0.0, 1.0);
                t = 1.0;
            }
        }
    }
    return SegmentPoints(p1 + d1 * s, p2 + d2 * t);
}

// push_apart in src/passes/bodies/pairs.rs.
fn push_apart(a: ptr<function, Body>, b: ptr<function, Body>, point: vec3<f32>, n: vec3<f32>, depth: f32) {
    var ra = point - body_center(*a);
    var rb = point - body_center(*b);
    let lambda = depth / max(inverse_mass_at(*a, ra, n) + inverse_mass_at(*b, rb, n), DENOMINATOR_EPSILON);
    apply_impulse(a, n * lambda, ra);
    apply_impulse(b, -n * lambda, rb);
    ra = point - body_center(*a);
    rb = point - body_center(*b);
    let relative = point_displacement(*a, point) - point_displacement(*b, point);
    let slide = relative - n * dot(relative, n);
    let slide_length = length(slide);
    if (slide_length > GEOMETRY_EPSILON) {
        let t = slide / slide_length;
        let resisted = slide_length / max(inverse_mass_at(*a, ra, t) + inverse_mass_at(*b, rb, t), DENOMINATOR_EPSILON);
        let friction = min(resisted, 0.5 * ((*a).friction + (*b).friction) * lambda);
        apply_impulse(a, -t * friction, ra);
        apply_impulse(b, t * friction, rb);
    }
}

// corners_against in src/passes/bodies/pairs.rs.
fn corners_against(x: ptr<function, Body>, y: ptr<function, Body>) {
    let corners = (*x).half_extents;
    let radius = (*x).radius;
    for (var k = 0u; k < 8u; k += 1u) {
        if (repeated_corner(corners, k)) {
            continue;
        }
        let point = body_center(*x) + rotate(body_rotation(*x), corner_at(corners, k));
        let surface = box_point(point, body_center(*y), (*y).half_extents, body_rotation(*y), (*y).radius);
        let depth = radius - surface.distance;
        if (depth > 0.0) {
            push_apart(x, y, point - surface.normal * radius, surface.normal, depth);
        }
    }
}

// Whether bodies a and b may touch: their bounding balls meet (collide_pair's first test).
fn within_reach(a: Body, b: Body) -> bool {
    let reach = length(a.half_extents) + a.radius + (length(b.half_extents) + b.radius);
    return !(distance(body_center(a), body_center(b)) > reach);
}

// collide_pair in src/passes/bodies/pairs.rs, for bodies within reach.
fn collide_pair(a: ptr<function, Body>, b: ptr<function, Body>) {
    if ((*a).kind != BODY_BOX && (*b).kind != BODY_BOX) {
        let a_center = body_center(*a);
        let a_rotation = body_rotation(*a);
        let b_center = body_center(*b);
        let b_rotation = body_rotation(*b);
        let points = closest_points(
            rotate(a_rotation, -(*a).half_extents) + a_center,
            rotate(a_rotation, (*a).half_extents) + a_center,
            rotate(b_rotation, -(*b).half_extents) + b_center,
            rotate(b_rotation, (*b).half_extents) + b_center,
        );
        let gap = points.first - points.second;
        let gap_length = length(gap);
        let depth = (*a).radius + (*b).radius - gap_length;
        if (depth > 0.0) {
            let n = select(vec3<f32>(0.0, 1.0, 0.0), gap / gap_length, gap_length > GEOMETRY_EPSILON);
            push_apart(a, b, points.first - n * (*a).radius, n, depth);
        }
    } else {
        corners_against(a, b);
        corners_against(b, a);
    }
}

// The bodies held by their ropes (hold_by_ropes) and against each other (collide_pairs), by
// thread 0, then every body's velocities from its substep.
@compute @workgroup_size(WORKGROUP_SIZE)
fn finish_bodies(@builtin(local_invocation_index) local_index: u32) {
    let count = params.bodies.count;
    if (local_index == 0u) {
        hold_by_ropes();
        for (var i = 0u; i < count; i += 1u) {
            for (var j = i + 1u; j < count; j += 1u) {
                if (!within_reach(bodies[i], bodies[j])) {
                    continue;
                }
                var a = bodies[i];
                var b = bodies[j];
                collide_pair(&a, &b);
                bodies[i] = a;
                bodies[j] = b;
            }
        }
    }
    storageBarrier();
    for (var k = local_index; k < count; k += WORKGROUP_SIZE) {
        var body = bodies[k];
        update_body_velocities(&body, params.h);
        bodies[k] = body;
    }
}
