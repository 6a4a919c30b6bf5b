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

// corner_contact in src/passes/bodies/pairs.rs: x's corner k, grown by its radius, against
// y's surface (the normal pushes x off y).
fn corner_contact(x: Body, y: Body, k: u32) -> ContactPoint {
    let point = body_center(x) + rotate(body_rotation(x), corner_at(x.half_extents, k));
    let surface = box_point(point, body_center(y), y.half_extents, body_rotation(y), y.radius);
    let depth = x.radius - surface.distance;
    if (!(depth > 0.0)) {
        return ContactPoint(vec3<f32>(0.0), vec3<f32>(0.0), 0.0);
    }
    return ContactPoint(point - surface.normal * x.radius, surface.normal, depth);
}

// corners_against in src/passes/bodies/pairs.rs.
fn corners_against(x: ptr<function, Body>, y: ptr<function, Body>) {
    for (var k = 0u; k < 8u; k += 1u) {
        if (repeated_corner((*x).half_extents, k)) {
            continue;
        }
        let contact = corner_contact(*x, *y, k);
        if (contact.depth > 0.0) {
            push_apart(x, y, contact.point, contact.normal, contact.depth);
        }
    }
}

// Whether bodies a and b may touch: their bounding balls meet (not out_of_reach).
fn within_reach(a: Body, b: Body) -> bool {
    let reach = length(a.half_extents) + a.radius + (length(b.half_extents) + b.radius);
    return !(distance(body_center(a), body_center(b)) > reach);
}

// axes_contact in src/passes/bodies/pairs.rs: two round bodies (neither a box) along their
// axes.
fn axes_contact(a: Body, b: Body) -> ContactPoint {
    let a_center = body_center(a);
    let a_rotation = body_rotation(a);
    let b_center = body_center(b);
    let b_rotation = body_rotation(b);
    let points = closest_points(
        rotate(a_rotation, -a.half_extents) + a_center,
        rotate(a_rotation, a.half_extents) + a_center,
        rotate(b_rotation, -b.half_extents) + b_center,
        rotate(b_rotation, b.half_extents) + b_center,
    );
    let gap = points.first - points.second;
    let gap_length = length(gap);
    let depth = a.radius + b.radius - gap_length;
    let n = select(vec3<f32>(0.0, 1.0, 0.0), gap / gap_length, gap_length > GEOMETRY_EPSILON);
    if (!(depth > 0.0)) {
        return ContactPoint(vec3<f32>(0.0), vec3<f32>(0.0), 0.0);
    }
    return ContactPoint(points.first - n * a.radius, n, depth);
}

// collide_pair in src/passes/bodies/pairs.rs, for bodies within reach.
fn collide_pair(a: ptr<function, Body>, b: ptr<function, Body>) {
    if ((*a).kind != BODY_BOX && (*b).kind != BODY_BOX) {
        let contact = axes_contact(*a, *b);
        if (contact.depth > 0.0) {
            push_apart(a, b, contact.point, contact.normal, contact.depth);
        }
    } else {
        corners_against(a, b);
        corners_against(b, a);
    }
}

// The contacts of a pair found by pair_contacts (at most two boxes' corners), thread 0's.
var<private> pair_points: array<vec3<f32>, 16>;
var<private> pair_normals: array<vec3<f32>, 16>;

// pair_contacts in src/passes/bodies/pairs.rs: a and b's contacts where they are, into
// pair_points and pair_normals (each normal pushing a off b); how many.
fn pair_contacts(a: Body, b: Body) -> u32 {
    if (!within_reach(a, b)) {
        return 0u;
    }
    var count = 0u;
    if (a.kind != BODY_BOX && b.kind != BODY_BOX) {
        let contact = axes_contact(a, b);
        if (contact.depth > 0.0) {
            pair_points[0] = contact.point;
            pair_normals[0] = contact.normal;
            count = 1u;
        }
        return count;
    }
    for (var k = 0u; k < 8u; k += 1u) {
        let contact = corner_contact(a, b, k);
        if (!repeated_corner(a.half_extents, k) && contact.depth > 0.0) {
            pair_points[count] = contact.point;
            pair_normals[count] = contact.normal;
            count += 1u;
        }
    }
    for (var k = 0u; k < 8u; k += 1u) {
        let contact = corner_contact(b, a, k);
        if (!repeated_corner(b.half_extents, k) && contact.depth > 0.0) {
            pair_points[count] = contact.point;
            pair_normals[count] = -contact.normal;
            count += 1u;
        }
    }
    return count;
}

// settle_pair in src/passes/bodies/velocities.rs.
fn settle_pair(a: ptr<function, Body>, b: ptr<function, Body>, met_a: Body, met_b: Body, point: vec3<f32>, n: vec3<f32>) {
    let now = carried_point(*a, met_a, point);
    let before = dot(n, point_velocity(met_a, point) - point_velocity(met_b, point));
    let v_n = dot(n, point_velocity(*a, now) - point_velocity(*b, now));
    let ra = now - body_center(*a);
    let rb = now - body_center(*b);
    let change = normal_speed_change(v_n, before, 0.5 * ((*a).restitution + (*b).restitution));
    let w = inverse_mass_at(*a, ra, n) + inverse_mass_at(*b, rb, n);
    let p = n * (change / max(w, DENOMINATOR_EPSILON));
    apply_velocity_impulse(a, p, ra);
    apply_velocity_impulse(b, -p, rb);
}

// The pairs whose bounding balls meet as the pairs' pass begins (their snapshots'), listed
// once by thread 0 (list_pairs_in_reach) for the velocity sweeps: packed first | second << 16
// (MAX_BODIES is 4096), in the order of collide_pairs. Past REACH_CAPACITY pairs the sweeps
// visit every pair instead (pairs out of reach have no contacts: the same sweeps).
const REACH_CAPACITY: u32 = 1024u;
var<workgroup> pairs_in_reach: array<u32, REACH_CAPACITY>;
var<workgroup> pairs_in_reach_count: u32;

fn list_pairs_in_reach(count: u32) {
    var listed = 0u;
    for (var i = 0u; i < count; i += 1u) {
        let a = body_snapshots[count + i];
        for (var j = i + 1u; j < count; j += 1u) {
            if (within_reach(a, body_snapshots[count + j])) {
                if (listed < REACH_CAPACITY) {
                    pairs_in_reach[listed] = i | (j << 16u);
                }
                listed += 1u;
            }
        }
    }
    pairs_in_reach_count = listed;
}

// One sweep of the contacts of bodies i and j (i < j), found on the snapshots as the pairs met
// them (the snapshots' second half).
fn settle_pair_contacts(i: u32, j: u32, count: u32) {
    let met_a = body_snapshots[count + i];
    let met_b = body_snapshots[count + j];
    let contacts = pair_contacts(met_a, met_b);
    if (contacts == 0u) {
        return;
    }
    var a = bodies[i];
    var b = bodies[j];
    for (var c = 0u; c < contacts; c += 1u) {
        settle_pair(&a, &b, met_a, met_b, pair_points[c], pair_normals[c]);
    }
    bodies[i] = a;
    bodies[j] = b;
}

// settle_pairs in src/passes/bodies/velocities.rs: one sweep of every pair in reach in order.
fn settle_pairs(count: u32) {
    if (pairs_in_reach_count <= REACH_CAPACITY) {
        for (var k = 0u; k < pairs_in_reach_count; k += 1u) {
            let pair = pairs_in_reach[k];
            settle_pair_contacts(pair & 0xffffu, pair >> 16u, count);
        }
        return;
    }
    for (var i = 0u; i < count; i += 1u) {
        for (var j = i + 1u; j < count; j += 1u) {
            settle_pair_contacts(i, j, count);
        }
    }
}

// The bodies held by their ropes (hold_by_ropes), kept as the pairs meet them, and against each
// other (collide_pairs), by thread 0; then every body's velocities from its substep, a thread
// per body; then VELOCITY_SWEEPS sweeps of their contacts at the velocity level: with the
// colliders (settle_on_colliders), a thread per body, then the pairs' (settle_pairs), by
// thread 0.
@compute @workgroup_size(WORKGROUP_SIZE)
fn finish_bodies(@builtin(local_invocation_index) local_index: u32) {
    let count = params.bodies.count;
    if (local_index == 0u) {
        hold_by_ropes();
        for (var i = 0u; i < count; i += 1u) {
            body_snapshots[count + i] = bodies[i];
        }
        list_pairs_in_reach(count);
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
    // settle_contacts in src/passes/bodies/velocities.rs.
    for (var sweep = 0u; sweep < VELOCITY_SWEEPS; sweep += 1u) {
        storageBarrier();
        for (var k = local_index; k < count; k += WORKGROUP_SIZE) {
            var body = bodies[k];
            settle_on_colliders(&body, body_snapshots[k], dispatch.substep, params.h);
            bodies[k] = body;
        }
        storageBarrier();
        if (local_index == 0u) {
            settle_pairs(count);
        }
    }
}
