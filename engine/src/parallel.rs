//! Sharing work among the workers.
//!
//! Every parallel loop of the engine hands each item (or each fixed chunk of items) to
//! exactly one worker, and nothing it computes depends on which worker or in which order:
//! that is why the results are bit-identical for every thread count. The loops run on the
//! calling thread when the caller says the work is too small to wake the pool; the same
//! closure runs either way. Inside a spinning region (the solve stage's, see [`with_region`])
//! the loops run as the region's stages instead of through rayon.

use rayon::prelude::*;

mod region;
pub(crate) use region::with_region;

/// A size from which a stage runs on the pool: `n`, except under Miri, where every
/// parallel path opens from a handful of items so that worlds small enough to interpret
/// reach the disjoint writes (the results do not depend on the choice).
pub(crate) const fn par_min(n: usize) -> usize {
    if cfg!(miri) {
        2
    } else {
        n
    }
}

/// Calls `f(k, item)` for every item, on the current pool's workers when `parallel` (at
/// least `min_len` items to a task), else in order on the calling thread.
#[inline]
pub(crate) fn for_each_maybe_par<T: Send>(
    items: &mut [T],
    parallel: bool,
    min_len: usize,
    f: impl Fn(usize, &mut T) + Send + Sync,
) {
    for_each_maybe_par_beside(items, parallel, min_len, f, None);
}

/// [`for_each_maybe_par`] with serial work `beside` it that shares nothing with the items
/// (see [`for_each_chunk_maybe_par_beside`]).
pub(crate) fn for_each_maybe_par_beside<T: Send>(
    items: &mut [T],
    parallel: bool,
    min_len: usize,
    f: impl Fn(usize, &mut T) + Send + Sync,
    mut beside: Option<&mut dyn FnMut()>,
) {
    if parallel
        && region::with_current(|r| {
            r.map(|r| r.for_each_beside(items, min_len, &f, beside.take()))
                .is_some()
        })
    {
        return;
    }
    if let Some(beside) = beside {
        beside();
    }
    if parallel {
        items
            .par_iter_mut()
            .enumerate()
            .with_min_len(min_len)
            .for_each(|(k, item)| f(k, item));
    } else {
        items
            .iter_mut()
            .enumerate()
            .for_each(|(k, item)| f(k, item));
    }
}

/// Calls `f(k, chunk)` for every chunk of `size` items (the last may be shorter), on the
/// current pool's workers when `parallel` (at least `min_len` chunks to a task), else in
/// order on the calling thread. Chunk boundaries depend on `size` only.
#[inline]
pub(crate) fn for_each_chunk_maybe_par<T: Send>(
    items: &mut [T],
    size: usize,
    parallel: bool,
    min_len: usize,
    f: impl Fn(usize, &mut [T]) + Send + Sync,
) {
    if parallel
        && region::with_current(|r| {
            r.map(|r| r.for_each_chunk(items, size, min_len, &f))
                .is_some()
        })
    {
        return;
    }
    if parallel {
        items
            .par_chunks_mut(size)
            .enumerate()
            .with_min_len(min_len)
            .for_each(|(k, chunk)| f(k, chunk));
    } else {
        items
            .chunks_mut(size)
            .enumerate()
            .for_each(|(k, chunk)| f(k, chunk));
    }
}

/// [`for_each_chunk_maybe_par`] and `beside`, serial work that shares nothing with the
/// loop's items: inside a region the walking thread runs `beside` while the workers start
/// on the chunks, and then helps with what is left; elsewhere `beside` runs first.
pub(crate) fn for_each_chunk_maybe_par_beside<T: Send>(
    items: &mut [T],
    size: usize,
    parallel: bool,
    min_len: usize,
    f: impl Fn(usize, &mut [T]) + Send + Sync,
    mut beside: impl FnMut(),
) {
    let mut beside = Some(&mut beside as &mut dyn FnMut());
    if parallel
        && region::with_current(|r| {
            r.map(|r| r.for_each_chunk_beside(items, size, min_len, &f, beside.take()))
                .is_some()
        })
    {
        return;
    }
    if let Some(beside) = beside {
        beside();
    }
    for_each_chunk_maybe_par(items, size, parallel, min_len, f);
}

/// Calls `f(k)` for every `k` in `0..count`, on the current pool's workers when
/// `parallel` (at least `min_len` to a task), else in order on the calling thread: for
/// loops whose items are read, or written through a [`DisjointPtr`].
#[inline]
pub(crate) fn for_each_index_maybe_par(
    count: usize,
    parallel: bool,
    min_len: usize,
    f: impl Fn(usize) + Send + Sync,
) {
    // A slice of `()`: no memory, one item per index.
    let mut units = vec![(); count];
    for_each_chunk_maybe_par(&mut units, 1, parallel, min_len, |k, _| f(k));
}

/// Runs `f` on every thread of the region the caller walks when `parallel` and inside one
/// (each thread once, returning when all have), else once on the calling thread: for a
/// loop whose threads take their items from a shared cursor, so that one call alone does
/// all the work (see `solver::graph::wave`).
pub(crate) fn on_each_thread(parallel: bool, f: impl Fn() + Sync) {
    if parallel && region::with_current(|r| r.map(|r| r.on_each_thread(&f)).is_some()) {
        return;
    }
    f();
}

/// Raw access to a slice whose items are each written by at most one worker: contacts when
/// impulses are stored (one touching contact each), joint slots when joint results are (one
/// lane of one batch each), the contact batches' side rows when prepared (one batch each), a
/// body's columns in the finalize stage (one solver index each) and a shape's bounds when
/// they are refit (one body each).
pub(crate) struct DisjointPtr<T> {
    ptr: *mut T,
    len: usize,
}

impl<T> Clone for DisjointPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for DisjointPtr<T> {}

// SAFETY: only `get_mut` dereferences the pointer, and every item index is handed to
// exactly one worker: one touching contact (the touching list holds each contact once), one
// lane of one batch (one constraint per live joint), one contact batch (each is prepared by
// the one worker its index falls to), one solver index (the solver's slots are distinct
// bodies), or one body (a shape belongs to one body), so no two workers ever touch the same
// item.
unsafe impl<T: Send> Send for DisjointPtr<T> {}
unsafe impl<T: Send> Sync for DisjointPtr<T> {}

impl<T> DisjointPtr<T> {
    pub fn new(items: &mut [T]) -> Self {
        Self {
            ptr: items.as_mut_ptr(),
            len: items.len(),
        }
    }

    /// The items `start..start + len`, which only the caller writes.
    #[allow(clippy::mut_from_ref)]
    #[inline]
    pub fn get_slice(&self, start: usize, len: usize) -> &mut [T] {
        assert!(start <= self.len && len <= self.len - start);
        // SAFETY: in bounds (checked above); exclusive per the type's comment.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(start), len) }
    }

    /// The item `k`, which only the caller's lane writes.
    #[allow(clippy::mut_from_ref)]
    #[inline]
    pub fn get_mut(&self, k: u32) -> &mut T {
        assert!((k as usize) < self.len);
        // SAFETY: in bounds (checked above); exclusive per the type's comment.
        unsafe { &mut *self.ptr.add(k as usize) }
    }
}
