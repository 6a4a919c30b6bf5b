//! Time per frame of the web demo in headless Chromium (WebGPU; SwiftShader where there is no
//! GPU), for BENCHMARKS.md: the drape scene at 32² and 64² with its own settings. Between frames
//! 120 and 180: the median of the GPU time of the step (timestamp queries, sampled as the page
//! publishes them) and the page's median time per frame from submit to the browser's "work
//! done"; then, paused at 180, the median of 60 frames that only draw, and the max stretch
//! reached (to compare at equal quality with `examples/headless`).
//!
//! `cargo bench --bench web`; needs what the web test needs (Chromium, chromedriver and what
//! `web/build.sh` needs).

#[allow(dead_code)]
#[path = "../tests/web/browser.rs"]
mod browser;
#[path = "../tests/web/server.rs"]
mod server;
#[path = "../tests/web/site.rs"]
mod site;

use browser::Browser;
use serde_json::json;
use std::time::Duration;

fn main() {
    let address = server::serve(site::site());
    let patience = Duration::from_secs(900);
    for grid in [32, 64] {
        let browser = Browser::start(true);
        browser.open(&format!("{address}/?scene=drape&grid={grid}&frames=180"));
        browser.wait_for("120 frames", patience, |b| b.state("frames").as_u64().is_some_and(|f| f >= 120));
        let mut steps = Vec::new();
        while browser.state("paused") != json!(true) {
            steps.extend(browser.state("gpuStepMs").as_f64());
            std::thread::sleep(Duration::from_millis(300));
        }
        steps.sort_by(f64::total_cmp);
        let frame_ms = browser.state("frameMs");
        browser.wait_for("the statistics", patience, |b| b.state("maxStretch").is_number());
        // Paused, the page goes on drawing: 60 of those frames time the drawing alone.
        std::thread::sleep(Duration::from_secs(10));
        println!(
            "drape {grid}²: step {:?} ms GPU time (median of {} samples), {frame_ms} ms per frame, {} ms drawing \
             alone, {} dispatches (stripes in workgroup memory: {}), max stretch {}, adapter {}",
            steps.get(steps.len() / 2),
            steps.len(),
            browser.state("drawMs"),
            browser.state("dispatchesPerFrame"),
            browser.state("stripesInWorkgroup"),
            browser.state("maxStretch"),
            browser.state("adapter")
        );
    }
}
