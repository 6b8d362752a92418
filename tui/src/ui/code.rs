//! The disassembly: labels, `=>` at the selected wave's PC (`->` where other waves are),
//! `●`/`○` for enabled/disabled breakpoints, `!` and the side's name on the instructions
//! of a sanitizer finding the run stopped at, and the cursor.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::Frame;

use super::{theme, window};
use crate::app::App;
use crate::hits::HitMap;
use crate::pane::Pane;
use wavedbg_emulator::debug::StopReason;

/// Draws the pane.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, hits: &mut HitMap) {
    let h = area.height as usize;
    if h == 0 || app.code.is_empty() {
        return;
    }
    let m = app.engine.machine();
    let pc = app.selected_pc();
    let focused = app.focus == Pane::Code;
    // The two sides of the findings of the last stop: (pc, "race: before").
    let marks: Vec<(u64, String)> = match app.engine.last_stop().map(|s| &s.reason) {
        Some(StopReason::Finding(found)) => found
            .iter()
            .flat_map(|f| {
                let (a, b) = f.roles();
                let name = f.kind.name();
                std::iter::once((f.at.pc, format!("{name}: {a}")))
                    .chain(f.other.zip(b).map(|(o, b)| (o.pc, format!("{name}: {b}"))))
            })
            .collect(),
        _ => Vec::new(),
    };
    // Rows for the lines around the cursor (labels take rows of their own).
    let lo = app.code_cursor.saturating_sub(h);
    let hi = (app.code_cursor + h + 1).min(app.code.len());
    let mut rows: Vec<(Line, Option<usize>)> = Vec::with_capacity(2 * h + 8);
    let mut cursor_row = 0;
    for i in lo..hi {
        let l = &app.code[i];
        for name in &l.labels {
            rows.push((Line::styled(format!("{name}:"), theme::label()), None));
        }
        if i == app.code_cursor {
            cursor_row = rows.len();
        }
        let at_pc = pc == Some(l.addr);
        let others = m
            .waves
            .iter()
            .enumerate()
            .any(|(wi, w)| wi != app.engine.selected_wave && w.alive() && w.pc == l.addr);
        let marker = if at_pc {
            Span::styled("=>", theme::pc())
        } else if others {
            Span::styled("->", theme::dim())
        } else {
            Span::raw("  ")
        };
        let bp = app
            .engine
            .breakpoints()
            .iter()
            .filter(|b| b.addr == l.addr)
            .map(|b| b.enabled)
            .max();
        let mark: Vec<&str> = marks
            .iter()
            .filter(|(a, _)| *a == l.addr)
            .map(|(_, m)| m.as_str())
            .collect();
        let bp = match bp {
            Some(true) => Span::styled("●", theme::breakpoint()),
            Some(false) => Span::styled("○", theme::dim()),
            None if !mark.is_empty() => Span::styled("!", theme::error()),
            None => Span::raw(" "),
        };
        let text_style = if at_pc {
            theme::pc()
        } else {
            ratatui::style::Style::new()
        };
        let mut line = Line::from(vec![
            marker,
            bp,
            Span::styled(format!(" {:04x}  ", l.addr), theme::dim()),
            Span::styled(l.text.clone(), text_style),
        ]);
        if !mark.is_empty() {
            line.push_span(Span::styled(
                format!("  ! {}", mark.join(", ")),
                theme::error(),
            ));
        }
        if i == app.code_cursor && focused {
            line = line.patch_style(theme::cursor());
        }
        rows.push((line, Some(i)));
    }
    let start = window(cursor_row, h, rows.len());
    let shown: Vec<Line> = rows
        .iter()
        .skip(start)
        .take(h)
        .enumerate()
        .map(|(y, (line, item))| {
            if let Some(i) = item {
                hits.item(
                    Pane::Code,
                    Rect::new(area.x, area.y + y as u16, area.width, 1),
                    *i,
                );
            }
            line.clone()
        })
        .collect();
    super::put_lines(frame, area, &shown);
}
