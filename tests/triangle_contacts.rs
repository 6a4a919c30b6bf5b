//! Point–triangle self contacts: the contact against its closed forms (half the gap closed,
//! momentum kept, the side a point came from, friction), where it acts and where it leaves the
//! point to the pair contacts, the fixed-point sums and the cells near a plane on their own;
//! then coarse cloth — particles farther apart than the thickness, which pair contacts alone
//! let through each other — as two sheets colliding in every mode and resting on each other
//! (GPU and CPU), and as the fold scene.

mod support;

use drape::metrics::self_contact::{min_self_distance, self_intersections};
use drape::passes::self_collision::cell_of;
use drape::passes::self_collision::triangles::{
    covered_by_corners, fixed_point_exponent, from_fixed, plane_axes, point_triangle_correction, slab_cells,
    summed_correction, to_fixed, MAX_FIXED_POINT, MAX_PARTICLE_CORRECTIONS, RELAXATION,
};
use drape::SelfCollision;
use drape::SolverParams;
use drape::{ClothMesh, ClothModel, Collider, CpuSolver, GpuSolver, GridPlane, Scene, SceneKind, SolverMode};
use glam::{IVec3, Quat, Vec3};
use support::{device, fastest_at_rest, largest, max_distance, momentum, smallest, zero_gravity_self_collision, Rng};

const H: f32 = 0.01;
/// A triangle of 10 cm legs in the ground plane, its normal up (+y).
const CORNERS: [Vec3; 3] = [Vec3::ZERO, Vec3::new(0.1, 0.0, 0.0), Vec3::new(0.0, 0.0, -0.1)];

fn frictionless() -> SelfCollision {
    SelfCollision { thickness: H, friction: 0.0 }
}

/// The contact of a point starting at `start` and moving by `q` against the still triangle
/// [`CORNERS`], with inverse masses `w` (the point first).
fn contact(start: Vec3, q: Vec3, w: [f32; 4], params: &SelfCollision) -> Option<[Vec3; 4]> {
    let x = [start, CORNERS[0], CORNERS[1], CORNERS[2]];
    point_triangle_correction(x, [q, Vec3::ZERO, Vec3::ZERO, Vec3::ZERO], w, params)
}

/// A point 4 mm over the face at barycentric weights (0.5, 0.2, 0.3), with unequal masses: the
/// point rises by `r·w₀·depth/W` and each corner sinks by `r·βₖwₖ·depth/W`, `W = w₀ + Σβₖ²wₖ`
/// (PBD eq. 13, relaxed by `r` = ½), which takes out half the depth between the point and the
/// point of the moved triangle beneath it, and the momenta `Δ/w` sum to zero.
#[test]
fn a_point_triangle_contact_closes_half_the_gap_and_keeps_momentum() {
    let w = [1.0, 2.0, 0.5, 4.0];
    let point = Vec3::new(0.02, 0.004, -0.03);
    let corrections = contact(point, Vec3::ZERO, w, &frictionless()).expect("a contact");
    let weights = [0.5, 0.2, 0.3];
    let generalised_mass = w[0] + (0..3).map(|k| weights[k] * weights[k] * w[k + 1]).sum::<f32>();
    let depth = H - 0.004;
    let expected = [w[0], -weights[0] * w[1], -weights[1] * w[2], -weights[2] * w[3]]
        .map(|share| Vec3::Y * (RELAXATION * share * depth / generalised_mass));
    for (got, want) in corrections.iter().zip(expected) {
        assert!(got.distance(want) < 1e-8, "{got} against {want}");
    }
    let height = (point.y + corrections[0].y) - (0..3).map(|k| weights[k] * corrections[k + 1].y).sum::<f32>();
    let half_closed = 0.004 + 0.5 * depth;
    assert!((height - half_closed).abs() < 1e-8, "the point ends {height} m above the face");
    let momentum: Vec3 = corrections.iter().zip(w).map(|(c, w)| *c / w).sum();
    assert!(momentum.length() < 1e-8, "momentum {momentum}");
}

/// A point that crossed the face during the substep goes back to the side it came from: from
/// above (it started 2 mm over the face and ends 3 mm under it) it rises by half the 13 mm to
/// `h` above, to 3.5 mm over the face; from below it sinks as far; the triangle pinned.
#[test]
fn a_point_that_crossed_a_face_goes_back_to_its_side() {
    let pinned = [1.0, 0.0, 0.0, 0.0];
    let above = Vec3::new(0.02, 0.002, -0.03);
    let down = contact(above, Vec3::new(0.0, -0.005, 0.0), pinned, &frictionless()).expect("a contact");
    assert!(down[0].distance(Vec3::new(0.0, 0.0065, 0.0)) < 1e-7, "back above: {}", down[0]);
    let below = Vec3::new(0.02, -0.002, -0.03);
    let up = contact(below, Vec3::new(0.0, 0.005, 0.0), pinned, &frictionless()).expect("a contact");
    assert!(up[0].distance(Vec3::new(0.0, -0.0065, 0.0)) < 1e-7, "back below: {}", up[0]);
    assert!(down[1..].iter().chain(&up[1..]).all(|c| *c == Vec3::ZERO), "pinned corners stay");
}

/// Only a point over the face, nearer than `h` to the plane and at least `h` from every corner
/// (where the pair contact with the corner acts) is in contact; a degenerate or pinned triangle
/// against a pinned point, or a non-finite point, is none.
#[test]
fn a_contact_needs_a_point_over_the_face_away_from_its_corners() {
    let w = [1.0; 4];
    let params = frictionless();
    let none = |start: Vec3| contact(start, Vec3::ZERO, w, &params).is_none();
    assert!(!none(Vec3::new(0.02, 0.004, -0.03)), "over the face");
    assert!(none(Vec3::new(0.08, 0.004, -0.08)), "beside the face");
    assert!(none(Vec3::new(0.02, 0.011, -0.03)), "farther than h");
    assert!(none(Vec3::new(0.005, 0.004, -0.005)), "within h of a corner");
    assert!(none(Vec3::new(f32::NAN, 0.004, -0.03)), "not finite");
    let pinned = contact(Vec3::new(0.02, 0.004, -0.03), Vec3::ZERO, [0.0; 4], &params);
    assert!(pinned.is_none(), "all pinned");
    let flat = [Vec3::new(0.02, 0.004, -0.03), Vec3::ZERO, Vec3::X * 0.1, Vec3::X * 0.2];
    assert!(point_triangle_correction(flat, [Vec3::ZERO; 4], w, &params).is_none(), "degenerate");
}

/// Coulomb friction on the point's slide against the face, the triangle pinned and the depth
/// 6 mm, of which the push takes out half: a 0.5 mm slide is below `μ` times the push (0.9 mm)
/// and is undone, all of it; a 4 mm slide loses `μ` times the push.
#[test]
fn a_contact_holds_a_small_slide_and_slows_a_large_one() {
    let params = SelfCollision::new(H);
    let pinned = [1.0, 0.0, 0.0, 0.0];
    let start = Vec3::new(0.02, 0.004, -0.03);
    let held = contact(start, Vec3::new(0.0005, 0.0, 0.0), pinned, &params).expect("a contact");
    assert!(held[0].distance(Vec3::new(-0.0005, 0.003, 0.0)) < 1e-8, "held: {}", held[0]);
    let slowed = contact(start, Vec3::new(0.004, 0.0, 0.0), pinned, &params).expect("a contact");
    assert!(slowed[0].distance(Vec3::new(-0.0009, 0.003, 0.0)) < 1e-8, "slowed: {}", slowed[0]);
}

/// The fixed-point unit is the power of two in `(h·2⁻²⁵, h·2⁻²⁴]`; a correction comes back within
/// half a unit, ties go to even, a component beyond the range is clamped, NaN is 0, and a sum
/// of more corrections than a particle takes is refused.
#[test]
fn fixed_point_keeps_a_correction_to_half_a_unit() {
    let mut rng = Rng(7);
    for h in [1.0, 0.5, 0.04, 0.01, 0.003, 1e-4] {
        let exponent = fixed_point_exponent(h);
        let unit = 2f32.powi(-exponent);
        assert!(unit <= h * 2f32.powi(-24) && unit > h * 2f32.powi(-25), "h = {h}: unit {unit}");
        for _ in 0..100 {
            let v = rng.vec() * h;
            let back = from_fixed(to_fixed(v, exponent), exponent);
            assert!((back - v).abs().max_element() <= 0.5 * unit, "h = {h}: {v} came back as {back}");
        }
        assert_eq!(to_fixed(Vec3::new(1.5, 2.5, -1.5) * unit, exponent), IVec3::new(2, 2, -2), "ties to even");
        let far = to_fixed(Vec3::splat(1e3 * h), exponent);
        assert_eq!(far, IVec3::splat(MAX_FIXED_POINT as i32), "clamped");
        assert_eq!(to_fixed(Vec3::new(f32::NAN, 0.0, 0.0), exponent), IVec3::ZERO, "NaN");
        // The most corrections of the largest size still sum within i32.
        let most = MAX_PARTICLE_CORRECTIONS;
        assert!(i64::from(most) * MAX_FIXED_POINT as i64 <= i64::from(i32::MAX));
        let sum = IVec3::splat(1 << 20).extend(most);
        assert_eq!(summed_correction(sum, exponent), Some(from_fixed(sum.truncate(), exponent)));
        assert_eq!(summed_correction(sum.with_w(most + 1), exponent), None, "too many corrections");
    }
    assert_eq!(fixed_point_exponent(1e-35), 126, "the unit stays a normal f32");
}

/// Every point nearer than `h` to a plane lies in a cell of its column's slab, and the slab's
/// cells all come within `h` of the plane (their boxes cross it), in random orientations.
#[test]
fn the_slab_cells_of_a_column_hold_every_point_near_the_plane() {
    let mut rng = Rng(11);
    for _ in 0..4000 {
        let (a, n, p) = (rng.vec(), rng.vec().normalize(), rng.vec());
        let axes = plane_axes(n);
        let [d, u, v] = axes;
        assert!(n[d].abs() >= n[u].abs().max(n[v].abs()), "{axes:?} for {n}");
        let cell = cell_of(p, H);
        let [from, to] = slab_cells([cell[u], cell[v]], axes, a, n, H, H);
        if n.dot(p - a).abs() < H {
            assert!((from..=to).contains(&cell[d]), "{p} near the plane through {a} along {n}");
        }
        // The slab's end cells' boxes come within h of the plane.
        for end in [from, to] {
            let mut corner = Vec3::ZERO;
            (corner[d], corner[u], corner[v]) = (end as f32, cell[u] as f32, cell[v] as f32);
            let centre = (corner + 0.5) * H;
            let radius = 0.5 * H * (n.x.abs() + n.y.abs() + n.z.abs());
            assert!(n.dot(centre - a).abs() < H + radius + 1e-6, "cell {end} of {axes:?} is far from the plane");
        }
    }
}

/// A face within `h` of its corners everywhere needs no contacts: a triangle is covered by its
/// corners when its longest edge is below `√3·h` — the equilateral triangle of side `√3·h` just
/// is, at its centre — and a right triangle of legs `1.2h` is.
#[test]
fn a_small_triangle_is_left_to_its_corners() {
    let equilateral = |side: f32| [Vec3::ZERO, Vec3::X * side, Vec3::new(0.5 * side, 0.0, 0.75f32.sqrt() * side)];
    assert!(covered_by_corners(equilateral(1.73 * H), H));
    assert!(!covered_by_corners(equilateral(1.74 * H), H));
    assert!(covered_by_corners([Vec3::ZERO, Vec3::X * 1.2 * H, Vec3::Z * 1.2 * H], H));
    assert!(!covered_by_corners(CORNERS, H));
    // The bound itself: random triangles, their longest edge just below √3·h, sampled.
    let mut rng = Rng(5);
    for _ in 0..1000 {
        let corners = [rng.vec(), rng.vec(), rng.vec()];
        let longest = largest((0..3).map(|k| corners[k].distance(corners[(k + 1) % 3])));
        let corners = corners.map(|c| c * (1.73 * H / longest));
        assert!(covered_by_corners(corners, H));
        for _ in 0..50 {
            let (s, t) = (rng.next(), rng.next());
            let (s, t) = if s + t > 1.0 { (1.0 - s, 1.0 - t) } else { (s, t) };
            let point = corners[0] + (corners[1] - corners[0]) * s + (corners[2] - corners[0]) * t;
            let nearest = smallest(corners.iter().map(|c| c.distance(point)));
            assert!(nearest <= H, "a point {nearest} m from its triangle's corners");
        }
    }
}

/// Two coarse sheets, one in the plane `y = lift` and offset so that each particle lies over a
/// triangle of the other, away from its corners: 8 cm cells against a 1 cm thickness.
fn coarse_sheets(lower: u32, upper: u32, lift: f32) -> ClothModel {
    let below = ClothMesh::grid(lower, lower, 0.08, GridPlane::Horizontal, Vec3::ZERO).unwrap();
    let above = ClothMesh::grid(upper, upper, 0.08, GridPlane::Horizontal, Vec3::new(0.03, lift, 0.045)).unwrap();
    ClothModel::new(ClothMesh::joined(&[below, above]).unwrap(), 0.2, &[]).unwrap()
}

/// Coarse sheets colliding face on in zero gravity, the smaller upper one centred over the
/// other (so that the contacts do not turn the pair) and also sliding: no particle of one ever
/// comes within `h` of a particle of the other, so only the triangle contacts hold them apart.
/// In every mode they end apart without cutting through each other, with their momentum kept
/// (to the fixed-point rounding) and their closing speed taken out; without self-collision they
/// pass through. The GPU agrees with the CPU reference and repeats itself bit for bit.
#[test]
fn coarse_sheets_do_not_pass_through_each_other() {
    let (device, queue) = device();
    let model = coarse_sheets(5, 4, 0.05);
    let (n, lower) = (model.particle_count(), 25);
    let velocities: Vec<Vec3> =
        (0..n).map(|i| if i < lower { Vec3::new(0.0, 0.3, 0.0) } else { Vec3::new(0.1, -0.6, 0.0) }).collect();
    let mean_y = |p: &[Vec3], upper: bool| {
        let sheet = if upper { &p[lower..] } else { &p[..lower] };
        sheet.iter().map(|p| p.y).sum::<f32>() / sheet.len() as f32
    };
    let modes =
        [SolverMode::GaussSeidel, SolverMode::Jacobi { relaxation: 1.5 }, SolverMode::MassSpring(Default::default())];
    for mode in modes {
        let params = zero_gravity_self_collision(mode, H);
        let run = |params: SolverParams| {
            let mut solver = GpuSolver::new(&device, &queue, &model, params, &[]).unwrap();
            solver.set_velocities(&velocities).unwrap();
            for _ in 0..30 {
                solver.step();
            }
            (solver.read_positions().unwrap(), solver.read_velocities().unwrap(), solver.overflows().unwrap())
        };
        let (positions, after, overflows) = run(params);
        let before = momentum(&model, &velocities);
        let drift = (momentum(&model, &after) - before).length();
        // Kept up to the rounding of each correction to the fixed-point unit, h·2⁻²⁵ on average:
        // a random walk, 2·10⁻⁵ of the momentum at 40 substeps a frame.
        assert!(drift <= 1e-4 * before.length(), "{mode:?}: momentum {before} → {}", momentum(&model, &after));
        let gap = mean_y(&positions, true) - mean_y(&positions, false);
        assert!(gap >= 0.9 * H, "{mode:?}: the sheets end {gap} m apart");
        assert_eq!(self_intersections(model.mesh(), &positions), 0, "{mode:?}");
        assert!(min_self_distance(model.mesh(), &positions, H) > H, "{mode:?}: a pair contact acted");
        let closing = |v: &[Vec3]| mean_y(v, false) - mean_y(v, true);
        assert!(closing(&after) <= 0.05 * closing(&velocities), "{mode:?}: still closing at {}", closing(&after));
        assert_eq!(overflows.self_contacts, 0, "{mode:?}");
        if mode == SolverMode::GaussSeidel {
            let bits = |v: &[Vec3]| v.iter().flat_map(|p| p.to_array().map(f32::to_bits)).collect::<Vec<u32>>();
            assert!(bits(&positions) == bits(&run(params).0), "two identical runs differ");
            let mut cpu = CpuSolver::new(&model, params, &[]).unwrap();
            cpu.velocities = velocities.clone();
            for _ in 0..30 {
                cpu.step();
            }
            let d = max_distance(&positions, &cpu.positions);
            assert!(d <= 1e-5, "GPU and CPU differ by {d} m");
            let (through, _, _) = run(SolverParams { self_collision: None, ..params });
            assert!(mean_y(&through, true) < mean_y(&through, false), "without self-collision they pass");
        }
    }
}

/// A thickness far below the particle spacing (2 mm against 8 cm): the hash's cells are as wide
/// as the spacing ([`SelfCollision::cell_size`]), so a triangle examines a few cells where cells
/// `h` wide would put 40 across it, each triangle walking some 700 of them (and beyond 29, more
/// columns than [`MAX_TRIANGLE_COLUMNS`]: every triangle then counted an overflow and took no
/// contact). The sheets still meet and end apart without an overflow, with their momentum kept
/// (to the fixed-point rounding), the GPU as the CPU.
#[test]
fn a_thickness_far_below_the_spacing_still_holds_sheets_apart() {
    let (device, queue) = device();
    let h = 0.002;
    let model = coarse_sheets(5, 4, 0.02);
    let spacing = drape::passes::self_collision::particle_spacing(model.mesh());
    assert!(spacing > 40.0 * h && SelfCollision::new(h).cell_size(spacing) == spacing, "{spacing}");
    let lower = 25;
    let velocities: Vec<Vec3> = (0..model.particle_count())
        .map(|i| if i < lower { Vec3::new(0.0, 0.15, 0.0) } else { Vec3::new(0.05, -0.15, 0.0) })
        .collect();
    let params = SolverParams { substeps: 20, ..zero_gravity_self_collision(SolverMode::GaussSeidel, h) };
    let mut gpu = GpuSolver::new(&device, &queue, &model, params, &[]).unwrap();
    gpu.set_velocities(&velocities).unwrap();
    let mut cpu = CpuSolver::new(&model, params, &[]).unwrap();
    cpu.velocities = velocities.clone();
    for _ in 0..20 {
        gpu.step();
        cpu.step();
    }
    let positions = gpu.read_positions().unwrap();
    let (before, after) = (momentum(&model, &velocities), momentum(&model, &gpu.read_velocities().unwrap()));
    assert!((after - before).length() <= 1e-4 * before.length(), "momentum {before} → {after}");
    let mean_y = |p: &[Vec3]| {
        let y = |sheet: &[Vec3]| sheet.iter().map(|p| p.y).sum::<f32>() / sheet.len() as f32;
        y(&p[lower..]) - y(&p[..lower])
    };
    assert!(mean_y(&positions) >= 0.9 * h, "the sheets end {} m apart", mean_y(&positions));
    assert_eq!(self_intersections(model.mesh(), &positions), 0);
    assert_eq!(gpu.overflows().unwrap().self_contacts, 0);
    let d = max_distance(&positions, &cpu.positions);
    assert!(d <= 1e-5, "GPU and CPU differ by {d} m");
}

/// A small coarse sheet lying on a larger one on the ground, held up by triangle contacts
/// alone, settles and stays still in both projective modes: its fastest particle moves at most
/// 1 mm/s, on the GPU and the CPU. (Each contact at full strength, see [`RELAXATION`], the upper
/// sheet bounced at 1.7 cm/s.)
#[test]
fn a_coarse_sheet_rests_on_another_without_jitter() {
    let margin = 0.005;
    let model = coarse_sheets(5, 4, 1.1 * H);
    let start: Vec<Vec3> = model.mesh().positions.iter().map(|p| *p + Vec3::Y * margin).collect();
    for mode in [SolverMode::GaussSeidel, SolverMode::Jacobi { relaxation: 1.5 }] {
        let params = SolverParams {
            mode,
            collision_margin: margin,
            self_collision: Some(SelfCollision::new(H)),
            ..SolverParams::default()
        };
        let (fastest, positions) = fastest_at_rest(&model, params, &[Collider::ground(0.0)], &start, 180, 120);
        assert!(fastest.iter().all(|&v| v <= 1e-3), "{mode:?}: fastest particle at rest {fastest:?} m/s");
        let n_lower = 25;
        let lowest_upper = smallest(positions[n_lower..].iter().map(|p| p.y));
        assert!(lowest_upper > margin + 0.9 * H, "{mode:?}: the upper sheet sank to {lowest_upper} m");
        assert_eq!(self_intersections(model.mesh(), &positions), 0, "{mode:?}");
    }
}

/// The fold scene as coarse cloth: 10 cm cells against a 2 cm thickness, where particles slip
/// between particles (with pair contacts alone, 18 triangle pairs cut through each other at the
/// end, BENCHMARKS.md). With the triangle contacts none do at the end, at most a few in passing
/// where the cloth lands on itself (3 pairs at frame 70, gone by frame 80: two edges can cross
/// without a particle passing through a face), no pair of particles apart at rest comes closer
/// than half the thickness at every 10th frame for 300 frames, and nothing overflows.
#[test]
fn a_coarse_fold_does_not_pass_through_itself() {
    let (device, queue) = device();
    let h = 0.02;
    let scene = Scene::new(SceneKind::Fold, 10).unwrap();
    let params =
        SolverParams { substeps: 10, iterations: 2, self_collision: Some(SelfCollision::new(h)), ..scene.params };
    let mut solver = GpuSolver::new(&device, &queue, &scene.model, params, &scene.colliders).unwrap();
    let mut crossings = 0;
    for frame in 1..=300 {
        solver.step();
        if frame % 10 == 0 {
            let positions = solver.read_positions().unwrap();
            crossings = self_intersections(scene.model.mesh(), &positions);
            assert!(crossings <= 3, "{crossings} intersecting triangle pairs at frame {frame}");
            let closest = min_self_distance(scene.model.mesh(), &positions, h);
            assert!(closest >= 0.5 * h, "particles {closest} m apart at frame {frame}");
        }
    }
    assert_eq!(crossings, 0, "intersecting triangle pairs at the end");
    assert_eq!(solver.overflows().unwrap().self_contacts, 0);
}

/// The coarse sheets of [`a_coarse_sheet_rests_on_another_without_jitter`] on a slope of 20°,
/// the lower held by the ground's friction (0.8), the upper on it by the layers' (0.6 > tan 20°).
/// Each contact shares its correction with the lower sheet, whose share the ground's response
/// takes back, so the upper sheet keeps only part of its friction and creeps (a documented
/// limit, [`drape::SelfCollision::friction`]): steadily, without jitter (its fastest particle
/// within 1 mm/s of its mean), at no more than `g·sin θ·Δt` (5.6 mm/s) over two seconds. With
/// the triangle contacts' friction relaxed by half like their push, it crept at 7.8–9.3 mm/s,
/// faster and faster; with a friction below tan 20° it slides at Coulomb's rate (0.50 m/s after
/// a third of a second at 0.2).
#[test]
fn a_coarse_sheet_on_another_on_a_slope_creeps_slowly_and_steadily() {
    let (device, queue) = device();
    let margin = 0.005;
    let tilt = Quat::from_rotation_z(20f32.to_radians());
    let model = coarse_sheets(5, 4, 1.1 * H);
    let start: Vec<Vec3> = model.mesh().positions.iter().map(|p| tilt * (*p + Vec3::Y * margin)).collect();
    let slope = Collider::Plane { normal: tilt * Vec3::Y, offset: 0.0 };
    let downhill = tilt * Vec3::NEG_X;
    let n_lower = 25;
    for mode in [SolverMode::GaussSeidel, SolverMode::Jacobi { relaxation: 1.5 }] {
        let params = SolverParams {
            mode,
            collision_margin: margin,
            static_friction: 0.8,
            dynamic_friction: 0.8,
            damping: 0.0,
            self_collision: Some(SelfCollision { thickness: H, friction: 0.6 }),
            ..SolverParams::default()
        };
        let creep_limit = 9.81 * 20f32.to_radians().sin() * params.substep_dt();
        let mut gpu = GpuSolver::new(&device, &queue, &model, params, std::slice::from_ref(&slope)).unwrap();
        gpu.set_positions(&start).unwrap();
        for frame in 1..=120 {
            gpu.step();
            if frame % 20 == 0 {
                let v = gpu.read_velocities().unwrap();
                let upper = &v[n_lower..];
                let mean = upper.iter().sum::<Vec3>() / upper.len() as f32;
                let jitter = largest(upper.iter().map(|v| v.distance(mean)));
                let creep = mean.dot(downhill);
                assert!(jitter < 1e-3, "{mode:?}, frame {frame}: particles {jitter} m/s off the sheet's mean");
                assert!(creep < creep_limit, "{mode:?}, frame {frame}: the upper sheet creeps at {creep} m/s");
                assert!(largest(v[..n_lower].iter().map(|v| v.length())) < 1e-4, "{mode:?}: the lower sheet slides");
            }
        }
    }
}
