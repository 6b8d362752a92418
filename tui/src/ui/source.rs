//! The kernel's source (`v` shows it beside or instead of the disassembly, as gdb's
//! `layout split` and `layout src`): every line with its number, comments included, and
//! the code pane's marks: `=>` on the selected wave's line, `->` where other waves are,
//! `●`/`○` on a line with a breakpoint on any of its instructions, `!` and the side's
//! name on the lines of a sanitizer finding the run stopped at, and the cursor (kept on
//! the code cursor's line). Without a source, the pane says why.
//!
//! A kernel with a line table shows a higher-level file the same way (a line's marks
//! are those of its instructions), the one of the selected wave's line, or each
//! higher-level line followed by its instructions (interleaved: an instruction's row has
//! the code pane's marks; instructions of no line of the file follow the instruction
//! before them under a dimmed head saying where they come from, `util.h:4  ...` or
//! `<no line>`; labels have rows of their own, as in the disassembly).

use std::collections::{HashMap, HashSet};

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::Frame;

use super::code::{finding_marks, gutter};
use super::{text, theme, window};
use crate::app::high_level::{HighLevelView, Row};
use crate::app::{App, SourceMode};
use crate::hits::HitMap;
use crate::pane::Pane;
use wavedbg_emulator::asm::comment_start;

/// Draws the pane; returns whether lines are hidden above and below.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, hits: &mut HitMap) -> (bool, bool) {
    if area.height == 0 {
        return (false, false);
    }
    match app.source.high_level() {
        Some(high) => draw_high_level(frame, area, app, high, hits),
        None => draw_assembly(frame, area, app, hits),
    }
}

/// The title's name: the file shown (in a high-level mode the higher-level file of the
/// selected wave's line, even when its text is missing), and `+ asm` when interleaved.
pub fn title(app: &App) -> String {
    match (app.source.mode, app.source.shown_file(), &app.source.view) {
        (SourceMode::Assembly, _, Ok(s)) => format!(" Source: {} ", s.name),
        (SourceMode::Assembly, _, Err(_)) | (_, None, _) => " Source ".into(),
        (SourceMode::Interleaved, Some(f), _) => format!(" Source: {} + asm ", f.name),
        (SourceMode::HighLevel, Some(f), _) => format!(" Source: {} ", f.name),
    }
}

/// The marks of the rows of a view, for instructions mapped to rows by `row_of`: the
/// selected wave's row, other waves' rows, each row's breakpoints (enabled if any is)
/// and finding marks.
struct Marks {
    pc: Option<usize>,
    others: HashSet<usize>,
    bps: HashMap<usize, bool>,
    findings: HashMap<usize, Vec<String>>,
}

impl Marks {
    fn of(app: &App, row_of: impl Fn(u64) -> Option<usize>) -> Marks {
        let m = app.engine.machine();
        let others = m
            .waves
            .iter()
            .enumerate()
            .filter(|(wi, w)| *wi != app.engine.selected_wave && w.alive())
            .filter_map(|(_, w)| row_of(w.pc))
            .collect();
        let mut bps: HashMap<usize, bool> = HashMap::new();
        for b in app.engine.breakpoints() {
            for &a in &b.addrs {
                if let Some(l) = row_of(a) {
                    *bps.entry(l).or_insert(false) |= b.enabled;
                }
            }
        }
        let mut findings: HashMap<usize, Vec<String>> = HashMap::new();
        for (addr, mark) in finding_marks(app) {
            if let Some(l) = row_of(addr) {
                let v = findings.entry(l).or_default();
                if !v.contains(&mark) {
                    v.push(mark);
                }
            }
        }
        Marks {
            pc: app.selected_pc().and_then(&row_of),
            others,
            bps,
            findings,
        }
    }

    /// Row `i`'s gutter, its finding marks, and whether it is the selected wave's.
    fn row(&self, i: usize) -> (Vec<Span<'static>>, Option<&Vec<String>>, bool) {
        let mark = self.findings.get(&i);
        let at_pc = self.pc == Some(i);
        let gutter = gutter(
            at_pc,
            self.others.contains(&i),
            self.bps.get(&i).copied(),
            mark.is_some(),
        );
        (gutter.to_vec(), mark, at_pc)
    }
}

/// A row's line: its spans, then its finding marks, in the cursor's style when it is on
/// the focused pane's cursor.
fn finish_row(
    mut spans: Vec<Span<'static>>,
    mark: Option<&Vec<String>>,
    cursor: bool,
) -> Line<'static> {
    if let Some(mark) = mark {
        spans.push(Span::styled(
            format!("  ! {}", mark.join(", ")),
            theme::error(),
        ));
    }
    let line = Line::from(spans);
    if cursor {
        line.patch_style(theme::cursor())
    } else {
        line
    }
}

/// The higher-level file, or (interleaved) its lines each followed by its instructions.
fn draw_high_level(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    high: &HighLevelView,
    hits: &mut HitMap,
) -> (bool, bool) {
    let interleaved = app.source.mode == SourceMode::Interleaved;
    let n = app.source.len();
    if n == 0 {
        text::put_wrapped(
            frame,
            area,
            &format!("{} is empty.", high.name),
            theme::dim(),
        );
        return (false, false);
    }
    let code = &app.code;
    let line_marks = Marks::of(app, |addr| high.line_of(code, addr));
    // Interleaved, an instruction's row has the marks of its own address.
    let instr_marks = interleaved.then(|| {
        Marks::of(app, |addr| {
            code.index_of(addr).and_then(|ci| high.row_of_instr(ci))
        })
    });
    let digits = high.lines.len().to_string().len().max(3);
    let focused = app.focus == Pane::Source;
    let pattern = app.search.pattern.as_deref();
    let h = area.height as usize;
    let start = window(app.source.cursor.min(n - 1), h, n);
    let end = (start + h).min(n);
    let mut lines = Vec::with_capacity(end - start);
    for (y, i) in (start..end).enumerate() {
        let row = if interleaved {
            high.rows[i]
        } else {
            Row::Line(i)
        };
        let (mut spans, mark, at_pc) = match (row, &instr_marks) {
            (Row::Line(l), _) => line_marks.row(l),
            (Row::Instr(_), Some(marks)) => marks.row(i),
            _ => (gutter(false, false, None, false).to_vec(), None, false),
        };
        let style = if at_pc { theme::pc() } else { Style::new() };
        match row {
            Row::Line(l) => {
                spans.push(Span::styled(format!(" {:>digits$}  ", l + 1), theme::dim()));
                spans.extend(text::highlight(&high.lines[l], style, pattern).spans);
            }
            Row::Instr(ci) => {
                let c = &code.lines[ci];
                spans.push(Span::styled(
                    format!(" {:>digits$}    {:04x}  ", "", c.addr),
                    theme::dim(),
                ));
                spans.extend(text::highlight(&c.text, style, pattern).spans);
            }
            Row::Label(ci, k) => {
                spans.push(Span::raw(format!(" {:>digits$}    ", "")));
                let label = format!("{}:", code.lines[ci].labels[k]);
                spans.extend(text::highlight(&label, theme::label(), pattern).spans);
            }
            Row::From(place) => {
                spans.push(Span::raw(format!(" {:>digits$}  ", "")));
                let head = app.source.from_text(place);
                spans.extend(text::highlight(&head, theme::dim(), pattern).spans);
            }
        }
        let row = Rect::new(area.x, area.y + y as u16, area.width, 1);
        lines.push(finish_row(spans, mark, i == app.source.cursor && focused));
        hits.item(Pane::Source, row, i);
    }
    super::put_lines(frame, area, &lines);
    (start > 0, end < n)
}

/// The kernel's `.s` file (or, in a high-level mode, why the higher-level text is
/// missing).
fn draw_assembly(frame: &mut Frame, area: Rect, app: &App, hits: &mut HitMap) -> (bool, bool) {
    let h = area.height as usize;
    if let Some(why) = app.source.missing() {
        text::put_wrapped(frame, area, why, theme::dim());
        return (false, false);
    }
    let src = match &app.source.view {
        Ok(s) => s,
        Err(why) => {
            text::put_wrapped(frame, area, why, theme::dim());
            return (false, false);
        }
    };
    let m = app.engine.machine();
    let marks = Marks::of(app, |addr| src.line_of(m, addr));
    let n = src.lines.len();
    if n == 0 {
        text::put_wrapped(
            frame,
            area,
            &format!("{} is empty.", src.name),
            theme::dim(),
        );
        return (false, false);
    }
    let digits = n.to_string().len().max(3);
    let focused = app.focus == Pane::Source;
    let start = window(app.source.cursor.min(n - 1), h, n);
    let end = (start + h).min(n);
    let mut lines = Vec::with_capacity(end - start);
    for (y, i) in (start..end).enumerate() {
        let text = &src.lines[i];
        let (mut spans, mark, at_pc) = marks.row(i);
        spans.push(Span::styled(format!(" {:>digits$}  ", i + 1), theme::dim()));
        let code_style = if at_pc { theme::pc() } else { Style::new() };
        let pattern = app.search.pattern.as_deref();
        let found = pattern.is_some_and(|p| !crate::app::search::matches(text, p).is_empty());
        match comment_start(text) {
            // A line with a match shows it (the comment then in the code's colour).
            _ if found => spans.extend(text::highlight(text, code_style, pattern).spans),
            Some(c) => {
                spans.push(Span::styled(text[..c].to_string(), code_style));
                spans.push(Span::styled(text[c..].to_string(), theme::comment()));
            }
            None => spans.push(Span::styled(text.clone(), code_style)),
        }
        let row = Rect::new(area.x, area.y + y as u16, area.width, 1);
        lines.push(finish_row(spans, mark, i == app.source.cursor && focused));
        hits.item(Pane::Source, row, i);
    }
    super::put_lines(frame, area, &lines);
    (start > 0, end < n)
}
