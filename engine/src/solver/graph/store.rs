//! The end of a step's solve: the impulses kept for the next step's warm start (the
//! contacts' in their batches, the joints' in their slots or their ball batches) and the
//! joints whose step impulse passed their break threshold.

use super::super::articulation::Tree;
use super::super::ball_wide::{stored, BallJointW, BallLanes, Broken};
use super::super::contact::{self as cs};
use super::super::contact_wide::{ContactConstraintW, StatesPtr};
use super::super::wide::W;
use super::super::BodyState;
use super::ConstraintGraph;
#[cfg(doc)]
use super::{pending_manifold, take_pending, Coloring};
use crate::contact::Contact;
use crate::id::NULL;
use crate::joint::{JointData, JointImpulses};
use crate::parallel::{for_each_index_maybe_par, for_each_maybe_par, DisjointPtr};
use glam::Vec3;

/// Ball batches per work item of the break test in [`ConstraintGraph::store_joints`].
const BREAK_CHUNK: usize = 64;

/// Touching contacts per work item of [`ConstraintGraph::store`].
const STORE_CHUNK: usize = 1024;

impl ConstraintGraph {
    /// Writes every joint's impulses and reaction into its slot, but those of the ball
    /// batches, and returns the joints whose step impulse passed their break threshold, in
    /// slot order.
    ///
    /// The ball batches keep their impulses: writing them into every joint's slot each
    /// step (a cache line or two per joint, out of cache by the end of the step) cost as
    /// much as the batches' refresh. While the lists are kept the next step's refresh
    /// keeps them in place; before the lists are rebuilt, or a joint's slot is read or
    /// changed between steps, [`flush_ball_impulses`](Self::flush_ball_impulses) writes
    /// them; readers between steps use [`pending_ball_joint`](Self::pending_ball_joint).
    pub fn store_joints(
        &mut self,
        joints: &mut [JointData],
        states: &mut Vec<BodyState>,
        substeps: u32,
        h: f32,
        parallel: bool,
    ) -> Broken {
        let (n, inv_h) = (substeps as f32, 1.0 / h);
        let mut broken = Broken::new();
        for (slot, impulses) in self.trees.iter().flat_map(Tree::impulses) {
            let data = &mut joints[slot as usize];
            data.impulses = impulses;
            data.reaction = impulses.linear * inv_h;
            data.angular_reaction = Vec3::ZERO;
            let impulse = impulses.linear.length() * n;
            if impulse > data.def.break_impulse {
                broken.push((slot, impulse, 0.0));
            }
        }
        for c in &self.joint_overflow {
            let data = &mut joints[c.joint as usize];
            data.impulses = c.impulses;
            let (lin, ang) = c.reactions(states);
            data.reaction = lin * inv_h;
            data.angular_reaction = ang * inv_h;
            let (impulse, angular) = (lin.length() * n, ang.length() * n);
            if impulse > data.def.break_impulse || angular > data.def.break_angular_impulse {
                broken.push((c.joint, impulse, angular));
            }
        }
        // The joints' store reads velocities only, no masses.
        let states = StatesPtr::new(states, None);
        let ptr = DisjointPtr::new(joints);
        broken.extend(
            self.joint_batches
                .iter()
                .flat_map(|b| b.store(states, ptr, n, inv_h)),
        );
        // The ball batches keep their impulses until a joint's slot is read or changed
        // (`flush_ball_impulses`), or the next prepare keeps or rebuilds the batches:
        // here only the break thresholds are tested.
        let breaks = |(b, lanes): (&BallJointW, &BallLanes)| b.breaks(lanes, n);
        let batches = self.ball_batches.iter().zip(&self.ball_lanes);
        if parallel && self.ball_batches.len() > BREAK_CHUNK {
            // Each chunk of batches lists its broken joints, the lists joined in order.
            let (balls, lanes) = (&self.ball_batches, &self.ball_lanes);
            let mut lists = std::mem::take(&mut self.ball_broken);
            lists.resize_with(balls.len().div_ceil(BREAK_CHUNK), Broken::new);
            let test = |c: usize, out: &mut Broken| {
                out.clear();
                let at = c * BREAK_CHUNK;
                let end = balls.len().min(at + BREAK_CHUNK);
                out.extend(balls[at..end].iter().zip(&lanes[at..end]).flat_map(breaks));
            };
            for_each_maybe_par(&mut lists, true, 1, test);
            broken.extend(lists.iter().flatten());
            self.ball_broken = lists;
        } else {
            broken.extend(batches.flat_map(breaks));
        }
        self.ball_pending = !self.ball_batches.is_empty();
        self.ball_inv_h = inv_h;
        broken.sort_unstable_by_key(|b| b.0);
        broken
    }

    /// Writes the impulses the ball batches hold (see [`store_joints`](Self::store_joints))
    /// into their joints' slots. Called before anything reads a ball joint's slot for them
    /// or changes it: the batches' lanes are then still the joints they were laid out for.
    pub fn flush_ball_impulses(&mut self, joints: &mut [JointData]) {
        if !std::mem::take(&mut self.ball_pending) {
            return;
        }
        for (b, lanes) in self.ball_batches.iter().zip(&self.ball_lanes) {
            b.store(lanes, joints, self.ball_inv_h);
        }
    }

    /// Forgets the impulses the ball batches hold (the joints' slots are overwritten).
    pub fn discard_ball_impulses(&mut self) {
        self.ball_pending = false;
    }

    /// Whether the ball batches hold impulses their joints' slots do not.
    pub fn ball_pending(&self) -> bool {
        self.ball_pending
    }

    /// What ball joint `slot`'s slot would hold (impulses, reaction force and torque) if
    /// its batch held its impulse (see [`store_joints`](Self::store_joints)).
    pub fn pending_ball_joint(&self, slot: usize) -> Option<(JointImpulses, Vec3, Vec3)> {
        if !self.ball_pending {
            return None;
        }
        let at = *self.ball_lane_of.get(slot)?;
        if at == NULL {
            return None;
        }
        let (batch, lane) = (at as usize / W, at as usize % W);
        let linear = self.ball_batches[batch].impulse(lane);
        Some(stored(linear, self.ball_inv_h))
    }

    /// Keeps every touching contact's impulses for the next step's warm start (`touching`
    /// and `colors` as given to [`build`](Self::build) and to [`Coloring::list`]): the
    /// overflow's and the trees' are copied into their manifolds; a wide lane's stay in its
    /// batch, and the contact's `pending` entry says which lane (`batch * W + lane`).
    ///
    /// A copy into the manifolds here would reach every touching contact once more at the
    /// end of the step, out of cache (many_pyramids' 28,420 manifolds: about 1.3 ms at one
    /// thread). The next step's narrowphase has each contact in cache anyway and copies
    /// the lane there ([`take_pending`]), before anything reads the impulses; the batches
    /// are not rebuilt before it. Readers between steps see through `pending` (see
    /// [`pending_manifold`]). Figures in `docs/decisions.md`, "The lead".
    ///
    /// A contact's lane is its place in its colour's list, which [`Coloring::list`] kept.
    pub fn store(
        &mut self,
        touching: &[u32],
        colors: &[u8],
        contacts: &mut [Contact],
        pending: &mut [u32],
        parallel: bool,
    ) {
        cs::store_impulses(&self.overflow, contacts);
        let (ranges, place) = (&self.contact_ranges, &self.coloring.place);
        let out = DisjointPtr::new(pending);
        let run = |k: usize| {
            let at = k * STORE_CHUNK;
            let ids = &touching[at..touching.len().min(at + STORE_CHUNK)];
            let rows = ids.iter().zip(&colors[at..]).zip(&place[at..]);
            for ((&id, &color), &place) in rows {
                let Some(range) = ranges.get(color as usize) else {
                    continue; // the overflow's, stored above
                };
                *out.get_mut(id) = (range.start * W) as u32 + place;
            }
        };
        // One chunk: no pool to wake.
        let chunks = touching.len().div_ceil(STORE_CHUNK);
        for_each_index_maybe_par(chunks, parallel && chunks > 1, 1, run);
        self.stacks.store(contacts, pending, &self.contact_batches);
    }

    /// The wide batches the last store left contact impulses in (see [`Self::store`]);
    /// valid until the next [`build`](Self::build).
    pub fn stored_batches(&self) -> &[ContactConstraintW] {
        &self.contact_batches
    }
}
