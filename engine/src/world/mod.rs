//! The world: bodies, shapes, contacts and the settings that step them.

#[macro_use]
mod step;
mod api;
mod bench_hooks;
mod bodies;
mod bounds;
mod contacts;
mod continuous;
mod debug_draw;
mod def;
mod deprecated;
mod joints;
pub(crate) mod midphase;
mod narrow;
mod particles;
mod shapes;
mod snapshot;
mod solve;
pub use api::{ContactPoints, ContactTouch, ContactView};
mod events;
pub(crate) mod forces;
mod image;
pub(crate) mod kinematic;
pub mod query;
pub(crate) mod sleep;
pub use events::{BodyMove, ContactHit, SensorEvent};
pub(crate) mod modifier;
pub use modifier::{ContactInfo, ContactModifier, ContactSettings};

pub use crate::shape::{Filter, ShapeDef};
pub use def::WorldDef;

/// A custom pair filter: called (from the stepping thread, in a deterministic order)
/// when the bounds of two shapes that the [`Filter`]s let collide begin to overlap;
/// `false` keeps them from colliding until their bounds part and meet again (or the
/// filter is reset). Must be deterministic for the results to be.
pub type PairFilter = Box<dyn Fn(ShapeId, ShapeId) -> bool + Send + Sync>;

use crate::body::BodyStore;
use crate::broadphase::BroadPhase;
use crate::contact::ContactStore;
use crate::error::Error;
use crate::id::{ShapeId, SlotPool};
use crate::profile::Profile;
use crate::shape::store::ShapeStore;
use crate::solver::SolverBodies;

/// A physics world. Create bodies, attach shapes, call [`World::step`].
///
/// # Example
/// ```
/// use impetus::{BodyDef, BodyType, ShapeDef, Vec3, World, WorldDef};
///
/// let mut world = World::new(WorldDef { worker_count: 1, ..Default::default() })?;
/// let ground = world.create_body(&BodyDef { body_type: BodyType::Static, ..Default::default() })?;
/// world.add_shape(ground, &ShapeDef::plane(Vec3::Y, 0.0))?;
/// let ball = world.create_body(&BodyDef { position: Vec3::new(0.0, 2.0, 0.0), ..Default::default() })?;
/// world.add_shape(ball, &ShapeDef::sphere(0.5))?;
/// for _ in 0..120 {
///     world.step(1.0 / 60.0)?;
/// }
/// let y = world.body_position(ball)?.y;
/// assert!((y - 0.5).abs() < 0.02, "the ball rests on the ground: y = {y}");
/// # Ok::<(), impetus::Error>(())
/// ```
pub struct World {
    pub(crate) def: WorldDef,
    pub(crate) body_pool: SlotPool,
    pub(crate) bodies: BodyStore,
    pub(crate) shapes: ShapeStore,
    pub(crate) broadphase: BroadPhase,
    pub(crate) contacts: ContactStore,
    /// Parent contacts of convex shapes against meshes, with their children.
    pub(crate) mesh_pairs: midphase::MeshPairs,
    pub(crate) joints: JointStore,
    /// Islands of dynamic bodies, for sleep (see `sleep.rs`).
    pub(crate) islands: sleep::Islands,
    /// Fluid volumes (buoyancy and drag, see `forces`).
    pub(crate) fluids: forces::FluidStore,
    /// Particles, springs, cloth and soft bodies (see `particle`).
    pub(crate) particles: crate::particle::store::ParticleStore,
    /// Kinematic targets set since the last step (see `kinematic`).
    pub(crate) kinematic_targets: kinematic::KinematicTargets,
    /// The touching contacts of the step, as the narrow phase lists them for the solver.
    pub(crate) touching: Touching,
    /// The movable bodies of the step, in the solver's order, with their velocities and
    /// deltas.
    pub(crate) solver: SolverBodies,
    /// The step's constraints: coloured contact and joint batches, and the ball-joint trees.
    pub(crate) graph: crate::solver::graph::ConstraintGraph,
    /// The rolling-resistance rows of the step (see `solver::rolling`).
    pub(crate) rolling: crate::solver::rolling::RollingRows,
    /// Contact, sensor, hit and move events of the last step.
    pub(crate) events: events::Events,
    /// The host's pair filter, if any (see [`World::set_pair_filter`]).
    pub(crate) pair_filter: Option<PairFilter>,
    /// The host's contact modifier, if any (see [`World::set_contact_modifier`]).
    pub(crate) contact_modifier: Option<ContactModifier>,
    /// The workers, shared so that a step can run inside an install of them (see
    /// [`World::step`]).
    pub(crate) pool: Option<std::sync::Arc<rayon::ThreadPool>>,
    /// Whether a step keeps the workers awake (see [`World::step`]): not when there are
    /// more workers than cores, where a spinning worker would take the core from the one
    /// walking the stages.
    pub(crate) keep_awake: bool,
    pub(crate) profile: Profile,
    /// The last step's `dt` (the step before the first is assumed to be 1/60 s): predicts
    /// the next step's motion when bounds are refit.
    pub(crate) last_dt: f32,
    /// Buffers the stages reuse from step to step (no per-step allocation).
    pub(crate) scratch: Scratch,
    /// Tests only: the narrow phase updates every idle contact whose bounds overlap,
    /// leads or not (what the leads must not change; see `contact::Lead`).
    #[cfg(test)]
    pub(crate) leads_off: bool,
    /// Counts the calls that changed what a saved state does not hold (see `snapshot`);
    /// only calls that succeed count, so one that returns `Err` leaves the deep hash as it was.
    pub(crate) structure: u64,
    /// Steps taken.
    pub(crate) steps: u64,
}

/// The touching contacts of the step, as the narrow phase lists them for the solver.
#[derive(Default)]
pub(crate) struct Touching {
    /// Contact indices, in contact order.
    pub contacts: Vec<u32>,
    /// Their bodies: slots from the narrow phase, the solver indices of their dynamic
    /// bodies ([`NULL`](crate::id::NULL) for others) after `World::gather`.
    pub pairs: Vec<[u32; 2]>,
    /// Their colours, in the same order.
    pub colors: Vec<u8>,
    /// Their manifolds' point counts and inertia groups (`contact::list_key`), in the
    /// same order.
    pub points: Vec<u8>,
    /// Whether `contacts` differs from the last step's list (made afresh, or written over
    /// it by the narrow phase).
    pub changed: bool,
    /// Contacts that stopped touching in the last narrow phase but still hold a colour.
    pub uncolor: Vec<u32>,
}

impl Touching {
    pub fn clear(&mut self) {
        self.contacts.clear();
        self.pairs.clear();
        self.colors.clear();
        self.points.clear();
        self.uncolor.clear();
        self.changed = true;
    }
}

/// The world's joints by slot, with what the solver keeps about them.
pub(crate) struct JointStore {
    pub pool: SlotPool,
    /// Joints by slot (holes where `pool` says a slot is free).
    pub slots: Vec<crate::joint::JointData>,
    /// Per body slot, the slots of its joints.
    pub of_body: Vec<Vec<u32>>,
    /// The trees of ball joints (solved directly), rebuilt when `trees_dirty`.
    pub trees: crate::solver::articulation::TreeTopology,
    pub trees_dirty: bool,
    /// The solver's joint lists (see `ConstraintGraph::build_joints`) need sorting again: a
    /// joint was added, removed or changed kind. The awake set they were sorted for is
    /// `lists_awake` (the solver's slots then).
    pub lists_dirty: bool,
    pub lists_awake: Vec<u32>,
    /// Joints that broke in the last step.
    pub breaks: Vec<crate::joint::JointBreak>,
    /// Joints whose motor turns at a non-zero speed: they keep their island awake.
    pub driven: Vec<u32>,
}

impl Default for JointStore {
    fn default() -> Self {
        Self {
            pool: SlotPool::default(),
            slots: Vec::new(),
            of_body: Vec::new(),
            trees: Default::default(),
            trees_dirty: false,
            lists_dirty: true,
            lists_awake: Vec::new(),
            breaks: Vec::new(),
            driven: Vec::new(),
        }
    }
}

/// Buffers the stages reuse from step to step.
#[derive(Default)]
pub(crate) struct Scratch {
    /// The broadphase's new pairs.
    pub begun: Vec<u64>,
    /// The contacts of pairs the broadphase ended.
    pub ended: Vec<u32>,
    /// The narrow phase's per-body flag: its contacts are updated.
    pub active: Vec<bool>,
    /// The narrow phase's per-body travel with the most the body can move in the step
    /// added (see `contact::Lead`).
    pub ahead: Vec<[f64; 2]>,
    /// Per-chunk outputs of the narrow phase.
    pub narrow_chunks: Vec<narrow::NarrowChunk>,
    /// The bouncy touching contacts of the step (see `solver::impact::resolve`).
    pub impacts: Vec<usize>,
    /// Per chunk of bodies, the proxies the bounds' refit moves (see `World::refit_moved`).
    pub refit_moved: Vec<Vec<(u32, crate::math::Aabb, u16)>>,
}

impl World {
    /// Creates an empty world. Fails on an invalid definition or if worker threads
    /// cannot be started.
    pub fn new(def: WorldDef) -> Result<World, Error> {
        def.validate()?;
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let workers = if def.worker_count == 0 {
            cores
        } else {
            def.worker_count
        };
        let pool = if workers > 1 {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(workers)
                .thread_name(|i| format!("impetus-worker-{i}"))
                .start_handler(|i| impetus_profiling::name_thread(&format!("impetus-worker-{i}")))
                .build()
                .map_err(|_| Error::Unsupported {
                    what: "could not start the worker threads",
                })?;
            Some(std::sync::Arc::new(pool))
        } else {
            None
        };
        Ok(World {
            def,
            body_pool: SlotPool::default(),
            bodies: BodyStore::default(),
            shapes: ShapeStore::default(),
            broadphase: BroadPhase::new(def.broadphase_cell_size),
            contacts: ContactStore::default(),
            mesh_pairs: Default::default(),
            joints: JointStore::default(),
            islands: Default::default(),
            fluids: Default::default(),
            particles: Default::default(),
            kinematic_targets: Default::default(),
            touching: Touching::default(),
            solver: SolverBodies::default(),
            graph: Default::default(),
            rolling: Default::default(),
            events: Default::default(),
            pair_filter: None,
            contact_modifier: None,
            pool,
            keep_awake: workers <= cores,
            profile: Profile::default(),
            last_dt: 1.0 / 60.0,
            scratch: Scratch::default(),
            #[cfg(test)]
            leads_off: false,
            structure: 0,
            steps: 0,
        })
    }

    /// The settings this world was created with (gravity may have changed since).
    pub fn def(&self) -> &WorldDef {
        &self.def
    }

    /// The number of worker threads the world steps with.
    pub fn worker_count(&self) -> usize {
        self.pool.as_ref().map_or(1, |p| p.current_num_threads())
    }
}
