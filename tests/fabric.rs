//! Fabrics in physical units: the membrane's strains and moduli and the hinges' bending
//! rigidity, against closed forms, an f64 oracle and the plate energy, written here.

mod support;

use drape::constraints::bending::dihedral_angle;
use drape::constraints::curvature::{aliases, curvature_correction, curvatures};
use drape::constraints::isometric::curvature_vector;
use drape::constraints::membrane::{shear_correction, strains, thread_correction, warp_direction, Moduli, RestFrame};
use drape::constraints::{BendingModel, Kind};
use drape::fabric::{DEFAULT_FABRIC, EDGE_MODEL, FABRICS, SECANT_TENSION, WANG_2011_DENIM, WANG_2011_SWEAT_KNIT};
use drape::{
    BendingRigidity, ClothMesh, ClothModel, Error, Fabric, FabricChoice, GpuSolver, GridPlane, SolverMode,
    SolverParams, TetherParams,
};
use glam::{DVec3, Quat, Vec2, Vec3};
use support::{device, largest, strip, three_triangle_fan, Rng, FAN_ROTATIONS};

/// A strip of density `ρ` hanging under its own weight stretches by `ρ g L²/(2E)`: the tension
/// per unit width at rest distance `s` below the pins carries the weight below, `ρ g (L − s)`,
/// and strains the thread by it over `E`. So for the modulus along the strip, warp or weft, at
/// two resolutions, in both solver modes, with the other moduli far stiffer or softer (no
/// Poisson coupling in the membrane: the cross threads and the shear stay unstrained). Jacobi
/// converges more slowly and gets four times the iterations (at 20 it stretched 19 % more), on
/// one of the strips.
#[test]
fn a_hanging_strip_stretches_by_its_weight_over_its_modulus() {
    let (device, queue) = device();
    let (rho, length) = (0.1f32, 0.4f32);
    let expected = |e: f32| rho * 9.81 * length * length / (2.0 * e);
    let gauss_seidel = [(0.02, true), (0.02, false), (0.01, false)].map(|s| (SolverMode::GaussSeidel, 20, s));
    let jacobi = (SolverMode::Jacobi { relaxation: 1.0 }, 80, (0.02, false));
    for (mode, iterations, (spacing, warp_down)) in gauss_seidel.into_iter().chain([jacobi]) {
        {
            let (mesh, pins) = strip(0.08, length, spacing, warp_down);
            let (along, across) = (5.0, 500.0);
            let moduli = if warp_down {
                Moduli { warp: along, weft: across, shear: 2.0 }
            } else {
                Moduli { warp: across, weft: along, shear: 2.0 }
            };
            let model = ClothModel::new(mesh, rho, &pins).unwrap().with_membrane(moduli).unwrap();
            let params = SolverParams {
                substeps: 10,
                iterations,
                damping: 2.0,
                tethers: TetherParams { enabled: false, ..Default::default() },
                mode,
                ..Default::default()
            };
            let mut solver = GpuSolver::new(&device, &queue, &model, params, &[]).unwrap();
            (0..150).for_each(|_| solver.step());
            let x = solver.read_positions().unwrap();
            let lowest = -largest(x.iter().map(|p| -p.y));
            let elongation = (1.0 - lowest) - length;
            let relative = (elongation / expected(along) - 1.0).abs();
            assert!(
                relative <= 0.02,
                "{mode:?}, spacing {spacing}, warp down {warp_down}: stretched {elongation} m, the closed form \
                 {} m",
                expected(along)
            );
        }
    }
}

/// The membrane's three strains in f64, written from their definitions: the rest triangle in
/// its material frame (warp along `warp`), `F = D_s D_m⁻¹`, warp and weft stretch `|f| − 1` and
/// shear `f̂_u·f̂_v`.
fn strains_f64(rest: [Vec3; 3], warp: Vec3, p: [DVec3; 3]) -> [f64; 3] {
    let r = rest.map(|v| v.as_dvec3());
    let (e1, e2) = (r[1] - r[0], r[2] - r[0]);
    let n = e1.cross(e2).normalize();
    let w = warp.as_dvec3();
    let u = (w - n * w.dot(n)).normalize();
    let v = n.cross(u);
    let (a, b, c, d) = (e1.dot(u), e2.dot(u), e1.dot(v), e2.dot(v));
    let det = a * d - b * c;
    let inverse = [[d / det, -b / det], [-c / det, a / det]];
    let (s1, s2) = (p[1] - p[0], p[2] - p[0]);
    let fu = s1 * inverse[0][0] + s2 * inverse[1][0];
    let fv = s1 * inverse[0][1] + s2 * inverse[1][1];
    [fu.length() - 1.0, fv.length() - 1.0, fu.normalize().dot(fv.normalize())]
}

/// Strains: zero at rest and under any rigid motion; a stretch by `1 + ε` along the warp is a
/// warp strain `ε` alone; a shear that turns the weft by `γ` towards the warp is a shear strain
/// `sin γ` alone.
#[test]
fn membrane_strains_vanish_under_rigid_motion_and_measure_stretch_and_shear() {
    let rest = [Vec3::new(0.0, 0.0, 0.0), Vec3::new(0.03, 0.0, 0.01), Vec3::new(0.01, 0.0, 0.025)];
    let frame = RestFrame::new(rest, Vec3::X).unwrap();
    let mut rng = Rng(11);
    for _ in 0..20 {
        let rotation = Quat::from_axis_angle(rng.vec().normalize(), 3.0 * rng.next());
        let translation = rng.vec();
        let moved = rest.map(|p| rotation * p + translation);
        let s = strains(moved, &frame);
        assert!(s.iter().all(|s| s.abs() < 1e-4), "rigid motion strains {s:?}");
    }
    let stretched = rest.map(|p| Vec3::new(p.x * 1.1, p.y, p.z));
    let s = strains(stretched, &frame);
    assert!((s[0] - 0.1).abs() < 1e-5 && s[1].abs() < 1e-5 && s[2].abs() < 1e-5, "warp stretch {s:?}");
    let gamma = 0.2f32;
    let sheared = rest.map(|p| Vec3::new(p.x + p.z * gamma.tan(), p.y, p.z));
    let s = strains(sheared, &frame);
    let expected_weft = 1.0 / gamma.cos() - 1.0;
    assert!(s[0].abs() < 1e-5 && (s[1] - expected_weft).abs() < 1e-5, "shear's stretches {s:?}");
    assert!((s[2] - gamma.sin()).abs() < 1e-5, "shear {} against sin γ = {}", s[2], gamma.sin());
}

/// The corrections move each particle along its gradient: with unit inverse masses and a hard
/// response, `Δp_k / Δλ` is `∇_k C`, which central differences of the f64 strains give.
#[test]
fn membrane_gradients_match_central_differences_in_f64() {
    let mut rng = Rng(3);
    for _ in 0..20 {
        let rest = [Vec3::ZERO, Vec3::new(0.02, 0.003, 0.0), Vec3::new(0.004, 0.021, 0.002)];
        let warp = Vec3::new(1.0, 0.3, 0.1);
        let frame = RestFrame::new(rest, warp).unwrap();
        let p = rest.map(|x| x * 1.05 + rng.vec() * 0.003);
        let w = [1.0; 3];
        let corrections = [
            thread_correction(p, w, frame.warp_weights(), 0.0, [1.0, 0.0]).unwrap(),
            thread_correction(p, w, frame.weft_weights(), 0.0, [1.0, 0.0]).unwrap(),
            shear_correction(p, w, frame.warp_weights(), frame.weft_weights(), 0.0, [1.0, 0.0]).unwrap(),
        ];
        for (s, k) in corrections.iter().enumerate() {
            for (i, dp) in k.dp.iter().enumerate() {
                let gradient = DVec3::from_array([0, 1, 2].map(|axis| {
                    let step = 1e-6;
                    let mut plus = p.map(|x| x.as_dvec3());
                    let mut minus = plus;
                    plus[i][axis] += step;
                    minus[i][axis] -= step;
                    (strains_f64(rest, warp, plus)[s] - strains_f64(rest, warp, minus)[s]) / (2.0 * step)
                }));
                let measured = (*dp / k.dlambda).as_dvec3();
                let error = (measured - gradient).length() / gradient.length().max(1.0);
                assert!(error < 2e-3, "strain {s}, particle {i}: {measured} against {gradient}");
            }
        }
    }
}

/// A horizontal grid of `n × n` cells over `size` metres, its warp along `x`.
fn sheet(n: u32, size: f32) -> ClothMesh {
    ClothMesh::grid(n + 1, n + 1, size / n as f32, GridPlane::Horizontal, Vec3::ZERO).unwrap()
}

/// Rest position `p` of a horizontal [`sheet`] rolled into a cylinder of radius `radius`,
/// curved along the warp (`x`) or along the weft (`z`).
fn rolled(p: DVec3, radius: f64, along_warp: bool) -> DVec3 {
    if along_warp {
        DVec3::new(radius * (p.x / radius).sin(), radius * (1.0 - (p.x / radius).cos()), p.z)
    } else {
        DVec3::new(p.x, radius * (1.0 - (p.z / radius).cos()), radius * (p.z / radius).sin())
    }
}

/// The energy `Σ ½ k C²` of `model`'s hinges (or triangles' curvatures) at `positions`.
fn bending_energy(model: &ClothModel, positions: &[Vec3]) -> f64 {
    let constraints = model.constraints();
    match model.bending_model() {
        BendingModel::Dihedral => (0..constraints.bending.len())
            .map(|c| {
                let [a, b, d, e] = constraints.bending.particles(c).map(|i| positions[i as usize]);
                let angle = dihedral_angle(a, b, d, e).unwrap() - constraints.bending.rest_angle(c);
                0.5 * f64::from(constraints.bending.stiffness(c)) * f64::from(angle).powi(2)
            })
            .sum(),
        BendingModel::Isometric => (0..constraints.isometric.len())
            .map(|c| {
                let p = constraints.isometric.particles(c).map(|i| positions[i as usize]);
                let v = curvature_vector(p, constraints.isometric.weights(c));
                0.5 * f64::from(constraints.isometric.stiffness(c)) * f64::from(v.length_squared())
            })
            .sum(),
        BendingModel::Curvature => (0..constraints.curvature.len())
            .map(|c| {
                let p = constraints.curvature.units()[c].map(|i| positions[i as usize]);
                let s = curvatures(p, &constraints.curvature.rest(c));
                let k = constraints.curvature.stiffnesses(c);
                (0..3).map(|j| 0.5 * f64::from(k[j]) * f64::from(s[j]).powi(2)).sum::<f64>()
            })
            .sum(),
    }
}

/// A sheet rolled into a cylinder of curvature `κ` holds the plate energy `½ B κ² A`, with `B`
/// the rigidity of the direction it is curved along, whatever the resolution and in every
/// bending model: the discrete-shells scaling of each hinge's stiffness, and each triangle's
/// shape operator. `A` is the area the hinges span: a row of hinges every cell across the bend,
/// none on the two boundary rows, so one cell's width less than the sheet (the triangles whose
/// edge across the bend is on the boundary measure no curvature alike).
#[test]
fn bending_rigidity_gives_the_plate_energy_at_every_resolution() {
    let (size, kappa) = (0.3f32, 4.0f32);
    let rigidity = BendingRigidity { warp: 20e-6, weft: 7e-6 };
    for n in [8, 16, 32] {
        for bending_model in BendingModel::ALL {
            let mesh = sheet(n, size);
            let model = ClothModel::new(mesh.clone(), 0.2, &[])
                .unwrap()
                .with_bending_rigidity(rigidity)
                .unwrap()
                .with_bending_model(bending_model)
                .unwrap();
            let radius = 1.0 / f64::from(kappa);
            let roll = |along_warp| -> Vec<Vec3> {
                mesh.positions.iter().map(|p| rolled(p.as_dvec3(), radius, along_warp).as_vec3()).collect()
            };
            // Curved along x (the warp), then along z (the weft).
            let (along_warp, along_weft) = (roll(true), roll(false));
            for (positions, b, what) in [(along_warp, rigidity.warp, "warp"), (along_weft, rigidity.weft, "weft")] {
                let spanned = size * (size - size / n as f32);
                let plate = 0.5 * f64::from(b) * f64::from(kappa).powi(2) * f64::from(spanned);
                let energy = bending_energy(&model, &positions);
                assert!(
                    (energy / plate - 1.0).abs() < 0.01,
                    "{n}², {bending_model:?}, curved along the {what}: {energy} J against the plate's {plate} J"
                );
            }
        }
    }
}

/// On a smooth bend the curvature model holds what the hinges hold, whichever way the bend
/// runs across the mesh: a sheet rolled about an axis at 15°, 30°, 45° or 60° to the warp holds
/// the same energy in both (within 0.5 %, at 16² and 32²); they part only where the mesh folds
/// at its own scale (`drape::constraints::curvature`). On the grid's right triangles both hold
/// the plate's energy along the warp and the weft, and up to 1.48 times it at 45°, where the
/// grid's diagonals take the twist at twice a plate's stiffness: a property of the mesh, not
/// of either model.
#[test]
fn the_curvature_model_holds_the_hinges_energy_on_smooth_bends() {
    let (size, kappa) = (0.3f32, 4.0f32);
    let rigidity = BendingRigidity { warp: 20e-6, weft: 20e-6 };
    for n in [16, 32] {
        let hinges = ClothModel::new(sheet(n, size), 0.2, &[]).unwrap().with_bending_rigidity(rigidity).unwrap();
        let curvature = hinges.clone().with_bending_model(BendingModel::Curvature).unwrap();
        for degrees in [15.0f32, 30.0, 45.0, 60.0] {
            let (s, c) = degrees.to_radians().sin_cos();
            let radius = 1.0 / kappa;
            // Curved along (c, s) in the x–z plane, straight along (−s, c).
            let rolled: Vec<Vec3> = hinges
                .mesh()
                .positions
                .iter()
                .map(|p| {
                    let (along, across) = (p.x * c + p.z * s, -p.x * s + p.z * c);
                    let arc = radius * (along / radius).sin();
                    Vec3::new(arc * c - across * s, radius * (1.0 - (along / radius).cos()), arc * s + across * c)
                })
                .collect();
            let (by_hinges, by_triangles) = (bending_energy(&hinges, &rolled), bending_energy(&curvature, &rolled));
            assert!(
                (by_triangles / by_hinges - 1.0).abs() < 5e-3,
                "{n}², curved at {degrees}° to the warp: {by_triangles} J by the triangles, {by_hinges} J by the hinges"
            );
        }
    }
}

/// Moduli, rigidities and fabrics that are not finite and positive are typed errors; a
/// membrane or the curvature model asked for after a stiffness map is refused rather than
/// dropping the map, and so is the curvature model without a bending rigidity.
#[test]
fn bad_fabric_values_are_typed_errors() {
    let model = ClothModel::new(sheet(4, 0.2), 0.2, &[]).unwrap();
    let name = |r: Result<ClothModel, Error>| match r {
        Err(Error::Param(e)) => e.name,
        other => panic!("expected a parameter error, got {other:?}"),
    };
    for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        let moduli = Moduli { warp: 100.0, weft: 100.0, shear: bad };
        assert_eq!(name(model.clone().with_membrane(moduli)), "moduli.shear");
        let rigidity = BendingRigidity { warp: bad, weft: 1e-5 };
        assert_eq!(name(model.clone().with_bending_rigidity(rigidity)), "bending_rigidity.warp");
    }
    let hinges = model.constraints().bending.len();
    let mapped = model.clone().with_stiffness_scales(Kind::Bending, &vec![2.0; hinges]).unwrap();
    let moduli = Moduli { warp: 100.0, weft: 100.0, shear: 1.0 };
    assert_eq!(name(mapped.with_membrane(moduli)), "stretch_model");
    let expected = |r: Result<ClothModel, Error>| match r {
        Err(Error::Param(e)) => (e.name, e.expected),
        other => panic!("expected a parameter error, got {other:?}"),
    };
    let (name, why) = expected(model.clone().with_bending_model(BendingModel::Curvature));
    assert!(name == "bending_model" && why.contains("rigidity"), "{name}: {why}");
    let rigid = model.with_bending_rigidity(BendingRigidity { warp: 1e-5, weft: 1e-5 }).unwrap();
    let mapped = rigid.clone().with_stiffness_scales(Kind::Bending, &vec![2.0; hinges]).unwrap();
    let (name, why) = expected(mapped.with_bending_model(BendingModel::Curvature));
    assert!(name == "bending_model" && why.contains("stiffness maps"), "{name}: {why}");
}

/// The curvature weights the GPU derives from a triangle's rest shape in its material frame
/// are the shape operator's, `|e|/(2A) ((t·û)², (t·v̂)², √2 (t·û)(t·v̂))` with `t = ê × n̂`,
/// computed here in f64 from the 3D rest triangle on a crumpled sheet whose warp runs at an
/// angle (zero across a boundary edge).
#[test]
fn curvature_weights_from_the_material_frame_are_the_shape_operators() {
    let mut rng = Rng(5);
    let mut mesh = sheet(6, 0.3);
    for (p, uv) in mesh.positions.iter_mut().zip(&mut mesh.uvs) {
        *p += Vec3::new(0.01 * rng.next(), 0.03 * rng.next(), 0.01 * rng.next());
        *uv = Vec2::new(0.8 * uv.x + 0.6 * uv.y, -0.6 * uv.x + 0.8 * uv.y);
    }
    let model = ClothModel::from_fabric(mesh, &Fabric::named("denim").unwrap(), &[]).unwrap();
    let curvature = &model.constraints().curvature;
    let positions = &model.mesh().positions;
    for c in 0..curvature.len() {
        let unit = curvature.units()[c];
        let rest = curvature.rest(c);
        let corners = [0, 1, 2].map(|k| positions[unit[k] as usize]);
        let warp = warp_direction(corners, [0, 1, 2].map(|k| model.mesh().uvs[unit[k] as usize])).as_dvec3();
        let p = corners.map(|v| v.as_dvec3());
        let normal = (p[1] - p[0]).cross(p[2] - p[0]);
        let n = normal.normalize();
        let u = (warp - n * warp.dot(n)).normalize();
        let v = n.cross(u);
        for (k, weights) in rest.weights().into_iter().enumerate() {
            let e = p[(k + 1) % 3] - p[k];
            let t = e.cross(n).normalize();
            let scale = e.length() / normal.length();
            let expected = [t.dot(u).powi(2), t.dot(v).powi(2), std::f64::consts::SQRT_2 * t.dot(u) * t.dot(v)]
                .map(|w| if rest.interior[k] { scale * w } else { 0.0 });
            for (got, want) in weights.into_iter().zip(expected) {
                let error = (f64::from(got) - want).abs();
                assert!(error <= 1e-4 * scale, "triangle {c}, edge {k}: weight {got} against {want}");
            }
        }
        assert!(rest.interior.iter().any(|&i| i), "triangle {c} has no edge inside");
    }
}

/// A curvature material map scales the rigidity: on the GPU, a horizontal sheet clamped along
/// one edge, bending under its weight, with every curvature constraint mapped to 2.5 moves as the same sheet of a fabric whose
/// rigidities are 2.5 times (the map read from each record, the rigidity from the kind's
/// response: two paths), within 1 µm over 30 frames, and unlike the unmapped fabric.
#[test]
fn a_uniform_curvature_map_bends_as_a_stiffer_fabric() {
    let (device, queue) = device();
    let denim = Fabric::named("denim").unwrap();
    let stiffer =
        Fabric { bending: BendingRigidity { warp: 2.5 * denim.bending.warp, weft: 2.5 * denim.bending.weft }, ..denim };
    let mesh = sheet(10, 0.1);
    let pinned: Vec<u32> = (0..11).collect();
    let model = |fabric: &Fabric| ClothModel::from_fabric(mesh.clone(), fabric, &pinned).unwrap();
    let plain = model(&denim);
    let mapped =
        plain.clone().with_stiffness_scales(Kind::Curvature, &vec![2.5; plain.constraints().curvature.len()]).unwrap();
    let params = SolverParams { substeps: 20, iterations: 4, ..SolverParams::default() };
    let run = |model: &ClothModel| {
        let mut solver = GpuSolver::new(&device, &queue, model, params, &[]).unwrap();
        (0..30).for_each(|_| solver.step());
        solver.read_positions().unwrap()
    };
    let (mapped, stiffer, plain) = (run(&mapped), run(&model(&stiffer)), run(&plain));
    let apart = |a: &[Vec3], b: &[Vec3]| largest(a.iter().zip(b).map(|(p, q)| p.distance(*q)));
    assert!(apart(&mapped, &stiffer) <= 1e-6, "map against rigidity: {} m", apart(&mapped, &stiffer));
    assert!(apart(&mapped, &plain) > 1e-4, "the map changes nothing: {} m", apart(&mapped, &plain));
}

#[test]
fn the_demos_offer_the_fabrics_and_the_edge_model_by_name() {
    assert_eq!(FabricChoice::default().name(), "cotton-shirting");
    assert_eq!(DEFAULT_FABRIC, "cotton-shirting");
    assert_eq!(EDGE_MODEL.parse::<FabricChoice>(), Ok(FabricChoice(None)));
    assert_eq!(FabricChoice(None).name(), EDGE_MODEL);
    for fabric in FABRICS {
        assert_eq!(fabric.name.parse::<FabricChoice>(), Ok(FabricChoice(Some(fabric))));
    }
    let refused = "velvet".parse::<FabricChoice>().unwrap_err();
    assert!(refused.contains("velvet") && refused.contains(EDGE_MODEL), "{refused}");
}

/// A deformation of a rest position by a strain `ε` and a shear angle `γ`.
type Deformation = fn(Vec3, f32, f32) -> Vec3;

/// The membrane holds the continuum's energy per area whatever the resolution: a sheet
/// stretched by `ε` along the warp holds `½ E_warp ε² A`, along the weft `½ E_weft ε² A`, and
/// sheared by `γ` (`x += z tan γ`, which also lengthens the weft threads to `1/cos γ`) holds
/// `½ G sin²γ A + ½ E_weft (1/cos γ − 1)² A`, at 4², 16² and 64² alike.
#[test]
fn the_membrane_holds_the_continuum_energy_at_every_resolution() {
    let moduli = Moduli { warp: 900.0, weft: 400.0, shear: 30.0 };
    let (size, epsilon, gamma) = (0.5f32, 0.02f32, 0.1f32);
    let area = f64::from(size * size);
    let half = |modulus: f32, strain: f32| 0.5 * f64::from(modulus) * f64::from(strain).powi(2) * area;
    let cases: [(&str, Deformation, f64); 3] = [
        ("warp", |p, e, _| Vec3::new(p.x * (1.0 + e), p.y, p.z), half(moduli.warp, epsilon)),
        ("weft", |p, e, _| Vec3::new(p.x, p.y, p.z * (1.0 + e)), half(moduli.weft, epsilon)),
        (
            "shear",
            |p, _, g| Vec3::new(p.x + p.z * g.tan(), p.y, p.z),
            half(moduli.shear, gamma.sin()) + half(moduli.weft, 1.0 / gamma.cos() - 1.0),
        ),
    ];
    for n in [4, 16, 64] {
        let model = ClothModel::new(sheet(n, size), 0.2, &[]).unwrap().with_membrane(moduli).unwrap();
        let membrane = &model.constraints().membrane;
        for (what, deform, expected) in cases {
            let positions: Vec<Vec3> = model.mesh().positions.iter().map(|&p| deform(p, epsilon, gamma)).collect();
            let energy: f64 = (0..membrane.len())
                .map(|c| {
                    let p = membrane.triangles()[c].map(|i| positions[i as usize]);
                    let strain = strains(p, &membrane.rest(c));
                    let k = membrane.stiffnesses(c);
                    (0..3).map(|s| 0.5 * f64::from(k[s]) * f64::from(strain[s]).powi(2)).sum::<f64>()
                })
                .sum();
            assert!(
                (energy / expected - 1.0).abs() < 1e-3,
                "{n}², {what}: {energy} J against the continuum's {expected} J"
            );
        }
    }
}

/// One hard curvature step is a Newton step of its constraint: projected alone (the other two
/// left infinitely compliant), a triangle's warp curvature after its correction is zero to
/// first order, below 2 % of what it was, for every triangle of a fan whose centre has three
/// triangles, so that two edges of each share their far vertex (a particle counted once in
/// the step, as its mass moves once).
#[test]
fn a_hard_curvature_step_zeroes_its_constraint_where_edges_share_a_far_vertex() {
    for rotation in FAN_ROTATIONS {
        let checked = hard_steps_zero_their_constraints(rotation);
        assert!(checked > 0, "rotation {rotation}: no unit shares a far vertex");
    }
}

/// [`a_hard_curvature_step_zeroes_its_constraint_where_edges_share_a_far_vertex`] on the fan
/// turned by `rotation`; returns the units checked.
fn hard_steps_zero_their_constraints(rotation: usize) -> usize {
    let mesh = three_triangle_fan([0.0; 7], rotation);
    let model = ClothModel::from_fabric(mesh, &Fabric::named("denim").unwrap(), &[]).unwrap();
    let constraints = &model.constraints().curvature;
    let mut checked = 0;
    for t in 0..constraints.len() {
        let unit = constraints.units()[t];
        let shared = (3..6).any(|k| (3..k).any(|j| unit[j] == unit[k]));
        if !shared {
            continue;
        }
        let rest = constraints.rest(t);
        // The centre raised 2 mm and a far vertex lowered 1 mm: a small bend.
        let bent: Vec<Vec3> = model
            .mesh()
            .positions
            .iter()
            .enumerate()
            .map(|(i, p)| *p + Vec3::Y * [2e-3, 0.0, 0.0, -1e-3, 0.0, 0.0, 0.0][i])
            .collect();
        let p = unit.map(|i| bent[i as usize]);
        let w = unit.map(|i| model.inverse_masses()[i as usize]);
        let before = curvatures(p, &rest)[0];
        let responses = [[1.0, 0.0], [1.0, f32::MAX], [1.0, f32::MAX]];
        let k = curvature_correction(p, w, rest.weights(), rest.rest_angles, [0.0; 3], responses, aliases(&unit));
        // Each particle once: a place that repeats an earlier one adds its move there.
        let mut moved = bent.clone();
        for (place, &i) in unit.iter().enumerate() {
            moved[i as usize] += k.dp[place];
        }
        let after = curvatures(unit.map(|i| moved[i as usize]), &rest)[0];
        assert!(before.abs() > 1e-3, "triangle {t}: the bend gives no warp curvature ({before})");
        assert!(after.abs() < 0.02 * before.abs(), "triangle {t}: warp curvature {before} → {after} 1/m");
        checked += 1;
    }
    checked
}

/// `dihedral`'s signed angle in f64 (the same convention).
fn dihedral_f64(p0: DVec3, p1: DVec3, p2: DVec3, p3: DVec3) -> f64 {
    let e = p1 - p0;
    let (normal_a, normal_b) = (e.cross(p2 - p0), (p3 - p0).cross(e));
    (normal_a.cross(normal_b).dot(e) / e.length()).atan2(normal_a.dot(normal_b))
}

/// The curvature's steps, taken in the angles' space through their Gram matrix, are the
/// sequential XPBD steps on the particles' gradients: an f64 oracle written here (each
/// constraint's gradient per particle by central differences of f64 angles, a particle in two
/// places moved as one, each step's value moved to first order by the steps before it) gives
/// the same moves per particle within 1e-3 of the largest and multiplier steps within 1 % of
/// the largest (f32 against f64: over 200 random bends the worst step was 0.7 % off, as with
/// the particles' gradients in f32), for every triangle of a bent fan (shared far vertices and
/// boundary edges, in every place of a unit), with multipliers and compliances of the size of
/// the steps. Leaving out the first-order move of the values fails it by half a move.
#[test]
fn curvature_steps_are_sequential_xpbd_steps_on_the_particles_gradients() {
    for rotation in FAN_ROTATIONS {
        let checked = steps_match_the_oracle(rotation);
        assert_eq!(checked, 6, "rotation {rotation}: triangles checked");
    }
}

/// [`curvature_steps_are_sequential_xpbd_steps_on_the_particles_gradients`] on the fan turned
/// by `rotation`; returns the triangles checked.
fn steps_match_the_oracle(rotation: usize) -> usize {
    let mesh = three_triangle_fan([0.0; 7], rotation);
    let model = ClothModel::from_fabric(mesh, &Fabric::named("denim").unwrap(), &[]).unwrap();
    let constraints = &model.constraints().curvature;
    let mut rng = Rng(5);
    let bent: Vec<Vec3> = model.mesh().positions.iter().map(|&p| p + rng.vec() * 2e-3).collect();
    let mut checked = 0;
    for t in 0..constraints.len() {
        let (unit, rest) = (constraints.units()[t], constraints.rest(t));
        let mut particles = unit.to_vec();
        particles.sort_unstable();
        particles.dedup();
        let weights = rest.weights();
        // C_j at the particles `x` (f64, by particle index).
        let constraint = |x: &[DVec3], j: usize| -> f64 {
            (0..3)
                .map(|k| {
                    let at = |place: usize| x[unit[place] as usize];
                    let angle = dihedral_f64(at(k), at((k + 1) % 3), at((k + 2) % 3), at(3 + k));
                    f64::from(weights[k][j]) * (angle - f64::from(rest.rest_angles[k]))
                })
                .sum()
        };
        let x: Vec<DVec3> = bent.iter().map(|p| p.as_dvec3()).collect();
        let gradient = |j: usize| -> Vec<DVec3> {
            let h = 1e-7;
            particles
                .iter()
                .map(|&i| {
                    let along = |axis: DVec3| {
                        let mut plus = x.clone();
                        let mut minus = x.clone();
                        plus[i as usize] += axis * h;
                        minus[i as usize] -= axis * h;
                        (constraint(&plus, j) - constraint(&minus, j)) / (2.0 * h)
                    };
                    DVec3::new(along(DVec3::X), along(DVec3::Y), along(DVec3::Z))
                })
                .collect()
        };
        let w: Vec<f64> = particles.iter().map(|&i| f64::from(model.inverse_masses()[i as usize])).collect();
        let gradients: Vec<Vec<DVec3>> = (0..3).map(gradient).collect();
        let weighted: Vec<f64> =
            gradients.iter().map(|g| g.iter().zip(&w).map(|(g, w)| w * g.length_squared()).sum()).collect();
        assert!(weighted.iter().any(|&s| s > 0.0), "triangle {t}: no constraint has a gradient");
        // Compliances of the size of each step's own stiffness, multipliers of the size of a step.
        let alpha: Vec<f64> = weighted.iter().map(|&s| 0.5 * s + 1.0).collect();
        let lambdas: [f64; 3] = std::array::from_fn(|j| 0.3 * constraint(&x, j) / alpha[j]);
        let mut moves = vec![DVec3::ZERO; particles.len()];
        let mut steps = [0.0; 3];
        for j in 0..3 {
            let moved: f64 = gradients[j].iter().zip(&moves).map(|(g, d)| g.dot(*d)).sum();
            steps[j] = (-(constraint(&x, j) + moved) - alpha[j] * lambdas[j]) / (weighted[j] + alpha[j]);
            for ((d, g), w) in moves.iter_mut().zip(&gradients[j]).zip(&w) {
                *d += *g * (w * steps[j]);
            }
        }
        let p = unit.map(|i| bent[i as usize]);
        let w_places = unit.map(|i| model.inverse_masses()[i as usize]);
        let responses: [[f32; 2]; 3] = std::array::from_fn(|j| [1.0, alpha[j] as f32]);
        let lambdas32 = lambdas.map(|l| l as f32);
        let k = curvature_correction(p, w_places, weights, rest.rest_angles, lambdas32, responses, aliases(&unit));
        let scale = largest(moves.iter().map(|d| d.length() as f32));
        assert!(scale > 1e-12, "triangle {t}: the steps move nothing");
        for (n, &i) in particles.iter().enumerate() {
            let summed: Vec3 = (0..6).filter(|&place| unit[place] == i).map(|place| k.dp[place]).sum();
            let error = (summed.as_dvec3() - moves[n]).length() as f32;
            assert!(error <= 1e-3 * scale, "triangle {t}, particle {i}: {summed} against {}", moves[n]);
        }
        let largest_step = f64::from(largest(steps.iter().map(|s| s.abs() as f32)));
        for (j, (&step, expected)) in k.dlambdas.iter().zip(steps).enumerate() {
            let error = (f64::from(step) - expected).abs();
            assert!(error <= 1e-2 * largest_step, "triangle {t}, Δλ_{j}: {step} against {expected}");
        }
        checked += 1;
    }
    checked
}

/// Wang et al. 2011's measured data convert to the membrane's moduli and the plate's rigidity
/// through ARCSim's own energies, written here in f64 from its code: a thread stretched to the
/// warp's (or the weft's) secant strain pulls with FAST's 5 gf/cm (the energy `½ k ε₀₀²`, its
/// stiffness looked up at that strain, differentiated by the stretch), a triangle sheared by `γ`
/// holds `½ G γ²`, and a grid of right triangles rolled into a cylinder of curvature `κ` about
/// `v` (or `u`), its hinges holding `ke |e|² θ²/(8(A₁ + A₂))` with `θ` measured on the rolled
/// mesh, holds `½ B κ²` per area with the warp's (or the weft's) rigidity; each within 0.1 %.
/// Swapping the warp's and the weft's hinges fails it.
#[test]
fn wang_2011_data_convert_through_arcsim_s_energies() {
    for data in [WANG_2011_SWEAT_KNIT, WANG_2011_DENIM] {
        let (moduli, rigidity) = (data.moduli(), data.rigidity());
        let [c11, _, c22, c33] = data.stretching_at_rest.map(f64::from);
        let [stretched_u, stretched_v] = data.stretching_stretched.map(f64::from);
        let thread_tension = |rest: f64, stretched: f64, modulus: f32| {
            let strain = f64::from(SECANT_TENSION) / f64::from(modulus);
            let k = 2.0 * (rest + (stretched - rest) * (6.0 * strain).min(1.0));
            let energy = |stretch: f64| 0.5 * k * ((stretch * stretch - 1.0) / 2.0).powi(2);
            let delta = 1e-6;
            (energy(1.0 + strain + delta) - energy(1.0 + strain - delta)) / (2.0 * delta)
        };
        let shear_energy = |gamma: f64| 2.0 * c33 * (gamma.sin() / 2.0).powi(2);
        let gamma = 1e-4;
        let tension = f64::from(SECANT_TENSION);
        let readings = [
            (thread_tension(c11, stretched_u, moduli.warp), tension),
            (thread_tension(c22, stretched_v, moduli.weft), tension),
            (2.0 * shear_energy(gamma) / (gamma * gamma), f64::from(moduli.shear)),
            (2.0 * rolled_grid_energy(data.bending_at_rest, true), f64::from(rigidity.warp)),
            (2.0 * rolled_grid_energy(data.bending_at_rest, false), f64::from(rigidity.weft)),
        ];
        for (read, value) in readings {
            assert!((read - value).abs() <= 1e-3 * value, "{data:?}: read {read} against {value}");
        }
    }
}

/// The energy per unit area and per unit of `κ²` of ARCSim's hinges (`ke` for an edge along
/// `u` and along `v` in the material space) on a [`sheet`] rolled into a cylinder of curvature
/// `κ` along the warp (`along_warp`, bending the `u` threads) or along the weft; the area is
/// the one its bent hinges span (one cell's width less than the sheet). The diagonals stay flat.
fn rolled_grid_energy(ke: [f32; 2], along_warp: bool) -> f64 {
    let (n, size, curvature) = (64, 1.0, 2.0);
    let mesh = sheet(n, size as f32);
    let model = ClothModel::new(mesh.clone(), 0.2, &[]).unwrap().with_bending_model(BendingModel::Dihedral).unwrap();
    let rest: Vec<DVec3> = mesh.positions.iter().map(|p| p.as_dvec3()).collect();
    let bent: Vec<DVec3> = rest.iter().map(|&p| rolled(p, 1.0 / curvature, along_warp)).collect();
    let mut energy = 0.0;
    for &hinge in model.constraints().bending.hinges() {
        let [a, b, c, d] = hinge.map(|i| i as usize);
        let edge = rest[b] - rest[a];
        let theta = dihedral_f64(bent[a], bent[b], bent[c], bent[d]);
        let stiffness = match (edge.x == 0.0, edge.z == 0.0) {
            (false, true) => f64::from(ke[0]),
            (true, false) => f64::from(ke[1]),
            _ => {
                assert!(theta.abs() < 1e-9, "a diagonal bends by {theta}");
                continue;
            }
        };
        let areas = [c, d].map(|k| 0.5 * edge.cross(rest[k] - rest[a]).length());
        energy += stiffness * edge.length_squared() * theta * theta / (8.0 * (areas[0] + areas[1]));
    }
    let spanned = size * (size - size / f64::from(n));
    energy / (spanned * curvature * curvature)
}
