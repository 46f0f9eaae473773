//! Shape casts against independent answers: analytic times of impact, brute-force bisection
//! over every shape of a 10,000-box pile, filters and invalid input.

mod common;

use common::query::{add, all_shapes, body, d3, pile, sep, world};
use common::{field_of, Rng};
use impetus::{BodyType, Error, Quat, QueryFilter, Shape, ShapeId, Transform, Vec3};

/// Bounding radius of a shape about its origin (infinite for a plane).
fn reach(s: &Shape) -> f32 {
    match *s {
        Shape::Sphere { radius } => radius,
        Shape::Capsule {
            half_height,
            radius,
        } => half_height + radius,
        Shape::Box { half_extents } => half_extents.length(),
        Shape::Hull { ref hull } => hull.bounding_radius(),
        Shape::Plane { .. } | Shape::Mesh { .. } | Shape::HeightField { .. } => f32::INFINITY,
    }
}

/// Whether `other` might meet `shape` moving from `p` by `v`: the bounding spheres' test.
fn near_path(shape: &Shape, p: Vec3, v: Vec3, other: &Shape, xf: &Transform) -> bool {
    let r = reach(shape) + reach(other) + 0.1;
    if !r.is_finite() {
        return true;
    }
    let t = ((xf.p - p).dot(v) / v.length_squared()).clamp(0.0, 1.0);
    (p + v * t - xf.p).length() <= r
}

/// Brute-force first contact of `shape` moving from `xf` by `v` with `other`: the
/// separation is convex in t, so a ternary search finds its minimum and a bisection the
/// first root before it.
fn first_contact(
    shape: &Shape,
    xf: &Transform,
    v: Vec3,
    other: &Shape,
    oxf: &Transform,
) -> Option<f64> {
    let at = |t: f64| {
        let p = (d3(xf.p) + d3(v) * t).as_vec3();
        sep(shape, &Transform::new(p, xf.q), other, oxf)
    };
    if at(0.0) <= 0.0 {
        return Some(0.0);
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..100 {
        let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if at(m1) < at(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    let tmin = 0.5 * (lo + hi);
    if at(tmin) > 0.0 {
        return None;
    }
    let (mut lo, mut hi) = (0.0f64, tmin);
    for _ in 0..60 {
        let m = 0.5 * (lo + hi);
        if at(m) > 0.0 {
            lo = m;
        } else {
            hi = m;
        }
    }
    Some(hi)
}

#[test]
fn shape_cast_matches_analytic_answers() {
    let mut w = world();
    let ground = add(
        &mut w,
        BodyType::Static,
        Transform::IDENTITY,
        Shape::Plane {
            normal: Vec3::Y,
            offset: 0.0,
        },
    );
    let target = add(
        &mut w,
        BodyType::Dynamic,
        Transform::new(Vec3::new(20.0, 3.0, 0.0), Quat::IDENTITY),
        Shape::Sphere { radius: 1.5 },
    );
    w.step(1.0 / 60.0).unwrap();
    let f = QueryFilter::default();
    let mut rng = Rng::new(5);

    // A sphere dropped onto the plane: touches when its centre is r above it.
    for _ in 0..100 {
        let r = rng.range(0.1, 1.0);
        let p = Vec3::new(
            rng.range(-10.0, 10.0),
            rng.range(1.5, 8.0),
            rng.range(-10.0, 10.0),
        );
        let v = Vec3::new(
            rng.range(-3.0, 3.0),
            -rng.range(8.0, 20.0),
            rng.range(-3.0, 3.0),
        );
        let xf = Transform::new(p, Quat::IDENTITY);
        let hit = w
            .cast_shape(&Shape::Sphere { radius: r }, &xf, v, &f)
            .unwrap()
            .unwrap();
        let want = (p.y - r) / -v.y;
        assert_eq!(hit.shape, ground);
        assert!(
            (hit.fraction - want).abs() * v.length() < 1e-4,
            "{hit:?} vs {want}"
        );
        assert!((hit.normal - Vec3::Y).length() < 1e-5);
        let c = p + v * hit.fraction;
        assert!((hit.point - (c - Vec3::Y * r)).length() < 1e-3, "{hit:?}");
    }

    // A sphere cast at the target sphere: |p + t v - c| = r + R.
    let c = Vec3::new(20.0, 3.0, 0.0);
    let mut hits = 0;
    for _ in 0..200 {
        let r = rng.range(0.1, 1.0);
        let p = c + Vec3::new(
            rng.range(-9.0, -4.0),
            rng.range(-1.0, 2.0),
            rng.range(-2.5, 2.5),
        );
        let v = Vec3::new(
            rng.range(6.0, 12.0),
            rng.range(-0.5, 0.5),
            rng.range(-0.5, 0.5),
        );
        let (m, rr) = (d3(p - c), (r + 1.5) as f64);
        let (a, b, cc) = (d3(v).dot(d3(v)), m.dot(d3(v)), m.dot(m) - rr * rr);
        let disc = b * b - a * cc;
        let want = (disc >= 0.0)
            .then(|| (-b - disc.sqrt()) / a)
            .filter(|t| (0.0..=1.0).contains(t));
        let got = w
            .cast_shape(
                &Shape::Sphere { radius: r },
                &Transform::new(p, Quat::IDENTITY),
                v,
                &f.excluding_body(w.shape_body(ground).unwrap()),
            )
            .unwrap();
        match (got, want) {
            (Some(hit), Some(t)) => {
                assert_eq!(hit.shape, target);
                // Grazing contacts converge slowest; still within the tolerance.
                assert!(
                    (hit.fraction as f64 - t).abs() * a.sqrt() < 1e-3,
                    "{hit:?} vs {t}"
                );
                assert!(hit.fraction as f64 <= t + 1e-5, "never past the contact");
                let n = (d3(p + v * hit.fraction) - d3(c)).normalize();
                assert!((d3(hit.normal) - n).length() < 1e-2, "{hit:?} vs {n}");
                hits += 1;
            }
            (None, None) => {}
            (got, Some(t)) if disc < 1e-3 * a => {
                let _ = (got, t); // Grazing: either answer.
            }
            (got, want) => panic!("{got:?} vs {want:?}"),
        }
    }
    assert!(hits > 50, "{hits}");

    // A turned box dropped on the plane: touches when its lowest corner reaches it.
    for _ in 0..50 {
        let he = rng.vec(Vec3::splat(0.2), Vec3::splat(1.0));
        let q = rng.rotation();
        let p = Vec3::new(
            rng.range(-5.0, 5.0),
            rng.range(3.0, 6.0),
            rng.range(-5.0, 5.0),
        );
        let v = Vec3::new(0.5, -10.0, 0.0);
        let depth: f32 = (0..3).map(|i| he[i] * (q * Vec3::AXES[i]).y.abs()).sum();
        let want = (p.y - depth) / 10.0;
        let hit = w
            .cast_shape(
                &Shape::Box { half_extents: he },
                &Transform::new(p, q),
                v,
                &f,
            )
            .unwrap()
            .unwrap();
        assert_eq!(hit.shape, ground);
        assert!(
            (hit.fraction - want).abs() * 10.0 < 1e-3,
            "{hit:?} vs {want}"
        );
        assert!(hit.point.y.abs() < 1e-3);
    }
}

#[test]
fn shape_cast_through_the_pile_matches_brute_force_bisection() {
    let w = pile();
    let shapes = all_shapes(&w);
    let mut rng = Rng::new(8);
    let f = QueryFilter::default();
    let (mut hits, mut zero) = (0, 0);
    for k in 0..120 {
        let shape = if k % 2 == 0 {
            Shape::Sphere {
                radius: rng.range(0.1, 1.0),
            }
        } else {
            Shape::Box {
                half_extents: rng.vec(Vec3::splat(0.1), Vec3::splat(0.8)),
            }
        };
        let xf = Transform::new(
            rng.vec(Vec3::new(-30.0, 0.0, -25.0), Vec3::new(30.0, 45.0, 25.0)),
            rng.rotation(),
        );
        let v = rng.direction() * rng.range(1.0, 15.0);
        let got = w.cast_shape(&shape, &xf, v, &f).unwrap();
        let want = shapes
            .iter()
            .filter(|(_, s, oxf)| near_path(&shape, xf.p, v, s, oxf))
            .filter_map(|(id, s, oxf)| first_contact(&shape, &xf, v, s, oxf).map(|t| (t, *id)))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let len = v.length() as f64;
        match (got, want) {
            (None, None) => {}
            (Some(hit), Some((t, id))) => {
                let err = (hit.fraction as f64 - t) * len;
                assert!(
                    err.abs() < 2e-3,
                    "cast {k}: {hit:?} vs {id:?} at {t} ({err} m)"
                );
                if hit.shape != id {
                    assert!(err.abs() < 1e-4, "cast {k}: another shape only on a tie");
                }
                // The reported shape touches at the reported fraction (within the tolerance).
                let (_, s, oxf) = shapes.iter().find(|x| x.0 == hit.shape).unwrap();
                let p = xf.p + v * hit.fraction;
                let d = sep(&shape, &Transform::new(p, xf.q), s, oxf);
                if hit.fraction > 0.0 {
                    assert!(d.abs() < 2e-3, "cast {k}: separation {d} at the hit");
                } else {
                    assert!(d < 2e-3, "cast {k}: starts touching ({d})");
                }
                assert!((hit.normal.length() - 1.0).abs() < 1e-4);
                hits += 1;
                zero += (hit.fraction == 0.0) as u32;
            }
            (got, want) => panic!("cast {k}: {got:?} vs {want:?}"),
        }
    }
    assert!(hits > 40 && zero > 0, "{hits} hits, {zero} at 0");
}

#[test]
fn shape_cast_filters_and_errors() {
    let mut w = world();
    let near = add(
        &mut w,
        BodyType::Static,
        Transform::new(Vec3::new(5.0, 0.0, 0.0), Quat::IDENTITY),
        Shape::Sphere { radius: 1.0 },
    );
    let far = add(
        &mut w,
        BodyType::Static,
        Transform::new(Vec3::new(10.0, 0.0, 0.0), Quat::IDENTITY),
        Shape::Box {
            half_extents: Vec3::ONE,
        },
    );
    w.step(1.0 / 60.0).unwrap();
    let ball = Shape::Sphere { radius: 0.5 };
    let at = Transform::IDENTITY;
    let v = Vec3::new(20.0, 0.0, 0.0);
    let all = QueryFilter::default();
    let hit = w.cast_shape(&ball, &at, v, &all).unwrap().unwrap();
    assert_eq!(hit.shape, near);
    assert!((hit.fraction - 3.5 / 20.0).abs() < 1e-5, "{hit:?}");
    assert!((hit.point - Vec3::new(4.0, 0.0, 0.0)).length() < 1e-3);
    let skip_near = QueryFilter::default().excluding_body(w.shape_body(near).unwrap());
    let hit = w.cast_shape(&ball, &at, v, &skip_near).unwrap().unwrap();
    assert_eq!(hit.shape, far);
    assert!((hit.fraction - 8.5 / 20.0).abs() < 1e-5, "{hit:?}");
    assert_eq!(hit.normal, -Vec3::X);
    let only_far = |s: ShapeId| s == far;
    assert_eq!(
        w.cast_shape(&ball, &at, v, &all.with_predicate(&only_far))
            .unwrap()
            .unwrap()
            .shape,
        far
    );
    assert!(w
        .cast_shape(&ball, &at, v, &all.with_mask(0))
        .unwrap()
        .is_none());
    assert!(w.cast_shape(&ball, &at, -v, &all).unwrap().is_none());
    // Starting inside: fraction 0, normal against the motion, point at the start.
    let inside = Transform::new(Vec3::new(5.2, 0.0, 0.0), Quat::IDENTITY);
    let hit = w.cast_shape(&ball, &inside, v, &all).unwrap().unwrap();
    assert_eq!(
        (hit.shape, hit.fraction, hit.point, hit.normal),
        (near, 0.0, inside.p, -Vec3::X)
    );

    let nan = Vec3::new(f32::NAN, 0.0, 0.0);
    assert_eq!(
        field_of(w.cast_shape(&ball, &at, nan, &all).unwrap_err()),
        "translation"
    );
    assert_eq!(
        field_of(w.cast_shape(&ball, &at, Vec3::ZERO, &all).unwrap_err()),
        "translation"
    );
    let bad = Transform::new(Vec3::new(0.0, f32::INFINITY, 0.0), Quat::IDENTITY);
    assert_eq!(
        field_of(w.cast_shape(&ball, &bad, v, &all).unwrap_err()),
        "transform.p"
    );
    let bad = Transform::new(Vec3::ZERO, Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0));
    assert_eq!(
        field_of(w.cast_shape(&ball, &bad, v, &all).unwrap_err()),
        "transform.q"
    );
    let flat = Shape::Box {
        half_extents: Vec3::new(1.0, -1.0, 1.0),
    };
    assert_eq!(
        field_of(w.cast_shape(&flat, &at, v, &all).unwrap_err()),
        "Shape::Box::half_extents"
    );
    let plane = Shape::Plane {
        normal: Vec3::Y,
        offset: 0.0,
    };
    assert_eq!(
        field_of(w.cast_shape(&plane, &at, v, &all).unwrap_err()),
        "shape"
    );
    let gone = body(&mut w, BodyType::Static, Vec3::ZERO, Quat::IDENTITY);
    w.remove_body(gone).unwrap();
    assert_eq!(
        w.cast_shape(&ball, &at, v, &all.excluding_body(gone))
            .unwrap_err(),
        Error::StaleHandle { kind: "BodyId" }
    );
}
