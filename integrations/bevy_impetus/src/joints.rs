//! Joints as components: a [`Joint`] on any entity names the two body entities it joins.
//!
//! Every kind the engine has is here, through [`JointKind`]: ball, hinge (limits, motor,
//! spring), slider (limits, motor, spring), fixed (rigid or soft), distance (rod, rope,
//! spring), cone-twist and motor (a pose target with bounded force). The joint is created
//! before the first step at which both entities have bodies; removing the component or
//! despawning its entity removes it; removing either body removes it too (it comes back if
//! that entity gets a body again). A joint that breaks publishes
//! [`JointBroken`](crate::JointBroken). A joint the engine refuses (both bodies static or
//! kinematic, an entity without a body, a bad limit) is reported as a
//! [`PhysicsError`](crate::PhysicsError) on the joint's entity and skipped: insert it again
//! to retry.

use crate::world::ImpetusWorld;
use bevy::ecs::component::Component;
use bevy::ecs::entity::Entity;
use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::math::{Quat, Vec3};
pub use impetus::{JointKind, Limits, Motor, Spring, SpringStiffness};

/// Where the joint's frames sit on its two bodies. The axis of a hinge, a slider and a
/// cone-twist is the frames' local z axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JointFrames {
    /// Both frames at the world point `anchor`, their z axis along `axis`, taken from the
    /// bodies' poses when the joint is created.
    World {
        /// The anchor, world space (m).
        anchor: Vec3,
        /// The joint axis, world space (any non-zero length).
        axis: Vec3,
    },
    /// Each frame in its body's local space: (translation, rotation).
    Local {
        /// Frame on body A.
        a: (Vec3, Quat),
        /// Frame on body B.
        b: (Vec3, Quat),
    },
}

/// A joint between the bodies of two entities. Immutable: insert a new `Joint` to change
/// it (the old joint is removed and the new one created before the next step).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(immutable, on_insert = on_insert_joint, on_discard = on_discard_joint)]
pub struct Joint {
    /// Body A's entity (may be static).
    pub body_a: Entity,
    /// Body B's entity (may be static, not both).
    pub body_b: Entity,
    /// The kind and its parameters.
    pub kind: JointKind,
    /// Where the frames are.
    pub frames: JointFrames,
    /// Whether the two bodies still collide with each other (default: no).
    pub collide_connected: bool,
    /// The joint breaks when the linear impulse it applies in a step exceeds this, N·s
    /// (default: infinite).
    pub break_impulse: f32,
    /// As `break_impulse`, for the angular impulse, N·m·s.
    pub break_angular_impulse: f32,
}

impl Joint {
    /// A joint of `kind` between `a` and `b` with both frames at the world point `anchor`
    /// (z along `axis` for hinges, sliders and cone-twists), taken when it is created.
    pub fn at_world(kind: JointKind, a: Entity, b: Entity, anchor: Vec3, axis: Vec3) -> Self {
        Self::with_frames(kind, a, b, JointFrames::World { anchor, axis })
    }

    /// A joint of `kind` with explicit local frames on each body.
    pub fn local(
        kind: JointKind,
        a: Entity,
        frame_a: (Vec3, Quat),
        b: Entity,
        frame_b: (Vec3, Quat),
    ) -> Self {
        Self::with_frames(
            kind,
            a,
            b,
            JointFrames::Local {
                a: frame_a,
                b: frame_b,
            },
        )
    }

    /// A ball joint at the world point `anchor`.
    pub fn ball(a: Entity, b: Entity, anchor: Vec3) -> Self {
        Self::at_world(JointKind::Ball, a, b, anchor, Vec3::Z)
    }

    /// A free hinge about the world `axis` through `anchor`.
    pub fn hinge(a: Entity, b: Entity, anchor: Vec3, axis: Vec3) -> Self {
        Self::at_world(
            JointKind::Hinge {
                limits: None,
                motor: None,
                spring: None,
            },
            a,
            b,
            anchor,
            axis,
        )
    }

    /// A rigid weld at the bodies' poses when it is created (frames at B's origin).
    pub fn fixed(a: Entity, b: Entity, anchor: Vec3) -> Self {
        Self::at_world(
            JointKind::Fixed {
                linear: None,
                angular: None,
            },
            a,
            b,
            anchor,
            Vec3::Z,
        )
    }

    fn with_frames(kind: JointKind, a: Entity, b: Entity, frames: JointFrames) -> Self {
        Self {
            body_a: a,
            body_b: b,
            kind,
            frames,
            collide_connected: false,
            break_impulse: f32::INFINITY,
            break_angular_impulse: f32::INFINITY,
        }
    }

    /// Lets the two bodies collide with each other.
    pub fn with_collide_connected(mut self) -> Self {
        self.collide_connected = true;
        self
    }

    /// Makes the joint breakable (N·s, N·m·s).
    pub fn with_break_impulse(mut self, linear: f32, angular: f32) -> Self {
        self.break_impulse = linear;
        self.break_angular_impulse = angular;
        self
    }
}

fn on_insert_joint(mut world: DeferredWorld, ctx: HookContext) {
    if let Some(mut physics) = world.get_resource_mut::<ImpetusWorld>() {
        physics.pending_joints.push((ctx.entity, false));
    }
}

fn on_discard_joint(mut world: DeferredWorld, ctx: HookContext) {
    if let Some(mut physics) = world.get_resource_mut::<ImpetusWorld>() {
        physics.remove_joint_of(ctx.entity);
    }
}
