//! A `--record` write that fails, as on a full disk: in a test binary of its own, as it
//! limits the size of the files this process writes (`prlimit --fsize`, as `ulimit -f`;
//! SIGXFSZ caught, so the write fails with EFBIG instead of ending the process).

mod common;

use common::*;
use ratatui::crossterm::event::KeyCode;
use wavedbg_tui::{App, TuiOptions};

/// The recording stops: the message line says so, the console keeps it, and the status
/// line marks the session `NOT RECORDING` from then on.
#[test]
fn a_failed_recording_is_said_in_the_console_and_marked_on_the_status_line() {
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
