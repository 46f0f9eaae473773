//! Box-box manifold: separating-axis test, then face clipping or a single edge-edge point.
//!
//! After Gregorius, "Robust Contact Creation for Physics Simulations" (GDC 2015), with
//! Box2D-style clipping and feature ids (see [`super::clip`]):
//!
//! 1. SAT over A's 3 face normals, B's 3 face normals and the 9 edge-pair cross products.
//!    Each axis gives a separation (the gap between the boxes' projections, negative when
//!    they overlap); the boxes' separation is the largest. Any axis beyond `speculative`
//!    means no contact.
//! 2. Face axes are preferred: an edge axis wins only when it is better by more than the
//!    world's linear slop ([`Tolerance::linear_slop`]), and B's face only when better than A's by [`FACE_SWITCH_TOL`]. Without
//!    the bias a resting box flips between nearly equal axes from one step to the next, and
//!    its manifold (and warm start) with them. A deep contact (see `deep.rs`) shrinks both
//!    biases to a small fraction of its depth, so that its normal is the minimum
//!    translation's.
//! 3. Face axis: clip the incident face against the reference face's side planes, keep at
//!    most 4 points ([`super::reduce`]). Edge axis: one point, halfway between the closest
//!    points of the two edges, with the SAT separation (a lower bound of the distance when
//!    the edges pass each other without crossing: safe for a speculative contact).
//! 4. When an edge axis was the best but lost to the bias, and clipping finds nothing as deep
//!    as it (the crossing edges lie outside the reference face), the edge point is used.
//! 5. A deep face contact also gets the incident box's deepest vertex (id: that vertex with
//!    the reference face) when clipping lost it, and the reduction keeps the deepest point:
//!    its separation is the face axis's, the boxes' penetration depth.
//!
//! Each box's face queries are computed in its own frame from the other's relative transform,
//! so swapping A and B swaps the numbers exactly: a box resting on the ground gets the same
//! separations in both orders.

use super::clip::{clip_face, edge_code, face_code, pair_id, vertex_code, Candidates};
use super::deep;
use super::reduce::{select_four, select_four_deep, Candidate};
use super::tolerance::{CLIP_MISS_TOL, FACE_SWITCH_TOL};
use super::{Manifold, Tolerance};
use crate::math::Transform;
use crate::shape::Shape;
use glam::{Mat3, Vec3};
use wide::f32x16;

/// Edge pairs whose directions' cross product is shorter than this (the sine of the angle)
/// are skipped: nearly parallel edges have no reliable cross axis, and the face axes of the
/// faces adjacent to them already cover their separation (in the limit, exactly: it becomes
/// a 2D problem in the plane across the edges).
const PARALLEL_SIN: f32 = 1.0e-3;

/// The best face axis of one box against the other.
#[derive(Clone, Copy, Debug)]
pub(super) struct FaceQuery {
    pub separation: f32,
    pub axis: usize,
    /// The face on the + side of the axis (the side the other box's centre is on).
    pub positive: bool,
}

/// The best edge-pair axis.
#[derive(Clone, Copy, Debug)]
pub(super) struct EdgeQuery {
    pub separation: f32,
    /// A's edge direction (local axis of A) and B's (local axis of B).
    pub axis_a: usize,
    pub axis_b: usize,
    /// Unit axis in A's frame, pointing from A towards B.
    pub normal: Vec3,
}

/// Face axes of a box (half extents `h`, at the origin) against another (half extents
/// `h_other`, axes the columns of `rot`, centre `t`, in the first box's frame).
pub(super) fn query_faces(h: Vec3, h_other: Vec3, rot: &Mat3, t: Vec3) -> FaceQuery {
    let mut best = FaceQuery {
        separation: f32::NEG_INFINITY,
        axis: 0,
        positive: true,
    };
    for i in 0..3 {
        let separation = face_separation(h, h_other, rot, t, i);
        // Strictly greater: ties go to the lower axis, deterministically.
        if separation > best.separation || i == 0 {
            best = FaceQuery {
                separation,
                axis: i,
                positive: t[i] >= 0.0,
            };
        }
    }
    best
}

/// The separation of two boxes on the first's face axis `i` (the boxes as
/// [`query_faces`] takes them).
#[inline(always)]
fn face_separation(h: Vec3, h_other: Vec3, rot: &Mat3, t: Vec3, i: usize) -> f32 {
    // The other box's projected radius on local axis i.
    let r = rot.x_axis[i].abs() * h_other.x
        + rot.y_axis[i].abs() * h_other.y
        + rot.z_axis[i].abs() * h_other.z;
    t[i].abs() - (h[i] + r)
}

/// The separation of boxes A and B on the cross axis of A's edge `i` and B's edge `j`
/// (the boxes as [`query_edges`] takes them), with the operations of that pair's lane there,
/// so the same bits; `None` for a nearly parallel pair, which it skips.
fn edge_separation(ha: Vec3, hb: Vec3, rot: &Mat3, t: Vec3, i: usize, j: usize) -> Option<f32> {
    let (a, b) = (Vec3::AXES[i], rot.col(j));
    let cx = a.y * b.z - b.y * a.z;
    let cy = a.z * b.x - b.z * a.x;
    let cz = a.x * b.y - b.x * a.y;
    let len = (cx * cx + cy * cy + cz * cz).sqrt();
    if len <= PARALLEL_SIN {
        return None;
    }
    let (nx, ny, nz) = (cx / len, cy / len, cz / len);
    let d = nx * t.x + ny * t.y + nz * t.z;
    let ra = ha.x * nx.abs() + ha.y * ny.abs() + ha.z * nz.abs();
    let along = |c: Vec3| nx * c.x + ny * c.y + nz * c.z;
    let rb = hb.x * along(rot.x_axis).abs()
        + hb.y * along(rot.y_axis).abs()
        + hb.z * along(rot.z_axis).abs();
    Some(d.abs() - (ra + rb))
}

/// The 9 edge-pair axes, in A's frame (B's axes are the columns of `rot`, its centre `t`).
/// `None` when every pair is nearly parallel.
///
/// The nine axes are computed side by side, one pair a lane (lane `3i + j`: A's axis `i`
/// with B's axis `j`), with the operations a scalar loop over the pairs would do (glam's
/// cross product, dot products and length, in its order), each a plain IEEE operation per
/// lane: the result is bit for bit the scalar loop's. The best is then picked in pair
/// order, ties to the first.
pub(super) fn query_edges(ha: Vec3, hb: Vec3, rot: &Mat3, t: Vec3) -> Option<EdgeQuery> {
    // Lanes 9..16 hold zero axes, which are never picked.
    let lanes = |f: &dyn Fn(usize, usize) -> f32| {
        f32x16::new(std::array::from_fn(|k| {
            if k < 9 {
                f(k / 3, k % 3)
            } else {
                0.0
            }
        }))
    };
    let (ax, ay, az) = (
        lanes(&|i, _| Vec3::AXES[i].x),
        lanes(&|i, _| Vec3::AXES[i].y),
        lanes(&|i, _| Vec3::AXES[i].z),
    );
    let (bx, by, bz) = (
        lanes(&|_, j| rot.col(j).x),
        lanes(&|_, j| rot.col(j).y),
        lanes(&|_, j| rot.col(j).z),
    );
    // A's axis cross B's, as `Vec3::cross` computes it.
    let cx = ay * bz - by * az;
    let cy = az * bx - bz * ax;
    let cz = ax * by - bx * ay;
    let len = (cx * cx + cy * cy + cz * cz).sqrt();
    let (nx, ny, nz) = (cx / len, cy / len, cz / len);
    let splat = f32x16::splat;
    // The axis's sign is chosen to point from A towards B; flipping it negates each of
    // these dot products exactly, so their absolute values are the flipped axis's.
    let d = nx * splat(t.x) + ny * splat(t.y) + nz * splat(t.z);
    let ra = splat(ha.x) * nx.abs() + splat(ha.y) * ny.abs() + splat(ha.z) * nz.abs();
    let along = |c: Vec3| nx * splat(c.x) + ny * splat(c.y) + nz * splat(c.z);
    let rb = splat(hb.x) * along(rot.x_axis).abs()
        + splat(hb.y) * along(rot.y_axis).abs()
        + splat(hb.z) * along(rot.z_axis).abs();
    let separation = (d.abs() - (ra + rb)).to_array();
    let (len, d) = (len.to_array(), d.to_array());
    let (nx, ny, nz) = (nx.to_array(), ny.to_array(), nz.to_array());
    let mut best: Option<EdgeQuery> = None;
    for k in 0..9 {
        if len[k] <= PARALLEL_SIN {
            continue;
        }
        if best.is_none_or(|b| separation[k] > b.separation) {
            let n = Vec3::new(nx[k], ny[k], nz[k]);
            best = Some(EdgeQuery {
                separation: separation[k],
                axis_a: k / 3,
                axis_b: k % 3,
                normal: if d[k] < 0.0 { -n } else { n },
            });
        }
    }
    best
}

/// No separating axis: see [`box_box_axis`].
pub(crate) const NO_AXIS: u8 = u8::MAX;

/// Box A against box B.
pub(crate) fn box_box(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    tol: Tolerance,
    out: &mut Manifold,
) {
    box_box_axis(a, xf_a, b, xf_b, tol, out);
}

/// [`box_box`], returning the axis it found separating the boxes by the speculative
/// distance or more, when it found no points for that reason: face axis `i` of A as `i`,
/// of B as `3 + i`, A's edge `i` across B's edge `j` as `6 + 3i + j`; [`NO_AXIS`]
/// otherwise. A contact keeps it for the next step's [`axis_separation`].
pub(crate) fn box_box_axis(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    tol: Tolerance,
    out: &mut Manifold,
) -> u8 {
    let (&Shape::Box { half_extents: ha }, &Shape::Box { half_extents: hb }) = (a, b) else {
        return NO_AXIS;
    };
    // Each box seen from the other: relative transforms only, never world coordinates.
    let rel_ab = xf_a.inv_mul(xf_b);
    let rel_ba = xf_b.inv_mul(xf_a);
    let rot_ab = Mat3::from_quat(rel_ab.q);
    let rot_ba = Mat3::from_quat(rel_ba.q);

    let face_a = query_faces(ha, hb, &rot_ab, rel_ab.p);
    if face_a.separation >= tol.speculative {
        return face_a.axis as u8;
    }
    let face_b = query_faces(hb, ha, &rot_ba, rel_ba.p);
    if face_b.separation >= tol.speculative {
        return 3 + face_b.axis as u8;
    }
    let edge = query_edges(ha, hb, &rot_ab, rel_ab.p);
    // The best axis's separation; past `deep::DEEP` the biases shrink (see `deep.rs`).
    let best_face = face_a.separation.max(face_b.separation);
    let best = edge.map_or(best_face, |e| e.separation.max(best_face));
    if let Some(e) = edge {
        if e.separation >= tol.speculative {
            return 6 + (3 * e.axis_a + e.axis_b) as u8;
        }
        if e.separation > best_face + deep::bias(tol.linear_slop, best) {
            push_edge(ha, hb, &rot_ab, rel_ab.p, &e, xf_a, out);
            return NO_AXIS;
        }
    }

    // Face contact. The reference box's frame is where the clipping is exact (its side
    // planes are axis aligned); the manifold normal points from A to B, so when B is the
    // reference its face normal is flipped. Separations and midpoints are symmetric.
    let ref_is_a = face_b.separation <= face_a.separation + deep::bias(FACE_SWITCH_TOL, best);
    let (fq, h_ref, h_inc, rot, t, xf_ref) = if ref_is_a {
        (face_a, ha, hb, &rot_ab, rel_ab.p, xf_a)
    } else {
        (face_b, hb, ha, &rot_ba, rel_ba.p, xf_b)
    };
    let mut cands = Candidates::new();
    clip_face(
        h_ref,
        h_inc,
        rot,
        t,
        fq.axis,
        fq.positive,
        ref_is_a,
        tol.speculative,
        &mut cands,
    );

    // Did clipping find the contact? When an edge axis is the best axis (the face won only
    // by the bias) the touching edges may lie outside the reference face, clipped away: the
    // face points are then all shallower than the boxes' penetration, or there are none.
    // Use the edge point in that case. (With a face axis best, an edge point would claim
    // more penetration than there is: keep the face result, possibly empty.)
    let deepest = cands
        .as_slice()
        .iter()
        .fold(f32::INFINITY, |d, c| d.min(c.separation));
    if let Some(e) = edge {
        if e.separation > face_a.separation.max(face_b.separation)
            && deepest > e.separation + CLIP_MISS_TOL
        {
            push_edge(ha, hb, &rot_ab, rel_ab.p, &e, xf_a, out);
            return NO_AXIS;
        }
    }
    let deep = deep::is_deep(best);
    if deep {
        // The incident box's deepest vertex carries the face axis's separation; clipping
        // drops it when it lies beside the reference face (a duplicate id is merged).
        cands.push(deepest_vertex(
            h_ref,
            h_inc,
            rot,
            t,
            fq.axis,
            fq.positive,
            ref_is_a,
        ));
    }
    if cands.len == 0 {
        return NO_AXIS;
    }
    let mut nr = Vec3::ZERO;
    nr[fq.axis] = if fq.positive { 1.0 } else { -1.0 };
    let n_ab = if ref_is_a { nr } else { -nr };
    // Rotating an axis by the reference body alone keeps an axis-aligned pair exact.
    out.normal = xf_ref.transform_vector(n_ab).normalize_or(n_ab);
    let (idx, count) = if deep {
        select_four_deep(cands.as_slice(), nr)
    } else {
        select_four(cands.as_slice(), nr)
    };
    for &k in &idx[..count] {
        let c = cands.items[k];
        out.push(xf_ref.transform_point(c.point), c.separation, c.id);
    }
    NO_AXIS
}

/// Whether `axis` (as [`box_box_axis`] numbers them) still separates boxes `a` and `b` by
/// `speculative` or more: then [`box_box`] finds no points either, since it stops as soon
/// as the best axis of a group (A's faces, B's faces, the edge pairs) separates them that
/// far, and this axis's separation is computed with its operations on the same relative
/// poses, so to the same bits. The pair's manifold is then left as it is, with no search
/// of the other fourteen axes (temporal coherence of the separating axis, as Box3D and
/// Bullet keep it for resting neighbours that do not touch). The narrowphase makes the
/// same comparison from [`axis_separation`], whose value it also keeps.
#[cfg(test)]
pub(crate) fn still_apart(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    axis: u8,
    speculative: f32,
) -> bool {
    axis_separation(a, xf_a, b, xf_b, axis).is_some_and(|s| s >= speculative)
}

/// The separation of boxes `a` and `b` on `axis` (as [`box_box_axis`] numbers them), as
/// [`box_box`] computes it. When it is `speculative` or more, `box_box` finds no points
/// either (the test `still_apart` makes; see there). `None` when either shape is not
/// a box, for [`NO_AXIS`], or for an edge pair whose edges are parallel.
pub(crate) fn axis_separation(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    axis: u8,
) -> Option<f32> {
    let (&Shape::Box { half_extents: ha }, &Shape::Box { half_extents: hb }) = (a, b) else {
        return None;
    };
    let separation = match axis {
        0..3 => {
            let rel_ab = xf_a.inv_mul(xf_b);
            face_separation(ha, hb, &Mat3::from_quat(rel_ab.q), rel_ab.p, axis as usize)
        }
        3..6 => {
            let rel_ba = xf_b.inv_mul(xf_a);
            let i = axis as usize - 3;
            face_separation(hb, ha, &Mat3::from_quat(rel_ba.q), rel_ba.p, i)
        }
        6..15 => {
            let rel_ab = xf_a.inv_mul(xf_b);
            let k = axis as usize - 6;
            edge_separation(ha, hb, &Mat3::from_quat(rel_ab.q), rel_ab.p, k / 3, k % 3)?
        }
        _ => return None,
    };
    Some(separation)
}

/// The incident box's vertex deepest below the reference face on `axis` (+ side if
/// `positive`), as a candidate with the id of a clipped incident vertex (vertex, face). The
/// reference box has half extents `h_ref`; the incident box `h_inc`, axes the columns of
/// `rot`, centre `t` (reference frame).
fn deepest_vertex(
    h_ref: Vec3,
    h_inc: Vec3,
    rot: &Mat3,
    t: Vec3,
    axis: usize,
    positive: bool,
    ref_is_a: bool,
) -> Candidate {
    let sr = if positive { 1.0 } else { -1.0 };
    let mut p = t;
    let mut signs = [false; 3];
    for k in 0..3 {
        // Deepest along -nr: the side whose axis points against nr.
        signs[k] = sr * rot.col(k)[axis] < 0.0;
        p += rot.col(k) * if signs[k] { h_inc[k] } else { -h_inc[k] };
    }
    let separation = sr * p[axis] - h_ref[axis];
    let (code_ref, code_inc) = (face_code(axis, positive), vertex_code(signs));
    let id = if ref_is_a {
        pair_id(code_ref, code_inc)
    } else {
        pair_id(code_inc, code_ref)
    };
    let mut nr = Vec3::ZERO;
    nr[axis] = sr;
    Candidate {
        point: p - nr * (0.5 * separation),
        separation,
        id,
    }
}

/// Writes the one-point edge-edge manifold of `e` (already known to be within reach).
fn push_edge(
    ha: Vec3,
    hb: Vec3,
    rot: &Mat3,
    t: Vec3,
    e: &EdgeQuery,
    xf_a: &Transform,
    out: &mut Manifold,
) {
    let (point, id) = edge_contact(ha, hb, rot, t, e);
    out.normal = xf_a.transform_vector(e.normal).normalize_or(e.normal);
    out.push(xf_a.transform_point(point), e.separation, id);
}

/// Closest points of the segments `pa + s da` (|s| <= la) and `pb + u db` (|u| <= lb), unit
/// directions, not parallel (Ericson, Real-Time Collision Detection 5.1.9, centred form).
fn closest_on_segments(pa: Vec3, da: Vec3, la: f32, pb: Vec3, db: Vec3, lb: f32) -> (Vec3, Vec3) {
    let r = pa - pb;
    let b = da.dot(db);
    let c = da.dot(r);
    let f = db.dot(r);
    let denom = 1.0 - b * b;
    let s = if denom > 1.0e-9 {
        (b * f - c) / denom
    } else {
        0.0
    };
    // min/max rather than clamp: never panics, even on NaN.
    let s = s.max(-la).min(la);
    let u = (b * s + f).max(-lb).min(lb);
    let s = (b * u - c).max(-la).min(la);
    (pa + da * s, pb + db * u)
}

/// The single edge-edge point for `q`, in A's frame: (point, id).
pub(super) fn edge_contact(ha: Vec3, hb: Vec3, rot: &Mat3, t: Vec3, q: &EdgeQuery) -> (Vec3, u32) {
    let n = q.normal;
    // A's supporting edge along n, and B's along -n: the sides are the signs of n on the two
    // other axes of each box.
    let mut pa = Vec3::ZERO;
    let mut sa = [false; 3];
    for k in 0..3 {
        if k != q.axis_a {
            sa[k] = n[k] >= 0.0;
            pa[k] = if sa[k] { ha[k] } else { -ha[k] };
        }
    }
    let mut pb = t;
    let mut sb = [false; 3];
    for k in 0..3 {
        if k != q.axis_b {
            let bk = rot.col(k);
            sb[k] = n.dot(bk) < 0.0;
            pb += bk * if sb[k] { hb[k] } else { -hb[k] };
        }
    }
    let (ca, cb) = closest_on_segments(
        pa,
        Vec3::AXES[q.axis_a],
        ha[q.axis_a],
        pb,
        rot.col(q.axis_b),
        hb[q.axis_b],
    );
    let id = pair_id(edge_code(q.axis_a, sa), edge_code(q.axis_b, sb));
    ((ca + cb) * 0.5, id)
}

#[cfg(test)]
mod tests;
