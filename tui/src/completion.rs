//! Tab completion for the command line: command names first, then registers, labels,
//! buffer names, memory spaces and `info` topics (the same words as the REPL's).

use wavedbg_emulator::debug::completion::completed;
pub use wavedbg_emulator::debug::completion::Words;

/// Commands the TUI handles itself (besides the command language).
pub const TUI_COMMANDS: &[&str] = &["lanes", "mem", "quit"];

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
    let (start, candidates) = words.candidates(before);
    let line = match candidates.as_slice() {
        [] => before.to_string(),
        [one] => format!("{}{}", &before[..start], completed(one)),
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
        let engine = crate::app::demo_engine(None).expect("the demo opens");
        Words::of(&engine, TUI_COMMANDS)
    }

    #[test]
    fn completes_commands_then_names() {
        let w = words();
        assert_eq!(complete("br", &w).line, "break ");
        let c = complete("co", &w);
        assert_eq!(c.line, "con");
        assert!(c.candidates.len() >= 2, "{:?}", c.candidates);
        assert_eq!(complete("break ne", &w).line, "break next_word ");
        assert_eq!(complete("print v1", &w).candidates[..2], ["v1", "v10"]);
        assert_eq!(complete("me", &w).line, "mem ");
        assert!(complete("zz", &w).candidates.is_empty());
    }
}
