// Jacobi's output: each unit writes its particles' scaled corrections into slots of its own,
// and each particle later sums its slots in a fixed order (no float atomics, deterministic).

// One correction per slot (xyz; w unused).
@group(2) @binding(2) var<storage, read_write> corrections: array<vec4<f32>>;
// Words (JacobiLayout in src/gpu/records.rs): the gather lists (particle_count + 1 offsets, then
// slot indices from params.jacobi_items), then each kind's per-constraint shares (f32 bits) from
// params.kinds[kind].jacobi_shares, then from params.jacobi_unit_table the unit table (each
// unit's particles, unit type by unit type).
@group(2) @binding(3) var<storage, read> jacobi_plan: array<u32>;

// Writes the correction `dp` of the k-th particle of `unit`.
fn emit(unit: UnitRef, k: u32, dp: vec3<f32>) {
    corrections[unit.slots + k] = vec4<f32>(dp, 0.0);
}

// The share of constraint c of kind `kind` (jacobi_shares in src/constraints.rs).
fn jacobi_share(kind: u32, c: u32) -> f32 {
    return bitcast<f32>(jacobi_plan[params.kinds[kind].jacobi_shares + c]);
}

// The k-th particle of `unit` (Jacobi).
fn jacobi_unit_particle(unit: UnitRef, k: u32) -> u32 {
    return jacobi_plan[unit.particles + k];
}

// The four particles of a four-particle unit (Jacobi).
fn jacobi_unit_particles4(unit: UnitRef) -> vec4<u32> {
    let at = unit.particles;
    return vec4<u32>(jacobi_plan[at], jacobi_plan[at + 1u], jacobi_plan[at + 2u], jacobi_plan[at + 3u]);
}
