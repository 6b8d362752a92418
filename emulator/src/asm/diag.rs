//! Assembler diagnostics: file:line:col, the source line with a caret, and a hint.

use std::fmt;

/// One assembler error, located in the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Source file name as given.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (in characters).
    pub col: u32,
    /// Width of the offending text in characters (at least 1).
    pub len: u32,
    /// The error in one line, without location or hint (shown after `error: `).
    pub message: String,
    /// The text of line `line`, shown under the message with a caret at `col` (empty for a
    /// file-level error); of a long line, only an excerpt around the error.
    pub source_line: String,
    /// How many characters of the line precede `source_line` (0 when it is the whole line):
    /// the caret is drawn at `col - excerpt_start` within it.
    pub excerpt_start: u32,
    /// How to fix it, if known: the nearest mnemonic, the operand kinds expected, the range.
    pub hint: Option<String>,
}

impl Diagnostic {
    /// An error about the file as a whole (unreadable, no instructions): no line, no
    /// snippet.
    pub fn file_level(file: &str, message: String) -> Diagnostic {
        Diagnostic {
            file: file.to_string(),
            line: 0,
            col: 0,
            len: 0,
            message,
            source_line: String::new(),
            excerpt_start: 0,
            hint: None,
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            // A message that already names the file (`cannot read FILE: ...`) is shown
            // alone.
            return if self.message.contains(&self.file) {
                write!(f, "{}", self.message)
            } else {
                write!(f, "{}: error: {}", self.file, self.message)
            };
        }
        writeln!(
            f,
            "{}:{}:{}: error: {}",
            self.file, self.line, self.col, self.message
        )?;
        let num = self.line.to_string();
        let pad = " ".repeat(num.len());
        writeln!(f, "{pad} |")?;
        writeln!(f, "{num} | {}", self.source_line.replace('\t', " "))?;
        write!(
            f,
            "{pad} | {}{}",
            " ".repeat(self.col.saturating_sub(1 + self.excerpt_start) as usize),
            "^".repeat(self.len.max(1) as usize)
        )?;
        if let Some(h) = &self.hint {
            write!(f, "\n{pad} = hint: {h}")?;
        }
        Ok(())
    }
}

/// Most diagnostics an assembly run keeps: the first ones in line order; the rest are
/// only counted, so that hostile input cannot make the report (or the memory behind it)
/// grow without bound.
pub const MAX_DIAGNOSTICS: usize = 100;

/// The errors of one assembly run (the assembler reports all, not just the first): the
/// first [`MAX_DIAGNOSTICS`] in line order and how many more there were.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct AsmErrors {
    /// The reported errors, by line and column.
    pub diagnostics: Vec<Diagnostic>,
    /// Errors found after the reported ones (shown as `... and N more errors`).
    pub more: usize,
}

impl AsmErrors {
    /// One error, nothing more.
    pub fn one(d: Diagnostic) -> AsmErrors {
        AsmErrors {
            diagnostics: vec![d],
            more: 0,
        }
    }

    /// All errors found, reported or not.
    pub fn total(&self) -> usize {
        self.diagnostics.len() + self.more
    }
}

impl fmt::Display for AsmErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        if self.more > 0 {
            let s = if self.more == 1 { "" } else { "s" };
            write!(f, "\n\n... and {} more error{s}", self.more)?;
        }
        if self.total() > 1 {
            write!(f, "\n\n{} errors", self.total())?;
        }
        Ok(())
    }
}
