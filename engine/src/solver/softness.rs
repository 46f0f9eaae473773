//! Soft constraint coefficients (Catto, "Solver2D", 2024).
//!
//! A constraint behaves like a damped spring of frequency `f` (Hz) and damping ratio `ζ`
//! integrated implicitly over a substep `h`:
//! `ω = 2πf; a1 = 2ζ + hω; a2 = hω a1; a3 = 1 / (1 + a2)`;
//! `bias_rate = ω / a1; mass_scale = a2 a3; impulse_scale = a3`.
//! The row's impulse is then
//! `dλ = -m_eff (mass_scale · (Jv + bias_rate · C)) - impulse_scale · λ`.

/// Soft constraint coefficients for one substep length.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Softness {
    pub bias_rate: f32,
    pub mass_scale: f32,
    pub impulse_scale: f32,
}

impl Softness {
    /// Coefficients for frequency `hertz`, damping ratio `zeta` and substep `h`.
    /// Zero hertz gives a rigid constraint with no position correction.
    pub fn new(hertz: f32, zeta: f32, h: f32) -> Self {
        if hertz <= 0.0 {
            return Self {
                bias_rate: 0.0,
                mass_scale: 1.0,
                impulse_scale: 0.0,
            };
        }
        let omega = 2.0 * std::f32::consts::PI * hertz;
        let a1 = 2.0 * zeta + h * omega;
        let a2 = h * omega * a1;
        let a3 = 1.0 / (1.0 + a2);
        Self {
            bias_rate: omega / a1,
            mass_scale: a2 * a3,
            impulse_scale: a3,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stiff_limit_is_rigid() {
        let s = Softness::new(1.0e6, 1.0, 1.0 / 240.0);
        assert!(s.mass_scale > 0.999 && s.impulse_scale < 1.0e-3);
        let r = Softness::new(0.0, 1.0, 1.0 / 240.0);
        assert_eq!(
            (r.mass_scale, r.impulse_scale, r.bias_rate),
            (1.0, 0.0, 0.0)
        );
    }
}
