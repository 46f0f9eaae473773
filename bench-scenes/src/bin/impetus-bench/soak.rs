//! `impetus-bench soak` and `churn`: the long checked runs, with the counting allocator as
//! their memory probe.

use crate::cli::{ChurnArgs, SoakArgs};
use crate::counting;
use impetus_scenes::soak::{MemProbe, SoakOptions};

/// The counting allocator's counters, for the memory checks.
fn probe() -> MemProbe {
    MemProbe {
        read: counting::read,
        reset_peak: counting::reset_peak,
    }
}

/// `soak [--minutes M] [--threads T] [--seed S] [--segment K] [--segments N]`.
pub fn soak(a: &SoakArgs) -> Result<(), String> {
    let mut opts = SoakOptions::new(a.seed);
    opts.minutes = a.minutes;
    opts.threads = a.threads;
    opts.first_segment = a.segment;
    opts.max_segments = a.segments;
    impetus_scenes::soak::run(&opts, Some(probe())).map(|_| ())
}

/// `churn <scene> [--worlds R] [--steps N] [--threads T]`.
pub fn churn(a: &ChurnArgs) -> Result<(), String> {
    impetus_scenes::churn::run(a.scene, a.worlds.max(1), a.steps, a.threads, probe()).map(|_| ())
}
