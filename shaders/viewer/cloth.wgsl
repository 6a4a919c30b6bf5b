// The cloth, drawn straight from the solver's position and normal buffers (vec4 per particle,
// xyz used) with rest-state UVs, shaded on both sides, each cloth of a model of several in
// colours of its own.

// Checks per unit of UV: stretched cloth shows stretched squares.
const CHECKS_PER_UV: f32 = 16.0;

struct ClothVertex {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    // The rest UV, then the particle's cloth (src/viewer/renderer.rs cloth_vertices).
    @location(2) uv_cloth: vec3<f32>,
}

struct ClothFragment {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) @interpolate(flat) cloth: u32,
}

// The dark checks of each cloth's front, cloth by cloth (red for a single cloth).
const FRONT_COLOURS: u32 = 4u;

fn front_dark(cloth: u32) -> vec3<f32> {
    var colours = array<vec3<f32>, FRONT_COLOURS>(
        vec3(0.62, 0.10, 0.08),
        vec3(0.10, 0.36, 0.18),
        vec3(0.55, 0.36, 0.05),
        vec3(0.33, 0.12, 0.48),
    );
    return colours[cloth % FRONT_COLOURS];
}

@vertex
fn cloth_vertex(v: ClothVertex) -> ClothFragment {
    var out: ClothFragment;
    out.clip = view.view_proj * vec4(v.position, 1.0);
    out.world = v.position;
    out.normal = v.normal;
    out.uv = v.uv_cloth.xy;
    out.cloth = u32(max(v.uv_cloth.z, 0.0));
    return out;
}

@fragment
fn cloth_fragment(f: ClothFragment, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    let cell = vec2<i32>(floor(f.uv * CHECKS_PER_UV));
    let light_check = ((cell.x + cell.y) & 1) == 1;
    // Front: red (each further cloth its own colour) and cream; back: blue and pale grey, so
    // folds show which side is up.
    let front_albedo = select(front_dark(f.cloth), vec3(0.85, 0.75, 0.58), light_check);
    let back_albedo = select(vec3(0.06, 0.14, 0.40), vec3(0.62, 0.66, 0.72), light_check);
    let albedo = select(back_albedo, front_albedo, front);
    // The solver's normals point out of the counter-clockwise (front) side.
    let normal = select(-f.normal, f.normal, front);
    return vec4(shade(albedo, normal, f.world), 1.0);
}
