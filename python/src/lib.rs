//! Python bindings of impetus: the `impetus._impetus` extension module.
//!
//! Thin by design (`docs/python.md`, "Bindings are thin"): ids, definitions and bulk arrays over
//! the engine's public API, no second copy of engine logic.
//!
//! - `world.rs`: the `World` class, one method per engine call or bulk call;
//! - `content.rs`: building bodies, shapes and joints from Python arguments;
//! - `batch.rs`: `BatchWorld`, n copies of a world stepped across a rayon pool;
//! - `arrays.rs`: numpy input checks (shape, dtype, finiteness) and output arrays;
//! - `pack.rs`: the `compression=` level of states and images (the engine compresses).
//!
//! Ids cross into Python as one `int` (and `uint64` in arrays): the generation in the
//! high 32 bits, the slot index in the low 32, so a live id is never 0 (generations start
//! at 1) and 0 means "none" in arrays of hits and events.

// A Python function's keyword arguments are its Rust parameters: `create_body` takes eleven.
#![allow(clippy::too_many_arguments)]

mod arrays;
mod batch;
mod bulk;
mod content;
mod pack;
mod world;

use impetus::Error;
use pyo3::exceptions::{PyKeyError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

/// An engine error as the Python exception its kind calls for: a bad value is a
/// `ValueError` naming the field, a removed or foreign id a `KeyError`.
pub(crate) fn py_err(e: Error) -> PyErr {
    err_with(e, String::new())
}

/// As [`py_err`], with the row of a bulk call in front: `positions[3]: ...`.
pub(crate) fn py_err_at(e: Error, field: &str, row: usize) -> PyErr {
    err_with(e, format!("{field}[{row}]: "))
}

fn err_with(e: Error, prefix: String) -> PyErr {
    match e {
        Error::InvalidInput { .. } | Error::Unsupported { .. } => {
            PyValueError::new_err(format!("{prefix}{e}"))
        }
        Error::StaleHandle { kind } => PyKeyError::new_err(format!(
            "{prefix}{kind}: no such object in this world (removed, or an id of another world)"
        )),
        Error::ThreadPanicked { .. } => PyRuntimeError::new_err(format!("{prefix}{e}")),
    }
}

/// The Python form of an engine id: generation in the high half, index in the low.
pub(crate) fn pack_id(index: u32, generation: u32) -> u64 {
    (generation as u64) << 32 | index as u64
}

/// The engine's (index, generation) of a Python id.
pub(crate) fn unpack_id(id: u64) -> (u32, u32) {
    (id as u32, (id >> 32) as u32)
}

macro_rules! id_conversions {
    ($($name:ident => $to:ident, $from:ident;)*) => {$(
        pub(crate) fn $to(id: impetus::$name) -> u64 {
            pack_id(id.index, id.generation)
        }
        pub(crate) fn $from(id: u64) -> impetus::$name {
            let (index, generation) = unpack_id(id);
            impetus::$name { index, generation }
        }
    )*};
}

id_conversions! {
    BodyId => body_to_py, body_from_py;
    ShapeId => shape_to_py, shape_from_py;
    JointId => joint_to_py, joint_from_py;
}

/// impetus: a deterministic 3D rigid-body physics engine. See `World` and `BatchWorld`.
#[pymodule]
fn _impetus(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<world::PyWorld>()?;
    m.add_class::<batch::PyBatchWorld>()?;
    m.add_class::<content::PyMaterial>()?;
    m.add_class::<content::PyFilter>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
