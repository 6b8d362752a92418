//! Breakpoints and watchpoints: number, enabled (`●`/`○`), kind, where, hits, condition;
//! then the sanitizer's findings (`#N !`, what, where; the side a `finding N` is at).

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::Frame;
use wavedbg_emulator::debug::breakpoint::{self, Scope, WatchKind};
use wavedbg_emulator::debug::{view, Reached, StopReason};

use super::{text, theme, window};
use crate::app::App;
use crate::hits::HitMap;
use crate::pane::Pane;

/// Draws the pane; returns whether entries are hidden above and below.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, hits: &mut HitMap) -> (bool, bool) {
    let e = &app.engine;
    let m = e.machine();
    let mut rows: Vec<Line> = Vec::new();
    for b in e.breakpoints() {
        // The filters, hits and condition, as `info breakpoints` shows them.
        let mut extra = b.filters.text().replacen(", ", "  ", 1);
        if b.hits > 0 {
            extra.push_str(&format!("  hits {}", b.hits));
        }
        if let Some(c) = &b.condition {
            extra.push_str(&format!("  if {}", c.text));
        }
        if b.temporary {
            extra.push_str("  (temporary)");
        }
        rows.push(Line::from(vec![
            Span::raw(format!("{:>3} ", b.id)),
            if b.enabled {
                Span::styled("●", theme::breakpoint())
            } else {
                Span::styled("○", theme::dim())
            },
            // Where: the first address and, for several locations, every address (the
            // Code and Source panes mark the lines), as the confirmation lists them.
            Span::raw(format!(
                " break  {}{}",
                view::pc_text(m, b.addr()),
                breakpoint::locations_text(&b.addrs)
            )),
            Span::styled(extra, theme::dim()),
        ]));
    }
    for w in e.watchpoints() {
        let kind = match w.kind {
            WatchKind::Write => "watch ",
            WatchKind::Read => "rwatch",
            WatchKind::Access => "awatch",
        };
        let scope = match w.scope {
            Scope::Global => String::new(),
            Scope::Shared(None) => " every workgroup".into(),
            Scope::Shared(Some(g)) => format!(" workgroup {g}"),
            Scope::Scratch { wave, lane } => format!(" wave {wave} lane {lane}"),
        };
        let mut extra = String::new();
        if w.hits > 0 {
            extra.push_str(&format!("  hits {}", w.hits));
        }
        if let Some(c) = &w.condition {
            extra.push_str(&format!("  if {}", c.text));
        }
        rows.push(Line::from(vec![
            Span::raw(format!("{:>3} ", w.id)),
            if w.enabled {
                Span::styled("◆", theme::watched())
            } else {
                Span::styled("◇", theme::dim())
            },
            Span::raw(format!(
                " {kind} {}:{:#x} ({} byte{}){scope}",
                w.scope.space().name(),
                w.addr,
                w.len,
                if w.len == 1 { "" } else { "s" }
            )),
            Span::styled(extra, theme::dim()),
        ]));
    }
    // The findings where `info findings` numbers them (at the end of the recorded history).
    let visiting = match e.last_stop().map(|s| &s.reason) {
        Some(StopReason::Reached(Reached::Finding { number, side, .. })) => Some((*number, *side)),
        _ => None,
    };
    for (i, f) in e.recorded_findings().iter().enumerate() {
        let number = i as u64 + 1;
        // The side the machine is at goes first, where a narrow pane still shows it.
        let at = match visiting {
            Some((n, side)) if n == number => format!(" [{} side]", side.role(f)),
            _ => String::new(),
        };
        rows.push(Line::from(vec![
            Span::raw(format!("{:>3} ", format!("#{number}"))),
            Span::styled("!", theme::finding()),
            Span::styled(at, theme::finding()),
            Span::raw(format!(" {}  {}", f.kind.name(), view::pc_text(m, f.at.pc))),
            Span::styled(format!("  wave {}", f.at.wave), theme::dim()),
        ]));
    }
    if rows.is_empty() {
        let hint = "None. F9/b sets a breakpoint on the code cursor; t in Memory watches a word; or :break, :watch.";
        text::put_wrapped(frame, area, hint, theme::dim());
        return (false, false);
    }
    let total = rows.len();
    let h = area.height as usize;
    let start = window(app.breakpoints.cursor, h, rows.len());
    let focused = app.focus == Pane::Breakpoints;
    let shown: Vec<Line> = rows
        .into_iter()
        .enumerate()
        .skip(start)
        .take(h)
        .map(|(i, line)| {
            hits.item(
                Pane::Breakpoints,
                Rect::new(area.x, area.y + (i - start) as u16, area.width, 1),
                i,
            );
            if i == app.breakpoints.cursor && focused {
                line.patch_style(theme::cursor())
            } else {
                line
            }
        })
        .collect();
    super::put_lines(frame, area, &shown);
    (start > 0, start + h < total)
}
