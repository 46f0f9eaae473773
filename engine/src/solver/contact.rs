//! Contact constraints of the soft step.
//!
//! Per manifold: a normal row per point, then friction as one 2D impulse at the manifold's
//! centre (a coupled 2x2 effective mass, clamped to the disc of radius `μ Σλn`), then a
//! twist row about the normal (clamped by `μ Σ(lever_i λn_i)`, the lever being a point's
//! distance from the centre). This is Box3D's and Rapier's "simplified" friction: 3 rows per
//! manifold instead of 8 for per-point friction, and isotropic.
//!
//! Lever arms and the normal come from the manifold (`ManifoldPoint::anchor_a/anchor_b`),
//! which freezes them while a manifold is recycled; see `contact::update_contact` for why
//! that matters to tall stacks.
//!
//! Normal row for the current separation `s` (refreshed each substep from the body deltas:
//! `s = base_sep + n · ((Δp_B − Δp_A) + rot(Δq_B, r_B) − rot(Δq_A, r_A))`, computed as
//! `n · (Δp_B − Δp_A) + rot(Δq_B⁻¹, n) · r_B − rot(Δq_A⁻¹, n) · r_A + base_sep`,
//! `base_sep = s0 − n · (r_B − r_A)`):
//! - `s > 0` (speculative): `bias = s / h`, rigid (mass scale 1, impulse scale 0): the
//!   bodies may close the gap this substep and no more;
//! - `s <= 0` while solving: `bias = max(bias_rate s, −max_push_speed)`, soft scales;
//! - `s <= 0` while relaxing: no bias, rigid: removes the velocity the bias added.
//!
//! `dλ = −m_n (mass_scale (v_n + bias)) − impulse_scale λ`, accumulated and clamped `λ >= 0`.
//!
//! Contacts with a static or kinematic body use stiffer softness (twice the hertz, the
//! same damping ratio): the ground should not sag under a pile.

use super::{BodyState, SolverBodies, StepContext};
use crate::body::BodyStore;
use crate::collision::MAX_POINTS;
use crate::contact::Contact;
use crate::id::NULL;
use crate::math::perpendicular;
use glam::{Mat3, Vec3};

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ConstraintPoint {
    pub r_a: Vec3,
    pub r_b: Vec3,
    pub base_separation: f32,
    pub normal_mass: f32,
    pub normal_impulse: f32,
    pub max_normal_impulse: f32,
    /// Distance from the manifold centre in the tangent plane (twist friction lever).
    pub lever: f32,
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
    pub rigid_bodies: bool,
    /// Friction anchors: the manifold centre relative to each body.
    pub center_a: Vec3,
    pub center_b: Vec3,
    /// Inverse of the 2x2 tangent effective-mass matrix: [k11, k12, k22].
    pub friction_mass: [f32; 3],
    pub friction_impulse: [f32; 2],
    /// The relative surface velocity friction drives towards, along the tangents.
    pub tangent_speed: [f32; 2],
    pub twist_mass: f32,
    pub twist_impulse: f32,
    /// Four-point manifolds: the normal impulses that move no body ([`null_impulses`]),
    /// and `1 / |null|²` (zero for other manifolds).
    pub null: [f32; MAX_POINTS],
    pub null_scale: f32,
    pub points: [ConstraintPoint; MAX_POINTS],
    pub count: usize,
}

/// Builds the constraint of a touching contact.
pub(crate) fn prepare(
    c: &Contact,
    contact_index: u32,
    tangent: Vec3,
    sb: &SolverBodies,
    bodies: &BodyStore,
    ctx: &StepContext,
) -> ContactConstraint {
    let (ba, bb) = (c.body_a as usize, c.body_b as usize);
    let a = sb.index[ba];
    let b = sb.index[bb];
    let (m_a, i_a) = if a == NULL {
        (0.0, Mat3::ZERO)
    } else {
        (
            sb.mass[a as usize].inv_mass,
            sb.mass[a as usize].inv_inertia,
        )
    };
    let (m_b, i_b) = if b == NULL {
        (0.0, Mat3::ZERO)
    } else {
        (
            sb.mass[b as usize].inv_mass,
            sb.mass[b as usize].inv_inertia,
        )
    };
    let m = &c.manifold;
    let n = m.normal;
    let t1 = perpendicular(n);
    let t2 = n.cross(t1);
    let (va, wa) = (bodies.linear_velocity[ba], bodies.angular_velocity[ba]);
    let (vb, wb) = (bodies.linear_velocity[bb], bodies.angular_velocity[bb]);
    // K(d, e) = (m_a + m_b) d·e + (r_a × d)·I_a (r_a × e) + (r_b × d)·I_b (r_b × e)
    let k = |r_a: Vec3, r_b: Vec3, d: Vec3, e: Vec3| {
        let (ad, ae) = (r_a.cross(d), r_a.cross(e));
        let (bd, be) = (r_b.cross(d), r_b.cross(e));
        (m_a + m_b) * d.dot(e) + ad.dot(i_a * ae) + bd.dot(i_b * be)
    };
    let inv = |x: f32| if x > 0.0 { 1.0 / x } else { 0.0 };

    let points_in = m.points();
    let inv_count = 1.0 / points_in.len().max(1) as f32;
    let center_a = points_in.iter().fold(Vec3::ZERO, |acc, p| acc + p.anchor_a) * inv_count;
    let center_b = points_in.iter().fold(Vec3::ZERO, |acc, p| acc + p.anchor_b) * inv_count;
    let mut points = [ConstraintPoint::default(); MAX_POINTS];
    for (cp, mp) in points.iter_mut().zip(points_in) {
        let (r_a, r_b) = (mp.anchor_a, mp.anchor_b);
        let offset = r_a - center_a;
        *cp = ConstraintPoint {
            r_a,
            r_b,
            base_separation: mp.separation - n.dot(r_b - r_a),
            normal_mass: inv(k(r_a, r_b, n, n)),
            normal_impulse: mp.normal_impulse,
            max_normal_impulse: 0.0,
            lever: (offset - n * n.dot(offset)).length(),
        };
    }
    let (k11, k12, k22) = (
        k(center_a, center_b, t1, t1),
        k(center_a, center_b, t1, t2),
        k(center_a, center_b, t2, t2),
    );
    let (mut null, mut null_scale) = ([0.0; MAX_POINTS], 0.0);
    if m.count == MAX_POINTS {
        null = null_impulses(points.map(|p| (p.r_a.dot(t1), p.r_a.dot(t2))));
        let nn: f32 = null.iter().map(|v| v * v).sum();
        if nn > NULL_TINY {
            null_scale = 1.0 / nn;
        }
    }
    // Static or kinetic friction, from how fast the surfaces slide at the centre now
    // (relative to the surface velocity a modifier asked for).
    let slide = vb + wb.cross(center_b) - va - wa.cross(center_a);
    let (s1, s2) = (
        slide.dot(t1) - tangent.dot(t1),
        slide.dot(t2) - tangent.dot(t2),
    );
    let v_static = ctx.static_friction_speed;
    let friction = if s1 * s1 + s2 * s2 < v_static * v_static {
        c.static_friction
    } else {
        c.friction
    };
    let det = k11 * k22 - k12 * k12;
    let friction_mass = if det > 0.0 {
        let d = 1.0 / det;
        [k22 * d, -k12 * d, k11 * d]
    } else {
        [inv(k11), 0.0, inv(k22)]
    };
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
        friction,
        rigid_bodies: m_a == 0.0 || m_b == 0.0,
        center_a,
        center_b,
        friction_mass,
        friction_impulse: [m.friction_impulse.dot(t1), m.friction_impulse.dot(t2)],
        tangent_speed: [tangent.dot(t1), tangent.dot(t2)],
        twist_mass: inv(n.dot(i_a * n) + n.dot(i_b * n)),
        twist_impulse: m.twist_impulse,
        null,
        null_scale,
        points,
        count: m.count,
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

/// The two bodies of a constraint while it is being solved: velocities and inverse masses.
struct Pair {
    va: Vec3,
    wa: Vec3,
    vb: Vec3,
    wb: Vec3,
    m_a: f32,
    m_b: f32,
    i_a: Mat3,
    i_b: Mat3,
}

impl Pair {
    /// Applies the impulse `p` at anchors `r_a`, `r_b` (to B; its opposite to A).
    #[inline]
    fn apply(&mut self, r_a: Vec3, r_b: Vec3, p: Vec3) {
        self.va -= self.m_a * p;
        self.wa -= self.i_a * r_a.cross(p);
        self.vb += self.m_b * p;
        self.wb += self.i_b * r_b.cross(p);
    }

    /// Applies the angular impulse `l` (to B; its opposite to A).
    #[inline]
    fn apply_angular(&mut self, l: Vec3) {
        self.wa -= self.i_a * l;
        self.wb += self.i_b * l;
    }

    /// Relative velocity of B's anchor with respect to A's.
    #[inline]
    fn relative_velocity(&self, r_a: Vec3, r_b: Vec3) -> Vec3 {
        self.vb + self.wb.cross(r_b) - self.va - self.wa.cross(r_a)
    }
}

#[inline]
fn begin(states: &[BodyState], c: &ContactConstraint) -> (Pair, BodyState, BodyState) {
    let (sa, sb) = (load(states, c.a), load(states, c.b));
    let pair = Pair {
        va: sa.v,
        wa: sa.w,
        vb: sb.v,
        wb: sb.w,
        m_a: c.m_a,
        m_b: c.m_b,
        i_a: c.i_a,
        i_b: c.i_b,
    };
    (pair, sa, sb)
}

#[inline]
fn end(states: &mut [BodyState], c: &ContactConstraint, p: &Pair) {
    store(states, c.a, p.va, p.wa);
    store(states, c.b, p.vb, p.wb);
}

/// Applies the accumulated impulses of the previous substep (or step) again.
pub(crate) fn warm_start(cs: &[ContactConstraint], states: &mut [BodyState]) {
    for c in cs {
        let (mut p, _, _) = begin(states, c);
        for cp in &c.points[..c.count] {
            p.apply(cp.r_a, cp.r_b, cp.normal_impulse * c.normal);
        }
        let f = c.friction_impulse[0] * c.tangent[0] + c.friction_impulse[1] * c.tangent[1];
        p.apply(c.center_a, c.center_b, f);
        p.apply_angular(c.twist_impulse * c.normal);
        end(states, c, &p);
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
        let (mut p, sa, sb) = begin(states, c);
        let soft = if c.rigid_bodies {
            ctx.static_softness
        } else {
            ctx.contact_softness
        };
        let n = c.normal;
        // n · rot(Δq, r) = rot(Δq⁻¹, n) · r: two rotations a manifold, not two a point.
        let n_dp = n.dot(sb.dp - sa.dp);
        let (n_a, n_b) = (sa.dq.conjugate() * n, sb.dq.conjugate() * n);
        let (mut total_normal, mut twist_limit) = (0.0, 0.0);
        let (mut u_a, mut u_b, mut pushed) = (n.dot(p.va), n.dot(p.vb), 0.0);
        let nn = n.dot(n);
        let (along_a, along_b) = (p.m_a * nn, p.m_b * nn);
        for cp in c.points[..c.count].iter_mut() {
            let s = n_dp + n_b.dot(cp.r_b) - n_a.dot(cp.r_a) + cp.base_separation;
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
            // As the lane kernel: the row's angular Jacobians `r × n`, the speeds along
            // `n` carried from row to row, the linear impulses applied once after them.
            let (ja, jb) = (cp.r_a.cross(n), cp.r_b.cross(n));
            let vn = (u_b - u_a) + (p.wb.dot(jb) - p.wa.dot(ja));
            let impulse =
                -cp.normal_mass * mass_scale * (vn + bias) - impulse_scale * cp.normal_impulse;
            let total = (cp.normal_impulse + impulse).max(0.0);
            let impulse = total - cp.normal_impulse;
            cp.normal_impulse = total;
            cp.max_normal_impulse = cp.max_normal_impulse.max(total);
            total_normal += total;
            twist_limit += total * cp.lever;
            pushed += impulse;
            u_a -= along_a * impulse;
            u_b += along_b * impulse;
            p.wa -= p.i_a * (impulse * ja);
            p.wb += p.i_b * (impulse * jb);
        }
        p.va -= (p.m_a * pushed) * n;
        p.vb += (p.m_b * pushed) * n;

        // Friction at the manifold centre, both tangents at once, then twist. Solved in both
        // passes: with friction in the relax pass only (Rapier's default), a tall flat
        // pyramid falls apart; with it in both it stands.
        let [t1, t2] = c.tangent;
        let dv = p.relative_velocity(c.center_a, c.center_b);
        let (vt1, vt2) = (
            dv.dot(t1) - c.tangent_speed[0],
            dv.dot(t2) - c.tangent_speed[1],
        );
        let [k11, k12, k22] = c.friction_mass;
        let old = c.friction_impulse;
        let mut new = [
            old[0] - (k11 * vt1 + k12 * vt2),
            old[1] - (k12 * vt1 + k22 * vt2),
        ];
        let max = c.friction * total_normal;
        let len2 = new[0] * new[0] + new[1] * new[1];
        if len2 > max * max {
            let scale = max / len2.sqrt();
            new = [new[0] * scale, new[1] * scale];
        }
        c.friction_impulse = new;
        p.apply(
            c.center_a,
            c.center_b,
            (new[0] - old[0]) * t1 + (new[1] - old[1]) * t2,
        );

        // Twist friction about the normal (none for one point without a carried twist,
        // as in the lane kernel).
        if c.count > 1 || c.twist_impulse != 0.0 {
            let wn = n.dot(p.wb - p.wa);
            let max = c.friction * twist_limit;
            let old = c.twist_impulse;
            // max/min rather than `clamp`, which panics on a NaN bound (extreme but finite
            // impulses restored from a state give `inf * 0`); the same for any other
            // bound, and what the lane kernel does.
            let new = (old - c.twist_mass * wn).max(-max).min(max);
            c.twist_impulse = new;
            p.apply_angular((new - old) * n);
        }

        if !use_bias {
            drop_null_impulses(c);
        }
        end(states, c, &p);
    }
}

/// Below this `|null|²` (m⁴) a four-point manifold counts as degenerate (its points
/// nearly on a line) and keeps its impulses as solved.
pub(crate) const NULL_TINY: f32 = 1.0e-10;

/// The normal impulses of a four-point manifold that move no body: `v` with `Σ v_j = 0`
/// and `Σ v_j x_j = Σ v_j y_j = 0`, `(x_j, y_j)` being the points' anchors in the
/// tangent plane. Impulses along `v` add no net force and, all points lying in the plane
/// of the normal, no net torque (the cofactors of the 4 × 4 matrix with rows `1, x, y`
/// and any of them repeated, which vanishes).
///
/// Four points carry three degrees of freedom (push, and tilt about two axes), so the
/// rigid relax pass, solving the points one after another, leaves an arbitrary part of
/// the load along `v`, different from step to step, with corners of a resting interface
/// at zero. A corner left at zero cannot resist the tilt that would load it, so
/// the box stands on a diagonal and rocks; see [`drop_null_impulses`].
pub(crate) fn null_impulses<T>(xy: [(T, T); MAX_POINTS]) -> [T; MAX_POINTS]
where
    T: Copy + std::ops::Sub<Output = T> + std::ops::Mul<Output = T> + std::ops::Neg<Output = T>,
{
    let det = |a: usize, b: usize, c: usize| {
        (xy[b].0 - xy[a].0) * (xy[c].1 - xy[a].1) - (xy[c].0 - xy[a].0) * (xy[b].1 - xy[a].1)
    };
    [det(1, 2, 3), -det(0, 2, 3), det(0, 1, 3), -det(0, 1, 2)]
}

/// After a relax pass: takes out of a four-point manifold's normal impulses their part
/// along [`null_impulses`] (the least-squares amount, `λ·v / |v|²`), as far as every
/// impulse stays non-negative. No body's velocity changes; the load is spread over the
/// corners as the manifold's geometry says instead of as the order of the rows left it.
pub(crate) fn drop_null_impulses(c: &mut ContactConstraint) {
    if c.null_scale == 0.0 {
        return;
    }
    let v = c.null;
    let l = c.points.map(|p| p.normal_impulse);
    let mut t = (0..MAX_POINTS).map(|j| l[j] * v[j]).sum::<f32>() * c.null_scale;
    // λ_j − t v_j ≥ 0 bounds t from above where v_j > 0 and from below where v_j < 0.
    for j in 0..MAX_POINTS {
        if v[j] > 0.0 {
            t = t.min(l[j] / v[j]);
        } else if v[j] < 0.0 {
            t = t.max(l[j] / v[j]);
        }
    }
    for (p, vj) in c.points.iter_mut().zip(v) {
        p.normal_impulse = (p.normal_impulse - t * vj).max(0.0);
    }
}

/// Copies the accumulated impulses back into the manifolds for the next step's warm start.
pub(crate) fn store_impulses(cs: &[ContactConstraint], contacts: &mut [Contact]) {
    for c in cs {
        let m = &mut contacts[c.contact as usize].manifold;
        for (mp, cp) in m.points.iter_mut().zip(&c.points[..c.count]) {
            mp.normal_impulse = cp.normal_impulse;
            mp.max_normal_impulse = cp.max_normal_impulse;
        }
        m.friction_impulse =
            c.friction_impulse[0] * c.tangent[0] + c.friction_impulse[1] * c.tangent[1];
        m.twist_impulse = c.twist_impulse;
    }
}

#[cfg(test)]
mod tests;
