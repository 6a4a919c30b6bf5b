// Instanced spheres: sphere colliders and the markers of pinned or grabbed particles.

struct SphereVertex {
    // A point of the unit sphere (also its normal).
    @location(0) unit: vec3<f32>,
    // Per instance: centre (xyz, m) and radius (w, m).
    @location(1) center_radius: vec4<f32>,
    // Per instance: linear RGB albedo (w unused).
    @location(2) albedo: vec4<f32>,
}

struct SphereFragment {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) albedo: vec3<f32>,
}

@vertex
fn sphere_vertex(v: SphereVertex) -> SphereFragment {
    var out: SphereFragment;
    out.world = v.center_radius.xyz + v.center_radius.w * v.unit;
    out.clip = view.view_proj * vec4(out.world, 1.0);
    out.normal = v.unit;
    out.albedo = v.albedo.rgb;
    return out;
}

@fragment
fn sphere_fragment(f: SphereFragment) -> @location(0) vec4<f32> {
    return vec4(shade(f.albedo, f.normal, f.world), 1.0);
}
