// Collision constraints and the contact velocity response, mirroring src/collision.rs (same
// names, same argument order).

struct Contact {
    normal: vec3<f32>,
    depth: f32,
}

// A contact, if any: the projected position is p + normal·depth.
struct Hit {
    contact: Contact,
    hit: bool,
}

// Half-space n·p ≥ offset + margin (PBD §3.4, C(p) = n·p − d ≥ 0).
fn collide_plane(p: vec3<f32>, normal: vec3<f32>, offset: f32, margin: f32) -> Hit {
    var out: Hit;
    let c = dot(normal, p) - offset - margin;
    if (c < 0.0) {
        out.contact = Contact(normal, -c);
        out.hit = true;
    }
    return out;
}

// Sphere grown by margin (PBD §3.4): continuous entry point of the segment x → p when x starts
// outside, the closest surface point otherwise; then C = (p − q)·n ≥ 0.
fn collide_sphere(x: vec3<f32>, p: vec3<f32>, center: vec3<f32>, radius: f32, margin: f32) -> Hit {
    var out: Hit;
    let r = radius + margin;
    let rel_p = p - center;
    if (dot(rel_p, rel_p) >= r * r) {
        return out;
    }
    let rel_x = x - center;
    let d = p - x;
    let travel = length(d);
    var q: vec3<f32>;
    var normal: vec3<f32>;
    if (dot(rel_x, rel_x) >= r * r && travel > GEOMETRY_EPSILON) {
        // Entry point from the perpendicular offset of the ray (no discriminant cancellation).
        let dir = d / travel;
        let closest = -dot(rel_x, dir);
        let offset = rel_x + dir * closest;
        let half_chord = sqrt(max(r * r - dot(offset, offset), 0.0));
        q = x + dir * clamp(closest - half_chord, 0.0, travel);
        normal = (q - center) / r;
    } else {
        let len = length(rel_p);
        normal = select(vec3<f32>(0.0, 1.0, 0.0), rel_p / len, len > GEOMETRY_EPSILON);
        q = center + normal * r;
    }
    let c = dot(p - q, normal);
    if (c < 0.0) {
        out.contact = Contact(normal, -c);
        out.hit = true;
    }
    return out;
}

// The contact of a particle moving from x to p with a collider grown by margin
// (Collider::contact in src/collision.rs).
fn collide(collider: Collider, x: vec3<f32>, p: vec3<f32>, margin: f32) -> Hit {
    if (collider.kind == COLLIDER_PLANE) {
        return collide_plane(p, collider.shape.xyz, collider.shape.w, margin);
    }
    return collide_sphere(x, p, collider.shape.xyz, collider.shape.w, margin);
}

// Dynamic friction and restitution of a particle in contact (PBD Alg. 1 line 16).
fn contact_velocity(
    v: vec3<f32>, v_before: vec3<f32>, contact: Contact, h: f32, friction: f32,
    restitution: f32, restitution_threshold: f32,
) -> vec3<f32> {
    let n = contact.normal;
    let vn = dot(v, n);
    var vt = v - n * vn;
    let vt_length = length(vt);
    if (vt_length > GEOMETRY_EPSILON) {
        vt = vt * max(1.0 - friction * contact.depth / (h * vt_length), 0.0);
    } else {
        vt = vec3<f32>(0.0);
    }
    let vn_before = dot(v_before, n);
    let e = select(0.0, restitution, abs(vn_before) > restitution_threshold);
    return vt + n * max(-e * vn_before, 0.0);
}
