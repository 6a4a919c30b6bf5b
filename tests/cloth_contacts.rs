//! What cloths keep between them in self-collision: each cloth's own thickness and friction
//! (`ClothModel::with_contact`) and the friction of a pair (`ClothModel::with_pair_friction`).
//! Tested against contact geometry (a sheet rests on another at the mean of their thicknesses)
//! and Coulomb's law on an incline (a sheet slides on another by the pair's friction alone).

mod support;

use drape::passes::self_collision::cloth_contacts::ClothContacts;
use drape::{ClothMesh, ClothModel, Error, GpuSolver, GridPlane, SelfCollision, SolverMode, SolverParams};
use glam::{Quat, Vec3};
use support::{device, largest, smallest};

const MODES: [SolverMode; 2] = [SolverMode::GaussSeidel, SolverMode::Jacobi { relaxation: 1.5 }];

/// A square sheet of `n`² particles 2 cm apart, its first corner at `origin`.
fn sheet(n: u32, origin: Vec3) -> ClothModel {
    let mesh = ClothMesh::grid(n, n, 0.02, GridPlane::Horizontal, origin).unwrap();
    ClothModel::new(mesh, 0.2, &[]).unwrap()
}

/// Three sheets: 0 with its own contact (1 cm, μ 0.2), 1 with the solver's, 2 with its own
/// (2 cm, μ 0.4), and silk-on-leather between 0 and 2 (μ 0.9).
fn three_sheets() -> ClothModel {
    let a = sheet(3, Vec3::ZERO).with_contact(0, SelfCollision { thickness: 0.01, friction: 0.2 }).unwrap();
    let b = sheet(4, Vec3::new(0.0, 0.5, 0.0));
    let c =
        sheet(3, Vec3::new(0.0, 1.0, 0.0)).with_contact(0, SelfCollision { thickness: 0.02, friction: 0.4 }).unwrap();
    ClothModel::joined(&[a, b, c]).unwrap().with_pair_friction(2, 0, 0.9).unwrap()
}

/// A cloth against itself keeps its own thickness and friction, every bit; two cloths the mean
/// of their thicknesses and frictions, unless their pair has its own; a cloth without its own
/// takes the solver's. Joining joined models and refitting keep each cloth's contact and each
/// pair's friction.
#[test]
fn each_pair_of_cloths_keeps_the_mean_thickness_and_its_own_friction() {
    let defaults = SelfCollision { thickness: 0.03, friction: 0.6 };
    let contacts = ClothContacts::new(&three_sheets(), &defaults);
    let pair = |a, b| {
        let pair = contacts.between(a, b);
        (pair.thickness, pair.friction)
    };
    assert_eq!(pair(0, 0), (0.01, 0.2));
    assert_eq!(pair(1, 1), (0.03, 0.6));
    assert_eq!(pair(2, 2), (0.02, 0.4));
    let close = |(h, mu): (f32, f32), (h_expected, mu_expected): (f32, f32)| {
        (h - h_expected).abs() < 1e-8 && (mu - mu_expected).abs() < 1e-7
    };
    for (a, b, expected) in [(0, 1, (0.02, 0.4)), (1, 2, (0.025, 0.5)), (0, 2, (0.015, 0.9))] {
        assert!(close(pair(a, b), expected), "cloths {a} and {b}: {:?}", pair(a, b));
        assert_eq!(pair(a, b), pair(b, a), "symmetric");
    }
    assert_eq!((contacts.largest_thickness(), contacts.smallest_thickness()), (0.03, 0.01));
    assert_eq!(contacts.cell_size(0.02), 0.03);
    assert!((contacts.reach(0) - 0.02).abs() < 1e-8 && (contacts.nearest(2) - 0.015).abs() < 1e-8);
    assert_eq!((contacts.particle_cloth(8), contacts.particle_cloth(9), contacts.particle_cloth(24)), (0, 1, 1));
    assert_eq!((contacts.triangle_cloth(7), contacts.triangle_cloth(8), contacts.triangle_cloth(26)), (0, 1, 2));

    // Joined again after another sheet, each keeps its contact and the pair its friction.
    let again = ClothModel::joined(&[sheet(2, Vec3::new(0.0, 2.0, 0.0)), three_sheets()]).unwrap();
    let moved = ClothContacts::new(&again, &defaults);
    assert_eq!(moved.between(1, 1), contacts.between(0, 0));
    assert_eq!(moved.between(3, 1), contacts.between(2, 0));
    assert_eq!(again.pair_frictions()[0].cloths, [1, 3]);
    let denim = drape::Fabric::named("denim").unwrap();
    let refitted = three_sheets().refit_to(&denim).unwrap();
    assert_eq!(ClothContacts::new(&refitted, &defaults), contacts);
    // A pair set twice keeps the last friction.
    let twice = three_sheets().with_pair_friction(0, 2, 0.1).unwrap();
    assert_eq!(twice.pair_frictions().len(), 1);
    assert_eq!(ClothContacts::new(&twice, &defaults).between(0, 2).friction, 0.1);
}

/// A cloth that is not the model's, a thickness or friction out of range: typed errors.
#[test]
fn contact_settings_refuse_bad_input() {
    let named =
        |result: Result<ClothModel, Error>, name: &str| matches!(result, Err(Error::Param(e)) if e.name == name);
    let good = SelfCollision::new(0.01);
    assert!(named(three_sheets().with_contact(3, good), "contact"));
    assert!(named(sheet(3, Vec3::ZERO).with_contact(1, good), "contact"));
    for thickness in [0.0, -0.01, 1.5, f32::NAN, f32::INFINITY] {
        let bad = SelfCollision { thickness, ..good };
        assert!(named(sheet(3, Vec3::ZERO).with_contact(0, bad), "self_collision.thickness"), "{thickness}");
    }
    for friction in [-0.1, f32::NAN, f32::INFINITY] {
        let bad = SelfCollision { friction, ..good };
        assert!(named(sheet(3, Vec3::ZERO).with_contact(0, bad), "self_collision.friction"), "{friction}");
        assert!(named(three_sheets().with_pair_friction(0, 1, friction), "pair_friction"), "{friction}");
    }
    assert!(named(three_sheets().with_pair_friction(0, 3, 0.5), "pair_friction"));
    assert!(named(three_sheets().with_pair_friction(7, 1, 0.5), "pair_friction"));
}

/// A pinned square a metre and a half across (two triangles, so that a sheet on it touches
/// their faces only), tilted by `angle` about z, with the contact `floor`; and a sheet of 6²
/// particles with the contact `upper`, lying on it at `height` above its face, near its upper
/// edge. Returns the joined model and the direction down the slope.
fn sheet_on_a_floor(angle: f32, floor: SelfCollision, upper: SelfCollision, height: f32) -> (ClothModel, Vec3) {
    let tilt = Quat::from_rotation_z(angle);
    let mut square = ClothMesh::grid(2, 2, 1.5, GridPlane::Horizontal, Vec3::new(-0.75, 0.0, -0.75)).unwrap();
    for p in &mut square.positions {
        *p = tilt * *p;
    }
    let floor = ClothModel::new(square, 0.2, &[0, 1, 2, 3]).unwrap().with_contact(0, floor).unwrap();
    let mut mesh = ClothMesh::grid(6, 6, 0.02, GridPlane::Horizontal, Vec3::new(0.45, 0.0, -0.05)).unwrap();
    for p in &mut mesh.positions {
        *p = tilt * (*p + Vec3::Y * height);
    }
    let sheet = ClothModel::new(mesh, 0.2, &[]).unwrap().with_contact(0, upper).unwrap();
    (ClothModel::joined(&[floor, sheet]).unwrap(), tilt * Vec3::NEG_X)
}

/// Parameters for [`sheet_on_a_floor`]: no damping, self-collision on (its own thickness and
/// friction unused: every cloth has its own), in `mode`.
fn floor_params(mode: SolverMode) -> SolverParams {
    SolverParams { damping: 0.0, mode, self_collision: Some(SelfCollision::new(0.05)), ..Default::default() }
}

/// The mean of particles `from..` of `values` (the upper sheet's, all of equal mass).
fn mean_from(values: &[Vec3], from: usize) -> Vec3 {
    values[from..].iter().sum::<Vec3>() / (values.len() - from) as f32
}

/// A sheet 3 cm thick dropped 5 mm onto a floor 1 cm thick settles 2 cm above it, the mean
/// of the two, each cloth's surface half its thickness from its particles (within a few
/// substeps' fall, `g·Δt²`, which the contacts take out over the next), in both modes.
#[test]
fn a_sheet_rests_on_another_at_the_mean_of_their_thicknesses() {
    let (device, queue) = device();
    let floor = SelfCollision { thickness: 0.01, friction: 0.5 };
    let upper = SelfCollision { thickness: 0.03, friction: 0.5 };
    let (model, _) = sheet_on_a_floor(0.0, floor, upper, 0.025);
    for mode in MODES {
        let mut solver = GpuSolver::new(&device, &queue, &model, floor_params(mode), &[]).unwrap();
        for _ in 0..60 {
            solver.step();
        }
        let positions = solver.read_positions().unwrap();
        let heights: Vec<f32> = positions[4..].iter().map(|p| p.y).collect();
        let (low, high) = (smallest(heights.iter().copied()), largest(heights.iter().copied()));
        assert!(low > 0.0198 && high < 0.0201, "{mode:?}: the sheet rests from {low} to {high} m above the floor");
        let speed = largest(solver.read_velocities().unwrap()[4..].iter().map(|v| v.length()));
        assert!(speed < 1e-3, "{mode:?}: still moving at {speed} m/s");
    }
}

/// A sheet on a floor tilted by 20° (tan 20° = 0.36) slides or holds by the friction between
/// the two, whatever each cloth's own: Coulomb's `a = g(sin θ − μ cos θ)` within 3 % over half
/// a second where the pair's μ is 0.1, set on the pair (each cloth's own 0.9) or the mean of
/// theirs (0.05 and 0.15); not a tenth of a millimetre in half a second where the pair's is 0.5
/// (each cloth's own 0.05). In both modes, on the GPU.
#[test]
fn a_sheet_slides_on_another_by_their_pair_friction() {
    let (device, queue) = device();
    let angle = 20f32.to_radians();
    let contact = |thickness: f32, friction: f32| SelfCollision { thickness, friction };
    let (h_floor, h_sheet) = (0.01, 0.02);
    let on_floor = |floor_mu: f32, sheet_mu: f32| {
        sheet_on_a_floor(angle, contact(h_floor, floor_mu), contact(h_sheet, sheet_mu), 0.015)
    };
    let coulomb = 9.81 * (angle.sin() - 0.1 * angle.cos());
    let (gripping, downhill) = on_floor(0.9, 0.9);
    let cases = [
        ("the pair's 0.1", gripping.with_pair_friction(0, 1, 0.1).unwrap(), Some(coulomb)),
        ("the mean of 0.05 and 0.15", on_floor(0.05, 0.15).0, Some(coulomb)),
        ("the pair's 0.5", on_floor(0.05, 0.05).0.with_pair_friction(1, 0, 0.5).unwrap(), None),
    ];
    for (name, model, expected) in cases {
        for mode in MODES {
            let mut solver = GpuSolver::new(&device, &queue, &model, floor_params(mode), &[]).unwrap();
            let mut run = |frames: usize| {
                for _ in 0..frames {
                    solver.step();
                }
                let (x, v) = (solver.read_positions().unwrap(), solver.read_velocities().unwrap());
                (mean_from(&x, 4), mean_from(&v, 4).dot(downhill))
            };
            let (start, early) = run(20);
            let (end, late) = run(30);
            match expected {
                Some(coulomb) => {
                    let acceleration = (late - early) / 0.5;
                    assert!(
                        (acceleration - coulomb).abs() <= 0.03 * coulomb,
                        "{name}, {mode:?}: acceleration {acceleration} m/s², Coulomb {coulomb}"
                    );
                }
                None => {
                    let creep = end.distance(start);
                    assert!(creep < 1e-4, "{name}, {mode:?}: crept {creep} m in half a second");
                }
            }
        }
    }
}

/// The GPU reads each cloth's thickness and each pair's friction from its table as the CPU
/// reference does: a far-away sheet of its own contact first (so that the floor and the sliding
/// sheet are cloths 1 and 2 of 3, with their pair's friction set and the others' means), the
/// sheet sliding down the tilted floor for 30 frames, positions within 1e-5 m in both modes.
#[test]
fn the_gpu_reads_each_pairs_contact_as_the_reference_does() {
    let (device, queue) = device();
    let angle = 20f32.to_radians();
    let floor = SelfCollision { thickness: 0.01, friction: 0.9 };
    let upper = SelfCollision { thickness: 0.02, friction: 0.7 };
    let (model, _) = sheet_on_a_floor(angle, floor, upper, 0.015);
    let far =
        sheet(3, Vec3::new(5.0, 0.0, 0.0)).with_contact(0, SelfCollision { thickness: 0.04, friction: 0.0 }).unwrap();
    let model = ClothModel::joined(&[far, model]).unwrap().with_pair_friction(2, 1, 0.1).unwrap();
    for mode in MODES {
        let mut gpu = GpuSolver::new(&device, &queue, &model, floor_params(mode), &[]).unwrap();
        let mut cpu = drape::CpuSolver::new(&model, floor_params(mode), &[]).unwrap();
        for _ in 0..30 {
            gpu.step();
            cpu.step();
        }
        let apart = support::max_distance(&gpu.read_positions().unwrap(), &cpu.positions);
        assert!(apart < 1e-5, "{mode:?}: the GPU and the CPU {apart} m apart");
        let slid = mean_from(&cpu.positions, 13).distance(mean_from(&model.mesh().positions, 13));
        assert!(slid > 0.1, "{mode:?}: the sheet slid only {slid} m (the pair's friction not read)");
    }
}
