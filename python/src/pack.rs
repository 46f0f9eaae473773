//! The optional compression of states and images: zlib (flate2) behind a small header,
//! so that `restore_state` and `from_image` take either form and tell them apart.
//!
//! Layout: the magic `IMPZ`, the uncompressed length (`u64`, little-endian), then the zlib
//! stream of the engine's bytes (which keep their own magic and checksum inside). The
//! length bounds the inflated size, so a forged header cannot make it allocate without
//! end.

use flate2::read::ZlibDecoder;
use flate2::write::ZlibEncoder;
use flate2::Compression;
use pyo3::exceptions::PyValueError;
use pyo3::PyResult;
use std::borrow::Cow;
use std::io::{Read, Write};

const MAGIC: &[u8; 4] = b"IMPZ";

/// The largest inflated size accepted: 4 GiB.
const MAX_LEN: u64 = 4 << 30;

/// `bytes` compressed at `level` (0-9), or as they are for `None`.
pub(crate) fn compress(bytes: Vec<u8>, level: Option<u32>) -> PyResult<Vec<u8>> {
    let Some(level) = level else {
        return Ok(bytes);
    };
    if level > 9 {
        return Err(PyValueError::new_err(format!(
            "compression must be None or a zlib level 0-9, got {level}"
        )));
    }
    let mut out = Vec::with_capacity(bytes.len() / 3 + 16);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    let mut z = ZlibEncoder::new(out, Compression::new(level));
    z.write_all(&bytes)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    z.finish().map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The engine's bytes of `data`: inflated when it is compressed, else `data` itself.
/// `what` names the argument in errors (`state` or `image`).
pub(crate) fn expand<'a>(data: &'a [u8], what: &str) -> PyResult<Cow<'a, [u8]>> {
    if !data.starts_with(MAGIC) {
        return Ok(Cow::Borrowed(data));
    }
    let corrupt = |why: &str| PyValueError::new_err(format!("invalid {what}: {why}"));
    let len = data
        .get(4..12)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
        .ok_or_else(|| corrupt("the compressed header is truncated"))?;
    if len > MAX_LEN {
        return Err(corrupt("declares an inflated size over 4 GiB"));
    }
    // Grows as it inflates: a forged length allocates no more than the stream yields.
    let mut out = Vec::with_capacity((len as usize).min(64 << 20));
    ZlibDecoder::new(&data[12..])
        .take(len + 1)
        .read_to_end(&mut out)
        .map_err(|_| corrupt("the compressed data is corrupt"))?;
    if out.len() as u64 != len {
        return Err(corrupt(
            "the compressed data does not inflate to its declared size",
        ));
    }
    Ok(Cow::Owned(out))
}
