//! The disassembly: labels, `=>` at the selected wave's PC (`->` where other waves are),
//! `●`/`○` for enabled/disabled breakpoints, `!` and the side's name on the instructions
//! of a sanitizer finding the run stopped at, and the cursor. A long line ends with `…`.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::Frame;

use super::{theme, window};
use crate::app::App;
use crate::hits::HitMap;
use crate::pane::Pane;
use wavedbg_emulator::debug::{Reached, StopReason};

/// The two sides of the findings of the last stop, as (instruction address, mark), e.g.
/// `(0x18, "data race: now")`, or the side a `finding N` stopped at (`#2 data race:
/// before`). The code and source views both show them.
pub(crate) fn finding_marks(app: &App) -> Vec<(u64, String)> {
    match app.engine.last_stop().map(|s| &s.reason) {
        Some(StopReason::Finding(found)) => found
            .iter()
            .flat_map(|f| {
                let (a, b) = f.roles();
                let name = f.kind.name();
                std::iter::once((f.at.pc, format!("{name}: {a}")))
                    .chain(f.other.zip(b).map(|(o, b)| (o.pc, format!("{name}: {b}"))))
            })
            .collect(),
        // `finding N` stopped right before one side's instruction.
        Some(StopReason::Reached(Reached::Finding { number, side, .. })) => {
            let found = usize::try_from(*number)
                .ok()
                .and_then(|n| app.engine.recorded_findings().get(n.checked_sub(1)?));
            let pc = app.engine.last_stop().and_then(|s| s.pc);
            match (found, pc) {
                (Some(f), Some(pc)) => {
                    vec![(pc, format!("#{number} {}: {}", f.kind.name(), side.role(f)))]
                }
                _ => Vec::new(),
            }
        }
        _ => Vec::new(),
    }
}

/// The gutter of a code or source line: `=>` at the selected wave's PC, `->` where
/// other live waves are, then `●`/`○` for a breakpoint or `!` for a finding.
pub(crate) fn gutter(
    at_pc: bool,
    others: bool,
    bp: Option<bool>,
    finding: bool,
) -> [Span<'static>; 2] {
    let marker = if at_pc {
        Span::styled("=>", theme::pc())
    } else if others {
        Span::styled("->", theme::dim())
    } else {
        Span::raw("  ")
    };
    let bp = match bp {
        Some(true) => Span::styled("●", theme::breakpoint()),
        Some(false) => Span::styled("○", theme::dim()),
        None if finding => Span::styled("!", theme::error()),
        None => Span::raw(" "),
    };
    [marker, bp]
}

/// Draws the pane; returns whether rows are hidden above and below.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, hits: &mut HitMap) -> (bool, bool) {
    let h = area.height as usize;
    if h == 0 || app.code.lines.is_empty() {
        return (false, false);
    }
    let m = app.engine.machine();
    let pc = app.selected_pc();
    let focused = app.focus == Pane::Code;
    let marks = finding_marks(app);
    // Rows for the lines around the cursor (labels take rows of their own).
    let lo = app.code.cursor.saturating_sub(h);
    let hi = (app.code.cursor + h + 1).min(app.code.lines.len());
    let mut rows: Vec<(Line, Option<usize>)> = Vec::with_capacity(2 * h + 8);
    let mut cursor_row = 0;
    for i in lo..hi {
        let l = &app.code.lines[i];
        for name in &l.labels {
            rows.push((Line::styled(format!("{name}:"), theme::label()), None));
        }
        if i == app.code.cursor {
            cursor_row = rows.len();
        }
        let at_pc = pc == Some(l.addr);
        let others = m
            .waves
            .iter()
            .enumerate()
            .any(|(wi, w)| wi != app.engine.selected_wave && w.alive() && w.pc == l.addr);
        let bp = app
            .engine
            .breakpoints()
            .iter()
            .filter(|b| b.is_at(l.addr))
            .map(|b| b.enabled)
            .max();
        let mark: Vec<&str> = marks
            .iter()
            .filter(|(a, _)| *a == l.addr)
            .map(|(_, m)| m.as_str())
            .collect();
        let text_style = if at_pc { theme::pc() } else { Style::new() };
        let mut spans = gutter(at_pc, others, bp, !mark.is_empty()).to_vec();
        spans.push(Span::styled(format!(" {:04x}  ", l.addr), theme::dim()));
        let pattern = app.search.pattern.as_deref();
        spans.extend(super::text::highlight(&l.text, text_style, pattern).spans);
        let mut line = Line::from(spans);
        if !mark.is_empty() {
            line.push_span(Span::styled(
                format!("  ! {}", mark.join(", ")),
                theme::error(),
            ));
        }
        if i == app.code.cursor && focused {
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
    let above = lo > 0 || start > 0;
    let below = hi < app.code.lines.len() || start + h < rows.len();
    (above, below)
}
