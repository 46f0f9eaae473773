//! A headless app: `MinimalPlugins`, one fixed step (1/60 s) per `App::update`, 120 steps of
//! a small scene (a stack of boxes, a ball, a pendulum), then the state hash.
//!
//! ```text
//! cargo run --example headless
//! ```

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_impetus::prelude::*;

fn main() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, ImpetusPlugin::default().with_workers(1)))
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        // Time advances by one fixed timestep a frame (the first frame has no delta).
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1))
        .add_systems(Startup, setup)
        .add_systems(Update, report);
    app.finish();
    app.cleanup();
    while app.world().resource::<ImpetusWorld>().steps() < 120 {
        app.update();
    }
    let physics = app.world().resource::<ImpetusWorld>();
    let (_, sleeping) = physics.engine().sleep_counts();
    println!(
        "{} steps, {} bodies ({} asleep), {} joint(s), state hash {:016x}",
        physics.steps(),
        physics.engine().body_count(),
        sleeping,
        physics.engine().joint_count(),
        physics.state_hash()
    );
}

fn setup(mut commands: Commands) {
    commands.spawn((RigidBody::Static, Collider::half_space(Vec3::Y, 0.0)));
    for i in 0..5 {
        commands.spawn((
            RigidBody::Dynamic,
            Collider::cuboid(0.5, 0.5, 0.5),
            ColliderDensity(200.0),
            Transform::from_xyz(0.02 * i as f32, 0.5 + 1.05 * i as f32, 0.0),
        ));
    }
    commands.spawn((
        RigidBody::Dynamic,
        Collider::sphere(0.3),
        HitEvents,
        LinearVelocity(Vec3::new(3.0, 0.0, 0.0)),
        Transform::from_xyz(-4.0, 2.0, 0.0),
    ));
    let hook = commands
        .spawn((RigidBody::Static, Transform::from_xyz(4.0, 4.0, 0.0)))
        .id();
    let bob = commands
        .spawn((
            RigidBody::Dynamic,
            Collider::capsule(0.3, 0.2),
            Transform::from_xyz(6.0, 4.0, 0.0),
        ))
        .id();
    commands.spawn(Joint::ball(hook, bob, Vec3::new(4.0, 4.0, 0.0)));
}

fn report(mut impacts: MessageReader<ContactImpact>, physics: Res<ImpetusWorld>) {
    for hit in impacts.read() {
        println!(
            "step {}: {} hit {} at {:.2} m/s",
            physics.steps(),
            hit.entity_a,
            hit.entity_b,
            hit.approach_speed
        );
    }
}
