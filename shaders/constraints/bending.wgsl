// Dihedral bending: a constraint per interior edge on the angle between its two triangles
// (src/constraints/bending.rs: same names, same argument order). Branch-free like stretch.wgsl.

// One bending constraint (BendingRecord in src/constraints/bending.rs, BENDING_RECORD_WORDS words
// in `constraint_records`); its particles, the shared edge's then the two wings, are its unit's.
struct BendingConstraint {
    rest_angle: f32,
    // XPBD multiplier of the current substep.
    lambda: f32,
    // How many times stiffer than the kind's response (its material map).
    stiffness_scale: f32,
}

// Constraint c's record, from `constraint_records` (shaders/passes/iterations/units.wgsl).
fn bending_record(c: u32) -> BendingConstraint {
    let at = record_word(KIND_BENDING, BENDING_RECORD_WORDS, c, 0u);
    return BendingConstraint(
        bitcast<f32>(constraint_records[at]),
        bitcast<f32>(constraint_records[at + 1u]),
        stiffness_scale(KIND_BENDING, at + 2u),
    );
}

// Stores constraint c's multiplier.
fn store_bending_lambda(c: u32, lambda: f32) {
    constraint_records[record_word(KIND_BENDING, BENDING_RECORD_WORDS, c, 1u)] = bitcast<u32>(lambda);
}

struct BendingCorrection {
    dp0: vec3<f32>,
    dp1: vec3<f32>,
    dp2: vec3<f32>,
    dp3: vec3<f32>,
    dlambda: f32,
}

// The signed dihedral angle of the hinge (p0, p1; p2, p3), θ = atan2((n_A × n_B)·ê, n_A·n_B),
// and its exact gradients (Bridson et al. 2003; src/constraints/bending.rs `dihedral` gives the
// formulas); `shaped` is false for a degenerate edge or triangle, whose values are then finite
// but meaningless.
struct Dihedral {
    angle: f32,
    g0: vec3<f32>,
    g1: vec3<f32>,
    g2: vec3<f32>,
    g3: vec3<f32>,
    shaped: bool,
}

fn dihedral(p0: vec3<f32>, p1: vec3<f32>, p2: vec3<f32>, p3: vec3<f32>) -> Dihedral {
    let e = p1 - p0;
    let a = p2 - p0;
    let b = p3 - p0;
    let normal_a = cross(e, a);
    let normal_b = cross(b, e);
    let edge_length = length(e);
    let area_a = dot(normal_a, normal_a);
    let area_b = dot(normal_b, normal_b);
    let degenerate = GEOMETRY_EPSILON * GEOMETRY_EPSILON;
    let shaped = (edge_length >= GEOMETRY_EPSILON) & (area_a >= degenerate) & (area_b >= degenerate);
    let safe_length = max(edge_length, GEOMETRY_EPSILON);
    let angle = atan2_portable(dot(cross(normal_a, normal_b), e) / safe_length, dot(normal_a, normal_b));
    let wing_a = normal_a * (-safe_length / max(area_a, degenerate));
    let wing_b = normal_b * (-safe_length / max(area_b, degenerate));
    let edge_squared = safe_length * safe_length;
    let t_a = dot(a, e) / edge_squared;
    let t_b = dot(b, e) / edge_squared;
    let g0 = -(wing_a * (1.0 - t_a)) - wing_b * (1.0 - t_b);
    let g1 = -(wing_a * t_a) - wing_b * t_b;
    return Dihedral(angle, g0, g1, wing_a, wing_b, shaped);
}

// `angle − rest` wrapped into [−π, π] and bounded by MAX_BENDING_STEP (generated from its twin;
// src/constraints/bending.rs `angle_error` and MAX_BENDING_STEP).
fn bounded_angle_error(angle: f32, rest: f32) -> f32 {
    var c = angle - rest;
    c = select(c, c - TAU, c > PI);
    c = select(c, c + TAU, c < -PI);
    return clamp(c, -MAX_BENDING_STEP, MAX_BENDING_STEP);
}

// Bending constraint C = θ − rest on the signed dihedral angle θ (`dihedral`), C wrapped and
// bounded by `bounded_angle_error`. Zero for a degenerate hinge or when no particle can move.
fn bending_correction(
    p0: vec3<f32>, p1: vec3<f32>, p2: vec3<f32>, p3: vec3<f32>, w: vec4<f32>, rest: f32,
    lambda: f32, response: vec2<f32>,
) -> BendingCorrection {
    let hinge = dihedral(p0, p1, p2, p3);
    let g0 = hinge.g0;
    let g1 = hinge.g1;
    let wing_a = hinge.g2;
    let wing_b = hinge.g3;
    let weighted = w.x * dot(g0, g0) + w.y * dot(g1, g1) + w.z * dot(wing_a, wing_a) + w.w * dot(wing_b, wing_b);
    let denominator = weighted + response.y;
    let valid = hinge.shaped & (denominator >= DENOMINATOR_EPSILON);
    let c = bounded_angle_error(hinge.angle, rest);
    let dlambda = select(0.0, response.x * (-c - response.y * lambda) / max(denominator, DENOMINATOR_EPSILON), valid);
    return BendingCorrection(
        g0 * (w.x * dlambda),
        g1 * (w.y * dlambda),
        wing_a * (w.z * dlambda),
        wing_b * (w.w * dlambda),
        dlambda,
    );
}

// The correction of a bending constraint with `record` on its four particles from multiplier
// `lambda`.
fn bending_correction_of(record: BendingConstraint, p: array<Particle, 4>, lambda: f32) -> BendingCorrection {
    let w = vec4<f32>(p[0].w, p[1].w, p[2].w, p[3].w);
    return bending_correction(
        position(p[0]), position(p[1]), position(p[2]), position(p[3]), w, record.rest_angle, lambda,
        scaled_response(params.constraints.kinds[KIND_BENDING].response.xy, record.stiffness_scale),
    );
}
