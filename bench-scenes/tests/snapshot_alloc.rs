//! Saving a state into a warm buffer allocates nothing (a counting allocator watches the
//! whole test binary, so this file holds one test).

use impetus::{Stepper, World};
use impetus_scenes::{find, world_def, Params, DT};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; it only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn warm_saves_do_not_allocate() {
    let mut w = World::new(world_def(1)).unwrap();
    find("ragdolls")
        .unwrap()
        .build(&mut w, &Params::default())
        .unwrap();
    for _ in 0..30 {
        w.step(DT).unwrap();
    }
    let mut state = Vec::new();
    w.save_state(&mut state);
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    w.save_state(&mut state);
    let world_allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
    assert_eq!(world_allocations, 0, "World::save_state into a warm buffer");

    let mut stepper = Stepper::new(w, 60.0).unwrap();
    stepper.step_once().unwrap();
    stepper.save_state(&mut state);
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    stepper.save_state(&mut state);
    let stepper_allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
    assert_eq!(
        stepper_allocations, 0,
        "Stepper::save_state into a warm buffer"
    );
    let _ = DT;
}
