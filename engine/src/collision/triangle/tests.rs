//! The triangle pair functions against independent references.

use super::super::gjk::triangle_distance;
use super::super::test_util::*;
use super::*;
use crate::hull::ConvexHull;
use glam::{DVec3, Quat};
use std::sync::Arc;

/// Distance from `p` to the triangle in f64: to the plane when the projection is inside,
/// else to the nearest edge segment.
fn tri_dist(p: DVec3, t: &[DVec3; 3]) -> f64 {
    let n = (t[1] - t[0]).cross(t[2] - t[0]).normalize();
    let h = n.dot(p - t[0]);
    let x = p - n * h;
    let inside = (0..3).all(|i| (t[(i + 1) % 3] - t[i]).cross(x - t[i]).dot(n) >= 0.0);
    if inside {
        return h.abs();
    }
    (0..3)
        .map(|i| {
            let (a, b) = (t[i], t[(i + 1) % 3]);
            let s = ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
            (p - (a + (b - a) * s)).length()
        })
        .fold(f64::INFINITY, f64::min)
}

/// The signed distance of the convex shape (at `xf`) to `x`, in f64, for the shapes
/// with a closed form; hulls by their face planes (exact on the surface and inside).
fn sdf(shape: &Shape, xf: &Transform, x: Vec3) -> f64 {
    let l = dq(xf.q).conjugate() * (d3(x) - d3(xf.p));
    match shape {
        Shape::Sphere { radius } => l.length() - *radius as f64,
        Shape::Capsule {
            half_height,
            radius,
        } => {
            let h = *half_height as f64;
            (l - DVec3::new(0.0, l.y.clamp(-h, h), 0.0)).length() - *radius as f64
        }
        Shape::Box { half_extents } => box_sdf(*half_extents, xf, x),
        Shape::Hull { hull } => hull
            .faces()
            .iter()
            .map(|f| d3(f.normal).dot(l) - f.offset as f64)
            .fold(f64::NEG_INFINITY, f64::max),
        _ => unreachable!(),
    }
}

/// A's support along the unit direction `u` (world, f64), by sampling the closed form.
fn support(shape: &Shape, xf: &Transform, u: DVec3) -> f64 {
    let q = dq(xf.q);
    let l = q.conjugate() * u;
    let c = d3(xf.p).dot(u);
    c + match shape {
        Shape::Sphere { radius } => *radius as f64,
        Shape::Capsule {
            half_height,
            radius,
        } => *half_height as f64 * l.y.abs() + *radius as f64,
        Shape::Box { half_extents } => d3(*half_extents).dot(l.abs()),
        Shape::Hull { hull } => hull
            .vertices()
            .iter()
            .map(|&v| d3(v).dot(l))
            .fold(f64::NEG_INFINITY, f64::max),
        _ => unreachable!(),
    }
}

/// The penetration depth of A and the triangle by brute force over sampled directions
/// (an upper bound converging on the true depth), in f64.
fn sampled_depth(shape: &Shape, xf: &Transform, t: &[DVec3; 3], rng: &mut Rng) -> f64 {
    let mut best = f64::INFINITY;
    let n = (t[1] - t[0]).cross(t[2] - t[0]).normalize();
    let mut dirs: Vec<DVec3> = vec![n, -n];
    for _ in 0..6000 {
        dirs.push(d3(rng.direction()));
    }
    for u in dirs {
        // Overlap along u: A's extent past the triangle's lowest point.
        let tmin = t.iter().map(|v| v.dot(u)).fold(f64::INFINITY, f64::min);
        best = best.min(support(shape, xf, u) - tmin);
    }
    best
}

fn shapes(rng: &mut Rng) -> Vec<Shape> {
    let pts: Vec<Vec3> = (0..16)
        .map(|_| rng.direction() * rng.range(0.3, 0.6))
        .collect();
    vec![
        Shape::Sphere {
            radius: rng.range(0.2, 0.6),
        },
        Shape::Capsule {
            half_height: rng.range(0.1, 0.6),
            radius: rng.range(0.1, 0.4),
        },
        Shape::Box {
            half_extents: Vec3::new(
                rng.range(0.1, 0.6),
                rng.range(0.1, 0.6),
                rng.range(0.1, 0.6),
            ),
        },
        Shape::Hull {
            hull: Arc::new(ConvexHull::new(&pts).unwrap()),
        },
    ]
}

fn random_triangle(rng: &mut Rng, active: u8) -> Triangle {
    let c = Vec3::new(rng.range(-0.5, 0.5), 0.0, rng.range(-0.5, 0.5));
    let v = [0, 1, 2].map(|_| c + rng.direction() * rng.range(0.6, 2.0));
    Triangle {
        vertices: v,
        active_edges: active,
    }
}

/// Every pair function on random poses against the references: GJK distance when
/// separated, sampled penetration depth when overlapping; the normal agrees with GJK's;
/// every point lies halfway between the surfaces.
#[test]
fn pairs_match_references_on_random_poses() {
    let mut rng = Rng::new(11);
    let (mut separated, mut overlapping) = ([0; 4], [0; 4]);
    for _ in 0..1500 {
        let tri = random_triangle(&mut rng, 0b111);
        let xf_b = Transform::new(
            Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), 0.0),
            rng.rotation(),
        );
        let tw = tri.vertices.map(|v| xf_b.transform_point(v));
        let tw64 = tw.map(d3);
        for (k, shape) in shapes(&mut rng).iter().enumerate() {
            // Near the triangle: a point of it plus a small offset.
            let on = tw[0] * 0.3 + tw[1] * 0.3 + tw[2] * 0.4;
            let xf_a = Transform::new(on + rng.direction() * rng.range(0.0, 0.9), rng.rotation());
            let m = super::super::collide_triangle(shape, &xf_a, &tri, &xf_b, TOL);
            check_manifold(&m, SPEC);
            let d = triangle_distance(shape, &xf_a, tw).unwrap();
            let min_sep = m
                .points()
                .iter()
                .map(|p| p.separation)
                .fold(f32::INFINITY, f32::min);
            // A capsule whose core crosses the triangle's plane is pushed out along the
            // face normal from both core ends: those points sit below each end, not on
            // the surface.
            let crossing = match shape {
                Shape::Capsule { half_height, .. } => {
                    let n = (tw64[1] - tw64[0]).cross(tw64[2] - tw64[0]);
                    let axis = dq(xf_a.q) * DVec3::Y * *half_height as f64;
                    let c = d3(xf_a.p) - tw64[0];
                    n.dot(c + axis) * n.dot(c - axis) < 0.0
                }
                _ => false,
            };
            if !d.overlap && d.distance > 1.0e-3 {
                if d.distance < SPEC - 1.0e-3 {
                    separated[k] += 1;
                    assert!(m.count > 0, "shape {k}: missed at {}", d.distance);
                    // SAT separations are lower bounds of the distance; closest points
                    // give it exactly.
                    assert!(min_sep <= d.distance + 1.0e-3, "shape {k} {min_sep} {d:?}");
                    assert!(min_sep > -1.0e-3, "shape {k} {min_sep} {d:?}");
                    assert!(m.normal.dot(d.normal) > 0.0, "shape {k} {m:?} {d:?}");
                    if k < 2 {
                        assert!((min_sep - d.distance).abs() < 1.0e-3, "{min_sep} {d:?}");
                        assert!(m.normal.dot(d.normal) > 0.999, "{m:?} {d:?}");
                    }
                } else if d.distance > SPEC + 1.0e-3 {
                    assert_eq!(m.count, 0, "shape {k}: contact at {}", d.distance);
                }
            } else if d.overlap || d.distance < -1.0e-3 {
                overlapping[k] += 1;
                assert!(m.count > 0, "shape {k}: overlap missed");
                // The least penetration, or (a triangle of a mesh pushes along its
                // face) the penetration along the face normal, either side.
                let depth = sampled_depth(shape, &xf_a, &tw64, &mut rng)
                    .min(sat_depth(shape, &xf_a, &tw64));
                let n = (tw64[1] - tw64[0]).cross(tw64[2] - tw64[0]).normalize();
                // Along the face normal towards A's centre: how far pushing A straight
                // out of the triangle's plane takes.
                let (plus, minus) = face_depths(shape, &xf_a, &tw64);
                let up = if n.dot(d3(xf_a.p) - tw64[0]) >= 0.0 {
                    minus
                } else {
                    plus
                };
                let pen = -min_sep as f64;
                let tol = 0.01 + 0.02 * depth;
                // A capsule whose core pierces the triangle is pushed out along the face
                // normal from the part of the core over the triangle.
                let pierced = crossing && d3(m.normal).dot(n).abs() > 0.9999 && min_sep < 0.0;
                // At least the least penetration, at most the face normal's.
                assert!(
                    pierced || (pen >= depth - tol && pen <= up.max(depth) + tol),
                    "shape {k}: sep {min_sep} depth {depth} face {up} {m:?}"
                );
            }
            for p in m.points() {
                let pa = p.point - m.normal * (0.5 * p.separation);
                let pb = p.point + m.normal * (0.5 * p.separation);
                let (da, db) = (sdf(shape, &xf_a, pa), tri_dist(d3(pb), &tw64));
                // Rounding grows with the depth (clipping far from the surfaces).
                let tol = 3.0e-3 + 0.01 * p.separation.abs() as f64;
                // A deep face contact keeps the deepest vertex of the incident shape (see
                // `deep.rs`), which may lie beside the reference face: its steps land on
                // the supporting planes of A and of the triangle along the normal.
                let nm = d3(m.normal);
                let low = tw64
                    .iter()
                    .map(|v| nm.dot(*v))
                    .fold(f64::INFINITY, f64::min);
                let on_planes = (nm.dot(d3(pa)) - support(shape, &xf_a, nm)).abs() < tol
                    && (nm.dot(d3(pb)) - low).abs() < tol;
                let deep = p.separation < -super::super::deep::DEEP && on_planes;
                assert!(
                    crossing || da.abs() < tol || deep,
                    "shape {k}: A {da} {p:?} {m:?}"
                );
                assert!(db < tol || deep, "shape {k}: triangle {db} {p:?} {m:?}");
            }
        }
    }
    for k in 0..4 {
        assert!(
            separated[k] > 20 && overlapping[k] > 100,
            "{separated:?} {overlapping:?}"
        );
    }
}

/// The overlaps along the triangle's normal and its opposite, in f64.
fn face_depths(shape: &Shape, xf: &Transform, t: &[DVec3; 3]) -> (f64, f64) {
    let n = (t[1] - t[0]).cross(t[2] - t[0]).normalize();
    let along = |u: DVec3| {
        let tmin = t.iter().map(|v| v.dot(u)).fold(f64::INFINITY, f64::min);
        support(shape, xf, u) - tmin
    };
    (along(n), along(-n))
}

/// The least overlap over the separating axes of a polytope (or a capsule's core)
/// and a triangle, in f64 from the world poses: the triangle normal, A's face normals
/// and the cross products of their edges. An upper bound of the penetration depth (exact
/// for polytopes), independent of the code under test.
fn sat_depth(shape: &Shape, xf: &Transform, t: &[DVec3; 3]) -> f64 {
    let q = dq(xf.q);
    let n = (t[1] - t[0]).cross(t[2] - t[0]).normalize();
    let (normals, edges): (Vec<DVec3>, Vec<DVec3>) = match shape {
        Shape::Sphere { .. } => (vec![], vec![]),
        Shape::Capsule { .. } => (vec![], vec![q * DVec3::Y]),
        Shape::Box { .. } => (
            vec![q * DVec3::X, q * DVec3::Y, q * DVec3::Z],
            vec![q * DVec3::X, q * DVec3::Y, q * DVec3::Z],
        ),
        Shape::Hull { hull } => (
            hull.faces().iter().map(|f| q * d3(f.normal)).collect(),
            hull.edges()
                .iter()
                .map(|e| {
                    let [a, b] = e.vertices.map(|v| d3(hull.vertices()[v as usize]));
                    q * (b - a)
                })
                .collect(),
        ),
        _ => unreachable!(),
    };
    let mut axes = vec![n];
    axes.extend(normals);
    // Directions perpendicular to each triangle edge (where the least overlap of a
    // rounded shape against an edge lies), densely.
    for i in 0..3 {
        let e = (t[(i + 1) % 3] - t[i]).normalize();
        let a = e.cross(n);
        for k in 0..720 {
            let th = k as f64 * std::f64::consts::TAU / 720.0;
            axes.push(n * th.cos() + a * th.sin());
        }
    }
    for e in &edges {
        for i in 0..3 {
            let c = e.cross(t[(i + 1) % 3] - t[i]);
            if c.length() > 1.0e-6 {
                axes.push(c.normalize());
            }
        }
    }
    let mut best = f64::INFINITY;
    for a in axes {
        for u in [a, -a] {
            let tmin = t.iter().map(|v| v.dot(u)).fold(f64::INFINITY, f64::min);
            best = best.min(support(shape, xf, u) - tmin);
        }
    }
    best
}

/// Internal edges: a shape touching the flat seam of two triangles (edges inactive)
/// gets the face normal from both, at any pose; with the edges active the seam's edge
/// normal shows up.
#[test]
fn inactive_edges_give_the_face_normal() {
    let mut rng = Rng::new(5);
    // Two triangles of the square [-1, 1]², y = 0, sharing the diagonal (edge 0 of
    // the first, edge 0 of the second, inactive).
    let a = Triangle {
        vertices: [
            Vec3::new(-1.0, 0.0, -1.0),
            Vec3::new(1.0, 0.0, 1.0),
            Vec3::new(1.0, 0.0, -1.0),
        ],
        active_edges: 0b110,
    };
    let b = Triangle {
        vertices: [
            Vec3::new(1.0, 0.0, 1.0),
            Vec3::new(-1.0, 0.0, -1.0),
            Vec3::new(-1.0, 0.0, 1.0),
        ],
        active_edges: 0b110,
    };
    let mut edge_normals_when_active = 0;
    for _ in 0..400 {
        for shape in shapes(&mut rng) {
            // Lowest point near the seam, slightly penetrating.
            let s = rng.range(-0.3, 0.3);
            let q = rng.rotation();
            let xf0 = Transform::new(Vec3::ZERO, q);
            let low = shape.aabb(&xf0).min.y;
            let p = Vec3::new(s, -low - rng.range(0.0, 0.01), s) + rng.direction() * 0.05;
            let xf_a = Transform::new(Vec3::new(p.x, p.y, p.z), q);
            let bb = shape.aabb(&xf_a);
            if bb.min.x < -0.99 || bb.min.z < -0.99 || bb.max.x > 0.99 || bb.max.z > 0.99 {
                continue; // reaches the square's outer (active) edges
            }
            for tri in [&a, &b] {
                let m =
                    super::super::collide_triangle(&shape, &xf_a, tri, &Transform::IDENTITY, TOL);
                if m.count > 0 {
                    assert!(
                        m.normal.y < -0.9999,
                        "{:?} {m:?} {xf_a:?}",
                        tri.active_edges
                    );
                }
                let mut open = *tri;
                open.active_edges = 0b111;
                let m =
                    super::super::collide_triangle(&shape, &xf_a, &open, &Transform::IDENTITY, TOL);
                edge_normals_when_active += (m.count > 0 && m.normal.y > -0.99) as usize;
            }
        }
    }
    assert!(edge_normals_when_active > 10, "{edge_normals_when_active}");
}

/// Feature ids stay the same under sub-millimetre jitter of a box resting on a triangle.
#[test]
fn resting_box_ids_are_stable() {
    let tri = Triangle {
        vertices: [
            Vec3::new(-3.0, 0.0, -3.0),
            Vec3::new(0.0, 0.0, 3.0),
            Vec3::new(3.0, 0.0, -3.0),
        ],
        active_edges: 0b111,
    };
    let shape = Shape::Box {
        half_extents: Vec3::new(0.5, 0.3, 0.4),
    };
    let base = Transform::new(Vec3::new(0.1, 0.299, -0.5), Quat::from_rotation_y(0.3));
    let m0 = super::super::collide_triangle(&shape, &base, &tri, &Transform::IDENTITY, TOL);
    assert_eq!(m0.count, 4, "{m0:?}");
    let mut rng = Rng::new(3);
    for _ in 0..100 {
        let xf = rng.jitter(&base, 2.0e-4, 1.0e-4);
        let m = super::super::collide_triangle(&shape, &xf, &tri, &Transform::IDENTITY, TOL);
        assert_eq!(ids(&m), ids(&m0));
    }
}

/// Degenerate and borderline inputs give finite manifolds: shapes centred exactly on the
/// triangle's plane, on its edges and corners, slivers, a zero-length capsule, far from the
/// origin; with all edges active (a lone triangle) there is always a contact. (With
/// inactive edges a shape lying over a neighbour may rightly get none from this one.)
#[test]
fn degenerate_inputs_are_finite() {
    let mut rng = Rng::new(23);
    let slivers = [
        [Vec3::ZERO, Vec3::X, Vec3::new(0.5, 0.0, 1.0e-4)],
        [
            Vec3::ZERO,
            Vec3::new(1.0e3, 0.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0e-2),
        ],
        [Vec3::ZERO, Vec3::X, Vec3::Z],
    ];
    let mut all = shapes(&mut rng);
    all.push(Shape::Capsule {
        half_height: 0.0,
        radius: 0.3,
    });
    for (v, active) in slivers
        .iter()
        .flat_map(|v| [(v, 0b111u8), (v, 0b010), (v, 0)])
    {
        let tri = Triangle {
            vertices: *v,
            active_edges: active,
        };
        for shape in &all {
            let points = [
                v[0],
                v[1],
                v[2],
                (v[0] + v[1]) * 0.5,
                (v[0] + v[1] + v[2]) / 3.0,
            ];
            for &p in &points {
                for far in [Vec3::ZERO, Vec3::new(3.0e3, -2.0e3, 1.0e3)] {
                    for q in [Quat::IDENTITY, rng.rotation()] {
                        let xf_a = Transform::new(p + far, q);
                        let xf_b = Transform::new(far, Quat::IDENTITY);
                        let m = super::super::collide_triangle(shape, &xf_a, &tri, &xf_b, TOL);
                        check_manifold(&m, SPEC);
                        if active == 0b111 {
                            assert!(m.count > 0, "{shape:?} at {p} {q} {far} on {v:?}");
                        }
                    }
                }
            }
        }
    }
}
