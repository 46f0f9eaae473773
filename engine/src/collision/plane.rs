//! Pairs with a plane (B, a static half-space `{x : n · x <= offset}` in its body frame).
//!
//! The plane is brought into A's frame (from the relative transform, for precision far from
//! the origin), where A's geometry is trivial. The manifold normal points from A into the
//! plane, i.e. it is minus the plane's outward normal.

use super::reduce::{select_four, Candidate};
use super::{Manifold, Tolerance};
use crate::math::Transform;
use crate::shape::Shape;
use glam::Vec3;

/// The plane of `plane` (owned by the body at `xf_b`) in the frame of `xf_a`: a unit outward
/// normal `n` and an offset `d`, the solid being `{x : n · x <= d}`. `None` for a degenerate
/// normal (validation rejects those; this keeps unvalidated input from producing NaN).
pub(super) fn plane_in_frame(
    plane: &Shape,
    xf_a: &Transform,
    xf_b: &Transform,
) -> Option<(Vec3, f32)> {
    let Shape::Plane { normal, offset } = *plane else {
        return None;
    };
    let len = normal.length();
    if !len.is_finite() || len <= 1.0e-6 {
        return None;
    }
    let rel = xf_a.inv_mul(xf_b);
    // x_b = rel⁻¹ x_a, so n · x_b <= offset  <=>  (q n) · (x_a - p) <= offset.
    let n = rel.q * (normal / len);
    Some((n, offset / len + n.dot(rel.p)))
}

/// The world-space manifold normal for a plane: minus its outward normal (A into the plane).
/// Rotating the plane's own normal by its own body keeps an axis-aligned ground exact.
pub(super) fn plane_manifold_normal(plane: &Shape, xf_b: &Transform) -> Vec3 {
    let Shape::Plane { normal, .. } = *plane else {
        return Vec3::NEG_Y;
    };
    xf_b.transform_vector(-normal).normalize_or(Vec3::NEG_Y)
}

/// Sphere A against plane B: one point, id 0.
pub(crate) fn sphere_plane(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    tol: Tolerance,
    out: &mut Manifold,
) {
    let Shape::Sphere { radius } = *a else {
        return;
    };
    let Some((n, d)) = plane_in_frame(b, xf_a, xf_b) else {
        return;
    };
    // The centre (the origin of A's frame) is at height -d above the plane.
    let separation = -d - radius;
    if separation >= tol.speculative {
        return;
    }
    // Halfway between the sphere's lowest point (-r n) and the centre's projection (d n).
    let point = n * (0.5 * (d - radius));
    out.normal = plane_manifold_normal(b, xf_b);
    out.push(xf_a.transform_point(point), separation, 0);
}

/// Box A against plane B: one point per box vertex closer than `speculative`, id = the
/// vertex index (bit k set = the + side along local axis k). A box lying flat has 4; only a
/// box thinner than the speculative distance, or sunk deeper than its height, has more, and
/// those are reduced to 4 as face contacts are.
pub(crate) fn box_plane(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    tol: Tolerance,
    out: &mut Manifold,
) {
    let Shape::Box { half_extents: h } = *a else {
        return;
    };
    let Some((n, d)) = plane_in_frame(b, xf_a, xf_b) else {
        return;
    };
    // Cheap reject: the lowest vertex's height is -d - (support radius along n).
    let radius = h.x * n.x.abs() + h.y * n.y.abs() + h.z * n.z.abs();
    if -d - radius >= tol.speculative {
        return;
    }
    let corners = (0..8u32).map(|v| {
        let corner = Vec3::new(
            if v & 1 != 0 { h.x } else { -h.x },
            if v & 2 != 0 { h.y } else { -h.y },
            if v & 4 != 0 { h.z } else { -h.z },
        );
        (v, corner)
    });
    vertices_on_plane::<8>(corners, n, d, tol.speculative, b, xf_a, xf_b, out);
}

/// The contacts of a polyhedron's vertices `(id, point)` (A's frame) with the plane
/// `n·x = d` (also in A's frame): every vertex closer than `speculative`, at the midpoint of
/// the vertex and its projection, reduced to four; `N` bounds the vertex count.
#[allow(clippy::too_many_arguments)]
pub(super) fn vertices_on_plane<const N: usize>(
    vertices: impl Iterator<Item = (u32, Vec3)>,
    n: Vec3,
    d: f32,
    speculative: f32,
    plane: &Shape,
    xf_a: &Transform,
    xf_plane: &Transform,
    out: &mut Manifold,
) {
    let mut cands = [Candidate::default(); N];
    let mut len = 0;
    for (id, x) in vertices {
        let separation = n.dot(x) - d;
        if separation < speculative {
            cands[len] = Candidate {
                point: x - n * (0.5 * separation),
                separation,
                id,
            };
            len += 1;
        }
    }
    if len == 0 {
        return;
    }
    out.normal = plane_manifold_normal(plane, xf_plane);
    let (idx, count) = select_four(&cands[..len], n);
    for &k in &idx[..count] {
        let c = cands[k];
        out.push(xf_a.transform_point(c.point), c.separation, c.id);
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::super::CollideFn;
    use super::*;
    use glam::Quat;

    fn run(f: CollideFn, a: &Shape, xa: &Transform, b: &Shape, xb: &Transform) -> Manifold {
        let mut m = Manifold::default();
        f(a, xa, b, xb, TOL, &mut m);
        check_manifold(&m, SPEC);
        m
    }

    fn ground() -> Shape {
        Shape::Plane {
            normal: Vec3::Y,
            offset: 0.0,
        }
    }

    fn cube(h: Vec3) -> Shape {
        Shape::Box { half_extents: h }
    }

    /// Height of a world point above a plane shape at pose `xf` (f64 reference).
    fn plane_height(plane: &Shape, xf: &Transform, x: Vec3) -> f64 {
        let Shape::Plane { normal, offset } = *plane else {
            unreachable!()
        };
        let n = dq(xf.q) * d3(normal).normalize();
        n.dot(d3(x) - d3(xf.p)) - offset as f64
    }

    #[test]
    fn sphere_resting_on_plane() {
        let xb = Transform::new(Vec3::new(0.0, 2.0, 0.0), Quat::IDENTITY);
        let xa = Transform::new(Vec3::new(5.0, 2.499, -3.0), Quat::from_rotation_z(0.3));
        let m = run(
            sphere_plane,
            &Shape::Sphere { radius: 0.5 },
            &xa,
            &ground(),
            &xb,
        );
        assert_eq!(m.count, 1);
        assert_eq!(m.normal, Vec3::NEG_Y);
        assert!((m.points[0].separation + 0.001).abs() < 1e-5);
        assert!((m.points[0].point - Vec3::new(5.0, 1.9995, -3.0)).length() < 1e-5);
        let xa = Transform::new(Vec3::new(0.0, 2.53, 0.0), Quat::IDENTITY);
        assert_eq!(
            run(
                sphere_plane,
                &Shape::Sphere { radius: 0.5 },
                &xa,
                &ground(),
                &xb
            )
            .count,
            0
        );
    }

    #[test]
    fn box_resting_on_plane() {
        let h = Vec3::splat(0.5);
        let xb = Transform::new(Vec3::new(0.0, -1.0, 0.0), Quat::IDENTITY);
        let xa = Transform::new(Vec3::new(2.0, -0.501, 1.0), Quat::IDENTITY);
        let m = run(box_plane, &cube(h), &xa, &ground(), &xb);
        assert_eq!(m.count, 4);
        assert_eq!(m.normal, Vec3::NEG_Y);
        // The bottom vertices: y bit clear.
        assert_eq!(ids(&m), vec![0, 1, 4, 5]);
        for p in m.points() {
            assert!((p.separation + 0.001).abs() < 1e-5);
            assert!((p.point.y + 1.0005).abs() < 1e-5);
        }
        // Ids survive jitter.
        let mut rng = Rng::new(3);
        for _ in 0..100 {
            let xj = rng.jitter(&xa, 1e-4, 1e-4);
            assert_eq!(
                ids(&run(box_plane, &cube(h), &xj, &ground(), &xb)),
                vec![0, 1, 4, 5]
            );
        }
    }

    #[test]
    fn thin_box_reduces_to_four_points() {
        // Thinner than the speculative distance: all 8 vertices qualify.
        let h = Vec3::new(0.5, 0.002, 0.5);
        let xa = Transform::new(Vec3::new(0.0, 0.001, 0.0), Quat::from_rotation_x(0.003));
        let m = run(box_plane, &cube(h), &xa, &ground(), &Transform::IDENTITY);
        assert_eq!(m.count, 4);
        let deepest = m
            .points()
            .iter()
            .map(|p| p.separation)
            .fold(f32::MAX, f32::min);
        // The deepest vertices (bottom, +z side: -0.0025) are kept.
        assert!(deepest < -0.002, "{m:?}");
        // The four points span the whole face, not one edge.
        let c = m.points().iter().fold(Vec3::ZERO, |s, p| s + p.point) / 4.0;
        assert!(c.x.abs() < 0.01 && c.z.abs() < 0.01, "{m:?}");
    }

    #[test]
    fn plane_pairs_match_closed_form() {
        let mut rng = Rng::new(21);
        for _ in 0..300 {
            let plane = Shape::Plane {
                normal: rng.direction(),
                offset: rng.range(-2.0, 2.0),
            };
            let base = Vec3::new(
                rng.range(-1e3, 1e3),
                rng.range(-10.0, 10.0),
                rng.range(-1e3, 1e3),
            );
            let xb = Transform::new(base, rng.rotation());
            // A point near the plane's surface, and a shape near it.
            let Shape::Plane { normal, offset } = plane else {
                unreachable!()
            };
            let surface = xb.transform_point(normal * offset);
            let xa = Transform::new(
                surface + rng.direction() * rng.range(0.0, 1.5),
                rng.rotation(),
            );

            let r = rng.range(0.05, 1.0);
            let m = run(sphere_plane, &Shape::Sphere { radius: r }, &xa, &plane, &xb);
            let sep = plane_height(&plane, &xb, xa.p) - r as f64;
            if (sep - SPEC as f64).abs() > 1e-4 {
                assert_eq!(m.count, usize::from(sep < SPEC as f64), "sep {sep}");
            }
            if m.count == 1 {
                let p = m.points[0];
                assert!((p.separation as f64 - sep).abs() < 2e-4);
                let pb = p.point + m.normal * (0.5 * p.separation);
                assert!(plane_height(&plane, &xb, pb).abs() < 2e-4);
            }

            let h = Vec3::new(
                rng.range(0.1, 1.0),
                rng.range(0.1, 1.0),
                rng.range(0.1, 1.0),
            );
            let m = run(box_plane, &cube(h), &xa, &plane, &xb);
            let mut heights = [0.0f64; 8];
            for (v, hv) in heights.iter_mut().enumerate() {
                let c = Vec3::new(
                    if v & 1 != 0 { h.x } else { -h.x },
                    if v & 2 != 0 { h.y } else { -h.y },
                    if v & 4 != 0 { h.z } else { -h.z },
                );
                *hv = plane_height(&plane, &xb, xa.transform_point(c));
            }
            let below = heights.iter().filter(|&&s| s < SPEC as f64 - 1e-4).count();
            let maybe = heights.iter().filter(|&&s| s < SPEC as f64 + 1e-4).count();
            assert!(m.count >= below.min(4) && m.count <= maybe.min(4), "{m:?}");
            let n = -(dq(xb.q) * d3(normal).normalize());
            if m.count > 0 {
                assert!((d3(m.normal) - n).length() < 1e-5);
            }
            for p in m.points() {
                let s = heights[p.id as usize];
                assert!((p.separation as f64 - s).abs() < 2e-4);
                // The vertex and its projection, from the manifold point.
                let vertex = d3(p.point) - d3(m.normal) * (0.5 * p.separation as f64);
                let proj = d3(p.point) + d3(m.normal) * (0.5 * p.separation as f64);
                let c = Vec3::new(
                    if p.id & 1 != 0 { h.x } else { -h.x },
                    if p.id & 2 != 0 { h.y } else { -h.y },
                    if p.id & 4 != 0 { h.z } else { -h.z },
                );
                assert!((vertex - d3(xa.transform_point(c))).length() < 5e-4);
                assert!(plane_height(&plane, &xb, proj.as_vec3()).abs() < 5e-4);
            }
            if m.count > 0 {
                let deepest = heights.iter().cloned().fold(f64::MAX, f64::min);
                let got = m
                    .points()
                    .iter()
                    .map(|p| p.separation)
                    .fold(f32::MAX, f32::min);
                assert!((got as f64 - deepest).abs() < 2e-3, "{got} vs {deepest}");
            }
        }
    }
}
