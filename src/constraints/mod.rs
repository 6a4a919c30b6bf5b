//! Constraint kinds and the units the solver projects them in.
//!
//! A *kind* is one module here and one WGSL file in `shaders/constraints/` of the same name:
//! its host data (built from the mesh), its pure correction math (which the CPU reference
//! calls, and the WGSL file mirrors with the same names and argument order) and its
//! `#[repr(C)]` GPU record. A *unit* is what one thread projects in one step: a constraint, or
//! several constraints on shared particles projected together so that their particles are
//! loaded and stored once (a plan optimisation: the kinds' data stays apart). [`UnitType`] is the
//! registry: adding a unit type is a variant there, its CPU projections and its WGSL functions.

pub mod bending;
pub mod hinge;
pub mod stretch;

use bending::BendingConstraints;
use glam::Vec3;
use stretch::StretchConstraints;

/// Below this the generalised mass `Σ w|∇C|² + α̃` of a constraint is treated as zero
/// (`DENOMINATOR_EPSILON` in `shaders/common.wgsl`).
pub const DENOMINATOR_EPSILON: f32 = 1e-12;

/// How a constraint responds, `[k, α̃]`: `Δλ = k·(−C − α̃λ)/(Σ w|∇C|² + α̃)`. PBD stiffness is
/// `[k', 0]`, XPBD compliance `[1, α/h²]` (see [`crate::Stiffness::response`]).
pub type Response = [f32; 2];

/// The responses of every kind in one substep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Responses {
    /// Distance constraints longer than rest.
    pub stretch: Response,
    /// Distance constraints shorter than rest.
    pub compression: Response,
    /// Dihedral bending constraints.
    pub bending: Response,
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

/// The XPBD multipliers of every kind, one per constraint, reset at the start of each substep.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Multipliers {
    /// One per stretch constraint.
    pub stretch: Vec<f32>,
    /// One per bending constraint.
    pub bending: Vec<f32>,
}

impl Multipliers {
    /// Zeroes every multiplier (XPBD: λ starts at 0 every substep).
    pub fn reset(&mut self) {
        self.stretch.fill(0.0);
        self.bending.fill(0.0);
    }
}

/// Every kind's constraints of a cloth, in schedule order (see [`hinge`] for how hinges number
/// them).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Constraints {
    /// Distance constraints, one per edge: the hinge edges first, then the free edges.
    pub stretch: StretchConstraints,
    /// Dihedral bending constraints, one per hinge.
    pub bending: BendingConstraints,
}

impl Constraints {
    /// Zeroed multipliers for every constraint.
    pub fn multipliers(&self) -> Multipliers {
        Multipliers { stretch: vec![0.0; self.stretch.len()], bending: vec![0.0; self.bending.len()] }
    }
}

/// Jacobi's share of each constraint's correction, per kind: `1 / max n_i` over the
/// constraint's particles, with `n_i` the number of constraints *of that kind* at particle `i`.
/// Scaling a constraint's whole correction (and its multiplier step) by one factor keeps its
/// linear and angular momentum balance; counting per kind keeps a particle's many bending
/// constraints from diluting its stretch. Each particle then receives at most the relaxation
/// `ω` times one full correction per kind.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JacobiScales {
    /// One per stretch constraint.
    pub stretch: Vec<f32>,
    /// One per bending constraint.
    pub bending: Vec<f32>,
}

impl JacobiScales {
    /// The shares of `constraints` over `particle_count` particles.
    pub fn new(constraints: &Constraints, particle_count: usize) -> Self {
        Self {
            stretch: shares(constraints.stretch.edges(), particle_count),
            bending: shares(constraints.bending.hinges(), particle_count),
        }
    }
}

/// `1 / max n_i` for each constraint of one kind.
fn shares<const N: usize>(constraints: &[[u32; N]], particle_count: usize) -> Vec<f32> {
    let mut count = vec![0u32; particle_count];
    for &p in constraints.iter().flatten() {
        count[p as usize] += 1;
    }
    constraints.iter().map(|c| 1.0 / c.iter().map(|&p| count[p as usize]).max().unwrap_or(1) as f32).collect()
}

/// The unit types, in the order a phase projects their colours. Each has a CPU projection here
/// and the WGSL functions `project_<name>` (Gauss-Seidel) and `jacobi_<name>` (Jacobi) in its
/// kind's WGSL file; `src/gpu/shaders.rs` generates the dispatch over them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnitType {
    /// A stretch constraint on its own: an edge with no bending constraint (a boundary edge).
    FreeEdge,
    /// A bending constraint and the stretch constraint of its edge ([`hinge`]).
    Hinge,
}

impl UnitType {
    /// Every unit type, in projection order (its index is its WGSL id).
    pub const ALL: [UnitType; 2] = [Self::FreeEdge, Self::Hinge];

    /// The id the WGSL dispatch uses.
    pub fn id(self) -> u32 {
        Self::ALL.iter().position(|&t| t == self).expect("registered") as u32
    }

    /// The name its WGSL functions carry.
    pub fn name(self) -> &'static str {
        match self {
            Self::FreeEdge => "free_edge",
            Self::Hinge => "hinge",
        }
    }

    /// Particles per unit.
    pub fn arity(self) -> usize {
        match self {
            Self::FreeEdge => 2,
            Self::Hinge => 4,
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
            Self::Hinge => hinge::project_hinge(constraints, u, state, multipliers),
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
                let scale = relaxation * scales.stretch[u];
                stretch::jacobi_free_edge(&constraints.stretch, u, scale, state, multipliers, slots)
            }
            Self::Hinge => hinge::jacobi_hinge(constraints, u, relaxation, scales, state, multipliers, slots),
        }
    }

    /// The particles of unit `u` of this type.
    pub fn particles(self, constraints: &Constraints, u: usize) -> &[u32] {
        match self {
            Self::FreeEdge => &constraints.stretch.edges()[u],
            Self::Hinge => &constraints.bending.hinges()[u],
        }
    }
}
