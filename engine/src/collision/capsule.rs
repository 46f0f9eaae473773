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
use super::{Manifold, Tolerance};
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
    tol: Tolerance,
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
    if separation >= tol.speculative {
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
    tol: Tolerance,
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
    if dist - ra - rb >= tol.speculative {
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
                if separation < tol.speculative {
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
    tol: Tolerance,
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
    let Some((core, dist)) = core_in_b(a, xf_a, b, xf_b, hc, tol.speculative) else {
        return;
    };
    let (p0, seg) = (core.p0, core.seg);
    if dist.overlap {
        // The segment enters the box: deep (see `deep.rs`).
        deep_capsule_box(p0, seg, r, h, tol, xf_b, out);
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
        && face_points(p0, seg, r, h, k, -n[k].signum(), tol.speculative, xf_b, out)
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
    tol: Tolerance,
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
        if sep > face.0 + super::deep::bias(tol.linear_slop, best - r) {
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
    face_points(p0, seg, r, h, k, side, tol.speculative, xf_b, out);
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
    let dist = match (a, b) {
        (&Shape::Capsule { radius, .. }, &Shape::Box { half_extents: h }) => {
            if segment_box_gap(core.p0, core.seg, h) - radius > speculative {
                return None;
            }
            segment_box_distance(core.p0, core.seg, radius, h)
        }
        _ => shape_distance(a, &rel, b, &Transform::IDENTITY)?,
    };
    (dist.overlap || dist.distance < speculative).then_some((core, dist))
}

/// A lower bound of the distance between the segment `p0 + τ seg` and the box of half
/// extents `h` centred at the origin, less what rounding may take off the exact distance
/// ([`segment_box_distance`]): the widest gap between the segment's extent and the box's
/// slab along one axis. The squared distance is a sum over the axes of squared gaps, each
/// at least that axis's gap at every point of the segment, so a pair apart by this much is
/// apart by the exact distance too, and the distance (most pairs of a capsule and a box
/// near it, by their bounding boxes, are apart) is not worked out.
pub(super) fn segment_box_gap(p0: Vec3, seg: Vec3, h: Vec3) -> f32 {
    let p1 = p0 + seg;
    let gap = (p0.min(p1) - h).max(-h - p0.max(p1)).max_element();
    // The exact distance's rounding: a few ulps of the largest coordinate, and of the
    // distance itself.
    let scale = p0.abs().max(p1.abs()).max(h).max_element();
    gap - 1.0e-5 * scale - 1.0e-5 * gap.abs()
}

/// The distance between a capsule (core `p0 + τ seg`, `τ ∈ [0, 1]`, radius `r`, in the
/// box's frame) and the box of half extents `h` centred at the origin, exactly, as
/// [`shape_distance`] reports it: the surfaces' closest points and the normal from the
/// capsule to the box, or `overlap` when the core touches the box.
///
/// The squared distance from the core's point at `τ` to the box is a sum over the axes of
/// `max(0, |x_j(τ)| − h_j)²`: convex and piecewise quadratic, with its pieces bounded where
/// the point crosses a face plane (`x_j(τ) = ±h_j`, at most six values of `τ`). On each
/// piece the axes outside the slab are fixed, so its minimum is one division; the
/// smallest over the pieces is the exact minimum (the first of equal ones; a piece of
/// nearly constant distance takes its middle, below). This replaces
/// the general GJK for the most common capsule pair (a capsule on the ground box: rain's
/// capsules spent most of their narrow phase in it).
pub(super) fn segment_box_distance(p0: Vec3, seg: Vec3, r: f32, h: Vec3) -> Distance {
    let best_t = nearest_on_segment(p0, seg, h);
    let pa = p0 + seg * best_t;
    let pb = pa.clamp(-h, h);
    let d = pb - pa;
    let len = d.length();
    if len <= MIN_DISTANCE {
        return Distance {
            distance: -r,
            normal: Vec3::ZERO,
            point_a: pa,
            point_b: pb,
            overlap: true,
        };
    }
    let normal = d / len;
    Distance {
        distance: len - r,
        normal,
        point_a: pa + normal * r,
        point_b: pb,
        overlap: false,
    }
}

/// Where the core `p0 + τ seg` crosses the box's face planes inside `τ ∈ (0, 1)`,
/// ascending, padded with +inf, and how many: the cuts between the pieces of
/// [`nearest_on_segment`]. The six divisions run side by side and the ones outside
/// `(0, 1)` (a face behind the core's start or past its end, or an axis it does not move
/// along) are dropped by one mask, where a branch for each face was mispredicted (figures
/// in `docs/decisions.md`, "The lead").
fn face_crossings(p0: Vec3, seg: Vec3, h: Vec3) -> ([f32; 6], usize) {
    use wide::f32x8;
    let face = f32x8::new([-h.x, h.x, -h.y, h.y, -h.z, h.z, 0.0, 0.0]);
    let start = f32x8::new([p0.x, p0.x, p0.y, p0.y, p0.z, p0.z, 0.0, 0.0]);
    let along = f32x8::new([seg.x, seg.x, seg.y, seg.y, seg.z, seg.z, 0.0, 0.0]);
    // A division of two correctly rounded values is in (0, 1) exactly when the offset is
    // non-zero, has the segment's sign and is shorter than it; the padding lanes' 0 / 0 is
    // NaN, in no range.
    let t = (face - start) / along;
    let inside = t.simd_gt(f32x8::ZERO) & t.simd_lt(f32x8::ONE);
    let n = (inside.to_bitmask() & 0x3f).count_ones() as usize;
    let t = inside.select(t, f32x8::splat(f32::INFINITY)).to_array();
    let mut crossed: [f32; 6] = std::array::from_fn(|k| t[k]);
    // Sorted by an optimal network for six (values in (0, 1) and +inf: min / max order them
    // as a sort would).
    for (a, b) in SORT_SIX {
        let (lo, hi) = (crossed[a].min(crossed[b]), crossed[a].max(crossed[b]));
        (crossed[a], crossed[b]) = (lo, hi);
    }
    (crossed, n)
}

/// The compare-exchanges of an optimal sorting network for six values.
#[rustfmt::skip]
const SORT_SIX: [(usize, usize); 12] = [
    (0, 5), (1, 3), (2, 4), (1, 2), (3, 4), (0, 3),
    (2, 5), (0, 1), (2, 3), (4, 5), (1, 2), (3, 4),
];

/// The pieces of [`segment_box_distance`] in at most eight lanes: the parameter `τ` of the
/// core's point nearest the box. The cuts are sorted by a network of min / max instead of
/// a sort, and the pieces (at most seven) are worked out side by side in one register each
/// quantity, with the same operations in the same order as one piece at a time (no fused
/// multiply-add, each face's term added where the piece lies outside it and zero added
/// elsewhere, which leaves a sum's bits as they were), so the result is the same bits as
/// the piece-by-piece loop it replaces (the test keeps that loop and compares them), with
/// fewer branches to mispredict (figures in `docs/decisions.md`, "The lead").
fn nearest_on_segment(p0: Vec3, seg: Vec3, h: Vec3) -> f32 {
    use wide::f32x8;
    let (crossed, n) = face_crossings(p0, seg, h);
    // The cuts 0, the crossings, 1; the pieces between them.
    let mut cuts = [1.0f32; 9];
    cuts[0] = 0.0;
    cuts[1..=n].copy_from_slice(&crossed[..n]);
    let pieces = n + 1;
    let lo = f32x8::new(std::array::from_fn(|i| cuts[i]));
    let hi = f32x8::new(std::array::from_fn(|i| cuts[i + 1]));
    let zero = f32x8::ZERO;
    let half = f32x8::splat(0.5) * (lo + hi);
    // Each axis's start, direction and half extent in every lane.
    let axes: [_; 3] = std::array::from_fn(|j| {
        let splat = f32x8::splat;
        (splat(p0[j]), splat(seg[j]), splat(h[j]))
    });
    let (mut num, mut den) = (zero, zero);
    for &(p, s, e) in &axes {
        // Which side of the slab each piece lies on, from its middle.
        let mid = p + s * half;
        let (above, below) = (mid.simd_gt(e), mid.simd_lt(-e));
        let face = above.select(e, below.select(-e, zero));
        let outside = above | below;
        num -= outside.select((p - face) * s, zero);
        den += outside.select(s * s, zero);
    }
    let flat_den = 1.0e-8 * seg.length_squared();
    let flat = den.simd_le(f32x8::splat(flat_den));
    let t = num / den;
    let t = t.simd_lt(lo).select(lo, t);
    let t = t.simd_gt(hi).select(hi, t);
    let t = flat.select(half, t);
    let mut d2 = zero;
    for &(p, s, e) in &axes {
        let x = p + s * t;
        let d = x - x.fast_max(-e).fast_min(e);
        d2 += d * d;
    }
    let (t, d2, flat) = (t.to_array(), d2.to_array(), flat.to_array());
    let (den, lo, hi) = (den.to_array(), lo.to_array(), hi.to_array());
    // The first piece of the least distance; a flat piece wins when as near, to within
    // what the distance can change over its half.
    let (mut best_t, mut best_d2) = (0.0f32, f32::INFINITY);
    let mut line: Option<(f32, f32, f32)> = None;
    for k in 0..pieces {
        if flat[k] != 0.0 {
            if line.is_none_or(|(_, f2, _)| d2[k] < f2) {
                line = Some((t[k], d2[k], 0.5 * den[k].sqrt() * (hi[k] - lo[k])));
            }
        } else if d2[k] < best_d2 {
            (best_t, best_d2) = (t[k], d2[k]);
        }
    }
    if let Some((t, d2, slack)) = line {
        if d2.sqrt() <= best_d2.sqrt() + slack + 1.0e-7 {
            best_t = t;
        }
    }
    best_t
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
    tol: Tolerance,
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
        if separation < tol.speculative {
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
mod tests;
