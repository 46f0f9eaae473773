//! impetus: a data-oriented 3D rigid-body physics engine.
#![warn(missing_docs)]

pub mod collision;
pub mod error;
pub mod math;
pub mod shape;

pub use error::Error;
pub use glam::{Mat3, Quat, Vec3};
pub use math::Transform;
pub use shape::{Aabb, MassProperties, Shape, ShapeKind};
