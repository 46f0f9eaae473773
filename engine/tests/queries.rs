//! World queries against independent answers: analytic ray tests in f64, brute force over
//! every shape of a 10,000-box pile, bisection for shape casts.

use glam::{DQuat, DVec3};
use impetus::{
    Aabb, BodyDef, BodyId, BodyType, Error, Quat, QueryFilter, RayHit, Shape, ShapeDef, ShapeId,
    Transform, Vec3, World, WorldDef,
};

/// xorshift64*: deterministic test randomness.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn unit(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
    fn vec(&mut self, lo: Vec3, hi: Vec3) -> Vec3 {
        Vec3::new(
            self.range(lo.x, hi.x),
            self.range(lo.y, hi.y),
            self.range(lo.z, hi.z),
        )
    }
    fn direction(&mut self) -> Vec3 {
        loop {
            let v = self.vec(Vec3::splat(-1.0), Vec3::splat(1.0));
            let l2 = v.length_squared();
            if l2 > 1.0e-3 && l2 <= 1.0 {
                return v / l2.sqrt();
            }
        }
    }
    fn rotation(&mut self) -> Quat {
        loop {
            let q = Quat::from_xyzw(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            let l2 = q.length_squared();
            if l2 > 1.0e-2 && l2 <= 1.0 {
                return q.normalize();
            }
        }
    }
}

fn world() -> World {
    World::new(WorldDef {
        worker_count: 1,
        gravity: Vec3::ZERO,
        ..Default::default()
    })
    .unwrap()
}

fn body(w: &mut World, body_type: BodyType, position: Vec3, rotation: Quat) -> BodyId {
    w.create_body(&BodyDef {
        body_type,
        position,
        rotation,
        ..Default::default()
    })
    .unwrap()
}

fn add(w: &mut World, body_type: BodyType, xf: Transform, shape: Shape) -> ShapeId {
    let b = body(w, body_type, xf.p, xf.q);
    w.add_shape(b, &ShapeDef::new(shape)).unwrap()
}

fn d3(v: Vec3) -> DVec3 {
    v.as_dvec3()
}

fn dq(q: Quat) -> DQuat {
    DQuat::from_xyzw(q.x as f64, q.y as f64, q.z as f64, q.w as f64).normalize()
}

/// Reference ray test in f64: (distance, outward normal); 0 and `-d` from inside.
fn ray_ref(shape: &Shape, xf: &Transform, o: Vec3, d: Vec3, max: f32) -> Option<(f64, DVec3)> {
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
fn all_shapes(w: &World) -> Vec<(ShapeId, Shape, Transform)> {
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
fn brute_rays(
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
fn check_hit(hit: &RayHit, shape: &Shape, xf: &Transform, o: Vec3, d: Vec3, max: f32) {
    let (t, n) = ray_ref(shape, xf, o, d, max).expect("the reference hits too");
    let tol = 2.0e-5 * (1.0 + d3(o).length() + t);
    assert!((hit.distance as f64 - t).abs() < tol, "{hit:?} vs t = {t}");
    assert!((hit.fraction - hit.distance / max).abs() <= 1.0e-6);
    assert!((d3(hit.normal) - n).length() < 1.0e-4, "{hit:?} vs n = {n}");
    let expect = d3(o) + d3(d).normalize() * t;
    assert!((d3(hit.point) - expect).length() < tol, "{hit:?}");
}

#[test]
fn ray_hits_each_shape_kind_as_the_analytic_answer() {
    let mut rng = Rng::new(7);
    let shapes = [
        (
            Shape::Sphere { radius: 0.8 },
            Transform::new(Vec3::new(3.0, -1.0, 2.0), Quat::IDENTITY),
        ),
        (
            Shape::Box {
                half_extents: Vec3::new(1.5, 0.4, 0.9),
            },
            Transform::new(Vec3::new(-2.0, 1.0, 0.5), rng.rotation()),
        ),
        (
            Shape::Plane {
                normal: Vec3::new(0.3, 1.0, -0.2).normalize(),
                offset: -0.5,
            },
            Transform::new(Vec3::new(0.0, -3.0, 0.0), rng.rotation()),
        ),
    ];
    for (shape, xf) in shapes {
        let mut w = world();
        let id = add(&mut w, BodyType::Static, xf, shape.clone());
        w.step(1.0 / 60.0).unwrap();
        let (mut hits, mut inside) = (0, 0);
        for _ in 0..2000 {
            let o = xf.p + rng.vec(Vec3::splat(-6.0), Vec3::splat(6.0));
            // Aim near the shape half of the time.
            let d = if rng.unit() < 0.5 {
                (xf.p + rng.vec(Vec3::splat(-1.5), Vec3::splat(1.5)) - o).normalize()
            } else {
                rng.direction()
            };
            let max = rng.range(1.0, 15.0);
            let got = w.cast_ray(o, d, max, &QueryFilter::default()).unwrap();
            let want = ray_ref(&shape, &xf, o, d, max);
            match (got, want) {
                (Some(hit), Some(_)) => {
                    assert_eq!(hit.shape, id);
                    check_hit(&hit, &shape, &xf, o, d, max);
                    hits += 1;
                    inside += (hit.distance == 0.0) as u32;
                }
                (None, None) => {}
                (got, Some((t, _))) if (t - max as f64).abs() < 1e-4 => {
                    let _ = got; // Grazing the end of the ray: either answer is fine.
                }
                (got, want) => panic!("{shape:?}: o {o} d {d} max {max}: {got:?} vs {want:?}"),
            }
        }
        assert!(
            hits > 150 && inside > 0,
            "{shape:?}: {hits} hits, {inside} inside"
        );
    }
}

#[test]
fn ray_starting_inside_hits_at_zero_with_the_normal_against_the_ray() {
    let mut w = world();
    let sphere = add(
        &mut w,
        BodyType::Dynamic,
        Transform::new(Vec3::new(0.0, 5.0, 0.0), Quat::IDENTITY),
        Shape::Sphere { radius: 1.0 },
    );
    let cube = add(
        &mut w,
        BodyType::Static,
        Transform::new(Vec3::new(5.0, 5.0, 0.0), Quat::from_rotation_y(0.4)),
        Shape::Box {
            half_extents: Vec3::ONE,
        },
    );
    let plane = add(
        &mut w,
        BodyType::Static,
        Transform::IDENTITY,
        Shape::Plane {
            normal: Vec3::Y,
            offset: 0.0,
        },
    );
    let f = QueryFilter::default();
    let d = Vec3::new(0.0, 0.0, 2.0);
    for (o, id) in [
        (Vec3::new(0.2, 5.1, 0.0), sphere),
        (Vec3::new(5.3, 4.8, 0.1), cube),
        (Vec3::new(0.0, -2.0, 0.0), plane),
        // On the surface counts as inside (closed solids).
        (Vec3::new(0.0, 0.0, 7.0), plane),
    ] {
        let hit = w.cast_ray(o, d, 10.0, &f).unwrap().unwrap();
        assert_eq!(hit.shape, id);
        assert_eq!((hit.fraction, hit.distance, hit.point), (0.0, 0.0, o));
        assert_eq!(hit.normal, -Vec3::Z);
    }
    // Leaving the sphere upward, the ray still reports it first, then nothing else.
    let all = w
        .cast_ray_all(Vec3::new(0.0, 5.0, 0.0), Vec3::Y, 10.0, &f)
        .unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!((all[0].shape, all[0].fraction), (sphere, 0.0));
}

/// The pile: 25 x 20 x 20 = 10,000 boxes on a 2 m grid (half extents 0.2-0.55, randomly
/// turned, so neighbours never touch), one in seven dynamic (gravity is off), one in
/// eleven a sphere instead, and a ground plane under them; stepped once so the broadphase
/// has its grid.
fn pile() -> World {
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
fn pile_ray(rng: &mut Rng) -> (Vec3, Vec3, f32) {
    let o = rng.vec(Vec3::new(-35.0, -2.0, -30.0), Vec3::new(35.0, 50.0, 30.0));
    (o, rng.direction(), rng.range(2.0, 80.0))
}

#[test]
fn ray_through_a_10k_pile_matches_brute_force() {
    let w = pile();
    let shapes = all_shapes(&w);
    assert_eq!(shapes.len(), 10_001);
    let mut rng = Rng::new(3);
    let f = QueryFilter::default();
    let (mut hits, mut ties) = (0, 0);
    for r in 0..500 {
        let (o, d, max) = pile_ray(&mut rng);
        let got = w.cast_ray(o, d, max, &f).unwrap();
        let want = brute_rays(&shapes, o, d, max);
        match (got, want.first()) {
            (None, None) => {}
            (Some(hit), Some(&(t, id))) => {
                if hit.shape != id {
                    // Only a tie to rounding may pick another shape.
                    assert!(
                        (hit.distance as f64 - t).abs() < 1e-4,
                        "ray {r}: {hit:?} vs {id:?} at {t}"
                    );
                    ties += 1;
                }
                let (_, s, xf) = shapes.iter().find(|x| x.0 == hit.shape).unwrap();
                check_hit(&hit, s, xf, o, d, max);
                assert_eq!(hit.body, w.shape_body(hit.shape).unwrap());
                hits += 1;
            }
            (got, want) => panic!("ray {r} o {o} d {d} max {max}: {got:?} vs {want:?}"),
        }
    }
    assert!(hits > 250, "{hits} of 500 rays hit");
    assert!(ties <= 2);
}

#[test]
fn ray_all_hits_in_the_pile_match_brute_force() {
    let w = pile();
    let shapes = all_shapes(&w);
    let mut rng = Rng::new(11);
    let f = QueryFilter::default();
    let mut total = 0;
    for r in 0..100 {
        let (o, d, max) = pile_ray(&mut rng);
        let got = w.cast_ray_all(o, d, max, &f).unwrap();
        let want = brute_rays(&shapes, o, d, max);
        let mut got_ids: Vec<ShapeId> = got.iter().map(|h| h.shape).collect();
        let mut want_ids: Vec<ShapeId> = want.iter().map(|h| h.1).collect();
        assert!(
            got.windows(2)
                .all(|p| (p[0].fraction, p[0].shape) <= (p[1].fraction, p[1].shape)),
            "ray {r}: sorted by fraction, then id"
        );
        got_ids.sort();
        want_ids.sort();
        assert_eq!(got_ids, want_ids, "ray {r}");
        for h in &got {
            let (_, s, xf) = shapes.iter().find(|x| x.0 == h.shape).unwrap();
            check_hit(h, s, xf, o, d, max);
        }
        // The closest of all hits is the closest hit.
        let first = w.cast_ray(o, d, max, &f).unwrap();
        assert_eq!(first, got.first().copied(), "ray {r}");
        total += got.len();
    }
    assert!(total > 100, "{total} hits");
}

#[test]
fn queries_before_the_first_step_and_after_moves_see_current_poses() {
    let mut w = world();
    let b = body(
        &mut w,
        BodyType::Dynamic,
        Vec3::new(10.0, 0.0, 0.0),
        Quat::IDENTITY,
    );
    let s = w.add_shape(b, &ShapeDef::sphere(1.0)).unwrap();
    let f = QueryFilter::default();
    let hit = w.cast_ray(Vec3::ZERO, Vec3::X, 20.0, &f).unwrap().unwrap();
    assert_eq!((hit.shape, hit.distance), (s, 9.0));
    w.step(1.0 / 60.0).unwrap();
    w.set_body_transform(b, Vec3::new(0.0, 30.0, 0.0), Quat::IDENTITY)
        .unwrap();
    assert!(w.cast_ray(Vec3::ZERO, Vec3::X, 20.0, &f).unwrap().is_none());
    let hit = w.cast_ray(Vec3::ZERO, Vec3::Y, 50.0, &f).unwrap().unwrap();
    assert_eq!((hit.shape, hit.distance), (s, 29.0));
}

#[test]
fn world_is_sync_and_queries_run_from_several_threads() {
    fn sync<T: Sync>() {}
    sync::<World>();
    let w = pile();
    let one = |seed| {
        // A filter per thread: its predicate need not be `Sync`.
        let f = QueryFilter::default();
        let mut rng = Rng::new(seed);
        (0..50)
            .map(|_| {
                let (o, d, max) = pile_ray(&mut rng);
                w.cast_ray(o, d, max, &f).unwrap()
            })
            .collect::<Vec<_>>()
    };
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| one(5));
        let b = s.spawn(|| one(5));
        (a.join().unwrap(), b.join().unwrap())
    });
    assert_eq!(a, b);
    assert_eq!(a, one(5));
}

fn field_of(e: Error) -> &'static str {
    match e {
        Error::InvalidInput { field, .. } => field,
        other => panic!("expected InvalidInput, got {other:?}"),
    }
}

#[test]
fn invalid_ray_queries_name_the_field() {
    let mut w = world();
    let b = body(&mut w, BodyType::Static, Vec3::ZERO, Quat::IDENTITY);
    w.add_shape(b, &ShapeDef::sphere(1.0)).unwrap();
    let f = QueryFilter::default();
    let nan = Vec3::new(f32::NAN, 0.0, 0.0);
    let inf = Vec3::new(0.0, f32::INFINITY, 0.0);
    let cases = [
        (nan, Vec3::X, 1.0, "origin"),
        (inf, Vec3::X, 1.0, "origin"),
        (Vec3::ZERO, nan, 1.0, "direction"),
        (Vec3::ZERO, inf, 1.0, "direction"),
        (Vec3::ZERO, Vec3::ZERO, 1.0, "direction"),
        (Vec3::ZERO, Vec3::X, -1.0, "max_distance"),
        (Vec3::ZERO, Vec3::X, 0.0, "max_distance"),
        (Vec3::ZERO, Vec3::X, f32::NAN, "max_distance"),
        (Vec3::ZERO, Vec3::X, f32::INFINITY, "max_distance"),
    ];
    for (o, d, max, field) in cases {
        assert_eq!(field_of(w.cast_ray(o, d, max, &f).unwrap_err()), field);
        assert_eq!(field_of(w.cast_ray_all(o, d, max, &f).unwrap_err()), field);
    }
    // A tiny but non-zero direction is fine.
    assert!(w
        .cast_ray(
            Vec3::new(0.0, 5.0, 0.0),
            Vec3::new(0.0, -1e-30, 0.0),
            10.0,
            &f
        )
        .unwrap()
        .is_some());
    // A stale body to exclude.
    let gone = body(&mut w, BodyType::Static, Vec3::ZERO, Quat::IDENTITY);
    w.remove_body(gone).unwrap();
    let stale = QueryFilter::default().excluding_body(gone);
    assert_eq!(
        w.cast_ray(Vec3::ZERO, Vec3::X, 1.0, &stale).unwrap_err(),
        Error::StaleHandle { kind: "BodyId" }
    );
}

#[test]
fn filters_exclude_what_they_should() {
    let w = pile();
    let shapes = all_shapes(&w);
    let mut rng = Rng::new(99);
    let odd = |s: ShapeId| s.index % 2 == 1;
    let mut checked = 0;
    for _ in 0..100 {
        let (o, d, max) = pile_ray(&mut rng);
        let all = w.cast_ray_all(o, d, max, &QueryFilter::default()).unwrap();
        let Some(first) = all.first() else { continue };
        // Every pile shape has the default filter, category 1: a mask without bit 0 sees
        // nothing, a mask with it sees everything.
        for mask in [0, 1 << 40] {
            assert!(w
                .cast_ray(o, d, max, &QueryFilter::default().with_mask(mask))
                .unwrap()
                .is_none());
        }
        assert_eq!(
            w.cast_ray(o, d, max, &QueryFilter::default().with_mask(1 | 1 << 40))
                .unwrap()
                .as_ref(),
            Some(first)
        );
        // Excluding the first hit's body gives the first hit of another body.
        let ex = QueryFilter::default().excluding_body(first.body);
        let want = all.iter().find(|h| h.body != first.body).copied();
        assert_eq!(w.cast_ray(o, d, max, &ex).unwrap(), want);
        // A predicate keeps only odd shape slots.
        let pf = QueryFilter::default().with_predicate(&odd);
        let want: Vec<RayHit> = all.iter().filter(|h| odd(h.shape)).copied().collect();
        assert_eq!(w.cast_ray_all(o, d, max, &pf).unwrap(), want);
        assert_eq!(w.cast_ray(o, d, max, &pf).unwrap(), want.first().copied());
        checked += 1;
    }
    assert!(checked > 40);
    let _ = shapes;
}

/// A separation of two solids in f64 whose sign is exact: ≤ 0 when they meet. For sphere
/// pairs, sphere-box and anything against a plane it is the distance (0 inside a box for a
/// sphere's centre); for box pairs the largest separation over the 15 SAT axes. Each is a
/// convex function of a translation applied to `a`.
fn sep(a: &Shape, xa: &Transform, b: &Shape, xb: &Transform) -> f64 {
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

/// Bounding radius of a shape about its origin (infinite for a plane).
fn reach(s: &Shape) -> f32 {
    match *s {
        Shape::Sphere { radius } => radius,
        Shape::Capsule {
            half_height,
            radius,
        } => half_height + radius,
        Shape::Box { half_extents } => half_extents.length(),
        Shape::Hull { ref hull } => hull.bounding_radius(),
        Shape::Plane { .. } | Shape::Mesh { .. } | Shape::HeightField { .. } => f32::INFINITY,
    }
}

/// Whether `other` might meet `shape` moving from `p` by `v`: the bounding spheres' test.
fn near_path(shape: &Shape, p: Vec3, v: Vec3, other: &Shape, xf: &Transform) -> bool {
    let r = reach(shape) + reach(other) + 0.1;
    if !r.is_finite() {
        return true;
    }
    let t = ((xf.p - p).dot(v) / v.length_squared()).clamp(0.0, 1.0);
    (p + v * t - xf.p).length() <= r
}

/// Brute-force first contact of `shape` moving from `xf` by `v` with `other`: the
/// separation is convex in t, so a ternary search finds its minimum and a bisection the
/// first root before it.
fn first_contact(
    shape: &Shape,
    xf: &Transform,
    v: Vec3,
    other: &Shape,
    oxf: &Transform,
) -> Option<f64> {
    let at = |t: f64| {
        let p = (d3(xf.p) + d3(v) * t).as_vec3();
        sep(shape, &Transform::new(p, xf.q), other, oxf)
    };
    if at(0.0) <= 0.0 {
        return Some(0.0);
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..100 {
        let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if at(m1) < at(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    let tmin = 0.5 * (lo + hi);
    if at(tmin) > 0.0 {
        return None;
    }
    let (mut lo, mut hi) = (0.0f64, tmin);
    for _ in 0..60 {
        let m = 0.5 * (lo + hi);
        if at(m) > 0.0 {
            lo = m;
        } else {
            hi = m;
        }
    }
    Some(hi)
}

#[test]
fn overlap_queries_match_brute_force() {
    let w = pile();
    let shapes = all_shapes(&w);
    let mut rng = Rng::new(21);
    let f = QueryFilter::default();
    let (mut points_in, mut shapes_in, mut boxes_in) = (0, 0, 0);
    for _ in 0..300 {
        // Points: near a random shape, so that many are inside one.
        let (_, _, xf) = shapes[(rng.unit() * 10_000.0) as usize];
        let p = xf.p + rng.vec(Vec3::splat(-0.35), Vec3::splat(0.35));
        let got = w.overlap_point(p, &f).unwrap();
        let want: Vec<ShapeId> = shapes
            .iter()
            .filter(|(_, s, xf)| {
                let probe = Shape::Sphere { radius: 1e-30 };
                sep(&probe, &Transform::new(p, Quat::IDENTITY), s, xf) <= 0.0
            })
            .map(|x| x.0)
            .collect();
        assert_eq!(got, want, "point {p}");
        points_in += got.len();

        // Boxes: bounding-box overlap for spheres and boxes, the half-space for the plane.
        let c = xf.p + rng.vec(Vec3::splat(-3.0), Vec3::splat(3.0));
        let half = rng.vec(Vec3::splat(0.1), Vec3::splat(3.0));
        let bb = Aabb {
            min: c - half,
            max: c + half,
        };
        let got = w.overlap_aabb(&bb, &f).unwrap();
        let want: Vec<ShapeId> = shapes
            .iter()
            .filter(|(_, s, xf)| match s {
                Shape::Plane { .. } => {
                    let probe = Shape::Box { half_extents: half };
                    sep(&probe, &Transform::new(c, Quat::IDENTITY), s, xf) <= 0.0
                }
                _ => s.aabb(xf).overlaps(&bb),
            })
            .map(|x| x.0)
            .collect();
        assert_eq!(got, want, "aabb {bb:?}");
        let mut visited = Vec::new();
        w.overlap_aabb_with(&bb, &f, |s| visited.push(s)).unwrap();
        visited.sort();
        assert_eq!(visited, want);
        boxes_in += got.len();

        // Shapes, exact, skipping near-touching pairs (rounding decides those).
        let query = if rng.unit() < 0.5 {
            Shape::Sphere {
                radius: rng.range(0.1, 2.0),
            }
        } else {
            Shape::Box {
                half_extents: rng.vec(Vec3::splat(0.1), Vec3::splat(2.0)),
            }
        };
        let qxf = Transform::new(c, rng.rotation());
        let got = w.overlap_shape(&query, &qxf, &f).unwrap();
        for (id, s, xf) in &shapes {
            let d = sep(&query, &qxf, s, xf);
            if d.abs() > 1e-4 {
                assert_eq!(
                    got.contains(id),
                    d <= 0.0,
                    "{query:?} at {qxf:?} vs {s:?} at {xf:?}: {d}"
                );
            }
        }
        assert!(got.windows(2).all(|p| p[0] < p[1]));
        shapes_in += got.len();
    }
    assert!(
        points_in > 100 && boxes_in > 500 && shapes_in > 300,
        "{points_in} {boxes_in} {shapes_in}"
    );
}

#[test]
fn overlap_filters_and_errors() {
    let mut w = world();
    let a = body(&mut w, BodyType::Static, Vec3::ZERO, Quat::IDENTITY);
    let sa = w.add_shape(a, &ShapeDef::sphere(1.0)).unwrap();
    let b = body(
        &mut w,
        BodyType::Dynamic,
        Vec3::new(0.5, 0.0, 0.0),
        Quat::IDENTITY,
    );
    let sb = w.add_shape(b, &ShapeDef::cuboid(Vec3::splat(0.5))).unwrap();
    w.step(1.0 / 60.0).unwrap();
    let p = Vec3::new(0.4, 0.0, 0.0);
    let all = QueryFilter::default();
    assert_eq!(w.overlap_point(p, &all).unwrap(), vec![sa, sb]);
    assert_eq!(
        w.overlap_point(p, &all.excluding_body(a)).unwrap(),
        vec![sb]
    );
    assert!(w.overlap_point(p, &all.with_mask(0)).unwrap().is_empty());
    let not_a = |s: ShapeId| s != sa;
    assert_eq!(
        w.overlap_point(p, &all.with_predicate(&not_a)).unwrap(),
        vec![sb]
    );
    let ball = Shape::Sphere { radius: 0.1 };
    let at = Transform::new(p, Quat::IDENTITY);
    assert_eq!(
        w.overlap_shape(&ball, &at, &all.excluding_body(b)).unwrap(),
        vec![sa]
    );
    let bb = Aabb { min: p, max: p };
    assert_eq!(
        w.overlap_aabb(&bb, &all.with_predicate(&not_a)).unwrap(),
        vec![sb]
    );

    let nan = Vec3::new(f32::NAN, 0.0, 0.0);
    assert_eq!(field_of(w.overlap_point(nan, &all).unwrap_err()), "point");
    let bad_box = Aabb {
        min: Vec3::ONE,
        max: Vec3::ZERO,
    };
    assert_eq!(
        field_of(w.overlap_aabb(&bad_box, &all).unwrap_err()),
        "aabb"
    );
    let nan_box = Aabb {
        min: nan,
        max: Vec3::ZERO,
    };
    assert_eq!(
        field_of(w.overlap_aabb(&nan_box, &all).unwrap_err()),
        "aabb.min"
    );
    let flat = Shape::Box {
        half_extents: Vec3::new(1.0, 0.0, 1.0),
    };
    assert_eq!(
        field_of(w.overlap_shape(&flat, &at, &all).unwrap_err()),
        "Shape::Box::half_extents"
    );
    let neg = Shape::Sphere { radius: -1.0 };
    assert_eq!(
        field_of(w.overlap_shape(&neg, &at, &all).unwrap_err()),
        "Shape::Sphere::radius"
    );
    let plane = Shape::Plane {
        normal: Vec3::Y,
        offset: 0.0,
    };
    assert_eq!(
        field_of(w.overlap_shape(&plane, &at, &all).unwrap_err()),
        "shape"
    );
    let nan_xf = Transform::new(nan, Quat::IDENTITY);
    assert_eq!(
        field_of(w.overlap_shape(&ball, &nan_xf, &all).unwrap_err()),
        "transform.p"
    );
    let zero_q = Transform::new(p, Quat::from_xyzw(0.0, 0.0, 0.0, 0.0));
    assert_eq!(
        field_of(w.overlap_shape(&ball, &zero_q, &all).unwrap_err()),
        "transform.q"
    );
    w.remove_body(b).unwrap();
    assert_eq!(
        w.overlap_point(p, &all.excluding_body(b)).unwrap_err(),
        Error::StaleHandle { kind: "BodyId" }
    );
}

#[test]
fn shape_cast_matches_analytic_answers() {
    let mut w = world();
    let ground = add(
        &mut w,
        BodyType::Static,
        Transform::IDENTITY,
        Shape::Plane {
            normal: Vec3::Y,
            offset: 0.0,
        },
    );
    let target = add(
        &mut w,
        BodyType::Dynamic,
        Transform::new(Vec3::new(20.0, 3.0, 0.0), Quat::IDENTITY),
        Shape::Sphere { radius: 1.5 },
    );
    w.step(1.0 / 60.0).unwrap();
    let f = QueryFilter::default();
    let mut rng = Rng::new(5);

    // A sphere dropped onto the plane: touches when its centre is r above it.
    for _ in 0..100 {
        let r = rng.range(0.1, 1.0);
        let p = Vec3::new(
            rng.range(-10.0, 10.0),
            rng.range(1.5, 8.0),
            rng.range(-10.0, 10.0),
        );
        let v = Vec3::new(
            rng.range(-3.0, 3.0),
            -rng.range(8.0, 20.0),
            rng.range(-3.0, 3.0),
        );
        let xf = Transform::new(p, Quat::IDENTITY);
        let hit = w
            .cast_shape(&Shape::Sphere { radius: r }, &xf, v, &f)
            .unwrap()
            .unwrap();
        let want = (p.y - r) / -v.y;
        assert_eq!(hit.shape, ground);
        assert!(
            (hit.fraction - want).abs() * v.length() < 1e-4,
            "{hit:?} vs {want}"
        );
        assert!((hit.normal - Vec3::Y).length() < 1e-5);
        let c = p + v * hit.fraction;
        assert!((hit.point - (c - Vec3::Y * r)).length() < 1e-3, "{hit:?}");
    }

    // A sphere cast at the target sphere: |p + t v - c| = r + R.
    let c = Vec3::new(20.0, 3.0, 0.0);
    let mut hits = 0;
    for _ in 0..200 {
        let r = rng.range(0.1, 1.0);
        let p = c + Vec3::new(
            rng.range(-9.0, -4.0),
            rng.range(-1.0, 2.0),
            rng.range(-2.5, 2.5),
        );
        let v = Vec3::new(
            rng.range(6.0, 12.0),
            rng.range(-0.5, 0.5),
            rng.range(-0.5, 0.5),
        );
        let (m, rr) = (d3(p - c), (r + 1.5) as f64);
        let (a, b, cc) = (d3(v).dot(d3(v)), m.dot(d3(v)), m.dot(m) - rr * rr);
        let disc = b * b - a * cc;
        let want = (disc >= 0.0)
            .then(|| (-b - disc.sqrt()) / a)
            .filter(|t| (0.0..=1.0).contains(t));
        let got = w
            .cast_shape(
                &Shape::Sphere { radius: r },
                &Transform::new(p, Quat::IDENTITY),
                v,
                &f.excluding_body(w.shape_body(ground).unwrap()),
            )
            .unwrap();
        match (got, want) {
            (Some(hit), Some(t)) => {
                assert_eq!(hit.shape, target);
                // Grazing contacts converge slowest; still within the tolerance.
                assert!(
                    (hit.fraction as f64 - t).abs() * a.sqrt() < 1e-3,
                    "{hit:?} vs {t}"
                );
                assert!(hit.fraction as f64 <= t + 1e-5, "never past the contact");
                let n = (d3(p + v * hit.fraction) - d3(c)).normalize();
                assert!((d3(hit.normal) - n).length() < 1e-2, "{hit:?} vs {n}");
                hits += 1;
            }
            (None, None) => {}
            (got, Some(t)) if disc < 1e-3 * a => {
                let _ = (got, t); // Grazing: either answer.
            }
            (got, want) => panic!("{got:?} vs {want:?}"),
        }
    }
    assert!(hits > 50, "{hits}");

    // A turned box dropped on the plane: touches when its lowest corner reaches it.
    for _ in 0..50 {
        let he = rng.vec(Vec3::splat(0.2), Vec3::splat(1.0));
        let q = rng.rotation();
        let p = Vec3::new(
            rng.range(-5.0, 5.0),
            rng.range(3.0, 6.0),
            rng.range(-5.0, 5.0),
        );
        let v = Vec3::new(0.5, -10.0, 0.0);
        let depth: f32 = (0..3).map(|i| he[i] * (q * Vec3::AXES[i]).y.abs()).sum();
        let want = (p.y - depth) / 10.0;
        let hit = w
            .cast_shape(
                &Shape::Box { half_extents: he },
                &Transform::new(p, q),
                v,
                &f,
            )
            .unwrap()
            .unwrap();
        assert_eq!(hit.shape, ground);
        assert!(
            (hit.fraction - want).abs() * 10.0 < 1e-3,
            "{hit:?} vs {want}"
        );
        assert!(hit.point.y.abs() < 1e-3);
    }
}

#[test]
fn shape_cast_through_the_pile_matches_brute_force_bisection() {
    let w = pile();
    let shapes = all_shapes(&w);
    let mut rng = Rng::new(8);
    let f = QueryFilter::default();
    let (mut hits, mut zero) = (0, 0);
    for k in 0..120 {
        let shape = if k % 2 == 0 {
            Shape::Sphere {
                radius: rng.range(0.1, 1.0),
            }
        } else {
            Shape::Box {
                half_extents: rng.vec(Vec3::splat(0.1), Vec3::splat(0.8)),
            }
        };
        let xf = Transform::new(
            rng.vec(Vec3::new(-30.0, 0.0, -25.0), Vec3::new(30.0, 45.0, 25.0)),
            rng.rotation(),
        );
        let v = rng.direction() * rng.range(1.0, 15.0);
        let got = w.cast_shape(&shape, &xf, v, &f).unwrap();
        let want = shapes
            .iter()
            .filter(|(_, s, oxf)| near_path(&shape, xf.p, v, s, oxf))
            .filter_map(|(id, s, oxf)| first_contact(&shape, &xf, v, s, oxf).map(|t| (t, *id)))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let len = v.length() as f64;
        match (got, want) {
            (None, None) => {}
            (Some(hit), Some((t, id))) => {
                let err = (hit.fraction as f64 - t) * len;
                assert!(
                    err.abs() < 2e-3,
                    "cast {k}: {hit:?} vs {id:?} at {t} ({err} m)"
                );
                if hit.shape != id {
                    assert!(err.abs() < 1e-4, "cast {k}: another shape only on a tie");
                }
                // The reported shape touches at the reported fraction (within the tolerance).
                let (_, s, oxf) = shapes.iter().find(|x| x.0 == hit.shape).unwrap();
                let p = xf.p + v * hit.fraction;
                let d = sep(&shape, &Transform::new(p, xf.q), s, oxf);
                if hit.fraction > 0.0 {
                    assert!(d.abs() < 2e-3, "cast {k}: separation {d} at the hit");
                } else {
                    assert!(d < 2e-3, "cast {k}: starts touching ({d})");
                }
                assert!((hit.normal.length() - 1.0).abs() < 1e-4);
                hits += 1;
                zero += (hit.fraction == 0.0) as u32;
            }
            (got, want) => panic!("cast {k}: {got:?} vs {want:?}"),
        }
    }
    assert!(hits > 40 && zero > 0, "{hits} hits, {zero} at 0");
}

#[test]
fn shape_cast_filters_and_errors() {
    let mut w = world();
    let near = add(
        &mut w,
        BodyType::Static,
        Transform::new(Vec3::new(5.0, 0.0, 0.0), Quat::IDENTITY),
        Shape::Sphere { radius: 1.0 },
    );
    let far = add(
        &mut w,
        BodyType::Static,
        Transform::new(Vec3::new(10.0, 0.0, 0.0), Quat::IDENTITY),
        Shape::Box {
            half_extents: Vec3::ONE,
        },
    );
    w.step(1.0 / 60.0).unwrap();
    let ball = Shape::Sphere { radius: 0.5 };
    let at = Transform::IDENTITY;
    let v = Vec3::new(20.0, 0.0, 0.0);
    let all = QueryFilter::default();
    let hit = w.cast_shape(&ball, &at, v, &all).unwrap().unwrap();
    assert_eq!(hit.shape, near);
    assert!((hit.fraction - 3.5 / 20.0).abs() < 1e-5, "{hit:?}");
    assert!((hit.point - Vec3::new(4.0, 0.0, 0.0)).length() < 1e-3);
    let skip_near = QueryFilter::default().excluding_body(w.shape_body(near).unwrap());
    let hit = w.cast_shape(&ball, &at, v, &skip_near).unwrap().unwrap();
    assert_eq!(hit.shape, far);
    assert!((hit.fraction - 8.5 / 20.0).abs() < 1e-5, "{hit:?}");
    assert_eq!(hit.normal, -Vec3::X);
    let only_far = |s: ShapeId| s == far;
    assert_eq!(
        w.cast_shape(&ball, &at, v, &all.with_predicate(&only_far))
            .unwrap()
            .unwrap()
            .shape,
        far
    );
    assert!(w
        .cast_shape(&ball, &at, v, &all.with_mask(0))
        .unwrap()
        .is_none());
    assert!(w.cast_shape(&ball, &at, -v, &all).unwrap().is_none());
    // Starting inside: fraction 0, normal against the motion, point at the start.
    let inside = Transform::new(Vec3::new(5.2, 0.0, 0.0), Quat::IDENTITY);
    let hit = w.cast_shape(&ball, &inside, v, &all).unwrap().unwrap();
    assert_eq!(
        (hit.shape, hit.fraction, hit.point, hit.normal),
        (near, 0.0, inside.p, -Vec3::X)
    );

    let nan = Vec3::new(f32::NAN, 0.0, 0.0);
    assert_eq!(
        field_of(w.cast_shape(&ball, &at, nan, &all).unwrap_err()),
        "translation"
    );
    assert_eq!(
        field_of(w.cast_shape(&ball, &at, Vec3::ZERO, &all).unwrap_err()),
        "translation"
    );
    let bad = Transform::new(Vec3::new(0.0, f32::INFINITY, 0.0), Quat::IDENTITY);
    assert_eq!(
        field_of(w.cast_shape(&ball, &bad, v, &all).unwrap_err()),
        "transform.p"
    );
    let bad = Transform::new(Vec3::ZERO, Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0));
    assert_eq!(
        field_of(w.cast_shape(&ball, &bad, v, &all).unwrap_err()),
        "transform.q"
    );
    let flat = Shape::Box {
        half_extents: Vec3::new(1.0, -1.0, 1.0),
    };
    assert_eq!(
        field_of(w.cast_shape(&flat, &at, v, &all).unwrap_err()),
        "Shape::Box::half_extents"
    );
    let plane = Shape::Plane {
        normal: Vec3::Y,
        offset: 0.0,
    };
    assert_eq!(
        field_of(w.cast_shape(&plane, &at, v, &all).unwrap_err()),
        "shape"
    );
    let gone = body(&mut w, BodyType::Static, Vec3::ZERO, Quat::IDENTITY);
    w.remove_body(gone).unwrap();
    assert_eq!(
        w.cast_shape(&ball, &at, v, &all.excluding_body(gone))
            .unwrap_err(),
        Error::StaleHandle { kind: "BodyId" }
    );
}

/// Queries see a shape through its filter's category, and never see sensors.
#[test]
fn queries_read_the_shape_categories_and_skip_sensors() {
    let mut w = World::new(WorldDef {
        worker_count: 1,
        ..Default::default()
    })
    .unwrap();
    let near = body(
        &mut w,
        BodyType::Static,
        Vec3::new(2.0, 0.0, 0.0),
        Quat::IDENTITY,
    );
    w.add_shape(
        near,
        &ShapeDef::sphere(0.5).with_filter(impetus::Filter {
            category: 2,
            ..Default::default()
        }),
    )
    .unwrap();
    let sensor = body(
        &mut w,
        BodyType::Static,
        Vec3::new(4.0, 0.0, 0.0),
        Quat::IDENTITY,
    );
    w.add_shape(sensor, &ShapeDef::sphere(0.5).sensor())
        .unwrap();
    let far = body(
        &mut w,
        BodyType::Static,
        Vec3::new(6.0, 0.0, 0.0),
        Quat::IDENTITY,
    );
    w.add_shape(far, &ShapeDef::sphere(0.5)).unwrap();
    let ray = |mask: u64| {
        w.cast_ray(
            Vec3::ZERO,
            Vec3::X,
            10.0,
            &QueryFilter::default().with_mask(mask),
        )
        .unwrap()
        .map(|h| h.body)
    };
    assert_eq!(ray(u64::MAX), Some(near));
    assert_eq!(
        ray(1),
        Some(far),
        "category 2 masked out, the sensor skipped"
    );
    assert_eq!(ray(2), Some(near));
    assert!(w
        .overlap_point(Vec3::new(4.0, 0.0, 0.0), &QueryFilter::default())
        .unwrap()
        .is_empty());
}
