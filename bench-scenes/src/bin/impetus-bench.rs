//! `impetus-bench`: run the standard scenes and print what they cost.
//!
//! ```text
//! impetus-bench list
//! impetus-bench run <scene> [--steps N] [--threads T] [--json FILE]
//! ```

use impetus_scenes::{find, run_scene, SCENES};
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "usage:
  impetus-bench list
  impetus-bench run <scene> [--steps N] [--threads T] [--json FILE]

  --steps N     steps to run (default: the scene's, 600 for the standard scenes)
  --threads T   worker threads (default 1; 0 = all cores)
  --json FILE   also write the results as JSON";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("list") => {
            println!("{:<16} {:>8}  description", "scene", "bodies");
            for s in SCENES {
                println!("{:<16} {:>8}  {}", s.name, s.bodies, s.description);
            }
            ExitCode::SUCCESS
        }
        Some("run") => match run(&args[1..]) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("impetus-bench: {e}");
                ExitCode::FAILURE
            }
        },
        _ => {
            eprintln!("{USAGE}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let mut scene_name = None;
    let (mut steps, mut threads, mut json) = (None, 1usize, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| it.next().cloned().ok_or(format!("{flag} needs a value"));
        match a.as_str() {
            "--steps" => {
                steps = Some(
                    value("--steps")?
                        .parse::<usize>()
                        .map_err(|e| format!("--steps: {e}"))?,
                )
            }
            "--threads" => {
                threads = value("--threads")?
                    .parse()
                    .map_err(|e| format!("--threads: {e}"))?
            }
            "--json" => json = Some(value("--json")?),
            s if s.starts_with("--") => return Err(format!("unknown option {s}\n{USAGE}")),
            s => scene_name = Some(s.to_string()),
        }
    }
    let name = scene_name.ok_or(format!("run needs a scene\n{USAGE}"))?;
    let scene = find(&name).ok_or_else(|| {
        let names: Vec<_> = SCENES.iter().map(|s| s.name).collect();
        format!("no scene {name:?}; scenes: {}", names.join(", "))
    })?;
    let steps = steps.unwrap_or(scene.default_steps).max(1);
    let started = Instant::now();
    let mut last_print = Instant::now();
    let mut stderr = std::io::stderr();
    let result = run_scene(scene, threads, steps, |step, ms| {
        if last_print.elapsed().as_millis() >= 100 || step == steps {
            last_print = Instant::now();
            let elapsed = started.elapsed().as_secs_f64();
            let eta = elapsed / step as f64 * (steps - step) as f64;
            let width = 30;
            let filled = width * step / steps;
            let _ = write!(
                stderr,
                "\r{name} [{}{}] {step}/{steps}  {ms:7.2} ms/step  eta {eta:4.0} s ",
                "#".repeat(filled),
                "-".repeat(width - filled)
            );
            let _ = stderr.flush();
        }
    })
    .map_err(|e| e.to_string())?;
    eprintln!();
    println!("{}", result.table());
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&result.to_json()).map_err(|e| e.to_string())?;
        std::fs::write(&path, text + "\n").map_err(|e| format!("writing {path}: {e}"))?;
        println!("wrote {path}");
    }
    Ok(())
}
