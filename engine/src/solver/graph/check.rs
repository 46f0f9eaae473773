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
            // The colour's joint batches of both kinds: the bodies each writes.
            let of_color = |ranges: &[std::ops::Range<usize>]| ranges.get(color).cloned();
            let joints = of_color(&self.joint_ranges)
                .map_or(&[][..], |r| &self.joint_batches[r])
                .iter()
                .flat_map(|b| b.written());
            let balls = of_color(&self.ball_ranges)
                .map_or(&[][..], |r| &self.ball_batches[r])
                .iter()
                .flat_map(|b| b.written());
            for (body, w) in joints.chain(balls) {
                if w {
                    mark(color, body)?;
                }
            }
        }
        None
    }
}
