//! Seconds to build the model of a benchmark-scene grid on the host (mesh, validation,
//! constraints, colouring, stripes): `Scene::new` for 512² and 1024² cells. And the host's part
//! of a pin change (a drag in the demo grabs a particle): rebuilding the tethers of a 128² and a
//! 256² benchmark cloth with one more pinned particle.
//!
//! `cargo bench --bench model`; `DRAPE_BENCH_GRIDS=512` limits the grid sizes.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode};
use drape::constraints::tether::Tethers;
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

fn tether_rebuild(c: &mut Criterion) {
    let mut group = c.benchmark_group("tethers");
    group.sampling_mode(SamplingMode::Flat).sample_size(10);
    for grid in [128, 256] {
        let scene = Scene::new(SceneKind::Benchmark, grid).expect("benchmark scene");
        let model = &scene.model;
        let mut grabbed = model.inverse_masses().to_vec();
        grabbed[model.particle_count() / 2] = 0.0;
        group.bench_function(BenchmarkId::new("rebuild after a grab", format!("{grid}x{grid}")), |b| {
            b.iter(|| Tethers::build(model, &grabbed))
        });
    }
    group.finish();
}

criterion_group!(benches, model, tether_rebuild);
criterion_main!(benches);
