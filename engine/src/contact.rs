//! Persistent contacts: one per overlapping pair of shapes that can collide, holding the
//! manifold and the impulses carried from step to step.

use crate::body::{BodyStore, BodyType};
use crate::collision::box_box::{axis_separation, NO_AXIS};
use crate::collision::{collide_into, gap, triangle::collide_triangle, Manifold, MAX_POINTS};
use crate::id::NULL;
use crate::math::Transform;
use crate::shape::store::{ShapeData, ShapeStore};
use crate::shape::ShapeKind;
use glam::Vec3;
use wide::f32x4;

/// The colour of a contact that has none (not touching): see `solver::color`.
pub(crate) const NO_COLOR: u8 = u8::MAX;

/// The contact is between a sensor and a visitor: `touching` means overlapping, and it
/// is never solved.
pub(crate) const SENSOR: u8 = 1;
/// Its begin and end are published as contact events.
pub(crate) const CONTACT_EVENTS: u8 = 2;
/// Its beginning is published as a hit event when fast enough.
pub(crate) const HIT_EVENTS: u8 = 4;
/// The host's contact modifier sees it every step it touches.
pub(crate) const MODIFY: u8 = 8;
/// The modifier gave it a tangent velocity (in [`ContactStore::tangent`]).
pub(crate) const TANGENT: u8 = 16;
/// A dynamic body of the pair had an anisotropic inverse inertia (not `k I`) when the
/// contact was created: the colour lists keep such contacts apart from the others, so
/// that batches of cubes and spheres take the contact kernels' shorter products (see
/// `solver::color::Coloring::list`). A hint for grouping only: each batch works out from
/// its bodies' masses which products it takes, so a hint gone stale (a body's mass set
/// since) costs time, not results.
pub(crate) const GENERAL_INERTIA: u8 = 32;

/// Where a [`list_key`]'s inertia group starts: 0 for a pair whose movable bodies are all
/// isotropic, 1 for the others.
pub(crate) const INERTIA_SHIFT: u32 = 4;

/// The key the solver's colour lists sort a touching contact by (`Coloring::list`): its
/// point count, and its inertia group above it ([`INERTIA_SHIFT`]).
#[inline]
pub(crate) fn list_key(c: &Contact) -> u8 {
    let general = u8::from(c.flags & GENERAL_INERTIA != 0);
    c.manifold.count as u8 | general << INERTIA_SHIFT
}

/// The contact's size: 7 lines.
const _: () = assert!(std::mem::size_of::<Contact>() == 448);

/// The bytes at the head of a [`Contact`] that the solver's `prepare` reads (and its
/// `store` writes): bodies, friction coefficients and the manifold up to the last point's
/// impulses, four cache lines. The point's id and world position, the manifold's tail,
/// lie past them.
pub(crate) const SOLVER_BYTES: usize = 256;
/// The bytes at the head of a [`Contact`] that `prepare` reads when its manifold has at
/// most `points` points (1 to [`MAX_POINTS`]): [`SOLVER_BYTES`] stops at the fourth
/// point's, and a one-point manifold's lie in the first two lines.
pub(crate) const fn solver_bytes(points: usize) -> usize {
    use std::mem::offset_of;
    let points = if points < 1 { 1 } else { points };
    offset_of!(Contact, manifold)
        + offset_of!(Manifold, points)
        + (points - 1) * std::mem::size_of::<crate::collision::ManifoldPoint>()
        + offset_of!(crate::collision::ManifoldPoint, id)
}
const _: () = {
    assert!(solver_bytes(MAX_POINTS) <= SOLVER_BYTES);
    assert!(solver_bytes(1) > std::mem::offset_of!(Contact, static_friction));
};

/// A contact between shapes `shape_a` and `shape_b` (slot indices, ordered so that
/// `kind(a) <= kind(b)`; the manifold normal points from A to B).
///
/// Laid out for the solver: what `prepare` and `store` touch (bodies, friction
/// coefficients, the manifold's solver fields) fills the first [`SOLVER_BYTES`], the
/// recycling cache comes last. Prepare visits the contacts colour by colour, out of memory
/// order, so each visit is a cache miss per line touched; with the hot fields first the
/// lines are adjacent and its prefetch covers them.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub(crate) struct Contact {
    pub body_a: u32,
    pub body_b: u32,
    // The flags share the first line with the bodies: the narrowphase decides from that
    // line alone whether a contact of sleeping bodies can be skipped.
    pub alive: bool,
    pub touching: bool,
    /// `touching` changed in the last narrowphase update.
    pub touch_changed: bool,
    /// The manifold was recycled this step rather than recomputed.
    pub recycled: bool,
    /// The constraint colour while touching ([`NO_COLOR`]
    /// otherwise), kept across steps.
    pub color: u8,
    /// Which bodies hold a bit in `color` (see [`crate::solver::color::Coloring::assign`]).
    pub color_sides: u8,
    /// [`SENSOR`], [`CONTACT_EVENTS`], [`HIT_EVENTS`], [`MODIFY`], [`GENERAL_INERTIA`]:
    /// fixed when the contact is created; [`TANGENT`], set by the contact modifier.
    pub flags: u8,
    /// Two boxes' separating axis of the last update, which found them apart by it with
    /// nothing else changed since, or [`APART_BY_GAP`] for other pairs found apart by a
    /// known gap ([`NO_AXIS`] otherwise): the next update tests it first (see
    /// [`axis_separation`]). A cache with no part in the results, not kept in images.
    pub separating: u8,
    /// Mixed kinetic friction coefficient: sqrt(μa μb).
    pub friction: f32,
    /// Mixed static friction coefficient: sqrt(μa μb).
    pub static_friction: f32,
    pub manifold: Manifold,
    /// Mixed restitution: max(ea, eb).
    pub restitution: f32,
    /// Mixed rolling resistance times rolling radius, in m: the larger of the shapes'.
    pub rolling_resistance: f32,
    pub shape_a: u32,
    pub shape_b: u32,
    /// A child contact's triangle in its mesh or height field (shape B); `NULL` for other
    /// contacts (see `world/midphase.rs`).
    pub child: u32,
    /// The mesh pair (in `World::mesh_pairs`) of a parent or child contact; `NULL` for
    /// ordinary contacts.
    pub link: u32,
    /// What recycling needs of the last full manifold.
    pub cache: ManifoldCache,
}

/// The last fully computed manifold, in the bodies' own frames: B's pose in A's frame and
/// each point's anchors on A's and B's surfaces in their own frames.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ManifoldCache {
    pub valid: bool,
    pub relative: Transform,
    pub anchor_a: Anchors,
    pub anchor_b: Anchors,
    /// Largest distance a point may drift (m) before the manifold is recomputed.
    pub tolerance: f32,
}

/// Up to [`MAX_POINTS`] anchors, stored by coordinate (`[x, y, z]`, each with one entry a
/// point): recycling reads them as one lane a point with three plain loads, where points
/// stored one after another took twelve scalar inserts a set (`docs/decisions.md`, "The
/// recycling cache's anchors stored by coordinate").
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(16))]
pub(crate) struct Anchors([[f32; MAX_POINTS]; 3]);

impl Anchors {
    /// Anchor `k`.
    #[inline]
    pub fn get(&self, k: usize) -> Vec3 {
        Vec3::new(self.0[0][k], self.0[1][k], self.0[2][k])
    }

    /// Sets anchor `k`.
    #[inline]
    pub fn set(&mut self, k: usize, v: Vec3) {
        (self.0[0][k], self.0[1][k], self.0[2][k]) = (v.x, v.y, v.z);
    }

    /// Whether every coordinate is finite.
    pub fn is_finite(&self) -> bool {
        self.0.iter().flatten().all(|x| x.is_finite())
    }

    /// The anchors in lanes: `[x, y, z]`, lane `k` anchor `k`.
    #[inline(always)]
    fn lanes(&self) -> [f32x4; 3] {
        self.0.map(f32x4::new)
    }
}

/// Narrowphase settings shared by every contact of a step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NarrowParams {
    /// Fixed speculative distance, in m.
    pub speculative: f32,
    /// Nearest-point matching radius for impulses whose feature id changed, in m.
    pub match_distance: f32,
    /// The step, in s.
    pub dt: f32,
    /// Linear slop, in m.
    pub slop: f32,
    /// Whether manifolds may be recycled.
    pub recycling: bool,
}

/// Contacts in a slot array with a free list; iteration is in index order, so whatever
/// depends on contact order is reproducible.
#[derive(Default)]
pub(crate) struct ContactStore {
    pub contacts: Vec<Contact>,
    /// Each contact's two body slots (`NULL` for a dead contact), beside the contacts: with
    /// sleep on, the narrowphase decides from these 8 bytes, not the contact's 448, that a
    /// contact of sleeping bodies is skipped.
    pub ends: Vec<[u32; 2]>,
    /// The relative surface velocity a contact modifier set (contacts flagged
    /// [`TANGENT`]; zero otherwise), a side column so `Contact` does not grow for it.
    pub tangent: Vec<Vec3>,
    /// Each contact's two shape slots, beside the contacts like `ends`.
    pub shapes: Vec<[u32; 2]>,
    /// The contact is idle: not touching, no points, no colour, no touch change pending,
    /// exactly what a narrowphase update of a pair whose bounds do not overlap leaves. While
    /// the bounds stay apart the narrowphase skips it from these columns and the shapes'
    /// bounds alone (joint_grid: 20k contacts of diagonal neighbours whose fat boxes touch
    /// at a corner, never their shapes).
    pub idle: Vec<bool>,
    /// For an idle contact an update found apart with a bound to spare: how far its bodies
    /// may yet move before an update could find points ([`Lead`]). The narrowphase skips
    /// the contact from these columns and the bodies' travels while they stay within it.
    pub lead: Vec<Lead>,
    /// Where the contact's impulses of the last step still are: `batch * W + lane` of the
    /// last step's wide contact batches, which the store leaves them in (the next step's
    /// narrowphase copies them into the manifold, when it has the contact in cache), or
    /// `NULL` when the manifold holds them. See [`crate::solver::graph::ConstraintGraph::store`].
    pub pending: Vec<u32>,
    /// The narrow phase left some recycled contact's impulses in their lane through the
    /// step (a scene at rest, whose batches prepare may refresh in place; see
    /// `World::collide`): prepare takes them in where it does not.
    pub deferred: bool,
    /// Per body slot: its live contacts (touching or not), kept by [`Self::create`] and
    /// [`Self::destroy`] (and [`Self::recount`] after a restore), so the support trees
    /// can tell a stack standing alone without a scan over every contact.
    pub of_body: Vec<u32>,
    free: Vec<u32>,
}

impl ContactStore {
    pub fn create(&mut self, c: Contact) -> u32 {
        let ends = [c.body_a, c.body_b];
        let shapes = [c.shape_a, c.shape_b];
        self.count(ends, true);
        if let Some(i) = self.free.pop() {
            self.contacts[i as usize] = c;
            self.ends[i as usize] = ends;
            self.tangent[i as usize] = Vec3::ZERO;
            self.shapes[i as usize] = shapes;
            self.idle[i as usize] = false;
            self.lead[i as usize] = Lead::NONE;
            self.pending[i as usize] = crate::id::NULL;
            i
        } else {
            crate::huge::reserve(&mut self.contacts, 1);
            self.contacts.push(c);
            self.ends.push(ends);
            self.tangent.push(Vec3::ZERO);
            self.shapes.push(shapes);
            self.idle.push(false);
            self.lead.push(Lead::NONE);
            self.pending.push(crate::id::NULL);
            (self.contacts.len() - 1) as u32
        }
    }

    /// Starts loading the contact slot that the `ahead`th next [`Self::create`] would fill:
    /// a free slot, or past the end of the array (a hint: the slot is written whole, but a
    /// cold one stalls the writes).
    #[inline]
    pub fn prefetch_slot(&mut self, ahead: usize) {
        let free = self.free.len();
        if ahead < free {
            crate::math::prefetch(&self.contacts[self.free[free - 1 - ahead] as usize]);
        } else if let Some(slot) = self.contacts.spare_capacity_mut().get(ahead - free) {
            crate::math::prefetch(slot);
        }
    }

    pub fn destroy(&mut self, i: u32) {
        self.count(self.ends[i as usize], false);
        self.ends[i as usize] = [crate::id::NULL; 2];
        self.idle[i as usize] = false;
        self.lead[i as usize] = Lead::NONE;
        self.pending[i as usize] = crate::id::NULL;
        let c = &mut self.contacts[i as usize];
        debug_assert!(c.alive);
        c.alive = false;
        c.touching = false;
        c.manifold = Manifold::default();
        self.free.push(i);
    }

    /// Moves live contacts from the end of the array into the holes destroyed ones left,
    /// lowest hole first, and drops the dead tail, so the narrowphase walks a dense array;
    /// `moved(contact, new_index)` is told of every move. Deterministic: it depends only on
    /// which contacts are dead. (Without it, pile's array kept the slots of the falling
    /// phase: the narrowphase spent half its time skipping dead contacts.)
    pub fn compact(&mut self, mut moved: impl FnMut(&Contact, u32)) {
        if self.free.is_empty() {
            return;
        }
        self.free.sort_unstable();
        for h in 0..self.free.len() {
            while self.contacts.last().is_some_and(|c| !c.alive) {
                self.contacts.pop();
                self.ends.pop();
                self.tangent.pop();
                self.shapes.pop();
                self.idle.pop();
                self.lead.pop();
                self.pending.pop();
            }
            let hole = self.free[h] as usize;
            if hole >= self.contacts.len() {
                break;
            }
            // The last contact is live, so its index is above the (dead) hole.
            let c = self
                .contacts
                .pop()
                .expect("a live contact lies above the hole");
            self.contacts[hole] = c;
            self.ends[hole] = self.ends.pop().expect("ends match the contacts");
            self.tangent[hole] = self.tangent.pop().expect("tangents match the contacts");
            self.shapes[hole] = self.shapes.pop().expect("shapes match the contacts");
            self.idle[hole] = self.idle.pop().expect("idle flags match the contacts");
            self.lead[hole] = self.lead.pop().expect("leads match the contacts");
            self.pending[hole] = self
                .pending
                .pop()
                .expect("pending lanes match the contacts");
            moved(&self.contacts[hole], hole as u32);
        }
        self.free.clear();
    }

    /// Adds (or takes away) a contact between body slots `ends` to [`Self::of_body`].
    fn count(&mut self, ends: [u32; 2], add: bool) {
        for b in ends {
            if b == crate::id::NULL {
                continue;
            }
            let b = b as usize;
            if b >= self.of_body.len() {
                self.of_body.resize(b + 1, 0);
            }
            let n = &mut self.of_body[b];
            *n = if add { *n + 1 } else { *n - 1 };
        }
    }

    /// Rebuilds [`Self::of_body`] from the contacts' ends (after a restore has checked
    /// that every end is a body slot).
    pub fn recount(&mut self) {
        self.of_body.clear();
        for i in 0..self.ends.len() {
            self.count(self.ends[i], true);
        }
    }

    /// Number of live contacts (overlapping pairs with a contact, touching or not).
    pub fn live(&self) -> usize {
        self.contacts.len() - self.free.len()
    }
}

/// True when contact `c` is in the state a narrowphase update leaves for a pair whose
/// bounds do not overlap, with nothing pending (see [`ContactStore::idle`]).
#[inline]
pub(crate) fn is_idle(c: &Contact) -> bool {
    // Field by field rather than `manifold == Manifold::default()`: the points past
    // `count` are never read, and comparing all of them costs (mesh_pile, see
    // `docs/decisions.md`).
    !c.touching
        && !c.touch_changed
        && !c.cache.valid
        && !c.recycled
        && c.color == NO_COLOR
        && is_cleared(&c.manifold)
}

/// Whether a manifold is as [`Manifold::default`] left it, in the fields that are read
/// (the points past `count` never are): no points, no impulses, no normal.
#[inline]
fn is_cleared(m: &Manifold) -> bool {
    m.count == 0
        && m.twist_impulse == 0.0
        && m.friction_impulse == Vec3::ZERO
        && m.normal == Vec3::ZERO
}

/// Brings a contact's manifold up to the current poses and carries the impulses of the old
/// points over (see [`carry_impulses`]).
///
/// Recycling: when B moved little relative to A since the last full manifold (every point's
/// anchor on B drifted less than the tolerance in A's frame, the relative rotation is under
/// ~10°, and the pair is not fast), the manifold is kept: separations are refreshed from the
/// points' body-local anchors at the current poses, while the world normal and the solver's
/// lever arms stay frozen at their last full values ("anchor freezing", as Rapier does).
/// Re-linearizing the arms every step under large warm-started impulses pumps energy into
/// the coherent lean mode of tall stacks: the 40-high flat pyramid leaned 0.3 m out of its
/// plane in 600 steps and kept accelerating; with frozen anchors it stands. (Rapier with its
/// recycling off leans 0.18 m in the same time.) Skipping the clipping also saves time.
///
/// `take` is called with the manifold just before a full update makes it again, and only
/// then: it brings in the impulses the last step left elsewhere (see
/// [`crate::solver::graph::take_pending`]), which the update carries over.
///
/// `near`: whether the shapes' bounds overlap (the narrow phase's filter has tested it).
///
/// Returns what the update knows of how much closer the pair may come before an update
/// could find points, when it found the pair apart with a bound to spare.
pub(crate) fn update_contact(
    c: &mut Contact,
    shapes: &ShapeStore,
    bodies: &BodyStore,
    params: &NarrowParams,
    near: bool,
    take: impl FnOnce(&mut Manifold),
) -> Option<Apart> {
    debug_assert_eq!(
        near,
        shapes.bounds[c.shape_a as usize].overlaps(&shapes.bounds[c.shape_b as usize])
    );
    let before = c.touching;
    let apart = update_manifold(c, shapes, bodies, params, near, take);
    c.touch_changed = c.touching != before;
    apart
}

/// Whether a pair whose bounds overlap can come within the speculative margin this step:
/// `Within(motion)`, how far the surfaces can approach each other this step (m), or not.
enum Reach {
    Within(f32),
    /// Apart: the bounding spheres' gap (m).
    Apart(f32),
}

/// The reach test of shapes `sa` (of body `ba`) and `sb` (of `bb`), whose bounds overlap.
/// The speculative margin is the fixed distance plus the step's `motion`, so a fast body
/// is caught at the surface instead of sinking in by a step's worth of motion (and a
/// rebound keeps its height). The bounds are boxes along the world axes: rotated boxes or
/// round shapes can have overlapping bounds with their bounding spheres (about the centres
/// of mass) apart by more than the margin, and then no point comes within it this step
/// (how often, and the speculative points this drops: `docs/decisions.md`, "The narrow
/// phase of falling boxes"). Only shapes that `reach` bounds are tested: not planes, meshes.
#[inline]
fn reach(
    sa: &ShapeData,
    sb: &ShapeData,
    bodies: &BodyStore,
    ba: usize,
    bb: usize,
    params: &NarrowParams,
) -> Reach {
    let (reach_a, reach_b) = (sa.reach(), sb.reach());
    let approach = (bodies.linear_velocity[bb] - bodies.linear_velocity[ba]).length()
        + bodies.angular_velocity[ba].length() * reach_a
        + bodies.angular_velocity[bb].length() * reach_b;
    let motion = approach * params.dt;
    let bounded =
        |s: &ShapeData| !s.shape.kind().is_triangles() && s.shape.kind() != ShapeKind::Plane;
    let gap = (bodies.position[bb] - bodies.position[ba]).length() - (reach_a + reach_b);
    if bounded(sa) && bounded(sb) && gap > params.speculative + motion {
        Reach::Apart(gap)
    } else {
        Reach::Within(motion)
    }
}

fn update_manifold(
    c: &mut Contact,
    shapes: &ShapeStore,
    bodies: &BodyStore,
    params: &NarrowParams,
    near: bool,
    take: impl FnOnce(&mut Manifold),
) -> Option<Apart> {
    // Apart: the state a pair out of reach is left in (see `is_idle`).
    let apart = |c: &mut Contact| {
        c.separating = NO_AXIS;
        c.recycled = false;
        // A pair that was apart already keeps its empty manifold: not writing its points
        // again spares the lines past the contact's first (rain finds some 3,900 pairs a
        // step apart by their reach, most of them apart the step before).
        if !is_cleared(&c.manifold) {
            c.manifold = Manifold::default();
        }
        c.cache.valid = false;
        c.touching = false;
    };
    if !near {
        apart(c);
        return None;
    }
    let sa = &shapes.data[c.shape_a as usize];
    let sb = &shapes.data[c.shape_b as usize];
    let (ba, bb) = (c.body_a as usize, c.body_b as usize);
    let (ca, cb) = (bodies.position[ba], bodies.position[bb]);
    let motion = match reach(sa, sb, bodies, ba, bb, params) {
        Reach::Within(motion) => motion,
        Reach::Apart(gap) => {
            apart(c);
            // The centres may close by the margin with the spheres still apart.
            let scale = ca.length() + cb.length() + gap;
            return apart_by(gap - params.speculative - rounding(scale), [0.0; 2]);
        }
    };
    // What a lead of the shapes' distance counts for each body's turns (see `Apart`).
    let swings = || [sa.swing(), sb.swing()];
    let xa = sa.pose(&bodies.transform(ba));
    let xb = sb.pose(&bodies.transform(bb));
    c.recycled = params.recycling
        && motion < params.slop
        && c.cache.valid
        && c.manifold.count > 0
        && recycle(c, &xa, &xb);
    if c.recycled {
        c.separating = NO_AXIS;
        return None;
    }
    // The manifold is computed in A's frame from the relative pose, then brought to world
    // space: coordinates stay small however far from the origin the pair is (at 1 km an
    // f32 world coordinate resolves only 0.06 mm, which clipping and SAT would amplify).
    let relative = xa.inv_mul(&xb);
    // Two boxes' separation on `axis` (see `axis_separation`), and the lead it leaves.
    let on_axis =
        |axis: u8| axis_separation(&sa.shape, &Transform::IDENTITY, &sb.shape, &relative, axis);
    let lead_on_axis = |separation: Option<f32>, axis: u8| {
        let distance = (cb - ca).length();
        axis_lead(
            separation,
            axis,
            &relative,
            params,
            distance,
            [sa.reach(), sb.reach()],
        )
    };
    let tol = crate::collision::Tolerance {
        speculative: params.speculative + motion,
        linear_slop: params.slop,
    };
    // A pair that an update found apart by a gap (see `APART_BY_GAP`), whose relative pose
    // has since moved by less than the gap's lead over the speculative distance: the update
    // would find no points, and leave the contact as the last one did (its manifold empty,
    // its normal a positive zero, its cache invalid).
    if c.separating == APART_BY_GAP {
        let moved = gap::shift(&c.cache.relative, &relative, sb.shape.bounding_radius());
        // Rounding: the bound and the pair function's separation are worked out in other
        // frames, a few ulps of the coordinates apart.
        let slack = GAP_SLACK + 1.0e-5 * relative.p.length();
        if c.cache.tolerance - moved > tol.speculative + slack {
            debug_assert!(c.manifold.count == 0 && !c.cache.valid && !c.touching);
            // The shapes are at least `tolerance − moved` apart, a distance (see
            // `gap::lower_bound`): the pair function finds no points while it stays over the
            // speculative distance, whatever the test above would say by then.
            let scale = relative.p.length() + c.cache.tolerance;
            let margin = c.cache.tolerance - moved - params.speculative - rounding(scale);
            return apart_by(margin, swings());
        }
        c.separating = NO_AXIS;
    }
    // Two boxes that the last update found apart on an axis, still apart on it: the update
    // would find no points, and leave the contact as the last one did (its manifold empty,
    // its normal a positive zero, its cache invalid: `separating` is cleared on every other
    // way out).
    if c.separating != NO_AXIS {
        let separation = on_axis(c.separating);
        if separation.is_some_and(|s| s >= tol.speculative) {
            debug_assert!(c.manifold.count == 0 && !c.cache.valid && !c.touching);
            return lead_on_axis(separation, c.separating);
        }
        c.separating = NO_AXIS;
    }
    // The new manifold is made in place, the old one kept aside for its impulses and
    // arms (nothing is copied out of a manifold just written: see `collide_into`).
    take(&mut c.manifold);
    let old = c.manifold;
    c.manifold = Manifold::default();
    let m = &mut c.manifold;
    if c.child == NULL {
        c.separating = collide_into(
            &sa.shape,
            &Transform::IDENTITY,
            &sb.shape,
            &relative,
            tol,
            m,
        );
    } else {
        // A child contact: the convex shape against one triangle of the mesh.
        match sb.shape.triangles() {
            Some(mesh) if (c.child as usize) < mesh.triangle_count() => collide_triangle(
                &sa.shape,
                &Transform::IDENTITY,
                &mesh.triangle(c.child),
                &relative,
                tol,
                m,
            ),
            _ => {}
        }
    }
    m.normal = xa.transform_vector(m.normal);
    if m.normal == Vec3::ZERO {
        // No points: a positive zero, whatever the signs the turn gave it, so that a pair
        // left apart reads the same however many updates it skipped (see `Lead`; the
        // state writes the normal's bits).
        m.normal = Vec3::ZERO;
    }
    for p in m.points[..m.count].iter_mut() {
        p.point = xa.transform_point(p.point);
        p.anchor_a = p.point - ca;
        p.anchor_b = p.point - cb;
    }
    if c.cache.valid {
        keep_frozen_arms(&old, m, 0.2 * params.slop);
    }
    carry_impulses(&old, m, params.match_distance);
    fill_cache(&mut c.cache, m, &xa, &xb, params.slop);
    c.touching = m.count > 0;
    if c.touching {
        return None;
    }
    if c.separating != NO_AXIS {
        // Two boxes apart on an axis, which the next update tests first.
        return lead_on_axis(on_axis(c.separating), c.separating);
    }
    // Found apart with no axis kept: keep how far apart, while the cache is unused.
    if c.child == NULL {
        if let Some(gap) = gap::lower_bound(&sa.shape, &sb.shape, &relative) {
            if gap > tol.speculative {
                c.separating = APART_BY_GAP;
                (c.cache.relative, c.cache.tolerance) = (relative, gap);
                let scale = relative.p.length() + gap;
                return apart_by(gap - params.speculative - rounding(scale), swings());
            }
        }
    }
    None
}

/// [`Contact::separating`] of a pair whose last full update found no points and a lower
/// bound of its distance above the speculative distance (sphere, capsule and box pairs but
/// two boxes: `collision::gap`): its invalid cache then holds the relative pose of the
/// shapes then (`relative`) and that bound (`tolerance`), and the next updates skip it
/// while the pose has moved by less than the bound's lead over the speculative distance
/// (resting neighbours whose bounding spheres are in reach and whose shapes are not: figures
/// in `docs/decisions.md`, "Pairs apart by a known gap").
pub(crate) const APART_BY_GAP: u8 = NO_AXIS - 1;

/// The least lead (m) of a kept gap over the speculative distance that skips an update
/// (besides a few ulps of the coordinates): far above the rounding of the bound.
const GAP_SLACK: f32 = 1.0e-4;

/// Anchor freezing in a recomputed manifold: a point whose feature id was in the old
/// manifold keeps the old point's lever arms while they are within `tolerance` (m) of the
/// new ones, so the solver sees the same arms whether a resting manifold was recycled or
/// recomputed. The arms are what matters: with the arms of every recomputed point
/// re-linearized, the 40-high pyramid leaned 0.118 m out of its plane in 600 steps with
/// recycling off (0.002 m with it on); freezing the normal as well changed nothing (0.123 m).
/// The tolerance is 0.2 × slop (1 mm), far tighter than recycling's: with 10 × slop the
/// pile's boxes kept stale arms while tumbling into place and its max speed at step 600
/// rose from 0.042 to 0.067 m/s; at 1 mm it is 0.043 m/s and the pyramid still stands.
fn keep_frozen_arms(old: &Manifold, new: &mut Manifold, tolerance: f32) {
    let t2 = tolerance * tolerance;
    for p in new.points[..new.count].iter_mut() {
        if let Some(o) = old.points().iter().find(|o| o.id == p.id) {
            if (o.anchor_a - p.anchor_a).length_squared() <= t2
                && (o.anchor_b - p.anchor_b).length_squared() <= t2
            {
                p.anchor_a = o.anchor_a;
                p.anchor_b = o.anchor_b;
            }
        }
    }
}

/// Fills `cache` with the recycling cache of a freshly computed manifold (in place, as
/// the manifold is made). Touching manifolds may drift ten slops before recomputing (5 cm
/// by default); speculative ones only one, since a new feature may be about to touch.
///
/// Field by field, the unused anchors zero, as `ManifoldCache::default()` has them: a
/// default built whole is assembled on the stack and copied with wide loads that wait for
/// its narrow stores (see `collision::collide_into`).
fn fill_cache(cache: &mut ManifoldCache, m: &Manifold, xa: &Transform, xb: &Transform, slop: f32) {
    let count = m.count;
    cache.valid = count > 0;
    (cache.relative, cache.tolerance) = if count > 0 {
        (xa.inv_mul(xb), slop)
    } else {
        (Transform::IDENTITY, 0.0)
    };
    (cache.anchor_a, cache.anchor_b) = (Anchors::default(), Anchors::default());
    for (k, p) in m.points().iter().enumerate() {
        let half = 0.5 * p.separation * m.normal;
        cache
            .anchor_a
            .set(k, xa.inv_transform_point(p.point - half));
        cache
            .anchor_b
            .set(k, xb.inv_transform_point(p.point + half));
        if p.separation <= 0.0 {
            cache.tolerance = 10.0 * slop;
        }
    }
}

/// Carries warm-start impulses from `old` to `new`: the manifold's friction and twist
/// impulses as they are; normal impulses first by feature id, then, for points
/// whose id is new, from the nearest unclaimed old point within `match_distance` (m).
///
/// The fallback matters for boxes stacked nearly flush: their incident corners hover on the
/// reference face's side planes, so a point's features flip between "vertex on face" and
/// "edge crosses edge" with sub-millimetre jitter. Matching by id alone then drops the
/// point's impulse every few steps and the stack rocks; the point itself barely moved.
pub(crate) fn carry_impulses(old: &Manifold, new: &mut Manifold, match_distance: f32) {
    if new.count > 0 && old.count > 0 {
        new.friction_impulse = old.friction_impulse;
        new.twist_impulse = old.twist_impulse;
    }
    let mut claimed = [false; MAX_POINTS];
    let mut matched = [false; MAX_POINTS];
    for (k, p) in new.points[..new.count].iter_mut().enumerate() {
        for (j, o) in old.points[..old.count].iter().enumerate() {
            if !claimed[j] && o.id == p.id {
                claimed[j] = true;
                matched[k] = true;
                p.normal_impulse = o.normal_impulse;
                break;
            }
        }
    }
    let max_d2 = match_distance * match_distance;
    for (k, p) in new.points[..new.count].iter_mut().enumerate() {
        if matched[k] {
            continue;
        }
        let mut best = None;
        let mut best_d2 = max_d2;
        for (j, o) in old.points[..old.count].iter().enumerate() {
            let d2 = (o.point - p.point).length_squared();
            if !claimed[j] && d2 <= best_d2 {
                best = Some(j);
                best_d2 = d2;
            }
        }
        if let Some(j) = best {
            claimed[j] = true;
            p.normal_impulse = old.points[j].normal_impulse;
        }
    }
}

/// Whether a contact between bodies of these types takes part in the solver.
#[inline]
pub(crate) fn needs_solving(a: BodyType, b: BodyType) -> bool {
    a == BodyType::Dynamic || b == BodyType::Dynamic
}

mod lead;
mod recycle;
mod state;

use lead::{apart_by, axis_lead, rounding};
pub(crate) use lead::{Apart, Lead};
use recycle::recycle;
