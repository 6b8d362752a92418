//! The command language as a whole: `help` lists and describes every command, every
//! command and alias runs, unknown and malformed commands say what is wrong with the usage
//! line, a typed command prints as text that parses back, any command line runs without a
//! panic, and docs/commands.md matches the command table.

use super::fixtures::*;
use wavedbg_emulator::debug::command::{markdown, parse};

#[test]
fn help_lists_every_command_and_describes_each() {
    let mut e = engine(LOOP);
    let all = run(&mut e, "help");
    assert!(all.starts_with("Commands (`help COMMAND` for details):\n"));
    assert_eq!(run(&mut e, "h"), all);
    assert!(all.contains("  break (b, br) "), "{all}");
    assert!(all.contains("  continue (c, cont) "), "{all}");
    for HelpEntry {
        name,
        aliases,
        usage,
        about,
    } in HELP
    {
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
    assert_eq!(err.message(), "no command `nosuch`");
    assert_eq!(err.usage(), Some("help lists every command"));
    let err = fail(&mut e, "help stepi twice");
    assert_eq!(
        err.message(),
        "`stepi` has no topic `twice` (`help stepi` shows it whole)"
    );
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
        "restart",
        "u after",
        "restart",
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
        run_line(&mut e, line).unwrap_or_else(|err| panic!("`{line}` failed:\n{err}"));
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
        ("reverse-stepi", "reverse-nexti".to_string()),
        ("reverse-stepi", "rni 1".to_string()),
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
        ("set", "set confirm off".to_string()),
        ("set", "set confirm on".to_string()),
        ("set", "set format lanes unsigned".to_string()),
        ("set", "set memory-unit words".to_string()),
        ("set", "set split lanes 40".to_string()),
        ("set", "set width 80".to_string()),
        ("set", "set width unlimited".to_string()),
        // gdb's words.
        ("step", "nexti".to_string()),
        ("step", "ni 2".to_string()),
        ("step", "step".to_string()),
        ("step", "s 2".to_string()),
        ("next", "next".to_string()),
        ("next", "n 3".to_string()),
        ("reverse-step", "reverse-step".to_string()),
        ("reverse-step", "rs 2".to_string()),
        ("reverse-next", "reverse-next".to_string()),
        ("reverse-next", "rn".to_string()),
        ("reverse-finish", "reverse-finish".to_string()),
        ("info", "info line".to_string()),
        ("info", "info source".to_string()),
        ("info", "info locals".to_string()),
        ("until", "until".to_string()),
        ("until", "u".to_string()),
        ("backtrace", "backtrace".to_string()),
        ("backtrace", "bt".to_string()),
        ("backtrace", "where".to_string()),
        ("frame", "frame".to_string()),
        ("frame", "f 0".to_string()),
        ("frame", "info frame".to_string()),
        ("info", "info lanes /d v1 u6 exec".to_string()),
        ("start", "start".to_string()),
        ("run", "run".to_string()),
        ("run", "r".to_string()),
    ];
    for (command, line) in &later {
        if command::canonical(command).is_none() {
            continue;
        }
        run_line(&mut e, line).unwrap_or_else(|err| panic!("`{line}` failed:\n{err}"));
        let word = line.split_whitespace().next().unwrap();
        used.insert(word.split('/').next().unwrap().to_string());
    }
    // `up` and `down` fail as gdb's do at the one frame there is.
    for (word, message) in [
        ("up", "Initial frame selected; you cannot go up."),
        (
            "down",
            "Bottom (innermost) frame selected; you cannot go down.",
        ),
    ] {
        if command::canonical(word).is_some() {
            assert_eq!(fail(&mut e, word).message(), message);
            used.insert(word.to_string());
        }
    }
    let _ = std::fs::remove_file(&file);
    // `advance barrier` is the other form of `advance`.
    let mut e = engine(MEET_AT_BARRIER);
    assert!(run(&mut e, "advance barrier").contains("reached the barrier at 0x002c <sync>"));
    // `finding` needs a finding: a register read before anything wrote it.
    let mut e = engine(".kernel k\n.workgroup 32\n    vmov v1, v5\n    end\n");
    run(&mut e, "set check init on");
    run(&mut e, "continue");
    let text = run(&mut e, "finding 1");
    assert!(
        text.starts_with("Finding 1 (uninitialised register read), at side, wave 0"),
        "{text}"
    );
    used.insert("finding".to_string());
    for HelpEntry { name, aliases, .. } in HELP {
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
        // gdb's words are suggested as gdb means them.
        ("stp", "step"),
        ("nxt", "next"),
        ("bactrace", "backtrace"),
        ("wher", "where"),
        ("frme", "frame"),
        ("qit", "quit"),
        ("wach global:0x100000000", "watch"),
        ("expct 1 == 1", "expect"),
    ] {
        let err = fail(&mut e, line);
        let word = line.split_whitespace().next().unwrap();
        assert_eq!(
            err.message(),
            format!("unknown command `{word}` (did you mean `{near}`?)"),
            "{line}"
        );
        assert_eq!(err.usage(), Some("help lists every command"));
        assert!(err
            .to_string()
            .ends_with("\nusage: help lists every command"));
    }
    let err = fail(&mut e, "frobnicate");
    assert_eq!(err.message(), "unknown command `frobnicate`");
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
        ("break store foo bar", "unexpected `foo` after the location `store`"),
        ("break store if v3 >", "bad condition `v3 >`"),
        ("break store if", "`if` needs a condition"),
        ("break store lane 32", "lane 32 out of range (0-31)"),
        ("break store wave x", "`x` is not a number"),
        ("delete x", "`x` is not a number"),
        ("delete 9", "no breakpoint or watchpoint number 9"),
        ("disable x", "`x` is not a number"),
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
        ("watch scratch:0 4 wave 9", "wave 9 is not in the launch (0-3)"),
        ("watch scratch:0 4 lane 32", "lane 32 out of range (0-31)"),
        ("rwatch nosuch", "no symbol `nosuch`"),
        ("awatch 0x100000000 4 if 1 +", "bad condition `1 +`"),
        ("continue/x", "`continue` takes no /FORMAT"),
        ("stepi x", "`x` is not a number"),
        ("si -1", "`-1` is not a number"),
        ("advance", "`advance` needs a location"),
        ("until nowhere", "no label `nowhere`"),
        ("u 0x2", "0x2 is not the start of an instruction"),
        ("wave 1 2", "unexpected `2` after the number `1`"),
        ("lane 1 2 3", "unexpected `2` after the number `1`"),
        ("set history-size 10 20", "unexpected `20` after the number `10`"),
        ("disassemble 0 4", "unexpected `4` after the location `0`"),
        ("frame 0 1", "unexpected `1` after the number `0`"),
        ("lane 99999999999", "lane 99999999999 out of range (0-31)"),
        ("break store lane 99999999999", "lane 99999999999 out of range (0-31)"),
        ("last-write v3[300]", "lane 300 out of range (0-31)"),
        ("watch scratch:0 4 wave 99999", "wave 99999 is not in the launch (0-3)"),
        ("why foo", "`why` takes no argument (unexpected `foo`)"),
        ("continue 2", "`continue` takes no argument (unexpected `2`)"),
        ("finish now", "`finish` takes no argument (unexpected `now`)"),
        ("interrupt x", "`interrupt` takes no argument (unexpected `x`)"),
        (
            "reverse-continue 3",
            "`reverse-continue` takes no argument (unexpected `3`)",
        ),
        ("backtrace full", "`backtrace` takes no argument (unexpected `full`)"),
        ("info waves 5", "`info waves` takes no argument (unexpected `5`)"),
        ("info threads x", "`info threads` takes no argument (unexpected `x`)"),
        (
            "info breakpoints 1",
            "`info breakpoints` takes no argument (unexpected `1`)",
        ),
        (
            "info findings all",
            "`info findings` takes no argument (unexpected `all`)",
        ),
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
            "bad expression `v3 +`: expected a value (at column 7)",
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
        // A range past the top of the address space is not shown empty.
        (
            "x/3xg global:0xffffffffffffffff",
            "cannot access memory: 0xffffffffffffffff.. (past the end of the 64-bit address space) is not allocated global memory",
        ),
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
        ("set confirm maybe", "set confirm [on|off]"),
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
            "bad expression `v3 + == 1`: unexpected `== 1` (at column 13)",
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

/// `wave` alone shows the selected wave and changes nothing, as gdb's `thread` alone.
#[test]
fn wave_alone_shows_the_selected_wave() {
    let mut e = engine(BARRIER);
    out(&mut e, "wave 1");
    let shown = out(&mut e, "wave").text;
    assert!(
        shown.starts_with("[Current wave is 1 (workgroup 0, wave_in_wg 1), ready]\n  0x0000"),
        "{shown}"
    );
    assert_eq!(e.selected_wave, 1);
    assert_eq!(e.machine().stats.wave_instructions, 0);
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

#[test]
fn ids_that_do_not_fit_32_bits_are_errors_not_truncated() {
    let mut e = bounded_engine(COND);
    for line in [
        "wave 4294967296",
        "delete 4294967297",
        "break here wave 4294967296",
    ] {
        let err = run_line(&mut e, line).expect_err(line);
        assert!(
            err.to_string().contains("is too large: at most 4294967295"),
            "{line}: {err}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn command_parser_and_completion_never_panic(text in prop_oneof![texty(), bytes_text(), command_line()]) {
        let _ = command::parse(&text);
        let e = bounded_engine(COND);
        let words = Words::of(&e, &[]);
        // Every prefix that ends on a character boundary, as the cursor moves.
        for (i, _) in text.char_indices() {
            let _ = words.candidates(&text[..i]);
        }
        let _ = words.candidates(&text);
    }

    #[test]
    fn engine_runs_any_command_line(line in command_line()) {
        let mut e = bounded_engine(COND);
        let _ = run_line(&mut e, &line);
        let _ = run_line(&mut e, "info registers");
    }
}

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
        "step",
        "step 3",
        "next",
        "next 2",
        "until",
        "until here",
        "until *0x40",
        "run",
        "start",
        "list 3,8",
        "list loop,",
        "list ,20",
        "list k.cl:3,8",
        "list *0x10,loop",
        "backtrace",
        "frame",
        "frame 0",
        "up",
        "up 2",
        "down",
        "down 3",
        "info frame",
        "info lanes v3 u2 exec",
        "info lanes /d v3",
        "info lanes /f",
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
        "set confirm off",
        "set confirm on",
        "set format lanes f32",
        "set format memory signed",
        "set format registers hex",
        "set memory-unit words",
        "set split left 30",
        "set split source 70",
        "set split console default",
        "set split lanes 55",
        "set width 80",
        "set width 0",
        "set width unlimited",
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
        // File names with quotes and spaces: quoted when they must be, as they were.
        "disassemble (\"'global:v3",
        "break a'b.cl:3",
        "break \"a'b c.cl\":3",
        "break 'sub dir/x.cl':2",
        "list 'sub dir/x.cl':2,'sub dir/x.cl':4",
    ] {
        let cmd = command::parse(line)
            .unwrap_or_else(|e| panic!("{line}: {e}"))
            .expect("a command");
        let text = cmd.to_string();
        assert_eq!(command::parse(&text), Ok(Some(cmd)), "{line} -> {text}");
    }
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

/// docs/commands.md is generated from the command table; this test fails when they
/// disagree. Regenerate with `WAVEDBG_BLESS=1 cargo test --release --test debugger
/// docs_commands_md`.
#[test]
fn docs_commands_md_matches_the_command_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/commands.md");
    let generated = markdown();
    if std::env::var_os("WAVEDBG_BLESS").is_some() {
        std::fs::write(path, &generated).expect("write docs/commands.md");
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/commands.md is out of date: run `WAVEDBG_BLESS=1 cargo test --release --test debugger docs_commands_md`"
    );
}

/// A location names a label only as the assembler spells one: `list *-` was read as a
/// label `-` and shown as `list -` (list before), another command; so was any name no
/// kernel can define. Each is a clear error now, and what parses shows as itself.
#[test]
fn locations_name_only_labels_the_assembler_accepts() {
    for bad in ["list *-", "break -", "list k.s:-"] {
        let e = parse(bad).expect_err(bad);
        assert!(e.to_string().contains("bad location"), "{bad}: {e}");
    }
    for good in [
        "list *loop",
        "list loop+8",
        "break .L1",
        "break k.s:$x",
        "list -",
        // gdb's `*EXPR`: an expression, evaluated when the command runs.
        "break *a-b",
        "list *(pc + 8)",
    ] {
        let cmd = parse(good).expect(good).expect(good);
        let again = parse(&cmd.to_string()).expect(good).expect(good);
        assert_eq!(again, cmd, "{good} shows as {cmd}");
    }
}

/// `if` with no condition after it is a condition left out, as gdb says, not part of the
/// location (`tbreak next_word if` said "bad location `next_word if`").
#[test]
fn an_if_without_a_condition_says_so() {
    for bad in [
        "tbreak next_word if",
        "break next_word if   ",
        "break if",
        "watch shared:0 4 if",
        "break loop if wave 3",
    ] {
        let e = parse(bad).expect_err(bad);
        assert!(
            e.to_string().contains("`if` needs a condition"),
            "{bad}: {e}"
        );
    }
    for good in [
        "break loop if v1 > 2",
        "break loop wave 3 if v1",
        "break iffy",
    ] {
        assert!(parse(good).is_ok_and(|c| c.is_some()), "{good}");
    }
}

/// Boolean settings read their value as gdb does: `on` may be left out, and 1, yes,
/// enable (0, no, disable) mean on (off).
#[test]
fn boolean_settings_read_values_as_gdb_does() {
    use wavedbg_emulator::check::CheckGroup;
    use wavedbg_emulator::debug::command::Command;
    for (text, want) in [
        ("set check all", Command::Check(CheckGroup::All, true)),
        (
            "set check races 0",
            Command::Check(CheckGroup::Races, false),
        ),
        ("set check init yes", Command::Check(CheckGroup::Init, true)),
        ("set confirm", Command::SetConfirm(true)),
        ("set confirm no", Command::SetConfirm(false)),
        ("set context disable", Command::SetContext(false)),
        ("set context enable", Command::SetContext(true)),
    ] {
        assert_eq!(parse(text), Ok(Some(want)), "{text}");
    }
    assert!(parse("set check all maybe").is_err());
}

/// `reverse-stepi` right after a fault: the faulting instruction counts as the wave's
/// instruction and changed nothing but its state, so the PC stays, the wave is ready
/// again, and the output says the fault was undone; the next one moves the PC back.
#[test]
fn reverse_stepi_after_a_fault_says_the_fault_was_undone() {
    let src = "\
.kernel fault
.workgroup 32
.grid 1
.buffer out, 64
.arg u[0:1], out
    vlaneid v0
    vshli v1, v0, 2
bad:
    st.ubase.b32 v0, u[0:1], v1, 0
    wait.vst 0
    end
";
    let mut e = engine(src);
    let stop = out(&mut e, "continue");
    assert!(
        matches!(stop.stop.map(|s| s.reason), Some(StopReason::Fault(_))),
        "{}",
        stop.text
    );
    let back = out(&mut e, "reverse-stepi").text;
    assert!(
        back.contains("The fault at 0x000c <bad> is undone"),
        "{back}"
    );
    let w = &e.machine().waves[0];
    assert_eq!((w.pc, w.state), (0xc, WaveState::Ready));
    let again = out(&mut e, "reverse-stepi").text;
    assert!(!again.contains("undone"), "{again}");
    assert_eq!(e.machine().waves[0].pc, 0x4);
}

/// ` if ` and filter words inside a quoted file name belong to the name, not to the
/// command: the condition and the filters are split off outside quotes only.
#[test]
fn a_quoted_file_name_may_hold_if_and_filter_words() {
    use wavedbg_emulator::debug::command::{Command, Location};
    let parsed = |line: &str| match command::parse(line) {
        Ok(Some(Command::Break {
            location,
            condition,
            filters,
            ..
        })) => (location, condition.map(|c| c.to_string()), filters),
        other => panic!("{line}: {other:?}"),
    };
    let (location, condition, filters) = parsed("break 'a if b.cl':3");
    assert_eq!(
        location,
        Location::Line {
            file: Some("a if b.cl".into()),
            line: 3
        }
    );
    assert_eq!((condition, filters.wave), (None, None));
    let (location, condition, filters) = parsed("break \"x wave 3.cl\":2 wave 1 if lane == 2");
    assert_eq!(
        location,
        Location::Line {
            file: Some("x wave 3.cl".into()),
            line: 2
        }
    );
    assert_eq!(condition.as_deref(), Some("lane == 2"));
    assert_eq!(filters.wave, Some(1));
}
