// The hinge unit: bending constraint u and the stretch constraint of its edge, stretch constraint
// u, on one load and one store of the four particles (src/constraints/hinge.rs says why the
// schedule numbers them alike). Written without loops: llvmpipe ends a shader's loops after
// 65535 iterations in total, so the kernels budget theirs and the units add none.

// Where hinge `unit`'s particles are, and the particles there.
struct HingeParticles {
    slot: array<Slot, 4>,
    p: array<Particle, 4>,
}

fn load_hinge(unit: UnitRef, particles: vec4<u32>) -> HingeParticles {
    var h: HingeParticles;
    h.slot = array<Slot, 4>(
        particle_slot(unit, 0u, particles[0]),
        particle_slot(unit, 1u, particles[1]),
        particle_slot(unit, 2u, particles[2]),
        particle_slot(unit, 3u, particles[3]),
    );
    h.p = array<Particle, 4>(
        load_particle(h.slot[0]),
        load_particle(h.slot[1]),
        load_particle(h.slot[2]),
        load_particle(h.slot[3]),
    );
    return h;
}

// Gauss-Seidel: the edge's stretch constraint first, then the bending constraint from the moved
// positions, as two Gauss-Seidel steps.
fn project_hinge(unit: UnitRef) {
    let record = bending_record(unit.index);
    let edge = stretch_record(unit.index);
    let h = load_hinge(unit, unit_particles4(unit));
    var p = h.p;
    let edge_lambda = multiplier(edge.lambda);
    let stretch = stretch_correction(edge, p[0], p[1], edge_lambda);
    p[0].q += stretch.dp0;
    p[1].q += stretch.dp1;
    store_stretch_lambda(unit.index, stretch.lambda + stretch.dlambda);
    let lambda = multiplier(record.lambda);
    let bending = bending_correction_of(record, p, lambda);
    p[0].q += bending.dp0;
    p[1].q += bending.dp1;
    p[2].q += bending.dp2;
    p[3].q += bending.dp3;
    store_particle(h.slot[0], p[0]);
    store_particle(h.slot[1], p[1]);
    store_particle(h.slot[2], p[2]);
    store_particle(h.slot[3], p[3]);
    store_bending_lambda(unit.index, lambda + bending.dlambda);
}

// Jacobi: both constraints from the same positions, each scaled by its own share, summed per
// particle into the unit's slots.
fn jacobi_hinge(unit: UnitRef) {
    let record = bending_record(unit.index);
    let edge = stretch_record(unit.index);
    let p = load_hinge(unit, jacobi_unit_particles4(unit)).p;
    let edge_lambda = multiplier(edge.lambda);
    let lambda = multiplier(record.lambda);
    let stretch = stretch_correction(edge, p[0], p[1], edge_lambda);
    let bending = bending_correction_of(record, p, lambda);
    let stretch_share = params.relaxation * jacobi_share(KIND_STRETCH, unit.index);
    let bending_share = params.relaxation * jacobi_share(KIND_BENDING, unit.index);
    emit(unit, 0u, stretch.dp0 * stretch_share + bending.dp0 * bending_share);
    emit(unit, 1u, stretch.dp1 * stretch_share + bending.dp1 * bending_share);
    emit(unit, 2u, bending.dp2 * bending_share);
    emit(unit, 3u, bending.dp3 * bending_share);
    store_stretch_lambda(unit.index, stretch.lambda + stretch.dlambda * stretch_share);
    store_bending_lambda(unit.index, lambda + bending.dlambda * bending_share);
}
