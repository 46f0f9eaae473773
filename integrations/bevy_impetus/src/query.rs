//! Ray casts, shape casts and overlaps through the [`SpatialQuery`] system parameter,
//! answering with entities.
//!
//! Queries read the world as the last step (or the last creation of bodies, before the
//! step) left it. Sensors are never reported. Results are deterministic: the same query on
//! the same world gives the same answer, bit for bit. Bad input (a zero direction, a
//! non-finite point, a plane as the cast shape) is an `Err` naming the argument.

use crate::components::Collider;
use crate::convert::{pose_in, vec_in, vec_out};
use crate::world::ImpetusWorld;
use bevy::ecs::entity::Entity;
use bevy::ecs::system::{Res, SystemParam};
use bevy::math::{Quat, Vec3};
use impetus::{Error, QueryFilter, Shape, ShapeId};

/// Which colliders a query sees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpatialQueryFilter {
    /// A collider passes when its [`CollisionGroups::memberships`](crate::CollisionGroups)
    /// share a bit with this mask. Default: every bit.
    pub mask: u64,
    /// Entities whose colliders are skipped (the caster itself, typically).
    pub excluded: Vec<Entity>,
}

impl Default for SpatialQueryFilter {
    fn default() -> Self {
        Self {
            mask: u64::MAX,
            excluded: Vec::new(),
        }
    }
}

impl SpatialQueryFilter {
    /// Sees only colliders whose memberships meet `mask`.
    pub fn with_mask(mut self, mask: u64) -> Self {
        self.mask = mask;
        self
    }

    /// Skips the colliders of `entity`.
    pub fn excluding(mut self, entity: Entity) -> Self {
        self.excluded.push(entity);
        self
    }
}

/// Where a ray met a collider.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// The entity hit.
    pub entity: Entity,
    /// The hit point, world space (m); the origin for a ray that starts inside.
    pub point: Vec3,
    /// The surface's outward unit normal there.
    pub normal: Vec3,
    /// Distance from the origin (m).
    pub distance: f32,
    /// `distance / max_distance`.
    pub fraction: f32,
}

/// Where a swept collider first touched another.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeHit {
    /// The entity hit.
    pub entity: Entity,
    /// The fraction of the translation travelled before touching, in [0, 1].
    pub fraction: f32,
    /// The contact point on the hit collider (m).
    pub point: Vec3,
    /// The hit collider's outward unit normal there.
    pub normal: Vec3,
}

/// Spatial queries on the physics world, answering with entities.
///
/// ```no_run
/// use bevy::prelude::*;
/// use bevy_impetus::prelude::*;
///
/// fn look_down(query: SpatialQuery) {
///     if let Ok(Some(hit)) = query.cast_ray(Vec3::new(0.0, 10.0, 0.0), Vec3::NEG_Y, 100.0, &SpatialQueryFilter::default()) {
///         println!("{} at {} m", hit.entity, hit.distance);
///     }
/// }
/// ```
#[derive(SystemParam)]
pub struct SpatialQuery<'w> {
    physics: Res<'w, ImpetusWorld>,
}

impl SpatialQuery<'_> {
    /// The physics world the queries read.
    pub fn world(&self) -> &ImpetusWorld {
        &self.physics
    }

    /// Runs `f` with the engine's filter for `filter`.
    fn with_filter<T>(
        &self,
        filter: &SpatialQueryFilter,
        f: impl FnOnce(&QueryFilter<'_>) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let p = &*self.physics;
        let excluded: Vec<impetus::BodyId> =
            filter.excluded.iter().filter_map(|&e| p.body(e)).collect();
        let keep = |shape: ShapeId| {
            p.world
                .shape_body(shape)
                .is_ok_and(|body| !excluded.contains(&body))
        };
        let mut engine = QueryFilter::default().with_mask(filter.mask);
        match excluded.as_slice() {
            [] => {}
            [one] => engine = engine.excluding_body(*one),
            _ => engine = engine.with_predicate(&keep),
        }
        f(&engine)
    }

    fn entity_of_shape(&self, shape: ShapeId) -> Option<Entity> {
        let body = self.physics.world.shape_body(shape).ok()?;
        self.physics.entity_of(body)
    }

    /// Entities of `shapes` (several shapes of one body give its entity once), in order.
    fn entities(&self, shapes: Vec<ShapeId>) -> Vec<Entity> {
        let mut out: Vec<Entity> = Vec::with_capacity(shapes.len());
        for s in shapes {
            if let Some(e) = self.entity_of_shape(s) {
                if !out.contains(&e) {
                    out.push(e);
                }
            }
        }
        out
    }

    /// The first collider hit by the ray from `origin` along `direction` (normalised)
    /// within `max_distance` (m).
    pub fn cast_ray(
        &self,
        origin: Vec3,
        direction: Vec3,
        max_distance: f32,
        filter: &SpatialQueryFilter,
    ) -> Result<Option<RayHit>, Error> {
        let hit = self.with_filter(filter, |f| {
            self.physics
                .world
                .cast_ray(vec_in(origin), vec_in(direction), max_distance, f)
        })?;
        Ok(hit.and_then(|h| self.ray_hit(&h)))
    }

    /// Every collider the ray hits, nearest first.
    pub fn cast_ray_all(
        &self,
        origin: Vec3,
        direction: Vec3,
        max_distance: f32,
        filter: &SpatialQueryFilter,
    ) -> Result<Vec<RayHit>, Error> {
        let hits = self.with_filter(filter, |f| {
            self.physics
                .world
                .cast_ray_all(vec_in(origin), vec_in(direction), max_distance, f)
        })?;
        Ok(hits.iter().filter_map(|h| self.ray_hit(h)).collect())
    }

    /// An engine ray hit as one naming its entity (`None` for a body the plugin did not
    /// make).
    fn ray_hit(&self, h: &impetus::RayHit) -> Option<RayHit> {
        Some(RayHit {
            entity: self.physics.entity_of(h.body)?,
            point: vec_out(h.point),
            normal: vec_out(h.normal),
            distance: h.distance,
            fraction: h.fraction,
        })
    }

    /// The first collider that `shape` (a sphere, capsule, cuboid or convex hull collider,
    /// not a compound) touches when moved from `position`/`rotation` by `translation`
    /// without turning.
    pub fn cast_shape(
        &self,
        shape: &Collider,
        position: Vec3,
        rotation: Quat,
        translation: Vec3,
        filter: &SpatialQueryFilter,
    ) -> Result<Option<ShapeHit>, Error> {
        let shape = query_shape(shape)?;
        let xf = pose_in(position, rotation);
        let hit = self.with_filter(filter, |f| {
            self.physics
                .world
                .cast_shape(shape, &xf, vec_in(translation), f)
        })?;
        Ok(hit.and_then(|h| {
            Some(ShapeHit {
                entity: self.physics.entity_of(h.body)?,
                fraction: h.fraction,
                point: vec_out(h.point),
                normal: vec_out(h.normal),
            })
        }))
    }

    /// The entities whose colliders meet `shape` (a sphere, capsule, cuboid or convex hull
    /// collider) at `position`/`rotation`, touching included, in shape order.
    pub fn overlap_shape(
        &self,
        shape: &Collider,
        position: Vec3,
        rotation: Quat,
        filter: &SpatialQueryFilter,
    ) -> Result<Vec<Entity>, Error> {
        let shape = query_shape(shape)?;
        let xf = pose_in(position, rotation);
        let shapes =
            self.with_filter(filter, |f| self.physics.world.overlap_shape(shape, &xf, f))?;
        Ok(self.entities(shapes))
    }

    /// The entities whose colliders contain `point` (surfaces included).
    pub fn overlap_point(
        &self,
        point: Vec3,
        filter: &SpatialQueryFilter,
    ) -> Result<Vec<Entity>, Error> {
        let shapes = self.with_filter(filter, |f| {
            self.physics.world.overlap_point(vec_in(point), f)
        })?;
        Ok(self.entities(shapes))
    }

    /// The entities whose colliders' bounding boxes meet the box from `min` to `max`
    /// (coarse: use [`overlap_shape`](Self::overlap_shape) with a cuboid for the exact
    /// test).
    pub fn overlap_aabb(
        &self,
        min: Vec3,
        max: Vec3,
        filter: &SpatialQueryFilter,
    ) -> Result<Vec<Entity>, Error> {
        let aabb = impetus::Aabb {
            min: vec_in(min),
            max: vec_in(max),
        };
        let shapes = self.with_filter(filter, |f| self.physics.world.overlap_aabb(&aabb, f))?;
        Ok(self.entities(shapes))
    }
}

/// The shape of a query collider: one convex part at the origin.
fn query_shape(collider: &Collider) -> Result<&Shape, Error> {
    collider.single().ok_or(Error::InvalidInput {
        field: "shape",
        reason: "must be a single shape at its origin (not a compound)",
    })
}
