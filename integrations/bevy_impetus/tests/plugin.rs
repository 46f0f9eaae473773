//! The plugin in headless apps (`MinimalPlugins`, one fixed step per `App::update` through
//! `TimeUpdateStrategy::FixedTimesteps(1)`): resting heights, removal, events, queries,
//! determinism, rollback and joints.

use bevy::ecs::message::Messages;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_impetus::prelude::*;

/// A headless app stepping 60 times a second, one step per update after the first.
fn app(workers: usize) -> App {
    app_with(ImpetusPlugin::default().with_workers(workers))
}

fn app_with(plugin: ImpetusPlugin) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, plugin))
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.finish();
    app.cleanup();
    app
}

fn steps(app: &App) -> u64 {
    app.world().resource::<ImpetusWorld>().steps()
}

/// Updates the app until the plugin has taken `n` more steps.
fn run_steps(app: &mut App, n: u64) {
    let target = steps(app) + n;
    let mut updates = 0;
    while steps(app) < target {
        app.update();
        updates += 1;
        assert!(
            updates <= n + 2,
            "{updates} updates took {} of {n} steps",
            steps(app) + n - target
        );
    }
}

fn physics(app: &App) -> &ImpetusWorld {
    app.world().resource::<ImpetusWorld>()
}

fn hash(app: &App) -> u64 {
    physics(app).state_hash()
}

/// Every message of type `M` still held (the last two updates' worth).
fn messages<M: Message + Clone>(app: &App) -> Vec<M> {
    app.world()
        .resource::<Messages<M>>()
        .iter_current_update_messages()
        .cloned()
        .collect()
}

/// Collects every message of type `M` into `Log<M>` in `Update`.
#[derive(Resource)]
struct Log<M>(Vec<M>);

fn log_messages<M: Message + Clone>(app: &mut App) {
    app.insert_resource(Log::<M>(Vec::new())).add_systems(
        Update,
        |mut reader: MessageReader<M>, mut log: ResMut<Log<M>>| {
            log.0.extend(reader.read().cloned())
        },
    );
}

fn logged<M: Message + Clone>(app: &App) -> Vec<M> {
    app.world().resource::<Log<M>>().0.clone()
}

fn ground(app: &mut App) -> Entity {
    app.world_mut()
        .spawn((RigidBody::Static, Collider::half_space(Vec3::Y, 0.0)))
        .id()
}

fn translation(app: &App, e: Entity) -> Vec3 {
    app.world().get::<Transform>(e).unwrap().translation
}

#[test]
fn a_box_falls_and_rests_at_its_half_extent() {
    let mut app = app(1);
    ground(&mut app);
    let crate_ = app
        .world_mut()
        .spawn((
            RigidBody::Dynamic,
            Collider::cuboid(0.5, 0.25, 0.5),
            ColliderDensity(200.0),
            LinearVelocity::default(),
            Transform::from_xyz(0.0, 3.0, 0.0),
        ))
        .id();
    run_steps(&mut app, 180);
    let y = translation(&app, crate_).y;
    assert!(
        (y - 0.25).abs() < 0.01,
        "the box rests on its half extent: y = {y}"
    );
    let v = app.world().get::<LinearVelocity>(crate_).unwrap().0;
    assert!(v.length() < 0.05, "at rest: {v}");
    assert!(
        physics(&app)
            .engine()
            .body_is_awake(physics(&app).body(crate_).unwrap())
            == Ok(false)
    );
}

#[test]
fn despawning_removes_the_body_and_its_joints() {
    let mut app = app(1);
    log_messages::<PhysicsError>(&mut app);
    let anchor = app
        .world_mut()
        .spawn((RigidBody::Static, Transform::from_xyz(0.0, 5.0, 0.0)))
        .id();
    let bob = app
        .world_mut()
        .spawn((
            RigidBody::Dynamic,
            Collider::sphere(0.25),
            Transform::from_xyz(0.0, 3.0, 0.0),
        ))
        .id();
    let rope = app
        .world_mut()
        .spawn(Joint::ball(anchor, bob, Vec3::new(0.0, 5.0, 0.0)))
        .id();
    let bob2 = app
        .world_mut()
        .spawn((
            RigidBody::Dynamic,
            Collider::sphere(0.25),
            Transform::from_xyz(2.0, 3.0, 0.0),
        ))
        .id();
    let weld = app
        .world_mut()
        .spawn(Joint::fixed(bob, bob2, Vec3::new(1.0, 3.0, 0.0)))
        .id();
    run_steps(&mut app, 2);
    assert_eq!(physics(&app).engine().body_count(), 3);
    assert_eq!(physics(&app).engine().joint_count(), 2);
    assert!(physics(&app).joint(rope).is_some() && physics(&app).joint(weld).is_some());

    // The joint entity: its joint goes, the bodies stay.
    app.world_mut().despawn(weld);
    assert_eq!(physics(&app).engine().joint_count(), 1);
    assert_eq!(physics(&app).engine().body_count(), 3);

    // A body entity: its body and the joints that named it go at once.
    let bob_body = physics(&app).body(bob).unwrap();
    app.world_mut().despawn(bob);
    assert_eq!(physics(&app).engine().body_count(), 2);
    assert_eq!(physics(&app).engine().joint_count(), 0);
    assert!(!physics(&app).engine().contains_body(bob_body));
    assert_eq!(physics(&app).body(bob), None);
    run_steps(&mut app, 2);
    assert_eq!(physics(&app).joint(rope), None);
    assert_eq!(physics(&app).engine().joint_count(), 0);
    assert!(
        logged::<PhysicsError>(&app).is_empty(),
        "{:?}",
        logged::<PhysicsError>(&app)
    );

    // Removing RigidBody alone removes the body; inserting it again brings the body back.
    app.world_mut().entity_mut(bob2).remove::<RigidBody>();
    assert_eq!(physics(&app).engine().body_count(), 1);
    app.world_mut().entity_mut(bob2).insert(RigidBody::Dynamic);
    run_steps(&mut app, 1);
    assert_eq!(physics(&app).engine().body_count(), 2);
    assert!(physics(&app).body(bob2).is_some());
}

#[test]
fn a_joint_comes_back_with_its_body() {
    let mut app = app(1);
    log_messages::<PhysicsError>(&mut app);
    let anchor = app
        .world_mut()
        .spawn((RigidBody::Static, Transform::from_xyz(0.0, 5.0, 0.0)))
        .id();
    let bob = app
        .world_mut()
        .spawn((
            RigidBody::Dynamic,
            Collider::sphere(0.25),
            Transform::from_xyz(0.0, 3.0, 0.0),
        ))
        .id();
    let rope = app
        .world_mut()
        .spawn(Joint::ball(anchor, bob, Vec3::new(0.0, 5.0, 0.0)))
        .id();
    run_steps(&mut app, 1);
    let first = physics(&app).joint(rope).unwrap();
    // Inserting RigidBody again recreates the body, and the joint with it.
    app.world_mut().entity_mut(bob).insert(RigidBody::Dynamic);
    assert_eq!(physics(&app).engine().joint_count(), 0);
    run_steps(&mut app, 1);
    let again = physics(&app).joint(rope).unwrap();
    assert_ne!(first, again);
    assert_eq!(physics(&app).engine().joint_count(), 1);
    assert!(logged::<PhysicsError>(&app).is_empty());
    // A kinematic body on a static one: the engine refuses the joint (one of its bodies
    // must be dynamic), which is reported on the joint's entity.
    app.world_mut().entity_mut(bob).insert(RigidBody::Kinematic);
    run_steps(&mut app, 1);
    assert_eq!(physics(&app).joint(rope), None);
    let errors = logged::<PhysicsError>(&app);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(
        (errors[0].entity, errors[0].component),
        (Some(rope), "Joint")
    );
}

#[test]
fn events_name_their_entities() {
    let mut app = app(1);
    log_messages::<CollisionStarted>(&mut app);
    log_messages::<CollisionEnded>(&mut app);
    log_messages::<ContactImpact>(&mut app);
    log_messages::<SensorEntered>(&mut app);
    log_messages::<SensorExited>(&mut app);
    log_messages::<JointBroken>(&mut app);
    let floor = ground(&mut app);
    // A ball dropped through a sensor slab onto the ground.
    let sensor = app
        .world_mut()
        .spawn((
            RigidBody::Static,
            Collider::cuboid(2.0, 0.1, 2.0),
            Sensor,
            Transform::from_xyz(0.0, 2.0, 0.0),
        ))
        .id();
    let ball = app
        .world_mut()
        .spawn((
            RigidBody::Dynamic,
            Collider::sphere(0.25),
            HitEvents,
            Transform::from_xyz(0.0, 3.0, 0.0),
        ))
        .id();
    run_steps(&mut app, 90);
    let pair = |a: Entity, b: Entity, x: Entity, y: Entity| (a, b) == (x, y) || (a, b) == (y, x);
    let started = logged::<CollisionStarted>(&app);
    assert_eq!(started.len(), 1, "{started:?}");
    assert!(pair(started[0].entity_a, started[0].entity_b, floor, ball));
    assert_eq!(
        logged::<SensorEntered>(&app),
        vec![SensorEntered {
            sensor,
            visitor: ball
        }]
    );
    assert_eq!(
        logged::<SensorExited>(&app),
        vec![SensorExited {
            sensor,
            visitor: ball
        }]
    );
    let impacts = logged::<ContactImpact>(&app);
    assert!(!impacts.is_empty());
    assert!(pair(impacts[0].entity_a, impacts[0].entity_b, floor, ball));
    assert!(impacts[0].approach_speed > 5.0, "{:?}", impacts[0]);
    assert!(logged::<CollisionEnded>(&app).is_empty());

    // Despawning the resting ball ends its contact, naming the despawned entity.
    app.world_mut().despawn(ball);
    run_steps(&mut app, 1);
    let ended = logged::<CollisionEnded>(&app);
    assert_eq!(ended.len(), 1, "{ended:?}");
    assert!(pair(ended[0].entity_a, ended[0].entity_b, floor, ball));

    // A weak joint breaks under a heavy box.
    let hook = app
        .world_mut()
        .spawn((RigidBody::Static, Transform::from_xyz(5.0, 5.0, 0.0)))
        .id();
    let load = app
        .world_mut()
        .spawn((
            RigidBody::Dynamic,
            Collider::cuboid(0.5, 0.5, 0.5),
            Transform::from_xyz(5.0, 4.0, 0.0),
        ))
        .id();
    let rope = app
        .world_mut()
        .spawn(
            Joint::ball(hook, load, Vec3::new(5.0, 5.0, 0.0))
                .with_break_impulse(1.0, f32::INFINITY),
        )
        .id();
    run_steps(&mut app, 3);
    let broken = logged::<JointBroken>(&app);
    assert_eq!(broken.len(), 1, "{broken:?}");
    assert_eq!(
        (broken[0].joint, broken[0].body_a, broken[0].body_b),
        (rope, hook, load)
    );
    assert_eq!(physics(&app).joint(rope), None);
    assert_eq!(physics(&app).engine().joint_count(), 0);
}

#[test]
fn bad_input_is_reported_not_panicked() {
    let mut app = app(1);
    log_messages::<PhysicsError>(&mut app);
    let bad_radius = app
        .world_mut()
        .spawn((RigidBody::Dynamic, Collider::sphere(-1.0)))
        .id();
    let dynamic_plane = app
        .world_mut()
        .spawn((RigidBody::Dynamic, Collider::half_space(Vec3::Y, 0.0)))
        .id();
    let parent = app
        .world_mut()
        .spawn((RigidBody::Dynamic, Collider::sphere(0.5)))
        .id();
    let child = app
        .world_mut()
        .spawn((RigidBody::Dynamic, Collider::sphere(0.5), ChildOf(parent)))
        .id();
    let nobody = app.world_mut().spawn(Transform::default()).id();
    let joint = app
        .world_mut()
        .spawn(Joint::ball(parent, nobody, Vec3::ZERO))
        .id();
    let bad_friction = app
        .world_mut()
        .spawn((
            RigidBody::Dynamic,
            Collider::sphere(0.5),
            Friction::new(f32::NAN),
            Transform::from_xyz(3.0, 0.0, 0.0),
        ))
        .id();
    let bad_speed = app
        .world_mut()
        .spawn((
            RigidBody::Static,
            Collider::sphere(0.5),
            LinearVelocity(Vec3::X),
            Transform::from_xyz(6.0, 0.0, 0.0),
        ))
        .id();
    run_steps(&mut app, 2);
    let errors = logged::<PhysicsError>(&app);
    let find = |e: Entity, component: &str| {
        errors
            .iter()
            .find(|x| x.entity == Some(e) && x.component == component)
            .unwrap_or_else(|| panic!("no {component} error for {e}: {errors:?}"))
    };
    assert!(find(bad_radius, "Collider")
        .to_string()
        .contains("Shape::Sphere::radius"));
    assert!(matches!(
        find(dynamic_plane, "Collider").error,
        impetus::Error::Unsupported { .. } | impetus::Error::InvalidInput { .. }
    ));
    find(child, "RigidBody");
    assert!(find(joint, "Joint").to_string().contains("Joint::body_b"));
    assert!(find(bad_friction, "Collider")
        .to_string()
        .contains("ShapeDef::friction"));
    find(bad_speed, "LinearVelocity");
    // The rest of the world steps on.
    assert!(physics(&app).body(parent).is_some() && physics(&app).body(child).is_none());
    assert_eq!(steps(&app), 2);
}

#[test]
fn spatial_queries_answer_with_entities() {
    let mut app = app(1);
    let floor = ground(&mut app);
    let a = app
        .world_mut()
        .spawn((
            RigidBody::Static,
            Collider::cuboid(0.5, 0.5, 0.5),
            Transform::from_xyz(0.0, 0.5, 0.0),
        ))
        .id();
    let b = app
        .world_mut()
        .spawn((
            RigidBody::Static,
            Collider::sphere(0.5),
            CollisionGroups::new(0b10, u64::MAX),
            Transform::from_xyz(3.0, 0.5, 0.0),
        ))
        .id();
    run_steps(&mut app, 1);
    let mut state = bevy::ecs::system::SystemState::<SpatialQuery>::new(app.world_mut());
    let query = state.get(app.world()).unwrap();
    let all = SpatialQueryFilter::default();
    let hit = query
        .cast_ray(Vec3::new(0.0, 10.0, 0.0), Vec3::NEG_Y, 100.0, &all)
        .unwrap()
        .unwrap();
    assert_eq!(hit.entity, a);
    assert!((hit.distance - 9.0).abs() < 1e-4 && (hit.point.y - 1.0).abs() < 1e-4);
    let past = query
        .cast_ray(
            Vec3::new(0.0, 10.0, 0.0),
            Vec3::NEG_Y,
            100.0,
            &all.clone().excluding(a),
        )
        .unwrap()
        .unwrap();
    assert_eq!(past.entity, floor);
    let through: Vec<Entity> = query
        .cast_ray_all(Vec3::new(0.0, 10.0, 0.0), Vec3::NEG_Y, 100.0, &all)
        .unwrap()
        .iter()
        .map(|h| h.entity)
        .collect();
    assert_eq!(through, vec![a, floor]);
    assert_eq!(
        query
            .overlap_point(Vec3::new(3.0, 0.5, 0.0), &all.clone().with_mask(0b10))
            .unwrap(),
        vec![b]
    );
    let mut near = query
        .overlap_shape(
            &Collider::sphere(2.0),
            Vec3::new(1.5, 1.0, 0.0),
            Quat::IDENTITY,
            &all,
        )
        .unwrap();
    near.sort();
    let mut expected = vec![floor, a, b];
    expected.sort();
    assert_eq!(near, expected);
    let cast = query
        .cast_shape(
            &Collider::sphere(0.25),
            Vec3::new(-5.0, 0.5, 0.0),
            Quat::IDENTITY,
            Vec3::new(10.0, 0.0, 0.0),
            &all.clone().with_mask(!1),
        )
        .unwrap()
        .unwrap();
    assert_eq!(cast.entity, b);
    assert!(
        query.cast_ray(Vec3::ZERO, Vec3::ZERO, 1.0, &all).is_err(),
        "a zero direction is an error"
    );
    assert!(
        query
            .overlap_aabb(Vec3::splat(-20.0), Vec3::splat(20.0), &all)
            .unwrap()
            .len()
            == 3
    );
}

/// A pile of boxes, a pendulum and a sensor, spawned in a fixed order.
fn scene(app: &mut App) {
    ground(app);
    for i in 0..60 {
        let (x, y, z) = (
            (i % 4) as f32 * 1.1 - 1.6,
            0.6 + (i / 16) as f32 * 1.05,
            ((i / 4) % 4) as f32 * 1.1 - 1.6,
        );
        app.world_mut().spawn((
            RigidBody::Dynamic,
            Collider::cuboid(0.5, 0.5, 0.5),
            Transform::from_xyz(x, y, z).with_rotation(Quat::from_rotation_y(0.01 * i as f32)),
        ));
    }
    let anchor = app
        .world_mut()
        .spawn((RigidBody::Static, Transform::from_xyz(6.0, 6.0, 0.0)))
        .id();
    let bob = app
        .world_mut()
        .spawn((
            RigidBody::Dynamic,
            Collider::capsule(0.5, 0.2),
            Transform::from_xyz(8.0, 6.0, 0.0),
        ))
        .id();
    app.world_mut()
        .spawn(Joint::ball(anchor, bob, Vec3::new(6.0, 6.0, 0.0)));
}

#[test]
fn two_apps_built_alike_step_alike() {
    let mut one = app(1);
    scene(&mut one);
    run_steps(&mut one, 300);
    let mut again = app(1);
    scene(&mut again);
    run_steps(&mut again, 300);
    // Two worker threads: the engine's results do not depend on the count.
    let mut two = app(2);
    scene(&mut two);
    run_steps(&mut two, 300);
    assert_eq!(hash(&one), hash(&again));
    assert_eq!(hash(&one), hash(&two));
    assert_ne!(hash(&one), 0);
}

#[test]
fn creation_order_does_not_depend_on_insertion_order() {
    // The same bodies inserted in reverse order (entities spawned first, components
    // inserted last to first) are created in entity order: the same hash.
    let build = |reverse: bool| {
        let mut app = app(1);
        let entities: Vec<Entity> = (0..20)
            .map(|_| app.world_mut().spawn_empty().id())
            .collect();
        let mut order: Vec<usize> = (0..20).collect();
        if reverse {
            order.reverse();
        }
        for i in order {
            let body = if i == 0 {
                (
                    RigidBody::Static,
                    Collider::half_space(Vec3::Y, 0.0),
                    Transform::default(),
                )
            } else {
                (
                    RigidBody::Dynamic,
                    Collider::sphere(0.3),
                    Transform::from_xyz(0.1 * i as f32, 0.5 * i as f32, 0.0),
                )
            };
            app.world_mut().entity_mut(entities[i]).insert(body);
        }
        run_steps(&mut app, 120);
        hash(&app)
    };
    assert_eq!(build(false), build(true));
}

#[test]
fn save_restore_continue_matches_an_uninterrupted_run() {
    let mut straight = app(1);
    scene(&mut straight);
    run_steps(&mut straight, 300);

    let mut app = app(1);
    scene(&mut app);
    run_steps(&mut app, 100);
    let snapshot = physics(&app).save_state();
    let saved_hash = hash(&app);
    run_steps(&mut app, 77);
    assert_ne!(hash(&app), saved_hash);
    app.world_mut()
        .resource_mut::<ImpetusWorld>()
        .restore_state(&snapshot)
        .unwrap();
    assert_eq!(hash(&app), saved_hash);
    assert_eq!(steps(&app), 100);
    run_steps(&mut app, 200);
    assert_eq!(hash(&app), hash(&straight));

    // The entities follow the restored bodies.
    let mut poses = app.world_mut().query::<(&Transform, &PhysicsBody)>();
    for (transform, body) in poses.iter(app.world()) {
        let Some(id) = body.id() else { continue };
        let engine = physics(&app).engine().body_position(id).unwrap();
        assert_eq!(transform.translation.to_array(), engine.to_array());
    }

    // A state refuses to restore into a world with other bodies.
    app.world_mut()
        .spawn((RigidBody::Dynamic, Collider::sphere(0.1)));
    run_steps(&mut app, 1);
    assert!(app
        .world_mut()
        .resource_mut::<ImpetusWorld>()
        .restore_state(&snapshot)
        .is_err());
}

#[test]
fn a_hanging_box_stays_at_its_anchor_distance() {
    let mut app = app(1);
    let anchor_point = Vec3::new(0.0, 6.0, 0.0);
    let hook = app
        .world_mut()
        .spawn((RigidBody::Static, Transform::from_translation(anchor_point)))
        .id();
    // Started off to the side: it swings, its centre 2 m from the anchor all along.
    let bob = app
        .world_mut()
        .spawn((
            RigidBody::Dynamic,
            Collider::cuboid(0.3, 0.3, 0.3),
            Transform::from_xyz(2.0, 6.0, 0.0),
        ))
        .id();
    app.world_mut().spawn(Joint::ball(hook, bob, anchor_point));
    // A hinge about z: a door-like swing in the x/y plane.
    let hinge_anchor = Vec3::new(5.0, 6.0, 0.0);
    let hinge_hook = app
        .world_mut()
        .spawn((RigidBody::Static, Transform::from_translation(hinge_anchor)))
        .id();
    let door = app
        .world_mut()
        .spawn((
            RigidBody::Dynamic,
            Collider::cuboid(0.3, 0.3, 0.3),
            Transform::from_xyz(6.5, 6.0, 0.0),
        ))
        .id();
    app.world_mut()
        .spawn(Joint::hinge(hinge_hook, door, hinge_anchor, Vec3::Z));
    let mut lowest: f32 = f32::INFINITY;
    for _ in 0..240 {
        run_steps(&mut app, 1);
        let d = translation(&app, bob).distance(anchor_point);
        assert!((d - 2.0).abs() < 0.02, "distance {d}");
        let h = translation(&app, door).distance(hinge_anchor);
        assert!((h - 1.5).abs() < 0.02, "hinge distance {h}");
        assert!(translation(&app, door).z.abs() < 0.01);
        lowest = lowest.min(translation(&app, bob).y);
    }
    assert!(lowest < 4.2, "it swung down: lowest y {lowest}");
}

#[test]
fn velocities_forces_impulses_targets_and_teleports() {
    let plugin = ImpetusPlugin::default().with_world_def(impetus::WorldDef {
        gravity: impetus::Vec3::ZERO,
        worker_count: 1,
        ..Default::default()
    });
    let mut app = app_with(plugin);
    // 1 kg: a 0.1 m sphere at density 1 / (4/3 π 0.001).
    let mass = 1.0;
    let pushed = app
        .world_mut()
        .spawn((
            RigidBody::Dynamic,
            Collider::sphere(0.1),
            Mass(mass),
            LinearVelocity::default(),
        ))
        .id();
    let kicked = app
        .world_mut()
        .spawn((
            RigidBody::Dynamic,
            Collider::sphere(0.1),
            Mass(2.0),
            LinearVelocity::default(),
            Transform::from_xyz(5.0, 0.0, 0.0),
        ))
        .id();
    let platform = app
        .world_mut()
        .spawn((
            RigidBody::Kinematic,
            Collider::cuboid(1.0, 0.1, 1.0),
            Transform::from_xyz(-5.0, 0.0, 0.0),
        ))
        .id();
    run_steps(&mut app, 1);
    app.world_mut()
        .entity_mut(pushed)
        .insert(ExternalForce::persistent(Vec3::new(6.0, 0.0, 0.0)));
    app.world_mut().entity_mut(kicked).insert(ExternalImpulse {
        linear: Vec3::new(0.0, 4.0, 0.0),
        angular: Vec3::ZERO,
    });
    app.world_mut()
        .entity_mut(platform)
        .insert(KinematicTarget {
            translation: Vec3::new(-5.0, 1.0, 0.0),
            rotation: Quat::IDENTITY,
        });
    run_steps(&mut app, 60);
    let v = app.world().get::<LinearVelocity>(pushed).unwrap().0;
    assert!((v.x - 6.0).abs() < 1e-3, "a = F/m for 1 s: {v}");
    let v = app.world().get::<LinearVelocity>(kicked).unwrap().0;
    assert!((v.y - 2.0).abs() < 1e-4, "Δv = J/m once: {v}");
    assert!((translation(&app, platform) - Vec3::new(-5.0, 1.0, 0.0)).length() < 1e-5);

    // A velocity the user sets reaches the body.
    app.world_mut().get_mut::<LinearVelocity>(kicked).unwrap().0 = Vec3::new(0.0, 0.0, -1.0);
    run_steps(&mut app, 1);
    let id = physics(&app).body(kicked).unwrap();
    assert_eq!(
        physics(&app)
            .engine()
            .body_linear_velocity(id)
            .unwrap()
            .to_array(),
        [0.0, 0.0, -1.0]
    );

    // A transform the user sets teleports the body.
    app.world_mut()
        .get_mut::<Transform>(kicked)
        .unwrap()
        .translation = Vec3::new(0.0, 50.0, 0.0);
    run_steps(&mut app, 1);
    let y = translation(&app, kicked).y;
    assert!((y - 50.0).abs() < 0.1, "teleported: {y}");
}

#[test]
fn interpolated_transforms_lie_between_the_last_two_steps() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, ImpetusPlugin::default().with_workers(1)))
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        // Half a step a frame: every other frame steps, the others show the midpoint.
        .insert_resource(TimeUpdateStrategy::ManualDuration(
            Time::<Fixed>::from_hz(60.0).timestep() / 2,
        ));
    let ball = app
        .world_mut()
        .spawn((
            RigidBody::Dynamic,
            Collider::sphere(0.5),
            TransformInterpolation,
            Transform::from_xyz(0.0, 10.0, 0.0),
        ))
        .id();
    let plain = app
        .world_mut()
        .spawn((
            RigidBody::Dynamic,
            Collider::sphere(0.5),
            Transform::from_xyz(3.0, 10.0, 0.0),
        ))
        .id();
    let mut checked = 0;
    for _ in 0..40 {
        app.update();
        let alpha = app.world().resource::<Time<Fixed>>().overstep_fraction();
        let body = *app.world().get::<PhysicsBody>(ball).unwrap();
        let y = translation(&app, ball).y;
        if steps(&app) >= 2 {
            // Not interpolated: on the last step's pose.
            let plain_y = translation(&app, plain).y;
            assert_eq!(
                plain_y,
                app.world().get::<PhysicsBody>(plain).unwrap().pose().0.y
            );
            // Falling: the last step's pose is the lowest; the interpolated one is at or
            // above it, strictly between the two steps once the frame is past a step.
            let after = body.pose().0.y;
            assert!(y >= after - 1e-6, "not ahead of the step: {y} vs {after}");
            if alpha > 0.25 && alpha < 0.75 {
                assert!(
                    y > after + 1e-4,
                    "between the steps at α = {alpha}: {y} vs {after}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 5, "{checked} frames between steps");
}

#[test]
fn messages_of_a_step_are_readable_in_update() {
    let mut app = app(1);
    let floor = ground(&mut app);
    let ball = app
        .world_mut()
        .spawn((
            RigidBody::Dynamic,
            Collider::sphere(0.5),
            Transform::from_xyz(0.0, 0.52, 0.0),
        ))
        .id();
    run_steps(&mut app, 1);
    let started = messages::<CollisionStarted>(&app);
    assert_eq!(started.len(), 1);
    assert!([started[0].entity_a, started[0].entity_b].contains(&floor));
    assert!([started[0].entity_a, started[0].entity_b].contains(&ball));
}
