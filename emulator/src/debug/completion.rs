//! Completion of command lines, shared by every front end with a line editor (the REPL's
//! Tab, the TUI's command line): command names first, then registers, labels, buffer
//! names, memory spaces and `info` topics.

use super::command::HELP;
use super::Engine;

/// Words that complete a command line for one kernel.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Words {
    /// Command names (the first word of a line).
    pub commands: Vec<String>,
    /// Everything else: registers, labels, buffers, spaces, topics.
    pub names: Vec<String>,
}

/// Arguments that are not registers, labels or buffers.
const KEYWORDS: &[&str] = &[
    "exec",
    "pc",
    "lane",
    "wave",
    "global:",
    "shared:",
    "scratch:",
    "global",
    "shared",
    "scratch",
    "barrier",
    "scheduler-locking",
    "on",
    "off",
    "all",
    "workgroup",
    "waves",
    "lanes",
    "registers",
    "breakpoints",
    "watchpoints",
    "changes",
    "display",
    "history",
    "history-size",
    "findings",
    "check",
    "races",
    "sync",
    "init",
    "hazards",
];

impl Words {
    /// The words for `engine`'s kernel, with a front end's own commands added.
    pub fn of(engine: &Engine, extra_commands: &[&str]) -> Words {
        let mut commands: Vec<String> = HELP.iter().map(|(n, ..)| n.to_string()).collect();
        commands.extend(extra_commands.iter().map(|s| s.to_string()));
        commands.sort();
        commands.dedup();
        let p = engine.machine().program();
        let mut names: Vec<String> = p.labels.keys().cloned().collect();
        names.extend(p.buffers.iter().map(|b| b.name.clone()));
        names.extend((0..128).map(|i| format!("v{i}")));
        names.extend((0..64).map(|i| format!("u{i}")));
        names.extend(KEYWORDS.iter().map(|s| s.to_string()));
        Words { commands, names }
    }

    /// Completes the word ending at the end of `before` (the text before the cursor):
    /// where that word starts, and every word it can become, in order.
    pub fn candidates(&self, before: &str) -> (usize, Vec<String>) {
        // The word starts after the last separator, which may be wider than one byte
        // (a no-break space is two).
        let start = before
            .char_indices()
            .rfind(|&(_, c)| c.is_whitespace() || matches!(c, '[' | '(' | ',' | '='))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let word = &before[start..];
        let pool = if before[..start].trim().is_empty() {
            &self.commands
        } else {
            &self.names
        };
        (
            start,
            pool.iter()
                .filter(|w| w.starts_with(word))
                .cloned()
                .collect(),
        )
    }
}
