//! The world's side of drag and buoyancy: its fluids, and the forces of a step (the
//! closed forms are in [`forces`](crate::forces)).

use super::World;
use crate::body::BodyType;
use crate::error::Error;
use crate::forces::{
    projected_area, quadratic_drag, shape_volume, submerged_volume, Fluid, FluidId, Submersion,
};
use crate::id::{BodyId, SlotPool};
use glam::Vec3;

/// The world's fluids by slot.
#[derive(Default)]
pub(crate) struct FluidStore {
    pub(crate) pool: SlotPool,
    pub(crate) fluids: Vec<Fluid>,
}

crate::codec::fields!(FluidStore { pool, fluids });

impl FluidStore {
    pub(crate) fn live(&self) -> impl Iterator<Item = &Fluid> + '_ {
        self.fluids
            .iter()
            .enumerate()
            .filter(|(i, _)| self.pool.is_alive(*i))
            .map(|(_, f)| f)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.pool.live() == 0
    }
}

impl World {
    /// Adds a fluid: bodies below its surface float and are damped (see [`Fluid`]).
    pub fn add_fluid(&mut self, fluid: &Fluid) -> Result<FluidId, Error> {
        fluid.validate()?;
        let mut fluid = *fluid;
        fluid.surface_normal = fluid.surface_normal.normalize();
        let store = &mut self.fluids;
        let (index, generation, fresh) = store.pool.alloc();
        if fresh {
            store.fluids.push(fluid);
        } else {
            store.fluids[index as usize] = fluid;
        }
        self.structure += 1;
        Ok(FluidId { index, generation })
    }

    /// Removes a fluid.
    pub fn remove_fluid(&mut self, id: FluidId) -> Result<(), Error> {
        self.fluid_index(id)?;
        self.fluids.pool.release(id.index);
        self.structure += 1;
        Ok(())
    }

    /// A fluid's settings.
    pub fn fluid(&self, id: FluidId) -> Result<Fluid, Error> {
        Ok(self.fluids.fluids[self.fluid_index(id)?])
    }

    /// Changes a fluid (its level, density, current...).
    pub fn set_fluid(&mut self, id: FluidId, fluid: &Fluid) -> Result<(), Error> {
        let i = self.fluid_index(id)?;
        fluid.validate()?;
        let mut fluid = *fluid;
        fluid.surface_normal = fluid.surface_normal.normalize();
        self.fluids.fluids[i] = fluid;
        self.structure += 1;
        Ok(())
    }

    fn fluid_index(&self, id: FluidId) -> Result<usize, Error> {
        self.fluids.pool.check(id.index, id.generation, "FluidId")
    }

    /// How much of a body's shapes lies in a fluid, now.
    pub fn submersion(&self, body: BodyId, fluid: FluidId) -> Result<Submersion, Error> {
        let b = self.body_index(body)?;
        let f = self.fluids.fluids[self.fluid_index(fluid)?];
        Ok(self.body_submersion(b, &f))
    }

    fn body_submersion(&self, b: usize, f: &Fluid) -> Submersion {
        let xf = self.bodies.transform(b);
        let (mut volume, mut total, mut moment) = (0.0, 0.0, Vec3::ZERO);
        for s in &self.bodies.shapes[b] {
            let d = &self.shapes.data[s.index as usize];
            let shape = &d.shape;
            let (v, c) = submerged_volume(shape, &d.pose(&xf), f.surface_normal, f.surface_offset);
            volume += v;
            moment += v * (c - xf.p);
            total += shape_volume(shape);
        }
        let center = if volume > 0.0 {
            xf.p + moment / volume
        } else {
            xf.p
        };
        Submersion {
            volume,
            total_volume: total,
            center,
        }
    }

    /// The body's drag coefficient (dimensionless).
    pub fn body_drag_coefficient(&self, id: BodyId) -> Result<f32, Error> {
        Ok(self.bodies.drag_coefficient[self.body_index(id)?])
    }

    /// Sets the body's drag coefficient (dimensionless, finite, non-negative; 0 turns
    /// quadratic drag off). Typical: 0.47 sphere, 1.05 cube face-on, 0.04 streamlined.
    pub fn set_body_drag_coefficient(
        &mut self,
        id: BodyId,
        drag_coefficient: f32,
    ) -> Result<(), Error> {
        let i = self.body_index(id)?;
        crate::body::check_drag("drag_coefficient", drag_coefficient)?;
        self.bodies.drag_coefficient[i] = drag_coefficient;
        self.structure += 1;
        Ok(())
    }

    /// Adds drag and buoyancy of this step to the force accumulators (a step-start hook
    /// of `World::step`).
    pub(crate) fn apply_environment_forces(&mut self, dt: f32) {
        if self.fluids.is_empty() && !self.bodies.drag_coefficient.iter().any(|&c| c > 0.0) {
            return;
        }
        let gravity = self.def.gravity;
        let air = self.def.air_density;
        for b in 0..self.body_pool.capacity() {
            // Sleeping bodies rest in equilibrium: no forces pile up on them.
            if !self.body_pool.is_alive(b)
                || self.bodies.body_type[b] != BodyType::Dynamic
                || !self.bodies.awake[b]
            {
                continue;
            }
            let cd = self.bodies.drag_coefficient[b];
            if cd <= 0.0 && self.fluids.is_empty() {
                continue;
            }
            let (force, torque) = self.environment_force(b, dt, gravity, air, cd);
            self.bodies.force[b] += force;
            self.bodies.torque[b] += torque;
        }
    }

    fn environment_force(
        &self,
        b: usize,
        dt: f32,
        gravity: Vec3,
        air: f32,
        cd: f32,
    ) -> (Vec3, Vec3) {
        let bodies = &self.bodies;
        let (p, q) = (bodies.position[b], bodies.rotation[b]);
        let (v, w) = (bodies.linear_velocity[b], bodies.angular_velocity[b]);
        let mass = bodies.mass[b];
        let area_along = |dir: Vec3| {
            let u = dir.normalize_or_zero();
            if u == Vec3::ZERO {
                return 0.0;
            }
            bodies.shapes[b]
                .iter()
                .map(|s| {
                    let d = &self.shapes.data[s.index as usize];
                    let q = if d.offset { q * d.relative.q } else { q };
                    projected_area(&d.shape, q, u)
                })
                .fold(0.0, f32::max)
        };
        let (mut force, mut torque) = (Vec3::ZERO, Vec3::ZERO);
        let mut submerged = 0.0;
        for fluid in self.fluids.live() {
            let sub = self.body_submersion(b, fluid);
            if sub.volume <= 0.0 {
                continue;
            }
            let f = sub.fraction();
            submerged += f;
            let buoyancy = -fluid.density * sub.volume * gravity;
            force += buoyancy;
            torque += (sub.center - p).cross(buoyancy);
            let relative = v - fluid.velocity;
            let rate = (fluid.linear_drag * f * dt).min(1.0);
            force -= relative * (mass * rate / dt);
            let rate = (fluid.angular_drag * f * dt).min(1.0);
            let iw = q * (bodies.inertia[b] * (q.conjugate() * w));
            torque -= iw * (rate / dt);
            if cd > 0.0 {
                let area = area_along(relative);
                force += quadratic_drag(fluid.density * f, cd, area, relative, mass, dt);
            }
        }
        if cd > 0.0 {
            let in_air = (1.0 - submerged).max(0.0);
            force += quadratic_drag(air * in_air, cd, area_along(v), v, mass, dt);
        }
        (force, torque)
    }
}
