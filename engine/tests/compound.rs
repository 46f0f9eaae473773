//! Compound bodies: shapes at local poses on one body. Mass properties against closed
//! forms and numerical integration, free motion about the centre of mass, a table on its
//! legs, tipping decided by where the centre of mass is, joints and poses kept when shapes
//! are added, queries against offset parts, errors, and determinism across thread counts.

mod common;

use common::{world, DT};
use impetus::{
    BodyDef, BodyId, BodyType, HeightField, JointDef, JointKind, Quat, QueryFilter, ShapeDef,
    Transform, Vec3, World,
};
use std::sync::Arc;

fn ground(w: &mut World) {
    let g = w
        .create_body(&BodyDef {
            body_type: BodyType::Static,
            ..Default::default()
        })
        .unwrap();
    w.add_shape(g, &ShapeDef::plane(Vec3::Y, 0.0)).unwrap();
}

fn compound(w: &mut World, position: Vec3, rotation: Quat, parts: &[ShapeDef]) -> BodyId {
    let b = w
        .create_body(&BodyDef {
            position,
            rotation,
            ..Default::default()
        })
        .unwrap();
    for p in parts {
        w.add_shape(b, p).unwrap();
    }
    b
}

fn cuboid_at(h: Vec3, p: Vec3) -> ShapeDef {
    ShapeDef::cuboid(h).with_offset(p)
}

/// World inertia tensor `R diag(I) Rᵀ` of a body (about its centre of mass).
fn world_inertia(w: &World, b: BodyId) -> glam::Mat3 {
    let frame = w.body_local_center_of_mass(b).unwrap();
    let q = w.body_rotation(b).unwrap() * frame.q;
    let r = glam::Mat3::from_quat(q);
    let i = w.body_mass_properties(b).unwrap().inertia;
    r * glam::Mat3::from_diagonal(i) * r.transpose()
}

#[test]
fn two_boxes_side_by_side_are_one_box() {
    let mut w = world(Vec3::ZERO, 1);
    let h = Vec3::splat(0.5);
    let b = compound(
        &mut w,
        Vec3::ZERO,
        Quat::IDENTITY,
        &[
            cuboid_at(h, Vec3::new(1.5, 0.0, 0.0)),
            cuboid_at(h, Vec3::new(2.5, 0.0, 0.0)),
        ],
    );
    let one = impetus::Shape::Box {
        half_extents: Vec3::new(1.0, 0.5, 0.5),
    }
    .mass_properties(1000.0);
    let mp = w.body_mass_properties(b).unwrap();
    assert!((mp.mass - one.mass).abs() < 1e-3, "{mp:?} {one:?}");
    // Symmetric parts: the axes stay the body's, in order.
    assert!((mp.inertia - one.inertia).length() < 1e-2, "{mp:?} {one:?}");
    let frame = w.body_local_center_of_mass(b).unwrap();
    assert!((frame.p - Vec3::new(2.0, 0.0, 0.0)).length() < 1e-6);
    assert!(frame.q.dot(Quat::IDENTITY).abs() > 1.0 - 1e-6);
    // The body stays where it was put; its centre of mass is off the origin.
    assert_eq!(w.body_position(b).unwrap(), Vec3::ZERO);
    assert!((w.body_center_of_mass(b).unwrap() - Vec3::new(2.0, 0.0, 0.0)).length() < 1e-6);
}

/// Membership of a point (body frame) in one of the test parts.
enum Part {
    Box(Vec3, Transform),
    Sphere(f32, Vec3),
}

impl Part {
    fn contains(&self, x: glam::DVec3) -> bool {
        match self {
            Part::Box(h, xf) => {
                let l = xf.inv_transform_point(x.as_vec3());
                l.abs().cmple(*h).all()
            }
            Part::Sphere(r, c) => (x - c.as_dvec3()).length() <= *r as f64,
        }
    }
    fn def(&self) -> ShapeDef {
        match self {
            Part::Box(h, xf) => ShapeDef::cuboid(*h).with_local_pose(*xf),
            Part::Sphere(r, c) => ShapeDef::sphere(*r).with_offset(*c),
        }
    }
}

/// An asymmetric compound (a tilted slab, a rotated post and a ball, not overlapping)
/// against midpoint-rule integration over a grid in f64: mass, centre of mass, and the
/// whole inertia tensor (so principal moments and axes both).
#[test]
fn asymmetric_compound_matches_numerical_integration() {
    let parts = [
        Part::Box(
            Vec3::new(0.6, 0.1, 0.3),
            Transform::new(
                Vec3::new(0.2, -0.4, 0.1),
                Quat::from_euler(glam::EulerRot::XYZ, 0.3, 0.2, 0.1),
            ),
        ),
        Part::Box(
            Vec3::new(0.1, 0.4, 0.15),
            Transform::new(Vec3::new(-0.5, 0.3, -0.2), Quat::from_rotation_y(0.7)),
        ),
        Part::Sphere(0.25, Vec3::new(0.6, 0.5, 0.4)),
    ];
    let mut w = world(Vec3::ZERO, 1);
    let b = compound(
        &mut w,
        Vec3::new(3.0, 1.0, -2.0),
        Quat::from_rotation_z(0.4),
        &parts.iter().map(Part::def).collect::<Vec<_>>(),
    );
    let rho = 1000.0f64;
    let (lo, hi) = (glam::DVec3::splat(-1.2), glam::DVec3::splat(1.2));
    let n = 160;
    let d = (hi - lo) / n as f64;
    let dv = d.x * d.y * d.z;
    let (mut m, mut mc) = (0.0f64, glam::DVec3::ZERO);
    let mut second = glam::DMat3::ZERO; // Σ dm x xᵀ
    for i in 0..n {
        for j in 0..n {
            for k in 0..n {
                let x = lo + d * glam::DVec3::new(i as f64 + 0.5, j as f64 + 0.5, k as f64 + 0.5);
                let inside = parts.iter().filter(|p| p.contains(x)).count();
                assert!(inside <= 1, "parts overlap at {x}");
                if inside == 1 {
                    let dm = rho * dv;
                    m += dm;
                    mc += dm * x;
                    second += glam::DMat3::from_cols(x * x.x, x * x.y, x * x.z) * dm;
                }
            }
        }
    }
    let c = mc / m;
    // Inertia about c: Σ dm (|x−c|² 1 − (x−c)(x−c)ᵀ) = tr(S') 1 − S', S' = S − m c cᵀ.
    let s = second - glam::DMat3::from_cols(c * c.x, c * c.y, c * c.z) * m;
    let trace = s.x_axis.x + s.y_axis.y + s.z_axis.z;
    let reference = glam::DMat3::from_diagonal(glam::DVec3::splat(trace)) - s;

    let mp = w.body_mass_properties(b).unwrap();
    let frame = w.body_local_center_of_mass(b).unwrap();
    assert!(
        (mp.mass as f64 / m - 1.0).abs() < 0.01,
        "{} vs {m}",
        mp.mass
    );
    assert!(
        (frame.p.as_dvec3() - c).length() < 0.01,
        "{} vs {c}",
        frame.p
    );
    // The body-frame tensor the engine implies: F diag(I) Fᵀ.
    let r = glam::Mat3::from_quat(frame.q);
    let implied = (r * glam::Mat3::from_diagonal(mp.inertia) * r.transpose()).as_dmat3();
    let scale = reference
        .x_axis
        .x
        .max(reference.y_axis.y)
        .max(reference.z_axis.z);
    for (a, e) in [
        (implied.x_axis, reference.x_axis),
        (implied.y_axis, reference.y_axis),
        (implied.z_axis, reference.z_axis),
    ] {
        assert!(
            (a - e).length() < 0.02 * scale,
            "implied {implied:?}\nreference {reference:?}"
        );
    }
    // Off-diagonal terms are real here: the principal axes are not the body's.
    assert!(frame.q.dot(Quat::IDENTITY).abs() < 0.999, "{:?}", frame.q);
}

/// In zero gravity a lopsided hammer thrown spinning moves its centre of mass in a
/// straight line at constant speed, keeps its angular momentum, and its origin circles
/// the centre of mass at a fixed distance.
#[test]
fn free_hammer_turns_about_its_center_of_mass() {
    let mut w = world(Vec3::ZERO, 1);
    let b = compound(
        &mut w,
        Vec3::new(0.0, 5.0, 0.0),
        Quat::IDENTITY,
        &[
            ShapeDef::cuboid(Vec3::new(0.03, 0.4, 0.03)).with_offset(Vec3::new(0.0, 0.4, 0.0)),
            ShapeDef::cuboid(Vec3::new(0.15, 0.06, 0.06))
                .with_offset(Vec3::new(0.05, 0.85, 0.0))
                .with_density(7800.0),
        ],
    );
    let v = Vec3::new(1.0, 0.5, -0.25);
    let omega = Vec3::new(0.3, 0.2, 6.0);
    w.set_body_linear_velocity(b, v).unwrap();
    w.set_body_angular_velocity(b, omega).unwrap();
    let c0 = w.body_center_of_mass(b).unwrap();
    let reach = w.body_local_center_of_mass(b).unwrap().p.length();
    assert!(reach > 0.5, "{reach}");
    let momentum = |w: &World| world_inertia(w, b) * w.body_angular_velocity(b).unwrap();
    let l0 = momentum(&w);
    for step in 1..=240 {
        w.step(DT).unwrap();
        let t = step as f32 * DT;
        let c = w.body_center_of_mass(b).unwrap();
        assert!((c - (c0 + v * t)).length() < 1e-3, "step {step}: {c}");
        let o = w.body_position(b).unwrap();
        assert!(((o - c).length() - reach).abs() < 1e-4, "step {step}");
    }
    let l = momentum(&w);
    assert!((l - l0).length() < 0.02 * l0.length(), "{l0} -> {l}");
}

fn table(w: &mut World, at: Vec3) -> BodyId {
    let leg = Vec3::new(0.05, 0.4, 0.05);
    let mut parts = vec![cuboid_at(
        Vec3::new(0.6, 0.05, 0.4),
        Vec3::new(0.0, 0.85, 0.0),
    )];
    for (x, z) in [(-0.5, -0.3), (0.5, -0.3), (-0.5, 0.3), (0.5, 0.3)] {
        parts.push(cuboid_at(leg, Vec3::new(x, 0.4, z)));
    }
    compound(w, at, Quat::IDENTITY, &parts)
}

#[test]
fn table_stands_on_its_legs() {
    let mut w = world(Vec3::new(0.0, -10.0, 0.0), 1);
    ground(&mut w);
    let t = table(&mut w, Vec3::new(0.0, 0.1, 0.0));
    for _ in 0..180 {
        w.step(DT).unwrap();
    }
    let xf = w.body_transform(t).unwrap();
    // Body origin at the floor under the legs: it lands at y = 0 (within the slop).
    assert!(xf.p.y.abs() < 0.01 && xf.p.y < 0.001, "{xf:?}");
    assert!(xf.q.dot(Quat::IDENTITY).abs() > 0.9999, "{xf:?}");
    assert!(w.body_linear_velocity(t).unwrap().length() < 0.01);
    // Only the legs touch the floor: four points, all at the legs' feet.
    let points: Vec<Vec3> = w
        .contacts()
        .flat_map(|c| c.points.into_iter().map(|p| p.point))
        .collect();
    assert!(points.len() >= 4, "{points:?}");
    for p in &points {
        assert!(p.y.abs() < 0.01, "{p}");
        assert!(
            (p.x.abs() - 0.5).abs() <= 0.051 && (p.z.abs() - 0.3).abs() <= 0.051,
            "{p}"
        );
    }
}

/// The table on a flat height field (its legs land on cells of the grid, across seams)
/// stands as it does on a plane: the same height, level, still.
#[test]
fn table_stands_on_a_height_field() {
    let rest = |terrain: bool| {
        let mut w = world(Vec3::new(0.0, -10.0, 0.0), 1);
        if terrain {
            let g = w
                .create_body(&BodyDef {
                    body_type: BodyType::Static,
                    position: Vec3::new(-4.0, 0.0, -4.0),
                    ..Default::default()
                })
                .unwrap();
            let field = HeightField::new(17, 17, vec![0.0; 17 * 17], Vec3::new(0.5, 1.0, 0.5));
            w.add_shape(g, &ShapeDef::height_field(Arc::new(field.unwrap())))
                .unwrap();
        } else {
            ground(&mut w);
        }
        // Legs at x = ±0.5 + 0.13, z = ±0.3 + 0.21: off the grid lines, some on diagonals.
        let t = table(&mut w, Vec3::new(0.13, 0.1, 0.21));
        for _ in 0..180 {
            w.step(DT).unwrap();
        }
        (
            w.body_transform(t).unwrap(),
            w.body_linear_velocity(t).unwrap().length(),
        )
    };
    let (on_plane, _) = rest(false);
    let (on_field, speed) = rest(true);
    assert!(
        (on_field.p - on_plane.p).length() < 2e-3,
        "{on_field:?} vs {on_plane:?}"
    );
    assert!(
        on_field.q.dot(Quat::IDENTITY).abs() > 0.9999,
        "{on_field:?}"
    );
    assert!(speed < 0.01, "{speed}");
}

/// A post on a small foot with a heavy block on an arm: with the block over the foot it
/// stands; with the block cantilevered past the foot's edge it falls over. Only the
/// centre of mass decides, so this checks that gravity and contacts act about it.
#[test]
fn center_of_mass_decides_tipping() {
    let run = |arm: f32| {
        let mut w = world(Vec3::new(0.0, -10.0, 0.0), 1);
        ground(&mut w);
        let b = compound(
            &mut w,
            Vec3::new(0.0, 0.0, 0.0),
            Quat::IDENTITY,
            &[
                cuboid_at(Vec3::new(0.2, 0.05, 0.2), Vec3::new(0.0, 0.05, 0.0)),
                cuboid_at(Vec3::new(0.03, 0.5, 0.03), Vec3::new(0.0, 0.6, 0.0)).with_density(100.0),
                cuboid_at(Vec3::new(0.1, 0.1, 0.1), Vec3::new(arm, 1.0, 0.0)).with_density(5000.0),
            ],
        );
        for _ in 0..240 {
            w.step(DT).unwrap();
        }
        let up = w.body_rotation(b).unwrap() * Vec3::Y;
        up.angle_between(Vec3::Y)
    };
    let standing = run(0.12);
    let falling = run(0.45);
    assert!(standing < 0.01, "block over the foot tilted {standing} rad");
    assert!(
        falling > 0.8,
        "cantilevered block only tilted {falling} rad"
    );
}

/// Adding a shape off the origin moves the mass frame but not the body, its velocity
/// field, or its joints' anchors.
#[test]
fn adding_a_part_keeps_pose_velocity_and_joints() {
    let mut w = world(Vec3::new(0.0, -10.0, 0.0), 1);
    let anchor = w
        .create_body(&BodyDef {
            body_type: BodyType::Static,
            position: Vec3::new(0.0, 5.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    let bob = compound(
        &mut w,
        Vec3::new(1.0, 5.0, 0.0),
        Quat::IDENTITY,
        &[ShapeDef::sphere(0.2)],
    );
    let xa = w.body_transform(anchor).unwrap();
    let xb = w.body_transform(bob).unwrap();
    let j = w
        .create_joint(&JointDef::at_world(
            JointKind::Ball,
            anchor,
            &xa,
            bob,
            &xb,
            Vec3::new(0.0, 5.0, 0.0),
            Vec3::Z,
        ))
        .unwrap();
    for _ in 0..20 {
        w.step(DT).unwrap();
    }
    let before = w.joint_def(j).unwrap();
    let pose = w.body_transform(bob).unwrap();
    let probe = pose.transform_point(Vec3::new(0.3, 0.2, 0.1));
    let speed_at = |w: &World| {
        let c = w.body_center_of_mass(bob).unwrap();
        w.body_linear_velocity(bob).unwrap()
            + w.body_angular_velocity(bob).unwrap().cross(probe - c)
    };
    let v_before = speed_at(&w);
    w.add_shape(
        bob,
        &ShapeDef::cuboid(Vec3::splat(0.1)).with_offset(Vec3::new(0.5, 0.0, 0.0)),
    )
    .unwrap();
    assert_eq!(w.body_transform(bob).unwrap(), pose);
    assert!((speed_at(&w) - v_before).length() < 1e-4);
    let after = w.joint_def(j).unwrap();
    assert!((after.frame_b.p - before.frame_b.p).length() < 1e-5);
    let gap = |w: &World| {
        let d = w.joint_def(j).unwrap();
        let pa = w
            .body_transform(anchor)
            .unwrap()
            .transform_point(d.frame_a.p);
        let pb = w.body_transform(bob).unwrap().transform_point(d.frame_b.p);
        (pa - pb).length()
    };
    assert!(gap(&w) < 0.01, "{}", gap(&w));
    for _ in 0..120 {
        w.step(DT).unwrap();
        assert!(gap(&w) < 0.01, "{}", gap(&w));
    }
}

#[test]
fn queries_see_parts_at_their_poses() {
    let mut w = world(Vec3::ZERO, 1);
    let b = compound(
        &mut w,
        Vec3::new(10.0, 0.0, 0.0),
        Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
        &[
            ShapeDef::sphere(0.5),
            ShapeDef::sphere(0.25).with_offset(Vec3::new(2.0, 0.0, 0.0)),
        ],
    );
    // Body x maps to world -z after the quarter turn about y: the small ball is at
    // (10, 0, -2).
    let hit = w
        .cast_ray(
            Vec3::new(10.0, 5.0, -2.0),
            -Vec3::Y,
            10.0,
            &QueryFilter::default(),
        )
        .unwrap()
        .expect("the offset ball is hit");
    assert_eq!(hit.body, b);
    assert!(
        (hit.point - Vec3::new(10.0, 0.25, -2.0)).length() < 1e-4,
        "{hit:?}"
    );
    assert!(w
        .cast_ray(
            Vec3::new(12.0, 5.0, 0.0),
            -Vec3::Y,
            10.0,
            &QueryFilter::default()
        )
        .unwrap()
        .is_none());
}

#[test]
fn bad_local_pose_is_an_error() {
    let mut w = world(Vec3::ZERO, 1);
    let b = w.create_body(&BodyDef::default()).unwrap();
    for pose in [
        Transform::new(Vec3::new(f32::NAN, 0.0, 0.0), Quat::IDENTITY),
        Transform::new(Vec3::ZERO, Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)),
        Transform::new(Vec3::ZERO, Quat::from_xyzw(f32::INFINITY, 0.0, 0.0, 1.0)),
    ] {
        let err = w
            .add_shape(b, &ShapeDef::sphere(0.5).with_local_pose(pose))
            .unwrap_err();
        assert!(err.to_string().contains("ShapeDef::local_pose"), "{err}");
    }
}

#[test]
fn tables_fall_the_same_on_one_and_two_threads() {
    let run = |workers: usize| {
        let mut w = world(Vec3::new(0.0, -10.0, 0.0), workers);
        ground(&mut w);
        for k in 0..12 {
            let t = table(
                &mut w,
                Vec3::new(
                    (k % 3) as f32 * 0.4,
                    0.5 + k as f32 * 1.2,
                    (k / 3) as f32 * 0.3,
                ),
            );
            w.set_body_angular_velocity(t, Vec3::new(0.5, k as f32 * 0.1, -0.3))
                .unwrap();
        }
        for _ in 0..200 {
            w.step(DT).unwrap();
        }
        w.state_hash()
    };
    assert_eq!(run(1), run(2));
}
