//! Scenes shared by the examples, tests and benches.

use crate::aerodynamics::{Aerodynamics, Gusts};
use crate::collision::Collider;
use crate::error::Error;
use crate::mesh::{ClothMesh, GridPlane};
use crate::model::{ClothModel, DEFAULT_DENSITY};
use crate::params::SolverParams;
use glam::Vec3;
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
}

impl SceneKind {
    /// Every scene, in menu order.
    pub const ALL: [SceneKind; 5] = [Self::Hanging, Self::Drape, Self::FreeFall, Self::Benchmark, Self::Flag];

    /// The scene's command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Hanging => "hanging",
            Self::Drape => "drape",
            Self::FreeFall => "free_fall",
            Self::Benchmark => "benchmark",
            Self::Flag => "flag",
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
        };
        let vertices = cells.saturating_add(1);
        let mesh = ClothMesh::grid(vertices, vertices, size / cells as f32, plane, origin)?;
        let params = SolverParams::default();
        let params = match kind {
            SceneKind::FreeFall => SolverParams { damping: 0.0, ..params },
            SceneKind::Flag => SolverParams { aerodynamics: Some(flag_wind()), ..params },
            _ => params,
        };
        let model = ClothModel::new(mesh, DEFAULT_DENSITY, &pins)?;
        Ok(Self { kind, model, params, colliders })
    }
}

/// The flag scene's air: 4 m/s across the flag, gusts of ±40 % about every two seconds.
fn flag_wind() -> Aerodynamics {
    Aerodynamics {
        wind: Vec3::new(0.0, 0.0, 4.0),
        gusts: Gusts { strength: 0.4, frequency: 0.5 },
        ..Aerodynamics::default()
    }
}
