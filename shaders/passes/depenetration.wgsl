// Bounded depenetration (src/passes/depenetration.rs): once per frame, before the first substep,
// the flag cleared (clear_depenetration), then set when a free particle starts the frame inside
// a collider, with every particle's speed recorded (find_depenetration); finalize bounds the
// speeds of a frame whose flag is set. The collision library (shaders/collision.wgsl) comes
// before this file; the bindings are generated from src/passes/depenetration.rs.

@compute @workgroup_size(1)
fn clear_depenetration() {
    atomicStore(&collider_list.depenetrating, 0u);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn find_depenetration(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let i = linear_id(workgroup, workgroups, local_index);
    if (i >= params.particle_count) {
        return;
    }
    let v = velocities[i];
    frame_start[1u + i] = length(v.xyz);
    if (v.w > 0.0 && starts_inside(positions[i].xyz)) {
        // Every writer stores the same value: the result does not depend on their order.
        atomicMax(&collider_list.depenetrating, 1u);
    }
}
