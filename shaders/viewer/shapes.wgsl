// Instanced rounded shapes drawn from one unit sphere: sphere, capsule and box colliders, and
// the markers of pinned or grabbed particles. A unit-sphere point u becomes
// centre + R·(sign(u)·e + ρ·u): the sphere of radius ρ split into octants pushed out to the
// corners of the box of half extents e. A sphere has e = 0; a capsule e = (0, half its length, 0)
// with R taking +Y along its axis; a box its half extents and rounding (its flat faces are the
// triangles that span octants, lit by the sphere's normals there, which are the faces').

struct ShapeVertex {
    // A point of the unit sphere (also its normal).
    @location(0) unit: vec3<f32>,
    // Per instance: centre (xyz, m) and rounding radius ρ (w, m).
    @location(1) center_rounding: vec4<f32>,
    // Per instance: half extents e (xyz, m); w unused.
    @location(2) half_extents: vec4<f32>,
    // Per instance: rotation R as a unit quaternion (x, y, z, w).
    @location(3) rotation: vec4<f32>,
    // Per instance: linear RGB albedo (w unused).
    @location(4) albedo: vec4<f32>,
}

struct ShapeFragment {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) albedo: vec3<f32>,
}

@vertex
fn shape_vertex(v: ShapeVertex) -> ShapeFragment {
    var out: ShapeFragment;
    let side = select(vec3<f32>(-1.0), vec3<f32>(1.0), v.unit >= vec3<f32>(0.0));
    let local = side * v.half_extents.xyz + v.center_rounding.w * v.unit;
    out.world = v.center_rounding.xyz + rotate(v.rotation, local);
    out.clip = view.view_proj * vec4(out.world, 1.0);
    out.normal = rotate(v.rotation, v.unit);
    out.albedo = v.albedo.rgb;
    return out;
}

@fragment
fn shape_fragment(f: ShapeFragment) -> @location(0) vec4<f32> {
    return vec4(shade(f.albedo, f.normal, f.world), 1.0);
}

// A rigid body, its record read straight from the solver's bodies buffer as instance data
// (GpuBody in src/bodies.rs): between frames its pose is its position and rotation, and its
// shape the rounded box of its half extents and radius.
struct BodyVertex {
    @location(0) unit: vec3<f32>,
    @location(1) position: vec3<f32>,
    @location(2) rotation: vec4<f32>,
    @location(3) radius: f32,
    @location(4) half_extents: vec3<f32>,
}

// Linear RGB albedo of the bodies.
const BODY_ALBEDO = vec3<f32>(0.62, 0.30, 0.20);

@vertex
fn body_vertex(v: BodyVertex) -> ShapeFragment {
    var out: ShapeFragment;
    let side = select(vec3<f32>(-1.0), vec3<f32>(1.0), v.unit >= vec3<f32>(0.0));
    let local = side * v.half_extents + v.radius * v.unit;
    out.world = v.position + rotate(v.rotation, local);
    out.clip = view.view_proj * vec4(out.world, 1.0);
    out.normal = rotate(v.rotation, v.unit);
    out.albedo = BODY_ALBEDO;
    return out;
}

@fragment
fn body_fragment(f: ShapeFragment) -> @location(0) vec4<f32> {
    return vec4(shade(f.albedo, f.normal, f.world), 1.0);
}
