//! A panic inside a world is caught at the boundary (`IMP_ERR_PANIC`) and poisons the
//! world: every later call on it returns `IMP_ERR_POISONED`, and `imp_world_destroy` still
//! frees it. Other worlds are unaffected.

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
