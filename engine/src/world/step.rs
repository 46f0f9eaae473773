//! `World::step`: the stages of one fixed step, in order.
//!
//! Each stage is one call, timed by `stage!`: a profiler zone, and its time in the
//! stage's [`Profile`](crate::Profile) field. A step large enough runs on a worker of the
//! pool, with the other workers kept awake beside it ([`KeepAwake`]); the solve stage and
//! what follows it up to the move events run on a worker whenever the solve is shared
//! (see [`World::on_workers`]); their parallel loops then fork and join among the workers.

use super::World;
use crate::error::Error;
use impetus_profiling::{color, join_wait, physics_frame, plot, zone};
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Constraints plus movable bodies from which the solve stage runs on the pool.
const PARALLEL_SOLVE: usize = crate::parallel::par_min(512);
/// Bodies from which the stages after the solve (write-back, bounds, move events) run in
/// parallel.
pub(super) const PARALLEL_FINALIZE: usize = crate::parallel::par_min(1024);

/// Keeps the pool's other workers awake while it lives: each runs a job that takes
/// whatever work the pool has (the stealing a sleeping worker would do once woken) and
/// spins when there is none, so that the step's parallel loops find them ready after its
/// serial parts. A worker asleep after a serial part of 50 µs or more took 30-170 µs to
/// join the next loop on a 2-core host (figures in `docs/decisions.md`, "The lead").
/// Which worker runs which part of a loop never shows in the results.
///
/// [`Self::pause`] lets them go (the substeps' back-to-back passes run in a region of their
/// own, `parallel::with_region`, where the workers spin on one word instead of polling
/// rayon's queues, which slowed those passes); [`Self::resume`] starts them again;
/// dropping it stops them.
pub(crate) struct KeepAwake {
    pool: Arc<rayon::ThreadPool>,
    spin: Arc<Spin>,
}

/// What a [`KeepAwake`] shares with its spinners.
#[derive(Default)]
struct Spin {
    /// The spinners run while this holds the value they were started with.
    era: AtomicU32,
    /// Spinners started and not yet returned.
    running: AtomicUsize,
}

/// The most spin-loop hints an idle [`KeepAwake`] worker waits between looks for work.
const BACKOFF_SPINS: u32 = 512;

/// Looks for work after which an idle [`KeepAwake`] worker also yields its core to the
/// system's other threads between looks.
const YIELD_AFTER: u32 = 64;

impl KeepAwake {
    /// Starts the other workers of `pool` spinning; `None` unless the calling thread is
    /// one of its workers.
    fn start(pool: &Arc<rayon::ThreadPool>) -> Option<Self> {
        pool.current_thread_index()?;
        let awake = KeepAwake {
            pool: Arc::clone(pool),
            spin: Arc::default(),
        };
        awake.resume();
        Some(awake)
    }

    /// Lets the spinning workers go (they finish the work in hand first).
    pub(crate) fn pause(&self) {
        self.spin.era.fetch_add(1, Ordering::AcqRel);
    }

    /// Starts the other workers spinning again. Call it on a worker of the pool with no
    /// parallel work in flight: it waits for the last spinners to return and for the new
    /// ones to start before it returns, so that every spinner runs as its worker's
    /// outermost job. (A spinner that a worker picked up while waiting inside a job
    /// would hold that job's completion until the next pause: a deadlock when the worker
    /// walking the stages waits for that job.)
    pub(crate) fn resume(&self) {
        while self.spin.running.load(Ordering::Acquire) != 0 {
            std::hint::spin_loop();
        }
        let era = self.spin.era.fetch_add(1, Ordering::AcqRel).wrapping_add(1);
        let me = self.pool.current_thread_index();
        let spin = Arc::clone(&self.spin);
        self.pool.spawn_broadcast(move |worker| {
            if Some(worker.index()) == me {
                return;
            }
            spin.running.fetch_add(1, Ordering::AcqRel);
            let mut idle = 0u32;
            while spin.era.load(Ordering::Acquire) == era {
                if rayon::yield_now() == Some(rayon::Yield::Executed) {
                    idle = 0;
                    continue;
                }
                idle = idle.saturating_add(1);
                // Back off, up to `BACKOFF_SPINS` hints (some microseconds) between looks,
                // so as not to keep pulling the lines of the busy worker's job queue.
                for _ in 0..idle.min(BACKOFF_SPINS) {
                    std::hint::spin_loop();
                }
                if idle >= YIELD_AFTER {
                    // Long idle: offer the core to any other thread that wants it.
                    std::thread::yield_now();
                }
            }
            spin.running.fetch_sub(1, Ordering::AcqRel);
        });
        let others = self.pool.current_num_threads().saturating_sub(1);
        while self.spin.running.load(Ordering::Acquire) < others {
            std::hint::spin_loop();
        }
    }
}

impl Drop for KeepAwake {
    fn drop(&mut self) {
        self.pause();
    }
}

/// Milliseconds since `t`.
#[inline]
pub(super) fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// Runs one stage: `stage!(world, field, "Zone", COLOUR, call)` opens the profiler zone
/// (painted with `impetus_profiling::color::COLOUR`), runs the call and stores its time
/// in ms in `world.profile.field`. Evaluates to the call's value.
macro_rules! stage {
    ($world:ident, $field:ident, $name:literal, $color:ident, $body:expr) => {{
        impetus_profiling::zone!($name, impetus_profiling::color::$color);
        let start = std::time::Instant::now();
        let value = $body;
        $world.profile.$field = super::step::ms_since(start);
        value
    }};
}

/// `stage!` for stages that run once per substep, or in parts: adds the time to the
/// profile field instead of storing it.
macro_rules! stage_sum {
    ($world:ident, $field:ident, $name:literal, $color:ident, $body:expr) => {{
        impetus_profiling::zone!($name, impetus_profiling::color::$color);
        let start = std::time::Instant::now();
        let value = $body;
        $world.profile.$field += super::step::ms_since(start);
        value
    }};
}

impl World {
    /// The shortest step [`World::step`] takes, in s (a microsecond): the soft constraints
    /// divide by the substep, and below this their coefficients lose all precision.
    pub const MIN_DT: f32 = 1.0e-6;
    /// The longest step [`World::step`] takes, in s (1,000 s): a body at a speed limit of
    /// 1e9 m/s (the largest velocity a host may set) then moves 1e12 m in a step, still far
    /// from overflowing f32, whereas `dt = f32::MAX` moves every body to infinity.
    pub const MAX_DT: f32 = 1.0e3;

    /// Advances the world by `dt` seconds (one fixed step; use the same `dt` every step).
    /// `dt` must lie in [`World::MIN_DT`]`..=`[`World::MAX_DT`].
    ///
    /// A step large enough to share among the workers (some 500 constraints and movable
    /// bodies) runs inside the worker pool: one worker walks the stages, and while it does
    /// the others stay awake, running whatever its parallel loops hand out. They spin
    /// rather than sleep, so a step keeps every worker's core busy until it returns; with
    /// more workers than cores the step runs on the calling thread, the solve on the pool.
    pub fn step(&mut self, dt: f32) -> Result<(), Error> {
        if !(Self::MIN_DT..=Self::MAX_DT).contains(&dt) {
            return Err(Error::invalid(
                "dt",
                "must be finite, in 1e-6..=1e3 s (World::MIN_DT..=World::MAX_DT)",
            ));
        }
        match self
            .pool
            .clone()
            .filter(|_| self.keep_awake && self.solve_in_parallel())
        {
            Some(pool) => pool.install(|| {
                let awake = KeepAwake::start(&pool);
                self.stages(dt, awake.as_ref())
            }),
            None => self.stages(dt, None),
        }
        Ok(())
    }

    // One stage a line: the step is the table of contents of the engine.
    #[rustfmt::skip]
    fn stages(&mut self, dt: f32, awake: Option<&KeepAwake>) {
        zone!("Step");
        let start = Instant::now();
        self.last_dt = dt;
        self.steps += 1;
        self.events.begin_step();
        stage!(self, forces, "Forces", FORCES, self.apply_environment_forces(dt));
        stage!(self, kinematic, "Kinematic Aim", FORCES, self.aim_kinematic_targets(dt));
        stage!(self, particle_collide, "Particle Collide", NARROW_PHASE, self.collide_particles(dt));
        stage!(self, broadphase, "Broadphase", BROADPHASE, self.update_broadphase());
        stage!(self, narrowphase, "Narrow Phase", NARROW_PHASE, self.collide(dt));
        let ctx = self.step_context(dt);
        let parallel = self.solve_in_parallel();
        self.on_workers(parallel, |w| {
            w.in_region(parallel, awake, |w| w.solve(&ctx, parallel));
            let many = parallel && w.solver.slot.len() >= PARALLEL_FINALIZE;
            stage!(w, finalize, "Finalize", SOLVE, w.write_back(many));
            stage!(w, continuous, "Continuous", SOLVE, w.continuous(parallel));
            stage_sum!(w, finalize, "Bounds", SOLVE, w.refit_moved(many));
        });
        // Before the kinematic bodies stop on their targets: a moving kinematic body keeps
        // what it touches awake.
        stage!(self, sleep, "Sleep", SLEEP, self.update_sleep(dt));
        stage_sum!(self, kinematic, "Kinematic Land", FORCES, self.land_kinematic_targets());
        self.end_step(start);
    }

    /// Whether this step's solve runs on the pool: a small scene runs on the calling
    /// thread, as waking the pool for a few dozen bodies costs more than it saves. The
    /// work count is this step's constraints plus last step's movable bodies; the result
    /// does not depend on the choice.
    fn solve_in_parallel(&self) -> bool {
        let work = self.touching.contacts.len()
            + self.joints.pool.live()
            + self.solver.states.len()
            + self.particles.pool.live();
        self.pool.is_some() && work >= PARALLEL_SOLVE
    }

    /// Runs `stages` inside the pool when `parallel` (the calling thread waits at the join
    /// while a worker runs them and the others their parallel loops), else on the calling
    /// thread. One wake of the pool for the whole solve stage: see `docs/decisions.md`,
    /// "Fork and join in one pool install".
    fn on_workers(&mut self, parallel: bool, stages: impl FnOnce(&mut World) + Send) {
        zone!("Solve Stage", color::SOLVE);
        match self.pool.clone() {
            Some(pool) if parallel => {
                join_wait!(color::WAIT);
                pool.install(|| {
                    zone!("Solve Stage on Worker", color::SOLVE);
                    stages(self)
                });
            }
            _ => stages(self),
        }
    }

    /// The step's total time and the profiler's plots and frame mark.
    fn end_step(&mut self, start: Instant) {
        self.profile.step = ms_since(start);
        plot!("awake bodies", self.profile.awake_bodies);
        plot!("contacts", self.profile.manifolds);
        plot!("touching points", self.profile.points);
        plot!("recycled manifolds", self.profile.recycled);
        physics_frame!();
    }
}
