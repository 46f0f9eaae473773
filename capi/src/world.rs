//! Worlds: the registry behind [`ImpWorldId`], the world definition, stepping, the fixed-rate
//! stepper, gravity, sleep, the state hash, snapshots and the world's callbacks.

use crate::events::EventCache;
use crate::{
    guard, need, put, Def, Fail, ImpShapeId, ImpStatus, ImpTransform, ImpVec3, ImpWorldId, R,
};
use engine::{ContactSettings, Stepper, World, WorldDef};
use std::ffi::c_void;
use std::sync::{Arc, Mutex, TryLockError};

/// What the registry holds for a live world: the world (or the stepper that owns it) and
/// the buffers behind the event views.
pub(crate) struct Host {
    sim: Sim,
    /// Converted events, filled on first read after a step.
    pub events: EventCache,
}

enum Sim {
    World(Box<World>),
    Stepper(Box<Stepper>),
}

impl Host {
    pub fn world_mut(&mut self) -> &mut World {
        match &mut self.sim {
            Sim::World(w) => w,
            Sim::Stepper(s) => s.world_mut(),
        }
    }

    /// The world and the event buffers, borrowed apart.
    pub fn parts(&mut self) -> (&World, &mut EventCache) {
        let world = match &self.sim {
            Sim::World(w) => w,
            Sim::Stepper(s) => s.world(),
        };
        (world, &mut self.events)
    }

    pub fn stepper(&self) -> R<&Stepper> {
        match &self.sim {
            Sim::Stepper(s) => Ok(s),
            Sim::World(_) => Err(no_stepper()),
        }
    }

    pub fn stepper_mut(&mut self) -> R<&mut Stepper> {
        match &mut self.sim {
            Sim::Stepper(s) => Ok(s),
            Sim::World(_) => Err(no_stepper()),
        }
    }
}

fn no_stepper() -> Fail {
    Fail::new(
        ImpStatus::IMP_ERR_UNSUPPORTED,
        "the world has no stepper: call imp_world_enable_stepper first",
    )
}

struct Slot {
    generation: u32,
    host: Option<Arc<Mutex<Host>>>,
}

/// The live worlds, by slot. Locked only to look an id up, create or destroy.
static WORLDS: Mutex<Vec<Slot>> = Mutex::new(Vec::new());

fn registry() -> std::sync::MutexGuard<'static, Vec<Slot>> {
    // The registry's critical sections cannot panic half-way, so a poisoned lock still
    // holds consistent data.
    WORLDS.lock().unwrap_or_else(|e| e.into_inner())
}

fn lookup(id: ImpWorldId) -> R<Arc<Mutex<Host>>> {
    let worlds = registry();
    id.index
        .checked_sub(1)
        .and_then(|i| worlds.get(i as usize))
        .filter(|slot| slot.generation == id.generation)
        .and_then(|slot| slot.host.clone())
        .ok_or_else(|| {
            Fail::new(
                ImpStatus::IMP_ERR_STALE_ID,
                "stale ImpWorldId: the world was destroyed, or the id is null",
            )
        })
}

/// Runs `f` on the world `id` while holding it; a world in use elsewhere is
/// `IMP_ERR_BUSY`, one an earlier call panicked in is `IMP_ERR_POISONED`.
pub(crate) fn with_host<T>(id: ImpWorldId, f: impl FnOnce(&mut Host) -> R<T>) -> R<T> {
    let host = lookup(id)?;
    let mut guard =
        match host.try_lock() {
            Ok(g) => g,
            Err(TryLockError::WouldBlock) => return Err(Fail::new(
                ImpStatus::IMP_ERR_BUSY,
                "the world is in use by another thread or by a callback of its own step or query",
            )),
            Err(TryLockError::Poisoned(_)) => {
                return Err(Fail::new(
                    ImpStatus::IMP_ERR_POISONED,
                    "the world is poisoned: an earlier call panicked inside it; destroy it",
                ))
            }
        };
    f(&mut guard)
}

/// [`with_host`] on the world itself.
pub(crate) fn with_world<T>(id: ImpWorldId, f: impl FnOnce(&mut World) -> R<T>) -> R<T> {
    with_host(id, |h| f(h.world_mut()))
}

/// Panics inside world `id` while holding it, as a bug in the engine would: for the tests
/// of the poisoning (not part of the C ABI).
#[doc(hidden)]
pub fn panic_inside_world_for_tests(id: ImpWorldId) -> ImpStatus {
    guard(|| with_world(id, |_| panic!("a test panic inside the world")))
}

/// Everything needed to create a world. Get one from `imp_default_world_def()`; each field
/// is the engine's `WorldDef` field of the same name (SI units).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ImpWorldDef {
    /// Gravity acceleration, m/s². Default: (0, -9.81, 0).
    pub gravity: ImpVec3,
    /// Solver substeps per step. Default: 4.
    pub substeps: u32,
    /// Contact stiffness, Hz. Default: 30.
    pub contact_hertz: f32,
    /// Contact damping ratio. Default: 10.
    pub contact_damping_ratio: f32,
    /// Joint stiffness, Hz. Default: 60.
    pub joint_hertz: f32,
    /// Joint damping ratio. Default: 2.
    pub joint_damping_ratio: f32,
    /// Fastest push-out speed of overlapping bodies, m/s. Default: 3.
    pub max_push_speed: f32,
    /// Length tolerance, m. Default: 0.005.
    pub linear_slop: f32,
    /// Speculative contact distance, m. Default: 0.02.
    pub speculative_distance: f32,
    /// Broadphase fat-box margin, m. Default: 0.1.
    pub aabb_margin: f32,
    /// Broadphase grid cell edge, m; 0 chooses it. Default: 0.
    pub broadphase_cell_size: f32,
    /// Approach speeds below this do not bounce, m/s. Default: 1.
    pub restitution_threshold: f32,
    /// Sliding speed under which static friction holds, m/s. Default: 0.01.
    pub static_friction_speed: f32,
    /// Speed cap of any body, m/s. Default: 400.
    pub max_linear_speed: f32,
    /// Keep touching manifolds of bodies that barely moved. Default: true.
    pub contact_recycling: bool,
    /// Air density for drag, kg/m³. Default: 1.225.
    pub air_density: f32,
    /// Sweep fast bodies against static geometry. Default: true.
    pub sweep_fast_bodies: bool,
    /// Worker threads; 0 means all cores, 1 runs on the calling thread. Default: 0.
    pub worker_count: u32,
    /// Approach speed above which shapes with hit events report a hit, m/s. Default: 1.
    pub hit_event_threshold: f32,
    /// Let resting islands fall asleep. Default: true.
    pub enable_sleep: bool,
    /// Speed under which a body counts as resting, m/s. Default: 0.05.
    pub sleep_threshold: f32,
    /// Rest time before an island sleeps, s. Default: 0.5.
    pub time_to_sleep: f32,
    /// Set by `imp_default_world_def()`; checked by `imp_world_create`. Do not touch.
    pub internal_value: u32,
}

// SAFETY: a repr(C) struct of numbers, bools and ids: all-zero bytes are valid.
unsafe impl Def for ImpWorldDef {
    const COOKIE: u32 = 0x1e70_0001;
    const NAME: &'static str = "ImpWorldDef";
    fn cookie(p: *const Self) -> *const u32 {
        // SAFETY: only the field's address is computed (no read); the caller passes a
        // non-null pointer to a (possibly uninitialised) ImpWorldDef.
        unsafe { std::ptr::addr_of!((*p).internal_value) }
    }
}

/// A world definition with every default filled in.
#[no_mangle]
pub extern "C" fn imp_default_world_def() -> ImpWorldDef {
    crate::or_refused(default_world_def)
}

fn default_world_def() -> ImpWorldDef {
    let d = WorldDef::default();
    ImpWorldDef {
        gravity: d.gravity.into(),
        substeps: d.substeps,
        contact_hertz: d.contact_hertz,
        contact_damping_ratio: d.contact_damping_ratio,
        joint_hertz: d.joint_hertz,
        joint_damping_ratio: d.joint_damping_ratio,
        max_push_speed: d.max_push_speed,
        linear_slop: d.linear_slop,
        speculative_distance: d.speculative_distance,
        aabb_margin: d.aabb_margin,
        broadphase_cell_size: d.broadphase_cell_size,
        restitution_threshold: d.restitution_threshold,
        static_friction_speed: d.static_friction_speed,
        max_linear_speed: d.max_linear_speed,
        contact_recycling: d.contact_recycling,
        air_density: d.air_density,
        sweep_fast_bodies: d.sweep_fast_bodies,
        worker_count: d.worker_count as u32,
        hit_event_threshold: d.hit_event_threshold,
        enable_sleep: d.enable_sleep,
        sleep_threshold: d.sleep_threshold,
        time_to_sleep: d.time_to_sleep,
        internal_value: ImpWorldDef::COOKIE,
    }
}

impl From<&ImpWorldDef> for WorldDef {
    fn from(d: &ImpWorldDef) -> WorldDef {
        WorldDef {
            gravity: d.gravity.into(),
            substeps: d.substeps,
            contact_hertz: d.contact_hertz,
            contact_damping_ratio: d.contact_damping_ratio,
            joint_hertz: d.joint_hertz,
            joint_damping_ratio: d.joint_damping_ratio,
            max_push_speed: d.max_push_speed,
            linear_slop: d.linear_slop,
            speculative_distance: d.speculative_distance,
            aabb_margin: d.aabb_margin,
            broadphase_cell_size: d.broadphase_cell_size,
            restitution_threshold: d.restitution_threshold,
            static_friction_speed: d.static_friction_speed,
            max_linear_speed: d.max_linear_speed,
            contact_recycling: d.contact_recycling,
            air_density: d.air_density,
            sweep_fast_bodies: d.sweep_fast_bodies,
            worker_count: d.worker_count as usize,
            hit_event_threshold: d.hit_event_threshold,
            enable_sleep: d.enable_sleep,
            sleep_threshold: d.sleep_threshold,
            time_to_sleep: d.time_to_sleep,
        }
    }
}

fn register(world: World) -> ImpWorldId {
    let host = Arc::new(Mutex::new(Host {
        sim: Sim::World(Box::new(world)),
        events: EventCache::default(),
    }));
    let mut worlds = registry();
    let i = match worlds.iter().position(|s| s.host.is_none()) {
        Some(i) => i,
        None => {
            worlds.push(Slot {
                generation: 0,
                host: None,
            });
            worlds.len() - 1
        }
    };
    let slot = &mut worlds[i];
    slot.generation = slot.generation.wrapping_add(1).max(1);
    slot.host = Some(host);
    ImpWorldId {
        index: i as u32 + 1,
        generation: slot.generation,
    }
}

/// Creates a world from `def` and writes its id to `out`.
#[no_mangle]
pub unsafe extern "C" fn imp_world_create(
    def: *const ImpWorldDef,
    out: Option<&mut ImpWorldId>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        // SAFETY: the caller's contract: a non-null `def` points to an ImpWorldDef.
        let d = unsafe { crate::def(def, "def") }?;
        let world = World::new(WorldDef::from(d))?;
        *out = register(world);
        Ok(())
    })
}

/// Creates a world from an image written by `imp_world_save_image` (`size` bytes at
/// `bytes`), with `worker_count` workers (0: all cores), and writes its id to `out`.
#[no_mangle]
pub unsafe extern "C" fn imp_world_create_from_image(
    bytes: *const u8,
    size: usize,
    worker_count: u32,
    out: Option<&mut ImpWorldId>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        // SAFETY: the caller's contract: `bytes` points to `size` readable bytes.
        let image = unsafe { crate::slice(bytes, size, "bytes") }?;
        let world = World::from_image_with_workers(image, worker_count as usize)?;
        *out = register(world);
        Ok(())
    })
}

/// Destroys a world and everything in it; its id and the ids of its objects go stale.
/// Works on a poisoned world too. `IMP_ERR_BUSY` while another thread uses it.
#[no_mangle]
pub extern "C" fn imp_world_destroy(world: ImpWorldId) -> ImpStatus {
    guard(|| {
        let host = lookup(world)?;
        // Refuse while the world is in use (a step on another thread, or a callback of
        // its own step destroying it); a poisoned world may be destroyed.
        if let Err(TryLockError::WouldBlock) = host.try_lock() {
            return Err(Fail::new(
                ImpStatus::IMP_ERR_BUSY,
                "the world is in use by another thread or by one of its callbacks",
            ));
        }
        let mut worlds = registry();
        let slot = &mut worlds[world.index as usize - 1];
        // Another thread may have destroyed it since the look-up (and a new world may hold
        // the slot now): take it only while it is still this world.
        let taken = match &slot.host {
            Some(h) if slot.generation == world.generation && Arc::ptr_eq(h, &host) => {
                slot.host.take()
            }
            _ => None,
        };
        drop(worlds);
        if taken.is_none() {
            return Err(Fail::new(
                ImpStatus::IMP_ERR_STALE_ID,
                "stale ImpWorldId: the world was destroyed",
            ));
        }
        // The world is freed here, or by whichever thread still holds it, when it lets go.
        drop(host);
        drop(taken);
        Ok(())
    })
}

/// Whether `world` is the id of a live world. Leaves `imp_last_error()` as it was.
#[no_mangle]
pub extern "C" fn imp_world_is_valid(world: ImpWorldId) -> bool {
    std::panic::catch_unwind(|| lookup(world).is_ok()).unwrap_or(false)
}

/// Advances the world by `dt` seconds (one step). Event views of the previous step become
/// invalid.
#[no_mangle]
pub extern "C" fn imp_world_step(world: ImpWorldId, dt: f32) -> ImpStatus {
    guard(|| {
        with_host(world, |h| {
            h.world_mut().step(dt)?;
            // The last step's views go stale now (not on a refused step).
            h.events.clear();
            Ok(())
        })
    })
}

/// Writes the world's gravity (m/s²) to `out`.
#[no_mangle]
pub extern "C" fn imp_world_get_gravity(world: ImpWorldId, out: Option<&mut ImpVec3>) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| put(Some(out), "out", w.gravity().into()))
    })
}

/// Sets the world's gravity, in m/s².
#[no_mangle]
pub extern "C" fn imp_world_set_gravity(world: ImpWorldId, gravity: ImpVec3) -> ImpStatus {
    guard(|| with_world(world, |w| Ok(w.set_gravity(gravity.into())?)))
}

/// Writes the number of worker threads the world steps with (its definition's count, all
/// cores resolved) to `out`.
#[no_mangle]
pub extern "C" fn imp_world_get_worker_count(
    world: ImpWorldId,
    out: Option<&mut u32>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| put(Some(out), "out", w.worker_count() as u32))
    })
}

/// Writes the world's state hash to `out`: a hash of every body's pose and velocity and of
/// the solver's persistent state; equal hashes mean bit-identical simulations.
#[no_mangle]
pub extern "C" fn imp_world_get_state_hash(world: ImpWorldId, out: Option<&mut u64>) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| put(Some(out), "out", w.state_hash()))
    })
}

/// Writes the numbers of bodies and joints in the world.
#[no_mangle]
pub extern "C" fn imp_world_get_counts(
    world: ImpWorldId,
    body_count: Option<&mut u32>,
    joint_count: Option<&mut u32>,
) -> ImpStatus {
    guard(|| {
        let bodies = need(body_count, "body_count")?;
        let joints = need(joint_count, "joint_count")?;
        with_world(world, |w| {
            *bodies = w.body_count() as u32;
            *joints = w.joint_count() as u32;
            Ok(())
        })
    })
}

/// Writes the number of islands and of sleeping bodies (both 0 when sleep is off).
#[no_mangle]
pub extern "C" fn imp_world_get_sleep_counts(
    world: ImpWorldId,
    island_count: Option<&mut u32>,
    sleeping_body_count: Option<&mut u32>,
) -> ImpStatus {
    guard(|| {
        let islands = need(island_count, "island_count")?;
        let sleeping = need(sleeping_body_count, "sleeping_body_count")?;
        with_world(world, |w| {
            let (i, s) = w.sleep_counts();
            *islands = i as u32;
            *sleeping = s as u32;
            Ok(())
        })
    })
}

/// Writes the last step's time in ms to `out` (the engine's profile).
#[no_mangle]
pub extern "C" fn imp_world_get_step_ms(world: ImpWorldId, out: Option<&mut f64>) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| put(Some(out), "out", w.profile().step))
    })
}

/// Saves the world's dynamic state (what `imp_world_restore_state` needs to continue bit
/// for bit) into `buffer`. The state's size is written to `size`. With a null `buffer`
/// only the size is written (`IMP_OK`); with a `capacity` below the size nothing is
/// written to the buffer and the call returns `IMP_ERR_BUFFER_TOO_SMALL`. When the world
/// has a stepper, the stepper's clock is saved too.
#[no_mangle]
pub unsafe extern "C" fn imp_world_save_state(
    world: ImpWorldId,
    buffer: *mut u8,
    capacity: usize,
    size: Option<&mut usize>,
) -> ImpStatus {
    guard(|| {
        let size = need(size, "size")?;
        let state = with_host(world, |h| {
            let mut out = Vec::new();
            match &h.sim {
                Sim::World(w) => w.save_state(&mut out),
                Sim::Stepper(s) => s.save_state(&mut out),
            }
            Ok(out)
        })?;
        // SAFETY: the caller's contract: a non-null `buffer` has `capacity` writable bytes.
        unsafe { copy_out(&state, buffer, capacity, size) }
    })
}

/// Copies `bytes` to the caller's buffer, or reports the size it needs.
///
/// # Safety
/// A non-null `buffer` must have `capacity` writable bytes.
pub(crate) unsafe fn copy_out(
    bytes: &[u8],
    buffer: *mut u8,
    capacity: usize,
    size: &mut usize,
) -> R<()> {
    *size = bytes.len();
    if buffer.is_null() {
        return Ok(());
    }
    if capacity < bytes.len() {
        return Err(Fail::new(
            ImpStatus::IMP_ERR_BUFFER_TOO_SMALL,
            format!(
                "capacity: the buffer holds {capacity} bytes, the data needs {}",
                bytes.len()
            ),
        ));
    }
    // SAFETY: `buffer` has at least `bytes.len()` writable bytes (checked above and the
    // caller's contract); a caller's buffer cannot overlap the fresh Vec.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), buffer, bytes.len()) };
    Ok(())
}

/// Restores a state saved by `imp_world_save_state` of this world (the same bodies,
/// shapes and joints): `size` bytes at `bytes`. A state of another world, or corrupt
/// bytes, is `IMP_ERR_INVALID_INPUT` and leaves the world as it was. Event views become
/// invalid.
#[no_mangle]
pub unsafe extern "C" fn imp_world_restore_state(
    world: ImpWorldId,
    bytes: *const u8,
    size: usize,
) -> ImpStatus {
    guard(|| {
        // SAFETY: the caller's contract: `bytes` points to `size` readable bytes.
        let state = unsafe { crate::slice(bytes, size, "bytes") }?;
        if state.is_empty() {
            return Err(Fail::null("bytes"));
        }
        with_host(world, |h| {
            match &mut h.sim {
                Sim::World(w) => w.restore_state(state)?,
                Sim::Stepper(s) => s.restore_state(state)?,
            }
            h.events.clear();
            Ok(())
        })
    })
}

/// Saves the whole world (definition, bodies, shapes, joints, state) as an image, which
/// `imp_world_create_from_image` loads. Buffer rules as for `imp_world_save_state`.
#[no_mangle]
pub unsafe extern "C" fn imp_world_save_image(
    world: ImpWorldId,
    buffer: *mut u8,
    capacity: usize,
    size: Option<&mut usize>,
) -> ImpStatus {
    guard(|| {
        let size = need(size, "size")?;
        let image = with_world(world, |w| {
            let mut out = Vec::new();
            w.save_image(&mut out);
            Ok(out)
        })?;
        // SAFETY: the caller's contract: a non-null `buffer` has `capacity` writable bytes.
        unsafe { copy_out(&image, buffer, capacity, size) }
    })
}

/// What one `imp_world_advance` did.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct ImpAdvance {
    /// Fixed steps run by the call.
    pub steps: u32,
    /// Interpolation factor in [0, 1) between the pose before the last step and after it.
    pub alpha: f32,
    /// Simulated time dropped because more than the maximum steps were owed, s.
    pub dropped: f64,
}

/// Gives the world a fixed-rate stepper at `hz` steps per second: `imp_world_advance` then
/// runs as many fixed steps as frame time has accumulated, and
/// `imp_body_get_interpolated_transform` gives poses between the last two steps.
/// `IMP_ERR_UNSUPPORTED` when it already has one.
#[no_mangle]
pub extern "C" fn imp_world_enable_stepper(world: ImpWorldId, hz: f32) -> ImpStatus {
    guard(|| {
        with_host(world, |h| {
            if matches!(h.sim, Sim::Stepper(_)) {
                return Err(Fail::new(
                    ImpStatus::IMP_ERR_UNSUPPORTED,
                    "the world already has a stepper",
                ));
            }
            // Check the rate before the world moves into the stepper (a refused rate
            // must leave the world as it was).
            if !hz.is_finite() || hz <= 0.0 {
                return Err(Fail::invalid("hz", "must be finite and positive"));
            }
            let placeholder = Sim::World(Box::new(World::new(WorldDef {
                worker_count: 1,
                ..WorldDef::default()
            })?));
            let Sim::World(w) = std::mem::replace(&mut h.sim, placeholder) else {
                unreachable!("checked above")
            };
            h.sim = Sim::Stepper(Box::new(Stepper::new(*w, hz)?));
            Ok(())
        })
    })
}

/// Adds `frame_dt` seconds of frame time to the stepper and runs the fixed steps it owes;
/// writes what it did to `out` (may be null). Event views show the last step run.
#[no_mangle]
pub extern "C" fn imp_world_advance(
    world: ImpWorldId,
    frame_dt: f32,
    out: Option<&mut ImpAdvance>,
) -> ImpStatus {
    guard(|| {
        with_host(world, |h| {
            let a = h.stepper_mut()?.advance(frame_dt)?;
            if a.steps > 0 {
                h.events.clear();
            }
            if let Some(out) = out {
                *out = ImpAdvance {
                    steps: a.steps,
                    alpha: a.alpha,
                    dropped: a.dropped,
                };
            }
            Ok(())
        })
    })
}

/// Caps the fixed steps one `imp_world_advance` may run (the rest of the owed time is
/// dropped). Default: the engine's.
#[no_mangle]
pub extern "C" fn imp_world_set_max_steps(world: ImpWorldId, max_steps: u32) -> ImpStatus {
    guard(|| with_host(world, |h| Ok(h.stepper_mut()?.set_max_steps(max_steps)?)))
}

/// Writes the stepper's fixed steps run so far and its simulated time, s (either pointer
/// may be null).
#[no_mangle]
pub extern "C" fn imp_world_get_stepper_time(
    world: ImpWorldId,
    steps: Option<&mut u64>,
    time: Option<&mut f64>,
) -> ImpStatus {
    guard(|| {
        with_host(world, |h| {
            let s = h.stepper()?;
            if let Some(out) = steps {
                *out = s.steps();
            }
            if let Some(out) = time {
                *out = s.time();
            }
            Ok(())
        })
    })
}

/// Writes body `body`'s pose interpolated between the last two fixed steps (what to draw).
#[no_mangle]
pub extern "C" fn imp_body_get_interpolated_transform(
    world: ImpWorldId,
    body: crate::ImpBodyId,
    out: Option<&mut ImpTransform>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_host(world, |h| {
            *out = h.stepper()?.interpolated_pose(body.into())?.into();
            Ok(())
        })
    })
}

/// Decides whether two shapes may collide (called for pairs whose filters already
/// collide); return false to keep them apart. Called from worker threads, possibly
/// several at once, during `imp_world_step`; it must not call into the same world.
pub type ImpPairFilterFcn = Option<
    unsafe extern "C" fn(shape_a: ImpShapeId, shape_b: ImpShapeId, context: *mut c_void) -> bool,
>;

/// A `void *` the caller promises may be used from any thread (the callbacks' contract).
#[derive(Clone, Copy)]
struct Context(*mut c_void);
// SAFETY: the header documents that callbacks run on worker threads with this context;
// the caller is responsible for making what it points to usable from them.
unsafe impl Send for Context {}
// SAFETY: as above.
unsafe impl Sync for Context {}

/// Sets (or with a null `fcn`, clears) the world's pair filter.
#[no_mangle]
pub extern "C" fn imp_world_set_pair_filter(
    world: ImpWorldId,
    fcn: ImpPairFilterFcn,
    context: *mut c_void,
) -> ImpStatus {
    guard(|| {
        with_world(world, |w| {
            let ctx = Context(context);
            w.set_pair_filter(fcn.map(|f| {
                Box::new(move |a: engine::ShapeId, b: engine::ShapeId| {
                    let ctx = ctx;
                    // SAFETY: the caller registered `f` with this context, to be called
                    // with two shape ids.
                    unsafe { f(a.into(), b.into(), ctx.0) }
                }) as engine::PairFilter
            }));
            Ok(())
        })
    })
}

/// A point of a contact manifold.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct ImpManifoldPoint {
    /// World position, m.
    pub point: ImpVec3,
    /// Separation along the normal, m (negative: overlap).
    pub separation: f32,
    /// The normal impulse of the last step, N·s.
    pub normal_impulse: f32,
}

/// What a contact modifier sees of a contact.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ImpContactInfo {
    /// The shapes and bodies.
    pub touch: crate::ImpContactTouch,
    /// World-space unit normal from A to B.
    pub normal: ImpVec3,
    /// The manifold points (valid during the call).
    pub points: *const ImpManifoldPoint,
    /// Number of points.
    pub point_count: u32,
}

/// The settings a contact modifier may change; they start as the shapes' mixed values.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ImpContactSettings {
    /// Kinetic friction coefficient.
    pub friction: f32,
    /// Static friction coefficient.
    pub static_friction: f32,
    /// Restitution.
    pub restitution: f32,
    /// Surface velocity of B relative to A along the surface (conveyor belts), m/s.
    pub tangent_velocity: ImpVec3,
}

/// Changes the settings of a contact whose shapes enable the modifier
/// (`ImpShapeDef::enable_contact_modifier`). Called from worker threads during
/// `imp_world_step`; it must not call into the same world.
pub type ImpContactModifierFcn = Option<
    unsafe extern "C" fn(
        info: *const ImpContactInfo,
        settings: *mut ImpContactSettings,
        context: *mut c_void,
    ),
>;

/// Sets (or with a null `fcn`, clears) the world's contact modifier.
#[no_mangle]
pub extern "C" fn imp_world_set_contact_modifier(
    world: ImpWorldId,
    fcn: ImpContactModifierFcn,
    context: *mut c_void,
) -> ImpStatus {
    guard(|| {
        with_world(world, |w| {
            let ctx = Context(context);
            w.set_contact_modifier(fcn.map(|f| {
                Box::new(
                    move |info: &engine::ContactInfo<'_>, s: &mut ContactSettings| {
                        let ctx = ctx;
                        let mut points =
                            [ImpManifoldPoint::default(); engine::collision::MAX_POINTS];
                        let n = info.points.len().min(points.len());
                        for (p, q) in points.iter_mut().zip(info.points) {
                            *p = ImpManifoldPoint {
                                point: q.point.into(),
                                separation: q.separation,
                                normal_impulse: q.normal_impulse,
                            };
                        }
                        let c_info = ImpContactInfo {
                            touch: info.touch.into(),
                            normal: info.normal.into(),
                            points: points.as_ptr(),
                            point_count: n as u32,
                        };
                        let mut c_settings = ImpContactSettings {
                            friction: s.friction,
                            static_friction: s.static_friction,
                            restitution: s.restitution,
                            tangent_velocity: s.tangent_velocity.into(),
                        };
                        // SAFETY: both pointers are to locals that outlive the call; `f` was
                        // registered with this context.
                        unsafe { f(&c_info, &mut c_settings, ctx.0) };
                        s.friction = c_settings.friction;
                        s.static_friction = c_settings.static_friction;
                        s.restitution = c_settings.restitution;
                        s.tangent_velocity = c_settings.tangent_velocity.into();
                    },
                ) as engine::ContactModifier
            }));
            Ok(())
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn world_ids_go_stale_and_null_is_refused() {
        let def = imp_default_world_def();
        let mut id = ImpWorldId::default();
        // SAFETY: `def` is a valid definition.
        let status = unsafe { imp_world_create(&def, Some(&mut id)) };
        assert_eq!(status, ImpStatus::IMP_OK);
        assert_ne!(id, ImpWorldId::default());
        assert_eq!(imp_world_step(id, 1.0 / 60.0), ImpStatus::IMP_OK);
        assert_eq!(imp_world_destroy(id), ImpStatus::IMP_OK);
        assert_eq!(imp_world_step(id, 1.0 / 60.0), ImpStatus::IMP_ERR_STALE_ID);
        assert_eq!(
            imp_world_step(ImpWorldId::default(), 1.0 / 60.0),
            ImpStatus::IMP_ERR_STALE_ID
        );
    }
}
