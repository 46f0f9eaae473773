//! Records a 16 × 16 cloth falling onto a sphere ([`impetus_recorder::cloth_world`]): the
//! viewer's particle fixture (the sphere and the ground grey).
//!
//! `cargo run -p impetus-recorder --example cloth -- OUT.impr [STEPS] [--grid E] [--churn]`
//! (default 90 steps; `--grid E` rounds the recorded positions to 2^-E m, as
//! `impetus-bench record --grid` does). With `--churn`, particles come and go: the cloth's
//! last row is removed before step 40, and three loose particles (radius 5 cm, in the
//! freed slots, with new generations) are dropped onto the cloth before step 50.
//!
//! The viewer's fixture is `cargo run -p impetus-recorder --example cloth --
//! tools/viewer/test/fixtures/cloth.impr 120 --grid 10 --churn`.

use impetus::{ParticleDef, Vec3};
use impetus_recorder::{cloth_world, RecordOptions, Recorder, Recording};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let usage = "usage: cloth OUT.impr [STEPS] [--grid E] [--churn]";
    let mut out = None;
    let mut steps = 90u32;
    let mut grid = None;
    let mut churn = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--grid" => grid = Some(args.next().ok_or(usage)?.parse::<i32>()?),
            "--churn" => churn = true,
            _ if out.is_none() => out = Some(a),
            _ => steps = a.parse()?,
        }
    }
    let out = out.ok_or(usage)?;
    let mut world = cloth_world()?;
    let dt = 1.0 / 60.0;
    let file = std::io::BufWriter::new(std::fs::File::create(&out)?);
    let options = RecordOptions {
        grid,
        ..RecordOptions::default()
    };
    let mut recorder = Recorder::new(file, &world, dt, options)?;
    let last_row: Vec<_> = world.particles().skip(240).map(|(id, _)| id).collect();
    for step in 1..=steps {
        if churn && step == 40 {
            for &id in &last_row {
                world.remove_particle(id)?;
            }
        }
        if churn && step == 50 {
            for k in 0..3 {
                world.create_particle(&ParticleDef {
                    position: Vec3::new(0.25 * (k as f32 - 1.0), 1.5, 0.1),
                    radius: 0.05,
                    mass: 0.05,
                    ..ParticleDef::default()
                })?;
            }
        }
        world.step(dt)?;
        recorder.record(&world)?;
    }
    std::io::Write::flush(&mut recorder.finish()?)?;
    let rec = Recording::read(&out)?;
    let last = rec.frames.last().ok_or("no frame")?;
    let (lo, hi) = last
        .particles
        .iter()
        .fold((f32::MAX, f32::MIN), |(lo, hi), (_, p)| {
            (lo.min(p[1]), hi.max(p[1]))
        });
    println!(
        "wrote {out} ({} bytes, {steps} steps, {} particles in the last frame, {} in all, grid {grid:?}); last frame: y {lo:.3} to {hi:.3} m",
        std::fs::metadata(&out)?.len(),
        last.particles.len(),
        rec.particles.len(),
    );
    Ok(())
}
