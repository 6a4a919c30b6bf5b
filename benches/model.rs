//! Seconds to build the model of a benchmark-scene grid on the host (mesh, validation,
//! constraints, colouring, stripes): `Scene::new` for 512² and 1024² cells. And the host's part
//! of a pin change (a drag in the demo grabs a particle, then lets go): the tethers of a 128² and
//! a 256² cloth with one more pinned particle, built afresh and updated from the tethers before
//! the grab (as the solvers do), and updated back on release (restored, or searched again when
//! the builder has not kept them); for the benchmark scene (two pinned corners) and the flag (a
//! pinned edge, so every particle has four anchors).
//!
//! And a mesh collider's distance field, built from the mesh scene's torus (48 × 24 vertices,
//! 2304 triangles) at 32, 64 and 128 samples across.
//!
//! `cargo bench --bench model`; `DRAPE_BENCH_GRIDS=512` limits the grid sizes.

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, SamplingMode};
use drape::passes::tethers::{TetherBuilder, Tethers};
use drape::{ClothMesh, DistanceField, Scene, SceneKind};

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
    for kind in [SceneKind::Benchmark, SceneKind::Flag] {
        for grid in [128, 256] {
            let scene = Scene::new(kind, grid).expect("scene");
            let model = &scene.model;
            let pinned = model.inverse_masses();
            let mut grabbed = pinned.to_vec();
            grabbed[model.particle_count() / 2] = 0.0;
            let mut before = TetherBuilder::new(model);
            before.update(pinned);
            let mut after = before.clone();
            after.update(&grabbed);
            let name = |what: &str| BenchmarkId::new(format!("{kind:?} {what}"), format!("{grid}x{grid}"));
            group.bench_function(name("build after a grab"), |b| b.iter(|| Tethers::build(model, &grabbed)));
            group.bench_function(name("update on a grab"), |b| {
                b.iter_batched(|| before.clone(), |mut builder| builder.update(&grabbed), BatchSize::LargeInput)
            });
            group.bench_function(name("update on release"), |b| {
                b.iter_batched(|| after.clone(), |mut builder| builder.update(pinned), BatchSize::LargeInput)
            });
            // A release the builder has no earlier tethers for (another pin changed since the grab).
            let mut searched = TetherBuilder::new(model);
            searched.update(&grabbed);
            group.bench_function(name("update on release, searched"), |b| {
                b.iter_batched(|| searched.clone(), |mut builder| builder.update(pinned), BatchSize::LargeInput)
            });
        }
    }
    group.finish();
}

fn distance_field(c: &mut Criterion) {
    let mut group = c.benchmark_group("distance field");
    group.sampling_mode(SamplingMode::Flat).sample_size(10);
    let torus = ClothMesh::torus(0.4, 0.15, 48, 24).expect("torus");
    for resolution in [32, 64, 128] {
        group.bench_function(BenchmarkId::new("torus", resolution), |b| {
            b.iter(|| DistanceField::from_mesh(&torus, resolution).expect("field"))
        });
    }
    group.finish();
}

criterion_group!(benches, model, tether_rebuild, distance_field);
criterion_main!(benches);
