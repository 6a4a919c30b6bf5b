//! The mass-spring baseline on the CPU reference, against laws that do not come from its code:
//! the springs a grid gets, semi-implicit Euler's closed forms (free fall, the breathing mode of
//! an equilateral triangle and its damping), conservation of momentum and angular momentum, an
//! f64 integration written here, and the stability limit the solvers enforce.

mod support;
use support::{largest, largest_f64};

use drape::passes::springs::{SpringKind, SpringNetwork, STABILITY_LIMIT};
use drape::MassSpringParams;
use drape::{ClothMesh, ClothModel, CpuSolver, Error, GridPlane, SolverMode, SolverParams};
use glam::{DVec3, Vec3};

const DENSITY: f32 = 0.2;

fn grid(nx: u32, ny: u32, spacing: f32, pins: &[u32]) -> ClothModel {
    let mesh = ClothMesh::grid(nx, ny, spacing, GridPlane::Horizontal, Vec3::new(0.0, 1.0, 0.0)).unwrap();
    ClothModel::new(mesh, DENSITY, pins).unwrap()
}

/// Mass-spring parameters without gravity or velocity damping, `substeps` substeps of a
/// `time_step` frame.
fn springs_only(springs: MassSpringParams, time_step: f32, substeps: u32) -> SolverParams {
    SolverParams {
        mode: SolverMode::MassSpring(springs),
        time_step,
        substeps,
        gravity: Vec3::ZERO,
        damping: 0.0,
        ..SolverParams::default()
    }
}

/// A checkerboard grid gets the notes' grid springs whatever way its cells are split: structural
/// between the four neighbours, shear along both diagonals of every cell, flexion between the
/// neighbours one further along the rows and columns. An equilateral mesh has no quad diagonals:
/// all its edges are structural.
#[test]
fn a_grid_gets_the_notes_structural_shear_and_flexion_springs() {
    let (nx, ny, l) = (5u32, 4u32, 0.1f32);
    let model = grid(nx, ny, l, &[]);
    let network = SpringNetwork::new(&model);
    let (cx, cy) = (nx - 1, ny - 1);
    assert_eq!(network.count(SpringKind::Structural), (cx * ny + nx * cy) as usize);
    assert_eq!(network.count(SpringKind::Shear), (2 * cx * cy) as usize);
    assert_eq!(network.count(SpringKind::Flexion), ((nx - 2) * ny + nx * (ny - 2)) as usize);
    let positions = &model.mesh().positions;
    for spring in network.springs() {
        let [a, b] = spring.ends.map(|p| positions[p as usize]);
        let expected = match spring.kind {
            SpringKind::Structural => l,
            SpringKind::Shear => l * 2f32.sqrt(),
            SpringKind::Flexion => 2.0 * l,
        };
        assert!((spring.rest_length - expected).abs() < 1e-6, "{spring:?}");
        assert!((a.distance(b) - spring.rest_length).abs() < 1e-6);
        if spring.kind == SpringKind::Flexion {
            assert!(positions.iter().any(|p| p.distance((a + b) / 2.0) < 1e-6), "a flexion spring spans two edges");
        }
    }
    // A strip of six equilateral triangles: 13 edges, no diagonal.
    let height = 3f32.sqrt() / 2.0;
    let strip: Vec<Vec3> = (0..8).map(|i| Vec3::new(0.5 * i as f32, 0.0, height * (i % 2) as f32)).collect();
    let triangles = (0..6u32).map(|t| if t % 2 == 0 { [t, t + 2, t + 1] } else { [t, t + 1, t + 2] }).collect();
    let equilateral = ClothModel::new(ClothMesh::new(strip, triangles, None).unwrap(), DENSITY, &[]).unwrap();
    let network = SpringNetwork::new(&equilateral);
    assert_eq!(network.count(SpringKind::Shear), 0);
    assert_eq!(network.count(SpringKind::Structural), 13);
}

/// Semi-implicit Euler from rest under gravity alone: `v_n = −g·n·h`, `y_n = y_0 − g·h²·n(n+1)/2`.
/// A cloth at rest length has no spring force, whatever its springs.
#[test]
fn a_free_cloth_falls_as_semi_implicit_euler_says() {
    let model = grid(5, 5, 0.05, &[]);
    let params = SolverParams {
        gravity: Vec3::new(0.0, -9.81, 0.0),
        ..springs_only(MassSpringParams { damping: 0.01, ..MassSpringParams::default() }, 1.0 / 60.0, 20)
    };
    let mut cpu = CpuSolver::new(&model, params, &[]).unwrap();
    let frames = 30;
    for _ in 0..frames {
        cpu.step();
    }
    let (n, h, g) = (f64::from(frames * params.substeps), f64::from(params.substep_dt()), 9.81);
    let drop = g * h * h * n * (n + 1.0) / 2.0;
    for (x, rest) in cpu.positions.iter().zip(&model.mesh().positions) {
        let fallen = f64::from(rest.y - x.y);
        assert!((fallen - drop).abs() < 1e-4 * drop, "fell {fallen} m, semi-implicit Euler {drop} m");
        assert!((x.x - rest.x).abs() < 1e-5 && (x.z - rest.z).abs() < 1e-5);
    }
    for v in &cpu.velocities {
        assert!((f64::from(-v.y) - g * h * n).abs() < 1e-4 * g * h * n);
    }
}

/// An equilateral triangle (side 0.1 m, three structural springs k) stretched evenly and let go
/// breathes: each corner's distance from the centre obeys `δ'' = −(3k/m)·δ − (3c/m)·δ'`. Under
/// semi-implicit Euler with step h a mode of `ω² = 3k/m`, `γ = 3c/m` turns by `θ` per step with
/// `cos θ = (2 − hγ − h²ω²) / (2·√(1 − hγ))`, and its amplitude shrinks by `√(1 − hγ)` per step.
#[test]
fn an_equilateral_triangle_breathes_at_the_frequency_and_decay_of_semi_implicit_euler() {
    let side = 0.1f32;
    let corners = [Vec3::ZERO, Vec3::new(side, 0.0, 0.0), Vec3::new(side / 2.0, 0.0, -side * 3f32.sqrt() / 2.0)];
    let mesh = ClothMesh::new(corners.to_vec(), vec![[0, 1, 2]], None).unwrap();
    let model = ClothModel::new(mesh, DENSITY, &[]).unwrap();
    let mass = f64::from(model.masses()[0]);
    let k = 10.0;
    for c in [0.0, 2e-4] {
        // hω ≈ 0.32: semi-implicit Euler's period is 0.4 % shorter than the exact one.
        let h = 1e-3;
        let springs = MassSpringParams { structural: k, shear: 0.0, flexion: 0.0, damping: c };
        let mut cpu = CpuSolver::new(&model, springs_only(springs, h, 1), &[]).unwrap();
        let centre = (corners[0] + corners[1] + corners[2]) / 3.0;
        cpu.positions = corners.iter().map(|&p| centre + (p - centre) * 1.01).collect();
        let rest_radius = f64::from(corners[0].distance(centre));
        let radii: Vec<f64> = (0..1000)
            .map(|_| {
                cpu.step();
                f64::from(cpu.positions[0].distance(centre)) - rest_radius
            })
            .collect();
        let (omega2, gamma, h) = (3.0 * f64::from(k) / mass, 3.0 * f64::from(c) / mass, f64::from(h));
        let shrink = (1.0 - h * gamma).sqrt();
        let theta = ((2.0 - h * gamma - h * h * omega2) / (2.0 * shrink)).acos();
        let expected_period = std::f64::consts::TAU / theta;
        let crossings: Vec<f64> = radii
            .windows(2)
            .enumerate()
            .filter(|(_, w)| w[0] < 0.0 && w[1] >= 0.0)
            .map(|(n, w)| n as f64 + w[0] / (w[0] - w[1]))
            .collect();
        assert!(crossings.len() >= 10, "{} upward crossings", crossings.len());
        let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
        let exact_period = std::f64::consts::TAU / (h * omega2.sqrt());
        assert!(
            (period / expected_period - 1.0).abs() < 5e-4,
            "c = {c}: period {period} steps, expected {expected_period}"
        );
        assert!((period / exact_period - 1.0).abs() > 2e-3, "the test tells semi-implicit Euler from exact");
        // The first and last peaks (a parabola through the samples around each) shrink by
        // √(1 − hγ) per step between them.
        let peak = |from: f64| {
            let k = (from as usize..(from + period) as usize).max_by(|&a, &b| radii[a].total_cmp(&radii[b])).unwrap();
            let (before, at, after) = (radii[k - 1], radii[k], radii[k + 1]);
            let curvature = before - 2.0 * at + after;
            (k as f64 - (after - before) / (2.0 * curvature), at - (after - before).powi(2) / (8.0 * curvature))
        };
        let ((first_step, first), (last_step, last)) = (peak(crossings[0]), peak(crossings[crossings.len() - 2]));
        let expected = shrink.powf(last_step - first_step);
        assert!(c == 0.0 || expected < 0.6, "the damping is strong enough to measure ({expected})");
        assert!(
            (last / first / expected - 1.0).abs() < 5e-3,
            "c = {c}: amplitude ratio {}, expected {expected}",
            last / first
        );
    }
}

/// Spring forces come in equal and opposite pairs along the springs, so a free cloth, deformed
/// and spinning, keeps its linear and angular momentum under every spring kind and damping.
#[test]
fn a_free_deformed_cloth_keeps_its_momentum_and_angular_momentum() {
    let model = grid(7, 7, 0.05, &[]);
    let springs = MassSpringParams { structural: 20.0, shear: 5.0, flexion: 1.0, damping: 2e-4 };
    let mut cpu = CpuSolver::new(&model, springs_only(springs, 1.0 / 60.0, 40), &[]).unwrap();
    let mut rng = support::Rng(7);
    let centre = Vec3::new(0.15, 1.0, 0.15);
    for (x, v) in cpu.positions.iter_mut().zip(&mut cpu.velocities) {
        *x += 0.01 * rng.vec();
        *v = Vec3::new(0.3, 0.5, -0.2) + Vec3::Y.cross(*x - centre) * 4.0 + 0.2 * rng.vec();
    }
    let masses = model.masses();
    let moments = |cpu: &CpuSolver| {
        let mut momentum = DVec3::ZERO;
        let mut angular = DVec3::ZERO;
        for ((x, v), &m) in cpu.positions.iter().zip(&cpu.velocities).zip(masses) {
            let p = v.as_dvec3() * f64::from(m);
            momentum += p;
            angular += x.as_dvec3().cross(p);
        }
        (momentum, angular)
    };
    let (p0, l0) = moments(&cpu);
    let scale: f64 = cpu.velocities.iter().zip(masses).map(|(v, &m)| f64::from(v.length() * m)).sum();
    for _ in 0..30 {
        cpu.step();
    }
    let (p1, l1) = moments(&cpu);
    assert!((p1 - p0).length() < 1e-5 * scale, "momentum {p0} → {p1}");
    assert!((l1 - l0).length() < 1e-5 * scale, "angular momentum {l0} → {l1}");
    let network = SpringNetwork::new(&model);
    let strain = network.springs().iter().map(|s| {
        let [a, b] = s.ends.map(|p| cpu.positions[p as usize]);
        (a.distance(b) / s.rest_length - 1.0).abs()
    });
    let strain = largest(strain);
    assert!(strain > 0.02, "the springs should still be deformed (largest strain {strain})");
}

/// Hooke's springs `E = ½k(L − L₀)²` with their force `−∂E/∂x` and damping `c·(v_rel·d̂)·d̂`,
/// integrated by semi-implicit Euler in f64 here: the CPU reference follows it, with a pinned
/// corner and different constants for each spring kind.
#[test]
fn the_cpu_reference_follows_an_f64_mass_spring_integration() {
    let model = grid(5, 5, 0.05, &[0]);
    let springs = MassSpringParams { structural: 30.0, shear: 7.0, flexion: 2.0, damping: 1e-4 };
    let params = SolverParams { gravity: Vec3::new(0.0, -9.81, 0.0), ..springs_only(springs, 1.0 / 60.0, 30) };
    let mut cpu = CpuSolver::new(&model, params, &[]).unwrap();
    let mut rng = support::Rng(3);
    for x in cpu.positions.iter_mut().skip(1) {
        *x += 0.005 * rng.vec();
    }
    let network = SpringNetwork::new(&model);
    let mut x: Vec<DVec3> = cpu.positions.iter().map(|p| p.as_dvec3()).collect();
    let mut v = vec![DVec3::ZERO; x.len()];
    let masses: Vec<f64> = model.masses().iter().map(|&m| f64::from(m)).collect();
    let h = f64::from(params.substep_dt());
    for _ in 0..10 {
        cpu.step();
        for _ in 0..params.substeps {
            let mut force: Vec<DVec3> = masses.iter().map(|&m| DVec3::new(0.0, -9.81, 0.0) * m).collect();
            for spring in network.springs() {
                let [a, b] = spring.ends.map(|p| p as usize);
                let k = f64::from(springs.stiffness(spring.kind));
                let d = x[b] - x[a];
                let length = d.length();
                let n = d / length;
                // −∂E/∂x_a = k(L − L₀)·n̂, and the damping of the ends' relative speed.
                let f = n
                    * (k * (length - f64::from(spring.rest_length))
                        + f64::from(springs.damping) * (v[b] - v[a]).dot(n));
                force[a] += f;
                force[b] -= f;
            }
            for i in 1..x.len() {
                v[i] += force[i] / masses[i] * h;
                x[i] += v[i] * h;
            }
        }
    }
    let worst = cpu.positions.iter().zip(&x).map(|(p, q)| (p.as_dvec3() - *q).length());
    let worst = largest_f64(worst);
    let moved = x.iter().zip(&model.mesh().positions).map(|(q, r)| (*q - r.as_dvec3()).length());
    let moved = largest_f64(moved);
    assert!(moved > 0.01, "the cloth moved {moved} m");
    assert!(worst < 1e-5, "the f32 reference is {worst} m from the f64 integration");
}

/// Springs too stiff for the substep are rejected with a typed error that says how many
/// substeps would do; at that count the solver accepts them, and a live solver keeps its
/// parameters when a change is rejected.
#[test]
fn springs_too_stiff_for_the_substep_are_rejected_with_the_substeps_that_would_do() {
    let model = grid(17, 17, 1.0 / 16.0, &[0, 16]);
    let springs = MassSpringParams::default();
    let network = SpringNetwork::new(&model);
    let fewest = network.min_stable_substeps(&springs, 1.0 / 60.0, 128).unwrap();
    assert!(fewest > 2, "the default springs need {fewest} substeps at 16²");
    let params = |substeps| SolverParams { mode: SolverMode::MassSpring(springs), substeps, ..SolverParams::default() };
    match CpuSolver::new(&model, params(fewest - 1), &[]) {
        Err(Error::Param(e)) => {
            assert_eq!(e.name, "mode (mass-spring stability)");
            assert!(e.value.contains(&format!("stable from {fewest} substeps")), "{}", e.value);
            assert!(e.expected.contains(&format!("≤ {STABILITY_LIMIT}")), "{}", e.expected);
        }
        other => panic!("expected a stability error, got {:?}", other.map(|_| ())),
    }
    let mut cpu = CpuSolver::new(&model, params(fewest), &[]).unwrap();
    let stiffer = MassSpringParams { structural: 1e6, ..springs };
    let rejected = SolverParams { mode: SolverMode::MassSpring(stiffer), ..params(fewest) };
    assert!(matches!(cpu.set_params(rejected), Err(Error::Param(_))));
    assert_eq!(*cpu.params(), params(fewest));
    // The verdict falls with the substep; nonsense substeps and constants are never stable.
    let h = 1.0 / 60.0 / fewest as f32;
    assert!(network.stability_number(&springs, h) <= STABILITY_LIMIT);
    assert!(network.stability_number(&springs, 2.0 * h) > STABILITY_LIMIT);
    assert_eq!(network.stability_number(&springs, -h), f32::INFINITY);
    assert_eq!(network.stability_number(&MassSpringParams { shear: f32::NAN, ..springs }, h), f32::INFINITY);
    assert_eq!(network.min_stable_substeps(&springs, -1.0 / 60.0, 128), None);
}

/// The limit is real and close to the truth: semi-implicit Euler on the network's own forces
/// stays bounded at the substep the check accepts, and blows up at 1.5 times it.
#[test]
fn the_stability_limit_separates_bounded_from_exploding_runs() {
    let model = grid(9, 9, 1.0 / 8.0, &[]);
    let springs = MassSpringParams { structural: 50.0, shear: 10.0, flexion: 1.0, damping: 0.0 };
    let network = SpringNetwork::new(&model);
    let fewest = network.min_stable_substeps(&springs, 1.0 / 60.0, 128).unwrap();
    let accepted = 1.0 / 60.0 / fewest as f32;
    let fastest_after = |h: f32| {
        let mut rng = support::Rng(11);
        let mut x: Vec<Vec3> = model.mesh().positions.iter().map(|&p| p + 0.002 * rng.vec()).collect();
        let mut v = vec![Vec3::ZERO; x.len()];
        let inverse_masses = model.inverse_masses();
        for _ in 0..2000 {
            let state = drape::passes::springs::ParticleState { positions: &x, velocities: &v, inverse_masses };
            let a: Vec<Vec3> = (0..x.len()).map(|i| network.acceleration(&springs, &state, i)).collect();
            for i in 0..x.len() {
                v[i] += a[i] * h;
                x[i] += v[i] * h;
            }
        }
        // A blow-up is the expected outcome past the limit: a non-finite speed counts as
        // infinite, which fails the bound below and passes the explosion check.
        let speeds = v.iter().map(|v| if v.is_finite() { v.length() } else { f32::INFINITY });
        largest(speeds.map(|s| s.min(f32::MAX)))
    };
    let bounded = fastest_after(accepted);
    assert!(bounded < 10.0, "at the accepted substep the fastest particle moves {bounded} m/s");
    let exploded = fastest_after(1.5 * accepted);
    assert!(exploded > 1e3, "at 1.5 times the substep the fastest particle moves only {exploded} m/s");
}
