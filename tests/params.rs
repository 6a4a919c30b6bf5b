//! Bad parameters and colliders give typed errors; stiffness conversions follow PBD and XPBD.

use drape::{
    Aerodynamics, Collider, ContactMaterial, CpuSolver, Error, Gusts, MassSpringParams, Pose, Scene, SceneKind,
    SelfCollision, SolverMode, SolverParams, Stiffness, StrainLimits, TetherParams,
};
use glam::{Quat, Vec3};

fn rejected(params: SolverParams) -> &'static str {
    match params.validate() {
        Err(e) => e.name,
        Ok(()) => panic!("{params:?} was accepted"),
    }
}

#[test]
fn out_of_range_parameters_are_rejected_by_name() {
    let ok = SolverParams::default();
    ok.validate().unwrap();
    assert_eq!(rejected(SolverParams { time_step: 0.0, ..ok }), "time_step");
    assert_eq!(rejected(SolverParams { time_step: -0.01, ..ok }), "time_step");
    assert_eq!(rejected(SolverParams { time_step: f32::NAN, ..ok }), "time_step");
    assert_eq!(rejected(SolverParams { iterations: 0, ..ok }), "iterations");
    assert_eq!(rejected(SolverParams { substeps: 0, ..ok }), "substeps");
    assert_eq!(rejected(SolverParams { gravity: Vec3::new(0.0, f32::NAN, 0.0), ..ok }), "gravity");
    assert_eq!(rejected(SolverParams { stretch: Stiffness::Pbd(1.5), ..ok }), "stretch");
    assert_eq!(rejected(SolverParams { compression: Stiffness::Pbd(-0.1), ..ok }), "compression");
    assert_eq!(rejected(SolverParams { bending: Stiffness::Compliance(-1.0), ..ok }), "bending");
    assert_eq!(rejected(SolverParams { damping: -1.0, ..ok }), "damping");
    assert_eq!(rejected(SolverParams { rigid_damping: -1.0, ..ok }), "rigid_damping");
    assert_eq!(rejected(SolverParams { rigid_damping: f32::NAN, ..ok }), "rigid_damping");
    assert_eq!(rejected(SolverParams { max_depenetration_speed: -0.1, ..ok }), "max_depenetration_speed");
    assert_eq!(rejected(SolverParams { max_depenetration_speed: f32::NAN, ..ok }), "max_depenetration_speed");
    assert!(SolverParams { max_depenetration_speed: f32::INFINITY, ..ok }.validate().is_ok());
    assert_eq!(rejected(SolverParams { static_friction: f32::INFINITY, ..ok }), "static_friction");
    assert_eq!(rejected(SolverParams { dynamic_friction: -0.1, ..ok }), "dynamic_friction");
    assert_eq!(rejected(SolverParams { restitution: 1.5, ..ok }), "restitution");
    assert_eq!(rejected(SolverParams { mode: SolverMode::Jacobi { relaxation: 0.0 }, ..ok }), "mode.relaxation");
    let springs = |springs: MassSpringParams| SolverParams { mode: SolverMode::MassSpring(springs), ..ok };
    let defaults = MassSpringParams::default();
    springs(MassSpringParams { structural: 0.0, shear: 0.0, flexion: 0.0, damping: 0.0 }).validate().unwrap();
    assert_eq!(rejected(springs(MassSpringParams { structural: -1.0, ..defaults })), "mode.structural");
    assert_eq!(rejected(springs(MassSpringParams { shear: f32::NAN, ..defaults })), "mode.shear");
    assert_eq!(rejected(springs(MassSpringParams { flexion: f32::INFINITY, ..defaults })), "mode.flexion");
    assert_eq!(rejected(springs(MassSpringParams { damping: -1e-3, ..defaults })), "mode.damping");
    let tethers = |tethers: TetherParams| SolverParams { tethers, ..ok };
    assert_eq!(rejected(tethers(TetherParams { scale: 0.99, ..ok.tethers })), "tethers.scale");
    assert_eq!(rejected(tethers(TetherParams { scale: f32::NAN, ..ok.tethers })), "tethers.scale");
    assert_eq!(rejected(tethers(TetherParams { stiffness: Stiffness::Pbd(2.0), ..ok.tethers })), "tethers.stiffness");
    let limits = |min, max| SolverParams { strain_limits: Some(StrainLimits { min, max }), ..ok };
    limits(0.0, 1.0).validate().unwrap();
    assert_eq!(rejected(limits(-0.1, 1.1)), "strain_limits.min");
    assert_eq!(rejected(limits(1.1, 1.2)), "strain_limits.min");
    assert_eq!(rejected(limits(f32::NAN, 1.1)), "strain_limits.min");
    assert_eq!(rejected(limits(0.9, 0.99)), "strain_limits.max");
    assert_eq!(rejected(limits(0.9, f32::INFINITY)), "strain_limits.max");
    let areas = |min, max| SolverParams { area_limits: Some(StrainLimits { min, max }), ..ok };
    areas(0.0, 1.0).validate().unwrap();
    assert_eq!(rejected(areas(-0.1, 1.1)), "area_limits.min");
    assert_eq!(rejected(areas(f32::NAN, 1.1)), "area_limits.min");
    assert_eq!(rejected(areas(0.9, 0.99)), "area_limits.max");
    assert_eq!(rejected(areas(0.9, f32::NAN)), "area_limits.max");
    let self_collision = |s: SelfCollision| SolverParams { self_collision: Some(s), ..ok };
    self_collision(SelfCollision::new(0.01)).validate().unwrap();
    for (bad, name) in [
        (SelfCollision::new(0.0), "self_collision.thickness"),
        (SelfCollision::new(f32::NAN), "self_collision.thickness"),
        (SelfCollision::new(2.0), "self_collision.thickness"),
        (SelfCollision { friction: -0.1, ..SelfCollision::new(0.01) }, "self_collision.friction"),
        (SelfCollision { friction: f32::INFINITY, ..SelfCollision::new(0.01) }, "self_collision.friction"),
    ] {
        assert_eq!(rejected(self_collision(bad)), name);
    }
    let air = |aero: Aerodynamics| SolverParams { aerodynamics: Some(aero), ..ok };
    let still = Aerodynamics::default();
    air(Aerodynamics { air_density: 0.0, lift_coefficient: 0.0, ..still }).validate().unwrap();
    assert_eq!(rejected(air(Aerodynamics { wind: Vec3::new(f32::INFINITY, 0.0, 0.0), ..still })), "aerodynamics.wind");
    assert_eq!(rejected(air(Aerodynamics { air_density: -1.0, ..still })), "aerodynamics.air_density");
    assert_eq!(rejected(air(Aerodynamics { drag_coefficient: f32::NAN, ..still })), "aerodynamics.drag_coefficient");
    assert_eq!(rejected(air(Aerodynamics { lift_coefficient: -0.1, ..still })), "aerodynamics.lift_coefficient");
    assert_eq!(rejected(air(Aerodynamics { wind: Vec3::new(0.0, 1e20, 0.0), ..still })), "aerodynamics.wind");
    assert_eq!(rejected(air(Aerodynamics { air_density: 1e30, ..still })), "aerodynamics.air_density");
    assert_eq!(rejected(air(Aerodynamics { drag_coefficient: 1e30, ..still })), "aerodynamics.drag_coefficient");
    let gusts = |strength, frequency| air(Aerodynamics { gusts: Gusts { strength, frequency }, ..still });
    gusts(1.0, 2.0).validate().unwrap();
    assert_eq!(rejected(gusts(1.5, 0.5)), "aerodynamics.gusts.strength");
    assert_eq!(rejected(gusts(-0.1, 0.5)), "aerodynamics.gusts.strength");
    assert_eq!(rejected(gusts(0.5, 0.0)), "aerodynamics.gusts.frequency");
    assert_eq!(rejected(gusts(0.5, f32::INFINITY)), "aerodynamics.gusts.frequency");
    // Accepted-looking values whose derived quantities would be infinite or zero.
    assert_eq!(rejected(SolverParams { bending: Stiffness::Compliance(1e33), ..ok }), "bending");
    assert_eq!(rejected(SolverParams { time_step: 1e-30, ..ok }), "time_step");
}

#[test]
fn solvers_refuse_bad_parameters_and_colliders() {
    let scene = Scene::new(SceneKind::Hanging, 4).unwrap();
    let bad = SolverParams { time_step: 0.0, ..scene.params };
    assert!(matches!(CpuSolver::new(&scene.model, bad, &[]), Err(Error::Param(_))));
    let sphere = Collider::sphere(Vec3::ZERO, -1.0);
    assert!(matches!(CpuSolver::new(&scene.model, scene.params, &[sphere]), Err(Error::Collider(_))));
    let tilted = Collider::Plane { normal: Vec3::new(0.0, 2.0, 0.0), offset: 0.0 };
    assert!(matches!(tilted.validate(), Err(Error::Collider(_))));
    // A nearly unit plane normal is accepted and used normalised.
    let almost = Collider::Plane { normal: Vec3::new(0.0, 1.0005, 0.0), offset: 0.0 };
    almost.validate().unwrap();
    assert_eq!(almost.normalized(), Collider::ground(0.0));
    // Any number of colliders (the GPU's limit is its storage binding size, tests/gpu_physics.rs).
    let many = vec![Collider::ground(0.0); 100];
    CpuSolver::new(&scene.model, scene.params, &many).unwrap();
    // Capsules and boxes: every number finite, radius and half extents > 0, rounding ≥ 0, a
    // unit rotation (nearly unit accepted and used normalised).
    let (a, b) = (Vec3::ZERO, Vec3::X);
    let turn = Quat::from_rotation_y(0.3);
    let cuboid = |half_extents: Vec3, rotation: Quat, rounding: f32| Collider::Box {
        center: Vec3::ZERO,
        half_extents,
        rotation,
        rounding,
    };
    let bad = [
        Collider::capsule(a, b, 0.0),
        Collider::capsule(a, Vec3::new(f32::NAN, 0.0, 0.0), 0.1),
        Collider::capsule(a, b, f32::INFINITY),
        cuboid(Vec3::new(0.1, 0.0, 0.1), turn, 0.0),
        cuboid(Vec3::new(0.1, -0.1, 0.1), turn, 0.0),
        cuboid(Vec3::splat(0.1), turn, -0.01),
        cuboid(Vec3::splat(0.1), turn, f32::NAN),
        cuboid(Vec3::splat(0.1), Quat::from_xyzw(0.0, 0.0, 0.0, 2.0), 0.0),
        cuboid(Vec3::splat(f32::INFINITY), turn, 0.0),
    ];
    for collider in bad {
        assert!(matches!(collider.validate(), Err(Error::Collider(_))), "{collider:?} accepted");
        assert!(matches!(CpuSolver::new(&scene.model, scene.params, &[collider]), Err(Error::Collider(_))));
    }
    Collider::capsule(a, a, 0.1).validate().unwrap();
    // Poses: one per collider, finite, with a unit rotation.
    let mut solver = CpuSolver::new(&scene.model, scene.params, &[Collider::ground(0.0)]).unwrap();
    let still = Pose::IDENTITY;
    let moved = Pose { translation: Vec3::new(f32::NAN, 0.0, 0.0), ..still };
    let stretched = Pose { rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 1.5), ..still };
    for poses in [vec![], vec![still, still], vec![moved], vec![stretched]] {
        assert!(matches!(solver.set_collider_poses(&poses), Err(Error::Collider(_))), "{poses:?} accepted");
    }
    solver.set_collider_poses(&[Pose { translation: Vec3::Y, ..still }]).unwrap();
    // Materials: one per collider, each coefficient in range (named in the error).
    let material = scene.params.contact_material();
    for (bad, name) in [
        (ContactMaterial { collision_margin: -0.1, ..material }, "collision_margin"),
        (ContactMaterial { static_friction: f32::NAN, ..material }, "static_friction"),
        (ContactMaterial { dynamic_friction: -1.0, ..material }, "dynamic_friction"),
        (ContactMaterial { restitution: 1.5, ..material }, "restitution"),
    ] {
        let result = solver.set_collider_materials(&[Some(bad)]);
        assert!(matches!(&result, Err(Error::Param(e)) if e.name == name), "{bad:?}: {result:?}");
    }
    assert!(matches!(solver.set_collider_materials(&[None, None]), Err(Error::Collider(_))));
    solver.set_collider_materials(&[Some(material)]).unwrap();
    let almost = cuboid(Vec3::splat(0.1), Quat::from_xyzw(0.0, 0.0, 0.0, 1.0005), 0.02);
    almost.validate().unwrap();
    assert_eq!(almost.normalized(), cuboid(Vec3::splat(0.1), Quat::IDENTITY, 0.02));
}

#[test]
fn pbd_stiffness_is_per_time_step() {
    for k in [0.1f32, 0.5, 0.9] {
        // One substep: after n iterations the remaining error is (1 − k')^n = 1 − k (PBD §3.3).
        for n in [1u32, 4, 10] {
            let [k_prime, alpha_tilde] = Stiffness::Pbd(k).response(1, n, 0.01);
            assert_eq!(alpha_tilde, 0.0);
            assert!(((1.0 - k_prime).powi(n as i32) - (1.0 - k)).abs() < 1e-5);
        }
        // S substeps: each removes the fraction that XPBD's equivalent compliance removes at
        // Δt/S: with α̃ = α/h², α = Δt²(1 − k)/k per unit inverse mass.
        let dt = 1.0 / 60.0f64;
        for substeps in [2u32, 10, 25] {
            let alpha = dt * dt * (1.0 - f64::from(k)) / f64::from(k);
            let h = dt / f64::from(substeps);
            let expected = 1.0 / (1.0 + alpha / (h * h));
            let [k_prime, _] = Stiffness::Pbd(k).response(substeps, 4, h as f32);
            let removed = 1.0 - (1.0 - f64::from(k_prime)).powi(4);
            assert!(
                (removed - expected).abs() < 1e-4 * expected,
                "k {k}, {substeps} substeps: {removed} vs {expected}"
            );
        }
    }
    assert_eq!(Stiffness::Pbd(1.0).response(10, 4, 0.01)[0], 1.0);
    // XPBD: α̃ = α / h².
    assert_eq!(Stiffness::Compliance(2e-4).response(10, 3, 0.01), [1.0, 2.0]);
}
