//! Shapes: attaching them to bodies and removing them, their collision filters.

use super::{PairFilter, World};
use crate::body::BodyType;
use crate::error::Error;
use crate::id::{BodyId, ShapeId};
use crate::math::Transform;
use crate::shape::store::{Filter, ShapeData, ShapeDef};
use crate::shape::Shape;

impl World {
    /// Attaches a shape to a body and updates the body's mass from the shape's density.
    /// Planes, meshes and height fields may only be attached to static bodies (and meshes
    /// and height fields cannot be sensors).
    pub fn add_shape(&mut self, body: BodyId, def: &ShapeDef) -> Result<ShapeId, Error> {
        let b = self.body_index(body)?;
        def.validate()?;
        let body_type = self.bodies.body_type[b];
        if def.shape.is_static_only() && body_type != BodyType::Static {
            return Err(Error::invalid(
                "ShapeDef::shape",
                "a plane, mesh or height field may only be attached to a static body",
            ));
        }
        if def.shape.kind().is_triangles() && def.is_sensor {
            return Err(Error::invalid(
                "ShapeDef::is_sensor",
                "a mesh or height field cannot be a sensor",
            ));
        }
        if body_type == BodyType::Dynamic {
            let mass = self.shape_mass(b, Some(def));
            if mass <= 0.0 && !self.bodies.mass_override[b] {
                return Err(Error::invalid(
                    "ShapeDef::density",
                    "a dynamic body's shapes must give it a positive mass",
                ));
            }
            // Checked with a mass override too: the shapes still place the mass frame.
            if !mass.is_finite() || !self.compound_mass_is_finite(b, def) {
                return Err(Error::invalid(
                    "ShapeDef::shape",
                    "so large (or placed so far) that the body's mass or inertia overflows",
                ));
            }
            if !self.compound_mass_is_invertible(b, def) {
                return Err(Error::invalid(
                    "ShapeDef::density",
                    "so small (with the shape's size) that the body's inverse mass or inertia overflows",
                ));
            }
        }
        let (index, generation, fresh) = self.shapes.pool.alloc();
        let local_pose = Transform::new(def.local_pose.p, def.local_pose.q.normalize());
        let relative = self.bodies.frame[b].inv_mul(&local_pose);
        let offset = relative != Transform::IDENTITY;
        let data = ShapeData {
            body: b as u32,
            reach: ShapeData::reach_of(&def.shape, offset, &relative),
            offset,
            relative,
            shape: def.shape.clone(),
            density: def.density,
            friction: def.friction,
            static_friction: def.static_friction.unwrap_or(def.friction),
            restitution: def.restitution,
            rolling: def.rolling_resistance
                * match def.shape {
                    Shape::Sphere { radius } | Shape::Capsule { radius, .. } => radius,
                    _ => 0.0,
                },
            inner_radius: def.inner_radius,
            filter: def.filter,
            is_sensor: def.is_sensor,
            enable_contact_events: def.enable_contact_events,
            enable_hit_events: def.enable_hit_events,
            enable_sensor_events: def.enable_sensor_events,
            enable_contact_modifier: def.enable_contact_modifier,
        };
        let aabb = def
            .shape
            .aabb(&data.pose(&self.bodies.transform(b)))
            .expanded(self.def.speculative_distance);
        self.shapes.bouncy += usize::from(data.restitution > 0.0);
        self.shapes.rolling += usize::from(data.rolling > 0.0);
        if fresh {
            crate::huge::reserve(&mut self.shapes.data, 1);
            self.shapes.data.push(data);
            self.shapes.bounds.push(aabb);
        } else {
            self.shapes.data[index as usize] = data;
            self.shapes.bounds[index as usize] = aabb;
        }
        self.shapes.set_local_pose(index as usize, local_pose);
        self.broadphase.create_proxy(
            index,
            aabb.expanded(self.def.aabb_margin),
            body_type == BodyType::Static,
            b as u32,
        );
        let id = ShapeId { index, generation };
        self.bodies.shapes[b].push(id);
        self.update_mass(b);
        self.wake_body(b);
        // Sweep the new bounds over the body's initial velocity.
        self.refit_body(b);
        self.structure += 1;
        Ok(id)
    }

    /// Detaches and removes a shape; the body's mass is recomputed from what remains.
    pub fn remove_shape(&mut self, id: ShapeId) -> Result<(), Error> {
        let s = self.shapes.pool.check(id.index, id.generation, "ShapeId")?;
        let b = self.shapes.data[s].body as usize;
        self.bodies.shapes[b].retain(|&x| x != id);
        self.detach_shape(id.index);
        self.update_mass(b);
        self.wake_body(b);
        self.refit_body(b);
        self.structure += 1;
        Ok(())
    }

    /// A shape's collision filter.
    pub fn shape_filter(&self, id: ShapeId) -> Result<Filter, Error> {
        let s = self.shapes.pool.check(id.index, id.generation, "ShapeId")?;
        Ok(self.shapes.data[s].filter)
    }

    /// Changes a shape's collision filter. Its contacts end now (with end records for the
    /// touching ones) and come back at the next step for the pairs the new filter allows.
    pub fn set_shape_filter(&mut self, id: ShapeId, filter: Filter) -> Result<(), Error> {
        let s = self.shapes.pool.check(id.index, id.generation, "ShapeId")?;
        self.shapes.data[s].filter = filter;
        self.refresh_shape_pairs(s as u32);
        self.structure += 1;
        Ok(())
    }

    /// Sets (or clears, with `None`) the host's pair filter. Pairs that overlap now are
    /// filtered again at the next step.
    pub fn set_pair_filter(&mut self, filter: Option<PairFilter>) {
        self.structure += 1;
        self.pair_filter = filter;
        for s in 0..self.shapes.data.len() {
            if self.shapes.pool.is_alive(s) {
                self.refresh_shape_pairs(s as u32);
            }
        }
    }

    /// Drops shape `index`'s proxy with its contacts and puts it back, so the broadphase
    /// reports its overlaps as new pairs (and the filters decide afresh) at the next step.
    fn refresh_shape_pairs(&mut self, index: u32) {
        let (body, aabb) = {
            let d = &self.shapes.data[index as usize];
            (d.body, self.shapes.bounds[index as usize])
        };
        self.destroy_proxy_contacts(index);
        let is_static = self.bodies.body_type[body as usize] == BodyType::Static;
        self.broadphase
            .create_proxy(index, aabb.expanded(self.def.aabb_margin), is_static, body);
        self.wake_body(body as usize);
    }

    /// Removes a shape's proxy, contacts and slot (the body's list is the caller's).
    pub(super) fn detach_shape(&mut self, index: u32) {
        let data = &self.shapes.data[index as usize];
        self.shapes.bouncy -= usize::from(data.restitution > 0.0);
        self.shapes.rolling -= usize::from(data.rolling > 0.0);
        self.destroy_proxy_contacts(index);
        self.shapes.pool.release(index);
    }

    /// Removes a shape's proxy and its contacts (end records for the touching ones, whose
    /// bodies wake).
    fn destroy_proxy_contacts(&mut self, index: u32) {
        for c in self.broadphase.destroy_proxy(index) {
            let contact = &self.contacts.contacts[c as usize];
            let (a, b) = (contact.body_a, contact.body_b);
            if self.destroy_pair_contact(c, true) {
                // What rested on the shape falls (or drifts) now: wake it.
                self.wake_body(a as usize);
                self.wake_body(b as usize);
            }
        }
    }

    /// A shape's geometry.
    pub fn shape(&self, id: ShapeId) -> Result<Shape, Error> {
        let s = self.shapes.pool.check(id.index, id.generation, "ShapeId")?;
        Ok(self.shapes.data[s].shape.clone())
    }

    /// Where a shape sits on its body: its pose in the body's frame, as given by
    /// [`ShapeDef::local_pose`] (rotation normalized). What a renderer or a recorder needs
    /// to draw a compound body's shapes.
    pub fn shape_local_pose(&self, id: ShapeId) -> Result<Transform, Error> {
        let s = self.shapes.pool.check(id.index, id.generation, "ShapeId")?;
        Ok(self.shapes.local_pose(s))
    }

    /// Whether a shape is a sensor ([`ShapeDef::sensor`]): it reports overlaps and
    /// makes no contacts.
    pub fn shape_is_sensor(&self, id: ShapeId) -> Result<bool, Error> {
        let s = self.shapes.pool.check(id.index, id.generation, "ShapeId")?;
        Ok(self.shapes.data[s].is_sensor)
    }

    /// The body a shape is attached to.
    pub fn shape_body(&self, id: ShapeId) -> Result<BodyId, Error> {
        let s = self.shapes.pool.check(id.index, id.generation, "ShapeId")?;
        let b = self.shapes.data[s].body as usize;
        Ok(self.live_id(b).expect("a live shape's body is live"))
    }
}
