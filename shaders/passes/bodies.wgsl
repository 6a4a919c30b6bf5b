// Rigid bodies coupled both ways with the cloth (src/passes/bodies.rs, the body's math in
// src/bodies.rs): the same names and operations in the same order as the CPU reference.

// A body (GpuBody in src/bodies.rs): its state at the substep's start, the substep's
// displacement and turn so far, its shape as a rounded box, its material.
struct Body {
    position: vec3<f32>,
    inverse_mass: f32,
    rotation: vec4<f32>,
    velocity: vec3<f32>,
    friction: f32,
    angular_velocity: vec3<f32>,
    // The particles touching it in this substep's contacts (its mass is split among them).
    contacts: u32,
    displacement: vec3<f32>,
    radius: f32,
    turn: vec4<f32>,
    half_extents: vec3<f32>,
    // The shape it was given (the kernels read only the rounded box).
    kind: u32,
    // Its principal moments of inertia (kg·m²).
    inertia: vec3<f32>,
    // How far its last substep's contact moments added up (BodyState::coherence).
    coherence: f32,
    // Its coefficient of restitution against the colliders and other bodies.
    restitution: f32,
    _pad0: f32,
    _pad1: f32,
    _pad2: f32,
}

// What the kernels read of the bodies (GpuBodiesBlock in src/passes/bodies.rs).
struct BodiesBlock {
    gravity: vec3<f32>,
    count: u32,
    // The distance kept between particles and bodies (m).
    margin: f32,
    // Each body's partial sums: one per workgroup of particles.
    partial_stride: u32,
    // The particles attached to bodies (none: body_attachments is left unread).
    attached: u32,
    // The ropes holding bodies (body_ropes.wgsl).
    ropes: u32,
    // 2: the passes of count_if_cut_short's loop (body_pairs.wgsl).
    probe_passes: u32,
}

// A particle's attachment to a body (GpuBodyAttachment in src/passes/bodies/attachments.rs): the
// point in the body's frame, and the body or NOT_ATTACHED.
struct BodyAttachment {
    point: vec3<f32>,
    body: u32,
}

// BodyShare: the impulses' sum (xyz; w: the contacts, in the counting pass only), then their
// moments' sum (xyz) and the sum of their lengths (w).
struct BodyShare {
    linear: vec4<f32>,
    angular: vec4<f32>,
}

// The workgroup's shares of one body, summed in a tree (sum_shares).
var<workgroup> shared_linear: array<vec4<f32>, WORKGROUP_SIZE>;
var<workgroup> shared_angular: array<vec4<f32>, WORKGROUP_SIZE>;

// The workgroup's particles touching the body at hand (count_body_contacts): an integer sum,
// which no order of arrival changes.
var<workgroup> touching_count: atomic<u32>;
// Whether the workgroup counted any (body_contacts), copied by thread 0 for a uniform load; two,
// by the body's parity, so that thread 0 writing the next body's cannot meet a thread still
// loading this one's.
var<workgroup> group_touches: array<u32, 2>;

// Quat::from_scaled_axis: the turn by the angle |v| about v.
fn from_scaled_axis(v: vec3<f32>) -> vec4<f32> {
    let angle = length(v);
    if (angle == 0.0) {
        return vec4<f32>(0.0, 0.0, 0.0, 1.0);
    }
    let half = angle * 0.5;
    return vec4<f32>(v / angle * sin(half), cos(half));
}

// BodyState::pose: its centre and rotation now.
fn body_center(body: Body) -> vec3<f32> {
    return body.position + body.displacement;
}

fn body_rotation(body: Body) -> vec4<f32> {
    return normalized_quaternion(quaternion_product(body.turn, body.rotation));
}

// normalized_quaternion in src/collision/pose.rs.
fn normalized_quaternion(q: vec4<f32>) -> vec4<f32> {
    return q / sqrt(dot4(q, q));
}

// BodyState::inverse_inertia_times.
fn inverse_inertia_times(body: Body, rotation: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    return rotate(rotation, rotate(conjugate(rotation), v) / body.inertia);
}

// BodyState::inverse_mass_at: 1/m + (r × n)ᵀ I⁻¹ (r × n).
fn inverse_mass_at(body: Body, r: vec3<f32>, n: vec3<f32>) -> f32 {
    let arm = cross(r, n);
    return body.inverse_mass + dot(arm, inverse_inertia_times(body, body_rotation(body), arm));
}

// BodyState::split_inverse_mass_at.
fn split_inverse_mass_at(body: Body, r: vec3<f32>, n: vec3<f32>) -> f32 {
    let arm = cross(r, n);
    let turning = dot(arm, inverse_inertia_times(body, body_rotation(body), arm));
    return f32(max(body.contacts, 1u)) * (body.inverse_mass + body.coherence * turning);
}

// coherence in src/passes/bodies.rs.
fn coherence(angular: vec3<f32>, moments: f32) -> f32 {
    if (moments > 0.0) {
        return min(length(angular) / moments, 1.0);
    }
    return 1.0;
}

// BodyState::point_displacement.
fn point_displacement(body: Body, p: vec3<f32>) -> vec3<f32> {
    let r = p - body_center(body);
    return body.displacement + (r - rotate(conjugate(body.turn), r));
}

// turned in src/bodies.rs: q + ½[θ, 0]q, normalised.
fn turned(q: vec4<f32>, theta: vec3<f32>) -> vec4<f32> {
    let spin = quaternion_product(vec4<f32>(theta, 0.0), q);
    return normalized_quaternion(q + spin * 0.5);
}

// BodyState::apply_impulses.
fn apply_impulses(body: ptr<function, Body>, linear: vec3<f32>, angular: vec3<f32>) {
    (*body).displacement += linear * (*body).inverse_mass;
    (*body).turn = turned((*body).turn, inverse_inertia_times(*body, body_rotation(*body), angular));
}

// BodyState::apply_impulse.
fn apply_impulse(body: ptr<function, Body>, p: vec3<f32>, r: vec3<f32>) {
    apply_impulses(body, p, cross(r, p));
}

// BodyState::predict.
fn predict_body(body: ptr<function, Body>, gravity: vec3<f32>, h: f32) {
    (*body).velocity += gravity * h;
    (*body).displacement = (*body).velocity * h;
    let own = rotate(conjugate((*body).rotation), (*body).angular_velocity);
    let gyroscopic = -cross(own, (*body).inertia * own) / (*body).inertia;
    (*body).angular_velocity = rotate((*body).rotation, own + gyroscopic * h);
    (*body).turn = from_scaled_axis((*body).angular_velocity * h);
}

// BodyState::update_velocities.
fn update_body_velocities(body: ptr<function, Body>, h: f32) {
    (*body).velocity = (*body).displacement / h;
    (*body).angular_velocity = turn_rate((*body).turn, h);
    (*body).position = body_center(*body);
    (*body).rotation = body_rotation(*body);
    (*body).displacement = vec3<f32>(0.0);
    (*body).turn = vec4<f32>(0.0, 0.0, 0.0, 1.0);
}

// body_contact's result: the particle's move and the body's share.
struct BodyContact {
    moved: vec3<f32>,
    share: BodyShare,
}

// body_surface in src/passes/bodies.rs.
fn body_surface(body: Body, p: vec3<f32>, margin: f32) -> SurfacePoint {
    let center = body_center(body);
    if (length(p - center) > length(body.half_extents) + body.radius + margin) {
        return SurfacePoint(F32_MAX, vec3<f32>(0.0, 1.0, 0.0));
    }
    return box_point(p, center, body.half_extents, body_rotation(body), body.radius);
}

// body_contact in src/passes/bodies.rs.
fn body_contact(body: Body, x: vec3<f32>, q: vec3<f32>, w: f32, margin: f32) -> BodyContact {
    let none = BodyContact(vec3<f32>(0.0), BodyShare(vec4<f32>(0.0), vec4<f32>(0.0)));
    let p = x + q;
    let surface = body_surface(body, p, margin);
    let depth = margin - surface.distance;
    if (!(depth > 0.0)) {
        return none;
    }
    let n = surface.normal;
    let r = p - body_center(body);
    let lambda = depth / max(w + split_inverse_mass_at(body, r, n), DENOMINATOR_EPSILON);
    var moved = n * (w * lambda);
    var impulse = -n * lambda;
    let relative = (q + moved) - point_displacement(body, p);
    let slide = relative - n * dot(relative, n);
    let slide_length = length(slide);
    if (slide_length > GEOMETRY_EPSILON) {
        let t = slide / slide_length;
        let resisted = slide_length / max(w + split_inverse_mass_at(body, r, t), DENOMINATOR_EPSILON);
        let friction = min(resisted, body.friction * lambda);
        moved -= t * (w * friction);
        impulse += t * friction;
    }
    let angular = cross(r, impulse);
    return BodyContact(moved, BodyShare(vec4<f32>(impulse, 0.0), vec4<f32>(angular, length(angular))));
}

// Whether corner k of the rounded box repeats one before it (an axis of zero extent flipped).
fn repeated_corner(half_extents: vec3<f32>, k: u32) -> bool {
    let flipped = vec3<bool>((k & 1u) != 0u, (k & 2u) != 0u, (k & 4u) != 0u);
    return any(flipped & (half_extents == vec3<f32>(0.0)));
}

// Corner k of the rounded box (body_corners).
fn corner_at(half_extents: vec3<f32>, k: u32) -> vec3<f32> {
    let flipped = vec3<bool>((k & 1u) != 0u, (k & 2u) != 0u, (k & 4u) != 0u);
    return select(half_extents, -half_extents, flipped);
}

// attachment_pull in src/passes/bodies/attachments.rs.
fn attachment_pull(body: Body, point: vec3<f32>, x: vec3<f32>, q: vec3<f32>, w: f32) -> BodyContact {
    let center = body_center(body);
    let p = x + q;
    let gap = rotate(body_rotation(body), point) + center - p;
    let gap_length = length(gap);
    if (gap_length <= GEOMETRY_EPSILON) {
        return BodyContact(vec3<f32>(0.0), BodyShare(vec4<f32>(0.0), vec4<f32>(0.0)));
    }
    let n = gap / gap_length;
    let r = p - center;
    let lambda = gap_length / max(w + split_inverse_mass_at(body, r, n), DENOMINATOR_EPSILON);
    let impulse = -n * lambda;
    let angular = cross(r, impulse);
    return BodyContact(n * (w * lambda), BodyShare(vec4<f32>(impulse, 0.0), vec4<f32>(angular, length(angular))));
}

// Particle `particle`'s attachment, or none while no particle is attached.
fn attachment_of(particle: u32) -> BodyAttachment {
    if (params.bodies.attached == 0u) {
        return BodyAttachment(vec3<f32>(0.0), NOT_ATTACHED);
    }
    return body_attachments[particle];
}

// A body's contact (core_contact's, corner_on_collider's, a pair's): the point on the body's
// surface, the direction that pushes the body off and the depth (0: no contact).
struct ContactPoint {
    point: vec3<f32>,
    normal: vec3<f32>,
    depth: f32,
}

// collider_cores in src/passes/bodies.rs: how many segments the collider is round about (a
// sphere's centre, a capsule's axis, a box's twelve edges; none for planes and meshes).
fn core_count(collider: Collider) -> u32 {
    switch (collider.kind) {
        case COLLIDER_SPHERE, COLLIDER_CAPSULE: {
            return 1u;
        }
        case COLLIDER_BOX: {
            return MAX_CORES;
        }
        default: {
            return 0u;
        }
    }
}

// box_edge_end in src/passes/bodies.rs: an end of edge k of a box of half extents h (end ±1).
fn box_edge_end(h: vec3<f32>, k: u32, end: f32) -> vec3<f32> {
    let first = select(1.0, -1.0, (k & 1u) != 0u);
    let second = select(1.0, -1.0, (k & 2u) != 0u);
    switch (k / 4u) {
        case 0u: {
            return vec3<f32>(end * h.x, first * h.y, second * h.z);
        }
        case 1u: {
            return vec3<f32>(second * h.x, end * h.y, first * h.z);
        }
        default: {
            return vec3<f32>(first * h.x, second * h.y, end * h.z);
        }
    }
}

// An end of core k of the collider (collider_cores), in the world at the end of the motion.
fn core_end(collider: Collider, motion: Motion, k: u32, end: f32) -> vec3<f32> {
    var local = collider.a.xyz;
    if (collider.kind == COLLIDER_CAPSULE && end > 0.0) {
        local = collider.b.xyz;
    } else if (collider.kind == COLLIDER_BOX) {
        local = collider.a.xyz + rotate(collider.rotation, box_edge_end(collider.b.xyz, k, end));
    }
    return rotate(motion.end.rotation, local) + motion.end.translation;
}

// The distance from the point a fraction t along the core a–b to the body's surface (the body's
// centre and rotation now given).
fn core_distance(body: Body, center: vec3<f32>, rotation: vec4<f32>, a: vec3<f32>, b: vec3<f32>, t: f32) -> f32 {
    return box_point(a + (b - a) * t, center, body.half_extents, rotation, body.radius).distance;
}

// pressed_from in src/passes/bodies.rs: where, from `inside` towards `end`, the core stops
// pressing into the body.
fn pressed_from(
    body: Body,
    center: vec3<f32>,
    rotation: vec4<f32>,
    a: vec3<f32>,
    b: vec3<f32>,
    radius: f32,
    inside: f32,
    end: f32,
) -> f32 {
    if (core_distance(body, center, rotation, a, b, end) < radius) {
        return end;
    }
    var pressed = inside;
    var free = end;
    for (var k = 0u; k < CORE_SEARCH_STEPS; k += 1u) {
        let middle = 0.5 * (pressed + free);
        if (core_distance(body, center, rotation, a, b, middle) < radius) {
            pressed = middle;
        } else {
            free = middle;
        }
    }
    return pressed;
}

// core_contact in src/passes/bodies.rs: the points within radius of the segment a–b pressed
// into the body between its corners, at the middle of the stretch of the segment that presses.
fn core_contact(body: Body, a: vec3<f32>, b: vec3<f32>, radius: f32) -> ContactPoint {
    let none = ContactPoint(vec3<f32>(0.0), vec3<f32>(0.0), 0.0);
    let center = body_center(body);
    let rotation = body_rotation(body);
    let reach = 0.5 * length(b - a) + length(body.half_extents) + body.radius + radius;
    if (length(0.5 * (a + b) - center) > reach) {
        return none;
    }
    var low = 0.0;
    var high = 1.0;
    for (var k = 0u; k < CORE_SEARCH_STEPS; k += 1u) {
        let span = (high - low) * INVERSE_GOLDEN_RATIO;
        let first = high - span;
        let second = low + span;
        if (core_distance(body, center, rotation, a, b, first) < core_distance(body, center, rotation, a, b, second)) {
            high = second;
        } else {
            low = first;
        }
    }
    let deepest = 0.5 * (low + high);
    if (!(core_distance(body, center, rotation, a, b, deepest) < radius)) {
        return none;
    }
    let from_a = pressed_from(body, center, rotation, a, b, radius, deepest, 0.0);
    let to_b = pressed_from(body, center, rotation, a, b, radius, deepest, 1.0);
    let core = a + (b - a) * (0.5 * (from_a + to_b));
    let nearest = box_point(core, center, body.half_extents, rotation, body.radius);
    let depth = radius - nearest.distance;
    if (!(depth > 0.0)) {
        return none;
    }
    return ContactPoint(core - nearest.normal * nearest.distance, -nearest.normal, depth);
}

// collider_friction in src/passes/bodies.rs: the body's point pushed by lambda along n, its
// slide over the collider resisted up to its friction times the push.
fn collider_friction(body: ptr<function, Body>, point: vec3<f32>, n: vec3<f32>, lambda: f32, motion: Motion, h: f32) {
    let relative = point_displacement(*body, point) - motion_velocity(motion, point, h) * h;
    let slide = relative - n * dot(relative, n);
    let slide_length = length(slide);
    if (slide_length > GEOMETRY_EPSILON) {
        let t = slide / slide_length;
        let arm = point - body_center(*body);
        let resisted = slide_length / max(inverse_mass_at(*body, arm, t), DENOMINATOR_EPSILON);
        apply_impulse(body, -t * min(resisted, (*body).friction * lambda), arm);
    }
}

// One contact of the body with a collider over collide_body's sweeps (ColliderPush in
// src/passes/bodies.rs): slot k < 8 the corner k, 8 + k the collider's core k.
var<private> push_locals: array<vec3<f32>, 8u + MAX_CORES>;
var<private> push_normals: array<vec3<f32>, 8u + MAX_CORES>;
var<private> push_lambdas: array<f32, 8u + MAX_CORES>;

// ColliderPush::push: the body pushed out along the contact's normal by its depth, the push
// added to slot k.
fn push_off_collider(body: ptr<function, Body>, k: u32, contact: ContactPoint) {
    let center = body_center(*body);
    let r = contact.point - center;
    let lambda = contact.depth / max(inverse_mass_at(*body, r, contact.normal), DENOMINATOR_EPSILON);
    push_locals[k] = rotate(conjugate(body_rotation(*body)), r);
    apply_impulse(body, contact.normal * lambda, r);
    push_normals[k] = contact.normal;
    push_lambdas[k] += lambda;
}

// collide_body in src/passes/bodies.rs: COLLIDER_SWEEPS sweeps of the body's corners pushed out
// of each collider, then of a round collider's cores; then their friction.
fn collide_body(body: ptr<function, Body>, substep: u32, h: f32) {
    let half_extents = (*body).half_extents;
    for (var id = 0u; id < collider_list.count; id += 1u) {
        let collider = collider_list.colliders[id];
        let motion = substep_motion(collider, substep, params.substeps);
        // The collider's radius about its cores: a ball's or a bar's, a box's rounding.
        let core_radius = collider.a.w;
        for (var k = 0u; k < 8u + MAX_CORES; k += 1u) {
            push_lambdas[k] = 0.0;
        }
        for (var sweep = 0u; sweep < COLLIDER_SWEEPS; sweep += 1u) {
            for (var k = 0u; k < 8u; k += 1u) {
                if (repeated_corner(half_extents, k)) {
                    continue;
                }
                let contact = corner_on_collider(*body, k, collider, motion);
                if (contact.depth > 0.0) {
                    push_off_collider(body, k, contact);
                }
            }
            for (var k = 0u; k < core_count(collider); k += 1u) {
                let a = core_end(collider, motion, k, -1.0);
                let b = core_end(collider, motion, k, 1.0);
                let core = core_contact(*body, a, b, core_radius);
                if (core.depth > 0.0) {
                    push_off_collider(body, 8u + k, core);
                }
            }
        }
        for (var k = 0u; k < 8u + MAX_CORES; k += 1u) {
            if (push_lambdas[k] > 0.0) {
                let point = rotate(body_rotation(*body), push_locals[k]) + body_center(*body);
                collider_friction(body, point, push_normals[k], push_lambdas[k], motion, h);
            }
        }
    }
}

// corner_on_collider in src/passes/bodies.rs: corner k of the body, grown by its radius,
// against the collider along the corner's path in the substep.
fn corner_on_collider(body: Body, k: u32, collider: Collider, motion: Motion) -> ContactPoint {
    let corner = corner_at(body.half_extents, k);
    let start = body.position + rotate(body.rotation, corner);
    let now = body_center(body) + rotate(body_rotation(body), corner);
    let space = moving_half_space(motion, collider, start, now - start, body.radius);
    let depth = space.offset - dot(space.normal, now);
    if (!(depth > 0.0)) {
        return ContactPoint(vec3<f32>(0.0), vec3<f32>(0.0), 0.0);
    }
    return ContactPoint(now - space.normal * body.radius, space.normal, depth);
}

// BodyState::point_velocity: the velocity of the body's point now at p.
fn point_velocity(body: Body, p: vec3<f32>) -> vec3<f32> {
    return body.velocity + cross(body.angular_velocity, p - body_center(body));
}

// BodyState::apply_velocity_impulse: the impulse p at the body's point r from its centre.
fn apply_velocity_impulse(body: ptr<function, Body>, p: vec3<f32>, r: vec3<f32>) {
    (*body).velocity += p * (*body).inverse_mass;
    (*body).angular_velocity += inverse_inertia_times(*body, body_rotation(*body), cross(r, p));
}

// Where the point of `met` at p lies on `body` now (Pose::to_local, then Pose::to_world).
fn carried_point(body: Body, met: Body, p: vec3<f32>) -> vec3<f32> {
    let local = rotate(conjugate(body_rotation(met)), p - body_center(met));
    return rotate(body_rotation(body), local) + body_center(body);
}

// normal_speed_change in src/passes/bodies/velocities.rs.
fn normal_speed_change(v_n: f32, before: f32, e: f32) -> f32 {
    let restitution = select(0.0, e, abs(before) > params.restitution_threshold);
    return max(-restitution * before, 0.0) - v_n;
}

// settle_on_collider in src/passes/bodies/velocities.rs.
fn settle_on_collider(body: ptr<function, Body>, met: Body, point: vec3<f32>, n: vec3<f32>, motion: Motion, h: f32) {
    let now = carried_point(*body, met, point);
    let before = dot(n, point_velocity(met, point) - motion_velocity(motion, point, h));
    let v_n = dot(n, point_velocity(*body, now) - motion_velocity(motion, now, h));
    let r = now - body_center(*body);
    let change = normal_speed_change(v_n, before, (*body).restitution);
    apply_velocity_impulse(body, n * (change / max(inverse_mass_at(*body, r, n), DENOMINATOR_EPSILON)), r);
}

// settle_on_colliders in src/passes/bodies/velocities.rs: one sweep of the body's contacts
// found on met, collider by collider, corners then cores.
fn settle_on_colliders(body: ptr<function, Body>, met: Body, substep: u32, h: f32) {
    for (var id = 0u; id < collider_list.count; id += 1u) {
        let collider = collider_list.colliders[id];
        let motion = substep_motion(collider, substep, params.substeps);
        var points: array<vec3<f32>, MAX_CORES + 8u>;
        var normals: array<vec3<f32>, MAX_CORES + 8u>;
        var count = 0u;
        for (var k = 0u; k < 8u; k += 1u) {
            if (repeated_corner(met.half_extents, k)) {
                continue;
            }
            let contact = corner_on_collider(met, k, collider, motion);
            if (contact.depth > 0.0) {
                points[count] = contact.point;
                normals[count] = contact.normal;
                count += 1u;
            }
        }
        for (var k = 0u; k < core_count(collider); k += 1u) {
            let core_radius = collider.a.w;
            let contact = core_contact(met, core_end(collider, motion, k, -1.0), core_end(collider, motion, k, 1.0), core_radius);
            if (contact.depth > 0.0) {
                points[count] = contact.point;
                normals[count] = contact.normal;
                count += 1u;
            }
        }
        for (var c = 0u; c < count; c += 1u) {
            settle_on_collider(body, met, points[c], normals[c], motion, h);
        }
    }
}

// The workgroup's shares in shared_linear and shared_angular summed into entry 0, in halving
// strides (sum_shares). Every thread of the workgroup calls it.
fn shares_tree(local_index: u32) {
    for (var stride = WORKGROUP_SIZE / 2u; stride > 0u; stride /= 2u) {
        workgroupBarrier();
        if (local_index < stride) {
            shared_linear[local_index] = shared_linear[local_index] + shared_linear[local_index + stride];
            shared_angular[local_index] = shared_angular[local_index] + shared_angular[local_index + stride];
        }
    }
    workgroupBarrier();
}

// Thread k predicts body k.
@compute @workgroup_size(WORKGROUP_SIZE)
fn predict_bodies(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let k = linear_id(workgroup, workgroups, local_index);
    if (k >= params.bodies.count) {
        return;
    }
    var body = bodies[k];
    predict_body(&body, params.bodies.gravity, params.h);
    bodies[k] = body;
}

// The shares in shared_linear and shared_angular written for body b by workgroup `group`, once
// summed.
fn write_partial(b: u32, group: u32, local_index: u32) {
    shares_tree(local_index);
    if (local_index == 0u) {
        body_partials[b * params.bodies.partial_stride + group] = BodyShare(shared_linear[0], shared_angular[0]);
    }
}

// Whether the particle at p (where it is before this pass moves it) meets body b: touching it,
// or attached to it (meets in src/passes/bodies.rs).
fn meets(b: u32, p: vec3<f32>, attachment: BodyAttachment) -> bool {
    let near = params.bodies.margin - body_surface(bodies[b], p, params.bodies.margin).distance > 0.0;
    return attachment.body == b || near;
}

// Body b's partial sums summed into shared_linear[0] and shared_angular[0] (sum_shares).
fn sum_partials(b: u32, local_index: u32) {
    let first = b * params.bodies.partial_stride;
    var linear = vec4<f32>(0.0);
    var angular = vec4<f32>(0.0);
    for (var k = local_index; k < params.bodies.partial_stride; k += WORKGROUP_SIZE) {
        linear = linear + body_partials[first + k].linear;
        angular = angular + body_partials[first + k].angular;
    }
    shared_linear[local_index] = linear;
    shared_angular[local_index] = angular;
    shares_tree(local_index);
}

// Thread i counts particle i's contacts with every body; each workgroup writes each body its
// count (an integer sum: two barriers, no tree).
@compute @workgroup_size(WORKGROUP_SIZE)
fn count_body_contacts(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let i = linear_id(workgroup, workgroups, local_index);
    let particle = min(i, max(params.particle_count, 1u) - 1u);
    let p = positions[particle].xyz + velocities[particle].xyz;
    let attachment = attachment_of(particle);
    let group = workgroup.y * workgroups.x + workgroup.x;
    for (var b = 0u; b < params.bodies.count; b += 1u) {
        if (local_index == 0u) {
            atomicStore(&touching_count, 0u);
        }
        workgroupBarrier();
        if (i < params.particle_count && meets(b, p, attachment)) {
            atomicAdd(&touching_count, 1u);
        }
        workgroupBarrier();
        if (local_index == 0u) {
            let count = f32(atomicLoad(&touching_count));
            body_partials[b * params.bodies.partial_stride + group] =
                BodyShare(vec4<f32>(0.0, 0.0, 0.0, count), vec4<f32>(0.0));
        }
    }
}

// Workgroup b sums body b's counts: the contacts its mass is split among in this substep.
@compute @workgroup_size(WORKGROUP_SIZE)
fn sum_body_contacts(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local_index: u32) {
    sum_partials(workgroup.x, local_index);
    if (local_index == 0u) {
        bodies[workgroup.x].contacts = u32(shared_linear[0].w);
    }
}

// Thread i meets particle i with every body it was counted against, in order; each workgroup
// writes each body its shares' sum.
@compute @workgroup_size(WORKGROUP_SIZE)
fn body_contacts(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let i = linear_id(workgroup, workgroups, local_index);
    let inside = i < params.particle_count;
    let particle = min(i, max(params.particle_count, 1u) - 1u);
    let x = positions[particle].xyz;
    let state = velocities[particle];
    var q = state.xyz;
    let attachment = attachment_of(particle);
    let group = workgroup.y * workgroups.x + workgroup.x;
    for (var b = 0u; b < params.bodies.count; b += 1u) {
        // The slot still holds the workgroup's count of this body's contacts: with none, the
        // workgroup writes zero and skips its tree.
        let slot = b * params.bodies.partial_stride + group;
        if (local_index == 0u) {
            group_touches[b % 2u] = u32(body_partials[slot].linear.w > 0.0);
        }
        if (workgroupUniformLoad(&group_touches[b % 2u]) == 0u) {
            if (local_index == 0u) {
                body_partials[slot] = BodyShare(vec4<f32>(0.0), vec4<f32>(0.0));
            }
            continue;
        }
        var share = BodyShare(vec4<f32>(0.0), vec4<f32>(0.0));
        if (inside && meets(b, x + state.xyz, attachment)) {
            var contact: BodyContact;
            if (attachment.body == b) {
                contact = attachment_pull(bodies[b], attachment.point, x, q, state.w);
            } else {
                contact = body_contact(bodies[b], x, q, state.w, params.bodies.margin);
            }
            q += contact.moved;
            share = contact.share;
        }
        shared_linear[local_index] = share.linear;
        shared_angular[local_index] = share.angular;
        write_partial(b, group, local_index);
    }
    if (inside) {
        velocities[particle] = vec4<f32>(q, state.w);
    }
}

// Workgroup b sums body b's shares, moves it by them, keeps it as the colliders meet it (its
// snapshot, for the velocity level) and meets the colliders (finish_bodies in
// shaders/passes/body_pairs.wgsl then meets the bodies with each other and those a pair pushed
// with the colliders again, updates their velocities and settles their contacts' speeds).
@compute @workgroup_size(WORKGROUP_SIZE)
fn solve_bodies(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local_index: u32) {
    let b = workgroup.x;
    sum_partials(b, local_index);
    if (local_index == 0u) {
        var body = bodies[b];
        apply_impulses(&body, shared_linear[0].xyz, shared_angular[0].xyz);
        body.coherence = coherence(shared_angular[0].xyz, shared_angular[0].w);
        body_snapshots[b] = body;
        collide_body(&body, dispatch.substep, params.h);
        bodies[b] = body;
    }
}
