//! The higher-level source a kernel was compiled from (`.file`/`.loc`), as the Source pane
//! shows it in its high-level and interleaved modes: the file's lines (text from the
//! engine, which read it relative to the kernel), which line each instruction belongs to,
//! where a line's breakpoint goes, and the interleaved rows (each line, then its
//! instructions).

use wavedbg_emulator::debug::Engine;

use super::code::CodePane;
use super::source::printable;

/// A row of the interleaved view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    /// A line of the higher-level file (0-based index).
    Line(usize),
    /// An instruction of the line above: its index in the disassembly.
    Instr(usize),
}

/// The higher-level file, ready to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HighLevelView {
    /// Its path as `.file` wrote it (the pane's title, and `break FILE:LINE`'s FILE).
    pub name: String,
    /// Its lines (tabs expanded, control characters shown as `?`).
    pub lines: Vec<String>,
    /// Per instruction of the disassembly (in its order): its line in this file, 0-based.
    pub code_line: Vec<Option<usize>>,
    /// Per line: the address its code cursor goes to, the first statement of the line
    /// (where `break FILE:LINE` goes), else its first instruction.
    pub first_addr: Vec<Option<u64>>,
    /// The interleaved view: each line followed by its instructions, in address order.
    pub rows: Vec<Row>,
}

impl HighLevelView {
    /// The higher-level file of `engine`'s kernel: `None` without a line table, else the
    /// view or why its text cannot be shown.
    pub fn of(engine: &Engine, code: &CodePane) -> Option<Result<HighLevelView, String>> {
        let f = engine.high_level_file()?;
        let text = match f.text {
            Ok(t) => t,
            Err(e) => {
                return Some(Err(format!(
                    "No source text for {}: {e}. V shows the assembly.",
                    f.path
                )))
            }
        };
        let lines: Vec<String> = text.lines().map(printable).collect();
        let code_line: Vec<Option<usize>> = code
            .lines
            .iter()
            .map(|l| {
                engine
                    .line_row_at(l.addr)
                    .filter(|r| r.file == f.number)
                    .and_then(|r| (r.line as usize).checked_sub(1))
                    .filter(|i| *i < lines.len())
            })
            .collect();
        let mut by_line: Vec<Vec<usize>> = vec![Vec::new(); lines.len()];
        for (ci, l) in code_line.iter().enumerate() {
            if let Some(l) = l {
                by_line[*l].push(ci);
            }
        }
        let first_addr = by_line
            .iter()
            .enumerate()
            .map(|(i, instrs)| {
                let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
                engine
                    .line_statements(f.number, line)
                    .first()
                    .copied()
                    .or_else(|| instrs.first().map(|ci| code.lines[*ci].addr))
            })
            .collect();
        let rows = by_line
            .iter()
            .enumerate()
            .flat_map(|(i, instrs)| {
                std::iter::once(Row::Line(i)).chain(instrs.iter().map(|ci| Row::Instr(*ci)))
            })
            .collect();
        Some(Ok(HighLevelView {
            name: f.path,
            lines,
            code_line,
            first_addr,
            rows,
        }))
    }

    /// The line (0-based) of the instruction at `addr`, when it is one of this file's.
    pub fn line_of(&self, code: &CodePane, addr: u64) -> Option<usize> {
        code.index_of(addr)
            .and_then(|ci| self.code_line.get(ci).copied().flatten())
    }

    /// The interleaved row of the instruction at index `ci` of the disassembly.
    pub fn row_of_instr(&self, ci: usize) -> Option<usize> {
        self.rows.iter().position(|r| *r == Row::Instr(ci))
    }
}
