//! The page around the demo: its elements, the options its address gives, messages, and the
//! state it publishes as `window.drape` for scripts (the browser test reads it there).

use drape::viewer::session::DEFAULT_RELAXATION;
use drape::viewer::settings::GRID_CELLS;
use drape::viewer::ParamOverrides;
use drape::{FabricChoice, MassSpringParams, SceneKind, SolverMode};
use js_sys::{Float32Array, Object, Reflect};
use std::sync::atomic::{AtomicBool, Ordering};
use wasm_bindgen::{JsCast, JsValue};

/// Grid cells per side when the address names none: a cloth a CPU adapter still runs smoothly.
const DEFAULT_GRID: u32 = 32;

/// The document, which a page module always has.
pub fn document() -> Result<web_sys::Document, String> {
    web_sys::window().and_then(|w| w.document()).ok_or_else(|| "no document to run in".to_owned())
}

/// The element with `id`, as the type the page declares it with.
pub fn element<T: JsCast>(id: &str) -> Result<T, String> {
    document()?
        .get_element_by_id(id)
        .ok_or_else(|| format!("the page has no #{id}"))?
        .dyn_into::<T>()
        .map_err(|_| format!("#{id} is not the kind of element the demo expects"))
}

/// Adds `listener` for `event` on `target` for the page's whole life, able to cancel the event
/// (not passive: the canvas's pointer, wheel and drop listeners keep the browser's defaults off).
pub fn add_listener(target: &web_sys::EventTarget, event: &str, listener: &js_sys::Function) -> Result<(), String> {
    let options = web_sys::AddEventListenerOptions::new();
    options.set_passive(false);
    target
        .add_event_listener_with_callback_and_add_event_listener_options(event, listener, &options)
        .map_err(|e| js_message(&e))
}

/// What a JavaScript exception says.
pub fn js_message(value: &JsValue) -> String {
    value
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| value.as_string())
        .unwrap_or_else(|| format!("{value:?}"))
}

/// Set once the demo has failed: its frame loop stops.
static FAILED: AtomicBool = AtomicBool::new(false);

/// Whether the demo has failed ([`show_failure`]).
pub fn failed() -> bool {
    FAILED.load(Ordering::Relaxed)
}

/// Shows why the demo stopped, publishes it (`drape.status` = "error") and stops the frame
/// loop. Never panics: the panic hook calls it.
pub fn show_failure(message: &str) {
    FAILED.store(true, Ordering::Relaxed);
    show_message(message);
    publish("status", &"error".into());
    publish("error", &message.into());
}

/// Shows a message under the controls (an empty one clears it).
pub fn show_message(message: &str) {
    if let Ok(shown) = element::<web_sys::HtmlElement>("message") {
        shown.set_text_content(Some(message));
        shown.set_hidden(message.is_empty());
    }
}

/// Whether the browser offers WebGPU at all (`navigator.gpu`; it may still have no adapter).
pub fn has_webgpu() -> bool {
    web_sys::window().is_some_and(|w| Reflect::has(&w.navigator(), &"gpu".into()).unwrap_or(false))
}

/// Milliseconds on the page's clock.
pub fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// Sets `window.drape[key]`, creating `window.drape` on first use.
pub fn publish(key: &str, value: &JsValue) {
    let Some(window) = web_sys::window() else { return };
    let state = match Reflect::get(&window, &"drape".into()) {
        Ok(state) if state.is_object() => state,
        _ => {
            let state: JsValue = Object::new().into();
            let _ = Reflect::set(&window, &"drape".into(), &state);
            state
        }
    };
    let _ = Reflect::set(&state, &key.into(), value);
}

/// Publishes numbers as a `Float32Array` (positions, packed x, y, z).
pub fn publish_floats(key: &str, values: &[f32]) {
    publish(key, &Float32Array::from(values).into());
}

/// What the page's address asks for: `?scene=drape&grid=32&fabric=denim&solver=gs&substeps=10
/// &iterations=2&frames=120` (every one optional; `fabric=edges` for the scene's own edge model
/// instead of cotton shirting; `frames` pauses after that many frames, for scripted runs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// The scene to start with.
    pub scene: SceneKind,
    /// Grid cells per side.
    pub grid: u32,
    /// Solver settings over the scene's own.
    pub overrides: ParamOverrides,
    /// Pause once this many frames have run.
    pub frames: Option<u64>,
}

impl Options {
    /// Reads the page's address; an option it cannot use is an error naming it.
    pub fn from_address() -> Result<Self, String> {
        let search = web_sys::window().map(|w| w.location().search().unwrap_or_default()).unwrap_or_default();
        let query = web_sys::UrlSearchParams::new_with_str(&search).map_err(|e| js_message(&e))?;
        let mut options =
            Self { scene: SceneKind::Drape, grid: DEFAULT_GRID, overrides: ParamOverrides::default(), frames: None };
        if let Some(scene) = query.get("scene") {
            options.scene = scene.parse().map_err(|e| format!("?scene={scene}: {e}"))?;
        }
        options.overrides.fabric = options.scene.default_fabric();
        if let Some(grid) = number::<u32>(&query, "grid")? {
            options.grid = grid_in_range(grid).map_err(|e| format!("?grid={grid}: {e}"))?;
        }
        if let Some(fabric) = query.get("fabric") {
            options.overrides.fabric = fabric.parse::<FabricChoice>().map_err(|e| format!("?fabric={fabric}: {e}"))?.0;
        }
        options.frames = number(&query, "frames")?;
        options.overrides.substeps = number(&query, "substeps")?;
        options.overrides.iterations = number(&query, "iterations")?;
        if let Some(solver) = query.get("solver") {
            let mode = SolverKind::named(&solver)?.mode(DEFAULT_RELAXATION, MassSpringParams::default());
            options.overrides.mode = Some(mode);
        }
        Ok(options)
    }
}

/// `grid` if the demos offer it ([`GRID_CELLS`]).
pub fn grid_in_range(grid: u32) -> Result<u32, String> {
    let (low, high) = (GRID_CELLS.start(), GRID_CELLS.end());
    GRID_CELLS.contains(&grid).then_some(grid).ok_or_else(|| format!("the page offers {low} to {high} cells per side"))
}

/// A solver mode by the page's name for it (the desktop demo's `--solver` names); the mode's
/// own settings (Jacobi's ω, the spring constants) come from where it is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SolverKind {
    GaussSeidel,
    Jacobi,
    MassSpring,
}

impl SolverKind {
    /// The kind the page names `name`.
    pub fn named(name: &str) -> Result<Self, String> {
        match name {
            "gs" => Ok(Self::GaussSeidel),
            "jacobi" => Ok(Self::Jacobi),
            "mass-spring" => Ok(Self::MassSpring),
            _ => Err(format!("solver {name:?}: expected gs, jacobi or mass-spring")),
        }
    }

    /// The kind of `mode`.
    pub fn of(mode: &SolverMode) -> Self {
        match mode {
            SolverMode::GaussSeidel => Self::GaussSeidel,
            SolverMode::Jacobi { .. } => Self::Jacobi,
            SolverMode::MassSpring(_) => Self::MassSpring,
        }
    }

    /// The page's name for it.
    pub fn name(self) -> &'static str {
        match self {
            Self::GaussSeidel => "gs",
            Self::Jacobi => "jacobi",
            Self::MassSpring => "mass-spring",
        }
    }

    /// The mode, with Jacobi's `relaxation` or the `springs` where it has them.
    pub fn mode(self, relaxation: f32, springs: MassSpringParams) -> SolverMode {
        match self {
            Self::GaussSeidel => SolverMode::GaussSeidel,
            Self::Jacobi => SolverMode::Jacobi { relaxation },
            Self::MassSpring => SolverMode::MassSpring(springs),
        }
    }
}

/// The query option `key` as a number, if given.
fn number<T: std::str::FromStr>(query: &web_sys::UrlSearchParams, key: &str) -> Result<Option<T>, String> {
    query.get(key).map(|text| text.parse().map_err(|_| format!("?{key}={text}: expected a whole number"))).transpose()
}
