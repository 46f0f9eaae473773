//! World queries asked between steps: ray casts (closest hit and all hits), shape casts,
//! and overlap tests against a box, a point or a shape.
//!
//! Every query takes `&World`, reads nothing but the shapes, the body poses and the
//! broadphase, and writes nothing, so any number of threads may query one world at once
//! while it is not being stepped (`World` is `Sync`). Results depend only on the world and
//! the arguments: the same query on the same world gives the same answer, bit for bit.
//! A shape passes a [`QueryFilter`] when its [`Filter`](crate::Filter) category shares a
//! bit with the query's mask; sensor shapes are never reported.
//!
//! # Example
//! ```
//! use impetus::{BodyDef, BodyType, QueryFilter, ShapeDef, Vec3, World, WorldDef};
//!
//! let mut world = World::new(WorldDef { worker_count: 1, ..Default::default() })?;
//! let ground = world.create_body(&BodyDef { body_type: BodyType::Static, ..Default::default() })?;
//! world.add_shape(ground, &ShapeDef::plane(Vec3::Y, 0.0))?;
//! let ball = world.create_body(&BodyDef { position: Vec3::new(0.0, 2.0, 0.0), ..Default::default() })?;
//! let ball_shape = world.add_shape(ball, &ShapeDef::sphere(0.5))?;
//!
//! // Straight down from 10 m: the ball's top at y = 2.5 comes first.
//! let hit = world
//!     .cast_ray(Vec3::new(0.0, 10.0, 0.0), -Vec3::Y, 100.0, &QueryFilter::default())?
//!     .expect("the ray hits the ball");
//! assert_eq!(hit.shape, ball_shape);
//! assert!((hit.distance - 7.5).abs() < 1e-4 && (hit.normal - Vec3::Y).length() < 1e-4);
//!
//! // The same ray ignoring the ball's body reaches the ground.
//! let filter = QueryFilter::default().excluding_body(ball);
//! let hit = world.cast_ray(Vec3::new(0.0, 10.0, 0.0), -Vec3::Y, 100.0, &filter)?.unwrap();
//! assert_eq!(hit.body, ground);
//! assert!((hit.fraction - 0.1).abs() < 1e-6);
//!
//! // What touches the point (0, 2, 0)?
//! assert_eq!(world.overlap_point(Vec3::new(0.0, 2.0, 0.0), &QueryFilter::default())?, vec![ball_shape]);
//! # Ok::<(), impetus::Error>(())
//! ```
//!
//! # Solids
//!
//! Meshes and height fields are surfaces, two-sided: rays hit their nearest triangle from
//! either side (through the mesh's tree or the field's grid), shape casts and shape
//! overlaps test the triangles near the cast or overlapping shape, and no point is inside
//! them. They cannot be query shapes themselves.
//!
//! Every other shape is solid, planes included (a plane is the half-space below it). A ray or a
//! shape cast that *starts* inside or touching a shape hits it at fraction 0, at the ray's
//! origin (the cast shape's position), with the normal opposite the direction of travel.
//! This is Rapier's `solid = true`; Box2D instead ignores shapes that contain the origin.
//! The solid choice keeps [`World::overlap_point`] and [`World::cast_ray`] consistent (a
//! point inside a shape is hit by every ray from it) and lets a game notice that a probe
//! started inside a wall. A caller wanting Box2D's behaviour filters the hits at fraction 0,
//! or excludes the shapes from [`World::overlap_point`] through the predicate.
//!
//! # Acceleration
//!
//! No query tests every shape. Candidates come from the broadphase
//! (`BroadPhase::query_aabb`, which visits each proxy once): its fat boxes are the coarse
//! test, then the exact shape test runs (closed forms for rays and points, GJK for shapes,
//! conservative advancement for shape casts).
//!
//! A ray is cut into segments no longer than one grid cell. Each segment's bounding box
//! is queried; a proxy is handled only in the segment where the ray enters its fat box
//! (the slab entry parameter, clamped at 0, falls in the segment's half-open range), so a
//! proxy met by several segments is tested once and no visited-set is needed. The closest
//! hit stops the walk as soon as it lies before the next segment. A ray crossing more
//! segments than the grid has occupied cells (a ray kilometres long in a small world) is
//! queried in one piece instead, so no ray costs much more than a scan of the broadphase.
//! Before the broadphase's first update (no step yet) it has no grid and every query scans
//! all proxies: correct, only slower.
//!
//! The walk is some sixty times faster than testing every shape on a pile of 10,000
//! boxes (the ignored test `ray_timing_figure`; the figures are in `docs/decisions.md`).
//!
//! # Filters
//!
//! [`QueryFilter`] keeps a shape when its category bits meet the filter's mask, its body is
//! not the excluded one, and the predicate (if any) says yes; see [`QueryFilter`].

mod cast;
mod overlap;
mod ray;

use crate::error::Error;
use crate::id::{BodyId, ShapeId};
use crate::math::{is_finite3, Transform};
use crate::shape::Shape;
use crate::world::World;
use glam::{Quat, Vec3};

/// Which shapes a query sees.
///
/// A shape passes when `shape category & mask != 0`, its body is not `exclude_body`, and
/// `predicate` (if any) returns true for it. The predicate runs last, only for shapes that
/// passed the cheaper tests and whose bounds the query reached; it may be called for shapes
/// that the exact test then rejects, in an order that depends only on the world.
///
/// ```
/// use impetus::QueryFilter;
/// let only_even = |s: impetus::ShapeId| s.index % 2 == 0;
/// let filter = QueryFilter::default().with_mask(0b10).with_predicate(&only_even);
/// assert_eq!(filter.mask, 0b10);
/// ```
#[derive(Clone, Copy)]
pub struct QueryFilter<'a> {
    /// The shape categories the query sees: a shape passes when its category bits share a
    /// bit with this mask. Default: `u64::MAX` (every category).
    pub mask: u64,
    /// Skip every shape of this body (the caster's own body, typically). A stale id makes
    /// the query fail with [`Error::StaleHandle`]. Default: `None`.
    pub exclude_body: Option<BodyId>,
    /// A last say on each candidate shape: keep it when this returns true. Default: `None`.
    pub predicate: Option<&'a dyn Fn(ShapeId) -> bool>,
}

impl Default for QueryFilter<'_> {
    fn default() -> Self {
        QueryFilter {
            mask: u64::MAX,
            exclude_body: None,
            predicate: None,
        }
    }
}

impl std::fmt::Debug for QueryFilter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryFilter")
            .field("mask", &format_args!("{:#x}", self.mask))
            .field("exclude_body", &self.exclude_body)
            .field("predicate", &self.predicate.map(|_| "Fn(ShapeId) -> bool"))
            .finish()
    }
}

impl<'a> QueryFilter<'a> {
    /// Sees only shapes whose category bits meet `mask`.
    pub fn with_mask(mut self, mask: u64) -> Self {
        self.mask = mask;
        self
    }

    /// Skips the shapes of `body`.
    pub fn excluding_body(mut self, body: BodyId) -> Self {
        self.exclude_body = Some(body);
        self
    }

    /// Keeps only the shapes for which `predicate` returns true.
    pub fn with_predicate(mut self, predicate: &'a dyn Fn(ShapeId) -> bool) -> Self {
        self.predicate = Some(predicate);
        self
    }
}

/// Where a ray met a shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// The shape hit.
    pub shape: ShapeId,
    /// Its body.
    pub body: BodyId,
    /// The hit point on the shape's surface (the origin for a ray starting inside), in m.
    pub point: Vec3,
    /// Unit outward normal of the surface at `point` (opposite the ray's direction for a
    /// ray starting inside).
    pub normal: Vec3,
    /// `distance / max_distance`, in [0, 1].
    pub fraction: f32,
    /// Distance from the origin along the (normalised) direction, in m.
    pub distance: f32,
}

/// Where a swept shape first touched another.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeHit {
    /// The shape hit.
    pub shape: ShapeId,
    /// Its body.
    pub body: BodyId,
    /// The fraction of the translation travelled before touching, in [0, 1]: the cast
    /// shape touches at `transform.p + fraction * translation`.
    pub fraction: f32,
    /// The contact point on the hit shape's surface, in m (the cast shape's start position
    /// when it starts touching).
    pub point: Vec3,
    /// Unit outward normal of the hit shape at `point`, towards the cast shape (opposite the
    /// translation when the cast shape starts touching).
    pub normal: Vec3,
}

/// The category bits of shape slot `slot` as queries see them: its filter's.
#[inline]
pub(crate) fn shape_category(world: &World, slot: usize) -> u64 {
    world.shapes.data[slot].filter.category
}

/// A [`QueryFilter`] with its body id checked and resolved to a slot.
struct Filter<'a> {
    mask: u64,
    exclude_body: Option<u32>,
    predicate: Option<&'a dyn Fn(ShapeId) -> bool>,
}

impl World {
    fn resolve_filter<'a>(&self, filter: &QueryFilter<'a>) -> Result<Filter<'a>, Error> {
        let exclude_body = match filter.exclude_body {
            Some(id) => Some(self.body_index(id)? as u32),
            None => None,
        };
        Ok(Filter {
            mask: filter.mask,
            exclude_body,
            predicate: filter.predicate,
        })
    }

    /// Whether shape slot `slot` passes `filter`.
    #[inline]
    fn accepts(&self, filter: &Filter<'_>, slot: u32) -> bool {
        let s = slot as usize;
        // Sensors detect; they are not hit (as in Box2D).
        if self.shapes.data[s].is_sensor || shape_category(self, s) & filter.mask == 0 {
            return false;
        }
        if filter.exclude_body == Some(self.shapes.data[s].body) {
            return false;
        }
        match filter.predicate {
            Some(p) => p(self.shape_id_of(slot)),
            None => true,
        }
    }

    /// The id of live shape slot `slot`.
    #[inline]
    fn shape_id_of(&self, slot: u32) -> ShapeId {
        ShapeId {
            index: slot,
            generation: self.shapes.pool.generation(slot as usize),
        }
    }

    /// The id of the body of live shape slot `slot`.
    #[inline]
    fn body_id_of(&self, slot: u32) -> BodyId {
        let b = self.shapes.data[slot as usize].body;
        BodyId {
            index: b,
            generation: self.body_pool.generation(b as usize),
        }
    }

    /// Shape slot `slot`'s geometry and world pose.
    #[inline]
    fn shape_pose(&self, slot: u32) -> (&Shape, Transform) {
        let d = &self.shapes.data[slot as usize];
        (&d.shape, d.pose(&self.bodies.transform(d.body as usize)))
    }
}

/// Checks that a vector argument is finite.
fn check_finite(field: &'static str, v: Vec3) -> Result<(), Error> {
    if is_finite3(v) {
        Ok(())
    } else {
        Err(Error::invalid(field, "must be finite"))
    }
}

/// Checks a query shape and its pose; returns the pose with a unit rotation.
fn check_query_shape(shape: &Shape, transform: &Transform) -> Result<Transform, Error> {
    shape.validate()?;
    if shape.is_static_only() {
        return Err(Error::invalid(
            "shape",
            "must be a sphere, a capsule, a box or a hull (not a plane, mesh or height field)",
        ));
    }
    check_finite("transform.p", transform.p)?;
    let q: Quat = transform.q;
    if !q.is_finite() || !(1.0e-12..=f32::MAX).contains(&q.length_squared()) {
        return Err(Error::invalid(
            "transform.q",
            "must be a finite, non-zero quaternion",
        ));
    }
    Ok(Transform::new(transform.p, q.normalize()))
}
