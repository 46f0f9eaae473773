//! What a host reads of the world between steps: the touching contacts and their
//! begin and end records, gravity, the profile, the state hash.

use super::World;
use crate::collision::{Manifold, ManifoldPoint, MAX_POINTS};
use crate::contact::Contact;
use crate::error::Error;
use crate::id::{BodyId, ShapeId, SlotPool};
use crate::solver::graph::pending_manifold;
use glam::Vec3;

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
pub struct ContactView {
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
    pub points: ContactPoints,
}

/// The points of a [`ContactView`], with the impulses of the last step: a copy, since
/// the step may leave those impulses in the solver until the next step's narrowphase
/// (see `solver::graph::ConstraintGraph::store`). Derefs to the slice of points.
#[derive(Clone, Copy, Debug, Default)]
pub struct ContactPoints {
    count: usize,
    points: [ManifoldPoint; MAX_POINTS],
}

impl ContactPoints {
    fn of(m: &Manifold) -> Self {
        Self {
            count: m.count,
            points: m.points,
        }
    }
}

impl std::ops::Deref for ContactPoints {
    type Target = [ManifoldPoint];
    fn deref(&self) -> &[ManifoldPoint] {
        &self.points[..self.count]
    }
}

impl IntoIterator for ContactPoints {
    type Item = ManifoldPoint;
    type IntoIter = std::iter::Take<std::array::IntoIter<ManifoldPoint, MAX_POINTS>>;
    fn into_iter(self) -> Self::IntoIter {
        self.points.into_iter().take(self.count)
    }
}

impl<'a> IntoIterator for &'a ContactPoints {
    type Item = &'a ManifoldPoint;
    type IntoIter = std::slice::Iter<'a, ManifoldPoint>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl World {
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

    /// World gravity, in m/s².
    pub fn gravity(&self) -> Vec3 {
        self.def.gravity
    }

    /// Sets world gravity, in m/s².
    pub fn set_gravity(&mut self, gravity: Vec3) -> Result<(), Error> {
        super::bodies::check_vec("gravity", gravity)?;
        self.def.gravity = gravity;
        self.structure += 1;
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
    pub fn contacts(&self) -> impl Iterator<Item = ContactView> + '_ {
        self.contacts
            .contacts
            .iter()
            .enumerate()
            .filter(|(_, c)| c.alive && c.touching && c.flags & crate::contact::SENSOR == 0)
            .map(move |(k, c)| {
                let ids = ContactTouch::of(c, &self.shapes.pool, &self.body_pool);
                ContactView {
                    shape_a: ids.shape_a,
                    shape_b: ids.shape_b,
                    body_a: ids.body_a,
                    body_b: ids.body_b,
                    normal: c.manifold.normal,
                    points: ContactPoints::of(&self.contact_manifold(k)),
                }
            })
    }

    /// Contact `k`'s manifold as a reader between steps must see it: with the impulses the
    /// last step left in its batch lane (see `ContactStore::pending`).
    pub(crate) fn contact_manifold(&self, k: usize) -> Manifold {
        let store = &self.contacts;
        pending_manifold(
            &store.contacts[k].manifold,
            store.pending[k],
            self.graph.stored_batches(),
        )
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
        self.hash_particles(&mut h);
        h.finish()
    }
}
