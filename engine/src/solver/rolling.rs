//! Rolling resistance: a torque that opposes a ball or capsule rolling on a surface.
//!
//! A rolling ball deforms the surface (and itself) a little, and the contact force then
//! acts slightly ahead of the point below the centre, so it exerts a torque against the
//! rolling of `μr R N` (`μr` the shape's dimensionless rolling resistance, `R` its radius,
//! `N` the normal force). Without it a ball rolls on flat ground for ever. Each contact
//! with rolling resistance gets an angular friction row on the relative angular velocity
//! in the tangent plane (the component about the normal is the twist friction of the
//! contact), limited to `μr R λₙ` a substep, `λₙ` being the contact's normal impulse a
//! substep. With a slow deceleration the limit is reached, so a solid ball rolling
//! without slipping slows at `5/7 μr g` and stops after `7 v² / (10 μr g)` (Box2D v3.1
//! has the same model in 2D).
//!
//! The rows are few (only shapes with the setting) and are solved on the calling thread
//! after each solve and relax pass of the contacts, in contact order, so the result does
//! not depend on the thread count or the lane width. The limit follows the contact's
//! normal impulse of the substep as it stands when the row is solved (the row comes
//! right after its contact in each pass), as Box2D's does.

use super::graph::{ConstraintGraph, Slot};
use super::{BodyState, SolverBodies, WarmStart};
use crate::contact::Contact;
use crate::id::NULL;
use crate::math::perpendicular;
use glam::{Mat3, Vec3};

/// One contact's rolling-resistance row.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RollingRow {
    a: u32,
    b: u32,
    t1: Vec3,
    t2: Vec3,
    i_a: Mat3,
    i_b: Mat3,
    /// The 2×2 effective mass in the tangent plane, inverted: `[k11, k12, k22]`.
    mass: [f32; 3],
    /// Rolling resistance times rolling radius, m: the limit is `lever λₙ`.
    lever: f32,
    /// Where the contact's constraint is, for its normal impulse.
    slot: Slot,
    /// The angular impulse a substep, along t1 and t2 (accumulated over the step's
    /// substeps, as the contacts' impulses are).
    impulse: [f32; 2],
}

/// The rolling-resistance rows of a step.
#[derive(Default)]
pub(crate) struct RollingRows {
    rows: Vec<RollingRow>,
    /// Where each touching contact's constraint is (kept to reuse its allocation).
    at: Vec<Slot>,
}

impl RollingRows {
    /// Prepares a row for each touching contact with rolling resistance (`touching` and
    /// their solver `pairs`, as gathered for the step).
    pub fn prepare(
        &mut self,
        touching: &[u32],
        pairs: &[[u32; 2]],
        contacts: &[Contact],
        sb: &SolverBodies,
        graph: &ConstraintGraph,
    ) {
        self.rows.clear();
        let mut located = false;
        for (ti, (&id, &[a, b])) in touching.iter().zip(pairs).enumerate() {
            let c = &contacts[id as usize];
            if c.rolling_resistance <= 0.0 {
                continue;
            }
            let inertia = |k: u32| {
                if k == NULL {
                    Mat3::ZERO
                } else {
                    sb.mass[k as usize].inv_inertia
                }
            };
            let (i_a, i_b) = (inertia(a), inertia(b));
            let n = c.manifold.normal;
            let t1 = perpendicular(n);
            let t2 = n.cross(t1);
            let k = i_a + i_b;
            let (k11, k12, k22) = (t1.dot(k * t1), t1.dot(k * t2), t2.dot(k * t2));
            let det = k11 * k22 - k12 * k12;
            if det <= 0.0 {
                continue;
            }
            let d = 1.0 / det;
            if !located {
                graph.locate(touching.len(), &mut self.at);
                located = true;
            }
            self.rows.push(RollingRow {
                a,
                b,
                t1,
                t2,
                i_a,
                i_b,
                mass: [k22 * d, -k12 * d, k11 * d],
                lever: c.rolling_resistance,
                slot: self.at[ti],
                impulse: [0.0; 2],
            });
        }
    }

    /// True when the step has no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Starts a substep: the rows' impulses of the last substep are applied again (the
    /// warm start, as the contacts do), except in a substep whose warm start is carried
    /// per body ([`WarmStart::Carried`]), which has applied them already.
    pub fn warm_start(&self, states: &mut [BodyState], warm: WarmStart) {
        if warm == WarmStart::Carried {
            return;
        }
        for r in &self.rows {
            let l = r.impulse[0] * r.t1 + r.impulse[1] * r.t2;
            r.apply(states, l);
        }
    }

    /// One pass over the rows.
    pub fn solve(&mut self, states: &mut [BodyState], graph: &ConstraintGraph) {
        let w = |states: &[BodyState], k: u32| {
            if k == NULL {
                Vec3::ZERO
            } else {
                states[k as usize].w
            }
        };
        for r in &mut self.rows {
            let dw = w(states, r.b) - w(states, r.a);
            let (c1, c2) = (dw.dot(r.t1), dw.dot(r.t2));
            let [k11, k12, k22] = r.mass;
            let old = r.impulse;
            let mut new = [
                old[0] - (k11 * c1 + k12 * c2),
                old[1] - (k12 * c1 + k22 * c2),
            ];
            let max = r.lever * graph.normal_load(r.slot);
            let len = (new[0] * new[0] + new[1] * new[1]).sqrt();
            if len > max {
                let s = if len > 0.0 { max / len } else { 0.0 };
                new = [new[0] * s, new[1] * s];
            }
            r.impulse = new;
            let l = (new[0] - old[0]) * r.t1 + (new[1] - old[1]) * r.t2;
            r.apply(states, l);
        }
    }
}

impl RollingRow {
    fn apply(&self, states: &mut [BodyState], l: Vec3) {
        if self.a != NULL {
            states[self.a as usize].w -= self.i_a * l;
        }
        if self.b != NULL {
            states[self.b as usize].w += self.i_b * l;
        }
    }
}
