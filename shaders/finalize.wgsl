// Stage 3 — collide and update velocities (PBD Alg. 1 lines 8, 12–16): project every collider's
// inequality constraint (PBD §3.4, stiffness 1) so no substep ends inside a collider, then
// v = (p − x)/h, x = p, and friction and restitution for particles that touched a collider.

fn finalize_particle(i: u32) {
    let x = positions[i].xyz;
    let predicted_i = predicted[i];
    var p = predicted_i.xyz;
    let v_before = velocities[i].xyz;
    var contacts: array<Contact, MAX_COLLIDERS>;
    var contact_count = 0u;
    if (predicted_i.w > 0.0) {
        for (var k = 0u; k < params.collider_count; k += 1u) {
            let collider = params.colliders[k];
            var hit: Hit;
            if (collider.kind == COLLIDER_PLANE) {
                hit = collide_plane(p, collider.shape.xyz, collider.shape.w, params.collision_margin);
            } else if (collider.kind == COLLIDER_SPHERE) {
                hit = collide_sphere(x, p, collider.shape.xyz, collider.shape.w, params.collision_margin);
            }
            if (hit.hit) {
                p = hit.position;
                contacts[contact_count] = hit.contact;
                contact_count += 1u;
            }
        }
    }
    // v = (p − x)/h (PBD Alg. 1 line 13), evaluated as v̄ + (p − p̄)/h with the pre-solve
    // prediction p̄ = x + h·v̄ recomputed exactly as predict made it: equal in exact arithmetic,
    // but the rounding of x + h·v̄ no longer leaks into the velocity (it costs free fall ~0.1 %
    // of g at 10 substeps otherwise).
    let p_before = x + v_before * params.h;
    var v = v_before + (p - p_before) / params.h;
    for (var k = 0u; k < contact_count; k += 1u) {
        v = contact_velocity(
            v, v_before, contacts[k], params.h, params.friction, params.restitution,
            params.restitution_threshold,
        );
    }
    positions[i] = vec4<f32>(p, 1.0);
    predicted[i] = vec4<f32>(p, predicted_i.w);
    velocities[i] = vec4<f32>(v, 0.0);
}

// The end of one substep and the start of the next (dispatch.substep) in one dispatch: both
// work particle by particle, so nothing has to wait between them.
@compute @workgroup_size(WORKGROUP_SIZE)
fn finalize_and_predict(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let i = linear_id(workgroup, workgroups, local_index);
    finalize_thread(i);
    predict_and_reset(i, thread_count(workgroups), dispatch.substep);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn finalize(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    finalize_thread(linear_id(workgroup, workgroups, local_index));
}

// Thread i of a dispatch over the particles finalizes particle i.
fn finalize_thread(i: u32) {
    if (i < params.particle_count) {
        finalize_particle(i);
    }
}
