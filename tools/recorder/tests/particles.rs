//! Particles: writer -> reader bit-exact (ids, radii, positions, hashes), particles added
//! and removed mid-recording, the grid, old files and old readers, corrupt files.

use impetus::{ParticleDef, ParticleId, Vec3, World};
use impetus_recorder::{
    cloth_world, fall_world, first_difference, particle_hash, RecordOptions, Recorder, Recording,
};
use std::io::Read;

/// A frame's particles as the world has them: id, position.
type Truth = Vec<(ParticleId, [f32; 3])>;

fn snapshot(w: &World) -> Truth {
    w.particles().map(|(id, p)| (id, p.to_array())).collect()
}

/// Steps `world` `steps` times under a recorder, returning the file and each frame's
/// particles.
fn record(mut world: World, steps: u32, options: RecordOptions) -> (Vec<u8>, Vec<Truth>) {
    let mut truth = vec![snapshot(&world)];
    let mut r = Recorder::new(Vec::new(), &world, 1.0 / 60.0, options).unwrap();
    for _ in 0..steps {
        world.step(1.0 / 60.0).unwrap();
        r.record(&world).unwrap();
        truth.push(snapshot(&world));
    }
    (r.finish().unwrap(), truth)
}

fn gunzip(file: &[u8]) -> Vec<u8> {
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(file)
        .read_to_end(&mut raw)
        .unwrap();
    raw
}

/// The records of a decompressed stream: (offset, tag, payload length).
fn records(raw: &[u8]) -> Vec<(usize, u8, usize)> {
    let mut out = Vec::new();
    let mut at = 28;
    while at < raw.len() {
        let len = u32::from_le_bytes(raw[at + 1..at + 5].try_into().unwrap()) as usize;
        out.push((at, raw[at], len));
        at += 5 + len;
    }
    out
}

#[test]
fn cloth_round_trip_is_bit_exact() {
    let world = cloth_world().unwrap();
    let ids: Vec<ParticleId> = world.particles().map(|(id, _)| id).collect();
    assert_eq!(ids.len(), 256);
    let (file, truth) = record(world, 90, RecordOptions::default());
    let rec = Recording::from_bytes(&file).unwrap();
    println!("16 x 16 cloth, 90 steps, exact: {} bytes", file.len());
    assert_eq!(rec.frames.len(), 91);
    assert_eq!(rec.particles.len(), 256, "each particle once in the table");
    for (p, id) in rec.particles.iter().zip(&ids) {
        assert_eq!((p.id_index, p.id_generation), (id.index, id.generation));
        assert_eq!(p.radius.to_bits(), 0.02f32.to_bits());
        assert_eq!((p.first_frame, p.removed_at), (0, None));
    }
    for (f, want) in rec.frames.iter().zip(&truth) {
        assert_eq!(f.particles.len(), want.len(), "frame {}", f.frame);
        for ((n, got), (id, want)) in f.particles.iter().zip(want) {
            let p = &rec.particles[*n as usize];
            assert_eq!((p.id_index, p.id_generation), (id.index, id.generation));
            assert_eq!(
                got.map(f32::to_bits),
                want.map(f32::to_bits),
                "frame {}",
                f.frame
            );
        }
        assert_eq!(
            particle_hash(f.particles.iter().map(|(n, p)| (*n, p))),
            f.particle_hash
        );
    }
    // The cloth fell and lies on the sphere (top at y = 1), its rim hanging lower.
    let last = &rec.frames[90].particles;
    let top = last.iter().map(|(_, p)| p[1]).fold(f32::MIN, f32::max);
    let low = last.iter().map(|(_, p)| p[1]).fold(f32::MAX, f32::min);
    assert!((1.0..1.1).contains(&top), "top at y = {top}");
    assert!(low < 0.8, "the rim hangs down to y = {low}");
    assert_eq!(first_difference(&rec, &rec), None);
    // The particle records are tags 5 (once: the whole cloth appears at frame 0) and 6
    // (every frame), each just before its frame.
    let raw = gunzip(&file);
    let tags: Vec<u8> = records(&raw).iter().map(|r| r.1).collect();
    assert_eq!(tags.iter().filter(|&&t| t == 5).count(), 1);
    assert_eq!(tags.iter().filter(|&&t| t == 6).count(), 91);
    for w in tags.windows(2) {
        if w[0] == 6 {
            assert_eq!(w[1], 3, "a particle frame precedes its frame");
        }
    }
}

#[test]
fn particles_added_and_removed_during_the_recording() {
    let mut world = fall_world().unwrap();
    let mut r = Recorder::new(Vec::new(), &world, 1.0 / 60.0, RecordOptions::default()).unwrap();
    let def = |x: f32, radius: f32| ParticleDef {
        position: Vec3::new(x, 2.0, 1.0),
        radius,
        ..Default::default()
    };
    let mut made = Vec::new();
    for step in 1..=40 {
        match step {
            5 => {
                for k in 0..3 {
                    made.push(world.create_particle(&def(k as f32, 0.05)).unwrap());
                }
            }
            10 => world.remove_particle(made[1]).unwrap(),
            // The freed slot again, with a new generation: a new particle number.
            12 => made.push(world.create_particle(&def(5.0, 0.1)).unwrap()),
            20 => {
                for &id in [made[0], made[2], made[3]].iter() {
                    world.remove_particle(id).unwrap();
                }
            }
            25 => made.push(world.create_particle(&def(-1.0, 0.2)).unwrap()),
            _ => {}
        }
        world.step(1.0 / 60.0).unwrap();
        r.record(&world).unwrap();
    }
    assert_eq!(made[3].index, made[1].index, "the slot is reused");
    let rec = Recording::from_bytes(&r.finish().unwrap()).unwrap();
    let table: Vec<_> = rec
        .particles
        .iter()
        .map(|p| {
            (
                p.id_index,
                p.id_generation,
                p.radius,
                p.first_frame,
                p.removed_at,
            )
        })
        .collect();
    let row =
        |id: ParticleId, radius, first, removed| (id.index, id.generation, radius, first, removed);
    assert_eq!(
        table,
        vec![
            row(made[0], 0.05, 5, Some(20)),
            row(made[1], 0.05, 5, Some(10)),
            row(made[2], 0.05, 5, Some(20)),
            row(made[3], 0.1, 12, Some(20)),
            row(made[4], 0.2, 25, None),
        ]
    );
    let numbers = |f: usize| -> Vec<u32> { rec.frames[f].particles.iter().map(|p| p.0).collect() };
    assert!(numbers(4).is_empty());
    assert_eq!(numbers(5), [0, 1, 2]);
    assert_eq!(numbers(10), [0, 2]);
    assert_eq!(numbers(12), [0, 2, 3]);
    assert!(numbers(20).is_empty());
    assert_eq!(numbers(40), [4]);
    assert_eq!(rec.frames[4].particle_hash, particle_hash([]));
    // The particles fall (the box's poses are there as before).
    assert!(rec.frames[9].particles[0].1[1] < 2.0);
    assert!(rec.frames[9].poses.iter().any(|(b, _)| *b == 1));
}

#[test]
fn grid_rounds_the_particles_and_keeps_the_radii() {
    let (exact, truth) = record(cloth_world().unwrap(), 60, RecordOptions::default());
    let options = RecordOptions {
        grid: Some(10),
        ..Default::default()
    };
    let (rounded, _) = record(cloth_world().unwrap(), 60, options);
    println!(
        "16 x 16 cloth, 60 steps: exact {} bytes, grid 10 {} bytes",
        exact.len(),
        rounded.len()
    );
    assert!(rounded.len() * 2 < exact.len());
    let (a, b) = (
        Recording::from_bytes(&exact).unwrap(),
        Recording::from_bytes(&rounded).unwrap(),
    );
    assert_eq!(a.particles, b.particles, "the same table, exact radii");
    for ((fa, fb), want) in a.frames.iter().zip(&b.frames).zip(&truth) {
        assert_eq!(fa.state_hash, fb.state_hash);
        assert_eq!(fb.particles.len(), want.len());
        for ((_, p), (_, w)) in fb.particles.iter().zip(want) {
            for (v, w) in p.iter().zip(w) {
                assert_eq!((v * 1024.0).fract(), 0.0, "{v} on the grid");
                assert!((v - w).abs() <= 0.5 / 1024.0, "{v} is {w} rounded");
            }
        }
    }
    assert_eq!(
        first_difference(&a, &b),
        Some(0),
        "the particle hashes differ"
    );
}

#[test]
fn old_files_and_old_readers() {
    // A file written before particles existed (the viewer's fixture) reads, with none.
    let old = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../viewer/test/fixtures/fall.impr"
    );
    let rec = Recording::read(old).unwrap();
    assert_eq!(rec.frames.len(), 121);
    assert!(rec.particles.is_empty());
    assert!(rec
        .frames
        .iter()
        .all(|f| f.particles.is_empty() && f.particle_hash == particle_hash([])));
    // A world without particles writes no particle records: such files are as before.
    let (file, _) = record(fall_world().unwrap(), 30, RecordOptions::default());
    assert!(records(&gunzip(&file)).iter().all(|r| r.1 < 5));

    // A reader that predates particles skips tags 5 and 6: the same stream without them
    // reads, every frame's poses and hashes as they are.
    let (file, _) = record(cloth_world().unwrap(), 30, RecordOptions::default());
    let raw = gunzip(&file);
    let mut stripped = raw[..28].to_vec();
    for (at, tag, len) in records(&raw) {
        if tag != 5 && tag != 6 {
            stripped.extend_from_slice(&raw[at..at + 5 + len]);
        }
    }
    let (full, bare) = (
        Recording::from_raw(&raw).unwrap(),
        Recording::from_raw(&stripped).unwrap(),
    );
    assert!(bare.particles.is_empty());
    for (x, y) in full.frames.iter().zip(&bare.frames) {
        assert_eq!(
            (x.state_hash, x.pose_hash, &x.poses),
            (y.state_hash, y.pose_hash, &y.poses)
        );
    }
}

#[test]
fn bad_files_with_particles_are_errors_naming_the_fault() {
    let (file, _) = record(cloth_world().unwrap(), 8, RecordOptions::default());
    // Every truncation and many bit flips of the compressed file: errors, never a panic.
    for n in 0..file.len() {
        assert!(Recording::from_bytes(&file[..n]).is_err(), "cut at {n}");
    }
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    for _ in 0..300 {
        let r = next();
        let mut bad = file.clone();
        let at = (r % bad.len() as u64) as usize;
        bad[at] ^= 1 << (r >> 61);
        let _ = Recording::from_bytes(&bad);
    }
    // The decompressed stream: every truncation is an error naming a byte offset, or (at
    // a record boundary after a frame) a shorter recording; a cut between a particle
    // frame and its frame is an error.
    let raw = gunzip(&file);
    for n in 0..raw.len() {
        match Recording::from_raw(&raw[..n]) {
            Ok(r) => assert!(r.frames.len() < 9),
            Err(e) => assert!(e.offset.is_some(), "cut at {n}: {e}"),
        }
    }
    let recs = records(&raw);
    let (at, _, len) = *recs.iter().filter(|r| r.1 == 6).nth(4).unwrap();
    let e = Recording::from_raw(&raw[..at + 5 + len]).unwrap_err();
    assert_eq!(e.offset, Some(at + 5), "{e}");
    assert!(
        e.to_string()
            .contains("particles of frame 4 and then no frame"),
        "{e}"
    );
    // Flips and junk anywhere: errors with an offset, or recordings.
    for k in 0..3000 {
        let r = next();
        let mut bad = raw.clone();
        let at = (r % bad.len() as u64) as usize;
        bad[at] ^= 1 << (r >> 61);
        if k % 2 == 0 {
            bad[(r >> 20) as usize % raw.len()] = (r >> 40) as u8;
        }
        if let Err(e) = Recording::from_raw(&bad) {
            assert!(e.offset.is_some(), "{e}");
        }
    }
    // A flipped bit of a particle position in frame 4: the particle hash names the frame
    // (tag, length, frame, hash, n: 21 bytes, then the gap column's 4 planes of 256).
    let mut bad = raw.clone();
    bad[at + 21 + 4 * 256 + 3] ^= 0x10;
    let e = Recording::from_raw(&bad).unwrap_err().to_string();
    assert!(
        e.contains("frame 4 particles: the particles decode to particle hash"),
        "{e}"
    );
    // A particle frame numbered for another frame, a particle number past the table, two
    // particle frames for one frame: errors naming them.
    let mut bad = raw.clone();
    bad[at + 5] = 7;
    let e = Recording::from_raw(&bad).unwrap_err().to_string();
    assert!(
        e.contains("the particles of frame 7 where those of frame 4 belong"),
        "{e}"
    );
    let mut bad = raw.clone();
    bad[at + 21] = 255; // the first gap's low byte: particle 255 then 256 and on
    let e = Recording::from_raw(&bad).unwrap_err().to_string();
    assert!(e.contains("but the particle table has 256"), "{e}");
    let mut bad = raw[..at + 5 + len].to_vec();
    bad.extend_from_slice(&raw[at..]);
    let e = Recording::from_raw(&bad).unwrap_err().to_string();
    assert!(e.contains("a second particle frame for frame 4"), "{e}");
}
