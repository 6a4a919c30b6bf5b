// Stage 2 — coloured Gauss-Seidel projection (PBD §3.2): the constraints of one colour share no
// particle, so each thread projects one and writes its particles directly. Stretch and bending
// have separate functions and loops (a colour holds one kind), so no thread pays for the other
// kind's code. Kernels: one colour per dispatch, or one phase of stripes per dispatch.

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

// One phase of a Gauss-Seidel iteration: workgroup w projects stripe w of the phase colour by
// colour, with a storage barrier after each colour. Stripes of one phase share no particle
// (src/stripes.rs), so they need no synchronisation with each other: a whole phase, whatever
// its colour count, is one dispatch. Stripe w's ranges are (start, count) pairs in `lists`.
@compute @workgroup_size(STRIPE_WORKGROUP_SIZE)
fn project_stripes(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let colours = dispatch.stretch_colours + dispatch.bending_colours;
    let base = dispatch.stripe_ranges + 2u * workgroup.x * colours;
    for (var j = 0u; j < dispatch.stretch_colours; j += 1u) {
        let start = lists[base + 2u * j];
        let count = lists[base + 2u * j + 1u];
        for (var k = local_index; k < count; k += STRIPE_WORKGROUP_SIZE) {
            project_stretch(start + k);
        }
        storageBarrier();
    }
    for (var j = dispatch.stretch_colours; j < colours; j += 1u) {
        let start = lists[base + 2u * j];
        let count = lists[base + 2u * j + 1u];
        for (var k = local_index; k < count; k += STRIPE_WORKGROUP_SIZE) {
            project_bending(start + k);
        }
        storageBarrier();
    }
}
