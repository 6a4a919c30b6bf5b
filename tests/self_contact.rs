//! How a cloth meets itself: the host's measures of self-intersection and self-distance, checked
//! on hand-made configurations and against an all-pairs count.

use drape::metrics::self_contact::{min_self_distance, self_intersections, triangles_intersect};
use drape::{ClothMesh, GridPlane, Scene, SceneKind};
use glam::{DVec3, Quat, Vec3};

fn triangle(points: [[f64; 3]; 3]) -> [DVec3; 3] {
    points.map(DVec3::from_array)
}

/// A triangle pierced by another's edge intersects it; moved aside, or touching only at a
/// point on its plane, or lying in the same plane, it does not (proper crossings only).
#[test]
fn triangles_intersect_where_an_edge_passes_through() {
    let floor = triangle([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]);
    let pierce = triangle([[0.2, -0.5, 0.2], [0.2, 0.5, 0.2], [0.3, 0.0, 0.6]]);
    assert!(triangles_intersect(floor, pierce) && triangles_intersect(pierce, floor));
    let aside = pierce.map(|p| p + DVec3::new(2.0, 0.0, 0.0));
    assert!(!triangles_intersect(floor, aside));
    let resting = triangle([[0.2, 0.0, 0.2], [0.2, 0.5, 0.2], [0.3, 0.5, 0.6]]);
    assert!(!triangles_intersect(floor, resting), "a corner on the plane only touches");
    let coplanar = triangle([[0.1, 0.0, 0.1], [0.5, 0.0, 0.1], [0.1, 0.0, 0.5]]);
    assert!(!triangles_intersect(floor, coplanar));
    // The edges of the floor pass through a large upright triangle.
    let wall = triangle([[0.3, -1.0, -1.0], [0.3, -1.0, 3.0], [0.3, 2.0, 1.0]]);
    assert!(triangles_intersect(floor, wall));
}

/// A grid folded in half about a line across it: folded by 170° its halves lie apart, by 190°
/// one passes through the other along the fold's far side. The grid-sorted count equals an
/// all-pairs count of non-adjacent intersecting triangles.
#[test]
fn a_sheet_folded_through_itself_has_intersections_and_one_folded_over_has_none() {
    let mesh = ClothMesh::grid(11, 11, 0.1, GridPlane::Horizontal, Vec3::ZERO).unwrap();
    assert_eq!(self_intersections(&mesh, &mesh.positions), 0);
    let folded = |degrees: f32| -> Vec<Vec3> {
        // Folds the half x > 0.45 over about the line x = 0.45, y = 0.02 (so the fold is round).
        let turn = Quat::from_rotation_z(degrees.to_radians());
        let axis = Vec3::new(0.45, 0.02, 0.0);
        mesh.positions.iter().map(|&p| if p.x > 0.45 { axis + turn * (p - axis) } else { p }).collect()
    };
    let over = folded(170.0);
    assert_eq!(self_intersections(&mesh, &over), 0);
    let through = folded(190.0);
    let count = self_intersections(&mesh, &through);
    assert!(count > 0, "a half folded through the other half");
    let corners = |t: [u32; 3]| t.map(|i| through[i as usize].as_dvec3());
    let mut all_pairs = 0;
    for (s, &first) in mesh.triangles.iter().enumerate() {
        for &second in &mesh.triangles[s + 1..] {
            if !first.iter().any(|v| second.contains(v)) && triangles_intersect(corners(first), corners(second)) {
                all_pairs += 1;
            }
        }
    }
    assert_eq!(count, all_pairs);
}

/// Two sheets of one cloth 20 cm apart at rest, brought to 4 mm: the smallest distance between
/// particles apart at rest is 4 mm; a single flat sheet, whose particles are all as far apart as
/// at rest, has none closer than the gap.
#[test]
fn min_self_distance_measures_pieces_brought_together() {
    let sheet = ClothMesh::grid(6, 6, 0.1, GridPlane::Horizontal, Vec3::ZERO).unwrap();
    assert_eq!(min_self_distance(&sheet, &sheet.positions, 0.01), f32::INFINITY);
    let two = ClothMesh::joined(&[sheet.clone(), sheet.moved(Quat::IDENTITY, Vec3::new(0.0, 0.2, 0.0))]).unwrap();
    let n = sheet.positions.len();
    let close: Vec<Vec3> = two
        .positions
        .iter()
        .enumerate()
        .map(|(i, &p)| if i < n { p } else { p - Vec3::new(0.0, 0.196, 0.0) })
        .collect();
    let d = min_self_distance(&two, &close, 0.01);
    assert!((d - 0.004).abs() < 1e-6, "{d}");
    assert_eq!(min_self_distance(&two, &close, 0.0), f32::INFINITY, "nothing is closer than no distance");
}

/// The self-contact scenes start untangled and above the ground: the fold scene's leaning sheet
/// and the stack's three pieces.
#[test]
fn the_self_contact_scenes_start_apart() {
    for kind in [SceneKind::Fold, SceneKind::Stack] {
        let scene = Scene::new(kind, 8).unwrap();
        let mesh = scene.model.mesh();
        assert_eq!(self_intersections(mesh, &mesh.positions), 0, "{kind}");
        assert!(mesh.positions.iter().all(|p| p.y > 0.005), "{kind}: above the ground");
    }
    let stack = Scene::new(SceneKind::Stack, 8).unwrap();
    assert_eq!(stack.model.particle_count(), 3 * 81);
}

/// A blown-up cloth is measured without a panic or a hang: non-finite and huge positions are
/// left out.
#[test]
fn measures_survive_a_blown_up_cloth() {
    let mesh = ClothMesh::grid(9, 9, 0.1, GridPlane::Horizontal, Vec3::ZERO).unwrap();
    let mut positions = mesh.positions.clone();
    positions[3] = Vec3::NAN;
    positions[10] = Vec3::new(f32::INFINITY, 0.0, f32::NEG_INFINITY);
    positions[20] = Vec3::splat(3e38);
    positions[30] = Vec3::new(-1e12, 5e11, 0.0);
    assert_eq!(self_intersections(&mesh, &positions), 0);
    assert_eq!(min_self_distance(&mesh, &positions, 0.01), f32::INFINITY);
    assert_eq!(min_self_distance(&mesh, &positions, 1e-30), f32::INFINITY);
}
