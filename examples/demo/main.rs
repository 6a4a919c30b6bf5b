//! The drape demo: a window with the cloth, an egui panel and mouse interaction, or — with
//! `--headless`, or on a machine without a display — a PNG screenshot rendered offscreen
//! (`drape.png` in the working folder when there is no display and no `--headless`).
//!
//! ```sh
//! cargo run --release --example demo                      # window, drape scene, cotton shirting
//! cargo run --release --example demo -- --obj cloth.obj  # your own cloth
//! cargo run --release --example demo -- --gltf cloth.glb  # pinned where painted
//! cargo run --release --example demo -- --fabric denim    # another fabric
//! cargo run --release --example demo -- --fabric edges    # the scene's own edge model
//! cargo run --release --example demo -- --headless --scene drape --frames 120 --screenshot out.png
//! ```

use clap::{Parser, ValueEnum};
use drape::viewer::session::DEFAULT_RELAXATION;
use drape::viewer::{run_headless, run_window, ClothSource, HeadlessRun, ParamOverrides, WindowRun};
use drape::{BendingModel, SceneKind, SolverMode};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Solver {
    /// Coloured Gauss-Seidel.
    Gs,
    /// Jacobi with over-relaxation (--relaxation).
    Jacobi,
    /// The mass-spring baseline, with the fewest substeps its springs are stable at unless
    /// --substeps says otherwise.
    MassSpring,
}

#[derive(Debug, Parser)]
#[command(about = "drape cloth demo: a window with controls, or a headless screenshot")]
struct Args {
    /// Library scene: hanging, drape, free_fall, benchmark, flag, capsules, fold, stack, spin,
    /// mesh, or the lab's tests cantilever and cusick.
    #[arg(long, default_value = "drape")]
    scene: SceneKind,
    /// The cloth's fabric (silk-charmeuse, wool-suiting, polyester-knit, denim,
    /// cotton-shirting, leather-like): a membrane and curvature bending in its physical units; or
    /// `edges`, each cloth's own edge model (stiffened by the parameters). Default: cotton
    /// shirting for the scenes (the layers: each cloth its own fabric); an OBJ or glTF cloth
    /// keeps its own material (its maps).
    #[arg(long)]
    fabric: Option<drape::FabricChoice>,
    /// Simulate this OBJ cloth instead (its top-most vertices are pinned).
    #[arg(long, conflicts_with = "gltf")]
    obj: Option<PathBuf>,
    /// Simulate this glTF cloth (.gltf or .glb) instead: pinned where its vertices are painted
    /// red (or by a `_PIN` attribute), its `collider*` nodes as colliders.
    #[arg(long)]
    gltf: Option<PathBuf>,
    /// Grid cells per side of library scenes.
    #[arg(long, default_value_t = 48)]
    grid: u32,
    /// Solver mode (default: the scene's, coloured Gauss-Seidel).
    #[arg(long, value_enum)]
    solver: Option<Solver>,
    /// Jacobi over-relaxation ω (default 1.5), also used when switching to Jacobi later.
    #[arg(long)]
    relaxation: Option<f32>,
    /// Substeps per frame.
    #[arg(long)]
    substeps: Option<u32>,
    /// Iterations per substep.
    #[arg(long)]
    iterations: Option<u32>,
    /// Bending model of the cloth: dihedral, isometric or curvature (a fabric's; needs a
    /// bending rigidity). Default: the cloth's own (dihedral, or curvature for a fabric).
    #[arg(long)]
    bending: Option<BendingModel>,
    /// Frame time step in seconds.
    #[arg(long)]
    dt: Option<f32>,
    /// Exit after this many simulated frames (headless default: 120).
    #[arg(long)]
    frames: Option<u64>,
    /// Render offscreen, without a window or display.
    #[arg(long)]
    headless: bool,
    /// With --headless: write the last frame to this PNG.
    #[arg(long, requires = "headless")]
    screenshot: Option<PathBuf>,
    /// Window or picture width in pixels.
    #[arg(long, default_value_t = 1280)]
    width: u32,
    /// Window or picture height in pixels.
    #[arg(long, default_value_t = 800)]
    height: u32,
}

/// Where the demo draws its picture on a machine without a display (the working folder).
const NO_DISPLAY_PICTURE: &str = "drape.png";

/// Whether a window can open: on Linux and the BSDs, an X or Wayland display is named; other
/// systems always have one.
fn has_display() -> bool {
    if cfg!(any(target_os = "macos", target_os = "windows")) {
        return true;
    }
    ["DISPLAY", "WAYLAND_DISPLAY"].iter().any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()))
}

fn main() -> ExitCode {
    let args = Args::parse();
    let file = match (&args.obj, &args.gltf) {
        (Some(path), _) => Some(ClothSource::Obj(path.clone())),
        (None, Some(path)) => Some(ClothSource::Gltf(path.clone())),
        (None, None) => None,
    };
    let source = file.clone().unwrap_or(ClothSource::Scene(args.scene));
    let overrides = ParamOverrides {
        time_step: args.dt,
        substeps: args.substeps,
        iterations: args.iterations,
        mode: args.solver.map(|solver| match solver {
            Solver::Gs => SolverMode::GaussSeidel,
            Solver::Jacobi => SolverMode::Jacobi { relaxation: DEFAULT_RELAXATION },
            Solver::MassSpring => SolverMode::MassSpring(drape::MassSpringParams::default()),
        }),
        relaxation: args.relaxation,
        bending: args.bending,
        fabric: args.fabric.map_or(if file.is_some() { None } else { args.scene.default_fabric() }, |choice| choice.0),
    };
    let size = [args.width, args.height];
    let offscreen = args.headless || !has_display();
    let screenshot = if offscreen && !args.headless {
        let frames = args.frames.unwrap_or(120);
        println!("no display (DISPLAY and WAYLAND_DISPLAY are unset): rendering {frames} frames offscreen instead");
        Some(PathBuf::from(NO_DISPLAY_PICTURE))
    } else {
        args.screenshot.clone()
    };
    let outcome = if offscreen {
        run_headless(&HeadlessRun {
            source,
            grid: args.grid,
            overrides,
            frames: args.frames.unwrap_or(120),
            screenshot: screenshot.clone(),
            size,
        })
    } else {
        run_window(WindowRun { source, grid: args.grid, overrides, frames: args.frames, size, file })
    };
    match outcome {
        Ok(report) => {
            println!("{report}");
            if let Some(path) = screenshot {
                println!("screenshot: {}", path.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
