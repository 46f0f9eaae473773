//! Recordings of the benchmark scenes (impetus-recorder): 120 frames of pile fit in 3 MB
//! on the 1 mm grid without contacts, the exact recording reads back with the scene's
//! state hash, and a recording is deterministic. Heavy: run in release (CI does:
//! `cargo test --release -p impetus-scenes --test record`); in a debug build it checks a
//! small scene only.

use impetus::World;
use impetus_recorder::{RecordOptions, Recorder, Recording};
use impetus_scenes::{find, world_def, Params, DT};

fn record(scene: &str, steps: u32, options: RecordOptions) -> (Vec<u8>, u64) {
    let mut world = World::new(world_def(1)).unwrap();
    find(scene)
        .unwrap()
        .build(&mut world, &Params::default())
        .unwrap();
    let mut r = Recorder::new(Vec::new(), &world, DT, options).unwrap();
    for _ in 0..steps {
        world.step(DT).unwrap();
        r.record(&world).unwrap();
    }
    (r.finish().unwrap(), world.state_hash())
}

#[test]
fn pile_120_frames_fit_in_3_mb() {
    let (scene, steps) = if cfg!(debug_assertions) {
        ("pyramid", 30)
    } else {
        ("pile", 120)
    };
    let small = RecordOptions {
        contacts: false,
        grid: Some(10),
        ..Default::default()
    };
    let (file, hash) = record(scene, steps, small);
    let rec = Recording::from_bytes(&file).unwrap();
    assert_eq!(rec.frames.len(), steps as usize + 1);
    assert_eq!(rec.frames.last().unwrap().state_hash, hash);
    println!(
        "{scene}, {steps} steps, grid 10, no contacts: {} bytes",
        file.len()
    );
    assert!(file.len() < 3_000_000, "{} bytes", file.len());

    // Exact poses: bigger (each field's low bits change every frame in a settling pile),
    // read back to the same state hashes.
    let (exact, hash2) = record(
        scene,
        steps,
        RecordOptions {
            contacts: false,
            ..Default::default()
        },
    );
    assert_eq!(hash, hash2, "recording does not change the simulation");
    let rec2 = Recording::from_bytes(&exact).unwrap();
    println!(
        "{scene}, {steps} steps, exact, no contacts: {} bytes",
        exact.len()
    );
    assert!(rec
        .frames
        .iter()
        .zip(&rec2.frames)
        .all(|(a, b)| a.state_hash == b.state_hash));
    // The same run recorded again is the same file, byte for byte.
    assert_eq!(record(scene, steps, small).0, file);
}
