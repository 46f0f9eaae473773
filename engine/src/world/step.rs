//! `World::step`: the stages of one fixed step, in order.

use super::events::{approach, ContactHit, SensorEvent};
use super::{ContactTouch, World};
use crate::body::BodyType;
use crate::broadphase::pair_ids;
use crate::collision::can_collide;
use crate::contact::{
    is_idle, needs_solving, update_contact, Contact, NarrowParams, CONTACT_EVENTS, HIT_EVENTS,
    MODIFY, SENSOR,
};
use crate::error::Error;
use crate::id::NULL;
use crate::math::Aabb;
use crate::math::{prefetch, prefetch_head};
use crate::parallel::DisjointPtr;
use crate::solver::articulation::TreeTopology;
use crate::solver::color::NO_COLOR;
use crate::solver::{self, Softness, StepContext, WarmStart};
use impetus_profiling::{color, join_wait, physics_frame, plot, worker_zone, zone};
use rayon::prelude::*;
use std::time::Instant;

/// The narrowphase asks for the contact this many places ahead to be loaded while it
/// works on the current one (see [`prefetch`]).
const PREFETCH_AHEAD: usize = 6;

/// Contacts per narrowphase work item (fixed, so chunk boundaries depend on the scene
/// only).
const NARROW_CHUNK: usize = 256;
/// Constraints plus movable bodies from which the solver stage runs on the pool.
const PARALLEL_SOLVE: usize = 512;

/// What one chunk of contacts reports to the contact-state join.
#[derive(Default)]
pub(crate) struct NarrowChunk {
    touching: Vec<u32>,
    pairs: Vec<[u32; 2]>,
    /// The touching contacts' colours.
    colors: Vec<u8>,
    /// Contacts that stopped touching but still hold a colour.
    uncolor: Vec<u32>,
    begin: Vec<ContactTouch>,
    end: Vec<ContactTouch>,
    /// Solid contacts that began / stopped touching (their islands join / may split).
    pub(super) links: Vec<[u32; 2]>,
    pub(super) unlinks: Vec<[u32; 2]>,
    sensor_begin: Vec<SensorEvent>,
    sensor_end: Vec<SensorEvent>,
    hits: Vec<ContactHit>,
    /// Touching contacts with a sleeping body (their islands wake).
    pub(super) wake: Vec<u32>,
    points: usize,
    recycled: usize,
}

impl NarrowChunk {
    fn clear(&mut self) {
        self.touching.clear();
        self.pairs.clear();
        self.colors.clear();
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
    }
}

#[inline]
fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

impl World {
    /// Advances the world by `dt` seconds (one fixed step; use the same `dt` every step).
    pub fn step(&mut self, dt: f32) -> Result<(), Error> {
        if !dt.is_finite() || dt <= 0.0 {
            return Err(Error::invalid("dt", "must be finite and positive"));
        }
        zone!("Step");
        let start = Instant::now();
        self.last_dt = dt;
        self.touch_begin.clear();
        self.touch_end.clear();
        self.touch_end.append(&mut self.removed_touches);
        let events = &mut self.events;
        events.sensor_begin.clear();
        events.sensor_end.clear();
        events.sensor_end.append(&mut events.removed_sensor_ends);
        events.hits.clear();
        self.apply_environment_forces(dt); // forces.rs: drag, buoyancy
        self.aim_kinematic_targets(dt); // kinematic.rs: velocities to the targets
        self.update_broadphase();
        self.collide(dt);
        self.solve(dt);
        {
            // Before the kinematic bodies stop on their targets: a moving kinematic body
            // keeps what it touches awake.
            zone!("Sleep", color::SLEEP);
            let t = Instant::now();
            self.update_sleep(dt);
            self.profile.sleep = ms_since(t);
        }
        self.land_kinematic_targets(); // kinematic.rs: exactly on the targets, stopped
        self.profile.step = ms_since(start);
        plot!("awake bodies", self.profile.awake_bodies);
        plot!("contacts", self.profile.manifolds);
        plot!("touching points", self.profile.points);
        plot!("recycled manifolds", self.profile.recycled);
        physics_frame!();
        Ok(())
    }

    /// Stage 1: sort the moved proxies, destroy the contacts of pairs that ended, create
    /// contacts for new pairs (in pair-key order), update the child contacts of convex
    /// shapes against meshes (the midphase).
    pub(crate) fn update_broadphase(&mut self) {
        zone!("Broadphase", color::BROADPHASE);
        let t = Instant::now();
        self.broadphase.update(self.pool.as_ref());
        let mut ended = std::mem::take(&mut self.ended_scratch);
        ended.clear();
        ended.extend(self.broadphase.ended().iter().map(|e| e.1));
        for &contact in &ended {
            if contact != NULL {
                self.destroy_pair_contact(contact, false);
            }
        }
        self.ended_scratch = ended;
        let mut begun = std::mem::take(&mut self.begun_scratch);
        begun.clear();
        begun.extend_from_slice(self.broadphase.begun());
        for &key in &begun {
            let (pa, pb) = pair_ids(key);
            self.create_pair_contact(key, pa, pb);
        }
        self.begun_scratch = begun;
        self.update_mesh_children(); // midphase.rs: child contacts of mesh pairs
        self.compact_contacts();
        #[cfg(feature = "validate")]
        self.check_mesh_pairs();
        self.profile.broadphase = ms_since(t);
        self.profile.pairs = self.broadphase.pair_count();
        self.profile.grid_cells = self.broadphase.cell_count();
        self.profile.cell_size = self.broadphase.cell_size();
    }

    /// A contact for the shapes with slots `pa`, `pb`, or `None` when the pair cannot
    /// produce a response (kinds that never collide; no dynamic body in a solid pair, or
    /// no moving body in a sensor pair).
    pub(crate) fn new_contact(&self, pa: u32, pb: u32) -> Option<Contact> {
        let (da, db) = (
            &self.shapes.data[pa as usize],
            &self.shapes.data[pb as usize],
        );
        let (ka, kb) = (da.shape.kind(), db.shape.kind());
        // Sensors detect non-sensor shapes that let them, meshes excepted.
        let sensor = da.is_sensor || db.is_sensor;
        if sensor && (ka.is_triangles() || kb.is_triangles()) {
            return None;
        }
        if sensor
            && (da.is_sensor && db.is_sensor
                || !(da.is_sensor || da.enable_sensor_events)
                || !(db.is_sensor || db.enable_sensor_events))
        {
            return None;
        }
        // A solid pair needs a dynamic body to push; a sensor sees any body that can move
        // (kinematic doors, platforms and characters too). Two static bodies never pair.
        let (ta, tb) = (
            self.bodies.body_type[da.body as usize],
            self.bodies.body_type[db.body as usize],
        );
        let responds = if sensor {
            ta != BodyType::Static || tb != BodyType::Static
        } else {
            needs_solving(ta, tb)
        };
        if !can_collide(ka, kb)
            || !da.filter.collides_with(&db.filter)
            || self.joint_blocks(da.body, db.body)
            || !responds
        {
            return None;
        }
        if let Some(filter) = &self.pair_filter {
            let id = |s: u32| crate::id::ShapeId {
                index: s,
                generation: self.shapes.pool.generation(s as usize),
            };
            if !filter(id(pa), id(pb)) {
                return None;
            }
        }
        // Dispatch wants kind(a) <= kind(b); equal kinds keep slot order.
        let (sa, sb) = if ka <= kb { (pa, pb) } else { (pb, pa) };
        let (a, b) = (
            &self.shapes.data[sa as usize],
            &self.shapes.data[sb as usize],
        );
        Some(Contact {
            shape_a: sa,
            shape_b: sb,
            child: NULL,
            link: NULL,
            body_a: a.body,
            body_b: b.body,
            friction: (a.friction * b.friction).sqrt(),
            static_friction: (a.static_friction * b.static_friction).sqrt(),
            restitution: a.restitution.max(b.restitution),
            rolling_resistance: a.rolling.max(b.rolling),
            manifold: Default::default(),
            cache: Default::default(),
            recycled: false,
            touching: false,
            touch_changed: false,
            alive: true,
            color: NO_COLOR,
            color_sides: 0,
            flags: if sensor { SENSOR } else { 0 }
                | if a.enable_contact_events || b.enable_contact_events {
                    CONTACT_EVENTS
                } else {
                    0
                }
                | if a.enable_hit_events || b.enable_hit_events {
                    HIT_EVENTS
                } else {
                    0
                }
                | if a.enable_contact_modifier || b.enable_contact_modifier {
                    MODIFY
                } else {
                    0
                },
        })
    }

    /// Stage 2: the manifold of every contact, in parallel; each contact is written only
    /// by the worker that computes it, so the result does not depend on the thread count.
    ///
    /// Contacts are processed in fixed chunks of [`NARROW_CHUNK`]; each chunk also lists its
    /// touching contacts and begin/end records while they are hot in cache, and the
    /// chunks' lists are joined in chunk order, which is contact order. (A separate serial
    /// pass over the contacts for this took 1 ms a step on `pile`, 13k contacts: a fifth
    /// of the stage, and all of it serial.)
    pub(crate) fn collide(&mut self, dt: f32) {
        zone!("Narrow Phase", color::NARROW_PHASE);
        let t = Instant::now();
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
        let active = &mut self.active_scratch;
        active.clear();
        if sleep {
            active.extend(
                (0..bodies.body_type.len()).map(|b| match bodies.body_type[b] {
                    BodyType::Dynamic => bodies.awake[b],
                    BodyType::Kinematic => {
                        bodies.linear_velocity[b] != glam::Vec3::ZERO
                            || bodies.angular_velocity[b] != glam::Vec3::ZERO
                    }
                    BodyType::Static => false,
                }),
            );
        }
        let active = &*active;
        let asleep =
            |b: u32| bodies.body_type[b as usize] == BodyType::Dynamic && !bodies.awake[b as usize];
        let updated =
            |[a, b]: [u32; 2]| a != NULL && (!sleep || active[a as usize] || active[b as usize]);
        let modifier = self.contact_modifier.as_ref();
        let contacts = &mut self.contacts.contacts;
        let ends = &self.contacts.ends;
        let tangents = &mut self.contacts.tangent;
        let (pair_shapes, idle) = (&self.contacts.shapes, &mut self.contacts.idle);
        let bounds = &shapes.bounds;
        // An idle contact whose shapes' bounds are still apart would come out of the update
        // as it is: skip it without loading it.
        let stays_idle = |idle: bool, [a, b]: [u32; 2]| {
            idle && !bounds[a as usize].overlaps(&bounds[b as usize])
        };
        let chunks = contacts.len().div_ceil(NARROW_CHUNK);
        let outs = &mut self.narrow_chunks;
        outs.resize_with(chunks, Default::default);
        type Work<'a> = (
            usize,
            (
                (
                    ((&'a mut [Contact], &'a [[u32; 2]]), &'a mut [glam::Vec3]),
                    (&'a [[u32; 2]], &'a mut [bool]),
                ),
                &'a mut NarrowChunk,
            ),
        );
        let work = |(k, ((((chunk, ends), tangents), (pair_shapes, idle)), out)): Work| {
            worker_zone!("Narrow Phase Chunk", color::NARROW_PHASE);
            out.clear();
            let base = k * NARROW_CHUNK;
            // Dead contacts and, with sleep on, contacts without an awake body are
            // skipped from `ends` alone, without loading the contact. (Sleeping contacts
            // gave their colours back when their island fell asleep.)
            let mut list = [0u16; NARROW_CHUNK];
            let mut n = 0;
            for (j, &e) in ends.iter().enumerate() {
                list[n] = j as u16;
                n += (updated(e) && !stays_idle(idle[j], pair_shapes[j])) as usize;
            }
            let list = &list[..n];
            for (i, &j) in list.iter().enumerate() {
                if let Some(&ahead) = list.get(i + PREFETCH_AHEAD) {
                    let ahead = ahead as usize;
                    prefetch(&chunk[ahead]);
                    // What the update reads besides the contact, found from the dense
                    // columns: both bodies' poses and velocities, both shapes' first line
                    // and bounds. (Scattered in a large world: the 100k bodies' columns
                    // are 5 MB.)
                    for b in ends[ahead] {
                        let b = b as usize;
                        prefetch(&bodies.position[b]);
                        prefetch(&bodies.rotation[b]);
                        prefetch(&bodies.linear_velocity[b]);
                        prefetch(&bodies.angular_velocity[b]);
                    }
                    for sh in pair_shapes[ahead] {
                        prefetch_head(&shapes.data[sh as usize], 64);
                        prefetch(&bounds[sh as usize]);
                    }
                }
                let j = j as usize;
                let c = &mut chunk[j];
                let before = c.touching;
                update_contact(c, shapes, bodies, &params);
                if c.flags & SENSOR != 0 {
                    // A sensor's contact touches while the shapes overlap (speculative
                    // points do not count) and is never solved.
                    let overlap =
                        c.touching && c.manifold.points().iter().any(|p| p.separation < 0.0);
                    c.touching = overlap;
                    idle[j] = is_idle(c);
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
                } else if c.color != NO_COLOR {
                    out.uncolor.push((base + j) as u32);
                }
                idle[j] = is_idle(c);
            }
        };
        // One chunk: no pool to wake.
        match self.pool.as_ref().filter(|_| contacts.len() > NARROW_CHUNK) {
            Some(pool) => {
                // The calling thread waits at the join while the workers run the chunks.
                join_wait!(
                    color::WAIT,
                    "narrow phase utilisation %",
                    pool.current_num_threads()
                );
                pool.install(|| {
                    contacts
                        .par_chunks_mut(NARROW_CHUNK)
                        .zip(ends.par_chunks(NARROW_CHUNK))
                        .zip(tangents.par_chunks_mut(NARROW_CHUNK))
                        .zip(
                            pair_shapes
                                .par_chunks(NARROW_CHUNK)
                                .zip(idle.par_chunks_mut(NARROW_CHUNK)),
                        )
                        .zip(outs.par_iter_mut())
                        .enumerate()
                        .for_each(work)
                })
            }
            None => contacts
                .chunks_mut(NARROW_CHUNK)
                .zip(ends.chunks(NARROW_CHUNK))
                .zip(tangents.chunks_mut(NARROW_CHUNK))
                .zip(
                    pair_shapes
                        .chunks(NARROW_CHUNK)
                        .zip(idle.chunks_mut(NARROW_CHUNK)),
                )
                .zip(outs.iter_mut())
                .enumerate()
                .for_each(work),
        }
        zone!("Contact State", color::NARROW_PHASE);
        let (mut points, mut recycled) = (0, 0);
        self.touching.clear();
        self.touching_pairs.clear();
        self.touching_colors.clear();
        self.uncolor.clear();
        for out in self.narrow_chunks.iter() {
            points += out.points;
            recycled += out.recycled;
            self.touching.extend_from_slice(&out.touching);
            self.touching_pairs.extend_from_slice(&out.pairs);
            self.touching_colors.extend_from_slice(&out.colors);
            self.uncolor.extend_from_slice(&out.uncolor);
            self.touch_begin.extend_from_slice(&out.begin);
            self.touch_end.extend_from_slice(&out.end);
            self.events
                .sensor_begin
                .extend_from_slice(&out.sensor_begin);
            self.events.sensor_end.extend_from_slice(&out.sensor_end);
            self.events.hits.extend_from_slice(&out.hits);
        }
        self.aggregate_mesh_touches(); // midphase.rs: begin/end records of mesh pairs
        if sleep {
            points = self.update_islands(points);
        }
        let manifolds = self.touching.len();
        self.profile.recycled = recycled;
        self.profile.narrowphase = ms_since(t);
        self.profile.contacts = self.contacts.live();
        self.profile.manifolds = manifolds;
        self.profile.points = points;
    }

    /// The step-wide constants of the solver for a step of `dt`.
    pub(crate) fn step_context(&self, dt: f32) -> StepContext {
        let def = &self.def;
        let h = dt / def.substeps as f32;
        // A spring stiffer than a quarter of the substep rate is not resolved by the
        // substeps; cap it there (Box2D does the same).
        let contact_hertz = def.contact_hertz.min(0.25 / h);
        StepContext {
            inv_dt: 1.0 / dt,
            h,
            inv_h: 1.0 / h,
            gravity: def.gravity,
            contact_softness: Softness::new(contact_hertz, def.contact_damping_ratio, h),
            // Contacts with a static or kinematic body: twice the hertz, the same damping
            // ratio. Halving the ratio (the first design) let a box on five boxes
            // rock without end: the 5-wide mini pyramid oscillated at 0.08 m/s after 20 s
            // with ratio 5 and came to rest (1e-6 m/s) with ratio 10.
            static_softness: Softness::new(2.0 * contact_hertz, def.contact_damping_ratio, h),
            joint_softness: Softness::new(
                def.joint_hertz.min(0.25 / h),
                def.joint_damping_ratio,
                h,
            ),
            max_push_speed: def.max_push_speed,
            restitution_threshold: def.restitution_threshold,
            static_friction_speed: def.static_friction_speed,
            max_linear_speed: def.max_linear_speed,
            max_rotation: 0.25 * std::f32::consts::PI,
        }
    }

    /// Gathers the movable bodies, maps the touching contacts' bodies (listed by the
    /// narrowphase) to the solver indices of their dynamic bodies ([`NULL`] for static or
    /// kinematic), and updates the colours: contacts that stopped touching give theirs
    /// back, contacts that began touching take one, serially in contact order. Runs once
    /// per step, after `collide`.
    pub(crate) fn gather_contacts(&mut self) {
        let (pool, awake) = (&self.body_pool, &self.bodies.awake);
        self.solver
            .gather(&self.bodies, |i| pool.is_alive(i) && awake[i]);
        let coloring = &mut self.graph.coloring;
        let contacts = &mut self.contacts.contacts;
        for &k in &self.uncolor {
            let c = &mut contacts[k as usize];
            coloring.release(c.color, c.color_sides, c.body_a, c.body_b);
            (c.color, c.color_sides) = (NO_COLOR, 0);
        }
        let sb = &self.solver;
        let dynamic = |body: u32| {
            let k = sb.index[body as usize];
            if k != NULL && sb.mass[k as usize].inv_mass > 0.0 {
                k
            } else {
                NULL
            }
        };
        // The narrowphase listed the touching contacts with their body slots; turn the
        // slots into dynamic solver indices, colouring the contacts that have no colour.
        let slot = |body: u32, d: u32| if d == NULL { NULL } else { body };
        for (k, pair) in self.touching_pairs.iter_mut().enumerate() {
            let [a, b] = *pair;
            let (da, db) = (dynamic(a), dynamic(b));
            if self.touching_colors[k] == NO_COLOR {
                let (color, sides) = coloring.assign(slot(a, da), slot(b, db));
                let c = &mut contacts[self.touching[k] as usize];
                (c.color, c.color_sides) = (color, sides);
                self.touching_colors[k] = color;
            }
            *pair = [da, db];
        }
        coloring.list(&self.touching_colors);
    }

    /// Colours the touching contacts and prepares their constraints into batches.
    pub(crate) fn build_batches(&mut self, ctx: &StepContext, parallel: bool) {
        self.graph.build(
            &self.touching,
            &self.touching_pairs,
            &self.contacts.contacts,
            &self.contacts.tangent,
            &self.solver,
            &self.bodies,
            ctx,
            parallel,
        );
    }

    /// Stage 3: the soft step over all contact constraints, then the new poses.
    ///
    /// Constraints are coloured; each colour's constraints are packed `W` to a batch and
    /// solved in SIMD lanes, the batches of a colour spread over the workers; what fits no
    /// colour (the overflow) is solved serially by the scalar kernels first. Within a colour
    /// no two constraints share a dynamic body, so neither the lane width nor the thread
    /// count changes the result.
    fn solve(&mut self, dt: f32) {
        zone!("Solve Stage", color::SOLVE);
        let ctx = self.step_context(dt);
        // Run the whole stage inside the pool: the per-colour parallel loops then fork
        // and join among the workers instead of waking the pool from outside ~100 times
        // a step (measured: no gain from 2 threads that way). Long-lived workers walking
        // a stage list with atomic block counters and spin barriers (Box2D v3 / Bepu
        // style, commit 070ac64) measured the same or slower at 2 threads: pyramid 0.906
        // vs 0.924 ms, large_pyramid 5.62 vs 5.48 ms, many_pyramids 10.12 vs 9.58 ms
        // (mean of 5 alternated medians), so fork/join stays.
        //
        // A small scene runs on the calling thread: waking the pool for a few dozen bodies
        // costs more than it saves, and a worker spinning beside a serial tree solve slows
        // it (chain, 101 bodies: 0.40 ms a step on 1 thread, 0.77 ms on 2). The work count
        // is this step's constraints plus last step's movable bodies; the result does not
        // depend on the choice.
        let work = self.touching.len() + self.joint_pool.live() + self.solver.states.len();
        match self.pool.take() {
            Some(pool) if work >= PARALLEL_SOLVE => {
                // The calling thread waits at the join while a worker runs the stage (and
                // the others its parallel loops); the worker's zones nest in its own
                // "Solve Stage on Worker".
                join_wait!(color::WAIT);
                pool.install(|| {
                    zone!("Solve Stage on Worker", color::SOLVE);
                    self.solve_stage(&ctx, true)
                });
                self.pool = Some(pool);
            }
            pool => {
                self.pool = pool;
                self.solve_stage(&ctx, false);
            }
        }
    }

    fn solve_stage(&mut self, ctx: &StepContext, parallel: bool) {
        let ctx = *ctx;
        let substeps = self.def.substeps;
        let h = ctx.h;

        let t = Instant::now();
        {
            zone!("Prepare", color::SOLVE);
            self.gather_contacts();
            solver::prepare_forcing(&mut self.solver, &self.bodies, &ctx, parallel);
            self.build_batches(&ctx, parallel);
            let pool = &self.joint_pool;
            if self.joint_trees_dirty {
                let (joints, bodies) = (&self.joints, &self.bodies);
                self.joint_trees = TreeTopology::build(
                    joints,
                    |slot| pool.is_alive(slot) && joints[slot].ball,
                    |body| bodies.body_type[body as usize] == BodyType::Dynamic,
                    &self.body_joints,
                );
                self.joint_trees_dirty = false;
            }
            // A joint is solved while one of its bodies is an awake dynamic body (both
            // are in one island, so both sleep or neither does).
            let (joints, bodies) = (&self.joints, &self.bodies);
            let awake = |b: u32| {
                bodies.body_type[b as usize] == BodyType::Dynamic && bodies.awake[b as usize]
            };
            let keep_lists = !self.joint_lists_dirty && self.joint_lists_awake == self.solver.slot;
            self.graph.build_joints(
                &self.joints,
                |i| pool.is_alive(i) && (awake(joints[i].body_a) || awake(joints[i].body_b)),
                &self.solver,
                &self.bodies.position,
                &self.bodies.rotation,
                &self.joint_trees,
                keep_lists,
                h,
                parallel,
            );
            if self.shapes.rolling > 0 {
                self.rolling.prepare(
                    &self.touching,
                    &self.touching_pairs,
                    &self.contacts.contacts,
                    &self.solver,
                    &self.graph,
                );
            } else if !self.rolling.is_empty() {
                self.rolling = Default::default();
            }
            if !keep_lists {
                self.joint_lists_dirty = false;
                self.joint_lists_awake.clone_from(&self.solver.slot);
            }
            #[cfg(feature = "validate")]
            if let Some((color, body)) = self
                .graph
                .find_joint_conflict(&self.touching_pairs, self.solver.states.len())
            {
                panic!("validate: colour {color} has dynamic body {body} in a joint twice");
            }
        }
        self.profile.prepare = ms_since(t);
        self.profile.awake_bodies = self.solver.states.len();
        self.profile.constraints = self.touching.len();
        self.profile.colors = self.graph.coloring.used();
        self.profile.overflow = self.graph.overflow.len();
        plot!("colors used", self.profile.colors);
        plot!("overflow constraints", self.profile.overflow);

        {
            // Bouncy contacts collide at their times of impact before the soft step (see
            // `solver::impact`); worlds without bouncy shapes or a modifier skip it.
            zone!("Restitution", color::SOLVE);
            let t = Instant::now();
            if self.shapes.bouncy > 0 || self.contact_modifier.is_some() {
                solver::impact::resolve(
                    &self.touching,
                    &self.touching_pairs,
                    &self.contacts.contacts,
                    &mut self.solver,
                    &ctx,
                    h * substeps as f32,
                    &mut self.impact_scratch,
                );
            }
            self.profile.restitution = ms_since(t);
        }
        let p = &mut self.profile;
        (
            p.integrate_velocities,
            p.warm_start,
            p.solve,
            p.integrate_positions,
            p.relax,
        ) = (0.0, 0.0, 0.0, 0.0, 0.0);
        // Without joints, substeps after the first carry their warm start per body.
        let carry = !self.graph.has_joints();
        for substep in 0..substeps {
            let warm = match (carry, substep) {
                (false, _) => WarmStart::Pass,
                (true, 0) => WarmStart::First,
                (true, _) => WarmStart::Carried,
            };
            {
                zone!("Integrate Velocities", color::SOLVE);
                let t = Instant::now();
                solver::integrate_velocities(&mut self.solver, &ctx, warm, parallel);
                p.integrate_velocities += ms_since(t);
            }
            if warm != WarmStart::Carried {
                zone!("Warm Start", color::SOLVE);
                let t = Instant::now();
                self.graph.warm_start(&mut self.solver.states, parallel);
                p.warm_start += ms_since(t);
            }
            self.rolling.warm_start(&mut self.solver.states, warm);
            {
                zone!("Solve", color::SOLVE);
                let t = Instant::now();
                self.graph
                    .solve(&mut self.solver.states, &ctx, true, parallel);
                self.rolling.solve(&mut self.solver.states, &self.graph);
                p.solve += ms_since(t);
            }
            {
                zone!("Integrate Positions", color::SOLVE);
                let t = Instant::now();
                solver::integrate_positions(&mut self.solver, &self.bodies, &ctx, carry, parallel);
                p.integrate_positions += ms_since(t);
            }
            {
                zone!("Relax", color::SOLVE);
                let t = Instant::now();
                self.graph
                    .solve(&mut self.solver.states, &ctx, false, parallel);
                self.rolling.solve(&mut self.solver.states, &self.graph);
                p.relax += ms_since(t);
            }
        }
        {
            zone!("Store Impulses", color::SOLVE);
            let t = Instant::now();
            self.graph.store(&mut self.contacts.contacts, parallel);
            self.store_joints(substeps, h, parallel);
            self.profile.store_impulses = ms_since(t);
        }
        zone!("Finalize", color::SOLVE);
        let t = Instant::now();
        let parallel_finalize = parallel && self.solver.slot.len() >= PARALLEL_FINALIZE;
        solver::finalize(&self.solver, &mut self.bodies, parallel_finalize);
        self.continuous(parallel);
        self.refit_moved(parallel_finalize);
        let (bodies, pool) = (&self.bodies, &self.body_pool);
        let event = |&b: &u32| super::BodyMove {
            body: crate::id::BodyId {
                index: b,
                generation: pool.generation(b as usize),
            },
            transform: bodies.origin(b as usize),
            fell_asleep: false,
        };
        self.events.moves.clear();
        if parallel_finalize {
            let slots = self
                .solver
                .slot
                .par_iter()
                .with_min_len(PARALLEL_FINALIZE / 2);
            self.events.moves.par_extend(slots.map(event));
        } else {
            self.events.moves.extend(self.solver.slot.iter().map(event));
        }
        self.profile.finalize = ms_since(t) - self.profile.continuous;
    }

    /// Recomputes the bounds of every shape of a movable body; a proxy whose tight box left
    /// its fat box gets a new fat box. With `parallel`, the bounds are computed by the
    /// workers in chunks of bodies and the proxies moved afterwards in body order, as the
    /// serial walk moves them.
    pub(crate) fn refit_moved(&mut self, parallel: bool) {
        let slots = &self.solver.slot;
        if !parallel {
            for k in 0..slots.len() {
                self.refit_body(self.solver.slot[k] as usize);
            }
            return;
        }
        let (bodies, data, broadphase) = (&self.bodies, &self.shapes.data, &self.broadphase);
        let (dt, def) = (self.last_dt, &self.def);
        let column = DisjointPtr::new(&mut self.shapes.bounds);
        let moved: Vec<Vec<(u32, Aabb)>> = slots
            .par_chunks(PARALLEL_FINALIZE / 2)
            .map(|chunk| {
                let mut moved = Vec::new();
                for &b in chunk {
                    shape_bounds(bodies, data, b as usize, dt, def, |s, bounds| {
                        // Each shape belongs to one body, and each body is in one chunk.
                        *column.get_mut(s) = bounds;
                        if !broadphase.fat_aabb(s).contains(&bounds) {
                            moved.push((s, bounds.expanded(def.aabb_margin)));
                        }
                    });
                }
                moved
            })
            .collect();
        for (s, fat) in moved.into_iter().flatten() {
            self.broadphase.move_proxy(s, fat);
        }
    }

    /// Recomputes the bounds of body `b`'s shapes; a proxy whose bounds left its fat box
    /// (every proxy of a static body) gets a new fat box.
    pub(crate) fn refit_body(&mut self, b: usize) {
        let is_static = self.bodies.body_type[b] == BodyType::Static;
        let (bodies, data, column) = (&self.bodies, &self.shapes.data, &mut self.shapes.bounds);
        let (broadphase, margin) = (&mut self.broadphase, self.def.aabb_margin);
        shape_bounds(bodies, data, b, self.last_dt, &self.def, |s, bounds| {
            column[s as usize] = bounds;
            if is_static || !broadphase.fat_aabb(s).contains(&bounds) {
                broadphase.move_proxy(s, bounds.expanded(margin));
            }
        });
    }
}

/// Bodies from which the finalize stage runs in parallel (write-back, bounds, move events).
const PARALLEL_FINALIZE: usize = 1024;

/// Calls `f` with each shape of body `b` and its bounds: the tight box grown by the
/// speculative distance and swept over the next step's predicted motion (`v dt`, and the
/// angular speed times the shape's reach), so pairs exist before fast bodies meet and the
/// narrowphase can place speculative points.
fn shape_bounds(
    bodies: &crate::body::BodyStore,
    data: &[crate::shape::store::ShapeData],
    b: usize,
    dt: f32,
    def: &super::WorldDef,
    mut f: impl FnMut(u32, Aabb),
) {
    let xf = bodies.transform(b);
    let motion = bodies.linear_velocity[b] * dt;
    let spin = bodies.angular_velocity[b].length() * dt;
    for s in &bodies.shapes[b] {
        let d = &data[s.index as usize];
        let grow = def.speculative_distance + spin * d.reach();
        let bb = d.shape.aabb(&d.pose(&xf)).expanded(grow);
        let bounds = Aabb {
            min: bb.min.min(bb.min + motion),
            max: bb.max.max(bb.max + motion),
        };
        f(s.index, bounds);
    }
}
