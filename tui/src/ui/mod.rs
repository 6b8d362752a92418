//! Drawing: the layout and one file per pane. Drawing only reads the [`App`]; it returns a
//! [`HitMap`] telling where things were drawn, for mouse clicks and page sizes. Nothing in
//! [`crate::app`] depends on this module.

mod breakpoints;
mod code;
mod console;
mod help;
mod lanes;
mod memory;
mod registers;
mod status;
pub mod theme;
mod waves;

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

use crate::app::App;
use crate::hits::{Hit, HitMap};
use crate::pane::Pane;

/// Terminals at least this wide and tall show every pane at once; smaller ones show one
/// pane at a time under a tab bar.
pub const WIDE: (u16, u16) = (100, 30);

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, app: &App) -> HitMap {
    let area = frame.area();
    let mut hits = HitMap::default();
    if area.width < 20 || area.height < 6 {
        frame.render_widget(Paragraph::new("wavedbg: the terminal is too small"), area);
        return hits;
    }
    let [main, status_row, command_row] = Layout::vertical([
        Constraint::Min(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    let compact = area.width < WIDE.0 || area.height < WIDE.1;
    hits.compact = compact;
    let panes = if compact {
        let [tabs, body] =
            Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(main);
        draw_tabs(frame, tabs, app, &mut hits);
        vec![(app.focus, body)]
    } else {
        wide_layout(main, app)
    };
    for (pane, rect) in panes {
        hits.hits.push(Hit {
            area: rect,
            pane,
            item: None,
        });
        let block = pane_block(app, pane);
        let inner = block.inner(rect);
        hits.rows[pane.index()] = inner.height;
        frame.render_widget(block.title(title(app, pane)), rect);
        match pane {
            Pane::Code => code::draw(frame, inner, app, &mut hits),
            Pane::Waves => waves::draw(frame, inner, app, &mut hits),
            Pane::Lanes => lanes::draw(frame, inner, app, &mut hits),
            Pane::Registers => registers::draw(frame, inner, app),
            Pane::Memory => memory::draw(frame, inner, app, &mut hits),
            Pane::Breakpoints => breakpoints::draw(frame, inner, app, &mut hits),
            Pane::Console => console::draw(frame, inner, app),
        }
    }
    status::draw_status(frame, status_row, app);
    status::draw_command(frame, command_row, app);
    if app.help {
        help::draw(frame, area, app);
    }
    hits
}

/// Every pane at once: code, waves, breakpoints and console on the left; lanes, registers
/// and memory on the right.
fn wide_layout(main: Rect, app: &App) -> Vec<(Pane, Rect)> {
    let h = main.height;
    let left_w = (main.width * 9 / 25).max(44);
    let [left, right] =
        Layout::horizontal([Constraint::Length(left_w), Constraint::Min(1)]).areas(main);
    let waves = app.engine.machine().waves.len() as u16;
    let waves_h = (waves + 3).clamp(5, if h >= 50 { 14 } else { 9 });
    let bp_h = if h >= 50 { 8 } else { 6 };
    let console_h = (h / 5).max(7);
    let [code, wv, bp, console] = Layout::vertical([
        Constraint::Min(6),
        Constraint::Length(waves_h),
        Constraint::Length(bp_h),
        Constraint::Length(console_h),
    ])
    .areas(left);
    let lanes_h = if h >= 56 {
        35
    } else if h >= 36 {
        19
    } else {
        11
    };
    let regs_h = if h >= 50 { 10 } else { 8 };
    let [lanes, regs, mem] = Layout::vertical([
        Constraint::Length(lanes_h),
        Constraint::Length(regs_h),
        Constraint::Min(4),
    ])
    .areas(right);
    vec![
        (Pane::Code, code),
        (Pane::Waves, wv),
        (Pane::Breakpoints, bp),
        (Pane::Console, console),
        (Pane::Lanes, lanes),
        (Pane::Registers, regs),
        (Pane::Memory, mem),
    ]
}

fn draw_tabs(frame: &mut Frame, area: Rect, app: &App, hits: &mut HitMap) {
    let mut spans = Vec::new();
    let mut x = area.x;
    for (i, p) in Pane::ALL.iter().enumerate() {
        let label = format!(" {} {} ", i + 1, p.title());
        let w = label.chars().count() as u16;
        let style = if *p == app.focus {
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
        spans.push(Span::styled(label, style));
        spans.push(Span::raw(" "));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
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

fn title(app: &App, pane: Pane) -> String {
    let m = app.engine.machine();
    let wave = m.waves.get(app.engine.selected_wave);
    match pane {
        Pane::Code => format!(" {} ", app.engine.kernel_path().unwrap_or("Code")),
        Pane::Waves => format!(" Waves ({}) ", m.waves.len()),
        Pane::Lanes => match wave {
            Some(w) => format!(
                " Lanes: wave {}, {}/32 active, lane {} ",
                w.id,
                w.exec.count_ones(),
                app.engine.selected_lane
            ),
            None => " Lanes ".into(),
        },
        Pane::Registers => " Registers ".into(),
        Pane::Memory => " Memory ".into(),
        Pane::Breakpoints => " Breakpoints & watchpoints ".into(),
        Pane::Console => " Console ".into(),
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

/// Writes lines into `area` (cut at its width and height): a plain, fast [`Paragraph`]
/// without wrapping. ASCII spans (nearly all of them) skip grapheme segmentation.
pub(crate) fn put_lines(frame: &mut Frame, area: Rect, lines: &[Line]) {
    let buf = frame.buffer_mut();
    let right = area.x.saturating_add(area.width);
    for (dy, line) in lines.iter().take(area.height as usize).enumerate() {
        let y = area.y + dy as u16;
        let mut x = area.x;
        for span in &line.spans {
            if x >= right {
                break;
            }
            let style = line.style.patch(span.style);
            if span.content.is_ascii() {
                for b in span.content.bytes().take((right - x) as usize) {
                    if let Some(cell) = buf.cell_mut((x, y)) {
                        cell.set_char(b as char).set_style(style);
                    }
                    x += 1;
                }
            } else {
                let (nx, _) =
                    buf.set_stringn(x, y, span.content.as_ref(), (right - x) as usize, style);
                x = nx;
            }
        }
        // A line style (the cursor bar) covers the whole row.
        if line.style != ratatui::style::Style::default() && x < right {
            buf.set_style(Rect::new(x, y, right - x, 1), line.style);
        }
    }
}
