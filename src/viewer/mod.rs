//! The viewer (cargo feature `viewer`): a windowed demo with an egui panel and mouse
//! interaction, and headless PNG screenshots. Library users who only embed the solver do not
//! need it.
//!
//! - [`camera`] and [`pick`]: orbit camera, cursor rays, picking (pure math);
//! - [`renderer`]: draws the cloth from the solver's buffers, colliders and pin markers;
//! - [`offscreen`]: renders into a texture and writes PNGs;
//! - [`session`]: a running simulation with pause/step/reset and mouse grabbing;
//! - [`window`], [`panel`] and [`controls`]: the winit + egui application and its keys;
//!   [`headless`]: the same without a window.

pub mod camera;
pub mod controls;
pub mod headless;
pub mod offscreen;
pub mod panel;
pub mod pick;
pub mod renderer;
pub mod session;
pub mod shaders;
pub mod window;

pub use camera::{OrbitCamera, Ray};
pub use headless::{run_headless, HeadlessRun};
pub use offscreen::{save_png, Offscreen, OFFSCREEN_FORMAT};
pub use renderer::{DrawOptions, SceneRenderer};
pub use session::{ClothSource, ParamOverrides, Session};
pub use window::{run_window, WindowRun};

use crate::metrics::ClothMetrics;
use std::fmt;

/// How a demo run ended.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// The adapter it ran on.
    pub adapter: String,
    /// Frames simulated since the last reset.
    pub frames: u64,
    /// The cloth at the end.
    pub metrics: ClothMetrics,
}

impl fmt::Display for RunReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = &self.metrics;
        write!(
            f,
            "frames: {} | adapter: {} | max stretch: {:.4} | min collider distance: {:.4} m | kinetic energy: {:.4} J | non-finite: {}",
            self.frames, self.adapter, m.max_stretch, m.min_collider_distance, m.kinetic_energy, m.non_finite
        )
    }
}
