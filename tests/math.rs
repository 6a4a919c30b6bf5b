//! The pure constraint functions: gradients against finite differences, conservation of linear
//! momentum, collision projections and the contact velocity response.

use drape::collision::{collide_plane, collide_sphere, contact_velocity, Contact};
use drape::constraints::bending::{bending_correction, dihedral_angle};
use drape::constraints::stretch::distance_correction;
use glam::Vec3;

/// A small deterministic generator (xorshift) so the tests need no extra crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
    fn vec(&mut self) -> Vec3 {
        Vec3::new(self.next(), self.next(), self.next()) * 2.0 - Vec3::ONE
    }
}

/// Four points forming two triangles that share the edge p0–p1, bent by a random amount.
fn hinge(rng: &mut Rng) -> [Vec3; 4] {
    let p0 = rng.vec() * 0.1;
    let p1 = p0 + Vec3::new(0.5, 0.0, 0.0) + rng.vec() * 0.05;
    let p2 = p0 + Vec3::new(0.25, 0.0, 0.4) + rng.vec() * 0.1;
    let p3 = p0 + Vec3::new(0.25, 0.0, -0.4) + Vec3::new(0.0, 0.3, 0.0) * rng.next() + rng.vec() * 0.05;
    [p0, p1, p2, p3]
}

#[test]
fn bending_step_points_along_the_appendix_a_gradient() {
    // With one movable particle i, a PBD step is Δp_i = −C ∇_iC / |∇_iC|²: compare ∇_iC with a
    // central finite difference of the dihedral angle (checks the signs of PBD Appendix A).
    let mut rng = Rng(0x5eed);
    for _ in 0..50 {
        let p = hinge(&mut rng);
        let angle = dihedral_angle(p[0], p[1], p[2], p[3]).unwrap();
        let rest = angle + 0.05;
        for i in 0..4 {
            let mut w = [0.0; 4];
            w[i] = 1.0;
            let k = bending_correction(p[0], p[1], p[2], p[3], w, rest, 0.0, [1.0, 0.0]).unwrap();
            let h = 1e-3;
            let gradient = Vec3::from_array(std::array::from_fn(|axis| {
                let offset = Vec3::from_array(std::array::from_fn(|a| if a == axis { h } else { 0.0 }));
                let mut plus = p;
                let mut minus = p;
                plus[i] += offset;
                minus[i] -= offset;
                let f = |q: [Vec3; 4]| dihedral_angle(q[0], q[1], q[2], q[3]).unwrap();
                (f(plus) - f(minus)) / (2.0 * h)
            }));
            let expected = gradient * (-(angle - rest) / gradient.length_squared());
            assert!(
                k.dp[i].distance(expected) <= 2e-2 * expected.length() + 1e-6,
                "particle {i}: step {:?}, finite differences {:?}",
                k.dp[i],
                expected
            );
        }
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
fn xpbd_compliance_softens_the_correction() {
    // XPBD eq. 18 with α̃ > 0 removes the fraction w/(w + α̃) of the error in the first iteration.
    let p1 = Vec3::new(2.0, 0.0, 0.0);
    let k = distance_correction(Vec3::ZERO, p1, 1.0, 1.0, 1.0, 0.0, [1.0, 2.0], [1.0, 2.0]).unwrap();
    assert!((k.dlambda - (-1.0 / 4.0)).abs() < 1e-6);
    assert!(((p1 + k.dp[1]).x - k.dp[0].x - 1.5).abs() < 1e-6);
}

#[test]
fn bending_handles_flat_and_collinear_input() {
    let flat = [Vec3::ZERO, Vec3::X, Vec3::new(0.5, 0.0, 1.0), Vec3::new(0.5, 0.0, -1.0)];
    let angle = dihedral_angle(flat[0], flat[1], flat[2], flat[3]).unwrap();
    assert!((angle - std::f32::consts::PI).abs() < 1e-6);
    // A flat pair at its rest angle: gradient and error vanish; no correction, no NaN.
    if let Some(k) = bending_correction(flat[0], flat[1], flat[2], flat[3], [1.0; 4], angle, 0.0, [1.0, 0.0]) {
        assert!(k.dp.iter().all(|d| d.is_finite() && d.length() < 1e-6));
    }
    let collinear = [Vec3::ZERO, Vec3::X, Vec3::X * 2.0, Vec3::Z];
    assert!(bending_correction(collinear[0], collinear[1], collinear[2], collinear[3], [1.0; 4], 1.0, 0.0, [1.0, 0.0])
        .is_none());
}

#[test]
fn collisions_end_outside_the_collider() {
    let margin = 0.01;
    let p = Vec3::new(0.3, -0.2, 0.1);
    let contact = collide_plane(p, Vec3::Y, 0.0, margin).unwrap();
    assert!(((p + contact.normal * contact.depth).y - margin).abs() < 1e-6 && contact.depth > 0.2);
    assert!(collide_plane(Vec3::new(0.0, 0.5, 0.0), Vec3::Y, 0.0, margin).is_none());

    let (center, radius) = (Vec3::ZERO, 1.0);
    let mut rng = Rng(7);
    for _ in 0..200 {
        let x = rng.vec().normalize() * 1.5;
        let p = rng.vec() * 1.2;
        if let Some(contact) = collide_sphere(x, p, center, radius, margin) {
            let projected = p + contact.normal * contact.depth;
            assert!(projected.distance(center) >= radius + margin - 1e-5, "{projected} still inside");
            assert!(contact.depth >= 0.0 && (contact.normal.length() - 1.0).abs() < 1e-5);
        } else {
            assert!(p.distance(center) >= radius + margin);
        }
    }
    // Continuous test: a particle moving straight through the sphere is stopped on the entry side.
    let p = Vec3::new(0.2, 0.0, 0.0);
    let contact = collide_sphere(Vec3::new(-2.0, 0.0, 0.0), p, center, radius, 0.0).unwrap();
    let p = p + contact.normal * contact.depth;
    assert!((contact.normal - Vec3::NEG_X).length() < 1e-5 && (p.x + 1.0).abs() < 1e-5);
    // Static fallback from inside: pushed to the closest surface point.
    let p = Vec3::new(0.0, 0.6, 0.0);
    let contact = collide_sphere(Vec3::new(0.0, 0.5, 0.0), p, center, radius, 0.0).unwrap();
    assert!((p + contact.normal * contact.depth - Vec3::Y).length() < 1e-5);
}

#[test]
fn contact_velocity_applies_friction_and_restitution() {
    let contact = Contact { normal: Vec3::Y, depth: 0.001 };
    let h = 0.01;
    // Friction removes at most the tangential speed, never reverses it.
    let v = contact_velocity(Vec3::new(1.0, -0.5, 0.0), Vec3::new(1.0, -3.0, 0.0), contact, h, 0.5, 0.0, 0.2);
    assert!((v.x - (1.0 - 0.5 * 0.001 / h)).abs() < 1e-6 && v.y == 0.0);
    let v = contact_velocity(Vec3::new(0.01, 0.0, 0.0), Vec3::ZERO, contact, h, 10.0, 0.0, 0.2);
    assert_eq!(v, Vec3::ZERO);
    // Restitution reflects the approach speed, but not slow contacts.
    let v = contact_velocity(Vec3::ZERO, Vec3::new(0.0, -3.0, 0.0), contact, h, 0.0, 0.5, 0.2);
    assert!((v.y - 1.5).abs() < 1e-6);
    let v = contact_velocity(Vec3::ZERO, Vec3::new(0.0, -0.1, 0.0), contact, h, 0.0, 0.5, 0.2);
    assert_eq!(v.y, 0.0);
}
