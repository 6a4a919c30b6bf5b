//! Meshes, OBJ loading, validation errors, masses, constraint building and graph colouring.

mod support;

use drape::constraints::{BendingModel, UnitType};
use drape::fabric::Fabric;
use drape::geodesic::GeodesicSurface;
use drape::graph::Csr;
use drape::model::{ClothModel, STRIPE_PARTICLES};
use drape::passes::tethers::{TetherBuilder, Tethers, MAX_ANCHORS};
use drape::schedule::coloring::colour_units;
use drape::schedule::stripes::{stripes, STRIPE_COUNT_MULTIPLE};
use drape::{ClothMesh, Error, GridPlane, MeshError};
use glam::Vec3;
use support::{edge_path_distances, irregular_ring_obj, largest_f64, smallest, Rng};

fn grid(n: u32) -> ClothMesh {
    ClothMesh::grid(n, n, 0.1, GridPlane::Horizontal, Vec3::ZERO).unwrap()
}

/// A tube of quads (triangulated by the loader): irregular enough to exercise colouring.
fn tube_obj(around: usize, along: usize) -> String {
    let mut text = String::from("# a tube\n");
    for j in 0..along {
        for i in 0..around {
            let angle = i as f32 / around as f32 * std::f32::consts::TAU;
            text += &format!("v {} {} {}\n", angle.cos(), j as f32 * 0.3, angle.sin());
        }
    }
    for j in 0..along - 1 {
        for i in 0..around {
            let a = j * around + i + 1;
            let b = j * around + (i + 1) % around + 1;
            text += &format!("f {} {} {} {}\n", a, b, b + around, a + around);
        }
    }
    text
}

#[test]
fn grid_has_expected_topology_and_mass() {
    let mesh = ClothMesh::grid(5, 4, 0.5, GridPlane::Vertical, Vec3::new(1.0, 2.0, 3.0)).unwrap();
    assert_eq!(mesh.positions.len(), 20);
    assert_eq!(mesh.triangles.len(), 2 * 4 * 3);
    let masses = mesh.vertex_masses(0.2);
    let total: f32 = masses.iter().sum();
    let area = 2.0 * 1.5;
    assert!((total - 0.2 * area).abs() < 1e-5, "total mass {total}");
    // Each vertex: density · area / 3 of each adjacent triangle (PBD §4.1). Every triangle is half
    // a 0.5 m cell, so a vertex weighs 0.2 · 0.125 / 3 kg per triangle it belongs to.
    for (i, &mass) in masses.iter().enumerate() {
        let triangles = mesh.triangles.iter().filter(|t| t.contains(&(i as u32))).count();
        let expected = triangles as f32 * 0.2 * 0.125 / 3.0;
        assert!((mass - expected).abs() < 1e-7, "vertex {i}: {mass} kg, expected {expected}");
    }
    // Vertical grids face +Z.
    let [a, b, c] = mesh.triangles[0].map(|i| mesh.positions[i as usize]);
    assert!((b - a).cross(c - a).z > 0.0);
}

#[test]
fn obj_quads_are_triangulated_and_loaded() {
    let mesh = ClothMesh::from_obj_str(&tube_obj(8, 5)).unwrap();
    assert_eq!(mesh.positions.len(), 40);
    assert_eq!(mesh.triangles.len(), 2 * 8 * 4);
    let path = std::env::temp_dir().join(format!("drape-tube-{}.obj", std::process::id()));
    std::fs::write(&path, tube_obj(8, 5)).unwrap();
    assert_eq!(ClothMesh::from_obj(&path).unwrap(), mesh);
    std::fs::remove_file(path).unwrap();
}

/// A 3 × 3-vertex square of four quads whose corners carry texture coordinates with a seam down
/// the middle column and a normal per face, split into two objects that share that column.
const SEAMED_SQUARE_OBJ: &str = "\
v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 1 0\nv 1 1 0\nv 2 1 0\nv 0 2 0\nv 1 2 0\nv 2 2 0
vt 0 0\nvt 0.5 0\nvt 0.6 0\nvt 1 0
vn 0 0 1\nvn 0 0 1\nvn 0 0 1\nvn 0 0 1
o left
f 1/1/1 2/2/1 5/2/1 4/1/1
f 4/1/2 5/2/2 8/2/2 7/1/2
o right
f 2/3/3 3/4/3 6/4/3 5/3/3
f 5/3/4 6/4/4 9/4/4 8/3/4
";

#[test]
fn obj_vertices_are_positions_whatever_their_texture_coordinates_normals_or_object() {
    let mesh = ClothMesh::from_obj_str(SEAMED_SQUARE_OBJ).unwrap();
    assert_eq!(mesh.positions.len(), 9, "one vertex per OBJ position");
    assert_eq!(mesh.triangles.len(), 8);
    // Joined across the seam and the objects: 16 edges (12 axis, 4 diagonals), 8 of them interior.
    let edges = mesh.edges().unwrap();
    assert_eq!(edges.len(), 16);
    assert_eq!(edges.iter().filter(|e| e.right.is_some()).count(), 8);
    let model = ClothModel::new(mesh.clone(), 0.1, &[]).unwrap();
    assert_eq!(model.constraints().bending.len(), 8);
    // −0 and 0 are the same coordinate.
    let signed_zeros = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv -0 -0 0\nv 1 -1 0\nf 1 2 3\nf 4 5 2\n";
    assert_eq!(ClothMesh::from_obj_str(signed_zeros).unwrap().positions.len(), 4);
    // Each vertex keeps the texture coordinate of its first corner.
    let uv = |x: f32, y: f32| mesh.uvs[mesh.positions.iter().position(|p| *p == Vec3::new(x, y, 0.0)).unwrap()];
    assert_eq!(uv(0.0, 0.0), glam::Vec2::new(0.0, 0.0));
    assert_eq!(uv(1.0, 1.0), glam::Vec2::new(0.5, 0.0));
    assert_eq!(uv(2.0, 2.0), glam::Vec2::new(1.0, 0.0));
}

#[test]
fn obj_meshes_that_are_not_cloth_give_the_mesh_error() {
    let fan = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 -1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 2 5\n";
    let twice = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 2 3 1\n";
    let flat = "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n";
    for (text, expected) in [
        (fan, MeshError::NonManifoldEdge { a: 0, b: 1, triangles: 3 }),
        (twice, MeshError::DuplicateTriangle { first: 0, second: 1 }),
        (flat, MeshError::DegenerateTriangle { triangle: 0 }),
        ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n\nf 1 2\n", MeshError::ShortFace { line: 6, vertices: 2 }),
    ] {
        let result = ClothMesh::from_obj_str(text);
        assert_eq!(result, Err(Error::ObjMesh { path: "<memory>".into(), error: expected }));
    }
}

#[test]
fn missing_or_malformed_obj_is_a_typed_error() {
    assert!(matches!(ClothMesh::from_obj("no/such/file.obj"), Err(Error::Obj { .. })));
    assert!(matches!(ClothMesh::from_obj_str("v 0 0 0\nf 1 2 3\n"), Err(Error::Obj { .. })));
    // Text without a single face parses, to an empty mesh.
    assert!(matches!(
        ClothMesh::from_obj_str("this is not an obj\n"),
        Err(Error::ObjMesh { error: MeshError::Empty, .. })
    ));
}

fn mesh_error(positions: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> MeshError {
    match ClothMesh::new(positions, triangles, None) {
        Err(Error::Mesh(e)) => e,
        other => panic!("expected a mesh error, got {other:?}"),
    }
}

#[test]
fn invalid_meshes_give_typed_errors() {
    let quad = vec![Vec3::ZERO, Vec3::X, Vec3::new(1.0, 0.0, 1.0), Vec3::Z];
    assert_eq!(mesh_error(vec![], vec![]), MeshError::Empty);
    assert_eq!(mesh_error(quad.clone(), vec![]), MeshError::Empty);
    assert_eq!(
        mesh_error(quad.clone(), vec![[0, 1, 7]]),
        MeshError::IndexOutOfRange { triangle: 0, index: 7, vertex_count: 4 }
    );
    let mut nan = quad.clone();
    nan[2].y = f32::NAN;
    assert_eq!(mesh_error(nan, vec![[0, 1, 2]]), MeshError::NonFinitePosition { vertex: 2 });
    let collinear = vec![Vec3::ZERO, Vec3::X, Vec3::X * 2.0];
    assert_eq!(mesh_error(collinear, vec![[0, 1, 2]]), MeshError::DegenerateTriangle { triangle: 0 });
    // Collinear in decimal, 0.2 m edges: f32 rounding leaves its cross product far above an
    // absolute area threshold, but its height is nothing next to its edges.
    let rounded = vec![
        Vec3::new(0.3, 0.7, 0.1),
        Vec3::new(0.366_666_67, 0.833_333_3, 0.233_333_33),
        Vec3::new(0.433_333_34, 0.966_666_64, 0.366_666_67),
    ];
    assert!((rounded[1] - rounded[0]).cross(rounded[2] - rounded[0]).length() > 1e-12);
    assert_eq!(mesh_error(rounded, vec![[0, 1, 2]]), MeshError::DegenerateTriangle { triangle: 0 });
    // A millimetre triangle is small, not degenerate.
    assert!(ClothMesh::new(vec![Vec3::ZERO, Vec3::X * 1e-3, Vec3::Z * 1e-3], vec![[0, 2, 1]], None).is_ok());
    // A 1e-7 m triangle apart from a 40 cm mesh of 5e-3 m² triangles (area 5e-15 m²): masses
    // 1e12 apart.
    let mut speck = grid(5);
    let first = speck.positions.len() as u32;
    let corner = Vec3::new(-1e-3, 0.0, -1e-3);
    speck.positions.extend([corner, corner + Vec3::X * 1e-7, corner + Vec3::Z * 1e-7]);
    speck.triangles.push([first, first + 2, first + 1]);
    let tiny = speck.triangles.len() - 1;
    match mesh_error(speck.positions.clone(), speck.triangles.clone()) {
        MeshError::TinyTriangle { triangle, area, median } => {
            assert_eq!(triangle, tiny);
            assert!((area / 5e-15 - 1.0).abs() < 1e-2 && (median - 0.005).abs() < 1e-6, "{area} {median}");
        }
        other => panic!("a tiny triangle gave {other:?}"),
    }
    // One a thousandth of its neighbours' size is accepted.
    speck.positions.truncate(first as usize);
    speck.positions.extend([corner, corner + Vec3::X * 1e-3, corner + Vec3::Z * 1e-4]);
    assert!(ClothMesh::new(speck.positions, speck.triangles, None).is_ok());
    assert_eq!(
        mesh_error(quad.clone(), vec![[0, 2, 1], [0, 3, 2], [2, 1, 0]]),
        MeshError::DuplicateTriangle { first: 0, second: 2 }
    );
    let mut fan = quad.clone();
    fan.push(Vec3::new(0.5, 1.0, 0.5));
    assert_eq!(
        mesh_error(fan, vec![[0, 2, 1], [0, 3, 2], [0, 2, 4]]),
        MeshError::NonManifoldEdge { a: 0, b: 2, triangles: 3 }
    );
    let uvs = Some(vec![glam::Vec2::ZERO; 3]);
    assert_eq!(
        ClothMesh::new(quad.clone(), vec![[0, 2, 1], [0, 3, 2]], uvs),
        Err(Error::Mesh(MeshError::TexCoordCount { uvs: 3, vertex_count: 4 }))
    );
    // Beyond the counts every index stays in u32 for: a typed error before anything is built.
    let huge = vec![Vec3::ZERO; drape::mesh::MAX_VERTICES + 1];
    assert_eq!(
        mesh_error(huge, vec![[0, 1, 2]]),
        MeshError::TooLarge {
            what: "vertices",
            count: drape::mesh::MAX_VERTICES + 1,
            limit: drape::mesh::MAX_VERTICES
        }
    );
    let mut stray = quad.clone();
    stray.push(Vec3::ONE);
    assert_eq!(mesh_error(stray, vec![[0, 2, 1], [0, 3, 2]]), MeshError::UnreferencedVertex { vertex: 4 });
    for n in [1 << 15, 1 << 16] {
        assert!(matches!(
            ClothMesh::grid(n, n, 0.1, GridPlane::Horizontal, Vec3::ZERO),
            Err(Error::Mesh(MeshError::InvalidGrid { .. }))
        ));
    }
    assert!(matches!(
        ClothMesh::grid(1, 5, 0.1, GridPlane::Horizontal, Vec3::ZERO),
        Err(Error::Mesh(MeshError::InvalidGrid { .. }))
    ));
    assert!(matches!(
        ClothMesh::grid(3, 3, -1.0, GridPlane::Horizontal, Vec3::ZERO),
        Err(Error::Mesh(MeshError::InvalidGrid { .. }))
    ));
}

#[test]
fn model_rejects_bad_density_and_pins() {
    assert!(matches!(ClothModel::new(grid(3), 0.0, &[]), Err(Error::Param(_))));
    assert!(matches!(ClothModel::new(grid(3), f32::NAN, &[]), Err(Error::Param(_))));
    // Masses must stay finite and non-zero (and so must their inverses).
    let huge = ClothMesh::grid(3, 3, 1e3, GridPlane::Horizontal, Vec3::ZERO).unwrap();
    assert!(matches!(ClothModel::new(huge, 1e35, &[]), Err(Error::Param(_))));
    assert!(matches!(ClothModel::new(grid(3), 1e-44, &[]), Err(Error::Param(_))));
    assert!(matches!(
        ClothModel::new(grid(3), 0.2, &[9]),
        Err(Error::Mesh(MeshError::PinOutOfRange { index: 9, vertex_count: 9 }))
    ));
}

/// Switching the bending model rebuilds the same hinges, in the same order, with the other
/// kind's constraints, and carries each hinge's stiffness scale; switching back gives the
/// original constraints.
#[test]
fn the_bending_model_switches_on_the_same_hinges() {
    use drape::constraints::{BendingModel, Kind};
    let model = ClothModel::new(grid(7), 0.2, &[0]).unwrap();
    assert_eq!(model.bending_model(), BendingModel::Dihedral);
    let hinges = model.constraints().bending.len();
    let scales: Vec<f32> = (0..hinges).map(|c| 1.0 + c as f32).collect();
    let model = model.with_stiffness_scales(Kind::Bending, &scales).unwrap();
    let isometric = model.clone().with_bending_model(BendingModel::Isometric).unwrap();
    let constraints = isometric.constraints();
    assert_eq!(isometric.bending_model(), BendingModel::Isometric);
    assert!(constraints.bending.is_empty());
    assert_eq!(constraints.isometric.hinges(), model.constraints().bending.hinges());
    assert_eq!(isometric.units(UnitType::IsometricHinge), model.units(UnitType::Hinge));
    assert!(isometric.units(UnitType::Hinge).is_empty());
    assert_eq!(isometric.colour_count(UnitType::IsometricHinge), model.colour_count(UnitType::Hinge));
    assert!(constraints.isometric.records().iter().zip(&scales).all(|(r, s)| r.stiffness_scale == *s));
    assert_eq!(constraints.stretch, model.constraints().stretch);
    let back = isometric.with_bending_model(BendingModel::Dihedral).unwrap();
    assert_eq!(back.constraints(), model.constraints());
    assert_eq!("isometric".parse::<BendingModel>(), Ok(BendingModel::Isometric));
    assert!("quadratic".parse::<BendingModel>().is_err());
}

/// The isometric model bends every hinge toward flat, so it refuses a curved rest mesh with a
/// typed error naming the most curved hinge: a tube, and a sheet folded by 5° along a line
/// (the hinge named lies on the fold). A fold of 0.5° is within the documented tolerance; the
/// dihedral model takes every one of them.
#[test]
fn isometric_bending_refuses_a_curved_rest_mesh() {
    use drape::constraints::isometric::FLAT_REST_TOLERANCE;
    use drape::constraints::BendingModel;
    let refused = |mesh: ClothMesh| {
        let model = ClothModel::new(mesh, 0.2, &[]).unwrap();
        assert!(model.clone().with_bending_model(BendingModel::Dihedral).is_ok());
        model.with_bending_model(BendingModel::Isometric).err()
    };
    let tube = refused(ClothMesh::from_obj_str(&tube_obj(11, 7)).unwrap());
    let Some(drape::Error::CurvedRestHinge { curvature, tolerance, .. }) = tube else { panic!("tube: {tube:?}") };
    assert!(curvature > 10.0 * tolerance && tolerance == FLAT_REST_TOLERANCE, "{curvature} > {tolerance}");
    let folded = |degrees: f32| {
        let mut mesh = grid(9);
        let (sin, cos) = degrees.to_radians().sin_cos();
        for p in mesh.positions.iter_mut().filter(|p| p.x > 0.4 + 1e-4) {
            let along = p.x - 0.4;
            (p.x, p.y) = (0.4 + along * cos, along * sin);
        }
        refused(mesh)
    };
    assert_eq!(folded(0.5), None);
    let Some(drape::Error::CurvedRestHinge { particles, .. }) = folded(5.0) else { panic!("not refused at 5°") };
    let mesh = grid(9);
    let on_fold = |i: u32| (mesh.positions[i as usize].x - 0.4).abs() < 1e-4;
    assert!(on_fold(particles[0]) && on_fold(particles[1]), "hinge {particles:?} off the fold");
    let message = folded(5.0).unwrap().to_string();
    assert!(message.contains("dihedral") && message.contains("hinge"), "{message}");
}

/// Material maps: one finite, positive scale per particle or constraint, or a typed error
/// naming the map. Mass scales keep pins pinned and change the other inverse masses; a
/// per-particle map becomes per-constraint means.
#[test]
fn material_maps_are_validated_and_applied() {
    use drape::constraints::Kind;
    let model = ClothModel::new(grid(3), 0.2, &[0]).unwrap();
    let name = |result: Result<ClothModel, Error>| match result {
        Err(Error::Param(e)) => e.name,
        other => panic!("accepted: {other:?}"),
    };
    assert_eq!(name(model.clone().with_mass_scales(&[1.0; 8])), "mass_scales");
    assert_eq!(name(model.clone().with_mass_scales(&[0.0; 9])), "mass_scales");
    assert_eq!(name(model.clone().with_mass_scales(&[f32::NAN; 9])), "mass_scales");
    // A valid scale whose mass underflows.
    assert_eq!(name(model.clone().with_mass_scales(&[1e-42; 9])), "mass_scales");
    let edges = model.constraints().stretch.len();
    assert_eq!(name(model.clone().with_stiffness_scales(Kind::Stretch, &vec![1.0; edges + 1])), "stiffness_scales");
    assert_eq!(name(model.clone().with_stiffness_scales(Kind::Stretch, &vec![-1.0; edges])), "stiffness_scales");
    let hinges = model.constraints().bending.len();
    assert_eq!(
        name(model.clone().with_stiffness_scales(Kind::Bending, &vec![f32::INFINITY; hinges])),
        "stiffness_scales"
    );
    assert!(matches!(model.constraint_means(Kind::Stretch, &[1.0; 3]), Err(Error::Param(_))));

    let mut scales = [1.0; 9];
    scales[0] = 5.0;
    scales[4] = 3.0;
    let heavy = model.clone().with_mass_scales(&scales).unwrap();
    assert_eq!(heavy.inverse_masses()[0], 0.0, "a pinned particle stays pinned");
    assert_eq!(heavy.masses()[4], 3.0 * model.masses()[4]);
    assert_eq!(heavy.inverse_masses()[4], 1.0 / heavy.masses()[4]);
    assert_eq!(heavy.inverse_masses()[8], model.inverse_masses()[8]);
    let per_particle: Vec<f32> = (0..9).map(|i| i as f32).collect();
    let means = model.constraint_means(Kind::Stretch, &per_particle).unwrap();
    for (c, mean) in means.iter().enumerate() {
        let [a, b] = model.constraints().stretch.particles(c);
        assert_eq!(*mean, (a + b) as f32 / 2.0);
    }
    let stiff = model.clone().with_stiffness_scales(Kind::Stretch, &means.iter().map(|m| m + 1.0).collect::<Vec<_>>());
    let stiff = stiff.unwrap();
    let stretch = &stiff.constraints().stretch;
    assert!(stretch.records().iter().zip(&means).all(|(r, m)| r.stiffness_scale == m + 1.0));
}

#[test]
fn constraints_follow_the_mesh() {
    let model = ClothModel::new(grid(4), 0.2, &[0, 3]).unwrap();
    let constraints = model.constraints();
    // A 3×3-cell grid: 12 + 12 axis edges + 9 diagonals; every interior edge bends.
    assert_eq!(constraints.stretch.len(), 33);
    assert_eq!(constraints.bending.len(), 33 - 12);
    assert_eq!(model.inverse_masses()[0], 0.0);
    assert_eq!(model.inverse_masses()[3], 0.0);
    assert!(model.inverse_masses()[1] > 0.0);
    for c in 0..constraints.stretch.len() {
        let [a, b] = constraints.stretch.particles(c).map(|i| model.mesh().positions[i as usize]);
        assert!((a.distance(b) - constraints.stretch.rest_length(c)).abs() < 1e-6);
    }
    for c in 0..constraints.bending.len() {
        // A flat rest state has signed dihedral angle 0.
        let rest = constraints.bending.rest_angle(c);
        assert!(rest.abs() < 1e-6, "rest angle {rest}");
    }
    // Hinge u is bending constraint u with stretch constraint u on its edge; the 12 boundary
    // edges are the free edges, the only units of their type.
    assert_eq!(model.units(UnitType::Hinge), 0..21);
    assert_eq!(model.units(UnitType::FreeEdge), 21..33);
    assert_valid_schedule(&model);
}

/// Checks the model's schedule independently of the code that built it: every unit of every
/// type in exactly one colour of its type, no particle twice in a colour, the phases' colours in
/// order, each stripe's shares tiling its colours in stripe order, stripes of one phase sharing no
/// particle, each stripe listing exactly its units' particles, each hinge's stretch
/// constraint on its bending constraint's edge and each shell's membrane constraint on its
/// curvature constraint's triangle.
fn assert_valid_schedule(model: &ClothModel) {
    let constraints = model.constraints();
    let schedule = model.schedule();
    for u in model.units(UnitType::Hinge) {
        let [a, b, _, _] = constraints.bending.particles(u as usize);
        assert_eq!(constraints.stretch.particles(u as usize), [a, b], "hinge {u}");
    }
    for u in model.units(UnitType::Shell).map(|u| u as usize) {
        assert_eq!(constraints.membrane.triangles()[u][..], constraints.curvature.units()[u][..3], "shell {u}");
    }
    let mut seen: Vec<Vec<bool>> = UnitType::ALL.iter().map(|&t| vec![false; model.units(t).len()]).collect();
    let mut last_colour_of_particle = vec![usize::MAX; model.particle_count()];
    for (k, colour) in schedule.colours.iter().enumerate() {
        let t = UnitType::ALL[colour.unit_type];
        let units = model.units(t);
        assert!(colour.units.start >= units.start && colour.units.end <= units.end, "colour {k} out of its type");
        for u in colour.units.clone() {
            assert!(
                !std::mem::replace(&mut seen[colour.unit_type][(u - units.start) as usize], true),
                "unit {u} twice"
            );
            // A unit may hold a particle in two places (a curvature unit's boundary edge).
            let mut particles = t.particles(constraints, u as usize).to_vec();
            particles.sort_unstable();
            particles.dedup();
            for p in particles {
                let previous = std::mem::replace(&mut last_colour_of_particle[p as usize], k);
                assert_ne!(previous, k, "particle {p} twice in colour {k}");
            }
        }
    }
    assert!(seen.iter().flatten().all(|&s| s), "a unit in no colour");
    assert_eq!(schedule.phases[0].colours.start, 0);
    assert_eq!(schedule.phases[0].colours.end, schedule.phases[1].colours.start);
    assert_eq!(schedule.phases[1].colours.end, schedule.colours.len());
    for phase in &schedule.phases {
        let mut owner = vec![usize::MAX; model.particle_count()];
        for (j, colour) in schedule.colours[phase.colours.clone()].iter().enumerate() {
            let mut next = colour.units.start;
            for stripe in &phase.stripes {
                assert_eq!(stripe.units[j].start, next, "stripe shares tile their colour");
                next = stripe.units[j].end;
            }
            assert_eq!(next, colour.units.end, "stripe shares tile their colour");
        }
        for (s, stripe) in phase.stripes.iter().enumerate() {
            let mut particles: Vec<u32> = schedule.colours[phase.colours.clone()]
                .iter()
                .zip(&stripe.units)
                .flat_map(|(colour, units)| {
                    let t = UnitType::ALL[colour.unit_type];
                    units.clone().flat_map(move |u| t.particles(constraints, u as usize).to_vec())
                })
                .collect();
            particles.sort_unstable();
            particles.dedup();
            assert_eq!(stripe.particles, particles, "stripe {s} lists its particles");
            for &p in &particles {
                let previous = std::mem::replace(&mut owner[p as usize], s);
                assert!(previous == usize::MAX || previous == s, "particle {p} in two stripes of a phase");
            }
        }
    }
}

#[test]
fn a_fabric_projects_each_triangle_as_one_shell() {
    let mesh = grid(17);
    let triangles = mesh.triangles.len() as u32;
    let denim = Fabric::named("denim").unwrap();
    let fabric = ClothModel::from_fabric(mesh.clone(), &denim, &[]).unwrap();
    assert_eq!(fabric.bending_model(), BendingModel::Curvature);
    assert_eq!(fabric.units(UnitType::Shell), 0..triangles);
    assert!(fabric.units(UnitType::Triangle).is_empty() && fabric.units(UnitType::Curvature).is_empty());
    assert_valid_schedule(&fabric);
    // The membrane with hinges, and the edges with curvature, keep their own units.
    let hinges = fabric.clone().with_bending_model(BendingModel::Dihedral).unwrap();
    assert_eq!(hinges.units(UnitType::Triangle), 0..triangles);
    assert!(hinges.units(UnitType::Shell).is_empty());
    assert_valid_schedule(&hinges);
    let edges = ClothModel::new(mesh, 0.2, &[])
        .and_then(|m| m.with_bending_rigidity(denim.bending))
        .and_then(|m| m.with_bending_model(BendingModel::Curvature))
        .unwrap();
    assert_eq!(edges.units(UnitType::Curvature), 0..triangles);
    assert!(edges.units(UnitType::Shell).is_empty());
    assert_valid_schedule(&edges);
}

#[test]
fn grid_schedules_are_valid_with_few_colours() {
    for n in [3, 8, 17, 33, 49] {
        let model = ClothModel::new(grid(n), 0.2, &[]).unwrap();
        assert_valid_schedule(&model);
        let schedule = model.schedule();
        for phase in &schedule.phases {
            let of = |t: UnitType| {
                schedule.colours[phase.colours.clone()].iter().filter(|c| c.unit_type == t.id() as usize).count()
            };
            // Only the boundary edges are free edges; the rest ride with their hinges.
            assert!(of(UnitType::FreeEdge) <= 2, "{n}²: {} free-edge colours in a phase", of(UnitType::FreeEdge));
            assert!(of(UnitType::Hinge) <= 18, "{n}²: {} hinge colours in a phase", of(UnitType::Hinge));
        }
    }
}

#[test]
fn stripes_split_a_large_grid_into_even_disjoint_bands_that_fit_workgroup_memory() {
    let model = ClothModel::new(grid(64), 0.2, &[]).unwrap();
    let schedule = model.schedule();
    let stripes: Vec<usize> = schedule.phases.iter().map(|p| p.stripes.len()).collect();
    // 4096 particles need five stripes of at most 1024 (counted by level); rounded up to eight,
    // both phases split evenly between two cores.
    assert_eq!(stripes, [4, 4]);
    for phase in &schedule.phases {
        let work: Vec<usize> = phase.stripes.iter().map(|s| s.units.iter().map(|r| r.len()).sum()).collect();
        let mean = work.iter().sum::<usize>() as f32 / work.len() as f32;
        assert!(work.iter().all(|&w| (w as f32 - mean).abs() < 0.2 * mean), "units per stripe {work:?}");
    }
    assert!(model.stripes_fit(STRIPE_PARTICLES));
    let listed: usize = schedule.phases.iter().flat_map(|p| &p.stripes).map(|s| s.particles.len()).sum();
    // Neighbouring stripes share one boundary level, so particles are listed at most ~twice.
    assert!(listed < 2 * model.particle_count(), "{listed} particles listed");
    for stripe in schedule.phases.iter().flat_map(|p| &p.stripes) {
        // Stripes are not needlessly small: each holds at least a quarter of the capacity.
        assert!(stripe.particles.len() >= STRIPE_PARTICLES / 4, "{} particles", stripe.particles.len());
    }
    assert_valid_schedule(&model);
}

/// A stripe is at least two breadth-first levels of hinges wide, and a hinge level is two rows
/// of a grid (a hinge across a row's edge reaches the rows on either side): a 511-cell grid's
/// stripes are four rows of 512 particles at most, whose displacements fit 32 KiB of workgroup
/// memory (`GpuSolver::stripes_in_workgroup`).
#[test]
fn stripes_of_a_511_grid_are_four_rows_wide() {
    let model = ClothModel::new(grid(512), 0.2, &[]).unwrap();
    assert!(model.stripes_fit(4 * 512), "widest stripe {}", model.schedule().widest_stripe());
}

#[test]
fn stripes_of_a_path_are_its_levels_shared_out_in_multiples_of_four() {
    let path: Vec<[u32; 2]> = (0..12).map(|i| [i, i + 1]).collect();
    let units = Csr::from_rows(&path);
    let incidence = units.transpose(13);
    assert_eq!(stripes(&Csr::default(), &Csr::default(), &[], 8).count, 0);
    // A path of 12 edges: one level each. All of it fits one stripe, rounded up to four stripes
    // of three edges each.
    let split = stripes(&units, &incidence, &[], 100);
    assert_eq!(split.count, STRIPE_COUNT_MULTIPLE);
    for stripe in 0..split.count {
        assert_eq!(split.of_unit.iter().filter(|&&s| s == stripe).count(), 3, "{split:?}");
    }
    // A capacity of one level's particles cuts a stripe per level.
    assert_eq!(stripes(&units, &incidence, &[], 1).count, 12);
    // Three edges have three levels only: three stripes.
    let three = Csr::from_rows(&path[..3]);
    assert_eq!(stripes(&three, &three.transpose(4), &[], 100).count, 3);
}

#[test]
fn obj_mesh_schedule_is_valid() {
    let model = ClothModel::new(ClothMesh::from_obj_str(&tube_obj(11, 7)).unwrap(), 0.2, &[]).unwrap();
    assert_valid_schedule(&model);
}

/// A fan disc whose centre has 200 neighbours needs at least 200 colours for its hinges around
/// the centre: there is no colour limit.
#[test]
fn a_fan_with_two_hundred_neighbours_is_scheduled() {
    let spokes = 200;
    let mut text = String::from("v 0 0 0\n");
    for i in 0..spokes {
        let a = i as f32 / spokes as f32 * std::f32::consts::TAU;
        text += &format!("v {} 0 {}\n", a.cos(), a.sin());
    }
    for i in 0..spokes {
        text += &format!("f 1 {} {}\n", i + 2, (i + 1) % spokes + 2);
    }
    let model = ClothModel::new(ClothMesh::from_obj_str(&text).unwrap(), 0.2, &[]).unwrap();
    assert_eq!(model.constraints().bending.len(), spokes);
    assert!(model.colour_count(UnitType::Hinge) >= spokes, "{} colours", model.colour_count(UnitType::Hinge));
    assert_valid_schedule(&model);
}

#[test]
fn colouring_separates_units_that_share_a_particle() {
    let units = Csr::from_rows(&[[0, 1], [1, 2], [2, 3]]);
    // DSatur takes the unit with most neighbours first.
    let colours = colour_units(&units, &units.transpose(4), &[0, 1, 2]);
    assert_eq!(colours, vec![vec![1], vec![0, 2]]);
    // Only members are coloured, and non-members do not constrain them.
    assert_eq!(colour_units(&units, &units.transpose(4), &[0, 2]), vec![vec![0, 2]]);
}

/// Two separate tubes in one mesh: no path joins them.
fn two_tubes_obj() -> String {
    let one = tube_obj(6, 4);
    let vertices = one.lines().filter(|l| l.starts_with("v ")).count();
    let mut text = one.clone();
    for line in one.lines() {
        if let Some(rest) = line.strip_prefix("v ") {
            let v: Vec<f32> = rest.split(' ').map(|x| x.parse().unwrap()).collect();
            text += &format!("v {} {} {}\n", v[0] + 5.0, v[1], v[2]);
        } else if let Some(rest) = line.strip_prefix("f ") {
            let f: Vec<usize> = rest.split(' ').map(|x| x.parse::<usize>().unwrap() + vertices).collect();
            text += &format!("f {} {} {} {}\n", f[0], f[1], f[2], f[3]);
        }
    }
    text
}

/// Cloths to search for tethers: a regular grid (equal lengths, many ties), an irregular ring
/// with a hole, and two tubes no path joins.
fn tether_models() -> Vec<ClothModel> {
    [
        grid(13),
        ClothMesh::from_obj_str(&irregular_ring_obj()).unwrap(),
        ClothMesh::from_obj_str(&two_tubes_obj()).unwrap(),
    ]
    .into_iter()
    .map(|mesh| ClothModel::new(mesh, 0.2, &[]).unwrap())
    .collect()
}

/// Checks `tethers` against bounds that share nothing with the library's search: only free
/// particles are tethered; each to [`MAX_ANCHORS`] pins, or to every pin connected to it if
/// fewer (`paths[p]`: every particle's shortest path over the edges from pin `p`, computed on
/// demand), nearest first; each at a length between the straight line through space and the path
/// over the edges; and, where `flat` (a plane sheet, whose geodesics are straight lines), at the
/// straight line itself, with no pin left out nearer than the farthest one taken.
fn assert_nearest_pins(
    model: &ClothModel,
    inverse_masses: &[f32],
    tethers: &Tethers,
    paths: &mut [Option<Vec<f64>>],
    flat: bool,
) {
    let rest = &model.mesh().positions;
    let pins: Vec<usize> = (0..inverse_masses.len()).filter(|&i| inverse_masses[i] == 0.0).collect();
    for &p in &pins {
        paths[p].get_or_insert_with(|| edge_path_distances(model, p));
    }
    let mut listed = vec![None; inverse_masses.len()];
    for k in 0..tethers.particle_count() {
        let (particle, anchors) = tethers.of(k);
        listed[particle as usize] = Some(anchors.collect::<Vec<_>>());
    }
    for (i, anchors) in listed.into_iter().enumerate() {
        let reachable: Vec<usize> =
            pins.iter().copied().filter(|&p| paths[p].as_ref().unwrap()[i].is_finite()).collect();
        let anchors = anchors.unwrap_or_default();
        if inverse_masses[i] == 0.0 || reachable.is_empty() {
            assert!(anchors.is_empty(), "particle {i}: pinned or out of reach, yet tethered");
            continue;
        }
        assert_eq!(anchors.len(), reachable.len().min(MAX_ANCHORS), "particle {i}: anchors {anchors:?}");
        assert!(anchors.windows(2).all(|w| w[0].1 <= w[1].1), "particle {i}: not nearest first: {anchors:?}");
        for &(anchor, length) in &anchors {
            let straight = rest[i].distance(rest[anchor as usize]);
            let path = paths[anchor as usize].as_ref().expect("anchors are pins")[i] as f32;
            let slack = 1e-6 * straight.max(1.0);
            assert!(
                length >= straight - slack && length <= path + slack,
                "particle {i}: anchor {anchor} at {length}, straight {straight}, over the edges {path}"
            );
            if flat {
                assert!(
                    (length - straight).abs() <= slack,
                    "particle {i}: anchor {anchor} at {length}, straight {straight}"
                );
            }
        }
        if flat {
            let farthest = anchors.last().unwrap().1;
            for &p in reachable.iter().filter(|&&p| !anchors.iter().any(|&(a, _)| a as usize == p)) {
                let straight = rest[i].distance(rest[p]);
                assert!(straight >= farthest - 1e-6, "particle {i}: pin {p} at {straight} left out, {farthest} taken");
            }
        }
    }
}

/// Tethers go to the nearest pins on the rest surface (at the straight distance on a flat grid;
/// between it and the path over the edges on an irregular ring and two separate tubes); and a
/// builder kept current through a long random sequence of pins added and released (one, a few,
/// all at once, a drag's grab and release) always holds the very tethers a fresh build gives.
#[test]
fn tether_updates_match_a_fresh_build_of_the_nearest_pins() {
    let mut rng = Rng(0x5eed_7e7e);
    for (m, model) in tether_models().into_iter().enumerate() {
        let flat = m == 0;
        let n = model.particle_count();
        let free = model.inverse_masses().to_vec();
        let mut inverse_masses = free.clone();
        let mut builder = TetherBuilder::new(&model);
        let mut distances = vec![None; n];
        for change in 0..40 {
            if change % 13 == 12 {
                inverse_masses.copy_from_slice(&free);
            } else if change % 5 == 4 {
                // A drag let go: the pins of two changes ago, whose tethers the builder kept.
                let grabbed = (0..n).find(|&i| inverse_masses[i] != 0.0).unwrap();
                inverse_masses[grabbed] = 0.0;
                builder.update(&inverse_masses);
                inverse_masses[grabbed] = free[grabbed];
            } else {
                for _ in 0..1 + (rng.next() * 6.0) as usize {
                    let i = (rng.next() * n as f32) as usize;
                    inverse_masses[i] = if inverse_masses[i] == 0.0 { free[i] } else { 0.0 };
                }
            }
            builder.update(&inverse_masses);
            let fresh = Tethers::build(&model, &inverse_masses);
            assert_eq!(builder.tethers(), &fresh, "change {change}: the update differs from a fresh build");
            assert!(builder.is_built_for(&inverse_masses));
            assert_nearest_pins(&model, &inverse_masses, &fresh, &mut distances, flat);
        }
    }
}

/// The straight line between two points, in f64.
fn straight(a: Vec3, b: Vec3) -> f64 {
    a.as_dvec3().distance(b.as_dvec3())
}

/// Geodesic distances on a flat sheet are straight lines (the closed form): from a corner, the
/// middle of a side and the centre of a checkerboard grid to every particle, where the paths over
/// the edges that tethers used to take are up to 8 % longer (near 22.5° from the axes).
#[test]
fn geodesics_on_a_flat_grid_are_straight_lines() {
    let n = 41;
    let mesh = ClothMesh::grid(n, n, 0.025, GridPlane::Vertical, Vec3::new(-0.5, 1.5, 0.0)).unwrap();
    let model = ClothModel::new(mesh.clone(), 0.2, &[]).unwrap();
    let surface = GeodesicSurface::new(&mesh.positions, &mesh.triangles);
    let x = &mesh.positions;
    for source in [0, n / 2, n * (n / 2) + n / 2] {
        let geodesic = surface.distances_from(source);
        let paths = edge_path_distances(&model, source as usize);
        let mut longest_path = 1.0f64;
        for i in (0..x.len()).filter(|&i| i != source as usize) {
            let line = straight(x[i], x[source as usize]);
            assert!((geodesic[i] - line).abs() <= 1e-9, "{source} → {i}: {} against the line {line}", geodesic[i]);
            longest_path = largest_f64([longest_path, paths[i] / line]);
        }
        assert!(longest_path > 1.05, "{source}: the paths over the edges are at most {longest_path} of the line");
    }
}

/// A cylinder of flat facets unrolls into a plane, so its geodesics are the straight lines of the
/// unrolled strip (the closed form: the shorter way round, `√((k·chord)² + Δy²)`), from a vertex
/// of the bottom ring and one halfway up, to every vertex.
#[test]
fn geodesics_on_a_cylinder_are_straight_lines_unrolled() {
    use std::f64::consts::PI;
    let (around, rings, radius, spacing) = (24usize, 13usize, 0.3f64, 0.05f64);
    let vertex = |k: usize, j: usize| (j * around + k % around) as u32;
    let positions: Vec<Vec3> = (0..rings)
        .flat_map(|j| (0..around).map(move |k| (k, j)))
        .map(|(k, j)| {
            let angle = 2.0 * PI * k as f64 / around as f64;
            glam::DVec3::new(radius * angle.cos(), spacing * j as f64, radius * angle.sin()).as_vec3()
        })
        .collect();
    let triangles: Vec<[u32; 3]> = (0..rings - 1)
        .flat_map(|j| (0..around).map(move |k| (k, j)))
        .flat_map(|(k, j)| {
            let [a, b, c, d] = [vertex(k, j), vertex(k + 1, j), vertex(k + 1, j + 1), vertex(k, j + 1)];
            [[a, b, c], [a, c, d]]
        })
        .collect();
    let surface = GeodesicSurface::new(&positions, &triangles);
    let chord = 2.0 * radius * (PI / around as f64).sin();
    for (k0, j0) in [(0, 0), (5, 6)] {
        let geodesic = surface.distances_from(vertex(k0, j0));
        for (k, j) in (0..rings).flat_map(|j| (0..around).map(move |k| (k, j))) {
            let steps = k.abs_diff(k0).min(around - k.abs_diff(k0));
            let unrolled = (steps as f64 * chord).hypot(spacing * (j as f64 - j0 as f64));
            let d = geodesic[vertex(k, j) as usize];
            assert!((d - unrolled).abs() <= 1e-6, "({k0}, {j0}) → ({k}, {j}): {d} m, unrolled {unrolled} m");
        }
    }
}

/// On an irregular flat mesh with a hole (the irregular ring laid flat: valences 3 to 7, long
/// obtuse triangles), a geodesic that sees its source across the sheet is the straight line within
/// 1 %, and within 2 % where it grazes the hole (passing within 5 cm of its corners, where fast
/// marching mixes the wave that passes the hole with the one that bends round it); none is shorter
/// than the line or longer than the path over the edges.
#[test]
fn geodesics_on_an_irregular_flat_ring_are_straight_lines_within_a_percent() {
    let mesh = ClothMesh::from_obj_str(&irregular_ring_obj()).unwrap();
    let flat: Vec<Vec3> = mesh.positions.iter().map(|p| Vec3::new(p.x, p.y, 0.0)).collect();
    let flat_mesh = ClothMesh::new(flat.clone(), mesh.triangles.clone(), None).unwrap();
    let model = ClothModel::new(flat_mesh, 0.2, &[]).unwrap();
    let surface = GeodesicSurface::new(&flat, &mesh.triangles);
    // How far a segment passes from the centre of the hole (whose corners are 0.2 m from it).
    let clearance = |a: Vec3, b: Vec3| {
        let t = ((Vec3::Y - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
        (a + (b - a) * t).distance(Vec3::Y)
    };
    let (mut clear, mut grazing) = (0.0f64, 0.0f64);
    for source in (0..flat.len()).step_by(5) {
        let geodesic = surface.distances_from(source as u32);
        let paths = edge_path_distances(&model, source);
        for i in (0..flat.len()).filter(|&i| i != source) {
            let line = straight(flat[i], flat[source]);
            // The paths over the edges add f32 edge lengths.
            let (d, path) = (geodesic[i], paths[i]);
            assert!(d >= line - 1e-12 && d <= path * (1.0 + 1e-6), "{source} → {i}: {d}, line {line}, path {path}");
            match clearance(flat[source], flat[i]) {
                c if c >= 0.25 => clear = largest_f64([clear, d / line - 1.0]),
                c if c >= 0.2 => grazing = largest_f64([grazing, d / line - 1.0]),
                _ => {}
            }
        }
    }
    assert!(clear <= 0.01, "a geodesic clear of the hole is {:.3} % longer than the line", 100.0 * clear);
    assert!(grazing <= 0.02, "a geodesic grazing the hole is {:.3} % longer than the line", 100.0 * grazing);
}

/// The directional limit's forest, checked against a breadth-first search written here: on a
/// grid pinned at two corners every free particle is a child exactly once, one edge further from
/// the pins (in edges) than its parent, which is a mesh neighbour (a pin on the first level)
/// with no shorter edge to the level before (the weave before a shear diagonal); rest lengths
/// are the rest distances. Without pins the forest is empty, and a
/// piece no pin reaches is left out.
#[test]
fn the_directional_forest_reaches_every_free_particle_once_outwards_from_the_pins() {
    use drape::passes::directional::{directional_correction, DirectionalForest};
    let n = 9;
    let model = ClothModel::new(grid(n), 0.1, &[0, n - 1]).unwrap();
    let w = model.inverse_masses();
    let mesh = model.mesh();
    let edges: Vec<[u32; 2]> = mesh.edges().unwrap().iter().map(|e| [e.a, e.b]).collect();
    let mut hops = vec![u32::MAX; w.len()];
    let mut front: Vec<u32> = (0..w.len() as u32).filter(|&i| w[i as usize] == 0.0).collect();
    front.iter().for_each(|&p| hops[p as usize] = 0);
    for level in 1.. {
        let next: Vec<u32> = front
            .iter()
            .flat_map(|&p| edges.iter().filter_map(move |&[a, b]| (a == p).then_some(b).or((b == p).then_some(a))))
            .filter(|&q| hops[q as usize] == u32::MAX)
            .collect();
        next.iter().for_each(|&q| hops[q as usize] = level);
        front = next;
        if front.is_empty() {
            break;
        }
    }
    let forest = DirectionalForest::build(&model, w);
    let mut children = vec![0; w.len()];
    for (k, level) in (0..forest.level_count()).map(|k| (k, forest.level(k))) {
        for e in level {
            children[e.child as usize] += 1;
            assert_eq!(hops[e.child as usize], k as u32 + 1, "child {} on level {k}", e.child);
            assert_eq!(hops[e.parent as usize], k as u32, "parent of {}", e.child);
            assert!(edges.contains(&[e.child.min(e.parent), e.child.max(e.parent)]));
            let rest = mesh.positions[e.child as usize].distance(mesh.positions[e.parent as usize]);
            assert_eq!(e.rest_length, rest);
            let shortest = smallest(
                edges
                    .iter()
                    .filter_map(|&[a, b]| (a == e.child).then_some(b).or((b == e.child).then_some(a)))
                    .filter(|&u| hops[u as usize] == k as u32)
                    .map(|u| mesh.positions[e.child as usize].distance(mesh.positions[u as usize])),
            );
            assert_eq!(rest, shortest, "child {} has a shorter edge to the level before", e.child);
        }
    }
    for (i, &count) in children.iter().enumerate() {
        assert_eq!(count, u32::from(w[i] > 0.0), "particle {i} is a child {count} times");
    }
    assert_eq!(forest.edges().len(), w.len() - 2);

    let unpinned = ClothModel::new(grid(4), 0.1, &[]).unwrap();
    assert!(DirectionalForest::build(&unpinned, unpinned.inverse_masses()).edges().is_empty());
    let two_pieces = ClothMesh::new(
        vec![
            Vec3::ZERO,
            Vec3::X,
            Vec3::Z,
            Vec3::new(3.0, 0.0, 0.0),
            Vec3::new(4.0, 0.0, 0.0),
            Vec3::new(3.0, 0.0, 1.0),
        ],
        vec![[0, 2, 1], [3, 5, 4]],
        None,
    )
    .unwrap();
    let pieces = ClothModel::new(two_pieces, 0.1, &[0]).unwrap();
    let mut children: Vec<u32> =
        DirectionalForest::build(&pieces, pieces.inverse_masses()).edges().iter().map(|e| e.child).collect();
    children.sort();
    assert_eq!(children, [1, 2]);

    // The correction puts a child that is too far exactly on the limit, along the edge, and
    // leaves one within it alone.
    let (a, p) = (Vec3::new(0.1, 0.2, 0.3), Vec3::new(1.1, -0.8, 0.8));
    let moved = p + directional_correction(p, a, 0.5);
    assert!((moved.distance(a) - 0.5).abs() < 1e-6);
    assert!((moved - a).normalize().distance((p - a).normalize()) < 1e-6);
    assert_eq!(directional_correction(p, a, 2.0), Vec3::ZERO);
}
