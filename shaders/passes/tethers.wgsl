// Tethers: long-range attachments (src/passes/tethers.rs: same names, same argument order),
// and the kernel that projects them, a thread per tethered particle, once per substep after the
// iterations. Anchors are pinned, so each thread writes only its own particle's displacement.

// The bindings are generated from src/passes/tethers.rs.

// What the kernel reads of the tethers (GpuTetherParams).
struct TetherParams {
    // [k, α̃] of each sweep.
    response: vec2<f32>,
    // The length limit's scale.
    scale: f32,
    // Tethered particles.
    particle_count: u32,
}

// tether_correction's result: the particle's move and the multiplier's change.
struct TetherStep {
    dp: vec3<f32>,
    dlambda: f32,
}

// Tether C = |p − a| − limit ≤ 0 moving only p (the anchor is pinned), its multiplier lambda so
// far: Δλ = k(−C − α̃λ)/(w + α̃), Δp = wΔλ(p − a)/|p − a|, both zero while C ≤ 0 (XPBD eq. 18).
fn tether_correction(p: vec3<f32>, a: vec3<f32>, limit: f32, w: f32, response: vec2<f32>, lambda: f32) -> TetherStep {
    let delta = p - a;
    let len = length(delta);
    let c = len - limit;
    let denominator = w + response.y;
    let pulling = (c > 0.0) & (len >= GEOMETRY_EPSILON) & (denominator >= DENOMINATOR_EPSILON);
    let dlambda = select(0.0, response.x * (-c - response.y * lambda) / max(denominator, DENOMINATOR_EPSILON), pulling);
    return TetherStep(delta / max(len, GEOMETRY_EPSILON) * (w * dlambda), dlambda);
}

// Projects the k-th tethered particle's tethers in TETHER_SWEEPS sweeps, each moving it by the
// mean of the tethers' corrections from one position, weighted by their multipliers' changes
// (project_tethers in src/passes/tethers.rs).
fn project_particle_tethers(k: u32) {
    let count = params.tethers.particle_count;
    let i = tethers[k];
    let state = velocities[i];
    let x = positions[i].xyz;
    var q = state.xyz;
    var lambdas: array<f32, MAX_ANCHORS>;
    let first = tethers[count + k];
    let end = tethers[count + k + 1u];
    for (var sweep = 0u; sweep < TETHER_SWEEPS; sweep += 1u) {
        var sum = vec3<f32>(0.0);
        var weights = 0.0;
        var steps: array<f32, MAX_ANCHORS>;
        for (var j = first; j < end; j += 1u) {
            let pair = 2u * count + 1u + 2u * j;
            let anchor = tethers[pair];
            let a = positions[anchor].xyz + velocities[anchor].xyz;
            let limit = params.tethers.scale * bitcast<f32>(tethers[pair + 1u]);
            let step = tether_correction(x + q, a, limit, state.w, params.tethers.response, lambdas[j - first]);
            sum += step.dp * abs(step.dlambda);
            weights += abs(step.dlambda);
            steps[j - first] = step.dlambda;
        }
        if (!(weights > 0.0)) {
            break;
        }
        q += sum / weights;
        for (var j = 0u; j < MAX_ANCHORS; j += 1u) {
            lambdas[j] += steps[j] * abs(steps[j]) / weights;
        }
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
