// Particle access for the striped and single-workgroup kernels on a copy of their particles in
// workgroup memory (shaders/passes/iterations/units.wgsl describes the interface). On SIMD CPU drivers a
// workgroup access needs fewer instructions than a storage one (no bounds check per lane); on
// GPUs it stays on chip. This module alone declares the block.

// vec4<f32> the block holds, chosen when the pipelines are built from the particles it must hold
// and the device's max_compute_workgroup_storage_size (BlockSizes in src/passes/plan.rs).
override BLOCK_VECTORS: u32 = 1024u;
// Whether the block holds each particle's position beside its displacement (two vectors per
// particle), or only the displacement (one: the position is read from storage, for stripes too
// wide to hold both).
override POSITIONS_IN_BLOCK: bool = true;
// Set for the single-workgroup kernel: the block holds the whole cloth, particle i in slot i.
// Otherwise it holds a stripe, addressed by the slots the schedule gives each unit.
override WHOLE_CLOTH: bool = false;

// Slot k: with positions, x (xyz) at 2k and q (xyz) with the inverse mass (w) at 2k + 1, as in
// storage; without, q and the inverse mass at k.
var<workgroup> block: array<vec4<f32>, BLOCK_VECTORS>;

// The stripe's particle list in `schedule` (its start), which begin_block sets: a slot's
// particle is its entry.
var<private> stripe_list: u32;

// Whether the projections read their particles' indices from the unit table: only for the
// whole cloth. A stripe's units address their particles by slot, and a slot's particle is in the
// stripe's particle list (the schedule leaves the table out for the striped kernel alone).
fn reads_unit_table() -> bool {
    return WHOLE_CLOTH;
}

// The slot of the unit's k-th particle; its index is read only where the block lacks positions.
fn particle_slot(unit: UnitRef, k: u32, particle: u32) -> Slot {
    if (WHOLE_CLOTH) {
        return Slot(particle, particle);
    }
    let address = (schedule[unit.slots + k / 2u] >> (16u * (k % 2u))) & 0xffffu;
    if (POSITIONS_IN_BLOCK) {
        return Slot(address, 0u);
    }
    return Slot(address, schedule[stripe_list + address]);
}

fn load_particle(slot: Slot) -> Particle {
    if (POSITIONS_IN_BLOCK) {
        let state = block[2u * slot.address + 1u];
        return Particle(block[2u * slot.address].xyz, state.xyz, state.w);
    }
    let state = block[slot.address];
    return Particle(positions[slot.particle].xyz, state.xyz, state.w);
}

fn store_particle(slot: Slot, particle: Particle) {
    block[select(slot.address, 2u * slot.address + 1u, POSITIONS_IN_BLOCK)] = vec4<f32>(particle.q, particle.w);
}

// The block's k-th particle: from the stripe's particle list (start, count), or k itself.
fn block_particle(list: vec2<u32>, k: u32) -> u32 {
    if (WHOLE_CLOTH) {
        return k;
    }
    return schedule[list.x + k];
}

// Copies the block's particles in; `list` is the stripe's particle list (or, whole cloth, its
// count in y).
fn begin_block(list: vec2<u32>, local_index: u32, workgroup_size: u32) {
    stripe_list = list.x;
    for (var k = local_index; k < list.y; k += workgroup_size) {
        let i = block_particle(list, k);
        if (POSITIONS_IN_BLOCK) {
            block[2u * k] = positions[i];
        }
        block[select(k, 2u * k + 1u, POSITIONS_IN_BLOCK)] = velocities[i];
    }
    workgroupBarrier();
}

// Copies the displacements back (after the last colour's barrier).
fn end_block(list: vec2<u32>, local_index: u32, workgroup_size: u32) {
    for (var k = local_index; k < list.y; k += workgroup_size) {
        velocities[block_particle(list, k)] = block[select(k, 2u * k + 1u, POSITIONS_IN_BLOCK)];
    }
}

fn colour_barrier() {
    workgroupBarrier();
}
