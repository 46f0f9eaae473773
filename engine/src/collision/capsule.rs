//! Capsule pairs: a capsule is the segment `[(0, -h, 0), (0, h, 0)]` of its body frame swept
//! by a radius `r`, so each pair reduces to closest points between cores.
//!
//! - Sphere–capsule: the sphere's centre clamped onto the segment; one point, id 0.
//! - Capsule–capsule: closest points of two segments (Ericson, *Real-Time Collision
//!   Detection* §5.1.9); one point whose id names the two features (end 0, end 1 or the
//!   interior of each segment). When the segments are nearly parallel
//!   ([`PARALLEL_SIN`]) and overlap along A's axis, B's segment is clipped to A's extent and
//!   each clipped end becomes a point, its separation measured along the shared normal as
//!   Box2D v3's `b2CollideCapsules` does (two points hold a capsule lying on another).
//! - Capsule–box: GJK ([`super::gjk`]) gives the closest points of the segment and the box.
//!   When the normal is a box face's ([`FACE_COS`]), the segment is clipped against that
//!   face's side planes and each clipped end whose height over the face is below the
//!   speculative distance becomes a point (two points hold a capsule lying on a face);
//!   otherwise the GJK witnesses give one point. When the segment itself enters the box
//!   (penetration deeper than the radius, which GJK does not measure) the contact is deep
//!   (see `deep.rs`): a separating-axis test over the box's three face axes and the three
//!   cross products of the segment with the box's edge directions (each sign), complete
//!   for a segment against a box. A face axis is clipped as above, plus the segment's
//!   deepest end when clipping lost it; a cross axis (kept only when better than the best
//!   face by the bias of `deep::bias`) gives one point between the segment and the box
//!   edge, id `CROSS_ID | 2k` (`| 1` for the negated axis, see [`CROSS_ID`]).
//! - Capsule–plane: each end sphere against the plane, up to two points, id = the end.
//!
//! Feature ids only depend on which features touch (segment ends, clipping planes, box
//! face), so they stay equal while a contact persists and impulses carry over.
//! Everything is computed from the relative transform, in the frame of one of the shapes.

use super::gjk::{shape_distance, Distance};
use super::Manifold;
use crate::math::{perpendicular, Transform};
use crate::shape::Shape;
use glam::Vec3;

/// Below this distance (m) between core points the direction between them is noise.
const MIN_DISTANCE: f32 = 1.0e-6;

/// Two capsule axes count as parallel below this sine of their angle (about 2.9°).
const PARALLEL_SIN: f32 = 0.05;

/// A capsule–box normal counts as a face normal above this cosine with the face's axis.
const FACE_COS: f32 = 0.9995;

/// Closest points of segments `p1 + s d1` and `p2 + t d2` (`s, t ∈ [0, 1]`): `(s, t)`.
/// Ericson §5.1.9; a parallel pair takes `s = 0` and the matching `t`.
pub(crate) fn closest_segment_params(p1: Vec3, d1: Vec3, p2: Vec3, d2: Vec3) -> (f32, f32) {
    let r = p1 - p2;
    let a = d1.dot(d1);
    let e = d2.dot(d2);
    let f = d2.dot(r);
    const EPS: f32 = 1.0e-12;
    if a <= EPS && e <= EPS {
        return (0.0, 0.0);
    }
    if a <= EPS {
        return (0.0, (f / e).clamp(0.0, 1.0));
    }
    let c = d1.dot(r);
    if e <= EPS {
        return ((-c / a).clamp(0.0, 1.0), 0.0);
    }
    let b = d1.dot(d2);
    let denom = a * e - b * b;
    let mut s = if denom > EPS * a * e {
        ((b * f - c * e) / denom).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut t = (b * s + f) / e;
    if t < 0.0 {
        t = 0.0;
        s = (-c / a).clamp(0.0, 1.0);
    } else if t > 1.0 {
        t = 1.0;
        s = ((b - c) / a).clamp(0.0, 1.0);
    }
    (s, t)
}

/// Which feature of a segment a parameter `s ∈ [0, 1]` lies on: 0 and 1 for the ends,
/// 2 for the interior.
fn segment_feature(s: f32) -> u32 {
    if s <= 0.0 {
        0
    } else if s >= 1.0 {
        1
    } else {
        2
    }
}

/// Sphere A against capsule B: one point, id 0. Computed in the capsule's frame.
pub(crate) fn sphere_capsule(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    speculative: f32,
    out: &mut Manifold,
) {
    let (
        &Shape::Sphere { radius: ra },
        &Shape::Capsule {
            half_height: h,
            radius: rb,
        },
    ) = (a, b)
    else {
        return;
    };
    // The sphere's centre in the capsule's frame, and the closest axis point.
    let c = xf_b.inv_mul(xf_a).p;
    let q = Vec3::new(0.0, c.y.clamp(-h, h), 0.0);
    let d = q - c;
    let dist = d.length();
    let separation = dist - ra - rb;
    if separation >= speculative {
        return;
    }
    // `n` points from the sphere to the capsule (A to B).
    let n = if dist > MIN_DISTANCE {
        d / dist
    } else {
        Vec3::NEG_X
    };
    let point = (c + n * ra + (q - n * rb)) * 0.5;
    out.normal = xf_b.transform_vector(n);
    out.push(xf_b.transform_point(point), separation, 0);
}

/// Capsule A against capsule B, in A's frame. One point (id `fa + 3 fb`, the features of
/// [`segment_feature`]), or two for nearly parallel overlapping axes (ids 16 and up: which
/// end of B or which end of A bounds each clipped end).
pub(crate) fn capsule_capsule(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    speculative: f32,
    out: &mut Manifold,
) {
    let (
        &Shape::Capsule {
            half_height: ha,
            radius: ra,
        },
        &Shape::Capsule {
            half_height: hb,
            radius: rb,
        },
    ) = (a, b)
    else {
        return;
    };
    let rel = xf_a.inv_mul(xf_b);
    let ub = rel.q * Vec3::Y;
    let pa = Vec3::new(0.0, -ha, 0.0);
    let da = Vec3::new(0.0, 2.0 * ha, 0.0);
    let pb = rel.p - ub * hb;
    let db = ub * (2.0 * hb);
    let (s, t) = closest_segment_params(pa, da, pb, db);
    let (ca, cb) = (pa + da * s, pb + db * t);
    let d = cb - ca;
    let dist = d.length();
    if dist - ra - rb >= speculative {
        return;
    }
    let cross = Vec3::Y.cross(ub);
    let n = if dist > MIN_DISTANCE {
        d / dist
    } else if cross.length_squared() > 1.0e-12 {
        // Crossing axes: their common perpendicular, turned towards B.
        let c = cross.normalize();
        if c.dot(rel.p) < 0.0 {
            -c
        } else {
            c
        }
    } else {
        // Coincident axes: any direction across them.
        perpendicular(Vec3::Y)
    };
    out.normal = xf_a.transform_vector(n);

    // Nearly parallel and overlapping along A's axis: clip B to A's extent.
    if ha > 0.0 && hb > 0.0 && cross.length_squared() < PARALLEL_SIN * PARALLEL_SIN {
        // B's axis point at parameter τ ∈ [-hb, hb] has height rel.p.y + ub.y τ along A.
        let (mut lo, mut hi) = (-hb, hb);
        let (mut lo_id, mut hi_id) = (0u32, 1u32);
        let t1 = (-ha - rel.p.y) / ub.y;
        let t2 = (ha - rel.p.y) / ub.y;
        // A's end 0 (at -ha) bounds τ from below when B points along +y.
        let ((tmin, id_min), (tmax, id_max)) = if t1 < t2 {
            ((t1, 4), (t2, 5))
        } else {
            ((t2, 5), (t1, 4))
        };
        if tmin > lo {
            lo = tmin;
            lo_id = id_min;
        }
        if tmax < hi {
            hi = tmax;
            hi_id = id_max;
        }
        if hi - lo > 1.0e-3 * (ha + hb) {
            for (tau, id) in [(lo, lo_id), (hi, hi_id)] {
                let on_b = rel.p + ub * tau;
                let on_a = Vec3::new(0.0, on_b.y.clamp(-ha, ha), 0.0);
                let separation = n.dot(on_b - on_a) - ra - rb;
                if separation < speculative {
                    let point = on_b - n * (rb + 0.5 * separation);
                    out.push(xf_a.transform_point(point), separation, 16 + id);
                }
            }
            if out.count > 0 {
                return;
            }
        }
    }
    let separation = dist - ra - rb;
    let point = (ca + n * ra + cb - n * rb) * 0.5;
    let id = segment_feature(s) + 3 * segment_feature(t);
    out.push(xf_a.transform_point(point), separation, id);
}

/// Capsule A against box B, in the box's frame (see the module docs). Face points have
/// ids `face << 4 | end` (face `2k + (side > 0)`; end 0 or 1 for the segment's own ends,
/// `2 + 2j + (side > 0)` for a clip by the side plane on axis `j`); a single GJK point has
/// id `0x80 | feature` of the segment; a deep cross-axis point `CROSS_ID | 2k (| 1)`.
pub(crate) fn capsule_box(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    speculative: f32,
    out: &mut Manifold,
) {
    let (
        &Shape::Capsule {
            half_height: hc,
            radius: r,
        },
        &Shape::Box { half_extents: h },
    ) = (a, b)
    else {
        return;
    };
    // The capsule in the box's frame.
    let Some((core, dist)) = core_in_b(a, xf_a, b, xf_b, hc, speculative) else {
        return;
    };
    let (p0, seg) = (core.p0, core.seg);
    if dist.overlap {
        // The segment enters the box: deep (see `deep.rs`).
        deep_capsule_box(p0, seg, r, h, speculative, xf_b, out);
        return;
    }
    // The face to clip against: (axis, side), side = the sign of the face's outward normal.
    let n = dist.normal;
    let a = n.abs();
    let k = if a.x >= a.y && a.x >= a.z {
        0
    } else if a.y >= a.z {
        1
    } else {
        2
    };
    if n[k].abs() >= FACE_COS
        && face_points(p0, seg, r, h, k, -n[k].signum(), speculative, xf_b, out)
    {
        return;
    }
    push_closest(&dist, &core, r, xf_b, out);
}

/// The id of a capsule–box point on a cross axis `u × e_k` (`| 2k`, `| 1` for the
/// negated axis): clear of the face ids (below `0x60`) and the closest-point ids (`0x80 |
/// feature`).
const CROSS_ID: u32 = 0xC0;

/// Capsule (core `p0 + τ seg`, radius `r`, box frame) whose core enters the box of half
/// extents `h`: the separating-axis test over the box's face normals and the cross products
/// of the core's direction with the box's edge directions, which is complete for a segment
/// against a box (see `deep.rs`). A face axis gives the face's clipped points (as a shallow
/// face contact does) and the deepest end of the core if clipping lost it; a cross axis
/// one point between the core and the box edge it names.
#[allow(clippy::too_many_arguments)]
fn deep_capsule_box(
    p0: Vec3,
    seg: Vec3,
    r: f32,
    h: Vec3,
    speculative: f32,
    xf_b: &Transform,
    out: &mut Manifold,
) {
    let p1 = p0 + seg;
    // Face axes: (separation of the core, axis, side).
    let mut face = (f32::NEG_INFINITY, 0usize, 1.0f32);
    for k in 0..3 {
        let (lo, hi) = (p0[k].min(p1[k]), p0[k].max(p1[k]));
        for (sep, side) in [(lo - h[k], 1.0), (-h[k] - hi, -1.0)] {
            if sep > face.0 {
                face = (sep, k, side);
            }
        }
    }
    // Cross axes, each sign (every direction normal to a box edge is a normal of that edge
    // or of a face beside it): (separation, axis from the box towards the core, edge axis,
    // id). The core projects to one point on them.
    let mut cross: Option<(f32, Vec3, usize, u32)> = None;
    for k in 0..3 {
        let Some(c) = super::deep::cross_axis(seg, Vec3::AXES[k]) else {
            continue;
        };
        for (a, flip) in [(c, 0), (-c, 1)] {
            let sep = a.dot(p0) - h.dot(a.abs());
            if cross.is_none_or(|x| sep > x.0) {
                cross = Some((sep, a, k, CROSS_ID | (2 * k) as u32 | flip));
            }
        }
    }
    let best = cross.map_or(face.0, |x| x.0.max(face.0));
    if let Some((sep, a, k, id)) = cross {
        if sep > face.0 + super::deep::bias(super::box_box::LINEAR_SLOP, best - r) {
            // The box edge along e_k on the side of `a`.
            let mut q0 = Vec3::ZERO;
            for j in (0..3).filter(|&j| j != k) {
                q0[j] = if a[j] < 0.0 { -h[j] } else { h[j] };
            }
            q0[k] = -h[k];
            let mut qd = Vec3::ZERO;
            qd[k] = 2.0 * h[k];
            push_cross_point(out, xf_b, (p0, seg), (q0, qd), a, sep, r, id);
            return;
        }
    }
    let (sep, k, side) = face;
    face_points(p0, seg, r, h, k, side, speculative, xf_b, out);
    // The core's deepest end along the face normal carries the face axis's separation.
    let (tau, end) = if side * p0[k] <= side * p1[k] {
        (0.0, 0)
    } else {
        (1.0, 1)
    };
    let separation = sep - r;
    let deepest = out
        .points()
        .iter()
        .fold(f32::INFINITY, |d, p| d.min(p.separation));
    let id = ((2 * k) as u32 + u32::from(side > 0.0)) << 4 | end;
    if deepest > separation && out.points().iter().all(|p| p.id != id) {
        let mut f = Vec3::ZERO;
        f[k] = side;
        let c = p0 + seg * tau;
        out.normal = xf_b.transform_vector(-f);
        out.push(
            xf_b.transform_point(c - f * (r + 0.5 * separation)),
            separation,
            id,
        );
    }
}

/// A capsule's core segment `p0 + τ seg` (`τ ∈ [0, 1]`, half length `hc`) in a convex
/// shape B's frame.
/// The one point of a capsule (core segment `(p0, seg)` in B's frame, radius `r`) at the
/// edge `(q0, qd)` of B when the cross axis `a` (segment × edge, core separation `sep`)
/// wins the deep-overlap test: for boxes and hulls alike.
#[allow(clippy::too_many_arguments)]
pub(super) fn push_cross_point(
    out: &mut Manifold,
    xf_b: &Transform,
    (p0, seg): (Vec3, Vec3),
    (q0, qd): (Vec3, Vec3),
    a: Vec3,
    sep: f32,
    r: f32,
    id: u32,
) {
    let (s, _) = closest_segment_params(p0, seg, q0, qd);
    let c = p0 + seg * s;
    let separation = sep - r;
    out.normal = xf_b.transform_vector(-a);
    out.push(
        xf_b.transform_point(c - a * (r + 0.5 * separation)),
        separation,
        id,
    );
}

pub(super) struct CoreInB {
    pub hc: f32,
    pub p0: Vec3,
    pub seg: Vec3,
}

/// The capsule A's core in B's frame and its distance to B; `None` when farther apart
/// than `speculative` (or GJK fails).
pub(super) fn core_in_b(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    hc: f32,
    speculative: f32,
) -> Option<(CoreInB, Distance)> {
    let rel = xf_b.inv_mul(xf_a);
    let u = rel.q * Vec3::Y;
    let core = CoreInB {
        hc,
        p0: rel.p - u * hc,
        seg: u * (2.0 * hc),
    };
    let dist = shape_distance(a, &rel, b, &Transform::IDENTITY)?;
    (dist.overlap || dist.distance < speculative).then_some((core, dist))
}

/// The one-point manifold of a separated capsule A and convex B from their closest points
/// (B's frame), with the segment feature (end 0, end 1 or interior) as id.
pub(super) fn push_closest(
    dist: &Distance,
    core: &CoreInB,
    r: f32,
    xf_b: &Transform,
    out: &mut Manifold,
) {
    let point = (dist.point_a + dist.point_b) * 0.5;
    // Which part of the segment is closest: project the capsule's witness on the axis.
    let s = if core.hc > 0.0 {
        (dist.point_a + dist.normal * r - core.p0).dot(core.seg) / core.seg.length_squared()
    } else {
        0.0
    };
    let feature = if s <= 1.0e-4 {
        0
    } else if s >= 1.0 - 1.0e-4 {
        1
    } else {
        2
    };
    out.normal = xf_b.transform_vector(dist.normal);
    out.push(xf_b.transform_point(point), dist.distance, 0x80 | feature);
}

/// Clips the segment `p0 + τ seg` (`τ ∈ [0, 1]`, box frame) against the side planes of the
/// box face on axis `k`, side `side`, and pushes each clipped end closer than `speculative`
/// to the face. Returns whether it pushed any point (none when the clipped segment is
/// empty).
#[allow(clippy::too_many_arguments)]
fn face_points(
    p0: Vec3,
    seg: Vec3,
    r: f32,
    h: Vec3,
    k: usize,
    side: f32,
    speculative: f32,
    xf_b: &Transform,
    out: &mut Manifold,
) -> bool {
    let (mut lo, mut hi) = (0.0f32, 1.0f32);
    let (mut lo_id, mut hi_id) = (0u32, 1u32);
    for j in (0..3).filter(|&j| j != k) {
        if seg[j].abs() <= 1.0e-9 {
            if p0[j].abs() > h[j] {
                return false;
            }
            continue;
        }
        let t1 = (-h[j] - p0[j]) / seg[j];
        let t2 = (h[j] - p0[j]) / seg[j];
        let minus = 2 + 2 * j as u32;
        let ((tmin, id_min), (tmax, id_max)) = if t1 < t2 {
            ((t1, minus), (t2, minus + 1))
        } else {
            ((t2, minus + 1), (t1, minus))
        };
        if tmin > lo {
            lo = tmin;
            lo_id = id_min;
        }
        if tmax < hi {
            hi = tmax;
            hi_id = id_max;
        }
    }
    if lo > hi {
        return false;
    }
    // The face's outward normal; the manifold normal points from the capsule into the box.
    let mut f = Vec3::ZERO;
    f[k] = side;
    out.normal = xf_b.transform_vector(-f);
    let face_id = ((2 * k) as u32 + u32::from(side > 0.0)) << 4;
    // Two ends only when they are distinct points (a capsule of zero length has one).
    let ends: &[(f32, u32)] = if (hi - lo) * seg.length() > 1.0e-6 {
        &[(lo, lo_id), (hi, hi_id)]
    } else {
        &[(lo, lo_id)]
    };
    for &(tau, id) in ends {
        let c = p0 + seg * tau;
        let height = side * c[k] - h[k];
        let separation = height - r;
        if separation < speculative {
            // Halfway between the capsule's lowest point and its projection on the face.
            let point = c - f * (r + 0.5 * separation);
            out.push(xf_b.transform_point(point), separation, face_id | id);
        }
    }
    out.count > 0
}

/// Capsule A against plane B: each end sphere, up to two points, id = the end (0 at `-h`).
pub(crate) fn capsule_plane(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    speculative: f32,
    out: &mut Manifold,
) {
    let Shape::Capsule {
        half_height: h,
        radius,
    } = *a
    else {
        return;
    };
    let Some((n, d)) = super::plane::plane_in_frame(b, xf_a, xf_b) else {
        return;
    };
    // A capsule of zero length is a sphere: one end.
    let ends: &[(u32, f32)] = if h > 0.0 {
        &[(0, -h), (1, h)]
    } else {
        &[(0, 0.0)]
    };
    for &(id, end) in ends {
        let c = Vec3::new(0.0, end, 0.0);
        let separation = n.dot(c) - d - radius;
        if separation < speculative {
            // Halfway between the end sphere's lowest point and its projection on the plane.
            let point = c - n * (radius + 0.5 * separation);
            if out.count == 0 {
                out.normal = super::plane::plane_manifold_normal(b, xf_b);
            }
            out.push(xf_a.transform_point(point), separation, id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::super::CollideFn;
    use super::*;
    use glam::{DVec3, Quat};

    fn run(f: CollideFn, a: &Shape, xa: &Transform, b: &Shape, xb: &Transform) -> Manifold {
        let mut m = Manifold::default();
        f(a, xa, b, xb, SPEC, &mut m);
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
            let he = Vec3::new(
                rng.range(0.1, 1.0),
                rng.range(0.1, 1.0),
                rng.range(0.1, 1.0),
            );
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
}
