// Stage 3 — collide and update velocities (PBD Alg. 1 lines 8, 12–16): project every collider's
// inequality constraint (PBD §3.4, stiffness 1) on p = x + q so no substep ends inside a
// collider, then v = q/h, x = x + q, and friction and restitution for particles that touched a
// collider. The velocity comes from the displacement q, never from a difference of metre-scale
// positions, so its rounding is relative to the motion. Pinned particles take their kinematic
// velocity and end the frame exactly on their target.

fn finalize_particle(i: u32) {
    let state = velocities[i];
    if (state.w == 0.0) {
        return; // a pin: its thread finalizes it
    }
    let x = positions[i].xyz;
    var q = state.xyz;
    let approach = q / params.h;
    var contacts: array<Contact, MAX_COLLIDERS>;
    var contact_count = 0u;
    for (var k = 0u; k < params.collider_count; k += 1u) {
        let hit = collide(params.colliders[k], x, x + q, params.collision_margin);
        if (hit.hit) {
            q += hit.contact.normal * hit.contact.depth;
            contacts[contact_count] = hit.contact;
            contact_count += 1u;
        }
    }
    var v = q / params.h;
    for (var k = 0u; k < contact_count; k += 1u) {
        v = contact_velocity(
            v, approach, contacts[k], params.h, params.friction, params.restitution,
            params.restitution_threshold,
        );
    }
    positions[i] = vec4<f32>(x + q, 1.0);
    velocities[i] = vec4<f32>(v, state.w);
}

fn finalize_pin(pin: Pin, substep: u32) {
    let q = velocities[pin.particle].xyz;
    let x = positions[pin.particle].xyz;
    let last = substep + 1u == params.substeps;
    positions[pin.particle] = vec4<f32>(select(x + q, pin.position, last), 1.0);
    velocities[pin.particle] = vec4<f32>(q / params.h, 0.0);
}

// Thread i finalizes particle i and pin i.
fn finalize_thread(i: u32, substep: u32) {
    if (i < params.particle_count) {
        finalize_particle(i);
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
    finalize_thread(linear_id(workgroup, workgroups, local_index), dispatch.substep);
}

// The end of one substep and the start of the next (dispatch.substep) in one dispatch: both
// work particle by particle (and pin by pin, on the same thread), so nothing waits between them.
@compute @workgroup_size(WORKGROUP_SIZE)
fn finalize_and_predict(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let i = linear_id(workgroup, workgroups, local_index);
    finalize_thread(i, dispatch.substep - 1u);
    predict_thread(i, dispatch.substep);
}
