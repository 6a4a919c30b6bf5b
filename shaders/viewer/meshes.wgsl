// Mesh colliders: their triangles in their own frames, uploaded once, with a normal per triangle
// (the facets the collider's field was built from), placed in the world by each mesh's pose.

struct MeshVertex {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    // Linear RGB albedo.
    @location(2) albedo: vec3<f32>,
    // Per instance (one per mesh): translation (xyz), rotation as a unit quaternion (x, y, z, w).
    @location(3) translation: vec4<f32>,
    @location(4) rotation: vec4<f32>,
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
    let world = v.translation.xyz + rotate(v.rotation, v.position);
    out.clip = view.view_proj * vec4(world, 1.0);
    out.world = world;
    out.normal = rotate(v.rotation, v.normal);
    out.albedo = v.albedo;
    return out;
}

@fragment
fn mesh_fragment(f: MeshFragment) -> @location(0) vec4<f32> {
    return vec4(shade(f.albedo, f.normal, f.world), 1.0);
}
