//! The command line: clap's types for every subcommand, with their flags, defaults and help
//! texts, and the value parsers that check scene names, engines, thread counts and seeds as
//! the arguments are read, so that a bad value is reported by clap naming its flag.
//!
//! A repeated flag overrides the earlier one (`args_override_self` on every subcommand),
//! so that a flag appended to a scripted command line wins.

use crate::engine::Engine;
use clap::{ArgAction, Args, Parser, Subcommand};
use impetus_scenes::{find, Scene, SCENES};
use std::path::PathBuf;

/// Runs the standard scenes and prints what they cost, alone or beside the peer engines
/// compiled in.
///
/// The peers are rapier3d (by default) and Box3D, PhysX and Jolt (with the `box3d`,
/// `physx` and `jolt` features, all three with `peers`). Tables and JSON go to stdout;
/// progress bars go to stderr, and only when it is a terminal.
#[derive(Parser)]
#[command(name = "impetus-bench", version, arg_required_else_help = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand)]
pub enum Command {
    /// Lists the scenes with their dynamic bodies, joints and a description.
    List,
    /// Runs one scene on one engine and prints its cost and stability figures.
    ///
    /// The scenes run with sleep off. With --image, the world saved by an earlier
    /// `run --save-image` is stepped on instead of a scene being built.
    Run(RunArgs),
    /// Runs one scene on several engines, alternating, and prints them side by side.
    ///
    /// The repetitions alternate the engines (A B C A B C); each engine's figure is the
    /// median of its repetitions' medians.
    Compare(CompareArgs),
    /// Runs one scene on several engines at each of several thread counts.
    ///
    /// Prints ms/step per thread count and engine with the speed-up over the first row,
    /// then the comparison table at the last thread count.
    Sweep(SweepArgs),
    /// Measures every scene (or those given) on every engine at each thread count and
    /// writes a report.
    ///
    /// The report is a README.md with the tables, results.json with every figure and one
    /// SVG chart per scene, in --out.
    Report(ReportArgs),
    /// A long run under hostile operations, checked as it goes.
    ///
    /// The soak rotates small scenes under random spawns, removals, impulses and joint
    /// breaks with sleep on, checks finite state, ground, energy, memory and 1-vs-2-thread
    /// replays, and exits non-zero naming a failed check; a failed soak prints the command
    /// that reruns its segment alone.
    Soak(SoakArgs),
    /// Builds a scene's world, steps it and drops it, again and again in one process.
    ///
    /// Fails when a dropped world leaves memory live or a later world's live high-water
    /// mark grows by over 1%.
    Churn(ChurnArgs),
    /// Steps a scene with a recorder attached and writes the recording (.impr).
    ///
    /// Frame 0 is the scene as built, then one frame per step (see tools/recorder).
    Record(RecordArgs),
    /// Measures what the machine gives two threads: the first two CPUs' round trip, and a
    /// loop without serial parts on one thread and on two.
    ///
    /// Each line is one measurement: the round trip of one cache line between two threads
    /// pinned to the CPUs, then two reference kernels (floating-point chains in the L1
    /// cache; a streaming update of 4 MB), each timed per pass on the first CPU alone and
    /// split between the two with a spin barrier after every pass. Their speed-up bounds
    /// what any program's 1 -> 2 threads can be at that moment.
    Cores(CoresArgs),
    /// Serves the viewer (tools/viewer) and one or two recordings on 127.0.0.1.
    ///
    /// They are served until interrupted; a second recording is compared with the first
    /// frame by frame.
    View(ViewArgs),
}

/// `run <scene>` or `run --image FILE`.
#[derive(Args)]
#[command(args_override_self = true)]
pub struct RunArgs {
    /// The scene (see `impetus-bench list`); ignored with --image.
    #[arg(value_parser = scene, required_unless_present = "image")]
    pub scene: Option<&'static Scene>,
    /// Steps to run [default: the scene's, 600 for the standard scenes; with --image: 600].
    #[arg(long, value_name = "N")]
    pub steps: Option<usize>,
    /// Worker threads, 0 for all cores [default: 1; with --image: the image's thread count].
    #[arg(long, value_name = "T", value_parser = thread_count)]
    pub threads: Option<usize>,
    /// The engine: impetus, rapier, box3d, physx or jolt (--image: impetus only).
    #[arg(long, value_name = "E", value_parser = one_engine, default_value = "impetus")]
    pub engine: Engine,
    /// Let impetus's islands sleep (the scenes run with sleep off).
    #[arg(long)]
    pub sleep: bool,
    /// Also write the results as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<String>,
    /// Write the world's image (World::save_image) after the last step (impetus only).
    #[arg(long, value_name = "FILE")]
    pub save_image: Option<String>,
    /// Continue from a saved image instead of building a scene.
    #[arg(long, value_name = "FILE")]
    pub image: Option<String>,
}

/// `compare <scene>`.
#[derive(Args)]
#[command(args_override_self = true)]
pub struct CompareArgs {
    /// The scene (see `impetus-bench list`).
    #[arg(value_parser = scene)]
    pub scene: &'static Scene,
    /// Worker threads, 0 for all cores.
    #[arg(long, value_name = "T", value_parser = thread_count, default_value_t = 1)]
    pub threads: usize,
    /// Steps to run [default: the scene's, 600 for the standard scenes].
    #[arg(long, value_name = "N")]
    pub steps: Option<usize>,
    /// Repetitions, engines alternating (A B C A B C); the figure reported is the median of
    /// the repetitions' medians (0 counts as 1).
    #[arg(long, value_name = "R", default_value_t = 3)]
    pub reps: usize,
    /// The engines to run, comma-separated: impetus, rapier, box3d, physx, physx-tgs, jolt,
    /// jolt-tuned [default: every engine compiled in, at its defaults (no tuned rows)].
    #[arg(
        long,
        value_name = "E,E",
        value_parser = engine,
        value_delimiter = ',',
        action = ArgAction::Set
    )]
    pub engines: Option<Vec<Engine>>,
    /// Also write the results as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<String>,
    /// Before each run at two threads or more, wait (up to a minute) until the first two
    /// CPUs share a cache: a cache line's round trip between them under 250 ns (see the
    /// round trips the tables list). Every engine's run waits alike.
    #[arg(long)]
    pub near_cpus: bool,
    /// Also draw ms/step per engine as SVG.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<String>,
}

/// `sweep <scene> --threads T,T`.
#[derive(Args)]
#[command(args_override_self = true)]
pub struct SweepArgs {
    /// The scene (see `impetus-bench list`).
    #[arg(value_parser = scene)]
    pub scene: &'static Scene,
    /// The thread counts, comma-separated, e.g. 1,2,4 (0: all cores).
    #[arg(
        long,
        value_name = "T,T",
        required = true,
        value_parser = thread_list_item,
        value_delimiter = ',',
        action = ArgAction::Set
    )]
    pub threads: Vec<usize>,
    /// Steps to run [default: the scene's, 600 for the standard scenes].
    #[arg(long, value_name = "N")]
    pub steps: Option<usize>,
    /// Repetitions at each thread count, engines alternating (A B C A B C); the figure
    /// reported is the median of the repetitions' medians (0 counts as 1).
    #[arg(long, value_name = "R", default_value_t = 1)]
    pub reps: usize,
    /// The engines to run, comma-separated [default: impetus,rapier].
    #[arg(
        long,
        value_name = "E,E",
        value_parser = engine,
        value_delimiter = ',',
        action = ArgAction::Set
    )]
    pub engines: Option<Vec<Engine>>,
    /// Also write the results as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<String>,
    /// Before each run at two threads or more, wait (up to a minute) until the first two
    /// CPUs share a cache: a cache line's round trip between them under 250 ns (see the
    /// round trips the tables list). Every engine's run waits alike.
    #[arg(long)]
    pub near_cpus: bool,
    /// Also draw ms/step against threads per engine as SVG.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<String>,
}

/// `report`.
#[derive(Args)]
#[command(args_override_self = true)]
pub struct ReportArgs {
    /// The thread counts, comma-separated (0: all cores).
    #[arg(
        long,
        value_name = "T,T",
        value_parser = thread_list_item,
        value_delimiter = ',',
        action = ArgAction::Set,
        default_value = "1,2"
    )]
    pub threads: Vec<usize>,
    /// The scenes, comma-separated [default: every scene].
    #[arg(
        long,
        value_name = "S,S",
        value_parser = scene,
        value_delimiter = ',',
        action = ArgAction::Set
    )]
    pub scenes: Option<Vec<&'static Scene>>,
    /// The engines to run, comma-separated [default: every engine compiled in, the tuned
    /// rows (physx-tgs, jolt-tuned) included].
    #[arg(
        long,
        value_name = "E,E",
        value_parser = engine,
        value_delimiter = ',',
        action = ArgAction::Set
    )]
    pub engines: Option<Vec<Engine>>,
    /// Steps to run [default: each scene's, 600 for the standard scenes].
    #[arg(long, value_name = "N")]
    pub steps: Option<usize>,
    /// Repetitions at each thread count, engines alternating (A B C A B C); the figure
    /// reported is the median of the repetitions' medians (0 counts as 1).
    #[arg(long, value_name = "R", default_value_t = 5)]
    pub reps: usize,
    /// Measure even when the machine is busy (a load average above 0.5 per core when the
    /// report begins); the report then says so.
    #[arg(long)]
    pub force: bool,
    /// Before each run at two threads or more, wait (up to a minute) until the first two
    /// CPUs share a cache: a cache line's round trip between them under 250 ns (see the
    /// round trips the tables list). Every engine's run waits alike.
    #[arg(long)]
    pub near_cpus: bool,
    /// Where README.md, results.json and one SVG per scene go.
    #[arg(long, value_name = "DIR", default_value = "docs/benchmarks")]
    pub out: String,
}

/// `soak`.
#[derive(Args)]
#[command(args_override_self = true)]
pub struct SoakArgs {
    /// How long to run, minutes, fractional allowed.
    #[arg(
        long,
        value_name = "M",
        value_parser = minutes,
        default_value_t = 1.0,
        allow_negative_numbers = true
    )]
    pub minutes: f64,
    /// Worker threads of the live worlds (the replays run at 1 and 2).
    #[arg(long, value_name = "T", value_parser = thread_count, default_value_t = 1)]
    pub threads: usize,
    /// Seed of the random operations (decimal or 0x hex).
    #[arg(long, value_name = "S", value_parser = seed, default_value = "0x50a4")]
    pub seed: u64,
    /// Start at segment K of the seed's sequence (a failed soak prints the command that
    /// reruns its segment alone).
    #[arg(long, value_name = "K", value_parser = segment_number, default_value_t = 1)]
    pub segment: usize,
    /// Stop after N segments, even with time left.
    #[arg(long, value_name = "N", value_parser = positive_count)]
    pub segments: Option<usize>,
}

/// `cores`.
#[derive(Args)]
#[command(args_override_self = true)]
pub struct CoresArgs {
    /// How many measurements to make, one line each.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub times: usize,
}

/// `churn <scene>`.
#[derive(Args)]
#[command(args_override_self = true)]
pub struct ChurnArgs {
    /// The scene (see `impetus-bench list`).
    #[arg(value_parser = scene)]
    pub scene: &'static Scene,
    /// How many times the world is built, stepped and dropped (0 counts as 1).
    #[arg(long, value_name = "R", default_value_t = 10)]
    pub worlds: usize,
    /// Steps each world takes.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub steps: usize,
    /// Worker threads, 0 for all cores.
    #[arg(long, value_name = "T", value_parser = thread_count, default_value_t = 1)]
    pub threads: usize,
}

/// `record <scene> --out FILE`.
#[derive(Args)]
#[command(args_override_self = true)]
pub struct RecordArgs {
    /// The scene (see `impetus-bench list`).
    #[arg(value_parser = scene)]
    pub scene: &'static Scene,
    /// The recording to write (.impr).
    #[arg(long, value_name = "FILE", required = true)]
    pub out: String,
    /// Steps to record [default: the scene's].
    #[arg(long, value_name = "N")]
    pub steps: Option<u32>,
    /// Worker threads, 0 for all cores.
    #[arg(long, value_name = "T", value_parser = thread_count, default_value_t = 1)]
    pub threads: usize,
    /// Let the islands sleep (the scenes run with sleep off).
    #[arg(long)]
    pub sleep: bool,
    /// Leave the contact points out (smaller files).
    #[arg(long)]
    pub no_contacts: bool,
    /// Round positions to multiples of 2^-E m and quaternion components to 2^-(E+2), E
    /// from 0 to 40 [default: exact poses]; --grid 10 (about 1 mm) makes files several
    /// times smaller.
    #[arg(
        long,
        value_name = "E",
        value_parser = clap::value_parser!(i32).range(0..=40),
        allow_negative_numbers = true
    )]
    pub grid: Option<i32>,
}

/// `view FILE [OTHER]`.
#[derive(Args)]
#[command(args_override_self = true)]
pub struct ViewArgs {
    /// The recording (.impr), and optionally a second one to compare with it.
    #[arg(value_name = "FILE", required = true, num_args = 1..=2)]
    pub recordings: Vec<PathBuf>,
    /// The port on 127.0.0.1 (0: any free port).
    #[arg(long, value_name = "P", default_value_t = 8024)]
    pub port: u16,
}

/// The scene of that name, or the list of scene names.
pub fn scene_named(name: &str) -> Result<&'static Scene, String> {
    find(name).ok_or_else(|| {
        let names: Vec<_> = SCENES.iter().map(|s| s.name).collect();
        format!("no scene {name:?}; scenes: {}", names.join(", "))
    })
}

/// A scene name, as a positional argument or an item of `--scenes`.
fn scene(s: &str) -> Result<&'static Scene, String> {
    scene_named(s.trim())
}

/// An item of `--engines`.
fn engine(s: &str) -> Result<Engine, String> {
    Engine::parse(s.trim())
}

/// `run --engine`: one engine, not a list.
fn one_engine(s: &str) -> Result<Engine, String> {
    if s.contains(',') {
        return Err("run takes one engine".to_string());
    }
    engine(s)
}

/// A single thread count; a list is refused with a pointer to the commands that take one.
fn thread_count(s: &str) -> Result<usize, String> {
    if s.contains(',') {
        return Err("one number here (sweep and report take a list)".to_string());
    }
    thread_list_item(s)
}

/// An item of a `--threads` list.
fn thread_list_item(s: &str) -> Result<usize, String> {
    s.trim().parse().map_err(|e| format!("{e}"))
}

/// A seed in decimal or, after `0x`, in hex.
fn seed(s: &str) -> Result<u64, String> {
    match s.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => s.parse(),
    }
    .map_err(|_| "not a number (decimal or 0x hex)".to_string())
}

/// A segment number, counted from 1.
fn segment_number(s: &str) -> Result<usize, String> {
    s.parse()
        .ok()
        .filter(|&k| k >= 1)
        .ok_or_else(|| "not a segment number (1, 2, ...)".to_string())
}

/// A count of at least 1.
fn positive_count(s: &str) -> Result<usize, String> {
    s.parse()
        .ok()
        .filter(|&k| k >= 1)
        .ok_or_else(|| "not a positive count".to_string())
}

/// A finite, non-negative number of minutes.
fn minutes(s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .ok()
        .filter(|m| m.is_finite() && *m >= 0.0)
        .ok_or_else(|| "not a number of minutes".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }
}
