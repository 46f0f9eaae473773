//! Debug drawing: `imp_world_debug_draw` hands the world's shapes, bounds, contacts,
//! joints and islands to the host's drawing functions ([`ImpDebugDraw`], a struct of
//! function pointers and a `void *context`, as Box2D's `b2DebugDraw`), as the options
//! ([`ImpDebugDrawOptions`]) choose. The engine's `impetus::debug_draw` module documents
//! what is drawn.

use crate::world::with_world;
use crate::{guard, Def, Fail, ImpAabb, ImpStatus, ImpTransform, ImpVec3, ImpWorldId};
use engine::debug_draw::{lines, DebugDraw, DebugDrawOptions, DebugPalette, Rgba};
use engine::hull::MAX_HULL_VERTICES;
use engine::{Aabb, Transform, Vec3};
use std::ffi::{c_char, c_void};

/// A colour: red, green, blue and alpha (1 opaque), each nominally in [0, 1], not
/// premultiplied, handed over as the palette holds it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ImpColor {
    /// Red.
    pub r: f32,
    /// Green.
    pub g: f32,
    /// Blue.
    pub b: f32,
    /// Alpha.
    pub a: f32,
}

impl From<Rgba> for ImpColor {
    fn from(c: Rgba) -> ImpColor {
        ImpColor {
            r: c.r,
            g: c.g,
            b: c.b,
            a: c.a,
        }
    }
}

impl From<ImpColor> for Rgba {
    fn from(c: ImpColor) -> Rgba {
        Rgba::new(c.r, c.g, c.b, c.a)
    }
}

/// Draws a segment from `a` to `b` (m, world space).
pub type ImpDrawLineFcn =
    Option<unsafe extern "C" fn(a: ImpVec3, b: ImpVec3, color: ImpColor, context: *mut c_void)>;

/// Draws a point `size` m across.
pub type ImpDrawPointFcn = Option<
    unsafe extern "C" fn(position: ImpVec3, size: f32, color: ImpColor, context: *mut c_void),
>;

/// Draws a box of `half_extents` (m) centred at `transform.p`, turned by `transform.q`.
pub type ImpDrawBoxFcn = Option<
    unsafe extern "C" fn(
        transform: ImpTransform,
        half_extents: ImpVec3,
        color: ImpColor,
        context: *mut c_void,
    ),
>;

/// Draws a sphere of `radius` (m) centred at `transform.p`; `transform.q` is its body's
/// rotation.
pub type ImpDrawSphereFcn = Option<
    unsafe extern "C" fn(
        transform: ImpTransform,
        radius: f32,
        color: ImpColor,
        context: *mut c_void,
    ),
>;

/// Draws a capsule: the segment from (0, -half_height, 0) to (0, half_height, 0) in the
/// frame of `transform`, swept by `radius` (m).
pub type ImpDrawCapsuleFcn = Option<
    unsafe extern "C" fn(
        transform: ImpTransform,
        half_height: f32,
        radius: f32,
        color: ImpColor,
        context: *mut c_void,
    ),
>;

/// Draws a convex polygon (a hull face, a plane's square) of `count` vertices,
/// counter-clockwise seen from outside. The array is valid during the call only.
pub type ImpDrawPolygonFcn = Option<
    unsafe extern "C" fn(
        vertices: *const ImpVec3,
        count: u32,
        color: ImpColor,
        context: *mut c_void,
    ),
>;

/// Draws a triangle of a mesh or height field, counter-clockwise about its face normal.
pub type ImpDrawTriangleFcn = Option<
    unsafe extern "C" fn(a: ImpVec3, b: ImpVec3, c: ImpVec3, color: ImpColor, context: *mut c_void),
>;

/// Draws a coordinate frame (a joint frame): its origin and axes, `size` m long.
pub type ImpDrawFrameFcn =
    Option<unsafe extern "C" fn(transform: ImpTransform, size: f32, context: *mut c_void)>;

/// Draws a short label (`body 3`, `joint 2`) anchored at `position`: a NUL-terminated
/// ASCII string valid during the call only.
pub type ImpDrawTextFcn = Option<
    unsafe extern "C" fn(
        position: ImpVec3,
        text: *const c_char,
        color: ImpColor,
        context: *mut c_void,
    ),
>;

/// The host's drawing functions, each handed `context`. Any of them may be null. A null
/// `draw_line` draws no segments; every other null function leaves its primitive to the
/// engine's decomposition into `draw_line` calls (a box into its 12 edges, a sphere into
/// three circles, a polygon or triangle into its outline, a point into three crossing
/// segments, a frame into three axes: x red, y green, z blue), except `draw_text`, whose
/// labels are then not drawn. So a host that only draws segments sets `draw_line` alone.
/// All-zero (`ImpDebugDraw draw = {0};`) is valid and draws nothing.
///
/// The functions run inside the world, on the calling thread, during
/// `imp_world_debug_draw`: they must not call into the same world (such a call returns
/// `IMP_ERR_BUSY`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ImpDebugDraw {
    /// Segments.
    pub draw_line: ImpDrawLineFcn,
    /// Points (contact points, centres of mass, distance limits).
    pub draw_point: ImpDrawPointFcn,
    /// Boxes (box shapes, bounds, islands).
    pub draw_box: ImpDrawBoxFcn,
    /// Spheres.
    pub draw_sphere: ImpDrawSphereFcn,
    /// Capsules.
    pub draw_capsule: ImpDrawCapsuleFcn,
    /// Convex polygons (hull faces, planes; triangles too when `draw_triangle` is null).
    pub draw_polygon: ImpDrawPolygonFcn,
    /// Triangles of meshes and height fields.
    pub draw_triangle: ImpDrawTriangleFcn,
    /// Joint frames.
    pub draw_frame: ImpDrawFrameFcn,
    /// Labels.
    pub draw_text: ImpDrawTextFcn,
    /// Handed to every function.
    pub context: *mut c_void,
}

/// The colours of `imp_world_debug_draw`; each field is the engine's `DebugPalette`
/// field of the same name.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ImpDebugPalette {
    /// Shapes of awake dynamic bodies.
    pub awake: ImpColor,
    /// Shapes of sleeping dynamic bodies.
    pub sleeping: ImpColor,
    /// Shapes of static bodies.
    pub static_body: ImpColor,
    /// Shapes of kinematic bodies.
    pub kinematic: ImpColor,
    /// Sensor shapes.
    pub sensor: ImpColor,
    /// Shape bounding boxes.
    pub aabb: ImpColor,
    /// Centres of mass.
    pub center_of_mass: ImpColor,
    /// Contact points.
    pub contact_point: ImpColor,
    /// Contact normals.
    pub contact_normal: ImpColor,
    /// Normal forces at contact points.
    pub contact_force: ImpColor,
    /// Friction forces at manifold centres.
    pub friction_force: ImpColor,
    /// Joint lines (bodies to frames, frame to frame).
    pub joint: ImpColor,
    /// Joint limits and motor targets.
    pub joint_limits: ImpColor,
    /// Boxes of awake islands.
    pub island_awake: ImpColor,
    /// Boxes of sleeping islands.
    pub island_sleeping: ImpColor,
    /// Labels.
    pub text: ImpColor,
}

/// The palette's fields in order, for the conversions both ways.
macro_rules! palette_fields {
    ($m:ident) => {
        $m!(
            awake,
            sleeping,
            static_body,
            kinematic,
            sensor,
            aabb,
            center_of_mass,
            contact_point,
            contact_normal,
            contact_force,
            friction_force,
            joint,
            joint_limits,
            island_awake,
            island_sleeping,
            text
        )
    };
}

impl From<DebugPalette> for ImpDebugPalette {
    fn from(p: DebugPalette) -> Self {
        macro_rules! convert {
            ($($f:ident),*) => { ImpDebugPalette { $($f: p.$f.into()),* } };
        }
        palette_fields!(convert)
    }
}

impl From<ImpDebugPalette> for DebugPalette {
    fn from(p: ImpDebugPalette) -> Self {
        macro_rules! convert {
            ($($f:ident),*) => { DebugPalette { $($f: p.$f.into()),* } };
        }
        palette_fields!(convert)
    }
}

/// What `imp_world_debug_draw` draws, for which bodies, where, at what size and in which
/// colours. Get one from `imp_default_debug_draw_options()` (a null options pointer means
/// these defaults); each field is the engine's `DebugDrawOptions` field of the same name.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ImpDebugDrawOptions {
    /// The shapes of the kept bodies. Default: true.
    pub shapes: bool,
    /// Each kept shape's tight bounding box. Default: false.
    pub aabbs: bool,
    /// The centre of mass of each kept dynamic body. Default: false.
    pub centers_of_mass: bool,
    /// Labels through `draw_text`: `body <index>`, `joint <index>`. Default: false.
    pub labels: bool,
    /// The points of touching contacts. Default: false.
    pub contact_points: bool,
    /// Their normals, `normal_length` long, pointing the way the contact pushes a dynamic
    /// body (up, for a body resting on the ground). Default: false.
    pub contact_normals: bool,
    /// The normal force at each point and each manifold's friction force in the last
    /// step, `force_scale` m per N. Default: false.
    pub contact_forces: bool,
    /// Joint frames and the lines from the bodies to them. Default: true.
    pub joints: bool,
    /// Joint limits and motor targets. Default: false.
    pub joint_limits: bool,
    /// Island boxes. Default: false.
    pub islands: bool,
    /// Keep awake dynamic bodies. Default: true.
    pub awake: bool,
    /// Keep sleeping dynamic bodies. Default: true.
    pub sleeping: bool,
    /// Keep static bodies. Default: true.
    pub static_bodies: bool,
    /// Keep kinematic bodies. Default: true.
    pub kinematic: bool,
    /// Draw only what meets `region`. Default: false.
    pub use_region: bool,
    /// The region of interest (with `use_region`): finite, `min <= max` on every axis.
    pub region: ImpAabb,
    /// The size of points, m. Default: 0.05.
    pub point_size: f32,
    /// The length of contact normals, m. Default: 0.25.
    pub normal_length: f32,
    /// The length of force segments, m per N. Default: 0.001.
    pub force_scale: f32,
    /// The length of frame axes and the radius of limit arcs, m. Default: 0.25.
    pub frame_size: f32,
    /// The side of the square a plane is drawn as, m. Default: 20.
    pub plane_size: f32,
    /// The colours.
    pub palette: ImpDebugPalette,
    /// Set by `imp_default_debug_draw_options()`; checked by `imp_world_debug_draw`. Do
    /// not touch.
    pub internal_value: u32,
}

// SAFETY: a repr(C) struct of numbers, bools and structs of numbers: all-zero bytes are
// valid.
unsafe impl Def for ImpDebugDrawOptions {
    const COOKIE: u32 = 0x1e70_0005;
    const NAME: &'static str = "ImpDebugDrawOptions";
    fn cookie(p: *const Self) -> *const u32 {
        // SAFETY: only the field's address is computed (no read) from a non-null pointer.
        unsafe { std::ptr::addr_of!((*p).internal_value) }
    }
}

/// Debug draw options with every default filled in: the shapes and joints of every body,
/// everywhere.
#[no_mangle]
pub extern "C" fn imp_default_debug_draw_options() -> ImpDebugDrawOptions {
    crate::or_refused(|| options_from(&DebugDrawOptions::default()))
}

fn options_from(o: &DebugDrawOptions) -> ImpDebugDrawOptions {
    ImpDebugDrawOptions {
        shapes: o.shapes,
        aabbs: o.aabbs,
        centers_of_mass: o.centers_of_mass,
        labels: o.labels,
        contact_points: o.contact_points,
        contact_normals: o.contact_normals,
        contact_forces: o.contact_forces,
        joints: o.joints,
        joint_limits: o.joint_limits,
        islands: o.islands,
        awake: o.awake,
        sleeping: o.sleeping,
        static_bodies: o.static_bodies,
        kinematic: o.kinematic,
        use_region: o.region.is_some(),
        region: o.region.map_or(ImpAabb::default(), |r| ImpAabb {
            min: r.min.into(),
            max: r.max.into(),
        }),
        point_size: o.point_size,
        normal_length: o.normal_length,
        force_scale: o.force_scale,
        frame_size: o.frame_size,
        plane_size: o.plane_size,
        palette: o.palette.into(),
        internal_value: ImpDebugDrawOptions::COOKIE,
    }
}

impl From<&ImpDebugDrawOptions> for DebugDrawOptions {
    fn from(o: &ImpDebugDrawOptions) -> DebugDrawOptions {
        DebugDrawOptions {
            shapes: o.shapes,
            aabbs: o.aabbs,
            centers_of_mass: o.centers_of_mass,
            labels: o.labels,
            contact_points: o.contact_points,
            contact_normals: o.contact_normals,
            contact_forces: o.contact_forces,
            joints: o.joints,
            joint_limits: o.joint_limits,
            islands: o.islands,
            awake: o.awake,
            sleeping: o.sleeping,
            static_bodies: o.static_bodies,
            kinematic: o.kinematic,
            region: o.use_region.then(|| Aabb {
                min: o.region.min.into(),
                max: o.region.max.into(),
            }),
            point_size: o.point_size,
            normal_length: o.normal_length,
            force_scale: o.force_scale,
            frame_size: o.frame_size,
            plane_size: o.plane_size,
            palette: o.palette.into(),
        }
    }
}

/// The host's functions as the engine's drawer: a null function falls back to lines.
struct Host<'a>(&'a ImpDebugDraw);

impl DebugDraw for Host<'_> {
    fn line(&mut self, a: Vec3, b: Vec3, color: Rgba) {
        if let Some(f) = self.0.draw_line {
            // SAFETY: the host registered `f` with this context, to be called with two
            // points and a colour.
            unsafe { f(a.into(), b.into(), color.into(), self.0.context) }
        }
    }

    fn point(&mut self, position: Vec3, size: f32, color: Rgba) {
        match self.0.draw_point {
            // SAFETY: as for `line`.
            Some(f) => unsafe { f(position.into(), size, color.into(), self.0.context) },
            None => lines::point(self, position, size, color),
        }
    }

    fn oriented_box(&mut self, transform: &Transform, half_extents: Vec3, color: Rgba) {
        match self.0.draw_box {
            // SAFETY: as for `line`.
            Some(f) => unsafe {
                f(
                    (*transform).into(),
                    half_extents.into(),
                    color.into(),
                    self.0.context,
                )
            },
            None => lines::oriented_box(self, transform, half_extents, color),
        }
    }

    fn sphere(&mut self, transform: &Transform, radius: f32, color: Rgba) {
        match self.0.draw_sphere {
            // SAFETY: as for `line`.
            Some(f) => unsafe { f((*transform).into(), radius, color.into(), self.0.context) },
            None => lines::sphere(self, transform, radius, color),
        }
    }

    fn capsule(&mut self, transform: &Transform, half_height: f32, radius: f32, color: Rgba) {
        match self.0.draw_capsule {
            // SAFETY: as for `line`.
            Some(f) => unsafe {
                f(
                    (*transform).into(),
                    half_height,
                    radius,
                    color.into(),
                    self.0.context,
                )
            },
            None => lines::capsule(self, transform, half_height, radius, color),
        }
    }

    fn polygon(&mut self, vertices: &[Vec3], color: Rgba) {
        // The world's polygons are hull faces (at most MAX_HULL_VERTICES vertices),
        // triangles and squares: they fit the buffer on the stack.
        match self.0.draw_polygon {
            Some(f) if vertices.len() <= MAX_HULL_VERTICES => {
                let mut buffer = [ImpVec3::default(); MAX_HULL_VERTICES];
                for (b, &v) in buffer.iter_mut().zip(vertices) {
                    *b = v.into();
                }
                // SAFETY: as for `line`; the array holds `vertices.len()` initialised
                // points and outlives the call.
                unsafe {
                    f(
                        buffer.as_ptr(),
                        vertices.len() as u32,
                        color.into(),
                        self.0.context,
                    )
                }
            }
            _ => lines::polygon(self, vertices, color),
        }
    }

    fn triangle(&mut self, a: Vec3, b: Vec3, c: Vec3, color: Rgba) {
        match self.0.draw_triangle {
            // SAFETY: as for `line`.
            Some(f) => unsafe { f(a.into(), b.into(), c.into(), color.into(), self.0.context) },
            None => self.polygon(&[a, b, c], color),
        }
    }

    fn frame(&mut self, transform: &Transform, size: f32) {
        match self.0.draw_frame {
            // SAFETY: as for `line`.
            Some(f) => unsafe { f((*transform).into(), size, self.0.context) },
            None => lines::frame(self, transform, size),
        }
    }

    fn text(&mut self, position: Vec3, text: &str, color: Rgba) {
        let Some(f) = self.0.draw_text else {
            return;
        };
        // The world's labels are short ASCII: copied, truncated if need be, with the NUL.
        let mut buffer = [0u8; 64];
        let n = text.len().min(buffer.len() - 1);
        buffer[..n].copy_from_slice(&text.as_bytes()[..n]);
        // SAFETY: as for `line`; the buffer is NUL-terminated and outlives the call.
        unsafe {
            f(
                position.into(),
                buffer.as_ptr().cast(),
                color.into(),
                self.0.context,
            )
        }
    }
}

/// Draws the world through the host's functions in `draw` (which must not be null), as
/// `options` choose (null: `imp_default_debug_draw_options()`). The functions run during
/// the call and must not call into this world.
///
/// Errors: a null `draw` (`IMP_ERR_NULL_POINTER`); options that did not come from
/// `imp_default_debug_draw_options()` (`IMP_ERR_BAD_DEF`); a non-finite or inverted
/// `region` with `use_region`, a negative or non-finite size, a non-finite colour
/// (`IMP_ERR_INVALID_INPUT`, naming the field; nothing is drawn).
#[no_mangle]
pub unsafe extern "C" fn imp_world_debug_draw(
    world: ImpWorldId,
    draw: *const ImpDebugDraw,
    options: *const ImpDebugDrawOptions,
) -> ImpStatus {
    guard(|| {
        if draw.is_null() {
            return Err(Fail::null("draw"));
        }
        // SAFETY: non-null and valid by the caller's contract; a plain-data copy.
        let draw = unsafe { *draw };
        let options = if options.is_null() {
            DebugDrawOptions::default()
        } else {
            // SAFETY: the caller's contract: a non-null `options` points to an
            // ImpDebugDrawOptions.
            DebugDrawOptions::from(unsafe { crate::def(options, "options") }?)
        };
        with_world(world, |w| Ok(w.debug_draw(&mut Host(&draw), &options)?))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_convert_both_ways() {
        let engine = DebugDrawOptions {
            region: Some(Aabb {
                min: Vec3::new(-1.0, -2.0, -3.0),
                max: Vec3::new(1.0, 2.0, 3.0),
            }),
            ..DebugDrawOptions::everything()
        };
        let c = options_from(&engine);
        assert!(c.use_region && c.labels && c.islands);
        assert_eq!(DebugDrawOptions::from(&c), engine);
        let d = imp_default_debug_draw_options();
        assert_eq!(DebugDrawOptions::from(&d), DebugDrawOptions::default());
        assert_eq!(d.internal_value, ImpDebugDrawOptions::COOKIE);
    }
}
