//! The solver's body-state layout: a packed 64-byte state per body (what `impetus` uses,
//! `solver::BodyState`) against structure-of-arrays columns, for the gather and scatter
//! of one wide pass.
//!
//! The access pattern is that of a coloured pass on `many_pyramids`: 10,780 bodies,
//! 3,553 batches of 8 lanes, each lane a constraint between two bodies, no body twice in
//! a batch, bodies in random order. Per batch the pass gathers both bodies' velocities
//! (and, for `solve`, the position and rotation deltas), applies a stand-in impulse and
//! scatters the velocities back. The packed layout transposes 8 states 8 floats at a time
//! (`wide::f32x8::transpose`, as the solver does); the columns are read and written one
//! float per lane per component.
//!
//! `cargo bench -p impetus-scenes --bench body_layout`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use impetus_scenes::Rng;
use std::hint::black_box;
use wide::f32x8;

const W: usize = 8;
const BODIES: usize = 10_780;
const BATCHES: usize = 3_553;

/// One body's state as the solver packs it: v, 0, w, 0, dp, 0, dq.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Packed([f32; 16]);

/// The same state as 13 columns: v, w, dp (xyz each) and dq (xyzw).
struct Columns([Vec<f32>; 13]);

/// Lane `i` of batch `k`: bodies `a[k][i]` and `b[k][i]`.
struct Batches {
    a: Vec<[u32; W]>,
    b: Vec<[u32; W]>,
}

fn batches() -> Batches {
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let mut next = move || (rng.next_u64() % BODIES as u64) as u32;
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..BATCHES {
        let mut used: Vec<u32> = Vec::with_capacity(2 * W);
        let mut pick = || loop {
            let x = next();
            if !used.contains(&x) {
                used.push(x);
                return x;
            }
        };
        let lanes: [(u32, u32); W] = std::array::from_fn(|_| (pick(), pick()));
        a.push(lanes.map(|l| l.0));
        b.push(lanes.map(|l| l.1));
    }
    Batches { a, b }
}

fn initial(body: usize, k: usize) -> f32 {
    ((body * 16 + k) % 97) as f32 * 0.01
}

/// A stand-in for a constraint row: an impulse from the relative velocity (and, with the
/// deltas, the relative displacement), applied with opposite signs.
#[inline(always)]
fn impulse(va: [f32x8; 3], vb: [f32x8; 3], d: Option<[f32x8; 3]>) -> [f32x8; 3] {
    let half = f32x8::splat(0.5);
    std::array::from_fn(|c| {
        let mut p = half * (vb[c] - va[c]);
        if let Some(d) = d {
            p += half * d[c];
        }
        p
    })
}

fn pass_packed(states: &mut [Packed], batches: &Batches, deltas: bool) {
    for (a, b) in batches.a.iter().zip(&batches.b) {
        let cols = |idx: &[u32; W], off: usize, states: &[Packed]| {
            f32x8::transpose(std::array::from_fn(|i| {
                let s = &states[idx[i] as usize].0;
                f32x8::new(std::array::from_fn(|j| s[off + j]))
            }))
        };
        let (ca, cb) = (cols(a, 0, states), cols(b, 0, states));
        let d = deltas.then(|| {
            let (da, db) = (cols(a, 8, states), cols(b, 8, states));
            // dp difference plus the rotation's vector part, as the solver's separation uses.
            std::array::from_fn(|c| db[c] - da[c] + db[4 + c] - da[4 + c])
        });
        let p = impulse([ca[0], ca[1], ca[2]], [cb[0], cb[1], cb[2]], d);
        let zero = f32x8::ZERO;
        let write = |idx: &[u32; W], c: [f32x8; 8], sign: f32, states: &mut [Packed]| {
            let s = f32x8::splat(sign);
            let v = [c[0] + s * p[0], c[1] + s * p[1], c[2] + s * p[2], zero];
            let w = [c[4] - s * p[2], c[5] + s * p[0], c[6] - s * p[1], zero];
            let rows = f32x8::transpose([v[0], v[1], v[2], v[3], w[0], w[1], w[2], w[3]]);
            for i in 0..W {
                states[idx[i] as usize].0[..8].copy_from_slice(&rows[i].to_array());
            }
        };
        write(a, ca, 1.0, states);
        write(b, cb, -1.0, states);
    }
}

fn pass_columns(cols: &mut Columns, batches: &Batches, deltas: bool) {
    for (a, b) in batches.a.iter().zip(&batches.b) {
        let load = |idx: &[u32; W], c: usize, cols: &Columns| {
            f32x8::new(std::array::from_fn(|i| cols.0[c][idx[i] as usize]))
        };
        let gather = |idx: &[u32; W], first: usize, n: usize, cols: &Columns| -> [f32x8; 7] {
            std::array::from_fn(|k| {
                if k < n {
                    load(idx, first + k, cols)
                } else {
                    f32x8::ZERO
                }
            })
        };
        let (va, wa) = (gather(a, 0, 3, cols), gather(a, 3, 3, cols));
        let (vb, wb) = (gather(b, 0, 3, cols), gather(b, 3, 3, cols));
        let d = deltas.then(|| {
            let (da, db) = (gather(a, 6, 7, cols), gather(b, 6, 7, cols));
            std::array::from_fn(|c| db[c] - da[c] + db[3 + c] - da[3 + c])
        });
        let p = impulse([va[0], va[1], va[2]], [vb[0], vb[1], vb[2]], d);
        let write =
            |idx: &[u32; W], v: [f32x8; 7], w: [f32x8; 7], sign: f32, cols: &mut Columns| {
                let s = f32x8::splat(sign);
                let out = [
                    v[0] + s * p[0],
                    v[1] + s * p[1],
                    v[2] + s * p[2],
                    w[0] - s * p[2],
                    w[1] + s * p[0],
                    w[2] - s * p[1],
                ];
                for (c, lanes) in out.iter().enumerate() {
                    let lanes = lanes.to_array();
                    for i in 0..W {
                        cols.0[c][idx[i] as usize] = lanes[i];
                    }
                }
            };
        write(a, va, wa, 1.0, cols);
        write(b, vb, wb, -1.0, cols);
    }
}

fn body_layout(c: &mut Criterion) {
    let batches = batches();
    let mut packed: Vec<Packed> = (0..BODIES)
        .map(|b| Packed(std::array::from_fn(|k| initial(b, k))))
        .collect();
    // The same values, column by column (skipping the packed layout's padding).
    let packed_float = [0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 15];
    let mut columns = Columns(std::array::from_fn(|c| {
        (0..BODIES).map(|b| initial(b, packed_float[c])).collect()
    }));
    let mut group = c.benchmark_group("body_layout");
    group.throughput(Throughput::Elements((BATCHES * W) as u64));
    for (name, deltas) in [("warm_start", false), ("solve", true)] {
        group.bench_function(format!("packed_64B/{name}"), |bench| {
            bench.iter(|| pass_packed(black_box(&mut packed), &batches, deltas))
        });
        group.bench_function(format!("soa_columns/{name}"), |bench| {
            bench.iter(|| pass_columns(black_box(&mut columns), &batches, deltas))
        });
    }
    group.finish();
}

criterion_group!(benches, body_layout);
criterion_main!(benches);
