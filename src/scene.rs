//! Scenes shared by the examples, tests and benches.

use crate::aerodynamics::{Aerodynamics, Gusts};
use crate::collision::Collider;
use crate::error::Error;
use crate::mesh::{ClothMesh, GridPlane};
use crate::model::{ClothModel, DEFAULT_DENSITY};
use crate::params::{SolverParams, Stiffness};
use glam::{Quat, Vec3};
use std::fmt;
use std::str::FromStr;

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
    /// wind across it ([`crate::aerodynamics`]).
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
}

impl SceneKind {
    /// Every scene, in menu order.
    pub const ALL: [SceneKind; 8] = [
        Self::Hanging,
        Self::Drape,
        Self::FreeFall,
        Self::Benchmark,
        Self::Flag,
        Self::Capsules,
        Self::Fold,
        Self::Stack,
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
        }
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
    /// Builds a scene with a cloth of `cells × cells` grid cells.
    pub fn new(kind: SceneKind, cells: u32) -> Result<Self, Error> {
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
        };
        let vertices = cells.saturating_add(1);
        let grid = ClothMesh::grid(vertices, vertices, size / cells as f32, plane, origin)?;
        let mesh = match kind {
            // Turned about its lower edge (on the x axis), then lifted 0.5 m.
            SceneKind::Fold => grid.moved(Quat::from_rotation_x(1f32.to_radians()), Vec3::new(0.0, 0.5, 0.0)),
            SceneKind::Stack => ClothMesh::joined(&[0.0, 1.0, 2.0].map(|k: f32| {
                grid.moved(Quat::from_rotation_y((30.0 * k).to_radians()), Vec3::new(0.0, 1.2 + 0.15 * k, 0.0))
            }))?,
            _ => grid,
        };
        let params = SolverParams::default();
        let params = match kind {
            SceneKind::FreeFall => SolverParams { damping: 0.0, ..params },
            SceneKind::Flag => SolverParams { aerodynamics: Some(flag_wind()), ..params },
            SceneKind::Fold => SolverParams { bending: Stiffness::Pbd(0.01), ..params },
            _ => params,
        };
        let model = ClothModel::new(mesh, DEFAULT_DENSITY, &pins)?;
        Ok(Self { kind, model, params, colliders })
    }
}

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
