//! Tab completion for the command line: the engine's completion by context
//! ([`Words::candidates`]: command names first, then each command's argument words, and
//! inside expressions registers, buffers, labels and memory spaces), the same words as the
//! REPL's, plus the TUI's own commands.

use wavedbg_emulator::debug::completion::completed_line;
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
    Completion {
        line: completed_line(before, start, &candidates),
        candidates,
    }
}

/// The candidates the box above the command line lists for `before`: where the word
/// starts (in chars) and the candidates. `None` on an empty line, for an empty word
/// inside an expression (any of hundreds of names), and for an argument with none (a
/// number); an unknown command word gives an empty list, so the box says so. An empty
/// argument word with a known list (`set check `, `info `, `wave `) lists it, as the
/// REPL's second Tab does.
pub fn shown(before: &str, words: &Words) -> Option<(usize, Vec<String>)> {
    let (start, candidates) = words.candidates(before);
    let command_word = before[..start].trim().is_empty();
    let empty_word = before.len() == start;
    if before.trim().is_empty()
        || (empty_word && words.in_expression(before))
        || (candidates.is_empty() && !command_word)
    {
        return None;
    }
    Some((before[..start].chars().count(), candidates))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wavedbg_emulator::debug::completion::{check_case, CASES, CASES_KERNEL};
    use wavedbg_emulator::debug::Engine;

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

    /// The engine's table of cases through the TUI's adapter (the TUI's own commands
    /// added, as the command line has them).
    #[test]
    fn every_case_of_the_engines_table() {
        let p = wavedbg_emulator::asm::assemble(CASES_KERNEL, "k.s", None).expect("assembles");
        let e = Engine::new(&p, Default::default()).expect("launch");
        let w = Words::of(&e, TUI_COMMANDS);
        let failures: Vec<String> = CASES
            .iter()
            .filter_map(|(line, expect)| {
                let c = complete(line, &w);
                check_case(line, *expect, &c.candidates, &c.line).err()
            })
            .collect();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// `:set check ` lists the groups (the box hid every empty word before), while an
    /// empty word in an expression lists nothing.
    #[test]
    fn an_empty_argument_word_lists_its_words() {
        let w = words();
        let (start, c) = shown("set check ", &w).expect("the groups");
        assert_eq!(start, "set check ".len());
        assert_eq!(c, ["races", "sync", "init", "hazards", "xlane", "all"]);
        assert!(shown("info ", &w).is_some());
        assert_eq!(shown("p v1 + ", &w), None);
        assert_eq!(shown("", &w), None);
        assert_eq!(shown("stepi 1", &w), None);
        assert_eq!(shown("zz", &w), Some((0, Vec::new())));
    }
}
