// Stage 2 — coloured Gauss-Seidel projection (PBD §3.2): the constraints of one colour share no
// particle, so each thread projects one and writes its particles directly. Stretch and bending
// have separate functions and kernels (a colour holds one kind), so no thread pays for the
// other kind's code.

fn project_stretch(c: u32) {
    let i0 = constraints[c].particles[0];
    let i1 = constraints[c].particles[1];
    let a = predicted[i0];
    let b = predicted[i1];
    let lambda = lambdas[c];
    let k = distance_correction(
        a.xyz, b.xyz, a.w, b.w, constraints[c].rest, lambda, params.stretch, params.compression,
    );
    predicted[i0] = vec4<f32>(a.xyz + k.dp0, a.w);
    predicted[i1] = vec4<f32>(b.xyz + k.dp1, b.w);
    lambdas[c] = lambda + k.dlambda;
}

fn project_bending(c: u32) {
    let i = constraints[c].particles;
    let a = predicted[i[0]];
    let b = predicted[i[1]];
    let e = predicted[i[2]];
    let f = predicted[i[3]];
    let lambda = lambdas[c];
    let k = bending_correction(
        a.xyz, b.xyz, e.xyz, f.xyz, vec4<f32>(a.w, b.w, e.w, f.w), constraints[c].rest, lambda,
        params.bending,
    );
    predicted[i[0]] = vec4<f32>(a.xyz + k.dp0, a.w);
    predicted[i[1]] = vec4<f32>(b.xyz + k.dp1, b.w);
    predicted[i[2]] = vec4<f32>(e.xyz + k.dp2, e.w);
    predicted[i[3]] = vec4<f32>(f.xyz + k.dp3, f.w);
    lambdas[c] = lambda + k.dlambda;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn project_stretch_colour(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let k = linear_id(workgroup, workgroups, local_index);
    if (k < dispatch.colour_count) {
        project_stretch(dispatch.colour_start + k);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn project_bending_colour(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let k = linear_id(workgroup, workgroups, local_index);
    if (k < dispatch.colour_count) {
        project_bending(dispatch.colour_start + k);
    }
}
