//! The kernel's source beside the disassembly: the text (from the engine, which read the
//! `.s` file it was opened from, or the built-in demo's embedded source), which source
//! line each instruction came from, and the source cursor, kept in step with the code
//! cursor. A kernel with a line table (`.loc`) also has its higher-level files
//! ([`HighLevelView`]): the pane shows the one of the selected wave's line, the `.s`, or
//! both interleaved (`V`).

use std::borrow::Cow;

use ratatui::crossterm::event::KeyCode;
use wavedbg_emulator::debug::{Engine, NoSource};
use wavedbg_emulator::machine::Machine;

use super::high_level::{HighLevelSource, HighLevelView, Row};
use super::input::Motion;
use super::state::App;
use crate::pane::{CodeLayout, Pane};

/// Columns between tab stops when a source line is shown.
const TAB: usize = 8;

/// The kernel's source, ready to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceView {
    /// The file's name as the kernel was opened (shown in the pane's title).
    pub name: String,
    /// Its lines (tabs expanded, control characters shown as `?`).
    pub lines: Vec<String>,
    /// For each line (index `line - 1`), the address of its first instruction.
    pub first_addr: Vec<Option<u64>>,
}

impl SourceView {
    /// The source of `engine`'s kernel, or why there is none.
    pub fn of(engine: &Engine) -> Result<SourceView, String> {
        // (The engine has the built-in demo's source too.)
        let (name, text) = match engine.source() {
            Some(s) => (s.name.to_string(), s.text.to_string()),
            None => return Err(no_source(engine)),
        };
        let lines: Vec<String> = text.lines().map(printable).collect();
        let mut first_addr = vec![None; lines.len()];
        for &(addr, line) in &engine.machine().program().lines {
            if let Some(slot) = (line as usize)
                .checked_sub(1)
                .and_then(|i| first_addr.get_mut(i))
            {
                if slot.is_none_or(|a| addr < a) {
                    *slot = Some(addr);
                }
            }
        }
        Ok(SourceView {
            name,
            lines,
            first_addr,
        })
    }

    /// The line index (0-based) of the instruction at `addr`.
    pub fn line_of(&self, m: &Machine, addr: u64) -> Option<usize> {
        let line = m.program().line_at(addr)? as usize;
        line.checked_sub(1).filter(|i| *i < self.lines.len())
    }
}

/// What the Source pane shows of a kernel with a line table (`V` cycles them); a kernel
/// without one always shows its `.s` ([`SourceMode::Assembly`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceMode {
    /// The higher-level file (the default with a line table).
    HighLevel,
    /// The kernel's `.s` file.
    Assembly,
    /// Each higher-level line followed by its instructions.
    Interleaved,
}

impl SourceMode {
    /// The mode `V` goes to: high-level, then assembly, then interleaved, then high-level.
    pub fn next(self) -> SourceMode {
        match self {
            SourceMode::HighLevel => SourceMode::Assembly,
            SourceMode::Assembly => SourceMode::Interleaved,
            SourceMode::Interleaved => SourceMode::HighLevel,
        }
    }

    /// Its name, as the `V` message and the help say it.
    pub fn name(self) -> &'static str {
        match self {
            SourceMode::HighLevel => "high-level",
            SourceMode::Assembly => "assembly",
            SourceMode::Interleaved => "interleaved",
        }
    }
}

/// The source pane's state: the text (or why there is none), what it shows, and a cursor
/// kept on the code cursor's line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourcePane {
    /// The kernel's source, or why there is none (the pane shows that text).
    pub view: Result<SourceView, String>,
    /// The higher-level files of the line table, in `.file` order (empty without one).
    pub files: Vec<HighLevelSource>,
    /// The file the high-level modes show, an index into `files`: the one of the selected
    /// wave's line, kept while its PC has no line ([`SourcePane::show_file`]).
    pub file: usize,
    /// What the pane shows.
    pub mode: SourceMode,
    /// The cursor: a 0-based row index into what the mode shows (a line of the `.s` or
    /// higher-level file, a row of the interleaved view).
    pub cursor: usize,
}

impl SourcePane {
    /// The source of `engine`'s kernel whose disassembly is `code`: the higher-level file
    /// (of the selected wave's line) when it has a line table with readable text, else
    /// the `.s`.
    pub fn of(engine: &Engine, code: &super::code::CodePane) -> SourcePane {
        let files: Vec<HighLevelSource> = engine
            .high_level_files()
            .into_iter()
            .map(|f| HighLevelSource::of(engine, code, f))
            .collect();
        let first = engine.high_level_file().map(|f| f.number);
        let file = files
            .iter()
            .position(|f| Some(f.number) == first)
            .unwrap_or(0);
        let mode = match files.get(file).map(|f| &f.view) {
            Some(Ok(_)) => SourceMode::HighLevel,
            _ => SourceMode::Assembly,
        };
        SourcePane {
            view: SourceView::of(engine),
            files,
            file,
            mode,
            cursor: 0,
        }
    }

    /// Whether the kernel has a line table (higher-level files to show).
    pub fn has_line_table(&self) -> bool {
        !self.files.is_empty()
    }

    /// The higher-level file the high-level modes show; `None` without a line table.
    pub fn shown_file(&self) -> Option<&HighLevelSource> {
        self.files.get(self.file)
    }

    /// Shows higher-level file `number`, the cursor at the top when it is another (nothing
    /// changes when the line table has no such file).
    pub fn show_file(&mut self, number: u32) {
        if let Some(i) = self.files.iter().position(|f| f.number == number) {
            if i != self.file {
                self.file = i;
                self.cursor = 0;
            }
        }
    }

    /// The higher-level view when the mode shows it.
    pub fn high_level(&self) -> Option<&HighLevelView> {
        match self.mode {
            SourceMode::Assembly => None,
            _ => self.shown_file().and_then(|f| f.view.as_ref().ok()),
        }
    }

    /// Why the mode has nothing to show, if so.
    pub fn missing(&self) -> Option<&str> {
        match (self.mode, self.shown_file().map(|f| &f.view)) {
            (SourceMode::Assembly, _) => self.view.as_ref().err().map(String::as_str),
            (_, Some(Err(e))) => Some(e),
            _ => None,
        }
    }

    /// An interleaved head's text: where its instructions come from, `FILE:LINE` and the
    /// line's text when the file's text has it, or `<no line>`.
    pub fn from_text(&self, place: Option<(u32, u32)>) -> String {
        let Some((number, line)) = place else {
            return "<no line>".into();
        };
        let Some(f) = self.files.iter().find(|f| f.number == number) else {
            return format!("file {number}:{line}");
        };
        let text = f.view.as_ref().ok().and_then(|v| {
            v.lines
                .get((line as usize).checked_sub(1)?)
                .map(|t| t.trim())
        });
        match text {
            Some(t) if !t.is_empty() => format!("{}:{line}  {t}", f.name),
            _ => format!("{}:{line}", f.name),
        }
    }

    /// The number of rows the mode shows (0 without a source).
    pub fn len(&self) -> usize {
        match self.mode {
            SourceMode::Assembly => self.view.as_ref().map_or(0, |s| s.lines.len()),
            SourceMode::HighLevel => self.high_level().map_or(0, |h| h.lines.len()),
            SourceMode::Interleaved => self.high_level().map_or(0, |h| h.rows.len()),
        }
    }

    /// The higher-level line (0-based) the cursor is on: in the high-level mode its line,
    /// in the interleaved one when it is on a line's row (not an instruction's, a label's
    /// or a head's).
    pub fn high_level_line(&self) -> Option<usize> {
        let h = self.high_level()?;
        match self.mode {
            SourceMode::Interleaved => match h.rows.get(self.cursor)? {
                Row::Line(l) => Some(*l),
                _ => None,
            },
            _ => (self.cursor < h.lines.len()).then_some(self.cursor),
        }
    }

    /// Whether there is no source line to move in.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first instruction of line `index` (0-based) of the `.s`.
    pub fn line_addr(&self, index: usize) -> Option<u64> {
        self.view
            .as_ref()
            .ok()
            .and_then(|s| s.first_addr.get(index).copied().flatten())
    }
}

/// Why a kernel has no source to show ([`Engine::no_source`]), in the pane's words.
fn no_source(engine: &Engine) -> String {
    match engine.no_source() {
        Some(NoSource::Object(p)) => format!(
            "No source: {p} is an assembled object (.wko), which keeps line numbers but not the text. Open the .s file to see the source; v switches to the disassembly."
        ),
        Some(NoSource::Unreadable(p)) => format!(
            "No source: {p} could not be read. v switches to the disassembly."
        ),
        Some(NoSource::NotFromFile) | None => {
            "No source: the kernel was not opened from a file. v switches to the disassembly."
                .to_string()
        }
    }
}

/// Lines as texts to search.
fn borrowed(lines: &[String]) -> Vec<Cow<'_, str>> {
    lines.iter().map(|l| Cow::Borrowed(l.as_str())).collect()
}

/// Expands tabs to [`TAB`]-column stops and replaces other control characters, so each
/// char takes one cell (source lines, and the engine's output, which quotes them).
pub(crate) fn printable(line: &str) -> String {
    if !line.chars().any(char::is_control) {
        return line.to_string();
    }
    let mut out = String::with_capacity(line.len());
    let mut col = 0;
    for c in line.chars() {
        match c {
            '\t' => {
                let n = TAB - col % TAB;
                out.extend(std::iter::repeat_n(' ', n));
                col += n;
            }
            c if c.is_control() => {
                out.push('?');
                col += 1;
            }
            c => {
                out.push(c);
                col += 1;
            }
        }
    }
    out
}

impl App {
    /// The source row of the instruction at `addr` in what the Source pane shows, if any.
    pub fn source_row_of(&self, addr: u64) -> Option<usize> {
        match (self.source.mode, self.source.high_level()) {
            (SourceMode::Interleaved, Some(h)) => h.row_of_instr(self.code.index_of(addr)?),
            (SourceMode::HighLevel, Some(h)) => h.line_of(&self.code, addr),
            (SourceMode::Assembly, _) => self
                .source
                .view
                .as_ref()
                .ok()?
                .line_of(self.engine.machine(), addr),
            _ => None,
        }
    }

    /// The address source row `index` goes to (the code cursor follows it there; `a` and
    /// `b` act there): a line's first instruction (a higher-level line's first
    /// statement), or an interleaved instruction's own (a label's or a head's: the
    /// instruction under it).
    pub fn source_row_addr(&self, index: usize) -> Option<u64> {
        match (self.source.mode, self.source.high_level()) {
            (SourceMode::Interleaved, Some(h)) => h.row_addr(&self.code, index),
            (SourceMode::HighLevel, Some(h)) => h.first_addr.get(index).copied().flatten(),
            (SourceMode::Assembly, _) => self.source.line_addr(index),
            _ => None,
        }
    }

    /// The text of each row the Source pane shows (what `/` searches).
    pub(super) fn source_texts(&self) -> Vec<Cow<'_, str>> {
        match (self.source.mode, self.source.high_level()) {
            (SourceMode::Interleaved, Some(h)) => h
                .rows
                .iter()
                .map(|r| match *r {
                    Row::Line(l) => Cow::Borrowed(h.lines[l].as_str()),
                    Row::Instr(ci) => Cow::Borrowed(self.code.lines[ci].text.as_str()),
                    Row::Label(ci, k) => Cow::Owned(format!("{}:", self.code.lines[ci].labels[k])),
                    Row::From(place) => Cow::Owned(self.source.from_text(place)),
                })
                .collect(),
            (SourceMode::HighLevel, Some(h)) => borrowed(&h.lines),
            (SourceMode::Assembly, _) => self
                .source
                .view
                .as_ref()
                .map(|s| borrowed(&s.lines))
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// `V`: the Source pane's next mode (high-level, assembly, interleaved), shown if the
    /// code layout hid it; the cursor stays on the code cursor's place.
    pub(super) fn cycle_source_mode(&mut self) {
        if !self.source.has_line_table() {
            self.say("V: this kernel has no line table (.loc); the Source pane shows its .s.");
            return;
        }
        self.source.mode = self.source.mode.next();
        if !self.layout.shows(Pane::Source) {
            self.layout = CodeLayout::Split;
        }
        self.source.cursor = 0;
        self.sync_source_to_code();
        let name = match (self.source.mode, self.source.shown_file()) {
            (SourceMode::Assembly, _) => match &self.source.view {
                Ok(v) => v.name.clone(),
                Err(_) => "no .s text".into(),
            },
            (_, Some(f)) if f.view.is_ok() => f.name.clone(),
            _ => "no text".into(),
        };
        self.say(format!(
            "Source: {} ({name}) (V: {})",
            self.source.mode.name(),
            self.source.mode.next().name()
        ));
    }

    /// The source row of the code cursor's instruction, if any.
    pub(super) fn code_cursor_line(&self) -> Option<usize> {
        let addr = self.code.lines.get(self.code.cursor)?.addr;
        self.source_row_of(addr)
    }

    /// Puts the code cursor on line `i` of the disassembly (clamped), and the source cursor
    /// on its source line: the two code views show the same place.
    pub(super) fn set_code_cursor(&mut self, i: usize) {
        self.code.cursor = i.min(self.code.lines.len().saturating_sub(1));
        self.sync_source_to_code();
    }

    /// Moves the source cursor to the code cursor's line; in the high-level mode, to
    /// another higher-level file's line when the instruction is of that file.
    pub(super) fn sync_source_to_code(&mut self) {
        if self.code_cursor_line().is_none() && self.source.high_level().is_some() {
            let addr = self.code.lines.get(self.code.cursor).map(|l| l.addr);
            if let Some(row) = addr.and_then(|a| self.engine.line_row_at(a)) {
                self.source.show_file(row.file);
            }
        }
        if let Some(line) = self.code_cursor_line() {
            self.source.cursor = line;
        }
    }

    /// Shows the higher-level file of the selected wave's line; where its PC has no line
    /// the file shown stays.
    pub(super) fn show_pc_file(&mut self) {
        let pc = self.selected_pc();
        if let Some(row) = pc.and_then(|pc| self.engine.line_row_at(pc)) {
            self.source.show_file(row.file);
        }
    }

    /// Moves the code cursor to the source cursor's line's first instruction (if it has
    /// one).
    pub(super) fn sync_code_to_source(&mut self) {
        if let Some(i) = self
            .source_row_addr(self.source.cursor)
            .and_then(|a| self.code.index_of(a))
        {
            self.code.cursor = i;
        }
    }

    /// Moves the source cursor by `delta` lines (clamped) and the code cursor with it.
    pub(super) fn move_source(&mut self, delta: isize) {
        let n = self.source.len();
        if n == 0 {
            return;
        }
        self.source.cursor =
            (self.source.cursor as isize + delta).clamp(0, n as isize - 1) as usize;
        self.sync_code_to_source();
    }

    /// Source keys: the cursor moves a row, a page, to the first or last row, or (`.`)
    /// to the selected wave's PC; the code cursor follows. Enter toggles a breakpoint on
    /// the cursor's line (as `b`). Returns whether the key was used.
    pub(super) fn source_key(&mut self, code: KeyCode) -> bool {
        let page = self.page(Pane::Source) as isize;
        let n = self.source.len() as isize;
        match (Motion::of(code), code) {
            (Some(Motion::Down), _) => self.move_source(1),
            (Some(Motion::Up), _) => self.move_source(-1),
            (Some(Motion::PageDown), _) => self.move_source(page),
            (Some(Motion::PageUp), _) => self.move_source(-page),
            (Some(Motion::Home), _) => self.move_source(-n),
            (Some(Motion::End), _) => self.move_source(n),
            (_, KeyCode::Char('.')) => self.follow_pc(),
            (_, KeyCode::Enter) if self.is_running() => self.refuse_busy(),
            (_, KeyCode::Enter) => self.toggle_breakpoint(),
            _ => return false,
        }
        true
    }

    /// The address the cursor of the focused code view is on: the code cursor's
    /// instruction, or the source cursor's line's first instruction (`Err`: the line has
    /// none).
    pub(super) fn cursor_addr(&self) -> Result<u64, String> {
        if self.focus == Pane::Source {
            if self.source.missing().is_some() || self.source.is_empty() {
                return Err("There is no source here; v switches to the disassembly.".into());
            }
            return self.source_row_addr(self.source.cursor).ok_or_else(|| {
                format!(
                    "Line {} has no instruction (move to a line with one).",
                    self.source.cursor + 1
                )
            });
        }
        self.code
            .lines
            .get(self.code.cursor)
            .map(|l| l.addr)
            .ok_or_else(|| "There is no code.".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn tabs_expand_to_stops_and_controls_show() {
        assert_eq!(printable("a\tb"), "a       b");
        assert_eq!(printable("\tx\ty"), "        x       y");
        assert_eq!(printable("a\u{7}b"), "a?b");
        assert_eq!(printable("plain"), "plain");
    }
}
