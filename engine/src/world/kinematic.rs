//! Kinematic targets: move a kinematic body to a pose over exactly one step.
//!
//! [`World::set_body_target_pose`] records the target. At the start of the next step the body
//! gets the velocities that carry it there in one step of `dt`:
//!
//! ```text
//! v = (p_target - p) / dt
//! Δq = q_target q⁻¹, negated if Δq.w < 0 (the shortest arc)
//! ω = axis(Δq) angle(Δq) / dt,  angle = 2 atan2(|Δq.xyz|, Δq.w)   (ω ≈ 2 Δq.xyz / dt near 0)
//! ```
//!
//! so contacts see the body moving at that velocity all step long and push (or carry)
//! the dynamic bodies they touch. At the end of the step the body is placed exactly on the
//! target (the substeps' first-order rotation update is close but not exact) and its
//! velocities are zeroed: a body that is not given a new target stops. Animating a
//! platform is one call per step.
//!
//! A target also sets the velocities at once (with the last step's `dt`) so that the
//! broadphase bounds, swept over the velocity, already cover the coming motion.

use crate::body::BodyType;
use crate::error::Error;
use crate::id::BodyId;
use crate::math::{is_finite3, Transform};
use crate::world::World;
use glam::{Quat, Vec3};

/// Targets set since the last step: (body slot, body generation, target pose).
#[derive(Default)]
pub(crate) struct KinematicTargets {
    list: Vec<(u32, u32, Transform)>,
}

/// The angular velocity (rad/s) that turns `from` into `to` in `dt` along the shortest arc.
fn angular_velocity_between(from: Quat, to: Quat, dt: f32) -> Vec3 {
    let mut dq = to * from.conjugate();
    if dq.w < 0.0 {
        dq = -dq;
    }
    let v = Vec3::new(dq.x, dq.y, dq.z);
    let s = v.length();
    if s < 1.0e-6 {
        return v * (2.0 / dt);
    }
    v * (2.0 * s.atan2(dq.w) / (s * dt))
}

impl World {
    /// Moves a kinematic body to `target` over the next step: its velocities are set so
    /// that one step lands it there (and it is placed exactly on it after the step), then
    /// zeroed unless a new target is set before the following step. Dynamic bodies it
    /// touches are pushed or carried along. Errors: a stale id, a non-finite position or
    /// a zero or non-finite rotation (naming `target.p` / `target.q`), a body that is not
    /// kinematic.
    pub fn set_body_target_pose(&mut self, id: BodyId, target: Transform) -> Result<(), Error> {
        let i = self.body_index(id)?;
        if !is_finite3(target.p) {
            return Err(Error::invalid("target.p", "must be finite"));
        }
        if !target.q.is_finite() || !(1.0e-12..=f32::MAX).contains(&target.q.length_squared()) {
            return Err(Error::invalid(
                "target.q",
                "must be a finite, non-zero quaternion",
            ));
        }
        if self.bodies.body_type[i] != BodyType::Kinematic {
            return Err(Error::Unsupported {
                what: "set_target_pose moves kinematic bodies only",
            });
        }
        // The velocity that reaches the target in one step must not overflow (with room
        // for the centre of mass's offset from the origin).
        if !is_finite3((target.p - self.bodies.position[i]) * (2.0 / self.last_dt)) {
            return Err(Error::invalid(
                "target.p",
                "is so far from the body that the velocity reaching it overflows",
            ));
        }
        let target = Transform::new(target.p, target.q.normalize());
        let list = &mut self.kinematic_targets.list;
        match list.iter_mut().find(|(slot, _, _)| *slot == id.index) {
            Some(entry) => *entry = (id.index, id.generation, target),
            None => list.push((id.index, id.generation, target)),
        }
        self.aim_at(i, &target, self.last_dt);
        self.refit_body(i);
        Ok(())
    }

    /// The target set for the next step, if any.
    pub fn body_target_pose(&self, id: BodyId) -> Result<Option<Transform>, Error> {
        self.body_index(id)?;
        Ok(self
            .kinematic_targets
            .list
            .iter()
            .find(|(slot, generation, _)| *slot == id.index && *generation == id.generation)
            .map(|&(_, _, target)| target))
    }

    fn aim_at(&mut self, i: usize, target: &Transform, dt: f32) {
        let b = &mut self.bodies;
        b.linear_velocity[i] = (target.p - b.position[i]) / dt;
        b.angular_velocity[i] = angular_velocity_between(b.rotation[i], target.q, dt);
    }

    /// The slot of a body that is still live and kinematic.
    fn kinematic_slot(&self, slot: u32, generation: u32) -> Option<usize> {
        let i = self.body_pool.check(slot, generation, "BodyId").ok()?;
        (self.bodies.body_type[i] == BodyType::Kinematic).then_some(i)
    }

    /// Step-start hook of `World::step`: velocities that reach the targets in `dt`.
    pub(crate) fn aim_kinematic_targets(&mut self, dt: f32) {
        let list = std::mem::take(&mut self.kinematic_targets.list);
        for &(slot, generation, target) in &list {
            if let Some(i) = self.kinematic_slot(slot, generation) {
                self.aim_at(i, &target, dt);
            }
        }
        self.kinematic_targets.list = list;
    }

    /// Step-end hook of `World::step`: bodies exactly on their targets, and stopped.
    pub(crate) fn land_kinematic_targets(&mut self) {
        let mut list = std::mem::take(&mut self.kinematic_targets.list);
        for &(slot, generation, target) in &list {
            if let Some(i) = self.kinematic_slot(slot, generation) {
                let b = &mut self.bodies;
                b.move_to(i, target.p, target.q);
                b.linear_velocity[i] = Vec3::ZERO;
                b.angular_velocity[i] = Vec3::ZERO;
                self.refit_body(i);
            }
        }
        list.clear();
        self.kinematic_targets.list = list;
    }
}

crate::codec::fields!(KinematicTargets { list });

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_arc_angular_velocity() {
        let dt = 0.5;
        let from = Quat::from_rotation_y(0.2);
        let to = Quat::from_rotation_y(0.2 + 0.3);
        let w = angular_velocity_between(from, to, dt);
        assert!((w - Vec3::new(0.0, 0.6, 0.0)).length() < 1e-5, "{w}");
        // The same rotation through the long way round (-q) gives the same velocity.
        let w2 = angular_velocity_between(from, -to, dt);
        assert!((w - w2).length() < 1e-5);
        // 350° forward is 10° backward.
        let w3 = angular_velocity_between(
            Quat::IDENTITY,
            Quat::from_rotation_x(350f32.to_radians()),
            1.0,
        );
        assert!((w3.x + 10f32.to_radians()).abs() < 1e-4, "{w3}");
        assert!(angular_velocity_between(from, from, dt).length() < 1e-6);
    }
}
