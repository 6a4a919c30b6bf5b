// The mass-spring baseline (src/passes/springs.rs: same names, same order of operations): each
// particle's acceleration from its springs, summed in the fixed order of its spring list, for
// the next predict to add. Runs at the start of every substep, on x and v.

// The bindings, SPRING_KIND_SHIFT and SPRING_PARTICLE_MASK (the bits below it) are generated
// from src/passes/springs.rs.

// The springs' constants (GpuSpringParams).
struct SpringParams {
    // Stiffness of the structural, shear and flexion springs (N/m) by kind id, then their damping
    // (N·s/m); zero outside mass-spring mode.
    constants: vec4<f32>,
}

// Hooke's k(L − L₀) plus c times the ends' closing speed, along d̂ = (x_other − x)/L; zero for
// ends closer than GEOMETRY_EPSILON.
fn spring_force(
    position: vec3<f32>,
    velocity: vec3<f32>,
    other_position: vec3<f32>,
    other_velocity: vec3<f32>,
    rest: f32,
    k: f32,
    c: f32,
) -> vec3<f32> {
    let delta = other_position - position;
    let len = length(delta);
    let direction = delta / max(len, GEOMETRY_EPSILON);
    let tension = k * (len - rest) + c * dot(other_velocity - velocity, direction);
    return select(vec3<f32>(0.0), direction * tension, len >= GEOMETRY_EPSILON);
}

// Particle i's acceleration from its springs (SpringNetwork::acceleration); zero when pinned.
fn spring_acceleration(i: u32) -> vec3<f32> {
    let state = velocities[i];
    if (state.w == 0.0) {
        return vec3<f32>(0.0);
    }
    let x = positions[i].xyz;
    let items = params.particle_count + 1u;
    var force = vec3<f32>(0.0);
    for (var k = springs[i]; k < springs[i + 1u]; k += 1u) {
        let entry = items + 2u * k;
        let word = springs[entry];
        let j = word & SPRING_PARTICLE_MASK;
        let stiffness = params.springs.constants[word >> SPRING_KIND_SHIFT];
        let rest = bitcast<f32>(springs[entry + 1u]);
        force += spring_force(x, state.xyz, positions[j].xyz, velocities[j].xyz, rest, stiffness, params.springs.constants.w);
    }
    return force * state.w;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn apply_springs(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let i = linear_id(workgroup, workgroups, local_index);
    if (i < params.particle_count) {
        spring_accelerations[i] = vec4<f32>(spring_acceleration(i), 0.0);
    }
}
