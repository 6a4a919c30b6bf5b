// The iterations by Gauss-Seidel (PBD §3.2) — the kernels over the schedule. The units of one colour share
// no particle, so each thread projects its units and writes their particles directly; colours
// follow one another. project_units (generated in src/passes/iterations/unit_dispatch.rs from the unit types)
// projects a share of a colour's units.

// Threads per stripe and of the single workgroup, chosen per adapter (WorkgroupSizes in
// src/passes/plan.rs says why).
override STRIPE_WORKGROUP_SIZE: u32 = 64u;
override SUBSTEP_WORKGROUP_SIZE: u32 = 256u;

// One colour per dispatch: thread k projects the colour's unit k.
@compute @workgroup_size(WORKGROUP_SIZE)
fn project_colour(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    reset_multipliers = dispatch.first_iteration == 0u;
    let colour = colour_entry(dispatch.colour_first);
    project_units(
        dispatch.colour_first, colour.y, colour.z, linear_id(workgroup, workgroups, local_index),
        thread_count(workgroups),
    );
}

// One phase of an iteration: workgroup w projects stripe w of the phase, colour by colour, with
// a barrier after each. Stripes of one phase share no particle (src/schedule/stripes.rs), so
// they need no synchronisation with each other: a whole phase is one dispatch. Stripe w's entry:
// [particle list start, particle count, (first unit, count) per colour].
@compute @workgroup_size(STRIPE_WORKGROUP_SIZE)
fn project_stripes(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    reset_multipliers = dispatch.first_iteration == 0u;
    let entry = dispatch.stripe_entries + workgroup.x * (2u + 2u * dispatch.colour_count);
    let particles = list_pair(entry);
    begin_block(particles, local_index, STRIPE_WORKGROUP_SIZE);
    for (var j = 0u; j < dispatch.colour_count; j += 1u) {
        let share = list_pair(entry + 2u + 2u * j);
        project_units(dispatch.colour_first + j, share.x, share.y, local_index, STRIPE_WORKGROUP_SIZE);
        colour_barrier();
    }
    end_block(particles, local_index, STRIPE_WORKGROUP_SIZE);
}

// dispatch.iterations iterations of a substep, every colour, in one workgroup: one dispatch per
// substep where dispatches are expensive (CPU adapters such as lavapipe) or the cloth is small.
// The host sizes the iteration chunks so each invocation's loop count stays bounded (llvmpipe
// silently ends a shader's loops after 65535 iterations in total).
@compute @workgroup_size(SUBSTEP_WORKGROUP_SIZE)
fn project_substep(@builtin(local_invocation_index) local_index: u32) {
    let whole = vec2<u32>(0u, params.particle_count);
    begin_block(whole, local_index, SUBSTEP_WORKGROUP_SIZE);
    for (var iteration = 0u; iteration < dispatch.iterations; iteration += 1u) {
        reset_multipliers = dispatch.first_iteration + iteration == 0u;
        for (var c = 0u; c < params.constraints.colour_count; c += 1u) {
            let colour = colour_entry(c);
            project_units(c, colour.y, colour.z, local_index, SUBSTEP_WORKGROUP_SIZE);
            colour_barrier();
        }
    }
    end_block(whole, local_index, SUBSTEP_WORKGROUP_SIZE);
}
