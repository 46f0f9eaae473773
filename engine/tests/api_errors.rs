//! Every invalid input gets an `Err` naming the problem; nothing panics.

mod common;

use common::field_of;
use impetus::{
    BodyDef, BodyType, Error, MassProperties, Quat, Shape, ShapeDef, Vec3, World, WorldDef,
};

fn world() -> World {
    common::world_from(common::def(1))
}

#[test]
fn world_def_rejects_bad_values() {
    let bad = [
        (
            WorldDef {
                gravity: Vec3::new(f32::NAN, 0.0, 0.0),
                ..Default::default()
            },
            "WorldDef::gravity",
        ),
        (
            WorldDef {
                substeps: 0,
                ..Default::default()
            },
            "WorldDef::substeps",
        ),
        (
            WorldDef {
                contact_hertz: -1.0,
                ..Default::default()
            },
            "WorldDef::contact_hertz",
        ),
        (
            WorldDef {
                linear_slop: f32::INFINITY,
                ..Default::default()
            },
            "WorldDef::linear_slop",
        ),
        (
            WorldDef {
                speculative_distance: -0.1,
                ..Default::default()
            },
            "WorldDef::speculative_distance",
        ),
    ];
    for (def, field) in bad {
        assert_eq!(field_of(World::new(def).err().unwrap()), field);
    }
}

#[test]
fn body_def_rejects_non_finite_values() {
    let mut w = world();
    let cases = [
        (
            BodyDef {
                position: Vec3::new(0.0, f32::NAN, 0.0),
                ..Default::default()
            },
            "BodyDef::position",
        ),
        (
            BodyDef {
                rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
                ..Default::default()
            },
            "BodyDef::rotation",
        ),
        (
            BodyDef {
                rotation: Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0),
                ..Default::default()
            },
            "BodyDef::rotation",
        ),
        (
            BodyDef {
                linear_velocity: Vec3::splat(f32::INFINITY),
                ..Default::default()
            },
            "BodyDef::linear_velocity",
        ),
        (
            BodyDef {
                angular_velocity: Vec3::splat(f32::NAN),
                ..Default::default()
            },
            "BodyDef::angular_velocity",
        ),
        (
            BodyDef {
                linear_damping: -1.0,
                ..Default::default()
            },
            "BodyDef::linear_damping",
        ),
        (
            BodyDef {
                angular_damping: f32::NAN,
                ..Default::default()
            },
            "BodyDef::angular_damping",
        ),
        (
            BodyDef {
                gravity_scale: f32::NAN,
                ..Default::default()
            },
            "BodyDef::gravity_scale",
        ),
    ];
    for (def, field) in cases {
        assert_eq!(field_of(w.create_body(&def).unwrap_err()), field);
    }
    assert_eq!(w.body_count(), 0);
}

#[test]
fn shape_def_rejects_bad_geometry_and_material() {
    let mut w = world();
    let b = w.create_body(&BodyDef::default()).unwrap();
    let cases = [
        (ShapeDef::sphere(0.0), "Shape::Sphere::radius"),
        (ShapeDef::sphere(-1.0), "Shape::Sphere::radius"),
        (ShapeDef::sphere(f32::NAN), "Shape::Sphere::radius"),
        (
            ShapeDef::cuboid(Vec3::new(1.0, 0.0, 1.0)),
            "Shape::Box::half_extents",
        ),
        (
            ShapeDef::cuboid(Vec3::new(1.0, -2.0, 1.0)),
            "Shape::Box::half_extents",
        ),
        (
            ShapeDef::cuboid(Vec3::new(1.0, f32::INFINITY, 1.0)),
            "Shape::Box::half_extents",
        ),
        (
            ShapeDef::sphere(1.0).with_density(-1.0),
            "ShapeDef::density",
        ),
        (
            ShapeDef::sphere(1.0).with_density(f32::NAN),
            "ShapeDef::density",
        ),
        (
            ShapeDef::sphere(1.0).with_friction(-0.1),
            "ShapeDef::friction",
        ),
        (
            ShapeDef::sphere(1.0).with_restitution(1.5),
            "ShapeDef::restitution",
        ),
        (
            ShapeDef::sphere(1.0).with_inner_radius(1.0),
            "ShapeDef::inner_radius",
        ),
        (
            ShapeDef::cuboid(Vec3::ONE).with_inner_radius(0.5),
            "ShapeDef::inner_radius",
        ),
        (
            ShapeDef::plane(Vec3::new(0.0, 2.0, 0.0), 0.0),
            "Shape::Plane::normal",
        ),
        // A dynamic body cannot own a plane, nor get zero mass from its shapes.
        (ShapeDef::plane(Vec3::Y, 0.0), "ShapeDef::shape"),
        (ShapeDef::sphere(1.0).with_density(0.0), "ShapeDef::density"),
    ];
    for (def, field) in cases {
        assert_eq!(
            field_of(w.add_shape(b, &def).unwrap_err()),
            field,
            "{def:?}"
        );
    }
    assert!(w.body_shapes(b).unwrap().is_empty());
}

#[test]
fn step_rejects_bad_dt() {
    let mut w = world();
    // Beyond World::MAX_DT, f32::MAX moved every body to infinity; below World::MIN_DT the
    // soft constraints' coefficients overflow.
    for dt in [
        0.0,
        -1.0,
        f32::NAN,
        f32::INFINITY,
        f32::MAX,
        1.0e4,
        1.0e-7,
        1.0e-38,
    ] {
        assert_eq!(field_of(w.step(dt).unwrap_err()), "dt");
    }
    for dt in [World::MIN_DT, World::MAX_DT] {
        w.step(dt).unwrap();
    }
}

/// Sizes and coordinates beyond `MAX_LENGTH` (1e6 m) are errors naming the field, on any
/// body: they overflowed bounds, extents and images (found by the operation fuzzer).
#[test]
fn geometry_beyond_max_length_is_an_error() {
    use impetus::{ConvexHull, HeightField, TriMesh, MAX_LENGTH};
    let big = 2.0 * MAX_LENGTH;
    let mut w = world();
    let s = w
        .create_body(&BodyDef {
            body_type: BodyType::Static,
            ..Default::default()
        })
        .unwrap();
    let shapes = [
        (Shape::Sphere { radius: big }, "Shape::Sphere::radius"),
        (
            Shape::Capsule {
                half_height: big,
                radius: 1.0,
            },
            "Shape::Capsule::half_height",
        ),
        (
            Shape::Capsule {
                half_height: 1.0,
                radius: big,
            },
            "Shape::Capsule::radius",
        ),
        (
            Shape::Box {
                half_extents: Vec3::new(1.0, big, 1.0),
            },
            "Shape::Box::half_extents",
        ),
        (
            Shape::Plane {
                normal: Vec3::Y,
                offset: -big,
            },
            "Shape::Plane::offset",
        ),
    ];
    for (shape, field) in shapes {
        assert_eq!(
            field_of(w.add_shape(s, &ShapeDef::new(shape)).unwrap_err()),
            field
        );
    }
    let mut points = vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z];
    points[3].z = big;
    assert_eq!(
        field_of(ConvexHull::new(&points).unwrap_err()),
        "ConvexHull::points"
    );
    let vertices = vec![Vec3::ZERO, Vec3::new(big, 0.0, 0.0), Vec3::Z];
    assert_eq!(
        field_of(TriMesh::new(vertices, vec![[0, 1, 2]]).unwrap_err()),
        "TriMesh::vertices"
    );
    let e = HeightField::new(2, 2, vec![0.0, 0.0, 0.0, f32::MAX], Vec3::ONE).unwrap_err();
    assert_eq!(field_of(e), "HeightField::heights");
    let e = HeightField::new(2, 2, vec![0.0; 4], Vec3::new(big, 1.0, 1.0)).unwrap_err();
    assert_eq!(field_of(e), "HeightField::heights");
    // At the limit they are accepted.
    let at = Shape::Box {
        half_extents: Vec3::splat(MAX_LENGTH),
    };
    w.add_shape(s, &ShapeDef::new(at)).unwrap();
}

/// Coefficients beyond 1e6 are errors: rolling resistance times a radius overflowed to
/// infinity (found by the operation fuzzer).
#[test]
fn coefficients_beyond_1e6_are_errors() {
    let (mut w, b) = ball_world();
    let sphere = ShapeDef::sphere(1.5);
    let bad = [
        (sphere.clone().with_friction(f32::MAX), "ShapeDef::friction"),
        (
            sphere.clone().with_static_friction(2.0e6),
            "ShapeDef::static_friction",
        ),
        (
            sphere.clone().with_rolling_resistance(f32::MAX),
            "ShapeDef::rolling_resistance",
        ),
    ];
    for (def, field) in bad {
        assert_eq!(field_of(w.add_shape(b, &def).unwrap_err()), field);
    }
    w.add_shape(b, &sphere.with_friction(1.0e6)).unwrap();
}

/// A shape so light and small that its mass or a principal moment has no finite inverse
/// (subnormal) is an error, even beside a heavy shape: removing the heavy one would leave
/// the body with an infinite inverse inertia (found by the operation fuzzer).
#[test]
fn subnormal_mass_is_an_error() {
    let (mut w, b) = ball_world();
    let tiny = ShapeDef::sphere(1.0e-3).with_density(1.0e-30);
    assert_eq!(
        field_of(w.add_shape(b, &tiny).unwrap_err()),
        "ShapeDef::density"
    );
    let subnormal = MassProperties {
        mass: 1.0,
        inertia: Vec3::new(1.0, 1.0e-39, 1.0),
    };
    assert_eq!(
        field_of(w.set_body_mass_properties(b, subnormal).unwrap_err()),
        "MassProperties::inertia"
    );
}

#[test]
fn stale_ids_are_rejected_everywhere() {
    let mut w = world();
    let ground = w
        .create_body(&BodyDef {
            body_type: BodyType::Static,
            ..Default::default()
        })
        .unwrap();
    w.add_shape(ground, &ShapeDef::plane(Vec3::Y, 0.0)).unwrap();
    let b = w
        .create_body(&BodyDef {
            position: Vec3::new(0.0, 0.4, 0.0),
            ..Default::default()
        })
        .unwrap();
    let s = w.add_shape(b, &ShapeDef::sphere(0.5)).unwrap();
    w.step(1.0 / 60.0).unwrap();
    assert_eq!(w.contacts().count(), 1);
    w.remove_body(b).unwrap();
    assert_eq!(
        w.contacts().count(),
        0,
        "removing a body removes its contacts"
    );
    let stale = Err(Error::StaleHandle { kind: "BodyId" });
    assert_eq!(w.body_position(b).map(|_| ()), stale);
    assert_eq!(w.set_body_linear_velocity(b, Vec3::X), stale);
    assert_eq!(w.apply_force(b, Vec3::X, Vec3::ZERO), stale);
    assert_eq!(w.remove_body(b), stale);
    assert_eq!(w.add_shape(b, &ShapeDef::sphere(1.0)).map(|_| ()), stale);
    assert_eq!(
        w.remove_shape(s),
        Err(Error::StaleHandle { kind: "ShapeId" })
    );
    assert_eq!(
        w.shape(s).map(|_| ()),
        Err(Error::StaleHandle { kind: "ShapeId" })
    );
    // The slot is reused, the old id stays stale.
    let b2 = w.create_body(&BodyDef::default()).unwrap();
    assert_eq!(b2.index, b.index);
    assert_eq!(w.body_position(b).map(|_| ()), stale);
    assert!(w.body_position(b2).is_ok());
    w.step(1.0 / 60.0).unwrap();
}

#[test]
fn setters_reject_non_finite_values_and_wrong_body_types() {
    let mut w = world();
    let st = w
        .create_body(&BodyDef {
            body_type: BodyType::Static,
            ..Default::default()
        })
        .unwrap();
    let b = w.create_body(&BodyDef::default()).unwrap();
    assert_eq!(
        field_of(
            w.set_body_linear_velocity(b, Vec3::splat(f32::NAN))
                .unwrap_err()
        ),
        "linear_velocity"
    );
    assert_eq!(
        field_of(
            w.apply_force(b, Vec3::X, Vec3::splat(f32::NAN))
                .unwrap_err()
        ),
        "point"
    );
    assert_eq!(
        field_of(w.apply_torque(b, Vec3::splat(f32::INFINITY)).unwrap_err()),
        "torque"
    );
    assert_eq!(
        field_of(
            w.set_body_transform(b, Vec3::ZERO, Quat::from_xyzw(0.0, 0.0, 0.0, 0.0))
                .unwrap_err()
        ),
        "rotation"
    );
    assert_eq!(
        field_of(w.set_body_damping(b, -1.0, 0.0).unwrap_err()),
        "linear_damping"
    );
    let bad_mass = MassProperties {
        mass: 0.0,
        inertia: Vec3::ONE,
    };
    assert_eq!(
        field_of(w.set_body_mass_properties(b, bad_mass).unwrap_err()),
        "MassProperties::mass"
    );
    let bad_inertia = MassProperties {
        mass: 1.0,
        inertia: Vec3::new(1.0, -1.0, 1.0),
    };
    assert_eq!(
        field_of(w.set_body_mass_properties(b, bad_inertia).unwrap_err()),
        "MassProperties::inertia"
    );
    assert!(matches!(
        w.set_body_linear_velocity(st, Vec3::X),
        Err(Error::Unsupported { .. })
    ));
    assert!(matches!(
        w.apply_linear_impulse(st, Vec3::X, Vec3::ZERO),
        Err(Error::Unsupported { .. })
    ));
    // Nothing above changed the body.
    assert_eq!(w.body_linear_velocity(b).unwrap(), Vec3::ZERO);
    assert_eq!(w.body_mass_properties(b).unwrap().mass, 1.0);
}

#[test]
fn mass_follows_shapes() {
    let mut w = world();
    let b = w.create_body(&BodyDef::default()).unwrap();
    let s1 = w
        .add_shape(b, &ShapeDef::cuboid(Vec3::splat(0.5)).with_density(100.0))
        .unwrap();
    assert!((w.body_mass_properties(b).unwrap().mass - 100.0).abs() < 1e-3);
    let s2 = w
        .add_shape(
            b,
            &ShapeDef::sphere(1.0)
                .with_density(3.0)
                .with_inner_radius(0.5),
        )
        .unwrap();
    let shell = 3.0 * 4.0 / 3.0 * std::f32::consts::PI * (1.0 - 0.125);
    assert!((w.body_mass_properties(b).unwrap().mass - 100.0 - shell).abs() < 1e-2);
    w.remove_shape(s1).unwrap();
    assert!((w.body_mass_properties(b).unwrap().mass - shell).abs() < 1e-3);
    w.remove_shape(s2).unwrap();
    assert_eq!(
        w.body_mass_properties(b).unwrap().mass,
        1.0,
        "a shapeless dynamic body weighs 1 kg"
    );
    assert!(matches!(w.shape(s2), Err(Error::StaleHandle { .. })));
    let _ = Shape::Sphere { radius: 1.0 };
}

// Regressions found by the operation fuzzer (`tests/fuzz_ops.rs`).

/// A dynamic ball at the origin, in a world of one worker.
fn ball_world() -> (World, impetus::BodyId) {
    let mut w = world();
    let b = w.create_body(&BodyDef::default()).unwrap();
    w.add_shape(b, &ShapeDef::sphere(0.5)).unwrap();
    (w, b)
}

#[test]
fn failed_calls_leave_the_deep_hash_unchanged() {
    let (mut w, b) = ball_world();
    let before = w.deep_hash();
    let stale = impetus::BodyId {
        index: 9,
        generation: 9,
    };
    assert!(w
        .create_body(&BodyDef {
            rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
            ..Default::default()
        })
        .is_err());
    assert!(w.remove_body(stale).is_err());
    assert!(w.add_shape(b, &ShapeDef::sphere(-1.0)).is_err());
    assert!(w.set_gravity(Vec3::NAN).is_err());
    assert!(w.set_body_gravity_scale(b, f32::NAN).is_err());
    assert!(w.set_body_damping(b, -1.0, 0.0).is_err());
    assert!(w.set_bullet(stale, true).is_err());
    assert_eq!(w.deep_hash(), before, "an Err bumped the structure counter");
}

#[test]
fn force_at_a_huge_lever_arm_is_an_error() {
    let (mut w, b) = ball_world();
    let far = Vec3::splat(1.0e30);
    let e = w.apply_force(b, Vec3::splat(1.0e30), -far).unwrap_err();
    assert_eq!(field_of(e), "point");
    let e = w
        .apply_linear_impulse(b, Vec3::splat(1.0e30), far)
        .unwrap_err();
    assert_eq!(field_of(e), "point");
}

#[test]
fn impulse_that_overflows_the_velocity_is_an_error() {
    let (mut w, b) = ball_world();
    w.set_body_mass_properties(
        b,
        MassProperties {
            mass: 1.0e-30,
            inertia: Vec3::splat(1.0e-30),
        },
    )
    .unwrap();
    let e = w
        .apply_linear_impulse(b, Vec3::splat(f32::MAX), Vec3::ZERO)
        .unwrap_err();
    assert_eq!(field_of(e), "impulse");
    let e = w
        .apply_angular_impulse(b, Vec3::splat(f32::MAX))
        .unwrap_err();
    assert_eq!(field_of(e), "impulse");
    assert!(w.body_linear_velocity(b).unwrap().is_finite());
}

#[test]
fn quaternion_whose_length_overflows_is_an_error() {
    let huge = Quat::from_xyzw(1.0e30, 0.0, 0.0, 1.0);
    let e = world()
        .create_body(&BodyDef {
            rotation: huge,
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(field_of(e), "BodyDef::rotation");
    let (mut w, b) = ball_world();
    assert!(w.set_body_transform(b, Vec3::ZERO, huge).is_err());
    let e = w
        .add_shape(
            b,
            &ShapeDef::sphere(0.1).with_local_pose(impetus::Transform::new(Vec3::ZERO, huge)),
        )
        .unwrap_err();
    assert_eq!(field_of(e), "ShapeDef::local_pose");
}

#[test]
fn kinematic_target_out_of_reach_is_an_error() {
    let mut w = world();
    let k = w
        .create_body(&BodyDef {
            body_type: BodyType::Kinematic,
            position: Vec3::new(-1.0e30, 0.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    let target = impetus::Transform::new(Vec3::new(f32::MAX, 0.0, 0.0), Quat::IDENTITY);
    let e = w.set_body_target_pose(k, target).unwrap_err();
    assert_eq!(field_of(e), "target.p");
    assert!(w.body_linear_velocity(k).unwrap().is_finite());
}

#[test]
fn velocities_beyond_1e9_are_errors() {
    // A kinematic body at f32::MAX m/s made NaN contacts with the bodies it swept through.
    let e = world()
        .create_body(&BodyDef {
            body_type: BodyType::Kinematic,
            linear_velocity: Vec3::new(0.0, -f32::MAX, 0.0),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(field_of(e), "BodyDef::linear_velocity");
    let (mut w, b) = ball_world();
    let e = w
        .set_body_linear_velocity(b, Vec3::splat(2.0e9))
        .unwrap_err();
    assert_eq!(field_of(e), "linear_velocity");
    let e = w
        .set_body_angular_velocity(b, Vec3::splat(2.0e9))
        .unwrap_err();
    assert_eq!(field_of(e), "angular_velocity");
    w.set_body_linear_velocity(b, Vec3::splat(1.0e9)).unwrap();
}

#[test]
fn shape_local_pose_beyond_1e6_is_an_error() {
    let (mut w, b) = ball_world();
    let far = impetus::Transform::new(Vec3::new(-1.0e30, 0.0, 0.0), Quat::IDENTITY);
    let e = w
        .add_shape(b, &ShapeDef::sphere(0.5).with_local_pose(far))
        .unwrap_err();
    assert_eq!(field_of(e), "ShapeDef::local_pose");
}

#[test]
fn shape_whose_inertia_overflows_is_an_error() {
    let (mut w, b) = ball_world();
    let heavy = ShapeDef::cuboid(Vec3::new(0.5, 1.0e6, 0.5)).with_density(1.0e30);
    let e = w.add_shape(b, &heavy).unwrap_err();
    assert_eq!(field_of(e), "ShapeDef::shape");
    // The same box is fine on a static body (no mass).
    let s = w
        .create_body(&BodyDef {
            body_type: BodyType::Static,
            ..Default::default()
        })
        .unwrap();
    w.add_shape(s, &heavy).unwrap();
    w.step(common::DT).unwrap();
    assert!(w.body_position(b).unwrap().is_finite());
}

#[test]
fn huge_gravity_scale_keeps_bodies_finite() {
    // Gravity times the scale overflowed to infinity and the speed clamp made it NaN.
    let (mut w, b) = ball_world();
    w.set_body_gravity_scale(b, f32::MAX).unwrap();
    for _ in 0..3 {
        w.step(common::DT).unwrap();
    }
    let v = w.body_linear_velocity(b).unwrap();
    assert!(v.is_finite() && v.y < 0.0, "v = {v}");
    assert!(w.body_position(b).unwrap().is_finite());
}
