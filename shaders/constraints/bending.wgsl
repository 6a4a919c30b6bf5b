// Dihedral bending: a constraint per interior edge on the angle between its two triangles
// (src/constraints/bending.rs: same names, same argument order). Branch-free like stretch.wgsl.

// One bending constraint (BendingRecord in src/constraints/bending.rs).
struct BendingConstraint {
    // The shared edge's particles, then the two wings.
    particles: array<u32, 4>,
    rest_angle: f32,
    // XPBD multiplier of the current substep.
    lambda: f32,
}

@group(2) @binding(1) var<storage, read_write> bending_constraints: array<BendingConstraint>;

struct BendingCorrection {
    dp0: vec3<f32>,
    dp1: vec3<f32>,
    dp2: vec3<f32>,
    dp3: vec3<f32>,
    dlambda: f32,
}

// Dihedral bending constraint C = acos(n1·n2) − rest (PBD §4.1) with the gradients of PBD
// Appendix A, ∇_i C = q_i/√(1 − d²), the factor s = √(1 − d²) = |n1 × n2| multiplied through so
// nothing divides by it (see bending_correction in src/constraints/bending.rs). Zero for a
// collinear triangle or when no particle can move.
fn bending_correction(
    p0: vec3<f32>, p1: vec3<f32>, p2: vec3<f32>, p3: vec3<f32>, w: vec4<f32>, rest: f32,
    lambda: f32, response: vec2<f32>,
) -> BendingCorrection {
    let e = p1 - p0;
    let a = p2 - p0;
    let b = p3 - p0;
    let c1 = cross(e, a);
    let c2 = cross(e, b);
    let length1 = length(c1);
    let length2 = length(c2);
    let l1 = max(length1, GEOMETRY_EPSILON);
    let l2 = max(length2, GEOMETRY_EPSILON);
    let n1 = c1 / l1;
    let n2 = c2 / l2;
    let d = clamp(dot(n1, n2), -1.0, 1.0);
    let s = length(cross(n1, n2));
    let c = atan2(s, d) - rest;

    let q2 = (cross(e, n2) + cross(n1, e) * d) / l1;
    let q3 = (cross(e, n1) + cross(n2, e) * d) / l2;
    let q1 = -(cross(a, n2) + cross(n1, a) * d) / l1 - (cross(b, n1) + cross(n2, b) * d) / l2;
    let q0 = -q1 - q2 - q3;

    let weighted = w.x * dot(q0, q0) + w.y * dot(q1, q1) + w.z * dot(q2, q2) + w.w * dot(q3, q3);
    let denominator = weighted + response.y * s * s;
    let valid = (length1 >= GEOMETRY_EPSILON) & (length2 >= GEOMETRY_EPSILON) & (denominator >= DENOMINATOR_EPSILON);
    let f = select(0.0, response.x * (-c - response.y * lambda) / max(denominator, DENOMINATOR_EPSILON), valid);
    let zero = vec3<f32>(0.0);
    return BendingCorrection(
        select(zero, q0 * (w.x * s * f), valid),
        select(zero, q1 * (w.y * s * f), valid),
        select(zero, q2 * (w.z * s * f), valid),
        select(zero, q3 * (w.w * s * f), valid),
        s * s * f,
    );
}

// Bending constraint c's correction of its four particles from multiplier `lambda`.
fn bending_correction_of(c: u32, p: array<Particle, 4>, lambda: f32) -> BendingCorrection {
    let w = vec4<f32>(p[0].w, p[1].w, p[2].w, p[3].w);
    return bending_correction(
        position(p[0]), position(p[1]), position(p[2]), position(p[3]), w, bending_constraints[c].rest_angle,
        lambda, params.bending,
    );
}
