//! The error type of every fallible public function.

use std::fmt;

/// What went wrong with a call into the engine.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// An input value is out of range; `field` names it (for example `"BodyDef::position"`).
    InvalidInput {
        /// The offending field or argument.
        field: &'static str,
        /// What the value must be.
        reason: &'static str,
    },
    /// The id refers to an object that was removed: its slot is free or holds a newer
    /// object. Ids do not carry their world, so an id of another world is caught only when
    /// this world's slot of that index is free or of another generation.
    StaleHandle {
        /// Which kind of id (`"BodyId"`, `"ShapeId"`).
        kind: &'static str,
    },
    /// The call is valid in general but not for this object (a plane on a dynamic body).
    Unsupported {
        /// What was asked.
        what: &'static str,
    },
    /// The physics thread of a [`PhysicsThread`](crate::PhysicsThread) panicked; its world
    /// is lost.
    ThreadPanicked {
        /// The panic's message, when it was a string.
        message: String,
    },
}

impl Error {
    pub(crate) fn invalid(field: &'static str, reason: &'static str) -> Self {
        Error::InvalidInput { field, reason }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidInput { field, reason } => write!(f, "invalid {field}: {reason}"),
            Error::StaleHandle { kind } => write!(f, "stale {kind}: its object was removed"),
            Error::Unsupported { what } => write!(f, "unsupported: {what}"),
            Error::ThreadPanicked { message } => {
                write!(f, "the physics thread panicked: {message}")
            }
        }
    }
}

impl std::error::Error for Error {}
