//! The engine's events of each step as Bevy messages, naming entities, and the plugin's
//! errors ([`PhysicsError`]).
//!
//! Each step's events are written in the engine's order (which does not depend on the
//! thread count) right after the step, in `FixedPostUpdate`
//! ([`ImpetusSystems::Writeback`](crate::ImpetusSystems)): read them in `FixedUpdate` of the
//! next step or in `Update` of the same frame.
//!
//! Which shapes publish what is the engine's choice per shape: contact start and end
//! events for every shape, sensor events for [`Sensor`](crate::Sensor) colliders, impacts
//! only for colliders with [`HitEvents`](crate::HitEvents).

use bevy::ecs::entity::Entity;
use bevy::ecs::message::Message;
use bevy::math::Vec3;

/// Two colliders began touching (at least one contact point, speculative ones included).
/// The contact normal points from `entity_a` to `entity_b`.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CollisionStarted {
    /// The body the normal points away from.
    pub entity_a: Entity,
    /// The other body.
    pub entity_b: Entity,
}

/// Two colliders stopped touching, or one of them was removed (then it names the entity
/// that was despawned or lost its body).
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CollisionEnded {
    /// The body the normal pointed away from.
    pub entity_a: Entity,
    /// The other body.
    pub entity_b: Entity,
}

/// A collider entered a [`Sensor`](crate::Sensor).
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SensorEntered {
    /// The sensor's entity.
    pub sensor: Entity,
    /// The entity that entered it.
    pub visitor: Entity,
}

/// A collider left a [`Sensor`](crate::Sensor) (or one of the two was removed).
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SensorExited {
    /// The sensor's entity.
    pub sensor: Entity,
    /// The entity that left it.
    pub visitor: Entity,
}

/// Two colliders began touching with their surfaces approaching faster than
/// `WorldDef::hit_event_threshold` (1 m/s by default): an impact, for a sound or a spark.
/// Published when either collider has [`HitEvents`](crate::HitEvents).
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct ContactImpact {
    /// The body the normal points away from.
    pub entity_a: Entity,
    /// The other body.
    pub entity_b: Entity,
    /// The contact point that approached fastest, in world space (m).
    pub point: Vec3,
    /// The contact normal, from A to B.
    pub normal: Vec3,
    /// How fast the surfaces approached at `point`, in m/s (positive).
    pub approach_speed: f32,
}

/// A joint broke: the impulse it applied in a step passed its break impulse. The engine
/// removed it; the [`Joint`](crate::Joint) component stays on its entity (despawn it or
/// insert a new `Joint` to make another).
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct JointBroken {
    /// The entity that holds the `Joint` component.
    pub joint: Entity,
    /// The joint's body A.
    pub body_a: Entity,
    /// The joint's body B.
    pub body_b: Entity,
    /// The linear impulse it applied in the step it broke, N·s.
    pub impulse: f32,
    /// The angular impulse it applied in the step it broke, N·m·s.
    pub angular_impulse: f32,
}

/// Something the plugin could not do: a component with an invalid value, a static-only
/// shape on a dynamic body, a joint naming an entity without a body. The plugin skips
/// what failed and logs the same text as a warning.
#[derive(Message, Clone, Debug, PartialEq)]
pub struct PhysicsError {
    /// The entity whose component failed, if any.
    pub entity: Option<Entity>,
    /// The component (or resource) that failed, e.g. `"Collider"`.
    pub component: &'static str,
    /// The engine's error, naming the bad field.
    pub error: impetus::Error,
}

impl std::fmt::Display for PhysicsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.entity {
            Some(e) => write!(f, "impetus: entity {e}, {}: {}", self.component, self.error),
            None => write!(f, "impetus: {}: {}", self.component, self.error),
        }
    }
}

impl PhysicsError {
    /// An error of `component` on `entity`.
    pub(crate) fn new(
        entity: Option<Entity>,
        component: &'static str,
        error: impetus::Error,
    ) -> Self {
        Self {
            entity,
            component,
            error,
        }
    }

    /// Logs the error as a warning and returns it (to write as a message).
    pub(crate) fn logged(self) -> Self {
        log::warn!("{self}");
        self
    }
}

/// Logs an error where no message can be written (a component hook).
pub(crate) fn log_error(entity: Option<Entity>, component: &'static str, error: &impetus::Error) {
    log::warn!("{}", PhysicsError::new(entity, component, error.clone()));
}
