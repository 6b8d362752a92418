//! Running the `wavedbg` binary from the integration tests (included with `mod bin;`).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// `wavedbg ARGS` run in `dir` with `stdin` (a history file of its own, backtraces on):
/// its exit code, standard output and standard error.
pub fn wavedbg_in(dir: &Path, args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wavedbg"))
        .args(args)
        .current_dir(dir)
        .env("RUST_BACKTRACE", "1")
        .env(
            "WAVEDBG_HISTORY",
            std::env::temp_dir().join(format!("wavedbg-test-history-{}", std::process::id())),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start wavedbg");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
