// Predict (PBD Alg. 1 lines 5–7; src/passes/predict.rs): v̄ = (v + h(g + a + (a_air +
// a_springs)))·damping, and the substep's displacement starts at q = h·v̄ (with no projection to
// follow, semi-implicit Euler). Between predict and finalize the velocity buffer holds q
// (src/gpu/solver.rs says why). Pinned
// particles move a 1/(substeps − substep) share of the way to their target, so they reach it
// at the end of the frame with a uniform kinematic velocity.

// Its bindings (group 1, shared with finalize) are generated from src/passes/predict.rs.

// A free particle's predicted displacement under the forces' acceleration `forces`; pinned ones
// are left to their pin's thread.
fn predict_particle(i: u32, forces: vec3<f32>) {
    let v = velocities[i];
    if (v.w > 0.0) {
        let acceleration = params.acceleration.xyz + forces;
        let predicted_velocity = (v.xyz + acceleration * params.h) * params.damping_factor;
        let predicted = predicted_velocity * params.h;
        velocities[i] = vec4<f32>(predicted, v.w);
        // Kept for finalize's restitution while a collider bounces (a record per particle; a
        // single record otherwise, which finalize does not read).
        if (arrayLength(&particle_contacts) >= params.particle_count) {
            particle_contacts[i].predicted = predicted;
        }
    }
}

// A pinned particle's displacement in `substep`: a 1/remaining share of the way to its target
// (kinematic_step in src/passes/predict.rs).
fn predict_pin(pin: Pin, substep: u32) {
    if (pin.collider != NOT_ATTACHED) {
        return; // moved by attach_pins (shaders/passes/attachments.wgsl)
    }
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
