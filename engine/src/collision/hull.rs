//! Convex hull pairs.
//!
//! Sphere against hull, in the hull's frame: when the centre is outside, the closest hull
//! point is the nearest point of the polygons of the faces the centre is above (exact);
//! when it is inside, the sphere leaves through the face whose plane is nearest. One
//! point, halfway between the surfaces.
//!
//! Hull against plane: in the hull's frame, every vertex closer to the plane than the
//! speculative distance is a candidate (id = the vertex index); more than four are reduced
//! with the face-contact reduction of `reduce.rs` (deepest, farthest, largest triangle,
//! largest quadrilateral). Hull pairs with capsules, boxes and hulls are not
//! implemented yet: those pairs produce no contacts (the dispatch table has no entry).

use super::plane::{plane_in_frame, plane_manifold_normal};
use super::reduce::{select_four, Candidate};
use super::Manifold;
use crate::hull::MAX_HULL_VERTICES;
use crate::math::Transform;
use crate::shape::Shape;

/// Sphere A against hull B.
pub(crate) fn sphere_hull(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    speculative: f32,
    out: &mut Manifold,
) {
    let (&Shape::Sphere { radius }, Shape::Hull { hull }) = (a, b) else {
        return;
    };
    let c = xf_b.inv_mul(xf_a).p;
    // Cheap reject: the centre's height above the farthest face plane bounds the distance.
    let (face, height) = hull.max_face_distance(c);
    if height - radius >= speculative {
        return;
    }
    // `n` points from the sphere into the hull (A to B), hull frame.
    let (n, separation, hull_point) = if height > 0.0 {
        let q = hull.closest_point_outside(c);
        let d = c - q;
        let dist = d.length();
        if dist <= 1.0e-9 {
            (-hull.faces()[face].normal, -radius, q)
        } else {
            (-d / dist, dist - radius, q)
        }
    } else {
        let f = hull.faces()[face];
        (-f.normal, height - radius, c - f.normal * height)
    };
    if separation >= speculative {
        return;
    }
    let point = (c + n * radius + hull_point) * 0.5;
    out.normal = xf_b.transform_vector(n);
    out.push(xf_b.transform_point(point), separation, 0);
}

/// Hull A against plane B.
pub(crate) fn hull_plane(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    speculative: f32,
    out: &mut Manifold,
) {
    let Shape::Hull { hull } = a else {
        return;
    };
    let Some((n, d)) = plane_in_frame(b, xf_a, xf_b) else {
        return;
    };
    let mut cands = [Candidate::default(); MAX_HULL_VERTICES];
    let mut len = 0;
    for (v, &x) in hull.vertices().iter().enumerate() {
        let separation = n.dot(x) - d;
        if separation < speculative {
            cands[len] = Candidate {
                point: x - n * (0.5 * separation),
                separation,
                id: v as u32,
            };
            len += 1;
        }
    }
    if len == 0 {
        return;
    }
    out.normal = plane_manifold_normal(b, xf_b);
    let (idx, count) = select_four(&cands[..len], n);
    for &k in &idx[..count] {
        let c = cands[k];
        out.push(xf_a.transform_point(c.point), c.separation, c.id);
    }
}

#[cfg(test)]
mod tests {
    use super::super::reduce::DEPTH_TOL;
    use super::super::test_util::*;
    use super::*;
    use crate::hull::ConvexHull;
    use glam::{DVec3, Quat, Vec3};
    use std::sync::Arc;

    fn run(a: &Shape, xa: &Transform, b: &Shape, xb: &Transform) -> Manifold {
        let mut m = Manifold::default();
        hull_plane(a, xa, b, xb, SPEC, &mut m);
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
            sphere_hull(&Shape::Sphere { radius: r }, &xa, &s, &xb, SPEC, &mut m);
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
            SPEC,
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
            assert!(
                (p.0 - q.0).abs() < 1e-5 && (p.1 - q.1).abs() < 1e-5 && (p.2 - q.2).abs() < 1e-5
            );
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
}
