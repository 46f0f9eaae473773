//! The engines the bench can run: impetus and the peers compiled in, each run on a scene
//! with a progress bar.

use crate::progress::Progress;
use impetus_scenes::{run_scene_with, world_def, RunResult, Scene};

/// The environment variable naming a second impetus-bench built with rapier3d's serial
/// defaults (`--no-default-features --features rapier`), which the `rapier-serial` row runs.
pub const RAPIER_SERIAL_BENCH: &str = "IMPETUS_RAPIER_SERIAL_BENCH";

/// Runs `scene` on the serial rapier bench named by [`RAPIER_SERIAL_BENCH`] (`run <scene>
/// --engine rapier --json`) and reads its result back.
fn run_serial_rapier(scene: &Scene, threads: usize, steps: usize) -> Result<RunResult, String> {
    if threads != 1 {
        return Err("rapier's serial build steps on one thread".to_string());
    }
    let bench = std::env::var_os(RAPIER_SERIAL_BENCH)
        .ok_or_else(|| format!("{RAPIER_SERIAL_BENCH} is not set"))?;
    let json = std::env::temp_dir().join(format!(
        "impetus-rapier-serial-{}-{}.json",
        std::process::id(),
        scene.name
    ));
    let output = std::process::Command::new(&bench)
        .args([
            "run",
            scene.name,
            "--engine",
            "rapier",
            "--threads",
            "1",
            "--steps",
        ])
        .arg(steps.to_string())
        .arg("--json")
        .arg(&json)
        .output()
        .map_err(|e| format!("running {}: {e}", bench.to_string_lossy()))?;
    if !output.status.success() {
        return Err(format!(
            "{} failed: {}",
            bench.to_string_lossy(),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let text =
        std::fs::read_to_string(&json).map_err(|e| format!("reading {}: {e}", json.display()))?;
    let _ = std::fs::remove_file(&json);
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", json.display()))?;
    let result = RunResult::from_json(&v)?;
    if !result.engine.ends_with("serial") {
        return Err(format!(
            "{} is not a serial rapier build (its rapier row is {:?})",
            bench.to_string_lossy(),
            result.engine
        ));
    }
    Ok(result)
}

/// The engines the bench can run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Engine {
    Impetus,
    Rapier,
    /// rapier3d's serial build (no `parallel`, no `profiler`), run as a second bench named
    /// by [`RAPIER_SERIAL_BENCH`], at one thread only.
    RapierSerial,
    Box3d,
    Physx,
    /// PhysX's tuned row: the TGS solver.
    PhysxTgs,
    Jolt,
    /// Jolt's tuned row: more velocity and position steps.
    JoltTuned,
}

impl Engine {
    /// Every engine, in the order tables list them.
    const ALL: [Engine; 8] = [
        Engine::Impetus,
        Engine::Rapier,
        Engine::RapierSerial,
        Engine::Box3d,
        Engine::Physx,
        Engine::PhysxTgs,
        Engine::Jolt,
        Engine::JoltTuned,
    ];

    /// The engines a comparison runs when none are named: every engine compiled in at its
    /// defaults (the tuned rows are extra, named with `--engines`).
    pub fn defaults() -> Vec<Engine> {
        Engine::compiled_in()
            .into_iter()
            .filter(|e| !e.tuned())
            .collect()
    }

    /// Whether this is a peer's extra row (a tuned setting or a second build) rather than
    /// its defaults.
    pub fn tuned(self) -> bool {
        matches!(
            self,
            Engine::PhysxTgs | Engine::JoltTuned | Engine::RapierSerial
        )
    }

    /// Why the engine does not run at `threads`, or `None` when it does: rapier's serial
    /// build steps on one thread.
    pub fn skips_threads(self, threads: usize) -> Option<String> {
        (self == Engine::RapierSerial && threads != 1)
            .then(|| "rapier's serial build steps on one thread".to_string())
    }

    pub fn parse(s: &str) -> Result<Engine, String> {
        let e = match s {
            "impetus" => Engine::Impetus,
            "rapier" | "rapier3d" => Engine::Rapier,
            "rapier-serial" => Engine::RapierSerial,
            "box3d" => Engine::Box3d,
            "physx" => Engine::Physx,
            "physx-tgs" => Engine::PhysxTgs,
            "jolt" => Engine::Jolt,
            "jolt-tuned" => Engine::JoltTuned,
            _ => {
                return Err(format!(
                    "unknown engine {s:?}; engines: impetus, rapier, rapier-serial, box3d, \
                     physx, physx-tgs, jolt, jolt-tuned"
                ))
            }
        };
        if e == Engine::RapierSerial && !e.compiled() {
            return Err(format!(
                "rapier-serial runs a second bench, built with `cargo build --release -p \
                 impetus-scenes --no-default-features --features rapier --bin impetus-bench` \
                 and copied elsewhere; set {RAPIER_SERIAL_BENCH} to its path"
            ));
        }
        if !e.compiled() {
            return Err(format!(
                "this impetus-bench was built without the `{}` feature (see README, \
                 \"Compare with the other engines\")",
                e.feature()
            ));
        }
        Ok(e)
    }

    pub fn name(self) -> &'static str {
        match self {
            Engine::Impetus => "impetus",
            Engine::Rapier => "rapier",
            Engine::RapierSerial => "rapier-serial",
            Engine::Box3d => "box3d",
            Engine::Physx => "physx",
            Engine::PhysxTgs => "physx-tgs",
            Engine::Jolt => "jolt",
            Engine::JoltTuned => "jolt-tuned",
        }
    }

    /// The cargo feature that compiles the engine in.
    fn feature(self) -> &'static str {
        match self {
            Engine::Impetus => "default",
            Engine::RapierSerial => "rapier",
            Engine::PhysxTgs => "physx",
            Engine::JoltTuned => "jolt",
            e => e.name(),
        }
    }

    /// How the engine's library was built, for the reports (the C and C++ peers: their
    /// compiler flags and whether their asserts are on), or `None` for the Rust engines,
    /// which are built by this workspace's release profile.
    pub fn build(self) -> Option<String> {
        match self {
            #[cfg(feature = "box3d")]
            Engine::Box3d => Some(impetus_scenes::box3d::box3d_build()),
            #[cfg(feature = "physx")]
            Engine::Physx | Engine::PhysxTgs => Some(impetus_scenes::physx::physx_build()),
            #[cfg(feature = "jolt")]
            Engine::Jolt | Engine::JoltTuned => Some(impetus_scenes::jolt::jolt_build()),
            _ => None,
        }
    }

    /// Whether the engine's library was built with its asserts (or checks) on: a peer built
    /// so is slower than its authors ship it, and the bench refuses to compare with it.
    pub fn asserts(self) -> bool {
        match self {
            #[cfg(feature = "box3d")]
            Engine::Box3d => impetus_scenes::box3d::box3d_asserts(),
            #[cfg(feature = "physx")]
            Engine::Physx | Engine::PhysxTgs => {
                impetus_scenes::physx::physx_checked().unwrap_or(false)
            }
            #[cfg(feature = "jolt")]
            Engine::Jolt | Engine::JoltTuned => impetus_scenes::jolt::jolt_asserts(),
            _ => false,
        }
    }

    fn compiled(self) -> bool {
        match self {
            Engine::Impetus => true,
            Engine::Rapier => cfg!(feature = "rapier"),
            Engine::RapierSerial => std::env::var_os(RAPIER_SERIAL_BENCH).is_some(),
            Engine::Box3d => cfg!(feature = "box3d"),
            Engine::Physx | Engine::PhysxTgs => cfg!(feature = "physx"),
            Engine::Jolt | Engine::JoltTuned => cfg!(feature = "jolt"),
        }
    }

    /// Every engine compiled in.
    pub fn compiled_in() -> Vec<Engine> {
        Engine::ALL.into_iter().filter(|e| e.compiled()).collect()
    }

    /// Why the engine cannot build `scene` (a recipe feature it has no counterpart for), or
    /// `None` when it can.
    pub fn skips(self, scene: &Scene) -> Option<String> {
        let recipe = || (scene.recipe)(&impetus_scenes::Params::default());
        if self == Engine::Rapier && !recipe().particles.is_empty() {
            return Some(format!(
                "rapier cannot build {}",
                impetus_scenes::peer::PARTICLES_UNSUPPORTED
            ));
        }
        match self {
            #[cfg(feature = "box3d")]
            Engine::Box3d => impetus_scenes::box3d::box3d_skips(&recipe()),
            #[cfg(feature = "physx")]
            Engine::Physx | Engine::PhysxTgs => impetus_scenes::physx::physx_skips(&recipe()),
            #[cfg(feature = "jolt")]
            Engine::Jolt | Engine::JoltTuned => impetus_scenes::jolt::jolt_skips(&recipe()),
            _ => {
                let _ = recipe;
                None
            }
        }
    }

    /// One timed run with a progress bar labelled `label`.
    pub fn run(
        self,
        scene: &Scene,
        threads: usize,
        steps: usize,
        label: &str,
        sleep: bool,
    ) -> Result<RunResult, String> {
        // A peer that cannot build the scene says so instead of running part of it.
        if let Some(why) = self.skips(scene) {
            return Err(why);
        }
        let bar = Progress::new(label, steps);
        let progress = bar.callback();
        let result = match self {
            Engine::Impetus => {
                let def = impetus::WorldDef {
                    enable_sleep: sleep,
                    ..world_def(threads)
                };
                run_scene_with(scene, def, steps, progress).map_err(|e| e.to_string())
            }
            #[cfg(feature = "rapier")]
            Engine::Rapier => impetus_scenes::run_rapier(scene, threads, steps, progress),
            Engine::RapierSerial => {
                let _ = progress;
                run_serial_rapier(scene, threads, steps)
            }
            #[cfg(feature = "box3d")]
            Engine::Box3d => impetus_scenes::box3d::run_box3d(scene, threads, steps, progress),
            #[cfg(feature = "physx")]
            Engine::Physx => impetus_scenes::physx::run_physx(
                scene,
                threads,
                steps,
                impetus_scenes::physx::PhysxSolver::Pgs,
                progress,
            ),
            #[cfg(feature = "physx")]
            Engine::PhysxTgs => impetus_scenes::physx::run_physx(
                scene,
                threads,
                steps,
                impetus_scenes::physx::PhysxSolver::Tgs,
                progress,
            ),
            #[cfg(feature = "jolt")]
            Engine::Jolt => impetus_scenes::jolt::run_jolt(scene, threads, steps, progress),
            #[cfg(feature = "jolt")]
            Engine::JoltTuned => {
                impetus_scenes::jolt::run_jolt_tuned(scene, threads, steps, progress)
            }
            #[allow(unreachable_patterns)]
            e => {
                let _ = progress;
                Err(format!(
                    "this impetus-bench was built without the `{}` feature",
                    e.feature()
                ))
            }
        };
        bar.finish();
        result
    }
}
