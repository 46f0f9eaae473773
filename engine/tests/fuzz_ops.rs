//! The operation fuzzer, driven by fixed seeds: each seed's xorshift bytes decode into a
//! script of public-API calls (see `common/ops.rs`, shared with the cargo-fuzz targets in
//! `fuzz/`), run with the invariants checked after every call, then run again at 2 worker
//! threads for the same final state hash.

#[path = "common/ops.rs"]
mod ops;

/// Seeds per run and bytes per script: a few hundred scripts of a few dozen calls each.
const SEEDS: u64 = 400;
const SCRIPT_BYTES: usize = 5000;

#[test]
fn op_scripts_keep_the_invariants_and_are_thread_count_independent() {
    fuzz(false);
}

/// The same with finite extremes (1e30, ±`f32::MAX`, 1e-30, subnormals) among the hostile
/// values: the engine refuses what would overflow inside the step (sizes and coordinates
/// beyond `MAX_LENGTH`, masses and moments without a finite inverse, steps outside
/// `World::MIN_DT..=World::MAX_DT`) and steps on with the rest.
#[test]
fn finite_extremes() {
    fuzz(true);
}

/// Scripts (seeds with finite extremes) that once broke an invariant, each named after
/// what broke; they run alone so that a change to the seed range cannot drop them. They
/// replay through the decoder in `common/ops.rs`: a change to it that moves a script
/// must keep a test that breaks the same way.
#[test]
fn regressions() {
    for (seed, what) in [
        (
            1387,
            "a quarantined body was swept by continuous collision to a NaN pose",
        ),
        (
            2898,
            "a subnormal shape left alone by removals gave an infinite inverse inertia",
        ),
        (
            4766,
            "rolling resistance of f32::MAX times a radius overflowed to inf",
        ),
        (
            6216,
            "a quarantined body was swept by continuous collision to a NaN pose",
        ),
    ] {
        let bytes = ops::script(seed, SCRIPT_BYTES);
        let runs = std::panic::catch_unwind(|| {
            (
                ops::run_with(&bytes, 1, true),
                ops::run_with(&bytes, 2, true),
            )
        });
        match runs {
            Ok((one, two)) => assert_eq!(one, two, "seed {seed} ({what}): 1 and 2 threads"),
            Err(_) => panic!("seed {seed} broke an invariant again: {what}"),
        }
    }
}

/// The scripts with particle operations (a quarter of the calls: particles, springs,
/// cloths, soft bodies, wind, images), without and with finite extremes.
#[test]
fn particle_scripts_keep_the_invariants() {
    fuzz_with(false, true);
    fuzz_with(true, true);
}

fn fuzz(extremes: bool) {
    fuzz_with(extremes, false)
}

fn fuzz_with(extremes: bool, particles: bool) {
    let run = |bytes: &[u8], workers| {
        if particles {
            ops::run_particles(bytes, workers, extremes)
        } else {
            ops::run_with(bytes, workers, extremes)
        }
    };
    let start = std::time::Instant::now();
    let (mut ops_run, mut errors, mut steps) = (0, 0, 0);
    // `IMPETUS_FUZZ_SEED=n` runs seed n alone (with `IMPETUS_FUZZ_TRACE=1`, op by op).
    let only: Option<u64> = std::env::var("IMPETUS_FUZZ_SEED")
        .ok()
        .map(|s| s.parse().expect("IMPETUS_FUZZ_SEED: a seed number"));
    // `IMPETUS_FUZZ_SEEDS=a..b` runs those seeds instead (a long run by hand, in release).
    let seeds = std::env::var("IMPETUS_FUZZ_SEEDS")
        .ok()
        .map_or(0..SEEDS, |s| {
            let (a, b) = s.split_once("..").expect("IMPETUS_FUZZ_SEEDS: a..b");
            a.parse().expect("a seed number")..b.parse().expect("a seed number")
        });
    let count = seeds.end - seeds.start;
    let mut failures = Vec::new();
    for seed in seeds.filter(|&s| only.is_none_or(|o| o == s)) {
        let bytes = ops::script(seed, SCRIPT_BYTES);
        if std::env::var_os("IMPETUS_FUZZ_TRACE").is_some() {
            eprintln!("seed {seed}");
        }
        let runs = std::panic::catch_unwind(|| (run(&bytes, 1), run(&bytes, 2)));
        let (one, two) = match runs {
            Ok(r) => r,
            Err(e) => {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!("seed {seed}: {msg}"));
                continue;
            }
        };
        if one != two {
            failures.push(format!(
                "seed {seed}: the runs at 1 and 2 threads differ: {one:?} vs {two:?}"
            ));
        }
        ops_run += one.ops + two.ops;
        errors += one.errors + two.errors;
        steps += one.steps + two.steps;
    }
    println!(
        "fuzz_ops (extremes: {extremes}, particles: {particles}): {count} seeds, {ops_run} operations ({errors} Err, {steps} steps) at 1 and 2 threads in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} of {count} seeds failed (rerun one with IMPETUS_FUZZ_SEED=n IMPETUS_FUZZ_TRACE=1):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A script of nothing but bytes past its end (zeros) is valid too.
#[test]
fn empty_and_zero_scripts_run() {
    assert_eq!(ops::run(&[], 1).ops, 0);
    assert!(ops::run(&[0; 64], 1).ops > 0);
}
