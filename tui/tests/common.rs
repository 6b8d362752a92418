//! Shared helpers for the TUI tests (included with `mod common;`).
#![allow(dead_code)]

use std::time::Duration;

use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use wavedbg_emulator::debug::Engine;
use wavedbg_tui::app::{demo_engine, App};
use wavedbg_tui::ui::DrawState;
use wavedbg_tui::TuiOptions;

/// The demo kernel under the TUI, with an in-memory history.
pub fn demo() -> App {
    let engine = demo_engine(None).expect("the demo opens");
    App::new(engine, &TuiOptions::default()).expect("the app starts")
}

/// A kernel from source.
pub fn engine_of(source: &str) -> Engine {
    let p = wavedbg_emulator::asm::assemble(source, "test.s", None).expect("assembles");
    let options = wavedbg_emulator::machine::LaunchOptions {
        max_instructions: None,
        ..Default::default()
    };
    let mut e = Engine::new(&p, options).expect("launches");
    e.set_kernel_path("test.s");
    e
}

/// A kernel whose single wave spins forever.
pub const SPIN: &str =
    ".kernel spin\n.workgroup 32\n.grid 1\ntop:\n    uaddi u1, u1, 1\n    br top\n";

/// Presses a key and waits for any run it started.
pub fn press(app: &mut App, code: KeyCode) {
    app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
    app.wait_idle(Duration::from_secs(10))
        .expect("the engine survives");
}

/// Types characters (each a key press).
pub fn keys(app: &mut App, text: &str) {
    for c in text.chars() {
        press(app, KeyCode::Char(c));
    }
}

/// Runs command lines and waits for them.
pub fn run(app: &mut App, lines: &[&str]) {
    app.submit(lines);
    app.wait_idle(Duration::from_secs(10))
        .expect("the engine survives");
}

/// Draws the app on a `w` x `h` test terminal, with drawing's caches empty (as on the
/// first frame).
pub fn draw(app: &mut App, w: u16, h: u16) -> Buffer {
    draw_with(app, &mut DrawState::default(), w, h)
}

/// Draws the app on a `w` x `h` test terminal with the caches `state` kept from earlier
/// frames, as the event loop does.
pub fn draw_with(app: &mut App, state: &mut DrawState, w: u16, h: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("test terminal");
    let mut hits = Default::default();
    t.draw(|f| hits = wavedbg_tui::ui::draw(f, app, state))
        .expect("draws");
    app.drawn(hits);
    t.backend().buffer().clone()
}

/// The screen as text, one line per row.
pub fn text(buf: &Buffer) -> String {
    let a = buf.area;
    let mut s = String::new();
    for y in a.top()..a.bottom() {
        for x in a.left()..a.right() {
            s.push_str(buf[(x, y)].symbol());
        }
        s.push('\n');
    }
    s
}

/// The position of the first occurrence of `needle` on the screen.
pub fn find(buf: &Buffer, needle: &str) -> Option<(u16, u16)> {
    let a = buf.area;
    for y in a.top()..a.bottom() {
        let row: Vec<&str> = (a.left()..a.right())
            .map(|x| buf[(x, y)].symbol())
            .collect();
        let line: String = row.concat();
        if let Some(byte) = line.find(needle) {
            // Cells are one char each here (no wide chars in what we search for).
            let col = line[..byte].chars().count() as u16;
            return Some((a.left() + col, y));
        }
    }
    None
}

/// scripts/saxpy_src.s, compiled from scripts/src/saxpy.cl (a line table and variables),
/// opened by its path from the crate's directory (where tests run), as titles show it.
pub fn saxpy() -> App {
    let path = std::path::Path::new("../scripts/saxpy_src.s");
    let engine = demo_engine(Some(path)).expect("saxpy opens");
    App::new(engine, &TuiOptions::default()).expect("the app starts")
}

/// tui/tests/fixtures/two_files.s, compiled from two_files.cl with util.h's `mad` inlined
/// (two higher-level files, code of no line, a label, variables), opened by its path from
/// the crate's directory.
pub fn two_files() -> App {
    let path = std::path::Path::new("tests/fixtures/two_files.s");
    let engine = demo_engine(Some(path)).expect("two_files opens");
    App::new(engine, &TuiOptions::default()).expect("the app starts")
}

/// [`draw_with`], and where the frame left the cursor.
pub fn draw_cursor(
    app: &mut App,
    state: &mut DrawState,
    w: u16,
    h: u16,
) -> (Buffer, ratatui::layout::Position) {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("test terminal");
    let mut hits = Default::default();
    t.draw(|f| hits = wavedbg_tui::ui::draw(f, app, state))
        .expect("draws");
    app.drawn(hits);
    let at = t.get_cursor_position().expect("a cursor");
    (t.backend().buffer().clone(), at)
}
