//! What the last step's contact batches were made from, so that a scene at rest has them
//! refreshed in place rather than made again (see [`Kept`]).

use super::super::contact_wide::ContactConstraintW;
use super::super::stack::MASS_RATIO;
use super::super::wide::W;
use super::super::SolverBodies;
use super::ConstraintGraph;
use crate::body::BodyStore;
use crate::collision::MAX_POINTS;
use crate::id::NULL;
use crate::parallel::DisjointPtr;
use glam::Vec3;

/// What the last step's contact batches were prepared from (`docs/decisions.md`,
/// "Contact batches refreshed in place" and "Batches refreshed where their lanes stay").
/// A batch that holds the same contacts in the same lanes as the last step's batch at its
/// place ([`Kept::same`]), with the solver bodies, their masses and the gravity unchanged
/// and no lane taken out by a stack last step, whose every manifold was recycled as it was
/// (and whose lanes are [`REFRESHABLE`]), is brought up to the step with
/// [`ContactConstraintW::refresh`], from the separations the narrow phase noted by lane,
/// without loading its contacts again. The notes are taken only where the last step's
/// manifolds were nearly all recycled (`settled` in [`ConstraintGraph::build`]): a scene in
/// motion pays neither their time nor their memory.
#[derive(Default)]
pub(super) struct Kept {
    /// The batches are as the last step's passes left them, and `flags` holds theirs; the
    /// narrow phase then notes the lanes (`separations`, `recycled`).
    pub valid: bool,
    /// The narrow phase may leave a recycled manifold's impulses in its lane (`valid`, and
    /// no two dynamic bodies far enough apart in mass for the stack search to run on the
    /// loads in the manifolds: see `World::take_deferred`).
    pub defer: bool,
    pub mass_epoch: u64,
    pub gravity: Vec3,
    /// The mass epoch whose awake bodies `light_heavy` was asked of, and its answer: some
    /// two of them are [`MASS_RATIO`] apart.
    pub masses_asked: Option<u64>,
    pub light_heavy: bool,
    /// Per batch: [`SEEDED`] (what [`ContactConstraintW::prepare`] returned), [`REFRESHABLE`];
    /// `next_flags` is this step's, written as the batches are made (then swapped in).
    pub flags: Vec<u8>,
    pub next_flags: Vec<u8>,
    /// Per batch of this step: it holds the contacts of the last step's batch at its place,
    /// lane for lane, and what they were made from is unchanged (see
    /// [`ConstraintGraph::match_batches`]).
    pub same: Vec<bool>,
    /// Every batch is `same` (the step is laid out as the last): no contact changed lanes.
    pub all_same: bool,
    /// Per lane of the last step's batches, its contact ([`NULL`] for an empty lane): what
    /// [`ConstraintGraph::match_batches`] compares, one dense column rather than a line of
    /// each batch. Written by every step's prepare (4 bytes a lane) but one laid out as the
    /// last.
    pub lane_ids: Vec<u32>,
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
        self.kept.defer = false;
    }

    /// Lays the colours' batches out (`contact_ranges`); returns how many there are.
    pub(super) fn lay_out(&mut self) -> usize {
        self.contact_ranges.clear();
        let mut total = 0;
        for list in &self.coloring.colors {
            let batches = list.len().div_ceil(W);
            self.contact_ranges.push(total..total + batches);
            total += batches;
        }
        total
    }

    /// Finds, after the colours are listed, which of this step's contact batches hold the
    /// contacts of the last step's batch at their place, lane for lane (`touching` maps the
    /// lists to contacts), with the solver bodies, their masses and the gravity as they
    /// were: [`Self::build`] refreshes those whose lanes were all recycled (see [`Kept`]).
    /// A step laid out as the last (`changed`: the touching contacts are not) needs no
    /// comparison. `slots_changed`: the solver's bodies are not the last step's
    /// ([`SolverBodies::slots_changed`]).
    pub fn match_batches(
        &mut self,
        touching: &[u32],
        changed: bool,
        slots_changed: bool,
        bodies: &BodyStore,
        gravity: Vec3,
    ) {
        let total = self.lay_out();
        let last = &mut self.kept;
        let old = last.flags.len();
        last.same.clear();
        last.all_same = false;
        let usable = last.valid
            && !slots_changed
            && last.mass_epoch == bodies.mass_epoch
            && last.gravity == gravity
            && last.separations.len() == old * W
            && last.lane_ids.len() == old * W;
        if !usable {
            last.same.resize(total, false);
            return;
        }
        if !changed && !self.coloring.relisted && total == old {
            last.same.resize(total, true);
            last.all_same = true;
            return;
        }
        let before = &last.lane_ids;
        for (list, range) in self.coloring.colors.iter().zip(&self.contact_ranges) {
            for (j, i) in range.clone().enumerate() {
                let chunk = &list[j * W..list.len().min(j * W + W)];
                let same = i < old && {
                    let lanes = &before[i * W..i * W + W];
                    (0..W).all(|l| chunk.get(l).map_or(NULL, |&k| touching[k as usize]) == lanes[l])
                };
                last.same.push(same);
            }
        }
    }

    /// Calls `moved` with each touching contact (by touching index) that may hold a lane
    /// other than the one this step's batches give it (after [`Self::match_batches`]), and
    /// that lane ([`NULL`] for the overflow's): those of the batches that are not
    /// [`Kept::same`], and the overflow's. A contact of a `same` batch keeps its lane.
    pub fn each_moved(&self, mut moved: impl FnMut(usize, u32)) {
        if self.kept.all_same {
            return;
        }
        for (list, range) in self.coloring.colors.iter().zip(&self.contact_ranges) {
            for (j, i) in range.clone().enumerate() {
                if self.kept.same[i] {
                    continue;
                }
                let chunk = &list[j * W..list.len().min(j * W + W)];
                for (l, &k) in chunk.iter().enumerate() {
                    moved(k as usize, (i * W + l) as u32);
                }
            }
        }
        for &k in &self.coloring.overflow {
            moved(k as usize, NULL);
        }
    }

    /// Whether a batch the last step made may hold a heavy body on a light one (the
    /// stack search then runs whatever else it finds).
    pub fn kept_seeded(&self) -> bool {
        self.kept.flags.iter().any(|&f| f & SEEDED != 0)
    }

    /// Whether some two of the awake dynamic bodies are [`MASS_RATIO`] apart in mass (so
    /// that a batch may be seeded for the stack search), asked again when a mass or the
    /// awake set changed.
    pub(super) fn light_heavy(&mut self, sb: &SolverBodies, bodies: &BodyStore) -> bool {
        let kept = &mut self.kept;
        if sb.slots_changed || kept.masses_asked != Some(bodies.mass_epoch) {
            let (mut least, mut most) = (f32::INFINITY, 0.0f32);
            for m in sb.mass.iter().filter(|m| m.inv_mass > 0.0) {
                (least, most) = (least.min(m.inv_mass), most.max(m.inv_mass));
            }
            kept.light_heavy = most >= MASS_RATIO * least;
            kept.masses_asked = Some(bodies.mass_epoch);
        }
        kept.light_heavy
    }

    /// The last step's contact batches (see [`Self::stored_batches`]), where the narrow
    /// phase notes their lanes' manifolds when it should (see [`Kept`]), and whether it may
    /// leave a recycled manifold's impulses in its lane ([`Kept::defer`]).
    pub fn lanes_kept(&mut self) -> (&[ContactConstraintW], Option<LaneNotes>, bool) {
        let kept = &mut self.kept;
        // A lane the narrow phase does not note is not refreshed.
        kept.recycled.fill(false);
        let notes = kept.valid.then(|| LaneNotes {
            lanes: kept.recycled.len() as u32,
            separations: DisjointPtr::new(&mut kept.separations),
            recycled: DisjointPtr::new(&mut kept.recycled),
        });
        (&self.contact_batches, notes, kept.defer)
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
