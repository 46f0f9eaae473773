//! The `restore_state` fuzz target's crashes (fuzz/fuzz_targets/restore_state.rs), replayed:
//! the same world and the same bytes (`engine/tests/data/`), through the same code
//! (`common/state_world.rs`, shared by path). Each restore either succeeds and the world
//! steps, or fails and leaves the world as it was.

mod common;

use common::state_world;

fn replay(data: &[u8]) {
    let mut w = state_world::world();
    let state = state_world::fuzzed_state(&w, data);
    let before = w.deep_hash();
    match w.restore_state(&state) {
        Ok(()) => w.step(common::DT).unwrap(),
        Err(_) => assert_eq!(w.deep_hash(), before, "a failed restore changed the world"),
    }
}

/// A state whose dynamic body had no island (`NULL`) restored, and the step's sleep pass
/// indexed the island list with it.
#[test]
fn a_body_without_an_island_is_refused() {
    replay(include_bytes!("data/restore_state-island.bin"));
}

/// Format 3: states whose contacts held a NaN coefficient restored, and the solver's
/// clamp by the friction bound panicked (`min > max, or either was NaN`). Refused now.
#[test]
fn contacts_with_coefficients_not_finite_are_refused() {
    replay(include_bytes!("data/restore_state-nan-friction-1.bin"));
    replay(include_bytes!("data/restore_state-nan-friction-2.bin"));
}

/// A state with extreme but finite impulses or lever arms restored, and the scalar
/// kernel's twist clamp met a NaN bound (`inf * 0`) and panicked. The bound is now applied
/// as max/min, as the lane kernel does: the step runs and the body is quarantined.
#[test]
fn extreme_finite_impulses_do_not_panic() {
    replay(include_bytes!("data/restore_state-huge-impulse.bin"));
}
