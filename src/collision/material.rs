//! How a collider's surface meets the cloth: its [`ContactMaterial`] (margin, static and dynamic
//! friction, restitution) and the checks of its coefficients. WGSL twin: the `material` member
//! of the `Collider` record at the top of `shaders/collision.wgsl`, read by its response section
//! (`near_colliders`, `contacts_static_friction`, `respond_to_colliders`).

use crate::error::ParamError;

/// How a collider's surface meets the cloth. Each collider may have its own
/// ([`crate::GpuSolver::set_collider_materials`]); the others take the solver's parameters'
/// ([`crate::SolverParams::contact_material`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactMaterial {
    /// Distance kept between particles and the surface (m, ≥ 0).
    pub collision_margin: f32,
    /// Static Coulomb friction (≥ 0): a particle does not slide while its tangential motion
    /// needs less than this times the normal impulse.
    pub static_friction: f32,
    /// Dynamic Coulomb friction (≥ 0), on sliding particles.
    pub dynamic_friction: f32,
    /// Restitution (in [0, 1]), off for normal speeds below `2|g|h`.
    pub restitution: f32,
}

impl ContactMaterial {
    /// Checks every coefficient is finite and in range (naming the field that is not).
    pub fn validate(&self) -> Result<(), ParamError> {
        let non_negative = |v: f32| v.is_finite() && v >= 0.0;
        let checks = [
            (non_negative(self.collision_margin), "collision_margin", self.collision_margin, "finite and ≥ 0"),
            (non_negative(self.static_friction), "static_friction", self.static_friction, "finite and ≥ 0"),
            (non_negative(self.dynamic_friction), "dynamic_friction", self.dynamic_friction, "finite and ≥ 0"),
            ((0.0..=1.0).contains(&self.restitution), "restitution", self.restitution, "in [0, 1]"),
        ];
        match checks.into_iter().find(|&(ok, ..)| !ok) {
            Some((_, name, value, expected)) => Err(ParamError { name, value: value.to_string(), expected }),
            None => Ok(()),
        }
    }
}
