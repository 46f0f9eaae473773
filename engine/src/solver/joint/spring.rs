//! Axis springs: the soft coefficients of a spring row and the exact update of a
//! frequency-form spring over a substep.

use crate::joint::{Spring, SpringStiffness};
use crate::solver::Softness;

/// Soft coefficients of a spring on a row of inverse effective mass `k`.
pub(crate) fn spring_softness(spring: &Spring, k: f32, h: f32) -> Softness {
    match spring.stiffness {
        SpringStiffness::Frequency {
            hertz,
            damping_ratio,
        } => Softness::new(hertz, damping_ratio, h),
        SpringStiffness::Physical { stiffness, damping } => {
            // With k_s = m ω² and c = 2 m ζ ω the frequency form's a2 = h ω (2ζ + h ω)
            // becomes h (c + h k_s) / m: the same soft step in physical units.
            let a = damping + h * stiffness;
            let a2 = h * a * k;
            let a3 = 1.0 / (1.0 + a2);
            Softness {
                bias_rate: if a > 0.0 { stiffness / a } else { 0.0 },
                mass_scale: a2 * a3,
                impulse_scale: a3,
            }
        }
    }
}

/// The exact update of a linear spring-damper `ẍ + 2ζω ẋ + ω² x = 0` over a substep
/// `h`: `x(h) = a x₀ + b v₀`, `v(h) = d x₀ + c v₀`, from the matrix exponential
/// `e^{−ζωh} [[C + ζω S, S], [−ω² S, C − ζω S]]` with `β² = ω² (1 − ζ²)`:
/// `C = cos βh, S = sin βh / β` (under-damped), `cosh` and `sinh` (over-damped), and
/// their series near critical damping. An undamped spring keeps its energy and a damped
/// one decays at exactly `ζ`, at any substep: one implicit-Euler step per substep (the
/// usual soft spring) adds `ωh / 2` to the ratio, and applying it in both the solve and
/// the relax pass would add twice that.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SpringStep {
    pub a: f32,
    pub b: f32,
    pub c: f32,
    pub d: f32,
}

impl SpringStep {
    /// The update for angular frequency `omega` (rad/s), damping ratio `zeta`, substep `h`.
    pub fn new(omega: f32, zeta: f32, h: f32) -> Self {
        let (w, z) = (omega as f64, zeta as f64);
        let h = h as f64;
        let beta2 = w * w * (1.0 - z * z);
        let x = beta2 * h * h;
        let (cc, ss) = if x.abs() < 1.0e-6 {
            (1.0 - 0.5 * x, h * (1.0 - x / 6.0))
        } else if x > 0.0 {
            let beta = beta2.sqrt();
            ((beta * h).cos(), (beta * h).sin() / beta)
        } else {
            let beta = (-beta2).sqrt();
            ((beta * h).cosh(), (beta * h).sinh() / beta)
        };
        let e = (-z * w * h).exp();
        Self {
            a: (e * (cc + z * w * ss)) as f32,
            b: (e * ss) as f32,
            c: (e * (cc - z * w * ss)) as f32,
            d: (-e * w * w * ss) as f32,
        }
    }

    /// `(x(h), v(h))` from `(x₀, v₀)`.
    #[inline]
    pub fn advance(&self, x0: f32, v0: f32) -> (f32, f32) {
        (self.a * x0 + self.b * v0, self.d * x0 + self.c * v0)
    }
}
