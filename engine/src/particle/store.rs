//! The particles' columns, their springs, volumes and soft bodies, and the colouring that
//! the solver works from.

use super::MAX_CONTACTS;
use crate::id::{SlotPool, NULL};
use crate::shape::Filter;
use glam::Vec3;

/// A spring from particle `a` to particle `b`, to a point on body `body`, or to a fixed
/// point (`b` and `body` both [`NULL`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct SpringData {
    pub a: u32,
    pub b: u32,
    pub body: u32,
    /// The point on the body (body frame) or in the world.
    pub point: Vec3,
    pub rest: f32,
    pub compliance: f32,
    pub damping: f32,
    /// The soft body it belongs to, or [`NULL`].
    pub soft: u32,
}

crate::codec::fields!(SpringData {
    a,
    b,
    body,
    point,
    rest,
    compliance,
    damping,
    soft
});

/// A tetrahedron's volume constraint.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct VolumeData {
    pub p: [u32; 4],
    /// The volume at rest, in m³ (positive: the corners are ordered so).
    pub rest: f32,
    pub compliance: f32,
    /// The soft body it belongs to.
    pub soft: u32,
    /// False once one of its particles was removed.
    pub alive: bool,
}

crate::codec::fields!(VolumeData {
    p,
    rest,
    compliance,
    soft,
    alive
});

/// A soft body: its particles, its closed surface (for the pressure) and its volumes.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct SoftData {
    pub particles: Vec<u32>,
    /// Outward-wound surface triangles (particle slots); empty once the surface opened
    /// (a particle of it was removed).
    pub surface: Vec<[u32; 3]>,
    /// `n R T` of the gas inside the surface, in J (N·m): the pressure is `nRT / V`.
    pub pressure: f32,
    /// The range of its volumes in [`ParticleStore::volumes`].
    pub volumes: [u32; 2],
}

crate::codec::fields!(SoftData {
    particles,
    surface,
    pressure,
    volumes
});

/// One particle's contact with a shape for the step, anchored on the shape's body.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Contact {
    /// Body slot.
    pub body: u32,
    /// Normal from the shape to the particle, in the body's mass frame.
    pub normal: Vec3,
    /// The point on the shape's surface, in the body's mass frame (from its centre of
    /// mass), in m.
    pub point: Vec3,
    pub friction: f32,
    pub restitution: f32,
    /// Set in a substep when the contact acted: the normal velocity before it did.
    pub active: bool,
    pub approach: f32,
    /// Set in a substep: the particle is supported against this contact (see
    /// `solve::classify`).
    pub held: bool,
}

/// [`ParticleStore::support`] of a particle that nothing supports.
pub(crate) const NO_SUPPORT: u8 = u8::MAX;

/// An impulse a particle gives a body in a substep.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Push {
    /// Body slot ([`NULL`]: none).
    pub body: u32,
    /// The impulse, in N·s.
    pub impulse: Vec3,
    /// Where, relative to the body's centre of mass, in m.
    pub lever: Vec3,
    /// The body's position correction as a mass times a distance, in kg·m: it moves by
    /// `M⁻¹ shift` (and turns to match).
    pub shift: Vec3,
}

pub(crate) const NO_PUSH: Push = Push {
    body: NULL,
    impulse: Vec3::ZERO,
    lever: Vec3::ZERO,
    shift: Vec3::ZERO,
};

/// A particle–particle spring as the solver reads it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Rod {
    pub a: u32,
    pub b: u32,
    pub rest: f32,
    pub compliance: f32,
    pub damping: f32,
}

/// The colouring of the constraints, rebuilt when they change.
#[derive(Default)]
pub(crate) struct Plan {
    /// The particle–particle springs, by colour (the last list: those that fit no colour,
    /// solved one at a time).
    pub rods: Vec<Vec<Rod>>,
    /// The tetrahedra by colour (indices into `volumes`), the last list the overflow.
    pub volumes: Vec<Vec<u32>>,
    /// Per particle slot, the range of its springs to bodies and points in `anchors`.
    pub anchor_start: Vec<u32>,
    /// Spring slots, grouped by particle.
    pub anchors: Vec<u32>,
    /// Soft bodies with a pressure (indices into `soft`).
    pub pressured: Vec<u32>,
    /// Whether a particle–particle spring has a damper.
    pub damped: bool,
    /// The long-range attachments of rigid strands ([`ParticleStore::tether_rods`]).
    pub rod_tethers: Vec<RodTether>,
}

/// A particle joined to a pinned one by a path of rigid springs (compliance 0): it may not
/// move farther from that pin than the path's rest length.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RodTether {
    pub particle: u32,
    pub pin: u32,
    pub length: f32,
}

/// The colours open to particle constraints (one bit each in a particle's mask).
pub(crate) const COLORS: usize = 63;

/// Every particle of the world, its springs and soft bodies.
#[derive(Default)]
pub(crate) struct ParticleStore {
    pub pool: SlotPool,
    pub position: Vec<Vec3>,
    pub velocity: Vec<Vec3>,
    pub inv_mass: Vec<f32>,
    pub mass: Vec<f32>,
    pub radius: Vec<f32>,
    pub filter: Vec<Filter>,
    pub linear_drag: Vec<f32>,
    pub quadratic_drag: Vec<f32>,
    pub friction: Vec<f32>,
    pub restitution: Vec<f32>,
    pub gravity_scale: Vec<f32>,
    /// Per particle slot, its tether (a long-range attachment): the pinned particle it may
    /// not move farther from than `tether_length` ([`NULL`]: none), and the body that pin
    /// hangs on ([`NULL`]: a fixed pin).
    pub tether: Vec<u32>,
    pub tether_length: Vec<f32>,
    pub tether_body: Vec<u32>,
    /// Per particle slot, its spring slots.
    pub springs_of: Vec<Vec<u32>>,
    pub spring_pool: SlotPool,
    pub springs: Vec<SpringData>,
    pub soft_pool: SlotPool,
    pub soft: Vec<SoftData>,
    /// Tetrahedra of every soft body, in creation order.
    pub volumes: Vec<VolumeData>,
    /// The air's velocity, in m/s: drag acts on the velocity relative to it.
    pub wind: Vec3,

    /// The plan must be rebuilt (a particle, spring or volume changed).
    pub dirty: bool,
    pub plan: Plan,
    /// Per slot: the position at the start of the substep.
    pub prev: Vec<Vec3>,
    /// Per slot: the step's contacts ([`MAX_CONTACTS`] each) and how many.
    pub contacts: Vec<[Contact; MAX_CONTACTS]>,
    pub contact_count: Vec<u8>,
    /// Per slot: the substep's impulses on bodies from its contacts, and last the load it
    /// passed on to its tether's body.
    pub pushes: Vec<[Push; MAX_CONTACTS + 1]>,
    /// Per anchor (in `plan.anchors` order): the substep's impulse on a body.
    pub anchor_pushes: Vec<Push>,
    /// Per body slot: the impulse the particles gave it in the last step, in N·s.
    pub reaction: Vec<Vec3>,
    /// Per body slot: the free particle contacts that overlap it in the substep and the
    /// springs on it; and the held contacts (see `solve::classify`).
    pub split: Vec<u32>,
    pub split_held: Vec<u32>,
    /// Per particle slot: what supports it in the substep (a contact's index, or
    /// [`MAX_CONTACTS`] for its tether), or [`NO_SUPPORT`].
    pub support: Vec<u8>,
}

/// The columns an image holds, in order (the plan and scratch are rebuilt).
impl crate::codec::Field for ParticleStore {
    fn put(&self, w: &mut crate::codec::Writer<'_>) {
        w.put(&self.pool);
        w.put(&self.position);
        w.put(&self.velocity);
        w.put(&self.inv_mass);
        w.put(&self.mass);
        w.put(&self.radius);
        w.put(&self.filter);
        w.put(&self.linear_drag);
        w.put(&self.quadratic_drag);
        w.put(&self.friction);
        w.put(&self.restitution);
        w.put(&self.gravity_scale);
        w.put(&self.tether);
        w.put(&self.tether_length);
        w.put(&self.tether_body);
        w.put(&self.springs_of);
        w.put(&self.spring_pool);
        w.put(&self.springs);
        w.put(&self.soft_pool);
        w.put(&self.soft);
        w.put(&self.volumes);
        w.put(&self.wind);
    }
    fn get(r: &mut crate::codec::Reader<'_>) -> Result<Self, crate::error::Error> {
        Ok(Self {
            pool: r.get()?,
            position: r.get()?,
            velocity: r.get()?,
            inv_mass: r.get()?,
            mass: r.get()?,
            radius: r.get()?,
            filter: r.get()?,
            linear_drag: r.get()?,
            quadratic_drag: r.get()?,
            friction: r.get()?,
            restitution: r.get()?,
            gravity_scale: r.get()?,
            tether: r.get()?,
            tether_length: r.get()?,
            tether_body: r.get()?,
            springs_of: r.get()?,
            spring_pool: r.get()?,
            springs: r.get()?,
            soft_pool: r.get()?,
            soft: r.get()?,
            volumes: r.get()?,
            wind: r.get()?,
            dirty: true,
            ..Default::default()
        })
    }
}

impl ParticleStore {
    /// Whether the world has no live particle (the step then skips every particle stage).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.pool.live() == 0
    }

    /// Live particle slots, in slot order.
    pub fn live(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.pool.capacity()).filter(|&i| self.pool.is_alive(i))
    }

    /// Checks the columns an image gave: lengths, finite values, ids in range.
    pub fn check(&self, bodies: usize) -> Result<(), &'static str> {
        let n = self.pool.capacity();
        let columns = [
            self.position.len(),
            self.velocity.len(),
            self.inv_mass.len(),
            self.mass.len(),
            self.radius.len(),
            self.filter.len(),
            self.linear_drag.len(),
            self.quadratic_drag.len(),
            self.friction.len(),
            self.restitution.len(),
            self.gravity_scale.len(),
            self.tether.len(),
            self.tether_length.len(),
            self.tether_body.len(),
            self.springs_of.len(),
        ];
        if columns.iter().any(|&c| c != n) {
            return Err("holds particle columns of different lengths");
        }
        let live = |p: u32| (p as usize) < n && self.pool.is_alive(p as usize);
        for i in self.live() {
            let finite = crate::math::is_finite3(self.position[i])
                && crate::math::is_finite3(self.velocity[i]);
            let m = self.mass[i];
            let valid = finite
                && m.is_finite()
                && m > 0.0
                && (1.0 / m).is_finite()
                && (self.inv_mass[i] == 0.0 || self.inv_mass[i] == 1.0 / m)
                && self.radius[i].is_finite()
                && self.radius[i] > 0.0;
            if !valid {
                return Err("holds an invalid particle");
            }
            let t = self.tether[i];
            let tether_ok = live(t)
                && self.tether_length[i].is_finite()
                && self.tether_length[i] >= 0.0
                && (self.tether_body[i] == NULL || (self.tether_body[i] as usize) < bodies);
            if t != NULL && !tether_ok {
                return Err("holds an invalid tether");
            }
            if self.springs_of[i].iter().any(|&s| {
                (s as usize) >= self.springs.len() || !self.spring_pool.is_alive(s as usize)
            }) {
                return Err("holds a particle with an invalid spring");
            }
        }
        if self.springs.len() != self.spring_pool.capacity() {
            return Err("holds a spring table of the wrong length");
        }
        for s in (0..self.springs.len()).filter(|&s| self.spring_pool.is_alive(s)) {
            let d = &self.springs[s];
            let ends_ok = live(d.a)
                && (d.b == NULL || live(d.b))
                && (d.body == NULL || (d.body as usize) < bodies)
                && !(d.b != NULL && d.body != NULL);
            if !ends_ok {
                return Err("holds a spring whose ends are not live particles or bodies");
            }
            let valid = d.rest.is_finite()
                && d.rest >= 0.0
                && d.compliance.is_finite()
                && d.compliance >= 0.0
                && d.damping.is_finite()
                && d.damping >= 0.0
                && crate::math::is_finite3(d.point);
            if !valid {
                return Err("holds a spring with a negative or non-finite number");
            }
        }
        if self.soft.len() != self.soft_pool.capacity() {
            return Err("holds a soft body table of the wrong length");
        }
        for v in self.volumes.iter().filter(|v| v.alive) {
            if !(v.p.iter().all(|&p| live(p)) && v.rest.is_finite() && v.rest > 0.0) {
                return Err("holds an invalid volume constraint");
            }
        }
        for s in (0..self.soft.len()).filter(|&s| self.soft_pool.is_alive(s)) {
            let d = &self.soft[s];
            if !d.surface.iter().flatten().all(|&p| live(p))
                || d.volumes[0] > d.volumes[1]
                || d.volumes[1] as usize > self.volumes.len()
                || !(d.pressure.is_finite() && d.pressure >= 0.0)
            {
                return Err("holds an invalid soft body");
            }
        }
        Ok(())
    }

    /// Grows the per-slot columns to hold slot `i`.
    pub fn grow(&mut self, i: usize) {
        if self.position.len() <= i {
            let n = i + 1;
            self.position.resize(n, Vec3::ZERO);
            self.velocity.resize(n, Vec3::ZERO);
            self.inv_mass.resize(n, 0.0);
            self.mass.resize(n, 1.0);
            self.radius.resize(n, 1.0);
            self.filter.resize(n, Filter::default());
            self.linear_drag.resize(n, 0.0);
            self.quadratic_drag.resize(n, 0.0);
            self.friction.resize(n, 0.0);
            self.restitution.resize(n, 0.0);
            self.gravity_scale.resize(n, 0.0);
            self.tether.resize(n, NULL);
            self.tether_length.resize(n, 0.0);
            self.tether_body.resize(n, NULL);
            self.springs_of.resize_with(n, Vec::new);
        }
    }

    /// Rebuilds the plan when the constraints changed: springs and tetrahedra coloured
    /// greedily in slot order (each takes the lowest colour free at all its particles; a
    /// pinned particle blocks no colour, as it is never written), the anchors grouped by
    /// particle. Depends on the constraints only, never on the lane width or threads.
    pub fn replan(&mut self) {
        if !self.dirty {
            return;
        }
        self.dirty = false;
        let n = self.pool.capacity();
        let plan = &mut self.plan;
        plan.rods.iter_mut().for_each(Vec::clear);
        plan.rods.resize_with(COLORS + 1, Vec::new);
        plan.volumes.iter_mut().for_each(Vec::clear);
        plan.volumes.resize_with(COLORS + 1, Vec::new);
        let mut used = vec![0u64; n];
        let inv_mass = &self.inv_mass;
        // The lowest colour free at all of `ps` (among the movable ones), marked taken.
        let take = |used: &mut [u64], ps: &[u32]| -> usize {
            let mut taken = 0u64;
            for &p in ps {
                if inv_mass[p as usize] > 0.0 {
                    taken |= used[p as usize];
                }
            }
            let color = (!taken).trailing_zeros() as usize;
            if color >= COLORS {
                return COLORS;
            }
            for &p in ps {
                if inv_mass[p as usize] > 0.0 {
                    used[p as usize] |= 1 << color;
                }
            }
            color
        };
        plan.anchor_start.clear();
        plan.anchor_start.resize(n + 1, 0);
        for s in (0..self.springs.len()).filter(|&s| self.spring_pool.is_alive(s)) {
            let d = &self.springs[s];
            if d.b == NULL {
                plan.anchor_start[d.a as usize + 1] += 1;
                continue;
            }
            // A spring between two pinned particles moves nothing.
            if inv_mass[d.a as usize] + inv_mass[d.b as usize] == 0.0 {
                continue;
            }
            let color = take(&mut used, &[d.a, d.b]);
            plan.rods[color].push(Rod {
                a: d.a,
                b: d.b,
                rest: d.rest,
                compliance: d.compliance,
                damping: d.damping,
            });
        }
        let mut used = vec![0u64; n];
        for (k, v) in self.volumes.iter().enumerate() {
            if v.alive && v.p.iter().any(|&p| inv_mass[p as usize] > 0.0) {
                let color = take(&mut used, &v.p);
                plan.volumes[color].push(k as u32);
            }
        }
        for i in 0..n {
            plan.anchor_start[i + 1] += plan.anchor_start[i];
        }
        plan.anchors.clear();
        plan.anchors.resize(plan.anchor_start[n] as usize, 0);
        let mut fill = plan.anchor_start.clone();
        for s in (0..self.springs.len()).filter(|&s| self.spring_pool.is_alive(s)) {
            let d = &self.springs[s];
            if d.b == NULL {
                let at = &mut fill[d.a as usize];
                plan.anchors[*at as usize] = s as u32;
                *at += 1;
            }
        }
        plan.damped = plan.rods.iter().flatten().any(|r| r.damping > 0.0);
        plan.pressured.clear();
        plan.pressured.extend(
            (0..self.soft.len())
                .filter(|&s| {
                    self.soft_pool.is_alive(s)
                        && self.soft[s].pressure > 0.0
                        && !self.soft[s].surface.is_empty()
                })
                .map(|s| s as u32),
        );
        self.tether_rods();
    }

    /// Long-range attachments for what is built of rigid springs (compliance 0) and hangs
    /// from pinned particles: strands, ropes, trees of rods. Every movable particle that a
    /// path of rigid springs joins to a pin, and that has no tether of its own (a cloth's),
    /// is kept within that path's rest length of its nearest pin (Dijkstra over the rest
    /// lengths, from every pin at once; ties go to the lower slot, so the plan depends on
    /// the constraints only).
    ///
    /// Rigid springs are solved one Gauss-Seidel sweep a substep, which cannot carry a
    /// strand's weight through it: a strand of `n` stretches as `n²`, 3.3 % at 40
    /// particles and 4 substeps (`docs/decisions.md`). The attachment is one-sided, so a
    /// strand that swings or folds is left to its springs; one that hangs taut is held
    /// at its length.
    fn tether_rods(&mut self) {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let n = self.pool.capacity();
        let plan = &mut self.plan;
        plan.rod_tethers.clear();
        let rigid = |s: u32| {
            let d = &self.springs[s as usize];
            self.spring_pool.is_alive(s as usize) && d.b != NULL && d.compliance == 0.0
        };
        let movable = |i: usize| self.pool.is_alive(i) && self.inv_mass[i] > 0.0;
        let mut dist = vec![f32::INFINITY; n];
        let mut from = vec![NULL; n];
        // Distances are non-negative: their bit patterns order as the values do.
        let mut heap = BinaryHeap::new();
        for i in 0..n {
            if self.pool.is_alive(i)
                && self.inv_mass[i] == 0.0
                && self.springs_of[i].iter().any(|&s| rigid(s))
            {
                dist[i] = 0.0;
                from[i] = i as u32;
                heap.push(Reverse((0u32, i as u32)));
            }
        }
        if heap.is_empty() {
            return;
        }
        while let Some(Reverse((bits, k))) = heap.pop() {
            let d = f32::from_bits(bits);
            if d > dist[k as usize] {
                continue;
            }
            for &s in &self.springs_of[k as usize] {
                if !rigid(s) {
                    continue;
                }
                let spring = &self.springs[s as usize];
                let m = if spring.a == k { spring.b } else { spring.a } as usize;
                let next = d + spring.rest;
                if movable(m) && next < dist[m] {
                    dist[m] = next;
                    from[m] = from[k as usize];
                    heap.push(Reverse((next.to_bits(), m as u32)));
                }
            }
        }
        plan.rod_tethers.extend(
            (0..n)
                .filter(|&i| movable(i) && from[i] != NULL && self.tether[i] == NULL)
                .map(|i| RodTether {
                    particle: i as u32,
                    pin: from[i],
                    length: dist[i],
                }),
        );
    }

    /// Sizes the scratch columns for the step.
    pub fn size_scratch(&mut self, bodies: usize) {
        let n = self.pool.capacity();
        self.prev.resize(n, Vec3::ZERO);
        self.contacts.resize(n, [Contact::default(); MAX_CONTACTS]);
        self.contact_count.resize(n, 0);
        self.pushes.resize(n, [NO_PUSH; MAX_CONTACTS + 1]);
        self.anchor_pushes.resize(self.plan.anchors.len(), NO_PUSH);
        self.reaction.clear();
        self.reaction.resize(bodies, Vec3::ZERO);
    }

    /// The colours the springs use (for the profile).
    pub fn colors_used(&self) -> usize {
        self.plan.rods[..COLORS.min(self.plan.rods.len())]
            .iter()
            .filter(|c| !c.is_empty())
            .count()
    }
}
