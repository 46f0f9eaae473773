use super::super::reduce::DEPTH_TOL;
use super::super::test_util::*;
use super::*;
use crate::hull::ConvexHull;
use glam::{DVec3, Quat, Vec3};
use std::sync::Arc;

fn run(a: &Shape, xa: &Transform, b: &Shape, xb: &Transform) -> Manifold {
    let mut m = Manifold::default();
    hull_plane(a, xa, b, xb, TOL, &mut m);
    check_manifold(&m, SPEC);
    m
}

fn rock(rng: &mut Rng) -> Shape {
    let pts: Vec<Vec3> = (0..20)
        .map(|_| rng.direction() * rng.range(0.3, 0.6) * Vec3::new(1.0, 0.7, 1.3))
        .collect();
    Shape::Hull {
        hull: Arc::new(ConvexHull::new(&pts).unwrap()),
    }
}

/// Capsules against box-shaped hulls give capsule_box's manifolds on random poses:
/// contacts in the same cases, same normal, same deepest separation.
#[test]
fn capsule_hull_matches_capsule_box() {
    let mut rng = Rng::new(47);
    let mut hits = 0;
    for _ in 0..500 {
        let h = rng.extents(0.1, 0.8);
        let hull = Shape::Hull {
            hull: Arc::new(ConvexHull::new(&box_points(h)).unwrap()),
        };
        let cap = Shape::Capsule {
            half_height: rng.range(0.0, 0.6),
            radius: rng.range(0.05, 0.3),
        };
        let xb = Transform::new(Vec3::new(0.3, -0.2, 0.1), rng.rotation());
        // Some capsules lie flat on a face, the rest at random.
        let q = if rng.unit() < 0.3 {
            xb.q * Quat::from_rotation_z(std::f32::consts::FRAC_PI_2)
        } else {
            rng.rotation()
        };
        let xa = Transform::new(xb.p + rng.direction() * rng.range(0.1, 1.4), q);
        let mut m = Manifold::default();
        capsule_hull(&cap, &xa, &hull, &xb, TOL, &mut m);
        check_manifold(&m, SPEC);
        let mut r = Manifold::default();
        super::super::capsule::capsule_box(
            &cap,
            &xa,
            &Shape::Box { half_extents: h },
            &xb,
            TOL,
            &mut r,
        );
        assert_eq!(m.count, r.count, "{m:?} {r:?}");
        if m.count == 0 {
            continue;
        }
        hits += 1;
        assert!((m.normal - r.normal).length() < 1e-3, "{m:?} {r:?}");
        // A core parallel to a box axis beside an edge is at the same distance all along:
        // any point of that stretch is a closest point (the box path takes its middle,
        // GJK wherever it stops), so only the distance is compared there.
        let u = (xb.q.inverse() * xa.q * Vec3::Y).abs();
        let line = m.count == 1 && u.max_element() > 1.0 - 1e-6;
        for (p, q) in m.points().iter().zip(r.points()) {
            assert!((p.separation - q.separation).abs() < 1e-3, "{m:?} {r:?}");
            assert!(line || (p.point - q.point).length() < 2e-3, "{m:?} {r:?}");
        }
    }
    assert!(hits > 150, "{hits}");
}

/// Sphere against a random rock at random poses: the separation is the f64 distance from
/// the centre to the hull minus the radius (outside: brute force over the triangles of
/// the faces; inside: the nearest face plane), the normal is along the centre's offset
/// from the closest point, and the point lies halfway between the surfaces.
#[test]
fn sphere_hull_matches_brute_force() {
    let mut rng = Rng::new(33);
    let mut hits = 0;
    for _ in 0..400 {
        let s = rock(&mut rng);
        let Shape::Hull { ref hull } = s else {
            unreachable!()
        };
        let xb = Transform::new(Vec3::new(1.0, 2.0, -1.0), rng.rotation());
        let r = rng.range(0.05, 0.5);
        let c = xb.p + rng.direction() * rng.range(0.0, 1.2);
        let xa = Transform::new(c, rng.rotation());
        let mut m = Manifold::default();
        sphere_hull(&Shape::Sphere { radius: r }, &xa, &s, &xb, TOL, &mut m);
        check_manifold(&m, SPEC);
        // f64 reference in the hull frame.
        let cl = dq(xb.q).inverse() * (d3(c) - d3(xb.p));
        let v = |i: u16| d3(hull.vertices()[i as usize]);
        let inside_depth = hull
            .faces()
            .iter()
            .map(|f| d3(f.normal).dot(cl) - f.offset as f64)
            .fold(f64::NEG_INFINITY, f64::max);
        let dist = if inside_depth <= 0.0 {
            inside_depth
        } else {
            let mut best = f64::INFINITY;
            for k in 0..hull.faces().len() {
                let poly = hull.face_polygon(k);
                for j in 1..poly.len() - 1 {
                    let q = closest_on_triangle(cl, v(poly[0]), v(poly[j]), v(poly[j + 1]));
                    best = best.min((cl - q).length());
                }
            }
            best
        };
        let sep = dist - r as f64;
        if sep >= SPEC as f64 + 1e-4 {
            assert_eq!(m.count, 0);
            continue;
        }
        if sep < SPEC as f64 - 1e-4 {
            assert_eq!(m.count, 1, "sep {sep}");
        }
        if m.count == 0 {
            continue;
        }
        hits += 1;
        let p = m.points[0];
        assert!(
            (p.separation as f64 - sep).abs() < 1e-4,
            "{} {sep}",
            p.separation
        );
        // The sphere's surface point along the normal and the hull's are the
        // separation apart, halfway at the manifold point.
        let sphere_pt = d3(c) + d3(m.normal) * r as f64;
        let mid = d3(p.point);
        assert!(
            (mid - sphere_pt - d3(m.normal) * (p.separation as f64 * 0.5)).length() < 1e-4,
            "{m:?}"
        );
    }
    assert!(hits > 100, "{hits}");
}

/// The closest point of triangle `abc` to `p` (Ericson, Real-Time Collision Detection).
fn closest_on_triangle(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> DVec3 {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = p - b;
    let (d3_, d4) = (ab.dot(bp), ac.dot(bp));
    if d3_ >= 0.0 && d4 <= d3_ {
        return b;
    }
    let vc = d1 * d4 - d3_ * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3_ <= 0.0 {
        return a + ab * (d1 / (d1 - d3_));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return a + ac * (d2 / (d2 - d6));
    }
    let va = d3_ * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3_) >= 0.0 && (d5 - d6) >= 0.0 {
        return b + (c - b) * ((d4 - d3_) / ((d4 - d3_) + (d5 - d6)));
    }
    let denom = 1.0 / (va + vb + vc);
    a + ab * (vb * denom) + ac * (vc * denom)
}

fn box_points(h: Vec3) -> Vec<Vec3> {
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

/// The f64 separating-axis reference of two polytopes given by their world vertices,
/// face normals and edge directions: the largest separation over every face normal and
/// every edge-pair cross product (unpruned). Exact penetration depth when they overlap.
fn sat_polys(
    va: &[DVec3],
    fa: &[DVec3],
    ea: &[DVec3],
    vb: &[DVec3],
    fb: &[DVec3],
    eb: &[DVec3],
) -> f64 {
    let sep = |axis: DVec3| {
        let max_a = va
            .iter()
            .map(|v| v.dot(axis))
            .fold(f64::NEG_INFINITY, f64::max);
        let min_b = vb.iter().map(|v| v.dot(axis)).fold(f64::INFINITY, f64::min);
        let max_b = vb
            .iter()
            .map(|v| v.dot(axis))
            .fold(f64::NEG_INFINITY, f64::max);
        let min_a = va.iter().map(|v| v.dot(axis)).fold(f64::INFINITY, f64::min);
        (min_b - max_a).max(min_a - max_b)
    };
    let mut best = f64::NEG_INFINITY;
    for &n in fa.iter().chain(fb) {
        best = best.max(sep(n));
    }
    for &a in ea {
        for &b in eb {
            let c = a.cross(b);
            if c.length() > 1e-6 * a.length() * b.length() {
                best = best.max(sep(c.normalize()));
            }
        }
    }
    best
}

/// World vertices, face normals and edge directions of a hull at `xf`, f64.
fn world_poly(hull: &ConvexHull, xf: &Transform) -> (Vec<DVec3>, Vec<DVec3>, Vec<DVec3>) {
    let q = dq(xf.q);
    let v: Vec<DVec3> = hull
        .vertices()
        .iter()
        .map(|&x| q * d3(x) + d3(xf.p))
        .collect();
    let f = hull.faces().iter().map(|f| q * d3(f.normal)).collect();
    let e = hull
        .edges()
        .iter()
        .map(|e| v[e.vertices[1] as usize] - v[e.vertices[0] as usize])
        .collect();
    (v, f, e)
}

/// Box-shaped hulls against boxes give box_box's manifolds: same normal, same deepest
/// separation, contacts in the same cases; boxes and hulls on random near-touching poses.
#[test]
fn box_hull_matches_box_box() {
    let mut rng = Rng::new(41);
    let mut hits = 0;
    for _ in 0..500 {
        let ha = rng.extents(0.1, 0.8);
        let hb = rng.extents(0.1, 0.8);
        let hull = Shape::Hull {
            hull: Arc::new(ConvexHull::new(&box_points(hb)).unwrap()),
        };
        let xa = Transform::new(Vec3::new(0.3, -0.2, 0.1), rng.rotation());
        let dir = rng.direction();
        let xb = Transform::new(xa.p + dir * rng.range(0.1, 1.6), rng.rotation());
        let a = Shape::Box { half_extents: ha };
        let mut m = Manifold::default();
        box_hull(&a, &xa, &hull, &xb, TOL, &mut m);
        check_manifold(&m, SPEC);
        let mut r = Manifold::default();
        super::super::box_box::box_box(&a, &xa, &Shape::Box { half_extents: hb }, &xb, TOL, &mut r);
        assert_eq!(m.count == 0, r.count == 0, "{m:?} {r:?}");
        if m.count == 0 {
            continue;
        }
        hits += 1;
        let deep = |m: &Manifold| {
            m.points()
                .iter()
                .map(|p| p.separation)
                .fold(f32::INFINITY, f32::min)
        };
        // Deep overlaps may clip a different incident face (box_box takes the most
        // anti-parallel one, this the most anti-parallel around the deepest vertex).
        let tol = 2e-3 + 0.01 * deep(&r).abs();
        // This adds the deepest vertex when clipping loses it (box_box does not), so it
        // may be deeper than box_box, never deeper than the SAT reference allows.
        let ba = box_points(ha);
        let (va, fa, ea) = world_poly(&ConvexHull::new(&ba).unwrap(), &xa);
        let (vb, fb, eb) = world_poly(&ConvexHull::new(&box_points(hb)).unwrap(), &xb);
        let reference = sat_polys(&va, &fa, &ea, &vb, &fb, &eb);
        assert!(deep(&m) <= deep(&r) + tol, "{m:?} {r:?}");
        assert!(
            deep(&m) as f64 >= reference - (SLOP + FACE_SWITCH_TOL) as f64 - 1e-3,
            "{m:?} {reference}"
        );
        assert!((m.normal - r.normal).length() < 1e-3, "{m:?} {r:?}");
    }
    assert!(hits > 150, "{hits}");
}

/// Random rocks against random rocks: the deepest separation matches the f64 SAT
/// reference (within the face/edge biases: a face axis may be kept while an edge axis
/// is up to the slop, or the other face `FACE_SWITCH_TOL`, better), the normal points from A to B, contacts
/// exist exactly when the reference is within the speculative distance (margins aside).
#[test]
fn hull_hull_matches_sat_reference() {
    let mut rng = Rng::new(43);
    let mut hits = 0;
    for _ in 0..400 {
        let a = rock(&mut rng);
        let b = rock(&mut rng);
        let (Shape::Hull { hull: ha }, Shape::Hull { hull: hb }) = (&a, &b) else {
            unreachable!()
        };
        let xa = Transform::new(Vec3::new(-1.0, 0.5, 2.0), rng.rotation());
        let xb = Transform::new(xa.p + rng.direction() * rng.range(0.2, 1.3), rng.rotation());
        let mut m = Manifold::default();
        hull_hull(&a, &xa, &b, &xb, TOL, &mut m);
        check_manifold(&m, SPEC);
        let (va, fa, ea) = world_poly(ha, &xa);
        let (vb, fb, eb) = world_poly(hb, &xb);
        let reference = sat_polys(&va, &fa, &ea, &vb, &fb, &eb);
        if reference >= SPEC as f64 + 1e-4 {
            assert_eq!(m.count, 0, "{reference} {m:?}");
            continue;
        }
        if reference < -0.01 {
            assert!(m.count > 0, "{reference}");
        }
        if m.count == 0 {
            continue;
        }
        hits += 1;
        let deepest = m
            .points()
            .iter()
            .map(|p| p.separation as f64)
            .fold(f64::INFINITY, f64::min);
        assert!(
            deepest >= reference - (SLOP + FACE_SWITCH_TOL) as f64 - 1e-3
                && deepest <= reference + SLOP as f64 + 2e-3,
            "deepest {deepest} reference {reference}"
        );
        assert!(d3(m.normal).dot(d3(xb.p - xa.p)) > 0.0, "{m:?}");
    }
    assert!(hits > 150, "{hits}");
}

/// A box-shaped hull gives the box's plane manifold (same points and separations).
#[test]
fn box_hull_on_plane_matches_box_plane() {
    let h = Vec3::new(0.5, 0.3, 0.7);
    let pts: Vec<Vec3> = (0..8)
        .map(|i| {
            Vec3::new(
                if i & 1 == 0 { -h.x } else { h.x },
                if i & 2 == 0 { -h.y } else { h.y },
                if i & 4 == 0 { -h.z } else { h.z },
            )
        })
        .collect();
    let hull = Shape::Hull {
        hull: Arc::new(ConvexHull::new(&pts).unwrap()),
    };
    let ground = Shape::Plane {
        normal: Vec3::Y,
        offset: 0.0,
    };
    let xb = Transform::new(Vec3::new(0.0, -1.0, 0.0), Quat::IDENTITY);
    let xa = Transform::new(Vec3::new(2.0, -0.701, 1.0), Quat::IDENTITY);
    let m = run(&hull, &xa, &ground, &xb);
    let mut mb = Manifold::default();
    super::super::plane::box_plane(
        &Shape::Box { half_extents: h },
        &xa,
        &ground,
        &xb,
        TOL,
        &mut mb,
    );
    assert_eq!(m.count, 4);
    assert_eq!(m.normal, Vec3::NEG_Y);
    let mut a: Vec<(f32, f32, f32)> = m
        .points()
        .iter()
        .map(|p| (p.point.x, p.point.z, p.separation))
        .collect();
    let mut b: Vec<(f32, f32, f32)> = mb
        .points()
        .iter()
        .map(|p| (p.point.x, p.point.z, p.separation))
        .collect();
    a.sort_by(|x, y| x.partial_cmp(y).unwrap());
    b.sort_by(|x, y| x.partial_cmp(y).unwrap());
    for (p, q) in a.iter().zip(&b) {
        assert!((p.0 - q.0).abs() < 1e-5 && (p.1 - q.1).abs() < 1e-5 && (p.2 - q.2).abs() < 1e-5);
    }
    // Ids survive jitter.
    let mut rng = Rng::new(3);
    let want = ids(&m);
    for _ in 0..100 {
        let xj = rng.jitter(&xa, 1e-4, 1e-4);
        assert_eq!(ids(&run(&hull, &xj, &ground, &xb)), want);
    }
}

/// Random rocks at random poses against a tilted plane: the deepest point's separation
/// is the f64 height of the lowest vertex; every point lies on the segment between a
/// vertex and its projection; nothing when the lowest vertex is beyond the speculative
/// distance.
#[test]
fn random_rocks_against_a_plane() {
    let mut rng = Rng::new(21);
    let plane = Shape::Plane {
        normal: Vec3::new(0.2, 1.0, -0.1).normalize(),
        offset: 0.3,
    };
    let xb = Transform::new(Vec3::new(0.5, -0.2, 0.1), rng.rotation());
    let nb = dq(xb.q) * d3(Vec3::new(0.2, 1.0, -0.1).normalize()).normalize();
    for _ in 0..300 {
        let s = rock(&mut rng);
        let Shape::Hull { ref hull } = s else {
            unreachable!()
        };
        let xa = Transform::new(
            Vec3::new(
                rng.range(-2.0, 2.0),
                rng.range(-1.0, 1.0),
                rng.range(-2.0, 2.0),
            ),
            rng.rotation(),
        );
        let height = |x: Vec3| nb.dot(d3(x) - d3(xb.p)) - 0.3;
        let lowest = hull
            .vertices()
            .iter()
            .map(|&v| height(xa.transform_point(v)))
            .fold(f64::INFINITY, f64::min);
        let m = run(&s, &xa, &plane, &xb);
        if lowest >= SPEC as f64 + 1e-4 {
            assert_eq!(m.count, 0);
            continue;
        }
        if lowest < SPEC as f64 - 1e-4 {
            assert!(m.count >= 1);
        }
        if m.count == 0 {
            continue;
        }
        assert!((d3(m.normal) + nb).length() < 1e-5);
        let deepest = m
            .points()
            .iter()
            .map(|p| p.separation as f64)
            .fold(f64::INFINITY, f64::min);
        // The reduction keeps an earlier point unless a later one is DEPTH_TOL deeper.
        assert!(
            (deepest - lowest).abs() < DEPTH_TOL as f64 + 1e-4,
            "{deepest} {lowest}"
        );
        for p in m.points() {
            // The point is halfway: its height is half the separation.
            assert!((height(p.point) - 0.5 * p.separation as f64).abs() < 1e-4);
        }
    }
}
