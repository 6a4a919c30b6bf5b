//! Scenes shared by the examples, tests and benches.

use crate::bodies::{BodyMass, BodyShape, RigidBody};
use crate::collision::{Collider, Pose};
use crate::distance_field::DistanceField;
use crate::error::Error;
use crate::fabric::{Fabric, DEFAULT_FABRIC};
use crate::gpu::GpuSolver;
use crate::lab;
use crate::mesh::{ClothMesh, GridPlane};
use crate::model::{ClothModel, DEFAULT_DENSITY};
use crate::params::{Aerodynamics, Gusts, SelfCollision, SolverParams, Stiffness};
use crate::passes::attachments::Attachment;
use crate::passes::bodies::attachments::BodyAttachment;
use crate::passes::bodies::ropes::BodyRope;
use glam::{Quat, Vec3};
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

/// A ready-to-run cloth setup.
#[derive(Debug, Clone)]
pub struct Scene {
    /// Which scene this is.
    pub kind: SceneKind,
    /// The cloth.
    pub model: ClothModel,
    /// Solver parameters suited to the scene.
    pub params: SolverParams,
    /// The scene's colliders.
    pub colliders: Vec<Collider>,
    /// Colliders the scene keeps turning or swinging ([`Scene::collider_poses`]).
    pub spins: Vec<Spin>,
    /// What it adds to its cloth: attachments, bodies and theirs.
    pub objects: SceneObjects,
    /// The fabric of its cloth, `None` for the edge model with [`DEFAULT_DENSITY`] stiffened by
    /// the parameters.
    pub fabric: Option<Fabric>,
}

/// What a scene adds to its cloth, made on each new solver ([`SceneObjects::make`]).
#[derive(Debug, Clone, Default)]
pub struct SceneObjects {
    /// Particles attached to colliders where they are at rest
    /// ([`crate::GpuSolver::attach_many`]).
    pub attachments: Vec<Attachment>,
    /// Rigid bodies ([`crate::GpuSolver::set_bodies`]).
    pub bodies: Vec<RigidBody>,
    /// Particles attached to points of the bodies ([`crate::GpuSolver::attach_to_bodies`]).
    pub body_attachments: Vec<BodyAttachment>,
    /// Ropes holding the bodies ([`crate::GpuSolver::set_body_ropes`]).
    pub body_ropes: Vec<BodyRope>,
}

impl SceneObjects {
    /// Makes them on `solver`: its collider attachments, its bodies, their attachments and
    /// ropes.
    pub fn make(&self, solver: &mut GpuSolver) -> Result<(), Error> {
        solver.attach_many(&self.attachments)?;
        solver.set_bodies(&self.bodies)?;
        solver.attach_to_bodies(&self.body_attachments)?;
        solver.set_body_ropes(&self.body_ropes)
    }
}

/// A collider turning at a constant rate about an axis through a fixed point, or swinging
/// about it to and fro.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spin {
    /// Which collider (an index into the scene's colliders).
    pub collider: usize,
    /// A point of the axis (m).
    pub center: Vec3,
    /// The axis times the rate (rad/s): a swing's fastest, as it passes its start.
    pub angular_velocity: Vec3,
    /// Zero for a steady turn; otherwise the period (s, at least [`MIN_SWING_PERIOD`]) of a
    /// swing, the angle `|ω|·T/(2π)·sin(2πt/T)`.
    pub swing_period: f32,
}

/// The shortest swing a [`Spin`] takes (s): shorter ones would turn faster than a frame shows.
pub const MIN_SWING_PERIOD: f32 = 1e-3;

impl Spin {
    /// Checks the collider is one of `colliders` and the axis point and rate are finite.
    pub fn validate(&self, colliders: usize) -> Result<(), Error> {
        if self.collider >= colliders {
            Err(Error::Collider(format!("spin of collider {} among {colliders}", self.collider)))
        } else if !(self.center.is_finite() && self.angular_velocity.is_finite()) {
            Err(Error::Collider(format!("spin {self:?} must be finite")))
        } else if !(self.swing_period == 0.0
            || (self.swing_period.is_finite() && self.swing_period >= MIN_SWING_PERIOD))
        {
            Err(Error::Collider(format!("spin {self:?} must swing with a period of 0 or ≥ {MIN_SWING_PERIOD} s")))
        } else {
            Ok(())
        }
    }

    /// The collider's pose `time` seconds after the start: turned by `|ω|·time` about the axis,
    /// or swung by `|ω|·T/(2π)·sin(2πt/T)`, the axis point staying where it is.
    pub fn pose_at(&self, time: f32) -> Pose {
        let turned = match self.period() {
            Some(period) if self.swing_period > 0.0 => {
                (std::f32::consts::TAU * time / period).sin() * period / std::f32::consts::TAU
            }
            _ => time,
        };
        let rotation = Quat::from_scaled_axis(self.angular_velocity * turned);
        Pose { translation: self.center - rotation * self.center, rotation }
    }

    /// After how long the motion repeats (s): a swing's period, or a turn's; `None` for one
    /// that does not move.
    pub fn period(&self) -> Option<f32> {
        let rate = self.angular_velocity.length();
        if self.swing_period > 0.0 {
            Some(self.swing_period)
        } else {
            (rate > 0.0).then(|| std::f32::consts::TAU / rate)
        }
    }
}

/// The library's scenes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SceneKind {
    /// A 1 m × 1 m curtain hanging from its two top corners.
    Hanging,
    /// A 2 m × 2 m cloth falling onto a sphere (r = 0.5 m) resting on the ground.
    Drape,
    /// A 1 m × 1 m cloth falling freely: no pins, no colliders.
    FreeFall,
    /// The comparison scene: a horizontal 2 m × 2 m cloth, the two corners of one edge pinned,
    /// a static sphere (r = 0.5 m) under the middle, gravity 9.81, dt 1/60.
    Benchmark,
    /// A 1 m × 1 m flag hanging from a horizontal pole along its top edge, in a gusty 4 m/s
    /// wind across it ([`crate::passes::air`]).
    Flag,
    /// A 1.6 m × 1.6 m cloth falling over a horizontal bar (a capsule, r = 6 cm, 1 m up), its
    /// two halves hanging onto a rounded box turned 20° under it, on the ground.
    Capsules,
    /// A limp 1 m × 1 m cloth (PBD bending stiffness 0.01) held upright, leaning 1°, its lower
    /// edge 0.5 m above the ground: it lands on that edge and crumples onto itself in a pile.
    Fold,
    /// Three 1.2 m × 1.2 m sheets, 15 cm apart and turned 30° from each other, falling onto a
    /// sphere (r = 0.5 m) on the ground: one cloth of three pieces.
    Stack,
    /// A 1 m × 1 m cloth falling onto a sphere (r = 0.4 m, 0.4 m up) that turns about the
    /// vertical at 2 rad/s: friction turns the cloth with it ([`Scene::spins`]).
    Spin,
    /// A 1.2 m × 1.2 m cloth falling onto a torus (ring radius 0.4 m, tube radius 0.15 m) lying
    /// on the ground: a mesh collider ([`DistanceField`]), which the cloth sags into the hole of.
    Mesh,
    /// Peirce's cantilever ([`crate::lab::Cantilever`]): a 25 mm strip of the fabric clamped on
    /// a table, reaching twice its bending length past the edge, where its tip line should hang
    /// at 41.5°; `cells` cells over the overhang. 20 iterations and at least 20 substeps, more
    /// where fine cells stiffen the bending ([`Fabric::bending_substeps`]).
    Cantilever,
    /// Cusick's drape test ([`crate::lab::cusick_model`]): a 30 cm disc of the fabric held on an
    /// 18 cm support, draping into folds; `cells` cells across the disc. 10 iterations and at
    /// least 30 substeps, more where fine cells stiffen the bending
    /// ([`Fabric::bending_substeps`]).
    Cusick,
    /// Three cloths of their own fabrics ([`LAYER_FABRICS`], from the bottom up: silk charmeuse,
    /// cotton shirting, leather-like), 1.2 m × 1.2 m, 10 cm apart and turned 30° from each
    /// other, falling onto a sphere (r = 0.5 m) on the ground with self-collision as thick as a
    /// cell is wide (the leather 1.5 cells; each within 1–5 cm), each cloth of its own friction
    /// ([`LAYER_CONTACTS`]): several cloths in one model ([`ClothModel::joined`]). At least 10
    /// substeps, more where fine cells stiffen the bending ([`Fabric::bending_substeps`]).
    Layers,
    /// A 0.8 m × 0.8 m cape attached along its top edge ([`crate::GpuSolver::attach_to_bodies`])
    /// to a bar, a 1 kg rigid box 0.9 m long hung by two ropes 0.65 m long
    /// ([`crate::GpuSolver::set_body_ropes`]) and let go swung out 27°: it swings to and fro,
    /// the cape pulling on it, over the ground.
    Cape,
    /// A 1.6 m × 1.6 m canvas ([`HAMMOCK_DENSITY`]) pinned at its four corners 1.2 m up, and a
    /// ball (r = 0.2 m, 1 kg) dropped onto it from 0.2 m above: it sags, bounces and settles
    /// ([`crate::GpuSolver::set_bodies`]).
    Hammock,
}

impl SceneKind {
    /// Every scene, in menu order.
    pub const ALL: [SceneKind; 15] = [
        Self::Hanging,
        Self::Drape,
        Self::FreeFall,
        Self::Benchmark,
        Self::Flag,
        Self::Capsules,
        Self::Fold,
        Self::Stack,
        Self::Spin,
        Self::Mesh,
        Self::Cantilever,
        Self::Cusick,
        Self::Layers,
        Self::Cape,
        Self::Hammock,
    ];

    /// The scene's command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Hanging => "hanging",
            Self::Drape => "drape",
            Self::FreeFall => "free_fall",
            Self::Benchmark => "benchmark",
            Self::Flag => "flag",
            Self::Capsules => "capsules",
            Self::Fold => "fold",
            Self::Stack => "stack",
            Self::Spin => "spin",
            Self::Mesh => "mesh",
            Self::Cantilever => "cantilever",
            Self::Cusick => "cusick",
            Self::Layers => "layers",
            Self::Cape => "cape",
            Self::Hammock => "hammock",
        }
    }

    /// Whether the scene is one of the textile lab's tests, whose cloth is always a fabric.
    pub fn is_lab_test(self) -> bool {
        matches!(self, Self::Cantilever | Self::Cusick)
    }

    /// The fabric the demo and the web page make the scene's cloth of unless told otherwise:
    /// [`DEFAULT_FABRIC`], or none for the layers, whose cloths are each of its own.
    pub fn default_fabric(self) -> Option<Fabric> {
        match self {
            Self::Layers => None,
            _ => Fabric::named(DEFAULT_FABRIC),
        }
    }

    /// Whether its cloths are fabrics whose substeps (and iterations) the scene sets, so that
    /// they bend as their rigidities say: the lab's tests and the layers.
    pub fn sets_its_steps(self) -> bool {
        self.is_lab_test() || self == Self::Layers
    }
}

impl fmt::Display for SceneKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SceneKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| {
            let names: Vec<_> = Self::ALL.iter().map(|k| k.name()).collect();
            format!("unknown scene `{s}` (expected one of {})", names.join(", "))
        })
    }
}

impl Scene {
    /// Builds a scene with a cloth of `cells × cells` grid cells; the lab's tests' cloth is of
    /// [`DEFAULT_FABRIC`], the layers' of [`LAYER_FABRICS`].
    pub fn new(kind: SceneKind, cells: u32) -> Result<Self, Error> {
        if kind == SceneKind::Layers {
            return layers(cells, LAYER_FABRICS.map(|name| Fabric::named(name).expect("a preset")), None);
        }
        if kind.is_lab_test() {
            let fabric = Fabric::named(DEFAULT_FABRIC).expect("a preset");
            return Self::with_fabric(kind, cells, &fabric);
        }
        Self::edge_model(kind, cells)
    }

    /// The scene with its cloth of `fabric` ([`ClothModel::from_fabric`]): a membrane and
    /// curvature bending in its physical units, its density, the same pins (the layers: each of
    /// its three cloths).
    pub fn with_fabric(kind: SceneKind, cells: u32, fabric: &Fabric) -> Result<Self, Error> {
        let params = SolverParams::default();
        let (model, params, colliders) = match kind {
            SceneKind::Layers => return layers(cells, [*fabric; 3], Some(*fabric)),
            SceneKind::Cantilever => {
                let overhang = 2.0 * lab::bending_length(fabric, params.gravity.length());
                let rig = lab::Cantilever::new(fabric, overhang, cells)?;
                let spacing = overhang / (cells as f32 + 0.5);
                let substeps = fabric.bending_substeps(spacing, params.time_step, 20);
                (rig.model, SolverParams { substeps, iterations: 20, damping: 5.0, ..params }, vec![])
            }
            SceneKind::Cusick => {
                let model = lab::cusick_model(fabric, cells, lab::CUSICK_HEIGHT)?;
                let spacing = 2.0 * lab::CUSICK_SPECIMEN_RADIUS / cells as f32;
                let substeps = fabric.bending_substeps(spacing, params.time_step, CUSICK_SUBSTEPS);
                let params = SolverParams { substeps, iterations: 10, damping: 1.0, ..params };
                (model, params, vec![Collider::ground(0.0)])
            }
            _ => {
                let scene = Self::edge_model(kind, cells)?;
                let model = scene.model.refit_to(fabric)?;
                return Ok(Self { model, fabric: Some(*fabric), ..scene });
            }
        };
        let (spins, objects) = (vec![], SceneObjects::default());
        Ok(Self { kind, model, params, colliders, spins, objects, fabric: Some(*fabric) })
    }

    /// The scene's own cloth: the edge model.
    fn edge_model(kind: SceneKind, cells: u32) -> Result<Self, Error> {
        let corners = vec![0, cells];
        let (size, plane, origin, pins, colliders) = match kind {
            SceneKind::Hanging => {
                (1.0, GridPlane::Vertical, Vec3::new(-0.5, 1.5, 0.0), corners, vec![Collider::ground(0.0)])
            }
            SceneKind::Drape => (
                2.0,
                GridPlane::Horizontal,
                Vec3::new(-1.0, 1.2, -1.0),
                vec![],
                vec![Collider::ground(0.0), Collider::sphere(Vec3::new(0.0, 0.5, 0.0), 0.5)],
            ),
            SceneKind::FreeFall => (1.0, GridPlane::Horizontal, Vec3::new(-0.5, 2.0, -0.5), vec![], vec![]),
            SceneKind::Benchmark => (
                2.0,
                GridPlane::Horizontal,
                Vec3::new(-1.0, 1.0, -1.0),
                corners,
                vec![Collider::sphere(Vec3::new(0.0, 0.4, 0.0), 0.5)],
            ),
            SceneKind::Flag => (1.0, GridPlane::Vertical, Vec3::new(-0.5, 2.0, 0.0), (0..=cells).collect(), vec![]),
            SceneKind::Capsules => (1.6, GridPlane::Horizontal, Vec3::new(-0.8, 1.2, -0.8), vec![], bar_and_box()),
            SceneKind::Fold => {
                (1.0, GridPlane::Vertical, Vec3::new(-0.5, 1.0, 0.0), vec![], vec![Collider::ground(0.0)])
            }
            SceneKind::Stack => (
                1.2,
                GridPlane::Horizontal,
                Vec3::new(-0.6, 0.0, -0.6),
                vec![],
                vec![Collider::ground(0.0), Collider::sphere(Vec3::new(0.0, 0.5, 0.0), 0.5)],
            ),
            SceneKind::Spin => (
                1.0,
                GridPlane::Horizontal,
                Vec3::new(-0.5, 1.0, -0.5),
                vec![],
                vec![Collider::ground(0.0), Collider::sphere(SPIN_CENTER, 0.4)],
            ),
            SceneKind::Mesh => (1.2, GridPlane::Horizontal, Vec3::new(-0.6, 0.8, -0.6), vec![], torus_on_the_ground()?),
            SceneKind::Cape => {
                (0.8, GridPlane::Vertical, Vec3::new(-0.4, 1.45, 0.12), vec![], vec![Collider::ground(0.0)])
            }
            SceneKind::Hammock => {
                let last = cells.saturating_add(1).saturating_mul(cells.saturating_add(1)).saturating_sub(1);
                let corners = vec![0, cells, last - cells, last];
                (1.6, GridPlane::Horizontal, Vec3::new(-0.8, 1.2, -0.8), corners, vec![Collider::ground(0.0)])
            }
            SceneKind::Cantilever | SceneKind::Cusick | SceneKind::Layers => {
                let expected =
                    "a scene with a cloth of its own (the lab's tests and the layers are built from fabrics)";
                return Err(crate::ParamError { name: "scene", value: kind.name().into(), expected }.into());
            }
        };
        let vertices = cells.saturating_add(1);
        let grid = ClothMesh::grid(vertices, vertices, size / cells as f32, plane, origin)?;
        let mesh = match kind {
            // Turned about its lower edge (on the x axis), then lifted 0.5 m.
            SceneKind::Fold => grid.moved(Quat::from_rotation_x(1f32.to_radians()), Vec3::new(0.0, 0.5, 0.0)),
            SceneKind::Stack => ClothMesh::joined(&[0.0, 1.0, 2.0].map(|k: f32| {
                grid.moved(Quat::from_rotation_y((30.0 * k).to_radians()), Vec3::new(0.0, 1.2 + 0.15 * k, 0.0))
            }))?,
            SceneKind::Cape => {
                let swung = cape_swung_out();
                grid.moved(swung.rotation, swung.translation)
            }
            _ => grid,
        };
        let params = SolverParams::default();
        let params = match kind {
            SceneKind::FreeFall => SolverParams { damping: 0.0, ..params },
            SceneKind::Flag => SolverParams { aerodynamics: Some(flag_wind()), ..params },
            SceneKind::Fold => SolverParams { bending: Stiffness::Pbd(0.01), ..params },
            _ => params,
        };
        let density = if kind == SceneKind::Hammock { HAMMOCK_DENSITY } else { DEFAULT_DENSITY };
        let model = ClothModel::new(mesh, density, &pins)?;
        let spins = match kind {
            SceneKind::Spin => vec![Spin {
                collider: 1,
                center: SPIN_CENTER,
                angular_velocity: Vec3::new(0.0, 2.0, 0.0),
                swing_period: 0.0,
            }],
            _ => vec![],
        };
        let objects = match kind {
            SceneKind::Hammock => SceneObjects { bodies: vec![hammock_ball()], ..SceneObjects::default() },
            SceneKind::Cape => {
                let bar = cape_bar();
                let top_edge = 0..=cells;
                let on_bar = |particle: u32| BodyAttachment {
                    particle,
                    body: 0,
                    point: bar.pose.to_local(model.mesh().positions[particle as usize]),
                };
                SceneObjects {
                    bodies: vec![bar],
                    body_attachments: top_edge.map(on_bar).collect(),
                    body_ropes: cape_ropes().to_vec(),
                    ..SceneObjects::default()
                }
            }
            _ => SceneObjects::default(),
        };
        Ok(Self { kind, model, params, colliders, spins, objects, fabric: None })
    }

    /// Every collider's pose `time` seconds after the start, for
    /// [`crate::GpuSolver::set_collider_poses`] before each frame (the frame ending at `time`),
    /// or `None` when nothing in the scene moves. Fails on a spin that does not validate
    /// ([`Spin::validate`]).
    pub fn collider_poses(&self, time: f32) -> Result<Option<Vec<Pose>>, Error> {
        if self.spins.is_empty() {
            return Ok(None);
        }
        let mut poses = vec![Pose::IDENTITY; self.colliders.len()];
        for spin in &self.spins {
            spin.validate(self.colliders.len())?;
            poses[spin.collider] = spin.pose_at(time);
        }
        Ok(Some(poses))
    }
}

/// The layers scene's fabrics, from the bottom up ([`SceneKind::Layers`]).
pub const LAYER_FABRICS: [&str; 3] = ["silk-charmeuse", "cotton-shirting", "leather-like"];

/// Each layer's friction and thickness in cell widths ([`SceneKind::Layers`], with
/// [`LAYER_FABRICS`]): slippery silk, cotton, and a thicker leather that grips. Typical
/// fabric-on-fabric friction, not measured on these fabrics; the silk on the leather less than
/// the mean of theirs ([`LAYER_SILK_ON_LEATHER`]).
pub const LAYER_CONTACTS: [(f32, f32); 3] = [(0.2, 1.0), (0.45, 1.0), (0.6, 1.5)];

/// The friction between the layers scene's silk and leather ([`ClothModel::with_pair_friction`]).
pub const LAYER_SILK_ON_LEATHER: f32 = 0.3;

/// The layers scene's self-collision is as thick as its cells are wide, within these (m):
/// thinner than a cell, two edges can cross (there are no edge–edge contacts), and the layers
/// start 10 cm apart.
const MIN_LAYER_THICKNESS: f32 = 0.01;
const MAX_LAYER_THICKNESS: f32 = 0.05;

/// The layers scene of `cells × cells` cells a cloth, of `fabrics` from the bottom up; `fabric`
/// is the one they share, if they do (then they take the solver's contact, else each its own
/// of [`LAYER_CONTACTS`]).
fn layers(cells: u32, fabrics: [Fabric; 3], fabric: Option<Fabric>) -> Result<Scene, Error> {
    let (size, vertices) = (1.2, cells.saturating_add(1));
    let spacing = size / cells as f32;
    let grid = ClothMesh::grid(vertices, vertices, spacing, GridPlane::Horizontal, Vec3::new(-0.6, 0.0, -0.6))?;
    let cloths = fabrics
        .iter()
        .enumerate()
        .map(|(k, fabric)| {
            let turn = Quat::from_rotation_y((30.0 * k as f32).to_radians());
            ClothModel::from_fabric(grid.moved(turn, Vec3::new(0.0, 1.2 + 0.1 * k as f32, 0.0)), fabric, &[])
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let params = SolverParams::default();
    let substeps =
        fabrics.iter().map(|f| f.bending_substeps(spacing, params.time_step, params.substeps)).max().unwrap_or(10);
    let thickness = spacing.clamp(MIN_LAYER_THICKNESS, MAX_LAYER_THICKNESS);
    let params = SolverParams { substeps, self_collision: Some(SelfCollision::new(thickness)), ..params };
    let colliders = vec![Collider::ground(0.0), Collider::sphere(Vec3::new(0.0, 0.5, 0.0), 0.5)];
    let mut model = ClothModel::joined(&cloths)?;
    if fabric.is_none() {
        for (c, (friction, cells)) in LAYER_CONTACTS.into_iter().enumerate() {
            let thickness = (cells * spacing).clamp(MIN_LAYER_THICKNESS, MAX_LAYER_THICKNESS);
            model = model.with_contact(c, SelfCollision { thickness, friction })?;
        }
        model = model.with_pair_friction(0, 2, LAYER_SILK_ON_LEATHER)?;
    }
    let (kind, spins, objects) = (SceneKind::Layers, vec![], SceneObjects::default());
    Ok(Scene { kind, model, params, colliders, spins, objects, fabric })
}

/// Where the cape scene's ropes are tied: 0.65 m over the bar's top face, 0.4 m either side
/// of its middle.
const CAPE_ANCHORS: [Vec3; 2] = [Vec3::new(-0.4, 2.2, 0.0), Vec3::new(0.4, 2.2, 0.0)];

/// The cape scene's bar's half extents (m): 0.9 m × 0.1 m × 0.2 m.
const CAPE_BAR: Vec3 = Vec3::new(0.45, 0.05, 0.1);

/// How the cape scene starts: turned 27° about the line through its ropes' anchors, from
/// hanging still with its bar's middle at (0, 1.5, 0) and the cape's top edge along the bar's
/// bottom front edge (2 cm in front of it).
fn cape_swung_out() -> Pose {
    let rotation = Quat::from_rotation_x(27f32.to_radians());
    let anchor = CAPE_ANCHORS[0];
    Pose { translation: anchor - rotation * anchor, rotation }
}

/// The cape scene's bar: a 1 kg box, swung out ([`cape_swung_out`]).
fn cape_bar() -> RigidBody {
    let hanging = Pose { translation: Vec3::new(0.0, 1.5, 0.0), rotation: Quat::IDENTITY };
    let swung = cape_swung_out();
    let pose = Pose { translation: swung.to_world(hanging.translation), rotation: swung.rotation };
    RigidBody::new(BodyShape::Box { half_extents: CAPE_BAR }, BodyMass::Mass(1.0), pose)
}

/// The cape scene's ropes: from [`CAPE_ANCHORS`] to the bar's top face above them, taut.
fn cape_ropes() -> [BodyRope; 2] {
    CAPE_ANCHORS.map(|anchor| BodyRope {
        body: 0,
        point: Vec3::new(anchor.x, CAPE_BAR.y, 0.0),
        anchor,
        length: anchor.y - 1.5 - CAPE_BAR.y,
    })
}

/// The hammock scene's canvas (kg/m²). Lighter cloth under a heavier ball rebounds it nearly
/// as fast as it fell: the cloth's positional corrections, stretched by the ball within each
/// substep, push back (a 4 kg ball dropped 0.6 m onto the edge model's 0.2 kg/m² rose back at
/// 93 % of its speed, bounce after bounce).
pub const HAMMOCK_DENSITY: f32 = 1.0;

/// The hammock scene's ball: r = 0.2 m, 1 kg, its bottom 0.2 m over the cloth's middle.
fn hammock_ball() -> RigidBody {
    let pose = Pose { translation: Vec3::new(0.0, 1.6, 0.0), rotation: Quat::IDENTITY };
    RigidBody::new(BodyShape::Sphere { radius: 0.2 }, BodyMass::Mass(1.0), pose)
}

/// The spin scene's sphere centre.
const SPIN_CENTER: Vec3 = Vec3::new(0.0, 0.4, 0.0);

/// Samples along the mesh scene's torus's longest side.
const TORUS_FIELD_RESOLUTION: u32 = 64;

/// The mesh scene's colliders: the ground and a torus lying on it.
fn torus_on_the_ground() -> Result<Vec<Collider>, Error> {
    let field = DistanceField::from_mesh(&ClothMesh::torus(0.4, 0.15, 48, 24)?, TORUS_FIELD_RESOLUTION)?;
    let pose = Pose { translation: Vec3::new(0.0, 0.15, 0.0), rotation: Quat::IDENTITY };
    Ok(vec![Collider::ground(0.0), Collider::mesh(Arc::new(field), pose)])
}

/// The fewest substeps of the Cusick scene: where its membrane has converged. Its drape
/// coefficient follows the membrane's stretch: cotton shirting at 64 cells read 0.57 at 10
/// substeps (worst p99 stretch 1.6 %), 0.662 at 30 (0.8 %) and 0.665 at 60, and 0.662 at 128
/// cells and 30 substeps (BENCHMARKS.md, "Fabrics").
const CUSICK_SUBSTEPS: u32 = 30;

/// The capsules scene's colliders: the ground, a bar across the cloth's middle at 1 m and a
/// rounded box under it.
fn bar_and_box() -> Vec<Collider> {
    vec![
        Collider::ground(0.0),
        Collider::capsule(Vec3::new(-0.9, 1.0, 0.0), Vec3::new(0.9, 1.0, 0.0), 0.06),
        Collider::Box {
            center: Vec3::new(0.0, 0.22, 0.0),
            half_extents: Vec3::new(0.45, 0.19, 0.3),
            rotation: Quat::from_rotation_y(20f32.to_radians()),
            rounding: 0.03,
        },
    ]
}

/// The flag scene's air: 4 m/s across the flag, gusts of ±40 % about every two seconds.
fn flag_wind() -> Aerodynamics {
    Aerodynamics {
        wind: Vec3::new(0.0, 0.0, 4.0),
        gusts: Gusts { strength: 0.4, frequency: 0.5 },
        ..Aerodynamics::default()
    }
}
