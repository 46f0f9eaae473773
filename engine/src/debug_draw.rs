//! Debug drawing: the world's shapes, bounds, contacts, joints, centres of mass and islands,
//! handed to whatever draws for the host (an engine's gizmos, a line renderer, a recorder).
//!
//! A host implements [`DebugDraw`]: only [`DebugDraw::line`] is required. Every other
//! method has a default that breaks its primitive into lines (the functions of [`lines`]),
//! so a minimal host draws everything with segments and a richer one overrides what it can
//! draw better (solid boxes, spheres, filled polygons, text). [`World::debug_draw`](crate::World::debug_draw) walks
//! the world once per call and calls the drawer; [`DebugDrawOptions`] chooses what is
//! drawn, for which bodies, in which region and in which colours.
//!
//! ```
//! use impetus::{BodyDef, BodyType, DebugDraw, DebugDrawOptions, Rgba, ShapeDef, Vec3, World, WorldDef};
//!
//! /// A host that only draws segments.
//! struct Segments(Vec<(Vec3, Vec3, Rgba)>);
//!
//! impl DebugDraw for Segments {
//!     fn line(&mut self, a: Vec3, b: Vec3, color: Rgba) {
//!         self.0.push((a, b, color));
//!     }
//! }
//!
//! let mut world = World::new(WorldDef { worker_count: 1, ..Default::default() })?;
//! let ground = world.create_body(&BodyDef { body_type: BodyType::Static, ..Default::default() })?;
//! world.add_shape(ground, &ShapeDef::plane(Vec3::Y, 0.0))?;
//! let crate_ = world.create_body(&BodyDef { position: Vec3::new(0.0, 0.5, 0.0), ..Default::default() })?;
//! world.add_shape(crate_, &ShapeDef::cuboid(Vec3::splat(0.5)))?;
//! world.step(1.0 / 60.0)?;
//!
//! // The crate alone: its 12 edges.
//! let options = DebugDrawOptions { static_bodies: false, joints: false, ..Default::default() };
//! let mut segments = Segments(Vec::new());
//! world.debug_draw(&mut segments, &options)?;
//! assert_eq!(segments.0.len(), 12);
//! assert!(segments.0.iter().all(|&(a, b, _)| ((a - b).length() - 1.0).abs() < 1e-4));
//! # Ok::<(), impetus::Error>(())
//! ```
//!
//! # What is drawn
//!
//! - **Shapes** of the bodies the filters keep (awake dynamic, sleeping, static,
//!   kinematic), each in its body's class colour (sensors in their own): spheres, capsules
//!   and boxes through their methods; a hull as one [`DebugDraw::polygon`] per face (so its
//!   edges are drawn twice by the default outline); a plane as a square
//!   [`plane_size`](DebugDrawOptions::plane_size) across, centred where the plane is
//!   nearest the region's centre (or the body's origin), with its normal; meshes and
//!   height fields as [`DebugDraw::triangle`]s (only those that meet the region).
//! - **Bounds**: each drawn shape's tight bounding box at its pose (planes have none).
//! - **Centres of mass** of dynamic bodies as points, and **labels** (`body 3`,
//!   `joint 2`) through [`DebugDraw::text`].
//! - **Contacts** of touching pairs (sensors excluded), drawn when either body is kept:
//!   each manifold point, its normal and the normal force it carried in the last step, and
//!   the manifold's friction force at the points' centroid. A force is the last substep's
//!   impulse over the substep's length (the last step's `dt / substeps`): what held the
//!   bodies at the end of the step (a resting body's weight, shared among its points).
//!   Normals and forces point the way the contact pushes a dynamic body: body A's when A is
//!   dynamic, else body B's. A body resting on static or kinematic ground is always drawn
//!   pushed upward, whichever shape the engine calls A.
//! - **Joints** whose bodies are kept: both joint frames as axis triads ([`DebugDraw::frame`])
//!   and lines from each body's centre of mass to its frame (and between the frames when
//!   they are apart); with **limits**, a hinge's and a cone-twist's twist arc, a slider's
//!   travel, a cone's rim, a distance joint's shortest and longest lengths and a motor
//!   joint's target.
//! - **Islands** (sets of dynamic bodies solved and put to sleep together; none while sleep
//!   is off) as the bounding box of their bodies' shapes, awake and sleeping apart.
//!
//! # Region of interest
//!
//! With [`DebugDrawOptions::region`] set, only what meets that box is drawn: shapes come
//! from the broadphase's box query (not a walk over every shape) and are drawn when their
//! tight bounds meet the region (a plane when its half-space does); a body's centre of
//! mass and label go with its shapes. Contacts are found by a walk over the contact array
//! that reads the shapes' bounds column before any contact (no spatial index covers
//! contacts), and drawn point by point inside the region; joints when a frame lies inside;
//! islands when their box meets it.
//!
//! # Cost
//!
//! Nothing is allocated: hull faces are gathered in a buffer on the stack
//! ([`MAX_HULL_VERTICES`](crate::hull::MAX_HULL_VERTICES) vertices), labels are formatted
//! into one, and the walks are the world's own lists. `engine/tests/debug_draw.rs` checks
//! that a call after the first allocates nothing, with every option on.

use crate::error::Error;
use crate::math::{is_finite3, Aabb, Transform, MAX_LENGTH};
use glam::Vec3;

/// The segments of a full circle in the default decompositions: spheres, capsules and the
/// arcs of joint limits (an arc gets its share of them, at least one).
pub const CIRCLE_SEGMENTS: usize = 16;

/// A colour: red, green, blue and alpha (opacity), each nominally in [0, 1], not
/// premultiplied. The engine does no colour arithmetic: it hands the host the values of
/// the [`DebugPalette`] as they are, so they are in whatever space the host's drawing
/// takes (usually sRGB, as a colour picker gives them).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[repr(C)]
pub struct Rgba {
    /// Red, in [0, 1].
    pub r: f32,
    /// Green, in [0, 1].
    pub g: f32,
    /// Blue, in [0, 1].
    pub b: f32,
    /// Alpha (1 opaque), in [0, 1].
    pub a: f32,
}

impl Rgba {
    /// Opaque red: the x axis of a frame.
    pub const RED: Rgba = Rgba::rgb(0.9, 0.2, 0.2);
    /// Opaque green: the y axis of a frame.
    pub const GREEN: Rgba = Rgba::rgb(0.2, 0.9, 0.2);
    /// Opaque blue: the z axis of a frame.
    pub const BLUE: Rgba = Rgba::rgb(0.2, 0.4, 1.0);
    /// Opaque white.
    pub const WHITE: Rgba = Rgba::rgb(1.0, 1.0, 1.0);

    /// A colour from its four components.
    pub const fn new(r: f32, g: f32, b: f32, a: f32) -> Rgba {
        Rgba { r, g, b, a }
    }

    /// An opaque colour.
    pub const fn rgb(r: f32, g: f32, b: f32) -> Rgba {
        Rgba { r, g, b, a: 1.0 }
    }

    fn is_finite(&self) -> bool {
        self.r.is_finite() && self.g.is_finite() && self.b.is_finite() && self.a.is_finite()
    }
}

/// What a host draws with. Positions are world space, in m.
///
/// Only [`line`](DebugDraw::line) is required; the default of every other method draws
/// its primitive with lines (through the functions of [`lines`], which an override may
/// call too), except [`text`](DebugDraw::text), which draws nothing by default.
pub trait DebugDraw {
    /// A segment from `a` to `b`.
    fn line(&mut self, a: Vec3, b: Vec3, color: Rgba);

    /// A point `size` m across. Default: three segments `size` long along the world axes,
    /// crossing at `position`.
    fn point(&mut self, position: Vec3, size: f32, color: Rgba) {
        lines::point(self, position, size, color);
    }

    /// A box of `half_extents` (m, along its own axes) centred at `transform.p` and turned
    /// by `transform.q`. Default: its 12 edges.
    fn oriented_box(&mut self, transform: &Transform, half_extents: Vec3, color: Rgba) {
        lines::oriented_box(self, transform, half_extents, color);
    }

    /// A sphere of `radius` centred at `transform.p`; `transform.q` is its body's rotation
    /// (so a rolling ball's turn can show). Default: three great circles, about its local
    /// x, y and z axes, of [`CIRCLE_SEGMENTS`] segments each.
    fn sphere(&mut self, transform: &Transform, radius: f32, color: Rgba) {
        lines::sphere(self, transform, radius, color);
    }

    /// A capsule: the segment from `(0, -half_height, 0)` to `(0, half_height, 0)` in the
    /// frame of `transform`, swept by `radius`. Default: the two rim circles, four side
    /// lines and the two end caps' half circles in the local xy and zy planes.
    fn capsule(&mut self, transform: &Transform, half_height: f32, radius: f32, color: Rgba) {
        lines::capsule(self, transform, half_height, radius, color);
    }

    /// A convex polygon (a hull's face, a plane's patch), its vertices in order about its
    /// outward normal (counter-clockwise seen from outside). Valid during the call only.
    /// Default: its closed outline.
    fn polygon(&mut self, vertices: &[Vec3], color: Rgba) {
        lines::polygon(self, vertices, color);
    }

    /// A triangle of a mesh or height field, counter-clockwise about its face normal.
    /// Default: [`polygon`](DebugDraw::polygon) of its three corners.
    fn triangle(&mut self, a: Vec3, b: Vec3, c: Vec3, color: Rgba) {
        self.polygon(&[a, b, c], color);
    }

    /// A coordinate frame (a joint frame): its origin and axes, `size` m long. Default:
    /// three segments from `transform.p`, x in [`Rgba::RED`], y in [`Rgba::GREEN`], z in
    /// [`Rgba::BLUE`].
    fn frame(&mut self, transform: &Transform, size: f32) {
        lines::frame(self, transform, size);
    }

    /// A short label anchored at `position` (`body 3`, `joint 2`); `text` is valid during
    /// the call only. Default: nothing (text does not break into lines).
    fn text(&mut self, position: Vec3, text: &str, color: Rgba) {
        let _ = (position, text, color);
    }
}

/// The decompositions the [`DebugDraw`] defaults use: each draws one primitive with
/// [`DebugDraw::line`] calls only. An override may call them to draw some cases itself
/// and leave the others to lines.
pub mod lines {
    use super::{DebugDraw, Rgba, CIRCLE_SEGMENTS};
    use crate::math::Transform;
    use glam::Vec3;
    use std::f32::consts::{PI, TAU};

    /// Three segments `size` long along the world axes, crossing at `p`.
    pub fn point<D: DebugDraw + ?Sized>(draw: &mut D, p: Vec3, size: f32, color: Rgba) {
        let h = 0.5 * size;
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            draw.line(p - axis * h, p + axis * h, color);
        }
    }

    /// The 12 edges of a box, each from its corner with the lower coordinate along the
    /// edge's axis.
    pub fn oriented_box<D: DebugDraw + ?Sized>(
        draw: &mut D,
        transform: &Transform,
        half_extents: Vec3,
        color: Rgba,
    ) {
        let corner = |i: usize| {
            let sign = |bit: usize| if i & bit == 0 { -1.0 } else { 1.0 };
            transform.transform_point(half_extents * Vec3::new(sign(1), sign(2), sign(4)))
        };
        for bit in [1, 2, 4] {
            for i in (0..8).filter(|i| i & bit == 0) {
                draw.line(corner(i), corner(i | bit), color);
            }
        }
    }

    /// An arc about `center` from angle `from` to `to` (rad) of radius `radius` in the
    /// plane of the unit vectors `u` (angle 0) and `v` (angle π/2), with its share of
    /// [`CIRCLE_SEGMENTS`] (at least one segment).
    #[allow(clippy::too_many_arguments)]
    pub fn arc<D: DebugDraw + ?Sized>(
        draw: &mut D,
        center: Vec3,
        u: Vec3,
        v: Vec3,
        radius: f32,
        from: f32,
        to: f32,
        color: Rgba,
    ) {
        let share = ((to - from).abs() / TAU * CIRCLE_SEGMENTS as f32).ceil();
        let segments = (share as usize).clamp(1, CIRCLE_SEGMENTS);
        let at = |k: usize| {
            let angle = from + (to - from) * (k as f32 / segments as f32);
            let (sin, cos) = angle.sin_cos();
            center + (u * cos + v * sin) * radius
        };
        let mut last = at(0);
        for k in 1..=segments {
            let next = at(k);
            draw.line(last, next, color);
            last = next;
        }
    }

    /// Three great circles about the local x, y and z axes.
    pub fn sphere<D: DebugDraw + ?Sized>(
        draw: &mut D,
        transform: &Transform,
        radius: f32,
        color: Rgba,
    ) {
        let [x, y, z] = [Vec3::X, Vec3::Y, Vec3::Z].map(|a| transform.transform_vector(a));
        for (u, v) in [(y, z), (z, x), (x, y)] {
            arc(draw, transform.p, u, v, radius, 0.0, TAU, color);
        }
    }

    /// A capsule along the local y axis: two rim circles, four side lines, and each end
    /// cap's half circles in the local xy and zy planes.
    pub fn capsule<D: DebugDraw + ?Sized>(
        draw: &mut D,
        transform: &Transform,
        half_height: f32,
        radius: f32,
        color: Rgba,
    ) {
        let [x, y, z] = [Vec3::X, Vec3::Y, Vec3::Z].map(|a| transform.transform_vector(a));
        let top = transform.p + y * half_height;
        let bottom = transform.p - y * half_height;
        for end in [top, bottom] {
            arc(draw, end, x, z, radius, 0.0, TAU, color);
        }
        for side in [x, -x, z, -z] {
            draw.line(bottom + side * radius, top + side * radius, color);
        }
        for u in [x, z] {
            arc(draw, top, u, y, radius, 0.0, PI, color);
            arc(draw, bottom, u, y, radius, PI, TAU, color);
        }
    }

    /// The closed outline of a polygon (a single segment for two vertices, nothing for
    /// fewer).
    pub fn polygon<D: DebugDraw + ?Sized>(draw: &mut D, vertices: &[Vec3], color: Rgba) {
        match vertices.len() {
            0 | 1 => {}
            2 => draw.line(vertices[0], vertices[1], color),
            n => {
                for i in 0..n {
                    draw.line(vertices[i], vertices[(i + 1) % n], color);
                }
            }
        }
    }

    /// A frame's axes from its origin, `size` long: x red, y green, z blue.
    pub fn frame<D: DebugDraw + ?Sized>(draw: &mut D, transform: &Transform, size: f32) {
        for (axis, color) in [
            (Vec3::X, Rgba::RED),
            (Vec3::Y, Rgba::GREEN),
            (Vec3::Z, Rgba::BLUE),
        ] {
            let tip = transform.p + transform.transform_vector(axis) * size;
            draw.line(transform.p, tip, color);
        }
    }
}

/// The colours of [`World::debug_draw`](crate::World::debug_draw) (see [`Rgba`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DebugPalette {
    /// Shapes of awake dynamic bodies.
    pub awake: Rgba,
    /// Shapes of sleeping dynamic bodies.
    pub sleeping: Rgba,
    /// Shapes of static bodies.
    pub static_body: Rgba,
    /// Shapes of kinematic bodies.
    pub kinematic: Rgba,
    /// Sensor shapes, whatever their body.
    pub sensor: Rgba,
    /// Shape bounding boxes.
    pub aabb: Rgba,
    /// Centres of mass.
    pub center_of_mass: Rgba,
    /// Contact points.
    pub contact_point: Rgba,
    /// Contact normals.
    pub contact_normal: Rgba,
    /// Normal forces at contact points.
    pub contact_force: Rgba,
    /// Friction forces at manifold centres.
    pub friction_force: Rgba,
    /// Joint lines (bodies to frames, frame to frame).
    pub joint: Rgba,
    /// Joint limits and motor targets.
    pub joint_limits: Rgba,
    /// Boxes of awake islands.
    pub island_awake: Rgba,
    /// Boxes of sleeping islands.
    pub island_sleeping: Rgba,
    /// Labels.
    pub text: Rgba,
}

impl Default for DebugPalette {
    fn default() -> Self {
        DebugPalette {
            awake: Rgba::rgb(0.9, 0.7, 0.7),
            sleeping: Rgba::rgb(0.6, 0.6, 0.6),
            static_body: Rgba::rgb(0.5, 0.9, 0.5),
            kinematic: Rgba::rgb(0.5, 0.5, 0.9),
            sensor: Rgba::rgb(0.9, 0.9, 0.3),
            aabb: Rgba::rgb(0.9, 0.3, 0.9),
            center_of_mass: Rgba::WHITE,
            contact_point: Rgba::rgb(1.0, 0.3, 0.3),
            contact_normal: Rgba::rgb(0.9, 0.9, 0.3),
            contact_force: Rgba::rgb(0.9, 0.5, 0.1),
            friction_force: Rgba::rgb(0.3, 0.9, 0.9),
            joint: Rgba::rgb(0.5, 0.8, 0.8),
            joint_limits: Rgba::rgb(0.9, 0.5, 0.2),
            island_awake: Rgba::rgb(0.3, 0.6, 0.9),
            island_sleeping: Rgba::rgb(0.4, 0.4, 0.5),
            text: Rgba::WHITE,
        }
    }
}

impl DebugPalette {
    fn all(&self) -> [Rgba; 16] {
        [
            self.awake,
            self.sleeping,
            self.static_body,
            self.kinematic,
            self.sensor,
            self.aabb,
            self.center_of_mass,
            self.contact_point,
            self.contact_normal,
            self.contact_force,
            self.friction_force,
            self.joint,
            self.joint_limits,
            self.island_awake,
            self.island_sleeping,
            self.text,
        ]
    }
}

/// What [`World::debug_draw`](crate::World::debug_draw) draws, for which bodies, where,
/// at what size and in which colours. The default draws the shapes and joints of every
/// body, everywhere.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DebugDrawOptions {
    /// The shapes of the kept bodies. Default: true.
    pub shapes: bool,
    /// The tight bounding box of each shape of the kept bodies (whether or not `shapes` is
    /// on). Default: false.
    pub aabbs: bool,
    /// The centre of mass of each kept dynamic body, as a point. Default: false.
    pub centers_of_mass: bool,
    /// Labels through [`DebugDraw::text`]: `body <index>` at each kept body's centre of
    /// mass (its origin when not dynamic), `joint <index>` at each drawn joint's frame on
    /// A. Default: false.
    pub labels: bool,
    /// The points of touching contacts. Default: false.
    pub contact_points: bool,
    /// Their normals, [`normal_length`](Self::normal_length) long. Default: false.
    pub contact_normals: bool,
    /// The normal force at each of their points and each manifold's friction force in the
    /// last step (see the module documentation), as segments
    /// [`force_scale`](Self::force_scale) m per N long. Default: false.
    pub contact_forces: bool,
    /// Joint frames and the lines from the bodies to them. Default: true.
    pub joints: bool,
    /// Joint limits (arcs, travel, cones, lengths) and motor targets. Default: false.
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
    /// Draw only what meets this box (see the module documentation); `None` draws
    /// everywhere. Must be finite with `min <= max` on every axis. Default: `None`.
    pub region: Option<Aabb>,
    /// The size of points (contact points, centres of mass, distance limits), m. Default:
    /// 0.05.
    pub point_size: f32,
    /// The length of contact normals, m. Default: 0.25.
    pub normal_length: f32,
    /// The length of force segments per unit of force, m per N. Default: 0.001 (a 100 kg
    /// crate resting on four points draws each a quarter of a metre long).
    pub force_scale: f32,
    /// The length of joint frame axes and the radius of limit arcs and cones, m.
    /// Default: 0.25.
    pub frame_size: f32,
    /// The side of the square a plane is drawn as, m. Default: 20.
    pub plane_size: f32,
    /// The colours.
    pub palette: DebugPalette,
}

impl Default for DebugDrawOptions {
    fn default() -> Self {
        DebugDrawOptions {
            shapes: true,
            aabbs: false,
            centers_of_mass: false,
            labels: false,
            contact_points: false,
            contact_normals: false,
            contact_forces: false,
            joints: true,
            joint_limits: false,
            islands: false,
            awake: true,
            sleeping: true,
            static_bodies: true,
            kinematic: true,
            region: None,
            point_size: 0.05,
            normal_length: 0.25,
            force_scale: 0.001,
            frame_size: 0.25,
            plane_size: 20.0,
            palette: DebugPalette::default(),
        }
    }
}

impl DebugDrawOptions {
    /// Everything on (shapes, bounds, centres of mass, labels, contacts with normals and
    /// forces, joints with limits, islands), for every body; the other fields default.
    pub fn everything() -> Self {
        DebugDrawOptions {
            aabbs: true,
            centers_of_mass: true,
            labels: true,
            contact_points: true,
            contact_normals: true,
            contact_forces: true,
            joint_limits: true,
            islands: true,
            ..Default::default()
        }
    }

    /// Checks every field, naming the first bad one.
    pub fn validate(&self) -> Result<(), Error> {
        if let Some(r) = &self.region {
            if !is_finite3(r.min) || !is_finite3(r.max) {
                return Err(Error::invalid(
                    "DebugDrawOptions::region",
                    "must have finite corners",
                ));
            }
            if !r.min.cmple(r.max).all() {
                return Err(Error::invalid(
                    "DebugDrawOptions::region",
                    "min must not exceed max on any axis",
                ));
            }
        }
        for (field, v) in [
            ("DebugDrawOptions::point_size", self.point_size),
            ("DebugDrawOptions::normal_length", self.normal_length),
            ("DebugDrawOptions::frame_size", self.frame_size),
            ("DebugDrawOptions::plane_size", self.plane_size),
        ] {
            if !(0.0..=MAX_LENGTH).contains(&v) {
                return Err(Error::invalid(
                    field,
                    "must be finite, non-negative and at most 1e6 m",
                ));
            }
        }
        if !self.force_scale.is_finite() || self.force_scale < 0.0 {
            return Err(Error::invalid(
                "DebugDrawOptions::force_scale",
                "must be finite and non-negative",
            ));
        }
        if !self.palette.all().iter().all(Rgba::is_finite) {
            return Err(Error::invalid(
                "DebugDrawOptions::palette",
                "every colour component must be finite",
            ));
        }
        Ok(())
    }
}
