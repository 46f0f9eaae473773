//! Records one box falling onto the ground: the viewer's test fixture (the box orange,
//! 0xff6a00, so that the browser test tells it from the grey ground by colour).
//!
//! `cargo run -p impetus-recorder --example fall -- OUT.impr [STEPS] [NUDGE]` (default 120
//! steps). With NUDGE, a step number, the box gets a tiny sideways impulse (1 mN·s) just
//! before that step: a second recording that differs from the first from that frame on,
//! for the viewer's comparison test.

use impetus::{BodyId, BodyType};
use impetus_recorder::{default_colour, fall_world, RecordOptions, Recorder};

fn colour(id: BodyId, body_type: BodyType) -> u32 {
    match body_type {
        BodyType::Dynamic => 0xff_6a_00_ff,
        t => default_colour(id, t),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let out = args.next().ok_or("usage: fall OUT.impr [STEPS]")?;
    let steps: u32 = match args.next() {
        Some(s) => s.parse()?,
        None => 120,
    };
    let nudge: Option<u32> = args.next().map(|s| s.parse()).transpose()?;
    let mut world = fall_world()?;
    let dt = 1.0 / 60.0;
    let file = std::io::BufWriter::new(std::fs::File::create(&out)?);
    let mut recorder = Recorder::new(
        file,
        &world,
        dt,
        RecordOptions {
            colour,
            ..RecordOptions::default()
        },
    )?;
    let the_box = world.bodies().nth(1).ok_or("no box")?;
    for step in 1..=steps {
        if nudge == Some(step) {
            let at = world.body_position(the_box)?;
            world.apply_linear_impulse(the_box, impetus::Vec3::new(0.001, 0.0, 0.0), at)?;
        }
        world.step(dt)?;
        recorder.record(&world)?;
    }
    recorder.finish()?;
    println!(
        "wrote {out} ({} bytes, {steps} steps)",
        std::fs::metadata(&out)?.len()
    );
    Ok(())
}
