//! Kinematic bodies driven by `set_target_pose`: they land on the target exactly, stop
//! without a new target, and carry or push dynamic bodies.

mod common;

use common::DT;
use impetus::{BodyId, BodyType, Error, Quat, ShapeDef, Transform, Vec3, World};

fn world() -> World {
    common::world(Vec3::new(0.0, -9.81, 0.0), 1)
}

fn body(w: &mut World, body_type: BodyType, position: Vec3, shape: ShapeDef) -> BodyId {
    common::body(w, body_type, position, Some(shape))
}

/// The platform's path: eased from rest to rest, 3 m along x and 1 m up while turning 30°
/// about y, over `T` seconds.
const T: f32 = 4.0;
fn path(t: f32) -> Transform {
    let u = (t / T).clamp(0.0, 1.0);
    let s = u * u * (3.0 - 2.0 * u);
    Transform::new(
        Vec3::new(3.0 * s, 1.0 * s, 0.0),
        Quat::from_rotation_y(30f32.to_radians() * s),
    )
}

#[test]
fn platform_lands_on_its_path_and_carries_a_box() {
    let mut w = world();
    let platform = body(
        &mut w,
        BodyType::Kinematic,
        Vec3::ZERO,
        ShapeDef::cuboid(Vec3::new(2.0, 0.1, 2.0)),
    );
    let cargo = body(
        &mut w,
        BodyType::Dynamic,
        Vec3::new(0.5, 0.35, 0.0),
        ShapeDef::cuboid(Vec3::splat(0.25)).with_friction(0.8),
    );
    // Let the box settle.
    for _ in 0..60 {
        w.step(DT).unwrap();
    }
    let start = w.body_transform(platform).unwrap();
    let local = start.inv_transform_point(w.body_position(cargo).unwrap());
    let steps = (T / DT).round() as usize + 30;
    let mut worst = 0.0f32;
    for k in 1..=steps {
        let target = path(k as f32 * DT);
        w.set_body_target_pose(platform, target).unwrap();
        w.step(DT).unwrap();
        let xf = w.body_transform(platform).unwrap();
        // (|q - t| rather than an angle: acos near 1 turns one ulp into 3e-4 rad.)
        let dq = (xf.q - target.q).length().min((xf.q + target.q).length());
        let err = (xf.p - target.p).length() + dq;
        worst = worst.max(err);
        assert!(err < 1e-5, "step {k}: pose {xf:?} vs target {target:?}");
        // Stopped until a new target comes.
        assert_eq!(w.body_linear_velocity(platform).unwrap(), Vec3::ZERO);
    }
    let end = w.body_transform(platform).unwrap();
    let carried = end.inv_transform_point(w.body_position(cargo).unwrap());
    let cargo_turn = w.body_rotation(cargo).unwrap().angle_between(end.q);
    println!(
        "platform: worst pose error {worst:.2e}; box moved {:.4} m relative to it, turned {:.2}° relative to it",
        (carried - local).length(),
        cargo_turn.to_degrees()
    );
    assert!(
        (carried - local).length() < 0.02,
        "the box slid on the platform: {local} -> {carried}"
    );
    assert!(cargo_turn.to_degrees() < 2.0);
    // The box moved with the platform in world space too.
    assert!((w.body_position(cargo).unwrap() - end.transform_point(local)).length() < 0.02);
}

#[test]
fn velocity_during_the_step_and_after() {
    let mut w = world();
    let k = body(
        &mut w,
        BodyType::Kinematic,
        Vec3::ZERO,
        ShapeDef::sphere(0.5),
    );
    let target = Transform::new(Vec3::new(0.1, 0.0, 0.0), Quat::from_rotation_z(0.05));
    w.set_body_target_pose(k, target).unwrap();
    assert_eq!(w.body_target_pose(k).unwrap(), Some(target));
    // Set at once (with the last dt) so the broadphase sees the coming motion.
    let v = w.body_linear_velocity(k).unwrap();
    assert!((v - Vec3::new(6.0, 0.0, 0.0)).length() < 1e-4, "{v}");
    let omega = w.body_angular_velocity(k).unwrap();
    assert!(
        (omega - Vec3::new(0.0, 0.0, 3.0)).length() < 1e-3,
        "{omega}"
    );
    w.step(DT).unwrap();
    assert_eq!(w.body_transform(k).unwrap(), target);
    assert_eq!(w.body_target_pose(k).unwrap(), None);
    assert_eq!(w.body_angular_velocity(k).unwrap(), Vec3::ZERO);
    // Without a new target it stays.
    w.step(DT).unwrap();
    assert_eq!(w.body_transform(k).unwrap(), target);
    // The last target set before a step wins.
    let other = Transform::new(Vec3::new(0.0, 1.0, 0.0), Quat::IDENTITY);
    w.set_body_target_pose(k, Transform::new(Vec3::X, Quat::IDENTITY))
        .unwrap();
    w.set_body_target_pose(k, other).unwrap();
    w.step(DT).unwrap();
    assert_eq!(w.body_transform(k).unwrap(), other);
}

#[test]
fn a_kinematic_pusher_moves_a_box() {
    let mut w = world();
    body(
        &mut w,
        BodyType::Static,
        Vec3::new(0.0, -0.5, 0.0),
        ShapeDef::cuboid(Vec3::new(20.0, 0.5, 20.0)),
    );
    let crate_ = body(
        &mut w,
        BodyType::Dynamic,
        Vec3::new(1.0, 0.25, 0.0),
        ShapeDef::cuboid(Vec3::splat(0.25)),
    );
    let pusher = body(
        &mut w,
        BodyType::Kinematic,
        Vec3::new(0.0, 0.5, 0.0),
        ShapeDef::cuboid(Vec3::new(0.25, 0.5, 1.0)),
    );
    // The pusher walks +x at 1 m/s for 3 s.
    for k in 1..=180 {
        let p = Vec3::new(k as f32 * DT, 0.5, 0.0);
        w.set_body_target_pose(pusher, Transform::new(p, Quat::IDENTITY))
            .unwrap();
        w.step(DT).unwrap();
    }
    let x = w.body_position(crate_).unwrap().x;
    println!("pusher face at 3.25 m; box centre at {x:.3} m");
    // The box is ahead of the pusher's face (x = 3.25), touching it.
    assert!(x > 3.45 && x < 3.6, "box at {x}");
}

#[test]
fn bad_targets_are_errors() {
    let mut w = world();
    let k = body(
        &mut w,
        BodyType::Kinematic,
        Vec3::ZERO,
        ShapeDef::sphere(0.5),
    );
    let d = body(&mut w, BodyType::Dynamic, Vec3::ZERO, ShapeDef::sphere(0.5));
    let s = body(&mut w, BodyType::Static, Vec3::ZERO, ShapeDef::sphere(0.5));
    let field = |e: Error| match e {
        Error::InvalidInput { field, .. } => field,
        other => panic!("expected InvalidInput, got {other:?}"),
    };
    let nan_p = Transform::new(Vec3::new(f32::NAN, 0.0, 0.0), Quat::IDENTITY);
    assert_eq!(
        field(w.set_body_target_pose(k, nan_p).unwrap_err()),
        "target.p"
    );
    let inf_q = Transform::new(Vec3::ZERO, Quat::from_xyzw(f32::INFINITY, 0.0, 0.0, 1.0));
    assert_eq!(
        field(w.set_body_target_pose(k, inf_q).unwrap_err()),
        "target.q"
    );
    let zero_q = Transform::new(Vec3::ZERO, Quat::from_xyzw(0.0, 0.0, 0.0, 0.0));
    assert_eq!(
        field(w.set_body_target_pose(k, zero_q).unwrap_err()),
        "target.q"
    );
    for not_kinematic in [d, s] {
        assert!(matches!(
            w.set_body_target_pose(not_kinematic, Transform::IDENTITY),
            Err(Error::Unsupported { .. })
        ));
    }
    // A target of a body removed before the step is dropped.
    w.set_body_target_pose(k, Transform::new(Vec3::X, Quat::IDENTITY))
        .unwrap();
    w.remove_body(k).unwrap();
    assert_eq!(
        w.set_body_target_pose(k, Transform::IDENTITY).unwrap_err(),
        Error::StaleHandle { kind: "BodyId" }
    );
    assert!(w.body_target_pose(k).is_err());
    w.step(DT).unwrap();
    // A new body in the freed slot is not moved by the old target.
    let k2 = body(
        &mut w,
        BodyType::Kinematic,
        Vec3::ZERO,
        ShapeDef::sphere(0.5),
    );
    w.step(DT).unwrap();
    assert_eq!(w.body_position(k2).unwrap(), Vec3::ZERO);
}
