//! Bodies: creating and removing them, their mass from their shapes, and reading and
//! changing them between steps.

use super::World;
use crate::body::{check_damping, BodyDef, BodyType};
use crate::error::Error;
use crate::id::{BodyId, ShapeId};
use crate::math::{is_finite3, Transform};
use crate::shape::{MassProperties, Shape, ShapeDef};
use glam::{Quat, Vec3};

/// `Ok` if every component of `v` is finite, else an error naming `field`.
pub(super) fn check_vec(field: &'static str, v: Vec3) -> Result<(), Error> {
    if is_finite3(v) {
        Ok(())
    } else {
        Err(Error::invalid(field, "must be finite"))
    }
}

/// The error of a force or impulse whose moment about the body overflows.
fn lever_error() -> Error {
    Error::invalid(
        "point",
        "is so far from the body that the moment of the force overflows",
    )
}

/// The error of an impulse so large that the velocity it gives overflows or passes the
/// speed a host may set ([`MAX_SPEED`](crate::body::MAX_SPEED), 1e9 m/s or rad/s a
/// component: beyond it a change of the body's mass frame overflowed its velocity).
fn overflow_error(field: &'static str) -> Error {
    Error::invalid(
        field,
        "is so large that the velocity it gives passes 1e9 (m/s or rad/s) or overflows",
    )
}

/// `Ok` if `v` is a velocity a host may set, else [`overflow_error`].
fn check_impulse_result(field: &'static str, v: Vec3) -> Result<(), Error> {
    crate::body::check_speed(field, v).map_err(|_| overflow_error(field))
}

impl World {
    /// Creates a body. It has no shapes yet; a dynamic body without shapes weighs 1 kg.
    pub fn create_body(&mut self, def: &BodyDef) -> Result<BodyId, Error> {
        def.validate()?;
        let (index, generation, _) = self.body_pool.alloc();
        self.bodies.put(index as usize, def);
        self.island_add_body(index as usize);
        self.structure += 1;
        Ok(BodyId { index, generation })
    }

    /// Removes a body with its shapes, contacts and joints.
    pub fn remove_body(&mut self, id: BodyId) -> Result<(), Error> {
        let i = self.body_index(id)?;
        while let Some(&j) = self.joints.of_body.get(i).and_then(|l| l.last()) {
            self.remove_joint_slot(j as usize);
        }
        self.remove_body_springs(i);
        let shapes = std::mem::take(&mut self.bodies.shapes[i]);
        for s in shapes {
            self.detach_shape(s.index);
        }
        self.island_remove_body(i);
        self.bodies.body_type[i] = BodyType::Static;
        self.bodies.awake[i] = false;
        self.body_pool.release(id.index);
        self.structure += 1;
        Ok(())
    }

    /// Live bodies, in slot order.
    pub fn bodies(&self) -> impl Iterator<Item = BodyId> + '_ {
        (0..self.body_pool.capacity()).filter_map(|i| self.live_id(i))
    }

    /// Number of live bodies (of every type).
    pub fn body_count(&self) -> usize {
        self.body_pool.live()
    }

    /// Every live body's origin ([`World::body_position`]) in slot order, the order of
    /// [`World::bodies`], one row a body: a bulk read for hosts that copy the whole column
    /// each frame (one pass over the body store, no id lookups). `out` must have
    /// [`World::body_count`] rows, else an `Err` naming `out`.
    pub fn body_positions_into(&self, out: &mut [[f32; 3]]) -> Result<(), Error> {
        if out.len() != self.body_pool.live() {
            return Err(Error::invalid("out", "must have one row per live body"));
        }
        let live = (0..self.body_pool.capacity()).filter(|&i| self.body_pool.is_alive(i));
        for (row, i) in out.iter_mut().zip(live) {
            *row = self.bodies.origin(i).p.to_array();
        }
        Ok(())
    }

    /// Every live body's orientation ([`World::body_rotation`], `[x, y, z, w]`) in slot
    /// order, as [`World::body_positions_into`] reads positions. `out` must have
    /// [`World::body_count`] rows, else an `Err` naming `out`.
    pub fn body_rotations_into(&self, out: &mut [[f32; 4]]) -> Result<(), Error> {
        if out.len() != self.body_pool.live() {
            return Err(Error::invalid("out", "must have one row per live body"));
        }
        let live = (0..self.body_pool.capacity()).filter(|&i| self.body_pool.is_alive(i));
        for (row, i) in out.iter_mut().zip(live) {
            *row = self.bodies.origin(i).q.to_array();
        }
        Ok(())
    }

    /// Whether `id` refers to a live body.
    pub fn contains_body(&self, id: BodyId) -> bool {
        self.body_index(id).is_ok()
    }

    /// The body's type.
    pub fn body_type(&self, id: BodyId) -> Result<BodyType, Error> {
        Ok(self.bodies.body_type[self.body_index(id)?])
    }

    /// World position of the body origin, in m (the centre of mass while every shape sits
    /// at the origin; see [`World::body_center_of_mass`]).
    pub fn body_position(&self, id: BodyId) -> Result<Vec3, Error> {
        Ok(self.bodies.origin(self.body_index(id)?).p)
    }

    /// World orientation of the body frame.
    pub fn body_rotation(&self, id: BodyId) -> Result<Quat, Error> {
        Ok(self.bodies.origin(self.body_index(id)?).q)
    }

    /// World pose of the body frame (what its shapes' local poses are relative to).
    pub fn body_transform(&self, id: BodyId) -> Result<Transform, Error> {
        Ok(self.bodies.origin(self.body_index(id)?))
    }

    /// World position of the body's centre of mass, in m.
    pub fn body_center_of_mass(&self, id: BodyId) -> Result<Vec3, Error> {
        Ok(self.bodies.position[self.body_index(id)?])
    }

    /// The body's mass frame in its own frame: the centre of mass (translation) and the
    /// principal axes of inertia (rotation) that [`World::body_mass_properties`]' moments are
    /// about. The identity unless a dynamic body has shapes off its origin
    /// ([`ShapeDef::local_pose`](crate::ShapeDef)).
    pub fn body_local_center_of_mass(&self, id: BodyId) -> Result<Transform, Error> {
        Ok(self.bodies.frame[self.body_index(id)?])
    }

    /// Teleports a body. Contacts are recomputed at the next step.
    pub fn set_body_transform(
        &mut self,
        id: BodyId,
        position: Vec3,
        rotation: Quat,
    ) -> Result<(), Error> {
        let i = self.body_index(id)?;
        check_vec("position", position)?;
        if !rotation.is_finite() || !(1.0e-12..=f32::MAX).contains(&rotation.length_squared()) {
            return Err(Error::invalid(
                "rotation",
                "must be a finite, non-zero quaternion",
            ));
        }
        self.bodies
            .set_origin(i, &Transform::new(position, rotation.normalize()));
        self.refit_body(i);
        self.wake_body(i);
        Ok(())
    }

    /// Linear velocity of the centre of mass, in m/s.
    pub fn body_linear_velocity(&self, id: BodyId) -> Result<Vec3, Error> {
        Ok(self.bodies.linear_velocity[self.body_index(id)?])
    }

    /// Angular velocity, in rad/s (world frame).
    pub fn body_angular_velocity(&self, id: BodyId) -> Result<Vec3, Error> {
        Ok(self.bodies.angular_velocity[self.body_index(id)?])
    }

    /// Sets the linear velocity (dynamic and kinematic bodies), in m/s.
    pub fn set_body_linear_velocity(&mut self, id: BodyId, v: Vec3) -> Result<(), Error> {
        let i = self.movable_index(id, "setting the velocity of a static body")?;
        crate::body::check_speed("linear_velocity", v)?;
        self.bodies.linear_velocity[i] = v;
        self.wake_body(i);
        Ok(())
    }

    /// Sets the angular velocity (dynamic and kinematic bodies), in rad/s.
    pub fn set_body_angular_velocity(&mut self, id: BodyId, w: Vec3) -> Result<(), Error> {
        let i = self.movable_index(id, "setting the velocity of a static body")?;
        crate::body::check_speed("angular_velocity", w)?;
        self.bodies.angular_velocity[i] = w;
        self.wake_body(i);
        Ok(())
    }

    /// Adds a force (N) acting at a world point (m) for the next step.
    pub fn apply_force(&mut self, id: BodyId, force: Vec3, point: Vec3) -> Result<(), Error> {
        let i = self.dynamic_index(id, "forces act on dynamic bodies only")?;
        check_vec("force", force)?;
        check_vec("point", point)?;
        // A finite force far from the body can still make an infinite torque.
        let torque = (point - self.bodies.position[i]).cross(force);
        check_vec("point", torque).map_err(|_| lever_error())?;
        self.bodies.force[i] += force;
        self.bodies.torque[i] += torque;
        self.wake_body(i);
        Ok(())
    }

    /// Adds a force (N) at the centre of mass for the next step.
    pub fn apply_force_to_center(&mut self, id: BodyId, force: Vec3) -> Result<(), Error> {
        let i = self.dynamic_index(id, "forces act on dynamic bodies only")?;
        check_vec("force", force)?;
        self.bodies.force[i] += force;
        self.wake_body(i);
        Ok(())
    }

    /// Adds a torque (N·m) for the next step.
    pub fn apply_torque(&mut self, id: BodyId, torque: Vec3) -> Result<(), Error> {
        let i = self.dynamic_index(id, "torques act on dynamic bodies only")?;
        check_vec("torque", torque)?;
        self.bodies.torque[i] += torque;
        self.wake_body(i);
        Ok(())
    }

    /// Applies an impulse (N·s) at a world point (m): changes the velocity at once.
    pub fn apply_linear_impulse(
        &mut self,
        id: BodyId,
        impulse: Vec3,
        point: Vec3,
    ) -> Result<(), Error> {
        let i = self.dynamic_index(id, "impulses act on dynamic bodies only")?;
        check_vec("impulse", impulse)?;
        check_vec("point", point)?;
        let b = &mut self.bodies;
        let r = point - b.position[i];
        let w = b.angular_velocity[i] + b.world_inv_inertia(i) * r.cross(impulse);
        // A finite impulse far from the body can still make an infinite spin.
        check_vec("point", w).map_err(|_| lever_error())?;
        check_impulse_result("impulse", w)?;
        let v = b.linear_velocity[i] + b.inv_mass[i] * impulse;
        check_impulse_result("impulse", v)?;
        b.linear_velocity[i] = v;
        b.angular_velocity[i] = w;
        self.wake_body(i);
        Ok(())
    }

    /// Applies an angular impulse (N·m·s).
    pub fn apply_angular_impulse(&mut self, id: BodyId, impulse: Vec3) -> Result<(), Error> {
        let i = self.dynamic_index(id, "impulses act on dynamic bodies only")?;
        check_vec("impulse", impulse)?;
        let b = &mut self.bodies;
        let w = b.angular_velocity[i] + b.world_inv_inertia(i) * impulse;
        check_impulse_result("impulse", w)?;
        b.angular_velocity[i] = w;
        self.wake_body(i);
        Ok(())
    }

    /// Mass (kg) and principal inertia (kg·m², about the axes of
    /// [`World::body_local_center_of_mass`]); zero for static and kinematic bodies.
    pub fn body_mass_properties(&self, id: BodyId) -> Result<MassProperties, Error> {
        let i = self.body_index(id)?;
        Ok(MassProperties {
            mass: self.bodies.mass[i],
            inertia: self.bodies.inertia[i],
        })
    }

    /// Overrides a dynamic body's mass and principal inertia; its shapes no longer change
    /// them. Mass and every moment must be finite and positive.
    pub fn set_body_mass_properties(
        &mut self,
        id: BodyId,
        mp: MassProperties,
    ) -> Result<(), Error> {
        let i = self.dynamic_index(id, "only dynamic bodies have mass")?;
        if !invertible(mp.mass) {
            return Err(Error::invalid(
                "MassProperties::mass",
                "must be finite and positive, with a finite inverse",
            ));
        }
        if !mp.inertia.to_array().into_iter().all(invertible) {
            return Err(Error::invalid(
                "MassProperties::inertia",
                "each moment must be finite and positive, with a finite inverse",
            ));
        }
        self.bodies.set_mass(i, mp.mass, mp.inertia);
        self.bodies.mass_override[i] = true;
        self.wake_body(i);
        self.structure += 1;
        Ok(())
    }

    /// Sets the multiplier on world gravity.
    pub fn set_body_gravity_scale(&mut self, id: BodyId, scale: f32) -> Result<(), Error> {
        let i = self.body_index(id)?;
        if !scale.is_finite() {
            return Err(Error::invalid("gravity_scale", "must be finite"));
        }
        self.bodies.gravity_scale[i] = scale;
        self.wake_body(i);
        self.structure += 1;
        Ok(())
    }

    /// Sets linear and angular damping (1/s).
    pub fn set_body_damping(&mut self, id: BodyId, linear: f32, angular: f32) -> Result<(), Error> {
        let i = self.body_index(id)?;
        check_damping("linear_damping", linear)?;
        check_damping("angular_damping", angular)?;
        self.bodies.linear_damping[i] = linear;
        self.bodies.angular_damping[i] = angular;
        self.structure += 1;
        Ok(())
    }

    /// Whether the body is awake: dynamic bodies in an awake island, and every kinematic
    /// body. Static bodies are never awake.
    pub fn body_is_awake(&self, id: BodyId) -> Result<bool, Error> {
        Ok(self.bodies.awake[self.body_index(id)?])
    }

    /// Wakes a dynamic body with its island (`true`), or puts its whole island to sleep
    /// at once (`false`; its bodies stop). Static and kinematic bodies: nothing to do.
    pub fn set_body_awake(&mut self, id: BodyId, awake: bool) -> Result<(), Error> {
        let i = self.body_index(id)?;
        let island = self.bodies.island[i];
        if island == crate::id::NULL {
            return Ok(());
        }
        if awake {
            self.wake_body(i);
        } else {
            self.put_island_to_sleep(island);
            self.release_sleeping_colors();
        }
        Ok(())
    }

    /// The host's value stored with the body.
    pub fn body_user_data(&self, id: BodyId) -> Result<u64, Error> {
        Ok(self.bodies.user_data[self.body_index(id)?])
    }

    /// The shapes attached to a body.
    pub fn body_shapes(&self, id: BodyId) -> Result<&[ShapeId], Error> {
        Ok(&self.bodies.shapes[self.body_index(id)?])
    }

    fn movable_index(&self, id: BodyId, what: &'static str) -> Result<usize, Error> {
        let i = self.body_index(id)?;
        if self.bodies.body_type[i] == BodyType::Static {
            return Err(Error::Unsupported { what });
        }
        Ok(i)
    }

    fn dynamic_index(&self, id: BodyId, what: &'static str) -> Result<usize, Error> {
        let i = self.body_index(id)?;
        if self.bodies.body_type[i] != BodyType::Dynamic {
            return Err(Error::Unsupported { what });
        }
        Ok(i)
    }

    /// The id of the body slot `index` if it holds a live body.
    pub(super) fn live_id(&self, index: usize) -> Option<BodyId> {
        self.body_pool.is_alive(index).then(|| BodyId {
            index: index as u32,
            generation: self.body_pool.generation(index),
        })
    }

    /// The mass properties of one shape (its own centre and axes) for the body's sums.
    fn shape_part(shape: &Shape, density: f32, inner: f32) -> MassProperties {
        match *shape {
            Shape::Sphere { radius } if inner > 0.0 => {
                crate::shape::hollow_sphere_mass(radius, inner, density)
            }
            _ => shape.mass_properties(density),
        }
    }

    /// Total mass of body `b`'s shapes, plus `extra` if given.
    pub(super) fn shape_mass(&self, b: usize, extra: Option<&ShapeDef>) -> f32 {
        let part =
            |shape: &Shape, density: f32, inner: f32| Self::shape_part(shape, density, inner).mass;
        let mut mass = 0.0;
        for s in &self.bodies.shapes[b] {
            let d = &self.shapes.data[s.index as usize];
            mass += part(&d.shape, d.density, d.inner_radius);
        }
        if let Some(def) = extra {
            mass += part(&def.shape, def.density, def.inner_radius);
        }
        mass
    }

    /// Mass, principal moments and mass frame of body `b`'s shapes at their local poses
    /// (`None` without mass).
    fn compound_mass(&self, b: usize) -> Option<(MassProperties, Transform)> {
        let parts = self.bodies.shapes[b].iter().map(|s| {
            let d = &self.shapes.data[s.index as usize];
            (
                Self::shape_part(&d.shape, d.density, d.inner_radius),
                self.shapes.local_pose(s.index as usize),
            )
        });
        crate::shape::combine_mass(parts)
    }

    /// The mass properties and mass frame of body `b`'s shapes with the shape of `def`
    /// added, and that shape's own part.
    fn compound_mass_with(
        &self,
        b: usize,
        def: &ShapeDef,
    ) -> (MassProperties, Option<(MassProperties, Transform)>) {
        let local_pose = Transform::new(def.local_pose.p, def.local_pose.q.normalize());
        let extra = Self::shape_part(&def.shape, def.density, def.inner_radius);
        let parts = self.bodies.shapes[b]
            .iter()
            .map(|s| {
                let d = &self.shapes.data[s.index as usize];
                (
                    Self::shape_part(&d.shape, d.density, d.inner_radius),
                    self.shapes.local_pose(s.index as usize),
                )
            })
            .chain(std::iter::once((extra, local_pose)));
        (extra, crate::shape::combine_mass(parts))
    }

    /// Whether body `b`'s mass and inertia stay finite with the shape of `def` added.
    pub(super) fn compound_mass_is_finite(&self, b: usize, def: &ShapeDef) -> bool {
        let (extra, combined) = self.compound_mass_with(b, def);
        // (The eigen solver turns an infinite tensor into NaN axes and clamped moments.)
        extra.mass.is_finite()
            && is_finite3(extra.inertia)
            && combined.is_none_or(|(mp, frame)| {
                mp.mass.is_finite()
                    && is_finite3(mp.inertia)
                    && is_finite3(frame.p)
                    && frame.q.is_finite()
            })
    }

    /// Whether the shape of `def`, if it has mass, has a mass and principal moments with
    /// finite inverses (a subnormal moment would give the solver an infinite one), and so
    /// has body `b` with it added. Each massive shape is checked on its own so that any of
    /// them left after removals still gives the body finite inverses (the inertia of a
    /// sum is at least that of each part).
    pub(super) fn compound_mass_is_invertible(&self, b: usize, def: &ShapeDef) -> bool {
        let (extra, combined) = self.compound_mass_with(b, def);
        let ok = |mp: &MassProperties| {
            invertible(mp.mass) && mp.inertia.to_array().into_iter().all(invertible)
        };
        (extra.mass == 0.0 || ok(&extra)) && combined.is_none_or(|(mp, _)| ok(&mp))
    }

    /// Recomputes body `b`'s mass, inertia and mass frame from its shapes (unless the
    /// user set the mass), and the shapes' poses in that frame.
    pub(super) fn update_mass(&mut self, b: usize) {
        let dynamic = self.bodies.body_type[b] == BodyType::Dynamic;
        // A dynamic body simulates its mass frame (the identity, exactly, while every shape
        // sits at the body origin); every other body simulates its own frame.
        let combined = if dynamic { self.compound_mass(b) } else { None };
        let frame = combined.map_or(Transform::IDENTITY, |(_, f)| f);
        if frame != self.bodies.frame[b] {
            self.set_mass_frame(b, frame);
        }
        for s in &self.bodies.shapes[b] {
            let local_pose = self.shapes.local_pose(s.index as usize);
            let d = &mut self.shapes.data[s.index as usize];
            d.relative = if frame == Transform::IDENTITY {
                local_pose
            } else {
                frame.inv_mul(&local_pose)
            };
            d.offset = d.relative != Transform::IDENTITY;
            d.reach = crate::shape::store::ShapeData::reach_of(&d.shape, d.offset, &d.relative);
        }
        self.bodies.extent[b] = self.bodies.shapes[b]
            .iter()
            .map(|s| self.shapes.data[s.index as usize].reach())
            .fold(0.0, f32::max);
        self.contacts.forget_leads_of(b as u32);
        self.update_min_extent(b);
        if !dynamic || self.bodies.mass_override[b] {
            return;
        }
        match combined {
            Some((mp, _)) => self.bodies.set_mass(b, mp.mass, mp.inertia),
            None => self.bodies.set_mass(b, 1.0, Vec3::ONE),
        }
    }

    /// Moves body `b`'s mass frame to `frame` (in the body frame), keeping the body's
    /// pose and the world velocity of every point of it, and re-expressing its joints'
    /// frames in the new mass frame.
    fn set_mass_frame(&mut self, b: usize, frame: Transform) {
        let old = self.bodies.frame[b];
        let origin = self.bodies.origin(b);
        let old_center = self.bodies.position[b];
        if let Some(joints) = self.joints.of_body.get(b) {
            for &j in joints {
                let data = &mut self.joints.slots[j as usize];
                if data.body_a as usize == b {
                    data.def.frame_a = frame.inv_mul(&old.mul(&data.def.frame_a));
                }
                if data.body_b as usize == b {
                    data.def.frame_b = frame.inv_mul(&old.mul(&data.def.frame_b));
                }
            }
            self.joints.trees_dirty = true;
            self.joints.lists_dirty = true;
        }
        self.bodies.frame[b] = frame;
        self.bodies.set_origin(b, &origin);
        let w = self.bodies.angular_velocity[b];
        self.bodies.linear_velocity[b] += w.cross(self.bodies.position[b] - old_center);
    }

    #[inline]
    pub(crate) fn body_index(&self, id: BodyId) -> Result<usize, Error> {
        self.body_pool.check(id.index, id.generation, "BodyId")
    }
}

/// Whether `x` is a positive, finite mass or moment whose inverse is finite too (not
/// subnormal).
fn invertible(x: f32) -> bool {
    x.is_finite() && x > 0.0 && (1.0 / x).is_finite()
}
