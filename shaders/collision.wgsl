// Collision constraints and the contact response, mirroring src/collision.rs and its children in
// src/collision/: the same names,
// argument order and operations in the same order, so the GPU computes the same bits as the CPU
// reference. Where the CPU passes a particle's near list and contacts between functions, these
// read and change them in private variables (near, resolved, acting): llvmpipe copies an array
// passed by value lane by lane and zeroes a new one, which took half of finalize's time.
// Branches are selects where both sides are cheap (llvmpipe runs both anyway). The
// constants COLLIDER_*, MAX_NEAR_COLLIDERS, MAX_CONTACTS, PARALLEL_EPSILON, FIELD_SLOPE, TRACE_STEPS
// and TRACE_TOLERANCE are generated from their twins in src/collision.rs; the collider list and
// the distance fields are bound by the module that includes this file (src/passes/predict.rs).


// A collider (GpuCollider in src/collision.rs): plane (a = normal xyz, offset w), sphere
// (a = centre xyz, radius w), capsule (a = end xyz, radius w; b = other end xyz), box (a =
// centre xyz, rounding w; b = half extents xyz; rotation = quaternion xyzw) or mesh (a =
// translation xyz, cell size w; b = the field's origin xyz; rotation; field = its samples along
// xyz and the first texture layer they start at, w).
struct Collider {
    a: vec4<f32>,
    b: vec4<f32>,
    rotation: vec4<f32>,
    // The frame's motion: the pose (translation xyz, rotation quaternion) at its start and end.
    start_translation: vec4<f32>,
    start_rotation: vec4<f32>,
    end_translation: vec4<f32>,
    end_rotation: vec4<f32>,
    // Its material (ContactMaterial): margin, static and dynamic friction, restitution.
    material: vec4<f32>,
    // The sphere around everything it sweeps in the frame: centre xyz, radius w (−1: a plane).
    bounds: vec4<f32>,
    field: vec4<u32>,
    kind: u32,
}

// The colliders (GpuColliderListHead in src/collision.rs, then the records).
struct ColliderList {
    // Particle substeps near more than MAX_NEAR_COLLIDERS colliders (Overflows::colliders),
    // counted since the host last zeroed it; the total does not depend on the order of arrival.
    overflow: atomic<u32>,
    count: u32,
    // Nonzero when a particle started the frame inside a collider (src/passes/depenetration.rs).
    depenetrating: atomic<u32>,
    colliders: array<Collider>,
}

// The half-space normal·p ≥ offset outside a collider grown by the margin (HalfSpace).
struct HalfSpace {
    normal: vec3<f32>,
    offset: f32,
}


// One particle's contacts in the iterations of a substep (GpuSubstepContacts in src/collision.rs;
// SubstepContacts in src/collision/response.rs): each slot's half-space (normal xyz, offset w),
// the displacement predicted before the constraints, and the slots' colliders, 16 bits each
// (slot 0 low; NO_COLLIDER where unused).
struct SubstepContacts {
    spaces: array<vec4<f32>, ITERATION_CONTACTS>,
    predicted: vec3<f32>,
    colliders: u32,
}

// The contacts that acted on one particle (Contacts in src/collision/contacts.rs).
struct Contacts {
    normals: array<vec3<f32>, MAX_CONTACTS>,
    depths: array<f32, MAX_CONTACTS>,
    residuals: array<f32, MAX_CONTACTS>,
    sources: array<u32, MAX_CONTACTS>,
    count: u32,
}

// The contacts resolve_contacts finds, and those the response acts with (private variables: see
// the head of this file).
var<private> resolved: Contacts;
var<private> acting: Contacts;

fn plane_half_space(normal: vec3<f32>, offset: f32, margin: f32) -> HalfSpace {
    return HalfSpace(normal, offset + margin);
}

// The tangent half-space of the grown sphere at the entry point of x → x + q, or at the surface
// point closest to x + q (sphere_half_space in src/collision/contacts.rs says why this form).
fn sphere_half_space(x: vec3<f32>, q: vec3<f32>, center: vec3<f32>, radius: f32, margin: f32) -> HalfSpace {
    let r = radius + margin;
    let relative = x - center;
    let outside = dot(relative, relative) - r * r;
    let along = dot(relative, q);
    let discriminant = along * along - dot(q, q) * outside;
    let entry = outside / max(sqrt(max(discriminant, 0.0)) - along, DENOMINATOR_EPSILON);
    let enters = (outside >= 0.0) & (along < 0.0) & (discriminant >= 0.0) & (entry <= 1.0);
    let touch = select(relative + q, relative + q * entry, enters);
    let len = length(touch);
    let normal = select(vec3<f32>(0.0, 1.0, 0.0), touch / max(len, GEOMETRY_EPSILON), len > GEOMETRY_EPSILON);
    return HalfSpace(normal, dot(normal, center) + r);
}

// A point's signed distance to a surface and the outward unit normal there (SurfacePoint).
struct SurfacePoint {
    distance: f32,
    normal: vec3<f32>,
}

// capsule_point in src/collision/shapes.rs.
fn capsule_point(p: vec3<f32>, a: vec3<f32>, b: vec3<f32>, radius: f32) -> SurfacePoint {
    let axis = b - a;
    let along = clamp(dot(p - a, axis) / max(dot(axis, axis), DENOMINATOR_EPSILON), 0.0, 1.0);
    let out = p - (a + axis * along);
    let len = length(out);
    let away = select(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), abs(axis.y) < max(abs(axis.x), abs(axis.z)));
    let across = cross(axis, away);
    let across_len = length(across);
    var normal = vec3<f32>(0.0, 1.0, 0.0);
    if (len > GEOMETRY_EPSILON) {
        normal = out / len;
    } else if (across_len > GEOMETRY_EPSILON) {
        normal = across / across_len;
    }
    return SurfacePoint(len - radius, normal);
}

// rotate in src/collision/pose.rs: v rotated by the unit quaternion r.
fn rotate(r: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let t = cross(r.xyz, v) * 2.0;
    return v + t * r.w + cross(r.xyz, t);
}

// box_point in src/collision/shapes.rs.
fn box_point(p: vec3<f32>, center: vec3<f32>, half_extents: vec3<f32>, rotation: vec4<f32>, rounding: f32) -> SurfacePoint {
    let local = rotate(conjugate(rotation), p - center);
    let side = select(vec3<f32>(-1.0), vec3<f32>(1.0), local >= vec3<f32>(0.0));
    let excess = abs(local) - half_extents;
    let outside = max(excess, vec3<f32>(0.0));
    let out_length = length(outside);
    let deepest = max(max(excess.x, excess.y), excess.z);
    var distance = out_length - rounding;
    var local_normal = side * outside / max(out_length, GEOMETRY_EPSILON);
    if (out_length <= GEOMETRY_EPSILON) {
        var face = vec3<f32>(0.0, 0.0, 1.0);
        if (excess.x >= deepest) {
            face = vec3<f32>(1.0, 0.0, 0.0);
        } else if (excess.y >= deepest) {
            face = vec3<f32>(0.0, 1.0, 0.0);
        }
        distance = min(deepest, 0.0) + out_length - rounding;
        local_normal = side * face;
    }
    return SurfacePoint(distance, rotate(rotation, local_normal));
}


// lerp in src/distance_field.rs.
fn lerp(a: f32, b: f32, t: f32) -> f32 {
    return a + (b - a) * t;
}

// A field's sample at grid point i.
fn field_sample(collider: Collider, i: vec3<u32>) -> f32 {
    return textureLoad(distance_fields, vec3<u32>(i.xy, i.z + collider.field.w), 0).x;
}

// A signed distance and its gradient (FieldPoint).
struct FieldPoint {
    distance: f32,
    gradient: vec3<f32>,
}

// DistanceField::surface_point: trilinear inside the sampled box, a lower bound outside it.
fn field_point(collider: Collider, p: vec3<f32>) -> FieldPoint {
    let cell = collider.a.w;
    let top = vec3<f32>(collider.field.xyz - vec3<u32>(1u));
    let grid = (p - collider.b.xyz) / cell;
    let clamped = clamp(grid, vec3<f32>(0.0), top);
    let outside = length((grid - clamped) * cell);
    let base = min(floor(clamped), top - vec3<f32>(1.0));
    let f = clamped - base;
    let corner = vec3<u32>(base);
    let d000 = field_sample(collider, corner);
    let d100 = field_sample(collider, corner + vec3<u32>(1u, 0u, 0u));
    let d010 = field_sample(collider, corner + vec3<u32>(0u, 1u, 0u));
    let d110 = field_sample(collider, corner + vec3<u32>(1u, 1u, 0u));
    let d001 = field_sample(collider, corner + vec3<u32>(0u, 0u, 1u));
    let d101 = field_sample(collider, corner + vec3<u32>(1u, 0u, 1u));
    let d011 = field_sample(collider, corner + vec3<u32>(0u, 1u, 1u));
    let d111 = field_sample(collider, corner + vec3<u32>(1u, 1u, 1u));
    let e00 = lerp(d000, d100, f.x);
    let e10 = lerp(d010, d110, f.x);
    let e01 = lerp(d001, d101, f.x);
    let e11 = lerp(d011, d111, f.x);
    let f0 = lerp(e00, e10, f.y);
    let f1 = lerp(e01, e11, f.y);
    let value = lerp(f0, f1, f.z);
    let along_x = lerp(lerp(d100 - d000, d110 - d010, f.y), lerp(d101 - d001, d111 - d011, f.y), f.z);
    let gradient = vec3<f32>(along_x, lerp(e10 - e00, e11 - e01, f.z), f1 - f0) / cell;
    return FieldPoint(select(value, max(outside, value - outside), outside > 0.0), gradient);
}

// mesh_point in src/collision/shapes.rs: the field in the mesh's frame, its normal back in the world.
fn mesh_point(collider: Collider, p: vec3<f32>) -> SurfacePoint {
    let local = rotate(conjugate(collider.rotation), p - collider.a.xyz);
    let here = field_point(collider, local);
    let len = length(here.gradient);
    let normal = select(vec3<f32>(0.0, 1.0, 0.0), here.gradient / max(len, GEOMETRY_EPSILON), len > GEOMETRY_EPSILON);
    return SurfacePoint(here.distance, rotate(collider.rotation, normal));
}

// Collider::trace_slope.
fn trace_slope(collider: Collider) -> f32 {
    return select(1.0, FIELD_SLOPE, collider.kind == COLLIDER_MESH);
}

// Collider::closest: a capsule's, box's or mesh's signed distance and normal.
fn closest(collider: Collider, p: vec3<f32>) -> SurfacePoint {
    if (collider.kind == COLLIDER_CAPSULE) {
        return capsule_point(p, collider.a.xyz, collider.b.xyz, collider.a.w);
    }
    if (collider.kind == COLLIDER_MESH) {
        return mesh_point(collider, p);
    }
    return box_point(p, collider.a.xyz, collider.b.xyz, collider.rotation, collider.a.w);
}


// The tangent half-space of a grown capsule or box at the entry point of x → x + q found by
// sphere tracing, or at the surface point closest to x + q (traced_half_space in
// src/collision/contacts.rs).
fn traced_half_space(collider: Collider, x: vec3<f32>, q: vec3<f32>, margin: f32) -> HalfSpace {
    let len = length(q);
    let start = closest(collider, x);
    let end = closest(collider, x + q);
    var contact = end;
    var point = x + q;
    if (start.distance - margin >= 0.0 && len > GEOMETRY_EPSILON) {
        var s = 0.0;
        var here = start;
        var arrived = false;
        for (var step = 0u; step < TRACE_STEPS; step += 1u) {
            arrived = here.distance - margin <= TRACE_TOLERANCE;
            if (arrived) {
                break;
            }
            s += (here.distance - margin) / (len * trace_slope(collider));
            if (s > 1.0) {
                break;
            }
            here = closest(collider, x + q * s);
        }
        if (arrived || (s <= 1.0 && (end.distance - margin < 0.0 || passes_through(collider, x, q, s, margin)))) {
            contact = here;
            point = x + q * s;
        }
    }
    return HalfSpace(contact.normal, dot(contact.normal, point) - (contact.distance - margin));
}

// passes_through in src/collision/contacts.rs: whether x + q·s, s from `from` to 1, may dip inside
// the grown shape (PASS_PIECES pieces, each shown out by the distance's slope bound or not).
fn passes_through(collider: Collider, x: vec3<f32>, q: vec3<f32>, from_s: f32, margin: f32) -> bool {
    let piece = (1.0 - from_s) / f32(PASS_PIECES);
    let fall = trace_slope(collider) * length(q) * piece;
    var before = closest(collider, x + q * from_s).distance - margin;
    for (var k = 1u; k <= PASS_PIECES; k += 1u) {
        let after = closest(collider, x + q * (from_s + piece * f32(k))).distance - margin;
        if (!(before + after > fall)) {
            return true;
        }
        before = after;
    }
    return false;
}

// Whether the kernel meets capsules, boxes and meshes (by sphere tracing): false in the builds
// for colliders that are all planes and spheres (CollisionKernel in src/passes.rs), where the
// trace is left out of the code, since llvmpipe runs both sides of every branch.
override TRACED_SHAPES: bool = true;

// Collider::half_space.
fn half_space(collider: Collider, x: vec3<f32>, q: vec3<f32>, margin: f32) -> HalfSpace {
    if (collider.kind == COLLIDER_PLANE) {
        return plane_half_space(collider.a.xyz, collider.a.w, margin);
    }
    // Without TRACED_SHAPES, a collider that is not a plane is a sphere.
    if (collider.kind == COLLIDER_SPHERE || !TRACED_SHAPES) {
        return sphere_half_space(x, q, collider.a.xyz, collider.a.w, margin);
    }
    return traced_half_space(collider, x, q, margin);
}

// A collider's pose (Pose in src/collision/pose.rs): translation, then rotation quaternion.
struct Pose {
    translation: vec3<f32>,
    rotation: vec4<f32>,
}

// A collider's motion over a substep (Motion).
struct Motion {
    start: Pose,
    end: Pose,
}

// Pose::towards: a fraction s of the way from `here` to `there`.
fn pose_towards(here: Pose, there: Pose, s: f32) -> Pose {
    if (s == 0.0) {
        return here;
    }
    if (s == 1.0) {
        return there;
    }
    let translation = here.translation + (there.translation - here.translation) * s;
    if (all(here.rotation == there.rotation)) {
        return Pose(translation, here.rotation);
    }
    let b = select(there.rotation, -there.rotation, dot4(here.rotation, there.rotation) < 0.0);
    let blend = here.rotation * (1.0 - s) + b * s;
    return Pose(translation, blend / max(sqrt(dot4(blend, blend)), GEOMETRY_EPSILON));
}

// dot4 in src/collision/pose.rs: summed in index order.
fn dot4(a: vec4<f32>, b: vec4<f32>) -> f32 {
    return ((a.x * b.x + a.y * b.y) + a.z * b.z) + a.w * b.w;
}

// Motion::substep of the collider's frame motion (a still one is still in every substep).
fn substep_motion(collider: Collider, substep: u32, substeps: u32) -> Motion {
    let first = Pose(collider.start_translation.xyz, collider.start_rotation);
    let last = Pose(collider.end_translation.xyz, collider.end_rotation);
    if (motion_is_still(Motion(first, last))) {
        return Motion(first, last);
    }
    let n = f32(substeps);
    return Motion(pose_towards(first, last, f32(substep) / n), pose_towards(first, last, f32(substep + 1u) / n));
}

fn conjugate(r: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(-r.xyz, r.w);
}

// quaternion_product in src/collision/pose.rs.
fn quaternion_product(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    );
}

fn motion_is_still(motion: Motion) -> bool {
    return all(motion.start.translation == motion.end.translation) && all(motion.start.rotation == motion.end.rotation);
}

// turn_rate in src/collision/pose.rs: the angular velocity that turns by `turn_in` in h seconds.
fn turn_rate(turn_in: vec4<f32>, h: f32) -> vec3<f32> {
    let turn = select(turn_in, -turn_in, turn_in.w < 0.0);
    let sine = length(turn.xyz);
    return turn.xyz * (2.0 * atan2_portable(sine, turn.w) / max(sine, GEOMETRY_EPSILON) / h);
}

// Motion::velocity: the surface's velocity at p over h seconds.
fn motion_velocity(motion: Motion, p: vec3<f32>, h: f32) -> vec3<f32> {
    if (motion_is_still(motion)) {
        return vec3<f32>(0.0);
    }
    let omega = turn_rate(quaternion_product(motion.end.rotation, conjugate(motion.start.rotation)), h);
    return (motion.end.translation - motion.start.translation) / h + cross(omega, p - motion.end.translation);
}

// Motion::half_space: the collider's half-space for the path relative to its motion (the
// shape's own where it rests at the identity).
fn moving_half_space(motion: Motion, collider: Collider, x: vec3<f32>, q: vec3<f32>, margin: f32) -> HalfSpace {
    if (motion_is_still(motion) && all(motion.end.translation == vec3<f32>(0.0))
        && all(motion.end.rotation == vec4<f32>(0.0, 0.0, 0.0, 1.0))) {
        return half_space(collider, x, q, margin);
    }
    let from_start = x - motion.start.translation;
    let x_local = rotate(conjugate(motion.start.rotation), from_start);
    let to_end = conjugate(motion.end.rotation);
    let q_local = rotate(to_end, q - (motion.end.translation - motion.start.translation))
        + (rotate(to_end, from_start) - x_local);
    let local = half_space(collider, x_local, q_local, margin);
    let normal = rotate(motion.end.rotation, local.normal);
    return HalfSpace(normal, local.offset + dot(normal, motion.end.translation));
}

// Contacts::displacement.
fn contacts_displacement(contacts: ptr<private, Contacts>) -> vec3<f32> {
    var sum = vec3<f32>(0.0);
    for (var k = 0u; k < (*contacts).count; k += 1u) {
        sum += (*contacts).normals[k] * (*contacts).depths[k];
    }
    return sum;
}

fn contacts_push(space: HalfSpace, residual: f32, source: u32) {
    let k = resolved.count;
    resolved.normals[k] = space.normal;
    resolved.residuals[k] = residual;
    resolved.sources[k] = source;
    resolved.depths[k] = 0.0;
    resolved.count = k + 1u;
}

fn contacts_remove(k: u32) {
    for (var i = k; i + 1u < resolved.count; i += 1u) {
        resolved.normals[i] = resolved.normals[i + 1u];
        resolved.residuals[i] = resolved.residuals[i + 1u];
        resolved.sources[i] = resolved.sources[i + 1u];
    }
    resolved.count -= 1u;
}

fn contacts_contain(source: u32) -> bool {
    var found = false;
    for (var k = 0u; k < resolved.count; k += 1u) {
        found |= resolved.sources[k] == source;
    }
    return found;
}

// The active contacts' depths from their Gram system (Contacts::solve).
fn contacts_solve() {
    // Each round either solves or removes a contact.
    for (var round = 0u; round <= MAX_CONTACTS && resolved.count > 0u; round += 1u) {
        let n = resolved.normals;
        let r = resolved.residuals;
        let g01 = dot(n[0], n[1]);
        let g02 = dot(n[0], n[2]);
        let g12 = dot(n[1], n[2]);
        var lambda = array<f32, MAX_CONTACTS>(r[0], 0.0, 0.0);
        var det = 1.0;
        if (resolved.count == 2u) {
            det = 1.0 - g01 * g01;
            let safe = max(det, PARALLEL_EPSILON);
            lambda = array<f32, MAX_CONTACTS>((r[0] - g01 * r[1]) / safe, (r[1] - g01 * r[0]) / safe, 0.0);
        } else if (resolved.count == 3u) {
            let c00 = 1.0 - g12 * g12;
            let c01 = g02 * g12 - g01;
            let c02 = g01 * g12 - g02;
            let c11 = 1.0 - g02 * g02;
            let c12 = g01 * g02 - g12;
            let c22 = 1.0 - g01 * g01;
            det = c00 + g01 * c01 + g02 * c02;
            let safe = max(det, PARALLEL_EPSILON);
            lambda = array<f32, MAX_CONTACTS>(
                (c00 * r[0] + c01 * r[1] + c02 * r[2]) / safe,
                (c01 * r[0] + c11 * r[1] + c12 * r[2]) / safe,
                (c02 * r[0] + c12 * r[1] + c22 * r[2]) / safe,
            );
        }
        if (det < PARALLEL_EPSILON) {
            contacts_remove(0u);
            continue;
        }
        var pulling = MAX_CONTACTS;
        for (var k = 0u; k < resolved.count; k += 1u) {
            if (lambda[k] < 0.0 && (pulling == MAX_CONTACTS || lambda[k] < lambda[pulling])) {
                pulling = k;
            }
        }
        if (pulling == MAX_CONTACTS) {
            resolved.depths = lambda;
            return;
        }
        contacts_remove(pulling);
    }
}

// Finds in `resolved` the contacts that take p to the closest point inside the first `count`
// half-spaces of the near list (resolve_contacts in src/collision/contacts.rs). Entries past
// the count keep earlier values, which no computation reads.
fn resolve_contacts(p: vec3<f32>, count: u32) {
    resolved.count = 0u;
    for (var round = 0u; round <= MAX_CONTACTS; round += 1u) {
        let moved = p + contacts_displacement(&resolved);
        var worst = count;
        var violation = 0.0;
        for (var i = 0u; i < count; i += 1u) {
            let v = near.spaces[i].offset - dot(near.spaces[i].normal, moved);
            if (v > violation && !contacts_contain(i)) {
                worst = i;
                violation = v;
            }
        }
        if (worst == count || resolved.count == MAX_CONTACTS) {
            break;
        }
        contacts_push(near.spaces[worst], near.spaces[worst].offset - dot(near.spaces[worst].normal, p), worst);
        contacts_solve();
    }
}

// Static friction on positions: undoes the motion along the contacts' common tangent space
// when it is shorter than μ_s times the normal push (stick in src/collision/response.rs), with
// the acting contacts.
fn stick(q: vec3<f32>, static_friction: f32) -> vec3<f32> {
    let n = acting.normals;
    var tangential = vec3<f32>(0.0);
    if (acting.count == 0u) {
        return q;
    } else if (acting.count == 1u) {
        tangential = q - n[0] * dot(q, n[0]);
    } else if (acting.count == 2u) {
        let axis = cross(n[0], n[1]);
        let t = axis / max(length(axis), GEOMETRY_EPSILON);
        tangential = t * dot(q, t);
    }
    return select(q, q - tangential, length(tangential) < static_friction * length(contacts_displacement(&acting)));
}

// Whether the path x → x + q passes within `reach` of the sphere (BoundingSphere::meets_path);
// w < 0: unbounded.
fn bounds_meet_path(bounds: vec4<f32>, x: vec3<f32>, q: vec3<f32>, reach: f32) -> bool {
    let s = clamp(dot(bounds.xyz - x, q) / max(dot(q, q), DENOMINATOR_EPSILON), 0.0, 1.0);
    return bounds.w < 0.0 || distance(x + q * s, bounds.xyz) <= bounds.w + reach;
}

// The half-spaces of the colliders near one particle in a substep, with the collider each came
// from (NearColliders in src/collision/response.rs).
struct NearColliders {
    spaces: array<HalfSpace, MAX_NEAR_COLLIDERS>,
    ids: array<u32, MAX_NEAR_COLLIDERS>,
    count: u32,
    overflow: bool,
}

// The near list of this thread's particle, which find_near_colliders fills and resolve_contacts
// reads (a private variable: see the head of this file).
var<private> near: NearColliders;

// Fills the near list with the colliders whose swept bounds the path passes within reach = |q| +
// margin of, and whose half-space boundary lies within reach of x + q or beyond (near_colliders
// in src/collision/response.rs).
fn find_near_colliders(x: vec3<f32>, q: vec3<f32>, substep: u32) {
    near.count = 0u;
    near.overflow = false;
    let travel = length(q);
    for (var id = 0u; id < collider_list.count; id += 1u) {
        // The broad phase reads only the bounds and the margin (a far collider costs no more).
        let margin = collider_list.colliders[id].material.x;
        let reach = travel + margin;
        if (!bounds_meet_path(collider_list.colliders[id].bounds, x, q, reach)) {
            continue;
        }
        let collider = collider_list.colliders[id];
        let motion = substep_motion(collider, substep, params.substeps);
        let space = moving_half_space(motion, collider, x, q, margin);
        if (space.offset - dot(space.normal, x + q) <= -reach) {
            continue;
        }
        if (near.count == MAX_NEAR_COLLIDERS) {
            near.overflow = true;
            break;
        }
        near.spaces[near.count] = space;
        near.ids[near.count] = id;
        near.count += 1u;
    }
}

// Slot s's collider (SubstepContacts::colliders).
fn slot_collider(contacts: SubstepContacts, s: u32) -> u32 {
    return (contacts.colliders >> (16u * s)) & 0xffffu;
}

// Slots of `contacts` in use (SubstepContacts::count).
fn substep_contact_count(contacts: SubstepContacts) -> u32 {
    var count = 0u;
    for (var s = 0u; s < ITERATION_CONTACTS; s += 1u) {
        if (count == s && slot_collider(contacts, s) != NO_COLLIDER) {
            count += 1u;
        }
    }
    return count;
}

// Adds to `resolved` what each slot took from the motion predicted from x (Contacts::with_pushes
// in src/collision/contacts.rs, the pushes of SubstepContacts::predicted_pushes in
// src/collision/response.rs).
fn add_predicted_pushes(earlier: SubstepContacts, x: vec3<f32>) {
    for (var s = 0u; s < substep_contact_count(earlier); s += 1u) {
        let source = slot_collider(earlier, s);
        let space = earlier.spaces[s];
        let depth = space.w - dot(space.xyz, x + earlier.predicted);
        if (source >= collider_list.count || !(depth > 0.0)) {
            continue;
        }
        var found = MAX_CONTACTS;
        for (var k = 0u; k < resolved.count; k += 1u) {
            if (found == MAX_CONTACTS && resolved.sources[k] == source) {
                found = k;
            }
        }
        if (found < MAX_CONTACTS) {
            resolved.depths[found] += depth;
        } else if (resolved.count < MAX_CONTACTS) {
            contacts_push(HalfSpace(space.xyz, 0.0), 0.0, source);
            resolved.depths[resolved.count - 1u] = depth;
        }
    }
}

// The ITERATION_CONTACTS half-spaces of the colliders near the predicted path (those before
// NO_COLLIDER) that the predicted position violates most (substep_contacts in
// src/collision/response.rs).
fn substep_contacts(x: vec3<f32>, q: vec3<f32>, substep: u32) -> SubstepContacts {
    find_near_colliders(x, q, substep);
    var spaces = array<vec4<f32>, ITERATION_CONTACTS>(vec4<f32>(0.0), vec4<f32>(0.0));
    var ids = array<u32, ITERATION_CONTACTS>(NO_COLLIDER, NO_COLLIDER);
    for (var k = 0u; k < near.count; k += 1u) {
        if (near.ids[k] >= NO_COLLIDER) {
            continue;
        }
        let space = vec4<f32>(near.spaces[k].normal, near.spaces[k].offset);
        let violation = space.w - dot(space.xyz, x + q);
        let beats_first = ids[0] == NO_COLLIDER || violation > spaces[0].w - dot(spaces[0].xyz, x + q);
        let beats_second = ids[1] == NO_COLLIDER || violation > spaces[1].w - dot(spaces[1].xyz, x + q);
        if (beats_first) {
            spaces[1] = spaces[0];
            ids[1] = ids[0];
            spaces[0] = space;
            ids[0] = near.ids[k];
        } else if (beats_second) {
            spaces[1] = space;
            ids[1] = near.ids[k];
        }
    }
    return SubstepContacts(spaces, q, ids[0] | (ids[1] << 16u));
}

// One iteration's contact projection of a free particle (project_substep_contacts in
// src/collision/response.rs): returns the new displacement.
fn project_substep_contacts(x: vec3<f32>, q: vec3<f32>, contacts: SubstepContacts) -> vec3<f32> {
    let count = substep_contact_count(contacts);
    for (var s = 0u; s < count; s += 1u) {
        near.spaces[s] = HalfSpace(contacts.spaces[s].xyz, contacts.spaces[s].w);
    }
    resolve_contacts(x + q, count);
    return q + contacts_displacement(&resolved);
}

// The sources of `resolved` renumbered from the near list to the colliders' list
// (Contacts::renumbered in src/collision/contacts.rs).
fn renumber_resolved() {
    for (var k = 0u; k < resolved.count; k += 1u) {
        resolved.sources[k] = near.ids[resolved.sources[k]];
    }
}

// The active contacts' static friction, their coefficients weighted by push
// (contacts_static_friction in src/collision/response.rs), of the acting contacts.
fn contacts_static_friction() -> f32 {
    var weighted = 0.0;
    var pushes = 0.0;
    var shared_friction = true;
    if (acting.count == 0u) {
        return 0.0;
    }
    let first = collider_list.colliders[acting.sources[0]].material.y;
    for (var k = 0u; k < acting.count; k += 1u) {
        let friction = collider_list.colliders[acting.sources[k]].material.y;
        weighted += friction * acting.depths[k];
        pushes += acting.depths[k];
        shared_friction &= friction == first;
    }
    return select(weighted / max(pushes, DENOMINATOR_EPSILON), first, shared_friction);
}

// Dynamic friction and restitution of a particle in contact (PBD Alg. 1 line 16).
fn contact_velocity(
    v: vec3<f32>, v_before: vec3<f32>, normal: vec3<f32>, depth: f32, h: f32, friction: f32,
    restitution: f32, restitution_threshold: f32,
) -> vec3<f32> {
    let vn = dot(v, normal);
    var vt = v - normal * vn;
    let vt_length = length(vt);
    if (vt_length > GEOMETRY_EPSILON) {
        vt = vt * max(1.0 - friction * depth / (h * vt_length), 0.0);
    } else {
        vt = vec3<f32>(0.0);
    }
    let vn_before = dot(v_before, normal);
    let e = select(0.0, restitution, abs(vn_before) > restitution_threshold);
    return vt + normal * max(-e * vn_before, 0.0);
}

// A free particle's collision response over a substep (Response in src/collision/response.rs).
struct Response {
    q: vec3<f32>,
    v: vec3<f32>,
    overflow: bool,
}

// The collision response of a free particle that started the substep at x, was predicted to move
// by `predicted` (restitution reverses its normal velocity) and moved by q, after
// the iterations projected its substep contacts `earlier` when `iteration_contacts`
// (respond_to_colliders in src/collision/response.rs), against the colliders near it moving
// through substep `substep`.
fn respond_to_colliders(
    x: vec3<f32>, q: vec3<f32>, predicted: vec3<f32>, earlier: SubstepContacts, iteration_contacts: bool, substep: u32,
) -> Response {
    find_near_colliders(x, q, substep);
    resolve_contacts(x + q, near.count);
    renumber_resolved();
    let pushed = q + contacts_displacement(&resolved);
    if (iteration_contacts) {
        add_predicted_pushes(earlier, x);
    }
    acting = resolved;
    var surface = vec3<f32>(0.0);
    for (var k = 0u; k < acting.count; k += 1u) {
        let motion = substep_motion(collider_list.colliders[acting.sources[k]], substep, params.substeps);
        surface += motion_velocity(motion, x + pushed, params.h) * params.h;
    }
    surface = surface / f32(max(acting.count, 1u));
    let stuck = surface + stick(pushed - surface, contacts_static_friction());
    resolve_contacts(x + stuck, near.count);
    let settled = stuck + contacts_displacement(&resolved);
    let approach = predicted / params.h;
    var v = settled / params.h;
    for (var k = 0u; k < acting.count; k += 1u) {
        let collider = collider_list.colliders[acting.sources[k]];
        let motion = substep_motion(collider, substep, params.substeps);
        let carried = motion_velocity(motion, x + settled, params.h);
        v = carried + contact_velocity(
            v - carried, approach - carried, acting.normals[k], acting.depths[k], params.h,
            collider.material.z, collider.material.w, params.restitution_threshold,
        );
    }
    return Response(settled, v, near.overflow);
}

// Whether a free particle at x starts the frame inside a collider at its pose at the frame's
// start (starts_inside in src/collision/response.rs).
fn starts_inside(x: vec3<f32>) -> bool {
    var inside = false;
    for (var id = 0u; id < collider_list.count; id += 1u) {
        let collider = collider_list.colliders[id];
        let margin = collider.material.x;
        let start = Pose(collider.start_translation.xyz, collider.start_rotation);
        let space = moving_half_space(Motion(start, start), collider, x, vec3<f32>(0.0), margin);
        inside = inside || space.offset - dot(space.normal, x) > margin;
    }
    return inside;
}

// The most speed a free particle may end `substep` with in a frame that depenetrates
// (depenetration_speed_limit in src/collision/response.rs).
fn depenetration_speed_limit(start_speed: f32, max_speed: f32, acceleration: f32, h: f32, substep: u32) -> f32 {
    return start_speed + max_speed + acceleration * h * f32(substep + 1u);
}

// v shortened to at most `limit` long (limit_speed in src/collision/response.rs).
fn limit_speed(v: vec3<f32>, limit: f32) -> vec3<f32> {
    let speed = length(v);
    return select(v, v * (limit / speed), speed > limit);
}
