//! The pure constraint functions: gradients against finite differences, conservation of linear
//! momentum, collision projections and the contact velocity response.

mod support;

use drape::collision::{contact_velocity, resolve_contacts, stick, Collider, HalfSpace, Motion, Pose};
use drape::constraints::bending::{angle_error, bending_correction, dihedral, dihedral_angle};
use drape::constraints::isometric::{curvature_vector, isometric_correction, isometric_weights};
use drape::constraints::stretch::{distance_correction, DistanceCorrection};
use drape::math::atan2;
use drape::{BendingModel, ClothMesh, ClothModel, GridPlane};
use glam::{Quat, Vec3};
use std::f32::consts::TAU;
use support::Rng;

/// Four points forming two triangles that share the edge p0–p1, bent by a random amount.
fn hinge(rng: &mut Rng) -> [Vec3; 4] {
    let p0 = rng.vec() * 0.1;
    let p1 = p0 + Vec3::new(0.5, 0.0, 0.0) + rng.vec() * 0.05;
    let p2 = p0 + Vec3::new(0.25, 0.0, 0.4) + rng.vec() * 0.1;
    let p3 = p0 + Vec3::new(0.25, 0.0, -0.4) + Vec3::new(0.0, 0.3, 0.0) * rng.next() + rng.vec() * 0.05;
    [p0, p1, p2, p3]
}

/// The signed dihedral angle in f64, written independently of the library: the angle about the
/// edge from the first triangle's outward normal to the second's, positive when the wings fold
/// towards `−n_A`.
fn oracle_angle(p: [[f64; 3]; 4]) -> f64 {
    let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let cross =
        |a: [f64; 3], b: [f64; 3]| [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let e = sub(p[1], p[0]);
    let normal_a = cross(e, sub(p[2], p[0]));
    let normal_b = cross(sub(p[3], p[0]), e);
    let sine = dot(cross(normal_a, normal_b), e) / dot(e, e).sqrt();
    sine.atan2(dot(normal_a, normal_b))
}

#[test]
fn dihedral_gradients_match_f64_finite_differences() {
    let mut rng = Rng(0x5eed);
    for _ in 0..200 {
        let p = hinge(&mut rng);
        let exact = p.map(|v| v.as_dvec3().to_array());
        let d = dihedral(p[0], p[1], p[2], p[3]).unwrap();
        assert!(
            (f64::from(d.angle) - oracle_angle(exact)).abs() < 2e-6,
            "angle {} vs {}",
            d.angle,
            oracle_angle(exact)
        );
        for i in 0..4 {
            for axis in 0..3 {
                let h = 1e-6;
                let (mut plus, mut minus) = (exact, exact);
                plus[i][axis] += h;
                minus[i][axis] -= h;
                let expected = (oracle_angle(plus) - oracle_angle(minus)) / (2.0 * h);
                let got = f64::from(d.gradients[i][axis]);
                assert!(
                    (got - expected).abs() < 1e-4 * (1.0 + expected.abs()),
                    "∂θ/∂p{i}[{axis}]: {got} vs {expected}"
                );
            }
        }
    }
}

#[test]
fn dihedral_angle_is_signed_and_zero_when_flat() {
    let flat = [Vec3::ZERO, Vec3::X, Vec3::new(0.5, 0.0, 1.0), Vec3::new(0.5, 0.0, -1.0)];
    assert_eq!(dihedral_angle(flat[0], flat[1], flat[2], flat[3]), Some(0.0));
    let up = [flat[0], flat[1], Vec3::new(0.5, 0.5, 1.0), Vec3::new(0.5, 0.5, -1.0)];
    let down = up.map(|p| p * Vec3::new(1.0, -1.0, 1.0));
    let (a, b) = (
        dihedral_angle(up[0], up[1], up[2], up[3]).unwrap(),
        dihedral_angle(down[0], down[1], down[2], down[3]).unwrap(),
    );
    assert!(a > 0.9 && (a + b).abs() < 1e-6, "mirror images fold opposite ways: {a}, {b}");
}

#[test]
fn bending_error_wraps_the_short_way_round() {
    assert!((angle_error(3.0, -3.0) - (6.0 - TAU)).abs() < 1e-6);
    assert!((angle_error(-3.0, 3.0) - (TAU - 6.0)).abs() < 1e-6);
    assert_eq!(angle_error(0.5, 0.25), 0.25);
}

#[test]
fn portable_atan2_is_within_two_ulp_of_f64() {
    let mut rng = Rng(7);
    let axes = [(0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (0.0, -1.0), (-1.0, 0.0), (-0.0, -1.0), (1.0, 1.0), (-1.0, -1.0)];
    let random = (0..20_000).map(|_| {
        let scale = 10f32.powf(rng.next() * 8.0 - 4.0);
        (rng.vec().x * scale, rng.vec().y * scale)
    });
    for (y, x) in axes.into_iter().chain(random) {
        let expected = f64::from(y).atan2(f64::from(x));
        let got = f64::from(atan2(y, x));
        // −0 counts as +0: atan2(−0, −1) = π, the same direction as f64's −π.
        let got = if y == 0.0 && x < 0.0 { expected.signum() * got } else { got };
        let ulp = f64::from(f32::EPSILON) * expected.abs().max(1e-3);
        assert!((got - expected).abs() <= 2.0 * ulp + 1e-9, "atan2({y}, {x}) = {got}, f64 {expected}");
    }
}

#[test]
fn internal_constraints_conserve_linear_momentum() {
    let mut rng = Rng(42);
    for _ in 0..100 {
        let p = hinge(&mut rng);
        let masses = [0.1 + rng.next(), 0.1 + rng.next(), 0.1 + rng.next(), 0.1 + rng.next()];
        let w = masses.map(|m| 1.0 / m);
        let bend = bending_correction(p[0], p[1], p[2], p[3], w, 2.5, 0.3, [1.0, 0.01]).unwrap();
        let momentum: Vec3 = (0..4).map(|i| bend.dp[i] * masses[i]).sum();
        assert!(momentum.length() < 1e-5, "bending changes momentum by {momentum}");
        let stretch = distance_correction(p[0], p[2], w[0], w[2], 0.3, 0.0, [1.0, 0.0], [0.5, 0.0]).unwrap();
        let momentum = stretch.dp[0] * masses[0] + stretch.dp[1] * masses[2];
        assert!(momentum.length() < 1e-6, "stretch changes momentum by {momentum}");
    }
}

#[test]
fn stiff_distance_constraint_restores_rest_length() {
    let k =
        distance_correction(Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), 1.0, 3.0, 1.0, 0.0, [1.0, 0.0], [1.0, 0.0]).unwrap();
    let (a, b) = (k.dp[0], Vec3::new(2.0, 0.0, 0.0) + k.dp[1]);
    assert!((a.distance(b) - 1.0).abs() < 1e-6);
    // The lighter particle (w = 3) moves three times as far.
    assert!((k.dp[1].length() - 3.0 * k.dp[0].length()).abs() < 1e-6);
    // Compression uses its own stiffness: k = 0.5 closes half of the gap.
    let k =
        distance_correction(Vec3::ZERO, Vec3::new(0.5, 0.0, 0.0), 1.0, 1.0, 1.0, 0.0, [1.0, 0.0], [0.5, 0.0]).unwrap();
    assert!(((0.5 + k.dp[1].x - k.dp[0].x) - 0.75f32).abs() < 1e-6);
    // Degenerate input gives no correction, never a NaN.
    assert!(distance_correction(Vec3::ONE, Vec3::ONE, 1.0, 1.0, 1.0, 0.0, [1.0, 0.0], [1.0, 0.0]).is_none());
    assert!(distance_correction(Vec3::ZERO, Vec3::X, 0.0, 0.0, 2.0, 0.0, [1.0, 0.0], [1.0, 0.0]).is_none());
}

#[test]
fn a_multiplier_from_the_other_regime_is_not_reused() {
    // Stretched edge with soft stretch compliance, carrying a large multiplier accumulated while
    // it was compressed: the correction is the one a fresh multiplier gives.
    let (p0, p1) = (Vec3::ZERO, Vec3::new(1.1, 0.0, 0.0));
    let (stretch, compression) = ([1.0, 0.5], [1.0, 50.0]);
    let fresh = distance_correction(p0, p1, 1.0, 1.0, 1.0, 0.0, stretch, compression).unwrap();
    let carried = distance_correction(p0, p1, 1.0, 1.0, 1.0, 0.2, stretch, compression).unwrap();
    assert_eq!((carried.dp, carried.lambda, carried.dlambda), (fresh.dp, 0.0, fresh.dlambda));
    // Its own regime's multiplier is kept.
    let own = distance_correction(p0, p1, 1.0, 1.0, 1.0, -0.01, stretch, compression).unwrap();
    assert_eq!(own.lambda, -0.01);
    assert!(own.dlambda.abs() < fresh.dlambda.abs());
}

#[test]
fn xpbd_compliance_softens_the_correction() {
    // XPBD eq. 18 with α̃ > 0 removes the fraction w/(w + α̃) of the error in the first iteration.
    let p1 = Vec3::new(2.0, 0.0, 0.0);
    let k = distance_correction(Vec3::ZERO, p1, 1.0, 1.0, 1.0, 0.0, [1.0, 2.0], [1.0, 2.0]).unwrap();
    assert!((k.dlambda - (-1.0 / 4.0)).abs() < 1e-6);
    assert!(((p1 + k.dp[1]).x - k.dp[0].x - 1.5).abs() < 1e-6);
}

/// Strain limiting ends the edge at its bound, moving the particles by their inverse-mass
/// shares, however little the soft correction did; within the bounds, or for immovable
/// particles, it changes nothing; the multiplier stays the soft constraint's.
#[test]
fn strain_limits_clamp_the_edge_to_its_bounds_by_mass_shares() {
    use drape::constraints::stretch::{limit_strain, StrainLimits};
    let limits = StrainLimits { min: 0.9, max: 1.1 };
    let soft = [1.0, 1e6];
    let stretched = Vec3::new(2.0, 0.0, 0.0);
    let k = distance_correction(Vec3::ZERO, stretched, 1.0, 3.0, 1.0, 0.0, soft, soft).unwrap();
    assert!(k.dp[1].x.abs() < 1e-5, "the soft step alone barely moves");
    let limited = limit_strain(k, Vec3::ZERO, stretched, 1.0, 3.0, 1.0, limits);
    let (p0, p1) = (limited.dp[0], stretched + limited.dp[1]);
    assert!((p1.x - p0.x - 1.1).abs() < 1e-6, "length {}", p1.x - p0.x);
    assert!((limited.dp[1].x / limited.dp[0].x + 3.0).abs() < 1e-4, "moves by inverse-mass shares");
    assert_eq!((limited.lambda, limited.dlambda), (k.lambda, k.dlambda));
    let short = Vec3::new(0.5, 0.0, 0.0);
    let k = distance_correction(Vec3::ZERO, short, 1.0, 1.0, 1.0, 0.0, soft, soft).unwrap();
    let limited = limit_strain(k, Vec3::ZERO, short, 1.0, 1.0, 1.0, limits);
    assert!(((short + limited.dp[1]).x - limited.dp[0].x - 0.9).abs() < 1e-6);
    let within = Vec3::new(1.05, 0.0, 0.0);
    let k = distance_correction(Vec3::ZERO, within, 1.0, 1.0, 1.0, 0.0, soft, soft).unwrap();
    assert_eq!(limit_strain(k, Vec3::ZERO, within, 1.0, 1.0, 1.0, limits), k);
    let pinned = DistanceCorrection { dp: [Vec3::ZERO; 2], lambda: 0.0, dlambda: 0.0 };
    assert_eq!(limit_strain(pinned, Vec3::ZERO, stretched, 0.0, 0.0, 1.0, limits), pinned);
}

#[test]
fn bending_handles_flat_and_collinear_input() {
    let flat = [Vec3::ZERO, Vec3::X, Vec3::new(0.5, 0.0, 1.0), Vec3::new(0.5, 0.0, -1.0)];
    // A flat pair at its rest angle: no error, so no correction and no NaN.
    let k = bending_correction(flat[0], flat[1], flat[2], flat[3], [1.0; 4], 0.0, 0.0, [1.0, 0.0]).unwrap();
    assert!(k.dp.iter().all(|d| *d == Vec3::ZERO));
    // Bent out of a flat rest state, the correction is finite and points back.
    let bent = bending_correction(flat[0], flat[1], flat[2], flat[3], [1.0; 4], 0.3, 0.0, [1.0, 0.0]).unwrap();
    assert!(bent.dp.iter().all(|d| d.is_finite()) && bent.dp[2].length() > 1e-3);
    let collinear = [Vec3::ZERO, Vec3::X, Vec3::X * 2.0, Vec3::Z];
    assert!(bending_correction(collinear[0], collinear[1], collinear[2], collinear[3], [1.0; 4], 1.0, 0.0, [1.0, 0.0])
        .is_none());
}

/// Resolves a particle that starts at `x` and moves by `q` against `colliders` with `margin`.
fn resolve(x: Vec3, q: Vec3, colliders: &[Collider], margin: f32) -> Vec3 {
    let spaces: Vec<HalfSpace> = colliders.iter().map(|c| c.half_space(x, q, margin)).collect();
    x + q + resolve_contacts(x + q, &spaces).displacement()
}

#[test]
fn collisions_end_outside_every_collider() {
    let margin = 0.01;
    let ground = Collider::ground(0.0);
    let p = resolve(Vec3::new(0.3, 0.5, 0.1), Vec3::new(0.0, -0.7, 0.0), std::slice::from_ref(&ground), margin);
    assert!((p - Vec3::new(0.3, margin, 0.1)).length() < 1e-6, "{p}");
    let sphere = Collider::sphere(Vec3::ZERO, 1.0);
    let mut rng = Rng(7);
    for _ in 0..500 {
        let x = rng.vec().normalize() * (1.0 + margin + 0.5 * rng.next());
        let p = resolve(x, rng.vec() * 1.2, std::slice::from_ref(&sphere), margin);
        assert!(sphere.signed_distance(p) >= margin - 1e-6, "{p} inside");
    }
    // A sphere resting on the ground leaves a crevice around its foot: a particle that starts
    // outside both ends outside both, whatever its step (one collider after the other would push
    // it back into the first).
    let resting = [ground, Collider::sphere(Vec3::new(0.0, 0.5, 0.0), 0.5)];
    let mut crevice = 0;
    while crevice < 2000 {
        let x = Vec3::new(rng.next() * 0.3, rng.next() * 0.05, rng.next() * 0.3);
        if resting.iter().any(|c| c.signed_distance(x) < margin) {
            continue;
        }
        crevice += 1;
        let p = resolve(x, rng.vec() * 0.05, &resting, margin);
        for collider in &resting {
            assert!(collider.signed_distance(p) >= margin - 1e-6, "{p}: {}", collider.signed_distance(p));
        }
    }
}

/// A capsule around the x axis from −1 to 1 (r = 0.2) and a box turned 30° about y, rounded
/// by 0.05: the shapes of the capsule and box tests.
fn capsule_and_box() -> [Collider; 2] {
    [
        Collider::capsule(Vec3::new(-1.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0), 0.2),
        Collider::Box {
            center: Vec3::new(0.0, 1.0, 0.0),
            half_extents: Vec3::new(0.4, 0.1, 0.3),
            rotation: Quat::from_rotation_y(30f32.to_radians()),
            rounding: 0.05,
        },
    ]
}

/// Capsules and boxes measure the exact distance to their surface: against closed forms beside
/// a capsule's side and beyond its end, out of a box's face, edge and corner and inside it; and
/// the distance grows along the normal they give, at unit rate (an exact distance's gradient).
#[test]
fn capsules_and_boxes_measure_their_exact_distance() {
    let [capsule, rounded] = capsule_and_box();
    let close = |a: f32, b: f32| (a - b).abs() < 1e-6;
    assert!(close(capsule.signed_distance(Vec3::new(0.3, 0.5, 0.0)), 0.3));
    assert!(close(capsule.signed_distance(Vec3::new(1.6, 0.0, 0.8)), 0.8));
    assert!(close(capsule.signed_distance(Vec3::new(-0.5, 0.0, 0.05)), -0.15));
    let turn = Quat::from_rotation_y(30f32.to_radians());
    let local = |v: Vec3| Vec3::new(0.0, 1.0, 0.0) + turn * v;
    // Out of the top face, an edge (x and y beyond the box), a corner, and inside (nearest the
    // top face, 0.04 under it).
    assert!(close(rounded.signed_distance(local(Vec3::new(0.1, 0.5, -0.1))), 0.4 - 0.05));
    let edge = (0.2f32 * 0.2 + 0.3 * 0.3).sqrt() - 0.05;
    assert!(close(rounded.signed_distance(local(Vec3::new(0.6, 0.4, 0.0))), edge));
    let corner = (0.1f32 * 0.1 * 3.0).sqrt() - 0.05;
    assert!(close(rounded.signed_distance(local(Vec3::new(0.5, 0.2, 0.4))), corner));
    assert!(close(rounded.signed_distance(local(Vec3::new(0.0, 0.06, 0.0))), -0.04 - 0.05));
    let mut rng = Rng(11);
    for shape in capsule_and_box() {
        for _ in 0..300 {
            let p = rng.vec() * 1.5 + Vec3::new(0.0, 0.5, 0.0);
            let d = shape.signed_distance(p);
            let normal = shape.half_space(p, Vec3::ZERO, 0.0).normal;
            let step = 1e-3;
            let rate = (shape.signed_distance(p + normal * step) - d) / step;
            if d > 0.01 {
                assert!((rate - 1.0).abs() < 1e-2, "{shape:?} at {p}: the distance grows at {rate} along the normal");
            }
        }
    }
}

/// Particles moving through capsules and boxes end outside them by the margin, whatever their
/// step; and in the crevice where a box stands on the ground, particles taking substep-sized
/// steps end outside both.
#[test]
fn capsules_and_boxes_keep_particles_outside() {
    let margin = 0.01;
    let mut rng = Rng(5);
    let [capsule, rounded] = capsule_and_box();
    let standing = Collider::cuboid(Vec3::new(0.0, 0.3, 0.0), Vec3::new(0.3, 0.3, 0.2), Quat::from_rotation_y(0.4));
    let cases = [
        (vec![capsule], Vec3::new(0.0, 0.6, 0.0), 1.5, 0.8),
        (vec![rounded], Vec3::new(0.0, 0.6, 0.0), 1.5, 0.8),
        (vec![Collider::ground(0.0), standing], Vec3::new(0.0, 0.05, 0.0), 0.45, 0.05),
    ];
    for (colliders, around, spread, step) in cases {
        let mut tried = 0;
        while tried < 2000 {
            let x = around + rng.vec() * spread;
            if colliders.iter().any(|c| c.signed_distance(x) < margin) {
                continue;
            }
            tried += 1;
            let p = resolve(x, rng.vec() * step, &colliders, margin);
            for collider in &colliders {
                assert!(
                    collider.signed_distance(p) >= margin - 1e-5,
                    "{collider:?}: {p} at {}",
                    collider.signed_distance(p)
                );
            }
        }
    }
}

/// A collider's motion: poses interpolate from start to end (the shorter way round), a turning
/// and sliding surface moves its points at `Δt/h + ω × (p − t)`, a shape placed at a pose is the
/// shape seen from the pose's frame, and a still motion's half-space is the static one, bit for
/// bit.
#[test]
fn collider_motions_follow_their_poses() {
    let start = Pose { translation: Vec3::new(1.0, 0.0, 0.0), rotation: Quat::from_rotation_y(0.2) };
    let end = Pose { translation: Vec3::new(1.0, 0.3, 0.0), rotation: Quat::from_rotation_y(0.5) };
    let halfway = start.towards(&end, 0.5);
    assert!((halfway.translation - Vec3::new(1.0, 0.15, 0.0)).length() < 1e-6);
    assert!(halfway.rotation.angle_between(Quat::from_rotation_y(0.35)) < 1e-5);
    // −q is the same rotation as q: still the short way.
    let flipped = Pose { rotation: -end.rotation, ..end };
    assert!(start.towards(&flipped, 0.5).rotation.angle_between(Quat::from_rotation_y(0.35)) < 1e-5);
    let h = 0.01;
    let motion = Motion { start, end };
    let p = Vec3::new(1.5, 0.3, 0.2);
    let omega = Vec3::Y * 0.3 / h;
    let expected = Vec3::new(0.0, 0.3, 0.0) / h + omega.cross(p - end.translation);
    assert!((motion.velocity(p, h) - expected).length() < 1e-3 * expected.length(), "{}", motion.velocity(p, h));
    assert_eq!(Motion::still(end).velocity(p, h), Vec3::ZERO);
    let substeps: Vec<Motion> = (0..4).map(|k| motion.substep(k, 4)).collect();
    assert_eq!((substeps[0].start, substeps[3].end.translation), (start, end.translation));
    assert!(substeps.windows(2).all(|w| w[0].end == w[1].start), "substeps join up");
    for shape in capsule_and_box().into_iter().chain([Collider::sphere(Vec3::X, 0.3), Collider::ground(0.1)]) {
        let placed = shape.placed(&end);
        for local in [Vec3::new(0.3, -0.7, 0.9), Vec3::new(-0.2, 0.1, 0.0), Vec3::new(1.2, 0.4, -0.5)] {
            let d = placed.signed_distance(end.to_world(local)) - shape.signed_distance(local);
            assert!(d.abs() < 1e-5, "{shape:?}: {d}");
        }
        let (x, q) = (Vec3::new(0.2, 0.9, -0.1), Vec3::new(0.05, -0.8, 0.02));
        assert_eq!(Motion::default().half_space(&shape, x, q, 0.01), shape.half_space(x, q, 0.01));
    }
}

/// The broad phase's swept sphere holds the shape at every pose of its motion (sliding, turning
/// about an origin away from the shape, both), and a path meets it exactly when it passes within
/// the sphere's radius plus the reach.
#[test]
fn swept_bounds_hold_the_shape_along_its_motion() {
    let start = Pose { translation: Vec3::new(0.3, 0.0, -0.2), rotation: Quat::from_rotation_z(0.4) };
    let slide = Pose { translation: Vec3::new(1.0, 0.5, 0.0), ..start };
    let turn = Pose { rotation: Quat::from_rotation_x(2.0) * Quat::from_rotation_z(0.4), ..start };
    let both = Pose { translation: Vec3::new(-0.5, 0.2, 0.4), ..turn };
    let far_box = Collider::cuboid(Vec3::new(1.5, 0.2, 0.0), Vec3::new(0.2, 0.1, 0.3), Quat::from_rotation_y(0.7));
    for shape in capsule_and_box().into_iter().chain([Collider::sphere(Vec3::X, 0.3), far_box]) {
        for end in [start, slide, turn, both] {
            let motion = Motion { start, end };
            let swept = motion.swept_bounds(&shape).expect("a bounded shape");
            for k in 0..=20 {
                let placed = shape.placed(&start.towards(&end, k as f32 / 20.0));
                let inner = placed.bounding_sphere().unwrap();
                let outside = inner.center.distance(swept.center) + inner.radius - swept.radius;
                assert!(outside <= 1e-5, "{shape:?} to {end:?}: {outside} m outside at {k}/20");
            }
        }
    }
    assert_eq!(Motion::default().swept_bounds(&Collider::ground(0.0)), None, "a plane is unbounded");
    let ball = Collider::sphere(Vec3::ZERO, 1.0).bounding_sphere().unwrap();
    let x = Vec3::new(-2.0, 1.5, 0.0);
    assert!(ball.meets_path(x, Vec3::new(4.0, 0.0, 0.0), 0.5 + 1e-6), "the path's closest point is 1.5 m away");
    assert!(!ball.meets_path(x, Vec3::new(4.0, 0.0, 0.0), 0.5 - 1e-6));
    assert!(!ball.meets_path(x, Vec3::new(-1.0, 0.0, 0.0), 1.0), "the path leads away");
}

/// Continuous collision: a particle at 10 m/s with 10 substeps of a 60 Hz frame moves 1.67 cm
/// per substep, more than a 1 cm thick plate or bar with its 5 mm margins: it would end past
/// their middle. Straight down or at 45°, it stops on the near side, where its path entered;
/// and at a glancing 80°, where sphere tracing cannot arrive in its 16 steps, a step ending
/// inside or out through the far side stops short of the near side all the same.
#[test]
fn thin_boxes_and_bars_stop_fast_particles_where_they_enter() {
    let margin = 0.005;
    let step = 10.0 / 600.0;
    let plate = Collider::cuboid(Vec3::ZERO, Vec3::new(1.0, 0.005, 1.0), Quat::IDENTITY);
    let bar = Collider::capsule(Vec3::new(0.0, 0.0, -1.0), Vec3::new(0.0, 0.0, 1.0), 0.005);
    for shape in [plate.clone(), bar] {
        for direction in [Vec3::NEG_Y, Vec3::new(1.0, -1.0, 0.0).normalize()] {
            let x = direction * (0.0102 / direction.y);
            let q = direction * step;
            // Past the middle: the surface nearest to where it went is underneath.
            assert!((x + q).y < 0.0);
            let p = resolve(x, q, std::slice::from_ref(&shape), margin);
            assert!(p.y > 0.0 && shape.signed_distance(p) >= margin - 1e-5, "{shape:?}, {direction}: ended at {p}");
        }
    }
    let glancing = Vec3::new(80f32.to_radians().sin(), -80f32.to_radians().cos(), 0.0);
    let x = Vec3::new(-0.5, 0.012, 0.0);
    for length in [0.1, 0.15] {
        let q = glancing * length;
        // Past the middle, or out through the far side.
        assert!((x + q).y < 0.0);
        let p = resolve(x, q, std::slice::from_ref(&plate), margin);
        assert!(p.y > 0.0 && plate.signed_distance(p) >= margin - 1e-5, "glancing {length} m: ended at {p}");
    }
}

#[test]
fn a_contact_projection_is_the_closest_point_outside() {
    // Inside the ground and a wall at once: the corner of the two half-spaces, not either face.
    let spaces = [
        HalfSpace { normal: Vec3::Y, offset: 0.0 },
        HalfSpace { normal: Vec3::X, offset: 0.0 },
        HalfSpace { normal: Vec3::Z, offset: -10.0 },
    ];
    let contacts = resolve_contacts(Vec3::new(-0.2, -0.1, 0.0), &spaces);
    assert_eq!(contacts.count, 2);
    assert_eq!(contacts.displacement(), Vec3::new(0.2, 0.1, 0.0));
    // Inside only the ground, near the wall: straight up, the wall stays inactive.
    let contacts = resolve_contacts(Vec3::new(0.05, -0.1, 0.0), &spaces);
    assert_eq!((contacts.count, contacts.displacement()), (1, Vec3::new(0.0, 0.1, 0.0)));
    // A 10° wedge open towards +x (above the ground, below a tilted ceiling): pushing a point
    // beyond its edge out of the ceiling enters the ground; the closest point is the edge.
    let tilt = 10f32.to_radians();
    let ceiling = HalfSpace { normal: Vec3::new(tilt.sin(), -tilt.cos(), 0.0), offset: 0.0 };
    let contacts = resolve_contacts(Vec3::new(-0.05, 0.05, 0.0), &[spaces[0], ceiling]);
    let p = Vec3::new(-0.05, 0.05, 0.0) + contacts.displacement();
    assert!(contacts.count == 2 && p.length() < 1e-6, "the wedge's edge is the origin: {p}");
    // Three faces: the vertex.
    let corner = [spaces[0], spaces[1], HalfSpace { normal: Vec3::Z, offset: 0.0 }];
    let contacts = resolve_contacts(Vec3::new(-0.1, -0.2, -0.3), &corner);
    assert_eq!((contacts.count, contacts.displacement()), (3, Vec3::new(0.1, 0.2, 0.3)));
}

#[test]
fn spheres_stop_fast_particles_at_their_entry_point() {
    let sphere = Collider::sphere(Vec3::ZERO, 1.0);
    // Straight through the sphere in one substep: stopped on the entry side.
    let p = resolve(Vec3::new(-2.0, 0.0, 0.0), Vec3::new(4.0, 0.0, 0.0), std::slice::from_ref(&sphere), 0.0);
    assert!((p - Vec3::NEG_X).length() < 1e-5, "{p}");
    // Starting inside: pushed to the closest surface point of where it went.
    let p = resolve(Vec3::new(0.0, 0.5, 0.0), Vec3::new(0.0, 0.1, 0.0), std::slice::from_ref(&sphere), 0.0);
    assert!((p - Vec3::Y).length() < 1e-6, "{p}");
    // Starting on the surface and sliding along it: kept on the tangent plane where it started,
    // with no cancellation in the entry point.
    let x = Vec3::new(0.0, 1.0, 0.0);
    let space = sphere.half_space(x, Vec3::new(1e-4, -1e-6, 0.0), 0.0);
    assert!((space.normal - Vec3::Y).length() < 1e-6 && (space.offset - 1.0).abs() < 1e-6);
}

#[test]
fn static_friction_holds_what_the_normal_push_can() {
    let contacts = resolve_contacts(Vec3::new(0.0, -0.01, 0.0), &[HalfSpace { normal: Vec3::Y, offset: 0.0 }]);
    let q = Vec3::new(0.003, 0.0, 0.004);
    // |q_t| = 0.005 < 0.6·0.01: held; 0.4·0.01 < 0.005: slides.
    assert_eq!(stick(q, &contacts, 0.6), Vec3::ZERO);
    assert_eq!(stick(q, &contacts, 0.4), q);
}

#[test]
fn contact_velocity_applies_friction_and_restitution() {
    let (normal, depth) = (Vec3::Y, 0.001);
    let h = 0.01;
    // Friction removes at most the tangential speed, never reverses it.
    let v = contact_velocity(Vec3::new(1.0, -0.5, 0.0), Vec3::new(1.0, -3.0, 0.0), normal, depth, h, 0.5, 0.0, 0.2);
    assert!((v.x - (1.0 - 0.5 * 0.001 / h)).abs() < 1e-6 && v.y == 0.0);
    let v = contact_velocity(Vec3::new(0.01, 0.0, 0.0), Vec3::ZERO, normal, depth, h, 10.0, 0.0, 0.2);
    assert_eq!(v, Vec3::ZERO);
    // Restitution reflects the approach speed, but not slow contacts.
    let v = contact_velocity(Vec3::ZERO, Vec3::new(0.0, -3.0, 0.0), normal, depth, h, 0.0, 0.5, 0.2);
    assert!((v.y - 1.5).abs() < 1e-6);
    let v = contact_velocity(Vec3::ZERO, Vec3::new(0.0, -0.1, 0.0), normal, depth, h, 0.0, 0.5, 0.2);
    assert_eq!(v.y, 0.0);
}

/// A tether pulls its particle back onto its limit along the line to the anchor (hard), halfway
/// with compliance equal to the particle's inverse mass (XPBD, where its multiplier then holds
/// it), and never pushes.
#[test]
fn a_tether_pulls_its_particle_to_its_limit_and_never_pushes() {
    use drape::passes::tethers::tether_correction;
    let anchor = glam::Vec3::new(1.0, 2.0, 3.0);
    let p = anchor + glam::Vec3::new(0.0, -1.2, 0.0);
    let (hard, _) = tether_correction(p, anchor, 1.0, 2.0, [1.0, 0.0], 0.0);
    assert!(((p + hard).distance(anchor) - 1.0).abs() < 1e-6);
    assert!(hard.x == 0.0 && hard.z == 0.0);
    let (soft, lambda) = tether_correction(p, anchor, 1.0, 2.0, [1.0, 2.0], 0.0);
    assert!(((p + soft).distance(anchor) - 1.1).abs() < 1e-6);
    // The next projection from there, with the multiplier kept, moves it no further: C = −α̃λ.
    let (again, _) = tether_correction(p + soft, anchor, 1.0, 2.0, [1.0, 2.0], lambda);
    assert!(again.length() < 1e-6, "{again}");
    assert_eq!(tether_correction(p, anchor, 1.5, 2.0, [1.0, 0.0], 0.0), (glam::Vec3::ZERO, 0.0));
    assert_eq!(tether_correction(p, anchor, 1.0, 0.0, [1.0, 0.0], 0.0), (glam::Vec3::ZERO, 0.0));
}

/// The rigid motion of particles that move rigidly is recovered from their moments (summed in
/// two halves, as the GPU's tree does), rigid damping leaves them as they are, and on random
/// velocities it keeps the momentum and the angular momentum (f64 sums) while moving each
/// velocity the fraction k towards the rigid one. A lone particle (singular inertia) keeps its
/// velocity.
#[test]
fn rigid_damping_recovers_and_spares_rigid_motion() {
    use drape::passes::rigid_damping::{damp_to_rigid_motion, frame_fraction, rigid_motion, Moments};
    let mut rng = Rng(99);
    let reference = Vec3::new(3.0, -1.0, 2.0);
    let (velocity, spin) = (Vec3::new(0.4, -1.0, 2.0), Vec3::new(0.3, -0.7, 1.1));
    let particles: Vec<(f32, Vec3)> = (0..40).map(|_| (0.01 + rng.next() * 0.02, reference + rng.vec())).collect();
    let centre = particles.iter().map(|(m, x)| *m * *x).sum::<Vec3>() / particles.iter().map(|p| p.0).sum::<f32>();
    let rigid = |x: Vec3| velocity + spin.cross(x - centre);
    let sum = |v: &dyn Fn(usize) -> Vec3, range: std::ops::Range<usize>| {
        range
            .fold(Moments::default(), |s, i| s + Moments::of_particle(particles[i].0, particles[i].1 - reference, v(i)))
    };
    let moments = sum(&|i| rigid(particles[i].1), 0..20) + sum(&|i| rigid(particles[i].1), 20..40);
    let motion = rigid_motion(&moments);
    assert!(motion.velocity.distance(velocity) < 1e-5, "{}", motion.velocity);
    assert!(motion.angular_velocity.distance(spin) < 1e-4, "{}", motion.angular_velocity);
    for (_, x) in &particles {
        let v = rigid(*x);
        assert!(damp_to_rigid_motion(v, *x - reference, &motion, 0.7).distance(v) < 1e-4);
    }
    let shaken: Vec<Vec3> = particles.iter().map(|(_, x)| rigid(*x) + rng.vec()).collect();
    let motion = rigid_motion(&sum(&|i| shaken[i], 0..40));
    let k = 0.6;
    let damped: Vec<Vec3> =
        particles.iter().zip(&shaken).map(|((_, x), v)| damp_to_rigid_motion(*v, *x - reference, &motion, k)).collect();
    let momenta = |v: &[Vec3]| {
        particles.iter().zip(v).fold((glam::DVec3::ZERO, glam::DVec3::ZERO), |(p, l), ((m, x), v)| {
            let mv = v.as_dvec3() * f64::from(*m);
            (p + mv, l + (*x - centre).as_dvec3().cross(mv))
        })
    };
    let ((p0, l0), (p1, l1)) = (momenta(&shaken), momenta(&damped));
    assert!((p1 - p0).length() < 1e-5 * p0.length(), "momentum {p0} → {p1}");
    assert!((l1 - l0).length() < 1e-4 * l0.length(), "angular momentum {l0} → {l1}");
    for ((_, x), (v, d)) in particles.iter().zip(shaken.iter().zip(&damped)) {
        let towards = motion.velocity + motion.angular_velocity.cross(*x - reference - motion.centre);
        assert!((*d - (*v + k * (towards - *v))).length() < 1e-5);
    }
    // A millimetre cloth of micrograms: its inertia's determinant (~1e-38) sits among the
    // subnormals that GPUs flush to zero, so the solve scales the tensor to a trace of 1 first.
    let tiny = particles.iter().fold(Moments::default(), |sum, (m, x)| {
        let r = (*x - reference) * 1e-3;
        sum + Moments::of_particle(m * 1e-6, r, velocity + spin.cross(r - (centre - reference) * 1e-3))
    });
    assert!(rigid_motion(&tiny).angular_velocity.distance(spin) < 1e-3, "{}", rigid_motion(&tiny).angular_velocity);
    let lone = rigid_motion(&Moments::of_particle(1.0, Vec3::X, velocity));
    assert_eq!(lone.angular_velocity, Vec3::ZERO);
    assert_eq!(damp_to_rigid_motion(velocity, Vec3::X, &lone, 0.5), velocity);
    assert!((frame_fraction(10.0, 0.1) - (1.0 - (-1.0f32).exp())).abs() < 1e-6);
    assert_eq!(frame_fraction(0.0, 1.0 / 60.0), 0.0);
}

/// A constraint `s` times as stiff: its XPBD compliance divided by `s` (never infinite), a PBD
/// factor `k` made the one that removes what `s` projections of `k` remove, `1 − (1 − k)^s`
/// (against an f64 power: 0.6 at s = 2 is 0.84, where `k·s` gave 1.0), accurate for the tiny
/// factors PBD spreads over many iterations; exactly the kind's response at scale 1; and a
/// compliance scaled without the PBD branch (`scaled_compliance`) the same as with it.
#[test]
fn scaled_responses_are_stiffer_by_their_scale() {
    use drape::constraints::{scaled_compliance, scaled_response};
    assert_eq!(scaled_response([1.0, 40.0], 4.0), [1.0, 10.0]);
    assert_eq!(scaled_response([1.0, 40.0], 1.0), [1.0, 40.0]);
    assert_eq!(scaled_response([1.0, 1e35], 1e-10), [1.0, f32::MAX], "a tiny scale stays finite");
    assert_eq!(scaled_response([0.3, 0.0], 1.0), [0.3, 0.0]);
    assert_eq!(scaled_response([1.0, 0.0], 3.0), [1.0, 0.0], "a hard constraint stays hard");
    assert_eq!(scaled_response([0.0, 0.0], 3.0), [0.0, 0.0], "no stiffness stays none");
    for k in [1e-7f64, 1e-5, 3e-3, 0.01, 0.1, 0.25, 0.6, 0.9, 0.999] {
        for s in [1e-3f64, 0.1, 0.5, 2.0, 3.0, 10.0, 1e3] {
            let exact = 1.0 - (1.0 - k).powf(s);
            let [got, alpha] = scaled_response([k as f32, 0.0], s as f32);
            assert_eq!(alpha, 0.0);
            let error = (f64::from(got) - exact).abs() / exact;
            assert!(error < 2e-5, "k {k}, s {s}: {got} against {exact}");
        }
    }
    assert!((scaled_response([0.6, 0.0], 2.0)[0] - 0.84).abs() < 1e-6);
    // A compliance's scaling without the PBD branch is the same.
    for alpha in [0.0, 1e-30, 3.0, 4e5, 1e35, f32::MAX] {
        for s in [1e-30, 1e-3, 0.5, 1.0, 2.5, 1e3, 1e30] {
            let response = [1.0, alpha];
            assert_eq!(scaled_compliance(response, s), scaled_response(response, s), "α̃ {alpha}, scale {s}");
        }
    }
}

/// The gusts' clock advances by whole frames and wraps once per period, where f32 still
/// resolves a substep.
#[test]
fn the_clock_wraps_once_per_period() {
    use drape::passes::air::{advanced_clock, CLOCK_PERIOD};
    assert_eq!(advanced_clock(1.0, 0.5), 1.5);
    assert_eq!(advanced_clock(CLOCK_PERIOD - 0.25, 0.5), 0.25);
    let almost = CLOCK_PERIOD - 1.0 / 60.0;
    assert!(almost + 1.0 / 600.0 > almost, "a substep is still resolved just before the wrap");
}

/// A random rotation (unit quaternion) and translation.
fn rigid_motion(rng: &mut Rng) -> (glam::Quat, Vec3) {
    let axis = (rng.vec() + Vec3::new(0.0, 0.0, 2.0)).normalize();
    (glam::Quat::from_axis_angle(axis, TAU * rng.next()), rng.vec() * 3.0)
}

#[test]
fn isometric_curvature_vanishes_when_flat_and_ignores_rigid_motion() {
    let mut rng = Rng(7);
    for _ in 0..100 {
        let p = hinge(&mut rng);
        let weights = isometric_weights(p[0], p[1], p[2], p[3]).unwrap();
        // Σ W = 0: a translation of the whole hinge changes nothing.
        assert!(weights.iter().sum::<f32>().abs() < 1e-4 * weights[0].abs().max(1.0), "{weights:?}");
        // A flat hinge has no curvature, nor has any affine image of it (in-plane stretch and
        // shear are not bending).
        let flat_rest = p.map(|q| Vec3::new(q.x, 0.0, q.z));
        let flat_weights = isometric_weights(flat_rest[0], flat_rest[1], flat_rest[2], flat_rest[3]).unwrap();
        let (rotation, shift) = rigid_motion(&mut rng);
        let affine = glam::Mat3::from_cols(rng.vec(), rng.vec(), rng.vec());
        let image = flat_rest.map(|q| affine * q + shift);
        let size = flat_weights.iter().map(|w| w.abs()).sum::<f32>();
        assert!(curvature_vector(flat_rest, flat_weights).length() < 1e-5 * size, "flat hinge curves");
        assert!(curvature_vector(image, flat_weights).length() < 1e-4 * size, "affine image curves");
        // A rigid motion of the bent hinge keeps |Σ W p|.
        let size = weights.iter().map(|w| w.abs()).sum::<f32>();
        let c = curvature_vector(p, weights).length();
        let moved = curvature_vector(p.map(|q| rotation * q + shift), weights).length();
        assert!((moved - c).abs() < 1e-4 * size, "{c} became {moved}");
    }
}

#[test]
fn isometric_projection_conserves_momenta_and_flattens_in_one_step() {
    let mut rng = Rng(11);
    for _ in 0..100 {
        let rest = hinge(&mut rng);
        let weights = isometric_weights(rest[0], rest[1], rest[2], rest[3]).unwrap();
        let p = rest.map(|q| q + rng.vec() * 0.05);
        let masses = [0.1 + rng.next(), 0.1 + rng.next(), 0.1 + rng.next(), 0.1 + rng.next()];
        let w = masses.map(|m| 1.0 / m);
        let k = isometric_correction(p, w, weights, 0.3, [1.0, 0.01]).unwrap();
        let momentum: Vec3 = (0..4).map(|i| k.dp[i] * masses[i]).sum();
        let angular: Vec3 = (0..4).map(|i| p[i].cross(k.dp[i] * masses[i])).sum();
        assert!(momentum.length() < 1e-5, "isometric bending changes momentum by {momentum}");
        assert!(angular.length() < 1e-5, "isometric bending changes angular momentum by {angular}");
        // PBD with k = 1: the constraint is linear along its gradient, so one step is exact.
        let k = isometric_correction(p, w, weights, 0.0, [1.0, 0.0]).unwrap();
        let moved: [Vec3; 4] = std::array::from_fn(|i| p[i] + k.dp[i]);
        let before = curvature_vector(p, weights).length();
        assert!(curvature_vector(moved, weights).length() < 1e-4 * before.max(1e-3), "not flat after one step");
    }
    assert!(isometric_correction([Vec3::ZERO; 4], [1.0; 4], [1.0, 1.0, -1.0, -1.0], 0.0, [1.0, 0.0]).is_none());
}

/// A sheet of `n × n` equilateral triangles of side `side` in the x–z plane.
fn equilateral_sheet(n: u32, side: f32) -> ClothMesh {
    let height = side * 3f32.sqrt() / 2.0;
    let positions = (0..=n)
        .flat_map(|j| (0..=n).map(move |i| Vec3::new((i as f32 + 0.5 * (j % 2) as f32) * side, 0.0, j as f32 * height)))
        .collect();
    let at = |i: u32, j: u32| j * (n + 1) + i;
    let mut triangles = Vec::new();
    for j in 0..n {
        for i in 0..n {
            // Even rows lean right, odd rows left, so every triangle is equilateral.
            if j % 2 == 0 {
                triangles.push([at(i, j), at(i + 1, j), at(i, j + 1)]);
                triangles.push([at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)]);
            } else {
                triangles.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
                triangles.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            }
        }
    }
    ClothMesh::new(positions, triangles, None).unwrap()
}

/// `Σ C²` over the isometric hinges of `mesh` rolled onto a cylinder of radius `r` whose axis
/// lies `degrees` from the z axis in the sheet's plane (lengths kept), over the plate energy
/// `A / r²` of the area the hinges cover (`covered`).
fn rolled_energy_ratio(mesh: ClothMesh, covered: f64, r: f64, degrees: f64) -> f64 {
    let model = ClothModel::new(mesh, 0.2, &[]).unwrap().with_bending_model(BendingModel::Isometric).unwrap();
    let isometric = &model.constraints().isometric;
    let (cos, sin) = (degrees.to_radians().cos(), degrees.to_radians().sin());
    let rolled: Vec<Vec3> = model
        .mesh()
        .positions
        .iter()
        .map(|p| {
            let (x, z) = (f64::from(p.x), f64::from(p.z));
            let (across, along) = (x * cos + z * sin, -x * sin + z * cos);
            let (across, height) = (r * (across / r).sin(), r * (1.0 - (across / r).cos()));
            Vec3::new((across * cos - along * sin) as f32, height as f32, (across * sin + along * cos) as f32)
        })
        .collect();
    let energy: f64 = (0..isometric.len())
        .map(|c| {
            let p = isometric.particles(c).map(|i| rolled[i as usize]);
            f64::from(curvature_vector(p, isometric.weights(c)).length()).powi(2)
        })
        .sum();
    energy / (covered / (r * r))
}

/// The isometric energy of a sheet rolled onto a cylinder: on equilateral triangles the sum of
/// `C²` over the hinges is the plate's `∫ (κ1 + κ2)² dA = A / r²` whichever way the axis lies
/// (so the compliance is the inverse flexural rigidity). On a grid of right triangles the
/// per-edge energy is anisotropic, as Bergou's local form is: exact for bends along the grid
/// lines, stiffer up to ×1.54 along the diagonals.
#[test]
fn isometric_energy_of_a_rolled_sheet_is_the_plate_energy() {
    let n = 24;
    for (r, degrees) in [(0.5, 0.0), (0.5, 15.0), (0.5, 30.0), (0.5, 45.0), (0.5, 90.0), (2.0, 70.0)] {
        let side = 1.0 / n as f32;
        // The hinges' diamonds miss a strip half a triangle wide along the boundary.
        let covered = f64::from(n as f32 * side - 0.5 * side) * f64::from((n as f32 - 0.5) * side * 3f32.sqrt() / 2.0);
        let ratio = rolled_energy_ratio(equilateral_sheet(n, side), covered, r, degrees);
        assert!((ratio - 1.0).abs() < 0.03, "equilateral, r = {r} at {degrees}°: Σ C² / plate = {ratio}");
        let grid = ClothMesh::grid(n + 1, n + 1, side, GridPlane::Horizontal, Vec3::ZERO).unwrap();
        let covered = f64::from((1.0 - 0.5 * side) * (1.0 - 0.5 * side));
        let ratio = rolled_energy_ratio(grid, covered, r, degrees);
        let along_grid_lines = degrees % 90.0 == 0.0;
        let bound = if along_grid_lines { 1.01 } else { 1.6 };
        assert!((0.99..bound).contains(&ratio), "grid, r = {r} at {degrees}°: Σ C² / plate = {ratio}");
    }
}

fn triangle_area(p: [Vec3; 3]) -> f32 {
    0.5 * (p[1] - p[0]).cross(p[2] - p[0]).length()
}

/// Area limits scale a triangle back to its nearest bound: about the centre of mass when it is
/// free (keeping both momenta and every angle), about its pinned corner, or by the free
/// corner's height over a pinned edge, never moving a pin; within the bounds, for three pins
/// and for a degenerate triangle they do nothing, and growth is capped per projection.
#[test]
fn area_limits_scale_a_triangle_to_its_bound_keeping_pins_and_momenta() {
    use drape::passes::area_limits::{area_limit_corrections, MAX_AREA_GROWTH};
    use drape::StrainLimits;
    let limits = StrainLimits { min: 0.5, max: 1.1 };
    let mut rng = Rng(23);
    for _ in 0..100 {
        let p: [Vec3; 3] = std::array::from_fn(|_| rng.vec());
        let area = triangle_area(p);
        if area < 0.05 {
            continue;
        }
        let masses = [0.1 + rng.next(), 0.1 + rng.next(), 0.1 + rng.next()];
        for (rest, bound) in [(area / 1.7, 1.1), (area / 0.3, 0.5)] {
            let w = masses.map(|m| 1.0 / m);
            let dp = area_limit_corrections(p, w, rest, limits);
            let q: [Vec3; 3] = std::array::from_fn(|i| p[i] + dp[i]);
            assert!((triangle_area(q) / (bound * rest) - 1.0).abs() < 1e-4, "area {} for {}", triangle_area(q), rest);
            let momentum: Vec3 = (0..3).map(|i| dp[i] * masses[i]).sum();
            let angular: Vec3 = (0..3).map(|i| p[i].cross(dp[i] * masses[i])).sum();
            assert!(momentum.length() < 1e-5 && angular.length() < 1e-5, "momenta change by {momentum}, {angular}");
            let shape = |p: [Vec3; 3]| (p[1] - p[0]).length() / (p[2] - p[0]).length();
            assert!((shape(q) / shape(p) - 1.0).abs() < 1e-4, "a uniform scaling keeps the shape");
            for pins in 1..=3 {
                let w: [f32; 3] = std::array::from_fn(|i| if i < pins { 0.0 } else { w[i] });
                let dp = area_limit_corrections(p, w, rest, limits);
                assert!(dp[..pins].iter().all(|d| *d == Vec3::ZERO), "{pins} pins: a pin moved");
                let q: [Vec3; 3] = std::array::from_fn(|i| p[i] + dp[i]);
                let expected = if pins == 3 { area } else { bound * rest };
                assert!((triangle_area(q) / expected - 1.0).abs() < 1e-4, "{pins} pins: area {}", triangle_area(q));
            }
        }
        assert_eq!(area_limit_corrections(p, [1.0; 3], area, limits), [Vec3::ZERO; 3], "within the limits");
        let dp = area_limit_corrections(p, [1.0; 3], area / 0.01, limits);
        let grown = triangle_area(std::array::from_fn(|i| p[i] + dp[i]));
        assert!((grown / area - MAX_AREA_GROWTH).abs() < 1e-4, "a collapsed triangle grows {}×", grown / area);
    }
    let sliver = [Vec3::ZERO, Vec3::X, Vec3::X * 2.0];
    assert_eq!(area_limit_corrections(sliver, [1.0; 3], 1.0, limits), [Vec3::ZERO; 3]);
}

/// The area limits' colours cover every triangle once, with its rest area, and no two
/// triangles of a colour share a particle.
#[test]
fn area_limit_colours_partition_the_triangles_into_independent_sets() {
    use drape::passes::area_limits::TriangleAreas;
    let mesh = ClothMesh::grid(6, 4, 0.2, GridPlane::Horizontal, Vec3::ZERO).unwrap();
    let model = ClothModel::new(mesh, 0.2, &[]).unwrap();
    let areas = TriangleAreas::new(&model);
    assert_eq!(areas.len(), model.mesh().triangles.len());
    let mut seen = vec![false; areas.len()];
    for colour in areas.colours() {
        let mut touched = vec![false; model.particle_count()];
        for t in colour.clone() {
            let (triangle, rest) = areas.triangle(t as usize);
            let index = model.mesh().triangles.iter().position(|&m| m == triangle).unwrap();
            assert!(!seen[index], "triangle {index} twice");
            seen[index] = true;
            assert!((rest - 0.5 * 0.2 * 0.2).abs() < 1e-6, "rest area {rest}");
            for p in triangle {
                assert!(!touched[p as usize], "particle {p} twice in one colour");
                touched[p as usize] = true;
            }
        }
    }
    assert!(seen.iter().all(|&s| s));
    assert!(areas.colours().len() <= 8, "{} colours", areas.colours().len());
}

/// One bending projection acts on an angle error of a quarter turn at most: a hinge turned by θ
/// about its edge, projected with PBD's full step (k = 1, no compliance) from rest 0, gets
/// `Δλ = −min(θ, π/2)/Σ w|∇C|²`, the gradients the exact ones of the angle it has.
#[test]
fn a_bending_projection_acts_on_a_quarter_turn_at_most() {
    let (p0, p1, p2) = (Vec3::ZERO, Vec3::X, Vec3::new(0.4, 1.0, 0.0));
    let w = [1.0, 2.0, 0.5, 1.5];
    for theta in [0.3_f32, 1.2, 1.6, 2.5, 3.0] {
        let p3 = Quat::from_rotation_x(theta) * Vec3::new(0.6, -1.0, 0.0);
        let hinge = dihedral(p0, p1, p2, p3).unwrap();
        assert!((hinge.angle.abs() - theta).abs() < 1e-5, "θ = {theta}: angle {}", hinge.angle);
        let weighted: f32 = hinge.gradients.iter().zip(w).map(|(g, w)| w * g.length_squared()).sum();
        let step = bending_correction(p0, p1, p2, p3, w, 0.0, 0.0, [1.0, 0.0]).unwrap();
        let expected = -hinge.angle.clamp(-std::f32::consts::FRAC_PI_2, std::f32::consts::FRAC_PI_2) / weighted;
        assert!(
            (step.dlambda - expected).abs() <= 1e-5 * expected.abs(),
            "θ = {theta}: Δλ {} against {expected}",
            step.dlambda
        );
    }
}
