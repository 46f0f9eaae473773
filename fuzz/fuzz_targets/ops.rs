//! An operation script on a fresh world, as `engine/tests/fuzz_ops.rs` runs it from fixed
//! seeds: the same decoder (shared by path, not copied), the same invariants (no panic; an
//! `Err` leaves `deep_hash` unchanged; bodies finite), and 1 and 2 worker threads ending on
//! the same state hash. The first byte's low bit turns on finite extremes (1e30,
//! `f32::MAX`...); its next bit, particle operations (particles, springs, cloths, soft
//! bodies, wind: `ops::run_particles`).
#![no_main]

#[path = "../../engine/tests/common/ops.rs"]
mod ops;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, script)) = data.split_first() else {
        return;
    };
    let extremes = flags & 1 == 1;
    let run = |workers| {
        if flags & 2 == 2 {
            ops::run_particles(script, workers, extremes)
        } else {
            ops::run_with(script, workers, extremes)
        }
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(one, two, "the runs at 1 and 2 worker threads differ");
});
