//! The Locals pane: the source variables (`.var`) live at the selected wave's PC, in
//! declaration order, as `info locals` lists them. A uniform or memory variable shows its
//! value on its row (`a = 2  (f32 in u4)`); a per-lane one (a vector register or pair,
//! scratch) its name, type and place, then its 32 lanes under it, as many a row as fit
//! (`[ 8]` heads each row), an inactive lane in parentheses and dimmed, as `print NAME`
//! and the lane grid mark it. Values changed since the last stop are highlighted and
//! marked `*`, per lane for a per-lane variable, as the Registers pane marks registers.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::Frame;
use wavedbg_emulator::debug::Local;

use super::watch::lanes_per_row;
use super::{text, theme};
use crate::app::App;
use crate::hits::HitMap;
use crate::pane::Pane;

/// The pane's title: its name and the number of variables live.
pub fn title(app: &App) -> String {
    match app.engine.locals().len() {
        0 => " Locals ".into(),
        n => format!(" Locals ({n}) "),
    }
}

/// A value as shown: its text, or `?` where it cannot be read.
fn value_text(v: &Result<String, String>) -> &str {
    v.as_deref().unwrap_or("?")
}

/// The pane's lines for `room` columns, each with the index of the variable it belongs to.
fn lines(app: &App, locals: &[Local], room: usize) -> Vec<(Line<'static>, usize)> {
    let selected = app.locals_selected(locals.len());
    let focused = app.focus == Pane::Locals;
    let exec = app
        .engine
        .machine()
        .waves
        .get(app.engine.selected_wave)
        .map_or(0, |w| w.exec);
    let changed = app.locals_changed(locals);
    let mut out = Vec::new();
    for (i, v) in locals.iter().enumerate() {
        let changed = changed.get(i).copied().unwrap_or(0);
        let name_style = match (selected == Some(i), focused) {
            (true, true) => theme::cursor(),
            (true, false) => theme::selected(),
            _ => theme::header(),
        };
        let place = Span::styled(format!("  ({} in {})", v.ty, v.location), theme::dim());
        if let [one] = v.values.as_slice() {
            let ch = changed & 1 == 1;
            let value = match one {
                Ok(t) if ch => Span::styled(format!("{t}*"), theme::changed()),
                Ok(t) => Span::raw(t.clone()),
                Err(e) => Span::styled(format!("<unreadable: {e}>"), theme::error()),
            };
            out.push((
                Line::from(vec![
                    Span::styled(v.name.clone(), name_style),
                    Span::raw(" = "),
                    value,
                    place,
                ]),
                i,
            ));
            continue;
        }
        out.push((
            Line::from(vec![Span::styled(v.name.clone(), name_style), place]),
            i,
        ));
        let cw = v
            .values
            .iter()
            .map(|t| text::width(value_text(t)))
            .max()
            .unwrap_or(1);
        // An inactive lane's parentheses take one more column than a value's spaces.
        let per_row = lanes_per_row(room, cw + 1);
        for first in (0..v.values.len()).step_by(per_row) {
            let mut spans = vec![Span::styled(format!("  [{first:>2}]"), theme::dim())];
            for (l, t) in v.values.iter().enumerate().skip(first).take(per_row) {
                let t = value_text(t);
                // A changed lane is marked `*` in the cell's last column (an inactive one
                // gives its parentheses' leading space for it).
                spans.push(match (exec >> l & 1 == 1, changed >> l & 1 == 1) {
                    (true, false) => Span::raw(format!("  {t:>cw$} ")),
                    (true, true) => Span::styled(format!("  {t:>cw$}*"), theme::changed()),
                    (false, false) => Span::styled(format!(" ({t:>cw$})"), theme::dim()),
                    (false, true) => Span::styled(format!("({t:>cw$})*"), theme::changed()),
                });
            }
            out.push((Line::from(spans), i));
        }
    }
    out
}

/// The rows the pane wants inside its borders at `width` columns (outside them: the
/// borders' 2): every variable's lines, or the one line saying there are none.
pub fn height(app: &App, width: u16) -> u16 {
    let room = (width as usize).saturating_sub(3);
    let n = lines(app, &app.engine.locals(), room).len().max(1);
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// Draws the pane; returns whether lines are hidden above and below.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, hits: &mut HitMap) -> (bool, bool) {
    let locals = app.engine.locals();
    if locals.is_empty() {
        let why = if app.engine.machine().program().source_info.vars.is_empty() {
            "No variables: the kernel declares none (.var)."
        } else {
            "No variables are live at the selected wave's PC."
        };
        text::put_wrapped(frame, area, why, theme::dim());
        return (false, false);
    }
    let room = (area.width as usize).saturating_sub(1);
    let all = lines(app, &locals, room);
    let h = area.height as usize;
    // The selected entry in view: its head, or where the keys scrolled it to.
    let at = crate::app::EntryCursor {
        cursor: app.locals_selected(locals.len()).unwrap_or(0),
        ..app.locals.at
    };
    let top = super::entries::top(&all, at, h);
    hits.entry_lines[Pane::Locals.index()] = super::entries::heights(&all);
    let mut shown = Vec::with_capacity(h);
    for (k, (line, i)) in all.iter().skip(top).take(h).enumerate() {
        hits.item(
            Pane::Locals,
            Rect::new(area.x, area.y + k as u16, area.width, 1),
            *i,
        );
        shown.push(line.clone());
    }
    super::put_lines(frame, area, &shown);
    (top > 0, top + h < all.len())
}
