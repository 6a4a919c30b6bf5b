//! A simulation as the demo drives it: which cloth, the solver, pause / single step / reset,
//! grabbing a particle or a collider with the mouse, GPU frame timing and cloth statistics.

use super::camera::{OrbitCamera, Ray};
use super::pick::{pick_particle, ray_collider};
use super::renderer::{Marker, MarkerKind};
use crate::animation::AnimationRecorder;
use crate::bodies::{BodyMass, BodyShape, BodyState, RigidBody};
use crate::collision::{Collider, Pose};
use crate::constraints::BendingModel;
use crate::error::{Error, ParamError};
use crate::fabric::Fabric;
use crate::gltf_input::{ground_under, GltfCloth};
use crate::gpu::readback::BackgroundMap;
use crate::gpu::{FrameProfile, GpuSolver};
use crate::math::bounding_box;
use crate::mesh::ClothMesh;
use crate::metrics::ClothMetrics;
use crate::model::{ClothModel, DEFAULT_DENSITY};
use crate::params::MassSpringParams;
use crate::params::{SolverMode, SolverParams, MAX_SUBSTEPS};
use crate::passes::bodies::ropes::BodyRope;
use crate::passes::springs::SpringNetwork;
use crate::scene::{Scene, SceneKind, SceneObjects, Spin};
use glam::{Quat, Vec3};
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use web_time::Instant;

/// Jacobi over-relaxation ω used when switching to Jacobi without a value given.
pub const DEFAULT_RELAXATION: f32 = 1.5;

/// Where the cloth comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum ClothSource {
    /// One of the library's scenes.
    Scene(SceneKind),
    /// An OBJ file: its top-most vertices are pinned and a ground plane is put below it.
    Obj(PathBuf),
    /// A glTF file ([`crate::GltfCloth`]): pinned where painted, with its collider nodes and a
    /// ground plane below it all.
    Gltf(PathBuf),
    /// The bytes of a `.glb`, or of a `.gltf` with embedded buffers, named `name` (a file
    /// picked or dropped on the web page), loaded as [`ClothSource::Gltf`].
    #[allow(missing_docs)]
    GltfBytes { name: String, bytes: Arc<[u8]> },
}

impl fmt::Display for ClothSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Scene(kind) => write!(f, "{kind}"),
            Self::Obj(path) | Self::Gltf(path) => write!(f, "{}", path.display()),
            Self::GltfBytes { name, .. } => write!(f, "{name}"),
        }
    }
}

/// Solver settings chosen on the command line, applied over a scene's own parameters.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ParamOverrides {
    /// Frame time step (s).
    pub time_step: Option<f32>,
    /// Substeps per frame.
    pub substeps: Option<u32>,
    /// Iterations per substep.
    pub iterations: Option<u32>,
    /// Solver mode. Mass-spring without `substeps` gets the fewest substeps its springs are
    /// stable at, if the scene's are fewer.
    pub mode: Option<SolverMode>,
    /// Jacobi over-relaxation ω, used whenever Jacobi is (or is switched to) the mode.
    pub relaxation: Option<f32>,
    /// The cloth's bending model, for every cloth loaded; `None`: each cloth's own (dihedral,
    /// or curvature for a fabric).
    pub bending: Option<BendingModel>,
    /// The cloth's fabric (a membrane and curvature bending in its physical units,
    /// [`crate::ClothModel::from_fabric`]), for every cloth loaded, a file's own material maps
    /// replaced; `None`: each cloth's own (the edge model, stiffened by the parameters, but for
    /// the lab's tests; a file's maps kept).
    pub fabric: Option<Fabric>,
}

impl ParamOverrides {
    /// `model` bending by the overridden model, if any: curvature only where the cloth has a
    /// bending rigidity (a cloth without one keeps its own model, so a choice made for a
    /// fabric does not lock the scenes' own cloths out).
    fn bent(&self, model: ClothModel) -> Result<ClothModel, Error> {
        match self.bending {
            Some(BendingModel::Curvature) if model.bending_rigidity().is_none() => Ok(model),
            Some(bending) => model.with_bending_model(bending),
            None => Ok(model),
        }
    }

    /// `params` with the overrides applied, for `model`: a mass-spring mode without a substep
    /// override gets the fewest substeps its springs are stable at ([`with_stable_substeps`]).
    pub fn params_for(&self, model: &ClothModel, params: SolverParams) -> SolverParams {
        let params = self.apply(params);
        if self.substeps.is_some() {
            params
        } else {
            with_stable_substeps(model, params)
        }
    }

    /// `params` with the overrides applied.
    pub fn apply(&self, params: SolverParams) -> SolverParams {
        let mode = match (self.mode.unwrap_or(params.mode), self.relaxation) {
            (SolverMode::Jacobi { .. }, Some(relaxation)) => SolverMode::Jacobi { relaxation },
            (mode, _) => mode,
        };
        SolverParams {
            time_step: self.time_step.unwrap_or(params.time_step),
            substeps: self.substeps.unwrap_or(params.substeps),
            iterations: self.iterations.unwrap_or(params.iterations),
            mode,
            ..params
        }
    }
}

/// A cloth with its colliders and the parameters it starts with.
#[derive(Debug, Clone)]
pub struct ClothSetup {
    /// The cloth.
    pub model: ClothModel,
    /// Its colliders.
    pub colliders: Vec<Collider>,
    /// The scene's parameters.
    pub params: SolverParams,
    /// Colliders the scene keeps turning.
    pub spins: Vec<Spin>,
    /// What the scene adds to its cloth: attachments, bodies.
    pub objects: SceneObjects,
}

/// The density of the bodies [`Session::drop_body`] drops (kg/m³, a light wood): light enough
/// for the edge model's cloth to hold (heavy bodies rebound from light cloth: see
/// `crate::scene::HAMMOCK_DENSITY`).
pub const DROPPED_BODY_DENSITY: f32 = 100.0;

/// The shapes the demo's panel and the web page drop ([`Session::drop_body`]), by name: a
/// ball, a capsule and a box of about 20 cm.
pub const DROPPED_SHAPES: [(&str, BodyShape); 3] = [
    ("ball", BodyShape::Sphere { radius: 0.1 }),
    ("capsule", BodyShape::Capsule { radius: 0.06, half_length: 0.1 }),
    ("box", BodyShape::Box { half_extents: Vec3::new(0.12, 0.08, 0.1) }),
];

impl ClothSetup {
    /// Builds the cloth of `source`, of `fabric` where one is given; `grid` is the cells per
    /// side of library scenes. The free fall scene gets a ground plane at y = 0 so the cloth
    /// lands somewhere visible.
    pub fn load(source: &ClothSource, grid: u32, fabric: Option<&Fabric>) -> Result<Self, Error> {
        match source {
            ClothSource::Scene(kind) => {
                let scene = match fabric {
                    Some(fabric) => Scene::with_fabric(*kind, grid, fabric)?,
                    None => Scene::new(*kind, grid)?,
                };
                scene.collider_poses(0.0)?;
                let Scene { model, params, mut colliders, spins, objects, .. } = scene;
                if colliders.is_empty() {
                    colliders.push(Collider::ground(0.0));
                }
                Ok(Self { model, colliders, params, spins, objects })
            }
            ClothSource::Obj(path) => {
                let mesh = ClothMesh::from_obj(path)?;
                let pins = top_vertices(&mesh);
                let (min, max) = bounding_box(&mesh.positions);
                let model = ClothModel::new(mesh, DEFAULT_DENSITY, &pins)?;
                let colliders = vec![ground_under(min, max)];
                Self {
                    model,
                    colliders,
                    params: SolverParams::default(),
                    spins: Vec::new(),
                    objects: SceneObjects::default(),
                }
                .of_fabric(fabric)
            }
            ClothSource::Gltf(path) => Self::of_gltf(&GltfCloth::load(path)?)?.of_fabric(fabric),
            ClothSource::GltfBytes { name, bytes } => {
                let cloth = GltfCloth::from_slice(bytes).map_err(|e| match e {
                    Error::Gltf { error, .. } => Error::Gltf { path: name.clone(), error },
                    other => other,
                })?;
                Self::of_gltf(&cloth)?.of_fabric(fabric)
            }
        }
    }

    /// The setup with its cloth of `fabric` where one is given, on the same mesh and pins.
    fn of_fabric(self, fabric: Option<&Fabric>) -> Result<Self, Error> {
        let Some(fabric) = fabric else { return Ok(self) };
        Ok(Self { model: self.model.refit_to(fabric)?, ..self })
    }

    /// A glTF cloth's setup: pinned where painted, its colliders and a ground below.
    fn of_gltf(cloth: &GltfCloth) -> Result<Self, Error> {
        let model = cloth.model(DEFAULT_DENSITY)?;
        let colliders = cloth.colliders_with_ground();
        Ok(Self {
            model,
            colliders,
            params: SolverParams::default(),
            spins: Vec::new(),
            objects: SceneObjects::default(),
        })
    }
}

/// The vertices to pin on an OBJ cloth: those at the top (within 0.1 % of its size). A cloth
/// lying level would be pinned everywhere that way, so a level cloth gets only the two vertices
/// farthest apart along x + z pinned (two opposite corners).
fn top_vertices(mesh: &ClothMesh) -> Vec<u32> {
    let (min, max) = bounding_box(&mesh.positions);
    let tolerance = 1e-3 * (max - min).max_element();
    let all = 0..mesh.positions.len() as u32;
    if max.y - min.y > tolerance {
        return all.filter(|&i| mesh.positions[i as usize].y >= max.y - tolerance).collect();
    }
    let diagonal = |i: &u32| mesh.positions[*i as usize].x + mesh.positions[*i as usize].z;
    let first = all.clone().min_by(|a, b| diagonal(a).total_cmp(&diagonal(b)));
    let last = all.max_by(|a, b| diagonal(a).total_cmp(&diagonal(b)));
    first.into_iter().chain(last).collect()
}

/// `params` with, in mass-spring mode, at least the fewest substeps the springs of `model` are
/// stable at (unchanged where even the most substeps are too few: the solver then says so).
pub fn with_stable_substeps(model: &ClothModel, params: SolverParams) -> SolverParams {
    let SolverMode::MassSpring(springs) = params.mode else {
        return params;
    };
    let network = SpringNetwork::new(model);
    match network.min_stable_substeps(&springs, params.time_step, MAX_SUBSTEPS) {
        Some(fewest) => SolverParams { substeps: params.substeps.max(fewest), ..params },
        None => params,
    }
}

/// `model`'s mass over its rest area (kg/m²).
fn areal_density(model: &ClothModel) -> f32 {
    model.masses().iter().sum::<f32>() / model.mesh().area()
}

/// The particles pinned in `solver`, in index order.
fn pinned_particles(solver: &GpuSolver) -> Vec<u32> {
    (0..solver.model().particle_count() as u32).filter(|&i| solver.pins().is_pinned(i)).collect()
}

/// What the mouse is holding.
#[derive(Debug, Clone, Copy)]
enum Grab {
    /// A particle, pinned to the cursor while held. The drag happens in the plane through the
    /// grabbed point facing the camera.
    /// An attached one keeps its collider and point there (`attached`), to go back to on release.
    Particle { index: u32, was_pinned: bool, attached: Option<(u32, Vec3)>, plane_point: Vec3, plane_normal: Vec3 },
    /// A collider (not a plane), moved with the cursor from where it was grabbed: its pose
    /// `original` moved by the drag in the plane through the grabbed point facing the camera.
    /// The next frame carries it there, so the cloth it touches feels its velocity.
    /// A turning collider keeps turning: the drag moves its axis, from `original_offset`.
    Collider { collider: usize, original: Pose, original_offset: Vec3, plane_point: Vec3, plane_normal: Vec3 },
    /// A rigid body, held at the point grabbed by a rope of length zero to the cursor (the
    /// solver's last rope while held), in the plane through that point facing the camera: it
    /// swings about the point held and keeps the drag's velocity when let go.
    Body { plane_point: Vec3, plane_normal: Vec3 },
}

/// What lies nearest under the cursor.
#[derive(Debug, Clone, Copy)]
enum Target {
    Particle(u32),
    Collider(usize),
    Body(usize),
}

/// A collider the scene turns, moved by `offset` where it was dragged.
#[derive(Debug, Clone, Copy)]
struct Turning {
    spin: Spin,
    offset: Vec3,
}

impl Turning {
    /// The pose `time` seconds after the start (the time taken modulo a turn or a swing, so
    /// the angle stays accurate however long the demo runs).
    fn pose_at(&self, time: f64) -> Pose {
        let rate = f64::from(self.spin.angular_velocity.length());
        let period = match self.spin.swing_period {
            0.0 if rate > 0.0 => std::f64::consts::TAU / rate,
            0.0 => 1.0,
            swing => f64::from(swing),
        };
        let pose = self.spin.pose_at((time % period) as f32);
        Pose { translation: pose.translation + self.offset, ..pose }
    }
}

/// How far along the cursor's ray a collider can be grabbed (m).
const COLLIDER_REACH: f32 = 1000.0;

/// `body`'s surface as a collider where it is, for picking: its rounded box.
fn body_collider(body: &BodyState) -> Collider {
    let ((half_extents, rounding), pose) = (body.shape.rounded_box(), body.pose());
    Collider::Box { center: pose.translation, half_extents, rotation: pose.rotation, rounding }
}

/// A running simulation.
pub struct Session {
    device: wgpu::Device,
    queue: wgpu::Queue,
    source: ClothSource,
    grid: u32,
    overrides: ParamOverrides,
    /// The scene's colliders, which a reset brings back.
    scene_colliders: Vec<Collider>,
    /// The scene's turning colliders, turned before every frame.
    turning: Vec<Turning>,
    /// The scene's attachments and bodies, made again whenever the cloth restarts.
    objects: SceneObjects,
    /// Simulated seconds since the start (the turning colliders' clock).
    time: f64,
    solver: GpuSolver,
    /// The pinned particles, listed when pins change so markers need no scan per frame.
    pinned: Vec<u32>,
    /// The cloth's mass per rest area (kg/m²), found when it is loaded.
    areal_density: f32,
    relaxation: f32,
    /// The spring constants switching to mass-spring uses (the last ones used).
    mass_spring: MassSpringParams,
    /// The substeps before switching to mass-spring raised them, restored when switching back.
    substeps_before_springs: Option<u32>,
    paused: bool,
    step_requested: bool,
    frames: u64,
    grab: Option<Grab>,
    /// The bodies as last read back: grabbing looks for them there.
    bodies_seen: Vec<BodyState>,
    timer: Option<FrameTimer>,
    cpu_ms: f64,
    /// Whether each pass is timed ([`Session::set_profiling`]), and the last profile read.
    profiling: bool,
    profile: Option<FrameProfile>,
    metrics: Option<ClothMetrics>,
    /// The frame a background read of positions was asked at, until it is collected.
    positions_requested: Option<u64>,
    /// The frames recorded since [`Session::start_recording`], with the frame count it last
    /// recorded at.
    recording: Option<(AnimationRecorder, u64)>,
}

impl Session {
    /// Loads `source` and uploads it to `device` with the scene's parameters and `overrides`.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        source: ClothSource,
        grid: u32,
        overrides: ParamOverrides,
    ) -> Result<Self, Error> {
        let setup = ClothSetup::load(&source, grid, overrides.fabric.as_ref())?;
        let model = overrides.bent(setup.model)?;
        let params = overrides.params_for(&model, setup.params);
        let mut solver = GpuSolver::new(device, queue, &model, params, &setup.colliders)?;
        setup.objects.make(&mut solver)?;
        Ok(Self {
            device: device.clone(),
            queue: queue.clone(),
            source,
            grid,
            overrides,
            pinned: pinned_particles(&solver),
            areal_density: areal_density(&model),
            scene_colliders: setup.colliders,
            turning: turning(&setup.spins),
            objects: setup.objects,
            time: 0.0,
            solver,
            relaxation: match params.mode {
                SolverMode::Jacobi { relaxation } => relaxation,
                _ => overrides.relaxation.unwrap_or(DEFAULT_RELAXATION),
            },
            mass_spring: match params.mode {
                SolverMode::MassSpring(springs) => springs,
                _ => MassSpringParams::default(),
            },
            substeps_before_springs: None,
            paused: false,
            step_requested: false,
            frames: 0,
            grab: None,
            timer: FrameTimer::new(device, queue),
            cpu_ms: 0.0,
            profiling: false,
            profile: None,
            recording: None,
            metrics: None,
            positions_requested: None,
            bodies_seen: Vec::new(),
        })
    }

    /// Switches to another cloth with its scene's parameters and the command-line overrides
    /// (so a scene behaves the same however it was reached), ending any recording (take it
    /// with [`Session::stop_recording`] first). On error nothing changes.
    pub fn load(&mut self, source: ClothSource, grid: u32) -> Result<(), Error> {
        let setup = ClothSetup::load(&source, grid, self.overrides.fabric.as_ref())?;
        let model = self.overrides.bent(setup.model)?;
        let params = self.overrides.params_for(&model, setup.params);
        self.solver = self.new_solver(&model, params, &setup.colliders, &setup.objects)?;
        (self.source, self.grid, self.scene_colliders) = (source, grid, setup.colliders);
        self.areal_density = areal_density(&model);
        self.turning = turning(&setup.spins);
        self.objects = setup.objects;
        self.recording = None;
        self.restart();
        Ok(())
    }

    /// Rebuilds the cloth of `fabric` (kept for the cloths loaded later; `None`: each cloth's
    /// own) with its scene's parameters and the overrides, and restarts it. On error nothing
    /// changes.
    pub fn set_fabric(&mut self, fabric: Option<Fabric>) -> Result<(), Error> {
        let kept = self.overrides;
        self.overrides.fabric = fabric;
        let result = self.load(self.source.clone(), self.grid);
        if result.is_err() {
            self.overrides = kept;
        }
        result
    }

    /// The cloth's mass per rest area (kg/m²).
    pub fn areal_density(&self) -> f32 {
        self.areal_density
    }

    /// The fabric of the cloths loaded, `None` where each has its own.
    pub fn fabric(&self) -> Option<Fabric> {
        self.overrides.fabric
    }

    /// Rebuilds the cloth with its hinges bending by `bending` (kept for the cloths loaded
    /// later) and restarts it; the parameters stay. On error nothing changes.
    pub fn set_bending_model(&mut self, bending: BendingModel) -> Result<(), Error> {
        let model = self.solver.model().clone().with_bending_model(bending)?;
        let params = *self.solver.params();
        self.solver = self.new_solver(&model, params, &self.scene_colliders, &self.objects)?;
        self.overrides.bending = Some(bending);
        self.restart();
        Ok(())
    }

    /// A solver for `model` with the scene's `objects` made, profiled if the session profiles.
    fn new_solver(
        &self,
        model: &ClothModel,
        params: SolverParams,
        colliders: &[Collider],
        objects: &SceneObjects,
    ) -> Result<GpuSolver, Error> {
        let mut solver = GpuSolver::new(&self.device, &self.queue, model, params, colliders)?;
        solver.set_profiling(self.profiling)?;
        objects.make(&mut solver)?;
        Ok(solver)
    }

    /// Turns the timing of each pass on or off ([`GpuSolver::set_profiling`]), for this cloth and
    /// those loaded later. On error (a device without timestamps) it stays off.
    pub fn set_profiling(&mut self, on: bool) -> Result<(), Error> {
        self.solver.set_profiling(on)?;
        self.profiling = on;
        self.profile = None;
        Ok(())
    }

    /// Whether each pass is timed.
    pub fn profiling(&self) -> bool {
        self.profiling
    }

    /// The GPU time of each pass in a recent frame, while profiling.
    pub fn profile(&self) -> Option<&FrameProfile> {
        self.profile.as_ref().filter(|_| self.profiling)
    }

    /// Drops a body of `shape` ([`DROPPED_BODY_DENSITY`]) over the middle of the cloth's rest
    /// shape, half a metre above its top and turned a little, among the bodies already there;
    /// a reset puts it back there.
    pub fn drop_body(&mut self, shape: BodyShape) -> Result<(), Error> {
        let (low, high) = bounding_box(&self.solver.model().mesh().positions);
        let above = Vec3::new(0.5 * (low.x + high.x), high.y + shape.bounding_radius() + 0.5, 0.5 * (low.z + high.z));
        let rotation = Quat::from_rotation_y(0.4) * Quat::from_rotation_x(0.3);
        let pose = Pose { translation: above, rotation };
        self.solver.add_body(&RigidBody::new(shape, BodyMass::Density(DROPPED_BODY_DENSITY), pose))?;
        self.bodies_seen.clear();
        Ok(())
    }

    /// Removes every body (and the attachments and ropes to them, the mouse's too) until the
    /// scene is loaded again: a reset or a rebuilt cloth brings back none of the scene's.
    pub fn remove_bodies(&mut self) -> Result<(), Error> {
        self.solver.set_bodies(&[])?;
        if self.holds_a_body() {
            self.grab = None;
        }
        self.bodies_seen.clear();
        self.objects.bodies.clear();
        self.objects.body_attachments.clear();
        self.objects.body_ropes.clear();
        Ok(())
    }

    /// Puts the cloth and colliders back in their initial state (parameters stay).
    pub fn reset(&mut self) -> Result<(), Error> {
        self.solver.reset();
        self.solver.set_colliders(&self.scene_colliders)?;
        self.solver.attach_many(&self.objects.attachments)?;
        self.solver.attach_to_bodies(&self.objects.body_attachments)?;
        self.solver.set_body_ropes(&self.objects.body_ropes)?;
        self.restart();
        Ok(())
    }

    fn restart(&mut self) {
        self.frames = 0;
        self.time = 0.0;
        self.turning = self.turning.iter().map(|t| Turning { offset: Vec3::ZERO, ..*t }).collect();
        self.grab = None;
        self.metrics = None;
        self.profile = None;
        // The solver dropped any read on its way (a reset) or is new (another cloth).
        self.positions_requested = None;
        self.bodies_seen.clear();
        self.pinned = pinned_particles(&self.solver);
    }

    /// Changes the solver parameters (validated; on error the old ones stay).
    pub fn set_params(&mut self, params: SolverParams) -> Result<(), Error> {
        self.solver.set_params(params)?;
        match params.mode {
            SolverMode::Jacobi { relaxation } => self.relaxation = relaxation,
            SolverMode::MassSpring(springs) => self.mass_spring = springs,
            SolverMode::GaussSeidel => {}
        }
        Ok(())
    }

    /// Switches to `mode`: into mass-spring with at least the fewest substeps its springs are
    /// stable at, and out of it with the substeps it had before (on error nothing changes).
    pub fn set_mode(&mut self, mode: SolverMode) -> Result<(), Error> {
        let current = *self.solver.params();
        let params = match (current.mode.projects(), mode.projects()) {
            (false, true) => {
                SolverParams { mode, substeps: self.substeps_before_springs.unwrap_or(current.substeps), ..current }
            }
            _ => with_stable_substeps(self.solver.model(), SolverParams { mode, ..current }),
        };
        self.set_params(params)?;
        match (current.mode.projects(), mode.projects()) {
            (true, false) => self.substeps_before_springs = Some(current.substeps),
            (false, true) => self.substeps_before_springs = None,
            _ => {}
        }
        Ok(())
    }

    /// Cycles coloured Gauss-Seidel → Jacobi (with the last ω used) → mass-spring (with the last
    /// spring constants) → coloured Gauss-Seidel.
    pub fn toggle_mode(&mut self) -> Result<(), Error> {
        let mode = match self.solver.params().mode {
            SolverMode::GaussSeidel => SolverMode::Jacobi { relaxation: self.relaxation },
            SolverMode::Jacobi { .. } => SolverMode::MassSpring(self.mass_spring),
            SolverMode::MassSpring(_) => SolverMode::GaussSeidel,
        };
        self.set_mode(mode)
    }

    /// The spring constants that switching to mass-spring uses.
    pub fn mass_spring(&self) -> MassSpringParams {
        self.mass_spring
    }

    /// Pauses or resumes.
    pub fn set_paused(&mut self, paused: bool) {
        self.paused = paused;
    }

    /// Whether the simulation is paused.
    pub fn paused(&self) -> bool {
        self.paused
    }

    /// Pauses, and advances one frame at the next [`Session::encode_frame`].
    pub fn request_step(&mut self) {
        self.paused = true;
        self.step_requested = true;
    }

    /// Records this frame's simulation step (unless paused) into `encoder`, with GPU
    /// timestamps around it where the device has them. Returns whether a step was recorded.
    pub fn encode_frame(&mut self, encoder: &mut wgpu::CommandEncoder) -> bool {
        if self.paused && !self.step_requested {
            return false;
        }
        self.step_requested = false;
        let start = Instant::now();
        if let Some(timer) = &self.timer {
            timer.begin(encoder);
        }
        self.turn_spinning_colliders();
        self.solver.encode_step(encoder);
        if let Some(timer) = &mut self.timer {
            timer.end(encoder);
        }
        self.cpu_ms = start.elapsed().as_secs_f64() * 1e3;
        self.frames += 1;
        self.time += f64::from(self.solver.params().time_step);
        true
    }

    /// Sets the turning colliders' poses for the end of the coming frame. Their spins were
    /// validated when the scene was loaded, so the poses are valid.
    fn turn_spinning_colliders(&mut self) {
        if self.turning.is_empty() {
            return;
        }
        let time = self.time + f64::from(self.solver.params().time_step);
        let mut poses = self.solver.collider_poses();
        for turning in &self.turning {
            poses[turning.spin.collider] = turning.pose_at(time);
        }
        self.solver.set_collider_poses(&poses).expect("validated spins give valid poses");
    }

    /// Records a frame into an encoder of its own and submits it (for runs without a window);
    /// returns whether a step was recorded.
    pub fn step(&mut self) -> bool {
        let mut encoder =
            self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("drape frame") });
        let stepped = self.encode_frame(&mut encoder);
        self.queue.submit([encoder.finish()]);
        self.after_submit();
        stepped
    }

    /// Call after submitting the encoder of [`Session::encode_frame`]: collects a finished GPU
    /// timing without waiting and starts reading the newest.
    pub fn after_submit(&mut self) {
        if let Some(timer) = &mut self.timer {
            timer.after_submit(&self.device);
        }
        // A failed read only skips a profile, as a failed map skips a timing.
        if let Ok(Some(profile)) = self.solver.poll_profile() {
            self.profile = Some(profile);
        }
    }

    /// Starts recording the cloth's frames, from its state now, one every frame time
    /// ([`AnimationRecorder`]): [`Session::record_frame`] after each submitted frame adds those
    /// that stepped. Native only (it waits for each frame's positions).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn start_recording(&mut self) -> Result<(), Error> {
        let mut recorder = AnimationRecorder::new(self.solver.model().mesh(), self.solver.params().time_step)?;
        recorder.record(&self.solver.read_positions()?)?;
        self.recording = Some((recorder, self.frames));
        Ok(())
    }

    /// Adds the frame just submitted to the recording, if it stepped or a reset took the cloth
    /// back (the frame count moved since the last frame recorded; waits for the GPU).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn record_frame(&mut self) -> Result<(), Error> {
        let frames = self.frames;
        let Some((recorder, recorded_at)) = self.recording.as_mut().filter(|(_, at)| *at != frames) else {
            return Ok(());
        };
        *recorded_at = frames;
        recorder.record(&self.solver.read_positions()?)
    }

    /// The frames recorded so far, while recording.
    pub fn recorded_frames(&self) -> Option<usize> {
        self.recording.as_ref().map(|(recorder, _)| recorder.frame_count())
    }

    /// Ends the recording and hands it over (also what [`Session::load`] does, which drops it:
    /// hand it over first).
    pub fn stop_recording(&mut self) -> Option<AnimationRecorder> {
        self.recording.take().map(|(recorder, _)| recorder)
    }

    /// Reads the cloth back (waits for the GPU) and measures it; call a few times a second at
    /// most. Native only: on the web, [`Session::request_metrics`] and [`Session::poll_metrics`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn refresh_metrics(&mut self) -> Result<ClothMetrics, Error> {
        let metrics = self.solver.metrics()?;
        // The wait also delivered any background request, which measured an older state: drop
        // it (and the request with it, should its map have failed).
        let _ = self.solver.poll_metrics();
        self.metrics = Some(metrics);
        Ok(metrics)
    }

    /// Starts measuring the cloth in the background ([`GpuSolver::request_metrics`]), for a
    /// window, which must not wait for the GPU. False while an earlier request is pending.
    pub fn request_metrics(&mut self) -> bool {
        self.solver.request_metrics()
    }

    /// Makes requested metrics [`Session::metrics`] once they have arrived and says whether
    /// they did; never waits.
    pub fn poll_metrics(&mut self) -> Result<bool, Error> {
        let metrics = self.solver.poll_metrics()?;
        if metrics.is_some() {
            self.metrics = metrics;
        }
        Ok(metrics.is_some())
    }

    /// Reads the particle positions back (waits for the GPU). Native only: on the web,
    /// [`Session::request_positions`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn read_positions(&mut self) -> Result<Vec<Vec3>, Error> {
        self.solver.read_positions()
    }

    /// Reads the rigid bodies back (waits for the GPU). Native only: on the web, the bodies read
    /// with [`Session::request_positions`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn read_bodies(&mut self) -> Result<Vec<BodyState>, Error> {
        self.solver.read_bodies()
    }

    /// Starts reading the positions back in the background as the frames submitted so far leave
    /// them ([`GpuSolver::request_positions`]), for programs that must not wait (the web), and
    /// the bodies with them ([`GpuSolver::request_bodies`]) for grabbing. False, and no
    /// positions' read started, while an earlier one has not been collected.
    pub fn request_positions(&mut self) -> bool {
        self.solver.request_bodies();
        if self.positions_requested.is_some() || !self.solver.request_positions() {
            return false;
        }
        self.positions_requested = Some(self.frames);
        true
    }

    /// The positions of the last [`Session::request_positions`] with the frame they are of
    /// (frames since the last reset), once the GPU has delivered them; never waits. A reset or
    /// another cloth drops a read on its way. Bodies read with them are kept for grabbing.
    pub fn poll_positions(&mut self) -> Result<Option<(u64, Vec<Vec3>)>, Error> {
        if let Some(bodies) = self.solver.poll_bodies()? {
            self.bodies_seen = bodies;
        }
        match self.solver.poll_positions() {
            Ok(Some(positions)) => Ok(self.positions_requested.take().map(|frame| (frame, positions))),
            Ok(None) => Ok(None),
            Err(e) => {
                self.positions_requested = None;
                Err(e)
            }
        }
    }

    /// Tries to grab what lies under the cursor ray: the nearest of a cloth particle (within
    /// `tolerance(t)` metres of the ray at depth `t`), a collider (not a plane) and a rigid
    /// body. Reads positions and bodies back once (waits for the GPU; native only). Returns
    /// whether something was grabbed.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn begin_grab(
        &mut self,
        ray: &Ray,
        view_direction: Vec3,
        tolerance: impl Fn(f32) -> f32,
    ) -> Result<bool, Error> {
        let positions = self.solver.read_positions()?;
        self.bodies_seen = self.solver.read_bodies()?;
        self.begin_grab_among(&positions, ray, view_direction, tolerance)
    }

    /// [`Session::begin_grab`] among `positions` read earlier and the bodies last read with
    /// them ([`Session::poll_positions`]), for programs that must not wait for the GPU (the
    /// web): the cloth and the bodies may have moved a little since, and a grabbed particle is
    /// pinned where it was then. With no positions (none read yet) only colliders and the
    /// bodies read are grabbed.
    pub fn begin_grab_among(
        &mut self,
        positions: &[Vec3],
        ray: &Ray,
        view_direction: Vec3,
        tolerance: impl Fn(f32) -> f32,
    ) -> Result<bool, Error> {
        self.end_grab()?;
        if !positions.is_empty() && positions.len() != self.solver.model().particle_count() {
            let value = positions.len().to_string();
            return Err(
                ParamError { name: "positions.len()", value, expected: "0 or the cloth's particle count" }.into()
            );
        }
        let triangles = &self.solver.model().mesh().triangles;
        let particle = (!positions.is_empty()).then(|| pick_particle(ray, positions, triangles, tolerance)).flatten();
        let collider = self
            .solver
            .colliders()
            .iter()
            .enumerate()
            .filter_map(|(k, c)| ray_collider(ray, c, COLLIDER_REACH).map(|t| (Target::Collider(k), t)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let body = self
            .bodies_seen
            .iter()
            .enumerate()
            .take(self.solver.body_count() as usize)
            .filter_map(|(k, b)| ray_collider(ray, &body_collider(b), COLLIDER_REACH).map(|t| (Target::Body(k), t)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let particle = particle.map(|(index, t)| (Target::Particle(index), t));
        // The first of equals: a particle before a collider, a collider before a body.
        let nearest = [particle, collider, body].into_iter().flatten().min_by(|a, b| a.1.total_cmp(&b.1));
        let plane_normal = -view_direction;
        self.grab = match nearest {
            Some((Target::Particle(index), _)) => {
                let plane_point = positions[index as usize];
                let was_pinned = self.solver.pins().is_pinned(index);
                let attached = self.solver.pins().attachment(index);
                self.solver.pin(index, plane_point)?;
                self.pinned = pinned_particles(&self.solver);
                Some(Grab::Particle { index, was_pinned, attached, plane_point, plane_normal })
            }
            Some((Target::Collider(collider), t)) => {
                let original = self.solver.collider_poses()[collider];
                let original_offset = self.turning_of(collider).map_or(Vec3::ZERO, |k| self.turning[k].offset);
                Some(Grab::Collider { collider, original, original_offset, plane_point: ray.at(t), plane_normal })
            }
            Some((Target::Body(body), t)) => {
                let plane_point = ray.at(t);
                let point = self.bodies_seen[body].pose().to_local(plane_point);
                let mut ropes = self.solver.body_ropes().to_vec();
                ropes.push(BodyRope { body: body as u32, point, anchor: plane_point, length: 0.0 });
                self.solver.set_body_ropes(&ropes)?;
                Some(Grab::Body { plane_point, plane_normal })
            }
            None => None,
        };
        Ok(self.grab.is_some())
    }

    /// Moves what is grabbed to where `ray` crosses its drag plane.
    pub fn drag(&mut self, ray: &Ray) -> Result<(), Error> {
        match self.grab {
            Some(Grab::Particle { index, plane_point, plane_normal, .. }) => {
                if let Some(point) = ray.intersect_plane(plane_point, plane_normal) {
                    self.solver.set_pin_target(index, point)?;
                }
            }
            Some(Grab::Collider { collider, original, original_offset, plane_point, plane_normal }) => {
                if let Some(point) = ray.intersect_plane(plane_point, plane_normal) {
                    let mut poses = self.solver.collider_poses();
                    let moved = point - plane_point;
                    poses[collider] = Pose { translation: original.translation + moved, ..original };
                    let time = self.time;
                    if let Some(k) = self.turning_of(collider) {
                        self.turning[k].offset = original_offset + moved;
                        poses[collider] = self.turning[k].pose_at(time);
                    }
                    // Paused, drags add up with no frame to carry them: place the collider instead.
                    if self.paused {
                        self.solver.place_colliders(&poses)?;
                    } else {
                        self.solver.set_collider_poses(&poses)?;
                    }
                }
            }
            // Paused, a held body stays: its joint would close the whole drag in one substep.
            Some(Grab::Body { plane_point, plane_normal }) if !self.paused => {
                if let Some(point) = ray.intersect_plane(plane_point, plane_normal) {
                    let mut ropes = self.solver.body_ropes().to_vec();
                    if let Some(held) = ropes.last_mut() {
                        held.anchor = point;
                    }
                    self.solver.set_body_ropes(&ropes)?;
                }
            }
            Some(Grab::Body { .. }) | None => {}
        }
        Ok(())
    }

    /// The turning of `collider`, if the scene turns it.
    fn turning_of(&self, collider: usize) -> Option<usize> {
        self.turning.iter().position(|t| t.spin.collider == collider)
    }

    /// Lets go: a grabbed particle that was not pinned before is released (with the velocity
    /// the drag gave it); one that was pinned stays pinned where it was dropped; one that was
    /// attached to a collider goes back to its point of it; a body goes on with the velocity
    /// the drag gave it.
    pub fn end_grab(&mut self) -> Result<(), Error> {
        match self.grab.take() {
            Some(Grab::Body { .. }) => {
                let ropes = self.solver.body_ropes();
                let kept = ropes[..ropes.len().saturating_sub(1)].to_vec();
                return self.solver.set_body_ropes(&kept);
            }
            Some(Grab::Particle { index, attached: Some((collider, local)), .. }) => {
                let poses = self.solver.collider_poses();
                let at = poses.get(collider as usize).map_or(local, |pose| pose.to_world(local));
                self.solver.attach(index, collider, at)?;
            }
            Some(Grab::Particle { index, was_pinned: false, .. }) => self.solver.unpin(index)?,
            _ => return Ok(()),
        }
        self.pinned = pinned_particles(&self.solver);
        Ok(())
    }

    /// The particle the mouse holds, if it holds one.
    pub fn grabbed_particle(&self) -> Option<u32> {
        match self.grab {
            Some(Grab::Particle { index, .. }) => Some(index),
            _ => None,
        }
    }

    /// The bodies as last read back ([`Session::begin_grab`] or [`Session::poll_positions`]):
    /// what grabbing looks among.
    pub fn bodies_seen(&self) -> &[BodyState] {
        &self.bodies_seen
    }

    /// Whether the mouse holds a body.
    pub fn holds_a_body(&self) -> bool {
        matches!(self.grab, Some(Grab::Body { .. }))
    }

    /// The collider the mouse holds, if it holds one.
    pub fn grabbed_collider(&self) -> Option<usize> {
        match self.grab {
            Some(Grab::Collider { collider, .. }) => Some(collider),
            _ => None,
        }
    }

    /// Markers for the pinned particles (and the grabbed one) and the point a held body hangs
    /// from.
    pub fn markers(&self) -> Vec<Marker> {
        let (pins, poses) = (self.solver.pins(), self.solver.collider_poses());
        let grabbed = self.grabbed_particle();
        let held_body = self.holds_a_body().then(|| self.solver.body_ropes().last()).flatten();
        self.pinned
            .iter()
            .map(|&i| Marker {
                position: pins.world_target(i, &poses),
                kind: if Some(i) == grabbed { MarkerKind::Grab } else { MarkerKind::Pin },
            })
            .chain(held_body.map(|rope| Marker { position: rope.anchor, kind: MarkerKind::Grab }))
            .collect()
    }

    /// A camera framing the cloth's rest shape and its bounded colliders.
    pub fn framing_camera(&self) -> OrbitCamera {
        let (mut min, mut max) = bounding_box(&self.solver.model().mesh().positions);
        for (low, high) in self.scene_colliders.iter().filter_map(Collider::bounds) {
            (min, max) = (min.min(low), max.max(high));
        }
        OrbitCamera::framing(min, max)
    }

    /// The Jacobi over-relaxation ω that switching to Jacobi uses.
    pub fn relaxation(&self) -> f32 {
        self.relaxation
    }

    /// The solver.
    pub fn solver(&self) -> &GpuSolver {
        &self.solver
    }

    /// The colliders where they are (one may have been dragged).
    pub fn colliders(&self) -> Vec<Collider> {
        self.solver.colliders()
    }

    /// The current parameters.
    pub fn params(&self) -> &SolverParams {
        self.solver.params()
    }

    /// The cloth being simulated.
    pub fn source(&self) -> &ClothSource {
        &self.source
    }

    /// Cells per side of library scenes.
    pub fn grid(&self) -> u32 {
        self.grid
    }

    /// Frames simulated since the last reset.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Milliseconds per frame: GPU time from timestamp queries when the device has them
    /// (`true`), otherwise the CPU time spent recording the step (`false`).
    pub fn frame_ms(&self) -> (f64, bool) {
        match self.timer.as_ref().and_then(|t| t.last_ms) {
            Some(ms) => (ms, true),
            None => (self.cpu_ms, false),
        }
    }

    /// The last measured statistics ([`Session::refresh_metrics`], or
    /// [`Session::poll_metrics`] in the background).
    pub fn metrics(&self) -> Option<&ClothMetrics> {
        self.metrics.as_ref()
    }
}

/// GPU time of the step from two timestamps, written by empty passes around it and read back
/// without ever waiting: a copy to the
/// readback buffer is recorded only while it is idle, and its mapping is polled later.
struct FrameTimer {
    queries: wgpu::QuerySet,
    resolved: wgpu::Buffer,
    readback: BackgroundMap,
    nanoseconds_per_tick: f64,
    copy_recorded: bool,
    last_ms: Option<f64>,
}

impl FrameTimer {
    fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Option<Self> {
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        Some(Self {
            queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("drape viewer step timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            }),
            resolved: timestamp_buffer(
                device,
                "drape viewer timestamps",
                wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            ),
            readback: timestamp_readback(device),
            nanoseconds_per_tick: f64::from(queue.get_timestamp_period()),
            copy_recorded: false,
            last_ms: None,
        })
    }

    fn begin(&self, encoder: &mut wgpu::CommandEncoder) {
        self.mark(encoder, Some(0), None);
    }

    fn end(&mut self, encoder: &mut wgpu::CommandEncoder) {
        self.mark(encoder, None, Some(1));
        encoder.resolve_query_set(&self.queries, 0..2, &self.resolved, 0);
        if self.readback.is_idle() {
            encoder.copy_buffer_to_buffer(&self.resolved, 0, self.readback.buffer(), 0, 16);
            self.copy_recorded = true;
        }
    }

    /// Writes a timestamp through an empty compute pass's own writes: WebGPU (and a device
    /// without `TIMESTAMP_QUERY_INSIDE_ENCODERS`) has no timestamps between passes otherwise.
    fn mark(&self, encoder: &mut wgpu::CommandEncoder, beginning: Option<u32>, end: Option<u32>) {
        encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("drape viewer timestamp"),
            timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                query_set: &self.queries,
                beginning_of_pass_write_index: beginning,
                end_of_pass_write_index: end,
            }),
        });
    }

    fn after_submit(&mut self, device: &wgpu::Device) {
        if std::mem::take(&mut self.copy_recorded) {
            self.readback.start();
        }
        match self.readback.try_read(device, |bytes| bytemuck::pod_read_unaligned::<[u64; 2]>(&bytes[..16])) {
            Ok(Some([start, end])) => {
                self.last_ms = Some(end.wrapping_sub(start) as f64 * self.nanoseconds_per_tick * 1e-6);
            }
            Ok(None) => {}
            // A failed map only skips a timing; its buffer cannot be mapped again.
            Err(_) => self.readback = timestamp_readback(device),
        }
    }
}

/// The two timestamps' mappable copy.
fn timestamp_readback(device: &wgpu::Device) -> BackgroundMap {
    BackgroundMap::new(timestamp_buffer(
        device,
        "drape viewer timestamp readback",
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
    ))
}

/// A buffer for two 64-bit timestamps.
fn timestamp_buffer(device: &wgpu::Device, label: &str, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor { label: Some(label), size: 16, usage, mapped_at_creation: false })
}

/// The scene's spins, none of them dragged yet.
fn turning(spins: &[Spin]) -> Vec<Turning> {
    spins.iter().map(|&spin| Turning { spin, offset: Vec3::ZERO }).collect()
}
