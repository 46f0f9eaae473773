//! Collision filtering: category/mask bits both ways, groups that always or never
//! collide, filters changed at runtime, and the host's pair filter callback.

mod common;

use common::DT;
use impetus::{BodyDef, BodyId, Filter, ShapeDef, ShapeId, Vec3, World};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn world() -> World {
    let mut w = common::world_from(common::def(1));
    common::ground_plane(&mut w);
    w
}

fn cube(w: &mut World, y: f32, filter: Filter) -> (BodyId, ShapeId) {
    let b = w
        .create_body(&BodyDef {
            position: Vec3::new(0.0, y, 0.0),
            ..Default::default()
        })
        .unwrap();
    let s = w
        .add_shape(b, &ShapeDef::cuboid(Vec3::splat(0.5)).with_filter(filter))
        .unwrap();
    (b, s)
}

fn run(w: &mut World, steps: usize) {
    for _ in 0..steps {
        w.step(DT).unwrap();
    }
}

fn filter(category: u64, mask: u64, group: i32) -> Filter {
    Filter {
        category,
        mask,
        group,
    }
}

#[test]
fn filters_follow_categories_masks_and_groups() {
    let all = Filter::default();
    assert!(all.collides_with(&all));
    // Both ways: a's mask must hold b's category and b's mask a's.
    let a = filter(0b01, 0b10, 0);
    let b = filter(0b10, 0b01, 0);
    let c = filter(0b10, 0b00, 0);
    assert!(a.collides_with(&b) && b.collides_with(&a));
    assert!(!a.collides_with(&c) && !c.collides_with(&a));
    assert!(
        !a.collides_with(&a),
        "a's mask does not hold its own category"
    );
    // A shared positive group always collides, a shared negative group never; different
    // groups fall back to the bits.
    let p = filter(0b01, 0, 3);
    assert!(p.collides_with(&p));
    let n = filter(0b01, u64::MAX, -3);
    assert!(!n.collides_with(&n));
    assert!(n.collides_with(&filter(0b01, u64::MAX, -4)));
    assert!(!p.collides_with(&filter(0b01, u64::MAX, 3 + 1)));
}

#[test]
fn shapes_that_do_not_collide_pass_through_each_other() {
    let mut w = world();
    // The lower box collides with everything; the upper one only with the ground
    // (category 1), and the lower one is category 2.
    let (_, lower) = cube(&mut w, 0.5, filter(2, u64::MAX, 0));
    let (upper, _) = cube(&mut w, 2.0, filter(1, 1, 0));
    run(&mut w, 120);
    let y = w.body_position(upper).unwrap().y;
    assert!(
        (y - 0.5).abs() < 0.02,
        "the upper box fell through to the ground: {y}"
    );
    // With the lower box in the upper one's mask, a third box stacks on it.
    w.set_shape_filter(lower, filter(1, u64::MAX, 0)).unwrap();
    let (third, _) = cube(&mut w, 3.0, filter(1, 1, 0));
    run(&mut w, 120);
    let y = w.body_position(third).unwrap().y;
    assert!(
        (y - 1.5).abs() < 0.02,
        "the third box rests on the lower one: {y}"
    );
}

#[test]
fn negative_groups_never_collide_positive_groups_always_do() {
    let mut w = world();
    // Same negative group: the upper box falls through the lower one.
    let (_, _) = cube(&mut w, 0.5, filter(1, u64::MAX, -1));
    let (upper, _) = cube(&mut w, 2.0, filter(1, u64::MAX, -1));
    run(&mut w, 120);
    assert!((w.body_position(upper).unwrap().y - 0.5).abs() < 0.02);
    // Same positive group beats masks that exclude each other.
    let mut w = world();
    let (_, _) = cube(&mut w, 0.5, filter(2, 1, 7));
    let (upper, _) = cube(&mut w, 1.6, filter(2, 1, 7));
    run(&mut w, 120);
    let y = w.body_position(upper).unwrap().y;
    assert!((y - 1.5).abs() < 0.02, "stacked by the group: {y}");
}

#[test]
fn changing_a_filter_ends_the_contact_and_the_box_falls() {
    let mut w = world();
    let (_, lower) = cube(&mut w, 0.5, filter(2, u64::MAX, 0));
    let (upper, upper_shape) = cube(&mut w, 1.5, Filter::default());
    run(&mut w, 60);
    assert!((w.body_position(upper).unwrap().y - 1.5).abs() < 0.02);
    // Now the upper box collides with category 1 only (the ground), not the lower box.
    w.set_shape_filter(upper_shape, filter(1, 1, 0)).unwrap();
    assert_eq!(w.shape_filter(upper_shape).unwrap(), filter(1, 1, 0));
    w.step(DT).unwrap();
    // The touching contact ended (one record), and the box sinks through.
    let ended = w
        .contact_end_events()
        .iter()
        .filter(|e| {
            (e.shape_a == lower && e.shape_b == upper_shape)
                || (e.shape_a == upper_shape && e.shape_b == lower)
        })
        .count();
    assert_eq!(ended, 1);
    run(&mut w, 120);
    assert!((w.body_position(upper).unwrap().y - 0.5).abs() < 0.02);
}

#[test]
fn the_pair_filter_callback_decides_for_new_pairs() {
    let mut w = world();
    let (blocked, blocked_shape) = cube(&mut w, 1.0, Filter::default());
    let (free, _) = cube(&mut w, 1.0, Filter::default());
    w.set_body_transform(free, Vec3::new(3.0, 1.0, 0.0), Default::default())
        .unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    w.set_pair_filter(Some(Box::new(move |a: ShapeId, b: ShapeId| {
        counter.fetch_add(1, Ordering::Relaxed);
        a != blocked_shape && b != blocked_shape
    })));
    run(&mut w, 120);
    assert!(
        calls.load(Ordering::Relaxed) >= 2,
        "asked for both boxes' pairs"
    );
    let y = w.body_position(free).unwrap().y;
    assert!((y - 0.5).abs() < 0.02, "the free box rests: {y}");
    assert!(
        w.body_position(blocked).unwrap().y < -1.0,
        "the blocked box fell through the ground"
    );
    // Cleared: a new box on the ground rests again.
    w.set_pair_filter(None);
    let (again, _) = cube(&mut w, 1.0, Filter::default());
    w.set_body_transform(again, Vec3::new(-3.0, 1.0, 0.0), Default::default())
        .unwrap();
    run(&mut w, 120);
    assert!((w.body_position(again).unwrap().y - 0.5).abs() < 0.02);
}

#[test]
fn a_stale_shape_id_is_an_error() {
    let mut w = world();
    let (b, s) = cube(&mut w, 1.0, Filter::default());
    w.remove_body(b).unwrap();
    assert!(w.set_shape_filter(s, Filter::default()).is_err());
    assert!(w.shape_filter(s).is_err());
}
