//! Fixed-timestep stepping for games: an accumulator with interpolation, and (in
//! [`thread`]) the same stepping on a thread of its own.
//!
//! A game's frames take a variable time, but the world must step by the same `dt` every
//! time (the solver's softness and the contact recycling are tuned per step). The
//! [`Stepper`] keeps the time the frames have accumulated and runs as many fixed steps as
//! it holds ("Fix your timestep!", G. Fiedler, 2004):
//!
//! ```text
//! acc += frame_dt
//! n = floor(acc / dt)           (a relative tolerance of 1e-6 absorbs f32 rounding, so
//!                                two frames of dt/2 make exactly one step)
//! run min(n, max_steps) steps; if n > max_steps, drop (n - max_steps) dt and report it
//! acc -= n dt                   (0 <= acc < dt)
//! alpha = acc / dt              (in [0, 1))
//! ```
//!
//! Capping the steps per call avoids the "spiral of death": when a step costs more wall
//! time than `dt`, every frame would owe more steps than the last. Dropped time makes the
//! simulation run slower than real time instead.
//!
//! The rendered pose lags the simulation by up to one step: each body is drawn between its
//! pose before the last step and after it, at `alpha`: position `p0 + alpha (p1 - p0)`,
//! rotation `slerp(q0, q1, alpha)` along the shortest arc. That removes the judder of
//! showing a 60 Hz simulation on a 144 Hz display (or the reverse).

pub mod thread;

use crate::codec::{checksum, Reader, Writer};
use crate::error::Error;
use crate::id::BodyId;
use crate::math::Transform;
use crate::world::World;

/// The magic of a stepper's state.
const STEPPER_MAGIC: &[u8; 4] = b"IMPT";

/// Steps per [`Stepper::advance`] before the rest of the owed time is dropped.
pub const DEFAULT_MAX_STEPS: u32 = 8;

/// A relative tolerance on the accumulator: time within `1e-6 dt` of a whole step counts
/// as the step (f32 frame times do not add up exactly).
const STEP_TOLERANCE: f64 = 1.0e-6;

/// What one [`Stepper::advance`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Advance {
    /// Fixed steps run by this call.
    pub steps: u32,
    /// Interpolation factor in [0, 1) between the pose before the last step and after it
    /// (see [`Stepper::interpolated_pose`]).
    pub alpha: f32,
    /// Simulated time dropped by this call because more than
    /// [`Stepper::max_steps`] steps were owed, in s (0 almost always).
    pub dropped: f64,
}

/// A world stepped at a fixed rate by variable frame times, with interpolated poses.
///
/// # Example
/// ```
/// use impetus::{BodyDef, ShapeDef, Stepper, World, WorldDef};
///
/// let world = World::new(WorldDef { worker_count: 1, ..Default::default() })?;
/// let mut stepper = Stepper::new(world, 60.0)?;
/// let ball = stepper.world_mut().create_body(&BodyDef::default())?;
/// stepper.world_mut().add_shape(ball, &ShapeDef::sphere(0.5))?;
/// // A 144 Hz display: most frames run no step, some run one.
/// for _ in 0..144 {
///     let advance = stepper.advance(1.0 / 144.0)?;
///     let pose = stepper.interpolated_pose(ball)?; // draw the ball here
///     assert!(advance.alpha < 1.0 && pose.p.y <= 0.0);
/// }
/// assert_eq!(stepper.steps(), 60);
/// # Ok::<(), impetus::Error>(())
/// ```
pub struct Stepper {
    world: World,
    hz: f64,
    dt: f64,
    accumulator: f64,
    max_steps: u32,
    alpha: f32,
    steps: u64,
    time: f64,
    dropped: f64,
    /// Per body slot, the pose before the last step and the slot's generation then;
    /// bodies created since (generation mismatch or slot past the end) use their pose.
    previous: Vec<(u32, Transform)>,
}

impl Stepper {
    /// Steps `world` at `hz` steps per second (60 for most games).
    pub fn new(world: World, hz: f32) -> Result<Stepper, Error> {
        if !hz.is_finite() || !(1.0 / World::MAX_DT..=1.0 / World::MIN_DT).contains(&hz) {
            return Err(Error::invalid(
                "hz",
                "must be finite, in 1e-3..=1e6 steps per second (one step of World::MIN_DT..=World::MAX_DT)",
            ));
        }
        let hz = hz as f64;
        Ok(Stepper {
            world,
            hz,
            dt: 1.0 / hz,
            accumulator: 0.0,
            max_steps: DEFAULT_MAX_STEPS,
            alpha: 0.0,
            steps: 0,
            time: 0.0,
            dropped: 0.0,
            previous: Vec::new(),
        })
    }

    /// Sets the most steps one [`advance`](Self::advance) runs (at least 1); owed time
    /// beyond it is dropped. Default: [`DEFAULT_MAX_STEPS`].
    pub fn set_max_steps(&mut self, max_steps: u32) -> Result<(), Error> {
        if max_steps == 0 {
            return Err(Error::invalid("max_steps", "must be at least 1"));
        }
        self.max_steps = max_steps;
        Ok(())
    }

    /// The most steps one [`advance`](Self::advance) runs.
    pub fn max_steps(&self) -> u32 {
        self.max_steps
    }

    /// Steps per second.
    pub fn hz(&self) -> f64 {
        self.hz
    }

    /// The fixed step, in s.
    pub fn dt(&self) -> f64 {
        self.dt
    }

    /// The world.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The world, to create bodies or apply forces between frames.
    pub fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }

    /// Gives the world back.
    pub fn into_world(self) -> World {
        self.world
    }

    /// Fixed steps run so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Simulated time so far (`steps × dt`), in s.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Simulated time dropped so far because a call owed more than
    /// [`max_steps`](Self::max_steps) steps, in s.
    pub fn dropped_time(&self) -> f64 {
        self.dropped
    }

    /// Time accumulated towards the next step, in s (in `[0, dt)`).
    pub fn accumulated(&self) -> f64 {
        self.accumulator
    }

    /// The interpolation factor of the last [`advance`](Self::advance), in [0, 1).
    pub fn alpha(&self) -> f32 {
        self.alpha
    }

    /// Adds a frame's duration (s, finite, non-negative) and runs the fixed steps it
    /// completes, at most [`max_steps`](Self::max_steps).
    pub fn advance(&mut self, frame_dt: f32) -> Result<Advance, Error> {
        if !frame_dt.is_finite() || frame_dt < 0.0 {
            return Err(Error::invalid(
                "frame_dt",
                "must be finite and non-negative",
            ));
        }
        self.accumulator += frame_dt as f64;
        let owed = ((self.accumulator / self.dt) * (1.0 + STEP_TOLERANCE)).floor();
        let run = owed.min(self.max_steps as f64) as u32;
        for _ in 0..run {
            self.step_once()?;
        }
        self.accumulator = (self.accumulator - owed * self.dt).max(0.0);
        let dropped = (owed - run as f64) * self.dt;
        self.dropped += dropped;
        self.alpha = ((self.accumulator / self.dt) as f32).clamp(0.0, 1.0 - f32::EPSILON);
        Ok(Advance {
            steps: run,
            alpha: self.alpha,
            dropped,
        })
    }

    /// Runs one fixed step now, whatever the accumulator holds (keeps the poses before
    /// it for interpolation).
    pub fn step_once(&mut self) -> Result<(), Error> {
        self.remember_poses();
        self.world.step(self.dt as f32)?;
        self.steps += 1;
        self.time = self.steps as f64 * self.dt;
        Ok(())
    }

    /// Forgets the poses before the last step, so that interpolation shows the current
    /// poses (call after teleporting bodies, or they are drawn sliding there).
    pub fn reset_interpolation(&mut self) {
        self.remember_poses();
    }

    fn remember_poses(&mut self) {
        let w = &self.world;
        let n = w.body_pool.capacity();
        self.previous.clear();
        self.previous.extend((0..n).map(|i| {
            (
                if w.body_pool.is_alive(i) {
                    w.body_pool.generation(i)
                } else {
                    0
                },
                w.bodies.origin(i),
            )
        }));
    }

    /// The pose of a body to draw now: between its pose before the last step and after
    /// it, at the last [`alpha`](Self::alpha).
    pub fn interpolated_pose(&self, id: BodyId) -> Result<Transform, Error> {
        let i = self.world.body_index(id)?;
        Ok(self.interpolate_slot(i))
    }

    /// Every live body's pose to draw now (see [`interpolated_pose`](Self::interpolated_pose)),
    /// in slot order.
    pub fn interpolated_poses(&self) -> impl Iterator<Item = (BodyId, Transform)> + '_ {
        let pool = &self.world.body_pool;
        (0..pool.capacity())
            .filter(|&i| pool.is_alive(i))
            .map(move |i| {
                let id = BodyId {
                    index: i as u32,
                    generation: pool.generation(i),
                };
                (id, self.interpolate_slot(i))
            })
    }

    fn interpolate_slot(&self, i: usize) -> Transform {
        let current = self.world.bodies.origin(i);
        match self.previous.get(i) {
            Some(&(generation, before)) if generation == self.world.body_pool.generation(i) => {
                interpolate(&before, &current, self.alpha)
            }
            _ => current,
        }
    }

    /// Appends the stepper's state to `out`: the world's state (see
    /// [`World::save_state`]) with the accumulator, the step and time counters and the
    /// poses interpolation starts from, so a restored stepper draws and steps on exactly
    /// as this one does.
    pub fn save_state(&self, out: &mut Vec<u8>) {
        out.clear();
        let mut w = Writer::new(out);
        w.bytes(STEPPER_MAGIC);
        w.put(&self.hz);
        w.put(&self.accumulator);
        w.put(&self.max_steps);
        w.put(&self.alpha);
        w.put(&self.steps);
        w.put(&self.time);
        w.put(&self.dropped);
        w.put(&self.previous);
        // The world's state to the end (it carries its own checksum), then the stepper's.
        self.world.append_state(out);
        let sum = checksum(out);
        out.extend_from_slice(&sum.to_le_bytes());
    }

    /// Puts back a state [`save_state`](Self::save_state) wrote from a stepper of the same
    /// rate over a world of the same structure. On `Err` nothing changes.
    pub fn restore_state(&mut self, state: &[u8]) -> Result<(), Error> {
        const WHAT: &str = "stepper state";
        if state.len() < 12 {
            return Err(Error::invalid(WHAT, "is truncated"));
        }
        let (body, sum) = state.split_at(state.len() - 8);
        if checksum(body) != u64::from_le_bytes(sum.try_into().unwrap()) {
            return Err(Error::invalid(
                WHAT,
                "fails its checksum (corrupt or truncated)",
            ));
        }
        let mut r = Reader::new(body, WHAT);
        if r.take(4)? != STEPPER_MAGIC {
            return Err(r.error("is not an impetus stepper state (bad magic)"));
        }
        let hz: f64 = r.get()?;
        if hz != self.hz {
            return Err(r.error("was saved at another rate"));
        }
        let (accumulator, max_steps, alpha): (f64, u32, f32) = (r.get()?, r.get()?, r.get()?);
        let (steps, time, dropped): (u64, f64, f64) = (r.get()?, r.get()?, r.get()?);
        let previous: Vec<(u32, Transform)> = r.get()?;
        let world = r.take(r.remaining())?;
        let in_range = accumulator.is_finite()
            && accumulator >= 0.0
            && max_steps > 0
            && (0.0..1.0).contains(&alpha)
            && time.is_finite()
            && dropped.is_finite();
        if !in_range {
            return Err(r.error("holds an accumulator, alpha or time out of range"));
        }
        self.world.restore_state(world)?;
        self.accumulator = accumulator;
        self.max_steps = max_steps;
        self.alpha = alpha;
        self.steps = steps;
        self.time = time;
        self.dropped = dropped;
        self.previous = previous;
        Ok(())
    }

    /// Hands the world to a thread of its own that steps it at this stepper's rate; see
    /// [`PhysicsThread`](thread::PhysicsThread).
    pub fn spawn(self) -> Result<thread::PhysicsThread, Error> {
        thread::PhysicsThread::start(self)
    }
}

/// The pose between `a` (at `alpha` = 0) and `b` (at 1): positions lerped, rotations
/// slerped along the shortest arc.
pub fn interpolate(a: &Transform, b: &Transform, alpha: f32) -> Transform {
    Transform {
        p: a.p.lerp(b.p, alpha),
        q: a.q.slerp(b.q, alpha).normalize(),
    }
}
