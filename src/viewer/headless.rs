//! The demo without a window: simulate a number of frames, then render one picture to a PNG.

use super::camera::OrbitCamera;
use super::offscreen::{save_png, Offscreen};
use super::renderer::{DrawOptions, SceneRenderer, SceneView};
use super::session::{ClothSource, ParamOverrides, Session};
use super::{RunReport, OFFSCREEN_FORMAT};
use crate::error::Error;
use crate::gpu::{headless_device, HeadlessOptions};
use std::path::PathBuf;

/// What a headless run does.
#[derive(Debug, Clone)]
pub struct HeadlessRun {
    /// The cloth.
    pub source: ClothSource,
    /// Cells per side of library scenes.
    pub grid: u32,
    /// Solver settings over the scene's own.
    pub overrides: ParamOverrides,
    /// Frames to simulate before the picture.
    pub frames: u64,
    /// Where to write the PNG, if anywhere.
    pub screenshot: Option<PathBuf>,
    /// Picture size in pixels.
    pub size: [u32; 2],
}

/// Runs `run` on a headless device and writes its screenshot.
pub fn run_headless(run: &HeadlessRun) -> Result<RunReport, Error> {
    let (device, queue, adapter) = headless_device(HeadlessOptions::default())?;
    let mut session = Session::new(&device, &queue, run.source.clone(), run.grid, run.overrides)?;
    for _ in 0..run.frames {
        session.step();
    }
    if let Some(path) = &run.screenshot {
        let camera = session.framing_camera();
        let picture = render_picture(&device, &queue, &session, &camera, run.size, DrawOptions::default())?;
        save_png(&picture, path)?;
    }
    let metrics = session.refresh_metrics()?;
    Ok(RunReport { adapter: adapter.name, frames: session.frames(), metrics })
}

/// Renders the session's current state as seen by `camera`.
pub fn render_picture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    session: &Session,
    camera: &OrbitCamera,
    [width, height]: [u32; 2],
    options: DrawOptions,
) -> Result<image::RgbaImage, Error> {
    let target = Offscreen::new(device, width, height)?;
    let mut renderer = SceneRenderer::new(device, OFFSCREEN_FORMAT, session.solver().model());
    let (markers, colliders) = (session.markers(), session.colliders());
    renderer.prepare(
        device,
        queue,
        &SceneView { camera, aspect: target.aspect(), colliders: &colliders, markers: &markers },
    );
    target.capture(device, queue, &renderer, session.solver(), options)
}
