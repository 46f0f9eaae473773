//! Conversions between Bevy's math types and the engine's (two versions of glam: the
//! engine's 0.29 and Bevy's; the bits are copied as they are).

use bevy::math::{Quat, Vec3};

/// A Bevy vector as the engine's.
#[inline]
pub(crate) fn vec_in(v: Vec3) -> impetus::Vec3 {
    impetus::Vec3::from_array(v.to_array())
}

/// An engine vector as Bevy's.
#[inline]
pub(crate) fn vec_out(v: impetus::Vec3) -> Vec3 {
    Vec3::from_array(v.to_array())
}

/// A Bevy rotation as the engine's.
#[inline]
pub(crate) fn quat_in(q: Quat) -> impetus::Quat {
    impetus::Quat::from_array(q.to_array())
}

/// An engine rotation as Bevy's.
#[inline]
pub(crate) fn quat_out(q: impetus::Quat) -> Quat {
    Quat::from_array(q.to_array())
}

/// A pose as the engine's transform.
#[inline]
pub(crate) fn pose_in(p: Vec3, q: Quat) -> impetus::Transform {
    impetus::Transform::new(vec_in(p), quat_in(q))
}

/// An engine transform as a Bevy pose.
#[inline]
pub(crate) fn pose_out(t: &impetus::Transform) -> (Vec3, Quat) {
    (vec_out(t.p), quat_out(t.q))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_keep_the_bits() {
        let v = Vec3::new(0.1, -2.5e-7, 3.0e9);
        assert_eq!(vec_out(vec_in(v)), v);
        let q = Quat::from_rotation_y(0.3);
        assert_eq!(quat_out(quat_in(q)), q);
    }
}
