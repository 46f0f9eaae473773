//! Particles, springs, cloth and soft bodies, tested as physics: closed forms of a hanging
//! strand, friction and restitution; cloth at rest on a sphere; momentum kept through the
//! coupling with a rigid body; the ground carrying a box on a cloth; a flag in the wind
//! that gains no energy the wind did not give it; the same hashes for any thread count.

mod common;

use impetus::{
    BodyDef, BodyType, ClothDef, ClothPin, ConvexHull, Error, HeightField, ParticleDef, ShapeDef,
    SoftBodyDef, SpringDef, SpringEnd, TriMesh, Vec3, World, WorldDef,
};
use std::sync::Arc;

const DT: f32 = 1.0 / 60.0;
const G: f32 = 9.81;

fn world(substeps: u32, workers: usize) -> World {
    World::new(WorldDef {
        substeps,
        worker_count: workers,
        ..Default::default()
    })
    .unwrap()
}

fn static_body(w: &mut World, position: Vec3) -> impetus::BodyId {
    w.create_body(&BodyDef {
        body_type: BodyType::Static,
        position,
        ..Default::default()
    })
    .unwrap()
}

/// A strand of `n` particles of `m` kg hanging `spacing` apart from a pinned one, joined
/// by springs of compliance `alpha`, after `steps` steps: its length.
fn strand_length(substeps: u32, alpha: f32, n: usize, m: f32, spacing: f32, steps: usize) -> f32 {
    let mut w = world(substeps, 1);
    let top = w
        .create_particle(&ParticleDef {
            position: Vec3::new(0.0, 2.0, 0.0),
            pinned: true,
            ..Default::default()
        })
        .unwrap();
    let mut last = top;
    for k in 1..=n {
        let p = w
            .create_particle(&ParticleDef {
                position: Vec3::new(0.0, 2.0 - spacing * k as f32, 0.0),
                mass: m,
                // Air drag settles the swinging.
                linear_drag: 0.2 * m,
                ..Default::default()
            })
            .unwrap();
        w.create_spring(
            &SpringDef::new(p, SpringEnd::Particle(last))
                .with_compliance(alpha)
                .with_damping(if alpha > 0.0 { 2.0 } else { 0.0 }),
        )
        .unwrap();
        last = p;
    }
    for _ in 0..steps {
        w.step(DT).unwrap();
    }
    let y_top = w.particle_position(top).unwrap().y;
    y_top - w.particle_position(last).unwrap().y
}

#[test]
fn hanging_strand_stretch_matches_the_xpbd_closed_form() {
    // Spring k from the top carries the n − k + 1 particles under it: the strand
    // stretches by α m g (1 + 2 + ... + n).
    let (n, m, spacing, alpha) = (10, 0.1, 0.1, 0.01);
    let stretch = alpha * m * G * (n * (n + 1) / 2) as f32;
    let expected = n as f32 * spacing + stretch;
    let at4 = strand_length(4, alpha, n, m, spacing, 900);
    let at16 = strand_length(16, alpha, n, m, spacing, 900);
    for (substeps, length) in [(4, at4), (16, at16)] {
        let error = ((length - n as f32 * spacing) - stretch).abs() / stretch;
        println!("substeps {substeps}: length {length:.5} m, closed form {expected:.5} m, stretch error {:.3} %", 100.0 * error);
        assert!(
            error < 0.02,
            "substeps {substeps}: stretch {} vs {stretch}",
            length - n as f32 * spacing
        );
    }
    assert!(
        ((at4 - at16) / (at16 - n as f32 * spacing)).abs() < 0.02,
        "{at4} vs {at16}"
    );
}

#[test]
fn rigid_strand_barely_stretches() {
    let (n, spacing) = (10, 0.1);
    for substeps in [4, 8] {
        let length = strand_length(substeps, 0.0, n, 0.1, spacing, 600);
        let strain = length / (n as f32 * spacing) - 1.0;
        println!("substeps {substeps}: strain {:.4} %", 100.0 * strain);
        assert!(strain.abs() < 0.01, "substeps {substeps}: strain {strain}");
    }
}

/// A strand of rigid springs hanging from a pin is held at its length by the long-range
/// attachments that rigid strands get (one Gauss-Seidel sweep a substep alone lets it
/// stretch as the square of its length: 0.76 %, 1.6 % and 3.3 % at 10, 20 and 40
/// particles, 4 substeps). The worst link is checked too, and a compliant strand still
/// stretches as its springs say (no attachment: see the closed-form test above).
#[test]
fn rigid_strands_hang_at_their_length() {
    let spacing = 0.1;
    for n in [10, 20, 40] {
        let length = strand_length(4, 0.0, n, 0.1, spacing, 600);
        let strain = length / (n as f32 * spacing) - 1.0;
        println!("{n} particles: strain {:.4} %", 100.0 * strain);
        assert!(strain.abs() < 1.0e-3, "{n} particles: strain {strain}");
    }
}

/// The attachments are one-sided and follow the pins: a rigid strand released from its
/// pin falls freely, and a strand swinging sideways from horizontal is not pulled in by
/// them (its length along the links does not fall below its rest length, and its far
/// end swings below the pin).
#[test]
fn rigid_strand_attachments_follow_the_pins() {
    let mut w = world(4, 1);
    let top = w
        .create_particle(&ParticleDef {
            position: Vec3::new(0.0, 5.0, 0.0),
            pinned: true,
            ..Default::default()
        })
        .unwrap();
    let mut chain = vec![top];
    for k in 1..=20 {
        let p = w
            .create_particle(&ParticleDef {
                position: Vec3::new(0.1 * k as f32, 5.0, 0.0),
                mass: 0.1,
                ..Default::default()
            })
            .unwrap();
        w.create_spring(&SpringDef::new(
            p,
            SpringEnd::Particle(*chain.last().unwrap()),
        ))
        .unwrap();
        chain.push(p);
    }
    let path = |w: &World| -> f32 {
        chain
            .windows(2)
            .map(|l| {
                (w.particle_position(l[1]).unwrap() - w.particle_position(l[0]).unwrap()).length()
            })
            .sum()
    };
    for _ in 0..30 {
        w.step(DT).unwrap();
        // Not pulled in (the links' own stretch while the strand whips is theirs).
        assert!(path(&w) > 0.995 * 2.0, "path {}", path(&w));
    }
    let end = w.particle_position(*chain.last().unwrap()).unwrap();
    assert!(end.y < 4.5, "the strand does not swing down: {end}");
    // Unpinned, nothing holds it: it falls as a free body (g t² / 2 = 1.23 m in 0.5 s).
    w.set_particle_pinned(top, false).unwrap();
    let y0 = w.particle_position(top).unwrap().y;
    for _ in 0..30 {
        w.step(DT).unwrap();
    }
    let fell = y0 - w.particle_position(top).unwrap().y;
    assert!(fell > 1.0, "the unpinned strand fell only {fell} m");
}

/// A particle of radius `r` sliding from rest down a slope of `angle` with friction `mu`
/// (the plane's friction is 1, so the combined coefficient is `sqrt(mu)`): its
/// acceleration along the slope over 1 s.
#[test]
fn friction_on_a_slope_matches_the_closed_form() {
    let angle = 30f32.to_radians();
    for mu in [0.04f32, 0.09, 0.16] {
        let mut w = world(4, 1);
        let normal = Vec3::new(-angle.sin(), angle.cos(), 0.0);
        let ground = static_body(&mut w, Vec3::ZERO);
        w.add_shape(ground, &ShapeDef::plane(normal, 0.0).with_friction(1.0))
            .unwrap();
        let r = 0.05;
        let p = w
            .create_particle(&ParticleDef {
                position: normal * r,
                radius: r,
                friction: mu,
                ..Default::default()
            })
            .unwrap();
        let steps = 60;
        for _ in 0..steps {
            w.step(DT).unwrap();
        }
        let t = steps as f32 * DT;
        let down = Vec3::new(-angle.cos(), -angle.sin(), 0.0);
        let travelled = (w.particle_position(p).unwrap() - normal * r).dot(down);
        let mu_eff = mu.sqrt();
        let a = G * (angle.sin() - mu_eff * angle.cos());
        let expected = 0.5 * a * t * t;
        println!("mu {mu_eff}: travelled {travelled:.4} m, closed form {expected:.4} m");
        assert!(
            (travelled - expected).abs() < 0.03 * expected,
            "mu {mu_eff}: {travelled} vs {expected}"
        );
    }
    // Static friction holds: tan 30° = 0.577 < 0.8.
    let mut w = world(4, 1);
    let normal = Vec3::new(-angle.sin(), angle.cos(), 0.0);
    let ground = static_body(&mut w, Vec3::ZERO);
    w.add_shape(ground, &ShapeDef::plane(normal, 0.0).with_friction(1.0))
        .unwrap();
    let p = w
        .create_particle(&ParticleDef {
            position: normal * 0.05,
            radius: 0.05,
            friction: 0.64,
            ..Default::default()
        })
        .unwrap();
    for _ in 0..120 {
        w.step(DT).unwrap();
    }
    let slid = (w.particle_position(p).unwrap() - normal * 0.05).length();
    assert!(slid < 1.0e-3, "slid {slid} m");
}

#[test]
fn restitution_returns_the_closed_form_speed() {
    for e in [0.25f32, 0.5, 0.8] {
        let mut w = world(4, 1);
        let ground = static_body(&mut w, Vec3::ZERO);
        w.add_shape(ground, &ShapeDef::plane(Vec3::Y, 0.0)).unwrap();
        let h = 2.0;
        let p = w
            .create_particle(&ParticleDef {
                position: Vec3::new(0.0, h, 0.0),
                radius: 0.05,
                restitution: e,
                ..Default::default()
            })
            .unwrap();
        let mut peak_after = 0.0f32;
        let mut bounced = false;
        for _ in 0..150 {
            w.step(DT).unwrap();
            let v = w.particle_velocity(p).unwrap().y;
            if v > 0.0 {
                bounced = true;
            }
            if bounced {
                peak_after = peak_after.max(v);
            }
        }
        let impact = (2.0 * G * (h - 0.05)).sqrt();
        println!(
            "e {e}: rebound {peak_after:.4} m/s, closed form {:.4}",
            e * impact
        );
        assert!(
            (peak_after - e * impact).abs() < 0.03 * e * impact,
            "e {e}: {peak_after}"
        );
    }
}

/// A 32 × 32 cloth dropped on a static sphere: at rest on it after 3 s.
#[test]
fn cloth_comes_to_rest_on_a_sphere() {
    let mut w = world(4, 1);
    let ball = static_body(&mut w, Vec3::ZERO);
    let radius = 0.5;
    w.add_shape(ball, &ShapeDef::sphere(radius)).unwrap();
    let n = 32;
    let spacing = 0.04;
    let thickness = 0.01;
    let half = 0.5 * spacing * (n - 1) as f32;
    let cloth = w
        .create_cloth(&ClothDef {
            origin: Vec3::new(-half, radius + 0.1, -half),
            nx: n,
            ny: n,
            spacing,
            mass: 0.5,
            thickness,
            damping: 0.01,
            friction: 0.8,
            // 10 /s: a light fabric's air drag.
            linear_drag: 0.005,
            ..Default::default()
        })
        .unwrap();
    let mut deepest = f32::MAX;
    for _ in 0..180 {
        w.step(DT).unwrap();
        for &p in &cloth.particles {
            deepest = deepest.min(w.particle_position(p).unwrap().length() - radius);
        }
    }
    let fastest = cloth
        .particles
        .iter()
        .map(|&p| w.particle_velocity(p).unwrap().length())
        .fold(0.0, f32::max);
    let top = w.particle_position(cloth.particle(n / 2, n / 2)).unwrap();
    println!(
        "deepest {deepest:.5} m below the surface + thickness, fastest {fastest:.6} m/s, top {top}"
    );
    assert!(
        deepest > -thickness,
        "a particle sank {deepest} m into the sphere"
    );
    assert!(fastest < 1.0e-3, "still moving at {fastest} m/s");
    assert!(
        (top.y - (radius + thickness)).abs() < 0.01,
        "the top rests on the sphere: {top}"
    );
}

/// A cloth thrown at a free sphere in zero gravity: cloth plus sphere keep their momentum.
#[test]
fn cloth_on_a_free_sphere_keeps_total_momentum() {
    let mut w = World::new(WorldDef {
        gravity: Vec3::ZERO,
        worker_count: 1,
        ..Default::default()
    })
    .unwrap();
    let ball = w
        .create_body(&BodyDef {
            position: Vec3::new(0.1, 0.0, 0.05),
            ..Default::default()
        })
        .unwrap();
    w.add_shape(ball, &ShapeDef::sphere(0.4).with_density(20.0))
        .unwrap();
    let n = 16;
    let spacing = 0.05;
    let half = 0.5 * spacing * (n - 1) as f32;
    let cloth = w
        .create_cloth(&ClothDef {
            origin: Vec3::new(-half, 0.6, -half),
            nx: n,
            ny: n,
            spacing,
            mass: 2.0,
            velocity: Vec3::new(0.3, -2.0, 0.0),
            ..Default::default()
        })
        .unwrap();
    let momentum = |w: &World| {
        let mut p = [0f64; 3];
        for &id in &cloth.particles {
            let (m, v) = (
                w.particle_mass(id).unwrap(),
                w.particle_velocity(id).unwrap(),
            );
            for k in 0..3 {
                p[k] += m as f64 * v[k] as f64;
            }
        }
        let (m, v) = (
            w.body_mass_properties(ball).unwrap().mass,
            w.body_linear_velocity(ball).unwrap(),
        );
        for k in 0..3 {
            p[k] += m as f64 * v[k] as f64;
        }
        p
    };
    let before = momentum(&w);
    let size = before.iter().map(|x| x * x).sum::<f64>().sqrt();
    for _ in 0..90 {
        w.step(DT).unwrap();
    }
    let after = momentum(&w);
    let ball_v = w.body_linear_velocity(ball).unwrap();
    let drift = (0..3)
        .map(|k| (after[k] - before[k]).powi(2))
        .sum::<f64>()
        .sqrt()
        / size;
    println!(
        "momentum before {before:?}, after {after:?}, relative drift {drift:.2e}; ball {ball_v}"
    );
    assert!(ball_v.y < -0.1, "the cloth pushed the ball: {ball_v}");
    assert!(drift < 1.0e-5, "momentum drifted by {drift}");
}

/// A box on a cloth on the ground: the ground carries the weight of both.
#[test]
fn ground_carries_a_box_on_a_cloth() {
    let mut w = World::new(WorldDef {
        worker_count: 1,
        enable_sleep: false,
        ..Default::default()
    })
    .unwrap();
    let ground = static_body(&mut w, Vec3::ZERO);
    w.add_shape(ground, &ShapeDef::plane(Vec3::Y, 0.0)).unwrap();
    let n = 24;
    let spacing = 0.05;
    let thickness = 0.01;
    let half = 0.5 * spacing * (n - 1) as f32;
    let cloth_mass = 1.0;
    w.create_cloth(&ClothDef {
        origin: Vec3::new(-half, thickness, -half),
        nx: n,
        ny: n,
        spacing,
        mass: cloth_mass,
        thickness,
        ..Default::default()
    })
    .unwrap();
    let crate_ = w
        .create_body(&BodyDef {
            position: Vec3::new(0.0, 2.0 * thickness + 0.2, 0.0),
            ..Default::default()
        })
        .unwrap();
    w.add_shape(
        crate_,
        &ShapeDef::cuboid(Vec3::splat(0.2)).with_density(250.0),
    )
    .unwrap();
    let box_mass = w.body_mass_properties(crate_).unwrap().mass;
    for _ in 0..120 {
        w.step(DT).unwrap();
    }
    let mut load = 0.0f64;
    let steps = 60;
    for _ in 0..steps {
        w.step(DT).unwrap();
        load += w.particle_reaction(ground).unwrap().y as f64;
        // The box touches only the cloth.
        assert!(w
            .contacts()
            .all(|c| c.points.iter().all(|p| p.separation > 0.0)));
    }
    let load = -(load / steps as f64) as f32;
    let weight = (box_mass + cloth_mass) * G;
    let y = w.body_position(crate_).unwrap().y;
    println!("ground load {load:.3} N, weight {weight:.3} N (box {box_mass} kg at y = {y:.4})");
    assert!((load - weight).abs() < 0.05 * weight, "{load} vs {weight}");
    assert!(
        y > 0.2 + thickness,
        "the box sank through the cloth: y = {y}"
    );
}

/// The energy of a flag: kinetic, gravity, and that of its compliant springs.
fn flag_energy(w: &World, cloth: &impetus::Cloth, def: &ClothDef) -> f64 {
    let at = |i: u32, j: u32| w.particle_position(cloth.particle(i, j)).unwrap();
    let mut e = 0f64;
    for &p in &cloth.particles {
        let (m, v, x) = (
            w.particle_mass(p).unwrap() as f64,
            w.particle_velocity(p).unwrap(),
            w.particle_position(p).unwrap(),
        );
        if !w.particle_is_pinned(p).unwrap() {
            e += 0.5 * m * v.length_squared() as f64 + m * G as f64 * x.y as f64;
        }
    }
    let s = def.spacing;
    let mut spring = |a: Vec3, b: Vec3, rest: f32, alpha: f32| {
        if alpha > 0.0 {
            let c = ((b - a).length() - rest) as f64;
            e += 0.5 * c * c / alpha as f64;
        }
    };
    for j in 0..def.ny {
        for i in 0..def.nx {
            if i + 1 < def.nx && j + 1 < def.ny {
                spring(
                    at(i, j),
                    at(i + 1, j + 1),
                    s * 2f32.sqrt(),
                    def.shear_compliance,
                );
                spring(
                    at(i + 1, j),
                    at(i, j + 1),
                    s * 2f32.sqrt(),
                    def.shear_compliance,
                );
            }
            if i + 2 < def.nx {
                spring(at(i, j), at(i + 2, j), 2.0 * s, def.bend_compliance);
            }
            if j + 2 < def.ny {
                spring(at(i, j), at(i, j + 2), 2.0 * s, def.bend_compliance);
            }
            if i + 1 < def.nx {
                spring(at(i, j), at(i + 1, j), s, def.stretch_compliance);
            }
            if j + 1 < def.ny {
                spring(at(i, j), at(i, j + 1), s, def.stretch_compliance);
            }
        }
    }
    e
}

/// A flag pinned along its mast in a steady wind for 10,000 steps: finite, and its energy
/// never above the start's plus the work the wind's drag did on it, `c (w − v)·v` per
/// particle and second (the drag `−c (v − w)` times the velocity), summed at the end of
/// each step. (That work is the wind's input `c (w − v)·w` less the drag's losses
/// `c |v − w|²`; the springs' dampers and the solver only take energy away.)
#[test]
fn flag_in_the_wind_gains_no_energy_beyond_the_winds_work() {
    let mut w = world(4, 1);
    let (nx, ny) = (12u32, 8u32);
    let def = ClothDef {
        origin: Vec3::new(0.0, 2.0, 0.0),
        axis_u: Vec3::X,
        axis_v: Vec3::NEG_Y,
        nx,
        ny,
        spacing: 0.1,
        mass: 1.0,
        // Rigid in stretch and shear; the bend springs are soft and resolved by the
        // substeps (`w h² / α` = 0.02), so ½ C² / α is their energy. (A spring with
        // `w h² / α` ≫ 1 acts as a rod whose C is the solver's ordering error, not a
        // Hooke's-law stretch, and ½ C² / α then measures nothing.)
        stretch_compliance: 0.0,
        shear_compliance: 0.0,
        bend_compliance: 0.1,
        damping: 0.01,
        linear_drag: 0.05,
        pins: (0..ny).map(|j| ClothPin::Fixed { i: 0, j }).collect(),
        ..Default::default()
    };
    let cloth = w.create_cloth(&def).unwrap();
    let wind = Vec3::new(6.0, 0.0, 1.0);
    w.set_wind(wind).unwrap();
    let c = def.linear_drag;
    let start = flag_energy(&w, &cloth, &def);
    let mut work = 0f64;
    let mut worst = f64::MIN;
    for step in 0..10_000 {
        w.step(DT).unwrap();
        for &p in &cloth.particles {
            let v = w.particle_velocity(p).unwrap();
            assert!(v.is_finite(), "step {step}: NaN");
            work += (c * (wind - v).dot(v)) as f64 * DT as f64;
        }
        let e = flag_energy(&w, &cloth, &def);
        worst = worst.max(e - (start + work));
        assert!(
            e <= start + work + 0.01 * work.abs() + 1.0e-3,
            "step {step}: energy {e} J above the start {start} J plus the wind's work {work} J"
        );
    }
    let tip = w.particle_position(cloth.particle(nx - 1, 0)).unwrap();
    println!("wind work {work:.3} J, worst excess {worst:.4} J, tip {tip}");
    // The wind blows the flag out along +x.
    assert!(tip.x > 0.8 * (nx - 1) as f32 * def.spacing, "tip {tip}");
}

/// The step hashes a scene of cloth over a sphere and a box with rigid boxes falling on it.
fn drape_hashes(workers: usize) -> Vec<u64> {
    let mut w = world(4, workers);
    let ground = static_body(&mut w, Vec3::ZERO);
    w.add_shape(ground, &ShapeDef::plane(Vec3::Y, 0.0)).unwrap();
    let ball = static_body(&mut w, Vec3::new(-0.5, 0.5, 0.0));
    w.add_shape(ball, &ShapeDef::sphere(0.5)).unwrap();
    let crate_ = w
        .create_body(&BodyDef {
            position: Vec3::new(0.6, 0.3, 0.0),
            ..Default::default()
        })
        .unwrap();
    w.add_shape(crate_, &ShapeDef::cuboid(Vec3::splat(0.3)))
        .unwrap();
    w.create_cloth(&ClothDef {
        origin: Vec3::new(-1.2, 1.3, -1.2),
        nx: 48,
        ny: 48,
        spacing: 0.05,
        ..Default::default()
    })
    .unwrap();
    w.create_soft_body(&SoftBodyDef {
        position: Vec3::new(0.0, 2.0, 0.0),
        ..SoftBodyDef::sphere(0.2, 2, 50.0)
    })
    .unwrap();
    (0..90)
        .map(|_| {
            w.step(DT).unwrap();
            w.state_hash()
        })
        .collect()
}

#[test]
fn hashes_are_the_same_for_any_thread_count() {
    let one = drape_hashes(1);
    assert_eq!(one, drape_hashes(2), "1 vs 2 threads");
    assert_eq!(one, drape_hashes(4), "1 vs 4 threads");
}

/// A particle dropped on every kind of shape rests on its surface.
#[test]
fn particles_rest_on_every_shape_kind() {
    let hull = Arc::new(
        ConvexHull::new(&[
            // A box as a hull: its centroid, where the hull is centred, is the origin.
            Vec3::new(-0.3, -0.3, -0.3),
            Vec3::new(0.3, -0.3, -0.3),
            Vec3::new(0.3, -0.3, 0.3),
            Vec3::new(-0.3, -0.3, 0.3),
            Vec3::new(-0.3, 0.3, -0.3),
            Vec3::new(0.3, 0.3, -0.3),
            Vec3::new(0.3, 0.3, 0.3),
            Vec3::new(-0.3, 0.3, 0.3),
        ])
        .unwrap(),
    );
    let mesh = Arc::new(
        TriMesh::new(
            vec![
                Vec3::new(-1.0, 0.0, -1.0),
                Vec3::new(1.0, 0.0, -1.0),
                Vec3::new(1.0, 0.0, 1.0),
                Vec3::new(-1.0, 0.0, 1.0),
            ],
            vec![[0, 2, 1], [0, 3, 2]],
        )
        .unwrap(),
    );
    let field = Arc::new(HeightField::new(3, 3, vec![0.0; 9], Vec3::new(1.0, 1.0, 1.0)).unwrap());
    // (shape, body position, the surface's height under the particle at x = z = 0.04)
    let cases: Vec<(&str, ShapeDef, Vec3, f32)> = vec![
        ("sphere", ShapeDef::sphere(0.5), Vec3::ZERO, f32::NAN),
        ("capsule", ShapeDef::capsule(0.3, 0.2), Vec3::ZERO, f32::NAN),
        ("box", ShapeDef::cuboid(Vec3::splat(0.5)), Vec3::ZERO, 0.5),
        ("hull", ShapeDef::hull(hull), Vec3::ZERO, 0.3),
        ("plane", ShapeDef::plane(Vec3::Y, 0.0), Vec3::ZERO, 0.0),
        ("mesh", ShapeDef::mesh(mesh), Vec3::ZERO, 0.0),
        (
            "height field",
            ShapeDef::height_field(field),
            Vec3::new(-1.0, 0.0, -1.0),
            0.0,
        ),
    ];
    for (name, shape, at, surface) in cases {
        let mut w = world(4, 1);
        let b = static_body(&mut w, at);
        w.add_shape(b, &shape).unwrap();
        let r = 0.02;
        let p = w
            .create_particle(&ParticleDef {
                position: Vec3::new(0.04, 1.5, 0.04),
                radius: r,
                friction: 1.0,
                ..Default::default()
            })
            .unwrap();
        for _ in 0..120 {
            w.step(DT).unwrap();
        }
        let x = w.particle_position(p).unwrap();
        // The sphere's and capsule's surfaces are curved: the particle keeps its radius
        // from the sphere of 0.5 m, or from the capsule's upper cap (centre y = 0.3, 0.2 m).
        let gap = match name {
            "sphere" => x.length() - 0.5,
            "capsule" => (x - Vec3::new(0.0, 0.3, 0.0)).length() - 0.2,
            _ => x.y - surface,
        };
        println!("{name}: particle at {x}, {gap} m from the surface");
        assert!(
            (gap - r).abs() < 0.002,
            "{name}: {x}, {gap} m from the surface"
        );
        assert!(w.particle_velocity(p).unwrap().length() < 1.0e-3, "{name}");
    }
}

/// A dynamic box on a pinned cloth hammock: the cloth holds it, and the pins carry its
/// weight.
#[test]
fn hammock_holds_a_box() {
    let mut w = World::new(WorldDef {
        worker_count: 1,
        enable_sleep: false,
        ..Default::default()
    })
    .unwrap();
    let n = 20;
    let spacing = 0.05;
    let half = 0.5 * spacing * (n - 1) as f32;
    let mast = static_body(&mut w, Vec3::ZERO);
    let pins = [(0, 0), (n - 1, 0), (0, n - 1), (n - 1, n - 1)]
        .map(|(i, j)| ClothPin::Body { i, j, body: mast })
        .to_vec();
    let cloth = w
        .create_cloth(&ClothDef {
            origin: Vec3::new(-half, 1.0, -half),
            nx: n,
            ny: n,
            spacing,
            mass: 0.2,
            stretch_compliance: 1.0e-5,
            damping: 0.05,
            pins,
            ..Default::default()
        })
        .unwrap();
    let crate_ = w
        .create_body(&BodyDef {
            position: Vec3::new(0.0, 1.3, 0.0),
            ..Default::default()
        })
        .unwrap();
    w.add_shape(
        crate_,
        &ShapeDef::cuboid(Vec3::splat(0.1)).with_density(500.0),
    )
    .unwrap();
    let m = w.body_mass_properties(crate_).unwrap().mass;
    for _ in 0..240 {
        w.step(DT).unwrap();
    }
    let y = w.body_position(crate_).unwrap().y;
    let load = -w.particle_reaction(mast).unwrap().y;
    let weight = (m + 0.2) * G;
    let centre = w.particle_position(cloth.particle(n / 2, n / 2)).unwrap();
    println!(
        "box at y = {y:.3}, cloth centre {centre}, mast load {load:.2} N vs weight {weight:.2} N"
    );
    assert!(y > 0.5 && y < 1.0, "the hammock holds the box: y = {y}");
    assert!((load - weight).abs() < 0.1 * weight, "{load} vs {weight}");
}

/// A ball of gas and a block of tetrahedra dropped on the ground: the block keeps its
/// volume, the gas holds the ball up, and the same ball without gas collapses.
#[test]
fn soft_bodies_keep_their_volume() {
    let drop = |pressure: f32| {
        let mut w = world(4, 1);
        let ground = static_body(&mut w, Vec3::ZERO);
        w.add_shape(ground, &ShapeDef::plane(Vec3::Y, 0.0)).unwrap();
        let ball = w
            .create_soft_body(&SoftBodyDef {
                position: Vec3::new(-1.0, 0.6, 0.0),
                mass: 1.0,
                // Rigid edges: the gas cannot stretch the ball, only keep it round.
                edge_compliance: 0.0,
                damping: 0.5,
                ..SoftBodyDef::sphere(0.3, 2, pressure)
            })
            .unwrap();
        let block = w
            .create_soft_body(&SoftBodyDef {
                position: Vec3::new(1.0, 0.6, 0.0),
                mass: 2.0,
                damping: 1.0,
                ..SoftBodyDef::cuboid(Vec3::new(0.3, 0.2, 0.3), [3, 2, 3])
            })
            .unwrap();
        let v0 = [ball.id, block.id].map(|id| w.soft_body_volume(id).unwrap());
        for _ in 0..240 {
            w.step(DT).unwrap();
        }
        let v = [ball.id, block.id].map(|id| w.soft_body_volume(id).unwrap());
        let ys = |ps: &[impetus::ParticleId]| {
            ps.iter()
                .map(|&p| w.particle_position(p).unwrap().y)
                .fold((f32::MAX, f32::MIN), |(lo, hi), y| (lo.min(y), hi.max(y)))
        };
        (v0, v, ys(&ball.particles), ys(&block.particles))
    };
    let (v0, v, ball, block) = drop(5.0);
    let (_, _, flat, _) = drop(0.0);
    println!(
        "ball {:.4} -> {:.4} m³, {:.3}..{:.3} m (without gas {:.3}..{:.3}); block {:.4} -> {:.4} m³, {:.3}..{:.3} m",
        v0[0], v[0], ball.0, ball.1, flat.0, flat.1, v0[1], v[1], block.0, block.1
    );
    assert!(
        ball.0 > 0.0 && block.0 > 0.0,
        "a particle sank into the ground"
    );
    assert!(
        (v[1] / v0[1] - 1.0).abs() < 0.02,
        "block {} vs {}",
        v[1],
        v0[1]
    );
    assert!(
        (v[0] / v0[0] - 1.0).abs() < 0.05,
        "ball {} vs {}",
        v[0],
        v0[0]
    );
    assert!(ball.1 - ball.0 > 0.5, "the gas holds the ball up: {ball:?}");
    assert!(
        flat.1 - flat.0 < 0.7 * (ball.1 - ball.0),
        "without gas the ball sags: {flat:?} vs {ball:?}"
    );
}

#[test]
fn bad_input_is_an_error_naming_the_field() {
    let mut w = world(4, 1);
    let field = |e: Error| match e {
        Error::InvalidInput { field, .. } => field,
        e => panic!("{e:?}"),
    };
    let bad = |d: ParticleDef| d;
    for (def, name) in [
        (
            bad(ParticleDef {
                position: Vec3::NAN,
                ..Default::default()
            }),
            "ParticleDef::position",
        ),
        (
            bad(ParticleDef {
                mass: 0.0,
                ..Default::default()
            }),
            "ParticleDef::mass",
        ),
        (
            bad(ParticleDef {
                mass: 1.0e-40,
                ..Default::default()
            }),
            "ParticleDef::mass",
        ),
        (
            bad(ParticleDef {
                radius: -1.0,
                ..Default::default()
            }),
            "ParticleDef::radius",
        ),
        (
            bad(ParticleDef {
                velocity: Vec3::INFINITY,
                ..Default::default()
            }),
            "ParticleDef::velocity",
        ),
        (
            bad(ParticleDef {
                restitution: 2.0,
                ..Default::default()
            }),
            "ParticleDef::restitution",
        ),
        (
            bad(ParticleDef {
                quadratic_drag: f32::NAN,
                ..Default::default()
            }),
            "ParticleDef::quadratic_drag",
        ),
    ] {
        assert_eq!(field(w.create_particle(&def).unwrap_err()), name);
    }
    let a = w.create_particle(&ParticleDef::default()).unwrap();
    let b = w
        .create_particle(&ParticleDef {
            position: Vec3::X,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(
        field(
            w.create_spring(&SpringDef::new(a, SpringEnd::Particle(b)).with_stiffness(0.0))
                .unwrap_err()
        ),
        "SpringDef::compliance"
    );
    assert_eq!(
        field(
            w.create_spring(&SpringDef::new(a, SpringEnd::Particle(a)))
                .unwrap_err()
        ),
        "SpringDef::b"
    );
    assert_eq!(
        field(
            w.create_cloth(&ClothDef {
                nx: 1,
                ..Default::default()
            })
            .unwrap_err()
        ),
        "ClothDef::nx"
    );
    assert_eq!(
        field(
            w.create_cloth(&ClothDef {
                pins: vec![ClothPin::Fixed { i: 99, j: 0 }],
                ..Default::default()
            })
            .unwrap_err()
        ),
        "ClothDef::pins"
    );
    let mut open = SoftBodyDef::sphere(0.5, 1, 10.0);
    open.triangles.pop();
    assert_eq!(
        field(w.create_soft_body(&open).unwrap_err()),
        "SoftBodyDef::triangles"
    );
    let mut flat = SoftBodyDef::cuboid(Vec3::ONE, [1, 1, 1]);
    flat.tetrahedra.push([0, 0, 1, 2]);
    assert_eq!(
        field(w.create_soft_body(&flat).unwrap_err()),
        "SoftBodyDef::tetrahedra"
    );
    let mut out_of_range = SoftBodyDef::cuboid(Vec3::ONE, [1, 1, 1]);
    out_of_range.triangles.push([0, 1, 1000]);
    assert_eq!(
        field(w.create_soft_body(&out_of_range).unwrap_err()),
        "SoftBodyDef::triangles"
    );
    assert_eq!(field(w.set_wind(Vec3::NAN).unwrap_err()), "wind");
    assert_eq!(
        field(w.apply_particle_impulse(a, Vec3::NAN).unwrap_err()),
        "impulse"
    );
    // Stale ids.
    w.remove_particle(b).unwrap();
    assert_eq!(
        w.particle_position(b),
        Err(Error::StaleHandle { kind: "ParticleId" })
    );
    assert!(matches!(
        w.create_spring(&SpringDef::new(a, SpringEnd::Particle(b))),
        Err(Error::StaleHandle { kind: "ParticleId" })
    ));
    let body = w.create_body(&BodyDef::default()).unwrap();
    let s = w
        .create_spring(&SpringDef::new(
            a,
            SpringEnd::Body {
                body,
                point: Vec3::ZERO,
            },
        ))
        .unwrap();
    w.remove_body(body).unwrap();
    assert_eq!(
        w.spring_length(s),
        Err(Error::StaleHandle { kind: "SpringId" })
    );
    w.step(DT).unwrap();
}

/// A world of cloth, a soft ball, a tethered flag and a box: saved states restore it and
/// images rebuild it, stepping on with the same hashes.
fn mixed_world(workers: usize) -> World {
    let mut w = world(4, workers);
    let ground = static_body(&mut w, Vec3::ZERO);
    w.add_shape(ground, &ShapeDef::plane(Vec3::Y, 0.0)).unwrap();
    let crate_ = w
        .create_body(&BodyDef {
            position: Vec3::new(0.0, 0.3, 0.0),
            ..Default::default()
        })
        .unwrap();
    w.add_shape(crate_, &ShapeDef::cuboid(Vec3::splat(0.3)))
        .unwrap();
    w.create_cloth(&ClothDef {
        origin: Vec3::new(-0.5, 0.8, -0.5),
        nx: 12,
        ny: 12,
        spacing: 0.08,
        pins: vec![ClothPin::Body {
            i: 0,
            j: 0,
            body: crate_,
        }],
        ..Default::default()
    })
    .unwrap();
    w.create_soft_body(&SoftBodyDef {
        position: Vec3::new(1.0, 1.0, 0.0),
        ..SoftBodyDef::sphere(0.2, 1, 5.0)
    })
    .unwrap();
    w.set_wind(Vec3::new(1.0, 0.0, 0.0)).unwrap();
    w
}

#[test]
fn states_and_images_hold_the_particles() {
    let mut w = mixed_world(1);
    for _ in 0..20 {
        w.step(DT).unwrap();
    }
    let mut state = Vec::new();
    w.save_state(&mut state);
    let mut image = Vec::new();
    w.save_image(&mut image);
    let run = |w: &mut World| -> Vec<u64> {
        (0..30)
            .map(|_| {
                w.step(DT).unwrap();
                w.state_hash()
            })
            .collect()
    };
    let ahead = run(&mut w);
    w.restore_state(&state).unwrap();
    assert_eq!(run(&mut w), ahead, "restored state");
    let mut again = Vec::new();
    World::from_image(&image).unwrap().save_image(&mut again);
    let first = again.iter().zip(&image).position(|(a, b)| a != b);
    assert!(
        again.len() == image.len() && first.is_none(),
        "image -> world -> image changed the bytes: {} vs {} bytes, first difference at {first:?}",
        again.len(),
        image.len()
    );
    for workers in [1, 2] {
        let mut loaded = World::from_image_with_workers(&image, workers).unwrap();
        assert_eq!(
            run(&mut loaded),
            ahead,
            "world from the image, {workers} threads"
        );
    }
    // A state of another world's particles is refused.
    let mut other = mixed_world(1);
    other.create_particle(&ParticleDef::default()).unwrap();
    assert!(other.restore_state(&state).is_err());
    // A corrupt particle section is an error, never a panic.
    for k in (0..image.len()).step_by(97) {
        let mut bad = image.clone();
        bad[k] ^= 0x5a;
        let _ = World::from_image(&bad);
    }
}
