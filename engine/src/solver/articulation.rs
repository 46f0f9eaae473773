//! Trees of ball joints solved exactly, in linear time (Baraff, "Linear-Time Dynamics
//! using Lagrange Multipliers", SIGGRAPH 1996).
//!
//! Gauss-Seidel passes converge slowly on long chains with heavy ends: a long chain
//! holding a much heavier mass stretches visibly, even at more substeps. When the ball joints
//! among some dynamic bodies form a tree (no loop through dynamic bodies; joints to
//! static bodies are leaves), every pass instead solves their point rows together:
//!
//! `K Δλ = c` with `K = J M⁻¹ Jᵀ`, through the sparse system
//! `H = [M −Jᵀ; −J 0]`, `H (Δv, Δλ) = (0, −c)`,
//!
//! whose graph (bodies and joints as nodes, a joint linked to its dynamic bodies) is the
//! tree itself. At most one joint of a tree may hold a static (or kinematic) body: two
//! close a loop through the world, whose rows can be dependent (a taut rope between two
//! posts), and such groups stay with the iterative passes. Eliminating leaves first creates no fill: for node `i` with children `k`,
//! `D_i = H_ii − Σ H_ikᵀ D_k⁻¹ H_ik`; then a forward pass `y_p −= H_kpᵀ D_k⁻¹ y_k` and a
//! backward pass `x_i = D_i⁻¹ (y_i − H_ip x_p)`. Bodies are 6x6 blocks (`m E`, world
//! inertia), joints 3x3 (zero in `H`); `J` of a joint is `[E, −[r_B]]` on B and
//! `[−E, [r_A]]` on A, so `c = J v + bias` is the point row of [`super::joint`].
//!
//! Softness is the same as the iterative rows': the soft step's coefficients do not
//! depend on the mass, so `Δλ = −mass_scale K⁻¹ (J v + bias_rate C) − impulse_scale λ`
//! is the block form of the scalar update, and the relax pass is rigid. The factors are
//! built once per substep (in the solve pass, from the current anchors) and reused by the
//! relax pass. Arithmetic is `f64`: the blocks mix masses and inertias of bodies a
//! hundred times apart.

use super::block::{Block, MAX};
use super::{BodyState, SolverBodies, StepContext};
use crate::id::NULL;
use crate::joint::{JointData, JointImpulses};
use glam::{Mat3, Quat, Vec3};
use std::collections::HashMap;
use std::ops::Range;

/// One joint of a tree as the topology found it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TreeJoint {
    pub slot: u32,
    /// Body A is the side nearer the root (found first).
    pub parent_is_a: bool,
}

/// Which live ball joints form trees, found from the joint graph. Rebuilt when joints are
/// created, removed or change kind.
#[derive(Default)]
pub(crate) struct TreeTopology {
    /// Every tree's joints, tree after tree, each in breadth-first order from its root.
    pub joints: Vec<TreeJoint>,
    pub trees: Vec<Range<usize>>,
    /// Joint slot -> member of a tree.
    pub in_tree: Vec<bool>,
}

impl TreeTopology {
    /// Finds the trees among the live ball joints (`ball(slot)`), with at least two joints
    /// each; `dynamic(body)` tells which body slots move under impulses.
    pub fn build(
        joints: &[JointData],
        ball: impl Fn(usize) -> bool,
        dynamic: impl Fn(u32) -> bool,
        body_joints: &[Vec<u32>],
    ) -> Self {
        let mut topo = TreeTopology {
            in_tree: vec![false; joints.len()],
            ..Default::default()
        };
        let mut seen_joint = vec![false; joints.len()];
        let mut seen_body = vec![false; body_joints.len()];
        let mut queue = Vec::new();
        let mut found = Vec::new();
        for slot in 0..joints.len() {
            if seen_joint[slot] || !ball(slot) {
                continue;
            }
            let j = &joints[slot];
            let root = if dynamic(j.body_a) {
                j.body_a
            } else {
                j.body_b
            };
            queue.clear();
            found.clear();
            queue.push(root);
            seen_body[root as usize] = true;
            let mut tree = true;
            let mut grounded = 0;
            let mut head = 0;
            while head < queue.len() {
                let body = queue[head];
                head += 1;
                for &k in &body_joints[body as usize] {
                    let k = k as usize;
                    if seen_joint[k] || !ball(k) {
                        continue;
                    }
                    seen_joint[k] = true;
                    let d = &joints[k];
                    let parent_is_a = d.body_a == body;
                    found.push(TreeJoint {
                        slot: k as u32,
                        parent_is_a,
                    });
                    let other = if parent_is_a { d.body_b } else { d.body_a };
                    if dynamic(other) {
                        if seen_body[other as usize] {
                            tree = false;
                        } else {
                            seen_body[other as usize] = true;
                            queue.push(other);
                        }
                    } else {
                        // A second joint to the static world closes a loop through it
                        // (two ball joints on one body, a taut rope between two posts):
                        // its rows can be dependent, which the direct solve cannot take.
                        grounded += 1;
                        tree &= grounded <= 1;
                    }
                }
            }
            if tree && found.len() >= 2 {
                let start = topo.joints.len();
                for t in &found {
                    topo.in_tree[t.slot as usize] = true;
                }
                topo.joints.extend_from_slice(&found);
                topo.trees.push(start..topo.joints.len());
            }
        }
        topo
    }
}

#[derive(Clone, Copy, Debug)]
struct BodyNode {
    /// Dense solver index.
    k: u32,
    m: f32,
    i: Mat3,
    /// Mass and world inertia (the body's `H` block).
    mass: f64,
    inertia: Mat3,
    /// The body's node.
    node: usize,
}

#[derive(Clone, Copy, Debug)]
struct JointNode {
    slot: u32,
    /// Dense solver indices of A and B, [`NULL`] for static.
    a: u32,
    b: u32,
    /// Tree body indices of A and B when they are dynamic members.
    node_a: Option<usize>,
    node_b: Option<usize>,
    /// A joint to a static (or kinematic) body is merged into its body's node, at this
    /// row offset; joints between two tree bodies have their own node (offset 0).
    offset: usize,
    r_a0: Vec3,
    r_b0: Vec3,
    delta_center: Vec3,
    impulse: Vec3,
    /// Anchors of the current substep.
    r_a: Vec3,
    r_b: Vec3,
}

/// `H` node: a body (6 rows, plus 3 per merged joint to a static body) or a joint between
/// two tree bodies (3 rows), its parent in the tree, its factor.
#[derive(Clone, Copy, Debug)]
struct Node {
    /// Index in `bodies` or `joints`.
    body: bool,
    index: usize,
    rows: usize,
    parent: usize,
}

const ROOT: usize = usize::MAX;

/// One tree prepared for a step.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tree {
    bodies: Vec<BodyNode>,
    joints: Vec<JointNode>,
    /// Parents before children (root first); the factor runs it backwards.
    nodes: Vec<Node>,
    /// Each node's joints merged into it (joints to static bodies), as (node, joint).
    merged: Vec<(usize, usize)>,
    /// Per node: `D` while factoring, `D⁻¹`, and `H_{i, parent}`.
    d: Vec<Block>,
    dinv: Vec<Block>,
    hp: Vec<Block>,
    /// Scratch of [`solve_k`](Self::solve_k), kept between passes.
    y: Vec<[f64; MAX]>,
    x: Vec<[f64; MAX]>,
}

impl Tree {
    /// Prepares the tree of `tree` joints; `None` when a body cannot be part of the
    /// direct solve (no mass, locked rotation, more than two joints to static bodies), in
    /// which case its joints are solved iteratively this step.
    pub fn prepare(
        tree: &[TreeJoint],
        joints: &[JointData],
        sb: &SolverBodies,
        positions: &[Vec3],
        rotations: &[Quat],
    ) -> Option<Self> {
        let mut t = Tree::default();
        let body_node = |t: &mut Tree, slot: u32, parent: usize| -> Option<usize> {
            let k = sb.index[slot as usize];
            let m = &sb.mass[k as usize];
            let inertia = m.inv_inertia.inverse();
            if m.inv_mass <= 0.0 || !inertia.is_finite() || m.inv_inertia.determinant() <= 0.0 {
                return None;
            }
            t.nodes.push(Node {
                body: true,
                index: t.bodies.len(),
                rows: 6,
                parent,
            });
            t.bodies.push(BodyNode {
                k,
                m: m.inv_mass,
                i: m.inv_inertia,
                mass: 1.0 / m.inv_mass as f64,
                inertia,
                node: t.nodes.len() - 1,
            });
            Some(t.bodies.len() - 1)
        };
        // Body slot -> tree body.
        let mut body_of_slot: HashMap<u32, usize> = HashMap::new();
        let first = &joints[tree[0].slot as usize];
        let root = if tree[0].parent_is_a {
            first.body_a
        } else {
            first.body_b
        };
        body_node(&mut t, root, ROOT)?;
        body_of_slot.insert(root, 0);
        for tj in tree {
            let j = &joints[tj.slot as usize];
            let (parent_slot, child_slot) = if tj.parent_is_a {
                (j.body_a, j.body_b)
            } else {
                (j.body_b, j.body_a)
            };
            let parent_body = *body_of_slot.get(&parent_slot)?;
            let parent_node = t.bodies[parent_body].node;
            let (ka, kb) = (sb.index[j.body_a as usize], sb.index[j.body_b as usize]);
            let ji = t.joints.len();
            t.joints.push(JointNode {
                slot: tj.slot,
                a: ka,
                b: kb,
                node_a: None,
                node_b: None,
                offset: 0,
                r_a0: rotations[j.body_a as usize] * j.def.frame_a.p,
                r_b0: rotations[j.body_b as usize] * j.def.frame_b.p,
                delta_center: positions[j.body_b as usize] - positions[j.body_a as usize],
                impulse: j.impulses.linear,
                r_a: Vec3::ZERO,
                r_b: Vec3::ZERO,
            });
            let child_k = sb.index[child_slot as usize];
            let child_dynamic = child_k != NULL && sb.mass[child_k as usize].inv_mass > 0.0;
            let child_body = if child_dynamic {
                t.nodes.push(Node {
                    body: false,
                    index: ji,
                    rows: 3,
                    parent: parent_node,
                });
                let joint_node = t.nodes.len() - 1;
                let b = body_node(&mut t, child_slot, joint_node)?;
                body_of_slot.insert(child_slot, b);
                Some(b)
            } else {
                // A leaf joint to a static body has a zero block of its own: it joins its
                // body's node, whose block [M −Jᵀ; −J 0] is invertible.
                let node = &mut t.nodes[parent_node];
                if node.rows + 3 > MAX {
                    return None;
                }
                t.joints[ji].offset = node.rows;
                node.rows += 3;
                t.merged.push((parent_node, ji));
                None
            };
            let jn = &mut t.joints[ji];
            if tj.parent_is_a {
                (jn.node_a, jn.node_b) = (Some(parent_body), child_body);
            } else {
                (jn.node_a, jn.node_b) = (child_body, Some(parent_body));
            }
        }
        Some(t)
    }

    fn state(states: &[BodyState], k: u32) -> BodyState {
        if k == NULL {
            BodyState::IDENTITY
        } else {
            states[k as usize]
        }
    }

    /// `J` of joint `j` on its side `a` (true) or b: `[−E, [r_A]]` or `[E, −[r_B]]`.
    fn jacobian(j: &JointNode, side_a: bool) -> [[f64; 6]; 3] {
        let (s, r) = if side_a { (-1.0, j.r_a) } else { (1.0, j.r_b) };
        let r = r.as_dvec3();
        // −s [r]: [r] = [[0, −z, y], [z, 0, −x], [−y, x, 0]].
        [
            [s, 0.0, 0.0, 0.0, s * r.z, -s * r.y],
            [0.0, s, 0.0, -s * r.z, 0.0, s * r.x],
            [0.0, 0.0, s, s * r.y, -s * r.x, 0.0],
        ]
    }

    /// Updates the anchors from the bodies' delta rotations.
    fn update_anchors(&mut self, states: &[BodyState]) {
        for j in &mut self.joints {
            j.r_a = Self::state(states, j.a).dq * j.r_a0;
            j.r_b = Self::state(states, j.b).dq * j.r_b0;
        }
    }

    /// Factors `H` at the current anchors.
    fn factor(&mut self) {
        // `D` starts as `H_ii`; the children's terms are subtracted as they are eliminated.
        let count = self.nodes.len();
        // Blocks kept from an earlier tree (see `Tree::reuse`) hold stale entries: every
        // block is reset, inverted into or left unread (a root's `hp`) before it is read,
        // so only missing ones are made.
        for v in [&mut self.d, &mut self.dinv, &mut self.hp] {
            if v.len() < count {
                v.resize(count, Block::zero(0, 0));
            }
        }
        for (n, m) in self.nodes.iter().zip(&mut self.d) {
            m.reset(n.rows, n.rows);
            if n.body {
                let b = &self.bodies[n.index];
                for i in 0..3 {
                    m.set(i, i, b.mass);
                    for c in 0..3 {
                        m.set(3 + i, 3 + c, b.inertia.col(c)[i] as f64);
                    }
                }
            }
        }
        for &(node, ji) in &self.merged {
            let j = &self.joints[ji];
            let body = self.nodes[node].index;
            let jac = Self::jacobian(j, j.node_a == Some(body));
            let m = &mut self.d[node];
            for (r, row) in jac.iter().enumerate() {
                for (c, &x) in row.iter().enumerate() {
                    m.set(j.offset + r, c, -x);
                    m.set(c, j.offset + r, -x);
                }
            }
        }
        for i in (0..count).rev() {
            let Node {
                body,
                index,
                rows,
                parent,
            } = self.nodes[i];
            self.d[i].inverse_into(&mut self.dinv[i]);
            if parent == ROOT {
                continue;
            }
            // `H_{i,p}`: −J between the joint and its parent body, or −Jᵀ between the body
            // and its parent joint (rows or columns past 6 belong to merged joints: zero).
            let hp = &mut self.hp[i];
            if body {
                let j = &self.joints[self.nodes[parent].index];
                let jac = Self::jacobian(j, j.node_a == Some(index));
                hp.reset(rows, 3);
                for (c, row) in jac.iter().enumerate() {
                    for (r, &x) in row.iter().enumerate() {
                        hp.set(r, c, -x);
                    }
                }
            } else {
                let j = &self.joints[index];
                let p = &self.nodes[parent];
                let jac = Self::jacobian(j, j.node_a == Some(p.index));
                hp.reset(3, p.rows);
                for (r, row) in jac.iter().enumerate() {
                    for (c, &x) in row.iter().enumerate() {
                        hp.set(r, c, -x);
                    }
                }
            }
            let (hp, dinv) = (&self.hp[i], &self.dinv[i]);
            self.d[parent].sub_congruence(hp, dinv);
        }
    }

    /// `K⁻¹ c` for every joint (`c` per joint in, `Δλ` per joint out).
    fn solve_k(&mut self, c: &mut [Vec3]) {
        let (mut y, mut x) = (std::mem::take(&mut self.y), std::mem::take(&mut self.x));
        y.clear();
        y.extend(self.nodes.iter().map(|n| {
            let mut v = [0.0; MAX];
            if !n.body {
                let x = c[n.index];
                v[..3].copy_from_slice(&[-x.x as f64, -x.y as f64, -x.z as f64]);
            }
            v
        }));
        for &(node, ji) in &self.merged {
            let (x, o) = (c[ji], self.joints[ji].offset);
            y[node][o..o + 3].copy_from_slice(&[-x.x as f64, -x.y as f64, -x.z as f64]);
        }
        for i in (0..self.nodes.len()).rev() {
            let n = &self.nodes[i];
            if n.parent != ROOT {
                let t = self.hp[i].mul_transpose(&self.dinv[i].mul(&y[i]));
                let p = &mut y[n.parent];
                for (p, t) in p.iter_mut().zip(t) {
                    *p -= t;
                }
            }
        }
        // Parents come before their children, so `x` grows in node order.
        x.clear();
        for i in 0..self.nodes.len() {
            let n = &self.nodes[i];
            let mut r = y[i];
            if n.parent != ROOT {
                let h = self.hp[i].mul(&x[n.parent]);
                for (r, h) in r.iter_mut().zip(h) {
                    *r -= h;
                }
            }
            x.push(self.dinv[i].mul(&r));
            if !n.body {
                c[n.index] = Vec3::new(x[i][0] as f32, x[i][1] as f32, x[i][2] as f32);
            }
        }
        for &(node, ji) in &self.merged {
            let (x, o) = (&x[node], self.joints[ji].offset);
            c[ji] = Vec3::new(x[o] as f32, x[o + 1] as f32, x[o + 2] as f32);
        }
        (self.y, self.x) = (y, x);
    }

    fn apply(&self, states: &mut [BodyState], j: &JointNode, p: Vec3) {
        for (node, r, sign) in [(j.node_a, j.r_a, -1.0f32), (j.node_b, j.r_b, 1.0)] {
            if let Some(n) = node {
                let b = &self.bodies[n];
                let s = &mut states[b.k as usize];
                s.v += (sign * b.m) * p;
                s.w += b.i * (sign * r.cross(p));
            }
        }
    }

    /// Applies the accumulated impulses again (start of every substep).
    pub fn warm_start(&self, states: &mut [BodyState]) {
        for j in &self.joints {
            let mut j = *j;
            j.r_a = Self::state(states, j.a).dq * j.r_a0;
            j.r_b = Self::state(states, j.b).dq * j.r_b0;
            self.apply(states, &j, j.impulse);
        }
    }

    /// One pass over all the tree's joints at once: with bias (`use_bias`, which also
    /// refactors for the substep's anchors) or rigid.
    pub fn solve(&mut self, states: &mut [BodyState], ctx: &StepContext, use_bias: bool) {
        // The relax pass keeps the solve pass's anchors and factors: `K` is badly
        // conditioned for large mass ratios, and a relax with moved anchors but the old
        // factors lets a chain stretch far more.
        if use_bias {
            self.update_anchors(states);
            self.factor();
        }
        let (bias_rate, mass_scale, impulse_scale) = if use_bias {
            let s = ctx.joint_softness;
            (s.bias_rate, s.mass_scale, s.impulse_scale)
        } else {
            (0.0, 1.0, 0.0)
        };
        let mut c: Vec<Vec3> = self
            .joints
            .iter()
            .map(|j| {
                let (sa, sb) = (Self::state(states, j.a), Self::state(states, j.b));
                let d = j.delta_center + (sb.dp - sa.dp) + (j.r_b - j.r_a);
                let cdot = sb.v + sb.w.cross(j.r_b) - sa.v - sa.w.cross(j.r_a);
                cdot + bias_rate * d
            })
            .collect();
        self.solve_k(&mut c);
        for (k, x) in c.iter().enumerate() {
            let j = self.joints[k];
            let p = -mass_scale * *x - impulse_scale * j.impulse;
            self.joints[k].impulse += p;
            self.apply(states, &j, p);
        }
    }

    /// Takes `old`'s factor blocks and solve scratch for this tree: a tree is prepared
    /// every step, and making its blocks anew (1 KB each, three a node) was a large share
    /// of a chain's step (`docs/decisions.md`, "Ball-joint trees' blocks kept between
    /// steps").
    pub fn reuse(&mut self, old: &mut Tree) {
        self.d = std::mem::take(&mut old.d);
        self.dinv = std::mem::take(&mut old.dinv);
        self.hp = std::mem::take(&mut old.hp);
        self.y = std::mem::take(&mut old.y);
        self.x = std::mem::take(&mut old.x);
    }

    /// Each joint's slot and accumulated impulse.
    pub fn impulses(&self) -> impl Iterator<Item = (u32, JointImpulses)> + '_ {
        self.joints.iter().map(|j| {
            (
                j.slot,
                JointImpulses {
                    linear: j.impulse,
                    ..JointImpulses::default()
                },
            )
        })
    }
}

#[cfg(test)]
mod tests;
