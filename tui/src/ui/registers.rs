//! The selected wave's PC, EXEC (hex and a 32-lane bitmap), counters and u registers;
//! values changed since the last stop are highlighted and marked `*`.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use wavedbg_emulator::debug::view;
use wavedbg_emulator::isa::Counter;

use super::theme;
use crate::app::App;

/// Width of one u register cell (`u12 0000002a*  `).
const CELL: usize = 15;

fn mark(changed: bool) -> Span<'static> {
    if changed {
        Span::styled("*", theme::changed())
    } else {
        Span::raw(" ")
    }
}

fn val(changed: bool) -> Style {
    if changed {
        theme::changed()
    } else {
        Style::new()
    }
}

/// Draws the pane.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let m = app.engine.machine();
    let wi = app.engine.selected_wave;
    let Some(w) = m.waves.get(wi) else {
        frame.render_widget(Paragraph::new("no wave"), area);
        return;
    };
    let prev = app.baseline.waves.get(wi).filter(|p| p.id == w.id);
    let pc_changed = prev.is_some_and(|p| p.pc != w.pc);
    let exec_changed = prev.is_some_and(|p| p.exec != w.exec);
    let mut lines = vec![Line::from(vec![
        Span::styled(
            format!("wave {} (wg {}, index {}) ", w.id, w.workgroup, w.index),
            theme::header(),
        ),
        Span::raw(format!("{:<10} ", w.state.name())),
        Span::raw("pc "),
        Span::styled(view::pc_text(m, w.pc), val(pc_changed)),
        mark(pc_changed),
    ])];
    // EXEC: hex, count, and one cell per lane (lane 0 first).
    let mut exec = vec![
        Span::raw("exec "),
        Span::styled(format!("{:#010x}", w.exec), val(exec_changed)),
        mark(exec_changed),
        Span::raw(format!(" {:>2}/32 ", w.exec.count_ones())),
    ];
    for lane in 0..32u32 {
        if lane % 8 == 0 {
            exec.push(Span::raw(" "));
        }
        let on = w.exec >> lane & 1 == 1;
        let flipped = prev.is_some_and(|p| (p.exec ^ w.exec) >> lane & 1 == 1);
        let mut style = if flipped {
            theme::changed()
        } else if on {
            theme::pc()
        } else {
            theme::dim()
        };
        if lane == app.engine.selected_lane as u32 {
            style = style.add_modifier(ratatui::style::Modifier::UNDERLINED);
        }
        exec.push(Span::styled(if on { "■" } else { "·" }, style));
    }
    lines.push(Line::from(exec));
    let counters: Vec<String> = Counter::ALL
        .iter()
        .map(|c| format!("{}={}", c.name(), w.counter(*c)))
        .collect();
    lines.push(Line::from(vec![
        Span::raw(format!("counters {}", counters.join(" "))),
        Span::styled(
            format!(
                "   scheduler-locking {}",
                if app.engine.scheduler_locking {
                    "on"
                } else {
                    "off"
                }
            ),
            theme::dim(),
        ),
    ]));
    let cols = ((area.width as usize + 2) / CELL).max(1);
    let rows_total = w.u.len().div_ceil(cols);
    let room = (area.height as usize).saturating_sub(lines.len());
    let scroll = app.regs_scroll.min(rows_total.saturating_sub(room));
    for row in scroll..rows_total {
        if lines.len() >= area.height as usize {
            break;
        }
        let mut spans = Vec::new();
        for r in row * cols..((row + 1) * cols).min(w.u.len()) {
            let changed = prev.is_some_and(|p| p.u[r] != w.u[r]);
            spans.push(Span::styled(format!("u{r:<2} "), theme::dim()));
            spans.push(Span::styled(format!("{:08x}", w.u[r]), val(changed)));
            spans.push(mark(changed));
            spans.push(Span::raw("  "));
        }
        lines.push(Line::from(spans));
    }
    super::put_lines(frame, area, &lines);
}
