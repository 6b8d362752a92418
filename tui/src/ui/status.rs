//! The status line (the stop reason, or a run's progress) and the line under it (the
//! command line while open, else the last message or a reminder of the main keys).

use ratatui::layout::{Position, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::theme;
use crate::app::{App, StatusKind};

/// Formats 1234567 as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Draws the status line.
pub fn draw_status(frame: &mut Frame, area: Rect, app: &App) {
    let m = app.engine.machine();
    let (badge, color, text) = if let Some(job) = &app.job {
        let p = job.progress();
        let what = if job.stopping() {
            "interrupting"
        } else {
            "running"
        };
        (
            " RUNNING ",
            Color::Yellow,
            format!(
                "{what} `{}`: {} instructions, {} waves remaining, {:.1} s  (Esc interrupts)",
                job.text(),
                thousands(p.instructions),
                p.waves_remaining,
                job.started.elapsed().as_secs_f64()
            ),
        )
    } else {
        let (text, kind) = &app.status;
        let (badge, color) = match kind {
            StatusKind::Ready => (" READY ", Color::Blue),
            StatusKind::Stopped => (" STOPPED ", Color::Cyan),
            StatusKind::Hit => (" HIT ", Color::Magenta),
            StatusKind::Finished => (" DONE ", Color::Green),
            StatusKind::Problem => (" PROBLEM ", Color::Red),
        };
        (badge, color, text.clone())
    };
    let right = if app.job.is_some() {
        String::new()
    } else {
        // In the past (after time travel), also where the recorded history ends.
        let now = m.stats.wave_instructions;
        let end = app.engine.history().info(now).end;
        let count = if end > now {
            format!("{} of {} instr", thousands(now), thousands(end))
        } else {
            format!("{} instr", thousands(now))
        };
        format!(
            " wave {} lane {} | {count} ",
            m.waves
                .get(app.engine.selected_wave)
                .map_or("-".to_string(), |w| w.id.to_string()),
            app.engine.selected_lane,
        )
    };
    let avail = (area.width as usize).saturating_sub(badge.len() + 1 + right.chars().count());
    let text = super::waves::truncate(&text, avail);
    let pad = avail.saturating_sub(text.chars().count());
    let line = Line::from(vec![
        Span::styled(badge, theme::badge(color)),
        Span::raw(" "),
        Span::raw(text),
        Span::raw(" ".repeat(pad)),
        Span::styled(right, theme::dim()),
    ]);
    frame.render_widget(
        Paragraph::new(line).style(Style::new().bg(Color::Black)),
        area,
    );
}

/// The keys shown when nothing else is.
pub const HINT: &str =
    "F5/c continue  F11/s step  S step all  F9/b breakpoint  w/l wave/lane  Tab pane  : command  ? help  q quit";

/// Draws the command line, the quit question, the last message or the hint.
pub fn draw_command(frame: &mut Frame, area: Rect, app: &App) {
    if let Some(e) = &app.editor {
        let text = format!(":{}", e.text());
        // Keep the cursor visible on a long line.
        let cur = 1 + e.cursor();
        let skip = cur.saturating_sub(area.width.saturating_sub(1) as usize);
        let shown: String = text.chars().skip(skip).collect();
        frame.render_widget(Paragraph::new(shown), area);
        frame.set_cursor_position(Position {
            x: area.x + (cur - skip) as u16,
            y: area.y,
        });
        return;
    }
    let line = if app.confirm_quit {
        Line::styled(
            "A run is in progress: quit anyway? (y/n)",
            theme::error().add_modifier(ratatui::style::Modifier::BOLD),
        )
    } else if let Some(msg) = &app.message {
        Line::styled(
            msg.text.clone(),
            if msg.error {
                theme::error()
            } else {
                Style::new()
            },
        )
    } else {
        Line::styled(HINT, theme::dim())
    };
    frame.render_widget(Paragraph::new(line), area);
}
