//! Expressions: C precedence, bounded nesting, `expect`, `lane`, buffer and label names,
//! and a parser that never panics.

use super::fixtures::*;

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
        err.message()
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
    assert!(err.message().contains("no label `in`"), "{err}");
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

/// Every binary operator with its C precedence level (higher binds tighter) and its C
/// meaning on 64-bit integers, written independently of the parser.
#[allow(clippy::type_complexity)]
const OPS: &[(&str, u8, fn(i64, i64) -> Option<i64>)] = &[
    ("*", 10, |a, b| Some(a.wrapping_mul(b))),
    ("/", 10, |a, b| (b != 0).then(|| a.wrapping_div(b))),
    ("%", 10, |a, b| (b != 0).then(|| a.wrapping_rem(b))),
    ("+", 9, |a, b| Some(a.wrapping_add(b))),
    ("-", 9, |a, b| Some(a.wrapping_sub(b))),
    // A count outside 0-63 is refused (C leaves it undefined).
    ("<<", 8, |a, b| (0..64).contains(&b).then(|| a << b)),
    (">>", 8, |a, b| (0..64).contains(&b).then(|| a >> b)),
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
                    (None, Err(e)) => assert!(
                        e.contains("division by zero") || e.contains("shift count"),
                        "`{text}`: {e}"
                    ),
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
        ("1 << 63 >> 63", -1),
        ("--5", 5),
        ("1 +\u{a0}2", 3),
        ("\u{3000}7\u{2003}*\u{a0}6", 42),
    ] {
        assert_eq!(value(&m, text), Ok(want), "`{text}`");
    }
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
                    .contains(&format!("expression deeper than {MAX_DEPTH} levels")),
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
        let mut e = bounded_engine(COND);
        for line in &lines {
            // Some fail for other reasons first; none may overflow the stack.
            let _ = run_line(&mut e, line);
        }
    });
}

#[test]
fn expect_splits_at_the_root_comparison() {
    let mut e = bounded_engine(COND);
    for line in [
        "expect 16 == 1 << 4",
        "expect 1 << 4 == 16",
        "expect 2 < 3 == 1",
        "expect 8 > 1 << 2",
        "expect (1 < 2) != 0",
        "expect -1 < 0",
        "expect 1\u{a0}<=\u{a0}1",
    ] {
        let out = run_line(&mut e, line).expect("parses");
        let outcome = out.expect.expect("an expect outcome");
        assert!(outcome.passed, "{line}: {}", out.text);
    }
    let out = run_line(&mut e, "expect 16 == 1 << 4").expect("parses");
    assert_eq!(out.text, "expect ok: 16 == 1 << 4\n");
    let out = run_line(&mut e, "expect 2 == 1 << 4").expect("parses");
    assert!(out.text.contains("right side 1 << 4 = 16"), "{}", out.text);
    for (line, says) in [
        ("expect 1 + 1", "needs a comparison"),
        ("expect 1 && 2 == 2", "outermost operator is `&&`"),
        ("expect 1 ==", "needs both sides"),
        ("expect 1 == (", "bad expression"),
        ("expect (1 == 1)", "needs a comparison"),
    ] {
        let err = run_line(&mut e, line).expect_err(line);
        assert!(err.to_string().contains(says), "{line}: {err}");
    }
}

#[test]
fn lane_in_print_is_the_selected_lane() {
    let mut e = bounded_engine(COND);
    run_raw(&mut e, "break here");
    run_raw(&mut e, "continue");
    run_raw(&mut e, "lane 5");
    assert_eq!(run_raw(&mut e, "p lane"), "lane = 5\n");
    assert_eq!(run_raw(&mut e, "p v3[lane]"), "v3[lane] = 20\n");
    assert_eq!(run_raw(&mut e, "p lane * 2 + 1"), "lane * 2 + 1 = 11\n");
    // Per-lane data is still shown for every lane.
    assert!(run_raw(&mut e, "p v3 + lane").contains("by lane"));
    // In a breakpoint condition `lane` is each lane tested.
    run_raw(&mut e, "restart");
    run_raw(&mut e, "delete");
    run_raw(&mut e, "break here if lane == 7");
    let out = run_line(&mut e, "continue").expect("runs");
    assert!(
        out.text.contains("lane 7") || out.text.contains("lanes 7"),
        "{}",
        out.text
    );
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
}

#[test]
fn float_literals_and_names_starting_like_registers() {
    use wavedbg_emulator::debug::expr::{parse, Expr};
    assert_eq!(parse("1.5"), Ok(Expr::Float(1.5f64.to_bits())));
    assert!(parse("0x1.5").is_err());
    assert!(parse("1.5.2").is_err());
    // Only `v`/`u` and digits are register names: `val` and `up` are names.
    assert_eq!(parse("val"), Ok(Expr::Label("val".into())));
    assert_eq!(parse("up"), Ok(Expr::Label("up".into())));
    assert!(parse("v128").is_err());
    let mut e = one_wave_loop();
    assert_eq!(run(&mut e, "print 3 / 2.0"), "3 / 2.0 = 1.5\n");
    assert_eq!(run(&mut e, "print 7 > 6.5"), "7 > 6.5 = 1\n");
    assert_eq!(run(&mut e, "print/x 2.75"), "2.75 = 0x0000000000000002\n");
}

/// A shift count outside 0-63 is refused, as division by zero is (C leaves both
/// undefined; wrapping the count would show a wrong number).
#[test]
fn shift_counts_outside_the_word_are_refused() {
    let m = machine();
    for text in ["1 << 64", "1 << -1", "-1 >> 64", "1 << (1 << 40)"] {
        let e = value(&m, text).expect_err(text);
        assert!(
            e.contains("shift count") && e.contains("out of range (0-63)"),
            "`{text}`: {e}"
        );
    }
    assert_eq!(value(&m, "1 << 0"), Ok(1));
}
