//! The particle–particle springs, colour by colour, `W` to a batch in SIMD lanes: their
//! XPBD position pass and their dampers on the velocities.

use super::solve::CHUNK;
use super::store::{ParticleStore, Rod, COLORS};
use crate::parallel::{for_each_chunk_maybe_par, DisjointPtr};
use crate::solver::wide::{FloatW, Vec3W, W};
use glam::Vec3;

/// Every particle–particle spring, colour by colour.
pub(crate) fn solve_springs(store: &mut ParticleStore, h: f32, parallel: bool) {
    let ParticleStore {
        position,
        inv_mass,
        plan,
        ..
    } = store;
    let x = DisjointPtr::new(position);
    for_each_batch(&mut plan.rods, parallel, |batch| {
        solve_rods(batch, x, inv_mass, h)
    });
}

/// Calls `f` on every batch of springs, colour by colour: `W` springs a batch, a colour's
/// batches across the workers when it has enough of them; the overflow's springs (which
/// may share particles) one at a time, in order.
fn for_each_batch(colors: &mut [Vec<Rod>], parallel: bool, f: impl Fn(&mut [Rod]) + Send + Sync) {
    for (color, rods) in colors.iter_mut().enumerate() {
        if rods.is_empty() {
            continue;
        }
        let (size, par) = if color == COLORS {
            (1, false)
        } else {
            (W, parallel && rods.len() >= CHUNK)
        };
        for_each_chunk_maybe_par(rods, size, par, CHUNK / (4 * W), |_, batch| f(batch));
    }
}

/// Up to `W` springs in lanes (a short batch repeats its first spring in the empty lanes,
/// which are not written back). Each lane computes with the same IEEE operations as any
/// other, so a spring's result does not depend on its lane or on `W`.
#[inline]
fn solve_rods(batch: &[Rod], x: DisjointPtr<Vec3>, w: &[f32], h: f32) {
    let rod = |l: usize| &batch[if l < batch.len() { l } else { 0 }];
    let mut pa = [Vec3::ZERO; W];
    let mut pb = [Vec3::ZERO; W];
    let mut wa = [0.0f32; W];
    let mut wb = [0.0f32; W];
    let mut rest = [0.0f32; W];
    let mut alpha = [0.0f32; W];
    let inv_h = 1.0 / h;
    let inv_h2 = inv_h * inv_h;
    for l in 0..W {
        let r = rod(l);
        pa[l] = *x.get_mut(r.a);
        pb[l] = *x.get_mut(r.b);
        wa[l] = w[r.a as usize];
        wb[l] = w[r.b as usize];
        rest[l] = r.rest;
        alpha[l] = r.compliance * inv_h2;
    }
    let (xa, xb) = (Vec3W::gather(&pa), Vec3W::gather(&pb));
    let (ma, mb) = (FloatW::new(wa), FloatW::new(wb));
    let alpha = FloatW::new(alpha);
    let d = xb - xa;
    let len = d.dot(d).sqrt();
    let zero = FloatW::ZERO;
    let one = FloatW::splat(1.0);
    // A spring of zero length has no direction: it does nothing this substep.
    let inv_len = len
        .simd_gt(FloatW::splat(1.0e-12))
        .select(one / len.max(FloatW::splat(1.0e-12)), zero);
    let n = inv_len * d;
    let c = len - FloatW::new(rest);
    let lambda = (zero - c) / (ma + mb + alpha);
    let (xa, xb) = (
        (xa - (ma * lambda) * n).scatter(),
        (xb + (mb * lambda) * n).scatter(),
    );
    for (l, r) in batch.iter().enumerate() {
        *x.get_mut(r.a) = xa[l];
        *x.get_mut(r.b) = xb[l];
    }
}

/// The dampers of the particle–particle springs, colour by colour, on the velocities the
/// substep ended with: each removes the fraction `βh Σw / (1 + βh Σw)` of its ends'
/// relative speed along it (an implicit damper: stable for any `β`). On velocities, so
/// that a spring at rest is not damped by the motion of its ends within the substep
/// (the position form of XPBD damping biases a hanging strand's stretch by `β h Σw`).
pub(crate) fn damp_springs(store: &mut ParticleStore, h: f32, parallel: bool) {
    if !store.plan.damped {
        return;
    }
    let ParticleStore {
        position,
        velocity,
        inv_mass,
        plan,
        ..
    } = store;
    let v = DisjointPtr::new(velocity);
    let x = &*position;
    for_each_batch(&mut plan.rods, parallel, |batch| {
        damp_rods(batch, x, v, inv_mass, h)
    });
}

/// Up to `W` dampers in lanes (as [`solve_rods`]).
#[inline]
fn damp_rods(batch: &[Rod], x: &[Vec3], v: DisjointPtr<Vec3>, w: &[f32], h: f32) {
    let rod = |l: usize| &batch[if l < batch.len() { l } else { 0 }];
    let mut d = [Vec3::ZERO; W];
    let mut dv = [Vec3::ZERO; W];
    let mut va = [Vec3::ZERO; W];
    let mut vb = [Vec3::ZERO; W];
    let mut wa = [0.0f32; W];
    let mut wb = [0.0f32; W];
    let mut beta = [0.0f32; W];
    for l in 0..W {
        let r = rod(l);
        let (a, b) = (r.a as usize, r.b as usize);
        d[l] = x[b] - x[a];
        va[l] = *v.get_mut(r.a);
        vb[l] = *v.get_mut(r.b);
        dv[l] = vb[l] - va[l];
        wa[l] = w[a];
        wb[l] = w[b];
        beta[l] = r.damping * h;
    }
    let d = Vec3W::gather(&d);
    let (ma, mb) = (FloatW::new(wa), FloatW::new(wb));
    let zero = FloatW::ZERO;
    let one = FloatW::splat(1.0);
    let sum = ma + mb;
    // Past a million the fraction k / (1 + k) is 1 in f32: the cap keeps k finite.
    let k = (FloatW::new(beta) * sum).min(FloatW::splat(1.0e6));
    // The impulse (per unit of d, so that no square root is needed: `n = d / |d|`) that
    // removes the fraction k / (1 + k) of the relative speed along the spring; none for
    // a spring of zero length, which has no direction.
    let den = (one + k) * sum * d.dot(d);
    let impulse = den.simd_gt(zero).select(
        k * d.dot(Vec3W::gather(&dv)) / den.max(FloatW::splat(f32::MIN_POSITIVE)),
        zero,
    );
    let (va, vb) = (
        (Vec3W::gather(&va) + (ma * impulse) * d).scatter(),
        (Vec3W::gather(&vb) - (mb * impulse) * d).scatter(),
    );
    for (l, r) in batch.iter().enumerate() {
        *v.get_mut(r.a) = va[l];
        *v.get_mut(r.b) = vb[l];
    }
}
