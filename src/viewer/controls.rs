//! The demo's keyboard controls: which key does what, as a pure mapping the window applies
//! (and the tests check).

use super::camera::ZOOM_PER_STEP;
use crate::scene::SceneKind;
use glam::Vec2;
use winit::keyboard::{Key, NamedKey};

/// Radians of orbit per arrow-key press.
const ORBIT_PER_KEY: f32 = 0.08;
/// Pixels of pan per shift+arrow press.
const PAN_PER_KEY: f32 = 24.0;

/// What a key asks the demo to do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Command {
    /// Close the window.
    Quit,
    /// Pause or resume.
    TogglePause,
    /// Pause and advance one frame.
    Step,
    /// Put the cloth back in its initial state.
    Reset,
    /// Cycle the solver mode: coloured Gauss-Seidel → Jacobi → mass-spring.
    ToggleMode,
    /// Point the camera at the whole scene.
    Frame,
    /// Multiply the camera distance by this factor.
    Zoom(f32),
    /// Orbit by these angles (yaw, pitch; radians).
    Orbit(f32, f32),
    /// Pan as if the cursor moved by these pixels.
    Pan(Vec2),
    /// Load a library scene.
    Scene(SceneKind),
    /// Load the OBJ given on the command line.
    FileScene,
}

/// The command for a key press (`shift` held or not), if the key has one.
pub fn command_for_key(key: &Key, shift: bool) -> Option<Command> {
    let arrow = |dx: f32, dy: f32| {
        Some(if shift {
            Command::Pan(PAN_PER_KEY * Vec2::new(dx, dy))
        } else {
            Command::Orbit(-ORBIT_PER_KEY * dx, -ORBIT_PER_KEY * dy)
        })
    };
    match key {
        Key::Named(NamedKey::Escape) => Some(Command::Quit),
        Key::Named(NamedKey::Space) => Some(Command::TogglePause),
        Key::Named(NamedKey::ArrowLeft) => arrow(-1.0, 0.0),
        Key::Named(NamedKey::ArrowRight) => arrow(1.0, 0.0),
        Key::Named(NamedKey::ArrowUp) => arrow(0.0, -1.0),
        Key::Named(NamedKey::ArrowDown) => arrow(0.0, 1.0),
        Key::Named(NamedKey::PageUp) => Some(Command::Zoom(ZOOM_PER_STEP)),
        Key::Named(NamedKey::PageDown) => Some(Command::Zoom(1.0 / ZOOM_PER_STEP)),
        Key::Character(text) => character_command(&text.to_lowercase()),
        _ => None,
    }
}

fn character_command(key: &str) -> Option<Command> {
    match key {
        "s" => Some(Command::Step),
        "r" => Some(Command::Reset),
        "g" => Some(Command::ToggleMode),
        "f" => Some(Command::Frame),
        "+" | "=" => Some(Command::Zoom(ZOOM_PER_STEP)),
        "-" => Some(Command::Zoom(1.0 / ZOOM_PER_STEP)),
        "o" => Some(Command::FileScene),
        // Digits 1, 2, …, 9, 0 pick the library's first ten scenes in order (the lab's tests and
        // the layers, listed last, from the panel).
        digit => {
            let number = digit.parse::<usize>().ok()?;
            let index = if number == 0 { 9 } else { number - 1 };
            SceneKind::ALL.get(index).map(|&kind| Command::Scene(kind))
        }
    }
}

/// The controls, as the panel lists them.
pub const CONTROLS: &[&str] = &[
    "left drag on cloth: pull a particle",
    "left drag on a sphere, capsule, box or mesh: move it",
    "left drag on a rigid body: pull it by the point held",
    "left drag elsewhere / arrows: orbit",
    "right or middle drag / shift+drag / shift+arrows: pan",
    "wheel / + − / PageUp PageDown: zoom",
    "space: pause · S: single step · R: reset",
    "G: switch Gauss-Seidel / Jacobi",
    "1–9, 0: scenes · O: the --obj or --gltf file · F: frame · Esc: quit",
];
