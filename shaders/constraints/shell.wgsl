// The shell unit: membrane constraint u and curvature constraint u, on the same triangle, on
// one load and one store of the curvature's six particles (src/constraints/shell.rs says why
// the schedule numbers them alike).

// Far place k after the membrane moved the triangle: the triangle's own vertex, moved, where
// the place holds one (a boundary edge's far vertex), else as loaded (the membrane moves only
// a particle's displacement).
fn far_after_membrane(loaded: Particle, own: array<Particle, 3>, aliases: u32, k: u32) -> Particle {
    let first = curvature_alias(aliases, k);
    var far = loaded;
    far.q = select(far.q, own[0].q, first == 0u);
    far.q = select(far.q, own[1].q, first == 1u);
    far.q = select(far.q, own[2].q, first == 2u);
    return far;
}

// The membrane's rest state from the curvature's record, whose rest shape is the membrane's
// (shell::pairs_up checks it), so that the shell reads of the membrane's record only its
// multipliers (and its scale and material where a constraint's differ from 1 and 0).
fn shell_membrane_rest(unit: UnitRef, curvature: CurvatureConstraint) -> MembraneRest {
    return membrane_rest(curvature.frame, membrane_stiffness_scale(unit.index), membrane_material(unit.index));
}

// Gauss-Seidel: the membrane's warp, weft and shear, then the three curvatures from the moved
// positions (project_shell in src/constraints/shell.rs).
fn project_shell(unit: UnitRef) {
    let curvature = curvature_record(unit.index);
    let s = unit_slots(unit);
    let loaded = array<Particle, 3>(load_particle(s.s0), load_particle(s.s1), load_particle(s.s2));
    let lambdas = membrane_lambdas(unit.index);
    let stretched = triangle_projected(shell_membrane_rest(unit, curvature), loaded, lambdas);
    store_membrane_lambdas(unit.index, lambdas + stretched.dlambdas);
    let own = stretched.p;
    let p = array<Particle, 6>(
        own[0],
        own[1],
        own[2],
        far_after_membrane(load_particle(s.s3), own, curvature.topology, 0u),
        far_after_membrane(load_particle(s.s4), own, curvature.topology, 1u),
        far_after_membrane(load_particle(s.s5), own, curvature.topology, 2u),
    );
    project_curvature_at(unit, curvature, s, p);
}

// Jacobi: both kinds from the same positions, each scaled by its own share, summed per
// particle into the unit's six slots.
fn jacobi_shell(unit: UnitRef) {
    let p = jacobi_unit_particles6(unit);
    let curvature = curvature_record(unit.index);
    let rest = shell_membrane_rest(unit, curvature);
    let membrane = jacobi_triangle_moves(unit, rest, membrane_lambdas(unit.index), array<Particle, 3>(p[0], p[1], p[2]));
    let d = jacobi_curvature_moves(unit, curvature, p);
    emit(unit, 0u, d.d0 + membrane.d0);
    emit(unit, 1u, d.d1 + membrane.d1);
    emit(unit, 2u, d.d2 + membrane.d2);
    emit(unit, 3u, d.d3);
    emit(unit, 4u, d.d4);
    emit(unit, 5u, d.d5);
}
