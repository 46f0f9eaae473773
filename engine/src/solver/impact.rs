//! Restitution as impacts in the order they happen, before the soft step.
//!
//! A contact that bounces (restitution `e > 0`) is not bounced by the soft step: its
//! bodies would first be stopped together, as an inelastic collision, and the bounce
//! added at the end (Box2D's way) then starts from velocities the stop has already shared
//! along whatever the bodies touch. A ball striking a row of touching balls would push
//! the row as one body, and the end-of-step bounce, aimed at the approach speed of the
//! first impact, overshoots wherever that sharing changed the velocities: the row gains
//! kinetic energy.
//!
//! Instead, at the start of each step, every bouncy contact point that will close within
//! the step is an *impact*: a collision at its time of impact `t*` (the first root of
//! `s + vₙ t + ½ aₙ t² = 0`, with `s` the gap, `vₙ` the normal velocity and `aₙ` the
//! relative normal acceleration of gravity and applied forces), at the impact speed
//! `uₙ = vₙ + aₙ t*`. If `uₙ < −threshold`, an impulse along the normal makes the
//! normal velocity at `t*` equal to `−e uₙ`. The impulse changes the bodies' velocities
//! from `t*` on; the step's solver starts from the beginning of the step, so the change
//! is applied to the starting velocity together with the position (and rotation) offset
//! `−Δv t*` that makes the path the same after `t*` (exact for constant acceleration):
//! the bodies meet at the surface and leave it with the bounced velocity, as the
//! closed-form bounce does, and the soft step then sees a separating contact.
//!
//! The impacts are resolved one contact at a time, in contact order, pass after pass,
//! until none is left (Guendelman, Bridson and Fedkiw 2003): an impact makes its bodies
//! move, which may make their other bouncy contacts close faster, and those are impacts
//! of the next pass. A single collision with `e ≤ 1` cannot add kinetic energy, so
//! neither can the sequence; and a row of touching balls passes the blow along one
//! contact at a time, which is Newton's cradle. The points of one manifold are solved
//! together (a few sweeps over them with accumulated, non-negative impulses), so a box
//! landing flat bounces without a spin. Contacts below the threshold (everything resting
//! in a stack) are not touched, so stacks are solved as before.
//!
//! The pass runs on the calling thread, in contact order, so the result does not depend
//! on the thread count or the lane width. Worlds without a bouncy shape skip it.

use super::{BodyState, SolverBodies, StepContext};
use crate::collision::MAX_POINTS;
use crate::contact::Contact;
use crate::id::NULL;
use glam::{Mat3, Quat, Vec3};

/// The most passes over the impacts of one step. A row of `n` touching balls needs at
/// most `n` passes in the worst contact order; a pile of bouncing bodies stops earlier
/// because each pass loses energy. What is left after the last pass is left to the soft
/// step (it stops the bodies inelastically).
const MAX_PASSES: usize = 32;

/// Sweeps over the points of one manifold when solving its impact.
const SWEEPS: usize = 4;

/// One body of an impact: its velocity, offsets and masses (static bodies: none).
struct Side {
    index: u32,
    state: BodyState,
    inv_mass: f32,
    inv_inertia: Mat3,
    /// Acceleration of gravity and applied forces, m/s².
    accel: Vec3,
}

impl Side {
    fn load(sb: &SolverBodies, index: u32, inv_h: f32) -> Self {
        if index == NULL {
            return Side {
                index,
                state: BodyState::IDENTITY,
                inv_mass: 0.0,
                inv_inertia: Mat3::ZERO,
                accel: Vec3::ZERO,
            };
        }
        let k = index as usize;
        let forcing = &sb.forcing[k];
        let dynamic = forcing.flags & super::DYNAMIC != 0;
        Side {
            index,
            state: sb.states[k],
            inv_mass: if dynamic { sb.mass[k].inv_mass } else { 0.0 },
            inv_inertia: if dynamic {
                sb.mass[k].inv_inertia
            } else {
                Mat3::ZERO
            },
            accel: forcing.dv * inv_h,
        }
    }

    /// The velocity of the material point at lever arm `r`.
    fn point_velocity(&self, r: Vec3) -> Vec3 {
        self.state.v + self.state.w.cross(r)
    }

    /// Where lever arm `r` has moved by the offsets so far (relative to the body's start).
    fn moved(&self, r: Vec3) -> Vec3 {
        self.state.dp + self.state.dq * r - r
    }

    /// Applies impulse `p` at lever arm `r` taking effect at time `t` into the step.
    fn apply(&mut self, r: Vec3, p: Vec3, t: f32) {
        if self.inv_mass == 0.0 {
            return;
        }
        let dv = self.inv_mass * p;
        let dw = self.inv_inertia * r.cross(p);
        let s = &mut self.state;
        s.v += dv;
        s.w += dw;
        // The same path after `t`: start `Δv t` (and `Δω t`) behind.
        s.dp -= dv * t;
        let turn = -dw * t;
        let spin = Quat::from_xyzw(turn.x, turn.y, turn.z, 0.0) * s.dq;
        s.dq = (s.dq + spin * 0.5).normalize();
    }

    fn store(&self, sb: &mut SolverBodies) {
        if self.index != NULL && self.inv_mass > 0.0 {
            sb.states[self.index as usize] = self.state;
        }
    }
}

/// Resolves the impacts of this step (see the module doc). `touching` are the touching
/// contacts, `pairs` their bodies' solver indices ([`NULL`] for static), `dt` the step;
/// `bouncy` is scratch space (kept by the caller to reuse its allocation). Returns the
/// number of impacts resolved.
pub(crate) fn resolve(
    touching: &[u32],
    pairs: &[[u32; 2]],
    contacts: &[Contact],
    sb: &mut SolverBodies,
    ctx: &StepContext,
    dt: f32,
    bouncy: &mut Vec<usize>,
) -> usize {
    // The window: the step and the first substep after it. The last relax pass already
    // stops bodies that would cross within the next substep (a speculative point), so
    // an impact due then is this step's; the 1 % lets an impact due exactly at the end
    // of that window count whichever way the root rounds.
    let window = 1.01 * (dt + ctx.h);
    bouncy.clear();
    bouncy
        .extend((0..touching.len()).filter(|&k| contacts[touching[k] as usize].restitution > 0.0));
    let mut count = 0;
    for _ in 0..MAX_PASSES {
        let mut any = false;
        for &k in bouncy.iter() {
            if impact(&contacts[touching[k] as usize], pairs[k], sb, ctx, window) {
                any = true;
                count += 1;
            }
        }
        if !any {
            break;
        }
    }
    count
}

/// Resolves contact `c`'s impact if it has one this step; true if it did.
fn impact(
    c: &Contact,
    [ia, ib]: [u32; 2],
    sb: &mut SolverBodies,
    ctx: &StepContext,
    window: f32,
) -> bool {
    let mut a = Side::load(sb, ia, ctx.inv_h);
    let mut b = Side::load(sb, ib, ctx.inv_h);
    if a.inv_mass == 0.0 && b.inv_mass == 0.0 {
        return false;
    }
    let m = &c.manifold;
    let n = m.normal;
    let accel = n.dot(b.accel - a.accel);
    // Per point: lever arms, time of impact, target normal velocity, normal mass.
    let mut points = [(Vec3::ZERO, Vec3::ZERO, 0.0f32, 0.0f32, 0.0f32); MAX_POINTS];
    let mut used = 0;
    for p in m.points() {
        let (r_a, r_b) = (p.anchor_a, p.anchor_b);
        let gap = p.separation + n.dot(b.moved(r_b) - a.moved(r_a));
        let vn = n.dot(b.point_velocity(r_b) - a.point_velocity(r_a));
        let Some(t) = time_of_impact(gap, vn, accel, window) else {
            continue;
        };
        let u = vn + accel * t;
        if u >= -ctx.restitution_threshold {
            continue;
        }
        let k = a.inv_mass
            + b.inv_mass
            + r_a.cross(n).dot(a.inv_inertia * r_a.cross(n))
            + r_b.cross(n).dot(b.inv_inertia * r_b.cross(n));
        if k <= 0.0 {
            continue;
        }
        // Normal velocity now that gives −e u at t.
        let target = -c.restitution * u - accel * t;
        points[used] = (r_a, r_b, t, target, 1.0 / k);
        used += 1;
    }
    if used == 0 {
        return false;
    }
    let mut total = [0.0f32; MAX_POINTS];
    for _ in 0..SWEEPS {
        for (j, &(r_a, r_b, t, target, mass)) in points[..used].iter().enumerate() {
            let vn = n.dot(b.point_velocity(r_b) - a.point_velocity(r_a));
            let new = (total[j] + mass * (target - vn)).max(0.0);
            let impulse = new - total[j];
            total[j] = new;
            a.apply(r_a, -impulse * n, t);
            b.apply(r_b, impulse * n, t);
        }
    }
    if total[..used].iter().all(|&l| l == 0.0) {
        return false;
    }
    a.store(sb);
    b.store(sb);
    true
}

/// The first time in `[0, dt]` at which a gap `s` closing at `v` with acceleration `a`
/// reaches zero (now, for a closed gap that is closing).
fn time_of_impact(s: f32, v: f32, a: f32, dt: f32) -> Option<f32> {
    if s <= 0.0 {
        return (v < 0.0).then_some(0.0);
    }
    // s + v t + ½ a t² = 0, smallest positive root.
    let t = if a.abs() < 1e-6 {
        if v >= 0.0 {
            return None;
        }
        -s / v
    } else {
        let disc = v * v - 2.0 * a * s;
        if disc < 0.0 {
            return None;
        }
        // The root of smaller positive value, written to avoid cancellation.
        let q = -0.5 * (v + disc.sqrt().copysign(v));
        let (t1, t2) = (q / (0.5 * a), s / q);
        [t1, t2]
            .into_iter()
            .filter(|t| t.is_finite() && *t >= 0.0)
            .fold(f32::INFINITY, f32::min)
    };
    (t <= dt).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::time_of_impact;

    #[test]
    fn time_of_impact_solves_the_quadratic() {
        // Falling from 0.1 m at 1 m/s under 10 m/s²: 0.1 − t − 5 t² = 0.
        let t = time_of_impact(0.1, -1.0, -10.0, 1.0).unwrap();
        assert!((0.1 - t - 5.0 * t * t).abs() < 1e-6, "{t}");
        // Constant speed.
        assert_eq!(time_of_impact(0.1, -2.0, 0.0, 1.0), Some(0.05));
        // Too far this step, separating, or already touching.
        assert_eq!(time_of_impact(1.0, -1.0, 0.0, 0.5), None);
        assert_eq!(time_of_impact(0.1, 1.0, 0.0, 1.0), None);
        assert_eq!(time_of_impact(-0.01, -1.0, 0.0, 1.0), Some(0.0));
        // Decelerating before it gets there.
        assert_eq!(time_of_impact(1.0, -1.0, 10.0, 1.0), None);
    }
}
