//! `World::restore_state` on arbitrary bytes, into a small world of every body type with
//! shapes and a joint: `Ok` or `Err`, never a panic; on `Err` the world is unchanged. The
//! first byte's bit 0 starts from a valid state with the fuzzer's bytes XORed over it and
//! the checksum recomputed (`engine/tests/common/seal.rs`), so that mutations reach the sections behind the
//! checksum; bit 1 leaves the checksum as the XOR made it (the checksum check itself).
#![no_main]

#[path = "../../engine/tests/common/seal.rs"]
mod seal;
#[path = "../../engine/tests/common/state_world.rs"]
mod state_world;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut w = state_world::world();
    let state = state_world::fuzzed_state(&w, data);
    let before = w.deep_hash();
    match w.restore_state(&state) {
        Ok(()) => {
            let _ = w.step(1.0 / 60.0);
        }
        Err(_) => assert_eq!(w.deep_hash(), before, "a failed restore changed the world"),
    }
});
