//! The memory hex view: global memory (one buffer at a time), the selected wave's
//! workgroup's shared memory, or the selected lane's scratch. Watched bytes are marked
//! (`W` in the gutter, coloured bytes), bytes changed since the last stop too (`*`).
//! Values show as bytes or as 32-bit little-endian words (`u`; always words in f32), in
//! the pane's number format (`f`); the title names both. The ASCII column stays a char a
//! byte in every form, when it fits.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::Frame;
use wavedbg_emulator::debug::panes::{FormatTarget, MemoryUnit, NumberFormat};
use wavedbg_emulator::machine::Machine;
use wavedbg_emulator::memory::Space;

use super::theme;
use crate::app::{App, SPACES};
use crate::hits::HitMap;
use crate::number;
use crate::pane::Pane;

/// How the pane shows values: the format, and whether as 32-bit words.
fn shape(app: &App) -> (NumberFormat, bool) {
    let p = app.engine.panes();
    let f = p.format(FormatTarget::Memory);
    (
        f,
        number::memory_words(p.memory_unit == MemoryUnit::Words, f),
    )
}

/// The pane's title: its name, number format and unit (`Memory [f32 words]`).
pub fn title(app: &App) -> String {
    let (f, words) = shape(app);
    format!(
        " Memory [{} {}] ",
        f.word(),
        if words { "words" } else { "bytes" }
    )
}

fn read(m: &Machine, space: Space, wave: usize, lane: u8, addr: u64, n: usize) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; n];
    if wave >= m.waves.len() {
        return None;
    }
    m.read_space(space, wave, lane, addr, &mut buf).ok()?;
    Some(buf)
}

/// Draws the pane; returns whether rows of the region are hidden above and below.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, hits: &mut HitMap) -> (bool, bool) {
    let h = area.height as usize;
    if h < 2 {
        return (false, false);
    }
    let m = app.engine.machine();
    let (wave, lane) = (app.engine.selected_wave, app.engine.selected_lane);
    let space = app.memory.space;
    let focused = app.focus == Pane::Memory;
    // The space selector and where we are.
    let mut head: Vec<Span> = Vec::new();
    for s in SPACES {
        let style = if s == space {
            theme::tab_active()
        } else {
            theme::tab()
        };
        head.push(Span::styled(format!(" {} ", s.name()), style));
    }
    let Some((lo, hi)) = app.mem_region() else {
        head.push(Span::raw("  (empty in this launch; m switches)"));
        super::put_lines(frame, area, &[Line::from(head)]);
        return (false, false);
    };
    let scope = match space {
        Space::Global => m
            .global
            .allocations()
            .iter()
            .find(|a| a.base == lo)
            .map_or(String::new(), |a| format!("buffer `{}`", a.name)),
        Space::Shared => m
            .waves
            .get(wave)
            .map_or(String::new(), |w| format!("workgroup {}", w.workgroup)),
        Space::Scratch => m
            .waves
            .get(wave)
            .map_or(String::new(), |w| format!("wave {} lane {lane}", w.id)),
    };
    // Bytes per row, and whether the ASCII column fits, before the last column.
    let room = (area.width as usize).saturating_sub(1);
    let (f, words) = shape(app);
    // A cell: a value right-aligned in the format's widest, and a space.
    let (unit, cell_w) = if words {
        (4u64, number::width(f))
    } else {
        (1u64, number::byte_width(f))
    };
    // The address column: whole addresses, else (narrow) offsets from the region's start,
    // `+10` (`-2` for the bytes of a first row before it), which the head line says.
    let full_w = format!("{:x}", hi.saturating_sub(1)).len().max(4);
    let offset_w = 1 + format!("{:x}", (hi - lo).saturating_sub(1)).len();
    let row_width = |bpr: usize, ascii: bool, addr_w: usize| {
        // `W*`, the address and `: `, a cell a unit (the last one's space trails), a
        // space between groups of 4 bytes, and ` ` plus a char a byte for ASCII.
        let units = bpr / unit as usize;
        let groups = if words { 0 } else { bpr / 4 - 1 };
        2 + addr_w + 2 + units * (cell_w + 1) - 1 + groups + if ascii { 2 + bpr } else { 0 }
    };
    let shapes = [
        (16, true),
        (16, false),
        (8, true),
        (8, false),
        (4, true),
        (4, false),
    ];
    let Some((bpr, ascii_col, offsets)) = [false, true].into_iter().find_map(|offsets| {
        let addr_w = if offsets { offset_w } else { full_w };
        shapes
            .into_iter()
            .find(|(b, a)| row_width(*b, *a, addr_w) <= room)
            .map(|(b, a)| (b, a, offsets))
    }) else {
        // Not one value a row: say what the pane needs rather than cut one.
        hits.mem_bytes_per_row = 4;
        hits.mem_ascii_hidden = true;
        let needed = row_width(4, false, offset_w) + 1;
        super::put_lines(frame, area, &[Line::from(head)]);
        let below = Rect::new(area.x, area.y + 1, area.width, area.height - 1);
        let forms = super::text::needs(
            "The memory view",
            (needed, 2),
            (area.width as usize, area.height as usize),
        );
        super::text::put_needs(frame, below, &forms, theme::dim());
        return (false, false);
    };
    let addr_w = if offsets { offset_w } else { full_w };
    head.push(Span::styled(
        format!(
            "  {scope} {lo:#x}..{hi:#x} @{:#x}{}",
            app.memory.addr(),
            if offsets { " (rows: +offset)" } else { "" }
        ),
        theme::dim(),
    ));
    let mut lines = vec![Line::from(head)];
    let bpr = bpr as u64;
    hits.mem_bytes_per_row = bpr;
    hits.mem_ascii_hidden = !ascii_col;
    let rows = h - 1;
    let cursor = app.memory.addr();
    let lo_row = lo / bpr * bpr;
    let cur_row = cursor / bpr * bpr;
    let last_row = (hi - 1) / bpr * bpr;
    let mut top = cur_row.saturating_sub(rows as u64 / 2 * bpr).max(lo_row);
    let span_rows = (last_row - lo_row) / bpr + 1;
    if span_rows > rows as u64 && top + (rows as u64 - 1) * bpr > last_row {
        top = last_row - (rows as u64 - 1) * bpr;
    }
    let watched = app.watched_ranges();
    for r in 0..rows as u64 {
        let row = top + r * bpr;
        if row > last_row {
            break;
        }
        let start = row.max(lo);
        let end = (row + bpr).min(hi);
        let now = read(m, space, wave, lane, start, (end - start) as usize);
        let before = read(
            &app.baseline,
            space,
            wave,
            lane,
            start,
            (end - start) as usize,
        );
        let mut hex = Vec::with_capacity(bpr as usize * 2);
        let mut ascii = String::with_capacity(bpr as usize);
        let (mut any_watch, mut any_change) = (false, false);
        for k in 0..bpr {
            let a = row + k;
            ascii.push(if a < start || a >= end {
                ' '
            } else {
                match now.as_ref().map(|b| b[(a - start) as usize]) {
                    Some(b) if b.is_ascii_graphic() || b == b' ' => b as char,
                    Some(_) => '.',
                    None => '?',
                }
            });
        }
        for k in (0..bpr).step_by(unit as usize) {
            let a = row + k;
            if !words && k > 0 && k % 4 == 0 {
                hex.push(Span::raw(" "));
            }
            let bytes = a..a + unit;
            if bytes.end <= start || a >= end {
                hex.push(Span::raw(" ".repeat(cell_w + 1)));
                continue;
            }
            let inside = bytes.clone().filter(|b| *b >= start && *b < end);
            let changed = inside.clone().any(|b| {
                let i = (b - start) as usize;
                match (&now, &before) {
                    (Some(n), Some(p)) => n[i] != p[i],
                    _ => false,
                }
            });
            let watch = bytes.clone().any(|b| {
                watched
                    .iter()
                    .any(|(wa, wl, _)| b >= *wa && b < wa.saturating_add(*wl))
            });
            // A word the region cuts (a buffer whose size is no multiple of 4) shows `?`.
            let whole = a >= start && bytes.end <= end;
            let value = match &now {
                Some(n) if whole && words => {
                    let i = (a - start) as usize;
                    let mut w = [0u8; 4];
                    w.copy_from_slice(&n[i..i + 4]);
                    number::word(u32::from_le_bytes(w), f)
                }
                Some(n) if whole => number::byte(n[(a - start) as usize], f),
                Some(_) => "?".to_string(),
                None => "??".to_string(),
            };
            any_watch |= watch;
            any_change |= changed;
            let mut style = if changed {
                theme::changed()
            } else if watch {
                theme::watched()
            } else {
                Style::new()
            };
            if watch {
                style = style.add_modifier(ratatui::style::Modifier::UNDERLINED);
            }
            if a >= cursor && a < cursor + 4 {
                style = if focused {
                    style.patch(theme::cursor())
                } else {
                    style.add_modifier(ratatui::style::Modifier::BOLD)
                };
            }
            hex.push(Span::styled(format!("{value:>cell_w$}"), style));
            hex.push(Span::raw(" "));
        }
        let mut spans = vec![
            Span::styled(if any_watch { "W" } else { " " }, theme::watched()),
            Span::styled(if any_change { "*" } else { " " }, theme::changed()),
            Span::styled(
                if offsets {
                    let (sign, off) = if row >= lo {
                        ('+', row - lo)
                    } else {
                        ('-', lo - row)
                    };
                    format!("{:>addr_w$}: ", format!("{sign}{off:x}"))
                } else {
                    format!("{row:0addr_w$x}: ")
                },
                theme::dim(),
            ),
        ];
        spans.extend(hex);
        if ascii_col {
            spans.push(Span::styled(format!(" {ascii}"), theme::dim()));
        }
        lines.push(Line::from(spans));
    }
    super::put_lines(frame, area, &lines);
    let shown_end = top + rows as u64 * bpr;
    (top > lo_row, shown_end <= last_row)
}
