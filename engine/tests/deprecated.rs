//! The accessors' old names (kept for one release) do what their `body_*` names do.
#![allow(deprecated)]

mod common;

use common::{ground_plane, world, DT};
use impetus::{BodyDef, BodyType, MassProperties, ShapeDef, Transform, Vec3};

#[test]
fn old_names_read_and_write_the_same_body_state() {
    let mut w = world(Vec3::new(0.0, -9.81, 0.0), 1);
    ground_plane(&mut w);
    let b = w
        .create_body(&BodyDef {
            position: Vec3::new(0.0, 2.0, 0.0),
            user_data: 7,
            ..Default::default()
        })
        .unwrap();
    w.add_shape(b, &ShapeDef::cuboid(Vec3::splat(0.5))).unwrap();
    w.set_linear_velocity(b, Vec3::new(1.0, 0.0, 0.0)).unwrap();
    w.set_angular_velocity(b, Vec3::new(0.0, 2.0, 0.0)).unwrap();
    w.set_damping(b, 0.1, 0.2).unwrap();
    w.set_gravity_scale(b, 0.5).unwrap();
    w.set_drag_coefficient(b, 0.3).unwrap();
    w.set_mass_properties(
        b,
        MassProperties {
            mass: 2.0,
            inertia: Vec3::splat(0.5),
        },
    )
    .unwrap();
    w.step(DT).unwrap();
    assert_eq!(
        w.linear_velocity(b).unwrap(),
        w.body_linear_velocity(b).unwrap()
    );
    assert_eq!(
        w.angular_velocity(b).unwrap(),
        w.body_angular_velocity(b).unwrap()
    );
    assert_eq!(
        w.center_of_mass(b).unwrap(),
        w.body_center_of_mass(b).unwrap()
    );
    assert_eq!(
        w.local_center_of_mass(b).unwrap(),
        w.body_local_center_of_mass(b).unwrap()
    );
    assert_eq!(
        w.mass_properties(b).unwrap(),
        w.body_mass_properties(b).unwrap()
    );
    assert_eq!(w.body_mass_properties(b).unwrap().mass, 2.0);
    assert_eq!(w.drag_coefficient(b).unwrap(), 0.3);
    assert_eq!(w.user_data(b).unwrap(), 7);
    assert!(w.is_awake(b).unwrap());
    w.set_awake(b, false).unwrap();
    assert!(!w.body_is_awake(b).unwrap());

    let k = w
        .create_body(&BodyDef {
            body_type: BodyType::Kinematic,
            ..Default::default()
        })
        .unwrap();
    let target = Transform::new(Vec3::new(1.0, 0.0, 0.0), Default::default());
    w.set_target_pose(k, target).unwrap();
    assert_eq!(w.target_pose(k).unwrap(), Some(target));
    assert_eq!(w.body_target_pose(k).unwrap(), Some(target));
}
