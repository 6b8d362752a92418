//! The command table: one [`HelpEntry`] per command, which drives `help`, completion,
//! the parser's names and aliases, and docs/commands.md ([`markdown`]).

use super::error::CommandError;
use super::ParseError;

/// One command of the language: how it is named, written and described.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HelpEntry {
    /// The canonical name, the one `Display` prints and errors cite.
    pub name: &'static str,
    /// Other words that name it (`b` for `break`), as gdb accepts them.
    pub aliases: &'static [&'static str],
    /// Its arguments, the line an error shows after `usage:`.
    pub usage: &'static str,
    /// What it does; the text before the first `;` is the one-line summary of `help`.
    pub about: &'static str,
}

impl HelpEntry {
    /// Whether `word` is its name or one of its aliases.
    pub fn is_named(&self, word: &str) -> bool {
        self.name == word || self.aliases.contains(&word)
    }
}

/// Every command, in the order `help` lists them.
pub const HELP: &[HelpEntry] = &[
    HelpEntry {
        name: "break",
        aliases: &["b", "br"],
        usage: "break LOCATION [if EXPR] [wave N] [workgroup N] [lane N]",
        about: "set a breakpoint at a label, label+OFFSET, address or source line FILE:LINE; the condition is evaluated per active lane and stops when any lane satisfies it; `wave N` and `workgroup N` name a wave or workgroup of the launch (one not dispatched yet is fine, one outside the launch is refused, as gdb refuses an unknown thread)",
    },
    HelpEntry {
        name: "tbreak",
        aliases: &[],
        usage: "tbreak LOCATION [if EXPR] [wave N] [workgroup N] [lane N]",
        about: "set a temporary breakpoint (deleted when hit)",
    },
    HelpEntry {
        name: "delete",
        aliases: &["d"],
        usage: "delete [breakpoints] [N|N-M ...]",
        about: "delete the breakpoints and watchpoints listed by number or range (all without one)",
    },
    HelpEntry {
        name: "disable",
        aliases: &[],
        usage: "disable [breakpoints] [N|N-M ...]",
        about: "disable the breakpoints and watchpoints listed by number or range (all without one)",
    },
    HelpEntry {
        name: "enable",
        aliases: &[],
        usage: "enable [breakpoints] [N|N-M ...]",
        about: "enable the breakpoints and watchpoints listed by number or range (all without one)",
    },
    HelpEntry {
        name: "ignore",
        aliases: &[],
        usage: "ignore N COUNT",
        about: "ignore the next COUNT hits of breakpoint N",
    },
    HelpEntry {
        name: "condition",
        aliases: &[],
        usage: "condition N [EXPR]",
        about: "set (or remove) the condition of breakpoint or watchpoint N",
    },
    HelpEntry {
        name: "watch",
        aliases: &[],
        usage: "watch [SPACE:]ADDR [LEN] [if EXPR] [workgroup N|all] [wave N] [lane N]",
        about: "stop after any instruction that writes the range (atomics count); SPACE is global (default), shared (the selected wave's workgroup unless `workgroup` is given) or scratch (the selected lane unless `wave`/`lane` are given)",
    },
    HelpEntry {
        name: "rwatch",
        aliases: &[],
        usage: "rwatch [SPACE:]ADDR [LEN] [if EXPR] [workgroup N|all] [wave N] [lane N]",
        about: "stop after any instruction that reads the range (atomics count)",
    },
    HelpEntry {
        name: "awatch",
        aliases: &[],
        usage: "awatch [SPACE:]ADDR [LEN] [if EXPR] [workgroup N|all] [wave N] [lane N]",
        about: "stop after any instruction that reads or writes the range",
    },
    HelpEntry {
        name: "continue",
        aliases: &["c", "cont"],
        usage: "continue",
        about: "run all waves until a breakpoint, watchpoint, fault, deadlock, interrupt or the end",
    },
    HelpEntry {
        name: "stepi",
        aliases: &["si", "nexti", "ni"],
        usage: "stepi [all|alone] [N]",
        about: "execute N instructions (default 1) of the selected wave, others frozen; with scheduler-locking off, or with `all`, every ready wave advances one instruction per step; `alone` steps the selected wave alone whatever the setting; `nexti` is the same, a wave having no calls to step over",
    },
    HelpEntry {
        name: "step",
        aliases: &["s"],
        usage: "step [N]",
        about: "step N source lines (default 1) of the selected wave, as gdb's `step`: where the kernel has a line table (`.loc`, docs/source-level.md), until the wave reaches the first instruction of a statement of another line; without one, N instructions as `stepi N`",
    },
    HelpEntry {
        name: "next",
        aliases: &["n"],
        usage: "next [N]",
        about: "as `step` (a wave has no calls to step over): N source lines of the selected wave, or without a line table N instructions",
    },
    HelpEntry {
        name: "reverse-stepi",
        aliases: &["rsi", "reverse-nexti", "rni"],
        usage: "reverse-stepi [N]",
        about: "run the selected wave N instructions (default 1) backwards: the whole machine as it was right before that instruction; at the start of the history, as far back as it goes; `reverse-nexti` (`rni`) is the same, as `nexti` is `stepi`",
    },
    HelpEntry {
        name: "reverse-step",
        aliases: &["rs"],
        usage: "reverse-step [N]",
        about: "run the selected wave N source lines (default 1) backwards in the recorded history, to the first instruction of the statement before; without a line table, as `reverse-stepi N`",
    },
    HelpEntry {
        name: "reverse-next",
        aliases: &["rn"],
        usage: "reverse-next [N]",
        about: "as `reverse-step` (a wave has no calls to step over)",
    },
    HelpEntry {
        name: "reverse-finish",
        aliases: &[],
        usage: "reverse-finish",
        about: "run the selected wave backwards to right before its first instruction, as gdb's `reverse-finish` goes back to where the current function was called (a wave has no calls: its one frame began at the kernel's entry, and `finish` runs it to its exit); if the record starts later, as far back as it goes",
    },
    HelpEntry {
        name: "reverse-continue",
        aliases: &["rc"],
        usage: "reverse-continue",
        about: "run backwards to the previous point where a breakpoint or watchpoint stops (a watchpoint: right before the instruction that made the access, with the values it found and left), or where `continue` stopped for a `brk` or a fault (right after it, as the forward stop left the machine, with the same reason), or to the start of the history",
    },
    HelpEntry {
        name: "last-write",
        aliases: &[],
        usage: "last-write [SPACE:]ADDR [LEN] | last-write vN[L] | last-write uN | last-write exec | last-write VAR",
        about: "name the last write before now of memory, a vector register (one lane or any), a uniform register or EXEC (`exec.set`, `exec.and.save`, `exec.andn.save`: who last changed the lanes that run) of the selected wave, or a source variable live at its PC (`.var`: its register in the selected lane, or its memory; a register pair is asked one register at a time), whether or not it changed the value (a register is written in the lanes active in EXEC): the wave, lanes, PC, instruction count and the values before and after, \"(value unchanged)\" when equal; memory that does not exist (unallocated, outside its window) is an error, as for `x`; `pc`, `lane` and `wave` are refused by name (every instruction moves `pc`: `reverse-stepi`); Ctrl-C interrupts the search; repeat it to walk further back, past the oldest write saying again that there is none (the machine stays where it is; `goto` the count to see it)",
    },
    HelpEntry {
        name: "goto",
        aliases: &[],
        usage: "goto N",
        about: "put the whole machine where it was when the launch had executed N instructions (the count every stop shows), back or forward within the recorded history; past its newest point every wave runs forward from there as `continue` runs them, to count N (a breakpoint, watchpoint or the end stops it first)",
    },
    HelpEntry {
        name: "finding",
        aliases: &[],
        usage: "finding N [first|second]",
        about: "go back (or forward) in time to sanitizer finding N (numbered as `info findings` lists them): right before the instruction of its first side, its wave selected and its lanes named; `finding N` again there (or Enter) goes on to the second side (the other access of a race, the load that issued, the barrier skipped; for a read of inactive lanes, the last write of the values read); `first` or `second` picks a side",
    },
    HelpEntry {
        name: "advance",
        aliases: &[],
        usage: "advance LOCATION | advance barrier",
        about: "continue until the selected wave reaches LOCATION or exits; if it exits first it stops there, as gdb's `advance` stops when the frame returns (a wave that has exited cannot advance); `advance barrier` runs the selected wave to its next barrier (alone, or with scheduler-locking off with every ready wave, so a barrier it waits at releases)",
    },
    HelpEntry {
        name: "until",
        aliases: &["u"],
        usage: "until [LOCATION]",
        about: "without LOCATION, as `next`, but never stopping at a line before the current PC (out of a loop that jumps back), as gdb's `until`; without a line table, until the PC passes the current one; with LOCATION, as `advance LOCATION`",
    },
    HelpEntry {
        name: "finish",
        aliases: &[],
        usage: "finish",
        about: "run the selected wave until it exits (a wave has no calls to return from): alone, or with scheduler-locking off with every ready wave, so a barrier it waits at releases",
    },
    HelpEntry {
        name: "interrupt",
        aliases: &[],
        usage: "interrupt",
        about: "stop a run in progress (Ctrl-C does the same)",
    },
    HelpEntry {
        name: "restart",
        aliases: &[],
        usage: "restart",
        about: "restart the launch from the beginning and run nothing, keeping breakpoints and watchpoints; the recorded history goes, so once something has run the REPL (in a terminal) and the TUI ask first, as gdb's `run` does (`set confirm off`: they do not)",
    },
    HelpEntry {
        name: "run",
        aliases: &["r"],
        usage: "run",
        about: "restart the launch and run all waves until something stops them, as gdb's `run`; a breakpoint, watchpoint, fault, deadlock, interrupt or the end stops them; once something has run it asks first, as `restart` does",
    },
    HelpEntry {
        name: "start",
        aliases: &[],
        usage: "start",
        about: "restart the launch and stop at its first instruction, as gdb's `start`; asks first as `run` does",
    },
    HelpEntry {
        name: "backtrace",
        aliases: &["bt", "where"],
        usage: "backtrace",
        about: "show the selected wave's one frame, gdb style; the PC with the label it is in and its source line (this GPU has no call stack), and the wave and lane it is for",
    },
    HelpEntry {
        name: "frame",
        aliases: &["f"],
        usage: "frame [0]",
        about: "describe frame 0, the only one; a wave has no caller frames",
    },
    HelpEntry {
        name: "up",
        aliases: &[],
        usage: "up [N]",
        about: "refused as gdb refuses it at the outermost frame; a wave has no caller frame to go up to",
    },
    HelpEntry {
        name: "down",
        aliases: &[],
        usage: "down [N]",
        about: "refused as gdb refuses it at the innermost frame; there is no frame to go down to",
    },
    HelpEntry {
        name: "wave",
        aliases: &["thread"],
        usage: "wave [N]",
        about: "select wave N (global wave id); alone, show the selected wave",
    },
    HelpEntry {
        name: "lane",
        aliases: &[],
        usage: "lane N",
        about: "select lane N (0-31)",
    },
    HelpEntry {
        name: "info",
        aliases: &["i"],
        usage: "info waves|threads|lanes [/F] [REG...]|registers [REG]|frame|breakpoints|watchpoints|changes|display|history|findings|buffers|labels|line [LOCATION]|source|locals",
        about: "show waves (`threads`, as gdb names them), the selected wave's lanes (each lane's state: active, inactive or exited, `*` the selected one, `B`/`W` the lanes of the last breakpoint or watchpoint stop of this wave, and a column per listed register vN, uN or exec, in format /x /d /u or /f), registers (all, or one v register across lanes), the frame as gdb's `info frame`, breakpoints and watchpoints (by number), watchpoints, what changed since the previous stop, the time-travel record, the sanitizer's findings, the global buffers (name, address, size, the `.arg` registers holding it), the labels (name, address, source line), the code of a source line (`info line FILE:LINE`, `info line *ADDR`, or the selected wave's line) the current source file and the kernel's line table (`info source`), or the source variables (`.var`) live at the selected wave's PC with their values in their types, a per-lane one the selected lane's (`info locals`)",
    },
    HelpEntry {
        name: "print",
        aliases: &["p"],
        usage: "print[/x|/d|/u|/f|/t|/c] EXPR",
        about: "evaluate an expression: registers v3, v3[5], u2, exec, pc, lane, wave; memory global:ADDR, shared:ADDR, scratch:ADDR (a u32); buffer names (the base address) and labels; numbers; C operators; s32(x) reads x as signed. A bare vector register shows all 32 lanes",
    },
    HelpEntry {
        name: "x",
        aliases: &[],
        usage: "x/NFS [SPACE:]ADDR | x/Ni ADDR",
        about: "examine memory: N units, format F (x d u t f c), size S (b h w g); SPACE global (default), shared (the selected wave's workgroup) or scratch (the selected lane); ADDR is an expression, so `x/4xw out+16` reads buffer `out` from byte 16. `x/Ni ADDR` lists N instructions from the one at ADDR, as gdb's (`x/5i pc`; `=>` marks the selected wave's PC). Enter goes on from where it ended",
    },
    HelpEntry {
        name: "set",
        aliases: &[],
        usage: "set REG = VALUE | set vN[L] = VALUE | set SPACE:ADDR = VALUE | set scheduler-locking on|off | set history-size MIB | set check races|sync|init|hazards|xlane|all [on|off] | set context [on|off] | set context-sections SECTION,...|all | set confirm [on|off] | set format lanes|registers|memory hex|unsigned|signed|f32 | set memory-unit bytes|words | set split left|source|console|lanes PERCENT|default | set width N|unlimited",
        about: "change a register (vN sets every lane), one lane, a u32 in memory, or a setting; `set check` turns sanitizer detectors on or off (a finding stops the run; see docs/sanitizer.md); as in gdb, a setting's `on` may be left out (or written 1, yes, enable; `off` as 0, no, disable); `set context on` shows the context after every stop (on by default in the REPL) and `set context-sections` chooses its sections, in order, from reason, code, source, regs, lanes, exec; `set history-size MIB` bounds time travel's snapshot memory (default 256, at least 1; 0 and unlimited, gdb's no bound, are refused); `set confirm off` lets `restart` and `load` throw the recorded history away without asking first (on by default, as in gdb); `set width N` fits output to N columns (0 or unlimited: no limit, the default; the REPL on a terminal follows the terminal's width until `set width` is used); `set format` chooses how the TUI's lane grid, Registers pane or Memory pane writes values and `set memory-unit` whether the Memory pane shows bytes or 32-bit words (the TUI's keys send these; a saved session keeps them); `set split` gives the TUI's left column, the source above the disassembly, the console or the lane grid that share of its column, 10-90 percent (`default`: the TUI's own; the keys `+`, `-`, `<`, `>` send it)",
    },
    HelpEntry {
        name: "why",
        aliases: &[],
        usage: "why",
        about: "explain the last stop again (for a sanitizer finding: both sides, with source lines)",
    },
    HelpEntry {
        name: "disassemble",
        aliases: &["disas"],
        usage: "disassemble [LOCATION]",
        about: "disassemble around LOCATION (default: the selected wave's PC); `=>` marks the PC, `B` breakpoints",
    },
    HelpEntry {
        name: "list",
        aliases: &["l"],
        usage: "list [LINE | LOCATION | FILE:LINE | FIRST,LAST | FIRST, | ,LAST | -]",
        about: "show 10 lines of the kernel's source: around the selected wave's PC, then the next 10 at each `list` (or Enter); around LINE, or the line of a label or address; FIRST,LAST the lines between (each a line or location), FIRST, the 10 from FIRST, ,LAST the 10 ending at LAST; `-` the 10 before the last shown; `=>` marks the line of the PC, `B` lines with a breakpoint (needs the kernel opened from its .s file)",
    },
    HelpEntry {
        name: "context",
        aliases: &["ctx"],
        usage: "context",
        about: "show the context now, as pwndbg does: the stop reason, the code around the PC, the source lines, the registers changed since the previous stop, the lanes of the registers the instruction at the PC reads and writes, and EXEC on a lane scale (`set context-sections` chooses)",
    },
    HelpEntry {
        name: "expect",
        aliases: &[],
        usage: "expect EXPR OP VALUE",
        about: "assert EXPR OP VALUE (OP: == != < <= > >=); fails loudly with both values (for scripts)",
    },
    HelpEntry {
        name: "display",
        aliases: &[],
        usage: "display [/F] EXPR",
        about: "show EXPR after every stop (a bare vector register shows all lanes; `display/i pc` the instruction at an address, as gdb's `display/i $pc`); without EXPR, show the displays now",
    },
    HelpEntry {
        name: "undisplay",
        aliases: &[],
        usage: "undisplay [N|N-M ...]",
        about: "remove the displays listed by number or range (all without one)",
    },
    HelpEntry {
        name: "save",
        aliases: &[],
        usage: "save FILE",
        about: "save the session (kernel, launch settings, breakpoints, watchpoints, displays, selection, command log) as RON, atomically",
    },
    HelpEntry {
        name: "load",
        aliases: &[],
        usage: "load FILE",
        about: "load a saved session for this kernel: relaunch with its settings and restore its breakpoints, watchpoints, displays and selection; the recorded history goes, so once something has run the REPL (in a terminal) and the TUI ask first, as for `restart`",
    },
    HelpEntry {
        name: "help",
        aliases: &["h"],
        usage: "help [COMMAND]",
        about: "list commands, or describe one",
    },
];

/// `quit`: ended by the front end that has a session to end (the REPL, the TUI), before
/// any parsing ([`crate::debug::driver::QUIT_WORDS`]); described by `help` beside the
/// commands, though no [`super::Command`] stands for it.
pub const QUIT: HelpEntry = HelpEntry {
    name: "quit",
    aliases: &["q", "exit"],
    usage: "quit",
    about: "end the session (the REPL, the TUI); a replayed script ends at its last line, and the GDB server's `monitor` and the DAP console have no session of their own to end",
};

/// Every entry `help` describes: the commands, then `quit`.
fn entries() -> impl Iterator<Item = &'static HelpEntry> {
    HELP.iter().chain(std::iter::once(&QUIT))
}

/// The canonical name of a command or alias.
pub fn canonical(word: &str) -> Option<&'static str> {
    HELP.iter().find(|e| e.is_named(word)).map(|e| e.name)
}

/// The canonical name of what `help WORD` describes: a command or alias, or `quit` and
/// its aliases.
pub fn help_topic(word: &str) -> Option<&'static str> {
    entries().find(|e| e.is_named(word)).map(|e| e.name)
}

/// The refusal of a help topic that names no command: when its first words name one
/// (`why extra`, `info lanes now`), it names the words that follow as the unknown part.
pub(super) fn unknown_topic(topic: &str) -> ParseError {
    let words: Vec<&str> = topic.split_whitespace().collect();
    (1..words.len())
        .rev()
        .map(|n| (words[..n].join(" "), n))
        .find(|(known, _)| help_topic(known).is_some())
        .map_or_else(
            || ParseError::unknown_topic(topic),
            |(known, n)| ParseError::unknown_subtopic(&known, &words[n..].join(" ")),
        )
}

/// The usage line of a command, by canonical name.
pub fn usage(name: &str) -> Option<&'static str> {
    HELP.iter().find(|e| e.name == name).map(|e| e.usage)
}

/// The help text: every command with its summary, or one command in full; fitted to
/// `width` columns (0: unlimited), wrapped at words with its indentation (a summary goes
/// on under itself, a description under its first word).
pub fn help(topic: Option<&str>, width: usize) -> Result<String, CommandError> {
    use crate::debug::width::wrap;
    let Some(t) = topic else {
        let mut s = String::from("Commands (`help COMMAND` for details):\n");
        // The summaries start in column 25; a narrow screen indents them less.
        let indent = if width == 0 || width >= 50 { 25 } else { 6 };
        for e in entries() {
            let short = e.about.split(';').next().unwrap_or(e.about);
            let a = if e.aliases.is_empty() {
                String::new()
            } else {
                format!(" ({})", e.aliases.join(", "))
            };
            let line = format!("  {:<22} {short}", format!("{}{a}", e.name));
            for l in wrap(&line, width, indent) {
                s.push_str(&l);
                s.push('\n');
            }
        }
        return Ok(s);
    };
    let e = entries()
        .find(|e| e.is_named(t.trim()))
        .ok_or_else(|| unknown_topic(t))?;
    let mut lines = wrap(e.usage, width, 2);
    lines.extend(wrap(&format!("{}: {}", e.name, e.about), width, 2));
    if !e.aliases.is_empty() {
        lines.extend(wrap(
            &format!("aliases: {}", e.aliases.join(", ")),
            width,
            2,
        ));
    }
    Ok(lines.join("\n") + "\n")
}

/// docs/commands.md: the guide text plus the reference generated from [`HELP`] (a test
/// keeps the committed file up to date).
pub fn markdown() -> String {
    let mut s = String::from(COMMANDS_GUIDE);
    s.push_str(
        "\n## Reference\n\n| command | aliases | usage | what it does |\n|---|---|---|---|\n",
    );
    for e in entries() {
        let aliases = if e.aliases.is_empty() {
            "-".to_string()
        } else {
            e.aliases
                .iter()
                .map(|a| format!("`{a}`"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        s.push_str(&format!(
            "| `{}` | {aliases} | `{}` | {} |\n",
            e.name,
            e.usage.replace('|', "\\|"),
            e.about.replace('|', "\\|")
        ));
    }
    s
}

const COMMANDS_GUIDE: &str = "# The command language

One command language drives the TUI's command line, the REPL, replay scripts and the GDB
server's `monitor`. It follows gdb where gdb has an equivalent. Commands parse into typed
values once and then run on the debug engine; a malformed command says what is wrong and
prints the command's usage. `help` lists the commands and `help COMMAND` describes one.
This file is generated from the same table as `help` (`emulator/src/debug/command/help.rs`).

## Waves, lanes and stops

Waves are numbered by their global id (`workgroup * waves_per_workgroup + index`); `wave N`
selects one, `lane N` a lane of it. Commands that read lane values (`print v3`,
conditions, `scratch:` memory) use the selected lane unless an index is given (`v3[5]`).
`info lanes [/F] [REG...]`, as cuda-gdb's `info cuda lanes`, shows a row per lane of the
selected wave: `*` the selected lane, its state (active or inactive by EXEC; exited or
faulted with its wave), `B` or `W` when it is one of the lanes of the last stop at a
breakpoint or watchpoint of this wave, and a column per register listed (`vN`, `uN`,
`exec`), in hex or in format `/d`, `/u`, `/f` (`info lanes /d v3 v4`).
Every stop selects the wave it concerns. A stop is one of: breakpoint (with the lanes that
satisfied the condition), watchpoint (wave, accessing PC, lanes, old and new values), step
done, a location reached, the `brk` instruction, a fault (reported as the signal gdb would
show: SIGSEGV, SIGBUS, SIGILL, SIGTRAP), a deadlock, all waves exited, or an interrupt.

## Stepping and scheduler locking

`set scheduler-locking on` (the default): `stepi N` executes N instructions of the selected
wave while every other wave stays frozen. `set scheduler-locking off`: each step advances
every ready wave by one instruction, in wave order. `continue` always runs all waves under
the deterministic scheduler (docs/scheduling.md). `advance barrier` runs the selected wave
alone until it arrives at a barrier, `finish` until it exits; if it must wait for frozen
waves the stop says so instead of hanging. `stepi all [N]` advances every ready wave N
times whatever the setting (the TUI's `S`), and `stepi alone [N]` the selected wave alone
(the TUI's `s`). `stepi 0` executes nothing and says so, as gdb
does.

gdb's source-level words work at the wave level. A kernel compiled from a higher-level
language carries a line table (`.file`/`.loc`, docs/source-level.md): stops show its
`FILE:LINE` and text below the instruction, `list`, `break FILE:LINE` (one breakpoint
with a location at the first statement of each stretch of code of the line, as gdb's
`1.1`, `1.2`), `info line` and `info source`
use it, and `step` (`s`), `next` (`n`), `reverse-step` (`rs`) and `reverse-next` (`rn`)
move the selected wave by statements of its lines. A kernel without one (hand-written
assembly, whose every line is one instruction) steps instructions: `step` and `next` as
`stepi`, the reverse ones as `reverse-stepi`. `nexti` (`ni`) is `stepi`: a wave has no
calls to step over; each keeps its own word in recordings. `until` (`u`) without a
location is `next` that never stops at a line before the current PC (without a line
table: until the PC passes the current one), out of a loop that jumps back; with one it
is `advance`. With `set scheduler-locking off`, `finish`, `until` and
`advance barrier` run every ready wave a round at a time, as gdb lets other threads run
during `finish`, so a barrier the wave waits at releases; with it on, a wave waiting at a
barrier cannot move and the stop says `continue, or set scheduler-locking off`. A wave
has no call stack: `backtrace` (`bt`, `where`) and `frame` (`f`) show its one frame,
gdb style (`#0  0x006c in next_word () at histogram.s:55`, the label the PC is in as
the function; where a line table has a line for the PC, as gdb shows it from the symbol
file, the kernel as the function and that line: `#0  k () at src/main.cl:15`, the
address only inside a row), for the selected wave and lane; `info frame` describes it in gdb's words
(the outermost frame, no caller); `up` and `down` refuse as gdb does at the outermost
and innermost frame. `info threads` is `info waves` and `thread N` is `wave N`. A
temporary breakpoint's stop says `Temporary breakpoint N, ...`, as gdb's does. An
unknown word suggests the nearest command or gdb alias (`bactrace`: `backtrace`), and
`help` knows every alias and `quit`.

## Breakpoints

`break LOCATION` takes a label, `label+OFFSET`, an address (`0x40`, `*0x40`) or a source
line of the kernel's file (`loop.s:12`, or `:12`: its first instruction). Every command
that takes a location (`break`, `tbreak`, `until`, `advance`, `list`, `info line`,
`disassemble`) also takes, as gdb does, `*EXPR`: an expression evaluated for the
selected wave and lane when the command runs (`break *pc`, `list *(0x30 + 8)`; a
breakpoint stays at the address it had then); the kernel's name (`.kernel K`, where no
label has it): `break K`, `until K` and `advance K` stop after its prologue (the line
table's `prologue_end`, else its entry), `list K`, `info line K` and `disassemble K` show
its entry; and a file name with spaces quoted (`'sub dir/k.cl':3`, `\"sub dir/k.cl\":3`).
An address past the kernel's code is refused as outside it; `info line` of one says
there is no line information and why. An address inside an instruction (its second
word, or not word-aligned) is refused as no instruction's start; `info line` of one
names the instruction it is part of and that instruction's line. A
condition is evaluated for every active lane (restricted to `lane N` when given) and the
breakpoint stops when any lane satisfies it; the stop lists those lanes. `wave N` and
`workgroup N` restrict it to a wave or workgroup. The filters go after the condition or,
as gdb's `thread N`, before `if` (`break loop wave 3 if v1 > 2`); the confirmation names
them (`Breakpoint 2 at 0x0040 <loop>, wave 3, lane 5`). `ignore N COUNT` skips the next
COUNT hits; `info breakpoints` lists breakpoints and watchpoints together by number, with
hit counts. Continuing from a breakpoint steps over it once. A breakpoint of several
locations (a source line in several stretches of code, a file name two files end in)
is one number: `info breakpoints` lists its locations as `N.1`, `N.2`, a hit at any is
its hit, and `delete`, `disable`, `condition`, `ignore` and a temporary one's deletion
take it whole. A breakpoint at an address another already has is noted, as gdb does
(`Note: breakpoint 1 also set at pc 0x0040.`). A location's file matches by whole
trailing path components: `lib/a.cl` names `lib/a.cl` (not `src/a.cl`), `a.cl` both.

## Watchpoints

`watch`, `rwatch` and `awatch` stop right after an instruction that writes, reads, or
touches any byte of the range; atomics count as both read and write. They are exact and
unlimited in number. The stop names the wave, the PC of the accessing instruction, every
lane that touched the range, and the old and new values (a write of an unchanged value
still stops: every store is reported). `shared:` watches the selected wave's workgroup
unless `workgroup N` or `workgroup all` is given; `scratch:` watches the selected lane of
the selected wave unless `wave N` and `lane N` are given.

## Expressions

Numbers (decimal, `0x`, `0b`, `0o`), registers `v3` (the selected lane), `v3[5]`, `u2`,
`exec`, `pc`, `lane`, `wave`, buffer names (the buffer's base address: `x/4xw out+16`,
`watch out+64`, `expect global:out == 5`), labels (their code address), memory
`global:ADDR`, `shared:ADDR`, `scratch:ADDR` (a little-endian u32; the address is one
value, so `global:(out + 4)` reads the second word of `out`), and the C operators
`+ - * / % << >> < <= > >= == != & ^ | && || ! ~` with C precedence (every C level its
own: `8 > 1 << 2` is `8 > 4`) and parentheses, nested at most 256 deep. Values are 64-bit
signed integers (arithmetic wraps; division by zero and a shift count outside 0-63 are
errors, where C leaves them undefined); registers and memory read as unsigned 32-bit values, and `s32(x)` reinterprets
the low 32 bits as signed (`s32(v3) < 0`). In `print`, an expression that reads per-lane
data (a vector register without an index, `scratch:`) is shown for every lane; anything
else is evaluated at the selected lane, so `p lane` is the selected lane and
`p v3[lane]` its `v3`. In a breakpoint condition `lane` is each lane tested. `expect`
takes one expression whose outermost operator is a comparison (`expect 16 == 1 << 4`).

A name that is both a buffer and a label is resolved by where it is written: in an
expression (`print`, `x`, `watch`, `expect`, `display`, `set`, conditions) it is the
buffer; as a location (`break`, `tbreak`, `advance`, `disassemble`, `list`) it is the
label, since only code is a location. `info buffers` lists the buffers (name, address,
size, the `.arg` registers holding each) and `info labels` the labels (name, address,
source line).

In a kernel compiled from a higher-level language, a source variable of `.var` live at
the selected wave's PC is a name too (docs/source-level.md): `print NAME` shows it in its
declared type (every lane of a vector-register or scratch variable, inactive lanes in
parentheses, as `print v3`), `print NAME[LANE]` one lane, `p/x NAME` its bits. In an
expression it reads in its type: a `f32` or `f64` variable, or a literal like `1.5`,
makes the arithmetic floating-point with C's conversions (`print a * xi + yi`,
`break saxpy.cl:10 if xi > 1.5`, the condition tested in each lane). A live variable
shadows a buffer or label of its name; register names and `exec`, `pc`, `lane`, `wave`
are never variables. A variable that is not live says where it is. `watch NAME` of a
variable in memory watches its bytes.

## Source and context

When the kernel was opened from its `.s` file, every stop ends with the source line of the
instruction the wave executes next (of the faulting instruction after a fault, of the
barrier in a deadlock), as gdb shows it: the line number, a tab and the line
(`  42    ld.shared.b32 v5, v2, 128`). `list` shows 10 source lines around the selected
wave's PC (`=>` marks its line, `B` lines with a breakpoint); `list` again, or Enter,
shows the next 10 and `list -` the 10 before; `list N`, `list LABEL`, `list *ADDR` and
`list FILE:N` show the lines around another place. A kernel opened from a `.wko` object
has no source: `list` says so and stops show no line.

`context` shows, as pwndbg does, the stop reason and the selection, the disassembly
around the PC, the source lines around its line, the selected wave's registers that
changed since the previous stop (old and new values; for vector registers the lanes, and
the selected lane's values), the lanes of every register the instruction at the PC reads
and writes, and EXEC on a lane scale. `set context on` shows it after every stop, without
the reason (the stop's description is right above it); the REPL starts with it on, the
engine, and so replay, with it off, which keeps transcripts short;
`set context-sections exec,regs` chooses the sections and their order from `reason`,
`code`, `source`, `regs`, `lanes` and `exec` (`all` for every one).

## Width

As gdb's `set width N`, output is fitted to N columns: lane tables (`print v1`, the
context's lanes) and the u registers of `info registers` put as many columns a row as fit
(8 lanes a row unfitted; 4 at 80 columns, 2 at 40, 12 at 200), `help` wraps at words
with its indentation, the context cuts a long line at a space and ends it with `…`, and
any other long line wraps at a space, so no number is split (a width below 40, asked for
or a terminal's, fits to 40: narrower would cut them). `set width 0` (or
`unlimited`) fits nothing: the default, so piped input, `wavedbg replay`, the GDB
server's `monitor` and the DAP console print as they always have. The REPL on a terminal
sets the width from the terminal's columns before each command, so a resize applies to
the next one; once `set width` is typed, the width it gives wins for the rest of the
session (`set width 0` then means unlimited, as in gdb). The TUI's console wraps command
output itself at the pane's width (and again when the pane is resized), so it leaves the
width unlimited.

## Formats

`print/F` and `x/NFS` take a format letter `x` (hex), `d` (signed), `u` (unsigned), `t`
(binary), `f` (float), `c` (char), `o` (octal); `x` also takes a size `b` (1 byte), `h` (2),
`w` (4, the default) or `g` (8). `x/Ni ADDR` and `display/i ADDR` show instructions instead
(`x/5i pc`, `display/i pc`), as in gdb.

## Displays and sessions

`display EXPR` (or `display/F EXPR`) shows an expression after every stop, numbered;
`undisplay N` removes one and `info display` lists them. As in gdb, `delete`, `disable`,
`enable` and `undisplay` take several numbers and ranges (`delete 2 5-7`), and every one
without any; a number that names nothing is reported and the others are still done. `save FILE` writes the session
(kernel, launch settings and seed, breakpoints, watchpoints, displays, selection and the log
of commands) and `load FILE` restores one (docs/sessions.md).

`--record FILE` (REPL and TUI) writes the commands as a replay script whose `#! kernel`
line names the kernel relative to the script's folder. The REPL records a command once it
has run, and leaves out what would not replay as it ran: a command that failed, an
`expect` that did not hold, and `save` (it writes a file); `load` is recorded with the
session file's absolute path. A recorded REPL session replays to success.

## Restarting

`restart` starts the launch again from the beginning and runs nothing, keeping
breakpoints, watchpoints and displays; `run` (`r`), as gdb's, starts it again and runs
every wave until something stops them (a breakpoint, a watchpoint, a fault, the end), and
`start` starts it again and stops at the first instruction; `load FILE` relaunches with
a session's settings. All of them throw
away the recorded history (docs/time-travel.md), so once something has run (an
instruction, an edit) the REPL in a terminal and the TUI ask first, as gdb asks before
`run`:

```
(wavedbg) run
The launch restarts and its recorded history goes.
Start it from the beginning? (y or n) n
Not confirmed.
```

`y` or `yes` goes on; anything else, an empty answer, Ctrl-C and Ctrl-D answer no (in
the TUI, any key but `y`, Esc included). Nothing asks where nobody is there to answer,
as in gdb's batch mode: input piped to the REPL, `wavedbg replay`, the GDB server's
`monitor` and the DAP adapter. `set confirm off` turns the question off (in a script it
changes nothing, and replays).

## When the launch ends

`continue` ends with `All waves exited` when every workgroup has run, with the fault when
a wave faults (continuing then runs the other waves, unless the fault is the spent
instruction budget: then the next resume says the launch is over), with a deadlock report when a barrier
can never complete, and with `The launch is over` when only faulted waves are left. The
deadlock report names each waiting wave with the PC `info waves` shows for it (a wave
waiting at a barrier has executed it, so its PC is the next instruction) and the barrier
it waits at. Once nothing but deadlocked workgroups is left, a continue or step runs
nothing and says `Cannot run: the launch is deadlocked` with the deadlock (reverse-stepi
and reverse-continue still go back); a wave stepped alone at the barrier of a deadlocked
workgroup says its barrier can never complete. `advance barrier` likewise stops after the barrier instruction and says so:
the wave waits there for its workgroup, or, the last to arrive, has released it. A wave
that has exited is shown (`info waves`, the context's code and source) at the `end` it
exited at, though its `pc` register has moved past it; `advance` and `until LOCATION` stop
where the selected wave exits if it exits before reaching LOCATION, as gdb's stop when
the frame returns.

## Limits

A watchpoint on `shared:` of a workgroup that has not been dispatched yet (when the grid
is larger than `--resident`), or on the scratch of a wave of one, can be set before it
arrives: the range is checked against the window it will have, and the watchpoint stops
when that workgroup touches it. A workgroup that has finished cannot be watched (its
memory is gone); `workgroup all` covers every workgroup as it arrives.

## Scripts

Replay scripts hold one command per line; `#` starts a comment. `expect EXPR OP VALUE`
asserts a relation and, when it fails, prints both sides' values.
";
