//! A tree's exact step with its contacts' limits: the active-set solve.
//!
//! A weld of every edge asks each manifold for whatever wrench stops the tree's relative
//! motion; a swaying column would need its base to pull. Here the step is solved with the
//! limits instead, by block pivoting:
//! - an edge's push and tilts are carried by the points in its set: all of them (the three
//!   wrench rows), or one row per point on (the manifold rocking on an edge or a corner),
//!   or none (lifting off); friction and twist are welded (sticking), or held at their
//!   cone's edge along the last direction (sliding) as a known impulse outside the solve;
//! - after each solve a point on the set that would pull by more than [`DROP`] of the push
//!   leaves it, a point off it that the step drives into its partner faster than
//!   [`APPROACH`] joins it, a weld past its cone slides, a slide the solve turns back
//!   sticks; the tree is factored and solved again, up to [`MAX_ROUNDS`] times a pass. A
//!   tree whose set does not settle takes the pass as soft contacts.
//!
//! The set is kept from pass to pass, so a tree at rest solves once a pass. Only the push
//! is biased towards the manifold's separation (the centre of the plane through its
//! points' separations): biasing the tilts too corrects every interface's small angle at
//! once and rocks a column (`docs/decisions.md`, "Stiffness under load, part six").

use super::super::{BodyState, StepContext};
use super::edge::NORMAL_ROWS;
use super::{Stacks, Tree};
use crate::collision::MAX_POINTS;
use crate::id::NULL;

/// Solves of one tree in one pass before it gives the pass to soft contacts.
const MAX_ROUNDS: usize = 8;

/// The share of its manifold's push a point on the set may pull by before it leaves the
/// set (smaller pulls are cut to zero when the step is taken): a set that changes for
/// rounding errors cycles.
const DROP: f32 = 5e-3;

/// The speed into its partner (bias included) at which a point off the set joins it,
/// m/s; and the slip speed (m/s) or turning speed (rad/s) back along a held friction or
/// twist at which it sticks again.
const APPROACH: f32 = 5e-3;

/// Per-pass scratch, by edge of the tree being solved (bodies for `saved`).
#[derive(Default)]
pub(crate) struct Scratch {
    saved: Vec<BodyState>,
    /// Each point's separation now, and its row's bias.
    sep: Vec<[f32; MAX_POINTS]>,
    bias: Vec<[f32; MAX_POINTS]>,
    /// The impulse applied outside the solve (points leaving the set, sliding friction,
    /// spinning twist), and the push and twist limit the held friction and twist use.
    fixed: Vec<[f32; 6]>,
    push: Vec<f32>,
    twist: Vec<f32>,
    /// The round's new impulses and corners.
    wrench: Vec<[f32; 6]>,
    corner: Vec<[f32; MAX_POINTS]>,
}

/// The velocity a row at separation `s` asks for: a gap may close this substep; an
/// overlap is pushed out at the soft contact's rate while solving (`use_bias`).
fn bias(s: f32, ctx: &StepContext, use_bias: bool) -> f32 {
    let soft = ctx.contact_softness;
    if s > 0.0 {
        s * ctx.inv_h
    } else if use_bias {
        (soft.bias_rate * s).clamp(-ctx.max_push_speed, ctx.max_push_speed)
    } else {
        0.0
    }
}

impl Stacks {
    /// One pass of tree `t` by the active-set solve; false (the states as they came) when
    /// its set did not settle.
    pub(super) fn solve_active(
        &mut self,
        t: usize,
        states: &mut [BodyState],
        ctx: &StepContext,
        use_bias: bool,
    ) -> bool {
        let Tree {
            edges: er,
            nodes: nr,
            bodies: br,
        } = self.trees[t].clone();
        let soft = ctx.contact_softness;
        let (mass_scale, impulse_scale) = if use_bias {
            (soft.mass_scale, soft.impulse_scale)
        } else {
            (1.0, 0.0)
        };
        let mut sc = std::mem::take(&mut self.scratch);
        sc.saved.clear();
        sc.saved
            .extend(self.bodies[br.clone()].iter().map(|b| states[b.k as usize]));
        let state = |states: &[BodyState], k: u32| {
            if k == NULL {
                BodyState::IDENTITY
            } else {
                states[k as usize]
            }
        };
        sc.sep.clear();
        sc.bias.clear();
        sc.push.clear();
        sc.twist.clear();
        for k in er.clone() {
            let (e, c) = (&self.edges[k], &self.scalar[k]);
            let (sa, sb) = (state(states, c.a), state(states, c.b));
            let (n_a, n_b) = (sa.dq.conjugate() * c.normal, sb.dq.conjugate() * c.normal);
            let n_dp = c.normal.dot(sb.dp - sa.dp);
            let mut sep = [0.0f32; MAX_POINTS];
            for (s, p) in sep.iter_mut().zip(&c.points[..e.count]) {
                *s = n_dp + n_b.dot(p.r_b) - n_a.dot(p.r_a) + p.base_separation;
            }
            sc.sep.push(sep);
            sc.bias.push(sep.map(|s| bias(s, ctx, use_bias)));
            sc.push.push(e.impulse[0].max(0.0));
            sc.twist
                .push((0..e.count).map(|j| e.corner[j] * e.lever[j]).sum());
        }

        for _ in 0..MAX_ROUNDS {
            if self.dirty[t] {
                self.factor_range(nr.clone());
                self.dirty[t] = false;
            }
            for (b, s) in self.bodies[br.clone()].iter().zip(&sc.saved) {
                states[b.k as usize] = *s;
            }
            // What the set holds outside the solve.
            sc.fixed.clear();
            for k in er.clone() {
                let (e, c) = (&self.edges[k], &self.scalar[k]);
                let i = k - er.start;
                let mut p = [0.0f32; 6];
                let all = e.all_on();
                let lifted = !all && e.live().1 == 0;
                if !all {
                    for j in (0..e.count).filter(|&j| !e.on[j]) {
                        p[0] -= e.corner[j];
                        p[4] -= e.corner[j] * e.arm[j][0];
                        p[5] -= e.corner[j] * e.arm[j][1];
                    }
                }
                if lifted {
                    p[1] = -e.impulse[1];
                    p[2] = -e.impulse[2];
                    p[3] = -e.impulse[3];
                } else {
                    if let Some(d) = e.slide {
                        let f = c.friction * sc.push[i];
                        p[1] = d[0] * f - e.impulse[1];
                        p[2] = d[1] * f - e.impulse[2];
                    }
                    if let Some(sign) = e.spin {
                        p[3] = sign * c.friction * sc.twist[i] - e.impulse[3];
                    }
                }
                Self::apply(&self.bodies, states, e, c, p);
                sc.fixed.push(p);
            }
            // The rows' velocity errors, in the rows the set keeps.
            self.fill_rhs(er.clone(), &sc, states, ctx, use_bias);
            self.solve_k_range(nr.clone(), er.clone());
            // The new impulses, applied.
            sc.wrench.clear();
            sc.corner.clear();
            for k in er.clone() {
                let (e, c) = (&self.edges[k], &self.scalar[k]);
                let i = k - er.start;
                let x = &self.x[e.node];
                let all = e.all_on();
                let (live, count) = e.live();
                let mut old = e.impulse;
                if !all {
                    for (&q, &j) in NORMAL_ROWS.iter().zip(&live[..count]) {
                        old[q] = e.corner[j];
                    }
                }
                let new: [f32; 6] = std::array::from_fn(|r| {
                    old[r] - mass_scale * x[r] as f32 - impulse_scale * old[r]
                });
                let fixed = sc.fixed[i];
                let held = |r: usize| e.impulse[r] + fixed[r];
                let mut w = [0.0f32; 6];
                let mut corner = [0.0f32; MAX_POINTS];
                if all {
                    w[0] = new[0];
                    w[4] = new[4];
                    w[5] = new[5];
                    corner = e.corners_raw([w[0], w[4], w[5]]).0;
                } else {
                    for (&q, &j) in NORMAL_ROWS.iter().zip(&live[..count]) {
                        corner[j] = new[q];
                        w[0] += new[q];
                        w[4] += new[q] * e.arm[j][0];
                        w[5] += new[q] * e.arm[j][1];
                    }
                }
                let lifted = !all && count == 0;
                for r in 1..3 {
                    w[r] = if e.slide.is_some() || lifted {
                        held(r)
                    } else {
                        new[r]
                    };
                }
                w[3] = if e.spin.is_some() || lifted {
                    held(3)
                } else {
                    new[3]
                };
                // What the solve adds to what was held.
                let mut p = [0.0f32; 6];
                for r in 0..6 {
                    p[r] = w[r] - (e.impulse[r] + fixed[r]);
                }
                // The points off the set were taken to zero by `fixed`.
                Self::apply(&self.bodies, states, e, c, p);
                sc.wrench.push(w);
                sc.corner.push(corner);
            }
            // The set's checks.
            let mut changed = false;
            for k in er.clone() {
                let i = k - er.start;
                let (w, corner) = (sc.wrench[i], sc.corner[i]);
                let (sa, sb) = (
                    state(states, self.scalar[k].a),
                    state(states, self.scalar[k].b),
                );
                let c = &self.scalar[k];
                let e = &mut self.edges[k];
                let tol = DROP * w[0].abs() + f32::MIN_POSITIVE;
                let mut on = e.on;
                if e.all_on() {
                    if w[0] <= 0.0 {
                        on = [false; MAX_POINTS];
                    } else if corner[..e.count].iter().any(|&x| x < -tol) {
                        for j in 0..e.count {
                            on[j] = corner[j] > 0.0;
                        }
                    }
                } else if (0..e.count).any(|j| e.on[j] && corner[j] < -tol) {
                    for j in 0..e.count {
                        on[j] = e.on[j] && corner[j] >= -tol;
                    }
                } else {
                    for (j, p) in c.points[..e.count].iter().enumerate() {
                        if e.on[j] {
                            continue;
                        }
                        let vp = sb.v + sb.w.cross(p.r_b) - sa.v - sa.w.cross(p.r_a);
                        if c.normal.dot(vp) + sc.bias[i][j] < -APPROACH {
                            on[j] = true;
                        }
                    }
                }
                if on != e.on {
                    e.on = on;
                    changed = true;
                }
                let push = w[0].max(0.0);
                let corners = corner.map(|x| x.max(0.0));
                let twist_max: f32 = (0..e.count).map(|j| corners[j] * e.lever[j]).sum();
                let centre = sb.v + sb.w.cross(c.center_b) - sa.v - sa.w.cross(c.center_a);
                let [t1, t2] = c.tangent;
                match e.slide {
                    None => {
                        let f = (w[1] * w[1] + w[2] * w[2]).sqrt();
                        if f > c.friction * push * (1.0 + 1e-4) + f32::MIN_POSITIVE {
                            e.slide = Some([w[1] / f, w[2] / f]);
                            changed = true;
                        }
                    }
                    Some(d) => {
                        if d[0] * t1.dot(centre) + d[1] * t2.dot(centre) > APPROACH {
                            e.slide = None;
                            changed = true;
                        }
                    }
                }
                match e.spin {
                    None => {
                        if w[3].abs() > c.friction * twist_max * (1.0 + 1e-4) + f32::MIN_POSITIVE {
                            e.spin = Some(w[3].signum());
                            changed = true;
                        }
                    }
                    Some(sign) => {
                        if sign * c.normal.dot(sb.w - sa.w) > APPROACH {
                            e.spin = None;
                            changed = true;
                        }
                    }
                }
                sc.push[i] = push;
                sc.twist[i] = twist_max;
            }
            if changed {
                self.dirty[t] = true;
                continue;
            }
            for k in er.clone() {
                let i = k - er.start;
                let (w, corner) = (sc.wrench[i], sc.corner[i].map(|x| x.max(0.0)));
                let e = &mut self.edges[k];
                e.impulse = w;
                e.corner = corner;
                let c = &mut self.scalar[k];
                for (p, &x) in c.points.iter_mut().zip(&corner) {
                    p.normal_impulse = x;
                }
                c.friction_impulse = [w[1], w[2]];
                c.twist_impulse = w[3];
            }
            self.scratch = sc;
            return true;
        }
        for (b, s) in self.bodies[br].iter().zip(&sc.saved) {
            states[b.k as usize] = *s;
        }
        self.scratch = sc;
        false
    }
}

impl Stacks {
    /// Fills `self.rhs` for the edges `er` of one tree: the rows' velocity errors in the
    /// rows the set keeps, with the push's bias (`use_bias`) and a speculative gap's
    /// closing speed.
    fn fill_rhs(
        &mut self,
        er: std::ops::Range<usize>,
        sc: &Scratch,
        states: &[BodyState],
        ctx: &StepContext,
        use_bias: bool,
    ) {
        let state = |k: u32| {
            if k == NULL {
                BodyState::IDENTITY
            } else {
                states[k as usize]
            }
        };
        self.rhs.resize(self.edges.len(), [0.0; 6]);
        for k in er.clone() {
            let (e, c) = (&self.edges[k], &self.scalar[k]);
            let i = k - er.start;
            let (n, [t1, t2]) = (c.normal, c.tangent);
            let (sa, sb) = (state(c.a), state(c.b));
            let dv = sb.v + sb.w.cross(c.center_b) - sa.v - sa.w.cross(c.center_a);
            let dw = sb.w - sa.w;
            let v = [
                n.dot(dv),
                t1.dot(dv),
                t2.dot(dv),
                n.dot(dw),
                t1.dot(dw),
                t2.dot(dw),
            ];
            let centre: f32 = (0..e.count).map(|j| e.split[j][0] * sc.sep[i][j]).sum();
            let b = bias(centre, ctx, use_bias);
            let mut r = v;
            if !e.all_on() {
                let (live, count) = e.live();
                for (&q, &j) in NORMAL_ROWS.iter().zip(&live[..count]) {
                    r[q] = v[0] + e.arm[j][0] * v[4] + e.arm[j][1] * v[5] + b;
                }
            } else {
                r[0] += b;
            }
            for (r, dead) in r.iter_mut().zip(e.dead_rows().unwrap_or([false; 6])) {
                if dead {
                    *r = 0.0;
                }
            }
            self.rhs[k] = r.map(f64::from);
        }
    }
}
