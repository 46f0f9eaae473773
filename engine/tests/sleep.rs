//! Sleeping islands checked as behaviour: resting piles fall asleep and cost nothing,
//! a touch wakes only the touched island, the API wakes what it changes, islands split
//! when their bodies part, sleeping does not change a small stack's outcome against
//! sleep disabled, and the result does not depend on the thread count.

mod common;

use common::DT;
use impetus::{
    BodyDef, BodyId, BodyType, JointDef, JointKind, Quat, ShapeDef, Transform, Vec3, World,
    WorldDef,
};

fn world(threads: usize, sleep: bool) -> World {
    let mut w = common::world_from(WorldDef {
        enable_sleep: sleep,
        ..common::def(threads)
    });
    common::ground_plane(&mut w);
    w
}

fn cube(w: &mut World, position: Vec3, half: f32) -> BodyId {
    let b = w
        .create_body(&BodyDef {
            position,
            ..Default::default()
        })
        .unwrap();
    w.add_shape(b, &ShapeDef::cuboid(Vec3::splat(half)))
        .unwrap();
    b
}

/// A 3 x 3 x 3 block of unit boxes resting on the ground around (x, z).
fn pile(w: &mut World, x: f32, z: f32) -> Vec<BodyId> {
    let mut ids = Vec::new();
    for k in 0..3 {
        for i in 0..3 {
            for j in 0..3 {
                let p = Vec3::new(x + i as f32 - 1.0, 0.5 + k as f32, z + j as f32 - 1.0);
                ids.push(cube(w, p, 0.5));
            }
        }
    }
    ids
}

fn awake(w: &World, ids: &[BodyId]) -> usize {
    ids.iter().filter(|&&b| w.body_is_awake(b).unwrap()).count()
}

fn step_until(w: &mut World, max: usize, done: impl Fn(&World) -> bool) -> Option<usize> {
    for i in 0..max {
        w.step(DT).unwrap();
        if done(w) {
            return Some(i + 1);
        }
    }
    None
}

#[test]
fn resting_piles_fall_asleep_and_a_touch_wakes_only_its_island() {
    let mut w = world(1, true);
    let a = pile(&mut w, -10.0, 0.0);
    let b = pile(&mut w, 10.0, 0.0);
    let all: Vec<BodyId> = a.iter().chain(&b).copied().collect();
    let slept = step_until(&mut w, 600, |w| awake(w, &all) == 0)
        .expect("both piles fall asleep within 10 s");
    assert!(
        slept >= 30,
        "they rest time_to_sleep first: slept at step {slept}"
    );
    // Asleep, nothing is solved and nothing moves.
    let before: Vec<Vec3> = all.iter().map(|&b| w.body_position(b).unwrap()).collect();
    for _ in 0..60 {
        w.step(DT).unwrap();
        assert_eq!(w.profile().awake_bodies, 0);
        assert_eq!(w.profile().constraints, 0);
    }
    let after: Vec<Vec3> = all.iter().map(|&b| w.body_position(b).unwrap()).collect();
    assert_eq!(before, after);
    assert_eq!(w.sleep_counts().1, all.len());

    // A box dropped onto pile A wakes pile A, not pile B.
    let dropped = cube(&mut w, Vec3::new(-10.0, 4.5, 0.0), 0.5);
    let touched = step_until(&mut w, 120, |w| awake(w, &a) > 0).expect("the drop wakes pile A");
    assert!(
        touched > 10,
        "pile A woke at step {touched}, before the box reached it"
    );
    assert_eq!(awake(&w, &a), a.len(), "the whole island wakes");
    assert_eq!(awake(&w, &b), 0, "pile B stays asleep");
    assert!(w.body_is_awake(dropped).unwrap());
    // And pile A with the new box falls asleep again.
    let mut with_box = a.clone();
    with_box.push(dropped);
    step_until(&mut w, 600, |w| awake(w, &with_box) == 0).expect("pile A sleeps again");
    assert!((w.body_position(dropped).unwrap().y - 3.5).abs() < 0.05);
}

#[test]
fn the_api_wakes_what_it_changes() {
    let mut w = world(1, true);
    let bottom = cube(&mut w, Vec3::new(0.0, 0.5, 0.0), 0.5);
    let top = cube(&mut w, Vec3::new(0.0, 1.5, 0.0), 0.5);
    let other = cube(&mut w, Vec3::new(5.0, 0.5, 0.0), 0.5);
    let all = [bottom, top, other];
    step_until(&mut w, 600, |w| awake(w, &all) == 0).expect("all asleep");

    // A velocity wakes the body's island (the stack), not the lone box.
    w.set_body_linear_velocity(top, Vec3::new(0.0, 0.0, 0.01))
        .unwrap();
    assert!(w.body_is_awake(bottom).unwrap() && w.body_is_awake(top).unwrap());
    assert!(!w.body_is_awake(other).unwrap());
    // set_awake(false) puts the island to sleep at once, and stops it.
    w.set_body_awake(bottom, false).unwrap();
    assert_eq!(awake(&w, &all), 0);
    assert_eq!(w.body_linear_velocity(top).unwrap(), Vec3::ZERO);
    // Forces, impulses and poses wake.
    w.apply_force_to_center(other, Vec3::X).unwrap();
    assert!(w.body_is_awake(other).unwrap());
    w.set_body_awake(other, false).unwrap();
    w.apply_linear_impulse(other, Vec3::X * 0.001, w.body_position(other).unwrap())
        .unwrap();
    assert!(w.body_is_awake(other).unwrap());
    step_until(&mut w, 600, |w| awake(w, &all) == 0).expect("asleep again");

    // Removing the bottom box wakes the top one, which falls to the ground.
    w.remove_body(bottom).unwrap();
    assert!(w.body_is_awake(top).unwrap());
    for _ in 0..90 {
        w.step(DT).unwrap();
    }
    let y = w.body_position(top).unwrap().y;
    assert!(
        (y - 0.5).abs() < 0.02,
        "the top box fell to the ground: y = {y}"
    );

    // A joint to a sleeping body wakes it.
    step_until(&mut w, 600, |w| {
        !w.body_is_awake(top).unwrap() && !w.body_is_awake(other).unwrap()
    })
    .expect("asleep again");
    let (xa, xb) = (
        w.body_transform(top).unwrap(),
        w.body_transform(other).unwrap(),
    );
    w.create_joint(&JointDef::at_world(
        JointKind::Ball,
        top,
        &xa,
        other,
        &xb,
        Vec3::new(2.5, 0.5, 0.0),
        Vec3::Z,
    ))
    .unwrap();
    assert!(w.body_is_awake(top).unwrap() && w.body_is_awake(other).unwrap());
}

#[test]
fn an_island_splits_when_its_bodies_part() {
    let mut w = world(1, true);
    let bottom = cube(&mut w, Vec3::new(0.0, 0.5, 0.0), 0.5);
    let top = cube(&mut w, Vec3::new(0.0, 1.5, 0.0), 0.5);
    let islands = w.sleep_counts().0;
    w.step(DT).unwrap();
    w.step(DT).unwrap();
    assert_eq!(w.sleep_counts().0, islands - 1, "the stack is one island");
    // Slide the top box off onto the ground beside: the contact ends, and the two boxes
    // come to rest apart.
    w.set_body_transform(top, Vec3::new(3.0, 0.5, 0.0), Quat::IDENTITY)
        .unwrap();
    step_until(&mut w, 600, |w| {
        !w.body_is_awake(top).unwrap() && !w.body_is_awake(bottom).unwrap()
    })
    .expect("both asleep");
    assert_eq!(w.sleep_counts().0, islands, "split into one island each");
    // Now a touch on one does not wake the other.
    w.set_body_linear_velocity(top, Vec3::new(0.0, 0.0, 0.1))
        .unwrap();
    assert!(w.body_is_awake(top).unwrap() && !w.body_is_awake(bottom).unwrap());
}

#[test]
fn bodies_that_may_not_sleep_keep_their_island_awake() {
    let mut w = world(1, true);
    let bottom = cube(&mut w, Vec3::new(0.0, 0.5, 0.0), 0.5);
    let top = w
        .create_body(&BodyDef {
            position: Vec3::new(0.0, 1.5, 0.0),
            can_sleep: false,
            ..Default::default()
        })
        .unwrap();
    w.add_shape(top, &ShapeDef::cuboid(Vec3::splat(0.5)))
        .unwrap();
    let lone = cube(&mut w, Vec3::new(4.0, 0.5, 0.0), 0.5);
    for _ in 0..300 {
        w.step(DT).unwrap();
    }
    assert!(w.body_is_awake(top).unwrap() && w.body_is_awake(bottom).unwrap());
    assert!(!w.body_is_awake(lone).unwrap());
    // A per-body threshold above the resting speed lets a slowly turning body sleep.
    let spinner = w
        .create_body(&BodyDef {
            position: Vec3::new(-4.0, 3.0, 0.0),
            gravity_scale: 0.0,
            angular_velocity: Vec3::Y * 0.2,
            sleep_threshold: Some(0.5),
            ..Default::default()
        })
        .unwrap();
    w.add_shape(spinner, &ShapeDef::sphere(0.5)).unwrap();
    step_until(&mut w, 120, |w| !w.body_is_awake(spinner).unwrap()).expect("the spinner sleeps");
    assert_eq!(w.body_angular_velocity(spinner).unwrap(), Vec3::ZERO);
}

#[test]
fn a_moving_kinematic_body_keeps_what_it_carries_awake() {
    let mut w = world(1, true);
    let platform = w
        .create_body(&BodyDef {
            body_type: BodyType::Kinematic,
            position: Vec3::new(0.0, 1.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    w.add_shape(platform, &ShapeDef::cuboid(Vec3::new(2.0, 0.1, 2.0)))
        .unwrap();
    let rider = cube(&mut w, Vec3::new(0.0, 1.35, 0.0), 0.25);
    step_until(&mut w, 600, |w| !w.body_is_awake(rider).unwrap())
        .expect("at rest on a still platform");
    // The platform starts to move slowly (slower than the sleep threshold): the rider
    // wakes and is carried along.
    w.set_body_linear_velocity(platform, Vec3::new(0.02, 0.0, 0.0))
        .unwrap();
    for _ in 0..240 {
        w.step(DT).unwrap();
        assert!(w.body_is_awake(rider).unwrap());
    }
    let x = w.body_position(rider).unwrap().x;
    assert!((x - 0.08).abs() < 0.01, "carried 8 cm in 4 s: x = {x}");
    // It stops: the rider sleeps again.
    w.set_body_linear_velocity(platform, Vec3::ZERO).unwrap();
    step_until(&mut w, 600, |w| !w.body_is_awake(rider).unwrap()).expect("asleep once stopped");
}

/// A stack with sleep on and off: positions agree within solver tolerance before, while
/// and after the stack sleeps, and after both are woken by the same push.
#[test]
fn sleeping_does_not_change_a_small_stack() {
    let run = |sleep: bool| {
        let mut w = world(1, sleep);
        let ids: Vec<BodyId> = (0..5)
            .map(|k| cube(&mut w, Vec3::new(0.0, 0.5 + k as f32, 0.0), 0.5))
            .collect();
        let mut poses = Vec::new();
        for i in 0..480 {
            if i == 240 {
                // A push of 1 m/s on the top box: it slides on the one below.
                let top = ids[4];
                let (p, m) = (
                    w.body_position(top).unwrap(),
                    w.body_mass_properties(top).unwrap().mass,
                );
                w.apply_linear_impulse(top, Vec3::new(m, 0.0, 0.0), p)
                    .unwrap();
            }
            w.step(DT).unwrap();
            if i % 60 == 59 {
                poses.push(
                    ids.iter()
                        .map(|&b| w.body_transform(b).unwrap())
                        .collect::<Vec<Transform>>(),
                );
            }
        }
        (poses, w.body_is_awake(ids[0]).unwrap())
    };
    let (on, _) = run(true);
    let (off, _) = run(false);
    let mut worst = 0.0f32;
    for (a, b) in on.iter().zip(&off) {
        for (x, y) in a.iter().zip(b) {
            worst = worst.max((x.p - y.p).length());
            worst = worst.max(x.q.angle_between(y.q) * 0.5);
        }
    }
    assert!(worst < 2.0e-3, "sleep on vs off differ by {worst} m");
}

#[test]
fn sleeping_is_deterministic_across_thread_counts() {
    let run = |threads: usize| {
        let mut w = world(threads, true);
        pile(&mut w, -3.0, 0.0);
        pile(&mut w, 3.0, 0.0);
        for k in 0..6 {
            cube(
                &mut w,
                Vec3::new(-3.0 + k as f32 * 1.2, 6.0 + k as f32, 0.3),
                0.4,
            );
        }
        let mut trace = Vec::new();
        for _ in 0..400 {
            w.step(DT).unwrap();
            trace.push(w.sleep_counts());
        }
        (w.state_hash(), trace)
    };
    let one = run(1);
    assert!(one.1.last().unwrap().1 > 0, "something fell asleep");
    assert_eq!(one, run(2));
    assert_eq!(one, run(4));
}
