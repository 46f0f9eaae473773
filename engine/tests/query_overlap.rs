//! Overlap queries against independent answers: brute force over every shape of a
//! 10,000-box pile with exact f64 separations, filters and invalid input.

mod common;

use common::query::{all_shapes, body, pile, sep, world};
use common::{field_of, Rng};
use impetus::{
    Aabb, BodyType, Error, Quat, QueryFilter, Shape, ShapeDef, ShapeId, Transform, Vec3,
};

#[test]
fn overlap_queries_match_brute_force() {
    let w = pile();
    let shapes = all_shapes(&w);
    let mut rng = Rng::new(21);
    let f = QueryFilter::default();
    let (mut points_in, mut shapes_in, mut boxes_in) = (0, 0, 0);
    for _ in 0..300 {
        // Points: near a random shape, so that many are inside one.
        let (_, _, xf) = shapes[(rng.unit() * 10_000.0) as usize];
        let p = xf.p + rng.vec(Vec3::splat(-0.35), Vec3::splat(0.35));
        let got = w.overlap_point(p, &f).unwrap();
        let want: Vec<ShapeId> = shapes
            .iter()
            .filter(|(_, s, xf)| {
                let probe = Shape::Sphere { radius: 1e-30 };
                sep(&probe, &Transform::new(p, Quat::IDENTITY), s, xf) <= 0.0
            })
            .map(|x| x.0)
            .collect();
        assert_eq!(got, want, "point {p}");
        points_in += got.len();

        // Boxes: bounding-box overlap for spheres and boxes, the half-space for the plane.
        let c = xf.p + rng.vec(Vec3::splat(-3.0), Vec3::splat(3.0));
        let half = rng.vec(Vec3::splat(0.1), Vec3::splat(3.0));
        let bb = Aabb {
            min: c - half,
            max: c + half,
        };
        let got = w.overlap_aabb(&bb, &f).unwrap();
        let want: Vec<ShapeId> = shapes
            .iter()
            .filter(|(_, s, xf)| match s {
                Shape::Plane { .. } => {
                    let probe = Shape::Box { half_extents: half };
                    sep(&probe, &Transform::new(c, Quat::IDENTITY), s, xf) <= 0.0
                }
                _ => s.aabb(xf).overlaps(&bb),
            })
            .map(|x| x.0)
            .collect();
        assert_eq!(got, want, "aabb {bb:?}");
        let mut visited = Vec::new();
        w.overlap_aabb_with(&bb, &f, |s| visited.push(s)).unwrap();
        visited.sort();
        assert_eq!(visited, want);
        boxes_in += got.len();

        // Shapes, exact, skipping near-touching pairs (rounding decides those).
        let query = if rng.unit() < 0.5 {
            Shape::Sphere {
                radius: rng.range(0.1, 2.0),
            }
        } else {
            Shape::Box {
                half_extents: rng.vec(Vec3::splat(0.1), Vec3::splat(2.0)),
            }
        };
        let qxf = Transform::new(c, rng.rotation());
        let got = w.overlap_shape(&query, &qxf, &f).unwrap();
        for (id, s, xf) in &shapes {
            let d = sep(&query, &qxf, s, xf);
            if d.abs() > 1e-4 {
                assert_eq!(
                    got.contains(id),
                    d <= 0.0,
                    "{query:?} at {qxf:?} vs {s:?} at {xf:?}: {d}"
                );
            }
        }
        assert!(got.windows(2).all(|p| p[0] < p[1]));
        shapes_in += got.len();
    }
    assert!(
        points_in > 100 && boxes_in > 500 && shapes_in > 300,
        "{points_in} {boxes_in} {shapes_in}"
    );
}

#[test]
fn overlap_filters_and_errors() {
    let mut w = world();
    let a = body(&mut w, BodyType::Static, Vec3::ZERO, Quat::IDENTITY);
    let sa = w.add_shape(a, &ShapeDef::sphere(1.0)).unwrap();
    let b = body(
        &mut w,
        BodyType::Dynamic,
        Vec3::new(0.5, 0.0, 0.0),
        Quat::IDENTITY,
    );
    let sb = w.add_shape(b, &ShapeDef::cuboid(Vec3::splat(0.5))).unwrap();
    w.step(1.0 / 60.0).unwrap();
    let p = Vec3::new(0.4, 0.0, 0.0);
    let all = QueryFilter::default();
    assert_eq!(w.overlap_point(p, &all).unwrap(), vec![sa, sb]);
    assert_eq!(
        w.overlap_point(p, &all.excluding_body(a)).unwrap(),
        vec![sb]
    );
    assert!(w.overlap_point(p, &all.with_mask(0)).unwrap().is_empty());
    let not_a = |s: ShapeId| s != sa;
    assert_eq!(
        w.overlap_point(p, &all.with_predicate(&not_a)).unwrap(),
        vec![sb]
    );
    let ball = Shape::Sphere { radius: 0.1 };
    let at = Transform::new(p, Quat::IDENTITY);
    assert_eq!(
        w.overlap_shape(&ball, &at, &all.excluding_body(b)).unwrap(),
        vec![sa]
    );
    let bb = Aabb { min: p, max: p };
    assert_eq!(
        w.overlap_aabb(&bb, &all.with_predicate(&not_a)).unwrap(),
        vec![sb]
    );

    let nan = Vec3::new(f32::NAN, 0.0, 0.0);
    assert_eq!(field_of(w.overlap_point(nan, &all).unwrap_err()), "point");
    let bad_box = Aabb {
        min: Vec3::ONE,
        max: Vec3::ZERO,
    };
    assert_eq!(
        field_of(w.overlap_aabb(&bad_box, &all).unwrap_err()),
        "aabb"
    );
    let nan_box = Aabb {
        min: nan,
        max: Vec3::ZERO,
    };
    assert_eq!(
        field_of(w.overlap_aabb(&nan_box, &all).unwrap_err()),
        "aabb.min"
    );
    let flat = Shape::Box {
        half_extents: Vec3::new(1.0, 0.0, 1.0),
    };
    assert_eq!(
        field_of(w.overlap_shape(&flat, &at, &all).unwrap_err()),
        "Shape::Box::half_extents"
    );
    let neg = Shape::Sphere { radius: -1.0 };
    assert_eq!(
        field_of(w.overlap_shape(&neg, &at, &all).unwrap_err()),
        "Shape::Sphere::radius"
    );
    let plane = Shape::Plane {
        normal: Vec3::Y,
        offset: 0.0,
    };
    assert_eq!(
        field_of(w.overlap_shape(&plane, &at, &all).unwrap_err()),
        "shape"
    );
    let nan_xf = Transform::new(nan, Quat::IDENTITY);
    assert_eq!(
        field_of(w.overlap_shape(&ball, &nan_xf, &all).unwrap_err()),
        "transform.p"
    );
    let zero_q = Transform::new(p, Quat::from_xyzw(0.0, 0.0, 0.0, 0.0));
    assert_eq!(
        field_of(w.overlap_shape(&ball, &zero_q, &all).unwrap_err()),
        "transform.q"
    );
    w.remove_body(b).unwrap();
    assert_eq!(
        w.overlap_point(p, &all.excluding_body(b)).unwrap_err(),
        Error::StaleHandle { kind: "BodyId" }
    );
}
