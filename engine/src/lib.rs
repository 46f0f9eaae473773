//! impetus: a data-oriented 3D rigid-body physics engine.
//!
//! Bodies live in columns (structure of arrays), shapes and contacts in dense arrays; the
//! broadphase keeps sweep-and-prune lists in the cells of a hashed grid; contact manifolds
//! persist and warm-start the solver; the solver is a soft step with substeps whose
//! constraints are graph-coloured and solved several at a time in SIMD lanes, the colours
//! spread over worker threads. Results are bit-identical for every thread count and lane
//! width.
//!
//! # Read first
//!
//! - [`World`]: create bodies ([`BodyDef`]), attach shapes ([`ShapeDef`], [`Shape`]), join
//!   them ([`JointDef`]), call [`World::step`]; read poses, velocities, contacts and events
//!   between steps. Every call checks its input and returns an [`Error`] naming the field.
//! - [`WorldDef`]: the settings, each with its SI default.
//! - [`Stepper`] and [`PhysicsThread`]: a fixed time step with interpolated poses, on the
//!   calling thread or on a thread of its own.
//! - [`query`]: ray casts, shape casts and overlaps between steps.
//! - [`debug_draw`]: [`World::debug_draw`] hands shapes, bounds, contacts, joints and
//!   islands to a host's [`DebugDraw`] (only its `line` is required), filtered by body state
//!   and a region of interest ([`DebugDrawOptions`]).
//!
//! ```
//! use impetus::{BodyDef, BodyType, ShapeDef, Vec3, World, WorldDef};
//!
//! let mut world = World::new(WorldDef { worker_count: 1, ..Default::default() })?;
//! let ground = world.create_body(&BodyDef { body_type: BodyType::Static, ..Default::default() })?;
//! world.add_shape(ground, &ShapeDef::plane(Vec3::Y, 0.0))?;
//! let crate_ = world.create_body(&BodyDef { position: Vec3::new(0.0, 4.0, 0.0), ..Default::default() })?;
//! world.add_shape(crate_, &ShapeDef::cuboid(Vec3::splat(0.5)).with_density(200.0))?;
//! for _ in 0..120 {
//!     world.step(1.0 / 60.0)?;
//! }
//! let y = world.body_position(crate_)?.y;
//! assert!((y - 0.5).abs() < 0.01, "the crate rests on the ground: y = {y}");
//! # Ok::<(), impetus::Error>(())
//! ```
//!
//! # The step
//!
//! [`World::step`] (`world/step.rs`) is the table of contents, one stage a line, each
//! timed in [`Profile`]:
//!
//! 1. **forces** (`world/forces.rs`): drag and buoyancy into the force accumulators;
//! 2. **kinematic aim** (`world/kinematic.rs`): velocities that reach the target poses;
//! 3. **particle collide** (`world/particles.rs`, [`particle`]): each particle's contacts
//!    with the shapes for the step;
//! 4. **broadphase** (`world/contacts.rs`, `broadphase`): pairs whose fat boxes began or
//!    stopped overlapping make and destroy contacts; the midphase (`world/midphase.rs`)
//!    gives mesh pairs one child contact per touched triangle;
//! 5. **narrow phase** (`world/narrow.rs`, `contact.rs`, [`collision`]): the manifold of
//!    every contact whose bodies moved, and the touching list, events and island links;
//! 6. **solve** (`world/solve.rs`, `solver/`): bodies gathered, constraints coloured into
//!    the constraint graph, bouncy impacts, then per substep: integrate velocities, warm
//!    start, solve, integrate positions, relax, then the particles' substep (`particle`);
//!    impulses stored for the next step;
//! 7. **finalize, continuous, bounds** (`world/solve.rs`, `world/continuous.rs`,
//!    `world/bounds.rs`): poses written back, fast bodies swept to their time of impact,
//!    bounds refit, move events;
//! 8. **sleep** (`world/sleep.rs`): islands that rested long enough fall asleep;
//! 9. **kinematic land**: kinematic bodies placed exactly on their targets.
//!
//! # Modules
//!
//! Public: [`collision`] (the pair functions and manifolds), [`hull`] ([`ConvexHull`]),
//! [`particle`] (particles, springs, cloth, soft bodies),
//! [`mesh`] ([`TriMesh`], [`HeightField`]), [`shape`], [`joint`], [`forces`] (the closed
//! forms of drag and buoyancy), [`query`], [`debug_draw`], [`profile`], [`stepper`],
//! [`error`].
//! Internal: `world/` (the [`World`], a file per concern), `solver/` (integrators, the
//! constraint graph and its kernels, scalar and in lanes), `broadphase`, `contact.rs`
//! (persistent contacts), `body.rs` (the body columns), `id.rs` (generational ids),
//! `math.rs`, `parallel.rs` (how work is shared among the workers).
#![warn(missing_docs)]

mod body;
mod broadphase;
mod codec;
pub mod collision;
mod contact;
pub mod debug_draw;
pub mod error;
pub mod forces;
mod huge;
pub mod hull;
mod id;
pub mod joint;
mod math;
pub mod mesh;
mod parallel;
pub mod particle;
pub mod profile;
pub mod shape;
mod solver;
pub mod stepper;
mod world;

/// Whether this build of the engine checks the solver's invariants every step (the
/// `validate` feature: no dynamic body twice in a colour, kept joint lists and batches
/// equal to fresh ones, no impulses left pending). The workspace's tests turn it on; a build
/// that is timed has it off, as the checks cost time every step.
pub const VALIDATES: bool = cfg!(feature = "validate");

pub use body::{BodyDef, BodyType};
pub use collision::{Manifold, ManifoldPoint};
pub use debug_draw::{DebugDraw, DebugDrawOptions, DebugPalette, Rgba};
pub use error::Error;
pub use forces::{Fluid, FluidId, Submersion};
pub use glam::{Mat3, Quat, Vec3};
pub use hull::ConvexHull;
pub use id::{BodyId, JointId, ParticleId, ShapeId, SoftBodyId, SpringId};
pub use joint::{JointBreak, JointDef, JointKind, Limits, Motor, Spring, SpringStiffness};
pub use math::{Aabb, StateHasher, Transform, MAX_LENGTH};
pub use mesh::{HeightField, TriMesh, Triangle, Triangles};
pub use particle::{
    Cloth, ClothDef, ClothPin, ParticleDef, SoftBody, SoftBodyDef, SpringDef, SpringEnd,
};
pub use profile::Profile;
pub use shape::{MassProperties, Shape, ShapeKind};
pub use stepper::thread::{Frame, FrameReader, PendingBody, PhysicsCommands, PhysicsThread};
pub use stepper::{Advance, Stepper};
pub use world::query;
pub use world::query::{QueryFilter, RayHit, ShapeHit};
pub use world::{
    BodyMove, ContactHit, ContactInfo, ContactModifier, ContactPoints, ContactSettings,
    ContactTouch, ContactView, Filter, PairFilter, SensorEvent, ShapeDef, World, WorldDef,
};
