// Rigid bodies against each other (src/passes/bodies/pairs.rs): the same names and operations
// in the same order. Included in the bodies module after shaders/passes/bodies.wgsl.

// The kind of a box (GpuBody::kind in src/bodies.rs).
const BODY_BOX: u32 = 2u;

// What finish_bodies keeps between its phases (GpuBodyPairsHead in src/passes/bodies.rs).
struct BodyPairs {
    // Invocations of finish_bodies cut short by a CPU driver's loop limit (count_if_cut_short,
    // Overflows::bodies), counted since the host last zeroed it.
    cut_short: atomic<u32>,
    // The pairs in reach this substep (list_pairs_in_reach), listed or not.
    listed: u32,
    // The bodies a pair pushed this substep, a bit each (mark_pushed).
    pushed: array<u32, PUSHED_WORDS>,
    // The first REACH_CAPACITY pairs in reach.
    pairs: array<u32>,
}

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

// The pushes of the pair push_pair_apart last met (PairPush in src/passes/bodies/pairs.rs; at
// most two boxes' corners), thread 0's.
var<private> pair_push_locals: array<vec3<f32>, 16>;
var<private> pair_push_normals: array<vec3<f32>, 16>;
var<private> pair_push_lambdas: array<f32, 16>;

// push_apart in src/passes/bodies/pairs.rs, its push kept as push k.
fn push_apart(a: ptr<function, Body>, b: ptr<function, Body>, point: vec3<f32>, n: vec3<f32>, depth: f32, k: u32) {
    let ra = point - body_center(*a);
    let rb = point - body_center(*b);
    let lambda = depth / max(inverse_mass_at(*a, ra, n) + inverse_mass_at(*b, rb, n), DENOMINATOR_EPSILON);
    pair_push_locals[k] = rotate(conjugate(body_rotation(*a)), ra);
    apply_impulse(a, n * lambda, ra);
    apply_impulse(b, -n * lambda, rb);
    pair_push_normals[k] = n;
    pair_push_lambdas[k] = lambda;
}

// pair_friction in src/passes/bodies/pairs.rs, on push k.
fn pair_friction(a: ptr<function, Body>, b: ptr<function, Body>, k: u32) {
    let point = rotate(body_rotation(*a), pair_push_locals[k]) + body_center(*a);
    let n = pair_push_normals[k];
    let ra = point - body_center(*a);
    let rb = point - body_center(*b);
    let relative = point_displacement(*a, point) - point_displacement(*b, point);
    let slide = relative - n * dot(relative, n);
    let slide_length = length(slide);
    if (slide_length > GEOMETRY_EPSILON) {
        let t = slide / slide_length;
        let resisted = slide_length / max(inverse_mass_at(*a, ra, t) + inverse_mass_at(*b, rb, t), DENOMINATOR_EPSILON);
        let friction = min(resisted, 0.5 * ((*a).friction + (*b).friction) * pair_push_lambdas[k]);
        apply_impulse(a, -t * friction, ra);
        apply_impulse(b, t * friction, rb);
    }
}

// What corner_contact and axes_contact return where the depth does not exceed -slop.
const NO_PAIR_CONTACT = ContactPoint(vec3<f32>(0.0), vec3<f32>(0.0), -1.0e30);

// corner_contact in src/passes/bodies/pairs.rs: x's corner k, grown by its radius, against
// y's surface (the normal pushes x off y), where the depth exceeds -slop.
fn corner_contact(x: Body, y: Body, k: u32, slop: f32) -> ContactPoint {
    let point = body_center(x) + rotate(body_rotation(x), corner_at(x.half_extents, k));
    let surface = box_point(point, body_center(y), y.half_extents, body_rotation(y), y.radius);
    let depth = x.radius - surface.distance;
    if (!(depth > -slop)) {
        return NO_PAIR_CONTACT;
    }
    return ContactPoint(point - surface.normal * x.radius, surface.normal, depth);
}

// Whether bodies a and b may touch: their bounding balls meet, but for PAIR_CONTACT_SLOP (not
// out_of_reach).
fn within_reach(a: Body, b: Body) -> bool {
    let reach = length(a.half_extents) + a.radius + (length(b.half_extents) + b.radius) + PAIR_CONTACT_SLOP;
    return !(distance(body_center(a), body_center(b)) > reach);
}

// axes_contact in src/passes/bodies/pairs.rs: two round bodies (neither a box) along their
// axes, where the depth exceeds -slop.
fn axes_contact(a: Body, b: Body, slop: f32) -> ContactPoint {
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
    if (!(depth > -slop)) {
        return NO_PAIR_CONTACT;
    }
    return ContactPoint(points.first - n * a.radius, n, depth);
}

// push_pair_apart in src/passes/bodies/pairs.rs: a and b pushed apart where they press into
// each other, the pushes kept in pair_push_*; how many.
fn push_pair_apart(a: ptr<function, Body>, b: ptr<function, Body>) -> u32 {
    var count = 0u;
    if ((*a).kind != BODY_BOX && (*b).kind != BODY_BOX) {
        let contact = axes_contact(*a, *b, 0.0);
        if (contact.depth > 0.0) {
            push_apart(a, b, contact.point, contact.normal, contact.depth, 0u);
            count = 1u;
        }
        return count;
    }
    for (var k = 0u; k < 8u; k += 1u) {
        if (repeated_corner((*a).half_extents, k)) {
            continue;
        }
        let contact = corner_contact(*a, *b, k, 0.0);
        if (contact.depth > 0.0) {
            push_apart(a, b, contact.point, contact.normal, contact.depth, count);
            count += 1u;
        }
    }
    for (var k = 0u; k < 8u; k += 1u) {
        if (repeated_corner((*b).half_extents, k)) {
            continue;
        }
        let contact = corner_contact(*b, *a, k, 0.0);
        if (contact.depth > 0.0) {
            push_apart(a, b, contact.point, -contact.normal, contact.depth, count);
            count += 1u;
        }
    }
    return count;
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
        let contact = axes_contact(a, b, PAIR_CONTACT_SLOP);
        if (contact.depth > -PAIR_CONTACT_SLOP) {
            pair_points[0] = contact.point;
            pair_normals[0] = contact.normal;
            count = 1u;
        }
        return count;
    }
    for (var k = 0u; k < 8u; k += 1u) {
        if (repeated_corner(a.half_extents, k)) {
            continue;
        }
        let contact = corner_contact(a, b, k, PAIR_CONTACT_SLOP);
        if (contact.depth > -PAIR_CONTACT_SLOP) {
            pair_points[count] = contact.point;
            pair_normals[count] = contact.normal;
            count += 1u;
        }
    }
    for (var k = 0u; k < 8u; k += 1u) {
        if (repeated_corner(b.half_extents, k)) {
            continue;
        }
        let contact = corner_contact(b, a, k, PAIR_CONTACT_SLOP);
        if (contact.depth > -PAIR_CONTACT_SLOP) {
            pair_points[count] = contact.point;
            pair_normals[count] = -contact.normal;
            count += 1u;
        }
    }
    return count;
}

// settle_pair in src/passes/bodies/velocities.rs: contact c of pair_contacts.
fn settle_pair(a: ptr<function, Body>, b: ptr<function, Body>, met_a: Body, met_b: Body, c: u32) {
    let point = pair_points[c];
    let n = pair_normals[c];
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
// once a substep by thread 0 (list_pairs_in_reach, pairs_in_reach in src/passes/bodies/pairs.rs)
// for the pushes, their friction and the velocity sweeps: packed first | second << 16
// (MAX_BODIES is 4096), in order, in body_pairs.pairs. Past REACH_CAPACITY pairs each visit
// tests every pair's snapshots instead (visit_pairs_in_reach: the same pairs).
fn list_pairs_in_reach(count: u32) {
    var listed = 0u;
    for (var i = 0u; i < count; i += 1u) {
        let a = body_snapshots[count + i];
        for (var j = i + 1u; j < count; j += 1u) {
            if (within_reach(a, body_snapshots[count + j])) {
                if (listed < REACH_CAPACITY) {
                    body_pairs.pairs[listed] = i | (j << 16u);
                }
                listed += 1u;
            }
        }
    }
    body_pairs.listed = listed;
}

// The bodies a pair pushed in the substep, a bit each in body_pairs.pushed, set by thread 0.
fn clear_pushed(count: u32) {
    for (var k = 0u; k < (count + 31u) / 32u; k += 1u) {
        body_pairs.pushed[k] = 0u;
    }
}

fn mark_pushed(k: u32) {
    body_pairs.pushed[k / 32u] |= 1u << (k % 32u);
}

fn was_pushed(k: u32) -> bool {
    return (body_pairs.pushed[k / 32u] & (1u << (k % 32u))) != 0u;
}

// What visit_pair does with a pair.
const PUSH_PAIR: u32 = 0u;
const RUB_PAIR: u32 = 1u;
const SETTLE_PAIR: u32 = 2u;

// Bodies i and j (i < j), by thread 0: pushed apart (PUSH_PAIR, each body pushed marked); their
// friction on the pushes of the pair's replay (RUB_PAIR); or one sweep of their contacts at
// the velocity level (SETTLE_PAIR).
fn visit_pair(i: u32, j: u32, count: u32, visit: u32) {
    switch visit {
        case PUSH_PAIR: {
            var a = bodies[i];
            var b = bodies[j];
            if (push_pair_apart(&a, &b) > 0u) {
                mark_pushed(i);
                mark_pushed(j);
            }
            bodies[i] = a;
            bodies[j] = b;
        }
        case RUB_PAIR: {
            rub_pair(i, j, count);
        }
        default: {
            settle_pair_contacts(i, j, count);
        }
    }
}

// Every pair in reach in order (collide_pairs' order), each visited by visit_pair.
fn visit_pairs_in_reach(count: u32, visit: u32) {
    let listed = body_pairs.listed;
    if (listed <= REACH_CAPACITY) {
        for (var k = 0u; k < listed; k += 1u) {
            let pair = body_pairs.pairs[k];
            visit_pair(pair & 0xffffu, pair >> 16u, count, visit);
        }
        return;
    }
    for (var i = 0u; i < count; i += 1u) {
        for (var j = i + 1u; j < count; j += 1u) {
            if (within_reach(body_snapshots[count + i], body_snapshots[count + j])) {
                visit_pair(i, j, count, visit);
            }
        }
    }
}

// The friction of bodies i and j on the pushes the pairs' pass gave them. The pushes are not
// kept: the pass is replayed on copies of the bodies as it began (the snapshots' third part,
// copied from the second), pair by pair in the same order, so the pair meets its copies as the
// pass met the bodies and pushes them by the same pushes.
fn rub_pair(i: u32, j: u32, count: u32) {
    var replayed_a = body_snapshots[2u * count + i];
    var replayed_b = body_snapshots[2u * count + j];
    let pushes = push_pair_apart(&replayed_a, &replayed_b);
    body_snapshots[2u * count + i] = replayed_a;
    body_snapshots[2u * count + j] = replayed_b;
    if (pushes == 0u) {
        return;
    }
    var a = bodies[i];
    var b = bodies[j];
    for (var k = 0u; k < pushes; k += 1u) {
        pair_friction(&a, &b, k);
    }
    bodies[i] = a;
    bodies[j] = b;
}

// One sweep of the contacts of bodies i and j (i < j), found on the snapshots as the pairs met
// them (the snapshots' second part).
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
        settle_pair(&a, &b, met_a, met_b, c);
    }
    bodies[i] = a;
    bodies[j] = b;
}

// The phases of finish_bodies (FINISH_PHASES in src/passes/bodies.rs), in order; a dispatch runs
// DispatchInfo.iterations of them from DispatchInfo.first_iteration.
const PUSH_PHASE: u32 = 0u;
const REMEET_PHASE: u32 = 1u;
const RUB_PHASE: u32 = 2u;
const FIRST_SWEEP_PHASE: u32 = 3u;

// Whether this dispatch runs `phase`.
fn runs_phase(phase: u32) -> bool {
    return dispatch.first_iteration <= phase && phase < dispatch.first_iteration + dispatch.iterations;
}

// PUSH_PHASE: the bodies held by their ropes (hold_by_ropes), kept as the pairs meet them (the
// snapshots' second part), and pushed apart by each other, by thread 0 (collide_pairs in
// src/passes/bodies/pairs.rs).
fn push_pairs(count: u32) {
    hold_by_ropes();
    for (var i = 0u; i < count; i += 1u) {
        body_snapshots[count + i] = bodies[i];
    }
    list_pairs_in_reach(count);
    clear_pushed(count);
    visit_pairs_in_reach(count, PUSH_PAIR);
}

// REMEET_PHASE: each body a pair pushed meets the colliders again (collide_body, kept as it
// meets them in the snapshots' fourth part), a thread per body.
fn remeet_colliders(local_index: u32, count: u32) {
    for (var k = local_index; k < count; k += WORKGROUP_SIZE) {
        if (was_pushed(k)) {
            var body = bodies[k];
            body_snapshots[3u * count + k] = body;
            collide_body(&body, dispatch.substep, params.h);
            bodies[k] = body;
        }
    }
}

// A thread's share of a velocity sweep with the colliders (settle_on_colliders, as the
// colliders met each body, once or twice).
fn settle_bodies_on_colliders(local_index: u32, count: u32) {
    for (var k = local_index; k < count; k += WORKGROUP_SIZE) {
        var body = bodies[k];
        settle_on_colliders(&body, body_snapshots[k], dispatch.substep, params.h);
        if (was_pushed(k)) {
            settle_on_colliders(&body, body_snapshots[3u * count + k], dispatch.substep, params.h);
        }
        bodies[k] = body;
    }
}

// Mesa's CPU drivers (llvmpipe, and lavapipe on it) end every loop of an invocation after one
// pass once its loops have made 65535 passes in all (LP_MAX_TGSI_LOOP_ITERATIONS), silently.
// A loop of params.bodies.probe_passes passes (2, read from the block so no compiler unrolls
// it) that makes fewer tells that this invocation's work was cut short: counted in
// body_pairs.cut_short (Overflows::bodies; the total does not depend on the order of arrival).
fn count_if_cut_short() {
    var passes = 0u;
    for (var k = 0u; k < params.bodies.probe_passes; k += 1u) {
        passes += 1u;
    }
    if (passes < params.bodies.probe_passes) {
        atomicAdd(&body_pairs.cut_short, 1u);
    }
}

// The bodies' last dispatches of a substep, one workgroup each, a run of the phases each (all of
// them in one dispatch on a GPU): PUSH_PHASE (push_pairs); REMEET_PHASE (remeet_colliders);
// RUB_PHASE, the pairs' friction by thread 0, then every body's velocities from its substep, a
// thread per body; then FIRST_SWEEP_PHASE + s, sweep s of the contacts at the velocity level
// (settle_contacts in src/passes/bodies/velocities.rs): with the colliders, a thread per body,
// then the pairs' (settle_pair_contacts), by thread 0. Written out in order rather than as a
// loop over the phases, which llvmpipe ran at 2.5 times the cost.
@compute @workgroup_size(WORKGROUP_SIZE)
fn finish_bodies(@builtin(local_invocation_index) local_index: u32) {
    let count = params.bodies.count;
    if (runs_phase(PUSH_PHASE) && local_index == 0u) {
        push_pairs(count);
    }
    storageBarrier();
    if (runs_phase(REMEET_PHASE)) {
        remeet_colliders(local_index, count);
    }
    storageBarrier();
    if (runs_phase(RUB_PHASE)) {
        if (local_index == 0u) {
            for (var i = 0u; i < count; i += 1u) {
                body_snapshots[2u * count + i] = body_snapshots[count + i];
            }
            visit_pairs_in_reach(count, RUB_PAIR);
        }
        storageBarrier();
        for (var k = local_index; k < count; k += WORKGROUP_SIZE) {
            var body = bodies[k];
            update_body_velocities(&body, params.h);
            bodies[k] = body;
        }
    }
    let end = dispatch.first_iteration + dispatch.iterations;
    for (var phase = max(dispatch.first_iteration, FIRST_SWEEP_PHASE); phase < end; phase += 1u) {
        storageBarrier();
        settle_bodies_on_colliders(local_index, count);
        storageBarrier();
        if (local_index == 0u) {
            visit_pairs_in_reach(count, SETTLE_PAIR);
        }
    }
    count_if_cut_short();
}
