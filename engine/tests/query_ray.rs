//! Ray queries against independent answers: analytic ray tests in f64, brute force over
//! every shape of a 10,000-box pile, invalid input and filters.

mod common;

use common::query::{add, all_shapes, body, brute_rays, check_hit, pile, pile_ray, ray_ref, world};
use common::{field_of, Rng};
use impetus::{
    BodyType, Error, Quat, QueryFilter, RayHit, Shape, ShapeDef, ShapeId, Transform, Vec3,
};

#[test]
fn ray_hits_each_shape_kind_as_the_analytic_answer() {
    let mut rng = Rng::new(7);
    let shapes = [
        (
            Shape::Sphere { radius: 0.8 },
            Transform::new(Vec3::new(3.0, -1.0, 2.0), Quat::IDENTITY),
        ),
        (
            Shape::Box {
                half_extents: Vec3::new(1.5, 0.4, 0.9),
            },
            Transform::new(Vec3::new(-2.0, 1.0, 0.5), rng.rotation()),
        ),
        (
            Shape::Plane {
                normal: Vec3::new(0.3, 1.0, -0.2).normalize(),
                offset: -0.5,
            },
            Transform::new(Vec3::new(0.0, -3.0, 0.0), rng.rotation()),
        ),
    ];
    for (shape, xf) in shapes {
        let mut w = world();
        let id = add(&mut w, BodyType::Static, xf, shape.clone());
        w.step(1.0 / 60.0).unwrap();
        let (mut hits, mut inside) = (0, 0);
        for _ in 0..2000 {
            let o = xf.p + rng.vec(Vec3::splat(-6.0), Vec3::splat(6.0));
            // Aim near the shape half of the time.
            let d = if rng.unit() < 0.5 {
                (xf.p + rng.vec(Vec3::splat(-1.5), Vec3::splat(1.5)) - o).normalize()
            } else {
                rng.direction()
            };
            let max = rng.range(1.0, 15.0);
            let got = w.cast_ray(o, d, max, &QueryFilter::default()).unwrap();
            let want = ray_ref(&shape, &xf, o, d, max);
            match (got, want) {
                (Some(hit), Some(_)) => {
                    assert_eq!(hit.shape, id);
                    check_hit(&hit, &shape, &xf, o, d, max);
                    hits += 1;
                    inside += (hit.distance == 0.0) as u32;
                }
                (None, None) => {}
                (got, Some((t, _))) if (t - max as f64).abs() < 1e-4 => {
                    let _ = got; // Grazing the end of the ray: either answer is fine.
                }
                (got, want) => panic!("{shape:?}: o {o} d {d} max {max}: {got:?} vs {want:?}"),
            }
        }
        assert!(
            hits > 150 && inside > 0,
            "{shape:?}: {hits} hits, {inside} inside"
        );
    }
}

#[test]
fn ray_starting_inside_hits_at_zero_with_the_normal_against_the_ray() {
    let mut w = world();
    let sphere = add(
        &mut w,
        BodyType::Dynamic,
        Transform::new(Vec3::new(0.0, 5.0, 0.0), Quat::IDENTITY),
        Shape::Sphere { radius: 1.0 },
    );
    let cube = add(
        &mut w,
        BodyType::Static,
        Transform::new(Vec3::new(5.0, 5.0, 0.0), Quat::from_rotation_y(0.4)),
        Shape::Box {
            half_extents: Vec3::ONE,
        },
    );
    let plane = add(
        &mut w,
        BodyType::Static,
        Transform::IDENTITY,
        Shape::Plane {
            normal: Vec3::Y,
            offset: 0.0,
        },
    );
    let f = QueryFilter::default();
    let d = Vec3::new(0.0, 0.0, 2.0);
    for (o, id) in [
        (Vec3::new(0.2, 5.1, 0.0), sphere),
        (Vec3::new(5.3, 4.8, 0.1), cube),
        (Vec3::new(0.0, -2.0, 0.0), plane),
        // On the surface counts as inside (closed solids).
        (Vec3::new(0.0, 0.0, 7.0), plane),
    ] {
        let hit = w.cast_ray(o, d, 10.0, &f).unwrap().unwrap();
        assert_eq!(hit.shape, id);
        assert_eq!((hit.fraction, hit.distance, hit.point), (0.0, 0.0, o));
        assert_eq!(hit.normal, -Vec3::Z);
    }
    // Leaving the sphere upward, the ray still reports it first, then nothing else.
    let all = w
        .cast_ray_all(Vec3::new(0.0, 5.0, 0.0), Vec3::Y, 10.0, &f)
        .unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!((all[0].shape, all[0].fraction), (sphere, 0.0));
}

#[test]
fn ray_through_a_10k_pile_matches_brute_force() {
    let w = pile();
    let shapes = all_shapes(&w);
    assert_eq!(shapes.len(), 10_001);
    let mut rng = Rng::new(3);
    let f = QueryFilter::default();
    let (mut hits, mut ties) = (0, 0);
    for r in 0..500 {
        let (o, d, max) = pile_ray(&mut rng);
        let got = w.cast_ray(o, d, max, &f).unwrap();
        let want = brute_rays(&shapes, o, d, max);
        match (got, want.first()) {
            (None, None) => {}
            (Some(hit), Some(&(t, id))) => {
                if hit.shape != id {
                    // Only a tie to rounding may pick another shape.
                    assert!(
                        (hit.distance as f64 - t).abs() < 1e-4,
                        "ray {r}: {hit:?} vs {id:?} at {t}"
                    );
                    ties += 1;
                }
                let (_, s, xf) = shapes.iter().find(|x| x.0 == hit.shape).unwrap();
                check_hit(&hit, s, xf, o, d, max);
                assert_eq!(hit.body, w.shape_body(hit.shape).unwrap());
                hits += 1;
            }
            (got, want) => panic!("ray {r} o {o} d {d} max {max}: {got:?} vs {want:?}"),
        }
    }
    assert!(hits > 250, "{hits} of 500 rays hit");
    assert!(ties <= 2);
}

#[test]
fn ray_all_hits_in_the_pile_match_brute_force() {
    let w = pile();
    let shapes = all_shapes(&w);
    let mut rng = Rng::new(11);
    let f = QueryFilter::default();
    let mut total = 0;
    for r in 0..100 {
        let (o, d, max) = pile_ray(&mut rng);
        let got = w.cast_ray_all(o, d, max, &f).unwrap();
        let want = brute_rays(&shapes, o, d, max);
        let mut got_ids: Vec<ShapeId> = got.iter().map(|h| h.shape).collect();
        let mut want_ids: Vec<ShapeId> = want.iter().map(|h| h.1).collect();
        assert!(
            got.windows(2)
                .all(|p| (p[0].fraction, p[0].shape) <= (p[1].fraction, p[1].shape)),
            "ray {r}: sorted by fraction, then id"
        );
        got_ids.sort();
        want_ids.sort();
        assert_eq!(got_ids, want_ids, "ray {r}");
        for h in &got {
            let (_, s, xf) = shapes.iter().find(|x| x.0 == h.shape).unwrap();
            check_hit(h, s, xf, o, d, max);
        }
        // The closest of all hits is the closest hit.
        let first = w.cast_ray(o, d, max, &f).unwrap();
        assert_eq!(first, got.first().copied(), "ray {r}");
        total += got.len();
    }
    assert!(total > 100, "{total} hits");
}

#[test]
fn invalid_ray_queries_name_the_field() {
    let mut w = world();
    let b = body(&mut w, BodyType::Static, Vec3::ZERO, Quat::IDENTITY);
    w.add_shape(b, &ShapeDef::sphere(1.0)).unwrap();
    let f = QueryFilter::default();
    let nan = Vec3::new(f32::NAN, 0.0, 0.0);
    let inf = Vec3::new(0.0, f32::INFINITY, 0.0);
    let cases = [
        (nan, Vec3::X, 1.0, "origin"),
        (inf, Vec3::X, 1.0, "origin"),
        (Vec3::ZERO, nan, 1.0, "direction"),
        (Vec3::ZERO, inf, 1.0, "direction"),
        (Vec3::ZERO, Vec3::ZERO, 1.0, "direction"),
        (Vec3::ZERO, Vec3::X, -1.0, "max_distance"),
        (Vec3::ZERO, Vec3::X, 0.0, "max_distance"),
        (Vec3::ZERO, Vec3::X, f32::NAN, "max_distance"),
        (Vec3::ZERO, Vec3::X, f32::INFINITY, "max_distance"),
    ];
    for (o, d, max, field) in cases {
        assert_eq!(field_of(w.cast_ray(o, d, max, &f).unwrap_err()), field);
        assert_eq!(field_of(w.cast_ray_all(o, d, max, &f).unwrap_err()), field);
    }
    // A tiny but non-zero direction is fine.
    assert!(w
        .cast_ray(
            Vec3::new(0.0, 5.0, 0.0),
            Vec3::new(0.0, -1e-30, 0.0),
            10.0,
            &f
        )
        .unwrap()
        .is_some());
    // A stale body to exclude.
    let gone = body(&mut w, BodyType::Static, Vec3::ZERO, Quat::IDENTITY);
    w.remove_body(gone).unwrap();
    let stale = QueryFilter::default().excluding_body(gone);
    assert_eq!(
        w.cast_ray(Vec3::ZERO, Vec3::X, 1.0, &stale).unwrap_err(),
        Error::StaleHandle { kind: "BodyId" }
    );
}

#[test]
fn filters_exclude_what_they_should() {
    let w = pile();
    let shapes = all_shapes(&w);
    let mut rng = Rng::new(99);
    let odd = |s: ShapeId| s.index % 2 == 1;
    let mut checked = 0;
    for _ in 0..100 {
        let (o, d, max) = pile_ray(&mut rng);
        let all = w.cast_ray_all(o, d, max, &QueryFilter::default()).unwrap();
        let Some(first) = all.first() else { continue };
        // Every pile shape has the default filter, category 1: a mask without bit 0 sees
        // nothing, a mask with it sees everything.
        for mask in [0, 1 << 40] {
            assert!(w
                .cast_ray(o, d, max, &QueryFilter::default().with_mask(mask))
                .unwrap()
                .is_none());
        }
        assert_eq!(
            w.cast_ray(o, d, max, &QueryFilter::default().with_mask(1 | 1 << 40))
                .unwrap()
                .as_ref(),
            Some(first)
        );
        // Excluding the first hit's body gives the first hit of another body.
        let ex = QueryFilter::default().excluding_body(first.body);
        let want = all.iter().find(|h| h.body != first.body).copied();
        assert_eq!(w.cast_ray(o, d, max, &ex).unwrap(), want);
        // A predicate keeps only odd shape slots.
        let pf = QueryFilter::default().with_predicate(&odd);
        let want: Vec<RayHit> = all.iter().filter(|h| odd(h.shape)).copied().collect();
        assert_eq!(w.cast_ray_all(o, d, max, &pf).unwrap(), want);
        assert_eq!(w.cast_ray(o, d, max, &pf).unwrap(), want.first().copied());
        checked += 1;
    }
    assert!(checked > 40);
    let _ = shapes;
}
