//! With the `jolt` feature: compiles bench-scenes/jolt-shim/shim.cpp, the constraints,
//! height fields and settings that JoltC 0.3 does not expose (see src/jolt.rs), against the
//! Jolt headers that `joltc-sys` bundles, with the definitions and instruction-set flags
//! that Jolt's CMake build (the CMake files bundled in `joltc-sys`) gives the library in
//! the Release configuration `joltc-sys` builds: `NDEBUG`, `JPH_DEBUG_RENDERER`,
//! `JPH_PROFILE_ENABLED`, the x86-64 `JPH_USE_*` set with its `-m` flags, and (MSVC only)
//! `JPH_FLOATING_POINT_EXCEPTIONS_ENABLED`; no `JPH_OBJECT_LAYER_BITS` (16 bits, the
//! header's default) and no `JPH_DOUBLE_PRECISION`. A mismatch would change the layout of
//! Jolt's objects: the shim checks the library's version and feature bits at run time
//! (`impetus_jolt_verify_version`).
//!
//! The `joltc-sys` sources are found, in order: in `JOLTC_SYS_DIR` (a directory holding
//! `JoltC/`), from `cargo metadata` (any package source: registry, git or vendored), and in
//! the registry sources under `CARGO_HOME` (the version from Cargo.lock).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=JOLTC_SYS_DIR");
    // `cc` is there only with the feature, so the call is compiled only with it too.
    #[cfg(feature = "jolt")]
    if std::env::var_os("CARGO_FEATURE_JOLT").is_some() {
        shim::compile();
    }
}

/// The shim's compilation (`cc` is a build dependency of the `jolt` feature only).
#[cfg(feature = "jolt")]
mod shim {
    use std::env;
    use std::path::{Path, PathBuf};
    use std::process::Command;

    /// Compiles jolt-shim/shim.cpp into a static library linked into this crate.
    pub fn compile() {
        println!("cargo:rerun-if-changed=jolt-shim/shim.cpp");
        let joltc = match joltc_sys_dir() {
            Some(dir) => dir,
            None => {
                eprintln!(
                    "bench-scenes: cannot find the joltc-sys sources (JoltC/JoltPhysics/Jolt/Jolt.h); \
                     set JOLTC_SYS_DIR to the joltc-sys package directory"
                );
                std::process::exit(1);
            }
        };
        let jolt_root = joltc.join("JoltC").join("JoltPhysics");
        println!(
            "cargo:rerun-if-changed={}",
            jolt_root.join("Jolt").join("Jolt.cmake").display()
        );

        let target_arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
        let target_env = env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
        let msvc = target_env == "msvc";
        let mut build = cc::Build::new();
        build
            .cpp(true)
            .std("c++17")
            .file("jolt-shim/shim.cpp")
            .include(&jolt_root)
            .warnings(false)
            // Jolt's Release flags: -O3 and NDEBUG.
            .opt_level(3)
            .define("NDEBUG", None)
            // Jolt's CMake build, Release: the debug renderer and the profiler are compiled in
            // (DEBUG_RENDERER_IN_DEBUG_AND_RELEASE, PROFILER_IN_DEBUG_AND_RELEASE).
            .define("JPH_DEBUG_RENDERER", None)
            .define("JPH_PROFILE_ENABLED", None);
        // No JPH_OBJECT_LAYER_BITS: joltc-sys passes none to CMake (its `object-layer-u32`
        // feature is off here), so the option is OFF and Jolt's header default, 16, holds.
        if msvc {
            // Jolt's CMake build: floating-point exceptions in Debug and Release, MSVC only.
            build.define("JPH_FLOATING_POINT_EXCEPTIONS_ENABLED", None);
        }
        if target_arch == "x86_64" {
            // The default instruction sets (USE_SSE4_1 ... USE_FMADD on, USE_AVX512 off) and the
            // definitions Jolt's CMake build emits for them.
            for d in [
                "JPH_USE_AVX2",
                "JPH_USE_AVX",
                "JPH_USE_SSE4_1",
                "JPH_USE_SSE4_2",
                "JPH_USE_LZCNT",
                "JPH_USE_TZCNT",
                "JPH_USE_F16C",
                "JPH_USE_FMADD",
            ] {
                build.define(d, None);
            }
            if msvc {
                build.flag("/arch:AVX2");
            } else {
                for f in [
                    "-mavx2",
                    "-mbmi",
                    "-mpopcnt",
                    "-mlzcnt",
                    "-mf16c",
                    "-mfma",
                    "-mfpmath=sse",
                ] {
                    build.flag(f);
                }
            }
        }
        if !msvc {
            // Jolt's CMake build: GCC turns off FMA contraction, clang uses the precise
            // floating-point model (Jolt's code is written for it).
            if build.get_compiler().is_like_clang() {
                build.flag("-ffp-model=precise");
            } else {
                build.flag("-ffp-contract=off");
            }
        }
        build.compile("impetus_jolt_shim");
    }

    /// The joltc-sys package directory (the one holding `JoltC/`).
    fn joltc_sys_dir() -> Option<PathBuf> {
        let valid = |dir: &Path| {
            dir.join("JoltC/JoltPhysics/Jolt/Jolt.h").is_file()
                && dir
                    .join("JoltC/JoltPhysics/Jolt/Physics/Collision/Shape/HeightFieldShape.h")
                    .is_file()
        };
        if let Some(dir) = env::var_os("JOLTC_SYS_DIR").map(PathBuf::from) {
            return valid(&dir).then_some(dir);
        }
        from_metadata()
            .filter(|d| valid(d))
            .or_else(|| from_registry().filter(|d| valid(d)))
    }

    /// The joltc-sys directory from `cargo metadata` (offline: everything is downloaded by the
    /// time build scripts run): the package directory of the manifest that has JoltC beside it.
    fn from_metadata() -> Option<PathBuf> {
        let cargo = env::var_os("CARGO")?;
        let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR")?).join("Cargo.toml");
        let output = Command::new(cargo)
            .args(["metadata", "--format-version", "1", "--offline"])
            .args(["--features", "jolt", "--manifest-path"])
            .arg(&manifest)
            .output()
            .ok()?;
        if !output.status.success() {
            return None;
        }
        let json = String::from_utf8(output.stdout).ok()?;
        let key = "\"manifest_path\":\"";
        json.match_indices(key)
            .filter_map(|(at, _)| {
                let rest = &json[at + key.len()..];
                let path = unescape(&rest[..rest.find('"')?]);
                Some(Path::new(&path).parent()?.to_path_buf())
            })
            .find(|dir| dir.join("JoltC/JoltPhysics/Jolt/Jolt.h").is_file())
    }

    /// A JSON string's content with its escapes (`\\`, `\"`, `\/`) undone (paths need no more).
    fn unescape(s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        let mut chars = s.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                if let Some(next) = chars.next() {
                    out.push(next);
                }
            } else {
                out.push(c);
            }
        }
        out
    }

    /// The joltc-sys directory in the registry sources, `CARGO_HOME/registry/src/*/
    /// joltc-sys-<version>`, the version from the workspace's Cargo.lock.
    fn from_registry() -> Option<PathBuf> {
        let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR")?);
        let lock = manifest_dir
            .ancestors()
            .map(|d| d.join("Cargo.lock"))
            .find(|p| p.is_file())?;
        let text = std::fs::read_to_string(lock).ok()?;
        let version = text.split("[[package]]").find_map(|package| {
            let mut lines = package.lines().map(str::trim);
            lines
                .clone()
                .any(|l| l == "name = \"joltc-sys\"")
                .then(|| {
                    lines
                        .find_map(|l| l.strip_prefix("version = \""))
                        .map(|v| v.trim_end_matches('"').to_string())
                })?
        })?;
        let home = env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .or_else(|| env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
        let sources = std::fs::read_dir(home.join("registry").join("src")).ok()?;
        sources
            .filter_map(Result::ok)
            .map(|index| index.path().join(format!("joltc-sys-{version}")))
            .find(|dir| dir.is_dir())
    }
}
