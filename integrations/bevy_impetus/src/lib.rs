//! `bevy_impetus`: the impetus physics engine in a Bevy app.
//!
//! Add [`ImpetusPlugin`], give entities a [`RigidBody`] and a [`Collider`], and the plugin
//! steps the engine in `FixedPostUpdate` at `Time<Fixed>`'s timestep, writing the bodies
//! that moved back to their `Transform`s:
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_impetus::prelude::*;
//!
//! fn main() {
//!     App::new()
//!         .add_plugins((MinimalPlugins, ImpetusPlugin::default()))
//!         .add_systems(Startup, |mut commands: Commands| {
//!             commands.spawn((RigidBody::Static, Collider::half_space(Vec3::Y, 0.0)));
//!             commands.spawn((RigidBody::Dynamic, Collider::cuboid(0.5, 0.5, 0.5), Transform::from_xyz(0.0, 4.0, 0.0)));
//!         })
//!         .run();
//! }
//! ```
//!
//! # Supported
//!
//! - Bodies: [`RigidBody`] (dynamic, kinematic, static) on root entities, created from the
//!   entity's `Transform` before the next step and removed when the component is removed
//!   or the entity despawned (component hooks; creations applied sorted by entity, so two
//!   apps built alike step identically).
//! - Colliders: every engine shape ([`Collider::sphere`], [`cuboid`](Collider::cuboid),
//!   [`capsule`](Collider::capsule), [`convex_hull`](Collider::convex_hull),
//!   [`half_space`](Collider::half_space), [`trimesh`](Collider::trimesh),
//!   [`height_field`](Collider::height_field)) and compounds of them
//!   ([`Collider::compound`]); [`ColliderDensity`], [`Mass`], [`Friction`],
//!   [`Restitution`], [`RollingResistance`], [`Sensor`], [`CollisionGroups`],
//!   [`HitEvents`]; body settings [`GravityScale`], [`Damping`].
//! - Motion: [`LinearVelocity`] and [`AngularVelocity`] (read and written),
//!   [`ExternalForce`], [`ExternalImpulse`], [`KinematicTarget`]; a `Transform` the user
//!   changes teleports the body.
//! - Joints: [`Joint`] components naming two entities, every engine kind ([`JointKind`]).
//! - Events as messages naming entities ([`messages`]): collisions started and ended,
//!   sensors entered and exited, impacts, broken joints, and [`PhysicsError`] for input the
//!   plugin had to skip (also logged as a warning).
//! - Queries: [`SpatialQuery`] (ray casts, shape casts, overlaps) answering with entities.
//! - Rollback: [`ImpetusWorld::state_hash`], [`ImpetusWorld::save_state`],
//!   [`ImpetusWorld::restore_state`]; images for bug reports
//!   ([`ImpetusWorld::save_image`]).
//! - Interpolation between fixed steps, opt-in per entity ([`TransformInterpolation`]).
//! - Debug drawing with Bevy's gizmos through the engine's `DebugDraw` trait, behind the
//!   `debug-render` feature (`ImpetusDebugRenderPlugin`).
//!
//! # Write-back
//!
//! Only the bodies the last step moved (the engine's move events) are written to their
//! `Transform` (and velocity components, if present): a sleeping pile costs the plugin
//! next to nothing. Change detection on `Transform` tells the user's teleports from the
//! plugin's writes (a `Transform` that differs from what the plugin wrote moves the body).
//!
//! # Not supported
//!
//! - Hierarchies: a `RigidBody` on a child entity is refused (a [`PhysicsError`]), and a
//!   `Collider` must sit on the body's own entity (use [`Collider::compound`] for several
//!   shapes). Children of a body follow it through Bevy's transform propagation as usual.
//! - Scale: `Transform::scale` does not scale colliders (a warning names the entity).
//! - Images into a running app: an image can be saved but not loaded back into the app
//!   (the engine can load it on its own).
//! - The engine's particles, cloth, soft bodies and fluids have no components; reach them
//!   through [`ImpetusWorld::engine_mut`].
//! - Several physics worlds in one app.
//!
//! # Determinism
//!
//! The engine's results do not depend on its thread count. The plugin applies its queues
//! in entity order, whatever order the hooks saw the components in; to get the same
//! entities in two runs, spawn them in the same order (Bevy allocates entity ids in spawn
//! order: spawn physics entities from one system, or from systems ordered one after the
//! other, not from systems that may run in parallel).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod components;
mod convert;
#[cfg(feature = "debug-render")]
pub mod debug_render;
pub mod joints;
pub mod messages;
pub mod query;
mod sync;
pub mod world;

pub use components::{
    AngularVelocity, Collider, ColliderDensity, CollisionGroups, Damping, ExternalForce,
    ExternalImpulse, Friction, GravityScale, HitEvents, KinematicTarget, LinearVelocity, Mass,
    PhysicsBody, Restitution, RigidBody, RollingResistance, Sensor, TransformInterpolation,
};
#[cfg(feature = "debug-render")]
pub use debug_render::{ImpetusDebugRender, ImpetusDebugRenderPlugin, PhysicsGizmos};
/// The engine itself, for its types (`WorldDef`, `JointKind`, `Shape`, ids, errors).
pub use impetus;
pub use joints::{Joint, JointFrames, JointKind, Limits, Motor, Spring, SpringStiffness};
pub use messages::{
    CollisionEnded, CollisionStarted, ContactImpact, JointBroken, PhysicsError, SensorEntered,
    SensorExited,
};
pub use query::{RayHit, ShapeHit, SpatialQuery, SpatialQueryFilter};
pub use world::{ImpetusWorld, PhysicsSnapshot};

use bevy::app::{App, FixedPostUpdate, Plugin, PostUpdate};
use bevy::ecs::schedule::{IntoScheduleConfigs, SystemSet};
use bevy::transform::TransformSystems;

/// What a game usually imports.
pub mod prelude {
    pub use crate::{
        AngularVelocity, Collider, ColliderDensity, CollisionEnded, CollisionGroups,
        CollisionStarted, ContactImpact, Damping, ExternalForce, ExternalImpulse, Friction,
        GravityScale, HitEvents, ImpetusPlugin, ImpetusSystems, ImpetusWorld, Joint, JointBroken,
        JointKind, KinematicTarget, LinearVelocity, Mass, PhysicsBody, PhysicsError,
        PhysicsSnapshot, Restitution, RigidBody, RollingResistance, Sensor, SensorEntered,
        SensorExited, SpatialQuery, SpatialQueryFilter, TransformInterpolation,
    };
    #[cfg(feature = "debug-render")]
    pub use crate::{ImpetusDebugRender, ImpetusDebugRenderPlugin, PhysicsGizmos};
}

/// The plugin's systems in `FixedPostUpdate`, in this order. Order your own systems
/// against them (e.g. read the step's messages after `Writeback`).
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImpetusSystems {
    /// Creates the queued bodies, shapes and joints (sorted by entity), then applies
    /// teleports, velocities, forces, impulses and kinematic targets.
    Prepare,
    /// Steps the world by `Time<Fixed>`'s timestep.
    Step,
    /// Writes the bodies that moved back to their entities and the step's events as
    /// messages.
    Writeback,
}

/// Steps an impetus world in `FixedPostUpdate` at `Time<Fixed>`'s timestep and keeps it in
/// step with the entities (see the [crate docs](crate)).
///
/// ```
/// use bevy_impetus::ImpetusPlugin;
/// // Two worker threads; results are the same for every count.
/// let plugin = ImpetusPlugin::default().with_workers(2);
/// assert_eq!(plugin.world_def.worker_count, 2);
/// ```
#[derive(Clone, Debug, Default)]
pub struct ImpetusPlugin {
    /// The world's settings (gravity, substeps, sleep, worker threads...). An invalid one
    /// is logged and the defaults are used instead.
    pub world_def: impetus::WorldDef,
}

impl ImpetusPlugin {
    /// The engine's worker threads: 0 (the default) one per core, 1 steps on the calling
    /// thread. Results are bit-identical for every count.
    pub fn with_workers(mut self, worker_count: usize) -> Self {
        self.world_def.worker_count = worker_count;
        self
    }

    /// Every setting of the world.
    pub fn with_world_def(mut self, world_def: impetus::WorldDef) -> Self {
        self.world_def = world_def;
        self
    }

    fn make_world(&self) -> impetus::World {
        match impetus::World::new(self.world_def) {
            Ok(world) => world,
            Err(error) => {
                log::error!(
                    "impetus: ImpetusPlugin::world_def: {error}; using the default settings"
                );
                let def = impetus::WorldDef {
                    worker_count: 1,
                    ..Default::default()
                };
                // The default settings are valid and one worker starts no thread.
                impetus::World::new(def)
                    .unwrap_or_else(|_| unreachable!("the default WorldDef is valid"))
            }
        }
    }
}

impl Plugin for ImpetusPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(ImpetusWorld::new(self.make_world()))
            .add_message::<CollisionStarted>()
            .add_message::<CollisionEnded>()
            .add_message::<SensorEntered>()
            .add_message::<SensorExited>()
            .add_message::<ContactImpact>()
            .add_message::<JointBroken>()
            .add_message::<PhysicsError>()
            .configure_sets(
                FixedPostUpdate,
                (
                    ImpetusSystems::Prepare,
                    ImpetusSystems::Step,
                    ImpetusSystems::Writeback,
                )
                    .chain(),
            )
            .add_systems(
                FixedPostUpdate,
                (
                    (
                        sync::full_sync,
                        sync::sync_structure,
                        sync::apply_teleports,
                        sync::apply_velocities,
                        sync::apply_forces,
                    )
                        .chain()
                        .in_set(ImpetusSystems::Prepare),
                    sync::step_world.in_set(ImpetusSystems::Step),
                    (sync::writeback, sync::publish_messages)
                        .chain()
                        .in_set(ImpetusSystems::Writeback),
                ),
            )
            .add_systems(
                PostUpdate,
                (sync::full_sync, sync::interpolate)
                    .chain()
                    .before(TransformSystems::Propagate),
            );
    }
}
