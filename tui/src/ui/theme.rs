//! Colours and styles. Every highlight that matters also has a text marker (`*`, `=>`,
//! `W`, parentheses), so it survives a monochrome terminal and a text snapshot.

use ratatui::style::{Color, Modifier, Style};

/// A value changed since the last stop.
pub fn changed() -> Style {
    Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD)
}

/// An inactive lane, an exited wave, secondary text.
pub fn dim() -> Style {
    Style::new().fg(Color::DarkGray).add_modifier(Modifier::DIM)
}

/// The cursor in the focused pane.
pub fn cursor() -> Style {
    Style::new().add_modifier(Modifier::REVERSED)
}

/// The selected wave or lane in a list.
pub fn selected() -> Style {
    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
}

/// The PC line and marker.
pub fn pc() -> Style {
    Style::new().fg(Color::Green).add_modifier(Modifier::BOLD)
}

/// A breakpoint marker.
pub fn breakpoint() -> Style {
    Style::new().fg(Color::Red).add_modifier(Modifier::BOLD)
}

/// A label.
pub fn label() -> Style {
    Style::new().fg(Color::Cyan)
}

/// A watched memory byte.
pub fn watched() -> Style {
    Style::new()
        .fg(Color::Magenta)
        .add_modifier(Modifier::UNDERLINED)
}

/// An error.
pub fn error() -> Style {
    Style::new().fg(Color::Red)
}

/// A header row.
pub fn header() -> Style {
    Style::new().fg(Color::Gray).add_modifier(Modifier::BOLD)
}

/// A pane border.
pub fn border() -> Style {
    Style::new().fg(Color::DarkGray)
}

/// The focused pane's border.
pub fn border_focused() -> Style {
    Style::new().fg(Color::Cyan)
}

/// A pane title.
pub fn title() -> Style {
    Style::new().fg(Color::Gray)
}

/// The focused pane's title.
pub fn title_focused() -> Style {
    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
}

/// A tab.
pub fn tab() -> Style {
    Style::new().fg(Color::Gray)
}

/// The current tab.
pub fn tab_active() -> Style {
    Style::new()
        .fg(Color::Black)
        .bg(Color::Cyan)
        .add_modifier(Modifier::BOLD)
}

/// A badge on the status line.
pub fn badge(bg: Color) -> Style {
    Style::new()
        .fg(Color::Black)
        .bg(bg)
        .add_modifier(Modifier::BOLD)
}

/// The `…` that marks cut text.
pub fn cut_marker() -> Style {
    Style::new().fg(Color::Yellow)
}

/// A scroll marker on a pane's border (more above or below).
pub fn scroll_marker() -> Style {
    Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD)
}

/// A sanitizer finding or a fault.
pub fn finding() -> Style {
    Style::new().fg(Color::Red).add_modifier(Modifier::BOLD)
}

/// A source comment.
pub fn comment() -> Style {
    Style::new().fg(Color::DarkGray)
}

/// The active-lane sparkline.
pub fn sparkline() -> Style {
    Style::new().fg(Color::Green)
}
