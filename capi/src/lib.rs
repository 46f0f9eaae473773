//! The C ABI of impetus: a static library (`libimpetus.a`), a shared one
//! (`libimpetus.so`) and the header `include/impetus.h`, generated from this crate by
//! cbindgen (`tests/header.rs` fails when the committed header is stale).
//!
//! The conventions are Box2D's, which C users know (see `capi/README.md`):
//!
//! - **Ids by value.** [`ImpWorldId`], [`ImpBodyId`], [`ImpShapeId`] and [`ImpJointId`] are an
//!   index and a generation. A removed object's id goes stale: every call with it returns
//!   [`ImpStatus::IMP_ERR_STALE_ID`]. The all-zero id is null and never valid (the engine
//!   never issues generation 0). Body, shape and joint calls take the world id too.
//! - **Definitions with a cookie.** `imp_default_world_def()`, `imp_default_body_def()`,
//!   `imp_default_shape_def()` and `imp_default_joint_def()` return definitions with every
//!   default filled in; the create calls refuse a definition that did not come from one
//!   (an uninitialised struct) with [`ImpStatus::IMP_ERR_BAD_DEF`].
//! - **Names** are `imp_<object>_<verb>`: `imp_world_step`, `imp_body_get_position`.
//! - **Status codes.** Every fallible call returns an [`ImpStatus`]; results come through
//!   out pointers. After a failure, `imp_last_error()` gives a message naming the bad field
//!   or argument (thread-local, valid until the next failing call on that thread).
//! - **Event views** are `{pointer, count}` pairs into memory the world owns, valid until the
//!   next step (or restore, or the world's destruction).
//! - **Callbacks** (pair filter, contact modifier, query results) are a function pointer
//!   plus a `void *context` handed back on every call; debug drawing takes a struct of
//!   them with one context ([`ImpDebugDraw`], as Box2D's `b2DebugDraw`).
//! - **Enumerations** in structs and arguments are `uint32_t` typedefs with `#define`d
//!   values, so an out-of-range value is an [`ImpStatus::IMP_ERR_INVALID_ENUM`], never
//!   undefined behaviour.
//!
//! # Safety
//!
//! No panic crosses the boundary: every export runs under `catch_unwind`. A caught panic
//! returns [`ImpStatus::IMP_ERR_PANIC`]; when it happened inside a world, that world is
//! poisoned and every later call on it returns [`ImpStatus::IMP_ERR_POISONED`] (only
//! `imp_world_destroy` still works). Null pointers, stale ids, bad definitions and
//! out-of-range enumerations are errors.
//!
//! The contract of every `unsafe` export is the C one: a non-null pointer argument points
//! to a valid object of its type (for `count` elements where a count goes with it), and an
//! out pointer to writable memory. A world is used by one thread at a time: a call on a
//! world that another thread (or a callback of this world's step) is using returns
//! [`ImpStatus::IMP_ERR_BUSY`] instead of blocking.
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]
// The safety contract of the exports is the one in the crate documentation above, shared
// by all of them.
#![allow(clippy::missing_safety_doc)]

use engine::{BodyId, Error, JointId, Quat, ShapeId, Transform, Vec3};
use std::cell::RefCell;
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

mod body;
mod debug_draw;
mod events;
mod joint;
mod query;
mod shape;
mod world;

pub use body::*;
pub use debug_draw::*;
pub use events::*;
pub use joint::*;
pub use query::*;
pub use shape::*;
pub use world::*;

/// The version of this ABI, checked by `imp_abi_check`.
/// It changes whenever a struct or a function signature of the header changes.
pub const IMP_ABI_VERSION: u32 = 1;

/// The outcome of a call. `IMP_OK` is 0; every error is negative, and `imp_last_error()`
/// tells what went wrong.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum ImpStatus {
    /// Success.
    IMP_OK = 0,
    /// A pointer argument that must not be null was null.
    IMP_ERR_NULL_POINTER = -1,
    /// An argument or a definition field is out of range (not finite, negative, ...).
    IMP_ERR_INVALID_INPUT = -2,
    /// An enumeration value (body type, joint type, spring type) is out of range.
    IMP_ERR_INVALID_ENUM = -3,
    /// A definition did not come from its `imp_default_*_def()` function.
    IMP_ERR_BAD_DEF = -4,
    /// The id is null or refers to a removed object (or world).
    IMP_ERR_STALE_ID = -5,
    /// The call is valid in general but not for this object (a motor speed for a joint
    /// without a motor, a stepper call on a world without a stepper).
    IMP_ERR_UNSUPPORTED = -6,
    /// The caller's buffer is too small; the size it needs was written.
    IMP_ERR_BUFFER_TOO_SMALL = -7,
    /// Another thread, or a callback running inside this world's step or query, is using
    /// the world.
    IMP_ERR_BUSY = -8,
    /// A panic was caught inside the library (a bug: please report it with the message).
    IMP_ERR_PANIC = -9,
    /// An earlier call panicked inside this world; only `imp_world_destroy` works on it.
    IMP_ERR_POISONED = -10,
    /// The header the caller was compiled with does not match the library.
    IMP_ERR_ABI_MISMATCH = -11,
}

/// A vector, in m (positions), m/s, rad/s or N depending on the call.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ImpVec3 {
    /// x.
    pub x: f32,
    /// y.
    pub y: f32,
    /// z.
    pub z: f32,
}

/// A rotation as a unit quaternion (x, y, z vector part, w scalar part).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpQuat {
    /// Vector part, x.
    pub x: f32,
    /// Vector part, y.
    pub y: f32,
    /// Vector part, z.
    pub z: f32,
    /// Scalar part.
    pub w: f32,
}

/// A rigid transform: rotate by `q`, then translate by `p`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpTransform {
    /// Translation, in m.
    pub p: ImpVec3,
    /// Rotation.
    pub q: ImpQuat,
}

/// An axis-aligned box, in m.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ImpAabb {
    /// Lower corner.
    pub min: ImpVec3,
    /// Upper corner.
    pub max: ImpVec3,
}

/// A rigid body of a world. All zero is the null id, which no call accepts.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ImpBodyId {
    /// Slot index.
    pub index: u32,
    /// Generation of the slot; never 0 for a live body.
    pub generation: u32,
}

/// A shape attached to a body. All zero is the null id, which no call accepts.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ImpShapeId {
    /// Slot index.
    pub index: u32,
    /// Generation of the slot; never 0 for a live shape.
    pub generation: u32,
}

/// A joint between two bodies. All zero is the null id, which no call accepts.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ImpJointId {
    /// Slot index.
    pub index: u32,
    /// Generation of the slot; never 0 for a live joint.
    pub generation: u32,
}

/// The engine's ids are the same index and generation: its slots start at generation 1
/// and skip 0 when they wrap, so the all-zero id is never a live one.
macro_rules! convert_id {
    ($($c:ident <-> $engine:ty),*) => {$(
        impl From<$engine> for $c {
            fn from(id: $engine) -> Self {
                Self { index: id.index, generation: id.generation }
            }
        }

        impl From<$c> for $engine {
            fn from(id: $c) -> Self {
                Self { index: id.index, generation: id.generation }
            }
        }
    )*};
}

convert_id!(ImpBodyId <-> BodyId, ImpShapeId <-> ShapeId, ImpJointId <-> JointId);

/// A world. Create one with `imp_world_create`, free it with `imp_world_destroy`.
///
/// All zero is the null id, which no call accepts.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ImpWorldId {
    /// Slot index.
    pub index: u32,
    /// Generation of the slot; never 0 for a live world.
    pub generation: u32,
}

impl From<ImpVec3> for Vec3 {
    fn from(v: ImpVec3) -> Vec3 {
        Vec3::new(v.x, v.y, v.z)
    }
}

impl From<Vec3> for ImpVec3 {
    fn from(v: Vec3) -> ImpVec3 {
        ImpVec3 {
            x: v.x,
            y: v.y,
            z: v.z,
        }
    }
}

impl From<ImpQuat> for Quat {
    fn from(q: ImpQuat) -> Quat {
        Quat::from_xyzw(q.x, q.y, q.z, q.w)
    }
}

impl From<Quat> for ImpQuat {
    fn from(q: Quat) -> ImpQuat {
        ImpQuat {
            x: q.x,
            y: q.y,
            z: q.z,
            w: q.w,
        }
    }
}

impl From<ImpTransform> for Transform {
    fn from(t: ImpTransform) -> Transform {
        Transform::new(t.p.into(), t.q.into())
    }
}

impl From<Transform> for ImpTransform {
    fn from(t: Transform) -> ImpTransform {
        ImpTransform {
            p: t.p.into(),
            q: t.q.into(),
        }
    }
}

impl ImpTransform {
    /// The identity transform.
    pub const IDENTITY: ImpTransform = ImpTransform {
        p: ImpVec3 {
            x: 0.0,
            y: 0.0,
            z: 0.0,
        },
        q: ImpQuat {
            x: 0.0,
            y: 0.0,
            z: 0.0,
            w: 1.0,
        },
    };
}

/// A failed call: its status and the message `imp_last_error()` will give.
#[derive(Debug)]
pub(crate) struct Fail {
    pub status: ImpStatus,
    pub message: String,
}

pub(crate) type R<T> = Result<T, Fail>;

impl Fail {
    pub fn new(status: ImpStatus, message: impl Into<String>) -> Fail {
        Fail {
            status,
            message: message.into(),
        }
    }

    pub fn null(argument: &str) -> Fail {
        Fail::new(
            ImpStatus::IMP_ERR_NULL_POINTER,
            format!("{argument} must not be null"),
        )
    }

    pub fn invalid(field: &str, reason: &str) -> Fail {
        Fail::new(
            ImpStatus::IMP_ERR_INVALID_INPUT,
            format!("invalid {field}: {reason}"),
        )
    }

    pub fn bad_enum(field: &str, value: u32) -> Fail {
        Fail::new(
            ImpStatus::IMP_ERR_INVALID_ENUM,
            format!("invalid {field}: {value} is not one of its IMP_* values"),
        )
    }
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        let status = match e {
            Error::InvalidInput { .. } => ImpStatus::IMP_ERR_INVALID_INPUT,
            Error::StaleHandle { .. } => ImpStatus::IMP_ERR_STALE_ID,
            Error::Unsupported { .. } => ImpStatus::IMP_ERR_UNSUPPORTED,
            Error::ThreadPanicked { .. } => ImpStatus::IMP_ERR_PANIC,
        };
        Fail::new(status, e.to_string())
    }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    let c = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

/// Runs an export's body: catches panics, records the message of a failure.
pub(crate) fn guard(f: impl FnOnce() -> R<()>) -> ImpStatus {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => ImpStatus::IMP_OK,
        Ok(Err(fail)) => {
            set_last_error(&fail.message);
            fail.status
        }
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(no message)".to_string());
            set_last_error(&format!("panic inside impetus: {what}"));
            ImpStatus::IMP_ERR_PANIC
        }
    }
}

/// Writes `value` through the out pointer `out`, or fails naming `argument` when it is null.
pub(crate) fn put<T>(out: Option<&mut T>, argument: &str, value: T) -> R<()> {
    match out {
        Some(o) => {
            *o = value;
            Ok(())
        }
        None => Err(Fail::null(argument)),
    }
}

/// Checks that the out pointer `out` is not null before any work is done.
pub(crate) fn need<'a, T>(out: Option<&'a mut T>, argument: &str) -> R<&'a mut T> {
    out.ok_or_else(|| Fail::null(argument))
}

/// A slice from a C array; null is accepted only with a zero count.
///
/// # Safety
/// A non-null `ptr` must point to `count` readable, initialised `T`s that stay unchanged
/// for the returned lifetime.
pub(crate) unsafe fn slice<'a, T>(ptr: *const T, count: usize, argument: &str) -> R<&'a [T]> {
    if count == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Fail::null(argument));
    }
    // SAFETY: non-null, and the caller guarantees `count` valid elements behind it.
    Ok(unsafe { std::slice::from_raw_parts(ptr, count) })
}

/// The message of the last failed call on this thread (empty when none failed yet). Valid
/// until the next failing call on the same thread.
#[no_mangle]
pub extern "C" fn imp_last_error() -> *const c_char {
    catch_unwind(|| LAST_ERROR.with(|e| e.borrow().as_ptr())).unwrap_or(c"".as_ptr())
}

/// Checks that the header the caller was compiled with matches the library: pass
/// `IMP_ABI_VERSION` and the `sizeof` of each definition (the header's `IMP_ABI_CHECK()`
/// does). Returns `IMP_ERR_ABI_MISMATCH`, naming what differs, when they do not match.
#[no_mangle]
pub extern "C" fn imp_abi_check(
    version: u32,
    world_def_size: usize,
    body_def_size: usize,
    shape_def_size: usize,
    joint_def_size: usize,
) -> ImpStatus {
    guard(|| {
        let mismatch = |what: &str, caller: usize, library: usize| {
            Fail::new(
                ImpStatus::IMP_ERR_ABI_MISMATCH,
                format!("{what}: the caller's header says {caller}, the library {library}"),
            )
        };
        if version != IMP_ABI_VERSION {
            return Err(mismatch(
                "IMP_ABI_VERSION",
                version as usize,
                IMP_ABI_VERSION as usize,
            ));
        }
        for (what, caller, library) in [
            (
                "sizeof(ImpWorldDef)",
                world_def_size,
                size_of::<ImpWorldDef>(),
            ),
            ("sizeof(ImpBodyDef)", body_def_size, size_of::<ImpBodyDef>()),
            (
                "sizeof(ImpShapeDef)",
                shape_def_size,
                size_of::<ImpShapeDef>(),
            ),
            (
                "sizeof(ImpJointDef)",
                joint_def_size,
                size_of::<ImpJointDef>(),
            ),
        ] {
            if caller != library {
                return Err(mismatch(what, caller, library));
            }
        }
        Ok(())
    })
}

/// Checks a definition's cookie through a raw pointer, before any other field is read (a
/// field of an uninitialised struct may hold a value its type does not allow).
///
/// # Safety
/// Implement it only for `repr(C)` structs of numbers, bools and ids, for which all-zero
/// bytes are a valid value.
pub(crate) unsafe trait Def {
    /// The cookie `imp_default_*_def()` writes.
    const COOKIE: u32;
    /// The struct's name for messages.
    const NAME: &'static str;
    /// The address of the cookie field.
    fn cookie(p: *const Self) -> *const u32;
}

/// The definition behind `p`, once its cookie is checked.
///
/// # Safety
/// A non-null `p` must point to readable memory of `size_of::<T>()` bytes, which holds a
/// valid `T` whenever its cookie field holds `T::COOKIE` (as it does when it came from the
/// `imp_default_*_def()` function and C code assigned its fields).
pub(crate) unsafe fn def<'a, T: Def>(p: *const T, argument: &str) -> R<&'a T> {
    if p.is_null() {
        return Err(Fail::null(argument));
    }
    // SAFETY: `p` is non-null and readable (caller's contract); the cookie is a u32, for
    // which every bit pattern is valid, read without forming a reference to the struct.
    let cookie = unsafe { T::cookie(p).read_unaligned() };
    if cookie != T::COOKIE {
        return Err(Fail::new(
            ImpStatus::IMP_ERR_BAD_DEF,
            format!(
                "{argument}: this {} was not initialised by its imp_default function",
                T::NAME
            ),
        ));
    }
    // SAFETY: the cookie shows the struct came from its default function; its fields were
    // then set by C assignments, which store valid values of their C types (a C `bool`
    // assignment stores 0 or 1; enumerations are plain integers checked later).
    Ok(unsafe { &*p })
}

/// Runs an `imp_default_*_def()` body under `catch_unwind`: should it ever panic, the
/// caller gets an all-zero definition, whose missing cookie every create call refuses
/// (`IMP_ERR_BAD_DEF`).
pub(crate) fn or_refused<T: Def>(f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        set_last_error("panic inside an imp_default_*_def function");
        // SAFETY: `T: Def`, whose implementors are plain C data for which all-zero bytes
        // are a valid value (the trait's contract).
        unsafe { std::mem::zeroed() }
    })
}

/// Checks a `uint32_t` enumeration value against its count of values.
pub(crate) fn check_enum(field: &str, value: u32, count: u32) -> R<u32> {
    if value < count {
        Ok(value)
    } else {
        Err(Fail::bad_enum(field, value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_ids_convert_both_ways_and_null_is_zero() {
        let b = BodyId {
            index: 3,
            generation: 7,
        };
        let c: ImpBodyId = b.into();
        assert_eq!((c.index, c.generation), (3, 7));
        assert_eq!(BodyId::from(c), b);
        assert_eq!(
            ImpBodyId::default(),
            ImpBodyId {
                index: 0,
                generation: 0
            }
        );
    }

    #[test]
    fn a_panic_is_caught_and_reported() {
        let status = guard(|| panic!("boom"));
        assert_eq!(status, ImpStatus::IMP_ERR_PANIC);
        // SAFETY: imp_last_error returns a valid NUL-terminated string.
        let message = unsafe { std::ffi::CStr::from_ptr(imp_last_error()) };
        assert!(message.to_str().unwrap().contains("boom"));
    }
}
