//! Every hint the engine gives names a command that works in that state: for each hint
//! (in a stop's text or an error), the engine is put in the state that gives it, the hinted
//! command runs, and it does something other than fail with the same message.
//!
//! The hints, by where they are made:
//! - `Blocked::AtBarrier` (stop.rs): "(continue, or set scheduler-locking off)", from
//!   `stepi`, `step`, `next`, `until`, `finish` and `advance barrier` of a wave waiting at a
//!   barrier with scheduler locking on; with it off they run every ready wave;
//! - `Blocked::AtBarrierAlone` (stop.rs): "(continue, or stepi all)", from `stepi alone`;
//! - `EngineError::NoLabel`: "(labels: ...)"; `EngineError::NoWave`: "(resident: ...)";
//!   `EngineError::NoSourceFile`: "(this kernel's source is ...)";
//! - `list` past the end: "line N is out of range; FILE has M lines";
//! - an unknown command: "(did you mean `X`?)" and "usage: help lists every command"; a
//!   quit word where there is no session: the same usage;
//! - `info findings`: "off (set check all on)"; `info history`: "(set history-size)";
//! - `last-write`: "(goto N for the machine right before it)";
//! - `context ARG`: "(set context-sections chooses what it shows)";
//! - a watchpoint filter its space lacks: "(a condition such as `if wave == 3` restricts any
//!   watchpoint)";
//! - `info TOPIC` unknown: the usage line lists the topics.
//!
//! Not reachable from a command, so not tested here: `EngineError::BeyondHistory`'s
//! "(continue or stepi to go further)" (`goto` past the record runs forward instead) and the
//! expression error "select one with `lane N`" (commands always evaluate at a lane).

use super::fixtures::*;

const FROZEN: &str = "which are frozen (continue, or set scheduler-locking off)";
const ALONE: &str = "a wave run alone cannot release it (continue, or stepi all)";

/// MEET_AT_BARRIER with wave 0 waiting at its barrier, wave 1 not there yet (scheduler
/// locking on, the default).
fn waiting_at_barrier() -> Engine {
    let mut e = engine(MEET_AT_BARRIER);
    let (text, _) = stop(&mut e, "advance barrier");
    assert!(text.contains("waiting for the other waves"), "{text}");
    assert_eq!(e.machine().waves[0].state, WaveState::AtBarrier);
    e
}

/// Runs `line`, which must succeed and not say `hint`; returns its text.
fn works(e: &mut Engine, line: &str, hint: &str) -> String {
    let text = run_line(e, line)
        .unwrap_or_else(|err| panic!("`{line}` failed:\n{err}"))
        .text;
    assert!(!text.contains(hint), "`{line}` gave the same hint:\n{text}");
    text
}

#[test]
fn frozen_at_a_barrier_continue_or_scheduler_locking_off_then_the_same_command_works() {
    for line in [
        "stepi",
        "step",
        "next",
        "until",
        "finish",
        "advance barrier",
    ] {
        // The hint.
        let mut e = waiting_at_barrier();
        let (text, _) = stop(&mut e, line);
        assert!(text.contains(FROZEN), "{line}: {text}");
        // `continue` works.
        let before = e.machine().stats.wave_instructions;
        works(&mut e, "continue", FROZEN);
        assert!(e.machine().stats.wave_instructions > before, "{line}");
        // `set scheduler-locking off`, then the same command works: the other waves run,
        // the barrier releases.
        let mut e = waiting_at_barrier();
        run(&mut e, "set scheduler-locking off");
        let before = e.machine().stats.wave_instructions;
        let text = works(&mut e, line, "waits at a barrier");
        assert!(
            e.machine().stats.wave_instructions > before,
            "{line} ran nothing: {text}"
        );
    }
    // With scheduler locking off, `finish` runs the wave to its end through the barrier.
    let mut e = waiting_at_barrier();
    run(&mut e, "set scheduler-locking off");
    let (text, s) = stop(&mut e, "finish");
    assert_eq!(s.reason, StopReason::Reached(Reached::Exit), "{text}");
    assert!(text.starts_with("wave 0 (workgroup 0) exited"), "{text}");
    // `until` steps until the PC is past the barrier.
    let mut e = waiting_at_barrier();
    run(&mut e, "set scheduler-locking off");
    let pc = e.machine().waves[0].pc;
    let (_, s) = stop(&mut e, "until");
    assert_eq!(s.reason, StopReason::Step);
    assert!(e.machine().waves[0].pc > pc);
}

#[test]
fn a_wave_stepped_alone_at_a_barrier_says_continue_or_stepi_all_which_work() {
    for locking in ["on", "off"] {
        let mut e = waiting_at_barrier();
        run(&mut e, &format!("set scheduler-locking {locking}"));
        let (text, _) = stop(&mut e, "stepi alone");
        assert!(text.contains(ALONE), "{locking}: {text}");
        assert!(!text.contains("set scheduler-locking"), "{text}");
        for hinted in ["continue", "stepi all"] {
            let mut e = waiting_at_barrier();
            run(&mut e, &format!("set scheduler-locking {locking}"));
            let before = e.machine().stats.wave_instructions;
            works(&mut e, hinted, ALONE);
            assert!(e.machine().stats.wave_instructions > before, "{hinted}");
        }
    }
}

#[test]
fn errors_that_list_what_exists_name_things_that_work() {
    let mut e = with_source(MEET_AT_BARRIER);
    // A label that does not exist: the listed ones do.
    let err = fail(&mut e, "break nowhere").message();
    assert_eq!(err, "no label `nowhere` (labels: after_barrier, sync)");
    for label in ["after_barrier", "sync"] {
        works(&mut e, &format!("break {label}"), "no label");
    }
    // A wave that is not resident: the listed ones are.
    let err = fail(&mut e, "wave 9").message();
    assert_eq!(err, "no resident wave 9 (resident: 0, 1)");
    works(&mut e, "wave 1", "no resident wave");
    // Another source file: the kernel's own works.
    let err = fail(&mut e, "break other.s:13").message();
    assert!(err.contains("(this kernel's source is k.s)"), "{err}");
    let line = line_of(MEET_AT_BARRIER, "    nop");
    works(&mut e, &format!("break k.s:{line}"), "no source file");
    // A line past the end: the file's last line lists.
    let err = fail(&mut e, "list 999").message();
    let lines = MEET_AT_BARRIER.lines().count();
    assert!(
        err.ends_with(&format!("k.s has {lines} lines")),
        "{err} ({lines})"
    );
    works(&mut e, &format!("list {lines}"), "out of range");
    // An unknown `info` topic: the usage lists topics that work.
    let err = fail(&mut e, "info nosuch");
    let usage = err.usage().expect("usage");
    for topic in ["waves", "threads", "lanes", "frame", "registers", "labels"] {
        assert!(usage.contains(topic), "{usage}");
        works(&mut e, &format!("info {topic}"), "unknown `info");
    }
}

#[test]
fn unknown_words_suggest_commands_that_parse_and_help_works() {
    let mut e = engine(LOOP);
    for typo in ["stp", "nxt", "contnue", "bactrace", "wher", "frme", "brek"] {
        let err = fail(&mut e, typo);
        let message = err.message();
        let near = message
            .split_once("(did you mean `")
            .and_then(|(_, r)| r.split_once('`'))
            .map(|(w, _)| w)
            .unwrap_or_else(|| panic!("{typo}: no suggestion in {message}"));
        assert!(
            command::parse(near).is_ok() || near == "break",
            "{typo}: `{near}` does not parse"
        );
        assert_eq!(err.usage(), Some("help lists every command"));
    }
    works(&mut e, "help", "unknown command");
    // A quit word in a script: nothing to end; the usage names `help`, which works.
    let err = fail(&mut e, "quit");
    assert!(
        err.message().contains("ends an interactive session"),
        "{}",
        err.message()
    );
    assert_eq!(err.usage(), Some("help lists every command"));
    assert!(works(&mut e, "help quit", "no command").starts_with("quit\n"));
}

#[test]
fn settings_named_by_info_texts_work() {
    let mut e = engine(MEET_AT_BARRIER);
    // `info findings` with the sanitizer off names `set check all on`.
    let text = run(&mut e, "info findings");
    assert!(text.contains("off (set check all on)"), "{text}");
    works(&mut e, "set check all on", "set check");
    let text = run(&mut e, "info findings");
    assert!(!text.contains("off (set check all on)"), "{text}");
    // `info history` names `set history-size`.
    let text = run(&mut e, "info history");
    assert!(text.contains("(set history-size)"), "{text}");
    works(&mut e, "set history-size 64", "history-size");
    assert!(run(&mut e, "info history").contains("of 64 MiB (set history-size)"));
    // `context ARG` names `set context-sections`.
    let err = fail(&mut e, "context regs").message();
    assert!(
        err.contains("(set context-sections chooses what it shows)"),
        "{err}"
    );
    works(&mut e, "set context-sections regs", "context-sections");
    works(&mut e, "context", "takes no argument");
}

#[test]
fn last_write_names_a_goto_that_goes_there() {
    let mut e = engine(MEET_AT_BARRIER);
    stop(&mut e, "stepi 3");
    let text = run(&mut e, "last-write v0");
    let n: u64 = text
        .split_once("(goto ")
        .and_then(|(_, r)| r.split_once(' '))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or_else(|| panic!("no goto in {text}"));
    let (_, s) = stop(&mut e, &format!("goto {n}"));
    assert_eq!(s.instructions, n);
    assert_eq!(e.machine().stats.wave_instructions, n);
}

#[test]
fn a_watchpoint_filter_its_space_lacks_names_a_condition_that_works() {
    let mut e = engine(LOOP);
    let err = fail(&mut e, "watch 0x100000000 wave 1").message();
    assert!(
        err.contains("(a condition such as `if wave == 3` restricts any watchpoint)"),
        "{err}"
    );
    let text = works(&mut e, "watch 0x100000000 if wave == 0", "does not apply");
    assert!(text.contains("watchpoint"), "{text}");
    let (_, s) = stop(&mut e, "continue");
    assert!(matches!(s.reason, StopReason::Watchpoint(_)), "{s:?}");
    assert_eq!(s.wave_id, Some(0));
}
