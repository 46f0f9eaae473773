//! The contact constraints of one step, coloured and batched: each colour's constraints in
//! wide batches, and the overflow of the colouring as scalar constraints. Every pass runs
//! the overflow serially first, then the colours one after another, each colour's
//! batches spread over the workers when `parallel` (the caller runs inside the pool).

use super::color::{Coloring, COLORS, OVERFLOW};
use super::contact::{self as cs, ContactConstraint};
use super::contact_wide::{ContactConstraintW, ContactsPtr, StatesPtr};
use super::joint::JointConstraint;
use super::wide::W;
use super::{BodyState, SolverBodies, StepContext};
use crate::body::BodyStore;
use crate::broadphase::NULL;
use crate::contact::Contact;
use crate::joint::JointData;
use crate::math::prefetch_head;
use glam::{Quat, Vec3};
use rayon::prelude::*;
use std::ops::Range;

/// The bytes of a [`Contact`] that `prepare` reads: the bodies, the coefficients and the
/// manifold, which its layout puts first.
const HOT_BYTES: usize = std::mem::offset_of!(Contact, shape_a);

#[derive(Default)]
pub(crate) struct ContactBatches {
    pub coloring: Coloring,
    wide: Vec<ContactConstraintW>,
    /// Each colour's batches in `wide` (one range per colour, empty ones included).
    ranges: Vec<Range<usize>>,
    pub overflow: Vec<ContactConstraint>,
    /// Each colour's joints, and the joints that fit no colour.
    joints: Vec<Vec<JointConstraint>>,
    pub joint_overflow: Vec<JointConstraint>,
}

impl ContactBatches {
    /// Colours the touching contacts (`touching[k]` is a contact index, `pairs[k]` its two
    /// dynamic solver bodies or [`NULL`]) and prepares each colour straight into wide
    /// batches; the overflow is prepared as scalar constraints.
    #[allow(clippy::too_many_arguments)]
    pub fn build(
        &mut self,
        touching: &[u32],
        pairs: &[[u32; 2]],
        contacts: &[Contact],
        sb: &SolverBodies,
        bodies: &BodyStore,
        ctx: &StepContext,
        parallel: bool,
    ) {
        // The colours were listed by `World::gather_contacts`; `pairs` is only checked.
        #[cfg(not(feature = "validate"))]
        let _ = pairs;
        #[cfg(feature = "validate")]
        if let Some((color, body)) = self.coloring.find_conflict(pairs, sb.states.len()) {
            panic!("validate: colour {color} holds dynamic body {body} twice");
        }
        self.wide.clear();
        self.ranges.clear();
        for list in &self.coloring.colors {
            let start = self.wide.len();
            let chunks = list.len().div_ceil(W);
            let chunk = |c: usize| &list[c * W..list.len().min(c * W + W)];
            let prepare = |c: usize| {
                // The contacts are visited out of memory order: start loading the next
                // batch's while this one is prepared.
                if c + 1 < chunks {
                    for &k in chunk(c + 1) {
                        prefetch_head(&contacts[touching[k as usize] as usize], HOT_BYTES);
                    }
                }
                let chunk = chunk(c);
                let ids: [u32; W] =
                    std::array::from_fn(|i| chunk.get(i).map_or(NULL, |&k| touching[k as usize]));
                ContactConstraintW::prepare(contacts, &ids[..chunk.len()], sb, ctx)
            };
            if parallel {
                self.wide
                    .par_extend((0..chunks).into_par_iter().map(prepare));
            } else {
                self.wide.extend((0..chunks).map(prepare));
            }
            self.ranges.push(start..self.wide.len());
        }
        self.overflow.clear();
        self.overflow
            .extend(self.coloring.overflow.iter().map(|&k| {
                let id = touching[k as usize];
                cs::prepare(&contacts[id as usize], id, sb, bodies)
            }));
    }

    /// Prepares the joints (live slots in slot order) into their colours' lists.
    pub fn build_joints(
        &mut self,
        joints: &[JointData],
        alive: impl Fn(usize) -> bool,
        sb: &SolverBodies,
        positions: &[Vec3],
        rotations: &[Quat],
    ) {
        self.joints.resize_with(COLORS, Vec::new);
        self.joints.iter_mut().for_each(Vec::clear);
        self.joint_overflow.clear();
        for (slot, j) in joints.iter().enumerate() {
            if !alive(slot) {
                continue;
            }
            let c = JointConstraint::prepare(slot as u32, j, sb, positions, rotations);
            match j.color {
                OVERFLOW => self.joint_overflow.push(c),
                color => self.joints[color as usize].push(c),
            }
        }
    }

    /// The prepared joints, overflow first, then colour by colour.
    pub fn joints(&self) -> impl Iterator<Item = &JointConstraint> {
        self.joint_overflow
            .iter()
            .chain(self.joints.iter().flatten())
    }

    /// Runs `fj` on every joint and `f` on every batch, colour by colour: the overflow's
    /// joints serially first, then per colour its joints and its contact batches (which
    /// share no dynamic body, so neither order nor split matters).
    fn each_color(
        &mut self,
        parallel: bool,
        states: &mut [BodyState],
        fj: impl Fn(&mut JointConstraint, &BodyState, &BodyState) -> (Vec3, Vec3, Vec3, Vec3)
            + Send
            + Sync,
        f: impl Fn(&mut ContactConstraintW, StatesPtr) + Send + Sync,
    ) {
        let ptr = StatesPtr::new(states);
        let joint = |c: &mut JointConstraint| {
            let (sa, sb) = (ptr.get(c.a), ptr.get(c.b));
            let (va, wa, vb, wb) = fj(c, &sa, &sb);
            let (write_a, write_b) = c.writes();
            if write_a {
                ptr.set_velocity(c.a, va, wa);
            }
            if write_b {
                ptr.set_velocity(c.b, vb, wb);
            }
        };
        self.joint_overflow.iter_mut().for_each(joint);
        for (k, range) in self.ranges.iter().enumerate() {
            if let Some(joints) = self.joints.get_mut(k) {
                if parallel && joints.len() > 64 {
                    joints.par_iter_mut().with_min_len(32).for_each(joint)
                } else {
                    joints.iter_mut().for_each(joint)
                }
            }
            let batches = &mut self.wide[range.clone()];
            if parallel && batches.len() > 1 {
                batches
                    .par_iter_mut()
                    .with_min_len(4)
                    .for_each(|c| f(c, ptr))
            } else {
                batches.iter_mut().for_each(|c| f(c, ptr))
            }
        }
    }

    /// Applies the accumulated impulses again (start of every substep).
    pub fn warm_start(&mut self, states: &mut [BodyState], parallel: bool) {
        cs::warm_start(&self.overflow, states);
        self.each_color(
            parallel,
            states,
            |j, sa, sb| j.warm_start(sa, sb),
            |c, ptr| c.warm_start(ptr),
        );
    }

    /// One solve (`use_bias`) or relax pass.
    pub fn solve(
        &mut self,
        states: &mut [BodyState],
        ctx: &StepContext,
        use_bias: bool,
        parallel: bool,
    ) {
        cs::solve(&mut self.overflow, states, ctx, use_bias);
        self.each_color(
            parallel,
            states,
            |j, sa, sb| j.solve(sa, sb, ctx, use_bias),
            |c, ptr| c.solve(ptr, ctx, use_bias),
        );
    }

    /// The restitution pass after the substeps.
    pub fn restitution(&mut self, states: &mut [BodyState], ctx: &StepContext, parallel: bool) {
        cs::restitution(&mut self.overflow, states, ctx);
        let states = StatesPtr::new(states);
        for range in &self.ranges {
            let batches = &mut self.wide[range.clone()];
            if parallel && batches.len() > 1 {
                batches
                    .par_iter_mut()
                    .with_min_len(4)
                    .for_each(|c| c.restitution(states, ctx))
            } else {
                batches.iter_mut().for_each(|c| c.restitution(states, ctx))
            }
        }
    }

    /// Copies the impulses into the manifolds for the next step's warm start.
    pub fn store(&self, contacts: &mut [Contact], parallel: bool) {
        cs::store_impulses(&self.overflow, contacts);
        let contacts = ContactsPtr::new(contacts);
        let wide = &self.wide;
        let store = |i: usize| {
            // As in `build`: load the next batch's contacts while this one is written.
            if let Some(next) = wide.get(i + 1) {
                next.prefetch_sources(contacts, HOT_BYTES);
            }
            wide[i].store(contacts);
        };
        if parallel {
            (0..wide.len())
                .into_par_iter()
                .with_min_len(16)
                .for_each(store);
        } else {
            (0..wide.len()).for_each(store);
        }
    }
}
