//! Nothing is cut silently, at any size: every pane is drawn at every width from 40 to
//! 250 columns (at the heights around the compact layout's limit and the extremes) and
//! every height from 12 to 80 rows (at the widths around that limit and the extremes),
//! in each code layout and maximised (every seventh size), plus random sizes (proptest),
//! on the demo kernel and on a kernel with long lines, after a few commands. At each
//! size:
//!
//! - in every pane, each row's last column is blank or `…` (text fits before it or is
//!   cut with the marker), and the title is whole or cut with `…`;
//! - in each number format and with the Watch pane shown, the same (every third size);
//! - every hex value in the lane grid has its 8 digits, and when the title does not say
//!   that only some lanes show, all 32 lanes are in the grid, each once;
//! - every disassembly and source line shows whole or cut with `…`;
//! - the console's rows give back its last lines (wrapped rows start with `↪`);
//! - the status line and the tab bar end blank or with `…`;
//! - the footer shows `? help` and `q quit`.
//!
//! Smaller sizes, down to 0x0, must only draw without panicking.

mod common;

use std::path::PathBuf;

use common::*;
use proptest::prelude::*;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use wavedbg_tui::app::{CodeLayout, LineKind, Pane, SourceMode};
use wavedbg_tui::{App, TuiOptions};

/// A kernel with long lines: long comments, labels, buffer names, instructions, tabs.
const LONG: &str = "\
; long_lines.s: a kernel with long lines, long names and wide values for the layout tests; this comment alone is longer than the widest pane at 250 columns, and it keeps going so that it has to be cut with a marker everywhere, never silently, whatever the size of the terminal.
.kernel long_lines
.workgroup 64
.grid 2
.buffer a_buffer_whose_name_is_long_enough_to_be_cut_in_narrow_panes_of_the_debugger, 1024
.arg u[0:1], a_buffer_whose_name_is_long_enough_to_be_cut_in_narrow_panes_of_the_debugger
\tvlaneid v0\t\t; a tab-indented line
    vmovi v1, 0xdeadbeef            ; every lane: a value with 8 significant digits
    vmuli.u32 v2, v0, 0x9e3779b1    ; lane * golden ratio: wide, different values
    vmovi v3, 0x12345678
    vmovi v4, 0xfedcba98
    vmovi v5, 0x80000001
    vmovi v6, 0x7fffffff
    vmuli.u32 v7, v0, 0x01010101
    vmovi v8, 0xcafef00d
    vmovi v9, 0x0badf00d
    vmovi v10, 0xffffffff
    vmovi v11, 0x11111111
    vshli v12, v0, 2
    umovi u8, 3
the_label_of_the_loop_whose_name_is_far_too_long_for_a_narrow_code_pane_to_show_whole:
    ld.ubase.b32 v13, u[0:1], v12, 0 ; a load from the buffer with the long name, at the lane's word, whose comment is long too
    wait.vm 0
    vadd.u32 v14, v13, v2
    vmul.u32 v15, v14, v1
    uaddi u8, u8, -1
    br.unz u8, the_label_of_the_loop_whose_name_is_far_too_long_for_a_narrow_code_pane_to_show_whole
    end
";

/// The demo after a breakpoint, a watchpoint, a few steps and some output.
fn demo_app() -> App {
    let mut app = demo();
    run(
        &mut app,
        &[
            "break next_word",
            "watch shared:0x10 4",
            "continue",
            "stepi 3",
            "print v3",
            "info breakpoints",
        ],
    );
    app
}

/// The kernel file, written once (the tests' threads all read it), in Cargo's temporary
/// directory for integration tests (under target/, not left behind in /tmp).
fn long_path() -> PathBuf {
    static PATH: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("wavedbg-fit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("long_lines_with_a_long_file_name_for_the_titles_of_the_panes.s");
        std::fs::write(&path, LONG).expect("write the kernel");
        path
    })
    .clone()
}

/// The kernel with long lines, stopped in its loop, with long output and a long error.
fn long_app() -> App {
    let engine = wavedbg_tui::app::demo_engine(Some(&long_path())).expect("assembles");
    let mut app = App::new(engine, &TuiOptions::default()).expect("starts");
    run(
        &mut app,
        &[
            "break the_label_of_the_loop_whose_name_is_far_too_long_for_a_narrow_code_pane_to_show_whole if v0 > 3",
            "continue",
            "stepi 4",
            "print v15",
            "print $no_such_thing_with_a_long_name_that_makes_the_error_message_long_enough_to_wrap",
            "info breakpoints",
        ],
    );
    app
}

fn row(buf: &Buffer, y: u16, xs: std::ops::Range<u16>) -> String {
    xs.map(|x| buf[(x, y)].symbol().to_string()).collect()
}

fn cell(buf: &Buffer, x: u16, y: u16) -> &str {
    buf[(x, y)].symbol()
}

/// Whether `shown` is `full` (whole), or a prefix of it cut with `…`. `extra` allows text
/// after the whole of it (marks).
fn whole_or_marked(shown: &str, full: &str) -> bool {
    let shown = shown.trim_end();
    let full = full.trim_end();
    if shown.starts_with(full) {
        return true;
    }
    match shown.strip_suffix('…') {
        Some(p) => full.starts_with(p) || p.starts_with(full),
        None => false,
    }
}

/// Checks the screen of `app` at `w`x`h`; returns what is wrong.
fn check(app: &mut App, w: u16, h: u16) -> Result<(), String> {
    let buf = draw(app, w, h);
    let fail = |what: String| Err(format!("{w}x{h} {what}:\n{}", text(&buf)));
    if w < 40 || h < 12 {
        return Ok(());
    }
    // The footer.
    let footer = row(&buf, h - 1, 0..w);
    if !(footer.contains("? help") && footer.contains("q quit")) {
        return fail(format!("footer without `? help` and `q quit`: {footer:?}"));
    }
    // The status line and the tab bar end blank or with the marker.
    let mut rows_to_check = vec![h - 2, h - 1];
    if app.hits.compact && !app.zoom {
        rows_to_check.push(0);
    }
    for y in rows_to_check {
        let last = cell(&buf, w - 1, y);
        if last != " " && last != "…" {
            return fail(format!("row {y} ends with {last:?}"));
        }
    }
    let hits = app.hits.clone();
    for pane in &hits.shown {
        let Some(rect) = hits
            .hits
            .iter()
            .find(|h| h.pane == *pane && h.item.is_none() && h.area.height > 1)
            .map(|h| h.area)
        else {
            return fail(format!("{pane:?} drawn without its area"));
        };
        let inner = Rect::new(
            rect.x + 1,
            rect.y + 1,
            rect.width.saturating_sub(2),
            rect.height.saturating_sub(2),
        );
        if inner.width == 0 {
            continue;
        }
        // Every row: blank or `…` in the last column.
        for y in inner.top()..inner.bottom() {
            let last = cell(&buf, inner.right() - 1, y);
            if last != " " && last != "…" {
                return fail(format!(
                    "{pane:?} row {y} ends with {last:?} (cut without a marker)"
                ));
            }
        }
        // The title: whole or cut with `…`.
        let title = wavedbg_tui::ui::pane_title(app, *pane, inner, &app.hits);
        let top = row(&buf, rect.y, rect.x + 1..rect.right().saturating_sub(1));
        let shown = top.trim_end_matches('─');
        if !whole_or_marked(shown, &title) {
            return fail(format!(
                "{pane:?} title {shown:?} is neither {title:?} nor cut with …"
            ));
        }
        let rows: Vec<String> = (inner.top()..inner.bottom())
            .map(|y| row(&buf, y, inner.left()..inner.right()))
            .collect();
        match pane {
            // The value checks read hex digits; other formats keep the general checks.
            Pane::Lanes if title.contains("[hex]") => check_lanes(&rows, &title).or_else(fail)?,
            Pane::Code => check_code(app, &rows).or_else(fail)?,
            Pane::Source => check_source(app, &rows).or_else(fail)?,
            Pane::Console => check_console(app, &rows).or_else(fail)?,
            _ => {}
        }
    }
    Ok(())
}

fn check_lanes(rows: &[String], title: &str) -> Result<(), String> {
    let mut lanes = Vec::new();
    for r in rows.iter().skip(1) {
        for token in r.split_whitespace() {
            let t =
                token.trim_matches(|c| matches!(c, '>' | '(' | ')' | '*' | '●' | '◆' | '!' | '…'));
            if t.is_empty() || !t.chars().all(|c| c.is_ascii_hexdigit()) {
                continue;
            }
            match t.len() {
                8 => {}
                1 | 2 if t.chars().all(|c| c.is_ascii_digit()) => {
                    lanes.push(t.parse::<u32>().unwrap_or(99))
                }
                _ => return Err(format!("lane grid value `{token}` is not 8 digits")),
            }
        }
    }
    // The title names the lane window when not every lane shows (`lanes 0-15`, or
    // `Lanes 0-15` in its short form).
    // (The format's tag, `[hex]`, comes first.)
    let windowed = title.contains("lanes ")
        || title
            .strip_prefix(" Lanes ")
            .map(|t| t.split_once("] ").map_or(t, |(_, rest)| rest))
            .is_some_and(|t| t.starts_with(|c: char| c.is_ascii_digit()));
    if rows.len() >= 2 && rows[0].contains("lane") && !windowed {
        lanes.sort_unstable();
        let all: Vec<u32> = (0..32).collect();
        if lanes != all {
            return Err(format!(
                "the lane grid shows lanes {lanes:?}, not 0-31, and its title does not say so"
            ));
        }
    }
    Ok(())
}

fn check_code(app: &App, rows: &[String]) -> Result<(), String> {
    for r in rows {
        let chars: Vec<char> = r.chars().collect();
        // `=>● 0004  text`: the gutter, a space, the address, two spaces, the text.
        if chars.len() < 10 || chars[3] != ' ' {
            continue;
        }
        let addr: String = chars[4..8].iter().collect();
        let Ok(addr) = u64::from_str_radix(&addr, 16) else {
            continue;
        };
        let Some(line) = app.code.index_of(addr).map(|i| &app.code.lines[i]) else {
            return Err(format!("code row for no instruction: {r:?}"));
        };
        let shown: String = chars[10..].iter().collect();
        if !whole_or_marked(&shown, &line.text) {
            return Err(format!("code row {r:?} cuts `{}` silently", line.text));
        }
    }
    Ok(())
}

fn check_source(app: &App, rows: &[String]) -> Result<(), String> {
    let lines = match (app.source.mode, app.source.high_level(), &app.source.view) {
        (SourceMode::Assembly, _, Ok(src)) => &src.lines,
        (SourceMode::Assembly, _, Err(_)) | (_, None, _) => return Ok(()),
        (_, Some(high), _) => &high.lines,
    };
    for r in rows {
        let chars: Vec<char> = r.chars().collect();
        if chars.len() < 6 {
            continue;
        }
        let after: String = chars[3..].iter().collect();
        let trimmed = after.trim_start();
        let digits: String = trimmed.chars().take_while(|c| c.is_ascii_digit()).collect();
        // Interleaved, an instruction's row: its address (4 hex digits) and its text.
        let hex: String = trimmed
            .chars()
            .take_while(char::is_ascii_hexdigit)
            .collect();
        let instr = (app.source.mode == SourceMode::Interleaved && hex.len() == 4)
            .then(|| u64::from_str_radix(&hex, 16).ok())
            .flatten()
            .and_then(|a| app.code.index_of(a));
        if let Some(i) = instr {
            let rest = &trimmed[hex.len()..];
            let shown = rest.strip_prefix("  ").unwrap_or(rest);
            if !whole_or_marked(shown, &app.code.lines[i].text) {
                return Err(format!("source row {r:?} cuts an instruction silently"));
            }
            continue;
        }
        let Ok(n) = digits.parse::<usize>() else {
            continue;
        };
        let rest = &trimmed[digits.len()..];
        let Some(full) = lines.get(n.wrapping_sub(1)) else {
            return Err(format!("source row for no line: {r:?}"));
        };
        let shown = rest.strip_prefix("  ").unwrap_or(rest);
        if !whole_or_marked(shown, full) {
            return Err(format!("source row {r:?} cuts line {n} silently: {full:?}"));
        }
    }
    Ok(())
}

fn check_console(app: &App, rows: &[String]) -> Result<(), String> {
    if app.console.lines.is_empty() || app.console.scroll > 0 {
        return Ok(());
    }
    // Rows back into lines: a row starting with `↪` continues the one before.
    let mut lines: Vec<String> = Vec::new();
    let mut started = false;
    for r in rows {
        let r = r.trim_end();
        if let Some(rest) = r.strip_prefix("↪ ") {
            if started {
                if let Some(l) = lines.last_mut() {
                    l.push_str(rest);
                }
            }
        } else {
            started = true;
            lines.push(r.to_string());
        }
    }
    // Blank rows under the output (a short console) are not lines.
    while lines.last().is_some_and(|l| l.is_empty()) && lines.len() > app.console.lines.len() {
        lines.pop();
    }
    let squash = |s: &str| s.split_whitespace().collect::<String>();
    let want: Vec<String> = app
        .console
        .lines
        .iter()
        .rev()
        .take(lines.len())
        .rev()
        .map(|(t, _)| squash(t))
        .collect();
    let got: Vec<String> = lines.iter().map(|l| squash(l)).collect();
    if got != want {
        return Err(format!(
            "the console's rows do not give back its last lines:\n got {got:#?}\nwant {want:#?}"
        ));
    }
    Ok(())
}

/// Every pane of `app` at `w`x`h`: one draw in the wide layout, one per pane in the
/// compact one.
fn check_every_pane(app: &mut App, w: u16, h: u16) -> Result<(), String> {
    app.zoom = false;
    let compact = w < wavedbg_tui::ui::WIDE.0 || h < wavedbg_tui::ui::WIDE.1;
    if compact {
        for p in app.shown_panes() {
            app.focus = p;
            check(app, w, h)?;
        }
        app.focus = Pane::Code;
        Ok(())
    } else {
        check(app, w, h)
    }
}

/// The sizes: every width at a few heights, every height at a few widths.
fn sizes() -> Vec<(u16, u16)> {
    let mut out = Vec::new();
    for w in 40..=250 {
        for h in [12, 29, 30, 80] {
            out.push((w, h));
        }
    }
    for h in 12..=80 {
        for w in [40, 99, 100, 250] {
            out.push((w, h));
        }
    }
    out
}

/// Runs `f` on `make()`'s app for each of `sizes`, on as many threads as there are cores
/// (each with its own app).
fn across(
    make: fn() -> App,
    sizes: &[(u16, u16)],
    f: fn(&mut App, u16, u16) -> Result<(), String>,
) {
    let threads = std::thread::available_parallelism()
        .map_or(4, |n| n.get())
        .min(16);
    let chunk = sizes.len().div_ceil(threads);
    let errors: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = sizes
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let mut app = make();
                    part.iter().find_map(|(w, h)| f(&mut app, *w, *h).err())
                })
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| {
                h.join()
                    .unwrap_or_else(|_| Some("a thread panicked".into()))
            })
            .collect()
    });
    assert!(errors.is_empty(), "{}", errors.join("\n\n"));
}

#[test]
fn every_pane_at_every_size_on_the_demo() {
    across(demo_app, &sizes(), check_every_pane);
}

/// The demo with its splits at their extremes (`set split`): the smallest left column,
/// source and console, the largest lane grid.
fn extreme_splits_app() -> App {
    let mut app = demo_app();
    run(
        &mut app,
        &[
            "set split left 10",
            "set split source 10",
            "set split console 90",
            "set split lanes 90",
        ],
    );
    app
}

/// The other extremes: the largest left column, source and console, the smallest grid.
fn other_extreme_splits_app() -> App {
    let mut app = long_app();
    run(
        &mut app,
        &[
            "set split left 90",
            "set split source 90",
            "set split console 10",
            "set split lanes 10",
        ],
    );
    app
}

/// Every wide size with resized splits: nothing cut silently, whatever the shares.
#[test]
fn every_pane_with_resized_splits() {
    let wide: Vec<(u16, u16)> = sizes()
        .into_iter()
        .filter(|(w, h)| *w >= 100 && *h >= 30)
        .collect();
    across(extreme_splits_app, &wide, check_every_pane);
    across(other_extreme_splits_app, &wide, check_every_pane);
    across(extreme_splits_app, &wide, layouts_and_zoom);
    across(other_extreme_splits_app, &wide, layouts_and_zoom);
    // The Watch pane shown under the extreme lanes splits (it takes memory's rows).
    fn watch_extreme() -> App {
        let mut app = extreme_splits_app();
        run(&mut app, &["display/f v3", "display u6", "display $nope"]);
        app
    }
    fn watch_other_extreme() -> App {
        let mut app = other_extreme_splits_app();
        run(&mut app, &["display/f v3", "display u6", "display $nope"]);
        app
    }
    across(watch_extreme, &wide, check_every_pane);
    across(watch_other_extreme, &wide, check_every_pane);
}

#[test]
fn every_pane_at_every_size_with_long_lines() {
    across(long_app, &sizes(), check_every_pane);
}

/// The demo with every pane in another number format each (the lane grid in f32, the
/// registers signed, memory in unsigned words) and a vector and a scalar display, so the
/// Watch pane shows too.
fn formats_app() -> App {
    let mut app = demo_app();
    run(
        &mut app,
        &[
            "set format lanes f32",
            "set format registers signed",
            "set format memory unsigned",
            "set memory-unit words",
            "display/f v3",
            "display u6",
            "display v0 * 3",
            "display $nope",
        ],
    );
    app
}

/// The formats' widest values and the Watch pane fit every size too (every third size).
#[test]
fn every_format_and_the_watch_pane_at_every_size() {
    let sizes: Vec<(u16, u16)> = sizes().into_iter().step_by(3).collect();
    across(formats_app, &sizes, check_every_pane);
    // f32 memory words: the widest cells.
    fn f32_memory() -> App {
        let mut app = formats_app();
        run(
            &mut app,
            &["set format memory f32", "set format lanes signed"],
        );
        app
    }
    across(f32_memory, &sizes, check_every_pane);
}

fn layouts_and_zoom(app: &mut App, w: u16, h: u16) -> Result<(), String> {
    for layout in [CodeLayout::Asm, CodeLayout::Src, CodeLayout::Split] {
        app.layout = layout;
        app.zoom = false;
        app.focus = Pane::Code;
        if !layout.shows(Pane::Code) {
            app.focus = Pane::Source;
        }
        check(app, w, h)?;
    }
    for p in Pane::ALL {
        app.focus = p;
        app.zoom = true;
        check(app, w, h)?;
    }
    app.zoom = false;
    app.focus = Pane::Code;
    Ok(())
}

#[test]
fn the_other_layouts_and_every_pane_maximised() {
    let sizes: Vec<(u16, u16)> = sizes().into_iter().step_by(7).collect();
    across(demo_app, &sizes, layouts_and_zoom);
    across(long_app, &sizes, layouts_and_zoom);
}

/// saxpy (a line table and variables) stopped on line 11: the Locals pane shows.
fn saxpy_app() -> App {
    let mut app = saxpy();
    run(&mut app, &["break saxpy.cl:11", "continue", "wave 3"]);
    app
}

/// Every pane in each of the Source pane's modes.
fn every_source_mode(app: &mut App, w: u16, h: u16) -> Result<(), String> {
    for mode in [
        SourceMode::HighLevel,
        SourceMode::Assembly,
        SourceMode::Interleaved,
    ] {
        app.source.mode = mode;
        app.follow_pc();
        check_every_pane(app, w, h).map_err(|e| format!("{mode:?}: {e}"))?;
    }
    Ok(())
}

/// Issue 27: the higher-level source in each mode and the Locals pane fit every size
/// (every third size), and are maximised whole.
#[test]
fn the_source_modes_and_the_locals_pane_at_every_size() {
    let sizes: Vec<(u16, u16)> = sizes().into_iter().step_by(3).collect();
    across(saxpy_app, &sizes, every_source_mode);
    let sizes: Vec<(u16, u16)> = sizes.into_iter().step_by(3).collect();
    across(saxpy_app, &sizes, layouts_and_zoom);
}

/// tui/tests/fixtures/two_files.s (two higher-level files) stopped in util.h's code with
/// a variable just changed: the interleaved view's heads and labels, the Locals pane's
/// change marks.
fn two_files_app() -> App {
    let mut app = two_files();
    run(&mut app, &["break util.h:4", "continue"]);
    run(&mut app, &["next"]);
    app
}

/// Issue 27: a kernel of two higher-level files in each source mode fits every size
/// (every ninth size).
#[test]
fn two_higher_level_files_at_every_size() {
    let sizes: Vec<(u16, u16)> = sizes().into_iter().step_by(9).collect();
    across(two_files_app, &sizes, every_source_mode);
}

#[test]
fn the_smallest_sizes_draw_without_panicking() {
    let mut app = demo_app();
    for w in 0..=45 {
        for h in 0..=14 {
            let buf = draw(&mut app, w, h);
            assert_eq!(buf.area, Rect::new(0, 0, w, h));
        }
    }
    // Too small for the panes: the footer's keys still show where they fit.
    for (w, h) in [(15, 2), (19, 12), (60, 5)] {
        let buf = draw(&mut app, w, h);
        let last = text(&buf).lines().last().unwrap_or_default().to_string();
        assert!(last.contains("? help  q quit"), "{w}x{h}: {last:?}");
    }
    // Maximised, with the help open, and with the command line and its completions.
    app.zoom = true;
    app.help.open = true;
    for (w, h) in [(0, 0), (1, 1), (2, 1), (1, 2), (19, 5), (20, 6), (21, 7)] {
        let _ = draw(&mut app, w, h);
    }
    app.help.open = false;
    app.zoom = false;
    keys(&mut app, ":info b");
    for w in 0..=45 {
        for h in 0..=14 {
            let _ = draw(&mut app, w, h);
        }
    }
    keys(&mut app, &"x".repeat(200));
    for (w, h) in [(1, 1), (20, 6), (40, 12), (250, 80)] {
        let _ = draw(&mut app, w, h);
    }
    // The Locals pane and the interleaved source, focused and maximised.
    let mut app = saxpy_app();
    for (pane, mode) in [
        (Pane::Locals, SourceMode::HighLevel),
        (Pane::Source, SourceMode::Interleaved),
    ] {
        app.focus = pane;
        app.source.mode = mode;
        for zoom in [false, true] {
            app.zoom = zoom;
            for w in 0..=45 {
                for h in 0..=14 {
                    let buf = draw(&mut app, w, h);
                    assert_eq!(buf.area, Rect::new(0, 0, w, h));
                }
            }
        }
    }
}

#[test]
fn long_console_output_wraps_and_keeps_every_word() {
    let mut app = long_app();
    // `help` lists every command on a long line each.
    run(&mut app, &["help"]);
    assert!(app.console.lines.iter().any(|(t, _)| t.len() > 100));
    for w in [40, 60, 99, 120, 180] {
        app.zoom = false;
        app.focus = Pane::Console;
        check(&mut app, w, 20).expect("fits");
        app.zoom = true;
        check(&mut app, w, 20).expect("fits");
    }
    let errors = app
        .console
        .lines
        .iter()
        .filter(|(_, k)| *k == LineKind::Error)
        .count();
    assert!(errors >= 1, "the long error is in the console");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random sizes (including tiny ones), panes, layouts and zoom.
    #[test]
    fn random_sizes(w in 0u16..300, h in 0u16..100, pane in 0usize..wavedbg_tui::pane::PANES, layout in 0usize..3, zoom: bool, long: bool) {
        thread_local! {
            static APPS: std::cell::RefCell<Option<(App, App)>> = const { std::cell::RefCell::new(None) };
        }
        APPS.with(|apps| {
            let mut apps = apps.borrow_mut();
            let (demo, long_lines) = apps.get_or_insert_with(|| (demo_app(), long_app()));
            let app = if long { long_lines } else { demo };
            app.layout = [CodeLayout::Asm, CodeLayout::Split, CodeLayout::Src][layout];
            app.focus = Pane::ALL[pane];
            if !app.layout.shows(app.focus) {
                app.layout = CodeLayout::Split;
            }
            app.zoom = zoom;
            let result = check(app, w, h);
            app.zoom = false;
            prop_assert!(result.is_ok(), "{}", result.err().unwrap_or_default());
            Ok(())
        })?;
    }
}

/// Every pane focused (and maximised) at the tiniest sizes draws without panicking, and
/// at 20x8 (the compact layout's tabs) each shows its title and something readable.
#[test]
fn every_pane_at_tiny_sizes() {
    let mut app = demo_app();
    keys(&mut app, "s");
    for pane in Pane::ALL {
        app.focus = pane;
        for zoom in [false, true] {
            app.zoom = zoom;
            for (w, h) in [(1, 1), (2, 2), (10, 3), (20, 6), (20, 8)] {
                let buf = draw(&mut app, w, h);
                assert_eq!(buf.area, Rect::new(0, 0, w, h));
            }
            let t = text(&draw(&mut app, 20, 8));
            assert!(t.lines().count() == 8, "{pane:?}:\n{t}");
            assert!(
                t.lines()
                    .nth(if zoom { 0 } else { 1 })
                    .is_some_and(|l| l.starts_with("┌ ")),
                "{pane:?}: the pane's border and title:\n{t}"
            );
            // The memory view cannot fit a row of 4 bytes in 18 columns: it says what it
            // needs rather than cutting values.
            if pane == Pane::Memory {
                assert!(
                    t.contains("│The memory view   │\n│needs 21 columns. │"),
                    "{t}"
                );
            }
        }
    }
}
