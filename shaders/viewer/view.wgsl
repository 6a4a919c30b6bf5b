// Shared by the viewer's render shaders: the camera, the light, shading and rotation by a
// quaternion. Mirrors `ViewUniform` in src/viewer/renderer.rs (checked by tests/shaders.rs).

struct ViewUniform {
    view_proj: mat4x4<f32>,
    // xyz: camera position in metres; w unused.
    eye: vec4<f32>,
    // xyz: unit vector towards the light; w unused.
    light_direction: vec4<f32>,
}

@group(0) @binding(0) var<uniform> view: ViewUniform;

// Lambert diffuse with a sky/ground ambient term and a soft Blinn-Phong highlight, in linear
// colour (the target's sRGB encoding happens on store).
fn shade(albedo: vec3<f32>, normal: vec3<f32>, world: vec3<f32>) -> vec3<f32> {
    let n = normalize(normal);
    let l = view.light_direction.xyz;
    let to_eye = view.eye.xyz - world;
    let v = to_eye / max(length(to_eye), 1e-6);
    let h = normalize(l + v);
    let diffuse = max(dot(n, l), 0.0);
    let ambient = mix(vec3(0.10, 0.09, 0.08), vec3(0.22, 0.25, 0.30), 0.5 + 0.5 * n.y);
    let specular = 0.12 * pow(max(dot(n, h), 0.0), 48.0);
    return albedo * (ambient + 0.9 * diffuse) + vec3(specular);
}

// v rotated by the unit quaternion r.
fn rotate(r: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let t = cross(r.xyz, v) * 2.0;
    return v + t * r.w + cross(r.xyz, t);
}
