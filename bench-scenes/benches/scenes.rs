//! Short whole-scene benchmarks: the first 60 steps (1 s) of a scene, built fresh for
//! every iteration (the build is not timed), on 1 and 2 worker threads.
//!
//! Throughput is in body-steps (dynamic bodies × steps), so elements/s compares across
//! scenes and step counts. The full-length runs with per-stage tables and the rapier3d
//! comparison are `impetus-bench run` / `compare`; these are for quick before/after checks:
//! `cargo bench -p impetus-scenes --bench scenes`.

use criterion::{
    criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use impetus::World;
use impetus_scenes::{find, world_def, Params, DT};
use std::time::Duration;

/// Steps per iteration.
const STEPS: usize = 60;

fn scenes(c: &mut Criterion) {
    let mut group = c.benchmark_group("scene");
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for (name, threads) in [("pyramid", 1), ("pyramid", 2)] {
        let scene = find(name).expect("scene");
        group.throughput(Throughput::Elements((scene.bodies * STEPS) as u64));
        let id = BenchmarkId::new(
            format!("{name}_{STEPS}_steps"),
            format!("threads_{threads}"),
        );
        group.bench_function(id, |b| {
            b.iter_batched(
                || {
                    let mut world = World::new(world_def(threads)).expect("world");
                    scene
                        .build(&mut world, &Params::default())
                        .expect("scene builds");
                    world
                },
                |mut world| {
                    for _ in 0..STEPS {
                        world.step(DT).expect("step");
                    }
                    // Dropped outside the timing by iter_batched.
                    world
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, scenes);
criterion_main!(benches);
