//! Overlap queries: which shapes meet a box, a point or a shape.

use super::{check_finite, check_query_shape, QueryFilter};
use crate::collision::gjk::{shape_distance, triangle_distance};
use crate::error::Error;
use crate::id::ShapeId;
use crate::math::Aabb;
use crate::math::Transform;
use crate::shape::Shape;
use crate::world::World;
use glam::Vec3;

/// Whether the solid `shape` at `xf` contains `p` (its surface included).
pub(crate) fn contains_point(shape: &Shape, xf: &Transform, p: Vec3) -> bool {
    match *shape {
        Shape::Sphere { radius } => (p - xf.p).length_squared() <= radius * radius,
        Shape::Capsule {
            half_height,
            radius,
        } => {
            let l = xf.inv_transform_point(p);
            let axis_point = Vec3::new(0.0, l.y.clamp(-half_height, half_height), 0.0);
            (l - axis_point).length_squared() <= radius * radius
        }
        Shape::Box { half_extents } => xf.inv_transform_point(p).abs().cmple(half_extents).all(),
        Shape::Hull { ref hull } => hull.contains(xf.inv_transform_point(p)),
        Shape::Plane { normal, offset } => (xf.q * normal).dot(p - xf.p) <= offset,
        // Surfaces without an inside.
        Shape::Mesh { .. } | Shape::HeightField { .. } => false,
    }
}

/// Whether `shape` at `xf` meets `bb`: for spheres, capsules and boxes, their bounding box overlaps
/// `bb`; for a plane, the half-space contains a point of `bb` (its bounds are the whole
/// world unless it is axis-aligned).
pub(crate) fn meets_aabb(shape: &Shape, xf: &Transform, bb: &Aabb) -> bool {
    match *shape {
        Shape::Plane { normal, offset } => {
            // The box's corner lowest along n against the plane.
            let n = xf.q * normal;
            let lowest = Vec3::select(n.cmpge(Vec3::ZERO), bb.min, bb.max);
            n.dot(lowest - xf.p) <= offset
        }
        _ => shape.aabb(xf).overlaps(bb),
    }
}

/// Whether two solids meet (touching counts): closed forms for sphere-sphere, sphere-box and
/// anything against a plane, GJK for the other pairs (capsules, boxes) and for each
/// triangle of a mesh or height field near `a`. `b` may be a plane, mesh or height field,
/// `a` may not.
pub(crate) fn shapes_overlap(a: &Shape, xf_a: &Transform, b: &Shape, xf_b: &Transform) -> bool {
    match (a, b) {
        (&Shape::Sphere { radius: ra }, &Shape::Sphere { radius: rb }) => {
            (xf_b.p - xf_a.p).length_squared() <= (ra + rb) * (ra + rb)
        }
        (&Shape::Sphere { radius }, &Shape::Box { half_extents })
        | (&Shape::Box { half_extents }, &Shape::Sphere { radius }) => {
            let (c, bxf) = if matches!(a, Shape::Sphere { .. }) {
                (xf_a.p, xf_b)
            } else {
                (xf_b.p, xf_a)
            };
            let l = bxf.inv_transform_point(c);
            (l - l.clamp(-half_extents, half_extents)).length_squared() <= radius * radius
        }
        (_, &Shape::Mesh { .. } | &Shape::HeightField { .. }) => {
            let Some(mesh) = b.triangles() else {
                return false;
            };
            let local = crate::shape::local_aabb(&a.aabb(xf_a), xf_b);
            let mut hit = false;
            mesh.query_aabb(&local, |t| {
                if !hit {
                    let tri = mesh.triangle(t).vertices.map(|v| xf_b.transform_point(v));
                    hit = triangle_distance(a, xf_a, tri)
                        .is_some_and(|d| d.overlap || d.distance <= 0.0);
                }
            });
            hit
        }
        _ => shape_distance(a, xf_a, b, xf_b).is_some_and(|d| d.overlap || d.distance <= 0.0),
    }
}

impl World {
    /// Calls `f` for every shape kept by `filter` whose bounds meet `aabb` (touching
    /// counts): a sphere's or box's bounding box at its current pose overlaps `aabb`, or a
    /// plane's half-space holds a point of it. Coarse by design, like Box2D's
    /// `b2World_OverlapAABB`: use [`World::overlap_shape`] with a box for the exact test.
    /// Visits in broadphase order (deterministic) and allocates nothing.
    ///
    /// Errors: a non-finite corner or `min > max` on some axis (`InvalidInput` naming
    /// `aabb`), a stale `filter.exclude_body` (`StaleHandle`).
    pub fn overlap_aabb_with(
        &self,
        aabb: &Aabb,
        filter: &QueryFilter<'_>,
        mut f: impl FnMut(ShapeId),
    ) -> Result<(), Error> {
        check_finite("aabb.min", aabb.min)?;
        check_finite("aabb.max", aabb.max)?;
        if !aabb.min.cmple(aabb.max).all() {
            return Err(Error::invalid("aabb", "min must not exceed max"));
        }
        let filter = self.resolve_filter(filter)?;
        self.broadphase.query_aabb(aabb, true, |slot| {
            let (shape, xf) = self.shape_pose(slot);
            if meets_aabb(shape, &xf, aabb) && self.accepts(&filter, slot) {
                f(self.shape_id_of(slot));
            }
        });
        Ok(())
    }

    /// The shapes [`World::overlap_aabb_with`] visits, sorted by id.
    pub fn overlap_aabb(
        &self,
        aabb: &Aabb,
        filter: &QueryFilter<'_>,
    ) -> Result<Vec<ShapeId>, Error> {
        let mut out = Vec::new();
        self.overlap_aabb_with(aabb, filter, |s| out.push(s))?;
        out.sort_unstable();
        Ok(out)
    }

    /// The shapes kept by `filter` that contain `point` (m; surfaces count; a plane
    /// contains the half-space below it), sorted by id.
    ///
    /// Errors: a non-finite `point` (`InvalidInput`), a stale `filter.exclude_body`
    /// (`StaleHandle`).
    pub fn overlap_point(
        &self,
        point: Vec3,
        filter: &QueryFilter<'_>,
    ) -> Result<Vec<ShapeId>, Error> {
        check_finite("point", point)?;
        let filter = self.resolve_filter(filter)?;
        let bb = Aabb {
            min: point,
            max: point,
        };
        let mut out = Vec::new();
        self.broadphase.query_aabb(&bb, true, |slot| {
            let (shape, xf) = self.shape_pose(slot);
            if contains_point(shape, &xf, point) && self.accepts(&filter, slot) {
                out.push(self.shape_id_of(slot));
            }
        });
        out.sort_unstable();
        Ok(out)
    }

    /// The shapes kept by `filter` that meet the solid `shape` (a sphere, a capsule, a box or a hull)
    /// placed at `transform` (touching counts), sorted by id. Exact: closed forms for
    /// spheres and planes, GJK distance `<= 0` for pairs with a capsule or between boxes.
    ///
    /// Errors: an invalid shape (non-positive radius or extents: `InvalidInput` naming the
    /// shape's field), a plane (`InvalidInput` naming `shape`), a non-finite
    /// `transform.p`, a non-finite or zero `transform.q`, a stale `filter.exclude_body`.
    pub fn overlap_shape(
        &self,
        shape: &Shape,
        transform: &Transform,
        filter: &QueryFilter<'_>,
    ) -> Result<Vec<ShapeId>, Error> {
        let xf = check_query_shape(shape, transform)?;
        let filter = self.resolve_filter(filter)?;
        let bb = shape.aabb(&xf);
        let mut out = Vec::new();
        self.broadphase.query_aabb(&bb, true, |slot| {
            let (other, other_xf) = self.shape_pose(slot);
            if meets_aabb(other, &other_xf, &bb)
                && self.accepts(&filter, slot)
                && shapes_overlap(shape, &xf, other, &other_xf)
            {
                out.push(self.shape_id_of(slot));
            }
        });
        out.sort_unstable();
        Ok(out)
    }
}
