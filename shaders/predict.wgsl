// Stage 1 — predict (PBD Alg. 1 lines 5–7): v += h(g + a), damping, p = x + hv. Pinned
// particles move a 1/(substeps − substep) share of the way to their target, so they reach it
// exactly at the end of the frame with a matching kinematic velocity. XPBD multipliers reset here.

fn predict_particle(i: u32, substep: u32) {
    let x = positions[i].xyz;
    let record = particles[i];
    let h = params.h;
    var v = velocities[i].xyz;
    var p: vec3<f32>;
    if (record.w == 0.0) {
        let remaining = params.substeps - substep;
        p = select(x + (record.xyz - x) / f32(remaining), record.xyz, remaining == 1u);
        v = (p - x) / h;
    } else {
        v = (v + params.acceleration.xyz * h) * params.damping_factor;
        p = x + v * h;
    }
    velocities[i] = vec4<f32>(v, 0.0);
    predicted[i] = vec4<f32>(p, record.w);
}

// Thread i predicts particle i, then resets every multiplier its stride reaches (the kernel runs
// one thread per particle; there are more constraints than particles).
fn predict_and_reset(i: u32, threads: u32, substep: u32) {
    if (i < params.particle_count) {
        predict_particle(i, substep);
    }
    reset_multipliers(i, threads);
}

// Zeroes multipliers first, first + stride, … (XPBD: λ starts at 0 every substep).
fn reset_multipliers(first: u32, stride: u32) {
    for (var c = first; c < params.constraint_count; c += stride) {
        lambdas[c] = 0.0;
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn predict(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    predict_and_reset(linear_id(workgroup, workgroups, local_index), thread_count(workgroups), dispatch.substep);
}
