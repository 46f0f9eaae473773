//! How close the machine's first two CPUs are: the round trip of one cache line between
//! two threads pinned to them, which `compare`, `sweep` and `report` measure around every
//! run at two threads or more.
//!
//! On a virtual machine the host may place the guest's CPUs on cores that share a
//! last-level cache, or on cores that do not. On the AMD EPYC guests these benchmarks ran
//! on, the round trip was 80-140 ns in the first case and 350-600 ns in the second. The
//! placement changed from one second to the next, and rain at two threads took 1.7 ms a
//! step in the first case and 2.7 in the second (`docs/decisions.md`, "Two threads and
//! where the host puts them"). A two-thread figure means little without it.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// Round trips per measurement: a few milliseconds at either placement.
const TRIPS: u32 = 20_000;

/// The first round trips, not timed: they wait for the second thread to start.
const WARM_UP: u32 = 100;

/// A measurement gives up after this long (a CPU that never ran the other thread).
const PATIENCE: Duration = Duration::from_millis(500);

/// A round trip at or above this is taken as the two CPUs not sharing a cache (between
/// the 144 ns and the 348 ns seen on the guests).
pub const SHARED_CACHE_NS: f64 = 250.0;

/// One cache line of its own.
#[repr(align(64))]
struct Line(AtomicU32);

/// The mean round trip (ns) of one cache line between the first two CPUs this process may
/// run on, each side a thread pinned to its CPU, or `None` where there are fewer than two
/// such CPUs or the threads cannot be pinned (outside Linux, or refused), or the
/// measurement did not finish within [`PATIENCE`].
pub fn round_trip_ns() -> Option<f64> {
    let [first, second] = first_two_cpus()?;
    let line = Line(AtomicU32::new(0));
    let stop = AtomicBool::new(false);
    // Each side waits for the other's last write and answers it: the first side writes the
    // odd values, the second the even ones.
    let side = |cpu: usize, odd: bool| -> Option<Duration> {
        if pin(cpu).is_none() {
            stop.store(true, Ordering::Relaxed);
            return None;
        }
        let began = Instant::now();
        let mut started = began;
        for trip in 0..WARM_UP + TRIPS {
            if trip == WARM_UP {
                started = Instant::now();
            }
            let (wait, write) = if odd {
                (2 * trip, 2 * trip + 1)
            } else {
                (2 * trip + 1, 2 * trip + 2)
            };
            let mut spins = 0u32;
            while line.0.load(Ordering::Acquire) != wait {
                std::hint::spin_loop();
                spins = spins.wrapping_add(1);
                if spins % 4096 == 0 && (stop.load(Ordering::Relaxed) || began.elapsed() > PATIENCE)
                {
                    stop.store(true, Ordering::Relaxed);
                    return None;
                }
            }
            line.0.store(write, Ordering::Release);
        }
        Some(started.elapsed())
    };
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| side(first, true));
        let b = s.spawn(|| side(second, false));
        (a.join().ok().flatten(), b.join().ok().flatten())
    });
    b?;
    Some(a?.as_secs_f64() * 1.0e9 / f64::from(TRIPS))
}

/// The CPUs' round trip before a run; with `near`, measured again every half second (for
/// up to a minute, saying so on standard error) until it is under [`SHARED_CACHE_NS`].
pub fn wait_near(near: bool) -> Option<f64> {
    let mut ns = round_trip_ns();
    if !near {
        return ns;
    }
    let started = Instant::now();
    let mut said = false;
    while ns.is_some_and(|ns| ns >= SHARED_CACHE_NS) && started.elapsed() < WAIT_NEAR {
        if !said {
            eprintln!(
                "the first two CPUs are apart ({}): waiting for them to share a cache",
                show(ns)
            );
            said = true;
        }
        std::thread::sleep(Duration::from_millis(500));
        ns = round_trip_ns();
    }
    ns
}

/// The longest [`wait_near`] waits.
const WAIT_NEAR: Duration = Duration::from_secs(60);

/// `"120 ns"`, or `"–"` when there is no measurement.
pub fn show(ns: Option<f64>) -> String {
    ns.map_or("–".into(), |ns| format!("{ns:.0} ns"))
}

/// The first two CPUs in this process's affinity mask.
#[cfg(target_os = "linux")]
fn first_two_cpus() -> Option<[usize; 2]> {
    // SAFETY: `cpu_set_t` is plain data, for which all zeroes is the empty set;
    // `sched_getaffinity` writes at most `size_of::<cpu_set_t>()` bytes into it, and
    // `CPU_ISSET` reads a bit of it for an index below `CPU_SETSIZE`.
    let mut cpus = unsafe { std::mem::zeroed::<libc::cpu_set_t>() };
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: as above; pid 0 is the calling thread.
    if unsafe { libc::sched_getaffinity(0, size, &mut cpus) } != 0 {
        return None;
    }
    let mut allowed = (0..libc::CPU_SETSIZE as usize)
        // SAFETY: as above.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &cpus) });
    Some([allowed.next()?, allowed.next()?])
}

#[cfg(not(target_os = "linux"))]
fn first_two_cpus() -> Option<[usize; 2]> {
    None
}

/// Pins the calling thread to `cpu`.
#[cfg(target_os = "linux")]
fn pin(cpu: usize) -> Option<()> {
    // SAFETY: all zeroes is the empty set; `CPU_SET` sets a bit below `CPU_SETSIZE` (the
    // caller's `cpu` came from `first_two_cpus`); `sched_setaffinity` reads the set's
    // `size_of` bytes and applies to the calling thread (pid 0).
    unsafe {
        let mut set = std::mem::zeroed::<libc::cpu_set_t>();
        libc::CPU_SET(cpu, &mut set);
        let size = std::mem::size_of::<libc::cpu_set_t>();
        (libc::sched_setaffinity(0, size, &set) == 0).then_some(())
    }
}

#[cfg(not(target_os = "linux"))]
fn pin(_cpu: usize) -> Option<()> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where there are two CPUs to pin to, the measurement ends within its patience
    /// (twice it at most, for the threads' start), and a round trip it gives is between the
    /// tens of nanoseconds two cores of one chip take and the millisecond a descheduled
    /// thread would cost. (On a machine busy with other work it may give up: `None`.)
    #[test]
    fn two_cpus_measure_a_round_trip_or_give_up_in_time() {
        if first_two_cpus().is_none() {
            return;
        }
        let started = Instant::now();
        let ns = round_trip_ns();
        assert!(started.elapsed() < 2 * PATIENCE, "{:?}", started.elapsed());
        if let Some(ns) = ns {
            assert!((10.0..100_000.0).contains(&ns), "{ns} ns");
        }
    }
}
