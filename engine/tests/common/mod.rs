//! Helpers shared by the integration tests (`mod common;` in each): the step, worlds, a ground
//! plane and the deterministic generators the tests scatter bodies and queries with.

// Every test binary compiles this module on its own and uses only part of it.
#![allow(dead_code)]

pub mod query;
pub mod seal;
pub mod state_world;

use impetus::{BodyDef, BodyId, BodyType, Error, Quat, ShapeDef, ShapeId, Vec3, World, WorldDef};

/// The fixed step of the tests, in s.
pub const DT: f32 = 1.0 / 60.0;

/// The default settings with `workers` worker threads (0: as many as the machine has).
pub fn def(workers: usize) -> WorldDef {
    WorldDef {
        worker_count: workers,
        ..Default::default()
    }
}

/// A world of `def`'s settings.
pub fn world_from(def: WorldDef) -> World {
    World::new(def).unwrap()
}

/// A world with `gravity` and `workers` worker threads; every other setting default.
pub fn world(gravity: Vec3, workers: usize) -> World {
    world_from(WorldDef {
        gravity,
        ..def(workers)
    })
}

/// Adds the ground: a static body at the origin with the plane y = 0. Returns the plane.
pub fn ground_plane(w: &mut World) -> ShapeId {
    let ground = w
        .create_body(&BodyDef {
            body_type: BodyType::Static,
            ..Default::default()
        })
        .unwrap();
    w.add_shape(ground, &ShapeDef::plane(Vec3::Y, 0.0)).unwrap()
}

/// A body of `body_type` at `position`, with `shape` if given.
pub fn body(w: &mut World, body_type: BodyType, position: Vec3, shape: Option<ShapeDef>) -> BodyId {
    let b = w
        .create_body(&BodyDef {
            body_type,
            position,
            ..Default::default()
        })
        .unwrap();
    if let Some(s) = shape {
        w.add_shape(b, &s).unwrap();
    }
    b
}

/// The field an `InvalidInput` error names; panics on any other error.
pub fn field_of(e: Error) -> &'static str {
    match e {
        Error::InvalidInput { field, .. } => field,
        other => panic!("expected InvalidInput, got {other:?}"),
    }
}

/// xorshift64*: deterministic test randomness. `Rng(state)` starts from a raw non-zero state,
/// [`Rng::new`] from any seed.
pub struct Rng(pub u64);

impl Rng {
    /// A generator whose state is `seed` spread over the word (never 0).
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// Uniform in [0, 1), 24 bits.
    pub fn unit(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in the box [lo, hi), x then y then z.
    pub fn vec(&mut self, lo: Vec3, hi: Vec3) -> Vec3 {
        Vec3::new(
            self.range(lo.x, hi.x),
            self.range(lo.y, hi.y),
            self.range(lo.z, hi.z),
        )
    }

    /// A unit vector, uniform over the sphere (rejection sampling in the unit ball).
    pub fn direction(&mut self) -> Vec3 {
        loop {
            let v = self.vec(Vec3::splat(-1.0), Vec3::splat(1.0));
            let l2 = v.length_squared();
            if l2 > 1.0e-3 && l2 <= 1.0 {
                return v / l2.sqrt();
            }
        }
    }

    /// A unit quaternion (rejection sampling in the unit 4-ball).
    pub fn rotation(&mut self) -> Quat {
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

/// Plain xorshift64 (shifts 13, 7, 17) from a raw non-zero state.
pub struct XorShift64(pub u64);

impl XorShift64 {
    /// The next state.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in [0, 1) from the state's top 24 bits.
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
}
