//! The leads of idle contacts (`contact::Lead`): a skip leaves the results as an update
//! would, to the bit, however the bodies move, turn, are moved or change shape.

use crate::{BodyDef, BodyId, BodyType, ShapeDef, Transform, World, WorldDef};
use glam::{Quat, Vec3};
use std::cell::Cell;

thread_local! {
    /// Contacts the narrow phase skipped on their leads, on this thread.
    pub(super) static SKIPPED: Cell<u64> = const { Cell::new(0) };
}

/// A small deterministic generator (xorshift), in [0, 1).
struct Rng(u32);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        (self.0 >> 8) as f32 / (1u32 << 24) as f32
    }

    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next()
    }

    fn vector(&mut self, scale: f32) -> Vec3 {
        Vec3::new(
            self.range(-scale, scale),
            self.range(-scale, scale),
            self.range(-scale, scale),
        )
    }
}

/// A heap of balls, capsules, boxes and compound bodies (a ball off its body's centre, a
/// box beside a capsule) dropped into a walled floor, some spinning, with a kinematic
/// paddle sweeping through it.
fn heap(leads_off: bool) -> (World, Vec<BodyId>, BodyId) {
    let mut world = World::new(WorldDef {
        worker_count: 1,
        ..WorldDef::default()
    })
    .unwrap();
    world.leads_off = leads_off;
    let ground = world
        .create_body(&BodyDef {
            body_type: BodyType::Static,
            ..BodyDef::default()
        })
        .unwrap();
    world
        .add_shape(
            ground,
            &ShapeDef::cuboid(Vec3::new(6.0, 0.5, 6.0)).with_offset(Vec3::new(0.0, -0.5, 0.0)),
        )
        .unwrap();
    for (x, z, hx, hz) in [
        (6.5, 0.0, 0.5, 6.0),
        (-6.5, 0.0, 0.5, 6.0),
        (0.0, 6.5, 6.0, 0.5),
        (0.0, -6.5, 6.0, 0.5),
    ] {
        world
            .add_shape(
                ground,
                &ShapeDef::cuboid(Vec3::new(hx, 1.5, hz)).with_offset(Vec3::new(x, 1.5, z)),
            )
            .unwrap();
    }
    let mut rng = Rng(0x9E37_79B9);
    let mut bodies = Vec::new();
    for k in 0..160 {
        let body = world
            .create_body(&BodyDef {
                position: Vec3::new(
                    rng.range(-5.0, 5.0),
                    rng.range(0.5, 8.0),
                    rng.range(-5.0, 5.0),
                ),
                rotation: Quat::from_scaled_axis(rng.vector(3.0)),
                linear_velocity: rng.vector(2.0),
                angular_velocity: if k % 3 == 0 {
                    rng.vector(8.0)
                } else {
                    Vec3::ZERO
                },
                ..BodyDef::default()
            })
            .unwrap();
        let size = rng.range(0.15, 0.4);
        let shape = match k % 5 {
            0 => ShapeDef::sphere(size),
            1 => ShapeDef::capsule(size, 0.6 * size),
            2 => ShapeDef::cuboid(Vec3::new(size, 0.7 * size, 1.3 * size)),
            3 => ShapeDef::sphere(size).with_offset(Vec3::new(0.3, 0.0, 0.0)),
            _ => ShapeDef::cuboid(Vec3::splat(size)),
        };
        world.add_shape(body, &shape).unwrap();
        if k % 5 == 3 {
            world
                .add_shape(body, &ShapeDef::sphere(0.5 * size))
                .unwrap();
        }
        if k % 7 == 0 {
            world
                .add_shape(
                    body,
                    &ShapeDef::capsule(0.2, 0.1).with_offset(Vec3::new(0.0, 0.0, size + 0.15)),
                )
                .unwrap();
        }
        bodies.push(body);
    }
    let paddle = world
        .create_body(&BodyDef {
            body_type: BodyType::Kinematic,
            position: Vec3::new(-5.0, 0.6, 0.0),
            angular_velocity: Vec3::new(0.0, 0.7, 0.0),
            ..BodyDef::default()
        })
        .unwrap();
    world
        .add_shape(
            paddle,
            &ShapeDef::cuboid(Vec3::new(2.0, 0.3, 0.1)).with_offset(Vec3::new(2.0, 0.0, 0.0)),
        )
        .unwrap();
    (world, bodies, paddle)
}

/// The same heap stepped with the leads and without, through teleports, velocities set
/// by hand, shapes added and the paddle set on a new course: the same state hash and the
/// same saved state after every step, and skips to show for the leads.
#[test]
fn skipping_on_leads_changes_nothing() {
    let (mut with, bodies, paddle) = heap(false);
    let (mut without, _, _) = heap(true);
    let mut rng = Rng(0x2545_F491);
    SKIPPED.with(|n| n.set(0));
    for step in 0..420 {
        for _ in 0..(if step % 5 == 4 { 12 } else { 0 }) {
            // Bodies moved a little or turned in place, or sent anywhere: their leads must
            // not hold across the jump.
            let body = bodies[(rng.next() * bodies.len() as f32) as usize];
            let (p, q) = (
                with.body_position(body).unwrap(),
                with.body_rotation(body).unwrap(),
            );
            let to = match step % 3 {
                0 => (p + rng.vector(0.25), q),
                1 => (p, Quat::from_scaled_axis(rng.vector(1.5)) * q),
                _ => (
                    Vec3::new(
                        rng.range(-5.0, 5.0),
                        rng.range(0.3, 3.0),
                        rng.range(-5.0, 5.0),
                    ),
                    Quat::from_scaled_axis(rng.vector(3.0)),
                ),
            };
            for w in [&mut with, &mut without] {
                w.set_body_transform(body, to.0, to.1).unwrap();
            }
        }
        if step % 23 == 22 {
            // A resting body thrown, or set spinning fast: its step's reach grows.
            let body = bodies[(rng.next() * bodies.len() as f32) as usize];
            let (v, w) = (rng.vector(12.0), rng.vector(25.0));
            for world in [&mut with, &mut without] {
                world.set_body_linear_velocity(body, v).unwrap();
                world.set_body_angular_velocity(body, w).unwrap();
            }
        }
        if step % 61 == 60 {
            // A shape added far off a body's centre: its other shapes move against its
            // centre of mass without the body moving.
            let body = bodies[(rng.next() * bodies.len() as f32) as usize];
            let offset = rng.vector(0.6);
            for world in [&mut with, &mut without] {
                world
                    .add_shape(body, &ShapeDef::sphere(0.2).with_offset(offset))
                    .unwrap();
            }
        }
        if step == 200 {
            for world in [&mut with, &mut without] {
                world
                    .set_body_transform(paddle, Vec3::new(0.0, 0.6, 3.0), Quat::IDENTITY)
                    .unwrap();
                world
                    .set_body_angular_velocity(paddle, Vec3::new(0.0, -2.0, 0.0))
                    .unwrap();
            }
        }
        with.step(1.0 / 60.0).unwrap();
        without.step(1.0 / 60.0).unwrap();
        // The saved state too (manifolds, caches, colours): a skipped contact reads as an
        // updated one, so a world restored from a state (which keeps no leads) steps on as
        // the one that saved it.
        assert_eq!(
            (with.state_hash(), with.deep_hash()),
            (without.state_hash(), without.deep_hash()),
            "step {step}: the leads changed the results"
        );
    }
    let skipped = SKIPPED.with(|n| n.get());
    assert!(
        skipped > 10_000,
        "only {skipped} contacts skipped on their leads"
    );
    let _ = Transform::IDENTITY;
}

/// A plank turned in place under a box that hovers over its far end: the end rises by the
/// turn times the plank's half length, much more than the box's own size times the turn,
/// and the pair (whichever box is A) must be updated and pushed apart, as without leads.
#[test]
fn a_plank_turned_under_a_box_reaches_it() {
    for plank_first in [true, false] {
        let run = |leads_off: bool| {
            let mut world = World::new(WorldDef {
                worker_count: 1,
                gravity: Vec3::ZERO,
                ..WorldDef::default()
            })
            .unwrap();
            world.leads_off = leads_off;
            let plank_def = BodyDef {
                body_type: BodyType::Static,
                ..BodyDef::default()
            };
            // Turned 45° about z, a vertical edge down: the plank's top face is the one that
            // separates them.
            let box_def = BodyDef {
                position: Vec3::new(2.8, 0.16, 0.0),
                rotation: Quat::from_rotation_z(std::f32::consts::FRAC_PI_4),
                can_sleep: false,
                ..BodyDef::default()
            };
            let make = |world: &mut World, def: &BodyDef, half: Vec3| {
                let body = world.create_body(def).unwrap();
                world.add_shape(body, &ShapeDef::cuboid(half)).unwrap();
                body
            };
            let (plank_half, box_half) = (Vec3::new(3.0, 0.05, 0.5), Vec3::splat(0.05));
            let (plank, cube) = if plank_first {
                let p = make(&mut world, &plank_def, plank_half);
                (p, make(&mut world, &box_def, box_half))
            } else {
                let c = make(&mut world, &box_def, box_half);
                (make(&mut world, &plank_def, plank_half), c)
            };
            for _ in 0..30 {
                world.step(1.0 / 60.0).unwrap();
            }
            // The end under the box rises by some 2.8 m × 0.04 = 11 cm: through the 4 cm gap.
            world
                .set_body_transform(plank, Vec3::ZERO, Quat::from_rotation_z(0.04))
                .unwrap();
            for _ in 0..5 {
                world.step(1.0 / 60.0).unwrap();
            }
            (
                world.state_hash(),
                world.body_linear_velocity(cube).unwrap(),
            )
        };
        let (with, pushed) = run(false);
        let (without, _) = run(true);
        assert_eq!(with, without, "plank first: {plank_first}");
        assert!(pushed.y > 0.02, "the box was not pushed: {pushed}");
    }
}
