//! Records a hinged bar and a chain of three ball-jointed links swinging down
//! ([`impetus_recorder::joints_world`]): the viewer's joint fixture. The chain's last joint
//! is removed before step 60, so its link falls to the ground.
//!
//! `cargo run -p impetus-recorder --example joints -- OUT.impr [STEPS]` (default 120
//! steps). The viewer's fixture is `cargo run -p impetus-recorder --example joints --
//! tools/viewer/test/fixtures/joints.impr`.

use impetus_recorder::{joints_world, RecordOptions, Recorder, Recording};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let out = args.next().ok_or("usage: joints OUT.impr [STEPS]")?;
    let steps: u32 = match args.next() {
        Some(s) => s.parse()?,
        None => 120,
    };
    let (mut world, last_joint) = joints_world()?;
    let dt = 1.0 / 60.0;
    let file = std::io::BufWriter::new(std::fs::File::create(&out)?);
    let mut recorder = Recorder::new(file, &world, dt, RecordOptions::default())?;
    for step in 1..=steps {
        if step == 60 {
            world.remove_joint(last_joint)?;
        }
        world.step(dt)?;
        recorder.record(&world)?;
    }
    std::io::Write::flush(&mut recorder.finish()?)?;
    let rec = Recording::read(&out)?;
    println!(
        "wrote {out} ({} bytes, {steps} steps, {} bodies, {} joints, {} removed)",
        std::fs::metadata(&out)?.len(),
        rec.bodies.len(),
        rec.joints.len(),
        rec.joints.iter().filter(|j| j.removed_at.is_some()).count(),
    );
    Ok(())
}
