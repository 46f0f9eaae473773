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

/// The same with finite extremes (1e30, ±`f32::MAX`, 1e-30) among the hostile values. Some
/// seeds still end with NaN bodies after a step or with an image that does not load (the
/// engine accepts such finite values and they overflow inside the solver); see the report
/// of the fuzzing branch. Run by hand: `cargo test -p impetus --test fuzz_ops -- --ignored`.
#[test]
#[ignore = "known overflows of finite extreme inputs inside the step"]
fn finite_extremes() {
    fuzz(true);
}

fn fuzz(extremes: bool) {
    let start = std::time::Instant::now();
    let (mut ops_run, mut errors, mut steps) = (0, 0, 0);
    // `IMPETUS_FUZZ_SEED=n` runs seed n alone (with `IMPETUS_FUZZ_TRACE=1`, op by op).
    let only: Option<u64> = std::env::var("IMPETUS_FUZZ_SEED")
        .ok()
        .map(|s| s.parse().expect("IMPETUS_FUZZ_SEED: a seed number"));
    let mut failures = Vec::new();
    for seed in (0..SEEDS).filter(|&s| only.is_none_or(|o| o == s)) {
        let bytes = ops::script(seed, SCRIPT_BYTES);
        if std::env::var_os("IMPETUS_FUZZ_TRACE").is_some() {
            eprintln!("seed {seed}");
        }
        let runs = std::panic::catch_unwind(|| {
            (
                ops::run_with(&bytes, 1, extremes),
                ops::run_with(&bytes, 2, extremes),
            )
        });
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
        "fuzz_ops (extremes: {extremes}): {SEEDS} seeds, {ops_run} operations ({errors} Err, {steps} steps) at 1 and 2 threads in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} of {SEEDS} seeds failed (rerun one with IMPETUS_FUZZ_SEED=n IMPETUS_FUZZ_TRACE=1):\n{}",
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
