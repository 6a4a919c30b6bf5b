// Point–triangle self contacts, mirroring src/passes/self_collision/triangles.rs (the same names and
// operations in the same order): each triangle finds the hashed particles near its face and adds
// each contact's four corrections, in fixed point, to the particles' sums after the hash table's
// bucket starts (triangle_contacts_of); apply_self_contacts (shaders/passes/self_collision.wgsl)
// adds them to the displacements. Integer sums: the same whatever order the triangles' threads
// run in.

// RELAXATION, MAX_TRIANGLE_COLUMNS, MAX_TRIANGLE_CANDIDATES, MAX_TRIANGLE_STEPS,
// MAX_FIXED_POINT and MAX_PARTICLE_CORRECTIONS are generated from their twins in
// src/passes/self_collision/triangles.rs.

// fixed_point_exponent in src/passes/self_collision/triangles.rs, derived on the host.
fn fixed_point_exponent() -> i32 {
    return params.self_collision.fixed_point_exponent;
}

// Where particle i's fixed-point sum (three words) and count of triangle-contact corrections lie
// in hash_table.starts: after the buckets' starts.
fn sum_slot(i: u32) -> u32 {
    return params.self_collision.hash_table_size + 1u + 4u * i;
}

// to_fixed in src/passes/self_collision/triangles.rs (ldexp scales exactly, round ties to even; NaN to
// 0 by a comparison, since clamp and the conversion leave it undefined).
fn to_fixed(v: vec3<f32>, exponent: i32) -> vec3<i32> {
    let rounded = round(ldexp(v, vec3<i32>(exponent)));
    let number = select(vec3<f32>(0.0), rounded, rounded == rounded);
    return vec3<i32>(clamp(number, vec3<f32>(-MAX_FIXED_POINT), vec3<f32>(MAX_FIXED_POINT)));
}

// from_fixed in src/passes/self_collision/triangles.rs: each component in two exact parts.
fn from_fixed(sum: vec3<i32>, exponent: i32) -> vec3<f32> {
    let whole = vec3<f32>(sum >> vec3<u32>(12u)) * 4096.0 + vec3<f32>(sum & vec3<i32>(0xfff));
    return ldexp(whole, vec3<i32>(-exponent));
}

// summed_correction in src/passes/self_collision/triangles.rs: the correction of a particle's sum (xyz)
// of `count` corrections; `taken` false when there were too many.
struct SummedCorrection {
    correction: vec3<f32>,
    taken: bool,
}

fn summed_correction(sum: vec3<i32>, count: i32, exponent: i32) -> SummedCorrection {
    if (count > MAX_PARTICLE_CORRECTIONS) {
        return SummedCorrection(vec3<f32>(0.0), false);
    }
    return SummedCorrection(from_fixed(sum, exponent), true);
}

// plane_axes in src/passes/self_collision/triangles.rs: [d, u, v].
fn plane_axes(n: vec3<f32>) -> vec3<u32> {
    let m = abs(n);
    var d = 2u;
    if (m.x >= m.y && m.x >= m.z) {
        d = 0u;
    } else if (m.y >= m.z) {
        d = 1u;
    }
    return vec3<u32>(d, (d + 1u) % 3u, (d + 2u) % 3u);
}

// slab_cells in src/passes/self_collision/triangles.rs: the first and last cells along axis d of the
// column at `column` that come within `reach` of the plane through a with unit normal n.
fn slab_cells(column: vec2<i32>, axes: vec3<u32>, a: vec3<f32>, n: vec3<f32>, size: f32, reach: f32) -> vec2<i32> {
    let d = axes.x;
    let u = axes.y;
    let v = axes.z;
    let half = 0.5 * size;
    let centre_u = f32(column.x) * size + half;
    let centre_v = f32(column.y) * size + half;
    let middle = a[d] - (n[u] * (centre_u - a[u]) + n[v] * (centre_v - a[v])) / n[d];
    let spread = (half * (abs(n[u]) + abs(n[v])) + reach) / abs(n[d]);
    return vec2<i32>(cell_coordinate(middle - spread, size), cell_coordinate(middle + spread, size));
}

// closest_on_triangle in src/math.rs (Ericson §5.1.5).
fn closest_on_triangle(p: vec3<f32>, a: vec3<f32>, b: vec3<f32>, c: vec3<f32>) -> vec3<f32> {
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = dot(ab, ap);
    let d2 = dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        return a;
    }
    let bp = p - b;
    let d3 = dot(ab, bp);
    let d4 = dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        return a + ab * (d1 / (d1 - d3));
    }
    let cp = p - c;
    let d5 = dot(ab, cp);
    let d6 = dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        return a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denominator = max(va + vb + vc, DENOMINATOR_EPSILON);
    return a + ab * (vb / denominator) + ac * (vc / denominator);
}

// face_contact in src/passes/self_collision/triangles.rs; `found` false for None.
struct FaceContact {
    normal: vec3<f32>,
    height: f32,
    weights: vec3<f32>,
    found: bool,
}

fn no_face_contact() -> FaceContact {
    return FaceContact(vec3<f32>(0.0), 0.0, vec3<f32>(0.0), false);
}

fn face_contact(p: array<vec3<f32>, 4>, h: f32) -> FaceContact {
    let area_normal = weighted_face_normal(p[1], p[2], p[3]);
    let doubled_area = length(area_normal);
    if (!(doubled_area > GEOMETRY_EPSILON)) {
        return no_face_contact();
    }
    let n = area_normal / doubled_area;
    let height = dot(n, p[0] - p[1]);
    if (!(height < h && height > -h)) {
        return no_face_contact();
    }
    // Within h of a corner the pair contact with it acts: both would push the point twice.
    // Written out corner by corner: the triangle's search runs this test on every candidate, and
    // a loop over p indexed by a variable, which llvmpipe keeps in memory lane by lane, made the
    // whole search 1.6 times slower.
    let h_squared = h * h;
    let apart = array<vec3<f32>, 3>(p[0] - p[1], p[0] - p[2], p[0] - p[3]);
    if (!(dot(apart[0], apart[0]) >= h_squared && dot(apart[1], apart[1]) >= h_squared && dot(apart[2], apart[2]) >= h_squared)) {
        return no_face_contact();
    }
    let weights = vec3<f32>(
        dot(n, weighted_face_normal(p[0], p[2], p[3])) / doubled_area,
        dot(n, weighted_face_normal(p[0], p[3], p[1])) / doubled_area,
        dot(n, weighted_face_normal(p[0], p[1], p[2])) / doubled_area,
    );
    if (!all(weights >= vec3<f32>(0.0))) {
        return no_face_contact();
    }
    return FaceContact(n, height, weights, true);
}

// point_triangle_correction in src/passes/self_collision/triangles.rs; `found` false for None. Index 0
// is the point, 1 to 3 the triangle's corners.
struct TriangleCorrection {
    corrections: array<vec3<f32>, 4>,
    found: bool,
}

fn no_triangle_correction() -> TriangleCorrection {
    return TriangleCorrection(array<vec3<f32>, 4>(), false);
}

fn point_triangle_correction(
    x: array<vec3<f32>, 4>,
    q: array<vec3<f32>, 4>,
    w: vec4<f32>,
    pair: PairContact,
) -> TriangleCorrection {
    let h = pair.thickness;
    let p = array<vec3<f32>, 4>(x[0] + q[0], x[1] + q[1], x[2] + q[2], x[3] + q[3]);
    let face = face_contact(p, h);
    if (!face.found) {
        return no_triangle_correction();
    }
    let n = face.normal;
    let b_a = face.weights.x;
    let b_b = face.weights.y;
    let b_c = face.weights.z;
    let came_from_above = dot(weighted_face_normal(x[1], x[2], x[3]), x[0] - x[1]) >= 0.0;
    let side = select(-1.0, 1.0, came_from_above);
    let generalised_mass = w[0] + b_a * b_a * w[1] + b_b * b_b * w[2] + b_c * b_c * w[3];
    if (!(generalised_mass > DENOMINATOR_EPSILON)) {
        return no_triangle_correction();
    }
    let depth = h - side * face.height;
    let relative = q[0] - (q[1] * b_a + q[2] * b_b + q[3] * b_c);
    let tangential = relative - n * dot(n, relative);
    let pushed = RELAXATION * depth;
    let kept = friction_kept(length(tangential), pushed, pair.friction);
    let push = (n * (side * pushed) - tangential * kept) / generalised_mass;
    let corrections = array<vec3<f32>, 4>(push * w[0], push * (-b_a * w[1]), push * (-b_b * w[2]), push * (-b_c * w[3]));
    return TriangleCorrection(corrections, true);
}

fn rest_position(i: u32) -> vec3<f32> {
    return bitcast<vec3<f32>>(rest_shape[i].xyz);
}

// Whether each component of p is finite (is_finite in Rust).
fn finite(p: vec3<f32>) -> bool {
    return all(abs(p) <= vec3<f32>(F32_MAX));
}

// covered_by_corners in src/passes/self_collision/triangles.rs.
fn covered_by_corners(p0: vec3<f32>, p1: vec3<f32>, p2: vec3<f32>, h: f32) -> bool {
    let e0 = p1 - p0;
    let e1 = p2 - p1;
    let e2 = p0 - p2;
    let longest = max(max(dot(e0, e0), dot(e1, e1)), dot(e2, e2));
    return longest < 3.0 * h * h;
}

// within in src/passes/self_collision/triangles.rs.
fn within(p: vec3<f32>, low: vec3<f32>, high: vec3<f32>) -> bool {
    return all(p >= low) && all(p <= high);
}

// TriangleContacts::add_contact in src/passes/self_collision/triangles.rs.
fn add_contact(j: u32, corners: vec3<u32>, cloth: u32) {
    let particles = vec4<u32>(j, corners);
    var x: array<vec3<f32>, 4>;
    var q: array<vec3<f32>, 4>;
    var w: vec4<f32>;
    for (var k = 0u; k < 4u; k += 1u) {
        let state = velocities[particles[k]];
        x[k] = positions[particles[k]].xyz;
        q[k] = state.xyz;
        w[k] = state.w;
    }
    let own_cloth = particle_cloth(j);
    let pair = between(cloth, own_cloth);
    let contact = point_triangle_correction(x, q, w, pair);
    if (!contact.found) {
        return;
    }
    let rest_point = rest_position(j);
    let closest = closest_on_triangle(rest_point, rest_position(corners.x), rest_position(corners.y), rest_position(corners.z));
    let apart_at_rest = rest_point - closest;
    let h = pair.thickness;
    if (own_cloth == cloth && dot(apart_at_rest, apart_at_rest) < h * h) {
        return;
    }
    let exponent = fixed_point_exponent();
    for (var k = 0u; k < 4u; k += 1u) {
        if (w[k] > 0.0) {
            let fixed = bitcast<vec3<u32>>(to_fixed(contact.corrections[k], exponent));
            let slot = sum_slot(particles[k]);
            atomicAdd(&hash_table.starts[slot], fixed.x);
            atomicAdd(&hash_table.starts[slot + 1u], fixed.y);
            atomicAdd(&hash_table.starts[slot + 2u], fixed.z);
            atomicAdd(&hash_table.starts[slot + 3u], 1u);
        }
    }
}

// The particles that touch the face of this thread's triangle (TriangleContacts::find_touching
// in src/passes/self_collision/triangles.rs): found first, their contacts added after the search.
var<private> touching: array<u32, MAX_TRIANGLE_CANDIDATES>;
var<private> touching_count: u32;

// TriangleContacts::find_touching in src/passes/self_collision/triangles.rs: lists the particles
// in `touching`; whether the triangle (of cloth `cloth`) overflowed a capacity.
fn find_touching(corners: vec3<u32>, cloth: u32) -> bool {
    let h = reach(cloth);
    let size = cell_size();
    let p0 = predicted(corners.x);
    let p1 = predicted(corners.y);
    let p2 = predicted(corners.z);
    if (!(finite(p0) && finite(p1) && finite(p2)) || covered_by_corners(p0, p1, p2, nearest(cloth))) {
        return false;
    }
    let area_normal = weighted_face_normal(p0, p1, p2);
    let doubled_area = length(area_normal);
    if (!(doubled_area > GEOMETRY_EPSILON)) {
        return false;
    }
    let n = area_normal / doubled_area;
    let low = min(min(p0, p1), p2) - vec3<f32>(h);
    let high = max(max(p0, p1), p2) + vec3<f32>(h);
    let first = cell_of(low, size);
    let last = cell_of(high, size);
    let axes = plane_axes(n);
    let d = axes.x;
    let u = axes.y;
    let v = axes.z;
    let across_u = last[u] - first[u] + 1;
    let across_v = last[v] - first[v] + 1;
    // In steps, so that the product cannot overflow.
    let most = i32(MAX_TRIANGLE_COLUMNS);
    if (across_u > most || across_v > most || across_u * across_v > most) {
        return true;
    }
    var overflow = false;
    var examined = 0u;
    var steps = 0u;
    for (var column_u = first[u]; column_u <= last[u]; column_u += 1) {
        for (var column_v = first[v]; column_v <= last[v]; column_v += 1) {
            let slab = slab_cells(vec2<i32>(column_u, column_v), axes, p0, n, size, h);
            for (var along = max(slab.x, first[d]); along <= min(slab.y, last[d]); along += 1) {
                var cell: vec3<i32>;
                cell[d] = along;
                cell[u] = column_u;
                cell[v] = column_v;
                let bucket = cell_hash(cell, params.self_collision.hash_table_size);
                let start = atomicLoad(&hash_table.starts[bucket]);
                let end = atomicLoad(&hash_table.starts[bucket + 1u]);
                steps += 1u;
                if (end - start > MAX_BUCKET_ENTRIES) {
                    overflow = true;
                    continue;
                }
                steps += end - start;
                if (steps > MAX_TRIANGLE_STEPS) {
                    return true;
                }
                for (var s = start; s < end; s += 1u) {
                    let entry = hashed[s];
                    let j = entry.x;
                    let p_j = bitcast<vec3<f32>>(entry.yzw);
                    // Each particle is taken in its own cell only, so once, though cells share
                    // buckets.
                    if (any(vec3<u32>(j) == corners) || any(cell_of(p_j, size) != cell) || !within(p_j, low, high)) {
                        continue;
                    }
                    examined += 1u;
                    if (examined > MAX_TRIANGLE_CANDIDATES) {
                        return true;
                    }
                    // Most candidates are out of reach of the plane: rejected before the whole
                    // test.
                    if (!(abs(dot(n, p_j - p0)) < h)) {
                        continue;
                    }
                    let pair = between_particle(cloth, j);
                    if (face_contact(array<vec3<f32>, 4>(p_j, p0, p1, p2), pair.thickness).found) {
                        touching[touching_count] = j;
                        touching_count += 1u;
                    }
                }
            }
        }
    }
    return overflow;
}

// Adds triangle t's contacts to the particles' sums; counts an overflow (the self_contacts and
// triangle_contacts kernels of shaders/passes/self_collision.wgsl call it).
fn triangle_contacts_of(t: u32) {
    if (t >= params.self_collision.triangle_count) {
        return;
    }
    let triangle = rest_shape[params.particle_count + t];
    let corners = triangle.xyz;
    touching_count = 0u;
    let overflow = find_touching(corners, triangle.w);
    for (var k = 0u; k < touching_count; k += 1u) {
        add_contact(touching[k], corners, triangle.w);
    }
    if (overflow) {
        atomicAdd(&hash_table.overflow, 1u);
    }
}
