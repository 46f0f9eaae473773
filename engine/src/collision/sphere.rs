//! Sphere pairs: closed form, one point, id 0.
//!
//! Everything is computed from the relative transform (one shape expressed in the other's
//! frame), never from absolute world coordinates, so a pair far from the origin gets the same
//! manifold as the same pair near it.

use super::{Manifold, Tolerance};
use crate::math::Transform;
use crate::shape::Shape;
use glam::Vec3;

/// Below this centre distance (m) the direction between two centres is noise: use a fixed
/// axis instead (any stable unit vector will do; the solver only needs consistency).
const MIN_DISTANCE: f32 = 1.0e-6;

/// Sphere A against sphere B.
pub(crate) fn sphere_sphere(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    tol: Tolerance,
    out: &mut Manifold,
) {
    let (&Shape::Sphere { radius: ra }, &Shape::Sphere { radius: rb }) = (a, b) else {
        return;
    };
    // B's centre in A's frame (A's centre is the origin).
    let c = xf_a.inv_mul(xf_b).p;
    let dist = c.length();
    let separation = dist - (ra + rb);
    if separation >= tol.speculative {
        return;
    }
    let n = if dist > MIN_DISTANCE {
        c / dist
    } else {
        Vec3::Y
    };
    // Halfway between A's surface point (ra n) and B's (c - rb n).
    let point = (n * ra + (c - n * rb)) * 0.5;
    out.normal = xf_a.transform_vector(n);
    out.push(xf_a.transform_point(point), separation, 0);
}

/// Sphere A against box B. Computed in the box's frame (the relative transform), where the
/// closest box point is a clamp.
pub(crate) fn sphere_box(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    tol: Tolerance,
    out: &mut Manifold,
) {
    let (&Shape::Sphere { radius }, &Shape::Box { half_extents: h }) = (a, b) else {
        return;
    };
    // The sphere's centre in the box's frame.
    let c = xf_b.inv_mul(xf_a).p;
    let q = c.clamp(-h, h);
    let d = c - q;
    let dist = d.length();

    // `n` points from the sphere into the box (A to B), in the box frame; `box_point` is the
    // closest point of the box's surface.
    let (n, separation, box_point) = if dist > MIN_DISTANCE {
        // Centre outside: the clamped point is the closest.
        (-d / dist, dist - radius, q)
    } else {
        // Centre inside (or on the surface): leave through the face of least penetration,
        // the face the centre is nearest to. Ties go to the lowest axis, then the + side.
        let mut axis = 0;
        let mut depth = h.x - c.x.abs();
        for k in 1..3 {
            let dk = h[k] - c[k].abs();
            if dk < depth {
                axis = k;
                depth = dk;
            }
        }
        let side = if c[axis] >= 0.0 { 1.0 } else { -1.0 };
        let mut box_point = c;
        box_point[axis] = side * h[axis];
        let mut n = Vec3::ZERO;
        n[axis] = -side;
        (n, -(depth + radius), box_point)
    };
    if separation >= tol.speculative {
        return;
    }
    let sphere_point = c + n * radius;
    let point = (sphere_point + box_point) * 0.5;
    out.normal = xf_b.transform_vector(n);
    out.push(xf_b.transform_point(point), separation, 0);
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::*;
    use glam::Quat;

    fn sphere(radius: f32) -> Shape {
        Shape::Sphere { radius }
    }

    fn cube(h: Vec3) -> Shape {
        Shape::Box { half_extents: h }
    }

    fn at(p: Vec3) -> Transform {
        Transform::new(p, Quat::IDENTITY)
    }

    fn run(
        f: super::super::CollideFn,
        a: &Shape,
        xa: &Transform,
        b: &Shape,
        xb: &Transform,
    ) -> Manifold {
        let mut m = Manifold::default();
        f(a, xa, b, xb, TOL, &mut m);
        check_manifold(&m, SPEC);
        m
    }

    #[test]
    fn sphere_resting_on_sphere() {
        let m = run(
            sphere_sphere,
            &sphere(0.5),
            &at(Vec3::new(1.0, 2.0, 3.0)),
            &sphere(0.25),
            &at(Vec3::new(1.0, 2.0 - 0.749, 3.0)),
        );
        assert_eq!(m.count, 1);
        assert!((m.normal - Vec3::NEG_Y).length() < 1e-6);
        let p = m.points[0];
        assert!((p.separation + 0.001).abs() < 1e-5);
        assert_eq!(p.id, 0);
        // Halfway between the surfaces: 0.5 below A's centre, minus half the overlap.
        assert!((p.point - Vec3::new(1.0, 1.5005, 3.0)).length() < 1e-5);
        // Beyond the speculative distance: nothing; within it: a speculative point.
        let far = run(
            sphere_sphere,
            &sphere(0.5),
            &at(Vec3::ZERO),
            &sphere(0.25),
            &at(Vec3::X * 0.8),
        );
        assert_eq!(far.count, 0);
        let near = run(
            sphere_sphere,
            &sphere(0.5),
            &at(Vec3::ZERO),
            &sphere(0.25),
            &at(Vec3::X * 0.76),
        );
        assert_eq!(near.count, 1);
        assert!((near.points[0].separation - 0.01).abs() < 1e-6);
    }

    #[test]
    fn coincident_centres_give_a_finite_normal() {
        let m = run(
            sphere_sphere,
            &sphere(1.0),
            &at(Vec3::ONE),
            &sphere(0.5),
            &at(Vec3::ONE),
        );
        assert_eq!(m.count, 1);
        assert!((m.points[0].separation + 1.5).abs() < 1e-6);
        let m = run(
            sphere_box,
            &sphere(0.3),
            &at(Vec3::ONE),
            &cube(Vec3::new(1.0, 0.5, 2.0)),
            &at(Vec3::ONE),
        );
        assert_eq!(m.count, 1);
        // Least penetration through the y faces (0.5 + radius).
        assert!((m.points[0].separation + 0.8).abs() < 1e-6);
        assert!(m.normal.y.abs() > 0.999);
    }

    #[test]
    fn sphere_resting_on_ground_box() {
        let ground = cube(Vec3::new(400.0, 1.0, 400.0));
        let m = run(
            sphere_box,
            &sphere(0.5),
            &at(Vec3::new(3.0, 1.499, -7.0)),
            &ground,
            &at(Vec3::ZERO),
        );
        assert_eq!(m.count, 1);
        assert_eq!(m.normal, Vec3::NEG_Y);
        assert!((m.points[0].separation + 0.001).abs() < 1e-5);
        assert!((m.points[0].point - Vec3::new(3.0, 0.9995, -7.0)).length() < 1e-5);
    }

    #[test]
    fn sphere_sphere_matches_closed_form() {
        let mut rng = Rng::new(11);
        for _ in 0..400 {
            let (ra, rb) = (rng.range(0.05, 1.0), rng.range(0.05, 1.0));
            let base = Vec3::new(
                rng.range(-1e3, 1e3),
                rng.range(-10.0, 10.0),
                rng.range(-1e3, 1e3),
            );
            let xa = Transform::new(base, rng.rotation());
            let xb = Transform::new(
                base + rng.direction() * rng.range(0.0, ra + rb + 0.05),
                rng.rotation(),
            );
            let m = run(sphere_sphere, &sphere(ra), &xa, &sphere(rb), &xb);
            let dist = (d3(xb.p) - d3(xa.p)).length();
            let sep = dist - (ra + rb) as f64;
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
                    "{} vs {sep}",
                    p.separation
                );
                if dist > 1e-3 {
                    let n = (d3(xb.p) - d3(xa.p)) / dist;
                    assert!((d3(m.normal) - n).length() < 1e-3);
                    // A's surface point and B's surface point, from the manifold point.
                    let pa = d3(p.point) - d3(m.normal) * (0.5 * p.separation as f64);
                    let pb = d3(p.point) + d3(m.normal) * (0.5 * p.separation as f64);
                    assert!(((pa - d3(xa.p)).length() - ra as f64).abs() < 1e-3);
                    assert!(((pb - d3(xb.p)).length() - rb as f64).abs() < 1e-3);
                }
            }
        }
    }

    #[test]
    fn sphere_box_matches_closed_form() {
        let mut rng = Rng::new(12);
        for k in 0..400 {
            let r = rng.range(0.05, 1.0);
            let h = Vec3::new(
                rng.range(0.1, 1.0),
                rng.range(0.1, 1.0),
                rng.range(0.1, 1.0),
            );
            let base = Vec3::new(
                rng.range(-1e3, 1e3),
                rng.range(-10.0, 10.0),
                rng.range(-1e3, 1e3),
            );
            let xb = Transform::new(base, rng.rotation());
            // Half the cases put the centre inside the box.
            let reach = if k % 2 == 0 {
                h.length() + r + 0.05
            } else {
                h.min_element()
            };
            let xa = Transform::new(
                base + rng.direction() * rng.range(0.0, reach),
                rng.rotation(),
            );
            let m = run(sphere_box, &sphere(r), &xa, &cube(h), &xb);
            // Reference: distance from the centre to the box (negative inside) minus r.
            let sep = box_sdf(h, &xb, xa.p) - r as f64;
            if sep >= SPEC as f64 + 1e-4 {
                assert_eq!(m.count, 0);
                continue;
            }
            if sep < SPEC as f64 - 1e-4 {
                assert_eq!(m.count, 1, "sep {sep}");
            }
            if m.count == 1 {
                let p = m.points[0];
                assert!(
                    (p.separation as f64 - sep).abs() < 2e-4,
                    "{} vs {sep}",
                    p.separation
                );
                let pa = d3(p.point) - d3(m.normal) * (0.5 * p.separation as f64);
                let pb = d3(p.point) + d3(m.normal) * (0.5 * p.separation as f64);
                assert!(((pa - d3(xa.p)).length() - r as f64).abs() < 1e-3);
                assert!(box_sdf(h, &xb, pb.as_vec3()).abs() < 1e-3);
            }
        }
    }
}
