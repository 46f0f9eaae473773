//! Reading and changing bodies between steps.

use super::World;
use crate::body::{check_damping, BodyType};
use crate::collision::ManifoldPoint;
use crate::contact::Contact;
use crate::error::Error;
use crate::id::{BodyId, ShapeId, SlotPool};
use crate::math::{is_finite3, Transform};
use crate::shape::{MassProperties, Shape};
use glam::{Quat, Vec3};

/// Two shapes that started or stopped touching (having at least one manifold point,
/// speculative points included). Shape A is the one the contact normal points away from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct ContactTouch {
    /// Shape A.
    pub shape_a: ShapeId,
    /// Shape B.
    pub shape_b: ShapeId,
    /// Body of shape A.
    pub body_a: BodyId,
    /// Body of shape B.
    pub body_b: BodyId,
}

impl ContactTouch {
    /// The record of contact `c`, with the ids its slots carry now.
    pub(crate) fn of(c: &Contact, shapes: &SlotPool, bodies: &SlotPool) -> Self {
        let shape_id = |s: u32| ShapeId {
            index: s,
            generation: shapes.generation(s as usize),
        };
        let body_id = |b: u32| BodyId {
            index: b,
            generation: bodies.generation(b as usize),
        };
        ContactTouch {
            shape_a: shape_id(c.shape_a),
            shape_b: shape_id(c.shape_b),
            body_a: body_id(c.body_a),
            body_b: body_id(c.body_b),
        }
    }
}

/// A touching contact, as seen from outside: the two shapes and their manifold.
#[derive(Clone, Copy, Debug)]
pub struct ContactView<'a> {
    /// Shape A (the normal points away from it).
    pub shape_a: ShapeId,
    /// Shape B.
    pub shape_b: ShapeId,
    /// Body of shape A.
    pub body_a: BodyId,
    /// Body of shape B.
    pub body_b: BodyId,
    /// World-space unit normal from A to B.
    pub normal: Vec3,
    /// The manifold points with their last impulses.
    pub points: &'a [ManifoldPoint],
}

fn check_vec(field: &'static str, v: Vec3) -> Result<(), Error> {
    if is_finite3(v) {
        Ok(())
    } else {
        Err(Error::invalid(field, "must be finite"))
    }
}

impl World {
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
    fn live_id(&self, index: usize) -> Option<BodyId> {
        self.body_pool.is_alive(index).then(|| BodyId {
            index: index as u32,
            generation: self.body_pool.generation(index),
        })
    }

    /// Live bodies, in slot order.
    pub fn bodies(&self) -> impl Iterator<Item = BodyId> + '_ {
        (0..self.body_pool.capacity()).filter_map(|i| self.live_id(i))
    }

    /// Number of live bodies (of every type).
    pub fn body_count(&self) -> usize {
        self.body_pool.live()
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
    /// at the origin; see [`World::center_of_mass`]).
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
    pub fn center_of_mass(&self, id: BodyId) -> Result<Vec3, Error> {
        Ok(self.bodies.position[self.body_index(id)?])
    }

    /// The body's mass frame in its own frame: the centre of mass (translation) and the
    /// principal axes of inertia (rotation) that [`World::mass_properties`]' moments are
    /// about. The identity unless a dynamic body has shapes off its origin
    /// ([`ShapeDef::local_pose`](crate::ShapeDef)).
    pub fn local_center_of_mass(&self, id: BodyId) -> Result<Transform, Error> {
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
        if !rotation.is_finite() || rotation.length_squared() < 1.0e-12 {
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
    pub fn linear_velocity(&self, id: BodyId) -> Result<Vec3, Error> {
        Ok(self.bodies.linear_velocity[self.body_index(id)?])
    }

    /// Angular velocity, in rad/s (world frame).
    pub fn angular_velocity(&self, id: BodyId) -> Result<Vec3, Error> {
        Ok(self.bodies.angular_velocity[self.body_index(id)?])
    }

    /// Sets the linear velocity (dynamic and kinematic bodies), in m/s.
    pub fn set_linear_velocity(&mut self, id: BodyId, v: Vec3) -> Result<(), Error> {
        let i = self.movable_index(id, "setting the velocity of a static body")?;
        check_vec("linear_velocity", v)?;
        self.bodies.linear_velocity[i] = v;
        self.wake_body(i);
        Ok(())
    }

    /// Sets the angular velocity (dynamic and kinematic bodies), in rad/s.
    pub fn set_angular_velocity(&mut self, id: BodyId, w: Vec3) -> Result<(), Error> {
        let i = self.movable_index(id, "setting the velocity of a static body")?;
        check_vec("angular_velocity", w)?;
        self.bodies.angular_velocity[i] = w;
        self.wake_body(i);
        Ok(())
    }

    /// Adds a force (N) acting at a world point (m) for the next step.
    pub fn apply_force(&mut self, id: BodyId, force: Vec3, point: Vec3) -> Result<(), Error> {
        let i = self.dynamic_index(id, "forces act on dynamic bodies only")?;
        check_vec("force", force)?;
        check_vec("point", point)?;
        self.bodies.force[i] += force;
        self.bodies.torque[i] += (point - self.bodies.position[i]).cross(force);
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
        b.linear_velocity[i] += b.inv_mass[i] * impulse;
        let r = point - b.position[i];
        let dw = b.world_inv_inertia(i) * r.cross(impulse);
        b.angular_velocity[i] += dw;
        self.wake_body(i);
        Ok(())
    }

    /// Applies an angular impulse (N·m·s).
    pub fn apply_angular_impulse(&mut self, id: BodyId, impulse: Vec3) -> Result<(), Error> {
        let i = self.dynamic_index(id, "impulses act on dynamic bodies only")?;
        check_vec("impulse", impulse)?;
        let b = &mut self.bodies;
        let dw = b.world_inv_inertia(i) * impulse;
        b.angular_velocity[i] += dw;
        self.wake_body(i);
        Ok(())
    }

    /// Mass (kg) and principal inertia (kg·m², about the axes of
    /// [`World::local_center_of_mass`]); zero for static and kinematic bodies.
    pub fn mass_properties(&self, id: BodyId) -> Result<MassProperties, Error> {
        let i = self.body_index(id)?;
        Ok(MassProperties {
            mass: self.bodies.mass[i],
            inertia: self.bodies.inertia[i],
        })
    }

    /// Overrides a dynamic body's mass and principal inertia; its shapes no longer change
    /// them. Mass and every moment must be finite and positive.
    pub fn set_mass_properties(&mut self, id: BodyId, mp: MassProperties) -> Result<(), Error> {
        let i = self.dynamic_index(id, "only dynamic bodies have mass")?;
        if !mp.mass.is_finite() || mp.mass <= 0.0 {
            return Err(Error::invalid(
                "MassProperties::mass",
                "must be finite and positive",
            ));
        }
        if !is_finite3(mp.inertia) || mp.inertia.min_element() <= 0.0 {
            return Err(Error::invalid(
                "MassProperties::inertia",
                "each moment must be finite and positive",
            ));
        }
        self.bodies.set_mass(i, mp.mass, mp.inertia);
        self.bodies.mass_override[i] = true;
        self.wake_body(i);
        Ok(())
    }

    /// Sets the multiplier on world gravity.
    pub fn set_gravity_scale(&mut self, id: BodyId, scale: f32) -> Result<(), Error> {
        let i = self.body_index(id)?;
        if !scale.is_finite() {
            return Err(Error::invalid("gravity_scale", "must be finite"));
        }
        self.bodies.gravity_scale[i] = scale;
        self.wake_body(i);
        Ok(())
    }

    /// Sets linear and angular damping (1/s).
    pub fn set_damping(&mut self, id: BodyId, linear: f32, angular: f32) -> Result<(), Error> {
        let i = self.body_index(id)?;
        check_damping("linear_damping", linear)?;
        check_damping("angular_damping", angular)?;
        self.bodies.linear_damping[i] = linear;
        self.bodies.angular_damping[i] = angular;
        Ok(())
    }

    /// Whether the body is awake: dynamic bodies in an awake island, and every kinematic
    /// body. Static bodies are never awake.
    pub fn is_awake(&self, id: BodyId) -> Result<bool, Error> {
        Ok(self.bodies.awake[self.body_index(id)?])
    }

    /// Wakes a dynamic body with its island (`true`), or puts its whole island to sleep
    /// at once (`false`; its bodies stop). Static and kinematic bodies: nothing to do.
    pub fn set_awake(&mut self, id: BodyId, awake: bool) -> Result<(), Error> {
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

    /// Whether the world lets islands sleep, with the number of islands and of sleeping
    /// bodies: (islands, sleeping bodies).
    pub fn sleep_counts(&self) -> (usize, usize) {
        let sleeping = (0..self.bodies.awake.len())
            .filter(|&i| {
                self.body_pool.is_alive(i)
                    && self.bodies.island[i] != crate::id::NULL
                    && !self.bodies.awake[i]
            })
            .count();
        (self.islands.count(), sleeping)
    }

    /// The host's value stored with the body.
    pub fn user_data(&self, id: BodyId) -> Result<u64, Error> {
        Ok(self.bodies.user_data[self.body_index(id)?])
    }

    /// The shapes attached to a body.
    pub fn body_shapes(&self, id: BodyId) -> Result<&[ShapeId], Error> {
        Ok(&self.bodies.shapes[self.body_index(id)?])
    }

    /// A shape's geometry.
    pub fn shape(&self, id: ShapeId) -> Result<Shape, Error> {
        let s = self.shapes.pool.check(id.index, id.generation, "ShapeId")?;
        Ok(self.shapes.data[s].shape.clone())
    }

    /// The body a shape is attached to.
    pub fn shape_body(&self, id: ShapeId) -> Result<BodyId, Error> {
        let s = self.shapes.pool.check(id.index, id.generation, "ShapeId")?;
        let b = self.shapes.data[s].body as usize;
        Ok(self.live_id(b).expect("a live shape's body is live"))
    }

    /// World gravity, in m/s².
    pub fn gravity(&self) -> Vec3 {
        self.def.gravity
    }

    /// Sets world gravity, in m/s².
    pub fn set_gravity(&mut self, gravity: Vec3) -> Result<(), Error> {
        check_vec("gravity", gravity)?;
        self.def.gravity = gravity;
        Ok(())
    }

    /// Timings and counters of the last step.
    pub fn profile(&self) -> &crate::profile::Profile {
        &self.profile
    }

    /// Contacts that began touching during the last step, in contact order (the order is
    /// the same for every thread count), then the pairs of a convex shape and a mesh or
    /// height field that began touching (one record when the first of its triangles
    /// touches, not one per triangle). Valid until the next step.
    pub fn contact_begin_events(&self) -> &[ContactTouch] {
        &self.events.touch_begin
    }

    /// Contacts that stopped touching during the last step: first those removed through
    /// the API since the step before (a removed shape or body ends its contacts), in call
    /// order; then pairs whose bounds parted, in pair order; then the rest in contact
    /// order; last the pairs of a convex shape and a mesh or height field whose last
    /// touching triangle stopped. Ids of removed shapes and bodies are stale. Valid until
    /// the next step.
    pub fn contact_end_events(&self) -> &[ContactTouch] {
        &self.events.touch_end
    }

    /// Touching contacts (with at least one point), in contact order. A convex shape on a
    /// mesh or height field appears once per triangle it touches (each with the two
    /// shapes' ids and that triangle's manifold).
    pub fn contacts(&self) -> impl Iterator<Item = ContactView<'_>> + '_ {
        self.contacts
            .contacts
            .iter()
            .filter(|c| c.alive && c.touching && c.flags & crate::contact::SENSOR == 0)
            .map(move |c| {
                let ids = ContactTouch::of(c, &self.shapes.pool, &self.body_pool);
                ContactView {
                    shape_a: ids.shape_a,
                    shape_b: ids.shape_b,
                    body_a: ids.body_a,
                    body_b: ids.body_b,
                    normal: c.manifold.normal,
                    points: c.manifold.points(),
                }
            })
    }

    /// A hash of every live body's pose and velocity (bit patterns, slot order): equal
    /// hashes after the same steps mean bit-identical simulations.
    pub fn state_hash(&self) -> u64 {
        let mut h = crate::math::StateHasher::default();
        let b = &self.bodies;
        for i in (0..self.body_pool.capacity()).filter(|&i| self.body_pool.is_alive(i)) {
            let q = b.rotation[i];
            h.mix_body(
                i as u32,
                b.position[i].to_array(),
                b.linear_velocity[i].to_array(),
                b.angular_velocity[i].to_array(),
                [q.x, q.y, q.z, q.w],
            );
        }
        h.finish()
    }
}
