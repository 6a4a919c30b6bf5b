//! Pure f32 helpers shared by several kinds and stages, mirrored in WGSL with the same names:
//! `shaders/common.wgsl` (the epsilons) and `shaders/normals.wgsl` (the normal helpers).

use glam::Vec3;

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
