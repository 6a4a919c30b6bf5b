//! Pointer input on the canvas, mouse, touch and pen alike (pointer events): one pointer grabs
//! the particle or collider under it, or orbits where there is none; the right or middle button,
//! or shift, pans; two pointers pinch to zoom and pan; the wheel zooms. Listeners only queue
//! what happened; the app applies it at its next frame.

use crate::page::add_listener;
use glam::Vec2;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{HtmlCanvasElement, PointerEvent, WheelEvent};

/// Pixels a wheel reports per notch (`deltaMode` 0), and lines (`deltaMode` 1).
const WHEEL_PIXELS_PER_NOTCH: f32 = 100.0;
const WHEEL_LINES_PER_NOTCH: f32 = 3.0;

/// Something a pointer did, in CSS pixels from the canvas's top-left corner.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PointerInput {
    /// A pointer went down: `button` 0 is the main one (a finger, a pen tip).
    Down { id: i32, at: Vec2, button: i16, shift: bool },
    /// A pointer that is down moved.
    Move { id: i32, at: Vec2 },
    /// A pointer went up or was cancelled.
    Up { id: i32 },
    /// The wheel turned by `notches` (> 0 away from the user: zoom in).
    Wheel { notches: f32 },
}

/// What the pointers that are down are doing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Gesture {
    Grab,
    Orbit,
    Pan,
    Pinch,
}

/// The pointers that are down, where they are.
#[derive(Debug, Default)]
pub struct Pointers {
    down: Vec<(i32, Vec2)>,
}

/// Two pointers' midpoint and distance apart.
#[derive(Debug, Clone, Copy)]
pub struct Pinch {
    pub centre: Vec2,
    pub spread: f32,
}

impl Pointers {
    /// Records a pointer going down; returns how many are down now.
    pub fn press(&mut self, id: i32, at: Vec2) -> usize {
        self.down.retain(|&(other, _)| other != id);
        self.down.push((id, at));
        self.down.len()
    }

    /// Moves a pointer that is down; returns how far, or `None` for one that is not down.
    pub fn move_to(&mut self, id: i32, at: Vec2) -> Option<Vec2> {
        let (_, position) = self.down.iter_mut().find(|(other, _)| *other == id)?;
        let delta = at - *position;
        *position = at;
        Some(delta)
    }

    /// Records a pointer going up; returns how many are still down.
    pub fn release(&mut self, id: i32) -> usize {
        self.down.retain(|&(other, _)| other != id);
        self.down.len()
    }

    /// The first two pointers' pinch, when two are down.
    pub fn pinch(&self) -> Option<Pinch> {
        match self.down.as_slice() {
            [(_, a), (_, b), ..] => Some(Pinch { centre: 0.5 * (*a + *b), spread: a.distance(*b) }),
            _ => None,
        }
    }
}

/// Queues the canvas's pointer and wheel events into `queue` for the app's next frame. The
/// canvas takes the pointer while it is down (a drag may leave it) and keeps the browser from
/// scrolling, zooming the page or opening a menu over it.
pub fn listen(canvas: &HtmlCanvasElement, queue: &Rc<RefCell<Vec<PointerInput>>>) -> Result<(), String> {
    let on = |name: &str, make: fn(&PointerEvent) -> PointerInput, capture: Option<bool>| {
        let (queue, target) = (Rc::clone(queue), canvas.clone());
        let listener = Closure::<dyn FnMut(PointerEvent)>::new(move |event: PointerEvent| {
            event.prevent_default();
            match capture {
                Some(true) => drop(target.set_pointer_capture(event.pointer_id())),
                Some(false) => drop(target.release_pointer_capture(event.pointer_id())),
                None => {}
            }
            if !crate::page::failed() {
                queue.borrow_mut().push(make(&event));
            }
        });
        add_listener(canvas, name, listener.as_ref().unchecked_ref())?;
        listener.forget();
        Ok::<(), String>(())
    };
    on("pointerdown", down, Some(true))?;
    on("pointermove", |e| PointerInput::Move { id: e.pointer_id(), at: position(e) }, None)?;
    on("pointerup", |e| PointerInput::Up { id: e.pointer_id() }, Some(false))?;
    on("pointercancel", |e| PointerInput::Up { id: e.pointer_id() }, Some(false))?;
    let queue = Rc::clone(queue);
    let wheel = Closure::<dyn FnMut(WheelEvent)>::new(move |event: WheelEvent| {
        event.prevent_default();
        let per_notch = match event.delta_mode() {
            WheelEvent::DOM_DELTA_PIXEL => WHEEL_PIXELS_PER_NOTCH,
            WheelEvent::DOM_DELTA_LINE => WHEEL_LINES_PER_NOTCH,
            _ => 1.0,
        };
        if !crate::page::failed() {
            queue.borrow_mut().push(PointerInput::Wheel { notches: -(event.delta_y() as f32) / per_notch });
        }
    });
    add_listener(canvas, "wheel", wheel.as_ref().unchecked_ref())?;
    wheel.forget();
    let no_menu = Closure::<dyn FnMut(web_sys::Event)>::new(|event: web_sys::Event| event.prevent_default());
    add_listener(canvas, "contextmenu", no_menu.as_ref().unchecked_ref())?;
    no_menu.forget();
    Ok(())
}

fn down(event: &PointerEvent) -> PointerInput {
    PointerInput::Down { id: event.pointer_id(), at: position(event), button: event.button(), shift: event.shift_key() }
}

fn position(event: &PointerEvent) -> Vec2 {
    Vec2::new(event.offset_x() as f32, event.offset_y() as f32)
}
