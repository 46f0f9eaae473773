//! Drag and buoyancy against closed forms: floating draft `V_sub / V = ρ_body / ρ_fluid`,
//! terminal velocity `sqrt(2 m g / (ρ Cd A))`, rafts that right themselves.

mod common;

use common::DT;
use impetus::{BodyDef, BodyId, Error, Fluid, FluidId, Quat, ShapeDef, Vec3, World, WorldDef};
use std::f32::consts::PI;

const G: f32 = 9.81;

fn world() -> World {
    common::world(Vec3::new(0.0, -G, 0.0), 1)
}

/// Water damping the velocity of what it holds at `drag` per second (times the submerged
/// fraction).
fn water(w: &mut World, drag: f32) -> FluidId {
    w.add_fluid(&Fluid {
        density: 1000.0,
        linear_drag: drag,
        angular_drag: drag,
        ..Default::default()
    })
    .unwrap()
}

fn body(w: &mut World, def: BodyDef, shape: ShapeDef) -> BodyId {
    let b = w.create_body(&def).unwrap();
    w.add_shape(b, &shape).unwrap();
    b
}

fn run(w: &mut World, seconds: f32) {
    for _ in 0..(seconds / DT).round() as usize {
        w.step(DT).unwrap();
    }
}

/// Submerged fraction of a sphere of radius `r` whose centre is at height `y` above a
/// surface at 0 (the spherical cap, independent of the engine's code).
fn cap_fraction(r: f32, y: f32) -> f32 {
    let h = (r - y).clamp(0.0, 2.0 * r);
    (PI * h * h * (3.0 * r - h) / 3.0) / (4.0 / 3.0 * PI * r * r * r)
}

#[test]
fn light_sphere_floats_at_its_draft() {
    for (density, inner) in [(200.0, 0.0), (600.0, 0.0), (2000.0, 0.45)] {
        let mut w = world();
        // Strong damping: a bobbing sphere 20% under has a fifth of it.
        let fluid = water(&mut w, 10.0);
        let r = 0.5;
        let shape = ShapeDef::sphere(r)
            .with_density(density)
            .with_inner_radius(inner);
        let b = body(
            &mut w,
            BodyDef {
                position: Vec3::new(0.0, 1.0, 0.0),
                ..Default::default()
            },
            shape,
        );
        run(&mut w, 30.0);
        let y = w.body_position(b).unwrap().y;
        let mass = w.body_mass_properties(b).unwrap().mass;
        let volume = 4.0 / 3.0 * PI * r * r * r;
        let expected = mass / volume / 1000.0; // ρ_body / ρ_water
        let got = cap_fraction(r, y);
        let engine = w.submersion(b, fluid).unwrap().fraction();
        println!(
            "sphere ρ {density} inner {inner}: submerged {got:.4} (engine {engine:.4}), closed form {expected:.4}, y {y:.4}, |v| {:.2e}",
            w.body_linear_velocity(b).unwrap().length()
        );
        assert!(
            (got - expected).abs() < 0.02 * expected,
            "{got} vs {expected}"
        );
        assert!((engine - got).abs() < 1e-3);
        assert!(w.body_linear_velocity(b).unwrap().length() < 1e-3);
    }
}

#[test]
fn steel_sphere_sinks() {
    let mut w = world();
    water(&mut w, 3.0);
    let b = body(
        &mut w,
        BodyDef {
            position: Vec3::new(0.0, 1.0, 0.0),
            ..Default::default()
        },
        ShapeDef::sphere(0.1).with_density(7850.0),
    );
    run(&mut w, 3.0);
    let p = w.body_position(b).unwrap();
    let v = w.body_linear_velocity(b).unwrap();
    println!("steel sphere after 3 s: y {:.2}, v_y {:.3}", p.y, v.y);
    assert!(p.y < -1.0, "y {}", p.y);
    assert!(v.y < -0.5);
    // Sinking speed where water damping balances the net weight:
    // c v = g (1 - ρ_w / ρ_s)  =>  v = 9.81 (1 - 1000/7850) / 3.
    let expected = G * (1.0 - 1000.0 / 7850.0) / 3.0;
    assert!(
        (v.y + expected).abs() < 0.02 * expected,
        "{} vs {expected}",
        -v.y
    );
}

#[test]
fn raft_floats_half_submerged_and_rights_itself() {
    let mut w = world();
    let fluid = water(&mut w, 3.0);
    // A raft 2 x 0.5 x 2 m (a cube of relative density 0.5 floats tilted, which is right:
    // cubes are stable upright only below ~0.21 or above ~0.79).
    let e = Vec3::new(1.0, 0.25, 1.0);
    let b = body(
        &mut w,
        BodyDef {
            position: Vec3::new(0.0, 0.5, 0.0),
            rotation: Quat::from_rotation_z(10f32.to_radians()),
            ..Default::default()
        },
        ShapeDef::cuboid(e).with_density(500.0),
    );
    run(&mut w, 20.0);
    let xf = w.body_transform(b).unwrap();
    let tilt = (xf.q * Vec3::Y).angle_between(Vec3::Y).to_degrees();
    let sub = w.submersion(b, fluid).unwrap();
    println!(
        "raft ρ 500: submerged {:.4} (closed form 0.5), centre y {:.4}, tilt {tilt:.3}°",
        sub.fraction(),
        xf.p.y
    );
    assert!((sub.fraction() - 0.5).abs() < 0.01);
    assert!(
        xf.p.y.abs() < 0.01 * 2.0 * e.y,
        "draft: centre at {}",
        xf.p.y
    );
    assert!(tilt < 0.5, "tilt {tilt}°");
}

#[test]
fn cube_of_half_density_displaces_half_its_volume() {
    let mut w = world();
    let fluid = water(&mut w, 3.0);
    let b = body(
        &mut w,
        BodyDef {
            position: Vec3::new(0.0, 0.2, 0.0),
            rotation: Quat::from_rotation_x(0.2),
            ..Default::default()
        },
        ShapeDef::cuboid(Vec3::splat(0.5)).with_density(500.0),
    );
    run(&mut w, 30.0);
    let sub = w.submersion(b, fluid).unwrap();
    let tilt = (w.body_rotation(b).unwrap() * Vec3::Y)
        .angle_between(Vec3::Y)
        .to_degrees();
    println!(
        "cube ρ 500: submerged {:.4}, tilt {tilt:.1}° (an upright cube is unstable at this density)",
        sub.fraction()
    );
    assert!((sub.fraction() - 0.5).abs() < 0.01);
}

/// Terminal velocity of a dropped body, against `sqrt(2 m g / (ρ Cd A))`.
fn terminal(shape: ShapeDef, cd: f32, area: f32) -> (f32, f32) {
    let mut w = world();
    let b = body(
        &mut w,
        BodyDef {
            position: Vec3::new(0.0, 1000.0, 0.0),
            drag_coefficient: cd,
            ..Default::default()
        },
        shape,
    );
    run(&mut w, 15.0);
    let v = w.body_linear_velocity(b).unwrap();
    let m = w.body_mass_properties(b).unwrap().mass;
    let expected = (2.0 * m * G / (1.225 * cd * area)).sqrt();
    (-v.y, expected)
}

#[test]
fn falling_bodies_reach_terminal_velocity() {
    let (v, expected) = terminal(ShapeDef::sphere(0.5).with_density(10.0), 0.47, PI * 0.25);
    println!("sphere: terminal {v:.4} m/s, formula {expected:.4}");
    assert!((v - expected).abs() < 0.02 * expected, "{v} vs {expected}");
    // A flat plate falls face down (drag acts at the centre: no torque).
    let e = Vec3::new(0.5, 0.05, 0.5);
    let (v, expected) = terminal(ShapeDef::cuboid(e).with_density(20.0), 1.17, 1.0);
    println!("plate: terminal {v:.4} m/s, formula {expected:.4}");
    assert!((v - expected).abs() < 0.02 * expected, "{v} vs {expected}");
}

#[test]
fn drag_never_reverses_a_body() {
    // A very light, very draggy body thrown fast: the explicit drag would overshoot
    // (½ ρ v² Cd A dt / m = 900 m/s of change against 100 m/s); the clamp stops it instead.
    let mut w = world();
    w.set_gravity(Vec3::ZERO).unwrap();
    let b = body(
        &mut w,
        BodyDef {
            linear_velocity: Vec3::new(100.0, 0.0, 0.0),
            drag_coefficient: 1.0,
            ..Default::default()
        },
        ShapeDef::sphere(0.5).with_density(0.1),
    );
    for _ in 0..10 {
        w.step(DT).unwrap();
        let v = w.body_linear_velocity(b).unwrap();
        assert!(v.x >= 0.0 && v.x.is_finite(), "v {v}");
    }
}

#[test]
fn bad_input_names_the_field() {
    let field = |e: Error| match e {
        Error::InvalidInput { field, .. } => field,
        other => panic!("expected InvalidInput, got {other:?}"),
    };
    let mut w = world();
    let bad = [
        (
            Fluid {
                density: -1.0,
                ..Default::default()
            },
            "Fluid::density",
        ),
        (
            Fluid {
                surface_normal: Vec3::new(0.0, 2.0, 0.0),
                ..Default::default()
            },
            "Fluid::surface_normal",
        ),
        (
            Fluid {
                surface_offset: f32::NAN,
                ..Default::default()
            },
            "Fluid::surface_offset",
        ),
        (
            Fluid {
                linear_drag: f32::INFINITY,
                ..Default::default()
            },
            "Fluid::linear_drag",
        ),
        (
            Fluid {
                angular_drag: -0.5,
                ..Default::default()
            },
            "Fluid::angular_drag",
        ),
        (
            Fluid {
                velocity: Vec3::NAN,
                ..Default::default()
            },
            "Fluid::velocity",
        ),
    ];
    for (fluid, name) in bad {
        assert_eq!(field(w.add_fluid(&fluid).unwrap_err()), name);
    }
    let def = BodyDef {
        drag_coefficient: -1.0,
        ..Default::default()
    };
    assert_eq!(
        field(w.create_body(&def).unwrap_err()),
        "BodyDef::drag_coefficient"
    );
    let b = w.create_body(&BodyDef::default()).unwrap();
    assert_eq!(
        field(w.set_body_drag_coefficient(b, f32::NAN).unwrap_err()),
        "drag_coefficient"
    );
    assert_eq!(
        field(
            World::new(WorldDef {
                air_density: -1.0,
                ..Default::default()
            })
            .err()
            .unwrap()
        ),
        "WorldDef::air_density"
    );
    let f = w.add_fluid(&Fluid::default()).unwrap();
    w.remove_fluid(f).unwrap();
    assert_eq!(
        w.remove_fluid(f).unwrap_err(),
        Error::StaleHandle { kind: "FluidId" }
    );
    assert!(w.submersion(b, f).is_err());
    w.remove_body(b).unwrap();
    assert!(w.set_body_drag_coefficient(b, 1.0).is_err());
}
