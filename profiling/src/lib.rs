//! Profiling glue for impetus: zones, plots and frame marks that show up in the Tracy
//! profiler when the `tracy` feature is on, and compile to nothing when it is off.
//!
//! The engine marks one zone per step stage (`zone!("Narrow Phase")`), plots its counters
//! (`plot!("contacts", n)`) and a secondary "Physics" frame per step (`physics_frame!()`).
//! Work that workers do for a stage can be timed against the calling thread's wait at the
//! join (`worker_zone!`, `join_wait!`), which plots the workers' utilisation per step.
//! It never calls `frame_mark()`: the host's frame belongs to the host.
//!
//! Nothing is recorded until the host starts the client ([`start`]) and a profiler
//! connects (the client runs on demand and listens on localhost only).

#[cfg(feature = "tracy")]
#[doc(hidden)]
pub use tracy_client as __tracy;

/// Opens a zone that lasts until the end of the enclosing block. `zone!("Name", COLOR)`
/// also paints it (`0xRRGGBB`, e.g. one of the [`color`] constants), so that the zones of
/// one stage have the stage's colour on every thread.
#[cfg(feature = "tracy")]
#[macro_export]
macro_rules! zone {
    ($name:literal) => {
        let _impetus_zone = $crate::__tracy::Client::running()
            .map(|c| c.span($crate::__tracy::span_location!($name), 0));
    };
    ($name:literal, $color:expr) => {
        let _impetus_zone = $crate::__tracy::Client::running().map(|c| {
            let span = c.span($crate::__tracy::span_location!($name), 0);
            span.emit_color($color);
            span
        });
    };
}

/// Opens a zone that lasts until the end of the enclosing block. `zone!("Name", COLOR)`
/// also paints it (`0xRRGGBB`, e.g. one of the [`color`] constants), so that the zones of
/// one stage have the stage's colour on every thread.
#[cfg(not(feature = "tracy"))]
#[macro_export]
macro_rules! zone {
    ($name:literal) => {};
    ($name:literal, $color:expr) => {
        let _ = $color;
    };
}

/// One colour per step stage (`0xRRGGBB`): a zone painted with its stage's colour shows
/// which stage a worker's zone belongs to, next to the main thread's stage zone.
pub mod color {
    /// Forces, Kinematic Aim, Kinematic Land.
    pub const FORCES: u32 = 0xbf4f6f;
    /// Broadphase and midphase.
    pub const BROADPHASE: u32 = 0x4f7fbf;
    /// Narrow Phase and Contact State, and the workers' narrow-phase chunks.
    pub const NARROW_PHASE: u32 = 0x3fa34f;
    /// Solve Stage and everything in it (Prepare, Restitution, the substeps, Store
    /// Impulses, Finalize, Continuous).
    pub const SOLVE: u32 = 0xd08a2a;
    /// Sleep.
    pub const SLEEP: u32 = 0x8a5fbf;
    /// A thread waiting at a join for the workers.
    pub const WAIT: u32 = 0x7a7a7a;
}

/// Opens a zone of work that a worker does for a stage whose join is timed by
/// [`join_wait!`] with a plot: its time counts towards that plot's utilisation. Otherwise
/// the same as `zone!(name, colour)`.
#[cfg(feature = "tracy")]
#[macro_export]
macro_rules! worker_zone {
    ($name:literal, $color:expr) => {
        $crate::zone!($name, $color);
        // Timed only while a profiler is connected (the client runs on demand).
        let _impetus_busy =
            $crate::__tracy::Client::is_connected().then(|| $crate::__busy::Busy::start());
    };
}

/// Opens a zone of work that a worker does for a stage whose join is timed by
/// [`join_wait!`] with a plot: its time counts towards that plot's utilisation. Otherwise
/// the same as `zone!(name, colour)`.
#[cfg(not(feature = "tracy"))]
#[macro_export]
macro_rules! worker_zone {
    ($name:literal, $color:expr) => {
        let _ = $color;
    };
}

/// Opens a "Join Wait" zone on a thread that waits until the end of the enclosing block
/// for the workers (around a pool's `install`). `join_wait!(colour, "plot", threads)` also
/// plots, when the block ends, the workers' utilisation in percent: the time spent in
/// [`worker_zone!`] zones meanwhile over the block's time times `threads`. The sum is one
/// per process, so the plot assumes one such join at a time (one world stepping).
#[cfg(feature = "tracy")]
#[macro_export]
macro_rules! join_wait {
    ($color:expr) => {
        $crate::zone!("Join Wait", $color);
    };
    ($color:expr, $plot:literal, $threads:expr) => {
        $crate::zone!("Join Wait", $color);
        let _impetus_join = $crate::__tracy::Client::running()
            .filter(|_| $crate::__tracy::Client::is_connected())
            .map(|c| $crate::__busy::Join::new(c, $crate::__tracy::plot_name!($plot), $threads));
    };
}

/// Opens a "Join Wait" zone on a thread that waits until the end of the enclosing block
/// for the workers (around a pool's `install`). `join_wait!(colour, "plot", threads)` also
/// plots, when the block ends, the workers' utilisation in percent: the time spent in
/// [`worker_zone!`] zones meanwhile over the block's time times `threads`. The sum is one
/// per process, so the plot assumes one such join at a time (one world stepping).
#[cfg(not(feature = "tracy"))]
#[macro_export]
macro_rules! join_wait {
    ($color:expr) => {
        let _ = $color;
    };
    ($color:expr, $plot:literal, $threads:expr) => {
        let _ = $color;
    };
}

#[cfg(feature = "tracy")]
#[doc(hidden)]
pub mod __busy {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Instant;

    /// Nanoseconds spent in worker zones since the current join began.
    static BUSY_NS: AtomicU64 = AtomicU64::new(0);

    /// Adds its lifetime to `BUSY_NS`.
    pub struct Busy(Instant);

    impl Busy {
        pub fn start() -> Busy {
            Busy(Instant::now())
        }
    }

    impl Drop for Busy {
        fn drop(&mut self) {
            BUSY_NS.fetch_add(self.0.elapsed().as_nanos() as u64, Ordering::Relaxed);
        }
    }

    /// Plots the utilisation of `threads` workers over its lifetime.
    pub struct Join {
        client: tracy_client::Client,
        plot: tracy_client::PlotName,
        threads: usize,
        start: Instant,
    }

    impl Join {
        pub fn new(
            client: tracy_client::Client,
            plot: tracy_client::PlotName,
            threads: usize,
        ) -> Join {
            BUSY_NS.store(0, Ordering::Relaxed);
            Join {
                client,
                plot,
                threads,
                start: Instant::now(),
            }
        }
    }

    impl Drop for Join {
        fn drop(&mut self) {
            let wall = self.start.elapsed().as_nanos() as f64 * self.threads.max(1) as f64;
            let busy = BUSY_NS.swap(0, Ordering::Relaxed) as f64;
            if wall > 0.0 {
                self.client.plot(self.plot, 100.0 * busy / wall);
            }
        }
    }
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

/// The release of the Tracy profiler whose protocol the embedded client speaks. A server
/// of another release refuses the connection, so this is the version a user must run.
///
/// Update it with the `tracy-client` dependency (profiling/Cargo.toml): the README of
/// `tracy-client-sys` (the crate that `tracy-client` builds on) has a table from each of
/// its versions to the Tracy release it embeds, and its sources carry the C++ client, whose
/// `tracy/common/TracyVersion.hpp` has the numbers. tracy-client 0.18.5
/// embeds tracy-client-sys 0.29.0, i.e. Tracy v0.14.0 (protocol 82).
pub const TRACY_VERSION: &str = "0.14.0";

/// Where the client listens for the profiler: localhost only (the `only-localhost`
/// feature of the client), on Tracy's default port.
pub const LISTEN_ADDRESS: &str = "127.0.0.1:8086";

/// The line a host prints at start-up so that a user knows where to connect and with
/// which profiler release (the client does not broadcast, so the program is not in the
/// profiler's list: type the address in its connect box). `None` without the `tracy`
/// feature.
pub fn connect_hint() -> Option<String> {
    ENABLED.then(|| format!("listening on {LISTEN_ADDRESS}, connect with Tracy v{TRACY_VERSION}"))
}

/// Whether this build records to Tracy.
pub const ENABLED: bool = cfg!(feature = "tracy");
