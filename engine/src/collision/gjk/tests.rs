use super::*;
use crate::collision::test_util::Rng;
use glam::Quat;

/// Exact distance from a point to a box (clamping in the box frame).
fn point_box(p: Vec3, he: Vec3, xf: &Transform) -> f32 {
    let l = xf.inv_transform_point(p);
    (l - l.clamp(-he, he)).length()
}

fn corners(he: Vec3) -> [Vec3; 8] {
    std::array::from_fn(|i| {
        Vec3::new(
            if i & 1 == 0 { -he.x } else { he.x },
            if i & 2 == 0 { -he.y } else { he.y },
            if i & 4 == 0 { -he.z } else { he.z },
        )
    })
}

/// Points along the 12 edges of a box (local), `k` per edge.
fn edge_points(he: Vec3, k: usize) -> Vec<Vec3> {
    let c = corners(he);
    let mut out = Vec::new();
    for i in 0..8 {
        for bit in [1, 2, 4] {
            let j = i | bit;
            if j != i {
                for s in 0..=k {
                    let t = s as f32 / k as f32;
                    out.push(c[i] * (1.0 - t) + c[j] * t);
                }
            }
        }
    }
    out
}

/// Brute force: the minimum over sampled edge points of each box of the exact distance
/// to the other box; never below the true distance, above it by at most half the
/// sample spacing.
fn box_box_brute(ha: Vec3, xa: &Transform, hb: Vec3, xb: &Transform, k: usize) -> f32 {
    let mut best = f32::MAX;
    for p in edge_points(ha, k) {
        best = best.min(point_box(xa.transform_point(p), hb, xb));
    }
    for p in edge_points(hb, k) {
        best = best.min(point_box(xb.transform_point(p), ha, xa));
    }
    best
}

fn random_pose(rng: &mut Rng, spread: f32) -> Transform {
    let p = Vec3::new(
        rng.range(-spread, spread),
        rng.range(-spread, spread),
        rng.range(-spread, spread),
    );
    Transform::new(p, rng.rotation())
}

fn random_he(rng: &mut Rng) -> Vec3 {
    Vec3::new(
        rng.range(0.05, 1.0),
        rng.range(0.05, 1.0),
        rng.range(0.02, 1.0),
    )
}

#[test]
fn sphere_sphere_matches_closed_form() {
    let mut rng = Rng::new(11);
    for _ in 0..500 {
        let (xa, xb) = (random_pose(&mut rng, 3.0), random_pose(&mut rng, 3.0));
        let (ra, rb) = (rng.range(0.05, 1.0), rng.range(0.05, 1.0));
        let a = Shape::Sphere { radius: ra };
        let b = Shape::Sphere { radius: rb };
        let d = shape_distance(&a, &xa, &b, &xb).unwrap();
        let exact = (xb.p - xa.p).length() - ra - rb;
        if exact > 1.0e-3 {
            assert!(!d.overlap);
            assert!(
                (d.distance - exact).abs() < 1.0e-4,
                "{} vs {exact}",
                d.distance
            );
            let n = (xb.p - xa.p).normalize();
            assert!(d.normal.dot(n) > 0.9999);
        } else if exact < -1.0e-3 {
            assert!(d.distance <= 0.0);
        }
    }
}

#[test]
fn sphere_box_matches_closed_form() {
    let mut rng = Rng::new(12);
    for _ in 0..2000 {
        let (xa, xb) = (random_pose(&mut rng, 2.5), random_pose(&mut rng, 2.5));
        let r = rng.range(0.02, 0.8);
        let he = random_he(&mut rng);
        let a = Shape::Sphere { radius: r };
        let b = Shape::Box { half_extents: he };
        let exact = point_box(xa.p, he, &xb) - r;
        for (d, swap) in [
            (shape_distance(&a, &xa, &b, &xb).unwrap(), false),
            (shape_distance(&b, &xb, &a, &xa).unwrap(), true),
        ] {
            if exact > 1.0e-3 {
                assert!(!d.overlap, "exact {exact}");
                assert!(
                    (d.distance - exact).abs() < 2.0e-4,
                    "{} vs {exact}",
                    d.distance
                );
                // The witness points lie on the surfaces and span the distance.
                let (ps, pb) = if swap {
                    (d.point_b, d.point_a)
                } else {
                    (d.point_a, d.point_b)
                };
                assert!(((ps - xa.p).length() - r).abs() < 1.0e-4);
                assert!(point_box(pb, he, &xb) < 1.0e-4);
                assert!(((d.point_b - d.point_a).length() - exact).abs() < 2.0e-4);
            } else if exact < -1.0e-3 {
                assert!(d.distance <= 0.0);
            }
        }
    }
}

#[test]
fn box_box_matches_brute_force() {
    let mut rng = Rng::new(13);
    let k = 400;
    let mut separated = 0;
    for _ in 0..300 {
        let (xa, xb) = (random_pose(&mut rng, 2.0), random_pose(&mut rng, 2.0));
        let (ha, hb) = (random_he(&mut rng), random_he(&mut rng));
        let a = Shape::Box { half_extents: ha };
        let b = Shape::Box { half_extents: hb };
        let d = shape_distance(&a, &xa, &b, &xb).unwrap();
        let brute = box_box_brute(ha, &xa, hb, &xb, k);
        // Half the largest sample spacing (edges up to 2 m long).
        let spacing = 2.0 / k as f32;
        if brute > spacing + 1.0e-3 {
            separated += 1;
            assert!(!d.overlap, "brute {brute}");
            assert!(d.distance <= brute + 2.0e-4, "{} > {brute}", d.distance);
            assert!(
                d.distance >= brute - spacing - 2.0e-4,
                "{} << {brute}",
                d.distance
            );
            assert!(point_box(d.point_a, ha, &xa) < 2.0e-4);
            assert!(point_box(d.point_b, hb, &xb) < 2.0e-4);
            let n = (d.point_b - d.point_a) / d.distance;
            assert!(n.dot(d.normal) > 0.999);
        } else if brute == 0.0 {
            // Sampled edge points inside the other box: the boxes overlap.
            assert!(d.overlap || d.distance < 1.0e-3);
        }
    }
    assert!(
        separated > 100,
        "the poses test separated boxes: {separated}"
    );
}

#[test]
fn far_from_origin_keeps_precision() {
    let shift = Vec3::new(1.0e4, -2.0e4, 5.0e3);
    let a = Shape::Box {
        half_extents: Vec3::new(0.5, 0.01, 0.5),
    };
    let b = Shape::Box {
        half_extents: Vec3::splat(0.5),
    };
    let xa = Transform::new(shift + Vec3::new(0.1, 0.537, 0.0), Quat::IDENTITY);
    let xb = Transform::new(shift, Quat::IDENTITY);
    let d = shape_distance(&a, &xa, &b, &xb).unwrap();
    assert!((d.distance - 0.027).abs() < 2.0e-3, "{}", d.distance);
    assert!(d.normal.dot(-Vec3::Y) > 0.999);
}

#[test]
fn plane_distance_is_the_lowest_vertex() {
    let mut rng = Rng::new(14);
    for _ in 0..500 {
        let xa = random_pose(&mut rng, 3.0);
        let he = random_he(&mut rng);
        let a = Shape::Box { half_extents: he };
        let normal = rng.direction();
        let offset = rng.range(-1.0, 1.0);
        let plane = Shape::Plane { normal, offset };
        let xp = random_pose(&mut rng, 1.0);
        let n = xp.q * normal;
        let top = n.dot(xp.p) + offset;
        let exact = corners(he)
            .iter()
            .map(|&c| n.dot(xa.transform_point(c)) - top)
            .fold(f32::MAX, f32::min);
        let d = shape_distance(&a, &xa, &plane, &xp).unwrap();
        assert!((d.distance - exact).abs() < 1.0e-4);
        assert!(d.normal.dot(-n) > 0.9999);
        let e = shape_distance(&plane, &xp, &a, &xa).unwrap();
        assert_eq!(e.distance, d.distance);
        assert!(e.normal.dot(n) > 0.9999);
        let s = Shape::Sphere { radius: 0.3 };
        let d = shape_distance(&s, &xa, &plane, &xp).unwrap();
        assert!((d.distance - (n.dot(xa.p) - top - 0.3)).abs() < 1.0e-4);
    }
}

#[test]
fn overlapping_cores_report_overlap() {
    let a = Shape::Box {
        half_extents: Vec3::splat(0.5),
    };
    let xa = Transform::IDENTITY;
    let xb = Transform::new(Vec3::new(0.3, 0.2, 0.1), Quat::from_rotation_y(0.4));
    let d = shape_distance(&a, &xa, &a, &xb).unwrap();
    assert!(d.overlap && d.distance <= 0.0);
    let s = Shape::Sphere { radius: 0.1 };
    let d = shape_distance(&s, &xb, &a, &xa).unwrap();
    assert!(d.overlap);
    assert!(shape_distance(
        &Shape::Plane {
            normal: Vec3::Y,
            offset: 0.0
        },
        &xa,
        &Shape::Plane {
            normal: Vec3::Y,
            offset: 0.0
        },
        &xb
    )
    .is_none());
}
