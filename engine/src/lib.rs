//! impetus: a data-oriented 3D rigid-body physics engine.
#![warn(missing_docs)]

mod body;
mod broadphase;
pub mod collision;
mod contact;
pub mod error;
pub mod forces;
pub mod hull;
mod id;
pub mod joint;
pub mod math;
pub mod mesh;
mod parallel;
pub mod profile;
pub mod shape;
mod solver;
pub mod stepper;
mod world;

pub use body::{BodyDef, BodyType};
pub use collision::{Manifold, ManifoldPoint};
pub use error::Error;
pub use forces::{Fluid, FluidId, Submersion};
pub use glam::{Mat3, Quat, Vec3};
pub use hull::ConvexHull;
pub use id::{BodyId, JointId, ShapeId};
pub use joint::{JointBreak, JointDef, JointKind, Limits, Motor, Spring, SpringStiffness};
pub use math::{Aabb, Transform};
pub use mesh::{HeightField, TriMesh, Triangle, Triangles};
pub use profile::Profile;
pub use shape::{MassProperties, Shape, ShapeKind};
pub use stepper::thread::{Frame, FrameReader, PendingBody, PhysicsCommands, PhysicsThread};
pub use stepper::{Advance, Stepper};
pub use world::query;
pub use world::query::{QueryFilter, RayHit, ShapeHit};
pub use world::{
    BodyMove, ContactHit, ContactInfo, ContactModifier, ContactSettings, ContactTouch, ContactView,
    Filter, PairFilter, SensorEvent, ShapeDef, World, WorldDef,
};
