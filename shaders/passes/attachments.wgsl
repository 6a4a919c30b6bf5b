// Attachments to colliders (src/passes/attachments.rs): an attached pin's displacement in a
// substep is the way to its collider's point at the substep's end; finalize
// (shaders/passes/finalize.wgsl) puts it there.

// attachment_target in src/passes/attachments.rs: where `pin` (attached) is at the end of
// `substep`.
fn attachment_target(pin: Pin, substep: u32) -> vec3<f32> {
    let motion = substep_motion(collider_list.colliders[pin.collider], substep, params.substeps);
    return rotate(motion.end.rotation, pin.position) + motion.end.translation;
}

// Thread k gives pin k, if attached, its displacement in the dispatch's substep.
@compute @workgroup_size(WORKGROUP_SIZE)
fn attach_pins(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let k = linear_id(workgroup, workgroups, local_index);
    if (k >= params.pin_count) {
        return;
    }
    let pin = pins[k];
    if (pin.collider == NOT_ATTACHED) {
        return;
    }
    let x = positions[pin.particle].xyz;
    velocities[pin.particle] = vec4<f32>(attachment_target(pin, dispatch.substep) - x, 0.0);
}
