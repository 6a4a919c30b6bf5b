//! Attachments to colliders: a particle attached to a point of a collider
//! ([`crate::pins::Pins::attach`]) is a pin whose target is that point wherever the collider is,
//! substep by substep. Predict leaves it alone; after it, each attached particle's displacement
//! is the way to its point at the substep's end along the collider's motion
//! ([`attachment_target`]), so that the iterations see it where the collider takes it in that
//! substep rather than where the frame's end puts it; finalize puts it there exactly and gives
//! it the point's velocity, so a released attachment leaves the particle moving as its point
//! did. One dispatch per substep, only while a pin is attached.
//!
//! Its kernel is in the `integrate` module, whose finalize reads the same targets
//! (`integrate_shader` in [`super::predict`]). WGSL twin: `shaders/passes/attachments.wgsl`.

use super::plan::{workgroups_for, DispatchInfo, FramePlan};
use super::{CpuFrame, LayoutRefused, Pass, Setup, Stage};
use crate::collision::{ColliderSet, MovingCollider};
use crate::error::{Error, ParamError};
use crate::pins::Pins;
use glam::Vec3;

/// The attachments' kernel, in the `integrate` module.
pub(crate) const ATTACH_PINS: &str = "attach_pins";

/// Where a particle attached at `local` (a point of `collider`'s own frame) is at the end of
/// substep `substep` of `substeps`: that point at the collider's pose then.
pub fn attachment_target(local: Vec3, collider: &MovingCollider, substep: u32, substeps: u32) -> Vec3 {
    collider.motion.substep(substep, substeps).end.to_world(local)
}

/// A particle to attach to the point of a collider that lies at `at` where the collider is now
/// (usually the particle's position, for no jump).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Attachment {
    /// The particle.
    pub particle: u32,
    /// The collider (an index into the solver's colliders).
    pub collider: u32,
    /// The point of the collider, in the world where the collider is now (m).
    pub at: Vec3,
}

/// Attaches each of `attachments` (both solvers' `attach_many`): all or, on error, none.
pub(crate) fn attach_all(pins: &mut Pins, colliders: &ColliderSet, attachments: &[Attachment]) -> Result<(), Error> {
    let count = colliders.shapes().len();
    let mut attached = pins.clone();
    for &Attachment { particle, collider, at } in attachments {
        let pose = colliders.pose_now(collider).ok_or_else(|| Error::Pin(format!("collider {collider} of {count}")))?;
        attached.attach(particle, collider, pose.to_local(at))?;
    }
    *pins = attached;
    Ok(())
}

/// The attachments of every free particle at `positions` within `distance` of collider
/// `collider`'s surface where the collider is now (inside it too), each where it is (both
/// solvers' `attach_within`).
pub(crate) fn attachments_within(
    pins: &Pins,
    colliders: &ColliderSet,
    collider: u32,
    distance: f32,
    positions: &[Vec3],
) -> Result<Vec<Attachment>, Error> {
    check_reach(distance)?;
    let count = colliders.shapes().len();
    let shape = (colliders.placed_at_start().into_iter().nth(collider as usize))
        .ok_or_else(|| Error::Pin(format!("collider {collider} of {count}")))?;
    let free = |i: usize| pins.inverse_masses()[i] > 0.0;
    Ok((0..positions.len())
        .filter(|&i| free(i) && shape.signed_distance(positions[i]) <= distance)
        .map(|i| Attachment { particle: i as u32, collider, at: positions[i] })
        .collect())
}

/// Checks the distance within which `attach_within` and `attach_within_body` take particles:
/// finite and at least zero.
pub(crate) fn check_reach(distance: f32) -> Result<(), Error> {
    if !(distance.is_finite() && distance >= 0.0) {
        return Err(ParamError { name: "distance", value: distance.to_string(), expected: "finite and ≥ 0" }.into());
    }
    Ok(())
}

/// The attachments pass.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct AttachmentsPass;

impl Pass for AttachmentsPass {
    fn name(&self) -> &'static str {
        "attachments"
    }

    fn stage(&self) -> Stage {
        Stage::Substep
    }

    /// One thread per pin, while one is attached.
    fn dispatch(&self, setup: &Setup, plan: &mut FramePlan, substep: u32) -> Result<(), LayoutRefused> {
        if setup.pins.has_attachments() {
            let pins = setup.pins.records().len() as u32;
            plan.push(ATTACH_PINS, DispatchInfo::substep(substep), workgroups_for(pins));
        }
        Ok(())
    }

    fn run_cpu(&mut self, setup: &Setup, frame: &mut CpuFrame, substep: u32) {
        let substeps = setup.params.substeps;
        let solve = &mut *frame.solve;
        for i in 0..frame.positions.len() {
            if let Some((collider, local)) = setup.pins.attachment(i as u32) {
                let target = attachment_target(local, &frame.colliders[collider as usize], substep, substeps);
                solve.displacements[i] = target - frame.positions[i];
                solve.predicted[i] = solve.displacements[i];
            }
        }
    }
}
