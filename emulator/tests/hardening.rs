//! Input that used to crash, hang or mislead, and the classes behind it: parsers that were
//! not bounded (deep nesting, multi-byte whitespace, untrusted kernel objects), semantic
//! choices that were not written as tests (C precedence, `expect`, `stepi 0`, `p lane`),
//! and property tests that feed arbitrary Unicode and bytes to every parser and loader:
//! each returns a value or an error, never a panic.

#[allow(dead_code)] // Each test binary uses some of the shared kernels.
mod kernels;
use kernels::COND;

use proptest::prelude::*;
use wavedbg_emulator::asm::assemble;
use wavedbg_emulator::debug::command;
use wavedbg_emulator::debug::completion::Words;
use wavedbg_emulator::debug::expr::{self, MAX_DEPTH};
use wavedbg_emulator::debug::session::{Script, Session};
use wavedbg_emulator::debug::Engine;
use wavedbg_emulator::machine::{LaunchOptions, Machine};
use wavedbg_emulator::program::{Program, ProgramError};

fn engine(src: &str) -> Engine {
    let p = assemble(src, "t.s", None).expect("kernel assembles");
    let options = LaunchOptions {
        max_instructions: Some(20_000),
        ..LaunchOptions::default()
    };
    Engine::new(&p, options).expect("kernel launches")
}

fn run(e: &mut Engine, line: &str) -> String {
    match e.execute_line(line) {
        Ok(out) => out.text,
        Err(err) => panic!("`{line}` failed: {err}"),
    }
}

fn machine() -> Machine {
    let p = assemble(COND, "t.s", None).expect("kernel assembles");
    Machine::new(&p, LaunchOptions::default()).expect("kernel launches")
}

/// The value of an expression, or the error text.
fn value(m: &Machine, text: &str) -> Result<i64, String> {
    let e = expr::parse(text).map_err(|e| e.to_string())?;
    e.eval(m, 0, Some(0)).map_err(|e| e.to_string())
}

// ---------------------------------------------------------------------------------------
// C precedence
// ---------------------------------------------------------------------------------------

/// Every binary operator with its C precedence level (higher binds tighter) and its C
/// meaning on 64-bit integers, written independently of the parser.
#[allow(clippy::type_complexity)]
const OPS: &[(&str, u8, fn(i64, i64) -> Option<i64>)] = &[
    ("*", 10, |a, b| Some(a.wrapping_mul(b))),
    ("/", 10, |a, b| (b != 0).then(|| a.wrapping_div(b))),
    ("%", 10, |a, b| (b != 0).then(|| a.wrapping_rem(b))),
    ("+", 9, |a, b| Some(a.wrapping_add(b))),
    ("-", 9, |a, b| Some(a.wrapping_sub(b))),
    ("<<", 8, |a, b| Some(a.wrapping_shl(b as u32))),
    (">>", 8, |a, b| Some(a.wrapping_shr(b as u32))),
    ("<", 7, |a, b| Some((a < b) as i64)),
    ("<=", 7, |a, b| Some((a <= b) as i64)),
    (">", 7, |a, b| Some((a > b) as i64)),
    (">=", 7, |a, b| Some((a >= b) as i64)),
    ("==", 6, |a, b| Some((a == b) as i64)),
    ("!=", 6, |a, b| Some((a != b) as i64)),
    ("&", 5, |a, b| Some(a & b)),
    ("^", 4, |a, b| Some(a ^ b)),
    ("|", 3, |a, b| Some(a | b)),
    ("&&", 2, |a, b| Some((a != 0 && b != 0) as i64)),
    ("||", 1, |a, b| Some((a != 0 || b != 0) as i64)),
];

#[test]
fn every_pair_of_operators_groups_as_in_c() {
    let m = machine();
    let mut checked = 0;
    for &(t1, p1, f1) in OPS {
        for &(t2, p2, f2) in OPS {
            for (a, b, c) in [(13i64, 5, 2), (1, 3, 4), (40, 2, 3)] {
                let text = format!("{a} {t1} {b} {t2} {c}");
                // C: the tighter operator groups first; equal levels group to the left.
                let expected = if p2 > p1 {
                    f2(b, c).and_then(|r| f1(a, r))
                } else {
                    f1(a, b).and_then(|l| f2(l, c))
                };
                match (expected, value(&m, &text)) {
                    (Some(want), Ok(got)) => assert_eq!(got, want, "`{text}`"),
                    (None, Err(e)) => assert!(e.contains("division by zero"), "`{text}`: {e}"),
                    (want, got) => panic!("`{text}`: expected {want:?}, got {got:?}"),
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, OPS.len() * OPS.len() * 3);
}

#[test]
fn precedence_table_of_expected_values() {
    let m = machine();
    for (text, want) in [
        ("8 > 1 << 2", 1),
        ("1 << 2 + 1", 8),
        ("16 == 1 << 4", 1),
        ("1 << 4 == 16", 1),
        ("10 - 4 - 3", 3),
        ("100 / 10 / 5", 2),
        ("2 + 3 * 4", 14),
        ("-2 * 3", -6),
        ("2 * -3", -6),
        ("!0 + 1", 2),
        ("~0 & 0xff", 255),
        ("5 > 4 > 3", 0),
        ("1 | 0 && 0", 0),
        ("0 && 1 || 1", 1),
        ("1 || 0 && 0", 1),
        ("6 & 3 == 3", 0),
        ("6 ^ 3 & 5", 7),
        ("(1 + 2) * 3", 9),
        ("--5", 5),
        ("1 +\u{a0}2", 3),
        ("\u{3000}7\u{2003}*\u{a0}6", 42),
    ] {
        assert_eq!(value(&m, text), Ok(want), "`{text}`");
    }
}

// ---------------------------------------------------------------------------------------
// Bounded parsers
// ---------------------------------------------------------------------------------------

/// Runs `f` on a thread with a small stack, as the GDB server's and the TUI's threads
/// are: an unbounded recursion overflows it (and aborts the test binary).
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(f)
        .expect("thread starts")
        .join()
        .expect("no panic")
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep =
        |open: &str, n: usize, close: &str| format!("{}1{}", open.repeat(n), close.repeat(n));
    let cases = vec![
        deep("(", 3000, ")"),
        deep("-", 100_000, ""),
        deep("!(", 2000, ")"),
        deep("s32(", 2000, ")"),
        deep("v1[", 2000, "]"),
        deep("global:", 5000, ""),
        format!("1{}", "+1".repeat(5000)),
        format!("1{}", " << 1 ==1".repeat(3000)),
    ];
    on_small_stack(move || {
        for text in &cases {
            let e = expr::parse(text).expect_err("too deep");
            assert!(
                e.message
                    .contains(&format!("expression nested deeper than {MAX_DEPTH}")),
                "{}...: {e}",
                &text[..20]
            );
        }
    });
    // Realistic depth still parses.
    let m = machine();
    assert_eq!(value(&m, &deep("(", 200, ")")), Ok(1));
    assert_eq!(value(&m, &format!("0{}", "+1".repeat(200))), Ok(200));
}

#[test]
fn deep_nesting_through_every_command_that_takes_an_expression() {
    let text = format!("{}1{}", "(".repeat(3000), ")".repeat(3000));
    let lines = [
        format!("print {text}"),
        format!("p/x {text}"),
        format!("expect {text} == 1"),
        format!("break here if {text}"),
        format!("display {text}"),
        format!("set v1 = {text}"),
        format!("x/4 {text}"),
        format!("watch global:{text}"),
        format!("condition 1 {text}"),
    ];
    on_small_stack(move || {
        let mut e = engine(COND);
        for line in &lines {
            // Some fail for other reasons first; none may overflow the stack.
            let _ = e.execute_line(line);
        }
    });
}

#[test]
fn ron_loaders_refuse_deep_nesting() {
    let deep = format!("{}{}", "(".repeat(100_000), ")".repeat(100_000));
    let deep_list = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    on_small_stack(move || {
        for text in [&deep, &deep_list] {
            assert!(Session::from_ron(text, "s.ron").is_err());
            assert!(Program::from_object(text).is_err());
        }
    });
}

// ---------------------------------------------------------------------------------------
// Untrusted kernels
// ---------------------------------------------------------------------------------------

fn object_with(edit: impl FnOnce(&mut Program)) -> String {
    let mut p = assemble(COND, "t.s", None).expect("kernel assembles");
    edit(&mut p);
    p.to_object().expect("serialises")
}

#[test]
fn kernel_objects_are_validated_like_assembler_output() {
    use wavedbg_emulator::program::{ArgDef, ArgValue, BufferDef};
    let huge = object_with(|p| {
        p.buffers.push(BufferDef {
            name: "big".into(),
            size: 1 << 54,
            init: Vec::new(),
        })
    });
    let e = Program::from_object(&huge).expect_err("2^54-byte buffer");
    assert!(
        e.to_string()
            .contains("buffer `big` has size 18014398509481984"),
        "{e}"
    );

    type Edit = Box<dyn FnOnce(&mut Program)>;
    let cases: Vec<(Edit, ProgramError)> = vec![
        (Box::new(|p| p.code.clear()), ProgramError::NoInstructions),
        (
            Box::new(|p| p.launch.shared_bytes = u32::MAX),
            ProgramError::SharedTooLarge(u32::MAX),
        ),
        (
            Box::new(|p| p.launch.scratch_bytes = 1 << 20),
            ProgramError::ScratchTooLarge(1 << 20),
        ),
        (
            Box::new(|p| p.launch.workgroup_lanes = 33),
            ProgramError::WorkgroupLanes(33),
        ),
        (Box::new(|p| p.launch.grid = 0), ProgramError::EmptyGrid),
        (
            Box::new(|p| {
                p.args.push(ArgDef {
                    reg: 62,
                    value: ArgValue::Descriptor("nope".into()),
                })
            }),
            ProgramError::UnknownBuffer {
                reg: 62,
                name: "nope".into(),
            },
        ),
        (
            Box::new(|p| {
                p.buffers.push(BufferDef {
                    name: "b".into(),
                    size: 4,
                    init: vec![0; 8],
                })
            }),
            ProgramError::InitTooLong {
                name: "b".into(),
                init: 8,
                size: 4,
            },
        ),
        (
            Box::new(|p| {
                p.labels.insert("far".into(), 1 << 40);
            }),
            ProgramError::LabelOutside {
                name: "far".into(),
                addr: 1 << 40,
                code_bytes: 36,
            },
        ),
        (Box::new(|p| p.lines.reverse()), ProgramError::LineTable(1)),
    ];
    for (edit, want) in cases {
        let text = object_with(edit);
        match Program::from_object(&text) {
            Err(wavedbg_emulator::program::ObjectError::Invalid(got)) => assert_eq!(got, want),
            other => panic!("expected {want:?}, got {other:?}"),
        }
    }
    // The machine checks a program built in memory the same way.
    let mut p = assemble(COND, "t.s", None).expect("kernel assembles");
    p.buffers.push(BufferDef {
        name: "big".into(),
        size: 1 << 54,
        init: Vec::new(),
    });
    assert!(Machine::new(&p, LaunchOptions::default()).is_err());
}

#[test]
fn launch_options_from_a_session_are_bounded() {
    let p = assemble(COND, "t.s", None).expect("kernel assembles");
    let options = LaunchOptions {
        grid: Some(u32::MAX),
        resident_workgroups: u32::MAX,
        ..LaunchOptions::default()
    };
    let e = Machine::new(&p, options).expect_err("4 billion resident workgroups");
    assert!(e.to_string().contains("resident waves"), "{e}");
}

#[test]
fn an_empty_kernel_is_an_assembler_error() {
    for src in [
        "",
        "\n\n",
        "; only a comment\n",
        ".kernel k\n.grid 2\n",
        "label:\n",
    ] {
        let e = assemble(src, "empty.s", None).expect_err("no instructions");
        let text = e.to_string();
        assert_eq!(
            text, "empty.s: error: no instructions: a kernel needs at least one instruction",
            "{src:?}"
        );
    }
}

#[test]
fn a_missing_source_file_says_so_without_a_position() {
    let e = wavedbg_emulator::asm::assemble_file(std::path::Path::new("/nonexistent/k.s"))
        .expect_err("missing");
    assert_eq!(
        e.to_string(),
        "cannot read /nonexistent/k.s: No such file or directory"
    );
}

// ---------------------------------------------------------------------------------------
// Commands whose meaning was not written down
// ---------------------------------------------------------------------------------------

#[test]
fn expect_splits_at_the_root_comparison() {
    let mut e = engine(COND);
    for line in [
        "expect 16 == 1 << 4",
        "expect 1 << 4 == 16",
        "expect 2 < 3 == 1",
        "expect 8 > 1 << 2",
        "expect (1 < 2) != 0",
        "expect -1 < 0",
        "expect 1\u{a0}<=\u{a0}1",
    ] {
        let out = e.execute_line(line).expect("parses");
        let outcome = out.expect.expect("an expect outcome");
        assert!(outcome.passed, "{line}: {}", out.text);
    }
    let out = e.execute_line("expect 16 == 1 << 4").expect("parses");
    assert_eq!(out.text, "expect ok: 16 == 1 << 4\n");
    let out = e.execute_line("expect 2 == 1 << 4").expect("parses");
    assert!(out.text.contains("right side 1 << 4 = 16"), "{}", out.text);
    for (line, says) in [
        ("expect 1 + 1", "needs a comparison"),
        ("expect 1 && 2 == 2", "outermost operator is `&&`"),
        ("expect 1 ==", "needs both sides"),
        ("expect 1 == (", "bad expression"),
        ("expect (1 == 1)", "needs a comparison"),
    ] {
        let err = e.execute_line(line).expect_err(line);
        assert!(err.to_string().contains(says), "{line}: {err}");
    }
}

#[test]
fn stepi_zero_executes_nothing_and_says_so() {
    let mut e = engine(COND);
    let pc = e.machine().waves[0].pc;
    let count = e.machine().stats.wave_instructions;
    assert_eq!(
        run(&mut e, "stepi 0"),
        "stepi 0: no instruction executed.\n"
    );
    assert_eq!(e.machine().waves[0].pc, pc);
    assert_eq!(e.machine().stats.wave_instructions, count);
    run(&mut e, "stepi 1");
    assert_ne!(e.machine().waves[0].pc, pc);
}

#[test]
fn lane_in_print_is_the_selected_lane() {
    let mut e = engine(COND);
    run(&mut e, "break here");
    run(&mut e, "continue");
    run(&mut e, "lane 5");
    assert_eq!(run(&mut e, "p lane"), "lane = 5\n");
    assert_eq!(run(&mut e, "p v3[lane]"), "v3[lane] = 20\n");
    assert_eq!(run(&mut e, "p lane * 2 + 1"), "lane * 2 + 1 = 11\n");
    // Per-lane data is still shown for every lane.
    assert!(run(&mut e, "p v3 + lane").contains("by lane"));
    // In a breakpoint condition `lane` is each lane tested.
    run(&mut e, "restart");
    run(&mut e, "delete");
    run(&mut e, "break here if lane == 7");
    let out = e.execute_line("continue").expect("runs");
    assert!(
        out.text.contains("lane 7") || out.text.contains("lanes 7"),
        "{}",
        out.text
    );
}

#[test]
fn ids_that_do_not_fit_32_bits_are_errors_not_truncated() {
    let mut e = engine(COND);
    for line in [
        "wave 4294967296",
        "delete 4294967297",
        "break here wave 4294967296",
    ] {
        let err = e.execute_line(line).expect_err(line);
        assert!(err.to_string().contains("out of range"), "{line}: {err}");
    }
}

#[test]
fn completion_after_multibyte_whitespace() {
    let e = engine(COND);
    let words = Words::of(&e, &[]);
    let (start, c) = words.candidates("print 1 +\u{a0}v1");
    assert_eq!(&"print 1 +\u{a0}v1"[start..], "v1");
    assert!(c.contains(&"v12".to_string()));
    let (start, _) = words.candidates("p\u{a0}");
    assert_eq!(start, "p\u{a0}".len());
    let (start, _) = words.candidates("\u{2003}\u{a0}");
    assert_eq!(start, "\u{2003}\u{a0}".len());
}

// ---------------------------------------------------------------------------------------
// Arbitrary input: never a panic
// ---------------------------------------------------------------------------------------

/// Text biased toward what the parsers look for, mixed with arbitrary characters.
fn texty() -> impl Strategy<Value = String> {
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
fn bytes_text() -> impl Strategy<Value = String> {
    prop::collection::vec(any::<u8>(), 0..256)
        .prop_map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// A command word from the table followed by arbitrary text (no file commands: they
/// would write or read files).
fn command_line() -> impl Strategy<Value = String> {
    let names: Vec<String> = command::HELP
        .iter()
        .flat_map(|(n, aliases, ..)| std::iter::once(*n).chain(aliases.iter().copied()))
        .filter(|n| !matches!(*n, "save" | "load"))
        .map(str::to_string)
        .collect();
    (
        prop::sample::select(names),
        prop_oneof![texty(), bytes_text()],
    )
        .prop_map(|(n, rest)| format!("{n} {rest}"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn expression_parser_never_panics(text in prop_oneof![texty(), bytes_text(), "\\PC*"]) {
        let m = machine();
        if let Ok(e) = expr::parse(&text) {
            let _ = e.eval(&m, 0, Some(3));
            let _ = e.eval(&m, 0, None);
        }
    }

    #[test]
    fn command_parser_and_completion_never_panic(text in prop_oneof![texty(), bytes_text(), command_line()]) {
        let _ = command::parse(&text);
        let e = engine(COND);
        let words = Words::of(&e, &[]);
        // Every prefix that ends on a character boundary, as the cursor moves.
        for (i, _) in text.char_indices() {
            let _ = words.candidates(&text[..i]);
        }
        let _ = words.candidates(&text);
    }

    #[test]
    fn engine_runs_any_command_line(line in command_line()) {
        let mut e = engine(COND);
        let _ = e.execute_line(&line);
        let _ = e.execute_line("info registers");
    }

    #[test]
    fn assembler_never_panics(text in prop_oneof![texty(), bytes_text(), "\\PC*"], prefix in prop::sample::select(vec!["", "    ", ".buffer b, ", "vadd.u32 ", "ld.ubase.b32 ", ".arg ", "l: "])) {
        let src = format!("{prefix}{text}\n{text}");
        let _ = assemble(&src, "t.s", None);
    }

    #[test]
    fn loaders_never_panic(text in prop_oneof![texty(), bytes_text(), "\\PC*"]) {
        let _ = Session::from_ron(&text, "s.ron");
        let _ = Program::from_object(&text);
        let _ = Script::parse(&text, "s.wdb");
    }

    #[test]
    fn corrupted_kernel_objects_never_panic(pos in 0usize..4000, byte in any::<u8>()) {
        let mut bytes = object_with(|_| {}).into_bytes();
        if !bytes.is_empty() {
            let at = pos % bytes.len();
            bytes[at] = byte;
        }
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(p) = Program::from_object(&text) {
            // Whatever loads also launches or says why not.
            let _ = Machine::new(&p, LaunchOptions::default());
        }
    }
}

#[test]
fn the_command_log_is_bounded() {
    use wavedbg_emulator::debug::MAX_LOG;
    let mut e = engine(COND);
    for _ in 0..MAX_LOG + 5 {
        e.execute_line("p 1").expect("prints");
    }
    assert_eq!(e.log().len(), MAX_LOG);
    assert!(e.log_truncated());
    let dir = std::env::temp_dir().join(format!("wavedbg-log-bound-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("s.ron");
    let out = e
        .execute_line(&format!("save {}", file.display()))
        .expect("saves");
    assert!(
        out.text.contains("holds only the first 100000 commands"),
        "{}",
        out.text
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------
// Typed commands: the text of a command parses back to the same command
// ---------------------------------------------------------------------------------------

#[test]
fn every_kind_of_command_prints_as_text_that_parses_back() {
    for line in [
        "break loop if v1 > 3 wave 2 workgroup 1 lane 5",
        "tbreak 0x40",
        "delete",
        "delete 3",
        "enable 2",
        "disable 2",
        "ignore 1 4",
        "condition 1",
        "condition 1 v3 == 2",
        "watch 0x100000000",
        "rwatch shared:16 8 workgroup all",
        "awatch shared:16 8 if v1 > 0 workgroup 3",
        "watch scratch:8 4 wave 2 lane 7",
        "watch scratch:8",
        "continue",
        "stepi",
        "stepi 5",
        "stepi all",
        "stepi all 3",
        "stepi alone",
        "stepi alone 4",
        "advance here",
        "advance barrier",
        "finish",
        "interrupt",
        "restart",
        "wave 3",
        "lane 4",
        "info waves",
        "info lanes",
        "info registers",
        "info registers v3",
        "info breakpoints",
        "info watchpoints",
        "info changes",
        "info display",
        "info history",
        "reverse-stepi",
        "rsi 4",
        "goto 1200",
        "reverse-continue",
        "last-write shared:0x40 8",
        "last-write v3[2]",
        "set history-size 32",
        "p v3 + 1",
        "p/x lane",
        "x/4xw global:0x100000000",
        "x/2dg 0x100000000",
        "x/8ub shared:0",
        "set v3 = 5",
        "set var u2 = 1 == 1",
        "set scheduler-locking off",
        "disassemble",
        "disassemble here",
        "expect 16 == 1 << 4",
        "display",
        "display /x v1",
        "undisplay",
        "undisplay 2",
        "save s.ron",
        "load s.ron",
        "help",
        "help stepi",
    ] {
        let cmd = command::parse(line)
            .unwrap_or_else(|e| panic!("{line}: {e}"))
            .expect("a command");
        let text = cmd.to_string();
        assert_eq!(command::parse(&text), Ok(Some(cmd)), "{line} -> {text}");
    }
}

#[test]
fn stepi_all_steps_every_ready_wave_whatever_the_locking() {
    let mut e = engine(kernels::LOOP);
    let before: Vec<u64> = e.machine().waves.iter().map(|w| w.pc).collect();
    let out = e
        .run_command(&command::Command::StepiAll(1))
        .expect("steps");
    assert!(e.scheduler_locking, "the setting is untouched");
    let after: Vec<u64> = e.machine().waves.iter().map(|w| w.pc).collect();
    assert!(
        before.iter().zip(&after).all(|(b, a)| a > b),
        "{before:?} -> {after:?}\n{}",
        out.text
    );
    assert_eq!(e.log().last().map(String::as_str), Some("stepi all"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn a_parsed_command_prints_as_text_that_parses_back(line in command_line()) {
        if let Ok(Some(cmd)) = command::parse(&line) {
            let text = cmd.to_string();
            prop_assert_eq!(command::parse(&text), Ok(Some(cmd)), "{} -> {}", line, text);
        }
    }
}
