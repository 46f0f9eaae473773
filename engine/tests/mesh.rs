//! Static triangle meshes and height fields in the world: sliding across seams without
//! bumps, resting in a V-groove, rolling down a slope, fast bodies stopped, queries,
//! contact bookkeeping and events, errors, determinism.

mod common;

use common::{XorShift64, DT};
use impetus::{
    BodyDef, BodyId, BodyType, HeightField, Quat, QueryFilter, Shape, ShapeDef, ShapeId, Transform,
    TriMesh, Vec3, World,
};
use std::sync::Arc;

fn world(threads: usize) -> World {
    common::world_from(common::def(threads))
}

fn static_body(w: &mut World, position: Vec3) -> BodyId {
    w.create_body(&BodyDef {
        body_type: BodyType::Static,
        position,
        ..Default::default()
    })
    .unwrap()
}

/// An `n × n`-quad flat grid of side `size` centred on the origin at height 0, each quad
/// split along a diagonal (alternating), so seams run along x, z and the diagonals.
fn grid(n: usize, size: f32) -> TriMesh {
    let mut v = Vec::new();
    for r in 0..=n {
        for c in 0..=n {
            let s = size / n as f32;
            v.push(Vec3::new(
                c as f32 * s - size / 2.0,
                0.0,
                r as f32 * s - size / 2.0,
            ));
        }
    }
    let id = |r: usize, c: usize| (r * (n + 1) + c) as u32;
    let mut t = Vec::new();
    for r in 0..n {
        for c in 0..n {
            if (r + c) % 2 == 0 {
                t.push([id(r, c), id(r + 1, c + 1), id(r, c + 1)]);
                t.push([id(r, c), id(r + 1, c), id(r + 1, c + 1)]);
            } else {
                t.push([id(r, c), id(r + 1, c), id(r, c + 1)]);
                t.push([id(r, c + 1), id(r + 1, c), id(r + 1, c + 1)]);
            }
        }
    }
    TriMesh::new(v, t).unwrap()
}

/// A 1 m box (0.5 m half extents, friction 0.1) resting on `ground`, then pushed at 3 m/s
/// along (1, 0, 0.3): its heights over the slide, once it has settled, and the distance
/// it slid.
fn slide(ground: ShapeDef, ground_at: Vec3) -> (Vec<f32>, f32) {
    slide_shape(
        ground,
        ground_at,
        ShapeDef::cuboid(Vec3::splat(0.5)),
        Quat::IDENTITY,
        0.5,
    )
}

/// `shape` (turned by `rotation`, resting `rest` m above the ground) pushed as in
/// [`slide`].
fn slide_shape(
    ground: ShapeDef,
    ground_at: Vec3,
    shape: ShapeDef,
    rotation: Quat,
    rest: f32,
) -> (Vec<f32>, f32) {
    let mut w = world(1);
    let g = static_body(&mut w, ground_at);
    w.add_shape(g, &ground.with_friction(0.1)).unwrap();
    let start = Vec3::new(-4.3, rest, 0.2);
    let b = w
        .create_body(&BodyDef {
            position: start,
            rotation,
            ..Default::default()
        })
        .unwrap();
    w.add_shape(b, &shape.with_friction(0.1)).unwrap();
    for _ in 0..60 {
        w.step(DT).unwrap();
    }
    w.set_body_linear_velocity(b, Vec3::new(1.0, 0.0, 0.3).normalize() * 3.0)
        .unwrap();
    let mut heights = Vec::new();
    for _ in 0..150 {
        w.step(DT).unwrap();
        heights.push(w.body_position(b).unwrap().y);
    }
    let end = w.body_position(b).unwrap();
    (heights, (end - start).length())
}

/// Internal edges: a box sliding across a flat 20 × 20-quad mesh (and a flat height field)
/// crosses seams along x, z and the diagonals without being kicked up: its height stays
/// within 1 mm of the same slide on a plane.
#[test]
fn box_slides_across_seams_without_bumps() {
    let (plane, plane_dist) = slide(ShapeDef::plane(Vec3::Y, 0.0), Vec3::ZERO);
    let mesh = ShapeDef::mesh(Arc::new(grid(20, 20.0)));
    let field = HeightField::new(21, 21, vec![0.0; 441], Vec3::ONE).unwrap();
    let field = ShapeDef::height_field(Arc::new(field));
    for (name, def, at) in [
        ("mesh", mesh, Vec3::ZERO),
        ("height field", field, Vec3::new(-10.0, 0.0, -10.0)),
    ] {
        let (heights, dist) = slide(def, at);
        // It slid across several 1 m quads (and their diagonals).
        assert!(dist > 3.0, "{name}: slid {dist} m");
        assert!(
            (dist - plane_dist).abs() < 0.05,
            "{name}: {dist} vs {plane_dist}"
        );
        let worst = heights
            .iter()
            .zip(&plane)
            .map(|(h, p)| (h - p).abs())
            .fold(0.0f32, f32::max);
        let (lo, hi) = heights
            .iter()
            .fold((f32::MAX, f32::MIN), |(lo, hi), &h| (lo.min(h), hi.max(h)));
        assert!(worst < 1.0e-3, "{name}: {worst} m from the plane's slide");
        assert!(hi - lo < 1.0e-3, "{name}: heights {lo}..{hi}");
    }
}

/// A capsule lying on its side and a flat-bottomed hull slide across the same mesh seams
/// as smoothly as on a plane.
#[test]
fn capsule_and_hull_slide_across_seams_without_bumps() {
    let pts: Vec<Vec3> = (0..8)
        .map(|k| {
            let a = k as f32 * std::f32::consts::FRAC_PI_4 + 0.2;
            Vec3::new(0.5 * a.cos(), 0.0, 0.5 * a.sin())
        })
        .flat_map(|p| [p, p + Vec3::new(0.0, 0.4, 0.0)])
        .collect();
    let hull = Arc::new(impetus::ConvexHull::new(&pts).unwrap());
    let cases = [
        (
            "capsule",
            ShapeDef::capsule(0.5, 0.25),
            Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
            0.25,
        ),
        ("hull", ShapeDef::hull(hull), Quat::IDENTITY, 0.2),
    ];
    for (name, shape, rotation, rest) in cases {
        let plane = ShapeDef::plane(Vec3::Y, 0.0);
        let (on_plane, dist_plane) = slide_shape(plane, Vec3::ZERO, shape.clone(), rotation, rest);
        let mesh = ShapeDef::mesh(Arc::new(grid(20, 20.0)));
        let (heights, dist) = slide_shape(mesh, Vec3::ZERO, shape, rotation, rest);
        assert!(dist > 2.0, "{name}: slid {dist} m");
        assert!(
            (dist - dist_plane).abs() < 0.05,
            "{name}: {dist} vs {dist_plane}"
        );
        let worst = heights
            .iter()
            .zip(&on_plane)
            .map(|(h, p)| (h - p).abs())
            .fold(0.0f32, f32::max);
        assert!(worst < 1.0e-3, "{name}: {worst} m from the plane's slide");
    }
}

/// The same box on a mesh whose edges are all treated as active (every triangle its own
/// mesh: no neighbours) does bump at the seams, so the test above measures something.
#[test]
fn without_active_edges_the_seams_bump() {
    let g = grid(20, 20.0);
    let mut w = world(1);
    let ground = static_body(&mut w, Vec3::ZERO);
    for t in 0..g.triangle_count() as u32 {
        let v = g.triangle(t).vertices.to_vec();
        let m = TriMesh::new(v, vec![[0, 1, 2]]).unwrap();
        w.add_shape(ground, &ShapeDef::mesh(Arc::new(m)).with_friction(0.1))
            .unwrap();
    }
    let b = w
        .create_body(&BodyDef {
            position: Vec3::new(-4.3, 0.5, 0.2),
            ..Default::default()
        })
        .unwrap();
    w.add_shape(b, &ShapeDef::cuboid(Vec3::splat(0.5)).with_friction(0.1))
        .unwrap();
    for _ in 0..60 {
        w.step(DT).unwrap();
    }
    w.set_body_linear_velocity(b, Vec3::new(1.0, 0.0, 0.3).normalize() * 3.0)
        .unwrap();
    let (mut lo, mut hi) = (f32::MAX, f32::MIN);
    let mut speed_lost = 0.0f32;
    for _ in 0..150 {
        let before = w.body_linear_velocity(b).unwrap().length();
        w.step(DT).unwrap();
        let y = w.body_position(b).unwrap().y;
        (lo, hi) = (lo.min(y), hi.max(y));
        speed_lost = speed_lost.max(before - w.body_linear_velocity(b).unwrap().length());
    }
    // Friction alone takes μ g dt ≈ 0.016 m/s a step; the seams take more, or lift it.
    assert!(
        hi - lo > 1.0e-3 || speed_lost > 0.05,
        "{lo}..{hi}, {speed_lost}"
    );
}

/// Two 45° slopes meeting in a valley (a concave, inactive edge): a box turned to lie
/// flat on both comes to rest on both faces at the height geometry gives, not sinking.
#[test]
fn box_rests_in_a_v_groove() {
    let v = vec![
        Vec3::new(-2.0, 2.0, -2.0),
        Vec3::new(0.0, 0.0, -2.0),
        Vec3::new(2.0, 2.0, -2.0),
        Vec3::new(-2.0, 2.0, 2.0),
        Vec3::new(0.0, 0.0, 2.0),
        Vec3::new(2.0, 2.0, 2.0),
    ];
    let t = vec![[0, 3, 4], [0, 4, 1], [1, 4, 5], [1, 5, 2]];
    let mut w = world(1);
    let g = static_body(&mut w, Vec3::ZERO);
    w.add_shape(g, &ShapeDef::mesh(Arc::new(TriMesh::new(v, t).unwrap())))
        .unwrap();
    let b = w
        .create_body(&BodyDef {
            position: Vec3::new(0.05, 1.2, 0.0),
            rotation: Quat::from_rotation_z(std::f32::consts::FRAC_PI_4),
            ..Default::default()
        })
        .unwrap();
    w.add_shape(b, &ShapeDef::cuboid(Vec3::splat(0.4))).unwrap();
    for _ in 0..240 {
        w.step(DT).unwrap();
    }
    let p = w.body_position(b).unwrap();
    // Faces 0.4 m from both planes y = ±x: the centre at (0, 0.4 √2).
    let rest = 0.4 * 2f32.sqrt();
    assert!(p.x.abs() < 0.01, "{p}");
    assert!((p.y - rest).abs() < 0.01, "{p}: rest height {rest}");
    assert!(w.body_linear_velocity(b).unwrap().length() < 0.05);
    // It leans on both slopes: touching contacts with normals from each.
    let normals: Vec<Vec3> = w.contacts().map(|c| c.normal).collect();
    assert!(normals.iter().any(|n| n.x > 0.6), "{normals:?}");
    assert!(normals.iter().any(|n| n.x < -0.6), "{normals:?}");
}

/// A ball rolls without slipping down a 15° height-field slope: `a = 5/7 g sin θ`.
#[test]
fn sphere_rolls_down_a_height_field_slope() {
    let theta = 15f32.to_radians();
    let (rows, cols) = (11, 41);
    let heights: Vec<f32> = (0..rows * cols)
        .map(|k| -((k % cols) as f32) * theta.tan())
        .collect();
    let field = HeightField::new(rows, cols, heights, Vec3::ONE).unwrap();
    let mut w = world(1);
    let g = static_body(&mut w, Vec3::ZERO);
    w.add_shape(g, &ShapeDef::height_field(Arc::new(field)))
        .unwrap();
    let r = 0.5;
    let x0 = 5.0;
    let start = Vec3::new(x0, -x0 * theta.tan() + r / theta.cos(), 5.0);
    let b = w
        .create_body(&BodyDef {
            position: start,
            ..Default::default()
        })
        .unwrap();
    w.add_shape(b, &ShapeDef::sphere(r)).unwrap();
    let steps = 90;
    for _ in 0..steps {
        w.step(DT).unwrap();
    }
    let t = steps as f32 * DT;
    let expected = 0.5 * 5.0 / 7.0 * 9.81 * theta.sin() * t * t;
    let moved = w.body_position(b).unwrap() - start;
    let down = Vec3::new(theta.cos(), -theta.sin(), 0.0);
    let along = moved.dot(down);
    assert!(
        (along / expected - 1.0).abs() < 0.05,
        "{along} vs {expected}"
    );
    // On the surface all the way: no motion off the slope's line.
    assert!((moved - down * along).length() < 0.01, "{moved}");
}

/// A 0.1 m ball at 200 m/s (3.3 m a step) hits a mesh floor and a height field without
/// passing through, straight down and at an angle.
#[test]
fn fast_sphere_does_not_tunnel() {
    let field = HeightField::new(11, 11, vec![0.0; 121], Vec3::ONE).unwrap();
    for (name, def, at) in [
        ("mesh", ShapeDef::mesh(Arc::new(grid(10, 10.0))), Vec3::ZERO),
        (
            "height field",
            ShapeDef::height_field(Arc::new(field)),
            Vec3::new(-5.0, 0.0, -5.0),
        ),
    ] {
        for dir in [Vec3::NEG_Y, Vec3::new(0.5, -1.0, 0.3).normalize()] {
            let mut w = world(1);
            let g = static_body(&mut w, at);
            w.add_shape(g, &def).unwrap();
            let b = w
                .create_body(&BodyDef {
                    position: Vec3::new(0.3, 8.0, 0.1) - dir.with_y(0.0) * 4.0,
                    linear_velocity: dir * 200.0,
                    ..Default::default()
                })
                .unwrap();
            w.add_shape(b, &ShapeDef::sphere(0.1)).unwrap();
            let mut lowest = f32::MAX;
            let mut impacts = 0;
            for _ in 0..30 {
                w.step(DT).unwrap();
                let p = w.body_position(b).unwrap();
                // Over the floor (it skids off its far edge at ~100 m/s).
                if p.x.abs() < 4.9 && p.z.abs() < 4.9 {
                    lowest = lowest.min(p.y);
                }
                impacts += w.profile().impacts;
            }
            assert!(lowest > 0.05, "{name} {dir}: fell to {lowest}");
            assert!(impacts > 0, "{name} {dir}: no sweep stopped it");
        }
    }
}

#[test]
fn meshes_are_static_only_and_not_sensors() {
    let mesh = Arc::new(grid(2, 2.0));
    let mut w = world(1);
    for body_type in [BodyType::Dynamic, BodyType::Kinematic] {
        let b = w
            .create_body(&BodyDef {
                body_type,
                ..Default::default()
            })
            .unwrap();
        let e = w.add_shape(b, &ShapeDef::mesh(mesh.clone())).unwrap_err();
        assert!(e.to_string().contains("ShapeDef::shape"), "{e}");
        let f = HeightField::new(2, 2, vec![0.0; 4], Vec3::ONE).unwrap();
        let e = w
            .add_shape(b, &ShapeDef::height_field(Arc::new(f)))
            .unwrap_err();
        assert!(e.to_string().contains("ShapeDef::shape"), "{e}");
    }
    let s = static_body(&mut w, Vec3::ZERO);
    let e = w
        .add_shape(s, &ShapeDef::mesh(mesh.clone()).sensor())
        .unwrap_err();
    assert!(e.to_string().contains("ShapeDef::is_sensor"), "{e}");
    assert!(w.add_shape(s, &ShapeDef::mesh(mesh)).is_ok());
    // Invalid geometry is refused where it is built.
    let e = TriMesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::NAN], vec![[0, 1, 2]]).unwrap_err();
    assert!(e.to_string().contains("TriMesh::vertices"), "{e}");
    let e = HeightField::new(3, 3, vec![0.0; 8], Vec3::ONE).unwrap_err();
    assert!(e.to_string().contains("HeightField::heights"), "{e}");
}

/// A box resting on a mesh: one begin event for the pair however many triangles it
/// touches, none while it slides across triangles; removing the mesh (shape, then in a
/// second world the body) ends the pair once, destroys every contact and wakes the box,
/// which falls.
#[test]
fn pair_events_and_removal() {
    for remove_body in [false, true] {
        let mut w = world(1);
        let g = static_body(&mut w, Vec3::ZERO);
        let mesh = w
            .add_shape(
                g,
                &ShapeDef::mesh(Arc::new(grid(8, 8.0))).with_friction(0.1),
            )
            .unwrap();
        let b = w
            .create_body(&BodyDef {
                position: Vec3::new(-2.0, 0.6, 0.3),
                ..Default::default()
            })
            .unwrap();
        let boxed = w
            .add_shape(b, &ShapeDef::cuboid(Vec3::splat(0.5)).with_friction(0.1))
            .unwrap();
        let (mut begins, mut ends) = (0, 0);
        let pair = |s: ShapeId| s == mesh || s == boxed;
        for k in 0..120 {
            if k == 30 {
                w.set_body_linear_velocity(b, Vec3::new(3.0, 0.0, 1.0))
                    .unwrap();
            }
            w.step(DT).unwrap();
            begins += w
                .contact_begin_events()
                .iter()
                .filter(|e| pair(e.shape_a) && pair(e.shape_b))
                .count();
            ends += w.contact_end_events().len();
        }
        assert_eq!((begins, ends), (1, 0));
        // Several triangles touch (one child contact each), each solved.
        assert!(w.contacts().count() >= 2, "{}", w.contacts().count());
        assert!(w.profile().contacts >= 2);
        // Let it stop and fall asleep, then remove the ground.
        for _ in 0..240 {
            w.step(DT).unwrap();
        }
        assert!(!w.body_is_awake(b).unwrap());
        if remove_body {
            w.remove_body(g).unwrap();
        } else {
            w.remove_shape(mesh).unwrap();
        }
        assert!(w.body_is_awake(b).unwrap());
        let y0 = w.body_position(b).unwrap().y;
        w.step(DT).unwrap();
        assert_eq!(w.contact_end_events().len(), 1);
        let e = w.contact_end_events()[0];
        assert!(pair(e.shape_a) && pair(e.shape_b));
        assert_eq!(w.contacts().count(), 0);
        assert_eq!(w.profile().contacts, 0);
        for _ in 0..30 {
            w.step(DT).unwrap();
        }
        assert!(w.body_position(b).unwrap().y < y0 - 0.5);
    }
}

/// Boxes and balls falling onto a bumpy height field and a mesh give the same state
/// hash on one and two threads (the midphase's queries run in parallel).
#[test]
fn same_result_on_one_and_two_threads() {
    let run = |threads: usize| {
        let mut w = world(threads);
        let (rows, cols) = (24, 24);
        let heights: Vec<f32> = (0..rows * cols)
            .map(|k| {
                let (r, c) = ((k / cols) as f32, (k % cols) as f32);
                0.4 * (0.7 * r).sin() * (0.5 * c).cos()
            })
            .collect();
        let field = HeightField::new(rows, cols, heights, Vec3::new(0.5, 1.0, 0.5)).unwrap();
        let g = static_body(&mut w, Vec3::new(-6.0, 0.0, -6.0));
        w.add_shape(g, &ShapeDef::height_field(Arc::new(field)))
            .unwrap();
        let m = static_body(&mut w, Vec3::new(0.0, -2.0, 0.0));
        w.add_shape(m, &ShapeDef::mesh(Arc::new(grid(10, 30.0))))
            .unwrap();
        for k in 0..40 {
            let p = Vec3::new(
                (k % 7) as f32 * 1.3 - 4.0,
                2.0 + (k / 7) as f32 * 1.1,
                (k % 5) as f32 * 1.2 - 3.0,
            );
            let b = w
                .create_body(&BodyDef {
                    position: p,
                    rotation: Quat::from_rotation_y(k as f32),
                    ..Default::default()
                })
                .unwrap();
            let shape = match k % 3 {
                0 => ShapeDef::cuboid(Vec3::new(0.3, 0.2, 0.25)),
                1 => ShapeDef::sphere(0.3),
                _ => ShapeDef::capsule(0.2, 0.2),
            };
            w.add_shape(b, &shape).unwrap();
        }
        for _ in 0..180 {
            w.step(DT).unwrap();
        }
        w.state_hash()
    };
    assert_eq!(run(1), run(2));
}

/// Ray casts against a mesh match brute force over its triangles and the flat case's
/// closed form; shape casts and overlaps see meshes and height fields.
#[test]
fn queries_see_meshes() {
    let mut w = world(1);
    let field = HeightField::new(5, 5, vec![0.0; 25], Vec3::ONE).unwrap();
    let g = static_body(&mut w, Vec3::new(10.0, 1.0, 0.0));
    let hf = w
        .add_shape(g, &ShapeDef::height_field(Arc::new(field)))
        .unwrap();
    let rot = Quat::from_rotation_x(0.2);
    let m = w
        .create_body(&BodyDef {
            body_type: BodyType::Static,
            rotation: rot,
            ..Default::default()
        })
        .unwrap();
    let mesh = Arc::new(grid(6, 6.0));
    let ms = w.add_shape(m, &ShapeDef::mesh(mesh.clone())).unwrap();
    let f = QueryFilter::default();
    // Flat, analytic: straight down onto the height field at y = 1.
    let hit = w
        .cast_ray(Vec3::new(12.2, 5.0, 1.7), Vec3::NEG_Y, 10.0, &f)
        .unwrap()
        .unwrap();
    assert_eq!(hit.shape, hf);
    assert!((hit.distance - 4.0).abs() < 1e-5 && (hit.normal - Vec3::Y).length() < 1e-5);
    // From below it is hit too (two-sided), normal facing the ray.
    let hit = w
        .cast_ray(Vec3::new(12.2, -3.0, 1.7), Vec3::Y, 10.0, &f)
        .unwrap()
        .unwrap();
    assert!((hit.distance - 4.0).abs() < 1e-5 && (hit.normal + Vec3::Y).length() < 1e-5);
    // Random rays at the tilted mesh against brute force over its triangles.
    let mut rng = XorShift64(7);
    let mut rnd = || rng.unit() * 2.0 - 1.0;
    let xf = Transform::new(Vec3::ZERO, rot);
    let mut hits = 0;
    for _ in 0..300 {
        let o = Vec3::new(rnd() * 4.0, 3.0 + rnd(), rnd() * 4.0);
        let d = Vec3::new(rnd() * 0.5, -1.0, rnd() * 0.5).normalize();
        let got = w
            .cast_ray(o, d, 20.0, &f)
            .unwrap()
            .filter(|h| h.shape == ms)
            .map(|h| h.distance);
        let brute = (0..mesh.triangle_count() as u32)
            .filter_map(|t| {
                let [a, b, c] = mesh.triangle(t).vertices.map(|v| xf.transform_point(v));
                // Plane then barycentric inside test, in f64.
                let (a, b, c, o, d) = (
                    a.as_dvec3(),
                    b.as_dvec3(),
                    c.as_dvec3(),
                    o.as_dvec3(),
                    d.as_dvec3(),
                );
                let n = (b - a).cross(c - a);
                let s = n.dot(a - o) / n.dot(d);
                let x = o + d * s;
                let inside = [(a, b), (b, c), (c, a)]
                    .iter()
                    .all(|&(p, q)| (q - p).cross(x - p).dot(n) >= -1e-9);
                (s >= 0.0 && inside).then_some(s)
            })
            .fold(f64::INFINITY, f64::min);
        if brute.is_finite() {
            hits += 1;
            let got = got.expect("the ray hits the mesh");
            assert!((got as f64 - brute).abs() < 1e-4, "{got} vs {brute}");
        } else {
            assert!(got.is_none());
        }
    }
    assert!(hits > 150, "{hits}");
    // A ball cast down onto the height field stops one radius above it.
    let ball = Shape::Sphere { radius: 0.25 };
    let from = Transform::new(Vec3::new(11.5, 4.0, 2.5), Quat::IDENTITY);
    let hit = w
        .cast_shape(&ball, &from, Vec3::new(0.0, -6.0, 0.0), &f)
        .unwrap()
        .unwrap();
    assert_eq!(hit.shape, hf);
    let travel = hit.fraction * 6.0;
    assert!((travel - 2.75).abs() < 2e-3, "{travel}");
    assert!((hit.normal - Vec3::Y).length() < 1e-3);
    // Overlaps: a box through the height field's surface overlaps it, one above does not.
    let cube = Shape::Box {
        half_extents: Vec3::splat(0.3),
    };
    let at = |y: f32| Transform::new(Vec3::new(11.0, y, 1.0), Quat::IDENTITY);
    assert_eq!(w.overlap_shape(&cube, &at(1.1), &f).unwrap(), vec![hf]);
    assert!(w.overlap_shape(&cube, &at(1.4), &f).unwrap().is_empty());
    // Meshes are not query shapes.
    let e = w
        .overlap_shape(&Shape::Mesh { mesh }, &at(0.0), &f)
        .unwrap_err();
    assert!(e.to_string().contains("shape"), "{e}");
}

/// Every convex shape dropped turned onto a mesh and onto a height field comes to rest
/// where it rests on a plane (within 2 mm), across seams.
#[test]
fn every_shape_rests_on_triangles_as_on_a_plane() {
    let rock: Vec<Vec3> = (0..24)
        .map(|k| {
            let a = k as f32 * 2.4;
            let y = (k as f32 / 23.0) * 2.0 - 1.0;
            let r = (1.0 - y * y).sqrt();
            Vec3::new(r * a.cos() * 0.5, y * 0.35, r * a.sin() * 0.4)
        })
        .collect();
    let hull = Arc::new(impetus::ConvexHull::new(&rock).unwrap());
    let shapes = [
        ShapeDef::sphere(0.3),
        ShapeDef::capsule(0.4, 0.2),
        ShapeDef::cuboid(Vec3::new(0.4, 0.2, 0.3)),
        ShapeDef::hull(hull),
    ];
    let field = Arc::new(HeightField::new(9, 9, vec![0.0; 81], Vec3::ONE).unwrap());
    let grounds = [
        (ShapeDef::plane(Vec3::Y, 0.0), Vec3::ZERO),
        (ShapeDef::mesh(Arc::new(grid(8, 8.0))), Vec3::ZERO),
        (ShapeDef::height_field(field), Vec3::new(-4.0, 0.0, -4.0)),
    ];
    for shape in &shapes {
        let mut rest = Vec::new();
        for (ground, at) in &grounds {
            let mut w = world(1);
            let g = static_body(&mut w, *at);
            w.add_shape(g, ground).unwrap();
            // Over the seam at x = z = 0 (and the diagonals), turned about y.
            let b = w
                .create_body(&BodyDef {
                    position: Vec3::new(0.02, 1.0, -0.03),
                    rotation: Quat::from_rotation_y(0.7) * Quat::from_rotation_z(1.2),
                    ..Default::default()
                })
                .unwrap();
            w.add_shape(b, shape).unwrap();
            for _ in 0..240 {
                w.step(DT).unwrap();
            }
            assert!(
                w.body_linear_velocity(b).unwrap().length() < 0.05,
                "{shape:?}"
            );
            rest.push(w.body_position(b).unwrap().y);
        }
        for y in &rest[1..] {
            assert!((y - rest[0]).abs() < 2.0e-3, "{:?}: {rest:?}", shape.shape);
        }
    }
}

/// A fast box sliding across a flat mesh (displacement per step well over half its size,
/// so it is swept every step) travels as far as on a plane: the sweep does not stop it at
/// each triangle it slides onto.
#[test]
fn fast_sliding_box_is_not_paused_by_the_sweep() {
    let travel = |ground: ShapeDef| {
        let mut w = world(1);
        let g = static_body(&mut w, Vec3::ZERO);
        w.add_shape(g, &ground.with_friction(0.0)).unwrap();
        let b = w
            .create_body(&BodyDef {
                position: Vec3::new(-40.0, 0.5, 0.3),
                ..Default::default()
            })
            .unwrap();
        w.add_shape(b, &ShapeDef::cuboid(Vec3::splat(0.5)).with_friction(0.0))
            .unwrap();
        for _ in 0..30 {
            w.step(DT).unwrap();
        }
        w.set_body_linear_velocity(b, Vec3::new(40.0, 0.0, 10.0))
            .unwrap();
        for _ in 0..60 {
            w.step(DT).unwrap();
        }
        let p = w.body_position(b).unwrap();
        (p.x + 40.0, p.y)
    };
    let (on_plane, _) = travel(ShapeDef::plane(Vec3::Y, 0.0));
    let (on_mesh, y) = travel(ShapeDef::mesh(Arc::new(grid(50, 100.0))));
    assert!((on_plane - 40.0).abs() < 0.5, "{on_plane}");
    assert!((on_mesh - on_plane).abs() < 0.05, "{on_mesh} vs {on_plane}");
    assert!((y - 0.5).abs() < 0.01, "{y}");
}

/// Changing the mesh's filter drops the pair (one end record, no contacts left) and brings
/// it back at the next step (one begin record), children included.
#[test]
fn filter_change_drops_and_restores_the_pair() {
    let mut w = world(1);
    let g = static_body(&mut w, Vec3::ZERO);
    let mesh = w
        .add_shape(g, &ShapeDef::mesh(Arc::new(grid(4, 4.0))))
        .unwrap();
    let b = w
        .create_body(&BodyDef {
            position: Vec3::new(0.0, 0.5, 0.0),
            ..Default::default()
        })
        .unwrap();
    w.add_shape(b, &ShapeDef::cuboid(Vec3::splat(0.5))).unwrap();
    for _ in 0..30 {
        w.step(DT).unwrap();
    }
    // The box sits on the grid's central vertex: all six triangles around it touch.
    assert!(w.contacts().count() >= 4, "{}", w.contacts().count());
    let none = impetus::Filter {
        mask: 0,
        ..Default::default()
    };
    w.set_shape_filter(mesh, none).unwrap();
    w.step(DT).unwrap();
    assert_eq!(w.contact_end_events().len(), 1);
    assert_eq!(w.contacts().count(), 0);
    assert_eq!(w.profile().contacts, 0);
    w.set_shape_filter(mesh, impetus::Filter::default())
        .unwrap();
    w.step(DT).unwrap();
    assert_eq!(w.contact_begin_events().len(), 1);
    assert!(w.contacts().count() >= 4);
    for _ in 0..60 {
        w.step(DT).unwrap();
    }
    assert!((w.body_position(b).unwrap().y - 0.5).abs() < 0.01);
}
