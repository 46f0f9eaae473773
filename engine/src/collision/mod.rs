//! Narrowphase: contact manifolds between pairs of shapes.
//!
//! Every pair function has the same signature (`CollideFn`) and is found through a
//! `[ShapeKind; ShapeKind]` table, so adding a shape means adding a row, not a trait.
//! Pairs are ordered so that `kind(a) <= kind(b)`; the manifold normal points from A to B.
//! Manifolds are computed in A's local frame from the relative transform (for precision far
//! from the origin) and returned in world space. Deep overlaps carry the minimum
//! translation that separates the shapes (see `deep.rs`).

pub(crate) mod box_box;
mod capsule;
mod clip;
mod deep;
pub(crate) mod gap;
pub(crate) mod gjk;
mod hull;
mod plane;
mod reduce;
mod sphere;
#[cfg(test)]
pub(crate) mod test_util;
pub(crate) mod toi;
mod tolerance;
pub(crate) mod triangle;

use crate::math::Transform;
use crate::mesh::Triangle;
use crate::shape::{Shape, ShapeKind};
use glam::Vec3;

pub use tolerance::Tolerance;

/// The most points a manifold holds.
pub const MAX_POINTS: usize = 4;

/// One contact point of a manifold.
///
/// `repr(C)`, with what the solver reads first (lever arms, separation, impulses) and what
/// only the narrowphase and the host read last: see [`Manifold`].
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct ManifoldPoint {
    /// Lever arm from body A's centre of mass to the point, world space, in m: what the
    /// solver uses. Set when the manifold is computed in full and frozen while it is
    /// recycled (see `contact::update_contact`).
    pub anchor_a: Vec3,
    /// Lever arm from body B's centre of mass to the point, world space, in m.
    pub anchor_b: Vec3,
    /// Signed distance between the surfaces along the normal, in m; negative when
    /// penetrating, positive for speculative points.
    pub separation: f32,
    /// Accumulated normal impulse of the last substep of the last step, in N·s (the warm
    /// start of every substep of the next): the load times the substep length.
    pub normal_impulse: f32,
    /// The largest normal impulse applied in any substep of the last step, in N·s.
    pub max_normal_impulse: f32,
    /// Feature id: stable while the same features touch, used to carry impulses over.
    pub id: u32,
    /// World-space contact point, halfway between the two surfaces, in m.
    pub point: Vec3,
}

impl ManifoldPoint {
    /// The eight floats the solver's prepare reads of the point, as they lie at its start:
    /// `anchor_a`, `anchor_b`, `separation`, `normal_impulse` (one vector load a point; see
    /// `ContactConstraintW::prepare`).
    #[inline(always)]
    pub(crate) fn solver_row(&self) -> &[f32; 8] {
        let all: &[f32; 13] = bytemuck::cast_ref(self);
        all[..8].try_into().expect("eight floats")
    }
}

// `solver_row`'s order: the solver's fields first, in that order.
const _: () = {
    use std::mem::offset_of;
    assert!(offset_of!(ManifoldPoint, anchor_a) == 0);
    assert!(offset_of!(ManifoldPoint, anchor_b) == 12);
    assert!(offset_of!(ManifoldPoint, separation) == 24);
    assert!(offset_of!(ManifoldPoint, normal_impulse) == 28);
    assert!(std::mem::size_of::<ManifoldPoint>() == 52);
};

/// A contact manifold: up to [`MAX_POINTS`] points sharing one normal.
///
/// `repr(C)`, laid out for the solver, which reads a contact's manifold out of memory
/// order (a cache miss per line): the normal, the friction impulses and the count first,
/// then the points, each with its solver fields first. In a contact (where the manifold
/// follows 24 bytes of bodies, flags and friction) everything the solver reads then lies
/// in the contact's first four lines (`contact.rs` checks it).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Manifold {
    /// World-space unit normal pointing from shape A to shape B.
    pub normal: Vec3,
    /// Accumulated twist friction impulse about the normal of the last step, in N·m·s.
    pub twist_impulse: f32,
    /// Accumulated friction impulse at the manifold centre of the last step, a world-space
    /// vector in N·s (kept as a vector so it survives the tangent basis turning with the normal).
    pub friction_impulse: Vec3,
    /// Number of points in use.
    pub count: usize,
    /// The points; only the first `count` are meaningful.
    pub points: [ManifoldPoint; MAX_POINTS],
}

impl Manifold {
    /// The points in use.
    #[inline]
    pub fn points(&self) -> &[ManifoldPoint] {
        &self.points[..self.count]
    }

    /// Appends a geometric point (impulses zero). Ignored when full.
    #[inline]
    pub(crate) fn push(&mut self, point: Vec3, separation: f32, id: u32) {
        if self.count < MAX_POINTS {
            self.points[self.count] = ManifoldPoint {
                point,
                separation,
                id,
                ..Default::default()
            };
            self.count += 1;
        }
    }
}

/// A manifold function: shapes A and B at their world poses; keep points whose separation
/// is below `tol.speculative` (m), bias the axis choice by `tol.linear_slop` (see
/// [`Tolerance`]); write the result into `out` (which arrives empty).
pub(crate) type CollideFn = fn(&Shape, &Transform, &Shape, &Transform, Tolerance, &mut Manifold);

const NONE: Option<CollideFn> = None;

/// The table's entry for a convex shape against a mesh or height field: such a pair is a
/// *parent* contact that is never collided whole; its triangles get child contacts, each
/// collided by [`collide_triangle`].
fn triangles_parent(
    _: &Shape,
    _: &Transform,
    _: &Shape,
    _: &Transform,
    _: Tolerance,
    _: &mut Manifold,
) {
}

const PARENT: Option<CollideFn> = Some(triangles_parent);

/// The pair dispatch table, indexed `[kind A][kind B]` with `kind A <= kind B`.
const TABLE: [[Option<CollideFn>; ShapeKind::COUNT]; ShapeKind::COUNT] = [
    [
        Some(sphere::sphere_sphere),
        Some(capsule::sphere_capsule),
        Some(sphere::sphere_box),
        Some(hull::sphere_hull),
        Some(plane::sphere_plane),
        PARENT,
        PARENT,
    ],
    [
        NONE,
        Some(capsule::capsule_capsule),
        Some(capsule::capsule_box),
        Some(hull::capsule_hull),
        Some(capsule::capsule_plane),
        PARENT,
        PARENT,
    ],
    [
        NONE,
        NONE,
        Some(box_box::box_box),
        Some(hull::box_hull),
        Some(plane::box_plane),
        PARENT,
        PARENT,
    ],
    [
        NONE,
        NONE,
        NONE,
        Some(hull::hull_hull),
        Some(hull::hull_plane),
        PARENT,
        PARENT,
    ],
    [NONE; ShapeKind::COUNT],
    [NONE; ShapeKind::COUNT],
    [NONE; ShapeKind::COUNT],
];

/// True when the pair of kinds (in either order) can produce contacts.
#[inline]
pub fn can_collide(a: ShapeKind, b: ShapeKind) -> bool {
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    TABLE[lo as usize][hi as usize].is_some()
}

/// The manifold of convex shape `a` at `xf_a` against triangle `tri` (in the frame of the
/// mesh at `xf_b`), normal from A to the triangle, with internal-edge handling (see
/// `triangle.rs`). Keeps the points whose separation is below `tol.speculative`; the axis
/// choice is biased by `tol.linear_slop` (see [`Tolerance`]).
pub fn collide_triangle(
    a: &Shape,
    xf_a: &Transform,
    tri: &Triangle,
    xf_b: &Transform,
    tol: Tolerance,
) -> Manifold {
    let mut m = Manifold::default();
    triangle::collide_triangle(a, xf_a, tri, xf_b, tol, &mut m);
    m
}

/// Computes the manifold of shapes `a` and `b` (which must satisfy `kind(a) <= kind(b)`).
/// Returns an empty manifold for pairs that cannot collide and for a convex shape against a
/// mesh or height field (use [`collide_triangle`] on its triangles). Keeps the points whose
/// separation is below `tol.speculative` (m); a world passes its speculative distance and
/// its `WorldDef::linear_slop` as `tol.linear_slop`, which biases the axis choice towards
/// face contacts (see [`Tolerance`]).
pub fn collide(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    tol: Tolerance,
) -> Manifold {
    let mut m = Manifold::default();
    collide_into(a, xf_a, b, xf_b, tol, &mut m);
    m
}

/// [`collide`] into `out`, which must be empty (`Manifold::default()`). The narrow phase
/// computes a contact's manifold in place: a manifold returned by value is copied with
/// wide loads right after the kernel's narrow stores to it, which the store buffer cannot
/// forward, and the copy waits for them (`docs/decisions.md`).
///
/// Returns the axis that kept two boxes apart when it found them so
/// ([`box_box::box_box_axis`], for the contact's next [`box_box::axis_separation`]), and
/// [`box_box::NO_AXIS`] for every other outcome and pair of kinds.
pub(crate) fn collide_into(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    tol: Tolerance,
    out: &mut Manifold,
) -> u8 {
    debug_assert!(a.kind() <= b.kind(), "pair must be ordered by kind");
    debug_assert!(out.count == 0, "collide_into needs an empty manifold");
    if let (Shape::Box { .. }, Shape::Box { .. }) = (a, b) {
        return box_box::box_box_axis(a, xf_a, b, xf_b, tol, out);
    }
    if let Some(f) = TABLE[a.kind() as usize][b.kind() as usize] {
        f(a, xf_a, b, xf_b, tol, out);
    }
    box_box::NO_AXIS
}

/// A manifold point in a state: its point, separation, id and lever arms, then its two
/// impulses unless the manifold's head byte marks them both zero (a speculative point's).
fn put_point(p: &ManifoldPoint, impulses: bool, w: &mut crate::codec::Writer<'_>) {
    w.put(&p.point);
    w.put(&p.separation);
    w.put(&p.id);
    w.put(&p.anchor_a);
    w.put(&p.anchor_b);
    if impulses {
        w.put(&p.normal_impulse);
        w.put(&p.max_normal_impulse);
    }
}

fn get_point(
    impulses: bool,
    r: &mut crate::codec::Reader<'_>,
) -> Result<ManifoldPoint, crate::error::Error> {
    let mut p = ManifoldPoint {
        point: r.get()?,
        separation: r.get()?,
        id: r.get()?,
        anchor_a: r.get()?,
        anchor_b: r.get()?,
        ..Default::default()
    };
    if impulses {
        p.normal_impulse = r.get()?;
        p.max_normal_impulse = r.get()?;
    }
    Ok(p)
}

/// A manifold is a head byte, its normal and impulses unless they are all zero (an idle
/// contact's), and its points (only the first `count`: the others are never read and are
/// zero). The head byte: the point count in bits 0-2, bit 3 + k set when point k's two
/// impulses are both zero (bit for bit; they are then not written), bit 7 set when the
/// normal and the manifold's impulses are zero.
impl crate::codec::Field for Manifold {
    fn put(&self, w: &mut crate::codec::Writer<'_>) {
        // Bit patterns, so a negative zero is written as it is.
        let zero3 = |v: Vec3| v.to_array().iter().all(|x| x.to_bits() == 0);
        let zero =
            zero3(self.normal) && zero3(self.friction_impulse) && self.twist_impulse.to_bits() == 0;
        let mut head = self.count as u8 | (zero as u8) << 7;
        for (k, p) in self.points().iter().enumerate() {
            if p.normal_impulse.to_bits() == 0 && p.max_normal_impulse.to_bits() == 0 {
                head |= 8 << k;
            }
        }
        w.put(&head);
        if !zero {
            w.put(&self.normal);
            w.put(&self.friction_impulse);
            w.put(&self.twist_impulse);
        }
        for (k, p) in self.points().iter().enumerate() {
            put_point(p, head & 8 << k == 0, w);
        }
    }
    fn get(r: &mut crate::codec::Reader<'_>) -> Result<Self, crate::error::Error> {
        let head: u8 = r.get()?;
        let count = (head & 7) as usize;
        if count > MAX_POINTS {
            return Err(r.error("holds a manifold with more than four points"));
        }
        if (head >> 3) & 15 & !((1u8 << count) - 1) != 0 {
            return Err(r.error("holds a manifold with flags of points past its count"));
        }
        let mut m = Manifold {
            count,
            ..Default::default()
        };
        if head & 0x80 == 0 {
            m.normal = r.get()?;
            m.friction_impulse = r.get()?;
            m.twist_impulse = r.get()?;
        }
        for (k, p) in m.points[..count].iter_mut().enumerate() {
            *p = get_point(head & 8 << k == 0, r)?;
        }
        Ok(m)
    }
}
