//! The resident waves: id, workgroup, state, PC and active lanes; `>` marks the selected one.

use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::Frame;
use wavedbg_emulator::debug::view;
use wavedbg_emulator::machine::wave::WaveState;

use super::text::truncate;
use super::{theme, window};
use crate::app::App;
use crate::hits::HitMap;
use crate::pane::Pane;

fn state_style(s: WaveState) -> Style {
    match s {
        WaveState::Ready => Style::new().fg(Color::Green),
        WaveState::AtBarrier => Style::new().fg(Color::Yellow),
        WaveState::Stopped => Style::new().fg(Color::Blue),
        WaveState::Exited => theme::dim(),
        WaveState::Faulted => theme::error(),
    }
}

/// Draws the pane; returns whether waves are hidden above and below.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, hits: &mut HitMap) -> (bool, bool) {
    if area.height == 0 {
        return (false, false);
    }
    let m = app.engine.machine();
    let sel = app.engine.selected_wave;
    let focused = app.focus == Pane::Waves;
    // The PC column gives up width first (its text ends with `…` when cut).
    let fixed = 1 + 10 + 10 + 1 + 1 + 6;
    let pc_w = (area.width as usize).saturating_sub(1 + fixed).clamp(8, 22);
    let mut lines = vec![Line::styled(
        format!(
            " {:>4} {:>3}  {:<10}  {:<pc_w$} {}",
            "wave", "wg", "state", "pc", "lanes"
        ),
        theme::header(),
    )];
    let h = area.height as usize - 1;
    let start = window(sel, h, m.waves.len());
    for (i, w) in m.waves.iter().enumerate().skip(start).take(h) {
        let changed = app
            .baseline
            .waves
            .get(i)
            .is_some_and(|b| b.id == w.id && (b.pc != w.pc || b.state != w.state));
        let base = if w.state == WaveState::Exited {
            theme::dim()
        } else {
            Style::new()
        };
        let mut line = Line::from(vec![
            Span::styled(
                if i == sel { ">" } else { " " },
                if i == sel { theme::selected() } else { base },
            ),
            Span::styled(format!("{:>4} {:>3}  ", w.id, w.workgroup), base),
            Span::styled(format!("{:<10}", w.state.name()), state_style(w.state)),
            Span::styled(
                format!("{}", if changed { '*' } else { ' ' }),
                theme::changed(),
            ),
            Span::styled(
                format!(" {:<pc_w$}", truncate(&view::pc_text(m, w.pc), pc_w)),
                if changed { theme::changed() } else { base },
            ),
            Span::styled(format!(" {:>2}/32", w.exec.count_ones()), base),
        ]);
        if i == sel {
            line = line.patch_style(if focused {
                theme::cursor()
            } else {
                theme::selected()
            });
        }
        hits.item(
            Pane::Waves,
            Rect::new(area.x, area.y + lines.len() as u16, area.width, 1),
            i,
        );
        lines.push(line);
    }
    super::put_lines(frame, area, &lines);
    (start > 0, start + h < m.waves.len())
}
