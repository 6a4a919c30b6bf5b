// Stretch: a distance constraint per mesh edge (src/constraints/stretch.rs: same names, same
// argument order), and the free-edge unit that projects one on its own.
//
// Branch-free on purpose: SIMD CPU drivers such as llvmpipe run both sides of every branch with
// lanes masked off, and GPUs diverge on them. Guards are selects: where the Rust returns None
// the correction and Δλ are zero.

// One stretch constraint (StretchRecord in src/constraints/stretch.rs, STRETCH_RECORD_WORDS words
// in `constraint_records`); its particles are its unit's.
struct StretchConstraint {
    rest_length: f32,
    // XPBD multiplier of the current substep.
    lambda: f32,
    // How many times stiffer than the kind's response (its material map).
    stiffness_scale: f32,
}

// Constraint c's record, from `constraint_records` (shaders/passes/iterations/units.wgsl).
fn stretch_record(c: u32) -> StretchConstraint {
    let at = record_word(KIND_STRETCH, STRETCH_RECORD_WORDS, c, 0u);
    return StretchConstraint(
        bitcast<f32>(constraint_records[at]),
        bitcast<f32>(constraint_records[at + 1u]),
        stiffness_scale(KIND_STRETCH, at + 2u),
    );
}

// Stores constraint c's multiplier.
fn store_stretch_lambda(c: u32, lambda: f32) {
    constraint_records[record_word(KIND_STRETCH, STRETCH_RECORD_WORDS, c, 1u)] = bitcast<u32>(lambda);
}

struct DistanceCorrection {
    dp0: vec3<f32>,
    dp1: vec3<f32>,
    // The multiplier the correction started from (zero where the stored one belongs to the other
    // regime), and its change.
    lambda: f32,
    dlambda: f32,
}

// Distance constraint C = |p0 − p1| − rest (PBD §3.3 eq. 10–11) in the unified PBD/XPBD form
// Δλ = k(−C − α̃λ)/(w0 + w1 + α̃) (XPBD eq. 18), λ restarting from zero when it was accumulated
// in the other regime. Zero for a zero-length edge.
fn distance_correction(
    p0: vec3<f32>, p1: vec3<f32>, w0: f32, w1: f32, rest: f32, lambda: f32,
    stretch: vec2<f32>, compression: vec2<f32>,
) -> DistanceCorrection {
    let delta = p0 - p1;
    let len = length(delta);
    let c = len - rest;
    let stretched = c > 0.0;
    let response = select(compression, stretch, stretched);
    let start = select(max(lambda, 0.0), min(lambda, 0.0), stretched);
    let denominator = w0 + w1 + response.y;
    let valid = (len >= GEOMETRY_EPSILON) & (denominator >= DENOMINATOR_EPSILON);
    let dlambda = select(0.0, response.x * (-c - response.y * start) / max(denominator, DENOMINATOR_EPSILON), valid);
    let n = delta / max(len, GEOMETRY_EPSILON);
    return DistanceCorrection(n * (w0 * dlambda), n * (-w1 * dlambda), select(lambda, start, valid), dlambda);
}

// Strain limiting (GAMES103 lecture 6): correction k of the edge p0–p1 extended so that the edge
// ends within [limits.x, limits.y]·rest, the PBD projection of the limit on the edge as k leaves
// it; off (k unchanged) where limits.z is 0. The multiplier is the soft constraint's alone.
fn limit_strain(
    k: DistanceCorrection, p0: vec3<f32>, p1: vec3<f32>, w0: f32, w1: f32, rest: f32, limits: vec4<f32>,
) -> DistanceCorrection {
    let delta = (p0 + k.dp0) - (p1 + k.dp1);
    let len = length(delta);
    let limited = min(max(len, limits.x * rest), limits.y * rest);
    let w = w0 + w1;
    let on = (limits.z != 0.0) & (len >= GEOMETRY_EPSILON) & (w >= DENOMINATOR_EPSILON);
    let s = select(0.0, (len - limited) / max(w, DENOMINATOR_EPSILON), on);
    let n = delta / max(len, GEOMETRY_EPSILON);
    return DistanceCorrection(k.dp0 - n * (w0 * s), k.dp1 + n * (w1 * s), k.lambda, k.dlambda);
}

// The correction of particles a and b (a stretch constraint's own, or its hinge's edge) by the
// constraint with `record` from multiplier `lambda`, within the strain limits.
fn stretch_correction(record: StretchConstraint, a: Particle, b: Particle, lambda: f32) -> DistanceCorrection {
    let response = params.constraints.kinds[KIND_STRETCH].response;
    let stretch = scaled_response(response.xy, record.stiffness_scale);
    let compression = scaled_response(response.zw, record.stiffness_scale);
    let p0 = position(a);
    let p1 = position(b);
    let k = distance_correction(p0, p1, a.w, b.w, record.rest_length, lambda, stretch, compression);
    return limit_strain(k, p0, p1, a.w, b.w, record.rest_length, params.constraints.strain_limits);
}

// Gauss-Seidel: free edge `unit` moves its particles at once.
fn project_free_edge(unit: UnitRef) {
    let record = stretch_record(unit.index);
    let slot0 = particle_slot(unit, 0u, unit_particle(unit, 0u));
    let slot1 = particle_slot(unit, 1u, unit_particle(unit, 1u));
    var a = load_particle(slot0);
    var b = load_particle(slot1);
    let lambda = multiplier(record.lambda);
    let k = stretch_correction(record, a, b, lambda);
    a.q += k.dp0;
    b.q += k.dp1;
    store_particle(slot0, a);
    store_particle(slot1, b);
    store_stretch_lambda(unit.index, k.lambda + k.dlambda);
}

// Jacobi: free edge `unit` writes its share of its correction into its slots.
fn jacobi_free_edge(unit: UnitRef) {
    let record = stretch_record(unit.index);
    let a = load_particle(particle_slot(unit, 0u, jacobi_unit_particle(unit, 0u)));
    let b = load_particle(particle_slot(unit, 1u, jacobi_unit_particle(unit, 1u)));
    let lambda = multiplier(record.lambda);
    let k = stretch_correction(record, a, b, lambda);
    let share = params.constraints.relaxation * jacobi_share(KIND_STRETCH, unit.index);
    emit(unit, 0u, k.dp0 * share);
    emit(unit, 1u, k.dp1 * share);
    store_stretch_lambda(unit.index, k.lambda + k.dlambda * share);
}
