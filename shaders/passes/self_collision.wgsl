// Self-collision, mirroring src/passes/self_collision.rs (the same names and operations in the same
// order): once per substep, limit the displacements' departure from their rigid motion and count
// the particles per hash bucket (hash_count; rigid damping's kernels then solve the limited
// displacements' rigid motion), turn the counts into bucket starts (hash_block_starts, from the
// blocks' totals hash_count also counts), place each particle in its bucket (hash_scatter), sort
// each bucket by particle index so that nothing downstream depends on the atomics' order of
// arrival (hash_sort_buckets), compute each particle's contact correction and each triangle's
// point contacts (self_contacts, or pair_contacts then triangle_contacts; the triangles' in
// shaders/passes/self_collision/triangles.wgsl), then add them and clear the counts and sums for
// the next substep (apply_self_contacts).

// The hash table (GpuSpatialHashHead in src/passes/self_collision.rs, then the buckets).
struct SpatialHashTable {
    // Particle and triangle substeps that overflowed a capacity (Overflows::self_contacts),
    // counted since the host last zeroed it; the total does not depend on the order of arrival.
    overflow: atomic<u32>,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    // params.self_collision.hash_table_size + 1 entries: each bucket's count, then its first slot (the last
    // entry: the particle count); then four per particle (sum_slot): the fixed-point sum of its
    // triangle contacts' corrections (i32 bits) and their count, zero between substeps; then
    // each scan block's total of bucket counts (block_slot).
    starts: array<atomic<u32>>,
}

// The bindings and MAX_BUCKET_ENTRIES, MAX_CANDIDATES, CELL_LIMIT, HASH_PRIME_X/Y/Z and
// UNIFORM_CONTACTS are generated from src/passes/self_collision.rs.

// What the kernels read of self-collision (GpuSelfCollisionParams).
struct SelfCollisionParams {
    // The thickest and the thinnest cloth's thickness (m); zero when off.
    largest_thickness: f32,
    smallest_thickness: f32,
    // The exponent of the triangle contacts' fixed point (shaders/passes/self_collision/triangles.wgsl).
    fixed_point_exponent: i32,
    // Buckets of the hash table (a power of two).
    hash_table_size: u32,
    // The cloth's triangles.
    triangle_count: u32,
    // The edge of a hash cell (SelfCollision::cell_size).
    cell_size: f32,
    // The model's cloths (entries of cloth_motions).
    cloth_count: u32,
    // The solver's friction: every pair's where every cloth keeps the solver's contact
    // (UNIFORM_CONTACTS; their thickness is then the largest), else unread.
    friction: f32,
}

// ClothContacts (src/passes/self_collision/cloth_contacts.rs), read from rest_shape: word k of
// its table, after the particles and the triangles.
fn contact_word(k: u32) -> f32 {
    let entry = rest_shape[params.particle_count + params.self_collision.triangle_count + k / 4u];
    return bitcast<f32>(entry[k % 4u]);
}

// ClothContacts::particle_cloth.
fn particle_cloth(i: u32) -> u32 {
    return rest_shape[i].w;
}

// ClothContacts::triangle_cloth.
fn triangle_cloth(t: u32) -> u32 {
    return rest_shape[params.particle_count + t].w;
}

// Whether every cloth keeps the solver's contact, which the parameters hold (UNIFORM_CONTACTS,
// generated from the model: the compiler then leaves the table's code out).
fn uniform_contacts() -> bool {
    return UNIFORM_CONTACTS != 0u;
}

// ClothContacts::thickness.
fn cloth_thickness(c: u32) -> f32 {
    if (uniform_contacts()) {
        return params.self_collision.largest_thickness;
    }
    return contact_word(c);
}

// mean in src/passes/self_collision/cloth_contacts.rs.
fn mean(a: f32, b: f32) -> f32 {
    return 0.5 * (a + b);
}

// What a contact between two cloths keeps (SelfCollision in Rust).
struct PairContact {
    thickness: f32,
    friction: f32,
}

// ClothContacts::between: the same values from the parameters where every pair keeps the same
// (one cloth), without reading the table.
fn between(a: u32, b: u32) -> PairContact {
    if (uniform_contacts()) {
        return PairContact(params.self_collision.largest_thickness, params.self_collision.friction);
    }
    let friction = contact_word(cloth_count() + a * cloth_count() + b);
    return PairContact(mean(cloth_thickness(a), cloth_thickness(b)), friction);
}

// What cloth `cloth` keeps against particle j: between(cloth, particle_cloth(j)), reading j's cloth
// only where the pairs differ.
fn between_particle(cloth: u32, j: u32) -> PairContact {
    if (uniform_contacts()) {
        return between(cloth, cloth);
    }
    return between(cloth, particle_cloth(j));
}

// ClothContacts::max_displacement.
fn max_displacement(c: u32) -> f32 {
    return 0.5 * cloth_thickness(c);
}

// ClothContacts::reach.
fn reach(c: u32) -> f32 {
    return mean(cloth_thickness(c), params.self_collision.largest_thickness);
}

// ClothContacts::nearest.
fn nearest(c: u32) -> f32 {
    return mean(cloth_thickness(c), params.self_collision.smallest_thickness);
}

// SelfCollision::cell_size, from the host.
fn cell_size() -> f32 {
    return params.self_collision.cell_size;
}

// cell_of in src/passes/self_collision.rs.
fn cell_of(p: vec3<f32>, size: f32) -> vec3<i32> {
    return vec3<i32>(cell_coordinate(p.x, size), cell_coordinate(p.y, size), cell_coordinate(p.z, size));
}

// cell_coordinate in src/passes/self_collision.rs; NaN to 0 by a comparison (clamp leaves NaN
// undefined).
fn cell_coordinate(c: f32, size: f32) -> i32 {
    let scaled = floor(c / size);
    let finite_or_infinite = select(0.0, scaled, scaled == scaled);
    return i32(clamp(finite_or_infinite, -CELL_LIMIT, CELL_LIMIT));
}

// cell_hash in src/passes/self_collision.rs.
fn cell_hash(cell: vec3<i32>, table_size: u32) -> u32 {
    let c = bitcast<vec3<u32>>(cell);
    let mixed = (c.x * HASH_PRIME_X) ^ (c.y * HASH_PRIME_Y) ^ (c.z * HASH_PRIME_Z);
    return mixed & (table_size - 1u);
}

// query_cells in src/passes/self_collision.rs: cell k of the 27 around `cell` (x fastest).
fn query_cell(cell: vec3<i32>, k: u32) -> vec3<i32> {
    return cell + vec3<i32>(vec3<u32>(k % 3u, (k / 3u) % 3u, k / 9u)) - vec3<i32>(1);
}

// cell_within_reach in src/passes/self_collision.rs: whether the box of `cell` comes within `reach`
// of p.
fn cell_within_reach(p: vec3<f32>, cell: vec3<i32>, size: f32, reach: f32) -> bool {
    let low = vec3<f32>(cell) * size;
    let below = low - p;
    let above = p - (low + vec3<f32>(size));
    let far = select(above, below, below > above);
    let gap = select(vec3<f32>(0.0), far, far > vec3<f32>(0.0));
    return dot(gap, gap) < reach * reach;
}

// limit_deformation in src/passes/self_collision.rs, with cloth `cloth`'s rigid motion.
fn limit_deformation(q: vec3<f32>, r: vec3<f32>, cloth: u32, limit: f32) -> vec3<f32> {
    let rigid = rigid_at(cloth_motions[cloth].motion, r);
    let departure = q - rigid;
    let len = length(departure);
    return select(q, rigid + departure * (limit / len), len > limit);
}

// pair_correction in src/passes/self_collision.rs; `found` false for None.
struct PairCorrection {
    correction: vec3<f32>,
    found: bool,
}

fn pair_correction(
    p_i: vec3<f32>,
    p_j: vec3<f32>,
    q_i: vec3<f32>,
    q_j: vec3<f32>,
    w_i: f32,
    w_j: f32,
    pair: PairContact,
) -> PairCorrection {
    let h = pair.thickness;
    let d = p_i - p_j;
    let distance_squared = dot(d, d);
    let distance = sqrt(distance_squared);
    let close = distance_squared < h * h;
    if (!close || distance <= GEOMETRY_EPSILON) {
        return PairCorrection(vec3<f32>(0.0), false);
    }
    let normal = d / distance;
    let depth = h - distance;
    let share = w_i / (w_i + w_j);
    let relative = q_i - q_j;
    let tangential = relative - normal * dot(normal, relative);
    let kept = friction_kept(length(tangential), depth, pair.friction);
    return PairCorrection((normal * depth - tangential * kept) * share, true);
}

// friction_kept in src/passes/self_collision.rs.
fn friction_kept(slide: f32, depth: f32, friction: f32) -> f32 {
    return min(friction * depth / max(slide, GEOMETRY_EPSILON), 1.0);
}

fn cloth_count() -> u32 {
    return params.self_collision.cloth_count;
}

fn predicted(i: u32) -> vec3<f32> {
    return positions[i].xyz + velocities[i].xyz;
}

// momentum_restored in src/passes/self_collision.rs: the motion cloth `cloth`'s deformation was
// limited around less its limited displacements' motion.
fn momentum_restored(r: vec3<f32>, cloth: u32) -> vec3<f32> {
    let around = cloth_motions[cloth].around;
    let limited = cloth_motions[cloth].motion;
    let turn = around[2].xyz - limited[2].xyz;
    return (around[1].xyz - limited[1].xyz) + cross(turn, r - limited[0].xyz);
}

// Limits particle i's departure from the rigid motion of its cloth's displacements (free
// particles; sum_moments and solve_rigid_motion of shaders/passes/rigid_damping.wgsl wrote it),
// then counts it in its bucket (and the bucket's block of SCAN_BLOCK), keeping its rank of
// arrival for the scatter. Thread c keeps cloth c's motion for momentum_restored, before the
// same kernels solve the limited displacements' motion.
@compute @workgroup_size(WORKGROUP_SIZE)
fn hash_count(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let i = linear_id(workgroup, workgroups, local_index);
    if (i < cloth_count()) {
        cloth_motions[i].around = cloth_motions[i].motion;
    }
    if (i >= params.particle_count) {
        return;
    }
    let state = velocities[i];
    if (state.w > 0.0) {
        let cloth = cloth_of(i);
        let r = from_cloth_reference(i, cloth);
        velocities[i] = vec4<f32>(limit_deformation(state.xyz, r, cloth, max_displacement(cloth)), state.w);
    }
    let bucket = cell_hash(cell_of(predicted(i), cell_size()), params.self_collision.hash_table_size);
    let rank = atomicAdd(&hash_table.starts[bucket], 1u);
    atomicAdd(&hash_table.starts[block_slot(bucket / SCAN_BLOCK)], 1u);
    hashed[params.particle_count + i] = vec4<u32>(bucket, rank, 0u, 0u);
}

// The scans' workgroup memory: two halves of WORKGROUP_SIZE entries, read from one and written to
// the other at each step (one barrier a step). x: bucket counts, y: the totals of earlier blocks.
var<workgroup> scan_sums: array<vec2<u32>, 2u * WORKGROUP_SIZE>;

// Where block k's total of bucket counts lies in hash_table.starts: after the particles' sums.
fn block_slot(k: u32) -> u32 {
    return params.self_collision.hash_table_size + 1u + 4u * params.particle_count + k;
}

// Blocks of SCAN_BLOCK buckets in the table.
fn scan_blocks() -> u32 {
    return (params.self_collision.hash_table_size + SCAN_BLOCK - 1u) / SCAN_BLOCK;
}

// The block of SCAN_BLOCK buckets a scan workgroup works on (a grid of them, as plan::grid_of).
fn scan_block(workgroup: vec3<u32>, workgroups: vec3<u32>) -> u32 {
    return workgroup.y * workgroups.x + workgroup.x;
}

// Thread t's first bucket in `block`: each thread takes SCAN_BLOCK / WORKGROUP_SIZE in a row.
fn first_scanned(block: u32, t: u32) -> u32 {
    return block * SCAN_BLOCK + t * (SCAN_BLOCK / WORKGROUP_SIZE);
}

// Bucket b's count, zero past the table (the last block's spare threads).
fn bucket_count(b: u32) -> u32 {
    if (b >= params.self_collision.hash_table_size) {
        return 0u;
    }
    return atomicLoad(&hash_table.starts[b]);
}

// The counts of thread t's buckets of `block`, summed.
fn thread_count_sum(block: u32, t: u32) -> u32 {
    var sum = 0u;
    for (var k = 0u; k < SCAN_BLOCK / WORKGROUP_SIZE; k += 1u) {
        sum += bucket_count(first_scanned(block, t) + k);
    }
    return sum;
}

// The inclusive prefix sum over the workgroup's threads of each thread's `value` (Hillis &
// Steele, ping-pong: one barrier a step); every thread of the workgroup calls it. Ends with a
// barrier, after which every thread's sum can be read at scan_sums[scanned_at(t)].
fn workgroup_scan(value: vec2<u32>, t: u32) {
    scan_sums[t] = value;
    var read_half = 0u;
    for (var offset = 1u; offset < WORKGROUP_SIZE; offset <<= 1u) {
        workgroupBarrier();
        var sum = scan_sums[read_half + t];
        if (t >= offset) {
            sum += scan_sums[read_half + t - offset];
        }
        read_half = WORKGROUP_SIZE - read_half;
        scan_sums[read_half + t] = sum;
    }
    workgroupBarrier();
}

// Where workgroup_scan leaves thread t's sum: the half its last step wrote.
fn scanned_at(t: u32) -> u32 {
    return (countTrailingZeros(WORKGROUP_SIZE) % 2u) * WORKGROUP_SIZE + t;
}

// The bucket counts' exclusive prefix sum, from each block's total (which hash_count counts as
// it counts the buckets): block k scans its threads' counts and, alongside, the totals of the
// blocks before it (their sum, the block's start, is the last thread's), then writes each
// bucket's start; the last bucket writes the table's end (the particle count). Blocks read only
// the totals, which none writes here, so they need no order between them. Integers: the same
// whatever the order.
@compute @workgroup_size(WORKGROUP_SIZE)
fn hash_block_starts(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let block = scan_block(workgroup, workgroups);
    // A grid's spare workgroups (the same block for the whole workgroup: no barrier is skipped
    // by some threads only).
    if (block >= scan_blocks()) {
        return;
    }
    // Each block reads every earlier block's total: blocks²/2 reads in all, a few thousand
    // for a 128² cloth's 256 blocks.
    var earlier_blocks = 0u;
    for (var k = t; k < block; k += WORKGROUP_SIZE) {
        earlier_blocks += atomicLoad(&hash_table.starts[block_slot(k)]);
    }
    let own = thread_count_sum(block, t);
    workgroup_scan(vec2<u32>(own, earlier_blocks), t);
    let block_start = scan_sums[scanned_at(WORKGROUP_SIZE - 1u)].y;
    var start = block_start + scan_sums[scanned_at(t)].x - own;
    let buckets = params.self_collision.hash_table_size;
    for (var k = 0u; k < SCAN_BLOCK / WORKGROUP_SIZE; k += 1u) {
        let b = first_scanned(block, t) + k;
        if (b < buckets) {
            let count = atomicLoad(&hash_table.starts[b]);
            atomicStore(&hash_table.starts[b], start);
            start += count;
        }
        if (b + 1u == buckets) {
            atomicStore(&hash_table.starts[buckets], start);
        }
    }
}

// Puts particle i and its predicted position in its bucket's slot of its rank of arrival.
@compute @workgroup_size(WORKGROUP_SIZE)
fn hash_scatter(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let i = linear_id(workgroup, workgroups, local_index);
    if (i >= params.particle_count) {
        return;
    }
    let entry = hashed[params.particle_count + i];
    hashed[atomicLoad(&hash_table.starts[entry.x]) + entry.y] = vec4<u32>(i, bitcast<vec3<u32>>(predicted(i)));
}

// Sorts bucket b's particles by index (insertion sort; buckets beyond MAX_BUCKET_ENTRIES are
// skipped by their readers and left unsorted).
@compute @workgroup_size(WORKGROUP_SIZE)
fn hash_sort_buckets(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let b = linear_id(workgroup, workgroups, local_index);
    if (b >= params.self_collision.hash_table_size) {
        return;
    }
    let start = atomicLoad(&hash_table.starts[b]);
    let end = atomicLoad(&hash_table.starts[b + 1u]);
    if (end - start > MAX_BUCKET_ENTRIES) {
        return;
    }
    for (var k = start + 1u; k < end; k += 1u) {
        let entry = hashed[k];
        var slot = k;
        while (slot > start && hashed[slot - 1u].x > entry.x) {
            hashed[slot] = hashed[slot - 1u];
            slot -= 1u;
        }
        hashed[slot] = entry;
    }
}

// particle_correction in src/passes/self_collision.rs: particle i's contact correction (the sum over
// its contacts); counts an overflow.
fn particle_correction(i: u32) -> vec3<f32> {
    let size = cell_size();
    let p_i = predicted(i);
    let state_i = velocities[i];
    let rest_i = rest_position(i);
    let cloth = particle_cloth(i);
    let reach_i = reach(cloth);
    let own = cell_of(p_i, size);
    var sum = vec3<f32>(0.0);
    var examined = 0u;
    var overflow = false;
    for (var k = 0u; k < 27u; k += 1u) {
        let cell = query_cell(own, k);
        if (!cell_within_reach(p_i, cell, size, reach_i)) {
            continue;
        }
        let bucket = cell_hash(cell, params.self_collision.hash_table_size);
        let start = atomicLoad(&hash_table.starts[bucket]);
        let end = atomicLoad(&hash_table.starts[bucket + 1u]);
        if (end - start > MAX_BUCKET_ENTRIES) {
            overflow = true;
            continue;
        }
        for (var s = start; s < end; s += 1u) {
            let entry = hashed[s];
            let j = entry.x;
            let p_j = bitcast<vec3<f32>>(entry.yzw);
            if (j == i || any(cell_of(p_j, size) != cell)) {
                continue;
            }
            examined += 1u;
            if (examined > MAX_CANDIDATES) {
                overflow = true;
                break;
            }
            // Most candidates are out of reach: rejected before reading their state.
            let d = p_i - p_j;
            if (!(dot(d, d) < reach_i * reach_i)) {
                continue;
            }
            let rest_j = rest_shape[j];
            let pair = between(cloth, rest_j.w);
            let state_j = velocities[j];
            let contact = pair_correction(p_i, p_j, state_i.xyz, state_j.xyz, state_i.w, state_j.w, pair);
            if (!contact.found) {
                continue;
            }
            let apart_at_rest = rest_i - bitcast<vec3<f32>>(rest_j.xyz);
            if (rest_j.w != cloth || dot(apart_at_rest, apart_at_rest) >= pair.thickness * pair.thickness) {
                sum += contact.correction;
            }
        }
        if (examined > MAX_CANDIDATES) {
            break;
        }
    }
    if (overflow) {
        atomicAdd(&hash_table.overflow, 1u);
    }
    return sum;
}

// Writes particle i's pair contacts' correction.
fn pair_contacts_of(i: u32) {
    if (i >= params.particle_count) {
        return;
    }
    var correction = vec3<f32>(0.0);
    if (velocities[i].w > 0.0) {
        correction = particle_correction(i);
    }
    self_corrections[i] = vec4<f32>(correction, 0.0);
}

// Each particle's pair contacts, then each triangle's point contacts (triangle_contacts_of in
// shaders/passes/self_collision/triangles.wgsl), in one dispatch: the particles' workgroups first,
// then the triangles'. On a GPU each search alone is too small to fill its cores at a 64² cloth;
// they write apart (self_corrections, the sums' integer atomics), so side by side they give what
// one after the other gave (pair_contacts, then triangle_contacts: a CPU adapter's choice).
@compute @workgroup_size(WORKGROUP_SIZE)
fn self_contacts(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let id = linear_id(workgroup, workgroups, local_index);
    let particle_threads = (params.particle_count + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE * WORKGROUP_SIZE;
    if (id < particle_threads) {
        pair_contacts_of(id);
    } else {
        triangle_contacts_of(id - particle_threads);
    }
}

// Each particle's pair contacts alone.
@compute @workgroup_size(WORKGROUP_SIZE)
fn pair_contacts(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    pair_contacts_of(linear_id(workgroup, workgroups, local_index));
}

// Each triangle's point contacts alone.
@compute @workgroup_size(WORKGROUP_SIZE)
fn triangle_contacts(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    triangle_contacts_of(linear_id(workgroup, workgroups, local_index));
}

// Adds particle i's corrections to its displacement (its pair contacts', then its triangle
// contacts' sum, which it clears, then the momentum the deformation limit took), and clears
// bucket i's count and block i's total for the next substep's count.
@compute @workgroup_size(WORKGROUP_SIZE)
fn apply_self_contacts(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let i = linear_id(workgroup, workgroups, local_index);
    if (i < params.particle_count) {
        let state = velocities[i];
        let slot = sum_slot(i);
        let bits = vec4<u32>(
            atomicExchange(&hash_table.starts[slot], 0u),
            atomicExchange(&hash_table.starts[slot + 1u], 0u),
            atomicExchange(&hash_table.starts[slot + 2u], 0u),
            atomicExchange(&hash_table.starts[slot + 3u], 0u),
        );
        let sum = bitcast<vec4<i32>>(bits);
        let triangles = summed_correction(sum.xyz, sum.w, fixed_point_exponent());
        if (!triangles.taken) {
            atomicAdd(&hash_table.overflow, 1u);
        }
        let cloth = cloth_of(i);
        let restored = select(vec3<f32>(0.0), momentum_restored(from_cloth_reference(i, cloth), cloth), state.w > 0.0);
        velocities[i] = vec4<f32>(state.xyz + self_corrections[i].xyz + triangles.correction + restored, state.w);
    }
    if (i <= params.self_collision.hash_table_size) {
        atomicStore(&hash_table.starts[i], 0u);
    }
    if (i < scan_blocks()) {
        atomicStore(&hash_table.starts[block_slot(i)], 0u);
    }
}
