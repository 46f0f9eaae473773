//! Running a scene and measuring it: ms/step statistics, per-stage medians, stability
//! figures and a state hash, as one [`RunResult`] that prints as a table or JSON.

use crate::{build_impetus, build_joints_impetus, world_def, Params, Scene, DT};
use impetus::{BodyId, BodyType, Error, JointKind, Transform, Vec3, World};
use serde_json::{json, Value};
use std::time::Instant;

/// How far the simulation wandered: the figures that tell a standing stack from a collapse.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stability {
    /// Largest distance of any dynamic body from where it started, in m.
    pub max_displacement: f32,
    /// Largest horizontal distance (in x and z) of any dynamic body from where it started,
    /// in m: a structure settling under gravity moves its bodies down, one that topples
    /// moves them sideways.
    pub max_drift: f32,
    /// Largest speed of any dynamic body at the end, in m/s.
    pub max_speed: f32,
    /// Lowest point of any dynamic shape at the end, in m (the ground's top is y = 0).
    pub min_y: f32,
    /// Deepest overlap of any contact point at the end, in m (0 when nothing overlaps).
    pub max_penetration: f32,
    /// Largest error of any joint at the end, in m (0 without joints): the distance
    /// between its two world anchor points (the frames' origins), except for a distance
    /// joint (a rod), whose anchors are meant to be apart: how far that distance lies
    /// outside the joint's `[min_length, max_length]` (|distance − length| for a rod).
    pub max_joint_error: f32,
    /// Largest joint stretch ratio at the end (0 without joints): each joint's error (as
    /// in `max_joint_error`) over its rest length. A distance joint's rest length is its
    /// `max_length` (the rod's length), so its ratio is |distance − length| / length. Any
    /// other joint's is the distance from body A's origin to A's anchor plus the distance
    /// from B's anchor to B's origin, both in the bodies' own frames: for a joint whose
    /// anchor lies between the two bodies' centres as built (every link of a chain), the
    /// distance between the centres as built, i.e. the link's length. Joints whose rest
    /// length is 0 (anchors at both origins) do not count. "Every link stretches less
    /// than 1 %" reads as a value below 0.01.
    pub max_joint_stretch_ratio: f32,
    /// Total compression of the scene's column ([`Recipe::column`](crate::Recipe::column),
    /// its tallest stack) at the end, in m: the sum of its bodies' heights less the
    /// column's height. A body's height is the extent of its shapes along its own y axis
    /// (their bounding box in the body's frame: a unit box's is 1 m); the column's height
    /// is the top body's highest point less the bottom body's lowest point, each body's
    /// taken as the height of its origin plus that own-frame extent. For upright bodies
    /// this is Σ (each one's world AABB height) − (highest point of the top one − lowest
    /// point of the bottom one); a body tilted by θ counts as upright, which moves the
    /// figure by about (1 − cos θ) × its height, where world AABBs would add about its
    /// width × sin θ (tenths of a metre over the 25 leaning boxes of `towers`). 0 for a
    /// stack of exactly touching boxes, positive when they overlap, negative when gaps
    /// open. `None` for scenes without a column.
    pub column_compression: Option<f32>,
}

/// The horizontal distance between `p` and `p0` (in x and z), m.
pub fn drift(p: Vec3, p0: Vec3) -> f32 {
    (p - p0).with_y(0.0).length()
}

/// The error of a joint whose world anchor points are `pa` and `pb`: their distance, or
/// for a distance joint with `rod = Some((min, max))` how far their distance lies outside
/// `[min, max]` (see [`Stability::max_joint_error`]).
pub fn anchor_error(pa: Vec3, pb: Vec3, rod: Option<(f32, f32)>) -> f32 {
    let d = pa.distance(pb);
    match rod {
        None => d,
        Some((min, max)) => (d - max).max(min - d).max(0.0),
    }
}

/// The rest length of a joint whose anchors are `local_a` and `local_b` in the frames of
/// its bodies A and B: a distance joint's (`rod = Some((min, max))`) `max` (its `min` when
/// `max` is infinite), any other joint's `|local_a| + |local_b|` (see
/// [`Stability::max_joint_stretch_ratio`]).
pub fn stretch_scale(local_a: Vec3, local_b: Vec3, rod: Option<(f32, f32)>) -> f32 {
    match rod {
        Some((_, max)) if max.is_finite() => max,
        Some((min, _)) => min,
        None => local_a.length() + local_b.length(),
    }
}

/// The compression of a column whose bodies, bottom to top, are given as
/// `(origin_y, low, high)`: the world height of the body's origin and the extent of its
/// shapes along its own y axis (see [`Stability::column_compression`]); `None` for an
/// empty column.
pub fn column_compression_of(bodies: impl IntoIterator<Item = (f32, f32, f32)>) -> Option<f32> {
    let mut bodies = bodies.into_iter();
    let (y, low, mut high) = bodies.next()?;
    let bottom = y + low;
    let mut top = y + high;
    let mut heights = high - low;
    for (y, low, h) in bodies {
        high = h;
        heights += high - low;
        top = y + high;
    }
    Some(heights - (top - bottom))
}

/// The compression of the column of bodies `column` (bottom to top) in an impetus world,
/// in m (see [`Stability::column_compression`]); `None` for an empty column.
pub fn column_compression(world: &World, column: &[BodyId]) -> Option<f32> {
    column_compression_of(column.iter().map(|&id| {
        let y = world.body_transform(id).map_or(f32::NAN, |xf| xf.p.y);
        let (mut low, mut high) = (f32::INFINITY, f32::NEG_INFINITY);
        for &shape in world.body_shapes(id).unwrap_or(&[]) {
            if let Ok(geom) = world.shape(shape) {
                let aabb = geom.aabb(&Transform::IDENTITY);
                (low, high) = (low.min(aabb.min.y), high.max(aabb.max.y));
            }
        }
        (y, low, high)
    }))
}

/// The outcome of one timed run.
#[derive(Clone, Debug, PartialEq)]
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
    /// Particles, their contacts with shapes in the last step, and the colours of their
    /// springs (impetus; zero for the peers).
    pub particles: [usize; 3],
    /// Median ms/step over the measured steps.
    pub median: f64,
    /// Mean ms/step over the measured steps.
    pub mean: f64,
    /// 95th percentile ms/step over the measured steps.
    pub p95: f64,
    /// Median ms/step over the last tenth of the steps (a settled scene; with sleep on,
    /// what a resting world costs).
    pub tail: f64,
    /// Median ms of each stage, in step order.
    pub stages: Vec<(&'static str, f64)>,
    /// Every step's ms, the warm-up's included (`run --json` writes them: where in a run an
    /// engine spends its time, which the median alone does not say).
    pub step_ms: Vec<f64>,
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

/// The median ms/step of the last tenth of the steps (at least one).
pub fn tail_median(times: &[f64]) -> f64 {
    let n = (times.len() / 10).max(1).min(times.len());
    median(&mut times[times.len() - n..].to_vec())
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
            world.body_linear_velocity(id),
            world.body_transform(id),
        ) else {
            continue;
        };
        s.max_displacement = s.max_displacement.max((p - p0).length());
        s.max_drift = s.max_drift.max(drift(p, p0));
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
    (s.max_joint_error, s.max_joint_stretch_ratio) = joint_stretch(world);
    s
}

/// The largest error of any joint of the world, in m (0 without joints), as
/// [`Stability::max_joint_error`] defines it: the distance between the two world anchor
/// points (the frames' origins), or how far it lies outside a distance joint's limits.
pub fn max_joint_error(world: &World) -> f32 {
    joint_stretch(world).0
}

/// The largest joint error, m, and the largest joint stretch ratio of the world, as
/// [`Stability::max_joint_error`] and [`Stability::max_joint_stretch_ratio`] define them
/// (0 and 0 without joints).
pub fn joint_stretch(world: &World) -> (f32, f32) {
    let (mut worst, mut worst_ratio) = (0.0f32, 0.0f32);
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
        let rod = match def.kind {
            JointKind::Distance {
                min_length,
                max_length,
                ..
            } => Some((min_length, max_length)),
            _ => None,
        };
        let error = anchor_error(
            xa.transform_point(def.frame_a.p),
            xb.transform_point(def.frame_b.p),
            rod,
        );
        worst = worst.max(error);
        let scale = stretch_scale(def.frame_a.p, def.frame_b.p, rod);
        if scale > 0.0 {
            worst_ratio = worst_ratio.max(error / scale);
        }
    }
    (worst, worst_ratio)
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
    progress: impl FnMut(usize, f64),
) -> Result<RunResult, Error> {
    run_scene_with(scene, world_def(threads), steps, progress)
}

/// As [`run_scene`], with the world's settings given (e.g. sleep on).
pub fn run_scene_with(
    scene: &Scene,
    def: impetus::WorldDef,
    steps: usize,
    progress: impl FnMut(usize, f64),
) -> Result<RunResult, Error> {
    run_scene_world(scene, def, steps, progress).map(|(result, _)| result)
}

/// As [`run_scene_with`], returning the world after the last step too (to save its image).
pub fn run_scene_world(
    scene: &Scene,
    def: impetus::WorldDef,
    steps: usize,
    progress: impl FnMut(usize, f64),
) -> Result<(RunResult, World), Error> {
    let mut world = World::new(def)?;
    let recipe = (scene.recipe)(&Params::default());
    let ids = build_impetus(&mut world, &recipe.bodies)?;
    build_joints_impetus(&mut world, &ids, &recipe.joints)?;
    crate::scenes::build_particles_impetus(&mut world, &recipe.particles)?;
    let column: Vec<BodyId> = recipe.column.iter().map(|&i| ids[i]).collect();
    let result = run_world(&mut world, scene.name, &column, steps, progress)?;
    Ok((result, world))
}

/// Steps a built `world` (a scene, or one loaded from an image) `steps` times and
/// measures it, labelling the result `label`; `column` is the scene's column for the
/// compression figure (empty: none).
pub fn run_world(
    world: &mut World,
    label: &str,
    column: &[BodyId],
    steps: usize,
    mut progress: impl FnMut(usize, f64),
) -> Result<RunResult, Error> {
    let start = dynamic_positions(world);
    let warmup = warmup_steps(steps);
    let mut stages: Vec<Vec<f64>> = Vec::new();
    let mut step_ms = Vec::with_capacity(steps);
    for step in 0..steps {
        let t = Instant::now();
        world.step(DT)?;
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        step_ms.push(ms);
        if step >= warmup {
            let profile = world.profile().stages();
            stages.resize(profile.len(), Vec::new());
            for (k, (_, v)) in profile.iter().enumerate() {
                stages[k].push(*v);
            }
        }
        progress(step + 1, ms);
    }
    let names = world.profile().stages().map(|(n, _)| n);
    let (median_ms, mean, p95) = step_stats(&step_ms[warmup..]);
    let tail = tail_median(&step_ms[warmup..]);
    let profile = *world.profile();
    Ok(RunResult {
        engine: format!("impetus {}", env!("CARGO_PKG_VERSION")),
        scene: label.to_string(),
        threads: world.worker_count(),
        steps,
        bodies: start.len(),
        contacts: profile.manifolds,
        points: profile.points,
        joints: world.joint_count(),
        particles: [
            profile.particles,
            profile.particle_contacts,
            profile.particle_colors,
        ],
        median: median_ms,
        mean,
        p95,
        tail,
        stages: names
            .iter()
            .zip(stages.iter_mut())
            .map(|(n, v)| (*n, median(v)))
            .collect(),
        step_ms,
        stability: Stability {
            column_compression: column_compression(world, column),
            ..stability(world, &start)
        },
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
            "particles": self.particles[0],
            "particle_contacts": self.particles[1],
            "particle_colors": self.particles[2],
            "ms_per_step": { "median": self.median, "mean": self.mean, "p95": self.p95, "last_tenth": self.tail },
            "step_ms": self.step_ms,
            "stages": stages,
            "stability": {
                "max_displacement": self.stability.max_displacement,
                "max_drift": self.stability.max_drift,
                "max_speed": self.stability.max_speed,
                "min_y": self.stability.min_y,
                "max_penetration": self.stability.max_penetration,
                "max_joint_error": self.stability.max_joint_error,
                "max_joint_stretch_ratio": self.stability.max_joint_stretch_ratio,
                "column_compression": self.stability.column_compression,
            },
            "state_hash": format!("{:016x}", self.state_hash),
        })
    }

    /// A result read back from [`to_json`](Self::to_json)'s object, as another build of the
    /// bench writes it (`run --json`). The stage split is not carried over (its names are
    /// the writer's): the result has none.
    pub fn from_json(v: &Value) -> Result<RunResult, String> {
        let f = |path: &[&str]| -> Result<f64, String> {
            let mut x = v;
            for k in path {
                x = &x[*k];
            }
            x.as_f64()
                .ok_or_else(|| format!("run result: `{}` is missing", path.join(".")))
        };
        let n = |key: &str| f(&[key]).map(|x| x as usize);
        let st = |key: &str| f(&["stability", key]).map(|x| x as f32);
        let text = |key: &str| {
            v[key]
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("run result: `{key}` is missing"))
        };
        let hash = text("state_hash")?;
        Ok(RunResult {
            engine: text("engine")?,
            scene: text("scene")?,
            threads: n("threads")?,
            steps: n("steps")?,
            bodies: n("bodies")?,
            contacts: n("contacts")?,
            points: n("points")?,
            joints: n("joints")?,
            particles: [
                n("particles")?,
                n("particle_contacts")?,
                n("particle_colors")?,
            ],
            median: f(&["ms_per_step", "median"])?,
            mean: f(&["ms_per_step", "mean"])?,
            p95: f(&["ms_per_step", "p95"])?,
            tail: f(&["ms_per_step", "last_tenth"])?,
            stages: Vec::new(),
            // Optional: a result written before the field existed has none.
            step_ms: match &v["step_ms"] {
                Value::Null => Vec::new(),
                Value::Array(a) => a
                    .iter()
                    .map(|x| x.as_f64().ok_or("run result: `step_ms` holds a non-number"))
                    .collect::<Result<_, _>>()?,
                _ => return Err("run result: `step_ms` is not an array".into()),
            },
            stability: Stability {
                max_displacement: st("max_displacement")?,
                max_drift: st("max_drift")?,
                max_speed: st("max_speed")?,
                min_y: st("min_y")?,
                max_penetration: st("max_penetration")?,
                max_joint_error: st("max_joint_error")?,
                max_joint_stretch_ratio: st("max_joint_stretch_ratio")?,
                column_compression: v["stability"]["column_compression"]
                    .as_f64()
                    .map(|x| x as f32),
            },
            state_hash: u64::from_str_radix(&hash, 16)
                .map_err(|e| format!("run result: state_hash {hash:?}: {e}"))?,
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
        if self.particles[0] > 0 {
            let [n, contacts, colors] = self.particles;
            line(
                &mut s,
                "particles",
                format!("{n} ({contacts} contacts, springs in {colors} colours)"),
            );
        }
        line(
            &mut s,
            "ms/step",
            format!(
                "median {:.3}   mean {:.3}   p95 {:.3}",
                self.median, self.mean, self.p95
            ),
        );
        line(
            &mut s,
            "ms/step last tenth",
            format!("median {:.3}", self.tail),
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
        if let Some(c) = self.stability.column_compression {
            line(&mut s, "column compression (m)", format!("{c:.5}"));
        }
        if self.joints > 0 {
            line(
                &mut s,
                "max joint error (m)",
                format!("{:.5}", self.stability.max_joint_error),
            );
            line(
                &mut s,
                "max joint stretch",
                stretch_percent(self.stability.max_joint_stretch_ratio),
            );
        }
        line(&mut s, "state hash", format!("{:016x}", self.state_hash));
        s
    }
}

/// A joint stretch ratio as a percentage for the tables, e.g. `0.0123 %`.
pub fn stretch_percent(ratio: f32) -> String {
    format!("{:.4} %", 100.0 * ratio)
}

/// How far below the ground's top (y = 0) a body may reach before a run counts as fallen
/// apart, m: a body lower than this fell through the ground or off its edge.
pub const FELL_BELOW: f32 = 0.5;
/// How far sideways a body of a standing structure (a scene with a column: the pyramids,
/// towers, mass_ratio) may move from where it was built before the structure counts as
/// collapsed, m: a box width. A settling stack moves its bodies down (the towers' by the
/// 0.1 m gaps they are built with), and a tall column of tilted boxes may lean by a few
/// tenths of a metre and stand; a box that moved a whole box width sideways has left the
/// place it was built in (toppled, slid off, squeezed out).
pub const COLLAPSED_DRIFT: f32 = 1.0;
/// The largest joint stretch ratio (see [`Stability::max_joint_stretch_ratio`]) of a run
/// whose joints held: beyond 10 % a chain or grid has come apart.
pub const TORN_STRETCH: f32 = 0.1;

/// Whether `recipe` has a flat ground whose top is at y = 0 (a static box, unturned, whose
/// top face is there), which the ground rule of [`fell_apart`] measures against. Scenes
/// without one (a hanging joint grid, a terrain with valleys) have no "below the ground".
fn has_flat_ground(recipe: &crate::Recipe) -> bool {
    recipe.bodies.iter().any(|b| {
        !b.dynamic
            && b.rotation.is_near_identity()
            && matches!(b.shape, crate::ShapeSpec::Cuboid(h) if (b.position.y + h.y).abs() < 1e-4)
    })
}

/// Why a run of `recipe` fell apart, or `None` when it kept the scene standing. The rule
/// is the same for every engine: a body below a flat ground at y = 0 by more than
/// [`FELL_BELOW`], a
/// body of a scene with a column (a structure built at rest) moved sideways by more than
/// [`COLLAPSED_DRIFT`], or a joint stretched by more than [`TORN_STRETCH`]. A figure that
/// is not a number (a peer that blew up) counts as fallen apart.
pub fn fell_apart(recipe: &crate::Recipe, s: &Stability) -> Option<String> {
    if has_flat_ground(recipe) && (s.min_y.is_nan() || s.min_y < -FELL_BELOW) {
        return Some(format!(
            "a body fell below the ground (lowest point y = {:.2} m)",
            s.min_y
        ));
    }
    if !recipe.column.is_empty() && (s.max_drift.is_nan() || s.max_drift > COLLAPSED_DRIFT) {
        return Some(format!(
            "collapsed (a body moved {:.2} m sideways)",
            s.max_drift
        ));
    }
    let stretch = s.max_joint_stretch_ratio;
    if !recipe.joints.is_empty() && (stretch.is_nan() || stretch > TORN_STRETCH) {
        return Some(format!(
            "joints tore (stretched {})",
            stretch_percent(s.max_joint_stretch_ratio)
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::find;

    fn recipe(scene: &str) -> crate::Recipe {
        (find(scene).unwrap().recipe)(&Params::default())
    }

    /// impetus keeps the towers standing: their boxes drop through the 0.1 m gaps they are
    /// built with (metres at the top of the tallest), which the rule must not count as a
    /// collapse; a box that toppled off a column would be.
    #[test]
    fn settled_towers_stand_and_a_toppled_box_does_not() {
        let r = run_scene(find("towers").unwrap(), 1, 240, |_, _| {}).unwrap();
        assert!(r.stability.max_displacement > 1.0, "{:?}", r.stability);
        assert_eq!(fell_apart(&recipe("towers"), &r.stability), None);
        let toppled = Stability {
            max_drift: 2.0,
            ..r.stability
        };
        assert!(fell_apart(&recipe("towers"), &toppled)
            .unwrap()
            .contains("collapsed"));
    }

    /// A result survives the trip through its JSON object (another build of the bench
    /// hands its runs over that way), but for the stage split.
    #[test]
    fn run_results_read_back_from_json() {
        let r = run_scene(find("towers").unwrap(), 1, 30, |_, _| {}).unwrap();
        let back = RunResult::from_json(&r.to_json()).unwrap();
        assert_eq!(
            RunResult {
                stages: Vec::new(),
                ..r.clone()
            },
            back
        );
        let mut broken = r.to_json();
        broken["ms_per_step"] = json!(null);
        assert!(RunResult::from_json(&broken)
            .unwrap_err()
            .contains("ms_per_step.median"));
    }

    /// A body below the ground and a torn joint fall apart in any scene; drift alone does
    /// not in a scene that is not a structure at rest (rain falls by design).
    #[test]
    fn the_rule_reads_each_figure() {
        let fine = Stability {
            min_y: -0.01,
            ..Default::default()
        };
        let rain = recipe("rain");
        assert_eq!(fell_apart(&rain, &fine), None);
        let far = Stability {
            max_drift: 30.0,
            max_displacement: 40.0,
            ..fine
        };
        assert_eq!(fell_apart(&rain, &far), None);
        let fallen = Stability {
            min_y: -3.0,
            ..fine
        };
        assert!(fell_apart(&rain, &fallen)
            .unwrap()
            .contains("below the ground"));
        // joint_grid hangs below y = 0 and has no ground to fall through.
        assert_eq!(fell_apart(&recipe("joint_grid"), &fallen), None);
        let chain = recipe("heavy_chain");
        let torn = Stability {
            max_joint_stretch_ratio: 0.5,
            min_y: 2.0,
            ..fine
        };
        assert!(fell_apart(&chain, &torn).unwrap().contains("joints tore"));
        assert_eq!(
            fell_apart(
                &chain,
                &Stability {
                    max_joint_stretch_ratio: 0.01,
                    ..torn
                }
            ),
            None
        );
    }
}
