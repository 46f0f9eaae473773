//! Time of impact by conservative advancement (Mirtich 1996; Catto, "Continuous
//! Collision", GDC 2013).
//!
//! Each body's motion over the step is a [`Sweep`] over `t ∈ [0, 1]`: position
//! `p(t) = p₀ + t Δp`, rotation `q(t) = exp(t Δθ) q₀` (a constant rotation vector `Δθ`, the
//! step's delta rotation as axis × angle, angle ≤ π). A point at offset `r` from the centre
//! then moves at `Δp + Δθ × r` per unit `t`.
//!
//! At time `t`, with distance `d` and unit normal `n` from A to B (from [`shape_distance`]),
//! the gap along the *fixed* axis `n` is a lower bound of the distance for all later times
//! (any segment is at least as long as its projection), and it shrinks no faster than
//!
//! `μ = n·(Δp_A − Δp_B) + |Δθ_A| r_A + |Δθ_B| r_B`
//!
//! with `r` each shape's bounding radius about its body origin. So the shapes stay at least
//! `target` apart until `t + (d − target) / μ`, and the loop advances `t` by exactly that:
//!
//! - `d ≤ target + tolerance` at `t = 0`: the shapes start touching; the contact solver owns
//!   them (no sweep: a body resting or sliding on a surface must not be frozen);
//! - `d ≤ target + tolerance` at `t > 0`: impact at `t`;
//! - `μ ≤ 0`: they do not approach along `n`, so never within the step;
//! - `t` reaches `t_max` (the end of the step, or an earlier impact found for another
//!   shape): no impact before it;
//! - after [`MAX_ITERATIONS`] the `t` reached is still safe (every advance was
//!   conservative) and is reported as the impact.
//!
//! If rounding makes a step overshoot (distance below `target − tolerance` at the new `t`),
//! the previous `t` is returned. The loop is serial and uses no fused multiply-adds, so the
//! same inputs give bit-identical times.

use super::gjk::{shape_distance, triangle_distance};
use crate::math::Transform;
use crate::shape::Shape;
use glam::{Quat, Vec3};

/// Iteration cap of the advancement loop.
pub(crate) const MAX_ITERATIONS: u32 = 32;

/// A body's motion over one step, parameterised by `t ∈ [0, 1]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Sweep {
    /// Position at `t = 0`, in m.
    pub p0: Vec3,
    /// Rotation at `t = 0`.
    pub q0: Quat,
    /// Displacement over the step, in m.
    pub dp: Vec3,
    /// Rotation over the step as axis × angle (angle in rad, at most π).
    pub dtheta: Vec3,
    /// The swept shape's pose in the moving frame (a compound's part off the centre of
    /// mass); the identity for a shape at the frame's origin.
    pub local: Transform,
}

impl Sweep {
    /// A body that does not move.
    pub fn fixed(xf: &Transform) -> Self {
        Sweep {
            p0: xf.p,
            q0: xf.q,
            dp: Vec3::ZERO,
            dtheta: Vec3::ZERO,
            local: Transform::IDENTITY,
        }
    }

    /// The sweep of a body that ended the step at `(p1, q1)` after moving by `dp` and
    /// rotating by `dq` (`q1 = normalize(dq q₀)`).
    pub fn from_delta(p1: Vec3, q1: Quat, dp: Vec3, dq: Quat) -> Self {
        // The shorter way round: q and −q are the same rotation.
        let dq = if dq.w < 0.0 { -dq } else { dq };
        let dtheta = if dq.is_finite() && dq.length_squared() > 0.0 {
            dq.normalize().to_scaled_axis()
        } else {
            Vec3::ZERO
        };
        Sweep {
            p0: p1 - dp,
            q0: (dq.conjugate() * q1).normalize(),
            dp,
            dtheta,
            local: Transform::IDENTITY,
        }
    }

    /// The same motion carrying a shape at `local` in the moving frame.
    pub fn carrying(self, local: Transform) -> Self {
        Sweep { local, ..self }
    }

    /// The shape's pose at `t`.
    #[inline]
    pub fn at(&self, t: f32) -> Transform {
        let q = if self.dtheta == Vec3::ZERO {
            self.q0
        } else {
            (Quat::from_scaled_axis(self.dtheta * t) * self.q0).normalize()
        };
        let frame = Transform::new(self.p0 + self.dp * t, q);
        if self.local == Transform::IDENTITY {
            frame
        } else {
            frame.mul(&self.local)
        }
    }
}

/// How a time-of-impact query ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ToiState {
    /// The shapes come within the target separation at `t`.
    Hit,
    /// They stay farther apart than the target until `t_max`.
    Separated,
    /// They are already within the target separation (or overlap) at `t = 0`.
    Touching,
}

/// The result of [`time_of_impact`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Toi {
    /// What happened.
    pub state: ToiState,
    /// The time of impact for [`ToiState::Hit`] (else `t_max` or 0), in step fractions.
    pub t: f32,
    /// Distance evaluations made.
    pub iterations: u32,
}

/// The first time in `[0, t_max]` at which shapes `a` and `b`, moving along `sweep_a` and
/// `sweep_b`, come within `target` (m) of each other, to within `tolerance` (m). Both
/// lengths scale with the world's length unit.
pub(crate) fn time_of_impact(
    a: &Shape,
    sweep_a: &Sweep,
    b: &Shape,
    sweep_b: &Sweep,
    target: f32,
    tolerance: f32,
    t_max: f32,
) -> Toi {
    // The farthest a point of each shape can be from its frame's (rotating) origin.
    let angular = sweep_a.dtheta.length() * (a.bounding_radius() + sweep_a.local.p.length())
        + sweep_b.dtheta.length() * (b.bounding_radius() + sweep_b.local.p.length());
    let relative = sweep_a.dp - sweep_b.dp;
    advance(
        |t| shape_distance(a, &sweep_a.at(t), b, &sweep_b.at(t)),
        relative,
        angular,
        target,
        tolerance,
        t_max,
    )
}

/// [`time_of_impact`] of shape `a` moving along `sweep_a` against a fixed triangle (corners
/// in world space), as for a triangle of a static mesh.
pub(crate) fn time_of_impact_triangle(
    a: &Shape,
    sweep_a: &Sweep,
    tri: [Vec3; 3],
    target: f32,
    tolerance: f32,
    t_max: f32,
) -> Toi {
    let angular = sweep_a.dtheta.length() * a.bounding_radius();
    advance(
        |t| triangle_distance(a, &sweep_a.at(t), tri),
        sweep_a.dp,
        angular,
        target,
        tolerance,
        t_max,
    )
}

/// The advancement loop (see the module docs) over the distance at time `t`, with the
/// relative displacement and the angular bound `μ` needs.
fn advance(
    distance: impl Fn(f32) -> Option<super::gjk::Distance>,
    relative: Vec3,
    angular: f32,
    target: f32,
    tolerance: f32,
    t_max: f32,
) -> Toi {
    let mut t = 0.0f32;
    let mut t_prev = 0.0f32;
    let mut iterations = 0;
    while iterations < MAX_ITERATIONS {
        iterations += 1;
        let Some(d) = distance(t) else {
            return Toi {
                state: ToiState::Separated,
                t: t_max,
                iterations,
            };
        };
        if t == 0.0 && (d.overlap || d.distance <= target + tolerance) {
            return Toi {
                state: ToiState::Touching,
                t: 0.0,
                iterations,
            };
        }
        if d.overlap || d.distance < target - tolerance {
            // Rounding overshot: the previous time was still safe.
            return Toi {
                state: ToiState::Hit,
                t: t_prev,
                iterations,
            };
        }
        if d.distance <= target + tolerance {
            return Toi {
                state: ToiState::Hit,
                t,
                iterations,
            };
        }
        let approach = d.normal.dot(relative) + angular;
        if approach <= 0.0 || !approach.is_finite() {
            return Toi {
                state: ToiState::Separated,
                t: t_max,
                iterations,
            };
        }
        let next = t + (d.distance - target) / approach;
        if next.is_nan() || next >= t_max {
            return Toi {
                state: ToiState::Separated,
                t: t_max,
                iterations,
            };
        }
        t_prev = t;
        t = next;
    }
    Toi {
        state: ToiState::Hit,
        t,
        iterations,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::test_util::Rng;

    const TARGET: f32 = 0.005;
    const TOL: f32 = 0.25 * TARGET;

    fn wall() -> (Shape, Sweep) {
        (
            Shape::Box {
                half_extents: Vec3::new(0.025, 2.0, 2.0),
            },
            Sweep::fixed(&Transform::IDENTITY),
        )
    }

    fn distance_at(a: &Shape, sa: &Sweep, b: &Shape, sb: &Sweep, t: f32) -> f32 {
        shape_distance(a, &sa.at(t), b, &sb.at(t)).unwrap().distance
    }

    #[test]
    fn sweep_reproduces_the_end_pose() {
        let mut rng = Rng::new(21);
        for _ in 0..200 {
            let q0 = rng.rotation();
            let dq = Quat::from_scaled_axis(rng.direction() * rng.range(0.0, 3.0));
            let p0 = Vec3::new(1.0, 2.0, 3.0);
            let dp = rng.direction() * 4.0;
            let q1 = (dq * q0).normalize();
            let s = Sweep::from_delta(p0 + dp, q1, dp, dq);
            let end = s.at(1.0);
            assert!((end.p - (p0 + dp)).length() < 1.0e-5);
            assert!(end.q.dot(q1).abs() > 0.99999);
            assert!(s.at(0.0).q.dot(q0).abs() > 0.99999);
        }
    }

    #[test]
    fn sphere_through_a_thin_wall_is_caught() {
        let (w, ws) = wall();
        let r = 0.1;
        let s = Shape::Sphere { radius: r };
        let sweep = Sweep {
            p0: Vec3::new(-5.0, 0.3, 0.0),
            q0: Quat::IDENTITY,
            dp: Vec3::new(10.0, 0.0, 0.0),
            dtheta: Vec3::ZERO,
            local: Transform::IDENTITY,
        };
        let toi = time_of_impact(&s, &sweep, &w, &ws, TARGET, TOL, 1.0);
        assert_eq!(toi.state, ToiState::Hit);
        let exact = (-0.025 - r - TARGET + 5.0) / 10.0;
        assert!(
            toi.t <= exact + 1.0e-6 && toi.t > exact - TOL / 10.0,
            "{toi:?}"
        );
        assert!(toi.iterations <= 3, "{toi:?}");
        // Grazing past the wall's edge misses it.
        let past = Sweep {
            p0: Vec3::new(-5.0, 2.2, 0.0),
            ..sweep
        };
        let toi = time_of_impact(&s, &past, &w, &ws, TARGET, TOL, 1.0);
        assert_eq!(toi.state, ToiState::Separated);
        // Starting in contact is left to the solver.
        let touching = Sweep {
            p0: Vec3::new(-0.025 - r - 0.001, 0.0, 0.0),
            ..sweep
        };
        let toi = time_of_impact(&s, &touching, &w, &ws, TARGET, TOL, 1.0);
        assert_eq!(toi.state, ToiState::Touching);
    }

    /// A spinning capsule shot through a thin wall is caught before it, at the target
    /// distance; the same capsule passing beside the wall misses it.
    #[test]
    fn spinning_capsule_through_a_thin_wall_is_caught() {
        let (w, ws) = wall();
        let s = Shape::Capsule {
            half_height: 0.4,
            radius: 0.1,
        };
        let sweep = Sweep {
            p0: Vec3::new(-5.0, 0.3, 0.0),
            q0: Quat::IDENTITY,
            dp: Vec3::new(10.0, 0.0, 0.0),
            dtheta: Vec3::new(0.0, 0.0, 7.0),
            local: Transform::IDENTITY,
        };
        let toi = time_of_impact(&s, &sweep, &w, &ws, TARGET, TOL, 1.0);
        assert_eq!(toi.state, ToiState::Hit);
        let d = distance_at(&s, &sweep, &w, &ws, toi.t);
        assert!((d - TARGET).abs() <= TOL + 1.0e-4, "{d} {toi:?}");
        // No earlier sampled time is closer than the target.
        for k in 0..1000 {
            let t = toi.t * k as f32 / 1000.0;
            assert!(distance_at(&s, &sweep, &w, &ws, t) >= TARGET - TOL - 1.0e-4);
        }
        let past = Sweep {
            p0: Vec3::new(-5.0, 0.0, 2.6),
            ..sweep
        };
        let toi = time_of_impact(&s, &past, &w, &ws, TARGET, TOL, 1.0);
        assert_eq!(toi.state, ToiState::Separated);
    }

    /// Random spinning boxes and spheres swept against boxes and planes: a hit lands within
    /// `[target − tol, target + tol]`, and no sampled earlier time is closer than the
    /// target; a miss never comes within it at any sampled time.
    #[test]
    fn random_sweeps_are_conservative() {
        let mut rng = Rng::new(22);
        let (mut hits, mut misses) = (0, 0);
        for k in 0..400 {
            let a = if k % 3 == 0 {
                Shape::Sphere {
                    radius: rng.range(0.05, 0.5),
                }
            } else {
                Shape::Box {
                    half_extents: Vec3::new(
                        rng.range(0.05, 0.8),
                        rng.range(0.01, 0.3),
                        rng.range(0.05, 0.8),
                    ),
                }
            };
            let sa = Sweep {
                p0: rng.direction() * rng.range(2.0, 4.0),
                q0: rng.rotation(),
                dp: Vec3::ZERO,
                dtheta: rng.direction() * rng.range(0.0, 2.0),
                local: Transform::IDENTITY,
            };
            // Aim at a random point near the origin, overshooting it.
            let aim = rng.direction() * rng.range(0.0, 1.0);
            let sa = Sweep {
                dp: (aim - sa.p0) * rng.range(1.2, 2.5),
                ..sa
            };
            let (b, sb) = if k % 4 == 3 {
                (
                    Shape::Plane {
                        normal: Vec3::Y,
                        offset: -1.0,
                    },
                    Sweep::fixed(&Transform::IDENTITY),
                )
            } else {
                let he = Vec3::new(
                    rng.range(0.02, 1.0),
                    rng.range(0.02, 1.0),
                    rng.range(0.02, 1.0),
                );
                let sb = Sweep {
                    p0: Vec3::ZERO,
                    q0: rng.rotation(),
                    dp: rng.direction() * rng.range(0.0, 1.0),
                    dtheta: rng.direction() * rng.range(0.0, 1.0),
                    local: Transform::IDENTITY,
                };
                (Shape::Box { half_extents: he }, sb)
            };
            let toi = time_of_impact(&a, &sa, &b, &sb, TARGET, TOL, 1.0);
            let samples = 2000;
            match toi.state {
                ToiState::Touching => continue,
                ToiState::Hit => {
                    hits += 1;
                    let d = distance_at(&a, &sa, &b, &sb, toi.t);
                    assert!(d >= TARGET - TOL - 1.0e-4, "{d} {toi:?}");
                    if toi.iterations < MAX_ITERATIONS {
                        assert!(d <= TARGET + TOL + 1.0e-4, "{d} {toi:?}");
                    }
                    for s in 0..samples {
                        let t = toi.t * s as f32 / samples as f32;
                        let d = distance_at(&a, &sa, &b, &sb, t);
                        assert!(d >= TARGET - TOL - 1.0e-4, "closer earlier: {d} at {t}");
                    }
                }
                ToiState::Separated => {
                    misses += 1;
                    for s in 0..=samples {
                        let t = s as f32 / samples as f32;
                        let d = distance_at(&a, &sa, &b, &sb, t);
                        assert!(d >= TARGET - TOL - 1.0e-4, "missed: {d} at {t}");
                    }
                }
            }
        }
        assert!(hits > 100 && misses > 20, "hits {hits}, misses {misses}");
    }

    #[test]
    fn plank_falling_through_a_box_is_caught() {
        let plank = Shape::Box {
            half_extents: Vec3::new(0.5, 0.01, 0.5),
        };
        let block = Shape::Box {
            half_extents: Vec3::splat(0.5),
        };
        let sweep = Sweep {
            p0: Vec3::new(0.1, 1.0, 0.0),
            q0: Quat::from_rotation_z(0.05),
            dp: Vec3::new(0.0, -80.0 / 60.0, 0.0),
            dtheta: Vec3::new(0.0, 0.0, 0.1),
            local: Transform::IDENTITY,
        };
        let fixed = Sweep::fixed(&Transform::IDENTITY);
        // The end pose is past the block's middle: its distance alone would not tell.
        let toi = time_of_impact(&plank, &sweep, &block, &fixed, TARGET, TOL, 1.0);
        assert_eq!(toi.state, ToiState::Hit);
        let d = distance_at(&plank, &sweep, &block, &fixed, toi.t);
        assert!(
            (TARGET - 1.0e-4..=TARGET + TOL + 1.0e-4).contains(&d),
            "{d}"
        );
        assert!(sweep.at(toi.t).p.y > 0.5);
    }
}
