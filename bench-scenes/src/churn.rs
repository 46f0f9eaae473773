//! `impetus-bench churn`: one scene's world built, stepped and dropped again and again in
//! one process, as a game server that makes a world per match does. After each drop the
//! live bytes of the counting allocator must be back where they were before the first
//! world, and each world's high-water mark must match the first's; RSS is reported beside
//! them (the system allocator need not give pages back, so it is not checked).

use crate::scenes::Scene;
use crate::soak::{rss_bytes, MemProbe};
use crate::{world_def, Params, DT};
use impetus::World;
use std::time::Instant;

/// Bytes a dropped world may leave live (the allocator's counters themselves, lazily
/// initialised statics of the standard library such as stdout's buffer).
pub const LEFT_LIVE_SLACK: u64 = 64 * 1024;
/// Relative growth allowed between the first world's live high-water mark and any later
/// one's.
pub const PEAK_TOLERANCE: f64 = 0.01;

/// One world's figures.
#[derive(Clone, Copy, Debug, Default)]
pub struct ChurnRound {
    /// Time to build the world, s.
    pub build_s: f64,
    /// Time of its steps, s.
    pub step_s: f64,
    /// Live bytes at the world's high-water mark (build and steps).
    pub peak_bytes: u64,
    /// Live bytes after the world was dropped, over those before the first world.
    pub left_bytes: i64,
    /// RSS after the drop, bytes.
    pub rss_bytes: u64,
    /// The world's state hash after its steps (the same every round).
    pub hash: u64,
}

/// Builds `scene`, steps it `steps` times at `threads` and drops it, `worlds` times;
/// prints a line per world. `Err` names the first round whose memory did not come back
/// or whose high-water mark grew, or whose hash differed from the first round's.
pub fn run(
    scene: &Scene,
    worlds: usize,
    steps: usize,
    threads: usize,
    mem: MemProbe,
) -> Result<Vec<ChurnRound>, String> {
    let base = (mem.read)().live_bytes;
    println!(
        "churn: {} ({} bodies) built, stepped {steps} times at {threads} thread(s) and \
         dropped, {worlds} times; live before the first: {:.2} MiB, rss {:.1} MiB",
        scene.name,
        scene.bodies,
        mib(base),
        mib(rss_bytes())
    );
    let mut rounds: Vec<ChurnRound> = Vec::with_capacity(worlds);
    for k in 1..=worlds {
        (mem.reset_peak)();
        let t = Instant::now();
        let mut world = World::new(world_def(threads)).map_err(|e| e.to_string())?;
        scene
            .build(&mut world, &Params::default())
            .map_err(|e| e.to_string())?;
        let build_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        for _ in 0..steps {
            world.step(DT).map_err(|e| e.to_string())?;
        }
        let step_s = t.elapsed().as_secs_f64();
        let hash = world.state_hash();
        drop(world);
        let stats = (mem.read)();
        let r = ChurnRound {
            build_s,
            step_s,
            peak_bytes: stats.peak_bytes,
            left_bytes: stats.live_bytes as i64 - base as i64,
            rss_bytes: rss_bytes(),
            hash,
        };
        println!(
            "  world {k:>2}: built in {:.2} s, {steps} steps in {:.2} s, live peak {:.2} MiB, \
             left live {:+} B, rss {:.1} MiB, hash {hash:016x}",
            r.build_s,
            r.step_s,
            mib(r.peak_bytes),
            r.left_bytes,
            mib(r.rss_bytes)
        );
        rounds.push(r);
        check(&rounds)?;
    }
    Ok(rounds)
}

/// The checks on the rounds so far (the last one against the first).
pub fn check(rounds: &[ChurnRound]) -> Result<(), String> {
    let (Some(first), Some(last)) = (rounds.first(), rounds.last()) else {
        return Ok(());
    };
    let k = rounds.len();
    if last.left_bytes > LEFT_LIVE_SLACK as i64 {
        return Err(format!(
            "world {k} left {} bytes live after it was dropped (allowed {LEFT_LIVE_SLACK})",
            last.left_bytes
        ));
    }
    let allowed = (first.peak_bytes as f64 * (1.0 + PEAK_TOLERANCE)) as u64;
    if last.peak_bytes > allowed {
        return Err(format!(
            "world {k}'s live high-water mark {:.2} MiB is over the first world's {:.2} MiB \
             by more than {:.0}%",
            mib(last.peak_bytes),
            mib(first.peak_bytes),
            PEAK_TOLERANCE * 100.0
        ));
    }
    if last.hash != first.hash {
        return Err(format!(
            "world {k} ended on hash {:016x}, the first on {:016x}",
            last.hash, first.hash
        ));
    }
    Ok(())
}

fn mib(b: u64) -> f64 {
    b as f64 / (1024.0 * 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(peak: u64, left: i64, hash: u64) -> ChurnRound {
        ChurnRound {
            peak_bytes: peak,
            left_bytes: left,
            hash,
            ..Default::default()
        }
    }

    #[test]
    fn check_names_leaks_growth_and_divergence() {
        let first = round(1_000_000, 100, 7);
        assert!(check(&[first, round(1_005_000, 200, 7)]).is_ok());
        let e = check(&[first, round(1_000_000, 1 << 20, 7)]).unwrap_err();
        assert!(e.contains("left 1048576 bytes live"), "{e}");
        let e = check(&[first, round(1_020_000, 0, 7)]).unwrap_err();
        assert!(e.contains("high-water mark"), "{e}");
        let e = check(&[first, round(1_000_000, 0, 8)]).unwrap_err();
        assert!(e.contains("hash"), "{e}");
    }
}
