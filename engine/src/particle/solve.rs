//! One particle substep (see the module docs of [`particle`](super)): predict, then the
//! springs in lanes by colour (`springs.rs`), the volumes by colour and the tethers
//! (here), the bodies' springs and contacts per particle (`couple.rs`).

use super::store::{ParticleStore, RodTether, VolumeData, COLORS};
use crate::id::NULL;
use crate::parallel::{for_each_maybe_par, DisjointPtr};
use crate::solver::StepContext;
use glam::Vec3;

/// Particles a task in the per-particle passes.
pub(super) const CHUNK: usize = 512;

/// Gravity, pressure and drag on the velocities; the positions moved by them; the
/// positions at the substep's start kept in `prev`.
pub(crate) fn predict(store: &mut ParticleStore, ctx: &StepContext, parallel: bool) {
    let h = ctx.h;
    apply_pressure(store, h);
    let ParticleStore {
        pool,
        position,
        velocity,
        inv_mass,
        linear_drag,
        quadratic_drag,
        gravity_scale,
        prev,
        wind,
        ..
    } = store;
    let (position, velocity) = (DisjointPtr::new(position), DisjointPtr::new(velocity));
    let wind = *wind;
    let max_speed = ctx.max_linear_speed;
    let work = |i: usize, prev: &mut Vec3| {
        if !pool.is_alive(i) {
            return;
        }
        let x = position.get_mut(i as u32);
        *prev = *x;
        let w = inv_mass[i];
        if w == 0.0 {
            return;
        }
        let v = velocity.get_mut(i as u32);
        // Drag, implicit in the relative speed: it can stop a particle, never reverse it.
        let (c1, c2) = (linear_drag[i], quadratic_drag[i]);
        if c1 > 0.0 || c2 > 0.0 {
            let rel = *v - wind;
            let k = h * w * (c1 + c2 * rel.length());
            *v = wind + rel / (1.0 + k);
        }
        *v = clamp_speed(*v + h * gravity_scale[i] * ctx.gravity, max_speed);
        *x += h * *v;
    };
    for_each_maybe_par(prev, parallel, CHUNK, work);
}

/// `v` no faster than `max`; a velocity whose square overflows is scaled down first so
/// that its direction survives, and a non-finite one stops.
#[inline]
pub(super) fn clamp_speed(v: Vec3, max: f32) -> Vec3 {
    let v2 = v.length_squared();
    if v2 <= max * max {
        return v;
    }
    if !v.is_finite() {
        return Vec3::ZERO;
    }
    let u = v / v.abs().max_element();
    u * (max / u.length())
}

/// The end of a particle substep: a particle whose position or velocity the substep made
/// non-finite (a force or impulse beyond what f32 holds: a mass of 1e-30 kg under gas
/// pressure) goes back to where the substep found it, at rest; every velocity is held to
/// the world's speed limit, and every particle's move in the substep to that speed times
/// `h`. Returns how many were stopped.
pub(crate) fn settle(store: &mut ParticleStore, max_speed: f32, h: f32, parallel: bool) -> usize {
    let ParticleStore {
        pool,
        position,
        velocity,
        prev,
        ..
    } = store;
    let v = DisjointPtr::new(velocity);
    let stopped = std::sync::atomic::AtomicUsize::new(0);
    let work = |i: usize, x: &mut Vec3| {
        if !pool.is_alive(i) {
            return;
        }
        let v = v.get_mut(i as u32);
        if x.is_finite() && v.is_finite() {
            *v = clamp_speed(*v, max_speed);
            let moved = *x - prev[i];
            if moved.length_squared() > (max_speed * h) * (max_speed * h) {
                *x = prev[i] + clamp_speed(moved, max_speed * h);
            }
        } else {
            (*x, *v) = (prev[i], Vec3::ZERO);
            stopped.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    };
    for_each_maybe_par(position, parallel, CHUNK, work);
    stopped.into_inner()
}

/// The gas pressure of each closed soft body: `p = nRT / V` on every surface triangle, a
/// third of its force `p A n` to each corner.
fn apply_pressure(store: &mut ParticleStore, h: f32) {
    for &s in &store.plan.pressured {
        let soft = &store.soft[s as usize];
        let x = &store.position;
        let volume = super::build::surface_volume(&soft.surface, x) as f32;
        // A surface turned inside out has no pressure to push it back.
        if volume.is_nan() || volume <= 1.0e-9 {
            continue;
        }
        let p = soft.pressure / volume;
        for t in &soft.surface {
            let [a, b, c] = t.map(|p| x[p as usize]);
            let force = (p / 6.0) * (b - a).cross(c - a);
            for &k in t {
                let w = store.inv_mass[k as usize];
                store.velocity[k as usize] += h * w * force;
            }
        }
    }
}

/// Every tetrahedron's volume, colour by colour: `C = V − V₀` with its compliance.
pub(crate) fn solve_volumes(store: &mut ParticleStore, h: f32, parallel: bool) {
    let ParticleStore {
        position,
        inv_mass,
        plan,
        volumes,
        ..
    } = store;
    let x = DisjointPtr::new(position);
    let volumes = &*volumes;
    for (color, list) in plan.volumes.iter_mut().enumerate() {
        if list.is_empty() {
            continue;
        }
        let par = color < COLORS && parallel && list.len() >= CHUNK;
        for_each_maybe_par(list, par, CHUNK / 4, |_, &mut k| {
            solve_volume(&volumes[k as usize], x, inv_mass, h)
        });
    }
}

fn solve_volume(v: &VolumeData, x: DisjointPtr<Vec3>, w: &[f32], h: f32) {
    let p = v.p.map(|k| *x.get_mut(k));
    let (e1, e2, e3) = (p[1] - p[0], p[2] - p[0], p[3] - p[0]);
    let volume = e1.dot(e2.cross(e3)) / 6.0;
    let g1 = e2.cross(e3) / 6.0;
    let g2 = e3.cross(e1) / 6.0;
    let g3 = e1.cross(e2) / 6.0;
    let g = [-(g1 + g2 + g3), g1, g2, g3];
    let wk = v.p.map(|k| w[k as usize]);
    let denom: f32 =
        (0..4).map(|i| wk[i] * g[i].length_squared()).sum::<f32>() + v.compliance / (h * h);
    if denom.is_nan() || denom <= 0.0 {
        return;
    }
    let lambda = -(volume - v.rest) / denom;
    for i in 0..4 {
        if wk[i] > 0.0 {
            *x.get_mut(v.p[i]) = p[i] + (wk[i] * lambda) * g[i];
        }
    }
}

/// Every tethered particle pulled back within its tether's length of its pin (which is
/// pinned or hangs on a body, and has no tether itself: the pass reads only pins and
/// writes only tethered particles).
pub(crate) fn solve_tethers(store: &mut ParticleStore, parallel: bool) {
    let ParticleStore {
        pool,
        position,
        inv_mass,
        tether,
        tether_length,
        plan,
        ..
    } = store;
    let x = DisjointPtr::new(position);
    let work = |i: usize, &mut t: &mut u32| {
        if t == NULL || !pool.is_alive(i) || inv_mass[i] == 0.0 {
            return;
        }
        let pin = *x.get_mut(t);
        let p = x.get_mut(i as u32);
        let d = *p - pin;
        let len = d.length();
        if len > tether_length[i] {
            *p = pin + d * (tether_length[i] / len);
        }
    };
    for_each_maybe_par(tether, parallel, CHUNK, work);
    // The rigid strands' attachments: each writes its own particle, reads a pin.
    let pull = |_: usize, t: &mut RodTether| {
        let pin = *x.get_mut(t.pin);
        let p = x.get_mut(t.particle);
        let d = *p - pin;
        let len = d.length();
        if len > t.length {
            *p = pin + d * (t.length / len);
        }
    };
    for_each_maybe_par(&mut plan.rod_tethers, parallel, CHUNK, pull);
}
