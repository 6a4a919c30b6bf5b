// Jacobi's output: each unit writes its particles' scaled corrections into slots of its own,
// and each particle later sums its slots in a fixed order (no float atomics, deterministic).

// One correction per slot in `corrections` (xyz; w unused). The words of `jacobi_plan`
// (JacobiLayout in src/passes/iterations/buffers.rs): the gather lists (particle_count + 1
// offsets, then slot indices from params.constraints.jacobi_items), then each kind's
// per-constraint shares (f32 bits) from params.constraints.kinds[kind].jacobi_shares, then from
// params.constraints.jacobi_unit_table the unit table (each unit's particles, unit type by unit
// type).

// Writes the correction `dp` of the k-th particle of `unit`.
fn emit(unit: UnitRef, k: u32, dp: vec3<f32>) {
    corrections[unit.slots + k] = vec4<f32>(dp, 0.0);
}

// The share of constraint c of kind `kind` (jacobi_shares in src/constraints.rs).
fn jacobi_share(kind: u32, c: u32) -> f32 {
    return bitcast<f32>(jacobi_plan[params.constraints.kinds[kind].jacobi_shares + c]);
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
