//! World queries against independent answers: analytic ray tests in f64, brute force over
//! every shape of a 10,000-box pile, bisection for shape casts.

use glam::{DQuat, DVec3};
use impetus::{
    BodyDef, BodyId, BodyType, Error, Quat, QueryFilter, RayHit, Shape, ShapeDef, ShapeId,
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
        let id = add(&mut w, BodyType::Static, xf, shape);
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
        // No category has bit 0 cleared yet (every shape is in every category): a zero
        // mask sees nothing, any other mask sees everything.
        assert!(w
            .cast_ray(o, d, max, &QueryFilter::default().with_mask(0))
            .unwrap()
            .is_none());
        assert_eq!(
            w.cast_ray(o, d, max, &QueryFilter::default().with_mask(1 << 40))
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
