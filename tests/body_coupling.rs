//! Rigid bodies in the solvers, coupled both ways with the cloth (`set_bodies`), against laws the
//! code does not share with itself: free fall and rest on the ground, linear and angular
//! momentum kept through contacts in zero gravity in both solver modes, Coulomb's law for a box
//! on a cloth slope; and the GPU against the CPU reference, reruns bit for bit, typed errors.

mod support;

use drape::bodies::MAX_BODIES;
use drape::passes::bodies::ropes::MAX_ROPES;
use drape::{
    BodyAttachment, BodyMass, BodyRope, BodyShape, BodyState, ClothMesh, ClothModel, Collider, CpuSolver, Error,
    GpuSolver, GridPlane, Pose, RigidBody, Scene, SceneKind, SolverMode, SolverParams, Stiffness,
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
/// after `n` substeps, then rests on it at its radius, still; a box dropped flat rests flat on
/// its corners at its half height, and a capsule lying on its side at its radius. The
/// cloth, pinned away from them, plays no part.
#[test]
fn bodies_fall_then_rest_on_the_ground() {
    let model = sheet(3, 0.1, Vec3::new(2.0, 1.0, 0.0), &[0, 2, 6, 8]);
    let params = SolverParams { damping: 0.0, ..Default::default() };
    let mut solver = CpuSolver::new(&model, params, &[Collider::ground(0.0)]).unwrap();
    let (radius, start) = (0.1, 0.6);
    let half_extents = Vec3::new(0.1, 0.05, 0.2);
    let on_side = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let placed = |x: f32, y: f32, rotation: Quat| Pose { translation: Vec3::new(x, y, 0.0), rotation };
    let bodies = [
        ball(radius, 2.0, Vec3::new(0.0, start, 0.0)),
        RigidBody::new(
            BodyShape::Box { half_extents },
            BodyMass::Density(300.0),
            placed(0.5, 0.3, Quat::from_rotation_y(0.4)),
        ),
        RigidBody::new(
            BodyShape::Capsule { radius: 0.05, half_length: 0.15 },
            BodyMass::Mass(1.0),
            placed(1.0, 0.3, on_side),
        ),
    ];
    solver.set_bodies(&bodies).unwrap();
    run(&mut solver, 10);
    let (g, h) = (9.81_f64, f64::from(params.substep_dt()));
    let n = 10.0 * f64::from(params.substeps);
    let expected = f64::from(start) - g * h * h * n * (n + 1.0) / 2.0;
    let body = solver.bodies()[0];
    assert!((f64::from(body.position.y) - expected).abs() < 1e-5, "{} against {expected}", body.position.y);
    run(&mut solver, 60);
    for (body, height) in solver.bodies().iter().zip([radius, half_extents.y, 0.05]) {
        assert!((body.position.y - height).abs() < 1e-4, "rests at {} for {height}: {body:?}", body.position.y);
        assert!(body.velocity.length() < 1e-3 && body.angular_velocity.length() < 1e-3, "{body:?}");
    }
    let tilt = (solver.bodies()[1].rotation * Vec3::Y).angle_between(Vec3::Y);
    assert!(tilt < 1e-3, "the box rests tilted by {tilt} rad");
}

/// A sheet in zero gravity hit by a spinning ball thrown off its centre, in both modes: the
/// cloth and the ball keep their linear momentum (1e-4 of it) through contacts that hand the
/// cloth a good part of it. Their angular momentum about the origin is kept to 1e-3 where the
/// cloth's own constraints are off (PBD stiffness 0: the particles meet the ball alone), and
/// friction changes the ball's spin, which a frictionless ball keeps (1e-4: its contacts push
/// through its centre). The constraints themselves lose some of a spinning cloth's angular
/// momentum (1.6 % in 20 frames at 10 substeps without any body: their corrections act along
/// the prediction's directions on arms taken at the substep's start).
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
        for friction in [0.6, 0.0] {
            let mut solver = CpuSolver::new(&model, params, &[]).unwrap();
            let mut thrown = ball(0.06, 0.05, Vec3::new(0.05, 0.2, 0.03));
            thrown.velocity = Vec3::new(0.3, -2.0, 0.1);
            thrown.angular_velocity = Vec3::new(4.0, 1.0, -6.0);
            thrown.friction = friction;
            solver.set_bodies(&[thrown]).unwrap();
            let (linear, angular) = momenta(&solver);
            run(&mut solver, 20);
            let (linear_after, angular_after) = momenta(&solver);
            let case = format!("{mode:?}, constraints {stiffness:?}, friction {friction}");
            let cloth = momentum(solver.model(), &solver.velocities);
            assert!(cloth.length() > 0.02 * linear.length(), "{case}: the cloth took {cloth} of {linear}");
            let linear_error = (linear_after - linear).length() / linear.length();
            assert!(linear_error < 1e-4, "{case}: momentum {linear} → {linear_after} ({linear_error:e})");
            let spin = solver.bodies()[0].angular_velocity;
            let spun = spin.distance(thrown.angular_velocity) / thrown.angular_velocity.length();
            if friction == 0.0 {
                assert!(spun < 1e-4, "{case}: a frictionless ball's spin changed to {spin}");
            } else {
                assert!(spun > 0.01, "{case}: friction left the spin at {spin}");
            }
            if stiffness.is_some() {
                let angular_error = (angular_after - angular).length() / angular.length();
                assert!(
                    angular_error < 1e-3,
                    "{case}: angular momentum {angular} → {angular_after} ({angular_error:e})"
                );
            }
        }
    }
}

/// A ball on a pinned flat sheet with friction 0.3, its contacts `R = r + margin` from its
/// centre (the particles keep the margin off its surface). Thrown sliding without spin, it
/// rolls at `v₀/(1 + I/(mR²))` once friction has spun it up (a solid ball's closed form,
/// `I = 2mr²/5`: `5v₀/7` where `R = r`), within 1.5 %; rolling, it keeps that speed within 2 %
/// over half a second: the cloth slows it no more than friction says. The sheet's particles are
/// 1 cm apart under a ball of 20 cm: the ball rests on particles, not on the triangles between
/// them, and rolling over them is a ride over bumps `s²/8R` deep, which a coarser sheet makes
/// lose speed (a 5 cm ball on particles 3 cm apart lost a third of its speed in 0.6 s).
#[test]
fn a_ball_thrown_on_cloth_rolls_as_friction_says() {
    let n = 81;
    let pins: Vec<u32> = (0..n * n).collect();
    let model = sheet(n, 0.01, Vec3::new(0.3, 0.0, 0.0), &pins);
    let params = SolverParams { damping: 0.0, ..Default::default() };
    let mut solver = CpuSolver::new(&model, params, &[]).unwrap();
    let (radius, reach) = (0.2, 0.2 + params.collision_margin);
    let mut thrown = ball(radius, 2.0, Vec3::new(0.0, reach, 0.0));
    let speed = 1.0;
    thrown.velocity = Vec3::X * speed;
    thrown.friction = 0.3;
    solver.set_bodies(&[thrown]).unwrap();
    run(&mut solver, 12);
    let rolling = solver.bodies()[0];
    let expected = speed / (1.0 + 0.4 * radius * radius / (reach * reach));
    assert!((rolling.velocity.x / expected - 1.0).abs() < 0.015, "rolls at {} m/s, {expected}", rolling.velocity.x);
    let slip = rolling.velocity.x + rolling.angular_velocity.z * reach;
    assert!(slip.abs() < 0.01 * expected, "slips at {slip} m/s: {rolling:?}");
    run(&mut solver, 30);
    let later = solver.bodies()[0].velocity.x;
    assert!((later / rolling.velocity.x - 1.0).abs() < 0.02, "slowed from {} to {later}", rolling.velocity.x);
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
    assert!((0.0..=0.6 * coarse).contains(&fine), "crept {fine} m with half the substep, {coarse} m before");
}

/// A box resting on a plane collider tilted 20° follows Coulomb's law: with friction 0.1 it
/// slides at `g(sin θ − μ cos θ)` (within 2 %; 0.4 % over, measured). With 0.5 it holds but for a
/// creep of first order in the substep, as on cloth (measured: 0.6 and 0.3 mm/s at 10 and 20
/// substeps; it also turns about the slope's normal, at 5e-3 and 2.4e-3 rad/s).
#[test]
fn a_box_slides_down_a_tilted_plane_by_coulombs_law() {
    let angle = 20f32.to_radians();
    let tilt = Quat::from_rotation_z(angle);
    let downhill = tilt * Vec3::NEG_X;
    let on_the_slope = |friction: f32, substeps: u32| {
        let plane = Collider::Plane { normal: tilt * Vec3::Y, offset: 0.0 };
        let params = SolverParams { damping: 0.0, substeps, ..Default::default() };
        let mut solver =
            CpuSolver::new(&sheet(3, 0.1, Vec3::new(5.0, 3.0, 0.0), &[0, 2, 6, 8]), params, &[plane]).unwrap();
        let half_extents = Vec3::new(0.1, 0.05, 0.1);
        let pose = Pose { translation: tilt * Vec3::new(0.0, half_extents.y, 0.0), rotation: tilt };
        let body = RigidBody { friction, ..RigidBody::new(BodyShape::Box { half_extents }, BodyMass::Mass(1.0), pose) };
        solver.set_bodies(&[body]).unwrap();
        run(&mut solver, 6);
        let (start, v0) = (solver.bodies()[0].position, solver.bodies()[0].velocity.dot(downhill));
        run(&mut solver, 24);
        ((solver.bodies()[0].position - start).dot(downhill), v0, solver.bodies()[0].angular_velocity.length())
    };
    let (slid, v0, _) = on_the_slope(0.1, 10);
    let t = 24.0 / 60.0;
    let acceleration = 2.0 * (slid - v0 * t) / (t * t);
    let expected = 9.81 * (angle.sin() - 0.1 * angle.cos());
    assert!((acceleration / expected - 1.0).abs() < 0.02, "slides at {acceleration} m/s², Coulomb {expected}");

    let ((coarse, _, coarse_spin), (fine, _, fine_spin)) = (on_the_slope(0.5, 10), on_the_slope(0.5, 20));
    assert!((0.0..5e-4).contains(&coarse), "crept {coarse} m in 0.4 s");
    assert!((0.0..=0.6 * coarse).contains(&fine), "crept {fine} m with half the substep, {coarse} m before");
    assert!(coarse_spin < 1e-2 && fine_spin < 0.6 * coarse_spin, "turned at {coarse_spin}, then {fine_spin} rad/s");
}

/// A box thrown across a heavy box resting on the ground, friction 0.5 between them (the mean of
/// their 0 and 1), stops after sliding `v²/(2μg)` over it (within 2 %; 0.2 and 0.6 % short,
/// measured, at 1.5 and 0.5 m/s), the lower box held by the ground, the upper box not turned
/// (under 1e-3 rad/s: when a pair's friction followed each of its pushes, the next push's turn
/// left it spinning at 0.01 rad/s).
#[test]
fn a_box_thrown_across_a_box_stops_as_friction_says() {
    let model = sheet(3, 0.1, Vec3::new(5.0, 3.0, 0.0), &[0, 2, 6, 8]);
    let placed = |x: f32, y: f32| Pose { translation: Vec3::new(x, y, 0.0), ..Pose::IDENTITY };
    let lower = RigidBody {
        friction: 1.0,
        ..RigidBody::new(
            BodyShape::Box { half_extents: Vec3::new(1.0, 0.1, 0.3) },
            BodyMass::Mass(20.0),
            placed(0.0, 0.1),
        )
    };
    for speed in [1.5f32, 0.5] {
        let upper = RigidBody {
            friction: 0.0,
            velocity: Vec3::X * speed,
            ..RigidBody::new(
                BodyShape::Box { half_extents: Vec3::new(0.1, 0.05, 0.1) },
                BodyMass::Mass(1.0),
                placed(-0.6, 0.25),
            )
        };
        let params = SolverParams { damping: 0.0, ..Default::default() };
        let mut solver = CpuSolver::new(&model, params, &[Collider::ground(0.0)]).unwrap();
        solver.set_bodies(&[lower, upper]).unwrap();
        for _ in 0..60 {
            solver.step();
        }
        let [lower, upper] = [solver.bodies()[0], solver.bodies()[1]];
        let slid = upper.position.x - lower.position.x + 0.6;
        let expected = speed * speed / (2.0 * 0.5 * 9.81);
        assert!((slid / expected - 1.0).abs() < 0.02, "at {speed} m/s: slid {slid} m, Coulomb {expected} m");
        assert!(upper.velocity.length() < 1e-3 && upper.angular_velocity.length() < 1e-3, "at {speed} m/s: {upper:?}");
        assert!(lower.position.distance(Vec3::Y * 0.1) < 1e-3, "at {speed} m/s: the lower box moved: {lower:?}");
    }
}

/// The bodies of the GPU test: a ball, a spinning capsule and a turned box over the sheet, and
/// beside it a box falling onto the ground and a capsule onto the box (from 1 cm above it: one
/// started inside it tumbled on it, and a run one ulp apart parted by most of the bounds).
fn falling_bodies() -> [RigidBody; 5] {
    let at = |x: f32, y: f32, z: f32, rotation: Quat| Pose { translation: Vec3::new(x, y, z), rotation };
    let mut capsule = RigidBody::new(
        BodyShape::Capsule { radius: 0.05, half_length: 0.1 },
        BodyMass::Density(400.0),
        at(-0.4, 0.12, 0.3, Quat::from_rotation_x(1.2)),
    );
    capsule.angular_velocity = Vec3::new(1.0, 3.0, -2.0);
    let turned = Quat::from_euler(glam::EulerRot::XYZ, 0.3, 0.5, 0.1);
    let half_extents = Vec3::new(0.06, 0.04, 0.08);
    [
        ball(0.08, 0.5, Vec3::new(0.01, 0.1, -0.02)),
        capsule,
        RigidBody::new(BodyShape::Box { half_extents }, BodyMass::Mass(0.8), at(0.4, 0.1, -0.3, turned)),
        RigidBody::new(BodyShape::Box { half_extents }, BodyMass::Mass(0.8), at(1.5, -0.35, 0.0, turned)),
        RigidBody::new(
            BodyShape::Capsule { radius: 0.03, half_length: 0.05 },
            BodyMass::Mass(0.3),
            at(1.52, -0.24, 0.01, Quat::from_rotation_z(1.3)),
        ),
    ]
}

/// That `gpu` follows `cpu`: the particles within 1e-4 m, and each body within 1e-4 m, 1e-3 m/s,
/// 1e-3 rad and 1e-2 rad/s.
fn assert_follows(gpu: &mut GpuSolver, cpu: &CpuSolver, case: &str) {
    let apart = largest(gpu.read_positions().unwrap().iter().zip(&cpu.positions).map(|(a, b)| a.distance(*b)));
    assert!(apart < 1e-4, "{case}: cloth {apart} m from the reference");
    let gpu_bodies = gpu.read_bodies().unwrap();
    assert_eq!(gpu_bodies.len(), cpu.bodies().len(), "{case}");
    for (k, (a, b)) in gpu_bodies.iter().zip(cpu.bodies()).enumerate() {
        let off = [
            a.position.distance(b.position) / 1e-4,
            a.velocity.distance(b.velocity) / 1e-3,
            a.rotation.angle_between(b.rotation) / 1e-3,
            a.angular_velocity.distance(b.angular_velocity) / 1e-2,
        ];
        assert!(largest(off) < 1.0, "{case}: body {k} {off:?} of the bounds off:\n{a:?}\n{b:?}");
    }
}

/// Five bodies over and beside a sheet of 5184 particles pinned at its corners (81 partial sums
/// per body, more than a workgroup's threads), some of them onto the ground: the GPU follows the
/// reference (the cloth within 1e-4 m; each body within 1e-4 m, 1e-3 m/s, 1e-3 rad and 1e-2
/// rad/s) in both modes, the sheet holds the ball up, and a rerun gives the same bits.
#[test]
fn the_gpu_follows_the_reference_and_reruns_bit_for_bit() {
    let (device, queue) = device();
    let n = 72;
    let model = sheet(n, 0.02, Vec3::ZERO, &[0, n - 1, n * (n - 1), n * n - 1]);
    let bodies = falling_bodies();
    let colliders = [Collider::ground(-0.5)];
    for mode in MODES {
        let params = SolverParams { mode, ..Default::default() };
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
        assert_eq!(reads[0].0, reads[1].0, "{mode:?}: a rerun moved the cloth");
        assert_eq!(reads[0].1, reads[1].1, "{mode:?}: a rerun moved the bodies");
        let mut gpu = GpuSolver::new(&device, &queue, &model, params, &colliders).unwrap();
        gpu.set_bodies(&bodies).unwrap();
        for _ in 0..12 {
            gpu.step();
        }
        assert_follows(&mut gpu, &cpu, &format!("{mode:?}"));
        let ball = cpu.bodies()[0];
        assert!(ball.contacts > 0 && ball.position.y > -0.25, "{mode:?}: the sheet did not hold the ball: {ball:?}");
        let (beside, on_it) = (cpu.bodies()[3], cpu.bodies()[4]);
        assert!(beside.position.y < -0.4, "{mode:?}: the box beside never reached the ground: {beside:?}");
        let above = on_it.position.y - beside.position.y;
        assert!(above > 0.05, "{mode:?}: the capsule only {above} m above the box's centre: {on_it:?}");
    }
}

/// `reset` puts the bodies back where `set_bodies` started them, and `add_cloth` carries them
/// over as they are.
#[test]
fn reset_and_add_cloth_keep_the_bodies() {
    let (device, queue) = device();
    let model = sheet(10, 0.04, Vec3::ZERO, &[0, 9, 90, 99]);
    let bodies = falling_bodies();
    let mut gpu = GpuSolver::new(&device, &queue, &model, SolverParams::default(), &[]).unwrap();
    gpu.set_bodies(&bodies).unwrap();
    let started = gpu.read_bodies().unwrap();
    for _ in 0..5 {
        gpu.step();
    }
    let moved = gpu.read_bodies().unwrap();
    assert_ne!(moved, started);
    gpu.add_cloth(&sheet(3, 0.04, Vec3::new(5.0, 0.0, 0.0), &[0])).unwrap();
    assert_eq!(gpu.read_bodies().unwrap(), moved, "add_cloth changed the bodies");
    gpu.reset();
    assert_eq!(gpu.read_bodies().unwrap(), started, "reset did not put the bodies back");
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

/// A sheet whose first row is attached to the face of a box thrown at 5 m/s and spun, in zero
/// gravity: at the end of every frame each attached particle is within 1e-4 m of its point of
/// the box (no lag), the box drags the sheet (at half its speed at least) and the two keep their
/// linear momentum (1e-4), in both modes; the GPU follows the reference (1e-4 m); a particle
/// released goes on at the speed it had (its velocity changes less across the release than the
/// box's 5 m/s by a hundredfold).
#[test]
fn an_attached_sheet_follows_a_thrown_box_without_lag() {
    let (device, queue) = device();
    let n = 8;
    let spacing = 0.03;
    let mesh = ClothMesh::grid(n, n, spacing, GridPlane::Horizontal, Vec3::new(0.0, 0.0, -0.105)).unwrap();
    let model = ClothModel::new(mesh, 0.2, &[]).unwrap();
    let half_extents = Vec3::new(0.05, 0.05, 0.12);
    let mut thrown = RigidBody::new(
        BodyShape::Box { half_extents },
        BodyMass::Mass(0.3),
        Pose { translation: Vec3::new(-0.05, 0.0, 0.0), ..Pose::IDENTITY },
    );
    thrown.velocity = Vec3::new(-5.0, 1.0, 0.0);
    thrown.angular_velocity = Vec3::new(0.0, 2.0, 0.0);
    let row: Vec<BodyAttachment> = (0..n)
        .map(|k| {
            let particle = k * n;
            let at = model.mesh().positions[particle as usize];
            BodyAttachment { particle, body: 0, point: at - thrown.pose.translation }
        })
        .collect();
    for mode in MODES {
        let params = SolverParams { gravity: Vec3::ZERO, damping: 0.0, mode, ..Default::default() };
        let mut cpu = CpuSolver::new(&model, params, &[]).unwrap();
        cpu.set_bodies(&[thrown]).unwrap();
        cpu.attach_to_bodies(&row).unwrap();
        let (start, _) = momenta(&cpu);
        for frame in 0..20 {
            cpu.step();
            let pose = cpu.bodies()[0].pose();
            let lag = largest(row.iter().map(|a| cpu.positions[a.particle as usize].distance(pose.to_world(a.point))));
            assert!(lag < 1e-4, "{mode:?}: frame {frame}: an attached particle {lag} m from its point");
        }
        let (end, _) = momenta(&cpu);
        assert!((end - start).length() < 1e-4 * start.length(), "{mode:?}: momentum {start} → {end}");
        let cloth = momentum(cpu.model(), &cpu.velocities);
        let cloth_mass: f32 = cpu.model().masses().iter().sum();
        assert!(cloth.length() > 0.5 * cloth_mass * 5.0, "{mode:?}: the sheet took only {cloth}");

        let mut gpu = GpuSolver::new(&device, &queue, &model, params, &[]).unwrap();
        gpu.set_bodies(&[thrown]).unwrap();
        gpu.attach_to_bodies(&row).unwrap();
        for _ in 0..20 {
            gpu.step();
        }
        assert_follows(&mut gpu, &cpu, &format!("{mode:?}, attached"));

        let released = row[3].particle as usize;
        let before = cpu.velocities[released];
        cpu.detach_from_body(row[3].particle).unwrap();
        cpu.step();
        let jump = cpu.velocities[released].distance(before);
        assert!(jump < 0.05, "{mode:?}: the released particle's velocity jumped by {jump} m/s");
        gpu.detach_from_body(row[3].particle).unwrap();
        gpu.step();
        assert_follows(&mut gpu, &cpu, &format!("{mode:?}, released"));
    }
}

/// A ball tied by a point of its top to a pinned particle hangs from it under gravity (its point
/// within 1e-4 m of the particle, the ball still): the attachment pulls the body.
#[test]
fn a_ball_hangs_from_a_pinned_particle() {
    let model = sheet(3, 0.1, Vec3::ZERO, &[4]);
    let params = SolverParams::default();
    let mut solver = CpuSolver::new(&model, params, &[]).unwrap();
    let radius = 0.1;
    solver.set_bodies(&[ball(radius, 1.0, Vec3::new(0.0, -radius, 0.0))]).unwrap();
    solver.attach_to_bodies(&[BodyAttachment { particle: 4, body: 0, point: Vec3::Y * radius }]).unwrap();
    run(&mut solver, 60);
    let ball = solver.bodies()[0];
    let gap = ball.pose().to_world(Vec3::Y * radius).distance(solver.positions[4]);
    assert!(gap < 1e-4, "the ball hangs {gap} m off its particle");
    assert!(ball.velocity.length() < 1e-3, "{ball:?}");
}

/// Attachments to bodies refuse a body or a particle that does not exist and a point that is
/// not finite, and change nothing then.
#[test]
fn bad_body_attachments_are_refused() {
    let model = sheet(3, 0.1, Vec3::ZERO, &[]);
    let mut solver = CpuSolver::new(&model, SolverParams::default(), &[]).unwrap();
    solver.set_bodies(&[ball(0.1, 1.0, Vec3::Y)]).unwrap();
    let good = BodyAttachment { particle: 1, body: 0, point: Vec3::ZERO };
    let named = |e: Error, name: &str| matches!(e, Error::Param(ref p) if p.name == name);
    let missing_body = BodyAttachment { body: 1, ..good };
    assert!(named(solver.attach_to_bodies(&[good, missing_body]).unwrap_err(), "body_attachment.body"));
    let nan = BodyAttachment { point: Vec3::NAN, ..good };
    assert!(named(solver.attach_to_bodies(&[nan]).unwrap_err(), "body_attachment.point"));
    let missing_particle = BodyAttachment { particle: 9, ..good };
    assert!(matches!(solver.attach_to_bodies(&[missing_particle]), Err(Error::ParticleOutOfRange { .. })));
    assert_eq!(solver.body_attachments().count(), 0);
    solver.attach_to_bodies(&[good]).unwrap();
    assert_eq!(solver.body_attachments().of(1), Some((0, Vec3::ZERO)));
}

/// The hammock scene: its ball lands on the canvas, which holds it above the ground and within
/// its corners after five seconds, resting on it (in contact, its speed under 0.3 m/s).
#[test]
fn the_hammock_holds_its_ball() {
    let scene = Scene::new(SceneKind::Hammock, 16).unwrap();
    assert_eq!(scene.objects.bodies.len(), 1);
    let mut solver = CpuSolver::new(&scene.model, scene.params, &scene.colliders).unwrap();
    solver.set_bodies(&scene.objects.bodies).unwrap();
    run(&mut solver, 300);
    let ball = solver.bodies()[0];
    let lowest = support::smallest(solver.positions.iter().map(|p| p.y));
    assert!(ball.position.y > 1.0 && ball.position.y < 1.4, "{ball:?}");
    assert!(ball.position.x.abs() < 0.6 && ball.position.z.abs() < 0.6, "{ball:?}");
    assert!(lowest > 0.5 && ball.velocity.length() < 0.3, "{ball:?}, the canvas down to {lowest} m");
}

/// A ball dropped in the middle of a canvas pinned at its four corners stays in the middle: the
/// scene is symmetric under mirroring in x and in z, and so is every step of the Jacobi mode
/// (each particle's tethers included, taken as one mean rather than one after the other). Within
/// 1 mm after 1.5 s of bounces, where tethers taken in order pushed it 7 cm towards the
/// lower-numbered pins in the first second.
#[test]
fn a_ball_dropped_in_the_middle_of_a_hammock_stays_there() {
    let cells = 24;
    let n = cells + 1;
    let mesh = ClothMesh::grid(n, n, 1.6 / cells as f32, GridPlane::Horizontal, Vec3::new(-0.8, 1.2, -0.8)).unwrap();
    let model = ClothModel::new(mesh, 1.0, &[0, cells, n * n - 1 - cells, n * n - 1]).unwrap();
    let params = SolverParams { mode: MODES[1], ..Default::default() };
    let mut solver = CpuSolver::new(&model, params, &[Collider::ground(0.0)]).unwrap();
    solver.set_bodies(&[ball(0.2, 1.0, Vec3::new(0.0, 1.8, 0.0))]).unwrap();
    let mut lowest = f32::MAX;
    for _ in 0..90 {
        solver.step();
        lowest = lowest.min(solver.bodies()[0].position.y);
    }
    let ball = solver.bodies()[0];
    assert!(lowest < 1.3, "the ball never reached the canvas: down to {lowest} m");
    let aside = Vec3::new(ball.position.x, 0.0, ball.position.z).length();
    assert!(aside < 1e-3, "{aside} m from the middle: {ball:?}");
}

/// A ball and a box dropped onto a mesh collider (a table top, a box mesh's distance field)
/// rest on it at the heights their shapes give (1 mm): the ball at its radius above the top,
/// the box at its half height, still; the GPU follows the reference.
#[test]
fn bodies_rest_on_a_mesh_collider() {
    let field = drape::DistanceField::from_mesh(&support::box_mesh(Vec3::new(0.5, 0.1, 0.5)), 32).unwrap();
    let top = 0.3;
    let pose = Pose { translation: Vec3::Y * (top - 0.1), ..Pose::IDENTITY };
    let colliders = [Collider::ground(0.0), Collider::mesh(std::sync::Arc::new(field), pose)];
    let model = sheet(3, 0.1, Vec3::new(5.0, 3.0, 0.0), &[0, 2, 6, 8]);
    let half_extents = Vec3::new(0.1, 0.05, 0.1);
    let placed = Pose { translation: Vec3::new(0.2, 0.8, 0.0), ..Pose::IDENTITY };
    let bodies = [
        ball(0.05, 0.5, Vec3::new(-0.2, 0.8, 0.0)),
        RigidBody::new(BodyShape::Box { half_extents }, BodyMass::Mass(1.0), placed),
    ];
    let mut cpu = CpuSolver::new(&model, SolverParams::default(), &colliders).unwrap();
    cpu.set_bodies(&bodies).unwrap();
    run(&mut cpu, 90);
    assert_at_rest(cpu.bodies(), &[top + 0.05, top + half_extents.y]);
    let (device, queue) = device();
    let mut gpu = GpuSolver::new(&device, &queue, &model, SolverParams::default(), &colliders).unwrap();
    gpu.set_bodies(&bodies).unwrap();
    for _ in 0..90 {
        gpu.step();
    }
    assert_follows(&mut gpu, &cpu, "on a mesh");
}

/// Two balls meeting head on in zero gravity, frictionless, move on together at their common
/// velocity `(m₁v₁ + m₂v₂)/(m₁ + m₂)` (the contact has no restitution; within 1 %), their
/// momentum kept (1e-5), neither spun.
#[test]
fn two_balls_meeting_head_on_move_on_together() {
    let model = sheet(3, 0.1, Vec3::new(0.0, 5.0, 0.0), &[0, 2, 6, 8]);
    let params = SolverParams { gravity: Vec3::ZERO, ..Default::default() };
    let mut solver = CpuSolver::new(&model, params, &[]).unwrap();
    let (masses, speeds) = ([1.0, 3.0], [2.0, -1.0]);
    let mut left = ball(0.1, masses[0], Vec3::new(-0.3, 0.0, 0.0));
    let mut right = ball(0.15, masses[1], Vec3::new(0.3, 0.0, 0.0));
    (left.velocity, right.velocity) = (Vec3::X * speeds[0], Vec3::X * speeds[1]);
    (left.friction, right.friction) = (0.0, 0.0);
    solver.set_bodies(&[left, right]).unwrap();
    let before = solver.bodies().iter().map(BodyState::momentum).sum::<Vec3>();
    run(&mut solver, 30);
    let common = (masses[0] * speeds[0] + masses[1] * speeds[1]) / (masses[0] + masses[1]);
    for body in solver.bodies() {
        assert!((body.velocity.x / common - 1.0).abs() < 0.01, "{body:?}, common {common}");
        assert!(body.angular_velocity.length() < 1e-4, "{body:?}");
    }
    let after = solver.bodies().iter().map(BodyState::momentum).sum::<Vec3>();
    assert!((after - before).length() < 1e-5 * before.length().max(1.0), "momentum {before} → {after}");
}

/// The highest a body's centre rises in `frames` frames after its first landing (its vertical
/// velocity turning up), and its fastest rise then.
fn rebound(solver: &mut CpuSolver, body: usize, frames: usize) -> (f32, f32) {
    let (mut landed, mut apex, mut rise) = (false, f32::MIN, f32::MIN);
    for _ in 0..frames {
        let falling = solver.bodies()[body].velocity.y;
        solver.step();
        let now = solver.bodies()[body];
        landed |= now.velocity.y > falling;
        if landed {
            apex = largest([apex, now.position.y]);
            rise = largest([rise, now.velocity.y]);
        }
    }
    (apex, rise)
}

/// A ball and a box dropped flat 0.8 m onto the ground rise again to `e²` of the drop, their
/// restitution's law (`v' = −e v`, XPBD §3.6; within 3 %: 1.1 % short was measured, the
/// landing substep's speed taken before its gravity), and without restitution stay down: no
/// rise after landing (under 1 mm/s), flat or tilted (a box landing flat rose at 0.4 m/s when
/// only the positions met the ground). The GPU follows the reference through the bounces.
#[test]
fn bodies_rebound_from_the_ground_by_their_restitution() {
    let model = sheet(3, 0.1, Vec3::new(5.0, 3.0, 0.0), &[0, 2, 6, 8]);
    let colliders = [Collider::ground(0.0)];
    let half_extents = Vec3::new(0.2, 0.1, 0.15);
    let (drop, restitutions) = (0.8, [0.8, 0.5, 0.0, 0.0]);
    // Each body's centre where it rests, and the body dropped from `drop` above that.
    let rests = [0.1, half_extents.y, half_extents.y, half_extents.y];
    let dropped = |k: usize, shape: BodyShape, rotation: Quat| {
        let pose = Pose { translation: Vec3::new(k as f32, drop + rests[k], 0.0), rotation };
        RigidBody { restitution: restitutions[k], ..RigidBody::new(shape, BodyMass::Mass(1.0), pose) }
    };
    let flat = BodyShape::Box { half_extents };
    let bodies = [
        dropped(0, BodyShape::Sphere { radius: 0.1 }, Quat::IDENTITY),
        dropped(1, flat, Quat::IDENTITY),
        dropped(2, flat, Quat::IDENTITY),
        dropped(3, flat, Quat::from_rotation_z(0.05)),
    ];
    for (k, e) in restitutions.into_iter().enumerate() {
        let mut cpu = CpuSolver::new(&model, SolverParams::default(), &colliders).unwrap();
        cpu.set_bodies(&bodies[k..=k]).unwrap();
        let (apex, rise) = rebound(&mut cpu, 0, 80);
        if e > 0.0 {
            let ratio = (apex - rests[k]) / drop;
            assert!((ratio / (e * e) - 1.0).abs() < 0.03, "body {k}: rose to {ratio} of the drop for e = {e}");
        } else {
            assert!(rise < 1e-3, "body {k}: rose at {rise} m/s without restitution");
        }
    }
    let (device, queue) = device();
    let mut cpu = CpuSolver::new(&model, SolverParams::default(), &colliders).unwrap();
    cpu.set_bodies(&bodies).unwrap();
    let mut gpu = GpuSolver::new(&device, &queue, &model, SolverParams::default(), &colliders).unwrap();
    gpu.set_bodies(&bodies).unwrap();
    for _ in 0..40 {
        cpu.step();
        gpu.step();
    }
    assert_follows(&mut gpu, &cpu, "bounces");
}

/// A box meeting a larger one face on in zero gravity, frictionless, slightly off its centre:
/// they part at `e` times the speed they closed at (Newton's law of restitution along the
/// normal; within 2 % of the closing speed: a rest of 0.012 of 1.5 m/s at e = 0, where the
/// positions alone parted them at 0.24, each corner's push turning the box into the next), and
/// keep momentum (1e-5) and angular momentum (1e-4 kg·m²/s), the contacts' velocity impulses
/// acting at one point for both.
#[test]
fn boxes_meeting_face_on_part_by_their_restitution() {
    let model = sheet(3, 0.1, Vec3::new(0.0, 5.0, 0.0), &[0, 2, 6, 8]);
    let params = SolverParams { gravity: Vec3::ZERO, ..Default::default() };
    let closing = 1.5;
    for e in [0.0, 0.5, 1.0] {
        let mut solver = CpuSolver::new(&model, params, &[]).unwrap();
        let placed = |x: f32, y: f32, half_extents: Vec3, speed: f32| {
            let pose = Pose { translation: Vec3::new(x, y, 0.0), ..Pose::IDENTITY };
            let body = RigidBody::new(BodyShape::Box { half_extents }, BodyMass::Mass(1.0), pose);
            RigidBody { velocity: Vec3::X * speed, friction: 0.0, restitution: e, ..body }
        };
        let small = placed(-0.3, 0.0, Vec3::splat(0.1), 0.5 * closing);
        let large = placed(0.5, 0.02, Vec3::new(0.15, 0.3, 0.3), -0.5 * closing);
        solver.set_bodies(&[small, large]).unwrap();
        let before = momenta(&solver);
        run(&mut solver, 60);
        let bodies = solver.bodies();
        let parting = bodies[1].velocity.x - bodies[0].velocity.x;
        assert!((parting - e * closing).abs() < 0.02 * closing, "e = {e}: parted at {parting} m/s");
        let after = momenta(&solver);
        assert!((after.0 - before.0).length() < 1e-5, "e = {e}: momentum {} → {}", before.0, after.0);
        assert!((after.1 - before.1).length() < 1e-4, "e = {e}: angular momentum {} → {}", before.1, after.1);
    }
}

/// Bodies resting on each other on the ground, at the heights their shapes say (1 mm): a box on
/// a wider box (its corners on the other's face: a box meets another at corners, so one of the
/// same footprint meets it edge on edge), a ball on the upper box, and a capsule crossed over
/// another (their axes' nearest points, in their middles).
#[test]
fn bodies_rest_on_each_other() {
    let model = sheet(3, 0.1, Vec3::new(5.0, 3.0, 0.0), &[0, 2, 6, 8]);
    let mut solver = CpuSolver::new(&model, SolverParams::default(), &[Collider::ground(0.0)]).unwrap();
    solver.set_bodies(&stack()).unwrap();
    run(&mut solver, 120);
    assert_at_rest(solver.bodies(), &[0.1, 0.3, 0.5, 0.05, 0.15]);
}

/// Boxes stacked on the ground come to rest: a cube on a larger cube, square to it or turned 45°
/// about the vertical, after 4 s slides slower than 0.1 mm/s and turns slower than 1e-3 rad/s
/// (measured: µm/s and 1e-5 rad/s; when each pair's pushes tilted the lower cube with nothing
/// holding it and the pair's friction dragged the upper one along, they still slid at 1 cm/s,
/// or the turned one drifted off). Three cubes, each turned on the one below, stay stacked after
/// 10 s, turning together slower than 1e-3 rad/s (3.4e-4 measured: the middle cube's tilt from
/// the top pair's pushes is not levelled before their friction).
#[test]
fn stacked_boxes_come_to_rest() {
    let model = sheet(3, 0.1, Vec3::new(5.0, 3.0, 0.0), &[0, 2, 6, 8]);
    let cube = |y: f32, half: f32, turn: f32| {
        let pose = Pose { translation: Vec3::Y * y, rotation: Quat::from_rotation_y(turn) };
        RigidBody::new(BodyShape::Box { half_extents: Vec3::splat(half) }, BodyMass::Mass(1.0), pose)
    };
    let quarter = std::f32::consts::FRAC_PI_4;
    let stacks = [
        (vec![cube(0.1, 0.1, 0.0), cube(0.27, 0.07, 0.0)], 240, 1e-4),
        (vec![cube(0.1, 0.1, 0.0), cube(0.27, 0.07, quarter)], 240, 1e-4),
        (vec![cube(0.1, 0.1, 0.0), cube(0.27, 0.07, 0.3), cube(0.39, 0.05, 0.7)], 600, 1e-3),
    ];
    for (bodies, frames, slowest) in stacks {
        let mut solver = CpuSolver::new(&model, SolverParams::default(), &[Collider::ground(0.0)]).unwrap();
        solver.set_bodies(&bodies).unwrap();
        run(&mut solver, frames);
        for body in solver.bodies() {
            let (speed, spin) = (body.velocity.length(), body.angular_velocity.length());
            assert!(speed < slowest && spin < 1e-3, "{} high: {speed} m/s, {spin} rad/s: {body:?}", bodies.len());
        }
        let heights: Vec<f32> = bodies.iter().map(|body| body.pose.translation.y).collect();
        assert_at_rest(solver.bodies(), &heights);
    }
}

/// Two balls dropped side by side, touching, with restitution 0.8: each rises again to `e²` of
/// the drop (within 3 %). The pair pushes each sideways after the ground has pushed it out, and
/// each meets the ground again: the landing's restitution stays whole through both meetings.
#[test]
fn balls_landing_side_by_side_rebound_by_their_restitution() {
    let model = sheet(3, 0.1, Vec3::new(5.0, 3.0, 0.0), &[0, 2, 6, 8]);
    let (radius, drop, e) = (0.1, 0.8, 0.8);
    let dropped = |x: f32| RigidBody { restitution: e, ..ball(radius, 1.0, Vec3::new(x, radius + drop, 0.0)) };
    let mut solver = CpuSolver::new(&model, SolverParams::default(), &[Collider::ground(0.0)]).unwrap();
    solver.set_bodies(&[dropped(-radius + 1e-4), dropped(radius - 1e-4)]).unwrap();
    for body in 0..2 {
        let mut again = solver.clone();
        let (apex, _) = rebound(&mut again, body, 80);
        let ratio = (apex - radius) / drop;
        assert!((ratio / (e * e) - 1.0).abs() < 0.03, "ball {body}: rose to {ratio} of the drop for e = {e}");
    }
}

/// A box thrown spinning (6 rad/s) and at a slant across a larger box in zero gravity, friction
/// 0.8 between them: the pair's pushes and their friction, each acting at one point on both
/// bodies, keep the two boxes' momentum (1e-5 relative) and their angular momentum about the
/// origin but for the moments' arms moving within each substep (2e-3 relative; measured 1.2e-3
/// at 10 substeps and 3.9e-4 at 40, of which the spinning box's own first-order turn gives
/// 1.6e-4 and 4.4e-5 alone); and the friction does act (the thrown box's spin changes).
#[test]
fn a_box_rubbing_across_a_box_keeps_momentum_and_angular_momentum() {
    let model = sheet(3, 0.1, Vec3::new(0.0, 5.0, 0.0), &[0, 2, 6, 8]);
    let params = SolverParams { gravity: Vec3::ZERO, damping: 0.0, ..Default::default() };
    let placed = |translation: Vec3| Pose { translation, rotation: Quat::from_rotation_y(0.3) };
    let plate = RigidBody {
        friction: 0.8,
        ..RigidBody::new(
            BodyShape::Box { half_extents: Vec3::new(0.5, 0.05, 0.4) },
            BodyMass::Mass(3.0),
            placed(Vec3::ZERO),
        )
    };
    let thrown = RigidBody {
        friction: 0.8,
        velocity: Vec3::new(1.0, -0.5, 0.2),
        angular_velocity: Vec3::new(0.5, 6.0, -1.0),
        ..RigidBody::new(
            BodyShape::Box { half_extents: Vec3::new(0.1, 0.05, 0.1) },
            BodyMass::Mass(1.0),
            placed(Vec3::new(-0.3, 0.14, 0.05)),
        )
    };
    let mut solver = CpuSolver::new(&model, params, &[]).unwrap();
    solver.set_bodies(&[plate, thrown]).unwrap();
    let (linear, angular) = momenta(&solver);
    run(&mut solver, 30);
    let (linear_after, angular_after) = momenta(&solver);
    let linear_error = (linear_after - linear).length() / linear.length();
    let angular_error = (angular_after - angular).length() / angular.length();
    assert!(linear_error < 1e-5, "momentum {linear} → {linear_after} ({linear_error:e})");
    assert!(angular_error < 2e-3, "angular momentum {angular} → {angular_after} ({angular_error:e})");
    let spun = solver.bodies()[1].angular_velocity.distance(thrown.angular_velocity);
    assert!(spun > 0.1, "the friction left the spin at {:?}", solver.bodies()[1].angular_velocity);
}

/// That each of `bodies` rests with its centre at its height in `heights` (1 mm), slower than
/// 1 cm/s.
fn assert_at_rest(bodies: &[BodyState], heights: &[f32]) {
    assert_eq!(bodies.len(), heights.len());
    for (body, &height) in bodies.iter().zip(heights) {
        assert!((body.position.y - height).abs() < 1e-3, "at {} for {height}: {body:?}", body.position.y);
        assert!(body.velocity.length() < 1e-2, "{body:?}");
    }
}

/// A box dropped flat 0.5 m onto a wider box lying on the ground, no restitution: after
/// landing it does not rise (under 1 mm/s), the pair's contacts found on the bodies as the pairs
/// met them, after the ground had pushed the lower one up.
#[test]
fn a_box_dropped_onto_a_box_stays_down_without_restitution() {
    let model = sheet(3, 0.1, Vec3::new(5.0, 3.0, 0.0), &[0, 2, 6, 8]);
    let mut solver = CpuSolver::new(&model, SolverParams::default(), &[Collider::ground(0.0)]).unwrap();
    let placed = |y: f32, half_extents: Vec3| {
        let pose = Pose { translation: Vec3::Y * y, ..Pose::IDENTITY };
        RigidBody::new(BodyShape::Box { half_extents }, BodyMass::Mass(1.0), pose)
    };
    solver.set_bodies(&[placed(0.1, Vec3::new(0.3, 0.1, 0.3)), placed(0.75, Vec3::new(0.15, 0.05, 0.15))]).unwrap();
    let (_, rise) = rebound(&mut solver, 1, 80);
    assert!(rise < 1e-3, "rose at {rise} m/s without restitution");
    assert_at_rest(solver.bodies(), &[0.1, 0.25]);
}

/// Where bodies meet each other (the stack, and a ball dropped onto the upper capsule, and two
/// balls meeting in the air and bouncing apart, restitution 0.7), the GPU follows the reference
/// over 20 frames.
#[test]
fn the_gpu_follows_the_reference_where_bodies_meet() {
    let model = sheet(3, 0.1, Vec3::new(5.0, 3.0, 0.0), &[0, 2, 6, 8]);
    let colliders = [Collider::ground(0.0)];
    let mut thrown = [ball(0.08, 0.4, Vec3::new(-1.0, 1.0, 0.0)), ball(0.1, 0.6, Vec3::new(-0.7, 1.0, 0.05))];
    (thrown[0].velocity, thrown[1].velocity) = (Vec3::new(3.0, 1.0, 0.0), Vec3::new(-2.0, 1.0, 0.0));
    (thrown[0].restitution, thrown[1].restitution) = (0.7, 0.7);
    let bodies: Vec<RigidBody> =
        stack().into_iter().chain([ball(0.06, 0.3, Vec3::new(1.5, 0.45, 0.0))]).chain(thrown).collect();
    let (mut gpu, cpu) = both_run(&model, &colliders, &bodies, 20);
    assert_follows(&mut gpu, &cpu, "stack");
}

/// The GPU and the reference, each given `model`, `colliders` and `bodies` with the default
/// parameters, after `frames` frames.
fn both_run(model: &ClothModel, colliders: &[Collider], bodies: &[RigidBody], frames: usize) -> (GpuSolver, CpuSolver) {
    let (device, queue) = device();
    let mut cpu = CpuSolver::new(model, SolverParams::default(), colliders).unwrap();
    cpu.set_bodies(bodies).unwrap();
    run(&mut cpu, frames);
    let mut gpu = GpuSolver::new(&device, &queue, model, SolverParams::default(), colliders).unwrap();
    gpu.set_bodies(bodies).unwrap();
    for _ in 0..frames {
        gpu.step();
    }
    (gpu, cpu)
}

/// `count` sticks of `shape`, 1 m long, crossed and stacked 2 cm apart over the ground: every
/// pair's bounding balls meet.
fn pile(count: usize, shape: BodyShape) -> Vec<RigidBody> {
    (0..count)
        .map(|k| {
            let pose = Pose {
                translation: Vec3::new(0.0, 0.006 + 0.0215 * k as f32, 0.0),
                rotation: Quat::from_rotation_y(0.7 * k as f32) * Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
            };
            RigidBody::new(shape, BodyMass::Mass(0.2), pose)
        })
        .collect()
}

/// A pile of 48 crossed sticks, every pair's bounding balls meeting (1128 pairs): past the GPU's
/// list of pairs in reach (1024, `pairs::REACH_CAPACITY`) its pushes, their replay for the
/// friction and its velocity sweeps visit every pair, and it still follows the reference as the
/// lowest five land on one another (a resting stick's contact found on one side and not the
/// other, by rounding, put them 0.07 m/s apart before `PAIR_CONTACT_SLOP`). As capsules, and as
/// thin boxes, whose corners cost the pairs' pass more loop passes than llvmpipe gives one
/// invocation: split over dispatches there, nothing is cut short.
#[test]
fn the_gpu_follows_the_reference_past_its_list_of_pairs_in_reach() {
    let model = sheet(3, 0.1, Vec3::new(5.0, 3.0, 0.0), &[0, 2, 6, 8]);
    let colliders = [Collider::ground(0.0)];
    // Two boxes meet at their corners only (README), so crossed boxes pass through each other.
    let shapes = [
        ("capsules", BodyShape::Capsule { radius: 0.005, half_length: 0.5 }, true),
        ("boxes", BodyShape::Box { half_extents: Vec3::new(0.005, 0.5, 0.005) }, false),
    ];
    for (case, shape, stacking) in shapes {
        let (mut gpu, cpu) = both_run(&model, &colliders, &pile(48, shape), 6);
        let heights: Vec<f32> = cpu.bodies().iter().take(5).map(|stick| stick.position.y).collect();
        for (k, pair) in heights.windows(2).enumerate().filter(|_| stacking) {
            let gap = pair[1] - pair[0] - 0.01;
            assert!(gap.abs() < 1e-3, "{case}: stick {} does not lie on stick {k}: {heights:?}", k + 1);
        }
        assert_follows(&mut gpu, &cpu, case);
        assert_eq!(gpu.overflows().unwrap().bodies, 0, "{case}: the pairs' pass was cut short");
    }
}

/// Bodies add six dispatches a substep: on a GPU whatever their number, and on a CPU adapter
/// while their pairs stay within llvmpipe's loop limit. There, the last is split in two for a
/// pile of 48 capsules that might all be in reach of one another, and into its eleven phases
/// for 48 boxes, whose pairs cost more.
#[test]
fn bodies_add_six_dispatches_a_substep_split_on_a_cpu_adapter_for_a_pile() {
    let (device, queue) = device();
    let model = sheet(3, 0.1, Vec3::new(5.0, 3.0, 0.0), &[0, 2, 6, 8]);
    let params = SolverParams::default();
    let substeps = params.substeps as usize;
    let mut gpu = GpuSolver::new(&device, &queue, &model, params, &[Collider::ground(0.0)]).unwrap();
    let bare = gpu.dispatches_per_frame();
    let balls: Vec<RigidBody> = (0..8).map(|k| ball(0.1, 1.0, Vec3::new(k as f32, 1.0, 0.0))).collect();
    gpu.set_bodies(&balls).unwrap();
    assert_eq!(gpu.dispatches_per_frame(), bare + 6 * substeps, "eight balls");
    let cpu = device.adapter_info().device_type == wgpu::DeviceType::Cpu;
    let piles = [
        ("capsules", BodyShape::Capsule { radius: 0.005, half_length: 0.5 }, 1),
        ("boxes", BodyShape::Box { half_extents: Vec3::new(0.005, 0.5, 0.005) }, 10),
    ];
    for (case, shape, split) in piles {
        gpu.set_bodies(&pile(48, shape)).unwrap();
        let added = if cpu { 6 + split } else { 6 };
        assert_eq!(gpu.dispatches_per_frame(), bare + added * substeps, "a pile of 48 {case}");
    }
}

/// A pile of 400 sticks (79800 pairs in reach) is more than one invocation of llvmpipe can walk
/// even a phase at a time: the solver counts the invocations cut short
/// ([`drape::Overflows::bodies`]) instead of going silently wrong. A GPU has no such limit.
#[test]
fn a_pile_past_a_cpu_drivers_loop_limit_is_counted() {
    let (device, queue) = device();
    let model = sheet(3, 0.1, Vec3::new(5.0, 3.0, 0.0), &[0, 2, 6, 8]);
    let params = SolverParams { substeps: 1, ..Default::default() };
    let mut gpu = GpuSolver::new(&device, &queue, &model, params, &[Collider::ground(0.0)]).unwrap();
    gpu.set_bodies(&pile(400, BodyShape::Capsule { radius: 0.005, half_length: 0.5 })).unwrap();
    gpu.step();
    let cut_short = gpu.overflows().unwrap().bodies;
    if device.adapter_info().device_type == wgpu::DeviceType::Cpu {
        assert!(cut_short > 0, "no invocation counted as cut short");
    } else {
        assert_eq!(cut_short, 0);
    }
}

/// The stacking test's bodies: a box on a wider box with a ball on it, and two crossed capsules.
fn stack() -> [RigidBody; 5] {
    let he = Vec3::new(0.2, 0.1, 0.2);
    let placed = |x: f32, y: f32, rotation: Quat| Pose { translation: Vec3::new(x, y, 0.0), rotation };
    let block = |y, half_extents| {
        RigidBody::new(BodyShape::Box { half_extents }, BodyMass::Mass(2.0), placed(0.0, y, Quat::IDENTITY))
    };
    let capsule = |y, rotation| {
        RigidBody::new(
            BodyShape::Capsule { radius: 0.05, half_length: 0.3 },
            BodyMass::Mass(1.0),
            placed(1.5, y, rotation),
        )
    };
    let along_x = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let along_z = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
    [
        block(0.12, he),
        block(0.33, Vec3::new(0.12, 0.1, 0.12)),
        ball(0.1, 0.5, Vec3::new(0.02, 0.55, 0.0)),
        capsule(0.06, along_x),
        capsule(0.2, along_z),
    ]
}

/// `add_body` adds a body to running ones, its buffer grown and the others' records copied on the
/// GPU: the body already there goes on bit for bit as in a solver given none, and the GPU
/// follows the reference that added the same body at the same frame.
#[test]
fn an_added_body_leaves_the_others_as_they_move() {
    let (device, queue) = device();
    let model = sheet(6, 0.05, Vec3::ZERO, &[0, 5, 30, 35]);
    let first = ball(0.05, 0.3, Vec3::new(0.1, 0.3, 0.1));
    let added = ball(0.08, 0.5, Vec3::new(3.0, 1.0, 0.0));
    let params = SolverParams::default();
    let mut plain = GpuSolver::new(&device, &queue, &model, params, &[]).unwrap();
    let mut grown = GpuSolver::new(&device, &queue, &model, params, &[]).unwrap();
    let mut cpu = CpuSolver::new(&model, params, &[]).unwrap();
    plain.set_bodies(&[first]).unwrap();
    grown.set_bodies(&[first]).unwrap();
    cpu.set_bodies(&[first]).unwrap();
    for frame in 0..16 {
        if frame == 8 {
            grown.add_body(&added).unwrap();
            cpu.add_body(&added).unwrap();
        }
        plain.step();
        grown.step();
        cpu.step();
    }
    let (alone, together) = (plain.read_bodies().unwrap(), grown.read_bodies().unwrap());
    assert_eq!(together.len(), 2);
    assert_eq!(alone[0], together[0], "adding a body moved the first");
    assert_eq!(plain.read_positions().unwrap(), grown.read_positions().unwrap(), "adding a body moved the cloth");
    assert_follows(&mut grown, &cpu, "added");
    let mut bad = added;
    bad.mass = BodyMass::Mass(-1.0);
    assert!(grown.add_body(&bad).is_err() && cpu.add_body(&bad).is_err());
    assert_eq!(grown.read_bodies().unwrap().len(), 2);
}

/// The times `values` (one per frame, `dt` apart) cross zero, each found between its two frames
/// by a straight line.
fn zero_crossings(values: &[f32], dt: f64) -> Vec<f64> {
    (1..values.len())
        .filter(|&k| (values[k - 1] > 0.0) != (values[k] > 0.0))
        .map(|k| {
            let (a, b) = (f64::from(values[k - 1]), f64::from(values[k]));
            dt * ((k - 1) as f64 + a / (a - b))
        })
        .collect()
}

/// The period of a swing crossing zero at `crossings`: twice their mean spacing.
fn swing_period(crossings: &[f64]) -> f64 {
    assert!(crossings.len() >= 3, "it swung through only {} times", crossings.len());
    2.0 * (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64
}

/// A pendulum's period at amplitude `theta` (rad) over its small swings' `small` (s), to fourth
/// order: `T₀(1 + θ²/16 + 11θ⁴/3072)`.
fn at_amplitude(small: f64, theta: f64) -> f64 {
    small * (1.0 + theta * theta / 16.0 + 11.0 * theta.powi(4) / 3072.0)
}

/// A pinned sheet far from the bodies (the ropes' tests need no cloth).
fn far_sheet() -> ClothModel {
    sheet(3, 0.1, Vec3::new(5.0, 0.0, 0.0), &[0, 2, 6, 8])
}

/// A ball on a 1 m rope tied to its centre, let go 0.2 rad out, at `substeps` substeps: the
/// measured and the expected period (s), and the fraction of its amplitude lost in three
/// periods. Its rope stays taut (its centre within 1e-4 m of 1 m from the anchor at every
/// frame's end).
fn rope_pendulum(substeps: u32) -> (f64, f64, f32) {
    let params = SolverParams { damping: 0.0, substeps, ..Default::default() };
    let mut solver = CpuSolver::new(&far_sheet(), params, &[]).unwrap();
    let (anchor, length, theta) = (Vec3::new(0.0, 2.0, 0.0), 1.0_f32, 0.2_f32);
    let start = anchor + Vec3::new(theta.sin(), -theta.cos(), 0.0) * length;
    solver.set_bodies(&[ball(0.05, 1.0, start)]).unwrap();
    solver.set_body_ropes(&[BodyRope { body: 0, point: Vec3::ZERO, anchor, length }]).unwrap();
    let g = f64::from(params.gravity.length());
    let period = at_amplitude(std::f64::consts::TAU * (f64::from(length) / g).sqrt(), f64::from(theta));
    let dt = f64::from(params.time_step);
    let frames = (3.2 * period / dt) as usize;
    let mut xs = Vec::new();
    for frame in 0..frames {
        solver.step();
        let center = solver.bodies()[0].position;
        let off = (center.distance(anchor) - length).abs();
        assert!(off < 1e-4, "{substeps} substeps, frame {frame}: the rope is {off} m off its length");
        xs.push(center.x);
    }
    let last_swing = xs.iter().skip((2.5 * period / dt) as usize).map(|x| x.abs());
    let amplitude = largest(last_swing);
    (swing_period(&zero_crossings(&xs, dt)), period, 1.0 - amplitude / start.x)
}

/// A ball on a rope swings with a simple pendulum's period `2π√(L/g)` (at its amplitude, 0.2 %)
/// and keeps its swing but for the position-based integrator's damping, which is first order in
/// the substep: it loses under 6 % of its amplitude in three periods at 10 substeps (4.3 % was
/// measured: the energy `(ωh)²` of the swing's each substep), and at most 0.6 × that at 20.
#[test]
fn a_ball_on_a_rope_swings_as_a_pendulum() {
    let (measured, period, lost) = rope_pendulum(10);
    assert!((measured / period - 1.0).abs() < 2e-3, "period {measured} s against {period} s");
    assert!(lost < 0.06, "the swing lost {lost} of its amplitude in three periods");
    let (measured, period, finer) = rope_pendulum(20);
    assert!((measured / period - 1.0).abs() < 2e-3, "period {measured} s against {period} s at 20 substeps");
    assert!(finer < 0.6 * lost, "halving the substep took the loss from {lost} only to {finer}");
}

/// A bar (0.1 × 0.5 × 0.1 m, 2 kg) held at the middle of its top face by a rope of length zero
/// swings about that point as a physical pendulum, `T = 2π√(I_p/(m g d))` with `I_p` its moment
/// about the pivot and `d` the pivot's distance from its centre (0.3 %), the pivot held (1e-4 m):
/// the rope's pull turns the body as well as moving it.
#[test]
fn a_bar_held_at_one_end_swings_as_a_physical_pendulum() {
    let params = SolverParams { damping: 0.0, ..Default::default() };
    let mut solver = CpuSolver::new(&far_sheet(), params, &[]).unwrap();
    let (half_extents, mass, theta) = (Vec3::new(0.05, 0.25, 0.05), 2.0_f32, 0.2_f32);
    let (anchor, top) = (Vec3::new(0.0, 2.0, 0.0), Vec3::new(0.0, half_extents.y, 0.0));
    let rotation = Quat::from_rotation_z(theta);
    let pose = Pose { translation: anchor - rotation * top, rotation };
    solver.set_bodies(&[RigidBody::new(BodyShape::Box { half_extents }, BodyMass::Mass(mass), pose)]).unwrap();
    solver.set_body_ropes(&[BodyRope { body: 0, point: top, anchor, length: 0.0 }]).unwrap();
    let (g, d) = (f64::from(params.gravity.length()), f64::from(half_extents.y));
    let (hx, hy) = (f64::from(half_extents.x), f64::from(half_extents.y));
    let about_pivot = f64::from(mass) * ((hx * hx + hy * hy) / 3.0 + d * d);
    let small = std::f64::consts::TAU * (about_pivot / (f64::from(mass) * g * d)).sqrt();
    let period = at_amplitude(small, f64::from(theta));
    let frames = (3.2 * period / f64::from(params.time_step)) as usize;
    let mut xs = Vec::new();
    for frame in 0..frames {
        solver.step();
        let bar = solver.bodies()[0];
        let off = bar.pose().to_world(top).distance(anchor);
        assert!(off < 1e-4, "frame {frame}: the pivot is {off} m off its anchor");
        xs.push(bar.position.x);
    }
    let measured = swing_period(&zero_crossings(&xs, f64::from(params.time_step)));
    assert!((measured / period - 1.0).abs() < 3e-3, "period {measured} s against {period} s");
}

/// A slack rope does nothing: a ball 0.5 m under the anchor of its 1 m rope falls as semi-implicit
/// Euler puts it (1e-5 m) until the rope is taut, then hangs at the rope's length (1e-4 m),
/// still.
#[test]
fn a_slack_rope_lets_its_ball_fall_until_taut() {
    let params = SolverParams { damping: 0.0, ..Default::default() };
    let mut solver = CpuSolver::new(&far_sheet(), params, &[]).unwrap();
    let (anchor, start) = (Vec3::new(0.0, 2.0, 0.0), 1.5_f64);
    solver.set_bodies(&[ball(0.05, 1.0, Vec3::new(0.0, start as f32, 0.0))]).unwrap();
    solver.set_body_ropes(&[BodyRope { body: 0, point: Vec3::ZERO, anchor, length: 1.0 }]).unwrap();
    let (g, h) = (f64::from(params.gravity.length()), f64::from(params.substep_dt()));
    for frame in 1..=15 {
        solver.step();
        let n = f64::from(frame * params.substeps);
        let expected = start - g * h * h * n * (n + 1.0) / 2.0;
        let y = f64::from(solver.bodies()[0].position.y);
        assert!((y - expected).abs() < 1e-5, "frame {frame}: {y} against free fall's {expected}");
    }
    run(&mut solver, 30);
    let ball = solver.bodies()[0];
    assert!((ball.position.y - 1.0).abs() < 1e-4 && ball.velocity.length() < 1e-3, "{ball:?}");
}

/// Ropes on the GPU follow the reference: a bar swinging from a pivot, a ball falling onto its
/// slack rope and a box dragged by a rope whose anchor moves every frame (as the mouse drags
/// a body), each pressing on the sheet under them; a rerun gives the same bits, and `reset` keeps the
/// ropes.
#[test]
fn the_gpu_follows_the_reference_on_ropes() {
    let (device, queue) = device();
    let model = sheet(12, 0.1, Vec3::new(0.0, 0.8, 0.0), &[0, 11, 132, 143]);
    let tilted = Quat::from_rotation_z(0.3);
    let top = Vec3::new(0.0, 0.25, 0.0);
    // The box is grabbed at a point of its top edge, where the drag starts.
    let (turned, held, grabbed) = (Quat::from_rotation_y(0.5), Vec3::new(0.06, 0.06, 0.0), Vec3::new(0.0, 0.85, -0.3));
    let bodies = [
        RigidBody::new(
            BodyShape::Box { half_extents: Vec3::new(0.05, 0.25, 0.05) },
            BodyMass::Mass(2.0),
            Pose { translation: Vec3::new(0.3, 1.2, 0.0) - tilted * top, rotation: tilted },
        ),
        ball(0.08, 1.0, Vec3::new(-0.3, 1.1, 0.1)),
        RigidBody::new(
            BodyShape::Box { half_extents: Vec3::splat(0.06) },
            BodyMass::Mass(0.5),
            Pose { translation: grabbed - turned * held, rotation: turned },
        ),
    ];
    let ropes = |frame: usize| {
        let dragged = grabbed + Vec3::X * (0.02 * frame as f32);
        [
            BodyRope { body: 0, point: top, anchor: Vec3::new(0.3, 1.2, 0.0), length: 0.0 },
            BodyRope { body: 1, point: Vec3::ZERO, anchor: Vec3::new(-0.3, 1.6, 0.1), length: 0.85 },
            BodyRope { body: 2, point: held, anchor: dragged, length: 0.0 },
        ]
    };
    let frames = 20;
    let params = SolverParams::default();
    let mut cpu = CpuSolver::new(&model, params, &[]).unwrap();
    cpu.set_bodies(&bodies).unwrap();
    let mut touched = [0; 3];
    for frame in 0..frames {
        cpu.set_body_ropes(&ropes(frame)).unwrap();
        cpu.step();
        for (most, body) in touched.iter_mut().zip(cpu.bodies()) {
            *most = body.contacts.max(*most);
        }
    }
    let mut gpu = GpuSolver::new(&device, &queue, &model, params, &[]).unwrap();
    gpu.set_bodies(&bodies).unwrap();
    let mut reads = Vec::new();
    for run in 0..2 {
        for frame in 0..frames {
            gpu.set_body_ropes(&ropes(frame)).unwrap();
            gpu.step();
        }
        if run == 0 {
            assert_follows(&mut gpu, &cpu, "ropes");
        }
        reads.push(gpu.read_bodies().unwrap());
        gpu.reset();
    }
    assert_eq!(reads[0], reads[1], "a rerun after a reset moved the bodies");
    let bar = reads[0][0];
    assert!(bar.angular_velocity.length() > 0.1, "the bar does not swing: {bar:?}");
    assert!(touched.iter().all(|&c| c > 0), "each body hangs onto the sheet: {touched:?} contacts at most");
}

/// Ropes refuse a body that does not exist, a point or an anchor that is not finite, a negative
/// or infinite length, more than `MAX_ROPES`, and change nothing then; `set_bodies` releases
/// them.
#[test]
fn bad_body_ropes_are_refused() {
    let (device, queue) = device();
    let model = far_sheet();
    let mut cpu = CpuSolver::new(&model, SolverParams::default(), &[]).unwrap();
    let mut gpu = GpuSolver::new(&device, &queue, &model, SolverParams::default(), &[]).unwrap();
    let hung = ball(0.1, 1.0, Vec3::Y);
    let good = BodyRope { body: 0, point: Vec3::ZERO, anchor: Vec3::new(0.0, 1.5, 0.0), length: 0.5 };
    cpu.set_bodies(&[hung]).unwrap();
    gpu.set_bodies(&[hung]).unwrap();
    cpu.set_body_ropes(&[good]).unwrap();
    gpu.set_body_ropes(&[good]).unwrap();
    let cases = [
        (BodyRope { body: 1, ..good }, "body_rope.body"),
        (BodyRope { point: Vec3::NAN, ..good }, "body_rope.point"),
        (BodyRope { anchor: Vec3::INFINITY, ..good }, "body_rope.anchor"),
        (BodyRope { length: -0.1, ..good }, "body_rope.length"),
        (BodyRope { length: f32::INFINITY, ..good }, "body_rope.length"),
    ];
    for (rope, name) in cases {
        let named = |e: Error| matches!(e, Error::Param(ref p) if p.name == name);
        assert!(named(cpu.set_body_ropes(&[good, rope]).unwrap_err()), "{name}");
        assert!(named(gpu.set_body_ropes(&[good, rope]).unwrap_err()), "{name}");
    }
    let too_many = vec![good; MAX_ROPES + 1];
    let named = |e: Error| matches!(e, Error::Param(ref p) if p.name == "body_ropes");
    assert!(named(cpu.set_body_ropes(&too_many).unwrap_err()) && named(gpu.set_body_ropes(&too_many).unwrap_err()));
    for _ in 0..30 {
        cpu.step();
        gpu.step();
    }
    for y in [cpu.bodies()[0].position.y, gpu.read_bodies().unwrap()[0].position.y] {
        assert!((y - 1.0).abs() < 1e-4, "the ball hangs at {y}, not on its rope");
    }
    cpu.set_bodies(&[hung]).unwrap();
    gpu.set_bodies(&[hung]).unwrap();
    run(&mut cpu, 10);
    for _ in 0..10 {
        gpu.step();
    }
    for y in [cpu.bodies()[0].position.y, gpu.read_bodies().unwrap()[0].position.y] {
        assert!(y < 0.9, "set_bodies kept the rope: the ball at {y}");
    }
}

/// A ball spinning at 15 rad/s held at a point of its surface by a rope of length zero (a
/// ball joint), for one second at `substeps` substeps: how far the point held got from its
/// anchor at any frame's end (m), and how far its angular momentum about the anchor's vertical
/// drifted, over its start's.
fn held_spin(substeps: u32) -> (f32, f32) {
    let params = SolverParams { damping: 0.0, substeps, ..Default::default() };
    let mut solver = CpuSolver::new(&far_sheet(), params, &[]).unwrap();
    let (radius, anchor) = (0.2, Vec3::new(0.0, 1.6, 0.2));
    let mut held = ball(radius, 1.0, Vec3::new(0.0, 1.6, 0.0));
    held.angular_velocity = Vec3::new(0.0, 15.0, 3.0);
    solver.set_bodies(&[held]).unwrap();
    let point = Vec3::new(0.0, 0.0, radius);
    solver.set_body_ropes(&[BodyRope { body: 0, point, anchor, length: 0.0 }]).unwrap();
    let about_anchor = |b: &BodyState| (b.angular_momentum() - anchor.cross(b.momentum())).y;
    let start = about_anchor(&solver.bodies()[0]);
    let mut offs = Vec::new();
    for _ in 0..60 {
        solver.step();
        offs.push(solver.bodies()[0].pose().to_world(point).distance(anchor));
    }
    (largest(offs), (about_anchor(&solver.bodies()[0]) - start).abs() / start.abs())
}

/// A ball joint holds a spinning ball's point on its anchor (1e-5 m at every frame's end, where
/// a pull along the gap alone let it slip 0.14 mm), and the ball's angular momentum about the
/// anchor's vertical, which the joint's pull through the anchor and gravity's level moment leave
/// alone, keeps but for the position-based integrator's first-order error: under 10 % in a
/// second at 10 substeps (6.9 % was measured), at most 0.6 × that at 20.
#[test]
fn a_spinning_ball_held_at_its_surface_turns_about_the_point_held() {
    let (off, drift) = held_spin(10);
    assert!(off < 1e-5, "the point held got {off} m off its anchor");
    assert!(drift < 0.1, "the vertical angular momentum drifted by {drift} of it");
    let (off, finer) = held_spin(20);
    assert!(off < 1e-5, "the point held got {off} m off its anchor at 20 substeps");
    assert!(finer < 0.6 * drift, "halving the substep took the drift from {drift} only to {finer}");
}

/// `attach_within_body` attaches every free particle within the distance of the body's surface
/// where the body is: a box hovering 5 mm over a sheet's middle takes the 15 particles under its
/// bottom face (5 × 3 on a 5 cm grid) within 1 cm, at their points in its frame, on both
/// solvers; a missing body or a bad distance is a typed error.
#[test]
fn particles_within_a_distance_of_a_body_are_attached() {
    let (device, queue) = device();
    let model = sheet(21, 0.05, Vec3::ZERO, &[0, 20, 420, 440]);
    let half_extents = Vec3::new(0.12, 0.05, 0.07);
    let pose = Pose { translation: Vec3::new(0.0, 0.055, 0.0), rotation: Quat::IDENTITY };
    let hovering = RigidBody::new(BodyShape::Box { half_extents }, BodyMass::Mass(1.0), pose);
    let rest = &model.mesh().positions;
    let under: Vec<u32> = (0..rest.len() as u32)
        .filter(|&i| {
            let p = rest[i as usize];
            p.x.abs() <= half_extents.x && p.z.abs() <= half_extents.z
        })
        .collect();
    assert_eq!(under.len(), 15);
    let mut cpu = CpuSolver::new(&model, SolverParams::default(), &[]).unwrap();
    let mut gpu = GpuSolver::new(&device, &queue, &model, SolverParams::default(), &[]).unwrap();
    cpu.set_bodies(&[hovering]).unwrap();
    gpu.set_bodies(&[hovering]).unwrap();
    assert_eq!(cpu.attach_within_body(0, 0.01).unwrap(), under);
    assert_eq!(gpu.attach_within_body(0, 0.01).unwrap(), under);
    for &i in &under {
        let expected = pose.to_local(rest[i as usize]);
        assert_eq!(cpu.body_attachments().of(i as usize), Some((0, expected)));
        assert_eq!(gpu.body_attachments().of(i as usize), Some((0, expected)));
    }
    for (body, distance, name) in [(1, 0.01, "body"), (0, -0.01, "distance"), (0, f32::NAN, "distance")] {
        let named = |e: Error| matches!(e, Error::Param(ref p) if p.name == name);
        assert!(named(cpu.attach_within_body(body, distance).unwrap_err()), "{name}");
        assert!(named(gpu.attach_within_body(body, distance).unwrap_err()), "{name}");
    }
}

/// The hammock's weight on its pins: a 1.6 m canvas (1 kg/m², a stretchy knit's compliance
/// 1e-3 m/N, no bending, no tethers, damped at 5/s to settle) pinned at its corners, with a
/// 1 kg ball dropped in it, comes to rest (every speed under 1 cm/s after 7 s), and then the
/// pins' pull, found from the edges' stretch at each corner by the material's law `f = C/α`,
/// holds up the ball and the free cloth: their weight within 2 %, in both modes: Gauss-Seidel
/// at 10 iterations, Jacobi at 40, as it converges more slowly over the canvas (its stretch at
/// 10 iterations read a pull 22 % too strong, at 40 0.3 %). The damping takes its share of each
/// substep's gravity too (`v̄ = (v + hg)(1 − damping·h)`), so a damped cloth at rest hangs light
/// by `damping·h`: 0.8 % here (0.5 % was measured), 2.4 % at 20/s.
#[test]
fn the_hammock_hangs_the_balls_weight_on_its_pins() {
    let cells = 20;
    let n = cells + 1;
    let origin = Vec3::new(-0.8, 1.2, -0.8);
    let mesh = ClothMesh::grid(n, n, 1.6 / cells as f32, GridPlane::Horizontal, origin).unwrap();
    let pins = [0, cells, n * n - 1 - cells, n * n - 1];
    let model = ClothModel::new(mesh, 1.0, &pins).unwrap();
    let alpha = 1e-3;
    let free_mass: f32 =
        (model.masses().iter().enumerate()).filter(|&(i, _)| !pins.contains(&(i as u32))).map(|(_, m)| m).sum();
    for (mode, iterations) in [(MODES[0], 10), (MODES[1], 40)] {
        let mut params = SolverParams {
            mode,
            iterations,
            stretch: Stiffness::Compliance(alpha),
            compression: Stiffness::Compliance(alpha),
            bending: Stiffness::Pbd(0.0),
            damping: 5.0,
            ..Default::default()
        };
        params.tethers.enabled = false;
        let mut solver = CpuSolver::new(&model, params, &[Collider::ground(0.0)]).unwrap();
        solver.set_bodies(&[ball(0.2, 1.0, Vec3::new(0.0, 1.6, 0.0))]).unwrap();
        run(&mut solver, 420);
        let ball = solver.bodies()[0];
        let fastest = largest(solver.velocities.iter().map(|v| v.length()).chain([ball.velocity.length()]));
        assert!(fastest < 0.01, "{mode:?}: not at rest, at {fastest} m/s: {ball:?}");
        assert!(ball.position.y < 1.2, "{mode:?}: the ball is not in the hammock: {ball:?}");
        let edges = model.edges();
        let x = &solver.positions;
        let pull: f32 = (0..edges.len())
            .flat_map(|c| {
                let [a, b] = edges.particles(c);
                [(a, b), (b, a)].map(|(pin, other)| (c, pin, other))
            })
            .filter(|&(_, pin, _)| pins.contains(&pin))
            .map(|(c, pin, other)| {
                let along = x[other as usize] - x[pin as usize];
                let tension = (along.length() - edges.rest_length(c)) / alpha;
                tension * along.y / along.length()
            })
            .sum::<f32>()
            .abs();
        let weight = (1.0 + free_mass) * params.gravity.length();
        assert!((pull / weight - 1.0).abs() < 0.02, "{mode:?}: the pins pull {pull} N for a weight of {weight} N");
    }
}

/// A box lying flat on a ball, a plank lying across a bar and another across a box's rounded
/// ridge (a box turned 45°), where their corners miss the collider: each rests on its face at
/// the height the shapes give (the ball's top, the bar's or the ridge's, plus the body's half
/// height), within 1 mm and level within 0.01 rad, where corners alone let them fall through.
/// Each support is rounder than the body is thick, so the rest is stable (across a sharp
/// ridge a plank balances on a knife's edge, and the GPU's rounding and the reference's part
/// ways). The GPU follows the reference.
#[test]
fn boxes_rest_on_colliders_between_their_corners() {
    let (device, queue) = device();
    let model = far_sheet();
    let colliders = [
        Collider::sphere(Vec3::new(0.0, 0.5, 0.0), 0.5),
        Collider::capsule(Vec3::new(1.5, 0.5, 0.0), Vec3::new(2.5, 0.5, 0.0), 0.05),
        Collider::Box {
            center: Vec3::new(4.0, 0.3, 0.0),
            half_extents: Vec3::new(0.2, 0.2, 0.5),
            rotation: Quat::from_rotation_z(std::f32::consts::FRAC_PI_4),
            rounding: 0.05,
        },
    ];
    let ridge = 0.3 + 0.2 * std::f32::consts::SQRT_2 + 0.05;
    let (board, plank) = (Vec3::new(0.3, 0.05, 0.3), Vec3::new(0.05, 0.02, 0.4));
    let on = |half_extents: Vec3, center: Vec3| {
        let pose = Pose { translation: center, rotation: Quat::IDENTITY };
        RigidBody::new(BodyShape::Box { half_extents }, BodyMass::Mass(1.0), pose)
    };
    let across = Vec3::new(0.4, 0.02, 0.05);
    let bodies = [
        on(board, Vec3::new(0.0, 1.06, 0.0)),
        on(plank, Vec3::new(2.0, 0.58, 0.0)),
        on(across, Vec3::new(4.0, ridge + 0.03, 0.0)),
    ];
    let params = SolverParams::default();
    let mut cpu = CpuSolver::new(&model, params, &colliders).unwrap();
    cpu.set_bodies(&bodies).unwrap();
    let mut gpu = GpuSolver::new(&device, &queue, &model, params, &colliders).unwrap();
    gpu.set_bodies(&bodies).unwrap();
    for _ in 0..20 {
        cpu.step();
        gpu.step();
    }
    assert_follows(&mut gpu, &cpu, "round colliders");
    run(&mut cpu, 40);
    for (body, height) in cpu.bodies().iter().zip([1.0 + board.y, 0.55 + plank.y, ridge + across.y]) {
        assert!((body.position.y - height).abs() < 1e-3, "rests at {} for {height}: {body:?}", body.position.y);
        let tilt = (body.rotation * Vec3::Y).angle_between(Vec3::Y);
        assert!(tilt < 0.01, "tilted by {tilt} rad: {body:?}");
    }
}
