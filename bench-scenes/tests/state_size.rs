//! State and image sizes of the pile (the `pile` scene's recipe: the ground, four walls and
//! the first N of its boxes), section by section, against the bar of issue 39: at most
//! 100 bytes an awake body plus 40 a touching contact point.
//!
//! `cargo test --release -p impetus-scenes --test state_size -- --nocapture` prints them;
//! the 10,000-box pile at step 200 is `--ignored` (it takes a few seconds).

use impetus::World;
use impetus_scenes::scenes::{build_impetus, pile};
use impetus_scenes::{world_def, Params, DT};

/// The pile with its first `boxes` boxes, stepped `steps` times on `threads` threads.
fn pile_world(boxes: usize, steps: usize, threads: usize) -> World {
    let mut recipe = pile(&Params::default());
    recipe.truncate(5 + boxes);
    let mut w = World::new(world_def(threads)).unwrap();
    build_impetus(&mut w, &recipe).unwrap();
    for _ in 0..steps {
        w.step(DT).unwrap();
    }
    w
}

/// The sections of a state or image: (tag, payload bytes), from the 16-byte header on.
fn sections(file: &[u8]) -> Vec<(String, usize)> {
    let mut at = 16;
    let mut out = Vec::new();
    while at + 8 <= file.len() - 8 {
        let tag = String::from_utf8_lossy(&file[at..at + 4]).to_string();
        let len = u32::from_le_bytes(file[at + 4..at + 8].try_into().unwrap()) as usize;
        out.push((tag, len));
        at += 8 + len;
    }
    out
}

/// Prints the sizes of `w`'s state and image; returns (state bytes, the bar).
fn report(name: &str, w: &World) -> (usize, usize) {
    let mut state = Vec::new();
    w.save_state(&mut state);
    let mut image = Vec::new();
    w.save_image(&mut image);
    let p = w.profile();
    let bar = 100 * p.awake_bodies + 40 * p.points;
    println!(
        "{name}: state {} B, image {} B; {} awake bodies, {} touching points; \
         bar 100 * {} + 40 * {} = {bar} B ({:.2} of it)",
        state.len(),
        image.len(),
        p.awake_bodies,
        p.points,
        p.awake_bodies,
        p.points,
        state.len() as f64 / bar as f64,
    );
    let split: Vec<String> = sections(&state)
        .iter()
        .map(|(t, n)| format!("{t} {n}"))
        .collect();
    println!("{name}: state sections {}", split.join(", "));
    for level in [1, 6, 9] {
        let mut z = Vec::new();
        w.save_state_compressed(&mut z, level).unwrap();
        println!(
            "{name}: state at compression level {level}: {} B ({:.2} of the bar)",
            z.len(),
            z.len() as f64 / bar as f64
        );
    }
    (state.len(), bar)
}

#[test]
fn pile_500_state_size() {
    let w = pile_world(500, 60, 1);
    report("pile of 500, step 60", &w);
}

#[test]
#[ignore = "a few seconds in release: the 10,000-box pile"]
fn pile_10000_state_size() {
    let w = pile_world(10_000, 200, 2);
    report("pile of 10,000, step 200", &w);
}
