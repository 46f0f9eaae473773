//! Convex hulls in a world: resting on a plane like the matching box, a random rock coming
//! to rest, buoyancy of a hull against a box, and determinism across thread counts.

mod common;

use common::{XorShift64, DT};
use impetus::{
    BodyDef, BodyId, BodyType, ConvexHull, Quat, QueryFilter, Shape, ShapeDef, Transform, Vec3,
    World,
};
use std::sync::Arc;

fn world(workers: usize) -> World {
    common::world(Vec3::new(0.0, -10.0, 0.0), workers)
}

fn body(
    w: &mut World,
    body_type: BodyType,
    position: Vec3,
    rotation: Quat,
    s: &ShapeDef,
) -> BodyId {
    let b = w
        .create_body(&BodyDef {
            body_type,
            position,
            rotation,
            ..Default::default()
        })
        .unwrap();
    w.add_shape(b, s).unwrap();
    b
}

fn plane(w: &mut World) {
    body(
        w,
        BodyType::Static,
        Vec3::ZERO,
        Quat::IDENTITY,
        &ShapeDef::plane(Vec3::Y, 0.0),
    );
}

fn corners(h: Vec3) -> Vec<Vec3> {
    (0..8)
        .map(|i| {
            Vec3::new(
                if i & 1 == 0 { -h.x } else { h.x },
                if i & 2 == 0 { -h.y } else { h.y },
                if i & 4 == 0 { -h.z } else { h.z },
            )
        })
        .collect()
}

/// A hull of a box's 8 corners and the box itself, dropped side by side on a plane, end at
/// the same height, with the same mass.
#[test]
fn box_hull_rests_like_a_box() {
    let h = Vec3::new(0.4, 0.25, 0.3);
    let mut w = world(1);
    plane(&mut w);
    let hull = Arc::new(ConvexHull::new(&corners(h)).unwrap());
    let q = Quat::from_rotation_y(0.3);
    let a = body(
        &mut w,
        BodyType::Dynamic,
        Vec3::new(-2.0, 1.0, 0.0),
        q,
        &ShapeDef::hull(hull),
    );
    let b = body(
        &mut w,
        BodyType::Dynamic,
        Vec3::new(2.0, 1.0, 0.0),
        q,
        &ShapeDef::cuboid(h),
    );
    assert!(
        (w.body_mass_properties(a).unwrap().mass - w.body_mass_properties(b).unwrap().mass).abs()
            < 1e-3
    );
    for _ in 0..180 {
        w.step(DT).unwrap();
    }
    let (pa, pb) = (w.body_position(a).unwrap(), w.body_position(b).unwrap());
    assert!((pa.y - h.y).abs() < 0.01, "hull at {pa}");
    assert!((pa.y - pb.y).abs() < 2e-3, "hull {pa} box {pb}");
    assert!((pa.x + 2.0).abs() < 0.01 && pa.z.abs() < 0.01, "{pa}");
    assert!(w.body_linear_velocity(a).unwrap().length() < 0.01);
}

fn rock(seed: u64) -> Arc<ConvexHull> {
    let mut rng = XorShift64(seed);
    let mut next = || (rng.next_u64() >> 11) as f32 / (1u64 << 53) as f32;
    let pts: Vec<Vec3> = (0..24)
        .map(|_| Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5) * Vec3::new(0.8, 0.5, 0.6))
        .collect();
    Arc::new(ConvexHull::new(&pts).unwrap())
}

fn rocks(workers: usize) -> (World, Vec<BodyId>) {
    let mut w = world(workers);
    plane(&mut w);
    let mut ids = Vec::new();
    for k in 0..6u64 {
        let hull = rock(0x9E37_79B9 + k * 7919);
        let q = Quat::from_rotation_x(k as f32 * 0.7) * Quat::from_rotation_z(0.3 + k as f32);
        let p = Vec3::new(k as f32 * 1.2 - 3.0, 0.8, (k % 2) as f32 * 0.5);
        ids.push(body(&mut w, BodyType::Dynamic, p, q, &ShapeDef::hull(hull)));
    }
    (w, ids)
}

/// Random rocks dropped on a plane come to rest on it (no vertex below -1 cm, low speed),
/// and 1 and 2 worker threads give bit-identical poses.
#[test]
fn random_rocks_come_to_rest_deterministically() {
    let (mut w1, ids) = rocks(1);
    let (mut w2, _) = rocks(2);
    for _ in 0..300 {
        w1.step(DT).unwrap();
        w2.step(DT).unwrap();
    }
    for &b in &ids {
        assert_eq!(w1.body_position(b).unwrap(), w2.body_position(b).unwrap());
        assert_eq!(w1.body_rotation(b).unwrap(), w2.body_rotation(b).unwrap());
        let v = w1.body_linear_velocity(b).unwrap().length();
        let om = w1.body_angular_velocity(b).unwrap().length();
        assert!(v < 0.02 && om < 0.05, "body still moving: v {v} ω {om}");
        let p = w1.body_position(b).unwrap();
        assert!(p.y > 0.0 && p.y < 0.5, "rock at {p}");
    }
}

/// A ball dropped on a static hull slab rests on its top face at its radius.
#[test]
fn ball_rests_on_a_hull_slab() {
    let mut w = world(1);
    let slab = Arc::new(ConvexHull::new(&corners(Vec3::new(3.0, 0.5, 3.0))).unwrap());
    body(
        &mut w,
        BodyType::Static,
        Vec3::new(0.0, -0.5, 0.0),
        Quat::IDENTITY,
        &ShapeDef::hull(slab),
    );
    let ball = body(
        &mut w,
        BodyType::Dynamic,
        Vec3::new(0.3, 1.0, -0.2),
        Quat::IDENTITY,
        &ShapeDef::sphere(0.25),
    );
    for _ in 0..180 {
        w.step(DT).unwrap();
    }
    let p = w.body_position(ball).unwrap();
    assert!((p.y - 0.25).abs() < 0.01, "ball at {p}");
    assert!(
        (p.x - 0.3).abs() < 0.01 && (p.z + 0.2).abs() < 0.01,
        "ball at {p}"
    );
}

/// A static box whose top face is the plane y = 0.
fn ground_box(w: &mut World) {
    body(
        w,
        BodyType::Static,
        Vec3::new(0.0, -1.0, 0.0),
        Quat::IDENTITY,
        &ShapeDef::cuboid(Vec3::new(20.0, 1.0, 20.0)),
    );
}

/// On a static box: a box hull rests at its half height, a random rock dropped on it comes
/// to rest, a stack of three hull slabs holds, two dropped tetrahedra settle; on 1 and 2
/// threads, bit-identical.
#[test]
fn hulls_settle_on_a_box_and_on_each_other() {
    let run = |workers: usize| {
        let mut w = world(workers);
        ground_box(&mut w);
        let h = Vec3::new(0.3, 0.2, 0.25);
        let cube = body(
            &mut w,
            BodyType::Dynamic,
            Vec3::new(-3.0, 0.5, 0.0),
            Quat::from_rotation_y(0.4),
            &ShapeDef::hull(Arc::new(ConvexHull::new(&corners(h)).unwrap())),
        );
        let stone = body(
            &mut w,
            BodyType::Dynamic,
            Vec3::new(3.0, 1.0, 0.0),
            Quat::from_rotation_x(0.5),
            &ShapeDef::hull(rock(77)),
        );
        // Three hexagonal slabs (hulls of a 12-point prism) stacked flat.
        let prism: Vec<Vec3> = (0..12)
            .map(|k| {
                let a = (k % 6) as f32 * std::f32::consts::TAU / 6.0;
                Vec3::new(0.4 * a.cos(), if k < 6 { -0.1 } else { 0.1 }, 0.4 * a.sin())
            })
            .collect();
        let prism = Arc::new(ConvexHull::new(&prism).unwrap());
        let stack: Vec<BodyId> = (0..3)
            .map(|k| {
                body(
                    &mut w,
                    BodyType::Dynamic,
                    Vec3::new(0.0, 0.1 + 0.21 * k as f32, 0.0),
                    Quat::IDENTITY,
                    &ShapeDef::hull(prism.clone()),
                )
            })
            .collect();
        // Two tetrahedra dropped one above the other: the upper one lands on the lower one's
        // apex and tumbles off; both must settle.
        let tet = Arc::new(
            ConvexHull::new(&[
                Vec3::new(0.0, 0.3, 0.0),
                Vec3::new(0.3, -0.1, 0.0),
                Vec3::new(-0.15, -0.1, 0.26),
                Vec3::new(-0.15, -0.1, -0.26),
            ])
            .unwrap(),
        );
        let tets: Vec<BodyId> = (0..2)
            .map(|k| {
                body(
                    &mut w,
                    BodyType::Dynamic,
                    Vec3::new(0.0, 0.3 + 0.5 * k as f32, 3.0),
                    Quat::IDENTITY,
                    &ShapeDef::hull(tet.clone()),
                )
            })
            .collect();
        for _ in 0..300 {
            w.step(DT).unwrap();
        }
        (w, cube, stone, stack, tets)
    };
    let (w, cube, stone, stack, tets) = run(1);
    let (w2, ..) = run(2);
    let p = w.body_position(cube).unwrap();
    assert!(
        (p.y - 0.2).abs() < 0.01 && (p.x + 3.0).abs() < 0.01,
        "cube at {p}"
    );
    for (k, &b) in stack.iter().enumerate() {
        let p = w.body_position(b).unwrap();
        assert!(
            (p.y - (0.1 + 0.2 * k as f32)).abs() < 0.01,
            "slab {k} at {p}"
        );
        assert!(p.with_y(0.0).length() < 0.02, "slab {k} at {p}");
    }
    for &b in [stone].iter().chain(&tets).chain(&stack).chain(&[cube]) {
        let v = w.body_linear_velocity(b).unwrap().length();
        let om = w.body_angular_velocity(b).unwrap().length();
        assert!(v < 0.02 && om < 0.05, "body still moving: v {v} ω {om}");
        let p = w.body_position(b).unwrap();
        assert!(p.y > 0.0 && p.y < 1.2, "{p}");
        assert_eq!(p, w2.body_position(b).unwrap());
        assert_eq!(w.body_rotation(b).unwrap(), w2.body_rotation(b).unwrap());
    }
}

/// A capsule lying on a static hull slab rests at its radius without rolling away.
#[test]
fn capsule_rests_on_a_hull_slab() {
    let mut w = world(1);
    let slab = Arc::new(ConvexHull::new(&corners(Vec3::new(3.0, 0.5, 3.0))).unwrap());
    body(
        &mut w,
        BodyType::Static,
        Vec3::new(0.0, -0.5, 0.0),
        Quat::IDENTITY,
        &ShapeDef::hull(slab),
    );
    let c = body(
        &mut w,
        BodyType::Dynamic,
        Vec3::new(0.5, 0.3, 0.0),
        Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
        &ShapeDef::capsule(0.5, 0.25),
    );
    for _ in 0..180 {
        w.step(DT).unwrap();
    }
    let p = w.body_position(c).unwrap();
    assert!((p.y - 0.25).abs() < 0.01, "capsule at {p}");
    assert!(
        (p.x - 0.5).abs() < 0.01 && p.z.abs() < 0.01,
        "capsule at {p}"
    );
    assert!(w.body_linear_velocity(c).unwrap().length() < 0.01);
}

/// Queries: a ray hits a hull's face with its normal; a box hull cast along x stops where
/// the matching box does; a hull overlaps what it touches and a point inside it is found.
#[test]
fn queries_treat_a_hull_like_its_box() {
    let mut w = world(1);
    let h = Vec3::new(0.5, 0.4, 0.3);
    let hull = Arc::new(ConvexHull::new(&corners(h)).unwrap());
    let target = body(
        &mut w,
        BodyType::Static,
        Vec3::new(3.0, 0.0, 0.0),
        Quat::IDENTITY,
        &ShapeDef::hull(hull.clone()),
    );
    w.step(DT).unwrap();
    let f = QueryFilter::default();
    let hit = w
        .cast_ray(Vec3::new(0.0, 0.1, 0.1), Vec3::X, 10.0, &f)
        .unwrap()
        .unwrap();
    assert_eq!(hit.body, target);
    assert!((hit.point.x - 2.5).abs() < 1e-4 && (hit.normal - Vec3::NEG_X).length() < 1e-5);
    let start = Transform::new(Vec3::new(0.0, 0.2, 0.0), Quat::from_rotation_y(0.3));
    let as_hull = w
        .cast_shape(
            &Shape::Hull { hull: hull.clone() },
            &start,
            Vec3::X * 5.0,
            &f,
        )
        .unwrap()
        .unwrap();
    let as_box = w
        .cast_shape(&Shape::Box { half_extents: h }, &start, Vec3::X * 5.0, &f)
        .unwrap()
        .unwrap();
    assert!(
        (as_hull.fraction - as_box.fraction).abs() < 1e-3,
        "{as_hull:?} {as_box:?}"
    );
    let touching = Transform::new(Vec3::new(2.2, 0.0, 0.0), Quat::IDENTITY);
    assert_eq!(
        w.overlap_shape(&Shape::Hull { hull }, &touching, &f)
            .unwrap()
            .len(),
        1
    );
}

/// Found by the operation fuzzer: finite points 1e18 m apart gave a hull with an infinite
/// volume, whose body's mass and the image of its world were not finite.
#[test]
fn hull_whose_volume_overflows_is_an_error() {
    let s = 1.0e18;
    let points = [
        Vec3::new(-s, -s, -s),
        Vec3::new(s, -s, -s),
        Vec3::new(0.0, s, -s),
        Vec3::new(0.0, 0.0, s),
    ];
    let e = impetus::ConvexHull::new(&points).unwrap_err();
    assert!(matches!(
        e,
        impetus::Error::InvalidInput {
            field: "ConvexHull::points",
            ..
        }
    ));
    let points = points.map(|p| p * 1.0e-16);
    impetus::ConvexHull::new(&points).unwrap();
}

/// Found by the `hull` fuzz target: points 1e-13 m apart gave a hull whose f32 volume
/// rounded to 0.
#[test]
fn hull_whose_volume_underflows_is_an_error() {
    let s = 1.0e-14;
    let points = [
        Vec3::new(-s, -s, -s),
        Vec3::new(s, -s, -s),
        Vec3::new(0.0, s, -s),
        Vec3::new(0.0, 0.0, s),
    ];
    assert!(impetus::ConvexHull::new(&points).is_err());
    impetus::ConvexHull::new(&points.map(|p| p * 1.0e12)).unwrap();
}

/// Found by the `hull` fuzz target: a sliver of subnormal and 1e-10-scale coordinates built
/// a "hull" with fewer than four faces. It is a zero-volume error now.
#[test]
fn hull_of_a_subnormal_sliver_is_an_error() {
    let points = [
        Vec3::new(5.3e-41, 0.0, 3.9e-42),
        Vec3::new(-3.03e-13, 3.1e-10, -3.03e-13),
        Vec3::new(-3.03e-13, -7.8e-11, -3.03e-13),
        Vec3::new(-3.03e-13, 2.4e-43, -1.1e-13),
    ];
    let err = ConvexHull::new(&points).unwrap_err();
    assert!(format!("{err}").contains("zero volume"), "{err}");
}
