//! Rigid bodies as XPBD integrates them (`drape::bodies`), against what the code does not share
//! with itself: each shape's volume and inertia against an f64 integral over its volume,
//! ballistic flight, a torque-free spin's conserved angular momentum and energy, an impulse
//! that moves its point by the generalised inverse mass and keeps two bodies' momenta, and
//! typed errors for every bad body.

mod support;

use drape::{BodyMass, BodyShape, BodyState, Error, Pose, RigidBody};
use glam::{DVec3, Quat, Vec3};
use support::Rng;

/// The shapes tested: a ball, a capsule and a box of three different sides.
const SHAPES: [BodyShape; 3] = [
    BodyShape::Sphere { radius: 0.3 },
    BodyShape::Capsule { radius: 0.15, half_length: 0.2 },
    BodyShape::Box { half_extents: Vec3::new(0.1, 0.2, 0.35) },
];

/// Whether `p` lies inside `shape` (in its own frame), in f64.
fn inside(shape: &BodyShape, p: DVec3) -> bool {
    match *shape {
        BodyShape::Sphere { radius } => p.length() <= f64::from(radius),
        BodyShape::Capsule { radius, half_length } => {
            let axis = DVec3::new(0.0, p.y.clamp(-f64::from(half_length), f64::from(half_length)), 0.0);
            p.distance(axis) <= f64::from(radius)
        }
        BodyShape::Box { half_extents } => p.abs().cmple(half_extents.as_dvec3()).all(),
    }
}

/// The half extents of a box around `shape`.
fn reach(shape: &BodyShape) -> DVec3 {
    match *shape {
        BodyShape::Sphere { radius } => DVec3::splat(f64::from(radius)),
        BodyShape::Capsule { radius, half_length } => {
            DVec3::new(1.0, 0.0, 1.0) * f64::from(radius) + DVec3::Y * f64::from(radius + half_length)
        }
        BodyShape::Box { half_extents } => half_extents.as_dvec3(),
    }
}

/// Each shape's volume and principal moments per unit mass against a Monte Carlo integral in
/// f64 over two million points of a box around it: within 0.4 % (about four times the
/// integral's noise; moving the hemispheres' `2r²/5` to their centroids `3r/8` out without the
/// parallel-axis correction is 2.9 % off across this capsule's axis).
#[test]
fn each_shapes_inertia_matches_its_volume_integral() {
    let mut rng = Rng(5);
    for shape in SHAPES {
        let half = reach(&shape);
        let samples = 2_000_000;
        let (mut count, mut moments) = (0u32, DVec3::ZERO);
        for _ in 0..samples {
            let p = rng.vec().as_dvec3() * half;
            if inside(&shape, p) {
                count += 1;
                let s = p * p;
                moments += DVec3::new(s.y + s.z, s.x + s.z, s.x + s.y);
            }
        }
        let volume = 8.0 * half.x * half.y * half.z * f64::from(count) / f64::from(samples);
        let unit_inertia = moments / f64::from(count);
        let relative = |a: f64, b: f64| (a - b).abs() / b;
        assert!(
            relative(f64::from(shape.volume()), volume) < 0.004,
            "{shape:?}: volume {} against {volume}",
            shape.volume()
        );
        for axis in 0..3 {
            let (ours, integral) = (f64::from(shape.unit_inertia()[axis]), unit_inertia[axis]);
            assert!(relative(ours, integral) < 0.004, "{shape:?}, axis {axis}: {ours} against {integral}");
        }
    }
}

/// A body thrown under gravity with no constraint flies as semi-implicit Euler says: its
/// velocity `v₀ + g t` (1e-4 m/s) and its position `x₀ + v₀ t + ½ g t² + ½ g h t` (the scheme's
/// first-order term, of the opposite sign for explicit Euler; 1e-4 m) after a second of 600
/// substeps; its spin about a principal axis stays as it was.
#[test]
fn a_body_flies_ballistically() {
    let gravity = Vec3::new(0.0, -9.81, 0.0);
    let mut body = RigidBody::new(SHAPES[2], BodyMass::Density(500.0), Pose::IDENTITY);
    body.velocity = Vec3::new(3.0, 4.0, -1.0);
    body.angular_velocity = Vec3::new(0.0, 0.0, 5.0);
    let mut state = BodyState::new(&body).unwrap();
    let h = 1.0 / 600.0;
    for _ in 0..600 {
        state.predict(gravity, h);
        state.update_velocities(h);
    }
    let expected_v = body.velocity + gravity;
    assert!(state.velocity.distance(expected_v) < 1e-4, "{} against {expected_v}", state.velocity);
    let expected_x = body.velocity + 0.5 * gravity + 0.5 * gravity * h;
    assert!(state.position.distance(expected_x) < 1e-4, "{} against {expected_x}", state.position);
    assert!(state.angular_velocity.distance(body.angular_velocity) < 1e-3, "{}", state.angular_velocity);
}

/// A box of three different moments spinning about a tilted axis in zero gravity (it wobbles:
/// ω moves in the body) keeps its angular momentum about the origin to first order in the
/// substep: its largest drift over two seconds shrinks 1.5–3 times with each halving of the
/// substep from 1/600 s to 1/2400 s, where it is below 1e-3 of itself (the splitting of Alg. 2
/// — the gyroscopic term at the substep's start, then the turn — is first order: 2.2e-3 at 600
/// substeps a second, 1.1e-3 at 1200, 3.8e-4 at 2400), and its
/// kinetic energy stays within 1 %.
#[test]
fn a_torque_free_spin_keeps_its_angular_momentum_to_first_order() {
    let mut body = RigidBody::new(SHAPES[2], BodyMass::Mass(2.0), Pose::IDENTITY);
    body.angular_velocity = Vec3::new(0.3, 0.5, 6.0);
    body.velocity = Vec3::new(0.2, 0.0, 0.1);
    let energy = |s: &BodyState| {
        let own = s.rotation.conjugate() * s.angular_velocity;
        0.5 * own.dot(s.inertia * own) + 0.5 * s.velocity.length_squared() / s.inverse_mass
    };
    let drifts: Vec<f32> = [600u32, 1200, 2400]
        .into_iter()
        .map(|substeps| {
            let mut state = BodyState::new(&body).unwrap();
            let (momentum, start_energy) = (state.angular_momentum(), energy(&state));
            let h = 1.0 / substeps as f32;
            let mut drift = 0f32;
            let mut turned = 0f32;
            for _ in 0..2 * substeps {
                state.predict(Vec3::ZERO, h);
                state.update_velocities(h);
                let now = (state.angular_momentum() - momentum).length() / momentum.length();
                assert!(now.is_finite(), "a non-finite angular momentum");
                drift = drift.max(now);
                turned = turned.max(state.angular_velocity.angle_between(body.angular_velocity));
            }
            let energy_drift = (energy(&state) - start_energy).abs() / start_energy;
            assert!(energy_drift < 0.01, "{substeps}: kinetic energy drifted by {energy_drift} of itself");
            assert!(turned > 0.01, "{substeps}: ω stayed put ({turned} rad): no wobble tested");
            drift
        })
        .collect();
    for pair in drifts.windows(2) {
        let ratio = pair[0] / pair[1];
        assert!((1.5..3.0).contains(&ratio), "drifts {drifts:?}: not first order");
    }
    assert!(drifts[2] < 1e-3, "drifts {drifts:?}");
}

/// A small positional impulse `λn` at a point of a turned box moves that point along `n` by
/// `w λ`, `w` the generalised inverse mass, to first order (within 1e-3 of it), for several
/// points and directions.
#[test]
fn an_impulse_moves_its_point_by_the_generalised_inverse_mass() {
    let pose = Pose {
        translation: Vec3::new(0.5, 1.0, -0.2),
        rotation: Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1),
    };
    let body = RigidBody::new(SHAPES[2], BodyMass::Mass(3.0), pose);
    let mut rng = Rng(9);
    for _ in 0..20 {
        let mut state = BodyState::new(&body).unwrap();
        let r = rng.vec() * 0.2;
        let n = rng.vec().normalize();
        let lambda = 1e-5;
        let w = state.inverse_mass_at(r, n);
        state.apply_impulse(n * lambda, r);
        // The point's displacement, from the substep's displacement and turn, `R r − r` written
        // without the cancellation of `R r` and `r`.
        let u = Vec3::new(state.turn.x, state.turn.y, state.turn.z);
        let t = 2.0 * u.cross(r);
        let moved = (state.displacement + t * state.turn.w + u.cross(t)).dot(n);
        assert!((moved - w * lambda).abs() < 1e-3 * w * lambda, "moved {moved}, w λ = {}", w * lambda);
    }
}

/// The generalised inverse mass is a property of the body, not of the frame it is written in:
/// a body turned by `R` gives at `(r, n)` what the unturned body gives at `(Rᵀr, Rᵀn)`, and a
/// sphere's is `1/m + |r × n|²/(2mr²/5)`, within 1e-5 of themselves.
#[test]
fn the_generalised_inverse_mass_turns_with_the_body() {
    let turn = Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1);
    let turned_pose = Pose { rotation: turn, ..Pose::IDENTITY };
    let turned = BodyState::new(&RigidBody::new(SHAPES[2], BodyMass::Mass(3.0), turned_pose)).unwrap();
    let straight = BodyState::new(&RigidBody::new(SHAPES[2], BodyMass::Mass(3.0), Pose::IDENTITY)).unwrap();
    let ball = BodyState::new(&RigidBody::new(SHAPES[0], BodyMass::Mass(3.0), turned_pose)).unwrap();
    let mut rng = Rng(13);
    for _ in 0..20 {
        let (r, n) = (rng.vec() * 0.3, rng.vec().normalize());
        let w = turned.inverse_mass_at(r, n);
        let w_straight = straight.inverse_mass_at(turn.inverse() * r, turn.inverse() * n);
        assert!((w - w_straight).abs() < 1e-5 * w, "{w} turned, {w_straight} straight");
        let expected = 1.0 / 3.0 + r.cross(n).length_squared() / (0.4 * 3.0 * 0.09);
        assert!((ball.inverse_mass_at(r, n) - expected).abs() < 1e-5 * expected, "the ball's");
    }
}

/// Two bodies pushed apart by opposite impulses at a shared point keep their total momentum
/// (1e-5 of the impulse's) and their angular momentum about the origin (1e-3), once their
/// velocities are updated.
#[test]
fn opposite_impulses_keep_two_bodies_momenta() {
    let h = 1.0 / 600.0;
    let a = RigidBody::new(
        SHAPES[1],
        BodyMass::Density(800.0),
        Pose { translation: Vec3::new(-0.3, 0.0, 0.0), rotation: Quat::from_rotation_z(0.4) },
    );
    let b = RigidBody::new(
        SHAPES[2],
        BodyMass::Density(300.0),
        Pose { translation: Vec3::new(0.3, 0.1, 0.0), rotation: Quat::from_rotation_y(-0.8) },
    );
    let (mut a, mut b) = (BodyState::new(&a).unwrap(), BodyState::new(&b).unwrap());
    let total =
        |a: &BodyState, b: &BodyState| (a.momentum() + b.momentum(), a.angular_momentum() + b.angular_momentum());
    let (momentum, angular) = total(&a, &b);
    a.predict(Vec3::ZERO, h);
    b.predict(Vec3::ZERO, h);
    let contact = Vec3::new(0.0, 0.05, 0.02);
    let push = Vec3::new(1.0, 0.2, -0.1) * 1e-4;
    a.apply_impulse(-push, contact - a.pose().translation);
    b.apply_impulse(push, contact - b.pose().translation);
    a.update_velocities(h);
    b.update_velocities(h);
    let (momentum_after, angular_after) = total(&a, &b);
    let impulse = push.length() / h;
    assert!((momentum_after - momentum).length() < 1e-5 * impulse, "momentum changed by {}", momentum_after - momentum);
    let scale = impulse * 0.3;
    assert!(
        (angular_after - angular).length() < 1e-3 * scale,
        "angular momentum changed by {}",
        angular_after - angular
    );
}

/// Every bad body gets a typed error: sizes that are zero, negative or not finite, a mass or
/// density that is not a finite positive number, a pose that is not finite or not a rotation,
/// velocities that are not finite, a restitution outside [0, 1].
#[test]
fn bad_bodies_get_typed_errors() {
    let good = RigidBody::new(SHAPES[0], BodyMass::Mass(1.0), Pose::IDENTITY);
    assert!(BodyState::new(&good).is_ok());
    let named = |body: RigidBody, name: &str| matches!(BodyState::new(&body), Err(Error::Param(e)) if e.name == name);
    for radius in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        assert!(named(RigidBody { shape: BodyShape::Sphere { radius }, ..good }, "body.radius"), "{radius}");
    }
    assert!(named(RigidBody { shape: BodyShape::Capsule { radius: 0.1, half_length: -0.1 }, ..good }, "body.capsule"));
    let flat = BodyShape::Box { half_extents: Vec3::new(0.1, 0.0, 0.1) };
    assert!(named(RigidBody { shape: flat, ..good }, "body.half_extents"));
    for mass in [
        BodyMass::Mass(0.0),
        BodyMass::Mass(-2.0),
        BodyMass::Density(f32::NAN),
        BodyMass::Density(1e-45),
        BodyMass::Mass(f32::INFINITY),
    ] {
        assert!(named(RigidBody { mass, ..good }, "body.mass"), "{mass:?}");
    }
    // A finite mass whose inertia is not: degenerate inertia.
    let huge = BodyShape::Box { half_extents: Vec3::splat(1e3) };
    assert!(named(RigidBody { shape: huge, mass: BodyMass::Mass(3e38), ..good }, "body.mass"));
    let nan_pose = Pose { translation: Vec3::NAN, ..Pose::IDENTITY };
    assert!(named(RigidBody { pose: nan_pose, ..good }, "body.pose"));
    let not_a_rotation = Pose { rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 2.0), ..Pose::IDENTITY };
    assert!(named(RigidBody { pose: not_a_rotation, ..good }, "body.pose"));
    assert!(named(RigidBody { angular_velocity: Vec3::NAN, ..good }, "body.velocity"));
    for restitution in [-0.1, 1.5, f32::NAN] {
        assert!(named(RigidBody { restitution, ..good }, "body.restitution"), "{restitution}");
    }
}
