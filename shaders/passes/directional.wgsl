// The directional strain limit (src/passes/directional.rs: same names, same argument order):
// one workgroup walks the forest's levels from the pins outwards, a thread per edge of a level,
// a storage barrier between levels so that each child reads its parent already limited. A
// correction moves the child's x (and so its p = x + q), never its displacement q, so the
// velocity finalize takes from q does not carry it.

// The bindings are generated from src/passes/directional.rs.

override SUBSTEP_WORKGROUP_SIZE: u32 = 256u;

// What the kernel reads of the limit (GpuDirectionalParams).
struct DirectionalParams {
    // The most an edge may be stretched, 1 + slack.
    ratio: f32,
    // The forest's levels.
    level_count: u32,
    _pad0: u32,
    _pad1: u32,
}

// Δp = (p − a)(limit/|p − a| − 1) when |p − a| > limit, else zero: the child back onto the
// sphere of radius `limit` about its parent.
fn directional_correction(p: vec3<f32>, a: vec3<f32>, limit: f32) -> vec3<f32> {
    let delta = p - a;
    let len = length(delta);
    let shortened = (len > limit) & (len >= GEOMETRY_EPSILON);
    return select(vec3<f32>(0.0), delta * (limit / max(len, GEOMETRY_EPSILON) - 1.0), shortened);
}

// Limits edge e of the forest (run_cpu of DirectionalPass).
fn limit_edge(e: u32) {
    let at = params.directional.level_count + 1u + 3u * e;
    let child = directional_forest[at];
    let parent = directional_forest[at + 1u];
    let limit = params.directional.ratio * bitcast<f32>(directional_forest[at + 2u]);
    let x = positions[child].xyz;
    let a = positions[parent].xyz + velocities[parent].xyz;
    let dp = directional_correction(x + velocities[child].xyz, a, limit);
    positions[child] = vec4<f32>(x + dp, 1.0);
}

// The levels dispatch.colour_first .. + dispatch.colour_count, in one workgroup.
@compute @workgroup_size(SUBSTEP_WORKGROUP_SIZE)
fn limit_directional(@builtin(local_invocation_index) local_index: u32) {
    let end = dispatch.colour_first + dispatch.colour_count;
    for (var level = dispatch.colour_first; level < end; level += 1u) {
        let last = directional_forest[level + 1u];
        for (var e = directional_forest[level] + local_index; e < last; e += SUBSTEP_WORKGROUP_SIZE) {
            limit_edge(e);
        }
        storageBarrier();
    }
}
