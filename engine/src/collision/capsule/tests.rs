use super::super::test_util::*;
use super::super::CollideFn;
use super::*;
use glam::{DVec3, Quat};

fn run(f: CollideFn, a: &Shape, xa: &Transform, b: &Shape, xb: &Transform) -> Manifold {
    let mut m = Manifold::default();
    f(a, xa, b, xb, TOL, &mut m);
    check_manifold(&m, SPEC);
    m
}

fn capsule(half_height: f32, radius: f32) -> Shape {
    Shape::Capsule {
        half_height,
        radius,
    }
}

/// A capsule's core segment in world space, f64.
fn core(h: f32, xf: &Transform) -> (DVec3, DVec3) {
    let u = dq(xf.q) * DVec3::Y * h as f64;
    (d3(xf.p) - u, d3(xf.p) + u)
}

/// Distance from `x` to the segment `[p, q]`, f64 (clamped projection).
fn point_segment(x: DVec3, (p, q): (DVec3, DVec3)) -> f64 {
    let d = q - p;
    let l2 = d.length_squared();
    let t = if l2 > 0.0 {
        ((x - p).dot(d) / l2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (x - (p + d * t)).length()
}

/// Minimum of a convex function on [0, 1] by ternary search (independent of Ericson's
/// closed form): the distance from a point moving along a segment to a convex set is
/// convex in the parameter.
fn convex_min(f: impl Fn(f64) -> f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let m1 = lo + (hi - lo) / 3.0;
        let m2 = hi - (hi - lo) / 3.0;
        if f(m1) < f(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    f(0.5 * (lo + hi)).min(f(0.0)).min(f(1.0))
}

/// Signed distance from `x` to a capsule's surface.
fn capsule_sdf(h: f32, r: f32, xf: &Transform, x: DVec3) -> f64 {
    point_segment(x, core(h, xf)) - r as f64
}

fn random_pose(rng: &mut Rng) -> Transform {
    let base = Vec3::new(
        rng.range(-1e3, 1e3),
        rng.range(-10.0, 10.0),
        rng.range(-1e3, 1e3),
    );
    Transform::new(base, rng.rotation())
}

/// Halfway check: the point is `sep/2` outside both surfaces (signed distances).
fn assert_halfway(da: f64, db: f64, sep: f32, tol: f64) {
    assert!(
        (da - 0.5 * sep as f64).abs() < tol && (db - 0.5 * sep as f64).abs() < tol,
        "{da} {db} {sep}"
    );
}

#[test]
fn sphere_capsule_matches_reference() {
    let mut rng = Rng::new(71);
    for _ in 0..400 {
        let (rs, h, rc) = (
            rng.range(0.05, 1.0),
            rng.range(0.0, 1.5),
            rng.range(0.05, 1.0),
        );
        let xb = random_pose(&mut rng);
        let xa = Transform::new(
            xb.p + rng.direction() * rng.range(0.0, h + rs + rc + 0.05),
            rng.rotation(),
        );
        let m = run(
            sphere_capsule,
            &Shape::Sphere { radius: rs },
            &xa,
            &capsule(h, rc),
            &xb,
        );
        let axis = point_segment(d3(xa.p), core(h, &xb));
        let sep = axis - (rs + rc) as f64;
        if sep >= SPEC as f64 + 1e-4 {
            assert_eq!(m.count, 0);
            continue;
        }
        if sep < SPEC as f64 - 1e-4 {
            assert_eq!(m.count, 1);
        }
        if m.count == 1 {
            let p = m.points[0];
            assert!(
                (p.separation as f64 - sep).abs() < 2e-4,
                "{} {sep}",
                p.separation
            );
            // Deep overlaps put the midpoint where other parts of the surfaces are nearer.
            if axis > 1e-3 && p.separation > -0.5 * rs.min(rc) {
                let da = (d3(p.point) - d3(xa.p)).length() - rs as f64;
                let db = capsule_sdf(h, rc, &xb, d3(p.point));
                assert_halfway(da, db, p.separation, 1e-3);
                // The normal points from the sphere's centre towards the capsule.
                let pb = d3(p.point) + d3(m.normal) * (0.5 * p.separation as f64);
                assert!(capsule_sdf(h, rc, &xb, pb).abs() < 1e-3);
            }
        }
    }
}

#[test]
fn capsule_capsule_matches_reference() {
    let mut rng = Rng::new(72);
    let mut two = 0;
    for k in 0..600 {
        let (ha, ra, hb, rb) = (
            rng.range(0.0, 1.5),
            rng.range(0.05, 0.8),
            rng.range(0.0, 1.5),
            rng.range(0.05, 0.8),
        );
        let xa = random_pose(&mut rng);
        // A third of the cases nearly parallel (within 2°).
        let qb = if k % 3 == 0 {
            (Quat::from_axis_angle(rng.direction(), rng.range(0.0, 0.035)) * xa.q).normalize()
        } else {
            rng.rotation()
        };
        let reach = ha + hb + ra + rb + 0.05;
        let xb = Transform::new(xa.p + rng.direction() * rng.range(0.0, reach), qb);
        let m = run(
            capsule_capsule,
            &capsule(ha, ra),
            &xa,
            &capsule(hb, rb),
            &xb,
        );
        let (sa, sb) = (core(ha, &xa), core(hb, &xb));
        let axis = convex_min(|t| point_segment(sb.0 + (sb.1 - sb.0) * t, sa));
        let sep = axis - (ra + rb) as f64;
        if sep >= SPEC as f64 + 1e-4 {
            assert_eq!(m.count, 0);
            continue;
        }
        if sep < SPEC as f64 - 1e-4 {
            assert!(m.count >= 1);
        }
        if m.count == 0 {
            continue;
        }
        let deepest = m
            .points()
            .iter()
            .map(|p| p.separation)
            .fold(f32::MAX, f32::min);
        if m.count == 1 {
            let p = m.points[0];
            assert!(
                (p.separation as f64 - sep).abs() < 2e-4,
                "{} {sep}",
                p.separation
            );
            if axis > 1e-3 && p.separation > -0.5 * ra.min(rb) {
                let da = capsule_sdf(ha, ra, &xa, d3(p.point));
                let db = capsule_sdf(hb, rb, &xb, d3(p.point));
                assert_halfway(da, db, p.separation, 1e-3);
                let n = d3(m.normal);
                let pa = d3(p.point) - n * (0.5 * p.separation as f64);
                assert!(capsule_sdf(ha, ra, &xa, pa).abs() < 1e-3);
            }
        } else {
            two += 1;
            // Parallel pairs: the deepest point carries the distance (or is more
            // conservative by the tilt over the clipped length).
            assert!(deepest as f64 <= sep + 2e-4, "{deepest} {sep} {m:?}");
            assert!(deepest as f64 > sep - 0.01, "{deepest} {sep} {m:?}");
            // Each point's true local gap is at least its separation, up to the tilt.
            for p in m.points() {
                let da = capsule_sdf(ha, ra, &xa, d3(p.point));
                let db = capsule_sdf(hb, rb, &xb, d3(p.point));
                assert!((da + db) >= p.separation as f64 - 2e-3, "{da} {db} {p:?}");
            }
        }
    }
    assert!(two > 20, "{two} two-point manifolds");
}

/// GJK with segment cores (what time of impact and shape casts use) against the same
/// reference, for separated capsule pairs.
#[test]
fn gjk_capsule_distance_matches_reference() {
    let mut rng = Rng::new(77);
    for _ in 0..300 {
        let (ha, ra, hb, rb) = (
            rng.range(0.0, 1.5),
            rng.range(0.05, 0.8),
            rng.range(0.0, 1.5),
            rng.range(0.05, 0.8),
        );
        let xa = random_pose(&mut rng);
        let reach = ha + hb + ra + rb + 1.0;
        let xb = Transform::new(
            xa.p + rng.direction() * rng.range(0.0, reach),
            rng.rotation(),
        );
        let (sa, sb) = (core(ha, &xa), core(hb, &xb));
        let axis = convex_min(|t| point_segment(sb.0 + (sb.1 - sb.0) * t, sa));
        let d = shape_distance(&capsule(ha, ra), &xa, &capsule(hb, rb), &xb).unwrap();
        if axis < 1e-3 {
            continue;
        }
        assert!(!d.overlap);
        assert!((d.distance as f64 - (axis - (ra + rb) as f64)).abs() < 2e-4);
        // Witnesses on the surfaces, the normal between them.
        assert!(capsule_sdf(ha, ra, &xa, d3(d.point_a)).abs() < 1e-3);
        assert!(capsule_sdf(hb, rb, &xb, d3(d.point_b)).abs() < 1e-3);
    }
}

#[test]
fn capsule_lying_on_capsule_has_two_stable_points() {
    let a = capsule(1.0, 0.25);
    let xa = Transform::new(
        Vec3::new(500.0, 0.0, -300.0),
        Quat::from_rotation_z(1.5707964),
    );
    let xb = Transform::new(xa.p + Vec3::new(0.3, 0.499, 0.0), xa.q);
    let m = run(capsule_capsule, &a, &xa, &capsule(0.5, 0.25), &xb);
    assert_eq!(m.count, 2);
    assert!((m.normal - Vec3::Y).length() < 1e-5);
    for p in m.points() {
        assert!((p.separation + 0.001).abs() < 1e-4, "{m:?}");
    }
    // The same features after a small motion: the same ids.
    let mut rng = Rng::new(73);
    let before = ids(&m);
    for _ in 0..20 {
        let xb2 = rng.jitter(&xb, 0.002, 0.002);
        let m2 = run(capsule_capsule, &a, &xa, &capsule(0.5, 0.25), &xb2);
        assert_eq!(ids(&m2), before);
    }
}

#[test]
fn capsule_box_matches_reference() {
    let mut rng = Rng::new(74);
    let mut two = 0;
    for k in 0..600 {
        let (hc, r) = (rng.range(0.0, 1.2), rng.range(0.05, 0.6));
        let he = rng.extents(0.1, 1.0);
        let xb = random_pose(&mut rng);
        // A third lie nearly flat on the box's +y face.
        let xa = if k % 3 == 0 {
            let tilt = Quat::from_axis_angle(rng.direction(), rng.range(0.0, 0.02));
            let q = xb.q * tilt * Quat::from_rotation_z(1.5707964);
            let local = Vec3::new(
                rng.range(-he.x, he.x),
                he.y + r + rng.range(-0.01, 0.02),
                rng.range(-he.z, he.z),
            );
            Transform::new(xb.transform_point(local), q.normalize())
        } else {
            let reach = he.length() + hc + r + 0.05;
            Transform::new(
                xb.p + rng.direction() * rng.range(0.0, reach),
                rng.rotation(),
            )
        };
        let m = run(
            capsule_box,
            &capsule(hc, r),
            &xa,
            &Shape::Box { half_extents: he },
            &xb,
        );
        let seg = core(hc, &xa);
        let axis = convex_min(|t| box_sdf(he, &xb, (seg.0 + (seg.1 - seg.0) * t).as_vec3()));
        if axis <= 1e-3 {
            // The segment reaches the box: deep, measured on box face axes only.
            assert!(
                m.count >= 1 && m.points().iter().any(|p| p.separation < 0.0),
                "{axis} {m:?}"
            );
            continue;
        }
        let sep = axis - r as f64;
        if sep >= SPEC as f64 + 1e-4 {
            assert_eq!(m.count, 0);
            continue;
        }
        if sep < SPEC as f64 - 1e-4 {
            assert!(m.count >= 1, "{sep}");
        }
        if m.count == 0 {
            continue;
        }
        two += usize::from(m.count == 2);
        let deepest = m
            .points()
            .iter()
            .map(|p| p.separation)
            .fold(f32::MAX, f32::min);
        assert!((deepest as f64 - sep).abs() < 3e-4, "{deepest} {sep} {m:?}");
        let n = d3(m.normal);
        // Deep overlaps put these points where other parts of the surfaces are nearer.
        for p in m.points().iter().filter(|p| p.separation > -0.5 * r) {
            // Stepping half the separation back lands on the capsule (for the deepest
            // point; a clipped end of a tilted capsule steps to its end sphere's lowest
            // point, inside the capsule), forward on the box.
            let pa = d3(p.point) - n * (0.5 * p.separation as f64);
            let pb = d3(p.point) + n * (0.5 * p.separation as f64);
            let da = capsule_sdf(hc, r, &xa, pa);
            assert!(da < 1e-3, "{p:?} {m:?}");
            if p.separation == deepest {
                assert!(da.abs() < 1e-3, "{p:?} {m:?}");
            }
            assert!(box_sdf(he, &xb, pb.as_vec3()).abs() < 1e-3, "{p:?} {m:?}");
        }
    }
    assert!(two > 50, "{two} two-point manifolds");
}

#[test]
fn capsule_on_box_face_ids_are_stable() {
    let ground = Shape::Box {
        half_extents: Vec3::new(5.0, 0.5, 5.0),
    };
    let a = capsule(0.8, 0.2);
    let xa = Transform::new(Vec3::new(0.3, 0.699, 0.1), Quat::from_rotation_x(1.5707964));
    let m = run(capsule_box, &a, &xa, &ground, &Transform::IDENTITY);
    assert_eq!(m.count, 2);
    assert!((m.normal - Vec3::NEG_Y).length() < 1e-6);
    let before = ids(&m);
    let mut rng = Rng::new(75);
    for _ in 0..20 {
        let m2 = run(
            capsule_box,
            &a,
            &rng.jitter(&xa, 0.001, 0.002),
            &ground,
            &Transform::IDENTITY,
        );
        assert_eq!(ids(&m2), before);
    }
    // Hanging over the edge: the clipped end is on the side plane.
    let over = Transform::new(Vec3::new(4.5, 0.699, 0.0), Quat::from_rotation_z(1.5707964));
    let m = run(capsule_box, &a, &over, &ground, &Transform::IDENTITY);
    assert_eq!(m.count, 2);
    assert!(m.points().iter().any(|p| (p.point.x - 5.0).abs() < 1e-5));
}

/// A capsule of zero length touches like a sphere: one point, never two coincident ones.
#[test]
fn zero_length_capsule_gives_one_point() {
    let a = capsule(0.0, 0.5);
    let xa = Transform::new(Vec3::new(0.2, 0.499, -0.1), Quat::from_rotation_x(0.3));
    let ground = Shape::Box {
        half_extents: Vec3::new(2.0, 0.5, 2.0),
    };
    let xg = Transform::new(Vec3::new(0.0, -0.5, 0.0), Quat::IDENTITY);
    let m = run(capsule_box, &a, &xa, &ground, &xg);
    assert_eq!(m.count, 1);
    assert!((m.points[0].separation + 0.001).abs() < 1e-5);
    let plane = Shape::Plane {
        normal: Vec3::Y,
        offset: 0.0,
    };
    let m = run(capsule_plane, &a, &xa, &plane, &Transform::IDENTITY);
    assert_eq!(m.count, 1);
    assert!((m.points[0].separation + 0.001).abs() < 1e-5);
    let xb = Transform::new(Vec3::new(0.2, -0.25, -0.1), Quat::IDENTITY);
    let m = run(capsule_capsule, &a, &xa, &capsule(0.0, 0.25), &xb);
    assert_eq!(m.count, 1);
    assert!((m.points[0].separation + 0.001).abs() < 1e-5);
}

#[test]
fn capsule_plane_matches_reference() {
    let mut rng = Rng::new(76);
    let plane = Shape::Plane {
        normal: Vec3::new(0.0, 0.6, 0.8),
        offset: 0.5,
    };
    for _ in 0..400 {
        let (h, r) = (rng.range(0.0, 1.5), rng.range(0.05, 0.8));
        let xb = Transform::new(Vec3::new(rng.range(-1e3, 1e3), 0.0, 0.0), rng.rotation());
        let n = xb.q * Vec3::new(0.0, 0.6, 0.8);
        let xa = Transform::new(
            xb.p + n * (0.5 + rng.range(-h - r, h + r + 0.1)),
            rng.rotation(),
        );
        let m = run(capsule_plane, &capsule(h, r), &xa, &plane, &xb);
        let top = d3(n).dot(d3(xb.p)) + 0.5;
        let (e0, e1) = core(h, &xa);
        for (k, e) in [e0, e1].into_iter().enumerate() {
            let sep = d3(n).dot(e) - top - r as f64;
            let p = m.points().iter().find(|p| p.id == k as u32);
            if sep < SPEC as f64 - 1e-4 {
                let p = p.expect("end point");
                assert!((p.separation as f64 - sep).abs() < 2e-4);
                // Halfway between the end sphere's lowest point and the plane.
                let height = d3(n).dot(d3(p.point)) - top;
                assert!((height - 0.5 * sep).abs() < 2e-4);
                assert!((m.normal + n).length() < 1e-5);
            } else if sep >= SPEC as f64 + 1e-4 {
                assert!(p.is_none());
            }
        }
    }
}

/// The unit vector along box axis `axis` (of a random sign when `signed`, else positive),
/// or a random direction when there is no axis.
fn axis_or_direction(rng: &mut Rng, axis: Option<usize>, signed: bool) -> Vec3 {
    match axis {
        Some(j) => {
            let mut d = Vec3::ZERO;
            d[j] = if signed && rng.unit() < 0.5 {
                -1.0
            } else {
                1.0
            };
            d
        }
        None => rng.direction(),
    }
}

/// The exact segment–box distance against an f64 ternary search, for random segments
/// (a quarter of them along a box axis, where the nearest stretch can be flat): the same
/// distance, witnesses on both surfaces, the normal along them; and beside an edge, the
/// middle of the flat stretch.
#[test]
fn segment_box_distance_matches_reference() {
    let mut rng = Rng::new(91);
    let mut flat = 0;
    for k in 0..2000 {
        let h = rng.extents(0.1, 1.0);
        let r = rng.range(0.05, 0.5);
        let dir = axis_or_direction(&mut rng, (k % 4 == 0).then_some(k / 4 % 3), true);
        let seg = dir * rng.range(0.0, 2.5);
        let p0 = rng.direction() * rng.range(0.0, 2.0) - 0.5 * seg;
        let d = segment_box_distance(p0, seg, r, h);
        let (dp0, dseg) = (d3(p0), d3(seg));
        let outside = |t: f64| {
            let x = dp0 + dseg * t;
            (x - x.clamp(-d3(h), d3(h))).length()
        };
        let core = convex_min(outside);
        if core <= 1.0e-5 {
            assert!(d.overlap, "{core} {d:?}");
            continue;
        }
        assert!(!d.overlap && core > 1.0e-6, "{core} {d:?}");
        assert!(
            (d.distance as f64 - (core - r as f64)).abs() < 1.0e-5,
            "{core} {d:?}"
        );
        // B's witness on the box's surface, A's at the radius from the core, the normal
        // from one to the other.
        let b = d3(d.point_b);
        assert!((b - b.clamp(-d3(h), d3(h))).length() < 1.0e-6, "{d:?}");
        let core_a = d3(d.point_a - d.normal * r);
        let t = ((core_a - dp0).dot(dseg) / dseg.length_squared().max(1e-30)).clamp(0.0, 1.0);
        assert!((core_a - (dp0 + dseg * t)).length() < 1.0e-5, "{d:?}");
        let gap = d.point_b - d.point_a;
        assert!((gap - d.normal * d.distance).length() < 1.0e-5, "{d:?}");
        // Along an axis, beside the box: the whole stretch within the slab is as near;
        // the point is its middle.
        let j = (0..3).find(|&j| dir[j] != 0.0);
        if let (true, Some(j)) = (k % 4 == 0, j) {
            let (lo, hi) = (p0[j].min(p0[j] + seg[j]), p0[j].max(p0[j] + seg[j]));
            let (a, b) = (lo.max(-h[j]), hi.min(h[j]));
            if b - a > 1.0e-3 {
                flat += 1;
                let x = d.point_a[j];
                assert!((x - 0.5 * (a + b)).abs() < 1.0e-4, "{x} {a} {b} {d:?}");
            }
        }
    }
    assert!(flat > 100, "{flat} flat stretches");
}

/// The gap that lets a capsule–box pair skip the exact distance is a lower bound of it,
/// for random segments near and far (a third along a box axis, where the bound is
/// tightest): wherever the gap says apart, the exact distance says so too, so the skip
/// changes no manifold.
#[test]
fn segment_box_gap_is_below_the_distance() {
    let mut rng = Rng::new(17);
    let mut apart = 0;
    for k in 0..5000 {
        let h = rng.extents(0.05, 3.0);
        let dir = axis_or_direction(&mut rng, (k % 3 == 0).then_some(k / 3 % 3), false);
        let seg = dir * rng.range(0.0, 2.0);
        let p0 = rng.direction() * rng.range(0.0, 6.0) - 0.5 * seg;
        let gap = segment_box_gap(p0, seg, h);
        let d = segment_box_distance(p0, seg, 0.0, h);
        assert!(
            gap <= d.distance,
            "{gap} > {} for {p0} {seg} {h}",
            d.distance
        );
        for speculative in [0.0, 0.02, 0.1] {
            if gap > speculative {
                apart += 1;
                assert!(!d.overlap && d.distance >= speculative, "{gap} {d:?}");
            }
        }
    }
    // The bound is not vacuous: most of these pairs are apart and it says so.
    assert!(apart > 5000, "{apart}");
}

/// The face crossings of the core, face by face with a branch for each test (as
/// `face_crossings` found them before it masked six divisions): in face order, padded with
/// +inf.
fn crossings_reference(p0: Vec3, seg: Vec3, h: Vec3) -> ([f32; 6], usize) {
    let mut crossed = [f32::INFINITY; 6];
    let mut n = 0;
    for j in 0..3 {
        if seg[j] != 0.0 {
            for face in [-h[j], h[j]] {
                let x = face - p0[j];
                if x != 0.0 && (x > 0.0) == (seg[j] > 0.0) && x.abs() < seg[j].abs() {
                    let t = x / seg[j];
                    if t > 0.0 && t < 1.0 {
                        crossed[n] = t;
                        n += 1;
                    }
                }
            }
        }
    }
    (crossed, n)
}

/// The piece-by-piece loop `nearest_on_segment` replaced (as it was): the reference its
/// lanes must match bit for bit.
fn nearest_reference(p0: Vec3, seg: Vec3, h: Vec3) -> f32 {
    // The breakpoints inside (0, 1), found face by face as the lanes' crossings were
    // before their mask, then sorted.
    let (crossed, count) = crossings_reference(p0, seg, h);
    let mut cuts = [0.0f32; 8];
    cuts[1..=count].copy_from_slice(&crossed[..count]);
    let mut n = count + 1;
    cuts[n] = 1.0;
    n += 1;
    if n > 3 {
        cuts[1..n - 1].sort_unstable_by(f32::total_cmp);
    }
    let outside = |x: Vec3| {
        let c = x.clamp(-h, h);
        (x - c).length_squared()
    };
    // A piece along which the distance barely changes (the core parallel, to within
    // 1e-4 of its direction, to the faces it is outside of) is a line contact: its one
    // point belongs in the middle, not at whichever end rounding favours. It wins over the
    // other pieces' minimum when it is as near, to within what the distance can change
    // over its half (`slack`).
    let flat_den = 1.0e-8 * seg.length_squared();
    let (mut best_t, mut best_d2) = (0.0f32, f32::INFINITY);
    let mut flat: Option<(f32, f32, f32)> = None;
    for w in cuts[..n].windows(2) {
        let (lo, hi) = (w[0], w[1]);
        // Which side of each slab the piece lies on, from its middle.
        let mid = p0 + seg * (0.5 * (lo + hi));
        let (mut num, mut den) = (0.0f32, 0.0f32);
        for j in 0..3 {
            let face = if mid[j] > h[j] {
                h[j]
            } else if mid[j] < -h[j] {
                -h[j]
            } else {
                continue;
            };
            num -= (p0[j] - face) * seg[j];
            den += seg[j] * seg[j];
        }
        if den <= flat_den {
            let t = 0.5 * (lo + hi);
            let d2 = outside(p0 + seg * t);
            if flat.is_none_or(|(_, f2, _)| d2 < f2) {
                flat = Some((t, d2, 0.5 * den.sqrt() * (hi - lo)));
            }
            continue;
        }
        let t = (num / den).clamp(lo, hi);
        let d2 = outside(p0 + seg * t);
        if d2 < best_d2 {
            (best_t, best_d2) = (t, d2);
        }
    }
    if let Some((t, d2, slack)) = flat {
        if d2.sqrt() <= best_d2.sqrt() + slack + 1.0e-7 {
            best_t = t;
        }
    }
    best_t
}

/// The lanes' crossings and nearest point on the core give the same bits as the
/// face-by-face and piece-by-piece loops, on random segments near boxes: along an axis
/// (flat stretches), across faces, through the box, and of zero length.
#[test]
fn nearest_on_segment_matches_the_loop_bit_for_bit() {
    let mut rng = Rng::new(23);
    for k in 0..200_000 {
        let h = rng.extents(0.05, 2.0);
        let axis = (k % 4 == 0).then_some(k / 4 % 3);
        let dir = axis_or_direction(&mut rng, axis, k % 8 == 1);
        let seg = if k % 97 == 0 {
            Vec3::ZERO
        } else {
            dir * rng.range(0.0, 4.0)
        };
        let p0 = rng.direction() * rng.range(0.0, 3.0) - 0.5 * seg;
        let (crossed, count) = face_crossings(p0, seg, h);
        let (mut expect, n) = crossings_reference(p0, seg, h);
        expect.sort_unstable_by(f32::total_cmp);
        assert_eq!(
            (crossed.map(f32::to_bits), count),
            (expect.map(f32::to_bits), n)
        );
        let (lanes, loop_) = (
            nearest_on_segment(p0, seg, h),
            nearest_reference(p0, seg, h),
        );
        assert_eq!(
            lanes.to_bits(),
            loop_.to_bits(),
            "{p0} {seg} {h}: {lanes} {loop_}"
        );
    }
}
