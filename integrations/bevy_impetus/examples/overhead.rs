//! What the plugin costs over `World::step` alone, on a pile of 10,000 boxes (the shape
//! of the engine's `pile` benchmark scene: a 20 × 25 × 20 grid of unit boxes, spacing
//! 1.1, each tilted a little, dropped between four walls), awake and asleep. A benchmark,
//! not a test: run it in release.
//!
//! ```text
//! cargo run --release --example overhead -- [--workers N] [--awake-steps N]
//! ```
//!
//! The same pile is built twice, as a bare `impetus::World` and as entities in a
//! `MinimalPlugins` app (one fixed step per `App::update`); both must end on the same state
//! hash. For the app, each update is timed whole and the engine's own time for its step
//! (`Profile::step`) is taken off: what is left is the plugin (its systems before and
//! after the step) plus Bevy's frame (the schedules, the time and message updates).
//! Figures are means over the phase: `--awake-steps` steps after the first (everything
//! falling and piling up, awake), then 200 steps once every box sleeps. The first step is
//! not timed: in the app it creates the bodies.
//!
//! Measured on the project's 2-core machine (shared, so the least of three runs), one
//! worker: awake, `World::step` 8.95 ms and the app's update 8.83 ms, of which 0.33 ms
//! outside the step (3.9 % of it); asleep (from step 855), 0.016 ms outside the step. Two
//! workers: 0.34 ms (3.8 %) and 0.016 ms. Both worlds end on the same state hash.

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_impetus::impetus;
use bevy_impetus::prelude::*;
use std::time::Instant;

/// One body of the pile: dynamic, half extents, position, rotation.
type Spec = (bool, Vec3, Vec3, Quat);

fn pile() -> Vec<Spec> {
    let mut r: Vec<Spec> = vec![(
        false,
        Vec3::new(20.0, 1.0, 20.0),
        Vec3::new(0.0, -1.0, 0.0),
        Quat::IDENTITY,
    )];
    for s in [-1.0f32, 1.0] {
        r.push((
            false,
            Vec3::new(0.5, 20.0, 16.0),
            Vec3::new(15.5 * s, 20.0, 0.0),
            Quat::IDENTITY,
        ));
        r.push((
            false,
            Vec3::new(16.0, 20.0, 0.5),
            Vec3::new(0.0, 20.0, 15.5 * s),
            Quat::IDENTITY,
        ));
    }
    // A small linear congruential generator: the same tilts every run.
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    };
    let (nx, ny, nz) = (20, 25, 20);
    let spacing = 1.1;
    for iy in 0..ny {
        for ix in 0..nx {
            for iz in 0..nz {
                let x = (ix as f32 - 0.5 * (nx as f32 - 1.0)) * spacing;
                let z = (iz as f32 - 0.5 * (nz as f32 - 1.0)) * spacing;
                let y = 1.0 + iy as f32 * spacing;
                let axis = Vec3::new(next(), next(), next())
                    .try_normalize()
                    .unwrap_or(Vec3::Y);
                let tilt = Quat::from_axis_angle(axis, 0.05 * next());
                r.push((true, Vec3::splat(0.5), Vec3::new(x, y, z), tilt));
            }
        }
    }
    r
}

fn world_def(workers: usize) -> impetus::WorldDef {
    impetus::WorldDef {
        worker_count: workers,
        ..Default::default()
    }
}

fn v(x: Vec3) -> impetus::Vec3 {
    impetus::Vec3::from_array(x.to_array())
}

fn bare_world(specs: &[Spec], workers: usize) -> Result<impetus::World, impetus::Error> {
    let mut world = impetus::World::new(world_def(workers))?;
    for &(dynamic, half, position, rotation) in specs {
        let body = world.create_body(&impetus::BodyDef {
            body_type: if dynamic {
                impetus::BodyType::Dynamic
            } else {
                impetus::BodyType::Static
            },
            position: v(position),
            rotation: impetus::Quat::from_array(rotation.to_array()),
            ..Default::default()
        })?;
        world.add_shape(
            body,
            &impetus::ShapeDef::cuboid(v(half)).with_density(100.0),
        )?;
    }
    Ok(world)
}

fn plugin_app(specs: &[Spec], workers: usize) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        ImpetusPlugin::default().with_world_def(world_def(workers)),
    ))
    .insert_resource(Time::<Fixed>::from_hz(60.0))
    .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.finish();
    app.cleanup();
    for &(dynamic, half, position, rotation) in specs {
        app.world_mut().spawn((
            if dynamic {
                RigidBody::Dynamic
            } else {
                RigidBody::Static
            },
            Collider::cuboid(half.x, half.y, half.z),
            ColliderDensity(100.0),
            Transform::from_translation(position).with_rotation(rotation),
        ));
    }
    app
}

fn physics(app: &App) -> &ImpetusWorld {
    app.world().resource::<ImpetusWorld>()
}

/// Mean engine step and mean whole update (ms) over `n` steps of the app.
fn time_app(app: &mut App, n: u64) -> (f64, f64) {
    let (mut step, mut update) = (0.0, 0.0);
    let mut taken = 0;
    while taken < n {
        let before = physics(app).steps();
        let start = Instant::now();
        app.update();
        let elapsed = start.elapsed().as_secs_f64() * 1e3;
        if physics(app).steps() == before + 1 {
            update += elapsed;
            step += physics(app).engine().profile().step;
            taken += 1;
        }
    }
    (step / n as f64, update / n as f64)
}

/// Mean `World::step` (ms, timed around the call) over `n` steps.
fn time_world(world: &mut impetus::World, n: u64) -> Result<f64, impetus::Error> {
    let start = Instant::now();
    for _ in 0..n {
        world.step(1.0 / 60.0)?;
    }
    Ok(start.elapsed().as_secs_f64() * 1e3 / n as f64)
}

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn main() -> Result<(), impetus::Error> {
    let workers = arg("--workers", 1) as usize;
    let awake_steps = arg("--awake-steps", 120);
    let asleep_steps = 200;
    let specs = pile();
    let boxes = specs.iter().filter(|s| s.0).count();
    println!("pile: {boxes} boxes, {workers} worker thread(s), dt = 1/60 s");

    // The bare engine: awake phase, then on until every box sleeps, then asleep.
    // The first step is not timed (in the app it creates the 10,000 bodies).
    let mut world = bare_world(&specs, workers)?;
    world.step(1.0 / 60.0)?;
    let bare_awake = time_world(&mut world, awake_steps)?;
    let mut settle = 0;
    while world.sleep_counts().1 < boxes && settle < 3000 {
        world.step(1.0 / 60.0)?;
        settle += 1;
    }
    let asleep_at = 1 + awake_steps + settle;
    let bare_asleep = time_world(&mut world, asleep_steps)?;
    let bare_hash = world.state_hash();
    println!(
        "bare world: asleep after {asleep_at} steps ({} sleeping)",
        world.sleep_counts().1
    );

    // The plugin: the same steps.
    let mut app = plugin_app(&specs, workers);
    time_app(&mut app, 1);
    let (step_awake, update_awake) = time_app(&mut app, awake_steps);
    time_app(&mut app, settle);
    let (step_asleep, update_asleep) = time_app(&mut app, asleep_steps);
    let app_hash = physics(&app).state_hash();

    println!();
    println!("phase                      World::step  app: step  app: update  update - step");
    for (name, bare, step, update) in [
        (
            format!("awake (steps 2-{})", awake_steps + 1),
            bare_awake,
            step_awake,
            update_awake,
        ),
        (
            format!("asleep ({asleep_steps} steps)"),
            bare_asleep,
            step_asleep,
            update_asleep,
        ),
    ] {
        let over = update - step;
        println!(
            "{name:<26} {bare:>8.3} ms {step:>8.3} ms {update:>9.3} ms {over:>9.3} ms ({:.1} % of the step)",
            100.0 * over / step
        );
    }
    println!();
    println!("state hash: bare world {bare_hash:016x}, app {app_hash:016x}");
    if bare_hash != app_hash {
        eprintln!("the app's world differs from the bare world");
        std::process::exit(1);
    }
    Ok(())
}
