// Bodies hung by ropes from fixed points of the world (src/passes/bodies/ropes.rs).

// A rope (GpuBodyRope in src/passes/bodies/ropes.rs): the point it holds in the body's frame,
// the body, where it is tied in the world and its length.
struct BodyRope {
    point: vec3<f32>,
    body: u32,
    anchor: vec3<f32>,
    length: f32,
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
    let n = reach / distance;
    let r = p - center;
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
