//! The page's HTML controls: the scene, a glTF file picked or dropped on the canvas, run buttons
//! and main parameters. Their listeners only queue a [`Control`]; the app applies it at its next
//! frame and then [`show`]s the session's state in them again (a rejected value springs back,
//! and a scene brings its own parameters).

use crate::page::{add_listener, element, SolverKind};
use drape::fabric::FABRICS;
use drape::params::{MAX_ITERATIONS, MAX_SUBSTEPS};
use drape::viewer::session::DROPPED_SHAPES;
use drape::viewer::settings::{horizontal_wind, GRID_CELLS, WIND_SPEEDS};
use drape::viewer::Session;
use drape::{BodyShape, Fabric, FabricChoice, SceneKind};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{
    DragEvent, File, HtmlButtonElement, HtmlElement, HtmlInputElement, HtmlOptionElement, HtmlSelectElement,
};

/// What a control asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Control {
    Scene(SceneKind),
    /// A glTF file loaded before, chosen again in the cloth list by its name.
    LoadedFile(String),
    /// A glTF file's name and bytes, picked or dropped.
    GltfFile {
        name: String,
        bytes: Vec<u8>,
    },
    Grid(u32),
    /// A fabric preset for the cloth, `None`: the cloth's own edge model.
    Fabric(Option<Fabric>),
    TogglePause,
    Step,
    Reset,
    FrameCamera,
    Solver(SolverKind),
    Substeps(u32),
    Iterations(u32),
    SelfCollision(bool),
    /// Horizontal wind speed (m/s) along the wind's heading (+z when there was no wind).
    Wind(f32),
    /// A body dropped over the cloth ([`drape::viewer::Session::drop_body`]).
    DropBody(BodyShape),
    /// Every body removed ([`drape::viewer::Session::remove_bodies`]).
    RemoveBodies,
    /// A value the control could not read: says which.
    Unreadable(&'static str),
}

/// Fills the scene list and the sliders' ranges from the library's own definitions, and
/// queues what the controls ask for into `queue`.
pub fn listen(queue: &Rc<RefCell<Vec<Control>>>) -> Result<(), String> {
    let scenes: HtmlSelectElement = element("scene")?;
    for kind in SceneKind::ALL {
        let option = HtmlOptionElement::new_with_text_and_value(kind.name(), kind.name())
            .map_err(|e| crate::page::js_message(&e))?;
        scenes.add_with_html_option_element(&option).map_err(|e| crate::page::js_message(&e))?;
    }
    let fabrics: HtmlSelectElement = element("fabric")?;
    for choice in std::iter::once(FabricChoice(None)).chain(FABRICS.iter().map(|&f| FabricChoice(Some(f)))) {
        let option = HtmlOptionElement::new_with_text_and_value(choice.label(), choice.name())
            .map_err(|e| crate::page::js_message(&e))?;
        fabrics.add_with_html_option_element(&option).map_err(|e| crate::page::js_message(&e))?;
    }
    set_range("grid", *GRID_CELLS.start() as f32, *GRID_CELLS.end() as f32)?;
    set_range("substeps", 1.0, MAX_SUBSTEPS as f32)?;
    set_range("iterations", 1.0, MAX_ITERATIONS as f32)?;
    set_range("wind", *WIND_SPEEDS.start(), *WIND_SPEEDS.end())?;

    on_change(queue, "scene", |value| value.parse().map(Control::Scene).unwrap_or(Control::LoadedFile(value)))?;
    on_change(queue, "grid", |value| value.parse().map(Control::Grid).unwrap_or(Control::Unreadable("grid")))?;
    on_change(queue, "fabric", |value| {
        value.parse::<FabricChoice>().map(|choice| Control::Fabric(choice.0)).unwrap_or(Control::Unreadable("fabric"))
    })?;
    on_change(queue, "solver", |value| {
        SolverKind::named(&value).map(Control::Solver).unwrap_or(Control::Unreadable("solver"))
    })?;
    on_change(queue, "substeps", |value| {
        value.parse().map(Control::Substeps).unwrap_or(Control::Unreadable("substeps"))
    })?;
    on_change(queue, "iterations", |value| {
        value.parse().map(Control::Iterations).unwrap_or(Control::Unreadable("iterations"))
    })?;
    on_change(queue, "wind", |value| value.parse().map(Control::Wind).unwrap_or(Control::Unreadable("wind")))?;
    let checkbox: HtmlInputElement = element("self-collision")?;
    listen_to(queue, &checkbox, "change", move |c: &HtmlInputElement| Control::SelfCollision(c.checked()))?;
    for (id, control) in [
        ("pause", Control::TogglePause),
        ("step", Control::Step),
        ("reset", Control::Reset),
        ("frame", Control::FrameCamera),
        ("remove-bodies", Control::RemoveBodies),
    ] {
        let button: HtmlButtonElement = element(id)?;
        listen_to(queue, &button, "click", move |_: &HtmlButtonElement| control.clone())?;
    }
    add_drop_buttons(queue)?;
    listen_for_gltf_files(queue)
}

/// A button for each shape the session drops ([`DROPPED_SHAPES`]), before the `remove-bodies`
/// button.
fn add_drop_buttons(queue: &Rc<RefCell<Vec<Control>>>) -> Result<(), String> {
    let remove: HtmlButtonElement = element("remove-bodies")?;
    let row = remove.parent_element().ok_or("#remove-bodies is in no row")?;
    for (name, shape) in DROPPED_SHAPES {
        let button: HtmlButtonElement = crate::page::document()?
            .create_element("button")
            .map_err(|e| crate::page::js_message(&e))?
            .dyn_into()
            .map_err(|_| "a button that is not one".to_owned())?;
        button.set_type("button");
        button.set_id(&format!("drop-{name}"));
        button.set_text_content(Some(&format!("drop {name}")));
        row.insert_before(&button, Some(&remove)).map_err(|e| crate::page::js_message(&e))?;
        listen_to(queue, &button, "click", move |_: &HtmlButtonElement| Control::DropBody(shape))?;
    }
    Ok(())
}

/// Queues the glTF file picked in the `gltf` input or dropped on the canvas, once its bytes are
/// read.
fn listen_for_gltf_files(queue: &Rc<RefCell<Vec<Control>>>) -> Result<(), String> {
    let input: HtmlInputElement = element("gltf")?;
    let (picked_queue, picker) = (Rc::clone(queue), input.clone());
    let picked = Closure::<dyn FnMut()>::new(move || {
        if let Some(file) = picker.files().and_then(|files| files.get(0)) {
            read_gltf(&picked_queue, file);
        }
        // Picking the same file again is a change too.
        picker.set_value("");
    });
    add_listener(&input, "change", picked.as_ref().unchecked_ref())?;
    picked.forget();
    let canvas: HtmlElement = element("canvas")?;
    // A drop is only allowed where dragging over is refused its default.
    let over = Closure::<dyn FnMut(DragEvent)>::new(|event: DragEvent| event.prevent_default());
    add_listener(&canvas, "dragover", over.as_ref().unchecked_ref())?;
    over.forget();
    let dropped_queue = Rc::clone(queue);
    let dropped = Closure::<dyn FnMut(DragEvent)>::new(move |event: DragEvent| {
        event.prevent_default();
        let file = event.data_transfer().and_then(|transfer| transfer.files()).and_then(|files| files.get(0));
        if let Some(file) = file {
            read_gltf(&dropped_queue, file);
        }
    });
    add_listener(&canvas, "drop", dropped.as_ref().unchecked_ref())?;
    dropped.forget();
    Ok(())
}

/// Reads `file` and queues it as a [`Control::GltfFile`] (or says why it could not be read).
fn read_gltf(queue: &Rc<RefCell<Vec<Control>>>, file: File) {
    let queue = Rc::clone(queue);
    wasm_bindgen_futures::spawn_local(async move {
        let read = wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await;
        let control = match read {
            Ok(buffer) => Control::GltfFile { name: file.name(), bytes: js_sys::Uint8Array::new(&buffer).to_vec() },
            Err(_) => Control::Unreadable("glTF file"),
        };
        if !crate::page::failed() {
            queue.borrow_mut().push(control);
        }
    });
}

/// Shows the session's state in the controls.
pub fn show(session: &Session) -> Result<(), String> {
    let params = session.params();
    let scenes: HtmlSelectElement = element("scene")?;
    let source = session.source().to_string();
    // A glTF cloth is listed by its file's name once it is loaded (its option's id says so).
    let id = format!("gltf-option:{source}");
    if scenes.named_item(&id).is_none() && !SceneKind::ALL.iter().any(|kind| kind.name() == source) {
        let option =
            HtmlOptionElement::new_with_text_and_value(&source, &source).map_err(|e| crate::page::js_message(&e))?;
        option.set_id(&id);
        scenes.add_with_html_option_element(&option).map_err(|e| crate::page::js_message(&e))?;
    }
    scenes.set_value(&source);
    element::<HtmlInputElement>("grid")?.set_value(&session.grid().to_string());
    element::<HtmlSelectElement>("fabric")?.set_value(FabricChoice(session.fabric()).name());
    element::<HtmlSelectElement>("solver")?.set_value(SolverKind::of(&params.mode).name());
    element::<HtmlButtonElement>("pause")?.set_text_content(Some(if session.paused() { "run" } else { "pause" }));
    show_number("substeps", params.substeps as f32)?;
    show_number("iterations", params.iterations as f32)?;
    show_number("wind", params.aerodynamics.map_or(0.0, |air| horizontal_wind(air.wind).0))?;
    element::<HtmlInputElement>("self-collision")?.set_checked(params.self_collision.is_some());
    Ok(())
}

/// Sets an input's value and the `<output>` beside it (`ID-value`).
fn show_number(id: &str, value: f32) -> Result<(), String> {
    element::<HtmlInputElement>(id)?.set_value(&value.to_string());
    element::<HtmlElement>(&format!("{id}-value"))?.set_text_content(Some(&format!("{value}")));
    Ok(())
}

fn set_range(id: &str, min: f32, max: f32) -> Result<(), String> {
    let input: HtmlInputElement = element(id)?;
    input.set_min(&min.to_string());
    input.set_max(&max.to_string());
    Ok(())
}

/// Queues `read(value)` when the control `id` (an input or a select) changes.
fn on_change(queue: &Rc<RefCell<Vec<Control>>>, id: &str, read: fn(String) -> Control) -> Result<(), String> {
    let target: HtmlElement = element(id)?;
    listen_to(queue, &target, "change", move |target: &HtmlElement| {
        let value = js_sys::Reflect::get(target, &"value".into()).ok().and_then(|v| v.as_string()).unwrap_or_default();
        read(value)
    })
}

/// Queues `make(target)` on every `event` of `target`, for the page's whole life.
fn listen_to<T: JsCast + Clone + 'static>(
    queue: &Rc<RefCell<Vec<Control>>>,
    target: &T,
    event: &str,
    make: impl Fn(&T) -> Control + 'static,
) -> Result<(), String> {
    let (queue, element) = (Rc::clone(queue), target.clone());
    let listener = Closure::<dyn FnMut()>::new(move || {
        if !crate::page::failed() {
            queue.borrow_mut().push(make(&element));
        }
    });
    add_listener(target.unchecked_ref(), event, listener.as_ref().unchecked_ref())?;
    listener.forget();
    Ok(())
}
