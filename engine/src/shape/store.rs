//! Shape definitions and the store of attached shapes.

use crate::error::Error;
use crate::id::SlotPool;
use crate::math::Aabb;
use crate::math::Transform;
use crate::shape::Shape;
use glam::Vec3;

/// The largest friction or rolling-resistance coefficient a shape takes. Far beyond any
/// material (rubber on concrete is about 1): a cone that wide already holds every
/// tangential impulse, and the coefficients are multiplied by radii and impulses, which
/// overflow f32 near `f32::MAX`.
const MAX_COEFFICIENT: f32 = 1.0e6;

/// Which shapes collide, as in Box2D. Two shapes collide when
///
/// - they share a non-zero `group`: always if it is positive, never if negative;
/// - otherwise when each one's `category` bits meet the other's `mask`:
///   `(a.mask & b.category) != 0 && (b.mask & a.category) != 0`.
///
/// Shapes that do not collide get no contact (and no contact events). Queries filter on
/// the categories too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Filter {
    /// The categories the shape belongs to (usually one bit). Default: 1.
    pub category: u64,
    /// The categories it collides with. Default: all.
    pub mask: u64,
    /// Same positive group: always collide; same negative group: never (a ragdoll's
    /// limbs); 0: no group. Default: 0.
    pub group: i32,
}

impl Default for Filter {
    fn default() -> Self {
        Self {
            category: 1,
            mask: u64::MAX,
            group: 0,
        }
    }
}

impl Filter {
    /// Whether shapes with filters `self` and `other` collide.
    pub fn collides_with(&self, other: &Filter) -> bool {
        if self.group == other.group && self.group != 0 {
            return self.group > 0;
        }
        self.mask & other.category != 0 && other.mask & self.category != 0
    }
}

crate::codec::fields!(Filter {
    category,
    mask,
    group
});

/// Everything needed to attach a shape to a body.
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeDef {
    /// The geometry.
    pub shape: Shape,
    /// Density in kg/m³; gives the body its mass. Default: 1000 (water).
    pub density: f32,
    /// Coulomb friction coefficient while the surfaces slide (kinetic friction); mixed
    /// between shapes as `sqrt(μa μb)`. Default: 0.6.
    pub friction: f32,
    /// Coulomb friction coefficient while the surfaces stick (static friction: a contact
    /// sliding slower than [`WorldDef::static_friction_speed`](crate::WorldDef)); mixed
    /// as `sqrt(μa μb)`. `None` uses [`friction`](Self::friction). Default: `None`.
    pub static_friction: Option<f32>,
    /// Coefficient of restitution in [0, 1]; mixed as `max(ea, eb)`. Default: 0.
    pub restitution: f32,
    /// Rolling resistance of spheres and capsules (dimensionless, ≥ 0): a ball of radius
    /// `R` rolling under a normal force `N` feels a torque of up to `μr R N` against its
    /// rolling, so it slows at `5/7 μr g` on flat ground and comes to rest. Mixed as the
    /// larger `μr R` of the two shapes; other shapes ignore it. Default: 0 (rolls for
    /// ever).
    pub rolling_resistance: f32,
    /// For spheres only: the radius of a hollow core, in m (0 = solid). A ball of
    /// radius 0.1 with inner radius 0.09 is a thin shell. Default: 0.
    pub inner_radius: f32,
    /// Which other shapes this one collides with. Default: [`Filter::default`] (every
    /// shape).
    pub filter: Filter,
    /// A sensor detects the shapes that overlap it (sensor begin/end events) and pushes
    /// nothing: it has no contact response. It sees dynamic and kinematic bodies, and a
    /// sensor on a kinematic or dynamic body also sees static shapes (a pair of static
    /// bodies never meets). Sensors do not detect other sensors, meshes or height fields
    /// (which cannot be sensors). Default: false.
    pub is_sensor: bool,
    /// Publish contact begin/end events for this shape's contacts (either shape asking is
    /// enough). Default: true.
    pub enable_contact_events: bool,
    /// Publish a hit event when one of this shape's contacts begins touching faster than
    /// [`WorldDef::hit_event_threshold`](crate::WorldDef). Default: false.
    pub enable_hit_events: bool,
    /// Let sensors detect this shape. Default: true.
    pub enable_sensor_events: bool,
    /// Show this shape's touching contacts to the contact modifier every step (see
    /// [`World::set_contact_modifier`](crate::World::set_contact_modifier)). Default: false.
    pub enable_contact_modifier: bool,
    /// The shape's pose in its body's frame: a body with several shapes at different local
    /// poses is a compound (a table from a top and four legs). A dynamic body's centre of
    /// mass and principal axes follow from all its shapes (see
    /// [`World::body_local_center_of_mass`](crate::World::body_local_center_of_mass)); the body's
    /// own pose stays where the user put it. Default: identity.
    pub local_pose: Transform,
}

impl ShapeDef {
    /// A definition with default material for the given geometry.
    pub fn new(shape: Shape) -> Self {
        Self {
            shape,
            density: 1000.0,
            friction: 0.6,
            static_friction: None,
            restitution: 0.0,
            rolling_resistance: 0.0,
            inner_radius: 0.0,
            filter: Filter::default(),
            is_sensor: false,
            enable_contact_events: true,
            enable_hit_events: false,
            enable_sensor_events: true,
            enable_contact_modifier: false,
            local_pose: Transform::IDENTITY,
        }
    }

    /// A solid sphere of radius `radius` (m).
    pub fn sphere(radius: f32) -> Self {
        Self::new(Shape::Sphere { radius })
    }

    /// A capsule: the segment from `(0, -half_height, 0)` to `(0, half_height, 0)` (body
    /// frame, m) swept by `radius` (m).
    pub fn capsule(half_height: f32, radius: f32) -> Self {
        Self::new(Shape::Capsule {
            half_height,
            radius,
        })
    }

    /// A box with the given half extents (m).
    pub fn cuboid(half_extents: Vec3) -> Self {
        Self::new(Shape::Box { half_extents })
    }

    /// A convex hull (shared; see [`ConvexHull::new`](crate::ConvexHull::new)).
    pub fn hull(hull: std::sync::Arc<crate::ConvexHull>) -> Self {
        Self::new(Shape::Hull { hull })
    }

    /// A static half-space bounded by the plane `normal · x = offset` (body frame).
    pub fn plane(normal: Vec3, offset: f32) -> Self {
        Self::new(Shape::Plane { normal, offset })
    }

    /// A static triangle mesh (shared; see [`TriMesh::new`](crate::TriMesh::new)). Only
    /// static bodies may own one.
    pub fn mesh(mesh: std::sync::Arc<crate::TriMesh>) -> Self {
        Self::new(Shape::Mesh { mesh })
    }

    /// A static height field (shared; see [`HeightField::new`](crate::HeightField::new)).
    /// Only static bodies may own one.
    pub fn height_field(field: std::sync::Arc<crate::HeightField>) -> Self {
        Self::new(Shape::HeightField { field })
    }

    /// Sets the density (kg/m³).
    pub fn with_density(mut self, density: f32) -> Self {
        self.density = density;
        self
    }

    /// Sets the friction coefficient, static and kinetic (a later
    /// [`with_static_friction`](Self::with_static_friction) sets the static one apart).
    pub fn with_friction(mut self, friction: f32) -> Self {
        self.friction = friction;
        self.static_friction = None;
        self
    }

    /// Sets the static friction coefficient (the kinetic one stays
    /// [`friction`](Self::friction)).
    pub fn with_static_friction(mut self, friction: f32) -> Self {
        self.static_friction = Some(friction);
        self
    }

    /// Sets the coefficient of restitution.
    pub fn with_restitution(mut self, restitution: f32) -> Self {
        self.restitution = restitution;
        self
    }

    /// Sets the rolling resistance (spheres and capsules).
    pub fn with_rolling_resistance(mut self, rolling_resistance: f32) -> Self {
        self.rolling_resistance = rolling_resistance;
        self
    }

    /// Sets the collision filter.
    pub fn with_filter(mut self, filter: Filter) -> Self {
        self.filter = filter;
        self
    }

    /// Makes the shape a sensor (see [`ShapeDef::is_sensor`]).
    pub fn sensor(mut self) -> Self {
        self.is_sensor = true;
        self
    }

    /// Turns hit events on (see [`ShapeDef::enable_hit_events`]).
    pub fn with_hit_events(mut self) -> Self {
        self.enable_hit_events = true;
        self
    }

    /// Places the shape at `local_pose` in its body's frame (see [`ShapeDef::local_pose`]).
    pub fn with_local_pose(mut self, local_pose: Transform) -> Self {
        self.local_pose = local_pose;
        self
    }

    /// Places the shape at `offset` (m) in its body's frame, unrotated.
    pub fn with_offset(mut self, offset: Vec3) -> Self {
        self.local_pose = Transform::new(offset, glam::Quat::IDENTITY);
        self
    }

    /// Makes a sphere hollow with the given inner radius (m).
    pub fn with_inner_radius(mut self, inner_radius: f32) -> Self {
        self.inner_radius = inner_radius;
        self
    }

    /// Checks every field, naming the first bad one.
    pub fn validate(&self) -> Result<(), Error> {
        self.shape.validate()?;
        let (p, q) = (self.local_pose.p, self.local_pose.q);
        if !crate::math::is_finite3(p)
            || !q.is_finite()
            || !(1.0e-12..=f32::MAX).contains(&q.length_squared())
        {
            return Err(Error::invalid(
                "ShapeDef::local_pose",
                "must be a finite position and a finite, non-zero rotation",
            ));
        }
        if p.abs().max_element() > crate::math::MAX_LENGTH {
            return Err(Error::invalid(
                "ShapeDef::local_pose",
                "must lie within 1e6 m of its body (farther, the mass frame overflows)",
            ));
        }
        if !self.density.is_finite() || self.density < 0.0 {
            return Err(Error::invalid(
                "ShapeDef::density",
                "must be finite and non-negative",
            ));
        }
        if !(0.0..=MAX_COEFFICIENT).contains(&self.friction) {
            return Err(Error::invalid(
                "ShapeDef::friction",
                "must be finite, non-negative and at most 1e6",
            ));
        }
        if let Some(mu) = self.static_friction {
            if !(0.0..=MAX_COEFFICIENT).contains(&mu) {
                return Err(Error::invalid(
                    "ShapeDef::static_friction",
                    "must be finite, non-negative and at most 1e6",
                ));
            }
        }
        if !(0.0..=MAX_COEFFICIENT).contains(&self.rolling_resistance) {
            return Err(Error::invalid(
                "ShapeDef::rolling_resistance",
                "must be finite, non-negative and at most 1e6",
            ));
        }
        if !self.restitution.is_finite() || !(0.0..=1.0).contains(&self.restitution) {
            return Err(Error::invalid("ShapeDef::restitution", "must be in [0, 1]"));
        }
        if !self.inner_radius.is_finite() || self.inner_radius < 0.0 {
            return Err(Error::invalid(
                "ShapeDef::inner_radius",
                "must be finite and non-negative",
            ));
        }
        if self.inner_radius > 0.0 {
            match self.shape {
                Shape::Sphere { radius } if self.inner_radius < radius => {}
                Shape::Sphere { .. } => {
                    return Err(Error::invalid(
                        "ShapeDef::inner_radius",
                        "must be smaller than the radius",
                    ))
                }
                _ => {
                    return Err(Error::invalid(
                        "ShapeDef::inner_radius",
                        "only spheres can be hollow",
                    ))
                }
            }
        }
        Ok(())
    }
}

/// An attached shape. `repr(C, align(64))` with what the narrowphase reads of both shapes
/// of every overlapping contact (geometry, body, offset flag) in the first cache line.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub(crate) struct ShapeData {
    pub shape: Shape,
    /// Body slot.
    pub body: u32,
    /// The farthest the shape reaches from the body's centre of mass, in m: its
    /// [`ShapeData::reach_of`], set with the shape and again whenever `relative` changes
    /// (the narrow phase asks for it of both shapes of every contact, and working it out
    /// there was a match over the kinds and a square root each time).
    pub reach: f32,
    /// The shape is not at the body's mass frame: its pose is `body · relative`.
    pub offset: bool,
    pub density: f32,
    pub friction: f32,
    pub static_friction: f32,
    pub restitution: f32,
    /// Rolling resistance times the rolling radius (sphere or capsule radius), in m; 0
    /// for other shapes.
    pub rolling: f32,
    pub inner_radius: f32,
    pub filter: Filter,
    pub is_sensor: bool,
    pub enable_contact_events: bool,
    pub enable_hit_events: bool,
    pub enable_sensor_events: bool,
    pub enable_contact_modifier: bool,
    /// The shape's pose in the body's mass frame (`frame⁻¹ · local_pose`, see
    /// `BodyStore::frame`); meaningful only when `offset` is set. (The pose the user gave
    /// is in [`ShapeStore::local_poses`].)
    pub relative: Transform,
}

impl ShapeStore {
    /// Shape slot `s`'s pose in its body's frame, as the user gave it.
    pub fn local_pose(&self, s: usize) -> Transform {
        self.local_poses
            .get(&(s as u32))
            .copied()
            .unwrap_or(Transform::IDENTITY)
    }

    /// Sets shape slot `s`'s pose in its body's frame (see [`Self::local_poses`]).
    pub fn set_local_pose(&mut self, s: usize, pose: Transform) {
        if pose == Transform::IDENTITY {
            self.local_poses.remove(&(s as u32));
        } else {
            self.local_poses.insert(s as u32, pose);
        }
    }
}

impl ShapeData {
    /// The shape's world pose given its body's simulated pose (the mass frame).
    #[inline]
    pub fn pose(&self, body: &Transform) -> Transform {
        if self.offset {
            body.mul(&self.relative)
        } else {
            *body
        }
    }

    /// The farthest the shape reaches from the body's centre of mass, in m (kept in
    /// [`Self::reach`](field@Self::reach)).
    #[inline]
    pub fn reach(&self) -> f32 {
        debug_assert_eq!(
            self.reach.to_bits(),
            Self::reach_of(&self.shape, self.offset, &self.relative).to_bits(),
            "a shape's reach was not updated with its pose"
        );
        self.reach
    }

    /// How far the shape's surface can move per radian its body turns, at most (m): its
    /// [`Self::reach`], but for a sphere, which turns onto itself about its centre, the
    /// distance of that centre from the body's centre of mass (zero for a ball alone).
    #[inline]
    pub fn swing(&self) -> f32 {
        match self.shape {
            Shape::Sphere { .. } if self.offset => self.relative.p.length(),
            Shape::Sphere { .. } => 0.0,
            _ => self.reach(),
        }
    }

    /// The farthest `shape`, at pose `relative` in its body's mass frame (`offset`: not
    /// the identity), reaches from the body's centre of mass, in m.
    pub fn reach_of(shape: &Shape, offset: bool, relative: &Transform) -> f32 {
        let r = shape.bounding_radius();
        if offset {
            r + relative.p.length()
        } else {
            r
        }
    }
}

const _: () = assert!(std::mem::offset_of!(ShapeData, body) + 4 <= 64);
// Two lines a shape (the user's pose is kept apart: see `ShapeStore::local_poses`).
const _: () = assert!(std::mem::size_of::<ShapeData>() == 128);
const _: () = assert!(std::mem::offset_of!(ShapeData, offset) < 64);

/// Shapes by slot index.
#[derive(Default)]
pub(crate) struct ShapeStore {
    pub pool: SlotPool,
    pub data: Vec<ShapeData>,
    /// Each shape's tight bounds at its last pose, grown by the speculative distance and
    /// swept over the next step's predicted motion: a dense column (24 bytes a shape), so
    /// the narrowphase tests the bounds of a pair that is far apart without loading either
    /// shape or the contact.
    pub bounds: Vec<Aabb>,
    /// The shapes (by slot) whose pose as the user gave it, in the body's frame
    /// ([`ShapeDef::local_pose`], rotation normalized), is not the identity, with that pose
    /// (see [`Self::local_pose`]). Read only when a body's mass frame is worked out and by
    /// the API, so kept apart from `data`, which it would grow from two lines a shape to
    /// three; and only where it says something, as most shapes sit at their body's origin.
    pub local_poses: std::collections::HashMap<u32, Transform>,
    /// Live shapes with restitution above zero: without them (and without a contact
    /// modifier, which may set it) the step skips the impact pass.
    pub bouncy: usize,
    /// Live shapes with rolling resistance: without them the step has no rolling rows.
    pub rolling: usize,
}
