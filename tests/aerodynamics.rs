//! The air: closed forms of drag, lift and gusts (no GPU), the flat-plate terminal speed and a
//! flag's equilibrium on the GPU in both modes, and the GPU against the CPU reference with gusts.

mod support;

use drape::passes::air::{air_acceleration, triangle_force, value_noise, wind_at, AirState};
use drape::{Aerodynamics, CpuSolver, GpuSolver, Gusts, Scene, SceneKind, SolverMode, SolverParams};
use glam::Vec3;
use support::{device, largest, max_distance, smallest, Rng};

const MODES: [SolverMode; 2] = [SolverMode::GaussSeidel, SolverMode::Jacobi { relaxation: 1.5 }];

fn air() -> Aerodynamics {
    Aerodynamics { air_density: 1.2, drag_coefficient: 1.1, lift_coefficient: 0.4, ..Aerodynamics::default() }
}

/// A right triangle of area ½ m² in the plane through the origin with unit normal `n`.
fn triangle(n: Vec3) -> [Vec3; 3] {
    let a = n.any_orthonormal_vector();
    let b = n.cross(a);
    [Vec3::ZERO, a, b]
}

fn close(a: Vec3, b: Vec3, tolerance: f32) -> bool {
    a.distance(b) <= tolerance * b.length().max(1.0)
}

/// Face-on, the force is the flat plate's `½ρ C_D A |u|²` against the flow with no lift;
/// edge-on there is none; at an angle θ between the normal and the flow, drag is
/// `½ρ C_D A |u|² cos θ` along the flow and lift `½ρ C_L A |u|² cos θ sin θ` across it. Whichever
/// way the triangle is wound, and whether the air or the triangle moves.
#[test]
fn drag_and_lift_follow_the_flat_plate_closed_forms() {
    let air = air();
    let q = |speed: f32| 0.5 * air.air_density * 0.5 * speed * speed;
    let still = [Vec3::ZERO; 3];
    for n in [Vec3::Y, -Vec3::Y, Vec3::new(1.0, 2.0, -0.5).normalize()] {
        let p = triangle(n);
        let force = triangle_force(&air, p, still, 3.0 * n);
        assert!(close(force, q(3.0) * air.drag_coefficient * n, 1e-5), "face-on: {force}");
        let moving = triangle_force(&air, p, [-3.0 * n; 3], Vec3::ZERO);
        assert!(close(moving, force, 1e-5), "the same relative wind gives the same force");
        let mirrored = triangle_force(&air, [p[0], p[2], p[1]], still, 3.0 * n);
        assert!(close(mirrored, force, 1e-5), "winding does not matter");
        let edge_on = triangle_force(&air, p, still, 3.0 * n.any_orthonormal_vector());
        assert!(edge_on.length() < 1e-6, "edge-on: {edge_on}");
        assert_eq!(triangle_force(&air, p, [Vec3::splat(2.0); 3], Vec3::splat(2.0)), Vec3::ZERO);
    }
    let theta = 0.6f32;
    let flow = Vec3::new(theta.sin(), theta.cos(), 0.0) * 5.0;
    let force = triangle_force(&air, triangle(Vec3::Y), [Vec3::ZERO; 3], flow);
    let along = force.dot(flow.normalize());
    let across = (force - along * flow.normalize()).length();
    assert!((along - q(5.0) * air.drag_coefficient * theta.cos()).abs() < 1e-4, "drag {along}");
    assert!((across - q(5.0) * air.lift_coefficient * theta.cos() * theta.sin()).abs() < 1e-4, "lift {across}");
    let degenerate = [Vec3::ZERO, Vec3::X, 2.0 * Vec3::X];
    assert_eq!(triangle_force(&air, degenerate, [Vec3::ZERO; 3], flow), Vec3::ZERO);
}

/// Gusts: smooth noise in [−1, 1] (the same value for the same phase, continuous), the wind
/// within `1 ± strength` of its mean along its own direction, a pattern carried downwind at the
/// wind's speed, and a steady wind without them.
#[test]
fn gusts_are_smooth_bounded_and_carried_by_the_wind() {
    let mut rng = Rng(7);
    for _ in 0..2000 {
        let s = (rng.next() - 0.5) * 2000.0;
        let n = value_noise(s);
        assert!((-1.0..=1.0).contains(&n), "noise {n} at {s}");
        assert_eq!(n, value_noise(s));
        assert!((value_noise(s + 1e-3) - n).abs() < 4e-3, "noise jumps at {s}");
    }
    assert_eq!(value_noise(f32::INFINITY), value_noise(1e9), "out-of-range phases are clamped");
    let wind = Vec3::new(3.0, 0.0, 4.0);
    let gusty = Aerodynamics { wind, gusts: Gusts { strength: 0.4, frequency: 0.7 }, ..air() };
    let mut seen = (f32::MAX, f32::MIN);
    for k in 0..400 {
        let (x, t) = (rng.vec() * 10.0, k as f32 * 0.05);
        let w = wind_at(&gusty, x, t);
        assert!(w.cross(wind).length() < 1e-4, "a gust keeps the direction");
        let ratio = w.length() / wind.length();
        assert!((0.6 - 1e-6..=1.4 + 1e-6).contains(&ratio), "gust ratio {ratio}");
        seen = (seen.0.min(ratio), seen.1.max(ratio));
        let downwind = x + wind * 0.5;
        assert!(close(wind_at(&gusty, downwind, t + 0.5), w, 1e-4), "the gust travels with the wind");
    }
    assert!(seen.1 - seen.0 > 0.3, "gusts vary the wind: {seen:?}");
    assert_eq!(wind_at(&Aerodynamics { wind, ..air() }, Vec3::ONE, 3.0), wind);
}

/// A vertex gets a third of each of its triangles' forces over its mass; a pinned one none; and
/// no substep changes a velocity by more than the relative speed of the air.
#[test]
fn vertices_gather_a_third_of_their_triangles_and_never_overshoot_the_air() {
    let scene = Scene::new(SceneKind::FreeFall, 2).unwrap();
    let model = &scene.model;
    let (triangles, lists) = (&model.mesh().triangles, model.vertex_triangles());
    let positions = &model.mesh().positions;
    let velocities = vec![Vec3::new(0.0, -2.0, 0.0); positions.len()];
    let mut inverse_masses = model.inverse_masses().to_vec();
    inverse_masses[0] = 0.0;
    let state = AirState { positions, velocities: &velocities, inverse_masses: &inverse_masses, time: 0.0, h: 1e-3 };
    let air = air();
    for (i, &w) in inverse_masses.iter().enumerate() {
        let expected = lists.row(i).iter().fold(Vec3::ZERO, |sum, &t| {
            let p = triangles[t as usize].map(|c| positions[c as usize]);
            sum + triangle_force(&air, p, [velocities[0]; 3], Vec3::ZERO) / 3.0
        }) * w;
        assert!(close(air_acceleration(&air, triangles, lists, &state, i), expected, 1e-5), "vertex {i}");
    }
    assert_eq!(air_acceleration(&air, triangles, lists, &state, 0), Vec3::ZERO);
    let long_step = AirState { h: 10.0, ..state };
    let dense = Aerodynamics { air_density: 1e3, ..air };
    for i in 1..positions.len() {
        let change = air_acceleration(&dense, triangles, lists, &long_step, i) * 10.0;
        assert!(change.length() <= 2.0 * (1.0 + 1e-5), "vertex {i} overshoots: {change}");
    }
}

/// A flat cloth falling face-first through still air reaches the flat plate's terminal speed
/// `v = sqrt(2mg / (ρ C_D A))` within 10 % (within 1 % here: every triangle carries its own
/// weight, so the cloth stays flat), in both modes.
#[test]
fn a_flat_plate_falls_face_first_at_its_terminal_speed() {
    let scene = Scene::new(SceneKind::FreeFall, 8).unwrap();
    let air = Aerodynamics::default();
    let mass: f32 = scene.model.masses().iter().sum();
    let g = 9.81;
    let terminal = (2.0 * mass * g / (air.air_density * air.drag_coefficient * 1.0)).sqrt();
    let (device, queue) = device();
    for mode in MODES {
        let params = SolverParams { mode, aerodynamics: Some(air), ..scene.params };
        let mut solver = GpuSolver::new(&device, &queue, &scene.model, params, &scene.colliders).unwrap();
        // 1.5 s, nine times the time constant v/g.
        for _ in 0..90 {
            solver.step();
        }
        let v = solver.read_velocities().unwrap();
        let x = solver.read_positions().unwrap();
        let speed = -v.iter().zip(scene.model.masses()).map(|(v, m)| v.y * m).sum::<f32>() / mass;
        let error = (speed - terminal).abs() / terminal;
        assert!(error <= 0.01, "{mode:?}: fell at {speed} m/s, flat plate {terminal} m/s");
        let (low, high) = (smallest(x.iter().map(|p| p.y)), largest(x.iter().map(|p| p.y)));
        assert!(high - low < 1e-3, "{mode:?}: the cloth stays flat ({} m)", high - low);
    }
}

/// The angle θ from the vertical (rad) at which a rigid flat plate hanging from a hinge along
/// its top edge rests in a horizontal wind `speed` across it: gravity's moment about the hinge
/// `mg sin θ` against the air's, `½ρA W² cos θ (C_D cos θ + C_L sin² θ)` (drag and lift of the
/// module's model on a plate whose normal makes the angle θ with the wind), solved by bisection
/// in f64.
fn hinged_plate_angle(air: &Aerodynamics, mass: f64, area: f64, speed: f64) -> f64 {
    let (rho, drag, lift) =
        (f64::from(air.air_density), f64::from(air.drag_coefficient), f64::from(air.lift_coefficient));
    let excess = |t: f64| {
        mass * 9.81 * t.sin() - 0.5 * rho * area * speed * speed * t.cos() * (drag * t.cos() + lift * t.sin().powi(2))
    };
    let (mut low, mut high) = (0.0, std::f64::consts::FRAC_PI_2);
    for _ in 0..60 {
        let mid = 0.5 * (low + high);
        if excess(mid) > 0.0 {
            high = mid;
        } else {
            low = mid;
        }
    }
    low
}

/// A flag hanging from its pole in a steady wind across it settles (its kinetic energy over
/// the last half second is a tiny fraction of what it would have moving with the wind) at the
/// angle of a rigid hinged plate, which grows with the wind: a uniform sheet under a uniform
/// load per area stays flat, so the plate's moment balance is the cloth's. Checks drag and
/// lift together against gravity, in both modes.
#[test]
fn a_flag_in_steady_wind_settles_at_the_hinged_plate_angle() {
    let scene = Scene::new(SceneKind::Flag, 10).unwrap();
    let pole = Vec3::new(0.0, 2.0, 0.0);
    let mass: f32 = scene.model.masses().iter().sum();
    let (device, queue) = device();
    for mode in MODES {
        let mut last_angle = 0.0;
        for speed in [1.0, 2.0, 4.0] {
            let air = Aerodynamics {
                wind: Vec3::new(0.0, 0.0, speed),
                gusts: Gusts::default(),
                ..scene.params.aerodynamics.unwrap()
            };
            let params = SolverParams { mode, aerodynamics: Some(air), ..scene.params };
            let mut solver = GpuSolver::new(&device, &queue, &scene.model, params, &scene.colliders).unwrap();
            for _ in 0..150 {
                solver.step();
            }
            let mut most_energy = 0f32;
            for _ in 0..6 {
                for _ in 0..5 {
                    solver.step();
                }
                let metrics = solver.metrics().unwrap();
                assert_eq!(metrics.non_finite, 0);
                most_energy = largest([most_energy, metrics.kinetic_energy]);
            }
            let moving_with_the_wind = 0.5 * mass * speed * speed;
            assert!(most_energy < 1e-6 * moving_with_the_wind, "{mode:?}, {speed} m/s: kinetic energy {most_energy} J");
            let arm = solver.metrics().unwrap().centre_of_mass - pole;
            let angle = arm.z.atan2(-arm.y).to_degrees();
            let plate = hinged_plate_angle(&air, f64::from(mass), 1.0, f64::from(speed)).to_degrees() as f32;
            assert!((angle - plate).abs() < 0.5, "{mode:?}, {speed} m/s: {angle}°, the hinged plate {plate}°");
            assert!(angle > last_angle + 10.0, "{mode:?}, {speed} m/s: {angle}° after {last_angle}°");
            last_angle = angle;
        }
    }
}

/// With gusts, the GPU follows the CPU reference in both modes, a reset starts the gusts over,
/// and once the air is turned off it pushes no more.
#[test]
fn gusty_flag_matches_reference_and_a_reset_restarts_the_gusts() {
    let scene = Scene::new(SceneKind::Flag, 6).unwrap();
    let (device, queue) = device();
    for mode in MODES {
        let params = SolverParams { mode, substeps: 4, iterations: 4, ..scene.params };
        let mut gpu = GpuSolver::new(&device, &queue, &scene.model, params, &scene.colliders).unwrap();
        let mut cpu = CpuSolver::new(&scene.model, params, &scene.colliders).unwrap();
        for _ in 0..40 {
            gpu.step();
            cpu.step();
        }
        let x = gpu.read_positions().unwrap();
        let distance = max_distance(&x, &cpu.positions);
        assert!(distance <= 1e-4, "{mode:?}: GPU and CPU differ by {distance} m");
        assert!(max_distance(&x, &scene.model.mesh().positions) > 0.1, "{mode:?}: the wind moves the flag");
        gpu.reset();
        for _ in 0..40 {
            gpu.step();
        }
        assert_eq!(gpu.read_positions().unwrap(), x, "{mode:?}: a reset repeats the run bit for bit");
        let still = SolverParams { aerodynamics: None, ..params };
        gpu.set_params(still).unwrap();
        cpu.set_params(still).unwrap();
        for _ in 0..20 {
            gpu.step();
            cpu.step();
        }
        let distance = max_distance(&gpu.read_positions().unwrap(), &cpu.positions);
        assert!(distance <= 1e-4, "{mode:?}: without air, GPU and CPU differ by {distance} m");
    }
}

/// The air and rigid damping switched on mid-run (their buffers grow then) act as in the CPU
/// reference switched alike.
#[test]
fn air_and_rigid_damping_switched_on_later_match_reference() {
    let scene = Scene::new(SceneKind::Hanging, 6).unwrap();
    let (device, queue) = device();
    let still = SolverParams { substeps: 4, iterations: 4, ..scene.params };
    let mut gpu = GpuSolver::new(&device, &queue, &scene.model, still, &scene.colliders).unwrap();
    let mut cpu = CpuSolver::new(&scene.model, still, &scene.colliders).unwrap();
    let windy = SolverParams {
        aerodynamics: Some(Aerodynamics { wind: Vec3::new(0.0, 0.0, 3.0), ..Aerodynamics::default() }),
        rigid_damping: 4.0,
        ..still
    };
    for params in [still, windy] {
        gpu.set_params(params).unwrap();
        cpu.set_params(params).unwrap();
        for _ in 0..15 {
            gpu.step();
            cpu.step();
        }
        let distance = max_distance(&gpu.read_positions().unwrap(), &cpu.positions);
        assert!(distance <= 1e-4, "GPU and CPU differ by {distance} m");
    }
    assert!(cpu.positions.iter().any(|p| p.z > 0.05), "the wind blows the curtain");
}
