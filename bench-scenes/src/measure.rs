//! Running a scene and measuring it: ms/step statistics, per-stage medians, stability
//! figures and a state hash, as one [`RunResult`] that prints as a table or JSON.

use crate::{world_def, Params, Scene, DT};
use impetus::{BodyId, BodyType, Error, Vec3, World};
use serde_json::{json, Value};
use std::time::Instant;

/// How far the simulation wandered: the figures that tell a standing stack from a collapse.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stability {
    /// Largest distance of any dynamic body from where it started, in m.
    pub max_displacement: f32,
    /// Largest speed of any dynamic body at the end, in m/s.
    pub max_speed: f32,
    /// Lowest point of any dynamic shape at the end, in m (the ground's top is y = 0).
    pub min_y: f32,
    /// Deepest overlap of any contact point at the end, in m (0 when nothing overlaps).
    pub max_penetration: f32,
    /// Largest distance between the two world anchor points (the frames' origins) of any
    /// joint at the end, in m (0 without joints).
    pub max_joint_error: f32,
}

/// The outcome of one timed run.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// Engine name and version.
    pub engine: String,
    /// Scene name.
    pub scene: String,
    /// Worker threads.
    pub threads: usize,
    /// Steps run.
    pub steps: usize,
    /// Dynamic bodies.
    pub bodies: usize,
    /// Touching contact manifolds at the end.
    pub contacts: usize,
    /// Contact points at the end.
    pub points: usize,
    /// Joints at the end.
    pub joints: usize,
    /// Median ms/step over the measured steps.
    pub median: f64,
    /// Mean ms/step over the measured steps.
    pub mean: f64,
    /// 95th percentile ms/step over the measured steps.
    pub p95: f64,
    /// Median ms of each stage, in step order.
    pub stages: Vec<(&'static str, f64)>,
    /// Stability figures at the end.
    pub stability: Stability,
    /// Hash of every body's pose and velocity at the end.
    pub state_hash: u64,
}

/// The steps that count for timing: after the first 60 (or the first one for short runs).
pub fn warmup_steps(steps: usize) -> usize {
    if steps > 120 {
        60
    } else {
        1.min(steps.saturating_sub(1))
    }
}

/// The median of `v` (the upper one for an even count; 0 when empty). Sorts `v`.
pub fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median, mean and 95th percentile of step times, in the units given.
pub fn step_stats(times: &[f64]) -> (f64, f64, f64) {
    let mean = times.iter().sum::<f64>() / times.len().max(1) as f64;
    let mut sorted = times.to_vec();
    let med = median(&mut sorted);
    let p95 = sorted
        .get((sorted.len() * 95 / 100).min(sorted.len().saturating_sub(1)))
        .copied()
        .unwrap_or(0.0);
    (med, mean, p95)
}

/// Measures the world's dynamic bodies against their start positions.
pub fn stability(world: &World, start: &[(BodyId, Vec3)]) -> Stability {
    let mut s = Stability {
        min_y: f32::INFINITY,
        ..Default::default()
    };
    for &(id, p0) in start {
        let (Ok(p), Ok(v), Ok(xf)) = (
            world.body_position(id),
            world.linear_velocity(id),
            world.body_transform(id),
        ) else {
            continue;
        };
        s.max_displacement = s.max_displacement.max((p - p0).length());
        s.max_speed = s.max_speed.max(v.length());
        for &shape in world.body_shapes(id).unwrap_or(&[]) {
            if let Ok(geom) = world.shape(shape) {
                s.min_y = s.min_y.min(geom.aabb(&xf).min.y);
            }
        }
    }
    for c in world.contacts() {
        for p in c.points {
            s.max_penetration = s.max_penetration.max(-p.separation);
        }
    }
    s.max_joint_error = max_joint_error(world);
    s
}

/// The largest distance between the two world anchor points (the frames' origins) of any
/// joint of the world, in m (0 without joints).
pub fn max_joint_error(world: &World) -> f32 {
    let mut worst = 0.0f32;
    for id in world.joints() {
        let Ok(def) = world.joint_def(id) else {
            continue;
        };
        let (Ok(xa), Ok(xb)) = (
            world.body_transform(def.body_a),
            world.body_transform(def.body_b),
        ) else {
            continue;
        };
        let d = xa.transform_point(def.frame_a.p) - xb.transform_point(def.frame_b.p);
        worst = worst.max(d.length());
    }
    worst
}

/// The dynamic bodies of a world with their positions.
pub fn dynamic_positions(world: &World) -> Vec<(BodyId, Vec3)> {
    world
        .bodies()
        .filter(|&b| world.body_type(b) == Ok(BodyType::Dynamic))
        .map(|b| (b, world.body_position(b).unwrap_or_default()))
        .collect()
}

/// Builds `scene` and steps it `steps` times with `threads` workers, calling
/// `progress(step, last_ms)` after every step.
pub fn run_scene(
    scene: &Scene,
    threads: usize,
    steps: usize,
    mut progress: impl FnMut(usize, f64),
) -> Result<RunResult, Error> {
    let mut world = World::new(world_def(threads))?;
    scene.build(&mut world, &Params::default())?;
    let start = dynamic_positions(&world);
    let warmup = warmup_steps(steps);
    let mut times = Vec::with_capacity(steps);
    let mut stages: Vec<Vec<f64>> = Vec::new();
    for step in 0..steps {
        let t = Instant::now();
        world.step(DT)?;
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        if step >= warmup {
            times.push(ms);
            let profile = world.profile().stages();
            stages.resize(profile.len(), Vec::new());
            for (k, (_, v)) in profile.iter().enumerate() {
                stages[k].push(*v);
            }
        }
        progress(step + 1, ms);
    }
    let names = world.profile().stages().map(|(n, _)| n);
    let (median_ms, mean, p95) = step_stats(&times);
    let profile = *world.profile();
    Ok(RunResult {
        engine: format!("impetus {}", env!("CARGO_PKG_VERSION")),
        scene: scene.name.to_string(),
        threads: world.worker_count(),
        steps,
        bodies: start.len(),
        contacts: profile.manifolds,
        points: profile.points,
        joints: world.joint_count(),
        median: median_ms,
        mean,
        p95,
        stages: names
            .iter()
            .zip(stages.iter_mut())
            .map(|(n, v)| (*n, median(v)))
            .collect(),
        stability: stability(&world, &start),
        state_hash: world.state_hash(),
    })
}

impl RunResult {
    /// The result as the benchmark's JSON object.
    pub fn to_json(&self) -> Value {
        let stages: serde_json::Map<String, Value> = self
            .stages
            .iter()
            .map(|(n, v)| (n.to_string(), json!(v)))
            .collect();
        json!({
            "engine": self.engine,
            "scene": self.scene,
            "threads": self.threads,
            "steps": self.steps,
            "bodies": self.bodies,
            "contacts": self.contacts,
            "points": self.points,
            "joints": self.joints,
            "ms_per_step": { "median": self.median, "mean": self.mean, "p95": self.p95 },
            "stages": stages,
            "stability": {
                "max_displacement": self.stability.max_displacement,
                "max_speed": self.stability.max_speed,
                "min_y": self.stability.min_y,
                "max_penetration": self.stability.max_penetration,
                "max_joint_error": self.stability.max_joint_error,
            },
            "state_hash": format!("{:016x}", self.state_hash),
        })
    }

    /// The result as a text table.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let line = |s: &mut String, k: &str, v: String| s.push_str(&format!("  {k:<24} {v}\n"));
        line(&mut s, "engine", self.engine.clone());
        line(&mut s, "scene", self.scene.clone());
        line(&mut s, "threads", self.threads.to_string());
        line(&mut s, "steps", self.steps.to_string());
        line(&mut s, "dynamic bodies", self.bodies.to_string());
        line(
            &mut s,
            "contacts / points",
            format!("{} / {}", self.contacts, self.points),
        );
        if self.joints > 0 {
            line(&mut s, "joints", self.joints.to_string());
        }
        line(
            &mut s,
            "ms/step",
            format!(
                "median {:.3}   mean {:.3}   p95 {:.3}",
                self.median, self.mean, self.p95
            ),
        );
        s.push_str("  stage medians (ms)\n");
        for (name, v) in &self.stages {
            line(&mut s, &format!("  {name}"), format!("{v:.3}"));
        }
        line(
            &mut s,
            "max displacement (m)",
            format!("{:.4}", self.stability.max_displacement),
        );
        line(
            &mut s,
            "max speed (m/s)",
            format!("{:.4}", self.stability.max_speed),
        );
        line(
            &mut s,
            "lowest point y (m)",
            format!("{:.4}", self.stability.min_y),
        );
        line(
            &mut s,
            "max penetration (m)",
            format!("{:.4}", self.stability.max_penetration),
        );
        if self.joints > 0 {
            line(
                &mut s,
                "max joint error (m)",
                format!("{:.5}", self.stability.max_joint_error),
            );
        }
        line(&mut s, "state hash", format!("{:016x}", self.state_hash));
        s
    }
}
