//! The textile lab's tests as scenes: Peirce's cantilever (ASTM D1388), which measures a
//! fabric's bending rigidity, and Cusick's drape test (ISO 9073-9, BS 5058), which measures how
//! it drapes. Each builds its cloth from a [`Fabric`] and reads its result off the positions
//! the way the lab reads it off the specimen.

use crate::error::{Error, ParamError};
use crate::fabric::Fabric;
use crate::mesh::{ClothMesh, GridPlane};
use crate::model::ClothModel;
use glam::{Vec2, Vec3};
use std::f32::consts::PI;

/// The angle below the horizontal that the line from the table edge to the strip's tip reaches
/// at the overhang the standard reads (ASTM D1388): 41.5°, where Peirce's formula gives the
/// bending length as half the overhang.
pub const PEIRCE_ANGLE: f32 = 41.5 * PI / 180.0;
/// The strip's width (m): ASTM D1388 cuts 25 mm × 200 mm strips.
pub const STRIP_WIDTH: f32 = 0.025;
/// How much of the strip lies clamped on the table (m): the table holds it flat, so only the
/// clamp's last cells matter to the overhang.
pub const STRIP_ON_TABLE: f32 = 0.02;
/// The table's height (m); its edge is the line `x = 0`, `y = TABLE_HEIGHT`.
pub const TABLE_HEIGHT: f32 = 0.5;

/// Peirce's bending length `c = (B/W)^(1/3)` of `fabric` along its warp, `W = ρ g` its weight
/// per unit area (m), for `gravity` > 0 (m/s²).
pub fn bending_length(fabric: &Fabric, gravity: f32) -> f32 {
    (fabric.bending.warp / (fabric.density * gravity)).cbrt()
}

/// Peirce's formula (Peirce 1930, the cantilever of ASTM D1388): a strip whose tip line hangs
/// `angle` below the horizontal at overhang `overhang` has the bending length
/// `c = l (cos(θ/2) / (8 tan θ))^(1/3)`, half the overhang at 41.5°; for `angle` in (0, π/2).
pub fn peirce_bending_length(overhang: f32, angle: f32) -> f32 {
    overhang * ((angle / 2.0).cos() / (8.0 * angle.tan())).cbrt()
}

/// A strip of a fabric clamped on a table, its warp along the strip, reaching `overhang` metres
/// past the edge.
///
/// Where the clamp ends: a hinge bends the strip over the half cell on either side of it (its
/// stiffness `B |e|²/(A₁ + A₂)` spreads the curvature over both triangles), so the last clamped
/// column lies half a cell past the edge, and the first hinge that bends begins its half cell
/// at the edge, as the strip's curvature does. With that column on the edge, the first hinge
/// took the curvature of half a cell of table too: the strip drooped like one of 0.57 times
/// its rigidity at 4 cells and 0.69 at 8 (an error of order one cell over the overhang).
#[derive(Debug, Clone)]
pub struct Cantilever {
    /// The strip, clamped (pinned) wherever it lies on the table.
    pub model: ClothModel,
    /// How far it reaches past the edge (m).
    pub overhang: f32,
}

impl Cantilever {
    /// A strip of `fabric` `overhang` metres past the edge in `cells` free cells (and the half
    /// cell clamped past the edge), plus [`STRIP_ON_TABLE`] on the table, [`STRIP_WIDTH`] wide.
    pub fn new(fabric: &Fabric, overhang: f32, cells: u32) -> Result<Self, Error> {
        Self::with_width(fabric, overhang, cells, STRIP_WIDTH)
    }

    /// [`Cantilever::new`] with a strip `width` metres wide (at least one cell).
    pub fn with_width(fabric: &Fabric, overhang: f32, cells: u32, width: f32) -> Result<Self, Error> {
        let bad = |name, value: String, expected| ParamError { name, value, expected };
        if !(overhang.is_finite() && overhang > 0.0) {
            return Err(bad("overhang", overhang.to_string(), "finite and > 0 m").into());
        }
        if !(1..=MAX_LAB_CELLS).contains(&cells) {
            return Err(bad("cells", cells.to_string(), "in 1..=4096").into());
        }
        if !(width.is_finite() && width > 0.0) {
            return Err(bad("width", width.to_string(), "finite and > 0 m").into());
        }
        let spacing = overhang / (cells as f32 + 0.5);
        let on_table = (STRIP_ON_TABLE / spacing).ceil().max(2.0);
        let across = (width / spacing).round().max(1.0);
        if on_table + across > MAX_LAB_CELLS as f32 {
            let expected = "a strip of at most 4096 cells on the table and across";
            return Err(bad("cells", format!("{on_table} on the table, {across} across"), expected).into());
        }
        let (on_table, across) = (on_table as u32, across as u32);
        let (nx, nz) = (on_table + cells + 1, across + 1);
        let first = 0.5 * spacing - on_table as f32 * spacing;
        let origin = Vec3::new(first, TABLE_HEIGHT, -0.5 * across as f32 * spacing);
        let mesh = ClothMesh::grid(nx, nz, spacing, GridPlane::Horizontal, origin)?;
        let pins: Vec<u32> = (0..nz).flat_map(|j| (0..=on_table).map(move |i| j * nx + i)).collect();
        Ok(Self { model: ClothModel::from_fabric(mesh, fabric, &pins)?, overhang })
    }
}

/// The most cells the lab's rigs take along a side: a cantilever's overhang, table part or
/// width, a Cusick disc's diameter.
pub const MAX_LAB_CELLS: u32 = 4096;

/// What the cantilever reads off a strip at rest.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CantileverReading {
    /// How far the strip reaches past the edge at rest (m).
    pub overhang: f32,
    /// The angle below the horizontal of the line from the table edge to the tip (rad).
    pub tip_angle: f32,
    /// Peirce's bending length at that angle ([`peirce_bending_length`], m).
    pub bending_length: f32,
    /// The bending rigidity it gives, `W c³` with `W = ρ g` (N·m).
    pub rigidity: f32,
}

/// The cantilever reading of a strip built by [`Cantilever::new`] (its free end the particles
/// farthest along `x` at rest) at `positions`, under `gravity` (m/s², > 0); `None` unless the
/// tip hangs below the table and past its edge (a tip line between 0° and 90°, where Peirce's
/// formula holds).
pub fn cantilever_reading(model: &ClothModel, positions: &[Vec3], gravity: f32) -> Option<CantileverReading> {
    let rest = &model.mesh().positions;
    let far = rest.iter().map(|p| p.x).fold(f32::NEG_INFINITY, f32::max);
    let tip: Vec<Vec3> = (0..rest.len()).filter(|&i| rest[i].x >= far - 1e-6).map(|i| positions[i]).collect();
    let tip = tip.iter().sum::<Vec3>() / tip.len().max(1) as f32;
    let tip_angle = (TABLE_HEIGHT - tip.y).atan2(tip.x);
    if !(tip_angle > 0.0 && tip_angle < 0.5 * PI && gravity > 0.0) {
        return None;
    }
    let bending_length = peirce_bending_length(far, tip_angle);
    let density = model.masses().iter().sum::<f32>() / model.mesh().area();
    let rigidity = density * gravity * bending_length.powi(3);
    Some(CantileverReading { overhang: far, tip_angle, bending_length, rigidity })
}

/// The radius of the Cusick drape tester's specimen (m): a 30 cm disc.
pub const CUSICK_SPECIMEN_RADIUS: f32 = 0.15;
/// The radius of its supporting disc (m): 18 cm across; the specimen is clamped on it.
pub const CUSICK_SUPPORT_RADIUS: f32 = 0.09;

/// The height of the Cusick tester's support (m).
pub const CUSICK_HEIGHT: f32 = 0.3;

/// Cells per bending length at which the Cusick test's reading has converged with the mesh: a
/// fabric's folds are a few bending lengths `c` across, and on a coarser mesh the drape
/// coefficient still moves by more than 0.03 as the cells shrink. `c` is the warp's (the presets'
/// weft is at most 34 % softer: 13 % in `c`). Measured at the scene's 30 × 10 (BENCHMARKS.md,
/// "What resolves a fabric's folds" and "the knit and the denim measured"), as cells per `c`:
/// the measured knit read 0.574 at 3.7, 0.501 at 4.6 and 0.523 at 7.4; the silk 0.43 at 2.9,
/// 0.334 at 4.3 and 0.33 at 5.8; the wool 0.48 at 3.4 and 0.51 at 6.8. The knit, whose membrane
/// is by far the softest, asks the most. A disc that can fold into two numbers of nodes is not
/// settled by cells alone: the shirting read 0.550 with four nodes at 4.6 and 0.615 with five at
/// 6.7 on lavapipe, 0.657 and 0.617 with five at 4.5 and 9 on an NVIDIA H200 (BENCHMARKS.md,
/// "On an NVIDIA H200").
pub const CUSICK_CELLS_PER_BENDING_LENGTH: f32 = 4.6;

/// The fewest cells across the Cusick specimen that resolve `fabric`'s folds under `gravity`
/// (m/s², > 0): [`CUSICK_CELLS_PER_BENDING_LENGTH`] per [`bending_length`].
pub fn cusick_cells(fabric: &Fabric, gravity: f32) -> u32 {
    let cells = 2.0 * CUSICK_SPECIMEN_RADIUS * CUSICK_CELLS_PER_BENDING_LENGTH / bending_length(fabric, gravity);
    if cells.is_finite() {
        (cells.ceil() as u32).clamp(2, MAX_LAB_CELLS)
    } else {
        MAX_LAB_CELLS
    }
}

/// The disc of `fabric` of the Cusick drape test, `cells` cells across its diameter, held flat
/// at `height` over its central [`CUSICK_SUPPORT_RADIUS`].
pub fn cusick_model(fabric: &Fabric, cells: u32, height: f32) -> Result<ClothModel, Error> {
    let mesh = disc(CUSICK_SPECIMEN_RADIUS, cells, height)?;
    let pins: Vec<u32> = (0..mesh.positions.len() as u32)
        .filter(|&i| {
            Vec2::new(mesh.positions[i as usize].x, mesh.positions[i as usize].z).length() <= CUSICK_SUPPORT_RADIUS
        })
        .collect();
    ClothModel::from_fabric(mesh, fabric, &pins)
}

/// A horizontal disc of `radius` at `height`, centred on the `y` axis: the grid of `cells ×
/// cells` cells over its square, cut to the cells whose centre is inside the disc, the corners
/// outside moved in along their radius onto the circle. A cell with a corner outside is split
/// by the diagonal through its outermost corner: split by the other, the moved corner and its
/// two neighbours made a sliver (1:280 at 99 cells). Inside, the grid's checkerboard of
/// diagonals stays, and so do its texture coordinates (the warp along `x`).
fn disc(radius: f32, cells: u32, height: f32) -> Result<ClothMesh, Error> {
    if !(2..=MAX_LAB_CELLS).contains(&cells) {
        return Err(ParamError { name: "cells", value: cells.to_string(), expected: "in 2..=4096" }.into());
    }
    let spacing = 2.0 * radius / cells as f32;
    let n = cells + 1;
    let grid = ClothMesh::grid(n, n, spacing, GridPlane::Horizontal, Vec3::new(-radius, height, -radius))?;
    let flat = |v: u32| Vec2::new(grid.positions[v as usize].x, grid.positions[v as usize].z);
    let mut kept = Vec::new();
    for (k, quad) in grid.triangles.chunks(2).enumerate() {
        let (i, j) = (k as u32 % cells, k as u32 / cells);
        let [a, b, c, d] = [j * n + i, j * n + i + 1, (j + 1) * n + i, (j + 1) * n + i + 1];
        let corners = [a, b, c, d].map(flat);
        if (corners.iter().sum::<Vec2>() / 4.0).length() >= radius {
            continue;
        }
        let outermost = (0..4).max_by(|&p, &q| corners[p].length().total_cmp(&corners[q].length())).unwrap_or(0);
        if corners[outermost].length() <= radius {
            kept.extend_from_slice(quad);
        } else if outermost == 0 || outermost == 3 {
            kept.extend([[a, c, d], [a, d, b]]);
        } else {
            kept.extend([[a, c, b], [b, c, d]]);
        }
    }
    let mut index = vec![u32::MAX; grid.positions.len()];
    let (mut positions, mut uvs) = (Vec::new(), Vec::new());
    let triangles = kept
        .iter()
        .map(|t: &[u32; 3]| {
            t.map(|v| {
                if index[v as usize] == u32::MAX {
                    index[v as usize] = positions.len() as u32;
                    let p = flat(v);
                    let on_circle = if p.length() > radius { p * (radius / p.length()) } else { p };
                    positions.push(Vec3::new(on_circle.x, height, on_circle.y));
                    uvs.push(grid.uvs[v as usize]);
                }
                index[v as usize]
            })
        })
        .collect();
    ClothMesh::new(positions, triangles, Some(uvs))
}

/// What the Cusick drape tester reads off a draped specimen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DrapeReading {
    /// The drape coefficient: the shadow's area outside the support over the annulus's,
    /// `(A_s − π r²)/(A_F − π r²)` with `A_F` the flat specimen's area (the mesh's, a little
    /// under `π R²` where its polygon cuts the circle): 1 for a specimen that stays flat, near
    /// 0 for one that hangs straight down.
    pub coefficient: f32,
    /// The number of nodes (folds): the maxima of the shadow's outline around the support.
    pub nodes: u32,
}

/// Pixels across the square the shadow is measured in.
const SHADOW_PIXELS: usize = 600;
/// Angular bins of the shadow's outline.
const OUTLINE_BINS: usize = 180;

/// The Cusick reading of `model` draped at `positions`: its triangles' shadow on the horizontal
/// plane, rasterised at [`SHADOW_PIXELS`] across the specimen's square (the tester's light from
/// above), and the folds counted on its outline: the farthest shadow in each of
/// [`OUTLINE_BINS`] directions, smoothed over 10°, a node where the outline is the farthest
/// within 20° either side and stands out by a tenth of the annulus's width over the nearest
/// trough on each side.
pub fn drape_reading(model: &ClothModel, positions: &[Vec3]) -> DrapeReading {
    let (r, big_r) = (CUSICK_SUPPORT_RADIUS, CUSICK_SPECIMEN_RADIUS);
    let pixel = 2.0 * big_r / SHADOW_PIXELS as f32;
    let mut shadow = vec![false; SHADOW_PIXELS * SHADOW_PIXELS];
    for t in &model.mesh().triangles {
        let [a, b, c] = t.map(|i| Vec2::new(positions[i as usize].x, positions[i as usize].z));
        let to_pixel = |v: f32| ((v + big_r) / pixel - 0.5).clamp(0.0, (SHADOW_PIXELS - 1) as f32);
        let (lo, hi) = (a.min(b).min(c), a.max(b).max(c));
        let (x0, x1) = (to_pixel(lo.x).floor() as usize, to_pixel(hi.x).ceil() as usize);
        let (z0, z1) = (to_pixel(lo.y).floor() as usize, to_pixel(hi.y).ceil() as usize);
        for pz in z0..=z1 {
            for px in x0..=x1 {
                let p = Vec2::new((px as f32 + 0.5) * pixel - big_r, (pz as f32 + 0.5) * pixel - big_r);
                if inside_triangle(p, a, b, c) {
                    shadow[pz * SHADOW_PIXELS + px] = true;
                }
            }
        }
    }
    let area = shadow.iter().filter(|&&s| s).count() as f32 * pixel * pixel;
    let coefficient = (area - PI * r * r) / (model.mesh().area() - PI * r * r);
    let mut outline = vec![0.0f32; OUTLINE_BINS];
    for (k, _) in shadow.iter().enumerate().filter(|(_, &s)| s) {
        let p = Vec2::new(
            ((k % SHADOW_PIXELS) as f32 + 0.5) * pixel - big_r,
            ((k / SHADOW_PIXELS) as f32 + 0.5) * pixel - big_r,
        );
        let bin = ((p.y.atan2(p.x) + PI) / (2.0 * PI) * OUTLINE_BINS as f32) as usize % OUTLINE_BINS;
        outline[bin] = outline[bin].max(p.length());
    }
    DrapeReading { coefficient, nodes: count_nodes(&outline, 0.1 * (big_r - r)) }
}

/// Whether `p` is in the triangle `a b c` (either winding).
fn inside_triangle(p: Vec2, a: Vec2, b: Vec2, c: Vec2) -> bool {
    let side = |u: Vec2, v: Vec2| (v - u).perp_dot(p - u);
    let (d0, d1, d2) = (side(a, b), side(b, c), side(c, a));
    (d0 >= 0.0 && d1 >= 0.0 && d2 >= 0.0) || (d0 <= 0.0 && d1 <= 0.0 && d2 <= 0.0)
}

/// The maxima of the circular profile `outline` (smoothed over 10°) that are the largest within
/// 20° either side and stand `prominence` above the lowest point on each side before a higher
/// one.
fn count_nodes(outline: &[f32], prominence: f32) -> u32 {
    let n = outline.len();
    let at = |i: isize| outline[i.rem_euclid(n as isize) as usize];
    let half_window = (n / 72) as isize;
    let smooth: Vec<f32> = (0..n as isize)
        .map(|i| (-half_window..=half_window).map(|d| at(i + d)).sum::<f32>() / (2 * half_window + 1) as f32)
        .collect();
    let s = |i: isize| smooth[i.rem_euclid(n as isize) as usize];
    let reach = (n / 18) as isize;
    let stands_out = |i: isize, step: isize| {
        let mut low = s(i);
        let mut j = i + step;
        while (j - i).abs() < n as isize / 2 && s(j) <= s(i) {
            low = low.min(s(j));
            j += step;
        }
        s(i) - low >= prominence
    };
    (0..n as isize)
        .filter(|&i| (1..=reach).all(|d| s(i) >= s(i + d) && s(i) > s(i - d)) && stands_out(i, 1) && stands_out(i, -1))
        .count() as u32
}
