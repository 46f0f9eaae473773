//! What the peer engines without a Rust API of their own share: a peer world steps and
//! reports its bodies' poses and velocities in recipe order, and [`run_peer`] times it the
//! way [`run_scene`](crate::run_scene) times impetus and computes every stability figure
//! from those poses ([`pose_stability`]).
//!
//! The C and C++ peers (Box3D, PhysX, Jolt) report their contacts in three different ways,
//! some only through callbacks that would cost time inside the step. So their contact
//! figures are measured the same way for all three, after the last step: each pair of
//! shapes whose bounding boxes overlap (pairs joined by a recipe joint excepted, as every
//! engine here filters them) is collided by impetus's narrow phase
//! ([`impetus::collision::collide`], and [`impetus::collision::collide_triangle`] for each
//! triangle of a height field) at the peer's poses with the common speculative distance,
//! 0.02 m (docs/SCENES.md). The manifolds with a point are the contacts, their points the
//! points, the deepest negative separation the penetration. A joint's error is measured
//! between the recipe anchors carried by the peer's poses (see [`Stability`]).

use crate::measure::{
    anchor_error, column_compression_of, median, step_stats, stretch_scale, tail_median,
    warmup_steps, RunResult, Stability,
};
use crate::{JointSpecKind, Recipe, ShapeSpec};
use impetus::collision::{collide, collide_triangle, Tolerance};
use impetus::{Aabb, HeightField, Quat, Shape, Transform, Vec3};
use std::sync::Arc;
use std::time::Instant;

/// The C compiler flags the C peers were built with, as cargo passed them to their build
/// scripts (`CFLAGS`, set by .cargo/config.toml), or `cc defaults` when unset.
pub const C_FLAGS: &str = match option_env!("CFLAGS") {
    Some(flags) => flags,
    None => "cc defaults",
};

/// The C++ compiler flags the C++ peers were built with (`CXXFLAGS`), as [`C_FLAGS`].
pub const CXX_FLAGS: &str = match option_env!("CXXFLAGS") {
    Some(flags) => flags,
    None => "cc defaults",
};

/// The speculative distance within which a pair counts as a contact, m (docs/SCENES.md).
const SPECULATIVE: f32 = 0.02;

/// The manifolds' tolerances: [`SPECULATIVE`] and the common slop of [`crate::world_def`].
fn tolerance() -> Tolerance {
    Tolerance {
        speculative: SPECULATIVE,
        linear_slop: crate::world_def(1).linear_slop,
    }
}

/// One body's state as a peer reports it: the pose of its origin (the recipe's body
/// position) and its velocities.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BodyState {
    /// Position of the body's origin, m.
    pub position: Vec3,
    /// Orientation.
    pub rotation: Quat,
    /// Linear velocity, m/s.
    pub linear_velocity: Vec3,
    /// Angular velocity, rad/s.
    pub angular_velocity: Vec3,
}

/// A peer engine's world, built from a recipe.
pub trait PeerWorld {
    /// The engine's name and version as written to results, e.g. `Box3D 3.2.0`.
    fn engine(&self) -> String;
    /// The threads its step runs on.
    fn threads(&self) -> usize;
    /// Advances the world by one step of [`DT`](crate::DT).
    fn step(&mut self) -> Result<(), String>;
    /// Every recipe body's state, in recipe order.
    fn states(&self) -> Vec<BodyState>;
    /// The stages of the last step as (name, ms) in step order, for the engines that
    /// report a split (empty otherwise).
    fn stages(&self) -> Vec<(&'static str, f64)>;
}

/// The shape of a recipe body in impetus's terms, for the pose-based figures, and the
/// offset of its frame from the recipe's body position (a height field's origin is its
/// corner, the recipe gives its centre).
fn impetus_shape(shape: &ShapeSpec) -> (Shape, Vec3) {
    match *shape {
        ShapeSpec::Cuboid(half_extents) => (Shape::Box { half_extents }, Vec3::ZERO),
        ShapeSpec::Ball(radius) => (Shape::Sphere { radius }, Vec3::ZERO),
        ShapeSpec::Capsule {
            half_height,
            radius,
        } => (
            Shape::Capsule {
                half_height,
                radius,
            },
            Vec3::ZERO,
        ),
        ShapeSpec::Terrain(t) => {
            let scale = Vec3::new(t.spacing, 1.0, t.spacing);
            let (sx, sz) = t.size();
            let field = HeightField::new(t.rows, t.cols, t.heights(), scale)
                .expect("the recipe's terrain is a valid height field");
            (
                Shape::HeightField {
                    field: Arc::new(field),
                },
                Vec3::new(-0.5 * sx, 0.0, -0.5 * sz),
            )
        }
    }
}

/// The figures [`pose_stability`] measures.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PoseFigures {
    /// The stability figures.
    pub stability: Stability,
    /// Manifolds with at least one point within the speculative distance.
    pub contacts: usize,
    /// Their points.
    pub points: usize,
}

/// The stability figures of a peer's world whose bodies are at `end` (recipe order), built
/// from `recipe` with its bodies at `start` (see the module doc): displacement and speed
/// of the dynamic bodies, their lowest point, the deepest overlap and the contact count
/// by impetus's narrow phase, each joint's error and stretch between the recipe anchors,
/// and the column's compression.
pub fn pose_stability(recipe: &Recipe, start: &[BodyState], end: &[BodyState]) -> PoseFigures {
    let shapes: Vec<(Shape, Vec3)> = recipe
        .bodies
        .iter()
        .map(|b| impetus_shape(&b.shape))
        .collect();
    // Static bodies stay where the recipe puts them (an engine may report a height field at
    // its corner, its own origin, rather than at the recipe's centre).
    let xf = |i: usize| {
        let b = &recipe.bodies[i];
        let (p, q) = if b.dynamic {
            (end[i].position, end[i].rotation)
        } else {
            (b.position, b.rotation)
        };
        Transform::new(p + q * shapes[i].1, q)
    };
    let mut s = Stability {
        min_y: f32::INFINITY,
        ..Default::default()
    };
    for (i, b) in recipe.bodies.iter().enumerate() {
        if !b.dynamic {
            continue;
        }
        s.max_displacement = s
            .max_displacement
            .max((end[i].position - start[i].position).length());
        s.max_drift = s
            .max_drift
            .max(crate::measure::drift(end[i].position, start[i].position));
        s.max_speed = s.max_speed.max(end[i].linear_velocity.length());
        s.min_y = s.min_y.min(shapes[i].0.aabb(&xf(i)).min.y);
    }

    // Broad phase: sweep and prune along x over the bounding boxes grown by the
    // speculative distance.
    let boxes: Vec<Aabb> = (0..end.len())
        .map(|i| shapes[i].0.aabb(&xf(i)).expanded(SPECULATIVE))
        .collect();
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    order.sort_by(|&a, &b| boxes[a].min.x.total_cmp(&boxes[b].min.x));
    let jointed: std::collections::HashSet<(usize, usize)> = recipe
        .joints
        .iter()
        .map(|j| (j.a.min(j.b), j.a.max(j.b)))
        .collect();
    let (mut contacts, mut points) = (0, 0);
    let mut deepest = 0.0f32;
    let mut count = |m: &impetus::Manifold, contacts: &mut usize, points: &mut usize| {
        if m.count > 0 {
            *contacts += 1;
            *points += m.count;
            for p in m.points() {
                deepest = deepest.max(-p.separation);
            }
        }
    };
    let mut active: Vec<usize> = Vec::new();
    for &i in &order {
        active.retain(|&k| boxes[k].max.x >= boxes[i].min.x);
        for &k in &active {
            let (a, b) = (i.min(k), i.max(k));
            if (!recipe.bodies[a].dynamic && !recipe.bodies[b].dynamic)
                || !boxes[a].overlaps(&boxes[b])
                || jointed.contains(&(a, b))
            {
                continue;
            }
            let (sa, sb) = (&shapes[a].0, &shapes[b].0);
            let (xa, xb) = (xf(a), xf(b));
            match (sa.triangles(), sb.triangles()) {
                (None, None) => {
                    let m = if sa.kind() <= sb.kind() {
                        collide(sa, &xa, sb, &xb, tolerance())
                    } else {
                        collide(sb, &xb, sa, &xa, tolerance())
                    };
                    count(&m, &mut contacts, &mut points);
                }
                (Some(tris), None) | (None, Some(tris)) => {
                    let (convex, xc, xt, bx) = if sa.triangles().is_some() {
                        (sb, xb, xa, boxes[b])
                    } else {
                        (sa, xa, xb, boxes[a])
                    };
                    // The convex shape's box in the terrain's frame (a translation).
                    let local = Aabb {
                        min: bx.min - xt.p,
                        max: bx.max - xt.p,
                    };
                    tris.query_aabb(&local, |t| {
                        let m = collide_triangle(convex, &xc, &tris.triangle(t), &xt, tolerance());
                        count(&m, &mut contacts, &mut points);
                    });
                }
                (Some(_), Some(_)) => {}
            }
        }
        active.push(i);
    }
    s.max_penetration = deepest;

    let (mut worst, mut worst_ratio) = (0.0f32, 0.0f32);
    for j in &recipe.joints {
        let (a0, b0) = (&start[j.a], &start[j.b]);
        let local_a = a0.rotation.inverse() * (j.anchor - a0.position);
        let local_b = b0.rotation.inverse() * (j.anchor_b() - b0.position);
        let (a1, b1) = (&end[j.a], &end[j.b]);
        let rod = match j.kind {
            JointSpecKind::Distance { length } => Some((length, length)),
            _ => None,
        };
        let error = anchor_error(
            a1.position + a1.rotation * local_a,
            b1.position + b1.rotation * local_b,
            rod,
        );
        worst = worst.max(error);
        let scale = stretch_scale(local_a, local_b, rod);
        if scale > 0.0 {
            worst_ratio = worst_ratio.max(error / scale);
        }
    }
    s.max_joint_error = worst;
    s.max_joint_stretch_ratio = worst_ratio;
    s.column_compression = column_compression_of(recipe.column.iter().map(|&i| {
        let aabb = shapes[i].0.aabb(&Transform::IDENTITY);
        (end[i].position.y, aabb.min.y, aabb.max.y)
    }));
    PoseFigures {
        stability: s,
        contacts,
        points,
    }
}

/// FNV-1a over every body's index, position, velocities and rotation in recipe order: the
/// layout of impetus's `World::state_hash`.
pub fn state_hash(states: &[BodyState]) -> u64 {
    let mut h = impetus::StateHasher::default();
    for (i, s) in states.iter().enumerate() {
        let q = s.rotation;
        h.mix_body(
            i as u32,
            s.position.to_array(),
            s.linear_velocity.to_array(),
            s.angular_velocity.to_array(),
            [q.x, q.y, q.z, q.w],
        );
    }
    h.finish()
}

/// Steps a peer world built from `recipe` (scene `scene`) `steps` times, calling
/// `progress(step, last_ms)` after every step; measured as
/// [`run_scene`](crate::run_scene) measures impetus (same warm-up, same statistics), the
/// figures from the poses ([`pose_stability`]). A body that leaves the finite numbers ends
/// the run with an error.
pub fn run_peer(
    scene: &str,
    recipe: &Recipe,
    world: &mut dyn PeerWorld,
    steps: usize,
    mut progress: impl FnMut(usize, f64),
) -> Result<RunResult, String> {
    let start = world.states();
    let warmup = warmup_steps(steps);
    let mut stages: Vec<Vec<f64>> = Vec::new();
    let mut step_ms = Vec::with_capacity(steps);
    let mut names: Vec<&'static str> = Vec::new();
    for step in 0..steps {
        let t = Instant::now();
        world.step()?;
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        step_ms.push(ms);
        if step >= warmup {
            let split = world.stages();
            stages.resize(split.len(), Vec::new());
            names = split.iter().map(|(n, _)| *n).collect();
            for (k, (_, v)) in split.iter().enumerate() {
                stages[k].push(*v);
            }
        }
        progress(step + 1, ms);
    }
    let end = world.states();
    if let Some(i) = end
        .iter()
        .position(|s| !(s.position.is_finite() && s.linear_velocity.is_finite()))
    {
        return Err(format!(
            "{}: body {i} of {scene} is not finite after {steps} steps",
            world.engine()
        ));
    }
    let (median_ms, mean, p95) = step_stats(&step_ms[warmup..]);
    let figures = pose_stability(recipe, &start, &end);
    Ok(RunResult {
        engine: world.engine(),
        scene: scene.to_string(),
        threads: world.threads(),
        steps,
        bodies: recipe.bodies.iter().filter(|b| b.dynamic).count(),
        contacts: figures.contacts,
        points: figures.points,
        joints: recipe.joints.len(),
        particles: [0; 3],
        median: median_ms,
        mean,
        p95,
        tail: tail_median(&step_ms[warmup..]),
        stages: names
            .iter()
            .zip(stages.iter_mut())
            .map(|(n, v)| (*n, median(v)))
            .collect(),
        step_ms,
        stability: figures.stability,
        state_hash: state_hash(&end),
    })
}

/// Why a peer adapter skips a scene with particles.
pub const PARTICLES_UNSUPPORTED: &str =
    "particles, cloth and soft bodies (the peer adapters build rigid bodies only)";

/// The recipe's joints and shapes that a peer cannot build, as the message that skips the
/// scene for it: `None` when it can build them all. `has` answers per joint kind and shape.
pub fn unsupported(
    engine: &str,
    recipe: &Recipe,
    joint: impl Fn(&JointSpecKind) -> Option<&'static str>,
    shape: impl Fn(&ShapeSpec) -> Option<&'static str>,
) -> Option<String> {
    let mut missing: Vec<&'static str> = recipe
        .joints
        .iter()
        .filter_map(|j| joint(&j.kind))
        .chain(recipe.bodies.iter().filter_map(|b| shape(&b.shape)))
        .chain((!recipe.particles.is_empty()).then_some(PARTICLES_UNSUPPORTED))
        .collect();
    missing.sort_unstable();
    missing.dedup();
    (!missing.is_empty()).then(|| format!("{engine} cannot build {}", missing.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{find, Params};

    /// The pose-based figures of impetus's own world agree with the figures measured from
    /// its contacts and joints.
    #[test]
    fn pose_figures_match_impetus_figures() {
        for name in ["pyramid", "chain"] {
            let scene = find(name).unwrap();
            let recipe = (scene.recipe)(&Params::default());
            let mut world = impetus::World::new(crate::world_def(1)).unwrap();
            let ids = crate::build_impetus(&mut world, &recipe.bodies).unwrap();
            crate::build_joints_impetus(&mut world, &ids, &recipe.joints).unwrap();
            let states = |w: &impetus::World| -> Vec<BodyState> {
                ids.iter()
                    .map(|&id| {
                        let xf = w.body_transform(id).unwrap();
                        BodyState {
                            position: xf.p,
                            rotation: xf.q,
                            linear_velocity: w.body_linear_velocity(id).unwrap(),
                            angular_velocity: w.body_angular_velocity(id).unwrap(),
                        }
                    })
                    .collect()
            };
            let start = states(&world);
            let own_start = crate::measure::dynamic_positions(&world);
            for _ in 0..30 {
                world.step(crate::DT).unwrap();
            }
            let end = states(&world);
            let figures = pose_stability(&recipe, &start, &end);
            let own = crate::measure::stability(&world, &own_start);
            let s = figures.stability;
            assert!(
                (s.max_displacement - own.max_displacement).abs() < 1e-5,
                "{name}"
            );
            assert!((s.max_speed - own.max_speed).abs() < 1e-5, "{name}");
            assert!((s.min_y - own.min_y).abs() < 1e-5, "{name}");
            assert!(
                (s.max_joint_error - own.max_joint_error).abs() < 1e-5,
                "{name}"
            );
            // Contacts at the end poses against contacts found before the last step's
            // position update: the same order of magnitude.
            assert!(
                (s.max_penetration - own.max_penetration).abs() < 0.01,
                "{name}: {} against {}",
                s.max_penetration,
                own.max_penetration
            );
            assert_eq!(state_hash(&end), world.state_hash(), "{name}");
        }
    }
}
