//! Convex shapes against one triangle of a mesh or height field.
//!
//! Everything runs in the convex shape's frame (A at the origin), with the triangle's
//! corners brought there from the mesh frame. Triangles are two-sided; the side the convex
//! shape's centre is on is "up".
//!
//! - Sphere and capsule: the exact closest points of the core (a point or a segment) and the
//!   triangle (Ericson, *Real-Time Collision Detection* §5.1.5 and §5.1.9), one point. A
//!   capsule lying along the face (axis within ~3° of its plane) or piercing it is clipped
//!   against the triangle's side planes instead and gets up to two points along the face
//!   normal, so a capsule lying on a floor rests on both ends.
//! - Box and hull: the separating-axis test over the triangle normal (towards A), A's face
//!   normals and the cross products of A's edges with the triangle's edges that form faces
//!   of the Minkowski difference. A triangle-face axis (preferred within
//!   `FACE_SWITCH_TOL`) clips A's incident face against the triangle's side planes; an
//!   A-face axis clips the triangle against the face's side planes (Sutherland–Hodgman, as
//!   `hull.rs` does); an edge axis clearly better than both gives one point between the
//!   edges. Points within the speculative distance are reduced to four (`reduce.rs`). When
//!   clipping and the edges find nothing although the axes allow a contact (closest
//!   features beside both faces), GJK's closest points give one point.
//!
//! Deep overlaps (see `deep.rs`): a capsule core piercing the triangle is tested on the face
//! normal and the cross products of the core with the active edges; a cross axis better
//! than the face gives one point between the core and that edge, otherwise the face
//! clipping above plus the core's deepest end when clipping lost it. A box or hull deeper
//! than `deep::DEEP` (confirmed by GJK: the pruned edge axes are complete only for
//! overlapping shapes) shrinks the axis biases to a fraction of its depth, keeps the
//! incident shape's deepest vertex (A's, or the triangle's deepest corner) even beside the
//! reference face, and keeps the deepest point through the reduction. A hull deep in a
//! triangle whose three edges are active may leave through the far side of the triangle.
//!
//! Internal edges (Jolt's "active edges"): a normal that comes from a triangle edge flagged
//! inactive (shared with a coplanar or concave neighbour) or from a vertex whose two edges
//! are inactive is replaced by the triangle's face normal, with the separations measured
//! along it. For spheres and capsules the feature is the closest one; for boxes and hulls a
//! normal other than the face's must lean out of the triangle past an active edge (outside
//! that edge's side plane), else the face normal is used. Then a box sliding across the seam
//! of two flat triangles sees the floor's normal from both, never the seam's edge normal
//! that would kick it up. (Measuring along the face normal is safe there: extended past a
//! coplanar or concave seam, this triangle's plane runs level with or beneath the
//! neighbour, so it never reports a contact the neighbour's surface would not.)
//!
//! Feature ids: A's feature codes as in `hull.rs` (vertex `v`, edge `64 + 64 v0 + v1`, face
//! `8192 + f`) in the low 16 bits, the triangle's (vertex `i`, edge `3 + i`, face 6) shifted
//! by 16; a point cut by a side plane hashes its segment's ids with the plane's edge. For
//! spheres and capsules the id is the triangle feature with the segment end.

mod poly;

use poly::poly_triangle;

use super::capsule::closest_segment_params;
use super::deep;
use super::hull::{unit_cube, Poly};
use super::tolerance::CLIP_SLOP;
use super::{Manifold, Tolerance};
use crate::hull::MAX_HULL_VERTICES;
use crate::math::Transform;
use crate::mesh::Triangle;
use crate::shape::Shape;
use glam::Vec3;

/// Triangle feature codes.
const TRI_EDGE: u32 = 3;
const TRI_FACE: u32 = 6;

/// Room for a clipped polygon: the incident polygon plus one vertex per side plane.
const CLIP_CAP: usize = MAX_HULL_VERTICES + 8;

/// Below this distance (m) between closest points the direction between them is noise.
const MIN_DISTANCE: f32 = 1.0e-6;

/// A capsule counts as lying along the face below this sine of its axis with the plane.
const PARALLEL_SIN: f32 = 0.05;

/// The triangle in A's frame.
#[derive(Clone, Copy)]
struct Tri {
    v: [Vec3; 3],
    /// Unit normal, counter-clockwise about the corners.
    n: Vec3,
    active: u8,
    /// The side planes' clipping slop: `CLIP_SLOP` times the sine of the sharpest corner,
    /// so that a sliver's nearly parallel side planes do not let clipped points wander far
    /// past its tip (slop / sin of the corner's angle).
    slop: f32,
}

impl Tri {
    fn edge_active(&self, i: usize) -> bool {
        self.active & (1 << i) != 0
    }

    /// Whether a normal from triangle feature `code` must be replaced by the face normal.
    fn inactive_feature(&self, code: u32) -> bool {
        match code {
            0..=2 => {
                !(self.edge_active(code as usize) || self.edge_active((code as usize + 2) % 3))
            }
            3..=5 => !self.edge_active((code - TRI_EDGE) as usize),
            _ => false,
        }
    }

    /// The unit normal of the side `x` is on ("up"; +n when `x` is in the plane).
    fn up(&self, x: Vec3) -> Vec3 {
        if self.n.dot(x - self.v[0]) < 0.0 {
            -self.n
        } else {
            self.n
        }
    }

    /// Outward unit normal of side plane `j` (through edge `j`, perpendicular to the face).
    fn side(&self, j: usize) -> Vec3 {
        (self.v[(j + 1) % 3] - self.v[j])
            .cross(self.n)
            .normalize_or_zero()
    }
}

/// Convex shape `a` at `xf_a` against triangle `tri` (mesh frame) of a mesh at `xf_b`; the
/// normal points from A to the triangle. Writes nothing for pairs farther apart than
/// `speculative` and for shapes that are not convex.
pub(crate) fn collide_triangle(
    a: &Shape,
    xf_a: &Transform,
    tri: &Triangle,
    xf_b: &Transform,
    tol: Tolerance,
    out: &mut Manifold,
) {
    let rel = xf_a.inv_mul(xf_b);
    let v = tri.vertices.map(|x| rel.transform_point(x));
    let n = (v[1] - v[0]).cross(v[2] - v[0]).normalize_or_zero();
    if n == Vec3::ZERO {
        return;
    }
    let sin = |a: Vec3, b: Vec3| a.cross(b).length() / (a.length() * b.length());
    let (e0, e1, e2) = (v[1] - v[0], v[2] - v[1], v[0] - v[2]);
    let sharpest = sin(e0, -e2).min(sin(e1, -e0)).min(sin(e2, -e1));
    let t = Tri {
        v,
        n,
        active: tri.active_edges,
        slop: CLIP_SLOP * sharpest.clamp(0.0, 1.0),
    };
    let mut m = Manifold::default();
    match *a {
        Shape::Sphere { radius } => sphere_triangle(radius, &t, tol.speculative, &mut m),
        Shape::Capsule {
            half_height,
            radius,
        } => capsule_triangle(half_height, radius, &t, tol, &mut m),
        Shape::Box { half_extents } => poly_triangle(
            a,
            Poly {
                hull: unit_cube(),
                scale: half_extents,
            },
            Some(half_extents),
            &t,
            tol,
            &mut m,
        ),
        Shape::Hull { ref hull } => poly_triangle(
            a,
            Poly {
                hull,
                scale: Vec3::ONE,
            },
            None,
            &t,
            tol,
            &mut m,
        ),
        _ => return,
    }
    if m.count == 0 {
        return;
    }
    out.normal = xf_a.transform_vector(m.normal);
    for p in m.points() {
        out.push(xf_a.transform_point(p.point), p.separation, p.id);
    }
}

/// The point of the triangle closest to `p` and its feature code (Ericson §5.1.5).
fn closest_on_triangle(p: Vec3, t: &Tri) -> (Vec3, u32) {
    let [a, b, c] = t.v;
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, 0);
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return (b, 1);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let s = d1 / (d1 - d3);
        return (a + ab * s, TRI_EDGE);
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return (c, 2);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let s = d2 / (d2 - d6);
        return (a + ac * s, TRI_EDGE + 2);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let s = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (b + (c - b) * s, TRI_EDGE + 1);
    }
    let denom = 1.0 / (va + vb + vc);
    let (s, u) = (vb * denom, vc * denom);
    (a + ab * s + ac * u, TRI_FACE)
}

/// Sphere of `radius` at A's origin against the triangle.
fn sphere_triangle(radius: f32, t: &Tri, speculative: f32, out: &mut Manifold) {
    let c = Vec3::ZERO;
    let (q, feature) = closest_on_triangle(c, t);
    let d = q - c;
    let dist = d.length();
    if dist - radius >= speculative {
        return;
    }
    if feature == TRI_FACE || dist <= MIN_DISTANCE || t.inactive_feature(feature) {
        // The face normal, with the separation measured along it.
        let up = t.up(c);
        let h = up.dot(c - t.v[0]);
        let separation = h - radius;
        if separation >= speculative {
            return;
        }
        out.normal = -up;
        out.push(
            c - up * (radius + 0.5 * separation),
            separation,
            TRI_FACE << 16,
        );
        return;
    }
    let n = d / dist;
    let separation = dist - radius;
    out.normal = n;
    out.push((c + n * radius + q) * 0.5, separation, feature << 16);
}

/// Capsule (core from `(0, -h, 0)` to `(0, h, 0)`, radius `r`) against the triangle.
fn capsule_triangle(h: f32, r: f32, t: &Tri, tol: Tolerance, out: &mut Manifold) {
    let p0 = Vec3::new(0.0, -h, 0.0);
    let seg = Vec3::new(0.0, 2.0 * h, 0.0);
    // Closest points: each end against the triangle, the segment against each edge.
    let mut best = (f32::INFINITY, Vec3::ZERO, Vec3::ZERO, 0u32, 0u32);
    for (end, s) in [(0u32, 0.0f32), (1, 1.0)] {
        let p = p0 + seg * s;
        let (q, f) = closest_on_triangle(p, t);
        let d2 = (q - p).length_squared();
        if d2 < best.0 {
            best = (d2, p, q, f, end);
        }
    }
    for j in 0..3 {
        let (e0, e) = (t.v[j], t.v[(j + 1) % 3] - t.v[j]);
        let (s, u) = closest_segment_params(p0, seg, e0, e);
        let (p, q) = (p0 + seg * s, e0 + e * u);
        let d2 = (q - p).length_squared();
        if d2 < best.0 {
            let f = if u <= 0.0 {
                j as u32
            } else if u >= 1.0 {
                ((j + 1) % 3) as u32
            } else {
                TRI_EDGE + j as u32
            };
            best = (d2, p, q, f, 2);
        }
    }
    // The segment crossing the triangle's interior.
    let (d0, d1) = (t.n.dot(p0 - t.v[0]), t.n.dot(p0 + seg - t.v[0]));
    let crosses = d0 * d1 < 0.0 && {
        let x = p0 + seg * (d0 / (d0 - d1));
        closest_on_triangle(x, t).1 == TRI_FACE
    };
    let dist = best.0.sqrt();
    if !crosses && dist - r >= tol.speculative {
        return;
    }
    let (_, p, q, feature, end) = best;
    let along = seg.length() > 0.0 && (seg.normalize().dot(t.n)).abs() < PARALLEL_SIN;
    // Lying along the face (or crossing it): clip to the face for two points. Otherwise
    // one point at the closest points, whose normal is the face normal when the closest
    // feature is the face.
    if crosses || dist <= MIN_DISTANCE || t.inactive_feature(feature) || along {
        // A core piercing the triangle is deep: a cross axis may be its least penetration
        // (see `deep.rs`).
        if crosses && capsule_cross_contact(p0, seg, r, t, tol.linear_slop, out) {
            return;
        }
        // Face normal: clip the segment to the triangle's prism.
        let up = t.up(if crosses { Vec3::ZERO } else { p });
        let (mut lo, mut hi) = (0.0f32, 1.0f32);
        let (mut lo_id, mut hi_id) = (0u32, 1u32);
        let mut empty = false;
        for j in 0..3 {
            let side = t.side(j);
            let dist0 = side.dot(p0 - t.v[j]) - t.slop;
            let rate = side.dot(seg);
            let id = 2 + j as u32;
            if rate.abs() <= 1.0e-9 {
                empty |= dist0 > 0.0;
                continue;
            }
            let tau = -dist0 / rate;
            if rate > 0.0 {
                if tau < hi {
                    (hi, hi_id) = (tau, id);
                }
            } else if tau > lo {
                (lo, lo_id) = (tau, id);
            }
        }
        let beside = empty || lo > hi;
        if beside && !(crosses || dist <= MIN_DISTANCE || t.inactive_feature(feature)) {
            // Lying along the face but beside it: the closest points below.
            return closest_points(p, q, dist, r, feature << 16 | 0x80 | end, out);
        }
        out.normal = -up;
        if beside {
            // Beside the prism with a replaced normal: one point at the closest points,
            // separated along the face normal.
            let separation = up.dot(p - t.v[0]) - r;
            if separation < tol.speculative {
                let point = p - up * (r + 0.5 * separation);
                out.push(point, separation, TRI_FACE << 16 | 0x80 | end);
            }
            return;
        }
        let ends: &[(f32, u32)] = if (hi - lo) * seg.length() > 1.0e-6 {
            &[(lo, lo_id), (hi, hi_id)]
        } else {
            &[(lo, lo_id)]
        };
        for &(tau, id) in ends {
            let c = p0 + seg * tau;
            let separation = up.dot(c - t.v[0]) - r;
            if separation < tol.speculative {
                out.push(
                    c - up * (r + 0.5 * separation),
                    separation,
                    TRI_FACE << 16 | id,
                );
            }
        }
        if crosses {
            // The core's end deepest below the face carries the face axis's separation;
            // clipping to the prism may have lost it.
            let (c, end) = if up.dot(p0) <= up.dot(p0 + seg) {
                (p0, 0)
            } else {
                (p0 + seg, 1)
            };
            let separation = up.dot(c - t.v[0]) - r;
            let deepest = out
                .points()
                .iter()
                .fold(f32::INFINITY, |d, p| d.min(p.separation));
            let id = TRI_FACE << 16 | end;
            if deepest > separation && out.points().iter().all(|p| p.id != id) {
                out.push(c - up * (r + 0.5 * separation), separation, id);
            }
        }
        return;
    }
    closest_points(p, q, dist, r, feature << 16 | 0x80 | end, out);
}

/// The id of a point on a capsule–triangle cross axis, with the triangle edge's code.
const CROSS_ID: u32 = 0xC0;

/// A capsule core (`p0 + τ seg`, radius `r`) piercing the triangle: the separating-axis
/// test over the face normal towards the capsule's centre and the cross products of the
/// core's direction with the active edges (turned out of the triangle), complete for a
/// segment against a triangle (see `deep.rs`; an inactive edge's normal is replaced by the
/// face normal, as everywhere). When a cross axis beats the face, writes one point between
/// the core and that edge and returns true.
fn capsule_cross_contact(
    p0: Vec3,
    seg: Vec3,
    r: f32,
    t: &Tri,
    linear_slop: f32,
    out: &mut Manifold,
) -> bool {
    let up = t.up(Vec3::ZERO);
    let sep_face = up.dot(p0).min(up.dot(p0 + seg)) - up.dot(t.v[0]);
    let mut cross: Option<(f32, Vec3, usize)> = None;
    for j in (0..3).filter(|&j| t.edge_active(j)) {
        let e = t.v[(j + 1) % 3] - t.v[j];
        let Some(c) = deep::cross_axis(seg, e) else {
            continue;
        };
        // The normal of the face the edge sweeps leans out of the triangle past the edge.
        let side = t.side(j);
        let a = if c.dot(side) < 0.0 { -c } else { c };
        if a.dot(side) <= 1.0e-3 {
            continue;
        }
        let sep = a.dot(p0) - a.dot(t.v[j]);
        if cross.is_none_or(|x| sep > x.0) {
            cross = Some((sep, a, j));
        }
    }
    let Some((sep, a, j)) = cross else {
        return false;
    };
    let best = sep.max(sep_face);
    if sep <= sep_face + deep::bias(linear_slop, best - r) {
        return false;
    }
    let e = t.v[(j + 1) % 3] - t.v[j];
    let (s, _) = closest_segment_params(p0, seg, t.v[j], e);
    let c = p0 + seg * s;
    let separation = sep - r;
    out.normal = -a;
    out.push(
        c - a * (r + 0.5 * separation),
        separation,
        (TRI_EDGE + j as u32) << 16 | CROSS_ID,
    );
    true
}

/// One point between core point `p` and triangle point `q` at distance `dist` (> 0).
fn closest_points(p: Vec3, q: Vec3, dist: f32, r: f32, id: u32, out: &mut Manifold) {
    let n = (q - p) / dist;
    out.normal = n;
    out.push((p + n * r + q) * 0.5, dist - r, id);
}

#[cfg(test)]
mod tests;
