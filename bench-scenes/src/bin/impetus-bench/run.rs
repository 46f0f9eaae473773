//! `impetus-bench run`: one scene on one engine, or a saved world image stepped on, with
//! its cost and stability table on stdout.

use crate::cli::RunArgs;
use crate::engine::Engine;
use crate::progress::Progress;
use crate::write_json;
use impetus_scenes::measure::{run_scene_world, run_world};
use impetus_scenes::world_def;

/// `run <scene>`: builds the scene on the engine, steps it and prints the table; with
/// `--save-image`, writes the world's image after the last step.
pub fn run(a: &RunArgs) -> Result<(), String> {
    if let Some(path) = &a.image {
        return run_image(a, path);
    }
    let scene = a.scene.ok_or("run needs a scene or --image")?;
    let threads = a.threads.unwrap_or(1);
    let engine = a.engine;
    let steps = a.steps.unwrap_or(scene.default_steps).max(1);
    let label = match engine {
        Engine::Impetus => scene.name.to_string(),
        e => format!("{} {}", scene.name, e.name()),
    };
    let result = match &a.save_image {
        None => engine.run(scene, threads, steps, &label, a.sleep)?,
        Some(path) => {
            if engine != Engine::Impetus {
                return Err("--save-image needs --engine impetus".to_string());
            }
            let def = impetus::WorldDef {
                enable_sleep: a.sleep,
                ..world_def(threads)
            };
            let bar = Progress::new(&label, steps);
            let run = run_scene_world(scene, def, steps, bar.callback());
            bar.finish();
            let (result, world) = run.map_err(|e| e.to_string())?;
            let mut image = Vec::new();
            world.save_image(&mut image);
            std::fs::write(path, &image).map_err(|e| format!("writing {path}: {e}"))?;
            println!("wrote {path} ({} bytes)", image.len());
            result
        }
    };
    println!("{}", result.table());
    if engine == Engine::Impetus {
        validate_note();
    }
    if let Some(path) = &a.json {
        write_json(path, &result.to_json())?;
    }
    Ok(())
}

/// `run --image FILE`: loads a world from its image and steps it on, labelled with the
/// file's name (the scene name, if given, is ignored).
fn run_image(a: &RunArgs, path: &str) -> Result<(), String> {
    if a.engine != Engine::Impetus {
        return Err("--image runs impetus only".to_string());
    }
    let bytes = std::fs::read(path).map_err(|e| format!("reading {path}: {e}"))?;
    let mut world = match a.threads {
        None => impetus::World::from_image(&bytes),
        Some(threads) => impetus::World::from_image_with_workers(&bytes, threads),
    }
    .map_err(|e| format!("{path}: {e}"))?;
    let steps = a.steps.unwrap_or(600).max(1);
    let label = std::path::Path::new(path)
        .file_name()
        .map_or(path.to_string(), |n| n.to_string_lossy().to_string());
    let bar = Progress::new(&label, steps);
    let run = run_world(&mut world, &label, &[], steps, bar.callback());
    bar.finish();
    let result = run.map_err(|e| e.to_string())?;
    if let Some(out) = &a.save_image {
        let mut image = Vec::new();
        world.save_image(&mut image);
        std::fs::write(out, &image).map_err(|e| format!("writing {out}: {e}"))?;
        println!("wrote {out} ({} bytes)", image.len());
    }
    println!("{}", result.table());
    validate_note();
    if let Some(out) = &a.json {
        write_json(out, &result.to_json())?;
    }
    Ok(())
}

/// After a run of impetus: says when this build checks the engine's invariants every step
/// (its times are then not the engine's; see [`crate::compare::VALIDATE_BUILD`]).
fn validate_note() {
    if impetus::VALIDATES {
        println!("  note: {}", crate::compare::VALIDATE_BUILD);
    }
}
