//! A box or hull against the triangle: the separating-axis test, then clipping, an edge
//! point or GJK's closest points (see the module docs of `triangle.rs`).

use super::super::capsule::closest_segment_params;
use super::super::deep;
use super::super::gjk::triangle_distance;
use super::super::hull::{clip_polygon, edge_code, unit_cube, Poly, FACE_CODE, VERTEX_CODE};
use super::super::reduce::{select_four, select_four_deep, Candidate};
use super::super::tolerance::{CLIP_MISS_TOL, CLIP_SLOP, FACE_SWITCH_TOL};
use super::super::{Manifold, Tolerance};
use super::{Tri, CLIP_CAP, TRI_EDGE, TRI_FACE};
use crate::math::Transform;
use crate::shape::Shape;
use glam::Vec3;

/// The projection interval of the triangle on `u`.
#[inline]
fn tri_interval(t: &Tri, u: Vec3) -> (f32, f32) {
    let (a, b, c) = (u.dot(t.v[0]), u.dot(t.v[1]), u.dot(t.v[2]));
    (a.min(b).min(c), a.max(b).max(c))
}

/// Polytope A at the origin against the triangle: SAT, then clipping (see `triangle.rs`).
pub(super) fn poly_triangle(
    a: &Shape,
    pa: Poly,
    half: Option<Vec3>,
    t: &Tri,
    tol: Tolerance,
    out: &mut Manifold,
) {
    // Triangle face axis, towards A's centre: the height of A's lowest point above the
    // triangle's plane.
    let up = t.up(Vec3::ZERO);
    let sep_tri = up.dot(pa.support(-up)) - up.dot(t.v[0]);
    if sep_tri >= tol.speculative {
        return;
    }
    // A hull deep in a triangle whose every edge is active (a lone two-sided sheet) leaves
    // through the far side when that is nearer (a box, centrally symmetric, never does).
    // With an inactive edge the triangle is part of a surface and keeps its up side.
    //
    // The edge axes below are only those whose edges' closest points lie on both edges:
    // complete for overlapping shapes (the least penetration is on such an axis), not for
    // separated ones, whose axes may then all report overlap. So a deep-looking contact is
    // confirmed by GJK before it is treated as deep.
    let mut overlap: Option<bool> = None;
    let mut overlaps = || {
        *overlap.get_or_insert_with(|| {
            triangle_distance(a, &Transform::IDENTITY, t.v).is_some_and(|d| d.overlap)
        })
    };
    let (up, sep_tri) = if half.is_none() && t.active == 0b111 && deep::is_deep(sep_tri) {
        let sep_down = up.dot(t.v[0]) - up.dot(pa.support(up));
        if sep_down > sep_tri && overlaps() {
            (-up, sep_down)
        } else {
            (up, sep_tri)
        }
    } else {
        (up, sep_tri)
    };
    // A's face axes.
    let faces = pa.hull.faces().len();
    let mut face = (0usize, f32::NEG_INFINITY);
    for f in 0..faces {
        let nf = pa.normal(f);
        let sep = tri_interval(t, nf).0 - pa.offset(f);
        if sep > face.1 {
            face = (f, sep);
        }
    }
    if face.1 >= tol.speculative {
        return;
    }
    // Edge axes: A's edges against the triangle's, oriented from A to the triangle. Only
    // an edge axis better than every face axis can matter (see below), so the others are
    // skipped before the costlier Minkowski-face test.
    let best_face = sep_tri.max(face.1);
    let interval = |u: Vec3| match half {
        Some(h) => {
            let r = h.dot(u.abs());
            (-r, r)
        }
        None => (u.dot(pa.support(-u)), u.dot(pa.support(u))),
    };
    let mut edge: Option<(usize, usize, Vec3, f32)> = None;
    let edges = pa.hull.edges();
    // `group`: edges of A along one direction (a box's four parallel edges share their
    // axes, so they are tested once and the supporting one picked; a hull's edges alone).
    let mut consider = |group: &[u16]| {
        let e0 = edges[group[0] as usize];
        let a0 = pa.vertex(e0.vertices[0] as usize);
        let da = pa.vertex(e0.vertices[1] as usize) - a0;
        for j in 0..3 {
            let db = t.v[(j + 1) % 3] - t.v[j];
            let axis = da.cross(db);
            let len = axis.length();
            if len <= 1.0e-3 * da.length() * db.length() {
                continue;
            }
            let u = axis / len;
            let (tmin, tmax) = tri_interval(t, u);
            let (amin, amax) = interval(u);
            let (sep, u, top, low) = if tmin - amax >= amin - tmax {
                (tmin - amax, u, amax, tmin)
            } else {
                (amin - tmax, -u, -amin, -tmax)
            };
            if sep <= best_face || edge.is_some_and(|e| sep <= e.3) {
                continue;
            }
            // Only pairs whose edges are the extreme features along the axis (a face of
            // the Minkowski difference): A's edge on A's support plane, the triangle's on
            // its own, crossing each other.
            let b0 = t.v[j];
            let tol = 1.0e-4 * (1.0 + top.abs() + low.abs());
            if u.dot(b0).max(u.dot(b0 + db)) > low + tol {
                continue;
            }
            for &i in group {
                let ea = edges[i as usize];
                let a0 = pa.vertex(ea.vertices[0] as usize);
                let da = pa.vertex(ea.vertices[1] as usize) - a0;
                if u.dot(a0).min(u.dot(a0 + da)) >= top - tol && lines_cross(a0, da, b0, db) {
                    edge = Some((i as usize, j, u, sep));
                    break;
                }
            }
        }
    };
    if half.is_some() {
        for group in box_edge_groups() {
            consider(group);
        }
    } else {
        for i in 0..edges.len() {
            consider(&[i as u16]);
        }
    }
    if let Some(e) = edge {
        if e.3 >= tol.speculative {
            return;
        }
    }
    // Which axis makes the contact; inactive triangle features fall back to the face. Past
    // `deep::DEEP` the biases shrink (see `deep.rs`).
    let best = edge.map_or(best_face, |e| e.3.max(best_face));
    let deep = deep::is_deep(best) && overlaps();
    // A contact that is not deep keeps the shallow biases.
    let best = if deep { best } else { best.max(0.0) };
    if let Some(e) = edge {
        if e.3 > best_face + deep::bias(tol.linear_slop, best) {
            if t.edge_active(e.1) && normal_allowed(t, up, e.2) {
                edge_contact(&pa, t, e, out);
            } else {
                tri_face_contact(&pa, t, up, sep_tri, tol.speculative, deep, out);
            }
            return;
        }
    }
    if face.1 > sep_tri + deep::bias(FACE_SWITCH_TOL, best)
        && normal_allowed(t, up, pa.normal(face.0))
    {
        a_face_contact(&pa, face.0, face.1, t, tol.speculative, deep, out);
    } else {
        tri_face_contact(&pa, t, up, sep_tri, tol.speculative, deep, out);
    }
    // Clipping missed the closest features (they lie beside the reference face): the edge
    // axis, if it is better than the faces and allowed, gives the point.
    let deepest = out
        .points()
        .iter()
        .fold(f32::INFINITY, |d, p| d.min(p.separation));
    if let Some(e) = edge {
        if e.3 > best_face
            && deepest > e.3 + CLIP_MISS_TOL
            && t.edge_active(e.1)
            && normal_allowed(t, up, e.2)
        {
            *out = Manifold::default();
            edge_contact(&pa, t, e, out);
        }
    }
    if out.count == 0 {
        // Separated, with the closest features beside both faces (a vertex or an edge of
        // A next to the triangle's rim): GJK's closest points give the one point.
        if let Some(d) = triangle_distance(a, &Transform::IDENTITY, t.v) {
            if !d.overlap && d.distance < tol.speculative && normal_allowed(t, up, d.normal) {
                out.normal = d.normal;
                out.push((d.point_a + d.point_b) * 0.5, d.distance, GJK_ID);
            }
        }
    }
}

/// The feature id of a point from GJK's closest points (clear of the feature codes).
const GJK_ID: u32 = 0x3FFF | 0x3F << 16;

/// The unit cube's edges grouped by direction (x, y, z), each group in index order.
fn box_edge_groups() -> &'static [[u16; 4]; 3] {
    static GROUPS: std::sync::OnceLock<[[u16; 4]; 3]> = std::sync::OnceLock::new();
    GROUPS.get_or_init(|| {
        let cube = unit_cube();
        let mut groups = [[0u16; 4]; 3];
        let mut len = [0usize; 3];
        for (i, e) in cube.edges().iter().enumerate() {
            let d =
                cube.vertices()[e.vertices[1] as usize] - cube.vertices()[e.vertices[0] as usize];
            let d = d.abs();
            let axis = if d.x >= d.y && d.x >= d.z {
                0
            } else if d.y >= d.z {
                1
            } else {
                2
            };
            if len[axis] < 4 {
                groups[axis][len[axis]] = i as u16;
                len[axis] += 1;
            }
        }
        debug_assert_eq!(len, [4; 3], "a cube has four edges along each axis");
        groups
    })
}

/// Whether the segments `p1 + s d1` and `p2 + t d2` cross when seen along `d1 × d2`: the
/// closest points of their lines lie within both (so the pair is a face of the Minkowski
/// difference and its closest points are the edges').
fn lines_cross(p1: Vec3, d1: Vec3, p2: Vec3, d2: Vec3) -> bool {
    let r = p1 - p2;
    let (a, b, e) = (d1.dot(d1), d1.dot(d2), d2.dot(d2));
    let (c, f) = (d1.dot(r), d2.dot(r));
    let denom = a * e - b * b;
    if denom <= 1.0e-12 * a * e {
        return false;
    }
    let s = (b * f - c * e) / denom;
    let t = (a * f - b * c) / denom;
    let tol = 1.0e-4;
    (-tol..=1.0 + tol).contains(&s) && (-tol..=1.0 + tol).contains(&t)
}

/// Whether the normal `n` (from A to the triangle) may be used: it is the face normal, or
/// it leans out of the triangle past an active edge (the normal cone of an active edge or
/// of a vertex with an active edge). Leaning out only past inactive edges, it comes from a
/// seam with a coplanar or concave neighbour and is replaced by the face normal.
fn normal_allowed(t: &Tri, up: Vec3, n: Vec3) -> bool {
    let w = -n;
    if w.dot(up) >= 1.0 - 1.0e-6 {
        return true;
    }
    (0..3).any(|j| t.edge_active(j) && w.dot(t.side(j)) > 1.0e-3)
}

/// Keeps the clipped points closer than `speculative` to the reference plane
/// `up · x = plane`, halfway between the surfaces, and writes at most four (keeping the
/// deepest exactly when `deep`). `extra` is added unless its id is there already.
fn push_reduced(
    cands: &mut [Candidate; CLIP_CAP],
    mut count: usize,
    extra: Option<Candidate>,
    up: Vec3,
    normal: Vec3,
    deep: bool,
    out: &mut Manifold,
) {
    if let Some(c) = extra {
        if count < CLIP_CAP && cands[..count].iter().all(|x| x.id != c.id) {
            cands[count] = c;
            count += 1;
        }
    }
    if count == 0 {
        return;
    }
    out.normal = normal;
    let (idx, n) = if deep {
        select_four_deep(&cands[..count], up)
    } else {
        select_four(&cands[..count], up)
    };
    for &i in &idx[..n] {
        let c = cands[i];
        out.push(c.point, c.separation, c.id);
    }
}

/// Reference: the triangle's face (normal `up` towards A). A's incident face is clipped
/// against the triangle's side planes.
fn tri_face_contact(
    pa: &Poly,
    t: &Tri,
    up: Vec3,
    sep_tri: f32,
    speculative: f32,
    deep: bool,
    out: &mut Manifold,
) {
    // Incident face: around A's deepest vertex, the most anti-parallel to `up`.
    let (inc, deep_v) = pa.incident_face(up);
    let mut poly = [(Vec3::ZERO, 0u32); CLIP_CAP];
    let mut len = 0;
    for &v in pa.hull.face_polygon(inc) {
        if len < CLIP_CAP {
            poly[len] = (
                pa.vertex(v as usize),
                (VERTEX_CODE + v as u32) | (TRI_FACE << 16),
            );
            len += 1;
        }
    }
    let planes = (0..3).map(|j| {
        let side = t.side(j);
        (side, side.dot(t.v[j]) + t.slop, (TRI_EDGE + j as u32) << 16)
    });
    let len = clip_polygon(&mut poly, len, planes);
    let plane = up.dot(t.v[0]);
    let mut cands = [Candidate::default(); CLIP_CAP];
    let mut count = 0;
    let mut deepest = f32::INFINITY;
    for &(p, id) in &poly[..len] {
        let separation = up.dot(p) - plane;
        if separation < speculative {
            cands[count] = Candidate {
                point: p - up * (0.5 * separation),
                separation,
                id,
            };
            count += 1;
            deepest = deepest.min(separation);
        }
    }
    // Clipping lost the deepest point: add A's deepest vertex if it lies over the triangle
    // (or anywhere, for a deep contact: it carries the face axis's separation).
    let mut extra = None;
    if deepest > sep_tri + if deep { 0.0 } else { CLIP_MISS_TOL } {
        let p = pa.vertex(deep_v);
        let inside = deep || (0..3).all(|j| t.side(j).dot(p - t.v[j]) <= t.slop);
        let separation = up.dot(p) - plane;
        if inside && separation < speculative {
            extra = Some(Candidate {
                point: p - up * (0.5 * separation),
                separation,
                id: (VERTEX_CODE + deep_v as u32) | (TRI_FACE << 16),
            });
        }
    }
    push_reduced(&mut cands, count, extra, up, -up, deep, out);
}

/// Reference: A's face `f` (whose axis separation is `sep_f`). The triangle is clipped
/// against the face's side planes.
fn a_face_contact(
    pa: &Poly,
    f: usize,
    sep_f: f32,
    t: &Tri,
    speculative: f32,
    deep: bool,
    out: &mut Manifold,
) {
    let nr = pa.normal(f);
    let off = pa.offset(f);
    let mut poly = [(Vec3::ZERO, 0u32); CLIP_CAP];
    for (i, slot) in poly.iter_mut().take(3).enumerate() {
        *slot = (t.v[i], (FACE_CODE + f as u32) | ((i as u32) << 16));
    }
    let ref_poly = pa.hull.face_polygon(f);
    let k = ref_poly.len();
    let planes = (0..k).map(|j| {
        let a = pa.vertex(ref_poly[j] as usize);
        let b = pa.vertex(ref_poly[(j + 1) % k] as usize);
        let side = (b - a).cross(nr).normalize_or_zero();
        (
            side,
            side.dot(a) + CLIP_SLOP,
            edge_code(ref_poly[j], ref_poly[(j + 1) % k]),
        )
    });
    let len = clip_polygon(&mut poly, 3, planes);
    let mut cands = [Candidate::default(); CLIP_CAP];
    let mut count = 0;
    for &(p, id) in &poly[..len] {
        let separation = nr.dot(p) - off;
        if separation < speculative {
            cands[count] = Candidate {
                point: p - nr * (0.5 * separation),
                separation,
                id,
            };
            count += 1;
        }
    }
    // A deep contact keeps the triangle's deepest corner, which clipping may have lost.
    let mut extra = None;
    let deepest = cands[..count]
        .iter()
        .fold(f32::INFINITY, |d, c| d.min(c.separation));
    if deep && deepest > sep_f {
        let i = (0..3)
            .min_by(|&i, &j| nr.dot(t.v[i]).total_cmp(&nr.dot(t.v[j])))
            .unwrap_or(0);
        let separation = nr.dot(t.v[i]) - off;
        if separation < speculative {
            extra = Some(Candidate {
                point: t.v[i] - nr * (0.5 * separation),
                separation,
                id: (FACE_CODE + f as u32) | ((i as u32) << 16),
            });
        }
    }
    push_reduced(&mut cands, count, extra, nr, nr, deep, out);
}

/// One point between A's edge `i` and the triangle's edge `j` along `axis` (A to triangle).
fn edge_contact(
    pa: &Poly,
    t: &Tri,
    (i, j, axis, sep): (usize, usize, Vec3, f32),
    out: &mut Manifold,
) {
    let ea = pa.hull.edges()[i];
    let a0 = pa.vertex(ea.vertices[0] as usize);
    let da = pa.vertex(ea.vertices[1] as usize) - a0;
    let (b0, db) = (t.v[j], t.v[(j + 1) % 3] - t.v[j]);
    let (s, u) = closest_segment_params(a0, da, b0, db);
    let point = (a0 + da * s + b0 + db * u) * 0.5;
    out.normal = axis;
    let id = edge_code(ea.vertices[0], ea.vertices[1]) | (TRI_EDGE + j as u32) << 16;
    out.push(point, sep, id);
}
