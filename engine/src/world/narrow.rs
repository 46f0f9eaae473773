//! The narrow phase: the manifold of every contact whose bodies moved, in fixed chunks
//! of contacts spread over the workers, and the contact state the solver and the events
//! read (touching list, begin and end records, island links).

use super::events::{approach, ContactHit, SensorEvent};
use super::{ContactTouch, World};
use crate::body::{BodyStore, BodyType};
use crate::collision::{Manifold, MAX_POINTS};
use crate::contact::{
    is_idle, list_key, update_contact, Apart, Contact, Lead, NarrowParams, CONTACT_EVENTS,
    HIT_EVENTS, MODIFY, SENSOR, TANGENT,
};
use crate::id::NULL;
use crate::math::{prefetch, prefetch_head};
use crate::parallel::for_each_maybe_par;
use crate::solver::color::NO_COLOR;
use crate::solver::graph::take_pending;
use crate::solver::wide::W;
use glam::Vec3;
use impetus_profiling::{color, join_wait, worker_zone, zone};
use rayon::prelude::*;

/// The narrowphase asks for the contact this many places ahead to be loaded while it
/// works on the current one (see [`prefetch`]).
const PREFETCH_AHEAD: usize = 6;

/// Contacts per narrowphase work item (fixed, so chunk boundaries depend on the scene
/// only).
const NARROW_CHUNK: usize = 256;

/// A manifold's points' separations, zero past its count (as prepare reads them).
#[inline]
fn separations(m: &Manifold) -> [f32; MAX_POINTS] {
    std::array::from_fn(|j| {
        if j < m.count {
            m.points[j].separation
        } else {
            0.0
        }
    })
}

/// What one chunk of contacts reports to the contact-state join.
#[derive(Default)]
pub(crate) struct NarrowChunk {
    touching: Vec<u32>,
    pairs: Vec<[u32; 2]>,
    /// The touching contacts' colours and point counts.
    colors: Vec<u8>,
    counts: Vec<u8>,
    /// Contacts that stopped touching but still hold a colour.
    uncolor: Vec<u32>,
    begin: Vec<ContactTouch>,
    end: Vec<ContactTouch>,
    /// Solid contacts that began / stopped touching (their islands join / may split).
    pub links: Vec<[u32; 2]>,
    pub unlinks: Vec<[u32; 2]>,
    sensor_begin: Vec<SensorEvent>,
    sensor_end: Vec<SensorEvent>,
    hits: Vec<ContactHit>,
    /// Touching contacts with a sleeping body (their islands wake).
    pub wake: Vec<u32>,
    points: usize,
    recycled: usize,
    /// A contact's impulses were left in their lane (see `World::collide`).
    deferred: bool,
}

impl NarrowChunk {
    fn clear(&mut self) {
        self.touching.clear();
        self.pairs.clear();
        self.colors.clear();
        self.counts.clear();
        self.uncolor.clear();
        self.begin.clear();
        self.end.clear();
        self.links.clear();
        self.unlinks.clear();
        self.sensor_begin.clear();
        self.sensor_end.clear();
        self.hits.clear();
        self.wake.clear();
        self.points = 0;
        self.recycled = 0;
        self.deferred = false;
    }
}

/// One chunk of the narrow phase's work: the columns of [`NARROW_CHUNK`] contacts and the
/// chunk's report.
struct NarrowWork<'a> {
    /// The index of the chunk's first contact.
    base: usize,
    contacts: &'a mut [Contact],
    /// The contacts' bodies (`NULL` for a dead contact).
    ends: &'a [[u32; 2]],
    tangents: &'a mut [Vec3],
    /// The contacts' shapes.
    shapes: &'a [[u32; 2]],
    idle: &'a mut [bool],
    leads: &'a mut [Lead],
    /// The contacts' impulses the last step's store left in its batches (see
    /// [`ConstraintGraph::store`](crate::solver::graph::ConstraintGraph::store)).
    pending: &'a mut [u32],
    out: &'a mut NarrowChunk,
}

/// Bodies per task of [`body_pass`]; a world with fewer than two chunks' worth runs it on
/// the calling thread.
const BODY_CHUNK: usize = 1024;

/// Writes, per body slot, whether the narrow phase updates its contacts (`active`: an awake
/// dynamic or a moving kinematic body; read only with sleep on) and its travel with the
/// most it can move in a step of `dt` added (`ahead`: its speed, and its angular speed
/// times its extent, over the step, rounding included). Every body's entries depend on
/// that body alone, so the pool's chunks leave the result as the serial loop would.
fn body_pass(
    bodies: &BodyStore,
    dt: f32,
    active: &mut Vec<bool>,
    ahead: &mut Vec<[f64; 2]>,
    pool: Option<&rayon::ThreadPool>,
) {
    let n = bodies.travel.len();
    active.resize(n, false);
    ahead.resize(n, [0.0; 2]);
    let chunk = |k: usize, active: &mut [bool], ahead: &mut [[f64; 2]]| {
        let base = k * BODY_CHUNK;
        for (j, (active, ahead)) in active.iter_mut().zip(ahead).enumerate() {
            let b = base + j;
            let (v, w) = (bodies.linear_velocity[b], bodies.angular_velocity[b]);
            *active = match bodies.body_type[b] {
                BodyType::Dynamic => bodies.awake[b],
                BodyType::Kinematic => v != Vec3::ZERO || w != Vec3::ZERO,
                BodyType::Static => false,
            };
            let speed = v.length() + w.length() * bodies.extent[b];
            let [distance, turn] = bodies.travel[b];
            *ahead = [distance + speed as f64 * dt as f64 * (1.0 + 1.0e-5), turn];
        }
    };
    match pool.filter(|_| n >= 2 * BODY_CHUNK) {
        Some(pool) => pool.install(|| {
            active
                .par_chunks_mut(BODY_CHUNK)
                .zip(ahead.par_chunks_mut(BODY_CHUNK))
                .enumerate()
                .for_each(|(k, (active, ahead))| chunk(k, active, ahead))
        }),
        None => active
            .chunks_mut(BODY_CHUNK)
            .zip(ahead.chunks_mut(BODY_CHUNK))
            .enumerate()
            .for_each(|(k, (active, ahead))| chunk(k, active, ahead)),
    }
}

impl World {
    /// The narrow phase: the manifold of every contact, in parallel; each contact is written only
    /// by the worker that computes it, so the result does not depend on the thread count.
    ///
    /// Contacts are processed in fixed chunks of [`NARROW_CHUNK`]; each chunk also lists its
    /// touching contacts and begin/end records while they are hot in cache, and the
    /// chunks' lists are joined in chunk order, which is contact order (cheaper than a
    /// separate serial pass over the contacts, see `docs/decisions.md`).
    pub(crate) fn collide(&mut self, dt: f32) {
        let shapes = &self.shapes;
        let bodies = &self.bodies;
        let (shape_pool, body_pool) = (&self.shapes.pool, &self.body_pool);
        let params = NarrowParams {
            speculative: self.def.speculative_distance,
            match_distance: 2.0 * self.def.linear_slop,
            dt,
            slop: self.def.linear_slop,
            recycling: self.def.contact_recycling,
        };
        let sleep = self.def.enable_sleep;
        let hit_threshold = self.def.hit_event_threshold;
        // With sleep on, a contact is updated when one of its bodies is an awake dynamic
        // or a moving kinematic body; the others keep their manifolds (their bodies have
        // not moved). One byte per body, so the test of 100k contacts stays in L1.
        // And each body's travel with the most it can move in this step added to the
        // distance: the side of a lead's test that moves (see `contact::Lead`). Both in
        // chunks of bodies across the pool: serial, this loop was most of joint_grid's
        // narrow phase at two threads (`docs/decisions.md`, "The host's ceiling for two
        // threads").
        let (active, ahead) = (&mut self.scratch.active, &mut self.scratch.ahead);
        body_pass(bodies, dt, active, ahead, self.pool.as_deref());
        let (active, ahead) = (&*active, &*ahead);
        let travel = &bodies.travel;
        let asleep =
            |b: u32| bodies.body_type[b as usize] == BodyType::Dynamic && !bodies.awake[b as usize];
        let modifier = self.contact_modifier.as_ref();
        let contacts = &mut self.contacts.contacts;
        let ends = &self.contacts.ends;
        let tangents = &mut self.contacts.tangent;
        let (pair_shapes, idle) = (&self.contacts.shapes, &mut self.contacts.idle);
        let leads = &mut self.contacts.lead;
        let pending = &mut self.contacts.pending;
        // The last step's batches, and where each of their lanes' manifolds is noted for
        // prepare to refresh the lane in place (see `ConstraintGraph::lanes_kept`): asked
        // for only where the last step recycled nearly every touching manifold (a scene at
        // rest, or mostly so).
        let (stored, lanes, defer) = self.graph.lanes_kept();
        #[cfg(feature = "validate")]
        let deferring = defer;
        let bounds = &shapes.bounds;
        // An idle contact whose shapes' bounds are still apart would come out of the update
        // as it is: skip it without loading it. The update of any other contact is handed
        // the same test rather than making it again. (`get`: a dead contact's shapes may
        // be gone.)
        let overlap = |[a, b]: [u32; 2]| match (bounds.get(a as usize), bounds.get(b as usize)) {
            (Some(a), Some(b)) => a.overlaps_unbranched(b),
            _ => false,
        };
        // An idle contact whose bodies have moved less than its lead since an update found
        // it apart would come out of the update as it is, without points: skip it too.
        #[cfg(test)]
        let leads_off = self.leads_off;
        #[cfg(not(test))]
        let leads_off = false;
        let within = |lead: &Lead, [a, b]: [u32; 2]| {
            let (a, b) = (ahead[a as usize], ahead[b as usize]);
            let turns = lead.levers[0] as f64 * a[1] + lead.levers[1] as f64 * b[1];
            let within = (a[0] + b[0] + turns < lead.reserve) & !leads_off;
            #[cfg(test)]
            if within {
                tests::SKIPPED.with(|n| n.set(n.get() + 1));
            }
            within
        };
        // The lead an update leaves (see `contact::Lead`), from the travels it was found at.
        let lead_of = |apart: Option<Apart>, [a, b]: [u32; 2]| match apart {
            Some(apart) => {
                let (a, b) = (travel[a as usize], travel[b as usize]);
                let turns = apart.levers[0] as f64 * a[1] + apart.levers[1] as f64 * b[1];
                Lead {
                    reserve: apart.margin as f64 + a[0] + b[0] + turns,
                    levers: apart.levers,
                }
            }
            None => Lead::NONE,
        };
        let chunks = contacts.len().div_ceil(NARROW_CHUNK);
        let outs = &mut self.scratch.narrow_chunks;
        outs.resize_with(chunks, Default::default);
        let mut work: Vec<NarrowWork> = contacts
            .chunks_mut(NARROW_CHUNK)
            .zip(ends.chunks(NARROW_CHUNK))
            .zip(tangents.chunks_mut(NARROW_CHUNK))
            .zip(pair_shapes.chunks(NARROW_CHUNK))
            .zip(idle.chunks_mut(NARROW_CHUNK))
            .zip(leads.chunks_mut(NARROW_CHUNK))
            .zip(pending.chunks_mut(NARROW_CHUNK))
            .zip(outs.iter_mut())
            .enumerate()
            .map(
                |(k, (((((((contacts, ends), tangents), shapes), idle), leads), pending), out))| {
                    NarrowWork {
                        base: k * NARROW_CHUNK,
                        contacts,
                        ends,
                        tangents,
                        shapes,
                        idle,
                        leads,
                        pending,
                        out,
                    }
                },
            )
            .collect();
        let run = |_: usize, w: &mut NarrowWork| {
            worker_zone!("Narrow Phase Chunk", color::NARROW_PHASE);
            let (base, chunk, ends, tangents) =
                (w.base, &mut *w.contacts, w.ends, &mut *w.tangents);
            let (pair_shapes, idle, out) = (w.shapes, &mut *w.idle, &mut *w.out);
            let leads = &mut *w.leads;
            let pending = &mut *w.pending;
            out.clear();
            // Dead contacts and, with sleep on, contacts without an awake body are
            // skipped from `ends` alone, without loading the contact. (Sleeping contacts
            // gave their colours back when their island fell asleep.)
            //
            // Whether an idle contact is updated is close to a coin toss in a busy scene,
            // so the filter does not branch on it: a first pass marks the live contacts
            // that are not idle and lists the idle ones whose bounds overlap (every
            // contact's bounds are tested: fewer mispredicted branches pay for the loads),
            // a second marks the listed ones that are past their leads, and a third lists
            // the marked ones in contact order (`docs/decisions.md`, "The narrow phase's
            // filter in three passes").
            let mut update = [false; NARROW_CHUNK];
            let mut near = [false; NARROW_CHUNK];
            let mut list = [0u16; NARROW_CHUNK];
            let mut n = 0;
            for (j, &e) in ends.iter().enumerate() {
                let live =
                    e[0] != NULL && (!sleep || active[e[0] as usize] | active[e[1] as usize]);
                near[j] = overlap(pair_shapes[j]);
                update[j] = live & !idle[j];
                list[n] = j as u16;
                n += (live & idle[j] & near[j]) as usize;
            }
            for &j in &list[..n] {
                let j = j as usize;
                update[j] = !within(&leads[j], ends[j]);
            }
            n = 0;
            for (j, &update) in update[..ends.len()].iter().enumerate() {
                list[n] = j as u16;
                n += update as usize;
                if !update & (pending[j] != NULL) {
                    // Not updated (its island fell asleep, or idle): its impulses go into
                    // the manifold now, before the batches are rebuilt.
                    take_pending(&mut pending[j], stored, &mut chunk[j].manifold);
                }
            }
            let list = &list[..n];
            for (i, &j) in list.iter().enumerate() {
                if let Some(&ahead) = list.get(i + PREFETCH_AHEAD) {
                    let ahead = ahead as usize;
                    prefetch(&chunk[ahead]);
                    // The lanes of a batch are contacts of one colour (and, but where a
                    // batch spans two groups, of one point count) in contact order: the
                    // first of them brings the batch's impulse rows for the others.
                    // (Not in a scene at rest, where they mostly stay in their lanes.)
                    let lane = pending[ahead];
                    if lane != NULL && lane as usize % W == 0 && !defer {
                        stored[lane as usize / W].prefetch_impulses();
                    }
                    // What the update reads besides the contact, found from the dense
                    // columns: both bodies' poses and velocities, both shapes' first line
                    // (not their bounds: the filter's test of them is handed to the
                    // update). (Scattered in a large world: the 100k bodies' columns are
                    // 5 MB.)
                    for b in ends[ahead] {
                        let b = b as usize;
                        prefetch(&bodies.position[b]);
                        prefetch(&bodies.rotation[b]);
                        prefetch(&bodies.linear_velocity[b]);
                        prefetch(&bodies.angular_velocity[b]);
                    }
                    for sh in pair_shapes[ahead] {
                        prefetch_head(&shapes.data[sh as usize], 64);
                    }
                }
                let j = j as usize;
                let c = &mut chunk[j];
                let lane = pending[j];
                // In a scene at rest (the lanes noted), a manifold that is recycled as it
                // was leaves its impulses in its lane: prepare refreshes that lane in place
                // and never reads them from the manifold. The copy is made only before a
                // full update, which carries them over (or by prepare, where it makes the
                // batch again: `World::take_deferred`).
                let defer = defer && c.flags & (MODIFY | TANGENT) == 0;
                if !defer {
                    take_pending(&mut pending[j], stored, &mut c.manifold);
                }
                let before = c.touching;
                let slot = &mut pending[j];
                let apart = update_contact(c, shapes, bodies, &params, near[j], |m| {
                    take_pending(slot, stored, m)
                });
                if defer {
                    if c.recycled {
                        out.deferred |= lane != NULL;
                    } else {
                        // Apart or made again: the impulses were dropped or taken.
                        pending[j] = NULL;
                    }
                }
                if c.flags & SENSOR != 0 {
                    // A sensor's contact touches while the shapes overlap (speculative
                    // points do not count) and is never solved.
                    let overlap =
                        c.touching && c.manifold.points().iter().any(|p| p.separation < 0.0);
                    c.touching = overlap;
                    idle[j] = is_idle(c);
                    leads[j] = if idle[j] {
                        lead_of(apart, ends[j])
                    } else {
                        Lead::NONE
                    };
                    if overlap != before {
                        let e = SensorEvent::of(c, shapes, body_pool);
                        if overlap {
                            out.sensor_begin.push(e);
                        } else {
                            out.sensor_end.push(e);
                        }
                    }
                    continue;
                }
                if c.touch_changed {
                    if c.touching {
                        out.links.push([c.body_a, c.body_b]);
                    } else {
                        out.unlinks.push([c.body_a, c.body_b]);
                    }
                    if c.flags & CONTACT_EVENTS != 0 {
                        let record = ContactTouch::of(c, shape_pool, body_pool);
                        if c.touching {
                            out.begin.push(record);
                        } else {
                            out.end.push(record);
                        }
                    }
                    if c.touching && c.flags & HIT_EVENTS != 0 {
                        let (speed, point) = approach(c, bodies);
                        if speed > hit_threshold {
                            out.hits.push(ContactHit {
                                touch: ContactTouch::of(c, shape_pool, body_pool),
                                point,
                                normal: c.manifold.normal,
                                approach_speed: speed,
                            });
                        }
                    }
                }
                if c.touching && c.flags & MODIFY != 0 {
                    if let Some(m) = modifier {
                        let touch = ContactTouch::of(c, shape_pool, body_pool);
                        super::modifier::modify(m, c, &mut tangents[j], touch, shapes);
                    }
                }
                if c.touching {
                    if sleep && (asleep(c.body_a) || asleep(c.body_b)) {
                        out.wake.push((base + j) as u32);
                    }
                    out.points += c.manifold.count;
                    out.recycled += c.recycled as usize;
                    out.touching.push((base + j) as u32);
                    out.pairs.push([c.body_a, c.body_b]);
                    out.colors.push(c.color);
                    out.counts.push(list_key(c));
                    if let Some(notes) = &lanes {
                        let kept = c.recycled && c.flags & (MODIFY | TANGENT) == 0;
                        notes.note(lane, separations(&c.manifold), kept);
                    }
                } else if c.color != NO_COLOR {
                    out.uncolor.push((base + j) as u32);
                }
                idle[j] = is_idle(c);
                leads[j] = if idle[j] {
                    lead_of(apart, ends[j])
                } else {
                    Lead::NONE
                };
            }
        };
        // One chunk: no pool to wake.
        match self.pool.as_deref().filter(|_| chunks > 1) {
            Some(pool) => {
                // The calling thread waits at the join while the workers run the chunks.
                join_wait!(
                    color::WAIT,
                    "narrow phase utilisation %",
                    pool.current_num_threads()
                );
                // Every chunk its own task: their costs differ widely (a chunk of idle
                // pairs costs next to nothing, one of touching boxes a great deal), and
                // rayon's adaptive split runs a few leaves of many chunks each, which no
                // other worker can take once they run: in rain one worker waited for the
                // other through a quarter of the narrow phase (`docs/decisions.md`,
                // "Where rain's two threads wait"). Each chunk writes only its own
                // outputs, so the split does not change the result.
                pool.install(|| {
                    work.par_iter_mut()
                        .enumerate()
                        .with_max_len(1)
                        .for_each(|(k, w)| run(k, w))
                });
            }
            None => for_each_maybe_par(&mut work, false, 1, run),
        }
        drop(work);
        // Every impulse the last store left in its batches is in its manifold now, but
        // for recycled manifolds' in a scene at rest.
        self.contacts.deferred = self.scratch.narrow_chunks.iter().any(|o| o.deferred);
        #[cfg(feature = "validate")]
        if !deferring {
            if let Some(k) = self.contacts.pending.iter().position(|&p| p != NULL) {
                panic!(
                    "validate: contact {k} still has its impulses pending after the narrowphase"
                );
            }
        }
        zone!("Contact State", color::NARROW_PHASE);
        let (mut points, mut recycled) = (0, 0);
        // The touching contacts are written over the last step's list, noting whether they
        // are the same (what prepare asks before it refreshes a batch in place).
        let mut list = std::mem::take(&mut self.touching.contacts);
        self.touching.clear();
        let (mut at, mut same) = (0, true);
        for out in self.scratch.narrow_chunks.iter() {
            let n = out.touching.len();
            match list.get_mut(at..at + n) {
                Some(old) => {
                    same &= old == &out.touching[..];
                    old.copy_from_slice(&out.touching);
                }
                None => {
                    same = false;
                    list.truncate(at);
                    list.extend_from_slice(&out.touching);
                }
            }
            at += n;
        }
        same &= at == list.len();
        list.truncate(at);
        self.touching.contacts = list;
        self.touching.changed = !same;
        for out in self.scratch.narrow_chunks.iter() {
            points += out.points;
            recycled += out.recycled;
            self.touching.pairs.extend_from_slice(&out.pairs);
            self.touching.colors.extend_from_slice(&out.colors);
            self.touching.points.extend_from_slice(&out.counts);
            self.touching.uncolor.extend_from_slice(&out.uncolor);
            self.events.touch_begin.extend_from_slice(&out.begin);
            self.events.touch_end.extend_from_slice(&out.end);
            self.events
                .sensor_begin
                .extend_from_slice(&out.sensor_begin);
            self.events.sensor_end.extend_from_slice(&out.sensor_end);
            self.events.hits.extend_from_slice(&out.hits);
        }
        self.aggregate_mesh_touches(); // midphase.rs: begin/end records of mesh pairs
        if sleep && self.join_islands() {
            points = self.relist_touching();
        }
        let manifolds = self.touching.contacts.len();
        self.profile.recycled = recycled;
        self.profile.contacts = self.contacts.live();
        self.profile.manifolds = manifolds;
        self.profile.points = points;
    }
}

#[cfg(test)]
mod tests;
