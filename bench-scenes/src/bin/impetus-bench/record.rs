//! `impetus-bench record` and `view`: a scene stepped with a recorder attached into an
//! `.impr` file, and the viewer serving one or two such files.

use crate::cli::{RecordArgs, ViewArgs};
use crate::progress::Progress;
use impetus_scenes::world_def;
use std::io::Write;
use std::time::Instant;

/// `record <scene> --out FILE`: builds the scene, attaches a recorder and steps it, a
/// frame per step.
pub fn record(a: &RecordArgs) -> Result<(), String> {
    let scene = a.scene;
    let out = &a.out;
    let steps = a.steps.unwrap_or(scene.default_steps as u32);
    let options = impetus_recorder::RecordOptions {
        contacts: !a.no_contacts,
        grid: a.grid,
        ..Default::default()
    };
    let mut world = impetus::World::new(impetus::WorldDef {
        enable_sleep: a.sleep,
        ..world_def(a.threads)
    })
    .map_err(|e| e.to_string())?;
    scene
        .build(&mut world, &impetus_scenes::Params::default())
        .map_err(|e| e.to_string())?;
    let file = std::fs::File::create(out).map_err(|e| format!("creating {out}: {e}"))?;
    let started = Instant::now();
    let fail = |e: impetus_recorder::RecordError| format!("{out}: {e}");
    let mut recorder = impetus_recorder::Recorder::new(
        std::io::BufWriter::new(file),
        &world,
        impetus_scenes::DT,
        options,
    )
    .map_err(fail)?;
    let bar = Progress::new(scene.name, steps as usize);
    let mut progress = bar.callback();
    for step in 1..=steps {
        let t = Instant::now();
        world.step(impetus_scenes::DT).map_err(|e| e.to_string())?;
        recorder.record(&world).map_err(fail)?;
        progress(step as usize, t.elapsed().as_secs_f64() * 1000.0);
    }
    bar.finish();
    recorder
        .finish()
        .map_err(fail)?
        .flush()
        .map_err(|e| format!("writing {out}: {e}"))?;
    let bytes = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    println!(
        "wrote {out}: {} frames of {} ({} bodies), {bytes} bytes, {:.1} s; state hash {:016x}",
        steps + 1,
        scene.name,
        world.body_count(),
        started.elapsed().as_secs_f64(),
        world.state_hash()
    );
    Ok(())
}

/// `view FILE [OTHER]`: serves the viewer and the recordings on 127.0.0.1.
pub fn view(a: &ViewArgs) -> Result<(), String> {
    for r in &a.recordings {
        // Read it here first, so that a bad file is named now, not in the browser.
        impetus_recorder::Recording::read(r).map_err(|e| format!("{}: {e}", r.display()))?;
    }
    let options = impetus_recorder::serve::ServeOptions {
        viewer_dir: impetus_recorder::serve::default_viewer_dir(),
        recordings: a.recordings.clone(),
        port: a.port,
        max_requests: None,
    };
    impetus_recorder::serve::serve(&options, |url| {
        println!("viewer: {url}  (Ctrl-C stops)");
    })
    .map_err(|e| format!("serving the viewer: {e}"))
}
