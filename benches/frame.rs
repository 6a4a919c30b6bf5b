//! Milliseconds per frame of the benchmark scene (2 m × 2 m cloth of N×N cells, two corners
//! pinned, a sphere under the middle, dt 1/60) in both modes, at 10 substeps × 10 iterations
//! and 20 × 1, with dispatches per frame and max stretch printed beside each time.
//!
//! `cargo bench --bench frame`; `DRAPE_BENCH_GRIDS=32,64` limits the grid sizes.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode};
use drape::{GpuSolver, Scene, SceneKind, SolverMode, SolverParams};
use std::time::Duration;

fn grids() -> Vec<u32> {
    std::env::var("DRAPE_BENCH_GRIDS")
        .ok()
        .map(|s| s.split(',').map(|g| g.trim().parse().expect("DRAPE_BENCH_GRIDS: comma-separated sizes")).collect())
        .unwrap_or_else(|| vec![32, 64, 128, 256])
}

fn frame(c: &mut Criterion) {
    let (device, queue, adapter) =
        drape::headless_device(Default::default()).unwrap_or_else(|e| panic!("benchmarks need a GPU adapter: {e}"));
    println!("adapter: {} ({:?}, {})", adapter.name, adapter.device_type, adapter.backend);
    let wait = || device.poll(wgpu::PollType::wait_indefinitely()).expect("device lost");
    for (substeps, iterations) in [(10, 10), (20, 1)] {
        let mut group = c.benchmark_group(format!("frame_{substeps}x{iterations}"));
        group.sampling_mode(SamplingMode::Flat).sample_size(10).warm_up_time(Duration::from_millis(500));
        for grid in grids() {
            let scene = Scene::new(SceneKind::Benchmark, grid).expect("benchmark scene");
            for (name, mode) in [("gs", SolverMode::GaussSeidel), ("jacobi", SolverMode::Jacobi { relaxation: 1.5 })] {
                let params = SolverParams { substeps, iterations, mode, ..scene.params };
                let mut solver =
                    GpuSolver::new(&device, &queue, &scene.model, params, &scene.colliders).expect("solver");
                let mut frames = 0;
                group.bench_function(BenchmarkId::new(name, format!("{grid}x{grid}")), |b| {
                    b.iter(|| {
                        solver.step();
                        wait();
                        frames += 1;
                    })
                });
                let m = solver.metrics().expect("readback");
                println!(
                    "  {grid}² {name} {substeps}x{iterations}: {} dispatches/frame ({:?}), max stretch {:.4} after {frames} frames, non-finite {}",
                    solver.dispatches_per_frame(),
                    solver.dispatch_strategy(),
                    m.max_stretch,
                    m.non_finite
                );
            }
        }
        group.finish();
    }
}

criterion_group!(benches, frame);
criterion_main!(benches);
