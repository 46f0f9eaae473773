//! The byte format of states and images: values written field by field, little-endian,
//! never as struct memory, so a state does not depend on the lane width, the thread count
//! or the layout the compiler chose.
//!
//! A file is a header (`magic`, major and minor version, flags), a section count, the
//! sections (a four-byte tag, a `u32` length, the payload) and an FNV-1a 64 checksum of
//! everything before it, all of these fixed-width little-endian (see [`Writer::raw_u32`]).
//! A reader skips the sections it does not know. Inside a section: `u16`, `u32`, `u64` and
//! `usize` as LEB128 varints of the value plus one (wrapping), so that both the small
//! indices and counts that fill a state and the `NULL` (`u32::MAX`) marker take one byte;
//! `i32` zigzag-encoded; `u8` as its byte; `f32` as its bit pattern, four bytes (NaN payloads
//! and signed zeros survive); `bool` as one byte 0 or 1; a `Vec` as a count and its items.
//!
//! Decoding never trusts a count: a `Vec` longer than the bytes left is rejected before
//! anything is allocated, so a corrupt file costs no more memory than its own size.

use crate::error::Error;
use glam::{Quat, Vec3};

/// The checksum of a file: FNV-1a 64.
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in bytes {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// The magic of a compressed state or image: `IMPZ`, the uncompressed length (`u64`,
/// little-endian), then the zlib stream of the plain file (which keeps its own magic and
/// checksum inside).
pub(crate) const ZMAGIC: &[u8; 4] = b"IMPZ";

/// The largest inflated size accepted: 4 GiB.
const MAX_INFLATED: u64 = 4 << 30;

/// Appends `plain` to `out`, compressed at zlib `level` (0-9) behind the [`ZMAGIC`]
/// header. A level over 9 is an error naming `level`.
pub(crate) fn compress(plain: &[u8], level: u32, out: &mut Vec<u8>) -> Result<(), Error> {
    use std::io::Write;
    if level > 9 {
        return Err(Error::invalid("level", "must be a zlib level 0-9"));
    }
    out.extend_from_slice(ZMAGIC);
    out.extend_from_slice(&(plain.len() as u64).to_le_bytes());
    let mut z = flate2::write::ZlibEncoder::new(out, flate2::Compression::new(level));
    z.write_all(plain)
        .and_then(|_| z.finish().map(|_| ()))
        .map_err(|_| Error::invalid("level", "compression failed"))
}

/// The plain bytes of `data`: inflated when it starts with [`ZMAGIC`], else `data` itself.
/// A corrupt stream, or one that does not inflate to its declared length, is an error
/// naming `what` (`"state"`, `"image"`).
pub(crate) fn expand<'a>(
    data: &'a [u8],
    what: &'static str,
) -> Result<std::borrow::Cow<'a, [u8]>, Error> {
    use std::io::Read;
    if !data.starts_with(ZMAGIC) {
        return Ok(std::borrow::Cow::Borrowed(data));
    }
    let len = data
        .get(4..12)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
        .ok_or(Error::invalid(what, "has a truncated compression header"))?;
    if len > MAX_INFLATED {
        return Err(Error::invalid(what, "declares an inflated size over 4 GiB"));
    }
    // Grows as it inflates: a forged length allocates no more than the stream yields.
    let mut out = Vec::with_capacity((len as usize).min(64 << 20));
    flate2::read::ZlibDecoder::new(&data[12..])
        .take(len + 1)
        .read_to_end(&mut out)
        .map_err(|_| Error::invalid(what, "holds a corrupt compressed stream"))?;
    if out.len() as u64 != len {
        return Err(Error::invalid(
            what,
            "does not inflate to its declared size",
        ));
    }
    Ok(std::borrow::Cow::Owned(out))
}

/// Appends values to a byte buffer.
pub(crate) struct Writer<'a> {
    out: &'a mut Vec<u8>,
}

impl<'a> Writer<'a> {
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        Self { out }
    }

    #[inline]
    pub fn bytes(&mut self, b: &[u8]) {
        self.out.extend_from_slice(b);
    }

    #[inline]
    pub fn put<T: Field>(&mut self, value: &T) {
        value.put(self);
    }

    /// The bytes written so far.
    pub fn len(&self) -> usize {
        self.out.len()
    }

    /// A fixed-width `u16` (file headers).
    pub fn raw_u16(&mut self, value: u16) {
        self.bytes(&value.to_le_bytes());
    }

    /// A fixed-width `u32`: file headers and section lengths (patched after the section).
    pub fn raw_u32(&mut self, value: u32) {
        self.bytes(&value.to_le_bytes());
    }

    /// A fixed-width `u64`: the checksum at the end of a file.
    pub fn raw_u64(&mut self, value: u64) {
        self.bytes(&value.to_le_bytes());
    }

    /// A varint (LEB128: seven bits a byte, low first, the top bit set on all but the last).
    #[inline]
    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.out.push(v as u8 | 0x80);
            v >>= 7;
        }
        self.out.push(v as u8);
    }

    /// Overwrites four bytes at `at` (a length written before its section).
    pub fn patch_u32(&mut self, at: usize, value: u32) {
        self.out[at..at + 4].copy_from_slice(&value.to_le_bytes());
    }

    /// The bytes from `from` to the end.
    pub fn since(&self, from: usize) -> &[u8] {
        &self.out[from..]
    }
}

/// Reads values back, failing with an error that names `what` (the file and section)
/// when the bytes run out or a value is not one the writer could have written.
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    /// What is being read, for errors: `"state"`, `"image"`.
    pub what: &'static str,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8], what: &'static str) -> Self {
        Self { data, pos: 0, what }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        if n > self.remaining() {
            return Err(self.error("is truncated"));
        }
        let b = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(b)
    }

    #[inline]
    pub fn get<T: Field>(&mut self) -> Result<T, Error> {
        T::get(self)
    }

    /// A fixed-width `u16` (file headers).
    pub fn raw_u16(&mut self) -> Result<u16, Error> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().unwrap()))
    }

    /// A fixed-width `u32` (file headers, section lengths).
    pub fn raw_u32(&mut self) -> Result<u32, Error> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }

    /// A varint of at most `bits` bits (see [`Writer::varint`]); longer or wider is an error.
    #[inline]
    fn varint(&mut self, bits: u32) -> Result<u64, Error> {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let b = *self
                .data
                .get(self.pos)
                .ok_or_else(|| self.error("is truncated"))?;
            self.pos += 1;
            let low = (b & 0x7f) as u64;
            if shift >= bits || (shift > 0 && low >> (bits - shift).min(63) != 0) {
                return Err(self.error("holds a malformed number"));
            }
            v |= low << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
            shift += 7;
        }
    }

    /// A count of items that each take at least one byte: never more than the bytes left.
    pub fn count(&mut self) -> Result<usize, Error> {
        let n = u32::get(self)? as usize;
        if n > self.remaining() {
            return Err(self.error("holds a count larger than the data"));
        }
        Ok(n)
    }

    /// An error naming what is read.
    pub fn error(&self, reason: &'static str) -> Error {
        Error::invalid(self.what, reason)
    }
}

/// A value the format can hold.
pub(crate) trait Field: Sized {
    fn put(&self, w: &mut Writer<'_>);
    fn get(r: &mut Reader<'_>) -> Result<Self, Error>;
}

impl Field for u8 {
    #[inline]
    fn put(&self, w: &mut Writer<'_>) {
        w.out.push(*self);
    }
    #[inline]
    fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        Ok(r.take(1)?[0])
    }
}

/// Unsigned integers as varints of the value plus one: `NULL` (all ones) wraps to 0.
macro_rules! varint_field {
    ($($t:ty),*) => {$(
        impl Field for $t {
            #[inline]
            fn put(&self, w: &mut Writer<'_>) {
                w.varint(self.wrapping_add(1) as u64);
            }
            #[inline]
            fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
                let v = r.varint(<$t>::BITS)? as $t;
                Ok(v.wrapping_sub(1))
            }
        }
    )*};
}
varint_field!(u16, u32, u64);

impl Field for i32 {
    #[inline]
    fn put(&self, w: &mut Writer<'_>) {
        w.varint(((self << 1) ^ (self >> 31)) as u32 as u64);
    }
    #[inline]
    fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        let z = r.varint(32)? as u32;
        Ok((z >> 1) as i32 ^ -((z & 1) as i32))
    }
}

impl Field for f32 {
    #[inline]
    fn put(&self, w: &mut Writer<'_>) {
        w.bytes(&self.to_bits().to_le_bytes());
    }
    #[inline]
    fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        Ok(f32::from_bits(r.raw_u32()?))
    }
}

impl Field for f64 {
    fn put(&self, w: &mut Writer<'_>) {
        w.bytes(&self.to_bits().to_le_bytes());
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        Ok(f64::from_bits(u64::from_le_bytes(
            r.take(8)?.try_into().unwrap(),
        )))
    }
}

impl Field for usize {
    fn put(&self, w: &mut Writer<'_>) {
        (*self as u64).put(w);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        usize::try_from(u64::get(r)?).map_err(|_| r.error("holds a size too large"))
    }
}

impl Field for bool {
    #[inline]
    fn put(&self, w: &mut Writer<'_>) {
        (*self as u8).put(w);
    }
    #[inline]
    fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        match u8::get(r)? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(r.error("holds a flag that is neither 0 nor 1")),
        }
    }
}

impl Field for Vec3 {
    #[inline]
    fn put(&self, w: &mut Writer<'_>) {
        self.x.put(w);
        self.y.put(w);
        self.z.put(w);
    }
    #[inline]
    fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        Ok(Vec3::new(r.get()?, r.get()?, r.get()?))
    }
}

impl Field for Quat {
    #[inline]
    fn put(&self, w: &mut Writer<'_>) {
        self.x.put(w);
        self.y.put(w);
        self.z.put(w);
        self.w.put(w);
    }
    #[inline]
    fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        Ok(Quat::from_xyzw(r.get()?, r.get()?, r.get()?, r.get()?))
    }
}

impl<T: Field, const N: usize> Field for [T; N] {
    fn put(&self, w: &mut Writer<'_>) {
        for x in self {
            x.put(w);
        }
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        let mut items = Vec::with_capacity(N);
        for _ in 0..N {
            items.push(T::get(r)?);
        }
        Ok(items
            .try_into()
            .unwrap_or_else(|_| unreachable!("N items were read")))
    }
}

impl<A: Field, B: Field> Field for (A, B) {
    fn put(&self, w: &mut Writer<'_>) {
        self.0.put(w);
        self.1.put(w);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        Ok((r.get()?, r.get()?))
    }
}

impl<A: Field, B: Field, C: Field> Field for (A, B, C) {
    fn put(&self, w: &mut Writer<'_>) {
        self.0.put(w);
        self.1.put(w);
        self.2.put(w);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        Ok((r.get()?, r.get()?, r.get()?))
    }
}

impl<T: Field> Field for Vec<T> {
    fn put(&self, w: &mut Writer<'_>) {
        (self.len() as u32).put(w);
        for x in self {
            x.put(w);
        }
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        let n = r.count()?;
        let mut items = Vec::with_capacity(n);
        for _ in 0..n {
            items.push(T::get(r)?);
        }
        Ok(items)
    }
}

impl<T: Field> Field for Option<T> {
    fn put(&self, w: &mut Writer<'_>) {
        match self {
            None => 0u8.put(w),
            Some(x) => {
                1u8.put(w);
                x.put(w);
            }
        }
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, Error> {
        match u8::get(r)? {
            0 => Ok(None),
            1 => Ok(Some(T::get(r)?)),
            _ => Err(r.error("holds an option tag that is neither 0 nor 1")),
        }
    }
}

/// `impl Field` for a struct, field by field in the order given; `..` fills the fields
/// not listed with their defaults when reading (derived state rebuilt after a restore).
macro_rules! fields {
    ($ty:ty { $($f:ident),* $(,)? }) => {
        impl $crate::codec::Field for $ty {
            fn put(&self, w: &mut $crate::codec::Writer<'_>) {
                $( $crate::codec::Field::put(&self.$f, w); )*
            }
            fn get(r: &mut $crate::codec::Reader<'_>) -> Result<Self, $crate::error::Error> {
                Ok(Self { $( $f: r.get()?, )* })
            }
        }
    };
    ($ty:ty { $($f:ident),* , .. }) => {
        impl $crate::codec::Field for $ty {
            fn put(&self, w: &mut $crate::codec::Writer<'_>) {
                $( $crate::codec::Field::put(&self.$f, w); )*
            }
            fn get(r: &mut $crate::codec::Reader<'_>) -> Result<Self, $crate::error::Error> {
                Ok(Self { $( $f: r.get()?, )* ..Default::default() })
            }
        }
    };
}
pub(crate) use fields;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip() {
        let mut out = Vec::new();
        let mut w = Writer::new(&mut out);
        let v = (
            vec![Vec3::new(1.0, -0.0, f32::NAN), Vec3::ZERO],
            Quat::from_xyzw(0.1, 0.2, 0.3, 0.9),
            Some(7u64),
        );
        w.put(&v);
        w.put(&true);
        let mut r = Reader::new(&out, "test");
        let back: (Vec<Vec3>, Quat, Option<u64>) = r.get().unwrap();
        assert_eq!(back.0[0].x, 1.0);
        assert_eq!(back.0[0].y.to_bits(), (-0.0f32).to_bits());
        assert_eq!(back.0[0].z.to_bits(), f32::NAN.to_bits());
        assert_eq!(back.1, v.1);
        assert_eq!(back.2, Some(7));
        assert!(r.get::<bool>().unwrap());
        assert!(r.is_empty());
    }

    #[test]
    fn corrupt_counts_and_flags_are_errors() {
        let mut out = Vec::new();
        Writer::new(&mut out).put(&(u32::MAX - 1));
        let err = Reader::new(&out, "state").get::<Vec<u64>>().unwrap_err();
        assert_eq!(
            err,
            Error::invalid("state", "holds a count larger than the data")
        );
        assert!(Reader::new(&[2], "state").get::<bool>().is_err());
        // A varint cut short, one longer than its type, and one with bits past it.
        assert!(Reader::new(&[0x80], "state").get::<u32>().is_err());
        assert!(Reader::new(&[0x80; 6], "state").get::<u32>().is_err());
        assert!(Reader::new(&[0xff, 0xff, 0xff, 0xff, 0x7f], "state")
            .get::<u32>()
            .is_err());
        assert!(Reader::new(&[0xff, 0xff, 0xff, 0xff, 0x0f], "state")
            .get::<u32>()
            .is_ok());
    }

    #[test]
    fn compressed_bytes_expand_and_corrupt_ones_are_errors() {
        let plain: Vec<u8> = (0..5000u32).map(|i| (i % 7) as u8).collect();
        let mut z = Vec::new();
        compress(&plain, 6, &mut z).unwrap();
        assert!(z.starts_with(ZMAGIC) && z.len() < plain.len() / 4);
        assert_eq!(&*expand(&z, "state").unwrap(), &plain[..]);
        // Plain bytes pass through; a bad level, a cut stream, a flipped byte and a lying
        // length are errors naming the field.
        assert_eq!(&*expand(&plain, "state").unwrap(), &plain[..]);
        assert_eq!(
            compress(&plain, 10, &mut Vec::new()).unwrap_err(),
            Error::invalid("level", "must be a zlib level 0-9")
        );
        assert_eq!(
            expand(&z[..8], "image").unwrap_err(),
            Error::invalid("image", "has a truncated compression header")
        );
        assert!(expand(&z[..z.len() - 3], "state").is_err());
        let mut flipped = z.clone();
        flipped[20] ^= 0x55;
        assert!(expand(&flipped, "state").is_err());
        let mut longer = z.clone();
        longer[4..12].copy_from_slice(&(plain.len() as u64 + 1).to_le_bytes());
        assert_eq!(
            expand(&longer, "state").unwrap_err(),
            Error::invalid("state", "does not inflate to its declared size")
        );
        longer[4..12].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(expand(&longer, "state").is_err());
    }

    #[test]
    fn integers_take_few_bytes() {
        let len = |f: &dyn Fn(&mut Writer<'_>)| {
            let mut out = Vec::new();
            f(&mut Writer::new(&mut out));
            out.len()
        };
        assert_eq!(len(&|w| w.put(&0u32)), 1);
        assert_eq!(len(&|w| w.put(&u32::MAX)), 1, "NULL is one byte");
        assert_eq!(len(&|w| w.put(&126u32)), 1);
        assert_eq!(len(&|w| w.put(&127u32)), 2);
        assert_eq!(len(&|w| w.put(&(u32::MAX - 1))), 5);
        assert_eq!(len(&|w| w.put(&-1i32)), 1);
        for v in [0u64, 1, 127, 128, u32::MAX as u64, u64::MAX - 1, u64::MAX] {
            let mut out = Vec::new();
            Writer::new(&mut out).put(&v);
            assert_eq!(Reader::new(&out, "t").get::<u64>().unwrap(), v);
        }
        for v in [0i32, -1, 1, i32::MIN, i32::MAX] {
            let mut out = Vec::new();
            Writer::new(&mut out).put(&v);
            assert_eq!(Reader::new(&out, "t").get::<i32>().unwrap(), v);
        }
    }
}
