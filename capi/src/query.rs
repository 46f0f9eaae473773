//! Queries between steps: ray casts, shape casts and overlaps.
//!
//! A filter's predicate runs inside the query and must not call into the same world; the
//! result callbacks of the `_all` and overlap calls run after the query, outside the
//! world, and may call into it.

use crate::shape::{IMP_SHAPE_BOX, IMP_SHAPE_CAPSULE, IMP_SHAPE_HULL, IMP_SHAPE_SPHERE};
use crate::world::with_world;
use crate::{
    guard, need, slice, Fail, ImpAabb, ImpBodyId, ImpShapeId, ImpShapeType, ImpStatus,
    ImpTransform, ImpVec3, ImpWorldId, R,
};
use engine::{Aabb, ConvexHull, QueryFilter, Shape, ShapeId, Vec3};
use std::ffi::c_void;
use std::sync::Arc;

/// A last say on each candidate shape of a query: return true to keep it. Runs inside the
/// query; it must not call into the same world.
pub type ImpShapePredicateFcn =
    Option<unsafe extern "C" fn(shape: ImpShapeId, context: *mut c_void) -> bool>;

/// Which shapes a query sees. Get one from `imp_default_query_filter()`; a null filter
/// pointer means the default.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ImpQueryFilter {
    /// The shape categories seen: a shape passes when its category bits meet this mask.
    /// Default: all.
    pub mask: u64,
    /// Skip every shape of this body; the null id skips none. Default: null.
    pub exclude_body: ImpBodyId,
    /// Optional predicate. Default: null.
    pub predicate: ImpShapePredicateFcn,
    /// Handed to `predicate`.
    pub context: *mut c_void,
}

/// The default query filter: every category, no body excluded, no predicate.
#[no_mangle]
pub extern "C" fn imp_default_query_filter() -> ImpQueryFilter {
    // Plain constants: nothing here can panic.
    ImpQueryFilter {
        mask: u64::MAX,
        exclude_body: ImpBodyId::default(),
        predicate: None,
        context: std::ptr::null_mut(),
    }
}

/// Where a ray met a shape.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct ImpRayHit {
    /// The shape hit.
    pub shape: ImpShapeId,
    /// Its body.
    pub body: ImpBodyId,
    /// The hit point, m.
    pub point: ImpVec3,
    /// The surface's outward unit normal there.
    pub normal: ImpVec3,
    /// `distance / max_distance`, in [0, 1].
    pub fraction: f32,
    /// Distance from the origin, m.
    pub distance: f32,
}

impl From<engine::RayHit> for ImpRayHit {
    fn from(h: engine::RayHit) -> Self {
        ImpRayHit {
            shape: h.shape.into(),
            body: h.body.into(),
            point: h.point.into(),
            normal: h.normal.into(),
            fraction: h.fraction,
            distance: h.distance,
        }
    }
}

/// Where a swept shape first touched another.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct ImpShapeHit {
    /// The shape hit.
    pub shape: ImpShapeId,
    /// Its body.
    pub body: ImpBodyId,
    /// Fraction of the translation travelled before touching, in [0, 1].
    pub fraction: f32,
    /// The contact point on the hit shape, m.
    pub point: ImpVec3,
    /// The hit shape's outward unit normal there, towards the cast shape.
    pub normal: ImpVec3,
}

/// The geometry of a shape cast or overlap query: a sphere, capsule, box or hull.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ImpQueryShape {
    /// `IMP_SHAPE_SPHERE`, `IMP_SHAPE_CAPSULE`, `IMP_SHAPE_BOX` or `IMP_SHAPE_HULL`.
    pub shape_type: ImpShapeType,
    /// Sphere and capsule radius, m.
    pub radius: f32,
    /// Capsule half height, m.
    pub half_height: f32,
    /// Box half extents, m.
    pub half_extents: ImpVec3,
    /// Hull points, m (`point_count` of them).
    pub points: *const ImpVec3,
    /// Number of hull points.
    pub point_count: u32,
}

/// Called once per result of `imp_world_cast_ray_all`, nearest first; return false to
/// stop.
pub type ImpRayHitFcn =
    Option<unsafe extern "C" fn(hit: *const ImpRayHit, context: *mut c_void) -> bool>;

/// Called once per shape an overlap query found, by increasing id; return false to stop.
pub type ImpOverlapFcn =
    Option<unsafe extern "C" fn(shape: ImpShapeId, context: *mut c_void) -> bool>;

/// Runs `f` with the engine's form of `filter` (null: the default).
///
/// # Safety
/// A non-null `filter` must point to an `ImpQueryFilter`.
unsafe fn with_filter<T>(
    filter: *const ImpQueryFilter,
    f: impl FnOnce(&QueryFilter<'_>) -> R<T>,
) -> R<T> {
    let c = if filter.is_null() {
        imp_default_query_filter()
    } else {
        // SAFETY: non-null and valid by the caller's contract; a plain-data copy.
        unsafe { *filter }
    };
    let predicate = c.predicate.map(|p| {
        let ctx = c.context;
        move |s: ShapeId| {
            // SAFETY: the caller registered `p` with `ctx` to be called with shape ids.
            unsafe { p(s.into(), ctx) }
        }
    });
    let mut q = QueryFilter::default().with_mask(c.mask);
    if c.exclude_body != ImpBodyId::default() {
        q = q.excluding_body(c.exclude_body.into());
    }
    if let Some(p) = &predicate {
        q = q.with_predicate(p);
    }
    f(&q)
}

/// The engine's shape for a query shape.
///
/// # Safety
/// A non-null `shape` must point to an `ImpQueryShape` whose `points` has `point_count`
/// elements.
unsafe fn query_shape(shape: *const ImpQueryShape) -> R<Shape> {
    if shape.is_null() {
        return Err(Fail::null("shape"));
    }
    // SAFETY: non-null and valid by the caller's contract; a plain-data copy.
    let s = unsafe { *shape };
    Ok(match s.shape_type {
        IMP_SHAPE_SPHERE => Shape::Sphere { radius: s.radius },
        IMP_SHAPE_CAPSULE => Shape::Capsule {
            half_height: s.half_height,
            radius: s.radius,
        },
        IMP_SHAPE_BOX => Shape::Box {
            half_extents: s.half_extents.into(),
        },
        IMP_SHAPE_HULL => {
            // SAFETY: the caller's contract on `points`.
            let pts = unsafe { slice(s.points, s.point_count as usize, "shape->points") }?;
            let pts: Vec<Vec3> = pts.iter().map(|&p| p.into()).collect();
            Shape::Hull {
                hull: Arc::new(ConvexHull::new(&pts)?),
            }
        }
        t if t <= crate::shape::IMP_SHAPE_HEIGHT_FIELD => {
            return Err(Fail::new(
                ImpStatus::IMP_ERR_UNSUPPORTED,
                "shape->shape_type: queries take spheres, capsules, boxes and hulls",
            ))
        }
        t => return Err(Fail::bad_enum("shape->shape_type", t)),
    })
}

/// Casts a ray from `origin` along `direction` up to `max_distance` m; writes whether it
/// hit to `hit` and, when it did, the nearest hit to `out`.
#[no_mangle]
pub unsafe extern "C" fn imp_world_cast_ray(
    world: ImpWorldId,
    origin: ImpVec3,
    direction: ImpVec3,
    max_distance: f32,
    filter: *const ImpQueryFilter,
    out: Option<&mut ImpRayHit>,
    hit: Option<&mut bool>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        let hit = need(hit, "hit")?;
        let result = with_world(world, |w| {
            // SAFETY: the caller's contract on `filter`.
            unsafe {
                with_filter(filter, |f| {
                    Ok(w.cast_ray(origin.into(), direction.into(), max_distance, f)?)
                })
            }
        })?;
        *hit = result.is_some();
        if let Some(h) = result {
            *out = h.into();
        }
        Ok(())
    })
}

/// Casts a ray and calls `fcn` for every shape it crosses, nearest first, after the query
/// (outside the world).
#[no_mangle]
pub unsafe extern "C" fn imp_world_cast_ray_all(
    world: ImpWorldId,
    origin: ImpVec3,
    direction: ImpVec3,
    max_distance: f32,
    filter: *const ImpQueryFilter,
    fcn: ImpRayHitFcn,
    context: *mut c_void,
) -> ImpStatus {
    guard(|| {
        let fcn = fcn.ok_or_else(|| Fail::null("fcn"))?;
        let hits = with_world(world, |w| {
            // SAFETY: the caller's contract on `filter`.
            unsafe {
                with_filter(filter, |f| {
                    Ok(w.cast_ray_all(origin.into(), direction.into(), max_distance, f)?)
                })
            }
        })?;
        for h in hits {
            let h: ImpRayHit = h.into();
            // SAFETY: `fcn` is the caller's callback, given a pointer to a live local.
            if !unsafe { fcn(&h, context) } {
                break;
            }
        }
        Ok(())
    })
}

/// Sweeps `shape` from `transform` along `translation` (m); writes whether it touched
/// anything to `hit` and, when it did, the first touch to `out`.
#[no_mangle]
pub unsafe extern "C" fn imp_world_cast_shape(
    world: ImpWorldId,
    shape: *const ImpQueryShape,
    transform: ImpTransform,
    translation: ImpVec3,
    filter: *const ImpQueryFilter,
    out: Option<&mut ImpShapeHit>,
    hit: Option<&mut bool>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        let hit = need(hit, "hit")?;
        // SAFETY: the caller's contract on `shape`.
        let s = unsafe { query_shape(shape) }?;
        let result = with_world(world, |w| {
            // SAFETY: the caller's contract on `filter`.
            unsafe {
                with_filter(filter, |f| {
                    Ok(w.cast_shape(&s, &transform.into(), translation.into(), f)?)
                })
            }
        })?;
        *hit = result.is_some();
        if let Some(h) = result {
            *out = ImpShapeHit {
                shape: h.shape.into(),
                body: h.body.into(),
                fraction: h.fraction,
                point: h.point.into(),
                normal: h.normal.into(),
            };
        }
        Ok(())
    })
}

/// Calls `fcn` for each result, until it returns false.
///
/// # Safety
/// `fcn` must be safe to call with `context`.
unsafe fn report(
    shapes: Vec<ShapeId>,
    fcn: unsafe extern "C" fn(ImpShapeId, *mut c_void) -> bool,
    context: *mut c_void,
) {
    for s in shapes {
        // SAFETY: the caller's callback and context.
        if !unsafe { fcn(s.into(), context) } {
            break;
        }
    }
}

/// Calls `fcn` for every shape whose fat bounds overlap `aabb` (after the query).
#[no_mangle]
pub unsafe extern "C" fn imp_world_overlap_aabb(
    world: ImpWorldId,
    aabb: ImpAabb,
    filter: *const ImpQueryFilter,
    fcn: ImpOverlapFcn,
    context: *mut c_void,
) -> ImpStatus {
    guard(|| {
        let fcn = fcn.ok_or_else(|| Fail::null("fcn"))?;
        let bb = Aabb {
            min: aabb.min.into(),
            max: aabb.max.into(),
        };
        let shapes = with_world(world, |w| {
            // SAFETY: the caller's contract on `filter`.
            unsafe { with_filter(filter, |f| Ok(w.overlap_aabb(&bb, f)?)) }
        })?;
        // SAFETY: the caller's callback and context.
        unsafe { report(shapes, fcn, context) };
        Ok(())
    })
}

/// Calls `fcn` for every shape that contains `point` (after the query).
#[no_mangle]
pub unsafe extern "C" fn imp_world_overlap_point(
    world: ImpWorldId,
    point: ImpVec3,
    filter: *const ImpQueryFilter,
    fcn: ImpOverlapFcn,
    context: *mut c_void,
) -> ImpStatus {
    guard(|| {
        let fcn = fcn.ok_or_else(|| Fail::null("fcn"))?;
        let shapes = with_world(world, |w| {
            // SAFETY: the caller's contract on `filter`.
            unsafe { with_filter(filter, |f| Ok(w.overlap_point(point.into(), f)?)) }
        })?;
        // SAFETY: the caller's callback and context.
        unsafe { report(shapes, fcn, context) };
        Ok(())
    })
}

/// Calls `fcn` for every shape that overlaps `shape` at `transform` (after the query).
#[no_mangle]
pub unsafe extern "C" fn imp_world_overlap_shape(
    world: ImpWorldId,
    shape: *const ImpQueryShape,
    transform: ImpTransform,
    filter: *const ImpQueryFilter,
    fcn: ImpOverlapFcn,
    context: *mut c_void,
) -> ImpStatus {
    guard(|| {
        let fcn = fcn.ok_or_else(|| Fail::null("fcn"))?;
        // SAFETY: the caller's contract on `shape`.
        let s = unsafe { query_shape(shape) }?;
        let shapes = with_world(world, |w| {
            // SAFETY: the caller's contract on `filter`.
            unsafe { with_filter(filter, |f| Ok(w.overlap_shape(&s, &transform.into(), f)?)) }
        })?;
        // SAFETY: the caller's callback and context.
        unsafe { report(shapes, fcn, context) };
        Ok(())
    })
}
