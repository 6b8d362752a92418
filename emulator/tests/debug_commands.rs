//! The command language through `Engine::execute_line`: every command and alias of
//! `command::HELP`, their output text and the state they leave, and their errors (unknown
//! commands with a suggestion, missing or invalid arguments with the usage line, bad
//! expressions, lanes and waves out of range, memory outside its window). A replayed
//! script must give byte-identical output.

mod kernels;
use kernels::{ATOMIC, BRK, COND, DEADLOCK, FAULT, LOOP, WRITERS};

use std::collections::BTreeSet;
use std::path::PathBuf;

use wavedbg_emulator::asm::{assemble, assemble_file};
use wavedbg_emulator::debug::command::{self, CommandError, HELP};
use wavedbg_emulator::debug::{CommandOutput, Engine, Reached, StopEvent, StopReason};
use wavedbg_emulator::machine::LaunchOptions;
use wavedbg_emulator::program::Program;
use wavedbg_emulator::wave::WaveState;

// ---------------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------------

/// Two waves spill 100 * wave + lane to scratch offset 8 of every lane.
const SCRATCH: &str = r#"
.kernel scr
.workgroup 64
.scratch 16
    uwaveid u5
    vlaneid v0
    umuli u7, u5, 100
    vadd.u32.u v4, v0, u7
    vmovi v8, 0
spill:
    st.scratch.b32 v4, v8, 8
after_spill:
    wait.vst 0
    end
"#;

/// Two waves of one workgroup meet at a barrier.
const BARRIER: &str = r#"
.kernel bar
.workgroup 64
.shared 256
    uwaveid u5
    vlaneid v0
    vshli v2, v0, 2
    ushli u6, u5, 7
    vadd.u32.u v2, v2, u6
    vmov.u v1, u5
    st.shared.b32 v1, v2, 0
    wait.ls 0
sync:
    barrier
after_barrier:
    nop
    end
"#;

/// Reads shared, scratch and global memory and a register the debugger sets, and stores
/// their sum to out[32 + lane].
const READER: &str = r#"
.kernel reader
.shared 128
.scratch 16
.buffer out, 512
.arg u[0:1], out
    vlaneid v0
    vshli v2, v0, 2
    vmovi v8, 0
ready:
    ld.shared.b32 v4, v2, 0
    ld.scratch.b32 v5, v8, 4
    ld.ubase.b32 v6, u[0:1], v2, 0
    wait.all
    vadd.u32 v7, v4, v5
    vadd.u32 v7, v7, v6
    vadd.u32 v7, v7, v9
    st.ubase.b32 v7, u[0:1], v2, 128
    wait.vst 0
    end
"#;

/// Base address of the first buffer.
const BUF: u64 = 0x1_0000_0000;

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

fn program(src: &str) -> Program {
    assemble(src, "t.s", None).unwrap_or_else(|e| panic!("{e}"))
}

fn engine_with(src: &str, options: LaunchOptions) -> Engine {
    Engine::new(&program(src), options).expect("launch")
}

fn engine(src: &str) -> Engine {
    engine_with(src, LaunchOptions::default())
}

fn one_wave_loop() -> Engine {
    engine_with(
        LOOP,
        LaunchOptions {
            grid: Some(1),
            workgroup_lanes: Some(32),
            ..Default::default()
        },
    )
}

fn script(name: &str) -> Program {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../scripts")
        .join(name);
    assemble_file(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs a line that must succeed; returns its output. A stop's first line must end with
/// the launch's instruction count (`[count N]`, which `goto` takes); it is checked here and
/// removed, so the tests below compare the rest exactly.
fn out(e: &mut Engine, line: &str) -> CommandOutput {
    let mut o = e
        .execute_line(line)
        .unwrap_or_else(|err| panic!("`{line}` failed:\n{err}"));
    if let Some(s) = o.stop.as_ref().filter(|s| s.reason != StopReason::Finished) {
        let count = format!(" [count {}]", s.instructions);
        let first = o.text.lines().next().unwrap_or_default();
        assert!(
            first.ends_with(&count),
            "`{line}`: no `{count}` in {:?}",
            o.text
        );
        o.text = o.text.replacen(&count, "", 1);
    }
    o
}

/// Runs a line that must succeed; returns its text.
fn run(e: &mut Engine, line: &str) -> String {
    out(e, line).text
}

/// Runs a line that must stop the machine; returns the text and the stop.
fn stop(e: &mut Engine, line: &str) -> (String, StopEvent) {
    let o = out(e, line);
    let s = o
        .stop
        .unwrap_or_else(|| panic!("`{line}` reported no stop: {}", o.text));
    (o.text, s)
}

/// Runs a line that must fail; returns the error.
fn fail(e: &mut Engine, line: &str) -> CommandError {
    match e.execute_line(line) {
        Ok(o) => panic!("`{line}` should fail, printed:\n{}", o.text),
        Err(err) => err,
    }
}

fn usage_of(name: &str) -> String {
    command::usage(name)
        .unwrap_or_else(|| panic!("no usage for {name}"))
        .to_string()
}

/// Asserts that `line` fails with a message containing `what` and shows the usage of
/// its command.
fn fails_with_usage(e: &mut Engine, line: &str, what: &str) {
    let err = fail(e, line);
    assert!(
        err.message.contains(what),
        "`{line}`: message `{}` lacks `{what}`",
        err.message
    );
    let word = line
        .split_whitespace()
        .next()
        .unwrap()
        .split('/')
        .next()
        .unwrap();
    let name = command::canonical(word).unwrap_or_else(|| panic!("{word} is a command"));
    let usage = usage_of(name);
    assert_eq!(err.usage.as_deref(), Some(usage.as_str()), "`{line}`");
    assert!(
        err.to_string().ends_with(&format!("\nusage: {usage}")),
        "`{line}`: {err}"
    );
}

/// One cell of a lane view: value text, whether the lane is inactive (in parentheses),
/// whether it changed (`*`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Cell {
    value: String,
    inactive: bool,
    changed: bool,
}

/// Parses the 32 cells of a lane view (`print v3`, `print EXPR` by lane).
fn cells(text: &str) -> Vec<Cell> {
    let mut out = Vec::new();
    for line in text.lines().filter(|l| l.trim_start().starts_with('[')) {
        let rest = &line[line.find(']').unwrap() + 1..];
        let b = rest.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i] == b' ' {
                i += 1;
                continue;
            }
            let inactive = b[i] == b'(';
            if inactive {
                i += 1;
                while b[i] == b' ' {
                    i += 1;
                }
            }
            let start = i;
            while i < b.len() && !matches!(b[i], b' ' | b')' | b'*') {
                i += 1;
            }
            let value = rest[start..i].to_string();
            if inactive {
                assert_eq!(b[i], b')', "unclosed parenthesis in {line}");
                i += 1;
            }
            // Active cells put a space between the value and the change marker.
            if !inactive && i + 1 < b.len() && b[i] == b' ' && b[i + 1] == b'*' {
                i += 1;
            }
            let changed = i < b.len() && b[i] == b'*';
            if changed {
                i += 1;
            }
            out.push(Cell {
                value,
                inactive,
                changed,
            });
        }
    }
    assert_eq!(out.len(), 32, "32 lanes in:\n{text}");
    out
}

fn values(cells: &[Cell]) -> Vec<String> {
    cells.iter().map(|c| c.value.clone()).collect()
}

fn lane_set(cells: &[Cell], f: impl Fn(&Cell) -> bool) -> Vec<usize> {
    (0..32).filter(|&l| f(&cells[l])).collect()
}

// ---------------------------------------------------------------------------------------
// help, coverage of every command and alias, unknown and malformed commands
// ---------------------------------------------------------------------------------------

#[test]
fn help_lists_every_command_and_describes_each() {
    let mut e = engine(LOOP);
    let all = run(&mut e, "help");
    assert!(all.starts_with("Commands (`help COMMAND` for details):\n"));
    assert_eq!(run(&mut e, "h"), all);
    assert!(all.contains("  break (b, br) "), "{all}");
    assert!(all.contains("  continue (c, cont) "), "{all}");
    for (name, aliases, usage, about) in HELP {
        let head = if aliases.is_empty() {
            format!("  {name} ")
        } else {
            format!("  {name} ({}) ", aliases.join(", "))
        };
        assert!(all.contains(&head), "`{head}` missing from help:\n{all}");
        let one = run(&mut e, &format!("help {name}"));
        assert!(
            one.starts_with(&format!("{usage}\n{name}: {about}")),
            "{one}"
        );
        if aliases.is_empty() {
            assert!(!one.contains("aliases:"), "{one}");
        } else {
            assert!(
                one.ends_with(&format!("\naliases: {}\n", aliases.join(", "))),
                "{one}"
            );
        }
        for a in *aliases {
            assert_eq!(run(&mut e, &format!("help {a}")), one, "help {a}");
            assert_eq!(command::canonical(a), Some(*name));
        }
    }
    let err = fail(&mut e, "help nosuch");
    assert_eq!(err.message, "no command `nosuch`");
    assert_eq!(err.usage.as_deref(), Some("help lists every command"));
}

/// A script using every command and every alias of `HELP` at least once; every line must
/// succeed, and the script must name all of them.
#[test]
fn every_command_and_alias_runs() {
    let lines = [
        "help",
        "h stepi",
        "break loop",
        "b loop+8 wave 1",
        "br after if v3 > 10 lane 3",
        "tbreak store workgroup 1",
        "info breakpoints",
        "i b",
        "disable 2",
        "enable 2",
        "ignore 2 1",
        "condition 1 v1 == 1",
        "condition 1",
        "watch global:0x100000000 4",
        "rwatch 0x100000000 8",
        "awatch global:0x100000010",
        "info watchpoints",
        "d 5",
        "delete 6",
        "delete 7",
        "continue",
        "c",
        "cont",
        "stepi",
        "si 2",
        "set scheduler-locking off",
        "si",
        "set scheduler-locking on",
        "delete",
        "advance after",
        "restart",
        "until after",
        "run",
        "u after",
        "r",
        "wave 1",
        "thread 2",
        "finish",
        "interrupt",
        "lane 3",
        "info waves",
        "info lanes",
        "info registers",
        "info registers v3",
        "info changes",
        "print v3",
        "p/x v3[5]",
        "x/4xw 0x100000000",
        "set u6 = 3",
        "set v3[2] = 7",
        "set global:0x100000000 = 9",
        "disassemble",
        "disas loop",
        "expect u6 == 3",
    ];
    let mut e = engine(LOOP);
    // `list` needs the kernel's source.
    e.set_source("loop.s", LOOP);
    let mut used = BTreeSet::new();
    for line in lines {
        e.execute_line(line)
            .unwrap_or_else(|err| panic!("`{line}` failed:\n{err}"));
        let word = line.split_whitespace().next().unwrap();
        used.insert(word.split('/').next().unwrap().to_string());
    }
    // Commands added after the first version of the language: run when `HELP` has them.
    let file =
        std::env::temp_dir().join(format!("wavedbg-debug-commands-{}.ron", std::process::id()));
    let later = [
        ("display", "display v1[0]".to_string()),
        ("display", "display/x u6".to_string()),
        ("display", "display".to_string()),
        ("display", "info display".to_string()),
        ("undisplay", "undisplay 1".to_string()),
        ("undisplay", "undisplay".to_string()),
        ("save", format!("save {}", file.display())),
        ("load", format!("load {}", file.display())),
        ("reverse-stepi", "stepi 3".to_string()),
        ("reverse-stepi", "reverse-stepi".to_string()),
        ("reverse-stepi", "rsi 1".to_string()),
        ("goto", "goto 1".to_string()),
        ("goto", "info history".to_string()),
        ("goto", "set history-size 64".to_string()),
        ("reverse-continue", "reverse-continue".to_string()),
        ("reverse-continue", "rc".to_string()),
        ("last-write", "last-write u6".to_string()),
        ("set", "set check all on".to_string()),
        ("why", "why".to_string()),
        ("info", "info findings".to_string()),
        ("set", "set check all off".to_string()),
        ("info", "info buffers".to_string()),
        ("info", "info labels".to_string()),
        ("list", "list loop".to_string()),
        ("list", "l".to_string()),
        ("list", "list -".to_string()),
        ("context", "context".to_string()),
        ("context", "ctx".to_string()),
        ("context", "set context-sections regs,exec".to_string()),
        ("context", "set context on".to_string()),
        ("context", "stepi".to_string()),
        ("context", "set context off".to_string()),
    ];
    for (command, line) in &later {
        if command::canonical(command).is_none() {
            continue;
        }
        e.execute_line(line)
            .unwrap_or_else(|err| panic!("`{line}` failed:\n{err}"));
        let word = line.split_whitespace().next().unwrap();
        used.insert(word.split('/').next().unwrap().to_string());
    }
    let _ = std::fs::remove_file(&file);
    // `advance barrier` is the other form of `advance`.
    let mut e = engine(BARRIER);
    assert!(run(&mut e, "advance barrier").contains("reached the barrier at 0x002c <sync>"));
    for (name, aliases, ..) in HELP {
        for w in std::iter::once(name).chain(aliases.iter()) {
            assert!(used.contains(*w), "`{w}` is not exercised");
        }
    }
}

#[test]
fn unknown_commands_suggest_the_nearest() {
    let mut e = engine(LOOP);
    for (line, near) in [
        ("brek loop", "break"),
        ("contnue", "continue"),
        ("disassmble", "disassemble"),
        ("stpi 3", "stepi"),
        ("wach global:0x100000000", "watch"),
        ("expct 1 == 1", "expect"),
    ] {
        let err = fail(&mut e, line);
        let word = line.split_whitespace().next().unwrap();
        assert_eq!(
            err.message,
            format!("unknown command `{word}` (did you mean `{near}`?)"),
            "{line}"
        );
        assert_eq!(err.usage.as_deref(), Some("help lists every command"));
        assert!(err
            .to_string()
            .ends_with("\nusage: help lists every command"));
    }
    let err = fail(&mut e, "frobnicate");
    assert_eq!(err.message, "unknown command `frobnicate`");
    // Nothing ran.
    assert_eq!(e.machine().stats.wave_instructions, 0);
}

#[test]
fn malformed_commands_say_what_is_wrong_and_show_the_usage() {
    let mut e = engine(WRITERS);
    for (line, what) in [
        ("break", "`break` needs a location"),
        ("b", "`break` needs a location"),
        ("tbreak", "`tbreak` needs a location"),
        (
            "break nowhere",
            "no label `nowhere` (labels: after_gstore, after_store, gstore, store)",
        ),
        ("break store+x", "bad offset in `store+x`"),
        ("break 0x3", "0x3 is not the start of an instruction"),
        ("break 0x2c", "0x2c is not the start of an instruction"),
        ("break store foo bar", "bad location `store foo bar`"),
        ("break store if v3 >", "bad condition `v3 >`"),
        ("break store if", "bad location `store if`"),
        ("break store lane 32", "lane 32 out of range (0-31)"),
        ("break store wave x", "`x` is not a number"),
        ("delete x", "`x` is not a number"),
        ("delete 9", "no breakpoint or watchpoint number 9"),
        ("disable", "`disable` needs a breakpoint number"),
        ("enable 9", "no breakpoint or watchpoint number 9"),
        ("ignore 1", "needs a number and a count"),
        ("ignore 9 2", "no breakpoint number 9"),
        ("ignore 1 x", "`x` is not a number"),
        ("condition", "`condition` needs a breakpoint number"),
        (
            "condition 9 v1 == 2",
            "no breakpoint or watchpoint number 9",
        ),
        ("watch", "`watch` needs an address"),
        ("rwatch", "`rwatch` needs an address"),
        ("awatch", "`awatch` needs an address"),
        (
            "watch heap:0",
            "unknown space `heap` (global, shared, scratch)",
        ),
        ("watch 0x100000000 4 5", "unexpected text"),
        ("watch 0x100000000 x", "`x` is not a number"),
        ("watch 0x10", "0x10..0x14 is not allocated global memory"),
        (
            "watch 0x100000000 0",
            "watch length must be 1 byte to 1 MiB",
        ),
        (
            "watch shared:62",
            "shared 0x3e..0x42 is outside the 64-byte window",
        ),
        (
            "watch shared:0 4 workgroup 7",
            "workgroup 7 is not in the grid (0-1)",
        ),
        (
            "watch scratch:0 4",
            "scratch 0x0..0x4 is outside the 0-byte window",
        ),
        ("watch scratch:0 4 wave 9", "no wave 9"),
        ("watch scratch:0 4 lane 32", "lane 32 out of range (0-31)"),
        ("rwatch nosuch", "no symbol `nosuch`"),
        ("awatch 0x100000000 4 if 1 +", "bad condition `1 +`"),
        ("continue/x", "`continue` takes no /FORMAT"),
        ("stepi x", "`x` is not a number"),
        ("si -1", "`-1` is not a number"),
        ("advance", "`advance` needs a location"),
        ("until nowhere", "no label `nowhere`"),
        ("u 0x2", "0x2 is not the start of an instruction"),
        ("wave", "`wave` needs a wave id"),
        ("wave 4", "no resident wave 4 (resident: 0, 1, 2, 3)"),
        ("thread x", "`x` is not a number"),
        ("lane", "`lane` needs a lane"),
        ("lane 32", "lane 32 out of range (0-31)"),
        ("lane 1000", "lane 1000 out of range (0-31)"),
        ("info frobs", "unknown `info frobs`"),
        ("i", "`info` needs a topic"),
        ("print", "`print` needs an expression"),
        ("p/x", "`print` needs an expression"),
        ("p/z 1", "unknown format `/z` (x d u t f c o)"),
        (
            "p v3 +",
            "bad expression `v3 +`: expected a value (at column 5)",
        ),
        ("p (1 + 2", "expected `)`"),
        ("p v128", "no register `v128` (v0-v127, u0-u63)"),
        ("p u64", "no register `u64` (v0-v127, u0-u63)"),
        ("p foo(1)", "unknown function `foo` (functions: s32, u32)"),
        ("p nosuch", "no symbol `nosuch`"),
        ("p 1 / 0", "division by zero"),
        ("p v3[32]", "lane 32 out of range (0-31)"),
        ("p 1 2", "unexpected `2`"),
        ("p 0xfg", "bad number `0xfg`"),
        (
            "p shared:64",
            "shared 0x40..0x44 is outside the 64-byte window",
        ),
        ("p global:0x10", "0x10..0x14 is not allocated global memory"),
        (
            "p scratch:0",
            "scratch 0x0..0x4 is outside the 0-byte window",
        ),
        ("x", "`x` needs an address"),
        ("x/4xw", "`x` needs an address"),
        ("x/0x 0x100000000", "count must be 1 to 4096"),
        ("x/5000x 0x100000000", "count must be 1 to 4096"),
        ("x/4q 0x100000000", "unknown format or size letter `q`"),
        ("x/4xw nosuch", "no symbol `nosuch`"),
        (
            "x/4xw 0x10",
            "cannot access memory: 0x10..0x20 is not allocated global memory",
        ),
        ("x/4xw global:0x1000001fc", "cannot access memory"),
        (
            "x/4xw shared:56",
            "cannot access memory: shared 0x38..0x48 is outside the 64-byte window",
        ),
        (
            "x/xb scratch:0",
            "cannot access memory: scratch 0x0..0x1 is outside the 0-byte window",
        ),
        ("set", "needs `TARGET = VALUE`"),
        ("set u6", "needs `TARGET = VALUE`"),
        ("set u6 =", "needs `TARGET = VALUE`"),
        ("set = 4", "needs `TARGET = VALUE`"),
        (
            "set scheduler-locking maybe",
            "set scheduler-locking on|off",
        ),
        ("set u6 = 1 +", "bad expression `1 +`"),
        ("set foo = 1", "cannot assign to `foo`"),
        ("set lane = 1", "cannot assign to `lane`"),
        ("set 3 = 1", "cannot assign to `3`"),
        ("set v3[32] = 1", "lane 32 out of range (0-31)"),
        ("set v300 = 1", "no register `v300`"),
        ("set pc = 6", "pc must be a multiple of 4"),
        (
            "set shared:64 = 1",
            "cannot access memory: shared 0x40..0x44 is outside the 64-byte window",
        ),
        (
            "set global:0x10 = 1",
            "cannot access memory: 0x10..0x14 is not allocated global memory",
        ),
        ("set scratch:0 = 1", "cannot access memory"),
        ("disassemble nowhere", "no label `nowhere`"),
        ("disas 0x6", "0x6 is not the start of an instruction"),
        ("expect", "`expect` needs an assertion"),
        (
            "expect 1",
            "needs a comparison: EXPR OP VALUE with OP one of == != < <= > >=",
        ),
        ("expect == 1", "needs both sides of the comparison"),
        ("expect u6 ==", "needs both sides of the comparison"),
        (
            "expect v3 + == 1",
            "bad expression `v3 + == 1`: unexpected `== 1` (at column 6)",
        ),
        ("expect nosuch == 1", "cannot evaluate `nosuch`"),
    ] {
        fails_with_usage(&mut e, line, what);
    }
    // Nothing ran and nothing was set.
    assert_eq!(e.machine().stats.wave_instructions, 0);
    assert!(e.breakpoints().is_empty() && e.watchpoints().is_empty());
    assert_eq!(e.selected_lane, 0);
    assert_eq!(e.selected_wave, 0);
}

#[test]
fn comments_and_blank_lines_do_nothing() {
    let mut e = engine(LOOP);
    for line in ["", "   ", "# continue", "  # break loop"] {
        assert_eq!(out(&mut e, line), CommandOutput::default(), "`{line}`");
    }
    assert_eq!(e.machine().stats.wave_instructions, 0);
    assert!(e.breakpoints().is_empty());
}

// ---------------------------------------------------------------------------------------
// Breakpoints
// ---------------------------------------------------------------------------------------

#[test]
fn break_forms_and_info_breakpoints() {
    let mut e = engine(LOOP);
    assert_eq!(run(&mut e, "break loop"), "Breakpoint 1 at 0x0024 <loop>\n");
    assert_eq!(run(&mut e, "b loop+8"), "Breakpoint 2 at 0x002c <loop+8>\n");
    assert_eq!(run(&mut e, "br 0x40"), "Breakpoint 3 at 0x0040 <after>\n");
    assert_eq!(run(&mut e, "b *0x3c"), "Breakpoint 4 at 0x003c <loop+24>\n");
    assert_eq!(
        run(&mut e, "break loop if v3 > 100 wave 2"),
        "Breakpoint 5 at 0x0024 <loop>, wave 2 if v3 > 100\n"
    );
    assert_eq!(
        run(&mut e, "tbreak store workgroup 1 lane 5"),
        "Temporary breakpoint 6 at 0x0060 <store>, workgroup 1, lane 5\n"
    );
    assert_eq!(run(&mut e, "b 0"), "Breakpoint 7 at 0x0000\n");
    assert_eq!(
        run(&mut e, "info breakpoints"),
        "\
Num  Type            Disp  Enb  Address          What
1    breakpoint      keep  y    0x0024           0x0024 <loop>
2    breakpoint      keep  y    0x002c           0x002c <loop+8>
3    breakpoint      keep  y    0x0040           0x0040 <after>
4    breakpoint      keep  y    0x003c           0x003c <loop+24>
5    breakpoint      keep  y    0x0024           0x0024 <loop>
        stop only if v3 > 100
        wave 2 only
6    breakpoint      del   y    0x0060           0x0060 <store>
        workgroup 1 only
        lane 5 only
7    breakpoint      keep  y    0x0000           0x0000
"
    );
    assert_eq!(run(&mut e, "i b"), run(&mut e, "info breakpoints"));
    assert_eq!(run(&mut e, "info break"), run(&mut e, "info breakpoints"));
    assert_eq!(run(&mut e, "info watchpoints"), "No watchpoints.\n");
    run(&mut e, "delete");
    assert_eq!(
        run(&mut e, "info breakpoints"),
        "No breakpoints or watchpoints.\n"
    );
}

#[test]
fn conditional_breakpoint_reports_the_satisfying_lanes() {
    let mut e = one_wave_loop();
    run(&mut e, "break loop if v3 > 100");
    let (text, s) = stop(&mut e, "continue");
    assert_eq!(
        text,
        "Breakpoint 1, wave 0 (workgroup 0), lanes 26-31\n  0x0024 <loop>: vaddi.u32 v1, v1, 1\n"
    );
    assert_eq!(
        s.reason,
        StopReason::Breakpoint {
            id: 1,
            lanes: 0xfc00_0000
        }
    );
    // The lane selection moved to the first satisfying lane.
    assert!(run(&mut e, "info lanes").contains("* lane 26  active\n"));
    assert_eq!(run(&mut e, "p v3"), run(&mut e, "print v3"));
    assert_eq!(run(&mut e, "p v3[26]"), "v3[26] = 104\n");
    let (text, _) = stop(&mut e, "c");
    assert!(text.starts_with("Breakpoint 1, wave 0 (workgroup 0), lanes 25-31\n"));
    let (text, _) = stop(&mut e, "cont");
    assert!(text.starts_with("Breakpoint 1, wave 0 (workgroup 0), lanes 25-31\n"));
    assert_eq!(run(&mut e, "p v1[0]"), "v1[0] = 2\n");
    assert!(run(&mut e, "info breakpoints").contains("        breakpoint already hit 3 times\n"));
    let (text, s) = stop(&mut e, "c");
    assert_eq!(s.reason, StopReason::Finished);
    assert_eq!(
        text,
        "All waves exited (26 wave-instructions, 832 lane-ops).\n"
    );

    // One satisfying lane: singular.
    let mut e = engine(COND);
    run(&mut e, "break here if v3 == 108");
    let (text, _) = stop(&mut e, "c");
    assert_eq!(
        text,
        "Breakpoint 1, wave 0 (workgroup 0), lane 27\n  0x0018 <here>: vaddi.u32 v3, v3, 1\n"
    );
    // Inactive lanes never satisfy a condition.
    let mut e = engine(COND);
    run(&mut e, "break here if v3 > 100");
    let (text, _) = stop(&mut e, "c");
    assert!(
        text.starts_with("Breakpoint 1, wave 0 (workgroup 0), lanes 26-27\n"),
        "{text}"
    );
}

#[test]
fn condition_error_is_reported_as_such() {
    let mut e = engine(COND);
    run(&mut e, "break here if v3 / (lane - lane)");
    let (text, s) = stop(&mut e, "c");
    assert!(matches!(s.reason, StopReason::ConditionError { id: 1, .. }));
    assert!(
        text.starts_with("Error in condition of 1: division by zero"),
        "{text}"
    );
    assert!(text.contains("stopped, wave 0 (workgroup 0)\n  0x0018 <here>: vaddi.u32 v3, v3, 1"));
    run(&mut e, "condition 1 lane == 3");
    // Resuming steps over the breakpoint at the current PC (as gdb does): start again.
    run(&mut e, "restart");
    let (text, _) = stop(&mut e, "c");
    assert!(
        text.starts_with("Breakpoint 1, wave 0 (workgroup 0), lane 3\n"),
        "{text}"
    );
}

#[test]
fn breakpoint_filters_in_commands() {
    let mut e = engine(LOOP);
    run(&mut e, "break loop wave 2");
    for k in 0..3 {
        let (text, s) = stop(&mut e, "c");
        assert!(
            text.starts_with("Breakpoint 1, wave 2 (workgroup 1), lanes 0-31\n"),
            "{text}"
        );
        assert_eq!(s.wave_id, Some(2));
        assert_eq!(run(&mut e, "p v1[0]"), format!("v1[0] = {k}\n"));
        // The stop selected wave 2.
        assert!(run(&mut e, "info waves").contains("*    2   1    0  ready        0x0024 <loop>"));
    }
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);

    let mut e = engine(LOOP);
    run(&mut e, "break after workgroup 1 lane 5");
    run(&mut e, "break store if v3 == 7 workgroup 0");
    let mut seen = Vec::new();
    loop {
        let (text, s) = stop(&mut e, "c");
        if s.reason == StopReason::Finished {
            break;
        }
        seen.push(text.lines().next().unwrap().to_string());
    }
    assert_eq!(
        seen,
        vec![
            "Breakpoint 2, wave 0 (workgroup 0), lane 1",
            "Breakpoint 2, wave 1 (workgroup 0), lane 1",
            "Breakpoint 1, wave 2 (workgroup 1), lane 5",
            "Breakpoint 1, wave 3 (workgroup 1), lane 5",
        ]
    );
}

#[test]
fn ignore_counts_and_hit_counts_in_info_breakpoints() {
    let mut e = one_wave_loop();
    run(&mut e, "break loop");
    assert_eq!(
        run(&mut e, "ignore 1 2"),
        "Will ignore next 2 crossings of breakpoint 1.\n"
    );
    assert_eq!(
        run(&mut e, "info breakpoints"),
        "\
Num  Type            Disp  Enb  Address          What
1    breakpoint      keep  y    0x0024           0x0024 <loop>
        will ignore next 2 crossings
"
    );
    let (text, _) = stop(&mut e, "c");
    assert!(text.starts_with("Breakpoint 1, wave 0 (workgroup 0), lanes 0-31\n"));
    assert_eq!(run(&mut e, "p v1[0]"), "v1[0] = 2\n", "the third crossing");
    assert_eq!(
        run(&mut e, "info breakpoints"),
        "\
Num  Type            Disp  Enb  Address          What
1    breakpoint      keep  y    0x0024           0x0024 <loop>
        breakpoint already hit 3 times
"
    );
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
    run(&mut e, "restart");
    run(&mut e, "ignore 1 1");
    stop(&mut e, "c");
    assert_eq!(run(&mut e, "p v1[0]"), "v1[0] = 1\n");
}

#[test]
fn tbreak_is_deleted_after_its_hit() {
    let mut e = one_wave_loop();
    assert_eq!(
        run(&mut e, "tbreak loop"),
        "Temporary breakpoint 1 at 0x0024 <loop>\n"
    );
    assert!(run(&mut e, "info breakpoints").contains("1    breakpoint      del   y"));
    let (text, _) = stop(&mut e, "c");
    assert!(text.starts_with("Breakpoint 1, wave 0 (workgroup 0), lanes 0-31\n"));
    assert_eq!(
        run(&mut e, "info breakpoints"),
        "No breakpoints or watchpoints.\n"
    );
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
    fails_with_usage(&mut e, "delete 1", "no breakpoint or watchpoint number 1");
}

#[test]
fn disable_enable_delete() {
    let mut e = one_wave_loop();
    run(&mut e, "break loop");
    run(&mut e, "break after");
    assert_eq!(run(&mut e, "disable 1"), "");
    assert!(run(&mut e, "info breakpoints").contains("1    breakpoint      keep  n    0x0024"));
    let (text, _) = stop(&mut e, "c");
    assert!(text.starts_with("Breakpoint 2,"), "{text}");
    run(&mut e, "restart");
    assert_eq!(run(&mut e, "enable 1"), "");
    assert!(run(&mut e, "info breakpoints").contains("1    breakpoint      keep  y    0x0024"));
    let (text, _) = stop(&mut e, "c");
    assert!(text.starts_with("Breakpoint 1,"), "{text}");
    assert_eq!(run(&mut e, "d 1"), "");
    let (text, _) = stop(&mut e, "c");
    assert!(text.starts_with("Breakpoint 2,"), "{text}");
    run(&mut e, "watch 0x100000000");
    run(&mut e, "disable 3");
    assert!(run(&mut e, "info watchpoints").contains("3    hw watchpoint   keep  n "));
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
    run(&mut e, "restart");
    run(&mut e, "enable 3");
    run(&mut e, "delete 2");
    let (_, s) = stop(&mut e, "c");
    assert!(matches!(s.reason, StopReason::Watchpoint(_)));
    run(&mut e, "delete");
    assert_eq!(
        run(&mut e, "info breakpoints"),
        "No breakpoints or watchpoints.\n"
    );
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
}

#[test]
fn condition_command_sets_and_removes_conditions() {
    let mut e = one_wave_loop();
    run(&mut e, "break loop");
    assert_eq!(run(&mut e, "condition 1 v1 == 2"), "");
    assert!(run(&mut e, "info breakpoints").contains("        stop only if v1 == 2\n"));
    stop(&mut e, "c");
    assert_eq!(run(&mut e, "p v1[0]"), "v1[0] = 2\n");
    run(&mut e, "restart");
    run(&mut e, "condition 1");
    assert!(!run(&mut e, "info breakpoints").contains("stop only if"));
    stop(&mut e, "c");
    assert_eq!(run(&mut e, "p v1[0]"), "v1[0] = 0\n");
    fails_with_usage(&mut e, "condition 1 v1 ==", "bad condition `v1 ==`");
}

#[test]
fn continue_from_a_breakpoint_hits_it_again_next_iteration() {
    let mut e = one_wave_loop();
    run(&mut e, "break loop");
    for k in 0..3 {
        let (text, s) = stop(&mut e, "continue");
        assert!(text.starts_with("Breakpoint 1, wave 0 (workgroup 0), lanes 0-31\n  0x0024 <loop>"));
        assert_eq!(s.instructions, 6 + 4 * k);
        assert_eq!(run(&mut e, "p v1[0]"), format!("v1[0] = {k}\n"));
    }
    assert_eq!(stop(&mut e, "continue").1.reason, StopReason::Finished);
}

#[test]
fn brk_stops_and_continue_goes_on() {
    let mut e = engine(BRK);
    let (text, s) = stop(&mut e, "c");
    assert_eq!(s.reason, StopReason::BreakInstruction);
    assert_eq!(
        text,
        "Break instruction (brk), wave 0 (workgroup 0)\n  0x000c <after_brk>: vmovi v1, 6\n"
    );
    assert_eq!(run(&mut e, "p v1[0]"), "v1[0] = 5\n");
    let (text, s) = stop(&mut e, "c");
    assert_eq!(s.reason, StopReason::Finished);
    assert_eq!(
        text,
        "All waves exited (4 wave-instructions, 128 lane-ops).\n"
    );
    assert_eq!(run(&mut e, "p v1[0]"), "v1[0] = 6\n");
}

// ---------------------------------------------------------------------------------------
// Watchpoints
// ---------------------------------------------------------------------------------------

#[test]
fn watch_shared_memory_of_one_workgroup_written_by_several_waves() {
    let mut e = engine(WRITERS);
    assert_eq!(
        run(&mut e, "watch shared:0 4 workgroup 1"),
        "Hardware watchpoint 1: shared:0x0 (workgroup 1), 4 bytes\n"
    );
    let (text, s) = stop(&mut e, "c");
    assert_eq!(
        text,
        "\
Hardware watchpoint 1: shared:0x0 (4 bytes)
  written by wave 2 lanes 0, 4, 8, 12, 16, 20, 24, 28 at 0x0034 <store>: st.shared.b32 v4, v2, 0
  Old value = 0x00000000
  New value = 0x000000e4
  next: 0x003c <after_store>: wait.ls 0
"
    );
    assert_eq!(s.wave_id, Some(2));
    assert_eq!(s.pc, Some(0x3c));
    // The stop is precise: wave 2 is right after the store, wave 3 has not stored yet.
    let waves = run(&mut e, "info waves");
    assert!(
        waves.contains("*    2   1    0  ready        0x003c <after_store>"),
        "{waves}"
    );
    assert!(
        waves.contains("     3   1    1  ready        0x0030 "),
        "{waves}"
    );
    assert_eq!(run(&mut e, "x/1dw shared:0"), "shared:0x0: 228\n");
    let (text, s) = stop(&mut e, "c");
    assert!(
        text.contains("  written by wave 3 lanes 0, 4, 8, 12, 16, 20, 24, 28 at 0x0034 <store>")
    );
    assert!(text.contains("  Old value = 0x000000e4\n  New value = 0x00000148\n"));
    assert_eq!(s.wave_id, Some(3));
    assert!(run(&mut e, "info watchpoints").contains("        watchpoint already hit 2 times\n"));
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
}

#[test]
fn watch_shared_memory_of_the_selected_and_of_every_workgroup() {
    // Without `workgroup`, shared: means the selected wave's workgroup.
    let mut e = engine(WRITERS);
    run(&mut e, "wave 3");
    assert_eq!(
        run(&mut e, "watch shared:4"),
        "Hardware watchpoint 1: shared:0x4 (workgroup 1), 4 bytes\n"
    );
    let (_, s) = stop(&mut e, "c");
    assert_eq!(s.wave_id, Some(2));

    let mut e = engine(WRITERS);
    assert_eq!(
        run(&mut e, "watch shared:4 4 workgroup all"),
        "Hardware watchpoint 1: shared:0x4 (every workgroup), 4 bytes\n"
    );
    assert!(run(&mut e, "info watchpoints").contains(
        "1    hw watchpoint   keep  y                     shared:0x4 (4 bytes) (every workgroup)\n"
    ));
    let mut seen = Vec::new();
    loop {
        let (text, s) = stop(&mut e, "c");
        if s.reason == StopReason::Finished {
            break;
        }
        let w = s.wave_id.unwrap();
        assert!(text.contains(&format!(
            "  written by wave {w} lanes 1, 5, 9, 13, 17, 21, 25, 29 at 0x0034 <store>"
        )));
        assert!(text.contains(&format!("  New value = {:#010x}\n", 100 * w + 29)));
        seen.push(w);
    }
    assert_eq!(seen, vec![0, 1, 2, 3]);
}

#[test]
fn watch_global_memory_with_a_condition() {
    let mut e = engine(ATOMIC);
    assert_eq!(
        run(
            &mut e,
            "watch global:0x100000000 4 if global:0x100000000 >= 64"
        ),
        "Hardware watchpoint 1: global:0x100000000, 4 bytes\n"
    );
    assert!(
        run(&mut e, "info watchpoints").contains("        stop only if global:0x100000000 >= 64\n")
    );
    let (text, s) = stop(&mut e, "c");
    assert_eq!(s.wave_id, Some(1));
    assert_eq!(
        text,
        "\
Hardware watchpoint 1: global:0x100000000 (4 bytes)
  read and written (atomic) by wave 1 lanes 0-31 at 0x0010 <add>: atom.ubase.add.u32 v1, u[0:1], v2, 0
  Old value = 0x00000020
  New value = 0x00000040
  next: 0x0018 <after_add>: wait.vst 0
"
    );
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
}

#[test]
fn rwatch_and_awatch_count_atomics_as_reads_and_writes() {
    let mut e = engine(ATOMIC);
    assert_eq!(
        run(&mut e, "rwatch 0x100000000"),
        "Hardware read watchpoint 1: global:0x100000000, 4 bytes\n"
    );
    let (text, _) = stop(&mut e, "c");
    assert!(text.starts_with(
        "Hardware read watchpoint 1: global:0x100000000 (4 bytes)\n  read and written (atomic) by wave 0 lanes 0-31 at 0x0010 <add>"
    ), "{text}");
    let (text, _) = stop(&mut e, "c");
    assert_eq!(
        text,
        "\
Hardware read watchpoint 1: global:0x100000000 (4 bytes)
  read by wave 0 lanes 0-31 at 0x001c <load>: ld.ubase.b32 v5, u[0:1], v2, 0
  Value = 0x00000020
  next: 0x0024 <after_load>: wait.vm 0
"
    );

    let mut e = engine(ATOMIC);
    assert_eq!(
        run(&mut e, "awatch global:0x100000000 1"),
        "Hardware access (read/write) watchpoint 1: global:0x100000000, 1 byte\n"
    );
    let mut kinds = Vec::new();
    loop {
        let (text, s) = stop(&mut e, "c");
        if s.reason == StopReason::Finished {
            break;
        }
        assert!(text.starts_with(
            "Hardware access (read/write) watchpoint 1: global:0x100000000 (1 byte)\n"
        ));
        kinds.push(
            text.lines()
                .nth(1)
                .unwrap()
                .split(" by ")
                .next()
                .unwrap()
                .trim()
                .to_string(),
        );
    }
    assert_eq!(
        kinds,
        vec![
            "read and written (atomic)",
            "read",
            "read and written (atomic)",
            "read"
        ]
    );
    assert!(run(&mut e, "info watchpoints").contains("1    acc watchpoint  keep  y                     global:0x100000000 (1 byte)\n        watchpoint already hit 4 times\n"));
}

#[test]
fn watch_one_lanes_scratch() {
    let mut e = engine(SCRATCH);
    run(&mut e, "wave 1");
    run(&mut e, "lane 2");
    assert_eq!(
        run(&mut e, "watch scratch:8"),
        "Hardware watchpoint 1: scratch:0x8 (wave 1 lane 2), 4 bytes\n"
    );
    assert_eq!(
        run(&mut e, "watch scratch:8 4 wave 0 lane 31"),
        "Hardware watchpoint 2: scratch:0x8 (wave 0 lane 31), 4 bytes\n"
    );
    run(&mut e, "disable 2");
    let (text, s) = stop(&mut e, "c");
    assert_eq!(s.wave_id, Some(1));
    assert_eq!(
        text,
        "\
Hardware watchpoint 1: scratch:0x8 (4 bytes)
  written by wave 1 lane 2 at 0x001c <spill>: st.scratch.b32 v4, v8, 8
  Old value = 0x00000000
  New value = 0x00000066
  next: 0x0024 <after_spill>: wait.vst 0
"
    );
    // Every lane wrote its own offset 8; the selected lane (2) sees its value.
    assert_eq!(run(&mut e, "x/1dw scratch:8"), "scratch:0x8: 102\n");
    run(&mut e, "lane 7");
    assert_eq!(run(&mut e, "x/1dw scratch:8"), "scratch:0x8: 107\n");
    run(&mut e, "wave 0");
    assert_eq!(run(&mut e, "x/1dw scratch:8"), "scratch:0x8: 7\n");
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
}

#[test]
fn many_watchpoints_and_one_never_hit() {
    let mut e = engine(LOOP);
    for i in 0..64u64 {
        let text = run(&mut e, &format!("watch global:{:#x}", BUF + 4 * i));
        assert_eq!(
            text,
            format!(
                "Hardware watchpoint {}: global:{:#x}, 4 bytes\n",
                i + 1,
                BUF + 4 * i
            )
        );
    }
    run(&mut e, "awatch global:0x100000300 16");
    let (text, s) = stop(&mut e, "c");
    assert_eq!(s.wave_id, Some(0));
    assert_eq!(text.matches("Hardware watchpoint ").count(), 32);
    assert!(text.contains(
        "Hardware watchpoint 32: global:0x10000007c (4 bytes)\n  written by wave 0 lane 31 at 0x0060 <store>: st.ubase.b32 v3, u[0:1], v2, 0\n  Old value = 0x00000000\n  New value = 0x0000007f\n"
    ));
    let (text, s) = stop(&mut e, "c");
    assert_eq!(s.wave_id, Some(1));
    assert!(text.contains(
        "Hardware watchpoint 33: global:0x100000080 (4 bytes)\n  written by wave 1 lane 0 "
    ));
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
    let info = run(&mut e, "info watchpoints");
    assert_eq!(info.matches("watchpoint already hit 1 time\n").count(), 64);
    assert!(info.ends_with(
        "65   acc watchpoint  keep  y                     global:0x100000300 (16 bytes)\n"
    ));
}

// ---------------------------------------------------------------------------------------
// Control
// ---------------------------------------------------------------------------------------

#[test]
fn stepi_with_and_without_scheduler_locking() {
    let mut e = engine(LOOP);
    run(&mut e, "wave 2");
    let (text, s) = stop(&mut e, "stepi 3");
    assert_eq!(
        text,
        "wave 2 (workgroup 1)\n  0x000c: vmuli.u32 v3, v0, 4\n"
    );
    assert_eq!(s.reason, StopReason::Step);
    let pcs: Vec<u64> = e.machine().waves.iter().map(|w| w.pc).collect();
    assert_eq!(pcs, vec![0, 0, 0x0c, 0], "only the selected wave moved");
    let (text, _) = stop(&mut e, "si");
    assert_eq!(text, "wave 2 (workgroup 1)\n  0x0014: umovi u6, 3\n");
    assert_eq!(
        run(&mut e, "info waves"),
        [
            "  Wave  WG  Idx  State        PC                       Active",
            "     0   0    0  ready        0x0000                   32/32",
            "     1   0    1  ready        0x0000                   32/32",
            "*    2   1    0  ready        0x0014                   32/32",
            "     3   1    1  ready        0x0000                   32/32",
            "",
        ]
        .join("\n")
    );
    assert_eq!(run(&mut e, "set scheduler-locking off"), "");
    assert!(!e.scheduler_locking);
    let (text, _) = stop(&mut e, "si 2");
    assert_eq!(
        text,
        "wave 2 (workgroup 1)\n  0x0024 <loop>: vaddi.u32 v1, v1, 1\n"
    );
    let pcs: Vec<u64> = e.machine().waves.iter().map(|w| w.pc).collect();
    assert_eq!(
        pcs,
        vec![0x08, 0x08, 0x24, 0x08],
        "every ready wave moved twice"
    );
    run(&mut e, "set scheduler-locking step");
    assert!(e.scheduler_locking);
    run(&mut e, "set scheduler-locking on");
    assert!(e.scheduler_locking);
    stop(&mut e, "si 3");
    let pcs: Vec<u64> = e.machine().waves.iter().map(|w| w.pc).collect();
    assert_eq!(pcs, vec![0x08, 0x08, 0x3c, 0x08]);
}

#[test]
fn advance_until_u_and_finish() {
    let mut e = engine(LOOP);
    run(&mut e, "wave 1");
    let (text, s) = stop(&mut e, "advance after");
    assert_eq!(
        text,
        "wave 1 (workgroup 0) reached 0x40\n  0x0040 <after>: ushli u7, u4, 6\n"
    );
    assert_eq!(s.reason, StopReason::Reached(Reached::Address(0x40)));
    assert_eq!(run(&mut e, "p v1[31]"), "v1[31] = 3\n");
    let (text, _) = stop(&mut e, "until store");
    assert_eq!(
        text,
        "wave 1 (workgroup 0) reached 0x60\n  0x0060 <store>: st.ubase.b32 v3, u[0:1], v2, 0\n"
    );
    run(&mut e, "restart");
    run(&mut e, "wave 3");
    let (text, _) = stop(&mut e, "u loop+16");
    assert!(
        text.starts_with("wave 3 (workgroup 1) reached 0x34\n"),
        "{text}"
    );
    let (text, s) = stop(&mut e, "finish");
    assert_eq!(s.reason, StopReason::Reached(Reached::Exit));
    assert!(text.starts_with("wave 3 (workgroup 1) "), "{text}");
    assert!(text.contains("exit"), "{text}");
    assert!(run(&mut e, "info waves").contains("*    3   1    1  exited "));
    // finish only ran wave 3.
    assert_eq!(e.machine().waves[0].pc, e.machine().waves[1].pc);
    assert_eq!(run(&mut e, "x/1dw 0x100000184"), "global:0x100000184: 7\n");
}

#[test]
fn advance_barrier_and_a_blocked_step() {
    let mut e = engine(BARRIER);
    run(&mut e, "wave 1");
    let (text, s) = stop(&mut e, "advance barrier");
    assert_eq!(s.reason, StopReason::Reached(Reached::Barrier));
    assert_eq!(
        text,
        "wave 1 (workgroup 0) reached the barrier at 0x002c <sync> and stopped after it, waiting for the other waves of its workgroup\n  next: 0x0030 <after_barrier>: nop\n"
    );
    assert!(
        run(&mut e, "info waves").contains("*    1   0    1  at barrier   0x0030 <after_barrier>")
    );
    let (text, s) = stop(&mut e, "stepi");
    assert!(matches!(s.reason, StopReason::Blocked(_)));
    assert_eq!(
        text,
        "Cannot run wave 1 (workgroup 0): the wave waits at a barrier for the other waves of its workgroup, which are frozen (continue, or set scheduler-locking off)\n"
    );
    run(&mut e, "set scheduler-locking off");
    stop(&mut e, "si 9");
    let waves = run(&mut e, "info waves");
    assert!(
        waves.contains("     0   0    0  ready        0x0030 <after_barrier>"),
        "{waves}"
    );
    assert!(
        waves.contains("*    1   0    1  ready        0x0030 <after_barrier>"),
        "{waves}"
    );
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
}

#[test]
fn interrupt_with_nothing_running() {
    let mut e = engine(LOOP);
    assert_eq!(
        run(&mut e, "interrupt"),
        "Nothing is running (Ctrl-C interrupts a run in progress).\n"
    );
    assert_eq!(e.machine().stats.wave_instructions, 0);
    // An interrupt requested just before a run stops it at once (a client's Ctrl-C can
    // race its own `continue`), and the stop consumes it: the next run goes on.
    e.interrupt_handle().interrupt();
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Interrupted);
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
}

#[test]
fn restart_and_its_aliases_keep_breakpoints() {
    let mut e = engine(LOOP);
    run(&mut e, "break store wave 1");
    run(&mut e, "watch 0x100000000");
    let (first, _) = stop(&mut e, "c");
    for alias in ["restart", "run", "r"] {
        stop(&mut e, "c");
        run(&mut e, "wave 3");
        assert_eq!(
            run(&mut e, alias),
            "Restarted: 4 waves resident, all at 0x0000.\n"
        );
        assert!(run(&mut e, "info waves").contains("*    0   0    0  ready        0x0000"));
        assert_eq!(
            run(&mut e, "x/1xw 0x100000000"),
            "global:0x100000000: 0x00000000\n"
        );
        let info = run(&mut e, "info breakpoints");
        assert!(info.contains("1    breakpoint      keep  y    0x0060           0x0060 <store>\n        wave 1 only\n"));
        assert!(info.contains(
            "2    hw watchpoint   keep  y                     global:0x100000000 (4 bytes)\n"
        ));
        assert_eq!(stop(&mut e, "c").0, first, "{alias}");
    }
}

#[test]
fn faults_and_deadlocks_are_reported() {
    let mut e = engine(FAULT);
    let (text, s) = stop(&mut e, "c");
    assert!(s.is_terminal());
    assert_eq!(
        text,
        "Program received signal SIGSEGV: shared access of 4 bytes outside the 64-byte shared window [wave 0 (workgroup 0), pc 0x000c, address 0x40, lanes 16-31, `st.shared.b32 v0, v2, 0`]\n"
    );
    assert!(run(&mut e, "info waves").contains("    0   0    0  faulted      0x000c <bad>"));

    let mut e = engine(DEADLOCK);
    let (text, s) = stop(&mut e, "c");
    assert!(matches!(s.reason, StopReason::Deadlock(_)));
    // The deadlock names each waiting wave's PC as `info waves` shows it (past the
    // barrier) and the barrier it waits at.
    assert_eq!(
        text,
        "Deadlock: deadlock in workgroup 0: wave 0 (pc 0x000c <wait_here+4>) waits at the barrier at 0x0008 <wait_here>; wave 1 (exited) will never arrive\n"
    );
    let waves = run(&mut e, "info waves");
    assert!(
        waves.contains("    0   0    0  at barrier   0x000c <wait_here+4>"),
        "{waves}"
    );
    assert!(waves.contains("     1   0    1  exited "), "{waves}");
}

// ---------------------------------------------------------------------------------------
// Selection and inspection
// ---------------------------------------------------------------------------------------

#[test]
fn wave_and_lane_selection() {
    let mut e = engine(COND);
    stop(&mut e, "si 4");
    assert_eq!(
        run(&mut e, "lane 3"),
        "[Switching to lane 3 of wave 0 (active)]\n"
    );
    assert_eq!(e.selected_lane, 3);
    assert_eq!(
        run(&mut e, "lane 30"),
        "[Switching to lane 30 of wave 0 (inactive)]\n"
    );
    let lanes = run(&mut e, "info lanes");
    assert!(
        lanes.starts_with("wave 0: EXEC = 0x0fffffff (28 active)\n"),
        "{lanes}"
    );
    assert!(lanes.contains("  lane 27  active\n"), "{lanes}");
    assert!(lanes.contains("* lane 30  inactive\n"), "{lanes}");
    assert!(lanes.contains("  lane 29  inactive\n"));
    assert_eq!(lanes.lines().count(), 33);

    let mut e = engine(LOOP);
    assert_eq!(
        run(&mut e, "wave 2"),
        "[Switching to wave 2 (workgroup 1), ready]\n  0x0000: uwgid u4\n"
    );
    assert_eq!(e.selected_wave, 2);
    assert_eq!(
        run(&mut e, "thread 3"),
        "[Switching to wave 3 (workgroup 1), ready]\n  0x0000: uwgid u4\n"
    );
    assert_eq!(run(&mut e, "p wave"), "wave = 3\n");
    fails_with_usage(
        &mut e,
        "wave 7",
        "no resident wave 7 (resident: 0, 1, 2, 3)",
    );
    assert_eq!(e.selected_wave, 3);
}

#[test]
fn print_a_vector_register_across_lanes() {
    let mut e = engine(COND);
    run(&mut e, "break here");
    stop(&mut e, "c");
    let text = run(&mut e, "print v3");
    assert!(
        text.starts_with("v3 (wave 0, EXEC 0x0fffffff):\n"),
        "{text}"
    );
    let c = cells(&text);
    let expect: Vec<String> = (0..32).map(|l| format!("{:#010x}", 4 * l)).collect();
    assert_eq!(values(&c), expect);
    assert_eq!(lane_set(&c, |c| c.inactive), vec![28, 29, 30, 31]);
    // Changed since the previous stop (the launch): every lane but 0, whose 0 stayed 0.
    assert_eq!(lane_set(&c, |c| c.changed), (1..32).collect::<Vec<_>>());
    // One step later only the active lanes changed, by one.
    stop(&mut e, "si");
    let c = cells(&run(&mut e, "p v3"));
    assert_eq!(lane_set(&c, |c| c.changed), (0..28).collect::<Vec<_>>());
    assert_eq!(c[0].value, "0x00000001");
    assert_eq!(c[28].value, "0x00000070");
    // Formats apply to every lane.
    let c = cells(&run(&mut e, "p/d v3"));
    assert_eq!(c[5].value, "21");
    assert_eq!(c[31].value, "124");
    let c = cells(&run(&mut e, "p/u v0"));
    assert_eq!(
        values(&c),
        (0..32).map(|l| l.to_string()).collect::<Vec<_>>()
    );
    assert!(c.iter().all(|c| !c.changed));
    // `info registers vN` is the same view.
    assert_eq!(run(&mut e, "info registers v3"), run(&mut e, "p v3"));
    // A per-lane expression is shown by lane, inactive lanes in parentheses.
    let text = run(&mut e, "print v3 * 2 + lane");
    assert!(text.starts_with("v3 * 2 + lane (by lane; inactive lanes in parentheses):\n"));
    let c = cells(&text);
    assert_eq!(
        values(&c),
        (0..32)
            .map(|l| (2 * (4 * l + u32::from(l < 28)) + l).to_string())
            .collect::<Vec<_>>()
    );
    assert_eq!(lane_set(&c, |c| c.inactive), vec![28, 29, 30, 31]);
}

#[test]
fn print_scalars_in_every_format() {
    let mut e = engine(COND);
    run(&mut e, "break here");
    stop(&mut e, "c");
    for (line, expect) in [
        ("p v3[5]", "v3[5] = 20"),
        ("p/x v3[5]", "v3[5] = 0x00000014"),
        ("p/d v3[5]", "v3[5] = 20"),
        ("p/u v3[5]", "v3[5] = 20"),
        ("p/t v3[5]", "v3[5] = 00000000000000000000000000010100"),
        ("p/o v3[5]", "v3[5] = 0o24"),
        ("p/c 65", "65 = 'A'"),
        ("p/f 0x3fc00000", "0x3fc00000 = 1.5"),
        ("p/f 0xc0490fdb", "0xc0490fdb = -3.1415927"),
        ("p/x -1", "-1 = 0xffffffff"),
        ("p/d 0xffffffff", "0xffffffff = -1"),
        ("p -5", "-5 = -5"),
        ("p s32(v3[0] - 100)", "s32(v3[0] - 100) = -100"),
        ("p u32(-1)", "u32(-1) = 4294967295"),
        ("p u7", "u7 = 268435455"),
        ("p/x u7", "u7 = 0x0fffffff"),
        ("p $u7 & 0xff", "$u7 & 0xff = 255"),
        ("p exec", "exec = 0x0fffffff (28 active: 0-27)"),
        ("p/x exec", "exec = 0x0fffffff"),
        ("p pc", "pc = 0x0018 <here>"),
        ("p/x pc", "pc = 0x00000018"),
        ("p here", "here = 0x0018 <here>"),
        ("p/d here", "here = 24"),
        ("p wave", "wave = 0"),
        ("p (1 + 2) * 3 << 1", "(1 + 2) * 3 << 1 = 18"),
        ("p 7 % 3 == 1 && !0", "7 % 3 == 1 && !0 = 1"),
        ("p ~0 ^ 0xf", "~0 ^ 0xf = -16"),
        ("p 0b101 | 0o10", "0b101 | 0o10 = 13"),
        (
            "p/x 0x1_0000_0000 + 1",
            "0x1_0000_0000 + 1 = 0x0000000100000001",
        ),
    ] {
        assert_eq!(run(&mut e, line), format!("{expect}\n"), "{line}");
    }
    // `lane` in print is the selected lane (issue: `p lane` printed all 32 lanes).
    run(&mut e, "lane 6");
    assert_eq!(
        run(&mut e, "p v3[lane]").lines().count(),
        1,
        "the selected lane"
    );
    assert_eq!(run(&mut e, "p lane"), "lane = 6\n");
    assert_eq!(
        run(&mut e, "expect v3 == 24").lines().next(),
        Some("expect ok: v3 == 24")
    );
}

#[test]
fn print_memory_of_each_space() {
    let mut e = engine(WRITERS);
    run(&mut e, "break after_gstore wave 0");
    stop(&mut e, "c");
    // shared:N reads the selected wave's workgroup.
    assert_eq!(run(&mut e, "p shared:0"), "shared:0 = 128\n");
    assert_eq!(run(&mut e, "p/x shared:12"), "shared:12 = 0x00000083\n");
    run(&mut e, "wave 2");
    assert_eq!(
        run(&mut e, "p shared:0"),
        "shared:0 = 328\n",
        "workgroup 1's window"
    );
    assert_eq!(
        run(&mut e, "p global:0x100000004"),
        "global:0x100000004 = 1\n"
    );
    assert_eq!(
        run(&mut e, "p global:(0x100000000 + 4 * 5)"),
        "global:(0x100000000 + 4 * 5) = 5\n"
    );

    let mut e = engine(SCRATCH);
    run(&mut e, "break after_spill wave 1");
    stop(&mut e, "c");
    let text = run(&mut e, "p scratch:8");
    assert!(text.starts_with("scratch:8 (by lane; inactive lanes in parentheses):\n"));
    let c = cells(&text);
    assert_eq!(
        values(&c),
        (0..32).map(|l| (100 + l).to_string()).collect::<Vec<_>>()
    );
}

#[test]
fn examine_memory_in_each_space() {
    let mut e = engine(WRITERS);
    run(&mut e, "break after_gstore wave 0");
    stop(&mut e, "c");
    assert_eq!(
        run(&mut e, "x/4xw shared:0"),
        "shared:0x0: 0x00000080 0x00000081 0x00000082 0x00000083\n"
    );
    assert_eq!(
        run(&mut e, "x/4dw shared:0"),
        "shared:0x0: 128 129 130 131\n"
    );
    assert_eq!(
        run(&mut e, "x/8xb shared:0"),
        "shared:0x0: 0x80 0x00 0x00 0x00 0x81 0x00 0x00 0x00\n"
    );
    assert_eq!(run(&mut e, "x/2xh shared:4"), "shared:0x4: 0x0081 0x0000\n");
    assert_eq!(
        run(&mut e, "x/2xg shared:0"),
        "shared:0x0: 0x0000008100000080 0x0000008300000082\n"
    );
    assert_eq!(run(&mut e, "x/db shared:0"), "shared:0x0: -128\n");
    assert_eq!(run(&mut e, "x/ub shared:0"), "shared:0x0: 128\n");
    assert_eq!(run(&mut e, "x/tb shared:0"), "shared:0x0: 10000000\n");
    assert_eq!(run(&mut e, "x/ob shared:0"), "shared:0x0: 0o200\n");
    assert_eq!(run(&mut e, "x shared:0"), "shared:0x0: 0x00000080\n");
    assert_eq!(
        run(&mut e, "x/4xw global:0x100000000"),
        "global:0x100000000: 0x00000000 0x00000001 0x00000002 0x00000003\n"
    );
    // Rows of 16 bytes, addressed.
    assert_eq!(
        run(&mut e, "x/6xw global:0x100000000"),
        "global:0x100000000: 0x00000000 0x00000001 0x00000002 0x00000003\nglobal:0x100000010: 0x00000004 0x00000005\n"
    );
    assert_eq!(
        run(&mut e, "x/2xw 0x100000000 + 4 * 2"),
        "global:0x100000008: 0x00000002 0x00000003\n"
    );
    // Memory and values written by the debugger.
    run(&mut e, "set global:0x100000100 = 0x44434241");
    assert_eq!(
        run(&mut e, "x/4cb 0x100000100"),
        "global:0x100000100: 'A' 'B' 'C' 'D'\n"
    );
    run(&mut e, "set global:0x100000104 = 0x3fc00000");
    assert_eq!(run(&mut e, "x/fw 0x100000104"), "global:0x100000104: 1.5\n");

    let mut e = engine(SCRATCH);
    run(&mut e, "break after_spill wave 1");
    stop(&mut e, "c");
    run(&mut e, "lane 9");
    assert_eq!(
        run(&mut e, "x/4xw scratch:0"),
        "scratch:0x0: 0x00000000 0x00000000 0x0000006d 0x00000000\n"
    );
    assert_eq!(run(&mut e, "x/4dw scratch:0"), "scratch:0x0: 0 0 109 0\n");
    fails_with_usage(&mut e, "x/5xw scratch:0", "outside the 16-byte window");
}

#[test]
fn info_registers_shows_counters_and_outstanding_registers() {
    let mut e = engine(ATOMIC);
    run(&mut e, "break after_load");
    stop(&mut e, "c");
    let regs = run(&mut e, "info registers");
    let lines: Vec<&str> = regs.lines().collect();
    assert_eq!(lines[0], "wave 0 (workgroup 0, index 0), ready");
    assert_eq!(lines[1], "  pc   0x0024 <after_load>*");
    assert_eq!(
        lines[2],
        "  exec 0xffffffff  11111111111111111111111111111111"
    );
    assert_eq!(lines[3], "  counters vm=1 vst=0 ls=0 sm=0");
    assert_eq!(lines[4], "  outstanding v5 (vm from 0x001c)");
    assert!(lines[5].starts_with("  u0 =0x00000000  u1 =0x00000001  u2 =0x00000000 "));
    assert_eq!(lines.len(), 5 + 8);
    assert!(regs.contains("u63=0x00000000"));
    // After the wait nothing is outstanding.
    stop(&mut e, "si");
    let regs = run(&mut e, "i r");
    assert!(regs.contains("  counters vm=0 vst=0 ls=0 sm=0\n"), "{regs}");
    assert!(!regs.contains("outstanding"), "{regs}");
    // Counters of a store without wait.
    run(&mut e, "restart");
    run(&mut e, "advance after_add");
    assert!(run(&mut e, "info registers").contains("  counters vm=0 vst=1 ls=0 sm=0\n"));

    // Registers changed by the last step are marked; earlier changes are not.
    let mut e = one_wave_loop();
    stop(&mut e, "si 4");
    let regs = run(&mut e, "info reg");
    assert!(regs.contains("  pc   0x0014*\n"), "{regs}");
    assert!(regs.contains("u5 =0x00000000 "), "{regs}");
    assert!(regs.contains("u6 =0x00000000 "), "{regs}");
    stop(&mut e, "si");
    let regs = run(&mut e, "info registers");
    assert!(regs.contains("u6 =0x00000003*"), "{regs}");
    assert!(regs.contains("u4 =0x00000000 "), "{regs}");
    // A register set by the user before resuming is not a change made by the run.
    run(&mut e, "set u9 = 5");
    stop(&mut e, "si");
    let regs = run(&mut e, "info r");
    assert!(regs.contains("u9 =0x00000005 "), "{regs}");
    assert!(regs.contains("u6 =0x00000003 "), "{regs}");
}

#[test]
fn info_changes_lists_registers_and_memory() {
    let mut e = engine(WRITERS);
    assert_eq!(
        run(&mut e, "info changes"),
        "Nothing changed since the previous stop.\n"
    );
    run(&mut e, "break after_store wave 0");
    run(&mut e, "break after_gstore wave 0");
    stop(&mut e, "c");
    let changes = run(&mut e, "info changes");
    assert!(changes.contains("wave 0: pc\n"), "{changes}");
    assert!(changes.contains("wave 0: v4 lanes 1-31\n"), "{changes}");
    assert!(
        changes.contains("wave 0: v2 lanes 1-3, 5-7, 9-11, 13-15, 17-19, 21-23, 25-27, 29-31\n"),
        "{changes}"
    );
    // lanes 28-31 of wave 0 stored 28-31 to shared:0-15 (only the low bytes changed; runs
    // within 16 bytes of each other are shown as one range).
    assert!(
        changes.contains("shared workgroup 0: 0x0..0xd "),
        "{changes}"
    );
    stop(&mut e, "c");
    let changes = run(&mut e, "info changes");
    assert!(
        changes.contains("global out: 0x100000004..0x1000000fd (249 bytes)"),
        "{changes}"
    );
    assert!(!changes.contains("wave 0: v4"), "{changes}");
    // Stepping: only what the step changed.
    stop(&mut e, "si");
    assert_eq!(run(&mut e, "info changes"), "wave 0: pc\n");
}

#[test]
fn set_registers_lanes_and_memory_then_the_kernel_sees_them() {
    let mut e = engine(READER);
    run(&mut e, "break ready");
    stop(&mut e, "c");
    for line in [
        "set shared:8 = 100",
        "set global:0x100000014 = 10000",
        "set v9 = 5",
        "set v9[7] = 7",
        "set var u20 = 0x1234",
        "set $u21 = u20 + 1",
    ] {
        assert_eq!(run(&mut e, line), "", "{line}");
    }
    // scratch: is the selected lane's.
    run(&mut e, "lane 3");
    assert_eq!(run(&mut e, "set scratch:4 = 1000"), "");
    assert_eq!(run(&mut e, "p/x u21"), "u21 = 0x00001235\n");
    let c = cells(&run(&mut e, "p scratch:4"));
    let mut expect = vec!["0".to_string(); 32];
    expect[3] = "1000".into();
    assert_eq!(values(&c), expect, "only lane 3's scratch was set");
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
    assert_eq!(
        run(&mut e, "x/8dw 0x100000080"),
        "global:0x100000080: 5 5 105 1005\nglobal:0x100000090: 5 10005 5 7\n"
    );

    // EXEC and PC.
    let mut e = one_wave_loop();
    run(&mut e, "break after");
    stop(&mut e, "c");
    run(&mut e, "set u6 = 1");
    run(&mut e, "set pc = loop");
    assert_eq!(run(&mut e, "p pc"), "pc = 0x0024 <loop>\n");
    run(&mut e, "set exec = 0b101");
    assert_eq!(
        run(&mut e, "p exec"),
        "exec = 0x00000005 (2 active: 0, 2)\n"
    );
    run(&mut e, "delete");
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
    // Lanes 0 and 2 ran one more iteration and stored; the others stored nothing.
    assert_eq!(
        run(&mut e, "x/4dw 0x100000000"),
        "global:0x100000000: 4 0 12 0\n"
    );
    assert_eq!(e.machine().waves[0].state, WaveState::Exited);
}

#[test]
fn disassemble_marks_the_pc_and_breakpoints() {
    let mut e = one_wave_loop();
    run(&mut e, "break loop+8");
    run(&mut e, "break store");
    run(&mut e, "disable 2");
    stop(&mut e, "si 2");
    let text = run(&mut e, "disassemble");
    assert_eq!(
        text,
        [
            "    0x0000  uwgid u4",
            "    0x0004  uwaveid u5",
            "=>  0x0008  vlaneid v0",
            "    0x000c  vmuli.u32 v3, v0, 4",
            "    0x0014  umovi u6, 3",
            "    0x001c  vmovi v1, 0",
            "loop:",
            "    0x0024  vaddi.u32 v1, v1, 1",
            "  B 0x002c  vaddi.u32 v3, v3, 1",
            "    0x0034  uaddi u6, u6, -1",
            "    0x003c  br.unz u6, loop",
            "after:",
            "    0x0040  ushli u7, u4, 6",
            "    0x0048  ushli u8, u5, 5",
            "    0x0050  uadd u7, u7, u8",
            "",
        ]
        .join("\n")
    );
    let text = run(&mut e, "disas store");
    assert!(
        text.contains("store:\n    0x0060  st.ubase.b32 v3, u[0:1], v2, 0\n"),
        "disabled: no B\n{text}"
    );
    assert!(!text.contains("=>"), "the PC is outside the window\n{text}");
    run(&mut e, "enable 2");
    run(&mut e, "delete 1");
    stop(&mut e, "c");
    let text = run(&mut e, "disassemble");
    assert!(
        text.contains("=>B 0x0060  st.ubase.b32 v3, u[0:1], v2, 0\n"),
        "{text}"
    );
    assert_eq!(run(&mut e, "disassemble 0x60"), text);
}

#[test]
fn expect_passes_and_fails_with_both_values() {
    let mut e = engine(COND);
    run(&mut e, "break here");
    stop(&mut e, "c");
    for (line, passed) in [
        ("expect v3[5] == 20", true),
        ("expect v3[5] != 20", false),
        ("expect v3[5] < 21", true),
        ("expect v3[5] <= 19", false),
        ("expect v3[5] > 19", true),
        ("expect v3[5] >= 21", false),
        ("expect s32(u7 - 0x10000000) < 0", true),
        ("expect exec == 0x0fffffff", true),
        ("expect pc == here", true),
    ] {
        let o = out(&mut e, line);
        let outcome = o.expect.expect("an outcome");
        assert_eq!(outcome.passed, passed, "{line}");
        assert_eq!(outcome.text, line.trim_start_matches("expect ").to_string());
        if passed {
            assert_eq!(o.text, format!("expect ok: {}\n", outcome.text));
        } else {
            assert!(o.text.starts_with("expect FAILED: "), "{}", o.text);
        }
    }
    assert_eq!(
        run(&mut e, "expect v3[5] == 21"),
        "expect FAILED: v3[5] == 21: left side v3[5] = 20 (0x14), right side 21 = 21 (0x15); they differ\n"
    );
    assert_eq!(
        run(&mut e, "expect u7 < v3[2] + 1"),
        "expect FAILED: u7 < v3[2] + 1: left side u7 = 268435455 (0xfffffff), right side v3[2] + 1 = 9 (0x9); it does not hold\n"
    );
}

// ---------------------------------------------------------------------------------------
// Determinism
// ---------------------------------------------------------------------------------------

/// The transcript of a script: every command and what it printed (or its error).
fn transcript(e: &mut Engine, lines: &str) -> String {
    let mut s = String::new();
    for line in lines.lines() {
        s.push_str(&format!("(wavedbg) {line}\n"));
        match e.execute_line(line) {
            Ok(o) => s.push_str(&o.text),
            Err(err) => s.push_str(&format!("error: {err}\n")),
        }
    }
    s
}

#[test]
fn the_same_script_gives_byte_identical_output() {
    let session = [
        "# a histogram session",
        "info waves",
        "break next_word+8 if v4 > 0xf0000000 workgroup 2",
        "watch shared:0x40 4 workgroup all",
        "rwatch 0x100000000 16",
        "continue",
        "info breakpoints",
        "c",
        "c",
        "c",
        "c",
        "c",
        "print v4",
        "p/x v5",
        "x/8xw shared:0x40",
        "info changes",
        "info registers",
        "stepi 5",
        "set scheduler-locking off",
        "si 3",
        "info waves",
        "delete 3",
        "c",
        "c",
        "info breakpoints",
        "disassemble",
        "wave 5",
        "lane 17",
        "info lanes",
        "delete",
        "continue",
        "x/4dw global:0x100020000",
        "expect global:0x100020000 > 0",
        "restart",
        "tbreak merged",
        "c",
        "info changes",
        "p v9 + 1",
        "finish",
        "frobnicate",
        "p v999",
    ]
    .join("\n");
    let p = script("histogram.s");
    let options = LaunchOptions {
        seed: 42,
        ..Default::default()
    };
    let mut a = Engine::new(&p, options).unwrap();
    let mut b = Engine::new(&p, options).unwrap();
    let ta = transcript(&mut a, &session);
    let tb = transcript(&mut b, &session);
    assert_eq!(ta, tb);
    assert!(ta.contains("Breakpoint 1, wave "), "{ta}");
    assert!(
        ta.contains("Hardware watchpoint 2: shared:0x40 (4 bytes)"),
        "{ta}"
    );
    assert!(ta.contains("All waves exited"), "{ta}");
    assert!(ta.contains("error: unknown command `frobnicate`"), "{ta}");
    // An engine that ran before replays the script identically after a restart.
    let mut c = Engine::new(&p, options).unwrap();
    transcript(
        &mut c,
        "si 7\nset scheduler-locking off\nsi 3\nset scheduler-locking on\nc\nrestart",
    );
    assert_eq!(transcript(&mut c, &session), ta);
}

#[test]
fn scripts_of_the_example_kernels_run_to_the_end() {
    for name in [
        "scan.s",
        "reduce.s",
        "divergent.s",
        "transpose.s",
        "bufdesc.s",
        "spill.s",
    ] {
        let p = script(name);
        let mut e = Engine::new(&p, LaunchOptions::default()).unwrap();
        let (text, s) = stop(&mut e, "c");
        assert_eq!(s.reason, StopReason::Finished, "{name}: {text}");
        assert!(text.starts_with("All waves exited ("), "{name}: {text}");
    }
}

// ---------------------------------------------------------------------------------------
// Engine bugs: the expected behaviour, ignored until fixed
// ---------------------------------------------------------------------------------------

/// `p/f` of a tiny (denormal) float prints every decimal digit
/// (`0.000000000000000000000000000000000000000000006` for 1), which also breaks the
/// columns of `p/f v3`; gdb prints `1.40129846e-45`.
#[test]
fn print_float_uses_exponent_form_for_tiny_values() {
    let mut e = engine(COND);
    let text = run(&mut e, "p/f 1");
    assert!(text.contains("e-45"), "{text}");
    assert!(text.len() < 30, "{text}");
}

/// A bare `info` says "unknown `info `" (an empty subcommand) instead of saying that it
/// needs one; gdb lists the subcommands.
/// `info registers v200` shows the usage of `print` (it is evaluated as a print).
#[test]
fn info_registers_errors_show_the_info_usage() {
    let mut e = engine(COND);
    fails_with_usage(&mut e, "info registers v200", "no register `v200`");
}

#[test]
fn bare_info_says_what_it_needs() {
    let mut e = engine(COND);
    let err = fail(&mut e, "info");
    assert!(!err.message.contains("`info `"), "{}", err.message);
    assert!(err.message.contains("needs"), "{}", err.message);
    assert_eq!(err.usage.as_deref(), Some(usage_of("info").as_str()));
}

/// After wave 0 faults and wave 1 exits nothing can run; `continue` says
/// "Cannot run : no wave can run" (no wave named, and not an end-of-launch report).
#[test]
fn continuing_after_a_fault_reports_the_end() {
    let src = r#"
.kernel t
.workgroup 64
.shared 64
    uwaveid u5
    br.unz u5, other
    vlaneid v0
    vshli v2, v0, 2
    st.shared.b32 v0, v2, 0
    end
other:
    nop
    end
"#;
    let mut e = engine(src);
    let (text, _) = stop(&mut e, "c");
    assert!(
        text.starts_with("Program received signal SIGSEGV"),
        "{text}"
    );
    let (text, s) = stop(&mut e, "c");
    assert!(!text.contains("Cannot run :"), "{text}");
    assert!(s.is_terminal(), "{s:?}");
    // The faulted wave can still be selected for inspection.
    assert!(run(&mut e, "wave 0").starts_with("[Switching to wave 0 (workgroup 0), faulted]"));
}

// ---------------------------------------------------------------------------------------
// Buffers and labels, names in expressions, source lines, list, the context, messages
// ---------------------------------------------------------------------------------------

/// Three buffers: one held by an address argument, one by a descriptor, one by none; a
/// label `out` shares its name with a buffer.
const NAMES: &str = r#"
.kernel names
.buffer in, 64
.init in, u32, 7, 8, 9
.buffer out, 32
.buffer spare, 1
.arg u[0:1], in
.arg u[2:5], desc out
.arg u6, 5
    vlaneid v0
out:
    vshli v2, v0, 2
tail:
    end
"#;

/// The 1-based line of `src` that contains `needle`.
fn line_of(src: &str, needle: &str) -> usize {
    src.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no `{needle}` in the kernel"))
        + 1
}

/// An engine that holds `src` as its source, as one opened from a .s file does.
fn with_source(src: &str) -> Engine {
    let mut e = engine(src);
    e.set_source("k.s", src);
    e
}

/// One wave of LOOP, with its source.
fn loop_with_source() -> Engine {
    let mut e = one_wave_loop();
    e.set_source("loop.s", LOOP);
    e
}

#[test]
fn info_buffers_and_info_labels_are_tables() {
    let mut e = engine(NAMES);
    assert_eq!(
        run(&mut e, "info buffers"),
        "\
Name   Address      Bytes  Argument
in     0x100000000     64  u[0:1] (address)
out    0x100020000     32  u[2:5] (descriptor)
spare  0x100040000      1  -
"
    );
    assert_eq!(run(&mut e, "i buffer"), run(&mut e, "info buffers"));
    assert_eq!(
        run(&mut e, "info labels"),
        format!(
            "Name  Address  Line\nout   0x0004     {:>2}\ntail  0x000c     {:>2}\n",
            line_of(NAMES, "vshli"),
            line_of(NAMES, "    end")
        )
    );
    // Labels by address, not by name; a label past the last instruction has no line.
    let mut e = engine(".kernel k\nzz:\n    nop\naa:\n    end\nafter_end:\n");
    assert_eq!(
        run(&mut e, "info labels"),
        "Name       Address  Line\nzz         0x0000      3\naa         0x0004      5\nafter_end  0x0008      -\n"
    );
    assert_eq!(run(&mut e, "info buffers"), "No buffers.\n");
    let mut e = engine(".kernel k\n    end\n");
    assert_eq!(run(&mut e, "info labels"), "No labels.\n");
}

#[test]
fn buffer_names_are_their_base_address_in_expressions() {
    let mut e = engine(LOOP);
    assert_eq!(
        run(&mut e, "print out"),
        "out = 0x100000000 <buffer out, 1024 bytes>\n"
    );
    assert_eq!(
        run(&mut e, "p/x out + 16"),
        "out + 16 = 0x0000000100000010\n"
    );
    assert_eq!(
        run(&mut e, "x/2xw out+16"),
        "global:0x100000010: 0x00000000 0x00000000\n"
    );
    run(&mut e, "set global:out + 4 = 77");
    assert_eq!(run(&mut e, "x/2dw out"), "global:0x100000000: 0 77\n");
    assert!(run(&mut e, "expect global:(out + 4) == 77").starts_with("expect ok"));
    assert!(run(&mut e, "expect global:out == 0").starts_with("expect ok"));
    assert_eq!(
        run(&mut e, "watch out+64"),
        "Hardware watchpoint 1: global:0x100000040, 4 bytes\n"
    );
    assert_eq!(
        run(&mut e, "rwatch global:out 8"),
        "Hardware read watchpoint 2: global:0x100000000, 8 bytes\n"
    );
    // The kernel's first store to out[16] (wave 0, lane 16) stops the run.
    let (text, s) = stop(&mut e, "continue");
    assert!(matches!(s.reason, StopReason::Watchpoint(_)), "{text}");
    assert!(text.contains("global:0x100000040 (4 bytes)"), "{text}");
    // A name that is neither says what names are.
    let err = fail(&mut e, "print nosuch");
    assert!(
        err.message
            .contains("no symbol `nosuch` (names are buffers and labels"),
        "{err}"
    );
}

/// A name that is both a buffer and a label: the buffer in expressions, the label in
/// locations (docs/commands.md says so).
#[test]
fn a_name_both_buffer_and_label_is_the_buffer_in_expressions_and_the_label_as_a_location() {
    let mut e = with_source(NAMES);
    assert_eq!(
        run(&mut e, "print out"),
        "out = 0x100020000 <buffer out, 32 bytes>\n"
    );
    assert_eq!(run(&mut e, "x/1xw out"), "global:0x100020000: 0x00000000\n");
    assert!(run(&mut e, "expect out == 0x100020000").starts_with("expect ok"));
    assert!(run(&mut e, "break out").starts_with("Breakpoint 1 at 0x0004 <out>"));
    assert!(run(&mut e, "disassemble out").contains("=>  0x0000  vlaneid v0"));
    let listed = run(&mut e, "list out");
    assert!(
        listed.contains(&format!(
            "  B{:>4}\t    vshli v2, v0, 2",
            line_of(NAMES, "vshli")
        )),
        "{listed}"
    );
    let (_, s) = stop(&mut e, "advance out");
    assert_eq!(s.pc, Some(4));
    // A buffer that is not a label is no location.
    let err = fail(&mut e, "break in");
    assert!(err.message.contains("no label `in`"), "{err}");
}

#[test]
fn list_shows_ten_lines_around_the_pc_then_goes_on() {
    let mut e = loop_with_source();
    let total = LOOP.lines().count();
    let lines = |text: &str| -> Vec<usize> {
        text.lines()
            .map(|l| {
                l[3..]
                    .split('\t')
                    .next()
                    .unwrap()
                    .trim()
                    .parse::<usize>()
                    .unwrap()
            })
            .collect()
    };
    let around = |n: usize| ((n.max(6) - 5)..=(n.max(6) + 4)).collect::<Vec<_>>();
    // The PC is at the first instruction: `=>` marks its line, 10 lines around it.
    let first = run(&mut e, "list");
    let pc_line = line_of(LOOP, "uwgid u4");
    assert_eq!(lines(&first), around(pc_line), "{first}");
    assert!(
        first.contains(&format!("=> {pc_line:>4}\t    uwgid u4\n")),
        "{first}"
    );
    // Again: the next 10 (Enter repeats `list` as gdb does).
    let next = run(&mut e, "list");
    assert_eq!(lines(&next), around(pc_line + 10));
    let cmd = command::parse("list 5").unwrap().unwrap();
    assert_eq!(
        e.repeat_of(&cmd),
        Some(command::Command::List(None)),
        "Enter after list"
    );
    // `-`: the 10 before the first shown, down to line 1.
    assert_eq!(lines(&run(&mut e, "list -")), around(pc_line));
    assert_eq!(
        lines(&run(&mut e, "list -")),
        (1..pc_line - 5).collect::<Vec<_>>()
    );
    assert!(fail(&mut e, "list -")
        .message
        .contains("Already at the start of loop.s"));
    // A line: centred on it; a label or address: on its instruction's line; FILE:LINE.
    let loop_line = line_of(LOOP, "vaddi.u32 v1, v1, 1");
    assert_eq!(lines(&run(&mut e, "list 15")), around(15));
    assert_eq!(lines(&run(&mut e, "list loop")), around(loop_line));
    assert_eq!(lines(&run(&mut e, "list *0x24")), around(loop_line));
    assert_eq!(lines(&run(&mut e, "list loop.s:15")), around(15));
    assert_eq!(lines(&run(&mut e, "list loop.s:loop")), around(loop_line));
    // Breakpoint lines are marked `B`.
    run(&mut e, "break loop");
    assert!(
        run(&mut e, "list loop").contains(&format!("  B{loop_line:>4}\t    vaddi.u32 v1, v1, 1"))
    );
    // The end of the file: the last lines, then an error.
    let tail = run(&mut e, &format!("list {total}"));
    assert_eq!(*lines(&tail).last().unwrap(), total);
    let err = fail(&mut e, "list");
    assert_eq!(
        err.message,
        format!(
            "Line number {} out of range; loop.s has {total} lines.",
            total + 1
        )
    );
    // A stop forgets where list was: it starts again around the new PC, also for a stop
    // made through the engine's API (as the GDB server makes them), and so does `wave`.
    stop(&mut e, "continue");
    let again = run(&mut e, "list");
    assert!(again.contains(&format!("=>B{loop_line:>4}\t")), "{again}");
    run(&mut e, "list");
    let _ = e.continue_all();
    let again = run(&mut e, "list");
    assert!(again.contains(&format!("=>B{loop_line:>4}\t")), "{again}");
    run(&mut e, "list");
    run(&mut e, "wave 0");
    let again = run(&mut e, "list");
    assert!(again.contains(&format!("=>B{loop_line:>4}\t")), "{again}");
    // Bad arguments.
    for (line, what) in [
        ("list 0", "line 0 is out of range; loop.s has"),
        ("list 100000", "line 100000 is out of range"),
        (
            "list 99999999999999999999",
            "line 99999999999999999999 is out of range",
        ),
        ("list nosuch", "no label `nosuch`"),
        (
            "list other.s:3",
            "no source file `other.s` (this kernel's source is loop.s)",
        ),
        ("list 0x2", "0x2 is not the start of an instruction"),
    ] {
        fails_with_usage(&mut e, line, what);
    }
}

#[test]
fn list_without_source_says_why() {
    let mut e = one_wave_loop();
    fails_with_usage(
        &mut e,
        "list",
        "no source for this kernel (it was not opened from a .s file)",
    );
    e.set_kernel_path("kernels/loop.wko");
    fails_with_usage(
        &mut e,
        "list",
        "no source for this kernel (opened from a .wko object)",
    );
    e.set_kernel_path("/nonexistent/loop.s");
    fails_with_usage(&mut e, "list", "cannot read /nonexistent/loop.s");
    // Stops show no source line then.
    let (text, _) = stop(&mut e, "stepi");
    assert_eq!(text.lines().count(), 2, "{text}");
    // The built-in demo has its source compiled in.
    let mut demo =
        Engine::new(&wavedbg_emulator::demo::program(), LaunchOptions::default()).expect("launch");
    demo.set_kernel_path(wavedbg_emulator::demo::NAME);
    assert!(run(&mut demo, "list").contains("=>"));
}

#[test]
fn stops_end_with_the_source_line_of_the_next_instruction() {
    let mut e = loop_with_source();
    let line = |needle: &str| {
        let n = line_of(LOOP, needle);
        format!("{n:>4}\t{}", LOOP.lines().nth(n - 1).unwrap().trim_end())
    };
    let (text, _) = stop(&mut e, "stepi");
    assert_eq!(
        text,
        format!(
            "wave 0 (workgroup 0)\n  0x0004: uwaveid u5\n{}\n",
            line("uwaveid u5")
        )
    );
    run(&mut e, "break loop");
    let (text, _) = stop(&mut e, "c");
    assert!(
        text.ends_with(&format!(
            "vaddi.u32 v1, v1, 1\n{}\n",
            line("vaddi.u32 v1, v1, 1")
        )),
        "{text}"
    );
    // A watchpoint: after the next instruction's text.
    run(&mut e, "delete");
    run(&mut e, "watch out 4");
    let (text, _) = stop(&mut e, "c");
    assert!(
        text.ends_with(&format!("wait.vst 0\n{}\n", line("wait.vst 0"))),
        "{text}"
    );
    // The end of the launch has no line.
    run(&mut e, "delete");
    let (text, _) = stop(&mut e, "c");
    assert!(text.starts_with("All waves exited"), "{text}");
    assert_eq!(text.lines().count(), 1);
    // A fault: the faulting instruction's line; a deadlock: the barrier's.
    let mut e = with_source(FAULT);
    let (text, _) = stop(&mut e, "c");
    assert!(
        text.ends_with(&format!(
            "{:>4}\t    st.shared.b32 v0, v2, 0\n",
            line_of(FAULT, "st.shared")
        )),
        "{text}"
    );
    let mut e = with_source(DEADLOCK);
    let (text, _) = stop(&mut e, "c");
    assert!(
        text.ends_with(&format!(
            "{:>4}\t    barrier\n",
            line_of(DEADLOCK, "barrier")
        )),
        "{text}"
    );
    // `why` tells it again, the line included.
    assert_eq!(run(&mut e, "why").lines().last(), text.lines().last());
}

#[test]
fn the_context_shows_its_sections_after_every_stop_when_on() {
    let mut e = loop_with_source();
    // Off by default: a stop is its description alone.
    let (text, _) = stop(&mut e, "stepi 6");
    assert!(!text.contains("-- code"), "{text}");
    run(&mut e, "set context on");
    let (text, _) = stop(&mut e, "stepi");
    let heads: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("-- "))
        .map(|l| l.split(" -").next().unwrap())
        .collect();
    // After a stop, the reason is the stop's description right above.
    assert_eq!(
        heads,
        [
            "-- code",
            "-- source: loop.s",
            "-- registers changed since the previous stop",
            "-- lanes: vaddi.u32 v3, v3, 1 reads v3, writes v3",
            "-- exec",
            "-- end"
        ],
        "{text}"
    );
    assert!(text.starts_with("wave 0 (workgroup 0)\n"), "{text}");
    assert!(
        text.lines()
            .nth(3)
            .is_some_and(|l| l.starts_with("-- code --")),
        "the stop, its source line, then the context:\n{text}"
    );
    // `context` alone starts with the reason: the last stop and the selection.
    let now = run(&mut e, "context");
    assert!(
        now.starts_with("-- reason ---")
            && now.contains("---\nwave 0 (workgroup 0) [count 7]\nselected: wave 0 (workgroup 0, ready), lane 0 (active), pc 0x002c <loop+8>\n-- code"),
        "{now}"
    );
    // Code: the PC marked; registers: what the step changed, with the selected lane's
    // values; lanes: the register the next instruction reads and writes, all 32 lanes.
    assert!(text.contains("=>  0x002c  vaddi.u32 v3, v3, 1"), "{text}");
    assert!(
        text.contains("pc    0x0024 <loop> -> 0x002c <loop+8>\n"),
        "{text}"
    );
    assert!(
        text.contains("v1    lanes 0-31; lane 0: 0x00000000 -> 0x00000001\n"),
        "{text}"
    );
    assert!(
        text.contains("v3 (wave 0, EXEC 0xffffffff):\n  [ 0]"),
        "{text}"
    );
    assert!(text.contains(&format!(
        "=>{:>5}\t    vaddi.u32 v3, v3, 1",
        line_of(LOOP, "vaddi.u32 v3, v3, 1")
    )));
    // EXEC on a lane scale, the selected lane pointed at.
    assert!(
        text.contains(
            "exec 0xffffffff: 32 of 32 lanes active (0-31)\n  lane 0       8       16      24    31\n       ################################\n       ^ lane 0\n"
        ),
        "{text}"
    );
    // Sections chosen and ordered; `context` shows it now.
    run(&mut e, "set context-sections exec, regs");
    run(&mut e, "lane 5");
    let now = run(&mut e, "context");
    assert!(now.starts_with("-- exec ---"), "{now}");
    assert!(
        now.contains("            ^ lane 5\n-- registers changed"),
        "{now}"
    );
    assert_eq!(run(&mut e, "ctx"), now);
    // Uniform registers an instruction reads show their value; stores read their data.
    run(&mut e, "set context-sections lanes");
    let (text, _) = stop(&mut e, "stepi");
    assert!(
        text.contains("-- lanes: uaddi u6, u6, -1 reads u6, writes u6 --"),
        "{text}"
    );
    assert!(text.contains("u6 = 0x00000003"), "{text}");
    run(&mut e, "advance store");
    let now = run(&mut e, "context");
    assert!(
        now.contains("-- lanes: st.ubase.b32 v3, u[0:1], v2, 0 reads v3 u0 u1 v2, writes nothing"),
        "{now}"
    );
    // Off again: stops are short.
    run(&mut e, "set context off");
    let (text, _) = stop(&mut e, "stepi");
    assert!(!text.contains("-- "), "{text}");
    // Bad settings.
    fails_with_usage(
        &mut e,
        "set context-sections bogus",
        "unknown context section `bogus`",
    );
    fails_with_usage(&mut e, "set context-sections ,", "needs sections");
    fails_with_usage(&mut e, "set context maybe", "set context on|off");
    fails_with_usage(&mut e, "context now", "takes no argument");
    // The settings print back as they parse.
    for line in [
        "set context on",
        "set context-sections code,exec",
        "list",
        "list loop",
        "context",
    ] {
        let c = command::parse(line).unwrap().unwrap();
        assert_eq!(c.to_string(), line);
    }
    let c = command::parse("set context-sections all").unwrap().unwrap();
    assert_eq!(
        c.to_string(),
        "set context-sections reason,code,source,regs,lanes,exec"
    );
}

#[test]
fn breakpoint_filters_are_confirmed_and_may_come_before_the_condition() {
    let mut e = engine(LOOP);
    assert_eq!(
        run(&mut e, "break loop wave 3 lane 5"),
        "Breakpoint 1 at 0x0024 <loop>, wave 3, lane 5\n"
    );
    // gdb's order (`break LOC thread N if COND`) and ours give the same breakpoint.
    assert_eq!(
        run(&mut e, "tbreak after workgroup 1 if v1 > 2"),
        "Temporary breakpoint 2 at 0x0040 <after>, workgroup 1 if v1 > 2\n"
    );
    assert_eq!(
        run(&mut e, "break after lane 2 if v1 > 2 wave 1"),
        "Breakpoint 3 at 0x0040 <after>, wave 1, lane 2 if v1 > 2\n"
    );
    fails_with_usage(
        &mut e,
        "break after wave 1 if v1 > 2 wave 2",
        "`wave` is given twice",
    );
    fails_with_usage(&mut e, "break after lane 1 lane 2", "`lane` is given twice");
    fails_with_usage(
        &mut e,
        "tbreak after wave 1 wave 1",
        "`wave` is given twice",
    );
    let mut e = engine(WRITERS);
    assert_eq!(
        run(&mut e, "watch shared:0 workgroup 1 if v4 > 0"),
        "Hardware watchpoint 1: shared:0x0 (workgroup 1), 4 bytes\n"
    );
    // With the source, the file and line too.
    let mut e = loop_with_source();
    assert_eq!(
        run(&mut e, "break loop lane 4"),
        format!(
            "Breakpoint 1 at 0x0024 <loop> (loop.s:{}), lane 4\n",
            line_of(LOOP, "vaddi.u32 v1, v1, 1")
        )
    );
}

#[test]
fn info_breakpoints_lists_breakpoints_and_watchpoints_by_number() {
    let mut e = engine(WRITERS);
    run(&mut e, "watch out 4");
    run(&mut e, "break store");
    run(&mut e, "awatch shared:0");
    run(&mut e, "tbreak gstore");
    run(&mut e, "ignore 2 1");
    let table = run(&mut e, "info breakpoints");
    let numbers: Vec<&str> = table
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with(' '))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(numbers, ["1", "2", "3", "4"], "{table}");
    assert!(
        table.contains("        will ignore next 1 crossing\n"),
        "{table}"
    );
    assert_eq!(
        run(&mut e, "info watchpoints")
            .lines()
            .filter(|l| !l.starts_with(' '))
            .count(),
        3
    );
    // Counts agree with their nouns.
    assert_eq!(
        run(&mut e, "ignore 2 1"),
        "Will ignore next 1 crossing of breakpoint 2.\n"
    );
    assert_eq!(
        run(&mut e, "ignore 2 3"),
        "Will ignore next 3 crossings of breakpoint 2.\n"
    );
    let mut e = one_wave_loop();
    assert_eq!(
        run(&mut e, "restart"),
        "Restarted: 1 wave resident, all at 0x0000.\n"
    );
    let mut e = engine(LOOP);
    assert_eq!(
        run(&mut e, "restart"),
        "Restarted: 4 waves resident, all at 0x0000.\n"
    );
}

#[test]
fn advance_barrier_says_the_wave_stopped_after_the_barrier() {
    // The first wave waits after the barrier; the last releases it.
    let mut e = with_source(BARRIER);
    let (text, s) = stop(&mut e, "advance barrier");
    assert_eq!(s.reason, StopReason::Reached(Reached::Barrier));
    let after = line_of(BARRIER, "    nop");
    assert_eq!(
        text,
        format!("wave 0 (workgroup 0) reached the barrier at 0x002c <sync> and stopped after it, waiting for the other waves of its workgroup\n  next: 0x0030 <after_barrier>: nop\n{after:>4}\t    nop\n")
    );
    run(&mut e, "wave 1");
    let (text, _) = stop(&mut e, "advance barrier");
    assert!(
        text.starts_with("wave 1 (workgroup 0) reached the barrier at 0x002c <sync> and stopped after it, the last of its workgroup to arrive, it released the barrier\n"),
        "{text}"
    );
    assert!(
        run(&mut e, "info waves").contains("*    1   0    1  ready        0x0030 <after_barrier>")
    );
}
