//! What the last step's contact batches were made from, so that a scene at rest has them
//! refreshed in place rather than made again (see [`Kept`]).

use super::super::contact_wide::ContactConstraintW;
use super::super::wide::W;
use super::super::{SolverBodies, StepContext};
use super::ConstraintGraph;
use crate::body::BodyStore;
use crate::collision::MAX_POINTS;
use crate::parallel::DisjointPtr;
use glam::Vec3;

/// What the last step's contact batches were prepared from (`docs/decisions.md`,
/// "Contact batches refreshed in place"). A step whose touching contacts, colour lists and
/// solver bodies are the last step's (`Touching::changed`, `Coloring::relisted`,
/// `SolverBodies::slots_changed`), with the bodies' masses and the gravity unchanged and
/// no lane taken out by a stack, brings each batch whose every
/// manifold was recycled as it was (and whose lanes are [`REFRESHABLE`])
/// up to the step with [`ContactConstraintW::refresh`], from the separations the narrow
/// phase noted by lane, without loading its contacts again. What that needs is kept only
/// while a scene stays so (a step the same as the one before it): a scene in motion pays
/// neither its time nor its memory.
#[derive(Default)]
pub(super) struct Kept {
    /// The batches are as the last step's passes left them, and `flags` holds theirs; the
    /// narrow phase then notes the lanes (`separations`, `recycled`).
    pub valid: bool,
    pub mass_epoch: u64,
    pub gravity: Vec3,
    /// Per batch: [`SEEDED`] (what [`ContactConstraintW::prepare`] returned), [`REFRESHABLE`];
    /// `next_flags` is this step's, written as the batches are made (then swapped in).
    pub flags: Vec<u8>,
    pub next_flags: Vec<u8>,
    /// Per lane of the last step's batches (`batch * W + lane`), its manifold's
    /// separations (zero past its count) and whether it was recycled as it was, with no
    /// contact modifier on it: written by the narrow phase, where `valid`.
    pub separations: Vec<[f32; MAX_POINTS]>,
    pub recycled: Vec<bool>,
}

/// A batch may hold a heavy body on a light one (see [`ContactConstraintW::prepare`]).
pub(super) const SEEDED: u8 = 1;
/// Every lane's bodies have isotropic inverse inertias (their masses do not turn with
/// them), and every lane's kinetic and static friction are the same (its friction does not
/// depend on how fast it slides).
pub(super) const REFRESHABLE: u8 = 2;
/// The batch was refreshed in place this step (for `ConstraintGraph::refreshed`).
pub(super) const REFRESHED: u8 = 4;

impl ConstraintGraph {
    /// Drops what the last step's contact batches were made from (a restored state), so
    /// the next step prepares every batch from its contacts.
    pub fn forget_kept(&mut self) {
        self.kept.valid = false;
    }

    /// Whether this step's contact batches are laid out as the last step's and made from
    /// the same bodies, masses and gravity (only the separations moved): [`Self::build`]
    /// then refreshes in place each batch whose lanes were all recycled (see [`Kept`]).
    /// Asked after the colours are listed.
    pub fn reuses_batches(
        &self,
        changed: bool,
        sb: &SolverBodies,
        bodies: &BodyStore,
        ctx: &StepContext,
    ) -> bool {
        let total: usize = (self.coloring.colors.iter())
            .map(|list| list.len().div_ceil(W))
            .sum();
        let last = &self.kept;
        !changed
            && !sb.slots_changed
            && !self.coloring.relisted
            && last.valid
            && last.mass_epoch == bodies.mass_epoch
            && last.gravity == ctx.gravity
            && last.flags.len() == total
            && last.separations.len() == total * W
    }

    /// Whether a batch that [`Self::reuses_batches`] keeps may hold a heavy body on a
    /// light one (the stack search then runs whatever else it finds).
    pub fn kept_seeded(&self) -> bool {
        self.kept.flags.iter().any(|&f| f & SEEDED != 0)
    }

    /// The stack search's first question (see [`Stacks::lonely`](super::super::stack::Stacks::lonely)), asked ahead of
    /// [`Self::build`].
    pub fn lonely_stack(&mut self, pairs: &[[u32; 2]], of_body: &[u32], sb: &SolverBodies) -> bool {
        self.stacks.lonely(pairs, of_body, sb)
    }

    /// The last step's contact batches (see [`Self::stored_batches`]), and where the
    /// narrow phase notes their lanes' manifolds when it should (see [`Kept`]).
    pub fn lanes_kept(&mut self) -> (&[ContactConstraintW], Option<LaneNotes>) {
        let kept = &mut self.kept;
        // A lane the narrow phase does not note is not refreshed.
        kept.recycled.fill(false);
        let notes = kept.valid.then(|| LaneNotes {
            lanes: kept.recycled.len() as u32,
            separations: DisjointPtr::new(&mut kept.separations),
            recycled: DisjointPtr::new(&mut kept.recycled),
        });
        (&self.contact_batches, notes)
    }
}

/// Where the narrow phase notes, by lane of the last step's contact batches (`batch * W +
/// lane`, a contact's pending lane), the lane's manifold's separations and whether it was
/// recycled as it was (see [`Kept`]). Each lane is one contact's, noted by the worker that
/// updates that contact.
pub(crate) struct LaneNotes {
    lanes: u32,
    separations: DisjointPtr<[f32; MAX_POINTS]>,
    recycled: DisjointPtr<bool>,
}

impl LaneNotes {
    /// Notes lane `lane` (`NULL` or past the batches: nothing).
    #[inline]
    pub fn note(&self, lane: u32, separations: [f32; MAX_POINTS], recycled: bool) {
        if lane < self.lanes {
            *self.separations.get_mut(lane) = separations;
            *self.recycled.get_mut(lane) = recycled;
        }
    }
}
