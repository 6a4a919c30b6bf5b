// A whole substep in one dispatch of one workgroup: the same stage functions, with storage
// barriers where the per-colour layout has dispatch boundaries. Used where dispatches are
// expensive (CPU adapters such as lavapipe) or the cloth is small. One dispatch per substep,
// not per frame, keeps each invocation's loop count bounded (llvmpipe silently ends a shader's
// loops after 65535 iterations in total; the host checks the budget).

fn fused_predict(local_index: u32, substep: u32) {
    let count = max(params.particle_count, params.constraint_count);
    for (var i = local_index; i < count; i += FUSED_WORKGROUP_SIZE) {
        predict_or_reset(i, substep);
    }
    storageBarrier();
}

fn fused_finalize(local_index: u32) {
    for (var i = local_index; i < params.particle_count; i += FUSED_WORKGROUP_SIZE) {
        finalize_particle(i);
    }
    storageBarrier();
}

@compute @workgroup_size(FUSED_WORKGROUP_SIZE)
fn fused_gauss_seidel(@builtin(local_invocation_index) local_index: u32) {
    fused_predict(local_index, dispatch.substep);
    for (var iteration = 0u; iteration < params.iterations; iteration += 1u) {
        for (var colour = 0u; colour < params.colour_count; colour += 1u) {
            let range = colour_table.entries[colour];
            for (var k = local_index; k < range.y; k += FUSED_WORKGROUP_SIZE) {
                project_gauss_seidel(range.x + k);
            }
            storageBarrier();
        }
    }
    fused_finalize(local_index);
}

@compute @workgroup_size(FUSED_WORKGROUP_SIZE)
fn fused_jacobi(@builtin(local_invocation_index) local_index: u32) {
    fused_predict(local_index, dispatch.substep);
    for (var iteration = 0u; iteration < params.iterations; iteration += 1u) {
        for (var c = local_index; c < params.constraint_count; c += FUSED_WORKGROUP_SIZE) {
            jacobi_correct(c);
        }
        storageBarrier();
        for (var i = local_index; i < params.particle_count; i += FUSED_WORKGROUP_SIZE) {
            jacobi_gather(i);
        }
        storageBarrier();
    }
    fused_finalize(local_index);
}
