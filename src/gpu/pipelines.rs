//! Bind group layouts and compute pipelines, created once per solver.

use super::plan::{Kernel, WorkgroupSizes};
use super::shaders;

pub(crate) struct Pipelines {
    pub predict: wgpu::ComputePipeline,
    pub project_stretch_colour: wgpu::ComputePipeline,
    pub project_hinge_colour: wgpu::ComputePipeline,
    pub jacobi_project: wgpu::ComputePipeline,
    pub jacobi_apply: wgpu::ComputePipeline,
    pub finalize: wgpu::ComputePipeline,
    pub finalize_and_predict: wgpu::ComputePipeline,
    pub fused_gauss_seidel: wgpu::ComputePipeline,
    pub fused_jacobi: wgpu::ComputePipeline,
    pub project_stripes: wgpu::ComputePipeline,
    pub normals: wgpu::ComputePipeline,
}

impl Pipelines {
    pub fn get(&self, kernel: Kernel) -> &wgpu::ComputePipeline {
        match kernel {
            Kernel::Predict => &self.predict,
            Kernel::ProjectStretchColour => &self.project_stretch_colour,
            Kernel::ProjectHingeColour => &self.project_hinge_colour,
            Kernel::JacobiProject => &self.jacobi_project,
            Kernel::JacobiApply => &self.jacobi_apply,
            Kernel::Finalize => &self.finalize,
            Kernel::FinalizeAndPredict => &self.finalize_and_predict,
            Kernel::FusedGaussSeidel => &self.fused_gauss_seidel,
            Kernel::FusedJacobi => &self.fused_jacobi,
            Kernel::ProjectStripes => &self.project_stripes,
        }
    }
}

fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

fn uniform_entry(binding: u32, has_dynamic_offset: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset,
            min_binding_size: None,
        },
        count: None,
    }
}

/// The solver bind group's entries (`shaders/bindings.wgsl`); the largest bind group drape
/// uses, so the device limits are checked against it.
pub(crate) fn solver_layout_entries() -> [wgpu::BindGroupLayoutEntry; 11] {
    [
        uniform_entry(0, false),
        uniform_entry(1, false),
        uniform_entry(2, true),
        storage_entry(3, false),
        storage_entry(4, false),
        storage_entry(5, false),
        storage_entry(6, true),
        storage_entry(7, true),
        storage_entry(8, false),
        storage_entry(9, false),
        storage_entry(10, true),
    ]
}

pub(crate) fn solver_bind_group_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("drape solver layout"),
        entries: &solver_layout_entries(),
    })
}

pub(crate) fn normals_bind_group_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("drape normals layout"),
        entries: &[
            uniform_entry(0, false),
            storage_entry(1, true),
            storage_entry(2, false),
            storage_entry(3, true),
            storage_entry(4, true),
        ],
    })
}

/// Builds every pipeline. `stripes_in_workgroup`: the model's stripes fit workgroup memory
/// ([`crate::model::ClothModel::stripes_fit_workgroup`]), so the striped kernel copies them there.
pub(crate) fn build_pipelines(
    device: &wgpu::Device,
    solver_layout: &wgpu::BindGroupLayout,
    normals_layout: &wgpu::BindGroupLayout,
    sizes: WorkgroupSizes,
    stripes_in_workgroup: bool,
) -> Pipelines {
    let solver_module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("drape solver shaders"),
        source: wgpu::ShaderSource::Wgsl(shaders::solver_module_source().into()),
    });
    let normals_module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("drape normals shader"),
        source: wgpu::ShaderSource::Wgsl(shaders::normals_module_source().into()),
    });
    let pipeline_layout = |label, layout: &wgpu::BindGroupLayout| {
        device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(label),
            bind_group_layouts: &[Some(layout)],
            immediate_size: 0,
        })
    };
    let solver_pipeline_layout = pipeline_layout("drape solver pipeline layout", solver_layout);
    let normals_pipeline_layout = pipeline_layout("drape normals pipeline layout", normals_layout);
    let pipeline = |module: &wgpu::ShaderModule, layout: &wgpu::PipelineLayout, entry_point: &str, in_workgroup| {
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(entry_point),
            layout: Some(layout),
            module,
            entry_point: Some(entry_point),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: &[
                    ("FUSED_WORKGROUP_SIZE", f64::from(sizes.fused)),
                    ("STRIPE_WORKGROUP_SIZE", f64::from(sizes.stripe)),
                    ("PARTICLES_IN_WORKGROUP", f64::from(u8::from(in_workgroup))),
                ],
                // The only workgroup memory, the striped kernel's stripe copy, is written
                // before it is read; zeroing 16 KiB per workgroup would cost every dispatch.
                zero_initialize_workgroup_memory: false,
            },
            cache: None,
        })
    };
    let solver = |entry_point| pipeline(&solver_module, &solver_pipeline_layout, entry_point, false);
    Pipelines {
        predict: solver("predict"),
        project_stretch_colour: solver("project_stretch_colour"),
        project_hinge_colour: solver("project_hinge_colour"),
        jacobi_project: solver("jacobi_project"),
        jacobi_apply: solver("jacobi_apply"),
        finalize: solver("finalize"),
        finalize_and_predict: solver("finalize_and_predict"),
        fused_gauss_seidel: solver("fused_gauss_seidel"),
        fused_jacobi: solver("fused_jacobi"),
        project_stripes: pipeline(&solver_module, &solver_pipeline_layout, "project_stripes", stripes_in_workgroup),
        normals: pipeline(&normals_module, &normals_pipeline_layout, "compute_normals", false),
    }
}
