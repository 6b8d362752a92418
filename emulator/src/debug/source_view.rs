//! What a front end's source pane shows of a kernel compiled from a higher-level language
//! (`.file`, `.loc`; docs/source-level.md): the higher-level files of the line table with
//! their text, as `list` reads them (relative to the kernel's file), and the addresses a
//! line's breakpoint goes to.

use super::Engine;

/// A higher-level source file of the kernel's line table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HighLevelFile {
    /// Its number (`.file N`).
    pub number: u32,
    /// Its path as `.file` wrote it.
    pub path: String,
    /// Its text as the engine read it when the kernel was opened, or why it could not be
    /// read.
    pub text: Result<String, String>,
}

impl Engine {
    /// The higher-level file a source view shows: the one of the selected wave's line,
    /// else the first file with code (as `list` without an argument picks it). `None`
    /// without a line table.
    pub fn high_level_file(&self) -> Option<HighLevelFile> {
        self.line_file_named(None)
            .ok()
            .flatten()
            .map(|n| self.high_level_file_numbered(n))
    }

    /// Every higher-level file of the line table, in `.file` order (a kernel may inline
    /// code of several; a source view keeps each and shows the one of the selected wave's
    /// line, [`Engine::line_row_at`]'s file). Empty without a line table.
    pub fn high_level_files(&self) -> Vec<HighLevelFile> {
        if !self.has_line_table() {
            return Vec::new();
        }
        self.machine()
            .program()
            .source_info
            .files
            .iter()
            .map(|f| self.high_level_file_numbered(f.number))
            .collect()
    }

    /// Line-table file `number` with its text.
    fn high_level_file_numbered(&self, number: u32) -> HighLevelFile {
        HighLevelFile {
            number,
            path: self.line_file_path(number),
            text: self.line_file_text(number).map(str::to_string),
        }
    }

    /// The addresses `break FILE:LINE` puts breakpoints at for line `line` of file
    /// `file`: the first statement (`is_stmt`) instruction of each stretch of the line's
    /// code, lowest first; empty where the line has no statement.
    pub fn line_statements(&self, file: u32, line: u32) -> Vec<u64> {
        self.line_addresses(file, u64::from(line))
            .unwrap_or_default()
    }
}
