//! The debugger tests' fixtures, once: engines for a kernel (`engine`, `engine_with`,
//! `one_wave_loop`, `bounded_engine`, `with_source`), lines run as commands (`out`, `run`,
//! `run_raw`, `stop`, `fail`, `fails_with_usage`), the lane-view parser (`cells`), typed
//! stop and state accessors (`bp`, `breakpoint_of`, `watch_hits`, `label`, `pcs`, ...),
//! the kernels of several files (with those of `kernels`), proptest strategies of
//! arbitrary input (`texty`, `bytes_text`, `command_line`), and the imports the feature
//! files share (each starts with `use super::fixtures::*;`).

pub use std::collections::BTreeSet;
pub use std::path::PathBuf;
pub use std::sync::atomic::{AtomicBool, Ordering};
pub use std::sync::Arc;
pub use std::time::{Duration, Instant};

pub use proptest::prelude::*;
pub use wavedbg_emulator::asm::{assemble, assemble_file};
pub use wavedbg_emulator::debug::breakpoint::Condition;
pub use wavedbg_emulator::debug::breakpoint::{Filters, Scope, WatchKind};
pub use wavedbg_emulator::debug::command::{self, CommandError, HelpEntry, Location, HELP};
pub use wavedbg_emulator::debug::completion::Words;
pub use wavedbg_emulator::debug::driver::run_line;
pub use wavedbg_emulator::debug::expr::ParsedExpr;
pub use wavedbg_emulator::debug::expr::{self, MAX_DEPTH};
pub use wavedbg_emulator::debug::session::{Script, Session};
pub use wavedbg_emulator::debug::{
    Blocked, CommandOutput, Engine, Reached, RegisterWrite, StopEvent, StopReason, WatchHit,
};
pub use wavedbg_emulator::exec::AccessKind;
pub use wavedbg_emulator::fault::FaultKind;
pub use wavedbg_emulator::machine::{LaunchOptions, Machine};
pub use wavedbg_emulator::memory::Space;
pub use wavedbg_emulator::program::{Program, ProgramError};
pub use wavedbg_emulator::wave::WaveState;

pub use crate::kernels::*;

/// Two waves spill 100 * wave + lane to scratch offset 8 of every lane.
pub const SPILL_ONCE: &str = r#"
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
pub const MEET_AT_BARRIER: &str = r#"
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
pub const READER: &str = r#"
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
pub const BUF: u64 = 0x1_0000_0000;

/// A location as `break` takes it (the test's text is known to parse).
pub fn loc(text: &str) -> Location {
    command::parse_location(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// A condition (the test's text is known to parse).
pub fn cond(text: &str) -> Condition {
    ParsedExpr::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

pub fn program(src: &str) -> Program {
    assemble(src, "t.s", None).unwrap_or_else(|e| panic!("{e}"))
}

pub fn engine_with(src: &str, options: LaunchOptions) -> Engine {
    Engine::new(&program(src), options).expect("launch")
}

pub fn engine(src: &str) -> Engine {
    engine_with(src, LaunchOptions::default())
}

pub fn one_wave_loop() -> Engine {
    engine_with(
        LOOP,
        LaunchOptions {
            grid: Some(1),
            workgroup_lanes: Some(32),
            ..Default::default()
        },
    )
}

pub fn script(name: &str) -> Program {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../scripts")
        .join(name);
    assemble_file(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs a line that must succeed; returns its output. A stop's first line must end with
/// the launch's instruction count (`[count N]`, which `goto` takes); it is checked here and
/// removed, so the tests below compare the rest exactly.
pub fn out(e: &mut Engine, line: &str) -> CommandOutput {
    let mut o = run_line(e, line).unwrap_or_else(|err| panic!("`{line}` failed:\n{err}"));
    if let Some(s) = o.stop.as_ref().filter(|s| s.reason != StopReason::Finished) {
        let count = format!(" [count {}]", s.instructions);
        // `run` and `start` say they restarted first.
        let first = o
            .text
            .lines()
            .find(|l| !l.starts_with("Restarted: "))
            .unwrap_or_default();
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
pub fn run(e: &mut Engine, line: &str) -> String {
    out(e, line).text
}

/// Runs a line that must stop the machine; returns the text and the stop.
pub fn stop(e: &mut Engine, line: &str) -> (String, StopEvent) {
    let o = out(e, line);
    let s = o
        .stop
        .unwrap_or_else(|| panic!("`{line}` reported no stop: {}", o.text));
    (o.text, s)
}

/// Runs a line that must fail; returns the error.
pub fn fail(e: &mut Engine, line: &str) -> CommandError {
    match run_line(e, line) {
        Ok(o) => panic!("`{line}` should fail, printed:\n{}", o.text),
        Err(err) => err,
    }
}

pub fn usage_of(name: &str) -> String {
    command::usage(name)
        .unwrap_or_else(|| panic!("no usage for {name}"))
        .to_string()
}

/// Asserts that `line` fails with a message containing `what` and shows the usage of
/// its command.
pub fn fails_with_usage(e: &mut Engine, line: &str, what: &str) {
    let err = fail(e, line);
    assert!(
        err.message().contains(what),
        "`{line}`: message `{}` lacks `{what}`",
        err.message()
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
    assert_eq!(err.usage(), Some(usage.as_str()), "`{line}`");
    assert!(
        err.to_string().ends_with(&format!("\nusage: {usage}")),
        "`{line}`: {err}"
    );
}

/// One cell of a lane view: value text, whether the lane is inactive (in parentheses),
/// whether it changed (`*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    pub value: String,
    pub inactive: bool,
    pub changed: bool,
}

/// Parses the 32 cells of a lane view (`print v3`, `print EXPR` by lane).
pub fn cells(text: &str) -> Vec<Cell> {
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

pub fn values(cells: &[Cell]) -> Vec<String> {
    cells.iter().map(|c| c.value.clone()).collect()
}

pub fn lane_set(cells: &[Cell], f: impl Fn(&Cell) -> bool) -> Vec<usize> {
    (0..32).filter(|&l| f(&cells[l])).collect()
}

/// The 1-based line of `src` that contains `needle`.
pub fn line_of(src: &str, needle: &str) -> usize {
    src.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no `{needle}` in the kernel"))
        + 1
}

/// An engine that holds `src` as its source, as one opened from a .s file does.
pub fn with_source(src: &str) -> Engine {
    let mut e = engine(src);
    e.set_source("k.s", src);
    e
}

/// One wave of LOOP, with its source.
pub fn loop_with_source() -> Engine {
    let mut e = one_wave_loop();
    e.set_source("loop.s", LOOP);
    e
}

/// Instructions one wave of LOOP executes.
pub const LOOP_WAVE_INSTRUCTIONS: u64 = 26;

/// Two waves of one workgroup write shared memory, meet at a barrier, then each reads the
/// other's slot.
pub const BARRIER: &str = r#"
.kernel bar
.workgroup 64
.shared 256
    uwaveid u5
    vlaneid v0
    vmov.u v1, u5
    vaddi.u32 v1, v1, 10        ; 10 + wave index
    vshli v2, v0, 2
    ushli u6, u5, 7             ; 128 * wave index
    vadd.u32.u v2, v2, u6
    st.shared.b32 v1, v2, 0
    wait.ls 0
sync:
    barrier
after_barrier:
    uxori u7, u6, 128           ; the other wave's half
    vshli v3, v0, 2
    vadd.u32.u v3, v3, u7
    ld.shared.b32 v4, v3, 0
    wait.ls 0
    end
"#;

/// Endless loop in four waves.
pub const SPIN: &str = r#"
.kernel spin
.workgroup 64
.grid 2
spin:
    vaddi.u32 v1, v1, 1
    br spin
"#;

/// Two waves; every lane spills 100 * wave + lane to scratch offset 8, then every lane
/// but lane 2 overwrites it with that value + 1000.
pub const SCRATCH: &str = r#"
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
    umovi u9, 0xfffffffb
    exec.set u9
    vaddi.u32 v4, v4, 1000
spill2:
    st.scratch.b32 v4, v8, 8
    wait.vst 0
    end
"#;

pub fn label(e: &Engine, name: &str) -> u64 {
    *e.machine()
        .program()
        .labels
        .get(name)
        .unwrap_or_else(|| panic!("no label {name}"))
}

pub fn pcs(e: &Engine) -> Vec<u64> {
    e.machine().waves.iter().map(|w| w.pc).collect()
}

pub fn states(e: &Engine) -> Vec<WaveState> {
    e.machine().waves.iter().map(|w| w.state).collect()
}

pub fn global_u32(e: &Engine, addr: u64) -> u32 {
    let mut b = [0u8; 4];
    e.machine()
        .read_space(Space::Global, 0, 0, addr, &mut b)
        .expect("mapped");
    u32::from_le_bytes(b)
}

pub fn lanes(list: impl IntoIterator<Item = u32>) -> u32 {
    list.into_iter().fold(0, |m, l| m | 1 << l)
}

pub fn bp(e: &mut Engine, location: &str) -> u32 {
    e.add_breakpoint(&loc(location), None, Filters::default(), false)
        .expect("breakpoint")
}

pub fn breakpoint_of(stop: &StopEvent) -> (u32, u32) {
    match stop.reason {
        StopReason::Breakpoint { id, lanes } => (id, lanes),
        ref other => panic!("expected a breakpoint stop, got {other:?} ({stop:?})"),
    }
}

pub fn watch_hits(stop: &StopEvent) -> &[WatchHit] {
    match &stop.reason {
        StopReason::Watchpoint(h) => h,
        other => panic!("expected a watchpoint stop, got {other:?} ({stop:?})"),
    }
}

pub fn finish_all(e: &mut Engine) {
    let stop = e.continue_all();
    assert_eq!(stop.reason, StopReason::Finished, "{stop:?}");
}

pub fn bounded_engine(src: &str) -> Engine {
    let p = assemble(src, "t.s", None).expect("kernel assembles");
    let options = LaunchOptions {
        max_instructions: Some(20_000),
        ..LaunchOptions::default()
    };
    Engine::new(&p, options).expect("kernel launches")
}

pub fn run_raw(e: &mut Engine, line: &str) -> String {
    match run_line(e, line) {
        Ok(out) => out.text,
        Err(err) => panic!("`{line}` failed: {err}"),
    }
}

/// Runs `f` on a thread with a small stack, as the GDB server's and the TUI's threads
/// are: an unbounded recursion overflows it (and aborts the test binary).
pub fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(f)
        .expect("thread starts")
        .join()
        .expect("no panic")
}

/// Text biased toward what the parsers look for, mixed with arbitrary characters.
pub fn texty() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("(".to_string()),
        Just(")".to_string()),
        Just("[".to_string()),
        Just("]".to_string()),
        Just("v3".to_string()),
        Just("u2".to_string()),
        Just("lane".to_string()),
        Just("global:".to_string()),
        Just("scratch:".to_string()),
        Just(" << ".to_string()),
        Just("==".to_string()),
        Just("<".to_string()),
        Just("\u{a0}".to_string()),
        Just(" ".to_string()),
        Just("0x".to_string()),
        Just("-".to_string()),
        Just(",".to_string()),
        Just(":".to_string()),
        Just(" if ".to_string()),
        Just("/".to_string()),
        Just("\"".to_string()),
        "[0-9]{1,20}",
        any::<char>().prop_map(String::from),
        "\\PC{0,4}",
    ];
    prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

/// Arbitrary bytes as a loader sees them after a lossy UTF-8 read.
pub fn bytes_text() -> impl Strategy<Value = String> {
    prop::collection::vec(any::<u8>(), 0..256)
        .prop_map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// A command word from the table followed by arbitrary text (no file commands: they
/// would write or read files).
pub fn command_line() -> impl Strategy<Value = String> {
    let names: Vec<String> = command::HELP
        .iter()
        .flat_map(|h| std::iter::once(h.name).chain(h.aliases.iter().copied()))
        .filter(|n| !matches!(*n, "save" | "load"))
        .map(str::to_string)
        .collect();
    (
        prop::sample::select(names),
        prop_oneof![texty(), bytes_text()],
    )
        .prop_map(|(n, rest)| format!("{n} {rest}"))
}

/// Three buffers: one held by an address argument, one by a descriptor, one by none; a
/// label `out` shares its name with a buffer.
pub const NAMES: &str = r#"
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
