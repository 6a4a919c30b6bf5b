// Isometric bending: a constraint per interior edge on the hinge's mean-curvature vector
// Σ W_i p_i (src/constraints/isometric.rs: same names, same argument order; the module says
// where the weights come from and when this model fits). Branch-free like stretch.wgsl.

// One isometric bending constraint (IsometricRecord in src/constraints/isometric.rs,
// ISOMETRIC_RECORD_WORDS words in `constraint_records`); its particles, the shared edge's then
// the two wings, are its unit's.
struct IsometricConstraint {
    weights: array<f32, 4>,
    // XPBD multiplier of the current substep.
    lambda: f32,
    // How many times stiffer than the kind's response (its material map).
    stiffness_scale: f32,
}

// Constraint c's record, from `constraint_records` (shaders/passes/iterations/units.wgsl).
fn isometric_record(c: u32) -> IsometricConstraint {
    let at = record_word(KIND_ISOMETRIC, ISOMETRIC_RECORD_WORDS, c, 0u);
    return IsometricConstraint(
        array<f32, 4>(
            bitcast<f32>(constraint_records[at]),
            bitcast<f32>(constraint_records[at + 1u]),
            bitcast<f32>(constraint_records[at + 2u]),
            bitcast<f32>(constraint_records[at + 3u]),
        ),
        bitcast<f32>(constraint_records[at + 4u]),
        stiffness_scale(KIND_ISOMETRIC, at + 5u),
    );
}

// Stores constraint c's multiplier.
fn store_isometric_lambda(c: u32, lambda: f32) {
    constraint_records[record_word(KIND_ISOMETRIC, ISOMETRIC_RECORD_WORDS, c, 4u)] = bitcast<u32>(lambda);
}

// Σ W_i p_i: zero when the hinge is flat.
fn curvature_vector(p0: vec3<f32>, p1: vec3<f32>, p2: vec3<f32>, p3: vec3<f32>, weights: vec4<f32>) -> vec3<f32> {
    return p0 * weights.x + p1 * weights.y + p2 * weights.z + p3 * weights.w;
}

// C = |v|, v = Σ W_i p_i, with Δλ = k(−C − α̃λ)/(Σ w_i W_i² + α̃) and Δp_i = w_i W_i v̂ Δλ. Zero
// for a flat hinge or when no particle can move.
fn isometric_correction(
    p0: vec3<f32>, p1: vec3<f32>, p2: vec3<f32>, p3: vec3<f32>, w: vec4<f32>, weights: vec4<f32>,
    lambda: f32, response: vec2<f32>,
) -> BendingCorrection {
    let v = curvature_vector(p0, p1, p2, p3, weights);
    let c = length(v);
    let weighted = w.x * weights.x * weights.x + w.y * weights.y * weights.y + w.z * weights.z * weights.z
        + w.w * weights.w * weights.w;
    let denominator = weighted + response.y;
    let valid = (c > 0.0) & (denominator >= DENOMINATOR_EPSILON);
    let dlambda = select(0.0, response.x * (-c - response.y * lambda) / max(denominator, DENOMINATOR_EPSILON), valid);
    let direction = select(vec3<f32>(0.0), v / c, valid);
    return BendingCorrection(
        direction * (w.x * weights.x * dlambda),
        direction * (w.y * weights.y * dlambda),
        direction * (w.z * weights.z * dlambda),
        direction * (w.w * weights.w * dlambda),
        dlambda,
    );
}

// The correction of an isometric constraint with `record` on its four particles from multiplier
// `lambda`.
fn isometric_correction_of(record: IsometricConstraint, p: array<Particle, 4>, lambda: f32) -> BendingCorrection {
    let w = vec4<f32>(p[0].w, p[1].w, p[2].w, p[3].w);
    let weights = vec4<f32>(record.weights[0], record.weights[1], record.weights[2], record.weights[3]);
    return isometric_correction(
        position(p[0]), position(p[1]), position(p[2]), position(p[3]), w, weights, lambda,
        scaled_response(params.constraints.kinds[KIND_ISOMETRIC].response.xy, record.stiffness_scale),
    );
}
