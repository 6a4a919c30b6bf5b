//! Physical invariants of the GPU solver on small cloths.

mod support;

use drape::{ClothMetrics, Collider, Error, GpuSolver, Scene, SceneKind, SolverMode, SolverParams, TetherParams};
use glam::Vec3;
use support::device;

const MODES: [SolverMode; 2] = [SolverMode::GaussSeidel, SolverMode::Jacobi { relaxation: 1.5 }];

fn solver(scene: &Scene, params: SolverParams) -> GpuSolver {
    let (device, queue) = device();
    GpuSolver::new(&device, &queue, &scene.model, params, &scene.colliders).unwrap()
}

fn metrics(solver: &mut GpuSolver) -> ClothMetrics {
    solver.metrics().unwrap()
}

/// With internal constraints only and no damping, momentum is conserved, so the centre of mass
/// falls ballistically: `x0 + v0·t + ½·g·t²`. PBD velocities are mid-step (staggered) values,
/// so the cloth starts with `v0 − ½·g·h`: symplectic Euler then lands on the parabola exactly and
/// what remains is f32 rounding.
#[test]
fn free_fall_centre_of_mass_is_ballistic() {
    let scene = Scene::new(SceneKind::FreeFall, 12).unwrap();
    for mode in MODES {
        let params = SolverParams { mode, ..scene.params };
        assert_eq!(params.damping, 0.0);
        let mut solver = solver(&scene, params);
        let v0 = Vec3::new(3.0, 0.0, 1.0);
        let staggered = v0 - 0.5 * params.gravity * params.substep_dt();
        solver.set_velocities(&vec![staggered; scene.model.particle_count()]).unwrap();
        let start = metrics(&mut solver).centre_of_mass;
        let frames = 120;
        for _ in 0..frames {
            solver.step();
        }
        let t = frames as f32 * params.time_step;
        let expected = start + v0 * t + 0.5 * params.gravity * t * t;
        let end = metrics(&mut solver);
        let error = (end.centre_of_mass - expected).length() / (expected - start).length();
        assert!(error <= 1e-4, "{mode:?}: relative error {error}");
        assert!(end.max_stretch < 1.001, "{mode:?}: the cloth deformed in free fall ({})", end.max_stretch);
    }
}

/// Dropped from rest, the centre of mass follows symplectic Euler's closed form
/// `x0 + ½·g·t·(t + h)`, which is the parabola `x0 + ½·g·t²` up to the first-order term
/// `½·g·h·t` (relative size h/t).
#[test]
fn free_fall_from_rest_follows_the_substep_scheme() {
    let scene = Scene::new(SceneKind::FreeFall, 12).unwrap();
    for mode in MODES {
        let params = SolverParams { mode, ..scene.params };
        let mut solver = solver(&scene, params);
        let start = metrics(&mut solver).centre_of_mass;
        let frames = 120;
        for _ in 0..frames {
            solver.step();
        }
        let (t, h) = (frames as f32 * params.time_step, params.substep_dt());
        let scheme = start + 0.5 * params.gravity * t * (t + h);
        let parabola = start + 0.5 * params.gravity * t * t;
        let centre = metrics(&mut solver).centre_of_mass;
        let error = (centre - scheme).length() / (scheme - start).length();
        assert!(error <= 1e-4, "{mode:?}: relative error {error} against the scheme");
        // The scheme's first-order lag is resolved: the parabola is off by h/t, not by more or less.
        let error = (centre - parabola).length() / (parabola - start).length();
        assert!(
            (error - h / t).abs() <= 2e-4,
            "{mode:?}: relative error {error} against the parabola, h/t = {}",
            h / t
        );
    }
}

#[test]
fn pinned_particles_never_move_and_the_hanging_cloth_comes_to_rest() {
    let scene = Scene::new(SceneKind::Hanging, 16).unwrap();
    let pins: Vec<usize> =
        (0..scene.model.particle_count()).filter(|&i| scene.model.inverse_masses()[i] == 0.0).collect();
    assert_eq!(pins.len(), 2);
    for mode in MODES {
        let params = SolverParams { damping: 1.0, iterations: 10, mode, ..scene.params };
        let mut solver = solver(&scene, params);
        let mut energies = Vec::new();
        for frame in 0..240 {
            solver.step();
            if frame % 20 == 19 {
                let x = solver.read_positions().unwrap();
                for &i in &pins {
                    assert_eq!(x[i], scene.model.mesh().positions[i], "{mode:?}: pin {i} moved at frame {frame}");
                }
                energies.push(metrics(&mut solver).kinetic_energy);
            }
        }
        let end = metrics(&mut solver);
        assert!(end.kinetic_energy < 1e-4, "{mode:?}: still moving, energies {energies:?}");
        // Jacobi converges more slowly than Gauss-Seidel, so the same iterations leave more stretch
        // (measured at 16²: 1.0891 Jacobi, 1.0078 Gauss-Seidel).
        let bound = if mode == SolverMode::GaussSeidel { 1.02 } else { 1.10 };
        assert!(end.max_stretch < bound, "{mode:?}: max stretch {}", end.max_stretch);
        assert_eq!(end.non_finite, 0);
    }
}

/// Total mechanical energy (kinetic + gravitational) of a swinging cloth never exceeds its
/// initial value: projections and contacts only remove energy. (It need not fall every frame:
/// Jacobi's unconverged constraints store some energy elastically and give it back.)
#[test]
fn energy_does_not_grow() {
    let scene = Scene::new(SceneKind::Hanging, 12).unwrap();
    for mode in MODES {
        let params = SolverParams { damping: 0.0, mode, ..scene.params };
        let mut solver = solver(&scene, params);
        solver.set_velocities(&vec![Vec3::new(0.0, 0.5, 1.0); scene.model.particle_count()]).unwrap();
        let total_mass: f32 = scene.model.masses().iter().sum();
        let energy = |m: &ClothMetrics| m.kinetic_energy - total_mass * params.gravity.dot(m.centre_of_mass);
        let initial = energy(&metrics(&mut solver));
        for frame in 0..90 {
            solver.step();
            let now = energy(&metrics(&mut solver));
            assert!(now <= initial + 1e-6, "{mode:?}: energy grew from {initial} to {now} by frame {frame}");
        }
    }
}

/// Contacts only take energy out: a cloth dropped onto the sphere and the ground, bouncing
/// (restitution 0.5), sliding and sticking, never has more mechanical energy than it started
/// with, in either mode.
#[test]
fn energy_does_not_grow_through_contacts() {
    let scene = Scene::new(SceneKind::Drape, 12).unwrap();
    for mode in MODES {
        let params = SolverParams { damping: 0.0, restitution: 0.5, mode, ..scene.params };
        let mut solver = solver(&scene, params);
        let total_mass: f32 = scene.model.masses().iter().sum();
        let energy = |m: &ClothMetrics| m.kinetic_energy - total_mass * params.gravity.dot(m.centre_of_mass);
        let initial = energy(&metrics(&mut solver));
        let mut touched = false;
        for frame in 0..120 {
            solver.step();
            let m = metrics(&mut solver);
            touched |= m.min_collider_distance < 2.0 * params.collision_margin;
            let now = energy(&m);
            assert!(now <= initial + 1e-6, "{mode:?}: energy grew from {initial} to {now} by frame {frame}");
        }
        assert!(touched, "{mode:?}: the cloth should have reached the colliders");
    }
}

/// Every particle ends every substep at least the collision margin (less 1e-5 m for rounding)
/// from every collider, also where the cloth reaches the ground beside the sphere. Each frame
/// here is one substep of the drape scene's length, so every substep is measured.
#[test]
fn draped_cloth_keeps_the_margin_from_every_collider_every_substep() {
    let scene = Scene::new(SceneKind::Drape, 24).unwrap();
    let margin = scene.params.collision_margin;
    for mode in MODES {
        let params = SolverParams { mode, time_step: scene.params.substep_dt(), substeps: 1, ..scene.params };
        let mut solver = solver(&scene, params);
        for substep in 0..1200 {
            solver.step();
            let m = metrics(&mut solver);
            assert!(
                m.min_collider_distance >= margin - 1e-5,
                "{mode:?}: a particle {} m from a collider after substep {substep}",
                m.min_collider_distance
            );
            assert_eq!(m.non_finite, 0);
        }
        // The cloth has settled onto the sphere: its centre lies on top of it.
        let x = solver.read_positions().unwrap();
        let centre = x[x.len() / 2];
        assert!((centre.y - 1.0).abs() < 0.02, "{mode:?}: centre at {centre}");
    }
}

#[test]
fn kinematic_pins_follow_their_targets_and_colliders_can_move() {
    let scene = Scene::new(SceneKind::Hanging, 8).unwrap();
    let mut solver = solver(&scene, scene.params);
    let target = scene.model.mesh().positions[0] + Vec3::new(-0.2, 0.1, 0.3);
    solver.set_pin_target(0, target).unwrap();
    solver.step();
    assert_eq!(solver.read_positions().unwrap()[0], target);
    // Release a corner and raise the ground above the cloth: everything ends above it.
    solver.unpin(8).unwrap();
    solver.set_colliders(&[Collider::ground(1.2)]).unwrap();
    for _ in 0..5 {
        solver.step();
    }
    let x = solver.read_positions().unwrap();
    assert!(x.iter().enumerate().all(|(i, p)| i == 0 || p.y >= 1.2), "particles below the raised ground");
    assert!(matches!(solver.set_pin_target(3, Vec3::ZERO), Err(Error::Pin(_))));
    assert!(matches!(solver.pin(999, Vec3::ZERO), Err(Error::ParticleOutOfRange { index: 999, .. })));
    let before = *solver.params();
    assert!(matches!(solver.set_params(SolverParams { iterations: 0, ..scene.params }), Err(Error::Param(_))));
    assert_eq!(*solver.params(), before, "a rejected set_params must leave the parameters alone");
    assert!(matches!(solver.set_velocities(&[Vec3::ZERO]), Err(Error::Param(_))));
}

/// Large cloths build, fit the device and run: a 257² grid (odd, so stripes and colours do not
/// divide evenly) and a 512² grid, a few frames each: finite, the mean edge at its rest length, and
/// the worst edge (next to a pinned corner, which four projections per frame cannot relieve on a
/// cloth this wide) bounded. In Gauss-Seidel mode the GPU keeps at most 260 bytes per particle
/// for the cloth (251 at 512²: each stretch and bending record holds its stiffness scale; the
/// air's and the rigid damping's buffers stay one entry until used), and the tethers (here two per particle, to the two pinned corners) exactly
/// their words: a list entry and an offset per tethered particle, two words per tether.
#[test]
fn large_grids_run() {
    for cells in [257, 512] {
        let scene = Scene::new(SceneKind::Benchmark, cells).unwrap();
        let params = SolverParams { substeps: 2, iterations: 2, ..scene.params };
        let untethered = SolverParams { tethers: TetherParams { enabled: false, ..params.tethers }, ..params };
        let n = scene.model.particle_count();
        let core = solver(&scene, untethered).allocated_bytes();
        let per_particle = core as f64 / n as f64;
        assert!(per_particle <= 260.0, "{cells}²: {per_particle:.1} bytes per particle");
        let mut solver = solver(&scene, params);
        let tethered = n as u64 - 2;
        assert_eq!(solver.allocated_bytes() - core, 4 * (2 * tethered + 1 + 2 * 2 * tethered) - 4);
        for _ in 0..3 {
            solver.step();
        }
        let m = metrics(&mut solver);
        assert_eq!(m.non_finite, 0, "{cells}²");
        assert!(
            m.mean_stretch < 1.001 && m.max_stretch < 2.0,
            "{cells}²: stretch {} (max {})",
            m.mean_stretch,
            m.max_stretch
        );
        assert!(m.centre_of_mass.y < scene.model.mesh().positions[0].y, "{cells}²: the cloth should fall");
    }
}

/// A caller's device with lower limits than `drape::required_limits` (here WebGPU's downlevel
/// defaults: 4 storage buffers per stage) gets a typed error naming the limit, not a wgpu panic.
#[test]
fn a_device_below_the_required_limits_is_a_typed_error() {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter =
        pollster::block_on(wgpu::util::initialize_adapter_from_env_or_default(&instance, None)).expect("an adapter");
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: wgpu::Limits::downlevel_defaults(),
        ..Default::default()
    }))
    .expect("a downlevel device");
    let scene = Scene::new(SceneKind::Hanging, 4).unwrap();
    match GpuSolver::new(&device, &queue, &scene.model, scene.params, &scene.colliders) {
        Err(Error::Device(message)) => {
            assert!(message.contains("max_storage_buffers_per_shader_stage is 4"), "unclear error: {message}")
        }
        Err(other) => panic!("expected a device error, got {other}"),
        Ok(_) => panic!("a solver was built on a device without the limits it needs"),
    }
}

/// Any number of colliders up to what one storage binding holds: a list beyond it (900 000
/// colliders of 160 bytes, over WebGPU's 128 MiB) is a typed error naming the colliders, from
/// `new` and from `set_colliders`, which then keeps the colliders it had.
#[test]
fn a_collider_list_beyond_a_storage_binding_is_a_typed_error() {
    let (device, queue) = support::device_with(|limits| limits.max_storage_buffer_binding_size = 128 << 20);
    let scene = Scene::new(SceneKind::Hanging, 4).unwrap();
    let too_many = vec![Collider::sphere(Vec3::new(0.0, -5.0, 0.0), 0.1); 900_000];
    let refused = |result: Result<(), Error>| match result {
        Err(Error::Device(message)) => assert!(message.contains("colliders"), "unclear error: {message}"),
        other => panic!("expected a device error, got {other:?}"),
    };
    refused(GpuSolver::new(&device, &queue, &scene.model, scene.params, &too_many).map(|_| ()));
    let mut solver = GpuSolver::new(&device, &queue, &scene.model, scene.params, &scene.colliders).unwrap();
    refused(solver.set_colliders(&too_many));
    assert_eq!(solver.colliders(), scene.colliders);
}

/// The tethers' buffer grows with the pins (up to four tethers per free particle): a device whose
/// storage bindings hold the particles but not every particle tethered four times refuses the
/// solver when it is made, naming the tethers, so that no later pin can fail on their size.
#[test]
fn a_cloth_whose_tethers_could_outgrow_a_storage_binding_is_refused_when_made() {
    let scene = Scene::new(SceneKind::Hanging, 64).unwrap();
    let n = scene.model.particle_count() as u64;
    // The particles take 16 bytes each; all of them tethered four times, 40.
    let (device, queue) = support::device_with(|limits| limits.max_storage_buffer_binding_size = 32 * n);
    match GpuSolver::new(&device, &queue, &scene.model, scene.params, &scene.colliders) {
        Err(Error::Device(message)) => assert!(message.starts_with("tethers"), "unclear error: {message}"),
        Err(other) => panic!("expected a device error, got {other}"),
        Ok(_) => panic!("a solver was built whose tethers may not fit"),
    }
}
