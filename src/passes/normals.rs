//! Normals, at the end of each frame: each vertex sums the area-weighted normals
//! ([`crate::math::weighted_face_normal`]) of its triangles in the fixed order of its gather
//! list and normalises ([`crate::ClothModel::vertex_normals`]). The renderer draws them
//! straight from the buffer. WGSL twin: `shaders/passes/normals.wgsl`.

use super::plan::{workgroups_for, DispatchInfo, FramePlan};
use super::{Build, CpuFrame, Kernel, LayoutRefused, Part, Pass, Setup, Shader, Stage};
use crate::wgsl::{Binding, BindingTable};
use crate::wgsl_file;
use bytemuck::Zeroable;

/// The normals pass.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct NormalsPass;

impl Pass for NormalsPass {
    fn name(&self) -> &'static str {
        "normals"
    }

    fn stage(&self) -> Stage {
        Stage::FrameEnd
    }

    fn shaders(&self, _build: &Build) -> Vec<Shader> {
        vec![Shader {
            label: "normals",
            constants: Vec::new(),
            groups: vec![&POSITIONS, &NORMALS],
            parts: vec![Part::File(wgsl_file!("passes/normals.wgsl"))],
            structs: Vec::new(),
            block: None,
            kernels: vec![Kernel::plain("compute_normals")],
        }]
    }

    fn dispatch(&self, setup: &Setup, plan: &mut FramePlan, _substep: u32) -> Result<(), LayoutRefused> {
        let particles = setup.model.particle_count() as u32;
        plan.push("compute_normals", DispatchInfo::zeroed(), workgroups_for(particles));
        Ok(())
    }

    fn run_cpu(&mut self, setup: &Setup, frame: &mut CpuFrame, _substep: u32) {
        *frame.normals = setup.model.vertex_normals(frame.positions);
    }
}

/// Group 1 of the normals: the positions, read.
static POSITIONS: BindingTable = BindingTable {
    label: "positions",
    bindings: &[Binding::read("positions", "array<vec4<f32>>", 16, "x: the frame's end positions.")],
};

/// Group 2 of the normals.
static NORMALS: BindingTable = BindingTable {
    label: "normals",
    bindings: &[
        Binding::read_write("normals", "array<vec4<f32>>", 16, "Unit normals (xyz, w = 0), drawn as a vertex buffer."),
        Binding::read("triangles", "array<u32>", 4, "Three vertex indices per triangle."),
        Binding::read(
            "vertex_triangles",
            "array<u32>",
            4,
            "Each vertex's triangles: particle_count + 1 offsets, then triangle indices.",
        ),
    ],
};
