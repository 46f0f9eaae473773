//! Bytes over a valid image or state that still pass its checksum, so that the fuzzer's
//! mutations reach the sections behind it (raw mutations almost never do: a changed byte
//! fails the FNV-1a 64 checksum at the end, and the decoder stops there).

/// FNV-1a 64, the checksum images and states end with (`codec::checksum`).
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// `valid` with `noise` XORed over it from its start (the checksum excluded), then the
/// checksum recomputed over the result.
pub fn xor_and_reseal(valid: &[u8], noise: &[u8]) -> Vec<u8> {
    let mut out = valid.to_vec();
    let body = out.len().saturating_sub(8);
    for (x, d) in out[..body].iter_mut().zip(noise) {
        *x ^= d;
    }
    let sum = fnv1a64(&out[..body]);
    out[body..].copy_from_slice(&sum.to_le_bytes());
    out
}
