// Stage 2 (Jacobi) — every constraint reads the same positions and writes its corrections into
// its own four slots; then each particle gathers its slots in a fixed order and applies
// ω/n_i of the sum. No float atomics, so results are deterministic.

fn jacobi_correct(c: u32) {
    let k = constraint_correction(c, constraints[c]);
    let base = 4u * c;
    corrections[base] = vec4<f32>(k.dp0, 0.0);
    corrections[base + 1u] = vec4<f32>(k.dp1, 0.0);
    corrections[base + 2u] = vec4<f32>(k.dp2, 0.0);
    corrections[base + 3u] = vec4<f32>(k.dp3, 0.0);
    lambdas[c] += k.dlambda;
}

fn jacobi_gather(i: u32) {
    let start = slot_lists[i];
    let end = slot_lists[i + 1u];
    if (end == start) {
        return;
    }
    let items = params.particle_count + 1u;
    var sum = vec3<f32>(0.0);
    for (var s = start; s < end; s += 1u) {
        sum += corrections[slot_lists[items + s]].xyz;
    }
    predicted[i] += vec4<f32>(sum * (params.relaxation / f32(end - start)), 0.0);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn jacobi_project(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let c = linear_id(workgroup, workgroups, local_index);
    if (c < params.constraint_count) {
        jacobi_correct(c);
    }
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
