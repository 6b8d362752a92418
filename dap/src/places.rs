//! Where an instruction is, as the protocol names it: in a kernel compiled from a
//! higher-level language (`.file`, `.loc`; docs/source-level.md), the higher-level file's
//! line and column, as the REPL's stops and `list` show it; elsewhere (no line table, or
//! code of no line) the kernel's own `.s` line. Stack frames and disassembly both name
//! instructions so, so the editor shows the source the user wrote and steps through it.

use std::io::Write;
use std::path::Path;

use wavedbg_emulator::debug::Engine;

use crate::session::Session;
use crate::types::Source;

/// A code address's place: the file, its line and column as the engine counts (from 1;
/// the column 0 when unknown).
pub(crate) struct Place {
    pub source: Option<Source>,
    pub line: u32,
    pub column: u32,
}

/// A file as the protocol names it: its last component, and its path made absolute
/// (canonical when it exists).
pub(crate) fn source_of(path: &Path) -> Source {
    let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    Source {
        name: path.file_name().map(|n| n.to_string_lossy().into_owned()),
        path: Some(absolute.display().to_string()),
    }
}

/// The files instructions are in, named once (making a path canonical reads the file
/// system): the kernel's own, and each file of its line table.
pub(crate) struct Places {
    kernel: Option<Source>,
    files: Vec<(u32, Source)>,
}

impl Places {
    /// The files of `engine`'s kernel, whose own file is `kernel`.
    pub(crate) fn new(engine: &Engine, kernel: Option<Source>) -> Places {
        let beside = engine.kernel_path().map(Path::new);
        let files = engine
            .machine()
            .program()
            .source_info
            .files
            .iter()
            .map(|f| (f.number, source_of(&f.beside(beside))))
            .collect();
        Places { kernel, files }
    }

    /// The place of the instruction at `pc`: its higher-level line where the line table
    /// gives one, else its `.s` line; `None` for code of no line in an object file.
    pub(crate) fn at(&self, engine: &Engine, pc: u64) -> Option<Place> {
        if let Some(row) = engine.line_row_at(pc) {
            let source = self
                .files
                .iter()
                .find(|(n, _)| *n == row.file)
                .map(|(_, s)| s.clone());
            return Some(Place {
                source,
                line: row.line,
                column: row.column,
            });
        }
        let line = engine.machine().program().line_at(pc)?;
        Some(Place {
            source: self.kernel.clone(),
            line,
            column: 0,
        })
    }
}

impl<W: Write> Session<W> {
    /// The place of the instruction at `pc` in this session's kernel ([`Places::at`]).
    pub(crate) fn place(&self, pc: u64) -> Option<Place> {
        let engine = self.engine.as_ref()?;
        Places::new(engine, self.kernel_source()).at(engine, pc)
    }

    /// An engine column as this client counts ([`client_column`]).
    pub(crate) fn client_column(&self, column: u32) -> i64 {
        client_column(column, self.column_base)
    }
}

/// An engine column (from 1; 0 unknown) as a client whose first column is `base` counts:
/// the first column when unknown.
pub(crate) fn client_column(column: u32, base: i64) -> i64 {
    match column {
        0 => base,
        c => i64::from(c) - 1 + base,
    }
}
