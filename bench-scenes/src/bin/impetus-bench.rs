//! `impetus-bench`: run the standard scenes and print what they cost, alone or beside
//! rapier3d.
//!
//! ```text
//! impetus-bench list
//! impetus-bench run <scene> [--steps N] [--threads T] [--engine E] [--sleep] [--json FILE]
//! impetus-bench compare <scene> [--threads T] [--steps N] [--reps R] [--json FILE] [--svg FILE]
//! impetus-bench sweep <scene> --threads 1,2,4 [--steps N] [--reps R] [--engines E,E]
//!                     [--json FILE] [--svg FILE]
//! ```

use impetus_scenes::chart::{bar_chart, scaling_chart, Series};
use impetus_scenes::measure::stretch_percent;
use impetus_scenes::{find, run_scene_with, world_def, RunResult, Scene, SCENES};
use serde_json::{json, Value};
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "usage:
  impetus-bench list
  impetus-bench run <scene> [--steps N] [--threads T] [--engine E] [--sleep] [--json FILE]
  impetus-bench compare <scene> [--threads T] [--steps N] [--reps R] [--json FILE] [--svg FILE]
  impetus-bench sweep <scene> --threads 1,2,4 [--steps N] [--reps R] [--engines E,E]
                      [--json FILE] [--svg FILE]

  --steps N      steps to run (default: the scene's, 600 for the standard scenes)
  --threads T    worker threads (default 1; 0 = all cores); sweep: a list, e.g. 1,2,4
  --engine E     run: impetus (default) or rapier
  --sleep        run: let impetus's islands sleep (the scenes run with sleep off)
  --engines E,E  sweep: the engines to run (default impetus,rapier)
  --reps R       repetitions, engines alternating A B A B (compare: 3, sweep: 1); the
                 figure reported is the median of the repetitions' medians
  --json FILE    also write the results as JSON
  --svg FILE     compare, sweep: also draw ms/step per engine (and thread count) as SVG";

fn main() -> ExitCode {
    impetus_profiling::start();
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

/// The engines the bench can run.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Engine {
    Impetus,
    Rapier,
}

impl Engine {
    fn parse(s: &str) -> Result<Engine, String> {
        match s {
            "impetus" => Ok(Engine::Impetus),
            "rapier" | "rapier3d" => Ok(Engine::Rapier),
            _ => Err(format!("unknown engine {s:?}; engines: impetus, rapier")),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Engine::Impetus => "impetus",
            Engine::Rapier => "rapier",
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
            #[cfg(not(feature = "rapier"))]
            Engine::Rapier => {
                let _ = progress;
                Err("this impetus-bench was built without the `rapier` feature".to_string())
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

/// The command-line options of `run`, `compare` and `sweep`.
#[derive(Default)]
struct Opts {
    scene: Option<String>,
    steps: Option<usize>,
    threads: Option<Vec<usize>>,
    reps: Option<usize>,
    engines: Option<Vec<Engine>>,
    json: Option<String>,
    svg: Option<String>,
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
                "--json" => o.json = Some(value()?),
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
        find(name).ok_or_else(|| {
            let names: Vec<_> = SCENES.iter().map(|s| s.name).collect();
            format!("no scene {name:?}; scenes: {}", names.join(", "))
        })
    }

    fn single_thread_count(&self) -> Result<usize, String> {
        match self.threads.as_deref() {
            None => Ok(1),
            Some([t]) => Ok(*t),
            Some(_) => Err("--threads takes one number here (sweep takes a list)".to_string()),
        }
    }
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
        &["--steps", "--threads", "--engine", "--sleep", "--json"],
    )?;
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
    let result = engine.run(scene, threads, steps, &label, o.sleep)?;
    println!("{}", result.table());
    if let Some(path) = &o.json {
        write_json(path, &result.to_json())?;
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

/// Runs `engines` at each thread count, `reps` times, alternating engines (A B A B).
fn measure_all(
    scene: &Scene,
    engines: &[Engine],
    threads: &[usize],
    steps: usize,
    reps: usize,
) -> Result<Vec<Vec<Reps>>, String> {
    let mut out = Vec::new();
    for &t in threads {
        let mut per_engine: Vec<Reps> = engines.iter().map(|_| Reps { runs: vec![] }).collect();
        for rep in 0..reps {
            for (k, e) in engines.iter().enumerate() {
                let label = format!("{} {:<7} t{t} rep {}/{reps}", scene.name, e.name(), rep + 1);
                per_engine[k]
                    .runs
                    .push(e.run(scene, t, steps, &label, false)?);
            }
        }
        out.push(per_engine);
    }
    Ok(out)
}

/// A text table with one column per engine.
fn comparison_table(reps: &[Reps]) -> String {
    let reps_runs: Vec<&RunResult> = reps.iter().map(Reps::representative).collect();
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
    let o = Opts::parse(args, &["--steps", "--threads", "--reps", "--json", "--svg"])?;
    let scene = o.scene("compare")?;
    let threads = o.single_thread_count()?;
    let steps = o.steps.unwrap_or(scene.default_steps).max(1);
    let reps = o.reps.unwrap_or(3);
    let engines = [Engine::Impetus, Engine::Rapier];
    let mut all = measure_all(scene, &engines, &[threads], steps, reps)?;
    let results = all.pop().unwrap_or_default();
    let ratio = results[0].median() / results[1].median();
    println!(
        "compare {}: {} thread(s), {steps} steps, {reps} rep(s) alternating\n",
        scene.name,
        results[0].representative().threads
    );
    print!("{}", comparison_table(&results));
    println!("  {:<24} {ratio:>20.3}", "ratio impetus/rapier");
    if let Some(path) = &o.json {
        let v = json!({
            "scene": scene.name,
            "threads": results[0].representative().threads,
            "steps": steps,
            "reps": reps,
            "engines": results.iter().map(Reps::to_json).collect::<Vec<_>>(),
            "ratio": ratio,
        });
        write_json(path, &v)?;
    }
    if let Some(path) = &o.svg {
        let t = results[0].representative().threads;
        let bars: Vec<(String, f64)> = results
            .iter()
            .map(|r| (r.representative().engine.clone(), r.median()))
            .collect();
        let title = format!(
            "{}: ms/step, {t} thread(s), impetus/rapier = {ratio:.2}",
            scene.name
        );
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
    let all = measure_all(scene, &engines, &threads, steps, reps)?;

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
            "results": all.iter().flatten().map(Reps::to_json).collect::<Vec<_>>(),
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
