//! Tethers: long-range attachments (Kim, Chentanez & Müller 2012). Each free particle is kept
//! within `scale` times its geodesic rest distance (the shortest path on the rest surface, see
//! [`crate::geodesic`]) from each of its nearest pinned
//! particles (up to [`MAX_ANCHORS`]), a unilateral constraint `|p − a| ≤ scale·r`. Edge
//! constraints alone let a hanging cloth stretch like rubber at few iterations, because the
//! weight below a row reaches the pins only through a chain of edges; a tether holds each
//! particle to the pins directly, in one dispatch.
//!
//! Anchors are pinned, so a tether moves only its particle: the tethers of different particles
//! never share a written particle, and the solver projects them all at once, particle by
//! particle, once per substep after the iterations (`TethersPass`: one dispatch). A particle's
//! own tethers are projected together, in a few sweeps of their weighted mean
//! ([`project_tethers`]), keeping their multipliers through the sweeps: no tether's place in
//! the list favours it. They depend on which particles are pinned, not only on the mesh: the
//! solvers rebuild them whenever the set of pins changes. WGSL twin:
//! `shaders/passes/tethers.wgsl`.

use super::plan::{workgroups_for, DispatchInfo, FramePlan};
use super::{Build, CpuFrame, Kernel, LayoutRefused, Part, Pass, Setup, Shader, Stage, Uploads, SOLVE};
use crate::constraints::{Response, SolveState, DENOMINATOR_EPSILON};
use crate::error::Error;
use crate::geodesic::GeodesicSurface;
use crate::math::GEOMETRY_EPSILON;
use crate::model::ClothModel;
use crate::struct_layout;
use crate::wgsl::{Binding, BindingTable, Constant, StructLayout};
use crate::wgsl_file;
use anchors::{rest_surface, NearestPins};
use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use std::sync::Arc;

mod anchors;

pub use anchors::MAX_ANCHORS;

/// The tethers pass: every tethered particle's tethers projected once per substep, after the
/// iterations and the area limits, a thread per particle.
#[derive(Debug, Clone, Default)]
pub(crate) struct TethersPass {
    tethers: PinnedTethers,
}

impl Pass for TethersPass {
    fn name(&self) -> &'static str {
        "tethers"
    }

    fn stage(&self) -> Stage {
        Stage::Substep
    }

    fn shaders(&self, _build: &Build) -> Vec<Shader> {
        vec![Shader {
            label: "tethers",
            constants: vec![
                Constant::u32("MAX_ANCHORS", MAX_ANCHORS as u32),
                Constant::u32("TETHER_SWEEPS", TETHER_SWEEPS),
            ],
            groups: vec![&SOLVE, &TETHERS],
            parts: vec![Part::File(wgsl_file!("passes/tethers.wgsl"))],
            structs: Vec::new(),
            block: Some(("tethers", GpuTetherParams::LAYOUT)),
            kernels: vec![Kernel::plain("project_tethers")],
        }]
    }

    /// Every particle tethered to [`MAX_ANCHORS`] anchors: checked when the solver is made, so
    /// that no change of pins can fail for the tethers' size.
    fn capacity(&self, model: &ClothModel) -> Vec<(&'static str, u64)> {
        let n = model.particle_count() as u64;
        vec![("tethers", 4 * (2 * n + 1 + 2 * MAX_ANCHORS as u64 * n))]
    }

    /// Rebuilds the tethers when they are switched on or off or the pins changed.
    fn prepare(&mut self, setup: &Setup, uploads: &mut Uploads) -> Result<(), Error> {
        let params = setup.params;
        if let Some(rebuilt) = self.tethers.rebuilt(setup.model, params.tethers_active(), setup.pins.inverse_masses()) {
            self.tethers = rebuilt;
            uploads.words("tethers", || self.tethers.tethers().words());
        }
        let [k, alpha_tilde] = params.tether_response(TETHER_SWEEPS);
        let particle_count = self.tethers.tethers().particle_count() as u32;
        uploads.block("tethers", || GpuTetherParams {
            response: [k, alpha_tilde],
            scale: params.tethers.scale,
            particle_count,
        });
        Ok(())
    }

    fn dispatch(&self, _setup: &Setup, plan: &mut FramePlan, _substep: u32) -> Result<(), LayoutRefused> {
        let particles = self.tethers.tethers().particle_count() as u32;
        if particles > 0 {
            plan.push("project_tethers", DispatchInfo::zeroed(), workgroups_for(particles));
        }
        Ok(())
    }

    fn run_cpu(&mut self, setup: &Setup, frame: &mut CpuFrame, _substep: u32) {
        let (tethers, response) = (self.tethers.tethers(), setup.params.tether_response(TETHER_SWEEPS));
        for k in 0..tethers.particle_count() {
            project_tethers(tethers, k, setup.params.tethers.scale, response, frame.solve);
        }
    }
}

/// Group 2 of the tethers.
static TETHERS: BindingTable = BindingTable {
    label: "tethers",
    bindings: &[Binding::read(
        "tethers",
        "array<u32>",
        4,
        "Words (Tethers::words): the params.tethers.particle_count tethered particles, their list\n\
             offsets (one more), then (anchor, rest distance bits) per tether.",
    )],
};

/// `TetherParams` in WGSL: what the kernel reads of the tethers.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuTetherParams {
    /// `[k, α̃]` of each sweep ([`crate::SolverParams::tether_response`]).
    pub response: [f32; 2],
    /// The length limit's scale ([`crate::TetherParams::scale`]).
    pub scale: f32,
    /// Tethered particles.
    pub particle_count: u32,
}

impl GpuTetherParams {
    /// The layout its WGSL twin must have.
    pub const LAYOUT: StructLayout = struct_layout!(GpuTetherParams as "TetherParams", response, scale, particle_count);
}

/// The tethers of a cloth with a given set of pins: particle `particles[k]` is tethered to
/// `anchors[j]` at rest distance `rest_distances[j]` (m) for `j` in `offsets[k]..offsets[k + 1]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Tethers {
    particles: Vec<u32>,
    offsets: Vec<u32>,
    anchors: Vec<u32>,
    rest_distances: Vec<f32>,
}

impl Tethers {
    /// Each free particle (`inverse_masses[i] > 0`) tethered to its [`MAX_ANCHORS`] nearest
    /// pinned particles, by geodesic distance on the rest surface (fewer where
    /// fewer pinned particles are connected to it; none where none is). Ties break by distance,
    /// then particle index, so the result does not depend on anything but its inputs.
    ///
    /// # Panics
    /// If `inverse_masses` does not have one entry per particle.
    pub fn build(model: &ClothModel, inverse_masses: &[f32]) -> Self {
        let mut builder = TetherBuilder::new(model);
        builder.update(inverse_masses);
        builder.current.tethers
    }

    /// The tethers of the free particles to the pins that `nearest` lists for them.
    fn from_nearest(nearest: &NearestPins, inverse_masses: &[f32]) -> Self {
        let mut tethers = Self { offsets: vec![0], ..Self::default() };
        for (i, &w) in inverse_masses.iter().enumerate() {
            let before = tethers.anchors.len();
            if w != 0.0 {
                for (anchor, distance) in nearest.of(i) {
                    tethers.anchors.push(anchor);
                    tethers.rest_distances.push(distance);
                }
            }
            if tethers.anchors.len() > before {
                tethers.particles.push(i as u32);
                tethers.offsets.push(tethers.anchors.len() as u32);
            }
        }
        tethers
    }

    /// Number of tethered particles.
    pub fn particle_count(&self) -> usize {
        self.particles.len()
    }

    /// Number of tethers.
    pub fn len(&self) -> usize {
        self.anchors.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.anchors.is_empty()
    }

    /// The `k`-th tethered particle and its `(anchor, rest distance)` pairs.
    pub fn of(&self, k: usize) -> (u32, impl Iterator<Item = (u32, f32)> + Clone + '_) {
        let range = self.offsets[k] as usize..self.offsets[k + 1] as usize;
        (self.particles[k], self.anchors[range.clone()].iter().copied().zip(self.rest_distances[range].iter().copied()))
    }

    /// The GPU words (`tethers` in `shaders/passes/tethers.wgsl`): the tethered particles,
    /// then their list offsets (one more than particles), then `(anchor, rest distance bits)`
    /// per tether.
    pub fn words(&self) -> Vec<u32> {
        let pairs = self.anchors.iter().zip(&self.rest_distances).flat_map(|(&a, r)| [a, r.to_bits()]);
        self.particles.iter().chain(&self.offsets).copied().chain(pairs).collect()
    }
}

/// The tethers of a cloth whose pins change. Each [`TetherBuilder::update`] gives the same
/// tethers as [`Tethers::build`] for the new pins, but measures distances only from the new
/// pins, and a change back to the pins before the last one (a drag released) restores their
/// tethers without a search. So a drag costs one search from the grabbed particle.
#[derive(Debug, Clone, PartialEq)]
pub struct TetherBuilder {
    surface: Arc<GeodesicSurface>,
    current: PinnedSearch,
    previous: Option<PinnedSearch>,
}

/// The search's result for one set of pins, and its tethers.
#[derive(Debug, Clone, PartialEq)]
struct PinnedSearch {
    pinned: Vec<bool>,
    nearest: NearestPins,
    tethers: Tethers,
}

impl PinnedSearch {
    fn is_for(&self, inverse_masses: &[f32]) -> bool {
        self.pinned.iter().copied().eq(inverse_masses.iter().map(|&w| w == 0.0))
    }
}

impl TetherBuilder {
    /// The builder of `model`'s tethers, with nothing pinned yet (no tethers).
    pub fn new(model: &ClothModel) -> Self {
        let n = model.particle_count();
        let current = PinnedSearch {
            pinned: vec![false; n],
            nearest: NearestPins::new(n),
            tethers: Tethers { offsets: vec![0], ..Tethers::default() },
        };
        Self { surface: Arc::new(rest_surface(model)), current, previous: None }
    }

    /// Whether these are the tethers for the pins of `inverse_masses` (0 = pinned).
    pub fn is_built_for(&self, inverse_masses: &[f32]) -> bool {
        self.current.is_for(inverse_masses)
    }

    /// Makes the tethers those of the pins of `inverse_masses` (0 = pinned).
    ///
    /// # Panics
    /// If `inverse_masses` does not have one entry per particle.
    pub fn update(&mut self, inverse_masses: &[f32]) {
        assert_eq!(inverse_masses.len(), self.current.pinned.len(), "one inverse mass per particle");
        if self.is_built_for(inverse_masses) {
            return;
        }
        if self.previous.as_ref().is_some_and(|previous| previous.is_for(inverse_masses)) {
            std::mem::swap(&mut self.current, self.previous.as_mut().expect("checked above"));
            return;
        }
        let mut next = self.current.clone();
        let pinned: Vec<bool> = inverse_masses.iter().map(|&w| w == 0.0).collect();
        next.nearest.update(&self.surface, &pinned);
        next.pinned = pinned;
        next.tethers = Tethers::from_nearest(&next.nearest, inverse_masses);
        self.previous = Some(std::mem::replace(&mut self.current, next));
    }

    /// The tethers for the pins of the last update.
    pub fn tethers(&self) -> &Tethers {
        &self.current.tethers
    }
}

/// The tethers in use (`None`: tethers off), so that both solvers rebuild them exactly when
/// the pins or the switch change. Shared, so that copying the pass (for each change of
/// parameters) copies no search.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct PinnedTethers {
    builder: Option<Arc<TetherBuilder>>,
}

/// The tethers while they are off.
static NO_TETHERS: Tethers =
    Tethers { particles: Vec::new(), offsets: Vec::new(), anchors: Vec::new(), rest_distances: Vec::new() };

impl PinnedTethers {
    /// The tethers in use (none while off).
    pub fn tethers(&self) -> &Tethers {
        self.builder.as_deref().map_or(&NO_TETHERS, TetherBuilder::tethers)
    }

    /// The tethers for `enabled` and the pins of `inverse_masses` (0 = pinned), updated from
    /// these, or `None` when these are already built for them.
    pub fn rebuilt(&self, model: &ClothModel, enabled: bool, inverse_masses: &[f32]) -> Option<Self> {
        match (&self.builder, enabled) {
            (None, false) => None,
            (Some(_), false) => Some(Self::default()),
            (Some(builder), true) if builder.is_built_for(inverse_masses) => None,
            (builder, true) => {
                let mut builder = builder.as_deref().cloned().unwrap_or_else(|| TetherBuilder::new(model));
                builder.update(inverse_masses);
                Some(Self { builder: Some(Arc::new(builder)) })
            }
        }
    }
}

/// The correction of particle `p` (inverse mass `w`) by a tether to the pinned anchor `a` with
/// length limit `limit` and multiplier `lambda` so far in the substep: `C = |p − a| − limit`,
/// active only while `C > 0` (a tether never pushes), `Δλ = k·(−C − α̃λ)/(w + α̃)`,
/// `Δp = w·Δλ·(p − a)/|p − a|` (XPBD eq. 18 with `w_a = 0`). Returns `(Δp, Δλ)`, both zero when
/// inactive, at the anchor, or for a pinned particle.
pub fn tether_correction(p: Vec3, a: Vec3, limit: f32, w: f32, response: Response, lambda: f32) -> (Vec3, f32) {
    let delta = p - a;
    let length = delta.length();
    let c = length - limit;
    let [k, alpha_tilde] = response;
    let denominator = w + alpha_tilde;
    if c <= 0.0 || length < GEOMETRY_EPSILON || denominator < DENOMINATOR_EPSILON {
        return (Vec3::ZERO, 0.0);
    }
    let dlambda = k * (-c - alpha_tilde * lambda) / denominator;
    (delta / length * (w * dlambda), dlambda)
}

/// Sweeps of a particle's tethers per substep ([`project_tethers`]).
pub const TETHER_SWEEPS: u32 = 4;

/// Projects the `k`-th tethered particle's tethers (CPU reference); `scale` multiplies every
/// rest distance. Each of [`TETHER_SWEEPS`] sweeps takes every tether's correction from the same
/// position and moves the particle by their mean weighted by their multipliers' changes `|Δλ|`
/// (each multiplier takes its weight's share), until none pulls. The mean does not depend on
/// the tethers' order: taken one after the other, the last held exactly, and where a particle
/// lies as far from two pins (on a cloth's middle line) the lower-numbered pin, projected first,
/// lost; a ball dropped in the middle of a hammock pinned at its four corners was pushed
/// sideways at 0.09 m/s at its first landing, in both modes. The weights make the mean
/// continuous: a tether starting to pull starts with no weight (counting the tethers pulling
/// halved the others' corrections at once, and a run one ulp apart parted by 0.1 mm in four
/// frames).
pub(crate) fn project_tethers(tethers: &Tethers, k: usize, scale: f32, response: Response, state: &mut SolveState) {
    let (particle, list) = tethers.of(k);
    let (i, w) = (particle as usize, state.inverse_masses[particle as usize]);
    let mut lambdas = [0.0f32; MAX_ANCHORS];
    for _ in 0..TETHER_SWEEPS {
        let p = state.position(i);
        let (mut sum, mut weights, mut steps) = (Vec3::ZERO, 0.0f32, [0.0f32; MAX_ANCHORS]);
        for ((anchor, rest), (lambda, step)) in list.clone().zip(lambdas.iter().zip(&mut steps)) {
            let (dp, dlambda) =
                tether_correction(p, state.position(anchor as usize), scale * rest, w, response, *lambda);
            sum += dp * dlambda.abs();
            weights += dlambda.abs();
            *step = dlambda;
        }
        if weights.is_nan() || weights <= 0.0 {
            break;
        }
        state.displacements[i] += sum / weights;
        for (lambda, step) in lambdas.iter_mut().zip(steps) {
            *lambda += step * step.abs() / weights;
        }
    }
}
