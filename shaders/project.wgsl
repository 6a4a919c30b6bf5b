// Stage 2 — coloured Gauss-Seidel projection (PBD §3.2): the constraints of one colour share no
// particle, so each thread projects one and writes its particles directly. A bending colour
// projects hinges (a bending constraint with the stretch constraint of its edge); stretch
// colours hold the free edges. The two kinds have separate functions and loops (a colour holds
// one kind), so no thread pays for the other kind's code. Kernels: one colour per dispatch, or
// one phase of stripes per dispatch.

// The striped kernel's copy of its stripe's particles (PARTICLES_IN_WORKGROUP). On SIMD CPU
// drivers a workgroup access needs fewer instructions than a storage one (no bounds check per
// lane); on GPUs it stays on chip.
var<workgroup> stripe_particles: array<vec4<f32>, STRIPE_CAPACITY>;

// Where constraint c's particles are: indices into `predicted`, or slots of the stripe's copy.
fn particle_addresses(c: u32) -> array<u32, 4> {
    if (PARTICLES_IN_WORKGROUP) {
        let slots = constraints[c].stripe_slots;
        return array<u32, 4>(slots[0] & 0xffffu, slots[0] >> 16u, slots[1] & 0xffffu, slots[1] >> 16u);
    }
    return constraints[c].particles;
}

fn load_particle(address: u32) -> vec4<f32> {
    if (PARTICLES_IN_WORKGROUP) {
        return stripe_particles[address];
    }
    return predicted[address];
}

fn store_particle(address: u32, p: vec4<f32>) {
    if (PARTICLES_IN_WORKGROUP) {
        stripe_particles[address] = p;
    } else {
        predicted[address] = p;
    }
}

// A constraint's correction with what it was computed from: particle indices, predicted
// positions (inverse mass in w) and multiplier, loaded once so that Gauss-Seidel writes back
// without reloading them (each load is a gather on SIMD CPU drivers). Jacobi uses it too.
struct Projection {
    index: array<u32, 4>,
    p: array<vec4<f32>, 4>,
    lambda: f32,
    k: Correction,
}

fn stretch_projection(c: u32) -> Projection {
    var s: Projection;
    s.index = particle_addresses(c);
    s.p[0] = load_particle(s.index[0]);
    s.p[1] = load_particle(s.index[1]);
    s.lambda = lambdas[c];
    s.k = edge_correction(s, c, s.lambda);
    return s;
}

// The correction of stretch constraint c (multiplier `lambda`) on the particles in slots 0 and
// 1 of `s`: its own, or those of the hinge it belongs to.
fn edge_correction(s: Projection, c: u32, lambda: f32) -> Correction {
    return distance_correction(
        s.p[0].xyz, s.p[1].xyz, s.p[0].w, s.p[1].w, constraints[c].rest, lambda, params.stretch, params.compression,
    );
}

fn bending_projection(c: u32) -> Projection {
    var s = load_bending(c);
    s.k = bending_correction_of(s, c);
    return s;
}

// Bending constraint c's particles and multiplier, without its correction.
fn load_bending(c: u32) -> Projection {
    var s: Projection;
    s.index = particle_addresses(c);
    s.p[0] = load_particle(s.index[0]);
    s.p[1] = load_particle(s.index[1]);
    s.p[2] = load_particle(s.index[2]);
    s.p[3] = load_particle(s.index[3]);
    s.lambda = lambdas[c];
    return s;
}

fn bending_correction_of(s: Projection, c: u32) -> Correction {
    let w = vec4<f32>(s.p[0].w, s.p[1].w, s.p[2].w, s.p[3].w);
    return bending_correction(
        s.p[0].xyz, s.p[1].xyz, s.p[2].xyz, s.p[3].xyz, w, constraints[c].rest, s.lambda, params.bending,
    );
}

// Moves particle j of `s` by `dp` in memory, keeping its inverse mass.
fn write_back(s: Projection, j: u32, dp: vec3<f32>) {
    store_particle(s.index[j], moved(s.p[j], dp));
}

// A particle (position xyz, inverse mass w) moved by `dp`.
fn moved(p: vec4<f32>, dp: vec3<f32>) -> vec4<f32> {
    return vec4<f32>(p.xyz + dp, p.w);
}

fn project_stretch(c: u32) {
    let s = stretch_projection(c);
    write_back(s, 0u, s.k.dp0);
    write_back(s, 1u, s.k.dp1);
    lambdas[c] = s.lambda + s.k.dlambda;
}

// A hinge (src/model.rs): bending constraint c and the stretch constraint of its edge, constraint
// c − stretch_count. The stretch constraint is projected first and the bending constraint from
// the moved positions, as two Gauss-Seidel steps, with one load and one store of the four
// particles for both.
fn project_hinge(c: u32) {
    var s = load_bending(c);
    let edge = c - params.stretch_count;
    let edge_lambda = lambdas[edge];
    let stretch = edge_correction(s, edge, edge_lambda);
    s.p[0] = moved(s.p[0], stretch.dp0);
    s.p[1] = moved(s.p[1], stretch.dp1);
    lambdas[edge] = edge_lambda + stretch.dlambda;
    s.k = bending_correction_of(s, c);
    write_back(s, 0u, s.k.dp0);
    write_back(s, 1u, s.k.dp1);
    write_back(s, 2u, s.k.dp2);
    write_back(s, 3u, s.k.dp3);
    lambdas[c] = s.lambda + s.k.dlambda;
}

// One thread's share of a colour range (x = first constraint, y = count): constraints
// x + k for k = first, first + stride, … below y. Used by the single-workgroup and striped
// kernels, which put a storage barrier after each colour.
fn project_stretch_share(range: vec2<u32>, first: u32, stride: u32) {
    for (var k = first; k < range.y; k += stride) {
        project_stretch(range.x + k);
    }
}

fn project_hinge_share(range: vec2<u32>, first: u32, stride: u32) {
    for (var k = first; k < range.y; k += stride) {
        project_hinge(range.x + k);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn project_stretch_colour(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let k = linear_id(workgroup, workgroups, local_index);
    if (k < dispatch.colour_count) {
        project_stretch(dispatch.colour_start + k);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn project_hinge_colour(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let k = linear_id(workgroup, workgroups, local_index);
    if (k < dispatch.colour_count) {
        project_hinge(dispatch.colour_start + k);
    }
}

// One phase of a Gauss-Seidel iteration: workgroup w projects stripe w of the phase colour by
// colour, with a barrier after each colour. Stripes of one phase share no particle
// (src/stripes.rs), so they need no synchronisation with each other: a whole phase, whatever
// its colour count, is one dispatch. With PARTICLES_IN_WORKGROUP the stripe's particles are
// copied into workgroup memory first and back at the end. Stripe w's entry in `lists`:
// [particle list start, particle count, (start, count) per colour].
@compute @workgroup_size(STRIPE_WORKGROUP_SIZE)
fn project_stripes(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let stretch_colours = params.phase_colours[2u * dispatch.phase];
    let colours = stretch_colours + params.phase_colours[2u * dispatch.phase + 1u];
    let entry = dispatch.stripe_entries + workgroup.x * (2u + 2u * colours);
    let particles = list_pair(entry);
    if (PARTICLES_IN_WORKGROUP) {
        for (var k = local_index; k < particles.y; k += STRIPE_WORKGROUP_SIZE) {
            stripe_particles[k] = predicted[lists[particles.x + k]];
        }
        workgroupBarrier();
    }
    let ranges = entry + 2u;
    for (var j = 0u; j < stretch_colours; j += 1u) {
        project_stretch_share(list_pair(ranges + 2u * j), local_index, STRIPE_WORKGROUP_SIZE);
        stripe_barrier();
    }
    for (var j = stretch_colours; j < colours; j += 1u) {
        project_hinge_share(list_pair(ranges + 2u * j), local_index, STRIPE_WORKGROUP_SIZE);
        stripe_barrier();
    }
    if (PARTICLES_IN_WORKGROUP) {
        for (var k = local_index; k < particles.y; k += STRIPE_WORKGROUP_SIZE) {
            predicted[lists[particles.x + k]] = stripe_particles[k];
        }
    }
}

// Words i and i + 1 of `lists`: a (start, count) pair.
fn list_pair(i: u32) -> vec2<u32> {
    return vec2<u32>(lists[i], lists[i + 1u]);
}

// Orders one colour's writes before the next colour's reads, in whichever memory they went to.
fn stripe_barrier() {
    if (PARTICLES_IN_WORKGROUP) {
        workgroupBarrier();
    } else {
        storageBarrier();
    }
}
