//! The kernel's source beside the disassembly: the text (from the engine, which read the
//! `.s` file it was opened from, or the built-in demo's embedded source), which source
//! line each instruction came from, and the source cursor, kept in step with the code
//! cursor.

use ratatui::crossterm::event::KeyCode;
use wavedbg_emulator::debug::{Engine, NoSource};
use wavedbg_emulator::machine::Machine;

use super::input::Motion;
use super::state::App;
use crate::pane::Pane;

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

/// The source pane's state: the text (or why there is none) and a cursor kept on the
/// code cursor's line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourcePane {
    /// The kernel's source, or why there is none (the pane shows that text).
    pub view: Result<SourceView, String>,
    /// The cursor: a 0-based line index into the source's lines.
    pub cursor: usize,
}

impl SourcePane {
    /// The number of source lines (0 without a source).
    pub fn len(&self) -> usize {
        self.view.as_ref().map_or(0, |s| s.lines.len())
    }

    /// Whether there is no source line to move in.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first instruction of source line `index` (0-based).
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
    /// The source line of the code cursor's instruction, if any.
    pub(super) fn code_cursor_line(&self) -> Option<usize> {
        let src = self.source.view.as_ref().ok()?;
        let addr = self.code.lines.get(self.code.cursor)?.addr;
        src.line_of(self.engine.machine(), addr)
    }

    /// Puts the code cursor on line `i` of the disassembly (clamped), and the source cursor
    /// on its source line: the two code views show the same place.
    pub(super) fn set_code_cursor(&mut self, i: usize) {
        self.code.cursor = i.min(self.code.lines.len().saturating_sub(1));
        self.sync_source_to_code();
    }

    /// Moves the source cursor to the code cursor's line.
    pub(super) fn sync_source_to_code(&mut self) {
        if let Some(line) = self.code_cursor_line() {
            self.source.cursor = line;
        }
    }

    /// Moves the code cursor to the source cursor's line's first instruction (if it has
    /// one).
    pub(super) fn sync_code_to_source(&mut self) {
        if let Some(i) = self
            .source
            .line_addr(self.source.cursor)
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

    /// Source keys: the cursor moves a line, a page, to the first or last line, or (`.`)
    /// to the selected wave's PC; the code cursor follows. Returns whether the key was
    /// used.
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
            _ => return false,
        }
        true
    }

    /// The address the cursor of the focused code view is on: the code cursor's
    /// instruction, or the source cursor's line's first instruction (`Err`: the line has
    /// none).
    pub(super) fn cursor_addr(&self) -> Result<u64, String> {
        if self.focus == Pane::Source {
            if self.source.view.is_err() {
                return Err("There is no source here; v switches to the disassembly.".into());
            }
            return self.source.line_addr(self.source.cursor).ok_or_else(|| {
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
