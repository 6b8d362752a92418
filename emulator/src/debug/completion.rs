//! Completion of command lines, shared by every front end with a line editor (the REPL's
//! Tab, the TUI's command line): command names first (from the command table,
//! [`HELP`], so a new command completes at once), then what each argument takes where it
//! is known (`info` topics after `info`, labels for locations, wave ids after `wave`,
//! settings and their values after `set`...), and inside expressions (`print`, `x`,
//! `display`, `expect`, `set` values, conditions, `watch` addresses) only what an
//! expression holds: registers, buffers, labels and the `global:`/`shared:`/`scratch:`
//! prefixes, the word split at operators and brackets (`p v1+o` completes `o`).
//! [`CASES`] is the table of lines every front end's adapter is tested against.

use super::command::{canonical, info_topic, HELP, INFO_TOPICS};
use super::context::Section;
use super::panes::{FormatTarget, MemoryUnit, NumberFormat, SplitTarget};
use super::Engine;

/// A candidate as it goes on the line once chosen: followed by a space, as in gdb, unless
/// it ends with `:` (a space prefix such as `global:`, whose address follows).
pub fn completed(word: &str) -> String {
    if word.ends_with(':') {
        word.to_string()
    } else {
        format!("{word} ")
    }
}

/// The line after Tab: the word (from byte `start` of `before`) replaced by the only
/// candidate and a space ([`completed`]), or by the candidates' common prefix when there
/// are several (the line as it was when there are none).
pub fn completed_line(before: &str, start: usize, candidates: &[String]) -> String {
    match candidates {
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
            // Never shorter than what was typed.
            let typed = &before[start..];
            if prefix.len() < typed.len() {
                before.to_string()
            } else {
                format!("{}{prefix}", &before[..start])
            }
        }
    }
}

/// Words that complete a command line for one kernel.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Words {
    /// Command names (the first word of a line): the command table's and a front end's own.
    pub commands: Vec<String>,
    /// What an expression can name: the space prefixes, buffers, labels, the named
    /// registers and values (`exec`, `pc`, `lane`, `wave`), `s32` and the v and u registers.
    pub names: Vec<String>,
    /// Labels and the kernel's name (locations: `break`, `until`, `advance`, `list`,
    /// `disassemble`).
    pub labels: Vec<String>,
    /// Global buffer names (`x`, `watch`, expressions).
    pub buffers: Vec<String>,
    /// Resident wave ids (`wave`, the `wave N` filters); [`Words::refresh`] updates them.
    pub waves: Vec<String>,
}

/// What `set` changes besides registers and memory.
pub const SETTINGS: &[&str] = &[
    "scheduler-locking",
    "history-size",
    "check",
    "context",
    "context-sections",
    "confirm",
    "width",
    "format",
    "memory-unit",
    "split",
    "var",
];

/// `set check` groups, from the sanitizer's own list, then `all`.
pub fn check_groups() -> impl Iterator<Item = String> {
    use crate::check::CheckGroup;
    CheckGroup::GROUPS
        .into_iter()
        .chain([CheckGroup::All])
        .map(|g| g.name().to_string())
}

/// Memory spaces as an address prefix.
pub const SPACES: &[&str] = &["global:", "shared:", "scratch:"];

/// Names an expression reads besides registers, buffers and labels (see `expr.rs`): the
/// named registers, the lane and wave numbers and the signed view `s32(x)`.
pub const EXPRESSION_WORDS: &[&str] = &["exec", "pc", "lane", "wave", "s32"];

/// Registers by name as `set` assigns them.
const SPECIAL_REGISTERS: &[&str] = &["exec", "pc"];

/// The filters `break` and `watch` take after the location.
const BREAK_FILTERS: &[&str] = &["if", "wave", "workgroup", "lane"];

/// What separates words inside an expression: spaces, operators and brackets.
fn expression_separator(c: char) -> bool {
    c.is_whitespace() || "[](),=+-*/%<>&^|!~".contains(c)
}

/// What separates the other arguments: spaces and the commas of a list.
fn argument_separator(c: char) -> bool {
    c.is_whitespace() || c == ','
}

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

/// What the word being typed can be.
enum Pool {
    /// These words.
    Words(Vec<String>),
    /// An expression: [`Words::names`].
    Expression,
}

impl Words {
    /// The words for `engine`'s kernel, with a front end's own commands added.
    pub fn of(engine: &Engine, extra_commands: &[&str]) -> Words {
        let mut commands: Vec<String> = HELP.iter().map(|e| e.name.to_string()).collect();
        commands.extend(extra_commands.iter().map(|s| s.to_string()));
        commands.sort();
        commands.dedup();
        let p = engine.machine().program();
        let mut labels: Vec<String> = p.labels.keys().cloned().collect();
        labels.sort();
        let buffers: Vec<String> = p.buffers.iter().map(|b| b.name.clone()).collect();
        let mut names: Vec<String> = strings(SPACES).collect();
        names.extend(buffers.iter().cloned());
        names.extend(labels.iter().cloned());
        names.extend(strings(EXPRESSION_WORDS));
        names.extend(registers());
        // The kernel's name is a location (its entry), as gdb's `break main`.
        if !p.name.is_empty() && !labels.contains(&p.name) {
            labels.push(p.name.clone());
            labels.sort();
        }
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

    /// What the argument after `done` (the whole words before it) of `command` can be.
    fn pool(&self, command: &str, args: &str, done: &[&str]) -> Pool {
        let words = |v: Vec<String>| Pool::Words(v);
        let none = || Pool::Words(Vec::new());
        // Inside brackets or after `=`, an expression is being written.
        let open = |a: char, b: char| args.matches(a).count() > args.matches(b).count();
        if open('[', ']') || open('(', ')') {
            return Pool::Expression;
        }
        let Some(name) = canonical(command) else {
            // A front end's own command (the TUI's `lanes v1`, `mem global out`): the
            // words of expressions and the spaces by name.
            return words(
                self.names
                    .iter()
                    .cloned()
                    .chain(strings(&["global", "shared", "scratch"]))
                    .collect(),
            );
        };
        let filters = |done: &[&str]| match done.last().copied() {
            Some("wave") => words(self.waves.clone()),
            Some("lane") => words(lanes().collect()),
            Some("workgroup" | "wg") => words(vec!["all".to_string()]),
            _ if done.contains(&"if") => Pool::Expression,
            _ => words(strings(BREAK_FILTERS).collect()),
        };
        match name {
            "print" | "display" | "expect" | "x" => Pool::Expression,
            "condition" => match done {
                [] => none(),
                _ => Pool::Expression,
            },
            "info" => match done {
                // The parser's own table, so every topic it takes is offered.
                [] => words(INFO_TOPICS.iter().map(|t| t.name.to_string()).collect()),
                [topic] if info_topic(topic).is_some_and(|t| t.name == "registers") => {
                    words(registers().chain(strings(SPECIAL_REGISTERS)).collect())
                }
                _ => none(),
            },
            "break" | "tbreak" => match done {
                [] => words(self.labels.clone()),
                [_, rest @ ..] => filters(rest),
            },
            "advance" => match done {
                [] => words(
                    self.labels
                        .iter()
                        .cloned()
                        .chain(strings(&["barrier"]))
                        .collect(),
                ),
                _ => none(),
            },
            "list" | "disassemble" | "until" => match done {
                [] => words(self.labels.clone()),
                _ => none(),
            },
            "watch" | "rwatch" | "awatch" => match done {
                [] => Pool::Expression,
                [_] => none(),
                [_, rest @ ..] => filters(rest),
            },
            "last-write" => match done {
                [] => words(
                    strings(SPACES)
                        .chain(self.buffers.iter().cloned())
                        .chain(registers())
                        .chain(std::iter::once("exec".to_string()))
                        .collect(),
                ),
                _ => none(),
            },
            "wave" => match done {
                [] => words(self.waves.clone()),
                _ => none(),
            },
            "lane" => match done {
                [] => words(lanes().collect()),
                _ => none(),
            },
            "finding" => match done {
                [_] => words(strings(&["first", "second"]).collect()),
                _ => none(),
            },
            "stepi" => match done {
                [] => words(strings(&["all", "alone"]).collect()),
                _ => none(),
            },
            "help" => match done {
                [] => words(self.commands.clone()),
                _ => none(),
            },
            "set" if args.contains('=') => Pool::Expression,
            "set" => match done {
                [] => words(
                    strings(SETTINGS)
                        .chain(strings(SPECIAL_REGISTERS))
                        .chain(registers())
                        .chain(strings(SPACES))
                        .collect(),
                ),
                ["var", ..] => Pool::Expression,
                ["check"] => words(check_groups().collect()),
                ["format"] => words(
                    FormatTarget::ALL
                        .iter()
                        .map(|t| t.word().to_string())
                        .collect(),
                ),
                ["format", _] => words(
                    NumberFormat::ALL
                        .iter()
                        .map(|f| f.word().to_string())
                        .collect(),
                ),
                ["memory-unit"] => words(
                    MemoryUnit::ALL
                        .iter()
                        .map(|u| u.word().to_string())
                        .collect(),
                ),
                ["split"] => words(
                    SplitTarget::ALL
                        .iter()
                        .map(|t| t.word().to_string())
                        .collect(),
                ),
                ["split", _] => words(strings(&["default"]).collect()),
                ["check", _] | ["scheduler-locking"] | ["context"] | ["confirm"] => {
                    words(strings(&["on", "off"]).collect())
                }
                ["width"] => words(strings(&["unlimited"]).collect()),
                ["context-sections", ..] => words(
                    Section::ALL
                        .iter()
                        .map(|s| s.name().to_string())
                        .chain(["all".to_string()])
                        .collect(),
                ),
                // A register or memory target before its `=`, or a setting's end.
                _ => none(),
            },
            // Numbers, file names, or nothing at all.
            _ => none(),
        }
    }

    /// Whether the word ending at the end of `before` is inside an expression (where an
    /// empty word could be any of hundreds of names, so a front end lists none).
    pub fn in_expression(&self, before: &str) -> bool {
        self.locate(before).2
    }

    /// (where the word starts, the pool, whether it is an expression's).
    fn locate(&self, before: &str) -> (usize, Vec<String>, bool) {
        let lead = before.len() - before.trim_start().len();
        let line = &before[lead..];
        let Some((head_end, _)) = line.char_indices().find(|&(_, c)| c.is_whitespace()) else {
            return (lead, self.commands.clone(), false);
        };
        let command = line[..head_end].split('/').next().unwrap_or_default();
        let args_at = lead + head_end;
        let args = &before[args_at..];
        // The whole words before the one being typed, to decide the argument's pool.
        let last_space = args
            .char_indices()
            .rfind(|&(_, c)| argument_separator(c))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let done: Vec<&str> = args[..last_space]
            .split(argument_separator)
            .filter(|t| !t.is_empty())
            .collect();
        let (pool, expression) = match self.pool(command, args, &done) {
            Pool::Words(v) => (v, false),
            Pool::Expression => (self.names.clone(), true),
        };
        let separator = if expression {
            expression_separator
        } else {
            argument_separator
        };
        let start = args
            .char_indices()
            .rfind(|&(_, c)| separator(c))
            .map_or(0, |(i, c)| i + c.len_utf8());
        (args_at + start, pool, expression)
    }

    /// Completes the word ending at the end of `before` (the text before the cursor):
    /// where that word starts, and every word it can become, in order.
    pub fn candidates(&self, before: &str) -> (usize, Vec<String>) {
        let (start, pool, expression) = self.locate(before);
        let word = &before[start..];
        // `global:NAME`: the space stays, a buffer name completes.
        if let Some((space, rest)) = word.split_once(':') {
            let prefix = format!("{space}:");
            if SPACES.contains(&prefix.as_str()) && (expression || pool.contains(&prefix)) {
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
        (start, matching(&pool, word))
    }

    /// [`Words::candidates`] and the line as Tab leaves it ([`completed_line`]).
    pub fn complete(&self, before: &str) -> (Vec<String>, String) {
        let (start, c) = self.candidates(before);
        let line = completed_line(before, start, &c);
        (c, line)
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

/// The kernel [`CASES`] complete against: buffers `out` and `output2`, labels `loop` and
/// `later`, two waves.
pub const CASES_KERNEL: &str = "
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

/// What a line completes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Exactly these candidates, in this order.
    Candidates(&'static [&'static str]),
    /// Candidates that include these and none of the `not` words.
    Includes(&'static [&'static str], &'static [&'static str]),
    /// The line after Tab (a single candidate, or the common prefix).
    Line(&'static str),
}

/// One table of completion cases, for [`CASES_KERNEL`] with no front end command: the
/// engine's tests, the REPL's rustyline adapter and the TUI's command line all run it.
pub const CASES: &[(&str, Expect)] = &[
    // Command names, from the command table.
    ("disa", Expect::Candidates(&["disable", "disassemble"])),
    ("br", Expect::Line("break ")),
    (
        "  con",
        Expect::Candidates(&["condition", "context", "continue"]),
    ),
    ("zz", Expect::Candidates(&[])),
    // Settings and their values.
    (
        "set check ",
        Expect::Candidates(&["races", "sync", "init", "hazards", "xlane", "all"]),
    ),
    ("set check races ", Expect::Candidates(&["on", "off"])),
    ("set check races o", Expect::Candidates(&["on", "off"])),
    ("set scheduler-locking ", Expect::Candidates(&["on", "off"])),
    ("set scheduler-lo", Expect::Line("set scheduler-locking ")),
    (
        "set con",
        Expect::Candidates(&["context", "context-sections", "confirm"]),
    ),
    ("set confirm of", Expect::Line("set confirm off ")),
    ("set confirm off ", Expect::Candidates(&[])),
    (
        "set context-sections code,re",
        Expect::Candidates(&["reason", "regs"]),
    ),
    ("set width ", Expect::Candidates(&["unlimited"])),
    ("set history-size ", Expect::Candidates(&[])),
    (
        "set ",
        Expect::Includes(&["check", "width", "var", "v3", "exec", "global:"], &["on"]),
    ),
    // `info` topics.
    ("info b", Expect::Candidates(&["breakpoints", "buffers"])),
    (
        "i l",
        Expect::Candidates(&["lanes", "labels", "line", "locals"]),
    ),
    ("info so", Expect::Line("info source ")),
    (
        "reverse-s",
        Expect::Candidates(&["reverse-step", "reverse-stepi"]),
    ),
    ("reverse-n", Expect::Line("reverse-next ")),
    ("info v", Expect::Candidates(&[])),
    // Locations are labels and the kernel's name; waves and lanes are numbers.
    ("break ", Expect::Candidates(&["k", "later", "loop"])),
    ("until l", Expect::Candidates(&["later", "loop"])),
    ("b lo", Expect::Line("b loop ")),
    ("break o", Expect::Candidates(&[])),
    ("advance b", Expect::Candidates(&["barrier"])),
    ("break loop w", Expect::Candidates(&["wave", "workgroup"])),
    ("break loop wave ", Expect::Candidates(&["0", "1"])),
    ("wave ", Expect::Candidates(&["0", "1"])),
    ("thread ", Expect::Candidates(&["0", "1"])),
    ("stepi a", Expect::Candidates(&["all", "alone"])),
    ("help disa", Expect::Candidates(&["disable", "disassemble"])),
    ("continue ", Expect::Candidates(&[])),
    // Expressions: registers, buffers, labels, the space prefixes; no settings words.
    ("p v1 + o", Expect::Candidates(&["out", "output2"])),
    ("p v1+o", Expect::Candidates(&["out", "output2"])),
    ("p v1+ou", Expect::Line("p v1+out")),
    (
        "print (v12",
        Expect::Includes(&["v12", "v120", "v127"], &["u12"]),
    ),
    ("p (v1", Expect::Includes(&["v1", "v10"], &[])),
    ("p lo", Expect::Candidates(&["loop"])),
    ("p e", Expect::Candidates(&["exec"])),
    ("p v1[la", Expect::Candidates(&["later", "lane"])),
    ("p s3", Expect::Candidates(&["s32"])),
    (
        "p/x u6",
        Expect::Candidates(&["u6", "u60", "u61", "u62", "u63"]),
    ),
    (
        "print global:o",
        Expect::Candidates(&["global:out", "global:output2"]),
    ),
    ("print scratch:", Expect::Candidates(&[])),
    ("p g", Expect::Line("p global:")),
    ("p o", Expect::Candidates(&["out", "output2"])),
    ("p on", Expect::Candidates(&[])),
    ("x/4xw ou", Expect::Candidates(&["out", "output2"])),
    ("x/4xw sh", Expect::Line("x/4xw shared:")),
    (
        "x/4xw global:(out+o",
        Expect::Candidates(&["out", "output2"]),
    ),
    ("display/x u1", Expect::Includes(&["u1", "u10"], &[])),
    (
        "expect global:",
        Expect::Candidates(&["global:out", "global:output2"]),
    ),
    ("set v3 = lo", Expect::Candidates(&["loop"])),
    ("set v3 = v1*o", Expect::Candidates(&["out", "output2"])),
    (
        "set var u",
        Expect::Includes(&["u0", "u63"], &["unlimited"]),
    ),
    ("set v1[la", Expect::Candidates(&["later", "lane"])),
    (
        "break loop if v1 > o",
        Expect::Candidates(&["out", "output2"]),
    ),
    ("break loop if w", Expect::Candidates(&["wave"])),
    ("condition 1 v1==o", Expect::Candidates(&["out", "output2"])),
    ("condition ", Expect::Candidates(&[])),
    ("watch ou", Expect::Candidates(&["out", "output2"])),
    ("watch out+o", Expect::Candidates(&["out", "output2"])),
    ("watch sh", Expect::Candidates(&["shared:"])),
    (
        "watch out 4 ",
        Expect::Candidates(&["if", "wave", "workgroup", "lane"]),
    ),
    ("watch shared:0 4 workgroup ", Expect::Candidates(&["all"])),
    ("watch out 4 if la", Expect::Candidates(&["later", "lane"])),
    (
        "info registers v12",
        Expect::Includes(&["v12", "v127"], &[]),
    ),
    ("last-write v12", Expect::Includes(&["v12"], &[])),
    ("fin", Expect::Candidates(&["finding", "finish"])),
    ("finding 2 ", Expect::Candidates(&["first", "second"])),
    ("finding 2 s", Expect::Line("finding 2 second ")),
];

/// Checks `candidates` and `line` (what a front end made of `before`) against the case's
/// expectation; the error says what differs.
pub fn check_case(
    before: &str,
    expect: Expect,
    candidates: &[String],
    line: &str,
) -> Result<(), String> {
    let ok = match expect {
        Expect::Candidates(want) => candidates == want,
        Expect::Includes(want, not) => {
            want.iter().all(|w| candidates.iter().any(|c| c == w))
                && !not.iter().any(|w| candidates.iter().any(|c| c == w))
        }
        Expect::Line(want) => line == want,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{before}`: expected {expect:?}, got candidates {candidates:?} and line {line:?}"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::LaunchOptions;

    fn words(extra: &[&str]) -> Words {
        let p = crate::asm::assemble(CASES_KERNEL, "k.s", None).expect("assembles");
        let e = Engine::new(&p, LaunchOptions::default()).expect("launch");
        Words::of(&e, extra)
    }

    #[test]
    fn a_completed_word_is_followed_by_a_space_unless_a_space_prefix() {
        assert_eq!(completed("continue"), "continue ");
        assert_eq!(completed("global:"), "global:");
        let c = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(completed_line("p ou", 2, &c(&["out", "output2"])), "p out");
        assert_eq!(completed_line("p ou", 2, &c(&[])), "p ou");
        assert_eq!(completed_line("p ou", 2, &c(&["out"])), "p out ");
    }

    #[test]
    fn every_case_of_the_table() {
        let w = words(&[]);
        let failures: Vec<String> = CASES
            .iter()
            .filter_map(|(line, expect)| {
                let (c, after) = w.complete(line);
                check_case(line, *expect, &c, &after).err()
            })
            .collect();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn every_info_topic_the_parser_takes_is_completed() {
        let w = words(&[]);
        let offered = w.candidates("info ").1;
        let usage = HELP
            .iter()
            .find(|e| e.name == "info")
            .map_or("", |e| e.usage);
        for t in INFO_TOPICS {
            for word in std::iter::once(&t.name).chain(t.aliases) {
                let parsed = super::super::command::parse(&format!("info {word}"));
                assert!(parsed.is_ok(), "info {word}: {parsed:?}");
            }
            assert!(
                offered.contains(&t.name.to_string()),
                "{}: {offered:?}",
                t.name
            );
            assert!(
                usage
                    .split(['|', ' '])
                    .any(|u| u == t.name || u == format!("info {}", t.name)),
                "{} in `{usage}`",
                t.name
            );
        }
        assert_eq!(offered.len(), INFO_TOPICS.len());
        assert!(super::super::command::parse("info nonsense").is_err());
        assert!(w.candidates("info reg v").1.contains(&"v1".to_string()));
    }

    #[test]
    fn command_names_come_from_the_command_table() {
        let w = words(&["quit"]);
        for e in HELP {
            assert!(
                w.candidates(e.name).1.contains(&e.name.to_string()),
                "{}",
                e.name
            );
        }
        assert_eq!(w.candidates("qu").1, ["quit"]);
        assert_eq!(w.candidates("  con").0, 2);
        // A front end's own command takes expression words and the spaces by name.
        assert!(w.candidates("quit lo").1.contains(&"loop".to_string()));
        assert!(w.candidates("mem g").1.contains(&"global".to_string()));
    }

    #[test]
    fn words_start_after_operators_only_inside_expressions() {
        let w = words(&[]);
        assert_eq!(w.candidates("p v1+o").0, "p v1+".len());
        assert_eq!(w.candidates("set scheduler-lo").0, "set ".len());
        assert_eq!(w.candidates("help reverse-s").0, "help ".len());
        assert_eq!(
            w.candidates("set context-sections code,re").0,
            "set context-sections code,".len()
        );
        assert!(w.in_expression("p v1 + "));
        assert!(w.in_expression("set v1 = "));
        assert!(!w.in_expression("set check "));
        assert!(!w.in_expression("break "));
        let mut w = w;
        w.waves = vec!["4".into(), "5".into()];
        assert_eq!(w.candidates("wave ").1, ["4", "5"]);
        assert_eq!(w.candidates("lane ").1.len(), 32);
    }
}
