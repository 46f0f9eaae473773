//! Queries and the world around them: current poses before the first step and after
//! moves, queries from several threads at once, shape categories and sensors.

mod common;

use common::query::{body, pile, pile_ray, world};
use common::Rng;
use impetus::{BodyType, Quat, QueryFilter, ShapeDef, Vec3, World, WorldDef};

#[test]
fn queries_before_the_first_step_and_after_moves_see_current_poses() {
    let mut w = world();
    let b = body(
        &mut w,
        BodyType::Dynamic,
        Vec3::new(10.0, 0.0, 0.0),
        Quat::IDENTITY,
    );
    let s = w.add_shape(b, &ShapeDef::sphere(1.0)).unwrap();
    let f = QueryFilter::default();
    let hit = w.cast_ray(Vec3::ZERO, Vec3::X, 20.0, &f).unwrap().unwrap();
    assert_eq!((hit.shape, hit.distance), (s, 9.0));
    w.step(1.0 / 60.0).unwrap();
    w.set_body_transform(b, Vec3::new(0.0, 30.0, 0.0), Quat::IDENTITY)
        .unwrap();
    assert!(w.cast_ray(Vec3::ZERO, Vec3::X, 20.0, &f).unwrap().is_none());
    let hit = w.cast_ray(Vec3::ZERO, Vec3::Y, 50.0, &f).unwrap().unwrap();
    assert_eq!((hit.shape, hit.distance), (s, 29.0));
}

#[test]
fn world_is_sync_and_queries_run_from_several_threads() {
    fn sync<T: Sync>() {}
    sync::<World>();
    let w = pile();
    let one = |seed| {
        // A filter per thread: its predicate need not be `Sync`.
        let f = QueryFilter::default();
        let mut rng = Rng::new(seed);
        (0..50)
            .map(|_| {
                let (o, d, max) = pile_ray(&mut rng);
                w.cast_ray(o, d, max, &f).unwrap()
            })
            .collect::<Vec<_>>()
    };
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| one(5));
        let b = s.spawn(|| one(5));
        (a.join().unwrap(), b.join().unwrap())
    });
    assert_eq!(a, b);
    assert_eq!(a, one(5));
}

/// Queries see a shape through its filter's category, and never see sensors.
#[test]
fn queries_read_the_shape_categories_and_skip_sensors() {
    let mut w = World::new(WorldDef {
        worker_count: 1,
        ..Default::default()
    })
    .unwrap();
    let near = body(
        &mut w,
        BodyType::Static,
        Vec3::new(2.0, 0.0, 0.0),
        Quat::IDENTITY,
    );
    w.add_shape(
        near,
        &ShapeDef::sphere(0.5).with_filter(impetus::Filter {
            category: 2,
            ..Default::default()
        }),
    )
    .unwrap();
    let sensor = body(
        &mut w,
        BodyType::Static,
        Vec3::new(4.0, 0.0, 0.0),
        Quat::IDENTITY,
    );
    w.add_shape(sensor, &ShapeDef::sphere(0.5).sensor())
        .unwrap();
    let far = body(
        &mut w,
        BodyType::Static,
        Vec3::new(6.0, 0.0, 0.0),
        Quat::IDENTITY,
    );
    w.add_shape(far, &ShapeDef::sphere(0.5)).unwrap();
    let ray = |mask: u64| {
        w.cast_ray(
            Vec3::ZERO,
            Vec3::X,
            10.0,
            &QueryFilter::default().with_mask(mask),
        )
        .unwrap()
        .map(|h| h.body)
    };
    assert_eq!(ray(u64::MAX), Some(near));
    assert_eq!(
        ray(1),
        Some(far),
        "category 2 masked out, the sensor skipped"
    );
    assert_eq!(ray(2), Some(near));
    assert!(w
        .overlap_point(Vec3::new(4.0, 0.0, 0.0), &QueryFilter::default())
        .unwrap()
        .is_empty());
}
