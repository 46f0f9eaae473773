//! The components that make an entity a body: [`RigidBody`], its [`Collider`] and material,
//! its velocities, the forces and impulses applied to it, kinematic targets and
//! interpolation.
//!
//! Components that describe the body (`RigidBody`, `Collider`, `ColliderDensity`, `Mass`,
//! `Friction`, `Restitution`, `RollingResistance`, `Sensor`, `CollisionGroups`,
//! `HitEvents`, `GravityScale`, `Damping`) are immutable: insert a new value to change one.
//! Their hooks queue the change, and the plugin applies the queue, sorted by entity,
//! before the next step; nothing scans them from frame to frame. Components that drive the
//! body ([`LinearVelocity`], [`AngularVelocity`], [`ExternalForce`], [`ExternalImpulse`],
//! [`KinematicTarget`]) are mutable.

use crate::world::ImpetusWorld;
use bevy::ecs::component::Component;
use bevy::ecs::entity::Entity;
use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::math::{Quat, Vec3};
use bevy::transform::components::Transform;
use impetus::{BodyId, Shape};
use std::sync::Arc;

/// How a body moves. Inserting it makes the entity a body (created before the next step,
/// at its [`Transform`]); removing it, or despawning the entity, removes the body with its
/// shapes and joints. Inserting another value recreates the body (with its joints).
///
/// Only root entities may be bodies: a `RigidBody` on an entity with a parent is reported
/// as a [`PhysicsError`](crate::PhysicsError) and skipped.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[component(immutable, on_insert = on_insert_body, on_discard = on_discard_body)]
#[require(Transform, PhysicsBody)]
pub enum RigidBody {
    /// Moved by gravity, forces, contacts and joints.
    #[default]
    Dynamic,
    /// Moved by its velocity or a [`KinematicTarget`] only; pushes dynamic bodies.
    Kinematic,
    /// Never moves (ground, walls).
    Static,
}

impl RigidBody {
    pub(crate) fn body_type(self) -> impetus::BodyType {
        match self {
            RigidBody::Dynamic => impetus::BodyType::Dynamic,
            RigidBody::Kinematic => impetus::BodyType::Kinematic,
            RigidBody::Static => impetus::BodyType::Static,
        }
    }
}

/// The plugin's record of an entity's body: its id and the poses it interpolates between.
/// Added with [`RigidBody`] and kept up to date by the plugin; read it, do not insert it.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct PhysicsBody {
    pub(crate) id: Option<BodyId>,
    /// The pose last written to the entity's `Transform` (a `Transform` that differs is
    /// the user's: the body is teleported there).
    pub(crate) written: (Vec3, Quat),
    /// The poses before and after the last step (interpolated entities).
    pub(crate) previous: (Vec3, Quat),
    pub(crate) current: (Vec3, Quat),
}

impl PhysicsBody {
    /// The engine's body, once created.
    pub fn id(&self) -> Option<BodyId> {
        self.id
    }

    /// The body's pose after the last step (what an interpolated entity moves towards).
    pub fn pose(&self) -> (Vec3, Quat) {
        self.current
    }
}

/// The shape of a body: one of the engine's shapes, or several at poses in the body's
/// frame (a compound). Convex shapes (sphere, capsule, cuboid, convex hull) suit any body;
/// planes, triangle meshes and height fields only static ones (on a dynamic or kinematic
/// body they are reported as a [`PhysicsError`](crate::PhysicsError)).
///
/// The entity's `Transform::scale` does not scale it: build the collider at the size you
/// want.
#[derive(Component, Clone, Debug, PartialEq)]
#[component(immutable, on_insert = mark_shapes, on_remove = mark_shapes)]
pub struct Collider {
    parts: Vec<(Vec3, Quat, Shape)>,
}

impl Collider {
    /// A collider of one engine shape at the body's origin.
    pub fn from_shape(shape: Shape) -> Self {
        Self {
            parts: vec![(Vec3::ZERO, Quat::IDENTITY, shape)],
        }
    }

    /// A solid sphere of `radius` (m).
    pub fn sphere(radius: f32) -> Self {
        Self::from_shape(Shape::Sphere { radius })
    }

    /// A box of half extents `hx`, `hy`, `hz` (m).
    pub fn cuboid(hx: f32, hy: f32, hz: f32) -> Self {
        Self::from_shape(Shape::Box {
            half_extents: impetus::Vec3::new(hx, hy, hz),
        })
    }

    /// A capsule along the local y axis: the segment from `-half_height` to `half_height`
    /// swept by `radius` (m).
    pub fn capsule(half_height: f32, radius: f32) -> Self {
        Self::from_shape(Shape::Capsule {
            half_height,
            radius,
        })
    }

    /// The convex hull of `points` (m). Errors name the engine's field (fewer than 4
    /// points, a flat set, a non-finite point).
    pub fn convex_hull(points: &[Vec3]) -> Result<Self, impetus::Error> {
        let points: Vec<impetus::Vec3> =
            points.iter().map(|&p| crate::convert::vec_in(p)).collect();
        let hull = impetus::ConvexHull::new(&points)?;
        Ok(Self::from_shape(Shape::Hull {
            hull: Arc::new(hull),
        }))
    }

    /// The static half-space under the plane `normal · x = offset` (body frame; `normal` a
    /// unit vector). Static bodies only.
    pub fn half_space(normal: Vec3, offset: f32) -> Self {
        Self::from_shape(Shape::Plane {
            normal: crate::convert::vec_in(normal),
            offset,
        })
    }

    /// A static triangle mesh. Static bodies only. Errors name the engine's field.
    pub fn trimesh(vertices: &[Vec3], triangles: Vec<[u32; 3]>) -> Result<Self, impetus::Error> {
        let vertices = vertices
            .iter()
            .map(|&p| crate::convert::vec_in(p))
            .collect();
        let mesh = impetus::TriMesh::new(vertices, triangles)?;
        Ok(Self::from_shape(Shape::Mesh {
            mesh: Arc::new(mesh),
        }))
    }

    /// A static height field: `rows × cols` heights over the local x/z plane, sample
    /// `(r, c)` at `(c · scale.x, heights[r · cols + c] · scale.y, r · scale.z)`. Static
    /// bodies only. Errors name the engine's field.
    pub fn height_field(
        rows: usize,
        cols: usize,
        heights: Vec<f32>,
        scale: Vec3,
    ) -> Result<Self, impetus::Error> {
        let field = impetus::HeightField::new(rows, cols, heights, crate::convert::vec_in(scale))?;
        Ok(Self::from_shape(Shape::HeightField {
            field: Arc::new(field),
        }))
    }

    /// Several colliders at poses (translation, rotation) in the body's frame: a table from
    /// a top and four legs. A dynamic body's centre of mass follows from all of them.
    pub fn compound(parts: impl IntoIterator<Item = (Vec3, Quat, Collider)>) -> Self {
        let mut out = Vec::new();
        for (translation, rotation, collider) in parts {
            for (t, r, shape) in collider.parts {
                out.push((translation + rotation * t, rotation * r, shape));
            }
        }
        Self { parts: out }
    }

    /// The shapes with their poses in the body's frame.
    pub fn parts(&self) -> impl Iterator<Item = (Vec3, Quat, &Shape)> + '_ {
        self.parts.iter().map(|(t, r, s)| (*t, *r, s))
    }

    /// The single shape of a collider that is not a compound.
    pub(crate) fn single(&self) -> Option<&Shape> {
        match self.parts.as_slice() {
            [(t, r, shape)] if *t == Vec3::ZERO && *r == Quat::IDENTITY => Some(shape),
            _ => None,
        }
    }
}

/// The density of the entity's collider, in kg/m³ (default: 1,000, water). Gives a
/// dynamic body its mass and inertia.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(immutable, on_insert = mark_shapes, on_remove = mark_shapes)]
pub struct ColliderDensity(pub f32);

/// The mass of a dynamic body, in kg, overriding what its collider's density gives; its
/// inertia is scaled with it (the shapes' distribution is kept).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(immutable, on_insert = mark_shapes, on_remove = mark_shapes)]
pub struct Mass(pub f32);

/// Coulomb friction of the entity's collider (default: 0.6, static and kinetic); mixed
/// between two colliders as the geometric mean.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(immutable, on_insert = mark_shapes, on_remove = mark_shapes)]
pub struct Friction {
    /// The coefficient while the surfaces slide.
    pub kinetic: f32,
    /// The coefficient while they stick; `None`: the kinetic one.
    pub static_coefficient: Option<f32>,
}

impl Friction {
    /// The same coefficient sliding and sticking.
    pub fn new(coefficient: f32) -> Self {
        Self {
            kinetic: coefficient,
            static_coefficient: None,
        }
    }
}

/// Restitution (bounciness) of the entity's collider, in [0, 1] (default: 0); mixed
/// between two colliders as the larger.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(immutable, on_insert = mark_shapes, on_remove = mark_shapes)]
pub struct Restitution(pub f32);

/// Rolling resistance of a sphere or capsule collider (dimensionless, default 0: it rolls
/// for ever).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(immutable, on_insert = mark_shapes, on_remove = mark_shapes)]
pub struct RollingResistance(pub f32);

/// Makes the entity's collider a sensor: it pushes nothing and reports the colliders that
/// enter and leave it ([`SensorEntered`](crate::SensorEntered),
/// [`SensorExited`](crate::SensorExited)).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[component(immutable, on_insert = mark_shapes, on_remove = mark_shapes)]
pub struct Sensor;

/// Publishes a [`ContactImpact`](crate::ContactImpact) when one of the entity's contacts
/// begins touching fast (off by default).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[component(immutable, on_insert = mark_shapes, on_remove = mark_shapes)]
pub struct HitEvents;

/// Which colliders this one collides with. Two colliders collide when they share a
/// non-zero `group` that is positive (never when it is negative), otherwise when each
/// one's `memberships` meet the other's `filters`. Spatial queries see a collider when its
/// memberships meet the query's mask. Default: member of group 1, colliding with all.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[component(immutable, on_insert = mark_shapes, on_remove = mark_shapes)]
pub struct CollisionGroups {
    /// The categories the collider belongs to (bits).
    pub memberships: u64,
    /// The categories it collides with.
    pub filters: u64,
    /// Same positive group: always collide; same negative group: never; 0: none.
    pub group: i32,
}

impl Default for CollisionGroups {
    fn default() -> Self {
        Self {
            memberships: 1,
            filters: u64::MAX,
            group: 0,
        }
    }
}

impl CollisionGroups {
    /// Member of `memberships`, colliding with `filters`.
    pub fn new(memberships: u64, filters: u64) -> Self {
        Self {
            memberships,
            filters,
            group: 0,
        }
    }

    pub(crate) fn filter(&self) -> impetus::Filter {
        impetus::Filter {
            category: self.memberships,
            mask: self.filters,
            group: self.group,
        }
    }
}

/// A multiplier on the world's gravity for this body (default 1).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(immutable, on_insert = mark_body, on_remove = mark_body)]
pub struct GravityScale(pub f32);

/// Linear and angular damping of the body, in 1/s (default 0).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
#[component(immutable, on_insert = mark_body, on_remove = mark_body)]
pub struct Damping {
    /// Linear damping.
    pub linear: f32,
    /// Angular damping.
    pub angular: f32,
}

/// The body's linear velocity, in m/s: its initial velocity when the body is created, set
/// on the body whenever you change it, and written back after every step in which the
/// body moved (dynamic and kinematic bodies).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub struct LinearVelocity(pub Vec3);

/// The body's angular velocity, in rad/s (world frame); as [`LinearVelocity`].
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub struct AngularVelocity(pub Vec3);

/// A force (N) at the centre of mass and a torque (N·m) on a dynamic body. Applied every
/// step while `persistent`, else once at the next step and then zeroed.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub struct ExternalForce {
    /// Force at the centre of mass, in N.
    pub force: Vec3,
    /// Torque, in N·m.
    pub torque: Vec3,
    /// Keep applying it every step.
    pub persistent: bool,
}

impl ExternalForce {
    /// A force applied every step.
    pub fn persistent(force: Vec3) -> Self {
        Self {
            force,
            torque: Vec3::ZERO,
            persistent: true,
        }
    }
}

/// An impulse on a dynamic body, applied before the next step and then zeroed: linear
/// (N·s, at the centre of mass) and angular (N·m·s).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub struct ExternalImpulse {
    /// Linear impulse, N·s.
    pub linear: Vec3,
    /// Angular impulse, N·m·s.
    pub angular: Vec3,
}

/// A pose for a kinematic body to reach over the next step: it gets the velocities that
/// carry it there (so it pushes and carries what it touches) and lands exactly on it.
/// Set a new target every step to animate a platform; a target left unchanged is not
/// applied again (the body stops on it).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct KinematicTarget {
    /// The target position, m.
    pub translation: Vec3,
    /// The target rotation.
    pub rotation: Quat,
}

/// Opt-in interpolation: the entity's `Transform` moves smoothly between the poses of the
/// last two fixed steps, by `Time<Fixed>::overstep_fraction`, instead of jumping once a
/// step. It shows the body one step late.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TransformInterpolation;

fn on_insert_body(mut world: DeferredWorld, ctx: HookContext) {
    if let Some(mut physics) = world.get_resource_mut::<ImpetusWorld>() {
        physics.pending_bodies.push(ctx.entity);
    }
}

fn on_discard_body(mut world: DeferredWorld, ctx: HookContext) {
    if let Some(mut body) = world.get_mut::<PhysicsBody>(ctx.entity) {
        body.id = None;
    }
    if let Some(mut physics) = world.get_resource_mut::<ImpetusWorld>() {
        physics.remove_body_of(ctx.entity);
    }
}

fn mark_shapes(mut world: DeferredWorld, ctx: HookContext) {
    if let Some(mut physics) = world.get_resource_mut::<ImpetusWorld>() {
        physics.dirty_shapes.push(ctx.entity);
    }
}

fn mark_body(mut world: DeferredWorld, ctx: HookContext) {
    if let Some(mut physics) = world.get_resource_mut::<ImpetusWorld>() {
        physics.dirty_bodies.push(ctx.entity);
    }
}

/// Sorts entities by index then generation and drops repeats: the order the plugin
/// creates and changes bodies in, whatever order the hooks queued them.
pub(crate) fn sort_entities(list: &mut Vec<Entity>) {
    list.sort_unstable_by_key(|e| (e.index_u32(), e.generation().to_bits()));
    list.dedup();
}
