// Shared structs and constants. Every host-shared struct here mirrors one #[repr(C)] Rust type
// (src/gpu/layout.rs, src/model.rs); tests/shaders.rs checks sizes and offsets with naga.

const WORKGROUP_SIZE: u32 = 64u;
// Invocations of the single-workgroup substep kernels and of the striped kernel, chosen per
// adapter when the pipelines are built (WorkgroupSizes in src/gpu/plan.rs says why).
override FUSED_WORKGROUP_SIZE: u32 = 256u;
override STRIPE_WORKGROUP_SIZE: u32 = 64u;
// Particles the striped kernel keeps in workgroup memory (STRIPE_CAPACITY in src/model.rs):
// 16 KiB, WebGPU's default workgroup storage limit.
const STRIPE_CAPACITY: u32 = 1024u;
// Set for the striped kernel when every stripe fits STRIPE_CAPACITY: the projections then read
// and write the stripe's copy of its particles in workgroup memory, addressed by stripe slot.
override PARTICLES_IN_WORKGROUP: bool = false;
const MAX_COLLIDERS: u32 = 8u;
const MAX_COLOURS: u32 = 128u;
const COLLIDER_PLANE: u32 = 0u;
const COLLIDER_SPHERE: u32 = 1u;
// Below this length (m) an edge or a doubled triangle area gives no usable direction.
const GEOMETRY_EPSILON: f32 = 1e-9;
// Below this the generalised mass of a constraint is treated as zero.
const DENOMINATOR_EPSILON: f32 = 1e-12;

// A collider: plane (shape = normal xyz, offset w) or sphere (shape = centre xyz, radius w).
struct Collider {
    shape: vec4<f32>,
    kind: u32,
    // Pads the array stride to 32 bytes (uniform arrays need 16-byte multiples).
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// Per-frame parameters (GpuParams in src/gpu/layout.rs).
struct Params {
    // Gravity plus external acceleration (m/s²); w unused.
    acceleration: vec4<f32>,
    // Colours per Gauss-Seidel phase (src/model.rs Phase), in colour table order:
    // [phase 0 stretch, phase 0 bending, phase 1 stretch, phase 1 bending].
    phase_colours: vec4<u32>,
    // [k, α̃] of stretched distance constraints (XPBD eq. 18; PBD k' of §3.3 with α̃ = 0).
    stretch: vec2<f32>,
    // [k, α̃] of compressed distance constraints.
    compression: vec2<f32>,
    // [k, α̃] of bending constraints.
    bending: vec2<f32>,
    // Jacobi over-relaxation ω.
    relaxation: f32,
    // Substep length h (s).
    h: f32,
    // max(0, 1 − damping·h).
    damping_factor: f32,
    friction: f32,
    restitution: f32,
    // Normal speed under which restitution is off (2|g|h).
    restitution_threshold: f32,
    collision_margin: f32,
    particle_count: u32,
    constraint_count: u32,
    stretch_count: u32,
    colour_count: u32,
    substeps: u32,
    iterations: u32,
    collider_count: u32,
    colliders: array<Collider, MAX_COLLIDERS>,
}

// One stretch or bending constraint (Constraint in src/model.rs). Stretch constraints use
// particles[0..2] and leave NO_PARTICLE in the others.
struct Constraint {
    particles: array<u32, 4>,
    rest: f32,
    // The particles' slots in their stripe's particle list, two u16 per u32 (low half first).
    stripe_slots: array<u32, 2>,
}

// Each colour's range of the constraint buffer: x = first constraint, y = count.
struct ColourTable {
    entries: array<vec4<u32>, MAX_COLOURS>,
}

// What one dispatch works on (bound with a dynamic offset into the dispatch table).
struct DispatchInfo {
    // Substep index (predict moves pins by 1/(substeps − substep) of the way).
    substep: u32,
    // Per-colour layout: the colour's constraint range.
    colour_start: u32,
    colour_count: u32,
    // Single-workgroup layout: constraint iterations in this dispatch, and which of the
    // substep's first and last stages it runs (STAGE_PREDICT | STAGE_FINALIZE).
    iterations: u32,
    stages: u32,
    // Striped layout: where the phase's stripe entries start in `lists` (src/gpu/layout.rs
    // `index_lists`), and which phase it is (its colour counts are in params.phase_colours).
    stripe_entries: u32,
    phase: u32,
}

const STAGE_PREDICT: u32 = 1u;
const STAGE_FINALIZE: u32 = 2u;

// Flattens a 2-D grid of workgroups (large cloths exceed 65535 workgroups in x).
fn linear_id(workgroup: vec3<u32>, workgroups: vec3<u32>, local_index: u32) -> u32 {
    return (workgroup.y * workgroups.x + workgroup.x) * WORKGROUP_SIZE + local_index;
}

// Threads of a dispatch of WORKGROUP_SIZE workgroups (the stride of a loop over all of them).
fn thread_count(workgroups: vec3<u32>) -> u32 {
    return workgroups.x * workgroups.y * WORKGROUP_SIZE;
}
