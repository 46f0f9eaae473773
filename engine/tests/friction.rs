//! Static and kinetic friction against their closed forms: a block on a ramp holds below
//! `atan(μs)` and slides above it at `g (sin θ − μk cos θ)`; a block thrown across flat
//! ground stops after `v² / (2 μk g)`; a ball rolling on flat ground with rolling
//! resistance stops after `7 v² / (10 μr g)`.
//!
//! The ramp is the ground with gravity tilted by θ: the same contact as a tilted ramp,
//! without a ramp's edges.

mod common;

use common::DT;
use impetus::{BodyDef, BodyId, BodyType, ShapeDef, Vec3, World, WorldDef};

const G: f32 = 10.0;
const MU_S: f32 = 0.6;
const MU_K: f32 = 0.4;

fn world(gravity: Vec3) -> World {
    common::world_from(WorldDef {
        gravity,
        enable_sleep: false,
        ..common::def(1)
    })
}

fn ground(w: &mut World, shape: ShapeDef) {
    let g = w
        .create_body(&BodyDef {
            body_type: BodyType::Static,
            position: Vec3::new(0.0, -1.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    w.add_shape(
        g,
        &shape.clone_with(ShapeDef::cuboid(Vec3::new(200.0, 1.0, 20.0))),
    )
    .unwrap();
}

trait Material {
    fn clone_with(&self, geometry: ShapeDef) -> ShapeDef;
}

impl Material for ShapeDef {
    /// `geometry`'s shape with this definition's material.
    fn clone_with(&self, geometry: ShapeDef) -> ShapeDef {
        ShapeDef {
            shape: geometry.shape,
            ..self.clone()
        }
    }
}

fn material() -> ShapeDef {
    ShapeDef::cuboid(Vec3::ONE)
        .with_friction(MU_K)
        .with_static_friction(MU_S)
}

fn block(w: &mut World) -> BodyId {
    let b = w
        .create_body(&BodyDef {
            position: Vec3::new(0.0, 0.25, 0.0),
            ..Default::default()
        })
        .unwrap();
    w.add_shape(
        b,
        &material().clone_with(ShapeDef::cuboid(Vec3::new(0.5, 0.25, 0.5))),
    )
    .unwrap();
    b
}

/// A block at rest on a ramp of `degrees`: its speed down the slope at 1 s and 2 s and
/// how far it went in 2 s.
fn ramp(degrees: f32) -> (f32, f32, f32) {
    let theta = degrees.to_radians();
    let mut w = world(G * Vec3::new(theta.sin(), -theta.cos(), 0.0));
    ground(&mut w, material());
    let b = block(&mut w);
    let x0 = w.body_position(b).unwrap().x;
    let (mut v1, mut v2) = (0.0, 0.0);
    for i in 1..=120 {
        w.step(DT).unwrap();
        let v = w.body_linear_velocity(b).unwrap().x;
        if i == 60 {
            v1 = v;
        }
        if i == 120 {
            v2 = v;
        }
    }
    (v1, v2, w.body_position(b).unwrap().x - x0)
}

#[test]
fn block_holds_below_the_static_angle() {
    // atan(0.4) = 21.8°, atan(0.6) = 31.0°: between them only static friction holds.
    for degrees in [10.0, 20.0, 25.0, 30.0] {
        let (_, v, d) = ramp(degrees);
        assert!(d.abs() < 1e-3, "{degrees}°: the block crept {d} m");
        assert!(v.abs() < 1e-3, "{degrees}°: speed {v} m/s");
    }
}

#[test]
fn block_slides_above_the_static_angle_at_the_kinetic_rate() {
    for degrees in [32.0f32, 40.0, 50.0] {
        let theta = degrees.to_radians();
        let expected = G * (theta.sin() - MU_K * theta.cos());
        let (v1, v2, _) = ramp(degrees);
        let a = v2 - v1; // over 1 s
        println!("{degrees}°: {a} m/s², closed form {expected} m/s²");
        assert!(
            (a - expected).abs() < 0.02 * expected,
            "{degrees}°: acceleration {a} m/s², closed form {expected} m/s²"
        );
    }
}

#[test]
fn thrown_block_stops_at_the_kinetic_distance() {
    for v0 in [2.0f32, 4.0] {
        let mut w = world(Vec3::new(0.0, -G, 0.0));
        ground(&mut w, material());
        let b = block(&mut w);
        for _ in 0..30 {
            w.step(DT).unwrap();
        }
        w.set_body_linear_velocity(b, Vec3::new(v0, 0.0, 0.0))
            .unwrap();
        let x0 = w.body_position(b).unwrap().x;
        for _ in 0..180 {
            w.step(DT).unwrap();
        }
        let v = w.body_linear_velocity(b).unwrap().length();
        let d = w.body_position(b).unwrap().x - x0;
        let expected = v0 * v0 / (2.0 * MU_K * G);
        println!("v0 {v0}: slid {d} m, closed form {expected} m");
        assert!(v < 1e-3, "v0 {v0}: still moving at {v} m/s");
        assert!(
            (d - expected).abs() < 0.02 * expected,
            "v0 {v0}: slid {d} m, closed form {expected} m"
        );
    }
}

#[test]
fn static_friction_defaults_to_the_kinetic_coefficient() {
    let def = ShapeDef::sphere(1.0).with_friction(0.3);
    assert_eq!(def.static_friction, None);
    let def = def.with_static_friction(0.5).with_friction(0.2);
    assert_eq!(def.static_friction, None, "with_friction sets both");
    let mut w = world(Vec3::new(0.0, -G, 0.0));
    let b = w.create_body(&BodyDef::default()).unwrap();
    let err = w
        .add_shape(b, &ShapeDef::sphere(1.0).with_static_friction(f32::NAN))
        .unwrap_err();
    assert!(
        err.to_string().contains("ShapeDef::static_friction"),
        "{err}"
    );
}

#[test]
fn rolling_ball_stops_at_the_rolling_resistance_distance() {
    let (radius, mu_r) = (0.2f32, 0.1f32);
    for v0 in [1.0f32, 2.0] {
        let mut w = world(Vec3::new(0.0, -G, 0.0));
        ground(&mut w, ShapeDef::sphere(1.0).with_rolling_resistance(mu_r));
        let b = w
            .create_body(&BodyDef {
                position: Vec3::new(0.0, radius, 0.0),
                ..Default::default()
            })
            .unwrap();
        w.add_shape(b, &ShapeDef::sphere(radius).with_rolling_resistance(mu_r))
            .unwrap();
        for _ in 0..30 {
            w.step(DT).unwrap();
        }
        // Rolling without slipping along +x: ω = v / R about −z.
        w.set_body_linear_velocity(b, Vec3::new(v0, 0.0, 0.0))
            .unwrap();
        w.set_body_angular_velocity(b, Vec3::new(0.0, 0.0, -v0 / radius))
            .unwrap();
        let x0 = w.body_position(b).unwrap().x;
        for _ in 0..360 {
            w.step(DT).unwrap();
        }
        let v = w.body_linear_velocity(b).unwrap().length();
        let d = w.body_position(b).unwrap().x - x0;
        let expected = 7.0 * v0 * v0 / (10.0 * mu_r * G);
        println!("v0 {v0}: rolled {d} m, closed form {expected} m, speed {v}");
        assert!(v < 1e-3, "v0 {v0}: still rolling at {v} m/s");
        assert!(
            (d - expected).abs() < 0.02 * expected,
            "v0 {v0}: rolled {d} m, closed form {expected} m"
        );
    }
    // Without it a ball rolls on.
    let mut w = world(Vec3::new(0.0, -G, 0.0));
    ground(&mut w, ShapeDef::sphere(1.0));
    let b = w
        .create_body(&BodyDef {
            position: Vec3::new(0.0, radius, 0.0),
            linear_velocity: Vec3::new(1.0, 0.0, 0.0),
            angular_velocity: Vec3::new(0.0, 0.0, -1.0 / radius),
            ..Default::default()
        })
        .unwrap();
    w.add_shape(b, &ShapeDef::sphere(radius)).unwrap();
    for _ in 0..120 {
        w.step(DT).unwrap();
    }
    let v = w.body_linear_velocity(b).unwrap().x;
    assert!(
        (v - 1.0).abs() < 0.01,
        "a ball without rolling resistance slowed to {v}"
    );
    let err = ShapeDef::sphere(1.0)
        .with_rolling_resistance(-1.0)
        .validate()
        .unwrap_err();
    assert!(
        err.to_string().contains("ShapeDef::rolling_resistance"),
        "{err}"
    );
}
