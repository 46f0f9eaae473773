//! Builds the C examples and the C test program against the static library with the
//! system C compiler (`cc -std=c11 -Wall -Wextra -Werror -pedantic`), runs them and checks
//! their output; checks the header compiles as C++; checks the C pyramid's state hash
//! against the same pyramid built through the Rust API; and, when valgrind is installed,
//! runs the programs under it (`--error-exitcode=1 --leak-check=full`).
//!
//! The static library is the one cargo built for this test run, beside this test's
//! executable in `target/<profile>/deps/`.

use engine::{BodyDef, BodyType, ShapeDef, Vec3, World, WorldDef};
use std::path::{Path, PathBuf};
use std::process::Command;

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The static library cargo built for this test run: `libimpetus.a` beside this test in
/// `target/<profile>/deps/` (where cargo leaves it when it builds the library for the
/// tests; `cargo build` also copies it up to `target/<profile>/`).
fn static_lib() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let deps = exe.parent().expect("target/<profile>/deps");
    let candidates = [
        deps.join("libimpetus.a"),
        deps.parent()
            .map_or_else(PathBuf::new, |d| d.join("libimpetus.a")),
    ];
    candidates
        .iter()
        .find(|lib| lib.exists())
        .cloned()
        .unwrap_or_else(|| panic!("no libimpetus.a at {candidates:?}"))
}

fn out_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("capi");
    std::fs::create_dir_all(&dir).expect("creating the C build folder");
    dir
}

fn compiler() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".to_string())
}

/// Compiles `source` (relative to capi/) into an executable named `name`; returns its path.
fn build(source: &str, name: &str) -> PathBuf {
    build_with(source, name, &static_lib())
}

/// [`build`] against the static library `lib`.
fn build_with(source: &str, name: &str, lib: &Path) -> PathBuf {
    let exe = out_dir().join(name);
    let output = Command::new(compiler())
        .args([
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-g",
            "-O1",
        ])
        .arg("-I")
        .arg(manifest_dir().join("include"))
        .arg(manifest_dir().join(source))
        .arg(lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .output()
        .expect("running the C compiler");
    assert!(
        output.status.success(),
        "compiling {source} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    exe
}

/// Runs `exe` with `args`; returns its standard output, failing on a non-zero exit.
fn run(exe: &Path, args: &[&str]) -> String {
    let output = Command::new(exe)
        .args(args)
        .output()
        .expect("running a C program");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{} {args:?} failed ({}):\n{stdout}\n{}",
        exe.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

#[test]
fn hello_world_box_falls_and_rests() {
    let out = run(&build("examples/hello_world.c", "hello_world"), &[]);
    print!("{out}");
    assert!(out.contains("the box rests at y = 0.500 m"), "{out}");
}

#[test]
fn ragdoll_lands_in_one_piece() {
    let out = run(&build("examples/ragdoll.c", "ragdoll"), &[]);
    print!("{out}");
    assert!(out.contains("ragdoll: 12 bodies, 10 joints"), "{out}");
    assert!(out.contains("ragdoll: done"), "{out}");
}

#[test]
fn api_contract_from_c() {
    let out = run(&build("tests/c/api_test.c", "api_test"), &[]);
    print!("{out}");
    assert!(out.contains("checks passed"), "{out}");
}

#[test]
fn header_compiles_as_c_and_cpp() {
    let header = manifest_dir().join("include/impetus.h");
    for (compiler, lang, std) in [
        (compiler(), "c", "-std=c11"),
        ("c++".to_string(), "c++", "-std=c++11"),
    ] {
        let output = Command::new(&compiler)
            .args([
                "-fsyntax-only",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-pedantic",
                std,
                "-x",
                lang,
            ])
            .arg(&header)
            .output()
            .expect("running the compiler");
        assert!(
            output.status.success(),
            "the header does not compile as {lang}:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// The pyramid of `bench-scenes` (`flat_pyramid(40, 100)` built by `build_impetus` into
/// `world_def(threads)`), through the Rust API: the same calls in the same order.
fn rust_pyramid_hash(steps: usize, threads: usize) -> u64 {
    let mut world = World::new(WorldDef {
        gravity: Vec3::new(0.0, -10.0, 0.0),
        substeps: 4,
        contact_hertz: 30.0,
        contact_damping_ratio: 10.0,
        max_push_speed: 3.0,
        linear_slop: 0.005,
        speculative_distance: 0.02,
        worker_count: threads,
        enable_sleep: false,
        ..WorldDef::default()
    })
    .unwrap();
    let mut add = |dynamic: bool, position: Vec3, half: Vec3, density: f32| {
        let body = world
            .create_body(&BodyDef {
                body_type: if dynamic {
                    BodyType::Dynamic
                } else {
                    BodyType::Static
                },
                position,
                ..Default::default()
            })
            .unwrap();
        world
            .add_shape(
                body,
                &ShapeDef::cuboid(half)
                    .with_density(density)
                    .with_friction(0.6)
                    .with_restitution(0.0),
            )
            .unwrap();
    };
    add(
        false,
        Vec3::new(0.0, -1.0, 0.0),
        Vec3::new(100.0, 1.0, 100.0),
        0.0,
    );
    let base = 40;
    let half = (base as f32 - 1.0) * 0.5;
    for i in 0..base {
        for j in i..base {
            let x = j as f32 - 0.5 * i as f32 - half;
            add(
                true,
                Vec3::new(x, i as f32 + 0.5, 0.0),
                Vec3::splat(0.5),
                100.0,
            );
        }
    }
    for _ in 0..steps {
        world.step(1.0 / 60.0).unwrap();
    }
    world.state_hash()
}

fn c_hash(out: &str) -> u64 {
    let hex = out
        .lines()
        .find_map(|l| l.strip_prefix("state hash "))
        .unwrap_or_else(|| panic!("no state hash in:\n{out}"));
    u64::from_str_radix(hex.trim(), 16).expect("a hex hash")
}

#[test]
fn c_pyramid_hash_matches_the_rust_pyramid() {
    let exe = build("examples/pyramid.c", "pyramid");
    let steps = 30;
    let rust = rust_pyramid_hash(steps, 1);
    for threads in ["1", "2"] {
        let out = run(&exe, &[&steps.to_string(), threads]);
        print!("{out}");
        assert!(out.contains("ms/step"), "{out}");
        assert_eq!(
            c_hash(&out),
            rust,
            "C pyramid at {threads} threads: {:016x} vs Rust {rust:016x}",
            c_hash(&out)
        );
    }
}

fn valgrind() -> Option<&'static str> {
    Command::new("valgrind")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|_| "valgrind")
}

/// The static library built for valgrind: the workspace builds for the machine it runs on
/// (`.cargo/config.toml`: `target-cpu=native`), whose AVX-512 instructions valgrind cannot
/// run, so this one is built for x86-64-v3 (AVX2), in a target folder of its own (no wait
/// on the build lock of the cargo running this test).
fn valgrind_static_lib() -> PathBuf {
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("valgrind-target");
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo
        .current_dir(manifest_dir())
        .args(["build", "-q", "-p", "impetus-capi", "--lib"])
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("CARGO_ENCODED_RUSTFLAGS");
    if cfg!(target_arch = "x86_64") {
        cargo.env("RUSTFLAGS", "-C target-cpu=x86-64-v3");
    }
    let status = cargo.status().expect("running cargo");
    assert!(status.success(), "building the library for valgrind failed");
    target.join("debug/libimpetus.a")
}

/// Runs every C program under valgrind (`--error-exitcode=1 --leak-check=full`): zero
/// errors and no leak, or the test fails with valgrind's report. Skipped (with a line
/// saying so) when valgrind is not installed; `.ci/run` installs it.
///
/// The programs run single-threaded worlds. The pyramid also runs at 2 threads, where the
/// pool's worker threads may still be exiting when `main` returns (rayon does not join them
/// when a pool is dropped): their thread-local blocks are "possibly lost", so that run
/// counts only definite and indirect leaks as errors.
#[test]
fn c_programs_are_valgrind_clean() {
    let Some(valgrind) = valgrind() else {
        println!("valgrind not installed: skipped");
        return;
    };
    let lib = valgrind_static_lib();
    let strict: &[&str] = &[];
    let threaded: &[&str] = &["--errors-for-leak-kinds=definite,indirect"];
    let programs: [(&str, &str, &[&str], &[&str]); 5] = [
        ("examples/hello_world.c", "hello_world-vg", &[], strict),
        ("examples/ragdoll.c", "ragdoll-vg", &[], strict),
        ("examples/pyramid.c", "pyramid-vg", &["3", "1"], strict),
        ("tests/c/api_test.c", "api_test-vg", &[], strict),
        ("examples/pyramid.c", "pyramid-vg", &["3", "2"], threaded),
    ];
    for (source, name, args, extra) in programs {
        let exe = build_with(source, name, &lib);
        let output = Command::new(valgrind)
            .args(["--error-exitcode=1", "--leak-check=full"])
            .args(extra)
            .arg(&exe)
            .args(args)
            .output()
            .expect("running valgrind");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "valgrind found errors in {source} {args:?}:\n{stderr}"
        );
        let summary = stderr
            .lines()
            .find(|l| l.contains("ERROR SUMMARY"))
            .unwrap_or("(no summary)");
        assert!(summary.contains("ERROR SUMMARY: 0 errors"), "{stderr}");
        println!("valgrind {source} {args:?}: {summary}");
    }
}
