// Jacobi's output: each unit writes its particles' scaled corrections into slots of its own,
// and each particle later sums its slots in a fixed order (no float atomics, deterministic).

// One correction per slot (xyz; w unused).
@group(2) @binding(3) var<storage, read_write> corrections: array<vec4<f32>>;
// Words (src/gpu/buffers.rs `jacobi_words`): the gather lists (particle_count + 1 offsets, then
// slot indices from params.jacobi_bases.z), then each kind's per-constraint shares (f32 bits)
// from params.jacobi_bases.x (stretch) and .y (bending).
@group(2) @binding(4) var<storage, read> jacobi_plan: array<u32>;

// Writes the correction `dp` of the k-th particle of `unit`.
fn emit(unit: UnitRef, k: u32, dp: vec3<f32>) {
    corrections[unit.slots + k] = vec4<f32>(dp, 0.0);
}

// Constraint c's share (JacobiScales in src/constraints/mod.rs) from the kind's list at `base`.
fn jacobi_share(base: u32, c: u32) -> f32 {
    return bitcast<f32>(jacobi_plan[base + c]);
}
