//! Static triangle meshes and height fields.
//!
//! A [`TriMesh`] keeps its triangles with a bounding-volume hierarchy over them: a binary
//! tree built by median split of the triangle centroids along the longest axis of their
//! bounds, flattened depth first into a `Vec` of 32-byte nodes (an interior node's left
//! child follows it, its right child is named; a leaf names a run of at most
//! [`LEAF_SIZE`] triangles in a permutation array). Median split rather than SAH: it is
//! simple, builds in `O(n log n)` with a bounded depth, and static level geometry is queried
//! with small boxes, where the difference is small.
//!
//! Active edges (as in Jolt): each triangle edge carries a flag. An edge shared with exactly
//! one neighbour is *inactive* when the two triangles are coplanar within
//! [`FLAT_ANGLE`] or meet concavely; a contact normal that comes from an inactive edge (or
//! from a vertex whose edges are all inactive) is replaced by the triangle's face normal,
//! so a box sliding across the seam of two flat triangles is not kicked up by the seam.
//! Boundary edges, edges shared by more than two triangles and convex edges are active.
//!
//! A [`HeightField`] is a grid of heights over the local x/z plane, two triangles per
//! cell, made on the fly from the heights (their active-edge flags, by the same rule, are
//! computed once); its queries walk the grid. [`Triangles`] puts both behind one interface for collision,
//! queries and continuous collision.

use crate::error::Error;
use crate::math::Aabb;
use crate::math::{is_finite3, MAX_LENGTH};
use glam::Vec3;
use std::collections::HashMap;

mod height_field;
pub use height_field::HeightField;

/// The most triangles a BVH leaf holds.
pub const LEAF_SIZE: usize = 4;

/// Two triangles sharing an edge count as coplanar when their normals differ by less than
/// this angle, in rad (about 2°).
pub const FLAT_ANGLE: f32 = 0.035;

/// A flattened BVH node: 32 bytes.
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct Node {
    min: [f32; 3],
    /// Leaf: the first entry in `order`; interior: the right child's index.
    index: u32,
    max: [f32; 3],
    /// Leaf: the number of triangles (> 0); interior: 0.
    count: u32,
}

const _: () = assert!(std::mem::size_of::<Node>() == 32);

impl Node {
    #[inline]
    fn aabb(&self) -> Aabb {
        Aabb {
            min: Vec3::from_array(self.min),
            max: Vec3::from_array(self.max),
        }
    }
}

/// One triangle of a mesh, in the mesh's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Triangle {
    /// Corners, counter-clockwise about [`Triangle::normal`].
    pub vertices: [Vec3; 3],
    /// Bit `i` set: edge `i` (from vertex `i` to vertex `i + 1 mod 3`) is active.
    pub active_edges: u8,
}

impl Triangle {
    /// The unit face normal (right-handed about the vertex order).
    pub fn normal(&self) -> Vec3 {
        let [a, b, c] = self.vertices;
        (b - a).cross(c - a).normalize_or_zero()
    }

    /// Whether edge `i` is active.
    #[inline]
    pub fn edge_active(&self, i: usize) -> bool {
        self.active_edges & (1 << i) != 0
    }

    /// Whether vertex `i` is active: one of its two edges is.
    #[inline]
    pub fn vertex_active(&self, i: usize) -> bool {
        self.edge_active(i) || self.edge_active((i + 2) % 3)
    }
}

/// A static triangle mesh with its bounding-volume hierarchy and active-edge flags.
/// Immutable once built; shared between shapes through an `Arc`.
#[derive(Clone, Debug, PartialEq)]
pub struct TriMesh {
    vertices: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    /// Per triangle, bit `i`: edge `i` is active.
    active: Vec<u8>,
    nodes: Vec<Node>,
    /// Triangle indices in leaf order.
    order: Vec<u32>,
}

impl PartialEq for Node {
    fn eq(&self, other: &Self) -> bool {
        bytemuck::bytes_of(self) == bytemuck::bytes_of(other)
    }
}

impl TriMesh {
    /// Builds a mesh from vertices (m, mesh frame) and triangles (three vertex indices each).
    /// Errors name the field: non-finite vertices or coordinates beyond
    /// [`MAX_LENGTH`], indices out of range, triangles of zero
    /// area, an empty mesh, or more than 2³¹ triangles.
    ///
    /// # Example
    /// ```
    /// use impetus::{BodyDef, BodyType, ShapeDef, TriMesh, Vec3, World, WorldDef};
    /// use std::sync::Arc;
    ///
    /// // A 4 m square floor of two triangles.
    /// let v = vec![
    ///     Vec3::new(-2.0, 0.0, -2.0),
    ///     Vec3::new(2.0, 0.0, -2.0),
    ///     Vec3::new(2.0, 0.0, 2.0),
    ///     Vec3::new(-2.0, 0.0, 2.0),
    /// ];
    /// let floor = Arc::new(TriMesh::new(v, vec![[0, 2, 1], [0, 3, 2]])?);
    /// let mut world = World::new(WorldDef { worker_count: 1, ..Default::default() })?;
    /// let ground = world.create_body(&BodyDef { body_type: BodyType::Static, ..Default::default() })?;
    /// world.add_shape(ground, &ShapeDef::mesh(floor))?;
    /// let crate_ = world.create_body(&BodyDef { position: Vec3::new(0.0, 1.0, 0.0), ..Default::default() })?;
    /// world.add_shape(crate_, &ShapeDef::cuboid(Vec3::splat(0.5)))?;
    /// for _ in 0..120 {
    ///     world.step(1.0 / 60.0)?;
    /// }
    /// let y = world.body_position(crate_)?.y;
    /// assert!((y - 0.5).abs() < 0.01, "the crate rests on the floor: y = {y}");
    /// # Ok::<(), impetus::Error>(())
    /// ```
    pub fn new(vertices: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> Result<TriMesh, Error> {
        if vertices.is_empty() {
            return Err(Error::invalid("TriMesh::vertices", "must not be empty"));
        }
        if triangles.is_empty() {
            return Err(Error::invalid("TriMesh::triangles", "must not be empty"));
        }
        if triangles.len() > (1 << 31) {
            return Err(Error::invalid(
                "TriMesh::triangles",
                "at most 2^31 triangles",
            ));
        }
        if !vertices.iter().all(|&v| is_finite3(v)) {
            return Err(Error::invalid("TriMesh::vertices", "must be finite"));
        }
        if vertices.iter().any(|v| v.abs().max_element() > MAX_LENGTH) {
            return Err(Error::invalid(
                "TriMesh::vertices",
                "every coordinate must lie within ±1e6 m (MAX_LENGTH)",
            ));
        }
        let n = vertices.len();
        for t in &triangles {
            if t.iter().any(|&i| i as usize >= n) {
                return Err(Error::invalid(
                    "TriMesh::triangles",
                    "a vertex index is out of range",
                ));
            }
            let [a, b, c] = t.map(|i| vertices[i as usize]);
            let cross = (b - a).cross(c - a);
            let scale = (b - a).length_squared().max((c - a).length_squared());
            if cross.length() <= 1.0e-6 * scale || scale == 0.0 {
                return Err(Error::invalid(
                    "TriMesh::triangles",
                    "a triangle has zero area",
                ));
            }
        }
        let active = active_edges(&vertices, &triangles);
        let mut mesh = TriMesh {
            vertices,
            triangles,
            active,
            nodes: Vec::new(),
            order: Vec::new(),
        };
        mesh.build_bvh();
        Ok(mesh)
    }

    /// The vertices, in m (mesh frame).
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// The triangles as vertex indices.
    pub fn triangle_indices(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// The number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.triangles.len()
    }

    /// Triangle `i` with its active-edge flags. Panics if `i` is out of range.
    #[inline]
    pub fn triangle(&self, i: u32) -> Triangle {
        let t = self.triangles[i as usize];
        Triangle {
            vertices: t.map(|v| self.vertices[v as usize]),
            active_edges: self.active[i as usize],
        }
    }

    /// The bounds of the whole mesh, in m (mesh frame).
    pub fn bounds(&self) -> Aabb {
        self.nodes[0].aabb()
    }

    /// Calls `f` with every triangle whose bounds overlap `aabb` (mesh frame), in tree
    /// order (sort the results where order matters).
    pub fn query_aabb(&self, aabb: &Aabb, mut f: impl FnMut(u32)) {
        let mut stack = [0u32; 64];
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let index = stack[top];
            let node = &self.nodes[index as usize];
            if !node.aabb().overlaps(aabb) {
                continue;
            }
            if node.count > 0 {
                for &t in &self.order[node.index as usize..(node.index + node.count) as usize] {
                    if triangle_aabb(&self.triangle(t)).overlaps(aabb) {
                        f(t);
                    }
                }
            } else if top + 2 <= stack.len() {
                stack[top] = node.index;
                stack[top + 1] = index + 1;
                top += 2;
            }
        }
    }

    /// The nearest hit of the ray `origin + t dir` (mesh frame, `dir` unit) with `t` in
    /// `[0, max_t]`, either side of the triangles: `(t, triangle, unit face normal facing
    /// the ray)`.
    pub fn ray(&self, origin: Vec3, dir: Vec3, max_t: f32) -> Option<(f32, u32, Vec3)> {
        let inv = Vec3::ONE / dir;
        let mut best: Option<(f32, u32, Vec3)> = None;
        let mut limit = max_t;
        let mut stack = [0u32; 64];
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let index = stack[top];
            let node = &self.nodes[index as usize];
            if !ray_hits_box(origin, inv, &node.aabb(), limit) {
                continue;
            }
            if node.count > 0 {
                for &t in &self.order[node.index as usize..(node.index + node.count) as usize] {
                    if let Some((s, n)) = ray_triangle(origin, dir, &self.triangle(t), limit) {
                        if best.is_none_or(|b| s < b.0 || (s == b.0 && t < b.1)) {
                            best = Some((s, t, n));
                            limit = s;
                        }
                    }
                }
            } else if top + 2 <= stack.len() {
                stack[top] = node.index;
                stack[top + 1] = index + 1;
                top += 2;
            }
        }
        best
    }

    fn build_bvh(&mut self) {
        let boxes: Vec<Aabb> = (0..self.triangles.len() as u32)
            .map(|t| triangle_aabb(&self.triangle(t)))
            .collect();
        let centroids: Vec<Vec3> = boxes.iter().map(|b| (b.min + b.max) * 0.5).collect();
        self.order = (0..self.triangles.len() as u32).collect();
        self.nodes = Vec::with_capacity(2 * self.triangles.len().div_ceil(LEAF_SIZE));
        let mut order = std::mem::take(&mut self.order);
        build(&mut self.nodes, &mut order, 0, &boxes, &centroids);
        self.order = order;
    }
}

/// Builds the subtree over `order[..]` (whose first entry sits at `offset` in the full
/// permutation), appending nodes depth first; returns the subtree's root index.
fn build(
    nodes: &mut Vec<Node>,
    order: &mut [u32],
    offset: usize,
    boxes: &[Aabb],
    centroids: &[Vec3],
) -> u32 {
    let mut bb = Aabb {
        min: Vec3::splat(f32::MAX),
        max: Vec3::splat(f32::MIN),
    };
    let (mut cmin, mut cmax) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for &t in order.iter() {
        let b = boxes[t as usize];
        bb.min = bb.min.min(b.min);
        bb.max = bb.max.max(b.max);
        cmin = cmin.min(centroids[t as usize]);
        cmax = cmax.max(centroids[t as usize]);
    }
    let index = nodes.len() as u32;
    nodes.push(Node {
        min: bb.min.to_array(),
        max: bb.max.to_array(),
        index: offset as u32,
        count: order.len() as u32,
    });
    if order.len() <= LEAF_SIZE {
        return index;
    }
    let extent = cmax - cmin;
    let axis = if extent.x >= extent.y && extent.x >= extent.z {
        0
    } else if extent.y >= extent.z {
        1
    } else {
        2
    };
    let mid = order.len() / 2;
    // Ties broken by triangle index: the tree depends on the input only.
    order.select_nth_unstable_by(mid, |&a, &b| {
        centroids[a as usize][axis]
            .total_cmp(&centroids[b as usize][axis])
            .then(a.cmp(&b))
    });
    let (lo, hi) = order.split_at_mut(mid);
    build(nodes, lo, offset, boxes, centroids);
    let right = build(nodes, hi, offset + mid, boxes, centroids);
    let node = &mut nodes[index as usize];
    node.count = 0;
    node.index = right;
    index
}

/// A triangle's bounds.
#[inline]
pub(crate) fn triangle_aabb(t: &Triangle) -> Aabb {
    let [a, b, c] = t.vertices;
    Aabb {
        min: a.min(b).min(c),
        max: a.max(b).max(c),
    }
}

/// Slab test of the ray `o + t d` (`inv = 1 / d`) against `bb` for `t` in `[0, max_t]`.
#[inline]
fn ray_hits_box(o: Vec3, inv: Vec3, bb: &Aabb, max_t: f32) -> bool {
    let t1 = (bb.min - o) * inv;
    let t2 = (bb.max - o) * inv;
    // NaN (0 · ∞ on a slab the ray lies in) must not reject: min/max skip NaN.
    let lo = t1.min(t2);
    let hi = t1.max(t2);
    let enter = lo.x.max(lo.y).max(lo.z).max(0.0);
    let exit = hi.x.min(hi.y).min(hi.z).min(max_t);
    enter <= exit
}

/// Möller–Trumbore, both sides: `(t, normal facing the ray)` for `t` in `[0, max_t]`.
pub(crate) fn ray_triangle(o: Vec3, d: Vec3, tri: &Triangle, max_t: f32) -> Option<(f32, Vec3)> {
    let [a, b, c] = tri.vertices;
    let (e1, e2) = (b - a, c - a);
    let p = d.cross(e2);
    let det = e1.dot(p);
    if det.abs() <= 1.0e-12 * e1.length_squared().max(e2.length_squared()) {
        return None;
    }
    let inv = 1.0 / det;
    let s = o - a;
    let u = s.dot(p) * inv;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = d.dot(q) * inv;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let t = e2.dot(q) * inv;
    if !(0.0..=max_t).contains(&t) {
        return None;
    }
    let n = e1.cross(e2).normalize_or_zero();
    Some((t, if n.dot(d) > 0.0 { -n } else { n }))
}

/// Whether an edge shared by two consistently wound triangles (unit normals `n1`, `n2`,
/// far corners `opp1`, `opp2`, `on_edge` a point of the edge) is active: not flat within
/// `acos(cos_flat)` and not concave.
#[inline]
fn shared_edge_active(
    n1: Vec3,
    n2: Vec3,
    on_edge: Vec3,
    opp1: Vec3,
    opp2: Vec3,
    cos_flat: f32,
) -> bool {
    let flat = n1.dot(n2) >= cos_flat;
    // Concave: each triangle's far vertex lies on the front side of the other's plane.
    let concave = n1.dot(opp2 - on_edge) > 0.0 && n2.dot(opp1 - on_edge) > 0.0;
    !(flat || concave)
}

/// The active-edge flags of every triangle (see the module docs).
fn active_edges(vertices: &[Vec3], triangles: &[[u32; 3]]) -> Vec<u8> {
    let mut edges: HashMap<(u32, u32), Vec<(u32, u8)>> = HashMap::new();
    for (t, tri) in triangles.iter().enumerate() {
        for i in 0..3 {
            let (a, b) = (tri[i], tri[(i + 1) % 3]);
            edges
                .entry((a.min(b), a.max(b)))
                .or_default()
                .push((t as u32, i as u8));
        }
    }
    let normal = |t: u32| {
        let [a, b, c] = triangles[t as usize].map(|i| vertices[i as usize]);
        (b - a).cross(c - a).normalize_or_zero()
    };
    let cos_flat = FLAT_ANGLE.cos();
    let mut active = vec![0b111u8; triangles.len()];
    for list in edges.values() {
        let &[(t1, i1), (t2, i2)] = list.as_slice() else {
            continue; // boundary or non-manifold: active
        };
        let (n1, n2) = (normal(t1), normal(t2));
        let tri1 = triangles[t1 as usize];
        let tri2 = triangles[t2 as usize];
        let on_edge = vertices[tri1[i1 as usize] as usize];
        let opp1 = vertices[tri1[(i1 as usize + 2) % 3] as usize];
        let opp2 = vertices[tri2[(i2 as usize + 2) % 3] as usize];
        // Consistently wound neighbours traverse the edge in opposite directions; with
        // flipped winding, flip the neighbour's normal to compare like with like.
        let consistent = tri1[i1 as usize] != tri2[i2 as usize];
        let n2 = if consistent { n2 } else { -n2 };
        if !shared_edge_active(n1, n2, on_edge, opp1, opp2, cos_flat) {
            active[t1 as usize] &= !(1 << i1);
            active[t2 as usize] &= !(1 << i2);
        }
    }
    active
}

/// The triangles of a mesh or a height field, behind one interface.
#[derive(Clone, Copy, Debug)]
pub enum Triangles<'a> {
    /// A triangle mesh.
    Mesh(&'a TriMesh),
    /// A height field.
    Field(&'a HeightField),
}

impl Triangles<'_> {
    /// The number of triangles.
    #[inline]
    pub fn triangle_count(&self) -> usize {
        match self {
            Triangles::Mesh(m) => m.triangle_count(),
            Triangles::Field(f) => f.triangle_count(),
        }
    }

    /// Triangle `i` (see [`TriMesh::triangle`], [`HeightField::triangle`]).
    #[inline]
    pub fn triangle(&self, i: u32) -> Triangle {
        match self {
            Triangles::Mesh(m) => m.triangle(i),
            Triangles::Field(f) => f.triangle(i),
        }
    }

    /// The bounds, in m (local frame).
    #[inline]
    pub fn bounds(&self) -> Aabb {
        match self {
            Triangles::Mesh(m) => m.bounds(),
            Triangles::Field(f) => f.bounds(),
        }
    }

    /// Calls `f` with the triangles whose bounds overlap `aabb` (local frame).
    #[inline]
    pub fn query_aabb(&self, aabb: &Aabb, f: impl FnMut(u32)) {
        match self {
            Triangles::Mesh(m) => m.query_aabb(aabb, f),
            Triangles::Field(h) => h.query_aabb(aabb, f),
        }
    }

    /// The nearest ray hit (see [`TriMesh::ray`]).
    #[inline]
    pub fn ray(&self, origin: Vec3, dir: Vec3, max_t: f32) -> Option<(f32, u32, Vec3)> {
        match self {
            Triangles::Mesh(m) => m.ray(origin, dir, max_t),
            Triangles::Field(f) => f.ray(origin, dir, max_t),
        }
    }
}

crate::codec::fields!(Node {
    min,
    index,
    max,
    count
});

/// A mesh in an image: vertices, triangles, active edges and the BVH as built (not rebuilt,
/// so every query comes out the same), checked on reading: indices in range, finite
/// numbers, and a tree whose traversal always moves forward (so it ends).
impl crate::codec::Field for TriMesh {
    fn put(&self, w: &mut crate::codec::Writer<'_>) {
        w.put(&self.vertices);
        w.put(&self.triangles);
        w.put(&self.active);
        w.put(&self.nodes);
        w.put(&self.order);
    }
    fn get(r: &mut crate::codec::Reader<'_>) -> Result<Self, Error> {
        let vertices: Vec<Vec3> = r.get()?;
        let triangles: Vec<[u32; 3]> = r.get()?;
        let active: Vec<u8> = r.get()?;
        let nodes: Vec<Node> = r.get()?;
        let order: Vec<u32> = r.get()?;
        let (nv, nt, nn) = (vertices.len(), triangles.len(), nodes.len());
        if nt == 0 || nt > 1 << 31 || nn == 0 || active.len() != nt {
            return Err(r.error("holds a mesh with no triangles, no tree or missing flags"));
        }
        if !vertices.iter().all(|&v| is_finite3(v))
            || !nodes
                .iter()
                .all(|n| n.min.iter().chain(&n.max).all(|x| x.is_finite()))
        {
            return Err(r.error("holds a mesh with a number that is not finite"));
        }
        let in_range = triangles.iter().flatten().all(|&v| (v as usize) < nv)
            && order.iter().all(|&t| (t as usize) < nt)
            && nodes.iter().enumerate().all(|(i, n)| {
                if n.count > 0 {
                    n.index as usize + n.count as usize <= order.len()
                } else {
                    // Interior: the left child follows, the right one comes after it.
                    i + 1 < nn && n.index as usize > i + 1 && (n.index as usize) < nn
                }
            });
        if !in_range {
            return Err(r.error("holds a mesh with an index out of range"));
        }
        Ok(TriMesh {
            vertices,
            triangles,
            active,
            nodes,
            order,
        })
    }
}

#[cfg(test)]
mod tests;
