//! Type-ahead, as gdb's readline has it: a key that needs the engine while a run has it
//! (and every key after it, so their order holds) waits in a queue and is handled when
//! the run stops, as if typed then; so does a command line entered during the run, and a
//! paste. Esc and Ctrl-C still interrupt at once (and drop what waits: the user stopped
//! the run), `q` still asks while nothing waits. Each key runs its command when it is
//! handled, so a `--record` script has what ran, in order.

use std::collections::VecDeque;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::state::App;

/// Something typed that waits for the engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Typed {
    /// A key.
    Key(KeyEvent),
    /// A line entered on the command line.
    Line(String),
    /// Pasted text.
    Paste(String),
}

/// What waits, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TypeAhead {
    pub(super) queue: VecDeque<Typed>,
    /// Set when a key was refused because a run has the engine (see
    /// [`App::refuse_busy`]): that key joins the queue.
    pub(super) refused: bool,
}

impl TypeAhead {
    /// How many things wait.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

/// The keys a paste into the command line types: its text, a tab as a space (a tab would
/// complete), each line break as Enter, then `:` to open the line again for the next
/// line; blank lines are skipped (Enter on an empty line would repeat the last command).
pub fn paste_keys(text: &str) -> Vec<KeyEvent> {
    let key = |code| KeyEvent::new(code, KeyModifiers::NONE);
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut keys = Vec::new();
    let mut first = true;
    for line in text.split('\n') {
        let chars: Vec<KeyCode> = line
            .chars()
            .map(|c| if c == '\t' { ' ' } else { c })
            .filter(|c| !c.is_control())
            .map(KeyCode::Char)
            .collect();
        if !first {
            if chars.iter().all(|c| *c == KeyCode::Char(' ')) {
                continue;
            }
            keys.push(key(KeyCode::Char(':')));
        }
        keys.extend(chars.into_iter().map(key));
        keys.push(key(KeyCode::Enter));
        first = false;
    }
    // The last line is left to edit unless the paste ended it.
    if !text.ends_with('\n') {
        keys.pop();
    }
    keys
}

/// Pasted text for a one-line prompt (the `/` search): tabs and line breaks between
/// words as spaces, trailing ones dropped, so words never join.
pub fn flatten(text: &str) -> String {
    text.trim_end_matches(['\r', '\n'])
        .chars()
        .map(|c| {
            if matches!(c, '\t' | '\r' | '\n') {
                ' '
            } else {
                c
            }
        })
        .collect()
}

impl App {
    /// Refuses what needs the engine while a run has it; a key refused so waits (see
    /// [`App::on_key`]).
    pub(super) fn refuse_busy(&mut self) {
        self.typeahead.refused = true;
        self.complain(super::input::BUSY);
    }

    /// Queues `t` to be handled when the run stops, and says so.
    pub(super) fn type_ahead(&mut self, t: Typed) {
        self.typeahead.queue.push_back(t);
        let n = self.typeahead.len();
        self.say(format!(
            "{} typed ahead: handled when the run stops (Esc interrupts it and drops {}).",
            wavedbg_emulator::debug::view::count(n as u64, "key"),
            if n == 1 { "it" } else { "them" }
        ));
    }

    /// Drops what waits (Esc or Ctrl-C interrupted the run); returns how many.
    pub(super) fn drop_typeahead(&mut self) -> usize {
        let n = self.typeahead.len();
        self.typeahead.queue.clear();
        n
    }

    /// Handles what waits, in order, while the engine is free and no question waits for
    /// its answer; a key that starts a run leaves the rest waiting for it.
    pub(super) fn drain_typeahead(&mut self) {
        while !self.is_running() && self.question.is_none() && !self.quit {
            let Some(t) = self.typeahead.queue.pop_front() else {
                break;
            };
            match t {
                Typed::Key(k) => self.dispatch_key(k),
                Typed::Line(line) => self.run_typed(&line),
                Typed::Paste(text) => self.dispatch_paste(&text),
            }
        }
    }

    /// Pasted text, now: into the search prompt flattened to one line; into the command
    /// line as the keys it types ([`paste_keys`]: a multi-line paste runs line by line,
    /// each line waiting for a run the one before started); elsewhere it is ignored.
    pub(super) fn dispatch_paste(&mut self, text: &str) {
        if let Some(e) = self.search.prompt.as_mut() {
            e.insert(&flatten(text));
        } else if self.editor.is_some() {
            // Ahead of anything typed after the paste.
            for k in paste_keys(text).into_iter().rev() {
                self.typeahead.queue.push_front(Typed::Key(k));
            }
            self.drain_typeahead();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(keys: &[KeyEvent]) -> String {
        keys.iter()
            .map(|k| match k.code {
                KeyCode::Char(c) => c,
                KeyCode::Enter => '⏎',
                _ => '?',
            })
            .collect()
    }

    #[test]
    fn a_paste_types_its_lines() {
        assert_eq!(typed(&paste_keys("print 1\nquit\n")), "print 1⏎:quit⏎");
        assert_eq!(typed(&paste_keys("print 1\r\n\r\nquit")), "print 1⏎:quit");
        assert_eq!(typed(&paste_keys("print 3\tx")), "print 3 x");
        assert_eq!(typed(&paste_keys("x\n")), "x⏎");
        assert_eq!(flatten("vadd\tu1\nv2\n"), "vadd u1 v2");
    }
}
