// What every unit projection sees, whatever the mode: a particle loaded for projection and a
// reference to the unit. Each projection module supplies the loads and stores
// (shaders/passes/iterations/gauss_seidel_storage.wgsl, shaders/passes/iterations/gauss_seidel_workgroup.wgsl) and Jacobi's output
// (shaders/passes/iterations/jacobi_slots.wgsl); the kinds' files (shaders/constraints/) use only these.

// A particle as projections see it: its position x at the start of the substep, its
// displacement q = p − x so far, and its inverse mass w. Corrections accumulate in q.
struct Particle {
    x: vec3<f32>,
    q: vec3<f32>,
    w: f32,
}

// The predicted position p = x + q.
fn position(particle: Particle) -> vec3<f32> {
    return particle.x + particle.q;
}

// Where a particle is: `particle`, its index, and `address`, its place in the module's particle
// store (the index itself, or a workgroup slot).
struct Slot {
    address: u32,
    particle: u32,
}

// One unit: its index in its unit type's index space; `slots`: Gauss-Seidel in workgroup
// memory, the word of `schedule` where its particles' packed workgroup slots start, Jacobi, its
// first correction slot; `particles`: the word where its particles start in the unit table of
// the module's buffer (unit_particle in shaders/passes/iterations/schedule.wgsl, jacobi_unit_particle in
// shaders/passes/iterations/jacobi_slots.wgsl).
struct UnitRef {
    index: u32,
    slots: u32,
    particles: u32,
}

// The bindings (group 1: the particles, group 2: constraint_records, schedule, corrections and
// jacobi_plan), the projections' block of the frame's parameters (params.constraints) and
// MAX_UNIT_TYPES, MAX_KINDS and the kinds' KIND_<NAME> and <NAME>_RECORD_WORDS are generated
// from src/passes/iterations.rs. Each kind's file reads and
// writes its own records in constraint_records through record_word.

// What the kernels read of one constraint kind (GpuKind in src/passes/iterations.rs), at its id
// KIND_<NAME> in params.constraints.kinds.
struct KindParams {
    // [k, α̃] of its constraints (XPBD eq. 18; PBD k' of §3.3 with α̃ = 0), then a second pair
    // where the kind has one (stretch: xy stretched, zw compressed); zero for the membrane and
    // the curvature, whose responses are their materials' (ConstraintParams).
    response: vec4<f32>,
    // Where its records start in `constraint_records`.
    records: u32,
    // Where its Jacobi shares start in `jacobi_plan` (shaders/passes/iterations/jacobi_slots.wgsl).
    jacobi_shares: u32,
    // 1 when some constraint of the kind has a stiffness scale other than 1 (a material map) or
    // a material other than the first.
    mapped: u32,
    // Pads the uniform array stride to 32 bytes.
    _pad0: u32,
}

// What the projections read (GpuConstraintParams in src/passes/iterations.rs).
struct ConstraintParams {
    // Per unit type (its id): x = first unit, y = unit count, z = first Jacobi slot, w = where
    // its units' particles start in the unit table.
    unit_types: array<vec4<u32>, MAX_UNIT_TYPES>,
    kinds: array<KindParams, MAX_KINDS>,
    // Each material's [k, α̃/E_warp, α̃/E_weft, α̃/E_shear] per area (the membrane's) and
    // [k, α̃/B_warp, α̃/B_weft, α̃/B_twist] (the curvature's): a cloth has one material, cloths
    // of several fabrics joined one each.
    membrane_materials: array<vec4<f32>, MAX_MATERIALS>,
    curvature_materials: array<vec4<f32>, MAX_MATERIALS>,
    // Strain limits of the stretch constraints: [σ_min, σ_max] ratios of the rest length, then
    // 1 when on, 0 when off (shaders/constraints/stretch.wgsl limit_strain); w unused.
    strain_limits: vec4<f32>,
    // Jacobi over-relaxation ω.
    relaxation: f32,
    // Colours in the schedule's colour table.
    colour_count: u32,
    // Where the unit table starts in `schedule`.
    unit_table: u32,
    // Where the gather lists' slot indices and the unit table start in `jacobi_plan`.
    jacobi_items: u32,
    jacobi_unit_table: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// Stores three multipliers of constraint c of `kind` (records of `words` words) from its word
// `at` on: the membrane's and the curvature's.
fn store_three_multipliers(kind: u32, words: u32, c: u32, at: u32, lambdas: vec3<f32>) {
    let first = record_word(kind, words, c, at);
    constraint_records[first] = bitcast<u32>(lambdas.x);
    constraint_records[first + 1u] = bitcast<u32>(lambdas.y);
    constraint_records[first + 2u] = bitcast<u32>(lambdas.z);
}

// Where word k of constraint c's record of kind `kind` (records `words` words long) is.
fn record_word(kind: u32, words: u32, c: u32, k: u32) -> u32 {
    return params.constraints.kinds[kind].records + c * words + k;
}

// A response [k, α̃] for a constraint `scale` times as stiff (scaled_response in
// src/constraints.rs): XPBD α̃/scale (at most the largest f32), PBD and hard constraints
// 1 − (1 − k)^scale; exactly the response at scale 1.

fn scaled_response(response: vec2<f32>, scale: f32) -> vec2<f32> {
    // Without a map every scale is 1: skip the arithmetic (the same result).
    if (scale == 1.0) {
        return response;
    }
    if (response.y > 0.0) {
        return vec2<f32>(response.x, min(response.y / scale, F32_MAX));
    }
    return vec2<f32>(repeated_factor(response.x, scale), 0.0);
}

// scaled_response of a compliance [1, α̃] (the membrane's and the curvature's responses):
// [1, α̃/scale], at most the largest f32, without the PBD branch and its log and exp
// (scaled_compliance in src/constraints.rs).
fn scaled_compliance(response: vec2<f32>, scale: f32) -> vec2<f32> {
    let finite = response.y < F32_MAX * scale;
    return vec2<f32>(response.x, select(F32_MAX, response.y / select(1.0, scale, finite), finite));
}

// 1 − (1 − k)^s, each of ln(1 − k) and 1 − eˣ by its series where f32 would round it away
// (repeated_factor in src/constraints.rs).
fn repeated_factor(k: f32, s: f32) -> f32 {
    if (k >= 1.0) {
        return 1.0;
    }
    if (k <= 0.0) {
        return 0.0;
    }
    var log_kept = log(1.0 - k);
    if (k < 1e-2) {
        log_kept = -k * (1.0 + k * (0.5 + k * (1.0 / 3.0 + k * 0.25)));
    }
    let x = s * log_kept;
    var removed = 1.0 - exp(x);
    if (x > -1e-2) {
        removed = -x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x / 24.0)));
    }
    return clamp(removed, 0.0, 1.0);
}

// Word `k` of a record holding a constraint's stiffness scale, or 1 when its kind has no
// material map: a uniform branch, so a cloth without maps neither loads nor uses the word
// (loading it always cost about 9 % of a 64², 10 × 10 frame on llvmpipe).
fn stiffness_scale(kind: u32, at: u32) -> f32 {
    if (params.constraints.kinds[kind].mapped == 0u) {
        return 1.0;
    }
    return bitcast<f32>(constraint_records[at]);
}

// Word `k` of a record holding a constraint's material (the membrane's and the curvature's),
// or 0 where its kind has one material and no map: read as the scale is.
fn material(kind: u32, at: u32) -> u32 {
    if (params.constraints.kinds[kind].mapped == 0u) {
        return 0u;
    }
    return min(constraint_records[at], MAX_MATERIALS - 1u);
}

// Set by the projection kernels: whether this is the first iteration of the substep, where
// every XPBD multiplier starts from zero.
var<private> reset_multipliers: bool;

// A stored multiplier as this iteration starts from it.
fn multiplier(stored: f32) -> f32 {
    return select(stored, 0.0, reset_multipliers);
}
