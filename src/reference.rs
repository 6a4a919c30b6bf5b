//! The CPU reference: the GPU algorithm in plain Rust. It walks the same passes in the same
//! order as the GPU's frame plan (`crate::passes::frame_order`), prepared by the same
//! functions, each pass running its CPU twin ([`crate::passes`]) with the pure functions its
//! WGSL mirrors. It is the specification the GPU is tested against, not a second backend to
//! optimise.

use crate::bodies::{body_states, body_states_fit, BodyState, RigidBody};
use crate::collision::{Collider, ColliderSet, ContactMaterial, Pose, SubstepContacts};
use crate::constraints::SolveState;
use crate::error::Error;
use crate::metrics::Overflows;
use crate::model::ClothModel;
use crate::params::SolverParams;
use crate::passes::attachments::{self, Attachment};
use crate::passes::bodies::attachments::{body_attachments_within, BodyAttachment, BodyAttachments};
use crate::passes::bodies::ropes::{validate_ropes, BodyRope};
use crate::passes::depenetration::Depenetration;
use crate::passes::{frame_order, passes, BodyCount, CpuFrame, Pass, Setup, Uploads};
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
    /// The passes, prepared for the parameters and pins of the last step.
    passes: Vec<Box<dyn Pass>>,
    /// Each particle's acceleration from the air in the current substep (m/s²).
    air_accelerations: Vec<Vec3>,
    /// Each particle's acceleration from its springs in the current substep (mass-spring mode).
    spring_accelerations: Vec<Vec3>,
    solve: SolveState,
    /// Each particle's contacts in the current substep's iterations.
    contacts: Vec<SubstepContacts>,
    /// Whether a particle started the current frame inside a collider, and the speeds then.
    depenetration: Depenetration,
    overflows: Overflows,
    /// The rigid bodies ([`CpuSolver::set_bodies`]).
    bodies: Vec<BodyState>,
    /// The particles attached to them.
    body_attachments: BodyAttachments,
    /// The ropes holding them.
    body_ropes: Vec<BodyRope>,
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
            passes: passes(),
            air_accelerations: vec![Vec3::ZERO; n],
            spring_accelerations: vec![Vec3::ZERO; n],
            solve: SolveState {
                positions: positions.clone(),
                displacements: vec![Vec3::ZERO; n],
                predicted: vec![Vec3::ZERO; n],
                inverse_masses: model.inverse_masses().to_vec(),
                responses: model.responses(&params),
            },
            positions,
            contacts: vec![SubstepContacts::default(); n],
            depenetration: Depenetration { active: false, speeds: vec![0.0; n] },
            overflows: Overflows::default(),
            bodies: Vec::new(),
            body_attachments: BodyAttachments::default(),
            body_ropes: Vec::new(),
        };
        prepare(&mut solver.passes, model, &params, &solver.pins, &solver.colliders, BodyCount::default())?;
        Ok(solver)
    }

    /// Adds `cloth` as a cloth of its own after the model's ([`ClothModel::joined`]), at rest in
    /// its rest state with its own pins, keeping the cloths' positions, velocities, normals,
    /// pins and targets, the colliders, the simulated time and the parameters
    /// ([`crate::GpuSolver::add_cloth`]). Overflow counts start from zero. On error the solver
    /// is left as it was.
    pub fn add_cloth(&mut self, cloth: &ClothModel) -> Result<(), Error> {
        let model = ClothModel::joined(&[self.model.clone(), cloth.clone()])?;
        let mut next = Self::new(&model, self.params, &[])?;
        next.colliders = self.colliders.clone();
        next.pins = self.pins.appended(cloth);
        next.bodies = self.bodies.clone();
        next.body_attachments = self.body_attachments.appended(cloth.particle_count());
        next.body_ropes = self.body_ropes.clone();
        let bodies = next.body_count();
        prepare(&mut next.passes, &model, &next.params, &next.pins, &next.colliders, bodies)?;
        let added = cloth.particle_count();
        next.positions = [self.positions.as_slice(), &cloth.mesh().positions].concat();
        next.velocities = [self.velocities.as_slice(), &vec![Vec3::ZERO; added]].concat();
        next.normals = [self.normals.as_slice(), &cloth.vertex_normals(&cloth.mesh().positions)].concat();
        next.time = self.time;
        *self = next;
        Ok(())
    }

    /// Replaces the parameters (validated; mass-spring's also for stability). On error the
    /// solver keeps its previous parameters, and its passes stay prepared for them.
    pub fn set_params(&mut self, params: SolverParams) -> Result<(), Error> {
        params.validate()?;
        let mut passes = self.passes.clone();
        let bodies = self.body_count();
        prepare(&mut passes, &self.model, &params, &self.pins, &self.colliders, bodies)?;
        self.passes = passes;
        self.params = params;
        Ok(())
    }

    /// Replaces the colliders (validated), each resting at the identity pose, and zeroes the
    /// overflow counts. Refused while a particle is attached to a collider (release it first).
    pub fn set_colliders(&mut self, colliders: &[Collider]) -> Result<(), Error> {
        self.pins.check_no_attachments()?;
        self.colliders = ColliderSet::new(colliders)?;
        self.overflows = Overflows::default();
        Ok(())
    }

    /// Attaches particle `index` to collider `collider` at the collider's point that is at `at`
    /// where the collider is now ([`crate::GpuSolver::attach`]); `pins.unpin` releases it.
    pub fn attach(&mut self, index: u32, collider: u32, at: Vec3) -> Result<(), Error> {
        self.attach_many(&[Attachment { particle: index, collider, at }])
    }

    /// Makes every attachment of `attachments` at once; on error none.
    pub fn attach_many(&mut self, attachments: &[Attachment]) -> Result<(), Error> {
        attachments::attach_all(&mut self.pins, &self.colliders, attachments)
    }

    /// Attaches every free particle within `distance` of collider `collider`'s surface where
    /// each is ([`crate::GpuSolver::attach_within`]), and returns them.
    pub fn attach_within(&mut self, collider: u32, distance: f32) -> Result<Vec<u32>, Error> {
        let near = attachments::attachments_within(&self.pins, &self.colliders, collider, distance, &self.positions)?;
        self.attach_many(&near)?;
        Ok(near.iter().map(|a| a.particle).collect())
    }

    /// Replaces the rigid bodies ([`crate::GpuSolver::set_bodies`]): each validated, at most
    /// [`crate::bodies::MAX_BODIES`]; every attachment to a body and every rope is released.
    /// On error nothing changes.
    pub fn set_bodies(&mut self, bodies: &[RigidBody]) -> Result<(), Error> {
        self.bodies = body_states(bodies)?;
        self.body_attachments = BodyAttachments::default();
        self.body_ropes.clear();
        Ok(())
    }

    /// Replaces the ropes holding bodies ([`crate::GpuSolver::set_body_ropes`]): all, or on
    /// error none.
    pub fn set_body_ropes(&mut self, ropes: &[BodyRope]) -> Result<(), Error> {
        validate_ropes(ropes, self.bodies.len())?;
        self.body_ropes = ropes.to_vec();
        Ok(())
    }

    /// The ropes holding bodies.
    pub fn body_ropes(&self) -> &[BodyRope] {
        &self.body_ropes
    }

    /// Adds `body` to the running bodies ([`crate::GpuSolver::add_body`]); on error nothing
    /// changes.
    pub fn add_body(&mut self, body: &RigidBody) -> Result<(), Error> {
        let added = body_states(std::slice::from_ref(body))?;
        body_states_fit(self.bodies.len() + 1)?;
        self.bodies.extend(added);
        Ok(())
    }

    /// Attaches particles to points of bodies ([`crate::GpuSolver::attach_to_bodies`]): all,
    /// or on error none.
    pub fn attach_to_bodies(&mut self, attachments: &[BodyAttachment]) -> Result<(), Error> {
        self.body_attachments.attach_all(&self.pins, self.bodies.len(), attachments)
    }

    /// Attaches every free particle within `distance` of body `body`'s surface where each is
    /// ([`crate::GpuSolver::attach_within_body`]), and returns them.
    pub fn attach_within_body(&mut self, body: u32, distance: f32) -> Result<Vec<u32>, Error> {
        let near = body_attachments_within(&self.pins, &self.bodies, body, distance, &self.positions)?;
        self.attach_to_bodies(&near)?;
        Ok(near.iter().map(|a| a.particle).collect())
    }

    /// Releases particle `particle` from its body, if attached to one.
    pub fn detach_from_body(&mut self, particle: u32) -> Result<(), Error> {
        self.body_attachments.detach(particle, self.positions.len())
    }

    /// The particles attached to bodies.
    pub fn body_attachments(&self) -> &BodyAttachments {
        &self.body_attachments
    }

    /// How many bodies and attached particles the passes meet.
    fn body_count(&self) -> BodyCount {
        BodyCount::of(&self.bodies, self.body_attachments.count(), self.body_ropes.len())
    }

    /// The rigid bodies, between frames.
    pub fn bodies(&self) -> &[BodyState] {
        &self.bodies
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

    /// Advances one frame: the passes in frame order (`crate::passes::frame_order`: rigid
    /// damping and depenetration, then `substeps` × (air → springs → predict → `iterations`
    /// projections → area limits → tethers → self-collision → the directional limit, in the last
    /// substep → collide and update velocities), then normals; PBD
    /// Alg. 1 with XPBD substepping), then the colliders end the frame where their poses took
    /// them. The passes are prepared first, since [`CpuSolver::pins`] may have been edited.
    pub fn step(&mut self) {
        let bodies = self.body_count();
        prepare(&mut self.passes, &self.model, &self.params, &self.pins, &self.colliders, bodies)
            .expect("the parameters were accepted, and the pins change nothing that can fail");
        let colliders = self.colliders.this_frame(self.params.contact_material());
        let setup = Setup::new(&self.model, &self.params, &self.pins, None, &self.colliders, bodies);
        let mut frame = CpuFrame {
            positions: &mut self.positions,
            velocities: &mut self.velocities,
            normals: &mut self.normals,
            solve: &mut self.solve,
            air_accelerations: &mut self.air_accelerations,
            spring_accelerations: &mut self.spring_accelerations,
            colliders: &colliders,
            contacts: &mut self.contacts,
            depenetration: &mut self.depenetration,
            overflows: &mut self.overflows,
            time: &mut self.time,
            bodies: &mut self.bodies,
            body_attachments: &self.body_attachments,
            body_ropes: &self.body_ropes,
        };
        for (pass, substep) in frame_order(&self.passes, self.params.substeps) {
            self.passes[pass].run_cpu(&setup, &mut frame, substep);
        }
        self.colliders.end_frame();
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

/// Prepares every pass for `params` and `pins` ([`Pass::prepare`], the GPU's preparation too):
/// builds what they need the first time, rebuilds the tethers when the pins changed, and checks
/// the springs' stability.
fn prepare(
    passes: &mut [Box<dyn Pass>],
    model: &ClothModel,
    params: &SolverParams,
    pins: &Pins,
    colliders: &ColliderSet,
    bodies: BodyCount,
) -> Result<(), Error> {
    let setup = Setup::new(model, params, pins, None, colliders, bodies);
    passes.iter_mut().try_for_each(|pass| pass.prepare(&setup, &mut Uploads::none()))
}
