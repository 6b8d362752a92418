//! Command output: each command as entered, then what it printed (errors in red).

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::theme;
use crate::app::{App, LineKind};

/// Draws the pane.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let h = area.height as usize;
    if app.console.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::styled(
                "Command output appears here. Press : to type a command (help lists them).",
                theme::dim(),
            ))
            .wrap(ratatui::widgets::Wrap { trim: true }),
            area,
        );
        return;
    }
    let end = app.console.len().saturating_sub(app.console_scroll);
    let start = end.saturating_sub(h);
    let lines: Vec<Line> = app.console[start..end]
        .iter()
        .map(|(text, kind)| {
            let style = match kind {
                LineKind::Command => theme::label(),
                LineKind::Output => Style::new(),
                LineKind::Error => theme::error(),
            };
            Line::styled(text.clone(), style)
        })
        .collect();
    super::put_lines(frame, area, &lines);
}
