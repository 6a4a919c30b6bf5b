// Area limits (src/passes/area_limits.rs: same names, same argument order), and the kernel that
// projects one colour of triangles, a thread per triangle, once per substep after the
// iterations. Triangles of a colour share no particle, so each thread writes its own corners.

// MAX_AREA_GROWTH (the most one projection multiplies a triangle's area by) and the bindings
// are generated from src/passes/area_limits.rs.

// The limits (GpuAreaLimitParams): [min, max] ratios of the rest area.
struct AreaLimitParams {
    limits: vec2<f32>,
    _pad0: u32,
    _pad1: u32,
}

struct AreaCorrections {
    dp0: vec3<f32>,
    dp1: vec3<f32>,
    dp2: vec3<f32>,
}

// Δp_i = (s − 1)(p_i − centre).
fn scaled_about(p0: vec3<f32>, p1: vec3<f32>, p2: vec3<f32>, centre: vec3<f32>, s: f32) -> AreaCorrections {
    return AreaCorrections((p0 - centre) * (s - 1.0), (p1 - centre) * (s - 1.0), (p2 - centre) * (s - 1.0));
}

// The free corner p's height above the pinned edge a–b scaled by `ratio`; zero when a and b
// coincide.
fn height_scaled(p: vec3<f32>, a: vec3<f32>, b: vec3<f32>, ratio: f32) -> vec3<f32> {
    let edge = b - a;
    let length_squared = dot(edge, edge);
    let foot = a + edge * (dot(p - a, edge) / max(length_squared, GEOMETRY_EPSILON * GEOMETRY_EPSILON));
    return select(vec3<f32>(0.0), (p - foot) * (ratio - 1.0), length_squared >= GEOMETRY_EPSILON * GEOMETRY_EPSILON);
}

// The corrections that bring the triangle's area A to A' = clamp(A, limits.x·rest,
// limits.y·rest), growing it at most MAX_AREA_GROWTH times: scaling by sqrt(A'/A) about the
// centre of mass (no corner pinned) or the pinned corner (one), the free corner's height scaled
// by A'/A (two), none (three). Zero within the limits and for a degenerate triangle.
fn area_limit_corrections(
    p0: vec3<f32>, p1: vec3<f32>, p2: vec3<f32>, w0: f32, w1: f32, w2: f32, rest_area: f32, limits: vec2<f32>,
) -> AreaCorrections {
    let doubled = length(weighted_face_normal(p0, p1, p2));
    let area = 0.5 * doubled;
    let limited = clamp(area, limits.x * rest_area, limits.y * rest_area);
    let none = AreaCorrections(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    if (doubled < GEOMETRY_EPSILON || limited == area) {
        return none;
    }
    let ratio = min(limited / area, MAX_AREA_GROWTH);
    let pinned = vec3<bool>(w0 == 0.0, w1 == 0.0, w2 == 0.0);
    let pinned_count = dot(select(vec3<u32>(0u), vec3<u32>(1u), pinned), vec3<u32>(1u));
    if (pinned_count == 0u) {
        let mass = vec3<f32>(1.0 / w0, 1.0 / w1, 1.0 / w2);
        let centre = (p0 * mass.x + p1 * mass.y + p2 * mass.z) / (mass.x + mass.y + mass.z);
        return scaled_about(p0, p1, p2, centre, sqrt(ratio));
    }
    if (pinned_count == 1u) {
        let anchor = select(select(p2, p1, pinned.y), p0, pinned.x);
        return scaled_about(p0, p1, p2, anchor, sqrt(ratio));
    }
    if (pinned_count == 2u) {
        if (!pinned.x) {
            return AreaCorrections(height_scaled(p0, p1, p2, ratio), vec3<f32>(0.0), vec3<f32>(0.0));
        }
        if (!pinned.y) {
            return AreaCorrections(vec3<f32>(0.0), height_scaled(p1, p2, p0, ratio), vec3<f32>(0.0));
        }
        return AreaCorrections(vec3<f32>(0.0), vec3<f32>(0.0), height_scaled(p2, p0, p1, ratio));
    }
    return none;
}

// Projects triangle t's area limit (project_area_limit in src/passes/area_limits.rs).
fn project_area_limit(t: u32) {
    let triangle = area_triangles[t];
    let a = velocities[triangle.x];
    let b = velocities[triangle.y];
    let c = velocities[triangle.z];
    let p0 = positions[triangle.x].xyz + a.xyz;
    let p1 = positions[triangle.y].xyz + b.xyz;
    let p2 = positions[triangle.z].xyz + c.xyz;
    let dp = area_limit_corrections(p0, p1, p2, a.w, b.w, c.w, bitcast<f32>(triangle.w), params.area_limits.limits);
    velocities[triangle.x] = vec4<f32>(a.xyz + dp.dp0, a.w);
    velocities[triangle.y] = vec4<f32>(b.xyz + dp.dp1, b.w);
    velocities[triangle.z] = vec4<f32>(c.xyz + dp.dp2, c.w);
}

// One colour: dispatch.colour_first is its first triangle, dispatch.colour_count its size.
@compute @workgroup_size(WORKGROUP_SIZE)
fn limit_areas(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let k = linear_id(workgroup, workgroups, local_index);
    if (k < dispatch.colour_count) {
        project_area_limit(dispatch.colour_first + k);
    }
}
