//! Predict (PBD Alg. 1 lines 5–7): each free particle's velocity under gravity, the external
//! acceleration and the forces of the substep (the air's and the springs'), damped,
//! `v̄ = (v + h(g + a + a_air + a_springs))·max(0, 1 − damping·h)`, and the substep's
//! displacement starts at `q = h·v̄` (with no projection to follow, semi-implicit Euler). A
//! pinned particle's displacement is a `1/(substeps − substep)` share of the way to its target,
//! so that it arrives with the last substep at a uniform kinematic velocity.
//!
//! On the GPU, predict shares its module (`integrate`) with finalize
//! ([`super::finalize`]): both work particle by particle, so a substep's finalize and the next
//! one's predict run as one dispatch when nothing comes between them. WGSL twin:
//! `shaders/passes/predict.wgsl`.

use super::attachments::ATTACH_PINS;
use super::plan::{workgroups_for, DispatchInfo, FramePlan};
use super::{
    collision_kernel, Build, CollisionKernel, CpuFrame, Kernel, LayoutRefused, Part, Pass, Setup, Shader, Stage,
    Uploads, VELOCITIES,
};
use crate::collision::{self, GpuCollider, GpuColliderListHead, GpuSubstepContacts};
use crate::error::Error;
use crate::pins::PinRecord;
use crate::wgsl::{Binding, BindingTable, Constant};
use crate::wgsl_file;
use glam::Vec3;
use std::mem::size_of;

/// The kernels of the `integrate` module: predict, finalize, and finalize with the next
/// substep's predict in one dispatch.
pub(crate) const PREDICT: &str = "predict";
pub(crate) const FINALIZE: CollisionKernel = collision_kernel!("finalize");
pub(crate) const FINALIZE_AND_PREDICT: CollisionKernel = collision_kernel!("finalize_and_predict");

/// The predict pass.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PredictPass;

impl Pass for PredictPass {
    fn name(&self) -> &'static str {
        "predict"
    }

    fn stage(&self) -> Stage {
        Stage::Substep
    }

    fn shaders(&self, _build: &Build) -> Vec<Shader> {
        vec![integrate_shader()]
    }

    /// Keeps each particle's predicted displacement in its substep contacts' record while a
    /// collider bounces.
    fn prepare(&mut self, setup: &Setup, uploads: &mut Uploads) -> Result<(), Error> {
        if setup.colliders && setup.bouncing {
            let bytes = size_of::<GpuSubstepContacts>() as u64 * setup.model.particle_count() as u64;
            uploads.reserve("particle_contacts", bytes);
        }
        Ok(())
    }

    /// Fused with the finalize before it, when that is the last dispatch.
    fn dispatch(&self, setup: &Setup, plan: &mut FramePlan, substep: u32) -> Result<(), LayoutRefused> {
        let start = DispatchInfo::substep(substep);
        let fused = FINALIZE_AND_PREDICT.name(setup);
        if !plan.fuse_with_last(FINALIZE.name(setup), fused, FINALIZE_AND_PREDICT.traced, start) {
            plan.push(PREDICT, start, workgroups_for(setup.model.particle_count() as u32));
        }
        Ok(())
    }

    fn run_cpu(&mut self, setup: &Setup, frame: &mut CpuFrame, substep: u32) {
        let params = setup.params;
        let h = params.substep_dt();
        let acceleration = params.gravity + params.external_acceleration;
        let damping = (1.0 - params.damping * h).max(0.0);
        let remaining = params.substeps - substep;
        let (pins, solve) = (setup.pins, &mut *frame.solve);
        solve.positions.copy_from_slice(frame.positions);
        solve.inverse_masses.copy_from_slice(pins.inverse_masses());
        solve.responses = setup.model.responses(params);
        for (i, &x) in frame.positions.iter().enumerate() {
            if pins.attachment(i as u32).is_some() {
                continue; // moved by the attachments pass
            }
            solve.displacements[i] = if pins.inverse_masses()[i] == 0.0 {
                kinematic_step(x, pins.targets()[i], remaining)
            } else {
                let forces = frame.air_accelerations[i] + frame.spring_accelerations[i];
                ((frame.velocities[i] + (acceleration + forces) * h) * damping) * h
            };
            solve.predicted[i] = solve.displacements[i];
        }
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

/// The module of predict and finalize (`integrate`): the collision library, predict and
/// finalize, on the particles, the pins, the forces, the clock and the colliders.
pub(crate) fn integrate_shader() -> Shader {
    let constants =
        collision::wgsl_constants().into_iter().chain([Constant::f32("CLOCK_PERIOD", super::air::CLOCK_PERIOD)]);
    Shader {
        label: "integrate",
        constants: constants.collect(),
        groups: vec![&INTEGRATE],
        parts: vec![
            Part::File(collision::WGSL),
            Part::File(wgsl_file!("passes/predict.wgsl")),
            Part::File(wgsl_file!("passes/finalize.wgsl")),
            Part::File(wgsl_file!("passes/attachments.wgsl")),
        ],
        structs: vec![GpuCollider::LAYOUT, GpuColliderListHead::LAYOUT, crate::collision::GpuSubstepContacts::LAYOUT],
        block: None,
        kernels: std::iter::once(Kernel { uses: Some(PREDICT_USES), ..Kernel::plain(PREDICT) })
            .chain(FINALIZE.kernels(Some(FINALIZE_USES)))
            .chain(FINALIZE_AND_PREDICT.kernels(Some(FINALIZE_USES)))
            .chain(std::iter::once(Kernel { uses: Some(ATTACH_USES), ..Kernel::plain(ATTACH_PINS) }))
            .collect(),
    }
}

/// What predict binds of [`INTEGRATE`]: the particles, the pins and the forces.
const PREDICT_USES: &[&str] =
    &["positions", "velocities", "pins", "air_accelerations", "spring_accelerations", "particle_contacts"];
/// What the attachments' kernel binds of [`INTEGRATE`]: the particles, the pins and the
/// colliders.
const ATTACH_USES: &[&str] = &["positions", "velocities", "pins", "collider_list"];
/// What finalize binds of [`INTEGRATE`] (also when it runs with the next predict, which then
/// has neither air nor springs): the particles, the pins, the frame's start and the colliders
/// with what the frame's start, predict and the iterations recorded of them (a table of more
/// storage buffers than WebGPU lets one stage bind).
const FINALIZE_USES: &[&str] =
    &["positions", "velocities", "pins", "frame_start", "collider_list", "particle_contacts", "distance_fields"];

/// Group 1 of predict and finalize.
static INTEGRATE: BindingTable = BindingTable {
    label: "particles (integrate)",
    bindings: &[
        Binding::read_write(
            "positions",
            "array<vec4<f32>>",
            16,
            "x: positions at the start of the substep (xyz, w = 1), drawn directly as a vertex buffer.",
        ),
        Binding::read_write("velocities", "array<vec4<f32>>", 16, VELOCITIES),
        Binding::read("pins", "array<Pin>", size_of::<PinRecord>() as u64, "The pinned particles and their targets."),
        Binding::read(
            "air_accelerations",
            "array<vec4<f32>>",
            16,
            "Each particle's acceleration from the air (m/s², shaders/passes/air.wgsl): zero without\n\
             air, and a single zero entry until the air is first used.",
        ),
        Binding::read_write("frame_start", "array<f32>", 16, super::FRAME_START),
        Binding::read(
            "spring_accelerations",
            "array<vec4<f32>>",
            16,
            "Each particle's acceleration from its springs (m/s², shaders/passes/springs.wgsl): zero\n\
             outside mass-spring mode, and a single zero entry until that mode is first used.",
        ),
        Binding::read_write(
            "collider_list",
            "ColliderList",
            (size_of::<GpuColliderListHead>() + size_of::<GpuCollider>()) as u64,
            "The colliders over the frame, with the count of particles near too many of them.",
        ),
        Binding::read_write(
            "particle_contacts",
            "array<SubstepContacts>",
            size_of::<crate::collision::GpuSubstepContacts>() as u64,
            "Each free particle's substep contacts (src/passes/contacts.rs), which finalize's friction\n\
             reads, and its predicted displacement, which predict writes and finalize's restitution\n\
             reverses (XPBD §3.6): one record per particle while the contacts run in the iterations\n\
             or a collider bounces (restitution > 0), a single one otherwise (then unread).",
        ),
        super::DISTANCE_FIELDS,
    ],
};
