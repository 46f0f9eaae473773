//! Box face clipping and the box feature ids. Face contact: clip the incident face against
//! the reference face's side planes (Sutherland-Hodgman), tracking which features every
//! clipped vertex comes from. (The edge contact, the closest points of two edges, is in
//! `box_box.rs`.)
//!
//! Feature ids (Gregorius GDC 2015, Box2D's clip-vertex ids carried to 3D): a face contact
//! point is always the meeting of one feature of each box, of three kinds (incident feature,
//! reference feature):
//!
//! - an incident vertex inside the reference face: (vertex, face);
//! - an incident edge crossing a reference side plane: (edge, edge), the reference edge being
//!   the one between the reference face and that side face;
//! - a reference face corner inside the incident face: (face, vertex).
//!
//! The single edge-edge point of an edge axis is an (edge, edge) pair too.
//!
//! Each box feature has a canonical code ([`vertex_code`], [`edge_code`], [`face_code`]) that
//! depends only on the box, and the id packs the pair as `code_A | code_B << 8`. The id
//! therefore names the same contact whichever box is the reference: when a small box resting
//! on a large one tilts slightly, the reference face switches from the small box's bottom
//! (contact = its corners, clipped out of the large top face) to the large box's top (contact
//! = the small box's vertices), and the ids, hence the warm-start impulses, carry over.

use super::reduce::Candidate;
use super::tolerance::CLIP_SLOP;
use glam::{Mat3, Vec3};

/// Box feature codes: vertices 0..8, edges 8..20, faces 20..26 (fit in a byte).
///
/// Vertex: bit k set when on the + side along local axis k.
#[inline]
pub(super) fn vertex_code(pos: [bool; 3]) -> u8 {
    pos[0] as u8 | (pos[1] as u8) << 1 | (pos[2] as u8) << 2
}

/// Edge parallel to local axis `axis`: `8 + 4 axis + s1 + 2 s2`, `s1`, `s2` the sides along
/// the axes `axis + 1`, `axis + 2` (mod 3). `pos[axis]` is ignored.
#[inline]
pub(super) fn edge_code(axis: usize, pos: [bool; 3]) -> u8 {
    8 + 4 * axis as u8 + pos[(axis + 1) % 3] as u8 + 2 * pos[(axis + 2) % 3] as u8
}

/// Face with outward normal `±axis`: `20 + 2 axis + (1 if +)`.
#[inline]
pub(super) fn face_code(axis: usize, positive: bool) -> u8 {
    20 + 2 * axis as u8 + positive as u8
}

/// A manifold id from the features of A and B.
#[inline]
pub(super) fn pair_id(code_a: u8, code_b: u8) -> u32 {
    code_a as u32 | (code_b as u32) << 8
}

/// Room for the clipped polygon: each pass adds at most one vertex to a convex polygon, so a
/// quad clipped by 4 planes has at most 8. The rest is margin for rounding-made slivers; a
/// full buffer drops vertices rather than panicking.
pub(super) const MAX_CLIP: usize = 16;

/// The edge a clip vertex's polygon edge lies on: 0..4 an incident face edge, 4..8 a side
/// plane of the reference face.
type EdgeFeature = u8;
const SIDE: EdgeFeature = 4;

/// A polygon vertex with the features of its incoming and outgoing polygon edges: two
/// incident edges = an incident vertex, one of each = an edge crossing, two side planes = a
/// reference corner.
#[derive(Clone, Copy, Default)]
struct ClipVertex {
    p: Vec3,
    fin: EdgeFeature,
    fout: EdgeFeature,
}

/// A fixed-capacity list of candidates whose ids stay unique (no allocation).
pub(super) struct Candidates {
    pub items: [Candidate; MAX_CLIP],
    pub len: usize,
}

impl Candidates {
    pub fn new() -> Self {
        Self {
            items: [Candidate::default(); MAX_CLIP],
            len: 0,
        }
    }

    /// Adds `c`; on an id already present (only in degenerate, rounding-made polygons) keeps
    /// the deeper of the two.
    pub fn push(&mut self, c: Candidate) {
        for old in &mut self.items[..self.len] {
            if old.id == c.id {
                if c.separation < old.separation {
                    *old = c;
                }
                return;
            }
        }
        if self.len < MAX_CLIP {
            self.items[self.len] = c;
            self.len += 1;
        }
    }

    pub fn as_slice(&self) -> &[Candidate] {
        &self.items[..self.len]
    }
}

/// Side plane `s` (0..4) of the reference face on `axis`: the local axis it is normal to and
/// whether it is on the + side.
#[inline]
fn side_plane(axis: usize, s: u8) -> (usize, bool) {
    let k = if s < 2 {
        (axis + 1) % 3
    } else {
        (axis + 2) % 3
    };
    (k, s % 2 == 0)
}

/// One Sutherland-Hodgman pass: keep the part of `src` with `sign * p[k] <= limit`.
fn clip_side(
    src: &[ClipVertex],
    dst: &mut [ClipVertex; MAX_CLIP],
    k: usize,
    positive: bool,
    limit: f32,
    side: EdgeFeature,
) -> usize {
    let sign = if positive { 1.0 } else { -1.0 };
    let mut len = 0;
    let mut emit = |v: ClipVertex| {
        if len < MAX_CLIP {
            dst[len] = v;
            len += 1;
        }
    };
    for (m, &a) in src.iter().enumerate() {
        let b = src[(m + 1) % src.len()];
        let ga = sign * a.p[k] - limit;
        let gb = sign * b.p[k] - limit;
        let (a_in, b_in) = (ga <= 0.0, gb <= 0.0);
        if a_in {
            emit(a);
        }
        if a_in != b_in {
            // ga and gb have opposite signs (one may be zero): t is in [0, 1], no division by 0.
            let t = ga / (ga - gb);
            let mut p = a.p + (b.p - a.p) * t;
            // Snap onto the plane exactly: corners made by two planes come out exact, and a
            // flat face's points stay coplanar.
            p[k] = sign * limit;
            // Leaving: the polygon continues along the plane; entering: along a's edge.
            emit(if a_in {
                ClipVertex {
                    p,
                    fin: a.fout,
                    fout: side,
                }
            } else {
                ClipVertex {
                    p,
                    fin: side,
                    fout: a.fout,
                }
            });
        }
    }
    len
}

/// The face contact with the reference face on local `axis` (+ side if `positive`) of the
/// reference box (half extents `h_ref`, at the origin of its frame), against the incident box
/// (half extents `h_inc`, axes the columns of `rot`, centre `t`, all in the reference frame).
///
/// Appends to `out` the points (in the reference frame, halfway between the surfaces) whose
/// separation below the reference face is under `speculative`, with ids built as
/// `pair_id(A, B)` where A is the reference box when `ref_is_a`.
#[allow(clippy::too_many_arguments)]
pub(super) fn clip_face(
    h_ref: Vec3,
    h_inc: Vec3,
    rot: &Mat3,
    t: Vec3,
    axis: usize,
    positive: bool,
    ref_is_a: bool,
    speculative: f32,
    out: &mut Candidates,
) {
    let sr = if positive { 1.0 } else { -1.0 };
    let nr = Vec3::AXES[axis] * sr;

    // Incident face: the incident box's face most anti-parallel to the reference normal.
    let mut j = 0;
    let mut dj = nr.dot(rot.x_axis);
    for jj in 1..3 {
        let d = nr.dot(rot.col(jj));
        if d.abs() > dj.abs() {
            j = jj;
            dj = d;
        }
    }
    let inc_positive = dj < 0.0;
    let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
    let c = t + rot.col(j) * if inc_positive { h_inc[j] } else { -h_inc[j] };
    let u = rot.col(j1) * h_inc[j1];
    let v = rot.col(j2) * h_inc[j2];
    // Polygon vertex m lies on the j1/j2 sides below; edge m runs from vertex m to m + 1.
    const J1_POS: [bool; 4] = [true, false, false, true];
    const J2_POS: [bool; 4] = [true, true, false, false];
    let corners = [c + u + v, c - u + v, c - u - v, c + u - v];

    let mut buf_a = [ClipVertex::default(); MAX_CLIP];
    let mut buf_b = [ClipVertex::default(); MAX_CLIP];
    for (m, &p) in corners.iter().enumerate() {
        buf_a[m] = ClipVertex {
            p,
            fin: ((m + 3) % 4) as u8,
            fout: m as u8,
        };
    }
    let mut len = 4;
    for s in 0..4u8 {
        let (k, pos) = side_plane(axis, s);
        let limit = h_ref[k] + CLIP_SLOP;
        // A polygon inside the plane comes through the pass unchanged (an incident face
        // within the reference face, as a box resting on a larger one, passes all four):
        // skip it. The test is the pass's own, so the result is the same bit for bit.
        let sign = if pos { 1.0 } else { -1.0 };
        if buf_a[..len].iter().all(|v| sign * v.p[k] - limit <= 0.0) {
            continue;
        }
        len = clip_side(&buf_a[..len], &mut buf_b, k, pos, limit, SIDE + s);
        std::mem::swap(&mut buf_a, &mut buf_b);
        if len == 0 {
            return;
        }
    }

    // Feature codes of both boxes.
    let inc_signs = |m: usize| {
        let mut s = [false; 3];
        s[j] = inc_positive;
        s[j1] = J1_POS[m];
        s[j2] = J2_POS[m];
        s
    };
    let inc_vertex = |m: u8| vertex_code(inc_signs(m as usize));
    // Edge m joins vertices m and m + 1: along j1 for even m, along j2 for odd m.
    let inc_edge = |m: u8| edge_code(if m % 2 == 0 { j1 } else { j2 }, inc_signs(m as usize));
    let ref_signs = |side: EdgeFeature| {
        let (k, pos) = side_plane(axis, side - SIDE);
        let mut s = [false; 3];
        s[axis] = positive;
        s[k] = pos;
        (k, s)
    };
    let ref_edge = |side: EdgeFeature| {
        let (k, s) = ref_signs(side);
        edge_code(3 - axis - k, s)
    };

    for cv in &buf_a[..len] {
        let separation = sr * cv.p[axis] - h_ref[axis];
        if separation >= speculative {
            continue;
        }
        let (code_ref, code_inc) = match (cv.fin >= SIDE, cv.fout >= SIDE) {
            (false, false) => (face_code(axis, positive), inc_vertex(cv.fout)),
            (false, true) => (ref_edge(cv.fout), inc_edge(cv.fin)),
            (true, false) => (ref_edge(cv.fin), inc_edge(cv.fout)),
            (true, true) => {
                let (k0, mut s) = ref_signs(cv.fin);
                let (k1, s1) = ref_signs(cv.fout);
                if k0 == k1 {
                    // Opposite side planes cannot meet; only a rounding-made sliver gets here.
                    (ref_edge(cv.fin), face_code(j, inc_positive))
                } else {
                    s[k1] = s1[k1];
                    (vertex_code(s), face_code(j, inc_positive))
                }
            }
        };
        let id = if ref_is_a {
            pair_id(code_ref, code_inc)
        } else {
            pair_id(code_inc, code_ref)
        };
        out.push(Candidate {
            // The incident point is on the incident surface, its projection on the reference
            // face is `separation` below along `nr`: halfway is half of that.
            point: cv.p - nr * (0.5 * separation),
            separation,
            id,
        });
    }
}
