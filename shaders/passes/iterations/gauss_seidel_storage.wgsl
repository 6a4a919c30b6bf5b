// Particle access for projections in place, in storage buffers: the per-colour, in-place striped
// and single-workgroup kernels, and Jacobi (shaders/passes/iterations/units.wgsl describes the interface).

// In place, the projections address their particles by their indices in the unit table.
fn reads_unit_table() -> bool {
    return true;
}

// In place, a particle's address is its index.
fn particle_slot(unit: UnitRef, k: u32, particle: u32) -> Slot {
    return Slot(particle, particle);
}

fn load_particle(slot: Slot) -> Particle {
    let state = velocities[slot.address];
    return Particle(positions[slot.address].xyz, state.xyz, state.w);
}

fn store_particle(slot: Slot, particle: Particle) {
    velocities[slot.address] = vec4<f32>(particle.q, particle.w);
}

// Nothing to copy in place (see shaders/passes/iterations/gauss_seidel_workgroup.wgsl).
fn begin_block(list: vec2<u32>, local_index: u32, workgroup_size: u32) {}

fn end_block(list: vec2<u32>, local_index: u32, workgroup_size: u32) {}

// Orders one colour's writes before the next colour's reads.
fn colour_barrier() {
    storageBarrier();
}
