//! The coupling of particles and bodies in a substep: which particles are supported,
//! each particle's springs to bodies and its contacts (per particle, in parallel), its
//! velocity and restitution, then the impulses on the bodies (serially, in particle
//! order).

use super::solve::CHUNK;
use super::store::{Contact, ParticleStore, Push, NO_PUSH, NO_SUPPORT};
use super::MAX_CONTACTS;
use crate::body::BodyStore;
use crate::id::NULL;
use crate::parallel::{for_each_maybe_par, DisjointPtr};
use crate::solver::{SolverBodies, StepContext};
use glam::{Mat3, Quat, Vec3};

/// A body as a particle sees it during the substep: its centre of mass and rotation now,
/// its velocity and inverse mass (zero for a static, kinematic or sleeping body).
#[derive(Clone, Copy)]
struct BodyNow {
    com: Vec3,
    rot: Quat,
    v: Vec3,
    w: Vec3,
    inv_mass: f32,
    inv_inertia: Mat3,
    /// How many particle contacts and springs share the body this step: each sees it
    /// that many times lighter (mass splitting), so that together they do not push it
    /// further than one would.
    split: f32,
}

/// Whether body slot `b` does not move in the solve (static, kinematic or asleep).
#[inline]
fn is_fixed(sb: &SolverBodies, b: u32) -> bool {
    let k = sb.index.get(b as usize).copied().unwrap_or(NULL);
    k == NULL || sb.mass[k as usize].inv_mass == 0.0
}

impl BodyNow {
    #[inline]
    fn of(bodies: &BodyStore, sb: &SolverBodies, b: u32, split: &[u32]) -> Self {
        let i = b as usize;
        let k = sb.index.get(i).copied().unwrap_or(NULL);
        if k == NULL {
            return Self {
                com: bodies.position[i],
                rot: bodies.rotation[i],
                v: Vec3::ZERO,
                w: Vec3::ZERO,
                inv_mass: 0.0,
                inv_inertia: Mat3::ZERO,
                split: 1.0,
            };
        }
        let (s, m) = (&sb.states[k as usize], &sb.mass[k as usize]);
        Self {
            com: bodies.position[i] + s.dp,
            rot: (s.dq * bodies.rotation[i]).normalize(),
            v: s.v,
            w: s.w,
            inv_mass: m.inv_mass,
            inv_inertia: m.inv_inertia,
            split: split.get(i).map_or(1.0, |&n| n.max(1) as f32),
        }
    }

    /// The inverse mass the body shows along `n` at lever `r`.
    #[inline]
    fn inv_mass_along(&self, r: Vec3, n: Vec3) -> f32 {
        if self.inv_mass == 0.0 {
            return 0.0;
        }
        let rn = r.cross(n);
        self.split * (self.inv_mass + rn.dot(self.inv_inertia * rn))
    }

    /// The velocity of the body's point at lever `r`.
    #[inline]
    fn point_velocity(&self, r: Vec3) -> Vec3 {
        self.v + self.w.cross(r)
    }
}

/// Before the body pass: which particles are supported (a contact with a body that does
/// not move in the solve overlaps them, or their tether is taut), which of their contacts
/// with moving bodies press them towards that support (those contacts are *held*: the
/// particle does not give way), and per moving body how many held and how many free
/// contacts overlap it and how many springs hang on it (mass splitting, see
/// `BodyNow::split`). Serial, in particle order.
pub(crate) fn classify(store: &mut ParticleStore, bodies: &BodyStore, sb: &SolverBodies) {
    let n = bodies.body_type.len();
    let s = store;
    s.split.clear();
    s.split.resize(n, 0);
    s.split_held.clear();
    s.split_held.resize(n, 0);
    s.support.resize(s.pool.capacity(), NO_SUPPORT);
    for i in 0..s.pool.capacity() {
        s.support[i] = NO_SUPPORT;
        if !s.pool.is_alive(i) || s.inv_mass[i] == 0.0 {
            continue;
        }
        let (x, r) = (s.position[i], s.radius[i]);
        let contacts = &mut s.contacts[i][..s.contact_count[i] as usize];
        let depth = |c: &Contact| {
            let body = BodyNow::of(bodies, sb, c.body, &[]);
            (
                r - (x - (body.com + body.rot * c.point)).dot(body.rot * c.normal),
                body.rot * c.normal,
            )
        };
        let mut support = None;
        for (k, c) in contacts.iter().enumerate() {
            if is_fixed(sb, c.body) && support.is_none() {
                let (d, normal) = depth(c);
                if d > 0.0 {
                    support = Some((k, normal));
                }
            }
        }
        let t = s.tether[i];
        if support.is_none() && t != NULL {
            let d = x - s.position[t as usize];
            let len = d.length();
            if len > 0.0 && len >= (1.0 - 1.0e-3) * s.tether_length[i] {
                support = Some((MAX_CONTACTS, -d / len));
            }
        }
        if let Some((k, _)) = support {
            s.support[i] = k as u8;
        }
        for c in contacts.iter_mut() {
            c.held = false;
            if is_fixed(sb, c.body) {
                continue;
            }
            let (d, normal) = depth(c);
            if d <= 0.0 {
                continue;
            }
            c.held = support.is_some_and(|(_, s)| normal.dot(s) < -0.2);
            if c.held {
                s.split_held[c.body as usize] += 1;
            } else {
                s.split[c.body as usize] += 1;
            }
        }
    }
    for &a in &s.plan.anchors {
        let b = s.springs[a as usize].body;
        if b != NULL {
            s.split[b as usize] += 1;
        }
    }
}

/// Per particle: its springs to bodies and points, its contacts, then its velocity from
/// its motion and the restitution of the contacts that closed. The impulses on the bodies
/// are written to `pushes` and `anchor_pushes`, applied afterwards by [`push_bodies`].
pub(crate) fn solve_bodies(
    store: &mut ParticleStore,
    bodies: &BodyStore,
    sb: &SolverBodies,
    ctx: &StepContext,
    parallel: bool,
) {
    let h = ctx.h;
    let inv_h = ctx.inv_h;
    let threshold = ctx.restitution_threshold;
    let ParticleStore {
        pool,
        position,
        velocity,
        inv_mass,
        radius,
        prev,
        springs,
        plan,
        contacts,
        contact_count,
        pushes,
        anchor_pushes,
        split,
        split_held,
        support: support_of,
        tether,
        tether_body,
        ..
    } = store;
    let (x, v) = (DisjointPtr::new(position), DisjointPtr::new(velocity));
    let xs = x;
    let anchor_pushes = DisjointPtr::new(anchor_pushes);
    let contacts = DisjointPtr::new(contacts);
    let (split, split_held) = (&*split, &*split_held);
    let work = |i: usize, push: &mut [Push; MAX_CONTACTS + 1]| {
        let n_contacts = contact_count[i] as usize;
        let (first, last) = (plan.anchor_start[i], plan.anchor_start[i + 1]);
        *push = [NO_PUSH; MAX_CONTACTS + 1];
        if !pool.is_alive(i) {
            return;
        }
        let w = inv_mass[i];
        let x = x.get_mut(i as u32);
        for a in first..last {
            let s = &springs[plan.anchors[a as usize] as usize];
            *anchor_pushes.get_mut(a) = anchor(s, x, w, bodies, sb, split, h);
        }
        let contacts = &mut contacts.get_mut(i as u32)[..n_contacts];
        if w > 0.0 {
            let r = radius[i];
            let v0 = *v.get_mut(i as u32);
            // First the contacts with bodies that do not move in the solve (static,
            // kinematic, asleep), then the moving bodies'. A supported particle pressed
            // towards its support (a held contact, see `classify`) does not give way: the
            // moving body takes the whole correction, and the supporting body its load
            // (shock propagation through the particle; without it a box on a cloth on the
            // ground sinks through, as the light particle takes nearly all of each
            // correction and the ground pushes it back).
            for (c, p) in contacts.iter_mut().zip(push.iter_mut()) {
                if is_fixed(sb, c.body) {
                    *p = contact(c, x, prev[i], v0, w, r, bodies, sb, split, h);
                }
            }
            let support = support_of[i] as usize;
            if support == MAX_CONTACTS && tether_body[i] != NULL {
                // A taut tether passes the load on to the body its pin hangs on.
                let b = tether_body[i];
                let body = BodyNow::of(bodies, sb, b, split);
                let pin = *xs.get_mut(tether[i]);
                push[MAX_CONTACTS] = Push {
                    body: b,
                    lever: if body.inv_mass > 0.0 {
                        pin - body.com
                    } else {
                        Vec3::ZERO
                    },
                    ..NO_PUSH
                };
            }
            for k in 0..n_contacts {
                let c = &mut contacts[k];
                if is_fixed(sb, c.body) {
                    continue;
                }
                if c.held {
                    push[k] = contact(c, x, prev[i], v0, 0.0, r, bodies, sb, split_held, h);
                    let load = push[k];
                    push[support].impulse -= load.impulse;
                    push[support].shift -= load.shift;
                } else {
                    push[k] = contact(c, x, prev[i], v0, w, r, bodies, sb, split, h);
                }
            }
        }
        let v = v.get_mut(i as u32);
        if w == 0.0 {
            return;
        }
        *v = (*x - prev[i]) * inv_h;
        // The anchors' dampers, on the velocity (see `damp_springs`).
        for a in first..last {
            let s = &springs[plan.anchors[a as usize] as usize];
            if s.damping > 0.0 {
                let push = anchor_pushes.get_mut(a);
                damp_anchor(s, *x, v, w, push, bodies, sb, split, h);
            }
        }
        // Restitution: a contact that closed at a speed above the threshold parts at `e`
        // times it (the normal speed the particle had before the substep).
        for (c, p) in contacts.iter().zip(push.iter_mut()) {
            if !c.active || c.restitution == 0.0 || -c.approach <= threshold {
                continue;
            }
            let body = BodyNow::of(bodies, sb, c.body, split);
            let n = body.rot * c.normal;
            let lever = body.rot * c.point;
            let vn = (*v - body.point_velocity(lever)).dot(n);
            let dv = -c.restitution * c.approach - vn;
            if dv <= 0.0 {
                continue;
            }
            let k = w + body.inv_mass_along(lever, n);
            let impulse = dv / k;
            *v += (w * impulse) * n;
            p.impulse -= impulse * n;
            p.body = c.body;
        }
    };
    for_each_maybe_par(pushes, parallel, CHUNK, work);
}

/// A spring from a particle (at `x`, inverse mass `w`, moved by `motion` this substep)
/// to a body's point or a fixed point: the particle's correction, and the body's impulse.
/// Where a spring to a body or a fixed point pulls now: the point in the world, the body
/// (none for a fixed point) and the point's lever from the body's centre of mass.
fn anchor_point(
    s: &super::store::SpringData,
    bodies: &BodyStore,
    sb: &SolverBodies,
    split: &[u32],
) -> (Vec3, Option<BodyNow>, Vec3) {
    if s.body == NULL {
        return (s.point, None, Vec3::ZERO);
    }
    let body = BodyNow::of(bodies, sb, s.body, split);
    // The point in the mass frame, from the body's frame.
    let local = bodies.frame[s.body as usize].inv_transform_point(s.point);
    let lever = body.rot * local;
    (body.com + lever, Some(body), lever)
}

fn anchor(
    s: &super::store::SpringData,
    x: &mut Vec3,
    w: f32,
    bodies: &BodyStore,
    sb: &SolverBodies,
    split: &[u32],
    h: f32,
) -> Push {
    let (target, body, lever) = anchor_point(s, bodies, sb, split);
    let d = *x - target;
    let len = d.length();
    if len.is_nan() || len <= 1.0e-12 {
        return NO_PUSH;
    }
    let n = d / len;
    let wb = body.map_or(0.0, |b| b.inv_mass_along(lever, n));
    let alpha = s.compliance / (h * h);
    let c = len - s.rest;
    let denom = w + wb + alpha;
    if denom.is_nan() || denom <= 0.0 {
        return NO_PUSH;
    }
    let lambda = -c / denom;
    *x += (w * lambda) * n;
    match body {
        Some(b) => Push {
            body: s.body,
            impulse: (-lambda / h) * n,
            // A static or sleeping body feels the load too (see `World::particle_reaction`).
            lever: if b.inv_mass > 0.0 { lever } else { Vec3::ZERO },
            shift: -lambda * n,
        },
        None => NO_PUSH,
    }
}

/// An anchor's damper: the relative speed along the spring reduced by `βh k / (1 + βh k)`,
/// the body taking the opposite impulse (added to the anchor's `push`).
#[allow(clippy::too_many_arguments)]
fn damp_anchor(
    s: &super::store::SpringData,
    x: Vec3,
    v: &mut Vec3,
    w: f32,
    push: &mut Push,
    bodies: &BodyStore,
    sb: &SolverBodies,
    split: &[u32],
    h: f32,
) {
    let (target, body, lever) = anchor_point(s, bodies, sb, split);
    let d = x - target;
    let len = d.length();
    if len.is_nan() || len <= 1.0e-12 {
        return;
    }
    let n = d / len;
    let wb = body.map_or(0.0, |b| b.inv_mass_along(lever, n));
    let sum = w + wb;
    let k = s.damping * h * sum;
    let rel = (*v - body.map_or(Vec3::ZERO, |b| b.point_velocity(lever))).dot(n);
    let impulse = (k / (1.0 + k)) * rel / sum;
    *v -= (w * impulse) * n;
    if s.body != NULL {
        push.body = s.body;
        push.impulse += impulse * n;
        if body.is_some_and(|b| b.inv_mass > 0.0) {
            push.lever = lever;
        }
    }
}

/// A particle's contact: no deeper than its radius into the shape, its motion along the
/// surface limited by friction; the body takes the opposite impulse.
#[allow(clippy::too_many_arguments)]
fn contact(
    c: &mut Contact,
    x: &mut Vec3,
    prev: Vec3,
    v: Vec3,
    w: f32,
    r: f32,
    bodies: &BodyStore,
    sb: &SolverBodies,
    split: &[u32],
    h: f32,
) -> Push {
    let body = BodyNow::of(bodies, sb, c.body, split);
    let n = body.rot * c.normal;
    let lever = body.rot * c.point;
    let depth = r - (*x - (body.com + lever)).dot(n);
    c.active = depth > 0.0;
    if !c.active {
        return NO_PUSH;
    }
    let body_v = body.point_velocity(lever);
    // The normal speed before the substep's corrections (for restitution).
    c.approach = (v - body_v).dot(n);
    let wn = body.inv_mass_along(lever, n);
    if (w + wn).is_nan() || w + wn <= 0.0 {
        return NO_PUSH;
    }
    let lambda = depth / (w + wn);
    *x += (w * lambda) * n;
    let mut shift = -lambda * n;
    // A particle that does not give way (`w` = 0: it is supported) moves the body out of
    // the overlap, but only stops its approach: the overlap may be older than this
    // substep, and turned into velocity it would launch the body. Otherwise the body
    // takes the particle's momentum change exactly.
    let mut impulse = if w == 0.0 {
        // The body's own approach: the particle stands still.
        -(body_v.dot(n).max(0.0) / wn).min(lambda / h) * n
    } else {
        (-lambda / h) * n
    };
    // Friction: the motion along the surface relative to the body's point, removed while
    // the impulse it takes stays within μ times the normal one, else cut to that.
    let slide = (*x - prev) - body_v * h;
    let tangent = slide - slide.dot(n) * n;
    let len = tangent.length();
    if len > 1.0e-12 && c.friction > 0.0 {
        let t = tangent / len;
        let wt = body.inv_mass_along(lever, t);
        let stop = len / (w + wt).max(f32::MIN_POSITIVE);
        let lambda_t = stop.min(c.friction * lambda);
        *x -= (w * lambda_t) * t;
        impulse += (lambda_t / h) * t;
        shift += lambda_t * t;
    }
    Push {
        body: c.body,
        impulse,
        lever: if body.inv_mass > 0.0 {
            lever
        } else {
            Vec3::ZERO
        },
        shift,
    }
}

/// The substep's impulses on the bodies, in particle order (anchors, then contacts):
/// the awake dynamic bodies' velocities change, and every body's reaction adds up.
/// With a carried warm start (`carry`) the carried start velocity moves too, so that the
/// next substep does not count the particles' impulse as one of the contacts'.
pub(crate) fn push_bodies(
    store: &mut ParticleStore,
    sb: &mut SolverBodies,
    bodies: &BodyStore,
    ctx: &StepContext,
    carry: bool,
) {
    let max_w = ctx.max_rotation * ctx.inv_dt;
    let n = store.pool.capacity();
    let plan = &store.plan;
    for i in 0..n {
        let (first, last) = (
            plan.anchor_start[i] as usize,
            plan.anchor_start[i + 1] as usize,
        );
        let count = store.contact_count[i] as usize;
        let anchors = store.anchor_pushes[first..last].iter();
        let pushes = &store.pushes[i];
        for p in anchors
            .chain(&pushes[..count])
            .chain(&pushes[MAX_CONTACTS..])
        {
            // An impulse that overflowed (see `solve::settle`) does not reach the body.
            if p.body == NULL || !(p.impulse.is_finite() && p.shift.is_finite()) {
                continue;
            }
            store.reaction[p.body as usize] += p.impulse;
            let k = sb.index.get(p.body as usize).copied().unwrap_or(NULL);
            if k == NULL {
                continue;
            }
            let m = sb.mass[k as usize];
            if m.inv_mass == 0.0 {
                continue;
            }
            let dv = m.inv_mass * p.impulse;
            let dw = m.inv_inertia * p.lever.cross(p.impulse);
            let s = &mut sb.states[k as usize];
            // Held to the speed limits as the integrator holds them: an impulse of f32's
            // size would otherwise overflow the body.
            let (v0, w0) = (s.v, s.w);
            s.v = super::solve::clamp_speed(s.v + dv, ctx.max_linear_speed);
            s.w = if bodies.allow_fast_rotation[p.body as usize] {
                super::solve::clamp_speed(s.w + dw, f32::MAX)
            } else {
                super::solve::clamp_speed(s.w + dw, max_w)
            };
            let (dv, dw) = (s.v - v0, s.w - w0);
            // The body moves by the correction too, as a particle does (position-based):
            // left to the velocity alone, the overlap it corrects would still be there in
            // the next substep and be corrected again, launching the body.
            let h = ctx.h;
            s.dp += super::solve::clamp_speed(m.inv_mass * p.shift, ctx.max_linear_speed * h);
            let turn =
                super::solve::clamp_speed(m.inv_inertia * p.lever.cross(p.shift), ctx.max_rotation);
            let spin = Quat::from_xyzw(turn.x, turn.y, turn.z, 0.0) * s.dq;
            s.dq = (s.dq + spin * 0.5).normalize();
            if carry {
                if let Some(c) = sb.carry.get_mut(k as usize) {
                    c.v += dv;
                    c.w += dw;
                }
            }
        }
    }
}
