//! Finalize (PBD Alg. 1 lines 8, 12–16): the collider contacts and the velocity update. Every
//! free particle's collision response ([`crate::collision::respond_to_colliders`]: the contact
//! projection against every collider at once, so that no substep ends inside one, with
//! friction and restitution, which also read what the iterations' contacts pushed,
//! [`super::contacts`]) gives its displacement `q` and velocity, then `x = x + q`. The
//! velocity comes from the displacement, never from a difference of metre-scale positions, so
//! its rounding is relative to the motion. Pinned particles take their kinematic velocity and
//! end the frame exactly on their targets, attached ones every substep on their collider's point
//! ([`super::attachments`]). In a frame in which a particle started inside a
//! collider, each free particle's speed is bounded ([`super::depenetration`]). The frame's last
//! finalize advances the clock.
//!
//! Its kernels are in the `integrate` module it shares with predict
//! (`integrate_shader` in [`super::predict`]). WGSL twin: `shaders/passes/finalize.wgsl`.

use super::air::advanced_clock;
use super::attachments::attachment_target;
use super::plan::{workgroups_for, DispatchInfo, FramePlan};
use super::predict::{integrate_shader, FINALIZE};
use super::{Build, CpuFrame, LayoutRefused, Pass, Setup, Shader, Stage};
use crate::collision::{depenetration_speed_limit, limit_speed, respond_to_colliders, MovingCollider};

/// The finalize pass.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct FinalizePass;

impl Pass for FinalizePass {
    fn name(&self) -> &'static str {
        "finalize"
    }

    fn stage(&self) -> Stage {
        Stage::Substep
    }

    fn shaders(&self, _build: &Build) -> Vec<Shader> {
        vec![integrate_shader()]
    }

    fn dispatch(&self, setup: &Setup, plan: &mut FramePlan, substep: u32) -> Result<(), LayoutRefused> {
        plan.push(
            FINALIZE.name(setup),
            DispatchInfo::substep(substep),
            workgroups_for(setup.model.particle_count() as u32),
        );
        Ok(())
    }

    fn run_cpu(&mut self, setup: &Setup, frame: &mut CpuFrame, substep: u32) {
        let params = setup.params;
        let h = params.substep_dt();
        let response = params.contact_response();
        let last = substep + 1 == params.substeps;
        let acceleration = (params.gravity + params.external_acceleration).length();
        let colliders: Vec<MovingCollider> =
            frame.colliders.iter().map(|c| c.substep(substep, params.substeps)).collect();
        let (pins, solve) = (setup.pins, &*frame.solve);
        for (i, x) in frame.positions.iter_mut().enumerate() {
            let q = solve.displacements[i];
            if pins.inverse_masses()[i] == 0.0 {
                frame.velocities[i] = q / h;
                *x = match pins.attachment(i as u32) {
                    Some((c, local)) => {
                        attachment_target(local, &frame.colliders[c as usize], substep, params.substeps)
                    }
                    None if last => pins.targets()[i],
                    None => *x + q,
                };
                continue;
            }
            let earlier = setup.iteration_contacts().then(|| &frame.contacts[i]);
            let outcome = respond_to_colliders(*x, q, solve.predicted[i], earlier, &colliders, &response);
            // Wraps like the GPU's atomic counter.
            frame.overflows.colliders = frame.overflows.colliders.wrapping_add(u32::from(outcome.overflow));
            frame.velocities[i] = if frame.depenetration.active {
                let start = frame.depenetration.speeds[i];
                let limit = depenetration_speed_limit(start, params.max_depenetration_speed, acceleration, h, substep);
                limit_speed(outcome.v, limit)
            } else {
                outcome.v
            };
            *x += outcome.q;
        }
        if last {
            *frame.time = advanced_clock(*frame.time, h * params.substeps as f32);
        }
    }
}
