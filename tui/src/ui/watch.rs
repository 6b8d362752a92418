//! The Watch pane: each `display` with its value, numbered as `info display` numbers them.
//! A scalar shows on its display's row (`2: u6 = 42`); a vector expression shows its 32
//! lanes under it, as many a row as fit (a power of two, so rows start at lanes 0, 8, 16...),
//! inactive lanes dimmed. Values changed since the last stop are highlighted and marked
//! `*`; a display that cannot be evaluated shows why on its row.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::Frame;

use super::{text, theme};
use crate::app::{App, WatchRow, WatchValue};
use crate::hits::HitMap;
use crate::pane::Pane;

/// Before each row of lanes: `  [ 8]`.
const LANE_LABEL: usize = 6;

/// The pane's title: its name and the number of displays.
pub fn title(app: &App) -> String {
    match app.engine.displays().len() {
        0 => " Watch ".into(),
        n => format!(" Watch ({n}) "),
    }
}

/// Lanes a row for values `cw` wide in `room` columns: the most of 32, 16, 8, 4, 2 that
/// fit, else 1.
pub(super) fn lanes_per_row(room: usize, cw: usize) -> usize {
    [32, 16, 8, 4, 2]
        .into_iter()
        .find(|n| LANE_LABEL + n * (cw + 2) <= room)
        .unwrap_or(1)
}

/// The pane's lines for `room` columns, each with the index of the display it belongs to.
fn lines(app: &App, rows: &[WatchRow], room: usize) -> Vec<(Line<'static>, usize)> {
    let selected = app.watch_selected();
    let focused = app.focus == Pane::Watch;
    let mut out = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let head_style = match (selected == Some(i), focused) {
            (true, true) => theme::cursor(),
            (true, false) => theme::selected(),
            _ => theme::header(),
        };
        let mut head = vec![Span::styled(
            format!("{}: {}", row.number, row.text),
            head_style,
        )];
        match &row.value {
            WatchValue::Scalar { text, changed } => {
                head.push(Span::raw(" = "));
                head.push(Span::styled(
                    text.clone(),
                    if *changed {
                        theme::changed()
                    } else {
                        Style::new()
                    },
                ));
                if *changed {
                    head.push(Span::styled("*", theme::changed()));
                }
                out.push((Line::from(head), i));
            }
            WatchValue::Error(e) => {
                // The reason, wrapped under the display (`↪` on its continuation rows).
                let lead = format!("{}: {}: ", row.number, row.text);
                let full = format!("{lead}{e}");
                for (k, r) in text::wrap(&full, room.max(1)).into_iter().enumerate() {
                    let line = if k == 0 && r.len() >= lead.len() && r.starts_with(&lead) {
                        Line::from(vec![
                            Span::styled(lead.clone(), head_style),
                            Span::styled(r[lead.len()..].to_string(), theme::error()),
                        ])
                    } else {
                        Line::styled(r, theme::error())
                    };
                    out.push((line, i));
                }
            }
            WatchValue::Lanes {
                texts,
                changed,
                exec,
            } => {
                head.push(Span::styled(" (by lane)", theme::dim()));
                out.push((Line::from(head), i));
                let cw = texts.iter().map(|t| text::width(t)).max().unwrap_or(1);
                let per_row = lanes_per_row(room, cw);
                for first in (0..texts.len()).step_by(per_row) {
                    let mut spans = vec![Span::styled(format!("  [{first:>2}]"), theme::dim())];
                    for (l, t) in texts.iter().enumerate().skip(first).take(per_row) {
                        let (active, ch) = (exec >> l & 1 == 1, changed >> l & 1 == 1);
                        let style = match (active, ch) {
                            (_, true) => theme::changed(),
                            (false, false) => theme::dim(),
                            (true, false) => Style::new(),
                        };
                        spans.push(Span::styled(
                            format!(" {t:>cw$}{}", if ch { '*' } else { ' ' }),
                            style,
                        ));
                    }
                    out.push((Line::from(spans), i));
                }
            }
        }
    }
    out
}

/// The rows the pane wants inside its borders at `width` columns (outside them: the
/// borders' 2): every display's lines, or the one line of help when there are none.
pub fn height(app: &App, width: u16) -> u16 {
    let room = (width as usize).saturating_sub(3);
    let n = lines(app, &app.watch_rows(), room).len().max(1);
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// Draws the pane; returns whether lines are hidden above and below.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, hits: &mut HitMap) -> (bool, bool) {
    let rows = app.watch_rows();
    if rows.is_empty() {
        text::put_wrapped(
            frame,
            area,
            "No displays. a or Enter adds one (display EXPR, display/f v1); d removes the \
             selected one.",
            theme::dim(),
        );
        return (false, false);
    }
    let room = (area.width as usize).saturating_sub(1);
    let all = lines(app, &rows, room);
    let h = area.height as usize;
    // The selected entry in view: its head, or where the keys scrolled it to.
    let at = crate::app::EntryCursor {
        cursor: app.watch_selected().unwrap_or(0),
        ..app.watch.at
    };
    let top = super::entries::top(&all, at, h);
    hits.entry_lines[Pane::Watch.index()] = super::entries::heights(&all);
    let shown: Vec<Line> = all
        .iter()
        .skip(top)
        .take(h)
        .map(|(l, _)| l.clone())
        .collect();
    for (k, (_, i)) in all.iter().skip(top).take(h).enumerate() {
        hits.item(
            Pane::Watch,
            Rect::new(area.x, area.y + k as u16, area.width, 1),
            *i,
        );
    }
    super::put_lines(frame, area, &shown);
    (top > 0, top + h < all.len())
}

#[cfg(test)]
mod tests {
    use super::lanes_per_row;

    #[test]
    fn lane_rows_fit_the_room() {
        // Hex values, 10 columns each and 2 around: 8 a row in 110 columns, 4 in 60.
        assert_eq!(lanes_per_row(110, 10), 8);
        assert_eq!(lanes_per_row(60, 10), 4);
        assert_eq!(lanes_per_row(5, 10), 1);
        for room in 0..300 {
            for cw in 1..20 {
                let n = lanes_per_row(room, cw);
                assert!(n == 1 || LANE + n * (cw + 2) <= room);
            }
        }
    }

    const LANE: usize = super::LANE_LABEL;
}
