//! The constraint graph of one step: every constraint the substeps solve, grouped so that
//! the constraints of a group share no dynamic body. The touching contacts are coloured
//! ([`Coloring`]) and each colour packed into wide contact batches; the joints that are
//! not solved as trees take the colours too, each colour's ball joints in ball batches
//! ([`BallJointW`]) and its other joints in batches of one kind ([`JointW`]); what fits no
//! colour (contacts and joints) stays as scalar overflow constraints; the trees of ball
//! joints are solved directly ([`Tree`]), and so are the manifolds that hold heavy bodies
//! on much lighter ones ([`Stacks`], taken out of their batches for the step). Every pass
//! runs the overflow serially first, then the colours one after another, each colour's
//! batches spread over the workers when `parallel` (the caller runs inside the pool; a
//! run of small colours as one stage, each batch after those before it that move its
//! bodies, see [`wave`]), then the trees and the stacks.

mod ahead;
#[cfg(feature = "validate")]
mod check;
mod kept;
mod pending;
mod store;
mod wave;

use super::articulation::{Tree, TreeTopology};
use super::ball_wide::{BallJointW, BallLanes, Broken};
use super::color::{Coloring, COLORS, OVERFLOW};
use super::contact::{self as cs, ContactConstraint};
use super::contact_wide::{ContactConstraintW, StatesPtr};
use super::joint::JointConstraint;
use super::joint_wide::{lane_kind, JointW};
use super::stack::Stacks;
use super::wide::W;
use super::{BodyState, MassRow, SolverBodies, StepContext};
use crate::body::BodyStore;
use crate::collision::MAX_POINTS;
use crate::contact::{solver_bytes, Contact};
use crate::id::NULL;
use crate::joint::JointData;
use crate::math::{prefetch_batches, prefetch_head, prefetch_raw, prefetch_raw_write};
use crate::parallel::{for_each_maybe_par_beside, DisjointPtr};
use ahead::BodiesAhead;
use glam::{Quat, Vec3};
use kept::{Kept, REFRESHABLE, REFRESHED, SEEDED};
pub(crate) use pending::{pending_manifold, take_pending};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

/// How many contact batches ahead the colour passes prefetch the batch they will solve
/// next, where they do ([`prefetch_batches`]: on AMD's processors). A batch is 2 KB, two to
/// a 4 KB page, and Zen 4's hardware prefetchers do not follow a stream across pages, so
/// without it every pass waited on most of each batch's lines (`docs/decisions.md`, "The
/// contact batches prefetched in the passes"). Prepare, which writes every batch afresh,
/// asks for them as far ahead on every machine.
const BATCH_AHEAD: usize = 2;

/// [`for_each_maybe_par`](crate::parallel::for_each_maybe_par) over batches, each worker
/// asking for the first `bytes(k)` bytes of the batch [`BATCH_AHEAD`] places on while it
/// works on one (the same index order on every worker's block; for reads, only where
/// [`prefetch_batches`] says it pays), in the state a store needs when `WRITE` (prepare,
/// which writes every batch whole). The batches' address is shared as an integer (the
/// closure stays `Sync`), and the prefetch forms no reference to a batch another worker may
/// be writing.
fn for_each_prefetched<T: Send, const WRITE: bool>(
    batches: &mut [T],
    parallel: bool,
    min_len: usize,
    bytes: impl Fn(usize) -> usize + Send + Sync,
    f: impl Fn(usize, &mut T) + Send + Sync,
) {
    for_each_prefetched_beside::<T, WRITE>(batches, parallel, min_len, bytes, f, None);
}

/// [`for_each_prefetched`] with serial work `beside` it that shares nothing with the
/// batches (see `parallel::for_each_chunk_maybe_par_beside`).
fn for_each_prefetched_beside<T: Send, const WRITE: bool>(
    batches: &mut [T],
    parallel: bool,
    min_len: usize,
    bytes: impl Fn(usize) -> usize + Send + Sync,
    f: impl Fn(usize, &mut T) + Send + Sync,
    beside: Option<&mut dyn FnMut()>,
) {
    let size = size_of::<T>();
    let (base, len) = (batches.as_ptr() as usize, batches.len());
    // Prepare (`WRITE`) asks on every machine: it writes each batch whole, and on the
    // Intel machine asking was no slower than not (`docs/decisions.md`).
    let ask = WRITE || prefetch_batches();
    let each = |k: usize, batch: &mut T| {
        if ask && k + BATCH_AHEAD < len {
            let (at, bytes) = (base + (k + BATCH_AHEAD) * size, bytes(k + BATCH_AHEAD));
            if WRITE {
                prefetch_raw_write(at, bytes);
            } else {
                prefetch_raw(at, bytes);
            }
        }
        f(k, batch)
    };
    for_each_maybe_par_beside(batches, parallel, min_len, each, beside);
}

/// Contact batches prepared in one stage at least, consecutive colours joined until they
/// hold as many (see [`ConstraintGraph::build`]).
const PREPARE_GROUP: usize = 64;

/// Where a contact's constraint is prepared (see [`ConstraintGraph::locate`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// Wide batch and lane.
    Wide(u32, usize),
    /// Index in the overflow constraints.
    Overflow(u32),
}

/// Every contact batch, joint batch and ball-joint tree of a step, by colour (see the
/// module comment), with the joint lists kept from step to step.
#[derive(Default)]
pub(crate) struct ConstraintGraph {
    pub coloring: Coloring,
    /// Each colour's touching contacts in wide batches, colour after colour.
    contact_batches: Vec<ContactConstraintW>,
    /// Each colour's range of `contact_batches` (one per colour, empty ones included).
    contact_ranges: Vec<Range<usize>>,
    /// The touching contacts that fit no colour, as scalar constraints.
    pub overflow: Vec<ContactConstraint>,
    /// The joints that fit no colour, as scalar constraints.
    pub joint_overflow: Vec<JointConstraint>,
    /// Each colour's joints other than ball joints in wide batches of one kind.
    joint_batches: Vec<JointW>,
    /// Each colour's range of `joint_batches`.
    joint_ranges: Vec<Range<usize>>,
    /// Each colour's joints other than ball joints as (lane kind, slot), sorted; kept
    /// between steps while the joints, the awake set and the trees stay the same (see
    /// [`build_joints`](Self::build_joints)).
    joint_slots: Vec<Vec<(u8, u32)>>,
    /// Each colour's ball joints in wide batches.
    ball_batches: Vec<BallJointW>,
    /// Each colour's range of `ball_batches`.
    ball_ranges: Vec<Range<usize>>,
    /// Each colour's ball joint slots, kept like `joint_slots`.
    ball_slots: Vec<Vec<u32>>,
    /// Each ball batch's joints and bodies, kept with the batches (see [`BallLanes`]).
    ball_lanes: Vec<BallLanes>,
    /// Joint slot -> `batch * W + lane` in `ball_batches`, or [`NULL`], as laid out.
    ball_lane_of: Vec<u32>,
    /// The ball batches hold the last step's impulses, which their joints' slots do not
    /// (see [`store_joints`](Self::store_joints)); `ball_inv_h` is that step's `1 / h`.
    ball_pending: bool,
    ball_inv_h: f32,
    /// Per chunk of ball batches, the joints the break test found broken (scratch).
    ball_broken: Vec<Broken>,
    /// The overflow joints' slots, kept like `joint_slots`.
    joint_overflow_slots: Vec<u32>,
    /// The trees of ball joints solved directly this step.
    trees: Vec<Tree>,
    /// Joint slot -> solved in one of `trees` (when the lists were made).
    solved_in_tree: Vec<bool>,
    /// Which trees of the topology were solved directly when the lists were made.
    tree_ok: Vec<bool>,
    /// Scratch: which trees prepared this step (compared with `tree_ok`).
    tree_now: Vec<bool>,
    /// Heavy bodies on light ones, solved directly this step (its gate,
    /// [`Stacks::lonely`], is also asked ahead of [`Self::build`]).
    pub stacks: Stacks,
    /// Which colours' passes ask for their bodies ahead (see [`ahead`]).
    ahead: BodiesAhead,
    /// What the last step's contact batches were prepared from (see [`Kept`]).
    kept: Kept,
    /// The runs of small colours passed as one stage (see [`wave`]).
    waves: wave::Waves,
    /// The contact batches this step's [`build`](Self::build) refreshed in place.
    pub refreshed: usize,
}

impl ConstraintGraph {
    /// Colours the touching contacts (`touching[k]` is a contact index, `pairs[k]` its two
    /// dynamic solver bodies or [`NULL`]) and prepares each colour straight into wide
    /// batches (laid out and matched with the last step's by [`Self::match_batches`]); the
    /// overflow is prepared as scalar constraints.
    ///
    /// `pending`: the contacts' pending lanes, where the narrow phase left some recycled
    /// manifolds' impulses in their lanes (each in the lane this step gives it). `settled`:
    /// nearly every touching manifold was recycled, so the next narrow phase notes the
    /// lanes for the next step's refreshes (see [`Kept`]).
    #[allow(clippy::too_many_arguments)]
    pub fn build(
        &mut self,
        touching: &[u32],
        pairs: &[[u32; 2]],
        contacts: &[Contact],
        of_body: &[u32],
        tangents: &[Vec3],
        sb: &SolverBodies,
        bodies: &BodyStore,
        joints_of_body: &[Vec<u32>],
        ctx: &StepContext,
        pending: Option<&[u32]>,
        lonely: Option<bool>,
        settled: bool,
        parallel: bool,
    ) {
        // The colours were listed by `World::gather` (`color_contacts`).
        #[cfg(feature = "validate")]
        if let Some((color, body)) = self.coloring.find_conflict(pairs, sb.states.len()) {
            panic!("validate: colour {color} holds dynamic body {body} twice");
        }
        // All colours' batches are laid out first and prepared in one parallel loop (one
        // fork/join a step instead of one per colour), each straight into its slot of
        // `contact_batches` (a batch built elsewhere and moved in costs a copy of the
        // whole batch); `contact_batches` keeps its slots from step to step.
        // (Laid out by `match_batches`, which the caller asked first.)
        let total = self.contact_ranges.last().map_or(0, |r| r.end);
        debug_assert_eq!(self.kept.same.len(), total);
        let grow = total.saturating_sub(self.contact_batches.len());
        crate::huge::reserve(&mut self.contact_batches, grow);
        self.contact_batches
            .resize(total, ContactConstraintW::default());
        // A batch that holds the last step's batch's contacts, lane for lane, is refreshed
        // in place where they were all recycled as they were (see `Kept`).
        let last = &mut self.kept;
        last.next_flags.clear();
        last.next_flags.resize(total, 0);
        // (Read by `match_batches` before; this step's from here on. A step laid out as the
        // last has them already.)
        last.lane_ids.resize(total * W, NULL);
        let note_ids = !last.all_same;
        let (same, flags, next_flags, lane_separations, lane_recycled) = (
            &last.same,
            &last.flags,
            DisjointPtr::new(&mut last.next_flags),
            &last.separations,
            &last.recycled,
        );
        let lane_ids = DisjointPtr::new(&mut last.lane_ids);
        let (coloring, ranges) = (&self.coloring, &self.contact_ranges);
        let colors = &coloring.colors;
        // Whether a batch may hold a heavy body on a light one (an OR over the batches:
        // the same for any split).
        let seeded = AtomicBool::new(false);
        let ahead = self
            .ahead
            .begin(parallel, colors.len(), total, sb.states.len());
        let prepare = |i: usize, out: &mut ContactConstraintW| {
            let color = ranges.partition_point(|r| r.end <= i);
            let (list, c) = (&colors[color], i - ranges[color].start);
            let chunk = |c: usize| &list[c * W..list.len().min(c * W + W)];
            // The contacts are visited out of memory order: start loading the next
            // batch's while this one is prepared.
            // Each contact as far as the next batch's fullest lane's points reach (one
            // point's lie in two lines, four points' in four).
            // (Not a batch that will be refreshed in place: it reads no contact.)
            let in_place = |i: usize, lanes: usize| {
                same[i]
                    && flags[i] & REFRESHABLE != 0
                    && lane_recycled[i * W..i * W + lanes].iter().all(|&r| r)
            };
            if i + 1 < ranges[color].end && !in_place(i + 1, chunk(c + 1).len()) {
                let bytes = solver_bytes(coloring.batch_points(color, (c + 1) * W));
                for &k in chunk(c + 1) {
                    prefetch_head(&contacts[touching[k as usize] as usize], bytes);
                }
            }
            let chunk = chunk(c);
            let ids: [u32; W] =
                std::array::from_fn(|i| chunk.get(i).map_or(NULL, |&k| touching[k as usize]));
            for (l, &id) in ids.iter().enumerate() {
                if note_ids {
                    *lane_ids.get_mut((i * W + l) as u32) = id;
                }
                // A contact whose impulses are still in a lane is in that lane.
                #[cfg(feature = "validate")]
                if let Some(p) = pending.filter(|_| id != NULL) {
                    let at = p[id as usize];
                    assert!(
                        at == NULL || at == (i * W + l) as u32,
                        "validate: contact {id} in lane {} has its impulses in lane {at}",
                        i * W + l
                    );
                }
            }
            let ids = &ids[..chunk.len()];
            // The lanes whose contacts' impulses the narrow phase left in them (each in the
            // lane it had: `World::take_deferred` took the others').
            let kept = || match pending {
                Some(pending) => (ids.iter().enumerate()).fold(0u32, |k, (l, &id)| {
                    k | u32::from(pending[id as usize] == (i * W + l) as u32) << l
                }),
                None => 0,
            };
            let seeds = if in_place(i, chunk.len()) {
                #[cfg(feature = "validate")]
                let (before, kept) = (*out, kept());
                let lanes: [[f32; MAX_POINTS]; W] = std::array::from_fn(|l| {
                    if l < chunk.len() {
                        lane_separations[i * W + l]
                    } else {
                        [0.0; MAX_POINTS]
                    }
                });
                out.refresh(&lanes);
                *next_flags.get_mut(i as u32) = flags[i] | REFRESHED;
                let seeds = flags[i] & SEEDED != 0;
                #[cfg(feature = "validate")]
                out.check_through_manifolds(&before, kept, seeds, contacts, tangents, ids, sb, ctx);
                seeds
            } else {
                let kept = kept();
                let seeds = out.prepare_keeping(contacts, tangents, ids, sb, ctx, kept);
                let refreshable = out.isotropic()
                    && ids.iter().all(|&id| {
                        let c = &contacts[id as usize];
                        c.friction.to_bits() == c.static_friction.to_bits()
                    });
                *next_flags.get_mut(i as u32) =
                    (u8::from(seeds) * SEEDED) | (u8::from(refreshable) * REFRESHABLE);
                seeds
            };
            if seeds {
                seeded.store(true, Ordering::Relaxed);
            }
            let (a, b) = out.bodies();
            ahead.record(i, color, c * W..c * W + chunk.len(), list.len(), a, b);
            // The passes prefetch a batch as far as its colour list's groups say it reaches.
            #[cfg(feature = "validate")]
            assert!(
                out.points_used() <= coloring.batch_points(color, c * W),
                "validate: batch {i} has points past its colour list's groups"
            );
        };
        // Each batch is written whole: the one `BATCH_AHEAD` places on is asked for in the
        // state a store needs while this one is prepared (as the passes read them).
        let whole = |_| size_of::<ContactConstraintW>();
        // Colour by colour (small neighbours together), each a stage of its own when
        // parallel: a stage's front blocks go to the walking thread and its back blocks to
        // the worker, as each colour's blocks do in the passes, so each core prepares
        // most of the batches it then solves, and the passes' first reads of them find
        // them in its own cache (`docs/decisions.md`).
        // The stack search's first question (is there a lone stack's top?) is asked on the
        // walking thread beside the first stage (unless the caller asked it already), and
        // the passes' runs of small colours are planned there: both read only the lists,
        // the pairs and the bodies.
        let mut lonely = lonely;
        {
            let stacks = &mut self.stacks;
            let asked = lonely.is_some();
            let (waves, lists) = (&mut self.waves, &self.coloring.colors);
            let mut side = || {
                if !asked {
                    lonely =
                        Some(stacks.lonely(pairs, touching, contacts, of_body, &sb.slot, ctx.up()));
                }
                waves.plan(parallel, ranges, lists, pairs, sb.states.len());
            };
            let mut beside: Option<&mut dyn FnMut()> = Some(&mut side);
            let mut rest = &mut self.contact_batches[..];
            let mut start = 0;
            for (c, r) in ranges.iter().enumerate() {
                let end = r.end;
                if end - start < PREPARE_GROUP && c + 1 < ranges.len() {
                    continue;
                }
                let (group, tail) = rest.split_at_mut(end - start);
                rest = tail;
                let at = |j: usize, out: &mut ContactConstraintW| prepare(start + j, out);
                for_each_prefetched_beside::<_, true>(group, parallel, 4, whole, at, beside.take());
                start = end;
            }
        }
        let (lists, ranges) = (&self.coloring.colors, &self.contact_ranges);
        self.ahead.end(lists, ranges);
        let (coloring, ranges) = (&self.coloring, &self.contact_ranges);
        self.stacks.build(
            seeded.into_inner(),
            lonely,
            touching,
            contacts,
            pairs,
            of_body,
            tangents,
            sb,
            bodies,
            joints_of_body,
            ctx,
            |at| locate(coloring, ranges, touching.len(), at),
            &mut self.contact_batches,
        );
        // (Counted here: a count shared by the workers, one addition a batch, cost more
        // than the refreshes themselves at two threads.)
        self.refreshed = (self.kept.next_flags.iter())
            .filter(|&&f| f & REFRESHED != 0)
            .count();
        // What this step's batches were made from; a lane a stack took out leaves its batch
        // as no prepare makes it.
        let light_heavy = self.light_heavy(sb, bodies);
        let last = &mut self.kept;
        std::mem::swap(&mut last.flags, &mut last.next_flags);
        last.valid = settled && self.stacks.scalar.is_empty();
        last.defer = last.valid && !light_heavy;
        (last.mass_epoch, last.gravity) = (bodies.mass_epoch, ctx.gravity);
        // The next narrow phase notes every lane of these batches (each of them a touching
        // contact's, which it updates).
        let lanes = if last.valid { total * W } else { 0 };
        last.separations.resize(lanes, [0.0; MAX_POINTS]);
        last.recycled.resize(lanes, false);
        self.overflow.clear();
        self.overflow
            .extend(self.coloring.overflow.iter().map(|&k| {
                let id = touching[k as usize];
                #[cfg(feature = "validate")]
                assert!(
                    pending.is_none_or(|p| p[id as usize] == NULL),
                    "validate: overflow contact {id} has its impulses in a lane"
                );
                let c = &contacts[id as usize];
                let tangent = if c.flags & crate::contact::TANGENT != 0 {
                    tangents[id as usize]
                } else {
                    Vec3::ZERO
                };
                cs::prepare(c, id, tangent, sb, bodies, ctx)
            }));
    }

    /// Prepares the joints (live slots in slot order) that are not solved as trees: each
    /// colour's ball joints into [`BallJointW`] batches, its other joints sorted by kind
    /// into [`JointW`] batches, and the overflow as scalar constraints.
    ///
    /// Sorting the joints into those lists walks every joint slot, so the lists are kept
    /// while `keep_lists` (the caller saw no joint, colour or awake-set change) and the same
    /// trees prepared; with the `validate` feature a kept list is checked against a fresh one.
    #[allow(clippy::too_many_arguments)]
    pub fn build_joints(
        &mut self,
        joints: &[JointData],
        alive: impl Fn(usize) -> bool,
        sb: &SolverBodies,
        positions: &[Vec3],
        rotations: &[Quat],
        topology: &TreeTopology,
        keep_lists: bool,
        h: f32,
        parallel: bool,
    ) {
        // Last step's trees lend their factor blocks to this step's.
        let mut old = std::mem::take(&mut self.trees);
        let mut tree_ok = std::mem::take(&mut self.tree_now);
        tree_ok.clear();
        for range in &topology.trees {
            let tree = &topology.joints[range.clone()];
            // A tree is one connected set of bodies: asleep or awake as a whole.
            let t = tree
                .first()
                .is_some_and(|tj| alive(tj.slot as usize))
                .then(|| Tree::prepare(tree, joints, sb, positions, rotations))
                .flatten();
            tree_ok.push(t.is_some());
            if let Some(mut t) = t {
                if let Some(o) = old.get_mut(self.trees.len()) {
                    t.reuse(o);
                }
                self.trees.push(t);
            }
        }
        let sorted = !keep_lists || tree_ok != self.tree_ok;
        if sorted {
            self.solved_in_tree.clear();
            self.solved_in_tree.resize(joints.len(), false);
            for (range, _) in topology.trees.iter().zip(&tree_ok).filter(|(_, &ok)| ok) {
                for tj in &topology.joints[range.clone()] {
                    self.solved_in_tree[tj.slot as usize] = true;
                }
            }
            std::mem::swap(&mut self.tree_ok, &mut tree_ok);
            self.sort_joints(joints, &alive);
        } else {
            #[cfg(feature = "validate")]
            {
                let kept = (
                    self.joint_slots.clone(),
                    self.ball_slots.clone(),
                    self.joint_overflow_slots.clone(),
                );
                self.sort_joints(joints, &alive);
                assert!(
                    kept == (
                        self.joint_slots.clone(),
                        self.ball_slots.clone(),
                        self.joint_overflow_slots.clone()
                    ),
                    "validate: kept joint lists differ from fresh ones"
                );
            }
        }
        self.tree_now = tree_ok;
        self.joint_overflow.clear();
        self.joint_overflow
            .extend(self.joint_overflow_slots.iter().map(|&slot| {
                JointConstraint::prepare(slot, &joints[slot as usize], sb, positions, rotations)
            }));
        self.joint_batches.clear();
        self.joint_ranges.clear();
        for list in &self.joint_slots {
            let start = self.joint_batches.len();
            for run in list.chunk_by(|x, y| x.0 == y.0) {
                for chunk in run.chunks(W) {
                    let slots: [u32; W] =
                        std::array::from_fn(|i| chunk.get(i).map_or(NULL, |c| c.1));
                    self.joint_batches.push(JointW::prepare(
                        &slots[..chunk.len()],
                        joints,
                        sb,
                        positions,
                        rotations,
                        h,
                    ));
                }
            }
            self.joint_ranges.push(start..self.joint_batches.len());
        }
        // The ball batches: kept with the lists, and then only refreshed from the bodies
        // (see `BallJointW`); else laid out again, each colour's after the last's, and
        // prepared in place in one parallel loop.
        if !sorted {
            let lanes = DisjointPtr::new(&mut self.ball_lanes);
            let refresh = |i: usize, b: &mut BallJointW| {
                b.refresh(lanes.get_mut(i as u32), sb, positions, rotations);
            };
            // Each batch is written whole, as prepare writes the contact batches.
            let whole = |_| size_of::<BallJointW>();
            for_each_prefetched::<_, true>(&mut self.ball_batches, parallel, 8, whole, refresh);
            #[cfg(feature = "validate")]
            for (color, range) in self.ball_ranges.iter().enumerate() {
                for (c, b) in self.ball_batches[range.clone()].iter().enumerate() {
                    let slots = &self.ball_slots[color];
                    let (mut fresh, mut fresh_lanes) = (BallJointW::empty(), BallLanes::EMPTY);
                    let chunk = &slots[c * W..slots.len().min(c * W + W)];
                    fresh.prepare(&mut fresh_lanes, chunk, joints, sb, positions, rotations);
                    if self.ball_pending {
                        fresh.take_impulse(b);
                    }
                    assert_eq!(
                        (
                            format!("{b:?}"),
                            format!("{:?}", self.ball_lanes[range.start + c])
                        ),
                        (format!("{fresh:?}"), format!("{fresh_lanes:?}")),
                        "validate: a kept ball batch differs from a fresh one"
                    );
                }
            }
        } else {
            self.ball_ranges.clear();
            let mut total = 0;
            for slots in &self.ball_slots {
                let batches = slots.len().div_ceil(W);
                self.ball_ranges.push(total..total + batches);
                total += batches;
            }
            self.ball_batches.clear();
            self.ball_batches.resize(total, BallJointW::empty());
            self.ball_lanes.clear();
            self.ball_lanes.resize(total, BallLanes::EMPTY);
            let lanes = DisjointPtr::new(&mut self.ball_lanes);
            let (lists, ranges) = (&self.ball_slots, &self.ball_ranges);
            let prepare = |i: usize, b: &mut BallJointW| {
                let color = ranges.partition_point(|r| r.end <= i);
                let (slots, c) = (&lists[color], i - ranges[color].start);
                let chunk = &slots[c * W..slots.len().min(c * W + W)];
                let lanes = lanes.get_mut(i as u32);
                b.prepare(lanes, chunk, joints, sb, positions, rotations);
            };
            debug_assert!(!self.ball_pending, "a joint read without its impulses");
            let whole = |_| size_of::<BallJointW>();
            for_each_prefetched::<_, true>(&mut self.ball_batches, parallel, 8, whole, prepare);
            self.ball_lane_of.clear();
            self.ball_lane_of.resize(joints.len(), NULL);
            for (i, lanes) in self.ball_lanes.iter().enumerate() {
                for (lane, &slot) in lanes.joints().iter().enumerate() {
                    if slot != NULL {
                        self.ball_lane_of[slot as usize] = (i * W + lane) as u32;
                    }
                }
            }
        }
    }

    /// Sorts the live joints not solved as trees into the overflow, each colour's ball
    /// joints and each colour's other joints by (kind, slot): the batches depend on the
    /// joints only.
    fn sort_joints(&mut self, joints: &[JointData], alive: &impl Fn(usize) -> bool) {
        self.joint_slots.resize_with(COLORS, Vec::new);
        self.joint_slots.iter_mut().for_each(Vec::clear);
        self.ball_slots.resize_with(COLORS, Vec::new);
        self.ball_slots.iter_mut().for_each(Vec::clear);
        self.joint_overflow_slots.clear();
        for (slot, j) in joints.iter().enumerate() {
            if !alive(slot) || self.solved_in_tree[slot] {
                continue;
            }
            if j.color == OVERFLOW {
                self.joint_overflow_slots.push(slot as u32);
            } else if j.ball {
                self.ball_slots[j.color as usize].push(slot as u32);
            } else {
                let kind = lane_kind(&j.def.kind).expect("not a ball joint");
                self.joint_slots[j.color as usize].push((kind, slot as u32));
            }
        }
        for list in &mut self.joint_slots {
            list.sort_unstable();
        }
    }

    /// Runs `overflow_joint` on every overflow joint, serially first, then colour by
    /// colour `joint_batch`, `ball_batch` and `contact_batch` on that colour's batches
    /// (which share no dynamic body, so neither order nor split matters); the contact
    /// batches of a run of small colours without joints in one go, each after the batches
    /// before it that move its bodies (the same results, see [`wave`]).
    #[allow(clippy::too_many_arguments)]
    fn each_color(
        &mut self,
        parallel: bool,
        states: &mut Vec<BodyState>,
        masses: &mut Vec<MassRow>,
        overflow_joint: impl Fn(&mut JointConstraint, &BodyState, &BodyState) -> (Vec3, Vec3, Vec3, Vec3)
            + Send
            + Sync,
        joint_batch: impl Fn(&mut JointW, StatesPtr) + Send + Sync,
        ball_batch: impl Fn(&mut BallJointW, StatesPtr) + Send + Sync,
        contact_batch: impl Fn(&mut ContactConstraintW, StatesPtr) + Send + Sync,
    ) {
        let ptr = StatesPtr::new(states, Some(masses));
        let joint = |c: &mut JointConstraint| {
            let (sa, sb) = (ptr.get(c.a), ptr.get(c.b));
            let (va, wa, vb, wb) = overflow_joint(c, &sa, &sb);
            let (write_a, write_b) = c.writes();
            if write_a {
                ptr.set_velocity(c.a, va, wa);
            }
            if write_b {
                ptr.set_velocity(c.b, vb, wb);
            }
        };
        self.joint_overflow.iter_mut().for_each(joint);
        let mut k = 0;
        while k < self.contact_ranges.len() {
            // A run of small colours (no joint batches among them): one stage.
            if let Some((colors, run)) = self.waves.run_at(k) {
                let (coloring, ranges) = (&self.coloring, &self.contact_ranges);
                let bytes = |i: usize| {
                    let color = ranges.partition_point(|r| r.end <= i);
                    let c = i - ranges[color].start;
                    ContactConstraintW::read_bytes(coloring.batch_points(color, c * W))
                };
                let batches = &mut self.contact_batches;
                let f = |c: &mut ContactConstraintW| contact_batch(c, ptr);
                let state = |k: u32| ptr.prefetch_for_write(k);
                self.waves.pass(run, batches, parallel, bytes, state, f);
                k = colors.end;
                continue;
            }
            let (color, range) = (k, self.contact_ranges[k].clone());
            k += 1;
            if let Some(range) = self.joint_ranges.get(color) {
                let batches = &mut self.joint_batches[range.clone()];
                let par = parallel && batches.len() > 8;
                let whole = |_| size_of::<JointW>();
                for_each_prefetched::<_, false>(batches, par, 4, whole, |_, b| joint_batch(b, ptr));
            }
            if let Some(range) = self.ball_ranges.get(color) {
                let batches = &mut self.ball_batches[range.clone()];
                let par = parallel && batches.len() > 8;
                let whole = |_| size_of::<BallJointW>();
                for_each_prefetched::<_, false>(batches, par, 8, whole, |_, b| ball_batch(b, ptr));
            }
            let batches = &mut self.contact_batches[range.clone()];
            let par = parallel && batches.len() > 1;
            // A pass reads a batch up to its fullest lane's last point.
            let coloring = &self.coloring;
            let bytes =
                |c: usize| ContactConstraintW::read_bytes(coloring.batch_points(color, c * W));
            match self.ahead.rows(color, range.clone(), par) {
                Some(rows) => for_each_prefetched::<_, false>(batches, par, 4, bytes, |i, c| {
                    rows.ask(i, ptr);
                    contact_batch(c, ptr)
                }),
                None => for_each_prefetched::<_, false>(batches, par, 4, bytes, |_, c| {
                    contact_batch(c, ptr)
                }),
            }
        }
    }

    /// Whether any joint is solved this step (after [`build_joints`](Self::build_joints)).
    pub fn has_joints(&self) -> bool {
        !(self.trees.is_empty()
            && self.joint_overflow.is_empty()
            && self.joint_batches.is_empty()
            && self.ball_batches.is_empty())
    }

    /// Applies the accumulated impulses again (start of every substep).
    pub fn warm_start(
        &mut self,
        states: &mut Vec<BodyState>,
        masses: &mut Vec<MassRow>,
        parallel: bool,
    ) {
        self.trees.iter().for_each(|t| t.warm_start(states));
        self.stacks.warm_start(states);
        cs::warm_start(&self.overflow, states);
        self.each_color(
            parallel,
            states,
            masses,
            |j, sa, sb| j.warm_start(sa, sb),
            |b, ptr| b.warm_start(ptr),
            |b, ptr| b.warm_start(ptr),
            |c, ptr| c.warm_start(ptr),
        );
    }

    /// One solve (`use_bias`) or relax pass.
    pub fn solve(
        &mut self,
        states: &mut Vec<BodyState>,
        masses: &mut Vec<MassRow>,
        ctx: &StepContext,
        use_bias: bool,
        parallel: bool,
    ) {
        cs::solve(&mut self.overflow, states, ctx, use_bias);
        self.each_color(
            parallel,
            states,
            masses,
            |j, sa, sb| j.solve(sa, sb, ctx, use_bias),
            |b, ptr| b.solve(ptr, ctx, use_bias),
            |b, ptr| b.solve(ptr, ctx, use_bias),
            |c, ptr| c.solve(ptr, ctx, use_bias),
        );
        // The trees last: their rows then hold exactly when the positions move.
        self.trees
            .iter_mut()
            .for_each(|t| t.solve(states, ctx, use_bias));
        self.stacks.solve(states, ctx, use_bias);
    }

    /// Fills `at` with where each touching contact's constraint was prepared this step,
    /// by touching index: a wide batch and lane, or an overflow constraint
    /// ([`Slot::Overflow`]).
    pub fn locate(&self, touching: usize, at: &mut Vec<Slot>) {
        locate(&self.coloring, &self.contact_ranges, touching, at);
    }

    /// The normal impulse of this substep so far, summed over the points, of the contact
    /// constraint at `slot`.
    pub fn normal_load(&self, slot: Slot) -> f32 {
        match slot {
            Slot::Wide(batch, lane) => self.contact_batches[batch as usize].normal_load(lane),
            Slot::Overflow(i) => {
                let c = &self.overflow[i as usize];
                c.points[..c.count].iter().map(|p| p.normal_impulse).sum()
            }
        }
    }
}

/// [`ConstraintGraph::locate`] from the colours and their batch ranges.
fn locate(coloring: &Coloring, ranges: &[Range<usize>], touching: usize, at: &mut Vec<Slot>) {
    at.clear();
    at.resize(touching, Slot::Overflow(NULL));
    for (list, range) in coloring.colors.iter().zip(ranges) {
        for (pos, &k) in list.iter().enumerate() {
            at[k as usize] = Slot::Wide((range.start + pos / W) as u32, pos % W);
        }
    }
    for (i, &k) in coloring.overflow.iter().enumerate() {
        at[k as usize] = Slot::Overflow(i as u32);
    }
}
