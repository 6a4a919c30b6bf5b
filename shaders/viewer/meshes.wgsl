// Mesh colliders: their triangles placed in the world on the host, a normal per triangle (the
// facets the collider's field was built from).

struct MeshVertex {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    // Linear RGB albedo.
    @location(2) albedo: vec3<f32>,
}

struct MeshFragment {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) albedo: vec3<f32>,
}

@vertex
fn mesh_vertex(v: MeshVertex) -> MeshFragment {
    var out: MeshFragment;
    out.clip = view.view_proj * vec4(v.position, 1.0);
    out.world = v.position;
    out.normal = v.normal;
    out.albedo = v.albedo;
    return out;
}

@fragment
fn mesh_fragment(f: MeshFragment) -> @location(0) vec4<f32> {
    return vec4(shade(f.albedo, f.normal, f.world), 1.0);
}
