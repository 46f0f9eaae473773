//! Stacks solved exactly along their support trees: heavy bodies resting on lighter ones,
//! and columns standing alone.
//!
//! A soft contact row is a spring of stiffness `m_eff ω²`, and under a heavy body `m_eff`
//! is the light body's: a 100 t box on a 100 kg one sinks by the heavy box's weight over
//! a spring sized for the light one (a third of a metre). Making the rows stiffer does not
//! help: one Gauss-Seidel sweep a substep cannot carry stiff rows through a light body
//! held between two of them (`docs/decisions.md`, "Stiffness under load"). A column of
//! like boxes fails the same way: 25 boxes on 30 Hz springs stand 165 mm short and sway.
//!
//! So where a stack is found, the manifolds that hold it up are solved together and
//! exactly, after the colours' sweep of every pass:
//! - **The forest.** Each awake dynamic body without joints picks at most one supporting
//!   manifold: three or four points spanning a plane, none more than 5 mm apart, its
//!   normal within 45° of the direction against gravity, the body moving against it slower
//!   than 0.5 m/s and 1 rad/s, the largest normal load of the last step (ties to the first
//!   touching contact). A body held up by two loaded manifolds or more (a slab on two legs)
//!   picks none: one exact support and one soft one would not share its load. The picks
//!   form a forest.
//! - **Which trees.** A tree is solved here when one of its edges holds a body on one at
//!   least [`MASS_RATIO`] times lighter, or when it stands alone: none of its bodies has a
//!   contact (touching or not) but the tree's own edges, as a column on the ground. A tree
//!   among other bodies (a pile's columns) stays in the colours: it would be solved exactly
//!   in some steps and not in others, and the weld's impulses, warm-started by the soft
//!   contacts, kick it (`docs/decisions.md`, "Stiffness under load, part six"). A world
//!   with no heavy body on a light one and no body whose only contact is a possible
//!   support on another dynamic body (the top of a column) skips the search after one
//!   scan of the contacts.
//! - **The rows of an edge.** A manifold of the tree is a weld at its centre: a push, two
//!   friction rows and a twist, and two tilts (the torques four corners can carry). The
//!   push is biased by the separation of the centre of the plane through the points'
//!   separations, as a contact row is by its separation. The manifold leaves the wide
//!   batches for the step ([`ContactConstraintW::take_lane`]).
//! - **The solve.** `K λ = c` over the whole tree, through the block `LDLᵀ` of
//!   `H = [M −Jᵀ; −J 0]` eliminated from the leaves (as [`super::articulation`] solves
//!   ball-joint trees), factored once a step and again when the limits below change a
//!   row. The soft step's update is applied in block form,
//!   `Δλ = −s_m K⁻¹ (J v + b) − s_i λ`, with one softness for every edge: at rest each
//!   edge between two dynamic bodies then holds any load with no overlap, and the edge to
//!   the ground keeps `g / ω²` (a quarter of a millimetre at 30 Hz) whatever it carries.
//! - **The limits.** Points cannot pull and friction and twist stay in their cones: the
//!   step is solved with them as an active set ([`active`]). A manifold's push and tilts
//!   are carried by all its points, or by the points it rocks on, or by none as it lifts;
//!   friction and twist stick, or slide at their cone's edge. A tree whose set does not
//!   settle within a few solves takes that pass as soft contacts, by the scalar kernel,
//!   as the colours would solve them. The points' impulses go back into the manifold for
//!   the warm start.
//!
//! The solve is serial and in `f64`; it does not depend on the lane width or the thread
//! count.

use super::block::gauss_jordan;
use super::contact::{self as cs, ContactConstraint};
use super::contact_wide::ContactConstraintW;
use super::graph::Slot;
use super::{BodyState, SolverBodies, StepContext};
use crate::body::BodyStore;
use crate::contact::Contact;
use crate::id::NULL;
use edge::Edge;
use gate::{above, flat_support};
use glam::{DMat3, Mat3, Vec3};
use std::ops::Range;

/// A body resting on one this many times lighter (or more) puts its support tree in the
/// exact solve.
pub(crate) const MASS_RATIO: f32 = 4.0;

/// `cos 45°`: how far from the direction against gravity a supporting normal may lean.
pub(crate) const SUPPORT_COS: f32 = std::f32::consts::FRAC_1_SQRT_2;

/// The fastest a body may move against its support, m/s (at the manifold's centre) and
/// rad/s, for the support to join a tree: a landing, sliding or tumbling body is solved as
/// soft contacts, which spread an impact over substeps where the exact step would take it
/// at once through the light body under it.
const REST_SPEED: f32 = 0.5;
const REST_SPIN: f32 = 1.0;

/// The largest separation of a point of a supporting manifold, m: a manifold with a corner
/// apart (a box landing on an edge) is a hinge, not a support, until it lies flat.
const TOUCH: f32 = 0.005;

const ROOT: usize = usize::MAX;

mod active;
mod edge;
mod gate;
mod mat6;

use mat6::{mul, mul_transpose, sub_congruence, Mat6};

/// One tree's contiguous ranges of the edges, nodes and bodies.
#[derive(Clone, Debug)]
struct Tree {
    edges: Range<usize>,
    nodes: Range<usize>,
    bodies: Range<usize>,
}

#[derive(Clone, Copy, Debug)]
struct StackBody {
    /// Dense solver index.
    k: u32,
    /// Inverse mass and world inverse inertia.
    m: f32,
    i: Mat3,
    /// Mass and world inertia (the body's `H` block).
    mass: f64,
    inertia: DMat3,
    /// The body's node.
    node: usize,
}

/// `H` node: a body or an edge (6 rows each).
#[derive(Clone, Copy, Debug)]
struct Node {
    body: bool,
    index: usize,
    parent: usize,
}

/// The stacks solved exactly this step, and the scratch of finding them.
#[derive(Default)]
pub(crate) struct Stacks {
    bodies: Vec<StackBody>,
    edges: Vec<Edge>,
    /// Each edge's manifold as a scalar constraint, for the passes the exact step cannot
    /// take (see [`Stacks::solve`]).
    pub(super) scalar: Vec<ContactConstraint>,
    /// Each tree's ranges of `edges`, `nodes` and `bodies`.
    trees: Vec<Tree>,
    /// Parents before children, tree after tree; the factor runs it backwards.
    nodes: Vec<Node>,
    /// Per node: `D` while factoring, `D⁻¹`, and `H_{i, parent}`.
    d: Vec<Mat6>,
    dinv: Vec<Mat6>,
    hp: Vec<Mat6>,
    /// Scratch of the passes: each edge's right-hand side and result, each node's vector.
    rhs: Vec<[f64; 6]>,
    y: Vec<[f64; 6]>,
    x: Vec<[f64; 6]>,
    factored: bool,
    /// Per dense body: the best support (last load, touching index), and how many
    /// loaded manifolds hold it up.
    support: Vec<(f32, u32)>,
    supports: Vec<u32>,
    /// Per dense body: how many of its contacts touch, and how many it has, touching or
    /// not (see [`Self::lonely`]).
    touching_of: Vec<u32>,
    contacts_dense: Vec<u32>,
    /// Per dense body: how many of its contacts are edges of its tree.
    edges_of: Vec<u32>,
    /// Per dense body while choosing trees: whether its tree stands alone.
    apart: Vec<bool>,
    /// Per dense body: the tree's root (or [`NULL`] while unknown).
    root: Vec<u32>,
    /// Per dense body: its tree is solved here.
    chosen: Vec<bool>,
    /// (parent, child) dense pairs, sorted, and each body's first child in it.
    children: Vec<(u32, u32)>,
    first_child: Vec<u32>,
    slots: Vec<Slot>,
    queue: Vec<(u32, usize)>,
    /// Per tree: its active set changed since it was factored.
    dirty: Vec<bool>,
    /// Scratch of the active-set passes ([`active`]).
    scratch: active::Scratch,
}

/// The live contacts (touching or not) of dense body `x`, from the contact store's count
/// per body slot (a body that never had one is past its end).
fn contacts_of(of_body: &[u32], sb: &SolverBodies, x: u32) -> u32 {
    of_body
        .get(sb.slot[x as usize] as usize)
        .copied()
        .unwrap_or(0)
}

impl Stacks {
    /// Finds this step's trees (see the module comment) and takes their manifolds out of
    /// `batches`; `seeded` says whether a batch found a manifold that may hold a body on
    /// a much lighter one. `touching[k]` is a contact index; `locate` fills where each
    /// touching contact was prepared. `pairs[k]` is touching contact `k`'s two dynamic
    /// solver indices (or `NULL`), `of_body[slot]` a body's live contacts, touching or not.
    #[allow(clippy::too_many_arguments)]
    pub fn build(
        &mut self,
        seeded: bool,
        lonely: Option<bool>,
        touching: &[u32],
        contacts: &[Contact],
        pairs: &[[u32; 2]],
        of_body: &[u32],
        tangents: &[Vec3],
        sb: &SolverBodies,
        bodies: &BodyStore,
        joints_of_body: &[Vec<u32>],
        ctx: &StepContext,
        locate: impl FnOnce(&mut Vec<Slot>),
        batches: &mut [ContactConstraintW],
    ) {
        self.bodies.clear();
        self.edges.clear();
        self.scalar.clear();
        self.trees.clear();
        self.nodes.clear();
        self.factored = false;
        let count = sb.states.len();
        let up = ctx.up();
        if up == Vec3::ZERO || touching.is_empty() {
            return;
        }
        // A stack standing alone has a top body with one contact, with a body under it all
        // of whose contacts touch; without one, and without a heavy body on a light one,
        // there is no tree.
        // (`lonely`: the answer, if the caller asked already; a seeded step needs none.)
        if !seeded
            && !lonely
                .unwrap_or_else(|| self.lonely(pairs, touching, contacts, of_body, &sb.slot, up))
        {
            return;
        }
        locate(&mut self.slots);

        // Each body's best support; a body resting on two or more (a slab on two legs, a
        // box of a pyramid) has none: one exact support and one soft one would not share
        // its load.
        self.support.clear();
        self.support.resize(count, (-1.0, NULL));
        self.supports.clear();
        self.supports.resize(count, 0);
        for (k, &id) in touching.iter().enumerate() {
            let c = &contacts[id as usize];
            let m = &c.manifold;
            let [a, b] = pairs[k];
            let child = match above(m, up) {
                Some(true) if b != NULL => b,
                Some(false) if a != NULL => a,
                _ => continue,
            };
            let points = m.points();
            let load: f32 = points.iter().map(|p| p.normal_impulse).sum();
            if load > 0.0 {
                self.supports[child as usize] += 1;
            }
            if !flat_support(c) || !matches!(self.slots[k], Slot::Wide(..)) {
                continue;
            }
            let state = |k: u32| {
                let k = sb.index[k as usize];
                if k == NULL {
                    BodyState::IDENTITY
                } else {
                    sb.states[k as usize]
                }
            };
            let (sa, sb_) = (state(c.body_a), state(c.body_b));
            let inv_count = 1.0 / points.len() as f32;
            let ca = points.iter().fold(Vec3::ZERO, |s, p| s + p.anchor_a) * inv_count;
            let cb = points.iter().fold(Vec3::ZERO, |s, p| s + p.anchor_b) * inv_count;
            let slide = sb_.v + sb_.w.cross(cb) - sa.v - sa.w.cross(ca);
            let spin = sb_.w - sa.w;
            if slide.length_squared() > REST_SPEED * REST_SPEED
                || spin.length_squared() > REST_SPIN * REST_SPIN
            {
                continue;
            }
            let best = &mut self.support[child as usize];
            if load > best.0 {
                *best = (load, k as u32);
            }
        }
        for (best, &n) in self.support.iter_mut().zip(&self.supports) {
            if n > 1 {
                best.1 = NULL;
            }
        }
        // From the dense pairs, not the contacts: the loops below ask for every body's
        // parent, and a contact is 448 bytes away.
        let parent_of = |support: &[(f32, u32)], x: u32| -> u32 {
            let k = support[x as usize].1;
            if k == NULL {
                return NULL;
            }
            let [a, b] = pairs[k as usize];
            if a == x {
                b
            } else {
                a
            }
        };

        // Roots, breaking any loop where the walk closes it.
        self.root.clear();
        self.root.resize(count, NULL);
        self.queue.clear();
        for x in 0..count as u32 {
            if self.root[x as usize] != NULL {
                continue;
            }
            self.queue.clear();
            let mut y = x;
            let root = loop {
                self.queue.push((y, 0));
                let p = parent_of(&self.support, y);
                if p == NULL {
                    break y;
                }
                if self.root[p as usize] != NULL {
                    break self.root[p as usize];
                }
                if self.queue.iter().any(|&(q, _)| q == p) {
                    // A loop through dynamic bodies: `y` gives up its support.
                    self.support[y as usize].1 = NULL;
                    break y;
                }
                y = p;
            };
            for &(q, _) in &self.queue {
                self.root[q as usize] = root;
            }
        }

        // Which trees hold a body on a much lighter one.
        self.chosen.clear();
        self.chosen.resize(count, false);
        for x in 0..count as u32 {
            let p = parent_of(&self.support, x);
            if p != NULL
                && sb.mass[p as usize].inv_mass >= MASS_RATIO * sb.mass[x as usize].inv_mass
            {
                self.chosen[self.root[x as usize] as usize] = true;
            }
        }
        {
            // Stacks of like masses standing alone: a tree none of whose bodies has a
            // contact (touching or not) but its tree's edges. A tree among other bodies
            // would be solved exactly in some steps and not in others, and the weld's
            // impulses, warm-started by soft contacts, kick it. A body's contacts are
            // counted by the contact store, its edges here.
            let edges_of = &mut self.edges_of;
            edges_of.clear();
            edges_of.resize(count, 0);
            for x in 0..count as u32 {
                if self.support[x as usize].1 != NULL {
                    edges_of[x as usize] += 1;
                    let p = parent_of(&self.support, x);
                    if p != NULL {
                        edges_of[p as usize] += 1;
                    }
                }
            }
            let apart = &mut self.apart;
            apart.clear();
            apart.resize(count, true);
            for x in 0..count {
                if contacts_of(of_body, sb, x as u32) != edges_of[x] {
                    apart[self.root[x] as usize] = false;
                }
            }
            for x in 0..count as u32 {
                let r = self.root[x as usize] as usize;
                if parent_of(&self.support, x) != NULL && apart[r] {
                    self.chosen[r] = true;
                }
            }
        }
        self.children.clear();
        for x in 0..count as u32 {
            let p = parent_of(&self.support, x);
            if p != NULL && self.chosen[self.root[x as usize] as usize] {
                self.children.push((p, x));
            }
        }
        if self.children.is_empty() {
            return;
        }
        self.children.sort_unstable();
        self.first_child.clear();
        self.first_child.resize(count + 1, 0);
        for &(p, _) in &self.children {
            self.first_child[p as usize + 1] += 1;
        }
        for x in 0..count {
            self.first_child[x + 1] += self.first_child[x];
        }

        for r in 0..count as u32 {
            if !self.chosen[r as usize] || self.root[r as usize] != r {
                continue;
            }
            let marks = (self.bodies.len(), self.edges.len(), self.nodes.len());
            if self.add_tree(r, touching, contacts, sb, joints_of_body) {
                self.trees.push(Tree {
                    edges: marks.1..self.edges.len(),
                    nodes: marks.2..self.nodes.len(),
                    bodies: marks.0..self.bodies.len(),
                });
            } else {
                self.bodies.truncate(marks.0);
                self.edges.truncate(marks.1);
                self.nodes.truncate(marks.2);
            }
        }
        for e in &mut self.edges {
            if let Slot::Wide(batch, lane) = self.slots[e.touching as usize] {
                batches[batch as usize].take_lane(lane);
            }
            let id = e.contact as usize;
            let c = cs::prepare(&contacts[id], e.contact, tangents[id], sb, bodies, ctx);
            self.scalar.push(c);
        }
    }

    /// Adds the tree of root body `r` (dense index); false when one of its bodies cannot
    /// take part (see [`Self::add_body`]) or one of its manifolds spans no plane.
    fn add_tree(
        &mut self,
        r: u32,
        touching: &[u32],
        contacts: &[Contact],
        sb: &SolverBodies,
        joints_of_body: &[Vec<u32>],
    ) -> bool {
        // An edge to a static (or kinematic) body is the tree's root node, its body the
        // node below it: every node is then a 6x6 block.
        let k = self.support[r as usize].1;
        let parent = if k != NULL {
            let node = self.nodes.len();
            self.nodes.push(Node {
                body: false,
                index: self.edges.len(),
                parent: ROOT,
            });
            let (id, root) = (touching[k as usize], self.bodies.len());
            let Some(e) = Edge::new(&contacts[id as usize], id, k, r, root, None, node, sb) else {
                return false;
            };
            self.edges.push(e);
            node
        } else {
            ROOT
        };
        let Some(root) = self.add_body(r, parent, sb, joints_of_body) else {
            return false;
        };
        self.queue.clear();
        self.queue.push((r, root));
        let mut head = 0;
        while head < self.queue.len() {
            let (x, bx) = self.queue[head];
            head += 1;
            let parent_node = self.bodies[bx].node;
            let children =
                self.first_child[x as usize] as usize..self.first_child[x as usize + 1] as usize;
            for i in children {
                let child = self.children[i].1;
                let k = self.support[child as usize].1;
                let id = touching[k as usize];
                let edge_node = self.nodes.len();
                self.nodes.push(Node {
                    body: false,
                    index: self.edges.len(),
                    parent: parent_node,
                });
                let bc = self.bodies.len();
                let c = &contacts[id as usize];
                let Some(e) = Edge::new(c, id, k, child, bc, Some(bx), edge_node, sb) else {
                    return false;
                };
                self.edges.push(e);
                if self
                    .add_body(child, edge_node, sb, joints_of_body)
                    .is_none()
                {
                    return false;
                }
                self.queue.push((child, bc));
            }
        }
        true
    }

    /// Adds dense body `k` under node `parent`; `None` when it cannot take part: a locked
    /// rotation, or joints (whose rows the exact solve would not see).
    fn add_body(
        &mut self,
        k: u32,
        parent: usize,
        sb: &SolverBodies,
        joints_of_body: &[Vec<u32>],
    ) -> Option<usize> {
        let m = &sb.mass[k as usize];
        let jointed = joints_of_body
            .get(sb.slot[k as usize] as usize)
            .is_some_and(|j| !j.is_empty());
        let turns = m.inv_inertia.determinant() > 0.0;
        if jointed || m.inv_mass <= 0.0 || !turns {
            return None;
        }
        let inertia = m.inv_inertia.inverse();
        if !inertia.is_finite() {
            return None;
        }
        self.nodes.push(Node {
            body: true,
            index: self.bodies.len(),
            parent,
        });
        self.bodies.push(StackBody {
            k,
            m: m.inv_mass,
            i: m.inv_inertia,
            mass: 1.0 / m.inv_mass as f64,
            inertia: inertia.as_dmat3(),
            node: self.nodes.len() - 1,
        });
        Some(self.bodies.len() - 1)
    }

    /// `J` of edge `e` on its side B (`side_b`) or A, rows × (linear, angular).
    fn jacobian(c: &ContactConstraint, side_b: bool) -> [[f64; 6]; 6] {
        let (s, r) = if side_b {
            (1.0, c.center_b)
        } else {
            (-1.0, c.center_a)
        };
        let mut j = [[0.0f64; 6]; 6];
        for (row, d) in [c.normal, c.tangent[0], c.tangent[1]]
            .into_iter()
            .enumerate()
        {
            let rd = r.cross(d);
            j[row] = [
                s * d.x as f64,
                s * d.y as f64,
                s * d.z as f64,
                s * rd.x as f64,
                s * rd.y as f64,
                s * rd.z as f64,
            ];
            j[row + 3][3..].copy_from_slice(&[s * d.x as f64, s * d.y as f64, s * d.z as f64]);
        }
        j
    }

    /// Factors `H` (once a step: the arms and masses are fixed for the step).
    fn factor(&mut self) {
        let count = self.nodes.len();
        for v in [&mut self.d, &mut self.dinv, &mut self.hp] {
            v.clear();
            v.resize(count, [[0.0; 6]; 6]);
        }
        self.factor_range(0..count);
    }

    /// `J` of edge `k` on its side B or A in the rows its active set keeps (see
    /// [`Edge::rows`]).
    fn edge_jacobian(&self, k: usize, side_b: bool) -> Mat6 {
        let j = Self::jacobian(&self.scalar[k], side_b);
        match self.edges[k].rows() {
            None => j,
            Some(r) => r.map(|row| std::array::from_fn(|c| (0..6).map(|q| row[q] * j[q][c]).sum())),
        }
    }

    /// Factors the nodes `range` of one tree or more (whole trees).
    fn factor_range(&mut self, range: Range<usize>) {
        for i in range.clone() {
            let (n, m) = (&self.nodes[i], &mut self.d[i]);
            *m = [[0.0; 6]; 6];
            if n.body {
                let b = &self.bodies[n.index];
                for i in 0..3 {
                    m[i][i] = b.mass;
                    for c in 0..3 {
                        m[3 + i][3 + c] = b.inertia.col(c)[i];
                    }
                }
            }
        }
        for i in range.rev() {
            let Node {
                body,
                index,
                parent,
            } = self.nodes[i];
            if !body {
                // A row the active set leaves out is decoupled: `λ = 0` for it.
                if let Some(dead) = self.edges[index].dead_rows() {
                    let m = &mut self.d[i];
                    let scale = (0..6)
                        .filter(|&r| !dead[r])
                        .map(|r| m[r][r].abs())
                        .fold(0.0, f64::max);
                    let scale = if scale > 0.0 { scale } else { 1.0 };
                    for r in (0..6).filter(|&r| dead[r]) {
                        m[r][r] = -scale;
                    }
                }
            }
            // A singular block (which the masses and welds of a tree do not make) leaves a
            // zero inverse: the tree's rows then do nothing.
            self.dinv[i] = gauss_jordan(self.d[i]).unwrap_or_default();
            if parent == ROOT {
                continue;
            }
            // `H_{i,p}`: −Jᵀ between a body and its parent edge, −J between an edge and
            // its parent body.
            let hp = if body {
                let k = self.nodes[parent].index;
                let jac = self.edge_jacobian(k, self.edges[k].body_b == Some(index));
                let mut hp = [[0.0; 6]; 6];
                for (c, row) in jac.iter().enumerate() {
                    for (r, &x) in row.iter().enumerate() {
                        hp[r][c] = -x;
                    }
                }
                hp
            } else {
                let p = &self.nodes[parent];
                let side_b = self.edges[index].body_b == Some(p.index);
                self.edge_jacobian(index, side_b).map(|row| row.map(|x| -x))
            };
            self.hp[i] = hp;
            let dinv = self.dinv[i];
            sub_congruence(&mut self.d[parent], &hp, &dinv);
        }
    }

    /// `K⁻¹ c` for the edges of whole trees (`nodes`, `edges`), from `self.rhs` (`c` per
    /// edge) into `self.x` (per node; an edge's `λ` is at its node, a body's velocity
    /// change at its).
    fn solve_k_range(&mut self, nodes: Range<usize>, edges: Range<usize>) {
        let count = self.nodes.len();
        self.y.resize(count, [0.0; 6]);
        self.x.resize(count, [0.0; 6]);
        for i in nodes.clone() {
            self.y[i] = [0.0; 6];
        }
        for k in edges {
            self.y[self.edges[k].node] = self.rhs[k].map(|c| -c);
        }
        for i in nodes.clone().rev() {
            let parent = self.nodes[i].parent;
            if parent != ROOT {
                let t = mul_transpose(&self.hp[i], &mul(&self.dinv[i], &self.y[i]));
                for (p, t) in self.y[parent].iter_mut().zip(t) {
                    *p -= t;
                }
            }
        }
        for i in nodes {
            let parent = self.nodes[i].parent;
            let mut r = self.y[i];
            if parent != ROOT {
                let h = mul(&self.hp[i], &self.x[parent]);
                for (r, h) in r.iter_mut().zip(h) {
                    *r -= h;
                }
            }
            self.x[i] = mul(&self.dinv[i], &r);
        }
    }

    /// Applies impulse `p` (in the edge's rows) to the edge's dynamic bodies.
    fn apply(
        bodies: &[StackBody],
        states: &mut [BodyState],
        e: &Edge,
        c: &ContactConstraint,
        p: [f32; 6],
    ) {
        let [t1, t2] = c.tangent;
        let linear = p[0] * c.normal + p[1] * t1 + p[2] * t2;
        let angular = p[3] * c.normal + p[4] * t1 + p[5] * t2;
        for (body, r, sign) in [(e.body_a, c.center_a, -1.0f32), (e.body_b, c.center_b, 1.0)] {
            if let Some(b) = body {
                let b = &bodies[b];
                let s = &mut states[b.k as usize];
                s.v += (sign * b.m) * linear;
                s.w += b.i * (sign * (r.cross(linear) + angular));
            }
        }
    }

    /// Applies the accumulated impulses again (start of a substep).
    pub fn warm_start(&self, states: &mut [BodyState]) {
        for (e, sc) in self.edges.iter().zip(&self.scalar) {
            Self::apply(&self.bodies, states, e, sc, e.impulse);
        }
    }

    /// One pass over every tree at once: with bias (`use_bias`) or rigid.
    pub fn solve(&mut self, states: &mut [BodyState], ctx: &StepContext, use_bias: bool) {
        if self.edges.is_empty() {
            return;
        }
        if !self.factored {
            self.factor();
            self.factored = true;
            self.dirty.clear();
            self.dirty.resize(self.trees.len(), false);
        }
        // A tree takes its exact step within its manifolds' limits ([`active`]); a tree
        // whose set of carrying points does not settle takes the pass as soft contacts,
        // as the colours' would.
        for t in 0..self.trees.len() {
            let range = self.trees[t].edges.clone();
            if !self.solve_active(t, states, ctx, use_bias) {
                self.solve_soft(range.clone(), states, ctx, use_bias);
            }
            self.keep_max(range);
        }
    }

    /// The edges `range` (a whole tree) take one Gauss-Seidel pass as soft contacts, as
    /// the colours' would.
    fn solve_soft(
        &mut self,
        range: Range<usize>,
        states: &mut [BodyState],
        ctx: &StepContext,
        use_bias: bool,
    ) {
        cs::solve(&mut self.scalar[range.clone()], states, ctx, use_bias);
        for (e, sc) in self.edges[range.clone()]
            .iter_mut()
            .zip(&self.scalar[range])
        {
            for (x, p) in e.corner.iter_mut().zip(&sc.points) {
                *x = p.normal_impulse;
            }
            let tilt = |r: usize| (0..e.count).map(|j| e.corner[j] * e.arm[j][r]).sum::<f32>();
            e.impulse = [
                e.corner.iter().sum(),
                sc.friction_impulse[0],
                sc.friction_impulse[1],
                sc.twist_impulse,
                tilt(0),
                tilt(1),
            ];
        }
    }

    /// Each corner's largest impulse of the step.
    fn keep_max(&mut self, range: Range<usize>) {
        for e in &mut self.edges[range] {
            for (m, &x) in e.max_corner.iter_mut().zip(&e.corner) {
                *m = m.max(x);
            }
        }
    }
}
