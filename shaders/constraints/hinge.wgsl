// The hinge units: bending constraint u, dihedral (the hinge) or isometric (the isometric hinge),
// and the stretch constraint of its edge, stretch constraint u, on one load and one store of
// the four particles (src/constraints/hinge.rs says why the schedule numbers them alike); and
// the bend units, a bending constraint alone, for a cloth with a membrane.
// Written without loops: llvmpipe ends a shader's loops after 65535 iterations in total, so the
// kernels budget theirs and the units add none.

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

// Gauss-Seidel, first step: the edge's stretch constraint on the loaded particles.
fn stretch_hinge_edge(unit: UnitRef, loaded: array<Particle, 4>) -> array<Particle, 4> {
    let edge = stretch_record(unit.index);
    var p = loaded;
    let stretch = stretch_correction(edge, p[0], p[1], multiplier(edge.lambda));
    p[0].q += stretch.dp0;
    p[1].q += stretch.dp1;
    store_stretch_lambda(unit.index, stretch.lambda + stretch.dlambda);
    return p;
}

// Gauss-Seidel, last step: the bending correction `bending` applied and the particles stored.
fn store_bent_hinge(h: HingeParticles, stretched: array<Particle, 4>, bending: BendingCorrection) {
    var p = stretched;
    p[0].q += bending.dp0;
    p[1].q += bending.dp1;
    p[2].q += bending.dp2;
    p[3].q += bending.dp3;
    store_particle(h.slot[0], p[0]);
    store_particle(h.slot[1], p[1]);
    store_particle(h.slot[2], p[2]);
    store_particle(h.slot[3], p[3]);
}

// Gauss-Seidel: the edge's stretch constraint first, then the bending constraint from the moved
// positions, as two Gauss-Seidel steps.
fn project_hinge(unit: UnitRef) {
    let record = bending_record(unit.index);
    let h = load_hinge(unit, unit_particles4(unit));
    let p = stretch_hinge_edge(unit, h.p);
    let lambda = multiplier(record.lambda);
    let bending = bending_correction_of(record, p, lambda);
    store_bent_hinge(h, p, bending);
    store_bending_lambda(unit.index, lambda + bending.dlambda);
}

fn project_isometric_hinge(unit: UnitRef) {
    let record = isometric_record(unit.index);
    let h = load_hinge(unit, unit_particles4(unit));
    let p = stretch_hinge_edge(unit, h.p);
    let lambda = multiplier(record.lambda);
    let bending = isometric_correction_of(record, p, lambda);
    store_bent_hinge(h, p, bending);
    store_isometric_lambda(unit.index, lambda + bending.dlambda);
}

// Jacobi: both constraints from the same positions, each scaled by its own share (the bending
// constraint's of kind `bending_kind`), summed per particle into the unit's slots. Returns the
// bending share.
fn emit_jacobi_hinge(unit: UnitRef, p: array<Particle, 4>, bending: BendingCorrection, bending_kind: u32) -> f32 {
    let edge = stretch_record(unit.index);
    let stretch = stretch_correction(edge, p[0], p[1], multiplier(edge.lambda));
    let stretch_share = params.constraints.relaxation * jacobi_share(KIND_STRETCH, unit.index);
    let bending_share = params.constraints.relaxation * jacobi_share(bending_kind, unit.index);
    emit(unit, 0u, stretch.dp0 * stretch_share + bending.dp0 * bending_share);
    emit(unit, 1u, stretch.dp1 * stretch_share + bending.dp1 * bending_share);
    emit(unit, 2u, bending.dp2 * bending_share);
    emit(unit, 3u, bending.dp3 * bending_share);
    store_stretch_lambda(unit.index, stretch.lambda + stretch.dlambda * stretch_share);
    return bending_share;
}

fn jacobi_hinge(unit: UnitRef) {
    let record = bending_record(unit.index);
    let p = load_hinge(unit, jacobi_unit_particles4(unit)).p;
    let lambda = multiplier(record.lambda);
    let bending = bending_correction_of(record, p, lambda);
    let share = emit_jacobi_hinge(unit, p, bending, KIND_BENDING);
    store_bending_lambda(unit.index, lambda + bending.dlambda * share);
}

fn jacobi_isometric_hinge(unit: UnitRef) {
    let record = isometric_record(unit.index);
    let p = load_hinge(unit, jacobi_unit_particles4(unit)).p;
    let lambda = multiplier(record.lambda);
    let bending = isometric_correction_of(record, p, lambda);
    let share = emit_jacobi_hinge(unit, p, bending, KIND_ISOMETRIC);
    store_isometric_lambda(unit.index, lambda + bending.dlambda * share);
}

// The bend units of a cloth with a membrane: a bending constraint alone, its edge having no
// stretch constraint (project_bend and jacobi_bend in src/constraints/hinge.rs).
fn project_bend(unit: UnitRef) {
    let record = bending_record(unit.index);
    let h = load_hinge(unit, unit_particles4(unit));
    let lambda = multiplier(record.lambda);
    let bending = bending_correction_of(record, h.p, lambda);
    store_bent_hinge(h, h.p, bending);
    store_bending_lambda(unit.index, lambda + bending.dlambda);
}

fn project_isometric_bend(unit: UnitRef) {
    let record = isometric_record(unit.index);
    let h = load_hinge(unit, unit_particles4(unit));
    let lambda = multiplier(record.lambda);
    let bending = isometric_correction_of(record, h.p, lambda);
    store_bent_hinge(h, h.p, bending);
    store_isometric_lambda(unit.index, lambda + bending.dlambda);
}

// Jacobi: the bending correction scaled by the constraint's share (of kind `bending_kind`)
// into the unit's slots. Returns the share.
fn emit_jacobi_bend(unit: UnitRef, bending: BendingCorrection, bending_kind: u32) -> f32 {
    let share = params.constraints.relaxation * jacobi_share(bending_kind, unit.index);
    emit(unit, 0u, bending.dp0 * share);
    emit(unit, 1u, bending.dp1 * share);
    emit(unit, 2u, bending.dp2 * share);
    emit(unit, 3u, bending.dp3 * share);
    return share;
}

fn jacobi_bend(unit: UnitRef) {
    let record = bending_record(unit.index);
    let p = load_hinge(unit, jacobi_unit_particles4(unit)).p;
    let lambda = multiplier(record.lambda);
    let bending = bending_correction_of(record, p, lambda);
    let share = emit_jacobi_bend(unit, bending, KIND_BENDING);
    store_bending_lambda(unit.index, lambda + bending.dlambda * share);
}

fn jacobi_isometric_bend(unit: UnitRef) {
    let record = isometric_record(unit.index);
    let p = load_hinge(unit, jacobi_unit_particles4(unit)).p;
    let lambda = multiplier(record.lambda);
    let bending = isometric_correction_of(record, p, lambda);
    let share = emit_jacobi_bend(unit, bending, KIND_ISOMETRIC);
    store_isometric_lambda(unit.index, lambda + bending.dlambda * share);
}
