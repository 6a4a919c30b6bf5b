// Constraint projections, mirroring src/math.rs (same names, same argument order).

// Branch-free on purpose: SIMD CPU drivers such as llvmpipe run both sides of every branch
// with lanes masked off (a skipped `if` costs as much as a taken one), and GPUs diverge on them.
// Guards are selects: where src/math.rs returns None the correction and Δλ are zero.

struct Correction {
    dp0: vec3<f32>,
    dp1: vec3<f32>,
    dp2: vec3<f32>,
    dp3: vec3<f32>,
    dlambda: f32,
}

// Distance constraint C = |p0 − p1| − rest (PBD §3.3 eq. 10–11) in the unified PBD/XPBD form
// Δλ = k(−C − α̃λ)/(w0 + w1 + α̃) (XPBD eq. 18). Zero for a zero-length edge.
fn distance_correction(
    p0: vec3<f32>, p1: vec3<f32>, w0: f32, w1: f32, rest: f32, lambda: f32,
    stretch: vec2<f32>, compression: vec2<f32>,
) -> Correction {
    let delta = p0 - p1;
    let len = length(delta);
    let c = len - rest;
    let response = select(compression, stretch, c > 0.0);
    let denominator = w0 + w1 + response.y;
    let valid = (len >= GEOMETRY_EPSILON) & (denominator >= DENOMINATOR_EPSILON);
    let dlambda = select(0.0, response.x * (-c - response.y * lambda) / max(denominator, DENOMINATOR_EPSILON), valid);
    let n = delta / max(len, GEOMETRY_EPSILON);
    return Correction(n * (w0 * dlambda), n * (-w1 * dlambda), vec3<f32>(0.0), vec3<f32>(0.0), dlambda);
}

// Dihedral bending constraint C = acos(n1·n2) − rest (PBD §4.1) with the gradients of PBD
// Appendix A, ∇_i C = q_i/√(1 − d²), the factor s = √(1 − d²) = |n1 × n2| multiplied through so
// nothing divides by it (see bending_correction in src/math.rs for the derivation). Zero for a
// collinear triangle or when no particle can move.
fn bending_correction(
    p0: vec3<f32>, p1: vec3<f32>, p2: vec3<f32>, p3: vec3<f32>, w: vec4<f32>, rest: f32,
    lambda: f32, response: vec2<f32>,
) -> Correction {
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
    return Correction(
        select(zero, q0 * (w.x * s * f), valid),
        select(zero, q1 * (w.y * s * f), valid),
        select(zero, q2 * (w.z * s * f), valid),
        select(zero, q3 * (w.w * s * f), valid),
        s * s * f,
    );
}
