//! Events as `{pointer, count}` views, valid until the next step.
//!
//! Each view is copied out of the world on its first read after a step into a buffer the
//! world's host keeps until the next step (or restore, or destruction), so calls between
//! steps that change the world (removing a body ends its contacts) cannot move it.

use crate::world::with_host;
use crate::{
    guard, need, ImpBodyId, ImpJointId, ImpShapeId, ImpStatus, ImpTransform, ImpVec3, ImpWorldId,
};
use engine::{BodyMove, ContactHit, ContactTouch, JointBreak, SensorEvent, World};

/// Two shapes that began or stopped touching. The contact normal points from A to B.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImpContactTouch {
    /// Shape A.
    pub shape_a: ImpShapeId,
    /// Shape B.
    pub shape_b: ImpShapeId,
    /// Body of shape A.
    pub body_a: ImpBodyId,
    /// Body of shape B.
    pub body_b: ImpBodyId,
}

impl From<ContactTouch> for ImpContactTouch {
    fn from(t: ContactTouch) -> Self {
        ImpContactTouch {
            shape_a: t.shape_a.into(),
            shape_b: t.shape_b.into(),
            body_a: t.body_a.into(),
            body_b: t.body_b.into(),
        }
    }
}

/// A sensor shape began or stopped overlapping another shape.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImpSensorEvent {
    /// The sensor shape.
    pub sensor: ImpShapeId,
    /// The shape that entered or left it.
    pub visitor: ImpShapeId,
    /// The sensor's body.
    pub sensor_body: ImpBodyId,
    /// The visitor's body.
    pub visitor_body: ImpBodyId,
}

impl From<SensorEvent> for ImpSensorEvent {
    fn from(e: SensorEvent) -> Self {
        ImpSensorEvent {
            sensor: e.sensor.into(),
            visitor: e.visitor.into(),
            sensor_body: e.sensor_body.into(),
            visitor_body: e.visitor_body.into(),
        }
    }
}

/// A contact that began touching with its surfaces approaching faster than the world's
/// `hit_event_threshold`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ImpContactHit {
    /// The shapes and bodies.
    pub touch: ImpContactTouch,
    /// The point that approached fastest, m.
    pub point: ImpVec3,
    /// The contact normal, from A to B.
    pub normal: ImpVec3,
    /// The approach speed, m/s (positive).
    pub approach_speed: f32,
}

impl From<ContactHit> for ImpContactHit {
    fn from(e: ContactHit) -> Self {
        ImpContactHit {
            touch: e.touch.into(),
            point: e.point.into(),
            normal: e.normal.into(),
            approach_speed: e.approach_speed,
        }
    }
}

/// A body the last step moved, with its new pose.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpBodyMove {
    /// The body.
    pub body: ImpBodyId,
    /// Its pose after the step.
    pub transform: ImpTransform,
    /// It fell asleep at the end of the step.
    pub fell_asleep: bool,
}

impl From<BodyMove> for ImpBodyMove {
    fn from(e: BodyMove) -> Self {
        ImpBodyMove {
            body: e.body.into(),
            transform: e.transform.into(),
            fell_asleep: e.fell_asleep,
        }
    }
}

/// A joint that broke in the last step (its id is stale now).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ImpJointBreak {
    /// The joint, removed.
    pub joint: ImpJointId,
    /// Its first body.
    pub body_a: ImpBodyId,
    /// Its second body.
    pub body_b: ImpBodyId,
    /// The linear impulse it applied in the step it broke, N·s.
    pub impulse: f32,
    /// The angular impulse it applied in the step it broke, N·m·s.
    pub angular_impulse: f32,
}

impl From<JointBreak> for ImpJointBreak {
    fn from(e: JointBreak) -> Self {
        ImpJointBreak {
            joint: e.joint.into(),
            body_a: e.body_a.into(),
            body_b: e.body_b.into(),
            impulse: e.impulse,
            angular_impulse: e.angular_impulse,
        }
    }
}

/// Contact begin or end events: `count` records at `items`, valid until the next step.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ImpContactTouchView {
    /// The records (null when `count` is 0).
    pub items: *const ImpContactTouch,
    /// How many.
    pub count: u32,
}

/// Sensor begin or end events, valid until the next step.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ImpSensorEventView {
    /// The records (null when `count` is 0).
    pub items: *const ImpSensorEvent,
    /// How many.
    pub count: u32,
}

/// Hit events, valid until the next step.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ImpContactHitView {
    /// The records (null when `count` is 0).
    pub items: *const ImpContactHit,
    /// How many.
    pub count: u32,
}

/// Body move events, valid until the next step.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ImpBodyMoveView {
    /// The records (null when `count` is 0).
    pub items: *const ImpBodyMove,
    /// How many.
    pub count: u32,
}

/// Joint break events, valid until the next step.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ImpJointBreakView {
    /// The records (null when `count` is 0).
    pub items: *const ImpJointBreak,
    /// How many.
    pub count: u32,
}

/// The converted events of the last step, filled on first read and kept until the next.
#[derive(Default)]
pub(crate) struct EventCache {
    begins: Option<Vec<ImpContactTouch>>,
    ends: Option<Vec<ImpContactTouch>>,
    sensor_begins: Option<Vec<ImpSensorEvent>>,
    sensor_ends: Option<Vec<ImpSensorEvent>>,
    hits: Option<Vec<ImpContactHit>>,
    moves: Option<Vec<ImpBodyMove>>,
    breaks: Option<Vec<ImpJointBreak>>,
}

impl EventCache {
    /// Forgets the last step's events (a new step or a restore makes them invalid).
    pub fn clear(&mut self) {
        *self = EventCache::default();
    }
}

/// Writes to `out` the view of one kind of the last step's events: `slot` picks its buffer
/// in the host's cache, filled on the first read after a step with the world's events
/// (`events`) converted; `make` builds the view from the pointer and count.
fn write_view<E: Copy, T: From<E>, V>(
    world: ImpWorldId,
    out: Option<&mut V>,
    slot: fn(&mut EventCache) -> &mut Option<Vec<T>>,
    events: fn(&World) -> &[E],
    make: fn(*const T, u32) -> V,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_host(world, |h| {
            let (w, cache) = h.parts();
            let items =
                slot(cache).get_or_insert_with(|| events(w).iter().map(|&e| T::from(e)).collect());
            *out = if items.is_empty() {
                make(std::ptr::null(), 0)
            } else {
                make(items.as_ptr(), items.len() as u32)
            };
            Ok(())
        })
    })
}

/// Writes the view of the last step's contact begin events (shapes with contact events
/// on) to `out`.
#[no_mangle]
pub extern "C" fn imp_world_get_contact_begin_events(
    world: ImpWorldId,
    out: Option<&mut ImpContactTouchView>,
) -> ImpStatus {
    write_view(
        world,
        out,
        |c| &mut c.begins,
        World::contact_begin_events,
        |items, count| ImpContactTouchView { items, count },
    )
}

/// Writes the view of the last step's contact end events to `out`.
#[no_mangle]
pub extern "C" fn imp_world_get_contact_end_events(
    world: ImpWorldId,
    out: Option<&mut ImpContactTouchView>,
) -> ImpStatus {
    write_view(
        world,
        out,
        |c| &mut c.ends,
        World::contact_end_events,
        |items, count| ImpContactTouchView { items, count },
    )
}

/// Writes the view of the last step's sensor begin events to `out`.
#[no_mangle]
pub extern "C" fn imp_world_get_sensor_begin_events(
    world: ImpWorldId,
    out: Option<&mut ImpSensorEventView>,
) -> ImpStatus {
    write_view(
        world,
        out,
        |c| &mut c.sensor_begins,
        World::sensor_begin_events,
        |items, count| ImpSensorEventView { items, count },
    )
}

/// Writes the view of the last step's sensor end events to `out`.
#[no_mangle]
pub extern "C" fn imp_world_get_sensor_end_events(
    world: ImpWorldId,
    out: Option<&mut ImpSensorEventView>,
) -> ImpStatus {
    write_view(
        world,
        out,
        |c| &mut c.sensor_ends,
        World::sensor_end_events,
        |items, count| ImpSensorEventView { items, count },
    )
}

/// Writes the view of the last step's hit events (shapes with hit events on) to `out`.
#[no_mangle]
pub extern "C" fn imp_world_get_contact_hit_events(
    world: ImpWorldId,
    out: Option<&mut ImpContactHitView>,
) -> ImpStatus {
    write_view(
        world,
        out,
        |c| &mut c.hits,
        World::contact_hit_events,
        |items, count| ImpContactHitView { items, count },
    )
}

/// Writes the view of the bodies the last step moved, with their new poses, to `out`.
#[no_mangle]
pub extern "C" fn imp_world_get_body_move_events(
    world: ImpWorldId,
    out: Option<&mut ImpBodyMoveView>,
) -> ImpStatus {
    write_view(
        world,
        out,
        |c| &mut c.moves,
        World::body_move_events,
        |items, count| ImpBodyMoveView { items, count },
    )
}

/// Writes the view of the joints that broke in the last step to `out`.
#[no_mangle]
pub extern "C" fn imp_world_get_joint_break_events(
    world: ImpWorldId,
    out: Option<&mut ImpJointBreakView>,
) -> ImpStatus {
    write_view(
        world,
        out,
        |c| &mut c.breaks,
        World::joint_break_events,
        |items, count| ImpJointBreakView { items, count },
    )
}
