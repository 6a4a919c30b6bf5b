// Tethers: long-range attachments (src/passes/tethers.rs: same names, same argument order),
// and the kernel that projects them, a thread per tethered particle, once per substep after the
// iterations. Anchors are pinned, so each thread writes only its own particle's displacement.

// The bindings are generated from src/passes/tethers.rs.

// What the kernel reads of the tethers (GpuTetherParams).
struct TetherParams {
    // [k, α̃] of one projection per substep.
    response: vec2<f32>,
    // The length limit's scale.
    scale: f32,
    // Tethered particles.
    particle_count: u32,
}

// Tether C = |p − a| − limit ≤ 0 moving only p (the anchor is pinned): Δλ = k(−C)/(w + α̃),
// Δp = wΔλ(p − a)/|p − a|, zero while C ≤ 0 (XPBD eq. 18 with λ = 0).
fn tether_correction(p: vec3<f32>, a: vec3<f32>, limit: f32, w: f32, response: vec2<f32>) -> vec3<f32> {
    let delta = p - a;
    let len = length(delta);
    let c = len - limit;
    let denominator = w + response.y;
    let pulling = (c > 0.0) & (len >= GEOMETRY_EPSILON) & (denominator >= DENOMINATOR_EPSILON);
    let dlambda = select(0.0, response.x * -c / max(denominator, DENOMINATOR_EPSILON), pulling);
    return delta / max(len, GEOMETRY_EPSILON) * (w * dlambda);
}

// Projects the k-th tethered particle's tethers in order (project_tethers in
// src/passes/tethers.rs).
fn project_particle_tethers(k: u32) {
    let count = params.tethers.particle_count;
    let i = tethers[k];
    let state = velocities[i];
    let x = positions[i].xyz;
    var q = state.xyz;
    for (var j = tethers[count + k]; j < tethers[count + k + 1u]; j += 1u) {
        let pair = 2u * count + 1u + 2u * j;
        let anchor = tethers[pair];
        let a = positions[anchor].xyz + velocities[anchor].xyz;
        let limit = params.tethers.scale * bitcast<f32>(tethers[pair + 1u]);
        q += tether_correction(x + q, a, limit, state.w, params.tethers.response);
    }
    velocities[i] = vec4<f32>(q, state.w);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn project_tethers(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let k = linear_id(workgroup, workgroups, local_index);
    if (k < params.tethers.particle_count) {
        project_particle_tethers(k);
    }
}
