//! Torque-free rotation against its invariants and closed forms: a box spun about its
//! intermediate axis keeps its angular momentum and kinetic energy while it flips (the
//! tennis-racket effect), and a symmetric top's axis precesses about the angular
//! momentum at `|L| / I₁`; a body dropped from rest does not turn at all.

mod common;

use common::DT;
use impetus::{BodyDef, BodyId, ShapeDef, Vec3, World, WorldDef};

fn free_world() -> World {
    common::world_from(WorldDef {
        gravity: Vec3::ZERO,
        enable_sleep: false,
        ..common::def(1)
    })
}

/// Angular momentum `L = R I Rᵀ ω` and kinetic energy `½ ω·L` of a body, in f64.
fn momentum_energy(w: &World, b: BodyId) -> ([f64; 3], f64) {
    let q = w.body_rotation(b).unwrap();
    let omega = w.body_angular_velocity(b).unwrap();
    let inertia = w.body_mass_properties(b).unwrap().inertia;
    let wb = q.conjugate() * omega;
    let l = q * (inertia * wb);
    let l = [l.x as f64, l.y as f64, l.z as f64];
    let e = 0.5 * (l[0] * omega.x as f64 + l[1] * omega.y as f64 + l[2] * omega.z as f64);
    (l, e)
}

fn spun_box(w: &mut World, half: Vec3, omega: Vec3) -> BodyId {
    let b = w
        .create_body(&BodyDef {
            angular_velocity: omega,
            ..Default::default()
        })
        .unwrap();
    w.add_shape(b, &ShapeDef::cuboid(half)).unwrap();
    b
}

#[test]
fn intermediate_axis_flips_and_keeps_momentum_and_energy() {
    let mut w = free_world();
    // Half extents 0.5, 1, 1.5: the intermediate moment is about y. A small tilt off the
    // axis starts the flip.
    let b = spun_box(
        &mut w,
        Vec3::new(0.5, 1.0, 1.5),
        Vec3::new(0.01, 10.0, 0.01),
    );
    let (l0, e0) = momentum_energy(&w, b);
    let l0_len = (l0[0] * l0[0] + l0[1] * l0[1] + l0[2] * l0[2]).sqrt();
    let (mut max_l, mut max_e) = (0.0f64, 0.0f64);
    let mut flips = 0;
    let mut sign = 1.0f32;
    for _ in 0..(60.0 / DT) as usize {
        w.step(DT).unwrap();
        let (l, e) = momentum_energy(&w, b);
        let dl = ((l[0] - l0[0]).powi(2) + (l[1] - l0[1]).powi(2) + (l[2] - l0[2]).powi(2)).sqrt()
            / l0_len;
        max_l = max_l.max(dl);
        max_e = max_e.max(((e - e0) / e0).abs());
        // The body's y axis against the fixed momentum: a flip turns it over.
        let y = w.body_rotation(b).unwrap() * Vec3::Y;
        let along = y.y;
        if along * sign < -0.9 {
            flips += 1;
            sign = -sign;
        }
    }
    println!("momentum drift {max_l:.2e}, energy drift {max_e:.2e}, flips {flips}");
    assert!(
        flips >= 2,
        "the intermediate axis flipped {flips} times in 60 s"
    );
    assert!(
        max_l < 1e-3,
        "angular momentum drifted by {max_l:.3e} (relative)"
    );
    assert!(
        max_e < 5e-3,
        "kinetic energy drifted by {max_e:.3e} (relative)"
    );
}

#[test]
fn symmetric_top_precesses_at_the_closed_form_rate() {
    let mut w = free_world();
    // A flat box with a square face: I₁ = I₂ about x and z, I₃ about y. Spin mostly about
    // y with some x: the y axis cones about L at Ω = |L| / I₁.
    let b = spun_box(&mut w, Vec3::new(1.0, 0.25, 1.0), Vec3::new(2.0, 8.0, 0.0));
    let inertia = w.body_mass_properties(b).unwrap().inertia;
    let (l, _) = momentum_energy(&w, b);
    let l = Vec3::new(l[0] as f32, l[1] as f32, l[2] as f32);
    let expected = l.length() / inertia.x;
    let axis = l.normalize();
    // The symmetry axis's angle about L, unwrapped, over 10 s.
    let (u, v) = (
        axis.any_orthonormal_vector(),
        axis.cross(axis.any_orthonormal_vector()),
    );
    let angle_of = |w: &World| {
        let y = w.body_rotation(b).unwrap() * Vec3::Y;
        y.dot(v).atan2(y.dot(u))
    };
    let (mut total, mut last) = (0.0f32, angle_of(&w));
    let seconds = 10.0;
    for _ in 0..(seconds / DT) as usize {
        w.step(DT).unwrap();
        let a = angle_of(&w);
        let mut d = a - last;
        if d > std::f32::consts::PI {
            d -= std::f32::consts::TAU;
        } else if d < -std::f32::consts::PI {
            d += std::f32::consts::TAU;
        }
        total += d;
        last = a;
    }
    let rate = total / seconds;
    println!("precession {rate:.4} rad/s, closed form {expected:.4} rad/s");
    assert!(
        ((rate - expected) / expected).abs() < 0.02,
        "precession {rate} rad/s, closed form {expected} rad/s"
    );
}

/// A box or capsule dropped from rest falls without turning: its rotation stays what it
/// was, to the bit, whatever its orientation (the free rotation's chain, run at ω = 0,
/// used to round it).
#[test]
fn a_body_dropped_from_rest_keeps_its_rotation_exactly() {
    let mut w = common::world_from(WorldDef {
        enable_sleep: false,
        ..common::def(1)
    });
    let mut dropped = Vec::new();
    for k in 0..64 {
        let t = k as f32;
        let axis = Vec3::new((1.3 * t).sin(), (0.7 * t).cos(), 0.4 + (0.3 * t).sin()).normalize();
        let rotation = impetus::Quat::from_axis_angle(axis, 0.37 * t + 0.1);
        let b = w
            .create_body(&BodyDef {
                position: Vec3::new(3.0 * (k % 8) as f32, 50.0, 3.0 * (k / 8) as f32),
                rotation,
                ..Default::default()
            })
            .unwrap();
        let shape = if k % 2 == 0 {
            ShapeDef::cuboid(Vec3::new(0.3, 0.5, 0.7))
        } else {
            ShapeDef::capsule(0.4, 0.25)
        };
        w.add_shape(b, &shape).unwrap();
        dropped.push((b, w.body_rotation(b).unwrap()));
    }
    for _ in 0..60 {
        w.step(DT).unwrap();
    }
    for (b, q) in dropped {
        assert!(
            w.body_linear_velocity(b).unwrap().y < -5.0,
            "the body falls"
        );
        assert_eq!(w.body_angular_velocity(b).unwrap(), Vec3::ZERO);
        assert_eq!(w.body_rotation(b).unwrap().to_array(), q.to_array());
    }
}
