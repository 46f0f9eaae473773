//! [`ImpetusWorld`]: the engine's world as a Bevy resource, with the map between entities
//! and the engine's bodies and joints, the queues the component hooks fill, and rollback
//! (state hash, save and restore).

use bevy::ecs::entity::Entity;
use bevy::ecs::resource::Resource;
use bevy::platform::collections::HashMap;
use impetus::{BodyId, JointId};

/// The physics world of an app: the engine's [`impetus::World`] and which entity each of
/// its bodies and joints belongs to. Inserted by [`ImpetusPlugin`](crate::ImpetusPlugin).
///
/// Read the engine through [`engine`](Self::engine) (contacts, profile, sleep counts, any
/// query the [`SpatialQuery`](crate::SpatialQuery) parameter does not wrap). Rollback:
/// [`state_hash`](Self::state_hash), [`save_state`](Self::save_state),
/// [`restore_state`](Self::restore_state).
#[derive(Resource)]
pub struct ImpetusWorld {
    pub(crate) world: impetus::World,
    /// Entity to body, for every body the plugin created.
    pub(crate) bodies: HashMap<Entity, BodyId>,
    /// Joint entity to joint, and back.
    pub(crate) joints: HashMap<Entity, JointId>,
    pub(crate) joint_entities: HashMap<JointId, Entity>,
    /// Entities whose `RigidBody` was inserted since the last step (created, sorted, before
    /// the next step).
    pub(crate) pending_bodies: Vec<Entity>,
    /// Entities whose collider or material components changed: their shapes are rebuilt
    /// before the next step.
    pub(crate) dirty_shapes: Vec<Entity>,
    /// Entities whose gravity scale or damping changed.
    pub(crate) dirty_bodies: Vec<Entity>,
    /// Joint entities to create before the next step, with whether the joint existed
    /// before and was dropped with one of its bodies (then a missing body is no error: the
    /// body entity was despawned).
    pub(crate) pending_joints: Vec<(Entity, bool)>,
    /// Bodies removed since the last step, with their entities: the next step's end events
    /// name them.
    pub(crate) removed: Vec<(BodyId, Entity)>,
    /// Entities whose transform is being interpolated (they moved in the last step).
    pub(crate) interpolating: Vec<Entity>,
    /// Every body's pose and velocity must be copied to its entity (after a restore).
    pub(crate) full_sync: bool,
    /// Steps the plugin has taken.
    pub(crate) steps: u64,
}

/// A saved state of an [`ImpetusWorld`] (see [`ImpetusWorld::save_state`]): the engine's
/// state bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PhysicsSnapshot {
    bytes: Vec<u8>,
    steps: u64,
}

impl PhysicsSnapshot {
    /// The engine's state bytes (`impetus::World::save_state`'s format).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The plugin's step count when the state was saved.
    pub fn steps(&self) -> u64 {
        self.steps
    }
}

impl ImpetusWorld {
    /// Wraps an engine world (no bodies are mapped to entities yet).
    pub(crate) fn new(world: impetus::World) -> Self {
        Self {
            world,
            bodies: HashMap::default(),
            joints: HashMap::default(),
            joint_entities: HashMap::default(),
            pending_bodies: Vec::new(),
            dirty_shapes: Vec::new(),
            dirty_bodies: Vec::new(),
            pending_joints: Vec::new(),
            removed: Vec::new(),
            interpolating: Vec::new(),
            full_sync: false,
            steps: 0,
        }
    }

    /// The engine's world, to read: contacts, the profile of the last step, sleep counts,
    /// body and joint properties by id ([`body`](Self::body), [`joint`](Self::joint)).
    pub fn engine(&self) -> &impetus::World {
        &self.world
    }

    /// The engine's world, to change what the components do not cover: gravity, fluids,
    /// particles, a pair filter or a contact modifier, a joint's motor.
    ///
    /// Do not create or remove bodies or joints through it: the plugin would not know
    /// them (their events map to no entity). Anything the plugin's components set is
    /// overwritten when the component changes.
    pub fn engine_mut(&mut self) -> &mut impetus::World {
        &mut self.world
    }

    /// The body of `entity`, once created (bodies are created before the first step after
    /// their `RigidBody` was inserted).
    pub fn body(&self, entity: Entity) -> Option<BodyId> {
        self.bodies.get(&entity).copied()
    }

    /// The joint of `entity` (an entity with a [`Joint`](crate::Joint)), once created.
    pub fn joint(&self, entity: Entity) -> Option<JointId> {
        self.joints.get(&entity).copied()
    }

    /// The entity of a body: live bodies through their user data (the entity's bits), and
    /// bodies removed since the last step (which the next step's end events still name).
    pub fn entity_of(&self, body: BodyId) -> Option<Entity> {
        if let Ok(bits) = self.world.body_user_data(body) {
            let entity = Entity::try_from_bits(bits)?;
            // A body created through `engine_mut` carries no entity: check the map back.
            return (self.bodies.get(&entity) == Some(&body)).then_some(entity);
        }
        self.removed
            .iter()
            .find(|(id, _)| *id == body)
            .map(|&(_, entity)| entity)
    }

    /// The entity of a joint.
    pub fn entity_of_joint(&self, joint: JointId) -> Option<Entity> {
        self.joint_entities.get(&joint).copied()
    }

    /// Steps taken by the plugin since the app started (a restore sets it back to the
    /// count of the snapshot).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The engine's state hash: every body's pose and velocity, bit for bit. Two apps that
    /// built the same bodies and took the same steps have the same hash.
    pub fn state_hash(&self) -> u64 {
        self.world.state_hash()
    }

    /// Saves the engine's state (everything a step changes) for
    /// [`restore_state`](Self::restore_state).
    pub fn save_state(&self) -> PhysicsSnapshot {
        let mut snapshot = PhysicsSnapshot::default();
        self.save_state_into(&mut snapshot);
        snapshot
    }

    /// As [`save_state`](Self::save_state), into a snapshot whose buffer is reused.
    pub fn save_state_into(&self, snapshot: &mut PhysicsSnapshot) {
        self.world.save_state(&mut snapshot.bytes);
        snapshot.steps = self.steps;
    }

    /// Puts back a saved state: the world then steps on exactly as it did after the save.
    /// The entities' transforms and velocities are copied from it before the next step or
    /// frame. The bodies, shapes and joints must be those of the save (none created or
    /// removed since, no collider or material changed): otherwise the engine refuses the
    /// state with an `Err` naming what differs, and nothing changes.
    ///
    /// Only the engine's state rolls back: the components your systems own (forces,
    /// impulses, targets, game state) are yours to save and restore.
    pub fn restore_state(&mut self, snapshot: &PhysicsSnapshot) -> Result<(), impetus::Error> {
        if !self.pending_bodies.is_empty()
            || !self.pending_joints.is_empty()
            || !self.dirty_shapes.is_empty()
            || !self.dirty_bodies.is_empty()
        {
            return Err(impetus::Error::Unsupported {
                what: "restoring a state while bodies, shapes or joints wait to be created",
            });
        }
        self.world.restore_state(&snapshot.bytes)?;
        self.steps = snapshot.steps;
        self.full_sync = true;
        Ok(())
    }

    /// Writes the whole world (settings, bodies, shapes, joints and state) as an engine
    /// image: for bug reports, loaded by `impetus::World::from_image` (the engine's
    /// benchmark tool runs it with `--image`). Each body's user data is its entity's bits.
    pub fn save_image(&self, out: &mut Vec<u8>) {
        self.world.save_image(out);
    }

    /// Forgets the body of `entity` (its `RigidBody` was removed or replaced, or the entity
    /// despawned): removes it from the engine with its shapes and joints. The joints'
    /// entities are queued again, so a joint comes back when its body does.
    pub(crate) fn remove_body_of(&mut self, entity: Entity) {
        self.pending_bodies.retain(|&e| e != entity);
        let Some(id) = self.bodies.remove(&entity) else {
            return;
        };
        if let Ok(joints) = self.world.body_joints(id) {
            for joint in joints {
                if let Some(joint_entity) = self.joint_entities.remove(&joint) {
                    self.joints.remove(&joint_entity);
                    self.pending_joints.push((joint_entity, true));
                }
            }
        }
        if let Err(error) = self.world.remove_body(id) {
            crate::messages::log_error(Some(entity), "RigidBody", &error);
        }
        self.removed.push((id, entity));
        self.interpolating.retain(|&e| e != entity);
    }

    /// Removes the joint of `entity` (its `Joint` was removed or replaced, or the entity
    /// despawned).
    pub(crate) fn remove_joint_of(&mut self, entity: Entity) {
        self.pending_joints.retain(|&(e, _)| e != entity);
        let Some(id) = self.joints.remove(&entity) else {
            return;
        };
        self.joint_entities.remove(&id);
        if let Err(error) = self.world.remove_joint(id) {
            crate::messages::log_error(Some(entity), "Joint", &error);
        }
    }
}
