//! `impetus-bench compare` and `sweep`, and the measurement they share with `report`:
//! every engine run on a scene at each thread count, the repetitions alternating engines,
//! and the comparison table.

use crate::cli::{CompareArgs, SweepArgs};
use crate::cores;
use crate::engine::Engine;
use crate::{write_file, write_json};
use impetus_scenes::chart::{bar_chart, scaling_chart, Series};
use impetus_scenes::measure::{fell_apart, stretch_percent};
use impetus_scenes::{RunResult, Scene};
use serde_json::{json, Value};
use std::time::Instant;

/// The repetitions of one engine at one thread count.
pub struct Reps {
    runs: Vec<RunResult>,
    /// For each run at two threads or more, the CPUs' round trip (ns) just before and just
    /// after it ([`cores::round_trip_ns`]); empty at one thread.
    round_trips: Vec<[Option<f64>; 2]>,
    /// Why the representative run fell apart ([`fell_apart`]), or `None` when it kept
    /// the scene standing.
    pub fell: Option<String>,
}

impl Reps {
    /// The repetitions `runs` of one engine, with why they fell apart (`fell`).
    #[cfg(test)]
    pub fn of(runs: Vec<RunResult>, fell: Option<String>) -> Reps {
        Reps {
            runs,
            round_trips: vec![],
            fell,
        }
    }

    /// The run whose median is the median of the repetitions' medians.
    pub fn representative(&self) -> &RunResult {
        let mut order: Vec<usize> = (0..self.runs.len()).collect();
        order.sort_by(|&a, &b| self.runs[a].median.total_cmp(&self.runs[b].median));
        &self.runs[order[order.len() / 2]]
    }

    pub fn median(&self) -> f64 {
        self.representative().median
    }

    /// The representative run's JSON object, with every repetition's median and whether
    /// it fell apart added.
    pub fn to_json(&self) -> Value {
        let mut v = self.representative().to_json();
        v["rep_medians"] = json!(self.runs.iter().map(|r| r.median).collect::<Vec<_>>());
        if !self.round_trips.is_empty() {
            v["rep_round_trip_ns"] = json!(self.round_trips);
        }
        v["fell_apart"] = json!(self.fell);
        v
    }

    /// Each repetition's median ms/step, in the order they ran, with `decimals` decimals
    /// and `sep` between them; at two threads or more each followed by the larger of the
    /// CPUs' round trips around it, `1.86 (390 ns)`.
    pub fn rep_medians(&self, decimals: usize, sep: &str) -> String {
        let v: Vec<String> = self
            .runs
            .iter()
            .enumerate()
            .map(|(k, x)| match self.round_trips.get(k) {
                Some(&[before, after]) => {
                    let ns = before.into_iter().chain(after).reduce(f64::max);
                    format!("{:.*} ({})", decimals, x.median, cores::show(ns))
                }
                None => format!("{:.*}", decimals, x.median),
            })
            .collect();
        v.join(sep)
    }

    /// How many runs had the CPUs apart (a round trip at or above
    /// [`cores::SHARED_CACHE_NS`] before or after), of how many were measured.
    pub fn runs_apart(&self) -> (usize, usize) {
        let apart = self
            .round_trips
            .iter()
            .filter(|r| r.iter().flatten().any(|&ns| ns >= cores::SHARED_CACHE_NS))
            .count();
        (apart, self.round_trips.len())
    }

    /// Whether this is a peer's run (any engine but impetus).
    pub fn is_peer(&self) -> bool {
        !self.representative().engine.starts_with("impetus")
    }
}

/// A made-up run of `engine` on the pyramid whose median is `median` ms (for the tests of
/// the tables).
#[cfg(test)]
pub fn sample_run(engine: &str, median: f64) -> RunResult {
    RunResult {
        engine: engine.into(),
        scene: "pyramid".into(),
        threads: 1,
        steps: 20,
        bodies: 820,
        contacts: 2380,
        points: 9520,
        joints: 0,
        particles: [0; 3],
        median,
        mean: median,
        p95: median,
        tail: median,
        stages: vec![("solve", 0.1)],
        step_ms: vec![],
        stability: impetus_scenes::measure::Stability::default(),
        state_hash: 0,
    }
}

/// What became of one engine at one thread count.
pub enum Outcome {
    /// It ran every repetition.
    Ran(Reps),
    /// It cannot build the scene (the reason).
    Skipped(String),
    /// A run failed (the error); the engine was not run again.
    Failed(String),
}

impl Outcome {
    pub fn ran(&self) -> Option<&Reps> {
        match self {
            Outcome::Ran(r) => Some(r),
            _ => None,
        }
    }
}

/// Where a long measurement is: runs done of all, and the time they took, for the
/// progress label's estimate of the time left.
pub struct Tally {
    done: usize,
    total: usize,
    started: Instant,
}

impl Tally {
    pub fn new(total: usize) -> Tally {
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

/// How [`measure_all`] runs each engine: the steps of a run, the repetitions, and whether
/// a run at two threads or more first waits for the CPUs to share a cache.
pub struct Runs {
    pub steps: usize,
    pub reps: usize,
    pub near_cpus: bool,
}

/// Runs `engines` at each thread count, `reps` times, alternating engines (A B C A B C).
/// An engine that cannot build the scene is skipped with its reason; one whose run fails
/// is reported as failed and not run again, and the others go on.
///
/// At two threads or more, each run is measured between two round trips of a cache line
/// between the first two CPUs ([`cores::round_trip_ns`]); with `runs.near_cpus`, a run first
/// waits ([`cores::wait_near`]) until the CPUs share a cache.
pub fn measure_all(
    scene: &Scene,
    engines: &[Engine],
    threads: &[usize],
    runs: &Runs,
    tally: &mut Tally,
) -> Vec<Vec<Outcome>> {
    let &Runs {
        steps,
        reps,
        near_cpus,
    } = runs;
    let mut out = Vec::new();
    for &t in threads {
        let mut per_engine: Vec<Outcome> = engines
            .iter()
            .map(|e| match e.skips_threads(t).or_else(|| e.skips(scene)) {
                Some(why) => {
                    eprintln!("{} t{t}: skipping {}: {why}", scene.name, e.name());
                    Outcome::Skipped(why)
                }
                None => Outcome::Ran(Reps {
                    runs: vec![],
                    round_trips: vec![],
                    fell: None,
                }),
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
                let before = (t != 1).then(|| cores::wait_near(near_cpus)).flatten();
                let result = e.run(scene, t, steps, &label, false);
                if t != 1 {
                    r.round_trips.push([before, cores::round_trip_ns()]);
                }
                match result {
                    Ok(run) => r.runs.push(run),
                    Err(error) => {
                        eprintln!("{} t{t}: {} failed: {error}", scene.name, e.name());
                        per_engine[k] = Outcome::Failed(error);
                    }
                }
                tally.done += 1;
            }
        }
        let recipe = (scene.recipe)(&impetus_scenes::Params::default());
        for o in &mut per_engine {
            if let Outcome::Ran(r) = o {
                if !r.runs.is_empty() {
                    r.fell = fell_apart(&recipe, &r.representative().stability);
                }
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

/// Which peers [`best_peer`] chooses among.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peers {
    /// Only the peers that kept the scene standing ([`fell_apart`] found nothing): a peer
    /// whose scene fell apart did less work than the scene asks for, so its time is not a
    /// fair mark.
    Standing,
    /// Every peer.
    All,
}

/// The fastest peer's (any engine but impetus) name and median ms/step among `reps`.
pub fn best_peer(reps: &[&Reps], which: Peers) -> Option<(String, f64)> {
    reps.iter()
        .filter(|r| r.is_peer() && (which == Peers::All || r.fell.is_none()))
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
    if let Some((_, best)) = best_peer(reps, Peers::Standing) {
        row(
            &mut s,
            "ratio to best standing peer",
            reps.iter()
                .map(|r| format!("{:.3}", r.median() / best))
                .collect(),
        );
    }
    if let Some((_, best)) = best_peer(reps, Peers::All) {
        row(
            &mut s,
            "ratio to best peer (all)",
            reps.iter()
                .map(|r| format!("{:.3}", r.median() / best))
                .collect(),
        );
    }
    row(
        &mut s,
        "kept the scene standing",
        reps.iter()
            .map(|r| match &r.fell {
                None => "yes".to_string(),
                Some(_) => "NO (see below)".to_string(),
            })
            .collect(),
    );
    row(&mut s, "ms/step mean", each(&|r| format!("{:.3}", r.mean)));
    row(&mut s, "ms/step p95", each(&|r| format!("{:.3}", r.p95)));
    if reps.iter().any(|r| r.runs.len() > 1) {
        row(
            &mut s,
            "rep medians",
            reps.iter().map(|r| r.rep_medians(2, " ")).collect(),
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
        "max sideways drift (m)",
        each(&|r| format!("{:.4}", r.stability.max_drift)),
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

/// `compare <scene>`: every engine (or those given) on the scene at one thread count, the
/// table of them side by side and the fastest peer.
pub fn compare(o: &CompareArgs) -> Result<(), String> {
    let scene = o.scene;
    let threads = o.threads;
    let steps = o.steps.unwrap_or(scene.default_steps).max(1);
    let reps = o.reps.max(1);
    let engines = o.engines.clone().unwrap_or_else(Engine::defaults);
    check_builds(&engines)?;
    let mut tally = Tally::new(engines.len() * reps);
    let runs = Runs {
        steps,
        reps,
        near_cpus: o.near_cpus,
    };
    let row = measure_all(scene, &engines, &[threads], &runs, &mut tally)
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
    for r in &ran {
        if let Some(why) = &r.fell {
            println!("  {} fell apart: {why}", r.representative().engine);
        }
    }
    let best = best_peer(&ran, Peers::Standing);
    if let Some((name, ms)) = &best {
        println!("  {:<24} {name} ({ms:.3} ms/step)", "best standing peer");
    }
    if let Some((name, ms)) = best_peer(&ran, Peers::All) {
        println!("  {:<24} {name} ({ms:.3} ms/step)", "best peer (all)");
    }
    for e in &engines {
        if let Some(build) = e.build() {
            println!("  {:<24} {build}", format!("{} build", e.name()));
        }
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
            "best_peer_rule": "the fastest peer that kept the scene standing",
            "builds": engines.iter().filter_map(|e| e.build().map(|b| json!({"engine": e.name(), "build": b}))).collect::<Vec<_>>(),
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

/// Why a build of impetus-bench whose engine has the `validate` feature does not time it.
pub const VALIDATE_BUILD: &str = "this impetus-bench was built with the engine's `validate` \
     feature (as `cargo test` builds it: the tests' dev-dependency turns it on), so every step \
     also checks the solver's invariants and impetus's times would be too long. Build it for \
     timing with `cargo build --release -p impetus-scenes --bin impetus-bench` (or use \
     `cargo run --release ...`, which does)";

/// Refuses to measure a peer whose library was built with its asserts on (a checked or
/// debug build, slower than its authors ship it), naming the peer and its build, and to
/// time impetus in a build that checks its invariants every step ([`VALIDATE_BUILD`]).
pub fn check_builds(engines: &[Engine]) -> Result<(), String> {
    if impetus::VALIDATES && engines.contains(&Engine::Impetus) {
        return Err(VALIDATE_BUILD.to_string());
    }
    for e in engines {
        if e.asserts() {
            return Err(format!(
                "{} was built with its asserts on ({}); a benchmark measures peers as their \
                 authors ship them. Build with this workspace's release profile and \
                 .cargo/config.toml (CFLAGS/CXXFLAGS -O3 -DNDEBUG, no debug info for the \
                 -sys crates)",
                e.name(),
                e.build().unwrap_or_default()
            ));
        }
    }
    Ok(())
}

/// `sweep <scene> --threads T,T`: the engines at each thread count, ms/step with the
/// speed-up over the first thread count, then the table at the last.
pub fn sweep(o: &SweepArgs) -> Result<(), String> {
    let scene = o.scene;
    let threads = o.threads.clone();
    let engines = o
        .engines
        .clone()
        .unwrap_or(vec![Engine::Impetus, Engine::Rapier]);
    check_builds(&engines)?;
    let steps = o.steps.unwrap_or(scene.default_steps).max(1);
    let reps = o.reps.max(1);
    let mut tally = Tally::new(engines.len() * reps * threads.len());
    let runs = Runs {
        steps,
        reps,
        near_cpus: o.near_cpus,
    };
    let measured = measure_all(scene, &engines, &threads, &runs, &mut tally);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Each repetition is listed with the larger of the CPUs' round trips around it (none
    /// at one thread), and a run counts as apart when either round trip reaches the
    /// threshold.
    #[test]
    fn repetitions_are_listed_with_the_cpus_round_trips() {
        let run = |median: f64| sample_run("impetus 0.1.0", median);
        let mut reps = Reps::of(vec![run(1.0), run(2.0), run(1.5)], None);
        assert_eq!(reps.rep_medians(2, " / "), "1.00 / 2.00 / 1.50");
        assert_eq!(reps.runs_apart(), (0, 0));
        reps.round_trips = vec![
            [Some(100.0), Some(120.0)],
            [Some(390.0), None],
            [Some(90.0), Some(cores::SHARED_CACHE_NS)],
        ];
        assert_eq!(
            reps.rep_medians(2, " / "),
            "1.00 (120 ns) / 2.00 (390 ns) / 1.50 (250 ns)"
        );
        assert_eq!(reps.runs_apart(), (2, 3));
        reps.round_trips[1] = [None, None];
        assert_eq!(
            reps.rep_medians(1, " "),
            "1.0 (120 ns) 2.0 (–) 1.5 (250 ns)"
        );
    }

    /// A build whose engine checks its invariants every step (as the tests build it) is
    /// refused for timing impetus, and only for that.
    #[test]
    fn a_validating_build_does_not_time_impetus() {
        assert_eq!(
            check_builds(&[Engine::Impetus]).is_err(),
            impetus::VALIDATES
        );
        assert!(check_builds(&[]).is_ok());
    }
}
