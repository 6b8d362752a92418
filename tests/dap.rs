//! `wavedbg dap` driven by a real client: Microsoft's `@vscode/debugadapter-testsupport`
//! (the DebugClient VS Code's own adapters are tested with), pinned in
//! tests/dap-client/package.json, runs the node test scripts in tests/dap-client (one
//! session per feature, plus bad input and the TCP transport) with node's own test
//! runner. Outside CI (`CI` unset) a missing node or npm skips the test with a message; in
//! CI it fails (.ci/run installs them).

use std::path::{Path, PathBuf};
use std::process::Command;

fn has(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Installs the pinned client once (`npm ci` from the lock file).
fn install(dir: &Path) {
    if dir
        .join("node_modules/@vscode/debugadapter-testsupport")
        .is_dir()
    {
        return;
    }
    let status = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(dir)
        .status()
        .expect("npm runs");
    assert!(status.success(), "npm ci in {} failed", dir.display());
}

#[test]
fn debugadapter_testsupport_drives_wavedbg_dap() {
    if !has("node") || !has("npm") {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("node and npm are required in CI (.ci/run installs them)");
        }
        eprintln!("SKIPPED tests/dap.rs: node and npm are not installed (apt-get install nodejs npm; .ci/run does)");
        return;
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/dap-client");
    install(&dir);
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/dap-client is there")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".test.js"))
        .collect();
    scripts.sort();
    assert!(!scripts.is_empty(), "no test scripts in {}", dir.display());
    let out = Command::new("node")
        .arg("--test")
        .args(&scripts)
        .current_dir(&dir)
        .env("WAVEDBG", env!("CARGO_BIN_EXE_wavedbg"))
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "node --test failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("# fail 0"), "{stdout}");
}
