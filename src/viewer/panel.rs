//! The demo's egui side panel: scene, solver and material settings, run controls and live
//! statistics. It only reads the session and returns what the user asked for.

use super::controls::Command;
use super::renderer::DrawOptions;
use super::session::{ClothSource, Session, DROPPED_SHAPES};
use super::settings::{horizontal_wind, with_horizontal_wind, GRID_CELLS, WIND_SPEEDS};
use crate::bodies::BodyShape;
use crate::constraints::stretch::StrainLimits;
use crate::constraints::{BendingModel, StretchModel, UnitType};
use crate::fabric::{Fabric, FabricChoice, FABRICS};
use crate::params::{MassSpringParams, SolverMode, SolverParams, Stiffness, MAX_ITERATIONS, MAX_SUBSTEPS};
use crate::passes::springs::SpringKind;
use crate::scene::SceneKind;
use std::collections::VecDeque;

/// What the user asked for this frame.
#[derive(Debug, Clone, PartialEq)]
pub enum PanelAction {
    /// Switch to another cloth (source, grid cells per side).
    Load(ClothSource, u32),
    /// New solver parameters.
    SetParams(SolverParams),
    /// Switch the solver mode (into mass-spring with substeps enough for its springs).
    SetMode(SolverMode),
    /// Rebuild the cloth with this bending model.
    SetBending(BendingModel),
    /// Rebuild the cloth of this fabric (`None`: each cloth's own).
    SetFabric(Option<Fabric>),
    /// What a key could also ask for: pause, step, reset.
    Run(Command),
    /// Time each pass on the GPU, or stop.
    SetProfiling(bool),
    /// Start recording the frames, or stop and write them as a glTF animation.
    Record(bool),
    /// Drop a body of this shape onto the cloth ([`Session::drop_body`]).
    DropBody(BodyShape),
    /// Remove every body ([`Session::remove_bodies`]).
    RemoveBodies,
}

/// Panel state that lives between frames.
#[derive(Debug, Clone)]
pub struct PanelState {
    /// Grid cells per side for library scenes (applied with the scene).
    pub grid: u32,
    /// The OBJ or glTF file given on the command line, offered as a scene.
    pub file: Option<ClothSource>,
    /// The last error to show (e.g. a rejected parameter).
    pub message: Option<String>,
    /// Window frames per second.
    pub fps: f32,
    /// What to draw.
    pub draw: DrawOptions,
    /// The frame time and max stretch of the last seconds, for the live plot.
    pub history: History,
}

/// The frame time and max stretch of the last [`History::SECONDS`], sampled every window frame,
/// for the statistics' live plot.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    /// (seconds since any fixed instant, ms per frame, max stretch where measured), oldest first.
    samples: VecDeque<(f64, f64, Option<f32>)>,
}

impl History {
    /// How far back the plot reaches.
    pub const SECONDS: f64 = 10.0;

    /// Adds a sample taken `at` seconds and drops those more than [`History::SECONDS`] older.
    pub fn push(&mut self, at: f64, frame_ms: f64, max_stretch: Option<f32>) {
        self.samples.push_back((at, frame_ms, max_stretch));
        while self.samples.front().is_some_and(|&(t, _, _)| t < at - Self::SECONDS) {
            self.samples.pop_front();
        }
    }

    /// The samples kept, oldest first.
    pub fn samples(&self) -> impl Iterator<Item = (f64, f64, Option<f32>)> + '_ {
        self.samples.iter().copied()
    }
}

/// A slider that keeps values set elsewhere (the command line) even outside its range; only the
/// user's own edits are clamped.
fn slider<'a, N: egui::emath::Numeric>(value: &'a mut N, range: std::ops::RangeInclusive<N>) -> egui::Slider<'a> {
    egui::Slider::new(value, range).clamping(egui::SliderClamping::Edits)
}

/// Draws the panel into `ui` and returns the user's requests.
pub fn show(ui: &mut egui::Ui, state: &mut PanelState, session: &Session) -> Vec<PanelAction> {
    let mut actions = Vec::new();
    egui::ScrollArea::vertical().show(ui, |ui| {
        ui.heading("drape");
        scene_section(ui, state, session, &mut actions);
        run_section(ui, session, &mut actions);
        bodies_section(ui, session, &mut actions);
        let mut params = *session.params();
        solver_section(ui, &mut params, session, &mut actions);
        let own_contacts = session.solver().model().cloths().iter().filter(|c| c.contact.is_some()).count();
        material_section(ui, &mut params, own_contacts);
        air_section(ui, &mut params);
        if params != *session.params() {
            actions.push(PanelAction::SetParams(params));
        }
        stats_section(ui, state, session);
        profile_section(ui, session, &mut actions);
        view_section(ui, state);
        if let Some(message) = &state.message {
            ui.separator();
            ui.colored_label(egui::Color32::from_rgb(255, 120, 100), message);
        }
    });
    actions
}

fn scene_section(ui: &mut egui::Ui, state: &mut PanelState, session: &Session, actions: &mut Vec<PanelAction>) {
    egui::CollapsingHeader::new("Scene").default_open(true).show(ui, |ui| {
        let mut source = session.source().clone();
        egui::ComboBox::from_label("cloth").selected_text(source.to_string()).show_ui(ui, |ui| {
            for kind in SceneKind::ALL {
                ui.selectable_value(&mut source, ClothSource::Scene(kind), kind.name());
            }
            if let Some(file) = &state.file {
                ui.selectable_value(&mut source, file.clone(), file.to_string());
            }
        });
        ui.add(slider(&mut state.grid, GRID_CELLS).text("grid cells").logarithmic(true));
        let grid_changed = state.grid != session.grid() && matches!(source, ClothSource::Scene(_));
        let apply_grid = ui.add_enabled(grid_changed, egui::Button::new("apply grid")).clicked();
        if source != *session.source() || apply_grid {
            actions.push(PanelAction::Load(source, state.grid));
        }
        let current = session.solver().model().bending_model();
        ui.horizontal(|ui| {
            ui.label("bending");
            let rigid = session.solver().model().bending_rigidity().is_some();
            for model in BendingModel::ALL.into_iter().filter(|&m| rigid || m != BendingModel::Curvature) {
                if ui.selectable_label(model == current, model.name()).clicked() && model != current {
                    actions.push(PanelAction::SetBending(model));
                }
            }
        });
        fabric_section(ui, session, actions);
    });
}

/// The fabric chooser, and the physical values of the cloth's material.
fn fabric_section(ui: &mut egui::Ui, session: &Session, actions: &mut Vec<PanelAction>) {
    let current = session.fabric();
    let name = |fabric: Option<Fabric>| FabricChoice(fabric).label();
    let mut chosen = current;
    egui::ComboBox::from_label("fabric").selected_text(name(current)).show_ui(ui, |ui| {
        ui.selectable_value(&mut chosen, None, name(None));
        for fabric in FABRICS {
            ui.selectable_value(&mut chosen, Some(fabric), fabric.name);
        }
    });
    if chosen != current {
        actions.push(PanelAction::SetFabric(chosen));
    }
    let model = session.solver().model();
    let mut lines = vec![format!("areal density {:.0} g/m²", session.areal_density() * 1e3)];
    let (cloths, fabrics) = (model.cloths().len(), model.constraints().membrane.materials().len());
    match (cloths, fabrics) {
        (1, _) => {}
        (_, 0 | 1) => lines.insert(0, format!("{cloths} cloths")),
        _ => lines.insert(0, format!("{cloths} cloths of {fabrics} fabrics; the first's:")),
    }
    if let StretchModel::Membrane(m) = model.stretch_model() {
        lines.push(format!("warp {:.0} N/m, weft {:.0} N/m, shear {:.0} N/m", m.warp, m.weft, m.shear));
    } else {
        lines.push("stretch: edges, stiffened by the parameters".into());
    }
    match model.bending_rigidity() {
        Some(b) => lines.push(format!("bending rigidity warp {:.1} µN·m, weft {:.1} µN·m", b.warp * 1e6, b.weft * 1e6)),
        None => lines.push("bending: stiffened by the parameters".into()),
    }
    for line in lines {
        ui.label(line);
    }
}

/// What the record button does.
const RECORD_HELP: &str = "Records every frame from now; press again to write them as a glTF animation \
                           (drape-recording.glb in the working folder: a morph target per frame)";

fn run_section(ui: &mut egui::Ui, session: &Session, actions: &mut Vec<PanelAction>) {
    ui.horizontal(|ui| {
        let paused = session.paused();
        if ui.button(if paused { "run" } else { "pause" }).clicked() {
            actions.push(PanelAction::Run(Command::TogglePause));
        }
        if ui.button("step").clicked() {
            actions.push(PanelAction::Run(Command::Step));
        }
        if ui.button("reset").clicked() {
            actions.push(PanelAction::Run(Command::Reset));
        }
        let recording = session.recorded_frames();
        let label = recording.map_or_else(|| "record".to_string(), |frames| format!("save {frames} frames"));
        if ui.button(label).on_hover_text(RECORD_HELP).clicked() {
            actions.push(PanelAction::Record(recording.is_none()));
        }
    });
}

/// Dropping bodies onto the cloth and removing them.
fn bodies_section(ui: &mut egui::Ui, session: &Session, actions: &mut Vec<PanelAction>) {
    ui.horizontal(|ui| {
        ui.label("drop");
        for (name, shape) in DROPPED_SHAPES {
            if ui.button(name).clicked() {
                actions.push(PanelAction::DropBody(shape));
            }
        }
        let count = session.solver().body_count();
        if count > 0 && ui.button(format!("remove {count}")).clicked() {
            actions.push(PanelAction::RemoveBodies);
        }
    });
}

/// The mode (switching asks the session, which knows the last ω and spring constants), its own
/// settings, and the step's counts.
fn solver_section(ui: &mut egui::Ui, params: &mut SolverParams, session: &Session, actions: &mut Vec<PanelAction>) {
    egui::CollapsingHeader::new("Solver").default_open(true).show(ui, |ui| {
        let modes = [
            ("Gauss-Seidel", SolverMode::GaussSeidel),
            ("Jacobi", SolverMode::Jacobi { relaxation: session.relaxation() }),
            ("mass-spring", SolverMode::MassSpring(session.mass_spring())),
        ];
        ui.horizontal(|ui| {
            for (name, mode) in modes {
                let current = std::mem::discriminant(&mode) == std::mem::discriminant(&params.mode);
                if ui.selectable_label(current, name).clicked() && !current {
                    actions.push(PanelAction::SetMode(mode));
                }
            }
        });
        match &mut params.mode {
            SolverMode::Jacobi { relaxation } => {
                ui.add(slider(relaxation, 0.1..=2.0).text("ω relaxation"));
            }
            SolverMode::MassSpring(springs) => spring_rows(ui, springs),
            SolverMode::GaussSeidel => {}
        }
        ui.add(slider(&mut params.substeps, 1..=MAX_SUBSTEPS).text("substeps").logarithmic(true));
        let projects = params.mode.projects();
        ui.add_enabled(
            projects,
            slider(&mut params.iterations, 1..=MAX_ITERATIONS).text("iterations").logarithmic(true),
        );
        let mut hz = 1.0 / params.time_step;
        if ui.add(slider(&mut hz, 15.0..=240.0).text("frame rate (1/dt)").suffix(" Hz")).changed() {
            params.time_step = 1.0 / hz;
        }
    });
}

/// The mass-spring constants (logarithmic: stability limits them by orders of magnitude).
fn spring_rows(ui: &mut egui::Ui, springs: &mut MassSpringParams) {
    for (value, name) in
        [(&mut springs.structural, "structural"), (&mut springs.shear, "shear"), (&mut springs.flexion, "flexion")]
    {
        ui.add(slider(value, 0.0..=10_000.0).text(name).suffix(" N/m").logarithmic(true).smallest_positive(0.01));
    }
    ui.add(
        slider(&mut springs.damping, 0.0..=1.0)
            .text("spring damping")
            .suffix(" N·s/m")
            .logarithmic(true)
            .smallest_positive(1e-6),
    );
}

/// `own_contacts`: the cloths with a thickness and friction of their own, which the
/// self-collision rows leave as they are.
fn material_section(ui: &mut egui::Ui, params: &mut SolverParams, own_contacts: usize) {
    egui::CollapsingHeader::new("Material and contact").default_open(true).show(ui, |ui| {
        // Mass-spring has springs instead (the solver section).
        ui.add_enabled_ui(params.mode.projects(), |ui| {
            stiffness(ui, "stretch", &mut params.stretch);
            stiffness(ui, "compression", &mut params.compression);
            stiffness(ui, "bending", &mut params.bending);
            stretch_limit_rows(ui, params);
        });
        ui.add(slider(&mut params.damping, 0.0..=2.0).text("damping").suffix(" 1/s"));
        ui.add(slider(&mut params.rigid_damping, 0.0..=50.0).text("rigid damping").suffix(" 1/s").logarithmic(true));
        ui.add(slider(&mut params.gravity.y, -20.0..=5.0).text("gravity y").suffix(" m/s²"));
        ui.add(slider(&mut params.static_friction, 0.0..=1.5).text("static friction"));
        ui.add(slider(&mut params.dynamic_friction, 0.0..=1.5).text("dynamic friction"));
        ui.add(slider(&mut params.restitution, 0.0..=1.0).text("restitution"));
        self_collision_rows(ui, params, own_contacts);
    });
}

/// Self-collision: on/off and, when on, its thickness and the friction between layers, which
/// the `own_contacts` cloths with their own do not take.
fn self_collision_rows(ui: &mut egui::Ui, params: &mut SolverParams, own_contacts: usize) {
    let mut on = params.self_collision.is_some();
    ui.checkbox(&mut on, "self-collision");
    params.self_collision = on.then(|| params.self_collision.unwrap_or_default());
    if let Some(contact) = &mut params.self_collision {
        ui.add(slider(&mut contact.thickness, 0.002..=0.1).text("thickness").suffix(" m").logarithmic(true));
        ui.add(slider(&mut contact.friction, 0.0..=1.5).text("layer friction"));
        if own_contacts > 0 {
            ui.label(format!("{own_contacts} cloths keep a thickness and friction of their own"));
        }
    }
}

/// What bounds the stretch: tethers (on/off, scale), strain limits and area limits (on/off,
/// bounds), the directional limit (on/off, slack).
fn stretch_limit_rows(ui: &mut egui::Ui, params: &mut SolverParams) {
    ui.horizontal(|ui| {
        ui.checkbox(&mut params.tethers.enabled, "tethers");
        ui.add_enabled(params.tethers.enabled, slider(&mut params.tethers.scale, 1.0..=1.5).text("scale"));
    });
    limit_rows(ui, &mut params.strain_limits, "strain limits", "stretch ratio");
    limit_rows(ui, &mut params.area_limits, "area limits", "area ratio");
    ui.horizontal(|ui| {
        let mut on = params.directional.is_some();
        ui.checkbox(&mut on, "directional limit");
        params.directional = on.then(|| params.directional.unwrap_or_default());
        if let Some(limit) = &mut params.directional {
            ui.add(slider(&mut limit.slack, 0.0..=0.1).text("slack"));
        }
    });
}

/// A switch for `limits` (`name`) and, when on, sliders for its bounds on `ratio`.
fn limit_rows(ui: &mut egui::Ui, limits: &mut Option<StrainLimits>, name: &str, ratio: &str) {
    let mut on = limits.is_some();
    ui.checkbox(&mut on, name);
    *limits = on.then(|| limits.unwrap_or(StrainLimits { min: 0.9, max: 1.1 }));
    if let Some(limits) = limits {
        ui.add(slider(&mut limits.min, 0.0..=1.0).text(format!("min {ratio}")));
        ui.add(slider(&mut limits.max, 1.0..=2.0).text(format!("max {ratio}")));
    }
}

/// The air: on/off, the wind as a horizontal speed and heading, gusts, and the coefficients.
fn air_section(ui: &mut egui::Ui, params: &mut SolverParams) {
    egui::CollapsingHeader::new("Air and wind").default_open(params.aerodynamics.is_some()).show(ui, |ui| {
        let mut on = params.aerodynamics.is_some();
        ui.checkbox(&mut on, "air (drag and lift)");
        params.aerodynamics = on.then(|| params.aerodynamics.unwrap_or_default());
        let Some(air) = &mut params.aerodynamics else {
            return;
        };
        // The horizontal wind as speed and heading; a vertical component set elsewhere stays.
        let (mut speed, mut heading) = horizontal_wind(air.wind);
        let speed_edit = ui.add(slider(&mut speed, WIND_SPEEDS).text("wind speed").suffix(" m/s"));
        let heading_edit = ui.add(slider(&mut heading, -180.0..=180.0).text("wind heading (0 = +z)").suffix("°"));
        if speed_edit.changed() || heading_edit.changed() {
            air.wind = with_horizontal_wind(air.wind, speed, heading);
        }
        ui.add(slider(&mut air.gusts.strength, 0.0..=1.0).text("gusts ±"));
        ui.add(slider(&mut air.gusts.frequency, 0.05..=5.0).text("gusts per second").suffix(" Hz").logarithmic(true));
        ui.add(slider(&mut air.drag_coefficient, 0.0..=3.0).text("drag coefficient"));
        ui.add(slider(&mut air.lift_coefficient, 0.0..=3.0).text("lift coefficient"));
        ui.add(slider(&mut air.air_density, 0.0..=5.0).text("air density").suffix(" kg/m³"));
    });
}

/// Edits a stiffness in either form: PBD `k ∈ [0, 1]` or XPBD compliance `α ≥ 0`.
fn stiffness(ui: &mut egui::Ui, name: &str, value: &mut Stiffness) {
    ui.horizontal(|ui| {
        ui.label(name);
        let compliance = matches!(value, Stiffness::Compliance(_));
        if ui.selectable_label(!compliance, "PBD k").clicked() && compliance {
            *value = Stiffness::Pbd(1.0);
        }
        if ui.selectable_label(compliance, "XPBD α").clicked() && !compliance {
            *value = Stiffness::Compliance(0.0);
        }
    });
    match value {
        Stiffness::Pbd(k) => ui.add(slider(k, 0.0..=1.0).text("k")),
        Stiffness::Compliance(alpha) => {
            ui.add(slider(alpha, 0.0..=10.0).text("α").logarithmic(true).smallest_positive(1e-8))
        }
    };
}

fn stats_section(ui: &mut egui::Ui, state: &PanelState, session: &Session) {
    egui::CollapsingHeader::new("Statistics").default_open(true).show(ui, |ui| {
        let ms_name = if session.frame_ms().1 { "GPU ms / frame" } else { "CPU ms / frame" };
        let times: Vec<(f64, f64)> = state.history.samples().map(|(t, ms, _)| (t, ms)).collect();
        let stretch: Vec<(f64, f64)> =
            state.history.samples().filter_map(|(t, _, s)| s.map(|s| (t, 100.0 * f64::from(s - 1.0)))).collect();
        live_plot(ui, ms_name, &times, "");
        live_plot(ui, "max stretch", &stretch, " %");
        let solver = session.solver();
        let model = solver.model();
        let (ms, gpu) = session.frame_ms();
        egui::Grid::new("stats").num_columns(2).show(ui, |ui| {
            let mut row = |name: &str, value: String| {
                ui.label(name);
                ui.label(value);
                ui.end_row();
            };
            row("fps", format!("{:.1}", state.fps));
            row(if gpu { "GPU ms / frame" } else { "CPU ms / frame (record)" }, format!("{ms:.2}"));
            row("frame", session.frames().to_string());
            row("particles", model.particle_count().to_string());
            let constraints = model.constraints();
            let hinge = UnitType::hinge(model.bending_model(), model.stretch_model());
            if constraints.membrane.is_empty() {
                let free_edges = model.units(UnitType::FreeEdge).len();
                let colours = model.colour_count(UnitType::FreeEdge);
                let stretch = format!("{} ({free_edges} free edges in {colours} colours)", constraints.stretch.len());
                row("stretch constraints", stretch);
            } else if model.units(UnitType::Shell).is_empty() {
                let colours = model.colour_count(UnitType::Triangle);
                row("membrane triangles", format!("{} in {colours} colours", constraints.membrane.len()));
            } else {
                let colours = model.colour_count(UnitType::Shell);
                row(
                    "membrane triangles",
                    format!("{} (with their curvature, {colours} colours)", constraints.membrane.len()),
                );
            }
            row(
                "bending constraints",
                format!(
                    "{} {} in {} colours",
                    constraints.bending.len() + constraints.isometric.len() + constraints.curvature.len(),
                    model.bending_model().name(),
                    model.colour_count(hinge) + model.colour_count(UnitType::Shell)
                ),
            );
            if let (SolverMode::MassSpring(_), Some(network)) = (solver.params().mode, solver.spring_network()) {
                let [structural, shear, flexion] = SpringKind::ALL.map(|kind| network.count(kind));
                row("springs", format!("{structural} structural, {shear} shear, {flexion} flexion"));
            }
            let stripes = model.schedule().phases.each_ref().map(|p| p.stripes.len().to_string()).join(" + ");
            row("stripes (two phases)", stripes);
            row("dispatches / frame", format!("{} ({:?})", solver.dispatches_per_frame(), solver.dispatch_strategy()));
            if let Some(metrics) = session.metrics() {
                row("max stretch", format!("{:.2} %", 100.0 * (metrics.max_stretch - 1.0)));
                row("kinetic energy", format!("{:.4} J", metrics.kinetic_energy));
                if metrics.overflows.self_contacts > 0 {
                    row("self-contact overflows", format!("{} particle substeps", metrics.overflows.self_contacts));
                }
                if metrics.overflows.colliders > 0 {
                    row("collider overflows", format!("{} particle substeps", metrics.overflows.colliders));
                }
                if metrics.overflows.bodies > 0 {
                    row(
                        "bodies cut short",
                        format!("{} invocations (the driver's loop limit)", metrics.overflows.bodies),
                    );
                }
            }
        });
    });
}

/// A line of `samples` (seconds, value) over the last [`History::SECONDS`], scaled to their
/// range, under a caption with the newest value and the range.
fn live_plot(ui: &mut egui::Ui, name: &str, samples: &[(f64, f64)], unit: &str) {
    let Some(&(newest_t, newest)) = samples.last() else { return };
    let (low, high) = samples.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &(_, v)| (l.min(v), h.max(v)));
    ui.label(format!("{name}: {newest:.2}{unit} (last {:.0} s: {low:.2}–{high:.2}{unit})", History::SECONDS));
    let size = egui::vec2(ui.available_width(), 40.0);
    let (response, painter) = ui.allocate_painter(size, egui::Sense::hover());
    let rect = response.rect;
    painter.rect_stroke(rect, 2.0, egui::Stroke::new(1.0, egui::Color32::from_gray(90)), egui::StrokeKind::Inside);
    let span = (high - low).max(1e-9);
    let point = |(t, v): (f64, f64)| {
        let x = rect.right() - ((newest_t - t) / History::SECONDS) as f32 * rect.width();
        let y = rect.bottom() - 3.0 - ((v - low) / span) as f32 * (rect.height() - 6.0);
        egui::pos2(x, y)
    };
    let line: Vec<egui::Pos2> = samples.iter().map(|&s| point(s)).collect();
    painter.add(egui::Shape::line(line, egui::Stroke::new(1.5, egui::Color32::from_rgb(120, 190, 255))));
}

/// Where a frame goes: each pass's GPU time, while the user has asked for it.
fn profile_section(ui: &mut egui::Ui, session: &Session, actions: &mut Vec<PanelAction>) {
    egui::CollapsingHeader::new("Where a frame goes").default_open(false).show(ui, |ui| {
        let mut on = session.profiling();
        if ui.checkbox(&mut on, "time each pass (GPU timestamps)").changed() {
            actions.push(PanelAction::SetProfiling(on));
        }
        let Some(profile) = session.profile() else {
            return;
        };
        let total = profile.total_ms();
        egui::Grid::new("profile").num_columns(4).striped(true).show(ui, |ui| {
            for heading in ["pass", "dispatches", "ms", "share"] {
                ui.strong(heading);
            }
            ui.end_row();
            for pass in &profile.passes {
                ui.label(pass.pass);
                ui.label(pass.dispatches.to_string());
                ui.label(format!("{:.3}", pass.ms));
                ui.label(if total > 0.0 { format!("{:.0} %", 100.0 * pass.ms / total) } else { "–".into() });
                ui.end_row();
            }
            ui.strong("total");
            ui.label("");
            ui.strong(format!("{total:.3}"));
            ui.end_row();
        });
    });
}

fn view_section(ui: &mut egui::Ui, state: &mut PanelState) {
    egui::CollapsingHeader::new("View and controls").default_open(false).show(ui, |ui| {
        ui.checkbox(&mut state.draw.cloth, "cloth");
        ui.checkbox(&mut state.draw.colliders, "colliders");
        ui.checkbox(&mut state.draw.markers, "pin markers");
        ui.separator();
        for line in super::controls::CONTROLS {
            ui.label(*line);
        }
    });
}
