//! The CPU reference: the GPU algorithm in plain Rust, walking the same frame plan (the model's
//! Gauss-Seidel schedule, or Jacobi's units and gather lists) with the same pure functions of
//! [`crate::constraints`] and [`crate::collision`]. It is the specification the GPU is tested
//! against, not a second backend to optimise.

use crate::collision::{respond_to_colliders, Collider, ColliderSet, ContactMaterial, MovingCollider, Pose};
use crate::constraints::{Multipliers, SolveState, UnitType};
use crate::error::Error;
use crate::metrics::Overflows;
use crate::model::{ClothModel, JacobiPlan};
use crate::params::{SolverMode, SolverParams, MAX_SUBSTEPS};
use crate::passes::air::{advanced_clock, air_acceleration, AirState};
use crate::passes::area_limits::{project_area_limit, TriangleAreas};
use crate::passes::rigid_damping::{damp_to_rigid_motion, frame_fraction, rigid_motion, Moments};
use crate::passes::self_collision::collide_self;
use crate::passes::springs::{ParticleState, SpringNetwork};
use crate::passes::tethers::{project_tethers, PinnedTethers};
use crate::pins::Pins;
use glam::Vec3;

/// A cloth stepped on the CPU.
#[derive(Debug, Clone)]
pub struct CpuSolver {
    model: ClothModel,
    params: SolverParams,
    colliders: ColliderSet,
    /// Particle state `x` (m), one per particle: it may be edited between steps, not resized
    /// ([`CpuSolver::step`] panics on a wrong length).
    pub positions: Vec<Vec3>,
    /// Particle velocities `v` (m/s), one per particle (edit, don't resize).
    pub velocities: Vec<Vec3>,
    /// Area-weighted vertex normals, updated at the end of each frame.
    pub normals: Vec<Vec3>,
    /// Pins and inverse masses.
    pub pins: Pins,
    /// Simulated time (s) at the start of the next frame, for gusts.
    pub time: f32,
    /// Each particle's acceleration from the air in the current substep (m/s²).
    air_accelerations: Vec<Vec3>,
    /// Each particle's acceleration from its springs in the current substep (mass-spring mode).
    spring_accelerations: Vec<Vec3>,
    solve: SolveState,
    multipliers: Multipliers,
    jacobi: Option<JacobiPlan>,
    springs: Option<SpringNetwork>,
    /// The coloured triangles, once area limits are used.
    areas: Option<TriangleAreas>,
    tethers: PinnedTethers,
    overflows: Overflows,
}

impl CpuSolver {
    /// Starts the cloth at rest in its mesh's rest state.
    pub fn new(model: &ClothModel, params: SolverParams, colliders: &[Collider]) -> Result<Self, Error> {
        params.validate()?;
        let colliders = ColliderSet::new(colliders)?;
        let n = model.particle_count();
        let positions = model.mesh().positions.clone();
        let mut solver = Self {
            model: model.clone(),
            params,
            colliders,
            velocities: vec![Vec3::ZERO; n],
            normals: model.vertex_normals(&positions),
            pins: Pins::new(model),
            time: 0.0,
            air_accelerations: vec![Vec3::ZERO; n],
            spring_accelerations: vec![Vec3::ZERO; n],
            solve: SolveState {
                positions: positions.clone(),
                displacements: vec![Vec3::ZERO; n],
                inverse_masses: model.inverse_masses().to_vec(),
                responses: params.responses(),
            },
            positions,
            multipliers: Multipliers::zeros(model.constraints()),
            jacobi: None,
            springs: None,
            areas: None,
            tethers: PinnedTethers::default(),
            overflows: Overflows::default(),
        };
        solver.plan_mode(&params)?;
        Ok(solver)
    }

    /// Replaces the parameters (validated; mass-spring's also for stability). On error the
    /// solver keeps its previous parameters.
    pub fn set_params(&mut self, params: SolverParams) -> Result<(), Error> {
        params.validate()?;
        self.plan_mode(&params)?;
        self.params = params;
        Ok(())
    }

    /// Replaces the colliders (validated), each resting at the identity pose, and zeroes the
    /// overflow counts.
    pub fn set_colliders(&mut self, colliders: &[Collider]) -> Result<(), Error> {
        self.colliders = ColliderSet::new(colliders)?;
        self.overflows = Overflows::default();
        Ok(())
    }

    /// What fixed capacities left out since the solver was made or its colliders set.
    pub fn overflows(&self) -> Overflows {
        self.overflows
    }

    /// The poses the colliders reach by the end of the next frame, one per collider
    /// (validated): the frame moves them there from where they are, and their surfaces carry
    /// the cloth they touch ([`crate::GpuSolver::set_collider_poses`]).
    pub fn set_collider_poses(&mut self, poses: &[Pose]) -> Result<(), Error> {
        self.colliders.set_poses(poses)
    }

    /// Puts the colliders at `poses` at once, at rest ([`crate::GpuSolver::place_colliders`]).
    pub fn place_colliders(&mut self, poses: &[Pose]) -> Result<(), Error> {
        self.colliders.place(poses)
    }

    /// Each collider's contact material, or `None` for the parameters'
    /// ([`crate::GpuSolver::set_collider_materials`]).
    pub fn set_collider_materials(&mut self, materials: &[Option<ContactMaterial>]) -> Result<(), Error> {
        self.colliders.set_materials(materials)
    }

    /// The colliders at the poses they reach by the end of the next frame.
    pub fn colliders(&self) -> Vec<Collider> {
        self.colliders.placed()
    }

    /// Builds what `params` need the first time they are used (Jacobi's plan, the springs, the
    /// coloured triangles of the area limits), and checks the springs' stability.
    fn plan_mode(&mut self, params: &SolverParams) -> Result<(), Error> {
        if params.active_area_limits().is_some() && self.areas.is_none() {
            self.areas = Some(TriangleAreas::new(&self.model));
        }
        match params.mode {
            SolverMode::Jacobi { .. } if self.jacobi.is_none() => self.jacobi = Some(self.model.jacobi_plan()),
            SolverMode::MassSpring(springs) => {
                let network = self.springs.get_or_insert_with(|| SpringNetwork::new(&self.model));
                network.check_stability(&springs, params.time_step, params.substeps, MAX_SUBSTEPS)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// Advances one frame: rigid damping, then `substeps` × (air → springs → predict →
    /// `iterations` projections → area limits → tethers → self-collision → collide and update
    /// velocities), then recomputes normals (PBD Alg. 1 with XPBD substepping) and advances the
    /// time. Mass-spring mode has springs and no projections, area limits or tethers; the others
    /// the reverse.
    pub fn step(&mut self) {
        self.update_tethers();
        self.damp_to_rigid_motion();
        for substep in 0..self.params.substeps {
            self.update_air(substep);
            self.update_springs();
            self.predict(substep);
            for _ in 0..self.params.iterations {
                match self.params.mode {
                    SolverMode::GaussSeidel => self.project_gauss_seidel(),
                    SolverMode::Jacobi { relaxation } => self.project_jacobi(relaxation),
                    SolverMode::MassSpring(_) => break,
                }
            }
            self.limit_areas();
            let response = self.params.tether_response();
            for k in 0..self.tethers.tethers().particle_count() {
                project_tethers(self.tethers.tethers(), k, self.params.tethers.scale, response, &mut self.solve);
            }
            if let Some(self_collision) = &self.params.self_collision {
                let overflows = collide_self(&mut self.solve, self.model.mesh(), self_collision);
                // Wraps like the GPU's atomic counter.
                self.overflows.self_contacts = self.overflows.self_contacts.wrapping_add(overflows);
            }
            self.finalize(substep);
        }
        self.colliders.end_frame();
        self.normals = self.model.vertex_normals(&self.positions);
        self.time = advanced_clock(self.time, self.params.substep_dt() * self.params.substeps as f32);
    }

    /// Moves each free particle's velocity the frame's fraction of the way to the free
    /// particles' rigid motion (PBD §3.5), about particle 0's position.
    fn damp_to_rigid_motion(&mut self) {
        if self.params.rigid_damping <= 0.0 {
            return;
        }
        let reference = self.positions[0];
        let w = self.pins.inverse_masses();
        let free = (0..self.positions.len()).filter(|&i| w[i] > 0.0);
        let moments = free.clone().fold(Moments::default(), |sum, i| {
            sum + Moments::of_particle(1.0 / w[i], self.positions[i] - reference, self.velocities[i])
        });
        let motion = rigid_motion(&moments);
        let k = frame_fraction(self.params.rigid_damping, self.params.time_step);
        for i in free {
            self.velocities[i] = damp_to_rigid_motion(self.velocities[i], self.positions[i] - reference, &motion, k);
        }
    }

    /// Each particle's acceleration from the air at the start of `substep` (zero without air).
    fn update_air(&mut self, substep: u32) {
        let Some(aero) = &self.params.aerodynamics else {
            return self.air_accelerations.fill(Vec3::ZERO);
        };
        let h = self.params.substep_dt();
        let state = AirState {
            positions: &self.positions,
            velocities: &self.velocities,
            inverse_masses: self.pins.inverse_masses(),
            time: self.time + substep as f32 * h,
            h,
        };
        let (triangles, lists) = (&self.model.mesh().triangles, self.model.vertex_triangles());
        for (i, a) in self.air_accelerations.iter_mut().enumerate() {
            *a = air_acceleration(aero, triangles, lists, &state, i);
        }
    }

    /// Each particle's acceleration from its springs at the start of the substep (mass-spring
    /// mode; the others leave it zero).
    fn update_springs(&mut self) {
        let (SolverMode::MassSpring(springs), Some(network)) = (self.params.mode, &self.springs) else {
            return self.spring_accelerations.fill(Vec3::ZERO);
        };
        let state = ParticleState {
            positions: &self.positions,
            velocities: &self.velocities,
            inverse_masses: self.pins.inverse_masses(),
        };
        for (i, a) in self.spring_accelerations.iter_mut().enumerate() {
            *a = network.acceleration(&springs, &state, i);
        }
    }

    /// Projects the area limits, when on, triangle by triangle in colour order.
    fn limit_areas(&mut self) {
        let (Some(limits), Some(areas)) = (self.params.active_area_limits(), &self.areas) else {
            return;
        };
        for t in 0..areas.len() {
            project_area_limit(areas, t, limits, &mut self.solve);
        }
    }

    /// Rebuilds the tethers when they are switched on or off or the set of pinned particles
    /// changed since they were built ([`CpuSolver::pins`] may be edited directly).
    fn update_tethers(&mut self) {
        if let Some(rebuilt) =
            self.tethers.rebuilt(&self.model, self.params.tethers_active(), self.pins.inverse_masses())
        {
            self.tethers = rebuilt;
        }
    }

    /// PBD Alg. 1 lines 5–7: `v̄ = (v + h(g + a + (a_air + a_springs)))·damping`, and the
    /// substep's displacement starts at `q = h·v̄` (with no projection to follow, semi-implicit
    /// Euler); a pinned particle's displacement is a `1/(substeps − substep)` share of the way to
    /// its target. Multipliers reset (XPBD).
    fn predict(&mut self, substep: u32) {
        let h = self.params.substep_dt();
        let acceleration = self.params.gravity + self.params.external_acceleration;
        let damping = (1.0 - self.params.damping * h).max(0.0);
        let remaining = self.params.substeps - substep;
        self.solve.positions.copy_from_slice(&self.positions);
        self.solve.inverse_masses.copy_from_slice(self.pins.inverse_masses());
        self.solve.responses = self.params.responses();
        for i in 0..self.positions.len() {
            let x = self.positions[i];
            self.solve.displacements[i] = if self.pins.inverse_masses()[i] == 0.0 {
                kinematic_step(x, self.pins.targets()[i], remaining)
            } else {
                let forces = self.air_accelerations[i] + self.spring_accelerations[i];
                ((self.velocities[i] + (acceleration + forces) * h) * damping) * h
            };
        }
        self.multipliers.reset();
    }

    /// One coloured Gauss-Seidel sweep: the schedule's colours in order, each unit applied at
    /// once.
    fn project_gauss_seidel(&mut self) {
        for colour in &self.model.schedule().colours {
            let unit_type = UnitType::ALL[colour.unit_type];
            for u in colour.units.clone() {
                unit_type.project(self.model.constraints(), u as usize, &mut self.solve, &mut self.multipliers);
            }
        }
    }

    /// One Jacobi sweep: every unit reads the same positions and writes its scaled corrections to
    /// its slots; each particle then adds its slots, summed in the fixed order of its gather list.
    fn project_jacobi(&mut self, relaxation: f32) {
        let plan = self.jacobi.as_ref().expect("planned when Jacobi mode was set");
        let mut slots = vec![Vec3::ZERO; plan.slot_count as usize];
        for (t, unit_type) in UnitType::ALL.into_iter().enumerate() {
            let units = self.model.units(unit_type);
            let arity = unit_type.arity();
            for u in units.clone() {
                let first = (plan.slot_bases[t] + (u - units.start) * arity as u32) as usize;
                unit_type.jacobi(
                    self.model.constraints(),
                    u as usize,
                    relaxation,
                    &plan.scales,
                    &self.solve,
                    &mut self.multipliers,
                    &mut slots[first..first + arity],
                );
            }
        }
        for (i, q) in self.solve.displacements.iter_mut().enumerate() {
            let sum = plan.gather.row(i).iter().fold(Vec3::ZERO, |s, &slot| s + slots[slot as usize]);
            *q += sum;
        }
    }

    /// PBD Alg. 1 lines 8, 12–16: the collision response of every free particle
    /// ([`respond_to_colliders`]) gives its displacement `q` and velocity, then `x = x + q`.
    /// Pinned particles take their kinematic velocity and end the frame exactly on their targets.
    fn finalize(&mut self, substep: u32) {
        let h = self.params.substep_dt();
        let response = self.params.contact_response();
        let last = substep + 1 == self.params.substeps;
        let frame = self.colliders.this_frame(self.params.contact_material());
        let colliders: Vec<MovingCollider> = frame.iter().map(|c| c.substep(substep, self.params.substeps)).collect();
        for i in 0..self.positions.len() {
            let x = self.positions[i];
            let q = self.solve.displacements[i];
            if self.pins.inverse_masses()[i] == 0.0 {
                self.velocities[i] = q / h;
                self.positions[i] = if last { self.pins.targets()[i] } else { x + q };
                continue;
            }
            let outcome = respond_to_colliders(x, q, &colliders, &response);
            // Wraps like the GPU's atomic counter.
            self.overflows.colliders = self.overflows.colliders.wrapping_add(u32::from(outcome.overflow));
            self.velocities[i] = outcome.v;
            self.positions[i] = x + outcome.q;
        }
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

/// A pinned particle's displacement in a substep: a `1/remaining` share of the way from `x` to
/// its `target`, so it arrives with the last substep at a uniform kinematic velocity.
pub fn kinematic_step(x: Vec3, target: Vec3, remaining: u32) -> Vec3 {
    if remaining == 1 {
        target - x
    } else {
        (target - x) / remaining as f32
    }
}
