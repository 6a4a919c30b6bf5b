// A substep (or a chunk of its iterations) in one dispatch of one workgroup: the same stage
// functions, with storage barriers where the per-colour layout has dispatch boundaries. Used
// where dispatches are expensive (CPU adapters such as lavapipe) or the cloth is small. The
// host sizes the chunks so each invocation's loop count stays bounded (llvmpipe silently ends
// a shader's loops after 65535 iterations in total).

fn fused_predict(local_index: u32, substep: u32) {
    for (var i = local_index; i < params.particle_count; i += FUSED_WORKGROUP_SIZE) {
        predict_particle(i, substep);
    }
    reset_multipliers(local_index, FUSED_WORKGROUP_SIZE);
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
    if ((dispatch.stages & STAGE_PREDICT) != 0u) {
        fused_predict(local_index, dispatch.substep);
    }
    for (var iteration = 0u; iteration < dispatch.iterations; iteration += 1u) {
        var colour = 0u;
        for (var phase = 0u; phase < 2u; phase += 1u) {
            let stretch_end = colour + params.phase_colours[2u * phase];
            for (; colour < stretch_end; colour += 1u) {
                project_stretch_share(colour_table.entries[colour].xy, local_index, FUSED_WORKGROUP_SIZE);
                storageBarrier();
            }
            let bending_end = colour + params.phase_colours[2u * phase + 1u];
            for (; colour < bending_end; colour += 1u) {
                project_hinge_share(colour_table.entries[colour].xy, local_index, FUSED_WORKGROUP_SIZE);
                storageBarrier();
            }
        }
    }
    if ((dispatch.stages & STAGE_FINALIZE) != 0u) {
        fused_finalize(local_index);
    }
}

@compute @workgroup_size(FUSED_WORKGROUP_SIZE)
fn fused_jacobi(@builtin(local_invocation_index) local_index: u32) {
    if ((dispatch.stages & STAGE_PREDICT) != 0u) {
        fused_predict(local_index, dispatch.substep);
    }
    for (var iteration = 0u; iteration < dispatch.iterations; iteration += 1u) {
        for (var t = local_index; t < params.stretch_count; t += FUSED_WORKGROUP_SIZE) {
            jacobi_correct_edge(t);
        }
        storageBarrier();
        for (var i = local_index; i < params.particle_count; i += FUSED_WORKGROUP_SIZE) {
            jacobi_gather(i);
        }
        storageBarrier();
    }
    if ((dispatch.stages & STAGE_FINALIZE) != 0u) {
        fused_finalize(local_index);
    }
}
