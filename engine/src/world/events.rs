//! The events a step publishes (pull model: slices valid until the next step, in an order
//! that does not depend on the thread count): contact begin/end (in `api.rs`), hits,
//! sensor begin/end, and the bodies that moved.
//!
//! Contact records come from the narrowphase chunks in contact order; sensor and hit
//! records too; removals through the API come first in the end lists, in call order.
//! Which shapes publish what is opt-in per shape: `ShapeDef::enable_contact_events`
//! (default on), `enable_hit_events` (default off), `enable_sensor_events` (default on,
//! on the visiting shape).

use super::{ContactTouch, World};
use crate::contact::{Contact, CONTACT_EVENTS, SENSOR};
use crate::id::{BodyId, ShapeId, SlotPool};
use crate::math::Transform;
use crate::shape::store::ShapeStore;
use glam::Vec3;

/// A sensor shape began or stopped overlapping another shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct SensorEvent {
    /// The sensor shape.
    pub sensor: ShapeId,
    /// The shape that entered or left it.
    pub visitor: ShapeId,
    /// The sensor's body.
    pub sensor_body: BodyId,
    /// The visitor's body.
    pub visitor_body: BodyId,
}

impl SensorEvent {
    /// The record of sensor contact `c`.
    pub(crate) fn of(c: &Contact, shapes: &ShapeStore, bodies: &SlotPool) -> Self {
        let t = ContactTouch::of(c, &shapes.pool, bodies);
        if shapes.data[c.shape_a as usize].is_sensor {
            SensorEvent {
                sensor: t.shape_a,
                visitor: t.shape_b,
                sensor_body: t.body_a,
                visitor_body: t.body_b,
            }
        } else {
            SensorEvent {
                sensor: t.shape_b,
                visitor: t.shape_a,
                sensor_body: t.body_b,
                visitor_body: t.body_a,
            }
        }
    }
}

/// A contact that began touching with its surfaces approaching faster than
/// [`WorldDef::hit_event_threshold`](crate::WorldDef): an impact (a sound, a spark).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactHit {
    /// The shapes and bodies (the normal points from A to B).
    pub touch: ContactTouch,
    /// The manifold point that approached fastest, world space, in m.
    pub point: Vec3,
    /// The contact normal, from A to B.
    pub normal: Vec3,
    /// The speed at which the surfaces approached at `point` just before the step's
    /// solve, in m/s (positive).
    pub approach_speed: f32,
}

/// A body the last step moved, with its new pose: what a host copies to its renderer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyMove {
    /// The body.
    pub body: BodyId,
    /// Its pose after the step.
    pub transform: Transform,
    /// It fell asleep at the end of the step (it will not move again until woken).
    pub fell_asleep: bool,
}

/// The largest approach speed over the points of contact `c` (which just began touching),
/// with that point: `−n · (v_B(p) − v_A(p))`.
pub(crate) fn approach(c: &Contact, bodies: &crate::body::BodyStore) -> (f32, Vec3) {
    let (a, b) = (c.body_a as usize, c.body_b as usize);
    let n = c.manifold.normal;
    let velocity = |i: usize, p: Vec3| {
        bodies.linear_velocity[i] + bodies.angular_velocity[i].cross(p - bodies.position[i])
    };
    let mut best = (f32::NEG_INFINITY, Vec3::ZERO);
    for p in c.manifold.points() {
        let speed = -n.dot(velocity(b, p.point) - velocity(a, p.point));
        if speed > best.0 {
            best = (speed, p.point);
        }
    }
    best
}

impl World {
    /// Sensors that began overlapping a shape in the last step, in contact order. Valid
    /// until the next step.
    pub fn sensor_begin_events(&self) -> &[SensorEvent] {
        &self.events.sensor_begin
    }

    /// Sensors that stopped overlapping a shape in the last step: first those ended by
    /// removals through the API, in call order, then the rest in pair and contact order.
    /// Ids of removed shapes and bodies are stale. Valid until the next step.
    pub fn sensor_end_events(&self) -> &[SensorEvent] {
        &self.events.sensor_end
    }

    /// Contacts that began touching in the last step faster than the hit threshold, for
    /// shapes with hit events on, in contact order. Valid until the next step.
    pub fn contact_hit_events(&self) -> &[ContactHit] {
        &self.events.hits
    }

    /// The bodies the last step moved (awake dynamic and kinematic bodies), in body slot
    /// order, with their new poses. Valid until the next step.
    pub fn body_move_events(&self) -> &[BodyMove] {
        &self.events.moves
    }

    /// The bodies whose state the last step made non-finite (a force, a joint motor or a
    /// contact modifier beyond what f32 holds). Each was put back at its pose before the
    /// step, at rest, with the impulses of its contacts and joints dropped; the rest of the
    /// world stepped on. Valid until the next step.
    pub fn quarantine_events(&self) -> &[BodyId] {
        &self.events.quarantined
    }

    /// Records that touching contact `k` is going away now (its shape, body or pair is
    /// being removed): the end record, if published, goes to the list for removals made
    /// through the API (`api`) or to the step's end list; a solid contact's island may
    /// have fallen apart.
    pub(crate) fn end_touch(&mut self, k: u32, api: bool) {
        let c = &self.contacts.contacts[k as usize];
        if !c.touching {
            return;
        }
        if c.flags & SENSOR != 0 {
            let e = SensorEvent::of(c, &self.shapes, &self.body_pool);
            if api {
                self.events.removed_sensor_ends.push(e);
            } else {
                self.events.sensor_end.push(e);
            }
            return;
        }
        if c.flags & CONTACT_EVENTS != 0 {
            let e = ContactTouch::of(c, &self.shapes.pool, &self.body_pool);
            if api {
                self.events.removed_touches.push(e);
            } else {
                self.events.touch_end.push(e);
            }
        }
        let (a, b) = (c.body_a, c.body_b);
        self.islands.unlink(&self.bodies.island, a, b);
    }
}

/// The event lists of the last step.
#[derive(Default)]
pub(crate) struct Events {
    /// Contact begin and end records (see `World::contact_begin_events`).
    pub touch_begin: Vec<ContactTouch>,
    pub touch_end: Vec<ContactTouch>,
    /// End records of contacts removed through the API since the last step.
    pub removed_touches: Vec<ContactTouch>,
    pub sensor_begin: Vec<SensorEvent>,
    pub sensor_end: Vec<SensorEvent>,
    /// Sensor ends from removals through the API since the last step.
    pub removed_sensor_ends: Vec<SensorEvent>,
    pub hits: Vec<ContactHit>,
    pub moves: Vec<BodyMove>,
    /// Bodies the last step quarantined (see `World::quarantine`).
    pub quarantined: Vec<BodyId>,
}

impl Events {
    /// Forgets the last step's events; what the API removed since then opens the new
    /// step's end lists.
    pub fn begin_step(&mut self) {
        self.touch_begin.clear();
        self.touch_end.clear();
        self.touch_end.append(&mut self.removed_touches);
        self.sensor_begin.clear();
        self.sensor_end.clear();
        self.sensor_end.append(&mut self.removed_sensor_ends);
        self.hits.clear();
        self.quarantined.clear();
    }
}
