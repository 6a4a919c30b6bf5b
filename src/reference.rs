//! The CPU reference: the GPU algorithm in plain Rust, built from the same pure functions in
//! [`crate::math`] and the same colour order. It is the specification the GPU is tested against,
//! not a second backend to optimise.

use crate::collider::{validate_colliders, Collider};
use crate::error::Error;
use crate::math::{self, Contact, Correction};
use crate::model::ClothModel;
use crate::params::{SolverMode, SolverParams};
use crate::pins::Pins;
use glam::Vec3;

/// A cloth stepped on the CPU.
#[derive(Debug, Clone)]
pub struct CpuSolver {
    model: ClothModel,
    params: SolverParams,
    colliders: Vec<Collider>,
    /// Particle state `x` (m), one per particle: it may be edited between steps, not resized
    /// ([`CpuSolver::step`] panics on a wrong length).
    pub positions: Vec<Vec3>,
    /// Particle velocities `v` (m/s), one per particle (edit, don't resize).
    pub velocities: Vec<Vec3>,
    /// Area-weighted vertex normals, updated at the end of each frame.
    pub normals: Vec<Vec3>,
    /// Pins and inverse masses.
    pub pins: Pins,
    predicted: Vec<Vec3>,
    lambdas: Vec<f32>,
    corrections: Vec<Vec3>,
}

impl CpuSolver {
    /// Starts the cloth at rest in its mesh's rest state.
    pub fn new(model: &ClothModel, params: SolverParams, colliders: &[Collider]) -> Result<Self, Error> {
        params.validate()?;
        validate_colliders(colliders)?;
        model.validate()?;
        let n = model.particle_count();
        let mut solver = Self {
            model: model.clone(),
            params,
            colliders: colliders.iter().map(Collider::normalized).collect(),
            positions: model.mesh.positions.clone(),
            velocities: vec![Vec3::ZERO; n],
            normals: vec![Vec3::ZERO; n],
            pins: Pins::new(model),
            predicted: model.mesh.positions.clone(),
            lambdas: vec![0.0; model.constraints.len()],
            corrections: vec![Vec3::ZERO; 4 * model.constraints.len()],
        };
        solver.update_normals();
        Ok(solver)
    }

    /// Replaces the parameters (validated).
    pub fn set_params(&mut self, params: SolverParams) -> Result<(), Error> {
        params.validate()?;
        self.params = params;
        Ok(())
    }

    /// Replaces the colliders (validated).
    pub fn set_colliders(&mut self, colliders: &[Collider]) -> Result<(), Error> {
        validate_colliders(colliders)?;
        self.colliders = colliders.iter().map(Collider::normalized).collect();
        Ok(())
    }

    /// Advances one frame: `substeps` × (predict → `iterations` projections → collide and update
    /// velocities), then recomputes normals (PBD Alg. 1 with XPBD substepping).
    pub fn step(&mut self) {
        for substep in 0..self.params.substeps {
            self.predict(substep);
            for _ in 0..self.params.iterations {
                match self.params.mode {
                    SolverMode::GaussSeidel => self.project_gauss_seidel(),
                    SolverMode::Jacobi { relaxation } => self.project_jacobi(relaxation),
                }
            }
            self.collide_and_update_velocities();
        }
        self.update_normals();
    }

    /// PBD Alg. 1 lines 5–7: `v += h(g + a)`, damping, `p = x + hv`; pinned particles move a
    /// `1/(substeps − substep)` share of the way to their target. Multipliers reset (XPBD).
    fn predict(&mut self, substep: u32) {
        let h = self.params.substep_dt();
        let acceleration = self.params.gravity + self.params.external_acceleration;
        let damping = (1.0 - self.params.damping * h).max(0.0);
        let remaining = self.params.substeps - substep;
        for i in 0..self.positions.len() {
            let x = self.positions[i];
            let target = self.pins.targets()[i];
            let p = if self.pins.inverse_masses()[i] == 0.0 {
                if remaining == 1 {
                    target
                } else {
                    x + (target - x) / remaining as f32
                }
            } else {
                self.velocities[i] = (self.velocities[i] + acceleration * h) * damping;
                x + self.velocities[i] * h
            };
            if self.pins.inverse_masses()[i] == 0.0 {
                self.velocities[i] = (p - x) / h;
            }
            self.predicted[i] = p;
        }
        self.lambdas.fill(0.0);
    }

    /// The correction of constraint `c` from the current predicted positions; `responses` are
    /// [`SolverParams::responses`].
    fn correction(&self, c: usize, responses: [[f32; 2]; 3]) -> Option<Correction> {
        let con = &self.model.constraints[c];
        let [stretch, compression, bending] = responses;
        let p = |k: usize| self.predicted[con.particles[k] as usize];
        let w = |k: usize| self.pins.inverse_masses()[con.particles[k] as usize];
        if c < self.model.stretch_count {
            math::distance_correction(p(0), p(1), w(0), w(1), con.rest, self.lambdas[c], stretch, compression)
        } else {
            math::bending_correction(
                p(0),
                p(1),
                p(2),
                p(3),
                [w(0), w(1), w(2), w(3)],
                con.rest,
                self.lambdas[c],
                bending,
            )
        }
    }

    /// One coloured Gauss-Seidel sweep: colours in order, each constraint applied at once; a
    /// bending constraint's hinge edge is projected just before it.
    fn project_gauss_seidel(&mut self) {
        let responses = self.params.responses();
        for k in 0..self.model.colours.len() {
            let colour = self.model.colours[k].clone();
            for c in colour.start as usize..colour.end as usize {
                if let Some(edge) = self.model.hinge_stretch(c) {
                    self.apply_correction(edge, responses);
                }
                self.apply_correction(c, responses);
            }
        }
    }

    /// Projects constraint `c` and moves its particles at once (Gauss-Seidel).
    fn apply_correction(&mut self, c: usize, responses: [[f32; 2]; 3]) {
        if let Some(correction) = self.correction(c, responses) {
            let con = self.model.constraints[c];
            for (k, &p) in con.used_particles().iter().enumerate() {
                self.predicted[p as usize] += correction.dp[k];
            }
            self.lambdas[c] += correction.dlambda;
        }
    }

    /// One Jacobi sweep: every constraint reads the same positions and writes its corrections to
    /// its slots; each particle then adds `relaxation/n_i` times the sum of its slots, summed in
    /// the fixed order of its gather list.
    fn project_jacobi(&mut self, relaxation: f32) {
        let responses = self.params.responses();
        for c in 0..self.model.constraints.len() {
            let correction = self.correction(c, responses);
            let dp = correction.map_or([Vec3::ZERO; 4], |k| k.dp);
            self.corrections[4 * c..4 * c + 4].copy_from_slice(&dp);
            self.lambdas[c] += correction.map_or(0.0, |k| k.dlambda);
        }
        for i in 0..self.predicted.len() {
            let slots = self.model.particle_slots.row(i);
            if slots.is_empty() {
                continue;
            }
            let sum = slots.iter().fold(Vec3::ZERO, |s, &slot| s + self.corrections[slot as usize]);
            self.predicted[i] += sum * (relaxation / slots.len() as f32);
        }
    }

    /// PBD Alg. 1 lines 8, 12–16: project the collision constraints of every collider (PBD
    /// §3.4, stiffness 1), `v = (p − x)/h`, `x = p`, then friction and restitution.
    fn collide_and_update_velocities(&mut self) {
        let params = self.params;
        let h = params.substep_dt();
        for i in 0..self.positions.len() {
            let x = self.positions[i];
            let mut p = self.predicted[i];
            let mut contacts: Vec<Contact> = Vec::new();
            if self.pins.inverse_masses()[i] > 0.0 {
                for collider in &self.colliders {
                    let hit = match *collider {
                        Collider::Plane { normal, offset } => {
                            math::collide_plane(p, normal, offset, params.collision_margin)
                        }
                        Collider::Sphere { center, radius } => {
                            math::collide_sphere(x, p, center, radius, params.collision_margin)
                        }
                    };
                    if let Some((projected, contact)) = hit {
                        p = projected;
                        contacts.push(contact);
                    }
                }
            }
            // v = (p − x)/h, evaluated as v̄ + (p − p̄)/h (see `shaders/finalize.wgsl`).
            let v_before = self.velocities[i];
            let mut v = v_before + (p - (x + v_before * h)) / h;
            for contact in contacts {
                v = math::contact_velocity(
                    v,
                    v_before,
                    contact,
                    h,
                    params.friction,
                    params.restitution,
                    params.restitution_threshold(),
                );
            }
            self.velocities[i] = v;
            self.positions[i] = p;
            self.predicted[i] = p;
        }
    }

    /// Area-weighted vertex normals (see [`ClothModel::vertex_normals`]).
    fn update_normals(&mut self) {
        self.normals = self.model.vertex_normals(&self.positions);
    }

    /// The model being simulated.
    pub fn model(&self) -> &ClothModel {
        &self.model
    }

    /// The current parameters.
    pub fn params(&self) -> &SolverParams {
        &self.params
    }
}
