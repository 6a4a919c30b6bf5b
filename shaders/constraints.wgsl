// Constraint projections, mirroring src/math.rs (same names, same argument order).

struct Correction {
    dp0: vec3<f32>,
    dp1: vec3<f32>,
    dp2: vec3<f32>,
    dp3: vec3<f32>,
    dlambda: f32,
    valid: bool,
}

// Distance constraint C = |p0 − p1| − rest (PBD §3.3 eq. 10–11) in the unified PBD/XPBD form
// Δλ = k(−C − α̃λ)/(w0 + w1 + α̃) (XPBD eq. 18). Invalid for a zero-length edge.
fn distance_correction(
    p0: vec3<f32>, p1: vec3<f32>, w0: f32, w1: f32, rest: f32, lambda: f32,
    stretch: vec2<f32>, compression: vec2<f32>,
) -> Correction {
    var out: Correction;
    let delta = p0 - p1;
    let len = length(delta);
    if (len < GEOMETRY_EPSILON) {
        return out;
    }
    let c = len - rest;
    let response = select(compression, stretch, c > 0.0);
    let denominator = w0 + w1 + response.y;
    if (denominator < DENOMINATOR_EPSILON) {
        return out;
    }
    let dlambda = response.x * (-c - response.y * lambda) / denominator;
    let n = delta / len;
    out.dp0 = n * (w0 * dlambda);
    out.dp1 = n * (-w1 * dlambda);
    out.dlambda = dlambda;
    out.valid = true;
    return out;
}

// Dihedral bending constraint C = acos(n1·n2) − rest (PBD §4.1) with the gradients of PBD
// Appendix A, ∇_i C = q_i/√(1 − d²), the factor s = √(1 − d²) = |n1 × n2| multiplied through so
// nothing divides by it (see bending_correction in src/math.rs for the derivation).
fn bending_correction(
    p0: vec3<f32>, p1: vec3<f32>, p2: vec3<f32>, p3: vec3<f32>, w: vec4<f32>, rest: f32,
    lambda: f32, response: vec2<f32>,
) -> Correction {
    var out: Correction;
    let e = p1 - p0;
    let a = p2 - p0;
    let b = p3 - p0;
    let c1 = cross(e, a);
    let c2 = cross(e, b);
    let l1 = length(c1);
    let l2 = length(c2);
    if (l1 < GEOMETRY_EPSILON || l2 < GEOMETRY_EPSILON) {
        return out;
    }
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
    if (denominator < DENOMINATOR_EPSILON) {
        return out;
    }
    let f = response.x * (-c - response.y * lambda) / denominator;
    out.dp0 = q0 * (w.x * s * f);
    out.dp1 = q1 * (w.y * s * f);
    out.dp2 = q2 * (w.z * s * f);
    out.dp3 = q3 * (w.w * s * f);
    out.dlambda = s * s * f;
    out.valid = true;
    return out;
}
