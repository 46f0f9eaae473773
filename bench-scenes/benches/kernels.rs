//! Micro benchmarks of the hot kernels of a step, on real scenes:
//!
//! - `box_box_manifold/*`: one box-box manifold (`impetus::collision::collide`) per pose;
//! - `broadphase/pile_falling`: the broadphase stage while the `pile` scene's boxes fall;
//! - `solver/pyramid_solve_pass`: one Gauss-Seidel pass over the `pyramid`'s constraints;
//! - `narrowphase/pyramid_settled*`: the narrowphase stage of the settled `pyramid`.
//!
//! Everything runs on one thread (`world_def(1)`), so the numbers are those of the kernels
//! and not of the thread pool. Sample counts and times are small so that the whole
//! `cargo bench -p impetus-scenes` takes a few minutes on two cores; the stage benchmarks
//! use `SamplingMode::Flat` because one iteration is a millisecond or more.
//!
//! Run one group: `cargo bench -p impetus-scenes --bench kernels -- broadphase`.

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use impetus::collision::{collide, Tolerance};
use impetus::{Quat, Shape, Transform, Vec3, World};
use impetus_scenes::{find, world_def, Params, DT};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Steps a scene runs before its kernels are timed.
const WARM_STEPS: usize = 60;

/// A world holding scene `name` (single-threaded, docs/SCENES.md settings) after `steps` steps.
fn scene_world(name: &str, recycling: bool, steps: usize) -> World {
    let def = impetus::WorldDef {
        contact_recycling: recycling,
        ..world_def(1)
    };
    let mut world = World::new(def).expect("world");
    find(name)
        .expect("scene")
        .build(&mut world, &Params::default())
        .expect("scene builds");
    for _ in 0..steps {
        world.step(DT).expect("step");
    }
    world
}

/// Box-box manifolds for three representative poses of a unit box B against a unit box A
/// at the origin (A's top face at y = 0.5).
fn box_box(c: &mut Criterion) {
    let unit = Shape::Box {
        half_extents: Vec3::splat(0.5),
    };
    let a = Transform::IDENTITY;
    let s = std::f32::consts::FRAC_1_SQRT_2;
    let poses = [
        // Resting face contact, as in a stack: axes aligned, 5 mm deep, offset sideways.
        // Clipping keeps the 4 corners of the overlap square.
        (
            "resting_face",
            a,
            Transform::new(Vec3::new(0.3, 0.995, 0.1), Quat::IDENTITY),
        ),
        // A box turned 30° about y and tilted 0.02 rad on the box below: clipping gives an
        // octagon of points at depths 0-20 mm, reduced to 4.
        (
            "rotated_face",
            a,
            Transform::new(
                Vec3::new(0.2, 0.99, -0.1),
                Quat::from_rotation_y(std::f32::consts::FRAC_PI_6) * Quat::from_rotation_x(0.02),
            ),
        ),
        // Edge on edge: A turned 45° about x (top edge along x at y = √2/2), B turned 45°
        // about z (bottom edge along z), crossing 10 mm deep: the 9 edge axes decide, one point.
        (
            "edge_edge",
            Transform::new(
                Vec3::ZERO,
                Quat::from_rotation_x(std::f32::consts::FRAC_PI_4),
            ),
            Transform::new(
                Vec3::new(0.0, 2.0 * s - 0.01, 0.0),
                Quat::from_rotation_z(std::f32::consts::FRAC_PI_4),
            ),
        ),
    ];
    let mut group = c.benchmark_group("box_box_manifold");
    group.throughput(Throughput::Elements(1));
    let tol = Tolerance {
        speculative: 0.02,
        linear_slop: impetus::WorldDef::default().linear_slop,
    };
    for (name, xf_a, xf_b) in poses {
        let m = collide(&unit, &xf_a, &unit, &xf_b, tol);
        assert!(m.count > 0, "pose {name} must touch");
        group.bench_function(name, |b| {
            b.iter(|| {
                collide(
                    black_box(&unit),
                    black_box(&xf_a),
                    black_box(&unit),
                    black_box(&xf_b),
                    black_box(tol),
                )
            })
        });
    }
    group.finish();
}

/// The `pile` scene replayed over a fixed window of its drop, for the broadphase benchmark.
struct FallingPile {
    world: World,
    /// Steps taken since the scene was built.
    steps: usize,
}

impl FallingPile {
    /// The broadphase stages timed per build: steps WARM_STEPS+1 ..= WARM_STEPS+WINDOW.
    const WINDOW: usize = 60;

    fn new() -> Self {
        FallingPile {
            world: scene_world("pile", true, WARM_STEPS),
            steps: WARM_STEPS,
        }
    }

    /// Times the broadphase stage of the next step; the rest of the step is not timed.
    ///
    /// `World::step` runs broadphase, narrowphase, solver, and the solver's last act is the
    /// refit that moves the proxies whose boxes left their fat boxes. So right after a step
    /// all of its moves are pending, and `bench_update_broadphase` does exactly the work the
    /// next step's first stage would do (sort the moved endpoints, end and begin pairs,
    /// create and destroy contacts). That next step then finds nothing pending and its own
    /// broadphase stage is a no-op: the simulation is the same as with plain `step` calls.
    /// The sorting work depends on how much moved, so the world replays one fixed window of
    /// the drop (rebuilt from scratch, untimed, when the window is used up): the result is
    /// the mean over steps 61..=120 of `pile`, while the lower layers land and the rest falls.
    fn timed_update(&mut self) -> Duration {
        if self.steps >= WARM_STEPS + Self::WINDOW {
            *self = FallingPile::new();
        }
        // The refit of the step just taken (or of the warm-up's last step) is pending.
        let t = Instant::now();
        self.world.bench_update_broadphase();
        let elapsed = t.elapsed();
        self.world.step(DT).expect("step");
        self.steps += 1;
        elapsed
    }
}

fn broadphase(c: &mut Criterion) {
    let mut pile = FallingPile::new();
    let proxies = pile.world.body_count() as u64;
    let mut group = c.benchmark_group("broadphase");
    // Criterion sizes `iter_custom` runs by their wall time, which here is mostly the
    // untimed step of 10,000 boxes (~20 ms on one core, ~80x the timed part): these times
    // are wall times, and 3 s gives about two windows (~120 timed updates).
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(3));
    group.throughput(Throughput::Elements(proxies));
    group.bench_function("pile_falling", |b| {
        b.iter_custom(|iters| (0..iters).map(|_| pile.timed_update()).sum())
    });
    group.finish();
}

fn solver(c: &mut Criterion) {
    let mut world = scene_world("pyramid", true, WARM_STEPS);
    // Gathers the bodies and builds one constraint per touching contact, as a step does.
    // The passes below then keep iterating on the same constraints (the impulses converge,
    // the work per pass does not change).
    let constraints = world.bench_prepare_contacts(DT);
    assert!(constraints > 0);
    let mut group = c.benchmark_group("solver");
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements(constraints as u64));
    group.bench_function("pyramid_solve_pass", |b| {
        b.iter(|| world.bench_solve_pass(black_box(DT), true))
    });
    group.finish();
}

fn narrowphase(c: &mut Criterion) {
    let mut group = c.benchmark_group("narrowphase");
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    // With recycling (the default) a settled stack mostly refreshes its manifolds from
    // their anchors; without it every manifold is recomputed in full.
    for (name, recycling) in [
        ("pyramid_settled", true),
        ("pyramid_settled_no_recycling", false),
    ] {
        let mut world = scene_world("pyramid", recycling, WARM_STEPS);
        let manifolds = world.profile().manifolds;
        assert!(manifolds > 0);
        group.throughput(Throughput::Elements(manifolds as u64));
        // The poses do not change between calls: every call redoes the last step's
        // narrowphase on the same contacts.
        group.bench_function(name, |b| b.iter(|| world.bench_collide(black_box(DT))));
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
}

criterion_group! {
    name = kernels;
    config = config();
    targets = box_box, broadphase, solver, narrowphase
}
criterion_main!(kernels);
