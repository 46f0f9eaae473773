//! The optional compression of states and images: the engine's own
//! (`World::save_state_compressed`, `World::save_image_compressed`: zlib behind an `IMPZ`
//! header), which `restore_state` and `from_image` recognize, so they take either form.

use pyo3::exceptions::PyValueError;
use pyo3::PyResult;

/// The zlib level of a `compression=` argument: `None` or 0-9, else a `ValueError`
/// naming the argument.
pub(crate) fn level(compression: Option<u32>) -> PyResult<Option<u32>> {
    match compression {
        Some(level) if level > 9 => Err(PyValueError::new_err(format!(
            "compression must be None or a zlib level 0-9, got {level}"
        ))),
        level => Ok(level),
    }
}
