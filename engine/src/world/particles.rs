//! Particles, springs, cloth and soft bodies: making and removing them, reading and
//! changing them between steps, and their stages of the step (see [`crate::particle`]).

use super::bodies::check_vec;
use super::World;
use crate::error::Error;
use crate::id::{BodyId, ParticleId, SoftBodyId, SpringId, NULL};
use crate::particle::build;
use crate::particle::store::{SoftData, SpringData, VolumeData};
use crate::particle::{
    self, check_point, Cloth, ClothDef, ClothPin, ParticleDef, SoftBody, SoftBodyDef, SpringDef,
    SpringEnd,
};
use crate::solver::StepContext;
use glam::Vec3;

/// Particles from which the particle stages run on the pool.
const PARALLEL_PARTICLES: usize = crate::parallel::par_min(1024);

impl World {
    /// Creates a particle.
    pub fn create_particle(&mut self, def: &ParticleDef) -> Result<ParticleId, Error> {
        def.validate()?;
        let p = &mut self.particles;
        let (index, generation, _) = p.pool.alloc();
        let i = index as usize;
        p.grow(i);
        p.position[i] = def.position;
        p.velocity[i] = if def.pinned { Vec3::ZERO } else { def.velocity };
        p.mass[i] = def.mass;
        p.inv_mass[i] = if def.pinned { 0.0 } else { 1.0 / def.mass };
        p.radius[i] = def.radius;
        p.filter[i] = def.filter;
        p.linear_drag[i] = def.linear_drag;
        p.quadratic_drag[i] = def.quadratic_drag;
        p.friction[i] = def.friction;
        p.restitution[i] = def.restitution;
        p.gravity_scale[i] = def.gravity_scale;
        p.tether[i] = NULL;
        p.tether_body[i] = NULL;
        p.springs_of[i].clear();
        p.dirty = true;
        self.structure += 1;
        Ok(ParticleId { index, generation })
    }

    /// Removes a particle with its springs (and, in a soft body, the volumes it is a
    /// corner of; a soft body's surface that loses a particle is open and loses its
    /// pressure).
    pub fn remove_particle(&mut self, id: ParticleId) -> Result<(), Error> {
        let i = self.particle_index(id)?;
        self.remove_particle_slot(i);
        self.structure += 1;
        Ok(())
    }

    fn remove_particle_slot(&mut self, i: usize) {
        while let Some(s) = self.particles.springs_of[i].last().copied() {
            self.remove_spring_slot(s as usize);
        }
        let p = &mut self.particles;
        let slot = i as u32;
        for v in p.volumes.iter_mut().filter(|v| v.p.contains(&slot)) {
            v.alive = false;
        }
        for s in &mut p.soft {
            if s.surface.iter().flatten().any(|&k| k == slot) {
                s.surface.clear();
            }
            s.particles.retain(|&k| k != slot);
        }
        for k in 0..p.tether.len() {
            if p.tether[k] == slot {
                p.tether[k] = NULL;
            }
        }
        p.tether[i] = NULL;
        p.velocity[i] = Vec3::ZERO;
        p.inv_mass[i] = 0.0;
        p.pool.release(slot);
        p.dirty = true;
    }

    /// The slot of a live particle.
    fn particle_index(&self, id: ParticleId) -> Result<usize, Error> {
        self.particles
            .pool
            .check(id.index, id.generation, "ParticleId")
    }

    /// A particle's position, in m.
    pub fn particle_position(&self, id: ParticleId) -> Result<Vec3, Error> {
        Ok(self.particles.position[self.particle_index(id)?])
    }

    /// A particle's velocity, in m/s.
    pub fn particle_velocity(&self, id: ParticleId) -> Result<Vec3, Error> {
        Ok(self.particles.velocity[self.particle_index(id)?])
    }

    /// A particle's mass, in kg (its definition's, pinned or not).
    pub fn particle_mass(&self, id: ParticleId) -> Result<f32, Error> {
        Ok(self.particles.mass[self.particle_index(id)?])
    }

    /// A particle's radius, in m.
    pub fn particle_radius(&self, id: ParticleId) -> Result<f32, Error> {
        Ok(self.particles.radius[self.particle_index(id)?])
    }

    /// Whether a particle is pinned.
    pub fn particle_is_pinned(&self, id: ParticleId) -> Result<bool, Error> {
        Ok(self.particles.inv_mass[self.particle_index(id)?] == 0.0)
    }

    /// Moves a particle (a pinned one too: this is how a host animates a pin).
    pub fn set_particle_position(&mut self, id: ParticleId, position: Vec3) -> Result<(), Error> {
        let i = self.particle_index(id)?;
        check_point("position", position)?;
        self.particles.position[i] = position;
        Ok(())
    }

    /// Sets a particle's velocity, in m/s (a pinned particle keeps zero).
    pub fn set_particle_velocity(&mut self, id: ParticleId, velocity: Vec3) -> Result<(), Error> {
        let i = self.particle_index(id)?;
        check_vec("velocity", velocity)?;
        if self.particles.inv_mass[i] > 0.0 {
            self.particles.velocity[i] = velocity;
        }
        Ok(())
    }

    /// Adds an impulse (N·s) to a particle's momentum; a pinned particle ignores it.
    pub fn apply_particle_impulse(&mut self, id: ParticleId, impulse: Vec3) -> Result<(), Error> {
        let i = self.particle_index(id)?;
        check_vec("impulse", impulse)?;
        let p = &mut self.particles;
        let v = p.velocity[i] + p.inv_mass[i] * impulse;
        if !crate::math::is_finite3(v) {
            return Err(Error::invalid(
                "impulse",
                "is so large that the velocity it gives overflows",
            ));
        }
        p.velocity[i] = v;
        Ok(())
    }

    /// Pins a particle where it is, or frees it (`pinned = false`) with zero velocity.
    pub fn set_particle_pinned(&mut self, id: ParticleId, pinned: bool) -> Result<(), Error> {
        let i = self.particle_index(id)?;
        let p = &mut self.particles;
        p.inv_mass[i] = if pinned { 0.0 } else { 1.0 / p.mass[i] };
        p.velocity[i] = Vec3::ZERO;
        p.dirty = true;
        self.structure += 1;
        Ok(())
    }

    /// Live particles.
    pub fn particle_count(&self) -> usize {
        self.particles.pool.live()
    }

    /// Every live particle's id and position, in slot order.
    pub fn particles(&self) -> impl Iterator<Item = (ParticleId, Vec3)> + '_ {
        let p = &self.particles;
        p.live().map(move |i| {
            (
                ParticleId {
                    index: i as u32,
                    generation: p.pool.generation(i),
                },
                p.position[i],
            )
        })
    }

    /// The air's velocity for the particles' drag, in m/s (default zero).
    pub fn wind(&self) -> Vec3 {
        self.particles.wind
    }

    /// Sets the wind: the particles' drag acts on their velocity relative to it.
    pub fn set_wind(&mut self, wind: Vec3) -> Result<(), Error> {
        check_vec("wind", wind)?;
        if wind.abs().max_element() > self.def.max_linear_speed {
            return Err(Error::invalid(
                "wind",
                "must not exceed WorldDef::max_linear_speed",
            ));
        }
        self.particles.wind = wind;
        self.structure += 1;
        Ok(())
    }

    /// The force particles gave `body` in the last step, in N (the sum of their contact
    /// and spring impulses over the step, divided by its `dt`): for a static body the load
    /// it carries.
    pub fn particle_reaction(&self, body: BodyId) -> Result<Vec3, Error> {
        let i = self.body_index(body)?;
        let impulse = self
            .particles
            .reaction
            .get(i)
            .copied()
            .unwrap_or(Vec3::ZERO);
        Ok(impulse / self.last_dt)
    }

    /// Creates a spring (see [`SpringDef`]).
    pub fn create_spring(&mut self, def: &SpringDef) -> Result<SpringId, Error> {
        def.validate()?;
        let a = self.particle_index(def.a)? as u32;
        let (b, body, point, other) = match def.b {
            SpringEnd::Particle(id) => {
                let b = self.particle_index(id)? as u32;
                if b == a {
                    return Err(Error::invalid("SpringDef::b", "is the same particle as a"));
                }
                (b, NULL, Vec3::ZERO, self.particles.position[b as usize])
            }
            SpringEnd::Body { body, point } => {
                let i = self.body_index(body)?;
                (
                    NULL,
                    i as u32,
                    point,
                    self.bodies.origin(i).transform_point(point),
                )
            }
            SpringEnd::Point(point) => (NULL, NULL, point, point),
        };
        let rest = match def.rest_length {
            Some(l) => l,
            None => {
                let l = (other - self.particles.position[a as usize]).length();
                if !(l.is_finite() && l <= crate::math::MAX_LENGTH) {
                    return Err(Error::invalid(
                        "SpringDef::rest_length",
                        "the ends are more than 1e6 m apart",
                    ));
                }
                l
            }
        };
        let id = self.add_spring(SpringData {
            a,
            b,
            body,
            point,
            rest,
            compliance: def.compliance,
            damping: def.damping,
            soft: NULL,
        });
        self.structure += 1;
        Ok(id)
    }

    fn add_spring(&mut self, d: SpringData) -> SpringId {
        let p = &mut self.particles;
        let (index, generation, new) = p.spring_pool.alloc();
        if new {
            p.springs.push(d);
        } else {
            p.springs[index as usize] = d;
        }
        p.springs_of[d.a as usize].push(index);
        if d.b != NULL {
            p.springs_of[d.b as usize].push(index);
        }
        p.dirty = true;
        SpringId { index, generation }
    }

    /// Removes a spring.
    pub fn remove_spring(&mut self, id: SpringId) -> Result<(), Error> {
        let s = self
            .particles
            .spring_pool
            .check(id.index, id.generation, "SpringId")?;
        self.remove_spring_slot(s);
        self.structure += 1;
        Ok(())
    }

    fn remove_spring_slot(&mut self, s: usize) {
        let p = &mut self.particles;
        let d = p.springs[s];
        for end in [d.a, d.b] {
            if end != NULL {
                p.springs_of[end as usize].retain(|&k| k as usize != s);
            }
        }
        p.spring_pool.release(s as u32);
        p.dirty = true;
    }

    /// The springs attached to body slot `b` go with it (called when it is removed).
    pub(crate) fn remove_body_springs(&mut self, b: usize) {
        let p = &self.particles;
        let doomed: Vec<usize> = (0..p.springs.len())
            .filter(|&s| p.spring_pool.is_alive(s) && p.springs[s].body == b as u32)
            .collect();
        for s in doomed {
            self.remove_spring_slot(s);
        }
    }

    /// A spring's length now, in m (to a body's point: where the body is now).
    pub fn spring_length(&self, id: SpringId) -> Result<f32, Error> {
        let p = &self.particles;
        let s = p.spring_pool.check(id.index, id.generation, "SpringId")?;
        let d = &p.springs[s];
        let other = if d.b != NULL {
            p.position[d.b as usize]
        } else if d.body != NULL {
            self.bodies.origin(d.body as usize).transform_point(d.point)
        } else {
            d.point
        };
        Ok((other - p.position[d.a as usize]).length())
    }

    /// Creates a cloth (see [`ClothDef`]).
    pub fn create_cloth(&mut self, def: &ClothDef) -> Result<Cloth, Error> {
        def.validate()?;
        let at = |i: u32, j: u32| {
            def.origin + def.spacing * (i as f32 * def.axis_u + j as f32 * def.axis_v)
        };
        // Each body pin: its body's slot and the pinned particle's place in the body frame
        // (checked before anything is made, so that an error leaves the world as it was).
        let bodies: Vec<(usize, Vec3)> = def
            .pins
            .iter()
            .filter_map(|pin| match *pin {
                ClothPin::Body { i, j, body } => Some(self.body_index(body).and_then(|b| {
                    let point = self.bodies.origin(b).inv_transform_point(at(i, j));
                    check_point("ClothDef::pins", point).map(|()| (b, point))
                })),
                ClothPin::Fixed { .. } => None,
            })
            .collect::<Result<_, _>>()?;
        let mut pinned = vec![false; (def.nx * def.ny) as usize];
        for pin in &def.pins {
            if let ClothPin::Fixed { i, j } = *pin {
                pinned[(j * def.nx + i) as usize] = true;
            }
        }
        let each = def.mass / (def.nx * def.ny) as f32;
        let mut particles = Vec::with_capacity(pinned.len());
        for j in 0..def.ny {
            for i in 0..def.nx {
                let pd = ParticleDef {
                    position: at(i, j),
                    velocity: def.velocity,
                    mass: each,
                    pinned: pinned[(j * def.nx + i) as usize],
                    radius: def.thickness,
                    filter: def.filter,
                    linear_drag: def.linear_drag,
                    quadratic_drag: def.quadratic_drag,
                    friction: def.friction,
                    restitution: def.restitution,
                    gravity_scale: 1.0,
                };
                particles.push(self.create_particle(&pd)?);
            }
        }
        let mut springs = Vec::new();
        for (a, b, compliance) in def.springs() {
            let (pa, pb) = (particles[a as usize], particles[b as usize]);
            let rest = (self.particles.position[pb.index as usize]
                - self.particles.position[pa.index as usize])
                .length();
            springs.push(self.add_spring(SpringData {
                a: pa.index,
                b: pb.index,
                body: NULL,
                point: Vec3::ZERO,
                rest,
                compliance,
                damping: def.damping,
                soft: NULL,
            }));
        }
        let mut bodies = bodies.into_iter();
        // Per grid index, the pin: `Some(NULL)` fixed, `Some(body slot)` on a body.
        let mut pins = vec![None; particles.len()];
        for pin in &def.pins {
            if let ClothPin::Fixed { i, j } = *pin {
                pins[(j * def.nx + i) as usize] = Some(NULL);
            }
        }
        for pin in &def.pins {
            if let ClothPin::Body { i, j, .. } = *pin {
                let (b, point) = bodies.next().expect("one body slot per body pin");
                pins[(j * def.nx + i) as usize] = Some(b as u32);
                let p = particles[(j * def.nx + i) as usize];
                springs.push(self.add_spring(SpringData {
                    a: p.index,
                    b: NULL,
                    body: b as u32,
                    point,
                    rest: 0.0,
                    compliance: 0.0,
                    damping: 0.0,
                    soft: NULL,
                }));
            }
        }
        self.tether_cloth(def, &particles, &pins);
        self.structure += 1;
        Ok(Cloth {
            nx: def.nx,
            ny: def.ny,
            particles,
            springs,
        })
    }

    /// Tethers every particle of a pinned cloth to its nearest pin (long-range attachments,
    /// as Jolt's soft bodies have them): the particle may not move farther from that pin
    /// than the shortest path to it along the cloth's stretch and shear springs (Dijkstra
    /// over the grid). However the springs converge, a pinned cloth then never hangs longer
    /// than it is.
    fn tether_cloth(&mut self, def: &ClothDef, particles: &[ParticleId], pins: &[Option<u32>]) {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let (nx, ny) = (def.nx as i64, def.ny as i64);
        let mut dist = vec![f32::INFINITY; particles.len()];
        let mut from = vec![NULL; particles.len()];
        // Distances are non-negative: their bit patterns order as the values do.
        let mut heap = BinaryHeap::new();
        for (k, pin) in pins.iter().enumerate() {
            if pin.is_some() {
                dist[k] = 0.0;
                from[k] = k as u32;
                heap.push(Reverse((0u32, k as u32)));
            }
        }
        let diagonal = def.spacing * std::f32::consts::SQRT_2;
        while let Some(Reverse((bits, k))) = heap.pop() {
            let d = f32::from_bits(bits);
            if d > dist[k as usize] {
                continue;
            }
            let (i, j) = (k as i64 % nx, k as i64 / nx);
            for (di, dj) in [
                (-1, -1),
                (0, -1),
                (1, -1),
                (-1, 0),
                (1, 0),
                (-1, 1),
                (0, 1),
                (1, 1),
            ] {
                let (a, b) = (i + di, j + dj);
                if a < 0 || b < 0 || a >= nx || b >= ny {
                    continue;
                }
                let step = if di != 0 && dj != 0 {
                    diagonal
                } else {
                    def.spacing
                };
                let m = (b * nx + a) as usize;
                if d + step < dist[m] {
                    dist[m] = d + step;
                    from[m] = from[k as usize];
                    heap.push(Reverse(((d + step).to_bits(), m as u32)));
                }
            }
        }
        let p = &mut self.particles;
        for (k, id) in particles.iter().enumerate() {
            let i = id.index as usize;
            if pins[k].is_some() || from[k] == NULL {
                continue;
            }
            let pin = from[k] as usize;
            p.tether[i] = particles[pin].index;
            p.tether_length[i] = dist[k];
            p.tether_body[i] = pins[pin].unwrap_or(NULL);
        }
    }

    /// Creates a soft body (see [`SoftBodyDef`]).
    pub fn create_soft_body(&mut self, def: &SoftBodyDef) -> Result<SoftBody, Error> {
        def.validate()?;
        let each = def.mass / def.vertices.len() as f32;
        let (index, generation, new) = self.particles.soft_pool.alloc();
        let mut particles = Vec::with_capacity(def.vertices.len());
        for &v in &def.vertices {
            let pd = ParticleDef {
                position: def.position + def.rotation * v,
                velocity: def.velocity,
                mass: each,
                pinned: false,
                radius: def.radius,
                filter: def.filter,
                linear_drag: def.linear_drag,
                quadratic_drag: 0.0,
                friction: def.friction,
                restitution: def.restitution,
                gravity_scale: 1.0,
            };
            particles.push(self.create_particle(&pd)?);
        }
        let slot = |k: u32| particles[k as usize].index;
        let mut springs = Vec::new();
        for (a, b) in def.edges() {
            let (a, b) = (slot(a), slot(b));
            let rest = (self.particles.position[b as usize] - self.particles.position[a as usize])
                .length();
            springs.push(self.add_spring(SpringData {
                a,
                b,
                body: NULL,
                point: Vec3::ZERO,
                rest,
                compliance: def.edge_compliance,
                damping: def.damping,
                soft: index,
            }));
        }
        let p = &mut self.particles;
        let first = p.volumes.len() as u32;
        for t in &def.tetrahedra {
            let mut c = t.map(slot);
            let x = |k: u32| p.position[k as usize];
            let vol = |c: &[u32; 4]| {
                (x(c[1]) - x(c[0])).dot((x(c[2]) - x(c[0])).cross(x(c[3]) - x(c[0]))) / 6.0
            };
            if vol(&c) < 0.0 {
                c.swap(2, 3);
            }
            let rest = vol(&c);
            p.volumes.push(VolumeData {
                p: c,
                rest,
                compliance: def.volume_compliance,
                soft: index,
                alive: rest > 0.0,
            });
        }
        let data = SoftData {
            particles: particles.iter().map(|p| p.index).collect(),
            surface: def.triangles.iter().map(|t| t.map(slot)).collect(),
            pressure: def.pressure,
            volumes: [first, p.volumes.len() as u32],
        };
        if new {
            p.soft.push(data);
        } else {
            p.soft[index as usize] = data;
        }
        p.dirty = true;
        self.structure += 1;
        Ok(SoftBody {
            id: SoftBodyId { index, generation },
            particles,
            springs,
        })
    }

    /// Removes a soft body with its particles, springs and volumes.
    pub fn remove_soft_body(&mut self, id: SoftBodyId) -> Result<(), Error> {
        let s = self
            .particles
            .soft_pool
            .check(id.index, id.generation, "SoftBodyId")?;
        let list = std::mem::take(&mut self.particles.soft[s].particles);
        for k in list {
            self.remove_particle_slot(k as usize);
        }
        let p = &mut self.particles;
        let [first, last] = p.soft[s].volumes;
        for v in &mut p.volumes[first as usize..last as usize] {
            v.alive = false;
        }
        p.soft[s] = SoftData::default();
        p.soft_pool.release(s as u32);
        p.dirty = true;
        self.structure += 1;
        Ok(())
    }

    /// The volume a soft body encloses now, in m³: its closed surface's, else the sum of
    /// its tetrahedra's.
    pub fn soft_body_volume(&self, id: SoftBodyId) -> Result<f32, Error> {
        let p = &self.particles;
        let s = p.soft_pool.check(id.index, id.generation, "SoftBodyId")?;
        let d = &p.soft[s];
        if !d.surface.is_empty() {
            return Ok(build::surface_volume(&d.surface, &p.position) as f32);
        }
        let tets = p.volumes[d.volumes[0] as usize..d.volumes[1] as usize]
            .iter()
            .filter(|v| v.alive)
            .map(|v| &v.p);
        Ok(build::tetrahedra_volume(tets, &p.position) as f32)
    }

    /// The particle stage before the solve: the plan rebuilt if the constraints changed,
    /// and every particle's contacts for the step.
    pub(crate) fn collide_particles(&mut self, dt: f32) {
        let p = &mut self.particles;
        p.replan();
        p.size_scratch(self.bodies.body_type.len());
        if p.is_empty() {
            return;
        }
        let many = p.pool.capacity() >= PARALLEL_PARTICLES;
        let (margin, slop) = (self.def.speculative_distance, self.def.linear_slop);
        let (shapes, bodies, broadphase) = (&self.shapes, &self.bodies, &self.broadphase);
        let run = |p: &mut crate::particle::store::ParticleStore, parallel: bool| {
            particle::collide::find_contacts(
                p, shapes, bodies, broadphase, margin, slop, dt, parallel,
            )
        };
        match &self.pool {
            Some(pool) if many => pool.install(|| run(p, true)),
            _ => run(p, false),
        }
        // A particle that strikes a sleeping body faster than the body's sleep threshold
        // wakes it (one resting on it does not): asleep, the body would not give way.
        if self.def.enable_sleep {
            let mut wake = Vec::new();
            let b = &self.bodies;
            for i in p.live() {
                let speed = p.velocity[i].length();
                for c in &p.contacts[i][..p.contact_count[i] as usize] {
                    let k = c.body as usize;
                    if b.body_type[k] == crate::body::BodyType::Dynamic
                        && !b.awake[k]
                        && speed > b.sleep_threshold[k]
                    {
                        wake.push(k);
                    }
                }
            }
            for k in wake {
                self.wake_body(k);
            }
        }
        let p = &mut self.particles;
        self.profile.particles = p.pool.live();
        self.profile.particles_stopped = 0;
        self.profile.particle_contacts = p.contact_count.iter().map(|&c| c as usize).sum();
        self.profile.particle_colors = p.colors_used();
    }

    /// One particle substep, after the rigid bodies' (see [`crate::particle`]).
    pub(crate) fn particle_substep(&mut self, ctx: &StepContext, carry: bool, parallel: bool) {
        let p = &mut self.particles;
        if p.is_empty() {
            return;
        }
        let parallel = parallel && p.pool.capacity() >= PARALLEL_PARTICLES;
        particle::solve::predict(p, ctx, parallel);
        particle::springs::solve_springs(p, ctx.h, parallel);
        particle::solve::solve_volumes(p, ctx.h, parallel);
        particle::solve::solve_tethers(p, parallel);
        particle::couple::classify(p, &self.bodies, &self.solver);
        particle::couple::solve_bodies(p, &self.bodies, &self.solver, ctx, parallel);
        particle::springs::damp_springs(p, ctx.h, parallel);
        self.profile.particles_stopped +=
            particle::solve::settle(p, ctx.max_linear_speed, ctx.h, parallel);
        particle::couple::push_bodies(p, &mut self.solver, &self.bodies, ctx, carry);
    }

    /// Mixes the particles into a state hash (nothing when there are none, so the hashes
    /// of rigid worlds do not change): each live particle's slot, position and velocity.
    pub(crate) fn hash_particles(&self, h: &mut crate::math::StateHasher) {
        let p = &self.particles;
        for i in p.live() {
            h.mix_u32(i as u32);
            for x in p.position[i]
                .to_array()
                .iter()
                .chain(&p.velocity[i].to_array())
            {
                h.mix_u32(x.to_bits());
            }
        }
    }
}
