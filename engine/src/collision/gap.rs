//! How far apart two shapes are at least, and how far a shape's points can move under a
//! change of its pose: what lets the narrowphase skip a pair that its last update found
//! apart by more than the speculative distance, until their relative pose has moved by
//! that much (see `contact::update_manifold`).

use super::capsule::{closest_segment_params, segment_box_distance, segment_box_gap};
use crate::math::Transform;
use crate::shape::Shape;
use glam::{Quat, Vec3};

/// A lower bound of the distance between shape `a` (at the origin of its frame) and shape
/// `b` at pose `rel` in `a`'s frame (negative when they overlap), for the pairs of spheres,
/// capsules and boxes other than two boxes (which keep their separating axis instead);
/// `None` for the other pairs. Kinds are ordered as the narrowphase orders its pairs.
pub(crate) fn lower_bound(a: &Shape, b: &Shape, rel: &Transform) -> Option<f32> {
    // The capsule's core as a start and a span, from its pose.
    let core = |half: f32, pose: &dyn Fn(Vec3) -> Vec3| {
        let (p0, p1) = (
            pose(Vec3::new(0.0, -half, 0.0)),
            pose(Vec3::new(0.0, half, 0.0)),
        );
        (p0, p1 - p0)
    };
    let distance = match (a, b) {
        (&Shape::Sphere { radius: ra }, &Shape::Sphere { radius: rb }) => rel.p.length() - ra - rb,
        (
            &Shape::Sphere { radius: ra },
            &Shape::Capsule {
                half_height,
                radius: rb,
            },
        ) => {
            // The sphere's centre in the capsule's frame.
            let c = rel.inv_transform_point(Vec3::ZERO);
            let q = Vec3::new(0.0, c.y.clamp(-half_height, half_height), 0.0);
            (q - c).length() - ra - rb
        }
        (&Shape::Sphere { radius }, &Shape::Box { half_extents: h }) => {
            let c = rel.inv_transform_point(Vec3::ZERO);
            (c - c.clamp(-h, h)).length() - radius
        }
        (
            &Shape::Capsule {
                half_height: ha,
                radius: ra,
            },
            &Shape::Capsule {
                half_height: hb,
                radius: rb,
            },
        ) => {
            let (p1, d1) = core(ha, &|v| v);
            let (p2, d2) = core(hb, &|v| rel.transform_point(v));
            let (s, t) = closest_segment_params(p1, d1, p2, d2);
            ((p1 + d1 * s) - (p2 + d2 * t)).length() - ra - rb
        }
        (
            &Shape::Capsule {
                half_height,
                radius,
            },
            &Shape::Box { half_extents: h },
        ) => {
            // A's core in the box's frame.
            let (p0, seg) = core(half_height, &|v| rel.inv_transform_point(v));
            let d = segment_box_distance(p0, seg, radius, h);
            if d.overlap {
                // The cores touch: the slabs' gap is still a bound.
                segment_box_gap(p0, seg, h) - radius
            } else {
                d.distance
            }
        }
        _ => return None,
    };
    distance.is_finite().then_some(distance)
}

/// How far a point within `radius` of a shape's origin (its `Shape::bounding_radius`) can
/// have moved between poses `then` and `now` of the shape (at most): the translation's
/// length plus the chord of the rotation, `2 sin(θ/2) r ≤ 2 |q_now − ±q_then| r`. The
/// quaternions' difference is used rather than `1 − (q·q')²`, which rounds small rotations
/// to nothing.
pub(crate) fn shift(then: &Transform, now: &Transform, radius: f32) -> f32 {
    let q: Quat = if then.q.dot(now.q) < 0.0 {
        -then.q
    } else {
        then.q
    };
    let dq = now.q - q;
    (now.p - then.p).length() + 2.0 * dq.length() * radius
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::{collide, Tolerance};

    /// For random poses of each pair of kinds, the bound is at most the separation of every
    /// speculative point the pair's manifold reports, and a pair whose bound exceeds the
    /// speculative distance has no manifold point.
    #[test]
    fn the_bound_is_below_every_point_and_apart_means_no_points() {
        let shapes = [
            Shape::Sphere { radius: 0.4 },
            Shape::Capsule {
                half_height: 0.5,
                radius: 0.3,
            },
            Shape::Box {
                half_extents: Vec3::new(0.3, 0.5, 0.6),
            },
        ];
        let mut seed = 7u32;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed as f32 / u32::MAX as f32
        };
        let tol = Tolerance {
            speculative: 0.02,
            linear_slop: 0.005,
        };
        let (mut bounded, mut apart) = (0, 0);
        for i in 0..3 {
            for j in i..3 {
                let (a, b) = (&shapes[i], &shapes[j]);
                for _ in 0..4000 {
                    let p = Vec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5) * 3.0;
                    let axis = Vec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5 + 1e-3);
                    let rel = Transform {
                        p,
                        q: Quat::from_axis_angle(axis.normalize(), rnd() * 6.3),
                    };
                    let Some(bound) = lower_bound(a, b, &rel) else {
                        assert!(matches!((a, b), (Shape::Box { .. }, Shape::Box { .. })));
                        continue;
                    };
                    bounded += 1;
                    let m = collide(a, &Transform::IDENTITY, b, &rel, tol);
                    // (An overlap's separations are depths, which a bound of the
                    // distance does not bound.)
                    for point in m.points().iter().filter(|p| p.separation > 0.0) {
                        assert!(bound <= point.separation + 1e-5, "{a:?} {b:?} {rel:?}");
                    }
                    if bound > tol.speculative {
                        apart += 1;
                        assert_eq!(m.count, 0, "{a:?} {b:?} {rel:?}");
                    }
                }
            }
        }
        assert!(bounded > 15_000 && apart > 5_000, "{bounded} {apart}");
    }

    /// The shift bounds how far every point of a shape moves between two poses.
    #[test]
    fn the_shift_bounds_every_point() {
        let mut seed = 11u32;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed as f32 / u32::MAX as f32 - 0.5
        };
        for k in 0..2000 {
            let pose = |rnd: &mut dyn FnMut() -> f32, scale: f32| Transform {
                p: Vec3::new(rnd(), rnd(), rnd()) * scale,
                q: Quat::from_axis_angle(
                    Vec3::new(rnd(), rnd(), rnd() + 1e-3).normalize(),
                    rnd() * 6.3,
                ),
            };
            let then = pose(&mut rnd, 2.0);
            // Small moves and large ones.
            let scale = if k % 2 == 0 { 1e-3 } else { 1.0 };
            let step = pose(&mut rnd, scale);
            let step = Transform {
                p: step.p,
                q: Quat::IDENTITY.slerp(step.q, scale),
            };
            let now = Transform {
                p: then.p + step.p,
                q: (step.q * then.q).normalize(),
            };
            let r = 0.9;
            let bound = shift(&then, &now, r);
            for _ in 0..16 {
                let v = Vec3::new(rnd(), rnd(), rnd()).normalize_or_zero() * r;
                let moved = (now.transform_point(v) - then.transform_point(v)).length();
                assert!(moved <= bound * (1.0 + 1e-4) + 1e-6, "{moved} > {bound}");
            }
        }
    }
}
