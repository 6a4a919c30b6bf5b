// Aerodynamics (src/passes/air.rs, same names and order of operations): each particle's
// acceleration from drag and lift on its triangles, gathered in the fixed order of its triangle
// list, for the next predict to add. Runs at the start of every substep, on x and v.

// The bindings and the air's block of the frame's parameters (params.air) are generated from
// src/passes/air.rs, as are SPEED_EPSILON (below this relative speed, m/s, the air exerts no
// force) and PHASE_LIMIT (gust phases are clamped to it so that their lattice cell fits an i32).
struct Air {
    // Mean wind (m/s), then its speed |wind|.
    wind: vec4<f32>,
    // ρ (kg/m³); 0 when the air is off.
    density: f32,
    drag_coefficient: f32,
    lift_coefficient: f32,
    // Relative gust strength in [0, 1] and gusts per second.
    gust_strength: f32,
    gust_frequency: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// lowbias32 (C. Wellons).
fn hash(x: u32) -> u32 {
    var h = x;
    h ^= h >> 16u;
    h *= 0x7feb352du;
    h ^= h >> 15u;
    h *= 0x846ca68bu;
    return h ^ (h >> 16u);
}

fn lattice_value(cell: i32) -> f32 {
    return f32(hash(bitcast<u32>(cell)) >> 8u) * (2.0 / 16777216.0) - 1.0;
}

fn value_noise(phase: f32) -> f32 {
    let s = clamp(phase, -PHASE_LIMIT, PHASE_LIMIT);
    let cell_floor = floor(s);
    let f = s - cell_floor;
    let cell = i32(cell_floor);
    let a = lattice_value(cell);
    let b = lattice_value(cell + 1);
    let blend = f * f * (3.0 - 2.0 * f);
    return a + (b - a) * blend;
}

fn wind_at(position: vec3<f32>, time: f32) -> vec3<f32> {
    let wind = params.air.wind.xyz;
    let speed = params.air.wind.w;
    if (params.air.gust_strength == 0.0 || speed <= SPEED_EPSILON) {
        return wind;
    }
    let downwind = dot(position, wind) / speed;
    let phase = params.air.gust_frequency * (time - downwind / speed);
    return wind * max(1.0 + params.air.gust_strength * value_noise(phase), 0.0);
}

fn triangle_force(p0: vec3<f32>, p1: vec3<f32>, p2: vec3<f32>, mean_velocity: vec3<f32>, wind: vec3<f32>) -> vec3<f32> {
    let doubled_area = weighted_face_normal(p0, p1, p2);
    let len = length(doubled_area);
    let u = mean_velocity - wind;
    let speed = length(u);
    if (len <= GEOMETRY_EPSILON || speed <= SPEED_EPSILON) {
        return vec3<f32>(0.0);
    }
    let n = doubled_area / len;
    let normal_speed = dot(n, u);
    let drag = params.air.drag_coefficient * abs(normal_speed) * u;
    let lift = params.air.lift_coefficient * normal_speed * (speed * n - (normal_speed / speed) * u);
    return -0.25 * params.air.density * len * (drag + lift);
}

fn cap_velocity_change(acceleration: vec3<f32>, limit: f32) -> vec3<f32> {
    let change = length(acceleration) * params.h;
    return select(acceleration, acceleration * (limit / change), change > limit);
}

fn air_acceleration(i: u32, time: f32) -> vec3<f32> {
    let w = velocities[i].w;
    if (w == 0.0) {
        return vec3<f32>(0.0);
    }
    let items = params.particle_count + 1u;
    var force = vec3<f32>(0.0);
    var fastest = 0.0;
    for (var k = vertex_triangles[i]; k < vertex_triangles[i + 1u]; k += 1u) {
        let t = 3u * vertex_triangles[items + k];
        let c = vec3<u32>(triangles[t], triangles[t + 1u], triangles[t + 2u]);
        let p0 = positions[c.x].xyz;
        let p1 = positions[c.y].xyz;
        let p2 = positions[c.z].xyz;
        let mean_velocity = (velocities[c.x].xyz + velocities[c.y].xyz + velocities[c.z].xyz) / 3.0;
        let wind = wind_at((p0 + p1 + p2) / 3.0, time);
        force += triangle_force(p0, p1, p2, mean_velocity, wind) / 3.0;
        fastest = max(fastest, length(mean_velocity - wind));
    }
    return cap_velocity_change(force * w, fastest);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn apply_aerodynamics(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let i = linear_id(workgroup, workgroups, local_index);
    if (i >= params.particle_count) {
        return;
    }
    let time = frame_start[0] + f32(dispatch.substep) * params.h;
    air_accelerations[i] = vec4<f32>(air_acceleration(i, time), 0.0);
}
