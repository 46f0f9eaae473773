//! Runs of small colours passed as one stage, each batch waiting only for the batches
//! before it that move its bodies.
//!
//! A pass runs the colours one after another, and at two threads or more each colour of
//! more than one batch is a stage of the region: the threads meet at its end. A scene
//! with a long tail of small colours (the pile's columns touch their neighbours here and
//! there, and those contacts spread over a dozen colours of ten batches or so) pays that
//! meeting for a few batches' work, colour after colour. Here a run of consecutive small
//! colours is one stage instead: the threads take its batches in order from a shared
//! cursor, and a batch first waits until the batch before it in the run that last moved
//! each of its bodies is done.
//!
//! Each body then sees the run's batches that move it in colour order, as a pass colour
//! after colour gives them, and a batch reads its bodies as those batches left them: the
//! results are the colour pass's, bit for bit, for any thread count (a batch's lanes share
//! no body, so what it computes does not depend on which thread runs it). No batch waits
//! for a later one and every batch taken is run by a thread that waits for nothing later,
//! so the threads cannot wait on each other in a circle.

use super::super::contact_wide::ContactConstraintW;
use super::super::wide::W;
use super::ConstraintGraph;
use crate::id::NULL;
use crate::math::{prefetch_batches, prefetch_raw};
use crate::parallel::{on_each_thread, DisjointPtr};
use std::ops::Range;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

/// A colour of at most this many contact batches is small (and without joint batches, it
/// may join a run). Larger colours keep their stages, whose front and back halves go to
/// the same cores pass after pass (32, 64, 96, 128 and 200 measured on the pile:
/// `docs/decisions.md`, "Runs of small colours in one stage").
const SMALL: usize = 64;

/// The fewest stages a run must save: a run's batches wait for each other, and the
/// stages of a few colours cost less than that (rain's run of five lost 3 % of its passes,
/// the pile's of thirteen gained 5 %: `docs/decisions.md`, "Runs of small colours in one
/// stage").
const MIN_STAGES: usize = 8;

/// The most batches a thread takes from the cursor at a time: a quarter of what is left of
/// the run, between [`TAKE_MIN`] and this. Larger takes wait longer for the batches before
/// them (the pile's run lost its gain at 32, and at a quarter of the run unbounded); smaller
/// ones pay the cursor's line more often.
const TAKE: usize = 16;
const TAKE_MIN: usize = 2;

/// The runs of small colours of a step and what each of their batches waits for.
#[derive(Default)]
pub(crate) struct Waves {
    /// Each run: its colours and its contact batches.
    runs: Vec<(Range<usize>, Range<usize>)>,
    /// Per contact batch of a run, where its list in `after` starts: `first[i]..first[i +
    /// 1]` for batch `i` (meaningless for the batches of no run).
    first: Vec<u32>,
    /// The batches each batch of a run waits for (earlier batches of its run).
    after: Vec<u32>,
    /// Per contact batch of a run, its lanes' solver bodies ([`NULL`] for none): the next
    /// batch's are asked for while one is solved.
    rows: Vec<[u32; 2 * W]>,
    /// Scratch per solver body: the last batch planned that moves it.
    last: Vec<u32>,
    /// Per contact batch, the number of the pass that last finished it.
    done: Vec<AtomicU32>,
    /// The passes run so far (a batch is done in this pass when its `done` holds it).
    pass: u32,
}

impl Waves {
    /// Plans the step's runs: consecutive colours of at most [`SMALL`] batches, where at
    /// least [`MIN_STAGES`] of them would be a stage of its own (`ranges`: each colour's
    /// contact batches, made `W` to a batch from its list in `lists`; `pairs`: each
    /// touching contact's solver bodies, [`NULL`] for a static or kinematic one; `bodies`:
    /// the solver's count). Nothing is planned when the passes run on one thread
    /// (`parallel` unset). Reads no batch: it runs beside prepare's first stage.
    pub fn plan(
        &mut self,
        parallel: bool,
        ranges: &[Range<usize>],
        lists: &[Vec<u32>],
        pairs: &[[u32; 2]],
        bodies: usize,
    ) {
        self.runs.clear();
        self.first.clear();
        self.after.clear();
        if !parallel {
            return;
        }
        let small = |k: usize| ranges[k].len() <= SMALL;
        let mut k = 0;
        while k < ranges.len() {
            if !small(k) {
                k += 1;
                continue;
            }
            let start = k;
            while k < ranges.len() && small(k) {
                k += 1;
            }
            // (A colour of one batch is run serially already, with no meeting.)
            let stages = (start..k).filter(|&c| ranges[c].len() > 1).count();
            if stages >= MIN_STAGES {
                self.runs
                    .push((start..k, ranges[start].start..ranges[k - 1].end));
            }
        }
        if self.runs.is_empty() {
            return;
        }
        let total = ranges.last().map_or(0, |r| r.end);
        self.last.clear();
        self.last.resize(bodies, NULL);
        self.first.resize(total + 1, 0);
        self.rows.resize(total, [NULL; 2 * W]);
        for (colors, run) in &self.runs {
            self.first[run.start] = self.after.len() as u32;
            let mut i = run.start;
            for list in &lists[colors.clone()] {
                for chunk in list.chunks(W) {
                    let row = &mut self.rows[i];
                    *row = [NULL; 2 * W];
                    for (l, &k) in chunk.iter().enumerate() {
                        [row[l], row[W + l]] = pairs[k as usize];
                    }
                    for &body in row.iter().filter(|&&b| b != NULL) {
                        let last = std::mem::replace(&mut self.last[body as usize], i as u32);
                        // (Another run's batches are all done before this run starts. A
                        // batch listed twice is waited for twice: cheaper than looking. A
                        // body twice in one batch, which no colour has, must not make the
                        // batch wait for itself.)
                        if last != NULL && last as usize >= run.start && (last as usize) < i {
                            self.after.push(last);
                        }
                    }
                    i += 1;
                    self.first[i] = self.after.len() as u32;
                }
            }
            debug_assert_eq!(i, run.end);
        }
        if self.done.len() < total {
            self.done.resize_with(total, || AtomicU32::new(0));
        }
    }

    /// Keeps the runs whose every colour `clear(k)` says may join one.
    pub fn keep(&mut self, clear: impl Fn(usize) -> bool) {
        self.runs.retain(|(colors, _)| colors.clone().all(&clear));
    }

    /// Panics unless every body the runs' batches move is in the batch's row, which the
    /// plan made from the contacts' pairs (the `validate` feature).
    #[cfg(feature = "validate")]
    pub fn check(&self, batches: &[ContactConstraintW]) {
        for (_, run) in &self.runs {
            for i in run.clone() {
                let (a, b) = batches[i].bodies();
                for &body in a.iter().chain(b).filter(|&&k| k != NULL) {
                    assert!(
                        self.rows[i].contains(&body),
                        "validate: batch {i} moves body {body}, which its run did not plan"
                    );
                }
            }
        }
    }

    /// Contact batches in the runs.
    pub fn batches(&self) -> usize {
        self.runs.iter().map(|(_, b)| b.len()).sum()
    }

    /// The run that starts at colour `color`, if one does: its colours and its batches.
    pub fn run_at(&self, color: usize) -> Option<(Range<usize>, Range<usize>)> {
        self.runs.iter().find(|(c, _)| c.start == color).cloned()
    }

    /// Runs `f` on every batch of `run` (a range of `batches`, [`Self::run_at`]'s), in
    /// order on one thread or, when `parallel`, on every thread of the region, each batch
    /// after the batches it waits for. `bytes(i)`: how much of batch `i` a pass reads.
    pub fn pass(
        &mut self,
        run: Range<usize>,
        batches: &mut [ContactConstraintW],
        parallel: bool,
        bytes: impl Fn(usize) -> usize + Sync,
        state: impl Fn(u32) + Sync,
        f: impl Fn(&mut ContactConstraintW) + Sync,
    ) {
        self.pass = self.pass.wrapping_add(1);
        if self.pass == 0 {
            // (Every flag said some pass of long ago; none may say this one.)
            self.done.iter_mut().for_each(|d| *d.get_mut() = 0);
            self.pass = 1;
        }
        let (pass, done, first, after) = (self.pass, &self.done, &self.first, &self.after);
        let rows = &self.rows;
        let stride = size_of::<ContactConstraintW>();
        let base = batches.as_ptr() as usize;
        let ask = prefetch_batches();
        let out = DisjointPtr::new(batches);
        let cursor = AtomicUsize::new(run.start);
        on_each_thread(parallel, || loop {
            // Guided: a share of what is left, so the threads end close together.
            let mut start = cursor.load(Ordering::Relaxed);
            let mut size;
            loop {
                if start >= run.end {
                    return;
                }
                size = ((run.end - start) / 4).clamp(TAKE_MIN, TAKE);
                match cursor.compare_exchange_weak(
                    start,
                    start + size,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => break,
                    Err(now) => start = now,
                }
            }
            // Each batch taken is marked done however its work ends: a panic is raised by
            // the region once every thread has left the stage, and no thread may wait for
            // a batch of it for ever.
            let mut taken = Taken {
                done,
                next: start,
                end: run.end.min(start + size),
                pass,
            };
            while taken.next < taken.end {
                let i = taken.next;
                if i + 1 < run.end {
                    if ask {
                        prefetch_raw(base + (i + 1) * stride, bytes(i + 1));
                    }
                    rows[i + 1]
                        .iter()
                        .filter(|&&k| k != NULL)
                        .for_each(|&k| state(k));
                }
                for &d in &after[first[i] as usize..first[i + 1] as usize] {
                    while done[d as usize].load(Ordering::Acquire) != pass {
                        std::hint::spin_loop();
                    }
                }
                f(out.get_mut(i as u32));
                done[i].store(pass, Ordering::Release);
                taken.next += 1;
            }
        });
    }
}

/// The batches a thread took from a run's cursor, `next..end` not yet done: marked done
/// when dropped (see [`Waves::pass`]).
struct Taken<'a> {
    done: &'a [AtomicU32],
    next: usize,
    end: usize,
    pass: u32,
}

impl Drop for Taken<'_> {
    fn drop(&mut self) {
        for d in &self.done[self.next..self.end] {
            d.store(self.pass, Ordering::Release);
        }
    }
}

impl ConstraintGraph {
    /// Leaves out of the step's runs of small colours (planned by [`Self::build`], see the
    /// module comment) those with a colour that holds joint batches: a pass runs a colour's
    /// joints before its contacts. After the joints' batches are made.
    pub fn runs_without_joints(&mut self) {
        let (joints, balls) = (&self.joint_ranges, &self.ball_ranges);
        let has = |ranges: &[Range<usize>], k: usize| ranges.get(k).is_some_and(|r| !r.is_empty());
        self.waves.keep(|k| !has(joints, k) && !has(balls, k));
        #[cfg(feature = "validate")]
        self.waves.check(&self.contact_batches);
    }

    /// Contact batches in this step's runs of small colours (see the module comment).
    pub fn wave_batches(&self) -> usize {
        self.waves.batches()
    }
}

#[cfg(test)]
mod tests {
    use super::{Waves, NULL, SMALL, W};

    /// Colours of 3, then seven of 2, then `SMALL + 1` and 2 batches over 40 bodies, each
    /// contact joining two bodies picked by a fixed rule: one run (the first eight colours;
    /// the big colour ends it, and the last alone is no run), and each batch of it waits for
    /// exactly the last batch before it, in the run, that moves one of its bodies.
    #[test]
    fn a_run_waits_for_the_last_batch_on_each_body() {
        let sizes = [3, 2, 2, 2, 2, 2, 2, 2, SMALL + 1, 2];
        let (mut lists, mut pairs, mut ranges, mut at) = (Vec::new(), Vec::new(), Vec::new(), 0);
        for (c, &batches) in sizes.iter().enumerate() {
            let list: Vec<u32> = (0..batches * W)
                .map(|j| {
                    let k = pairs.len() as u32;
                    // (Not a real colouring; the plan does not rely on one.)
                    let a = ((j * 7 + c * 3) % 40) as u32;
                    let b = if j % 5 == 0 {
                        NULL
                    } else {
                        ((j * 11 + c) % 40) as u32
                    };
                    pairs.push([a, b]);
                    k
                })
                .collect();
            lists.push(list);
            ranges.push(at..at + batches);
            at += batches;
        }
        let mut waves = Waves::default();
        waves.plan(false, &ranges, &lists, &pairs, 40);
        assert!(waves.runs.is_empty(), "a plan on one thread");
        waves.plan(true, &ranges, &lists, &pairs, 40);
        assert_eq!(waves.runs, vec![(0..8, 0..17)]);
        assert_eq!(waves.batches(), 17);
        let bodies = |i: usize| -> Vec<u32> {
            let color = ranges.partition_point(|r| r.end <= i);
            let start = i - ranges[color].start;
            lists[color][start * W..start * W + W]
                .iter()
                .flat_map(|&k| pairs[k as usize])
                .filter(|&b| b != NULL)
                .collect()
        };
        for i in 0..17 {
            let mut want: Vec<u32> = bodies(i)
                .iter()
                .filter_map(|b| (0..i).rev().find(|&j| bodies(j).contains(b)))
                .map(|j| j as u32)
                .collect();
            let mut got =
                waves.after[waves.first[i] as usize..waves.first[i + 1] as usize].to_vec();
            want.sort();
            want.dedup();
            got.sort();
            got.dedup();
            assert_eq!(got, want, "batch {i}");
        }
    }
}
