//! Milliseconds per frame of the benchmark scene (2 m × 2 m cloth of N×N cells, two corners
//! pinned, a sphere under the middle, dt 1/60) in both modes, at 10 substeps × 10 iterations
//! and 20 × 1, with dispatches per frame and max stretch printed beside each time. And the host's
//! time of a drag's pin change on a live solver, tethers on (`GpuSolver::pin` at a grab,
//! `unpin` at the release: the tethers updated and uploaded, the frame planned again), for the
//! benchmark scene and the flag.
//!
//! `cargo bench --bench frame`; `DRAPE_BENCH_GRIDS=32,64` limits the grid sizes.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode};
use drape::{GpuSolver, Scene, SceneKind, SolverMode, SolverParams};
use std::time::{Duration, Instant};

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

fn pin_change(c: &mut Criterion) {
    let (device, queue, _) =
        drape::headless_device(Default::default()).unwrap_or_else(|e| panic!("benchmarks need a GPU adapter: {e}"));
    let mut group = c.benchmark_group("pin_change");
    group.sampling_mode(SamplingMode::Flat).sample_size(10).warm_up_time(Duration::from_millis(500));
    for kind in [SceneKind::Benchmark, SceneKind::Flag] {
        for grid in grids() {
            let scene = Scene::new(kind, grid).expect("scene");
            let mut solver =
                GpuSolver::new(&device, &queue, &scene.model, scene.params, &scene.colliders).expect("solver");
            solver.step();
            // Lavapipe's frame would share the CPU with the timed host code.
            device.poll(wgpu::PollType::wait_indefinitely()).expect("device lost");
            // A different particle of the middle row each time: a grab of the particle just let
            // go would find its tethers kept.
            let middle = scene.model.particle_count() as u32 / 2;
            let mut grabs = (0..grid).cycle().map(|k| middle - grid / 2 + k);
            // Times the grab or the release, not the other, and flushes the uploads after each pair.
            let mut time = |grab_timed: bool, iterations: u64| {
                let mut total = Duration::ZERO;
                for particle in grabs.by_ref().take(iterations as usize) {
                    let target = scene.model.mesh().positions[particle as usize];
                    let start = Instant::now();
                    solver.pin(particle, target).expect("grab");
                    let grabbed = Instant::now();
                    solver.unpin(particle).expect("release");
                    total += if grab_timed { grabbed - start } else { grabbed.elapsed() };
                    queue.submit([]);
                }
                total
            };
            group.bench_function(BenchmarkId::new(format!("{kind:?} grab"), format!("{grid}x{grid}")), |b| {
                b.iter_custom(|n| time(true, n))
            });
            group.bench_function(BenchmarkId::new(format!("{kind:?} release"), format!("{grid}x{grid}")), |b| {
                b.iter_custom(|n| time(false, n))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, frame, pin_change);
criterion_main!(benches);
