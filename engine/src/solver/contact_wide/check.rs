//! The `validate` feature's checks of a batch made from the last step's (refreshed in
//! place, or made again with impulses kept in its lanes) against one prepared from its
//! contacts.

use super::{ContactConstraintW, FloatW, SolverBodies, StepContext, Vec3W};
use crate::contact::Contact;
use crate::id::NULL;
use glam::Vec3;

impl ContactConstraintW {
    /// Panics unless `self` (with `seeds`, what its making returned) is what
    /// [`Self::prepare`] makes of `ids` through manifolds that took the lanes in `kept`
    /// from `before` (see [`Self::prepared_through_manifolds`]).
    #[allow(clippy::too_many_arguments)]
    pub fn check_through_manifolds(
        &self,
        before: &Self,
        kept: u32,
        seeds: bool,
        contacts: &[Contact],
        tangent_velocities: &[Vec3],
        ids: &[u32],
        sb: &SolverBodies,
        ctx: &StepContext,
    ) {
        let (fresh, fresh_seeds) =
            before.prepared_through_manifolds(kept, contacts, tangent_velocities, ids, sb, ctx);
        assert!(
            self.same_bits(&fresh) && seeds == fresh_seeds,
            "validate: a batch made from the last step's (refreshed, or with impulses kept in \
             its lanes) differs from one prepared through the manifolds, lanes {:?}",
            self.source
        );
    }

    /// What [`Self::prepare`] makes of `ids` once the impulses of the lanes in `kept` (a
    /// bit a lane) have been copied from `self` (last step's batch) into copies of their
    /// manifolds: what a batch made with impulses left in their lanes must equal.
    fn prepared_through_manifolds(
        &self,
        kept: u32,
        contacts: &[Contact],
        tangent_velocities: &[Vec3],
        ids: &[u32],
        sb: &SolverBodies,
        ctx: &StepContext,
    ) -> (Self, bool) {
        let local: Vec<Contact> = (ids.iter().enumerate())
            .map(|(l, &id)| {
                let mut c = contacts[id as usize].clone();
                if kept >> l & 1 != 0 {
                    self.store_lane(l, &mut c.manifold);
                }
                c
            })
            .collect();
        let tangents: Vec<Vec3> = (ids.iter())
            .map(|&id| {
                tangent_velocities
                    .get(id as usize)
                    .copied()
                    .unwrap_or(Vec3::ZERO)
            })
            .collect();
        let local_ids: Vec<u32> = (0..ids.len() as u32).collect();
        let mut fresh = Self::default();
        let seeds = fresh.prepare(&local, &tangents, &local_ids, sb, ctx);
        fresh.source = std::array::from_fn(|l| ids.get(l).copied().unwrap_or(NULL));
        (fresh, seeds)
    }

    /// Whether `self` holds the same bits as `other` in every field the passes and the
    /// store read (with the `validate` feature, a refreshed batch against a fresh one).
    fn same_bits(&self, other: &Self) -> bool {
        let f = |a: &FloatW, b: &FloatW| {
            a.to_array().map(f32::to_bits) == b.to_array().map(f32::to_bits)
        };
        let v = |a: &Vec3W, b: &Vec3W| f(&a.x, &b.x) && f(&a.y, &b.y) && f(&a.z, &b.z);
        let points = self.points.iter().zip(&other.points).all(|(p, q)| {
            v(&p.r_a, &q.r_a)
                && v(&p.r_b, &q.r_b)
                && f(&p.base_separation, &q.base_separation)
                && f(&p.normal_mass, &q.normal_mass)
                && f(&p.lever, &q.lever)
        });
        let rows = |a: &[FloatW], b: &[FloatW]| a.iter().zip(b).all(|(x, y)| f(x, y));
        points
            && v(&self.normal, &other.normal)
            && rows(&self.friction_impulse, &other.friction_impulse)
            && f(&self.twist_impulse, &other.twist_impulse)
            && rows(&self.normal_impulse, &other.normal_impulse)
            && rows(&self.max_normal_impulse, &other.max_normal_impulse)
            && (self.a, self.b, self.write_a, self.write_b, self.source)
                == (other.a, other.b, other.write_a, other.write_b, other.source)
            && (self.points_used, self.lone, self.isotropic, self.counts)
                == (other.points_used, other.lone, other.isotropic, other.counts)
            && f(&self.friction, &other.friction)
            && v(&self.center_a, &other.center_a)
            && v(&self.center_b, &other.center_b)
            && rows(
                &[self.k11, self.k12, self.k22],
                &[other.k11, other.k12, other.k22],
            )
            && rows(&self.tangent_speed, &other.tangent_speed)
            && f(&self.twist_mass, &other.twist_mass)
    }
}
