//! Body states asked for ahead in the colour passes, where the other core wrote them last.
//!
//! At two threads the walking thread takes a stage's blocks from the front and the worker
//! from the back (`parallel::region`), the integrations' as the colours': a body of the
//! first half of the solver's order was last moved by the walking thread, and a contact in
//! the front half of its colour's list is solved there. Where a colour's list and the
//! bodies' order agree (a pyramid's contacts began in the order its boxes were made), each
//! core finds the states it needs in its own cache. Where they do not (rain's contacts are
//! listed in the order they began, its bodies in the order they fell), most of a batch's
//! states were last written by the other core, and every pass waits for them to come
//! across, colour after colour. Those colours ask for the next batch's states while one is
//! solved. A prefetch changes no result; on the colours that do not need it, it only costs
//! (`docs/decisions.md`, "Body states asked for ahead where the other core wrote them").

use super::super::contact_wide::StatesPtr;
use super::super::wide::W;
use crate::id::NULL;
use crate::parallel::DisjointPtr;
use std::ops::Range;

/// How many contact batches ahead a colour's passes ask for a batch's body states: the
/// next batch's was faster on rain at two threads than two, three or four batches on.
const AHEAD: usize = 1;

/// A colour asks for its bodies ahead once more than one lane in `REMOTE_SHARE` of its
/// contacts had a body on the other core's side when last counted.
const REMOTE_SHARE: u32 = 4;

/// Every how many steps (at two threads or more) prepare counts the lanes across: what
/// it decides changes slowly.
const COUNT_EVERY: u32 = 8;

/// Which colours ask for their bodies ahead, and the bodies they ask for.
#[derive(Default)]
pub(crate) struct BodiesAhead {
    /// Per colour, whether this step's passes ask (decided when last counted).
    now: Vec<bool>,
    /// The same, as the last count decided it.
    next: Vec<bool>,
    /// Scratch of a counting step: per contact batch, its lanes across.
    across: Vec<u8>,
    /// Steps prepared, for counting every [`COUNT_EVERY`].
    tick: u32,
    /// Whether this step counts.
    counted: bool,
    /// Per contact batch of an asking colour, its lanes' solver bodies (A's then B's,
    /// [`NULL`] for none); stale for the other colours.
    rows: Vec<[u32; 2 * W]>,
}

/// What prepare's workers write for [`BodiesAhead`], one contact batch each.
pub(crate) struct Recorder<'a> {
    /// Whether this step counts the lanes across.
    count: bool,
    /// Half the solver's bodies.
    half: usize,
    now: &'a [bool],
    across: DisjointPtr<u8>,
    rows: DisjointPtr<[u32; 2 * W]>,
}

impl BodiesAhead {
    /// Starts a step's prepare of `batches` contact batches in `colors` colours over
    /// `bodies` solver bodies, `parallel` when it runs on more than one thread.
    pub fn begin(
        &mut self,
        parallel: bool,
        colors: usize,
        batches: usize,
        bodies: usize,
    ) -> Recorder<'_> {
        self.tick = self.tick.wrapping_add(1);
        let count = parallel && self.tick % COUNT_EVERY == 0;
        self.counted = count;
        self.across.clear();
        if count {
            self.across.resize(batches, 0);
        }
        self.now.clear();
        if parallel {
            self.now.extend_from_slice(&self.next);
        }
        self.now.resize(colors, false);
        if self.now.contains(&true) {
            self.rows.resize(batches, [NULL; 2 * W]);
        }
        Recorder {
            count,
            half: bodies / 2,
            now: &self.now,
            across: DisjointPtr::new(&mut self.across),
            rows: DisjointPtr::new(&mut self.rows),
        }
    }

    /// Ends the step's prepare: where it counted, decides which colours ask from the next
    /// step on (each colour's list of contacts and its range of batches given); a step on
    /// one thread asks for nothing whatever was decided (see [`Self::begin`]).
    pub fn end(&mut self, lists: &[Vec<u32>], ranges: &[Range<usize>]) {
        if self.counted {
            self.next.clear();
            self.next
                .extend(lists.iter().zip(ranges).map(|(list, range)| {
                    let across: u32 = self.across[range.clone()]
                        .iter()
                        .map(|&n| u32::from(n))
                        .sum();
                    across * REMOTE_SHARE > list.len() as u32
                }));
        }
    }

    /// Colour `color`'s rows for its pass over its `range` of the step's batches, when it
    /// asks for its bodies ahead and the pass runs on parallel workers (`par`).
    pub fn rows(&self, color: usize, range: Range<usize>, par: bool) -> Option<Rows<'_>> {
        match self.now.get(color) {
            Some(true) if par => self.rows.get(range).map(Rows),
            _ => None,
        }
    }
}

/// One colour's rows of bodies, by batch (see [`BodiesAhead::rows`]).
#[derive(Clone, Copy)]
pub(crate) struct Rows<'a>(&'a [[u32; 2 * W]]);

impl Rows<'_> {
    /// Asks for the states of the batch [`AHEAD`] places after `batch`, for a write.
    #[inline]
    pub fn ask(self, batch: usize, states: StatesPtr) {
        if let Some(row) = self.0.get(batch + AHEAD) {
            row.iter().for_each(|&k| states.prefetch_for_write(k));
        }
    }
}

impl Recorder<'_> {
    /// Records contact batch `batch` of colour `color`, lanes `a` and `b`, whose contacts
    /// are at `places` of the colour's list of `len`.
    pub fn record(
        &self,
        batch: usize,
        color: usize,
        places: Range<usize>,
        len: usize,
        a: &[u32; W],
        b: &[u32; W],
    ) {
        if self.count {
            let across = lanes_across(a, b, places.start, places.len(), len, self.half);
            *self.across.get_mut(batch as u32) = across;
        }
        if self.now[color] {
            let row = self.rows.get_mut(batch as u32);
            row[..W].copy_from_slice(a);
            row[W..].copy_from_slice(b);
        }
    }
}

/// The lanes of a batch (its `used` lanes, the first at place `first` of a colour list of
/// `len` contacts) that sit in one half of the list with a body in the other half of the
/// solver's `2 half` bodies: at two threads, a lane whose state the other core last wrote.
/// A static body or an empty lane ([`NULL`]) is in neither half.
fn lanes_across(
    a: &[u32; W],
    b: &[u32; W],
    first: usize,
    used: usize,
    len: usize,
    half: usize,
) -> u8 {
    let mut across = 0;
    for j in 0..used {
        let back = 2 * (first + j) >= len;
        let other = |k: u32| k != NULL && ((k as usize) < half) == back;
        across += u8::from(other(a[j]) || other(b[j]));
    }
    across
}

#[cfg(test)]
mod tests {
    use super::{lanes_across, NULL, W};

    /// A colour list of 4 W contacts over 8 W bodies: in the same order as the bodies, no
    /// lane is across; in the reverse order, every one; a static body counts in neither
    /// half.
    #[test]
    fn lanes_across_the_halves() {
        let (len, half) = (4 * W, 4 * W);
        for batch in 0..4 {
            let first = batch * W;
            // Contact k joins bodies 2k and 2k + 1.
            let a = std::array::from_fn(|j| 2 * (first + j) as u32);
            let b = std::array::from_fn(|j| 2 * (first + j) as u32 + 1);
            assert_eq!(lanes_across(&a, &b, first, W, len, half), 0);
            let reversed = |x: [u32; W]| x.map(|k| 8 * W as u32 - 1 - k);
            let across = lanes_across(&reversed(a), &reversed(b), first, W, len, half);
            assert_eq!(across as usize, W);
            // On the ground: B static.
            let ground = [NULL; W];
            let on_ground = lanes_across(&reversed(a), &ground, first, W, len, half);
            assert_eq!(on_ground as usize, W);
            assert_eq!(lanes_across(&ground, &ground, first, W, len, half), 0);
            // Only the used lanes count.
            assert_eq!(lanes_across(&reversed(a), &b, first, 3, len, half), 3);
        }
    }
}
