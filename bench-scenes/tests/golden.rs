//! Golden state hashes: every scene of `impetus-bench list` (but `large_world`, 100k bodies),
//! stepped 60 steps of `DT` at 1 and at 2 threads, must end in the pinned state hash, the
//! figure `impetus-bench run NAME --steps 60 --threads T --json F` reports as `state_hash`.
//!
//! A hash moves when the engine's arithmetic moves, even by one ulp. That may be deliberate
//! (a new solver step, a reordered sum); then update [`GOLDEN`] in the same commit and say in
//! its message which hashes moved and why. To print the whole table, ready to paste:
//!
//! ```text
//! GOLDEN_PRINT=1 cargo test -p impetus-scenes --test golden golden_table -- --nocapture
//! ```
//!
//! The debug build (`cargo test -p impetus-scenes --test golden`; dev is opt-level 1) runs
//! every scene: about 15 s on two free cores (36 s on two busy ones), 8 s with `--release`.
//! CI runs the table in both profiles and with 4 lanes (`--features impetus/simd4`): the
//! hashes are the same for every lane width.
//!
//! With sleep on, [`SLEEP_GOLDEN`] pins the step at which each scene's last dynamic body
//! falls asleep and the state hash after [`SLEEP_STEPS`] steps; release only (ignored in a
//! debug build), as it steps every scene for ten simulated seconds.

use std::time::Instant;

use impetus::World;
use impetus_scenes::{find, world_def, Params, DT, SCENES};

/// Steps each scene runs before its state is hashed.
const STEPS: usize = 60;

/// The thread counts each scene runs at.
const THREADS: [usize; 2] = [1, 2];

/// The scene `list` prints that is left out: 100,000 bodies (its 10k sibling stands for it).
const SKIPPED: &str = "large_world";

/// `(scene, threads, state hash)` after [`STEPS`] steps.
#[rustfmt::skip]
const GOLDEN: &[(&str, usize, u64)] = &[
    ("pyramid", 1, 0x2966d285aa35c1b0),
    ("pyramid", 2, 0x2966d285aa35c1b0),
    ("large_pyramid", 1, 0x5a01d6dbaa7739cd),
    ("large_pyramid", 2, 0x5a01d6dbaa7739cd),
    ("many_pyramids", 1, 0x0a37a5a916e53385),
    ("many_pyramids", 2, 0x0a37a5a916e53385),
    ("pile", 1, 0x9c900c87e2557072),
    ("pile", 2, 0x9c900c87e2557072),
    ("towers", 1, 0xa98af4f84e341fe2),
    ("towers", 2, 0xa98af4f84e341fe2),
    ("mass_ratio", 1, 0x49b9414a35eca9d4),
    ("mass_ratio", 2, 0x49b9414a35eca9d4),
    ("rain", 1, 0x493bfc60c547a3c6),
    ("rain", 2, 0x493bfc60c547a3c6),
    ("mesh_pile", 1, 0x28f0262261e9bb50),
    ("mesh_pile", 2, 0x28f0262261e9bb50),
    ("large_world_10k", 1, 0xcaa11efc716dace7),
    ("large_world_10k", 2, 0xcaa11efc716dace7),
    ("joint_grid", 1, 0x82aa62c40d045ffd),
    ("joint_grid", 2, 0x82aa62c40d045ffd),
    ("bridge", 1, 0x63e5100e876a784f),
    ("bridge", 2, 0x63e5100e876a784f),
    ("chain", 1, 0xf15f0fb321a45213),
    ("chain", 2, 0xf15f0fb321a45213),
    ("heavy_chain", 1, 0x981524852e6be95c),
    ("heavy_chain", 2, 0x981524852e6be95c),
    ("ragdolls", 1, 0x05c014091137b560),
    ("ragdolls", 2, 0x05c014091137b560),
    ("door", 1, 0x528c4410c8c9a9b0),
    ("door", 2, 0x528c4410c8c9a9b0),
    ("cloth_drape", 1, 0x3b6822b61a79b444),
    ("cloth_drape", 2, 0x3b6822b61a79b444),
    ("flag", 1, 0xefb5fff14a72d73d),
    ("flag", 2, 0xefb5fff14a72d73d),
    ("soft_pile", 1, 0x19b126eeddad42f3),
    ("soft_pile", 2, 0x19b126eeddad42f3),
    ("tumbler", 1, 0x9c18763f7ad67819),
    ("tumbler", 2, 0x9c18763f7ad67819),
];

/// Builds `name` as the bench does and returns its state hash after [`STEPS`] steps.
fn hash_after(name: &str, threads: usize) -> u64 {
    let mut w = World::new(world_def(threads)).unwrap();
    find(name)
        .unwrap_or_else(|| panic!("no scene called {name}"))
        .build(&mut w, &Params::default())
        .unwrap();
    for _ in 0..STEPS {
        w.step(DT).unwrap();
    }
    w.state_hash()
}

/// Steps each scene runs with sleep on.
const SLEEP_STEPS: usize = 600;

/// `(scene, step at which no dynamic body is awake any more (None: not within
/// SLEEP_STEPS), state hash after SLEEP_STEPS steps)`, sleep on, the same at 1 and 2 threads.
#[rustfmt::skip]
const SLEEP_GOLDEN: &[(&str, Option<usize>, u64)] = &[
    ("pyramid", Some(103), 0x7f2a1c9341465b88),
    ("large_pyramid", Some(276), 0x3a2e525beacb21c9),
    ("many_pyramids", Some(38), 0x54ddc44e8407ea3a),
    ("pile", Some(482), 0x9eddc235f7a37766),
    ("towers", Some(187), 0xb7e1f8b7bb3e62da),
    ("mass_ratio", Some(30), 0xcf72a05c3c5a5353),
    ("rain", None, 0xedc1dc7af5977563),
    ("mesh_pile", None, 0xc2aa2bc1eaf805e3),
    ("large_world_10k", None, 0x379b45c76229af8c),
    ("joint_grid", None, 0x72c841e642ff5d7d),
    ("bridge", None, 0xc3043fcd4ebf5ee7),
    ("chain", None, 0x32f376291a523121),
    ("heavy_chain", None, 0xe2c9c9c6213c1693),
    ("ragdolls", None, 0x79af653e326065bc),
    ("door", Some(389), 0xa2f50b5ab49c943b),
    ("cloth_drape", None, 0x757aab709f36c51a),
    ("flag", Some(1), 0x2f44ab2bf5379fff),
    ("soft_pile", None, 0xe342bae9cc0a70e9),
    ("tumbler", None, 0xe73ace4f88d5042f),
];

/// Builds `name` with sleep on and steps it [`SLEEP_STEPS`] times: the first step after
/// which no dynamic body was awake, and the final state hash.
fn sleep_after(name: &str, threads: usize) -> (Option<usize>, u64) {
    let def = impetus::WorldDef {
        enable_sleep: true,
        ..world_def(threads)
    };
    let mut w = World::new(def).unwrap();
    find(name)
        .unwrap()
        .build(&mut w, &Params::default())
        .unwrap();
    let dynamic: Vec<_> = w
        .bodies()
        .filter(|&b| w.body_type(b) == Ok(impetus::BodyType::Dynamic))
        .collect();
    let mut asleep = None;
    for step in 1..=SLEEP_STEPS {
        w.step(DT).unwrap();
        let awake = dynamic.iter().any(|&b| w.body_is_awake(b).unwrap());
        match (asleep, awake) {
            (None, false) => asleep = Some(step),
            (Some(_), true) => asleep = None,
            _ => {}
        }
    }
    (asleep, w.state_hash())
}

/// With sleep on, every scene falls asleep at its pinned step (or stays awake, as pinned)
/// and ends on its pinned hash, at 1 and 2 threads. `GOLDEN_PRINT=1` prints the table.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "release only (ten simulated seconds a scene)"
)]
fn sleep_steps() {
    let print = std::env::var_os("GOLDEN_PRINT").is_some();
    let mut moved = Vec::new();
    if print {
        println!("const SLEEP_GOLDEN: &[(&str, Option<usize>, u64)] = &[");
    }
    for s in SCENES.iter().filter(|s| s.name != SKIPPED) {
        let t = Instant::now();
        let one = sleep_after(s.name, 1);
        let two = sleep_after(s.name, 2);
        if print {
            println!("    ({:?}, {:?}, 0x{:016x}),", s.name, one.0, one.1);
        } else {
            println!(
                "{}: asleep at {:?}, {:016x} ({:.1} s)",
                s.name,
                one.0,
                one.1,
                t.elapsed().as_secs_f64()
            );
        }
        if one != two {
            moved.push(format!("  {}: 1 thread {one:?}, 2 threads {two:?}", s.name));
        }
        match SLEEP_GOLDEN.iter().find(|g| g.0 == s.name) {
            Some(&(_, step, hash)) if (step, hash) == one => {}
            Some(&(_, step, hash)) => moved.push(format!(
                "  {}: pinned asleep at {step:?} with {hash:016x}, now {:?} with {:016x}",
                s.name, one.0, one.1
            )),
            None => moved.push(format!("  {}: not in SLEEP_GOLDEN", s.name)),
        }
    }
    if print {
        println!("];");
        return;
    }
    assert!(
        moved.is_empty(),
        "sleep steps or hashes moved:\n{}\nIf deliberate, reprint the table with \
         `GOLDEN_PRINT=1 cargo test --release -p impetus-scenes --test golden sleep_steps -- \
         --nocapture` and say in the commit message what moved and why.",
        moved.join("\n")
    );
}

fn pinned(name: &str, threads: usize) -> u64 {
    GOLDEN
        .iter()
        .find(|&&(n, t, _)| n == name && t == threads)
        .unwrap_or_else(|| panic!("no golden hash for {name} at {threads} threads"))
        .2
}

/// Runs `scenes` at every thread count and fails, naming each one that moved, unless every
/// hash equals its pinned value.
fn check(scenes: &[&str]) {
    let mut moved = Vec::new();
    for &name in scenes {
        for threads in THREADS {
            let t = Instant::now();
            let got = hash_after(name, threads);
            let want = pinned(name, threads);
            println!(
                "{name} at {threads} threads: {got:016x} ({:.1} s)",
                t.elapsed().as_secs_f64()
            );
            if got != want {
                moved.push(format!(
                    "  {name} at {threads} thread(s): pinned {want:016x}, now {got:016x}"
                ));
            }
        }
    }
    assert!(
        moved.is_empty(),
        "golden state hash moved after {STEPS} steps:\n{}\n\
         If the change is deliberate, update GOLDEN in bench-scenes/tests/golden.rs (print the \
         whole table with `GOLDEN_PRINT=1 cargo test -p impetus-scenes --test golden \
         golden_table -- --nocapture`) and say in the commit message which hashes moved and why.",
        moved.join("\n")
    );
}

/// The table covers exactly the scenes `impetus-bench list` prints, but [`SKIPPED`], and each
/// at every thread count, so a new scene cannot go unpinned.
#[test]
fn table_covers_every_scene() {
    let mut want: Vec<(&str, usize)> = SCENES
        .iter()
        .filter(|s| s.name != SKIPPED)
        .flat_map(|s| THREADS.map(|t| (s.name, t)))
        .collect();
    let mut have: Vec<(&str, usize)> = GOLDEN.iter().map(|&(n, t, _)| (n, t)).collect();
    want.sort();
    have.sort();
    assert_eq!(
        have, want,
        "GOLDEN does not list every scene at 1 and 2 threads"
    );
    let mut grouped: Vec<&str> = GROUPS.concat();
    grouped.sort();
    let mut names: Vec<&str> = SCENES
        .iter()
        .map(|s| s.name)
        .filter(|&n| n != SKIPPED)
        .collect();
    names.sort();
    assert_eq!(grouped, names, "every scene belongs to one test group");
}

/// Prints the table for [`GOLDEN`] when `GOLDEN_PRINT` is set; does nothing otherwise.
#[test]
fn golden_table() {
    if std::env::var_os("GOLDEN_PRINT").is_none() {
        return;
    }
    println!("const GOLDEN: &[(&str, usize, u64)] = &[");
    for s in SCENES.iter().filter(|s| s.name != SKIPPED) {
        for threads in THREADS {
            println!(
                "    ({:?}, {threads}, 0x{:016x}),",
                s.name,
                hash_after(s.name, threads)
            );
        }
    }
    println!("];");
}

/// The test groups, each one `#[test]` below, balanced for two cores: in a debug build
/// many_pyramids takes about a third of the time, each other group a sixth to a quarter.
const GROUPS: [&[&str]; 5] = [STACKS, MANY_PYRAMIDS, PILES, JOINTS, PARTICLES];

const STACKS: &[&str] = &["pyramid", "large_pyramid", "towers", "mass_ratio"];
const MANY_PYRAMIDS: &[&str] = &["many_pyramids"];
const PILES: &[&str] = &["pile", "rain", "mesh_pile", "large_world_10k"];
const JOINTS: &[&str] = &[
    "joint_grid",
    "bridge",
    "chain",
    "heavy_chain",
    "ragdolls",
    "door",
    "tumbler",
];
const PARTICLES: &[&str] = &["cloth_drape", "flag", "soft_pile"];

#[test]
fn stacks() {
    check(STACKS);
}

#[test]
fn many_pyramids() {
    check(MANY_PYRAMIDS);
}

#[test]
fn piles() {
    check(PILES);
}

#[test]
fn joints() {
    check(JOINTS);
}

#[test]
fn particles() {
    check(PARTICLES);
}
