//! Small dense `f64` blocks for the direct solves of ball-joint trees
//! ([`super::articulation`]): a node of a tree is a body (6 rows, plus those of the joints
//! to static bodies merged into it) or a joint between two of the tree's bodies. The
//! stacks ([`super::stack`]), whose nodes are all 6x6, use its inverse.

/// The largest node: a body with two joints to static bodies merged into it.
pub(super) const MAX: usize = 12;

/// A small dense block, row-major, at most `MAX` x `MAX`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Block {
    rows: usize,
    cols: usize,
    a: [f64; MAX * MAX],
}

impl Block {
    pub(super) fn zero(rows: usize, cols: usize) -> Self {
        Self {
            rows,
            cols,
            a: [0.0; MAX * MAX],
        }
    }

    /// Makes this a zero `rows x cols` block (zeroing only the entries in use).
    pub(super) fn reset(&mut self, rows: usize, cols: usize) {
        self.rows = rows;
        self.cols = cols;
        self.a[..rows * cols].fill(0.0);
    }

    #[cfg(test)]
    pub(super) fn at(&self, r: usize, c: usize) -> f64 {
        self.a[r * self.cols + c]
    }

    #[inline]
    pub(super) fn set(&mut self, r: usize, c: usize, x: f64) {
        self.a[r * self.cols + c] = x;
    }

    /// `self − tᵀ m t` for a square `m` (`t` is `m.rows x self.rows`). In a tree one of
    /// `t`'s sides is a joint's 3, so `m t` has at most `3 MAX` entries.
    pub(super) fn sub_congruence(&mut self, t: &Block, m: &Block) {
        debug_assert!(t.rows == m.rows && m.rows == m.cols && t.cols == self.rows);
        debug_assert!(m.rows * t.cols <= 3 * MAX);
        // The common shapes with constant sizes, which the compiler unrolls in the inlined
        // loop (the same operations in the same order, so the same bits); so in `mul`
        // and `mul_transpose`.
        match (m.rows, t.cols) {
            (3, 6) => self.sub_congruence_general(t, m, 3, 6),
            (6, 3) => self.sub_congruence_general(t, m, 6, 3),
            (3, 3) => self.sub_congruence_general(t, m, 3, 3),
            (n, tc) => self.sub_congruence_general(t, m, n, tc),
        }
    }

    #[inline(always)]
    fn sub_congruence_general(&mut self, t: &Block, m: &Block, n: usize, tc: usize) {
        let mut mt = [0.0f64; 3 * MAX];
        for r in 0..n {
            for c in 0..tc {
                let mut s = 0.0;
                for k in 0..n {
                    s += m.a[r * n + k] * t.a[k * tc + c];
                }
                mt[r * tc + c] = s;
            }
        }
        for r in 0..tc {
            for c in 0..tc {
                let mut s = 0.0;
                for k in 0..n {
                    s += t.a[k * tc + r] * mt[k * tc + c];
                }
                self.a[r * tc + c] -= s;
            }
        }
    }

    /// `self x` into the first `rows` entries.
    pub(super) fn mul(&self, x: &[f64; MAX]) -> [f64; MAX] {
        match (self.rows, self.cols) {
            (6, 6) => self.mul_general(x, 6, 6),
            (3, 3) => self.mul_general(x, 3, 3),
            (6, 3) => self.mul_general(x, 6, 3),
            (3, 6) => self.mul_general(x, 3, 6),
            (rows, cols) => self.mul_general(x, rows, cols),
        }
    }

    #[inline(always)]
    fn mul_general(&self, x: &[f64; MAX], rows: usize, cols: usize) -> [f64; MAX] {
        let mut y = [0.0; MAX];
        for (r, y) in y.iter_mut().enumerate().take(rows) {
            *y = (0..cols).map(|c| self.a[r * cols + c] * x[c]).sum();
        }
        y
    }

    /// `selfᵀ x` into the first `cols` entries.
    pub(super) fn mul_transpose(&self, x: &[f64; MAX]) -> [f64; MAX] {
        match (self.rows, self.cols) {
            (6, 3) => self.mul_transpose_general(x, 6, 3),
            (3, 6) => self.mul_transpose_general(x, 3, 6),
            (rows, cols) => self.mul_transpose_general(x, rows, cols),
        }
    }

    #[inline(always)]
    fn mul_transpose_general(&self, x: &[f64; MAX], rows: usize, cols: usize) -> [f64; MAX] {
        let mut y = [0.0; MAX];
        for (c, y) in y.iter_mut().enumerate().take(cols) {
            *y = (0..rows).map(|r| self.a[r * cols + c] * x[r]).sum();
        }
        y
    }

    /// The inverse of a square block into `out`, zero when singular.
    pub(super) fn inverse_into(&mut self, out: &mut Block) {
        if !self.invert(out) {
            out.reset(self.rows, self.rows);
        }
    }

    /// The inverse of a square block by Gauss-Jordan elimination with partial pivoting;
    /// `None` when singular.
    #[cfg(test)]
    pub(super) fn inverse(&self) -> Option<Block> {
        let mut m = *self;
        let mut inv = Block::zero(0, 0);
        m.invert(&mut inv).then_some(inv)
    }

    /// Inverts into `inv` (at fixed sizes, which the compiler unrolls); whether `self`
    /// was invertible.
    fn invert(&mut self, inv: &mut Block) -> bool {
        match self.rows {
            3 => self.invert_fixed::<3>(inv),
            6 => self.invert_fixed::<6>(inv),
            9 => self.invert_fixed::<9>(inv),
            12 => self.invert_fixed::<12>(inv),
            _ => false,
        }
    }

    fn invert_fixed<const N: usize>(&self, inv: &mut Block) -> bool {
        let mut m = [[0.0f64; N]; N];
        for (r, row) in m.iter_mut().enumerate() {
            row.copy_from_slice(&self.a[r * N..r * N + N]);
        }
        match gauss_jordan(m) {
            Some(x) => {
                inv.rows = N;
                inv.cols = N;
                for (r, row) in x.iter().enumerate() {
                    inv.a[r * N..r * N + N].copy_from_slice(row);
                }
                true
            }
            None => false,
        }
    }
}

/// The inverse of `m` by Gauss-Jordan elimination with partial pivoting, `None` when
/// singular (a pivot below 1e-12 of the largest diagonal entry).
pub(super) fn gauss_jordan<const N: usize>(mut m: [[f64; N]; N]) -> Option<[[f64; N]; N]> {
    let mut inv = [[0.0f64; N]; N];
    for (i, row) in inv.iter_mut().enumerate() {
        row[i] = 1.0;
    }
    let scale = (0..N).map(|i| m[i][i].abs()).fold(0.0, f64::max);
    for col in 0..N {
        let mut pivot = col;
        for r in col + 1..N {
            if m[r][col].abs() > m[pivot][col].abs() {
                pivot = r;
            }
        }
        let p = m[pivot][col];
        if p.abs() <= 1e-12 * scale || !p.is_finite() {
            return None;
        }
        m.swap(col, pivot);
        inv.swap(col, pivot);
        let d = 1.0 / p;
        for c in 0..N {
            m[col][c] *= d;
            inv[col][c] *= d;
        }
        let (pm, pi) = (m[col], inv[col]);
        for r in 0..N {
            if r != col {
                let f = m[r][col];
                for c in 0..N {
                    m[r][c] -= f * pm[c];
                    inv[r][c] -= f * pi[c];
                }
            }
        }
    }
    Some(inv)
}
