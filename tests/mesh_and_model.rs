//! Meshes, OBJ loading, validation errors, masses, constraint building and graph colouring.

use drape::coloring::{color_constraints, validate_coloring};
use drape::model::ClothModel;
use drape::{ClothMesh, Error, GridPlane, MeshError};
use glam::Vec3;

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
    assert_eq!(model.bending_count(), 8);
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

#[test]
fn constraints_follow_the_mesh() {
    let model = ClothModel::new(grid(4), 0.2, &[0, 3]).unwrap();
    // A 3×3-cell grid: 12 + 12 axis edges + 9 diagonals; every interior edge bends.
    assert_eq!(model.stretch_count, 33);
    assert_eq!(model.bending_count(), 33 - 12);
    assert_eq!(model.inverse_masses[0], 0.0);
    assert_eq!(model.inverse_masses[3], 0.0);
    assert!(model.inverse_masses[1] > 0.0);
    for con in &model.constraints[..model.stretch_count] {
        let [a, b] = [con.particles[0], con.particles[1]].map(|i| model.mesh.positions[i as usize]);
        assert!((a.distance(b) - con.rest).abs() < 1e-6);
    }
    for con in &model.constraints[model.stretch_count..] {
        // A flat rest state has dihedral angle π in PBD's convention.
        assert!((con.rest - std::f32::consts::PI).abs() < 1e-3, "rest angle {}", con.rest);
    }
    // Every bending constraint forms a hinge with the stretch constraint of its edge; the 12
    // boundary edges are the free ones (no bending constraint), and only they fill the stretch
    // colours.
    for c in model.stretch_count..model.constraints.len() {
        let edge = model.hinge_stretch(c).unwrap();
        assert_eq!(model.constraints[edge].particles[..2], model.constraints[c].particles[..2]);
    }
    assert_eq!(model.hinge_stretch(model.stretch_count - 1), None);
    let coloured_stretch: u32 = model
        .phases
        .iter()
        .flat_map(|p| &model.colours[p.colours.start..][..p.stretch_colours])
        .map(|r| r.end - r.start)
        .sum();
    assert_eq!(coloured_stretch, 12);
}

#[test]
fn hand_edited_models_are_rejected_by_the_solvers() {
    let model = ClothModel::new(grid(4), 0.2, &[]).unwrap();
    model.validate().unwrap();
    let params = drape::SolverParams::default();
    let mut broken = model.clone();
    broken.constraints[0].particles[1] = 99;
    assert!(matches!(drape::CpuSolver::new(&broken, params, &[]), Err(Error::Mesh(MeshError::InvalidModel { .. }))));
    let mut broken = model.clone();
    broken.stretch_count -= 1;
    assert!(matches!(broken.validate(), Err(Error::Mesh(MeshError::InvalidModel { .. }))));
    // A hinge whose stretch constraint is not on its bending constraint's edge.
    let mut broken = model.clone();
    broken.constraints.swap(0, 1);
    let err = broken.validate().unwrap_err().to_string();
    assert!(err.contains("lies on its bending constraint's edge"), "{err}");
    // A stretch colour reaching into the hinge edges, which are projected with their hinges.
    let mut broken = model.clone();
    assert!(broken.phases[0].stretch_colours > 0);
    broken.colours[broken.phases[0].colours.start].start = 0;
    let err = broken.validate().unwrap_err().to_string();
    assert!(err.contains("free edges"), "{err}");
    // More bending constraints than stretch constraints: some hinge would have no edge.
    let mut broken = model.clone();
    broken.stretch_count = broken.constraints.len() / 2 - 1;
    assert!(matches!(broken.validate(), Err(Error::Mesh(MeshError::InvalidModel { .. }))));
    let mut broken = model.clone();
    broken.colours.pop();
    assert!(matches!(broken.validate(), Err(Error::Mesh(MeshError::InvalidModel { .. }))));
    // Two constraints of one colour on the same particles.
    let mut broken = model.clone();
    let first = broken.colours[0].start as usize;
    broken.constraints[first + 1] = broken.constraints[first];
    assert!(matches!(broken.validate(), Err(Error::Mesh(MeshError::InvalidModel { .. }))));
    let mut broken = model.clone();
    broken.particle_slots.items[0] = u32::MAX;
    assert!(matches!(broken.validate(), Err(Error::Mesh(MeshError::InvalidModel { .. }))));
    // A stripe's range running past its colour.
    let mut broken = model.clone();
    let k = broken.phases[0].colours.start;
    let past = broken.colours[k].end + 5;
    broken.phases[0].stripes.last_mut().unwrap().ranges[0].end = past;
    assert!(matches!(broken.validate(), Err(Error::Mesh(MeshError::InvalidModel { .. }))));
    // The mesh itself: a triangle index out of range, a texture coordinate missing.
    let mut broken = model.clone();
    broken.mesh.triangles[0][2] = 99;
    let index_error = Err(Error::Mesh(MeshError::IndexOutOfRange { triangle: 0, index: 99, vertex_count: 16 }));
    assert_eq!(broken.validate(), index_error);
    assert_eq!(drape::CpuSolver::new(&broken, params, &[]).map(|_| ()), index_error);
    let mut broken = model;
    broken.mesh.uvs.pop();
    assert_eq!(broken.validate(), Err(Error::Mesh(MeshError::TexCoordCount { uvs: 15, vertex_count: 16 })));
}

/// The validators report faults in any input, indices out of range included, instead of
/// panicking.
#[test]
fn colouring_and_stripe_validators_report_indices_out_of_range() {
    let constraints: Vec<&[u32]> = vec![&[0, 1], &[1, 2]];
    let coloring = color_constraints(&constraints, 3).unwrap();
    validate_coloring(&coloring, &constraints, 3).unwrap();
    let stray: Vec<&[u32]> = vec![&[0, 1], &[1, 7]];
    assert!(validate_coloring(&coloring, &stray, 3).unwrap_err().contains("particle 7"));
    let mut reordered = coloring.clone();
    reordered.order[0] = 9;
    assert!(validate_coloring(&reordered, &constraints, 3).unwrap_err().contains("constraint 9"));
    let stripes = drape::stripes::stripes(&constraints, 3, 1024);
    drape::stripes::validate_stripes(&stripes, &constraints, 3).unwrap();
    assert!(drape::stripes::validate_stripes(&stripes, &stray, 3).unwrap_err().contains("particle 7"));
}

/// Each phase's stretch and bending colours are valid colourings of the constraints they hold,
/// and the schedule as a whole passes the model's own check (stripes of a phase share no
/// particle, every constraint is scheduled once).
fn assert_valid_colouring(model: &ClothModel) {
    model.validate().unwrap();
    for (p, phase) in model.phases.iter().enumerate() {
        let (stretch, bending) = model.colours[phase.colours.clone()].split_at(phase.stretch_colours);
        for (kind, colours) in [("stretch", stretch), ("bending", bending)] {
            let offset = colours.first().map_or(0, |r| r.start);
            let end = colours.last().map_or(0, |r| r.end);
            let particles: Vec<&[u32]> =
                model.constraints[offset as usize..end as usize].iter().map(|c| c.used_particles()).collect();
            let coloring = drape::coloring::Coloring {
                order: (0..particles.len() as u32).collect(),
                ranges: colours.iter().map(|r| r.start - offset..r.end - offset).collect(),
            };
            validate_coloring(&coloring, &particles, model.particle_count())
                .unwrap_or_else(|e| panic!("phase {p} {kind}: {e}"));
        }
    }
}

#[test]
fn grid_colourings_are_valid_and_stretch_needs_at_most_eight() {
    for n in [3, 8, 17, 33, 49] {
        let model = ClothModel::new(grid(n), 0.2, &[]).unwrap();
        assert_valid_colouring(&model);
        // Every edge's stretch constraint, coloured on its own (the schedule colours only the
        // free edges and projects the others with their hinges).
        let edges: Vec<&[u32]> = model.constraints[..model.stretch_count].iter().map(|c| c.used_particles()).collect();
        let colouring = color_constraints(&edges, model.particle_count()).unwrap();
        validate_coloring(&colouring, &edges, model.particle_count()).unwrap();
        assert!(colouring.colour_count() <= 8, "{n}²: {} stretch colours", colouring.colour_count());
        for phase in &model.phases {
            // Only the boundary edges are coloured as stretch constraints; the rest ride with
            // their hinges.
            assert!(phase.stretch_colours <= 2, "{n}²: {} stretch colours in a phase", phase.stretch_colours);
            assert!(phase.bending_colours() <= 18, "{n}²: {} hinge colours in a phase", phase.bending_colours());
        }
    }
}

#[test]
fn stripes_split_a_large_grid_into_disjoint_bands_that_fit_workgroup_memory() {
    use drape::model::STRIPE_CAPACITY;
    let model = ClothModel::new(grid(64), 0.2, &[]).unwrap();
    let stripes: Vec<usize> = model.phases.iter().map(|p| p.stripes.len()).collect();
    // 4096 particles need five stripes of at most 1024 (counted by level); rounded up to eight,
    // both phases split evenly between two cores.
    assert_eq!(stripes, [4, 4]);
    for phase in &model.phases {
        let work: Vec<u32> = phase.stripes.iter().map(|s| s.ranges.iter().map(|r| r.end - r.start).sum()).collect();
        let mean = work.iter().sum::<u32>() as f32 / work.len() as f32;
        assert!(work.iter().all(|&w| (w as f32 - mean).abs() < 0.2 * mean), "constraints per stripe {work:?}");
    }
    assert!(model.stripes_fit_workgroup());
    let listed: usize = model.phases.iter().flat_map(|p| &p.stripes).map(|s| s.particles.len()).sum();
    // Neighbouring stripes share one boundary level, so particles are listed at most ~twice.
    assert!(listed < 2 * model.particle_count(), "{listed} particles listed");
    for stripe in model.phases.iter().flat_map(|p| &p.stripes) {
        assert!(stripe.particles.len() <= STRIPE_CAPACITY);
        // Stripes are not needlessly small: each holds at least a quarter of the capacity.
        assert!(stripe.particles.len() >= STRIPE_CAPACITY / 4, "{} particles", stripe.particles.len());
    }
    assert_valid_colouring(&model);
    model.validate().unwrap();
}

#[test]
fn stripe_slots_are_checked_against_the_stripe_particle_lists() {
    let mut model = ClothModel::new(grid(40), 0.2, &[]).unwrap();
    model.validate().unwrap();
    let first = model.phases[0].stripes[0].ranges[0].start as usize;
    model.constraints[first].stripe_slots.swap(0, 1);
    let err = model.validate().unwrap_err().to_string();
    assert!(err.contains("stripe slots"), "{err}");
}

#[test]
fn stripe_validation_catches_a_particle_shared_within_a_phase() {
    use drape::stripes::{stripes, validate_stripes, Stripes};
    // A path 0-1-2-3-4-5 of edges: one level per particle.
    let constraints: Vec<&[u32]> = vec![&[0, 1], &[1, 2], &[2, 3], &[3, 4], &[4, 5]];
    let split = stripes(&constraints, 6, 1);
    assert_eq!(split.count, 5, "{split:?}");
    validate_stripes(&split, &constraints, 6).unwrap();
    // Edges 0-1 and 1-2 in stripes 0 and 2 (one phase) share particle 1.
    let bad = Stripes { of_constraint: vec![0, 2, 1, 3, 4], count: 5 };
    assert!(validate_stripes(&bad, &constraints, 6).is_err());
    // Two components: both get levels, and stripes stay disjoint within each phase.
    let two: Vec<&[u32]> = vec![&[0, 1], &[1, 2], &[3, 4], &[4, 5]];
    validate_stripes(&stripes(&two, 6, 1), &two, 6).unwrap();
}

#[test]
fn stripe_counts_round_up_to_a_multiple_of_four_where_the_levels_allow() {
    use drape::stripes::{stripes, STRIPE_COUNT_MULTIPLE};
    assert_eq!(stripes(&[], 0, 8).count, 0);
    // A path of 12 edges: one level each. All of it fits one stripe, rounded up to four stripes
    // of three edges each.
    let path: Vec<[u32; 2]> = (0..12).map(|i| [i, i + 1]).collect();
    let path: Vec<&[u32]> = path.iter().map(|e| &e[..]).collect();
    let split = stripes(&path, 13, 100);
    assert_eq!(split.count, STRIPE_COUNT_MULTIPLE);
    for stripe in 0..split.count {
        assert_eq!(split.of_constraint.iter().filter(|&&s| s == stripe).count(), 3, "{split:?}");
    }
    // Three edges have three levels only: three stripes.
    assert_eq!(stripes(&path[..3], 4, 100).count, 3);
}

#[test]
fn obj_mesh_colouring_is_valid() {
    let model = ClothModel::new(ClothMesh::from_obj_str(&tube_obj(11, 7)).unwrap(), 0.2, &[]).unwrap();
    assert_valid_colouring(&model);
}

#[test]
fn colouring_validation_catches_conflicts() {
    let constraints: Vec<&[u32]> = vec![&[0, 1], &[1, 2], &[2, 3]];
    let good = color_constraints(&constraints, 4).unwrap();
    assert_eq!(good.colour_count(), 2);
    validate_coloring(&good, &constraints, 4).unwrap();
    let bad = drape::coloring::Coloring { order: vec![0, 1, 2], ranges: vec![0..2, 2..3] };
    assert!(validate_coloring(&bad, &constraints, 4).unwrap_err().contains("particle 1"));
    // Constraint 1 is missing from the colouring.
    let missing = drape::coloring::Coloring { order: vec![0, 2], ranges: vec![0..1, 1..2] };
    assert!(validate_coloring(&missing, &constraints, 4).is_err());
}
