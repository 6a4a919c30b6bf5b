//! The viewer (feature `viewer`): camera and picking math, offscreen pictures, mouse grabbing,
//! and the demo and embed programs run as a user runs them — headless, with bad input, and in
//! a window under X (Xvfb is started when installed).

mod support;

use drape::viewer::camera::{OrbitCamera, Ray};
use drape::viewer::headless::render_picture;
use drape::viewer::panel::{self, PanelAction, PanelState};
use drape::viewer::pick::{pick_particle, ray_collider, ray_sphere};
use drape::viewer::renderer::{rest_uvs, DrawOptions, SceneRenderer, SceneView};
use drape::viewer::session::{ClothSetup, ClothSource, ParamOverrides, Session};
use drape::viewer::{Offscreen, OFFSCREEN_FORMAT};
use drape::{ClothMesh, ClothModel, Collider, DistanceField, Error, GridPlane, Pose, SceneKind};
use glam::{Quat, Vec2, Vec3};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------- camera and picking (no GPU)

#[test]
fn the_cursor_ray_passes_through_the_point_drawn_under_it() {
    let camera =
        OrbitCamera { target: Vec3::new(0.3, 0.8, -0.2), yaw: 2.1, pitch: 0.6, distance: 3.5, ..Default::default() };
    let viewport = Vec2::new(640.0, 400.0);
    for point in [Vec3::new(0.0, 0.5, 0.0), Vec3::new(1.0, 1.2, -0.5), Vec3::new(-0.7, 0.0, 0.4)] {
        let ndc = camera.view_projection(viewport.x / viewport.y).project_point3(point);
        let pixel = Vec2::new((ndc.x + 1.0) * 0.5 * viewport.x, (1.0 - ndc.y) * 0.5 * viewport.y);
        let ray = camera.ray(pixel, viewport);
        let along = (point - ray.origin).dot(ray.direction);
        let miss = (point - ray.at(along)).length();
        assert!(along > 0.0 && miss < 1e-4, "ray misses {point} by {miss} m");
        assert!((ray.direction.length() - 1.0).abs() < 1e-5);
    }
}

#[test]
fn orbit_pan_and_zoom_keep_the_view_well_formed() {
    let mut camera = OrbitCamera::default();
    camera.orbit(0.0, 10.0);
    assert!(camera.pitch < std::f32::consts::FRAC_PI_2, "the view must not flip over the pole");
    assert!(camera.view_projection(1.5).is_finite());
    let forward = camera.forward();
    let target = camera.target;
    camera.pan(Vec2::new(100.0, -40.0), 400.0);
    assert!(
        camera.target != target && (camera.target - target).dot(forward).abs() < 1e-5,
        "pan moves in the view plane"
    );
    camera.zoom(1e-9);
    assert!(camera.distance > 0.0 && camera.view_projection(1.5).is_finite());
    camera.zoom(f32::NAN);
    assert!(camera.distance.is_finite());
    let framed = OrbitCamera::framing(Vec3::new(-1.0, 0.0, -1.0), Vec3::new(1.0, 1.2, 1.0));
    let clip = framed.view_projection(1.6);
    for corner in [Vec3::new(-1.0, 0.0, -1.0), Vec3::new(1.0, 1.2, 1.0), Vec3::new(1.0, 0.0, -1.0)] {
        let ndc = clip.project_point3(corner);
        assert!(ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0 && (0.0..=1.0).contains(&ndc.z), "{corner} is off screen");
    }
}

fn flat_grid() -> ClothMesh {
    ClothMesh::grid(5, 5, 0.25, GridPlane::Horizontal, Vec3::new(-0.5, 1.0, -0.5)).expect("grid")
}

#[test]
fn picking_grabs_the_vertex_under_the_cursor() {
    let mesh = flat_grid();
    let down = |x: f32, z: f32| Ray { origin: Vec3::new(x, 3.0, z), direction: Vec3::NEG_Y };
    let tolerance = |_: f32| 0.05;
    // Vertex 12 is the centre (0, 1, 0); a ray slightly off it still picks it.
    let (vertex, t) = pick_particle(&down(0.04, -0.03), &mesh.positions, &mesh.triangles, tolerance).expect("hit");
    assert_eq!(vertex, 12);
    assert!((t - 2.0).abs() < 1e-5);
    // Just outside the cloth, within the tolerance of corner 24 (0.5, 1, 0.5).
    assert_eq!(pick_particle(&down(0.53, 0.52), &mesh.positions, &mesh.triangles, tolerance).map(|p| p.0), Some(24));
    assert_eq!(pick_particle(&down(2.0, 2.0), &mesh.positions, &mesh.triangles, tolerance), None);
    // Looking up from below still finds the cloth (both sides count), and rays pointing away do not.
    let up = Ray { origin: Vec3::new(0.0, -1.0, 0.0), direction: Vec3::Y };
    assert_eq!(pick_particle(&up, &mesh.positions, &mesh.triangles, tolerance).map(|p| p.0), Some(12));
    let away = Ray { origin: Vec3::new(0.0, 3.0, 0.0), direction: Vec3::Y };
    assert_eq!(pick_particle(&away, &mesh.positions, &mesh.triangles, tolerance), None);
}

#[test]
fn rays_hit_spheres_and_planes_where_geometry_says() {
    let ray = Ray { origin: Vec3::new(0.0, 0.5, 5.0), direction: Vec3::NEG_Z };
    assert!((ray_sphere(&ray, Vec3::new(0.0, 0.5, 0.0), 0.5).expect("hit") - 4.5).abs() < 1e-5);
    assert_eq!(ray_sphere(&ray, Vec3::new(0.0, 2.0, 0.0), 0.5), None);
    let inside = Ray { origin: Vec3::ZERO, direction: Vec3::X };
    assert!((ray_sphere(&inside, Vec3::ZERO, 2.0).expect("exit") - 2.0).abs() < 1e-6);
    let point = ray.intersect_plane(Vec3::new(0.0, 0.0, 1.0), Vec3::Z).expect("crosses");
    assert!((point - Vec3::new(0.0, 0.5, 1.0)).length() < 1e-6);
    assert_eq!(ray.intersect_plane(Vec3::ZERO, Vec3::X), None, "parallel");
}

/// Capsules and boxes are picked where their surfaces are: a bar's side and end, a turned box's
/// face, a ray that passes beside them, and nothing beyond the reach.
#[test]
fn rays_hit_capsules_and_boxes_where_geometry_says() {
    let bar = Collider::capsule(Vec3::new(-1.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0), 0.1);
    let down = |x: f32| Ray { origin: Vec3::new(x, 2.0, 0.0), direction: Vec3::NEG_Y };
    assert!((ray_collider(&down(0.5), &bar, 100.0).expect("side") - 1.9).abs() < 2e-4);
    let end = (0.1f32 * 0.1 - 0.05 * 0.05).sqrt();
    assert!((ray_collider(&down(1.05), &bar, 100.0).expect("end") - (2.0 - end)).abs() < 2e-4);
    assert_eq!(ray_collider(&down(1.2), &bar, 100.0), None);
    assert_eq!(ray_collider(&down(0.5), &bar, 1.0), None, "beyond the reach");
    let turned = Collider::cuboid(Vec3::ZERO, Vec3::new(0.5, 0.2, 0.5), Quat::from_rotation_z(0.3));
    let hit = ray_collider(&down(0.0), &turned, 100.0).expect("face");
    assert!((hit - (2.0 - 0.2 / 0.3f32.cos())).abs() < 2e-4, "{hit}");
    assert_eq!(ray_collider(&down(0.0), &Collider::ground(0.0), 100.0), None, "planes are not picked");
}

#[test]
fn meshes_without_uvs_get_a_planar_projection() {
    let mut mesh = flat_grid();
    mesh.uvs.iter_mut().for_each(|uv| *uv = Vec2::ZERO);
    let model = ClothModel::new(mesh, 0.2, &[]).expect("model");
    let uvs = rest_uvs(&model);
    let (min, max) = uvs.iter().fold((Vec2::INFINITY, Vec2::NEG_INFINITY), |(a, b), uv| (a.min(*uv), b.max(*uv)));
    assert_eq!((min, max), (Vec2::ZERO, Vec2::ONE), "the square's UVs span the unit square");
}

/// The live plot keeps the last ten seconds: older samples are dropped as new ones arrive, the
/// rest kept in order with their values.
#[test]
fn the_live_plot_keeps_the_last_ten_seconds() {
    let mut history = drape::viewer::panel::History::default();
    for k in 0..=200 {
        let t = f64::from(k) * 0.1;
        history.push(t, 10.0 + t, (k % 2 == 0).then_some(1.0 + 0.001 * k as f32));
    }
    let samples: Vec<_> = history.samples().collect();
    assert!((samples[0].0 - 10.0).abs() < 1e-9 && (samples.last().unwrap().0 - 20.0).abs() < 1e-9, "{:?}", samples[0]);
    assert!(samples.windows(2).all(|w| w[0].0 < w[1].0));
    assert!(samples.iter().all(|&(t, ms, _)| (ms - 10.0 - t).abs() < 1e-9));
    assert_eq!(samples.iter().filter(|s| s.2.is_some()).count(), 51);
}

// ---------------------------------------------------------------- sessions and pictures (GPU)

fn session(source: ClothSource, grid: u32) -> (wgpu::Device, wgpu::Queue, Session) {
    let (device, queue) = support::device();
    let session = Session::new(&device, &queue, source, grid, ParamOverrides::default()).expect("session");
    (device, queue, session)
}

fn run_frames(session: &mut Session, frames: u32) {
    for _ in 0..frames {
        assert!(session.step());
    }
}

/// Fraction of pixels that differ noticeably between two pictures.
fn changed_fraction(a: &image::RgbaImage, b: &image::RgbaImage) -> f32 {
    assert_eq!(a.dimensions(), b.dimensions());
    let changed =
        a.pixels().zip(b.pixels()).filter(|(p, q)| p.0.iter().zip(q.0).any(|(x, y)| x.abs_diff(y) > 8)).count();
    changed as f32 / (a.width() * a.height()) as f32
}

#[test]
fn pictures_show_the_cloth_and_its_motion() {
    let (device, queue, mut session) = session(ClothSource::Scene(SceneKind::Drape), 16);
    let size = [160, 100];
    let camera = session.framing_camera();
    let picture = |session: &Session, cloth| {
        let options = DrawOptions { cloth, ..Default::default() };
        render_picture(&device, &queue, session, &camera, size, options).expect("picture")
    };
    let first = picture(&session, true);
    let coverage = changed_fraction(&first, &picture(&session, false));
    assert!((0.03..0.8).contains(&coverage), "the cloth covers {:.1} % of the picture", 100.0 * coverage);
    run_frames(&mut session, 60);
    let later = picture(&session, true);
    let coverage = changed_fraction(&later, &picture(&session, false));
    assert!(coverage > 0.02, "the draped cloth covers {:.1} % of the picture", 100.0 * coverage);
    let moved = changed_fraction(&first, &later);
    assert!(moved > 0.01, "frames 0 and 60 differ in only {:.2} % of pixels", 100.0 * moved);
}

/// The hammock scene's ball is drawn from the solver's bodies buffer: hiding the bodies changes
/// the picture where the ball is (a small part of it), and that part moves down the picture as
/// the ball falls.
#[test]
fn pictures_show_the_bodies() {
    let (device, queue, mut session) = session(ClothSource::Scene(SceneKind::Hammock), 8);
    let size = [160, 100];
    let camera = session.framing_camera();
    let picture = |session: &Session, bodies| {
        let options = DrawOptions { bodies, ..Default::default() };
        render_picture(&device, &queue, session, &camera, size, options).expect("picture")
    };
    // The rows the ball covers: where hiding the bodies changes the picture.
    let ball_rows = |session: &Session| {
        let (with, without) = (picture(session, true), picture(session, false));
        let changed: Vec<u32> = with
            .enumerate_pixels()
            .filter(|&(x, y, p)| p.0.iter().zip(without.get_pixel(x, y).0).any(|(a, b)| a.abs_diff(b) > 8))
            .map(|(_, y, _)| y)
            .collect();
        let coverage = changed.len() as f32 / (size[0] * size[1]) as f32;
        assert!((0.005..0.2).contains(&coverage), "the ball covers {:.2} % of the picture", 100.0 * coverage);
        changed.iter().map(|&y| y as f32).sum::<f32>() / changed.len() as f32
    };
    let before = ball_rows(&session);
    run_frames(&mut session, 10);
    let after = ball_rows(&session);
    assert!(after > before + 2.0, "the falling ball's rows went from {before} to {after}");
}

/// The panel's bodies: each shape it offers drops a body over the cloth, which falls; a reset
/// puts the dropped bodies back where they were dropped; removing them leaves none.
#[test]
fn the_panel_drops_and_removes_bodies() {
    let (_device, _queue, mut session) = session(ClothSource::Scene(SceneKind::Drape), 8);
    for (_, shape) in drape::viewer::session::DROPPED_SHAPES {
        session.drop_body(shape).expect("drop");
    }
    assert_eq!(session.solver().body_count(), 3);
    run_frames(&mut session, 5);
    session.reset().expect("reset");
    assert_eq!(session.solver().body_count(), 3, "a reset keeps the dropped bodies");
    session.remove_bodies().expect("remove");
    assert_eq!(session.solver().body_count(), 0);
}

/// A camera level with `target`, looking along −Z from `distance` metres.
fn head_on(target: Vec3, distance: f32) -> OrbitCamera {
    OrbitCamera { target, yaw: 0.0, pitch: 0.0, distance, ..Default::default() }
}

/// Grabs the drape scene's sphere (centre (0, 0.5, 0), r 0.5) from the side, below the cloth,
/// drags it to the right and lets go.
fn drag_sphere_right(session: &mut Session) {
    let camera = head_on(Vec3::new(0.0, 0.5, 0.0), 4.0);
    let viewport = Vec2::new(400.0, 400.0);
    assert!(session.begin_grab(&camera.ray(0.5 * viewport, viewport), camera.forward(), |_| 0.01).expect("grab"));
    session.drag(&camera.ray(Vec2::new(260.0, 200.0), viewport)).expect("drag");
    session.end_grab().expect("release");
}

/// The red checks of the cloth's front side (see shaders/viewer/cloth.wgsl).
fn is_front_red(p: &image::Rgba<u8>) -> bool {
    let [r, g, b, _] = p.0.map(i32::from);
    r > g + 60 && r > b + 60
}

/// The dark blue checks of the cloth's back side (unlit from behind, so dark; the sky is far
/// less saturated).
fn is_back_blue(p: &image::Rgba<u8>) -> bool {
    let [r, g, b, _] = p.0.map(i32::from);
    2 * b > 3 * r && b > g + 15
}

/// Share of the picture's pixels that pass `test`.
fn share(picture: &image::RgbaImage, test: fn(&image::Rgba<u8>) -> bool) -> f32 {
    picture.pixels().filter(|p| test(p)).count() as f32 / (picture.width() * picture.height()) as f32
}

#[test]
fn the_cloth_is_two_sided_with_a_checker_in_rest_uvs() {
    let (device, queue, session) = session(ClothSource::Scene(SceneKind::Hanging), 16);
    // The curtain's front (counter-clockwise side) faces +Z.
    let view = |yaw: f32| {
        let camera = OrbitCamera { yaw, ..head_on(Vec3::new(0.0, 1.0, 0.0), 2.5) };
        render_picture(&device, &queue, &session, &camera, [120, 120], DrawOptions::default()).expect("picture")
    };
    let (front, back) = (view(0.0), view(std::f32::consts::PI));
    assert!(share(&front, is_front_red) > 0.1 && share(&front, is_back_blue) < 0.01, "front view");
    assert!(share(&back, is_back_blue) > 0.1 && share(&back, is_front_red) < 0.01, "back view");
    // A checker: along the middle row, the colour flips about once per check (16 per side).
    let row = front.height() / 2;
    let reds: Vec<bool> = (0..front.width()).map(|x| is_front_red(front.get_pixel(x, row))).collect();
    let flips = reds.windows(2).filter(|w| w[0] != w[1]).count();
    assert!((10..=40).contains(&flips), "{flips} colour changes across the cloth");
}

/// The record button's recording: the state when it starts, then every frame that stepped (a
/// paused frame adds none), one morph target each; loading another cloth ends it.
#[test]
fn a_recording_holds_every_frame_that_stepped() {
    let (_device, _queue, mut session) = session(ClothSource::Scene(SceneKind::Hanging), 6);
    assert_eq!(session.recorded_frames(), None);
    session.start_recording().expect("recording");
    let mut expected = 1;
    for paused in [false, false, true, false] {
        session.set_paused(paused);
        session.step();
        session.record_frame().expect("a frame");
        expected += usize::from(!paused);
    }
    assert_eq!(session.recorded_frames(), Some(4));
    let recording = session.stop_recording().expect("a recording");
    assert_eq!(session.recorded_frames(), None);
    let glb = recording.to_glb().unwrap();
    let document = gltf::Gltf::from_slice(&glb).unwrap();
    let targets = document.meshes().next().unwrap().primitives().next().unwrap().morph_targets().count();
    assert_eq!(targets, expected, "one morph target per recorded frame");
    session.start_recording().unwrap();
    session.load(ClothSource::Scene(SceneKind::Drape), 6).unwrap();
    assert_eq!(session.recorded_frames(), None, "a recording ends with its cloth");
}

#[test]
fn pause_step_reset_and_mode_switching_drive_the_simulation() {
    let (device, _queue, mut session) = session(ClothSource::Scene(SceneKind::Drape), 8);
    let encoder = || device.create_command_encoder(&Default::default());
    session.set_paused(true);
    assert!(!session.encode_frame(&mut encoder()), "a paused session records nothing");
    session.request_step();
    assert!(session.encode_frame(&mut encoder()), "a requested step runs while paused");
    assert!(!session.encode_frame(&mut encoder()), "and only once");
    assert_eq!(session.frames(), 1);
    session.set_paused(false);
    session.request_step();
    assert!(session.paused(), "a single step pauses a running session");
    assert!(session.encode_frame(&mut encoder()) && !session.encode_frame(&mut encoder()));
    assert_eq!(session.frames(), 2);
    let gauss_seidel = *session.params();
    session.toggle_mode().expect("to Jacobi");
    let relaxation = session.relaxation();
    assert_eq!(session.params().mode, drape::SolverMode::Jacobi { relaxation });
    session.toggle_mode().expect("to mass-spring");
    assert_eq!(session.params().mode, drape::SolverMode::MassSpring(session.mass_spring()));
    session.toggle_mode().expect("back");
    assert_eq!(*session.params(), gauss_seidel);
    // Springs too stiff for the scene's substeps: switching to them raises the substeps to the
    // fewest they are stable at.
    let stiff = drape::MassSpringParams { structural: 1e4, ..Default::default() };
    session.set_mode(drape::SolverMode::MassSpring(stiff)).expect("with more substeps");
    let model = session.solver().model();
    let network = drape::passes::springs::SpringNetwork::new(model);
    let fewest = network.min_stable_substeps(&stiff, gauss_seidel.time_step, 128);
    assert!(session.params().substeps > gauss_seidel.substeps);
    assert_eq!(Some(session.params().substeps), fewest);
    assert_eq!(session.mass_spring(), stiff, "the constants switching back to mass-spring uses");
    session.set_mode(gauss_seidel.mode).expect("back to Gauss-Seidel");
    assert_eq!(*session.params(), gauss_seidel, "leaving mass-spring restores the substeps");
    // A dragged sphere goes back to its place on reset.
    drag_sphere_right(&mut session);
    let initial = ClothSetup::load(&ClothSource::Scene(SceneKind::Drape), 8, None).expect("setup").colliders;
    assert_ne!(session.colliders(), initial.as_slice());
    session.reset().expect("reset");
    assert_eq!(session.frames(), 0);
    assert_eq!(session.colliders(), initial.as_slice());
}

/// The window's statistics come from background reads: what arrives is the state at the request,
/// the same as a blocking read of it (tests/gpu_reference.rs checks that later frames do not
/// change it). A blocking read supersedes a pending background one, and a reset clears the
/// statistics.
#[test]
fn the_panel_statistics_arrive_from_background_reads() {
    let (_device, _queue, mut session) = session(ClothSource::Scene(SceneKind::Hanging), 12);
    run_frames(&mut session, 5);
    assert!(session.metrics().is_none());
    assert!(session.request_metrics());
    let deadline = Instant::now() + Duration::from_secs(60);
    while !session.poll_metrics().expect("poll") {
        assert!(Instant::now() < deadline, "the requested statistics never arrived");
        std::thread::sleep(Duration::from_millis(1));
    }
    let background = *session.metrics().expect("collected statistics are shown");
    assert!(background.kinetic_energy > 0.0, "the cloth should be falling after five frames");
    assert_eq!(session.refresh_metrics().expect("blocking read"), background);

    assert!(session.request_metrics());
    run_frames(&mut session, 3);
    let latest = session.refresh_metrics().expect("blocking read");
    assert_ne!(latest, background);
    assert!(!session.poll_metrics().expect("poll"), "the older background read came back after the blocking one");
    assert_eq!(session.metrics(), Some(&latest));
    session.reset().expect("reset");
    assert!(session.metrics().is_none());
}

/// Showing the panel changes nothing: values set on the command line outside the sliders'
/// ranges stay, and the flag's wind survives its display as speed and heading.
#[test]
fn the_panel_keeps_command_line_values_outside_its_slider_ranges() {
    let overrides =
        ParamOverrides { substeps: Some(100), iterations: Some(60), time_step: Some(0.001), ..Default::default() };
    let (device, queue) = support::device();
    for (scene, grid) in [(SceneKind::Hanging, 300), (SceneKind::Flag, 8)] {
        let session = Session::new(&device, &queue, ClothSource::Scene(scene), grid, overrides);
        let session = session.expect("session");
        let mut state = PanelState {
            grid,
            file: None,
            message: None,
            fps: 0.0,
            draw: DrawOptions::default(),
            history: Default::default(),
        };
        let context = egui::Context::default();
        let mut actions = Vec::new();
        for _ in 0..2 {
            let mut output =
                context.run_ui(egui::RawInput::default(), |ui| actions.extend(panel::show(ui, &mut state, &session)));
            output.textures_delta.clear();
        }
        let changes = actions.iter().filter(|a| matches!(a, PanelAction::SetParams(_) | PanelAction::Load(..)));
        assert_eq!(changes.count(), 0, "{scene}: {actions:?}");
        assert_eq!(state.grid, grid);
    }
}

#[test]
fn a_grabbed_particle_follows_the_cursor_and_is_released() {
    let (_, _, mut session) = session(ClothSource::Scene(SceneKind::Hanging), 16);
    // The hanging curtain spans x ∈ [−0.5, 0.5], y ∈ [0.5, 1.5] at z = 0; look at it head-on.
    let camera = head_on(Vec3::new(0.0, 1.0, 0.0), 3.0);
    let viewport = Vec2::new(400.0, 400.0);
    let tolerance = |_: f32| 0.02;
    assert!(session.begin_grab(&camera.ray(0.5 * viewport, viewport), camera.forward(), tolerance).expect("grab"));
    let grabbed = session.markers().into_iter().find(|m| m.kind == drape::viewer::renderer::MarkerKind::Grab);
    let grabbed = grabbed.expect("the grabbed particle is marked").position;
    assert!(grabbed.distance(Vec3::new(0.0, 1.0, 0.0)) < 0.05, "grabbed the particle at {grabbed}");
    let index =
        session.solver().model().mesh().positions.iter().position(|p| p.distance(grabbed) < 1e-6).expect("a vertex");
    session.drag(&camera.ray(Vec2::new(300.0, 150.0), viewport)).expect("drag");
    let target = session.solver().pins().targets()[index];
    assert!(target.z.abs() < 1e-5 && target.x > 0.2 && target.y > 1.1, "dragged in the cloth's plane to {target}");
    run_frames(&mut session, 3);
    let positions = session.read_positions().expect("readback");
    assert!(positions[index].distance(target) < 1e-5, "the particle is at {} instead of {target}", positions[index]);
    session.end_grab().expect("release");
    assert!(!session.solver().pins().is_pinned(index as u32), "released particles are free again");
    // A pinned corner stays pinned where it is dropped.
    let corner = Vec3::new(-0.5, 1.5, 0.0);
    let ndc = camera.view_projection(1.0).project_point3(corner);
    let pixel = Vec2::new((ndc.x + 1.0) * 200.0, (1.0 - ndc.y) * 200.0);
    assert!(session.begin_grab(&camera.ray(pixel, viewport), camera.forward(), tolerance).expect("grab"));
    session.drag(&camera.ray(pixel - Vec2::new(40.0, 0.0), viewport)).expect("drag");
    session.end_grab().expect("release");
    assert!(session.solver().pins().is_pinned(0));
    let dropped = session.solver().pins().targets()[0];
    assert!(dropped.x < -0.7 && (dropped.y - 1.5).abs() < 1e-4, "the corner stays where it was dropped: {dropped}");
}

#[test]
fn the_sphere_can_be_dragged() {
    let (_device, _queue, mut session) = session(ClothSource::Scene(SceneKind::Drape), 8);
    drag_sphere_right(&mut session);
    let Some(&Collider::Sphere { center, radius }) = session.colliders().get(1) else { panic!("no sphere") };
    assert_eq!(radius, 0.5);
    assert!(center.x > 0.1 && (center.y - 0.5).abs() < 1e-4 && center.z.abs() < 1e-4, "sphere moved to {center}");
}

/// The session times its step with GPU timestamps written by empty passes around it, which
/// needs only `TIMESTAMP_QUERY` (all WebGPU offers), read back without waiting: a positive time
/// no longer than a whole frame's submit-and-wait.
#[test]
fn the_session_times_its_step_with_timestamp_queries_alone() {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter =
        pollster::block_on(wgpu::util::initialize_adapter_from_env_or_default(&instance, None)).expect("an adapter");
    assert!(adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY), "the adapter has no timestamp queries");
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_features: wgpu::Features::TIMESTAMP_QUERY,
        required_limits: drape::required_limits(&adapter),
        ..Default::default()
    }))
    .expect("a device");
    let mut session =
        Session::new(&device, &queue, ClothSource::Scene(SceneKind::Drape), 8, ParamOverrides::default()).unwrap();
    let mut slowest_frame = 0f64;
    for _ in 0..200 {
        let start = Instant::now();
        session.step();
        device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
        slowest_frame = slowest_frame.max(start.elapsed().as_secs_f64() * 1e3);
        if session.frame_ms().1 {
            break;
        }
    }
    let (ms, timed) = session.frame_ms();
    assert!(timed, "no GPU time after 200 frames");
    assert!(ms > 0.0 && ms <= slowest_frame, "step {ms} ms, slowest frame {slowest_frame} ms");
}

/// The panel's "Where a frame goes": a session profiling its steps reports each pass's GPU time
/// from background reads, keeps profiling the cloths it loads later, and stops when asked; a
/// device without timestamp queries refuses it and stays as it was.
#[test]
fn the_session_times_each_pass_when_asked() {
    let (plain_device, plain_queue) = support::device();
    let mut plain =
        Session::new(&plain_device, &plain_queue, ClothSource::Scene(SceneKind::Drape), 8, ParamOverrides::default())
            .unwrap();
    if !plain_device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
        assert!(plain.set_profiling(true).is_err() && !plain.profiling());
    }
    let (device, queue, _) = drape::headless_device(drape::HeadlessOptions { timestamps: true }).unwrap();
    let mut session =
        Session::new(&device, &queue, ClothSource::Scene(SceneKind::Drape), 8, ParamOverrides::default()).unwrap();
    session.set_profiling(true).unwrap();
    let profile = |session: &mut Session| {
        for _ in 0..200 {
            session.step();
            device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
            if let Some(profile) = session.profile() {
                return profile.clone();
            }
        }
        panic!("no profile after 200 frames");
    };
    let drape = profile(&mut session);
    let dispatches: usize = drape.passes.iter().map(|p| p.dispatches).sum();
    assert_eq!(dispatches, session.solver().dispatches_per_frame());
    assert!(drape.total_ms() > 0.0 && drape.passes.iter().all(|p| p.ms.is_finite() && p.ms >= 0.0), "{drape:?}");
    session.load(ClothSource::Scene(SceneKind::Hanging), 8).unwrap();
    assert!(session.profiling() && session.profile().is_none());
    let hanging = profile(&mut session);
    assert!(hanging.passes.iter().any(|p| p.pass == "tethers"), "{hanging:?}");
    session.set_profiling(false).unwrap();
    session.step();
    assert!(!session.profiling() && session.profile().is_none());
}

/// Collects the session's background read of positions (polls the device until it arrives).
fn collect_positions(session: &mut Session) -> (u64, Vec<Vec3>) {
    for _ in 0..1000 {
        if let Some(read) = session.poll_positions().expect("a read") {
            return read;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("the positions never arrived");
}

/// The web's way to grab: background reads of positions tagged with their frame, picking among
/// them; with none read yet only colliders are grabbed; positions of another length are a typed
/// error. A reset or another cloth drops a read on its way and the next one starts afresh.
#[test]
fn grabs_among_background_reads_work_across_resets_and_reloads() {
    let (_device, _queue, mut session) = session(ClothSource::Scene(SceneKind::Drape), 8);
    let camera = head_on(Vec3::new(0.0, 0.5, 0.0), 4.0);
    let viewport = Vec2::new(400.0, 400.0);
    let centre_ray = camera.ray(0.5 * viewport, viewport);
    assert!(session.begin_grab_among(&[], &centre_ray, camera.forward(), |_| 0.01).expect("a grab"));
    assert_eq!((session.grabbed_collider(), session.grabbed_particle()), (Some(1), None));
    session.end_grab().unwrap();
    assert!(matches!(
        session.begin_grab_among(&[Vec3::ZERO; 3], &centre_ray, camera.forward(), |_| 0.01),
        Err(drape::Error::Param(_))
    ));

    run_frames(&mut session, 3);
    assert!(session.request_positions());
    assert!(!session.request_positions(), "a second read while the first is on its way");
    session.reset().unwrap();
    assert!(session.request_positions(), "the reset dropped the read on its way");
    let (frame, rest) = collect_positions(&mut session);
    assert_eq!(frame, 0);
    assert_eq!(rest, session.solver().model().mesh().positions);
    // From above, the cloth's middle lies on the ray through the middle of the view.
    let above = OrbitCamera { target: Vec3::new(0.0, 0.5, 0.0), pitch: 1.5, distance: 4.0, ..Default::default() };
    let ray = above.ray(0.5 * viewport, viewport);
    assert!(session.begin_grab_among(&rest, &ray, above.forward(), |_| 0.05).expect("a grab"));
    assert!(session.grabbed_particle().is_some());
    session.end_grab().unwrap();

    assert!(session.request_positions());
    session.load(ClothSource::Scene(SceneKind::Hanging), 6).unwrap();
    assert!(session.request_positions(), "another cloth dropped the read on its way");
    let (frame, hanging) = collect_positions(&mut session);
    assert_eq!((frame, hanging.len()), (0, 49));
}

/// The capsules scene's bar (a capsule across x at 1 m) is grabbed and dragged like the
/// sphere, and keeps its shape.
#[test]
fn a_capsule_can_be_dragged() {
    let (_device, _queue, mut session) = session(ClothSource::Scene(SceneKind::Capsules), 4);
    let before = session.colliders()[1].clone();
    // Head-on along −z at the bar's height, from below the falling cloth's edge.
    let camera = head_on(Vec3::new(0.3, 1.0, 0.0), 4.0);
    let viewport = Vec2::new(400.0, 400.0);
    assert!(session.begin_grab(&camera.ray(0.5 * viewport, viewport), camera.forward(), |_| 0.01).expect("grab"));
    session.drag(&camera.ray(Vec2::new(200.0, 140.0), viewport)).expect("drag");
    session.end_grab().expect("release");
    let (Collider::Capsule { a, b, radius }, Collider::Capsule { a: a0, b: b0, radius: r0 }) =
        (session.colliders()[1].clone(), before)
    else {
        panic!("no bar")
    };
    let moved = a - a0;
    assert!(moved.y > 0.1 && moved.x.abs() < 1e-4 && moved.z.abs() < 1e-4, "the bar moved by {moved}");
    assert!((b - b0 - moved).length() < 1e-5 && radius == r0, "the bar keeps its shape");
}

/// Capsules and boxes are drawn where they are: the capsules scene seen head-on without the
/// cloth shows the bar's colour on its axis and not above it or past its end, and the box's
/// at its centre.
#[test]
fn capsules_and_boxes_are_drawn_where_they_are() {
    let (device, queue, session) = session(ClothSource::Scene(SceneKind::Capsules), 4);
    let camera = head_on(Vec3::new(0.0, 0.6, 0.0), 3.0);
    let options = DrawOptions { cloth: false, markers: false, ..DrawOptions::default() };
    let picture = render_picture(&device, &queue, &session, &camera, [160, 160], options).expect("picture");
    let projection = camera.view_projection(1.0);
    let collider_coloured = |p: Vec3| {
        let clip = projection * p.extend(1.0);
        let (x, y) = (clip.x / clip.w, clip.y / clip.w);
        let [r, g, b, _] = picture.get_pixel(((x + 1.0) * 80.0) as u32, ((1.0 - y) * 80.0) as u32).0.map(i32::from);
        // Green over red and blue, lit or in shade: neither the blue-grey sky nor the grey ground.
        g > r + 8 && g > b + 8
    };
    assert!(collider_coloured(Vec3::new(0.0, 1.0, 0.0)) && collider_coloured(Vec3::new(0.7, 1.0, 0.0)), "the bar");
    assert!(!collider_coloured(Vec3::new(0.0, 1.15, 0.0)) && !collider_coloured(Vec3::new(1.1, 1.0, 0.0)), "beside it");
    assert!(collider_coloured(Vec3::new(0.0, 0.22, 0.0)), "the box");
}

/// Mesh colliders are drawn at their poses, each with its own triangles, and follow their poses
/// when only those change: two tori of other sizes stood up facing the camera side by side show
/// the collider's colour on their rings and not in their holes, and swapped, each shows it where
/// the other was.
#[test]
fn mesh_colliders_are_drawn_at_their_poses() {
    let (device, queue, session) = session(ClothSource::Scene(SceneKind::Drape), 4);
    let torus = |major| Arc::new(DistanceField::from_mesh(&ClothMesh::torus(major, 0.1, 24, 12).unwrap(), 16).unwrap());
    let (large, small) = ((0.5, torus(0.5)), (0.3, torus(0.3)));
    let camera = head_on(Vec3::new(0.0, 1.0, 0.0), 4.0);
    let options = DrawOptions { cloth: false, markers: false, ..DrawOptions::default() };
    let target = Offscreen::new(&device, 200, 200).unwrap();
    let mut renderer = SceneRenderer::new(&device, OFFSCREEN_FORMAT, session.solver().model());
    let stood_up = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
    let projection = camera.view_projection(1.0);
    let (left, right) = (Vec3::new(-0.6, 1.0, 0.0), Vec3::new(0.7, 1.0, 0.0));
    for (at_left, at_right) in [(&large, &small), (&small, &large)] {
        let colliders = [(at_left, left), (at_right, right)].map(|((_, field), centre)| {
            Collider::mesh(field.clone(), Pose { translation: centre, rotation: stood_up })
        });
        renderer.prepare(
            &device,
            &queue,
            &SceneView { camera: &camera, aspect: 1.0, colliders: &colliders, markers: &[] },
        );
        let picture = target.capture(&device, &queue, &renderer, session.solver(), options).unwrap();
        let collider_coloured = |p: Vec3| {
            let clip = projection * p.extend(1.0);
            let (x, y) = (clip.x / clip.w, clip.y / clip.w);
            let [r, g, b, _] =
                picture.get_pixel(((x + 1.0) * 100.0) as u32, ((1.0 - y) * 100.0) as u32).0.map(i32::from);
            g > r + 8 && g > b + 8
        };
        for ((major, _), centre) in [(at_left, left), (at_right, right)] {
            let ring = [Vec3::X, Vec3::NEG_X, Vec3::Y, Vec3::NEG_Y].map(|d| centre + *major * d);
            assert!(ring.iter().all(|&p| collider_coloured(p)), "the ring of radius {major} around {centre}");
            assert!(!collider_coloured(centre), "the hole at {centre}");
            assert!(!collider_coloured(centre + Vec3::new(0.0, major + 0.25, 0.0)), "above the ring at {centre}");
        }
    }
}

#[test]
fn obj_cloths_load_with_their_top_pinned_and_bad_files_give_errors() {
    let dir = scratch_dir("obj");
    let obj = dir.join("curtain.obj");
    std::fs::write(&obj, "v 0 1 0\nv 1 1 0\nv 0 0 0\nv 1 0 0\nf 1 3 4\nf 1 4 2\n").expect("write");
    let setup = ClothSetup::load(&ClothSource::Obj(obj), 0, None).expect("a valid OBJ");
    let positions = &setup.model.mesh().positions;
    let pinned: Vec<Vec3> = (0..4).filter(|&i| setup.model.inverse_masses()[i] == 0.0).map(|i| positions[i]).collect();
    assert!(pinned.len() == 2 && pinned.iter().all(|p| p.y == 1.0), "the two top vertices are pinned: {pinned:?}");
    let below = Vec3::new(0.5, -0.1, 0.0);
    assert!(
        matches!(setup.colliders[..], [ref ground @ Collider::Plane { .. }] if ground.signed_distance(below) > 0.0),
        "one ground plane below the cloth: {:?}",
        setup.colliders
    );
    let level = dir.join("level.obj");
    std::fs::write(&level, "v 0 1 0\nv 1 1 0\nv 0 1 1\nv 1 1 1\nf 1 3 4\nf 1 4 2\n").expect("write");
    let setup = ClothSetup::load(&ClothSource::Obj(level), 0, None).expect("a valid OBJ");
    let positions = &setup.model.mesh().positions;
    let mut pinned: Vec<Vec3> =
        (0..4).filter(|&i| setup.model.inverse_masses()[i] == 0.0).map(|i| positions[i]).collect();
    pinned.sort_by(|a, b| a.x.total_cmp(&b.x));
    assert_eq!(pinned, [Vec3::new(0.0, 1.0, 0.0), Vec3::new(1.0, 1.0, 1.0)], "a level cloth hangs from two corners");
    let missing = ClothSetup::load(&ClothSource::Obj(dir.join("missing.obj")), 0, None);
    assert!(matches!(missing, Err(Error::Obj { .. })), "{missing:?}");
    let broken = dir.join("broken.obj");
    std::fs::write(&broken, "v 0 0 0\nf 1 2 3\n").expect("write");
    assert!(ClothSetup::load(&ClothSource::Obj(broken), 0, None).is_err());
}

// ---------------------------------------------------------------- the programs

/// A fresh directory for one test's files.
fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("drape-viewer-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// An example binary (`cargo test` builds the examples before it runs the tests).
fn example(name: &str) -> Command {
    let deps = std::env::current_exe().expect("test binary path");
    let path = deps.parent().and_then(Path::parent).expect("target dir").join("examples").join(name);
    assert!(path.exists(), "{} is missing: run `cargo test`, which builds the examples first", path.display());
    let mut command = Command::new(path);
    command.env("XDG_RUNTIME_DIR", scratch_dir("runtime"));
    command
}

/// Runs `command` to completion, killing it after `timeout`. Its output is drained while it
/// runs, so a chatty program cannot block on a full pipe.
fn run(command: &mut Command, timeout: Duration) -> Output {
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("piped")));
    let stderr = drain(Box::new(child.stderr.take().expect("piped")));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            panic!("{command:?} did not finish within {timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Output { status, stdout: stdout.join().expect("stdout"), stderr: stderr.join().expect("stderr") }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The runner's `--profile` times every pass of the frame: each dispatch under one pass, each
/// pass with a positive time, in frame order (the adapter here has timestamps).
#[test]
fn the_runner_profiles_every_pass() {
    let args = ["--scene", "hanging", "--grid", "12", "--frames", "4", "--substeps", "3", "--iterations", "2"];
    let out = run(example("headless").args(args).args(["--profile", "--json"]), Duration::from_secs(120));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let passes = report["profile"]["passes"].as_array().expect("a pass list");
    let names: Vec<&str> = passes.iter().filter_map(|p| p["pass"].as_str()).collect();
    assert_eq!(
        names,
        ["depenetration", "predict", "iterations", "tethers", "finalize_and_predict", "finalize", "normals"]
    );
    let dispatches: u64 = passes.iter().filter_map(|p| p["dispatches"].as_u64()).sum();
    assert_eq!(Some(dispatches), report["dispatches_per_frame"].as_u64());
    assert!(passes.iter().all(|p| p["ms"].as_f64().is_some_and(|ms| ms > 0.0)), "{passes:?}");
    let total = report["profile"]["total_ms"].as_f64().expect("a total");
    assert!(total > 0.0 && total.is_finite(), "{total}");
}

/// A glTF cloth in the demo's session and the runner: pinned where painted, its collider node
/// and a ground below; a missing file is a clear error.
#[test]
fn gltf_cloths_load_pinned_where_painted_in_the_demo_and_the_runner() {
    let dir = scratch_dir("gltf");
    let glb = dir.join("curtain.glb");
    std::fs::write(&glb, support::gltf_asset::painted_curtain().glb()).expect("write");
    let setup = ClothSetup::load(&ClothSource::Gltf(glb.clone()), 0, None).expect("a valid glTF");
    let positions = &setup.model.mesh().positions;
    let pinned: Vec<Vec3> = (0..9).filter(|&i| setup.model.inverse_masses()[i] == 0.0).map(|i| positions[i]).collect();
    assert!(pinned.len() == 3 && pinned.iter().all(|p| p.y == 2.0), "the painted top row is pinned: {pinned:?}");
    let (cube, ground) = (&setup.colliders[0], &setup.colliders[1]);
    assert!(matches!(cube, Collider::Mesh { .. }) && cube.signed_distance(Vec3::new(0.5, 0.5, 0.0)) < -0.4);
    assert!(matches!(ground, Collider::Plane { .. }) && ground.signed_distance(Vec3::ZERO) > 0.0, "{ground:?}");
    let args = ["--frames", "3", "--substeps", "2", "--iterations", "2", "--json", "--gltf"];
    let out = run(example("headless").args(args).arg(&glb), Duration::from_secs(120));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!((report["scene"].as_str(), report["particles"].as_u64()), (Some("gltf"), Some(9)));
    assert_eq!(report["non_finite"].as_u64(), Some(0));
    let missing = dir.join("no-such-file.glb");
    let out =
        run(example("demo").args(["--headless", "--frames", "1", "--gltf"]).arg(&missing), Duration::from_secs(120));
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("cannot load glTF") && stderr.contains("no-such-file.glb"), "unclear error: {stderr}");
}

#[test]
fn the_demo_rejects_missing_and_malformed_obj_files() {
    let dir = scratch_dir("bad-obj");
    let missing = dir.join("no-such-file.obj");
    let out =
        run(example("demo").args(["--headless", "--frames", "1", "--obj"]).arg(&missing), Duration::from_secs(120));
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("cannot load OBJ") && stderr.contains("no-such-file.obj"), "unclear error: {stderr}");
    let malformed = dir.join("malformed.obj");
    std::fs::write(&malformed, "v 0 0 0\nv 1 0 0\nf 1 2 7\n").expect("write");
    let out =
        run(example("demo").args(["--headless", "--frames", "1", "--obj"]).arg(&malformed), Duration::from_secs(120));
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.starts_with("error: ") && stderr.contains("malformed.obj"), "unclear error: {stderr}");
}

#[test]
fn the_demo_writes_a_headless_screenshot() {
    let png = scratch_dir("screenshot").join("drape.png");
    let out = run(
        example("demo")
            .args([
                "--headless",
                "--scene",
                "drape",
                "--grid",
                "16",
                "--frames",
                "30",
                "--width",
                "200",
                "--height",
                "120",
            ])
            .arg("--screenshot")
            .arg(&png),
        Duration::from_secs(300),
    );
    assert!(out.status.success(), "demo failed: {}", text(&out.stderr));
    assert!(text(&out.stdout).contains("non-finite: 0"), "{}", text(&out.stdout));
    let picture = image::open(&png).expect("a PNG").to_rgba8();
    assert_eq!(picture.dimensions(), (200, 120));
    let cloth = share(&picture, is_front_red) + share(&picture, is_back_blue);
    assert!(cloth > 0.01, "only {:.2} % of the screenshot shows the cloth's checks", 100.0 * cloth);
}

/// Without a display (neither `DISPLAY` nor `WAYLAND_DISPLAY`), the demo renders offscreen
/// instead of failing, into `drape.png` in the working folder, and says so.
#[cfg(all(unix, not(target_os = "macos")))]
#[test]
fn the_demo_without_a_display_renders_offscreen_and_says_where() {
    let folder = scratch_dir("no-display");
    let args = ["--scene", "hanging", "--grid", "8", "--frames", "3", "--width", "160", "--height", "100"];
    let mut demo = example("demo");
    demo.args(args).env_remove("DISPLAY").env_remove("WAYLAND_DISPLAY").current_dir(&folder);
    let out = run(&mut demo, Duration::from_secs(300));
    assert!(out.status.success(), "demo failed: {}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("no display") && stdout.contains("screenshot: drape.png"), "{stdout}");
    let picture = image::open(folder.join("drape.png")).expect("a PNG").to_rgba8();
    assert_eq!(picture.dimensions(), (160, 100));
}

#[cfg(all(unix, not(target_os = "macos")))]
/// An X display for window tests: a private Xvfb when installed (killed on drop), else the
/// session's `DISPLAY`.
struct XDisplay {
    name: String,
    server: Option<Child>,
}

#[cfg(all(unix, not(target_os = "macos")))]
impl XDisplay {
    fn start() -> Self {
        for number in 90..140 {
            if display_in_use(number) {
                continue;
            }
            // A dead server's lock and socket: the socket would read as ready before Xvfb is.
            let socket = format!("/tmp/.X11-unix/X{number}");
            let _ = std::fs::remove_file(format!("/tmp/.X{number}-lock"));
            let _ = std::fs::remove_file(&socket);
            let spawned = Command::new("Xvfb")
                .args([format!(":{number}").as_str(), "-screen", "0", "1280x800x24", "-nolisten", "tcp"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn();
            let Ok(mut server) = spawned else { break };
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(15) {
                if Path::new(&socket).exists() {
                    return Self { name: format!(":{number}"), server: Some(server) };
                }
                if server.try_wait().ok().flatten().is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = server.kill();
            let _ = server.wait();
        }
        match std::env::var("DISPLAY") {
            Ok(name) if !name.is_empty() => Self { name, server: None },
            _ => panic!("window tests need an X display: install Xvfb (apt-get install xvfb) or set DISPLAY"),
        }
    }
}

/// Whether X display `number` is taken: its lock file names a live process (a server killed
/// without cleaning up leaves a stale one).
#[cfg(all(unix, not(target_os = "macos")))]
fn display_in_use(number: u32) -> bool {
    let Ok(lock) = std::fs::read_to_string(format!("/tmp/.X{number}-lock")) else {
        return false;
    };
    lock.trim().parse::<u32>().map_or(true, |pid| Path::new(&format!("/proc/{pid}")).exists())
}

#[cfg(all(unix, not(target_os = "macos")))]
impl Drop for XDisplay {
    fn drop(&mut self) {
        if let Some(server) = &mut self.server {
            // SIGTERM, so that Xvfb removes its lock file and socket (SIGKILL leaves them).
            let terminated = Command::new("kill").args(["-TERM", &server.id().to_string()]).status();
            if !terminated.is_ok_and(|status| status.success()) {
                let _ = server.kill();
            }
            let _ = server.wait();
        }
    }
}

/// X11 desktops only: other systems have no Xvfb to run a window headless.
#[cfg(all(unix, not(target_os = "macos")))]
#[test]
fn the_window_demo_and_the_embed_example_run_and_exit_cleanly() {
    let display = XDisplay::start();
    let out = run(
        example("demo")
            .env("DISPLAY", &display.name)
            .env_remove("WAYLAND_DISPLAY")
            .args(["--frames", "20", "--grid", "16", "--width", "640", "--height", "400"]),
        Duration::from_secs(300),
    );
    assert!(out.status.success(), "windowed demo failed: {}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("frames: 20 ") && stdout.contains("non-finite: 0"), "{stdout}");
    let out = run(
        example("embed").env("DISPLAY", &display.name).env_remove("WAYLAND_DISPLAY").args(["--frames", "60"]),
        Duration::from_secs(300),
    );
    assert!(out.status.success(), "embed example failed: {}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lowest: f32 = stdout
        .split("lowest particle y: ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|y| y.parse().ok())
        .unwrap_or_else(|| panic!("no report in {stdout:?}"));
    assert!(stdout.starts_with("frames: 60 "), "{stdout}");
    assert!(lowest < 1.0 && lowest > -0.01, "the drape cloth fell from 1.2 m to {lowest} m and stays above the ground");
}

#[test]
fn keys_map_to_the_documented_commands() {
    use drape::viewer::controls::{command_for_key, Command};
    use winit::keyboard::{Key, NamedKey};
    let key = |text: &str| Key::Character(text.into());
    assert_eq!(command_for_key(&Key::Named(NamedKey::Space), false), Some(Command::TogglePause));
    assert_eq!(command_for_key(&key("S"), false), Some(Command::Step));
    assert_eq!(command_for_key(&key("r"), false), Some(Command::Reset));
    assert_eq!(command_for_key(&key("g"), true), Some(Command::ToggleMode));
    assert_eq!(command_for_key(&key("2"), false), Some(Command::Scene(SceneKind::Drape)));
    assert_eq!(command_for_key(&key("4"), false), Some(Command::Scene(SceneKind::Benchmark)));
    assert_eq!(command_for_key(&key("5"), false), Some(Command::Scene(SceneKind::Flag)));
    assert_eq!(command_for_key(&key("6"), false), Some(Command::Scene(SceneKind::Capsules)));
    assert_eq!(command_for_key(&key("8"), false), Some(Command::Scene(SceneKind::Stack)));
    assert_eq!(command_for_key(&key("9"), false), Some(Command::Scene(SceneKind::Spin)));
    assert_eq!(command_for_key(&key("0"), false), Some(Command::Scene(SceneKind::Mesh)));
    assert_eq!(command_for_key(&key("o"), false), Some(Command::FileScene));
    // The help lists the same keys, and the digits reach the first ten scenes, none of the
    // lab's tests or the layers; those and the cape are in the panel's list, after them.
    assert!(SceneKind::ALL[..10].iter().all(|k| !k.sets_its_steps()), "keyed scenes come first");
    assert_eq!(command_for_key(&key("1"), false), Some(Command::Scene(SceneKind::ALL[0])));
    let help = "1–9, 0: scenes · O: the --obj or --gltf file";
    assert!(drape::viewer::controls::CONTROLS.iter().any(|line| line.contains(help)), "{help}");
    assert_eq!(command_for_key(&Key::Named(NamedKey::Escape), false), Some(Command::Quit));
    let Some(Command::Orbit(yaw, 0.0)) = command_for_key(&Key::Named(NamedKey::ArrowLeft), false) else {
        panic!("arrows orbit")
    };
    assert!(yaw > 0.0);
    assert!(matches!(command_for_key(&Key::Named(NamedKey::ArrowUp), true), Some(Command::Pan(p)) if p.y < 0.0));
    let zoom_in = command_for_key(&key("+"), false);
    assert!(matches!(zoom_in, Some(Command::Zoom(f)) if f < 1.0));
    assert_eq!(command_for_key(&Key::Named(NamedKey::PageUp), false), zoom_in);
}

/// The fabric chooser: a session turns its cloth into a fabric (a membrane, hinges of the
/// fabric's rigidity, its density) and back, keeps the fabric for the cloths it loads later, and
/// the lab's scenes come with one of their own.
#[test]
fn the_session_switches_the_cloth_to_a_fabric_and_back() {
    let (_device, _queue, mut session) = session(ClothSource::Scene(SceneKind::Drape), 8);
    let denim = drape::Fabric::named("denim").unwrap();
    session.set_fabric(Some(denim)).unwrap();
    let model = session.solver().model();
    assert!(matches!(model.stretch_model(), drape::StretchModel::Membrane(m) if m == denim.moduli));
    assert_eq!(model.bending_rigidity(), Some(denim.bending));
    let density = model.masses().iter().sum::<f32>() / model.mesh().area();
    assert!((density / denim.density - 1.0).abs() < 1e-4, "density {density}");
    session.load(ClothSource::Scene(SceneKind::Hanging), 8).unwrap();
    assert_eq!(session.solver().model().bending_rigidity(), Some(denim.bending), "kept for the next cloth");
    session.set_fabric(None).unwrap();
    assert_eq!(session.solver().model().stretch_model(), drape::StretchModel::Edges);
    let cantilever = ClothSetup::load(&ClothSource::Scene(SceneKind::Cantilever), 8, None).unwrap();
    assert!(cantilever.model.bending_rigidity().is_some(), "the lab's tests are of a fabric");
}

/// The cape's top edge is attached to its bar, which hangs by its ropes, when the scene loads,
/// again after a reset and after the bending model rebuilds the cloth.
#[test]
fn the_capes_attachments_are_made_at_every_start() {
    let (_device, _queue, mut session) = session(ClothSource::Scene(SceneKind::Cape), 8);
    let attached = |s: &Session| {
        let solver = s.solver();
        solver.body_count() == 1 && solver.body_ropes().len() == 2 && solver.body_attachments().count() == 9
    };
    assert!(attached(&session), "on load");
    run_frames(&mut session, 5);
    session.reset().unwrap();
    assert!(attached(&session), "after a reset");
    session.set_bending_model(drape::BendingModel::Isometric).unwrap();
    assert!(attached(&session), "after a rebuild");
}

/// A rigid body is grabbed at the point under the cursor and hangs from it: the hammock's ball,
/// grabbed head on and dragged sideways over 20 frames, follows the cursor (the point held
/// within 1e-4 m of it, marked) by a rope of length zero added to the solver's; let go, the rope is gone and
/// the ball falls on. The web's way grabs it among bodies read in the background.
#[test]
fn a_grabbed_body_follows_the_cursor_and_is_let_go() {
    let (_device, _queue, mut session) = session(ClothSource::Scene(SceneKind::Hammock), 8);
    // The ball: r = 0.2 at (0, 1.6, 0), over the canvas; look at it head on.
    let camera = head_on(Vec3::new(0.0, 1.6, 0.0), 3.0);
    let viewport = Vec2::new(400.0, 400.0);
    assert!(session.begin_grab(&camera.ray(0.5 * viewport, viewport), camera.forward(), |_| 0.01).expect("grab"));
    assert!(session.holds_a_body() && session.grabbed_particle().is_none());
    assert_eq!(session.solver().body_ropes().len(), 1);
    for step in 1..=10 {
        session.drag(&camera.ray(Vec2::new(200.0 + 10.0 * step as f32, 200.0), viewport)).expect("drag");
        run_frames(&mut session, 2);
    }
    let rope = session.solver().body_ropes()[0];
    assert!(rope.anchor.x > 0.2 && (rope.anchor.y - 1.6).abs() < 1e-3, "dragged to {}", rope.anchor);
    let marked = session
        .markers()
        .into_iter()
        .any(|m| m.kind == drape::viewer::renderer::MarkerKind::Grab && m.position == rope.anchor);
    assert!(marked, "the point held is marked");
    run_frames(&mut session, 20);
    let ball = session.read_bodies().unwrap()[0];
    let off = ball.pose().to_world(rope.point).distance(rope.anchor);
    assert!(off < 1e-4, "the point held is {off} m off the cursor");
    session.end_grab().expect("let go");
    assert!(!session.holds_a_body() && session.solver().body_ropes().is_empty());
    run_frames(&mut session, 5);
    let fallen = session.read_bodies().unwrap()[0];
    assert!(fallen.position.y < ball.position.y - 0.01, "let go, the ball stays at {}", fallen.position);

    session.reset().unwrap();
    assert!(session.request_positions());
    let (_, positions) = collect_positions(&mut session);
    let ray = camera.ray(0.5 * viewport, viewport);
    assert!(session.begin_grab_among(&positions, &ray, camera.forward(), |_| 0.01).expect("a grab"));
    assert!(session.holds_a_body(), "among the bodies read in the background");
    session.remove_bodies().unwrap();
    assert!(!session.holds_a_body() && session.drag(&ray).is_ok());
}

/// The cape's bodies through resets: a reset lets go of a held bar and its drag rope, keeping
/// the scene's two ropes; once the bodies are removed a reset brings back none of the scene's
/// attachments or ropes, and a ball dropped then is not hung on the bar's ropes.
#[test]
fn resets_after_grabbing_and_removing_bodies_keep_the_scene_consistent() {
    let (_device, _queue, mut session) = session(ClothSource::Scene(SceneKind::Cape), 8);
    run_frames(&mut session, 2);
    let bar = session.read_bodies().unwrap()[0].position;
    let camera = OrbitCamera { target: bar, yaw: 0.0, pitch: 0.0, distance: 3.0, ..Default::default() };
    let viewport = Vec2::new(400.0, 400.0);
    assert!(session.begin_grab(&camera.ray(0.5 * viewport, viewport), camera.forward(), |_| 0.001).unwrap());
    assert!(session.holds_a_body() && session.solver().body_ropes().len() == 3);
    session.reset().unwrap();
    assert!(!session.holds_a_body() && session.solver().body_ropes().len() == 2);
    session.remove_bodies().unwrap();
    session.reset().unwrap();
    let solver = session.solver();
    assert_eq!((solver.body_count(), solver.body_ropes().len(), solver.body_attachments().count()), (0, 0, 0));
    session.drop_body(drape::BodyShape::Sphere { radius: 0.1 }).unwrap();
    session.reset().unwrap();
    let solver = session.solver();
    assert_eq!((solver.body_count(), solver.body_ropes().len(), solver.body_attachments().count()), (1, 0, 0));
    run_frames(&mut session, 2);
}
