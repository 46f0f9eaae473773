//! Graph colouring of the contact constraints.
//!
//! Each colour owns a bitset over the solver's bodies; a constraint takes a colour where
//! neither of its dynamic bodies is already taken. Within a colour no two constraints
//! share a dynamic body, so they can be solved in any order, in SIMD lanes or on several
//! threads, and the result is the same. Static and kinematic bodies never block a colour
//! (they are only read). As in Box2D v3: constraints between two dynamic bodies take the
//! first free colour among the first `DYNAMIC_COLORS`; constraints with one static side
//! search from the last colour down, so they are solved last (less push-through of the
//! ground into the stack). What fits nowhere goes to the overflow set, solved serially.
//!
//! The colouring is rebuilt every step from the constraint order (contact order), so it
//! depends on the scene only, never on the thread count. (Persisting colours across steps,
//! updating only the bits of added and removed constraints, is the next refinement; the
//! rebuild costs ~0.1 ms for 30,000 constraints here.)

use crate::broadphase::NULL;

/// Number of colours.
pub(crate) const COLORS: usize = 24;
/// Colours open to constraints between two dynamic bodies.
const DYNAMIC_COLORS: usize = 20;

/// Colours of the current step: for each colour the constraint indices, then the overflow.
#[derive(Default)]
pub(crate) struct Coloring {
    bits: Vec<u64>,
    words: usize,
    /// Constraint indices per colour, in constraint order.
    pub colors: Vec<Vec<u32>>,
    /// Constraints that fit no colour.
    pub overflow: Vec<u32>,
}

impl Coloring {
    #[inline]
    fn is_set(&mut self, color: usize, body: u32) -> bool {
        let w = color * self.words + (body as usize >> 6);
        let bit = 1u64 << (body & 63);
        self.bits[w] & bit != 0
    }

    #[inline]
    fn set(&mut self, color: usize, body: u32) {
        let w = color * self.words + (body as usize >> 6);
        self.bits[w] |= 1u64 << (body & 63);
    }

    /// Colours the constraints whose dynamic bodies are `pairs` ([`NULL`] for a side that
    /// is static or kinematic), for a solver with `body_count` movable bodies.
    pub fn build(&mut self, pairs: &[[u32; 2]], body_count: usize) {
        self.words = body_count.div_ceil(64);
        self.bits.clear();
        self.bits.resize(COLORS * self.words, 0);
        self.colors.resize_with(COLORS, Vec::new);
        self.colors.iter_mut().for_each(Vec::clear);
        self.overflow.clear();
        'next: for (k, &[a, b]) in pairs.iter().enumerate() {
            let a = (a != NULL).then_some(a);
            let b = (b != NULL).then_some(b);
            match (a, b) {
                (Some(a), Some(b)) => {
                    for color in 0..DYNAMIC_COLORS {
                        if !self.is_set(color, a) && !self.is_set(color, b) {
                            self.set(color, a);
                            self.set(color, b);
                            self.colors[color].push(k as u32);
                            continue 'next;
                        }
                    }
                }
                (Some(x), None) | (None, Some(x)) => {
                    for color in (0..COLORS).rev() {
                        if !self.is_set(color, x) {
                            self.set(color, x);
                            self.colors[color].push(k as u32);
                            continue 'next;
                        }
                    }
                }
                (None, None) => {}
            }
            self.overflow.push(k as u32);
        }
    }

    /// Number of colours in use.
    pub fn used(&self) -> usize {
        self.colors.iter().filter(|c| !c.is_empty()).count()
    }

    /// Checks that no dynamic body appears twice within a colour (the `validate` feature
    /// runs it every step). Returns the first offending (colour, body) if any.
    #[cfg_attr(not(feature = "validate"), allow(dead_code))]
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
