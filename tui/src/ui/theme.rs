//! Colours and styles. Every highlight that matters also has a text marker (`*`, `=>`,
//! `W`, parentheses), so it survives a monochrome terminal and a text snapshot.

use ratatui::style::{Color, Modifier, Style};

/// A value changed since the last stop (also marked `*`): bold yellow.
pub fn changed() -> Style {
    Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD)
}

/// An inactive lane, an exited wave, secondary text: dimmed dark grey.
pub fn dim() -> Style {
    Style::new().fg(Color::DarkGray).add_modifier(Modifier::DIM)
}

/// The cursor line in the focused pane: reversed video.
pub fn cursor() -> Style {
    Style::new().add_modifier(Modifier::REVERSED)
}

/// The selected wave or lane: bold cyan.
pub fn selected() -> Style {
    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
}

/// The PC line and its `=>` marker: bold green.
pub fn pc() -> Style {
    Style::new().fg(Color::Green).add_modifier(Modifier::BOLD)
}

/// A breakpoint marker (`●`/`○`): bold red.
pub fn breakpoint() -> Style {
    Style::new().fg(Color::Red).add_modifier(Modifier::BOLD)
}

/// A code label and a command echoed in the console: cyan.
pub fn label() -> Style {
    Style::new().fg(Color::Cyan)
}

/// A watched memory byte (also marked `W`): underlined magenta.
pub fn watched() -> Style {
    Style::new()
        .fg(Color::Magenta)
        .add_modifier(Modifier::UNDERLINED)
}

/// An error message in the console or the footer: red.
pub fn error() -> Style {
    Style::new().fg(Color::Red)
}

/// The column headings of the lane grid, waves and registers: bold grey.
pub fn header() -> Style {
    Style::new().fg(Color::Gray).add_modifier(Modifier::BOLD)
}

/// An unfocused pane's border: dark grey, so the focused one stands out.
pub fn border() -> Style {
    Style::new().fg(Color::DarkGray)
}

/// The focused pane's border: cyan.
pub fn border_focused() -> Style {
    Style::new().fg(Color::Cyan)
}

/// An unfocused pane's title: grey.
pub fn title() -> Style {
    Style::new().fg(Color::Gray)
}

/// The focused pane's title: bold cyan.
pub fn title_focused() -> Style {
    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
}

/// A tab of the compact layout's tab bar, and the memory view's space names: grey.
pub fn tab() -> Style {
    Style::new().fg(Color::Gray)
}

/// The focused pane's tab, and the memory view's current space: black on cyan.
pub fn tab_active() -> Style {
    Style::new()
        .fg(Color::Black)
        .bg(Color::Cyan)
        .add_modifier(Modifier::BOLD)
}

/// The status line's badge (`HIT`, `RUNNING`, …): bold black on `bg`, the stop kind's
/// colour.
pub fn badge(bg: Color) -> Style {
    Style::new()
        .fg(Color::Black)
        .bg(bg)
        .add_modifier(Modifier::BOLD)
}

/// The `…` that marks cut text: yellow.
pub fn cut_marker() -> Style {
    Style::new().fg(Color::Yellow)
}

/// A scroll marker (`▲`/`▼`) on a pane's border, more rows above or below: bold yellow.
pub fn scroll_marker() -> Style {
    Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD)
}

/// A sanitizer finding or a fault (also marked `!`): bold red.
pub fn finding() -> Style {
    Style::new().fg(Color::Red).add_modifier(Modifier::BOLD)
}

/// A comment in the source pane: dark grey, so the code stands out.
pub fn comment() -> Style {
    Style::new().fg(Color::DarkGray)
}

/// The active-lane sparkline in the registers pane: green.
pub fn sparkline() -> Style {
    Style::new().fg(Color::Green)
}

/// A match of the `/` search.
pub fn search_match() -> Style {
    Style::new().fg(Color::Black).bg(Color::Yellow)
}
