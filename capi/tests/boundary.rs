//! Rust-side checks of the boundary. A panic inside a world is caught at the boundary
//! (`IMP_ERR_PANIC`) and poisons the world: every later call on it returns
//! `IMP_ERR_POISONED`, and `imp_world_destroy` still frees it; other worlds are unaffected.
//! A world another thread is using is `IMP_ERR_BUSY` at once, not a deadlock.

use impetus::*;

fn world() -> ImpWorldId {
    let def = imp_default_world_def();
    let mut id = ImpWorldId::default();
    // SAFETY: `def` is a valid definition from its default function.
    let status = unsafe { imp_world_create(&def, Some(&mut id)) };
    assert_eq!(status, ImpStatus::IMP_OK);
    id
}

fn last_error() -> String {
    // SAFETY: imp_last_error returns a valid NUL-terminated string.
    unsafe { std::ffi::CStr::from_ptr(imp_last_error()) }
        .to_string_lossy()
        .into_owned()
}

#[test]
fn a_panic_poisons_its_world_only() {
    let (poisoned, healthy) = (world(), world());
    assert_eq!(
        panic_inside_world_for_tests(poisoned),
        ImpStatus::IMP_ERR_PANIC
    );
    assert!(last_error().contains("a test panic"), "{}", last_error());
    assert_eq!(
        imp_world_step(poisoned, 1.0 / 60.0),
        ImpStatus::IMP_ERR_POISONED
    );
    assert!(last_error().contains("poisoned"), "{}", last_error());
    let mut g = ImpVec3::default();
    assert_eq!(
        imp_world_get_gravity(poisoned, Some(&mut g)),
        ImpStatus::IMP_ERR_POISONED
    );
    assert_eq!(imp_world_step(healthy, 1.0 / 60.0), ImpStatus::IMP_OK);
    assert_eq!(imp_world_destroy(poisoned), ImpStatus::IMP_OK);
    assert_eq!(
        imp_world_step(poisoned, 1.0 / 60.0),
        ImpStatus::IMP_ERR_STALE_ID
    );
    assert_eq!(imp_world_destroy(healthy), ImpStatus::IMP_OK);
}

/// The pair filter below and the test meet here while the step holds the world.
static INSIDE: std::sync::Barrier = std::sync::Barrier::new(2);
static RELEASE: std::sync::Barrier = std::sync::Barrier::new(2);
static FIRST: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// A pair filter that, on its first call, waits for the other thread to try the world.
unsafe extern "C" fn hold_once(_: ImpShapeId, _: ImpShapeId, _: *mut std::ffi::c_void) -> bool {
    if FIRST.swap(false, std::sync::atomic::Ordering::SeqCst) {
        INSIDE.wait();
        RELEASE.wait();
    }
    true
}

#[test]
fn a_world_in_use_on_another_thread_is_busy_not_a_deadlock() {
    let id = world();
    let mut body_def = imp_default_body_def();
    let shape_def = imp_default_shape_def();
    for y in [0.5f32, 1.4] {
        body_def.position = ImpVec3 { x: 0.0, y, z: 0.0 };
        let mut body = ImpBodyId::default();
        let mut shape = ImpShapeId::default();
        // SAFETY: valid definitions from their default functions, valid out pointers.
        let status = unsafe { imp_body_create(id, &body_def, Some(&mut body)) };
        assert_eq!(status, ImpStatus::IMP_OK);
        // SAFETY: as above.
        let status =
            unsafe { imp_shape_create_sphere(id, body, &shape_def, 0.5, Some(&mut shape)) };
        assert_eq!(status, ImpStatus::IMP_OK);
    }
    assert_eq!(
        imp_world_set_pair_filter(id, Some(hold_once), std::ptr::null_mut()),
        ImpStatus::IMP_OK
    );
    let stepper = std::thread::spawn(move || imp_world_step(id, 1.0 / 60.0));
    INSIDE.wait();
    // The step holds the world: this thread is told so at once.
    let mut g = ImpVec3::default();
    assert_eq!(
        imp_world_get_gravity(id, Some(&mut g)),
        ImpStatus::IMP_ERR_BUSY
    );
    assert_eq!(imp_world_destroy(id), ImpStatus::IMP_ERR_BUSY);
    RELEASE.wait();
    assert_eq!(stepper.join().unwrap(), ImpStatus::IMP_OK);
    assert_eq!(imp_world_get_gravity(id, Some(&mut g)), ImpStatus::IMP_OK);
    assert_eq!(imp_world_destroy(id), ImpStatus::IMP_OK);
}
