// The structs and helpers every module starts with. Every host-shared struct mirrors one
// #[repr(C)] Rust type (its StructLayout; tests/shaders.rs checks sizes and offsets with naga).
// The constants WORKGROUP_SIZE, GEOMETRY_EPSILON (below this length, m, an edge or a doubled
// triangle area gives no usable direction), DENOMINATOR_EPSILON (below this the generalised mass
// of a constraint is treated as zero), F32_MAX, PI, TAU and TAN_PI_8 are generated from their
// Rust twins, and so are the frame's bindings (group 0: `params` and `dispatch`) and the struct
// `Params` of the frame's parameters (the frame's own, then the module's pass's block), in
// src/passes.rs.

// atan2(y, x) in [−π, π] by the same f32 operations as drape::math::atan2 (src/math.rs says
// why the built-in is not used): Cephes' atanf on min/max of |x|, |y|, then the octant.
fn atan2_portable(y: f32, x: f32) -> f32 {
    let ay = abs(y);
    let ax = abs(x);
    let small = min(ay, ax);
    let large = max(ay, ax);
    let t = select(0.0, small / max(large, 1e-30), large > 0.0);
    let reduced = t > TAN_PI_8;
    let u = select(t, (t - 1.0) / (t + 1.0), reduced);
    let z = u * u;
    let polynomial = (((8.0537445e-2 * z - 1.3877686e-1) * z + 1.9977711e-1) * z - 3.333295e-1) * z * u + u;
    let octant = select(polynomial, PI / 4.0 + polynomial, reduced);
    let quadrant = select(octant, PI / 2.0 - octant, ay > ax);
    let half = select(quadrant, PI - quadrant, x < 0.0);
    return select(half, -half, y < 0.0);
}

// Area-weighted triangle normal (p1 − p0) × (p2 − p0), twice the triangle's area long
// (drape::math::weighted_face_normal): the normals' sums and the air's triangles.
fn weighted_face_normal(p0: vec3<f32>, p1: vec3<f32>, p2: vec3<f32>) -> vec3<f32> {
    return cross(p1 - p0, p2 - p0);
}

// What one dispatch works on (DispatchInfo in src/passes/plan.rs), bound with a dynamic offset
// into the dispatch table.
struct DispatchInfo {
    // Substep index (pins move by 1/(substeps − substep) of the way).
    substep: u32,
    // Index within its substep of the first iteration this dispatch runs (0 resets the XPBD
    // multipliers).
    first_iteration: u32,
    // Iterations this dispatch runs (single-workgroup layouts; 1 otherwise).
    iterations: u32,
    // The colours this dispatch projects, as indices into the colour table: one colour
    // (per-colour layout) or a phase's colours (striped layout). Area limits: the first
    // triangle of the colour and its size.
    colour_first: u32,
    colour_count: u32,
    // Striped layout: where the phase's stripe entries start in `schedule`.
    stripe_entries: u32,
}

// A pinned particle (PinRecord in src/pins.rs).
struct Pin {
    // Its target, or, attached, its point in its collider's frame.
    position: vec3<f32>,
    particle: u32,
    // The collider it is attached to, or NOT_ATTACHED (src/pins.rs).
    collider: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// Flattens a 2-D grid of workgroups (large cloths exceed 65535 workgroups in x).
fn linear_id(workgroup: vec3<u32>, workgroups: vec3<u32>, local_index: u32) -> u32 {
    return (workgroup.y * workgroups.x + workgroup.x) * WORKGROUP_SIZE + local_index;
}

// Threads of a dispatch of WORKGROUP_SIZE workgroups (the stride of a loop over all of them).
fn thread_count(workgroups: vec3<u32>) -> u32 {
    return workgroups.x * workgroups.y * WORKGROUP_SIZE;
}
