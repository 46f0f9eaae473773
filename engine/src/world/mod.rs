//! The world: bodies, shapes, contacts and the settings that step them.

#[macro_use]
mod step;
mod api;
mod bench_hooks;
mod bounds;
mod contacts;
mod continuous;
mod joints;
pub(crate) mod midphase;
mod narrow;
mod solve;
pub use api::{ContactTouch, ContactView};
mod events;
pub(crate) mod forces;
pub(crate) mod kinematic;
pub mod query;
pub(crate) mod sleep;
pub use events::{BodyMove, ContactHit, SensorEvent};
pub(crate) mod modifier;
pub use modifier::{ContactInfo, ContactModifier, ContactSettings};

pub use crate::shape::{Filter, ShapeDef};

/// A custom pair filter: called (from the stepping thread, in a deterministic order)
/// when the bounds of two shapes that the [`Filter`]s let collide begin to overlap;
/// `false` keeps them from colliding until their bounds part and meet again (or the
/// filter is reset). Must be deterministic for the results to be.
pub type PairFilter = Box<dyn Fn(ShapeId, ShapeId) -> bool + Send + Sync>;

use crate::body::{BodyDef, BodyStore, BodyType};
use crate::broadphase::BroadPhase;
use crate::contact::ContactStore;
use crate::error::Error;
use crate::id::{BodyId, ShapeId, SlotPool};
use crate::math::{is_finite3, Transform};
use crate::profile::Profile;
use crate::shape::store::{ShapeData, ShapeStore};
use crate::shape::{MassProperties, Shape};
use crate::solver::SolverBodies;
use glam::Vec3;

/// World settings. Every field has a documented SI default; lengths assume metres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldDef {
    /// Gravity acceleration, in m/s². Default: (0, -9.81, 0).
    pub gravity: Vec3,
    /// Solver substeps per step. Default: 4.
    pub substeps: u32,
    /// Contact stiffness as a spring frequency, in Hz; capped at a quarter of the substep
    /// rate. Default: 30.
    pub contact_hertz: f32,
    /// Contact damping ratio (dimensionless). Default: 10.
    pub contact_damping_ratio: f32,
    /// Joint stiffness as a spring frequency, in Hz, for the position error of joint
    /// locks; capped at a quarter of the substep rate. Default: 60.
    pub joint_hertz: f32,
    /// Joint damping ratio (dimensionless). Default: 2.
    pub joint_damping_ratio: f32,
    /// The fastest speed at which overlapping bodies are pushed apart, in m/s. Default: 3.
    pub max_push_speed: f32,
    /// The world's length tolerance, in m (scale it with the world's length unit).
    /// Default: 0.005. It is not an allowed penetration: the solver pushes every overlap
    /// out, and a resting contact keeps only the overlap its load compresses it by (its
    /// spring of [`contact_hertz`](Self::contact_hertz); 0.07 mm for a 1 m box of
    /// 100 kg/m³ on the ground). What the slop sets: how far a touching manifold may
    /// drift before it is recomputed (10 slops; 1 for speculative ones), how near a new
    /// contact point must be to an old one to inherit its warm-start impulse (2 slops),
    /// the gap continuous collision leaves before a time of impact (1 slop), and the
    /// tolerance of shape casts (a tenth of it).
    pub linear_slop: f32,
    /// Contact points are kept while the surfaces are closer than this, in m, so fast
    /// bodies are caught before they touch. Default: 4 × `linear_slop` = 0.02.
    pub speculative_distance: f32,
    /// Fat-AABB margin of the broadphase, in m. Default: 0.1.
    pub aabb_margin: f32,
    /// Edge of the broadphase grid's cells, in m. 0 chooses it when the first proxies
    /// arrive: 8 × the median largest extent of their fat boxes (10 m for unit boxes).
    /// Proxies spanning more than 64 cells (grounds, planes) are kept apart from the grid.
    /// Default: 0.
    pub broadphase_cell_size: f32,
    /// Approach speeds below this do not bounce, in m/s. Default: 1.
    pub restitution_threshold: f32,
    /// A contact whose surfaces slide past each other slower than this at the start of a
    /// step (at the centre of its points, relative to a modifier's surface velocity)
    /// sticks: its friction is limited by the static coefficient
    /// ([`ShapeDef::static_friction`](crate::ShapeDef)); faster, it slides, limited by
    /// the kinetic one ([`ShapeDef::friction`](crate::ShapeDef)). In m/s. Default: 0.01.
    pub static_friction_speed: f32,
    /// Speed cap of any body, in m/s. Default: 400.
    pub max_linear_speed: f32,
    /// Keep a touching manifold while its bodies barely moved relative to each other
    /// (points drifted under 10 × `linear_slop`, rotation under ~10°) and refresh only its
    /// separations: cheaper, and contact points stay on the same material points, which is
    /// what keeps tall stacks from leaning. Default: true.
    pub contact_recycling: bool,
    /// Density of the air, in kg/m³, for bodies with a drag coefficient (see
    /// [`forces`](crate::forces)); 0 is a vacuum. Default: 1.225 (sea level, 15 °C).
    pub air_density: f32,
    /// Sweep every dynamic body that moved more than half its smallest extent in a step
    /// (sphere radius, smallest box half extent) for a time of impact against static
    /// geometry, and place it at that time, so fast bodies do not pass through thin
    /// walls. Bodies flagged `BodyDef::bullet` are swept whatever this says. Default: true.
    pub sweep_fast_bodies: bool,
    /// Worker threads; 0 means all cores, 1 runs everything on the calling thread.
    /// Results are bit-identical for every count. Default: 0.
    pub worker_count: usize,
    /// Contacts of shapes with hit events on publish a hit event when they begin touching
    /// with the surfaces approaching faster than this, in m/s. Default: 1.
    pub hit_event_threshold: f32,
    /// Let islands of resting bodies fall asleep: a sleeping body costs nothing per step
    /// until something wakes it. Default: true.
    pub enable_sleep: bool,
    /// A body counts as resting while its speed (and its angular speed times its extent)
    /// stays under this, in m/s. Default: 0.05.
    pub sleep_threshold: f32,
    /// An island falls asleep when all its bodies have rested this long, in s. Default: 0.5.
    pub time_to_sleep: f32,
}

impl Default for WorldDef {
    fn default() -> Self {
        Self {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            substeps: 4,
            contact_hertz: 30.0,
            contact_damping_ratio: 10.0,
            joint_hertz: 60.0,
            joint_damping_ratio: 2.0,
            max_push_speed: 3.0,
            linear_slop: 0.005,
            speculative_distance: 0.02,
            aabb_margin: 0.1,
            broadphase_cell_size: 0.0,
            restitution_threshold: 1.0,
            static_friction_speed: 0.01,
            max_linear_speed: 400.0,
            contact_recycling: true,
            air_density: 1.225,
            sweep_fast_bodies: true,
            worker_count: 0,
            hit_event_threshold: 1.0,
            enable_sleep: true,
            sleep_threshold: 0.05,
            time_to_sleep: 0.5,
        }
    }
}

impl WorldDef {
    /// Checks every field, naming the first bad one.
    pub fn validate(&self) -> Result<(), Error> {
        if !is_finite3(self.gravity) {
            return Err(Error::invalid("WorldDef::gravity", "must be finite"));
        }
        if self.substeps == 0 || self.substeps > 64 {
            return Err(Error::invalid("WorldDef::substeps", "must be in 1..=64"));
        }
        let positive = [
            ("WorldDef::contact_hertz", self.contact_hertz),
            (
                "WorldDef::contact_damping_ratio",
                self.contact_damping_ratio,
            ),
            ("WorldDef::joint_hertz", self.joint_hertz),
            ("WorldDef::joint_damping_ratio", self.joint_damping_ratio),
            ("WorldDef::max_push_speed", self.max_push_speed),
            ("WorldDef::max_linear_speed", self.max_linear_speed),
        ];
        for (field, v) in positive {
            if !v.is_finite() || v <= 0.0 {
                return Err(Error::invalid(field, "must be finite and positive"));
            }
        }
        let non_negative = [
            ("WorldDef::linear_slop", self.linear_slop),
            ("WorldDef::speculative_distance", self.speculative_distance),
            ("WorldDef::aabb_margin", self.aabb_margin),
            ("WorldDef::broadphase_cell_size", self.broadphase_cell_size),
            (
                "WorldDef::restitution_threshold",
                self.restitution_threshold,
            ),
            (
                "WorldDef::static_friction_speed",
                self.static_friction_speed,
            ),
            ("WorldDef::sleep_threshold", self.sleep_threshold),
            ("WorldDef::hit_event_threshold", self.hit_event_threshold),
            ("WorldDef::time_to_sleep", self.time_to_sleep),
            ("WorldDef::air_density", self.air_density),
        ];
        for (field, v) in non_negative {
            if !v.is_finite() || v < 0.0 {
                return Err(Error::invalid(field, "must be finite and non-negative"));
            }
        }
        Ok(())
    }
}

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
    pub(crate) pool: Option<rayon::ThreadPool>,
    pub(crate) profile: Profile,
    /// The last step's `dt` (the step before the first is assumed to be 1/60 s): predicts
    /// the next step's motion when bounds are refit.
    pub(crate) last_dt: f32,
    /// Buffers the stages reuse from step to step (no per-step allocation).
    pub(crate) scratch: Scratch,
}

/// The touching contacts of the step, as the narrow phase lists them for the solver.
#[derive(Default)]
pub(crate) struct Touching {
    /// Contact indices, in contact order.
    pub contacts: Vec<u32>,
    /// Their bodies: slots from the narrow phase, the solver indices of their dynamic
    /// bodies ([`NULL`](crate::id::NULL) for others) after `World::gather_contacts`.
    pub pairs: Vec<[u32; 2]>,
    /// Their colours, in the same order.
    pub colors: Vec<u8>,
    /// Contacts that stopped touching in the last narrow phase but still hold a colour.
    pub uncolor: Vec<u32>,
}

impl Touching {
    pub fn clear(&mut self) {
        self.contacts.clear();
        self.pairs.clear();
        self.colors.clear();
        self.uncolor.clear();
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
    /// Per-chunk outputs of the narrow phase.
    pub narrow_chunks: Vec<narrow::NarrowChunk>,
    /// The bouncy touching contacts of the step (see `solver::impact::resolve`).
    pub impacts: Vec<usize>,
}

impl World {
    /// Creates an empty world. Fails on an invalid definition or if worker threads
    /// cannot be started.
    pub fn new(def: WorldDef) -> Result<World, Error> {
        def.validate()?;
        let workers = if def.worker_count == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
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
            Some(pool)
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
            kinematic_targets: Default::default(),
            touching: Touching::default(),
            solver: SolverBodies::default(),
            graph: Default::default(),
            rolling: Default::default(),
            events: Default::default(),
            pair_filter: None,
            contact_modifier: None,
            pool,
            profile: Profile::default(),
            last_dt: 1.0 / 60.0,
            scratch: Scratch::default(),
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

    /// Creates a body. It has no shapes yet; a dynamic body without shapes weighs 1 kg.
    pub fn create_body(&mut self, def: &BodyDef) -> Result<BodyId, Error> {
        def.validate()?;
        let (index, generation, _) = self.body_pool.alloc();
        self.bodies.put(index as usize, def);
        self.island_add_body(index as usize);
        Ok(BodyId { index, generation })
    }

    /// Removes a body with its shapes, contacts and joints.
    pub fn remove_body(&mut self, id: BodyId) -> Result<(), Error> {
        let i = self.body_index(id)?;
        while let Some(&j) = self.joints.of_body.get(i).and_then(|l| l.last()) {
            self.remove_joint_slot(j as usize);
        }
        let shapes = std::mem::take(&mut self.bodies.shapes[i]);
        for s in shapes {
            self.detach_shape(s.index);
        }
        self.island_remove_body(i);
        self.bodies.body_type[i] = BodyType::Static;
        self.bodies.awake[i] = false;
        self.body_pool.release(id.index);
        Ok(())
    }

    /// Attaches a shape to a body and updates the body's mass from the shape's density.
    /// Planes, meshes and height fields may only be attached to static bodies (and meshes
    /// and height fields cannot be sensors).
    pub fn add_shape(&mut self, body: BodyId, def: &ShapeDef) -> Result<ShapeId, Error> {
        let b = self.body_index(body)?;
        def.validate()?;
        let body_type = self.bodies.body_type[b];
        if def.shape.is_static_only() && body_type != BodyType::Static {
            return Err(Error::invalid(
                "ShapeDef::shape",
                "a plane, mesh or height field may only be attached to a static body",
            ));
        }
        if def.shape.kind().is_triangles() && def.is_sensor {
            return Err(Error::invalid(
                "ShapeDef::is_sensor",
                "a mesh or height field cannot be a sensor",
            ));
        }
        if body_type == BodyType::Dynamic && !self.bodies.mass_override[b] {
            let mass = self.shape_mass(b, Some(def));
            if mass <= 0.0 {
                return Err(Error::invalid(
                    "ShapeDef::density",
                    "a dynamic body's shapes must give it a positive mass",
                ));
            }
        }
        let (index, generation, fresh) = self.shapes.pool.alloc();
        let local_pose = Transform::new(def.local_pose.p, def.local_pose.q.normalize());
        let relative = self.bodies.frame[b].inv_mul(&local_pose);
        let offset = relative != Transform::IDENTITY;
        let data = ShapeData {
            body: b as u32,
            offset,
            relative,
            local_pose,
            shape: def.shape.clone(),
            density: def.density,
            friction: def.friction,
            static_friction: def.static_friction.unwrap_or(def.friction),
            restitution: def.restitution,
            rolling: def.rolling_resistance
                * match def.shape {
                    Shape::Sphere { radius } | Shape::Capsule { radius, .. } => radius,
                    _ => 0.0,
                },
            inner_radius: def.inner_radius,
            filter: def.filter,
            is_sensor: def.is_sensor,
            enable_contact_events: def.enable_contact_events,
            enable_hit_events: def.enable_hit_events,
            enable_sensor_events: def.enable_sensor_events,
            enable_contact_modifier: def.enable_contact_modifier,
        };
        let aabb = def
            .shape
            .aabb(&data.pose(&self.bodies.transform(b)))
            .expanded(self.def.speculative_distance);
        self.shapes.bouncy += usize::from(data.restitution > 0.0);
        self.shapes.rolling += usize::from(data.rolling > 0.0);
        if fresh {
            self.shapes.data.push(data);
            self.shapes.bounds.push(aabb);
        } else {
            self.shapes.data[index as usize] = data;
            self.shapes.bounds[index as usize] = aabb;
        }
        self.broadphase.create_proxy(
            index,
            aabb.expanded(self.def.aabb_margin),
            body_type == BodyType::Static,
            b as u32,
        );
        let id = ShapeId { index, generation };
        self.bodies.shapes[b].push(id);
        self.update_mass(b);
        self.wake_body(b);
        // Sweep the new bounds over the body's initial velocity.
        self.refit_body(b);
        Ok(id)
    }

    /// Detaches and removes a shape; the body's mass is recomputed from what remains.
    pub fn remove_shape(&mut self, id: ShapeId) -> Result<(), Error> {
        let s = self.shapes.pool.check(id.index, id.generation, "ShapeId")?;
        let b = self.shapes.data[s].body as usize;
        self.bodies.shapes[b].retain(|&x| x != id);
        self.detach_shape(id.index);
        self.update_mass(b);
        self.wake_body(b);
        self.refit_body(b);
        Ok(())
    }

    /// A shape's collision filter.
    pub fn shape_filter(&self, id: ShapeId) -> Result<Filter, Error> {
        let s = self.shapes.pool.check(id.index, id.generation, "ShapeId")?;
        Ok(self.shapes.data[s].filter)
    }

    /// Changes a shape's collision filter. Its contacts end now (with end records for the
    /// touching ones) and come back at the next step for the pairs the new filter allows.
    pub fn set_shape_filter(&mut self, id: ShapeId, filter: Filter) -> Result<(), Error> {
        let s = self.shapes.pool.check(id.index, id.generation, "ShapeId")?;
        self.shapes.data[s].filter = filter;
        self.refresh_shape_pairs(s as u32);
        Ok(())
    }

    /// Sets (or clears, with `None`) the host's pair filter. Pairs that overlap now are
    /// filtered again at the next step.
    pub fn set_pair_filter(&mut self, filter: Option<PairFilter>) {
        self.pair_filter = filter;
        for s in 0..self.shapes.data.len() {
            if self.shapes.pool.is_alive(s) {
                self.refresh_shape_pairs(s as u32);
            }
        }
    }

    /// Drops shape `index`'s proxy with its contacts and puts it back, so the broadphase
    /// reports its overlaps as new pairs (and the filters decide afresh) at the next step.
    fn refresh_shape_pairs(&mut self, index: u32) {
        let (body, aabb) = {
            let d = &self.shapes.data[index as usize];
            (d.body, self.shapes.bounds[index as usize])
        };
        self.destroy_proxy_contacts(index);
        let is_static = self.bodies.body_type[body as usize] == BodyType::Static;
        self.broadphase
            .create_proxy(index, aabb.expanded(self.def.aabb_margin), is_static, body);
        self.wake_body(body as usize);
    }

    /// Removes a shape's proxy, contacts and slot (the body's list is the caller's).
    fn detach_shape(&mut self, index: u32) {
        let data = &self.shapes.data[index as usize];
        self.shapes.bouncy -= usize::from(data.restitution > 0.0);
        self.shapes.rolling -= usize::from(data.rolling > 0.0);
        self.destroy_proxy_contacts(index);
        self.shapes.pool.release(index);
    }

    /// Removes a shape's proxy and its contacts (end records for the touching ones, whose
    /// bodies wake).
    fn destroy_proxy_contacts(&mut self, index: u32) {
        for c in self.broadphase.destroy_proxy(index) {
            let contact = &self.contacts.contacts[c as usize];
            let (a, b) = (contact.body_a, contact.body_b);
            if self.destroy_pair_contact(c, true) {
                // What rested on the shape falls (or drifts) now: wake it.
                self.wake_body(a as usize);
                self.wake_body(b as usize);
            }
        }
    }

    /// The mass properties of one shape (its own centre and axes) for the body's sums.
    fn shape_part(shape: &Shape, density: f32, inner: f32) -> MassProperties {
        match *shape {
            Shape::Sphere { radius } if inner > 0.0 => {
                crate::shape::hollow_sphere_mass(radius, inner, density)
            }
            _ => shape.mass_properties(density),
        }
    }

    /// Total mass of body `b`'s shapes, plus `extra` if given.
    fn shape_mass(&self, b: usize, extra: Option<&ShapeDef>) -> f32 {
        let part =
            |shape: &Shape, density: f32, inner: f32| Self::shape_part(shape, density, inner).mass;
        let mut mass = 0.0;
        for s in &self.bodies.shapes[b] {
            let d = &self.shapes.data[s.index as usize];
            mass += part(&d.shape, d.density, d.inner_radius);
        }
        if let Some(def) = extra {
            mass += part(&def.shape, def.density, def.inner_radius);
        }
        mass
    }

    /// Mass, principal moments and mass frame of body `b`'s shapes at their local poses
    /// (`None` without mass).
    fn compound_mass(&self, b: usize) -> Option<(MassProperties, Transform)> {
        let parts = self.bodies.shapes[b].iter().map(|s| {
            let d = &self.shapes.data[s.index as usize];
            (
                Self::shape_part(&d.shape, d.density, d.inner_radius),
                d.local_pose,
            )
        });
        crate::shape::combine_mass(parts)
    }

    /// Recomputes body `b`'s mass, inertia and mass frame from its shapes (unless the
    /// user set the mass), and the shapes' poses in that frame.
    fn update_mass(&mut self, b: usize) {
        let dynamic = self.bodies.body_type[b] == BodyType::Dynamic;
        // A dynamic body simulates its mass frame (the identity, exactly, while every shape
        // sits at the body origin); every other body simulates its own frame.
        let combined = if dynamic { self.compound_mass(b) } else { None };
        let frame = combined.map_or(Transform::IDENTITY, |(_, f)| f);
        if frame != self.bodies.frame[b] {
            self.set_mass_frame(b, frame);
        }
        for s in &self.bodies.shapes[b] {
            let d = &mut self.shapes.data[s.index as usize];
            d.relative = if frame == Transform::IDENTITY {
                d.local_pose
            } else {
                frame.inv_mul(&d.local_pose)
            };
            d.offset = d.relative != Transform::IDENTITY;
        }
        self.bodies.extent[b] = self.bodies.shapes[b]
            .iter()
            .map(|s| self.shapes.data[s.index as usize].reach())
            .fold(0.0, f32::max);
        self.update_min_extent(b);
        if !dynamic || self.bodies.mass_override[b] {
            return;
        }
        match combined {
            Some((mp, _)) => self.bodies.set_mass(b, mp.mass, mp.inertia),
            None => self.bodies.set_mass(b, 1.0, Vec3::ONE),
        }
    }

    /// Moves body `b`'s mass frame to `frame` (in the body frame), keeping the body's
    /// pose and the world velocity of every point of it, and re-expressing its joints'
    /// frames in the new mass frame.
    fn set_mass_frame(&mut self, b: usize, frame: Transform) {
        let old = self.bodies.frame[b];
        let origin = self.bodies.origin(b);
        let old_center = self.bodies.position[b];
        if let Some(joints) = self.joints.of_body.get(b) {
            for &j in joints {
                let data = &mut self.joints.slots[j as usize];
                if data.body_a as usize == b {
                    data.def.frame_a = frame.inv_mul(&old.mul(&data.def.frame_a));
                }
                if data.body_b as usize == b {
                    data.def.frame_b = frame.inv_mul(&old.mul(&data.def.frame_b));
                }
            }
            self.joints.trees_dirty = true;
            self.joints.lists_dirty = true;
        }
        self.bodies.frame[b] = frame;
        self.bodies.set_origin(b, &origin);
        let w = self.bodies.angular_velocity[b];
        self.bodies.linear_velocity[b] += w.cross(self.bodies.position[b] - old_center);
    }

    #[inline]
    pub(crate) fn body_index(&self, id: BodyId) -> Result<usize, Error> {
        self.body_pool.check(id.index, id.generation, "BodyId")
    }
}
