// The iterations by Jacobi — every unit reads the same positions and writes its scaled corrections into
// its own slots (jacobi_unit and jacobi_unit_count are generated in src/passes/iterations/unit_dispatch.rs from the
// unit types); then each
// particle adds its slots, summed in a fixed order. No float atomics, so results are
// deterministic.

// Particle i adds its slots to its displacement.
fn jacobi_gather(i: u32) {
    let start = jacobi_plan[i];
    let end = jacobi_plan[i + 1u];
    var sum = vec3<f32>(0.0);
    for (var s = start; s < end; s += 1u) {
        sum += corrections[jacobi_plan[params.constraints.jacobi_items + s]].xyz;
    }
    let state = velocities[i];
    velocities[i] = vec4<f32>(state.xyz + sum, state.w);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn jacobi_project(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    reset_multipliers = dispatch.first_iteration == 0u;
    jacobi_unit(linear_id(workgroup, workgroups, local_index));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn jacobi_apply(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let i = linear_id(workgroup, workgroups, local_index);
    if (i < params.particle_count) {
        jacobi_gather(i);
    }
}

// dispatch.iterations Jacobi iterations in one workgroup (see project_substep).
@compute @workgroup_size(SUBSTEP_WORKGROUP_SIZE)
fn jacobi_substep(@builtin(local_invocation_index) local_index: u32) {
    let units = jacobi_unit_count();
    for (var iteration = 0u; iteration < dispatch.iterations; iteration += 1u) {
        reset_multipliers = dispatch.first_iteration + iteration == 0u;
        for (var t = local_index; t < units; t += SUBSTEP_WORKGROUP_SIZE) {
            jacobi_unit(t);
        }
        storageBarrier();
        for (var i = local_index; i < params.particle_count; i += SUBSTEP_WORKGROUP_SIZE) {
            jacobi_gather(i);
        }
        storageBarrier();
    }
}
