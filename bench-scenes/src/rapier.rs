//! The rapier3d builder and runner: the peer engine of SCENES.md, measured the way
//! [`run_scene`](crate::run_scene) measures impetus.
//!
//! The world is built from the same [`BodySpec`] list as the impetus world
//! ([`Scene::recipe`]), so the two cannot drift apart. Step settings follow SCENES.md
//! (see [`integration_parameters`]); sleeping is off on every body; the step runs on a
//! dedicated rayon pool of the requested size (`PhysicsWorld::configure_thread_pool`), not
//! on the global pool.

use crate::measure::{step_stats, warmup_steps, RunResult, Stability};
use crate::{BodySpec, Params, Scene, ShapeSpec, DT};
use rapier3d::dynamics::FrictionModel;
use rapier3d::prelude::*;
use std::time::Instant;

/// The engine name and version written to results, e.g. `rapier3d 0.36.1` (with
/// ` simd8` appended when built with the `rapier-simd8` feature).
pub fn rapier_version() -> String {
    let simd8 = if cfg!(feature = "rapier-simd8") {
        " simd8"
    } else {
        ""
    };
    format!("rapier3d {}{simd8}", rapier3d::VERSION)
}

/// Rapier's step settings for the SCENES.md common settings.
///
/// Rapier 0.36 runs `num_solver_iterations` soft-step substeps, each with one biased PGS
/// iteration and one unbiased (relax) iteration: the same scheme as impetus's 4 substeps.
/// Every value set here equals rapier 0.36.1's default; they are spelled out so that a
/// change of rapier's defaults does not silently change the benchmark.
pub fn integration_parameters() -> IntegrationParameters {
    IntegrationParameters {
        dt: DT,
        num_solver_iterations: 4,
        num_internal_pgs_iterations: 1,
        num_internal_stabilization_iterations: 1,
        // Contact hertz 30, damping ratio 10 (SCENES.md).
        contact_softness: SpringCoefficients::new(30.0, 10.0),
        // Contacts with a fixed body: rapier's default, twice the hertz (as impetus and
        // Box2D v3 do; impetus also halves the damping ratio there).
        static_contact_softness: SpringCoefficients::new(60.0, 10.0),
        // Max push-out speed 3 m/s, linear slop 0.005 m, speculative distance 0.02 m.
        normalized_max_corrective_velocity: 3.0,
        normalized_allowed_linear_error: 0.005,
        normalized_prediction_distance: 0.02,
        length_unit: 1.0,
        warmstart_coefficient: 1.0,
        // Rapier's defaults, kept: one friction row per manifold plus a twist row (impetus
        // has a friction row per point), pairs that barely moved reuse their contacts, CCD
        // of fast bodies against fixed colliders on.
        friction_model: FrictionModel::Simplified,
        contact_recycling: true,
        max_ccd_substeps: 1,
        ..IntegrationParameters::default()
    }
}

/// A rapier world built from a scene recipe, with the body handles in recipe order.
pub struct RapierScene {
    /// The world.
    pub world: PhysicsWorld,
    /// One handle per recipe body, in recipe order.
    pub bodies: Vec<RigidBodyHandle>,
}

fn vector(v: impetus::Vec3) -> Vector {
    Vector::new(v.x, v.y, v.z)
}

/// Builds a recipe into a new rapier world with `threads` workers (0 = rayon's default,
/// all cores) and the step settings of [`integration_parameters`].
pub fn build_rapier(recipe: &[BodySpec], threads: usize) -> Result<RapierScene, String> {
    let mut world = PhysicsWorld::new();
    world.gravity = Vector::new(0.0, -10.0, 0.0);
    world.integration_parameters = integration_parameters();
    world
        .configure_thread_pool(threads)
        .map_err(|e| format!("rapier thread pool: {e}"))?;
    let mut bodies = Vec::with_capacity(recipe.len());
    for b in recipe {
        let q = b.rotation;
        let pose = Pose::from_parts(vector(b.position), Rotation::from_xyzw(q.x, q.y, q.z, q.w));
        let body = if b.dynamic {
            RigidBodyBuilder::dynamic().can_sleep(false)
        } else {
            RigidBodyBuilder::fixed()
        }
        .pose(pose);
        let collider = match b.shape {
            ShapeSpec::Cuboid(h) => ColliderBuilder::cuboid(h.x, h.y, h.z),
            ShapeSpec::Ball(r) => ColliderBuilder::ball(r),
        }
        .density(if b.dynamic { b.density } else { 0.0 })
        .friction(b.friction)
        .friction_combine_rule(CoefficientCombineRule::GeometricMean)
        .restitution(b.restitution);
        let (handle, _) = world.insert(body, collider);
        bodies.push(handle);
    }
    Ok(RapierScene { world, bodies })
}

impl RapierScene {
    /// Stability figures of the dynamic bodies against their start positions.
    pub fn stability(&self, start: &[(RigidBodyHandle, Vector)]) -> Stability {
        let w = &self.world;
        let mut s = Stability {
            min_y: f32::INFINITY,
            ..Default::default()
        };
        for &(h, p0) in start {
            let rb = &w.bodies[h];
            s.max_displacement = s.max_displacement.max((rb.translation() - p0).length());
            s.max_speed = s.max_speed.max(rb.linvel().length());
            for &c in rb.colliders() {
                s.min_y = s.min_y.min(w.colliders[c].compute_aabb().mins.y);
            }
        }
        for pair in w.narrow_phase.contact_pairs() {
            for m in pair.manifolds() {
                for p in &m.points {
                    s.max_penetration = s.max_penetration.max(-p.dist);
                }
            }
        }
        s
    }

    /// Contact manifolds with at least one solver contact (touching or speculative, as
    /// impetus counts them) and their contact points.
    pub fn contacts(&self) -> (usize, usize) {
        let (mut manifolds, mut points) = (0, 0);
        for pair in self.world.narrow_phase.contact_pairs() {
            for m in pair.solver_manifolds() {
                let n = m.data.solver_contacts.len();
                if n > 0 {
                    manifolds += 1;
                    points += n;
                }
            }
        }
        (manifolds, points)
    }

    /// FNV-1a over the bit patterns of every body's index, position, linear velocity,
    /// angular velocity and rotation (x, y, z, w), in recipe order: the same layout as
    /// impetus's `World::state_hash`.
    pub fn state_hash(&self) -> u64 {
        let mut h = impetus::math::StateHasher::default();
        for (i, &handle) in self.bodies.iter().enumerate() {
            let rb = &self.world.bodies[handle];
            let q = rb.rotation();
            h.mix_body(
                i as u32,
                rb.translation().to_array(),
                rb.linvel().to_array(),
                rb.angvel().to_array(),
                [q.x, q.y, q.z, q.w],
            );
        }
        h.finish()
    }

    /// The stages of the last step from rapier's counters, as (name, ms) in step order.
    /// The stages do not overlap; they add up to the step less its bookkeeping.
    pub fn stages(&self) -> [(&'static str, f64); 8] {
        let c = &self.world.physics_pipeline.counters;
        let ms = |t: &rapier3d::counters::Timer| t.time_ms();
        let solver = ms(&c.stages.solver_time);
        let assembly = ms(&c.solver.velocity_assembly_time);
        [
            ("user_changes", ms(&c.stages.user_changes)),
            (
                "broadphase",
                ms(&c.cd.broad_phase_time) + ms(&c.cd.final_broad_phase_time),
            ),
            ("narrowphase", ms(&c.cd.narrow_phase_time)),
            (
                "island",
                ms(&c.stages.island_construction_time)
                    + ms(&c.stages.island_constraints_collection_time),
            ),
            ("solver_prepare", assembly),
            ("solver_iterate", (solver - assembly).max(0.0)),
            ("update", ms(&c.stages.update_time)),
            ("ccd", ms(&c.ccd.toi_computation_time)),
        ]
    }
}

/// Builds `scene` in rapier3d and steps it `steps` times on a dedicated pool of `threads`
/// workers, calling `progress(step, last_ms)` after every step. Measured as
/// [`run_scene`](crate::run_scene) measures impetus: same warm-up, same statistics.
pub fn run_rapier(
    scene: &Scene,
    threads: usize,
    steps: usize,
    mut progress: impl FnMut(usize, f64),
) -> Result<RunResult, String> {
    let recipe = (scene.recipe)(&Params::default());
    let mut rs = build_rapier(&recipe, threads)?;
    rs.world.physics_pipeline.counters.enable();
    let start: Vec<(RigidBodyHandle, Vector)> = recipe
        .iter()
        .zip(&rs.bodies)
        .filter(|(b, _)| b.dynamic)
        .map(|(_, &h)| (h, rs.world.bodies[h].translation()))
        .collect();
    let warmup = warmup_steps(steps);
    let mut times = Vec::with_capacity(steps);
    let mut stages: Vec<Vec<f64>> = Vec::new();
    for step in 0..steps {
        let t = Instant::now();
        rs.world.step();
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        if !rs.world.quarantine().bodies().is_empty() {
            return Err(format!(
                "rapier disabled {} bodies of {} that went non-finite at step {}",
                rs.world.quarantine().bodies().len(),
                scene.name,
                step + 1
            ));
        }
        if step >= warmup {
            times.push(ms);
            let split = rs.stages();
            stages.resize(split.len(), Vec::new());
            for (k, (_, v)) in split.iter().enumerate() {
                stages[k].push(*v);
            }
        }
        progress(step + 1, ms);
    }
    let names = rs.stages().map(|(n, _)| n);
    let (median, mean, p95) = step_stats(&times);
    let (contacts, points) = rs.contacts();
    Ok(RunResult {
        engine: rapier_version(),
        scene: scene.name.to_string(),
        threads: rs.world.num_threads().unwrap_or(threads),
        steps,
        bodies: start.len(),
        contacts,
        points,
        median,
        mean,
        p95,
        stages: names
            .iter()
            .zip(stages.iter_mut())
            .map(|(n, v)| (*n, crate::measure::median(v)))
            .collect(),
        stability: rs.stability(&start),
        state_hash: rs.state_hash(),
    })
}
