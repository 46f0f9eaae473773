//! A world stepped on a thread of its own at a fixed rate: [`PhysicsThread`].
//!
//! The physics thread owns the [`Stepper`] (and so the world). It sleeps until the next
//! tick (`start + k / hz`), applies the commands that arrived meanwhile in the order they
//! were sent, runs one step and publishes a [`Frame`]. When it falls behind (a step took
//! longer than `1 / hz`) it runs the owed steps back to back, at most
//! [`Stepper::max_steps`] in a row; ticks owed beyond that are dropped (counted in
//! [`Frame::dropped_time`]) so a slow machine runs the simulation slower than real time
//! instead of falling further behind every tick.
//!
//! The host talks to it in two directions, neither of which waits on the other's work:
//! - **Commands** go through an unbounded crossbeam channel ([`PhysicsCommands`], cloneable,
//!   usable from any thread). Creating a body answers through a one-shot channel: the
//!   host gets a [`PendingBody`] at once and polls it ([`PendingBody::try_get`]) on later
//!   frames, or blocks on it ([`PendingBody::wait`]) when it must. Commands that fail on
//!   the physics thread (a stale id) report their error to [`PhysicsThread::errors`].
//! - **Poses** are published as an immutable [`Frame`] behind `Mutex<Arc<Frame>>`. The
//!   physics thread builds each frame outside the lock and only swaps the pointer under
//!   it; a reader only clones the pointer under it. Neither holds the lock for more than
//!   a pointer copy, and a frame is never written after it was published, so a reader
//!   always sees one whole step. Frames that no reader holds any more are reused, so a
//!   steady run does not allocate per step.

use super::Stepper;
use crate::body::BodyDef;
use crate::error::Error;
use crate::id::BodyId;
use crate::math::{is_finite3, Transform};
use crate::world::{ShapeDef, World};
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use glam::Vec3;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The poses after one step, as the physics thread published them.
#[derive(Clone, Debug, Default)]
pub struct Frame {
    /// Steps run before this frame was taken (0: the poses before the first step).
    pub step: u64,
    /// Simulated time, `step / hz`, in s.
    pub time: f64,
    /// Simulated time dropped so far because the thread fell more than
    /// [`Stepper::max_steps`] steps behind, in s.
    pub dropped_time: f64,
    /// Every live body and its pose, in slot order (ascending `BodyId::index`).
    pub bodies: Vec<(BodyId, Transform)>,
}

impl Frame {
    /// The pose of `id` in this frame, if the body was live then (binary search).
    pub fn pose(&self, id: BodyId) -> Option<Transform> {
        let k = self
            .bodies
            .binary_search_by_key(&id.index, |(b, _)| b.index)
            .ok()?;
        let (b, xf) = self.bodies[k];
        (b == id).then_some(xf)
    }

    fn fill(&mut self, stepper: &Stepper) {
        let w = stepper.world();
        self.step = stepper.steps();
        self.time = stepper.time();
        self.dropped_time = stepper.dropped_time();
        self.bodies.clear();
        self.bodies.extend(
            (0..w.body_pool.capacity())
                .filter(|&i| w.body_pool.is_alive(i))
                .map(|i| {
                    let id = BodyId {
                        index: i as u32,
                        generation: w.body_pool.generation(i),
                    };
                    (id, w.bodies.origin(i))
                }),
        );
    }
}

/// A closure run on the physics thread with the world, between two steps.
type WorldFn = Box<dyn FnOnce(&mut World) + Send>;

enum Command {
    CreateBody {
        def: BodyDef,
        shapes: Vec<ShapeDef>,
        reply: Sender<Result<BodyId, Error>>,
    },
    RemoveBody(BodyId),
    LinearImpulse(BodyId, Vec3, Vec3),
    Force(BodyId, Vec3, Vec3),
    Torque(BodyId, Vec3),
    LinearVelocity(BodyId, Vec3),
    AngularVelocity(BodyId, Vec3),
    Transform(BodyId, Transform),
    TargetPose(BodyId, Transform),
    Run(WorldFn),
    SaveState(Sender<Vec<u8>>),
    Rewind {
        state: Arc<Vec<u8>>,
        steps: u32,
        input: ReplayFn,
    },
    Stop,
}

/// The inputs of one replayed step: called with the step's number (the stepper's step
/// count before it) and the world, before the step.
type ReplayFn = Box<dyn FnMut(u64, &mut World) + Send>;

impl Command {
    fn apply(self, world: &mut World) -> Result<(), Error> {
        match self {
            Command::CreateBody { def, shapes, reply } => {
                let result = create_with_shapes(world, &def, &shapes);
                // The host may have dropped its `PendingBody`: nobody to tell.
                let _ = reply.send(result);
                Ok(())
            }
            Command::RemoveBody(id) => world.remove_body(id),
            Command::LinearImpulse(id, impulse, point) => {
                world.apply_linear_impulse(id, impulse, point)
            }
            Command::Force(id, force, point) => world.apply_force(id, force, point),
            Command::Torque(id, torque) => world.apply_torque(id, torque),
            Command::LinearVelocity(id, v) => world.set_body_linear_velocity(id, v),
            Command::AngularVelocity(id, w) => world.set_body_angular_velocity(id, w),
            Command::Transform(id, xf) => world.set_body_transform(id, xf.p, xf.q),
            Command::TargetPose(id, xf) => world.set_body_target_pose(id, xf),
            Command::Run(f) => {
                f(world);
                Ok(())
            }
            Command::SaveState(_) | Command::Rewind { .. } | Command::Stop => Ok(()),
        }
    }
}

/// Creates a body and its shapes, or nothing: a shape that fails removes the body again.
fn create_with_shapes(
    world: &mut World,
    def: &BodyDef,
    shapes: &[ShapeDef],
) -> Result<BodyId, Error> {
    for s in shapes {
        s.validate()?;
    }
    let id = world.create_body(def)?;
    for s in shapes {
        if let Err(e) = world.add_shape(id, s) {
            let _ = world.remove_body(id);
            return Err(e);
        }
    }
    Ok(id)
}

/// The answer to [`PhysicsCommands::create_body`]: the new body's id once the physics
/// thread has created it (before its next step).
#[derive(Debug)]
pub struct PendingBody {
    reply: Receiver<Result<BodyId, Error>>,
    result: Option<Result<BodyId, Error>>,
}

impl PendingBody {
    /// The id if the body has been created (or the error if it could not be), without
    /// waiting: `None` while the command is still queued. Poll it on later frames.
    pub fn try_get(&mut self) -> Option<Result<BodyId, Error>> {
        if self.result.is_none() {
            match self.reply.try_recv() {
                Ok(r) => self.result = Some(r),
                Err(crossbeam_channel::TryRecvError::Empty) => return None,
                Err(crossbeam_channel::TryRecvError::Disconnected) => {
                    self.result = Some(Err(thread_gone()))
                }
            }
        }
        self.result.clone()
    }

    /// Blocks until the physics thread has run the command (at most about one step).
    pub fn wait(mut self) -> Result<BodyId, Error> {
        match self.result.take() {
            Some(r) => r,
            None => self.reply.recv().unwrap_or_else(|_| Err(thread_gone())),
        }
    }
}

fn thread_gone() -> Error {
    Error::Unsupported {
        what: "the physics thread has stopped",
    }
}

fn check(field: &'static str, v: Vec3) -> Result<(), Error> {
    if is_finite3(v) {
        Ok(())
    } else {
        Err(Error::invalid(field, "must be finite"))
    }
}

fn check_transform(xf: &Transform) -> Result<(), Error> {
    check("Transform::p", xf.p)?;
    if !xf.q.is_finite() || !(1.0e-12..=f32::MAX).contains(&xf.q.length_squared()) {
        return Err(Error::invalid(
            "Transform::q",
            "must be a finite, non-zero quaternion",
        ));
    }
    Ok(())
}

/// Sends commands to a [`PhysicsThread`]; clone it to send from several threads.
///
/// Each call checks its own arguments (non-finite values are an `Err` at once) and queues
/// the command; it never waits for the physics thread. Commands are applied in the order
/// they were sent (from one thread; across threads in the order the channel received
/// them), all before the next step. A command that fails on the physics thread (a stale
/// or removed body) reports to [`PhysicsThread::errors`]. Every call returns `Err` once
/// the physics thread has stopped.
#[derive(Clone, Debug)]
pub struct PhysicsCommands {
    tx: Sender<Command>,
}

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Command")
    }
}

impl PhysicsCommands {
    fn send(&self, c: Command) -> Result<(), Error> {
        self.tx.send(c).map_err(|_| thread_gone())
    }

    /// Creates a body with the given shapes (all or nothing). The id arrives through the
    /// returned [`PendingBody`].
    pub fn create_body(&self, def: &BodyDef, shapes: &[ShapeDef]) -> Result<PendingBody, Error> {
        def.validate()?;
        for s in shapes {
            s.validate()?;
        }
        let (reply, rx) = crossbeam_channel::bounded(1);
        self.send(Command::CreateBody {
            def: *def,
            shapes: shapes.to_vec(),
            reply,
        })?;
        Ok(PendingBody {
            reply: rx,
            result: None,
        })
    }

    /// Removes a body (see [`World::remove_body`]).
    pub fn remove_body(&self, id: BodyId) -> Result<(), Error> {
        self.send(Command::RemoveBody(id))
    }

    /// Applies an impulse (N·s) at a world point (see [`World::apply_linear_impulse`]).
    pub fn apply_linear_impulse(
        &self,
        id: BodyId,
        impulse: Vec3,
        point: Vec3,
    ) -> Result<(), Error> {
        check("impulse", impulse)?;
        check("point", point)?;
        self.send(Command::LinearImpulse(id, impulse, point))
    }

    /// Adds a force (N) at a world point for the next step (see [`World::apply_force`]).
    pub fn apply_force(&self, id: BodyId, force: Vec3, point: Vec3) -> Result<(), Error> {
        check("force", force)?;
        check("point", point)?;
        self.send(Command::Force(id, force, point))
    }

    /// Adds a torque (N·m) for the next step (see [`World::apply_torque`]).
    pub fn apply_torque(&self, id: BodyId, torque: Vec3) -> Result<(), Error> {
        check("torque", torque)?;
        self.send(Command::Torque(id, torque))
    }

    /// Sets the linear velocity, in m/s (see [`World::set_body_linear_velocity`]).
    pub fn set_body_linear_velocity(&self, id: BodyId, velocity: Vec3) -> Result<(), Error> {
        check("linear_velocity", velocity)?;
        self.send(Command::LinearVelocity(id, velocity))
    }

    /// Sets the angular velocity, in rad/s (see [`World::set_body_angular_velocity`]).
    pub fn set_body_angular_velocity(&self, id: BodyId, velocity: Vec3) -> Result<(), Error> {
        check("angular_velocity", velocity)?;
        self.send(Command::AngularVelocity(id, velocity))
    }

    /// Teleports a body (see [`World::set_body_transform`]).
    pub fn set_body_transform(&self, id: BodyId, transform: Transform) -> Result<(), Error> {
        check_transform(&transform)?;
        self.send(Command::Transform(id, transform))
    }

    /// Moves a kinematic body to a pose over the next step (see [`World::set_body_target_pose`]).
    pub fn set_body_target_pose(&self, id: BodyId, target: Transform) -> Result<(), Error> {
        check_transform(&target)?;
        self.send(Command::TargetPose(id, target))
    }

    /// Renamed [`PhysicsCommands::set_body_linear_velocity`].
    #[deprecated(since = "0.2.0", note = "renamed `set_body_linear_velocity`")]
    pub fn set_linear_velocity(&self, id: BodyId, velocity: Vec3) -> Result<(), Error> {
        self.set_body_linear_velocity(id, velocity)
    }

    /// Renamed [`PhysicsCommands::set_body_angular_velocity`].
    #[deprecated(since = "0.2.0", note = "renamed `set_body_angular_velocity`")]
    pub fn set_angular_velocity(&self, id: BodyId, velocity: Vec3) -> Result<(), Error> {
        self.set_body_angular_velocity(id, velocity)
    }

    /// Renamed [`PhysicsCommands::set_body_transform`].
    #[deprecated(since = "0.2.0", note = "renamed `set_body_transform`")]
    pub fn set_transform(&self, id: BodyId, transform: Transform) -> Result<(), Error> {
        self.set_body_transform(id, transform)
    }

    /// Renamed [`PhysicsCommands::set_body_target_pose`].
    #[deprecated(since = "0.2.0", note = "renamed `set_body_target_pose`")]
    pub fn set_target_pose(&self, id: BodyId, target: Transform) -> Result<(), Error> {
        self.set_body_target_pose(id, target)
    }

    /// Asks for the stepper's state (see [`Stepper::save_state`]) as it is when the
    /// physics thread reaches this command, before its next step: the frame to roll back
    /// to. The bytes arrive through the returned channel.
    pub fn save_state(&self) -> Result<Receiver<Vec<u8>>, Error> {
        let (reply, rx) = crossbeam_channel::bounded(1);
        self.send(Command::SaveState(reply))?;
        Ok(rx)
    }

    /// Rollback: restores `state` (from [`save_state`](Self::save_state)) and re-runs
    /// `steps` steps at once, before the next tick, calling `input(step, world)` before
    /// each with the step's number (the stepper's count before it), so the host applies
    /// the corrected inputs of the frames since the state. The thread then ticks on from
    /// the replayed frame. A state that does not restore reports to
    /// [`PhysicsThread::errors`] and changes nothing.
    pub fn rewind_to(
        &self,
        state: Arc<Vec<u8>>,
        steps: u32,
        input: impl FnMut(u64, &mut World) + Send + 'static,
    ) -> Result<(), Error> {
        self.send(Command::Rewind {
            state,
            steps,
            input: Box::new(input),
        })
    }

    /// Runs `f` with the world on the physics thread, in order with the other commands:
    /// for anything the commands above do not cover. A panic in `f` stops the thread and
    /// surfaces as [`Error::ThreadPanicked`] from [`PhysicsThread::stop`].
    pub fn run(&self, f: impl FnOnce(&mut World) + Send + 'static) -> Result<(), Error> {
        self.send(Command::Run(Box::new(f)))
    }
}

/// Reads the latest [`Frame`] of a [`PhysicsThread`] from any thread; cloneable.
#[derive(Clone, Debug)]
pub struct FrameReader {
    latest: Arc<Mutex<Arc<Frame>>>,
}

impl FrameReader {
    /// The last published frame. Never waits for a step: the lock guards a pointer copy.
    pub fn latest(&self) -> Arc<Frame> {
        lock(&self.latest).clone()
    }
}

/// A poisoned lock only means a thread panicked while copying a pointer: the pointer is
/// whole, so take it.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A world stepping at a fixed rate on its own thread.
///
/// # Example
/// ```
/// use impetus::{BodyDef, ShapeDef, Stepper, Vec3, World, WorldDef};
///
/// let world = World::new(WorldDef { worker_count: 1, ..Default::default() })?;
/// let physics = Stepper::new(world, 240.0)?.spawn()?;
/// let commands = physics.commands();
/// let pending = commands.create_body(&BodyDef::default(), &[ShapeDef::sphere(0.5)])?;
/// let ball = pending.wait()?; // or poll `try_get` on later frames
/// commands.set_body_linear_velocity(ball, Vec3::X)?;
/// let frame = physics.latest_frame(); // never blocks
/// let _pose = frame.pose(ball); // None until a frame after the creation is published
/// let stepper = physics.stop()?; // joins the thread
/// assert!(stepper.world().contains_body(ball));
/// # Ok::<(), impetus::Error>(())
/// ```
pub struct PhysicsThread {
    commands: PhysicsCommands,
    reader: FrameReader,
    errors: Receiver<Error>,
    handle: Option<JoinHandle<Stepper>>,
}

impl PhysicsThread {
    /// Starts stepping `world` at `hz` steps per second on a new thread.
    pub fn spawn(world: World, hz: f32) -> Result<PhysicsThread, Error> {
        Stepper::new(world, hz)?.spawn()
    }

    pub(super) fn start(stepper: Stepper) -> Result<PhysicsThread, Error> {
        let (tx, rx) = crossbeam_channel::unbounded();
        let (error_tx, errors) = crossbeam_channel::unbounded();
        let mut first = Frame::default();
        first.fill(&stepper);
        let latest = Arc::new(Mutex::new(Arc::new(first)));
        let shared = latest.clone();
        let handle = std::thread::Builder::new()
            .name("impetus-physics".into())
            .spawn(move || {
                impetus_profiling::name_thread("impetus-physics");
                run(stepper, rx, error_tx, shared)
            })
            .map_err(|_| Error::Unsupported {
                what: "could not start the physics thread",
            })?;
        Ok(PhysicsThread {
            commands: PhysicsCommands { tx },
            reader: FrameReader { latest },
            errors,
            handle: Some(handle),
        })
    }

    /// A sender of commands (clone it for other threads).
    pub fn commands(&self) -> PhysicsCommands {
        self.commands.clone()
    }

    /// A reader of frames (clone it for other threads).
    pub fn frame_reader(&self) -> FrameReader {
        self.reader.clone()
    }

    /// The last published frame, without waiting.
    pub fn latest_frame(&self) -> Arc<Frame> {
        self.reader.latest()
    }

    /// Errors of commands that failed on the physics thread since the last call, in
    /// order (never waits).
    pub fn errors(&self) -> Vec<Error> {
        self.errors.try_iter().collect()
    }

    /// Applies the queued commands, stops the thread after the step it is running (if
    /// any) and gives the stepper, with its world, back. `Err(Error::ThreadPanicked)` if
    /// the physics thread panicked (the world is lost then).
    pub fn stop(mut self) -> Result<Stepper, Error> {
        self.join()
    }

    fn join(&mut self) -> Result<Stepper, Error> {
        let Some(handle) = self.handle.take() else {
            return Err(thread_gone());
        };
        // The thread may be gone already (panicked): nothing to tell then.
        let _ = self.commands.tx.send(Command::Stop);
        handle.join().map_err(|payload| {
            let message = if let Some(s) = payload.downcast_ref::<&str>() {
                (*s).to_string()
            } else if let Some(s) = payload.downcast_ref::<String>() {
                s.clone()
            } else {
                "(not a string)".to_string()
            };
            Error::ThreadPanicked { message }
        })
    }
}

impl Drop for PhysicsThread {
    /// Stops and joins the thread; the world is dropped with it. A panic on the physics
    /// thread is not propagated here (use [`PhysicsThread::stop`] to see it).
    fn drop(&mut self) {
        if self.handle.is_some() {
            let _ = self.join();
        }
    }
}

/// Restores `state` into the stepper and runs `steps` steps at once, each after `input`.
fn rewind(
    stepper: &mut Stepper,
    state: &[u8],
    steps: u32,
    input: &mut ReplayFn,
) -> Result<(), Error> {
    stepper.restore_state(state)?;
    for _ in 0..steps {
        input(stepper.steps(), stepper.world_mut());
        stepper.step_once()?;
    }
    Ok(())
}

/// The physics thread's loop. Returns the stepper on `Stop` or when every sender is gone.
fn run(
    mut stepper: Stepper,
    rx: Receiver<Command>,
    errors: Sender<Error>,
    latest: Arc<Mutex<Arc<Frame>>>,
) -> Stepper {
    let tick = Duration::from_secs_f64(stepper.dt());
    let mut next = Instant::now() + tick;
    // Steps run back to back without reaching a tick in the future.
    let mut burst = 0;
    let mut spare: Option<Arc<Frame>> = None;
    loop {
        // Apply commands as they arrive until the tick is due (at once if it is past).
        loop {
            match rx.recv_deadline(next) {
                Ok(Command::Stop) => return stepper,
                Ok(Command::SaveState(reply)) => {
                    let mut out = Vec::new();
                    stepper.save_state(&mut out);
                    let _ = reply.send(out);
                }
                Ok(Command::Rewind {
                    state,
                    steps,
                    mut input,
                }) => {
                    if let Err(e) = rewind(&mut stepper, &state, steps, &mut input) {
                        let _ = errors.send(e);
                    }
                }
                Ok(c) => {
                    if let Err(e) = c.apply(stepper.world_mut()) {
                        let _ = errors.send(e);
                    }
                }
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return stepper,
            }
        }
        if let Err(e) = stepper.step_once() {
            let _ = errors.send(e);
        }
        // Build the frame outside the lock, reusing one no reader holds any more.
        let mut frame = match spare.take() {
            Some(a) if Arc::strong_count(&a) == 1 => a,
            _ => Arc::default(),
        };
        Arc::make_mut(&mut frame).fill(&stepper);
        spare = Some(std::mem::replace(&mut *lock(&latest), frame));

        next += tick;
        burst += 1;
        let now = Instant::now();
        if next > now {
            burst = 0;
        } else if burst >= stepper.max_steps() {
            // Too far behind: drop the owed ticks and start again from now.
            let owed = ((now - next).as_secs_f64() / stepper.dt()).floor() + 1.0;
            stepper.dropped += owed * stepper.dt();
            next += Duration::from_secs_f64(owed * stepper.dt());
            burst = 0;
        }
    }
}
