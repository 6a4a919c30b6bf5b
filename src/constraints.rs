//! Constraint kinds and the units the solver projects them in.
//!
//! A *kind* is one module here and one WGSL file in `shaders/constraints/` of the same name:
//! its host data (built from the mesh), its pure correction math (which the CPU reference
//! calls, and the WGSL file mirrors with the same names and argument order) and its
//! `#[repr(C)]` GPU record. [`Kind`] is its registration: from it the GPU buffers, parameters,
//! multipliers, Jacobi shares and WGSL declarations follow without naming the kind. A *unit* is
//! what one thread projects in one step: a constraint, or several constraints on shared
//! particles projected together so that their particles are loaded and stored once (a plan
//! optimisation: the kinds' data stays apart). [`UnitType`] is the units' registry: adding a
//! unit type is a variant there, its CPU projections and its WGSL functions.

pub mod bending;
pub mod curvature;
pub mod hinge;
pub mod hinge_constraints;
pub mod isometric;
pub mod membrane;
pub mod shell;
pub mod stretch;

use crate::wgsl::{StructLayout, WgslFile};
use bending::{BendingConstraints, BendingRecord};
use curvature::{CurvatureConstraints, CurvatureRecord};
use glam::Vec3;
use isometric::IsometricConstraints;
use membrane::{MembraneConstraints, MembraneRecord};
use std::ops::{Index, IndexMut};
use stretch::{StretchConstraints, StretchRecord};

pub use crate::math::DENOMINATOR_EPSILON;

/// How a constraint responds, `[k, α̃]`: `Δλ = k·(−C − α̃λ)/(Σ w|∇C|² + α̃)`. PBD stiffness is
/// `[k', 0]`, XPBD compliance `[1, α/h²]` (see [`crate::Stiffness::response`]).
pub type Response = [f32; 2];

/// A response for a constraint `scale` times as stiff (its material map,
/// [`crate::ClothModel::with_stiffness_scales`]). XPBD (`α̃ > 0`): compliance `α̃/scale` (at
/// most `f32::MAX`, so a tiny scale cannot make it infinite). PBD and hard constraints
/// (`α̃ = 0`): the per-iteration factor that removes what `scale` projections of factor `k`
/// remove, `1 − (1 − k)^scale` ([`repeated_factor`]). Exactly `response` at scale 1. WGSL twin
/// `scaled_response` in `shaders/passes/iterations/units.wgsl`.
pub fn scaled_response(response: Response, scale: f32) -> Response {
    let [k, alpha_tilde] = response;
    if scale == 1.0 {
        response
    } else if alpha_tilde > 0.0 {
        [k, (alpha_tilde / scale).min(f32::MAX)]
    } else {
        [repeated_factor(k, scale), 0.0]
    }
}

/// [`scaled_response`] of a compliance `[1, α̃]` (the membrane's and the curvature's responses,
/// compliances per unit of stiffness): `[1, α̃/scale]`, at most `f32::MAX`, the same result
/// without the PBD branch, whose logarithm and exponential a GPU's lanes would carry along.
/// WGSL twin `scaled_compliance` in `shaders/passes/iterations/units.wgsl`.
pub fn scaled_compliance(response: Response, scale: f32) -> Response {
    let [k, alpha_tilde] = response;
    // Divides only where the quotient is finite (the GPU's twin has no infinity to clamp).
    [k, if alpha_tilde < f32::MAX * scale { alpha_tilde / scale } else { f32::MAX }]
}

/// `1 − (1 − k)^s`: the fraction of a constraint's error that `s` projections of factor `k`
/// remove (PBD §3.3: `k` applied `n` times leaves `(1 − k)ⁿ`), for `k` in [0, 1] and `s > 0`.
/// Computed as `1 − e^{s·ln(1 − k)}`, each of `ln(1 − k)` and `1 − eˣ` by its series where f32
/// would round it away (the small factors PBD spreads over many iterations). WGSL twin
/// `repeated_factor` in `shaders/passes/iterations/units.wgsl`.
pub fn repeated_factor(k: f32, s: f32) -> f32 {
    if k >= 1.0 {
        return 1.0;
    }
    if k <= 0.0 {
        return 0.0;
    }
    let log = if k < 1e-2 { -k * (1.0 + k * (0.5 + k * (1.0 / 3.0 + k * 0.25))) } else { (1.0 - k).ln() };
    let x = s * log;
    let removed = if x > -1e-2 { -x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x / 24.0))) } else { 1.0 - x.exp() };
    removed.clamp(0.0, 1.0)
}

/// The constraint kinds, in the order their GPU records, multipliers and Jacobi shares are laid
/// out. Registering a kind is a variant here with its arms in the methods below, and its field
/// in [`Constraints`] with its arm in [`Constraints::of`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Distance constraints along the mesh edges ([`stretch`]).
    Stretch,
    /// Dihedral bending constraints across the interior edges ([`bending`]).
    Bending,
    /// Isometric bending constraints across the interior edges ([`isometric`]): a cloth has
    /// these or the dihedral ones ([`BendingModel`]).
    Isometric,
    /// Warp, weft and shear strain per triangle ([`membrane`]): a cloth has these or the
    /// stretch constraints ([`StretchModel`]).
    Membrane,
    /// Curvature per triangle ([`curvature`]): a cloth bends by these or by one of the hinge
    /// kinds ([`BendingModel`]).
    Curvature,
}

impl Kind {
    /// Every kind, in layout order (its index is its id).
    pub const ALL: [Kind; 5] = [Self::Stretch, Self::Bending, Self::Isometric, Self::Membrane, Self::Curvature];
    /// Number of kinds.
    pub const COUNT: usize = Self::ALL.len();

    /// Its index in [`Kind::ALL`] (`KIND_<NAME>` in WGSL).
    pub fn id(self) -> usize {
        Self::ALL.iter().position(|&k| k == self).expect("registered")
    }

    /// Its name: its WGSL file is `shaders/constraints/<name>.wgsl`, its WGSL constants
    /// `KIND_<NAME>` and `<NAME>_RECORD_WORDS`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Stretch => "stretch",
            Self::Bending => "bending",
            Self::Isometric => "isometric",
            Self::Membrane => "membrane",
            Self::Curvature => "curvature",
        }
    }

    /// XPBD multipliers per constraint: one, or the membrane's and the curvature's three
    /// (warp, weft, and shear or twist).
    pub fn multipliers_per_constraint(self) -> usize {
        match self {
            Self::Membrane | Self::Curvature => 3,
            _ => 1,
        }
    }

    /// Its WGSL file: its record's struct, the functions that read and write it, its
    /// correction math and its unit projections.
    pub fn wgsl(self) -> WgslFile {
        match self {
            Self::Stretch => stretch::WGSL,
            Self::Bending => bending::WGSL,
            Self::Isometric => isometric::WGSL,
            Self::Membrane => membrane::WGSL,
            Self::Curvature => curvature::WGSL,
        }
    }

    /// The layout of its GPU record and of the WGSL struct that mirrors it.
    pub fn record_layout(self) -> StructLayout {
        match self {
            Self::Stretch => StretchRecord::LAYOUT,
            Self::Bending => BendingRecord::LAYOUT,
            Self::Isometric => isometric::IsometricRecord::LAYOUT,
            Self::Membrane => MembraneRecord::LAYOUT,
            Self::Curvature => CurvatureRecord::LAYOUT,
        }
    }

    /// 32-bit words per GPU record.
    pub fn record_words(self) -> usize {
        self.record_layout().size / 4
    }

    /// Its responses as the GPU reads them (`KindParams::response` in WGSL): `[k, α̃]`, then a
    /// second pair where the kind has one (stretch: compression); zero for the membrane and the
    /// curvature, whose responses are per material ([`Kind::gpu_materials`]).
    pub fn gpu_response(self, responses: &Responses) -> [f32; 4] {
        let pair = |[a, b]: Response, [c, d]: Response| [a, b, c, d];
        match self {
            Self::Stretch => pair(responses.stretch, responses.compression),
            Self::Bending | Self::Isometric => pair(responses.bending, [0.0; 2]),
            Self::Membrane | Self::Curvature => [0.0; 4],
        }
    }

    /// Each material's responses as the GPU reads them (its table of materials in WGSL): the
    /// membrane's `[k, α̃/E]` for its three moduli ([`MembraneConstraints::area_responses`]),
    /// the curvature's `[k, α̃/B]` for its three rigidities
    /// ([`CurvatureConstraints::area_responses`]); none for the other kinds.
    pub fn gpu_materials(self, responses: &Responses, constraints: &Constraints) -> Vec<[f32; 4]> {
        let per_area = |[[k, first], [_, second], [_, third]]: [Response; 3]| [k, first, second, third];
        match self {
            Self::Membrane => (0..constraints.membrane.materials().len())
                .map(|m| per_area(constraints.membrane.area_responses(m, responses.membrane)))
                .collect(),
            Self::Curvature => (0..constraints.curvature.materials().len())
                .map(|m| per_area(constraints.curvature.area_responses(m, responses.curvature)))
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// How a cloth resists bending: the model of the constraint on each interior edge
/// ([`crate::ClothModel::with_bending_model`]; [`isometric`] says when each fits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BendingModel {
    /// The signed dihedral angle against its rest angle ([`bending`]): keeps any rest shape,
    /// independent of stretch.
    #[default]
    Dihedral,
    /// Bergou et al.'s quadratic energy ([`isometric`]): constant Hessian, no trigonometry;
    /// bends toward flat and assumes the cloth barely stretches.
    Isometric,
    /// Each triangle's curvature tensor from its three edges' angles ([`curvature`]): the
    /// hinges' energy on smooth bends, without their soft folds at the mesh's own scale, so a
    /// strip bends by its rigidity at every resolution. It needs a bending rigidity
    /// ([`crate::ClothModel::with_bending_rigidity`]); the fabrics bend by it.
    Curvature,
}

impl BendingModel {
    /// Every model.
    pub const ALL: [BendingModel; 3] = [Self::Dihedral, Self::Isometric, Self::Curvature];

    /// Its command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Dihedral => "dihedral",
            Self::Isometric => "isometric",
            Self::Curvature => "curvature",
        }
    }
}

impl std::str::FromStr for BendingModel {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("unknown bending model `{s}` (expected dihedral, isometric or curvature)"))
    }
}

/// How a cloth resists in-plane strain ([`crate::ClothModel::with_membrane`]).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum StretchModel {
    /// A distance constraint per mesh edge ([`stretch`]), stiffened by
    /// [`crate::SolverParams::stretch`] and `compression`: every edge, diagonals too, resists
    /// alike, so the sheet hardly shears.
    #[default]
    Edges,
    /// Warp, weft and shear per triangle with their own moduli ([`membrane`]).
    Membrane(membrane::Moduli),
}

/// What the solver needs of one kind's constraints without knowing the kind.
pub trait KindConstraints {
    /// Number of constraints.
    fn constraint_count(&self) -> usize;

    /// The particles constraint `c` acts on.
    fn constraint_particles(&self, c: usize) -> &[u32];

    /// Whether a constraint's response differs from its kind's (a material map, or a physical
    /// stiffness per constraint), so that the kernels must read its scale.
    fn scaled(&self) -> bool {
        self.stiffness_scales().iter().any(|&s| s != 1.0)
    }

    /// The GPU records in constraint order, multipliers zeroed, as 32-bit words
    /// ([`Kind::record_words`] per constraint).
    fn gpu_records(&self) -> Vec<u32>;

    /// Each constraint's stiffness scale ([`scaled_response`]; 1 unless a material map set it).
    fn stiffness_scales(&self) -> &[f32];

    /// The same, to set a material map ([`crate::ClothModel::with_stiffness_scales`]).
    fn stiffness_scales_mut(&mut self) -> &mut [f32];
}

/// The responses of every kind in one substep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Responses {
    /// Distance constraints longer than rest.
    pub stretch: Response,
    /// Distance constraints shorter than rest.
    pub compression: Response,
    /// Bending constraints of either model.
    pub bending: Response,
    /// The membrane, per unit of stiffness (`[1, 1/h²]`: each strain's compliance is the
    /// inverse of its stiffness `E·A`, [`membrane`]).
    pub membrane: Response,
    /// The curvature, per unit of stiffness (`[1, 1/h²]`, as the membrane; the constraints
    /// divide it by their rigidities and areas).
    pub curvature: Response,
    /// The stretch constraints' strain limits, when on ([`stretch::limit_strain`]).
    pub strain_limits: Option<stretch::StrainLimits>,
}

/// The particles as a projection sees them during a substep (CPU reference): each particle's
/// position at the start of the substep `x`, its displacement since `q = p − x` and its inverse
/// mass. Corrections accumulate in `q`, whose rounding is relative to the small displacement
/// rather than to metre-scale coordinates (the GPU keeps the same split).
#[derive(Debug, Clone, PartialEq)]
pub struct SolveState {
    /// `x`: positions at the start of the substep (m).
    pub positions: Vec<Vec3>,
    /// `q = p − x`: the substep's displacement so far (m).
    pub displacements: Vec<Vec3>,
    /// `q̄ = h·v̄`: each particle's displacement as predict made it, before any projection (m);
    /// restitution reverses its normal part (XPBD §3.6).
    pub predicted: Vec<Vec3>,
    /// `w = 1/m`, 0 for pinned particles.
    pub inverse_masses: Vec<f32>,
    /// The substep's responses.
    pub responses: Responses,
}

impl SolveState {
    /// The predicted position `p = x + q` of particle `i`.
    pub fn position(&self, i: usize) -> Vec3 {
        self.positions[i] + self.displacements[i]
    }
}

/// One value per constraint of every kind, indexed by kind: the XPBD multipliers
/// ([`Multipliers`]) or Jacobi's shares ([`JacobiScales`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PerConstraint([Vec<f32>; Kind::COUNT]);

impl PerConstraint {
    /// `value(kind, c)` for constraint `c` of each kind.
    fn new(constraints: &Constraints, value: impl Fn(Kind, usize) -> f32) -> Self {
        Self(Kind::ALL.map(|k| (0..constraints.of(k).constraint_count()).map(|c| value(k, c)).collect()))
    }

    /// Zero for every multiplier: [`Kind::multipliers_per_constraint`] per constraint.
    pub fn zeros(constraints: &Constraints) -> Self {
        Self(Kind::ALL.map(|k| vec![0.0; constraints.of(k).constraint_count() * k.multipliers_per_constraint()]))
    }

    /// Sets every value to zero (XPBD: multipliers start at 0 every substep).
    pub fn reset(&mut self) {
        self.0.iter_mut().for_each(|values| values.fill(0.0));
    }
}

impl Index<Kind> for PerConstraint {
    type Output = [f32];

    fn index(&self, kind: Kind) -> &[f32] {
        &self.0[kind.id()]
    }
}

impl IndexMut<Kind> for PerConstraint {
    fn index_mut(&mut self, kind: Kind) -> &mut [f32] {
        &mut self.0[kind.id()]
    }
}

/// The XPBD multipliers of every kind, one per constraint, reset at the start of each substep.
pub type Multipliers = PerConstraint;

/// Jacobi's share of each constraint's correction ([`jacobi_shares`]).
pub type JacobiScales = PerConstraint;

/// Every kind's constraints of a cloth, in schedule order (see [`hinge`] for how hinges number
/// them).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Constraints {
    /// Distance constraints, one per edge: the hinge edges first, then the free edges.
    pub stretch: StretchConstraints,
    /// Dihedral bending constraints, one per hinge, when the cloth bends by that model.
    pub bending: BendingConstraints,
    /// Isometric bending constraints, one per hinge, when the cloth bends by that model.
    pub isometric: IsometricConstraints,
    /// Membrane constraints, one per triangle, when the cloth has a membrane instead of
    /// stretch constraints.
    pub membrane: MembraneConstraints,
    /// Curvature constraints, one per triangle, when the cloth bends by that model.
    pub curvature: CurvatureConstraints,
}

impl Constraints {
    /// The constraints of one kind.
    pub fn of(&self, kind: Kind) -> &dyn KindConstraints {
        match kind {
            Kind::Stretch => &self.stretch,
            Kind::Bending => &self.bending,
            Kind::Isometric => &self.isometric,
            Kind::Membrane => &self.membrane,
            Kind::Curvature => &self.curvature,
        }
    }

    /// The constraints of one kind, to edit.
    pub(crate) fn of_mut(&mut self, kind: Kind) -> &mut dyn KindConstraints {
        match kind {
            Kind::Stretch => &mut self.stretch,
            Kind::Bending => &mut self.bending,
            Kind::Isometric => &mut self.isometric,
            Kind::Membrane => &mut self.membrane,
            Kind::Curvature => &mut self.curvature,
        }
    }
}

/// Jacobi's share of each constraint's correction, per kind: `1 / max n_i` over the
/// constraint's particles, with `n_i` the number of constraints *of that kind* at particle `i`.
/// Scaling a constraint's whole correction (and its multiplier step) by one factor keeps its
/// linear and angular momentum balance; counting per kind keeps a particle's many bending
/// constraints from diluting its stretch. Each particle then receives at most the relaxation
/// `ω` times one full correction per kind.
pub fn jacobi_shares(constraints: &Constraints, particle_count: usize) -> JacobiScales {
    let counts = Kind::ALL.map(|k| {
        let kind = constraints.of(k);
        let mut count = vec![0u32; particle_count];
        for c in 0..kind.constraint_count() {
            kind.constraint_particles(c).iter().for_each(|&p| count[p as usize] += 1);
        }
        count
    });
    PerConstraint::new(constraints, |k, c| {
        let count = &counts[k.id()];
        let most = constraints.of(k).constraint_particles(c).iter().map(|&p| count[p as usize]).max();
        1.0 / most.unwrap_or(1) as f32
    })
}

/// The unit types, in the order a phase projects their colours. Each has a CPU projection here
/// and the WGSL functions `project_<name>` (Gauss-Seidel) and `jacobi_<name>` (Jacobi) in its
/// kind's WGSL file; `src/passes/iterations/unit_dispatch.rs` generates the dispatch over them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnitType {
    /// A stretch constraint on its own: an edge with no bending constraint (a boundary edge).
    FreeEdge,
    /// A dihedral bending constraint and the stretch constraint of its edge ([`hinge`]).
    Hinge,
    /// An isometric bending constraint and the stretch constraint of its edge ([`hinge`]; its
    /// WGSL functions are in the hinge's file).
    IsometricHinge,
    /// The three strains of a triangle's membrane ([`membrane`]).
    Triangle,
    /// A dihedral bending constraint alone: the hinge of a cloth with a membrane, whose edges
    /// have no stretch constraint ([`hinge`]; its WGSL functions are in the hinge's file).
    Bend,
    /// An isometric bending constraint alone (as [`UnitType::Bend`]).
    IsometricBend,
    /// The three curvatures of a triangle ([`curvature`]), on its vertices and the far vertex
    /// across each edge.
    Curvature,
    /// A triangle's membrane and its curvature together ([`shell`]), for a cloth that has both.
    Shell,
}

impl UnitType {
    /// Every unit type, in projection order (its index is its WGSL id).
    pub const ALL: [UnitType; 8] = [
        Self::FreeEdge,
        Self::Hinge,
        Self::IsometricHinge,
        Self::Triangle,
        Self::Bend,
        Self::IsometricBend,
        Self::Curvature,
        Self::Shell,
    ];

    /// The id the WGSL dispatch uses.
    pub fn id(self) -> u32 {
        Self::ALL.iter().position(|&t| t == self).expect("registered") as u32
    }

    /// The name its WGSL functions carry.
    pub fn name(self) -> &'static str {
        match self {
            Self::FreeEdge => "free_edge",
            Self::Hinge => "hinge",
            Self::IsometricHinge => "isometric_hinge",
            Self::Triangle => "triangle",
            Self::Bend => "bend",
            Self::IsometricBend => "isometric_bend",
            Self::Curvature => "curvature",
            Self::Shell => "shell",
        }
    }

    /// Its own WGSL file, for a unit of several kinds (a unit of one kind projects in its kind's
    /// file; the four hinge units are in the hinge's, which the hinge brings).
    pub fn wgsl(self) -> Option<WgslFile> {
        match self {
            Self::Hinge => Some(hinge::WGSL),
            Self::Shell => Some(shell::WGSL),
            _ => None,
        }
    }

    /// The kinds whose constraints it projects: unit `u` of this type is constraint `u` of
    /// each ([`crate::ClothModel::units`]).
    pub fn kinds(self) -> &'static [Kind] {
        match self {
            Self::FreeEdge => &[Kind::Stretch],
            Self::Hinge => &[Kind::Stretch, Kind::Bending],
            Self::IsometricHinge => &[Kind::Stretch, Kind::Isometric],
            Self::Triangle => &[Kind::Membrane],
            Self::Bend => &[Kind::Bending],
            Self::IsometricBend => &[Kind::Isometric],
            Self::Curvature => &[Kind::Curvature],
            Self::Shell => &[Kind::Membrane, Kind::Curvature],
        }
    }

    /// Particles per unit.
    pub fn arity(self) -> usize {
        match self {
            Self::FreeEdge => 2,
            Self::Triangle => 3,
            Self::Hinge | Self::IsometricHinge | Self::Bend | Self::IsometricBend => 4,
            Self::Curvature | Self::Shell => 6,
        }
    }

    /// The unit a cloth bending by `bending` bends in, with or without stretch constraints on
    /// its edges (a hinge unit, or the curvature's triangle unit; a cloth with a membrane and
    /// curvature bends in shells where they pair up, [`shell::pairs_up`]).
    pub fn hinge(bending: BendingModel, stretch: StretchModel) -> Self {
        match (bending, stretch) {
            (BendingModel::Dihedral, StretchModel::Edges) => Self::Hinge,
            (BendingModel::Isometric, StretchModel::Edges) => Self::IsometricHinge,
            (BendingModel::Dihedral, StretchModel::Membrane(_)) => Self::Bend,
            (BendingModel::Isometric, StretchModel::Membrane(_)) => Self::IsometricBend,
            (BendingModel::Curvature, _) => Self::Curvature,
        }
    }
}

impl UnitType {
    /// Gauss-Seidel projection of unit `u` of this type (CPU reference).
    pub(crate) fn project(
        self,
        constraints: &Constraints,
        u: usize,
        state: &mut SolveState,
        multipliers: &mut Multipliers,
    ) {
        match self {
            Self::FreeEdge => stretch::project_free_edge(&constraints.stretch, u, state, multipliers),
            Self::Hinge => hinge::project_hinge(constraints, Kind::Bending, u, state, multipliers),
            Self::IsometricHinge => hinge::project_hinge(constraints, Kind::Isometric, u, state, multipliers),
            Self::Triangle => membrane::project_triangle(&constraints.membrane, u, state, multipliers),
            Self::Bend => hinge::project_bend(constraints, Kind::Bending, u, state, multipliers),
            Self::IsometricBend => hinge::project_bend(constraints, Kind::Isometric, u, state, multipliers),
            Self::Curvature => curvature::project_curvature(&constraints.curvature, u, state, multipliers),
            Self::Shell => shell::project_shell(constraints, u, state, multipliers),
        }
    }

    /// Jacobi projection of unit `u` of this type into `slots` (one per particle of the unit),
    /// with over-relaxation `relaxation` (CPU reference).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn jacobi(
        self,
        constraints: &Constraints,
        u: usize,
        relaxation: f32,
        scales: &JacobiScales,
        state: &SolveState,
        multipliers: &mut Multipliers,
        slots: &mut [Vec3],
    ) {
        match self {
            Self::FreeEdge => {
                let scale = relaxation * scales[Kind::Stretch][u];
                stretch::jacobi_free_edge(&constraints.stretch, u, scale, state, multipliers, slots)
            }
            Self::Hinge => {
                hinge::jacobi_hinge(constraints, Kind::Bending, u, relaxation, scales, state, multipliers, slots)
            }
            Self::IsometricHinge => {
                hinge::jacobi_hinge(constraints, Kind::Isometric, u, relaxation, scales, state, multipliers, slots)
            }
            Self::Triangle => {
                let scale = relaxation * scales[Kind::Membrane][u];
                membrane::jacobi_triangle(&constraints.membrane, u, scale, state, multipliers, slots)
            }
            Self::Bend => {
                let scale = relaxation * scales[Kind::Bending][u];
                hinge::jacobi_bend(constraints, Kind::Bending, u, scale, state, multipliers, slots)
            }
            Self::IsometricBend => {
                let scale = relaxation * scales[Kind::Isometric][u];
                hinge::jacobi_bend(constraints, Kind::Isometric, u, scale, state, multipliers, slots)
            }
            Self::Curvature => {
                let scale = relaxation * scales[Kind::Curvature][u];
                curvature::jacobi_curvature(&constraints.curvature, u, scale, state, multipliers, slots)
            }
            Self::Shell => shell::jacobi_shell(constraints, u, relaxation, scales, state, multipliers, slots),
        }
    }

    /// The particles of unit `u` of this type.
    pub fn particles(self, constraints: &Constraints, u: usize) -> &[u32] {
        match self {
            Self::FreeEdge => &constraints.stretch.edges()[u],
            Self::Hinge | Self::Bend => &constraints.bending.hinges()[u],
            Self::IsometricHinge | Self::IsometricBend => &constraints.isometric.hinges()[u],
            Self::Triangle => &constraints.membrane.triangles()[u],
            Self::Curvature | Self::Shell => &constraints.curvature.units()[u],
        }
    }
}
