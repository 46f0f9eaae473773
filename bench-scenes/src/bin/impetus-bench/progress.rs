//! The progress bar of a run, on stderr: label, bar, step of steps, the last step's ms and
//! the time left.
//!
//! It is drawn only when stderr is a terminal (indicatif's `ProgressDrawTarget::stderr()`
//! hides it otherwise), at most 20 times a second, so a redirected stderr gets no frames
//! and the tables and JSON on stdout are untouched. A hidden bar is not updated at all: a
//! run whose stderr goes to a file pays nothing per step for it.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

/// One run's progress bar.
pub struct Progress {
    bar: ProgressBar,
    /// The last step's ms as `f64` bits, written by the runner's callback and read by the
    /// bar when it draws (a plain store per step, no string formatted for skipped frames).
    last_ms: Arc<AtomicU64>,
}

impl Progress {
    /// A bar labelled `label` for a run of `steps` steps; nothing is drawn before the
    /// first step.
    pub fn new(label: &str, steps: usize) -> Progress {
        let last_ms = Arc::new(AtomicU64::new(0f64.to_bits()));
        let shown = last_ms.clone();
        let style = ProgressStyle::with_template(
            "{prefix} [{bar:30}] {pos}/{len}  {ms} ms/step  eta {eta}",
        )
        .expect("a valid template")
        .progress_chars("##-")
        .with_key(
            "ms",
            move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:7.2}", f64::from_bits(shown.load(Relaxed)));
            },
        );
        let bar = ProgressBar::with_draw_target(Some(steps as u64), ProgressDrawTarget::stderr())
            .with_style(style)
            .with_prefix(label.to_string());
        Progress { bar, last_ms }
    }

    /// The callback the runners take, `(step, last_ms)` after every step. It holds its
    /// own handles on the bar, so the run may own it.
    pub fn callback(&self) -> impl FnMut(usize, f64) {
        let hidden = self.bar.is_hidden();
        let (bar, last_ms) = (self.bar.clone(), self.last_ms.clone());
        move |step, ms| {
            if !hidden {
                last_ms.store(ms.to_bits(), Relaxed);
                bar.set_position(step as u64);
            }
        }
    }

    /// Draws the bar's last state and leaves it on its line.
    pub fn finish(self) {
        self.bar.finish();
    }
}
