//! Continuous collision: the stage that stops fast bodies and bullets at their time of
//! impact, so they cannot pass through thin geometry between two steps.
//!
//! Speculative contacts (every body, see the narrowphase) catch what is within the
//! speculative distance at the start of a step. A body that moves farther than that in one
//! step can still cross a wall thinner than its motion. After the solver's finalize has
//! written the new poses, and before the bounds are refit, this stage:
//!
//! 1. lists the dynamic bodies to sweep: bullets (`BodyDef::bullet`), and, when
//!    `WorldDef::sweep_fast_bodies` is on, every dynamic body whose displacement `|Δp|` in
//!    the step exceeds half its smallest extent (the least of its shapes'
//!    [`Shape::min_extent`]: sphere radius, smallest box half extent) and that no joint
//!    holds (moving a jointed body back alone tears its joints: flag it as a bullet to
//!    sweep it anyway);
//! 2. sweeps each from its start pose `(p₁ − Δp, Δq⁻¹ q₁)` to its end pose `(p₁, q₁)`
//!    ([`Sweep::from_delta`], from the solver's deltas) against the shapes whose fat boxes
//!    overlap the swept box (start box ∪ end box, grown by `|Δθ| r` for the rotation) found
//!    by [`BroadPhase::query_aabb`](crate::broadphase::BroadPhase::query_aabb): static
//!    shapes for every swept body, and for bullets also the shapes of non-bullet dynamic
//!    and kinematic bodies, taken at their final poses (as Box2D does: those bodies are
//!    done moving when bullets are swept). Each pair's time of impact is found by
//!    conservative advancement ([`time_of_impact`]) with target separation
//!    `WorldDef::linear_slop`, so the next step's speculative contact sees the surface;
//! 3. places each body that hits at its pose at the earliest time of impact `t`, keeping its
//!    velocity: the contact at the next step stops or bounces it.
//!
//! Fast non-bullet bodies are swept first and placed, then bullets (against everyone's
//! final poses). Within each pass the sweeps run in parallel (each reads only the state
//! left by the solver and the previous pass) and are applied serially in solver order, so
//! the result is the same for any thread count. A body that does not need a sweep is not
//! read or written, so scenes without fast bodies are bit-identical with the stage.
//!
//! Static meshes and height fields are swept triangle by triangle: the triangles whose
//! bounds overlap the swept box (through the mesh's tree or the field's grid), each as a
//! fixed convex core, except those the body's centre only slides along ([`slides_along`]).
//!
//! Limits: a swept body loses the rest of its step's motion (time loss, as in Box2D); two
//! bullets do not sweep against each other; shapes already within the target separation at
//! the start of the step are left to the contact solver.

use super::World;
use crate::body::BodyType;
use crate::collision::toi::{time_of_impact, time_of_impact_triangle, Sweep, ToiState};
use crate::error::Error;
use crate::id::BodyId;
use crate::math::Aabb;
use crate::shape::{local_aabb, Shape};
use crate::solver::{SWEEP_BULLET, SWEEP_FAST};
use glam::Vec3;
use rayon::prelude::*;

/// Below this many swept bodies the sweeps run on the calling thread.
const PARALLEL_MIN: usize = 8;

/// Convergence tolerance of the advancement as a fraction of the target separation.
const TOLERANCE_FRACTION: f32 = 0.25;

/// The smallest tolerance, in m, so that a zero `linear_slop` still converges.
const MIN_TOLERANCE: f32 = 1.0e-4;

/// The part of a body's smallest extent that counts as its core (see [`slides_along`]).
const CORE_FRACTION: f32 = 0.25;

/// Whether a body whose centre moves from `c1` to `c2` only slides along the triangle (world
/// corners `tri`): it ends more than `core` (m) in front of the triangle's plane, on the side
/// it started, having approached it by less than `core`. Such a body is left to its
/// speculative contacts: sweeping it would stop it each time it slides onto the next
/// triangle of a flat floor (a box at 40 m/s over a 2 m-grid mesh covered 29.4 m of the
/// 40 m it covers on a plane in a second). Box2D v3 skips chain segments the same way.
fn slides_along(tri: &[Vec3; 3], c1: Vec3, c2: Vec3, core: f32) -> bool {
    let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]).normalize_or_zero();
    let s1 = n.dot(c1 - tri[0]);
    let (s1, s2) = if s1 < 0.0 {
        (-s1, -n.dot(c2 - tri[0]))
    } else {
        (s1, n.dot(c2 - tri[0]))
    };
    s1 - s2 < core && s2 > core
}

impl World {
    /// Makes a body a bullet (swept against static geometry and other dynamic bodies every
    /// step) or an ordinary body. See [`BodyDef::bullet`](crate::BodyDef::bullet).
    pub fn set_bullet(&mut self, id: BodyId, bullet: bool) -> Result<(), Error> {
        let i = self.body_index(id)?;
        self.bodies.bullet[i] = bullet;
        self.structure += 1;
        Ok(())
    }

    /// Whether the body is a bullet.
    pub fn is_bullet(&self, id: BodyId) -> Result<bool, Error> {
        Ok(self.bodies.bullet[self.body_index(id)?])
    }

    /// The continuous-collision stage: runs after the solver wrote the step's poses and
    /// before their bounds are refit. Sets `profile.swept_bodies` and `impacts`.
    pub(crate) fn continuous(&mut self, parallel: bool) {
        let (mut swept, mut impacts) = (0, 0);
        let [fast, bullets] = self.bodies_to_sweep();
        for (list, bullets) in [(fast, false), (bullets, true)] {
            if list.is_empty() {
                continue;
            }
            swept += list.len();
            let sweep = |&k: &u32| self.sweep_body(k as usize, bullets);
            let times: Vec<Option<f32>> = if parallel && list.len() >= PARALLEL_MIN {
                list.par_iter().map(sweep).collect()
            } else {
                list.iter().map(sweep).collect()
            };
            for (&k, t) in list.iter().zip(times) {
                let Some(t) = t else { continue };
                impacts += 1;
                let i = self.solver.slot[k as usize] as usize;
                let s = &self.solver.states[k as usize];
                let pose =
                    Sweep::from_delta(self.bodies.position[i], self.bodies.rotation[i], s.dp, s.dq)
                        .at(t);
                self.bodies.move_to(i, pose.p, pose.q);
                // The move event (written with the step's pose) follows.
                if let Some(m) = self.events.moves.get_mut(k as usize) {
                    m.transform = self.bodies.origin(i);
                }
            }
        }
        self.profile.swept_bodies = swept;
        self.profile.impacts = impacts;
    }

    /// Solver indices of the dynamic bodies to sweep, from what the finalize found of each
    /// (`SolverBodies::sweep`): the non-bullets that moved more than half their smallest
    /// extent, then the bullets (which bodies are bullets does not depend on the first
    /// list's sweeps). A quarantined body is neither: it stays where it was.
    fn bodies_to_sweep(&self) -> [Vec<u32>; 2] {
        let (mut fast, mut bullets) = (Vec::new(), Vec::new());
        for (k, &kind) in self.solver.sweep.iter().enumerate() {
            match kind {
                SWEEP_BULLET => bullets.push(k as u32),
                // Bodies held by joints are left to the solver: placing one at its time
                // of impact without its partners tears the joint (ragdolls: max joint
                // error 14 -> 54 mm, max penetration 0.050 -> 0.108 m). Bullets are swept
                // whatever holds them.
                SWEEP_FAST => {
                    let i = self.solver.slot[k] as usize;
                    if self.joints.of_body.get(i).is_none_or(|j| j.is_empty()) {
                        fast.push(k as u32);
                    }
                }
                _ => {}
            }
        }
        [fast, bullets]
    }

    /// Recomputes body `i`'s least [`Shape::min_extent`] (after its shapes changed), so
    /// the per-step scan for fast bodies reads one column instead of every shape.
    pub(crate) fn update_min_extent(&mut self, i: usize) {
        self.bodies.min_extent[i] = self.bodies.shapes[i]
            .iter()
            .map(|s| self.shapes.data[s.index as usize].shape.min_extent())
            .fold(f32::INFINITY, f32::min);
    }

    /// The earliest time of impact in (0, 1) of the body at solver index `k`, if any.
    fn sweep_body(&self, k: usize, bullet: bool) -> Option<f32> {
        let (sb, bodies, shapes) = (&self.solver, &self.bodies, &self.shapes);
        let i = sb.slot[k] as usize;
        let s = &sb.states[k];
        let sweep = Sweep::from_delta(bodies.position[i], bodies.rotation[i], s.dp, s.dq);
        let (start, end) = (sweep.at(0.0), bodies.transform(i));
        let spin = sweep.dtheta.length();
        let target = self.def.linear_slop;
        let tolerance = (TOLERANCE_FRACTION * target).max(MIN_TOLERANCE);

        // The swept box of the body's shapes.
        let mut bounds: Option<Aabb> = None;
        for id in &bodies.shapes[i] {
            let d = &shapes.data[id.index as usize];
            let shape = &d.shape;
            let (a, b) = (shape.aabb(&d.pose(&start)), shape.aabb(&d.pose(&end)));
            let grow = target + tolerance + spin * d.reach();
            let bb = Aabb {
                min: a.min.min(b.min) - glam::Vec3::splat(grow),
                max: a.max.max(b.max) + glam::Vec3::splat(grow),
            };
            bounds = Some(match bounds {
                Some(u) => Aabb {
                    min: u.min.min(bb.min),
                    max: u.max.max(bb.max),
                },
                None => bb,
            });
        }
        let bounds = bounds?;
        let mut candidates = Vec::new();
        self.broadphase
            .query_aabb(&bounds, bullet, |proxy| candidates.push(proxy));
        // Query order follows the grid; sort so the scan (and its ties) never depends on it.
        candidates.sort_unstable();

        let mut t_min = 1.0f32;
        let mut hit = false;
        let core = CORE_FRACTION * bodies.min_extent[i];
        for &proxy in &candidates {
            let other = &shapes.data[proxy as usize];
            let j = other.body as usize;
            if j == i || self.joint_blocks(i as u32, j as u32) {
                continue;
            }
            // Only bullets query movable shapes, and they skip other bullets. Movable
            // bodies are taken at their final poses.
            if bodies.body_type[j] != BodyType::Static && bodies.bullet[j] {
                continue;
            }
            let other_xf = other.pose(&bodies.transform(j));
            if let Some(mesh) = other.shape.triangles() {
                // A mesh or height field: each triangle near the swept box.
                let mut tris = Vec::new();
                mesh.query_aabb(&local_aabb(&bounds, &other_xf), |t| tris.push(t));
                tris.sort_unstable();
                for &t in &tris {
                    let tri = mesh
                        .triangle(t)
                        .vertices
                        .map(|v| other_xf.transform_point(v));
                    if slides_along(&tri, start.p, end.p, core) {
                        continue;
                    }
                    for id in &bodies.shapes[i] {
                        let d = &shapes.data[id.index as usize];
                        let own = if d.offset {
                            sweep.carrying(d.relative)
                        } else {
                            sweep
                        };
                        let toi =
                            time_of_impact_triangle(&d.shape, &own, tri, target, tolerance, t_min);
                        if toi.state == ToiState::Hit && toi.t < t_min {
                            t_min = toi.t;
                            hit = true;
                        }
                    }
                }
                continue;
            }
            let other_sweep = Sweep::fixed(&other_xf);
            for id in &bodies.shapes[i] {
                let d = &shapes.data[id.index as usize];
                let shape: &Shape = &d.shape;
                let own = if d.offset {
                    sweep.carrying(d.relative)
                } else {
                    sweep
                };
                let toi = time_of_impact(
                    shape,
                    &own,
                    &other.shape,
                    &other_sweep,
                    target,
                    tolerance,
                    t_min,
                );
                if toi.state == ToiState::Hit && toi.t < t_min {
                    t_min = toi.t;
                    hit = true;
                }
            }
        }
        hit.then_some(t_min)
    }
}
