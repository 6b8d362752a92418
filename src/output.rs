//! Writing results to standard output.

use std::borrow::Cow;

use color_eyre::eyre::Result;

/// Writes text for a person to stdout, its control characters written out ([`visible`]):
/// a kernel's file name or source line, a script's command or a session's text echoed
/// back must not drive the terminal. A closed pipe (`wavedbg isa | head`) ends output
/// quietly.
pub fn emit(text: &str) -> Result<()> {
    write_stdout(&visible(text))
}

/// Writes text to stdout as it is: JSON (serde_json writes every C0 control character in
/// a string as an escape, and [`visible`]'s `\u{1b}` would not be valid JSON), or the
/// REPL's own escape sequences.
pub fn emit_verbatim(text: &str) -> Result<()> {
    write_stdout(text)
}

fn write_stdout(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

/// `text` with its control characters other than newline and tab written out
/// (`\u{1b}`), for a terminal: a file name or a typed word echoed back (`unknown command`,
/// the REPL's banner) must not move the cursor, clear the screen or ring the bell.
pub fn visible(text: &str) -> Cow<'_, str> {
    let shown = |c: char| !c.is_control() || c == '\n' || c == '\t';
    if text.chars().all(shown) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if shown(c) {
            out.push(c);
        } else {
            out.extend(c.escape_unicode());
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::visible;

    #[test]
    fn control_characters_are_written_out() {
        assert_eq!(visible("a\tb\nc"), "a\tb\nc");
        assert_eq!(visible("k\u{1b}[2J\u{7}\r.s"), "k\\u{1b}[2J\\u{7}\\u{d}.s");
        assert_eq!(
            visible("del\u{7f} c1\u{9b} \u{1F600}"),
            "del\\u{7f} c1\\u{9b} \u{1F600}"
        );
    }
}
