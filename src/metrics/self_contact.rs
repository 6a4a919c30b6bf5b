//! How a cloth meets itself, measured on the host from its positions: triangles that cut through
//! each other ([`self_intersections`]) and how close particles that are apart at rest come
//! ([`min_self_distance`]). Independent of the solver's self-collision, so they check it.
//! The predicates are f64 signed volumes of f32 positions (robust in practice, not exact for
//! nearly coplanar configurations); proper crossings only (touching and coplanar triangles do
//! not count).

use crate::mesh::ClothMesh;
use glam::{DVec3, IVec3, Vec3};
use std::collections::HashMap;

/// Six times the signed volume of the tetrahedron `(a, b, c, d)`: positive when `d` lies on the
/// side of the plane `abc` that its normal `(b − a) × (c − a)` points to.
pub fn orientation(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> f64 {
    (b - a).cross(c - a).dot(d - a)
}

/// Whether the segment `p → q` passes through the inside of triangle `abc`: its ends strictly on
/// either side of the triangle's plane, and the line strictly inside the triangle's three edges
/// (the signed volumes of the line with each edge share a sign).
pub fn segment_crosses_triangle(p: DVec3, q: DVec3, [a, b, c]: [DVec3; 3]) -> bool {
    if orientation(a, b, c, p) * orientation(a, b, c, q) >= 0.0 {
        return false;
    }
    let edges = [orientation(p, q, a, b), orientation(p, q, b, c), orientation(p, q, c, a)];
    edges.iter().all(|&v| v > 0.0) || edges.iter().all(|&v| v < 0.0)
}

/// Whether two triangles cut through each other: an edge of one crosses the inside of the
/// other ([`segment_crosses_triangle`]), as one always does when two triangles intersect in
/// general position.
pub fn triangles_intersect(first: [DVec3; 3], second: [DVec3; 3]) -> bool {
    let crosses = |edges: [DVec3; 3], triangle: [DVec3; 3]| {
        (0..3).any(|k| segment_crosses_triangle(edges[k], edges[(k + 1) % 3], triangle))
    };
    crosses(first, second) || crosses(second, first)
}

/// The pairs of triangles sharing no vertex that cut through each other
/// ([`triangles_intersect`]): 0 for a cloth that does not pass through itself. Triangles are
/// sorted into a grid of cells twice the largest triangle's bounding box at rest, and each pair
/// whose boxes overlap is tested once, in the cell holding the low corner of their overlap.
/// Triangles stretched beyond a cell (a blown-up cloth, which `max_stretch` shows) are left out.
pub fn self_intersections(mesh: &ClothMesh, positions: &[Vec3]) -> usize {
    let boxes_at = |x: &[Vec3]| -> Vec<(Vec3, Vec3)> {
        let box_of = |t: &[u32; 3]| {
            let [a, b, c] = t.map(|i| x[i as usize]);
            (a.min(b).min(c), a.max(b).max(c))
        };
        mesh.triangles.iter().map(box_of).collect()
    };
    let extent = |&(low, high): &(Vec3, Vec3)| (high - low).max_element();
    let boxes = boxes_at(positions);
    let cell = 2.0 * boxes_at(&mesh.positions).iter().map(extent).fold(f32::EPSILON, f32::max);
    // A triangle with a non-finite corner cuts through nothing (the predicates are false on
    // NaN); one stretched beyond a cell (a blown-up cloth) is left out rather than making every
    // pair a candidate.
    let measured = |(_, b): &(usize, &(Vec3, Vec3))| b.0.is_finite() && b.1.is_finite() && extent(b) <= cell;
    let grid =
        CellGrid::new(cell, boxes.iter().enumerate().filter(measured).map(|(t, &(low, high))| (t as u32, low, high)));
    let corners = |t: [u32; 3]| t.map(|i| positions[i as usize]);
    let mut count = 0;
    for (key, members) in &grid.cells {
        for (k, &s) in members.iter().enumerate() {
            for &t in &members[k + 1..] {
                let (first, second) = (mesh.triangles[s as usize], mesh.triangles[t as usize]);
                let ((low_s, high_s), (low_t, high_t)) = (boxes[s as usize], boxes[t as usize]);
                let overlap = low_s.max(low_t);
                let disjoint = overlap.cmpgt(high_s.min(high_t)).any();
                if disjoint || grid.key(overlap) != *key || first.iter().any(|v| second.contains(v)) {
                    continue;
                }
                let wide = |t: [u32; 3]| corners(t).map(|p| p.as_dvec3());
                count += usize::from(triangles_intersect(wide(first), wide(second)));
            }
        }
    }
    count
}

/// The smallest distance between two particles that are at least `rest_gap` apart in the
/// mesh's rest positions, among those closer than `rest_gap` now; `+∞` when none are (the cloth
/// keeps every such pair at least `rest_gap` apart). Particles closer at rest are left out: a
/// thickness only separates what the mesh keeps apart. Neighbours farther apart at rest than
/// `rest_gap` count (an edge compressed below it reads as a close pair). Non-finite positions
/// are left out. `+∞` for a `rest_gap` that is not finite and positive.
pub fn min_self_distance(mesh: &ClothMesh, positions: &[Vec3], rest_gap: f32) -> f32 {
    if !(rest_gap > 0.0 && rest_gap.is_finite()) {
        return f32::INFINITY; // nothing is closer than no distance
    }
    let finite = positions.iter().enumerate().filter(|(_, p)| p.is_finite());
    let grid = CellGrid::new(rest_gap, finite.map(|(i, &p)| (i as u32, p, p)));
    let mut closest = f32::INFINITY;
    for (i, &p) in positions.iter().enumerate().filter(|(_, p)| p.is_finite()) {
        let home = grid.key(p);
        for offset in (-1..=1).flat_map(|x| (-1..=1).flat_map(move |y| (-1..=1).map(move |z| IVec3::new(x, y, z)))) {
            for &j in grid.cells.get(&home.saturating_add(offset)).map_or(&[][..], Vec::as_slice) {
                let (i, j) = (i, j as usize);
                if j > i && mesh.positions[i].distance(mesh.positions[j]) >= rest_gap {
                    let d = p.distance(positions[j]);
                    if d < rest_gap {
                        closest = closest.min(d);
                    }
                }
            }
        }
    }
    closest
}

/// Items sorted into cubic cells of one size by the cells their boxes overlap.
struct CellGrid {
    size: f32,
    cells: HashMap<IVec3, Vec<u32>>,
}

impl CellGrid {
    fn new(size: f32, items: impl Iterator<Item = (u32, Vec3, Vec3)>) -> Self {
        let mut grid = Self { size, cells: HashMap::new() };
        for (item, low, high) in items {
            let (low, high) = (grid.key(low), grid.key(high));
            for x in low.x..=high.x {
                for y in low.y..=high.y {
                    for z in low.z..=high.z {
                        grid.cells.entry(IVec3::new(x, y, z)).or_default().push(item);
                    }
                }
            }
        }
        grid
    }

    /// The cell holding `p`.
    fn key(&self, p: Vec3) -> IVec3 {
        (p / self.size).floor().as_ivec3()
    }
}
