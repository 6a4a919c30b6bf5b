//! Pure f32 constraint math, no wgpu: the readable specification of every GPU kernel.
//!
//! `shaders/constraints.wgsl`, `shaders/collide.wgsl` and `shaders/normals.wgsl` mirror these functions with the same
//! names and argument order; the CPU reference ([`crate::reference`]) calls them directly.

use glam::Vec3;

/// Below this length (m) an edge or a triangle's doubled area gives no usable direction
/// (`GEOMETRY_EPSILON` in `shaders/common.wgsl`; a test checks they agree).
pub const GEOMETRY_EPSILON: f32 = 1e-9;
/// Below this the generalised mass `Σ w|∇C|² + α̃` of a constraint is treated as zero
/// (`DENOMINATOR_EPSILON` in `shaders/common.wgsl`).
pub const DENOMINATOR_EPSILON: f32 = 1e-12;

/// The position corrections of a constraint's particles and the change of its multiplier.
/// Distance constraints use the first two entries of `dp`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Correction {
    /// Position change of each particle (m).
    pub dp: [Vec3; 4],
    /// Change of the constraint's Lagrange multiplier.
    pub dlambda: f32,
}

/// Projects a distance constraint `C = |p0 − p1| − rest` (PBD §3.3 eq. 10–11) in the unified
/// PBD/XPBD form `Δλ = k·(−C − α̃λ)/(w0 + w1 + α̃)`, `Δp_i = w_i ∇_i C Δλ` (XPBD eq. 18).
/// `stretch` and `compression` are the `[k, α̃]` pairs used when the edge is longer or shorter
/// than `rest`. Returns `None` for a zero-length edge or two immovable particles.
#[allow(clippy::too_many_arguments)]
pub fn distance_correction(
    p0: Vec3,
    p1: Vec3,
    w0: f32,
    w1: f32,
    rest: f32,
    lambda: f32,
    stretch: [f32; 2],
    compression: [f32; 2],
) -> Option<Correction> {
    let delta = p0 - p1;
    let length = delta.length();
    if length < GEOMETRY_EPSILON {
        return None;
    }
    let c = length - rest;
    let [k, alpha_tilde] = if c > 0.0 { stretch } else { compression };
    let denominator = w0 + w1 + alpha_tilde;
    if denominator < DENOMINATOR_EPSILON {
        return None;
    }
    let dlambda = k * (-c - alpha_tilde * lambda) / denominator;
    let n = delta / length;
    Some(Correction { dp: [n * (w0 * dlambda), n * (-w1 * dlambda), Vec3::ZERO, Vec3::ZERO], dlambda })
}

/// The unsigned dihedral angle between triangles `(p0, p1, p2)` and `(p0, p1, p3)` sharing the
/// edge `p0–p1`, as PBD §4.1 defines it: `acos(n1·n2)` with `n1 ∝ (p1−p0)×(p2−p0)`,
/// `n2 ∝ (p1−p0)×(p3−p0)` — π for a flat pair. Evaluated as `atan2(|n1×n2|, n1·n2)`, which
/// equals the `acos` but stays accurate near 0 and π. `None` when a triangle is collinear.
pub fn dihedral_angle(p0: Vec3, p1: Vec3, p2: Vec3, p3: Vec3) -> Option<f32> {
    let e = p1 - p0;
    let (c1, c2) = (e.cross(p2 - p0), e.cross(p3 - p0));
    let (l1, l2) = (c1.length(), c2.length());
    if l1 < GEOMETRY_EPSILON || l2 < GEOMETRY_EPSILON {
        return None;
    }
    let (n1, n2) = (c1 / l1, c2 / l2);
    Some(n1.cross(n2).length().atan2(n1.dot(n2)))
}

/// Projects the dihedral bending constraint `C = acos(n1·n2) − rest` (PBD §4.1) with the
/// gradients of PBD Appendix A: with `p0` moved to the origin (`e = p1`, `a = p2`, `b = p3`),
/// `d = n1·n2`, `q2 = (e×n2 + (n1×e)d)/|e×a|`, `q3 = (e×n1 + (n2×e)d)/|e×b|`,
/// `q1 = −(a×n2 + (n1×a)d)/|e×a| − (b×n1 + (n2×b)d)/|e×b|`, `q0 = −q1 − q2 − q3`, and
/// `∇_i C = q_i / √(1 − d²)`. Writing the XPBD update with `s = √(1 − d²)` multiplied through,
/// `Δλ = s²·k(−C − α̃λ)/(Σ w|q|² + α̃s²)` and `Δp_i = w_i q_i s·k(−C − α̃λ)/(Σ w|q|² + α̃s²)`,
/// which for `α̃ = 0, k = 1` is exactly the paper's `Δp_i = −w_i √(1−d²)(acos d − φ0) q_i / Σ w|q|²`
/// and never divides by `s` (zero for a flat pair). `None` for collinear triangles or when no
/// particle can move.
#[allow(clippy::too_many_arguments)]
pub fn bending_correction(
    p0: Vec3,
    p1: Vec3,
    p2: Vec3,
    p3: Vec3,
    w: [f32; 4],
    rest: f32,
    lambda: f32,
    response: [f32; 2],
) -> Option<Correction> {
    let (e, a, b) = (p1 - p0, p2 - p0, p3 - p0);
    let (c1, c2) = (e.cross(a), e.cross(b));
    let (l1, l2) = (c1.length(), c2.length());
    if l1 < GEOMETRY_EPSILON || l2 < GEOMETRY_EPSILON {
        return None;
    }
    let (n1, n2) = (c1 / l1, c2 / l2);
    let d = n1.dot(n2).clamp(-1.0, 1.0);
    let s = n1.cross(n2).length();
    let c = s.atan2(d) - rest;

    let q2 = (e.cross(n2) + n1.cross(e) * d) / l1;
    let q3 = (e.cross(n1) + n2.cross(e) * d) / l2;
    let q1 = -(a.cross(n2) + n1.cross(a) * d) / l1 - (b.cross(n1) + n2.cross(b) * d) / l2;
    let q0 = -q1 - q2 - q3;

    let [k, alpha_tilde] = response;
    let weighted = w[0] * q0.length_squared()
        + w[1] * q1.length_squared()
        + w[2] * q2.length_squared()
        + w[3] * q3.length_squared();
    let denominator = weighted + alpha_tilde * s * s;
    if denominator < DENOMINATOR_EPSILON {
        return None;
    }
    let f = k * (-c - alpha_tilde * lambda) / denominator;
    Some(Correction {
        dp: [q0 * (w[0] * s * f), q1 * (w[1] * s * f), q2 * (w[2] * s * f), q3 * (w[3] * s * f)],
        dlambda: s * s * f,
    })
}

/// A contact found by [`collide_plane`] or [`collide_sphere`]: the surface normal (pointing out
/// of the collider) and how far the particle was moved along it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contact {
    /// Unit surface normal, out of the collider.
    pub normal: Vec3,
    /// Distance the particle was pushed out along the normal (m).
    pub depth: f32,
}

/// The half-space `n·p ≥ offset + margin` (PBD §3.4 inequality constraint `C(p) = n·p − d ≥ 0`).
/// A plane needs no ray test: the entry point lies on the plane itself. Returns the projected
/// position and the contact when `p` was inside.
pub fn collide_plane(p: Vec3, normal: Vec3, offset: f32, margin: f32) -> Option<(Vec3, Contact)> {
    let c = normal.dot(p) - offset - margin;
    (c < 0.0).then(|| (p - normal * c, Contact { normal, depth: -c }))
}

/// A sphere (radius grown by `margin`), PBD §3.4: when the segment `x → p` enters the sphere,
/// the constraint is `(p − q)·n ≥ 0` at the entry point `q` with normal `n` (continuous
/// collision); when `x` already starts inside, `q` is the surface point closest to `p` (static
/// fallback). Returns the projected position and the contact when `p` was inside.
pub fn collide_sphere(x: Vec3, p: Vec3, center: Vec3, radius: f32, margin: f32) -> Option<(Vec3, Contact)> {
    let r = radius + margin;
    let rel_p = p - center;
    if rel_p.length_squared() >= r * r {
        return None;
    }
    let rel_x = x - center;
    let d = p - x;
    let travel = d.length();
    let (q, normal) = if rel_x.length_squared() >= r * r && travel > GEOMETRY_EPSILON {
        // Entry point of the ray x + s·dir: closest approach at s = −rel_x·dir, where the
        // perpendicular offset is rel_x + s·dir; the entry lies √(r² − offset²) before it.
        // Measuring the offset directly avoids the cancellation of the quadratic's discriminant.
        let dir = d / travel;
        let closest = -rel_x.dot(dir);
        let offset = rel_x + dir * closest;
        let half_chord = (r * r - offset.length_squared()).max(0.0).sqrt();
        let q = x + dir * (closest - half_chord).clamp(0.0, travel);
        (q, (q - center) / r)
    } else {
        let length = rel_p.length();
        let normal = if length > GEOMETRY_EPSILON { rel_p / length } else { Vec3::Y };
        (center + normal * r, normal)
    };
    let c = (p - q).dot(normal);
    (c < 0.0).then(|| (p - normal * c, Contact { normal, depth: -c }))
}

/// Velocity response of a particle in contact (PBD Alg. 1 line 16): dynamic Coulomb friction
/// removes up to `friction·depth/h` of the tangential speed (the normal correction `depth`
/// over `h` is the normal impulse per unit mass, XPBD rigid bodies §3.6), and the normal speed
/// becomes `max(−e·v̄_n, 0)` of the pre-solve normal speed `v̄_n`, with `e = 0` when
/// `|v̄_n| ≤ threshold` (`2|g|h`, against jitter).
#[allow(clippy::too_many_arguments)]
pub fn contact_velocity(
    v: Vec3,
    v_before: Vec3,
    contact: Contact,
    h: f32,
    friction: f32,
    restitution: f32,
    restitution_threshold: f32,
) -> Vec3 {
    let n = contact.normal;
    let vn = v.dot(n);
    let vt = v - n * vn;
    let vt_length = vt.length();
    let vt = if vt_length > GEOMETRY_EPSILON {
        vt * (1.0 - friction * contact.depth / (h * vt_length)).max(0.0)
    } else {
        Vec3::ZERO
    };
    let vn_before = v_before.dot(n);
    let e = if vn_before.abs() > restitution_threshold { restitution } else { 0.0 };
    vt + n * (-e * vn_before).max(0.0)
}

/// Area-weighted triangle normal contribution: `(p1 − p0) × (p2 − p0)`, whose length is twice
/// the triangle's area.
pub fn weighted_face_normal(p0: Vec3, p1: Vec3, p2: Vec3) -> Vec3 {
    (p1 - p0).cross(p2 - p0)
}

/// Normalises a summed vertex normal; a vertex whose triangles cancel out gets `+Y`.
pub fn normalize_or_up(n: Vec3) -> Vec3 {
    let length = n.length();
    if length > GEOMETRY_EPSILON {
        n / length
    } else {
        Vec3::Y
    }
}
