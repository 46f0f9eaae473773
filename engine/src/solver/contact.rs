//! Contact constraints of the soft step.
//!
//! Per manifold point, a normal row; per point, a friction impulse in the tangent plane
//! clamped to the disc of radius `μ λn` (two rows with their own effective masses, the
//! 2D impulse clamped as a vector: isotropic friction, no box-shaped friction cone).
//!
//! Normal row for the current separation `s` (refreshed each substep from the body deltas:
//! `s = base_sep + n · ((Δp_B − Δp_A) + rot(Δq_B, r_B) − rot(Δq_A, r_A))`,
//! `base_sep = s0 − n · (r_B − r_A)`):
//! - `s > 0` (speculative): `bias = s / h`, rigid (mass scale 1, impulse scale 0): the
//!   bodies may close the gap this substep and no more;
//! - `s <= 0` while solving: `bias = max(bias_rate s, −max_push_speed)`, soft scales;
//! - `s <= 0` while relaxing: no bias, rigid: removes the velocity the bias added.
//! `dλ = −m_n (mass_scale (v_n + bias)) − impulse_scale λ`, accumulated and clamped `λ >= 0`.
//!
//! Contacts with a static or kinematic body use stiffer softness (twice the hertz, the
//! same damping ratio): the ground should not sag under a pile.

use super::{BodyState, SolverBodies, StepContext};
use crate::body::BodyStore;
use crate::broadphase::NULL;
use crate::collision::MAX_POINTS;
use crate::contact::Contact;
use crate::math::perpendicular;
use glam::{Mat3, Vec3};

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ConstraintPoint {
    pub r_a: Vec3,
    pub r_b: Vec3,
    pub base_separation: f32,
    pub normal_mass: f32,
    pub tangent_mass: [f32; 2],
    pub normal_impulse: f32,
    pub tangent_impulse: [f32; 2],
    pub max_normal_impulse: f32,
    /// Normal relative velocity, in m/s (negative when approaching): the lowest seen at
    /// prepare or in any biased solve pass, i.e. the speed of impact for restitution.
    pub relative_velocity: f32,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactConstraint {
    /// Dense solver indices, [`NULL`] for a static body.
    pub a: u32,
    pub b: u32,
    pub contact: u32,
    pub normal: Vec3,
    pub tangent: [Vec3; 2],
    pub m_a: f32,
    pub m_b: f32,
    pub i_a: Mat3,
    pub i_b: Mat3,
    pub friction: f32,
    pub restitution: f32,
    pub rigid_bodies: bool,
    pub points: [ConstraintPoint; MAX_POINTS],
    pub count: usize,
}

/// Builds the constraint of a touching contact.
pub(crate) fn prepare(
    c: &Contact,
    contact_index: u32,
    sb: &SolverBodies,
    bodies: &BodyStore,
) -> ContactConstraint {
    let (ba, bb) = (c.body_a as usize, c.body_b as usize);
    let a = sb.index[ba];
    let b = sb.index[bb];
    let (m_a, i_a) = if a == NULL {
        (0.0, Mat3::ZERO)
    } else {
        (sb.inv_mass[a as usize], sb.inv_inertia[a as usize])
    };
    let (m_b, i_b) = if b == NULL {
        (0.0, Mat3::ZERO)
    } else {
        (sb.inv_mass[b as usize], sb.inv_inertia[b as usize])
    };
    let n = c.manifold.normal;
    let t1 = perpendicular(n);
    let t2 = n.cross(t1);
    let (xa, xb) = (bodies.position[ba], bodies.position[bb]);
    let (va, wa) = (bodies.linear_velocity[ba], bodies.angular_velocity[ba]);
    let (vb, wb) = (bodies.linear_velocity[bb], bodies.angular_velocity[bb]);
    let mut points = [ConstraintPoint::default(); MAX_POINTS];
    for (cp, mp) in points.iter_mut().zip(c.manifold.points()) {
        let r_a = mp.point - xa;
        let r_b = mp.point - xb;
        let eff = |d: Vec3| {
            let ra = r_a.cross(d);
            let rb = r_b.cross(d);
            let k = m_a + m_b + ra.dot(i_a * ra) + rb.dot(i_b * rb);
            if k > 0.0 {
                1.0 / k
            } else {
                0.0
            }
        };
        let dv = vb + wb.cross(r_b) - va - wa.cross(r_a);
        *cp = ConstraintPoint {
            r_a,
            r_b,
            base_separation: mp.separation - n.dot(r_b - r_a),
            normal_mass: eff(n),
            tangent_mass: [eff(t1), eff(t2)],
            normal_impulse: mp.normal_impulse,
            tangent_impulse: [mp.tangent_impulse.dot(t1), mp.tangent_impulse.dot(t2)],
            max_normal_impulse: 0.0,
            relative_velocity: n.dot(dv),
        };
    }
    ContactConstraint {
        a,
        b,
        contact: contact_index,
        normal: n,
        tangent: [t1, t2],
        m_a,
        m_b,
        i_a,
        i_b,
        friction: c.friction,
        restitution: c.restitution,
        rigid_bodies: m_a == 0.0 || m_b == 0.0,
        points,
        count: c.manifold.count,
    }
}

#[inline]
fn load(states: &[BodyState], i: u32) -> BodyState {
    if i == NULL {
        BodyState::IDENTITY
    } else {
        states[i as usize]
    }
}

#[inline]
fn store(states: &mut [BodyState], i: u32, v: Vec3, w: Vec3) {
    if i != NULL {
        let s = &mut states[i as usize];
        s.v = v;
        s.w = w;
    }
}

/// Applies the accumulated impulses of the previous substep (or step) again.
pub(crate) fn warm_start(cs: &[ContactConstraint], states: &mut [BodyState]) {
    for c in cs {
        let (sa, sb) = (load(states, c.a), load(states, c.b));
        let (mut va, mut wa, mut vb, mut wb) = (sa.v, sa.w, sb.v, sb.w);
        for cp in &c.points[..c.count] {
            let p = cp.normal_impulse * c.normal
                + cp.tangent_impulse[0] * c.tangent[0]
                + cp.tangent_impulse[1] * c.tangent[1];
            va -= c.m_a * p;
            wa -= c.i_a * cp.r_a.cross(p);
            vb += c.m_b * p;
            wb += c.i_b * cp.r_b.cross(p);
        }
        store(states, c.a, va, wa);
        store(states, c.b, vb, wb);
    }
}

/// One Gauss-Seidel pass over the constraints: with bias (`solve`) or without (`relax`).
pub(crate) fn solve(
    cs: &mut [ContactConstraint],
    states: &mut [BodyState],
    ctx: &StepContext,
    use_bias: bool,
) {
    for c in cs.iter_mut() {
        let (sa, sb) = (load(states, c.a), load(states, c.b));
        let (mut va, mut wa, mut vb, mut wb) = (sa.v, sa.w, sb.v, sb.w);
        let soft = if c.rigid_bodies {
            ctx.static_softness
        } else {
            ctx.contact_softness
        };
        let n = c.normal;
        let dp = sb.dp - sa.dp;
        for cp in c.points[..c.count].iter_mut() {
            let d = dp + sb.dq * cp.r_b - sa.dq * cp.r_a;
            let s = n.dot(d) + cp.base_separation;
            let (bias, mass_scale, impulse_scale) = if s > 0.0 {
                (s * ctx.inv_h, 1.0, 0.0)
            } else if use_bias {
                (
                    (soft.bias_rate * s).max(-ctx.max_push_speed),
                    soft.mass_scale,
                    soft.impulse_scale,
                )
            } else {
                (0.0, 1.0, 0.0)
            };
            let vn = n.dot(vb + wb.cross(cp.r_b) - va - wa.cross(cp.r_a));
            if use_bias {
                // The approach speed at impact, not at the step's start: a body caught by a
                // speculative point keeps falling for part of the step before it touches.
                cp.relative_velocity = cp.relative_velocity.min(vn);
            }
            let impulse =
                -cp.normal_mass * mass_scale * (vn + bias) - impulse_scale * cp.normal_impulse;
            let total = (cp.normal_impulse + impulse).max(0.0);
            let impulse = total - cp.normal_impulse;
            cp.normal_impulse = total;
            cp.max_normal_impulse = cp.max_normal_impulse.max(total);
            let p = impulse * n;
            va -= c.m_a * p;
            wa -= c.i_a * cp.r_a.cross(p);
            vb += c.m_b * p;
            wb += c.i_b * cp.r_b.cross(p);
        }
        let [t1, t2] = c.tangent;
        for cp in c.points[..c.count].iter_mut() {
            let dv = vb + wb.cross(cp.r_b) - va - wa.cross(cp.r_a);
            let old = cp.tangent_impulse;
            let mut new = [
                old[0] - cp.tangent_mass[0] * dv.dot(t1),
                old[1] - cp.tangent_mass[1] * dv.dot(t2),
            ];
            let max = c.friction * cp.normal_impulse;
            let len2 = new[0] * new[0] + new[1] * new[1];
            if len2 > max * max {
                let scale = max / len2.sqrt();
                new = [new[0] * scale, new[1] * scale];
            }
            cp.tangent_impulse = new;
            let p = (new[0] - old[0]) * t1 + (new[1] - old[1]) * t2;
            va -= c.m_a * p;
            wa -= c.i_a * cp.r_a.cross(p);
            vb += c.m_b * p;
            wb += c.i_b * cp.r_b.cross(p);
        }
        store(states, c.a, va, wa);
        store(states, c.b, vb, wb);
    }
}

/// After the substeps: points that approached faster than the threshold and pushed get a
/// normal velocity of `−e` times their approach speed.
pub(crate) fn restitution(
    cs: &mut [ContactConstraint],
    states: &mut [BodyState],
    ctx: &StepContext,
) {
    for c in cs.iter_mut() {
        if c.restitution == 0.0 {
            continue;
        }
        let (sa, sb) = (load(states, c.a), load(states, c.b));
        let (mut va, mut wa, mut vb, mut wb) = (sa.v, sa.w, sb.v, sb.w);
        let n = c.normal;
        for cp in c.points[..c.count].iter_mut() {
            if cp.relative_velocity > -ctx.restitution_threshold || cp.max_normal_impulse == 0.0 {
                continue;
            }
            let vn = n.dot(vb + wb.cross(cp.r_b) - va - wa.cross(cp.r_a));
            let impulse = -cp.normal_mass * (vn + c.restitution * cp.relative_velocity);
            let total = (cp.normal_impulse + impulse).max(0.0);
            let impulse = total - cp.normal_impulse;
            cp.normal_impulse = total;
            cp.max_normal_impulse = cp.max_normal_impulse.max(total);
            let p = impulse * n;
            va -= c.m_a * p;
            wa -= c.i_a * cp.r_a.cross(p);
            vb += c.m_b * p;
            wb += c.i_b * cp.r_b.cross(p);
        }
        store(states, c.a, va, wa);
        store(states, c.b, vb, wb);
    }
}

/// Copies the accumulated impulses back into the manifolds for the next step's warm start.
pub(crate) fn store_impulses(cs: &[ContactConstraint], contacts: &mut [Contact]) {
    for c in cs {
        let m = &mut contacts[c.contact as usize].manifold;
        for (mp, cp) in m.points.iter_mut().zip(&c.points[..c.count]) {
            mp.normal_impulse = cp.normal_impulse;
            mp.tangent_impulse =
                cp.tangent_impulse[0] * c.tangent[0] + cp.tangent_impulse[1] * c.tangent[1];
            mp.max_normal_impulse = cp.max_normal_impulse;
        }
    }
}
