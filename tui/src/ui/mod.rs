//! Drawing: the layout and one file per pane. Drawing only reads the [`App`]; it returns a
//! [`HitMap`] telling where things were drawn, for mouse clicks and page sizes. What it
//! keeps from one frame to the next to draw faster is its own ([`DrawState`], owned by
//! whoever draws). Nothing in [`crate::app`] depends on this module.
//!
//! Nothing is cut silently: text that does not fit ends with `…` ([`text`]), the console
//! wraps, titles are shortened with `…`, and a pane with more rows than it shows marks its
//! right border with `▲` and `▼`.

mod breakpoints;
mod code;
mod column;
mod console;
mod entries;
mod help;
mod lanes;
mod locals;
mod memory;
mod registers;
mod source;
mod status;
pub mod text;
pub mod theme;
mod watch;
mod waves;

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders};
use ratatui::Frame;

use crate::app::{App, CodeLayout};
use crate::hits::{Hit, HitMap};
use crate::pane::Pane;

pub use help::{help_lines, help_rows, rescroll, HelpRow};
pub use status::footer_keys;

/// Terminals at least this wide and tall show every pane at once; smaller ones show one
/// pane at a time under a tab bar.
pub const WIDE: (u16, u16) = (100, 30);

/// Smaller terminals show only a request for a bigger one.
pub const SMALLEST: (u16, u16) = (20, 6);

/// What drawing keeps between frames so as not to redo work: a cache, never state the
/// user sees change. Owned by the event loop (or a test) and passed to each [`draw`]; a
/// fresh one draws the same screen, only slower.
#[derive(Debug, Default)]
pub struct DrawState {
    console: console::ConsoleRows,
    /// The cells of the command line (or search prompt) hidden at its start behind `…`
    /// in the last frame: the view stays still while the cursor moves inside it.
    command_shift: usize,
}

/// Draws the whole screen, using and updating `state`'s caches.
pub fn draw(frame: &mut Frame, app: &App, state: &mut DrawState) -> HitMap {
    let area = frame.area();
    let mut hits = HitMap::default();
    if area.width < SMALLEST.0 || area.height < SMALLEST.1 {
        // The footer's keys still show on the last row when they fit.
        let keys = status::ALWAYS;
        let mut body = area;
        if area.height >= 2 && area.width as usize > keys.len() {
            body.height -= 1;
            let last = Rect::new(area.x, area.y + body.height, area.width, 1);
            text::put_lines(frame, last, &[Line::styled(keys, theme::dim())]);
        }
        text::put_wrapped(
            frame,
            body,
            &format!(
                "The terminal ({}x{}) is too small for wavedbg: it needs {}x{}.",
                area.width, area.height, SMALLEST.0, SMALLEST.1
            ),
            ratatui::style::Style::new(),
        );
        if app.help.open {
            help::draw(frame, area, app, &mut hits);
        }
        return hits;
    }
    let [main, status_row, command_row] = stack(area, [0, 1, 1]);
    let compact = area.width < WIDE.0 || area.height < WIDE.1;
    hits.compact = compact;
    let panes = if app.zoom {
        vec![(app.focus, main)]
    } else if compact {
        let [tabs, body] = stack(main, [1, 0]);
        draw_tabs(frame, tabs, app, &mut hits);
        vec![(app.focus, body)]
    } else {
        wide_layout(main, app, &mut hits)
    };
    for (pane, rect) in panes {
        hits.hits.push(Hit {
            area: rect,
            pane,
            item: None,
        });
        hits.shown.push(pane);
        let block = pane_block(app, pane);
        let inner = block.inner(rect);
        hits.rows[pane.index()] = inner.height;
        // The pane first: its title can say what the drawing left out (the block only
        // draws the border cells).
        let more = match pane {
            Pane::Code => code::draw(frame, inner, app, &mut hits),
            Pane::Source => source::draw(frame, inner, app, &mut hits),
            Pane::Waves => waves::draw(frame, inner, app, &mut hits),
            Pane::Lanes => lanes::draw(frame, inner, app, &mut hits),
            Pane::Registers => registers::draw(frame, inner, app, &mut hits),
            Pane::Memory => memory::draw(frame, inner, app, &mut hits),
            Pane::Breakpoints => breakpoints::draw(frame, inner, app, &mut hits),
            Pane::Console => console::draw(frame, inner, app, &mut state.console, &mut hits),
            Pane::Watch => watch::draw(frame, inner, app, &mut hits),
            Pane::Locals => locals::draw(frame, inner, app, &mut hits),
        };
        let title = pane_title(app, pane, inner, &hits);
        // The title sits after the corner and keeps a border cell before the other one.
        let title = text::truncate(&title, rect.width.saturating_sub(3) as usize);
        frame.render_widget(block.title(title), rect);
        scroll_marks(frame, rect, inner, more);
    }
    status::draw_status(frame, status_row, app);
    status::draw_command(frame, command_row, app, &mut state.command_shift);
    status::draw_completions(frame, main, command_row, app);
    if app.help.open {
        help::draw(frame, area, app, &mut hits);
    }
    hits
}

/// Splits `area` into rows of the given heights, top to bottom; the one height given as 0
/// takes what the others leave, and when they do not all fit each row is cut to what is
/// left above it. (A plain split: the layouts here are fixed sizes and one filler, and a
/// constraint solver would cost more than drawing the rest of the frame.)
fn stack<const N: usize>(area: Rect, heights: [u16; N]) -> [Rect; N] {
    let fixed: u16 = heights.iter().fold(0u16, |a, h| a.saturating_add(*h));
    let filler = area.height.saturating_sub(fixed);
    let mut left = area.height;
    let mut y = area.y;
    heights.map(|h| {
        let h = if h == 0 { filler } else { h }.min(left);
        left -= h;
        let r = Rect::new(area.x, y, area.width, h);
        y += h;
        r
    })
}

/// Marks the right border of a pane: `▲` when rows are hidden above, `▼` below.
fn scroll_marks(frame: &mut Frame, rect: Rect, inner: Rect, (above, below): (bool, bool)) {
    if inner.height == 0 || rect.width < 2 {
        return;
    }
    let x = rect.x + rect.width - 1;
    let buf = frame.buffer_mut();
    if above {
        if let Some(c) = buf.cell_mut((x, inner.y)) {
            c.set_char('▲').set_style(theme::scroll_marker());
        }
    }
    if below {
        if let Some(c) = buf.cell_mut((x, inner.y + inner.height - 1)) {
            c.set_char('▼').set_style(theme::scroll_marker());
        }
    }
}

/// Every pane at once: the code views, waves, breakpoints and console on the left; lanes,
/// registers, the Watch pane (when shown) and memory on the right. In the split layout the
/// source sits above the disassembly, and the panes under them give up rows so both keep a
/// useful height. The splits the user set (`set split`) replace the default shares.
fn wide_layout(main: Rect, app: &App, hits: &mut HitMap) -> Vec<(Pane, Rect)> {
    let splits = app.engine.panes().splits;
    let share = |total: u16, percent: u16| (u32::from(total) * u32::from(percent) / 100) as u16;
    let h = main.height;
    let left_w = match splits.left {
        // Each column keeps 20 cells.
        Some(p) => share(main.width, p)
            .max(20)
            .min(main.width.saturating_sub(20)),
        None => (main.width * 9 / 25).max(44),
    };
    let left_w = left_w.min(main.width);
    let left = Rect {
        width: left_w,
        ..main
    };
    let right = Rect {
        x: main.x + left_w,
        width: main.width - left_w,
        ..main
    };
    let waves = app.engine.machine().waves.len() as u16;
    let mut waves_h = (waves + 3).clamp(5, if h >= 50 { 14 } else { 9 });
    let mut bp_h = if h >= 50 { 8 } else { 6 };
    let mut console_h = match splits.console {
        Some(p) => share(h, p).max(3),
        None => (h / 5).max(7),
    };
    if app.layout == CodeLayout::Split {
        // Each code view gets at least 6 rows inside its borders where the height allows
        // (the console keeps the size it was given).
        let want = 16;
        let mut spare = (waves_h + bp_h + console_h + want).saturating_sub(h);
        let console_min = if splits.console.is_some() {
            console_h
        } else {
            6
        };
        for (size, min) in [
            (&mut waves_h, 5),
            (&mut bp_h, 4),
            (&mut console_h, console_min),
        ] {
            let give = spare.min(size.saturating_sub(min));
            *size -= give;
            spare -= give;
        }
    }
    // Each code view keeps 3 rows (a border and a line) whatever the console's split.
    let views = if app.layout == CodeLayout::Split {
        6
    } else {
        3
    };
    let console_max = h.saturating_sub(waves_h + bp_h + views).max(3);
    if splits.console.is_some() {
        console_h = console_h.min(console_max).max(3);
    }
    let [code, wv, bp, console] = stack(left, [0, waves_h, bp_h, console_h]);
    let regs_h = if h >= 50 { 11 } else { 9 };
    let want = |shown: bool, height: fn(&App, u16) -> u16| {
        if shown {
            height(app, right.width).saturating_add(2)
        } else {
            0
        }
    };
    // The Watch pane (while there are displays, or focused) and then the Locals pane
    // (for a kernel with variables, or focused) sit between the registers and memory,
    // each as tall as its lines within what the column leaves (`column`).
    let wants = column::Wants {
        height: h,
        registers: regs_h,
        lanes_set: splits.lanes.map(|p| share(h, p)),
        watch: want(app.watch_shown(), watch::height),
        locals: want(app.locals_shown(), locals::height),
    };
    let column::Heights {
        lanes: lanes_h,
        watch: watch_h,
        locals: locals_h,
        ..
    } = wants.share();
    let [lanes, regs, below] = stack(right, [lanes_h, regs_h, 0]);
    // (A height of 0 in `stack` is the filler: a hidden Watch or Locals pane is left out.)
    let [watch, below] = if watch_h > 0 {
        stack(below, [watch_h, 0])
    } else {
        [Rect::default(), below]
    };
    let [locals, mem] = if locals_h > 0 {
        stack(below, [locals_h, 0])
    } else {
        [Rect::default(), below]
    };
    let src_h = match splits.source {
        // Each code view keeps 3 rows where there are 6 (the upper bound wins below).
        Some(p) => share(code.height, p)
            .max(3)
            .min(code.height.saturating_sub(3).max(code.height.div_ceil(2))),
        None => code.height.div_ceil(2).max(1),
    };
    let percent = |part: u16, whole: u16| (u32::from(part) * 100 / u32::from(whole.max(1))) as u16;
    hits.split_shares = [
        percent(left_w, main.width),
        percent(src_h, code.height),
        percent(console_h, h),
        percent(lanes_h, h),
    ];
    hits.split_bounds = [
        split_bounds(20, main.width.saturating_sub(20), main.width),
        split_bounds(3, code.height.saturating_sub(3), code.height),
        split_bounds(3, console_max, h),
        split_bounds(column::LANES_MIN, wants.lanes_max(), h),
    ];
    let mut out = match app.layout {
        CodeLayout::Asm => vec![(Pane::Code, code)],
        CodeLayout::Src => vec![(Pane::Source, code)],
        CodeLayout::Split => {
            let [src, asm] = stack(code, [src_h, 0]);
            vec![(Pane::Source, src), (Pane::Code, asm)]
        }
    };
    out.extend([
        (Pane::Waves, wv),
        (Pane::Breakpoints, bp),
        (Pane::Console, console),
        (Pane::Lanes, lanes),
        (Pane::Registers, regs),
        (Pane::Memory, mem),
    ]);
    if watch_h > 0 {
        out.push((Pane::Watch, watch));
    }
    if locals_h > 0 {
        out.push((Pane::Locals, locals));
    }
    out
}

/// The percentages (within `set split`'s range) that give a part of `whole` between `min`
/// and `max` cells: beyond them the layout's limits win and a key would change nothing.
fn split_bounds(min: u16, max: u16, whole: u16) -> (u16, u16) {
    let (min, max, whole) = (u32::from(min), u32::from(max), u32::from(whole.max(1)));
    let range = wavedbg_emulator::debug::panes::Splits::RANGE;
    let (lo, hi) = (u32::from(*range.start()), u32::from(*range.end()));
    // `share(whole, p)` is `whole * p / 100` rounded down.
    let first = (min * 100).div_ceil(whole).clamp(lo, hi);
    let last = ((max + 1) * 100)
        .div_ceil(whole)
        .saturating_sub(1)
        .clamp(first, hi);
    (first as u16, last as u16)
}

/// The tab bar of the compact layout: each shown pane with its digit key; shorter names,
/// then digits alone (the current tab named), when the bar is narrow; `…` if even that
/// does not fit.
fn draw_tabs(frame: &mut Frame, area: Rect, app: &App, hits: &mut HitMap) {
    let shown = app.shown_panes();
    let room = (area.width as usize).saturating_sub(1);
    let label = |p: Pane, style: u8| -> String {
        let n = p.digit();
        match style {
            0 => format!(" {n} {} ", p.title()),
            1 => format!(" {n} {} ", p.short_title()),
            _ if p == app.focus => format!(" {n} {} ", p.title()),
            _ => format!(" {n} "),
        }
    };
    let total = |style: u8| -> usize {
        shown
            .iter()
            .map(|p| text::width(&label(*p, style)) + 1)
            .sum::<usize>()
            .saturating_sub(1)
    };
    let style = (0..3).find(|s| total(*s) <= room).unwrap_or(2);
    let mut spans = Vec::new();
    let mut x = area.x;
    for p in &shown {
        let text = label(*p, style);
        let w = text::width(&text) as u16;
        let look = if *p == app.focus {
            theme::tab_active()
        } else {
            theme::tab()
        };
        if x + w <= area.x + area.width {
            hits.hits.push(Hit {
                area: Rect::new(x, area.y, w, 1),
                pane: *p,
                item: None,
            });
        }
        x += w + 1;
        spans.push(Span::styled(text, look));
        spans.push(Span::raw(" "));
    }
    text::put_lines(frame, area, &[Line::from(spans)]);
}

fn pane_block(app: &App, pane: Pane) -> Block<'static> {
    let focused = app.focus == pane;
    Block::default()
        .borders(Borders::ALL)
        .border_style(if focused {
            theme::border_focused()
        } else {
            theme::border()
        })
        .title_style(if focused {
            theme::title_focused()
        } else {
            theme::title()
        })
}

/// A pane's title in full, for the pane drawn with `inner` inside its borders (drawn cut
/// with `…` when the pane is too narrow), once `hits` holds what drawing its inside left
/// out: the marks of what is hidden, and the key that restores a maximised pane.
pub fn pane_title(app: &App, pane: Pane, inner: Rect, hits: &HitMap) -> String {
    let mut title = base_title(app, pane, inner, hits);
    if pane == Pane::Memory && hits.mem_ascii_hidden {
        title.push_str("(ascii hidden) ");
    }
    if app.zoom {
        title.push_str(&format!("[{} restores] ", app.restore_key()));
    }
    title
}

/// A pane's name and what it shows, before the marks [`pane_title`] adds.
fn base_title(app: &App, pane: Pane, inner: Rect, hits: &HitMap) -> String {
    let m = app.engine.machine();
    match pane {
        Pane::Code => match app.engine.kernel_path() {
            Some(p) => format!(" Code: {p} "),
            None => " Code ".into(),
        },
        Pane::Source => source::title(app),
        Pane::Waves => format!(" Waves ({}) ", m.waves.len()),
        Pane::Lanes => lanes::title(app, inner),
        Pane::Registers => registers::title(app),
        Pane::Memory => memory::title(app),
        Pane::Breakpoints if !app.engine.recorded_findings().is_empty() => {
            " Breakpoints, watchpoints & findings ".into()
        }
        Pane::Breakpoints => " Breakpoints & watchpoints ".into(),
        Pane::Console => console::title(hits.console_scroll),
        Pane::Watch => watch::title(app),
        Pane::Locals => locals::title(app),
    }
}

/// The first row to show so that `cursor` (a row index) is visible in `height` rows of
/// `total`, centred when possible.
pub(crate) fn window(cursor: usize, height: usize, total: usize) -> usize {
    if total <= height {
        return 0;
    }
    cursor.saturating_sub(height / 2).min(total - height)
}

pub(crate) use text::put_lines;
