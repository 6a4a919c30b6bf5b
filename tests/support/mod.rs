//! Helpers shared by the tests.
#![allow(dead_code)]

pub mod gltf_asset;
pub mod gltf_validator;

use glam::Vec3;

/// The linear momentum of `model`'s particles at `velocities`.
pub fn momentum(model: &drape::ClothModel, velocities: &[Vec3]) -> Vec3 {
    velocities.iter().zip(model.masses()).map(|(v, m)| *v * *m).sum()
}

/// A small deterministic generator (xorshift) so the tests need no extra crate.
pub struct Rng(pub u64);

impl Rng {
    /// Uniform in [0, 1).
    pub fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in the cube [−1, 1)³.
    pub fn vec(&mut self) -> Vec3 {
        Vec3::new(self.next(), self.next(), self.next()) * 2.0 - Vec3::ONE
    }
}

/// A headless device (lavapipe on machines without a GPU).
pub fn device() -> (wgpu::Device, wgpu::Queue) {
    let (device, queue, _) =
        drape::headless_device(Default::default()).unwrap_or_else(|e| panic!("GPU tests need a Vulkan adapter: {e}"));
    (device, queue)
}

/// A headless device whose limits `adjust` lowers from what drape asks for.
pub fn device_with(adjust: impl FnOnce(&mut wgpu::Limits)) -> (wgpu::Device, wgpu::Queue) {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter =
        pollster::block_on(wgpu::util::initialize_adapter_from_env_or_default(&instance, None)).expect("an adapter");
    let mut limits = drape::required_limits(&adapter);
    adjust(&mut limits);
    pollster::block_on(
        adapter.request_device(&wgpu::DeviceDescriptor { required_limits: limits, ..Default::default() }),
    )
    .expect("a device")
}

/// The largest of `values` (−∞ for none), or NaN if any is not finite. `f32::max` returns the
/// operand that is not NaN, so a plain fold turns a run gone NaN into a small number that passes a
/// `≤` check; NaN fails every comparison.
pub fn largest(values: impl IntoIterator<Item = f32>) -> f32 {
    values.into_iter().fold(
        f32::NEG_INFINITY,
        |most, v| {
            if most.is_nan() || !v.is_finite() {
                f32::NAN
            } else {
                most.max(v)
            }
        },
    )
}

/// The smallest of `values` (+∞ for none), or NaN if any is not finite (see [`largest`]).
pub fn smallest(values: impl IntoIterator<Item = f32>) -> f32 {
    values.into_iter().fold(
        f32::INFINITY,
        |least, v| {
            if least.is_nan() || !v.is_finite() {
                f32::NAN
            } else {
                least.min(v)
            }
        },
    )
}

/// [`largest`] in f64.
pub fn largest_f64(values: impl IntoIterator<Item = f64>) -> f64 {
    values.into_iter().fold(
        f64::NEG_INFINITY,
        |most, v| {
            if most.is_nan() || !v.is_finite() {
                f64::NAN
            } else {
                most.max(v)
            }
        },
    )
}

/// Largest distance between corresponding points, NaN if any point is not finite.
pub fn max_distance(a: &[Vec3], b: &[Vec3]) -> f32 {
    assert_eq!(a.len(), b.len());
    let distances =
        a.iter().zip(b).map(|(p, q)| if p.is_finite() && q.is_finite() { p.distance(*q) } else { f32::NAN });
    largest(std::iter::once(0.0).chain(distances))
}

/// An annulus as OBJ text, upright around (0, 1, 0): rings of 7, 13, 18, 24 and 29 vertices
/// (radii 0.2 to 0.6 m, rippled out of plane so the bending constraints have curved rest angles)
/// zipped together by angle, so vertex valences vary from 3 to 7 and the mesh has a hole.
pub fn irregular_ring_obj() -> String {
    use std::f32::consts::TAU;
    let counts = [7usize, 13, 18, 24, 29];
    let mut text = String::from("# an irregular ring\n");
    let mut first = Vec::new();
    for (j, &n) in counts.iter().enumerate() {
        first.push(first.last().map_or(1, |&f: &usize| f + counts[j - 1]));
        let r = 0.2 + 0.1 * j as f32;
        for i in 0..n {
            let a = TAU * i as f32 / n as f32;
            text += &format!("v {} {} {}\n", r * a.cos(), 1.0 + r * a.sin(), 0.03 * (3.0 * a).sin());
        }
    }
    for j in 0..counts.len() - 1 {
        let (inner, outer) = (counts[j], counts[j + 1]);
        let (mut i, mut k) = (0, 0);
        while i < inner || k < outer {
            let a = first[j] + i % inner;
            let b = first[j + 1] + k % outer;
            let advance_inner = k == outer || (i < inner && (i + 1) * outer <= (k + 1) * inner);
            if advance_inner {
                text += &format!("f {a} {b} {}\n", first[j] + (i + 1) % inner);
                i += 1;
            } else {
                text += &format!("f {a} {b} {}\n", first[j + 1] + (k + 1) % outer);
                k += 1;
            }
        }
    }
    text
}

/// Each particle's number of neighbours (particles it shares a stretch constraint with).
pub fn valences(model: &drape::ClothModel) -> Vec<usize> {
    let stretch = &model.constraints().stretch;
    let mut valence = vec![0; model.particle_count()];
    for c in 0..stretch.len() {
        for p in stretch.particles(c) {
            valence[p as usize] += 1;
        }
    }
    valence
}

/// Shortest paths over the mesh edges at rest length from `source` (an f64 Dijkstra of its own):
/// an upper bound of the distance on the surface.
pub fn edge_path_distances(model: &drape::ClothModel, source: usize) -> Vec<f64> {
    let positions = &model.mesh().positions;
    let mut neighbours = vec![Vec::new(); positions.len()];
    for t in &model.mesh().triangles {
        for k in 0..3 {
            let (a, b) = (t[k] as usize, t[(k + 1) % 3] as usize);
            let length = f64::from(positions[a].distance(positions[b]));
            neighbours[a].push((b, length));
            neighbours[b].push((a, length));
        }
    }
    let mut distance = vec![f64::INFINITY; positions.len()];
    let mut done = vec![false; positions.len()];
    distance[source] = 0.0;
    for _ in 0..positions.len() {
        let Some(next) =
            (0..positions.len()).filter(|&i| !done[i]).min_by(|&a, &b| distance[a].total_cmp(&distance[b]))
        else {
            break;
        };
        done[next] = true;
        for &(other, length) in &neighbours[next] {
            distance[other] = distance[other].min(distance[next] + length);
        }
    }
    distance
}

/// Continuous collision on the GPU and the CPU reference: a small cloth (5 × 5 particles, 5 cm
/// apart) falls 5.1 m onto `colliders`, reaching 10 m/s — at 10 substeps per 60 Hz frame,
/// 1.67 cm per substep — and no particle ever gets below y = 0 (where the colliders are meant to
/// stop it) in 75 frames.
pub fn assert_a_fast_cloth_stops_above_ground(colliders: &[drape::Collider], mode: drape::SolverMode) {
    use drape::{ClothMesh, ClothModel, CpuSolver, GpuSolver, GridPlane, SolverParams};
    let params = SolverParams { mode, substeps: 10, iterations: 2, damping: 0.0, ..Default::default() };
    let mesh = ClothMesh::grid(5, 5, 0.05, GridPlane::Horizontal, Vec3::new(-0.1, 5.1, -0.1)).unwrap();
    let model = ClothModel::new(mesh, 0.2, &[]).unwrap();
    let (device, queue) = device();
    let mut gpu = GpuSolver::new(&device, &queue, &model, params, colliders).unwrap();
    let mut cpu = CpuSolver::new(&model, params, colliders).unwrap();
    let mut fastest = 0.0f32;
    for frame in 0..75 {
        gpu.step();
        cpu.step();
        fastest = largest([fastest, largest(gpu.read_velocities().unwrap().iter().map(|v| v.length()))]);
        for (name, positions) in [("GPU", gpu.read_positions().unwrap()), ("CPU", cpu.positions.clone())] {
            let lowest = smallest(positions.iter().map(|p| p.y));
            assert!(lowest > 0.0, "{mode:?} {name}: a particle got to y = {lowest} at frame {frame}");
        }
    }
    assert!(fastest > 9.5, "{mode:?}: the cloth should have hit at 10 m/s, not {fastest}");
}

/// A closed box mesh of half extents `half` about the origin: twelve triangles,
/// counter-clockwise from outside.
pub fn box_mesh(half: Vec3) -> drape::ClothMesh {
    let corners = (0..8).map(|k| half * Vec3::new([-1.0, 1.0][k & 1], [-1.0, 1.0][(k >> 1) & 1], [-1.0, 1.0][k >> 2]));
    // Faces −x, +x, −y, +y, −z, +z.
    let quads = [[0, 4, 6, 2], [1, 3, 7, 5], [0, 1, 5, 4], [2, 6, 7, 3], [0, 2, 3, 1], [4, 5, 7, 6]];
    let triangles = quads.iter().flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]).collect();
    drape::ClothMesh::new(corners.collect(), triangles, None).unwrap()
}

/// A cloth set down at `start` that should come to rest: runs it on the GPU and the CPU
/// reference for `frames` frames and returns each one's fastest particle speed over the frames
/// from `settled` on, and the GPU's final positions.
pub fn fastest_at_rest(
    model: &drape::ClothModel,
    params: drape::SolverParams,
    colliders: &[drape::Collider],
    start: &[Vec3],
    frames: u32,
    settled: u32,
) -> ([f32; 2], Vec<Vec3>) {
    use drape::{CpuSolver, GpuSolver};
    let (device, queue) = device();
    let mut gpu = GpuSolver::new(&device, &queue, model, params, colliders).unwrap();
    gpu.set_positions(start).unwrap();
    let mut cpu = CpuSolver::new(model, params, colliders).unwrap();
    cpu.positions = start.to_vec();
    let mut fastest = [0f32; 2];
    for frame in 0..frames {
        gpu.step();
        cpu.step();
        if frame >= settled {
            let speeds =
                [gpu.read_velocities().unwrap(), cpu.velocities.clone()].map(|v| largest(v.iter().map(|v| v.length())));
            fastest = [0, 1].map(|k| largest([fastest[k], speeds[k]]));
        }
    }
    (fastest, gpu.read_positions().unwrap())
}

/// Parameters for sheets colliding in zero gravity without damping, with self-collision of
/// thickness `h`, in `mode` (the springs of light 2 cm cells are stable from 33 substeps, so
/// mass-spring takes 40).
pub fn zero_gravity_self_collision(mode: drape::SolverMode, h: f32) -> drape::SolverParams {
    drape::SolverParams {
        gravity: Vec3::ZERO,
        damping: 0.0,
        substeps: if mode.projects() { 10 } else { 40 },
        mode,
        self_collision: Some(drape::SelfCollision::new(h)),
        ..Default::default()
    }
}

/// Gives the GPU solver the CPU reference's positions and velocities, so that the next frame of
/// each starts from the same state. Where contacts make a run chaotic, the rounding in which
/// drivers differ (GL contracts multiply-adds and rounds divisions and square roots its own
/// way, as real GPUs do) grows without bound over a run; one frame from one state measures
/// the port on every driver.
pub fn start_gpu_from_cpu(gpu: &mut drape::GpuSolver, cpu: &drape::CpuSolver) {
    gpu.set_positions(&cpu.positions).unwrap();
    gpu.set_velocities(&cpu.velocities).unwrap();
}

/// A fan of three triangles around vertex 0 in a ring of three more, horizontal but for each
/// vertex's `heights` (m): vertex 0 has three triangles, so two edges of each fan triangle share
/// their far vertex, and each has a third edge on the boundary (whose far vertex is its own).
/// Each triangle's vertices are turned left by `rotation`, which moves the shared far vertex
/// and the boundary's to other places of a curvature unit ([`FAN_ROTATIONS`] reach them all).
pub fn three_triangle_fan(heights: [f32; 7], rotation: usize) -> drape::ClothMesh {
    let flat = [(0.0, 0.0), (0.1, 0.0), (-0.05, 0.087), (-0.05, -0.087), (0.05, 0.13), (-0.12, 0.0), (0.05, -0.13)];
    let positions = flat.iter().zip(heights).map(|(&(x, z), y)| Vec3::new(x, y, z)).collect();
    let triangles = [[0, 1, 2], [0, 2, 3], [0, 3, 1], [1, 4, 2], [2, 5, 3], [3, 6, 1]];
    let turned = triangles.iter().map(|t: &[u32; 3]| std::array::from_fn(|k| t[(k + rotation) % 3])).collect();
    drape::ClothMesh::new(positions, turned, None).expect("a valid fan")
}

/// The rotations of [`three_triangle_fan`]: the fan triangles' shared far vertex across edges
/// 0 and 2, 1 and 2, 0 and 1.
pub const FAN_ROTATIONS: [usize; 3] = [0, 1, 2];

/// The thrown crumpling cloth: 11 × 11 particles 2 cm apart, thrown at 10 m/s, every particle
/// heading for the centre at 1.5 m/s and the four quarters folding up at 20 rad/s about the
/// midlines.
pub fn crumpling_cloth() -> (drape::ClothModel, Vec<Vec3>) {
    let mesh = drape::ClothMesh::grid(11, 11, 0.02, drape::GridPlane::Horizontal, Vec3::ZERO).unwrap();
    let model = drape::ClothModel::new(mesh, 0.2, &[]).unwrap();
    let centre = model.mesh().positions.iter().sum::<Vec3>() / model.particle_count() as f32;
    let velocities = model
        .mesh()
        .positions
        .iter()
        .map(|&x| {
            let d = x - centre;
            let folding = Vec3::new(0.0, 20.0 * (d.x.abs() + d.z.abs()), 0.0);
            Vec3::new(10.0, 0.0, 0.0) - 1.5 * d.normalize_or_zero() + folding
        })
        .collect();
    (model, velocities)
}

/// The crumpling cloth's parameters in `mode`: zero gravity, self-collision of 1 cm, no bending
/// stiffness.
pub fn crumpling(mode: drape::SolverMode) -> drape::SolverParams {
    drape::SolverParams { bending: drape::Stiffness::Pbd(0.0), ..zero_gravity_self_collision(mode, 0.01) }
}

/// A vertical strip `width × length` at `spacing`, its texture's `u` (the warp) along its
/// length when `warp_down` (else across it), its top row pinned.
pub fn strip(width: f32, length: f32, spacing: f32, warp_down: bool) -> (drape::ClothMesh, Vec<u32>) {
    let (nx, ny) = ((width / spacing).round() as u32 + 1, (length / spacing).round() as u32 + 1);
    let grid = drape::ClothMesh::grid(nx, ny, spacing, drape::GridPlane::Vertical, Vec3::new(0.0, 1.0, 0.0)).unwrap();
    let uvs =
        if warp_down { grid.uvs.iter().map(|uv| glam::Vec2::new(uv.y, uv.x)).collect() } else { grid.uvs.clone() };
    let mesh = drape::ClothMesh::new(grid.positions, grid.triangles, Some(uvs)).unwrap();
    (mesh, (0..nx).collect())
}
