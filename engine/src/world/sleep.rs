//! Islands and sleep.
//!
//! An island is a set of dynamic bodies connected by touching contacts and joints
//! (static and kinematic bodies do not connect islands). Islands are persistent:
//!
//! - **Merged** when a contact between two dynamic bodies begins touching or a joint
//!   joins them: the smaller island's bodies move into the larger one, so a body moves
//!   O(log n) times over the island's life.
//! - **Split lazily**: removing a touching contact or a joint only counts a removed
//!   constraint on the island. Only an island that wants to sleep and has removed
//!   constraints is split (at most one a step, the one that has rested longest), by a
//!   union-find over its touching contacts and joints; its parts try to sleep the step
//!   after.
//!
//! Each step, every awake dynamic body's rest time grows by `dt` while its speed
//! `max(|v|, |ω| extent)` stays under its sleep threshold (and it may sleep), and
//! restarts at 0 otherwise. An island whose bodies have all rested for the world's
//! `time_to_sleep` falls asleep: its bodies' velocities are zeroed and they leave the
//! solver (the gather skips them), the broadphase (they do not move) and the
//! narrowphase (contacts with no awake side are not updated and give back their
//! colours). Their contacts keep their manifolds and impulses, their joints their
//! impulses, so waking resumes exactly where sleep began.
//!
//! An island wakes when a contact with an awake body (or a moving kinematic body)
//! touches one of its bodies, when a joint to it is created or removed, when one of its
//! bodies is touched through the API (velocity, force, impulse, pose, shapes, mass),
//! and when a body touching it is removed. Every island operation runs serially in
//! contact, joint or body order, so sleeping is deterministic for any thread count.

use super::World;
use crate::body::BodyType;
use crate::id::NULL;
use crate::solver::color::NO_COLOR;

/// A set of dynamic bodies connected by touching contacts and joints.
#[derive(Clone, Debug, Default)]
pub(crate) struct Island {
    pub bodies: Vec<u32>,
    pub awake: bool,
    /// Constraints between its bodies removed since it was formed or split: it may have
    /// fallen apart, so it is split before it may sleep.
    pub removed: u32,
    /// Scratch of the sleep pass: the shortest rest time of its bodies this step, and
    /// whether it is listed among the step's candidates.
    min_rest: f32,
    listed: bool,
}

/// The islands, by id (holes listed in `free`).
#[derive(Default)]
pub(crate) struct Islands {
    pub list: Vec<Island>,
    free: Vec<u32>,
    /// Islands woken since the counter was last read (the narrowphase join uses it).
    pub woken: u64,
    /// Scratch: the sleep pass's candidate islands, a split's union-find.
    candidates: Vec<u32>,
    parent: Vec<u32>,
    local: Vec<u32>,
}

impl Islands {
    fn alloc(&mut self, bodies: Vec<u32>) -> u32 {
        let island = Island {
            bodies,
            awake: true,
            ..Island::default()
        };
        match self.free.pop() {
            Some(i) => {
                self.list[i as usize] = island;
                i
            }
            None => {
                self.list.push(island);
                (self.list.len() - 1) as u32
            }
        }
    }

    fn release(&mut self, i: u32) {
        self.list[i as usize] = Island::default();
        self.free.push(i);
    }

    /// A touching contact or joint between body slots `a` and `b` went away: their island
    /// may have fallen apart.
    pub fn unlink(&mut self, island_of: &[u32], a: u32, b: u32) {
        let (ia, ib) = (island_of[a as usize], island_of[b as usize]);
        if ia != NULL && ia == ib {
            self.list[ia as usize].removed += 1;
        }
    }

    /// Live islands (for the profile and tests).
    pub fn count(&self) -> usize {
        self.list.len() - self.free.len()
    }

    /// Whether these islands (read from a state) agree with the bodies' island column
    /// `island_of` (one entry a body slot, `NULL` for none) and `dynamic` (whether a slot
    /// holds a live dynamic body): every live dynamic body is listed once, in the island
    /// its column names; no other body is in an island; the free list names distinct,
    /// empty islands. A restored state is checked with it before it is used, as the sleep
    /// pass and the island updates index the lists with these values.
    pub fn agree(&self, island_of: &[u32], dynamic: impl Fn(usize) -> bool) -> bool {
        let n = self.list.len();
        let mut dynamic_count = 0;
        for (b, &i) in island_of.iter().enumerate() {
            if dynamic(b) {
                dynamic_count += 1;
                if i as usize >= n {
                    return false;
                }
            } else if i != NULL {
                return false;
            }
        }
        let mut listed = vec![false; island_of.len()];
        let mut members = 0;
        for (i, island) in self.list.iter().enumerate() {
            for &b in &island.bodies {
                let b = b as usize;
                if b >= island_of.len() || island_of[b] as usize != i || listed[b] {
                    return false;
                }
                listed[b] = true;
                members += 1;
            }
        }
        let mut free = vec![false; n];
        for &f in &self.free {
            let f = f as usize;
            if f >= n || free[f] || !self.list[f].bodies.is_empty() {
                return false;
            }
            free[f] = true;
        }
        members == dynamic_count
    }
}

/// Union-find root with path halving.
fn root(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        let up = parent[parent[x as usize] as usize];
        parent[x as usize] = up;
        x = up;
    }
    x
}

impl World {
    /// Gives a new dynamic body its own island.
    pub(crate) fn island_add_body(&mut self, b: usize) {
        if self.bodies.body_type[b] == BodyType::Dynamic {
            self.bodies.island[b] = self.islands.alloc(vec![b as u32]);
            self.bodies.awake[b] = true;
            self.bodies.sleep_time[b] = 0.0;
        }
    }

    /// Takes a body out of its island (the body is being removed).
    pub(crate) fn island_remove_body(&mut self, b: usize) {
        let i = self.bodies.island[b];
        if i == NULL {
            return;
        }
        self.wake_island(i);
        let island = &mut self.islands.list[i as usize];
        island.bodies.retain(|&x| x as usize != b);
        if island.bodies.is_empty() {
            self.islands.release(i);
        } else {
            island.removed += 1;
        }
        self.bodies.island[b] = NULL;
    }

    /// Joins the islands of bodies `a` and `b` (both dynamic; otherwise nothing), waking
    /// them: a contact began touching or a joint was created.
    pub(crate) fn link_bodies(&mut self, a: u32, b: u32) {
        let (ia, ib) = (
            self.bodies.island[a as usize],
            self.bodies.island[b as usize],
        );
        if ia == NULL || ib == NULL {
            return;
        }
        self.wake_island(ia);
        self.wake_island(ib);
        if ia == ib {
            return;
        }
        // The smaller island moves into the larger (ties: into the lower id).
        let (na, nb) = (
            self.islands.list[ia as usize].bodies.len(),
            self.islands.list[ib as usize].bodies.len(),
        );
        let (keep, gone) = if na > nb || (na == nb && ia < ib) {
            (ia, ib)
        } else {
            (ib, ia)
        };
        let moved = std::mem::take(&mut self.islands.list[gone as usize].bodies);
        let removed = self.islands.list[gone as usize].removed;
        for &x in &moved {
            self.bodies.island[x as usize] = keep;
        }
        let island = &mut self.islands.list[keep as usize];
        island.bodies.extend_from_slice(&moved);
        island.removed += removed;
        self.islands.release(gone);
    }

    /// A touching contact or joint between `a` and `b` went away: their island may have
    /// fallen apart.
    pub(crate) fn unlink_bodies(&mut self, a: u32, b: u32) {
        self.islands.unlink(&self.bodies.island, a, b);
    }

    /// Wakes island `i` (its bodies rejoin the solver next gather).
    pub(crate) fn wake_island(&mut self, i: u32) {
        let island = &mut self.islands.list[i as usize];
        if island.awake {
            return;
        }
        island.awake = true;
        for &b in &island.bodies {
            self.bodies.awake[b as usize] = true;
            self.bodies.sleep_time[b as usize] = 0.0;
        }
        self.islands.woken += 1;
    }

    /// Wakes body `b`'s island and restarts its rest time (static bodies: nothing).
    pub(crate) fn wake_body(&mut self, b: usize) {
        self.bodies.sleep_time[b] = 0.0;
        let i = self.bodies.island[b];
        if i != NULL {
            self.wake_island(i);
        }
    }

    /// Puts island `i` to sleep: its bodies stop and leave the solver.
    pub(crate) fn put_island_to_sleep(&mut self, i: u32) {
        let island = &mut self.islands.list[i as usize];
        island.awake = false;
        for &b in &island.bodies {
            let b = b as usize;
            self.bodies.awake[b] = false;
            self.bodies.linear_velocity[b] = glam::Vec3::ZERO;
            self.bodies.angular_velocity[b] = glam::Vec3::ZERO;
        }
    }

    /// Stage 4: advances the rest times of the awake bodies, puts to sleep the islands
    /// that have rested long enough, and splits at most one island that wants to sleep
    /// but lost constraints.
    pub(crate) fn update_sleep(&mut self, dt: f32) {
        if !self.def.enable_sleep {
            return;
        }
        let (world_threshold, time_to_sleep) = (self.def.sleep_threshold, self.def.time_to_sleep);
        let bodies = &mut self.bodies;
        let islands = &mut self.islands;
        islands.candidates.clear();
        let mut moving_kinematic = false;
        for &b in &self.solver.slot {
            let b = b as usize;
            let speed = bodies.linear_velocity[b]
                .length()
                .max(bodies.angular_velocity[b].length() * bodies.extent[b]);
            let own = bodies.sleep_threshold[b];
            let threshold = if own >= 0.0 { own } else { world_threshold };
            if bodies.body_type[b] == BodyType::Kinematic {
                moving_kinematic |= speed > 0.0;
                continue;
            }
            if !bodies.can_sleep[b] || speed > threshold {
                bodies.sleep_time[b] = 0.0;
            } else {
                bodies.sleep_time[b] += dt;
            }
            let i = bodies.island[b];
            let island = &mut islands.list[i as usize];
            if !island.listed {
                island.listed = true;
                island.min_rest = f32::INFINITY;
                islands.candidates.push(i);
            }
            island.min_rest = island.min_rest.min(bodies.sleep_time[b]);
        }
        if moving_kinematic {
            // A moving kinematic body keeps awake what it touches or is jointed to.
            let keep_awake = |islands: &mut Islands, k: u32, other: u32| {
                let moving = bodies.body_type[k as usize] == BodyType::Kinematic
                    && (bodies.linear_velocity[k as usize] != glam::Vec3::ZERO
                        || bodies.angular_velocity[k as usize] != glam::Vec3::ZERO);
                let i = bodies.island[other as usize];
                if moving && i != NULL {
                    islands.list[i as usize].min_rest = 0.0;
                }
            };
            for &k in &self.touching.contacts {
                let c = &self.contacts.contacts[k as usize];
                keep_awake(islands, c.body_a, c.body_b);
                keep_awake(islands, c.body_b, c.body_a);
            }
            for (slot, j) in self.joints.slots.iter().enumerate() {
                if self.joints.pool.is_alive(slot) {
                    keep_awake(islands, j.body_a, j.body_b);
                    keep_awake(islands, j.body_b, j.body_a);
                }
            }
        }
        // A motor turning at a non-zero speed keeps its island awake.
        for &j in &self.joints.driven {
            let joint = &self.joints.slots[j as usize];
            for b in [joint.body_a, joint.body_b] {
                let i = self.bodies.island[b as usize];
                if i != NULL {
                    self.islands.list[i as usize].min_rest = 0.0;
                }
            }
        }
        let mut split: Option<(u32, f32)> = None;
        let mut slept = false;
        let candidates = std::mem::take(&mut self.islands.candidates);
        for &i in &candidates {
            let island = &mut self.islands.list[i as usize];
            island.listed = false;
            if island.min_rest < time_to_sleep {
                continue;
            }
            if island.removed > 0 {
                if split.is_none_or(|(_, rest)| island.min_rest > rest) {
                    split = Some((i, island.min_rest));
                }
            } else {
                self.put_island_to_sleep(i);
                slept = true;
                for &b in &self.islands.list[i as usize].bodies {
                    let k = self.solver.index[b as usize];
                    if let Some(m) = self.events.moves.get_mut(k as usize) {
                        m.fell_asleep = true;
                    }
                }
            }
        }
        self.islands.candidates = candidates;
        if slept {
            self.release_sleeping_colors();
        }
        if let Some((i, _)) = split {
            self.split_island(i);
        }
    }

    /// Gives back the colours of the last step's touching contacts that no awake dynamic
    /// body holds any more (their islands fell asleep): the narrowphase skips sleeping
    /// contacts without looking at them.
    pub(crate) fn release_sleeping_colors(&mut self) {
        let bodies = &self.bodies;
        let awake =
            |b: u32| bodies.body_type[b as usize] == BodyType::Dynamic && bodies.awake[b as usize];
        for &k in &self.touching.contacts {
            let c = &mut self.contacts.contacts[k as usize];
            if c.alive && c.color != NO_COLOR && !awake(c.body_a) && !awake(c.body_b) {
                self.graph
                    .coloring
                    .release(c.color, c.color_sides, c.body_a, c.body_b);
                (c.color, c.color_sides) = (NO_COLOR, 0);
            }
        }
    }

    /// Splits island `i` into its connected parts (over touching contacts and joints
    /// between its dynamic bodies); the first part keeps the id. All parts stay awake.
    pub(crate) fn split_island(&mut self, i: u32) {
        let bodies = std::mem::take(&mut self.islands.list[i as usize].bodies);
        let n = self.bodies.island.len();
        let islands = &mut self.islands;
        islands.local.resize(n, NULL);
        islands.parent.clear();
        for (k, &b) in bodies.iter().enumerate() {
            islands.local[b as usize] = k as u32;
            islands.parent.push(k as u32);
        }
        let island_of = &self.bodies.island;
        let union = |islands: &mut Islands, a: u32, b: u32| {
            if island_of[a as usize] != i || island_of[b as usize] != i {
                return;
            }
            let (la, lb) = (islands.local[a as usize], islands.local[b as usize]);
            let (ra, rb) = (root(&mut islands.parent, la), root(&mut islands.parent, lb));
            // The lower local index becomes the root: parts are numbered by first body.
            if ra < rb {
                islands.parent[rb as usize] = ra;
            } else if rb < ra {
                islands.parent[ra as usize] = rb;
            }
        };
        for c in &self.contacts.contacts {
            if c.alive && c.touching {
                union(islands, c.body_a, c.body_b);
            }
        }
        for (slot, j) in self.joints.slots.iter().enumerate() {
            if self.joints.pool.is_alive(slot) {
                union(islands, j.body_a, j.body_b);
            }
        }
        // Each part, in the order of its first body: the first keeps island `i`.
        let mut part_island = vec![NULL; bodies.len()];
        let mut parts: Vec<Vec<u32>> = Vec::new();
        for (k, &b) in bodies.iter().enumerate() {
            let r = root(&mut islands.parent, k as u32) as usize;
            if part_island[r] == NULL {
                part_island[r] = parts.len() as u32;
                parts.push(Vec::new());
            }
            parts[part_island[r] as usize].push(b);
        }
        for &b in &bodies {
            islands.local[b as usize] = NULL;
        }
        let mut parts = parts.into_iter();
        let first = parts.next().unwrap_or_default();
        let island = &mut islands.list[i as usize];
        island.bodies = first;
        island.removed = 0;
        for part in parts {
            let id = islands.alloc(part);
            for &b in &islands.list[id as usize].bodies {
                self.bodies.island[b as usize] = id;
            }
        }
    }
}

impl World {
    /// The narrowphase join's island work (sleep on), serially in contact order: contacts
    /// that began touching join their islands, contacts that stopped count a removed
    /// constraint, touching contacts with a sleeping body wake it. Returns whether an
    /// island woke: its touching contacts (not updated this step, their bodies did not
    /// move) are then missing from the touching list (see [`World::relist_touching`]).
    pub(crate) fn join_islands(&mut self) -> bool {
        let woken = self.islands.woken;
        let chunks = std::mem::take(&mut self.scratch.narrow_chunks);
        for out in &chunks {
            for &[a, b] in &out.links {
                self.link_bodies(a, b);
            }
            for &[a, b] in &out.unlinks {
                self.unlink_bodies(a, b);
            }
            for &k in &out.wake {
                let c = &self.contacts.contacts[k as usize];
                let (a, b) = (c.body_a, c.body_b);
                self.link_bodies(a, b);
                self.wake_body(a as usize);
                self.wake_body(b as usize);
            }
        }
        self.scratch.narrow_chunks = chunks;
        self.islands.woken != woken
    }

    /// Rebuilds the touching list from every live contact, in contact order: the solid
    /// touching contacts with an awake dynamic body, and the colours to give back of the
    /// others. Returns their manifold points.
    pub(crate) fn relist_touching(&mut self) -> usize {
        let mut points = 0;
        let touching = &mut self.touching;
        touching.clear();
        let bodies = &self.bodies;
        let awake =
            |b: u32| bodies.body_type[b as usize] == BodyType::Dynamic && bodies.awake[b as usize];
        for (k, c) in self.contacts.contacts.iter().enumerate() {
            if !c.alive {
                continue;
            }
            let solid = c.flags & crate::contact::SENSOR == 0;
            if solid && c.touching && (awake(c.body_a) || awake(c.body_b)) {
                points += c.manifold.count;
                touching.contacts.push(k as u32);
                touching.pairs.push([c.body_a, c.body_b]);
                touching.colors.push(c.color);
                touching.points.push(crate::contact::list_key(c));
            } else if c.color != NO_COLOR {
                touching.uncolor.push(k as u32);
            }
        }
        points
    }
}

crate::codec::fields!(Island {
    bodies,
    awake,
    removed,
    min_rest,
    listed
});
// The union-find and candidate lists are scratch of one step.
crate::codec::fields!(Islands {
    list,
    free,
    woken,
    ..
});
