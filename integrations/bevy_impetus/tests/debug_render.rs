//! The `debug-render` feature: the physics world drawn through the engine's `DebugDraw`
//! into Bevy's gizmos, in a headless app (no window, no renderer).
#![cfg(feature = "debug-render")]

use bevy::asset::AssetPlugin;
use bevy::gizmos::GizmoPlugin;
use bevy::mesh::MeshPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_impetus::impetus::DebugDrawOptions;
use bevy_impetus::prelude::*;

#[test]
fn the_world_is_drawn_as_gizmos() {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        MeshPlugin,
        GizmoPlugin,
        ImpetusPlugin::default().with_workers(1),
        ImpetusDebugRenderPlugin {
            options: DebugDrawOptions {
                static_bodies: false,
                joints: false,
                ..Default::default()
            },
        },
    ))
    .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.finish();
    app.cleanup();
    app.world_mut()
        .spawn((RigidBody::Static, Collider::half_space(Vec3::Y, 0.0)));
    app.world_mut().spawn((
        RigidBody::Dynamic,
        Collider::cuboid(0.5, 0.5, 0.5),
        Transform::from_xyz(0.0, 0.5, 0.0),
    ));
    app.world_mut().spawn((
        RigidBody::Dynamic,
        Collider::sphere(0.5),
        Transform::from_xyz(3.0, 0.5, 0.0),
    ));
    for _ in 0..3 {
        app.update();
    }
    // The box and the ball (the ground is left out): one primitive each.
    assert_eq!(app.world().resource::<ImpetusDebugRender>().drawn(), 2);

    // Contact points too: the box's four corners and the ball's point, three lines each.
    app.world_mut()
        .resource_mut::<ImpetusDebugRender>()
        .options
        .contact_points = true;
    app.update();
    assert_eq!(
        app.world().resource::<ImpetusDebugRender>().drawn(),
        2 + 5 * 3
    );

    // A bad option is reported, not panicked.
    app.world_mut()
        .resource_mut::<ImpetusDebugRender>()
        .options
        .point_size = f32::NAN;
    app.update();
    app.world_mut().resource_mut::<ImpetusDebugRender>().enabled = false;
    app.update();
    assert_eq!(app.world().resource::<ImpetusDebugRender>().drawn(), 0);
}
