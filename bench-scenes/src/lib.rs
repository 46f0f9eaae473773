//! The scene library of impetus: one recipe per benchmark scene (docs/SCENES.md), shared by the
//! tests, the `impetus-bench` CLI, the peer comparisons and (later) the viewer.
//!
//! The peers of docs/SCENES.md each sit behind a feature: `rapier` (on by default),
//! `box3d`, `physx` and `jolt` (opt-in: their C and C++ sources build in minutes; `peers`
//! turns them all on). The three C/C++ peers share [`peer`]'s runner and its pose-based
//! stability figures.

#[cfg(feature = "box3d")]
pub mod box3d;
pub mod chart;
pub mod churn;
#[cfg(feature = "jolt")]
pub mod jolt;
pub mod measure;
pub mod peer;
#[cfg(feature = "physx")]
pub mod physx;
#[cfg(feature = "rapier")]
pub mod rapier;
pub mod scenes;
pub mod soak;

pub use measure::{run_scene, run_scene_with, RunResult, Stability};
#[cfg(feature = "rapier")]
pub use rapier::{rapier_version, run_rapier};
pub use scenes::{
    build_impetus, build_joints_impetus, build_particles_impetus, find, tower_x, BodySpec,
    JointSpec, JointSpecKind, Params, ParticleSpec, Recipe, Scene, ShapeSpec, Terrain, SCENES,
    TOWER_HEIGHTS,
};

use impetus::{Vec3, WorldDef};

/// The common step settings of docs/SCENES.md: gravity −10, 4 substeps, contact 30 Hz with
/// damping ratio 10, push-out 3 m/s, slop 0.005 m, speculative 0.02 m; sleep off.
pub fn world_def(threads: usize) -> WorldDef {
    WorldDef {
        gravity: Vec3::new(0.0, -10.0, 0.0),
        substeps: 4,
        contact_hertz: 30.0,
        contact_damping_ratio: 10.0,
        max_push_speed: 3.0,
        linear_slop: 0.005,
        speculative_distance: 0.02,
        worker_count: threads,
        // Off so every step of a benchmark does the full work (and rapier's bodies
        // cannot sleep either); `impetus-bench run --sleep` turns it on.
        enable_sleep: false,
        ..WorldDef::default()
    }
}

/// The fixed step of every scene, in s.
pub const DT: f32 = 1.0 / 60.0;

/// A small deterministic generator (xorshift64*), so scenes are identical everywhere.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (0 is replaced by a fixed non-zero value).
    pub fn new(seed: u64) -> Self {
        Rng(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
}
