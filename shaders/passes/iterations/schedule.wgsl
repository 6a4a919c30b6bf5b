// The Gauss-Seidel schedule as the projection kernels read it (`schedule`, whose words
// src/passes/iterations/buffers.rs `schedule_words` lays out): the colour table, each phase's stripe entries, the stripes' particle lists
// and, when the stripes fit workgroup memory, each unit's packed workgroup slots.

// Words: colour c's entry at 4c: [unit type, first unit, unit count, first slot word]; then the
// stripe entries [particle list start, particle count, then (first unit, count) per colour of
// the phase]; then the particle lists; then the slots (two 16-bit slots per word, low first);
// then, from params.constraints.unit_table, the unit table (where a kernel of the plan reads it):
// each unit's particles, unit type by unit type.

// Colour c's entry: x = unit type, y = first unit, z = unit count, w = first slot word.
fn colour_entry(c: u32) -> vec4<u32> {
    return vec4<u32>(schedule[4u * c], schedule[4u * c + 1u], schedule[4u * c + 2u], schedule[4u * c + 3u]);
}

// Words i and i + 1 of `schedule`: a (start, count) pair.
fn list_pair(i: u32) -> vec2<u32> {
    return vec2<u32>(schedule[i], schedule[i + 1u]);
}

// The k-th particle of `unit` (Gauss-Seidel); 0 where the module does not read the table
// (reads_unit_table in its particle access module).
fn unit_particle(unit: UnitRef, k: u32) -> u32 {
    if (!reads_unit_table()) {
        return 0u;
    }
    return schedule[unit.particles + k];
}

// The four particles of a four-particle unit (Gauss-Seidel), as unit_particle.
fn unit_particles4(unit: UnitRef) -> vec4<u32> {
    if (!reads_unit_table()) {
        return vec4<u32>(0u);
    }
    let at = unit.particles;
    return vec4<u32>(schedule[at], schedule[at + 1u], schedule[at + 2u], schedule[at + 3u]);
}
