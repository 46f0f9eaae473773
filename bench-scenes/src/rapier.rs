//! The rapier3d builder and runner: the peer engine of docs/SCENES.md, measured the way
//! [`run_scene`](crate::run_scene) measures impetus.
//!
//! The world is built from the same [`Recipe`] as the impetus world ([`Scene::recipe`]):
//! bodies (with their initial velocities; capsules with `ColliderBuilder::capsule_y`), and
//! joints as impulse joints (ball: spherical, hinge: revolute with its limits and velocity
//! motor, cone-twist: spherical with angular limits, fixed: fixed, distance: see below)
//! with contacts between the jointed bodies off, as impetus's default, so the two cannot
//! drift apart. Step settings follow docs/SCENES.md (see [`integration_parameters`]); sleeping
//! is off on every body; the step runs on a dedicated rayon pool of the requested size
//! (`PhysicsWorld::configure_thread_pool`), not on the global pool.
//!
//! Rapier 0.36 has no rigid distance joint (rod). The closest equivalent is the joint its
//! `RopeJointBuilder` builds: a generic joint with no locked axis whose linear axes are
//! coupled, so that its `LinX` limit bounds the distance between the anchors. A recipe rod
//! of length L is that joint with the limit `[L, L]`. Rapier's solver enforces only the
//! upper bound of a coupled limit, so the rod acts as `RopeJointBuilder::new(L)`: rigid
//! under tension (as the rods of the `heavy_chain` bridge always are), slack under
//! compression. The stability figures read the limit back and measure the rod as impetus
//! does, |distance − L|. A spring joint (`SpringJointBuilder`) would be a soft rod, so it
//! was not chosen.

use crate::measure::{
    anchor_error, column_compression_of, step_stats, stretch_scale, tail_median, warmup_steps,
    RunResult, Stability,
};
use crate::{JointSpec, JointSpecKind, Params, Recipe, Scene, ShapeSpec, DT};
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
    let serial = if cfg!(feature = "rapier-parallel") {
        ""
    } else {
        " serial"
    };
    format!("rapier3d {}{simd8}{serial}", rapier3d::VERSION)
}

/// Rapier's step settings for the docs/SCENES.md common settings.
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
        // Contact hertz 30, damping ratio 10 (docs/SCENES.md).
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
        // Joints: rapier's default, not warm-started (the joints' softness is rapier's
        // default too, 10⁶ Hz: rigid).
        warmstart_joints: false,
        ..IntegrationParameters::default()
    }
}

/// A rapier world built from a scene recipe, with the body handles in recipe order.
pub struct RapierScene {
    /// The world.
    pub world: PhysicsWorld,
    /// One handle per recipe body, in recipe order.
    pub bodies: Vec<RigidBodyHandle>,
    /// One handle per recipe joint, in recipe order.
    pub joints: Vec<ImpulseJointHandle>,
}

fn vector(v: impetus::Vec3) -> Vector {
    Vector::new(v.x, v.y, v.z)
}

fn rotation(q: impetus::Quat) -> Rotation {
    Rotation::from_xyzw(q.x, q.y, q.z, q.w)
}

/// How hard a recipe hinge motor holds its speed in rapier: the `factor` (damping) of
/// `motor_velocity` with rapier's default acceleration-based model. Its relative
/// compliance is 1 / (dt · factor): 0.6 % at dt = 1/60 s, 2.4 % at a 1/240 s substep, a
/// near-rigid velocity row bounded by the max torque, as impetus's motor row is (the
/// tumbler turns 2.99 of the motor's 3 rad in 6 s in both engines).
const MOTOR_FACTOR: f32 = 1.0e4;

/// A recipe joint as a rapier joint between bodies at poses `pose_a` and `pose_b`: both
/// local frames are the world frame at the anchor with its x axis (rapier's joint axis)
/// along the recipe axis, so the frames coincide (hinge angle 0) as built; B's frame is at
/// B's anchor when the recipe gives one (a distance joint's other end).
fn rapier_joint(j: &JointSpec, pose_a: &Pose, pose_b: &Pose) -> GenericJoint {
    let axis = j.axis.try_normalize().unwrap_or(impetus::Vec3::Z);
    let turn = rotation(impetus::Quat::from_rotation_arc(impetus::Vec3::X, axis));
    let world = Pose::from_parts(vector(j.anchor), turn);
    let world_b = Pose::from_parts(vector(j.anchor_b()), turn);
    let mut joint = match j.kind {
        JointSpecKind::Ball => SphericalJointBuilder::new().build().data,
        JointSpecKind::Hinge { limits, motor } => {
            let mut b = RevoluteJointBuilder::new(Vector::X);
            if let Some(l) = limits {
                b = b.limits(l);
            }
            if let Some(m) = motor {
                b = b
                    .motor_velocity(m.speed, MOTOR_FACTOR)
                    .motor_max_force(m.max_force);
            }
            b.build().data
        }
        // Twist about the joint axis (x), swing about the two perpendicular axes.
        JointSpecKind::ConeTwist { cone_angle, twist } => {
            SphericalJointBuilder::new()
                .limits(JointAxis::AngX, twist)
                .limits(JointAxis::AngY, [-cone_angle, cone_angle])
                .limits(JointAxis::AngZ, [-cone_angle, cone_angle])
                .build()
                .data
        }
        JointSpecKind::Fixed => FixedJointBuilder::new().build().data,
        // RopeJointBuilder's joint with the rod's length as both bounds (module doc).
        JointSpecKind::Distance { length } => GenericJointBuilder::new(JointAxesMask::empty())
            .coupled_axes(JointAxesMask::LIN_AXES)
            .limits(JointAxis::LinX, [length, length])
            .build(),
    };
    joint
        .set_local_frame1(pose_a.inv_mul(&world))
        .set_local_frame2(pose_b.inv_mul(&world_b))
        .set_contacts_enabled(false);
    joint
}

/// The terrain as parry's height field: centred on its origin (as the recipe places it),
/// rows along z, its own internal-edge fix on, every cell split along the same diagonal as
/// impetus's (parry's "zigzag" subdivision, from sample (r, c) to (r + 1, c + 1)).
fn terrain(t: &crate::scenes::Terrain) -> rapier3d::parry::shape::HeightField {
    use rapier3d::parry::shape::{HeightField, HeightFieldCellStatus, HeightFieldFlags};
    use rapier3d::parry::utils::Array2;
    let heights = t.heights();
    let mut zx = Array2::repeat(t.rows, t.cols, 0.0);
    for r in 0..t.rows {
        for c in 0..t.cols {
            zx[(r, c)] = heights[r * t.cols + c];
        }
    }
    let (sx, sz) = t.size();
    let mut field = HeightField::with_flags(
        zx,
        Vector::new(sx, 1.0, sz),
        HeightFieldFlags::FIX_INTERNAL_EDGES,
    );
    for r in 0..t.rows - 1 {
        for c in 0..t.cols - 1 {
            field.set_cell_status(r, c, HeightFieldCellStatus::ZIGZAG_SUBDIVISION);
        }
    }
    field
}

/// Builds a recipe into a new rapier world with `threads` workers (0 = rayon's default,
/// all cores) and the step settings of [`integration_parameters`]. Without the
/// `rapier-parallel` feature rapier steps on the calling thread alone, and a request for
/// more than one thread is refused.
pub fn build_rapier(recipe: &Recipe, threads: usize) -> Result<RapierScene, String> {
    let mut world = PhysicsWorld::new();
    world.gravity = Vector::new(0.0, -10.0, 0.0);
    world.integration_parameters = integration_parameters();
    #[cfg(feature = "rapier-parallel")]
    world
        .configure_thread_pool(threads)
        .map_err(|e| format!("rapier thread pool: {e}"))?;
    #[cfg(not(feature = "rapier-parallel"))]
    if threads != 1 {
        return Err(format!(
            "rapier3d built without `parallel` steps on one thread, not {threads} (build the \
             bench with the `rapier-parallel` feature)"
        ));
    }
    let mut bodies = Vec::with_capacity(recipe.bodies.len());
    for b in &recipe.bodies {
        let pose = Pose::from_parts(vector(b.position), rotation(b.rotation));
        let body = if b.dynamic {
            RigidBodyBuilder::dynamic()
                .can_sleep(false)
                .linvel(vector(b.linear_velocity))
        } else {
            RigidBodyBuilder::fixed()
        }
        .pose(pose);
        let collider = match b.shape {
            ShapeSpec::Cuboid(h) => ColliderBuilder::cuboid(h.x, h.y, h.z),
            ShapeSpec::Ball(r) => ColliderBuilder::ball(r),
            ShapeSpec::Capsule {
                half_height,
                radius,
            } => ColliderBuilder::capsule_y(half_height, radius),
            ShapeSpec::Terrain(t) => ColliderBuilder::new(SharedShape::new(terrain(&t))),
        }
        .density(if b.dynamic { b.density } else { 0.0 })
        .friction(b.friction)
        .friction_combine_rule(CoefficientCombineRule::GeometricMean)
        .restitution(b.restitution);
        let (handle, _) = world.insert(body, collider);
        bodies.push(handle);
    }
    let mut joints = Vec::with_capacity(recipe.joints.len());
    for j in &recipe.joints {
        let (a, b) = (bodies[j.a], bodies[j.b]);
        let joint = rapier_joint(j, world.bodies[a].position(), world.bodies[b].position());
        joints.push(world.insert_impulse_joint(a, b, joint));
    }
    Ok(RapierScene {
        world,
        bodies,
        joints,
    })
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
            let p = rb.translation();
            s.max_drift = s.max_drift.max(crate::measure::drift(
                impetus::Vec3::new(p.x, p.y, p.z),
                impetus::Vec3::new(p0.x, p0.y, p0.z),
            ));
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
        (s.max_joint_error, s.max_joint_stretch_ratio) = self.joint_stretch();
        s
    }

    /// The largest error of any joint, in m (0 without joints), as
    /// [`Stability::max_joint_error`] defines it: the distance between the two world
    /// anchor points (the local frames' origins), or for a rod (linear axes coupled under
    /// a `LinX` limit `[min, max]`) how far that distance is outside `[min, max]`.
    pub fn max_joint_error(&self) -> f32 {
        self.joint_stretch().0
    }

    /// The largest joint error, m, and the largest joint stretch ratio, as
    /// [`Stability::max_joint_error`] and [`Stability::max_joint_stretch_ratio`] define
    /// them (0 and 0 without joints).
    pub fn joint_stretch(&self) -> (f32, f32) {
        let w = &self.world;
        let (mut worst, mut worst_ratio) = (0.0f32, 0.0f32);
        let v = |v: Vector| impetus::Vec3::from_array(v.to_array());
        for (_, j) in w.impulse_joints.iter() {
            let (la, lb) = (j.data.local_anchor1(), j.data.local_anchor2());
            let pa = w.bodies[j.body1()].position() * la;
            let pb = w.bodies[j.body2()].position() * lb;
            let rod = if j.data.coupled_axes.contains(JointAxesMask::LIN_AXES) {
                j.data.limits(JointAxis::LinX).map(|l| (l.min, l.max))
            } else {
                None
            };
            let error = anchor_error(v(pa), v(pb), rod);
            worst = worst.max(error);
            let scale = stretch_scale(v(la), v(lb), rod);
            if scale > 0.0 {
                worst_ratio = worst_ratio.max(error / scale);
            }
        }
        (worst, worst_ratio)
    }

    /// The compression of the column of recipe bodies `column` (bottom to top), in m, as
    /// [`Stability::column_compression`] defines it (the colliders sit at their bodies'
    /// origins); `None` for an empty column.
    pub fn column_compression(&self, column: &[usize]) -> Option<f32> {
        let w = &self.world;
        column_compression_of(column.iter().map(|&i| {
            let rb = &w.bodies[self.bodies[i]];
            let (mut low, mut high) = (f32::INFINITY, f32::NEG_INFINITY);
            for &c in rb.colliders() {
                let aabb = w.colliders[c].shape().compute_local_aabb();
                (low, high) = (low.min(aabb.mins.y), high.max(aabb.maxs.y));
            }
            (rb.translation().y, low, high)
        }))
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
        let mut h = impetus::StateHasher::default();
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

/// The workers `world` steps on: its dedicated pool's size, or `requested` without one.
fn rapier_threads(world: &PhysicsWorld, requested: usize) -> usize {
    #[cfg(feature = "rapier-parallel")]
    return world.num_threads().unwrap_or(requested);
    #[cfg(not(feature = "rapier-parallel"))]
    {
        let _ = (world, requested);
        1
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
        .bodies
        .iter()
        .zip(&rs.bodies)
        .filter(|(b, _)| b.dynamic)
        .map(|(_, &h)| (h, rs.world.bodies[h].translation()))
        .collect();
    let warmup = warmup_steps(steps);
    let mut stages: Vec<Vec<f64>> = Vec::new();
    let mut step_ms = Vec::with_capacity(steps);
    for step in 0..steps {
        let t = Instant::now();
        rs.world.step();
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        step_ms.push(ms);
        if !rs.world.quarantine().bodies().is_empty() {
            return Err(format!(
                "rapier disabled {} bodies of {} that went non-finite at step {}",
                rs.world.quarantine().bodies().len(),
                scene.name,
                step + 1
            ));
        }
        if step >= warmup {
            // Without `profiler` rapier's timers read zero: no stage split.
            if cfg!(feature = "rapier-parallel") {
                let split = rs.stages();
                stages.resize(split.len(), Vec::new());
                for (k, (_, v)) in split.iter().enumerate() {
                    stages[k].push(*v);
                }
            }
        }
        progress(step + 1, ms);
    }
    let names = rs.stages().map(|(n, _)| n);
    let (median, mean, p95) = step_stats(&step_ms[warmup..]);
    let tail = tail_median(&step_ms[warmup..]);
    let (contacts, points) = rs.contacts();
    Ok(RunResult {
        engine: rapier_version(),
        scene: scene.name.to_string(),
        threads: rapier_threads(&rs.world, threads),
        steps,
        bodies: start.len(),
        contacts,
        points,
        joints: rs.world.impulse_joints.len(),
        particles: [0; 3],
        median,
        mean,
        tail,
        p95,
        stages: names
            .iter()
            .zip(stages.iter_mut())
            .map(|(n, v)| (*n, crate::measure::median(v)))
            .collect(),
        step_ms,
        stability: Stability {
            column_compression: rs.column_compression(&recipe.column),
            ..rs.stability(&start)
        },
        state_hash: rs.state_hash(),
    })
}
