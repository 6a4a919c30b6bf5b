//! Attachments to colliders: a particle attached to a point of a moving, turning collider is on
//! that point at the end of every frame (no lag), is released with that point's velocity, and
//! bad requests get typed errors; on the GPU and the CPU reference, in both projective modes.

mod support;

use drape::{
    ClothMesh, ClothModel, Collider, CpuSolver, Error, GpuSolver, GridPlane, Pose, Scene, SceneKind, SolverMode,
    SolverParams,
};
use glam::{Quat, Vec3};
use support::{device, largest, max_distance};

const MODES: [SolverMode; 2] = [SolverMode::GaussSeidel, SolverMode::Jacobi { relaxation: 1.5 }];

/// The box's pose at time `t`: carried along x at 5 m/s, 1 m up, turning about y at 2 rad/s.
fn box_pose(t: f32) -> Pose {
    Pose { translation: Vec3::new(5.0 * t, 1.0, 0.0), rotation: Quat::from_rotation_y(2.0 * t) }
}

/// A bar-shaped box (its shape at the origin) and a curtain of 9 × 6 particles 5 cm apart whose
/// top row lies 10 cm under the bar where it starts ([`box_pose`] at 0).
fn curtain_under_a_bar() -> (ClothModel, Collider) {
    let mesh = ClothMesh::grid(9, 6, 0.05, GridPlane::Vertical, Vec3::new(-0.2, 0.9, 0.0)).unwrap();
    let bar = Collider::cuboid(Vec3::ZERO, Vec3::new(0.3, 0.02, 0.02), Quat::IDENTITY);
    (ClothModel::new(mesh, 0.2, &[]).unwrap(), bar)
}

/// The curtain's top row, attached to the bar where it hangs, follows the bar as it is carried
/// at 5 m/s and turned at 2 rad/s: at the end of every frame for a second each attached particle
/// is within 1e-4 m of its point of the bar and moves with it, within 2 mm/s of the point's
/// velocity then (the last substep's chord; a path straight across the frame, as a pin moved
/// frame by frame takes, is 7 mm/s off), on the GPU and the CPU, in both modes, and the two
/// agree on the whole curtain.
#[test]
fn an_attached_edge_follows_a_moving_turning_bar_without_lag() {
    let (device, queue) = device();
    let (model, bar) = curtain_under_a_bar();
    let top: Vec<u32> = (0..9).collect();
    let rest = model.mesh().positions.clone();
    let local = |i: u32| box_pose(0.0).to_local(rest[i as usize]);
    for mode in MODES {
        let params = SolverParams { mode, ..Default::default() };
        let dt = params.time_step;
        let mut gpu = GpuSolver::new(&device, &queue, &model, params, std::slice::from_ref(&bar)).unwrap();
        let mut cpu = CpuSolver::new(&model, params, std::slice::from_ref(&bar)).unwrap();
        gpu.place_colliders(&[box_pose(0.0)]).unwrap();
        cpu.place_colliders(&[box_pose(0.0)]).unwrap();
        for &i in &top {
            gpu.attach(i, 0, rest[i as usize]).unwrap();
            cpu.attach(i, 0, rest[i as usize]).unwrap();
        }
        for frame in 1..=60 {
            let pose = box_pose(frame as f32 * dt);
            gpu.set_collider_poses(&[pose]).unwrap();
            cpu.set_collider_poses(&[pose]).unwrap();
            gpu.step();
            cpu.step();
            let (positions, velocities) = (gpu.read_positions().unwrap(), gpu.read_velocities().unwrap());
            let states = [("GPU", &positions, &velocities), ("CPU", &cpu.positions, &cpu.velocities)];
            for (name, x, v) in states {
                let lag = largest(top.iter().map(|&i| x[i as usize].distance(pose.to_world(local(i)))));
                assert!(lag < 1e-4, "{mode:?}, {name}, frame {frame}: an attached particle {lag} m off its point");
                let point_velocity =
                    |i: usize| Vec3::new(5.0, 0.0, 0.0) + Vec3::new(0.0, 2.0, 0.0).cross(x[i] - pose.translation);
                let slip = largest(top.iter().map(|&i| v[i as usize].distance(point_velocity(i as usize))));
                assert!(
                    slip < 2e-3,
                    "{mode:?}, {name}, frame {frame}: an attached particle {slip} m/s off its point's velocity"
                );
            }
        }
        let positions = gpu.read_positions().unwrap();
        let apart = max_distance(&positions, &cpu.positions);
        assert!(apart < 1e-4, "{mode:?}: the GPU and the CPU {apart} m apart");
        let centre = positions.iter().sum::<Vec3>() / positions.len() as f32;
        assert!(centre.x > 4.0, "{mode:?}: the curtain was not carried along ({centre})");
    }
}

/// Released, an attached particle keeps its point's velocity: a triangle in zero gravity,
/// attached half a metre from a sphere carried at 5 m/s, moves at 5 m/s (within 1e-4) when it
/// is released, and a frame later still does (no jump), on the GPU and the CPU.
#[test]
fn a_released_attachment_leaves_no_velocity_jump() {
    let (device, queue) = device();
    let mesh = ClothMesh::new(
        vec![Vec3::new(0.0, 0.5, 0.0), Vec3::new(0.1, 0.5, 0.0), Vec3::new(0.0, 0.5, 0.1)],
        vec![[0, 1, 2]],
        None,
    )
    .unwrap();
    let model = ClothModel::new(mesh, 0.2, &[]).unwrap();
    let sphere = Collider::sphere(Vec3::ZERO, 0.2);
    let params = SolverParams { gravity: Vec3::ZERO, damping: 0.0, ..Default::default() };
    let dt = params.time_step;
    let carried = |frame: u32| Pose { translation: Vec3::new(5.0 * frame as f32 * dt, 0.0, 0.0), ..Pose::IDENTITY };
    let expected = Vec3::new(5.0, 0.0, 0.0);
    let off = |velocities: &[Vec3]| largest(velocities.iter().map(|v| v.distance(expected)));
    let mut gpu = GpuSolver::new(&device, &queue, &model, params, std::slice::from_ref(&sphere)).unwrap();
    let mut cpu = CpuSolver::new(&model, params, std::slice::from_ref(&sphere)).unwrap();
    for i in 0..3 {
        gpu.attach(i, 0, model.mesh().positions[i as usize]).unwrap();
        cpu.attach(i, 0, model.mesh().positions[i as usize]).unwrap();
    }
    for frame in 1..=10 {
        gpu.set_collider_poses(&[carried(frame)]).unwrap();
        cpu.set_collider_poses(&[carried(frame)]).unwrap();
        gpu.step();
        cpu.step();
    }
    assert!(off(&gpu.read_velocities().unwrap()) < 1e-4 && off(&cpu.velocities) < 1e-4, "attached");
    for i in 0..3 {
        gpu.unpin(i).unwrap();
        cpu.pins.unpin(i).unwrap();
    }
    gpu.step();
    cpu.step();
    let (gpu_v, cpu_v) = (gpu.read_velocities().unwrap(), cpu.velocities.clone());
    assert!(off(&gpu_v) < 1e-4, "the GPU's released triangle: {gpu_v:?}");
    assert!(off(&cpu_v) < 1e-4, "the CPU's released triangle: {cpu_v:?}");
}

/// `attach_within` attaches the free particles within the distance of the collider's surface
/// where they are (a flat sheet over a sphere: those the sphere's signed distance says), and
/// leaves the others free, on the GPU and the CPU alike.
#[test]
fn attach_within_takes_the_particles_near_the_surface() {
    let (device, queue) = device();
    let mesh = ClothMesh::grid(11, 11, 0.05, GridPlane::Horizontal, Vec3::new(-0.25, 0.32, -0.25)).unwrap();
    let model = ClothModel::new(mesh, 0.2, &[]).unwrap();
    let sphere = Collider::sphere(Vec3::ZERO, 0.3);
    let expected: Vec<u32> = (0..model.particle_count() as u32)
        .filter(|&i| sphere.signed_distance(model.mesh().positions[i as usize]) <= 0.05)
        .collect();
    assert!(expected.len() > 4 && expected.len() < 60, "{} particles near the sphere", expected.len());
    let params = SolverParams::default();
    let mut gpu = GpuSolver::new(&device, &queue, &model, params, std::slice::from_ref(&sphere)).unwrap();
    let mut cpu = CpuSolver::new(&model, params, std::slice::from_ref(&sphere)).unwrap();
    assert_eq!(gpu.attach_within(0, 0.05).unwrap(), expected);
    assert_eq!(cpu.attach_within(0, 0.05).unwrap(), expected);
    for i in 0..model.particle_count() as u32 {
        let attached = expected.contains(&i);
        assert_eq!(gpu.pins().attachment(i).is_some(), attached, "particle {i}");
        assert_eq!(cpu.pins.attachment(i).is_some(), attached, "particle {i}");
    }
    // They hold the sheet up where it lies: the attached particles do not move.
    for _ in 0..10 {
        gpu.step();
    }
    let positions = gpu.read_positions().unwrap();
    let moved = largest(expected.iter().map(|&i| positions[i as usize].distance(model.mesh().positions[i as usize])));
    assert!(moved < 1e-6, "an attached particle moved {moved} m");
}

/// A collider or particle that is not the solver's, a point that is not finite, a new target for
/// an attached particle, new colliders while one is attached, a negative distance: typed errors,
/// on the GPU and the CPU.
#[test]
fn attachments_refuse_bad_input() {
    let (device, queue) = device();
    let (model, bar) = curtain_under_a_bar();
    let params = SolverParams::default();
    let mut gpu = GpuSolver::new(&device, &queue, &model, params, std::slice::from_ref(&bar)).unwrap();
    let mut cpu = CpuSolver::new(&model, params, std::slice::from_ref(&bar)).unwrap();
    let pin_error = |result: Result<(), Error>| matches!(result, Err(Error::Pin(_)));
    let n = model.particle_count() as u32;
    assert!(pin_error(gpu.attach(0, 1, Vec3::ZERO)) && pin_error(cpu.attach(0, 1, Vec3::ZERO)), "no collider 1");
    assert!(matches!(gpu.attach(n, 0, Vec3::ZERO), Err(Error::ParticleOutOfRange { .. })));
    assert!(matches!(cpu.attach(n, 0, Vec3::ZERO), Err(Error::ParticleOutOfRange { .. })));
    assert!(pin_error(gpu.attach(0, 0, Vec3::NAN)) && pin_error(cpu.attach(0, 0, Vec3::NAN)));
    let distance = |result: Result<Vec<u32>, Error>| matches!(result, Err(Error::Param(e)) if e.name == "distance");
    assert!(distance(gpu.attach_within(0, -0.1)) && distance(cpu.attach_within(0, f32::NAN)));
    assert!(matches!(gpu.attach_within(3, 0.1), Err(Error::Pin(_))));
    gpu.attach(0, 0, Vec3::ZERO).unwrap();
    cpu.attach(0, 0, Vec3::ZERO).unwrap();
    assert!(pin_error(gpu.set_pin_target(0, Vec3::ONE)) && pin_error(cpu.pins.set_target(0, Vec3::ONE)));
    assert!(pin_error(gpu.set_colliders(&[])) && pin_error(cpu.set_colliders(&[])), "collider 0 is in use");
    let other = [Collider::sphere(Vec3::ZERO, 0.1)];
    assert!(pin_error(gpu.set_colliders(&other)) && pin_error(cpu.set_colliders(&other)), "it would carry it off");
    gpu.unpin(0).unwrap();
    cpu.pins.unpin(0).unwrap();
    gpu.set_colliders(&[]).unwrap();
    cpu.set_colliders(&[]).unwrap();
}

/// The cape scene: its bar, hung by two ropes and let go swung out, swings to and fro (its
/// centre passes under the anchors and reaches 0.2 m beyond them on either side) with the cape
/// attached to it: at every 10th frame for two seconds the cape's top edge is within 1e-4 m of
/// its points on the bar and each rope's point within its length of its anchor (1e-4 m), and
/// nothing becomes non-finite.
#[test]
fn the_cape_swings_on_its_bar() {
    let (device, queue) = device();
    let scene = Scene::new(SceneKind::Cape, 16).unwrap();
    let mut gpu = GpuSolver::new(&device, &queue, &scene.model, scene.params, &scene.colliders).unwrap();
    scene.objects.make(&mut gpu).unwrap();
    assert_eq!(scene.objects.body_attachments.len(), 17, "the top edge");
    let mut swing = Vec::new();
    for frame in 1..=120 {
        gpu.step();
        if frame % 10 == 0 {
            let (x, bar) = (gpu.read_positions().unwrap(), gpu.read_bodies().unwrap()[0]);
            let off = |a: &drape::BodyAttachment| x[a.particle as usize].distance(bar.pose().to_world(a.point));
            let lag = largest(scene.objects.body_attachments.iter().map(off));
            assert!(lag < 1e-4, "frame {frame}: the top edge {lag} m off the bar");
            for rope in &scene.objects.body_ropes {
                let stretch = bar.pose().to_world(rope.point).distance(rope.anchor) - rope.length;
                assert!(stretch < 1e-4, "frame {frame}: a rope {stretch} m longer than it is");
            }
            swing.push(bar.position.z);
        }
    }
    assert_eq!(gpu.metrics().unwrap().non_finite, 0);
    let (back, forth) = (largest(swing.iter().map(|z| -z)), largest(swing.iter().copied()));
    assert!(back > 0.2 && forth > 0.2, "the bar swung {back} m back and {forth} m forth");
}
