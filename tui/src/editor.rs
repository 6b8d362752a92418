//! The command line's editing state: the text and a cursor (a char index).

/// The command line's text and cursor, with readline's editing keys. Words are what lies
/// between spaces (so `*0x40` is one), as readline's Alt-b, Alt-f and Ctrl-W take them;
/// the text holds no control characters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineEditor {
    text: String,
    /// Cursor position in chars.
    cursor: usize,
}

impl LineEditor {
    /// An empty line, the cursor at its start.
    pub fn new() -> Self {
        Self::default()
    }

    /// The whole line as typed (without the `:` prompt).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The cursor position, in chars from the start (not cells: see `ui::text::width`).
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Replaces the text and puts the cursor at its end.
    pub fn set(&mut self, text: &str) {
        self.text = text.to_string();
        self.cursor = self.text.chars().count();
    }

    fn byte(&self, chars: usize) -> usize {
        self.text
            .char_indices()
            .nth(chars)
            .map_or(self.text.len(), |(i, _)| i)
    }

    /// Inserts text at the cursor, without its control characters; the cursor ends after
    /// it.
    pub fn insert(&mut self, s: &str) {
        let s: String = s.chars().filter(|c| !c.is_control()).collect();
        let at = self.byte(self.cursor);
        self.text.insert_str(at, &s);
        self.cursor += s.chars().count();
    }

    /// Deletes the char before the cursor.
    pub fn backspace(&mut self) {
        if self.cursor > 0 {
            self.cursor -= 1;
            let at = self.byte(self.cursor);
            self.text.remove(at);
        }
    }

    /// Deletes the char under the cursor.
    pub fn delete(&mut self) {
        if self.cursor < self.text.chars().count() {
            let at = self.byte(self.cursor);
            self.text.remove(at);
        }
    }

    /// Deletes from the cursor to the end of the line (Ctrl-K).
    pub fn kill_to_end(&mut self) {
        let at = self.byte(self.cursor);
        self.text.truncate(at);
    }

    /// Deletes from the cursor to the end of the word after it (Alt-d).
    pub fn delete_word_right(&mut self) {
        let start = self.cursor;
        self.word_right();
        let (a, b) = (self.byte(start), self.byte(self.cursor));
        self.text.replace_range(a..b, "");
        self.cursor = start;
    }

    /// Deletes the word before the cursor (Ctrl-W).
    pub fn delete_word(&mut self) {
        let end = self.cursor;
        self.word_left();
        let (a, b) = (self.byte(self.cursor), self.byte(end));
        self.text.replace_range(a..b, "");
    }

    /// Moves the cursor to the start of the word before it (Alt-b).
    pub fn word_left(&mut self) {
        let before: Vec<char> = self.text.chars().take(self.cursor).collect();
        let mut i = before.len();
        while i > 0 && before[i - 1] == ' ' {
            i -= 1;
        }
        while i > 0 && before[i - 1] != ' ' {
            i -= 1;
        }
        self.cursor = i;
    }

    /// Moves the cursor past the end of the word after it (Alt-f).
    pub fn word_right(&mut self) {
        let after: Vec<char> = self.text.chars().skip(self.cursor).collect();
        let mut i = 0;
        while i < after.len() && after[i] == ' ' {
            i += 1;
        }
        while i < after.len() && after[i] != ' ' {
            i += 1;
        }
        self.cursor += i;
    }

    /// Moves the cursor by `delta` chars (negative: left), stopping at either end.
    pub fn move_by(&mut self, delta: isize) {
        let n = self.text.chars().count() as isize;
        self.cursor = (self.cursor as isize + delta).clamp(0, n) as usize;
    }

    /// Moves the cursor before the first char (Home, Ctrl-A).
    pub fn home(&mut self) {
        self.cursor = 0;
    }

    /// Moves the cursor after the last char (End, Ctrl-E).
    pub fn end(&mut self) {
        self.cursor = self.text.chars().count();
    }

    /// The text before the cursor: what completion completes.
    pub fn before_cursor(&self) -> &str {
        &self.text[..self.byte(self.cursor)]
    }

    /// Replaces the text before the cursor, keeping what follows it.
    pub fn replace_before_cursor(&mut self, new: &str) {
        let rest = self.text[self.byte(self.cursor)..].to_string();
        self.text = format!("{new}{rest}");
        self.cursor = new.chars().count();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits() {
        let mut e = LineEditor::new();
        e.insert("brek main");
        e.move_by(-6);
        e.backspace();
        e.insert("ea");
        assert_eq!(e.text(), "break main");
        e.end();
        e.delete_word();
        assert_eq!(e.text(), "break ");
        e.home();
        e.delete();
        assert_eq!(e.text(), "reak ");
        e.set("print v1  v2");
        e.word_left();
        assert_eq!(e.cursor(), 10);
        e.word_left();
        assert_eq!(e.cursor(), 6);
        e.word_right();
        assert_eq!(e.cursor(), 8);
        e.word_right();
        e.word_right();
        assert_eq!(e.cursor(), 12);
    }

    #[test]
    fn kills_to_the_end_and_the_next_word() {
        let mut e = LineEditor::new();
        e.set("print v1  v2");
        e.move_by(-6);
        e.kill_to_end();
        assert_eq!((e.text(), e.cursor()), ("print ", 6));
        e.set("x/4x  $v1 + 2");
        e.home();
        e.word_right();
        e.delete_word_right();
        assert_eq!((e.text(), e.cursor()), ("x/4x + 2", 4));
    }
}
