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
    /// file-level error).
    pub source_line: String,
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
            " ".repeat(self.col.saturating_sub(1) as usize),
            "^".repeat(self.len.max(1) as usize)
        )?;
        if let Some(h) = &self.hint {
            write!(f, "\n{pad} = hint: {h}")?;
        }
        Ok(())
    }
}

/// Every error found in one assembly run (the assembler reports all, not just the first).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct AsmErrors(pub Vec<Diagnostic>);

impl fmt::Display for AsmErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        if self.0.len() > 1 {
            write!(f, "\n\n{} errors", self.0.len())?;
        }
        Ok(())
    }
}
