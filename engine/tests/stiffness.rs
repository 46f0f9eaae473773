//! Stiffness under load: how far contacts give under what they carry, whether stacks come
//! to rest, and how far a loaded chain stretches (see the solver's module doc,
//! "Stiffness under load").

mod common;

use common::DT;
use impetus::{
    BodyDef, BodyId, BodyType, JointDef, JointKind, Quat, ShapeDef, Vec3, World, WorldDef,
};

fn world(contact_hertz: f32) -> World {
    common::world_from(WorldDef {
        enable_sleep: false,
        contact_hertz,
        ..common::def(1)
    })
}

fn ground(w: &mut World) {
    let g = w
        .create_body(&BodyDef {
            body_type: BodyType::Static,
            position: Vec3::new(0.0, -1.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    w.add_shape(g, &ShapeDef::cuboid(Vec3::new(50.0, 1.0, 50.0)))
        .unwrap();
}

fn unit_box(w: &mut World, position: Vec3, rotation: Quat, density: f32) -> BodyId {
    let b = w
        .create_body(&BodyDef {
            position,
            rotation,
            ..Default::default()
        })
        .unwrap();
    w.add_shape(b, &ShapeDef::cuboid(Vec3::splat(0.5)).with_density(density))
        .unwrap();
    b
}

/// The deepest overlap of any contact point, in m.
fn max_penetration(w: &World) -> f32 {
    w.contacts()
        .flat_map(|c| c.points.into_iter().map(|p| -p.separation))
        .fold(0.0, f32::max)
}

fn max_speed(w: &World, bodies: &[BodyId]) -> f32 {
    bodies
        .iter()
        .map(|&b| w.body_linear_velocity(b).unwrap().length())
        .fold(0.0, f32::max)
}

/// A light unit box (100 kg) with a box `ratio` times heavier resting on it, after 300
/// steps: the deepest penetration of any contact, in m. Panics if the stack fell.
fn heavy_on_light(ratio: f32) -> f32 {
    let mut w = world(30.0);
    ground(&mut w);
    unit_box(&mut w, Vec3::new(0.0, 0.5, 0.0), Quat::IDENTITY, 100.0);
    let top = unit_box(
        &mut w,
        Vec3::new(0.0, 1.5, 0.0),
        Quat::IDENTITY,
        100.0 * ratio,
    );
    for _ in 0..300 {
        w.step(DT).unwrap();
    }
    let y = w.body_position(top).unwrap().y;
    assert!((y - 1.5).abs() < 0.4, "the 1:{ratio} stack fell: y = {y}");
    max_penetration(&w)
}

/// A column of `n` unit boxes 1.1 m apart from y = 1 (they drop 0.1 m onto each other),
/// each tilted a little about its own axis, after `steps` steps: (total compression in m,
/// max speed in m/s).
fn column(n: usize, contact_hertz: f32, steps: usize) -> (f32, f32) {
    let mut w = world(contact_hertz);
    ground(&mut w);
    let mut bodies = Vec::new();
    for i in 0..n {
        let k = i as f32;
        let axis = Vec3::new((1.7 * k).sin(), 0.3, (2.3 * k).cos()).normalize();
        let tilt = Quat::from_axis_angle(axis, 0.04 * (0.9 * k).sin());
        bodies.push(unit_box(
            &mut w,
            Vec3::new(0.0, 1.0 + 1.1 * k, 0.0),
            tilt,
            100.0,
        ));
    }
    for _ in 0..steps {
        w.step(DT).unwrap();
    }
    let top = w.body_position(*bodies.last().unwrap()).unwrap().y + 0.5;
    (n as f32 - top, max_speed(&w, &bodies))
}

#[test]
fn light_load_sinks_little() {
    let p = heavy_on_light(10.0);
    println!("1:10: penetration {:.2} mm", 1e3 * p);
    assert!(p < 0.005, "1:10 sinks {:.1} mm", 1e3 * p);
}

/// Drops a column of `n` boxes at `contact_hertz` and checks that after 600 steps it
/// moves slower than `max_speed` (m/s) and shortened by less than `max_compression` (m).
fn assert_column(n: usize, contact_hertz: f32, max_speed: f32, max_compression: f32) {
    let (c, v) = column(n, contact_hertz, 600);
    println!(
        "{n} boxes at {contact_hertz} Hz: compression {:.2} mm, max speed {v:.5} m/s",
        1e3 * c
    );
    assert!(v < max_speed, "{n}-box column still moves at {v} m/s");
    assert!(
        c < max_compression,
        "{n}-box column shortened by {:.1} mm",
        1e3 * c
    );
}

#[test]
fn short_column_comes_to_rest() {
    assert_column(10, 30.0, 0.005, 0.05);
}

/// Regression: a four-point manifold's corner loads drift in the direction that moves no
/// body (see `solver::contact::null_impulses`) until the box stands on a diagonal and
/// rocks. Before the drift was taken out, three boxes at 60 Hz rocked at 0.030 m/s
/// after 10 s; now they rest.
#[test]
fn stiffer_short_column_does_not_rock() {
    assert_column(3, 60.0, 0.001, 0.01);
}

/// A chain of `links` capsules (1 kg each, 0.5 m between joints) hanging from a static
/// anchor with a ball of `end_mass` kg at its end, after `steps` steps: the largest
/// stretch of a joint relative to the link length, and the end ball's speed.
fn loaded_chain(links: usize, end_mass: f32, steps: usize) -> (f32, f32) {
    let mut w = world(30.0);
    let top = Vec3::new(0.0, 60.0, 0.0);
    let anchor = w
        .create_body(&BodyDef {
            body_type: BodyType::Static,
            position: top,
            ..Default::default()
        })
        .unwrap();
    let (half, radius) = (0.2, 0.05);
    let length = 2.0 * (half + radius);
    let volume = std::f32::consts::PI * radius * radius * (2.0 * half + 4.0 / 3.0 * radius);
    let mut prev = anchor;
    let mut joints = vec![];
    let mut join = |w: &mut World, a: BodyId, b: BodyId, at: Vec3| {
        let (xa, xb) = (w.body_transform(a).unwrap(), w.body_transform(b).unwrap());
        let def = JointDef::at_world(JointKind::Ball, a, &xa, b, &xb, at, Vec3::Z);
        joints.push(w.create_joint(&def).unwrap());
    };
    for k in 0..links {
        let b = w
            .create_body(&BodyDef {
                position: top - Vec3::Y * (length * (k as f32 + 0.5)),
                ..Default::default()
            })
            .unwrap();
        w.add_shape(
            b,
            &ShapeDef::capsule(half, radius).with_density(1.0 / volume),
        )
        .unwrap();
        join(&mut w, prev, b, top - Vec3::Y * (length * k as f32));
        prev = b;
    }
    let r = 0.3;
    let end = top - Vec3::Y * (length * links as f32);
    let ball = w
        .create_body(&BodyDef {
            position: end - Vec3::Y * r,
            ..Default::default()
        })
        .unwrap();
    let density = end_mass / (4.0 / 3.0 * std::f32::consts::PI * r * r * r);
    w.add_shape(ball, &ShapeDef::sphere(r).with_density(density))
        .unwrap();
    join(&mut w, prev, ball, end);
    for _ in 0..steps {
        w.step(DT).unwrap();
    }
    let mut worst = 0.0f32;
    for &j in &joints {
        let def = w.joint_def(j).unwrap();
        let xa = w.body_transform(def.body_a).unwrap();
        let xb = w.body_transform(def.body_b).unwrap();
        let d = xa.transform_point(def.frame_a.p) - xb.transform_point(def.frame_b.p);
        worst = worst.max(d.length() / length);
    }
    (worst, w.body_linear_velocity(ball).unwrap().length())
}

/// 100 links of 1 kg holding 100 kg: the chain is a tree of ball joints, solved exactly.
#[test]
fn loaded_chain_does_not_stretch() {
    let (stretch, v) = loaded_chain(100, 100.0, 300);
    println!(
        "chain: stretch {:.3} % of a link, end speed {v:.4} m/s",
        100.0 * stretch
    );
    assert!(stretch < 0.01, "a link stretches {:.2} %", 100.0 * stretch);
    assert!(v < 0.01, "the end mass still moves at {v} m/s");
}

/// A stack of unit boxes of `densities` (bottom to top; kg/m³, so also kg) on the ground,
/// exactly touching, the top one shifted `offset` m along x and turned `turn` rad about y,
/// pushed at its centre by `push` N for the whole run, after `steps` steps: (the deepest
/// overlap, m; the largest displacement of a box, m; the largest speed, m/s).
fn stack(densities: &[f32], offset: f32, turn: f32, push: Vec3, steps: usize) -> (f32, f32, f32) {
    let mut w = world(30.0);
    ground(&mut w);
    let n = densities.len();
    let boxes: Vec<BodyId> = densities
        .iter()
        .enumerate()
        .map(|(i, &density)| {
            let top = i + 1 == n;
            let x = if top { offset } else { 0.0 };
            let r = if top { turn } else { 0.0 };
            let p = Vec3::new(x, 0.5 + i as f32, 0.0);
            unit_box(&mut w, p, Quat::from_rotation_y(r), density)
        })
        .collect();
    let start: Vec<Vec3> = boxes.iter().map(|&b| w.body_position(b).unwrap()).collect();
    for _ in 0..steps {
        let top = *boxes.last().unwrap();
        w.apply_force_to_center(top, push).unwrap();
        w.step(DT).unwrap();
    }
    let moved = boxes
        .iter()
        .zip(&start)
        .map(|(&b, s)| (w.body_position(b).unwrap() - *s).length())
        .fold(0.0, f32::max);
    (max_penetration(&w), moved, max_speed(&w, &boxes))
}

/// Asserts that `stack(...)` rests: overlaps under 10 mm, no box moved 5 cm, at rest.
fn assert_stack_holds(name: &str, (p, moved, v): (f32, f32, f32)) {
    println!(
        "{name}: overlap {:.2} mm, moved {:.4} m, speed {v:.5} m/s",
        1e3 * p,
        moved
    );
    assert!(p < 0.010, "{name}: overlap {:.1} mm", 1e3 * p);
    assert!(moved < 0.05, "{name}: a box moved {moved:.3} m");
    assert!(v < 0.005, "{name}: moving at {v:.4} m/s");
}

/// A 100 kg box under a 10,000 kg one: a soft contact alone sinks 27.9 mm (k = m_eff ω²
/// with m_eff that of the light box); the stack's exact solve holds it.
#[test]
fn heavy_on_light_does_not_sink() {
    let p = heavy_on_light(100.0);
    println!("1:100: penetration {:.2} mm", 1e3 * p);
    assert!(p < 0.010, "1:100 sinks {:.1} mm", 1e3 * p);
}

/// 1:1000 (a 100 t box on a 100 kg one), which a soft contact lets sink a third of a metre
/// and tip off, and the sandwich of `mass_ratio` (10 t, 100 kg, 10 t).
#[test]
fn a_thousand_times_heavier_box_stands_on_a_light_one() {
    assert_stack_holds(
        "1:1000",
        stack(&[100.0, 100_000.0], 0.0, 0.0, Vec3::ZERO, 300),
    );
    assert_stack_holds(
        "10 t, 100 kg, 10 t",
        stack(&[10_000.0, 100.0, 10_000.0], 0.0, 0.0, Vec3::ZERO, 300),
    );
    assert_stack_holds(
        "four light boxes under a heavy one",
        stack(
            &[100.0, 100.0, 100.0, 100.0, 10_000.0],
            0.0,
            0.0,
            Vec3::ZERO,
            300,
        ),
    );
}

/// A heavy box overhanging its light support by 35 %, turned, or pushed sideways by 0.3 g
/// (under μ = 0.6) stays where it is; the exact solve carries the torque through the corners.
#[test]
fn heavy_box_off_centre_or_pushed_stays_on_a_light_one() {
    assert_stack_holds(
        "overhang 0.35 m",
        stack(&[100.0, 100_000.0], 0.35, 0.0, Vec3::ZERO, 300),
    );
    assert_stack_holds(
        "turned 0.5 rad",
        stack(&[100.0, 10_000.0], 0.1, 0.5, Vec3::ZERO, 300),
    );
    let push = Vec3::new(0.3 * 9.81 * 10_000.0, 0.0, 0.0);
    assert_stack_holds(
        "pushed 0.3 g",
        stack(&[100.0, 10_000.0], 0.0, 0.0, push, 300),
    );
}

/// Pushed by 1 g (past what μ = 0.6 holds), the heavy box slides off its light support: the
/// exact solve lets go where friction does, and nothing is thrown.
#[test]
fn heavy_box_pushed_past_friction_slides_off() {
    let push = Vec3::new(9.81 * 10_000.0, 0.0, 0.0);
    let mut w = world(30.0);
    ground(&mut w);
    let light = unit_box(&mut w, Vec3::new(0.0, 0.5, 0.0), Quat::IDENTITY, 100.0);
    let heavy = unit_box(&mut w, Vec3::new(0.0, 1.5, 0.0), Quat::IDENTITY, 10_000.0);
    let mut fastest: f32 = 0.0;
    for step in 0..120 {
        if step < 60 {
            w.apply_force_to_center(heavy, push).unwrap();
        }
        w.step(DT).unwrap();
        fastest = fastest.max(max_speed(&w, &[light, heavy]));
    }
    let (l, h) = (
        w.body_position(light).unwrap(),
        w.body_position(heavy).unwrap(),
    );
    println!("light at {l}, heavy at {h}, fastest {fastest:.2} m/s");
    assert!(h.x > 1.0, "the heavy box did not slide off: x = {}", h.x);
    assert!(h.y < 0.6, "the heavy box did not come down: y = {}", h.y);
    // 1 s of 1 g net of friction cannot give more than 9.81 m/s.
    assert!(fastest < 9.81, "a body was thrown at {fastest:.1} m/s");
    assert!(
        l.y > 0.45 && l.y < 0.55,
        "the light box left the ground: y = {}",
        l.y
    );
}

/// Forty boxes of random sizes and densities (100 to 100,000 kg/m³) dropped one above the
/// other onto the ground, as six different piles: after landing nothing moves faster than
/// its fall (a body thrown by the stacks' exact solve, or falling through the ground, would),
/// nothing sinks into the ground, and each pile comes to rest.
#[test]
fn piles_of_mixed_masses_land_and_rest() {
    for seed in 0..6u32 {
        let mut w = world(30.0);
        ground(&mut w);
        let mut r = seed.wrapping_mul(2_654_435_761).wrapping_add(12_345);
        let mut rnd = move || {
            r ^= r << 13;
            r ^= r >> 17;
            r ^= r << 5;
            (r % 10_000) as f32 / 10_000.0
        };
        let mut bodies = Vec::new();
        for i in 0..40 {
            let p = Vec3::new(rnd() * 3.0 - 1.5, 0.6 + i as f32 * 0.8, rnd() * 3.0 - 1.5);
            let axis = Vec3::new(rnd(), rnd(), rnd()).normalize();
            let q = Quat::from_axis_angle(axis, rnd() * 0.5);
            let half = Vec3::new(0.2 + rnd() * 0.4, 0.15 + rnd() * 0.3, 0.2 + rnd() * 0.4);
            let density = 10f32.powf(2.0 + rnd() * 3.0);
            let b = w
                .create_body(&BodyDef {
                    position: p,
                    rotation: q,
                    ..Default::default()
                })
                .unwrap();
            w.add_shape(b, &ShapeDef::cuboid(half).with_density(density))
                .unwrap();
            bodies.push(b);
        }
        let (mut fastest, mut lowest) = (0.0f32, f32::MAX);
        for step in 0..600 {
            w.step(DT).unwrap();
            if step > 100 {
                fastest = fastest.max(max_speed(&w, &bodies));
            }
            for &b in &bodies {
                lowest = lowest.min(w.body_position(b).unwrap().y);
            }
        }
        let end = max_speed(&w, &bodies);
        println!(
            "pile {seed}: fastest {fastest:.2} m/s, lowest centre {lowest:.3} m, end {end:.4} m/s"
        );
        // The highest box falls 31.8 m: 25 m/s.
        assert!(
            fastest < 26.0,
            "pile {seed}: a body moved at {fastest:.1} m/s"
        );
        assert!(
            lowest > 0.1,
            "pile {seed}: a body's centre went down to {lowest:.3} m"
        );
        assert!(end < 0.01, "pile {seed}: still moving at {end:.4} m/s");
    }
}

/// A stack's exact solve keeps nothing between steps that the saved state lacks: a 1:1000
/// stack saved mid-run and restored steps on to the same state, bit for bit.
#[test]
fn heavy_on_light_resumes_bit_for_bit_from_a_saved_state() {
    let mut w = world(30.0);
    ground(&mut w);
    unit_box(&mut w, Vec3::new(0.0, 0.5, 0.0), Quat::IDENTITY, 100.0);
    let tilt = Quat::from_rotation_z(0.02);
    unit_box(&mut w, Vec3::new(0.1, 1.55, 0.0), tilt, 100_000.0);
    for _ in 0..60 {
        w.step(DT).unwrap();
    }
    let mut saved = Vec::new();
    w.save_state(&mut saved);
    for _ in 0..60 {
        w.step(DT).unwrap();
    }
    let straight = w.state_hash();
    w.restore_state(&saved).unwrap();
    for _ in 0..60 {
        w.step(DT).unwrap();
    }
    assert_eq!(
        w.state_hash(),
        straight,
        "the restored stack stepped differently"
    );
    assert!(
        max_penetration(&w) < 0.010,
        "overlap {} m",
        max_penetration(&w)
    );
}

/// A tilted column of boxes alternately 100 kg and 3 t, dropped 0.1 m onto each other, comes
/// to rest with every overlap under 10 mm.
#[test]
fn tilted_column_of_alternating_masses_comes_to_rest() {
    let mut w = world(30.0);
    ground(&mut w);
    let mut bodies = Vec::new();
    for i in 0..5 {
        let k = i as f32;
        let axis = Vec3::new((1.7 * k).sin(), 0.3, (2.3 * k).cos()).normalize();
        let tilt = Quat::from_axis_angle(axis, 0.04 * (0.9 * k).sin());
        let density = if i % 2 == 1 { 3_000.0 } else { 100.0 };
        let p = Vec3::new(0.0, 1.0 + 1.1 * k, 0.0);
        bodies.push(unit_box(&mut w, p, tilt, density));
    }
    for _ in 0..600 {
        w.step(DT).unwrap();
    }
    let (p, v) = (max_penetration(&w), max_speed(&w, &bodies));
    let top = w.body_position(bodies[4]).unwrap();
    println!("overlap {:.2} mm, speed {v:.5} m/s, top at {top}", 1e3 * p);
    assert!(p < 0.010, "overlap {:.1} mm", 1e3 * p);
    assert!(v < 0.005, "moving at {v:.4} m/s");
    assert!(
        (top.y - 4.5).abs() < 0.05,
        "the column fell or sank: top at y = {}",
        top.y
    );
}

/// Twenty boxes buckle on 30 Hz springs alone (the soft step's stiffness is below the
/// column's critical one beyond ~16 boxes) and sway for ever; a column standing alone is
/// solved exactly along its supports (see the solver's module doc) and stands still.
#[test]
fn tall_column_stands_still() {
    assert_column(20, 30.0, 0.005, 0.020);
}

/// The 25-box column of the towers scene: at rest and compressed by under 25 mm (soft
/// contacts alone: 165 mm, swaying at 0.02 m/s).
#[test]
fn twenty_five_box_column_stands_still() {
    assert_column(25, 30.0, 0.005, 0.025);
}

/// A column standing alone but pushed over tips and falls: the exact solve holds what
/// stands, not what leans past its edge.
#[test]
fn pushed_column_falls() {
    let mut w = world(30.0);
    ground(&mut w);
    let mut bodies = Vec::new();
    for i in 0..8 {
        bodies.push(unit_box(
            &mut w,
            Vec3::new(0.0, 0.5 + i as f32, 0.0),
            Quat::IDENTITY,
            100.0,
        ));
    }
    for _ in 0..60 {
        w.step(DT).unwrap();
    }
    // A shove at the top, far past what the base can hold back.
    let top = *bodies.last().unwrap();
    w.set_body_linear_velocity(top, Vec3::new(4.0, 0.0, 0.0))
        .unwrap();
    for _ in 0..300 {
        w.step(DT).unwrap();
    }
    let p = w.body_position(top).unwrap();
    println!("top after the shove: {p:?}");
    assert!(p.y < 4.0, "the shoved column still stands: top at {p:?}");
    assert!(
        p.is_finite() && p.y > -0.5,
        "the top went through the ground: {p:?}"
    );
}

/// `WorldDef::linear_slop` is a tolerance, not an allowed penetration: a resting box
/// overlaps the ground by what its weight compresses the contact spring by, whatever
/// the slop. Per corner: a quarter of 981 N on `m_eff ω²` = 25 kg · (2π 60 Hz)²
/// (a static contact runs at twice the contact hertz): 0.069 mm.
#[test]
fn resting_overlap_follows_the_spring_not_the_slop() {
    for slop in [0.001, 0.005, 0.05] {
        let mut w = World::new(WorldDef {
            worker_count: 1,
            enable_sleep: false,
            linear_slop: slop,
            speculative_distance: 4.0 * slop,
            ..Default::default()
        })
        .unwrap();
        ground(&mut w);
        unit_box(&mut w, Vec3::new(0.0, 0.5, 0.0), Quat::IDENTITY, 100.0);
        for _ in 0..120 {
            w.step(DT).unwrap();
        }
        let p = max_penetration(&w);
        let spring = 0.25 * 100.0 * 9.81 / (25.0 * (2.0 * std::f32::consts::PI * 60.0).powi(2));
        println!(
            "slop {slop}: overlap {:.4} mm, spring {:.4} mm",
            1e3 * p,
            1e3 * spring
        );
        assert!(
            (p - spring).abs() < 0.1 * spring,
            "slop {slop}: overlap {p}, spring {spring}"
        );
    }
}
