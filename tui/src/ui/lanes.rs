//! The lane grid: the chosen v registers of the selected wave across its 32 lanes, lanes
//! as rows in one to eight blocks side by side. Inactive lanes are dimmed and their
//! numbers shown in parentheses; values changed since the last stop are highlighted and marked `*`.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::theme;
use crate::app::App;
use crate::hits::HitMap;
use crate::pane::Pane;

/// Width of a lane label (`> 12 `, `>(12)` when inactive) and of a value cell
/// (` 0000002a*`).
const LABEL: usize = 5;
const CELL: usize = 10;
const GAP: usize = 2;

/// Draws the pane.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, hits: &mut HitMap) {
    let m = app.engine.machine();
    let wi = app.engine.selected_wave;
    let Some(w) = m.waves.get(wi) else {
        frame.render_widget(Paragraph::new("no wave"), area);
        return;
    };
    let (width, height) = (area.width as usize, area.height as usize);
    if height < 2 {
        return;
    }
    let rows = height - 1;
    let blocks = match rows {
        r if r >= 32 => 1,
        r if r >= 16 => 2,
        r if r >= 8 => 4,
        _ => 8,
    };
    let per_block = 32 / blocks;
    let block_w = (width.saturating_sub(GAP * (blocks - 1))) / blocks;
    let nregs = (block_w.saturating_sub(LABEL) / CELL).max(1);
    hits.lane_regs = nregs;
    let regs = app.shown_regs(nregs);
    let base = app.baseline.waves.get(wi).filter(|b| b.id == w.id);
    let sel = app.engine.selected_lane as usize;
    let focused = app.focus == Pane::Lanes;
    let mut lines: Vec<Line> = Vec::with_capacity(height);
    // Header: register names over each block.
    let mut header = Vec::new();
    for b in 0..blocks {
        if b > 0 {
            header.push(Span::raw(" ".repeat(GAP)));
        }
        header.push(Span::styled(format!("{:<LABEL$}", "lane"), theme::header()));
        for r in regs {
            header.push(Span::styled(
                format!("{:>9} ", format!("v{r}")),
                theme::header(),
            ));
        }
        let used = LABEL + regs.len() * CELL;
        header.push(Span::raw(" ".repeat(block_w.saturating_sub(used))));
    }
    lines.push(Line::from(header));
    for row in 0..per_block.min(rows) {
        let mut spans = Vec::with_capacity(blocks * (regs.len() + 2));
        for b in 0..blocks {
            let lane = b * per_block + row;
            if b > 0 {
                spans.push(Span::raw(" ".repeat(GAP)));
            }
            let active = w.exec >> lane & 1 == 1;
            let mut label_style = if active {
                theme::header()
            } else {
                theme::dim()
            };
            if lane == sel {
                label_style = if focused {
                    theme::cursor()
                } else {
                    theme::selected()
                };
            }
            let marker = if lane == sel { '>' } else { ' ' };
            let label = if active {
                format!("{marker} {lane:>2} ")
            } else {
                format!("{marker}({lane:>2})")
            };
            spans.push(Span::styled(label, label_style));
            for &r in regs {
                let v = w.v[r][lane];
                let changed = base.is_some_and(|p| p.v[r][lane] != v);
                let mark = if changed { '*' } else { ' ' };
                let text = format!(" {v:08x}{mark}");
                let style = match (active, changed) {
                    (_, true) => theme::changed(),
                    (false, false) => theme::dim(),
                    (true, false) => ratatui::style::Style::new(),
                };
                spans.push(Span::styled(text, style));
            }
            let used = LABEL + regs.len() * CELL;
            spans.push(Span::raw(" ".repeat(block_w.saturating_sub(used))));
            let x = area.x as usize + b * (block_w + GAP);
            hits.item(
                Pane::Lanes,
                Rect::new(x as u16, area.y + 1 + row as u16, block_w as u16, 1),
                lane,
            );
        }
        lines.push(Line::from(spans));
    }
    super::put_lines(frame, area, &lines);
}
