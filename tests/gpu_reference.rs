//! The GPU agrees with the CPU reference in both modes and every dispatch layout, the layouts
//! agree bit for bit, and two GPU runs are bit-identical.

mod support;

use drape::constraints::Kind;
use drape::gpu::ProfileBy;
use drape::passes::springs::SpringNetwork;
use drape::MassSpringParams;
use drape::{
    BendingModel, Collider, ContactMaterial, CpuSolver, DispatchStrategy, GpuSolver, Overflows, Pose, Scene, SceneKind,
    SolverMode, SolverParams, Stiffness, TetherParams,
};
use glam::{Quat, Vec3};
use support::{device, largest, max_distance, start_gpu_from_cpu};

const MODES: [SolverMode; 2] = [SolverMode::GaussSeidel, SolverMode::Jacobi { relaxation: 1.5 }];
const LAYOUTS: [DispatchStrategy; 3] =
    [DispatchStrategy::SingleWorkgroup, DispatchStrategy::PerColour, DispatchStrategy::Striped];

/// Max |Δx| between GPU (in `layout`) and CPU after `frames` frames.
fn gpu_cpu_distance(kind: SceneKind, cells: u32, params: SolverParams, layout: DispatchStrategy, frames: usize) -> f32 {
    gpu_cpu_distances(kind, cells, params, layout, &[frames])[0]
}

/// Max |Δx| between GPU (in `layout`) and CPU at each of the increasing frame counts
/// `checkpoints`, from one run.
fn gpu_cpu_distances(
    kind: SceneKind,
    cells: u32,
    params: SolverParams,
    layout: DispatchStrategy,
    checkpoints: &[usize],
) -> Vec<f32> {
    let (device, queue) = device();
    let scene = Scene::new(kind, cells).unwrap();
    let mut gpu = GpuSolver::new(&device, &queue, &scene.model, params, &scene.colliders).unwrap();
    gpu.set_dispatch(layout).unwrap();
    let mut cpu = CpuSolver::new(&scene.model, params, &scene.colliders).unwrap();
    let mut frames = 0;
    let distances = checkpoints
        .iter()
        .map(|&checkpoint| {
            for _ in frames..checkpoint {
                gpu.step();
                cpu.step();
            }
            frames = checkpoint;
            max_distance(&gpu.read_positions().unwrap(), &cpu.positions)
        })
        .collect();
    let moved = max_distance(&cpu.positions, &scene.model.mesh().positions);
    assert!(moved > 0.01, "the cloth should have moved (moved {moved} m)");
    distances
}

/// The largest |Δx| between GPU (in `layout`) and CPU over `frames` frames, each frame stepped
/// from the same state ([`start_gpu_from_cpu`]): for scenes whose contacts make a run chaotic.
fn gpu_cpu_frame_distance(
    kind: SceneKind,
    cells: u32,
    params: SolverParams,
    layout: DispatchStrategy,
    frames: usize,
) -> f32 {
    gpu_cpu_frames(kind, cells, params, layout, frames).max_distance
}

/// How the GPU (in `layout`) parts from the CPU over `frames` frames, each frame stepped from the
/// same state ([`start_gpu_from_cpu`]).
fn gpu_cpu_frames(
    kind: SceneKind,
    cells: u32,
    params: SolverParams,
    layout: DispatchStrategy,
    frames: usize,
) -> FrameAgreement {
    let (device, queue) = device();
    let scene = Scene::new(kind, cells).unwrap();
    let mut gpu = GpuSolver::new(&device, &queue, &scene.model, params, &scene.colliders).unwrap();
    gpu.set_dispatch(layout).unwrap();
    let mut cpu = CpuSolver::new(&scene.model, params, &scene.colliders).unwrap();
    let mut agreement = FrameAgreement::default();
    for _ in 0..frames {
        agreement.step(&mut gpu, &mut cpu);
    }
    let moved = max_distance(&cpu.positions, &scene.model.mesh().positions);
    assert!(moved > 0.01, "the cloth should have moved (moved {moved} m)");
    agreement
}

/// How far apart the GPU's frames end from the reference's when each starts from the
/// reference's state, with contacts deciding. A contact can decide by a threshold that the last
/// bit of rounding puts on either side, and drivers round differently (GL's llvmpipe unlike
/// Vulkan's; real GPUs each their own way): which half-space a sphere trace ends on near a box's
/// edge, which colliders fill a particle's full list, whether a restitution threshold is
/// crossed. A ported formula would part every particle it reaches; a flipped decision parts a
/// few particles, each by no more than it travels in a substep. So: every particle ends within
/// [`PORT_TOLERANCE`] of the reference, or within that plus a substep's travel at the larger of
/// its two speeds, and at most [`FLIPPED_SHARE`] of the particle frames take the second bound.
#[derive(Debug, Default)]
struct FrameAgreement {
    particle_frames: usize,
    flipped: usize,
    max_distance: f32,
    /// The largest distance over its bound (above 1: a particle farther than a flip explains;
    /// NaN: a non-finite position).
    worst_ratio: f32,
}

/// How close a frame of the GPU's ends to the reference's from the same state.
const PORT_TOLERANCE: f32 = 1e-5;
/// The share of particle frames that a flipped contact decision may part by more.
const FLIPPED_SHARE: f64 = 0.01;

impl FrameAgreement {
    /// Steps both solvers a frame from the CPU's state and compares where they end.
    fn step(&mut self, gpu: &mut GpuSolver, cpu: &mut CpuSolver) {
        start_gpu_from_cpu(gpu, cpu);
        gpu.step();
        cpu.step();
        let h = cpu.params().substep_dt();
        let (positions, velocities) = (gpu.read_positions().unwrap(), gpu.read_velocities().unwrap());
        for i in 0..positions.len() {
            let d = (positions[i] - cpu.positions[i]).length();
            let travel = velocities[i].length().max(cpu.velocities[i].length()) * h;
            let ratio = d / (PORT_TOLERANCE + travel);
            self.worst_ratio = largest([self.worst_ratio, ratio]);
            self.max_distance = largest([self.max_distance, d]);
            self.flipped += usize::from(d > PORT_TOLERANCE || d.is_nan());
            self.particle_frames += 1;
        }
    }

    fn assert_agrees(&self, what: &str) {
        assert!(
            self.worst_ratio <= 1.0 && self.flipped as f64 <= FLIPPED_SHARE * self.particle_frames as f64,
            "{what}: {self:?}"
        );
    }
}

fn params(kind: SceneKind, mode: SolverMode) -> SolverParams {
    SolverParams { mode, substeps: 4, iterations: 4, ..Scene::new(kind, 2).unwrap().params }
}

/// `params` without static friction, for comparing a frame of cloth resting on colliders on any
/// driver. Static friction on positions (XPBD rigid bodies §3.5) is a jump: a particle whose
/// sliding needs less than `μ_s` times its push stays, one that needs more slides the whole way,
/// and a particle on that edge goes either way with the last bit of rounding, in which drivers
/// differ (on GL, one resting on the capsules scene's bar stayed on the GPU and slid 0.5 mm on
/// the CPU). Dynamic friction, on the velocity, is continuous. Static friction's law is tested
/// on its own (`tests/physics_laws.rs`, the incline).
fn without_static_friction(params: SolverParams) -> SolverParams {
    SolverParams { static_friction: 0.0, ..params }
}

/// A solver in `layout`.
fn solver(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    model: &drape::ClothModel,
    params: SolverParams,
    colliders: &[drape::Collider],
    layout: DispatchStrategy,
) -> GpuSolver {
    let mut solver = GpuSolver::new(device, queue, model, params, colliders).unwrap();
    solver.set_dispatch(layout).unwrap();
    solver
}

/// Tethers with 5 % of give let the cloth sag while they hold it, so both the edges and the
/// tethers act.
#[test]
fn hanging_cloth_matches_reference_in_every_mode_and_layout() {
    for mode in MODES {
        for layout in LAYOUTS {
            let mut p = params(SceneKind::Hanging, mode);
            p.tethers.scale = 1.05;
            let d = gpu_cpu_distance(SceneKind::Hanging, 24, p, layout, 60);
            assert!(d <= 1e-4, "{mode:?} {layout:?}: max |Δx| = {d} m after 60 frames");
        }
    }
}

/// Strain limits on a soft material act on most edges at once, in the free edges and the
/// hinges alike, and GPU and CPU apply them the same way. No tethers: at the flat sheet's
/// straight rest distances they would hold the hanging cloth where the limits should.
#[test]
fn strain_limited_soft_cloth_matches_reference_in_every_mode() {
    for mode in MODES {
        let p = SolverParams {
            stretch: Stiffness::Compliance(0.5),
            strain_limits: Some(drape::StrainLimits { min: 0.8, max: 1.1 }),
            tethers: drape::TetherParams { enabled: false, ..Default::default() },
            ..params(SceneKind::Hanging, mode)
        };
        let d = gpu_cpu_distance(SceneKind::Hanging, 16, p, DispatchStrategy::Auto, 40);
        assert!(d <= 1e-4, "{mode:?}: max |Δx| = {d} m after 40 frames");
    }
}

/// Area limits on a soft material act on most triangles, with one pinned corner (the hanging
/// cloth's) and two (the flag's pinned edge, in the wind). GPU and CPU apply them alike in every
/// mode and layout, and two GPU runs agree bit for bit. No tethers (see the strain limits).
#[test]
fn area_limited_soft_cloth_matches_reference_in_every_mode_and_layout() {
    let limits = Some(drape::StrainLimits { min: 0.8, max: 1.05 });
    for mode in MODES {
        for (kind, layouts) in [(SceneKind::Hanging, &LAYOUTS[..]), (SceneKind::Flag, &[DispatchStrategy::Auto][..])] {
            let tethers = drape::TetherParams { enabled: false, ..Default::default() };
            let p = SolverParams {
                stretch: Stiffness::Compliance(0.5),
                area_limits: limits,
                tethers,
                ..params(kind, mode)
            };
            for &layout in layouts {
                // A soft cloth whose area limits switch on and off is chaotic: on GL the runs
                // part by 0.35 m in 40 frames, and by 58 µm at most in a frame from one state.
                let d = gpu_cpu_frame_distance(kind, 12, p, layout, 40);
                assert!(d <= 1e-4, "{kind:?} {mode:?} {layout:?}: max |Δx| = {d} m in a frame of 40");
            }
            let (device, queue) = device();
            let scene = Scene::new(kind, 12).unwrap();
            let run = || {
                let mut solver = solver(&device, &queue, &scene.model, p, &scene.colliders, DispatchStrategy::Auto);
                (0..40).for_each(|_| solver.step());
                solver.read_positions().unwrap()
            };
            assert_eq!(max_distance(&run(), &run()), 0.0, "{kind:?} {mode:?}: two runs differ");
        }
    }
}

/// Material maps (random mass, stretch and bending scales) reach the GPU's records and the CPU
/// reference alike, in both modes.
#[test]
fn material_maps_match_reference_in_every_mode() {
    let scene = Scene::new(SceneKind::Hanging, 12).unwrap();
    let mut rng = support::Rng(31);
    let mut scales = |count: usize| (0..count).map(|_| 0.2 + 4.0 * rng.next()).collect::<Vec<f32>>();
    let constraints = scene.model.constraints();
    let (edges, hinges) = (constraints.stretch.len(), constraints.bending.len());
    let model = scene.model.clone().with_mass_scales(&scales(scene.model.particle_count())).unwrap();
    let model = model.with_stiffness_scales(Kind::Stretch, &scales(edges)).unwrap();
    let model = model.with_stiffness_scales(Kind::Bending, &scales(hinges)).unwrap();
    let (device, queue) = device();
    for mode in MODES {
        let p = SolverParams {
            stretch: Stiffness::Compliance(1e-3),
            bending: Stiffness::Pbd(0.5),
            ..params(SceneKind::Hanging, mode)
        };
        let mut gpu = GpuSolver::new(&device, &queue, &model, p, &scene.colliders).unwrap();
        let mut cpu = CpuSolver::new(&model, p, &scene.colliders).unwrap();
        for _ in 0..40 {
            gpu.step();
            cpu.step();
        }
        let d = max_distance(&gpu.read_positions().unwrap(), &cpu.positions);
        assert!(d <= 1e-4, "{mode:?}: max |Δx| = {d} m after 40 frames");
    }
}

/// Isometric bending (with a bending map) projects in the hinge units of every mode and layout
/// as on the CPU, the layouts agree bit for bit and so do two GPU runs. The cloth falls onto the sphere, so every
/// hinge bends.
#[test]
fn isometric_bending_matches_reference_in_every_mode_and_layout() {
    let scene = Scene::new(SceneKind::Drape, 12).unwrap();
    let model = scene.model.clone().with_bending_model(BendingModel::Isometric).unwrap();
    let hinges = model.constraints().isometric.len();
    assert_eq!(hinges, scene.model.constraints().bending.len());
    let mut rng = support::Rng(5);
    let scales: Vec<f32> = (0..hinges).map(|_| 0.2 + 4.0 * rng.next()).collect();
    let model = model.with_stiffness_scales(Kind::Isometric, &scales).unwrap();
    let (device, queue) = device();
    for mode in MODES {
        let p = SolverParams { bending: Stiffness::Compliance(0.05), ..params(SceneKind::Drape, mode) };
        let mut cpu = CpuSolver::new(&model, p, &scene.colliders).unwrap();
        (0..40).for_each(|_| cpu.step());
        let mut first = None;
        for layout in LAYOUTS {
            let mut gpu = solver(&device, &queue, &model, p, &scene.colliders, layout);
            (0..40).for_each(|_| gpu.step());
            let positions = gpu.read_positions().unwrap();
            let d = max_distance(&positions, &cpu.positions);
            assert!(d <= 1e-4, "{mode:?} {layout:?}: max |Δx| = {d} m after 40 frames");
            let mut again = solver(&device, &queue, &model, p, &scene.colliders, layout);
            (0..40).for_each(|_| again.step());
            assert_eq!(again.read_positions().unwrap(), positions, "{mode:?} {layout:?}: reruns differ");
            assert_eq!(
                first.get_or_insert_with(|| positions.clone()),
                &positions,
                "{mode:?} {layout:?}: layouts differ"
            );
        }
    }
}

/// A cloth of a fabric (a membrane of warp, weft and shear per triangle, hinges or curvature of
/// a bending rigidity, a membrane map and a curvature map) projects in the triangle, bend and
/// shell units of every mode and layout as on the CPU, in every bending model, frame by frame from the reference's state
/// (the sheared cloth's contacts with the sphere make a whole run chaotic: Jacobi parted by
/// 0.4 mm over 40 frames from a first difference of 1e-15 m); the layouts agree bit for bit and
/// so do two GPU runs.
#[test]
fn fabric_cloth_matches_reference_in_every_mode_and_layout() {
    let scene = Scene::new(SceneKind::Drape, 12).unwrap();
    let fabric = drape::Fabric::named("cotton-shirting").unwrap();
    let (device, queue) = device();
    for bending_model in BendingModel::ALL {
        let model = scene.model.refit_to(&fabric).unwrap().with_bending_model(bending_model).unwrap();
        let triangles = model.constraints().membrane.len();
        let mut rng = support::Rng(9);
        let scales: Vec<f32> = (0..triangles).map(|_| 0.5 + 2.0 * rng.next()).collect();
        let mut model = model.with_stiffness_scales(Kind::Membrane, &scales).unwrap();
        if bending_model == BendingModel::Curvature {
            let scales: Vec<f32> = (0..model.constraints().curvature.len()).map(|_| 0.5 + 2.0 * rng.next()).collect();
            model = model.with_stiffness_scales(Kind::Curvature, &scales).unwrap();
        }
        for mode in MODES {
            let p = without_static_friction(params(SceneKind::Drape, mode));
            let mut first = None;
            for layout in LAYOUTS {
                let what = format!("{bending_model:?} {mode:?} {layout:?}");
                let mut gpu = solver(&device, &queue, &model, p, &scene.colliders, layout);
                let mut cpu = CpuSolver::new(&model, p, &scene.colliders).unwrap();
                let mut agreement = FrameAgreement::default();
                (0..40).for_each(|_| agreement.step(&mut gpu, &mut cpu));
                agreement.assert_agrees(&what);
                let mut runs = [(); 2].map(|_| solver(&device, &queue, &model, p, &scene.colliders, layout));
                runs.iter_mut().for_each(|run| (0..40).for_each(|_| run.step()));
                let [a, b] = runs.map(|mut run| run.read_positions().unwrap());
                assert_eq!(a, b, "{what}: reruns differ");
                assert_eq!(first.get_or_insert_with(|| a.clone()), &a, "{what}: layouts differ");
            }
        }
    }
}

/// A curvature unit (a fabric's shell, and the curvature alone of a cloth with stretch edges)
/// whose two edges share their far vertex (a vertex with three triangles) and whose third edge
/// is on the boundary (its far vertex is the triangle's own, which a shell's membrane moved
/// first) stores each particle once with the corrections of all its places: a fan of three
/// triangles around a raised centre, in a ring of three more, given a twist, ends each of ten
/// frames within 1 µm of the CPU's from the same state, in both modes and every layout, with the
/// shared and the boundary's far vertices in every place of a unit (no contacts: nothing but
/// rounding parts them).
#[test]
fn curvature_units_with_shared_far_vertices_match_reference() {
    let fabric = drape::Fabric::named("denim").unwrap();
    let (device, queue) = device();
    for rotation in support::FAN_ROTATIONS {
        let mesh = support::three_triangle_fan([0.02, 0.0, 0.0, 0.0, -0.01, 0.01, 0.0], rotation);
        let shells = drape::ClothModel::from_fabric(mesh.clone(), &fabric, &[]).unwrap();
        let units = shells.constraints().curvature.units();
        let shared = |unit: &[u32; 6]| (3..6).any(|k| (3..k).any(|j| unit[j] == unit[k]));
        assert!(units.iter().any(shared), "no unit shares a far vertex: {units:?}");
        let edges = drape::ClothModel::new(mesh, fabric.density, &[])
            .and_then(|m| m.with_bending_rigidity(fabric.bending))
            .and_then(|m| m.with_bending_model(BendingModel::Curvature))
            .unwrap();
        for (name, model) in [("shells", &shells), ("curvature units", &edges)] {
            shared_far_vertices_match_reference(&device, &queue, &format!("{name}, rotation {rotation}"), model);
        }
    }
}

/// One model of [`curvature_units_with_shared_far_vertices_match_reference`].
fn shared_far_vertices_match_reference(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    name: &str,
    model: &drape::ClothModel,
) {
    for mode in MODES {
        let p = SolverParams { mode, substeps: 4, iterations: 4, gravity: Vec3::ZERO, ..SolverParams::default() };
        for layout in LAYOUTS {
            let mut gpu = solver(device, queue, model, p, &[], layout);
            let mut cpu = CpuSolver::new(model, p, &[]).unwrap();
            cpu.velocities = cpu.positions.iter().map(|x| Vec3::new(-x.z, 3.0 * x.x, x.x)).collect();
            for frame in 0..10 {
                start_gpu_from_cpu(&mut gpu, &cpu);
                gpu.step();
                cpu.step();
                let d = max_distance(&gpu.read_positions().unwrap(), &cpu.positions);
                assert!(d <= 1e-6, "{name}, {mode:?} {layout:?}, frame {frame}: |Δx| = {d} m");
            }
        }
    }
}

/// Rigid damping sums the free particles' moments in a tree on the GPU and in index order on
/// the CPU: the two agree to rounding, with pins (left out of the sums) and the air (a wind
/// that keeps the flag moving), and two GPU runs agree bit for bit.
#[test]
fn rigid_damping_matches_reference_and_repeats_bit_for_bit() {
    for mode in MODES {
        let p = SolverParams { rigid_damping: 8.0, ..params(SceneKind::Flag, mode) };
        let d = gpu_cpu_distance(SceneKind::Flag, 12, p, DispatchStrategy::Auto, 40);
        assert!(d <= 1e-4, "{mode:?}: max |Δx| = {d} m after 40 frames");
        let (device, queue) = device();
        let scene = Scene::new(SceneKind::Flag, 12).unwrap();
        let run = || {
            let mut gpu = GpuSolver::new(&device, &queue, &scene.model, p, &scene.colliders).unwrap();
            for _ in 0..20 {
                gpu.step();
            }
            gpu.read_velocities().unwrap()
        };
        assert_eq!(run(), run(), "{mode:?}: two runs differ");
    }
}

/// Contacts switch on and off (and restitution at its threshold) at thresholds, which amplify
/// any last-bit difference between GPU and CPU arithmetic into millimetres over a run, and
/// drivers round differently (GL contracts multiply-adds): each frame starts from the same state
/// on both sides, and from it the GPU's frame stays within 0.1 mm of the reference's (bit for bit
/// on lavapipe's Vulkan; the collision response is written with the same operations on both
/// sides, with no displacement recomputed as a difference of positions, which a driver may
/// simplify). Without static friction, whose jump parts a frame by 1.6 mm on GL
/// ([`without_static_friction`]).
#[test]
fn draped_cloth_with_contacts_and_pbd_stiffness_stays_close_to_reference() {
    for mode in MODES {
        let p = SolverParams {
            stretch: Stiffness::Pbd(1.0),
            compression: Stiffness::Pbd(0.8),
            bending: Stiffness::Pbd(0.2),
            restitution: 0.3,
            ..without_static_friction(params(SceneKind::Drape, mode))
        };
        let d = gpu_cpu_frame_distance(SceneKind::Drape, 16, p, DispatchStrategy::Auto, 60);
        assert!(d <= 1e-4, "{mode:?}: max |Δx| = {d} m in a frame of 60");
    }
}

/// Capsules and boxes (rotated, rounded, with continuous collision by sphere tracing) are
/// computed with the same operations on both sides: the capsules scene, a cloth falling over a
/// bar onto a box, agrees with the reference within 0.1 mm in both modes (each frame from the
/// same state, without static friction's jump; bit for bit on lavapipe's Vulkan, 36 µm on GL),
/// and two GPU runs are bit-identical.
#[test]
fn capsules_and_boxes_match_reference_and_repeat_bit_for_bit() {
    let (device, queue) = device();
    let scene = Scene::new(SceneKind::Capsules, 12).unwrap();
    for mode in MODES {
        let p = without_static_friction(params(SceneKind::Capsules, mode));
        let d = gpu_cpu_frame_distance(SceneKind::Capsules, 12, p, DispatchStrategy::Auto, 60);
        assert!(d <= 1e-4, "{mode:?}: max |Δx| = {d} m in a frame of 60");
        let run = || {
            let mut solver = solver(&device, &queue, &scene.model, p, &scene.colliders, DispatchStrategy::Auto);
            for _ in 0..30 {
                solver.step();
            }
            solver.read_positions().unwrap().iter().flat_map(|x| x.to_array().map(f32::to_bits)).collect::<Vec<_>>()
        };
        assert!(run() == run(), "{mode:?}: two identical runs differ");
    }
}

/// The collider contacts inside the iterations ([`SolverParams::contacts_in_iterations`]) are
/// the same on both sides: the capsules scene (a cloth over a bar and a box on the ground, so
/// particles meet two colliders at once) agrees with the reference in both modes (each frame
/// from the same state), in one
/// workgroup (an iteration per dispatch) and colour by colour, two GPU runs
/// are bit-identical, and a frame adds a dispatch per substep and per iteration, which go with
/// the colliders and come back with them.
#[test]
fn contacts_in_the_iterations_match_reference_and_repeat_bit_for_bit() {
    let (device, queue) = device();
    let scene = Scene::new(SceneKind::Capsules, 12).unwrap();
    for mode in MODES {
        let p =
            SolverParams { contacts_in_iterations: true, ..without_static_friction(params(SceneKind::Capsules, mode)) };
        for layout in [DispatchStrategy::SingleWorkgroup, DispatchStrategy::PerColour] {
            gpu_cpu_frames(SceneKind::Capsules, 12, p, layout, 60).assert_agrees(&format!("{mode:?}, {layout:?}"));
        }
        let run = || {
            let mut solver = solver(&device, &queue, &scene.model, p, &scene.colliders, DispatchStrategy::Auto);
            for _ in 0..30 {
                solver.step();
            }
            solver.read_positions().unwrap().iter().flat_map(|x| x.to_array().map(f32::to_bits)).collect::<Vec<_>>()
        };
        assert!(run() == run(), "{mode:?}: two identical runs differ");
        let layout = DispatchStrategy::PerColour;
        let after = solver(&device, &queue, &scene.model, params(SceneKind::Capsules, mode), &scene.colliders, layout);
        let mut inside = solver(&device, &queue, &scene.model, p, &scene.colliders, layout);
        let added = (p.substeps * (p.iterations + 1)) as usize;
        assert_eq!(inside.dispatches_per_frame(), after.dispatches_per_frame() + added, "{mode:?}");
        inside.set_colliders(&[]).unwrap();
        let mut bare = solver(&device, &queue, &scene.model, params(SceneKind::Capsules, mode), &[], layout);
        assert_eq!(inside.dispatches_per_frame(), bare.dispatches_per_frame(), "{mode:?} without colliders");
        inside.set_colliders(&scene.colliders).unwrap();
        bare.set_colliders(&scene.colliders).unwrap();
        assert_eq!(inside.dispatches_per_frame(), bare.dispatches_per_frame() + added, "{mode:?} with them again");
    }
}

/// Moving colliders and their own materials are the same on both sides: in the capsules scene
/// the bar spins about its own axis and the box slides and turns (poses set every frame, the
/// same on GPU and CPU), and the ground and bar have materials of their own; the cloth agrees
/// with the reference in both modes (each frame from the same state), and two GPU runs are
/// bit-identical.
#[test]
fn moving_colliders_match_reference_and_repeat_bit_for_bit() {
    let (device, queue) = device();
    let scene = Scene::new(SceneKind::Capsules, 12).unwrap();
    let dt = scene.params.time_step;
    let poses = |frame: usize| {
        let t = frame as f32 * dt;
        let spin = Quat::from_rotation_x(3.0 * t);
        let bar_axis = Vec3::new(0.0, 1.0, 0.0);
        vec![
            Pose::IDENTITY,
            Pose { translation: bar_axis - spin * bar_axis, rotation: spin },
            Pose { translation: Vec3::new(0.2 * t, 0.0, 0.0), rotation: Quat::from_rotation_y(0.5 * t) },
        ]
    };
    // A bouncy ground with a wide margin, a slippery bar, the box as the parameters say.
    let defaults = without_static_friction(scene.params).contact_material();
    let materials = [
        Some(ContactMaterial { collision_margin: 0.02, restitution: 0.5, ..defaults }),
        Some(ContactMaterial { dynamic_friction: 0.05, ..defaults }),
        None,
    ];
    for mode in MODES {
        let p = without_static_friction(params(SceneKind::Capsules, mode));
        let run = |frames: usize| {
            let mut gpu = solver(&device, &queue, &scene.model, p, &scene.colliders, DispatchStrategy::Auto);
            let mut cpu = CpuSolver::new(&scene.model, p, &scene.colliders).unwrap();
            gpu.set_collider_materials(&materials).unwrap();
            cpu.set_collider_materials(&materials).unwrap();
            let mut agreement = FrameAgreement::default();
            for frame in 1..=frames {
                gpu.set_collider_poses(&poses(frame)).unwrap();
                cpu.set_collider_poses(&poses(frame)).unwrap();
                agreement.step(&mut gpu, &mut cpu);
            }
            (gpu.read_positions().unwrap(), agreement)
        };
        let (gpu, agreement) = run(50);
        agreement.assert_agrees(&format!("{mode:?}"));
        let bits = |x: &[Vec3]| x.iter().flat_map(|p| p.to_array().map(f32::to_bits)).collect::<Vec<_>>();
        assert!(bits(&run(50).0) == bits(&gpu), "{mode:?}: two identical runs differ");
    }
}

/// Any number of colliders: the drape cloth falls on the ground, a bed of 25 spheres and a
/// cluster of 10 overlapping ones (more than one particle takes). The GPU follows the
/// reference (each frame from the same state), counts the same overflowing particle substeps,
/// and a new collider list zeroes the count.
#[test]
fn many_colliders_and_their_overflow_count_match_reference() {
    let (device, queue) = device();
    let scene = Scene::new(SceneKind::Drape, 12).unwrap();
    let mut colliders = vec![Collider::ground(0.0)];
    for (i, j) in (0..5).flat_map(|i| (0..5).map(move |j| (i, j))) {
        colliders.push(Collider::sphere(Vec3::new(0.4 * i as f32 - 0.8, 0.4, 0.4 * j as f32 - 0.8), 0.12));
    }
    for k in 0..10 {
        colliders.push(Collider::sphere(Vec3::new(0.21 + 0.001 * k as f32, 0.7, 0.21), 0.2));
    }
    let p = without_static_friction(params(SceneKind::Drape, SolverMode::GaussSeidel));
    // Made with one collider, the GPU's list grows (and is bound anew) for all of them.
    let mut gpu = solver(&device, &queue, &scene.model, p, &colliders[..1], DispatchStrategy::Auto);
    gpu.set_colliders(&colliders).unwrap();
    let mut cpu = CpuSolver::new(&scene.model, p, &colliders).unwrap();
    let mut agreement = FrameAgreement::default();
    for _ in 0..60 {
        agreement.step(&mut gpu, &mut cpu);
    }
    agreement.assert_agrees("many colliders");
    let overflows = gpu.overflows().unwrap();
    assert_eq!(overflows, cpu.overflows());
    assert!(overflows.colliders > 0, "the cluster of ten spheres overflowed no particle");
    assert_eq!(gpu.metrics().unwrap().overflows, overflows);
    gpu.set_colliders(&colliders[..26]).unwrap();
    gpu.step();
    assert_eq!(gpu.overflows().unwrap(), Overflows::default(), "new colliders start with no overflow");
}

/// The collision kernels are built without the sphere trace for colliders that are all planes
/// and spheres, and with it once a capsule, box or mesh joins; a box far from the cloth, whose
/// bounds no path meets, adds nothing to any particle's contacts, so the two builds give the
/// same frames bit for bit, in both modes, with the contacts in the iterations too.
#[test]
fn the_builds_with_and_without_the_sphere_trace_agree_bit_for_bit() {
    let (device, queue) = device();
    let scene = Scene::new(SceneKind::Drape, 12).unwrap();
    let far_box = Collider::cuboid(Vec3::new(0.0, -50.0, 0.0), Vec3::splat(0.5), Quat::IDENTITY);
    let traced: Vec<Collider> = scene.colliders.iter().cloned().chain([far_box]).collect();
    for mode in MODES {
        for contacts_in_iterations in [false, true] {
            let p = SolverParams { contacts_in_iterations, ..params(SceneKind::Drape, mode) };
            let run = |colliders: &[Collider]| {
                let mut solver = GpuSolver::new(&device, &queue, &scene.model, p, &scene.colliders).unwrap();
                solver.set_colliders(colliders).unwrap();
                for _ in 0..30 {
                    solver.step();
                }
                let bits = |v: Vec<Vec3>| v.iter().flat_map(|p| p.to_array().map(f32::to_bits)).collect::<Vec<_>>();
                (bits(solver.read_positions().unwrap()), bits(solver.read_velocities().unwrap()))
            };
            assert!(
                run(&scene.colliders) == run(&traced),
                "{mode:?}, contacts in the iterations: {contacts_in_iterations}"
            );
        }
    }
}

/// The GPU's arithmetic is the reference's (transcendental functions included: the bending's
/// `atan2` is computed the same way on both sides), so they agree on an irregular mesh too: a
/// ring with a hole whose vertices have 3 to 7 neighbours, hanging from one vertex and swinging
/// with bending on, in both modes.
#[test]
fn an_irregular_obj_mesh_matches_reference_in_both_modes() {
    let (device, queue) = device();
    let mesh = drape::ClothMesh::from_obj_str(&support::irregular_ring_obj()).unwrap();
    let top = (0..mesh.positions.len()).max_by(|&a, &b| mesh.positions[a].y.total_cmp(&mesh.positions[b].y)).unwrap();
    let model = drape::ClothModel::new(mesh, 0.2, &[top as u32]).unwrap();
    let valences = support::valences(&model);
    assert!(valences.iter().min() == Some(&3) && valences.iter().max() == Some(&7), "valences {valences:?}");
    for mode in MODES {
        let params = SolverParams { mode, bending: Stiffness::Compliance(1e-2), ..SolverParams::default() };
        let mut gpu = GpuSolver::new(&device, &queue, &model, params, &[]).unwrap();
        let mut cpu = CpuSolver::new(&model, params, &[]).unwrap();
        for _ in 0..30 {
            gpu.step();
            cpu.step();
        }
        let d = max_distance(&gpu.read_positions().unwrap(), &cpu.positions);
        assert!(d <= 1e-5, "{mode:?}: max |Δx| = {d} m after 30 frames");
        let moved = max_distance(&cpu.positions, &model.mesh().positions);
        assert!(moved > 0.05, "{mode:?}: the ring should have swung (moved {moved} m)");
    }
}

#[test]
fn normals_match_reference() {
    let (device, queue) = device();
    let scene = Scene::new(SceneKind::Hanging, 12).unwrap();
    let mut gpu = GpuSolver::new(&device, &queue, &scene.model, scene.params, &scene.colliders).unwrap();
    let mut cpu = CpuSolver::new(&scene.model, scene.params, &scene.colliders).unwrap();
    for _ in 0..30 {
        gpu.step();
        cpu.step();
    }
    let normals = gpu.read_normals().unwrap();
    assert!(max_distance(&normals, &cpu.normals) <= 1e-4);
    assert!(normals.iter().all(|n| (n.length() - 1.0).abs() < 1e-4));
}

/// Two runs of the same solver repeat each other bit for bit, in every mode and layout, on a
/// cloth that moved and stayed finite (so the agreement is not that of a stuck or broken run).
#[test]
fn two_gpu_runs_are_bit_identical() {
    let (device, queue) = device();
    let scene = Scene::new(SceneKind::Drape, 16).unwrap();
    for mode in MODES {
        for layout in LAYOUTS {
            let run = || {
                let p = params(SceneKind::Drape, mode);
                let mut solver = solver(&device, &queue, &scene.model, p, &scene.colliders, layout);
                for _ in 0..40 {
                    solver.step();
                }
                (solver.read_positions().unwrap(), solver.read_velocities().unwrap())
            };
            let bits = |v: &[glam::Vec3]| v.iter().flat_map(|p| p.to_array().map(f32::to_bits)).collect::<Vec<u32>>();
            let (positions, velocities) = run();
            let (again_positions, again_velocities) = run();
            assert!(
                bits(&positions) == bits(&again_positions) && bits(&velocities) == bits(&again_velocities),
                "{mode:?} {layout:?}: two identical runs differ"
            );
            assert!(positions.iter().chain(&velocities).all(|v| v.is_finite()), "{mode:?} {layout:?}: non-finite");
            let moved = max_distance(&positions, &scene.model.mesh().positions);
            assert!(moved > 0.1, "{mode:?} {layout:?}: the cloth should have fallen (moved {moved} m)");
        }
    }
}

/// Every layout runs the same Gauss-Seidel order, so they agree bit for bit. The 128² cloth has
/// several stripes per phase, and a substep too long for one single-workgroup dispatch on a CPU
/// adapter (llvmpipe ends a shader's loops after 65535 iterations), which is split into several.
/// Two substeps take the striped and per-colour layouts through the dispatch between substeps.
#[test]
fn single_workgroup_striped_and_per_colour_frames_are_identical() {
    let (device, queue) = device();
    let scene = Scene::new(SceneKind::Hanging, 128).unwrap();
    assert!(scene.model.schedule().phases.iter().all(|p| p.stripes.len() >= 2));
    let run = |dispatch| {
        let p = SolverParams { substeps: 2, iterations: 100, ..scene.params };
        let mut solver = solver(&device, &queue, &scene.model, p, &scene.colliders, dispatch);
        assert_eq!(solver.dispatch_strategy(), dispatch);
        solver.step();
        (solver.read_positions().unwrap(), solver.dispatches_per_frame())
    };
    let (single, single_dispatches) = run(DispatchStrategy::SingleWorkgroup);
    let (per_colour, _) = run(DispatchStrategy::PerColour);
    let (striped, striped_dispatches) = run(DispatchStrategy::Striped);
    if device.adapter_info().device_type == wgpu::DeviceType::Cpu {
        assert!(single_dispatches > 3, "expected the substeps to be split, got {single_dispatches} dispatches");
    }
    assert_eq!(
        striped_dispatches,
        2 + 1 + 2 * (2 * 100 + 2) + 1,
        "the depenetration's two, predict, two phases per iteration, the tethers and one dispatch after each \
         substep, normals"
    );
    assert_eq!(max_distance(&single, &per_colour), 0.0);
    assert_eq!(max_distance(&striped, &per_colour), 0.0);
}

/// Jacobi's layouts (a substep per dispatch in one workgroup, or a dispatch per projection pass
/// and per gather) give every particle the same corrections summed in the same order, so they
/// agree bit for bit too; the striped layout runs Jacobi per colour.
#[test]
fn jacobi_layouts_are_identical() {
    let (device, queue) = device();
    let scene = Scene::new(SceneKind::Drape, 32).unwrap();
    let p = SolverParams { mode: SolverMode::Jacobi { relaxation: 1.5 }, substeps: 2, iterations: 10, ..scene.params };
    let run = |dispatch| {
        let mut solver = solver(&device, &queue, &scene.model, p, &scene.colliders, dispatch);
        for _ in 0..20 {
            solver.step();
        }
        (solver.read_positions().unwrap(), solver.dispatch_strategy())
    };
    let (single, single_layout) = run(DispatchStrategy::SingleWorkgroup);
    let (per_colour, _) = run(DispatchStrategy::PerColour);
    let (striped, striped_layout) = run(DispatchStrategy::Striped);
    assert_eq!((single_layout, striped_layout), (DispatchStrategy::SingleWorkgroup, DispatchStrategy::PerColour));
    assert!(max_distance(&single, &scene.model.mesh().positions) > 0.1, "the cloth should have fallen");
    assert_eq!(max_distance(&single, &per_colour), 0.0);
    assert_eq!(max_distance(&striped, &per_colour), 0.0);
}

/// A reset puts back the rest state and the model's pins without rebuilding: the frames after
/// it are bit-identical to a fresh solver's, even after pins were moved and released.
#[test]
fn a_reset_solver_repeats_a_fresh_one_bit_for_bit() {
    let (device, queue) = device();
    let scene = Scene::new(SceneKind::Hanging, 12).unwrap();
    let new = || GpuSolver::new(&device, &queue, &scene.model, scene.params, &scene.colliders).unwrap();
    let bits = |v: Vec<glam::Vec3>| v.iter().flat_map(|p| p.to_array().map(f32::to_bits)).collect::<Vec<u32>>();
    let mut fresh = new();
    let mut reused = new();
    let pinned = (0..scene.model.particle_count() as u32).find(|&i| reused.pins().is_pinned(i)).unwrap();
    reused.set_pin_target(pinned, glam::Vec3::new(0.3, 0.2, 0.1)).unwrap();
    reused.pin(5, glam::Vec3::ZERO).unwrap();
    for _ in 0..10 {
        reused.step();
    }
    reused.unpin(pinned).unwrap();
    reused.step();
    reused.reset();
    assert_eq!(bits(reused.read_positions().unwrap()), bits(scene.model.mesh().positions.clone()));
    assert!(reused.read_velocities().unwrap().iter().all(|v| *v == glam::Vec3::ZERO));
    assert_eq!(reused.pins(), fresh.pins());
    assert_eq!(bits(reused.read_normals().unwrap()), bits(fresh.read_normals().unwrap()));
    for _ in 0..20 {
        fresh.step();
        reused.step();
    }
    assert_eq!(bits(reused.read_positions().unwrap()), bits(fresh.read_positions().unwrap()));
    assert_eq!(bits(reused.read_velocities().unwrap()), bits(fresh.read_velocities().unwrap()));
}

/// Metrics requested in the background describe the cloth and colliders of the moment of the
/// request, whatever is submitted before they are collected, and equal a blocking read of that
/// state. A second request waits until the first is collected, and a reset drops a pending one.
/// The background readback buffer is made once (two particle buffers and the overflow counts)
/// and counted.
#[test]
fn background_metrics_measure_the_cloth_of_their_request() {
    let (device, scene, mut solver) = drape_after_five_frames();
    let at_request = solver.metrics().unwrap();
    let before_request = solver.allocated_bytes();
    // Positions, velocities, the collider list's and hash table's heads with their overflow
    // counts, and the bodies' count of invocations cut short.
    let readback_bytes = 2 * 16 * scene.model.particle_count() as u64 + 36;
    assert!(solver.request_metrics());
    assert_eq!(solver.allocated_bytes(), before_request + readback_bytes);
    assert!(!solver.request_metrics(), "a second request started before the first was collected");
    solver.set_colliders(&[]).unwrap();
    for _ in 0..5 {
        solver.step();
    }
    assert_eq!(collect_metrics(&mut solver), at_request);
    assert_eq!(solver.poll_metrics().unwrap(), None, "metrics are collected once");
    let now = solver.metrics().unwrap();
    assert_ne!(now.centre_of_mass, at_request.centre_of_mass, "the cloth did not move after the request");
    assert_eq!(now.min_collider_distance, f32::INFINITY);

    assert!(solver.request_metrics(), "the collected request's buffer is reused");
    assert_eq!(solver.allocated_bytes(), before_request + readback_bytes);
    solver.reset();
    assert_eq!(solver.allocated_bytes(), before_request, "a reset drops a pending request and its buffer");
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    assert_eq!(solver.poll_metrics().unwrap(), None, "a reset keeps a measurement of the cloth before it");
    assert!(solver.request_metrics());
    assert_eq!(collect_metrics(&mut solver), solver.metrics().unwrap());
    solver.reset();
    assert_eq!(solver.allocated_bytes(), before_request + readback_bytes, "an idle buffer stays");
}

/// A background read of the positions (the web's readback) returns the positions of the
/// frame it was requested after, bit for bit what the blocking read gives then, whatever frames
/// follow before it is collected; it is collected once, a second request waits for the first,
/// and a reset drops a pending one with its buffer.
#[test]
fn background_positions_are_those_of_their_request() {
    let (_device, scene, mut solver) = drape_after_five_frames();
    let at_request = solver.read_positions().unwrap();
    let before_request = solver.allocated_bytes();
    assert!(solver.request_positions());
    assert!(!solver.request_positions(), "a second request started before the first was collected");
    for _ in 0..5 {
        solver.step();
    }
    let collected = poll_until(|| solver.poll_positions().unwrap());
    let bits = |v: &[Vec3]| v.iter().flat_map(|p| p.to_array().map(f32::to_bits)).collect::<Vec<u32>>();
    assert_eq!(bits(&collected), bits(&at_request));
    assert_eq!(solver.poll_positions().unwrap(), None, "positions are collected once");
    assert_ne!(solver.read_positions().unwrap(), at_request, "the cloth did not move after the request");
    let readback_bytes = 16 * scene.model.particle_count() as u64;
    assert_eq!(solver.allocated_bytes(), before_request + readback_bytes, "one buffer of positions");
    assert!(solver.request_positions(), "the collected request's buffer is reused");
    assert_eq!(solver.allocated_bytes(), before_request + readback_bytes);
    solver.reset();
    assert_eq!(solver.allocated_bytes(), before_request, "a reset drops a pending request and its buffer");
    assert!(solver.request_positions());
    assert_eq!(solver.allocated_bytes(), before_request + readback_bytes);
    assert_eq!(
        poll_until(|| solver.poll_positions().unwrap()),
        scene.model.mesh().positions,
        "at rest after the reset"
    );
}

/// The blocking reads copy a cloth back in rounds of at most 16384 particles through one small
/// buffer: a 130² cloth (17161 particles, two rounds) comes back whole and in order, positions,
/// velocities and the metrics made from both.
#[test]
fn blocking_reads_of_a_cloth_larger_than_one_round_return_every_particle() {
    let (device, queue) = device();
    let scene = Scene::new(SceneKind::Hanging, 130).unwrap();
    let n = scene.model.particle_count();
    assert!(n > 16384);
    let mut solver = GpuSolver::new(&device, &queue, &scene.model, scene.params, &scene.colliders).unwrap();
    let positions: Vec<Vec3> = (0..n).map(|i| Vec3::new(i as f32, 0.5, -(i as f32) * 0.25)).collect();
    let velocities: Vec<Vec3> = (0..n).map(|i| Vec3::new(0.0, 1e-3 * i as f32, 1.0)).collect();
    solver.set_positions(&positions).unwrap();
    solver.set_velocities(&velocities).unwrap();
    assert!(solver.read_positions().unwrap() == positions);
    // Pinned particles keep no velocity of their own.
    let read = solver.read_velocities().unwrap();
    let free = |i: &usize| scene.model.inverse_masses()[*i] > 0.0;
    assert!((0..n).filter(free).all(|i| read[i] == velocities[i]));
    let metrics = solver.metrics().unwrap();
    let masses = scene.model.masses();
    let energy: f64 = (0..n).map(|i| 0.5 * f64::from(masses[i]) * f64::from(read[i].length_squared())).sum();
    assert!(
        (f64::from(metrics.kinetic_energy) - energy).abs() <= 1e-4 * energy,
        "{} against {energy}",
        metrics.kinetic_energy
    );
    assert!(solver.allocated_bytes_by_buffer().contains(&("readback", 2 * 16 * 16384 + 36)));
}

/// The drape scene at 12² on its own solver, 5 frames in: the cloth in motion, for background
/// reads.
fn drape_after_five_frames() -> (wgpu::Device, Scene, GpuSolver) {
    let (device, queue) = device();
    let scene = Scene::new(SceneKind::Drape, 12).unwrap();
    let mut solver = GpuSolver::new(&device, &queue, &scene.model, scene.params, &scene.colliders).unwrap();
    for _ in 0..5 {
        solver.step();
    }
    (device, scene, solver)
}

/// Polls `poll` until it gives a value (lavapipe delivers background reads within milliseconds).
fn poll_until<T>(mut poll: impl FnMut() -> Option<T>) -> T {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        if let Some(value) = poll() {
            return value;
        }
        assert!(std::time::Instant::now() < deadline, "a background read never arrived");
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// Polls for requested metrics until they arrive.
fn collect_metrics(solver: &mut GpuSolver) -> drape::ClothMetrics {
    poll_until(|| solver.poll_metrics().unwrap())
}

/// A frame dispatches the depenetration's two (the scene has a ground), predict once, each
/// iteration's projections, the tethers once per substep (the scene has pins), one dispatch
/// between substeps (finalize and the next predict together), finalize and normals; a single
/// workgroup runs each substep's iterations in one dispatch (a 16² cloth stays within
/// llvmpipe's loop limit). Without tethers, or without a depenetration bound, their dispatches
/// go.
#[test]
fn dispatches_per_frame_follow_the_plan() {
    let (device, queue) = device();
    let scene = Scene::new(SceneKind::Hanging, 16).unwrap();
    let count = |mode, dispatch, substeps, iterations| {
        let p = SolverParams { mode, substeps, iterations, ..scene.params };
        solver(&device, &queue, &scene.model, p, &scene.colliders, dispatch).dispatches_per_frame()
    };
    let colours = scene.model.schedule().colours.len();
    for (substeps, iterations) in [(10, 10), (20, 1)] {
        let frame = |per_iteration: usize| 2 + 1 + substeps as usize * (per_iteration * iterations as usize + 2) + 1;
        assert_eq!(count(SolverMode::GaussSeidel, DispatchStrategy::Striped, substeps, iterations), frame(2));
        assert_eq!(count(SolverMode::GaussSeidel, DispatchStrategy::PerColour, substeps, iterations), frame(colours));
        let jacobi = SolverMode::Jacobi { relaxation: 1.5 };
        assert_eq!(count(jacobi, DispatchStrategy::PerColour, substeps, iterations), frame(2));
        for mode in [SolverMode::GaussSeidel, jacobi] {
            // The depenetration, predict, a projection dispatch, the tethers and a finalize per
            // substep, normals.
            assert_eq!(count(mode, DispatchStrategy::SingleWorkgroup, substeps, iterations), 3 * substeps as usize + 4);
        }
        let untethered = SolverParams {
            substeps,
            iterations,
            tethers: TetherParams { enabled: false, ..scene.params.tethers },
            ..scene.params
        };
        let untethered = solver(&device, &queue, &scene.model, untethered, &scene.colliders, DispatchStrategy::Striped);
        assert_eq!(untethered.dispatches_per_frame(), frame(2) - substeps as usize);
        let unbounded = SolverParams { max_depenetration_speed: f32::INFINITY, substeps, iterations, ..scene.params };
        let unbounded = solver(&device, &queue, &scene.model, unbounded, &scene.colliders, DispatchStrategy::Striped);
        assert_eq!(unbounded.dispatches_per_frame(), frame(2) - 2);
        // Rigid damping: three dispatches at the start of the frame.
        let calm = SolverParams { rigid_damping: 1.0, substeps, iterations, ..scene.params };
        let calm = solver(&device, &queue, &scene.model, calm, &scene.colliders, DispatchStrategy::Striped);
        assert_eq!(calm.dispatches_per_frame(), frame(2) + 3);
        // The air: its own dispatch, and predict apart from finalize, in every substep.
        let windy = SolverParams { aerodynamics: Some(Default::default()), substeps, iterations, ..scene.params };
        let windy = solver(&device, &queue, &scene.model, windy, &scene.colliders, DispatchStrategy::Striped);
        assert_eq!(windy.dispatches_per_frame(), frame(2) + 2 * substeps as usize - 1);
        // Area limits: a dispatch per colour of triangles in every substep.
        let limits = Some(drape::StrainLimits { min: 0.5, max: 1.1 });
        let limited = SolverParams { area_limits: limits, substeps, iterations, ..scene.params };
        let triangle_colours = drape::passes::area_limits::TriangleAreas::new(&scene.model).colours().len();
        let limited = solver(&device, &queue, &scene.model, limited, &scene.colliders, DispatchStrategy::Striped);
        assert_eq!(limited.dispatches_per_frame(), frame(2) + triangle_colours * substeps as usize);
    }
}

/// Profiling times every dispatch of the frame under the pass that added it, in frame order,
/// and changes nothing the frames compute: a profiled run repeats an unprofiled one bit for bit,
/// also across a change of parameters that changes the plan. A device without timestamps
/// refuses it with a typed error (GL may lack them).
#[test]
fn profiled_frames_time_every_pass_and_compute_the_same() {
    let (device, queue, _) = drape::headless_device(drape::HeadlessOptions { timestamps: true }).unwrap();
    let scene = Scene::new(SceneKind::Hanging, 12).unwrap();
    let first = SolverParams { substeps: 4, iterations: 2, ..scene.params };
    let second = SolverParams { substeps: 6, iterations: 1, ..first };
    let run = |profiled: bool, by: ProfileBy| {
        let mut solver = GpuSolver::new(&device, &queue, &scene.model, first, &scene.colliders).unwrap();
        solver.set_profiling(profiled).unwrap();
        solver.set_profile_by(by).unwrap();
        let mut profiles = Vec::new();
        for frame in 0..12 {
            if frame == 6 {
                solver.set_params(second).unwrap();
            }
            solver.step();
            if profiled {
                profiles.push(poll_until(|| solver.poll_profile().unwrap()));
            }
        }
        let dispatches = solver.dispatches_per_frame();
        (solver.read_positions().unwrap(), solver.read_velocities().unwrap(), profiles, dispatches)
    };
    if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
        let mut solver = GpuSolver::new(&device, &queue, &scene.model, first, &scene.colliders).unwrap();
        assert!(matches!(solver.set_profiling(true), Err(drape::Error::Param(e)) if e.name == "profiling"));
        assert!(!solver.profiling());
        return;
    }
    let bits = |v: &[Vec3]| v.iter().flat_map(|p| p.to_array().map(f32::to_bits)).collect::<Vec<u32>>();
    let (positions, velocities, _, _) = run(false, ProfileBy::Pass);
    let (profiled_positions, profiled_velocities, profiles, dispatches) = run(true, ProfileBy::Pass);
    assert!(bits(&positions) == bits(&profiled_positions) && bits(&velocities) == bits(&profiled_velocities));
    // By kernel: the same frames, every dispatch timed, named by kernel (the normals' among
    // them) rather than by pass.
    let (kernel_positions, kernel_velocities, kernel_profiles, _) = run(true, ProfileBy::Kernel);
    assert!(bits(&positions) == bits(&kernel_positions) && bits(&velocities) == bits(&kernel_velocities));
    let by_kernel = kernel_profiles.last().unwrap();
    assert_eq!(by_kernel.passes.iter().map(|p| p.dispatches).sum::<usize>(), dispatches);
    let kernels: Vec<&str> = by_kernel.passes.iter().map(|p| p.pass).collect();
    assert!(kernels.contains(&"compute_normals") && !kernels.contains(&"iterations"), "{kernels:?}");
    let last = profiles.last().unwrap();
    assert_eq!(last.passes.iter().map(|p| p.dispatches).sum::<usize>(), dispatches);
    let names: Vec<&str> = last.passes.iter().map(|p| p.pass).collect();
    assert_eq!(
        names,
        ["depenetration", "predict", "iterations", "tethers", "finalize_and_predict", "finalize", "normals"]
    );
    // 6 substeps: the tethers once each, finalize fused with the next predict between them.
    let count = |name: &str| last.passes.iter().find(|p| p.pass == name).unwrap().dispatches;
    assert_eq!((count("tethers"), count("finalize_and_predict")), (6, 5));
    for profile in &profiles {
        assert!(profile.passes.iter().all(|p| p.ms.is_finite() && p.ms >= 0.0), "{profile:?}");
        assert!(profile.total_ms() > 0.0, "{profile:?}");
    }
}

/// The striped kernel keeps a stripe's positions and displacements in workgroup memory where
/// both fit (32 KiB here), its displacements alone where only they do (16 KiB, WebGPU's
/// default), and otherwise works in place (8 KiB). All three follow the same order, so they give
/// the same frames, bit for bit.
#[test]
fn striped_kernel_in_place_and_in_workgroup_memory_agree_bit_for_bit() {
    let scene = Scene::new(SceneKind::Hanging, 56).unwrap();
    let widest = scene.model.schedule().widest_stripe();
    assert!(widest > 512 && widest <= drape::model::STRIPE_PARTICLES, "widest stripe {widest}");
    let run = |workgroup_storage: u32| {
        let (device, queue) =
            support::device_with(|limits| limits.max_compute_workgroup_storage_size = workgroup_storage);
        let p = SolverParams { substeps: 2, iterations: 10, ..scene.params };
        let mut solver = solver(&device, &queue, &scene.model, p, &scene.colliders, DispatchStrategy::Striped);
        assert_eq!(solver.stripes_in_workgroup(), workgroup_storage >= 16 * widest as u32);
        for _ in 0..5 {
            solver.step();
        }
        solver.read_positions().unwrap()
    };
    let both = run(32768);
    assert_eq!(max_distance(&both, &run(16384)), 0.0);
    assert_eq!(max_distance(&both, &run(8192)), 0.0);
}

/// The striped kernel in workgroup memory finds its particles by their slots in the stripe's
/// particle list, so the schedule leaves the unit table out (48 bytes per particle of a grid)
/// until a layout that reads it is chosen; then the table is uploaded and the frames go on as the
/// reference's. A cloth above a thousand particles: `Auto` stripes it on every adapter.
#[test]
fn the_unit_table_is_uploaded_when_a_layout_first_reads_it() {
    let (device, queue) = device();
    let scene = Scene::new(SceneKind::Hanging, 40).unwrap();
    let p = params(SceneKind::Hanging, SolverMode::GaussSeidel);
    let mut gpu = GpuSolver::new(&device, &queue, &scene.model, p, &scene.colliders).unwrap();
    assert_eq!(gpu.dispatch_strategy(), DispatchStrategy::Striped);
    assert!(gpu.stripes_in_workgroup());
    let mut cpu = CpuSolver::new(&scene.model, p, &scene.colliders).unwrap();
    let schedule_bytes =
        |gpu: &GpuSolver| gpu.allocated_bytes_by_buffer().into_iter().find(|b| b.0 == "schedule").unwrap().1;
    let striped = schedule_bytes(&gpu);
    for layout in [DispatchStrategy::PerColour, DispatchStrategy::Striped] {
        for _ in 0..5 {
            gpu.step();
            cpu.step();
        }
        let d = max_distance(&gpu.read_positions().unwrap(), &cpu.positions);
        assert!(d <= 1e-4, "before {layout:?}: max |Δx| = {d} m");
        gpu.set_dispatch(layout).unwrap();
    }
    // Two to four particles a unit.
    let units = scene.model.unit_count() as u64;
    let table = schedule_bytes(&gpu) - striped;
    assert!((8 * units..=16 * units).contains(&table), "{table} bytes for {units} units");
    for _ in 0..5 {
        gpu.step();
        cpu.step();
    }
    let d = max_distance(&gpu.read_positions().unwrap(), &cpu.positions);
    assert!(d <= 1e-4, "striped again: max |Δx| = {d} m");
}

/// Mass-spring: the springs' kernel, its share of predict and the split substeps follow the CPU
/// reference with pins, air and a collider; every layout plans the same frame (three dispatches
/// a substep, four with air), and reruns are bit-identical. Switching to it and back leaves
/// nothing behind: the projecting frames after match the reference that switched too.
#[test]
fn mass_spring_matches_reference_in_every_layout_and_switch() {
    let (device, queue) = device();
    let scene = Scene::new(SceneKind::Hanging, 12).unwrap();
    let springs = MassSpringParams { structural: 30.0, shear: 5.0, flexion: 0.5, damping: 1e-4 };
    let network = SpringNetwork::new(&scene.model);
    let substeps = network.min_stable_substeps(&springs, 1.0 / 60.0, 128).unwrap();
    let air = drape::Aerodynamics { wind: glam::Vec3::new(0.0, 0.0, 3.0), ..Default::default() };
    let p = SolverParams { mode: SolverMode::MassSpring(springs), substeps, aerodynamics: Some(air), ..scene.params };
    let mut cpu = CpuSolver::new(&scene.model, p, &scene.colliders).unwrap();
    for _ in 0..30 {
        cpu.step();
    }
    let bits = |v: &[glam::Vec3]| v.iter().flat_map(|p| p.to_array().map(f32::to_bits)).collect::<Vec<u32>>();
    let mut runs = Vec::new();
    let layouts = [DispatchStrategy::Auto, DispatchStrategy::SingleWorkgroup, DispatchStrategy::Striped];
    for layout in layouts.into_iter().chain([DispatchStrategy::Auto]) {
        let mut gpu = solver(&device, &queue, &scene.model, p, &scene.colliders, layout);
        assert_eq!(gpu.dispatches_per_frame(), 4 * substeps as usize + 3);
        for _ in 0..30 {
            gpu.step();
        }
        runs.push(gpu.read_positions().unwrap());
    }
    let d = max_distance(&runs[0], &cpu.positions);
    assert!(max_distance(&cpu.positions, &scene.model.mesh().positions) > 0.05, "the cloth should have moved");
    assert!(d <= 1e-5, "max |Δx| = {d} m after 30 frames");
    assert_eq!(bits(&runs[0]), bits(&runs[1]), "single workgroup");
    assert_eq!(bits(&runs[0]), bits(&runs[2]), "striped");
    assert_eq!(bits(&runs[0]), bits(&runs[3]), "reruns");

    let still = SolverParams { mode: SolverMode::MassSpring(springs), substeps, ..scene.params };
    let projecting = SolverParams { substeps, ..scene.params };
    let mut gpu = GpuSolver::new(&device, &queue, &scene.model, projecting, &scene.colliders).unwrap();
    let mut cpu = CpuSolver::new(&scene.model, projecting, &scene.colliders).unwrap();
    for params in [projecting, still, projecting] {
        gpu.set_params(params).unwrap();
        cpu.set_params(params).unwrap();
        if params == still {
            // The depenetration's two, the springs, predict and finalize in every substep, and
            // the normals.
            assert_eq!(gpu.dispatches_per_frame(), 3 * substeps as usize + 3);
        }
        for _ in 0..10 {
            gpu.step();
            cpu.step();
        }
    }
    let d = max_distance(&gpu.read_positions().unwrap(), &cpu.positions);
    assert!(d <= 1e-4, "after switching: max |Δx| = {d} m");
    // Springs too stiff for the substep: refused, the solver keeps its parameters and plan.
    let stiff = SolverParams { mode: SolverMode::MassSpring(MassSpringParams { structural: 1e5, ..springs }), ..still };
    let dispatches = gpu.dispatches_per_frame();
    assert!(matches!(gpu.set_params(stiff), Err(drape::Error::Param(e)) if e.name == "mode (mass-spring stability)"));
    assert_eq!((*gpu.params(), gpu.dispatches_per_frame()), (projecting, dispatches));
}

/// The directional limit on a stretchy flag (no tethers, so the limit does the holding): GPU
/// and CPU walk the forest alike in every mode and layout.
#[test]
fn directional_limit_matches_reference_in_every_mode_and_layout() {
    for mode in MODES {
        for layout in LAYOUTS {
            let p = SolverParams {
                stretch: Stiffness::Compliance(0.5),
                tethers: drape::TetherParams { enabled: false, ..Default::default() },
                directional: Some(drape::DirectionalLimit { slack: 0.01 }),
                ..params(SceneKind::Flag, mode)
            };
            let d = gpu_cpu_distance(SceneKind::Flag, 16, p, layout, 40);
            assert!(d <= 1e-4, "{mode:?} {layout:?}: max |Δx| = {d} m after 40 frames");
        }
    }
}
