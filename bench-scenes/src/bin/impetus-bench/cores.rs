//! How close the machine's first two CPUs are: the round trip of one cache line between
//! two threads pinned to them, which `compare`, `sweep` and `report` measure around every
//! run at two threads or more; and what the machine gives two threads on a loop without
//! serial parts ([`ceiling`], the `cores` subcommand).
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
            spin_until(|| line.0.load(Ordering::Acquire) == wait, &stop, began)?;
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

/// Spins until `done()`; `None` (and `stop` set, for the other side) once `stop` is set or
/// [`PATIENCE`] has passed since `began`, looked at every 4,096 spins.
fn spin_until(done: impl Fn() -> bool, stop: &AtomicBool, began: Instant) -> Option<()> {
    let mut spins = 0u32;
    while !done() {
        std::hint::spin_loop();
        spins = spins.wrapping_add(1);
        if spins % 4096 == 0 && (stop.load(Ordering::Relaxed) || began.elapsed() > PATIENCE) {
            stop.store(true, Ordering::Relaxed);
            return None;
        }
    }
    Some(())
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

/// What two threads gain over one on a loop with no serial part and no shared data (see
/// [`ceiling`]): a kernel's time per pass on one thread and on two, in µs.
#[derive(Clone, Copy, Debug)]
pub struct Ceiling {
    pub one: f64,
    pub two: f64,
}

impl Ceiling {
    /// One thread's time over two threads'.
    pub fn speedup(&self) -> f64 {
        self.one / self.two
    }
}

/// The reference loops of [`ceiling`]: floating-point chains on 32 kB (the L1 cache's
/// size), and a streaming update of 4 MB (more than a core's L2: the size of a solver
/// pass's batches and bodies in the standard scenes). A pass takes some 30 µs on one
/// thread, a stage's length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    Compute,
    Stream,
}

impl Kernel {
    /// Floats each of the kernel's two arrays holds, and passes a measurement makes (some
    /// 12 ms on one thread on the guests these benchmarks ran on).
    fn shape(self) -> (usize, u32) {
        match self {
            Kernel::Compute => (4 * 1024, 400),
            Kernel::Stream => (512 * 1024, 400),
        }
    }

    /// One pass over `a` (with `b` beside it).
    #[inline(never)]
    fn pass(self, a: &mut [f32], b: &[f32]) {
        match self {
            Kernel::Compute => {
                // Eight rounds of chains of 32 (unrolled, and the elements' chains side by
                // side in vector lanes).
                for _ in 0..8 {
                    for (x, &y) in a.iter_mut().zip(b) {
                        let mut v = *x;
                        for _ in 0..32 {
                            v = v * 0.999 + y;
                        }
                        *x = v;
                    }
                }
            }
            Kernel::Stream => {
                for (x, &y) in a.iter_mut().zip(b) {
                    *x = *x * 0.999 + y;
                }
            }
        }
    }
}

/// The time per pass of `kernel` on the first CPU alone, then split in halves between the
/// first two CPUs (each thread pinned to its CPU, a spin barrier after every pass, as a
/// solver stage ends), or `None` where there are not two CPUs to pin to or a side waited
/// longer than [`PATIENCE`] for the other (a busy machine). The loop has no
/// serial part and its halves share no line, so its speed-up is what the machine gives two
/// threads at that moment: a ceiling for any parallel program's, which a virtual machine's
/// placement of its CPUs and the host's clocks move (`docs/decisions.md`, "The host's
/// ceiling for two threads").
pub fn ceiling(kernel: Kernel) -> Option<Ceiling> {
    let [first, second] = first_two_cpus()?;
    let (len, passes) = kernel.shape();
    let (mut a, b) = (vec![1.0f32; len], vec![0.001f32; len]);
    // One thread: the whole array each pass.
    let one = std::thread::scope(|s| {
        s.spawn(|| {
            pin(first)?;
            let t = Instant::now();
            for _ in 0..passes {
                kernel.pass(&mut a, &b);
            }
            Some(t.elapsed())
        })
        .join()
        .ok()
        .flatten()
    })?;
    // Two threads: a half each, the first side announcing each pass and waiting for the
    // second side's half of it.
    let (a0, a1) = a.split_at_mut(len / 2);
    let (b0, b1) = b.split_at(len / 2);
    let (started, finished) = (Line(AtomicU32::new(0)), Line(AtomicU32::new(0)));
    let stop = AtomicBool::new(false);
    let wait = |line: &Line, at_least: u32, began: Instant| {
        spin_until(|| line.0.load(Ordering::Acquire) >= at_least, &stop, began)
    };
    let two = std::thread::scope(|s| {
        let first_side = s.spawn(|| -> Option<Duration> {
            if pin(first).is_none() {
                stop.store(true, Ordering::Relaxed);
                return None;
            }
            let began = Instant::now();
            for pass in 1..=passes {
                started.0.store(pass, Ordering::Release);
                kernel.pass(a0, b0);
                wait(&finished, pass, began)?;
            }
            Some(began.elapsed())
        });
        let second_side = s.spawn(|| -> Option<()> {
            if pin(second).is_none() {
                stop.store(true, Ordering::Relaxed);
                return None;
            }
            let began = Instant::now();
            for pass in 1..=passes {
                wait(&started, pass, began)?;
                kernel.pass(a1, b1);
                finished.0.store(pass, Ordering::Release);
            }
            Some(())
        });
        let second = second_side.join().ok().flatten();
        first_side
            .join()
            .ok()
            .flatten()
            .filter(|_| second.is_some())
    })?;
    let per_pass = |d: Duration| d.as_secs_f64() * 1.0e6 / f64::from(passes);
    Some(Ceiling {
        one: per_pass(one),
        two: per_pass(two),
    })
}

/// The round trip and both kernels' ceilings, measured one after the other.
#[derive(Clone, Copy, Debug)]
pub struct HostReading {
    pub round_trip_ns: Option<f64>,
    pub compute: Option<Ceiling>,
    pub stream: Option<Ceiling>,
}

impl HostReading {
    /// Measures the round trip, then [`Kernel::Compute`]'s and [`Kernel::Stream`]'s
    /// ceilings (some 60 ms in all).
    pub fn measure() -> Self {
        Self {
            round_trip_ns: round_trip_ns(),
            compute: ceiling(Kernel::Compute),
            stream: ceiling(Kernel::Stream),
        }
    }

    /// `"compute 1.98x, stream 1.99x (round trip 55 ns)"`, a dash for what gave up.
    pub fn describe(&self) -> String {
        let speedup =
            |c: Option<Ceiling>| c.map_or("–".into(), |c| format!("{:.2}x", c.speedup()));
        format!(
            "compute {}, stream {} (round trip {})",
            speedup(self.compute),
            speedup(self.stream),
            show(self.round_trip_ns)
        )
    }

    /// The reading as JSON: the round trip in ns, each kernel's µs per pass on one thread
    /// and on two (null for what gave up).
    pub fn to_json(self) -> serde_json::Value {
        let kernel =
            |c: Option<Ceiling>| c.map(|c| serde_json::json!({ "one_us": c.one, "two_us": c.two }));
        serde_json::json!({
            "round_trip_ns": self.round_trip_ns,
            "compute": kernel(self.compute),
            "stream": kernel(self.stream),
        })
    }
}

/// `cores`: the first two CPUs' round trip and the two kernels' ceilings, `times` times,
/// one line each.
pub fn cores(a: &crate::cli::CoresArgs) -> Result<(), String> {
    if first_two_cpus().is_none() {
        return Err("cores: this process cannot pin threads to two CPUs".into());
    }
    println!(
        "{:>10}  {:>10} {:>10} {:>8}  {:>10} {:>10} {:>8}",
        "round trip", "compute 1t", "2t (µs)", "speed-up", "stream 1t", "2t (µs)", "speed-up"
    );
    let cell = |c: Option<Ceiling>| match c {
        Some(c) => format!("{:>10.1} {:>10.1} {:>7.2}x", c.one, c.two, c.speedup()),
        None => format!("{:>10} {:>10} {:>8}", "–", "–", "–"),
    };
    for _ in 0..a.times.max(1) {
        let r = HostReading::measure();
        println!(
            "{:>10}  {}  {}",
            show(r.round_trip_ns),
            cell(r.compute),
            cell(r.stream)
        );
    }
    Ok(())
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

    /// Where there are two CPUs, each kernel's ceiling ends within its patience (the
    /// one-thread loop's few milliseconds added) with positive times per pass, or gives up
    /// (`None`, on a machine busy with other work).
    #[test]
    fn the_ceiling_is_measured_on_two_cpus() {
        if first_two_cpus().is_none() {
            return;
        }
        for kernel in [Kernel::Compute, Kernel::Stream] {
            let started = Instant::now();
            let Some(c) = ceiling(kernel) else { continue };
            assert!(started.elapsed() < 8 * PATIENCE, "{:?}", started.elapsed());
            assert!(c.one > 0.0 && c.two > 0.0, "{kernel:?}: {c:?}");
        }
    }

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
