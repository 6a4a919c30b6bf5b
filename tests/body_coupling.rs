//! Rigid bodies in the solvers, coupled both ways with the cloth (`set_bodies`), against laws the
//! code does not share with itself: free fall and rest on the ground, linear and angular
//! momentum kept through contacts in zero gravity in both solver modes, Coulomb's law for a box
//! on a cloth slope; and the GPU against the CPU reference, reruns bit for bit, typed errors.

mod support;

use drape::bodies::MAX_BODIES;
use drape::{
    BodyMass, BodyShape, BodyState, ClothMesh, ClothModel, Collider, CpuSolver, Error, GpuSolver, GridPlane, Pose,
    RigidBody, SolverMode, SolverParams, Stiffness,
};
use glam::{Quat, Vec3};
use support::{device, largest, momentum};

const MODES: [SolverMode; 2] = [SolverMode::GaussSeidel, SolverMode::Jacobi { relaxation: 1.5 }];

/// A square sheet of `n`² particles `spacing` apart, centred on `center`, pinned at `pins`.
fn sheet(n: u32, spacing: f32, center: Vec3, pins: &[u32]) -> ClothModel {
    let half = 0.5 * spacing * (n - 1) as f32;
    let origin = center - Vec3::new(half, 0.0, half);
    let mesh = ClothMesh::grid(n, n, spacing, GridPlane::Horizontal, origin).unwrap();
    ClothModel::new(mesh, 0.2, pins).unwrap()
}

/// A ball of `radius` and `mass` at `center`.
fn ball(radius: f32, mass: f32, center: Vec3) -> RigidBody {
    RigidBody::new(BodyShape::Sphere { radius }, BodyMass::Mass(mass), Pose { translation: center, ..Pose::IDENTITY })
}

/// Steps `solver` `frames` frames.
fn run(solver: &mut CpuSolver, frames: usize) {
    for _ in 0..frames {
        solver.step();
    }
}

/// The cloth's and the bodies' linear momentum, and their angular momentum about the origin.
fn momenta(solver: &CpuSolver) -> (Vec3, Vec3) {
    let model = solver.model();
    let masses = model.masses();
    let cloth_angular: Vec3 =
        (solver.positions.iter().zip(&solver.velocities).zip(masses)).map(|((x, v), m)| x.cross(*v * *m)).sum();
    let bodies = solver.bodies();
    let linear = momentum(model, &solver.velocities) + bodies.iter().map(BodyState::momentum).sum::<Vec3>();
    (linear, cloth_angular + bodies.iter().map(BodyState::angular_momentum).sum::<Vec3>())
}

/// A ball dropped on the ground falls as semi-implicit Euler puts it, `y₀ − g h² n(n+1)/2`
/// after `n` substeps, then rests on it at its radius, still; the cloth, pinned away from it,
/// plays no part.
#[test]
fn a_ball_falls_then_rests_on_the_ground() {
    let model = sheet(3, 0.1, Vec3::new(2.0, 1.0, 0.0), &[0, 2, 6, 8]);
    let params = SolverParams { damping: 0.0, ..Default::default() };
    let mut solver = CpuSolver::new(&model, params, &[Collider::ground(0.0)]).unwrap();
    let (radius, start) = (0.1, 0.6);
    solver.set_bodies(&[ball(radius, 2.0, Vec3::new(0.0, start, 0.0))]).unwrap();
    run(&mut solver, 10);
    let (g, h) = (9.81_f64, f64::from(params.substep_dt()));
    let n = 10.0 * f64::from(params.substeps);
    let expected = f64::from(start) - g * h * h * n * (n + 1.0) / 2.0;
    let body = solver.bodies()[0];
    assert!((f64::from(body.position.y) - expected).abs() < 1e-5, "{} against {expected}", body.position.y);
    run(&mut solver, 60);
    let body = solver.bodies()[0];
    assert!((body.position.y - radius).abs() < 1e-4, "rests at {}", body.position.y);
    assert!(body.velocity.length() < 1e-3 && body.angular_velocity.length() < 1e-3, "{body:?}");
}

/// A sheet in zero gravity hit by a spinning ball thrown off its centre, in both modes: the
/// cloth and the ball keep their linear momentum (1e-4 of it) through contacts that hand the
/// cloth a good part of it. Their angular momentum about the origin is kept to 1e-4 where the
/// cloth's own constraints are off (PBD stiffness 0: the particles meet the ball alone, and
/// friction changes its spin); the constraints themselves lose some of a spinning cloth's (1.6 %
/// in 20 frames at 10 substeps without any body: their corrections act along the directions
/// of the prediction, on particles whose moment arms are taken at the substep's start).
#[test]
fn contacts_keep_momentum_and_angular_momentum_in_zero_gravity() {
    let model = sheet(8, 0.04, Vec3::ZERO, &[]);
    let inert = Stiffness::Pbd(0.0);
    let cases = MODES.map(|mode| (mode, None)).into_iter().chain(MODES.map(|mode| (mode, Some(inert))));
    for (mode, stiffness) in cases {
        let mut params = SolverParams { gravity: Vec3::ZERO, damping: 0.0, mode, ..Default::default() };
        if let Some(stiffness) = stiffness {
            (params.stretch, params.compression, params.bending) = (stiffness, stiffness, stiffness);
        }
        let mut solver = CpuSolver::new(&model, params, &[]).unwrap();
        let mut thrown = ball(0.06, 0.05, Vec3::new(0.05, 0.2, 0.03));
        thrown.velocity = Vec3::new(0.3, -2.0, 0.1);
        thrown.angular_velocity = Vec3::new(4.0, 1.0, -6.0);
        thrown.friction = 0.6;
        solver.set_bodies(&[thrown]).unwrap();
        let (linear, angular) = momenta(&solver);
        run(&mut solver, 20);
        let (linear_after, angular_after) = momenta(&solver);
        let case = format!("{mode:?}, constraints {stiffness:?}");
        let cloth = momentum(solver.model(), &solver.velocities);
        assert!(cloth.length() > 0.02 * linear.length(), "{case}: the cloth took {cloth} of {linear}");
        let linear_error = (linear_after - linear).length() / linear.length();
        assert!(linear_error < 1e-4, "{case}: momentum {linear} → {linear_after} ({linear_error:e})");
        if stiffness.is_some() {
            let spin = solver.bodies()[0].angular_velocity;
            assert!(spin.distance(thrown.angular_velocity) > 0.01 * spin.length(), "{case}: no friction: {spin}");
            let angular_error = (angular_after - angular).length() / angular.length();
            assert!(angular_error < 1e-4, "{case}: angular momentum {angular} → {angular_after} ({angular_error:e})");
        }
    }
}

/// A pinned sheet tilted by `angle` about z, and a 2 kg box of friction `friction` resting on
/// it (the collision margin off it) near its upper edge. Returns the solver and the direction
/// down the slope.
fn box_on_a_slope(angle: f32, friction: f32, substeps: u32) -> (CpuSolver, Vec3) {
    let n = 21;
    let pins: Vec<u32> = (0..n * n).collect();
    let mut model = sheet(n, 0.03, Vec3::ZERO, &pins);
    let tilt = Quat::from_rotation_z(angle);
    let mut mesh = model.mesh().clone();
    for p in &mut mesh.positions {
        *p = tilt * *p;
    }
    model = ClothModel::new(mesh, 0.2, &pins).unwrap();
    let params = SolverParams { damping: 0.0, substeps, ..Default::default() };
    let mut solver = CpuSolver::new(&model, params, &[]).unwrap();
    let half_extents = Vec3::new(0.08, 0.04, 0.08);
    let center = tilt * Vec3::new(-0.12, half_extents.y + params.collision_margin, 0.01);
    let mut body = RigidBody::new(
        BodyShape::Box { half_extents },
        BodyMass::Mass(2.0),
        Pose { translation: center, rotation: tilt },
    );
    body.friction = friction;
    solver.set_bodies(&[body]).unwrap();
    (solver, tilt * Vec3::NEG_X)
}

/// A box on a cloth slope of 20° follows Coulomb's law: with friction 0.1 it slides at
/// `g(sin θ − μ cos θ)` (within 3 %). With 0.5 (above tan 20° ≈ 0.36) it holds but for a creep
/// of first order in the substep, which halving the substep halves (measured: 2.2 and 1.0 mm/s
/// at 10 and 20 substeps): the positional friction of one substep leaves a part of that
/// substep's slide to the next.
#[test]
fn a_box_slides_on_a_cloth_slope_by_coulombs_law() {
    let angle = 20f32.to_radians();
    let (mut sliding, downhill) = box_on_a_slope(angle, 0.1, 10);
    run(&mut sliding, 6);
    let start = sliding.bodies()[0].position;
    let v0 = sliding.bodies()[0].velocity.dot(downhill);
    run(&mut sliding, 24);
    let t = 24.0 / 60.0;
    let slid = (sliding.bodies()[0].position - start).dot(downhill);
    let acceleration = 2.0 * (slid - v0 * t) / (t * t);
    let expected = 9.81 * (angle.sin() - 0.1 * angle.cos());
    assert!((acceleration / expected - 1.0).abs() < 0.03, "slides at {acceleration} m/s², Coulomb {expected}");

    let crept = |substeps| {
        let (mut holding, downhill) = box_on_a_slope(angle, 0.5, substeps);
        run(&mut holding, 3);
        let start = holding.bodies()[0].position;
        run(&mut holding, 30);
        (holding.bodies()[0].position - start).dot(downhill)
    };
    let (coarse, fine) = (crept(10), crept(20));
    assert!((0.0..1.5e-3).contains(&coarse), "crept {coarse} m in half a second");
    assert!((0.0..0.6 * coarse).contains(&fine), "crept {fine} m with half the substep, {coarse} m before");
}

/// A ball dropped into a sheet pinned at its corners: the GPU follows the reference (positions
/// within 1e-4 m, the ball within 1e-4 m and 1e-3 m/s) and a rerun gives the same bits.
#[test]
fn the_gpu_follows_the_reference_and_reruns_bit_for_bit() {
    let (device, queue) = device();
    let n = 10;
    let model = sheet(n, 0.04, Vec3::ZERO, &[0, n - 1, n * (n - 1), n * n - 1]);
    let bodies = [ball(0.08, 0.5, Vec3::new(0.01, 0.1, -0.02))];
    for mode in MODES {
        let params = SolverParams { mode, ..Default::default() };
        let colliders = [Collider::ground(-0.5)];
        let mut cpu = CpuSolver::new(&model, params, &colliders).unwrap();
        cpu.set_bodies(&bodies).unwrap();
        run(&mut cpu, 12);
        let mut reads = Vec::new();
        for _ in 0..2 {
            let mut gpu = GpuSolver::new(&device, &queue, &model, params, &colliders).unwrap();
            gpu.set_bodies(&bodies).unwrap();
            for _ in 0..12 {
                gpu.step();
            }
            reads.push((gpu.read_positions().unwrap(), gpu.read_bodies().unwrap()));
        }
        let (positions, gpu_bodies) = &reads[0];
        assert_eq!(reads[0].0, reads[1].0, "{mode:?}: a rerun moved the cloth");
        assert_eq!(reads[0].1, reads[1].1, "{mode:?}: a rerun moved the ball");
        let apart = largest(positions.iter().zip(&cpu.positions).map(|(a, b)| a.distance(*b)));
        assert!(apart < 1e-4, "{mode:?}: cloth {apart} m from the reference");
        let (a, b) = (gpu_bodies[0], cpu.bodies()[0]);
        assert!(a.position.distance(b.position) < 1e-4, "{mode:?}: ball at {} against {}", a.position, b.position);
        assert!(a.velocity.distance(b.velocity) < 1e-3, "{mode:?}: ball at {} against {}", a.velocity, b.velocity);
        assert!(b.position.y < 0.05 && b.contacts > 0, "{mode:?}: the ball never met the cloth: {b:?}");
    }
}

/// Bad bodies are refused with an error naming what is wrong, and the solvers keep their
/// bodies.
#[test]
fn bad_bodies_are_refused_and_change_nothing() {
    let (device, queue) = device();
    let model = sheet(3, 0.1, Vec3::ZERO, &[0]);
    let good = ball(0.1, 1.0, Vec3::Y);
    let mut nan = good;
    nan.pose.translation.x = f32::NAN;
    let mut heavy_less = good;
    heavy_less.mass = BodyMass::Mass(0.0);
    let mut slippery = good;
    slippery.friction = -0.1;
    let many = vec![good; MAX_BODIES + 1];
    let cases: [(&[RigidBody], &str); 4] =
        [(&[good, nan], "body.pose"), (&[heavy_less], "body.mass"), (&[slippery], "body.friction"), (&many, "bodies")];
    let mut cpu = CpuSolver::new(&model, SolverParams::default(), &[]).unwrap();
    let mut gpu = GpuSolver::new(&device, &queue, &model, SolverParams::default(), &[]).unwrap();
    cpu.set_bodies(&[good]).unwrap();
    gpu.set_bodies(&[good]).unwrap();
    for (bodies, name) in cases {
        let named = |e: Error| matches!(e, Error::Param(ref p) if p.name == name);
        assert!(named(cpu.set_bodies(bodies).unwrap_err()), "{name}");
        assert!(named(gpu.set_bodies(bodies).unwrap_err()), "{name}");
        assert_eq!(cpu.bodies().len(), 1);
        assert_eq!(gpu.read_bodies().unwrap().len(), 1);
    }
}
