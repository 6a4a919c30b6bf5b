// Normals (src/passes/normals.rs) — area-weighted vertex normals: each vertex sums (p1 − p0) × (p2 − p0) over its
// triangles in a fixed order and normalises (up when they cancel). Mirrors src/math.rs (same
// names).

// Its bindings are generated from src/passes/normals.rs.

fn normalize_or_up(n: vec3<f32>) -> vec3<f32> {
    let len = length(n);
    return select(vec3<f32>(0.0, 1.0, 0.0), n / len, len > GEOMETRY_EPSILON);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn compute_normals(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let i = linear_id(workgroup, workgroups, local_index);
    if (i >= params.particle_count) {
        return;
    }
    let items = params.particle_count + 1u;
    var sum = vec3<f32>(0.0);
    for (var k = vertex_triangles[i]; k < vertex_triangles[i + 1u]; k += 1u) {
        let t = 3u * vertex_triangles[items + k];
        sum += weighted_face_normal(
            positions[triangles[t]].xyz, positions[triangles[t + 1u]].xyz, positions[triangles[t + 2u]].xyz,
        );
    }
    normals[i] = vec4<f32>(normalize_or_up(sum), 0.0);
}
