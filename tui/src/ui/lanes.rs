//! The lane grid: the chosen v registers of the selected wave across its 32 lanes, lanes
//! as rows (lane 0 at the top left, as in the EXEC bitmap, where it is leftmost) in one to
//! eight blocks side by side. Inactive lanes are dimmed and their numbers shown in
//! parentheses; values changed since the last stop are highlighted and marked `*`; the
//! lanes the last stop concerns are marked beside their number (`●` a breakpoint's, `◆` a
//! watchpoint's, `!` faulting lanes and a sanitizer finding's).
//!
//! Values show in the lane grid's number format (`f` cycles it: hex, unsigned, signed,
//! f32; the title names it), each column as wide as the format's widest value.
//!
//! No value is ever cut: the grid shows fewer registers (the title says which, ←/→ scroll
//! them) or fewer lanes per screen (the title says which, `▲`/`▼` on the border, and the
//! window follows the selected lane) rather than part of a number.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::Frame;

use wavedbg_emulator::debug::panes::{FormatTarget, NumberFormat};

use super::{text, theme};
use crate::app::App;
use crate::hits::HitMap;
use crate::number;
use crate::pane::Pane;

/// Width in cells of a lane label: `>● 12 `, or `>●(12)` when the lane is inactive.
pub const LABEL: usize = 6;
/// Width in cells of a value cell in format `f`: a space, the format's widest value, the
/// change mark (hex: ` 0000002a*`), so the grid never shows part of a value.
pub fn cell(f: NumberFormat) -> usize {
    number::width(f) + 2
}
const GAP: usize = 1;
const LANES: usize = 32;

/// How the grid fits a pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Plan {
    /// Blocks side by side.
    blocks: usize,
    /// Lane rows per block.
    rows: usize,
    /// The first lane shown.
    first: usize,
    /// Registers per block.
    regs: usize,
}

impl Plan {
    fn per_screen(&self) -> usize {
        self.blocks * self.rows
    }
}

/// Registers of `cell` columns that fit in one of `blocks` blocks across `room` columns.
fn regs_fitting(room: usize, blocks: usize, cell: usize) -> usize {
    let per_block = room.saturating_sub(GAP * (blocks - 1)) / blocks;
    per_block.saturating_sub(LABEL) / cell
}

/// The grid's shape for an area of `width` x `height` (the header takes a row; the last
/// column is kept free, as in every pane) with value cells `cell` wide, or `None` if not
/// even one lane with one register fits.
fn plan(width: usize, height: usize, selected: usize, cell: usize) -> Option<Plan> {
    let room = width.checked_sub(1)?;
    let rows_room = height.checked_sub(1).filter(|r| *r > 0)?;
    let options: Vec<(usize, usize, usize)> = [1, 2, 4, 8]
        .into_iter()
        .map(|b| (b, (LANES / b).min(rows_room), regs_fitting(room, b, cell)))
        .filter(|(_, _, regs)| *regs > 0)
        .collect();
    // Every lane if some shape shows them all (the fewest blocks: the most registers),
    // else the shape that shows the most lanes.
    let (blocks, rows, regs) = options
        .iter()
        .find(|(b, rows, _)| b * rows == LANES)
        .or_else(|| {
            options
                .iter()
                .max_by_key(|(b, rows, _)| (b * rows, usize::MAX - b))
        })
        .copied()?;
    let per_screen = blocks * rows;
    let first = (selected / per_screen * per_screen).min(LANES - per_screen);
    Some(Plan {
        blocks,
        rows,
        first,
        regs,
    })
}

/// The pane's title for the pane drawn with `inner` inside its borders: the wave, its
/// active lanes and the selected lane, and which registers and lanes show when not all
/// do; shorter forms when the long one does not fit (the lane window first: it says
/// which lanes are missing).
pub fn title(app: &App, inner: Rect) -> String {
    let m = app.engine.machine();
    let Some(w) = m.waves.get(app.engine.selected_wave) else {
        return " Lanes ".into();
    };
    let lane = app.engine.selected_lane;
    let active = w.exec.count_ones();
    let f = app.engine.panes().format(FormatTarget::Lanes);
    let tag = number::tag(f);
    let Some(p) = plan(
        inner.width as usize,
        inner.height as usize,
        lane as usize,
        cell(f),
    ) else {
        return format!(
            " Lanes {tag}: wave {}, {active}/32 active, lane {lane} ",
            w.id
        );
    };
    let n = app.lanes.regs.len();
    let shown = app.lanes.shown(p.regs);
    let first = app.lanes.start(p.regs) + 1;
    let last = first + shown.len() - 1;
    let lanes = (p.per_screen() < LANES).then(|| (p.first, p.first + p.per_screen() - 1));
    let regs = (shown.len() < n).then_some((first, last));
    let mut long = String::new();
    let mut medium = String::new();
    let mut short = String::new();
    if let Some((a, b)) = lanes {
        long.push_str(&format!(", lanes {a}-{b} (l/L)"));
        medium.push_str(&format!(", lanes {a}-{b} (l/L)"));
        short.push_str(&format!(" {a}-{b}"));
    }
    if let Some((a, b)) = regs {
        // The registers by name; their place in the list (`lanes v4 v9 v11`) after it.
        let place = if a == b {
            format!("{a}")
        } else {
            format!("{a}-{b}")
        };
        long.push_str(&format!(
            ", {} ({place} of {n}, ←/→)",
            register_names(shown, ", ")
        ));
        medium.push_str(&format!(
            ", {} ({place}/{n}) ←→",
            register_names(shown, ",")
        ));
        short.push_str(&format!(", {} {place}/{n}", register_names(shown, ",")));
    }
    // A maximised pane's title ends with `[z restores] `: the form chosen leaves it room.
    let zoom = if app.zoom { "[z restores] ".len() } else { 0 };
    let room = (inner.width as usize).saturating_sub(1 + zoom);
    [
        format!(
            " Lanes {tag}: wave {}, {active}/32 active, lane {lane}{long} ",
            w.id
        ),
        format!(" Lanes {tag}: wave {}, lane {lane}{medium} ", w.id),
        format!(" Lanes {tag}{short}: w{} l{lane} ", w.id),
    ]
    .into_iter()
    .find(|t| text::width(t) <= room)
    .unwrap_or_else(|| format!(" Lanes {tag}{short}: w{} l{lane} ", w.id))
}

/// What the grid lacks in a `width` x `height` area with value cells `cell` wide: only
/// the dimension that is short (short enough to show whole in the grid's minimum size),
/// longest form first ([`text::needs`]).
fn too_small(width: usize, height: usize, cell: usize) -> Vec<String> {
    text::needs("The lane grid", (LABEL + cell + 1, 2), (width, height))
}

/// The v registers `regs` by name, runs of consecutive ones as ranges, joined with
/// `sep`: `v9-v11`, `v4, v9, v11`.
fn register_names(regs: &[usize], sep: &str) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &r in regs {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == r => *end = r,
            _ => runs.push((r, r)),
        }
    }
    runs.iter()
        .map(|&(a, b)| match b - a {
            0 => format!("v{a}"),
            // Two in a row read better as a pair than as a range.
            1 => format!("v{a}{sep}v{b}"),
            _ => format!("v{a}-v{b}"),
        })
        .collect::<Vec<_>>()
        .join(sep)
}

/// Draws the pane; returns whether lanes are hidden above and below.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, hits: &mut HitMap) -> (bool, bool) {
    let m = app.engine.machine();
    let wi = app.engine.selected_wave;
    let Some(w) = m.waves.get(wi) else {
        text::put_wrapped(frame, area, "No wave.", theme::dim());
        return (false, false);
    };
    let (width, height) = (area.width as usize, area.height as usize);
    if height == 0 {
        return (false, false);
    }
    let sel = app.engine.selected_lane as usize;
    let f = app.engine.panes().format(FormatTarget::Lanes);
    let cell_w = cell(f);
    let value_w = number::width(f);
    let Some(p) = plan(width, height, sel, cell_w) else {
        text::put_needs(frame, area, &too_small(width, height, cell_w), theme::dim());
        return (false, false);
    };
    hits.lane_regs = p.regs;
    let regs = app.lanes.shown(p.regs);
    let base = app.baseline.waves.get(wi).filter(|b| b.id == w.id);
    let focused = app.focus == Pane::Lanes;
    let stop = app.stop_lanes();
    let block_w = LABEL + regs.len() * cell_w;
    let mut lines: Vec<Line> = Vec::with_capacity(height);
    // Header: register names over each block.
    let mut header = Vec::new();
    for b in 0..p.blocks {
        if b > 0 {
            header.push(Span::raw(" ".repeat(GAP)));
        }
        header.push(Span::styled(format!("{:<LABEL$}", "lane"), theme::header()));
        for r in regs {
            header.push(Span::styled(
                format!("{:>w$} ", format!("v{r}"), w = value_w + 1),
                theme::header(),
            ));
        }
    }
    lines.push(Line::from(header));
    for row in 0..p.rows {
        let mut spans = Vec::with_capacity(p.blocks * (regs.len() + 3));
        for b in 0..p.blocks {
            let lane = p.first + b * p.rows + row;
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
            let bit = |mask: u32| mask >> lane & 1 == 1;
            let (mark, mark_style) = if bit(stop.fault) || bit(stop.finding) {
                ("!", theme::finding())
            } else if bit(stop.watch) {
                ("◆", theme::watched())
            } else if bit(stop.breakpoint) {
                ("●", theme::breakpoint())
            } else {
                (" ", label_style)
            };
            spans.push(Span::styled(
                if lane == sel { ">" } else { " " },
                label_style,
            ));
            spans.push(Span::styled(mark, mark_style));
            spans.push(Span::styled(
                if active {
                    format!("{lane:>3} ")
                } else {
                    format!("({lane:>2})")
                },
                label_style,
            ));
            for &r in regs {
                let v = w.v[r][lane];
                let changed = base.is_some_and(|p| p.v[r][lane] != v);
                let mark = if changed { '*' } else { ' ' };
                let style = match (active, changed) {
                    (_, true) => theme::changed(),
                    (false, false) => theme::dim(),
                    (true, false) => ratatui::style::Style::new(),
                };
                spans.push(Span::styled(
                    format!(" {:>value_w$}{mark}", number::word(v, f)),
                    style,
                ));
            }
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
    (p.first > 0, p.first + p.per_screen() < LANES)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CELL: usize = 10;

    #[test]
    fn every_lane_shows_when_a_register_fits() {
        assert_eq!(cell(NumberFormat::Hex), CELL);
        // 32 rows: one block; 16: two; 8: four.
        let p = plan(60, 40, 0, CELL).expect("fits");
        assert_eq!((p.blocks, p.rows, p.first), (1, 32, 0));
        assert_eq!(p.regs, 5);
        let p = plan(80, 17, 0, CELL).expect("fits");
        assert_eq!((p.blocks, p.rows), (2, 16));
        assert_eq!(p.regs, 3);
        // 110x34's lane pane: 64 columns, 9 rows: four blocks of one register would need
        // 67 columns, so two blocks show 16 lanes a screen.
        let p = plan(64, 9, 0, CELL).expect("fits");
        assert_eq!((p.blocks, p.rows, p.regs), (2, 8, 2));
        let p = plan(64, 9, 20, CELL).expect("fits");
        assert_eq!(p.first, 16);
        let p = plan(64, 9, 31, CELL).expect("fits");
        assert_eq!(p.first, 16);
        // Too narrow for one register.
        assert_eq!(plan(16, 40, 0, CELL), None);
        assert!(plan(17, 40, 0, CELL).is_some());
        assert_eq!(plan(40, 1, 0, CELL), None);
    }

    #[test]
    fn registers_are_named() {
        assert_eq!(register_names(&[9, 11], ", "), "v9, v11");
        assert_eq!(register_names(&[0, 1], ","), "v0,v1");
        assert_eq!(register_names(&[4, 9, 10, 11], ", "), "v4, v9-v11");
        assert_eq!(register_names(&[7], ", "), "v7");
    }

    #[test]
    fn too_small_says_only_what_is_missing() {
        assert_eq!(
            too_small(54, 1, CELL)[0],
            "The lane grid needs 2 rows (it has 1); z maximises it."
        );
        assert_eq!(
            too_small(10, 5, CELL)[0],
            "The lane grid needs 17 columns (it has 10); z maximises it."
        );
        assert!(plan(16, 1, 0, CELL).is_none());
        assert!(too_small(16, 1, CELL)[0].contains("17 columns (it has 16) and 2 rows"));
    }

    #[test]
    fn no_shape_is_wider_than_the_room() {
        for f in NumberFormat::ALL {
            for w in 0..300 {
                for h in 0..60 {
                    if let Some(p) = plan(w, h, 31, cell(f)) {
                        let used = p.blocks * (LABEL + p.regs * cell(f)) + GAP * (p.blocks - 1);
                        assert!(used < w, "{w}x{h}: {p:?}");
                        assert!(p.rows < h && p.first + p.per_screen() <= LANES);
                        assert!((p.first..p.first + p.per_screen()).contains(&31));
                    }
                }
            }
        }
    }
}
