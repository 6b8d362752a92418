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

/// The place of the instruction at `pc` in `engine`'s kernel, whose own file is
/// `kernel_source`: its higher-level line where the line table gives one, else its `.s`
/// line; `None` for code of no line in an object file.
pub(crate) fn place(engine: &Engine, kernel_source: Option<&Source>, pc: u64) -> Option<Place> {
    let program = engine.machine().program();
    if let Some(row) = engine.line_row_at(pc) {
        let kernel = engine.kernel_path().map(Path::new);
        let source = program
            .source_info
            .file(row.file)
            .map(|f| source_of(&f.beside(kernel)));
        return Some(Place {
            source,
            line: row.line,
            column: row.column,
        });
    }
    let line = program.line_at(pc)?;
    Some(Place {
        source: kernel_source.cloned(),
        line,
        column: 0,
    })
}

impl<W: Write> Session<W> {
    /// [`place`] in this session's kernel.
    pub(crate) fn place(&self, pc: u64) -> Option<Place> {
        place(self.engine.as_ref()?, self.kernel_source().as_ref(), pc)
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
