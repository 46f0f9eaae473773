//! The systems that keep the engine and the entities in step: the queued creations and
//! changes before each step (in entity order), what the user set (teleports, velocities,
//! forces, impulses, kinematic targets), the step, and the write-back of the bodies that
//! moved.

use crate::components::*;
use crate::convert::{pose_in, pose_out, quat_in, vec_in, vec_out};
use crate::joints::{Joint, JointFrames};
use crate::messages::*;
use crate::world::ImpetusWorld;
use bevy::ecs::change_detection::DetectChangesMut;
use bevy::ecs::entity::Entity;
use bevy::ecs::hierarchy::ChildOf;
use bevy::ecs::message::MessageWriter;
use bevy::ecs::query::{Changed, Has};
use bevy::ecs::system::{Query, Res, ResMut};
use bevy::ecs::world::{Mut, World};
use bevy::math::Vec3;
use bevy::time::{Fixed, Time};
use bevy::transform::components::Transform;
use impetus::{BodyDef, BodyId, JointDef, MassProperties, ShapeDef};

/// Creates the bodies, shapes and joints queued by the component hooks, and applies the
/// queued changes of gravity scale and damping: each queue sorted by entity, so the
/// engine sees the same calls in the same order in every app built alike.
pub(crate) fn sync_structure(world: &mut World) {
    if !world.contains_resource::<ImpetusWorld>() {
        return;
    }
    let errors = world.resource_scope(|world, mut physics: Mut<ImpetusWorld>| {
        let physics = &mut *physics;
        let mut errors = Vec::new();
        let mut created = std::mem::take(&mut physics.pending_bodies);
        sort_entities(&mut created);
        created.retain(|&e| create_body(world, physics, e, &mut errors));

        let mut reshaped = std::mem::take(&mut physics.dirty_shapes);
        sort_entities(&mut reshaped);
        for e in reshaped {
            if created.binary_search_by_key(&key(e), |&c| key(c)).is_ok() {
                continue;
            }
            rebuild_shapes(world, physics, e, &mut errors);
        }

        let mut changed = std::mem::take(&mut physics.dirty_bodies);
        sort_entities(&mut changed);
        for e in changed {
            if created.binary_search_by_key(&key(e), |&c| key(c)).is_ok() {
                continue;
            }
            update_body(world, physics, e, &mut errors);
        }

        let mut joints = std::mem::take(&mut physics.pending_joints);
        joints.sort_unstable_by_key(|&(e, orphan)| (key(e), orphan));
        joints.dedup_by_key(|&mut (e, _)| e);
        for (e, orphan) in joints {
            create_joint(world, physics, e, orphan, &mut errors);
        }
        errors
    });
    for error in errors {
        world.write_message(error.logged());
    }
}

fn key(e: Entity) -> (u32, u32) {
    (e.index_u32(), e.generation().to_bits())
}

/// Creates the body of entity `e` (if it still has a `RigidBody` and no body yet); true
/// when it did.
fn create_body(
    world: &mut World,
    physics: &mut ImpetusWorld,
    e: Entity,
    errors: &mut Vec<PhysicsError>,
) -> bool {
    let Ok(entity) = world.get_entity(e) else {
        return false;
    };
    let Some(&rigid_body) = entity.get::<RigidBody>() else {
        return false;
    };
    if physics.bodies.contains_key(&e) {
        return false;
    }
    if entity.contains::<ChildOf>() {
        errors.push(PhysicsError::new(
            Some(e),
            "RigidBody",
            impetus::Error::Unsupported {
                what: "a RigidBody on a child entity (only root entities may be bodies)",
            },
        ));
        return false;
    }
    let transform = entity.get::<Transform>().copied().unwrap_or_default();
    if transform.scale != Vec3::ONE {
        log::warn!(
            "impetus: entity {e}: Transform::scale {} is ignored (colliders are not scaled)",
            transform.scale
        );
    }
    let def = BodyDef {
        body_type: rigid_body.body_type(),
        position: vec_in(transform.translation),
        rotation: quat_in(transform.rotation),
        linear_velocity: vec_in(entity.get::<LinearVelocity>().map_or(Vec3::ZERO, |v| v.0)),
        angular_velocity: vec_in(entity.get::<AngularVelocity>().map_or(Vec3::ZERO, |v| v.0)),
        gravity_scale: entity.get::<GravityScale>().map_or(1.0, |g| g.0),
        linear_damping: entity.get::<Damping>().map_or(0.0, |d| d.linear),
        angular_damping: entity.get::<Damping>().map_or(0.0, |d| d.angular),
        user_data: e.to_bits(),
        ..Default::default()
    };
    let id = match physics.world.create_body(&def) {
        Ok(id) => id,
        Err(error) => {
            errors.push(PhysicsError::new(Some(e), "RigidBody", error));
            return false;
        }
    };
    physics.bodies.insert(e, id);
    add_shapes(world, physics, e, id, errors);
    // The pose as the engine holds it (its rotation normalised).
    let pose = physics
        .world
        .body_transform(id)
        .map(|t| pose_out(&t))
        .unwrap_or((transform.translation, transform.rotation));
    if let Some(mut body) = world.get_mut::<PhysicsBody>(e) {
        *body = PhysicsBody {
            id: Some(id),
            written: (transform.translation, transform.rotation),
            previous: pose,
            current: pose,
        };
    }
    true
}

/// Adds the shapes of entity `e`'s collider to body `id`, with its material, and applies
/// its mass override.
fn add_shapes(
    world: &World,
    physics: &mut ImpetusWorld,
    e: Entity,
    id: BodyId,
    errors: &mut Vec<PhysicsError>,
) {
    let Ok(entity) = world.get_entity(e) else {
        return;
    };
    let Some(collider) = entity.get::<Collider>() else {
        if entity.contains::<Mass>() {
            set_mass(
                physics,
                e,
                id,
                entity.get::<Mass>().map_or(0.0, |m| m.0),
                errors,
            );
        }
        return;
    };
    let density = entity.get::<ColliderDensity>().map(|d| d.0);
    let friction = entity.get::<Friction>().copied();
    let restitution = entity.get::<Restitution>().map(|r| r.0);
    let rolling = entity.get::<RollingResistance>().map(|r| r.0);
    let groups = entity.get::<CollisionGroups>().copied();
    let sensor = entity.contains::<Sensor>();
    let hits = entity.contains::<HitEvents>();
    for (translation, rotation, shape) in collider.parts() {
        let mut def = ShapeDef::new(shape.clone()).with_local_pose(pose_in(translation, rotation));
        if let Some(d) = density {
            def.density = d;
        }
        if let Some(f) = friction {
            def.friction = f.kinetic;
            def.static_friction = f.static_coefficient;
        }
        if let Some(r) = restitution {
            def.restitution = r;
        }
        if let Some(r) = rolling {
            def.rolling_resistance = r;
        }
        if let Some(g) = groups {
            def.filter = g.filter();
        }
        def.is_sensor = sensor;
        def.enable_hit_events = hits;
        if let Err(error) = physics.world.add_shape(id, &def) {
            errors.push(PhysicsError::new(Some(e), "Collider", error));
        }
    }
    if let Some(mass) = entity.get::<Mass>() {
        set_mass(physics, e, id, mass.0, errors);
    }
}

/// Overrides a dynamic body's mass, scaling the inertia its shapes give.
fn set_mass(
    physics: &mut ImpetusWorld,
    e: Entity,
    id: BodyId,
    mass: f32,
    errors: &mut Vec<PhysicsError>,
) {
    let world = &mut physics.world;
    if world.body_type(id) != Ok(impetus::BodyType::Dynamic) {
        errors.push(PhysicsError::new(
            Some(e),
            "Mass",
            impetus::Error::Unsupported {
                what: "a Mass on a static or kinematic body",
            },
        ));
        return;
    }
    let Ok(current) = world.body_mass_properties(id) else {
        return;
    };
    let ratio = mass / current.mass;
    let inertia = current.inertia * ratio;
    if let Err(error) = world.set_body_mass_properties(id, MassProperties { mass, inertia }) {
        errors.push(PhysicsError::new(Some(e), "Mass", error));
    }
}

/// Replaces the shapes of entity `e`'s body with what its components say now.
fn rebuild_shapes(
    world: &World,
    physics: &mut ImpetusWorld,
    e: Entity,
    errors: &mut Vec<PhysicsError>,
) {
    let Ok(entity) = world.get_entity(e) else {
        return;
    };
    let Some(id) = physics.bodies.get(&e).copied() else {
        if entity.contains::<Collider>() && !entity.contains::<RigidBody>() {
            errors.push(PhysicsError::new(
                Some(e),
                "Collider",
                impetus::Error::Unsupported {
                    what: "a Collider without a RigidBody on the same entity (colliders on child entities are not supported)",
                },
            ));
        }
        return;
    };
    let shapes = physics
        .world
        .body_shapes(id)
        .map(|s| s.to_vec())
        .unwrap_or_default();
    for shape in shapes {
        if let Err(error) = physics.world.remove_shape(shape) {
            errors.push(PhysicsError::new(Some(e), "Collider", error));
        }
    }
    add_shapes(world, physics, e, id, errors);
}

/// Applies entity `e`'s gravity scale and damping to its body.
fn update_body(
    world: &World,
    physics: &mut ImpetusWorld,
    e: Entity,
    errors: &mut Vec<PhysicsError>,
) {
    let (Ok(entity), Some(id)) = (world.get_entity(e), physics.bodies.get(&e).copied()) else {
        return;
    };
    let scale = entity.get::<GravityScale>().map_or(1.0, |g| g.0);
    if let Err(error) = physics.world.set_body_gravity_scale(id, scale) {
        errors.push(PhysicsError::new(Some(e), "GravityScale", error));
    }
    let damping = entity.get::<Damping>().copied().unwrap_or_default();
    if let Err(error) = physics
        .world
        .set_body_damping(id, damping.linear, damping.angular)
    {
        errors.push(PhysicsError::new(Some(e), "Damping", error));
    }
}

/// Creates the joint of entity `e`. `orphan`: the joint existed and went with one of its
/// bodies; then a body entity that is gone is no error.
fn create_joint(
    world: &World,
    physics: &mut ImpetusWorld,
    e: Entity,
    orphan: bool,
    errors: &mut Vec<PhysicsError>,
) {
    let Some(joint) = world
        .get_entity(e)
        .ok()
        .and_then(|entity| entity.get::<Joint>().copied())
    else {
        return;
    };
    if physics.joints.contains_key(&e) {
        return;
    }
    let body_of = |target: Entity, field: &'static str| -> Result<BodyId, Option<impetus::Error>> {
        if let Some(&id) = physics.bodies.get(&target) {
            return Ok(id);
        }
        let exists = world
            .get_entity(target)
            .is_ok_and(|t| t.contains::<RigidBody>());
        if orphan && !exists {
            return Err(None);
        }
        Err(Some(impetus::Error::InvalidInput {
            field,
            reason: "must name an entity with a RigidBody (a root entity)",
        }))
    };
    let ids = body_of(joint.body_a, "Joint::body_a")
        .and_then(|a| body_of(joint.body_b, "Joint::body_b").map(|b| (a, b)));
    let (a, b) = match ids {
        Ok(ids) => ids,
        Err(Some(error)) => {
            errors.push(PhysicsError::new(Some(e), "Joint", error));
            return;
        }
        Err(None) => return,
    };
    let mut def = match joint.frames {
        JointFrames::World { anchor, axis } => {
            let (Ok(xf_a), Ok(xf_b)) = (
                physics.world.body_transform(a),
                physics.world.body_transform(b),
            ) else {
                return;
            };
            JointDef::at_world(joint.kind, a, &xf_a, b, &xf_b, vec_in(anchor), vec_in(axis))
        }
        JointFrames::Local { a: fa, b: fb } => {
            JointDef::new(joint.kind, a, pose_in(fa.0, fa.1), b, pose_in(fb.0, fb.1))
        }
    };
    def.collide_connected = joint.collide_connected;
    def.break_impulse = joint.break_impulse;
    def.break_angular_impulse = joint.break_angular_impulse;
    match physics.world.create_joint(&def) {
        Ok(id) => {
            physics.joints.insert(e, id);
            physics.joint_entities.insert(id, e);
        }
        Err(error) => errors.push(PhysicsError::new(Some(e), "Joint", error)),
    }
}

/// Teleports the bodies whose `Transform` the user changed (it differs from the pose the
/// plugin last wrote).
pub(crate) fn apply_teleports(
    mut physics: ResMut<ImpetusWorld>,
    mut bodies: Query<(Entity, &Transform, &mut PhysicsBody), Changed<Transform>>,
    mut errors: MessageWriter<PhysicsError>,
) {
    for (e, transform, mut body) in &mut bodies {
        let Some(id) = body.id else { continue };
        let pose = (transform.translation, transform.rotation);
        if pose == body.written {
            continue;
        }
        match physics
            .world
            .set_body_transform(id, vec_in(pose.0), quat_in(pose.1))
        {
            Ok(()) => {
                let body = body.bypass_change_detection();
                body.written = pose;
                let now = physics
                    .world
                    .body_transform(id)
                    .map(|t| pose_out(&t))
                    .unwrap_or(pose);
                body.previous = now;
                body.current = now;
            }
            Err(error) => {
                errors.write(PhysicsError::new(Some(e), "Transform", error).logged());
            }
        }
    }
}

/// Sets the velocities the user changed.
pub(crate) fn apply_velocities(
    mut physics: ResMut<ImpetusWorld>,
    linear: Query<(Entity, &LinearVelocity, &PhysicsBody), Changed<LinearVelocity>>,
    angular: Query<(Entity, &AngularVelocity, &PhysicsBody), Changed<AngularVelocity>>,
    mut errors: MessageWriter<PhysicsError>,
) {
    let world = &mut physics.world;
    for (e, v, body) in &linear {
        let Some(id) = body.id else { continue };
        if world
            .body_linear_velocity(id)
            .is_ok_and(|now| vec_out(now) == v.0)
        {
            continue;
        }
        if let Err(error) = world.set_body_linear_velocity(id, vec_in(v.0)) {
            errors.write(PhysicsError::new(Some(e), "LinearVelocity", error).logged());
        }
    }
    for (e, w, body) in &angular {
        let Some(id) = body.id else { continue };
        if world
            .body_angular_velocity(id)
            .is_ok_and(|now| vec_out(now) == w.0)
        {
            continue;
        }
        if let Err(error) = world.set_body_angular_velocity(id, vec_in(w.0)) {
            errors.write(PhysicsError::new(Some(e), "AngularVelocity", error).logged());
        }
    }
}

/// Applies forces (every step while persistent), impulses (once) and kinematic targets
/// (when changed).
pub(crate) fn apply_forces(
    mut physics: ResMut<ImpetusWorld>,
    mut forces: Query<(Entity, &mut ExternalForce, &PhysicsBody)>,
    mut impulses: Query<(Entity, &mut ExternalImpulse, &PhysicsBody), Changed<ExternalImpulse>>,
    targets: Query<(Entity, &KinematicTarget, &PhysicsBody), Changed<KinematicTarget>>,
    mut errors: MessageWriter<PhysicsError>,
) {
    let world = &mut physics.world;
    for (e, mut force, body) in &mut forces {
        let Some(id) = body.id else { continue };
        if force.force != Vec3::ZERO {
            if let Err(error) = world.apply_force_to_center(id, vec_in(force.force)) {
                errors.write(PhysicsError::new(Some(e), "ExternalForce", error).logged());
            }
        }
        if force.torque != Vec3::ZERO {
            if let Err(error) = world.apply_torque(id, vec_in(force.torque)) {
                errors.write(PhysicsError::new(Some(e), "ExternalForce", error).logged());
            }
        }
        if !force.persistent && (force.force != Vec3::ZERO || force.torque != Vec3::ZERO) {
            let force = force.bypass_change_detection();
            force.force = Vec3::ZERO;
            force.torque = Vec3::ZERO;
        }
    }
    for (e, mut impulse, body) in &mut impulses {
        let Some(id) = body.id else { continue };
        if impulse.linear != Vec3::ZERO {
            let applied = world
                .body_center_of_mass(id)
                .and_then(|center| world.apply_linear_impulse(id, vec_in(impulse.linear), center));
            if let Err(error) = applied {
                errors.write(PhysicsError::new(Some(e), "ExternalImpulse", error).logged());
            }
        }
        if impulse.angular != Vec3::ZERO {
            if let Err(error) = world.apply_angular_impulse(id, vec_in(impulse.angular)) {
                errors.write(PhysicsError::new(Some(e), "ExternalImpulse", error).logged());
            }
        }
        *impulse.bypass_change_detection() = ExternalImpulse::default();
    }
    for (e, target, body) in &targets {
        let Some(id) = body.id else { continue };
        if let Err(error) =
            world.set_body_target_pose(id, pose_in(target.translation, target.rotation))
        {
            errors.write(PhysicsError::new(Some(e), "KinematicTarget", error).logged());
        }
    }
}

/// Steps the world by `Time<Fixed>`'s timestep.
pub(crate) fn step_world(
    mut physics: ResMut<ImpetusWorld>,
    time: Res<Time<Fixed>>,
    mut errors: MessageWriter<PhysicsError>,
) {
    let dt = time.timestep().as_secs_f32();
    match physics.world.step(dt) {
        Ok(()) => physics.steps += 1,
        Err(error) => {
            errors.write(PhysicsError::new(None, "Time<Fixed>::timestep", error).logged());
        }
    }
}

/// The entity-side state the write-back touches.
type WritebackItem<'a> = (
    &'a mut Transform,
    &'a mut PhysicsBody,
    Option<&'a mut LinearVelocity>,
    Option<&'a mut AngularVelocity>,
    Has<TransformInterpolation>,
);

/// Copies the poses (and velocities) of the bodies the last step moved to their entities:
/// the engine's move events, so a sleeping pile costs nothing here.
pub(crate) fn writeback(mut physics: ResMut<ImpetusWorld>, mut bodies: Query<WritebackItem>) {
    let physics = &mut *physics;
    // Interpolated entities settle on the pose they were moving towards.
    for e in physics.interpolating.drain(..) {
        if let Ok((mut transform, mut body, ..)) = bodies.get_mut(e) {
            body.previous = body.current;
            transform.translation = body.current.0;
            transform.rotation = body.current.1;
            body.written = body.current;
        }
    }
    let world = &physics.world;
    for moved in world.body_move_events() {
        let Some(e) = world
            .body_user_data(moved.body)
            .ok()
            .and_then(Entity::try_from_bits)
        else {
            continue;
        };
        let Ok((mut transform, mut body, linear, angular, interpolated)) = bodies.get_mut(e) else {
            continue;
        };
        if body.id != Some(moved.body) {
            continue;
        }
        let pose = pose_out(&moved.transform);
        if interpolated {
            body.previous = body.current;
            body.current = pose;
            physics.interpolating.push(e);
        } else {
            body.previous = pose;
            body.current = pose;
            transform.translation = pose.0;
            transform.rotation = pose.1;
            body.written = pose;
        }
        if let Some(mut v) = linear {
            v.bypass_change_detection().0 =
                vec_out(world.body_linear_velocity(moved.body).unwrap_or_default());
        }
        if let Some(mut w) = angular {
            w.bypass_change_detection().0 =
                vec_out(world.body_angular_velocity(moved.body).unwrap_or_default());
        }
    }
}

/// The message writers of the step's events.
#[derive(bevy::ecs::system::SystemParam)]
pub(crate) struct EventWriters<'w> {
    started: MessageWriter<'w, CollisionStarted>,
    ended: MessageWriter<'w, CollisionEnded>,
    entered: MessageWriter<'w, SensorEntered>,
    exited: MessageWriter<'w, SensorExited>,
    impacts: MessageWriter<'w, ContactImpact>,
    broken: MessageWriter<'w, JointBroken>,
}

/// Turns the last step's engine events into messages naming entities (events whose bodies
/// have no entity, made through `engine_mut`, are skipped).
pub(crate) fn publish_messages(mut physics: ResMut<ImpetusWorld>, mut out: EventWriters) {
    let p = &*physics;
    let w = &p.world;
    let pair = |a: BodyId, b: BodyId| Some((p.entity_of(a)?, p.entity_of(b)?));
    for t in w.contact_begin_events() {
        if let Some((entity_a, entity_b)) = pair(t.body_a, t.body_b) {
            out.started.write(CollisionStarted { entity_a, entity_b });
        }
    }
    for t in w.contact_end_events() {
        if let Some((entity_a, entity_b)) = pair(t.body_a, t.body_b) {
            out.ended.write(CollisionEnded { entity_a, entity_b });
        }
    }
    for s in w.sensor_begin_events() {
        if let Some((sensor, visitor)) = pair(s.sensor_body, s.visitor_body) {
            out.entered.write(SensorEntered { sensor, visitor });
        }
    }
    for s in w.sensor_end_events() {
        if let Some((sensor, visitor)) = pair(s.sensor_body, s.visitor_body) {
            out.exited.write(SensorExited { sensor, visitor });
        }
    }
    for h in w.contact_hit_events() {
        if let Some((entity_a, entity_b)) = pair(h.touch.body_a, h.touch.body_b) {
            out.impacts.write(ContactImpact {
                entity_a,
                entity_b,
                point: vec_out(h.point),
                normal: vec_out(h.normal),
                approach_speed: h.approach_speed,
            });
        }
    }
    for q in w.quarantine_events() {
        log::warn!(
            "impetus: the body of entity {:?} went non-finite in the last step and was put back at rest",
            p.entity_of(*q)
        );
    }
    let breaks: Vec<_> = w.joint_break_events().to_vec();
    let physics = &mut *physics;
    physics.removed.clear();
    for b in breaks {
        let Some(joint) = physics.joint_entities.remove(&b.joint) else {
            continue;
        };
        physics.joints.remove(&joint);
        if let (Some(body_a), Some(body_b)) =
            (physics.entity_of(b.body_a), physics.entity_of(b.body_b))
        {
            out.broken.write(JointBroken {
                joint,
                body_a,
                body_b,
                impulse: b.impulse,
                angular_impulse: b.angular_impulse,
            });
        }
    }
}

/// Moves interpolated entities between the poses of the last two steps.
pub(crate) fn interpolate(
    physics: Res<ImpetusWorld>,
    time: Res<Time<Fixed>>,
    mut bodies: Query<(&mut Transform, &mut PhysicsBody)>,
) {
    if physics.interpolating.is_empty() {
        return;
    }
    let alpha = time.overstep_fraction().clamp(0.0, 1.0);
    for &e in &physics.interpolating {
        if let Ok((mut transform, mut body)) = bodies.get_mut(e) {
            let (p0, q0) = body.previous;
            let (p1, q1) = body.current;
            let pose = (p0.lerp(p1, alpha), q0.slerp(q1, alpha));
            transform.translation = pose.0;
            transform.rotation = pose.1;
            body.written = pose;
        }
    }
}

/// After a restore: copies every body's pose and velocities to its entity.
pub(crate) fn full_sync(mut physics: ResMut<ImpetusWorld>, mut bodies: Query<WritebackItem>) {
    if !physics.full_sync {
        return;
    }
    let physics = &mut *physics;
    physics.full_sync = false;
    physics.interpolating.clear();
    let world = &physics.world;
    for (&e, &id) in physics.bodies.iter() {
        let (Ok((mut transform, mut body, linear, angular, _)), Ok(xf)) =
            (bodies.get_mut(e), world.body_transform(id))
        else {
            continue;
        };
        let pose = pose_out(&xf);
        body.previous = pose;
        body.current = pose;
        body.written = pose;
        transform.translation = pose.0;
        transform.rotation = pose.1;
        if let Some(mut v) = linear {
            v.bypass_change_detection().0 =
                vec_out(world.body_linear_velocity(id).unwrap_or_default());
        }
        if let Some(mut w) = angular {
            w.bypass_change_detection().0 =
                vec_out(world.body_angular_velocity(id).unwrap_or_default());
        }
    }
}
