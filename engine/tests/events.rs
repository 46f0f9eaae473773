//! Contact begin/end records: when they fire, what they name, and removal.

mod common;

use impetus::{BodyDef, ShapeDef, Vec3, World};

fn world_with_ground() -> (World, impetus::ShapeId) {
    let mut w = common::world_from(common::def(1));
    let gs = common::ground_plane(&mut w);
    (w, gs)
}

#[test]
fn a_dropped_ball_begins_touching_once_and_ends_when_removed() {
    let (mut w, ground) = world_with_ground();
    let ball = w
        .create_body(&BodyDef {
            position: Vec3::new(0.0, 2.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    let shape = w.add_shape(ball, &ShapeDef::sphere(0.5)).unwrap();
    let mut begins = Vec::new();
    for step in 0..120 {
        w.step(1.0 / 60.0).unwrap();
        assert!(
            w.contact_end_events().is_empty(),
            "step {step}: a resting ball never ends"
        );
        for r in w.contact_begin_events() {
            begins.push((step, *r));
        }
    }
    assert_eq!(begins.len(), 1, "{begins:?}");
    let (step, r) = begins[0];
    // Free fall from 1.5 m above contact takes sqrt(2 * 1.5 / 9.81) = 0.553 s = 33 steps;
    // the record comes with the first (speculative) point, a step or two before impact.
    assert!((29..=34).contains(&step), "began at step {step}");
    // Shapes are ordered by kind (sphere before plane), as in the contact itself.
    assert_eq!((r.shape_a, r.shape_b), (shape, ground));
    assert_eq!(r.body_a, ball);
    w.remove_body(ball).unwrap();
    w.step(1.0 / 60.0).unwrap();
    assert_eq!(w.contact_end_events().len(), 1);
    let end = w.contact_end_events()[0];
    assert_eq!(
        end.body_a, ball,
        "the record names the removed (now stale) body"
    );
    assert!(w.body_position(end.body_a).is_err());
    w.step(1.0 / 60.0).unwrap();
    assert!(w.contact_end_events().is_empty(), "records last one step");
}

#[test]
fn a_bouncing_ball_alternates_begin_and_end() {
    let (mut w, _) = world_with_ground();
    let ball = w
        .create_body(&BodyDef {
            position: Vec3::new(0.0, 3.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    w.add_shape(ball, &ShapeDef::sphere(0.25).with_restitution(0.9))
        .unwrap();
    let mut log = Vec::new();
    for _ in 0..240 {
        w.step(1.0 / 60.0).unwrap();
        log.extend(w.contact_begin_events().iter().map(|_| true));
        log.extend(w.contact_end_events().iter().map(|_| false));
    }
    assert!(log.len() >= 4, "at least two bounces: {log:?}");
    for (k, &begin) in log.iter().enumerate() {
        assert_eq!(begin, k % 2 == 0, "records alternate: {log:?}");
    }
}
