//! The accessors' names before they all took the `body_` prefix, kept for one release.

use super::World;
use crate::error::Error;
use crate::id::BodyId;
use crate::math::Transform;
use crate::shape::MassProperties;
use glam::Vec3;

impl World {
    /// Renamed [`World::body_center_of_mass`].
    #[deprecated(since = "0.2.0", note = "renamed `body_center_of_mass`")]
    pub fn center_of_mass(&self, id: BodyId) -> Result<Vec3, Error> {
        self.body_center_of_mass(id)
    }

    /// Renamed [`World::body_local_center_of_mass`].
    #[deprecated(since = "0.2.0", note = "renamed `body_local_center_of_mass`")]
    pub fn local_center_of_mass(&self, id: BodyId) -> Result<Transform, Error> {
        self.body_local_center_of_mass(id)
    }

    /// Renamed [`World::body_linear_velocity`].
    #[deprecated(since = "0.2.0", note = "renamed `body_linear_velocity`")]
    pub fn linear_velocity(&self, id: BodyId) -> Result<Vec3, Error> {
        self.body_linear_velocity(id)
    }

    /// Renamed [`World::body_angular_velocity`].
    #[deprecated(since = "0.2.0", note = "renamed `body_angular_velocity`")]
    pub fn angular_velocity(&self, id: BodyId) -> Result<Vec3, Error> {
        self.body_angular_velocity(id)
    }

    /// Renamed [`World::set_body_linear_velocity`].
    #[deprecated(since = "0.2.0", note = "renamed `set_body_linear_velocity`")]
    pub fn set_linear_velocity(&mut self, id: BodyId, v: Vec3) -> Result<(), Error> {
        self.set_body_linear_velocity(id, v)
    }

    /// Renamed [`World::set_body_angular_velocity`].
    #[deprecated(since = "0.2.0", note = "renamed `set_body_angular_velocity`")]
    pub fn set_angular_velocity(&mut self, id: BodyId, w: Vec3) -> Result<(), Error> {
        self.set_body_angular_velocity(id, w)
    }

    /// Renamed [`World::body_mass_properties`].
    #[deprecated(since = "0.2.0", note = "renamed `body_mass_properties`")]
    pub fn mass_properties(&self, id: BodyId) -> Result<MassProperties, Error> {
        self.body_mass_properties(id)
    }

    /// Renamed [`World::set_body_mass_properties`].
    #[deprecated(since = "0.2.0", note = "renamed `set_body_mass_properties`")]
    pub fn set_mass_properties(&mut self, id: BodyId, mp: MassProperties) -> Result<(), Error> {
        self.set_body_mass_properties(id, mp)
    }

    /// Renamed [`World::set_body_gravity_scale`].
    #[deprecated(since = "0.2.0", note = "renamed `set_body_gravity_scale`")]
    pub fn set_gravity_scale(&mut self, id: BodyId, scale: f32) -> Result<(), Error> {
        self.set_body_gravity_scale(id, scale)
    }

    /// Renamed [`World::set_body_damping`].
    #[deprecated(since = "0.2.0", note = "renamed `set_body_damping`")]
    pub fn set_damping(&mut self, id: BodyId, linear: f32, angular: f32) -> Result<(), Error> {
        self.set_body_damping(id, linear, angular)
    }

    /// Renamed [`World::body_is_awake`].
    #[deprecated(since = "0.2.0", note = "renamed `body_is_awake`")]
    pub fn is_awake(&self, id: BodyId) -> Result<bool, Error> {
        self.body_is_awake(id)
    }

    /// Renamed [`World::set_body_awake`].
    #[deprecated(since = "0.2.0", note = "renamed `set_body_awake`")]
    pub fn set_awake(&mut self, id: BodyId, awake: bool) -> Result<(), Error> {
        self.set_body_awake(id, awake)
    }

    /// Renamed [`World::body_user_data`].
    #[deprecated(since = "0.2.0", note = "renamed `body_user_data`")]
    pub fn user_data(&self, id: BodyId) -> Result<u64, Error> {
        self.body_user_data(id)
    }

    /// Renamed [`World::body_drag_coefficient`].
    #[deprecated(since = "0.2.0", note = "renamed `body_drag_coefficient`")]
    pub fn drag_coefficient(&self, id: BodyId) -> Result<f32, Error> {
        self.body_drag_coefficient(id)
    }

    /// Renamed [`World::set_body_drag_coefficient`].
    #[deprecated(since = "0.2.0", note = "renamed `set_body_drag_coefficient`")]
    pub fn set_drag_coefficient(&mut self, id: BodyId, drag_coefficient: f32) -> Result<(), Error> {
        self.set_body_drag_coefficient(id, drag_coefficient)
    }

    /// Renamed [`World::set_body_target_pose`].
    #[deprecated(since = "0.2.0", note = "renamed `set_body_target_pose`")]
    pub fn set_target_pose(&mut self, id: BodyId, target: Transform) -> Result<(), Error> {
        self.set_body_target_pose(id, target)
    }

    /// Renamed [`World::body_target_pose`].
    #[deprecated(since = "0.2.0", note = "renamed `body_target_pose`")]
    pub fn target_pose(&self, id: BodyId) -> Result<Option<Transform>, Error> {
        self.body_target_pose(id)
    }
}
