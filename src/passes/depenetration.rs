//! Bounded depenetration: the speed a push out of a collider may give the cloth (as PhysX's
//! `maxDepenetrationVelocity`). A particle that starts a frame inside a collider (one placed or
//! set onto the cloth, or positions set inside one) is pushed out by finalize in the frame's
//! first substep, and the constraints then pull its neighbours after it: a settled 24² cloth
//! with the drape scene's sphere placed 0.32 m higher went from rest to 10 m/s in one frame.
//!
//! Once per frame, before the first substep, this pass records whether any free particle starts
//! inside a collider ([`crate::collision::starts_inside`]) and every particle's speed. In a
//! frame where one does, finalize limits each free particle's speed at the end of every
//! substep ([`crate::collision::limit_speed`]) to its speed at the frame's start plus
//! [`crate::SolverParams::max_depenetration_speed`] plus what the acceleration adds by then
//! ([`crate::collision::depenetration_speed_limit`]). Positions are untouched, so every substep
//! still ends outside every collider; frames with no particle inside a collider are not
//! touched at all. Two dispatches per frame on a cloth with colliders and a finite bound (the
//! flag cleared, then set). WGSL twin: `shaders/passes/depenetration.wgsl`, the bound in
//! `shaders/collision.wgsl` and finalize.

use super::plan::{workgroups_for, DispatchInfo, FramePlan};
use super::{
    collision_kernel, Build, CollisionKernel, CpuFrame, Kernel, LayoutRefused, Part, Pass, Setup, Shader, Stage,
};
use crate::collision::{self, starts_inside, GpuCollider, GpuColliderListHead, Motion, MovingCollider};
use crate::wgsl::{Binding, BindingTable};
use crate::wgsl_file;
use bytemuck::Zeroable;
use std::mem::size_of;

/// What the frame's start says about depenetration, for finalize (on the CPU; the GPU keeps the
/// flag in the collider list's head and the speeds in `frame_start`).
#[derive(Debug, Clone, Default)]
pub struct Depenetration {
    /// Whether a free particle started the frame inside a collider.
    pub active: bool,
    /// Each particle's speed at the frame's start (m/s).
    pub speeds: Vec<f32>,
}

/// The depenetration pass.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct DepenetrationPass;

/// Finds the particles that start the frame inside a collider.
const FIND_DEPENETRATION: CollisionKernel = collision_kernel!("find_depenetration");

/// Whether the pass runs: on a cloth with colliders, with a finite bound.
fn runs(setup: &Setup) -> bool {
    setup.colliders && setup.params.max_depenetration_speed.is_finite()
}

impl Pass for DepenetrationPass {
    fn name(&self) -> &'static str {
        "depenetration"
    }

    fn stage(&self) -> Stage {
        Stage::FrameStart
    }

    fn shaders(&self, _build: &Build) -> Vec<Shader> {
        vec![Shader {
            label: "depenetration",
            constants: collision::wgsl_constants(),
            groups: vec![&DEPENETRATION],
            parts: vec![Part::File(collision::WGSL), Part::File(wgsl_file!("passes/depenetration.wgsl"))],
            structs: vec![GpuCollider::LAYOUT, GpuColliderListHead::LAYOUT, collision::GpuSubstepContacts::LAYOUT],
            block: None,
            kernels: std::iter::once(Kernel::plain("clear_depenetration"))
                .chain(FIND_DEPENETRATION.kernels(None))
                .collect(),
        }]
    }

    fn dispatch(&self, setup: &Setup, plan: &mut FramePlan, _substep: u32) -> Result<(), LayoutRefused> {
        if runs(setup) {
            plan.push("clear_depenetration", DispatchInfo::zeroed(), [1, 1]);
            plan.push(
                FIND_DEPENETRATION.name(setup),
                DispatchInfo::zeroed(),
                workgroups_for(setup.model.particle_count() as u32),
            );
        }
        Ok(())
    }

    fn run_cpu(&mut self, setup: &Setup, frame: &mut CpuFrame, _substep: u32) {
        let state = &mut *frame.depenetration;
        state.active = false;
        if !runs(setup) {
            return;
        }
        let at_start: Vec<MovingCollider> = frame
            .colliders
            .iter()
            .map(|c| MovingCollider { motion: Motion::still(c.motion.start), ..c.clone() })
            .collect();
        let w = setup.pins.inverse_masses();
        for (i, (&x, v)) in frame.positions.iter().zip(frame.velocities.iter()).enumerate() {
            state.speeds[i] = v.length();
            state.active |= w[i] > 0.0 && starts_inside(x, &at_start);
        }
    }
}

/// Group 1 of the depenetration.
static DEPENETRATION: BindingTable = BindingTable {
    label: "depenetration",
    bindings: &[
        Binding::read("positions", "array<vec4<f32>>", 16, "x: positions at the start of the frame (w = 1)."),
        Binding::read("velocities", "array<vec4<f32>>", 16, "v at the start of the frame; w: the inverse mass."),
        Binding::read_write(
            "collider_list",
            "ColliderList",
            (size_of::<GpuColliderListHead>() + size_of::<GpuCollider>()) as u64,
            "The colliders over the frame; the pass sets `depenetrating`.",
        ),
        super::DISTANCE_FIELDS,
        Binding::read_write("frame_start", "array<f32>", 4, super::FRAME_START),
    ],
};
