//! Rollback in one app: step a pile 60 times, save the state, step 120 more and note the
//! hash, restore the saved state, step the same 120 again: the same hash (exits non-zero
//! when not).
//!
//! ```text
//! cargo run --example rollback
//! ```

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_impetus::prelude::*;

fn main() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, ImpetusPlugin::default().with_workers(1)))
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1))
        .add_systems(Startup, setup);
    app.finish();
    app.cleanup();

    run_to(&mut app, 60);
    let snapshot = physics(&app).save_state();
    println!(
        "saved at step {} ({} bytes), hash {:016x}",
        snapshot.steps(),
        snapshot.bytes().len(),
        physics(&app).state_hash()
    );

    run_to(&mut app, 180);
    let first = physics(&app).state_hash();
    println!("step 180, first run:  {first:016x}");

    if let Err(error) = app
        .world_mut()
        .resource_mut::<ImpetusWorld>()
        .restore_state(&snapshot)
    {
        eprintln!("restore failed: {error}");
        std::process::exit(1);
    }
    println!(
        "restored to step {}, hash {:016x}",
        physics(&app).steps(),
        physics(&app).state_hash()
    );

    run_to(&mut app, 180);
    let second = physics(&app).state_hash();
    println!("step 180, second run: {second:016x}");
    if first != second {
        eprintln!("the re-run differs from the first run");
        std::process::exit(1);
    }
    println!("equal: the restored world stepped on bit for bit");
}

fn physics(app: &App) -> &ImpetusWorld {
    app.world().resource::<ImpetusWorld>()
}

fn run_to(app: &mut App, step: u64) {
    while physics(app).steps() < step {
        app.update();
    }
}

fn setup(mut commands: Commands) {
    commands.spawn((RigidBody::Static, Collider::half_space(Vec3::Y, 0.0)));
    for i in 0..64 {
        let (x, z) = (
            (i % 4) as f32 * 1.1 - 1.65,
            ((i / 4) % 4) as f32 * 1.1 - 1.65,
        );
        let y = 0.6 + (i / 16) as f32 * 1.1;
        commands.spawn((
            RigidBody::Dynamic,
            Collider::cuboid(0.5, 0.5, 0.5),
            Transform::from_xyz(x, y, z).with_rotation(Quat::from_rotation_y(0.05 * i as f32)),
        ));
    }
    commands.spawn((
        RigidBody::Dynamic,
        Collider::sphere(0.5),
        ColliderDensity(3000.0),
        LinearVelocity(Vec3::new(8.0, 2.0, 0.0)),
        Transform::from_xyz(-8.0, 1.0, 0.0),
    ));
}
