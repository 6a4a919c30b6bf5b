// Plane colliders as large quads with a metre grid that fades with distance.

// Half the side of the drawn quad (m).
const PLANE_HALF_EXTENT: f32 = 25.0;
// Grid line spacing (m) and the distance over which the grid fades out (m).
const GRID_SPACING: f32 = 0.5;
const GRID_FADE_DISTANCE: f32 = 18.0;

struct PlaneInstance {
    // Per instance: unit normal (xyz) and offset along it (w, m).
    @location(0) normal_offset: vec4<f32>,
    // Per instance: linear RGB albedo (w unused).
    @location(1) albedo: vec4<f32>,
}

struct PlaneFragment {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) albedo: vec3<f32>,
    // Coordinates in the plane (m).
    @location(3) plane_uv: vec2<f32>,
}

// Two triangles covering [-1, 1]².
const QUAD_CORNERS = array<vec2<f32>, 6>(
    vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(1.0, 1.0),
    vec2(-1.0, -1.0), vec2(1.0, 1.0), vec2(-1.0, 1.0),
);

@vertex
fn plane_vertex(@builtin(vertex_index) corner: u32, plane: PlaneInstance) -> PlaneFragment {
    let normal = plane.normal_offset.xyz;
    // Any vector not parallel to the normal gives the tangent frame.
    let helper = select(vec3(1.0, 0.0, 0.0), vec3(0.0, 0.0, 1.0), abs(normal.x) > 0.9);
    let tangent = normalize(cross(helper, normal));
    let bitangent = cross(normal, tangent);
    let uv = PLANE_HALF_EXTENT * QUAD_CORNERS[corner];
    var out: PlaneFragment;
    out.world = normal * plane.normal_offset.w + tangent * uv.x + bitangent * uv.y;
    out.clip = view.view_proj * vec4(out.world, 1.0);
    out.normal = normal;
    out.albedo = plane.albedo.rgb;
    out.plane_uv = uv;
    return out;
}

@fragment
fn plane_fragment(f: PlaneFragment) -> @location(0) vec4<f32> {
    // Anti-aliased lines: distance to the nearest line in units of one pixel's footprint.
    let cells = f.plane_uv / GRID_SPACING;
    let to_line = abs(fract(cells - 0.5) - 0.5) / max(fwidth(cells), vec2(1e-6));
    let line = 1.0 - min(min(to_line.x, to_line.y), 1.0);
    let fade = 1.0 - smoothstep(0.0, GRID_FADE_DISTANCE, distance(f.world, view.eye.xyz));
    let albedo = mix(f.albedo, f.albedo * 0.45, line * fade);
    return vec4(shade(albedo, f.normal, f.world), 1.0);
}
