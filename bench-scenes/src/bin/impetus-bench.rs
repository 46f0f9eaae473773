//! `impetus-bench`: run the standard scenes and print what they cost, alone or beside the
//! peer engines compiled in (rapier3d by default; Box3D, PhysX and Jolt with the `box3d`,
//! `physx` and `jolt` features, all with `peers`).
//!
//! ```text
//! impetus-bench list
//! impetus-bench run <scene> [--steps N] [--threads T] [--engine E] [--sleep] [--json FILE]
//!                   [--save-image FILE]
//! impetus-bench run --image FILE [--steps N] [--threads T] [--json FILE]
//! impetus-bench compare <scene> [--threads T] [--steps N] [--reps R] [--engines E,E]
//!                       [--json FILE] [--svg FILE]
//! impetus-bench sweep <scene> --threads 1,2,4 [--steps N] [--reps R] [--engines E,E]
//!                     [--json FILE] [--svg FILE]
//! impetus-bench report [--threads 1,2] [--scenes S,S] [--engines E,E] [--steps N] [--reps R]
//!                      [--out DIR]
//! impetus-bench soak [--minutes M] [--threads T] [--seed S] [--segment K] [--segments N]
//! impetus-bench churn <scene> [--worlds R] [--steps N] [--threads T]
//! impetus-bench record <scene> --out FILE.impr [--steps N] [--threads T] [--sleep]
//!                      [--no-contacts] [--grid E]
//! impetus-bench view FILE.impr [OTHER.impr] [--port P]
//! ```

use impetus_scenes::chart::{bar_chart, grouped_bar_chart, scaling_chart, BarSeries, Series};
use impetus_scenes::measure::{run_scene_world, run_world, stretch_percent};
use impetus_scenes::{find, run_scene_with, world_def, RunResult, Scene, SCENES};
use serde_json::{json, Value};
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "usage:
  impetus-bench list
  impetus-bench run <scene> [--steps N] [--threads T] [--engine E] [--sleep] [--json FILE]
                    [--save-image FILE]
  impetus-bench run --image FILE [--steps N] [--threads T] [--json FILE]
  impetus-bench compare <scene> [--threads T] [--steps N] [--reps R] [--engines E,E]
                        [--json FILE] [--svg FILE]
  impetus-bench sweep <scene> --threads 1,2,4 [--steps N] [--reps R] [--engines E,E]
                      [--json FILE] [--svg FILE]
  impetus-bench report [--threads 1,2] [--scenes S,S] [--engines E,E] [--steps N] [--reps R]
                       [--out DIR]
  impetus-bench soak [--minutes M] [--threads T] [--seed S] [--segment K] [--segments N]
  impetus-bench churn <scene> [--worlds R] [--steps N] [--threads T]
  impetus-bench record <scene> --out FILE.impr [--steps N] [--threads T] [--sleep]
                       [--no-contacts] [--grid E]
  impetus-bench view FILE.impr [OTHER.impr] [--port P]

  --steps N      steps to run (default: the scene's, 600 for the standard scenes)
  --threads T    worker threads (default 1; 0 = all cores); sweep, report: a list, e.g. 1,2
  --engine E     run: impetus (default), rapier, box3d, physx or jolt
  --sleep        run: let impetus's islands sleep (the scenes run with sleep off)
  --engines E,E  compare, sweep, report: the engines to run (default: every engine compiled
                 in; sweep: impetus,rapier)
  --scenes S,S   report: the scenes (default: every scene)
  --reps R       repetitions, engines alternating A B C A B C (compare, report: 3, sweep: 1);
                 the figure reported is the median of the repetitions' medians
  --json FILE    also write the results as JSON
  --save-image FILE  run: write the world's image (World::save_image) after the last step
  --image FILE   run: continue from a saved image instead of building a scene (the scene
                 name is ignored; --threads default: the image's thread count; --steps
                 default: 600)
  --svg FILE     compare, sweep: also draw ms/step per engine (and thread count) as SVG
  --out DIR      report: where README.md, results.json and one SVG per scene go
                 (default docs/benchmarks)
  --minutes M    soak: how long to run, minutes, fractional allowed (default 1); the soak
                 rotates small scenes under random spawns, removals, impulses and joint
                 breaks with sleep on, checks finite state, ground, energy, memory and
                 1-vs-2-thread replays, and exits non-zero naming a failed check
  --seed S       soak: seed of the random operations (decimal or 0x hex)
  --segment K    soak: start at segment K of the seed's sequence (default 1); a failed soak
                 prints the command that reruns its segment alone
  --segments N   soak: stop after N segments, even with time left
  --worlds R     churn: build the scene's world, step it N times (default 10) and drop it,
                 R times (default 10) in one process; fails when a dropped world leaves
                 memory live or a later world's live high-water mark grows by over 1%
  --out FILE     record: the recording to write (.impr, see tools/recorder); frame 0 is
                 the scene as built, then one frame per step (--steps default: the scene's)
  --no-contacts  record: leave the contact points out (smaller files)
  --grid E       record: round positions to multiples of 2^-E m and quaternion components
                 to 2^-(E+2) (default: exact poses); --grid 10 (about 1 mm) makes files
                 several times smaller
  --port P       view: the port on 127.0.0.1 (default 8024; 0: any free port); the
                 viewer (tools/viewer) and the recordings are served until interrupted,
                 and a second recording is compared with the first frame by frame";

fn main() -> ExitCode {
    impetus_profiling::start();
    if let Some(hint) = impetus_profiling::connect_hint() {
        // On stderr, so that the tables and JSON on stdout stay as they are.
        eprintln!("{hint}");
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("list") => {
            println!(
                "{:<16} {:>8} {:>7}  description",
                "scene", "bodies", "joints"
            );
            for s in SCENES {
                println!(
                    "{:<16} {:>8} {:>7}  {}",
                    s.name, s.bodies, s.joints, s.description
                );
            }
            Ok(())
        }
        Some("run") => run(&args[1..]),
        Some("compare") => compare(&args[1..]),
        Some("sweep") => sweep(&args[1..]),
        Some("report") => report(&args[1..]),
        Some("soak") => soak(&args[1..]),
        Some("churn") => churn(&args[1..]),
        Some("record") => record(&args[1..]),
        Some("view") => view(&args[1..]),
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("impetus-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The counting global allocator: the system allocator plus three relaxed atomic counters
/// (allocations made, bytes live, the live bytes' high-water mark), read by `soak`'s memory
/// check. Relaxed atomics suffice: the counters are statistics read between steps, ordering
/// nothing. The cost is two atomic adds per allocation (and a load, plus a `fetch_max`
/// only when a new high-water mark is reached) and one atomic subtraction per free;
/// `impetus-bench run pile --steps 200` (about 50 allocations a step) showed no measurable
/// difference with and without it: 6 alternating pairs on a quiet machine, median of the
/// runs' median ms/step 8.23 with it, 8.37 without (ratio 0.98; fastest runs 7.990 and
/// 7.992), same state hash.
mod counting {
    use impetus_scenes::soak::AllocStats;
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

    pub struct Counting;

    static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
    static LIVE: AtomicU64 = AtomicU64::new(0);
    static PEAK: AtomicU64 = AtomicU64::new(0);

    fn grew(bytes: usize) {
        ALLOCATIONS.fetch_add(1, Relaxed);
        let live = LIVE.fetch_add(bytes as u64, Relaxed) + bytes as u64;
        if live > PEAK.load(Relaxed) {
            PEAK.fetch_max(live, Relaxed);
        }
    }

    // SAFETY: every call is forwarded unchanged to `System`; only counters are updated.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let p = System.alloc(layout);
            if !p.is_null() {
                grew(layout.size());
            }
            p
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            let p = System.alloc_zeroed(layout);
            if !p.is_null() {
                grew(layout.size());
            }
            p
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            System.dealloc(ptr, layout);
            LIVE.fetch_sub(layout.size() as u64, Relaxed);
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            let p = System.realloc(ptr, layout, new_size);
            if !p.is_null() {
                LIVE.fetch_sub(layout.size() as u64, Relaxed);
                grew(new_size);
            }
            p
        }
    }

    /// The counters now.
    pub fn read() -> AllocStats {
        AllocStats {
            allocations: ALLOCATIONS.load(Relaxed),
            live_bytes: LIVE.load(Relaxed),
            peak_bytes: PEAK.load(Relaxed),
        }
    }

    /// Restarts the high-water mark from the live bytes now.
    pub fn reset_peak() {
        PEAK.store(LIVE.load(Relaxed), Relaxed);
    }
}

#[global_allocator]
static GLOBAL: counting::Counting = counting::Counting;

/// `record <scene> --out FILE [--steps N] [--threads T] [--sleep] [--no-contacts]`: builds
/// the scene, attaches a recorder and steps it, a frame per step.
fn record(args: &[String]) -> Result<(), String> {
    let mut scene = None;
    let mut out = None;
    let mut steps = None;
    let mut threads = 1;
    let mut options = impetus_recorder::RecordOptions::default();
    let mut sleep = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{a} needs a value\n{USAGE}"))
        };
        match a.as_str() {
            "--out" => out = Some(value()?),
            "--steps" => {
                let v = value()?;
                steps = Some(
                    v.parse::<u32>()
                        .map_err(|e| format!("--steps {v:?}: {e}"))?,
                );
            }
            "--threads" => {
                let v = value()?;
                threads = v.parse().map_err(|e| format!("--threads {v:?}: {e}"))?;
            }
            "--sleep" => sleep = true,
            "--no-contacts" => options.contacts = false,
            "--grid" => {
                let v = value()?;
                options.grid = Some(
                    v.parse::<i32>()
                        .ok()
                        .filter(|e| (0..=40).contains(e))
                        .ok_or_else(|| format!("--grid: not 0 to 40: {v:?}"))?,
                );
            }
            s if s.starts_with("--") => return Err(format!("record: unknown option {s}\n{USAGE}")),
            s => scene = Some(scene_named(s)?),
        }
    }
    let scene = scene.ok_or(format!("record needs a scene\n{USAGE}"))?;
    let out = out.ok_or(format!("record needs --out FILE\n{USAGE}"))?;
    let steps = steps.unwrap_or(scene.default_steps as u32);
    let mut world = impetus::World::new(impetus::WorldDef {
        enable_sleep: sleep,
        ..world_def(threads)
    })
    .map_err(|e| e.to_string())?;
    scene
        .build(&mut world, &impetus_scenes::Params::default())
        .map_err(|e| e.to_string())?;
    let file = std::fs::File::create(&out).map_err(|e| format!("creating {out}: {e}"))?;
    let started = Instant::now();
    let fail = |e: impetus_recorder::RecordError| format!("{out}: {e}");
    let mut recorder = impetus_recorder::Recorder::new(
        std::io::BufWriter::new(file),
        &world,
        impetus_scenes::DT,
        options,
    )
    .map_err(fail)?;
    let mut progress = progress_line(scene.name, steps as usize);
    for step in 1..=steps {
        let t = Instant::now();
        world.step(impetus_scenes::DT).map_err(|e| e.to_string())?;
        recorder.record(&world).map_err(fail)?;
        progress(step as usize, t.elapsed().as_secs_f64() * 1000.0);
    }
    eprintln!();
    recorder
        .finish()
        .map_err(fail)?
        .flush()
        .map_err(|e| format!("writing {out}: {e}"))?;
    let bytes = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0);
    println!(
        "wrote {out}: {} frames of {} ({} bodies), {bytes} bytes, {:.1} s; state hash {:016x}",
        steps + 1,
        scene.name,
        world.body_count(),
        started.elapsed().as_secs_f64(),
        world.state_hash()
    );
    Ok(())
}

/// `view FILE [OTHER] [--port P]`: serves the viewer and the recordings on 127.0.0.1.
fn view(args: &[String]) -> Result<(), String> {
    let mut recordings = Vec::new();
    let mut port = 8024;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--port" => {
                let v = it.next().ok_or(format!("--port needs a value\n{USAGE}"))?;
                port = v.parse().map_err(|e| format!("--port {v:?}: {e}"))?;
            }
            s if s.starts_with("--") => return Err(format!("view: unknown option {s}\n{USAGE}")),
            s => recordings.push(std::path::PathBuf::from(s)),
        }
    }
    if recordings.is_empty() || recordings.len() > 2 {
        return Err(format!("view takes one or two recordings\n{USAGE}"));
    }
    for r in &recordings {
        // Read it here first, so that a bad file is named now, not in the browser.
        impetus_recorder::Recording::read(r).map_err(|e| format!("{}: {e}", r.display()))?;
    }
    let options = impetus_recorder::serve::ServeOptions {
        viewer_dir: impetus_recorder::serve::default_viewer_dir(),
        recordings,
        port,
        max_requests: None,
    };
    impetus_recorder::serve::serve(&options, |url| {
        println!("viewer: {url}  (Ctrl-C stops)");
    })
    .map_err(|e| format!("serving the viewer: {e}"))
}

/// `soak --minutes M [--threads T] [--seed S]`.
fn soak(args: &[String]) -> Result<(), String> {
    let mut opts = impetus_scenes::soak::SoakOptions::new(0x50A4);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{a} needs a value\n{USAGE}"))
        };
        match a.as_str() {
            "--minutes" => {
                let v = value()?;
                opts.minutes = v
                    .parse::<f64>()
                    .ok()
                    .filter(|m| m.is_finite() && *m >= 0.0)
                    .ok_or_else(|| format!("--minutes: not a number of minutes: {v:?}"))?;
            }
            "--threads" => {
                let v = value()?;
                opts.threads = v.parse().map_err(|e| format!("--threads {v:?}: {e}"))?;
            }
            "--seed" => {
                let v = value()?;
                opts.seed = match v.strip_prefix("0x") {
                    Some(hex) => u64::from_str_radix(hex, 16),
                    None => v.parse(),
                }
                .map_err(|_| format!("--seed: not a number: {v:?}"))?;
            }
            "--segment" => {
                let v = value()?;
                opts.first_segment =
                    v.parse().ok().filter(|&k| k >= 1).ok_or_else(|| {
                        format!("--segment: not a segment number (1, 2, ...): {v:?}")
                    })?;
            }
            "--segments" => {
                let v = value()?;
                opts.max_segments = Some(
                    v.parse()
                        .ok()
                        .filter(|&k| k >= 1)
                        .ok_or_else(|| format!("--segments: not a positive count: {v:?}"))?,
                );
            }
            _ => return Err(format!("soak: unknown argument {a:?}\n{USAGE}")),
        }
    }
    let probe = impetus_scenes::soak::MemProbe {
        read: counting::read,
        reset_peak: counting::reset_peak,
    };
    impetus_scenes::soak::run(&opts, Some(probe)).map(|_| ())
}

/// `churn <scene> [--worlds R] [--steps N] [--threads T]`.
fn churn(args: &[String]) -> Result<(), String> {
    let o = Opts::parse(args, &["--worlds", "--steps", "--threads"])?;
    let scene = o.scene("churn")?;
    let probe = impetus_scenes::soak::MemProbe {
        read: counting::read,
        reset_peak: counting::reset_peak,
    };
    impetus_scenes::churn::run(
        scene,
        o.worlds.unwrap_or(10),
        o.steps.unwrap_or(10),
        o.single_thread_count()?,
        probe,
    )
    .map(|_| ())
}

/// The engines the bench can run.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Engine {
    Impetus,
    Rapier,
    Box3d,
    Physx,
    Jolt,
}

impl Engine {
    /// Every engine, in the order tables list them.
    const ALL: [Engine; 5] = [
        Engine::Impetus,
        Engine::Rapier,
        Engine::Box3d,
        Engine::Physx,
        Engine::Jolt,
    ];

    fn parse(s: &str) -> Result<Engine, String> {
        let e = match s {
            "impetus" => Engine::Impetus,
            "rapier" | "rapier3d" => Engine::Rapier,
            "box3d" => Engine::Box3d,
            "physx" => Engine::Physx,
            "jolt" => Engine::Jolt,
            _ => {
                return Err(format!(
                    "unknown engine {s:?}; engines: impetus, rapier, box3d, physx, jolt"
                ))
            }
        };
        if !e.compiled() {
            return Err(format!(
                "this impetus-bench was built without the `{}` feature (see README, \
                 \"Compare with the other engines\")",
                e.feature()
            ));
        }
        Ok(e)
    }

    fn name(self) -> &'static str {
        match self {
            Engine::Impetus => "impetus",
            Engine::Rapier => "rapier",
            Engine::Box3d => "box3d",
            Engine::Physx => "physx",
            Engine::Jolt => "jolt",
        }
    }

    /// The cargo feature that compiles the engine in.
    fn feature(self) -> &'static str {
        match self {
            Engine::Impetus => "default",
            e => e.name(),
        }
    }

    fn compiled(self) -> bool {
        match self {
            Engine::Impetus => true,
            Engine::Rapier => cfg!(feature = "rapier"),
            Engine::Box3d => cfg!(feature = "box3d"),
            Engine::Physx => cfg!(feature = "physx"),
            Engine::Jolt => cfg!(feature = "jolt"),
        }
    }

    /// Every engine compiled in.
    fn compiled_in() -> Vec<Engine> {
        Engine::ALL.into_iter().filter(|e| e.compiled()).collect()
    }

    /// Why the engine cannot build `scene` (a recipe feature it has no counterpart for), or
    /// `None` when it can.
    fn skips(self, scene: &Scene) -> Option<String> {
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
            Engine::Physx => impetus_scenes::physx::physx_skips(&recipe()),
            #[cfg(feature = "jolt")]
            Engine::Jolt => impetus_scenes::jolt::jolt_skips(&recipe()),
            _ => {
                let _ = recipe;
                None
            }
        }
    }

    /// One timed run with a progress line labelled `label`.
    fn run(
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
        let progress = progress_line(label, steps);
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
            #[cfg(feature = "box3d")]
            Engine::Box3d => impetus_scenes::box3d::run_box3d(scene, threads, steps, progress),
            #[cfg(feature = "physx")]
            Engine::Physx => impetus_scenes::physx::run_physx(scene, threads, steps, progress),
            #[cfg(feature = "jolt")]
            Engine::Jolt => impetus_scenes::jolt::run_jolt(scene, threads, steps, progress),
            #[allow(unreachable_patterns)]
            e => {
                let _ = progress;
                Err(format!(
                    "this impetus-bench was built without the `{}` feature",
                    e.feature()
                ))
            }
        };
        eprintln!();
        result
    }
}

/// A progress line on stderr, redrawn at most every 100 ms: label, bar, step, last
/// ms/step, time left.
fn progress_line(label: &str, steps: usize) -> impl FnMut(usize, f64) {
    let label = label.to_string();
    let started = Instant::now();
    let mut last_print: Option<Instant> = None;
    move |step, ms| {
        let due = match last_print {
            None => true,
            Some(t) => t.elapsed().as_millis() >= 100,
        };
        if due || step == steps {
            last_print = Some(Instant::now());
            let elapsed = started.elapsed().as_secs_f64();
            let eta = elapsed / step as f64 * (steps - step) as f64;
            let width = 30;
            let filled = width * step / steps;
            let mut stderr = std::io::stderr();
            let _ = write!(
                stderr,
                "\r{label} [{}{}] {step}/{steps}  {ms:7.2} ms/step  eta {eta:4.0} s ",
                "#".repeat(filled),
                "-".repeat(width - filled)
            );
            let _ = stderr.flush();
        }
    }
}

/// The command-line options of `run`, `compare`, `sweep` and `report`.
#[derive(Default)]
struct Opts {
    scene: Option<String>,
    scenes: Option<Vec<&'static Scene>>,
    out: Option<String>,
    steps: Option<usize>,
    threads: Option<Vec<usize>>,
    reps: Option<usize>,
    worlds: Option<usize>,
    engines: Option<Vec<Engine>>,
    json: Option<String>,
    svg: Option<String>,
    save_image: Option<String>,
    image: Option<String>,
    sleep: bool,
}

impl Opts {
    /// Parses `args`, accepting only the flags in `allowed`.
    fn parse(args: &[String], allowed: &[&str]) -> Result<Opts, String> {
        let mut o = Opts::default();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if a.starts_with("--") && !allowed.contains(&a.as_str()) {
                return Err(format!("unknown option {a}\n{USAGE}"));
            }
            if a == "--sleep" {
                o.sleep = true;
                continue;
            }
            let mut value = || it.next().cloned().ok_or(format!("{a} needs a value"));
            let number = |v: &str| v.parse::<usize>().map_err(|e| format!("{a} {v:?}: {e}"));
            match a.as_str() {
                "--steps" => o.steps = Some(number(&value()?)?),
                "--reps" => o.reps = Some(number(&value()?)?.max(1)),
                "--worlds" => o.worlds = Some(number(&value()?)?.max(1)),
                "--threads" => {
                    o.threads = Some(
                        value()?
                            .split(',')
                            .map(|t| number(t.trim()))
                            .collect::<Result<_, _>>()?,
                    )
                }
                "--engine" | "--engines" => {
                    o.engines = Some(
                        value()?
                            .split(',')
                            .map(|e| Engine::parse(e.trim()))
                            .collect::<Result<_, _>>()?,
                    )
                }
                "--scenes" => {
                    o.scenes = Some(
                        value()?
                            .split(',')
                            .map(|n| scene_named(n.trim()))
                            .collect::<Result<_, _>>()?,
                    )
                }
                "--out" => o.out = Some(value()?),
                "--json" => o.json = Some(value()?),
                "--save-image" => o.save_image = Some(value()?),
                "--image" => o.image = Some(value()?),
                "--svg" => o.svg = Some(value()?),
                s if s.starts_with("--") => unreachable!("checked above"),
                s => o.scene = Some(s.to_string()),
            }
        }
        Ok(o)
    }

    fn scene(&self, command: &str) -> Result<&'static Scene, String> {
        let name = self
            .scene
            .as_ref()
            .ok_or(format!("{command} needs a scene\n{USAGE}"))?;
        scene_named(name)
    }

    fn single_thread_count(&self) -> Result<usize, String> {
        match self.threads.as_deref() {
            None => Ok(1),
            Some([t]) => Ok(*t),
            Some(_) => Err("--threads takes one number here (sweep takes a list)".to_string()),
        }
    }
}

fn scene_named(name: &str) -> Result<&'static Scene, String> {
    find(name).ok_or_else(|| {
        let names: Vec<_> = SCENES.iter().map(|s| s.name).collect();
        format!("no scene {name:?}; scenes: {}", names.join(", "))
    })
}

fn write_file(path: &str, text: String) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("writing {path}: {e}"))?;
    println!("wrote {path}");
    Ok(())
}

fn write_json(path: &str, v: &Value) -> Result<(), String> {
    let text = serde_json::to_string_pretty(v).map_err(|e| e.to_string())?;
    write_file(path, text + "\n")
}

fn run(args: &[String]) -> Result<(), String> {
    let o = Opts::parse(
        args,
        &[
            "--steps",
            "--threads",
            "--engine",
            "--sleep",
            "--json",
            "--save-image",
            "--image",
        ],
    )?;
    if let Some(path) = &o.image {
        return run_image(&o, path);
    }
    let scene = o.scene("run")?;
    let threads = o.single_thread_count()?;
    let engine = match o.engines.as_deref() {
        None => Engine::Impetus,
        Some([e]) => *e,
        Some(_) => return Err("--engine takes one engine".to_string()),
    };
    let steps = o.steps.unwrap_or(scene.default_steps).max(1);
    let label = match engine {
        Engine::Impetus => scene.name.to_string(),
        e => format!("{} {}", scene.name, e.name()),
    };
    let result = match &o.save_image {
        None => engine.run(scene, threads, steps, &label, o.sleep)?,
        Some(path) => {
            if engine != Engine::Impetus {
                return Err("--save-image needs --engine impetus".to_string());
            }
            let def = impetus::WorldDef {
                enable_sleep: o.sleep,
                ..world_def(threads)
            };
            let progress = progress_line(&label, steps);
            let (result, world) =
                run_scene_world(scene, def, steps, progress).map_err(|e| e.to_string())?;
            eprintln!();
            let mut image = Vec::new();
            world.save_image(&mut image);
            std::fs::write(path, &image).map_err(|e| format!("writing {path}: {e}"))?;
            println!("wrote {path} ({} bytes)", image.len());
            result
        }
    };
    println!("{}", result.table());
    if let Some(path) = &o.json {
        write_json(path, &result.to_json())?;
    }
    Ok(())
}

/// `run --image FILE`: loads a world from its image and steps it on, labelled with the
/// file's name.
fn run_image(o: &Opts, path: &str) -> Result<(), String> {
    if o.engines.as_deref().is_some_and(|e| e != [Engine::Impetus]) {
        return Err("--image runs impetus only".to_string());
    }
    let bytes = std::fs::read(path).map_err(|e| format!("reading {path}: {e}"))?;
    let mut world = match o.threads {
        None => impetus::World::from_image(&bytes),
        Some(_) => impetus::World::from_image_with_workers(&bytes, o.single_thread_count()?),
    }
    .map_err(|e| format!("{path}: {e}"))?;
    let steps = o.steps.unwrap_or(600).max(1);
    let label = std::path::Path::new(path)
        .file_name()
        .map_or(path.to_string(), |n| n.to_string_lossy().to_string());
    let progress = progress_line(&label, steps);
    let result = run_world(&mut world, &label, &[], steps, progress).map_err(|e| e.to_string())?;
    eprintln!();
    if let Some(out) = &o.save_image {
        let mut image = Vec::new();
        world.save_image(&mut image);
        std::fs::write(out, &image).map_err(|e| format!("writing {out}: {e}"))?;
        println!("wrote {out} ({} bytes)", image.len());
    }
    println!("{}", result.table());
    if let Some(out) = &o.json {
        write_json(out, &result.to_json())?;
    }
    Ok(())
}

/// The repetitions of one engine at one thread count.
struct Reps {
    runs: Vec<RunResult>,
}

impl Reps {
    /// The run whose median is the median of the repetitions' medians.
    fn representative(&self) -> &RunResult {
        let mut order: Vec<usize> = (0..self.runs.len()).collect();
        order.sort_by(|&a, &b| self.runs[a].median.total_cmp(&self.runs[b].median));
        &self.runs[order[order.len() / 2]]
    }

    fn median(&self) -> f64 {
        self.representative().median
    }

    /// The representative run's JSON object, with every repetition's median added.
    fn to_json(&self) -> Value {
        let mut v = self.representative().to_json();
        v["rep_medians"] = json!(self.runs.iter().map(|r| r.median).collect::<Vec<_>>());
        v
    }
}

/// What became of one engine at one thread count.
enum Outcome {
    /// It ran every repetition.
    Ran(Reps),
    /// It cannot build the scene (the reason).
    Skipped(String),
    /// A run failed (the error); the engine was not run again.
    Failed(String),
}

impl Outcome {
    fn ran(&self) -> Option<&Reps> {
        match self {
            Outcome::Ran(r) => Some(r),
            _ => None,
        }
    }
}

/// Where a long measurement is: runs done of all, and the time they took, for the
/// progress label's estimate of the time left.
struct Tally {
    done: usize,
    total: usize,
    started: Instant,
}

impl Tally {
    fn new(total: usize) -> Tally {
        Tally {
            done: 0,
            total,
            started: Instant::now(),
        }
    }

    /// `[run 4/30, ~12 min left] ` (no estimate before the first run is done).
    fn prefix(&self) -> String {
        if self.total <= 1 {
            return String::new();
        }
        let left = if self.done == 0 {
            String::new()
        } else {
            let per_run = self.started.elapsed().as_secs_f64() / self.done as f64;
            let minutes = per_run * (self.total - self.done) as f64 / 60.0;
            format!(", ~{minutes:.0} min left")
        };
        format!("[run {}/{}{left}] ", self.done + 1, self.total)
    }
}

/// Runs `engines` at each thread count, `reps` times, alternating engines (A B C A B C).
/// An engine that cannot build the scene is skipped with its reason; one whose run fails
/// is reported as failed and not run again, and the others go on.
fn measure_all(
    scene: &Scene,
    engines: &[Engine],
    threads: &[usize],
    steps: usize,
    reps: usize,
    tally: &mut Tally,
) -> Vec<Vec<Outcome>> {
    let mut out = Vec::new();
    for &t in threads {
        let mut per_engine: Vec<Outcome> = engines
            .iter()
            .map(|e| match e.skips(scene) {
                Some(why) => {
                    eprintln!("{} t{t}: skipping {}: {why}", scene.name, e.name());
                    Outcome::Skipped(why)
                }
                None => Outcome::Ran(Reps { runs: vec![] }),
            })
            .collect();
        for rep in 0..reps {
            for (k, e) in engines.iter().enumerate() {
                let Outcome::Ran(r) = &mut per_engine[k] else {
                    continue;
                };
                let label = format!(
                    "{}{} {:<7} t{t} rep {}/{reps}",
                    tally.prefix(),
                    scene.name,
                    e.name(),
                    rep + 1
                );
                match e.run(scene, t, steps, &label, false) {
                    Ok(run) => r.runs.push(run),
                    Err(error) => {
                        eprintln!("{} t{t}: {} failed: {error}", scene.name, e.name());
                        per_engine[k] = Outcome::Failed(error);
                    }
                }
                tally.done += 1;
            }
        }
        out.push(per_engine);
    }
    out
}

/// The runs of every engine in `row`, or the first engine's reason for having none.
fn all_ran<'a>(row: &'a [Outcome], engines: &[Engine]) -> Result<Vec<&'a Reps>, String> {
    row.iter()
        .zip(engines)
        .map(|(o, e)| match o {
            Outcome::Ran(r) => Ok(r),
            Outcome::Skipped(why) | Outcome::Failed(why) => Err(format!("{}: {why}", e.name())),
        })
        .collect()
}

/// The fastest peer's (any engine but impetus) name and median ms/step among `reps`.
fn best_peer(reps: &[&Reps]) -> Option<(String, f64)> {
    reps.iter()
        .filter(|r| !r.representative().engine.starts_with("impetus"))
        .map(|r| (r.representative().engine.clone(), r.median()))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

/// A text table with one column per engine.
fn comparison_table(reps: &[&Reps]) -> String {
    let reps_runs: Vec<&RunResult> = reps.iter().map(|r| r.representative()).collect();
    let mut s = String::new();
    let row = |s: &mut String, k: &str, cells: Vec<String>| {
        s.push_str(&format!("  {k:<24}"));
        for c in cells {
            s.push_str(&format!(" {c:>20}"));
        }
        s.push('\n');
    };
    let each = |f: &dyn Fn(&RunResult) -> String| reps_runs.iter().map(|r| f(r)).collect();
    row(&mut s, "", each(&|r| r.engine.clone()));
    row(&mut s, "threads", each(&|r| r.threads.to_string()));
    row(&mut s, "steps", each(&|r| r.steps.to_string()));
    row(&mut s, "dynamic bodies", each(&|r| r.bodies.to_string()));
    row(
        &mut s,
        "contacts / points",
        each(&|r| format!("{} / {}", r.contacts, r.points)),
    );
    let jointed = reps_runs.iter().any(|r| r.joints > 0);
    if jointed {
        row(&mut s, "joints", each(&|r| r.joints.to_string()));
    }
    row(
        &mut s,
        "ms/step median",
        reps.iter().map(|r| format!("{:.3}", r.median())).collect(),
    );
    if let Some((_, best)) = best_peer(reps) {
        row(
            &mut s,
            "ratio to best peer",
            reps.iter()
                .map(|r| format!("{:.3}", r.median() / best))
                .collect(),
        );
    }
    row(&mut s, "ms/step mean", each(&|r| format!("{:.3}", r.mean)));
    row(&mut s, "ms/step p95", each(&|r| format!("{:.3}", r.p95)));
    if reps.iter().any(|r| r.runs.len() > 1) {
        row(
            &mut s,
            "rep medians",
            reps.iter()
                .map(|r| {
                    let v: Vec<String> =
                        r.runs.iter().map(|x| format!("{:.2}", x.median)).collect();
                    v.join(" ")
                })
                .collect(),
        );
    }
    s.push_str("  stage medians (ms)\n");
    let mut names: Vec<&str> = Vec::new();
    for r in &reps_runs {
        for (n, _) in &r.stages {
            if !names.contains(n) {
                names.push(n);
            }
        }
    }
    for n in names {
        row(
            &mut s,
            &format!("  {n}"),
            each(&|r| {
                r.stages
                    .iter()
                    .find(|(m, _)| *m == n)
                    .map_or("-".to_string(), |(_, v)| format!("{v:.3}"))
            }),
        );
    }
    row(
        &mut s,
        "max displacement (m)",
        each(&|r| format!("{:.4}", r.stability.max_displacement)),
    );
    row(
        &mut s,
        "max speed (m/s)",
        each(&|r| format!("{:.4}", r.stability.max_speed)),
    );
    row(
        &mut s,
        "lowest point y (m)",
        each(&|r| format!("{:.4}", r.stability.min_y)),
    );
    row(
        &mut s,
        "max penetration (m)",
        each(&|r| format!("{:.4}", r.stability.max_penetration)),
    );
    if reps_runs
        .iter()
        .any(|r| r.stability.column_compression.is_some())
    {
        row(
            &mut s,
            "column compression (m)",
            each(&|r| {
                r.stability
                    .column_compression
                    .map_or("-".to_string(), |c| format!("{c:.5}"))
            }),
        );
    }
    if jointed {
        row(
            &mut s,
            "max joint error (m)",
            each(&|r| format!("{:.5}", r.stability.max_joint_error)),
        );
        row(
            &mut s,
            "max joint stretch",
            each(&|r| stretch_percent(r.stability.max_joint_stretch_ratio)),
        );
    }
    row(
        &mut s,
        "state hash",
        each(&|r| format!("{:016x}", r.state_hash)),
    );
    s
}

fn compare(args: &[String]) -> Result<(), String> {
    let o = Opts::parse(
        args,
        &[
            "--steps",
            "--threads",
            "--reps",
            "--engines",
            "--json",
            "--svg",
        ],
    )?;
    let scene = o.scene("compare")?;
    let threads = o.single_thread_count()?;
    let steps = o.steps.unwrap_or(scene.default_steps).max(1);
    let reps = o.reps.unwrap_or(3);
    let engines = o.engines.clone().unwrap_or_else(Engine::compiled_in);
    let mut tally = Tally::new(engines.len() * reps);
    let row = measure_all(scene, &engines, &[threads], steps, reps, &mut tally)
        .pop()
        .unwrap_or_default();
    let ran: Vec<&Reps> = row.iter().filter_map(Outcome::ran).collect();
    if ran.is_empty() {
        return Err(format!("no engine ran {}", scene.name));
    }
    let t = ran[0].representative().threads;
    println!(
        "compare {}: {t} thread(s), {steps} steps, {reps} rep(s) alternating\n",
        scene.name
    );
    for (o, e) in row.iter().zip(&engines) {
        match o {
            Outcome::Skipped(why) => println!("  {}: skipped: {why}", e.name()),
            Outcome::Failed(why) => println!("  {}: failed: {why}", e.name()),
            Outcome::Ran(_) => {}
        }
    }
    print!("{}", comparison_table(&ran));
    let best = best_peer(&ran);
    if let Some((name, ms)) = &best {
        println!("  {:<24} {name} ({ms:.3} ms/step)", "best peer");
    }
    if let Some(path) = &o.json {
        let v = json!({
            "scene": scene.name,
            "threads": t,
            "steps": steps,
            "reps": reps,
            "engines": ran.iter().map(|r| {
                let mut v = r.to_json();
                if let Some((_, ms)) = &best {
                    v["ratio_to_best_peer"] = json!(r.median() / ms);
                }
                v
            }).collect::<Vec<_>>(),
            "skipped": row.iter().zip(&engines).filter_map(|(o, e)| match o {
                Outcome::Skipped(why) => Some(json!({"engine": e.name(), "reason": why})),
                _ => None,
            }).collect::<Vec<_>>(),
            "failed": row.iter().zip(&engines).filter_map(|(o, e)| match o {
                Outcome::Failed(why) => Some(json!({"engine": e.name(), "error": why})),
                _ => None,
            }).collect::<Vec<_>>(),
            "best_peer": best.as_ref().map(|(name, ms)| json!({"engine": name, "ms_per_step": ms})),
        });
        write_json(path, &v)?;
    }
    if let Some(path) = &o.svg {
        let bars: Vec<(String, f64)> = ran
            .iter()
            .map(|r| (r.representative().engine.clone(), r.median()))
            .collect();
        let title = format!("{}: ms/step, {t} thread(s)", scene.name);
        write_file(path, bar_chart(&title, &bars))?;
    }
    Ok(())
}

fn sweep(args: &[String]) -> Result<(), String> {
    let o = Opts::parse(
        args,
        &[
            "--steps",
            "--threads",
            "--reps",
            "--engines",
            "--json",
            "--svg",
        ],
    )?;
    let scene = o.scene("sweep")?;
    let threads = o
        .threads
        .clone()
        .ok_or(format!("sweep needs --threads, e.g. 1,2,4\n{USAGE}"))?;
    let engines = o
        .engines
        .clone()
        .unwrap_or(vec![Engine::Impetus, Engine::Rapier]);
    let steps = o.steps.unwrap_or(scene.default_steps).max(1);
    let reps = o.reps.unwrap_or(1);
    let mut tally = Tally::new(engines.len() * reps * threads.len());
    let measured = measure_all(scene, &engines, &threads, steps, reps, &mut tally);
    let all: Vec<Vec<&Reps>> = measured
        .iter()
        .map(|row| all_ran(row, &engines))
        .collect::<Result<_, _>>()?;

    println!(
        "sweep {}: {steps} steps, {reps} rep(s); ms/step median (speed-up over the first row)\n",
        scene.name
    );
    let mut header = format!("  {:>7}", "threads");
    for r in &all[0] {
        header.push_str(&format!(" {:>24}", r.representative().engine));
    }
    let both = engines.contains(&Engine::Impetus) && engines.contains(&Engine::Rapier);
    if both {
        header.push_str(&format!(" {:>16}", "impetus/rapier"));
    }
    println!("{header}");
    for row in &all {
        let mut line = format!("  {:>7}", row[0].representative().threads);
        for (k, r) in row.iter().enumerate() {
            let speedup = all[0][k].median() / r.median();
            line.push_str(&format!(
                " {:>24}",
                format!("{:.3} ({speedup:.2}x)", r.median())
            ));
        }
        if both {
            let i = engines
                .iter()
                .position(|&e| e == Engine::Impetus)
                .unwrap_or(0);
            let j = engines
                .iter()
                .position(|&e| e == Engine::Rapier)
                .unwrap_or(0);
            line.push_str(&format!(" {:>16.3}", row[i].median() / row[j].median()));
        }
        println!("{line}");
    }
    println!("\n  stability at the last thread count:");
    print!("{}", comparison_table(&all[all.len() - 1]));

    if let Some(path) = &o.json {
        let v = json!({
            "scene": scene.name,
            "steps": steps,
            "reps": reps,
            "threads": all.iter().map(|row| row[0].representative().threads).collect::<Vec<_>>(),
            "engines": all[0].iter().map(|r| r.representative().engine.clone()).collect::<Vec<_>>(),
            "results": all.iter().flatten().map(|r| r.to_json()).collect::<Vec<_>>(),
        });
        write_json(path, &v)?;
    }
    if let Some(path) = &o.svg {
        let series: Vec<Series> = (0..engines.len())
            .map(|k| Series {
                name: all[0][k].representative().engine.clone(),
                points: all
                    .iter()
                    .map(|row| (row[k].representative().threads as f64, row[k].median()))
                    .collect(),
            })
            .collect();
        let title = format!("{}: ms/step against threads ({steps} steps)", scene.name);
        write_file(path, scaling_chart(&title, &series))?;
    }
    Ok(())
}

/// The machine for the report's caption: the CPU model from /proc/cpuinfo and the cores
/// this process may use.
fn machine() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{model}, {cores} cores")
}

/// Today's date (UTC) as YYYY-MM-DD, from the system clock (the civil-from-days
/// conversion of the proleptic Gregorian calendar).
fn utc_date() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// The 1-, 5- and 15-minute load averages from /proc/loadavg, e.g. `1.02 0.87 0.60`.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|| "unknown".to_string())
}

/// How a report was made, for its text and its results file.
struct ReportInfo {
    command: String,
    machine: String,
    date: String,
    reps: usize,
    /// Load averages when the report began and when it ended.
    load: (String, String),
}

/// A figure for the report's tables: fixed decimals, or a dash.
fn cell(v: Option<f64>, decimals: usize) -> String {
    v.map_or("–".to_string(), |v| format!("{v:.decimals$}"))
}

/// The measurements of one scene: per thread count, one outcome per engine.
struct SceneReport {
    scene: &'static Scene,
    steps: usize,
    rows: Vec<Vec<Outcome>>,
}

fn report(args: &[String]) -> Result<(), String> {
    let o = Opts::parse(
        args,
        &[
            "--steps",
            "--threads",
            "--reps",
            "--engines",
            "--scenes",
            "--out",
        ],
    )?;
    let threads = o.threads.clone().unwrap_or(vec![1, 2]);
    let engines = o.engines.clone().unwrap_or_else(Engine::compiled_in);
    let scenes: Vec<&'static Scene> = o.scenes.clone().unwrap_or_else(|| SCENES.iter().collect());
    let reps = o.reps.unwrap_or(3);
    let out = o
        .out
        .clone()
        .unwrap_or_else(|| "docs/benchmarks".to_string());
    std::fs::create_dir_all(&out).map_err(|e| format!("creating {out}: {e}"))?;
    let total: usize = scenes
        .iter()
        .map(|s| engines.iter().filter(|e| e.skips(s).is_none()).count())
        .sum::<usize>()
        * reps
        * threads.len();
    let mut tally = Tally::new(total);
    let (machine, date) = (machine(), utc_date());
    let load_start = load_average();
    let mut measured = Vec::new();
    for &scene in &scenes {
        let steps = o.steps.unwrap_or(scene.default_steps).max(1);
        let rows = measure_all(scene, &engines, &threads, steps, reps, &mut tally);
        let report = SceneReport { scene, steps, rows };
        let path = format!("{out}/{}.svg", scene.name);
        write_file(
            &path,
            scene_chart(&report, &engines, &threads, reps, &machine, &date),
        )?;
        measured.push(report);
    }
    let info = ReportInfo {
        command: format!("impetus-bench report {}", args.join(" ")),
        machine,
        date,
        reps,
        load: (load_start, load_average()),
    };
    let readme = report_markdown(&measured, &engines, &threads, &info);
    write_file(&format!("{out}/README.md"), readme)?;
    let results = json!({
        "command": info.command,
        "machine": info.machine,
        "date": info.date,
        "load_average": { "start": info.load.0, "end": info.load.1 },
        "reps": reps,
        "threads": threads,
        "scenes": measured.iter().map(|m| json!({
            "scene": m.scene.name,
            "steps": m.steps,
            "results": m.rows.iter().zip(&threads).map(|(row, t)| json!({
                "threads": t,
                "engines": row.iter().zip(&engines).map(|(o, e)| match o {
                    Outcome::Ran(r) => r.to_json(),
                    Outcome::Skipped(why) => json!({"engine": e.name(), "skipped": why}),
                    Outcome::Failed(why) => json!({"engine": e.name(), "failed": why}),
                }).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    });
    write_json(&format!("{out}/results.json"), &results)
}

/// One scene's chart: ms/step per engine, grouped by thread count.
fn scene_chart(
    m: &SceneReport,
    engines: &[Engine],
    threads: &[usize],
    reps: usize,
    machine: &str,
    date: &str,
) -> String {
    let groups: Vec<String> = threads
        .iter()
        .map(|t| format!("{t} thread{}", if *t == 1 { "" } else { "s" }))
        .collect();
    let series: Vec<BarSeries> = engines
        .iter()
        .enumerate()
        .map(|(k, e)| {
            let name = m
                .rows
                .iter()
                .find_map(|row| row[k].ran().map(|r| r.representative().engine.clone()))
                .unwrap_or_else(|| format!("{} (not run)", e.name()));
            BarSeries {
                name,
                values: m
                    .rows
                    .iter()
                    .map(|row| row[k].ran().map(Reps::median))
                    .collect(),
            }
        })
        .collect();
    grouped_bar_chart(
        &format!(
            "{}: ms per step ({} steps, median of {reps} reps)",
            m.scene.name, m.steps
        ),
        "worker threads",
        "ms per step (median)",
        &format!("{machine} · {date} · impetus-bench report"),
        &groups,
        &series,
    )
}

/// The report's README: how it was made, impetus against the best peer per scene, then
/// per thread count a table of every engine's time and stability figures and the stage
/// splits of the engines that report one.
fn report_markdown(
    measured: &[SceneReport],
    engines: &[Engine],
    threads: &[usize],
    info: &ReportInfo,
) -> String {
    let ReportInfo {
        command,
        machine,
        date,
        reps,
        load,
    } = info;
    let mut s = String::new();
    let mut line = |text: String| {
        s.push_str(&text);
        s.push('\n');
    };
    line("# Benchmarks: impetus beside its peers".into());
    line(String::new());
    line(format!(
        "Measured on {machine}, {date}, by `{command}` (built with `cargo run --release -p \
         impetus-scenes --features peers --bin impetus-bench -- report ...`). Each scene is \
         built from its recipe (docs/SCENES.md) by every engine and stepped the number of \
         steps below; each figure is the median ms/step over the steps after the warm-up, \
         and the median of {reps} repetitions with the engines alternating (A B C A B C), on \
         a shared machine. Ratios are an engine's time over the fastest peer's (impetus \
         excluded): below 1 is faster than every peer. The peers' settings and the way \
         their stability figures are measured are in docs/SCENES.md (\"Peer engines\") and \
         in each adapter's module doc (bench-scenes/src/rapier.rs, box3d.rs, physx.rs, \
         jolt.rs). `results.json` beside this file has every figure."
    ));
    line(String::new());
    line(format!(
        "Load averages (1, 5, 15 min) when the report began: {}; when it ended: {}. A load \
         above the core count means the engines shared the cores with other work: every \
         engine is slowed, and the gain from a second thread is hidden.",
        load.0, load.1
    ));
    line(String::new());
    line("## impetus against the fastest peer".into());
    line(String::new());
    let mut header = "| scene | steps |".to_string();
    let mut rule = "|---|---:|".to_string();
    for t in threads {
        header.push_str(&format!(" {t} thread(s): impetus / best peer |"));
        rule.push_str("---|");
    }
    line(header);
    line(rule);
    for m in measured {
        let mut row = format!("| {} | {} |", m.scene.name, m.steps);
        for r in &m.rows {
            let ran: Vec<&Reps> = r.iter().filter_map(Outcome::ran).collect();
            let impetus = ran
                .iter()
                .find(|x| x.representative().engine.starts_with("impetus"));
            match (impetus, best_peer(&ran)) {
                (Some(i), Some((name, best))) => row.push_str(&format!(
                    " **{:.2}** ({:.2} ms vs {name} {best:.2} ms) |",
                    i.median() / best,
                    i.median()
                )),
                _ => row.push_str(" – |"),
            }
        }
        line(row);
    }
    for (ti, t) in threads.iter().enumerate() {
        line(String::new());
        line(format!("## {t} thread(s)"));
        line(String::new());
        line(
            "| scene | engine | ms/step | ratio to best peer | p95 ms | contacts | max displacement (m) \
             | max speed (m/s) | max penetration (m) | max joint error (m) |"
                .into(),
        );
        line("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|".into());
        for m in measured {
            let row = &m.rows[ti];
            let ran: Vec<&Reps> = row.iter().filter_map(Outcome::ran).collect();
            let best = best_peer(&ran).map(|b| b.1);
            for (o, e) in row.iter().zip(engines) {
                match o {
                    Outcome::Ran(r) => {
                        let x = r.representative();
                        let st = &x.stability;
                        line(format!(
                            "| {} | {} | {:.3} | {} | {:.3} | {} | {:.4} | {:.4} | {:.4} | {} |",
                            m.scene.name,
                            x.engine,
                            r.median(),
                            cell(best.map(|b| r.median() / b), 2),
                            x.p95,
                            x.contacts,
                            st.max_displacement,
                            st.max_speed,
                            st.max_penetration,
                            if x.joints > 0 {
                                format!("{:.5}", st.max_joint_error)
                            } else {
                                "–".to_string()
                            }
                        ))
                    }
                    Outcome::Skipped(why) => line(format!(
                        "| {} | {} | skipped: {why} | | | | | | | |",
                        m.scene.name,
                        e.name()
                    )),
                    Outcome::Failed(why) => line(format!(
                        "| {} | {} | failed: {why} | | | | | | | |",
                        m.scene.name,
                        e.name()
                    )),
                }
            }
        }
        line(String::new());
        line(format!(
            "Stage split at {t} thread(s), median ms per stage (engines that report one; \
             rapier's stages are its own counters, Box3D's are mapped onto impetus's names):"
        ));
        for m in measured {
            let ran: Vec<&RunResult> = m.rows[ti]
                .iter()
                .filter_map(Outcome::ran)
                .map(Reps::representative)
                .filter(|r| !r.stages.is_empty())
                .collect();
            if ran.is_empty() {
                continue;
            }
            let mut names: Vec<&str> = Vec::new();
            for r in &ran {
                for (n, _) in &r.stages {
                    if !names.contains(n) {
                        names.push(n);
                    }
                }
            }
            line(String::new());
            line(format!("`{}`:", m.scene.name));
            line(String::new());
            let mut header = "| stage |".to_string();
            let mut rule = "|---|".to_string();
            for r in &ran {
                header.push_str(&format!(" {} |", r.engine));
                rule.push_str("---:|");
            }
            line(header);
            line(rule);
            for n in names {
                let mut row = format!("| {n} |");
                for r in &ran {
                    let v = r.stages.iter().find(|(m, _)| *m == n).map(|(_, v)| *v);
                    row.push_str(&format!(" {} |", cell(v, 3)));
                }
                line(row);
            }
        }
    }
    line(String::new());
    line("## Charts".into());
    for m in measured {
        line(String::new());
        line(format!("![{0}]({0}.svg)", m.scene.name));
    }
    s
}
