//! Seconds to build the model of a benchmark-scene grid on the host (mesh, validation,
//! constraints, colouring, stripes): `Scene::new` for 512² and 1024² cells.
//!
//! `cargo bench --bench model`; `DRAPE_BENCH_GRIDS=512` limits the grid sizes.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode};
use drape::{Scene, SceneKind};

fn grids() -> Vec<u32> {
    std::env::var("DRAPE_BENCH_GRIDS")
        .ok()
        .map(|s| s.split(',').map(|g| g.trim().parse().expect("DRAPE_BENCH_GRIDS: comma-separated sizes")).collect())
        .unwrap_or_else(|| vec![512, 1024])
}

fn model(c: &mut Criterion) {
    let mut group = c.benchmark_group("model");
    group.sampling_mode(SamplingMode::Flat).sample_size(10);
    for grid in grids() {
        group.bench_function(BenchmarkId::new("build", format!("{grid}x{grid}")), |b| {
            b.iter(|| Scene::new(SceneKind::Benchmark, grid).expect("benchmark scene"))
        });
    }
    group.finish();
}

criterion_group!(benches, model);
criterion_main!(benches);
