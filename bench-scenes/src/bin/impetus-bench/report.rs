//! `impetus-bench report`: every scene (or those given) on every engine at each thread
//! count, written out as a README.md with the tables, results.json and one SVG chart per
//! scene.

use crate::cli::ReportArgs;
use crate::compare::{best_peer, check_builds, measure_all, Outcome, Peers, Reps, Runs, Tally};
use crate::cores;
use crate::engine::Engine;
use crate::{write_file, write_json};
use impetus_scenes::chart::{grouped_bar_chart, BarSeries};
use impetus_scenes::measure::stretch_percent;
use impetus_scenes::{RunResult, Scene, SCENES};
use serde_json::json;

/// The arguments after `report` on this process's command line, as typed, for the
/// report's record of how it was made.
fn command_args() -> String {
    std::env::args_os()
        .skip(2)
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
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

/// The host's transparent huge pages setting (the bracketed choice of
/// /sys/kernel/mm/transparent_hugepage/enabled: `always`, `madvise` or `never`), or
/// `unknown`. impetus asks for huge pages for its largest arrays; the peers' allocators do
/// not, so under `always` they get them too and the comparison differs (the report says
/// which it was).
fn huge_pages() -> String {
    std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
        .ok()
        .and_then(|text| {
            let start = text.find('[')?;
            let end = start + text[start..].find(']')?;
            Some(text[start + 1..end].to_string())
        })
        .unwrap_or_else(|| "unknown".to_string())
}

/// The highest 1-minute load average per core at which a report measures without
/// `--force`: above it other work shares the cores and every figure is slowed.
const MAX_LOAD_PER_CORE: f64 = 0.5;

/// The 1-minute load average per core, when /proc/loadavg can be read.
fn load_per_core() -> Option<f64> {
    let one: f64 = load_average().split_whitespace().next()?.parse().ok()?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    Some(one / cores as f64)
}

/// How a report was made, for its text and its results file.
struct ReportInfo {
    command: String,
    machine: String,
    date: String,
    reps: usize,
    /// Load averages when the report began and when it ended.
    load: (String, String),
    /// Whether the load at the start was above [`MAX_LOAD_PER_CORE`] (`--force`).
    busy: bool,
    /// The host's transparent huge pages setting ([`huge_pages`]).
    huge_pages: String,
    /// Each C or C++ peer's build (engine name, flags and asserts).
    builds: Vec<(String, String)>,
    /// Whether each run at two threads or more waited for the CPUs to share a cache
    /// (`--near-cpus`).
    near_cpus: bool,
    /// What the machine gave two threads on loops without serial parts, when the report
    /// began and when it ended (measured where it measures two threads or more).
    host: Option<(cores::HostReading, cores::HostReading)>,
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

/// `report`: measures, then writes README.md, results.json and the charts into `--out`.
pub fn report(o: &ReportArgs) -> Result<(), String> {
    let threads = o.threads.clone();
    let engines = o.engines.clone().unwrap_or_else(Engine::compiled_in);
    check_builds(&engines)?;
    let per_core = load_per_core();
    let busy = per_core.is_some_and(|l| l > MAX_LOAD_PER_CORE);
    eprintln!(
        "load average {} ({} per core)",
        load_average(),
        per_core.map_or("unknown".to_string(), |l| format!("{l:.2}"))
    );
    if busy && !o.force {
        return Err(format!(
            "the machine is busy: load average {} is above {MAX_LOAD_PER_CORE} per core; a \
             report measured now would be slowed by the other work. Wait for it to finish, \
             or measure anyway with --force (the report then says so)",
            load_average()
        ));
    }
    if busy {
        eprintln!("warning: measuring on a busy machine (--force); the report says so");
    }
    let scenes: Vec<&'static Scene> = o.scenes.clone().unwrap_or_else(|| SCENES.iter().collect());
    let reps = o.reps.max(1);
    let out = o.out.clone();
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
    let two_threads = threads.iter().any(|&t| t >= 2);
    let host_start = two_threads.then(cores::HostReading::measure);
    let mut measured = Vec::new();
    for &scene in &scenes {
        let steps = o.steps.unwrap_or(scene.default_steps).max(1);
        let runs = Runs {
            steps,
            reps,
            near_cpus: o.near_cpus,
        };
        let rows = measure_all(scene, &engines, &threads, &runs, &mut tally);
        let report = SceneReport { scene, steps, rows };
        let path = format!("{out}/{}.svg", scene.name);
        write_file(
            &path,
            scene_chart(&report, &engines, &threads, reps, &machine, &date),
        )?;
        measured.push(report);
    }
    let info = ReportInfo {
        command: format!("impetus-bench report {}", command_args()),
        machine,
        date,
        reps,
        load: (load_start, load_average()),
        busy,
        huge_pages: huge_pages(),
        builds: engines
            .iter()
            .filter_map(|e| e.build().map(|b| (e.name().to_string(), b)))
            .collect(),
        near_cpus: o.near_cpus,
        host: host_start.map(|start| (start, cores::HostReading::measure())),
    };
    let readme = report_markdown(&measured, &engines, &threads, &info);
    write_file(&format!("{out}/README.md"), readme)?;
    let results = json!({
        "command": info.command,
        "machine": info.machine,
        "date": info.date,
        "load_average": { "start": info.load.0, "end": info.load.1 },
        "busy": info.busy,
        "near_cpus": info.near_cpus,
        "two_thread_ceiling": info.host.map(|(start, end)| json!({
            "start": start.to_json(),
            "end": end.to_json(),
        })),
        "transparent_huge_pages": info.huge_pages,
        "builds": info.builds.iter().map(|(e, b)| json!({"engine": e, "build": b})).collect::<Vec<_>>(),
        "best_peer_rule": "the fastest peer that kept the scene standing (measure::fell_apart)",
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
        busy,
        huge_pages,
        builds,
        near_cpus,
        host,
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
         a shared machine; the tables by thread count list each repetition's median, so \
         that a minute in which a core ran slow shows. Ratios are an engine's time over the \
         fastest standing peer's (impetus excluded; the rule is below): below 1 is faster \
         than every such peer. \
         Each peer runs at its documented defaults, built without asserts (see its build \
         below) and on its own scheduler (Box3D's, PhysX's dispatcher, inline at one \
         thread, Jolt's job system, rapier's rayon pool); `PhysX ... TGS` and `Jolt ... tuned` \
         are extra rows with the settings their guides recommend for stacks. The peers' \
         settings and the way \
         their stability figures are measured are in docs/SCENES.md (\"Peer engines\") and \
         in each adapter's module doc (bench-scenes/src/rapier.rs, box3d.rs, physx.rs, \
         jolt.rs). `results.json` beside this file has every figure."
    ));
    line(String::new());
    line(format!(
        "Load averages (1, 5, 15 min) when the report began: {}; when it ended: {}. {}",
        load.0,
        load.1,
        if *busy {
            "**The machine was busy when the report began (above 0.5 per core; measured \
             with --force): other work shared the cores, every engine is slowed, and the \
             gain from a second thread is hidden.**"
        } else {
            "The report measures only when the 1-minute load is at most 0.5 per core \
             (`--force` overrides it and says so here)."
        }
    ));
    line(String::new());
    line(format!(
        "Transparent huge pages on this host: `{huge_pages}`. impetus asks for them for its \
         contacts, shapes and contact batches (`engine/src/huge.rs`); the peers' allocators do \
         not ask, so they get them only where the setting is `always`."
    ));
    line(String::new());
    if !builds.is_empty() {
        line(
            "Peer builds (flags as cargo passed them to the -sys crates' build scripts; \
              asserts as probed in the linked library):"
                .into(),
        );
        line(String::new());
        for (engine, build) in builds.iter() {
            line(format!("- `{engine}`: {build}"));
        }
        line(String::new());
    }
    line("## impetus against the fastest peer".into());
    line(String::new());
    line(
        "The fastest peer is the fastest that **kept the scene standing**: no body more than \
         0.5 m below the ground, no body of a structure built at rest (a scene with a column: \
         the pyramids, towers, mass_ratio) more than 1 m (a box width) sideways from where it was built \
         (settling moves bodies down, toppling sideways), no joint \
         stretched by more than 10 % (`measure::fell_apart`). A peer whose scene fell apart \
         did less work than the scene asks for; the ratio against every peer, fallen or not, \
         is in brackets."
            .into(),
    );
    line(String::new());
    let mut header = "| scene | steps |".to_string();
    let mut rule = "|---|---:|".to_string();
    for t in threads {
        header.push_str(&format!(
            " {t} thread(s): impetus / best standing peer (all peers) |"
        ));
        rule.push_str("---|");
    }
    line(header);
    line(rule);
    for m in measured {
        let mut row = format!("| {} | {} |", m.scene.name, m.steps);
        for r in &m.rows {
            let ran: Vec<&Reps> = r.iter().filter_map(Outcome::ran).collect();
            let impetus = ran.iter().find(|x| !x.is_peer());
            let all = best_peer(&ran, Peers::All);
            match (impetus, best_peer(&ran, Peers::Standing)) {
                (Some(i), Some((name, best))) => row.push_str(&format!(
                    " **{:.2}** ({:.2} ms vs {name} {best:.2} ms){} |",
                    i.median() / best,
                    i.median(),
                    all.map_or(String::new(), |(n, a)| format!(
                        " [{:.2} vs {n}]",
                        i.median() / a
                    ))
                )),
                (Some(i), None) => row.push_str(&format!(
                    " no peer kept it standing{} |",
                    all.map_or(String::new(), |(n, a)| format!(
                        " [{:.2} vs {n}]",
                        i.median() / a
                    ))
                )),
                _ => row.push_str(" – |"),
            }
        }
        line(row);
    }
    if let Some((start, end)) = host {
        line(String::new());
        line(format!(
            "What the machine gave two threads on loops without a serial part or shared data \
             (`impetus-bench cores`: floating-point chains in the L1 cache, a streaming update \
             of 4 MB, each on one CPU and split between two), when the report began: {}; \
             when it ended: {}. An engine's speed-up from one thread to two is bounded by \
             these; the shortfall below them is the engine's own.",
            start.describe(),
            end.describe()
        ));
    }
    for (ti, t) in threads.iter().enumerate() {
        let (apart, of) = measured
            .iter()
            .flat_map(|m| m.rows[ti].iter().filter_map(Outcome::ran))
            .map(Reps::runs_apart)
            .fold((0, 0), |(a, n), (x, y)| (a + x, n + y));
        if of > 0 {
            line(String::new());
            line(format!(
                "At {t} threads, {apart} of the {of} runs had the first two CPUs apart: a \
                 cache line's round trip between them of {:.0} ns or more just before or just \
                 after the run (the host placed them on cores that share no cache; \
                 `bench-scenes/src/bin/impetus-bench/cores.rs`). The tables below give each \
                 repetition's larger round trip beside its time.{}",
                cores::SHARED_CACHE_NS,
                if *near_cpus {
                    " Each run waited (up to a minute) for the CPUs to share a cache \
                     (`--near-cpus`)."
                } else {
                    ""
                }
            ));
        }
    }
    for (ti, t) in threads.iter().enumerate() {
        line(String::new());
        line(format!("## {t} thread(s)"));
        line(String::new());
        line(
            "| scene | engine | ms/step | repetitions (ms) | ratio to best standing peer | p95 ms \
             | contacts | max displacement (m) | max drift (m) | max speed (m/s) | max penetration \
             (m) | column compression (m) | max joint error (m) | max joint stretch | standing |"
                .into(),
        );
        line("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|".into());
        for m in measured {
            let row = &m.rows[ti];
            let ran: Vec<&Reps> = row.iter().filter_map(Outcome::ran).collect();
            let best = best_peer(&ran, Peers::Standing).map(|b| b.1);
            for (o, e) in row.iter().zip(engines) {
                match o {
                    Outcome::Ran(r) => {
                        let x = r.representative();
                        let st = &x.stability;
                        line(format!(
                            "| {} | {} | {:.3} | {} | {} | {:.3} | {} | {:.4} | {:.4} | {:.4} | {:.4} \
                             | {} | {} | {} | {} |",
                            m.scene.name,
                            x.engine,
                            r.median(),
                            r.rep_medians(2, " / "),
                            cell(best.map(|b| r.median() / b), 2),
                            x.p95,
                            x.contacts,
                            st.max_displacement,
                            st.max_drift,
                            st.max_speed,
                            st.max_penetration,
                            cell(st.column_compression.map(f64::from), 4),
                            if x.joints > 0 {
                                format!("{:.5}", st.max_joint_error)
                            } else {
                                "–".to_string()
                            },
                            if x.joints > 0 {
                                stretch_percent(st.max_joint_stretch_ratio)
                            } else {
                                "–".to_string()
                            },
                            match &r.fell {
                                None => "yes".to_string(),
                                Some(why) => format!("**no**: {why}"),
                            }
                        ))
                    }
                    Outcome::Skipped(why) => line(format!(
                        "| {} | {} | skipped: {why} | | | | | | | | | | | | |",
                        m.scene.name,
                        e.name()
                    )),
                    Outcome::Failed(why) => line(format!(
                        "| {} | {} | failed: {why} | | | | | | | | | | | | |",
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::sample_run as run;

    /// Every row of the report's tables has the cells of its header, whether its engine
    /// ran (each repetition's median listed in the order they ran), was skipped or failed.
    #[test]
    fn every_table_row_has_its_headers_cells() {
        let scene = impetus_scenes::scenes::find("pyramid").expect("the pyramid scene");
        let rows = vec![vec![
            Outcome::Ran(Reps::of(
                vec![run("impetus 0.1.0", 1.2), run("impetus 0.1.0", 1.0)],
                None,
            )),
            Outcome::Ran(Reps::of(vec![run("rapier3d", 3.0)], None)),
            Outcome::Skipped("not built".into()),
            Outcome::Failed("it stopped".into()),
        ]];
        let reading = cores::HostReading {
            round_trip_ns: Some(55.0),
            compute: Some(cores::Ceiling {
                one: 31.0,
                two: 15.5,
            }),
            stream: None,
        };
        let info = ReportInfo {
            command: "impetus-bench report".into(),
            machine: "a test".into(),
            date: "today".into(),
            reps: 2,
            load: ("0 0 0".into(), "0 0 0".into()),
            busy: false,
            huge_pages: "never".into(),
            builds: vec![],
            near_cpus: false,
            host: Some((reading, reading)),
        };
        let engines = [
            Engine::Impetus,
            Engine::Rapier,
            Engine::Box3d,
            Engine::Physx,
        ];
        let md = report_markdown(
            &[SceneReport {
                scene,
                steps: 20,
                rows,
            }],
            &engines,
            &[1],
            &info,
        );
        assert!(
            md.contains("| impetus 0.1.0 | 1.200 | 1.20 / 1.00 |"),
            "{md}"
        );
        assert!(
            md.contains(
                "when the report began: compute 2.00x, stream – (round trip 55 ns); when it \
                 ended: compute 2.00x, stream – (round trip 55 ns). An engine's"
            ),
            "{md}"
        );
        let mut tables = 0;
        for table in md.split("\n\n") {
            let rows: Vec<&str> = table.lines().filter(|l| l.starts_with('|')).collect();
            let Some(header) = rows.first() else { continue };
            tables += 1;
            let cells = header.matches('|').count();
            for row in &rows {
                assert_eq!(row.matches('|').count(), cells, "{row}\nunder {header}");
            }
        }
        assert!(tables >= 2, "{md}");
    }
}
