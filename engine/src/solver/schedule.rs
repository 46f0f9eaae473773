//! Long-lived workers for the substep loop (Box2D v3 / Bepu style).
//!
//! The whole loop (integrate velocities, warm start, solve, integrate positions, relax,
//! per substep; then restitution and store) is laid out as a list of stages, one per
//! colour per pass. Every worker of the pool enters the list once (`broadcast`) and walks
//! it: it claims blocks of the current stage from an atomic counter until none is left,
//! then waits (spinning) until every block of the stage is done before it moves on. No
//! task is spawned and no thread is woken between stages; the stages' order and blocks
//! depend on the scene only, and within a stage no two blocks write the same body, so the
//! result is the same for any worker count.
//!
//! Measured against rayon fork/join per colour (one `par_iter_mut` per colour per pass,
//! ~150 a step): see the commit that introduced this module and `solve_stage`.

use std::ops::Range;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

/// What a stage does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    IntegrateVelocities,
    WarmStart,
    Solve,
    IntegratePositions,
    Relax,
    Restitution,
    Store,
}

/// Which constraints or bodies a stage covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// The movable bodies.
    Bodies,
    /// The overflow constraints (always one block).
    Overflow,
    /// The wide batches `range` of one colour.
    Batches { start: u32, end: u32 },
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Stage {
    pub op: Op,
    pub part: Part,
    /// Items (bodies or batches) per block.
    block: u32,
    items: u32,
}

impl Stage {
    fn blocks(&self) -> u32 {
        self.items.div_ceil(self.block)
    }

    /// The items of block `b`, as indices into the part's array.
    fn block_range(&self, b: u32) -> Range<usize> {
        let start = b * self.block;
        let end = (start + self.block).min(self.items);
        match self.part {
            Part::Batches { start: s, .. } => (s + start) as usize..(s + end) as usize,
            _ => start as usize..end as usize,
        }
    }
}

/// Bodies per block in the body stages.
const BODY_BLOCK: u32 = 512;
/// Fewest batches per block: smaller blocks cost more in claims than they gain in balance.
const MIN_BATCH_BLOCK: u32 = 4;
/// Blocks per worker a colour is cut into, for balance when a worker is slow.
const BLOCKS_PER_WORKER: u32 = 4;

/// The stage list of one step, with its counters.
#[derive(Default)]
pub(crate) struct Schedule {
    stages: Vec<Stage>,
    /// Per stage: next block to claim, blocks finished.
    claimed: Vec<AtomicU32>,
    finished: Vec<AtomicU32>,
}

/// Wall time per op of one run, in ms (measured by worker 0 between barriers).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct OpTimes {
    pub ms: [f64; 7],
}

impl OpTimes {
    pub fn get(&self, op: Op) -> f64 {
        self.ms[op as usize]
    }
}

impl Schedule {
    /// Lays out the substep loop for `colors` (each colour's batch range), an overflow
    /// set if `overflow`, `bodies` movable bodies and `workers` threads.
    pub fn build(
        &mut self,
        substeps: u32,
        colors: &[Range<usize>],
        overflow: bool,
        bodies: usize,
        workers: usize,
    ) {
        self.stages.clear();
        let workers = workers.max(1) as u32;
        let body_stage = |op| Stage {
            op,
            part: Part::Bodies,
            block: BODY_BLOCK,
            items: bodies as u32,
        };
        let stages = &mut self.stages;
        let pass = |op, stages: &mut Vec<Stage>| {
            if overflow {
                stages.push(Stage {
                    op,
                    part: Part::Overflow,
                    block: 1,
                    items: 1,
                });
            }
            for r in colors {
                let items = (r.end - r.start) as u32;
                let block = items
                    .div_ceil(workers * BLOCKS_PER_WORKER)
                    .max(MIN_BATCH_BLOCK);
                stages.push(Stage {
                    op,
                    part: Part::Batches {
                        start: r.start as u32,
                        end: r.end as u32,
                    },
                    block,
                    items,
                });
            }
        };
        for _ in 0..substeps {
            stages.push(body_stage(Op::IntegrateVelocities));
            pass(Op::WarmStart, stages);
            pass(Op::Solve, stages);
            stages.push(body_stage(Op::IntegratePositions));
            pass(Op::Relax, stages);
        }
        pass(Op::Restitution, stages);
        // Storing writes each batch's own contacts: one stage over all batches.
        if overflow {
            stages.push(Stage {
                op: Op::Store,
                part: Part::Overflow,
                block: 1,
                items: 1,
            });
        }
        let all = colors.last().map_or(0, |r| r.end) as u32;
        stages.push(Stage {
            op: Op::Store,
            part: Part::Batches { start: 0, end: all },
            block: all.div_ceil(workers * BLOCKS_PER_WORKER).max(16),
            items: all,
        });
        self.stages.retain(|s| s.items > 0);
        let n = self.stages.len();
        self.claimed.resize_with(n, Default::default);
        self.finished.resize_with(n, Default::default);
        for c in self.claimed.iter_mut().chain(self.finished.iter_mut()) {
            *c.get_mut() = 0;
        }
    }

    /// Runs every stage on every worker of `pool`; `exec(stage, items)` runs one block.
    /// `exec` must only write what its block owns (see the module doc).
    pub fn run(
        &self,
        pool: &rayon::ThreadPool,
        exec: impl Fn(&Stage, Range<usize>) + Sync,
    ) -> OpTimes {
        let times = std::sync::Mutex::new(OpTimes::default());
        pool.broadcast(|ctx| {
            let timer = ctx.index() == 0;
            let mut local = OpTimes::default();
            let mut t = Instant::now();
            for (s, stage) in self.stages.iter().enumerate() {
                let blocks = stage.blocks();
                loop {
                    let b = self.claimed[s].fetch_add(1, Ordering::Relaxed);
                    if b >= blocks {
                        break;
                    }
                    exec(stage, stage.block_range(b));
                    // Release: this block's writes are seen by whoever passes the barrier.
                    self.finished[s].fetch_add(1, Ordering::Release);
                }
                let mut spins = 0u32;
                while self.finished[s].load(Ordering::Acquire) < blocks {
                    if spins < 4096 {
                        std::hint::spin_loop();
                        spins += 1;
                    } else {
                        // A worker was descheduled (more threads than cores): give way.
                        std::thread::yield_now();
                    }
                }
                if timer {
                    let now = Instant::now();
                    local.ms[stage.op as usize] += (now - t).as_secs_f64() * 1000.0;
                    t = now;
                }
            }
            if timer {
                *times.lock().unwrap_or_else(|e| e.into_inner()) = local;
            }
        });
        times.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every item of every stage runs exactly once, stages in order, for 1 to 4 workers.
    #[test]
    fn every_block_runs_once_in_stage_order() {
        let colors = [0..10, 10..11, 11..100];
        for workers in 1..=4 {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(workers)
                .build()
                .unwrap();
            let mut schedule = Schedule::default();
            schedule.build(2, &colors, true, 1500, workers);
            let n = schedule.stages.len();
            let counts: Vec<Vec<AtomicU32>> = schedule
                .stages
                .iter()
                .map(|s| (0..s.items + 200).map(|_| AtomicU32::new(0)).collect())
                .collect();
            let stage_done: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
            let order_ok = std::sync::atomic::AtomicBool::new(true);
            schedule.run(&pool, |stage, items| {
                let s = schedule
                    .stages
                    .iter()
                    .position(|x| std::ptr::eq(x, stage))
                    .unwrap();
                // Every earlier stage is complete when a block of this one runs.
                if s > 0
                    && stage_done[s - 1].load(Ordering::Acquire) != schedule.stages[s - 1].items
                {
                    order_ok.store(false, Ordering::Relaxed);
                }
                for i in items.clone() {
                    counts[s][i].fetch_add(1, Ordering::Relaxed);
                }
                stage_done[s].fetch_add(items.len() as u32, Ordering::Release);
            });
            assert!(order_ok.load(Ordering::Relaxed), "{workers} workers");
            for (s, stage) in schedule.stages.iter().enumerate() {
                let expect = match stage.part {
                    Part::Batches { start, end } => start as usize..end as usize,
                    _ => 0..stage.items as usize,
                };
                for (i, c) in counts[s].iter().enumerate() {
                    let want = expect.contains(&i) as u32;
                    assert_eq!(c.load(Ordering::Relaxed), want, "stage {s} item {i}");
                }
            }
        }
    }
}
