//! The windowed demo: a winit window with a wgpu surface, the scene renderer, the egui panel and
//! mouse/keyboard interaction. The simulation, rendering and UI each stay in their own module;
//! this one routes events and records each frame into one encoder.

use super::camera::{OrbitCamera, Ray, ZOOM_PER_STEP};
use super::controls::{command_for_key, Command};
use super::panel::{self, History, PanelAction, PanelState};
use super::renderer::{DepthBuffer, SceneRenderer, SceneView};
use super::session::{ClothSource, ParamOverrides, Session};
use super::settings::METRICS_INTERVAL;
use super::RunReport;
use crate::error::Error;
use crate::gpu::device::choose_adapter;
use crate::gpu::{request_device, HeadlessOptions};
use glam::Vec2;
use std::sync::Arc;
use std::time::Instant;
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, KeyEvent, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::ModifiersState;
use winit::window::{Window, WindowId};

/// Width of the side panel in points.
const PANEL_WIDTH: f32 = 300.0;

/// What a windowed run shows.
#[derive(Debug, Clone)]
pub struct WindowRun {
    /// The cloth to start with.
    pub source: ClothSource,
    /// Cells per side of library scenes.
    pub grid: u32,
    /// Solver settings over the scene's own.
    pub overrides: ParamOverrides,
    /// Exit after this many simulated frames (for scripted runs and tests).
    pub frames: Option<u64>,
    /// Initial window size in pixels.
    pub size: [u32; 2],
    /// An OBJ or glTF file to offer beside the library scenes.
    pub file: Option<ClothSource>,
}

/// Where the panel's record button writes its animation (in the working folder).
pub const RECORDING_FILE: &str = "drape-recording.glb";

/// Opens the window and runs until it is closed (or `run.frames` frames are simulated).
pub fn run_window(run: WindowRun) -> Result<RunReport, Error> {
    let event_loop = EventLoop::new().map_err(|e| Error::Window(format!("cannot start an event loop: {e}")))?;
    let mut app = App { run, viewer: None, outcome: None };
    event_loop.run_app(&mut app).map_err(|e| Error::Window(e.to_string()))?;
    app.outcome.unwrap_or_else(|| Err(Error::Window("the window closed before it opened".into())))
}

struct App {
    run: WindowRun,
    viewer: Option<Viewer>,
    outcome: Option<Result<RunReport, Error>>,
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.viewer.is_some() {
            return;
        }
        match Viewer::new(event_loop, &self.run) {
            Ok(viewer) => self.viewer = Some(viewer),
            Err(e) => {
                self.outcome = Some(Err(e));
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(viewer) = &mut self.viewer else { return };
        let flow = match event {
            WindowEvent::RedrawRequested => viewer.redraw(self.run.frames),
            event => Ok(viewer.handle(&event)),
        };
        match flow {
            Ok(Flow::Continue) => {}
            Ok(Flow::Exit) => {
                self.outcome = Some(viewer.report());
                event_loop.exit();
            }
            Err(e) => {
                self.outcome = Some(Err(e));
                event_loop.exit();
            }
        }
    }

    fn about_to_wait(&mut self, _: &ActiveEventLoop) {
        if let Some(viewer) = &self.viewer {
            viewer.window.request_redraw();
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Continue,
    Exit,
}

/// What a held mouse button is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DragMode {
    Orbit,
    Pan,
    Grab,
}

/// A drag in progress: it ends only when the button that started it is released (or the
/// window loses focus), whatever other buttons do meanwhile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct MouseDrag {
    button: MouseButton,
    mode: DragMode,
}

/// The window's surface and the device drawing to it.
struct Gpu {
    surface: wgpu::Surface<'static>,
    surface_config: wgpu::SurfaceConfiguration,
    device: wgpu::Device,
    queue: wgpu::Queue,
    adapter_name: String,
}

impl Gpu {
    /// Picks an adapter that can present to `window` (honouring `WGPU_BACKEND`,
    /// `WGPU_ADAPTER_NAME`) and configures an sRGB surface.
    fn new(event_loop: &ActiveEventLoop, window: &Arc<Window>) -> Result<Self, Error> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(Box::new(
            event_loop.owned_display_handle(),
        )));
        let surface = instance
            .create_surface(Arc::clone(window))
            .map_err(|e| Error::Window(format!("cannot create a surface: {e}")))?;
        let adapter = pollster::block_on(choose_adapter(&instance, Some(&surface)))?;
        let (device, queue) = request_device(&adapter, HeadlessOptions { timestamps: true })?;
        let capabilities = surface.get_capabilities(&adapter);
        let format = capabilities
            .formats
            .iter()
            .copied()
            .find(wgpu::TextureFormat::is_srgb)
            .or(capabilities.formats.first().copied())
            .ok_or_else(|| Error::Window("the surface supports no format on this adapter".into()))?;
        let mut gpu = Self {
            surface_config: wgpu::SurfaceConfiguration {
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                format,
                width: 1,
                height: 1,
                present_mode: wgpu::PresentMode::AutoVsync,
                desired_maximum_frame_latency: 2,
                alpha_mode: capabilities.alpha_modes.first().copied().unwrap_or(wgpu::CompositeAlphaMode::Auto),
                view_formats: vec![],
                color_space: wgpu::SurfaceColorSpace::Auto,
            },
            surface,
            device,
            queue,
            adapter_name: adapter.get_info().name,
        };
        gpu.resize(window.inner_size());
        Ok(gpu)
    }

    /// Reconfigures the surface for a new window size, clamped to the device's texture limit;
    /// a zero-sized (minimised) window keeps the old configuration.
    fn resize(&mut self, size: PhysicalSize<u32>) {
        if size.width == 0 || size.height == 0 {
            return;
        }
        let limit = self.device.limits().max_texture_dimension_2d;
        self.surface_config.width = size.width.min(limit);
        self.surface_config.height = size.height.min(limit);
        self.surface.configure(&self.device, &self.surface_config);
    }
}

struct Viewer {
    window: Arc<Window>,
    gpu: Gpu,
    depth: DepthBuffer,
    renderer: SceneRenderer,
    session: Session,
    camera: OrbitCamera,
    egui: egui_winit::State,
    egui_renderer: egui_wgpu::Renderer,
    panel: PanelState,
    /// Physical pixels the panel covers on the left; the scene is drawn right of it.
    panel_pixels: f32,
    cursor: Vec2,
    drag: Option<MouseDrag>,
    modifiers: ModifiersState,
    fps_window: (Instant, u32),
    last_metrics: Instant,
    /// When the window opened: the live plot's clock.
    started: Instant,
}

impl Viewer {
    fn new(event_loop: &ActiveEventLoop, run: &WindowRun) -> Result<Self, Error> {
        let attributes = Window::default_attributes()
            .with_title("drape")
            .with_inner_size(PhysicalSize::new(run.size[0].max(64), run.size[1].max(64)));
        let window =
            Arc::new(event_loop.create_window(attributes).map_err(|e| Error::Window(format!("cannot open: {e}")))?);
        let gpu = Gpu::new(event_loop, &window)?;
        let (device, format) = (&gpu.device, gpu.surface_config.format);
        let session = Session::new(device, &gpu.queue, run.source.clone(), run.grid, run.overrides)?;
        let egui = egui_winit::State::new(
            egui::Context::default(),
            egui::ViewportId::ROOT,
            &window,
            Some(window.scale_factor() as f32),
            None,
            Some(device.limits().max_texture_dimension_2d as usize),
        );
        Ok(Self {
            depth: DepthBuffer::new(device, gpu.surface_config.width, gpu.surface_config.height),
            renderer: SceneRenderer::new(device, format, session.solver().model()),
            egui_renderer: egui_wgpu::Renderer::new(device, format, egui_wgpu::RendererOptions::default()),
            camera: session.framing_camera(),
            window,
            gpu,
            session,
            egui,
            panel: PanelState {
                grid: run.grid,
                file: run.file.clone(),
                message: None,
                fps: 0.0,
                draw: Default::default(),
                history: History::default(),
            },
            panel_pixels: 0.0,
            cursor: Vec2::ZERO,
            drag: None,
            modifiers: ModifiersState::empty(),
            fps_window: (Instant::now(), 0),
            last_metrics: Instant::now(),
            started: Instant::now(),
        })
    }

    /// The final state of the cloth, for the caller.
    fn report(&mut self) -> Result<RunReport, Error> {
        let metrics = self.session.refresh_metrics()?;
        Ok(RunReport { adapter: self.gpu.adapter_name.clone(), frames: self.session.frames(), metrics })
    }

    /// Size of the scene's part of the window (right of the panel), in physical pixels.
    fn viewport(&self) -> Vec2 {
        let config = &self.gpu.surface_config;
        Vec2::new((config.width as f32 - self.panel_pixels).max(1.0), config.height as f32)
    }

    /// The ray under the cursor.
    fn cursor_ray(&self) -> Ray {
        self.camera.ray(self.cursor - Vec2::new(self.panel_pixels, 0.0), self.viewport())
    }

    /// Shows a recoverable error (a rejected parameter, a bad file) in the panel.
    fn report_error(&mut self, result: Result<(), Error>) {
        if let Err(e) = result {
            self.panel.message = Some(e.to_string());
        }
    }

    fn handle(&mut self, event: &WindowEvent) -> Flow {
        let egui_response = self.egui.on_window_event(&self.window, event);
        match event {
            WindowEvent::CloseRequested => return Flow::Exit,
            WindowEvent::Resized(size) => {
                self.gpu.resize(*size);
                self.depth.fit(&self.gpu.device, self.gpu.surface_config.width, self.gpu.surface_config.height);
            }
            WindowEvent::Focused(false) => self.end_drag(),
            WindowEvent::ModifiersChanged(modifiers) => self.modifiers = modifiers.state(),
            WindowEvent::KeyboardInput { event, .. }
                if event.state == ElementState::Pressed && !self.egui.egui_ctx().egui_wants_keyboard_input() =>
            {
                return self.key(event);
            }
            WindowEvent::MouseInput { state: ElementState::Pressed, button, .. }
                if !egui_response.consumed && self.drag.is_none() =>
            {
                self.mouse_down(*button);
            }
            WindowEvent::MouseInput { state: ElementState::Released, button, .. }
                if self.drag.is_some_and(|drag| drag.button == *button) =>
            {
                self.end_drag();
            }
            WindowEvent::CursorMoved { position, .. } => {
                let cursor = Vec2::new(position.x as f32, position.y as f32);
                let delta = cursor - self.cursor;
                self.cursor = cursor;
                self.mouse_moved(delta);
            }
            WindowEvent::MouseWheel { delta, .. } if !egui_response.consumed => {
                let lines = match delta {
                    MouseScrollDelta::LineDelta(_, y) => *y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                self.camera.zoom(ZOOM_PER_STEP.powf(lines));
            }
            _ => {}
        }
        Flow::Continue
    }

    fn mouse_down(&mut self, button: MouseButton) {
        let mode = match button {
            MouseButton::Left if self.modifiers.shift_key() => DragMode::Pan,
            MouseButton::Left => match self.grab_under_cursor() {
                Ok(true) => DragMode::Grab,
                Ok(false) => DragMode::Orbit,
                Err(e) => {
                    self.panel.message = Some(e.to_string());
                    return;
                }
            },
            MouseButton::Right | MouseButton::Middle => DragMode::Pan,
            _ => return,
        };
        self.drag = Some(MouseDrag { button, mode });
    }

    /// Grabs the particle or sphere under the cursor, if any.
    fn grab_under_cursor(&mut self) -> Result<bool, Error> {
        let ray = self.cursor_ray();
        let tolerance = self.camera.grab_tolerance(self.viewport().y);
        self.session.begin_grab(&ray, self.camera.forward(), tolerance)
    }

    fn end_drag(&mut self) {
        if self.drag.take().is_some_and(|drag| drag.mode == DragMode::Grab) {
            let released = self.session.end_grab();
            self.report_error(released);
        }
    }

    fn mouse_moved(&mut self, delta: Vec2) {
        match self.drag.map(|drag| drag.mode) {
            Some(DragMode::Orbit) => self.camera.orbit_by_drag(delta),
            Some(DragMode::Pan) => self.camera.pan(delta, self.viewport().y),
            Some(DragMode::Grab) => {
                let ray = self.cursor_ray();
                let moved = self.session.drag(&ray);
                self.report_error(moved);
            }
            None => {}
        }
    }

    fn key(&mut self, event: &KeyEvent) -> Flow {
        match command_for_key(&event.logical_key, self.modifiers.shift_key()) {
            Some(Command::Quit) => return Flow::Exit,
            Some(command) => {
                let result = self.run_command(command);
                self.report_error(result);
            }
            None => {}
        }
        Flow::Continue
    }

    fn run_command(&mut self, command: Command) -> Result<(), Error> {
        match command {
            Command::Quit => {}
            Command::TogglePause => self.session.set_paused(!self.session.paused()),
            Command::Step => self.session.request_step(),
            Command::Reset => {
                self.end_drag();
                self.session.reset()?;
            }
            Command::ToggleMode => self.session.toggle_mode()?,
            Command::Frame => self.camera = self.session.framing_camera(),
            Command::Zoom(factor) => self.camera.zoom(factor),
            Command::Orbit(yaw, pitch) => self.camera.orbit(yaw, pitch),
            Command::Pan(pixels) => self.camera.pan(pixels, self.viewport().y),
            Command::Scene(kind) => self.load(ClothSource::Scene(kind), self.panel.grid),
            Command::FileScene => {
                if let Some(file) = self.panel.file.clone() {
                    self.load(file, self.panel.grid);
                }
            }
        }
        Ok(())
    }

    fn load(&mut self, source: ClothSource, grid: u32) {
        // A recording is of one cloth: it ends with it.
        let saved = self.save_recording();
        self.report_error(saved);
        self.end_drag();
        let loaded = self.session.load(source, grid);
        if loaded.is_ok() {
            self.renderer.set_cloth(&self.gpu.device, self.session.solver().model());
            self.camera = self.session.framing_camera();
        }
        self.report_error(loaded);
    }

    fn apply(&mut self, action: PanelAction) {
        self.panel.message = None;
        let result = match action {
            PanelAction::Load(source, grid) => {
                self.load(source, grid);
                Ok(())
            }
            PanelAction::SetParams(params) => self.session.set_params(params),
            PanelAction::SetBending(bending) => self.session.set_bending_model(bending),
            PanelAction::SetFabric(fabric) => self.session.set_fabric(fabric),
            PanelAction::SetMode(mode) => self.session.set_mode(mode),
            PanelAction::Run(command) => self.run_command(command),
            PanelAction::SetProfiling(on) => self.session.set_profiling(on),
            PanelAction::Record(true) => self.session.start_recording(),
            PanelAction::Record(false) => self.save_recording(),
            PanelAction::DropBody(shape) => self.session.drop_body(shape),
            PanelAction::RemoveBodies => self.session.remove_bodies(),
        };
        self.report_error(result);
    }

    /// Ends the recording and writes it as [`RECORDING_FILE`], saying so in the panel.
    fn save_recording(&mut self) -> Result<(), Error> {
        let Some(recording) = self.session.stop_recording() else { return Ok(()) };
        recording.write_glb(RECORDING_FILE)?;
        self.panel.message = Some(format!("wrote {RECORDING_FILE}: {} frames", recording.frame_count()));
        Ok(())
    }

    /// One window frame: panel, simulation step, scene, panel drawing, one submit.
    fn redraw(&mut self, frame_limit: Option<u64>) -> Result<Flow, Error> {
        self.count_fps();
        self.refresh_metrics();
        let max_stretch = self.session.metrics().map(|m| m.max_stretch);
        self.panel.history.push(self.started.elapsed().as_secs_f64(), self.session.frame_ms().0, max_stretch);
        let mut output = self.run_panel();
        // egui's texture changes must be applied every frame, even one that is not drawn.
        for (id, deltas) in output.textures_delta.set.drain() {
            for delta in deltas {
                self.egui_renderer.update_texture(&self.gpu.device, &self.gpu.queue, id, &delta);
            }
        }
        let freed: Vec<egui::TextureId> = output.textures_delta.free.drain().collect();
        let frame = self.acquire_frame();
        let failed = frame.as_ref().err().cloned();
        if let Ok(Some(surface_texture)) = frame {
            let target = surface_texture.texture.create_view(&Default::default());
            let mut encoder = self
                .gpu
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("drape window frame") });
            self.session.encode_frame(&mut encoder);
            self.encode_scene(&mut encoder, &target);
            let shapes = std::mem::take(&mut output.shapes);
            let paint_jobs = self.egui.egui_ctx().tessellate(shapes, output.pixels_per_point);
            let callbacks = self.encode_panel(&mut encoder, &target, &paint_jobs, output.pixels_per_point);
            self.gpu.queue.submit(callbacks.into_iter().chain([encoder.finish()]));
            self.window.pre_present_notify();
            self.gpu.queue.present(surface_texture);
            self.session.after_submit();
            if let Err(e) = self.session.record_frame() {
                let saved = self.save_recording();
                self.report_error(saved);
                let said = self.panel.message.take().unwrap_or_default();
                self.panel.message = Some(format!("recording stopped: {e}. {said}"));
            }
        }
        freed.iter().for_each(|id| self.egui_renderer.free_texture(id));
        if let Some(e) = failed {
            return Err(e);
        }
        let done = frame_limit.is_some_and(|limit| self.session.frames() >= limit);
        Ok(if done { Flow::Exit } else { Flow::Continue })
    }

    /// Reads the cloth statistics back a few times a second, in the background: the pending
    /// request is collected when the GPU has delivered it, and a new one starts at most every
    /// `METRICS_INTERVAL`.
    fn refresh_metrics(&mut self) {
        if let Err(e) = self.session.poll_metrics() {
            self.panel.message = Some(e.to_string());
        }
        if self.last_metrics.elapsed() >= METRICS_INTERVAL && self.session.request_metrics() {
            self.last_metrics = Instant::now();
        }
    }

    /// Runs the panel's UI and applies what the user asked for.
    fn run_panel(&mut self) -> egui::FullOutput {
        let input = self.egui.take_egui_input(&self.window);
        let context = self.egui.egui_ctx().clone();
        let mut actions = Vec::new();
        let mut panel_points = 0.0;
        let mut output = context.run_ui(input, |ui| {
            let shown = egui::Panel::left("drape panel").resizable(false).exact_size(PANEL_WIDTH).show(ui, |ui| {
                actions = panel::show(ui, &mut self.panel, &self.session);
            });
            panel_points = shown.response.rect.right();
        });
        let width = self.gpu.surface_config.width as f32;
        self.panel_pixels = (panel_points * output.pixels_per_point).min(width - 1.0);
        let platform_output = std::mem::take(&mut output.platform_output);
        self.egui.handle_platform_output(&self.window, platform_output);
        for action in actions {
            self.apply(action);
        }
        output
    }

    /// The next surface texture, or `None` for a frame to skip (the surface is reconfigured
    /// when it went stale).
    fn acquire_frame(&mut self) -> Result<Option<wgpu::SurfaceTexture>, Error> {
        match self.gpu.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(texture) => Ok(Some(texture)),
            wgpu::CurrentSurfaceTexture::Suboptimal(_) | wgpu::CurrentSurfaceTexture::Outdated => {
                self.gpu.surface.configure(&self.gpu.device, &self.gpu.surface_config);
                Ok(None)
            }
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => Ok(None),
            other => Err(Error::Window(format!("the window surface failed: {other:?}"))),
        }
    }

    /// The 3D scene, right of the panel.
    fn encode_scene(&mut self, encoder: &mut wgpu::CommandEncoder, target: &wgpu::TextureView) {
        let (markers, colliders) = (self.session.markers(), self.session.colliders());
        let [width, height] = self.viewport().to_array();
        let scene =
            SceneView { camera: &self.camera, aspect: width / height, colliders: &colliders, markers: &markers };
        self.renderer.prepare(&self.gpu.device, &self.gpu.queue, &scene);
        let viewport = Some([self.panel_pixels, 0.0, width, height]);
        self.renderer.render(encoder, target, self.depth.view(), viewport, self.session.solver(), self.panel.draw);
    }

    /// The panel, drawn over the scene. Returns egui's own command buffers, to submit first.
    fn encode_panel(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        paint_jobs: &[egui::ClippedPrimitive],
        pixels_per_point: f32,
    ) -> Vec<wgpu::CommandBuffer> {
        let (device, queue) = (&self.gpu.device, &self.gpu.queue);
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [self.gpu.surface_config.width, self.gpu.surface_config.height],
            pixels_per_point,
        };
        let callbacks = self.egui_renderer.update_buffers(device, queue, encoder, paint_jobs, &screen);
        let mut pass = encoder
            .begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("drape panel"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: target,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Store },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            })
            .forget_lifetime();
        self.egui_renderer.render(&mut pass, paint_jobs, &screen);
        callbacks
    }

    fn count_fps(&mut self) {
        let (start, frames) = &mut self.fps_window;
        *frames += 1;
        let elapsed = start.elapsed().as_secs_f32();
        if elapsed >= 0.5 {
            self.panel.fps = *frames as f32 / elapsed;
            self.fps_window = (Instant::now(), 0);
        }
    }
}
