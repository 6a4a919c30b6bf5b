//! Embedding drape in a renderer of your own: the host owns the window, device, pipeline and
//! camera; drape only records its simulation into the host's encoder, and the host draws the
//! solver's position and normal buffers as vertex buffers — no copy through the CPU.
//!
//! It uses only the core crate (no `viewer` feature) plus winit for its window:
//! `cargo run --release --example embed [-- --frames 120]`.

use drape::{GpuSolver, Scene, SceneKind};
use glam::Vec3;
use std::sync::Arc;
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::window::{Window, WindowId};

/// The host's own shader: two-sided Lambert shading of the cloth.
const SHADER: &str = r#"
@group(0) @binding(0) var<uniform> view_proj: mat4x4<f32>;

struct Out { @builtin(position) clip: vec4<f32>, @location(0) normal: vec3<f32> }

@vertex fn vs(@location(0) position: vec3<f32>, @location(1) normal: vec3<f32>) -> Out {
    return Out(view_proj * vec4(position, 1.0), normal);
}

@fragment fn fs(in: Out, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    let n = select(-in.normal, in.normal, front);
    let light = 0.25 + 0.75 * max(dot(n, normalize(vec3(0.4, 1.0, 0.3))), 0.0);
    return vec4(light * select(vec3(0.2, 0.3, 0.8), vec3(0.9, 0.5, 0.2), front), 1.0);
}
"#;

/// Everything the host renderer owns.
struct Host {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: wgpu::RenderPipeline,
    bind_group: wgpu::BindGroup,
    depth: wgpu::TextureView,
    solver: GpuSolver,
    frames: u64,
}

impl Host {
    fn new(event_loop: &ActiveEventLoop) -> Result<Self, Box<dyn std::error::Error>> {
        let window = Arc::new(
            event_loop.create_window(Window::default_attributes().with_title("drape embed").with_resizable(false))?,
        );
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(Box::new(
            event_loop.owned_display_handle(),
        )));
        let surface = instance.create_surface(Arc::clone(&window))?;
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            compatible_surface: Some(&surface),
            ..Default::default()
        }))?;
        // The host creates its device; it asks for (at least) the limits drape needs.
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            required_limits: drape::required_limits(&adapter),
            ..Default::default()
        }))?;
        let size = window.inner_size();
        let (width, height) = (size.width.max(1), size.height.max(1));
        let config = surface.get_default_config(&adapter, width, height).ok_or("surface unsupported")?;
        surface.configure(&device, &config);

        // drape: build the cloth on the host once, then hand it the host's device and queue.
        let scene = Scene::new(SceneKind::Drape, 32)?;
        let solver = GpuSolver::new(&device, &queue, &scene.model, scene.params, &scene.colliders)?;

        let aspect = width as f32 / height as f32;
        let eye = Vec3::new(2.2, 2.0, 3.2);
        let view_proj = glam::camera::rh::proj::directx::perspective(0.8, aspect, 0.05, 50.0)
            * glam::camera::rh::view::look_at_mat4(eye, Vec3::Y * 0.5, Vec3::Y);
        let camera = wgpu::util::DeviceExt::create_buffer_init(
            &device,
            &wgpu::util::BufferInitDescriptor {
                label: Some("host camera"),
                contents: bytemuck::cast_slice(&view_proj.to_cols_array()),
                usage: wgpu::BufferUsages::UNIFORM,
            },
        );
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("host cloth shader"),
            source: wgpu::ShaderSource::Wgsl(SHADER.into()),
        });
        // Positions and normals are vec4 per particle (stride 16); xyz is read as Float32x3.
        let vec4_buffer = |location| wgpu::VertexBufferLayout {
            array_stride: 16,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: match location {
                0 => &wgpu::vertex_attr_array![0 => Float32x3],
                _ => &wgpu::vertex_attr_array![1 => Float32x3],
            },
        };
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("host cloth pipeline"),
            layout: None,
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs"),
                compilation_options: Default::default(),
                buffers: &[Some(vec4_buffer(0)), Some(vec4_buffer(1))],
            },
            primitive: wgpu::PrimitiveState { cull_mode: None, ..Default::default() },
            depth_stencil: Some(wgpu::DepthStencilState {
                format: wgpu::TextureFormat::Depth32Float,
                depth_write_enabled: Some(true),
                depth_compare: Some(wgpu::CompareFunction::Less),
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs"),
                compilation_options: Default::default(),
                targets: &[Some(config.format.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("host camera bind group"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: camera.as_entire_binding() }],
        });
        let depth = device
            .create_texture(&wgpu::TextureDescriptor {
                label: Some("host depth"),
                size: wgpu::Extent3d { width: config.width, height: config.height, depth_or_array_layers: 1 },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Depth32Float,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                view_formats: &[],
            })
            .create_view(&Default::default());
        Ok(Self { window, surface, config, device, queue, pipeline, bind_group, depth, solver, frames: 0 })
    }

    /// One frame: the simulation and the drawing go into the host's encoder, one submit.
    fn frame(&mut self) {
        let frame = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(frame) => frame,
            // A stale surface is configured again; this frame is skipped, as in any other state.
            wgpu::CurrentSurfaceTexture::Suboptimal(_) | wgpu::CurrentSurfaceTexture::Outdated => {
                self.surface.configure(&self.device, &self.config);
                return;
            }
            _ => return,
        };
        let view = frame.texture.create_view(&Default::default());
        let mut encoder = self.device.create_command_encoder(&Default::default());
        self.solver.encode_step(&mut encoder);
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("host frame"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.depth,
                    depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Clear(1.0), store: wgpu::StoreOp::Discard }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.set_vertex_buffer(0, self.solver.positions_buffer().slice(..));
            pass.set_vertex_buffer(1, self.solver.normals_buffer().slice(..));
            pass.set_index_buffer(self.solver.index_buffer().slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(0..self.solver.index_count(), 0, 0..1);
        }
        self.queue.submit([encoder.finish()]);
        self.window.pre_present_notify();
        self.queue.present(frame);
        self.frames += 1;
    }
}

struct App {
    host: Option<Host>,
    frame_limit: Option<u64>,
    error: Option<String>,
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.host.is_none() {
            match Host::new(event_loop) {
                Ok(host) => self.host = Some(host),
                Err(e) => {
                    self.error = Some(e.to_string());
                    event_loop.exit();
                }
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(host) = &mut self.host else { return };
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::RedrawRequested => {
                host.frame();
                if self.frame_limit.is_some_and(|limit| host.frames >= limit) {
                    event_loop.exit();
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _: &ActiveEventLoop) {
        if let Some(host) = &self.host {
            host.window.request_redraw();
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let frame_limit = match (args.next().as_deref(), args.next()) {
        (Some("--frames"), Some(n)) => Some(n.parse()?),
        (None, _) => None,
        _ => return Err("usage: embed [--frames N]".into()),
    };
    let mut app = App { host: None, frame_limit, error: None };
    EventLoop::new()?.run_app(&mut app)?;
    if let Some(e) = app.error {
        return Err(e.into());
    }
    if let Some(host) = &mut app.host {
        let positions = host.solver.read_positions()?;
        let lowest = positions.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
        println!("frames: {} | lowest particle y: {lowest:.4} m", host.frames);
    }
    Ok(())
}
