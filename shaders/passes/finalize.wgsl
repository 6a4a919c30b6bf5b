// Finalize — collide and update velocities (PBD Alg. 1 lines 8, 12–16): every free particle's
// collision response (shaders/collision.wgsl: the contact projection against every collider at
// once, so no substep ends inside one, and friction), then v = q/h and x = x + q. The velocity
// comes from the displacement q, never from a difference of metre-scale positions, so its
// rounding is relative to the motion. Pinned particles take their kinematic velocity and end
// the frame exactly on their target. The frame's last finalize advances the clock.

fn finalize_particle(i: u32, substep: u32) {
    let state = velocities[i];
    if (state.w == 0.0) {
        return; // a pin: its thread finalizes it
    }
    let x = positions[i].xyz;
    // A record per particle while the contacts are projected in the iterations on a cloth with
    // colliders (its contacts written after predict) or a collider bounces (its predicted
    // displacement written by predict); otherwise a single record, unread: every restitution is
    // then zero, and the zeroed record's contacts are not read.
    let iteration_contacts = params.iteration_contacts != 0u && collider_list.count > 0u;
    var earlier: SubstepContacts;
    if (arrayLength(&particle_contacts) >= params.particle_count) {
        earlier = particle_contacts[i];
    }
    let response = respond_to_colliders(x, state.xyz, earlier.predicted, earlier, iteration_contacts, substep);
    if (response.overflow) {
        atomicAdd(&collider_list.overflow, 1u);
    }
    var v = response.v;
    if (atomicLoad(&collider_list.depenetrating) != 0u) {
        let acceleration = length(params.acceleration.xyz);
        let start_speed = frame_start[1u + i];
        let limit = depenetration_speed_limit(start_speed, params.max_depenetration_speed, acceleration, params.h, substep);
        v = limit_speed(v, limit);
    }
    positions[i] = vec4<f32>(x + response.q, 1.0);
    velocities[i] = vec4<f32>(v, state.w);
}

// A pin ends the frame on its target, and an attached one every substep on its collider's
// point (shaders/passes/attachments.wgsl).
fn finalize_pin(pin: Pin, substep: u32) {
    let q = velocities[pin.particle].xyz;
    let x = positions[pin.particle].xyz;
    let last = substep + 1u == params.substeps;
    var end = select(x + q, pin.position, last);
    if (pin.collider != NOT_ATTACHED) {
        end = attachment_target(pin, substep);
    }
    positions[pin.particle] = vec4<f32>(end, 1.0);
    velocities[pin.particle] = vec4<f32>(q / params.h, 0.0);
}

// The clock after a frame of `dt` seconds, wrapped every CLOCK_PERIOD seconds (generated from
// its twin) so that f32 keeps resolving a frame (advanced_clock in src/passes/air.rs).

fn advanced_clock(time: f32, dt: f32) -> f32 {
    let next = time + dt;
    return select(next, next - CLOCK_PERIOD, next >= CLOCK_PERIOD);
}

// Thread i finalizes particle i and pin i.
fn finalize_thread(i: u32, substep: u32) {
    if (i < params.particle_count) {
        finalize_particle(i, substep);
    }
    if (i < params.pin_count) {
        finalize_pin(pins[i], substep);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn finalize(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let i = linear_id(workgroup, workgroups, local_index);
    finalize_thread(i, dispatch.substep);
    if (i == 0u && dispatch.substep + 1u == params.substeps) {
        frame_start[0] = advanced_clock(frame_start[0], params.h * f32(params.substeps));
    }
}

// The end of one substep and the start of the next (dispatch.substep) in one dispatch: both
// work particle by particle (and pin by pin, on the same thread), so nothing waits between them.
// Only without air or springs (src/passes/predict.rs): they act on the state between them. Not referencing
// the air's accelerations here matters on llvmpipe, which ran this kernel 2.6 times slower when
// it did (64², 20 substeps: 350 against 135 ms per frame), even behind a branch that skipped
// the read.
@compute @workgroup_size(WORKGROUP_SIZE)
fn finalize_and_predict(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let i = linear_id(workgroup, workgroups, local_index);
    finalize_thread(i, dispatch.substep - 1u);
    predict_thread(i, dispatch.substep, vec3<f32>(0.0));
}
