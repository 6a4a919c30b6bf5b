//! The charts BENCHMARKS.md opens with, measured on this machine's adapter and written beside it
//! in `charts/`: time per frame against the worst p99 edge stretch over frames 53–73 for every
//! substeps × iterations setting of [`SETTINGS`] at 64² and 128² (one curve per mode, tethers on
//! and off), and time per frame against grid size at the default setting; the numbers as CSV.
//!
//! The benchmark scene (2 m × 2 m cloth, two corners pinned, a sphere under the middle,
//! dt 1/60). A frame's time is its wall-clock time with the wait for the GPU, the median of
//! frames 11–73; the stretch is read after each frame of the window, outside the timings.
//!
//! `cargo bench --bench charts` (about ten minutes on lavapipe); `DRAPE_CHART_GRIDS=64` sweeps
//! fewer grids for the first chart; `cargo bench --bench charts -- --redraw` draws the charts
//! again from the CSV files without measuring.

use drape::{GpuSolver, Scene, SceneKind, SolverMode, SolverParams, StretchReport, TetherParams};
use plotters::coord::combinators::{LogCoord, WithKeyPoints};
use plotters::prelude::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Substeps × iterations of the time-against-stretch charts.
const SETTINGS: [(u32, u32); 8] = [(5, 2), (10, 1), (10, 2), (10, 4), (10, 10), (20, 1), (20, 2), (40, 1)];
/// Grids of the time-against-size chart.
const SIZES: [u32; 6] = [32, 64, 96, 128, 192, 256];
/// Frames per run, and the window whose worst p99 stretch is reported (both included).
const FRAMES: u32 = 73;
const WINDOW: std::ops::RangeInclusive<u32> = 53..=73;
/// Frames left out of the median time (start-up).
const WARM_UP: usize = 10;

/// One run's setting and what it measured.
#[derive(Debug, Clone, Copy)]
struct Run {
    grid: u32,
    jacobi: bool,
    tethers: bool,
    substeps: u32,
    iterations: u32,
    ms: f64,
    p99: f32,
}

impl Run {
    fn series(&self) -> String {
        let mode = if self.jacobi { "Jacobi" } else { "Gauss-Seidel" };
        format!("{mode}, tethers {}", if self.tethers { "on" } else { "off" })
    }
}

fn main() {
    let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("charts");
    if std::env::args().any(|a| a == "--redraw") {
        let (adapter, settings) = read_csv(&folder.join("frame_settings.csv"));
        let (_, sizes) = read_csv(&folder.join("frame_sizes.csv"));
        draw(&folder, &settings, &sizes, &adapter);
        return;
    }
    let (device, queue, adapter) =
        drape::headless_device(Default::default()).unwrap_or_else(|e| panic!("the charts need a GPU adapter: {e}"));
    let adapter = format!("{} ({}, {:?})", adapter.name, adapter.backend, adapter.device_type);
    println!("adapter: {adapter}");
    let measure = |grid, jacobi, tethers, (substeps, iterations)| {
        let run = measure(&device, &queue, Run { grid, jacobi, tethers, substeps, iterations, ms: 0.0, p99: 0.0 });
        println!("  {grid}² {} {substeps} × {iterations}: {:.1} ms, worst p99 {:.4}", run.series(), run.ms, run.p99);
        run
    };
    std::fs::create_dir_all(&folder).expect("the charts folder");
    let mut settings = Vec::new();
    for grid in chart_grids() {
        for (jacobi, tethers) in [(false, true), (false, false), (true, true), (true, false)] {
            settings.extend(SETTINGS.map(|setting| measure(grid, jacobi, tethers, setting)));
        }
    }
    let default = SolverParams::default();
    let mut sizes = Vec::new();
    for grid in SIZES {
        for setting in [(default.substeps, default.iterations), (20, 1)] {
            sizes.push(measure(grid, false, true, setting));
        }
        sizes.push(measure(grid, true, true, (default.substeps, default.iterations)));
    }
    write_csv(&folder.join("frame_settings.csv"), &settings, &adapter);
    write_csv(&folder.join("frame_sizes.csv"), &sizes, &adapter);
    draw(&folder, &settings, &sizes, &adapter);
}

/// Draws every chart into `folder`: one time-against-stretch chart per grid of `settings`, and
/// the time-against-size chart of `sizes`.
fn draw(folder: &Path, settings: &[Run], sizes: &[Run], adapter: &str) {
    let mut grids: Vec<u32> = settings.iter().map(|r| r.grid).collect();
    grids.dedup();
    for grid in grids {
        let runs: Vec<Run> = settings.iter().filter(|r| r.grid == grid).copied().collect();
        time_against_stretch(&folder.join(format!("time_vs_stretch_{grid}.svg")), grid, &runs, adapter);
    }
    time_against_size(&folder.join("time_vs_grid.svg"), sizes, adapter);
}

fn chart_grids() -> Vec<u32> {
    std::env::var("DRAPE_CHART_GRIDS")
        .ok()
        .map(|s| s.split(',').map(|g| g.trim().parse().expect("DRAPE_CHART_GRIDS: comma-separated sizes")).collect())
        .unwrap_or_else(|| vec![64, 128])
}

/// Steps the benchmark scene `FRAMES` frames at `run`'s setting, timing each frame and reading
/// the stretch after each frame of the window.
fn measure(device: &wgpu::Device, queue: &wgpu::Queue, run: Run) -> Run {
    let scene = Scene::new(SceneKind::Benchmark, run.grid).expect("the benchmark scene");
    let mode = if run.jacobi { SolverMode::Jacobi { relaxation: 1.5 } } else { SolverMode::GaussSeidel };
    let tethers = TetherParams { enabled: run.tethers, ..scene.params.tethers };
    let params = SolverParams { substeps: run.substeps, iterations: run.iterations, mode, tethers, ..scene.params };
    let mut solver = GpuSolver::new(device, queue, &scene.model, params, &scene.colliders).expect("a solver");
    let mut times = Vec::new();
    let mut worst: Option<StretchReport> = None;
    for frame in 1..=FRAMES {
        let start = Instant::now();
        solver.step();
        device.poll(wgpu::PollType::wait_indefinitely()).expect("the device");
        times.push(start.elapsed().as_secs_f64() * 1e3);
        if WINDOW.contains(&frame) {
            let now = StretchReport::measure(&scene.model, &solver.read_positions().expect("positions"));
            worst = match (worst, now) {
                (Some(worst), Some(now)) => Some(worst.worst(now)),
                (worst, now) => worst.or(now),
            };
        }
    }
    let mut timed = times[WARM_UP..].to_vec();
    timed.sort_by(f64::total_cmp);
    let p99 = worst.map_or(f32::NAN, |w| w.all.p99);
    Run { ms: timed[timed.len() / 2], p99, ..run }
}

/// Colours of the four series, in the order they are measured.
const COLOURS: [RGBColor; 4] =
    [RGBColor(31, 119, 180), RGBColor(158, 202, 225), RGBColor(214, 39, 40), RGBColor(252, 146, 114)];

/// Time per frame (x, log) against worst p99 stretch above 1 (y, %, log), one line per series
/// through its settings in order of time, each point labelled with its setting.
fn time_against_stretch(path: &Path, grid: u32, runs: &[Run], adapter: &str) {
    let finite: Vec<&Run> = runs.iter().filter(|r| r.p99.is_finite() && r.p99 > 1.0).collect();
    let strain = |r: &Run| f64::from(r.p99 - 1.0) * 100.0;
    let axes = Axes {
        x: bounds(finite.iter().map(|r| r.ms)),
        y: bounds(finite.iter().map(|r| strain(r))),
        x_desc: format!("ms per frame ({adapter})"),
        y_desc: "worst p99 edge stretch, frames 53–73 (%)".into(),
        x_format: &|ms| format!("{ms:.0}"),
        y_format: &|strain| format!("{strain}"),
    };
    let caption = format!("{grid}² benchmark scene: time per frame against stretch");
    log_chart(path, &caption, axes, SeriesLabelPosition::LowerLeft, |chart| {
        let mut names: Vec<String> = runs.iter().map(Run::series).collect();
        names.dedup();
        for (name, colour) in names.iter().zip(COLOURS) {
            let mut series: Vec<&&Run> = finite.iter().filter(|r| r.series() == *name).collect();
            series.sort_by(|a, b| a.ms.total_cmp(&b.ms));
            line(chart, name, colour, series.iter().map(|r| (r.ms, strain(r))).collect());
            chart
                .draw_series(series.iter().map(|r| {
                    let label = format!("{}×{}", r.substeps, r.iterations);
                    Text::new(label, (r.ms, strain(r)), ("sans-serif", 11).into_font().color(&BLACK))
                }))
                .expect("labels");
        }
    });
}

/// Time per frame (y, log) against particles (x, log), one line per setting.
fn time_against_size(path: &Path, runs: &[Run], adapter: &str) {
    let particles = |r: &Run| f64::from((r.grid + 1) * (r.grid + 1));
    let axes = Axes {
        x: bounds(runs.iter().map(particles)),
        y: bounds(runs.iter().map(|r| r.ms)),
        x_desc: "particles (grid cells per side + 1, squared)".into(),
        y_desc: format!("ms per frame ({adapter})"),
        x_format: &|n| format!("{n:.0}"),
        y_format: &|ms| format!("{ms:.0}"),
    };
    let caption = "benchmark scene: time per frame against cloth size";
    log_chart(path, caption, axes, SeriesLabelPosition::UpperLeft, |chart| {
        let setting = |r: &Run| format!("{}, {}×{}", r.series(), r.substeps, r.iterations);
        let mut names: Vec<String> = runs.iter().map(setting).collect();
        names.sort();
        names.dedup();
        for (name, colour) in names.iter().zip(COLOURS) {
            let points = runs.iter().filter(|r| setting(r) == *name).map(|r| (particles(r), r.ms)).collect();
            line(chart, name, colour, points);
        }
    });
}

/// A chart whose axes are both logarithmic.
type LogChart<'a> =
    ChartContext<'a, SVGBackend<'a>, Cartesian2d<WithKeyPoints<LogCoord<f64>>, WithKeyPoints<LogCoord<f64>>>>;

/// The axes of a [`LogChart`]: each axis's data range, name and mark format.
struct Axes<'a> {
    x: (f64, f64),
    y: (f64, f64),
    x_desc: String,
    y_desc: String,
    x_format: &'a dyn Fn(&f64) -> String,
    y_format: &'a dyn Fn(&f64) -> String,
}

/// Draws an SVG chart at `path`: logarithmic axes over the data with a little room, marked at
/// 1, 2, 5, 10, …, what `draw` puts on them, and the legend at `legend`.
fn log_chart(path: &Path, caption: &str, axes: Axes, legend: SeriesLabelPosition, draw: impl FnOnce(&mut LogChart)) {
    let root = SVGBackend::new(path, (900, 600)).into_drawing_area();
    root.fill(&WHITE).expect("draw");
    let axis = |(low, high): (f64, f64)| {
        let (low, high) = (low * 0.8, high * 1.25);
        (low..high).log_scale().with_key_points(steps_of_1_2_5(low, high))
    };
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(axis(axes.x), axis(axes.y))
        .expect("a chart");
    chart
        .configure_mesh()
        .light_line_style(WHITE)
        .x_label_formatter(axes.x_format)
        .y_label_formatter(axes.y_format)
        .x_desc(axes.x_desc)
        .y_desc(axes.y_desc)
        .draw()
        .expect("the axes");
    draw(&mut chart);
    chart
        .configure_series_labels()
        .position(legend)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()
        .expect("legend");
    root.present().expect("the SVG");
}

/// A named line through `points` with a dot at each, in `colour`.
fn line(chart: &mut LogChart, name: &str, colour: RGBColor, points: Vec<(f64, f64)>) {
    chart
        .draw_series(LineSeries::new(points.clone(), colour.stroke_width(2)))
        .expect("a line")
        .label(name)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
    chart.draw_series(points.into_iter().map(|p| Circle::new(p, 4, colour.filled()))).expect("points");
}

/// The axis marks 1, 2, 5, 10, 20, 50, … between `low` and `high`.
fn steps_of_1_2_5(low: f64, high: f64) -> Vec<f64> {
    let first = 10f64.powi(low.log10().floor() as i32);
    (0..12)
        .flat_map(|decade| [1.0, 2.0, 5.0].map(|step| step * first * 10f64.powi(decade)))
        .filter(|v| (low..=high).contains(v))
        .collect()
}

/// The smallest and largest of `values`.
fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), v| (low.min(v), high.max(v)))
}

/// The adapter and the runs of a CSV file [`write_csv`] wrote.
fn read_csv(path: &Path) -> (String, Vec<Run>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let adapter = lines.next().and_then(|l| l.strip_prefix("# ")).expect("the adapter line").to_string();
    let runs = lines
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let number = |k: usize| f[k].parse::<f64>().unwrap_or_else(|e| panic!("{line}: {e}"));
            Run {
                grid: number(0) as u32,
                jacobi: f[1] == "jacobi",
                tethers: f[2] == "true",
                substeps: number(3) as u32,
                iterations: number(4) as u32,
                ms: number(5),
                p99: number(6) as f32,
            }
        })
        .collect();
    (adapter, runs)
}

fn write_csv(path: &Path, runs: &[Run], adapter: &str) {
    let mut text = format!("# {adapter}\ngrid,mode,tethers,substeps,iterations,ms_per_frame,worst_p99_53_73\n");
    for r in runs {
        let mode = if r.jacobi { "jacobi" } else { "gs" };
        let _ =
            writeln!(text, "{},{mode},{},{},{},{:.2},{:.4}", r.grid, r.tethers, r.substeps, r.iterations, r.ms, r.p99);
    }
    std::fs::write(path, text).expect("the CSV");
}
