// Bodies hung by ropes from fixed points of the world (src/passes/bodies/ropes.rs).

// A rope (GpuBodyRope in src/passes/bodies/ropes.rs): the point it holds in the body's frame,
// the body, where it is tied in the world and its length.
struct BodyRope {
    point: vec3<f32>,
    body: u32,
    anchor: vec3<f32>,
    length: f32,
}

// joint_impulse: the impulse at arm r that moves the body's point by -gap.
fn joint_impulse(body: Body, r: vec3<f32>, gap: vec3<f32>) -> vec3<f32> {
    let rotation = body_rotation(body);
    let mass = 1.0 / body.inverse_mass;
    let k0 = vec3<f32>(1.0, 0.0, 0.0) - cross(r, inverse_inertia_times(body, rotation, cross(r, vec3<f32>(1.0, 0.0, 0.0)))) * mass;
    let k1 = vec3<f32>(0.0, 1.0, 0.0) - cross(r, inverse_inertia_times(body, rotation, cross(r, vec3<f32>(0.0, 1.0, 0.0)))) * mass;
    let k2 = vec3<f32>(0.0, 0.0, 1.0) - cross(r, inverse_inertia_times(body, rotation, cross(r, vec3<f32>(0.0, 0.0, 1.0)))) * mass;
    let c0 = cross(k1, k2);
    let c1 = cross(k2, k0);
    let c2 = cross(k0, k1);
    let determinant = dot(k0, c0);
    if (!(determinant > 0.0)) {
        return vec3<f32>(0.0);
    }
    return -vec3<f32>(dot(c0, gap), dot(c1, gap), dot(c2, gap)) * (mass / determinant);
}

// hold_by_rope: a taut rope pulls the body's point back to its length.
fn hold_by_rope(body: ptr<function, Body>, rope: BodyRope) {
    let center = body_center(*body);
    let p = rotate(body_rotation(*body), rope.point) + center;
    let reach = p - rope.anchor;
    let distance = length(reach);
    let stretch = distance - rope.length;
    if (distance <= GEOMETRY_EPSILON || stretch <= 0.0) {
        return;
    }
    let r = p - center;
    if (rope.length == 0.0) {
        apply_impulse(body, joint_impulse(*body, r, reach), r);
        return;
    }
    let n = reach / distance;
    let lambda = stretch / max(inverse_mass_at(*body, r, n), DENOMINATOR_EPSILON);
    apply_impulse(body, -n * lambda, r);
}

// hold_by_ropes: every rope in order.
fn hold_by_ropes() {
    for (var k = 0u; k < params.bodies.ropes; k += 1u) {
        let rope = body_ropes[k];
        var body = bodies[rope.body];
        hold_by_rope(&body, rope);
        bodies[rope.body] = body;
    }
}
