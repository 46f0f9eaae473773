//! A windowed pile of 1,000 boxes falling into a pit, with interpolated transforms and the
//! debug drawing of the physics world on top.
//!
//! ```text
//! cargo run --release --example pile --features examples-window
//! ```

use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::prelude::*;
use bevy_impetus::prelude::*;

fn main() {
    App::new()
        .add_plugins((
            DefaultPlugins,
            ImpetusPlugin::default(),
            ImpetusDebugRenderPlugin::default(),
        ))
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        .add_systems(Startup, setup)
        .add_systems(Update, (report_errors, report_progress))
        .run();
}

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    commands.spawn((
        Camera3d::default(),
        // The default tone mapping needs the `tonemapping_luts` feature's tables.
        Tonemapping::Reinhard,
        Transform::from_xyz(28.0, 22.0, 28.0).looking_at(Vec3::new(0.0, 4.0, 0.0), Vec3::Y),
    ));
    commands.spawn((
        DirectionalLight {
            illuminance: 8_000.0,
            shadow_maps_enabled: true,
            ..default()
        },
        Transform::from_xyz(10.0, 30.0, 5.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));

    // The ground and four walls 6 m high. Boxes that land on the pile at speed splash over
    // the walls, some of them tens of metres out: the ground is wide enough to
    // catch them, so that they come to rest and the whole pile falls asleep (with a 40 m
    // ground they fell past its edge for ever, and the island never slept).
    let stone = materials.add(StandardMaterial {
        base_color: Color::srgb(0.45, 0.45, 0.42),
        ..default()
    });
    let mut wall = |half: Vec3, at: Vec3| {
        commands.spawn((
            RigidBody::Static,
            Collider::cuboid(half.x, half.y, half.z),
            Mesh3d(meshes.add(Cuboid::from_size(2.0 * half))),
            MeshMaterial3d(stone.clone()),
            Transform::from_translation(at),
        ));
    };
    wall(Vec3::new(100.0, 0.5, 100.0), Vec3::new(0.0, -0.5, 0.0));
    for s in [-1.0f32, 1.0] {
        wall(Vec3::new(0.5, 3.0, 8.0), Vec3::new(7.5 * s, 3.0, 0.0));
        wall(Vec3::new(8.0, 3.0, 0.5), Vec3::new(0.0, 3.0, 7.5 * s));
    }

    // 1,000 boxes dropped as a 7 × 7 grid of columns, 1.8 m apart (room for any
    // orientation), each turned its own way: they land on corners and edges and tumble
    // into a pile.
    let cube = meshes.add(Cuboid::from_size(Vec3::ONE));
    let colors: Vec<Handle<StandardMaterial>> = (0..5)
        .map(|k| {
            materials.add(StandardMaterial {
                base_color: Color::hsl(36.0 * k as f32 + 20.0, 0.6, 0.55),
                ..default()
            })
        })
        .collect();
    for i in 0..1000 {
        let (x, y, z) = (i % 7, i / 49, (i / 7) % 7);
        let at = Vec3::new(
            (x as f32 - 3.0) * 1.8,
            2.0 + y as f32 * 1.8,
            (z as f32 - 3.0) * 1.8,
        );
        let k = i as f32;
        let turn = Quat::from_euler(EulerRot::XYZ, k * 0.7, k * 1.3, k * 2.1);
        commands.spawn((
            RigidBody::Dynamic,
            Collider::cuboid(0.5, 0.5, 0.5),
            ColliderDensity(100.0),
            TransformInterpolation,
            Mesh3d(cube.clone()),
            MeshMaterial3d(colors[i % colors.len()].clone()),
            Transform::from_translation(at).with_rotation(turn),
        ));
    }
}

fn report_errors(mut errors: MessageReader<PhysicsError>) {
    for error in errors.read() {
        error!("{error}");
    }
}

/// Every two seconds: the steps taken and how many boxes sleep.
fn report_progress(time: Res<Time>, mut last: Local<f32>, physics: Res<ImpetusWorld>) {
    if time.elapsed_secs() - *last < 2.0 {
        return;
    }
    *last = time.elapsed_secs();
    let (_, sleeping) = physics.engine().sleep_counts();
    info!("step {}: {sleeping} of 1,000 boxes asleep", physics.steps());
}
