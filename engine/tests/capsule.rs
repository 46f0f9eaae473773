//! Capsules in a world: resting, standing, stacking and rolling against closed forms, ray
//! casts, input errors, and determinism across thread counts.

mod common;

use common::{Rng, DT};
use impetus::{
    BodyDef, BodyId, BodyType, Quat, QueryFilter, Shape, ShapeDef, Vec3, World, WorldDef,
};
use std::f32::consts::FRAC_PI_2;

const G: f32 = 10.0;

fn world(workers: usize) -> World {
    common::world(Vec3::new(0.0, -G, 0.0), workers)
}

fn body(w: &mut World, body_type: BodyType, position: Vec3, rotation: Quat, s: ShapeDef) -> BodyId {
    let b = w
        .create_body(&BodyDef {
            body_type,
            position,
            rotation,
            ..Default::default()
        })
        .unwrap();
    w.add_shape(b, &s).unwrap();
    b
}

/// A static box whose top face is the plane y = 0.
fn ground(w: &mut World) -> BodyId {
    body(
        w,
        BodyType::Static,
        Vec3::new(0.0, -1.0, 0.0),
        Quat::IDENTITY,
        ShapeDef::cuboid(Vec3::new(50.0, 1.0, 50.0)),
    )
}

/// The capsule's axis in world space.
fn axis(w: &World, b: BodyId) -> Vec3 {
    w.body_rotation(b).unwrap() * Vec3::Y
}

/// A capsule lying along x rests at height `radius` on a box and on a plane, without
/// rolling, sliding or turning.
#[test]
fn capsule_lying_on_the_ground_rests_at_its_radius() {
    for plane in [false, true] {
        let mut w = world(1);
        if plane {
            body(
                &mut w,
                BodyType::Static,
                Vec3::ZERO,
                Quat::IDENTITY,
                ShapeDef::plane(Vec3::Y, 0.0),
            );
        } else {
            ground(&mut w);
        }
        let (h, r) = (0.6, 0.25);
        let start = Vec3::new(1.0, r + 0.05, -2.0);
        let c = body(
            &mut w,
            BodyType::Dynamic,
            start,
            Quat::from_rotation_z(FRAC_PI_2),
            ShapeDef::capsule(h, r),
        );
        for _ in 0..180 {
            w.step(DT).unwrap();
        }
        let p = w.body_position(c).unwrap();
        let u = axis(&w, c);
        assert!((p.y - r).abs() < 0.01, "plane {plane}: height {}", p.y);
        assert!(
            (p - start).with_y(0.0).length() < 0.01,
            "plane {plane}: drifted to {p}"
        );
        assert!(u.x.abs() > 0.9999, "plane {plane}: axis {u}");
        assert!(w.body_linear_velocity(c).unwrap().length() < 0.01);
    }
}

/// A capsule balanced upright on a box stays upright for 5 s (an unstable balance: the
/// contact normal must stay exactly under the centre of mass).
#[test]
fn upright_capsule_on_a_box_stays_upright() {
    let mut w = world(1);
    ground(&mut w);
    let (h, r) = (0.5, 0.2);
    let pedestal = body(
        &mut w,
        BodyType::Dynamic,
        Vec3::new(0.0, 0.5, 0.0),
        Quat::IDENTITY,
        ShapeDef::cuboid(Vec3::splat(0.5)),
    );
    let c = body(
        &mut w,
        BodyType::Dynamic,
        Vec3::new(0.0, 1.0 + h + r + 0.01, 0.0),
        Quat::IDENTITY,
        ShapeDef::capsule(h, r),
    );
    for _ in 0..300 {
        w.step(DT).unwrap();
    }
    let p = w.body_position(c).unwrap();
    assert!(axis(&w, c).y > 0.999, "axis {}", axis(&w, c));
    assert!((p.y - (1.0 + h + r)).abs() < 0.01, "height {}", p.y);
    assert!(w.body_position(pedestal).unwrap().y > 0.49);
}

/// Three capsules lying crosswise (x, z, x) settle at heights r, 3r, 5r with level axes.
#[test]
fn crosswise_capsule_stack_settles() {
    let mut w = world(1);
    ground(&mut w);
    let (h, r) = (0.8, 0.2);
    let mut caps = Vec::new();
    for k in 0..3 {
        let q = if k % 2 == 0 {
            Quat::from_rotation_z(FRAC_PI_2)
        } else {
            Quat::from_rotation_x(FRAC_PI_2)
        };
        let y = r + 2.0 * r * k as f32 + 0.02 * (k + 1) as f32;
        caps.push(body(
            &mut w,
            BodyType::Dynamic,
            Vec3::new(0.0, y, 0.0),
            q,
            ShapeDef::capsule(h, r),
        ));
    }
    for _ in 0..240 {
        w.step(DT).unwrap();
    }
    for (k, &c) in caps.iter().enumerate() {
        let p = w.body_position(c).unwrap();
        let expected = r + 2.0 * r * k as f32;
        assert!((p.y - expected).abs() < 0.02, "capsule {k} at {p}");
        assert!(p.with_y(0.0).length() < 0.05, "capsule {k} at {p}");
        assert!(
            axis(&w, c).y.abs() < 0.01,
            "capsule {k} axis {}",
            axis(&w, c)
        );
        assert!(w.body_linear_velocity(c).unwrap().length() < 0.05);
    }
}

/// A capsule lying across a 15° slope rolls without slipping like a solid of revolution:
/// `a = g sin θ / (1 + I / (m r²))`, with `I` the capsule's axial moment.
#[test]
fn capsule_rolls_down_a_slope_at_the_closed_form_rate() {
    let mut w = world(1);
    let theta = 15f32.to_radians();
    let q = Quat::from_rotation_z(theta);
    body(
        &mut w,
        BodyType::Static,
        Vec3::ZERO,
        q,
        ShapeDef::cuboid(Vec3::new(30.0, 1.0, 5.0)).with_friction(1.0),
    );
    let (h, r) = (0.5, 0.3);
    let normal = q * Vec3::Y;
    let down = q * Vec3::NEG_X;
    // Axis along z: across the slope.
    let c = body(
        &mut w,
        BodyType::Dynamic,
        normal * (1.0 + r) + down * -10.0,
        Quat::from_rotation_x(FRAC_PI_2),
        ShapeDef::capsule(h, r).with_friction(1.0),
    );
    let mp = Shape::Capsule {
        half_height: h,
        radius: r,
    }
    .mass_properties(1.0);
    let expected = G * theta.sin() / (1.0 + mp.inertia.y / (mp.mass * r * r));
    let mut v = [0.0f32; 2];
    for i in 1..=120 {
        w.step(DT).unwrap();
        if i == 30 {
            v[0] = w.body_linear_velocity(c).unwrap().dot(down);
        }
        if i == 120 {
            v[1] = w.body_linear_velocity(c).unwrap().dot(down);
        }
    }
    let a = (v[1] - v[0]) / 1.5;
    assert!(
        (a / expected - 1.0).abs() < 0.03,
        "a = {a}, expected {expected} (sliding would give {})",
        G * theta.sin()
    );
    // Rolling: the contact point is at rest, v = ω r.
    let omega = w.body_angular_velocity(c).unwrap().length();
    assert!(
        (omega * r / v[1] - 1.0).abs() < 0.03,
        "ω r = {}, v = {}",
        omega * r,
        v[1]
    );
    // Still across the slope.
    assert!(axis(&w, c).z.abs() > 0.999);
}

#[test]
fn ray_hits_a_capsule_side_and_cap() {
    let mut w = world(1);
    let c = body(
        &mut w,
        BodyType::Static,
        Vec3::new(0.0, 2.0, 0.0),
        Quat::from_rotation_z(FRAC_PI_2),
        ShapeDef::capsule(1.0, 0.5),
    );
    let f = QueryFilter::default();
    // Straight down onto the side: the top of the cylinder at y = 2.5.
    let hit = w
        .cast_ray(Vec3::new(0.3, 10.0, 0.0), Vec3::NEG_Y, 100.0, &f)
        .unwrap()
        .unwrap();
    assert_eq!(hit.body, c);
    assert!((hit.point.y - 2.5).abs() < 1e-4 && (hit.normal - Vec3::Y).length() < 1e-4);
    // Along the axis: the cap at x = -1.5.
    let hit = w
        .cast_ray(Vec3::new(-10.0, 2.0, 0.0), Vec3::X, 100.0, &f)
        .unwrap()
        .unwrap();
    assert!((hit.point.x + 1.5).abs() < 1e-4 && (hit.normal + Vec3::X).length() < 1e-4);
    // Diagonally onto the cap's sphere.
    let d = Vec3::new(1.0, -1.0, 0.0).normalize();
    let hit = w
        .cast_ray(Vec3::new(-1.0, 2.0, 0.0) - d * 5.0, d, 100.0, &f)
        .unwrap()
        .unwrap();
    assert!((hit.distance - 4.5).abs() < 1e-4, "{hit:?}");
    // Just past the cap: a miss.
    assert!(w
        .cast_ray(Vec3::new(-1.55, 10.0, 0.0), Vec3::NEG_Y, 100.0, &f)
        .unwrap()
        .is_none());
}

#[test]
fn bad_capsules_are_errors_naming_the_field() {
    let mut w = world(1);
    let b = w.create_body(&BodyDef::default()).unwrap();
    for (def, field) in [
        (ShapeDef::capsule(-0.1, 0.5), "Shape::Capsule::half_height"),
        (
            ShapeDef::capsule(f32::NAN, 0.5),
            "Shape::Capsule::half_height",
        ),
        (ShapeDef::capsule(0.5, 0.0), "Shape::Capsule::radius"),
        (
            ShapeDef::capsule(0.5, f32::INFINITY),
            "Shape::Capsule::radius",
        ),
        (
            ShapeDef::capsule(0.5, 0.2).with_inner_radius(0.1),
            "ShapeDef::inner_radius",
        ),
    ] {
        let err = w.add_shape(b, &def).unwrap_err().to_string();
        assert!(err.contains(field), "{err}");
    }
    assert!(w.add_shape(b, &ShapeDef::capsule(0.0, 0.5)).is_ok());
}

/// A pile of capsules, spheres and boxes on a plane: the same state hash with 1 and 2
/// worker threads, and every capsule at rest above the ground.
#[test]
fn capsule_pile_is_deterministic_across_threads() {
    let run = |workers: usize| {
        let mut w = world(workers);
        body(
            &mut w,
            BodyType::Static,
            Vec3::ZERO,
            Quat::IDENTITY,
            ShapeDef::plane(Vec3::Y, 0.0),
        );
        ground(&mut w);
        let mut caps = Vec::new();
        for k in 0..40 {
            let p = Vec3::new(
                (k % 4) as f32 * 0.9 - 1.35,
                0.5 + 0.6 * (k / 4) as f32,
                ((k * 7) % 5) as f32 * 0.4 - 0.8,
            );
            let q = Quat::from_euler(glam::EulerRot::XYZ, 0.3 * k as f32, 0.7 * k as f32, 0.1);
            let shape = match k % 4 {
                0 | 2 => ShapeDef::capsule(0.3, 0.15),
                1 => ShapeDef::sphere(0.2),
                _ => ShapeDef::cuboid(Vec3::new(0.2, 0.15, 0.25)),
            };
            let b = body(&mut w, BodyType::Dynamic, p, q, shape);
            if k % 4 != 1 && k % 4 != 3 {
                caps.push(b);
            }
        }
        for _ in 0..240 {
            w.step(DT).unwrap();
        }
        let lowest = caps
            .iter()
            .map(|&c| w.body_position(c).unwrap().y)
            .fold(f32::MAX, f32::min);
        (w.state_hash(), lowest)
    };
    let (h1, low) = run(1);
    let (h2, _) = run(2);
    assert_eq!(h1, h2);
    assert!(low > 0.14, "a capsule sank to {low}");
}

/// Point and shape overlaps against a capsule lying along x at the origin (radius 0.5,
/// core from x = -1 to 1), and a capsule query shape against a box.
#[test]
fn overlap_queries_see_capsules() {
    let mut w = world(1);
    let c = body(
        &mut w,
        BodyType::Static,
        Vec3::ZERO,
        Quat::from_rotation_z(FRAC_PI_2),
        ShapeDef::capsule(1.0, 0.5),
    );
    let f = QueryFilter::default();
    let shape = w.body_shapes(c).unwrap()[0];
    let inside = [
        Vec3::new(1.3, 0.2, 0.0),
        Vec3::new(0.0, 0.0, 0.49),
        Vec3::ZERO,
    ];
    for p in inside {
        assert_eq!(w.overlap_point(p, &f).unwrap(), vec![shape], "{p}");
    }
    let outside = [
        Vec3::new(1.4, 0.4, 0.0),
        Vec3::new(0.0, 0.51, 0.0),
        Vec3::X * 1.51,
    ];
    for p in outside {
        assert!(w.overlap_point(p, &f).unwrap().is_empty(), "{p}");
    }
    // A capsule query: upright above the cap, touching or not.
    let probe = Shape::Capsule {
        half_height: 0.5,
        radius: 0.2,
    };
    let near = impetus::Transform::new(Vec3::new(1.0, 1.19, 0.0), Quat::IDENTITY);
    let far = impetus::Transform::new(Vec3::new(1.0, 1.21, 0.0), Quat::IDENTITY);
    assert_eq!(w.overlap_shape(&probe, &near, &f).unwrap(), vec![shape]);
    assert!(w.overlap_shape(&probe, &far, &f).unwrap().is_empty());
    // A capsule swept down onto the lying capsule: first touch when its lower end sphere
    // meets the top of the cylinder, 0.5 + 0.2 above the axis.
    let start = impetus::Transform::new(Vec3::new(0.2, 3.0, 0.0), Quat::IDENTITY);
    let hit = w
        .cast_shape(&probe, &start, Vec3::new(0.0, -4.0, 0.0), &f)
        .unwrap()
        .unwrap();
    let travelled = 4.0 * hit.fraction;
    let expected = 3.0 - 0.5 - 0.7;
    assert!((travelled - expected).abs() < 0.01, "{hit:?}");
    assert!(hit.normal.y > 0.99, "{hit:?}");
}

/// A thin capsule (radius 5 cm) fired at 300 m/s in random orientations at a 5 cm wall, 200
/// times: the time-of-impact sweep (GJK on the segment core) never lets it end a step
/// beyond the wall.
#[test]
fn fast_capsule_never_passes_a_thin_wall() {
    let mut w = World::new(WorldDef {
        worker_count: 1,
        ..Default::default()
    })
    .unwrap();
    let half = 0.025;
    body(
        &mut w,
        BodyType::Static,
        Vec3::ZERO,
        Quat::IDENTITY,
        ShapeDef::cuboid(Vec3::new(half, 2.0, 2.0)),
    );
    let c = body(
        &mut w,
        BodyType::Dynamic,
        Vec3::new(-3.0, 0.0, 0.0),
        Quat::IDENTITY,
        ShapeDef::capsule(0.2, 0.05),
    );
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut unit = || rng.unit();
    let (mut passed, mut stopped) = (0, 0);
    for _ in 0..200 {
        let aim = Vec3::new(-half, unit() * 2.0 - 1.0, unit() * 2.0 - 1.0);
        let q = Quat::from_euler(
            glam::EulerRot::XYZ,
            unit() * 6.0,
            unit() * 6.0,
            unit() * 6.0,
        );
        let start = aim - Vec3::X * (0.5 + 6.0 * unit());
        w.set_body_transform(c, start, q).unwrap();
        w.set_body_linear_velocity(c, Vec3::X * 300.0).unwrap();
        w.set_body_angular_velocity(c, Vec3::ZERO).unwrap();
        let (mut through, mut hit) = (false, false);
        for _ in 0..4 {
            w.step(DT).unwrap();
            through |= w.body_position(c).unwrap().x >= half;
            hit |= w.profile().impacts > 0;
        }
        passed += usize::from(through);
        stopped += usize::from(hit);
    }
    assert_eq!(passed, 0, "shots through the wall");
    assert!(stopped > 150, "most shots need the sweep: {stopped}");
}

/// A pair that an update found apart by a known gap is skipped while the shapes' relative
/// pose moves by less than that gap's lead over the speculative distance (see
/// `contact::APART_BY_GAP`); a world restored from a state keeps no such gap and updates
/// every pair in full. A heap of spheres, capsules and boxes restored from the stepped world
/// before each of its steps steps to the same state every time.
#[test]
fn pairs_skipped_by_their_gap_step_as_pairs_updated_in_full() {
    let build = |w: &mut World| {
        ground(w);
        let mut rng = Rng::new(5);
        for k in 0..120 {
            let shape = match k % 3 {
                0 => ShapeDef::sphere(rng.range(0.25, 0.5)),
                1 => ShapeDef::capsule(rng.range(0.1, 0.5), rng.range(0.2, 0.35)),
                _ => ShapeDef::cuboid(rng.vec(Vec3::splat(0.25), Vec3::splat(0.5))),
            };
            let at = rng.vec(Vec3::new(-2.5, 0.6, -2.5), Vec3::new(2.5, 7.0, 2.5));
            let turn = rng.rotation();
            body(w, BodyType::Dynamic, at, turn, shape);
        }
    };
    let (mut w, mut copy) = (world(1), world(1));
    build(&mut w);
    build(&mut copy);
    let mut state = Vec::new();
    for step in 0..300 {
        state.clear();
        w.save_state(&mut state);
        copy.restore_state(&state).unwrap();
        w.step(DT).unwrap();
        copy.step(DT).unwrap();
        assert_eq!(w.state_hash(), copy.state_hash(), "step {step}");
    }
}
