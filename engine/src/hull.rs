//! Convex hulls: construction, mass properties and geometric queries.
//!
//! Algorithm: an incremental hull (Clarkson–Shor style, the core of quickhull without the
//! conflict lists) in `f64`. An initial tetrahedron is built from extreme points (the point
//! of least x, the point farthest from it, the point farthest from their line, the point
//! farthest from their plane); each further point that lies more than a tolerance
//! (`1e-6` of the point cloud's size) outside some triangle removes the triangles it sees
//! and is joined to their horizon. Points within the tolerance of the hull count as inside,
//! so duplicate and coplanar points are dropped. Triangles whose planes agree (normals within
//! `1e-5`, offsets within the tolerance) are then merged into polygon faces; each face's
//! polygon is the 2D convex hull of its vertices in the face plane (which drops vertices
//! collinear with an edge), ordered counter-clockwise about the outward normal. Edges are the
//! polygons' sides, each with its two faces.
//!
//! The shape sits on its body's centre of mass with principal axes along the body axes (the
//! engine stores a diagonal inertia): [`ConvexHull::new`] translates the points so their
//! volume centroid is the origin and rotates them onto the principal axes of inertia (Jacobi
//! eigen-decomposition; skipped when the products of inertia are already negligible, so a
//! box's corners stay as given). [`ConvexHull::frame`] gives that change of frame.
//! Volume, centroid and inertia are exact: a sum over the tetrahedra joining a reference
//! point to a fan triangulation of every face.
//!
//! Hulls hold at most [`MAX_HULL_VERTICES`] vertices; larger hulls are rejected.

use crate::error::Error;
use crate::math::{is_finite3, Transform, MAX_LENGTH};
use glam::{DMat3, DVec3, Quat, Vec3};
use std::collections::HashSet;

/// The most vertices a hull may have (larger hulls are rejected by [`ConvexHull::new`]).
pub const MAX_HULL_VERTICES: usize = 64;

/// One polygon face of a hull.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HullFace {
    /// Outward unit normal (hull frame).
    pub normal: Vec3,
    /// Plane offset: the face plane is `normal · x = offset`; positive (the origin is inside).
    pub offset: f32,
    /// First index into [`ConvexHull::face_vertices`].
    pub start: u16,
    /// Number of vertices of the polygon.
    pub count: u16,
}

/// One edge of a hull: two vertices and the two faces that meet there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HullEdge {
    /// Vertex indices.
    pub vertices: [u16; 2],
    /// Face indices.
    pub faces: [u16; 2],
}

/// An immutable convex polyhedron, shared between shapes through an `Arc`.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexHull {
    vertices: Vec<Vec3>,
    faces: Vec<HullFace>,
    face_vertices: Vec<u16>,
    edges: Vec<HullEdge>,
    volume: f32,
    /// Principal moments of inertia per unit density, about the origin.
    unit_inertia: Vec3,
    frame: Transform,
    bounding_radius: f32,
    min_extent: f32,
}

const FIELD: &str = "ConvexHull::points";

#[derive(Clone, Copy)]
struct Tri {
    v: [usize; 3],
    n: DVec3,
    d: f64,
    alive: bool,
}

fn tri(p: &[DVec3], a: usize, b: usize, c: usize) -> Tri {
    let n = (p[b] - p[a]).cross(p[c] - p[a]).normalize_or_zero();
    Tri {
        v: [a, b, c],
        n,
        d: n.dot(p[a]),
        alive: true,
    }
}

impl ConvexHull {
    /// Builds the convex hull of `points` (m). See the module documentation for the method.
    ///
    /// Errors (field `ConvexHull::points`): fewer than 4 points; a non-finite point; a
    /// coordinate beyond [`MAX_LENGTH`]; all points coincident, collinear
    /// or coplanar (zero volume); more than [`MAX_HULL_VERTICES`] hull vertices.
    pub fn new(points: &[Vec3]) -> Result<ConvexHull, Error> {
        if points.len() < 4 {
            return Err(Error::invalid(FIELD, "needs at least 4 points"));
        }
        if !points.iter().all(|&p| is_finite3(p)) {
            return Err(Error::invalid(FIELD, "every point must be finite"));
        }
        if points.iter().any(|p| p.abs().max_element() > MAX_LENGTH) {
            return Err(Error::invalid(
                FIELD,
                "every coordinate must lie within ±1e6 m (MAX_LENGTH)",
            ));
        }
        let p: Vec<DVec3> = points.iter().map(|v| v.as_dvec3()).collect();
        let (mut lo, mut hi) = (p[0], p[0]);
        for &x in &p {
            lo = lo.min(x);
            hi = hi.max(x);
        }
        let size = (hi - lo).length();
        let eps = 1.0e-6 * size;
        let zero_volume = "all points are coincident, collinear or coplanar (zero volume)";
        if size <= 0.0 {
            return Err(Error::invalid(FIELD, zero_volume));
        }
        // Initial tetrahedron.
        let far = |f: &dyn Fn(DVec3) -> f64| {
            (0..p.len())
                .max_by(|&i, &j| f(p[i]).total_cmp(&f(p[j])))
                .unwrap()
        };
        let i0 = far(&|x| -x.x);
        let i1 = far(&|x| (x - p[i0]).length_squared());
        let dir = (p[i1] - p[i0]).normalize();
        let off_line = |x: DVec3| {
            let r = x - p[i0];
            (r - dir * r.dot(dir)).length()
        };
        let i2 = far(&off_line);
        if off_line(p[i2]) <= eps {
            return Err(Error::invalid(FIELD, zero_volume));
        }
        let n = (p[i1] - p[i0]).cross(p[i2] - p[i0]).normalize();
        let i3 = far(&|x| n.dot(x - p[i0]).abs());
        if n.dot(p[i3] - p[i0]).abs() <= eps {
            return Err(Error::invalid(FIELD, zero_volume));
        }
        let mut tris: Vec<Tri> = Vec::new();
        let simplex = [i0, i1, i2, i3];
        for (k, [a, b, c]) in [[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]]
            .iter()
            .enumerate()
        {
            let (a, b, c) = (simplex[*a], simplex[*b], simplex[*c]);
            let mut t = tri(&p, a, b, c);
            if t.n.dot(p[simplex[k]]) - t.d > 0.0 {
                t = tri(&p, a, c, b);
            }
            tris.push(t);
        }
        // Incremental insertion.
        let mut visible_edges: HashSet<(usize, usize)> = HashSet::new();
        for (i, &x) in p.iter().enumerate() {
            if simplex.contains(&i) {
                continue;
            }
            visible_edges.clear();
            let mut any = false;
            for t in tris.iter_mut().filter(|t| t.alive) {
                if t.n.dot(x) - t.d > eps {
                    t.alive = false;
                    any = true;
                    let [a, b, c] = t.v;
                    visible_edges.extend([(a, b), (b, c), (c, a)]);
                }
            }
            if !any {
                continue;
            }
            let mut horizon: Vec<(usize, usize)> = visible_edges
                .iter()
                .copied()
                .filter(|&(a, b)| !visible_edges.contains(&(b, a)))
                .collect();
            horizon.sort_unstable();
            tris.retain(|t| t.alive);
            for (a, b) in horizon {
                tris.push(tri(&p, a, b, i));
            }
        }
        // Merge coplanar triangles into faces.
        struct Group {
            n: DVec3,
            d: f64,
            normal_sum: DVec3,
            verts: Vec<usize>,
        }
        let mut groups: Vec<Group> = Vec::new();
        for t in &tris {
            let area2 = (p[t.v[1]] - p[t.v[0]])
                .cross(p[t.v[2]] - p[t.v[0]])
                .length();
            match groups
                .iter_mut()
                .find(|g| g.n.dot(t.n) > 1.0 - 1.0e-5 && (g.d - t.d).abs() <= eps)
            {
                Some(g) => {
                    g.normal_sum += t.n * area2;
                    g.verts.extend(t.v);
                }
                None => groups.push(Group {
                    n: t.n,
                    d: t.d,
                    normal_sum: t.n * area2,
                    verts: t.v.to_vec(),
                }),
            }
        }
        // Each face: plane through its outermost vertex, polygon = 2D hull of its vertices.
        let mut polys: Vec<(DVec3, f64, Vec<usize>)> = Vec::new();
        for g in &mut groups {
            g.verts.sort_unstable();
            g.verts.dedup();
            let n = g.normal_sum.normalize_or(g.n);
            let d = g
                .verts
                .iter()
                .map(|&v| n.dot(p[v]))
                .fold(f64::MIN, f64::max);
            let u = n.any_orthonormal_vector();
            let w = n.cross(u);
            let poly = hull_2d(&g.verts, |v| (u.dot(p[v]), w.dot(p[v])), eps);
            if poly.len() >= 3 {
                polys.push((n, d, poly));
            }
        }
        // A closed polyhedron has at least four faces: fewer is a sliver whose faces merged
        // or fell below the tolerance (subnormal spreads).
        if polys.len() < 4 {
            return Err(Error::invalid(FIELD, zero_volume));
        }
        // Compact the vertices.
        let mut remap = vec![usize::MAX; p.len()];
        let mut verts: Vec<DVec3> = Vec::new();
        for (_, _, poly) in &mut polys {
            for v in poly.iter_mut() {
                if remap[*v] == usize::MAX {
                    remap[*v] = verts.len();
                    verts.push(p[*v]);
                }
                *v = remap[*v];
            }
        }
        if verts.len() > MAX_HULL_VERTICES {
            return Err(Error::invalid(
                FIELD,
                "the hull has more than MAX_HULL_VERTICES (64) vertices",
            ));
        }
        // Mass properties about a reference point inside (the vertex mean), per unit density.
        let r = verts.iter().copied().sum::<DVec3>() / verts.len() as f64;
        let (mut vol, mut first, mut second) = (0.0, DVec3::ZERO, DMat3::ZERO);
        for (_, _, poly) in &polys {
            let a = verts[poly[0]] - r;
            for k in 1..poly.len() - 1 {
                let (b, c) = (verts[poly[k]] - r, verts[poly[k + 1]] - r);
                let v6 = a.dot(b.cross(c));
                vol += v6 / 6.0;
                first += (a + b + c) * (v6 / 24.0);
                let s = a + b + c;
                let outer = |x: DVec3| DMat3::from_cols(x * x.x, x * x.y, x * x.z);
                second += (outer(a) + outer(b) + outer(c) + outer(s)) * (v6 / 120.0);
            }
        }
        if vol <= eps * eps * eps {
            return Err(Error::invalid(FIELD, zero_volume));
        }
        let c_rel = first / vol;
        let centroid = r + c_rel;
        // Covariance about the centroid, then inertia = tr(C) I - C.
        let cov =
            second - DMat3::from_cols(c_rel * c_rel.x, c_rel * c_rel.y, c_rel * c_rel.z) * vol;
        let tr = cov.x_axis.x + cov.y_axis.y + cov.z_axis.z;
        let inertia = DMat3::from_diagonal(DVec3::splat(tr)) - cov;
        let (moments, axes) = principal_axes(inertia);
        let to_hull = |x: DVec3| axes.transpose() * (x - centroid);
        let vertices: Vec<Vec3> = verts.iter().map(|&v| to_hull(v).as_vec3()).collect();
        let mut faces = Vec::new();
        let mut face_vertices = Vec::new();
        for (n, d, poly) in &polys {
            let nh = axes.transpose() * *n;
            faces.push(HullFace {
                normal: nh.as_vec3(),
                offset: (d - n.dot(centroid)) as f32,
                start: face_vertices.len() as u16,
                count: poly.len() as u16,
            });
            face_vertices.extend(poly.iter().map(|&v| v as u16));
        }
        let mut edges: Vec<HullEdge> = Vec::new();
        for (f, face) in faces.iter().enumerate() {
            let s = face.start as usize;
            let k = face.count as usize;
            for j in 0..k {
                let (a, b) = (face_vertices[s + j], face_vertices[s + (j + 1) % k]);
                let key = [a.min(b), a.max(b)];
                match edges.iter_mut().find(|e| e.vertices == key) {
                    Some(e) => e.faces[1] = f as u16,
                    None => edges.push(HullEdge {
                        vertices: key,
                        faces: [f as u16, f as u16],
                    }),
                }
            }
        }
        let q = Quat::from_mat3(&axes.as_mat3());
        let bounding_radius = vertices.iter().map(|v| v.length()).fold(0.0, f32::max);
        let min_extent = faces.iter().map(|f| f.offset).fold(f32::MAX, f32::min);
        // Finite points can still be too far apart for f32 (a cloud 1e18 m wide has a
        // volume of 1e54 m³ and an infinite inertia) or too close (a cloud 1e-13 m wide has a
        // volume that rounds to 0).
        let unit_inertia = moments.as_vec3();
        if !(vol as f32).is_normal()
            || !unit_inertia.is_finite()
            || !bounding_radius.is_finite()
            || !centroid.as_vec3().is_finite()
        {
            return Err(Error::invalid(
                FIELD,
                "spans so much or so little that the volume or inertia is not a normal f32",
            ));
        }
        Ok(ConvexHull {
            vertices,
            faces,
            face_vertices,
            edges,
            volume: vol as f32,
            unit_inertia,
            frame: Transform::new(centroid.as_vec3(), q),
            bounding_radius,
            min_extent,
        })
    }

    /// Vertices in the hull frame (centroid at the origin, principal axes), m.
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// Polygon faces.
    pub fn faces(&self) -> &[HullFace] {
        &self.faces
    }

    /// Vertex indices of all faces, counter-clockwise about each face's normal.
    pub fn face_vertices(&self) -> &[u16] {
        &self.face_vertices
    }

    /// The vertex indices of face `f`.
    pub fn face_polygon(&self, f: usize) -> &[u16] {
        let face = &self.faces[f];
        &self.face_vertices[face.start as usize..(face.start + face.count) as usize]
    }

    /// Edges, each with its two faces.
    pub fn edges(&self) -> &[HullEdge] {
        &self.edges
    }

    /// Volume, m³.
    pub fn volume(&self) -> f32 {
        self.volume
    }

    /// The pose of the hull frame in the frame of the input points: an input point `x`
    /// is the hull point `frame.inv_transform_point(x)`. Place a body at
    /// `pose.mul(&frame)` to put the hull where the input points were at `pose`.
    pub fn frame(&self) -> Transform {
        self.frame
    }

    /// Principal moments of inertia for density 1, about the origin, kg·m².
    pub fn unit_inertia(&self) -> Vec3 {
        self.unit_inertia
    }

    /// The largest distance from the origin to a vertex, m.
    pub fn bounding_radius(&self) -> f32 {
        self.bounding_radius
    }

    /// The smallest distance from the origin (the centroid) to a face plane, m.
    pub fn min_extent(&self) -> f32 {
        self.min_extent
    }

    /// The vertex farthest along the local direction `d`.
    #[inline]
    pub fn support(&self, d: Vec3) -> Vec3 {
        let mut best = self.vertices[0];
        let mut best_dot = best.dot(d);
        for &v in &self.vertices[1..] {
            let dot = v.dot(d);
            if dot > best_dot {
                best = v;
                best_dot = dot;
            }
        }
        best
    }

    /// The face whose plane the local point `x` is farthest above (least below): its index
    /// and `normal · x - offset` (negative inside).
    pub fn max_face_distance(&self, x: Vec3) -> (usize, f32) {
        let mut best = (0, f32::NEG_INFINITY);
        for (k, f) in self.faces.iter().enumerate() {
            let d = f.normal.dot(x) - f.offset;
            if d > best.1 {
                best = (k, d);
            }
        }
        best
    }

    /// The closest point of the hull's surface to the local point `x` outside the hull:
    /// the nearest point of the polygons of the faces `x` is above (the closest point lies
    /// on one of them).
    pub fn closest_point_outside(&self, x: Vec3) -> Vec3 {
        let mut best = x;
        let mut best_d2 = f32::INFINITY;
        for (k, f) in self.faces.iter().enumerate() {
            let h = f.normal.dot(x) - f.offset;
            if h <= 0.0 {
                continue;
            }
            let poly = self.face_polygon(k);
            let proj = x - f.normal * h;
            let n = poly.len();
            let inside = (0..n).all(|j| {
                let a = self.vertices[poly[j] as usize];
                let b = self.vertices[poly[(j + 1) % n] as usize];
                (b - a).cross(proj - a).dot(f.normal) >= 0.0
            });
            let candidate = if inside {
                proj
            } else {
                let mut c = proj;
                let mut c_d2 = f32::INFINITY;
                for j in 0..n {
                    let a = self.vertices[poly[j] as usize];
                    let b = self.vertices[poly[(j + 1) % n] as usize];
                    let ab = b - a;
                    let t = ((x - a).dot(ab) / ab.length_squared().max(f32::MIN_POSITIVE))
                        .clamp(0.0, 1.0);
                    let q = a + ab * t;
                    let d2 = (x - q).length_squared();
                    if d2 < c_d2 {
                        c = q;
                        c_d2 = d2;
                    }
                }
                c
            };
            let d2 = (x - candidate).length_squared();
            if d2 < best_d2 {
                best = candidate;
                best_d2 = d2;
            }
        }
        best
    }

    /// Whether the local point `x` is inside or on the hull.
    pub fn contains(&self, x: Vec3) -> bool {
        self.faces.iter().all(|f| f.normal.dot(x) <= f.offset)
    }

    /// The first entry of the local ray `o + t d`, `0 <= t <= max`, into the hull: the
    /// ray is clipped by every face plane. `(0, -d)` when it starts inside.
    pub fn ray(&self, o: Vec3, d: Vec3, max: f32) -> Option<(f32, Vec3)> {
        let (mut t0, mut t1) = (0.0f32, max);
        let mut n0 = None;
        for f in &self.faces {
            let num = f.offset - f.normal.dot(o);
            let den = f.normal.dot(d);
            if den == 0.0 {
                if num < 0.0 {
                    return None;
                }
                continue;
            }
            let t = num / den;
            if den < 0.0 {
                if t > t0 {
                    t0 = t;
                    n0 = Some(f.normal);
                }
            } else if t < t1 {
                t1 = t;
            }
            if t0 > t1 {
                return None;
            }
        }
        Some((t0, n0.unwrap_or(-d)))
    }

    /// Cross-section area seen along the local unit direction `u`: `Σ |n·u| A / 2`.
    pub fn projected_area(&self, u: Vec3) -> f32 {
        let mut sum = 0.0;
        for (f, face) in self.faces.iter().enumerate() {
            let poly = self.face_polygon(f);
            let a = self.vertices[poly[0] as usize];
            let mut area2 = Vec3::ZERO;
            for k in 1..poly.len() - 1 {
                let b = self.vertices[poly[k] as usize];
                let c = self.vertices[poly[k + 1] as usize];
                area2 += (b - a).cross(c - a);
            }
            sum += face.normal.dot(u).abs() * area2.length() * 0.5;
        }
        0.5 * sum
    }

    /// Volume and local centroid of the part below the local plane `n·x = h`: every face
    /// polygon is clipped by the plane and the clipped faces are joined to a point of the
    /// plane (the cut face, lying in that plane, adds nothing), exactly.
    pub fn submerged(&self, n: Vec3, h: f32) -> (f32, Vec3) {
        let apex = n * h;
        let (mut six_vol, mut moment) = (0.0f32, Vec3::ZERO);
        let mut clipped: Vec<Vec3> = Vec::with_capacity(16);
        for f in 0..self.faces.len() {
            let poly = self.face_polygon(f);
            clipped.clear();
            let k = poly.len();
            for j in 0..k {
                let a = self.vertices[poly[j] as usize];
                let b = self.vertices[poly[(j + 1) % k] as usize];
                let (da, db) = (n.dot(a) - h, n.dot(b) - h);
                if da <= 0.0 {
                    clipped.push(a);
                }
                if (da < 0.0) != (db < 0.0) && da != db {
                    clipped.push(a + (b - a) * (da / (da - db)));
                }
            }
            if clipped.len() < 3 {
                continue;
            }
            let a = clipped[0] - apex;
            for j in 1..clipped.len() - 1 {
                let (b, c) = (clipped[j] - apex, clipped[j + 1] - apex);
                let v6 = a.dot(b.cross(c));
                six_vol += v6;
                moment += (a + b + c) * (v6 / 4.0);
            }
        }
        if six_vol <= 0.0 {
            return (0.0, Vec3::ZERO);
        }
        (six_vol / 6.0, apex + moment / six_vol)
    }
}

/// The counter-clockwise 2D convex hull (monotone chain) of `ids` with coordinates `uv`,
/// dropping points within `eps` of a hull edge's line.
fn hull_2d(ids: &[usize], uv: impl Fn(usize) -> (f64, f64), eps: f64) -> Vec<usize> {
    let mut pts: Vec<(f64, f64, usize)> = ids
        .iter()
        .map(|&i| {
            let (x, y) = uv(i);
            (x, y, i)
        })
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    // `cross / |ab|` is the distance of c from line ab; keep c only when it turns left by more
    // than eps.
    let left = |a: &(f64, f64, usize), b: &(f64, f64, usize), c: &(f64, f64, usize)| {
        let cross = (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0);
        let len = ((c.0 - a.0).powi(2) + (c.1 - a.1).powi(2)).sqrt();
        cross > eps * len
    };
    let mut out: Vec<(f64, f64, usize)> = Vec::new();
    for pass in 0..2 {
        let start = out.len();
        let iter: Box<dyn Iterator<Item = &(f64, f64, usize)>> = if pass == 0 {
            Box::new(pts.iter())
        } else {
            Box::new(pts.iter().rev())
        };
        for p in iter {
            while out.len() >= start + 2 && !left(&out[out.len() - 2], &out[out.len() - 1], p) {
                out.pop();
            }
            out.push(*p);
        }
        out.pop();
    }
    out.into_iter().map(|p| p.2).collect()
}

/// Eigenvalues and a proper rotation of eigenvectors (columns) of the symmetric `m`
/// (cyclic Jacobi). Returns the identity when `m` is already diagonal to 1e-9.
fn principal_axes(m: DMat3) -> (DVec3, DMat3) {
    let mut a = m.to_cols_array_2d();
    let scale = a[0][0].abs() + a[1][1].abs() + a[2][2].abs();
    let off = |a: &[[f64; 3]; 3]| a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    if off(&a) <= 1.0e-9 * scale {
        return (DVec3::new(a[0][0], a[1][1], a[2][2]), DMat3::IDENTITY);
    }
    for _ in 0..50 {
        if off(&a) <= 1.0e-15 * scale {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q].abs() < 1.0e-300 {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let t = if theta == 0.0 { 1.0 } else { t };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            // A <- Jᵀ A J, V <- V J with J the rotation in the (p, q) plane.
            for row in a.iter_mut() {
                let (akp, akq) = (row[p], row[q]);
                row[p] = c * akp - s * akq;
                row[q] = s * akp + c * akq;
            }
            let (rp, rq) = (a[p], a[q]);
            a[p] = [0, 1, 2].map(|k| c * rp[k] - s * rq[k]);
            a[q] = [0, 1, 2].map(|k| s * rp[k] + c * rq[k]);
            for row in v.iter_mut() {
                let (vp, vq) = (row[p], row[q]);
                row[p] = c * vp - s * vq;
                row[q] = s * vp + c * vq;
            }
        }
    }
    // `v[row][col]`: column j is eigenvector j.
    let mut axes = DMat3::from_cols(
        DVec3::new(v[0][0], v[1][0], v[2][0]),
        DVec3::new(v[0][1], v[1][1], v[2][1]),
        DVec3::new(v[0][2], v[1][2], v[2][2]),
    );
    if axes.determinant() < 0.0 {
        axes.z_axis = -axes.z_axis;
    }
    (DVec3::new(a[0][0], a[1][1], a[2][2]), axes)
}

crate::codec::fields!(HullFace {
    normal,
    offset,
    start,
    count
});
crate::codec::fields!(HullEdge { vertices, faces });

/// A hull in an image: its arrays as built (not rebuilt from points, so every query comes
/// out the same), checked on reading so that no index points outside them.
impl crate::codec::Field for ConvexHull {
    fn put(&self, w: &mut crate::codec::Writer<'_>) {
        w.put(&self.vertices);
        w.put(&self.faces);
        w.put(&self.face_vertices);
        w.put(&self.edges);
        w.put(&(self.volume, self.unit_inertia, self.frame));
        w.put(&(self.bounding_radius, self.min_extent));
    }
    fn get(r: &mut crate::codec::Reader<'_>) -> Result<Self, Error> {
        let vertices: Vec<Vec3> = r.get()?;
        let faces: Vec<HullFace> = r.get()?;
        let face_vertices: Vec<u16> = r.get()?;
        let edges: Vec<HullEdge> = r.get()?;
        let (volume, unit_inertia, frame): (f32, Vec3, Transform) = r.get()?;
        let (bounding_radius, min_extent): (f32, f32) = r.get()?;
        let (nv, nf) = (vertices.len(), faces.len());
        if !(4..=MAX_HULL_VERTICES).contains(&nv) || nf < 4 {
            return Err(r.error("holds a hull with too few or too many vertices or faces"));
        }
        let finite = vertices.iter().all(|&v| is_finite3(v))
            && faces
                .iter()
                .all(|f| is_finite3(f.normal) && f.offset.is_finite())
            && volume.is_finite()
            && volume > 0.0
            && is_finite3(unit_inertia)
            && is_finite3(frame.p)
            && frame.q.is_finite()
            && bounding_radius.is_finite()
            && min_extent.is_finite();
        if !finite {
            return Err(r.error("holds a hull with a number that is not finite"));
        }
        let in_range = faces
            .iter()
            .all(|f| f.count >= 3 && f.start as usize + f.count as usize <= face_vertices.len())
            && face_vertices.iter().all(|&v| (v as usize) < nv)
            && edges.iter().all(|e| {
                e.vertices.iter().all(|&v| (v as usize) < nv)
                    && e.faces.iter().all(|&f| (f as usize) < nf)
            });
        if !in_range {
            return Err(r.error("holds a hull with an index out of range"));
        }
        Ok(ConvexHull {
            vertices,
            faces,
            face_vertices,
            edges,
            volume,
            unit_inertia,
            frame,
            bounding_radius,
            min_extent,
        })
    }
}

#[cfg(test)]
mod tests;
