//! The Tracy check (tools/tracy-check.sh) as a test: builds impetus-bench with the `tracy`
//! feature, captures `pile` at 2 threads with Tracy's `capture` and checks the zones,
//! frames, plots and thread names against the README's tables.
//!
//! Ignored by default: it needs Tracy's command-line tools of the matching release (built
//! by tools/tracy/build-tools.sh, found through `TRACY_TOOLS` or in target/tracy-tools),
//! a free port 8086 and about a minute. Run it with
//! `TRACY_TOOLS=DIR cargo test -p impetus-scenes --test tracy_check -- --ignored`.

use std::path::Path;
use std::process::Command;

#[test]
#[ignore = "needs Tracy's capture, csvexport and traceinfo (tools/tracy/build-tools.sh)"]
fn tracy_capture_matches_the_readme() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let output = Command::new("bash")
        .arg(root.join("tools/tracy-check.sh"))
        .current_dir(&root)
        .output()
        .expect("run bash tools/tracy-check.sh");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "tools/tracy-check.sh failed ({}):\n{stderr}",
        output.status
    );
    assert!(stdout.contains("tracy-check: ok"), "{stdout}\n{stderr}");
}
