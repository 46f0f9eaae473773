//! Helpers shared by the scene tests (`mod common;`).

use impetus_scenes::Rng;

/// Corrupt copies of `bytes`: truncated at 64 lengths from empty to one byte short, 200
/// single-bit flips at positions drawn from `seed`, and random buffers of `random_lens`;
/// with the generator, for more draws from the same sequence.
pub fn corruptions(bytes: &[u8], seed: u64, random_lens: &[usize]) -> (Vec<Vec<u8>>, Rng) {
    let mut rng = Rng::new(seed);
    let mut bad: Vec<Vec<u8>> = (0..64)
        .map(|k| bytes[..k * bytes.len() / 64].to_vec())
        .collect();
    for _ in 0..200 {
        let mut s = bytes.to_vec();
        let at = (rng.next_u64() % s.len() as u64) as usize;
        s[at] ^= 1 << (rng.next_u64() % 8);
        bad.push(s);
    }
    for &len in random_lens {
        bad.push((0..len).map(|_| rng.next_u64() as u8).collect());
    }
    (bad, rng)
}
