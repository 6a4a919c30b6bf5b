// Stage 2 — coloured Gauss-Seidel projection (PBD §3.2): the constraints of one colour share no
// particle, so each thread projects one and writes its particles directly.

// The correction of constraint `con` (index c) from the current predicted positions.
fn constraint_correction(c: u32, con: Constraint) -> Correction {
    let a = predicted[con.particles[0]];
    let b = predicted[con.particles[1]];
    if (c < params.stretch_count) {
        return distance_correction(a.xyz, b.xyz, a.w, b.w, con.rest, lambdas[c], params.stretch, params.compression);
    }
    let e = predicted[con.particles[2]];
    let f = predicted[con.particles[3]];
    return bending_correction(
        a.xyz, b.xyz, e.xyz, f.xyz, vec4<f32>(a.w, b.w, e.w, f.w), con.rest, lambdas[c], params.bending,
    );
}

fn project_gauss_seidel(c: u32) {
    let con = constraints[c];
    let k = constraint_correction(c, con);
    if (!k.valid) {
        return;
    }
    predicted[con.particles[0]] += vec4<f32>(k.dp0, 0.0);
    predicted[con.particles[1]] += vec4<f32>(k.dp1, 0.0);
    if (c >= params.stretch_count) {
        predicted[con.particles[2]] += vec4<f32>(k.dp2, 0.0);
        predicted[con.particles[3]] += vec4<f32>(k.dp3, 0.0);
    }
    lambdas[c] += k.dlambda;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn project_colour(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let k = linear_id(workgroup, workgroups, local_index);
    if (k < dispatch.colour_count) {
        project_gauss_seidel(dispatch.colour_start + k);
    }
}
