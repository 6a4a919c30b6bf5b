//! The shell unit: a triangle's membrane ([`super::membrane`]) and its curvature
//! ([`super::curvature`]) projected together, for a fabric that has both. The curvature's unit
//! of six particles holds the membrane's three, so the six are loaded and stored once for the
//! six constraints, and the membrane needs no colours of its own — a plan optimisation: the
//! schedule numbers the two kinds alike (shell `u` is membrane constraint `u` and curvature
//! constraint `u`, on the same triangle) and the kinds' data stays apart. Gauss-Seidel projects
//! the membrane's three strains first and the curvature from the moved positions; Jacobi
//! projects both from the same positions. WGSL twin: `shaders/constraints/shell.wgsl`.

use super::curvature::CurvatureConstraints;
use super::membrane::MembraneConstraints;
use super::{Constraints, JacobiScales, Multipliers, SolveState, UnitType};
use crate::wgsl::WgslFile;
use crate::wgsl_file;
use glam::Vec3;

/// The WGSL twin.
pub const WGSL: WgslFile = wgsl_file!("constraints/shell.wgsl");

/// Whether the membrane and curvature constraints pair up into shells: one of each per
/// triangle, constraint `c` of both on the same triangle with its vertices in the same order
/// and the same rest shape in the material frame (the GPU's shell reads it from the
/// curvature's record alone).
pub fn pairs_up(membrane: &MembraneConstraints, curvature: &CurvatureConstraints) -> bool {
    let same = |c: usize| {
        membrane.triangles()[c][..] == curvature.units()[c][..3] && membrane.rest(c).frame == curvature.rest(c).frame
    };
    !membrane.is_empty() && membrane.len() == curvature.len() && (0..membrane.len()).all(same)
}

/// Gauss-Seidel projection of shell `u`: its triangle unit (the membrane's warp, weft and
/// shear), then its curvature unit from the moved positions.
pub(crate) fn project_shell(
    constraints: &Constraints,
    u: usize,
    state: &mut SolveState,
    multipliers: &mut Multipliers,
) {
    UnitType::Triangle.project(constraints, u, state, multipliers);
    UnitType::Curvature.project(constraints, u, state, multipliers);
}

/// Jacobi projection of shell `u`: its triangle and curvature units from the same positions,
/// each scaled by its own kind's share, summed per particle into `slots` (the curvature's six,
/// the membrane's on the first three).
pub(crate) fn jacobi_shell(
    constraints: &Constraints,
    u: usize,
    relaxation: f32,
    scales: &JacobiScales,
    state: &SolveState,
    multipliers: &mut Multipliers,
    slots: &mut [Vec3],
) {
    let mut membrane = [Vec3::ZERO; 3];
    UnitType::Triangle.jacobi(constraints, u, relaxation, scales, state, multipliers, &mut membrane);
    UnitType::Curvature.jacobi(constraints, u, relaxation, scales, state, multipliers, slots);
    slots.iter_mut().zip(membrane).for_each(|(slot, dp)| *slot += dp);
}
