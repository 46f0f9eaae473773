//! [`World::debug_draw`]: the walk over the world's bodies, shapes, contacts, joints and
//! islands (see `crate::debug_draw` for what is drawn).

use super::World;
use crate::body::BodyType;
use crate::contact::SENSOR;
use crate::debug_draw::{DebugDraw, DebugDrawOptions, Rgba};
use crate::error::Error;
use crate::hull::MAX_HULL_VERTICES;
use crate::id::NULL;
use crate::joint::JointKind;
use crate::math::{perpendicular, Aabb, Transform};
use crate::shape::Shape;
use glam::{Quat, Vec3};
use std::f32::consts::TAU;
use std::fmt::Write;

/// What a body is, for the filters and the colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Static,
    Kinematic,
    Awake,
    Sleeping,
}

/// A label formatted on the stack (truncated at its capacity; labels are ASCII).
struct Label {
    bytes: [u8; 32],
    len: usize,
}

impl Label {
    fn new(args: std::fmt::Arguments<'_>) -> Label {
        let mut label = Label {
            bytes: [0; 32],
            len: 0,
        };
        // Writing to the buffer cannot fail: it truncates.
        let _ = label.write_fmt(args);
        label
    }

    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or("")
    }
}

impl Write for Label {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let n = s.len().min(self.bytes.len() - self.len);
        self.bytes[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

/// Whether `region` (if any) contains `p`.
#[inline]
fn inside(region: &Option<Aabb>, p: Vec3) -> bool {
    region
        .as_ref()
        .is_none_or(|r| p.cmpge(r.min).all() && p.cmple(r.max).all())
}

/// The box of `bb` as the centre-and-half-extents [`DebugDraw::oriented_box`] takes.
fn draw_aabb<D: DebugDraw + ?Sized>(draw: &mut D, bb: &Aabb, color: Rgba) {
    let center = (bb.min + bb.max) * 0.5;
    let half = (bb.max - bb.min) * 0.5;
    draw.oriented_box(&Transform::new(center, Quat::IDENTITY), half, color);
}

/// One call's walk: the world, the options, the drawer.
struct Walk<'a, D: DebugDraw + ?Sized> {
    world: &'a World,
    options: &'a DebugDrawOptions,
    draw: &'a mut D,
}

impl World {
    /// Draws the world through `draw` as `options` choose (see
    /// [`debug_draw`](crate::debug_draw) for what is drawn and in which order of calls).
    /// Reads the world only; allocates nothing.
    ///
    /// Errors: an option out of range (`InvalidInput` naming it: a non-finite or inverted
    /// [`region`](DebugDrawOptions::region), a negative or non-finite size, a non-finite
    /// colour). Nothing is drawn then.
    pub fn debug_draw<D: DebugDraw + ?Sized>(
        &self,
        draw: &mut D,
        options: &DebugDrawOptions,
    ) -> Result<(), Error> {
        options.validate()?;
        let mut walk = Walk {
            world: self,
            options,
            draw,
        };
        let o = options;
        if o.shapes || o.aabbs || o.centers_of_mass || o.labels {
            walk.bodies();
        }
        if o.contact_points || o.contact_normals || o.contact_forces {
            walk.contacts();
        }
        if o.joints || o.joint_limits || o.labels {
            walk.joints();
        }
        if o.islands {
            walk.islands();
        }
        Ok(())
    }
}

impl<D: DebugDraw + ?Sized> Walk<'_, D> {
    fn class(&self, b: usize) -> Class {
        let bodies = &self.world.bodies;
        match bodies.body_type[b] {
            BodyType::Static => Class::Static,
            BodyType::Kinematic => Class::Kinematic,
            BodyType::Dynamic if bodies.awake[b] => Class::Awake,
            BodyType::Dynamic => Class::Sleeping,
        }
    }

    fn keeps(&self, class: Class) -> bool {
        let o = self.options;
        match class {
            Class::Static => o.static_bodies,
            Class::Kinematic => o.kinematic,
            Class::Awake => o.awake,
            Class::Sleeping => o.sleeping,
        }
    }

    fn keeps_body(&self, b: u32) -> bool {
        b != NULL && self.keeps(self.class(b as usize))
    }

    fn color(&self, class: Class) -> Rgba {
        let p = &self.options.palette;
        match class {
            Class::Static => p.static_body,
            Class::Kinematic => p.kinematic,
            Class::Awake => p.awake,
            Class::Sleeping => p.sleeping,
        }
    }

    /// Shape slot `s`'s world pose.
    fn pose(&self, s: usize) -> Transform {
        let d = &self.world.shapes.data[s];
        d.pose(&self.world.bodies.transform(d.body as usize))
    }

    /// Whether shape slot `s` meets `region`: its tight bounds overlap it, or for a plane,
    /// its half-space holds a point of it.
    fn meets(&self, s: usize, region: &Aabb) -> bool {
        let xf = self.pose(s);
        match self.world.shapes.data[s].shape {
            Shape::Plane { normal, offset } => {
                let n = xf.q * normal;
                let lowest = Vec3::select(n.cmpge(Vec3::ZERO), region.min, region.max);
                n.dot(lowest - xf.p) <= offset
            }
            ref shape => shape.aabb(&xf).overlaps(region),
        }
    }

    /// The shapes (through the broadphase's box query when there is a region) and the
    /// bodies' centres of mass and labels.
    fn bodies(&mut self) {
        let world = self.world;
        match self.options.region {
            None => {
                for s in 0..world.shapes.pool.capacity() {
                    if world.shapes.pool.is_alive(s) {
                        let b = world.shapes.data[s].body;
                        if self.keeps_body(b) {
                            self.shape(s);
                        }
                    }
                }
                for b in 0..world.body_pool.capacity() {
                    if world.body_pool.is_alive(b) && self.keeps_body(b as u32) {
                        self.body(b);
                    }
                }
            }
            Some(region) => world.broadphase.query_aabb(&region, true, |slot| {
                let s = slot as usize;
                let b = world.shapes.data[s].body;
                if !self.keeps_body(b) || !self.meets(s, &region) {
                    return;
                }
                self.shape(s);
                // The body's extras go with the first of its shapes that meets the region.
                let first = world.bodies.shapes[b as usize]
                    .iter()
                    .map(|id| id.index as usize)
                    .find(|&t| t == s || self.meets(t, &region));
                if first == Some(s) {
                    self.body(b as usize);
                }
            }),
        }
    }

    /// Body slot `b`'s centre of mass and label.
    fn body(&mut self, b: usize) {
        let o = self.options;
        let bodies = &self.world.bodies;
        let dynamic = bodies.body_type[b] == BodyType::Dynamic;
        let center = if dynamic {
            bodies.position[b]
        } else {
            bodies.origin(b).p
        };
        if o.centers_of_mass && dynamic {
            self.draw
                .point(center, o.point_size, o.palette.center_of_mass);
        }
        if o.labels {
            let label = Label::new(format_args!("body {b}"));
            self.draw.text(center, label.as_str(), o.palette.text);
        }
    }

    /// Shape slot `s` and its bounds.
    fn shape(&mut self, s: usize) {
        let o = self.options;
        let world = self.world;
        let d = &world.shapes.data[s];
        let xf = self.pose(s);
        let color = if d.is_sensor {
            o.palette.sensor
        } else {
            self.color(self.class(d.body as usize))
        };
        if o.shapes {
            match d.shape {
                Shape::Sphere { radius } => self.draw.sphere(&xf, radius, color),
                Shape::Capsule {
                    half_height,
                    radius,
                } => self.draw.capsule(&xf, half_height, radius, color),
                Shape::Box { half_extents } => self.draw.oriented_box(&xf, half_extents, color),
                Shape::Hull { ref hull } => {
                    let mut corners = [Vec3::ZERO; MAX_HULL_VERTICES];
                    for f in 0..hull.faces().len() {
                        let polygon = hull.face_polygon(f);
                        let n = polygon.len().min(MAX_HULL_VERTICES);
                        for (c, &v) in corners.iter_mut().zip(&polygon[..n]) {
                            *c = xf.transform_point(hull.vertices()[v as usize]);
                        }
                        self.draw.polygon(&corners[..n], color);
                    }
                }
                Shape::Plane { normal, offset } => self.plane(&xf, normal, offset, color),
                Shape::Mesh { .. } | Shape::HeightField { .. } => {
                    let Some(triangles) = d.shape.triangles() else {
                        return;
                    };
                    let mut one = |t: u32| {
                        let [a, b, c] = triangles
                            .triangle(t)
                            .vertices
                            .map(|v| xf.transform_point(v));
                        self.draw.triangle(a, b, c, color);
                    };
                    match &o.region {
                        Some(region) => {
                            let local = crate::shape::local_aabb(region, &xf);
                            triangles.query_aabb(&local, one);
                        }
                        None => (0..triangles.triangle_count() as u32).for_each(&mut one),
                    }
                }
            }
        }
        if o.aabbs && !matches!(d.shape, Shape::Plane { .. }) {
            draw_aabb(self.draw, &d.shape.aabb(&xf), o.palette.aabb);
        }
    }

    /// A plane as a square `plane_size` across about the point of the plane nearest the
    /// region's centre (the shape's origin without a region), with its normal.
    fn plane(&mut self, xf: &Transform, normal: Vec3, offset: f32, color: Rgba) {
        let o = self.options;
        let n = xf.q * normal;
        let reference = o.region.map_or(xf.p, |r| (r.min + r.max) * 0.5);
        let center = reference - n * (n.dot(reference - xf.p) - offset);
        let u = perpendicular(n);
        let v = n.cross(u);
        let h = 0.5 * o.plane_size;
        let corners = [
            center + (u + v) * h,
            center + (v - u) * h,
            center - (u + v) * h,
            center + (u - v) * h,
        ];
        self.draw.polygon(&corners, color);
        self.draw
            .line(center, center + n * (0.1 * o.plane_size), color);
    }

    /// Touching contacts: points, normals and forces.
    fn contacts(&mut self) {
        let o = self.options;
        let world = self.world;
        // The solver keeps each contact's impulses of the last substep: over the
        // substep's length they are forces.
        let per_impulse = if world.last_dt > 0.0 {
            world.def.substeps as f32 / world.last_dt * o.force_scale
        } else {
            0.0
        };
        let store = &world.contacts;
        let bounds = &world.shapes.bounds;
        for k in 0..store.contacts.len() {
            let [ba, bb] = store.ends[k];
            if ba == NULL || !(self.keeps_body(ba) || self.keeps_body(bb)) {
                continue;
            }
            if let Some(r) = &o.region {
                let [sa, sb] = store.shapes[k];
                if !bounds[sa as usize].overlaps(r) && !bounds[sb as usize].overlaps(r) {
                    continue;
                }
            }
            let c = &store.contacts[k];
            if !c.alive || !c.touching || c.flags & SENSOR != 0 || c.manifold.count == 0 {
                continue;
            }
            // With the impulses the last step left in the solver (see `ContactStore::pending`).
            let m = world.contact_manifold(k);
            // The push on A (the normal points from A to B) when A is dynamic, else on B.
            let side = if world.bodies.body_type[c.body_a as usize] == BodyType::Dynamic {
                -1.0
            } else {
                1.0
            };
            let push = m.normal * side;
            let mut centroid = Vec3::ZERO;
            for p in m.points() {
                centroid += p.point;
                if !inside(&o.region, p.point) {
                    continue;
                }
                if o.contact_points {
                    self.draw
                        .point(p.point, o.point_size, o.palette.contact_point);
                }
                if o.contact_normals {
                    let tip = p.point + push * o.normal_length;
                    self.draw.line(p.point, tip, o.palette.contact_normal);
                }
                if o.contact_forces {
                    let tip = p.point + push * (p.normal_impulse * per_impulse);
                    self.draw.line(p.point, tip, o.palette.contact_force);
                }
            }
            centroid /= m.count as f32;
            if o.contact_forces && inside(&o.region, centroid) {
                let tip = centroid + m.friction_impulse * (side * per_impulse);
                self.draw.line(centroid, tip, o.palette.friction_force);
            }
        }
    }

    /// Joint frames, the lines from the bodies to them, limits and labels.
    fn joints(&mut self) {
        let o = self.options;
        let world = self.world;
        let bodies = &world.bodies;
        for j in 0..world.joints.pool.capacity() {
            if !world.joints.pool.is_alive(j) {
                continue;
            }
            let data = &world.joints.slots[j];
            if !self.keeps_body(data.body_a) && !self.keeps_body(data.body_b) {
                continue;
            }
            let (a, b) = (data.body_a as usize, data.body_b as usize);
            // The frames are kept in the bodies' mass frames, whose poses these are.
            let xa = bodies.transform(a).mul(&data.def.frame_a);
            let xb = bodies.transform(b).mul(&data.def.frame_b);
            if !inside(&o.region, xa.p) && !inside(&o.region, xb.p) {
                continue;
            }
            if o.joints {
                self.draw.frame(&xa, o.frame_size);
                self.draw.frame(&xb, o.frame_size);
                self.draw.line(bodies.position[a], xa.p, o.palette.joint);
                self.draw.line(bodies.position[b], xb.p, o.palette.joint);
                if xa.p != xb.p {
                    self.draw.line(xa.p, xb.p, o.palette.joint);
                }
            }
            if o.joint_limits {
                self.limits(&data.def.kind, &xa, &xb);
            }
            if o.labels {
                let label = Label::new(format_args!("joint {j}"));
                self.draw.text(xa.p, label.as_str(), o.palette.text);
            }
        }
    }

    /// The limits of a joint of `kind` with world frames `xa` and `xb`.
    fn limits(&mut self, kind: &JointKind, xa: &Transform, xb: &Transform) {
        let o = self.options;
        let color = o.palette.joint_limits;
        let r = o.frame_size;
        let [x, y, z] = [Vec3::X, Vec3::Y, Vec3::Z].map(|v| xa.transform_vector(v));
        // An angle range about A's z axis, measured from A's x axis towards its y axis (the
        // twist of B's frame relative to A's): the arc and its two bounding radii.
        let angles = |draw: &mut D, lower: f32, upper: f32| {
            crate::debug_draw::lines::arc(draw, xa.p, x, y, r, lower, upper, color);
            for angle in [lower, upper] {
                let (sin, cos) = angle.sin_cos();
                draw.line(xa.p, xa.p + (x * cos + y * sin) * r, color);
            }
        };
        match *kind {
            JointKind::Hinge {
                limits: Some(l), ..
            } => angles(self.draw, l.lower, l.upper),
            JointKind::Slider {
                limits: Some(l), ..
            } => {
                // Finite ends: an unbounded side is drawn `frame_size` past the frame.
                let lower = if l.lower.is_finite() { l.lower } else { -r };
                let upper = if l.upper.is_finite() { l.upper } else { r };
                let (lo, hi) = (xa.p + z * lower, xa.p + z * upper);
                self.draw.line(lo, hi, color);
                for end in [lo, hi] {
                    self.draw
                        .line(end - x * (0.25 * r), end + x * (0.25 * r), color);
                }
            }
            JointKind::ConeTwist { cone_angle, twist } => {
                let (sin, cos) = cone_angle.sin_cos();
                let rim = xa.p + z * (r * cos);
                crate::debug_draw::lines::arc(self.draw, rim, x, y, r * sin, 0.0, TAU, color);
                for k in 0..4 {
                    let (s, c) = (k as f32 * 0.25 * TAU).sin_cos();
                    self.draw
                        .line(xa.p, rim + (x * c + y * s) * (r * sin), color);
                }
                if let Some(l) = twist {
                    angles(self.draw, l.lower, l.upper);
                }
            }
            JointKind::Distance {
                min_length,
                max_length,
                ..
            } => {
                let dir = (xb.p - xa.p).try_normalize().unwrap_or(z);
                self.draw
                    .point(xa.p + dir * min_length, o.point_size, color);
                if max_length.is_finite() {
                    self.draw
                        .point(xa.p + dir * max_length, o.point_size, color);
                }
            }
            JointKind::Motor {
                linear_offset,
                angular_offset,
                ..
            } => {
                let target = xa.mul(&Transform::new(linear_offset, angular_offset));
                self.draw.point(target.p, o.point_size, color);
                self.draw.line(xb.p, target.p, color);
            }
            _ => {}
        }
    }

    /// Island boxes: the union of their bodies' shapes' tight bounds.
    fn islands(&mut self) {
        let o = self.options;
        let world = self.world;
        for island in &world.islands.list {
            if island.bodies.is_empty() {
                continue;
            }
            let class = if island.awake {
                Class::Awake
            } else {
                Class::Sleeping
            };
            if !self.keeps(class) {
                continue;
            }
            let mut bb = Aabb {
                min: Vec3::splat(f32::MAX),
                max: Vec3::splat(f32::MIN),
            };
            for &b in &island.bodies {
                let b = b as usize;
                bb.min = bb.min.min(world.bodies.position[b]);
                bb.max = bb.max.max(world.bodies.position[b]);
                for id in &world.bodies.shapes[b] {
                    let s = id.index as usize;
                    let shape_bb = world.shapes.data[s].shape.aabb(&self.pose(s));
                    bb.min = bb.min.min(shape_bb.min);
                    bb.max = bb.max.max(shape_bb.max);
                }
            }
            if o.region.is_some_and(|r| !bb.overlaps(&r)) {
                continue;
            }
            let color = if island.awake {
                o.palette.island_awake
            } else {
                o.palette.island_sleeping
            };
            draw_aabb(self.draw, &bb, color);
        }
    }
}
