//! Completion of command lines, shared by every front end with a line editor (the REPL's
//! Tab, the TUI's command line): command names first, then the words the command takes
//! where they are known (`info` topics after `info`, labels after `break`, memory spaces
//! and buffers after `x` and `watch`, wave ids after `wave`, settings after `set`...), and
//! registers, labels, buffer names and keywords inside expressions.

use super::command::{canonical, HELP};

/// A candidate as it goes on the line once chosen: followed by a space, as in gdb, unless
/// it ends with `:` (a space prefix such as `global:`, whose address follows).
pub fn completed(word: &str) -> String {
    if word.ends_with(':') {
        word.to_string()
    } else {
        format!("{word} ")
    }
}
use super::context::Section;
use super::Engine;

/// Words that complete a command line for one kernel.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Words {
    /// Command names (the first word of a line).
    pub commands: Vec<String>,
    /// Everything an expression or an unknown argument can hold: registers, labels,
    /// buffers, spaces, topics.
    pub names: Vec<String>,
    /// Labels (locations: `break`, `advance`, `list`, `disassemble`).
    pub labels: Vec<String>,
    /// Global buffer names (`x`, `watch`, expressions).
    pub buffers: Vec<String>,
    /// Resident wave ids (`wave`, the `wave N` filters); [`Words::refresh`] updates them.
    pub waves: Vec<String>,
}

/// Arguments that are not registers, labels, buffers or `info` topics.
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
    "history-size",
    "check",
    "races",
    "sync",
    "init",
    "hazards",
    "context",
    "context-sections",
    "confirm",
];

/// `info` topics.
pub const INFO_TOPICS: &[&str] = &[
    "waves",
    "lanes",
    "registers",
    "breakpoints",
    "watchpoints",
    "changes",
    "display",
    "history",
    "findings",
    "buffers",
    "labels",
];

/// What `set` changes besides registers and memory.
pub const SETTINGS: &[&str] = &[
    "scheduler-locking",
    "history-size",
    "check",
    "context",
    "context-sections",
    "confirm",
    "var",
];

/// `set check` groups.
pub const CHECK_GROUPS: &[&str] = &["races", "sync", "init", "hazards", "all"];

/// Memory spaces as an address prefix.
const SPACES: &[&str] = &["global:", "shared:", "scratch:"];

/// Registers by name as `set` assigns them.
const SPECIAL_REGISTERS: &[&str] = &["exec", "pc"];

/// The filters `break` and `watch` take after the location.
const BREAK_FILTERS: &[&str] = &["if", "wave", "workgroup", "lane"];

fn strings<'a>(words: &'a [&str]) -> impl Iterator<Item = String> + 'a {
    words.iter().map(|s| s.to_string())
}

fn registers() -> impl Iterator<Item = String> {
    (0..128)
        .map(|i| format!("v{i}"))
        .chain((0..64).map(|i| format!("u{i}")))
}

fn lanes() -> impl Iterator<Item = String> {
    (0..32).map(|l| l.to_string())
}

impl Words {
    /// The words for `engine`'s kernel, with a front end's own commands added.
    pub fn of(engine: &Engine, extra_commands: &[&str]) -> Words {
        let mut commands: Vec<String> = HELP.iter().map(|e| e.name.to_string()).collect();
        commands.extend(extra_commands.iter().map(|s| s.to_string()));
        commands.sort();
        commands.dedup();
        let p = engine.machine().program();
        let labels: Vec<String> = p.labels.keys().cloned().collect();
        let buffers: Vec<String> = p.buffers.iter().map(|b| b.name.clone()).collect();
        let mut names: Vec<String> = labels.clone();
        names.extend(buffers.iter().cloned());
        names.extend(registers());
        names.extend(strings(KEYWORDS));
        names.extend(strings(INFO_TOPICS));
        let mut w = Words {
            commands,
            names,
            labels,
            buffers,
            waves: Vec::new(),
        };
        w.refresh(engine);
        w
    }

    /// Updates what changes as the launch runs: the resident waves.
    pub fn refresh(&mut self, engine: &Engine) {
        self.waves = engine
            .machine()
            .waves
            .iter()
            .map(|w| w.id.to_string())
            .collect();
    }

    /// The words an argument can be, given the command and the arguments before it;
    /// `None` when the command takes expressions (any name).
    fn for_argument(&self, command: &str, done: &[&str]) -> Option<Vec<String>> {
        let Some(name) = canonical(command) else {
            // A front end's own command: anything.
            return None;
        };
        let filters = |done: &[&str]| -> Option<Vec<String>> {
            match done.last().copied() {
                Some("wave") => Some(self.waves.clone()),
                Some("lane") => Some(lanes().collect()),
                Some("workgroup" | "wg") => Some(vec!["all".to_string()]),
                _ if done.contains(&"if") => None,
                _ => Some(strings(BREAK_FILTERS).collect()),
            }
        };
        let mut v: Vec<String> = match name {
            "info" => match done {
                [] => strings(INFO_TOPICS).collect(),
                ["registers" | "reg" | "r" | "all-registers"] => {
                    registers().chain(strings(SPECIAL_REGISTERS)).collect()
                }
                _ => Vec::new(),
            },
            "break" | "tbreak" => match done {
                [] => self.labels.clone(),
                [_, rest @ ..] => return filters(rest),
            },
            "advance" => match done {
                [] => self
                    .labels
                    .iter()
                    .cloned()
                    .chain(strings(&["barrier"]))
                    .collect(),
                _ => Vec::new(),
            },
            "list" | "disassemble" => match done {
                [] => self.labels.clone(),
                _ => Vec::new(),
            },
            "x" => match done {
                [] => strings(SPACES)
                    .chain(self.buffers.iter().cloned())
                    .collect(),
                _ => Vec::new(),
            },
            "watch" | "rwatch" | "awatch" => match done {
                [] => strings(SPACES)
                    .chain(self.buffers.iter().cloned())
                    .collect(),
                [_, rest @ ..] => return filters(rest),
            },
            "last-write" => match done {
                [] => strings(SPACES)
                    .chain(self.buffers.iter().cloned())
                    .chain(registers())
                    .collect(),
                _ => Vec::new(),
            },
            "wave" => match done {
                [] => self.waves.clone(),
                _ => Vec::new(),
            },
            "lane" => match done {
                [] => lanes().collect(),
                _ => Vec::new(),
            },
            "stepi" => match done {
                [] => strings(&["all", "alone"]).collect(),
                _ => Vec::new(),
            },
            "help" => match done {
                [] => self.commands.clone(),
                _ => Vec::new(),
            },
            "set" => match done {
                [] => strings(SETTINGS)
                    .chain(strings(SPECIAL_REGISTERS))
                    .chain(registers())
                    .chain(strings(SPACES))
                    .collect(),
                ["check"] => strings(CHECK_GROUPS).collect(),
                ["check", _] | ["scheduler-locking"] | ["context"] | ["confirm"] => {
                    strings(&["on", "off"]).collect()
                }
                ["context-sections", ..] => Section::ALL
                    .iter()
                    .map(|s| s.name().to_string())
                    .chain(["all".to_string()])
                    .collect(),
                ["history-size", ..] | ["check", ..] | ["scheduler-locking", ..] => Vec::new(),
                ["context", ..] | ["confirm", ..] => Vec::new(),
                _ => return None,
            },
            "print" | "display" | "expect" | "condition" => return None,
            // Numbers, file names, or nothing at all.
            _ => Vec::new(),
        };
        v.dedup();
        Some(v)
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
        let prior = &before[..start];
        if prior.trim().is_empty() {
            return (start, matching(&self.commands, word));
        }
        let mut tokens = prior
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|t| !t.is_empty());
        let head = tokens.next().unwrap_or_default();
        let command = head.split('/').next().unwrap_or_default();
        let done: Vec<&str> = tokens.collect();
        // Inside brackets or after `=` an expression is being written.
        let in_expression = prior.trim_end().ends_with(['[', '(', '='])
            || prior.contains('=')
            || prior.matches('[').count() > prior.matches(']').count()
            || prior.matches('(').count() > prior.matches(')').count();
        let pool = if in_expression {
            None
        } else {
            self.for_argument(command, &done)
        };
        // `global:NAME`: the space stays, a buffer name completes.
        if let Some((space, rest)) = word.split_once(':') {
            let prefix = format!("{space}:");
            let takes_space = pool.as_ref().is_none_or(|p| p.contains(&prefix));
            if SPACES.contains(&prefix.as_str()) && takes_space {
                let names: &[String] = if space == "global" {
                    &self.buffers
                } else {
                    &[]
                };
                let found = matching(names, rest)
                    .into_iter()
                    .map(|n| format!("{prefix}{n}"))
                    .collect();
                return (start, found);
            }
        }
        (
            start,
            matching(pool.as_deref().unwrap_or(&self.names), word),
        )
    }
}

fn matching(pool: &[String], word: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in pool.iter().filter(|w| w.starts_with(word)) {
        if !out.contains(w) {
            out.push(w.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::LaunchOptions;

    #[test]
    fn a_completed_word_is_followed_by_a_space_unless_a_space_prefix() {
        assert_eq!(completed("continue"), "continue ");
        assert_eq!(completed("global:"), "global:");
    }

    const KERNEL: &str = "
.kernel k
.workgroup 64
.buffer out, 64
.buffer output2, 64
.arg u[0:1], out
loop:
    vlaneid v0
later:
    end
";

    fn words() -> Words {
        let p = crate::asm::assemble(KERNEL, "k.s", None).expect("assembles");
        let e = Engine::new(&p, LaunchOptions::default()).expect("launch");
        Words::of(&e, &["quit"])
    }

    fn complete(w: &Words, line: &str) -> Vec<String> {
        w.candidates(line).1
    }

    #[test]
    fn the_first_word_is_a_command() {
        let w = words();
        assert_eq!(complete(&w, "disa"), ["disable", "disassemble"]);
        assert_eq!(complete(&w, "qu"), ["quit"]);
        assert_eq!(w.candidates("  con").0, 2);
    }

    #[test]
    fn info_completes_only_topics() {
        let w = words();
        assert_eq!(complete(&w, "info "), INFO_TOPICS);
        assert_eq!(complete(&w, "info b"), ["breakpoints", "buffers"]);
        assert_eq!(complete(&w, "i l"), ["lanes", "labels"]);
        assert!(complete(&w, "info v").is_empty(), "no registers as a topic");
        assert_eq!(
            complete(&w, "info registers v12"),
            ["v12", "v120", "v121", "v122", "v123", "v124", "v125", "v126", "v127"]
        );
    }

    #[test]
    fn locations_complete_labels() {
        let w = words();
        for cmd in ["break", "b", "tbreak", "list", "l", "disassemble", "disas"] {
            assert_eq!(complete(&w, &format!("{cmd} ")), ["later", "loop"], "{cmd}");
            assert_eq!(complete(&w, &format!("{cmd} lo")), ["loop"], "{cmd}");
        }
        assert_eq!(complete(&w, "advance "), ["later", "loop", "barrier"]);
        assert_eq!(complete(&w, "advance b"), ["barrier"]);
        assert_eq!(complete(&w, "until l"), ["later", "loop"]);
        assert!(
            complete(&w, "break o").is_empty(),
            "buffers are no locations"
        );
    }

    #[test]
    fn break_filters_after_the_location() {
        let w = words();
        assert_eq!(
            complete(&w, "break loop "),
            ["if", "wave", "workgroup", "lane"]
        );
        assert_eq!(complete(&w, "break loop w"), ["wave", "workgroup"]);
        assert_eq!(complete(&w, "break loop wave "), ["0", "1"]);
        assert_eq!(complete(&w, "break loop lane 3"), ["3", "30", "31"]);
        // After `if`, an expression.
        assert!(complete(&w, "break loop if v1").contains(&"v10".to_string()));
    }

    #[test]
    fn memory_commands_complete_spaces_and_buffers() {
        let w = words();
        for cmd in ["x/4xw", "x", "watch", "rwatch", "awatch"] {
            assert_eq!(
                complete(&w, &format!("{cmd} ")),
                ["global:", "shared:", "scratch:", "out", "output2"],
                "{cmd}"
            );
            assert_eq!(complete(&w, &format!("{cmd} ou")), ["out", "output2"]);
            assert_eq!(complete(&w, &format!("{cmd} sh")), ["shared:"]);
            assert_eq!(
                complete(&w, &format!("{cmd} global:o")),
                ["global:out", "global:output2"]
            );
            assert!(complete(&w, &format!("{cmd} shared:o")).is_empty());
        }
        assert_eq!(
            complete(&w, "watch out 4 "),
            ["if", "wave", "workgroup", "lane"]
        );
        assert_eq!(complete(&w, "watch shared:0 4 workgroup "), ["all"]);
    }

    #[test]
    fn waves_and_lanes() {
        let mut w = words();
        assert_eq!(complete(&w, "wave "), ["0", "1"]);
        assert_eq!(complete(&w, "thread "), ["0", "1"]);
        assert_eq!(complete(&w, "lane ").len(), 32);
        assert_eq!(
            complete(&w, "lane 2"),
            ["2", "20", "21", "22", "23", "24", "25", "26", "27", "28", "29"]
        );
        assert!(complete(&w, "wave 0 ").is_empty());
        w.waves = vec!["4".into(), "5".into()];
        assert_eq!(complete(&w, "wave "), ["4", "5"]);
    }

    #[test]
    fn set_completes_settings_then_their_values() {
        let w = words();
        let all = complete(&w, "set ");
        assert!(
            all.starts_with(&strings(SETTINGS).collect::<Vec<_>>()),
            "{all:?}"
        );
        assert!(all.contains(&"v3".to_string()) && all.contains(&"exec".to_string()));
        assert_eq!(
            complete(&w, "set con"),
            ["context", "context-sections", "confirm"]
        );
        assert_eq!(complete(&w, "set check "), CHECK_GROUPS);
        assert_eq!(complete(&w, "set check races "), ["on", "off"]);
        assert_eq!(complete(&w, "set check races o"), ["on", "off"]);
        assert_eq!(complete(&w, "set scheduler-locking "), ["on", "off"]);
        assert_eq!(complete(&w, "set context o"), ["on", "off"]);
        assert_eq!(complete(&w, "set conf"), ["confirm"]);
        assert_eq!(complete(&w, "set confirm "), ["on", "off"]);
        assert_eq!(complete(&w, "set confirm of"), ["off"]);
        assert!(complete(&w, "set confirm off ").is_empty());
        assert_eq!(
            complete(&w, "set context-sections code,re"),
            ["reason", "regs"]
        );
        assert!(complete(&w, "set history-size ").is_empty());
        // The value of an assignment is an expression.
        assert!(complete(&w, "set v3 = lo").contains(&"loop".to_string()));
    }

    #[test]
    fn expressions_complete_every_name() {
        let w = words();
        assert_eq!(complete(&w, "print ou"), ["out", "output2"]);
        assert_eq!(complete(&w, "p lo"), ["loop"]);
        assert!(complete(&w, "print v1[la").contains(&"lane".to_string()));
        assert_eq!(
            complete(&w, "expect global:"),
            ["global:out", "global:output2"]
        );
        assert!(complete(&w, "expect scratch:").is_empty());
        assert!(complete(&w, "display/x u1").contains(&"u10".to_string()));
        // A front end's own command takes anything.
        assert!(complete(&w, "quit lo").contains(&"loop".to_string()));
    }

    #[test]
    fn other_arguments() {
        let w = words();
        assert_eq!(complete(&w, "stepi a"), ["all", "alone"]);
        assert_eq!(complete(&w, "help disa"), ["disable", "disassemble"]);
        assert!(complete(&w, "continue ").is_empty());
        assert!(complete(&w, "delete ").is_empty());
        assert!(complete(&w, "last-write v12").contains(&"v12".to_string()));
    }
}
