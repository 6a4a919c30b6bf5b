//! Pure f32 helpers shared by several kinds and stages, mirrored in WGSL with the same names:
//! `shaders/common.wgsl` (the epsilons, `atan2_portable` and `weighted_face_normal`) and
//! `shaders/normals.wgsl` (`normalize_or_up`).

use glam::Vec3;
use std::f32::consts::{FRAC_PI_2, FRAC_PI_4, PI};

/// Below this length (m) an edge or a triangle's doubled area gives no usable direction
/// (`GEOMETRY_EPSILON` in `shaders/common.wgsl`; a test checks they agree).
pub const GEOMETRY_EPSILON: f32 = 1e-9;

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
const TAN_PI_8: f32 = 0.414_213_57;

/// Smallest and largest coordinates of `points` (`±∞` for none).
pub fn bounding_box(points: &[Vec3]) -> (Vec3, Vec3) {
    let min = points.iter().copied().fold(Vec3::splat(f32::INFINITY), Vec3::min);
    let max = points.iter().copied().fold(Vec3::splat(f32::NEG_INFINITY), Vec3::max);
    (min, max)
}
