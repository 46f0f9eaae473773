//! Profiling glue for impetus: zones, plots and frame marks that show up in the Tracy
//! profiler when the `tracy` feature is on, and compile to nothing when it is off.
//!
//! The engine marks one zone per step stage (`zone!("Narrow Phase")`), plots its counters
//! (`plot!("contacts", n)`) and a secondary "Physics" frame per step (`physics_frame!()`).
//! It never calls `frame_mark()`: the host's frame belongs to the host.
//!
//! Nothing is recorded until the host starts the client ([`start`]) and a profiler
//! connects (the client runs on demand and listens on localhost only).

#[cfg(feature = "tracy")]
#[doc(hidden)]
pub use tracy_client as __tracy;

/// Opens a zone that lasts until the end of the enclosing block.
#[cfg(feature = "tracy")]
#[macro_export]
macro_rules! zone {
    ($name:literal) => {
        let _impetus_zone = $crate::__tracy::Client::running()
            .map(|c| c.span($crate::__tracy::span_location!($name), 0));
    };
}

/// Opens a zone that lasts until the end of the enclosing block.
#[cfg(not(feature = "tracy"))]
#[macro_export]
macro_rules! zone {
    ($name:literal) => {};
}

/// Records a value on a named plot.
#[cfg(feature = "tracy")]
#[macro_export]
macro_rules! plot {
    ($name:literal, $value:expr) => {
        if let Some(c) = $crate::__tracy::Client::running() {
            c.plot($crate::__tracy::plot_name!($name), $value as f64);
        }
    };
}

/// Records a value on a named plot.
#[cfg(not(feature = "tracy"))]
#[macro_export]
macro_rules! plot {
    ($name:literal, $value:expr) => {
        let _ = &$value;
    };
}

/// Marks the end of one physics step as a secondary frame named "Physics".
#[cfg(feature = "tracy")]
#[macro_export]
macro_rules! physics_frame {
    () => {
        if let Some(c) = $crate::__tracy::Client::running() {
            c.secondary_frame_mark($crate::__tracy::frame_name!("Physics"));
        }
    };
}

/// Marks the end of one physics step as a secondary frame named "Physics".
#[cfg(not(feature = "tracy"))]
#[macro_export]
macro_rules! physics_frame {
    () => {};
}

/// Names the calling thread in the profiler (worker threads call it when they start).
#[inline]
pub fn name_thread(name: &str) {
    #[cfg(feature = "tracy")]
    if let Some(c) = tracy_client::Client::running() {
        c.set_thread_name(name);
    }
    #[cfg(not(feature = "tracy"))]
    let _ = name;
}

/// Starts the profiler client (a host or benchmark calls it once, at start-up). Does
/// nothing without the `tracy` feature.
#[inline]
pub fn start() {
    #[cfg(feature = "tracy")]
    {
        let _ = tracy_client::Client::start();
    }
}

/// Whether this build records to Tracy.
pub const ENABLED: bool = cfg!(feature = "tracy");
