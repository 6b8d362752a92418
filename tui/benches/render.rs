//! Rendering one full frame with every pane filled (at a breakpoint, with breakpoints,
//! watchpoints, console output and changed values) on a ratatui `TestBackend`. The
//! target is at most 2 ms per frame at 200x60 (docs/performance.md, "TUI rendering").

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use wavedbg_tui::app::demo_engine;
use wavedbg_tui::{App, TuiOptions};

fn main() {
    divan::main();
}

fn filled_app() -> App {
    let engine = match demo_engine(None) {
        Ok(e) => e,
        Err(e) => panic!("the demo does not open: {e}"),
    };
    let mut app = match App::new(engine, &TuiOptions::default()) {
        Ok(a) => a,
        Err(e) => panic!("the app does not start: {e}"),
    };
    app.submit(&[
        "break next_word",
        "break merged if v9 > 8",
        "watch shared:0x40 16",
        "rwatch global:0x100000000 4",
        "continue",
        "continue",
        "print v4",
        "info waves",
    ]);
    if app.wait_idle(std::time::Duration::from_secs(30)).is_err() {
        panic!("the engine died");
    }
    app
}

fn frame(bencher: divan::Bencher, w: u16, h: u16) {
    let mut app = filled_app();
    let mut terminal = match Terminal::new(TestBackend::new(w, h)) {
        Ok(t) => t,
        Err(e) => panic!("no test terminal: {e}"),
    };
    // Kept across frames, as the event loop keeps it.
    let mut state = wavedbg_tui::ui::DrawState::default();
    bencher.bench_local(|| {
        // A new terminal buffer state each time would only add the clear; the draw below
        // renders every pane into the frame and diffs it against the previous one.
        let mut hits = Default::default();
        let r = terminal.draw(|f| hits = wavedbg_tui::ui::draw(f, &app, &mut state));
        app.drawn(hits);
        divan::black_box(r.is_ok())
    });
}

/// One frame at 200x60 (the 2 ms target).
#[divan::bench]
fn full_frame_200x60(bencher: divan::Bencher) {
    frame(bencher, 200, 60);
}

/// One frame at 120x40.
#[divan::bench]
fn full_frame_120x40(bencher: divan::Bencher) {
    frame(bencher, 120, 40);
}

/// One frame at 80x24 (the compact, tabbed layout).
#[divan::bench]
fn full_frame_80x24(bencher: divan::Bencher) {
    frame(bencher, 80, 24);
}
