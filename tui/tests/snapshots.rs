//! Snapshot tests of the main views (ratatui `TestBackend`, insta) at 120x40 and 80x24.
//! The snapshots are the buffer's debug form, which lists every cell style, so colours
//! and dimming are checked along with the text; cell-style assertions pin the important
//! ones (a changed value is yellow and marked `*`, an inactive lane is dimmed).

mod common;

use common::*;
use ratatui::crossterm::event::KeyCode;
use ratatui::style::{Color, Modifier};

/// At a breakpoint in the middle of the demo: every pane has something to show.
fn at_breakpoint() -> wavedbg_tui::App {
    let mut app = demo();
    run(
        &mut app,
        &["break next_word", "watch shared:0x10 4", "continue"],
    );
    app
}

#[test]
fn main_view_120x40() {
    let mut app = at_breakpoint();
    let buf = draw(&mut app, 120, 40);
    insta::assert_snapshot!("main_120x40_text", text(&buf));
    insta::assert_debug_snapshot!("main_120x40_styled", buf);
}

#[test]
fn stepping_highlights_changed_lanes_120x40() {
    let mut app = demo();
    // vlaneid v0 and the add into v1: lanes 1-31 change (lane 0 stays 0).
    run(&mut app, &["stepi 6"]);
    let buf = draw(&mut app, 120, 40);
    insta::assert_debug_snapshot!("step_120x40_styled", buf);
    // Lane 1 of v0 changed: yellow, with a `*` after it.
    let (x, y) = find(&buf, "   1  00000001*").expect("lane 1 row");
    let value = &buf[(x + 6, y)];
    assert_eq!(value.symbol(), "0");
    assert_eq!(value.fg, Color::Yellow);
    assert!(value.modifier.contains(Modifier::BOLD));
    assert_eq!(buf[(x + 14, y)].symbol(), "*");
    // Lane 0 of v0 did not change: plain, no marker.
    let (x0, y0) = find(&buf, ">  0  00000000 ").expect("lane 0 row");
    assert_eq!(buf[(x0 + 6, y0)].fg, Color::Reset);
    assert_eq!(buf[(x0 + 14, y0)].symbol(), " ");
}

#[test]
fn inactive_lanes_are_dimmed_80x24() {
    let mut app = demo();
    run(&mut app, &["stepi 6", "set exec = 0x0000ffff", "lane 20"]);
    keys(&mut app, "3");
    let buf = draw(&mut app, 80, 24);
    insta::assert_snapshot!("lanes_80x24_text", text(&buf));
    insta::assert_debug_snapshot!("lanes_80x24_styled", buf);
    // Lane 17 is inactive: its number in parentheses, the row dimmed.
    let (x, y) = find(&buf, "(17)").expect("lane 17 row");
    assert_eq!(buf[(x, y)].fg, Color::DarkGray);
    assert!(
        buf[(x + 6, y)].modifier.contains(Modifier::DIM) || buf[(x + 6, y)].fg == Color::Yellow
    );
    // Lane 3 is active: not dimmed.
    let (x, y) = find(&buf, "   3  ").expect("lane 3 row");
    assert!(!buf[(x + 3, y)].modifier.contains(Modifier::DIM));
    // The selected inactive lane is the cursor (focused pane).
    let (x, y) = find(&buf, ">(20)").expect("lane 20 row");
    assert!(buf[(x, y)].modifier.contains(Modifier::REVERSED));
}

#[test]
fn compact_code_view_80x24() {
    let mut app = at_breakpoint();
    let buf = draw(&mut app, 80, 24);
    insta::assert_snapshot!("code_80x24_text", text(&buf));
    insta::assert_debug_snapshot!("code_80x24_styled", buf);
}

#[test]
fn memory_view_marks_watched_and_changed_bytes_80x24() {
    let mut app = demo();
    run(&mut app, &["break merged", "continue"]);
    keys(&mut app, "5m");
    run(&mut app, &["watch shared:0x8 8"]);
    let buf = draw(&mut app, 80, 24);
    insta::assert_snapshot!("memory_80x24_text", text(&buf));
    let t = text(&buf);
    assert!(
        t.contains("W*"),
        "the first row is watched and changed:\n{t}"
    );
}

#[test]
fn help_overlay_80x24_and_120x40() {
    let mut app = demo();
    keys(&mut app, "?");
    let small = draw(&mut app, 80, 24);
    insta::assert_snapshot!("help_80x24_text", text(&small));
    let big = draw(&mut app, 120, 40);
    insta::assert_snapshot!("help_120x40_text", text(&big));
    press(&mut app, KeyCode::Esc);
}

#[test]
fn resizing_redraws_every_size() {
    let mut app = at_breakpoint();
    for (w, h) in [
        (200, 60),
        (80, 24),
        (100, 30),
        (99, 29),
        (40, 12),
        (10, 4),
        (300, 100),
    ] {
        let buf = draw(&mut app, w, h);
        assert_eq!(buf.area.width, w);
        if w >= 20 && h >= 6 {
            let t = text(&buf);
            assert!(t.contains("HIT"), "{w}x{h}:\n{t}");
        }
    }
}

#[test]
fn the_command_line_and_status_while_running() {
    let mut app = demo();
    keys(&mut app, ":break mer");
    let buf = draw(&mut app, 80, 24);
    let t = text(&buf);
    assert!(
        t.lines()
            .nth(23)
            .is_some_and(|l| l.starts_with(":break mer")),
        "{t}"
    );
}
