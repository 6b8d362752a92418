//! The selected wave's PC, EXEC (hex and a 32-lane bitmap, lane 0 on the left with a lane
//! number every 8 lanes, the order of the lane grid), counters, a sparkline of its active
//! lanes over its last instructions, and u registers; values changed since the last stop
//! are highlighted and marked `*`. The u registers show in the pane's number format (`f`
//! cycles it; the title names it); PC and EXEC stay hex.

use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Sparkline;
use ratatui::Frame;
use wavedbg_emulator::debug::panes::FormatTarget;
use wavedbg_emulator::debug::view;
use wavedbg_emulator::isa::Counter;
use wavedbg_emulator::machine::wave::Wave;

use super::{text, theme};
use crate::app::App;
use crate::hits::HitMap;
use crate::number;

/// Width of one u register cell besides its value (`u12 ` before, `*  ` after).
const CELL_EXTRA: usize = 7;

/// The pane's title: its name and number format (`Registers [f32]`).
pub fn title(app: &App) -> String {
    format!(
        " Registers {} ",
        number::tag(app.engine.panes().format(FormatTarget::Registers))
    )
}

/// Before the bitmap when it has rows of its own.
const LANES_LABEL: &str = "lanes ";

fn mark(changed: bool) -> Span<'static> {
    if changed {
        Span::styled("*", theme::changed())
    } else {
        Span::raw(" ")
    }
}

fn val(changed: bool) -> Style {
    if changed {
        theme::changed()
    } else {
        Style::new()
    }
}

/// How a row of the EXEC bitmap is written: its group numbers right-aligned to `pad`
/// columns (rows under each other line up with 2), and whether the last lane's number ends
/// it.
#[derive(Debug, Clone, Copy)]
struct BitmapForm {
    pad: usize,
    end: bool,
}

/// The EXEC bitmap of lanes `lanes`: one cell per lane, left to right, each group of 8
/// after its first lane's number, and the last lane's number at the end if `form` says so
/// (`0 ■■■■■■■■ 8 ■■■■■■■■ 15`).
fn bitmap(
    w: &Wave,
    prev: Option<&Wave>,
    selected: u8,
    lanes: std::ops::Range<u32>,
    form: BitmapForm,
) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    let pad = form.pad;
    for lane in lanes.clone() {
        if lane % 8 == 0 {
            out.push(Span::styled(format!("{lane:>pad$} "), theme::dim()));
        }
        let on = w.exec >> lane & 1 == 1;
        let flipped = prev.is_some_and(|p| (p.exec ^ w.exec) >> lane & 1 == 1);
        let mut style = if flipped {
            theme::changed()
        } else if on {
            theme::pc()
        } else {
            theme::dim()
        };
        if lane == u32::from(selected) {
            style = style.add_modifier(Modifier::UNDERLINED);
        }
        out.push(Span::styled(if on { "■" } else { "·" }, style));
        if lane % 8 == 7 {
            out.push(Span::raw(" "));
        }
    }
    if form.end {
        out.push(Span::styled(
            format!("{}", lanes.end.saturating_sub(1)),
            theme::dim(),
        ));
    }
    out
}

fn spans_width(spans: &[Span]) -> usize {
    spans.iter().map(|s| s.width()).sum()
}

/// Draws the pane; returns whether u registers are hidden above and below.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, hits: &mut HitMap) -> (bool, bool) {
    let m = app.engine.machine();
    let wi = app.engine.selected_wave;
    let Some(w) = m.waves.get(wi) else {
        text::put_wrapped(frame, area, "No wave.", theme::dim());
        return (false, false);
    };
    if area.width == 0 || area.height == 0 {
        return (false, false);
    }
    let room = area.width as usize - 1;
    let prev = app.baseline.waves.get(wi).filter(|p| p.id == w.id);
    let pc_changed = prev.is_some_and(|p| p.pc != w.pc);
    let exec_changed = prev.is_some_and(|p| p.exec != w.exec);
    let mut lines = vec![Line::from(vec![
        Span::styled(
            format!("wave {} (wg {}, index {}) ", w.id, w.workgroup, w.index),
            theme::header(),
        ),
        Span::raw(format!("{:<10} ", w.state.name())),
        Span::raw("pc "),
        Span::styled(view::pc_text(m, w.pc), val(pc_changed)),
        mark(pc_changed),
    ])];
    // EXEC: hex and count, then the bitmap on the same row if it fits, else on rows of
    // its own, 32, 16 or 8 lanes a row.
    let mut exec = vec![
        Span::raw("exec "),
        Span::styled(format!("{:#010x}", w.exec), val(exec_changed)),
        mark(exec_changed),
        Span::raw(format!(" {:>2}/32 active", w.exec.count_ones())),
    ];
    let sel = app.engine.selected_lane;
    let whole = bitmap(w, prev, sel, 0..32, BitmapForm { pad: 0, end: true });
    let label_w = LANES_LABEL.len();
    if spans_width(&exec) + 2 + label_w + spans_width(&whole) <= room {
        exec.push(Span::raw("  "));
        exec.push(Span::styled(LANES_LABEL, theme::dim()));
        exec.extend(whole);
        lines.push(Line::from(exec));
    } else {
        lines.push(Line::from(exec));
        // Rows under each other, their group numbers right-aligned so that the lanes line
        // up: the most lanes a row that fit with the `lanes` label and the last lane's
        // number, else without that number, else without the label too.
        let shapes = [(true, true), (true, false), (false, false)];
        let (per_row, labelled, form) = shapes
            .into_iter()
            .find_map(|(labelled, end)| {
                let form = BitmapForm { pad: 2, end };
                let label = if labelled { label_w } else { 0 };
                [32u32, 16, 8]
                    .into_iter()
                    .find(|n| label + spans_width(&bitmap(w, prev, sel, 32 - n..32, form)) <= room)
                    .map(|n| (n, labelled, form))
            })
            .unwrap_or((8, false, BitmapForm { pad: 2, end: false }));
        // One row has nothing to line up with.
        let form = BitmapForm {
            pad: if per_row == 32 { 0 } else { form.pad },
            ..form
        };
        for start in (0..32).step_by(per_row as usize) {
            let mut row = Vec::new();
            if labelled {
                let label = if start == 0 { LANES_LABEL } else { "      " };
                row.push(Span::styled(label, theme::dim()));
            }
            row.extend(bitmap(w, prev, sel, start..start + per_row, form));
            lines.push(Line::from(row));
        }
    }
    let counters: Vec<String> = Counter::ALL
        .iter()
        .map(|c| format!("{}={}", c.name(), w.counter(*c)))
        .collect();
    lines.push(Line::from(vec![
        Span::raw(format!("counters {}", counters.join(" "))),
        Span::styled(
            format!(
                "   scheduler-locking {}",
                if app.engine.scheduler_locking {
                    "on"
                } else {
                    "off"
                }
            ),
            theme::dim(),
        ),
    ]));
    // The active-lane sparkline: the text now, the bars drawn over the gap after.
    let spark_row = lines.len();
    let samples = app.activity.of(w.id);
    let label = "active ";
    let now = w.exec.count_ones();
    let note = match (samples.first(), samples.last()) {
        (Some(a), Some(b)) if samples.len() > 1 => format!(
            " {now}/32 now; {}-{} over its instr {}-{}, {} samples",
            samples.iter().map(|s| s.active).min().unwrap_or(0),
            samples.iter().map(|s| s.active).max().unwrap_or(0),
            a.executed,
            b.executed,
            samples.len()
        ),
        _ => format!(" {now}/32 now (each stop adds a sample)"),
    };
    // Up to 48 bars (at least 8 columns while there are fewer samples).
    let bars = room
        .saturating_sub(label.len() + 12)
        .min(48)
        .min(samples.len().max(8));
    let spark_shown = bars >= 4 && spark_row < area.height as usize;
    if spark_shown {
        lines.push(Line::from(vec![
            Span::styled(label, theme::dim()),
            Span::raw(" ".repeat(bars)),
            Span::styled(note, theme::dim()),
        ]));
    }
    let f = app.engine.panes().format(FormatTarget::Registers);
    let value_w = number::width(f);
    // The last cell's two trailing spaces may fall past the room.
    let cols = ((room + 2) / (value_w + CELL_EXTRA)).max(1);
    let rows_total = w.u.len().div_ceil(cols);
    let room_rows = (area.height as usize).saturating_sub(lines.len());
    hits.registers_scroll_max = rows_total.saturating_sub(room_rows);
    let scroll = app.registers.scroll.min(hits.registers_scroll_max);
    let first_u_row = lines.len();
    for row in scroll..rows_total {
        if lines.len() >= area.height as usize {
            break;
        }
        let mut spans = Vec::new();
        for r in row * cols..((row + 1) * cols).min(w.u.len()) {
            let changed = prev.is_some_and(|p| p.u[r] != w.u[r]);
            spans.push(Span::styled(format!("u{r:<2} "), theme::dim()));
            spans.push(Span::styled(
                format!("{:>value_w$}", number::word(w.u[r], f)),
                val(changed),
            ));
            spans.push(mark(changed));
            spans.push(Span::raw("  "));
        }
        lines.push(Line::from(spans));
    }
    let shown_rows = lines.len() - first_u_row;
    super::put_lines(frame, area, &lines);
    if spark_shown {
        let data: Vec<u64> = samples[samples.len().saturating_sub(bars)..]
            .iter()
            .map(|s| u64::from(s.active))
            .collect();
        let rect = Rect::new(
            area.x + label.len() as u16,
            area.y + spark_row as u16,
            data.len() as u16,
            1,
        );
        frame.render_widget(
            Sparkline::default()
                .data(&data)
                .max(32)
                .style(theme::sparkline()),
            rect,
        );
    }
    (scroll > 0, scroll + shown_rows < rows_total)
}
