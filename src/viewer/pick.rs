//! Picking: which cloth particle or collider lies under the cursor.

use super::camera::Ray;
use crate::collision::Collider;
use glam::Vec3;

/// The nearest surface point of a triangle mesh hit by `ray`: `(distance along the ray,
/// triangle index, barycentric weights)`. Möller–Trumbore, both sides count.
pub fn ray_mesh(ray: &Ray, positions: &[Vec3], triangles: &[[u32; 3]]) -> Option<(f32, usize, Vec3)> {
    let mut nearest: Option<(f32, usize, Vec3)> = None;
    for (index, triangle) in triangles.iter().enumerate() {
        let [a, b, c] = triangle.map(|v| positions[v as usize]);
        if let Some((t, weights)) = ray_triangle(ray, a, b, c) {
            if nearest.is_none_or(|(best, _, _)| t < best) {
                nearest = Some((t, index, weights));
            }
        }
    }
    nearest
}

fn ray_triangle(ray: &Ray, a: Vec3, b: Vec3, c: Vec3) -> Option<(f32, Vec3)> {
    let (ab, ac) = (b - a, c - a);
    let p = ray.direction.cross(ac);
    let determinant = ab.dot(p);
    if determinant.abs() < 1e-12 {
        return None;
    }
    let inverse = 1.0 / determinant;
    let to_origin = ray.origin - a;
    let u = to_origin.dot(p) * inverse;
    let q = to_origin.cross(ab);
    let v = ray.direction.dot(q) * inverse;
    let t = ac.dot(q) * inverse;
    (u >= 0.0 && v >= 0.0 && u + v <= 1.0 && t > 0.0).then_some((t, Vec3::new(1.0 - u - v, u, v)))
}

/// The particle to grab under the cursor: the vertex nearest to where `ray` first hits the cloth,
/// or else the particle closest to the ray within `tolerance(t)` metres at depth `t` (so thin
/// edges and single vertices can be caught). Returns `(particle, distance along the ray)`.
pub fn pick_particle(
    ray: &Ray,
    positions: &[Vec3],
    triangles: &[[u32; 3]],
    tolerance: impl Fn(f32) -> f32,
) -> Option<(u32, f32)> {
    if let Some((t, triangle, weights)) = ray_mesh(ray, positions, triangles) {
        let corner = if weights.x >= weights.y && weights.x >= weights.z {
            0
        } else if weights.y >= weights.z {
            1
        } else {
            2
        };
        return Some((triangles[triangle][corner], t));
    }
    positions
        .iter()
        .enumerate()
        .filter_map(|(i, &p)| {
            let t = (p - ray.origin).dot(ray.direction);
            let miss = (p - ray.at(t)).length();
            (t > 0.0 && miss <= tolerance(t)).then_some((i as u32, t, miss / tolerance(t).max(1e-9)))
        })
        .min_by(|a, b| a.2.total_cmp(&b.2))
        .map(|(i, t, _)| (i, t))
}

/// Distance along `ray` to the sphere's surface, if the ray hits it in front of its origin.
pub fn ray_sphere(ray: &Ray, center: Vec3, radius: f32) -> Option<f32> {
    let to_center = center - ray.origin;
    let along = to_center.dot(ray.direction);
    let miss_squared = to_center.length_squared() - along * along;
    let half_chord_squared = radius * radius - miss_squared;
    if half_chord_squared < 0.0 {
        return None;
    }
    let half_chord = half_chord_squared.sqrt();
    [along - half_chord, along + half_chord].into_iter().find(|&t| t > 0.0)
}

/// Distance along `ray` to a collider's surface, if the ray hits it in front of its origin
/// within `reach` (m); planes are not picked. Spheres in closed form ([`ray_sphere`]); capsules,
/// boxes and meshes by sphere tracing their distance (64 steps, each divided by the shape's
/// [`Collider::trace_slope`], a hit within 0.1 mm).
pub fn ray_collider(ray: &Ray, collider: &Collider, reach: f32) -> Option<f32> {
    match *collider {
        Collider::Plane { .. } => None,
        Collider::Sphere { center, radius } => ray_sphere(ray, center, radius).filter(|&t| t <= reach),
        ref shape => {
            let mut t = 0.0;
            for _ in 0..64 {
                let distance = shape.signed_distance(ray.at(t));
                if distance <= 1e-4 {
                    return Some(t);
                }
                t += distance / shape.trace_slope();
                if t > reach {
                    return None;
                }
            }
            None
        }
    }
}
