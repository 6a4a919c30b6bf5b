// Damping that spares rigid motion (src/passes/rigid_damping.rs, same names and order of operations),
// once per frame before its first predict: the free particles' moments summed in a fixed tree
// (per workgroup, then over the workgroups' sums in one workgroup), the rigid motion solved from
// them, then each free particle's velocity moved the fraction params.rigid_damping.fraction of the way to
// it; each cloth on its own (shaders/passes/cloth_motion.wgsl): its particles start a workgroup
// of sum_moments, one workgroup of solve_rigid_motion solves its motion. Self-collision runs the
// first two on the substep's displacements (which `velocities` holds from predict to finalize)
// for the rigid motion it limits the deformation around, and again on the limited displacements
// (keeping the first motion in each cloth's `around`).

// The bindings and SINGULAR_INERTIA (below it the determinant of the inertia tensor scaled to a
// trace of 1 counts as singular) are generated from src/passes/rigid_damping.rs.

// The rate as the fraction of a frame (GpuRigidDampingParams).
struct RigidDampingParams {
    fraction: f32,
    cloth_count: u32,
    _pad0: u32,
    _pad1: u32,
}

const MOMENT_VECTORS: u32 = 4u;

fn cloth_count() -> u32 {
    return params.rigid_damping.cloth_count;
}

var<workgroup> tree: array<array<vec4<f32>, MOMENT_VECTORS>, WORKGROUP_SIZE>;

fn particle_moments(m: f32, r: vec3<f32>, v: vec3<f32>) -> array<vec4<f32>, MOMENT_VECTORS> {
    let mr = m * r;
    let mv = m * v;
    let l = cross(r, mv);
    return array<vec4<f32>, MOMENT_VECTORS>(
        vec4<f32>(m, mr),
        vec4<f32>(mv, mr.x * r.y),
        vec4<f32>(l, mr.x * r.z),
        vec4<f32>(mr.x * r.x, mr.y * r.y, mr.z * r.z, mr.y * r.z),
    );
}

// Sums the workgroup's entries of `tree` into entry 0, halving the active threads each round.
fn sum_tree(local: u32) {
    for (var stride = WORKGROUP_SIZE / 2u; stride > 0u; stride /= 2u) {
        workgroupBarrier();
        if (local < stride) {
            for (var k = 0u; k < MOMENT_VECTORS; k += 1u) {
                tree[local][k] += tree[local + stride][k];
            }
        }
    }
    workgroupBarrier();
}

// Workgroups of sum_moments that hold particles (the rest write nothing); a model has a cloth
// at least.
fn moment_groups() -> u32 {
    let last = cloth_motions[max(cloth_count(), 1u) - 1u];
    return last.first_group + last.group_count;
}

// Each workgroup sums WORKGROUP_SIZE particles of one cloth, from the cloth's first particle on.
@compute @workgroup_size(WORKGROUP_SIZE)
fn sum_moments(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let group = workgroup.y * workgroups.x + workgroup.x;
    let cloth = cloth_motions[last_cloth_from(group, true)];
    let k = (group - cloth.first_group) * WORKGROUP_SIZE + local_index;
    var own = array<vec4<f32>, MOMENT_VECTORS>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    if (group < moment_groups() && k < cloth.particle_count) {
        let i = cloth.first_particle + k;
        let v = velocities[i];
        if (v.w > 0.0) {
            own = particle_moments(1.0 / v.w, positions[i].xyz - positions[cloth.first_particle].xyz, v.xyz);
        }
    }
    tree[local_index] = own;
    sum_tree(local_index);
    if (local_index == 0u && group < moment_groups()) {
        for (var k = 0u; k < MOMENT_VECTORS; k += 1u) {
            partial_moments[group * MOMENT_VECTORS + k] = tree[0][k];
        }
    }
}

// I⁻¹ l by the adjugate of I scaled to a trace of 1 (solve_symmetric in src/passes/rigid_damping.rs).
fn solve_symmetric(columns_a: vec3<f32>, columns_b: vec3<f32>, columns_c: vec3<f32>, l: vec3<f32>) -> vec3<f32> {
    let size = columns_a.x + columns_b.y + columns_c.z;
    if (!(size > 0.0)) {
        return vec3<f32>(0.0);
    }
    let a = columns_a / size;
    let b = columns_b / size;
    let c = columns_c / size;
    let bc = cross(b, c);
    let ca = cross(c, a);
    let ab = cross(a, b);
    let det = dot(a, bc);
    if (det > SINGULAR_INERTIA) {
        return vec3<f32>(dot(bc, l), dot(ca, l), dot(ab, l)) / (det * size);
    }
    return vec3<f32>(0.0);
}

// rigid_motion in src/passes/rigid_damping.rs, into cloth `cloth`'s motion.
fn write_rigid_motion(cloth: u32, moments: array<vec4<f32>, MOMENT_VECTORS>) {
    let mass = moments[0].x;
    if (mass <= 0.0) {
        cloth_motions[cloth].motion = array<vec4<f32>, 3>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
        return;
    }
    let c = moments[0].yzw / mass;
    let p = moments[1].xyz;
    let velocity = p / mass;
    let l = moments[2].xyz - cross(c, p);
    let mc = mass * c;
    let xx = moments[3].x - mc.x * c.x;
    let yy = moments[3].y - mc.y * c.y;
    let zz = moments[3].z - mc.z * c.z;
    let xy = moments[1].w - mc.x * c.y;
    let xz = moments[2].w - mc.x * c.z;
    let yz = moments[3].w - mc.y * c.z;
    let trace = xx + yy + zz;
    let omega = solve_symmetric(
        vec3<f32>(trace - xx, -xy, -xz),
        vec3<f32>(-xy, trace - yy, -yz),
        vec3<f32>(-xz, -yz, trace - zz),
        l,
    );
    cloth_motions[cloth].motion = array<vec4<f32>, 3>(vec4<f32>(c, 0.0), vec4<f32>(velocity, 0.0), vec4<f32>(omega, 0.0));
}

// One workgroup per cloth: thread t sums the cloth's partial sums t, t + WORKGROUP_SIZE, … in
// order, then the tree.
@compute @workgroup_size(WORKGROUP_SIZE)
fn solve_rigid_motion(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let cloth = workgroup.y * workgroups.x + workgroup.x;
    if (cloth >= cloth_count()) {
        return;
    }
    var own = array<vec4<f32>, MOMENT_VECTORS>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    let first = cloth_motions[cloth].first_group;
    for (var g = local_index; g < cloth_motions[cloth].group_count; g += WORKGROUP_SIZE) {
        for (var k = 0u; k < MOMENT_VECTORS; k += 1u) {
            own[k] += partial_moments[(first + g) * MOMENT_VECTORS + k];
        }
    }
    tree[local_index] = own;
    sum_tree(local_index);
    if (local_index == 0u) {
        write_rigid_motion(cloth, tree[0]);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn damp_to_rigid_motion(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let i = linear_id(workgroup, workgroups, local_index);
    if (i >= params.particle_count) {
        return;
    }
    let v = velocities[i];
    if (v.w == 0.0) {
        return;
    }
    let cloth = cloth_of(i);
    let rigid_velocity = rigid_at(cloth_motions[cloth].motion, from_cloth_reference(i, cloth));
    velocities[i] = vec4<f32>(v.xyz + params.rigid_damping.fraction * (rigid_velocity - v.xyz), v.w);
}
