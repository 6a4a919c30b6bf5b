//! Pure f32 helpers shared by several kinds and stages, mirrored in WGSL with the same names:
//! `shaders/common.wgsl` (the epsilons, `atan2_portable` and `weighted_face_normal`),
//! `shaders/passes/normals.wgsl` (`normalize_or_up`) and `shaders/passes/self_collision/triangles.wgsl`
//! (`closest_on_triangle`).

use glam::Vec3;
use std::f32::consts::{FRAC_PI_2, FRAC_PI_4, PI};

/// Below this length (m) an edge or a triangle's doubled area gives no usable direction
/// (`GEOMETRY_EPSILON` in `shaders/common.wgsl`; a test checks they agree).
pub const GEOMETRY_EPSILON: f32 = 1e-9;

/// Below this the generalised mass `Σ w|∇C|² + α̃` of a constraint, or another denominator, is
/// treated as zero (`DENOMINATOR_EPSILON` in `shaders/common.wgsl`).
pub const DENOMINATOR_EPSILON: f32 = 1e-12;

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

/// `atan2(y, x)` in `[−π, π]` by the same f32 operations as `atan2_portable` in
/// `shaders/common.wgsl`, so the CPU reference and the GPU compute the same angle: WGSL's
/// built-in `atan2` may be off by 4096 ULP, which bending turns into millimetres within a few
/// frames. Cephes' `atanf` (range reduction to `|t| ≤ tan(π/8)` and a degree-9 odd polynomial,
/// about 2 ULP) on `min(|x|, |y|)/max(|x|, |y|)`, then the octant. `atan2(0, 0) = 0`, and
/// `y = −0` counts as `+0`.
pub fn atan2(y: f32, x: f32) -> f32 {
    let (ay, ax) = (y.abs(), x.abs());
    let (small, large) = (ay.min(ax), ay.max(ax));
    let t = if large > 0.0 { small / large } else { 0.0 };
    let reduced = t > TAN_PI_8;
    let u = if reduced { (t - 1.0) / (t + 1.0) } else { t };
    let z = u * u;
    let polynomial = (((8.053_744_5e-2 * z - 1.387_768_6e-1) * z + 1.997_771_1e-1) * z - 3.333_295e-1) * z * u + u;
    let octant = if reduced { FRAC_PI_4 + polynomial } else { polynomial };
    let quadrant = if ay > ax { FRAC_PI_2 - octant } else { octant };
    let half = if x < 0.0 { PI - quadrant } else { quadrant };
    if y < 0.0 {
        -half
    } else {
        half
    }
}

/// `tan(π/8)`: above it [`atan2`] reduces its argument by `atan t = π/4 + atan((t − 1)/(t + 1))`.
pub(crate) const TAN_PI_8: f32 = 0.414_213_57;

/// Smallest and largest coordinates of `points` (`±∞` for none).
pub fn bounding_box(points: &[Vec3]) -> (Vec3, Vec3) {
    let min = points.iter().copied().fold(Vec3::splat(f32::INFINITY), Vec3::min);
    let max = points.iter().copied().fold(Vec3::splat(f32::NEG_INFINITY), Vec3::max);
    (min, max)
}

/// The point of triangle `abc` closest to `p`, by the Voronoi regions of its vertices, edges and
/// face (Ericson, *Real-Time Collision Detection* §5.1.5).
pub fn closest_on_triangle(p: Vec3, [a, b, c]: [Vec3; 3]) -> Vec3 {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return a + ab * (d1 / (d1 - d3));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denominator = (va + vb + vc).max(DENOMINATOR_EPSILON);
    a + ab * (vb / denominator) + ac * (vc / denominator)
}

/// The larger of `a` and `b`, NaN if either is NaN: `f32::max` returns the operand that is not
/// NaN, and a measurement of a run gone NaN must not read as a small number.
pub fn largest(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else {
        a.max(b)
    }
}

/// The smaller of `a` and `b`, NaN if either is NaN (see [`largest`]).
pub fn smallest(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else {
        a.min(b)
    }
}
