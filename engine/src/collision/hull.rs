//! Convex hull pairs.
//!
//! Sphere against hull, in the hull's frame: when the centre is outside, the closest hull
//! point is the nearest point of the polygons of the faces the centre is above (exact);
//! when it is inside, the sphere leaves through the face whose plane is nearest. One
//! point, halfway between the surfaces.
//!
//! Box or hull against hull (a box is the unit-cube hull scaled by its half extents): the
//! separating-axis test over both shapes' face normals and the edge pairs that form a face
//! of the Minkowski difference (Gregorius's Gauss-map test, GDC 2013), in A's frame. A face
//! axis gives a face contact: the incident face (the other shape's face most anti-parallel
//! to the reference normal) is clipped against the reference polygon's side planes
//! (Sutherland-Hodgman, as `clip.rs` does for boxes), its points within the speculative
//! distance kept and reduced to four. An edge axis clearly better than both face axes gives
//! the one point between the closest points of the two edges. Biases as in `box_box.rs`.
//! Feature ids pair a feature code of A with one of B (`code_A | code_B << 16`; vertex `v`,
//! edge `64 + 64 v0 + v1`, face `8192 + f`); a point cut by a side plane combines its
//! segment's ids with the side plane's reference edge.
//!
//! Hull against plane: in the hull's frame, every vertex closer to the plane than the
//! speculative distance is a candidate (id = the vertex index); more than four are reduced
//! with the face-contact reduction of `reduce.rs` (deepest, farthest, largest triangle,
//! largest quadrilateral).
//!
//! Capsule against hull, in the hull's frame: as capsule against box (`capsule.rs`), with
//! the hull's faces. When the capsule's segment enters the hull the contact is deep (see
//! `deep.rs`): the separating-axis test over the hull's face normals and the cross products
//! of the segment with the hull edges whose Gauss-map arcs cross the great circle normal to
//! the segment; a face axis is clipped (plus the segment's deepest end when clipping lost
//! it), a cross axis gives one point between the segment and the edge (id `CROSS_ID |
//! edge`, see [`CROSS_ID`]).
//!
//! Deep contacts (past `deep::DEEP`) shrink the axis biases to a fraction of the depth,
//! add the incident shape's deepest vertex whenever clipping lost it, and keep the deepest
//! point through the reduction (see `deep.rs`).

use super::capsule::{closest_segment_params, core_in_b, push_closest, push_cross_point};
use super::deep;
use super::plane::{plane_in_frame, vertices_on_plane};
use super::reduce::{select_four, select_four_deep, Candidate};
use super::tolerance::{CLIP_MISS_TOL, CLIP_SLOP, FACE_SWITCH_TOL};
use super::{Manifold, Tolerance};
use crate::hull::{ConvexHull, MAX_HULL_VERTICES};
use crate::math::Transform;
use crate::shape::Shape;
use glam::Vec3;
use std::sync::OnceLock;

/// A convex polytope view: a hull with its vertices scaled per axis (the unit cube scaled
/// to a box; scale one for a hull). Scaling keeps the cube's axis-aligned face normals.
#[derive(Clone, Copy)]
pub(super) struct Poly<'a> {
    pub hull: &'a ConvexHull,
    pub scale: Vec3,
}

impl Poly<'_> {
    /// The incident face against a reference normal `n` (in this polyhedron's frame): of
    /// the faces around the vertex deepest along `-n`, the most anti-parallel to `n`. (The
    /// globally most anti-parallel face of a sharp rock need not hold its deepest point.)
    /// Returns the face and that vertex.
    pub(super) fn incident_face(&self, n: Vec3) -> (usize, usize) {
        let local = self.hull.support(-n * self.scale);
        let deep_v = self
            .hull
            .vertices()
            .iter()
            .position(|&x| x == local)
            .unwrap_or(0);
        let mut inc = 0;
        let mut best = f32::INFINITY;
        for f in 0..self.hull.faces().len() {
            if !self.hull.face_polygon(f).contains(&(deep_v as u16)) {
                continue;
            }
            let dot = self.normal(f).dot(n);
            if dot < best {
                best = dot;
                inc = f;
            }
        }
        (inc, deep_v)
    }

    #[inline]
    pub(super) fn vertex(&self, i: usize) -> Vec3 {
        self.hull.vertices()[i] * self.scale
    }

    #[inline]
    pub(super) fn normal(&self, f: usize) -> Vec3 {
        self.hull.faces()[f].normal
    }

    #[inline]
    pub(super) fn offset(&self, f: usize) -> f32 {
        let v = self.hull.face_polygon(f)[0] as usize;
        self.normal(f).dot(self.vertex(v))
    }

    /// The vertex farthest along `d` (local).
    #[inline]
    pub(super) fn support(&self, d: Vec3) -> Vec3 {
        self.hull.support(d * self.scale) * self.scale
    }
}

/// Clips the polygon `poly[..len]` against the planes `side · x <= h` in turn (each with
/// the edge code that names the points it cuts); returns the new length. Points past the
/// capacity `N` are dropped.
pub(super) fn clip_polygon<const N: usize>(
    poly: &mut [(Vec3, u32); N],
    mut len: usize,
    planes: impl Iterator<Item = (Vec3, f32, u32)>,
) -> usize {
    let mut next = [(Vec3::ZERO, 0u32); N];
    for (side, h, e) in planes {
        let mut n = 0;
        for m in 0..len {
            let (p, idp) = poly[m];
            let (q, idq) = poly[(m + 1) % len];
            let (dp, dq) = (side.dot(p) - h, side.dot(q) - h);
            if dp <= 0.0 && n < N {
                next[n] = (p, idp);
                n += 1;
            }
            if (dp <= 0.0) != (dq <= 0.0) && n < N {
                let t = dp / (dp - dq);
                next[n] = (p + (q - p) * t, cut_id(idp, idq, e));
                n += 1;
            }
        }
        poly[..n].copy_from_slice(&next[..n]);
        len = n;
        if len == 0 {
            break;
        }
    }
    len
}

/// The unit cube as a hull (vertices `±1`), built once.
pub(super) fn unit_cube() -> &'static ConvexHull {
    static CUBE: OnceLock<ConvexHull> = OnceLock::new();
    CUBE.get_or_init(|| {
        let pts: Vec<Vec3> = (0..8)
            .map(|i| {
                Vec3::new(
                    if i & 1 == 0 { -1.0 } else { 1.0 },
                    if i & 2 == 0 { -1.0 } else { 1.0 },
                    if i & 4 == 0 { -1.0 } else { 1.0 },
                )
            })
            .collect();
        ConvexHull::new(&pts).expect("the unit cube is a valid hull")
    })
}

pub(super) const VERTEX_CODE: u32 = 0;
const EDGE_CODE: u32 = 64;
pub(super) const FACE_CODE: u32 = 8192;

#[inline]
pub(super) fn edge_code(a: u16, b: u16) -> u32 {
    EDGE_CODE + 64 * a.min(b) as u32 + a.max(b) as u32
}

/// An id for a point cut from the segment between points with ids `p` and `q` by the side
/// plane of reference edge code `e`.
#[inline]
pub(super) fn cut_id(p: u32, q: u32, e: u32) -> u32 {
    let (lo, hi) = (p.min(q), p.max(q));
    let mut h = lo.wrapping_mul(0x9E37_79B1) ^ hi.rotate_left(13).wrapping_mul(0x85EB_CA77);
    h ^= e.wrapping_mul(0xC2B2_AE3D);
    h ^= h >> 15;
    // Keep clear of the plain (feature, feature) ids, whose codes stay below 2^14.
    h | 1 << 31
}

/// The most vertices a clipped polygon can reach: the incident polygon plus one per side
/// plane.
const CLIP_CAP: usize = 2 * MAX_HULL_VERTICES + 8;

/// Box A against hull B.
pub(crate) fn box_hull(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    tol: Tolerance,
    out: &mut Manifold,
) {
    let (&Shape::Box { half_extents }, Shape::Hull { hull }) = (a, b) else {
        return;
    };
    let pa = Poly {
        hull: unit_cube(),
        scale: half_extents,
    };
    let pb = Poly {
        hull,
        scale: Vec3::ONE,
    };
    poly_poly(pa, xf_a, pb, xf_b, tol, out);
}

/// Hull A against hull B.
pub(crate) fn hull_hull(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    tol: Tolerance,
    out: &mut Manifold,
) {
    let (Shape::Hull { hull: ha }, Shape::Hull { hull: hb }) = (a, b) else {
        return;
    };
    let pa = Poly {
        hull: ha,
        scale: Vec3::ONE,
    };
    let pb = Poly {
        hull: hb,
        scale: Vec3::ONE,
    };
    poly_poly(pa, xf_a, pb, xf_b, tol, out);
}

/// The best face axis of `p` against `q` at pose `rel` in `p`'s frame: (face, separation).
fn query_faces(p: &Poly, q: &Poly, rel: &Transform) -> (usize, f32) {
    let mut best = (0, f32::NEG_INFINITY);
    for f in 0..p.hull.faces().len() {
        let n = p.normal(f);
        let v = rel.transform_point(q.support(rel.inv_transform_vector(-n)));
        let sep = n.dot(v) - p.offset(f);
        if sep > best.1 {
            best = (f, sep);
        }
    }
    best
}

/// The best edge axis (pairs forming a Minkowski face only), in A's frame:
/// (edge of A, edge of B, axis from A to B, separation).
fn query_edges(pa: &Poly, pb: &Poly, rel: &Transform) -> Option<(usize, usize, Vec3, f32)> {
    let mut best: Option<(usize, usize, Vec3, f32)> = None;
    for (i, ea) in pa.hull.edges().iter().enumerate() {
        let a0 = pa.vertex(ea.vertices[0] as usize);
        let da = pa.vertex(ea.vertices[1] as usize) - a0;
        let (u1, u2) = (
            pa.normal(ea.faces[0] as usize),
            pa.normal(ea.faces[1] as usize),
        );
        let u_x = u2.cross(u1);
        for (j, eb) in pb.hull.edges().iter().enumerate() {
            let (c, d) = (
                -(rel.q * pb.normal(eb.faces[0] as usize)),
                -(rel.q * pb.normal(eb.faces[1] as usize)),
            );
            // Gauss-map test: the arcs (u1, u2) and (c, d) cross.
            let d_x = d.cross(c);
            let cba = c.dot(u_x);
            let dba = d.dot(u_x);
            let adc = u1.dot(d_x);
            let bdc = u2.dot(d_x);
            if !(cba * dba < 0.0 && adc * bdc < 0.0 && cba * bdc > 0.0) {
                continue;
            }
            let b0 = rel.transform_point(pb.vertex(eb.vertices[0] as usize));
            let db = rel.transform_point(pb.vertex(eb.vertices[1] as usize)) - b0;
            let axis = da.cross(db);
            let len = axis.length();
            if len <= 1.0e-3 * da.length() * db.length() {
                continue;
            }
            let mut axis = axis / len;
            // A's origin is inside A: the axis points away from it.
            if axis.dot(a0) < 0.0 {
                axis = -axis;
            }
            let sep = axis.dot(b0 - a0);
            if best.is_none_or(|b| sep > b.3) {
                best = Some((i, j, axis, sep));
            }
        }
    }
    best
}

fn poly_poly(
    pa: Poly,
    xf_a: &Transform,
    pb: Poly,
    xf_b: &Transform,
    tol: Tolerance,
    out: &mut Manifold,
) {
    let rel_ab = xf_a.inv_mul(xf_b);
    let rel_ba = xf_b.inv_mul(xf_a);
    let face_a = query_faces(&pa, &pb, &rel_ab);
    if face_a.1 >= tol.speculative {
        return;
    }
    let face_b = query_faces(&pb, &pa, &rel_ba);
    if face_b.1 >= tol.speculative {
        return;
    }
    let edge = query_edges(&pa, &pb, &rel_ab);
    // The best axis's separation; past `deep::DEEP` the biases shrink (see `deep.rs`).
    let best_face = face_a.1.max(face_b.1);
    let best = edge.map_or(best_face, |e| e.3.max(best_face));
    let deep = deep::is_deep(best);
    if let Some(e) = edge {
        if e.3 >= tol.speculative {
            return;
        }
        if e.3 > best_face + deep::bias(tol.linear_slop, best) {
            push_edge(&pa, &pb, &rel_ab, e, xf_a, out);
            return;
        }
    }
    let ref_is_a = face_b.1 <= face_a.1 + deep::bias(FACE_SWITCH_TOL, best);
    let (pr, pi, rel, (face, fq_sep), xf_ref) = if ref_is_a {
        (&pa, &pb, &rel_ab, face_a, xf_a)
    } else {
        (&pb, &pa, &rel_ba, face_b, xf_b)
    };
    let nr = pr.normal(face);
    let off = pr.offset(face);
    let ni = rel.inv_transform_vector(nr);
    let (inc, deep_v) = pi.incident_face(ni);
    // Features are coded per shape; the id puts A's code low.
    let pair = |ref_code: u32, inc_code: u32| {
        if ref_is_a {
            ref_code | inc_code << 16
        } else {
            inc_code | ref_code << 16
        }
    };
    let mut poly = [(Vec3::ZERO, 0u32); CLIP_CAP];
    let mut len = 0;
    for &v in pi.hull.face_polygon(inc) {
        poly[len] = (
            rel.transform_point(pi.vertex(v as usize)),
            pair(FACE_CODE + face as u32, VERTEX_CODE + v as u32),
        );
        len += 1;
    }
    let ref_poly = pr.hull.face_polygon(face);
    let k = ref_poly.len();
    let planes = (0..k).map(|j| {
        let a = pr.vertex(ref_poly[j] as usize);
        let b = pr.vertex(ref_poly[(j + 1) % k] as usize);
        let side = (b - a).cross(nr).normalize_or_zero();
        let h = side.dot(a) + CLIP_SLOP;
        (side, h, edge_code(ref_poly[j], ref_poly[(j + 1) % k]))
    });
    len = clip_polygon(&mut poly, len, planes);
    let mut cands = [Candidate::default(); CLIP_CAP];
    let mut count = 0;
    for &(p, id) in &poly[..len] {
        let separation = nr.dot(p) - off;
        if separation < tol.speculative {
            cands[count] = Candidate {
                point: p - nr * (0.5 * separation),
                separation,
                id,
            };
            count += 1;
        }
    }
    let deepest = cands[..count]
        .iter()
        .fold(f32::INFINITY, |d, c| d.min(c.separation));
    if let Some(e) = edge {
        if e.3 > face_a.1.max(face_b.1) && deepest > e.3 + CLIP_MISS_TOL {
            push_edge(&pa, &pb, &rel_ab, e, xf_a, out);
            return;
        }
    }
    // A deep contact keeps its depth exactly (see `deep.rs`).
    let miss_tol = if deep { 0.0 } else { CLIP_MISS_TOL };
    if deepest > fq_sep + miss_tol && count < CLIP_CAP {
        // Clipping lost the deepest point (it lies beside the reference face, or deep
        // overlap clipped the incident face away): add the incident shape's deepest vertex,
        // whose separation is the face axis's.
        let p = rel.transform_point(pi.vertex(deep_v));
        let separation = nr.dot(p) - off;
        let id = pair(FACE_CODE + face as u32, VERTEX_CODE + deep_v as u32);
        if separation < tol.speculative && cands[..count].iter().all(|c| c.id != id) {
            cands[count] = Candidate {
                point: p - nr * (0.5 * separation),
                separation,
                id,
            };
            count += 1;
        }
    }
    if count == 0 {
        return;
    }
    let n_ab = if ref_is_a { nr } else { -nr };
    out.normal = xf_ref.transform_vector(n_ab).normalize_or(n_ab);
    let (idx, n) = if deep {
        select_four_deep(&cands[..count], nr)
    } else {
        select_four(&cands[..count], nr)
    };
    for &i in &idx[..n] {
        let c = cands[i];
        out.push(xf_ref.transform_point(c.point), c.separation, c.id);
    }
}

/// The one-point manifold of an edge axis: midpoint of the edges' closest points.
fn push_edge(
    pa: &Poly,
    pb: &Poly,
    rel: &Transform,
    (i, j, axis, sep): (usize, usize, Vec3, f32),
    xf_a: &Transform,
    out: &mut Manifold,
) {
    let ea = pa.hull.edges()[i];
    let eb = pb.hull.edges()[j];
    let a0 = pa.vertex(ea.vertices[0] as usize);
    let da = pa.vertex(ea.vertices[1] as usize) - a0;
    let b0 = rel.transform_point(pb.vertex(eb.vertices[0] as usize));
    let db = rel.transform_point(pb.vertex(eb.vertices[1] as usize)) - b0;
    let (s, t) = closest_segment_params(a0, da, b0, db);
    let point = (a0 + da * s + b0 + db * t) * 0.5;
    out.normal = xf_a.transform_vector(axis);
    let id =
        edge_code(ea.vertices[0], ea.vertices[1]) | edge_code(eb.vertices[0], eb.vertices[1]) << 16;
    out.push(xf_a.transform_point(point), sep, id);
}

/// Sphere A against hull B.
pub(crate) fn sphere_hull(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    tol: Tolerance,
    out: &mut Manifold,
) {
    let (&Shape::Sphere { radius }, Shape::Hull { hull }) = (a, b) else {
        return;
    };
    let c = xf_b.inv_mul(xf_a).p;
    // Cheap reject: the centre's height above the farthest face plane bounds the distance.
    let (face, height) = hull.max_face_distance(c);
    if height - radius >= tol.speculative {
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
    if separation >= tol.speculative {
        return;
    }
    let point = (c + n * radius + hull_point) * 0.5;
    out.normal = xf_b.transform_vector(n);
    out.push(xf_b.transform_point(point), separation, 0);
}

/// A capsule–hull normal counts as a face normal above this cosine with the face normal.
const FACE_COS: f32 = 0.9995;

/// Capsule A against hull B.
pub(crate) fn capsule_hull(
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
        Shape::Hull { hull },
    ) = (a, b)
    else {
        return;
    };
    let Some((core, dist)) = core_in_b(a, xf_a, b, xf_b, hc, tol.speculative) else {
        return;
    };
    let (p0, seg) = (core.p0, core.seg);
    if dist.overlap {
        // The segment enters the hull: deep (see `deep.rs`).
        deep_capsule_hull(hull, p0, seg, r, tol, xf_b, out);
        return;
    }
    let n = dist.normal;
    let face = hull
        .faces()
        .iter()
        .enumerate()
        .map(|(k, f)| (k, -f.normal.dot(n)))
        .filter(|&(_, c)| c >= FACE_COS)
        .max_by(|x, y| x.1.total_cmp(&y.1))
        .map(|(k, _)| k);
    if let Some(f) = face {
        if hull_face_points(hull, f, p0, seg, r, tol.speculative, xf_b, out) {
            return;
        }
    }
    push_closest(&dist, &core, r, xf_b, out);
}

/// The id of a capsule–hull point on a cross axis: this bit with the hull edge's index
/// (clear of the face ids `face << 8 | end` and the closest-point ids `0x80 | feature`).
const CROSS_ID: u32 = 1 << 24;

/// Capsule (core `p0 + τ seg`, radius `r`, hull frame) whose core enters the hull: the
/// separating-axis test over the hull's face normals and the cross products of the core's
/// direction with the hull edges whose Gauss-map arcs cross the great circle normal to it,
/// complete for a segment against a polytope (see `deep.rs`). A face axis gives the face's
/// clipped points (as a shallow face contact does) and the deepest end of the core if
/// clipping lost it; a cross axis one point between the core and the edge.
#[allow(clippy::too_many_arguments)]
fn deep_capsule_hull(
    hull: &ConvexHull,
    p0: Vec3,
    seg: Vec3,
    r: f32,
    tol: Tolerance,
    xf_b: &Transform,
    out: &mut Manifold,
) {
    let p1 = p0 + seg;
    let mut face = (f32::NEG_INFINITY, 0usize);
    for (k, f) in hull.faces().iter().enumerate() {
        let sep = f.normal.dot(p0).min(f.normal.dot(p1)) - f.offset;
        if sep > face.0 {
            face = (sep, k);
        }
    }
    // Cross axes: (separation, axis from the hull towards the core, edge index).
    let mut cross: Option<(f32, Vec3, usize)> = None;
    for (i, e) in hull.edges().iter().enumerate() {
        let (n1, n2) = (
            hull.faces()[e.faces[0] as usize].normal,
            hull.faces()[e.faces[1] as usize].normal,
        );
        // The edge's arc of normals crosses the great circle normal to the core.
        if n1.dot(seg) * n2.dot(seg) >= 0.0 {
            continue;
        }
        let v0 = hull.vertices()[e.vertices[0] as usize];
        let v1 = hull.vertices()[e.vertices[1] as usize];
        let Some(c) = super::deep::cross_axis(seg, v1 - v0) else {
            continue;
        };
        // The crossing on the arc (the other one is its antipode).
        let a = if c.dot(n1 + n2) < 0.0 { -c } else { c };
        let sep = a.dot(p0) - a.dot(v0);
        if cross.is_none_or(|x| sep > x.0) {
            cross = Some((sep, a, i));
        }
    }
    let best = cross.map_or(face.0, |x| x.0.max(face.0));
    if let Some((sep, a, i)) = cross {
        if sep > face.0 + super::deep::bias(tol.linear_slop, best - r) {
            let e = hull.edges()[i];
            let v0 = hull.vertices()[e.vertices[0] as usize];
            let v1 = hull.vertices()[e.vertices[1] as usize];
            let edge = (v0, v1 - v0);
            push_cross_point(out, xf_b, (p0, seg), edge, a, sep, r, CROSS_ID | i as u32);
            return;
        }
    }
    let (sep, f) = face;
    hull_face_points(hull, f, p0, seg, r, tol.speculative, xf_b, out);
    // The core's deepest end below the face carries the face axis's separation.
    let n = hull.faces()[f].normal;
    let (c, end) = if n.dot(p0) <= n.dot(p1) {
        (p0, 0)
    } else {
        (p1, 1)
    };
    let separation = sep - r;
    let deepest = out
        .points()
        .iter()
        .fold(f32::INFINITY, |d, p| d.min(p.separation));
    let id = (f as u32) << 8 | end;
    if deepest > separation && out.points().iter().all(|p| p.id != id) {
        out.normal = xf_b.transform_vector(-n);
        out.push(
            xf_b.transform_point(c - n * (r + 0.5 * separation)),
            separation,
            id,
        );
    }
}

/// Clips the segment `p0 + τ seg` (hull frame) against the side planes of hull face `f`
/// and pushes each clipped end closer than `speculative`. Returns whether it pushed any.
#[allow(clippy::too_many_arguments)]
fn hull_face_points(
    hull: &ConvexHull,
    f: usize,
    p0: Vec3,
    seg: Vec3,
    r: f32,
    speculative: f32,
    xf_b: &Transform,
    out: &mut Manifold,
) -> bool {
    let face = hull.faces()[f];
    let n = face.normal;
    let poly = hull.face_polygon(f);
    let k = poly.len();
    let (mut lo, mut hi) = (0.0f32, 1.0f32);
    let (mut lo_id, mut hi_id) = (0u32, 1u32);
    for j in 0..k {
        let a = hull.vertices()[poly[j] as usize];
        let b = hull.vertices()[poly[(j + 1) % k] as usize];
        let side = (b - a).cross(n).normalize_or_zero();
        let dist0 = side.dot(p0 - a) - CLIP_SLOP;
        let rate = side.dot(seg);
        let id = 2 + j as u32;
        if rate.abs() <= 1.0e-9 {
            if dist0 > 0.0 {
                return false;
            }
            continue;
        }
        let t = -dist0 / rate;
        if rate > 0.0 {
            if t < hi {
                hi = t;
                hi_id = id;
            }
        } else if t > lo {
            lo = t;
            lo_id = id;
        }
    }
    if lo > hi {
        return false;
    }
    out.normal = xf_b.transform_vector(-n);
    let face_id = (f as u32) << 8;
    let ends: &[(f32, u32)] = if (hi - lo) * seg.length() > 1.0e-6 {
        &[(lo, lo_id), (hi, hi_id)]
    } else {
        &[(lo, lo_id)]
    };
    for &(tau, id) in ends {
        let c = p0 + seg * tau;
        let separation = n.dot(c) - face.offset - r;
        if separation < speculative {
            let point = c - n * (r + 0.5 * separation);
            out.push(xf_b.transform_point(point), separation, face_id | id);
        }
    }
    out.count > 0
}

/// Hull A against plane B.
pub(crate) fn hull_plane(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    tol: Tolerance,
    out: &mut Manifold,
) {
    let Shape::Hull { hull } = a else {
        return;
    };
    let Some((n, d)) = plane_in_frame(b, xf_a, xf_b) else {
        return;
    };
    let vertices = hull.vertices().iter().enumerate();
    vertices_on_plane::<MAX_HULL_VERTICES>(
        vertices.map(|(v, &x)| (v as u32, x)),
        n,
        d,
        tol.speculative,
        b,
        xf_a,
        xf_b,
        out,
    );
}

#[cfg(test)]
mod tests;
