// Each cloth's particles and rigid motion (GpuClothMotion in src/passes/rigid_damping.rs, same
// members): rigid damping moves a cloth's particles towards its own rigid motion, and
// self-collision limits each cloth's deformation around its own, so that cloths moving apart
// are not damped or limited as one deforming cloth. A cloth's motion is taken about its first
// particle, as it would be in a model of its own. The module that includes it defines
// cloth_count(), the entries of cloth_motions, from its block of the frame's parameters.
struct ClothMotion {
    first_particle: u32,
    particle_count: u32,
    // Its workgroups of sum_moments (each cloth's start on a workgroup of its own).
    first_group: u32,
    group_count: u32,
    // [centre − the first particle's position, velocity (or displacement), ω] (RigidMotion).
    motion: array<vec4<f32>, 3>,
    // The motion of the displacements before self-collision's deformation limit, kept by
    // hash_count while the limited ones' motion is solved into `motion`.
    around: array<vec4<f32>, 3>,
}

// The last cloth whose first particle (or, `by_group`, its first workgroup of sum_moments) is
// at most `key`.
fn last_cloth_from(key: u32, by_group: bool) -> u32 {
    var low = 0u;
    var high = cloth_count();
    while (high - low > 1u) {
        let middle = (low + high) / 2u;
        let first = select(cloth_motions[middle].first_particle, cloth_motions[middle].first_group, by_group);
        if (first <= key) {
            low = middle;
        } else {
            high = middle;
        }
    }
    return low;
}

// The cloth of particle i.
fn cloth_of(i: u32) -> u32 {
    return last_cloth_from(i, false);
}

// Position of particle i relative to its cloth's first particle (the motions' reference point).
fn from_cloth_reference(i: u32, cloth: u32) -> vec3<f32> {
    return positions[i].xyz - positions[cloth_motions[cloth].first_particle].xyz;
}

// RigidMotion::at: the motion's velocity (or displacement) at r from the reference point.
fn rigid_at(motion: array<vec4<f32>, 3>, r: vec3<f32>) -> vec3<f32> {
    return motion[1].xyz + cross(motion[2].xyz, r - motion[0].xyz);
}
