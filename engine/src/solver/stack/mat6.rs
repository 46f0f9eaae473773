//! Dense 6×6 blocks of the support trees' block `LDLᵀ`.

pub(super) type Mat6 = [[f64; 6]; 6];

/// `m x`.
#[inline]
pub(super) fn mul(m: &Mat6, x: &[f64; 6]) -> [f64; 6] {
    m.map(|row| row.iter().zip(x).fold(0.0, |s, (a, b)| s + a * b))
}

/// `mᵀ x`.
#[inline]
pub(super) fn mul_transpose(m: &Mat6, x: &[f64; 6]) -> [f64; 6] {
    let mut y = [0.0; 6];
    for (row, &xr) in m.iter().zip(x) {
        for (y, a) in y.iter_mut().zip(row) {
            *y += a * xr;
        }
    }
    y
}

/// `d − tᵀ m t`.
pub(super) fn sub_congruence(d: &mut Mat6, t: &Mat6, m: &Mat6) {
    let mt: Mat6 =
        m.map(|row| std::array::from_fn(|c| (0..6).fold(0.0, |s, k| s + row[k] * t[k][c])));
    for (r, out) in d.iter_mut().enumerate() {
        for (c, out) in out.iter_mut().enumerate() {
            *out -= (0..6).fold(0.0, |s, k| s + t[k][r] * mt[k][c]);
        }
    }
}
