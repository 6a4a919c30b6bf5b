//! The collider contacts inside the iterations (PBD Alg. 1 line 10: the collision constraints
//! are projected with the others, in the loop). After predict, each free particle keeps the
//! half-spaces its predicted path meets ([`crate::collision::substep_contacts`], at most
//! [`crate::collision::ITERATION_CONTACTS`]); after every iteration it is projected into them
//! ([`crate::collision::project_substep_contacts`]), so that the constraints and the contacts
//! settle together and no edge in contact is stretched by a push that comes after them all.
//! Finalize still resolves every collider near the final path (the passes between the
//! iterations and finalize move particles too), and its friction and restitution read what the
//! iterations took out of the predicted motion and the predicted displacement. Only on a cloth
//! with colliders. WGSL twin:
//! `shaders/passes/contacts.wgsl`, with the collision library. Only when asked
//! ([`crate::SolverParams::contacts_in_iterations`]).

use super::plan::{workgroups_for, DispatchInfo, FramePlan};
use super::{
    collision_kernel, Build, CollisionKernel, CpuFrame, LayoutRefused, Part, Pass, Setup, Shader, Stage, Uploads,
    VELOCITIES,
};
use crate::collision::{self, project_substep_contacts, substep_contacts, GpuCollider, GpuColliderListHead};
use crate::collision::{GpuSubstepContacts, MovingCollider, SubstepContacts};
use crate::constraints::SolveState;
use crate::error::Error;
use crate::wgsl::{Binding, BindingTable};
use crate::wgsl_file;
use std::mem::size_of;

/// Finds each free particle's substep contacts.
pub(crate) const FIND_CONTACTS: CollisionKernel = collision_kernel!("find_contacts");
/// Projects each free particle into its substep contacts: the iterations dispatch it after each
/// iteration.
pub(crate) const PROJECT_CONTACTS: CollisionKernel = collision_kernel!("project_contacts");

/// The contacts pass: finds the substep contacts after predict.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ContactsPass;

impl Pass for ContactsPass {
    fn name(&self) -> &'static str {
        "contacts"
    }

    fn stage(&self) -> Stage {
        Stage::Substep
    }

    fn shaders(&self, _build: &Build) -> Vec<Shader> {
        vec![Shader {
            label: "contacts",
            constants: collision::wgsl_constants(),
            groups: vec![&CONTACTS],
            parts: vec![Part::File(collision::WGSL), Part::File(wgsl_file!("passes/contacts.wgsl"))],
            structs: vec![GpuCollider::LAYOUT, GpuColliderListHead::LAYOUT, GpuSubstepContacts::LAYOUT],
            block: None,
            kernels: [FIND_CONTACTS, PROJECT_CONTACTS].into_iter().flat_map(|k| k.kernels(None)).collect(),
        }]
    }

    /// A record per particle, once the cloth has colliders.
    fn prepare(&mut self, setup: &Setup, uploads: &mut Uploads) -> Result<(), Error> {
        if setup.iteration_contacts() {
            let bytes = size_of::<GpuSubstepContacts>() as u64 * setup.model.particle_count() as u64;
            uploads.reserve("particle_contacts", bytes);
        }
        Ok(())
    }

    fn dispatch(&self, setup: &Setup, plan: &mut FramePlan, substep: u32) -> Result<(), LayoutRefused> {
        if setup.iteration_contacts() {
            let particles = setup.model.particle_count() as u32;
            plan.push(FIND_CONTACTS.name(setup), DispatchInfo::substep(substep), workgroups_for(particles));
        }
        Ok(())
    }

    fn run_cpu(&mut self, setup: &Setup, frame: &mut CpuFrame, substep: u32) {
        if !setup.iteration_contacts() {
            return;
        }
        let colliders: Vec<MovingCollider> =
            frame.colliders.iter().map(|c| c.substep(substep, setup.params.substeps)).collect();
        let solve = &*frame.solve;
        for (i, contacts) in frame.contacts.iter_mut().enumerate() {
            if solve.inverse_masses[i] > 0.0 {
                *contacts = substep_contacts(solve.positions[i], solve.displacements[i], &colliders);
            }
        }
    }
}

/// One iteration's contact projection on the CPU ([`PROJECT_CONTACTS`]): every free particle
/// into its substep contacts.
pub(crate) fn project_contacts(state: &mut SolveState, contacts: &[SubstepContacts]) {
    for (i, contacts) in contacts.iter().enumerate() {
        if state.inverse_masses[i] > 0.0 {
            let q = project_substep_contacts(state.positions[i], state.displacements[i], contacts);
            state.displacements[i] = q;
        }
    }
}

/// Group 1 of the contacts.
static CONTACTS: BindingTable = BindingTable {
    label: "contacts",
    bindings: &[
        Binding::read("positions", "array<vec4<f32>>", 16, "x: positions at the start of the substep (w = 1)."),
        Binding::read_write("velocities", "array<vec4<f32>>", 16, VELOCITIES),
        Binding::read_write(
            "collider_list",
            "ColliderList",
            (size_of::<GpuColliderListHead>() + size_of::<GpuCollider>()) as u64,
            "The colliders over the frame (their overflow count is finalize's).",
        ),
        super::DISTANCE_FIELDS,
        PARTICLE_CONTACTS,
    ],
};

/// Each particle's substep contacts, for the tables that bind them.
pub(crate) const PARTICLE_CONTACTS: Binding = Binding::read_write(
    "particle_contacts",
    "array<SubstepContacts>",
    size_of::<GpuSubstepContacts>() as u64,
    "Each free particle's substep contacts (written after predict, pushed by the iterations), on a\n\
     cloth with colliders.",
);
