//! The viewer. Cargo feature `render` (also on wasm32, where the web demo in `web/` uses it):
//! - [`camera`] and [`pick`]: orbit camera, cursor rays, picking (pure math);
//! - [`renderer`]: draws the cloth from the solver's buffers, colliders and pin markers;
//! - [`session`]: a running simulation with pause/step/reset and mouse grabbing;
//! - [`settings`]: what the demos' controls offer (the desktop panel and the web page alike).
//!
//! Cargo feature `viewer` (native only) adds the windowed demo and headless PNG screenshots:
//! - [`offscreen`]: renders into a texture and writes PNGs;
//! - [`window`], [`panel`] and [`controls`]: the winit + egui application and its keys;
//!   [`headless`]: the same without a window.
//!
//! Library users who only embed the solver need neither.

pub mod camera;
#[cfg(feature = "viewer")]
pub mod controls;
#[cfg(feature = "viewer")]
pub mod headless;
#[cfg(feature = "viewer")]
pub mod offscreen;
#[cfg(feature = "viewer")]
pub mod panel;
pub mod pick;
pub mod renderer;
pub mod session;
pub mod settings;
pub mod shaders;
#[cfg(feature = "viewer")]
pub mod window;

pub use camera::{OrbitCamera, Ray};
#[cfg(feature = "viewer")]
pub use headless::{run_headless, HeadlessRun};
#[cfg(feature = "viewer")]
pub use offscreen::{save_png, Offscreen, OFFSCREEN_FORMAT};
pub use renderer::{DrawOptions, SceneRenderer};
pub use session::{ClothSource, ParamOverrides, Session};
#[cfg(feature = "viewer")]
pub use window::{run_window, WindowRun};

#[cfg(feature = "viewer")]
use crate::metrics::ClothMetrics;
#[cfg(feature = "viewer")]
use std::fmt;

/// How a demo run ended.
#[cfg(feature = "viewer")]
#[derive(Debug, Clone)]
pub struct RunReport {
    /// The adapter it ran on.
    pub adapter: String,
    /// Frames simulated since the last reset.
    pub frames: u64,
    /// The cloth at the end.
    pub metrics: ClothMetrics,
}

#[cfg(feature = "viewer")]
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
