// Shared structs, constants and the frame bindings (group 0) of every module. Every host-shared
// struct mirrors one #[repr(C)] Rust type (src/gpu/records.rs, src/pins.rs and the kinds'
// records in src/constraints/); tests/shaders.rs checks sizes and offsets with naga.

const WORKGROUP_SIZE: u32 = 64u;
// Unit types the parameters describe (src/constraints.rs UnitType::ALL has at most this many).
const MAX_UNIT_TYPES: u32 = 4u;
// Constraint kinds the parameters describe (src/constraints.rs Kind::ALL has at most this
// many).
const MAX_KINDS: u32 = 4u;
// Below this length (m) an edge or a doubled triangle area gives no usable direction.
const GEOMETRY_EPSILON: f32 = 1e-9;
// Below this the generalised mass of a constraint is treated as zero.
const DENOMINATOR_EPSILON: f32 = 1e-12;
// The largest finite f32.
const F32_MAX: f32 = 0x1.fffffep+127f;
const PI: f32 = 3.14159265358979;
const TAU: f32 = 6.28318530717959;
const TAN_PI_8: f32 = 0.41421357;

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

// What the kernels read of one constraint kind (GpuKind in src/gpu/records.rs), at its id
// KIND_<NAME> in params.kinds.
struct KindParams {
    // [k, α̃] of its constraints (XPBD eq. 18; PBD k' of §3.3 with α̃ = 0), then a second pair
    // where the kind has one (stretch: xy stretched, zw compressed).
    response: vec4<f32>,
    // Where its records start in `constraint_records` (shaders/passes/iterations/units.wgsl).
    records: u32,
    // Where its Jacobi shares start in `jacobi_plan` (shaders/passes/iterations/jacobi_slots.wgsl).
    jacobi_shares: u32,
    // 1 when some constraint of the kind has a stiffness scale other than 1 (a material map).
    mapped: u32,
    // Pads the uniform array stride to 32 bytes.
    _pad0: u32,
}

// The air around the cloth (GpuAir in src/gpu/records.rs; src/passes/air.rs).
struct Air {
    // Mean wind (m/s), then its speed |wind|.
    wind: vec4<f32>,
    // ρ (kg/m³); 0 when the air is off.
    density: f32,
    drag_coefficient: f32,
    lift_coefficient: f32,
    // Relative gust strength in [0, 1] and gusts per second.
    gust_strength: f32,
    gust_frequency: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// Per-frame parameters (GpuParams in src/gpu/records.rs).
struct Params {
    // Gravity plus external acceleration (m/s²); w unused.
    acceleration: vec4<f32>,
    // Per unit type (its id): x = first unit, y = unit count, z = first Jacobi slot, w = where
    // its units' particles start in the unit table.
    unit_types: array<vec4<u32>, MAX_UNIT_TYPES>,
    kinds: array<KindParams, MAX_KINDS>,
    // Tethers: [k, α̃] of one projection per substep, then the length limit's scale (w unused).
    tether: vec4<f32>,
    // Strain limits of the stretch constraints: [σ_min, σ_max] ratios of the rest length, then
    // 1 when on, 0 when off (shaders/constraints/stretch.wgsl limit_strain); w unused.
    strain_limits: vec4<f32>,
    // Area limits of the triangles: [min, max] ratios of the rest area
    // (shaders/passes/area_limits.wgsl); zw unused.
    area_limits: vec4<f32>,
    air: Air,
    // Mass-spring mode (shaders/passes/springs.wgsl): stiffness of the structural, shear and
    // flexion springs (N/m) by kind id, then their damping (N·s/m); zero in the other modes.
    springs: vec4<f32>,
    // Self-collision (shaders/passes/self_collision.wgsl): thickness h (m), friction between layers,
    // the exponent of the triangle contacts' fixed point (shaders/passes/self_collision/triangles.wgsl),
    // unused. Zero when off.
    self_collision: vec4<f32>,
    // Jacobi over-relaxation ω.
    relaxation: f32,
    // Substep length h (s).
    h: f32,
    // max(0, 1 − damping·h).
    damping_factor: f32,
    // Normal speed under which restitution is off (2|g|h).
    restitution_threshold: f32,
    particle_count: u32,
    pin_count: u32,
    // Colours in the schedule's colour table.
    colour_count: u32,
    substeps: u32,
    // Where the unit table starts in `schedule`.
    unit_table: u32,
    // Where the gather lists' slot indices and the unit table start in `jacobi_plan`.
    jacobi_items: u32,
    jacobi_unit_table: u32,
    // Tethered particles (shaders/passes/tethers.wgsl).
    tether_particles: u32,
    // The fraction of its deviation from the rigid motion a free particle loses per frame
    // (shaders/passes/rigid_damping.wgsl).
    rigid_damping: f32,
    // Buckets of the self-collision hash table (a power of two).
    hash_table_size: u32,
    // The cloth's triangles.
    triangle_count: u32,
}

// What one dispatch works on (DispatchInfo in src/gpu/records.rs), bound with a dynamic offset
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
    position: vec3<f32>,
    particle: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<uniform> dispatch: DispatchInfo;

// Flattens a 2-D grid of workgroups (large cloths exceed 65535 workgroups in x).
fn linear_id(workgroup: vec3<u32>, workgroups: vec3<u32>, local_index: u32) -> u32 {
    return (workgroup.y * workgroups.x + workgroup.x) * WORKGROUP_SIZE + local_index;
}

// Threads of a dispatch of WORKGROUP_SIZE workgroups (the stride of a loop over all of them).
fn thread_count(workgroups: vec3<u32>) -> u32 {
    return workgroups.x * workgroups.y * WORKGROUP_SIZE;
}
