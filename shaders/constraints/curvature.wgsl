// Curvature bending: each triangle's curvature tensor from the dihedral angles of its three
// edges, in its rest material frame (src/constraints/curvature.rs: same names, same argument
// order, and the model's reasons), and the triangle unit of six particles that projects its
// three constraints.

// One curvature constraint (CurvatureRecord in src/constraints/curvature.rs,
// CURVATURE_RECORD_WORDS words in `constraint_records`); its particles are its unit's: the
// triangle's three vertices, then the far vertex across each edge.
struct CurvatureConstraint {
    // Each edge's weights in (S_uu, S_vv, √2 S_uv), 1/m; zero for a boundary edge.
    weights0: array<f32, 3>,
    weights1: array<f32, 3>,
    weights2: array<f32, 3>,
    // Each edge's rest dihedral angle (rad).
    rest_angles: array<f32, 3>,
    // B·A (N·m³) of each curvature, the material map applied: the inverse of its compliance.
    warp_stiffness: f32,
    weft_stiffness: f32,
    twist_stiffness: f32,
    // XPBD multipliers of the current substep.
    lambdas: array<f32, 3>,
}

// Word k of constraint c's record.
fn curvature_word(c: u32, k: u32) -> f32 {
    return bitcast<f32>(constraint_records[record_word(KIND_CURVATURE, CURVATURE_RECORD_WORDS, c, k)]);
}

// Constraint c's record, from `constraint_records` (shaders/passes/iterations/units.wgsl).
fn curvature_record(c: u32) -> CurvatureConstraint {
    return CurvatureConstraint(
        array<f32, 3>(curvature_word(c, 0u), curvature_word(c, 1u), curvature_word(c, 2u)),
        array<f32, 3>(curvature_word(c, 3u), curvature_word(c, 4u), curvature_word(c, 5u)),
        array<f32, 3>(curvature_word(c, 6u), curvature_word(c, 7u), curvature_word(c, 8u)),
        array<f32, 3>(curvature_word(c, 9u), curvature_word(c, 10u), curvature_word(c, 11u)),
        curvature_word(c, 12u),
        curvature_word(c, 13u),
        curvature_word(c, 14u),
        array<f32, 3>(curvature_word(c, 15u), curvature_word(c, 16u), curvature_word(c, 17u)),
    );
}

// Stores constraint c's three multipliers.
fn store_curvature_lambdas(c: u32, lambdas: vec3<f32>) {
    let at = record_word(KIND_CURVATURE, CURVATURE_RECORD_WORDS, c, 15u);
    constraint_records[at] = bitcast<u32>(lambdas.x);
    constraint_records[at + 1u] = bitcast<u32>(lambdas.y);
    constraint_records[at + 2u] = bitcast<u32>(lambdas.z);
}

struct CurvatureCorrection {
    dp: array<vec3<f32>, 6>,
    dlambdas: vec3<f32>,
}

// The particle slot (0..6) of place i (0..4) of edge k's hinge: the edge from vertex k to k + 1,
// the triangle's own third vertex, then the far vertex.
fn hinge_slot(k: u32, i: u32) -> u32 {
    return select((k + i) % 3u, 3u + k, i == 3u);
}

// The three curvature constraints of a unit at `p`, one after the other by XPBD, each
// constraint's value moved to first order by the corrections before it; an edge whose hinge is
// degenerate counts for nothing.
fn curvature_correction(
    p: array<vec3<f32>, 6>, w: array<f32, 6>, weights: array<vec3<f32>, 3>, rest_angles: vec3<f32>,
    lambdas: vec3<f32>, responses: array<vec2<f32>, 3>,
) -> CurvatureCorrection {
    var positions = p;
    var masses = w;
    var edge_weights = weights;
    var rests = rest_angles;
    var edge_responses = responses;
    var errors = vec3<f32>(0.0);
    var edge_gradients: array<array<vec3<f32>, 4>, 3>;
    for (var k = 0u; k < 3u; k++) {
        let hinge = dihedral(positions[k], positions[(k + 1u) % 3u], positions[(k + 2u) % 3u], positions[3u + k]);
        let zero = vec3<f32>(0.0);
        errors[k] = select(0.0, bounded_angle_error(hinge.angle, rests[k]), hinge.shaped);
        edge_gradients[k] = array<vec3<f32>, 4>(
            select(zero, hinge.g0, hinge.shaped),
            select(zero, hinge.g1, hinge.shaped),
            select(zero, hinge.g2, hinge.shaped),
            select(zero, hinge.g3, hinge.shaped),
        );
    }
    var dp: array<vec3<f32>, 6>;
    var dlambdas = vec3<f32>(0.0);
    for (var j = 0u; j < 3u; j++) {
        var gradient: array<vec3<f32>, 6>;
        var value = 0.0;
        for (var k = 0u; k < 3u; k++) {
            let weight = edge_weights[k][j];
            value += weight * errors[k];
            for (var i = 0u; i < 4u; i++) {
                let slot = hinge_slot(k, i);
                gradient[slot] += edge_gradients[k][i] * weight;
            }
        }
        var moved = 0.0;
        var weighted = 0.0;
        for (var i = 0u; i < 6u; i++) {
            moved += dot(gradient[i], dp[i]);
            weighted += masses[i] * dot(gradient[i], gradient[i]);
        }
        value += moved;
        let response = edge_responses[j];
        let denominator = weighted + response.y;
        let step = response.x * (-value - response.y * (lambdas[j] + dlambdas[j])) / max(denominator, DENOMINATOR_EPSILON);
        let dlambda = select(0.0, step, denominator >= DENOMINATOR_EPSILON);
        for (var i = 0u; i < 6u; i++) {
            dp[i] += gradient[i] * (masses[i] * dlambda);
        }
        dlambdas[j] += dlambda;
    }
    return CurvatureCorrection(dp, dlambdas);
}

// The correction of constraint `r` on the unit's particles `p` from multipliers `lambdas`.
fn curvature_correction_of(r: CurvatureConstraint, p: array<Particle, 6>, lambdas: vec3<f32>) -> CurvatureCorrection {
    let unit = params.constraints.kinds[KIND_CURVATURE].response.xy;
    return curvature_correction(
        array<vec3<f32>, 6>(position(p[0]), position(p[1]), position(p[2]), position(p[3]), position(p[4]), position(p[5])),
        array<f32, 6>(p[0].w, p[1].w, p[2].w, p[3].w, p[4].w, p[5].w),
        array<vec3<f32>, 3>(
            vec3<f32>(r.weights0[0], r.weights0[1], r.weights0[2]),
            vec3<f32>(r.weights1[0], r.weights1[1], r.weights1[2]),
            vec3<f32>(r.weights2[0], r.weights2[1], r.weights2[2]),
        ),
        vec3<f32>(r.rest_angles[0], r.rest_angles[1], r.rest_angles[2]),
        lambdas,
        array<vec2<f32>, 3>(
            scaled_response(unit, r.warp_stiffness),
            scaled_response(unit, r.weft_stiffness),
            scaled_response(unit, r.twist_stiffness),
        ),
    );
}

fn curvature_lambdas(r: CurvatureConstraint) -> vec3<f32> {
    return vec3<f32>(multiplier(r.lambdas[0]), multiplier(r.lambdas[1]), multiplier(r.lambdas[2]));
}

// Gauss-Seidel: the three curvatures on one load and one store of the six particles. A
// particle in two places of the unit (a boundary edge's far vertex is the triangle's own) has
// one slot address in every layout: it is stored once, from its first place, with the
// corrections of every place.
fn project_curvature(unit: UnitRef) {
    let r = curvature_record(unit.index);
    var slots: array<Slot, 6>;
    var p: array<Particle, 6>;
    for (var k = 0u; k < 6u; k++) {
        slots[k] = particle_slot(unit, k, unit_particle(unit, k));
        p[k] = load_particle(slots[k]);
    }
    let lambdas = curvature_lambdas(r);
    let correction = curvature_correction_of(r, p, lambdas);
    var dp = correction.dp;
    for (var k = 0u; k < 6u; k++) {
        var first = true;
        var total = dp[k];
        for (var j = 0u; j < 6u; j++) {
            let same = (slots[j].address == slots[k].address) & (j != k);
            first = first & !(same & (j < k));
            total += select(vec3<f32>(0.0), dp[j], same);
        }
        if (first) {
            var moved = p[k];
            moved.q += total;
            store_particle(slots[k], moved);
        }
    }
    store_curvature_lambdas(unit.index, lambdas + correction.dlambdas);
}

// Jacobi: the three curvatures from the same positions, scaled by the triangle's share, into
// the unit's six slots.
fn jacobi_curvature(unit: UnitRef) {
    let r = curvature_record(unit.index);
    var p: array<Particle, 6>;
    for (var k = 0u; k < 6u; k++) {
        p[k] = load_particle(particle_slot(unit, k, jacobi_unit_particle(unit, k)));
    }
    let lambdas = curvature_lambdas(r);
    let correction = curvature_correction_of(r, p, lambdas);
    let share = params.constraints.relaxation * jacobi_share(KIND_CURVATURE, unit.index);
    var dp = correction.dp;
    for (var k = 0u; k < 6u; k++) {
        emit(unit, k, dp[k] * share);
    }
    store_curvature_lambdas(unit.index, lambdas + correction.dlambdas * share);
}
