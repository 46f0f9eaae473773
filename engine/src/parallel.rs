//! Sharing work among the workers: raw access to items each written by one worker.

use crate::math::prefetch_head;

/// Raw access to a slice whose items are each written by at most one worker: contacts when
/// impulses are stored and joint slots when joint results are (one lane of one batch each),
/// a body's columns in the finalize stage (one solver index each) and a shape's bounds when
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

// SAFETY: only `get_mut` and `prefetch` dereference the pointer, and every item index is
// handed to exactly one worker: one lane of one batch (one constraint per touching contact
// or live joint), one solver index (the solver's slots are distinct bodies), or one body
// (a shape belongs to one body), so no two workers ever touch the same item.
unsafe impl<T: Send> Send for DisjointPtr<T> {}
unsafe impl<T: Send> Sync for DisjointPtr<T> {}

impl<T> DisjointPtr<T> {
    pub fn new(items: &mut [T]) -> Self {
        Self {
            ptr: items.as_mut_ptr(),
            len: items.len(),
        }
    }

    /// Starts loading the first `bytes` bytes of item `k` (see [`prefetch_head`]).
    #[inline]
    pub fn prefetch(&self, k: u32, bytes: usize) {
        if (k as usize) < self.len {
            // SAFETY: in bounds (checked above); a shared reference only for the
            // duration of the hint, while no lane writes this item (see `get_mut`).
            prefetch_head(unsafe { &*self.ptr.add(k as usize) }, bytes);
        }
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
