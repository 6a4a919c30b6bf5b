//! Area limits (GAMES103 lecture 6, strain limiting): each triangle's area is kept within
//! `[min, max]` times its rest area by scaling the triangle about its centre of mass by
//! `s = sqrt(A'/A)`, `A'` the area clamped to the limits. A uniform scaling changes no angle, so
//! the limit bounds how much the material grows or shrinks as a whole without fighting the
//! shear and bending that edge limits would, and scaling about the centre of mass keeps the
//! triangle's linear and angular momentum.
//!
//! The limits are projected once per substep after the iterations (before the tethers), triangle
//! by triangle in Gauss-Seidel order: the triangles are coloured so that those of one colour
//! share no particle, and the GPU projects a colour per dispatch, a thread per triangle. Each
//! projection leaves its triangle exactly within the limits; later triangles of the sweep can
//! move its corners again, so a sweep ends close to the limits, not on them. WGSL twin:
//! `shaders/passes/area_limits.wgsl`.

use super::plan::{workgroups_for, DispatchInfo, FramePlan};
use super::{Build, CpuFrame, Kernel, LayoutRefused, Part, Pass, Setup, Shader, Stage, Uploads, SOLVE};
use crate::constraints::stretch::StrainLimits;
use crate::constraints::SolveState;
use crate::error::Error;
use crate::graph::Csr;
use crate::math::{weighted_face_normal, GEOMETRY_EPSILON};
use crate::model::ClothModel;
use crate::schedule::coloring::colour_units;
use crate::struct_layout;
use crate::wgsl::{Binding, BindingTable, Constant, StructLayout};
use crate::wgsl_file;
use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use std::ops::Range;
use std::sync::Arc;

/// Most one projection multiplies a triangle's area by (`MAX_AREA_GROWTH` in WGSL, generated).
/// Growing a collapsed sliver to its lower limit at once would scale its long edges by the same
/// large factor; it is grown over several substeps instead, while the edge constraints hold its
/// lengths.
pub const MAX_AREA_GROWTH: f32 = 2.0;

/// A cloth's triangles with their rest areas, in colour order: colour `k` is the triangles
/// `colours[k]`, which share no particle.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TriangleAreas {
    triangles: Vec<[u32; 3]>,
    rest_areas: Vec<f32>,
    colours: Vec<Range<u32>>,
}

impl TriangleAreas {
    /// The model's triangles, coloured (DSatur, [`colour_units`]), with their areas in the rest
    /// state.
    pub fn new(model: &ClothModel) -> Self {
        let mesh = model.mesh();
        let units = Csr::from_rows(&mesh.triangles);
        let members: Vec<u32> = (0..mesh.triangles.len() as u32).collect();
        let mut areas = Self::default();
        for group in colour_units(&units, model.vertex_triangles(), &members) {
            let start = areas.triangles.len() as u32;
            for t in group {
                let triangle = mesh.triangles[t as usize];
                let [p0, p1, p2] = triangle.map(|i| mesh.positions[i as usize]);
                areas.triangles.push(triangle);
                areas.rest_areas.push(0.5 * weighted_face_normal(p0, p1, p2).length());
            }
            areas.colours.push(start..areas.triangles.len() as u32);
        }
        areas
    }

    /// Number of triangles.
    pub fn len(&self) -> usize {
        self.triangles.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty()
    }

    /// Each colour's range of triangles, in projection order.
    pub fn colours(&self) -> &[Range<u32>] {
        &self.colours
    }

    /// Triangle `t`'s particles and rest area (m²), in colour order.
    pub fn triangle(&self, t: usize) -> ([u32; 3], f32) {
        (self.triangles[t], self.rest_areas[t])
    }

    /// The GPU words (`area_triangles` in `shaders/passes/area_limits.wgsl`): the three particles
    /// and the rest area's bits per triangle, in colour order.
    pub fn words(&self) -> Vec<u32> {
        let triangles = self.triangles.iter().zip(&self.rest_areas);
        triangles.flat_map(|(&[a, b, c], area)| [a, b, c, area.to_bits()]).collect()
    }
}

/// The corrections of a triangle's corners `p` (inverse masses `w`, 0 for pinned) that bring
/// its area `A` to `A' = clamp(A, limits.min·rest, limits.max·rest)`, growing it at most
/// [`MAX_AREA_GROWTH`] times:
/// - no corner pinned: scaling by `s = sqrt(A'/A)` about the centre of mass
///   `c = Σ p_i/w_i / Σ 1/w_i`, `Δp_i = (s − 1)(p_i − c)`; both momenta are kept;
/// - one pinned: the same about the pinned corner (the limit of infinite mass);
/// - two pinned: the free corner's height above the pinned edge scaled by `A'/A`;
/// - three: none.
///
/// Zero within the limits, for a degenerate triangle and for two pinned corners in one place
/// (no direction to scale in).
pub fn area_limit_corrections(p: [Vec3; 3], w: [f32; 3], rest_area: f32, limits: StrainLimits) -> [Vec3; 3] {
    let doubled = weighted_face_normal(p[0], p[1], p[2]).length();
    let area = 0.5 * doubled;
    let limited = area.clamp(limits.min * rest_area, limits.max * rest_area);
    let pinned = w.map(|w| w == 0.0);
    if doubled < GEOMETRY_EPSILON || limited == area {
        return [Vec3::ZERO; 3];
    }
    let ratio = (limited / area).min(MAX_AREA_GROWTH);
    match pinned.iter().filter(|&&pinned| pinned).count() {
        0 => {
            let mass = w.map(|w| 1.0 / w);
            let centre = (p[0] * mass[0] + p[1] * mass[1] + p[2] * mass[2]) / (mass[0] + mass[1] + mass[2]);
            scaled_about(p, centre, ratio.sqrt())
        }
        1 => {
            let anchor = pinned.iter().position(|&pinned| pinned).expect("one is pinned");
            scaled_about(p, p[anchor], ratio.sqrt())
        }
        2 => {
            let free = pinned.iter().position(|&pinned| !pinned).expect("one is free");
            let (a, b) = (p[(free + 1) % 3], p[(free + 2) % 3]);
            let edge = b - a;
            if edge.length_squared() < GEOMETRY_EPSILON * GEOMETRY_EPSILON {
                return [Vec3::ZERO; 3];
            }
            let foot = a + edge * ((p[free] - a).dot(edge) / edge.length_squared());
            let mut corrections = [Vec3::ZERO; 3];
            corrections[free] = (p[free] - foot) * (ratio - 1.0);
            corrections
        }
        _ => [Vec3::ZERO; 3],
    }
}

/// `Δp_i = (s − 1)(p_i − centre)`.
fn scaled_about(p: [Vec3; 3], centre: Vec3, s: f32) -> [Vec3; 3] {
    p.map(|p| (p - centre) * (s - 1.0))
}

/// Projects the area limit of triangle `t` (colour order) on the state (CPU reference).
pub(crate) fn project_area_limit(areas: &TriangleAreas, t: usize, limits: StrainLimits, state: &mut SolveState) {
    let (triangle, rest_area) = areas.triangle(t);
    let corners = triangle.map(|i| i as usize);
    let p = corners.map(|i| state.position(i));
    let w = corners.map(|i| state.inverse_masses[i]);
    for (i, dp) in corners.into_iter().zip(area_limit_corrections(p, w, rest_area, limits)) {
        state.displacements[i] += dp;
    }
}

/// The area limits pass.
#[derive(Debug, Clone, Default)]
pub(crate) struct AreaLimitsPass {
    /// The coloured triangles, once area limits are used.
    areas: Option<Arc<TriangleAreas>>,
}

impl AreaLimitsPass {
    /// The triangles and the limits, when they are projected: switched on, in a mode that
    /// projects.
    fn active(&self, setup: &Setup) -> Option<(&TriangleAreas, StrainLimits)> {
        Some((self.areas.as_deref()?, setup.params.active_area_limits()?))
    }
}

impl Pass for AreaLimitsPass {
    fn name(&self) -> &'static str {
        "area_limits"
    }

    fn stage(&self) -> Stage {
        Stage::Substep
    }

    fn shaders(&self, _build: &Build) -> Vec<Shader> {
        vec![Shader {
            label: "area limits",
            constants: vec![Constant::f32("MAX_AREA_GROWTH", MAX_AREA_GROWTH)],
            groups: vec![&SOLVE, &AREA_LIMITS],
            parts: vec![Part::File(wgsl_file!("passes/area_limits.wgsl"))],
            structs: Vec::new(),
            block: Some(("area_limits", GpuAreaLimitParams::LAYOUT)),
            kernels: vec![Kernel::plain("limit_areas")],
        }]
    }

    /// Colours the triangles the first time the limits are used.
    fn prepare(&mut self, setup: &Setup, uploads: &mut Uploads) -> Result<(), Error> {
        if setup.params.active_area_limits().is_some() && self.areas.is_none() {
            let areas = self.areas.insert(Arc::new(TriangleAreas::new(setup.model)));
            uploads.words("area_triangles", || areas.words());
        }
        let limits = setup.params.area_limits.map_or([0.0; 2], |l| [l.min, l.max]);
        uploads.block("area_limits", || GpuAreaLimitParams { limits, _pad: [0; 2] });
        Ok(())
    }

    /// A dispatch per colour, a thread per triangle.
    fn dispatch(&self, setup: &Setup, plan: &mut FramePlan, _substep: u32) -> Result<(), LayoutRefused> {
        if let Some((areas, _)) = self.active(setup) {
            for colour in areas.colours() {
                let info = DispatchInfo {
                    colour_first: colour.start,
                    colour_count: colour.len() as u32,
                    ..DispatchInfo::zeroed()
                };
                plan.push("limit_areas", info, workgroups_for(colour.len() as u32));
            }
        }
        Ok(())
    }

    /// Triangle by triangle in colour order.
    fn run_cpu(&mut self, setup: &Setup, frame: &mut CpuFrame, _substep: u32) {
        if let Some((areas, limits)) = self.active(setup) {
            for t in 0..areas.len() {
                project_area_limit(areas, t, limits, frame.solve);
            }
        }
    }
}

/// Group 2 of the area limits.
static AREA_LIMITS: BindingTable = BindingTable {
    label: "area limits",
    bindings: &[Binding::read(
        "area_triangles",
        "array<vec4<u32>>",
        16,
        "(a, b, c, rest area bits) per triangle, colour after colour (TriangleAreas::words).",
    )],
};

/// `AreaLimitParams` in WGSL.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuAreaLimitParams {
    /// `[min, max]` ratios of the rest area (zero while off).
    pub limits: [f32; 2],
    /// Pads the block to 16 bytes.
    pub _pad: [u32; 2],
}

impl GpuAreaLimitParams {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout = struct_layout!(GpuAreaLimitParams as "AreaLimitParams", limits);
}
