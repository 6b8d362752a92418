//! A `--record` write that fails, as on a full disk: in a test binary of its own, which
//! runs the test again in a child process that limits the size of the files it writes
//! (`prlimit --fsize`, as `ulimit -f`; SIGXFSZ caught, so the write fails with EFBIG
//! instead of ending the process). The child's output is a pipe: the harness's own
//! output, which CI sends to a file, would fail under the limit too.

mod common;

use common::*;
use ratatui::crossterm::event::KeyCode;
use wavedbg_tui::{App, TuiOptions};

/// Set in the child process that runs the test under the limit.
const CHILD: &str = "WAVEDBG_RECORD_LOST_CHILD";

/// The recording stops: the message line says so, the console keeps it, and the status
/// line marks the session `NOT RECORDING` from then on.
#[test]
fn a_failed_recording_is_said_in_the_console_and_marked_on_the_status_line() {
    if std::env::var_os(CHILD).is_some() {
        return recording_lost_under_a_file_size_limit();
    }
    let out = std::process::Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            "--exact",
            "a_failed_recording_is_said_in_the_console_and_marked_on_the_status_line",
            "--test-threads",
            "1",
        ])
        .env(CHILD, "1")
        .output()
        .expect("runs the test again");
    assert!(
        out.status.success(),
        "the child failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The test itself, in the child process (it limits this process's file sizes).
fn recording_lost_under_a_file_size_limit() {
    let dir = std::env::temp_dir().join(format!("wavedbg-tui-lost-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let caught = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGXFSZ, caught).expect("catches SIGXFSZ");
    let options = TuiOptions {
        record: Some(dir.join("rec.wdbg")),
        history: Default::default(),
    };
    let mut app = App::new(common::demo().engine, &options).expect("starts");
    let written = std::fs::metadata(dir.join("rec.wdbg")).map_or(0, |m| m.len());
    // No file of this process grows past what the header took.
    let limited = std::process::Command::new("prlimit")
        .arg(format!("--pid={}", std::process::id()))
        .arg(format!("--fsize={written}"))
        .status();
    assert!(limited.is_ok_and(|s| s.success()), "prlimit");
    let before = text(&draw(&mut app, 120, 40));
    assert!(!before.contains("NOT RECORDING"));
    keys(&mut app, "s");
    assert!(
        app.message
            .as_ref()
            .is_some_and(|m| m.error && m.text.contains("recording stopped")),
        "{:?}",
        app.message
    );
    let t = text(&draw(&mut app, 120, 40));
    assert!(t.contains("warning: recording stopped"), "{t}");
    // The message goes; the mark stays.
    press(&mut app, KeyCode::Esc);
    keys(&mut app, "s");
    let t = text(&draw(&mut app, 120, 40));
    let status = t.lines().nth(38).unwrap_or_default();
    assert!(status.contains("NOT RECORDING"), "{status}");
}
