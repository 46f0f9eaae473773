//! A spinning region for the solve stage's loops (prepare's and the substeps' passes'):
//! the pool's other workers stay inside one job from prepare to the last substep and take
//! blocks of each parallel loop as the walking thread publishes it, instead of a fork and
//! a join through rayon for every loop (every colour of every pass). This is how Box2D v3
//! runs its solver stages.
//!
//! One thread (the one walking the stages) publishes a loop as a *stage*: a count of
//! blocks and a closure that runs one block, announced in one atomic word with the stage's
//! number, on which the other workers spin between stages. Each block is taken by swapping
//! the stage's number into its own flag, a line of its own: the walking thread takes them
//! from the front, the workers from where their share starts (at two threads, the worker
//! from the back), so that each side of a colour goes to the same core pass after pass and
//! a flag's line stays with the core that takes it until the two meet. (Taking blocks
//! from one shared word moved that line between the cores at every block.) A worker adds
//! the blocks it ran to the stage's count once, when it finds none left; the walking
//! thread waits, spinning, until the count and its own blocks make the stage. So a stage
//! costs a few atomic operations, where a rayon fork and join after a serial part could
//! wait tens of microseconds for a sleeping worker to wake (figures in
//! `docs/decisions.md`, "The lead").
//!
//! A block runs the same items whichever thread takes it, and the items of a stage are
//! disjoint, so the results do not depend on who ran what. At two threads a stage's
//! blocks shrink towards its middle ([`halving_cuts`]), so that the two threads end it
//! close together.

use std::cell::Cell;
use std::ops::Range;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The most blocks of one stage: one flag each (at sixteen threads or more a stage has
/// fewer than [`BLOCKS_PER_THREAD`] a thread).
const MAX_BLOCKS: usize = 64;

/// Blocks a stage is cut into per thread of the region, at most, at three threads or
/// more (as Box2D v3 cuts its solver stages, in equal blocks): fewer, larger blocks are
/// fewer atomic operations, while four a thread still let a thread that finishes early
/// take over the others' last blocks.
const BLOCKS_PER_THREAD: usize = 4;

/// Blocks each half of a stage is cut into at two threads, shrinking towards the middle
/// (see [`halving_cuts`]): four, five and seven were measured, five kept.
const HALF_BLOCKS: usize = 5;

/// Idle looks at the word after which a spinning thread also yields its core between looks
/// (some tens of microseconds of spinning): a long serial part of the walk, or more
/// threads than cores (worlds stepped side by side), then costs the system little.
const YIELD_AFTER: u32 = 1 << 12;

/// Waits a moment in a spin: a spin-loop hint, and a yield of the core once `idle` (the
/// looks so far that found nothing) passes [`YIELD_AFTER`].
#[inline]
fn pause(idle: &mut u32) {
    *idle = idle.saturating_add(1);
    if *idle >= YIELD_AFTER {
        std::thread::yield_now();
    } else {
        std::hint::spin_loop();
    }
}

/// The word's stage number that tells the workers to leave (stage numbers are the word's
/// upper 48 bits: they do not wrap in any run).
const QUIT: u64 = (1 << 48) - 1;

/// A block's flag: the number of the last stage that took it, on a line pair of its own.
#[repr(align(128))]
struct Flag(AtomicU64);

/// One stage's work: runs block `k`. It lives on the walking thread's stack while the
/// stage runs and the workers read it for every block they take: aligned to two lines of
/// its own, so that no local the walking thread writes meanwhile shares them.
#[repr(align(128))]
struct Job<'a> {
    run: &'a (dyn Fn(usize) + Sync),
}

/// What the walking thread shares with the region's workers (each holds a handle on it):
/// aligned to two lines (the adjacent-line prefetcher's pair), so that the word the workers
/// spin on shares no line with anything else the walking thread writes.
#[repr(align(128))]
pub(crate) struct Region {
    /// `stage << 16 | blocks`: stage `stage` (counted from 1) has `blocks` blocks.
    word: AtomicU64,
    /// The current stage's job, valid while its blocks are not all done.
    job: AtomicPtr<Job<'static>>,
    /// Blocks of the current stage run by the workers and done.
    done: AtomicU32,
    /// Each block's flag (see [`Flag`]).
    flags: [Flag; MAX_BLOCKS],
    /// Set when a block panicked (the payload is kept for the walking thread to raise).
    failed: AtomicBool,
    panic: Mutex<Option<Box<dyn std::any::Any + Send>>>,
    /// The walking thread's index in the pool.
    walker: Option<usize>,
    /// Threads that take blocks: the walking thread and the workers.
    threads: usize,
    /// Workers that have left the region (see [`with_region`]).
    left: AtomicUsize,
}

thread_local! {
    /// The region the calling thread walks, while it does and is not inside a stage.
    static CURRENT: Cell<*const Region> = const { Cell::new(std::ptr::null()) };
}

/// Runs `walk` on the calling thread with `workers` other workers of the current rayon
/// pool spinning beside it in a region: the parallel loops of [`super`] that `walk`
/// calls with `parallel` set run as the region's stages. Call it on a worker of the
/// pool, with no parallel work in flight, and with no more workers than cores (a
/// spinning worker would take the walking thread's core).
pub(crate) fn with_region<R>(workers: usize, walk: impl FnOnce() -> R) -> R {
    let region = Arc::new(Region {
        word: AtomicU64::new(0),
        job: AtomicPtr::new(std::ptr::null_mut()),
        done: AtomicU32::new(0),
        flags: std::array::from_fn(|_| Flag(AtomicU64::new(0))),
        failed: AtomicBool::new(false),
        panic: Mutex::new(None),
        walker: rayon::current_thread_index(),
        threads: workers + 1,
        left: AtomicUsize::new(0),
    });
    // The workers are spawned each with a handle of its own on the region, and the
    // walking thread waits for them to leave, rather than spawned into a rayon scope: a
    // scope's spawned job tells the scope it has ended while its call still holds a
    // protected reference to the scope, which the owner then frees (Miri, under Tree
    // Borrows, reports it as undefined behaviour in rayon's scope code).
    for worker in 1..=workers {
        let shared = Arc::clone(&region);
        rayon::spawn(move || {
            // Counted as gone however `work` ends, so that the walking thread cannot
            // wait for it for ever.
            struct Gone(Arc<Region>);
            impl Drop for Gone {
                fn drop(&mut self) {
                    self.0.left.fetch_add(1, Ordering::Release);
                }
            }
            let gone = Gone(shared);
            gone.0.work(worker);
        });
    }
    let before = CURRENT.with(|c| c.replace(&*region));
    // The workers leave however `walk` ends (a panic included), and the walking thread
    // waits until they have: a stage's job they might still read lives on its stack.
    struct Leave<'a>(&'a Region, *const Region);
    impl Drop for Leave<'_> {
        fn drop(&mut self) {
            CURRENT.with(|c| c.set(self.1));
            let region = self.0;
            region.word.store(QUIT << 16, Ordering::Release);
            // A worker not yet taken by another thread is still in this thread's deque:
            // `yield_now` runs it here, where it leaves at once.
            while region.left.load(Ordering::Acquire) < region.threads - 1 {
                if rayon::yield_now() != Some(rayon::Yield::Executed) {
                    std::hint::spin_loop();
                }
            }
        }
    }
    let _leave = Leave(&region, before);
    walk()
}

/// Calls `f` with the region the calling thread walks, if it walks one and is not inside
/// a stage.
pub(crate) fn with_current<R>(f: impl FnOnce(Option<&Region>) -> R) -> R {
    let ptr = CURRENT.with(Cell::get);
    // SAFETY: the thread-local holds a region only inside `with_region`'s `walk`, and the
    // region outlives `walk`; the reference does not leave `f`, which runs within it.
    f(unsafe { ptr.as_ref() })
}

impl Region {
    /// A worker's loop: takes the blocks of each stage it can, from where its share starts
    /// (worker `worker` of the region's threads), until told to leave.
    fn work(&self, worker: usize) {
        // A worker's job that the walking thread itself meets (waiting inside a rayon
        // join of its own, it may run the jobs its deque holds) leaves at once: run there,
        // it would spin until the walk it interrupts ends.
        if rayon::current_thread_index() == self.walker {
            return;
        }
        let (mut idle, mut seen) = (0, 0);
        loop {
            let word = self.word.load(Ordering::Acquire);
            let stage = word >> 16;
            if stage == QUIT {
                return;
            }
            if stage == seen {
                pause(&mut idle);
                continue;
            }
            (idle, seen) = (0, stage);
            let blocks = (word & 0xffff) as usize;
            let mut ran = 0;
            let mut take = |k: usize| {
                if !self.claim(k, stage) {
                    return false;
                }
                // SAFETY: block `k` of this stage is taken and not done, so the walking
                // thread is still inside this stage's `run` (it returns only once every
                // block is done), and the job it published for the stage, stored before
                // the word that announced the stage, lives on its stack until then. (A
                // flag of this stage's blocks taken by a later stage is past this one's
                // number, so no block of a finished stage can be taken.)
                let job = unsafe { &*self.job.load(Ordering::Acquire) };
                self.guarded(job.run, k);
                ran += 1;
                true
            };
            if self.threads == 2 {
                // From the back until a block the walking thread took.
                for k in (0..blocks).rev() {
                    if !take(k) {
                        break;
                    }
                }
            } else {
                let start = worker * blocks / self.threads;
                for k in (start..blocks).chain(0..start) {
                    take(k);
                }
            }
            if ran > 0 {
                self.done.fetch_add(ran, Ordering::Release);
            }
        }
    }

    /// Takes block `k` for `stage`: false if another thread took it in this stage (or a
    /// later one).
    #[inline]
    fn claim(&self, k: usize, stage: u64) -> bool {
        let flag = &self.flags[k].0;
        let last = flag.load(Ordering::Relaxed);
        last < stage
            && flag
                .compare_exchange(last, stage, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
    }

    /// Runs block `k`; a panic is kept for the walking thread to raise once the stage is
    /// done (no thread may unwind out of a stage while others still run its job).
    fn guarded(&self, run: &(dyn Fn(usize) + Sync), k: usize) {
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| run(k))) {
            if let Ok(mut slot) = self.panic.lock() {
                slot.get_or_insert(payload);
            }
            self.failed.store(true, Ordering::Release);
        }
    }

    /// Runs `run(k)` for every block `k` in `0..blocks` (at most [`MAX_BLOCKS`]), on this
    /// thread and the workers; returns when all are done.
    fn run(&self, blocks: usize, run: &(dyn Fn(usize) + Sync), beside: Option<&mut dyn FnMut()>) {
        debug_assert!(blocks <= MAX_BLOCKS);
        let job = Job { run };
        // Only this thread changes the stage number, so the word's is the last one.
        let stage = (self.word.load(Ordering::Relaxed) >> 16) + 1;
        debug_assert!(stage < QUIT);
        self.done.store(0, Ordering::Relaxed);
        self.job.store(
            (&job as *const Job<'_>).cast::<Job<'static>>().cast_mut(),
            Ordering::Relaxed,
        );
        self.word
            .store(stage << 16 | blocks as u64, Ordering::Release);
        // Inside a stage the loops a block calls run serially (no stage within a stage).
        let walking = CURRENT.with(|c| c.replace(std::ptr::null()));
        // The walking thread's own task first, while the workers take blocks (a panic in
        // it waits for the workers' blocks before it leaves the stage).
        if let Some(beside) = beside {
            if let Err(payload) = catch_unwind(AssertUnwindSafe(beside)) {
                if let Ok(mut slot) = self.panic.lock() {
                    slot.get_or_insert(payload);
                }
                self.failed.store(true, Ordering::Release);
            }
        }
        // From the front: at two threads until a block the worker took (it takes them
        // from the back), else every block the workers have not.
        let mut mine = 0;
        for k in 0..blocks {
            if self.claim(k, stage) {
                self.guarded(run, k);
                mine += 1;
            } else if self.threads == 2 {
                break;
            }
        }
        CURRENT.with(|c| c.set(walking));
        let mut idle = 0;
        while (self.done.load(Ordering::Acquire) as usize) + mine < blocks {
            pause(&mut idle);
        }
        if self.failed.load(Ordering::Acquire) {
            let payload = self.panic.lock().ok().and_then(|mut p| p.take());
            resume_unwind(payload.unwrap_or_else(|| Box::new("a region's block panicked")));
        }
    }

    /// Runs `f` once on each thread of the region, this one included, and returns when all
    /// have returned: for loops whose threads hand their items out among themselves (see
    /// `parallel::on_each_thread`).
    pub(crate) fn on_each_thread(&self, f: &(dyn Fn() + Sync)) {
        self.run(self.threads.min(MAX_BLOCKS), &|_| f(), None);
    }

    /// Calls `f(k, item)` for every item, in blocks of at least `min_len` items, with work
    /// beside it (see [`Self::for_each_chunk_beside`]).
    pub(crate) fn for_each_beside<T: Send>(
        &self,
        items: &mut [T],
        min_len: usize,
        f: &(impl Fn(usize, &mut T) + Sync),
        beside: Option<&mut dyn FnMut()>,
    ) {
        let one = |k, item: &mut [T]| f(k, &mut item[0]);
        self.for_each_chunk_beside(items, 1, min_len, &one, beside);
    }

    /// Calls `f(k, chunk)` for every chunk of `size` items (the last may be shorter), in
    /// blocks of at least `min_len` chunks.
    pub(crate) fn for_each_chunk<T: Send>(
        &self,
        items: &mut [T],
        size: usize,
        min_len: usize,
        f: &(impl Fn(usize, &mut [T]) + Sync),
    ) {
        self.for_each_chunk_beside(items, size, min_len, f, None);
    }

    /// [`Self::for_each_chunk`], the walking thread running `beside` first while the
    /// workers start on the blocks (at two threads from the back, else each from its
    /// share), then taking what blocks are left.
    pub(crate) fn for_each_chunk_beside<T: Send>(
        &self,
        items: &mut [T],
        size: usize,
        min_len: usize,
        f: &(impl Fn(usize, &mut [T]) + Sync),
        beside: Option<&mut dyn FnMut()>,
    ) {
        let (len, size, min_len) = (items.len(), size.max(1), min_len.max(1));
        let chunks = len.div_ceil(size);
        if chunks <= min_len {
            if let Some(beside) = beside {
                beside();
            }
            items
                .chunks_mut(size)
                .enumerate()
                .for_each(|(k, chunk)| f(k, chunk));
            return;
        }
        let ptr = super::DisjointPtr::new(items);
        let run = |range: Range<usize>| {
            for k in range {
                let start = k * size;
                f(k, ptr.get_slice(start, (start + size).min(len) - start));
            }
        };
        if self.threads == 2 {
            let mut cuts = [0; 2 * HALF_BLOCKS + 1];
            let blocks = halving_cuts(chunks, min_len, &mut cuts);
            self.run(blocks, &|block| run(cuts[block]..cuts[block + 1]), beside);
        } else {
            let max_blocks = (BLOCKS_PER_THREAD * self.threads).min(MAX_BLOCKS);
            let per_block = min_len.max(chunks.div_ceil(max_blocks));
            let blocks = chunks.div_ceil(per_block);
            self.run(
                blocks,
                &|block| run(block * per_block..((block + 1) * per_block).min(chunks)),
                beside,
            );
        }
    }
}

/// Cuts a stage of `chunks` chunks (more than `min_len`) into blocks for two threads, the
/// walking thread taking them from the front and the worker from the back: each half from
/// its outer end, every block half of what is left of its half (at least `min_len`
/// chunks) and the last the rest, so the blocks shrink towards the middle, where the two
/// threads meet. Whichever finishes first then takes over small blocks, and a stage ends
/// with the two at most a small block apart, where equal blocks (an eighth of the stage
/// each) left them up to an eighth apart (figures in `docs/decisions.md`, "The lead").
/// Writes the boundaries to `cuts` and returns the count of blocks.
fn halving_cuts(chunks: usize, min_len: usize, cuts: &mut [usize; 2 * HALF_BLOCKS + 1]) -> usize {
    let half = chunks / 2;
    // The blocks of one half, `rest` chunks, from its outer end: their sizes in order.
    let sizes = |mut rest: usize| {
        let mut out = [0; HALF_BLOCKS];
        let mut n = 0;
        while n + 1 < HALF_BLOCKS {
            let take = rest.div_ceil(2).max(min_len);
            if rest < take + min_len {
                break;
            }
            out[n] = take;
            rest -= take;
            n += 1;
        }
        out[n] = rest;
        (out, n + 1)
    };
    let mut blocks = 0;
    let mut at = 0;
    let (front, nf) = sizes(half);
    for &s in &front[..nf] {
        at += s;
        blocks += 1;
        cuts[blocks] = at;
    }
    let (back, nb) = sizes(chunks - half);
    for &s in back[..nb].iter().rev() {
        at += s;
        blocks += 1;
        cuts[blocks] = at;
    }
    debug_assert_eq!(cuts[blocks], chunks);
    blocks
}

#[cfg(test)]
mod tests {
    use super::with_region;
    use crate::parallel::{for_each_chunk_maybe_par, for_each_maybe_par};

    fn pool() -> rayon::ThreadPool {
        pool_of(2)
    }

    fn pool_of(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    /// Every item of every stage is visited once, whichever thread takes its block, and a
    /// stage sees the writes of the one before: at two threads (the walking thread from the
    /// front, the worker from the back) and at three and four (each worker from its share).
    #[test]
    fn every_item_once_per_stage() {
        let n = if cfg!(miri) { 23 } else { 1_003 };
        let rounds = if cfg!(miri) { 3 } else { 200 };
        let mut expect = vec![0u64; n];
        for round in 1..=rounds {
            for (k, x) in expect.iter_mut().enumerate() {
                *x = x.wrapping_mul(3) + k as u64 + round + (k / 5) as u64;
            }
        }
        for threads in [2, 3, 4] {
            let mut items = vec![0u64; n];
            pool_of(threads).install(|| {
                with_region(threads - 1, || {
                    for round in 1..=rounds {
                        for_each_maybe_par(&mut items, true, 2, |k, x| {
                            *x = x.wrapping_mul(3) + k as u64 + round
                        });
                        for_each_chunk_maybe_par(&mut items, 5, true, 1, |k, chunk| {
                            chunk.iter_mut().for_each(|x| *x += k as u64)
                        });
                    }
                })
            });
            assert_eq!(items, expect, "{threads} threads");
        }
    }

    /// A loop with work beside it: the work runs once, on the walking thread, and every item
    /// is still visited once (the worker may have taken all of them meanwhile); a panic in
    /// the work beside reaches the walking thread after the stage.
    #[test]
    fn work_beside_a_stage_runs_once() {
        use crate::parallel::for_each_chunk_maybe_par_beside;
        let n = if cfg!(miri) { 37 } else { 5_003 };
        let mut items = vec![0u32; n];
        let (mut runs, mut walker) = (0, None);
        pool().install(|| {
            with_region(1, || {
                for_each_chunk_maybe_par_beside(
                    &mut items,
                    7,
                    true,
                    1,
                    |_, chunk| chunk.iter_mut().for_each(|x| *x += 1),
                    || {
                        runs += 1;
                        walker = rayon::current_thread_index();
                    },
                );
                assert_eq!(walker, rayon::current_thread_index());
            })
        });
        assert_eq!(runs, 1);
        assert!(items.iter().all(|&x| x == 1));
        let result = pool().install(|| {
            std::panic::catch_unwind(|| {
                let mut items = vec![0u32; 64];
                with_region(1, || {
                    for_each_chunk_maybe_par_beside(
                        &mut items,
                        1,
                        true,
                        1,
                        |_, _| {},
                        || panic!("beside"),
                    )
                })
            })
        });
        let payload = result.expect_err("the panic is raised");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"beside"));
    }

    /// The blocks at two threads cover the stage in order, none empty, each half's
    /// shrinking towards the middle and none under `min_len` chunks but a half's last.
    #[test]
    fn halving_cuts_cover_the_stage() {
        let mut cuts = [0; 2 * super::HALF_BLOCKS + 1];
        for min_len in [1, 4, 8] {
            for chunks in min_len + 1..700 {
                let blocks = super::halving_cuts(chunks, min_len, &mut cuts);
                assert_eq!((cuts[0], cuts[blocks]), (0, chunks));
                let sizes: Vec<usize> = cuts[..=blocks].windows(2).map(|w| w[1] - w[0]).collect();
                assert!(
                    sizes.iter().all(|&s| s > 0),
                    "{chunks} {min_len}: {sizes:?}"
                );
                let middle = cuts[..=blocks].iter().position(|&c| c == chunks / 2);
                let middle = middle.expect("a cut at the middle");
                let (front, back) = sizes.split_at(middle);
                for side in [front.to_vec(), back.iter().rev().copied().collect()] {
                    assert!(side.windows(2).all(|w| w[0] >= w[1]), "{chunks}: {sizes:?}");
                    let last = side.len() - 1;
                    assert!(
                        side[..last].iter().all(|&s| s >= min_len),
                        "{chunks}: {sizes:?}"
                    );
                }
            }
        }
        // 800 chunks: a quarter, an eighth, ... from each end.
        let blocks = super::halving_cuts(800, 4, &mut cuts);
        assert_eq!(
            &cuts[..=blocks],
            &[0, 200, 300, 350, 375, 400, 425, 450, 500, 600, 800]
        );
    }

    /// A block that panics on either thread reaches the walking thread as that panic, once
    /// the stage is done, and the region's workers leave.
    #[test]
    fn a_panic_in_a_block_reaches_the_walker() {
        let pool = pool();
        for bad in [0, 15] {
            let result = pool.install(|| {
                std::panic::catch_unwind(|| {
                    let mut items = vec![0u32; 16];
                    with_region(1, || {
                        for_each_maybe_par(&mut items, true, 1, |k, x| {
                            assert!(k != bad, "block {k}");
                            *x = 1;
                        })
                    })
                })
            });
            let payload = result.expect_err("the panic is raised");
            let text = payload
                .downcast_ref::<String>()
                .cloned()
                .unwrap_or_default();
            assert_eq!(text, format!("block {bad}"));
        }
        // The pool is free again.
        assert_eq!(pool.install(|| rayon::join(|| 1, || 2)), (1, 2));
    }
}
