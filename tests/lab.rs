//! The textile lab's tests: Peirce's cantilever against the inextensible elastica solved here,
//! and Cusick's drape test.

mod support;

use drape::fabric::FABRICS;
use drape::lab::{bending_length, drape_reading, peirce_bending_length, Cantilever, PEIRCE_ANGLE};
use drape::{Fabric, GpuSolver, Scene, SceneKind};
use glam::Vec3;
use support::device;

/// The inextensible elastica of a cantilever under its own weight, clamped level at `s = 0`
/// and free at `s = l`: with `φ(s)` its angle below the horizontal, the moment of the weight
/// beyond `s` bends it, `B φ'' = −q (l − s) cos φ`, `φ(0) = 0`, `φ'(l) = 0`. In `σ = s/l` it
/// depends on `λ = q l³/B` alone. Solved in f64 by shooting on `φ'(0)` (RK4, bisection);
/// returns the angle below the horizontal of the line from the clamp to the tip.
fn elastica_tip_angle(lambda: f64) -> f64 {
    const STEPS: usize = 2000;
    let shoot = |slope: f64| -> (f64, f64, f64) {
        // State (φ, φ', x, y) in σ.
        let derivative = |sigma: f64, s: [f64; 4]| [s[1], -lambda * (1.0 - sigma) * s[0].cos(), s[0].cos(), s[0].sin()];
        let mut state = [0.0, slope, 0.0, 0.0];
        let h = 1.0 / STEPS as f64;
        for k in 0..STEPS {
            let sigma = k as f64 * h;
            let add = |s: [f64; 4], d: [f64; 4], f: f64| [0, 1, 2, 3].map(|i| s[i] + f * d[i]);
            let k1 = derivative(sigma, state);
            let k2 = derivative(sigma + h / 2.0, add(state, k1, h / 2.0));
            let k3 = derivative(sigma + h / 2.0, add(state, k2, h / 2.0));
            let k4 = derivative(sigma + h, add(state, k3, h));
            state = [0, 1, 2, 3].map(|i| state[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]));
        }
        (state[1], state[2], state[3])
    };
    // φ'(1) falls as φ'(0) grows; the root lies in [0, λ].
    let (mut low, mut high) = (0.0, lambda.max(1.0));
    for _ in 0..100 {
        let mid = 0.5 * (low + high);
        if shoot(mid).0 > 0.0 {
            high = mid;
        } else {
            low = mid;
        }
    }
    let (_, x, y) = shoot(0.5 * (low + high));
    y.atan2(x)
}

/// The `λ = q l³/B` whose elastica's tip line hangs at `angle`.
fn elastica_lambda(angle: f64) -> f64 {
    let (mut low, mut high): (f64, f64) = (1e-3, 1e3);
    for _ in 0..100 {
        let mid = (low * high).sqrt();
        if elastica_tip_angle(mid) < angle {
            low = mid;
        } else {
            high = mid;
        }
    }
    (low * high).sqrt()
}

/// Peirce's reading of the standard's 41.5° is the elastica's: a strip whose tip line hangs at
/// 41.5° reaches twice its bending length (within 0.1 %), which `peirce_bending_length` gives.
#[test]
fn peirce_formula_is_the_elastica_at_the_standard_angle() {
    let reach = elastica_lambda(f64::from(PEIRCE_ANGLE)).cbrt();
    assert!((reach - 2.0).abs() < 2e-3, "the elastica reaches {reach} bending lengths at 41.5°");
    let c = peirce_bending_length(0.1, PEIRCE_ANGLE);
    assert!((c / 0.05 - 1.0).abs() < 0.02, "Peirce's bending length at 41.5° of a 10 cm overhang: {c} m");
}

/// The strip's hinges at rest under its weight, in f64: the hinges of each column across the
/// strip (their stiffnesses as the model gives them, per unit width) turn by the moment of the
/// weight beyond them, `θ_i = M_i / k_i`, the strip's free particles lumped as the model lumps
/// them; solved by fixed-point iteration. Returns the tip line's angle below the horizontal.
fn strip_at_rest(rig: &Cantilever, gravity: f64) -> f64 {
    let model = &rig.model;
    let rest = &model.mesh().positions;
    let bending = &model.constraints().bending;
    // Columns of free particles by rest x, with their mass; hinges across the strip by column.
    let mut columns: Vec<(f64, f64, f64)> = Vec::new(); // (rest x, mass, hinge stiffness)
    let column = |columns: &mut Vec<(f64, f64, f64)>, x: f64| -> usize {
        match columns.iter().position(|c| (c.0 - x).abs() < 1e-7) {
            Some(k) => k,
            None => {
                columns.push((x, 0.0, 0.0));
                columns.len() - 1
            }
        }
    };
    let clamp = rest
        .iter()
        .enumerate()
        .filter(|&(i, _)| model.inverse_masses()[i] == 0.0)
        .map(|(_, p)| f64::from(p.x))
        .fold(f64::NEG_INFINITY, f64::max);
    for (i, p) in rest.iter().enumerate() {
        let k = column(&mut columns, f64::from(p.x));
        if model.inverse_masses()[i] > 0.0 {
            columns[k].1 += f64::from(model.masses()[i]);
        }
    }
    for h in 0..bending.len() {
        let [a, b, _, _] = bending.particles(h).map(|i| rest[i as usize]);
        let edge = b - a;
        if edge.x.abs() < 1e-7 && f64::from(a.x) >= clamp - 1e-7 {
            let k = column(&mut columns, f64::from(a.x));
            columns[k].2 += f64::from(bending.stiffness(h));
        }
    }
    columns.retain(|c| c.0 >= clamp - 1e-7);
    columns.sort_by(|a, b| a.0.total_cmp(&b.0));
    let n = columns.len() - 1;
    let s = columns[1].0 - columns[0].0;
    let mut theta = vec![0.0f64; n];
    let mut nodes = vec![(0.0f64, 0.0f64); n + 1];
    for _ in 0..3000 {
        let mut phi = 0.0;
        nodes[0] = (columns[0].0, 0.0);
        for j in 1..=n {
            phi += theta[j - 1];
            nodes[j] = (nodes[j - 1].0 + s * phi.cos(), nodes[j - 1].1 - s * phi.sin());
        }
        for i in 0..n {
            let moment: f64 = (i + 1..=n).map(|k| columns[k].1 * gravity * (nodes[k].0 - nodes[i].0)).sum();
            theta[i] = 0.5 * theta[i] + 0.5 * moment / columns[i].2;
        }
    }
    let (x, y) = nodes[n];
    (-y).atan2(x)
}

/// The hinges' rigidity follows from the rest geometry so that a clamped strip bends as the
/// inextensible elastica of its fabric's `B` says at every resolution: at 8, 16 and 32 cells
/// over the overhang, the strip's hinge chain at rest (its equilibrium solved here, from the
/// model's own hinge stiffnesses and masses) gives back `B` within 5 % through the elastica,
/// for warp and weft rigidities that differ. This checks the model, not the solver: the GPU
/// solver's strips still droop more than this at these resolutions (BENCHMARKS.md, "Fabrics").
#[test]
fn a_clamped_strips_hinges_bend_as_the_elastica_at_every_resolution() {
    let g = 9.81;
    for name in ["cotton-shirting", "denim"] {
        let fabric = Fabric::named(name).unwrap();
        let overhang = 2.0 * bending_length(&fabric, g as f32);
        for cells in [8, 16, 32] {
            let rig = Cantilever::new(&fabric, overhang, cells).unwrap();
            let angle = strip_at_rest(&rig, g);
            let q = f64::from(fabric.density) * g;
            let rigidity = q * f64::from(overhang).powi(3) / elastica_lambda(angle);
            let ratio = rigidity / f64::from(fabric.bending.warp);
            assert!((ratio - 1.0).abs() < 0.05, "{name}, {cells} cells: the strip bends as B × {ratio}");
        }
    }
}

/// Cusick's test orders the fabrics as their stiffness does: on the GPU at 32 cells across the
/// disc, after 3 s, the drape coefficient (averaged over the last half second) rises from the
/// knit to the leather-like, the presets' order, and each lies in (0, 1].
#[test]
fn cusick_drape_coefficients_follow_the_fabrics_stiffness() {
    let (device, queue) = device();
    let mut previous = 0.0;
    for fabric in FABRICS {
        let scene = Scene::with_fabric(SceneKind::Cusick, 32, &fabric).unwrap();
        let mut solver = GpuSolver::new(&device, &queue, &scene.model, scene.params, &scene.colliders).unwrap();
        (0..150).for_each(|_| solver.step());
        let mut sum = 0.0;
        for _ in 0..30 {
            solver.step();
            sum += drape_reading(&scene.model, &solver.read_positions().unwrap()).coefficient;
        }
        let coefficient = sum / 30.0;
        assert!(
            coefficient > previous && coefficient <= 1.0,
            "{}: drape coefficient {coefficient} after {previous}",
            fabric.name
        );
        previous = coefficient;
    }
}

/// The drape reading of known shapes: a disc left flat covers the whole annulus (coefficient
/// 1), one folded straight down over the support covers none of it (0), and a shadow with six
/// lobes counts six nodes.
#[test]
fn drape_readings_of_known_shapes() {
    let fabric = Fabric::named("cotton-shirting").unwrap();
    let scene = Scene::with_fabric(SceneKind::Cusick, 48, &fabric).unwrap();
    let model = &scene.model;
    let flat = drape_reading(model, &model.mesh().positions);
    assert!((flat.coefficient - 1.0).abs() < 0.02 && flat.nodes == 0, "flat: {flat:?}");
    let support = drape::lab::CUSICK_SUPPORT_RADIUS;
    let hanging: Vec<Vec3> = model
        .mesh()
        .positions
        .iter()
        .map(|p| {
            let r = (p.x * p.x + p.z * p.z).sqrt();
            if r <= support {
                *p
            } else {
                Vec3::new(p.x * support / r, p.y - (r - support), p.z * support / r)
            }
        })
        .collect();
    let hung = drape_reading(model, &hanging);
    assert!(hung.coefficient.abs() < 0.03, "hanging straight down: {hung:?}");
    let lobed: Vec<Vec3> = model
        .mesh()
        .positions
        .iter()
        .map(|p| {
            let r = (p.x * p.x + p.z * p.z).sqrt();
            if r <= support {
                return *p;
            }
            let reach = 0.6 + 0.25 * (6.0 * p.z.atan2(p.x)).cos();
            let radial = support + (r - support) * reach;
            Vec3::new(p.x * radial / r, p.y - (r - support) * (1.0 - reach), p.z * radial / r)
        })
        .collect();
    let six = drape_reading(model, &lobed);
    assert_eq!(six.nodes, 6, "six lobes: {six:?}");
}

/// The Cusick disc has no slivers at any resolution: its worst triangle's height is at least a
/// tenth of its longest edge from 4 to 128 cells across (the diagonal through a moved corner),
/// and bad rig sizes are typed errors.
#[test]
fn the_cusick_disc_is_well_shaped_and_bad_rigs_are_refused() {
    let fabric = Fabric::named("cotton-shirting").unwrap();
    for cells in 4..=128 {
        let model = drape::lab::cusick_model(&fabric, cells, 0.3).unwrap();
        let mesh = model.mesh();
        let worst = mesh
            .triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| mesh.positions[i as usize]);
                let longest = (b - a).length().max((c - b).length()).max((a - c).length());
                (b - a).cross(c - a).length() / (longest * longest)
            })
            .fold(f32::INFINITY, |w, q| if q.is_nan() { f32::NAN } else { w.min(q) });
        assert!(worst >= 0.1, "{cells} cells: a triangle of height {worst} times its longest edge");
    }
    let name = |r: Result<Cantilever, drape::Error>| match r {
        Err(drape::Error::Param(e)) => e.name,
        other => panic!("expected a parameter error, got {other:?}"),
    };
    assert_eq!(name(Cantilever::new(&fabric, 1e-12, 8)), "cells");
    assert_eq!(name(Cantilever::new(&fabric, f32::NAN, 8)), "overhang");
    assert_eq!(name(Cantilever::new(&fabric, 0.04, u32::MAX)), "cells");
    assert_eq!(name(Cantilever::with_width(&fabric, 0.04, 8, f32::INFINITY)), "width");
    assert!(matches!(drape::lab::cusick_model(&fabric, u32::MAX, 0.3), Err(drape::Error::Param(_))));
}
