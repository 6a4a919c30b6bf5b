// Stage 2 (Jacobi) — every constraint reads the same positions and writes its corrections into
// its own four slots; then each particle gathers its slots in a fixed order and applies
// ω/n_i of the sum. No float atomics, so results are deterministic.

fn jacobi_stretch(c: u32) {
    let s = stretch_projection(c);
    // Slots 2 and 3 of a stretch constraint belong to no particle's gather list.
    corrections[4u * c] = vec4<f32>(s.k.dp0, 0.0);
    corrections[4u * c + 1u] = vec4<f32>(s.k.dp1, 0.0);
    lambdas[c] = s.lambda + s.k.dlambda;
}

fn jacobi_bending(c: u32) {
    let s = bending_projection(c);
    let base = 4u * c;
    corrections[base] = vec4<f32>(s.k.dp0, 0.0);
    corrections[base + 1u] = vec4<f32>(s.k.dp1, 0.0);
    corrections[base + 2u] = vec4<f32>(s.k.dp2, 0.0);
    corrections[base + 3u] = vec4<f32>(s.k.dp3, 0.0);
    lambdas[c] = s.lambda + s.k.dlambda;
}

// Thread t projects stretch constraint t and bending constraint t (dispatched over the larger
// count): both kinds' code runs in every thread, and none of it is wasted.
fn jacobi_correct_pair(t: u32) {
    if (t < params.stretch_count) {
        jacobi_stretch(t);
    }
    if (t < params.constraint_count - params.stretch_count) {
        jacobi_bending(params.stretch_count + t);
    }
}

fn jacobi_gather(i: u32) {
    let start = lists[i];
    let end = lists[i + 1u];
    if (end == start) {
        return;
    }
    let items = params.particle_count + 1u;
    var sum = vec3<f32>(0.0);
    for (var s = start; s < end; s += 1u) {
        sum += corrections[lists[items + s]].xyz;
    }
    predicted[i] += vec4<f32>(sum * (params.relaxation / f32(end - start)), 0.0);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn jacobi_project(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    jacobi_correct_pair(linear_id(workgroup, workgroups, local_index));
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
