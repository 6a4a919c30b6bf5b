// Stage 2 (Jacobi) — every constraint reads the same positions and writes its corrections into
// its own four slots; then each particle gathers its slots in a fixed order and applies
// ω/n_i of the sum. No float atomics, so results are deterministic.

fn jacobi_stretch(c: u32) {
    let s = stretch_projection(c);
    write_pair_corrections(c, s.lambda, s.k);
}

// Constraint c's corrections of its first two particles (slots 0 and 1) and its multiplier: all
// of a stretch constraint's, whose slots 2 and 3 belong to no particle's gather list.
fn write_pair_corrections(c: u32, lambda: f32, k: Correction) {
    corrections[4u * c] = vec4<f32>(k.dp0, 0.0);
    corrections[4u * c + 1u] = vec4<f32>(k.dp1, 0.0);
    lambdas[c] = lambda + k.dlambda;
}

// A hinge (src/model.rs): bending constraint c and the stretch constraint of its edge, both
// from the same positions, which are loaded once for the two.
fn jacobi_hinge(c: u32) {
    let s = bending_projection(c);
    let edge = c - params.stretch_count;
    let edge_lambda = lambdas[edge];
    write_pair_corrections(edge, edge_lambda, edge_correction(s, edge, edge_lambda));
    write_pair_corrections(c, s.lambda, s.k);
    corrections[4u * c + 2u] = vec4<f32>(s.k.dp2, 0.0);
    corrections[4u * c + 3u] = vec4<f32>(s.k.dp3, 0.0);
}

// Thread t projects edge t: hinge t (bending constraint stretch_count + t with its edge, stretch
// constraint t) or, past the hinges, a free edge. One thread per stretch constraint projects
// every constraint once.
fn jacobi_correct_edge(t: u32) {
    let hinges = params.constraint_count - params.stretch_count;
    if (t < hinges) {
        jacobi_hinge(params.stretch_count + t);
    } else if (t < params.stretch_count) {
        jacobi_stretch(t);
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
    jacobi_correct_edge(linear_id(workgroup, workgroups, local_index));
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
