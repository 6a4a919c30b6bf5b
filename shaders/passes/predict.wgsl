// The integrate module's particle bindings (group 1) and stage 1 — predict (PBD Alg. 1 lines
// 5–7): v̄ = (v + h(g + a + (a_air + a_springs)))·damping, and the substep's displacement starts
// at q = h·v̄ (with no projection to follow, semi-implicit Euler). Between
// predict and finalize the velocity buffer holds q (src/gpu/solver.rs says why). Pinned
// particles move a 1/(substeps − substep) share of the way to their target, so they reach it
// at the end of the frame with a uniform kinematic velocity.

// x: positions at the start of the substep (xyz, w = 1), drawn directly as a vertex buffer.
@group(1) @binding(0) var<storage, read_write> positions: array<vec4<f32>>;
// Between substeps the velocity v (m/s); from predict to finalize the substep's displacement
// q = p − x (m). w: the inverse mass (0 = pinned).
@group(1) @binding(1) var<storage, read_write> velocities: array<vec4<f32>>;
// The pinned particles and their targets.
@group(1) @binding(2) var<storage, read> pins: array<Pin>;
// Each particle's acceleration from the air (m/s², shaders/passes/air.wgsl): zero without air,
// and a single zero entry until the air is first used.
@group(1) @binding(3) var<storage, read> air_accelerations: array<vec4<f32>>;
// [time at the start of the frame (s)], advanced by the frame's last finalize.
@group(1) @binding(4) var<storage, read_write> clock: array<f32>;
// Each particle's acceleration from its springs (m/s², shaders/passes/springs.wgsl): zero outside
// mass-spring mode, and a single zero entry until that mode is first used.
@group(1) @binding(5) var<storage, read> spring_accelerations: array<vec4<f32>>;

// A free particle's predicted displacement under the forces' acceleration `forces`; pinned ones
// are left to their pin's thread.
fn predict_particle(i: u32, forces: vec3<f32>) {
    let v = velocities[i];
    if (v.w > 0.0) {
        let acceleration = params.acceleration.xyz + forces;
        let predicted_velocity = (v.xyz + acceleration * params.h) * params.damping_factor;
        velocities[i] = vec4<f32>(predicted_velocity * params.h, v.w);
    }
}

// A pinned particle's displacement in `substep`: a 1/remaining share of the way to its target
// (kinematic_step in src/reference.rs).
fn predict_pin(pin: Pin, substep: u32) {
    let x = positions[pin.particle].xyz;
    let remaining = params.substeps - substep;
    let q = select((pin.position - x) / f32(remaining), pin.position - x, remaining == 1u);
    velocities[pin.particle] = vec4<f32>(q, 0.0);
}

// Thread i predicts particle i (under `forces`) and pin i.
fn predict_thread(i: u32, substep: u32, forces: vec3<f32>) {
    if (i < params.particle_count) {
        predict_particle(i, forces);
    }
    if (i < params.pin_count) {
        predict_pin(pins[i], substep);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn predict(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let i = linear_id(workgroup, workgroups, local_index);
    let air = air_accelerations[min(i, arrayLength(&air_accelerations) - 1u)].xyz;
    let springs = spring_accelerations[min(i, arrayLength(&spring_accelerations) - 1u)].xyz;
    predict_thread(i, dispatch.substep, air + springs);
}
