// Curvature bending: each triangle's curvature tensor from the dihedral angles of its three
// edges, in its rest material frame (src/constraints/curvature.rs: same names, same argument
// order, and the model's reasons), and the triangle unit of six particles that projects its
// three constraints.

// One curvature constraint (CurvatureRecord in src/constraints/curvature.rs,
// CURVATURE_RECORD_WORDS words in `constraint_records`); its particles are its unit's: the
// triangle's three vertices, then the far vertex across each edge.
struct CurvatureConstraint {
    // The rest edges from vertex 0 to vertices 1 and 2 in the warp/weft frame, (u, v) each (m).
    frame: array<f32, 4>,
    // Each edge's rest dihedral angle (rad).
    rest_angles: array<f32, 3>,
    // How many times stiffer than its material's rigidities (its material map).
    stiffness_scale: f32,
    // XPBD multipliers of the current substep.
    lambdas: array<f32, 3>,
    // Bits 0–8, three per far vertex: the first place of the unit that holds the same particle,
    // 7 where none does. Bit 9 + k: whether edge k has a triangle across. From bit
    // MATERIAL_SHIFT on: its entry of params.constraints.curvature_materials.
    topology: u32,
}

// Its material, read where its kind is mapped (as stiffness_scale reads the scale).
fn curvature_material(r: CurvatureConstraint) -> u32 {
    if (params.constraints.kinds[KIND_CURVATURE].mapped == 0u) {
        return 0u;
    }
    return min(r.topology >> MATERIAL_SHIFT, MAX_MATERIALS - 1u);
}

// Constraint c's record, from `constraint_records` (shaders/passes/iterations/units.wgsl).
fn curvature_record(c: u32) -> CurvatureConstraint {
    let at = record_word(KIND_CURVATURE, CURVATURE_RECORD_WORDS, c, 0u);
    return CurvatureConstraint(
        array<f32, 4>(curvature_float(at), curvature_float(at + 1u), curvature_float(at + 2u), curvature_float(at + 3u)),
        array<f32, 3>(curvature_float(at + 4u), curvature_float(at + 5u), curvature_float(at + 6u)),
        stiffness_scale(KIND_CURVATURE, at + 7u),
        array<f32, 3>(curvature_float(at + 8u), curvature_float(at + 9u), curvature_float(at + 10u)),
        constraint_records[at + 11u],
    );
}

// Word `at` of `constraint_records` as an f32.
fn curvature_float(at: u32) -> f32 {
    return bitcast<f32>(constraint_records[at]);
}

// The weights of edge `e` (in the material frame) of a triangle of twice the area
// `twice_area` (edge_weights in src/constraints/curvature.rs): (e_v², e_u², −√2 e_u e_v)/(2A|e|),
// zero for a boundary or degenerate edge.
fn edge_weights(e: vec2<f32>, twice_area: f32, interior: bool) -> vec3<f32> {
    let d = twice_area * length(e);
    let kept = interior && d > 0.0;
    let weights = vec3<f32>(e.y * e.y, e.x * e.x, -SQRT_2 * e.x * e.y) / select(1.0, d, kept);
    return select(vec3<f32>(0.0), weights, kept);
}

// √2, as std::f32::consts::SQRT_2.
const SQRT_2: f32 = 1.4142135623730951;

// Whether edge k has a triangle across.
fn edge_interior(topology: u32, k: u32) -> bool {
    return ((topology >> (9u + k)) & 1u) == 1u;
}

// Stores constraint c's three multipliers.
fn store_curvature_lambdas(c: u32, lambdas: vec3<f32>) {
    store_three_multipliers(KIND_CURVATURE, CURVATURE_RECORD_WORDS, c, 8u, lambdas);
}

// The six position changes of a unit: its vertices', then its far vertices'.
struct UnitMoves {
    d0: vec3<f32>,
    d1: vec3<f32>,
    d2: vec3<f32>,
    d3: vec3<f32>,
    d4: vec3<f32>,
    d5: vec3<f32>,
}

struct CurvatureCorrection {
    dp: UnitMoves,
    dlambdas: vec3<f32>,
}

// Edge k's hinge (the edge from vertex k to k + 1, the triangle's third vertex, the far vertex)
// measured against its rest angle: the bounded angle error and its gradients, zero where the
// hinge is degenerate.
struct EdgeBend {
    error: f32,
    g0: vec3<f32>,
    g1: vec3<f32>,
    g2: vec3<f32>,
    g3: vec3<f32>,
}

fn edge_bend(p0: vec3<f32>, p1: vec3<f32>, p2: vec3<f32>, p3: vec3<f32>, rest: f32) -> EdgeBend {
    let hinge = dihedral(p0, p1, p2, p3);
    let zero = vec3<f32>(0.0);
    return EdgeBend(
        select(0.0, bounded_angle_error(hinge.angle, rest), hinge.shaped),
        select(zero, hinge.g0, hinge.shaped),
        select(zero, hinge.g1, hinge.shaped),
        select(zero, hinge.g2, hinge.shaped),
        select(zero, hinge.g3, hinge.shaped),
    );
}

// The angles' gradients per place: vertex v's gradient of the three angles as the columns of
// `own_v` (edge k in column k), far vertex k's of edge k's angle.
struct UnitGradients {
    own0: mat3x3<f32>,
    own1: mat3x3<f32>,
    own2: mat3x3<f32>,
    far0: vec3<f32>,
    far1: vec3<f32>,
    far2: vec3<f32>,
}

// Far vertex k's gradient, whose particle is first at place `first`, for column k of vertex
// v's: itself where the far vertex is that vertex (a boundary edge's), else zero.
fn folded_column(far: vec3<f32>, first: u32, v: u32) -> vec3<f32> {
    return select(vec3<f32>(0.0), far, first == v);
}

// One of the three constraints, with edge weights `w` (one per edge), in the angles' space
// (curvature_correction in src/constraints/curvature.rs): the value moved to first order by the
// steps before it, `μ` (`mu`) their weighted sum, through the angles' weighted Gram matrix
// `gram`, its XPBD step added to `μ`. Returns the step's Δλ.
fn curvature_step(
    gram: mat3x3<f32>, w: vec3<f32>, errors: vec3<f32>, lambda: f32, response: vec2<f32>, mu: ptr<function, vec3<f32>>,
) -> f32 {
    let value = dot(w, errors + gram * (*mu));
    let denominator = dot(w, gram * w) + response.y;
    let step = response.x * (-value - response.y * lambda) / max(denominator, DENOMINATOR_EPSILON);
    let dlambda = select(0.0, step, denominator >= DENOMINATOR_EPSILON);
    *mu += w * dlambda;
    return dlambda;
}

// The three curvature constraints of constraint `r` on the unit's particles `p` (its vertices,
// then its far vertices), one after the other by XPBD from multipliers `lambdas`, each
// constraint's value moved to first order by the corrections before it, in the angles' space
// (curvature_correction in src/constraints/curvature.rs says how; written out rather than
// looped, so that every value stays in registers).
fn curvature_correction_of(r: CurvatureConstraint, p: array<Particle, 6>, lambdas: vec3<f32>) -> CurvatureCorrection {
    let x0 = position(p[0]);
    let x1 = position(p[1]);
    let x2 = position(p[2]);
    let e0 = edge_bend(x0, x1, x2, position(p[3]), r.rest_angles[0]);
    let e1 = edge_bend(x1, x2, x0, position(p[4]), r.rest_angles[1]);
    let e2 = edge_bend(x2, x0, x1, position(p[5]), r.rest_angles[2]);
    let g = UnitGradients(
        mat3x3<f32>(e0.g0, e1.g2, e2.g1),
        mat3x3<f32>(e0.g1, e1.g0, e2.g2),
        mat3x3<f32>(e0.g2, e1.g1, e2.g0),
        e0.g3,
        e1.g3,
        e2.g3,
    );
    let errors = vec3<f32>(e0.error, e1.error, e2.error);
    let own_w = vec3<f32>(p[0].w, p[1].w, p[2].w);
    let far_w = vec3<f32>(p[3].w, p[4].w, p[5].w);
    // The gradients gathered per particle: a far vertex that is one of the triangle's own joins
    // its columns; two far places of one particle add their cross term to the Gram matrix.
    let a3 = curvature_alias(r.topology, 0u);
    let a4 = curvature_alias(r.topology, 1u);
    let a5 = curvature_alias(r.topology, 2u);
    let m0 = g.own0 + mat3x3<f32>(folded_column(g.far0, a3, 0u), folded_column(g.far1, a4, 0u), folded_column(g.far2, a5, 0u));
    let m1 = g.own1 + mat3x3<f32>(folded_column(g.far0, a3, 1u), folded_column(g.far1, a4, 1u), folded_column(g.far2, a5, 1u));
    let m2 = g.own2 + mat3x3<f32>(folded_column(g.far0, a3, 2u), folded_column(g.far1, a4, 2u), folded_column(g.far2, a5, 2u));
    let zero = vec3<f32>(0.0);
    let f0 = select(g.far0, zero, a3 < 3u);
    let f1 = select(g.far1, zero, a4 < 3u);
    let f2 = select(g.far2, zero, a5 < 3u);
    let c01 = select(0.0, far_w.y * dot(f0, f1), a4 == 3u);
    let c02 = select(0.0, far_w.z * dot(f0, f2), a5 == 3u);
    let c12 = select(0.0, far_w.z * dot(f1, f2), (a5 == 4u) || ((a5 == 3u) && (a4 == 3u)));
    let gram = transpose(m0) * m0 * own_w.x + transpose(m1) * m1 * own_w.y + transpose(m2) * m2 * own_w.z
        + mat3x3<f32>(
            vec3<f32>(far_w.x * dot(f0, f0), c01, c02),
            vec3<f32>(c01, far_w.y * dot(f1, f1), c12),
            vec3<f32>(c02, c12, far_w.z * dot(f2, f2)),
        );
    // Rows: each edge's weights in (S_uu, S_vv, √2 S_uv); columns: each constraint's.
    let twice_area = double_area(r.frame);
    let frame1 = vec2<f32>(r.frame[0], r.frame[1]);
    let frame2 = vec2<f32>(r.frame[2], r.frame[3]);
    let w0 = edge_weights(frame1, twice_area, edge_interior(r.topology, 0u));
    let w1 = edge_weights(frame2 - frame1, twice_area, edge_interior(r.topology, 1u));
    let w2 = edge_weights(-frame2, twice_area, edge_interior(r.topology, 2u));
    // [k, α̃/B_warp, α̃/B_weft, α̃/B_twist] of its material (CurvatureConstraints::area_responses),
    // per area.
    let unit = params.constraints.curvature_materials[curvature_material(r)];
    let scale = 0.5 * twice_area * r.stiffness_scale;
    var mu = vec3<f32>(0.0);
    let l0 = curvature_step(gram, vec3<f32>(w0.x, w1.x, w2.x), errors, lambdas.x, scaled_compliance(unit.xy, scale), &mu);
    let l1 = curvature_step(gram, vec3<f32>(w0.y, w1.y, w2.y), errors, lambdas.y, scaled_compliance(unit.xz, scale), &mu);
    let l2 = curvature_step(gram, vec3<f32>(w0.z, w1.z, w2.z), errors, lambdas.z, scaled_compliance(unit.xw, scale), &mu);
    let moves = UnitMoves(
        m0 * mu * own_w.x,
        m1 * mu * own_w.y,
        m2 * mu * own_w.z,
        f0 * (mu.x * far_w.x),
        f1 * (mu.y * far_w.y),
        f2 * (mu.z * far_w.z),
    );
    return CurvatureCorrection(per_particle(moves, r.topology), vec3<f32>(l0, l1, l2));
}

fn curvature_lambdas(r: CurvatureConstraint) -> vec3<f32> {
    return vec3<f32>(multiplier(r.lambdas[0]), multiplier(r.lambdas[1]), multiplier(r.lambdas[2]));
}

// The unit's first place holding the same particle as far vertex k, 7 where none does.
fn curvature_alias(aliases: u32, k: u32) -> u32 {
    return (aliases >> (3u * k)) & 7u;
}

// `d` with each far vertex's share added to the first place holding its particle (a boundary
// edge's far vertex is the triangle's own vertex; rarely, two edges share a far vertex).
fn folded(d: UnitMoves, aliases: u32) -> UnitMoves {
    let zero = vec3<f32>(0.0);
    let a3 = curvature_alias(aliases, 0u);
    let a4 = curvature_alias(aliases, 1u);
    let a5 = curvature_alias(aliases, 2u);
    var f = d;
    f.d0 += select(zero, d.d3, a3 == 0u) + select(zero, d.d4, a4 == 0u) + select(zero, d.d5, a5 == 0u);
    f.d1 += select(zero, d.d3, a3 == 1u) + select(zero, d.d4, a4 == 1u) + select(zero, d.d5, a5 == 1u);
    f.d2 += select(zero, d.d3, a3 == 2u) + select(zero, d.d4, a4 == 2u) + select(zero, d.d5, a5 == 2u);
    f.d3 += select(zero, d.d4, a4 == 3u) + select(zero, d.d5, a5 == 3u);
    f.d4 += select(zero, d.d5, a5 == 4u);
    return f;
}

// `g` gathered per particle: each far vertex's share added to the first place holding its
// particle, and its own place zeroed, so that sums over places are sums over particles.
fn per_particle(g: UnitMoves, aliases: u32) -> UnitMoves {
    let zero = vec3<f32>(0.0);
    var f = folded(g, aliases);
    f.d3 = select(f.d3, zero, curvature_alias(aliases, 0u) != 7u);
    f.d4 = select(f.d4, zero, curvature_alias(aliases, 1u) != 7u);
    f.d5 = select(f.d5, zero, curvature_alias(aliases, 2u) != 7u);
    return f;
}

fn moved(p: Particle, d: vec3<f32>) -> Particle {
    var m = p;
    m.q += d;
    return m;
}

// The six places of a unit: where each particle is.
struct UnitSlots {
    s0: Slot,
    s1: Slot,
    s2: Slot,
    s3: Slot,
    s4: Slot,
    s5: Slot,
}

fn unit_slots(unit: UnitRef) -> UnitSlots {
    return UnitSlots(
        particle_slot(unit, 0u, unit_particle(unit, 0u)),
        particle_slot(unit, 1u, unit_particle(unit, 1u)),
        particle_slot(unit, 2u, unit_particle(unit, 2u)),
        particle_slot(unit, 3u, unit_particle(unit, 3u)),
        particle_slot(unit, 4u, unit_particle(unit, 4u)),
        particle_slot(unit, 5u, unit_particle(unit, 5u)),
    );
}

// Gauss-Seidel: the three curvatures of constraint `r` on the particles `p` at `s`, each
// particle stored once, from its first place (the steps gather
// every move there), and the multipliers stored.
fn project_curvature_at(unit: UnitRef, r: CurvatureConstraint, s: UnitSlots, p: array<Particle, 6>) {
    let lambdas = curvature_lambdas(r);
    let correction = curvature_correction_of(r, p, lambdas);
    let d = correction.dp;
    store_particle(s.s0, moved(p[0], d.d0));
    store_particle(s.s1, moved(p[1], d.d1));
    store_particle(s.s2, moved(p[2], d.d2));
    if (curvature_alias(r.topology, 0u) == 7u) {
        store_particle(s.s3, moved(p[3], d.d3));
    }
    if (curvature_alias(r.topology, 1u) == 7u) {
        store_particle(s.s4, moved(p[4], d.d4));
    }
    if (curvature_alias(r.topology, 2u) == 7u) {
        store_particle(s.s5, moved(p[5], d.d5));
    }
    store_curvature_lambdas(unit.index, lambdas + correction.dlambdas);
}

// Gauss-Seidel: the three curvatures on one load and one store of the six particles.
fn project_curvature(unit: UnitRef) {
    let s = unit_slots(unit);
    let p = array<Particle, 6>(
        load_particle(s.s0), load_particle(s.s1), load_particle(s.s2), load_particle(s.s3), load_particle(s.s4), load_particle(s.s5),
    );
    project_curvature_at(unit, curvature_record(unit.index), s, p);
}

// The unit's six particles (Jacobi).
fn jacobi_unit_particles6(unit: UnitRef) -> array<Particle, 6> {
    return array<Particle, 6>(
        load_particle(particle_slot(unit, 0u, jacobi_unit_particle(unit, 0u))),
        load_particle(particle_slot(unit, 1u, jacobi_unit_particle(unit, 1u))),
        load_particle(particle_slot(unit, 2u, jacobi_unit_particle(unit, 2u))),
        load_particle(particle_slot(unit, 3u, jacobi_unit_particle(unit, 3u))),
        load_particle(particle_slot(unit, 4u, jacobi_unit_particle(unit, 4u))),
        load_particle(particle_slot(unit, 5u, jacobi_unit_particle(unit, 5u))),
    );
}

// Jacobi: the three curvatures of unit `unit`'s constraint `r` from the same positions `p`,
// scaled by the triangle's share (the multipliers' steps stored).
fn jacobi_curvature_moves(unit: UnitRef, r: CurvatureConstraint, p: array<Particle, 6>) -> UnitMoves {
    let lambdas = curvature_lambdas(r);
    let correction = curvature_correction_of(r, p, lambdas);
    let share = params.constraints.relaxation * jacobi_share(KIND_CURVATURE, unit.index);
    store_curvature_lambdas(unit.index, lambdas + correction.dlambdas * share);
    let d = correction.dp;
    return UnitMoves(d.d0 * share, d.d1 * share, d.d2 * share, d.d3 * share, d.d4 * share, d.d5 * share);
}

// Jacobi: the curvatures' moves into the unit's six slots (the gather sums a particle's slots,
// aliases included).
fn jacobi_curvature(unit: UnitRef) {
    let d = jacobi_curvature_moves(unit, curvature_record(unit.index), jacobi_unit_particles6(unit));
    emit(unit, 0u, d.d0);
    emit(unit, 1u, d.d1);
    emit(unit, 2u, d.d2);
    emit(unit, 3u, d.d3);
    emit(unit, 4u, d.d4);
    emit(unit, 5u, d.d5);
}
