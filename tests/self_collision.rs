//! Self-collision: the hash and contact functions on their own, the cloth that must not pass
//! through itself (fold and stack), the folded cloth that must rest without jitter, and the GPU
//! against the CPU reference.

mod support;

use drape::metrics::self_contact::{min_self_distance, self_intersections};
use drape::passes::rigid_damping::{free_particle_moments, rigid_motion, RigidMotion};
use drape::passes::self_collision::{
    cell_hash, cell_of, cell_within_reach, friction_kept, hash_table_size, limit_deformation, momentum_restored,
    pair_correction, query_cells, SpatialHash,
};
use drape::{ClothMesh, ClothModel, Collider, CpuSolver, GpuSolver, GridPlane, Scene, SceneKind, SolverMode};
use drape::{MassSpringParams, SelfCollision, SolverParams, Stiffness};
use glam::{DVec3, Vec3};
use support::{
    crumpling, crumpling_cloth, device, fastest_at_rest, largest, max_distance, momentum, start_gpu_from_cpu,
    zero_gravity_self_collision, Rng,
};

const MODES: [SolverMode; 2] = [SolverMode::GaussSeidel, SolverMode::Jacobi { relaxation: 1.5 }];

/// Every point within one cell of a point lies in one of the 27 cells queried around it, in
/// one within reach; on average 1 + 6 + 12·π/4 + 8·π/6 ≈ 20.6 of them are (the own cell, the
/// faces always, an edge neighbour when the point is within a cell of the edge, a corner one
/// within a cell of the corner).
#[test]
fn the_queried_cells_hold_every_point_within_a_cell() {
    let mut rng = Rng(7);
    let size = 0.013;
    let mut within = 0;
    let samples = 20_000;
    for _ in 0..samples {
        let p = rng.vec() * 0.5;
        let near = p + rng.vec().normalize_or_zero() * size * rng.next();
        let cells = query_cells(p, size);
        assert!(cells.contains(&cell_of(near, size)), "{near} not found around {p}");
        assert!(cell_within_reach(p, cell_of(near, size), size, size), "{near}'s cell is out of reach of {p}");
        within += cells.iter().filter(|&&c| cell_within_reach(p, c, size, size)).count();
    }
    let mean = within as f64 / samples as f64;
    let expected = 7.0 + 12.0 * std::f64::consts::FRAC_PI_4 + 8.0 * std::f64::consts::PI / 6.0;
    assert!((mean - expected).abs() < 0.1, "{mean} cells within reach on average, not {expected}");
    assert_eq!(cell_of(Vec3::splat(f32::NAN), size), [0; 3], "non-finite positions hash");
    assert_eq!(cell_of(Vec3::splat(1e30), size), [1_000_000_000; 3], "far positions are clamped");
}

/// The hash spreads cells over every bucket, and the spatial hash lists each point once, in its
/// cell's bucket, by increasing index.
#[test]
fn the_spatial_hash_lists_each_point_once_in_order() {
    let buckets = hash_table_size(1000);
    assert_eq!(buckets, 2048);
    let mut rng = Rng(3);
    let points: Vec<Vec3> = (0..1000).map(|_| rng.vec()).collect();
    let hash = SpatialHash::new(&points, 0.05, buckets);
    let mut seen = vec![0; points.len()];
    for b in 0..buckets {
        let entries = hash.bucket(b);
        assert!(entries.windows(2).all(|w| w[0] < w[1]), "bucket {b} is not sorted");
        for &i in entries {
            assert_eq!(cell_hash(cell_of(points[i as usize], 0.05), buckets), b);
            seen[i as usize] += 1;
        }
    }
    assert!(seen.iter().all(|&n| n == 1));
    let used = (0..buckets).filter(|&b| !hash.bucket(b).is_empty()).count();
    assert!(used > 600, "1000 scattered points fill only {used} buckets");
}

/// One contact pushes a pair to exactly the thickness apart, each by its inverse mass share, so
/// their momentum is kept; friction stops their relative sliding below μ times the depth, and
/// takes μ times the depth from a larger slide.
#[test]
fn a_pair_correction_restores_the_thickness_and_keeps_momentum() {
    let params = SelfCollision { thickness: 0.01, friction: 0.0 };
    let (p_i, p_j) = (Vec3::new(0.0, 0.004, 0.0), Vec3::ZERO);
    let (w_i, w_j) = (2.0, 1.0);
    let c_i = pair_correction(p_i, p_j, Vec3::ZERO, Vec3::ZERO, w_i, w_j, &params).unwrap();
    let c_j = pair_correction(p_j, p_i, Vec3::ZERO, Vec3::ZERO, w_j, w_i, &params).unwrap();
    assert!(((p_i + c_i).distance(p_j + c_j) - 0.01).abs() < 1e-8);
    assert!((c_i / w_i + c_j / w_j).length() < 1e-9, "momentum changed");
    assert!(pair_correction(Vec3::new(0.0, 0.011, 0.0), p_j, Vec3::ZERO, Vec3::ZERO, w_i, w_j, &params).is_none());
    assert!(pair_correction(p_j, p_j, Vec3::ZERO, Vec3::ZERO, w_i, w_j, &params).is_none(), "no direction");
    // Sliding 1 mm past each other at a depth of 6 mm.
    let slide = Vec3::new(0.001, 0.0, 0.0);
    let gripping = SelfCollision { friction: 0.5, ..params };
    let held = pair_correction(p_i, p_j, slide, Vec3::ZERO, 1.0, 1.0, &gripping).unwrap();
    assert!((held.x + 0.0005).abs() < 1e-9, "friction undoes half of the slide each: {held}");
    let sliding = SelfCollision { friction: 0.1, ..params };
    let slowed = pair_correction(p_i, p_j, slide, Vec3::ZERO, 1.0, 1.0, &sliding).unwrap();
    assert!((slowed.x + 0.5 * 0.1 * 0.006).abs() < 1e-9, "friction takes μ·depth: {slowed}");
}

/// The deformation limit shortens only a displacement's departure from the rigid motion: at
/// rest it is a clamp of the displacement, a displacement that is the rigid motion's passes
/// bit for bit however large, and one departing by more than the limit keeps the rigid part and
/// `limit` of the departure.
#[test]
fn the_deformation_limit_spares_rigid_motion() {
    let still = RigidMotion::default();
    let falling = Vec3::new(0.0, -0.02, 0.0);
    assert_eq!(limit_deformation(falling, Vec3::X, &still, 0.005), Vec3::new(0.0, -0.005, 0.0));
    let thrown = RigidMotion { centre: Vec3::ZERO, velocity: Vec3::new(0.2, -0.1, 0.0), angular_velocity: Vec3::Y };
    for r in [Vec3::ZERO, Vec3::X, Vec3::new(0.3, -0.2, 0.7)] {
        let rigid = thrown.velocity + Vec3::Y.cross(r);
        assert_eq!(limit_deformation(rigid, r, &thrown, 0.005), rigid, "at {r}");
        let departing = rigid + Vec3::new(0.0, 0.0, 0.02);
        let limited = limit_deformation(departing, r, &thrown, 0.005);
        assert!((limited - rigid - Vec3::new(0.0, 0.0, 0.005)).length() <= 1e-7, "at {r}: {limited}");
    }
}

/// Friction between layers is Coulomb's law with one coefficient: the slide it removes,
/// `kept·slide`, is `min(slide, μ·depth)` — all of a slide up to `μ·depth`, then `μ·depth` — so
/// it never drops as the slide grows (a drop makes resting layers stick-slip).
#[test]
fn layer_friction_removes_the_slide_up_to_mu_times_the_depth() {
    let mut rng = Rng(11);
    for _ in 0..1000 {
        let params = SelfCollision { thickness: 0.01, friction: 2.0 * rng.next() };
        let depth = 0.01 * (1e-3 + rng.next());
        let slides = [0.0, 0.5, 0.999, 1.0, 1.001, 2.0, 10.0].map(|k| k * params.friction * depth);
        let removed = slides.map(|slide| friction_kept(slide, depth, &params) * slide);
        for (slide, removed) in slides.iter().zip(removed) {
            let expected = slide.min(params.friction * depth);
            assert!((removed - expected).abs() <= 1e-6 * expected.max(1e-12), "slide {slide}: removed {removed}");
        }
        assert!(removed.windows(2).all(|w| w[1] >= w[0] * (1.0 - 1e-6)), "removed {removed:?}");
    }
}

/// A scene with self-collision of thickness `h`, 10 substeps of 2 iterations.
fn with_self_collision(scene: &Scene, h: f32) -> SolverParams {
    SolverParams { substeps: 10, iterations: 2, self_collision: Some(SelfCollision::new(h)), ..scene.params }
}

/// The cloth that crumples onto itself (fold) and the three sheets dropped on a sphere (stack)
/// never cut through themselves: no intersecting triangles at every 10th frame for 300 frames,
/// and no pair of particles apart at rest closer than half the thickness, with no capacity
/// overflowing. Without self-collision both scenes cut through themselves thousands of times.
#[test]
fn fold_and_stack_never_pass_through_themselves() {
    let (device, queue) = device();
    for (kind, h) in [(SceneKind::Fold, 0.035), (SceneKind::Stack, 0.04)] {
        let scene = Scene::new(kind, 32).unwrap();
        let params = with_self_collision(&scene, h);
        let mut solver = GpuSolver::new(&device, &queue, &scene.model, params, &scene.colliders).unwrap();
        for frame in 1..=300 {
            solver.step();
            if frame % 10 == 0 {
                let positions = solver.read_positions().unwrap();
                let crossings = self_intersections(scene.model.mesh(), &positions);
                assert_eq!(crossings, 0, "{kind}: {crossings} intersecting triangle pairs at frame {frame}");
                let closest = min_self_distance(scene.model.mesh(), &positions, h);
                assert!(closest >= 0.5 * h, "{kind}: particles {closest} m apart at frame {frame}");
            }
        }
        let metrics = solver.metrics().unwrap();
        assert_eq!(metrics.non_finite, 0);
        assert_eq!(metrics.overflows.self_contacts, 0, "{kind}");
        let rest = &scene.model.mesh().positions;
        let start = rest.iter().map(|p| p.y).sum::<f32>() / rest.len() as f32;
        let fallen = start - metrics.centre_of_mass.y;
        assert!(fallen > 0.2, "{kind}: the cloth fell only {fallen} m");
    }
}

/// A strip lying on the ground folded in half — the upper half turned back over the lower one
/// around a fold of one column, 1.1 thicknesses high — settles on itself and then stays still
/// in every mode: its fastest particle moves at most 1 mm/s, on the GPU and the CPU. Nothing
/// but the contacts holds the halves apart: no bending stiffness, and mass-spring without
/// flexion springs (at the 40 substeps its springs need). With a static friction above the
/// kinetic one this strip stick-slipped at a few mm/s ([`drape::passes::self_collision::friction_kept`]).
#[test]
fn a_cloth_folded_on_itself_rests_without_jitter() {
    let (spacing, h, margin) = (0.02, 0.025, 0.005);
    let (columns, rows) = (15u32, 5u32);
    let mesh = ClothMesh::grid(columns, rows, spacing, GridPlane::Horizontal, Vec3::ZERO).unwrap();
    let model = ClothModel::new(mesh, 0.2, &[]).unwrap();
    let (fold, gap) = (columns / 2, 1.1 * h);
    let fold_x = (fold - 1) as f32 * spacing;
    let folded: Vec<Vec3> = model
        .mesh()
        .positions
        .iter()
        .map(|p| {
            let column = (p.x / spacing).round() as u32;
            if column < fold {
                Vec3::new(p.x, margin, p.z)
            } else if column == fold {
                Vec3::new(fold_x + 0.5 * gap, margin + 0.5 * gap, p.z)
            } else {
                Vec3::new(fold_x - (column - fold - 1) as f32 * spacing, margin + gap, p.z)
            }
        })
        .collect();
    let springs = SolverMode::MassSpring(MassSpringParams { flexion: 0.0, ..MassSpringParams::default() });
    for mode in [SolverMode::GaussSeidel, SolverMode::Jacobi { relaxation: 1.5 }, springs] {
        let params = SolverParams {
            bending: Stiffness::Pbd(0.0),
            collision_margin: margin,
            self_collision: Some(SelfCollision::new(h)),
            substeps: if mode.projects() { 10 } else { 40 },
            mode,
            ..SolverParams::default()
        };
        let (fastest, positions) = fastest_at_rest(&model, params, &[Collider::ground(0.0)], &folded, 240, 180);
        assert!(fastest.iter().all(|&v| v <= 1e-3), "{mode:?}: fastest particle at rest {fastest:?} m/s");
        let top = largest(positions.iter().map(|p| p.y));
        assert!(top > margin + 0.5 * h, "{mode:?}: the upper half lies {top} m up, on the lower one");
        assert_eq!(self_intersections(model.mesh(), &positions), 0, "{mode:?}");
    }
}

/// The GPU computes what the reference does with self-collision on, in both modes, with the
/// same overflow counts to 0.1 % (the fold scene crumpled with a thickness large enough to fill
/// buckets beyond their capacity; a particle within rounding of a cell's face may fall in
/// another cell), and two GPU runs are bit-identical. Each frame starts the GPU from the
/// reference's state: the crumpling cloth is chaotic. Lavapipe usually matches the reference bit
/// for bit, but one run here started 10⁻⁷ m apart at the first frame (a rounding), and the gap
/// doubled every frame once the layers touched; one frame's difference says whether the kernels
/// compute the reference's contacts whatever the driver rounds. Self-collision adds ten
/// dispatches per substep (eleven on a CPU adapter).
#[test]
fn self_collision_matches_reference_and_repeats_bit_for_bit() {
    let (device, queue) = device();
    let scene = Scene::new(SceneKind::Fold, 12).unwrap();
    for mode in MODES {
        for h in [0.1, 0.4] {
            let params = SolverParams { mode, ..with_self_collision(&scene, h) };
            let mut cpu = CpuSolver::new(&scene.model, params, &scene.colliders).unwrap();
            let frames: Vec<_> = (0..50)
                .map(|_| {
                    let start = (cpu.positions.clone(), cpu.velocities.clone());
                    cpu.step();
                    (start, cpu.positions.clone())
                })
                .collect();
            let run = || {
                let mut gpu = GpuSolver::new(&device, &queue, &scene.model, params, &scene.colliders).unwrap();
                let ends: Vec<Vec<Vec3>> = frames
                    .iter()
                    .map(|((positions, velocities), _)| {
                        gpu.set_positions(positions).unwrap();
                        gpu.set_velocities(velocities).unwrap();
                        gpu.step();
                        gpu.read_positions().unwrap()
                    })
                    .collect();
                (ends, gpu.overflows().unwrap())
            };
            let (ends, overflows) = run();
            let d = largest(ends.iter().zip(&frames).map(|(gpu, (_, cpu))| max_distance(gpu, cpu)));
            assert!(d <= 1e-5, "{mode:?} h = {h}: max |Δx| in a frame = {d} m");
            let expected = cpu.overflows();
            assert_eq!(overflows.colliders, expected.colliders, "{mode:?} h = {h}");
            let apart = overflows.self_contacts.abs_diff(expected.self_contacts);
            assert!(
                apart as f32 <= 1e-3 * expected.self_contacts as f32,
                "{mode:?} h = {h}: {overflows:?}, {expected:?}"
            );
            assert_eq!(overflows.self_contacts > 0, h > 0.2, "{mode:?} h = {h}: {overflows:?}");
            let bits =
                |v: &[Vec<Vec3>]| v.iter().flatten().flat_map(|p| p.to_array().map(f32::to_bits)).collect::<Vec<u32>>();
            assert!(bits(&ends) == bits(&run().0), "{mode:?} h = {h}: two identical runs differ");
            let without = SolverParams { self_collision: None, ..params };
            let dispatches = |p| GpuSolver::new(&device, &queue, &scene.model, p, &scene.colliders).unwrap();
            let added = dispatches(params).dispatches_per_frame() - dispatches(without).dispatches_per_frame();
            // The two searches in one dispatch on a GPU, one after the other on a CPU adapter.
            let per_substep = if device.adapter_info().device_type == wgpu::DeviceType::Cpu { 11 } else { 10 };
            assert_eq!(added, per_substep * params.substeps as usize, "dispatches per substep");
        }
    }
}

/// Linear momentum's drift allowed a free cloth in zero gravity, relative (as
/// `tests/physics_laws.rs` allows): a substep takes each velocity through its displacement and
/// back (`q = h·v`, then `v = q/h`), and WGSL lets a driver's division err by 2.5 ulp, the same
/// way for every particle since `h` is shared. In runs of 800 and 1200 mass-spring substeps the
/// momentum drifted by 2.2e-5 and 2.7e-5 of itself on an NVIDIA H200, 1e-6 at most on lavapipe.
const INTEGRATOR_DRIFT: f32 = 1e-4;

/// What the contacts may add to that drift, relative, at 10 substeps a frame: measured against
/// the same run without self-collision, whose velocities take the same trips, the contacts'
/// momentum is rounding's. Each substep rounds every position to its float (an ulp of the
/// scene's extent) and takes the velocity as displacement over `h`; those roundings differ
/// between the two runs once the contacts move particles, and walk at random: over `S` substeps
/// of `h = 1/(60 S)` they grow as `√S / h`, as `S^1.5` ([`contacts_drift`]). On an NVIDIA H200
/// two sheets in mass-spring mode (40 substeps, allowed 8e-5) drifted 2.7e-5 in 30 frames.
const CONTACTS_DRIFT: f32 = 1e-5;

/// [`CONTACTS_DRIFT`] at `substeps` a frame.
fn contacts_drift(substeps: u32) -> f32 {
    CONTACTS_DRIFT * (substeps as f32 / 10.0).powf(1.5).max(1.0)
}

/// What the deformation limit takes goes back as a rigid motion: forty particles of unequal
/// masses scattered over half a metre, whose displacements depart from their rigid motion by up
/// to 2 cm against a limit of 5 mm, keep their momentum and their angular momentum about the
/// reference point (sums in f64, written here) once the limit and `momentum_restored` are
/// applied, and a limit that shortens nothing gives back zero, every bit.
#[test]
fn the_deformation_limit_keeps_momentum() {
    let mut rng = Rng(11);
    let positions: Vec<Vec3> = (0..40).map(|_| rng.vec() * 0.5).collect();
    let masses: Vec<f32> = (0..40).map(|_| 0.5 + rng.next()).collect();
    let drift = Vec3::new(0.01, -0.004, 0.002);
    let displacements: Vec<Vec3> =
        positions.iter().map(|&r| drift + 0.03 * Vec3::Y.cross(r) + rng.vec() * 0.02).collect();
    let inverse: Vec<f32> = masses.iter().map(|m| 1.0 / m).collect();
    let motion = |q: &[Vec3]| rigid_motion(&free_particle_moments(&positions, q, &inverse));
    let reference = positions[0];
    let around = motion(&displacements);
    let limited: Vec<Vec3> = displacements
        .iter()
        .zip(&positions)
        .map(|(&q, &p)| limit_deformation(q, p - reference, &around, 0.005))
        .collect();
    assert!(limited != displacements, "the limit shortened some displacements");
    let after = motion(&limited);
    let restored: Vec<Vec3> =
        limited.iter().zip(&positions).map(|(&q, &p)| q + momentum_restored(p - reference, &around, &after)).collect();
    let sums = |q: &[Vec3]| {
        q.iter().zip(&positions).zip(&masses).fold((DVec3::ZERO, DVec3::ZERO), |(p, l), ((q, r), &m)| {
            let mq = q.as_dvec3() * f64::from(m);
            (p + mq, l + (*r - reference).as_dvec3().cross(mq))
        })
    };
    let ((p0, l0), (p1, l1)) = (sums(&displacements), sums(&restored));
    assert!((p1 - p0).length() <= 1e-6 * p0.length(), "momentum {p0} → {p1}");
    assert!((l1 - l0).length() <= 1e-5 * l0.length(), "angular momentum {l0} → {l1}");
    let (lost, _) = sums(&limited);
    assert!((lost - p0).length() >= 1e-3 * p0.length(), "the limit alone changed the momentum by {}", lost - p0);
    let unlimited: Vec<Vec3> = displacements
        .iter()
        .zip(&positions)
        .map(|(&q, &p)| limit_deformation(q, p - reference, &around, 1.0))
        .collect();
    assert!(unlimited == displacements, "a limit of a metre shortens nothing");
    let same = motion(&unlimited);
    for &p in &positions {
        let bits = momentum_restored(p - reference, &around, &same).to_array().map(f32::to_bits);
        assert_eq!(bits, [0; 3], "at {p}");
    }
}

/// A free cloth's run with and without self-collision: `model` given `velocities`, then
/// `frames` frames of `params`.
struct WithAndWithout {
    /// The momentum at the end with self-collision and without.
    with: Vec3,
    without: Vec3,
    /// How far apart the two runs end (m): what self-collision did.
    apart: f32,
    /// The run with self-collision, at its end.
    solver: GpuSolver,
}

fn with_and_without_self_collision(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    model: &ClothModel,
    params: SolverParams,
    velocities: &[Vec3],
    frames: usize,
) -> WithAndWithout {
    let run = |params| {
        let mut solver = GpuSolver::new(device, queue, model, params, &[]).unwrap();
        solver.set_velocities(velocities).unwrap();
        for _ in 0..frames {
            solver.step();
        }
        solver
    };
    let (mut solver, mut other) = (run(params), run(SolverParams { self_collision: None, ..params }));
    let apart = max_distance(&solver.read_positions().unwrap(), &other.read_positions().unwrap());
    let with = momentum(model, &solver.read_velocities().unwrap());
    let without = momentum(model, &other.read_velocities().unwrap());
    WithAndWithout { with, without, apart, solver }
}

/// Asserts that a run's momentum `with` self-collision kept `before`: the integrator's own drift
/// (`without`) within [`INTEGRATOR_DRIFT`], the contacts' within [`contacts_drift`]; `scale` is
/// the momentum the drifts are relative to. Self-collision must have acted (the runs end a
/// centimetre or more apart).
fn assert_momentum_kept(params: SolverParams, before: Vec3, runs: &WithAndWithout, scale: f32) {
    let mode = params.mode;
    let (with, without, apart) = (runs.with, runs.without, runs.apart);
    assert!(apart >= 0.01, "{mode:?}: self-collision moved no particle more than {apart} m");
    let integrator = (without - before).length();
    assert!(integrator <= INTEGRATOR_DRIFT * scale, "{mode:?}: momentum {before} → {without} without self-collision");
    let contacts = (with - without).length();
    assert!(
        contacts <= contacts_drift(params.substeps) * scale,
        "{mode:?}: momentum {with} with self-collision, {without} without"
    );
}

/// Self contacts keep momentum in every mode: two sheets in zero gravity, one sliding across
/// and falling onto the other, which rises to meet it, collide face on with friction between
/// them; the total momentum after 30 frames is what it was (each pair's corrections carry
/// opposite momenta: the contacts add no more than rounding to the integrator's own drift), the
/// sheets end apart without cutting through each other, and the contact took out their closing
/// speed.
#[test]
fn self_contacts_keep_momentum_in_every_mode() {
    let (device, queue) = device();
    let sheet = ClothMesh::grid(9, 9, 0.02, GridPlane::Horizontal, Vec3::ZERO).unwrap();
    let upper = sheet.moved(glam::Quat::IDENTITY, Vec3::new(0.01, 0.05, 0.0));
    let model = ClothModel::new(ClothMesh::joined(&[sheet, upper]).unwrap(), 0.2, &[]).unwrap();
    let n = model.particle_count();
    let velocities: Vec<Vec3> =
        (0..n).map(|i| if i < n / 2 { Vec3::new(0.0, 0.5, 0.0) } else { Vec3::new(0.3, -1.0, 0.0) }).collect();
    let before = momentum(&model, &velocities);
    let modes =
        [SolverMode::GaussSeidel, SolverMode::Jacobi { relaxation: 1.5 }, SolverMode::MassSpring(Default::default())];
    for mode in modes {
        let params = zero_gravity_self_collision(mode, 0.02);
        let mut runs = with_and_without_self_collision(&device, &queue, &model, params, &velocities, 30);
        assert_momentum_kept(params, before, &runs, before.length().max(1e-3));
        let (positions, after) = (runs.solver.read_positions().unwrap(), runs.solver.read_velocities().unwrap());
        let mean_y = |range: std::ops::Range<usize>| {
            positions[range.clone()].iter().map(|p| p.y).sum::<f32>() / range.len() as f32
        };
        let gap = mean_y(n / 2..n) - mean_y(0..n / 2);
        assert!(gap >= 0.015, "{mode:?}: the sheets end {gap} m apart");
        assert_eq!(self_intersections(model.mesh(), &positions), 0, "{mode:?}");
        let closing =
            |v: &[Vec3]| v[..n / 2].iter().map(|v| v.y).sum::<f32>() - v[n / 2..].iter().map(|v| v.y).sum::<f32>();
        assert!(
            closing(&after) <= 0.05 * closing(&velocities),
            "{mode:?}: still closing at {} of {}",
            closing(&after),
            closing(&velocities)
        );
    }
}

/// Self-collision limits only deformation: a cloth thrown at 10 m/s and spinning at 40 rad/s
/// (edges at 5.7 m/s), with self-collision of 1 cm, 10 substeps at 60 frames a second (which
/// limits a particle's departure from the rigid motion to 3 m/s), flies and spins as it does
/// without: after half a second, its centre of mass's velocity and its angular velocity are
/// within 1 % of the same cloth's without self-collision (which stretches as it spins, halving its
/// angular velocity).
#[test]
fn a_thrown_spinning_cloth_flies_as_without_self_collision() {
    let (device, queue) = device();
    let mesh = ClothMesh::grid(11, 11, 0.02, GridPlane::Horizontal, Vec3::ZERO).unwrap();
    let model = ClothModel::new(mesh, 0.2, &[]).unwrap();
    let centre = model.mesh().positions.iter().sum::<Vec3>() / model.particle_count() as f32;
    let spin = Vec3::new(0.0, 40.0, 0.0);
    let throw = Vec3::new(10.0, 3.0, 0.0);
    let velocities: Vec<Vec3> = model.mesh().positions.iter().map(|&x| throw + spin.cross(x - centre)).collect();
    let with = SolverParams { damping: 0.0, self_collision: Some(SelfCollision::new(0.01)), ..SolverParams::default() };
    let without = SolverParams { self_collision: None, ..with };
    let flight = |params| {
        let mut solver = GpuSolver::new(&device, &queue, &model, params, &[]).unwrap();
        solver.set_velocities(&velocities).unwrap();
        for _ in 0..30 {
            solver.step();
        }
        rigid_motion_of(&model, &solver.read_positions().unwrap(), &solver.read_velocities().unwrap())
    };
    let (on, off) = (flight(with), flight(without));
    assert!(off.velocity.x > 9.9 && off.angular_velocity.y > 15.0, "without: {off:?}");
    let apart = (on.velocity - off.velocity).length() / off.velocity.length();
    assert!(apart <= 0.01, "centre of mass at {} m/s with self-collision, {} m/s without", on.velocity, off.velocity);
    let turning = (on.angular_velocity - off.angular_velocity).length() / off.angular_velocity.length();
    assert!(turning <= 0.01, "spinning at {} with, {} without", on.angular_velocity, off.angular_velocity);
}

/// The rigid motion (centre-of-mass velocity, angular velocity) of a cloth, in f64.
fn rigid_motion_of(model: &ClothModel, positions: &[Vec3], velocities: &[Vec3]) -> RigidMotion {
    let moments = drape::passes::rigid_damping::free_particle_moments(
        positions,
        velocities,
        &model.masses().iter().map(|m| 1.0 / m).collect::<Vec<f32>>(),
    );
    rigid_motion(&moments)
}

/// A free cloth thrown at 10 m/s that crumples onto itself keeps its linear momentum with
/// self-collision of 1 cm as without, in every mode: the contacts and the deformation limit move
/// no centre of mass (they add no more than rounding to the integrator's own drift). It has no
/// bending stiffness, every particle heads for the centre at 1.5 m/s, and its four quarters fold
/// up at 20 rad/s about its midlines: fast enough for the deformation limit to act in
/// Gauss-Seidel (at 10 substeps it allows 3 m/s of departure from the rigid motion). The limit
/// gives back what it takes as a rigid motion; when it did not, the momentum changed by 1.2e-3
/// of itself in this run.
#[test]
fn a_thrown_crumpling_cloth_keeps_its_momentum_with_self_collision() {
    let (device, queue) = device();
    let (model, velocities) = crumpling_cloth();
    let before = momentum(&model, &velocities);
    let modes =
        [SolverMode::GaussSeidel, SolverMode::Jacobi { relaxation: 1.5 }, SolverMode::MassSpring(Default::default())];
    for mode in modes {
        let params = crumpling(mode);
        let mut runs = with_and_without_self_collision(&device, &queue, &model, params, &velocities, 20);
        assert_momentum_kept(params, before, &runs, before.length());
        assert!(runs.solver.overflows().unwrap().self_contacts == 0, "{mode:?}");
    }
}

/// The GPU gives back what the deformation limit takes as the reference does: the crumpling
/// cloth in Gauss-Seidel, each frame from the reference's state (the pile is chaotic), within
/// 1e-5 m in every frame of 20. The limit acts in the first: without the GPU's restoration that
/// frame ends 0.19 mm off.
#[test]
fn the_momentum_the_limit_takes_comes_back_as_in_the_reference() {
    let (device, queue) = device();
    let (model, velocities) = crumpling_cloth();
    let params = crumpling(SolverMode::GaussSeidel);
    let mut gpu = GpuSolver::new(&device, &queue, &model, params, &[]).unwrap();
    let mut cpu = CpuSolver::new(&model, params, &[]).unwrap();
    cpu.velocities = velocities;
    let gaps: Vec<f32> = (0..20)
        .map(|_| {
            start_gpu_from_cpu(&mut gpu, &cpu);
            gpu.step();
            cpu.step();
            max_distance(&gpu.read_positions().unwrap(), &cpu.positions)
        })
        .collect();
    let gap = largest(gaps);
    assert!(gap <= 1e-5, "GPU and CPU differ by {gap} m in a frame");
}
