//! The compute pipelines, built once per solver from the passes' WGSL modules
//! ([`crate::passes::Shader`]): each module compiled once, each kernel a pipeline whose layout is
//! the frame's group, then the module's groups, the last of them narrowed to what the kernel
//! uses where it says so ([`super::resources::BindGroups`]).

use super::resources::BindGroups;
use crate::passes::{ParamsLayout, Shader, FRAME};
use std::collections::HashMap;

/// One kernel's pipeline and the bind groups it takes after the frame's.
pub(crate) struct Pipeline {
    pub pipeline: wgpu::ComputePipeline,
    /// Groups 1, 2…: indices into [`BindGroups`].
    pub groups: Vec<usize>,
}

/// Every kernel of the passes, by name.
pub(crate) struct Kernels {
    pub pipelines: Vec<Pipeline>,
    by_name: HashMap<&'static str, usize>,
    /// The frame group's index in [`BindGroups`].
    pub frame: usize,
}

impl Kernels {
    /// Builds every kernel of `shaders`, adding their binding tables' layouts to `bind_groups`.
    pub fn new(device: &wgpu::Device, shaders: &[Shader], params: &ParamsLayout, bind_groups: &mut BindGroups) -> Self {
        let frame = bind_groups.add(device, &FRAME, None);
        let mut kernels = Self { pipelines: Vec::new(), by_name: HashMap::new(), frame };
        for shader in shaders {
            kernels.build(device, shader, params, bind_groups);
        }
        kernels
    }

    fn build(&mut self, device: &wgpu::Device, shader: &Shader, params: &ParamsLayout, bind_groups: &mut BindGroups) {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(shader.label),
            source: wgpu::ShaderSource::Wgsl(shader.source(params).into()),
        });
        let mut layouts: Vec<(Vec<usize>, wgpu::PipelineLayout)> = Vec::new();
        for kernel in &shader.kernels {
            let last = shader.groups.len().saturating_sub(1);
            let groups: Vec<usize> = (0..)
                .zip(&shader.groups)
                .map(|(i, &table)| bind_groups.add(device, table, if i == last { kernel.uses } else { None }))
                .collect();
            if !layouts.iter().any(|(g, _)| *g == groups) {
                let group_layouts: Vec<Option<&wgpu::BindGroupLayout>> = std::iter::once(self.frame)
                    .chain(groups.iter().copied())
                    .map(|i| Some(bind_groups.layout(i)))
                    .collect();
                let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some(shader.label),
                    bind_group_layouts: &group_layouts,
                    immediate_size: 0,
                });
                layouts.push((groups.clone(), layout));
            }
            let layout = &layouts.iter().find(|(g, _)| *g == groups).expect("made above").1;
            let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(kernel.name),
                layout: Some(layout),
                module: &module,
                entry_point: Some(kernel.entry_point),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &kernel.overrides,
                    // Every kernel writes its workgroup memory before reading it (the block
                    // copy, the reduction trees); zeroing it would cost every dispatch.
                    zero_initialize_workgroup_memory: false,
                },
                cache: None,
            });
            self.by_name.insert(kernel.name, self.pipelines.len());
            self.pipelines.push(Pipeline { pipeline, groups });
        }
    }

    /// The kernel named `name`.
    ///
    /// # Panics
    /// If no pass declares it (a frame plan names only its passes' kernels).
    pub fn index(&self, name: &str) -> usize {
        *self.by_name.get(name).unwrap_or_else(|| panic!("no kernel `{name}`"))
    }
}
