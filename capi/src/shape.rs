//! Shapes: the shape definition, one create call per kind (hulls from points, meshes and
//! height fields from arrays), removal, filters.

use crate::world::with_world;
use crate::{
    guard, need, slice, Def, Fail, ImpBodyId, ImpShapeId, ImpStatus, ImpTransform, ImpVec3,
    ImpWorldId, R,
};
use engine::{ConvexHull, Filter, HeightField, Shape, ShapeDef, ShapeKind, TriMesh, Vec3};
use std::sync::Arc;

/// The kind of a shape: one of the `IMP_SHAPE_*` values.
pub type ImpShapeType = u32;
/// A sphere.
pub const IMP_SHAPE_SPHERE: ImpShapeType = 0;
/// A capsule along the local y axis.
pub const IMP_SHAPE_CAPSULE: ImpShapeType = 1;
/// A box.
pub const IMP_SHAPE_BOX: ImpShapeType = 2;
/// A convex hull.
pub const IMP_SHAPE_HULL: ImpShapeType = 3;
/// A plane (static bodies only).
pub const IMP_SHAPE_PLANE: ImpShapeType = 4;
/// A triangle mesh (static bodies only).
pub const IMP_SHAPE_MESH: ImpShapeType = 5;
/// A height field (static bodies only).
pub const IMP_SHAPE_HEIGHT_FIELD: ImpShapeType = 6;

/// Which shapes collide, as in Box2D: shapes sharing a non-zero `group` always (positive)
/// or never (negative) collide; otherwise each one's `category` must meet the other's
/// `mask`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImpFilter {
    /// The categories the shape belongs to. Default: 1.
    pub category: u64,
    /// The categories it collides with. Default: all.
    pub mask: u64,
    /// Collision group. Default: 0.
    pub group: i32,
}

impl From<ImpFilter> for Filter {
    fn from(f: ImpFilter) -> Filter {
        Filter {
            category: f.category,
            mask: f.mask,
            group: f.group,
        }
    }
}

impl From<Filter> for ImpFilter {
    fn from(f: Filter) -> ImpFilter {
        ImpFilter {
            category: f.category,
            mask: f.mask,
            group: f.group,
        }
    }
}

/// The material and flags of a shape (its geometry is given to the create call). Get one
/// from `imp_default_shape_def()`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ImpShapeDef {
    /// Density, kg/m³. Default: 1000.
    pub density: f32,
    /// Kinetic friction coefficient. Default: 0.6.
    pub friction: f32,
    /// Static friction coefficient; negative uses `friction`. Default: -1.
    pub static_friction: f32,
    /// Restitution in [0, 1]. Default: 0.
    pub restitution: f32,
    /// Rolling resistance of spheres and capsules. Default: 0.
    pub rolling_resistance: f32,
    /// Spheres only: radius of a hollow core, m. Default: 0.
    pub inner_radius: f32,
    /// Collision filter.
    pub filter: ImpFilter,
    /// Pose of the shape in its body's frame. Default: identity.
    pub local_pose: ImpTransform,
    /// A sensor detects overlaps and does not collide. Default: false.
    pub is_sensor: bool,
    /// Report contact begin and end events. Default: true.
    pub enable_contact_events: bool,
    /// Report hit events. Default: false.
    pub enable_hit_events: bool,
    /// Report sensor events (for sensors and shapes they see). Default: true.
    pub enable_sensor_events: bool,
    /// Pass the shape's contacts through the world's contact modifier. Default: false.
    pub enable_contact_modifier: bool,
    /// Set by `imp_default_shape_def()`; checked by the create calls. Do not touch.
    pub internal_value: u32,
}

// SAFETY: a repr(C) struct of numbers, bools and ids: all-zero bytes are valid.
unsafe impl Def for ImpShapeDef {
    const COOKIE: u32 = 0x1e70_0003;
    const NAME: &'static str = "ImpShapeDef";
    fn cookie(p: *const Self) -> *const u32 {
        // SAFETY: only the field's address is computed (no read) from a non-null pointer.
        unsafe { std::ptr::addr_of!((*p).internal_value) }
    }
}

/// A shape definition with every default filled in.
#[no_mangle]
pub extern "C" fn imp_default_shape_def() -> ImpShapeDef {
    crate::or_refused(default_shape_def)
}

fn default_shape_def() -> ImpShapeDef {
    let d = ShapeDef::new(Shape::Sphere { radius: 1.0 });
    ImpShapeDef {
        density: d.density,
        friction: d.friction,
        static_friction: -1.0,
        restitution: d.restitution,
        rolling_resistance: d.rolling_resistance,
        inner_radius: d.inner_radius,
        filter: d.filter.into(),
        local_pose: d.local_pose.into(),
        is_sensor: d.is_sensor,
        enable_contact_events: d.enable_contact_events,
        enable_hit_events: d.enable_hit_events,
        enable_sensor_events: d.enable_sensor_events,
        enable_contact_modifier: d.enable_contact_modifier,
        internal_value: ImpShapeDef::COOKIE,
    }
}

/// The engine's definition of `shape` with the material of `d`.
fn shape_def(d: &ImpShapeDef, shape: Shape) -> ShapeDef {
    ShapeDef {
        shape,
        density: d.density,
        friction: d.friction,
        static_friction: if d.static_friction < 0.0 {
            None
        } else {
            Some(d.static_friction)
        },
        restitution: d.restitution,
        rolling_resistance: d.rolling_resistance,
        inner_radius: d.inner_radius,
        filter: d.filter.into(),
        is_sensor: d.is_sensor,
        enable_contact_events: d.enable_contact_events,
        enable_hit_events: d.enable_hit_events,
        enable_sensor_events: d.enable_sensor_events,
        enable_contact_modifier: d.enable_contact_modifier,
        local_pose: d.local_pose.into(),
    }
}

/// Checks the definition, builds the geometry, attaches it.
///
/// # Safety
/// A non-null `def` must point to an `ImpShapeDef`.
unsafe fn create(
    world: ImpWorldId,
    body: ImpBodyId,
    def: *const ImpShapeDef,
    out: Option<&mut ImpShapeId>,
    shape: impl FnOnce() -> R<Shape>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        // SAFETY: the caller's contract: a non-null `def` points to an ImpShapeDef.
        let d = unsafe { crate::def(def, "def") }?;
        let sd = shape_def(d, shape()?);
        with_world(world, |w| {
            *out = w.add_shape(body.into(), &sd)?.into();
            Ok(())
        })
    })
}

/// Attaches a sphere of `radius` m to `body`; writes the shape's id to `out`.
#[no_mangle]
pub unsafe extern "C" fn imp_shape_create_sphere(
    world: ImpWorldId,
    body: ImpBodyId,
    def: *const ImpShapeDef,
    radius: f32,
    out: Option<&mut ImpShapeId>,
) -> ImpStatus {
    // SAFETY: forwarded caller's contract on `def`.
    unsafe { create(world, body, def, out, || Ok(Shape::Sphere { radius })) }
}

/// Attaches a capsule along the local y axis: a segment of half length `half_height` m
/// swept by a sphere of `radius` m.
#[no_mangle]
pub unsafe extern "C" fn imp_shape_create_capsule(
    world: ImpWorldId,
    body: ImpBodyId,
    def: *const ImpShapeDef,
    half_height: f32,
    radius: f32,
    out: Option<&mut ImpShapeId>,
) -> ImpStatus {
    // SAFETY: forwarded caller's contract on `def`.
    unsafe {
        create(world, body, def, out, || {
            Ok(Shape::Capsule {
                half_height,
                radius,
            })
        })
    }
}

/// Attaches a box of `half_extents` m.
#[no_mangle]
pub unsafe extern "C" fn imp_shape_create_box(
    world: ImpWorldId,
    body: ImpBodyId,
    def: *const ImpShapeDef,
    half_extents: ImpVec3,
    out: Option<&mut ImpShapeId>,
) -> ImpStatus {
    // SAFETY: forwarded caller's contract on `def`.
    unsafe {
        create(world, body, def, out, || {
            Ok(Shape::Box {
                half_extents: half_extents.into(),
            })
        })
    }
}

/// Attaches the half-space `normal · x <= offset` in the body's frame (`normal` a unit
/// vector): its surface is the plane `normal · x = offset`, solid on the side away from
/// `normal`. With normal (0, 1, 0) and offset 1 the ground's top is y = 1 (a ball of
/// radius 0.5 rests at y = 1.5). Static bodies only.
#[no_mangle]
pub unsafe extern "C" fn imp_shape_create_plane(
    world: ImpWorldId,
    body: ImpBodyId,
    def: *const ImpShapeDef,
    normal: ImpVec3,
    offset: f32,
    out: Option<&mut ImpShapeId>,
) -> ImpStatus {
    // SAFETY: forwarded caller's contract on `def`.
    unsafe {
        create(world, body, def, out, || {
            Ok(Shape::Plane {
                normal: normal.into(),
                offset,
            })
        })
    }
}

/// Attaches the convex hull of `count` points (m, body frame).
#[no_mangle]
pub unsafe extern "C" fn imp_shape_create_hull(
    world: ImpWorldId,
    body: ImpBodyId,
    def: *const ImpShapeDef,
    points: *const ImpVec3,
    count: u32,
    out: Option<&mut ImpShapeId>,
) -> ImpStatus {
    // SAFETY: forwarded caller's contract on `def`; `points` has `count` elements.
    unsafe {
        create(world, body, def, out, || {
            let pts = slice(points, count as usize, "points")?;
            let pts: Vec<Vec3> = pts.iter().map(|&p| p.into()).collect();
            Ok(Shape::Hull {
                hull: Arc::new(ConvexHull::new(&pts)?),
            })
        })
    }
}

/// Attaches a triangle mesh (static bodies only): `vertex_count` vertices (m, body frame)
/// and `triangle_count` triangles of three vertex indices each (`3 * triangle_count`
/// values at `indices`), counter-clockwise seen from outside.
#[no_mangle]
pub unsafe extern "C" fn imp_shape_create_mesh(
    world: ImpWorldId,
    body: ImpBodyId,
    def: *const ImpShapeDef,
    vertices: *const ImpVec3,
    vertex_count: u32,
    indices: *const u32,
    triangle_count: u32,
    out: Option<&mut ImpShapeId>,
) -> ImpStatus {
    // SAFETY: forwarded caller's contract on `def`; the arrays have the given counts.
    unsafe {
        create(world, body, def, out, || {
            let v = slice(vertices, vertex_count as usize, "vertices")?;
            let n = (triangle_count as usize)
                .checked_mul(3)
                .ok_or_else(|| Fail::invalid("triangle_count", "too large"))?;
            let i = slice(indices, n, "indices")?;
            let v: Vec<Vec3> = v.iter().map(|&p| p.into()).collect();
            let t: Vec<[u32; 3]> = i.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
            Ok(Shape::Mesh {
                mesh: Arc::new(TriMesh::new(v, t)?),
            })
        })
    }
}

/// Attaches a height field (static bodies only): `rows × cols` heights, row-major
/// (`heights[row * cols + col]`), the grid's corner at the body origin, cell `col` along x
/// and `row` along z, scaled by `scale` (x spacing, height factor, z spacing).
#[no_mangle]
pub unsafe extern "C" fn imp_shape_create_height_field(
    world: ImpWorldId,
    body: ImpBodyId,
    def: *const ImpShapeDef,
    heights: *const f32,
    rows: u32,
    cols: u32,
    scale: ImpVec3,
    out: Option<&mut ImpShapeId>,
) -> ImpStatus {
    // SAFETY: forwarded caller's contract on `def`; `heights` has rows × cols elements.
    unsafe {
        create(world, body, def, out, || {
            let n = (rows as usize)
                .checked_mul(cols as usize)
                .ok_or_else(|| Fail::invalid("rows", "rows × cols is too large"))?;
            let h = slice(heights, n, "heights")?;
            let field = HeightField::new(rows as usize, cols as usize, h.to_vec(), scale.into())?;
            Ok(Shape::HeightField {
                field: Arc::new(field),
            })
        })
    }
}

/// Removes a shape from its body; its id goes stale.
#[no_mangle]
pub extern "C" fn imp_shape_destroy(world: ImpWorldId, shape: ImpShapeId) -> ImpStatus {
    guard(|| with_world(world, |w| Ok(w.remove_shape(shape.into())?)))
}

/// Writes the body the shape is attached to.
#[no_mangle]
pub extern "C" fn imp_shape_get_body(
    world: ImpWorldId,
    shape: ImpShapeId,
    out: Option<&mut ImpBodyId>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| {
            *out = w.shape_body(shape.into())?.into();
            Ok(())
        })
    })
}

/// Writes the shape's kind (`IMP_SHAPE_*`).
#[no_mangle]
pub extern "C" fn imp_shape_get_type(
    world: ImpWorldId,
    shape: ImpShapeId,
    out: Option<&mut ImpShapeType>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| {
            *out = match w.shape(shape.into())?.kind() {
                ShapeKind::Sphere => IMP_SHAPE_SPHERE,
                ShapeKind::Capsule => IMP_SHAPE_CAPSULE,
                ShapeKind::Box => IMP_SHAPE_BOX,
                ShapeKind::Hull => IMP_SHAPE_HULL,
                ShapeKind::Plane => IMP_SHAPE_PLANE,
                ShapeKind::Mesh => IMP_SHAPE_MESH,
                ShapeKind::HeightField => IMP_SHAPE_HEIGHT_FIELD,
            };
            Ok(())
        })
    })
}

/// Writes the shape's collision filter.
#[no_mangle]
pub extern "C" fn imp_shape_get_filter(
    world: ImpWorldId,
    shape: ImpShapeId,
    out: Option<&mut ImpFilter>,
) -> ImpStatus {
    guard(|| {
        let out = need(out, "out")?;
        with_world(world, |w| {
            *out = w.shape_filter(shape.into())?.into();
            Ok(())
        })
    })
}

/// Sets the shape's collision filter.
#[no_mangle]
pub extern "C" fn imp_shape_set_filter(
    world: ImpWorldId,
    shape: ImpShapeId,
    filter: ImpFilter,
) -> ImpStatus {
    guard(|| {
        with_world(world, |w| {
            Ok(w.set_shape_filter(shape.into(), filter.into())?)
        })
    })
}
