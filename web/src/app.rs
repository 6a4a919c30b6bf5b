//! The demo's frame loop: apply what the pointers and controls asked for, collect background
//! reads, then record the simulation step and the scene into one encoder, submit it, and start
//! the next reads. A frame waits for nothing: while the GPU is still busy with the last one,
//! the browser's frame passes without a new submit, so a slow adapter slows the cloth down
//! instead of piling up work.

use crate::controls::{self, Control};
use crate::gpu::Gpu;
use crate::page::{self, element, now_ms, publish, publish_floats, Options};
use crate::pointer::{self, Gesture, PointerInput, Pointers};
use drape::viewer::camera::ZOOM_PER_STEP;
use drape::viewer::renderer::{DepthBuffer, SceneView};
use drape::viewer::settings::{horizontal_wind, with_horizontal_wind, METRICS_INTERVAL};
use drape::viewer::{ClothSource, DrawOptions, OrbitCamera, SceneRenderer, Session};
use drape::{Aerodynamics, SelfCollision, SolverParams};
use glam::{Vec2, Vec3};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::HtmlCanvasElement;

/// How often the statistics on the page are rewritten, and the positions published (ms).
const STATS_INTERVAL_MS: f64 = 250.0;
/// Frames whose GPU time the reported median is taken over.
const TIMED_FRAMES: usize = 60;

/// The running demo.
pub struct App {
    gpu: Gpu,
    depth: DepthBuffer,
    renderer: SceneRenderer,
    session: Session,
    camera: OrbitCamera,
    pointers: Pointers,
    gesture: Option<Gesture>,
    pointer_inputs: Rc<RefCell<Vec<PointerInput>>>,
    controls: Rc<RefCell<Vec<Control>>>,
    /// Pause once this many frames have run (the address's `frames`), then forget it.
    frame_limit: Option<u64>,
    /// The newest positions read back, for grabbing (empty until the first read arrives).
    positions: Vec<Vec3>,
    last_metrics_ms: f64,
    last_stats_ms: f64,
    last_positions_ms: f64,
    timing: FrameTiming,
    /// The glTF files loaded so far, by name, which the cloth list offers again.
    loaded_files: Vec<ClothSource>,
}

impl App {
    /// Finds the page's canvas and controls, gets a device, loads the scene the address names
    /// and starts the frame loop.
    pub async fn launch() -> Result<(), String> {
        publish("status", &"starting".into());
        let options = Options::from_address()?;
        let canvas: HtmlCanvasElement = element("canvas")?;
        let gpu = if page::has_webgpu() { Gpu::new(canvas.clone()).await? } else { None };
        let Some(mut gpu) = gpu else {
            element::<web_sys::HtmlElement>("no-webgpu")?.set_hidden(false);
            publish("status", &"no-webgpu".into());
            return Ok(());
        };
        gpu.fit_canvas();
        let source = ClothSource::Scene(options.scene);
        let session = Session::new(&gpu.device, &gpu.queue, source, options.grid, options.overrides)
            .map_err(|e| e.to_string())?;
        let pointer_inputs = Rc::default();
        pointer::listen(&canvas, &pointer_inputs)?;
        let controls = Rc::default();
        controls::listen(&controls)?;
        let app = Self {
            depth: DepthBuffer::new(&gpu.device, gpu.config.width, gpu.config.height),
            renderer: SceneRenderer::new(&gpu.device, gpu.view_format, session.solver().model()),
            camera: session.framing_camera(),
            pointers: Pointers::default(),
            gesture: None,
            pointer_inputs,
            controls,
            frame_limit: options.frames,
            positions: Vec::new(),
            last_metrics_ms: f64::NEG_INFINITY,
            last_stats_ms: f64::NEG_INFINITY,
            last_positions_ms: f64::NEG_INFINITY,
            timing: FrameTiming::default(),
            loaded_files: Vec::new(),
            session,
            gpu,
        };
        controls::show(&app.session)?;
        publish("adapter", &app.gpu.adapter_name().into());
        set_stat("stat-adapter", &app.gpu.adapter_name());
        publish("adapterType", &format!("{:?}", app.gpu.adapter.device_type).into());
        publish("timestamps", &app.gpu.device.features().contains(wgpu::Features::TIMESTAMP_QUERY).into());
        app.publish_cloth();
        publish("status", &"running".into());
        run_every_frame(Rc::new(RefCell::new(app)));
        Ok(())
    }

    /// One browser frame.
    fn frame(&mut self) -> Result<(), String> {
        let inputs = std::mem::take(&mut *self.pointer_inputs.borrow_mut());
        for input in inputs {
            self.pointer(input);
        }
        let controls = std::mem::take(&mut *self.controls.borrow_mut());
        for control in controls {
            let applied = self.control(control);
            page::show_message(&applied.err().unwrap_or_default());
            controls::show(&self.session)?;
        }
        self.collect_reads()?;
        if self.timing.busy() {
            return Ok(());
        }
        if self.frame_limit.is_some_and(|limit| self.session.frames() >= limit) {
            self.frame_limit = None;
            self.session.set_paused(true);
            controls::show(&self.session)?;
        }
        if self.gpu.fit_canvas() {
            self.depth.fit(&self.gpu.device, self.gpu.config.width, self.gpu.config.height);
        }
        let Some(surface_texture) = self.gpu.acquire()? else { return Ok(()) };
        let target = surface_texture
            .texture
            .create_view(&wgpu::TextureViewDescriptor { format: Some(self.gpu.view_format), ..Default::default() });
        let mut encoder =
            self.gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("drape web frame") });
        let stepped = self.session.encode_frame(&mut encoder);
        self.encode_scene(&mut encoder, &target);
        self.gpu.queue.submit([encoder.finish()]);
        self.gpu.queue.present(surface_texture);
        self.timing.submitted(&self.gpu.queue, stepped);
        self.session.after_submit();
        self.start_reads();
        self.publish_frame();
        Ok(())
    }

    /// Records the scene (cloth, colliders, pin markers) into `encoder`.
    fn encode_scene(&mut self, encoder: &mut wgpu::CommandEncoder, target: &wgpu::TextureView) {
        let (markers, colliders) = (self.session.markers(), self.session.colliders());
        let viewport = self.viewport();
        let scene = SceneView {
            camera: &self.camera,
            aspect: viewport.x / viewport.y,
            colliders: &colliders,
            markers: &markers,
        };
        self.renderer.prepare(&self.gpu.device, &self.gpu.queue, &scene);
        let draw = DrawOptions::default();
        self.renderer.render(encoder, target, self.depth.view(), None, self.session.solver(), draw);
    }

    /// Starts reading positions (every frame, one read at a time: grabbing picks among them)
    /// and, a few times a second, the statistics.
    fn start_reads(&mut self) {
        self.session.request_positions();
        let now = now_ms();
        let interval = METRICS_INTERVAL.as_secs_f64() * 1e3;
        if now - self.last_metrics_ms >= interval && self.session.request_metrics() {
            self.last_metrics_ms = now;
        }
    }

    /// Collects reads the GPU has delivered; publishes positions a few times a second, and
    /// every time while paused (a script waiting for a frame's positions gets them).
    fn collect_reads(&mut self) -> Result<(), String> {
        if let Some((frame, positions)) = self.session.poll_positions().map_err(|e| e.to_string())? {
            let now = now_ms();
            if self.session.paused() || now - self.last_positions_ms >= STATS_INTERVAL_MS {
                self.last_positions_ms = now;
                let flat: Vec<f32> = positions.iter().flat_map(|p| p.to_array()).collect();
                publish_floats("positions", &flat);
                publish("positionsFrame", &(frame as f64).into());
            }
            self.positions = positions;
        }
        if self.session.poll_metrics().map_err(|e| e.to_string())? {
            self.publish_metrics();
        }
        Ok(())
    }

    /// Applies a pointer's input: see [`crate::pointer`] for the gestures.
    fn pointer(&mut self, input: PointerInput) {
        let result = match input {
            PointerInput::Down { id, at, button, shift } => match self.pointers.press(id, at) {
                1 if button == 0 && !shift => self.grab_or_orbit(at),
                1 => {
                    self.gesture = Some(Gesture::Pan);
                    Ok(())
                }
                2 => {
                    let released = self.release_grab();
                    self.gesture = Some(Gesture::Pinch);
                    released
                }
                _ => Ok(()),
            },
            PointerInput::Move { id, at } => {
                let before = self.pointers.pinch();
                match self.pointers.move_to(id, at) {
                    Some(delta) => self.drag(at, delta, before),
                    None => Ok(()),
                }
            }
            PointerInput::Up { id } => {
                let left = self.pointers.release(id);
                let released = if left == 0 { self.release_grab() } else { Ok(()) };
                self.gesture = match (left, self.gesture) {
                    (0, _) => None,
                    // A pinch that loses a finger goes on as an orbit with the one left.
                    (1, Some(Gesture::Pinch)) => Some(Gesture::Orbit),
                    (_, gesture) => gesture,
                };
                released
            }
            PointerInput::Wheel { notches } => {
                self.camera.zoom(ZOOM_PER_STEP.powf(notches));
                Ok(())
            }
        };
        if let Err(e) = result {
            page::show_message(&e.to_string());
        }
    }

    /// Grabs what lies under `at` (among the newest positions read), or orbits.
    fn grab_or_orbit(&mut self, at: Vec2) -> Result<(), drape::Error> {
        let viewport = self.viewport();
        let ray = self.camera.ray(at, viewport);
        let tolerance = self.camera.grab_tolerance(viewport.y);
        let grabbed = self.session.begin_grab_among(&self.positions, &ray, self.camera.forward(), tolerance)?;
        self.gesture = Some(if grabbed { Gesture::Grab } else { Gesture::Orbit });
        Ok(())
    }

    fn release_grab(&mut self) -> Result<(), drape::Error> {
        if self.gesture == Some(Gesture::Grab) {
            self.gesture = None;
            self.session.end_grab()?;
        }
        Ok(())
    }

    /// Moves the camera, or what is grabbed, as the pointers moved (`before`: the pinch before).
    fn drag(&mut self, at: Vec2, delta: Vec2, before: Option<pointer::Pinch>) -> Result<(), drape::Error> {
        let viewport = self.viewport();
        match self.gesture {
            Some(Gesture::Orbit) => self.camera.orbit_by_drag(delta),
            Some(Gesture::Pan) => self.camera.pan(delta, viewport.y),
            Some(Gesture::Grab) => self.session.drag(&self.camera.ray(at, viewport))?,
            Some(Gesture::Pinch) => {
                if let (Some(before), Some(after)) = (before, self.pointers.pinch()) {
                    if before.spread > 0.0 && after.spread > 0.0 {
                        self.camera.zoom(before.spread / after.spread);
                    }
                    self.camera.pan(after.centre - before.centre, viewport.y);
                }
            }
            None => {}
        }
        Ok(())
    }

    /// Applies what a control asked for.
    fn control(&mut self, control: Control) -> Result<(), String> {
        let params = *self.session.params();
        let result = match control {
            Control::Scene(kind) => return self.load(ClothSource::Scene(kind), self.session.grid()),
            Control::GltfFile { name, bytes } => {
                let source = ClothSource::GltfBytes { name, bytes: bytes.into() };
                self.load(source.clone(), self.session.grid())?;
                self.loaded_files.retain(|file| file.to_string() != source.to_string());
                self.loaded_files.push(source);
                return Ok(());
            }
            Control::LoadedFile(name) => {
                let file = self.loaded_files.iter().find(|file| file.to_string() == name).cloned();
                let file = file.ok_or_else(|| format!("no cloth named {name} was loaded"))?;
                return self.load(file, self.session.grid());
            }
            Control::Grid(grid) => {
                let grid = page::grid_in_range(grid).map_err(|e| format!("a grid of {grid}: {e}"))?;
                return self.load(self.session.source().clone(), grid);
            }
            Control::Fabric(fabric) => self.session.set_fabric(fabric),
            Control::TogglePause => {
                self.session.set_paused(!self.session.paused());
                Ok(())
            }
            Control::Step => {
                self.session.request_step();
                Ok(())
            }
            Control::Reset => {
                self.forget_cloth_state();
                self.session.reset()
            }
            Control::FrameCamera => {
                self.camera = self.session.framing_camera();
                Ok(())
            }
            Control::Solver(kind) => {
                self.session.set_mode(kind.mode(self.session.relaxation(), self.session.mass_spring()))
            }
            Control::Substeps(substeps) => self.session.set_params(SolverParams { substeps, ..params }),
            Control::Iterations(iterations) => self.session.set_params(SolverParams { iterations, ..params }),
            Control::SelfCollision(on) => {
                self.session.set_params(SolverParams { self_collision: on.then(SelfCollision::default), ..params })
            }
            Control::Wind(speed) => {
                self.session.set_params(SolverParams { aerodynamics: with_wind(&params, speed), ..params })
            }
            Control::DropBody(shape) => self.session.drop_body(shape),
            Control::RemoveBodies => self.session.remove_bodies(),
            Control::Unreadable(what) => return Err(format!("the {what} control holds no usable value")),
        };
        result.map_err(|e| e.to_string())
    }

    /// Switches to another cloth; on error the old one stays.
    fn load(&mut self, source: ClothSource, grid: u32) -> Result<(), String> {
        self.session.load(source, grid).map_err(|e| e.to_string())?;
        self.forget_cloth_state();
        self.renderer.set_cloth(&self.gpu.device, self.session.solver().model());
        self.camera = self.session.framing_camera();
        self.publish_cloth();
        Ok(())
    }

    /// Forgets what belonged to the cloth before a reset or a switch: the pointers' gesture
    /// (the session let go of any grab) and the positions read, until new ones arrive.
    fn forget_cloth_state(&mut self) {
        self.pointers = Pointers::default();
        self.gesture = None;
        self.positions.clear();
    }

    /// The canvas's size in CSS pixels, which pointer positions are in.
    fn viewport(&self) -> Vec2 {
        let canvas = &self.gpu.canvas;
        Vec2::new(canvas.client_width().max(1) as f32, canvas.client_height().max(1) as f32)
    }

    /// What changes with the cloth: its scene, grid and size.
    fn publish_cloth(&self) {
        publish("scene", &self.session.source().to_string().into());
        publish("grid", &self.session.grid().into());
        publish("particles", &(self.session.solver().model().particle_count() as f64).into());
        let solver = self.session.solver();
        publish("dispatchesPerFrame", &(solver.dispatches_per_frame() as f64).into());
        publish("stripesInWorkgroup", &solver.stripes_in_workgroup().into());
        set_stat("stat-dispatches", &solver.dispatches_per_frame().to_string());
        set_stat("stat-particles", &solver.model().particle_count().to_string());
    }

    /// What changes every frame, and the statistics a few times a second.
    fn publish_frame(&mut self) {
        let viewport = self.viewport();
        let grabbed = self.session.grabbed_particle().map_or(-1.0, f64::from);
        publish("frames", &(self.session.frames() as f64).into());
        publish("paused", &self.session.paused().into());
        publish("grabbed", &grabbed.into());
        let collider = self.session.grabbed_collider().map_or(-1.0, |k| k as f64);
        publish("grabbedCollider", &collider.into());
        publish("bodies", &self.session.solver().body_count().into());
        publish("grabbedBody", &self.session.holds_a_body().into());
        let seen: Vec<f32> = self.session.bodies_seen().iter().flat_map(|b| b.position.to_array()).collect();
        publish_floats("bodyCenters", &seen);
        let translations: Vec<f32> =
            self.session.solver().collider_poses().iter().flat_map(|pose| pose.translation.to_array()).collect();
        publish_floats("colliderTranslations", &translations);
        publish_floats("viewProjection", &self.camera.view_projection(viewport.x / viewport.y).to_cols_array());
        publish_floats("viewport", &viewport.to_array());
        let now = now_ms();
        if now - self.last_stats_ms < STATS_INTERVAL_MS {
            return;
        }
        self.last_stats_ms = now;
        let fps = self.timing.fps(now);
        let (frame_ms, draw_ms) = (self.timing.stepped.median(), self.timing.drawn.median());
        let milliseconds = |ms: Option<f64>| ms.map_or(JsValue::NULL, JsValue::from);
        publish("fps", &fps.into());
        publish("frameMs", &milliseconds(frame_ms));
        publish("drawMs", &milliseconds(draw_ms));
        let shown = |ms: Option<f64>| ms.map_or("–".to_owned(), |ms| format!("{ms:.1} ms"));
        let (step_ms, timed) = self.session.frame_ms();
        let step_ms = timed.then_some(step_ms);
        publish("gpuStepMs", &milliseconds(step_ms));
        set_stat("stat-fps", &format!("{fps:.0}"));
        set_stat("stat-frame-ms", &shown(frame_ms));
        set_stat("stat-gpu-ms", &step_ms.map_or("no timestamps".to_owned(), |ms| format!("{ms:.2} ms")));
        set_stat("stat-draw-ms", &shown(draw_ms));
        set_stat("stat-frames", &self.session.frames().to_string());
    }

    /// Publishes and shows the statistics just read back.
    fn publish_metrics(&self) {
        let Some(metrics) = self.session.metrics() else { return };
        publish("maxStretch", &metrics.max_stretch.into());
        publish("minColliderDistance", &metrics.min_collider_distance.into());
        publish("kineticEnergy", &metrics.kinetic_energy.into());
        publish("nonFinite", &(metrics.non_finite as f64).into());
        publish_floats("centreOfMass", &metrics.centre_of_mass.to_array());
        set_stat("stat-max-stretch", &format!("{:.4}", metrics.max_stretch));
        set_stat("stat-collider-distance", &format!("{:.4} m", metrics.min_collider_distance));
        set_stat("stat-energy", &format!("{:.4} J", metrics.kinetic_energy));
    }
}

/// The air with its horizontal wind set to `speed` along its heading (+z for still air); none
/// for no wind where the scene had no air.
fn with_wind(params: &SolverParams, speed: f32) -> Option<Aerodynamics> {
    match params.aerodynamics {
        None if speed == 0.0 => None,
        air => {
            let air = air.unwrap_or_default();
            let (_, heading) = horizontal_wind(air.wind);
            Some(Aerodynamics { wind: with_horizontal_wind(air.wind, speed, heading), ..air })
        }
    }
}

fn set_stat(id: &str, text: &str) {
    if let Ok(stat) = element::<web_sys::HtmlElement>(id) {
        stat.set_text_content(Some(text));
    }
}

/// The last [`TIMED_FRAMES`] times of one kind of frame.
#[derive(Default)]
struct Samples(VecDeque<f64>);

impl Samples {
    fn push(&mut self, ms: f64) {
        if self.0.len() == TIMED_FRAMES {
            self.0.pop_front();
        }
        self.0.push_back(ms);
    }

    fn median(&self) -> Option<f64> {
        let mut sorted: Vec<f64> = self.0.iter().copied().collect();
        sorted.sort_by(f64::total_cmp);
        sorted.get(sorted.len() / 2).copied()
    }
}

/// Runs `app`'s frame at every browser animation frame until the demo fails.
fn run_every_frame(app: Rc<RefCell<App>>) {
    let callback: Rc<RefCell<Option<Closure<dyn FnMut()>>>> = Rc::default();
    let next = Rc::clone(&callback);
    *callback.borrow_mut() = Some(Closure::new(move || {
        if page::failed() {
            return;
        }
        if let Err(message) = app.borrow_mut().frame() {
            page::show_failure(&message);
            return;
        }
        request_animation_frame(next.borrow().as_ref());
    }));
    request_animation_frame(callback.borrow().as_ref());
}

fn request_animation_frame(callback: Option<&Closure<dyn FnMut()>>) {
    if let (Some(window), Some(callback)) = (web_sys::window(), callback) {
        let _ = window.request_animation_frame(callback.as_ref().unchecked_ref());
    }
}

/// How long a frame takes, from each submit to the queue saying its work is done (with or
/// without GPU timestamps): frames that simulate and draw apart from those that only draw
/// (paused), so that the step's share shows. Also how many frames the page shows per
/// second.
#[derive(Default)]
struct FrameTiming {
    /// Set from a submit until its work is done.
    in_flight: Arc<AtomicBool>,
    /// When the last submitted work was done (ms, as f64 bits).
    done_at: Arc<AtomicU64>,
    /// When the last frame was submitted (ms) and whether it stepped, until its time is taken.
    submitted: Option<(f64, bool)>,
    stepped: Samples,
    drawn: Samples,
    /// Frames submitted since `fps_since` (ms).
    fps_frames: u32,
    fps_since: f64,
    fps: f64,
}

impl FrameTiming {
    /// Whether the last frame's work is still on the GPU; collects its time once it is not.
    fn busy(&mut self) -> bool {
        if self.in_flight.load(Ordering::Acquire) {
            return true;
        }
        if let Some((submitted, stepped)) = self.submitted.take() {
            let took = f64::from_bits(self.done_at.load(Ordering::Acquire)) - submitted;
            if stepped { &mut self.stepped } else { &mut self.drawn }.push(took);
        }
        false
    }

    /// Call right after submitting a frame, saying whether it `stepped` the cloth.
    fn submitted(&mut self, queue: &wgpu::Queue, stepped: bool) {
        self.submitted = Some((now_ms(), stepped));
        self.fps_frames += 1;
        self.in_flight.store(true, Ordering::Release);
        let (in_flight, done_at) = (Arc::clone(&self.in_flight), Arc::clone(&self.done_at));
        queue.on_submitted_work_done(move || {
            done_at.store(now_ms().to_bits(), Ordering::Release);
            in_flight.store(false, Ordering::Release);
        });
    }

    /// Frames submitted per second, over the time since it was last asked.
    fn fps(&mut self, now: f64) -> f64 {
        let elapsed = now - self.fps_since;
        if elapsed > 0.0 && self.fps_since > 0.0 {
            self.fps = f64::from(self.fps_frames) * 1e3 / elapsed;
        }
        (self.fps_frames, self.fps_since) = (0, now);
        self.fps
    }
}
