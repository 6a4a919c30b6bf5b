// The membrane: warp, weft and shear strain per triangle in its rest material frame
// (src/constraints/membrane.rs: same names, same argument order, and the model's reasons), and
// the triangle unit that projects the three. Each strain's guards are selects, as in
// stretch.wgsl (the branch on which strain is uniform in a unit), and there are no loops, as in
// hinge.wgsl.

// One membrane constraint (MembraneRecord in src/constraints/membrane.rs,
// MEMBRANE_RECORD_WORDS words in `constraint_records`); its particles are its unit's.
struct MembraneConstraint {
    // The rest edges from vertex 0 to vertices 1 and 2 in the warp/weft frame, (u, v) each (m):
    // D_m by columns.
    frame: array<f32, 4>,
    // How many times stiffer than its material's moduli (its material map).
    stiffness_scale: f32,
    // Its entry of params.constraints.membrane_materials.
    material: u32,
    // XPBD multipliers of the current substep (warp, weft, shear).
    lambdas: array<f32, 3>,
}

// Constraint c's record, from `constraint_records` (shaders/passes/iterations/units.wgsl),
// its multipliers as this iteration starts them.
fn membrane_record(c: u32) -> MembraneConstraint {
    let at = record_word(KIND_MEMBRANE, MEMBRANE_RECORD_WORDS, c, 0u);
    let lambdas = membrane_lambdas(c);
    return MembraneConstraint(
        array<f32, 4>(
            bitcast<f32>(constraint_records[at]),
            bitcast<f32>(constraint_records[at + 1u]),
            bitcast<f32>(constraint_records[at + 2u]),
            bitcast<f32>(constraint_records[at + 3u]),
        ),
        membrane_stiffness_scale(c),
        membrane_material(c),
        array<f32, 3>(lambdas.x, lambdas.y, lambdas.z),
    );
}

// Its rest state.
fn rest_of_membrane(r: MembraneConstraint) -> MembraneRest {
    return membrane_rest(r.frame, r.stiffness_scale, r.material);
}

// Its multipliers.
fn lambdas_of_membrane(r: MembraneConstraint) -> vec3<f32> {
    return vec3<f32>(r.lambdas[0], r.lambdas[1], r.lambdas[2]);
}

// Constraint c's stiffness scale, read only where a constraint has a map or a material other
// than the first.
fn membrane_stiffness_scale(c: u32) -> f32 {
    return stiffness_scale(KIND_MEMBRANE, record_word(KIND_MEMBRANE, MEMBRANE_RECORD_WORDS, c, 4u));
}

// Constraint c's material, read as the scale is.
fn membrane_material(c: u32) -> u32 {
    return material(KIND_MEMBRANE, record_word(KIND_MEMBRANE, MEMBRANE_RECORD_WORDS, c, 5u));
}

// Stores constraint c's three multipliers.
fn store_membrane_lambdas(c: u32, lambdas: vec3<f32>) {
    store_three_multipliers(KIND_MEMBRANE, MEMBRANE_RECORD_WORDS, c, 6u, lambdas);
}

// Constraint c's three multipliers (warp, weft, shear) as this iteration starts them.
fn membrane_lambdas(c: u32) -> vec3<f32> {
    let at = record_word(KIND_MEMBRANE, MEMBRANE_RECORD_WORDS, c, 6u);
    return vec3<f32>(
        multiplier(bitcast<f32>(constraint_records[at])),
        multiplier(bitcast<f32>(constraint_records[at + 1u])),
        multiplier(bitcast<f32>(constraint_records[at + 2u])),
    );
}

// Twice the area of a triangle whose edges from vertex 0 are `frame` (u, v each): the
// membrane's and the curvature's rest areas (double_area in src/constraints/membrane.rs).
fn double_area(frame: array<f32, 4>) -> f32 {
    return abs(frame[0] * frame[3] - frame[1] * frame[2]);
}

// What the strains need of a triangle's rest state: the weights of f_u and f_v
// (RestFrame::warp_weights and weft_weights, from D_m⁻¹) and each strain's response.
struct MembraneRest {
    cu: vec3<f32>,
    cv: vec3<f32>,
    warp: vec2<f32>,
    weft: vec2<f32>,
    shear: vec2<f32>,
}

// The rest state of a triangle of rest shape `frame` (D_m by columns), stiffness scale
// `stiffness_scale` and material `material`: D_m⁻¹ (RestFrame::inverse), and the responses
// [k, α̃/E] per area of its material (MembraneConstraints::area_responses) scaled by the area
// and the scale.
fn membrane_rest(frame: array<f32, 4>, stiffness_scale: f32, material: u32) -> MembraneRest {
    let det = frame[0] * frame[3] - frame[1] * frame[2];
    let safe = select(1.0, det, det != 0.0);
    let d00 = frame[3] / safe;
    let d01 = -frame[2] / safe;
    let d10 = -frame[1] / safe;
    let d11 = frame[0] / safe;
    let unit = params.constraints.membrane_materials[material];
    let scale = 0.5 * double_area(frame) * stiffness_scale;
    return MembraneRest(
        vec3<f32>(-(d00 + d10), d00, d10),
        vec3<f32>(-(d01 + d11), d01, d11),
        scaled_compliance(unit.xy, scale),
        scaled_compliance(unit.xz, scale),
        scaled_compliance(unit.xw, scale),
    );
}

struct StrainCorrection {
    dp0: vec3<f32>,
    dp1: vec3<f32>,
    dp2: vec3<f32>,
    dlambda: f32,
}

// Δλ = k(−C − α̃λ)/(Σ w_k|∇_k C|² + α̃), Δp_k = w_k ∇_k C Δλ (XPBD eq. 18); zero where `valid` is
// false or no particle can move.
fn xpbd_step(
    c: f32, g0: vec3<f32>, g1: vec3<f32>, g2: vec3<f32>, w: vec3<f32>, lambda: f32, response: vec2<f32>,
    valid: bool,
) -> StrainCorrection {
    let weighted = w.x * dot(g0, g0) + w.y * dot(g1, g1) + w.z * dot(g2, g2);
    let denominator = weighted + response.y;
    let ok = valid & (denominator >= DENOMINATOR_EPSILON);
    let dlambda = select(0.0, response.x * (-c - response.y * lambda) / max(denominator, DENOMINATOR_EPSILON), ok);
    return StrainCorrection(g0 * (w.x * dlambda), g1 * (w.y * dlambda), g2 * (w.z * dlambda), dlambda);
}

// Σ c_k p_k.
fn combine(c: vec3<f32>, p0: vec3<f32>, p1: vec3<f32>, p2: vec3<f32>) -> vec3<f32> {
    return p0 * c.x + p1 * c.y + p2 * c.z;
}

// Stretch along one thread, C = |f| − 1 with f = Σ c_k p_k, ∇_k C = c_k f̂.
fn thread_correction(
    p0: vec3<f32>, p1: vec3<f32>, p2: vec3<f32>, w: vec3<f32>, c: vec3<f32>, lambda: f32,
    response: vec2<f32>,
) -> StrainCorrection {
    let f = combine(c, p0, p1, p2);
    let len = length(f);
    let n = f / max(len, GEOMETRY_EPSILON);
    return xpbd_step(len - 1.0, n * c.x, n * c.y, n * c.z, w, lambda, response, len >= GEOMETRY_EPSILON);
}

// Shear, C = f̂_u·f̂_v, ∇_k C = cu_k (f̂_v − C f̂_u)/|f_u| + cv_k (f̂_u − C f̂_v)/|f_v|.
fn shear_correction(
    p0: vec3<f32>, p1: vec3<f32>, p2: vec3<f32>, w: vec3<f32>, cu: vec3<f32>, cv: vec3<f32>, lambda: f32,
    response: vec2<f32>,
) -> StrainCorrection {
    let fu = combine(cu, p0, p1, p2);
    let fv = combine(cv, p0, p1, p2);
    let lu = length(fu);
    let lv = length(fv);
    let valid = (lu >= GEOMETRY_EPSILON) & (lv >= GEOMETRY_EPSILON);
    let safe_u = max(lu, GEOMETRY_EPSILON);
    let safe_v = max(lv, GEOMETRY_EPSILON);
    let nu = fu / safe_u;
    let nv = fv / safe_v;
    let c = dot(nu, nv);
    let gu = (nv - nu * c) / safe_u;
    let gv = (nu - nv * c) / safe_v;
    return xpbd_step(c, gu * cu.x + gv * cv.x, gu * cu.y + gv * cv.y, gu * cu.z + gv * cv.z, w, lambda, response, valid);
}

// Strain `strain` (0 warp, 1 weft, 2 shear) of a triangle at rest `r` on the particles `p`.
fn strain_correction(r: MembraneRest, strain: u32, p: array<Particle, 3>, lambda: f32) -> StrainCorrection {
    let w = vec3<f32>(p[0].w, p[1].w, p[2].w);
    let p0 = position(p[0]);
    let p1 = position(p[1]);
    let p2 = position(p[2]);
    if (strain == 0u) {
        return thread_correction(p0, p1, p2, w, r.cu, lambda, r.warp);
    }
    if (strain == 1u) {
        return thread_correction(p0, p1, p2, w, r.cv, lambda, r.weft);
    }
    return shear_correction(p0, p1, p2, w, r.cu, r.cv, lambda, r.shear);
}

// The particles moved by a correction.
fn corrected(p: array<Particle, 3>, k: StrainCorrection) -> array<Particle, 3> {
    var moved = p;
    moved[0].q += k.dp0;
    moved[1].q += k.dp1;
    moved[2].q += k.dp2;
    return moved;
}

// The three strains of constraint `r` projected one after the other, each from the positions
// the one before left, from multipliers `lambdas`: the moved particles and the multipliers'
// steps.
struct ProjectedTriangle {
    p: array<Particle, 3>,
    dlambdas: vec3<f32>,
}

fn triangle_projected(r: MembraneRest, loaded: array<Particle, 3>, lambdas: vec3<f32>) -> ProjectedTriangle {
    var p = loaded;
    let warp = strain_correction(r, 0u, p, lambdas.x);
    p = corrected(p, warp);
    let weft = strain_correction(r, 1u, p, lambdas.y);
    p = corrected(p, weft);
    let shear = strain_correction(r, 2u, p, lambdas.z);
    p = corrected(p, shear);
    return ProjectedTriangle(p, vec3<f32>(warp.dlambda, weft.dlambda, shear.dlambda));
}

// Gauss-Seidel: warp, weft and shear one after the other, each from the positions the one
// before left, on one load and one store of the triangle.
fn project_triangle(unit: UnitRef) {
    let r = membrane_record(unit.index);
    let slot0 = particle_slot(unit, 0u, unit_particle(unit, 0u));
    let slot1 = particle_slot(unit, 1u, unit_particle(unit, 1u));
    let slot2 = particle_slot(unit, 2u, unit_particle(unit, 2u));
    let lambdas = lambdas_of_membrane(r);
    let projected = triangle_projected(rest_of_membrane(r), array<Particle, 3>(load_particle(slot0), load_particle(slot1), load_particle(slot2)), lambdas);
    store_particle(slot0, projected.p[0]);
    store_particle(slot1, projected.p[1]);
    store_particle(slot2, projected.p[2]);
    store_membrane_lambdas(unit.index, lambdas + projected.dlambdas);
}

// A triangle's three position changes.
struct TriangleMoves {
    d0: vec3<f32>,
    d1: vec3<f32>,
    d2: vec3<f32>,
}

// Jacobi: the three strains of unit `unit`'s constraint, at rest `r` from multipliers
// `lambdas`, from the same positions `p`, scaled by the triangle's share, summed per particle
// (the multipliers' steps stored).
fn jacobi_triangle_moves(unit: UnitRef, r: MembraneRest, lambdas: vec3<f32>, p: array<Particle, 3>) -> TriangleMoves {
    let warp = strain_correction(r, 0u, p, lambdas.x);
    let weft = strain_correction(r, 1u, p, lambdas.y);
    let shear = strain_correction(r, 2u, p, lambdas.z);
    let share = params.constraints.relaxation * jacobi_share(KIND_MEMBRANE, unit.index);
    let steps = vec3<f32>(warp.dlambda, weft.dlambda, shear.dlambda);
    store_membrane_lambdas(unit.index, lambdas + steps * share);
    return TriangleMoves(
        warp.dp0 * share + weft.dp0 * share + shear.dp0 * share,
        warp.dp1 * share + weft.dp1 * share + shear.dp1 * share,
        warp.dp2 * share + weft.dp2 * share + shear.dp2 * share,
    );
}

// Jacobi: the triangle's moves into its slots.
fn jacobi_triangle(unit: UnitRef) {
    let p = array<Particle, 3>(
        load_particle(particle_slot(unit, 0u, jacobi_unit_particle(unit, 0u))),
        load_particle(particle_slot(unit, 1u, jacobi_unit_particle(unit, 1u))),
        load_particle(particle_slot(unit, 2u, jacobi_unit_particle(unit, 2u))),
    );
    let r = membrane_record(unit.index);
    let d = jacobi_triangle_moves(unit, rest_of_membrane(r), lambdas_of_membrane(r), p);
    emit(unit, 0u, d.d0);
    emit(unit, 1u, d.d1);
    emit(unit, 2u, d.d2);
}
