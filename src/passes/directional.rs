//! The directional strain limit (Ozgen & Kallmann 2011, *Directional Constraint Enforcement*,
//! Alg. 1, made one-sided): a hanging cloth at few iterations stays long because its edges
//! carry the weight below them to the pins through a chain that Gauss-Seidel tightens one
//! sweep at a time. Walking the chain once, from the pins outwards, shortens each edge after
//! the edge above it is already short: one pass removes what many iterations would.
//!
//! The edges walked form a spanning forest of the stretch edges grown breadth-first from the
//! pinned particles at once ([`DirectionalForest`]): each free particle reached gets one parent,
//! its neighbour one level nearer the pins by the shortest rest edge (on a grid, an edge along
//! the weave before a shear diagonal, the paper's horizontal → vertical → shear order). Level by
//! level, an edge whose child is more than `(1 + slack)` times its rest length from its parent
//! moves the child back onto that distance along the edge ([`directional_correction`]); the
//! parent, a pin or already limited, does not move.
//!
//! Written as the paper has it (rest length both ways, the correction becoming velocity), the
//! pass blew a two-pin hanging cloth up (BENCHMARKS.md, "Directional enforcement"): a one-sided
//! correction from a free parent gives the child momentum the parent never loses, and pushing
//! compressed wrinkles apart injects a velocity every frame. So here it only shortens edges
//! longer than the slack, and a correction moves the child's position at the substep's start
//! `x` with its predicted position `p`, not its displacement `q`: the velocity finalize derives
//! from `q` does not carry it. It runs once per frame, after the last substep's iterations,
//! tethers and self-collision and before its finalize, so the collision response still has the
//! last word. But finalize sweeps a particle's path from its moved `x`: a child pulled along a
//! chord into a curved collider is pushed back out (the push becomes velocity, as any push
//! does), and one pulled right through a thin collider in one frame (a pin target that jumps far)
//! is pushed out on the far side; and nothing checks the move against self-collision's
//! thickness. A cloth whose edges are all within the slack (one at rest) is not touched.
//!
//! Where separate pins share a cloth, their trees meet at a seam, and shortening each tree
//! towards its own pin moves the seam's two sides apart: the stretch the limit removes from the
//! trees gathers in the seam's edges, which no tree limits. Along a pinned edge (a flag, a
//! curtain) the trees hang side by side and nothing gathers; between two pinned corners it does
//! (BENCHMARKS.md, "The directional limit"), which is why the limit is an option.
//!
//! On the GPU, one workgroup walks the levels (a storage barrier between levels), in one
//! dispatch per frame, more where a CPU adapter's loop limit needs the levels split.
//! WGSL twin: `shaders/passes/directional.wgsl`.

use super::plan::{DispatchInfo, FramePlan};
use super::{Build, CpuFrame, Kernel, LayoutRefused, Part, Pass, Setup, Shader, Stage, Uploads};
use crate::error::Error;
use crate::graph::{bfs, Csr, UNSEEN};
use crate::math::GEOMETRY_EPSILON;
use crate::model::ClothModel;
use crate::struct_layout;
use crate::wgsl::{Binding, BindingTable, StructLayout};
use crate::wgsl_file;
use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use std::sync::Arc;

/// One limited edge: `child` is kept within the limit of `rest_length` from `parent`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ForestEdge {
    /// The particle that moves.
    pub child: u32,
    /// A pin, or a child of an earlier level.
    pub parent: u32,
    /// The edge's length at rest (m).
    pub rest_length: f32,
}

/// The edges the directional limit walks, in walking order: level `k` (the children `k + 1`
/// edges from the pins) is `edges[level_offsets[k]..level_offsets[k + 1]]`, and no particle is
/// a child twice.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DirectionalForest {
    level_offsets: Vec<u32>,
    edges: Vec<ForestEdge>,
}

impl DirectionalForest {
    /// The forest of `model`'s stretch edges grown from the pinned particles of
    /// `inverse_masses` (0 = pinned): breadth-first levels from every pin at once, each free
    /// particle reached taking as parent its neighbour on the level before through the
    /// shortest rest edge (ties: the lower index). Particles no pin reaches are left out; with
    /// no pin the forest is empty.
    ///
    /// # Panics
    /// If `inverse_masses` does not have one entry per particle.
    pub fn build(model: &ClothModel, inverse_masses: &[f32]) -> Self {
        let mesh = model.mesh();
        let n = mesh.positions.len();
        assert_eq!(inverse_masses.len(), n, "one inverse mass per particle");
        let edges = mesh.edges().expect("a model's mesh is validated");
        let graph = Csr::from_pairs(n, edges.iter().flat_map(|e| [(e.a, e.b), (e.b, e.a)]));
        let pins: Vec<u32> = (0..n as u32).filter(|&i| inverse_masses[i as usize] == 0.0).collect();
        let mut levels = vec![UNSEEN; n];
        let order = bfs(&pins, &graph, &mut levels);
        let rest = |a: u32, b: u32| mesh.positions[a as usize].distance(mesh.positions[b as usize]);
        let mut forest = Self { level_offsets: vec![0], edges: Vec::new() };
        // `bfs` visits level by level, so the children come out grouped by level.
        for child in order.into_iter().filter(|&i| levels[i as usize] > 0) {
            let level = levels[child as usize] as usize;
            let parent = graph
                .row(child as usize)
                .iter()
                .copied()
                .filter(|&u| levels[u as usize] as usize + 1 == level)
                .min_by(|&u, &v| rest(child, u).total_cmp(&rest(child, v)).then(u.cmp(&v)))
                .expect("a particle on level k > 0 has a neighbour on level k − 1");
            if forest.level_offsets.len() < level {
                forest.level_offsets.push(forest.edges.len() as u32);
            }
            forest.edges.push(ForestEdge { child, parent, rest_length: rest(child, parent) });
        }
        if !forest.edges.is_empty() {
            forest.level_offsets.push(forest.edges.len() as u32);
        }
        forest
    }

    /// Number of levels.
    pub fn level_count(&self) -> usize {
        self.level_offsets.len() - 1
    }

    /// The edges of level `k`, whose parents are pins or children of earlier levels.
    pub fn level(&self, k: usize) -> &[ForestEdge] {
        &self.edges[self.level_offsets[k] as usize..self.level_offsets[k + 1] as usize]
    }

    /// Every edge, level after level.
    pub fn edges(&self) -> &[ForestEdge] {
        &self.edges
    }

    /// The GPU words (`directional_forest` in `shaders/passes/directional.wgsl`): the level
    /// offsets (one more than levels), then `(child, parent, rest length bits)` per edge.
    pub fn words(&self) -> Vec<u32> {
        let edges = self.edges.iter().flat_map(|e| [e.child, e.parent, e.rest_length.to_bits()]);
        self.level_offsets.iter().copied().chain(edges).collect()
    }
}

/// The correction of a child at `p` whose parent is at `a`, for an edge that may be at most
/// `limit` long: onto the sphere of radius `limit` about `a` along `p − a` when farther,
/// `Δp = (p − a)(limit/|p − a| − 1)`; zero when within it (the limit never pushes).
pub fn directional_correction(p: Vec3, a: Vec3, limit: f32) -> Vec3 {
    let delta = p - a;
    let length = delta.length();
    // Written as the WGSL twin's select: a NaN length shortens nothing on either side.
    if !(length > limit && length >= GEOMETRY_EPSILON) {
        return Vec3::ZERO;
    }
    delta * (limit / length - 1.0)
}

/// The directional pass: the forest, grown again when the pins change.
#[derive(Debug, Clone, Default)]
pub(crate) struct DirectionalPass {
    /// The forest and the pins it was grown from, once the limit is used.
    forest: Option<(Arc<DirectionalForest>, Vec<bool>)>,
}

impl DirectionalPass {
    /// The forest and the limit's stretch ratio `1 + slack`, when the pass runs: switched on in
    /// a projecting mode, on a cloth with a pinned particle.
    fn active(&self, setup: &Setup) -> Option<(&DirectionalForest, f32)> {
        let limit = setup.params.active_directional()?;
        let forest = &self.forest.as_ref()?.0;
        (!forest.edges.is_empty()).then_some((forest, 1.0 + limit.slack))
    }
}

impl Pass for DirectionalPass {
    fn name(&self) -> &'static str {
        "directional"
    }

    fn stage(&self) -> Stage {
        Stage::Substep
    }

    fn shaders(&self, build: &Build) -> Vec<Shader> {
        let size = f64::from(build.facts.sizes.substep);
        vec![Shader {
            label: "directional",
            constants: Vec::new(),
            groups: vec![&DIRECTIONAL],
            parts: vec![Part::File(wgsl_file!("passes/directional.wgsl"))],
            structs: Vec::new(),
            block: Some(("directional", GpuDirectionalParams::LAYOUT)),
            kernels: vec![Kernel { overrides: vec![("SUBSTEP_WORKGROUP_SIZE", size)], ..Kernel::plain(LIMIT) }],
        }]
    }

    /// The forest holds at most one edge and one level per particle.
    fn capacity(&self, model: &ClothModel) -> Vec<(&'static str, u64)> {
        vec![("directional_forest", 4 * (4 * model.particle_count() as u64 + 1))]
    }

    /// Grows the forest the first time the limit is used, and again when the pins change.
    fn prepare(&mut self, setup: &Setup, uploads: &mut Uploads) -> Result<(), Error> {
        let ratio = setup.params.active_directional().map_or(1.0, |limit| 1.0 + limit.slack);
        if setup.params.active_directional().is_some() {
            let w = setup.pins.inverse_masses();
            let pinned: Vec<bool> = w.iter().map(|&w| w == 0.0).collect();
            if self.forest.as_ref().is_none_or(|(_, grown_from)| *grown_from != pinned) {
                let forest = Arc::new(DirectionalForest::build(setup.model, w));
                uploads.words("directional_forest", || forest.words());
                self.forest = Some((forest, pinned));
            }
        }
        let level_count = self.forest.as_ref().map_or(0, |(forest, _)| forest.level_count() as u32);
        uploads.block("directional", || GpuDirectionalParams { ratio, level_count, _pad: [0; 2] });
        Ok(())
    }

    /// In the frame's last substep: one dispatch of one workgroup over every level, or the
    /// levels split over as few dispatches as keep a CPU adapter's invocations within its loop
    /// budget. Refused where one level alone would pass it (millions of particles a level).
    fn dispatch(&self, setup: &Setup, plan: &mut FramePlan, substep: u32) -> Result<(), LayoutRefused> {
        let Some((forest, _)) = self.active(setup) else { return Ok(()) };
        if substep + 1 != setup.params.substeps {
            return Ok(());
        }
        let size = plan.facts.sizes.substep as u64;
        let budget = plan.facts.loop_budget().unwrap_or(u64::MAX);
        let (mut first, mut cost) = (0, 0);
        for k in 0..forest.level_count() {
            // The level loop's turn and each thread's turns over the level's edges.
            let level_cost = 1 + (forest.level(k).len() as u64).div_ceil(size);
            if level_cost > budget {
                return Err(LayoutRefused);
            }
            if cost + level_cost > budget {
                push_levels(plan, first..k);
                (first, cost) = (k, 0);
            }
            cost += level_cost;
        }
        push_levels(plan, first..forest.level_count());
        Ok(())
    }

    /// Level by level, in the frame's last substep.
    fn run_cpu(&mut self, setup: &Setup, frame: &mut CpuFrame, substep: u32) {
        let Some((forest, ratio)) = self.active(setup) else { return };
        if substep + 1 != setup.params.substeps {
            return;
        }
        let state = &mut *frame.solve;
        for edge in forest.edges() {
            let (child, parent) = (edge.child as usize, edge.parent as usize);
            let dp = directional_correction(state.position(child), state.position(parent), ratio * edge.rest_length);
            state.positions[child] += dp;
            frame.positions[child] = state.positions[child];
        }
    }
}

/// The kernel.
const LIMIT: &str = "limit_directional";

/// One dispatch of the kernel over `levels`, in one workgroup (the dispatch entry's colour
/// range carries the levels).
fn push_levels(plan: &mut FramePlan, levels: std::ops::Range<usize>) {
    let info =
        DispatchInfo { colour_first: levels.start as u32, colour_count: levels.len() as u32, ..DispatchInfo::zeroed() };
    plan.push(LIMIT, info, [1, 1]);
}

/// Group 1 of the directional limit.
static DIRECTIONAL: BindingTable = BindingTable {
    label: "directional",
    bindings: &[
        Binding::read_write(
            "positions",
            "array<vec4<f32>>",
            16,
            "x: positions at the start of the substep (w = 1); the pass moves the limited children.",
        ),
        Binding::read("velocities", "array<vec4<f32>>", 16, super::VELOCITIES),
        Binding::read(
            "directional_forest",
            "array<u32>",
            4,
            "Words (DirectionalForest::words): the level offsets (params.directional.level_count + 1),\n\
             then (child, parent, rest length bits) per edge, level after level.",
        ),
    ],
};

/// `DirectionalParams` in WGSL.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuDirectionalParams {
    /// The most an edge may be stretched, `1 + slack`.
    pub ratio: f32,
    /// The forest's levels.
    pub level_count: u32,
    /// Pads the block to 16 bytes.
    pub _pad: [u32; 2],
}

impl GpuDirectionalParams {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout = struct_layout!(GpuDirectionalParams as "DirectionalParams", ratio, level_count);
}
