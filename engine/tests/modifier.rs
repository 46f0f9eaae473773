//! The contact modifier: a conveyor belt carries a box at the belt's speed, friction and
//! restitution set per contact act as set, only shapes that ask are shown to it, and
//! clearing it restores the mixed values.

mod common;

use common::DT;
use impetus::{
    BodyDef, BodyId, BodyType, ContactInfo, ContactSettings, ShapeDef, ShapeId, Vec3, World,
};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

const G: f32 = 10.0;

fn world() -> World {
    common::world(Vec3::new(0.0, -G, 0.0), 1)
}

/// A static slab with its top at y = 0.
fn slab(w: &mut World, def: ShapeDef) -> ShapeId {
    let b = w
        .create_body(&BodyDef {
            body_type: BodyType::Static,
            position: Vec3::new(0.0, -0.5, 0.0),
            ..Default::default()
        })
        .unwrap();
    w.add_shape(b, &def).unwrap()
}

fn cube(w: &mut World, position: Vec3, velocity: Vec3) -> BodyId {
    let b = w
        .create_body(&BodyDef {
            position,
            linear_velocity: velocity,
            ..Default::default()
        })
        .unwrap();
    w.add_shape(b, &ShapeDef::cuboid(Vec3::splat(0.25)))
        .unwrap();
    b
}

#[test]
fn a_conveyor_belt_carries_a_box_at_its_speed() {
    let mut w = world();
    let belt = slab(
        &mut w,
        ShapeDef {
            enable_contact_modifier: true,
            ..ShapeDef::cuboid(Vec3::new(20.0, 0.5, 2.0))
        },
    );
    let u = Vec3::new(1.5, 0.0, 0.0);
    w.set_contact_modifier(Some(Box::new(
        move |c: &ContactInfo, s: &mut ContactSettings| {
            // The belt's surface moves at u: B relative to A is u when the belt is A.
            s.tangent_velocity = if c.touch.shape_a == belt { u } else { -u };
        },
    )));
    let b = cube(&mut w, Vec3::new(-10.0, 0.25, 0.0), Vec3::ZERO);
    // Friction 0.6 accelerates it at μ g = 6 m/s²: at belt speed after 0.25 s.
    for _ in 0..120 {
        w.step(DT).unwrap();
    }
    let v = w.body_linear_velocity(b).unwrap();
    assert!((v.x - u.x).abs() < 0.02 * u.x, "carried at {v}, belt {u}");
    assert!(v.z.abs() < 1e-3 && v.y.abs() < 1e-2);
    // Position: 0.25 s accelerating (covers u² / 2μg) then at u.
    let expected = -10.0 + u.x * u.x / (2.0 * 0.6 * G) + u.x * (2.0 - u.x / (0.6 * G));
    let x = w.body_position(b).unwrap().x;
    assert!((x - expected).abs() < 0.05, "x {x}, closed form {expected}");
}

#[test]
fn friction_and_restitution_set_per_contact_act() {
    let mut w = world();
    let floor = slab(
        &mut w,
        ShapeDef {
            enable_contact_modifier: true,
            ..ShapeDef::cuboid(Vec3::new(20.0, 0.5, 20.0))
        },
    );
    let ice = cube(&mut w, Vec3::new(0.0, 0.25, 0.0), Vec3::new(2.0, 0.0, 0.0));
    let ball = w
        .create_body(&BodyDef {
            position: Vec3::new(5.0, 2.25, 5.0),
            ..Default::default()
        })
        .unwrap();
    let ball_shape = w.add_shape(ball, &ShapeDef::sphere(0.25)).unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    w.set_contact_modifier(Some(Box::new(
        move |c: &ContactInfo, s: &mut ContactSettings| {
            counter.fetch_add(1, Ordering::Relaxed);
            assert!(c.touch.shape_a == floor || c.touch.shape_b == floor);
            if c.touch.shape_a == ball_shape || c.touch.shape_b == ball_shape {
                s.restitution = 1.0;
            } else {
                s.friction = 0.0;
            }
        },
    )));
    for _ in 0..60 {
        w.step(DT).unwrap();
    }
    assert!(calls.load(Ordering::Relaxed) > 60);
    // On ice the box keeps its speed; the ball bounces back near its drop height.
    let v = w.body_linear_velocity(ice).unwrap().x;
    assert!((v - 2.0).abs() < 0.01, "sliding at {v}");
    let mut top = 0.0f32;
    for _ in 0..90 {
        w.step(DT).unwrap();
        top = top.max(w.body_position(ball).unwrap().y);
    }
    assert!(
        top > 2.0,
        "the ball bounced back to {top} m (dropped from 2.25)"
    );
    // Cleared: the mixed friction (0.6) stops the box.
    w.set_contact_modifier(None);
    for _ in 0..120 {
        w.step(DT).unwrap();
    }
    assert!(w.body_linear_velocity(ice).unwrap().length() < 0.01);
}

#[test]
fn only_shapes_that_ask_are_shown_to_the_modifier() {
    let mut w = world();
    slab(&mut w, ShapeDef::cuboid(Vec3::new(20.0, 0.5, 20.0)));
    cube(&mut w, Vec3::new(0.0, 0.25, 0.0), Vec3::ZERO);
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    w.set_contact_modifier(Some(Box::new(
        move |_: &ContactInfo, s: &mut ContactSettings| {
            counter.fetch_add(1, Ordering::Relaxed);
            // Out-of-range values would be ignored anyway.
            s.friction = f32::NAN;
            s.restitution = 2.0;
        },
    )));
    for _ in 0..30 {
        w.step(DT).unwrap();
    }
    assert_eq!(calls.load(Ordering::Relaxed), 0);
}
