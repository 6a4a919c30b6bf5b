//! drape's demo in a browser: the library's renderer and session on a WebGPU canvas, driven by
//! pointer (mouse, touch, pen) and plain HTML controls, with live statistics. `web/build.sh`
//! builds it into a static folder; `web/static/index.html` is its page.
//!
//! - [`page`]: the page's elements, its query options and the state it publishes
//!   (`window.drape`, which the browser test reads);
//! - [`gpu`]: the canvas surface and the device;
//! - [`controls`]: the HTML controls, turned into [`controls::Control`] requests;
//! - [`pointer`]: orbit, pan, pinch and grab from pointer events;
//! - [`app`]: one frame: requests, simulation step, scene, one submit, background reads.
//!
//! Nothing here waits for the GPU: reads are requested on one frame and collected on a later one.
//! On native targets the crate is empty.

#![cfg(target_arch = "wasm32")]

mod app;
mod controls;
mod gpu;
mod page;
mod pointer;

use wasm_bindgen::prelude::wasm_bindgen;

/// Starts the demo once the module is loaded: shows why when it cannot run (no WebGPU, a bad
/// query option, a device error, a panic) instead of leaving a blank page.
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| page::show_failure(&format!("drape stopped: {info}"))));
    wasm_bindgen_futures::spawn_local(async {
        if let Err(message) = app::App::launch().await {
            page::show_failure(&message);
        }
    });
}
