//! The higher-level files a kernel was compiled from (`.file`/`.loc`), as the Source pane
//! shows them in its high-level and interleaved modes: each file's lines (text from the
//! engine, which read it relative to the kernel), which line each instruction belongs to,
//! where a line's breakpoint goes, and the interleaved rows (each line, then its
//! instructions, with every other instruction where it falls in address order).

use wavedbg_emulator::debug::source_view::HighLevelFile;
use wavedbg_emulator::debug::Engine;

use super::code::CodePane;
use super::source::printable;

/// A row of the interleaved view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    /// A line of the higher-level file (0-based index).
    Line(usize),
    /// An instruction: its index in the disassembly.
    Instr(usize),
    /// Label `k` (0-based, in the program's order) of instruction `ci`, on a row of its own
    /// before it, as the disassembly shows labels: `(ci, k)`.
    Label(usize, usize),
    /// The head of instructions with no line of this file, naming where they come from:
    /// another file's line (file number, 1-based line; this file's own past its end), or
    /// `None` for code of no line (before the first `.loc`, line 0).
    From(Option<(u32, u32)>),
}

/// A higher-level file, ready to show.
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
    /// The interleaved view: each line followed by its instructions in address order, each
    /// of them followed by the instructions after it that have no line here (under a
    /// [`Row::From`] head, each with its labels); those before this file's first
    /// instruction come first. Every instruction has exactly one row.
    pub rows: Vec<Row>,
    /// Per instruction of the disassembly: its row in `rows`.
    instr_row: Vec<usize>,
}

/// A higher-level file of the line table as the Source pane keeps it: its number and path,
/// and the view of its text or why the text cannot be shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HighLevelSource {
    /// Its number (`.file N`).
    pub number: u32,
    /// Its path as `.file` wrote it.
    pub name: String,
    /// The file ready to show, or why its text cannot be shown.
    pub view: Result<HighLevelView, String>,
}

impl HighLevelSource {
    /// File `f` of `engine`'s line table, for the disassembly `code`.
    pub fn of(engine: &Engine, code: &CodePane, f: HighLevelFile) -> HighLevelSource {
        let view = match f.text {
            Ok(text) => Ok(HighLevelView::of(engine, code, f.number, &f.path, &text)),
            Err(e) => Err(format!(
                "No source text for {}: {e}. V shows the assembly.",
                f.path
            )),
        };
        HighLevelSource {
            number: f.number,
            name: f.path,
            view,
        }
    }
}

impl HighLevelView {
    /// File `number` of `engine`'s line table, called `name`, whose text is `text`.
    fn of(engine: &Engine, code: &CodePane, number: u32, name: &str, text: &str) -> HighLevelView {
        let lines: Vec<String> = text.lines().map(printable).collect();
        // Each instruction's line: (file, 1-based line), `None` where it has none.
        let places: Vec<Option<(u32, u32)>> = code
            .lines
            .iter()
            .map(|l| engine.line_row_at(l.addr).map(|r| (r.file, r.line)))
            .collect();
        let code_line: Vec<Option<usize>> = places
            .iter()
            .map(|p| {
                p.filter(|(f, _)| *f == number)
                    .and_then(|(_, l)| (l as usize).checked_sub(1))
                    .filter(|i| *i < lines.len())
            })
            .collect();
        let mut by_line: Vec<Vec<usize>> = vec![Vec::new(); lines.len()];
        // The instructions with no line here: before this file's first one, and after
        // each of its instructions up to the next.
        let mut before_first = Vec::new();
        let mut after: Vec<Vec<usize>> = vec![Vec::new(); code_line.len()];
        let mut last_own = None;
        for (ci, l) in code_line.iter().enumerate() {
            match (l, last_own) {
                (Some(l), _) => {
                    by_line[*l].push(ci);
                    last_own = Some(ci);
                }
                (None, Some(own)) => after[own].push(ci),
                (None, None) => before_first.push(ci),
            }
        }
        let first_addr = by_line
            .iter()
            .enumerate()
            .map(|(i, instrs)| {
                let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
                engine
                    .line_statements(number, line)
                    .first()
                    .copied()
                    .or_else(|| instrs.first().map(|ci| code.lines[*ci].addr))
            })
            .collect();
        let mut rows = Vec::with_capacity(lines.len() + 2 * code_line.len());
        let instr = |rows: &mut Vec<Row>, ci: usize| {
            rows.extend((0..code.lines[ci].labels.len()).map(|k| Row::Label(ci, k)));
            rows.push(Row::Instr(ci));
        };
        let others = |rows: &mut Vec<Row>, run: &[usize]| {
            let mut head = None;
            for &ci in run {
                if head != Some(places[ci]) {
                    head = Some(places[ci]);
                    rows.push(Row::From(places[ci]));
                }
                instr(rows, ci);
            }
        };
        others(&mut rows, &before_first);
        for (i, instrs) in by_line.iter().enumerate() {
            rows.push(Row::Line(i));
            for &ci in instrs {
                instr(&mut rows, ci);
                others(&mut rows, &after[ci]);
            }
        }
        let mut instr_row = vec![0; code_line.len()];
        for (r, row) in rows.iter().enumerate() {
            if let Row::Instr(ci) = row {
                instr_row[*ci] = r;
            }
        }
        HighLevelView {
            name: name.to_string(),
            lines,
            code_line,
            first_addr,
            rows,
            instr_row,
        }
    }

    /// The line (0-based) of the instruction at `addr`, when it is one of this file's.
    pub fn line_of(&self, code: &CodePane, addr: u64) -> Option<usize> {
        code.index_of(addr)
            .and_then(|ci| self.code_line.get(ci).copied().flatten())
    }

    /// The interleaved row of the instruction at index `ci` of the disassembly.
    pub fn row_of_instr(&self, ci: usize) -> Option<usize> {
        self.instr_row.get(ci).copied()
    }

    /// The address interleaved row `r` goes to: a line's first statement, an instruction's
    /// own, a label's instruction's, or a head's first instruction.
    pub fn row_addr(&self, code: &CodePane, r: usize) -> Option<u64> {
        let instr = |ci: usize| code.lines.get(ci).map(|l| l.addr);
        match *self.rows.get(r)? {
            Row::Line(l) => self.first_addr.get(l).copied().flatten(),
            Row::Instr(ci) | Row::Label(ci, _) => instr(ci),
            Row::From(_) => self.rows[r..].iter().find_map(|row| match row {
                Row::Instr(ci) => instr(*ci),
                _ => None,
            }),
        }
    }
}
