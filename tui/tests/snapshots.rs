//! Snapshot tests of the views (ratatui `TestBackend`, insta): the screen's text, so a
//! ratatui upgrade that draws the same text churns nothing, with targeted assertions on
//! the cells whose style matters (the PC line's colour, the breakpoint marker's, a changed
//! value's, an inactive lane's dimming, the marks of the lanes a stop concerns). The
//! views added for issue 15 (source beside the code, maximised panes, the console full
//! screen and scrolled back, completions while typing, the EXEC bitmap and active-lane
//! sparkline, the lanes of a stop) are taken at 80x24, 120x40 and 200x60.

mod common;

use common::*;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::KeyCode;
use ratatui::style::{Color, Modifier};
use wavedbg_tui::app::{CodeLayout, Pane};
use wavedbg_tui::{App, TuiOptions};

/// The sizes every new view is taken at.
const SIZES: [(u16, u16); 3] = [(80, 24), (120, 40), (200, 60)];

/// At a breakpoint in the middle of the demo: every pane has something to show.
fn at_breakpoint() -> App {
    let mut app = demo();
    run(
        &mut app,
        &["break next_word", "watch shared:0x10 4", "continue"],
    );
    app
}

/// Takes the snapshot `name_WxH` of `app` at every size of [`SIZES`].
fn at_every_size(app: &mut App, name: &str) {
    for (w, h) in SIZES {
        let buf = draw(app, w, h);
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), text(&buf));
    }
}

/// The cell at the first occurrence of `needle`, `offset` chars into it.
fn cell_at<'a>(buf: &'a Buffer, needle: &str, offset: u16) -> &'a ratatui::buffer::Cell {
    let (x, y) = find(buf, needle).unwrap_or_else(|| panic!("`{needle}` is not on screen"));
    &buf[(x + offset, y)]
}

#[test]
fn main_view_120x40() {
    let mut app = at_breakpoint();
    let buf = draw(&mut app, 120, 40);
    insta::assert_snapshot!("main_120x40_text", text(&buf));
    // The PC line: its marker and text green and bold.
    let pc = cell_at(&buf, "=>  003c  wait.ls", 10);
    assert_eq!((pc.symbol(), pc.fg), ("w", Color::Green));
    assert!(pc.modifier.contains(Modifier::BOLD));
    assert_eq!(cell_at(&buf, "=>  003c", 0).fg, Color::Green);
    // The breakpoint marker in the list: red.
    let bp = cell_at(&buf, "1 ● break", 2);
    assert_eq!((bp.symbol(), bp.fg), ("●", Color::Red));
    // A value the run changed: yellow, bold, marked `*`.
    let changed = cell_at(&buf, "00000001* 00000001*", 0);
    assert_eq!(changed.fg, Color::Yellow);
    assert!(changed.modifier.contains(Modifier::BOLD));
    // The lane that wrote the watched word is selected and marked in magenta.
    assert_eq!(app.engine.selected_lane, 4);
    let mark = cell_at(&buf, ">◆  4 ", 1);
    assert_eq!((mark.symbol(), mark.fg), ("◆", Color::Magenta));
}

#[test]
fn stepping_highlights_changed_lanes_120x40() {
    let mut app = demo();
    // vlaneid v0 and the add into v1: lanes 1-31 change (lane 0 stays 0).
    run(&mut app, &["stepi 6"]);
    let buf = draw(&mut app, 120, 40);
    insta::assert_snapshot!("step_120x40_text", text(&buf));
    // Lane 1 of v0 changed: yellow, with a `*` after it.
    let (x, y) = find(&buf, "    1  00000001*").expect("lane 1 row");
    let value = &buf[(x + 7, y)];
    assert_eq!(value.symbol(), "0");
    assert_eq!(value.fg, Color::Yellow);
    assert!(value.modifier.contains(Modifier::BOLD));
    assert_eq!(buf[(x + 15, y)].symbol(), "*");
    // Lane 0 of v0 did not change: plain, no marker.
    let (x0, y0) = find(&buf, ">   0  00000000 ").expect("lane 0 row");
    assert_eq!(buf[(x0 + 7, y0)].fg, Color::Reset);
    assert_eq!(buf[(x0 + 15, y0)].symbol(), " ");
}

#[test]
fn inactive_lanes_are_dimmed_80x24() {
    let mut app = demo();
    run(&mut app, &["stepi 6", "set exec = 0x0000ffff", "lane 20"]);
    keys(&mut app, "3");
    let buf = draw(&mut app, 80, 24);
    insta::assert_snapshot!("lanes_80x24_text", text(&buf));
    // Lane 17 is inactive: its number in parentheses, the row dimmed.
    let (x, y) = find(&buf, "(17)").expect("lane 17 row");
    assert_eq!(buf[(x, y)].fg, Color::DarkGray);
    assert!(
        buf[(x + 6, y)].modifier.contains(Modifier::DIM) || buf[(x + 6, y)].fg == Color::Yellow
    );
    // Lane 3 is active: not dimmed.
    let (x, y) = find(&buf, "    3  ").expect("lane 3 row");
    assert!(!buf[(x + 4, y)].modifier.contains(Modifier::DIM));
    // The selected inactive lane is the cursor (focused pane).
    let (x, y) = find(&buf, "> (20)").expect("lane 20 row");
    assert!(buf[(x, y)].modifier.contains(Modifier::REVERSED));
}

#[test]
fn compact_code_view_80x24() {
    let mut app = at_breakpoint();
    run(&mut app, &["break *0x44"]);
    let buf = draw(&mut app, 80, 24);
    insta::assert_snapshot!("code_80x24_text", text(&buf));
    // The PC line green; the cursor on it (the focused pane) reversed.
    let pc = cell_at(&buf, "=>  003c  wait", 10);
    assert_eq!((pc.symbol(), pc.fg), ("w", Color::Green));
    assert!(pc.modifier.contains(Modifier::REVERSED));
    let bp = cell_at(&buf, " ● 0044", 1);
    assert_eq!((bp.symbol(), bp.fg), ("●", Color::Red));
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
    // Too small for the whole overlay: one entry a row, wrapped, never cut; it scrolls and
    // the title says where it is.
    let tiny = text(&draw(&mut app, 40, 12));
    assert!(tiny.contains("Keys 1-10 of"), "{tiny}");
    press(&mut app, KeyCode::Esc);
}

/// Every size the issue names, down to the smallest the TUI draws panes at.
const ALL_SIZES: [(u16, u16); 6] = [(20, 6), (40, 15), (80, 24), (100, 30), (120, 40), (200, 60)];

/// Takes the snapshot `name_WxH` of `app` at every size of [`ALL_SIZES`].
fn at_all_sizes(app: &mut App, name: &str) {
    for (w, h) in ALL_SIZES {
        let buf = draw(app, w, h);
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), text(&buf));
    }
}

/// The help at every size: from 80 columns two entries a row, below one, wrapped, so no
/// entry is cut (at 40x15 the right-hand entries used to be gone); it scrolls.
#[test]
fn the_help_is_whole_at_every_size() {
    let mut app = demo();
    keys(&mut app, "?");
    at_all_sizes(&mut app, "help");
    for (w, h) in ALL_SIZES.into_iter().filter(|(w, _)| *w <= 80) {
        let screen = text(&draw(&mut app, w, h));
        for row in screen.lines().skip(1) {
            // Inside the overlay (it covers the screen below 80 columns).
            let inner: String = row.chars().skip(1).take(w as usize - 2).collect();
            assert!(!inner.trim_end().ends_with('…'), "{w}x{h}: cut: {row}");
        }
    }
    // Scrolled to its end at 40x15: the last entries show.
    let _ = draw(&mut app, 40, 15);
    press(&mut app, KeyCode::End);
    let end = text(&draw(&mut app, 40, 15));
    assert!(end.contains("quit"), "{end}");
}

/// The empty breakpoints pane's hint is cut at a word with `…`, never mid-word (a stray
/// "x" at 100x30 before).
#[test]
fn the_breakpoints_hint_is_cut_at_a_word() {
    let mut app = demo();
    at_all_sizes(&mut app, "main");
    let screen = text(&draw(&mut app, 100, 30));
    assert!(!screen.contains(" x x"), "{screen}");
    assert!(!screen.contains("or x"), "{screen}");
}

/// `/` highlights its matches in the source and the code view, and the footer shows the
/// prompt while it is typed.
#[test]
fn search_matches_are_highlighted() {
    let mut app = demo();
    keys(&mut app, "8/wait");
    let typing = text(&draw(&mut app, 120, 40));
    assert!(
        typing
            .lines()
            .last()
            .is_some_and(|l| l.starts_with("/wait")),
        "{typing}"
    );
    press(&mut app, KeyCode::Enter);
    at_all_sizes(&mut app, "search");
    let buf = draw(&mut app, 120, 40);
    let (x, y) = find(&buf, "wait").expect("a match on screen");
    assert_eq!(buf[(x, y)].bg, Color::Yellow);
}

/// Resized splits: a wider left column, a taller lane grid and console, a shorter source.
#[test]
fn resized_splits() {
    let mut app = demo();
    run(
        &mut app,
        &[
            "set split left 50",
            "set split lanes 60",
            "set split console 40",
            "set split source 30",
        ],
    );
    at_all_sizes(&mut app, "splits");
}

#[test]
fn the_source_beside_the_code() {
    let mut app = at_breakpoint();
    // A breakpoint, other waves and the PC are marked on their source lines; in the
    // compact layout the source is its own tab (8).
    assert_eq!(app.layout, CodeLayout::Split);
    app.focus = Pane::Source;
    at_every_size(&mut app, "source");
    let buf = draw(&mut app, 200, 60);
    let pc = cell_at(&buf, "=>   43      wait", 13);
    assert_eq!((pc.symbol(), pc.fg), ("w", Color::Green));
    let other = cell_at(&buf, "->   38", 0);
    assert_eq!(other.fg, Color::DarkGray);
    // Comments are dimmed.
    let comment = cell_at(&buf, "; 256 * wg", 0);
    assert_eq!(comment.fg, Color::DarkGray);
    // `v` then shows the source alone.
    keys(&mut app, "v");
    assert_eq!(app.layout, CodeLayout::Src);
    at_every_size(&mut app, "source_only");
    let t = text(&draw(&mut app, 120, 40));
    assert!(!t.contains("0x003c  wait"), "no disassembly:\n{t}");
    // The breakpoint at next_word is on line 55 of the demo (the label is on 54).
    app.source.cursor = 54;
    let buf = draw(&mut app, 200, 60);
    let bp = cell_at(&buf, "●  55      ld.ubase", 0);
    assert_eq!(bp.fg, Color::Red);
}

#[test]
fn without_a_source_the_pane_says_why() {
    // Assembled from a string: there is no file to read.
    let mut app = App::new(engine_of(SPIN), &TuiOptions::default()).expect("starts");
    assert_eq!(
        app.layout,
        CodeLayout::Asm,
        "no source: the disassembly alone"
    );
    keys(&mut app, "v");
    app.focus = Pane::Source;
    at_every_size(&mut app, "no_source");
    let t = text(&draw(&mut app, 120, 40));
    assert!(t.contains("No source: test.s could not be read"), "{t}");
}

#[test]
fn a_maximised_pane() {
    let mut app = at_breakpoint();
    keys(&mut app, "3z");
    assert!(app.zoom);
    at_every_size(&mut app, "zoom_lanes");
    let t = text(&draw(&mut app, 120, 40));
    assert!(t.contains("[z restores]"), "{t}");
    keys(&mut app, "z");
    assert!(!app.zoom);
}

#[test]
fn the_console_full_screen_and_scrolled_back() {
    let mut app = at_breakpoint();
    run(&mut app, &["print v3", "help"]);
    keys(&mut app, "o");
    assert!(app.zoom && app.focus == Pane::Console);
    let _ = draw(&mut app, 120, 40);
    press(&mut app, KeyCode::PageUp);
    assert!(app.console.scroll > 0);
    at_every_size(&mut app, "console_scrolled");
    let t = text(&draw(&mut app, 120, 40));
    assert!(t.contains("rows back (End: latest)"), "{t}");
    // `o` again: back to the pane that was focused, nothing maximised.
    keys(&mut app, "o");
    assert!(!app.zoom);
    assert_eq!(app.focus, Pane::Code);
}

#[test]
fn completions_show_while_typing() {
    let mut app = at_breakpoint();
    keys(&mut app, ":info b");
    at_every_size(&mut app, "completion");
    let t = text(&draw(&mut app, 80, 24));
    assert!(t.contains("breakpoints"), "{t}");
    assert!(t.contains("completion"), "{t}");
}

#[test]
fn the_exec_bitmap_and_the_active_lane_sparkline() {
    let path = std::path::Path::new("../scripts/divergent.s");
    let engine = wavedbg_tui::app::demo_engine(Some(path)).expect("divergent.s opens");
    let mut app = App::new(engine, &TuiOptions::default()).expect("starts");
    // Into the loop, where EXEC narrows as lanes finish.
    for _ in 0..70 {
        run(&mut app, &["stepi"]);
    }
    app.focus = Pane::Registers;
    at_every_size(&mut app, "registers");
    let buf = draw(&mut app, 120, 40);
    let t = text(&buf);
    assert!(
        t.contains("lanes 0 ") && t.contains(" 8 ") && t.contains(" 31"),
        "the bitmap's scale:\n{t}"
    );
    let samples = app.activity.of(app.engine.machine().waves[0].id);
    assert_eq!(samples.len(), 71, "one sample a step, and the launch");
    assert!(samples.iter().any(|s| s.active < 32), "EXEC narrowed");
    let bar = cell_at(&buf, "│active ", 8);
    assert_eq!(bar.fg, Color::Green);
}

/// Lanes 16-31 load past the end of a 64-byte buffer.
const FAULT: &str = ".kernel fault\n.workgroup 32\n.grid 1\n.buffer buf, 64\n.arg u[0:1], buf\n    vlaneid v0\n    vshli v1, v0, 2\n    ld.ubase.b32 v2, u[0:1], v1, 0\n    wait.vm 0\n    end\n";

#[test]
fn the_lanes_of_a_stop_are_marked() {
    // A fault: the lanes that faulted.
    let mut app = App::new(engine_of(FAULT), &TuiOptions::default()).expect("starts");
    run(&mut app, &["continue"]);
    app.focus = Pane::Lanes;
    at_every_size(&mut app, "fault_lanes");
    let buf = draw(&mut app, 120, 40);
    let t = text(&buf);
    assert!(t.contains("PROBLEM"), "{t}");
    let mark = cell_at(&buf, "! 16 ", 0);
    assert_eq!(mark.fg, Color::Red);
    assert!(!t.contains("! 15 "), "lane 15 did not fault:\n{t}");
    // A conditional breakpoint: the lanes where the condition held.
    let mut app = at_breakpoint();
    run(
        &mut app,
        &["delete", "break next_word if v0 > 27", "continue"],
    );
    let buf = draw(&mut app, 120, 40);
    let t = text(&buf);
    for lane in 28..32 {
        assert!(t.contains(&format!("● {lane} ")), "lane {lane}:\n{t}");
    }
    assert!(!t.contains("● 27 "), "{t}");
    let mark = cell_at(&buf, "● 28 ", 0);
    assert_eq!(mark.fg, Color::Red);
}

#[test]
fn the_lane_grid_at_110x34_and_100x30_shows_whole_values() {
    let mut app = at_breakpoint();
    for (w, h) in [(110, 34), (100, 30)] {
        run(&mut app, &["lane 0"]);
        let t = text(&draw(&mut app, w, h));
        // v1 of lanes 24-31 used to read `0000001` here; now no value is cut, and the
        // title says which lanes the grid shows.
        let cut = t
            .split(|c: char| c.is_whitespace() || c == '│')
            .find(|tok| {
                let v = tok.trim_end_matches(['*', '…']);
                (5..8).contains(&v.len()) && v.chars().all(|c| c.is_ascii_hexdigit())
            });
        assert_eq!(cut, None, "{w}x{h}:\n{t}");
        assert!(t.contains("   15  0000000f* 0000000f*"), "{w}x{h}:\n{t}");
        assert!(
            t.contains("Lanes [hex] 0-15") || t.contains("lanes 0-15"),
            "{w}x{h}:\n{t}"
        );
        // Selecting lane 24 brings its window.
        run(&mut app, &["lane 24"]);
        let t = text(&draw(&mut app, w, h));
        assert!(t.contains(">  24  00000018* 00000018*"), "{w}x{h}:\n{t}");
        assert!(t.contains("   31  0000001f* 0000001f*"), "{w}x{h}:\n{t}");
        assert!(!t.contains("    0  00000000"), "{w}x{h}:\n{t}");
    }
}

#[test]
fn print_v3_shows_every_lane_at_200x60() {
    let mut app = demo();
    run(&mut app, &["break next_word", "continue", "p v3"]);
    let t = text(&draw(&mut app, 200, 60));
    // v3 is 4 * lane at the breakpoint: every value is in the console, wrapped whole.
    for lane in 0..32 {
        assert!(
            t.contains(&format!("0x{:08x}", lane * 4)),
            "lane {lane}:\n{t}"
        );
    }
    assert!(t.contains("v3 (wave 0, EXEC 0xffffffff):"), "{t}");
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
        (1, 1),
        (0, 0),
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

/// `app` drawn on a `width` x `height` screen, and where the cursor is.
fn drawn_with_cursor(
    app: &App,
    width: u16,
    height: u16,
) -> (ratatui::buffer::Buffer, ratatui::layout::Position) {
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(width, height))
        .expect("test terminal");
    let mut state = wavedbg_tui::ui::DrawState::default();
    t.draw(|f| {
        wavedbg_tui::ui::draw(f, app, &mut state);
    })
    .expect("draws");
    let at = t.get_cursor_position().expect("a cursor");
    (t.backend().buffer().clone(), at)
}

/// The command line's cursor counts cells, not characters: after wide characters it sits
/// right after them, and a line too long for the screen scrolls so that it stays there
/// (the hidden start marked `…`).
#[test]
fn the_command_line_cursor_follows_wide_characters() {
    let cursor_after = |typed: &str| {
        let mut app = demo();
        keys(&mut app, typed);
        drawn_with_cursor(&app, 80, 24)
    };
    // `:print ` is 7 cells, each `日` 2.
    let (_, at) = cursor_after(":print 日本");
    assert_eq!((at.x, at.y), (11, 23));
    // 1 + 80 cells: the start hides behind `…` and the cursor stays on screen, after the
    // last `日` (whose two cells end right before it).
    let long = format!(":{}", "日".repeat(40));
    let (buf, at) = cursor_after(&long);
    assert_eq!(buf[(0, 23)].symbol(), "…");
    assert_eq!((at.x, at.y), (77, 23));
    assert_eq!(buf[(75, 23)].symbol(), "日");
}

/// At the breakpoint, with float values where the panes show them: v1 and v5 of lanes
/// 0-6, u6 and u7, and the first 16 bytes of the first buffer (the memory cursor): 1.5,
/// the largest and the smallest normal negative floats, NaN, -inf, -0 (`0x80000000`, the
/// most negative int) and `0xffffffff`. They differ from the last stop: marked changed.
fn with_floats() -> App {
    let mut app = at_breakpoint();
    let base = app.memory.addr();
    let words: [u32; 7] = [
        0x3fc0_0000,
        0xff7f_ffff,
        0x8080_0000,
        0x7fc0_0000,
        0xff80_0000,
        0x8000_0000,
        0xffff_ffff,
    ];
    let mut lines: Vec<String> = Vec::new();
    for (l, w) in words.iter().enumerate() {
        lines.push(format!("set v1[{l}] = {w:#x}"));
        lines.push(format!("set v5[{l}] = {w:#x}"));
    }
    lines.push("set u6 = 0x80000000".into());
    lines.push("set u7 = 0x3fc00000".into());
    for (i, w) in words.iter().take(4).enumerate() {
        lines.push(format!("set global:{:#x} = {w:#x}", base + 4 * i as u64));
    }
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    run(&mut app, &lines);
    app.lanes.regs = vec![1, 5];
    app
}

/// Issue 25 item 6: the lane grid, the Registers pane and the Memory pane in each number
/// format, at 120x40 (all three at once) and 80x24 (each on its tab), then memory in
/// 32-bit words in each format; changed values stay marked in every format.
#[test]
fn every_pane_in_every_number_format() {
    use wavedbg_emulator::debug::panes::NumberFormat;
    for f in NumberFormat::ALL {
        let mut app = with_floats();
        let w = f.word();
        run(
            &mut app,
            &[
                &format!("set format lanes {w}"),
                &format!("set format registers {w}"),
                &format!("set format memory {w}"),
            ],
        );
        let buf = draw(&mut app, 120, 40);
        insta::assert_snapshot!(format!("formats_{w}_120x40"), text(&buf));
        let t = text(&buf);
        assert!(t.contains(&format!("Lanes [{w}]")), "{t}");
        assert!(t.contains(&format!("Registers [{w}]")), "{t}");
        // A changed value: yellow and marked `*`, whatever the format.
        let v = wavedbg_tui::number::word(0x3fc0_0000, f);
        let cell = cell_at(&buf, &format!("{v}*"), 0);
        assert_eq!(cell.fg, Color::Yellow, "{w}: {v}");
        for (key, pane) in [("3", "lanes"), ("4", "registers"), ("5", "memory")] {
            keys(&mut app, key);
            let buf = draw(&mut app, 80, 24);
            insta::assert_snapshot!(format!("formats_{w}_{pane}_80x24"), text(&buf));
        }
        run(&mut app, &["set memory-unit words"]);
        for (cols, rows) in [(80, 24), (120, 40)] {
            let buf = draw(&mut app, cols, rows);
            insta::assert_snapshot!(format!("formats_{w}_words_{cols}x{rows}"), text(&buf));
            let t = text(&buf);
            assert!(t.contains(&format!("Memory [{w} words]")), "{t}");
            let v = wavedbg_tui::number::word(0xff7f_ffff, f);
            assert_eq!(cell_at(&buf, &format!("{v} "), 0).fg, Color::Yellow, "{t}");
        }
    }
}

/// Issue 25 item 7: the Watch pane with a vector and a scalar display (and one that
/// fails), values changed since the last stop marked, at 120x40 and 80x24.
#[test]
fn the_watch_pane_shows_displays_per_lane_and_marks_changes() {
    let mut app = demo();
    run(
        &mut app,
        &["display/x v1", "display u6", "display $nope", "stepi 6"],
    );
    let buf = draw(&mut app, 120, 40);
    insta::assert_snapshot!("watch_120x40", text(&buf));
    let t = text(&buf);
    assert!(t.contains("Watch (3)"), "{t}");
    assert!(t.contains("1: /x v1 (by lane)"), "{t}");
    assert!(t.contains("2: u6 = "), "{t}");
    assert!(t.contains("3: $nope: "), "the error in its row:\n{t}");
    // Lane 1 of v1 changed with the steps: yellow, marked.
    let c = cell_at(&buf, "0x00000001*", 0);
    assert_eq!(c.fg, Color::Yellow);
    // A tall screen: the lane grid gives up rows to the displays, still every lane.
    let buf = draw(&mut app, 200, 60);
    insta::assert_snapshot!("watch_200x60", text(&buf));
    let t = text(&buf);
    assert!(t.contains("2: u6 = 256*"), "{t}");
    assert!(t.contains("   31  0000001f*"), "{t}");
    keys(&mut app, "9");
    let buf = draw(&mut app, 80, 24);
    insta::assert_snapshot!("watch_80x24", text(&buf));
}

/// Issue 26 item 5: the findings listed in the Breakpoints pane, one visited with Enter:
/// the pane names the side it is at, the code and source views mark its instruction, and
/// the lane grid marks the lanes that read (`!`).
#[test]
fn a_visited_finding_80x24_120x40_200x60() {
    let src = "\
.kernel ragged
.workgroup 32
    vlaneid v0
    vmovi v1, 7
    vmovi v2, 24
    vcmp.lt.u32 u10, v0, v2
    exec.and.save u11, u10
    vaddi.u32 v1, v0, 100
    shfl.down.vi v3, v1, 8
    exec.set u11
    end
";
    let mut app = App::new(engine_of(src), &TuiOptions::default()).expect("starts");
    run(&mut app, &["set check xlane on", "continue", "continue"]);
    app.focus = Pane::Breakpoints;
    press(&mut app, KeyCode::Enter);
    at_every_size(&mut app, "finding_visit");
    let buf = draw(&mut app, 120, 40);
    assert!(text(&buf).contains("Breakpoints, watchpoints & findings"));
    assert!(text(&buf).contains("#1 ! [reads side] read of"));
    assert_eq!(cell_at(&buf, "#1 !", 3).fg, Color::Red);
}

/// Issue 27: a kernel with a line table shows its higher-level file (the PC's line,
/// breakpoints on lines), `V` the `.s`, then each line with its instructions.
#[test]
fn the_high_level_source_in_each_mode() {
    let mut app = saxpy();
    run(&mut app, &["break saxpy.cl:9", "continue", "next"]);
    app.focus = Pane::Source;
    at_every_size(&mut app, "high_level");
    let buf = draw(&mut app, 120, 40);
    let t = text(&buf);
    assert!(t.contains("Source: src/saxpy.cl"), "{t}");
    assert!(t.contains("●   9          float xi = x[i];"), "{t}");
    let pc = cell_at(&buf, "=>   10          float yi", 17);
    assert_eq!((pc.symbol(), pc.fg), ("f", Color::Green));
    keys(&mut app, "V");
    at_every_size(&mut app, "high_level_assembly");
    let t = text(&draw(&mut app, 120, 40));
    assert!(t.contains("Source: ../scripts/saxpy_src.s"), "{t}");
    keys(&mut app, "V");
    at_every_size(&mut app, "high_level_interleaved");
    let t = text(&draw(&mut app, 120, 40));
    assert!(t.contains("Source: src/saxpy.cl + asm"), "{t}");
    assert!(t.contains("=>         0048  ld.ubase.b32 v5"), "{t}");
    assert!(t.contains("│  ●        0038  vshli v2, v0, 2"), "{t}");
}

/// Issue 27: the Locals pane lists the variables live at the PC, a per-lane one's lanes
/// in rows that fit, inactive lanes in parentheses; whole at every size, down to 20x6.
#[test]
fn the_locals_pane_at_every_size() {
    let mut app = saxpy();
    run(&mut app, &["break saxpy.cl:11", "continue", "wave 3"]);
    keys(&mut app, "0");
    at_all_sizes(&mut app, "locals");
    let t = text(&draw(&mut app, 200, 60));
    // Wave 3 has lanes 0-3 active (i = 96..99 < n = 100) and is at line 10: `yi` is not
    // live yet.
    assert!(t.contains("Locals (4)"), "{t}");
    assert!(t.contains("a = 2  (f32 in u4)"), "{t}");
    assert!(t.contains("xi  (f32 in v4)"), "{t}");
    assert!(
        t.contains("  [ 0]   96    97    98    99  (100) (101)"),
        "{t}"
    );
    assert!(!t.contains("yi  (f32"), "{t}");
    let buf = draw(&mut app, 200, 60);
    assert_eq!(cell_at(&buf, "(100)", 1).fg, Color::DarkGray);
    // The wide layout shows it with every pane.
    app.focus = Pane::Code;
    let t = text(&draw(&mut app, 120, 40));
    assert!(t.contains("Locals (4)"), "{t}");
}

/// Issue 27: a kernel with code of two higher-level files (tui/tests/fixtures/two_files.s,
/// util.h's `mad` inlined in two_files.cl): the Source pane shows util.h while the PC is
/// in its code, with util.h's breakpoints only, and two_files.cl again after `next`.
#[test]
fn the_source_pane_switches_higher_level_files() {
    let mut app = two_files();
    run(
        &mut app,
        &["break util.h:4", "break two_files.cl:10", "continue"],
    );
    app.focus = Pane::Source;
    at_every_size(&mut app, "two_files_util_h");
    let buf = draw(&mut app, 120, 40);
    let t = text(&buf);
    assert!(t.contains("Source: util.h "), "{t}");
    assert!(t.contains("=>●   4      float p = a * b;"), "{t}");
    assert!(
        !t.contains("●  10"),
        "two_files.cl's breakpoint is not util.h's:\n{t}"
    );
    let pc = cell_at(&buf, "=>●   4      float p", 13);
    assert_eq!((pc.symbol(), pc.fg), ("f", Color::Green));
    run(&mut app, &["next"]);
    run(&mut app, &["next"]);
    let buf = draw(&mut app, 120, 40);
    insta::assert_snapshot!("two_files_back_120x40", text(&buf));
    let t = text(&buf);
    assert!(t.contains("Source: two_files.cl "), "{t}");
    assert!(t.contains("=>●  10      y[i] = r;"), "{t}");
    assert!(
        !t.contains("●   4"),
        "util.h's breakpoint is not two_files.cl's:\n{t}"
    );
}

/// Issue 27: the interleaved view shows every instruction: two_files.cl's code of no line
/// under `<no line>`, `mad`'s under util.h's lines (with their text), labels on rows of
/// their own; in util.h's view (the PC there), two_files.cl's code under its lines.
#[test]
fn the_interleaved_view_shows_code_of_no_line_and_other_files() {
    let mut app = two_files();
    run(&mut app, &["break util.h:5", "next", "next"]);
    keys(&mut app, "VV");
    app.focus = Pane::Source;
    at_every_size(&mut app, "two_files_interleaved");
    let t = text(&draw(&mut app, 200, 60));
    assert!(t.contains("Source: two_files.cl + asm"), "{t}");
    assert!(t.contains("         <no line>"), "{t}");
    assert!(t.contains("         util.h:4  float p = a * b;"), "{t}");
    // From util.h:4's head to the PC's row, after line 9's own code.
    keys(&mut app, "/p + c");
    press(&mut app, KeyCode::Enter);
    let buf = draw(&mut app, 200, 60);
    let t = text(&buf);
    assert!(t.contains("util.h:5  return p + c;"), "{t}");
    assert!(t.contains(" ●        0048  vadd.f32 v7, v6, v5"), "{t}");
    assert!(t.contains("store:"), "{t}");
    assert_eq!(cell_at(&buf, "store:", 0).fg, Color::Cyan);
    // In util.h's own interleaved view (the PC there), two_files.cl's code is under heads.
    run(&mut app, &["continue"]);
    let t = text(&draw(&mut app, 200, 60));
    assert!(t.contains("Source: util.h + asm"), "{t}");
    assert!(t.contains("=>●        0048  vadd.f32 v7, v6, v5"), "{t}");
    insta::assert_snapshot!("two_files_interleaved_util_h_200x60", t);
}

/// Issue 27: the Locals pane marks values changed since the last stop, as the Registers
/// pane marks registers: `p` after `p = a * b` in every active lane but lane 0 (0 * 2).
#[test]
fn the_locals_pane_marks_changed_values() {
    let mut app = two_files();
    run(&mut app, &["break util.h:4", "continue"]);
    run(&mut app, &["next"]);
    keys(&mut app, "0");
    at_every_size(&mut app, "two_files_locals");
    let buf = draw(&mut app, 200, 60);
    let t = text(&buf);
    assert!(t.contains("p  (f32 in v6)"), "{t}");
    assert!(t.contains("[ 0]   0    2*   4*   6*"), "{t}");
    assert_eq!(cell_at(&buf, "2*", 0).fg, Color::Yellow);
    assert_eq!(cell_at(&buf, "a = 2", 4).fg, Color::Reset);
    // `base` in wave 1: changed by the multiply, on its row.
    let mut app = two_files();
    run(&mut app, &["wave 1", "stepi 2"]);
    run(&mut app, &["stepi 2"]);
    keys(&mut app, "0");
    let buf = draw(&mut app, 120, 40);
    let t = text(&buf);
    assert!(t.contains("base = 32*  (u32 in u6)"), "{t}");
    assert_eq!(cell_at(&buf, "base = 32*", 7).fg, Color::Yellow);
}

/// The lane grid's title names the registers it shows (`v9, v11`), not their places in
/// the list, which follow in parentheses: in each of its lengths.
#[test]
fn the_lane_grid_title_names_its_registers() {
    let path = std::path::Path::new("../scripts/divergent.s");
    let engine = wavedbg_tui::app::demo_engine(Some(path)).expect("divergent.s opens");
    let mut app = App::new(engine, &TuiOptions::default()).expect("starts");
    let title = |app: &mut App, w: u16, h: u16| {
        let t = text(&draw(app, w, h));
        let line = t
            .lines()
            .find(|l| l.contains("Lanes ["))
            .unwrap_or_default();
        line.to_string()
    };
    // The default registers: the first two of twelve at 100x30.
    keys(&mut app, "3");
    assert!(
        title(&mut app, 100, 30).contains(" v0,v1 1-2/12:"),
        "{}",
        title(&mut app, 100, 30)
    );
    keys(&mut app, ":lanes v4 v9 v11");
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Right);
    for (w, h, want) in [
        (100, 30, " v9,v11 2-3/3:"),
        (110, 40, ", v9,v11 (2-3/3) ←→"),
        (150, 30, ", v9 (2 of 3, ←/→)"),
    ] {
        let t = title(&mut app, w, h);
        assert!(t.contains(want), "{w}x{h}: {t}");
    }
}

/// A scrolled command line always shows the character under its cursor whole, wide or
/// not, wherever the cursor is: never the `…` that marks a cut end.
#[test]
fn the_command_line_cursor_is_always_on_its_character() {
    for (fill, width) in [("漢", 100u16), ("x", 100), ("漢", 41), ("ab漢", 57)] {
        let mut app = demo();
        keys(&mut app, ":");
        app.on_paste(&format!("print {}", fill.repeat(120)));
        let n = app.editor.as_ref().map_or(0, |e| e.text().chars().count());
        for back in 0..n {
            let (buf, at) = drawn_with_cursor(&app, width, 30);
            let e = app.editor.as_ref().expect("open");
            let want = e
                .text()
                .chars()
                .nth(e.cursor())
                .map_or(" ".into(), String::from);
            let buf = &buf;
            assert_eq!(
                buf[(at.x, at.y)].symbol(),
                want,
                "{fill} at {width}, {back} back: {}",
                text(buf).lines().last().unwrap_or_default()
            );
            press(&mut app, KeyCode::Left);
        }
    }
}

/// A count of one is singular: `1 wave remaining` on a run's status line, `1 row back`
/// in the console's title.
#[test]
fn a_count_of_one_is_singular() {
    let mut app = App::new(engine_of(SPIN), &TuiOptions::default()).expect("starts");
    app.on_key(ratatui::crossterm::event::KeyEvent::new(
        KeyCode::F(5),
        ratatui::crossterm::event::KeyModifiers::NONE,
    ));
    let start = std::time::Instant::now();
    while app.progress().map_or(0, |p| p.waves_remaining) == 0
        && start.elapsed() < std::time::Duration::from_secs(5)
    {
        app.tick().expect("alive");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let t = text(&draw(&mut app, 120, 40));
    assert!(t.contains(", 1 wave remaining, "), "{t}");
    press(&mut app, KeyCode::Esc);
    run(&mut app, &["help", "help"]);
    keys(&mut app, "7");
    let _ = draw(&mut app, 120, 40);
    press(&mut app, KeyCode::Up);
    let t = text(&draw(&mut app, 120, 40));
    assert!(t.contains(" Console: 1 row back (End: latest) "), "{t}");
}

/// A breakpoint of several locations (saxpy.cl:6 is code at 0x0008 and 0x0024, as
/// `info breakpoints` lists `1.1` and `1.2`) shows in the Breakpoints pane as its
/// confirmation lists them: every address (it showed `0x0008 (+1 locations)`), and a
/// single-location one beside it with its filters.
#[test]
fn a_breakpoint_of_several_locations_in_the_breakpoints_pane() {
    let mut app = saxpy();
    run(
        &mut app,
        &[
            "break saxpy.cl:6",
            "break saxpy.cl:9 wave 1 lane 3",
            "continue",
        ],
    );
    keys(&mut app, "6z");
    at_every_size(&mut app, "breakpoint_locations");
    let t = text(&draw(&mut app, 120, 40));
    assert!(
        t.contains("1 ● break  0x0008 (2 locations: 0x0008, 0x0024)  hits 1"),
        "{t}"
    );
    assert!(t.contains("2 ● break  0x0038  wave 1, lane 3"), "{t}");
}
