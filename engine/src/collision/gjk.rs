//! Distance between two convex shapes at given poses: GJK (Gilbert, Johnson and Keerthi
//! 1988) on the shapes' cores, plus their radii; closed form against a half-space.
//!
//! Every convex shape here is a *core* swept by a sphere of some radius: a sphere is a point
//! core with its radius, a capsule a segment core with its radius, a box is a box core with radius 0. For cores `A` and `B` the
//! distance is the distance from the origin to the Minkowski difference `A − B`, found by
//! GJK from the support mappings alone:
//!
//! - support of a point `p`: `p`; of a segment `[p, q]`: whichever end point lies farther
//!   along `d` (`p` on a tie); of a box with half extents `e` at pose `(p, R)`, in world
//!   direction `d`: `p + R (sign(Rᵀd) ∘ e)` (sign(0) = +1);
//! - start with `v` = any point of `A − B` (the difference of the centres);
//! - repeat: `w = s_A(−v) − s_B(v)`; stop when `|v|² − v·w ≤ ε |v|²` (the lower bound
//!   `v·w / |v|` has met the upper bound `|v|`), when `w` is already in the simplex or
//!   when `|v|` stops decreasing; else add `w` to the simplex, replace `v` by the point of
//!   the simplex closest to the origin (Voronoi-region tests on the segment, triangle or
//!   tetrahedron, Ericson, *Real-Time Collision Detection* §5.1) and keep only the vertices
//!   whose barycentric weight is positive;
//! - a tetrahedron containing the origin, or `|v|` below a tiny length, means the cores
//!   overlap.
//!
//! The witness points are the barycentric sums `a = Σ λᵢ aᵢ`, `b = Σ λᵢ bᵢ` of the support
//! points that made each simplex vertex; the normal from A to B is `(b − a) / |b − a|`, the
//! distance `|b − a| − r_A − r_B`, and the surface points are `a + r_A n`, `b − r_B n`.
//! Everything is computed relative to A's position (precision far from the origin) in
//! `f32`, with no fused multiply-adds, so results are bit-reproducible.
//!
//! A half-space `{x : n·x ≤ c}` against a convex shape is closed form: the shape's lowest
//! point along `n` is its support in `−n`, and the distance is `n·s(−n) − c`.
//!
//! Only the separated case is exact. When the cores overlap the result reports
//! `overlap = true` and a distance `≤ −(r_A + r_B)` that is *not* the penetration depth
//! (this module serves time of impact, which only needs to know that the shapes touch).

use crate::hull::ConvexHull;
use crate::math::Transform;
use crate::shape::Shape;
use glam::Vec3;

/// Iteration cap of GJK: boxes need a handful; the cap only guards against cycling on
/// degenerate input.
const MAX_ITERATIONS: usize = 48;

/// Relative convergence tolerance on `|v|²`: stop when `|v|² − v·w ≤ REL_TOLERANCE |v|²`.
const REL_TOLERANCE: f32 = 1.0e-6;

/// Below this squared length (m²) the cores are taken as touching.
const TOUCH_SQ: f32 = 1.0e-12;

/// The result of a distance query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Distance {
    /// Distance between the surfaces, in m (`≤ 0` when `overlap`).
    pub distance: f32,
    /// Unit normal from A to B (meaningful when not `overlap`).
    pub normal: Vec3,
    /// Closest point on A's surface, world space.
    pub point_a: Vec3,
    /// Closest point on B's surface, world space.
    pub point_b: Vec3,
    /// The cores overlap: the shapes interpenetrate by at least the sum of the radii.
    pub overlap: bool,
}

/// A convex core (a point, a segment or a box) at a pose.
#[derive(Clone, Copy, Debug)]
enum Core<'a> {
    Point(Vec3),
    Segment(Vec3, Vec3),
    Box { he: Vec3, xf: Transform },
    Hull { hull: &'a ConvexHull, xf: Transform },
    Triangle([Vec3; 3]),
}

impl<'a> Core<'a> {
    /// The core and radius of a bounded shape at `xf`, translated by `-origin`.
    fn of(shape: &'a Shape, xf: &Transform, origin: Vec3) -> Option<(Core<'a>, f32)> {
        let p = xf.p - origin;
        match *shape {
            Shape::Sphere { radius } => Some((Core::Point(p), radius)),
            Shape::Capsule {
                half_height,
                radius,
            } => {
                let axis = xf.q * Vec3::new(0.0, half_height, 0.0);
                Some((Core::Segment(p - axis, p + axis), radius))
            }
            Shape::Box { half_extents } => Some((
                Core::Box {
                    he: half_extents,
                    xf: Transform::new(p, xf.q),
                },
                0.0,
            )),
            Shape::Hull { ref hull } => Some((
                Core::Hull {
                    hull,
                    xf: Transform::new(p, xf.q),
                },
                0.0,
            )),
            Shape::Plane { .. } | Shape::Mesh { .. } | Shape::HeightField { .. } => None,
        }
    }

    #[inline]
    fn center(&self) -> Vec3 {
        match *self {
            Core::Point(p) => p,
            Core::Segment(p, q) => (p + q) * 0.5,
            Core::Box { xf, .. } | Core::Hull { xf, .. } => xf.p,
            Core::Triangle([a, b, c]) => (a + b + c) / 3.0,
        }
    }

    /// The point of the core farthest along `d`.
    #[inline]
    fn support(&self, d: Vec3) -> Vec3 {
        match *self {
            Core::Point(p) => p,
            Core::Segment(p, q) => {
                if q.dot(d) > p.dot(d) {
                    q
                } else {
                    p
                }
            }
            Core::Box { he, xf } => xf.transform_point(box_vertex(he, xf.inv_transform_vector(d))),
            Core::Hull { hull, xf } => xf.transform_point(hull.support(xf.inv_transform_vector(d))),
            Core::Triangle([a, b, c]) => {
                let (da, db, dc) = (a.dot(d), b.dot(d), c.dot(d));
                if da >= db && da >= dc {
                    a
                } else if db >= dc {
                    b
                } else {
                    c
                }
            }
        }
    }
}

/// The vertex of a box with half extents `he` farthest along local direction `d`.
#[inline]
fn box_vertex(he: Vec3, d: Vec3) -> Vec3 {
    Vec3::new(
        if d.x < 0.0 { -he.x } else { he.x },
        if d.y < 0.0 { -he.y } else { he.y },
        if d.z < 0.0 { -he.z } else { he.z },
    )
}

/// One simplex vertex: `w = a − b` with the support points that made it.
#[derive(Clone, Copy, Debug, Default)]
struct Vertex {
    w: Vec3,
    a: Vec3,
    b: Vec3,
}

/// Up to four vertices and their barycentric weights for the closest point.
#[derive(Clone, Copy, Debug, Default)]
struct Simplex {
    v: [Vertex; 4],
    l: [f32; 4],
    n: usize,
}

impl Simplex {
    /// The point of the simplex closest to the origin (barycentric sum).
    fn closest(&self) -> Vec3 {
        let mut p = Vec3::ZERO;
        for k in 0..self.n {
            p += self.v[k].w * self.l[k];
        }
        p
    }

    fn witnesses(&self) -> (Vec3, Vec3) {
        let (mut a, mut b) = (Vec3::ZERO, Vec3::ZERO);
        for k in 0..self.n {
            a += self.v[k].a * self.l[k];
            b += self.v[k].b * self.l[k];
        }
        (a, b)
    }

    /// Keeps the vertices `ids` with weights `l`.
    fn keep(&mut self, ids: &[usize], l: &[f32]) {
        let old = self.v;
        for (k, (&i, &li)) in ids.iter().zip(l).enumerate() {
            self.v[k] = old[i];
            self.l[k] = li;
        }
        self.n = ids.len();
    }

    /// Reduces the simplex to the smallest face holding the point closest to the origin.
    /// Returns false when a (non-degenerate) tetrahedron contains the origin.
    fn solve(&mut self) -> bool {
        match self.n {
            1 => {
                self.l[0] = 1.0;
                true
            }
            2 => {
                let (ids, l, k) = segment(self.v[0].w, self.v[1].w);
                self.keep(&ids[..k], &l[..k]);
                true
            }
            3 => {
                let (ids, l, k) = triangle(self.v[0].w, self.v[1].w, self.v[2].w);
                self.keep(&ids[..k], &l[..k]);
                true
            }
            _ => self.solve_tetrahedron(),
        }
    }

    fn solve_tetrahedron(&mut self) -> bool {
        let [a, b, c, d] = [self.v[0].w, self.v[1].w, self.v[2].w, self.v[3].w];
        let faces = [[0, 1, 2, 3], [0, 2, 3, 1], [0, 3, 1, 2], [1, 3, 2, 0]];
        let volume = (b - a).dot((c - a).cross(d - a));
        let scale = (b - a).length() * (c - a).length() * (d - a).length();
        let degenerate = volume.abs() <= 1.0e-6 * scale;
        let pts = [a, b, c, d];
        let mut best: Option<(f32, [usize; 3], [f32; 3], usize)> = None;
        for f in faces {
            let (p, q, r, s) = (pts[f[0]], pts[f[1]], pts[f[2]], pts[f[3]]);
            let n = (q - p).cross(r - p);
            // The origin is outside this face when it lies on the other side from `s`.
            let outside = (-p).dot(n) * (s - p).dot(n) < 0.0;
            if !(outside || degenerate) {
                continue;
            }
            let (ids, l, k) = triangle(p, q, r);
            let mut x = Vec3::ZERO;
            for j in 0..k {
                x += pts[f[ids[j]]] * l[j];
            }
            let d2 = x.length_squared();
            if best.is_none_or(|(bd, ..)| d2 < bd) {
                let mut gids = [0; 3];
                for j in 0..k {
                    gids[j] = f[ids[j]];
                }
                best = Some((d2, gids, l, k));
            }
        }
        match best {
            Some((_, ids, l, k)) => {
                self.keep(&ids[..k], &l[..k]);
                true
            }
            None => false,
        }
    }
}

/// The closest point of segment `ab` to the origin: the vertices kept (indices into
/// `[a, b]`), their weights, and how many.
fn segment(a: Vec3, b: Vec3) -> ([usize; 2], [f32; 2], usize) {
    let ab = b - a;
    let den = ab.length_squared();
    let t = if den > 0.0 { -a.dot(ab) / den } else { 0.0 };
    if t <= 0.0 {
        ([0, 1], [1.0, 0.0], 1)
    } else if t >= 1.0 {
        ([1, 0], [1.0, 0.0], 1)
    } else {
        ([0, 1], [1.0 - t, t], 2)
    }
}

/// The closest point of triangle `abc` to the origin (Ericson §5.1.5): the vertices kept
/// (indices into `[a, b, c]`), their weights, and how many.
fn triangle(a: Vec3, b: Vec3, c: Vec3) -> ([usize; 3], [f32; 3], usize) {
    let (ab, ac) = (b - a, c - a);
    let d1 = ab.dot(-a);
    let d2 = ac.dot(-a);
    if d1 <= 0.0 && d2 <= 0.0 {
        return ([0, 0, 0], [1.0, 0.0, 0.0], 1);
    }
    let d3 = ab.dot(-b);
    let d4 = ac.dot(-b);
    if d3 >= 0.0 && d4 <= d3 {
        return ([1, 0, 0], [1.0, 0.0, 0.0], 1);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return ([0, 1, 0], [1.0 - v, v, 0.0], 2);
    }
    let d5 = ab.dot(-c);
    let d6 = ac.dot(-c);
    if d6 >= 0.0 && d5 <= d6 {
        return ([2, 0, 0], [1.0, 0.0, 0.0], 1);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return ([0, 2, 0], [1.0 - w, w, 0.0], 2);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return ([1, 2, 0], [1.0 - w, w, 0.0], 2);
    }
    let sum = va + vb + vc;
    if sum.abs() <= f32::MIN_POSITIVE {
        // Degenerate (collinear) triangle: the closest of its three edges.
        let pts = [a, b, c];
        let mut best = ([0, 0, 0], [1.0, 0.0, 0.0], 1);
        let mut best_d2 = f32::MAX;
        for (i, j) in [(0, 1), (1, 2), (2, 0)] {
            let (ids, l, k) = segment(pts[i], pts[j]);
            let e = [i, j];
            let x = pts[e[ids[0]]] * l[0] + pts[e[ids[1]]] * l[1];
            if x.length_squared() < best_d2 {
                best_d2 = x.length_squared();
                best = ([e[ids[0]], e[ids[1]], 0], [l[0], l[1], 0.0], k);
            }
        }
        return best;
    }
    let denom = 1.0 / sum;
    let v = vb * denom;
    let w = vc * denom;
    ([0, 1, 2], [1.0 - v - w, v, w], 3)
}

/// GJK between two cores: `(a, b, overlap)` with `a`, `b` the closest points.
fn gjk(ca: &Core, cb: &Core) -> (Vec3, Vec3, bool) {
    let a0 = ca.center();
    let b0 = cb.center();
    let mut s = Simplex::default();
    s.v[0] = Vertex {
        w: a0 - b0,
        a: a0,
        b: b0,
    };
    s.l[0] = 1.0;
    s.n = 1;
    let mut v = s.v[0].w;
    let mut vv = v.length_squared();
    for _ in 0..MAX_ITERATIONS {
        if vv <= TOUCH_SQ {
            let (a, b) = s.witnesses();
            return (a, b, true);
        }
        let a = ca.support(-v);
        let b = cb.support(v);
        let w = a - b;
        if vv - v.dot(w) <= REL_TOLERANCE * vv {
            break;
        }
        if s.v[..s.n].iter().any(|x| x.w == w) {
            break;
        }
        let saved = s;
        s.v[s.n] = Vertex { w, a, b };
        s.n += 1;
        if !s.solve() {
            let (a, b) = saved.witnesses();
            return (a, b, true);
        }
        let next = s.closest();
        let next_vv = next.length_squared();
        if next_vv >= vv {
            // No progress (rounding): keep the previous, better simplex.
            s = saved;
            break;
        }
        v = next;
        vv = next_vv;
    }
    let (a, b) = s.witnesses();
    (a, b, vv <= TOUCH_SQ)
}

/// The lowest point of a bounded shape along `n` and its height `n·x`.
fn lowest(shape: &Shape, xf: &Transform, n: Vec3) -> Option<(Vec3, f32)> {
    let p = match *shape {
        Shape::Sphere { radius } => xf.p - n * radius,
        Shape::Capsule {
            half_height,
            radius,
        } => {
            let axis = xf.q * Vec3::new(0.0, half_height, 0.0);
            let end = if axis.dot(n) > 0.0 {
                xf.p - axis
            } else {
                xf.p + axis
            };
            end - n * radius
        }
        Shape::Box { half_extents } => {
            xf.transform_point(box_vertex(half_extents, xf.inv_transform_vector(-n)))
        }
        Shape::Hull { ref hull } => xf.transform_point(hull.support(xf.inv_transform_vector(-n))),
        Shape::Plane { .. } | Shape::Mesh { .. } | Shape::HeightField { .. } => return None,
    };
    Some((p, n.dot(p)))
}

/// Distance between shapes `a` and `b` at poses `xf_a`, `xf_b`; `None` for two planes.
/// Either shape may be a plane (a half-space).
pub(crate) fn shape_distance(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
) -> Option<Distance> {
    if let Shape::Plane { normal, offset } = *b {
        let n = xf_b.q * normal;
        let top = n.dot(xf_b.p) + offset;
        let (p, h) = lowest(a, xf_a, n)?;
        let distance = h - top;
        return Some(Distance {
            distance,
            normal: -n,
            point_a: p,
            point_b: p - n * distance,
            overlap: distance < 0.0,
        });
    }
    if let Shape::Plane { .. } = *a {
        let d = shape_distance(b, xf_b, a, xf_a)?;
        return Some(Distance {
            normal: -d.normal,
            point_a: d.point_b,
            point_b: d.point_a,
            ..d
        });
    }
    let origin = xf_a.p;
    let (ca, ra) = Core::of(a, xf_a, origin)?;
    let (cb, rb) = Core::of(b, xf_b, origin)?;
    let (pa, pb, overlap) = gjk(&ca, &cb);
    let d = pb - pa;
    let len = d.length();
    if overlap || len <= 0.0 {
        return Some(Distance {
            distance: -(ra + rb),
            normal: Vec3::ZERO,
            point_a: pa + origin,
            point_b: pb + origin,
            overlap: true,
        });
    }
    let n = d / len;
    Some(Distance {
        distance: len - ra - rb,
        normal: n,
        point_a: pa + n * ra + origin,
        point_b: pb - n * rb + origin,
        overlap: false,
    })
}

/// Distance between the bounded shape `a` at `xf_a` and the triangle `tri` (corners in
/// world space); `None` if `a` is unbounded or made of triangles. A triangle is a convex
/// core of radius zero, so this is the same GJK as [`shape_distance`].
pub(crate) fn triangle_distance(a: &Shape, xf_a: &Transform, tri: [Vec3; 3]) -> Option<Distance> {
    let origin = xf_a.p;
    let (ca, ra) = Core::of(a, xf_a, origin)?;
    let cb = Core::Triangle(tri.map(|v| v - origin));
    let (pa, pb, overlap) = gjk(&ca, &cb);
    let d = pb - pa;
    let len = d.length();
    if overlap || len <= 0.0 {
        return Some(Distance {
            distance: -ra,
            normal: Vec3::ZERO,
            point_a: pa + origin,
            point_b: pb + origin,
            overlap: true,
        });
    }
    let n = d / len;
    Some(Distance {
        distance: len - ra,
        normal: n,
        point_a: pa + n * ra + origin,
        point_b: pb + origin,
        overlap: false,
    })
}

#[cfg(test)]
mod tests;
