//! The solve stage: the movable bodies gathered, the constraint graph built, the impacts
//! of bouncy contacts, the substeps, and the impulses stored; then the new poses written
//! back and the move events.

use super::step::KeepAwake;
use super::World;
use crate::body::BodyType;
use crate::contact::ContactStore;
use crate::id::NULL;
use crate::parallel::DisjointPtr;
use crate::solver::articulation::TreeTopology;
use crate::solver::color::NO_COLOR;
use crate::solver::graph::{take_pending, ConstraintGraph};
use crate::solver::{self, Softness, StepContext, WarmStart};
use glam::Vec3;
use impetus_profiling::plot;

/// The touching contacts' colours and dense bodies, updated once per step (beside the
/// gather of the bodies, see [`World::gather`]): contacts that stopped touching give their
/// colours back, contacts that began touching take one, in contact order; each touching
/// pair's body slots become dense solver indices ([`NULL`] for a static or kinematic
/// body) through `index` (`SolverBodies::index`, made before this runs) and the bodies'
/// inverse masses; then the colours are listed.
fn color_contacts(
    coloring: &mut crate::solver::color::Coloring,
    contacts: &mut [crate::contact::Contact],
    touching: &mut super::Touching,
    index: &[u32],
    inv_mass: &[f32],
) {
    for &k in &touching.uncolor {
        let c = &mut contacts[k as usize];
        coloring.release(c.color, c.color_sides, c.body_a, c.body_b);
        (c.color, c.color_sides) = (NO_COLOR, 0);
    }
    let dynamic = |body: u32| solver::dynamic_by_slot(index, inv_mass, body);
    // The contacts without a colour take one, from their body slots (a static or
    // kinematic body takes no colour bit), in contact order.
    let slot = |body: u32| if dynamic(body) == NULL { NULL } else { body };
    for (k, color) in touching.colors.iter_mut().enumerate() {
        if *color == NO_COLOR {
            let [a, b] = touching.pairs[k];
            let (c, sides) = coloring.assign(slot(a), slot(b));
            let contact = &mut contacts[touching.contacts[k] as usize];
            (contact.color, contact.color_sides) = (c, sides);
            *color = c;
        }
    }
    for pair in &mut touching.pairs {
        let [a, b] = *pair;
        *pair = [dynamic(a), dynamic(b)];
    }
    coloring.list(&touching.colors, &touching.points);
}

/// Where the narrow phase left recycled contacts' impulses in their lanes (a scene at
/// rest, `World::collide`), takes into its manifold each contact's whose lane this step's
/// batches do not give it (after `ConstraintGraph::match_batches`): the batch that holds it
/// again, refreshed or made again over the last step's
/// (`ContactConstraintW::prepare_keeping`), keeps the rest where they are. The stack search
/// reads the manifolds' loads, so where it will run every contact's are taken; its first
/// question is asked here (`slot`: the solver's body slots), and its answer is returned (if
/// asked).
fn take_deferred(
    graph: &mut ConstraintGraph,
    touching: &super::Touching,
    store: &mut ContactStore,
    slot: &[u32],
    up: Vec3,
) -> Option<bool> {
    if !store.deferred {
        return None;
    }
    let mut lonely = None;
    let search = graph.kept_seeded()
        || *lonely.insert(graph.stacks.lonely(
            &touching.pairs,
            &touching.contacts,
            &store.contacts,
            &store.of_body,
            slot,
            up,
        ));
    let batches = graph.stored_batches();
    if search {
        for (c, pending) in store.contacts.iter_mut().zip(&mut store.pending) {
            if *pending != NULL {
                take_pending(pending, batches, &mut c.manifold);
            }
        }
        store.deferred = false;
    } else {
        let touching = &touching.contacts;
        graph.each_moved(|k, lane| {
            let id = touching[k] as usize;
            let pending = &mut store.pending[id];
            if *pending != NULL && *pending != lane {
                take_pending(pending, batches, &mut store.contacts[id].manifold);
            }
        });
    }
    lonely
}

impl World {
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
            // ratio (halving the ratio let a box on five boxes rock without end, see
            // `docs/decisions.md`).
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
            drop_null: true,
        }
    }

    /// Gathers the movable bodies into the solver's dense arrays (`SolverBodies::gather`)
    /// and, beside that loop, updates the touching contacts' colours and maps their bodies
    /// to dense indices ([`color_contacts`]), lays the batches out and finds which hold
    /// the last step's (`ConstraintGraph::match_batches`), and takes the impulses the
    /// narrow phase left in lanes they will not keep ([`take_deferred`]): none of that
    /// reads what the gather's loop writes (the dense index and slots are made first), so
    /// inside the solve region the walking thread does it while the worker starts on the
    /// bodies (`parallel::for_each_chunk_maybe_par_beside`). Runs once per step, after
    /// `collide`; returns the stack search's first answer, if [`take_deferred`] asked it.
    pub(crate) fn gather(&mut self, ctx: &StepContext, parallel: bool) -> Option<bool> {
        let (pool, awake) = (&self.body_pool, &self.bodies.awake);
        let (graph, store) = (&mut self.graph, &mut self.contacts);
        let (touching, bodies) = (&mut self.touching, &self.bodies);
        let mut lonely = None;
        self.solver.gather(
            bodies,
            |i| pool.is_alive(i) && awake[i],
            ctx,
            parallel,
            |index, slot, slots_changed| {
                let contacts = &mut store.contacts;
                color_contacts(
                    &mut graph.coloring,
                    contacts,
                    touching,
                    index,
                    &bodies.inv_mass,
                );
                let changed = touching.changed;
                graph.match_batches(
                    &touching.contacts,
                    changed,
                    slots_changed,
                    bodies,
                    ctx.gravity,
                );
                lonely = take_deferred(graph, touching, store, slot, ctx.up());
            },
        );
        lonely
    }

    /// Prepares the contacts' constraints into batches (after [`Self::gather`], whose
    /// return is `lonely`).
    pub(crate) fn build_graph(&mut self, ctx: &StepContext, lonely: Option<bool>, parallel: bool) {
        // Nearly every touching manifold recycled (a scene at rest, or mostly so): the next
        // narrow phase notes the lanes for refreshes (`profile.recycled`: this step's).
        let settled = 10 * self.profile.recycled >= 9 * self.touching.contacts.len();
        let pending = self.contacts.deferred.then_some(&self.contacts.pending[..]);
        self.graph.build(
            &self.touching.contacts,
            &self.touching.pairs,
            &self.contacts.contacts,
            &self.contacts.of_body,
            &self.contacts.tangent,
            &self.solver,
            &self.bodies,
            &self.joints.of_body,
            ctx,
            pending,
            lonely,
            settled,
            parallel,
        );
        self.contacts.deferred = false;
    }

    /// Runs `stages` (the solve) with the other workers in a spinning region when
    /// `parallel` and the step keeps them `awake`: the solve's loops (prepare's, the
    /// substeps' passes, the store's) follow each other closely, and the workers spend
    /// them taking the loops' blocks (see `parallel::with_region`), not in `KeepAwake`'s
    /// spinners, which poll rayon's queues, nor in rayon's idling, from which a fork after
    /// a serial part may have to wake them. (The finalize's loops stay on rayon: inside
    /// the region the continuous sweeps would run on one thread; `docs/decisions.md`.)
    pub(crate) fn in_region(
        &mut self,
        parallel: bool,
        awake: Option<&KeepAwake>,
        stages: impl FnOnce(&mut World),
    ) {
        match awake {
            Some(awake) if parallel && rayon::current_num_threads() > 1 => {
                awake.pause();
                let workers = rayon::current_num_threads() - 1;
                crate::parallel::with_region(workers, || stages(self));
                awake.resume();
            }
            _ => stages(self),
        }
    }

    /// The solve stage: the soft step over all constraints, through to the impulses kept
    /// for the next step's warm start.
    ///
    /// Constraints are coloured; each colour's constraints are packed `W` to a batch and
    /// solved in SIMD lanes, the batches of a colour spread over the workers; what fits no
    /// colour (the overflow) is solved serially by the scalar kernels first. Within a colour
    /// no two constraints share a dynamic body, so neither the lane width nor the thread
    /// count changes the result.
    pub(crate) fn solve(&mut self, ctx: &StepContext, parallel: bool) {
        stage!(self, prepare, "Prepare", SOLVE, self.prepare(ctx, parallel));
        let p = &mut self.profile;
        p.awake_bodies = self.solver.states.len();
        p.constraints = self.touching.contacts.len();
        p.colors = self.graph.coloring.used();
        p.overflow = self.graph.overflow.len();
        p.refreshed = self.graph.refreshed;
        p.wave_batches = self.graph.wave_batches();
        plot!("colors used", p.colors);
        plot!("overflow constraints", p.overflow);
        stage!(
            self,
            restitution,
            "Restitution",
            SOLVE,
            self.resolve_impacts(ctx)
        );
        let p = &mut self.profile;
        (
            p.integrate_velocities,
            p.warm_start,
            p.solve,
            p.integrate_positions,
            p.relax,
            p.particle_solve,
        ) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        // Without joints, substeps after the first carry their warm start per body.
        let carry = !self.graph.has_joints();
        for substep in 0..self.def.substeps {
            let warm = match (carry, substep) {
                (false, _) => WarmStart::Pass,
                (true, 0) => WarmStart::First,
                (true, _) => WarmStart::Carried,
            };
            self.substep(ctx, warm, carry, parallel, substep + 1 == self.def.substeps);
        }
        stage!(
            self,
            store_impulses,
            "Store Impulses",
            SOLVE,
            self.store_impulses(ctx, parallel)
        );
    }

    /// Gathers the movable bodies and builds the step's constraints: contacts, joints
    /// (and their trees when they changed), rolling-resistance rows.
    fn prepare(&mut self, ctx: &StepContext, parallel: bool) {
        let h = ctx.h;
        let lonely = self.gather(ctx, parallel);
        self.build_graph(ctx, lonely, parallel);
        let pool = &self.joints.pool;
        if self.joints.trees_dirty {
            let (joints, bodies) = (&self.joints.slots, &self.bodies);
            self.joints.trees = TreeTopology::build(
                joints,
                |slot| pool.is_alive(slot) && joints[slot].ball,
                |body| bodies.body_type[body as usize] == BodyType::Dynamic,
                &self.joints.of_body,
            );
            self.joints.trees_dirty = false;
        }
        // A joint is solved while one of its bodies is an awake dynamic body (both
        // are in one island, so both sleep or neither does).
        let keep_lists = !self.joints.lists_dirty && self.joints.lists_awake == self.solver.slot;
        // The trees, the overflow and a fresh ball batch read a ball joint's impulses from
        // its slot (a tree's may start or stop solving without the lists changing).
        if !keep_lists || !self.joints.trees.trees.is_empty() {
            self.graph.flush_ball_impulses(&mut self.joints.slots);
        }
        let (joints, bodies) = (&self.joints.slots, &self.bodies);
        let awake =
            |b: u32| bodies.body_type[b as usize] == BodyType::Dynamic && bodies.awake[b as usize];
        self.graph.build_joints(
            &self.joints.slots,
            |i| pool.is_alive(i) && (awake(joints[i].body_a) || awake(joints[i].body_b)),
            &self.solver,
            &self.bodies.position,
            &self.bodies.rotation,
            &self.joints.trees,
            keep_lists,
            h,
            parallel,
        );
        if self.shapes.rolling > 0 {
            self.rolling.prepare(
                &self.touching.contacts,
                &self.touching.pairs,
                &self.contacts.contacts,
                &self.solver,
                &self.graph,
            );
        } else if !self.rolling.is_empty() {
            self.rolling = Default::default();
        }
        self.graph.runs_without_joints();
        if !keep_lists {
            self.joints.lists_dirty = false;
            self.joints.lists_awake.clone_from(&self.solver.slot);
        }
        #[cfg(feature = "validate")]
        if let Some((color, body)) = self
            .graph
            .find_joint_conflict(&self.touching.pairs, self.solver.states.len())
        {
            panic!("validate: colour {color} has dynamic body {body} in a joint twice");
        }
    }

    /// Bouncy contacts collide at their times of impact before the soft step (see
    /// `solver::impact`); worlds without bouncy shapes or a modifier skip it.
    fn resolve_impacts(&mut self, ctx: &StepContext) {
        if self.shapes.bouncy > 0 || self.contact_modifier.is_some() {
            solver::impact::resolve(
                &self.touching.contacts,
                &self.touching.pairs,
                &self.contacts.contacts,
                &mut self.solver,
                ctx,
                ctx.h * self.def.substeps as f32,
                &mut self.scratch.impacts,
            );
        }
    }

    /// One substep: velocities, warm start, solve, positions, relax (each summed over the
    /// substeps in its profile field). The step's `last` substep's relax takes the null
    /// impulses out of every four-point manifold (see [`StepContext::drop_null`]).
    fn substep(
        &mut self,
        ctx: &StepContext,
        warm: WarmStart,
        carry: bool,
        parallel: bool,
        last: bool,
    ) {
        let relax_ctx = StepContext {
            drop_null: last,
            ..*ctx
        };
        stage_sum!(
            self,
            integrate_velocities,
            "Integrate Velocities",
            SOLVE,
            solver::integrate_velocities(&mut self.solver, ctx, warm, parallel)
        );
        if warm != WarmStart::Carried {
            stage_sum!(
                self,
                warm_start,
                "Warm Start",
                SOLVE,
                self.graph.warm_start(
                    &mut self.solver.states,
                    &mut self.solver.mass_rows,
                    parallel
                )
            );
        }
        self.rolling.warm_start(&mut self.solver.states, warm);
        stage_sum!(self, solve, "Solve", SOLVE, {
            let sb = &mut self.solver;
            self.graph
                .solve(&mut sb.states, &mut sb.mass_rows, ctx, true, parallel);
            self.rolling.solve(&mut self.solver.states, &self.graph);
        });
        stage_sum!(
            self,
            integrate_positions,
            "Integrate Positions",
            SOLVE,
            solver::integrate_positions(&mut self.solver, &self.bodies, ctx, carry, parallel)
        );
        stage_sum!(self, relax, "Relax", SOLVE, {
            let sb = &mut self.solver;
            self.graph.solve(
                &mut sb.states,
                &mut sb.mass_rows,
                &relax_ctx,
                false,
                parallel,
            );
            self.rolling.solve(&mut self.solver.states, &self.graph);
        });
        stage_sum!(
            self,
            particle_solve,
            "Particle Solve",
            SOLVE,
            self.particle_substep(ctx, carry, parallel)
        );
    }

    /// Keeps the impulses of the contacts and joints for the next step's warm start (and
    /// breaks the joints whose load passed their limit).
    fn store_impulses(&mut self, ctx: &StepContext, parallel: bool) {
        let (touching, store) = (&self.touching, &mut self.contacts);
        let (ids, colors) = (&touching.contacts, &touching.colors);
        let (contacts, pending) = (&mut store.contacts, &mut store.pending);
        self.graph.store(ids, colors, contacts, pending, parallel);
        self.store_joints(self.def.substeps, ctx.h, parallel);
    }

    /// Writes the solver's new poses and velocities back to the bodies; a body whose new
    /// state is not finite is quarantined instead (see [`World::quarantine`]).
    /// Writes the step's poses and velocities back to the bodies, and the move events: every
    /// body the solver moved, in solver order (the continuous stage mends those of the
    /// bodies it moves back).
    pub(crate) fn write_back(&mut self, parallel: bool) {
        let moves = &mut self.events.moves;
        let count = self.solver.slot.len();
        moves.truncate(count);
        let blank = super::BodyMove {
            body: crate::id::BodyId {
                index: NULL,
                generation: 0,
            },
            transform: crate::math::Transform::IDENTITY,
            fell_asleep: false,
        };
        moves.resize(count, blank);
        let (out, pool) = (DisjointPtr::new(moves), &self.body_pool);
        let moved = |k: usize, b: u32, transform| {
            *out.get_mut(k as u32) = super::BodyMove {
                body: crate::id::BodyId {
                    index: b,
                    generation: pool.generation(b as usize),
                },
                transform,
                fell_asleep: false,
            };
        };
        let sweep_fast = self.def.sweep_fast_bodies;
        if solver::finalize(
            &mut self.solver,
            &mut self.bodies,
            parallel,
            sweep_fast,
            moved,
        ) > 0
        {
            self.quarantine();
        }
    }

    /// The bodies whose state the step made non-finite (a force, a motor or a contact
    /// modifier beyond what f32 holds) stay at their pose before the step, at rest; the
    /// impulses of their contacts and joints are dropped, so no warm start carries the
    /// non-finite values to their neighbours; they are listed in
    /// [`World::quarantine_events`]. The rest of the world steps on.
    fn quarantine(&mut self) {
        let frozen: Vec<u32> = (0..self.solver.slot.len())
            .filter(|&k| self.solver.frozen[k])
            .map(|k| self.solver.slot[k])
            .collect();
        let mut is_frozen = vec![false; self.bodies.body_type.len()];
        for &b in &frozen {
            is_frozen[b as usize] = true;
            self.events.quarantined.push(crate::id::BodyId {
                index: b,
                generation: self.body_pool.generation(b as usize),
            });
        }
        let store = &mut self.contacts;
        for (c, pending) in store.contacts.iter_mut().zip(&mut store.pending) {
            if c.alive && (is_frozen[c.body_a as usize] || is_frozen[c.body_b as usize]) {
                *pending = crate::id::NULL;
                for p in c.manifold.points.iter_mut() {
                    p.normal_impulse = 0.0;
                    p.max_normal_impulse = 0.0;
                }
                c.manifold.friction_impulse = glam::Vec3::ZERO;
                c.manifold.twist_impulse = 0.0;
                c.cache.valid = false;
            }
        }
        self.graph.flush_ball_impulses(&mut self.joints.slots);
        for &b in &frozen {
            if let Some(joints) = self.joints.of_body.get(b as usize) {
                for &j in joints {
                    let data = &mut self.joints.slots[j as usize];
                    data.impulses = Default::default();
                    data.reaction = glam::Vec3::ZERO;
                    data.angular_reaction = glam::Vec3::ZERO;
                }
                // The kept ball batches still hold the impulses dropped here.
                self.joints.lists_dirty = true;
            }
        }
    }
}
