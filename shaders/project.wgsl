// Stage 2 — coloured Gauss-Seidel projection (PBD §3.2): the constraints of one colour share no
// particle, so each thread projects one and writes its particles directly. Stretch and bending
// have separate functions and loops (a colour holds one kind), so no thread pays for the other
// kind's code. Kernels: one colour per dispatch, or one phase of stripes per dispatch.

// A constraint's correction with what it was computed from: particle indices, predicted
// positions (inverse mass in w) and multiplier, loaded once so that Gauss-Seidel writes back
// without reloading them (each load is a gather on SIMD CPU drivers). Jacobi uses it too.
struct Projection {
    index: array<u32, 4>,
    p: array<vec4<f32>, 4>,
    lambda: f32,
    k: Correction,
}

fn stretch_projection(c: u32) -> Projection {
    var s: Projection;
    s.index[0] = constraints[c].particles[0];
    s.index[1] = constraints[c].particles[1];
    s.p[0] = predicted[s.index[0]];
    s.p[1] = predicted[s.index[1]];
    s.lambda = lambdas[c];
    s.k = distance_correction(
        s.p[0].xyz, s.p[1].xyz, s.p[0].w, s.p[1].w, constraints[c].rest, s.lambda, params.stretch,
        params.compression,
    );
    return s;
}

fn bending_projection(c: u32) -> Projection {
    var s: Projection;
    s.index = constraints[c].particles;
    s.p[0] = predicted[s.index[0]];
    s.p[1] = predicted[s.index[1]];
    s.p[2] = predicted[s.index[2]];
    s.p[3] = predicted[s.index[3]];
    s.lambda = lambdas[c];
    let w = vec4<f32>(s.p[0].w, s.p[1].w, s.p[2].w, s.p[3].w);
    s.k = bending_correction(
        s.p[0].xyz, s.p[1].xyz, s.p[2].xyz, s.p[3].xyz, w, constraints[c].rest, s.lambda, params.bending,
    );
    return s;
}

// Moves particle j of `s` by `dp`, keeping its inverse mass.
fn write_back(s: Projection, j: u32, dp: vec3<f32>) {
    predicted[s.index[j]] = vec4<f32>(s.p[j].xyz + dp, s.p[j].w);
}

fn project_stretch(c: u32) {
    let s = stretch_projection(c);
    write_back(s, 0u, s.k.dp0);
    write_back(s, 1u, s.k.dp1);
    lambdas[c] = s.lambda + s.k.dlambda;
}

fn project_bending(c: u32) {
    let s = bending_projection(c);
    write_back(s, 0u, s.k.dp0);
    write_back(s, 1u, s.k.dp1);
    write_back(s, 2u, s.k.dp2);
    write_back(s, 3u, s.k.dp3);
    lambdas[c] = s.lambda + s.k.dlambda;
}

// One thread's share of a colour range (x = first constraint, y = count): constraints
// x + k for k = first, first + stride, … below y. Used by the single-workgroup and striped
// kernels, which put a storage barrier after each colour.
fn project_stretch_share(range: vec2<u32>, first: u32, stride: u32) {
    for (var k = first; k < range.y; k += stride) {
        project_stretch(range.x + k);
    }
}

fn project_bending_share(range: vec2<u32>, first: u32, stride: u32) {
    for (var k = first; k < range.y; k += stride) {
        project_bending(range.x + k);
    }
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
        let range = vec2<u32>(lists[base + 2u * j], lists[base + 2u * j + 1u]);
        project_stretch_share(range, local_index, STRIPE_WORKGROUP_SIZE);
        storageBarrier();
    }
    for (var j = dispatch.stretch_colours; j < colours; j += 1u) {
        let range = vec2<u32>(lists[base + 2u * j], lists[base + 2u * j + 1u]);
        project_bending_share(range, local_index, STRIPE_WORKGROUP_SIZE);
        storageBarrier();
    }
}
