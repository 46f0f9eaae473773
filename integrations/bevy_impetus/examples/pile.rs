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
        .add_systems(Update, report_errors)
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

    // The ground and four low walls.
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
    wall(Vec3::new(12.0, 0.5, 12.0), Vec3::new(0.0, -0.5, 0.0));
    for s in [-1.0f32, 1.0] {
        wall(Vec3::new(0.5, 2.0, 8.0), Vec3::new(7.5 * s, 2.0, 0.0));
        wall(Vec3::new(8.0, 2.0, 0.5), Vec3::new(0.0, 2.0, 7.5 * s));
    }

    // 1,000 boxes: a 10 × 10 × 10 grid, spacing 1.1, each turned a little.
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
        let (x, y, z) = (i % 10, i / 100, (i / 10) % 10);
        let at = Vec3::new(
            (x as f32 - 4.5) * 1.1,
            1.0 + y as f32 * 1.1,
            (z as f32 - 4.5) * 1.1,
        );
        commands.spawn((
            RigidBody::Dynamic,
            Collider::cuboid(0.5, 0.5, 0.5),
            ColliderDensity(100.0),
            TransformInterpolation,
            Mesh3d(cube.clone()),
            MeshMaterial3d(colors[i % colors.len()].clone()),
            Transform::from_translation(at).with_rotation(Quat::from_rotation_y(0.02 * i as f32)),
        ));
    }
}

fn report_errors(mut errors: MessageReader<PhysicsError>) {
    for error in errors.read() {
        error!("{error}");
    }
}
