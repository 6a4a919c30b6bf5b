//! Headless runner: steps a scene on the GPU and reports speed and physical sanity.
//!
//! `cargo run --release --example headless -- --scene hanging --grid 64 --frames 120 [--gltf FILE]
//!  [--gltf-colliders FILE] [--export out.glb|out.obj [--export-every K]]
//!  --solver gs|jacobi|mass-spring --substeps 10 --iterations 10 [--strain-limit 0.9,1.1]
//!  [--area-limit 0.8,1.05] [--directional [SLACK]]
//!  [--wind 0,0,4] [--gusts 0.4] [--rigid-damping 5] [--bending dihedral|isometric|curvature]
//!  [--springs 50,10,1] [--spring-damping 0.001] [--thickness 0.01] [--self-collision [H]]
//!  [--contacts-in-iterations] [--max-depenetration-speed 0.5] [--window A:B] [--json]`

// The report is one `serde_json::json!` object, whose macro recurses once per key.
#![recursion_limit = "256"]

use clap::{Parser, ValueEnum};
use drape::constraints::UnitType;
use drape::passes::springs::SpringKind;
use drape::{BendingModel, DispatchStrategy, GpuSolver, HeadlessOptions, Scene, SceneKind, SolverMode};
use std::num::NonZeroUsize;
use std::time::Instant;

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Solver {
    /// Coloured Gauss-Seidel.
    Gs,
    /// Jacobi with over-relaxation.
    Jacobi,
    /// The mass-spring baseline (semi-implicit Euler; --springs, --spring-damping).
    MassSpring,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Layout {
    Auto,
    Single,
    PerColour,
    Striped,
}

#[derive(Debug, Parser)]
#[command(about = "Run a drape scene headless and report timings and cloth metrics")]
struct Args {
    /// hanging, drape, free_fall, benchmark, flag, capsules, fold, stack, spin, mesh, the lab's
    /// tests cantilever and cusick (whose report adds their reading), layers (three cloths of
    /// their own fabrics, with self-collision), cape (a cloth attached to a rigid bar swinging on
    /// two ropes) or hammock (a ball dropped into a canvas pinned at its corners).
    #[arg(long, default_value = "hanging")]
    scene: SceneKind,
    /// A fabric for the scene's cloth (drape::fabric::FABRICS: silk-charmeuse, wool-suiting,
    /// polyester-knit, denim, cotton-shirting, leather-like): a membrane and hinges in its
    /// physical units. Without it, the scenes' edge model (the lab's tests: cotton-shirting; the
    /// layers: silk-charmeuse, cotton-shirting and leather-like).
    #[arg(long)]
    fabric: Option<drape::Fabric>,
    /// Grid cells per side.
    #[arg(long, default_value_t = 64)]
    grid: u32,
    /// Simulate this glTF cloth (.gltf or .glb) instead of a scene: pinned where its vertices
    /// are painted red (or by a `_PIN` attribute), its `collider*` nodes as
    /// colliders, a ground below, the default parameters.
    #[arg(long)]
    gltf: Option<std::path::PathBuf>,
    /// With --gltf: every root node of this second glTF file is a mesh collider too.
    #[arg(long, requires = "gltf")]
    gltf_colliders: Option<std::path::PathBuf>,
    /// Write the simulated frames (the rest state, then every --export-every'th frame) as one
    /// glTF animation (a .glb: a morph target per frame) or, for a path ending in .obj, as an
    /// OBJ per frame beside it (NAME_0000.obj, …). Read back outside the timings.
    #[arg(long)]
    export: Option<std::path::PathBuf>,
    /// With --export: record every this many frames.
    #[arg(long, default_value = "1", requires = "export")]
    export_every: NonZeroUsize,
    /// Frames to simulate (at least 1).
    #[arg(long, default_value = "120")]
    frames: NonZeroUsize,
    #[arg(long, value_enum, default_value = "gs")]
    solver: Solver,
    /// Jacobi over-relaxation ω.
    #[arg(long, default_value_t = 1.5)]
    relaxation: f32,
    /// Substeps per frame (default 10; the lab's tests and the layers: the scene's own, which
    /// grow where fine cells stiffen the bending, `Fabric::bending_substeps`).
    #[arg(long)]
    substeps: Option<u32>,
    /// Iterations per substep (default 10; the lab's tests and the layers: the scene's own).
    #[arg(long)]
    iterations: Option<u32>,
    /// Dispatch layout.
    #[arg(long, value_enum, default_value = "auto")]
    layout: Layout,
    /// Tethers to the pins (on by default) with this scale of their rest distance along the
    /// mesh (≥ 1).
    #[arg(long, default_value_t = 1.0)]
    tethers: f32,
    /// Turns the tethers off.
    #[arg(long, conflicts_with = "tethers")]
    no_tethers: bool,
    /// Strain limits MIN,MAX: every edge projection ends within these multiples of its rest
    /// length (off by default).
    #[arg(long, value_parser = parse_strain_limits)]
    strain_limit: Option<drape::StrainLimits>,
    /// Area limits MIN,MAX: once per substep every triangle is scaled back within these
    /// multiples of its rest area (off by default).
    #[arg(long, value_parser = parse_strain_limits)]
    area_limit: Option<drape::StrainLimits>,
    /// Turns the directional strain limit on with slack SLACK (a fraction; default 0.01): once
    /// per frame, the edges of a forest grown from the pins are shortened to at most 1 + SLACK
    /// times their rest length, pins first.
    #[arg(long, value_name = "SLACK", num_args = 0..=1)]
    directional: Option<Option<f32>>,
    /// Stretch compliance α (m/N; default 0, inextensible): with --strain-limit, a stretchy
    /// material with a hard bound.
    #[arg(long)]
    stretch_compliance: Option<f32>,
    /// Wind X,Y,Z in m/s: turns the air on (drag and lift on every triangle) with this wind,
    /// in place of the scene's.
    #[arg(long, value_parser = parse_vector)]
    wind: Option<glam::Vec3>,
    /// Gusts STRENGTH[,FREQUENCY]: the wind varies by ±STRENGTH (0–1) about FREQUENCY times a
    /// second (default 0.5 Hz). Needs air: the flag scene's or --wind.
    #[arg(long, value_parser = parse_gusts)]
    gusts: Option<drape::Gusts>,
    /// Damping of the motion relative to the cloth's rigid motion, in 1/s (PBD §3.5; default 0,
    /// off): keeps momentum and angular momentum while calming wrinkles and flutter.
    #[arg(long, default_value_t = 0.0)]
    rigid_damping: f32,
    /// Project the collider contacts inside every iteration (PBD Alg. 1 line 10) as well as
    /// in finalize (SolverParams::contacts_in_iterations).
    #[arg(long)]
    contacts_in_iterations: bool,
    /// The most speed a push out of a collider may give a particle, m/s (default 0.5; `inf`:
    /// unbounded; SolverParams::max_depenetration_speed).
    #[arg(long, default_value_t = 0.5)]
    max_depenetration_speed: f32,
    /// The bending model: dihedral (hinge angles, keeps any rest shape), isometric (Bergou et
    /// al.'s quadratic energy, for cloth that barely stretches) or curvature (each triangle's
    /// curvature, for a cloth with a bending rigidity). Default: the cloth's own (dihedral, or
    /// curvature for a fabric).
    #[arg(long)]
    bending: Option<BendingModel>,
    /// Frames A:B (counted from 1, both included) over which to report the worst stretch
    /// statistics (read back after each of those frames, outside the timings).
    #[arg(long, value_parser = parse_window)]
    window: Option<(usize, usize)>,
    /// Mass-spring: the structural, shear and flexion spring constants STRUCTURAL,SHEAR,FLEXION
    /// in N/m (default 50,10,1).
    #[arg(long, value_parser = parse_vector)]
    springs: Option<glam::Vec3>,
    /// Mass-spring: each spring's damping in N·s/m (default 0.001).
    #[arg(long)]
    spring_damping: Option<f32>,
    /// Cloth thickness h (m) of the self-contact measures: `min_self_distance` is the smallest
    /// distance between particles at least h apart at rest, among those closer than h (none:
    /// null).
    #[arg(long, default_value_t = 0.01, value_parser = positive_length)]
    thickness: f32,
    /// Turns self-collision on with thickness H in m (default: --thickness, which then also
    /// measures with H).
    #[arg(long, value_name = "H", num_args = 0..=1, value_parser = positive_length)]
    self_collision: Option<Option<f32>>,
    /// Make the scene's cloths one cloth of the same mesh, pins and material (the fabric given
    /// with `--fabric`, or the edge model): what several cloths cost beside one of the same
    /// size (BENCHMARKS.md).
    #[arg(long)]
    one_cloth: bool,
    /// Replace the scene's bodies by this many balls (r = 5 cm, 100 kg/m³) in a row above the
    /// cloth's rest shape (0: none): what bodies cost beside the same cloth without
    /// (BENCHMARKS.md).
    #[arg(long)]
    balls: Option<u32>,
    /// Time every pass on the GPU (each run of a pass's dispatches in a compute pass of its own,
    /// between two timestamps) and report each pass's median milliseconds per frame.
    #[arg(long)]
    profile: bool,
    /// With `--profile`, time each kernel (WGSL entry point) instead of each pass.
    #[arg(long, requires = "profile")]
    by_kernel: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// A finite length > 0 (m).
fn positive_length(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(h) if h.is_finite() && h > 0.0 => Ok(h),
        _ => Err(format!("`{text}` is not a finite length > 0")),
    }
}

fn main() {
    let args = Args::parse();
    if let Err(e) = run(&args) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run(args: &Args) -> Result<(), drape::Error> {
    let (device, queue, adapter) = drape::headless_device(HeadlessOptions { timestamps: true })?;
    let mut scene = match &args.gltf {
        Some(path) => gltf_scene(path, args.gltf_colliders.as_deref(), args.fabric.as_ref())?,
        None => match &args.fabric {
            Some(fabric) => Scene::with_fabric(args.scene, args.grid, fabric)?,
            None => Scene::new(args.scene, args.grid)?,
        },
    };
    if args.one_cloth {
        if scene.fabric.is_none() && scene.model.constraints().membrane.materials().len() > 1 {
            let expected = "cloths of one material: give --fabric";
            return Err(drape::ParamError { name: "one_cloth", value: "several fabrics".into(), expected }.into());
        }
        scene.model = one_cloth(&scene.model, scene.fabric.as_ref())?;
    }
    if let Some(bending) = args.bending {
        scene.model = scene.model.with_bending_model(bending)?;
    }
    let own_steps = scene.kind.sets_its_steps();
    let params = drape::SolverParams {
        substeps: args.substeps.unwrap_or(if own_steps { scene.params.substeps } else { 10 }),
        iterations: args.iterations.unwrap_or(if own_steps { scene.params.iterations } else { 10 }),
        mode: match args.solver {
            Solver::Gs => SolverMode::GaussSeidel,
            Solver::Jacobi => SolverMode::Jacobi { relaxation: args.relaxation },
            Solver::MassSpring => SolverMode::MassSpring(mass_spring(args)),
        },
        tethers: drape::TetherParams { enabled: !args.no_tethers, scale: args.tethers, ..scene.params.tethers },
        strain_limits: args.strain_limit,
        area_limits: args.area_limit,
        directional: args
            .directional
            .map(|slack| slack.map_or_else(Default::default, |slack| drape::DirectionalLimit { slack })),
        stretch: args.stretch_compliance.map_or(scene.params.stretch, drape::Stiffness::Compliance),
        aerodynamics: air(args, scene.params.aerodynamics)?,
        rigid_damping: args.rigid_damping,
        contacts_in_iterations: args.contacts_in_iterations,
        max_depenetration_speed: args.max_depenetration_speed,
        self_collision: args
            .self_collision
            .map(|h| drape::SelfCollision::new(h.unwrap_or(args.thickness)))
            .or(scene.params.self_collision),
        ..scene.params
    };
    let thickness = params.self_collision.map_or(args.thickness, |s| s.thickness);
    let mut solver = GpuSolver::new(&device, &queue, &scene.model, params, &scene.colliders)?;
    match args.balls {
        Some(count) => {
            solver.attach_many(&scene.objects.attachments)?;
            solver.set_bodies(&balls_over(&scene.model, count))?;
        }
        None => scene.objects.make(&mut solver)?,
    }
    solver.set_dispatch(match args.layout {
        Layout::Auto => DispatchStrategy::Auto,
        Layout::Single => DispatchStrategy::SingleWorkgroup,
        Layout::PerColour => DispatchStrategy::PerColour,
        Layout::Striped => DispatchStrategy::Striped,
    })?;
    solver.set_profiling(args.profile)?;
    if args.by_kernel {
        solver.set_profile_by(drape::gpu::ProfileBy::Kernel)?;
    }
    let frames = args.frames.get();
    let timer = GpuTimer::new(&device, &queue, frames);
    let mut profiles = Vec::new();
    let mut wall_ms = Vec::with_capacity(frames);
    let mut window_stretch: Option<drape::StretchReport> = None;
    let every = args.export_every.get();
    let mut recorder = match &args.export {
        Some(_) => Some(drape::AnimationRecorder::new(scene.model.mesh(), every as f32 * params.time_step)?),
        None => None,
    };
    if let Some(recorder) = &mut recorder {
        recorder.record(&solver.read_positions()?)?;
    }
    for frame in 0..frames {
        let start = Instant::now();
        let mut encoder = device.create_command_encoder(&Default::default());
        if let Some(poses) = scene.collider_poses((frame + 1) as f32 * params.time_step)? {
            solver.set_collider_poses(&poses)?;
        }
        let timed = timer.as_ref().filter(|t| frame < t.frames);
        if let Some(t) = timed {
            encoder.write_timestamp(&t.queries, 2 * frame as u32);
        }
        solver.encode_step(&mut encoder);
        if let Some(t) = timed {
            encoder.write_timestamp(&t.queries, 2 * frame as u32 + 1);
        }
        queue.submit([encoder.finish()]);
        device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| drape::Error::Device(e.to_string()))?;
        wall_ms.push(start.elapsed().as_secs_f64() * 1e3);
        if args.profile {
            profiles.push(read_profile(&device, &mut solver)?);
        }
        if let Some(recorder) = recorder.as_mut().filter(|_| (frame + 1) % every == 0) {
            recorder.record(&solver.read_positions()?)?;
        }
        if args.window.is_some_and(|(first, last)| (first..=last).contains(&(frame + 1))) {
            let stretch = drape::StretchReport::measure(&scene.model, &solver.read_positions()?);
            window_stretch = match (window_stretch, stretch) {
                (Some(worst), Some(now)) => Some(worst.worst(now)),
                (worst, now) => worst.or(now),
            };
        }
    }
    let gpu_ms = timer.map(|t| t.read(&device, &queue)).transpose()?;
    let exported = match (&recorder, &args.export) {
        (Some(recorder), Some(path)) => Some(export(recorder, path)?),
        _ => None,
    };
    let metrics = solver.metrics()?;
    let positions = solver.read_positions()?;
    let self_intersections = drape::metrics::self_intersections(scene.model.mesh(), &positions);
    let min_self_distance = drape::metrics::min_self_distance(scene.model.mesh(), &positions, thickness);
    let warm_up = (frames / 10).clamp(1, 10).min(frames - 1);
    let wall = Stats::of(&wall_ms[warm_up..]);
    let gpu_ms_count = gpu_ms.as_ref().map(Vec::len);
    let gpu = gpu_ms.map(|ms| Stats::of(&ms[warm_up..]));
    let model = &scene.model;
    let profile = args.profile.then(|| profile_json(&profiles[warm_up..]));
    let report = serde_json::json!({
        "adapter": adapter.name,
        "backend": adapter.backend.to_string(),
        "scene": if args.gltf.is_some() { "gltf" } else { args.scene.name() },
        "fabric": scene.fabric.map(|f| f.name),
        "lab": lab_json(&scene, &positions, params.gravity.length()),
        "membrane_triangles": model.constraints().membrane.len(),
        "cloths": cloths_json(model, &positions, params.self_collision),
        "bodies": bodies_json(&solver.read_bodies()?),
        "exported_frames": exported,
        "grid": args.grid,
        "frames": args.frames,
        "solver": args.solver.to_possible_value().map(|v| v.get_name().to_string()),
        "layout": format!("{:?}", solver.dispatch_strategy()),
        "substeps": params.substeps,
        "iterations": params.mode.projects().then_some(params.iterations),
        "tethers": params.tethers_active().then_some(params.tethers.scale),
        "strain_limit": params.strain_limits.map(|l| [l.min, l.max]),
        "area_limit": params.active_area_limits().map(|l| [l.min, l.max]),
        "directional_slack": params.active_directional().map(|l| l.slack),
        "stretch_compliance": args.stretch_compliance,
        "rigid_damping": params.rigid_damping,
        "contacts_in_iterations": params.contacts_in_iterations,
        "max_depenetration_speed": params.max_depenetration_speed.is_finite().then_some(params.max_depenetration_speed),
        "wind": params.aerodynamics.map(|a| a.wind.to_array()),
        "mass_spring": mass_spring_report(&params, &solver),
        "gusts": params.aerodynamics.filter(|a| a.gusts.strength > 0.0).map(|a| [a.gusts.strength, a.gusts.frequency]),
        "particles": model.particle_count(),
        "stretch_constraints": model.constraints().stretch.len(),
        "free_edges": model.units(UnitType::FreeEdge).len(),
        "free_edge_colours": model.colour_count(UnitType::FreeEdge),
        "bending": model.bending_model().name(),
        "bending_constraints": model.constraints().bending.len() + model.constraints().isometric.len()
            + model.constraints().curvature.len(),
        "hinge_colours": model.colour_count(UnitType::Hinge) + model.colour_count(UnitType::IsometricHinge),
        "curvature_colours": model.colour_count(UnitType::Curvature),
        "shell_colours": model.colour_count(UnitType::Shell),
        "stripes_per_phase": model.schedule().phases.each_ref().map(|p| p.stripes.len()),
        "stripes_in_workgroup": solver.stripes_in_workgroup(),
        "dispatches_per_frame": solver.dispatches_per_frame(),
        "gpu_memory_bytes": solver.allocated_bytes(),
        "gpu_memory_by_buffer": solver.allocated_bytes_by_buffer().into_iter().map(|(name, bytes)| (name.to_string(), bytes.into())).collect::<serde_json::Map<_, _>>(),
        "wall_ms": wall.json(),
        "gpu_ms": gpu.map(|g| g.json()),
        "gpu_timed_frames": gpu_ms_count,
        "profile": profile,
        "max_stretch": metrics.max_stretch,
        "mean_stretch": metrics.mean_stretch,
        "stretch": drape::StretchReport::measure(model, &positions).map(stretch_json),
        "window": args.window.map(|(a, b)| [a, b]),
        "window_stretch": window_stretch.map(stretch_json),
        "area_ratio_range": metrics.area_ratio_range,
        "min_collider_distance": if metrics.min_collider_distance.is_finite() { Some(metrics.min_collider_distance) } else { None },
        "centre_of_mass": metrics.centre_of_mass.to_array(),
        "kinetic_energy": metrics.kinetic_energy,
        "non_finite": metrics.non_finite,
        "collider_overflows": metrics.overflows.colliders,
        "self_collision": params.self_collision.is_some(),
        "self_contact_overflows": metrics.overflows.self_contacts,
        "bodies_cut_short": metrics.overflows.bodies,
        "thickness": thickness,
        "self_intersections": self_intersections,
        "min_self_distance": min_self_distance.is_finite().then_some(min_self_distance),
    });
    if args.json {
        println!("{report}");
    } else {
        print_text(&report);
    }
    Ok(())
}

/// The profile of the frame just submitted (waits for the GPU: outside the timings).
fn read_profile(device: &wgpu::Device, solver: &mut GpuSolver) -> Result<drape::gpu::FrameProfile, drape::Error> {
    loop {
        if let Some(profile) = solver.poll_profile()? {
            return Ok(profile);
        }
        device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| drape::Error::Readback(e.to_string()))?;
    }
}

/// Each pass's dispatches and median milliseconds per frame over `profiles`, and the median of
/// their sums.
fn profile_json(profiles: &[drape::gpu::FrameProfile]) -> serde_json::Value {
    let median = |mut values: Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    let passes: Vec<serde_json::Value> = profiles[0]
        .passes
        .iter()
        .enumerate()
        .map(|(i, pass)| {
            let ms = median(profiles.iter().map(|p| p.passes[i].ms).collect());
            serde_json::json!({ "pass": pass.pass, "dispatches": pass.dispatches, "ms": ms })
        })
        .collect();
    serde_json::json!({
        "passes": passes,
        "total_ms": median(profiles.iter().map(drape::gpu::FrameProfile::total_ms).collect()),
    })
}

/// The spring constants asked for, over the defaults.
fn stretch_json(report: drape::StretchReport) -> serde_json::Value {
    let stats = |s: drape::StretchStats| serde_json::json!({ "max": s.max, "p99": s.p99, "p99.9": s.p999, "mean_positive_strain": s.mean_positive_strain });
    serde_json::json!({
        "all": stats(report.all),
        "warp_weft": report.warp_weft.map(stats),
        "shear": report.shear.map(stats),
    })
}

fn parse_window(s: &str) -> Result<(usize, usize), String> {
    let (first, last) = s.split_once(':').ok_or("expected A:B")?;
    let number = |v: &str| v.trim().parse::<usize>().map_err(|e| format!("`{v}`: {e}"));
    match (number(first)?, number(last)?) {
        (first, last) if first >= 1 && first <= last => Ok((first, last)),
        _ => Err("expected frames 1 ≤ A ≤ B".into()),
    }
}

fn mass_spring(args: &Args) -> drape::MassSpringParams {
    let defaults = drape::MassSpringParams::default();
    let [structural, shear, flexion] =
        args.springs.map_or([defaults.structural, defaults.shear, defaults.flexion], |k| k.to_array());
    drape::MassSpringParams { structural, shear, flexion, damping: args.spring_damping.unwrap_or(defaults.damping) }
}

/// The springs of a mass-spring run: constants, counts and stability.
fn mass_spring_report(params: &drape::SolverParams, solver: &GpuSolver) -> serde_json::Value {
    let SolverMode::MassSpring(springs) = params.mode else {
        return serde_json::Value::Null;
    };
    let network = solver.spring_network().expect("built for mass-spring mode");
    serde_json::json!({
        "constants": springs.gpu_constants(),
        "springs": SpringKind::ALL.map(|kind| network.count(kind)),
        "stability_number": network.stability_number(&springs, params.substep_dt()),
        "min_stable_substeps": network.min_stable_substeps(&springs, params.time_step, drape::params::MAX_SUBSTEPS),
    })
}

/// `count` balls (r = 5 cm, 100 kg/m³) in a row along x over the middle of `model`'s rest shape,
/// 0.3 m above its top.
fn balls_over(model: &drape::ClothModel, count: u32) -> Vec<drape::RigidBody> {
    let (low, high) = drape::math::bounding_box(&model.mesh().positions);
    let (radius, center) = (0.05, 0.5 * (low + high));
    (0..count)
        .map(|k| {
            let x = center.x + (k as f32 - 0.5 * (count as f32 - 1.0)) * 3.0 * radius;
            let pose = drape::Pose { translation: glam::Vec3::new(x, high.y + 0.3, center.z), ..drape::Pose::IDENTITY };
            drape::RigidBody::new(drape::BodyShape::Sphere { radius }, drape::BodyMass::Density(100.0), pose)
        })
        .collect()
}

/// Each rigid body where the run left it: its centre (m), its speed (m/s) and the particles
/// touching it in the last substep.
fn bodies_json(bodies: &[drape::BodyState]) -> serde_json::Value {
    let body = |b: &drape::BodyState| {
        serde_json::json!({
            "center_m": b.position.to_array(),
            "speed_m_s": b.velocity.length(),
            "contacts": b.contacts,
        })
    };
    bodies.iter().map(body).collect()
}

/// Writes the recorded frames to `path`: a glTF animation, or an OBJ sequence for a path
/// ending in `.obj`; the frames written.
fn export(recorder: &drape::AnimationRecorder, path: &std::path::Path) -> Result<usize, drape::Error> {
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("obj")) {
        return Ok(recorder.write_obj_sequence(path)?.len());
    }
    recorder.write_glb(path)?;
    Ok(recorder.frame_count())
}

/// The cloth of a glTF file as a scene, with the colliders of a second file (its kind names
/// nothing: the report says "gltf").
fn gltf_scene(
    path: &std::path::Path,
    colliders: Option<&std::path::Path>,
    fabric: Option<&drape::Fabric>,
) -> Result<Scene, drape::Error> {
    let mut cloth = drape::GltfCloth::load(path)?;
    if let Some(file) = colliders {
        cloth.colliders.extend(drape::gltf_input::load_colliders(file)?);
    }
    let model = cloth.model(drape::model::DEFAULT_DENSITY)?;
    let model = match fabric {
        Some(fabric) => model.refit_to(fabric)?,
        None => model,
    };
    let colliders = cloth.colliders_with_ground();
    let params = drape::SolverParams::default();
    Ok(Scene {
        kind: SceneKind::Hanging,
        model,
        params,
        colliders,
        spins: Vec::new(),
        objects: drape::SceneObjects::default(),
        fabric: fabric.copied(),
    })
}

/// `model`'s mesh and pins as one cloth of `fabric`, or of the edge model.
fn one_cloth(model: &drape::ClothModel, fabric: Option<&drape::Fabric>) -> Result<drape::ClothModel, drape::Error> {
    let (mesh, pins) = (model.mesh().clone(), model.pins());
    match fabric {
        Some(fabric) => drape::ClothModel::from_fabric(mesh, fabric, &pins),
        None => drape::ClothModel::new(mesh, drape::model::DEFAULT_DENSITY, &pins),
    }
}

/// Each cloth of the model by its range: its particles, its triangles, where its centre of mass
/// and its highest point ended (m), and its thickness and friction in self-collision (its own, or
/// the solver's; `null` while off).
fn cloths_json(
    model: &drape::ClothModel,
    positions: &[glam::Vec3],
    self_collision: Option<drape::SelfCollision>,
) -> Vec<serde_json::Value> {
    let masses = model.masses();
    model
        .cloths()
        .iter()
        .map(|cloth| {
            let range = cloth.indices();
            let mass: f32 = masses[range.clone()].iter().sum();
            let centre = range.clone().map(|i| positions[i] * masses[i]).sum::<glam::Vec3>() / mass;
            let top = range.map(|i| positions[i].y).fold(f32::NEG_INFINITY, f32::max);
            let contact = self_collision.map(|own| cloth.contact.unwrap_or(own));
            serde_json::json!({
                "particles": cloth.particles.len(),
                "triangles": cloth.triangles.len(),
                "centre_of_mass_m": centre.to_array(),
                "top_m": top,
                "thickness_m": contact.map(|c| c.thickness),
                "friction": contact.map(|c| c.friction),
            })
        })
        .collect()
}

/// The reading of the lab's test the scene is, `null` for the other scenes.
fn lab_json(scene: &Scene, positions: &[glam::Vec3], gravity: f32) -> serde_json::Value {
    match (scene.kind, scene.fabric) {
        (SceneKind::Cantilever, Some(fabric)) => match drape::lab::cantilever_reading(&scene.model, positions, gravity)
        {
            Some(reading) => serde_json::json!({
                "overhang_m": reading.overhang,
                "tip_angle_deg": reading.tip_angle.to_degrees(),
                "bending_length_m": reading.bending_length,
                "rigidity_uNm": reading.rigidity * 1e6,
                "fabric_rigidity_uNm": fabric.bending.warp * 1e6,
            }),
            None => serde_json::json!({ "fabric_rigidity_uNm": fabric.bending.warp * 1e6 }),
        },
        (SceneKind::Cusick, Some(fabric)) => {
            let reading = drape::lab::drape_reading(&scene.model, positions);
            serde_json::json!({
                "drape_coefficient": reading.coefficient,
                "nodes": reading.nodes,
                "resolving_cells": drape::lab::cusick_cells(&fabric, gravity),
            })
        }
        _ => serde_json::Value::Null,
    }
}

/// The scene's air with the wind and gusts asked for; `--gusts` without any air is an error.
fn air(args: &Args, scene: Option<drape::Aerodynamics>) -> Result<Option<drape::Aerodynamics>, drape::Error> {
    let air = match (args.wind, scene) {
        (Some(wind), scene) => Some(drape::Aerodynamics { wind, ..scene.unwrap_or_default() }),
        (None, scene) => scene,
    };
    match (air, args.gusts) {
        (Some(air), Some(gusts)) => Ok(Some(drape::Aerodynamics { gusts, ..air })),
        (None, Some(gusts)) => Err(drape::ParamError {
            name: "gusts",
            value: format!("{gusts:?}"),
            expected: "air to blow in: the flag scene or --wind",
        }
        .into()),
        (air, None) => Ok(air),
    }
}

/// `X,Y,Z` as a vector.
fn parse_vector(s: &str) -> Result<glam::Vec3, String> {
    let values: Vec<f32> =
        s.split(',').map(|v| v.trim().parse::<f32>().map_err(|e| format!("`{v}`: {e}"))).collect::<Result<_, _>>()?;
    match values[..] {
        [x, y, z] => Ok(glam::Vec3::new(x, y, z)),
        _ => Err("expected X,Y,Z".into()),
    }
}

/// `STRENGTH[,FREQUENCY]` as gusts (validated with the other parameters).
fn parse_gusts(s: &str) -> Result<drape::Gusts, String> {
    let number = |v: &str| v.trim().parse::<f32>().map_err(|e| format!("`{v}`: {e}"));
    Ok(match s.split_once(',') {
        Some((strength, frequency)) => drape::Gusts { strength: number(strength)?, frequency: number(frequency)? },
        None => drape::Gusts { strength: number(s)?, ..drape::Gusts::default() },
    })
}

/// `MIN,MAX` as strain or area limits (validated with the other parameters).
fn parse_strain_limits(s: &str) -> Result<drape::StrainLimits, String> {
    let (min, max) = s.split_once(',').ok_or("expected MIN,MAX")?;
    let number = |v: &str| v.trim().parse::<f32>().map_err(|e| format!("`{v}`: {e}"));
    Ok(drape::StrainLimits { min: number(min)?, max: number(max)? })
}

fn print_text(report: &serde_json::Value) {
    let r = report.as_object().expect("an object");
    for (key, value) in r.iter().filter(|(key, _)| *key != "profile") {
        println!("{key:>22}: {value}");
    }
    if let Some(profile) = r.get("profile").filter(|p| !p.is_null()) {
        print_profile(profile);
    }
}

/// The profile as a table: each pass's dispatches, milliseconds and share of the frame.
fn print_profile(profile: &serde_json::Value) {
    let total = profile["total_ms"].as_f64().unwrap_or(0.0);
    println!("\n{:<22} {:>10} {:>10} {:>7}", "pass", "dispatches", "ms/frame", "share");
    for pass in profile["passes"].as_array().into_iter().flatten() {
        let ms = pass["ms"].as_f64().unwrap_or(0.0);
        let share = if total > 0.0 { 100.0 * ms / total } else { 0.0 };
        let (name, dispatches) = (pass["pass"].as_str().unwrap_or("?"), pass["dispatches"].as_u64().unwrap_or(0));
        println!("{name:<22} {dispatches:>10} {ms:>10.3} {share:>6.1}%");
    }
    println!("{:<22} {:>10} {:>10.3}", "total", "", total);
}

/// Median, minimum and maximum of a series of frame times.
struct Stats {
    median: f64,
    min: f64,
    max: f64,
}

impl Stats {
    fn of(samples: &[f64]) -> Self {
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        Self { median: sorted[sorted.len() / 2], min: sorted[0], max: sorted[sorted.len() - 1] }
    }

    fn json(&self) -> serde_json::Value {
        serde_json::json!({ "median": self.median, "min": self.min, "max": self.max })
    }
}

/// Frames with GPU timestamps: the first 2048 (a query set holds at most 4096 queries).
const MAX_TIMED_FRAMES: usize = 2048;

/// GPU timestamps around each of the first `frames` frames (at most [`MAX_TIMED_FRAMES`]), when
/// the device has timestamp queries in encoders.
struct GpuTimer {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    period_ns: f32,
    frames: usize,
}

impl GpuTimer {
    fn new(device: &wgpu::Device, queue: &wgpu::Queue, frames: usize) -> Option<Self> {
        if !device.features().contains(drape::gpu::TIMESTAMP_FEATURES) {
            return None;
        }
        let frames = frames.min(MAX_TIMED_FRAMES);
        let count = 2 * frames as u32;
        Some(Self {
            queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("frame timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count,
            }),
            resolve: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamp resolve"),
                size: 8 * u64::from(count),
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            period_ns: queue.get_timestamp_period(),
            frames,
        })
    }

    /// GPU milliseconds of every frame.
    fn read(self, device: &wgpu::Device, queue: &wgpu::Queue) -> Result<Vec<f64>, drape::Error> {
        let size = self.resolve.size();
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("timestamp readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        encoder.resolve_query_set(&self.queries, 0..2 * self.frames as u32, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &staging, 0, size);
        queue.submit([encoder.finish()]);
        staging.slice(..).map_async(wgpu::MapMode::Read, |_| {});
        device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| drape::Error::Readback(e.to_string()))?;
        let view = staging.slice(..).get_mapped_range().map_err(|e| drape::Error::Readback(e.to_string()))?;
        let ticks: &[u64] = bytemuck::cast_slice(&view);
        Ok(ticks.chunks_exact(2).map(|t| t[1].wrapping_sub(t[0]) as f64 * f64::from(self.period_ns) / 1e6).collect())
    }
}
