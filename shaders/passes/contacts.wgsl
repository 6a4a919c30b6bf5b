// The collider contacts inside the iterations (src/passes/contacts.rs): after predict, each free
// particle's substep contacts (find_contacts); after every iteration, its projection into them
// (project_contacts). The collision library (shaders/collision.wgsl) comes before this file; the
// bindings are generated from src/passes/contacts.rs.

@compute @workgroup_size(WORKGROUP_SIZE)
fn find_contacts(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let i = linear_id(workgroup, workgroups, local_index);
    if (i >= params.particle_count) {
        return;
    }
    let state = velocities[i];
    if (state.w > 0.0) {
        particle_contacts[i] = substep_contacts(positions[i].xyz, state.xyz, dispatch.substep);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn project_contacts(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let i = linear_id(workgroup, workgroups, local_index);
    if (i >= params.particle_count) {
        return;
    }
    let state = velocities[i];
    if (state.w == 0.0) {
        return;
    }
    let contacts = particle_contacts[i];
    if (substep_contact_count(contacts) > 0u) {
        velocities[i] = vec4<f32>(project_substep_contacts(positions[i].xyz, state.xyz, contacts), state.w);
    }
}
