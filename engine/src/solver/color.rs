//! Graph colouring of the contact constraints, persistent across steps.
//!
//! Each colour owns a bitset over the bodies (by body slot); a constraint takes a colour
//! where neither of its dynamic bodies is already taken. Within a colour no two
//! constraints share a dynamic body, so they can be solved in any order, in SIMD lanes or
//! on several threads, and the result is the same. Static and kinematic bodies never
//! block a colour (they are only read). As in Box2D v3: constraints between two dynamic
//! bodies take the first free colour among the first `DYNAMIC_COLORS`; constraints with
//! one static side search from the last colour down, so they are solved last (less
//! push-through of the ground into the stack). What fits nowhere goes to the overflow
//! set, solved serially.
//!
//! A contact keeps its colour for as long as it touches: it is coloured when it begins
//! touching and its bits are released when it stops or is destroyed, so a step only
//! touches the bits of the constraints that changed. Both happen serially in contact
//! order, so the colours depend on the scene's history only, never on the thread count.
//! (Rebuilding every colour every step costs serial time on large scenes.)

use crate::collision::MAX_POINTS;
use crate::contact::INERTIA_SHIFT;
use crate::id::NULL;

/// Number of colours.
pub(crate) const COLORS: usize = 24;
/// Colours open to constraints between two dynamic bodies.
const DYNAMIC_COLORS: usize = 20;
pub(crate) use crate::contact::NO_COLOR;
/// A constraint that fit no colour: solved serially.
pub(crate) const OVERFLOW: u8 = COLORS as u8;

/// How many inertia groups each point count's group is split into: a constraint's
/// `points` key (see [`Coloring::list`]) carries its group above [`INERTIA_SHIFT`]. The
/// contact kernels multiply by an isotropic body's inverse inertia in three products
/// instead of fifteen when every lane of a batch has such bodies
/// (`wide::SymMat3W::mul_by`).
pub(crate) const INERTIA_GROUPS: usize = 2;

/// The groups of a colour's list.
const GROUPS: usize = MAX_POINTS * INERTIA_GROUPS;

/// Which of a constraint's two bodies hold a bit in its colour.
pub(crate) const SIDE_A: u8 = 1;
pub(crate) const SIDE_B: u8 = 2;

/// The colour bitsets, and this step's constraints listed per colour.
#[derive(Default)]
pub(crate) struct Coloring {
    /// Per colour, a bitset over body slots (grown on demand).
    bits: Vec<Vec<u64>>,
    /// Constraint indices per colour, the most points first, then in constraint order
    /// (rebuilt each step, see [`list`](Self::list)).
    pub colors: Vec<Vec<u32>>,
    /// Constraints that fit no colour.
    pub overflow: Vec<u32>,
    /// Each constraint's place in its colour's list ([`NULL`] for the overflow's).
    pub place: Vec<u32>,
    /// Per colour, where each group of [`list`](Self::list) ends: group `g` holds the
    /// constraints of `MAX_POINTS - g / INERTIA_GROUPS` points (the last points group also
    /// those of none), of inertia group `g % INERTIA_GROUPS`.
    group_ends: [[u32; GROUPS]; COLORS],
    /// The colours and point counts the lists were made from (see [`list`](Self::list));
    /// empty in a state just restored, whose lists are made again.
    listed: (Vec<u8>, Vec<u8>),
    /// Whether the last [`list`](Self::list) made the lists again (rather than keeping
    /// the last ones).
    pub relisted: bool,
}

impl Coloring {
    #[inline]
    fn is_set(&self, color: usize, body: u32) -> bool {
        let w = body as usize >> 6;
        self.bits[color]
            .get(w)
            .is_some_and(|word| word & (1u64 << (body & 63)) != 0)
    }

    #[inline]
    fn set(&mut self, color: usize, body: u32) {
        let w = body as usize >> 6;
        let bits = &mut self.bits[color];
        if bits.len() <= w {
            bits.resize(w + 1, 0);
        }
        bits[w] |= 1u64 << (body & 63);
    }

    #[inline]
    fn clear(&mut self, color: usize, body: u32) {
        let w = body as usize >> 6;
        debug_assert!(self.is_set(color, body), "releasing a bit that is not set");
        self.bits[color][w] &= !(1u64 << (body & 63));
    }

    /// Colours a constraint between body slots `a` and `b` ([`NULL`] for a side that is
    /// static or kinematic). Returns its colour ([`OVERFLOW`] if none is free) and which
    /// sides now hold a bit, for [`release`](Self::release).
    pub fn assign(&mut self, a: u32, b: u32) -> (u8, u8) {
        if self.bits.len() < COLORS {
            self.bits.resize_with(COLORS, Vec::new);
        }
        let a = (a != NULL).then_some(a);
        let b = (b != NULL).then_some(b);
        match (a, b) {
            (Some(a), Some(b)) => {
                for color in 0..DYNAMIC_COLORS {
                    if !self.is_set(color, a) && !self.is_set(color, b) {
                        self.set(color, a);
                        self.set(color, b);
                        return (color as u8, SIDE_A | SIDE_B);
                    }
                }
            }
            (Some(x), None) | (None, Some(x)) => {
                let side = if a.is_some() { SIDE_A } else { SIDE_B };
                for color in (0..COLORS).rev() {
                    if !self.is_set(color, x) {
                        self.set(color, x);
                        return (color as u8, side);
                    }
                }
            }
            (None, None) => {}
        }
        (OVERFLOW, 0)
    }

    /// Gives back the bits a constraint between body slots `a` and `b` took in `color`
    /// (`sides` as [`assign`](Self::assign) returned them).
    pub fn release(&mut self, color: u8, sides: u8, a: u32, b: u32) {
        if color == NO_COLOR || color == OVERFLOW {
            return;
        }
        if sides & SIDE_A != 0 {
            self.clear(color as usize, a);
        }
        if sides & SIDE_B != 0 {
            self.clear(color as usize, b);
        }
    }

    /// Lists this step's constraints per colour: constraint `k` has colour `colors[k]` and
    /// its manifold's `points[k] & 15` contact points, its bodies' inertia group in the
    /// bits above (see [`INERTIA_SHIFT`]).
    ///
    /// Within a colour the constraints with the most points come first, each point count
    /// by inertia group, each group in constraint order (a counting sort, two passes). A
    /// batch's point loop runs to its fullest lane, so a batch that mixed one box's four
    /// points with seven spheres' one would solve four points in every lane; grouped, it
    /// runs as many as its lanes hold, and a batch whose lanes are all of isotropic bodies
    /// takes the kernels' shorter products.
    /// No two constraints of a colour share a dynamic body, so their order within the
    /// colour does not change what any of them computes.
    ///
    /// The lists depend on `colors` and `points` alone, so the same two as last time keep
    /// the lists made then: a scene at rest keeps both from step to step, and comparing
    /// them costs a fraction of listing again (`docs/decisions.md`, "The lead").
    pub fn list(&mut self, colors: &[u8], points: &[u8]) {
        debug_assert_eq!(colors.len(), points.len());
        let listed = &mut self.listed;
        // (`place` is empty only before the first list, or when there is nothing to list.)
        if (colors, points) == (&listed.0[..], &listed.1[..]) && !self.place.is_empty() {
            self.relisted = false;
            return;
        }
        self.relisted = true;
        listed.0.clear();
        listed.0.extend_from_slice(colors);
        listed.1.clear();
        listed.1.extend_from_slice(points);
        let group = |key: u8| {
            let n = (key & ((1 << INERTIA_SHIFT) - 1)) as usize;
            let inertia = ((key >> INERTIA_SHIFT) as usize).min(INERTIA_GROUPS - 1);
            (MAX_POINTS - n.clamp(1, MAX_POINTS)) * INERTIA_GROUPS + inertia
        };
        // Per colour, the start of each group of constraints of equal point count and
        // inertia group.
        let mut starts = [[0u32; GROUPS]; COLORS];
        for (&color, &n) in colors.iter().zip(points) {
            if let Some(s) = starts.get_mut(color as usize) {
                s[group(n)] += 1;
            }
        }
        self.colors.resize_with(COLORS, Vec::new);
        for (list, s) in self.colors.iter_mut().zip(starts.iter_mut()) {
            let mut total = 0;
            for start in s.iter_mut() {
                (*start, total) = (total, total + *start);
            }
            list.clear();
            list.resize(total as usize, 0);
        }
        self.overflow.clear();
        self.place.clear();
        for (k, (&color, &n)) in colors.iter().zip(points).enumerate() {
            match starts.get_mut(color as usize) {
                Some(s) => {
                    let at = &mut s[group(n)];
                    self.colors[color as usize][*at as usize] = k as u32;
                    self.place.push(*at);
                    *at += 1;
                }
                None => {
                    self.overflow.push(k as u32);
                    self.place.push(NULL);
                }
            }
        }
        // Each group's start has moved to its end.
        self.group_ends = starts;
    }

    /// The most points of a manifold in `color`'s list from place `first` on, up to the
    /// next `W` (a batch's fullest lane: the groups run from the most points down).
    pub fn batch_points(&self, color: usize, first: usize) -> usize {
        let ends = &self.group_ends[color];
        let g = ends
            .iter()
            .take_while(|&&end| end as usize <= first)
            .count();
        MAX_POINTS - (g / INERTIA_GROUPS).min(MAX_POINTS - 1)
    }

    /// Number of colours in use.
    pub fn used(&self) -> usize {
        self.colors.iter().filter(|c| !c.is_empty()).count()
    }

    /// Checks that no dynamic body appears twice within a colour (the `validate` feature
    /// runs it every step). Returns the first offending (colour, body) if any.
    #[cfg_attr(not(any(test, feature = "validate")), allow(dead_code))]
    pub fn find_conflict(&self, pairs: &[[u32; 2]], body_count: usize) -> Option<(usize, u32)> {
        let mut seen = vec![usize::MAX; body_count];
        for (color, list) in self.colors.iter().enumerate() {
            for &k in list {
                for body in pairs[k as usize] {
                    if body != NULL {
                        if seen[body as usize] == color {
                            return Some((color, body));
                        }
                        seen[body as usize] = color;
                    }
                }
            }
        }
        None
    }
}

impl Coloring {
    /// Body slots the bitsets cover (the longest), for a restored state's check.
    pub fn body_count(&self) -> usize {
        self.bits.iter().map(|b| b.len() * 64).max().unwrap_or(0)
    }
}

// Each constraint's place is scratch of one step (listed again before it is read).
crate::codec::fields!(Coloring {
    bits,
    colors,
    overflow,
    ..
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::test_util::Rng;

    /// Constraints come and go at random; the live ones must always be properly coloured
    /// and the bitsets must hold exactly the live constraints' bits.
    #[test]
    fn assign_and_release_keep_colours_disjoint() {
        let mut rng = Rng::new(7);
        let bodies = 40u32;
        let mut coloring = Coloring::default();
        // (a, b, colour, sides) of the live constraints.
        let mut live: Vec<(u32, u32, u8, u8)> = Vec::new();
        for round in 0..2000 {
            if live.len() > 10 && rng.range(0.0, 1.0) < 0.45 {
                let i = (rng.range(0.0, live.len() as f32) as usize).min(live.len() - 1);
                let (a, b, color, sides) = live.swap_remove(i);
                coloring.release(color, sides, a, b);
            } else {
                let pick = |rng: &mut Rng| {
                    if rng.range(0.0, 1.0) < 0.2 {
                        NULL
                    } else {
                        (rng.range(0.0, bodies as f32) as u32).min(bodies - 1)
                    }
                };
                let a = pick(&mut rng);
                let mut b = pick(&mut rng);
                if a == b && a != NULL {
                    b = NULL;
                }
                let (color, sides) = coloring.assign(a, b);
                live.push((a, b, color, sides));
            }
            let colors: Vec<u8> = live.iter().map(|c| c.2).collect();
            let pairs: Vec<[u32; 2]> = live.iter().map(|c| [c.0, c.1]).collect();
            coloring.list(&colors, &vec![1; colors.len()]);
            assert_eq!(
                coloring.find_conflict(&pairs, bodies as usize),
                None,
                "round {round}"
            );
            // The bits are exactly those of the live constraints.
            for color in 0..COLORS {
                for body in 0..bodies {
                    let owners = live
                        .iter()
                        .filter(|c| {
                            c.2 as usize == color
                                && ((c.3 & SIDE_A != 0 && c.0 == body)
                                    || (c.3 & SIDE_B != 0 && c.1 == body))
                        })
                        .count();
                    assert_eq!(owners, coloring.is_set(color, body) as usize);
                }
            }
        }
    }

    #[test]
    fn lists_put_the_most_points_first_and_keep_each_place() {
        let mut coloring = Coloring::default();
        let colors = [0, 1, 0, 0, OVERFLOW, 0, 1, 0];
        let points = [1, 4, 4, 2, 3, 1, 1, 4];
        coloring.list(&colors, &points);
        assert_eq!(coloring.colors[0], [2, 7, 3, 0, 5]);
        assert_eq!(coloring.colors[1], [1, 6]);
        assert_eq!(coloring.overflow, [4]);
        for (k, &place) in coloring.place.iter().enumerate() {
            match coloring.colors.get(colors[k] as usize) {
                Some(list) => assert_eq!(list[place as usize], k as u32),
                None => assert_eq!(place, NULL),
            }
        }
        // Colour 0 is 4, 4, 2, 1, 1 points from place 0: a batch from place p holds at
        // most the points of the manifold at p.
        let firsts: Vec<usize> = (0..6).map(|p| coloring.batch_points(0, p)).collect();
        assert_eq!(firsts, [4, 4, 2, 1, 1, 1]);
        assert_eq!(coloring.batch_points(1, 0), 4);
        assert_eq!(coloring.batch_points(1, 1), 1);
        assert_eq!(coloring.batch_points(2, 0), 1);
    }

    /// Within a point count, the contacts of isotropic bodies come before the others
    /// (each group in contact order), and a batch's points are read from the point groups
    /// alone.
    #[test]
    fn lists_put_isotropic_pairs_first_within_a_point_count() {
        let general = 1 << INERTIA_SHIFT;
        let mut coloring = Coloring::default();
        let colors = [0, 0, 0, 0, 0, 0];
        let points = [4 | general, 4, 1, 1 | general, 4, 2 | general];
        coloring.list(&colors, &points);
        assert_eq!(coloring.colors[0], [1, 4, 0, 5, 2, 3]);
        let firsts: Vec<usize> = (0..7).map(|p| coloring.batch_points(0, p)).collect();
        assert_eq!(firsts, [4, 4, 4, 2, 1, 1, 1]);
    }

    /// The lists kept when the colours and points are the same as last time are the lists
    /// a fresh coloring makes of them; a change of either lists again.
    #[test]
    fn kept_lists_are_fresh_lists() {
        let fresh = |colors: &[u8], points: &[u8]| {
            let mut c = Coloring::default();
            c.list(colors, points);
            (c.colors, c.overflow, c.place, c.group_ends)
        };
        let mut kept = Coloring::default();
        let steps: [(&[u8], &[u8]); 5] = [
            (&[0, 1, 0, 0, OVERFLOW], &[1, 4, 4, 2, 3]),
            (&[0, 1, 0, 0, OVERFLOW], &[1, 4, 4, 2, 3]),
            (&[0, 1, 0, 0, OVERFLOW], &[4, 4, 4, 2, 3]),
            (&[1, 1, 0, 0, OVERFLOW], &[4, 4, 4, 2, 3]),
            (&[], &[]),
        ];
        for (colors, points) in steps {
            kept.list(colors, points);
            let now = (
                kept.colors.clone(),
                kept.overflow.clone(),
                kept.place.clone(),
                kept.group_ends,
            );
            assert_eq!(now, fresh(colors, points), "{colors:?} {points:?}");
        }
    }

    #[test]
    fn static_constraints_take_the_last_colours() {
        let mut coloring = Coloring::default();
        assert_eq!(coloring.assign(3, NULL), ((COLORS - 1) as u8, SIDE_A));
        assert_eq!(coloring.assign(NULL, 3), ((COLORS - 2) as u8, SIDE_B));
        assert_eq!(coloring.assign(3, 4), (0, SIDE_A | SIDE_B));
        assert_eq!(coloring.assign(NULL, NULL), (OVERFLOW, 0));
        // A body in every dynamic colour sends the next constraint to the overflow.
        let mut c = Coloring::default();
        for other in 0..DYNAMIC_COLORS as u32 {
            assert_eq!(c.assign(100, other).0, other as u8);
        }
        assert_eq!(c.assign(100, 99), (OVERFLOW, 0));
    }
}
