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
//! impetus-bench cores [--times N]
//! ```
//!
//! `impetus-bench --help` and `impetus-bench <command> --help` explain each flag (see
//! `cli`). One module per subcommand or group: `run`, `compare` (compare, sweep),
//! `report`, `soak` (soak, churn), `record` (record, view), `cores` (the CPUs' round trip
//! and the two-thread ceiling); `engine` runs a scene on one
//! engine with a `progress` bar.

mod cli;
mod compare;
mod cores;
mod counting;
mod engine;
mod progress;
mod record;
mod report;
mod run;
mod soak;

use clap::Parser;
use cli::{Cli, Command};
use impetus_scenes::SCENES;
use serde_json::Value;
use std::process::ExitCode;

#[global_allocator]
static GLOBAL: counting::Counting = counting::Counting;

fn main() -> ExitCode {
    // Parsed first, so that `--help` and a bad flag answer before anything else prints.
    let cli = Cli::parse();
    impetus_profiling::start();
    if let Some(hint) = impetus_profiling::connect_hint() {
        // On stderr, so that the tables and JSON on stdout stay as they are.
        eprintln!("{hint}");
    }
    let result = match &cli.command {
        Command::List => {
            list();
            Ok(())
        }
        Command::Run(a) => run::run(a),
        Command::Compare(a) => compare::compare(a),
        Command::Sweep(a) => compare::sweep(a),
        Command::Report(a) => report::report(a),
        Command::Soak(a) => soak::soak(a),
        Command::Churn(a) => soak::churn(a),
        Command::Record(a) => record::record(a),
        Command::View(a) => record::view(a),
        Command::Cores(a) => cores::cores(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("impetus-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `list`: every scene with its dynamic bodies, joints and description.
fn list() {
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
}

/// Writes `text` to `path` and says so on stdout.
fn write_file(path: &str, text: String) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("writing {path}: {e}"))?;
    println!("wrote {path}");
    Ok(())
}

/// Writes `v` to `path` as pretty-printed JSON with a final newline.
fn write_json(path: &str, v: &Value) -> Result<(), String> {
    let text = serde_json::to_string_pretty(v).map_err(|e| e.to_string())?;
    write_file(path, text + "\n")
}
