//! What the query tests share: a world without gravity, bodies and shapes placed by pose,
//! the 10,000-shape pile with its random rays, and the f64 references (ray tests and
//! separations) the engine's answers are checked against.

use super::Rng;
use glam::{DQuat, DVec3};
use impetus::{
    BodyDef, BodyId, BodyType, Quat, RayHit, Shape, ShapeDef, ShapeId, Transform, Vec3, World,
};

/// One worker, no gravity.
pub fn world() -> World {
    super::world(Vec3::ZERO, 1)
}

pub fn body(w: &mut World, body_type: BodyType, position: Vec3, rotation: Quat) -> BodyId {
    w.create_body(&BodyDef {
        body_type,
        position,
        rotation,
        ..Default::default()
    })
    .unwrap()
}

pub fn add(w: &mut World, body_type: BodyType, xf: Transform, shape: Shape) -> ShapeId {
    let b = body(w, body_type, xf.p, xf.q);
    w.add_shape(b, &ShapeDef::new(shape)).unwrap()
}

pub fn d3(v: Vec3) -> DVec3 {
    v.as_dvec3()
}

pub fn dq(q: Quat) -> DQuat {
    DQuat::from_xyzw(q.x as f64, q.y as f64, q.z as f64, q.w as f64).normalize()
}

/// Reference ray test in f64: (distance, outward normal); 0 and `-d` from inside.
pub fn ray_ref(shape: &Shape, xf: &Transform, o: Vec3, d: Vec3, max: f32) -> Option<(f64, DVec3)> {
    let (o, d, p, q, max) = (d3(o), d3(d).normalize(), d3(xf.p), dq(xf.q), max as f64);
    let (t, n) = match *shape {
        Shape::Sphere { radius } => {
            let r = radius as f64;
            let m = o - p;
            let c = m.dot(m) - r * r;
            if c <= 0.0 {
                return Some((0.0, -d));
            }
            let b = m.dot(d);
            let disc = b * b - c;
            if b >= 0.0 || disc < 0.0 {
                return None;
            }
            let t = -b - disc.sqrt();
            (t, (m + d * t).normalize())
        }
        Shape::Capsule { .. } | Shape::Hull { .. } => {
            unreachable!("the random scenes hold no capsules or hulls")
        }
        Shape::Box { half_extents } => {
            let e = d3(half_extents);
            let lo = q.conjugate() * (o - p);
            let ld = q.conjugate() * d;
            if lo.abs().cmple(e).all() {
                return Some((0.0, -d));
            }
            let (mut t_in, mut t_out, mut n) = (f64::NEG_INFINITY, f64::INFINITY, DVec3::ZERO);
            for i in 0..3 {
                if ld[i] == 0.0 {
                    if lo[i].abs() > e[i] {
                        return None;
                    }
                    continue;
                }
                let a = (-e[i] - lo[i]) / ld[i];
                let b = (e[i] - lo[i]) / ld[i];
                let (near, far, s) = if a < b { (a, b, -1.0) } else { (b, a, 1.0) };
                if near > t_in {
                    t_in = near;
                    n = DVec3::ZERO;
                    n[i] = s;
                }
                t_out = t_out.min(far);
            }
            if t_in > t_out || t_in < 0.0 {
                return None;
            }
            (t_in, q * n)
        }
        Shape::Plane { normal, offset } => {
            let n = q * d3(normal);
            let h = n.dot(o - p) - offset as f64;
            if h <= 0.0 {
                return Some((0.0, -d));
            }
            if n.dot(d) >= 0.0 {
                return None;
            }
            (h / -n.dot(d), n)
        }
        Shape::Mesh { .. } | Shape::HeightField { .. } => {
            unreachable!("the random scenes hold no meshes (see engine/tests/mesh.rs)")
        }
    };
    (t <= max).then_some((t, n))
}

/// Every live shape with its geometry and pose.
pub fn all_shapes(w: &World) -> Vec<(ShapeId, Shape, Transform)> {
    let mut out = Vec::new();
    for b in w.bodies() {
        let xf = w.body_transform(b).unwrap();
        for &s in w.body_shapes(b).unwrap() {
            out.push((s, w.shape(s).unwrap(), xf));
        }
    }
    out.sort_by_key(|s| s.0);
    out
}

/// Brute-force ray hits over every shape, sorted by distance then id.
pub fn brute_rays(
    shapes: &[(ShapeId, Shape, Transform)],
    o: Vec3,
    d: Vec3,
    max: f32,
) -> Vec<(f64, ShapeId)> {
    let mut hits: Vec<(f64, ShapeId)> = shapes
        .iter()
        .filter_map(|(id, s, xf)| ray_ref(s, xf, o, d, max).map(|(t, _)| (t, *id)))
        .collect();
    hits.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    hits
}

/// Checks a hit against the reference: distance, fraction, point, normal.
pub fn check_hit(hit: &RayHit, shape: &Shape, xf: &Transform, o: Vec3, d: Vec3, max: f32) {
    let (t, n) = ray_ref(shape, xf, o, d, max).expect("the reference hits too");
    let tol = 2.0e-5 * (1.0 + d3(o).length() + t);
    assert!((hit.distance as f64 - t).abs() < tol, "{hit:?} vs t = {t}");
    assert!((hit.fraction - hit.distance / max).abs() <= 1.0e-6);
    assert!((d3(hit.normal) - n).length() < 1.0e-4, "{hit:?} vs n = {n}");
    let expect = d3(o) + d3(d).normalize() * t;
    assert!((d3(hit.point) - expect).length() < tol, "{hit:?}");
}

/// The pile: 25 x 20 x 20 = 10,000 boxes on a 2 m grid (half extents 0.2-0.55, randomly
/// turned, so neighbours never touch), one in seven dynamic (gravity is off), one in
/// eleven a sphere instead, and a ground plane under them; stepped once so the broadphase
/// has its grid.
pub fn pile() -> World {
    let mut w = world();
    let mut rng = Rng::new(42);
    let mut n = 0;
    for i in 0..25 {
        for j in 0..20 {
            for k in 0..20 {
                let p = Vec3::new(
                    i as f32 * 2.0 - 24.0,
                    j as f32 * 2.0 + 1.0,
                    k as f32 * 2.0 - 19.0,
                );
                let body_type = if n % 7 == 0 {
                    BodyType::Dynamic
                } else {
                    BodyType::Static
                };
                let shape = if n % 11 == 0 {
                    Shape::Sphere {
                        radius: rng.range(0.2, 0.9),
                    }
                } else {
                    Shape::Box {
                        half_extents: rng.vec(Vec3::splat(0.2), Vec3::splat(0.55)),
                    }
                };
                add(&mut w, body_type, Transform::new(p, rng.rotation()), shape);
                n += 1;
            }
        }
    }
    add(
        &mut w,
        BodyType::Static,
        Transform::IDENTITY,
        Shape::Plane {
            normal: Vec3::Y,
            offset: -0.5,
        },
    );
    w.step(1.0 / 60.0).unwrap();
    w
}

/// A random ray around and through the pile: (origin, direction, max distance).
pub fn pile_ray(rng: &mut Rng) -> (Vec3, Vec3, f32) {
    let o = rng.vec(Vec3::new(-35.0, -2.0, -30.0), Vec3::new(35.0, 50.0, 30.0));
    (o, rng.direction(), rng.range(2.0, 80.0))
}

/// A separation of two solids in f64 whose sign is exact: ≤ 0 when they meet. For sphere
/// pairs, sphere-box and anything against a plane it is the distance (0 inside a box for a
/// sphere's centre); for box pairs the largest separation over the 15 SAT axes. Each is a
/// convex function of a translation applied to `a`.
pub fn sep(a: &Shape, xa: &Transform, b: &Shape, xb: &Transform) -> f64 {
    let (pa, qa, pb, qb) = (d3(xa.p), dq(xa.q), d3(xb.p), dq(xb.q));
    match (a.clone(), b.clone()) {
        (_, Shape::Plane { normal, offset }) => {
            let n = qb * d3(normal);
            let depth = match *a {
                Shape::Sphere { radius } => radius as f64,
                Shape::Capsule {
                    half_height,
                    radius,
                } => radius as f64 + half_height as f64 * (qa * DVec3::Y).dot(n).abs(),
                Shape::Box { half_extents } => {
                    let e = d3(half_extents);
                    (0..3)
                        .map(|i| e[i] * (qa * DVec3::AXES[i]).dot(n).abs())
                        .sum()
                }
                Shape::Plane { .. }
                | Shape::Hull { .. }
                | Shape::Mesh { .. }
                | Shape::HeightField { .. } => unreachable!(),
            };
            n.dot(pa - pb) - depth - offset as f64
        }
        (Shape::Sphere { radius: ra }, Shape::Sphere { radius: rb }) => {
            (pa - pb).length() - ra as f64 - rb as f64
        }
        (Shape::Sphere { radius }, Shape::Box { half_extents })
        | (Shape::Box { half_extents }, Shape::Sphere { radius }) => {
            let (c, p, q) = if matches!(a, Shape::Sphere { .. }) {
                (pa, pb, qb)
            } else {
                (pb, pa, qa)
            };
            let e = d3(half_extents);
            let l = q.conjugate() * (c - p);
            (l - l.clamp(-e, e)).length() - radius as f64
        }
        (Shape::Box { half_extents: ea }, Shape::Box { half_extents: eb }) => {
            let (ea, eb) = (d3(ea), d3(eb));
            let ax = DVec3::AXES.map(|v| qa * v);
            let bx = DVec3::AXES.map(|v| qb * v);
            let t = pb - pa;
            let mut axes: Vec<DVec3> = ax.iter().chain(bx.iter()).copied().collect();
            for u in ax {
                for v in bx {
                    let c = u.cross(v);
                    if c.length() > 1e-6 {
                        axes.push(c.normalize());
                    }
                }
            }
            axes.iter()
                .map(|l| {
                    let ra: f64 = (0..3).map(|i| ea[i] * ax[i].dot(*l).abs()).sum();
                    let rb: f64 = (0..3).map(|i| eb[i] * bx[i].dot(*l).abs()).sum();
                    t.dot(*l).abs() - ra - rb
                })
                .fold(f64::NEG_INFINITY, f64::max)
        }
        (Shape::Plane { .. }, _) => unreachable!("query shapes are never planes"),
        (Shape::Mesh { .. } | Shape::HeightField { .. }, _)
        | (_, Shape::Mesh { .. } | Shape::HeightField { .. }) => {
            unreachable!("the random scenes hold no meshes (see engine/tests/mesh.rs)")
        }
        (Shape::Capsule { .. }, _) | (_, Shape::Capsule { .. }) => {
            unreachable!("the random scenes hold no capsules (see engine/tests/capsule.rs)")
        }
        (Shape::Hull { .. }, _) | (_, Shape::Hull { .. }) => {
            unreachable!("the random scenes hold no hulls")
        }
    }
}
