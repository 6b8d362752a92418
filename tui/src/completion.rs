//! Tab completion for the command line: command names first, then registers, labels,
//! buffer names, memory spaces and `info` topics (the same words as the REPL's).

use wavedbg_emulator::debug::command::HELP;
use wavedbg_emulator::debug::Engine;

/// Commands the TUI handles itself (besides the command language).
pub const TUI_COMMANDS: &[&str] = &["lanes", "mem", "quit"];

/// Completion words.
#[derive(Debug, Clone, Default)]
pub struct Words {
    commands: Vec<String>,
    names: Vec<String>,
}

impl Words {
    /// The words for `engine`'s kernel.
    pub fn of(engine: &Engine) -> Words {
        let mut commands: Vec<String> = HELP.iter().map(|(n, ..)| n.to_string()).collect();
        commands.extend(TUI_COMMANDS.iter().map(|s| s.to_string()));
        commands.sort();
        commands.dedup();
        let p = engine.machine().program();
        let mut names: Vec<String> = p.labels.keys().cloned().collect();
        names.extend(p.buffers.iter().map(|b| b.name.clone()));
        names.extend((0..128).map(|i| format!("v{i}")));
        names.extend((0..64).map(|i| format!("u{i}")));
        names.extend(
            [
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
                "waves",
                "lanes",
                "registers",
                "breakpoints",
                "watchpoints",
                "changes",
                "display",
            ]
            .map(String::from),
        );
        Words { commands, names }
    }
}

/// What a Tab press produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// The text before the cursor after completing.
    pub line: String,
    /// Every candidate (empty: none; more than one: the line holds their common prefix).
    pub candidates: Vec<String>,
}

/// Completes the word that ends at the end of `before` (the text before the cursor).
pub fn complete(before: &str, words: &Words) -> Completion {
    let start = before
        .rfind(|c: char| c.is_whitespace() || c == '[' || c == '(' || c == ',' || c == '=')
        .map_or(0, |i| i + 1);
    let word = &before[start..];
    let pool = if before[..start].trim().is_empty() {
        &words.commands
    } else {
        &words.names
    };
    let candidates: Vec<String> = pool
        .iter()
        .filter(|w| w.starts_with(word))
        .cloned()
        .collect();
    let line = match candidates.as_slice() {
        [] => before.to_string(),
        [one] => {
            let sep = if one.ends_with(':') { "" } else { " " };
            format!("{}{one}{sep}", &before[..start])
        }
        many => {
            let mut prefix = many[0].clone();
            for c in &many[1..] {
                let n = prefix
                    .chars()
                    .zip(c.chars())
                    .take_while(|(a, b)| a == b)
                    .count();
                prefix = prefix.chars().take(n).collect();
            }
            format!("{}{prefix}", &before[..start])
        }
    };
    Completion { line, candidates }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words() -> Words {
        Words {
            commands: vec!["break".into(), "continue".into(), "condition".into()],
            names: vec![
                "next_word".into(),
                "merged".into(),
                "v1".into(),
                "v10".into(),
            ],
        }
    }

    #[test]
    fn completes_commands_then_names() {
        let w = words();
        assert_eq!(complete("br", &w).line, "break ");
        let c = complete("co", &w);
        assert_eq!(c.line, "con");
        assert_eq!(c.candidates.len(), 2);
        assert_eq!(complete("break ne", &w).line, "break next_word ");
        assert_eq!(complete("print v1", &w).candidates, ["v1", "v10"]);
        assert!(complete("zz", &w).candidates.is_empty());
    }
}
