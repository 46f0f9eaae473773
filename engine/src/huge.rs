//! The contacts, the shapes and the contact batches in memory backed by huge pages where
//! the system gives them on request.
//!
//! The narrow phase walks the contacts (448 bytes each) and reads both shapes of each, and
//! prepare reads the contacts again in colour order: with 4 KB pages, many_pyramids' 28,000
//! contacts alone span 3,100 pages, more than the second-level TLB maps, and under a
//! hypervisor each miss walks two page tables. Linux backs memory with 2 MB pages only
//! where it is asked to by `madvise` in its common setting of transparent huge pages
//! (`madvise`, as on this project's machines), and the engine's arrays come from the
//! global allocator, which does not ask. So these arrays grow through [`reserve`], which
//! asks for their new buffer before it is written (`docs/decisions.md`, "Huge pages for the
//! contacts and the shapes"). Elsewhere, and where the system says no, nothing changes:
//! the pages hold the same memory either way.

/// Below this, a buffer holds no whole aligned huge page worth asking for.
const MIN_BYTES: usize = 4 << 20;

/// The huge page size asked for (x86-64 and most AArch64 kernels).
const HUGE_PAGE: usize = 2 << 20;

/// Makes room in `v` for `additional` more items, as [`Vec::reserve`] does (doubling), but
/// with a new buffer of [`MIN_BYTES`] or more asked to be backed by huge pages before the
/// items are moved into it.
pub(crate) fn reserve<T>(v: &mut Vec<T>, additional: usize) {
    if v.capacity() - v.len() >= additional {
        return;
    }
    let want = (v.len() + additional).max(2 * v.capacity());
    if want.saturating_mul(std::mem::size_of::<T>()) < MIN_BYTES {
        v.reserve(additional);
        return;
    }
    let mut fresh = Vec::with_capacity(want);
    advise(
        fresh.as_ptr() as usize,
        fresh.capacity() * std::mem::size_of::<T>(),
    );
    fresh.append(v);
    *v = fresh;
}

/// Asks the system to back the whole huge pages within `bytes` bytes from `addr` with huge
/// pages. A hint: a refusal (no transparent huge pages, another system) changes nothing.
fn advise(addr: usize, bytes: usize) {
    let start = addr.next_multiple_of(HUGE_PAGE);
    let end = (addr + bytes) / HUGE_PAGE * HUGE_PAGE;
    if start >= end {
        return;
    }
    #[cfg(all(target_os = "linux", not(miri)))]
    // SAFETY: `madvise` with `MADV_HUGEPAGE` changes how the kernel backs the pages of
    // the range, never what they hold, and the range lies within one live allocation of
    // ours (the caller's buffer). Its result is ignored: a refusal leaves the pages as
    // they were. Measured reason: `docs/decisions.md`, "Huge pages for the contacts and
    // the shapes".
    unsafe {
        libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
    }
}

#[cfg(test)]
mod tests {
    use super::reserve;

    #[test]
    fn reserve_keeps_the_items_and_makes_room() {
        for n in [0usize, 10, 1 << 20] {
            let mut v: Vec<u64> = (0..n as u64).collect();
            reserve(&mut v, 3 << 20);
            assert!(v.capacity() >= n + (3 << 20));
            assert!(v.iter().copied().eq(0..n as u64));
            let cap = v.capacity();
            reserve(&mut v, 1);
            assert_eq!(v.capacity(), cap, "room enough: no new buffer");
        }
    }
}
