//! The `validate` feature's check of the step's colours with their joints.

use super::ConstraintGraph;
use crate::id::NULL;

impl ConstraintGraph {
    /// Checks that within each colour the joints write no dynamic body that another joint
    /// or a contact of that colour (`pairs`, as in [`build`](Self::build)) writes. The
    /// `validate` feature runs it every step. Returns the first offending (colour, body).
    #[cfg(feature = "validate")]
    pub fn find_joint_conflict(
        &self,
        pairs: &[[u32; 2]],
        body_count: usize,
    ) -> Option<(usize, u32)> {
        let mut seen = vec![usize::MAX; body_count];
        let mut mark = |color: usize, body: u32| {
            if body == NULL {
                return None;
            }
            let k = body as usize;
            if seen[k] == color {
                return Some((color, body));
            }
            seen[k] = color;
            None
        };
        for (color, list) in self.coloring.colors.iter().enumerate() {
            for &k in list {
                for body in pairs[k as usize] {
                    mark(color, body)?;
                }
            }
            for batch in self
                .joint_ranges
                .get(color)
                .map_or(&[][..], |r| &self.joint_batches[r.clone()])
            {
                for (body, w) in batch.written() {
                    if w {
                        mark(color, body)?;
                    }
                }
            }
            for batch in self
                .ball_ranges
                .get(color)
                .map_or(&[][..], |r| &self.ball_batches[r.clone()])
            {
                for (body, w) in batch.written() {
                    if w {
                        mark(color, body)?;
                    }
                }
            }
        }
        None
    }
}
