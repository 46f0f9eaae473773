//! One supporting manifold of a stack: its rows, and the split of its push and tilts over
//! its points.

use super::super::contact_wide::ContactConstraintW;
use super::super::graph::take_pending;
use super::super::SolverBodies;
use crate::collision::MAX_POINTS;
use crate::contact::Contact;
use crate::math::perpendicular;
use glam::{DMat3, DVec3, Vec3};

/// One supporting manifold of a tree.
#[derive(Clone, Copy, Debug)]
pub(super) struct Edge {
    pub(super) contact: u32,
    /// Its place in the touching list.
    pub(super) touching: u32,
    /// Tree bodies of A and B when they are dynamic. The rest of the manifold's constraint
    /// (solver bodies, normal, tangents, centre arms, friction) is its scalar constraint's,
    /// kept beside the edge (see [`super::Stacks`]).
    pub(super) body_a: Option<usize>,
    pub(super) body_b: Option<usize>,
    /// The edge's `H` node.
    pub(super) node: usize,
    pub(super) count: usize,
    /// Corner `j`'s impulse is `split[j] · (push, tilt1, tilt2) + s null[j]`.
    pub(super) split: [[f32; 3]; MAX_POINTS],
    pub(super) null: [f32; MAX_POINTS],
    /// Each point's distance from the centre in the tangent plane.
    pub(super) lever: [f32; MAX_POINTS],
    /// The tilts (about t1, about t2) of a unit impulse at each point.
    pub(super) arm: [[f32; 2]; MAX_POINTS],
    /// Push, friction along t1 and t2, twist, tilt about t1 and about t2.
    pub(super) impulse: [f32; 6],
    pub(super) corner: [f32; MAX_POINTS],
    pub(super) max_corner: [f32; MAX_POINTS],
    /// The active set: the points that carry the push and tilts (all: the three wrench
    /// rows; some: one row per point; none: the manifold lifts off), and friction and
    /// twist held at their cones' edge (sliding along the unit direction, spinning with
    /// the sign) instead of solved.
    pub(super) on: [bool; MAX_POINTS],
    pub(super) slide: Option<[f32; 2]>,
    pub(super) spin: Option<f32>,
}

/// The rows of an edge's push and tilts: a point's row goes into them in this order.
pub(super) const NORMAL_ROWS: [usize; 3] = [0, 4, 5];

impl Edge {
    /// The edge of manifold `c` (contact `contact`, touching index `touching`) holding up
    /// dense body `child` (tree body `child_body`) on tree body `parent_body` (`None` for a
    /// static one); `None` when its points span no plane.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        c: &Contact,
        contact: u32,
        touching: u32,
        child: u32,
        child_body: usize,
        parent_body: Option<usize>,
        node: usize,
        sb: &SolverBodies,
    ) -> Option<Self> {
        let m = &c.manifold;
        let (n, points) = (m.normal, m.points());
        let t1 = perpendicular(n);
        let t2 = n.cross(t1);
        let count = points.len();
        let inv_count = 1.0 / count as f32;
        let ca = points.iter().fold(Vec3::ZERO, |s, p| s + p.anchor_a) * inv_count;
        // Corner j carries (push, tilt1, tilt2) = λ_j (1, y_j, −x_j): its point's arm
        // d = x t1 + y t2 from the centre gives the torque d × n = y t1 − x t2.
        let mut rows = [[0.0f64; MAX_POINTS]; 3];
        let mut lever = [0.0f32; MAX_POINTS];
        let mut arm = [[0.0f32; 2]; MAX_POINTS];
        for (j, p) in points.iter().enumerate() {
            let d = p.anchor_a - ca;
            let (x, y) = (d.dot(t1), d.dot(t2));
            arm[j] = [y, -x];
            rows[0][j] = 1.0;
            rows[1][j] = y as f64;
            rows[2][j] = -x as f64;
            lever[j] = (x * x + y * y).sqrt();
        }
        let aat = DMat3::from_cols_array_2d(&std::array::from_fn(|r| {
            std::array::from_fn(|c| (0..count).map(|j| rows[r][j] * rows[c][j]).sum())
        }));
        let det = aat.determinant();
        let scale = aat.x_axis.x * aat.y_axis.y * aat.z_axis.z;
        // A manifold whose points are (nearly) on a line spans no plane.
        let plane = det > 1e-9 * scale;
        if !plane {
            return None;
        }
        let inv = aat.inverse();
        let mut split = [[0.0f32; 3]; MAX_POINTS];
        for (j, s) in split.iter_mut().enumerate().take(count) {
            let a = DVec3::new(rows[0][j], rows[1][j], rows[2][j]);
            let g = inv * a; // (AAᵀ)⁻¹ symmetric: row j of Aᵀ (AAᵀ)⁻¹
            *s = [g.x as f32, g.y as f32, g.z as f32];
        }
        let mut null = [0.0f32; MAX_POINTS];
        if count == MAX_POINTS {
            // (I − G A) e_k for the corner whose column leaves the most.
            let mut best = [0.0f64; MAX_POINTS];
            let mut best_norm = 0.0;
            for k in 0..count {
                let v: [f64; MAX_POINTS] = std::array::from_fn(|j| {
                    let g = inv * DVec3::new(rows[0][j], rows[1][j], rows[2][j]);
                    let ak = DVec3::new(rows[0][k], rows[1][k], rows[2][k]);
                    f64::from(j == k) - g.dot(ak)
                });
                let norm = v.iter().map(|x| x * x).sum::<f64>();
                if norm > best_norm {
                    (best, best_norm) = (v, norm);
                }
            }
            if best_norm > 1e-12 {
                let inv_norm = 1.0 / best_norm.sqrt();
                null = best.map(|x| (x * inv_norm) as f32);
            }
        }
        let mut corner = [0.0f32; MAX_POINTS];
        for (j, p) in points.iter().enumerate() {
            corner[j] = p.normal_impulse.max(0.0);
        }
        let push: f32 = corner.iter().sum();
        let tilt = |r: usize| {
            (0..count)
                .map(|j| rows[r][j] as f32 * corner[j])
                .sum::<f32>()
        };
        let (body_a, body_b) = if sb.dynamic(c.body_a) == child {
            (Some(child_body), parent_body)
        } else {
            (parent_body, Some(child_body))
        };
        Some(Edge {
            contact,
            touching,
            body_a,
            body_b,
            node,
            count,
            split,
            null,
            lever,
            arm,
            impulse: [
                push,
                m.friction_impulse.dot(t1),
                m.friction_impulse.dot(t2),
                m.twist_impulse,
                tilt(1),
                tilt(2),
            ],
            corner,
            max_corner: [0.0; MAX_POINTS],
            on: std::array::from_fn(|j| j < count),
            slide: None,
            spin: None,
        })
    }

    /// Whether every point carries the push and tilts (the wrench rows).
    pub(super) fn all_on(&self) -> bool {
        self.on[..self.count].iter().all(|&x| x)
    }

    /// The points on, in the order of their rows ([`NORMAL_ROWS`]), and how many; only
    /// when not all are.
    pub(super) fn live(&self) -> ([usize; 3], usize) {
        let mut live = [0; 3];
        let mut n = 0;
        for j in (0..self.count).filter(|&j| self.on[j]) {
            if n < 3 {
                live[n] = j;
            }
            n += 1;
        }
        (live, n.min(3))
    }

    /// The edge's rows as combinations of its six wrench rows (push, friction, twist,
    /// tilts), as the active set keeps them: `None` for all six; a point's row is the push
    /// plus its arms' tilts; a row left out is zero.
    pub(super) fn rows(&self) -> Option<[[f64; 6]; 6]> {
        let all = self.all_on();
        if all && self.slide.is_none() && self.spin.is_none() {
            return None;
        }
        let mut r = [[0.0f64; 6]; 6];
        let lifted = if all {
            for q in NORMAL_ROWS {
                r[q][q] = 1.0;
            }
            false
        } else {
            let (live, n) = self.live();
            for (&q, &j) in NORMAL_ROWS.iter().zip(&live[..n]) {
                r[q] = [
                    1.0,
                    0.0,
                    0.0,
                    0.0,
                    self.arm[j][0].into(),
                    self.arm[j][1].into(),
                ];
            }
            n == 0
        };
        if self.slide.is_none() && !lifted {
            r[1][1] = 1.0;
            r[2][2] = 1.0;
        }
        if self.spin.is_none() && !lifted {
            r[3][3] = 1.0;
        }
        Some(r)
    }

    /// Which of [`Self::rows`] are left out (`None`: none).
    pub(super) fn dead_rows(&self) -> Option<[bool; 6]> {
        self.rows()
            .map(|r| r.map(|row| row.iter().all(|&x| x == 0.0)))
    }

    /// The corners' impulses for push and tilts `w`, and whether they are all non-negative
    /// (to a rounding tolerance): the least-norm split moved along the null impulses as
    /// little as keeps them non-negative, before any negative one is cut to zero.
    pub(super) fn corners_raw(&self, w: [f32; 3]) -> ([f32; MAX_POINTS], bool) {
        let g: [f32; MAX_POINTS] = std::array::from_fn(|j| {
            let s = &self.split[j];
            s[0] * w[0] + s[1] * w[1] + s[2] * w[2]
        });
        let tol = 1e-5 * w[0].abs() + f32::MIN_POSITIVE;
        let (mut lo, mut hi) = (f32::NEG_INFINITY, f32::INFINITY);
        let mut ok = true;
        for (&g, &v) in g.iter().zip(&self.null).take(self.count) {
            if v > 1e-6 {
                lo = lo.max(-g / v);
            } else if v < -1e-6 {
                hi = hi.min(-g / v);
            } else {
                ok &= g >= -tol;
            }
        }
        let s = if lo <= hi {
            0.0f32.clamp(lo, hi)
        } else {
            ok = false;
            0.5 * (lo + hi)
        };
        let s = if s.is_finite() { s } else { 0.0 };
        let mut out = [0.0f32; MAX_POINTS];
        for j in 0..self.count {
            let x = g[j] + s * self.null[j];
            ok &= x >= -tol;
            out[j] = x;
        }
        (out, ok)
    }
}

impl super::Stacks {
    /// Writes every edge's impulses into its manifold for the next step's warm start. An
    /// edge's contact was coloured, so the store left its (emptied) lane pending in
    /// `batches`: that lane goes into the manifold first, as for any contact, then the
    /// tree's impulses over it, and nothing is left pending.
    pub fn store(
        &self,
        contacts: &mut [Contact],
        pending: &mut [u32],
        batches: &[ContactConstraintW],
    ) {
        for (e, sc) in self.edges.iter().zip(&self.scalar) {
            let m = &mut contacts[e.contact as usize].manifold;
            take_pending(&mut pending[e.contact as usize], batches, m);
            for (j, p) in m.points[..e.count].iter_mut().enumerate() {
                p.normal_impulse = e.corner[j];
                p.max_normal_impulse = e.max_corner[j];
            }
            m.friction_impulse = e.impulse[1] * sc.tangent[0] + e.impulse[2] * sc.tangent[1];
            m.twist_impulse = e.impulse[3];
        }
    }
}
