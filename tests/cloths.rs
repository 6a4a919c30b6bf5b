//! Several cloths in one model (`ClothModel::joined`): how they are laid out, that a cloth which
//! touches no other moves bit for bit as it would in a solver of its own, and that rigid damping
//! and self-collision's deformation limit keep each cloth's own momentum.

mod support;

use drape::constraints::{Kind, UnitType};
use drape::{
    Aerodynamics, ClothMesh, ClothModel, CpuSolver, Error, GpuSolver, GridPlane, Gusts, SolverMode, SolverParams,
};
use glam::{DVec3, Vec3};
use support::{crumpling, crumpling_cloth, device, largest, strip, zero_gravity_self_collision};

const MODES: [SolverMode; 2] = [SolverMode::GaussSeidel, SolverMode::Jacobi { relaxation: 1.5 }];

/// A heavier, softer sheet half a metre away, pinned at a corner, spinning about y and thrown
/// along −x: it never comes within reach of the crumpling sheet.
fn spinning_sheet() -> (ClothModel, Vec<Vec3>) {
    let mesh = ClothMesh::grid(9, 7, 0.025, GridPlane::Horizontal, Vec3::new(0.0, 0.0, 0.5)).unwrap();
    let model = ClothModel::new(mesh, 0.35, &[0]).unwrap();
    let soft = vec![0.25; model.constraints().of(Kind::Stretch).constraint_count()];
    let model = model.with_stiffness_scales(Kind::Stretch, &soft).unwrap();
    let centre = model.mesh().positions.iter().sum::<Vec3>() / model.particle_count() as f32;
    let velocities =
        model.mesh().positions.iter().map(|&x| Vec3::new(-4.0, 0.0, 0.0) + Vec3::Y.cross(x - centre) * 6.0).collect();
    (model, velocities)
}

/// Both sheets in one model, and their velocities.
fn both() -> (ClothModel, Vec<Vec3>) {
    let ((a, va), (b, vb)) = (crumpling_cloth(), spinning_sheet());
    (ClothModel::joined(&[a, b]).unwrap(), va.into_iter().chain(vb).collect())
}

/// Zero gravity, self-collision of 1 cm, rigid damping at 5/s, no bending stiffness, in `mode`.
fn params(mode: SolverMode) -> SolverParams {
    SolverParams { rigid_damping: 5.0, ..crumpling(mode) }
}

/// The bits of `positions`.
fn bits(positions: &[Vec3]) -> Vec<[u32; 3]> {
    positions.iter().map(|p| p.to_array().map(f32::to_bits)).collect()
}

/// The joined model lists each cloth's particles and triangles after the ones before it, keeps
/// each cloth's masses, pins and stiffness map with its constraints, and its cloths share
/// colours: each unit type has as many colours as the cloth with the most, not their sum.
#[test]
fn joined_cloths_keep_their_own_data_and_share_colours() {
    let ((a, _), (b, _)) = (crumpling_cloth(), spinning_sheet());
    let (joined, _) = both();
    let (na, nb) = (a.particle_count() as u32, b.particle_count() as u32);
    let (ta, tb) = (a.mesh().triangles.len() as u32, b.mesh().triangles.len() as u32);
    let ranges: Vec<_> = joined.cloths().iter().map(|c| (c.particles.clone(), c.triangles.clone())).collect();
    assert_eq!(ranges, [(0..na, 0..ta), (na..na + nb, ta..ta + tb)]);
    assert_eq!(joined.masses(), [a.masses(), b.masses()].concat());
    assert_eq!(joined.inverse_masses(), [a.inverse_masses(), b.inverse_masses()].concat());
    assert_eq!(joined.inverse_masses()[na as usize], 0.0, "the second cloth's pin");
    assert_eq!(joined.cloth_mesh(1), *b.mesh());
    // In each phase a unit type has as many colours as the cloth with the most there.
    let colours = |model: &ClothModel, phase: usize, t: UnitType| {
        let schedule = model.schedule();
        schedule.colours[schedule.phases[phase].colours.clone()]
            .iter()
            .filter(|c| c.unit_type == t.id() as usize)
            .count()
    };
    for (phase, t) in (0..2).flat_map(|phase| UnitType::ALL.map(|t| (phase, t))) {
        let most = colours(&a, phase, t).max(colours(&b, phase, t));
        assert_eq!(colours(&joined, phase, t), most, "phase {phase}, {t:?}");
        assert_eq!(joined.units(t).len(), a.units(t).len() + b.units(t).len(), "{t:?}");
    }
    assert_eq!(ClothModel::joined(std::slice::from_ref(&a)).unwrap(), a, "one cloth joined is itself");
    // Every stretch constraint keeps its rest length and scale, its particles moved with its cloth.
    let of = |model: &ClothModel, first: u32| -> Vec<([u32; 2], u32, u32)> {
        let stretch = &model.constraints().stretch;
        let scales = model.constraints().of(Kind::Stretch).stiffness_scales();
        let mut all: Vec<_> = (0..stretch.len())
            .map(|c| (stretch.particles(c).map(|i| i + first), stretch.rest_length(c).to_bits(), scales[c].to_bits()))
            .collect();
        all.sort_unstable();
        all
    };
    let mut expected = [of(&a, 0), of(&b, na)].concat();
    expected.sort_unstable();
    assert_eq!(of(&joined, 0), expected);
}

/// Joining refuses what it cannot keep apart, with a typed error: no cloth, and cloths that
/// resist stretch or bend by different models (edges against a membrane, dihedral against
/// isometric hinges, a bending rigidity against none); a joined model refuses to change its
/// cloths' materials (they are set before joining), and a joined model refitted to a fabric
/// refits each cloth.
#[test]
fn joining_refuses_cloths_it_cannot_join() {
    let ((a, _), (b, _)) = (crumpling_cloth(), spinning_sheet());
    let refused =
        |cloths: &[ClothModel]| matches!(ClothModel::joined(cloths), Err(Error::Param(e)) if e.name == "cloths");
    assert!(refused(&[]));
    let fabric = drape::Fabric::named("denim").unwrap();
    let plain = ClothModel::new(b.mesh().clone(), 0.35, &[0]).unwrap();
    let membrane = plain.clone().with_membrane(fabric.moduli).unwrap();
    assert_eq!(membrane.bending_model(), a.bending_model(), "only the stretch model differs");
    assert!(refused(&[a.clone(), membrane]));
    assert!(refused(&[a.clone(), plain.clone().with_bending_model(drape::BendingModel::Isometric).unwrap()]));
    assert!(refused(&[a.clone(), plain.with_bending_rigidity(fabric.bending).unwrap()]));
    let joined = ClothModel::joined(&[a.clone(), b.clone()]).unwrap();
    let named =
        |result: Result<ClothModel, Error>, name: &str| matches!(result, Err(Error::Param(e)) if e.name == name);
    assert!(named(joined.clone().with_membrane(fabric.moduli), "stretch_model"));
    assert!(named(joined.clone().with_bending_rigidity(fabric.bending), "bending_rigidity"));
    assert!(named(joined.clone().with_bending_model(drape::BendingModel::Isometric), "bending_model"));
    // Refitting a joined model refits each cloth and joins them again.
    let refitted = joined.refit_to(&fabric).unwrap();
    let denim = b.refit_to(&fabric).unwrap();
    assert_eq!(refitted.cloths(), joined.cloths());
    assert_eq!(refitted.constraints().membrane.materials(), [fabric.moduli]);
    assert_eq!(refitted.bending_rigidity(), Some(fabric.bending));
    assert_eq!(refitted.masses(), [a.refit_to(&fabric).unwrap().masses(), denim.masses()].concat());
    assert_eq!(refitted.inverse_masses()[a.particle_count()], 0.0, "the pin is kept");
}

/// A cloth that touches no other moves bit for bit as in a model of its own, on the CPU
/// reference: the crumpling sheet (its deformation limited by self-collision) and the spinning
/// one, joined, with rigid damping, in Gauss-Seidel and Jacobi, for 20 frames.
#[test]
fn a_joined_cloth_moves_as_on_its_own_in_the_reference() {
    let ((a, va), (b, vb)) = (crumpling_cloth(), spinning_sheet());
    let (joined, velocities) = both();
    for mode in MODES {
        let run = |model: &ClothModel, velocities: &[Vec3]| {
            let mut cpu = CpuSolver::new(model, params(mode), &[]).unwrap();
            cpu.velocities = velocities.to_vec();
            (0..20).for_each(|_| cpu.step());
            bits(&cpu.positions)
        };
        let (alone_a, alone_b) = (run(&a, &va), run(&b, &vb));
        let together = run(&joined, &velocities);
        assert_eq!(together[..a.particle_count()], alone_a, "{mode:?}: the crumpling sheet");
        assert_eq!(together[a.particle_count()..], alone_b, "{mode:?}: the spinning sheet");
    }
}

/// The same on the GPU: each cloth of the joined model ends bit for bit where the GPU takes it in
/// a solver of its own.
#[test]
fn a_joined_cloth_moves_as_on_its_own_on_the_gpu() {
    let (device, queue) = device();
    let ((a, va), (b, vb)) = (crumpling_cloth(), spinning_sheet());
    let (joined, velocities) = both();
    for mode in MODES {
        let run = |model: &ClothModel, velocities: &[Vec3]| {
            let mut gpu = GpuSolver::new(&device, &queue, model, params(mode), &[]).unwrap();
            gpu.set_velocities(velocities).unwrap();
            (0..20).for_each(|_| gpu.step());
            bits(&gpu.read_positions().unwrap())
        };
        let (alone_a, alone_b) = (run(&a, &va), run(&b, &vb));
        let together = run(&joined, &velocities);
        assert_eq!(together[..a.particle_count()], alone_a, "{mode:?}: the crumpling sheet");
        assert_eq!(together[a.particle_count()..], alone_b, "{mode:?}: the spinning sheet");
    }
}

/// Linear momentum and angular momentum about the origin of particles `range` (f64 sums).
fn momenta(model: &ClothModel, positions: &[Vec3], velocities: &[Vec3], range: std::ops::Range<u32>) -> [DVec3; 2] {
    range.map(|i| i as usize).filter(|&i| model.inverse_masses()[i] > 0.0).fold([DVec3::ZERO; 2], |[p, l], i| {
        let mv = velocities[i].as_dvec3() * f64::from(model.masses()[i]);
        [p + mv, l + positions[i].as_dvec3().cross(mv)]
    })
}

/// Rigid damping keeps each cloth's own momentum and angular momentum (PBD §3.5), on the GPU:
/// two free sheets in zero gravity, one thrown and spinning one way, the other the other way,
/// with rigid damping at 20/s. Damped to one rigid motion of both, each would lose nearly all
/// its momentum to the other in 20 frames; each keeps its own within 1e-4 of its size, and its
/// angular momentum within 1e-3 (the spin is slow, 0.5 rad/s, as in `tests/physics_laws.rs`,
/// so that position projection's own damping of rotation stays below that).
#[test]
fn rigid_damping_keeps_each_cloths_momentum() {
    let (device, queue) = device();
    let sheet = |z: f32| ClothMesh::grid(8, 8, 0.03, GridPlane::Horizontal, Vec3::new(0.0, 0.0, z)).unwrap();
    let cloth = |z: f32| ClothModel::new(sheet(z), 0.2, &[]).unwrap();
    let model = ClothModel::joined(&[cloth(0.0), cloth(1.0)]).unwrap();
    let n = model.particle_count() as u32;
    let velocities: Vec<Vec3> = model
        .mesh()
        .positions
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let (sign, centre) =
                if (i as u32) < n / 2 { (1.0, Vec3::new(0.1, 0.0, 0.1)) } else { (-1.0, Vec3::new(0.1, 0.0, 1.1)) };
            sign * (Vec3::new(2.0, 0.0, 0.0) + Vec3::Y.cross(x - centre) * 0.5) + Vec3::Y * ((i % 5) as f32 * 0.1)
        })
        .collect();
    for mode in MODES {
        let params =
            SolverParams { gravity: Vec3::ZERO, damping: 0.0, rigid_damping: 20.0, mode, ..Default::default() };
        let mut gpu = GpuSolver::new(&device, &queue, &model, params, &[]).unwrap();
        gpu.set_velocities(&velocities).unwrap();
        let before: Vec<[DVec3; 2]> = model
            .cloths()
            .iter()
            .map(|c| momenta(&model, &model.mesh().positions, &velocities, c.particles.clone()))
            .collect();
        (0..20).for_each(|_| gpu.step());
        let (positions, after) = (gpu.read_positions().unwrap(), gpu.read_velocities().unwrap());
        for (c, cloth) in model.cloths().iter().enumerate() {
            let [p0, l0] = before[c];
            let [p1, l1] = momenta(&model, &positions, &after, cloth.particles.clone());
            assert!((p1 - p0).length() <= 1e-4 * p0.length(), "{mode:?}: cloth {c}'s momentum {p0} → {p1}");
            assert!((l1 - l0).length() <= 1e-3 * l0.length(), "{mode:?}: cloth {c}'s angular momentum {l0} → {l1}");
        }
    }
}

/// Three hanging sheets of fabric, each pinned at its top corners: silk, denim and silk again
/// (two cloths of one fabric share its material), side by side half a metre apart.
fn fabric_curtains() -> Vec<ClothModel> {
    ["silk-charmeuse", "denim", "silk-charmeuse"]
        .iter()
        .enumerate()
        .map(|(k, name)| {
            let origin = Vec3::new(0.5 * k as f32, 1.0, 0.0);
            let mesh = ClothMesh::grid(9, 9, 0.02, GridPlane::Vertical, origin).unwrap();
            ClothModel::from_fabric(mesh, &drape::Fabric::named(name).unwrap(), &[0, 8]).unwrap()
        })
        .collect()
}

/// Gravity and a sideways push, in `mode`, 30 substeps so that the fabrics bend as their
/// rigidity says.
fn curtain_params(mode: SolverMode) -> SolverParams {
    SolverParams { mode, substeps: 30, external_acceleration: Vec3::new(0.0, 0.0, 3.0), ..Default::default() }
}

/// Cloths of different fabrics keep each its own membrane and bending: the joined model's
/// materials are the distinct fabrics (two), and each curtain moves bit for bit as on its own,
/// on the reference and on the GPU, in both modes, for 20 frames.
#[test]
fn joined_fabrics_move_as_on_their_own() {
    let (device, queue) = device();
    let curtains = fabric_curtains();
    let joined = ClothModel::joined(&curtains).unwrap();
    assert_eq!(joined.constraints().membrane.materials().len(), 2);
    assert_eq!(joined.constraints().curvature.materials().len(), 2);
    let first = |c: usize| joined.cloths()[c].indices().start;
    for mode in MODES {
        let cpu = |model: &ClothModel| {
            let mut cpu = CpuSolver::new(model, curtain_params(mode), &[]).unwrap();
            (0..20).for_each(|_| cpu.step());
            bits(&cpu.positions)
        };
        let gpu = |model: &ClothModel| {
            let mut gpu = GpuSolver::new(&device, &queue, model, curtain_params(mode), &[]).unwrap();
            (0..20).for_each(|_| gpu.step());
            bits(&gpu.read_positions().unwrap())
        };
        for (run, name) in [(&cpu as &dyn Fn(&ClothModel) -> Vec<[u32; 3]>, "reference"), (&gpu, "GPU")] {
            let together = run(&joined);
            for (c, curtain) in curtains.iter().enumerate() {
                let own = &together[first(c)..first(c) + curtain.particle_count()];
                assert_eq!(own, run(curtain), "{mode:?}, {name}: curtain {c}");
            }
        }
    }
}

/// The GPU reads the materials from a table of 16 entries: a 17th distinct fabric is refused
/// with a typed error.
#[test]
fn joining_refuses_more_fabrics_than_the_table_holds() {
    let silk = drape::Fabric::named("silk-charmeuse").unwrap();
    let cloth = |k: usize| {
        let fabric = drape::Fabric { density: silk.density * (1.0 + k as f32 * 0.01), ..silk };
        let fabric = drape::Fabric {
            moduli: drape::Moduli { warp: silk.moduli.warp * (1.0 + k as f32), ..silk.moduli },
            ..fabric
        };
        let mesh = ClothMesh::grid(3, 3, 0.02, GridPlane::Horizontal, Vec3::new(0.1 * k as f32, 0.0, 0.0)).unwrap();
        ClothModel::from_fabric(mesh, &fabric, &[]).unwrap()
    };
    let sixteen: Vec<ClothModel> = (0..16).map(cloth).collect();
    assert_eq!(ClothModel::joined(&sixteen).unwrap().constraints().membrane.materials().len(), 16);
    let seventeen: Vec<ClothModel> = (0..17).map(cloth).collect();
    assert!(matches!(ClothModel::joined(&seventeen), Err(Error::Param(e)) if e.name == "cloths"));
}

/// The layers scene: three cloths of their own fabrics (silk, cotton shirting, leather-like)
/// fall onto the sphere and never cut through each other or themselves (the exact host test,
/// every fifth frame for two seconds at 32 cells a cloth), and end in their order, the silk
/// lowest, resting on the sphere.
#[test]
fn the_layers_never_interpenetrate() {
    let (device, queue) = device();
    let scene = drape::Scene::new(drape::SceneKind::Layers, 32).unwrap();
    let model = &scene.model;
    assert_eq!(model.cloths().len(), 3);
    assert_eq!(model.constraints().membrane.materials().len(), 3);
    let mut solver = GpuSolver::new(&device, &queue, model, scene.params, &scene.colliders).unwrap();
    for frame in (0..120).filter(|frame| frame % 5 == 4) {
        (0..5).for_each(|_| solver.step());
        let positions = solver.read_positions().unwrap();
        assert!(positions.iter().all(|p| p.is_finite()), "frame {frame}: not finite");
        let cut = drape::metrics::self_intersections(model.mesh(), &positions);
        assert_eq!(cut, 0, "frame {frame}: {cut} pairs of triangles cut through each other");
    }
    let positions = solver.read_positions().unwrap();
    let top = |c: usize| {
        let range = model.cloths()[c].particles.clone();
        largest(range.map(|i| positions[i as usize].y))
    };
    let tops = [top(0), top(1), top(2)];
    assert!(tops[0] < tops[1] && tops[1] < tops[2], "the layers' tops end at {tops:?}");
    let thickness = scene.params.self_collision.unwrap().thickness;
    let resting = |y: f32| y > 0.99 && y < 1.0 + 4.0 * thickness;
    assert!(tops.into_iter().all(resting), "the layers do not rest on the sphere: {tops:?}");
}

/// Self-collision limits each cloth's deformation about its own rigid motion: two free sheets in
/// zero gravity thrown apart at 5 m/s each (a relative speed the limit of a shared rigid motion,
/// 3 m/s at 1 cm and 10 substeps, would cut), never touching, fly freely: each
/// sheet's centre of mass moves at its velocity (the closed form `x₀ + v t`, within 1e-4 m after
/// 20 frames), on the reference and on the GPU, in both modes.
#[test]
fn self_collision_limits_each_cloth_about_its_own_motion() {
    let (device, queue) = device();
    let sheet = |z: f32| ClothMesh::grid(8, 8, 0.03, GridPlane::Horizontal, Vec3::new(0.0, 0.0, z)).unwrap();
    let model = ClothModel::joined(&[0.0, 0.6].map(|z| ClothModel::new(sheet(z), 0.2, &[]).unwrap())).unwrap();
    let n = model.particle_count();
    let speed = |i: usize| if i < n / 2 { -5.0 } else { 5.0 };
    let velocities: Vec<Vec3> = (0..n).map(|i| Vec3::new(0.0, 0.0, speed(i))).collect();
    let centre = |positions: &[Vec3], c: usize| {
        let range = model.cloths()[c].indices();
        let mass: f64 = model.masses()[range.clone()].iter().map(|&m| f64::from(m)).sum();
        range.map(|i| positions[i].as_dvec3() * f64::from(model.masses()[i])).sum::<DVec3>() / mass
    };
    let start = [0, 1].map(|c| centre(&model.mesh().positions, c));
    let time = 20.0 * f64::from(SolverParams::default().time_step);
    for mode in MODES {
        let params = zero_gravity_self_collision(mode, 0.01);
        let mut cpu = CpuSolver::new(&model, params, &[]).unwrap();
        cpu.velocities = velocities.clone();
        let mut gpu = GpuSolver::new(&device, &queue, &model, params, &[]).unwrap();
        gpu.set_velocities(&velocities).unwrap();
        for _ in 0..20 {
            cpu.step();
            gpu.step();
        }
        for (positions, name) in [(cpu.positions.clone(), "reference"), (gpu.read_positions().unwrap(), "GPU")] {
            for (c, start) in start.iter().enumerate() {
                let expected = *start + DVec3::new(0.0, 0.0, f64::from(speed(c * n / 2)) * time);
                let error = (centre(&positions, c) - expected).length();
                assert!(error <= 1e-4, "{mode:?}, {name}: cloth {c}'s centre is {error} m from free flight");
            }
        }
    }
}

/// Each cloth of a joined model stretches as its own membrane says: two strips of different
/// densities and moduli, hanging side by side in one model, each stretch by their weight over
/// their modulus, `ρ g L²/(2E)` (the closed form of `tests/fabric.rs`), within 2 %, in
/// Gauss-Seidel.
#[test]
fn joined_strips_stretch_each_by_its_own_modulus() {
    let (device, queue) = device();
    let length = 0.4f32;
    let hanging = |x: f32, rho: f32, along: f32| {
        let (mesh, pins) = strip(0.08, length, 0.02, true);
        let mesh = mesh.moved(glam::Quat::IDENTITY, Vec3::new(x, 0.0, 0.0));
        let moduli = drape::Moduli { warp: along, weft: 500.0, shear: 2.0 };
        ClothModel::new(mesh, rho, &pins).unwrap().with_membrane(moduli).unwrap()
    };
    let strips = [(0.0, 0.1, 5.0), (0.3, 0.2, 20.0)];
    let model = ClothModel::joined(&strips.map(|(x, rho, along)| hanging(x, rho, along))).unwrap();
    assert_eq!(model.constraints().membrane.materials().len(), 2);
    let params = SolverParams {
        substeps: 10,
        iterations: 20,
        damping: 2.0,
        tethers: drape::TetherParams { enabled: false, ..Default::default() },
        ..Default::default()
    };
    let mut solver = GpuSolver::new(&device, &queue, &model, params, &[]).unwrap();
    (0..150).for_each(|_| solver.step());
    let x = solver.read_positions().unwrap();
    for (cloth, (_, rho, along)) in model.cloths().iter().zip(strips) {
        let lowest = -largest(x[cloth.indices()].iter().map(|p| -p.y));
        let (elongation, expected) = ((1.0 - lowest) - length, rho * 9.81 * length * length / (2.0 * along));
        let relative = (elongation / expected - 1.0).abs();
        assert!(relative <= 0.02, "ρ {rho}, E {along}: stretched {elongation} m, the closed form {expected} m");
    }
}

/// Adding a cloth to a running solver leaves what was there as it was: the spinning sheet, its
/// pin's target moved and in a gusting wind, run for 10 frames, then given the crumpling sheet,
/// goes on bit for bit as a solver given none, on the CPU reference and on the GPU, in both
/// modes (positions, velocities, pins and the gusts' time carried over). The added sheet starts
/// at rest in its rest shape.
#[test]
fn adding_a_cloth_leaves_the_others_as_they_were() {
    let (device, queue) = device();
    let ((added, _), (sheet, velocities)) = (crumpling_cloth(), spinning_sheet());
    let target = sheet.mesh().positions[0] + Vec3::new(0.05, 0.02, 0.0);
    let n = sheet.particle_count();
    let wind = Aerodynamics {
        wind: Vec3::new(2.0, 0.0, 1.0),
        gusts: Gusts { strength: 0.5, frequency: 2.0 },
        ..Default::default()
    };
    let with_rest = |positions: &[Vec3]| bits(&[positions, &added.mesh().positions].concat());
    for mode in MODES {
        let params = SolverParams { aerodynamics: Some(wind), ..params(mode) };
        let mut alone = CpuSolver::new(&sheet, params, &[]).unwrap();
        alone.velocities = velocities.clone();
        alone.pins.set_target(0, target).unwrap();
        (0..10).for_each(|_| alone.step());
        let mut grown = alone.clone();
        grown.add_cloth(&added).unwrap();
        assert_eq!(bits(&grown.positions), with_rest(&alone.positions), "{mode:?}: the reference");
        assert!(grown.velocities[n..].iter().all(|&v| v == Vec3::ZERO));
        for _ in 0..10 {
            alone.step();
            grown.step();
        }
        assert_eq!(bits(&grown.positions[..n]), bits(&alone.positions), "{mode:?}: the reference");

        let started = || {
            let mut gpu = GpuSolver::new(&device, &queue, &sheet, params, &[]).unwrap();
            gpu.set_velocities(&velocities).unwrap();
            gpu.set_pin_target(0, target).unwrap();
            (0..10).for_each(|_| gpu.step());
            gpu
        };
        let (mut alone, mut grown) = (started(), started());
        grown.add_cloth(&added).unwrap();
        assert_eq!(grown.model().cloths().len(), 2);
        assert_eq!(bits(&grown.read_positions().unwrap()), with_rest(&alone.read_positions().unwrap()), "{mode:?}");
        assert_eq!(grown.pins().targets()[0], target);
        for _ in 0..10 {
            alone.step();
            grown.step();
        }
        let (grown_x, alone_x) = (grown.read_positions().unwrap(), alone.read_positions().unwrap());
        assert_eq!(bits(&grown_x[..n]), bits(&alone_x), "{mode:?}: the GPU");
        let grown_v = grown.read_velocities().unwrap();
        assert_eq!(bits(&grown_v[..n]), bits(&alone.read_velocities().unwrap()), "{mode:?}: the GPU's velocities");
    }
}
