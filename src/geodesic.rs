//! Geodesic distances on a triangle mesh at rest: the length of the shortest path *on the
//! surface*, not over its edges. Over the edges, a path on a checkerboard grid near 22.5° from
//! the axes is 8 % longer than the straight line across the flat sheet; a tether at that length
//! lets the cloth hang 8 % long.
//!
//! Fast marching (Kimmel & Sethian 1998) with the exact update of a point source: a triangle
//! `abc` whose corners `a` and `b` are settled at distances `dₐ`, `d_b` unfolds the source into
//! its plane, at the point `s` on the far side of `ab` with `|s − a| = dₐ` and `|s − b| = d_b`,
//! and gives `c` the distance `|c − s|` when the straight line from `s` to `c` crosses the edge
//! `ab`; otherwise (the path bends round a corner of the boundary, or the triangle is obtuse)
//! `c` takes the path over the edge from `a` or `b`. A vertex is settled nearest first, as in
//! Dijkstra's search, but reopened when a later update finds it a shorter path: behind an obtuse
//! triangle the corners a straight path crosses between may settle after the vertex it reaches.
//! On a mesh whose triangles unfold into a
//! plane (a flat sheet, a cylinder, a cone) every distance whose straight unfolded path crosses
//! edges is exact; elsewhere the update is the usual first-order one. No distance is less than
//! the straight line through space or more than the path over the edges.

use crate::graph::Csr;
use glam::{DVec3, Vec3};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// How much shorter (relative) a new path must be to reopen a settled vertex: more than rounding.
const IMPROVEMENT: f64 = 1e-12;

/// A triangle mesh at rest, ready for distance queries.
#[derive(Debug, Clone, PartialEq)]
pub struct GeodesicSurface {
    positions: Vec<DVec3>,
    triangles: Vec<[u32; 3]>,
    /// The triangles at each vertex.
    triangles_at: Csr,
}

impl GeodesicSurface {
    /// The surface of `triangles` over `positions` (indices must be in range).
    pub fn new(positions: &[Vec3], triangles: &[[u32; 3]]) -> Self {
        Self {
            positions: positions.iter().map(|p| p.as_dvec3()).collect(),
            triangles: triangles.to_vec(),
            triangles_at: Csr::from_rows(triangles).transpose(positions.len()),
        }
    }

    /// The geodesic distance from vertex `source` to every vertex (m; `∞` where no triangle
    /// connects them).
    ///
    /// # Panics
    /// If `source` is not a vertex.
    pub fn distances_from(&self, source: u32) -> Vec<f64> {
        let n = self.positions.len();
        let mut distance = vec![f64::INFINITY; n];
        let mut settled = vec![false; n];
        let mut front = BinaryHeap::new();
        distance[source as usize] = 0.0;
        front.push(Reverse((Ordered(0.0), source)));
        while let Some(Reverse((Ordered(d), i))) = front.pop() {
            if d > distance[i as usize] {
                continue;
            }
            settled[i as usize] = true;
            for &t in self.triangles_at.row(i as usize) {
                let corners = self.triangles[t as usize];
                let at = corners.iter().position(|&c| c == i).expect("a triangle at i has i as a corner");
                let others = [corners[(at + 1) % 3], corners[(at + 2) % 3]];
                for (target, other) in [(others[0], others[1]), (others[1], others[0])] {
                    let mut candidate = d + self.position(i).distance(self.position(target));
                    if settled[other as usize] {
                        let across = self.across_edge([i, other], target, &distance);
                        candidate = candidate.min(across.unwrap_or(f64::INFINITY));
                    }
                    if candidate < distance[target as usize] * (1.0 - IMPROVEMENT) {
                        distance[target as usize] = candidate;
                        front.push(Reverse((Ordered(candidate), target)));
                    }
                }
            }
        }
        let straight = |i: usize| self.positions[i].distance(self.positions[source as usize]);
        (0..n).map(|i| if distance[i].is_finite() { distance[i].max(straight(i)) } else { distance[i] }).collect()
    }

    fn position(&self, i: u32) -> DVec3 {
        self.positions[i as usize]
    }

    /// The distance of `c` from the source unfolded across the edge `ab` of triangle `abc`, if
    /// the straight unfolded path from it to `c` crosses that edge. The corners are taken in
    /// index order, so the result does not depend on which one settled last.
    fn across_edge(&self, edge: [u32; 2], c: u32, distance: &[f64]) -> Option<f64> {
        let [a, b] = if edge[0] < edge[1] { edge } else { [edge[1], edge[0]] };
        let (da, db) = (distance[a as usize], distance[b as usize]);
        let (xa, xb, xc) = (self.position(a), self.position(b), self.position(c));
        let length = xa.distance(xb);
        if length <= 0.0 {
            return None;
        }
        // The triangle's plane: a at the origin, b on the x axis, c above it.
        let along = (xb - xa) / length;
        let to_c = xc - xa;
        let cx = to_c.dot(along);
        let cy = (to_c - along * cx).length();
        if cy <= 0.0 {
            return None;
        }
        // The source below the axis, at dₐ from a and d_b from b.
        let sx = (da * da - db * db + length * length) / (2.0 * length);
        let sy_squared = da * da - sx * sx;
        let sy = if sy_squared >= 0.0 {
            sy_squared.sqrt()
        } else if sy_squared >= -1e-12 * da * da {
            0.0
        } else {
            return None;
        };
        let crossing = sx + (cx - sx) * sy / (sy + cy);
        let slack = 1e-9 * length;
        if crossing < -slack || crossing > length + slack {
            return None;
        }
        Some((cx - sx).hypot(cy + sy))
    }
}

/// A finite distance, ordered totally.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Ordered(f64);

impl Eq for Ordered {}

impl PartialOrd for Ordered {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ordered {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}
