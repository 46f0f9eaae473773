//! numpy at the border: every array a caller hands in is checked here (dtype convertible,
//! shape as documented, every number finite) and every error names the argument and the
//! shape it must have; arrays handed out are float32, uint64 or bool, C-contiguous.

use numpy::prelude::*;
use numpy::{PyArray1, PyArrayDyn, PyUntypedArray};
use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;

/// One dimension of an expected shape: a fixed length, or any length.
#[derive(Clone, Copy)]
pub(crate) enum Dim {
    /// Exactly this many.
    Is(usize),
    /// Any number (N, or n worlds).
    Any,
}

/// An expected shape with its spelling for messages, e.g. `(N, 3)`.
pub(crate) struct Shape<'a> {
    pub dims: &'a [Dim],
    pub text: &'a str,
}

/// A float input as float32 numbers in C order, with its shape.
pub(crate) struct Floats {
    pub data: Vec<f32>,
    pub shape: Vec<usize>,
}

impl Floats {
    /// Row `i` of a (N, C) array as `[f32; C]`.
    pub fn row<const C: usize>(&self, i: usize) -> [f32; C] {
        self.data[i * C..(i + 1) * C].try_into().unwrap()
    }

    /// The number of rows (the first dimension).
    pub fn rows(&self) -> usize {
        self.shape.first().copied().unwrap_or(0)
    }
}

fn shape_of(a: &Bound<'_, PyUntypedArray>) -> Vec<usize> {
    a.shape().to_vec()
}

fn matches(shape: &[usize], dims: &[Dim]) -> bool {
    shape.len() == dims.len()
        && shape.iter().zip(dims).all(|(&n, d)| match d {
            Dim::Is(k) => n == *k,
            Dim::Any => true,
        })
}

fn spell(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// `obj` as a float32 array of one of the `shapes` (numpy converts lists, tuples and other
/// dtypes), every number finite. Errors: `TypeError` for what is not numbers, `ValueError`
/// for another shape (saying which shape it must have) or a NaN or infinity (saying where).
pub(crate) fn floats(
    obj: &Bound<'_, PyAny>,
    field: &str,
    shapes: &[Shape<'_>],
) -> PyResult<Floats> {
    let py = obj.py();
    let want = shapes
        .iter()
        .map(|s| s.text)
        .collect::<Vec<_>>()
        .join(" or ");
    let array = match obj.cast::<PyArrayDyn<f32>>() {
        Ok(a) => a.clone(),
        Err(_) => {
            let converted = py
                .import("numpy")?
                .call_method1("asarray", (obj, "float32"))
                .map_err(|e| {
                    PyTypeError::new_err(format!(
                        "{field} must be an array of numbers of shape {want}: {}",
                        e.value(py)
                    ))
                })?;
            converted.cast_into::<PyArrayDyn<f32>>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{field} must be an array of numbers of shape {want}"
                ))
            })?
        }
    };
    let shape = shape_of(array.as_untyped());
    if !shapes.iter().any(|s| matches(&shape, s.dims)) {
        return Err(PyValueError::new_err(format!(
            "{field} must have shape {want}, got {}",
            spell(&shape)
        )));
    }
    let view = array
        .try_readonly()
        .map_err(|e| PyValueError::new_err(format!("{field}: {e}")))?;
    let data: Vec<f32> = match view.as_slice() {
        Ok(s) => s.to_vec(),
        Err(_) => view.as_array().iter().copied().collect(),
    };
    if let Some(k) = data.iter().position(|x| !x.is_finite()) {
        let per_row = shape.iter().skip(1).product::<usize>().max(1);
        let at = if shape.len() > 1 {
            format!("{field}[{}]", k / per_row)
        } else {
            format!("{field}[{k}]")
        };
        return Err(PyValueError::new_err(format!(
            "{at} is not finite (NaN or infinity): every number of {field} must be finite"
        )));
    }
    Ok(Floats { data, shape })
}

/// A fixed-size vector argument (a position, a quaternion): a sequence of `C` finite numbers.
pub(crate) fn vector<const C: usize>(obj: &Bound<'_, PyAny>, field: &str) -> PyResult<[f32; C]> {
    let text = format!("({C},)");
    let f = floats(
        obj,
        field,
        &[Shape {
            dims: &[Dim::Is(C)],
            text: &text,
        }],
    )?;
    Ok(f.data.try_into().unwrap())
}

/// A finite number argument.
pub(crate) fn number(x: f32, field: &str) -> PyResult<f32> {
    if x.is_finite() {
        Ok(x)
    } else {
        Err(PyValueError::new_err(format!(
            "{field} must be finite, got {x}"
        )))
    }
}

/// Ids: one `int` or a 1-D array of integers (as uint64). Negative or non-integer values
/// are errors naming `field`.
pub(crate) fn ids(obj: &Bound<'_, PyAny>, field: &str) -> PyResult<Vec<u64>> {
    let py = obj.py();
    if let Ok(a) = obj.cast::<PyArray1<u64>>() {
        let view = a
            .try_readonly()
            .map_err(|e| PyValueError::new_err(format!("{field}: {e}")))?;
        return Ok(match view.as_slice() {
            Ok(s) => s.to_vec(),
            Err(_) => view.as_array().iter().copied().collect(),
        });
    }
    if let Ok(one) = obj.extract::<u64>() {
        if obj.cast::<pyo3::types::PyBool>().is_err() {
            return Ok(vec![one]);
        }
    }
    let np = py.import("numpy")?;
    let array = np.call_method1("asarray", (obj,)).map_err(|e| {
        PyTypeError::new_err(format!(
            "{field} must be an id or a 1-D array of ids (integers): {}",
            e.value(py)
        ))
    })?;
    let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
    let untyped = array.cast::<PyUntypedArray>()?;
    let empty = untyped.len() == 0;
    if !(kind == "u" || kind == "i" || empty) {
        return Err(PyTypeError::new_err(format!(
            "{field} must be an id or a 1-D array of ids (integers), got dtype kind {kind:?}"
        )));
    }
    if untyped.ndim() != 1 {
        return Err(PyValueError::new_err(format!(
            "{field} must have shape (N,), got {}",
            spell(&shape_of(untyped))
        )));
    }
    if kind == "i" && array.call_method0("min")?.extract::<i64>()? < 0 {
        return Err(PyKeyError::new_err(format!(
            "{field} holds a negative id: no such object"
        )));
    }
    let array = array.call_method1("astype", ("uint64",))?;
    let a = array.cast::<PyArray1<u64>>()?;
    let view = a
        .try_readonly()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(view.as_array().iter().copied().collect())
}

/// A bool mask of `n` entries (one per world).
pub(crate) fn mask(obj: &Bound<'_, PyAny>, field: &str, n: usize) -> PyResult<Vec<bool>> {
    let py = obj.py();
    let array = py
        .import("numpy")?
        .call_method1("asarray", (obj,))
        .map_err(|e| {
            PyTypeError::new_err(format!(
                "{field} must be a bool array of shape ({n},): {}",
                e.value(py)
            ))
        })?;
    let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
    if kind != "b" {
        return Err(PyTypeError::new_err(format!(
            "{field} must be a bool array of shape ({n},), got dtype kind {kind:?}"
        )));
    }
    let a = array.cast::<PyArrayDyn<bool>>()?;
    let shape = shape_of(a.as_untyped());
    if shape != [n] {
        return Err(PyValueError::new_err(format!(
            "{field} must have shape ({n},), got {}",
            spell(&shape)
        )));
    }
    let view = a
        .try_readonly()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(view.as_array().iter().copied().collect())
}

/// The array a bulk read fills: `out` when given (it must be a writeable C-contiguous
/// float32 array of exactly `shape`), else a new one.
pub(crate) fn output<'py>(
    py: Python<'py>,
    out: Option<&Bound<'py, PyAny>>,
    shape: &[usize],
) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
    let Some(out) = out else {
        return Ok(PyArrayDyn::<f32>::zeros(py, shape.to_vec(), false));
    };
    let want = spell(shape);
    let a = out.cast::<PyArrayDyn<f32>>().map_err(|_| {
        PyTypeError::new_err(format!("out must be a float32 numpy array of shape {want}"))
    })?;
    let got = shape_of(a.as_untyped());
    if got != shape {
        return Err(PyValueError::new_err(format!(
            "out must have shape {want}, got {}",
            spell(&got)
        )));
    }
    if !a.is_c_contiguous() {
        return Err(PyValueError::new_err(format!(
            "out must be C-contiguous (shape {want})"
        )));
    }
    Ok(a.clone())
}

/// Fills `array` (C-contiguous float32, as [`output`] returns) through `fill`.
pub(crate) fn fill(
    array: &Bound<'_, PyArrayDyn<f32>>,
    fill: impl FnOnce(&mut [f32]),
) -> PyResult<()> {
    let mut view = array
        .try_readwrite()
        .map_err(|e| PyValueError::new_err(format!("out is not writeable: {e}")))?;
    let slice = view
        .as_slice_mut()
        .map_err(|e| PyValueError::new_err(format!("out: {e}")))?;
    fill(slice);
    Ok(())
}

/// A uint64 array of ids.
pub(crate) fn id_array<'py>(py: Python<'py>, ids: Vec<u64>) -> Bound<'py, PyArray1<u64>> {
    PyArray1::from_vec(py, ids)
}
