//! The web demo in a real browser: `web/build.sh` builds it (cargo rebuilds only what changed),
//! the test serves it on 127.0.0.1 and opens it in headless Chromium over WebDriver. WebGPU
//! runs there on SwiftShader, a CPU adapter like lavapipe. The page publishes its state as
//! `window.drape`; the tests read it, compare the cloth with the native CPU reference, look at
//! a screenshot and drag the cloth with the mouse.
//!
//! Needs Chromium and chromedriver (`apt-get install chromium chromium-driver`; `.ci/run`
//! installs them) and what `web/build.sh` needs.

mod browser;
mod server;
mod site;
#[path = "../support/mod.rs"]
mod support;

use browser::{floats, Browser};
use drape::{Collider, CpuSolver, Scene, SceneKind};
use glam::{Mat4, Vec2, Vec3, Vec4};
use serde_json::{json, Value};
use site::site;
use std::sync::Mutex;
use std::time::Duration;
use support::{max_distance, smallest};

/// Grid cells per side of the browser runs: small, as SwiftShader runs on the CPU.
const GRID: u32 = 12;
/// How long a browser run may take to reach a state (SwiftShader on two cores, cold caches).
const PATIENCE: Duration = Duration::from_secs(240);

/// One browser at a time: each keeps a CPU core busy with SwiftShader.
fn one_browser_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn vec3s(value: &Value) -> Vec<Vec3> {
    floats(value).chunks_exact(3).map(Vec3::from_slice).collect()
}

fn centre(points: &[Vec3]) -> Vec3 {
    points.iter().sum::<Vec3>() / points.len() as f32
}

/// The page's camera as it published it: view-projection matrix and canvas size (CSS pixels).
struct PageCamera {
    view_projection: Mat4,
    size: Vec2,
}

impl PageCamera {
    fn of(browser: &Browser) -> Self {
        let floats = |key: &str| -> Vec<f32> {
            browser.state(key).as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect()
        };
        Self {
            view_projection: Mat4::from_cols_slice(&floats("viewProjection")),
            size: Vec2::from_slice(&floats("viewport")),
        }
    }

    /// Where the page draws `point`, in CSS pixels of the canvas.
    fn project(&self, point: Vec3) -> Vec2 {
        let clip = self.view_projection * Vec4::from((point, 1.0));
        let ndc = Vec2::new(clip.x, clip.y) / clip.w;
        Vec2::new((ndc.x + 1.0) * 0.5 * self.size.x, (1.0 - ndc.y) * 0.5 * self.size.y)
    }

    /// Where the ray through `pixel` first meets a sphere.
    fn first_hit_on_sphere(&self, pixel: Vec2, center: Vec3, radius: f32) -> Option<Vec3> {
        let ndc = Vec2::new(2.0 * pixel.x / self.size.x - 1.0, 1.0 - 2.0 * pixel.y / self.size.y);
        let inverse = self.view_projection.inverse();
        let (near, far) = (inverse.project_point3(ndc.extend(0.0)), inverse.project_point3(ndc.extend(1.0)));
        let direction = (far - near).normalize();
        // |near + t·d − c|² = r²: t² + 2bt + c' = 0 with b = d·(near − c).
        let to_near = near - center;
        let b = direction.dot(to_near);
        let discriminant = b * b - (to_near.length_squared() - radius * radius);
        (discriminant >= 0.0).then(|| near + (-b - discriminant.sqrt()) * direction)
    }
}

/// Where the page draws `point` now.
fn on_screen(browser: &Browser, point: Vec3) -> Vec2 {
    PageCamera::of(browser).project(point)
}

/// The drape scene of the edge model (`fabric=edges`; the page starts on a fabric otherwise), 60
/// frames in the browser: the page found an adapter, the cloth fell onto the sphere and rests
/// on it outside its margin, every value is finite, the positions are the native CPU
/// reference's, and the canvas shows it.
#[test]
fn the_drape_scene_runs_in_the_browser_as_the_reference_does() {
    const FRAMES: u64 = 60;
    let _one = one_browser_at_a_time();
    let address = server::serve(site());
    let browser = Browser::start(true);
    browser.open(&format!("{address}/?scene=drape&grid={GRID}&fabric=edges&frames={FRAMES}"));
    browser.wait_for("the frame limit and its positions", PATIENCE, |b| {
        b.state("paused") == json!(true) && b.state("positionsFrame") == json!(FRAMES)
    });
    let adapter = browser.state("adapter");
    assert!(adapter.as_str().is_some_and(|name| !name.is_empty()), "no adapter name: {adapter}");
    assert_eq!(browser.state("frames"), json!(FRAMES));
    let positions = vec3s(&browser.state("positions"));

    let scene = Scene::new(SceneKind::Drape, GRID).unwrap();
    assert_eq!(positions.len(), scene.model.particle_count());
    assert!(positions.iter().all(|p| p.is_finite()), "non-finite positions in the browser");
    let mut reference = CpuSolver::new(&scene.model, scene.params, &scene.colliders).unwrap();
    for _ in 0..FRAMES {
        reference.step();
    }
    let distance = max_distance(&positions, &reference.positions);
    // The tolerance of the native GPU-against-reference tests (SwiftShader here gave 0).
    assert!(distance <= 1e-5, "browser and CPU reference differ by {distance} m after {FRAMES} frames");

    // Independent of the reference: it fell, and rests on the sphere outside its margin.
    let rest = &scene.model.mesh().positions;
    let drop = centre(rest).y - centre(&positions).y;
    assert!(drop > 0.1, "the cloth's centre fell only {drop} m");
    let margin = scene.params.collision_margin;
    let closest = |collider: &Collider| smallest(positions.iter().map(|&p| collider.signed_distance(p)));
    for collider in &scene.colliders {
        let gap = closest(collider);
        assert!(gap >= margin - 1e-4, "a particle is {gap} m from {collider:?}, inside the margin {margin}");
    }
    let touching = scene.colliders.iter().any(|c| closest(c) <= margin + 0.01);
    assert!(touching, "the cloth touches no collider after {FRAMES} frames");

    // With timestamp queries (SwiftShader has them) the step's GPU time is within the frame's.
    if browser.state("timestamps") == json!(true) {
        browser.wait_for("the step's GPU time", PATIENCE, |b| b.state("gpuStepMs").is_number());
        let (step, frame) = (browser.state("gpuStepMs").as_f64().unwrap(), browser.state("frameMs").as_f64().unwrap());
        assert!(step > 0.0 && step <= frame, "step {step} ms of GPU time in a frame of {frame} ms");
    }

    let picture = image::load_from_memory(&browser.screenshot("#canvas")).expect("a PNG").to_rgba8();
    let background = *picture.get_pixel(0, 0);
    let differing = picture.pixels().filter(|&&p| p != background).count();
    let share = differing as f64 / f64::from(picture.width() * picture.height());
    assert!(share > 0.05, "the canvas is nearly blank: {:.1} % of it differs from its corner", 100.0 * share);
}

/// Opens the drape scene and waits until it has paused after `frames` frames with their
/// positions published.
fn open_paused_drape(address: &str, frames: u64) -> Browser {
    let browser = Browser::start(true);
    browser.open(&format!("{address}/?scene=drape&grid={GRID}&frames={frames}"));
    browser.wait_for("the frame limit and its positions", PATIENCE, |b| {
        b.state("paused") == json!(true) && b.state("positionsFrame") == json!(frames)
    });
    browser
}

/// A mouse drag on the canvas grabs the particle under the cursor and carries it: while the
/// button is held the particle stays under the cursor as it moves; letting go releases it.
#[test]
fn dragging_with_the_mouse_carries_the_grabbed_particle() {
    drag_carries_the_grabbed_particle("mouse");
}

/// The same with a finger on a touch screen.
#[test]
fn dragging_with_a_finger_carries_the_grabbed_particle() {
    drag_carries_the_grabbed_particle("touch");
}

fn drag_carries_the_grabbed_particle(pointer: &str) {
    let _one = one_browser_at_a_time();
    let address = server::serve(site());
    // By 150 frames the cloth rests on the sphere, so the positions the page picks among
    // (read a frame or two before the press) are those under the cursor.
    let browser = open_paused_drape(&address, 150);
    browser.click("#pause");
    browser.wait_for("the run", PATIENCE, |b| b.state("paused") == json!(false));
    // The highest particle lies on top of the sphere, in plain view of the framing camera.
    let positions = vec3s(&browser.state("positions"));
    let (top, &point) = positions.iter().enumerate().max_by(|a, b| a.1.y.total_cmp(&b.1.y)).unwrap();
    let start = on_screen(&browser, point).round();
    let end = start - Vec2::new(0.0, 80.0);
    // One call: chromedriver keeps a finger down after the call, but moves it only within one.
    browser.pointer_actions(
        pointer,
        json!([
            {"type": "pointerMove", "x": start.x as i32, "y": start.y as i32, "origin": "viewport", "duration": 0},
            {"type": "pointerDown", "button": 0},
            {"type": "pause", "duration": 200},
            {"type": "pointerMove", "x": end.x as i32, "y": end.y as i32, "origin": "viewport", "duration": 300},
        ]),
    );
    browser.wait_for("a grabbed particle", PATIENCE, |b| b.state("grabbed") != json!(-1));
    let grabbed = browser.state("grabbed");
    assert_eq!(grabbed, json!(top), "grabbed {grabbed}, not the particle under the cursor");
    let grabbed = top;
    let frames = browser.state("frames").as_u64().unwrap();
    browser.wait_for("positions read while held", PATIENCE, |b| {
        b.state("positionsFrame").as_u64().is_some_and(|f| f > frames + 2)
    });
    let held = vec3s(&browser.state("positions"))[grabbed];
    let offset = on_screen(&browser, held).distance(end);
    assert!(offset < 4.0, "the held particle is {offset} px from the cursor");
    assert!(held.y > positions[grabbed].y + 0.05, "the particle rose only {} m", held.y - positions[grabbed].y);

    browser.release_pointers();
    browser.wait_for("the release", PATIENCE, |b| b.state("grabbed") == json!(-1));
}

/// Dragging the sphere moves it (paused, it is placed where the cursor takes it), and it stays
/// where it is dropped.
#[test]
fn dragging_the_sphere_moves_it() {
    let _one = one_browser_at_a_time();
    let address = server::serve(site());
    let browser = open_paused_drape(&address, 2);
    let scene = Scene::new(SceneKind::Drape, GRID).unwrap();
    let (sphere, center, radius) = scene
        .colliders
        .iter()
        .enumerate()
        .find_map(|(k, c)| match *c {
            Collider::Sphere { center, radius } => Some((k, center, radius)),
            _ => None,
        })
        .expect("the drape scene has a sphere");
    // The sphere's lower half shows below the cloth, which starts above it.
    let camera = PageCamera::of(&browser);
    let start = camera.project(center - Vec3::new(0.0, 0.8 * radius, 0.0)).round();
    let grabbed_point = camera.first_hit_on_sphere(start, center, radius).expect("the cursor is on the sphere");
    let end = start + Vec2::new(120.0, 0.0);
    browser.pointer_actions(
        "mouse",
        json!([
            {"type": "pointerMove", "x": start.x as i32, "y": start.y as i32, "origin": "viewport", "duration": 0},
            {"type": "pointerDown", "button": 0},
            {"type": "pointerMove", "x": end.x as i32, "y": end.y as i32, "origin": "viewport", "duration": 300},
        ]),
    );
    browser.wait_for("the grabbed sphere", PATIENCE, |b| b.state("grabbedCollider") == json!(sphere));
    // The sphere's pose moves it from where the scene put it (its centre is in its own frame).
    let moved = |b: &Browser| vec3s(&b.state("colliderTranslations"))[sphere];
    browser.wait_for("the sphere to move", PATIENCE, |b| moved(b).length() > 0.2);
    browser.release_pointers();
    browser.wait_for("the release", PATIENCE, |b| b.state("grabbedCollider") == json!(-1));
    let dropped = center + moved(&browser);
    // The orbit camera's right is level: the sphere moved sideways, not up or down.
    assert!((dropped.y - center.y).abs() < 1e-3, "the sphere moved from {center} to {dropped}");
    let under_cursor = camera.project(grabbed_point + (dropped - center));
    assert!(under_cursor.distance(end) < 4.0, "the sphere's grabbed point is {under_cursor}, the cursor {end}");
}

/// Two fingers moving apart zoom in: the cloth's corners spread on screen.
#[test]
fn pinching_with_two_fingers_zooms() {
    let _one = one_browser_at_a_time();
    let address = server::serve(site());
    let browser = open_paused_drape(&address, 2);
    let positions = vec3s(&browser.state("positions"));
    let corners = [positions[0], positions[positions.len() - 1]];
    let spread = |b: &Browser| on_screen(b, corners[0]).distance(on_screen(b, corners[1]));
    let before = spread(&browser);
    let viewport = browser.state("viewport");
    let centre = Vec2::new(viewport[0].as_f64().unwrap() as f32, viewport[1].as_f64().unwrap() as f32) / 2.0;
    let finger = |id: &str, side: f32| {
        let at = |reach: f32| json!({"x": (centre.x + side * reach) as i32, "y": centre.y as i32});
        let tick = |kind: &str, reach: f32, duration: u32| {
            let mut action = at(reach);
            action["type"] = json!(kind);
            action["origin"] = json!("viewport");
            action["duration"] = json!(duration);
            action
        };
        json!({"type": "pointer", "id": id, "parameters": {"pointerType": "touch"}, "actions": [
            tick("pointerMove", 40.0, 0),
            {"type": "pointerDown", "button": 0},
            tick("pointerMove", 120.0, 400),
            {"type": "pointerUp", "button": 0},
        ]})
    };
    browser.actions(json!([finger("left", -1.0), finger("right", 1.0)]));
    browser.wait_for("the zoom", PATIENCE, |b| spread(b) > 1.5 * before);
}

/// The HTML controls drive the session: a scene chosen in the list loads, a slider's value
/// reaches the solver, and a grid the page does not offer is refused with a message while the
/// cloth stays.
#[test]
fn the_controls_switch_scenes_and_refuse_bad_values() {
    let _one = one_browser_at_a_time();
    let address = server::serve(site());
    let browser = open_paused_drape(&address, 2);
    let set = |id: &str, value: &str| {
        let script = "const e = document.getElementById(arguments[0]); e.value = arguments[1]; \
                      e.dispatchEvent(new Event('change'));";
        browser.eval(script, json!([id, value]));
    };
    let text = |id: &str| browser.eval("return document.getElementById(arguments[0]).textContent;", json!([id]));

    set("substeps", "3");
    browser.wait_for("3 substeps", PATIENCE, |_| text("substeps-value") == json!("3"));

    browser.click("#scene option[value=hanging]");
    browser.wait_for("the hanging scene", PATIENCE, |b| b.state("scene") == json!("hanging"));
    let hanging = Scene::new(SceneKind::Hanging, GRID).unwrap();
    assert_eq!(browser.state("particles"), json!(hanging.model.particle_count()));
    // Background reads go on for the new cloth (a switch drops the read on its way).
    let count = 3 * hanging.model.particle_count();
    browser.wait_for("the new cloth's positions", PATIENCE, |b| {
        b.state("positions").as_array().is_some_and(|p| p.len() == count)
    });

    set("grid", "1000");
    browser.wait_for("the refusal", PATIENCE, |_| {
        text("message").as_str().is_some_and(|m| m.contains("1000") && m.contains("256"))
    });
    assert_eq!(browser.state("grid"), json!(GRID));
    let shown = browser.eval("return document.getElementById('grid').value;", json!([]));
    assert_eq!(shown, json!(GRID.to_string()), "the grid control did not spring back");
}

/// The canvas follows the page: after the window shrinks, its drawing buffer matches its new
/// size on the page (in device pixels), and pointer positions use that size.
#[test]
fn the_canvas_follows_the_window_size() {
    let _one = one_browser_at_a_time();
    let address = server::serve(site());
    let browser = open_paused_drape(&address, 2);
    let before = browser.state("viewport");
    browser.resize_window(800, 500);
    let sizes = "const c = document.getElementById('canvas'); \
                 return [c.width, c.height, Math.round(c.clientWidth * devicePixelRatio), \
                         Math.round(c.clientHeight * devicePixelRatio), c.clientWidth, c.clientHeight];";
    browser.wait_for("the drawing buffer to match the smaller canvas", PATIENCE, |b| {
        let s = b.eval(sizes, json!([]));
        s[0] == s[2] && s[1] == s[3] && b.state("viewport") != before
    });
    let (viewport, shown) = (browser.state("viewport"), browser.eval(sizes, json!([])));
    assert_eq!([&viewport[0], &viewport[1]], [&shown[4], &shown[5]], "pointer positions use another size");
    let (old, new) = (before[0].as_f64().unwrap(), viewport[0].as_f64().unwrap());
    assert!(new < old, "the canvas did not shrink: {before} → {viewport}");
}

/// A browser without WebGPU gets the page's explanation, not a blank canvas: one with WebGPU
/// turned off (`navigator.gpu` is there, but gives no adapter), and one without `navigator.gpu`.
#[test]
fn a_browser_without_webgpu_is_told_so() {
    let _one = one_browser_at_a_time();
    let address = server::serve(site());
    let told = |browser: &Browser| {
        browser.open(&format!("{address}/"));
        browser.wait_for("the no-WebGPU status", PATIENCE, |b| b.state("status") == json!("no-webgpu"));
        let shown = browser.eval("return !document.getElementById('no-webgpu').hidden;", json!([]));
        assert_eq!(shown, json!(true));
    };
    let turned_off = Browser::start(false);
    told(&turned_off);
    drop(turned_off);
    let without_api = Browser::start(true);
    without_api.before_every_page("delete Navigator.prototype.gpu;");
    told(&without_api);
}

/// A glTF file picked in the page's file input, or dropped on the canvas, becomes the cloth
/// (pinned where painted: those particles stay put as the rest falls); a file that is not glTF
/// is refused with a message while the cloth stays.
#[test]
fn a_gltf_file_picked_or_dropped_becomes_the_cloth() {
    let _one = one_browser_at_a_time();
    let address = server::serve(site());
    let browser = open_paused_drape(&address, 2);
    let glb = support::gltf_asset::painted_curtain().glb();
    let dir = std::env::temp_dir().join(format!("drape-web-gltf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("curtain.glb");
    std::fs::write(&file, &glb).unwrap();
    browser.upload("#gltf", &file);
    browser.wait_for("the picked glTF cloth", PATIENCE, |b| b.state("scene") == json!("curtain.glb"));
    assert_eq!(browser.state("particles"), json!(9));
    browser.click("#pause");
    browser.wait_for("its positions after a few frames", PATIENCE, |b| {
        b.state("positionsFrame").as_u64().is_some_and(|f| f >= 5)
            && b.state("positions").as_array().is_some_and(|p| p.len() == 27)
    });
    let positions = vec3s(&browser.state("positions"));
    let top: Vec<&Vec3> = positions.iter().filter(|p| p.y == 2.0).collect();
    assert_eq!(top.len(), 3, "the painted row stays pinned: {positions:?}");
    // The bottom row stands on the collider node's cube (its top face at y = 1 m), the others move.
    let free: Vec<&Vec3> = positions.iter().filter(|p| p.y != 2.0).collect();
    assert!(free.iter().all(|p| p.y >= 1.0), "a free particle went into the cube: {positions:?}");
    assert!(free.iter().all(|p| p.y != 1.5 && p.y != 1.0), "a free particle stayed where it was: {positions:?}");
    let drop = "const bytes = Uint8Array.from(atob(arguments[0]), c => c.charCodeAt(0)); \
                const transfer = new DataTransfer(); \
                transfer.items.add(new File([bytes], arguments[1])); \
                document.getElementById('canvas').dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));";
    browser.eval(drop, json!([support::gltf_asset::base64(&glb), "dropped.glb"]));
    browser.wait_for("the dropped glTF cloth", PATIENCE, |b| b.state("scene") == json!("dropped.glb"));
    let shown = browser.eval("return document.getElementById('scene').value;", json!([]));
    assert_eq!(shown, json!("dropped.glb"), "the cloth list shows the file");
    browser.eval(drop, json!([support::gltf_asset::base64(b"not glTF"), "broken.glb"]));
    let text = |id: &str| browser.eval("return document.getElementById(arguments[0]).textContent;", json!([id]));
    browser.wait_for("the refusal", PATIENCE, |_| {
        text("message").as_str().is_some_and(|m| m.contains("cannot load glTF") && m.contains("broken.glb"))
    });
    assert_eq!(browser.state("scene"), json!("dropped.glb"), "the cloth stays");
    std::fs::remove_dir_all(dir).unwrap();
}

/// The page's bodies: "drop ball" drops one over the cloth, which the page reads back in the
/// background; the mouse grabs it there (paused, it stays where it was dropped) and lets it go;
/// "remove bodies" removes it.
#[test]
fn bodies_are_dropped_grabbed_and_removed_on_the_page() {
    let _one = one_browser_at_a_time();
    let address = server::serve(site());
    let browser = open_paused_drape(&address, 2);
    browser.click("#drop-ball");
    browser.wait_for("the ball", PATIENCE, |b| b.state("bodies") == json!(1));
    browser.wait_for("the ball read back", PATIENCE, |b| vec3s(&b.state("bodyCenters")).len() == 1);
    let center = vec3s(&browser.state("bodyCenters"))[0];
    let start = PageCamera::of(&browser).project(center).round();
    browser.pointer_actions(
        "mouse",
        json!([
            {"type": "pointerMove", "x": start.x as i32, "y": start.y as i32, "origin": "viewport", "duration": 0},
            {"type": "pointerDown", "button": 0},
            {"type": "pointerMove", "x": start.x as i32 + 40, "y": start.y as i32, "origin": "viewport", "duration": 200},
        ]),
    );
    browser.wait_for("the grabbed ball", PATIENCE, |b| b.state("grabbedBody") == json!(true));
    browser.release_pointers();
    browser.wait_for("the release", PATIENCE, |b| b.state("grabbedBody") == json!(false));
    browser.click("#remove-bodies");
    browser.wait_for("no bodies", PATIENCE, |b| b.state("bodies") == json!(0));
}
