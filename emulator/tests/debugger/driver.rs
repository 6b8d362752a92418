//! The command path every front end adapts (`debug::driver`): typed arguments parsed once
//! with the column of a fault, Enter-repeat, quit words, the question before a command
//! throws the recorded history away (who asks, when, `set confirm`), the log, typed
//! outputs, owners of points, and `Engine::open` for every kind of kernel source.

use super::fixtures::*;
use wavedbg_emulator::debug::breakpoint::Owner;
use wavedbg_emulator::debug::command::{Command, ListArg, ParseError};
use wavedbg_emulator::debug::driver::{
    confirms, Driver, Input, Outcome, Plan, Planned, Writes, NOT_CONFIRMED,
};
use wavedbg_emulator::debug::expr::Scalar;
use wavedbg_emulator::debug::{KernelSource, OpenError, Output, PointRow};

fn parse_error(line: &str) -> ParseError {
    command::parse(line).expect_err(line)
}

#[test]
fn parse_errors_name_the_column_of_the_fault() {
    for (line, column, what) in [
        ("frobnicate 3", 1, "unknown command `frobnicate`"),
        ("stepi x", 7, "`x` is not a number"),
        ("print 1 +", 10, "bad expression `1 +`"),
        ("p (1 + ", 7, "bad expression `(1 +`"),
        ("watch heap:0", 7, "unknown space `heap`"),
        ("break loop if v3 >", 19, "bad condition `v3 >`"),
        ("x/4q out", 1, "unknown format or size letter `q`"),
        ("info frob", 6, "unknown `info frob`"),
        ("  delete 12x", 10, "`12x` is not a number"),
        // Columns count characters, not bytes.
        ("break k\u{e9}.s:loop if v3 >", 24, "bad condition `v3 >`"),
    ] {
        let e = parse_error(line);
        assert!(e.message.contains(what), "{line}: {}", e.message);
        assert_eq!(e.column, Some(column), "{line}: {e}");
    }
    // A fault of the whole command has no one column.
    assert_eq!(parse_error("break").column, None);
    // The text a front end shows is unchanged: message, then the usage.
    assert_eq!(
        parse_error("stepi x").to_string(),
        format!("`x` is not a number\nusage: {}", usage_of("stepi"))
    );
}

/// A number too large for its argument says so and names the largest it takes, in every
/// numeric argument (it said "is not a number", or "out of range", or "bad location").
#[test]
fn a_number_too_large_says_so_and_names_the_largest() {
    const BIG: &str = "99999999999999999999";
    let u64max = u64::MAX;
    let u32max = u32::MAX;
    for (line, what) in [
        (
            format!("stepi {BIG}"),
            format!("`{BIG}` is too large: at most {u64max}"),
        ),
        (
            format!("si all {BIG}"),
            format!("`{BIG}` is too large: at most {u64max}"),
        ),
        (
            format!("next {BIG}"),
            format!("`{BIG}` is too large: at most {u64max}"),
        ),
        (
            format!("rsi {BIG}"),
            format!("`{BIG}` is too large: at most {u64max}"),
        ),
        (
            format!("goto {BIG}"),
            format!("`{BIG}` is too large: at most {u64max}"),
        ),
        (
            "stepi 0x1_0000_0000_0000_0000".to_string(),
            format!("`0x1_0000_0000_0000_0000` is too large: at most {u64max}"),
        ),
        (
            "wave 4294967296".to_string(),
            format!("`4294967296` is too large: at most {u32max}"),
        ),
        (
            format!("delete {BIG}"),
            format!("`{BIG}` is too large: at most {u32max}"),
        ),
        (
            format!("ignore 1 {BIG}"),
            format!("`{BIG}` is too large: at most {u32max}"),
        ),
        (
            format!("break loop wave {BIG}"),
            format!("`{BIG}` is too large: at most {u32max}"),
        ),
        (
            format!("set width {BIG}"),
            format!("`{BIG}` is too large: at most {u32max}"),
        ),
        (
            format!("set history-size {BIG}"),
            format!("`{BIG}` is too large"),
        ),
        (format!("x/{BIG}x out"), format!("`{BIG}` is too large")),
        (
            format!("print {BIG}"),
            format!("`{BIG}` is too large: at most {u64max}"),
        ),
        (
            format!("break {BIG}"),
            format!("address `{BIG}` is too large: at most {u64max}"),
        ),
        (
            format!("break loop+{BIG}"),
            format!("offset `{BIG}` is too large: at most {u64max}"),
        ),
        (
            format!("list k.s:{BIG}"),
            format!("line `{BIG}` is too large: at most {u64max}"),
        ),
    ] {
        let e = parse_error(&line);
        assert!(e.message.contains(&what), "{line}: {}", e.message);
        assert!(!e.message.contains("not a number"), "{line}: {}", e.message);
    }
    // `set history-size` refuses what the address space cannot count (it clamped it
    // silently), as `set split` refuses a share out of its range.
    let max = (usize::MAX >> 20) as u64;
    let e = parse_error(&format!("set history-size {}", max + 1));
    assert!(
        e.message
            .contains(&format!("`{}` is too large: at most {max}", max + 1)),
        "{}",
        e.message
    );
    assert!(command::parse(&format!("set history-size {max}")).is_ok());
    // A word that is no number still says so.
    assert!(parse_error("stepi 12x")
        .message
        .contains("`12x` is not a number"));
}

#[test]
fn arguments_are_typed_when_parsed() {
    let cmd = |line: &str| {
        command::parse(line)
            .unwrap_or_else(|e| panic!("{line}: {e}"))
            .expect("a command")
    };
    match cmd("break loop+8 if v1 > 2 wave 3") {
        Command::Break {
            location,
            condition,
            filters,
            temporary: false,
        } => {
            assert_eq!(
                location,
                Location::Label {
                    file: None,
                    name: "loop".into(),
                    offset: 8
                }
            );
            assert_eq!(condition.map(|c| c.text), Some("v1 > 2".to_string()));
            assert_eq!(filters.wave, Some(3));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        cmd("advance *0x40"),
        Command::Advance(Location::Address(0x40))
    );
    assert_eq!(
        cmd("list k.s:12"),
        Command::List(Some(ListArg::Around(Location::Line {
            file: Some("k.s".into()),
            line: 12
        })))
    );
    assert_eq!(
        cmd("list 12"),
        Command::List(Some(ListArg::Around(Location::Line {
            file: None,
            line: 12
        })))
    );
    assert_eq!(
        cmd("break 64"),
        Command::Break {
            location: Location::Address(64),
            condition: None,
            filters: Filters::default(),
            temporary: false
        }
    );
    // Built by a front end from what it holds, printed as text that parses back.
    let built = Command::Break {
        location: Location::Address(0x48),
        condition: None,
        filters: Filters::default(),
        temporary: false,
    };
    assert_eq!(built.to_string(), "break *0x48");
    assert_eq!(command::parse(&built.to_string()), Ok(Some(built)));
    // A line with no file (as a front end may build it) prints as `:LINE`, not as a bare
    // number, which `break` reads as an address.
    let line = Command::Break {
        location: Location::Line {
            file: None,
            line: 12,
        },
        condition: None,
        filters: Filters::default(),
        temporary: false,
    };
    assert_eq!(line.to_string(), "break :12");
    assert_eq!(command::parse(&line.to_string()), Ok(Some(line)));
    assert_eq!(cmd("list 12").to_string(), "list 12");
    assert_eq!(
        cmd("advance :7"),
        Command::Advance(Location::Line {
            file: None,
            line: 7
        })
    );
}

#[test]
fn a_breakpoint_on_a_source_line_stops_at_its_first_instruction() {
    let mut e = loop_with_source();
    let line = line_of(LOOP, "vaddi.u32 v1, v1, 1");
    let set = run(&mut e, &format!("break loop.s:{line}"));
    let at = label(&e, "loop");
    assert!(
        set.starts_with(&format!("Breakpoint 1 at {at:#06x} <loop> (loop.s:{line})")),
        "{set}"
    );
    assert_eq!(e.breakpoints()[0].addr(), label(&e, "loop"));
    let (text, _) = stop(&mut e, "continue");
    assert!(text.starts_with("Breakpoint 1, wave 0"), "{text}");
    fails_with_usage(&mut e, "break other.s:3", "no source file `other.s`");
    fails_with_usage(&mut e, "break loop.s:1", "no code at line 1 of loop.s");
    // Saved and loaded as written.
    assert_eq!(
        e.breakpoints()[0].location.to_string(),
        format!("loop.s:{line}")
    );
}

#[test]
fn enter_repeats_the_last_typed_command_and_keys_do_not_change_it() {
    let mut e = one_wave_loop();
    let mut d = Driver::new();
    let pc = |e: &Engine| e.machine().waves[0].pc;
    d.run_line(&mut e, "si 2");
    let after_two = pc(&e);
    match d.run_line(&mut e, "") {
        Outcome::Ran { planned, .. } => assert_eq!(planned.text, "stepi 2"),
        other => panic!("{other:?}"),
    }
    assert!(pc(&e) > after_two, "Enter stepped again");
    // A command a front end built (a key) is not what Enter repeats.
    d.execute(&mut e, Input::Command(Command::Finish));
    assert_eq!(d.last(), Some(&Command::Stepi(2)));
    // A command that does not repeat leaves Enter with nothing to do.
    d.run_line(&mut e, "info waves");
    assert_eq!(d.run_line(&mut e, ""), Outcome::Nothing);
    // `x` goes on from where it ended.
    d.run_line(&mut e, "x/2xw 0x100000000");
    match d.run_line(&mut e, "") {
        Outcome::Ran { planned, ran } => {
            assert_eq!(planned.text, "x/2xw global:0x100000008");
            let out = ran.result.expect("reads");
            assert!(
                matches!(out.value, Output::Memory { addr: 0x1_0000_0008, ref bytes, .. } if bytes.len() == 8),
                "{:?}",
                out.value
            );
        }
        other => panic!("{other:?}"),
    }
    // The log holds lines as typed, and repeats as their command's text.
    let log = e.log();
    assert_eq!(log[0], "si 2");
    assert_eq!(log[1], "stepi 2");
}

#[test]
fn quit_words_quit_only_an_interactive_session() {
    let e = one_wave_loop();
    for word in ["quit", "q", "exit"] {
        assert_eq!(Driver::new().plan(&e, Input::Line(word)), Plan::Quit);
        match Driver::non_interactive().plan(&e, Input::Line(word)) {
            Plan::Invalid { error, .. } => assert!(
                error
                    .to_string()
                    .contains("ends an interactive session (the REPL, the TUI)"),
                "{error}"
            ),
            other => panic!("{word}: {other:?}"),
        }
    }
    assert_eq!(Driver::new().plan(&e, Input::Line("# note")), Plan::Nothing);
}

/// The question a driver that asks puts before `line`, or `None` when it plans to run it
/// at once (anything else fails the test).
fn question(d: &mut Driver, e: &Engine, input: Input<'_>) -> Option<(String, Planned)> {
    match d.plan(e, input) {
        Plan::Run(_) => None,
        Plan::Confirm { question, planned } => Some((question, planned)),
        other => panic!("{other:?}"),
    }
}

fn asks(d: &mut Driver, e: &Engine, line: &str) -> bool {
    question(d, e, Input::Line(line)).is_some()
}

const QUESTION_END: &str = "\nStart it from the beginning? (y or n) ";

#[test]
fn a_driver_that_asks_asks_before_throwing_the_history_away_once_something_ran() {
    let mut e = one_wave_loop();
    assert!(e.confirm(), "`set confirm` is on by default, as in gdb");
    let mut d = Driver::new().asking(true);
    // Nothing has run: nothing to lose, no question.
    for line in ["run", "r", "restart", "load s.ron"] {
        assert!(!asks(&mut d, &e, line), "{line} at the launch");
    }
    assert!(question(&mut d, &e, Input::Command(Command::Restart)).is_none());
    stop(&mut e, "stepi 3");
    // Every word of `restart`, a key's built command, and `load`.
    for line in ["run", "r", "restart", "  run  "] {
        let (q, planned) = question(&mut d, &e, Input::Line(line)).expect(line);
        assert_eq!(
            q,
            format!("The launch restarts and its recorded history goes.{QUESTION_END}")
        );
        let expected = if line.trim() == "restart" {
            Command::Restart
        } else {
            Command::Run
        };
        assert_eq!(planned.command, expected);
        assert_eq!(planned.text, line.trim(), "echoed and recorded as typed");
    }
    let (_, key) = question(&mut d, &e, Input::Command(Command::Restart)).expect("Ctrl-R");
    assert_eq!(key.text, "restart");
    // `load` of a session it can load (a missing or broken file fails without asking).
    assert!(!asks(&mut d, &e, "load s.ron"), "a missing file");
    let file = std::env::temp_dir().join(format!("wavedbg-asks-{}.ron", std::process::id()));
    let s = file.display().to_string();
    let saved = Driver::non_interactive().run_line(&mut e, &format!("save {s}"));
    assert!(
        saved.text().starts_with("Saved session"),
        "{}",
        saved.text()
    );
    let (q, planned) = question(&mut d, &e, Input::Line(&format!("load {s}"))).expect("load");
    assert!(
        q.starts_with(&format!(
            "The launch restarts with the settings of `{s}` and its recorded history goes."
        )),
        "{q}"
    );
    assert!(q.ends_with(QUESTION_END), "{q}");
    assert_eq!(planned.command, Command::Load(s.clone()));
    let _ = std::fs::remove_file(&file);
    // Commands that keep the history never ask.
    for line in [
        "stepi",
        "info history",
        "goto 1",
        "set confirm off",
        "",
        "# note",
    ] {
        assert!(
            !matches!(d.plan(&e, Input::Line(line)), Plan::Confirm { .. }),
            "{line}"
        );
    }
    // Planning ran nothing: the machine and the log are as the step left them.
    assert_eq!(e.machine().stats.wave_instructions, 3);
    assert_eq!(e.log(), ["stepi 3"]);

    // A yes runs the planned command: the launch is at its start, and then there is
    // nothing to lose.
    let (_, planned) = question(&mut d, &e, Input::Line("restart")).expect("asks");
    let ran = planned.run(&mut e);
    assert!(ran.result.is_ok());
    assert_eq!(e.machine().stats.wave_instructions, 0);
    assert_eq!(e.history().info(0).entries, 0);
    assert!(!asks(&mut d, &e, "run"), "restarted: nothing ran since");
    // `run` (gdb's): on a yes, the launch restarts and runs to its end here.
    stop(&mut e, "stepi 2");
    let (_, planned) = question(&mut d, &e, Input::Line("run")).expect("asks");
    let ran = planned.run(&mut e);
    let out = ran.result.expect("ran");
    assert!(out.text.starts_with("Restarted: "), "{}", out.text);
    assert!(out.text.contains("All waves exited"), "{}", out.text);
    run(&mut e, "restart");

    // Back at instruction 0 by time travel, the history is still there to lose.
    stop(&mut e, "stepi 2");
    stop(&mut e, "goto 0");
    assert_eq!(e.machine().stats.wave_instructions, 0);
    assert!(asks(&mut d, &e, "run"), "after goto 0");

    // An edit before any instruction is history too.
    let mut edited = one_wave_loop();
    run(&mut edited, "set u9 = 7");
    assert_eq!(edited.machine().stats.wave_instructions, 0);
    assert!(asks(&mut d, &edited, "run"), "after an edit");

    // `set confirm off`: no question; on again: the question is back.
    run(&mut e, "set confirm off");
    assert!(!e.confirm());
    assert!(!asks(&mut d, &e, "run"));
    assert!(question(&mut d, &e, Input::Command(Command::Restart)).is_none());
    run(&mut e, "set confirm on");
    assert!(asks(&mut d, &e, "run"));
}

#[test]
fn drivers_of_scripts_and_servers_never_ask() {
    let mut e = one_wave_loop();
    stop(&mut e, "stepi 3");
    for (what, mut d) in [
        ("new", Driver::new()),
        ("asking(false)", Driver::new().asking(false)),
        ("non_interactive", Driver::non_interactive()),
        ("replaying", Driver::replaying(Writes::Refused)),
        (
            "replaying, writes allowed",
            Driver::replaying(Writes::Allowed),
        ),
    ] {
        for line in ["run", "r", "restart", "load s.ron"] {
            assert!(!asks(&mut d, &e, line), "{what}: {line}");
        }
        assert!(question(&mut d, &e, Input::Command(Command::Restart)).is_none());
    }
    // Run by a driver that does not ask, `restart` restarts at once (replay, monitor,
    // DAP), and `run` restarts and runs, as gdb's.
    let out = Driver::non_interactive().run_line(&mut e, "restart");
    assert!(out.text().starts_with("Restarted:"), "{}", out.text());
    assert_eq!(e.machine().stats.wave_instructions, 0);
    stop(&mut e, "stepi 3");
    let out = Driver::non_interactive().run_line(&mut e, "run");
    assert!(
        out.text()
            .starts_with("Restarted: 1 wave resident, all at 0x0000.\nAll waves exited"),
        "{}",
        out.text()
    );
}

#[test]
fn execute_cannot_ask_so_a_command_that_needs_a_yes_does_not_run() {
    let mut e = one_wave_loop();
    stop(&mut e, "stepi 3");
    let mut d = Driver::new().asking(true);
    let out = d.run_line(&mut e, "run");
    match &out {
        Outcome::NotConfirmed { planned } => assert_eq!(planned.command, Command::Run),
        other => panic!("{other:?}"),
    }
    assert_eq!(out.text(), format!("{NOT_CONFIRMED}\n"));
    assert_eq!(out.text(), "Not confirmed.\n", "gdb's words");
    assert!(out.result().is_none());
    assert_eq!(e.machine().stats.wave_instructions, 3, "nothing ran");
    assert_eq!(e.log(), ["stepi 3"], "nor was logged");
}

#[test]
fn only_y_or_yes_confirms() {
    for yes in ["y", "Y", "yes", "YES", "Yes", "  y  ", "yes\n"] {
        assert!(confirms(yes), "{yes:?}");
    }
    for no in [
        "",
        "n",
        "no",
        "N",
        "ye",
        "yess",
        "y y",
        "yes please",
        "\u{1b}",
        "1",
    ] {
        assert!(!confirms(no), "{no:?}");
    }
}

#[test]
fn outputs_are_typed() {
    let mut e = one_wave_loop();
    let value = |e: &mut Engine, line: &str| out(e, line).value;
    assert_eq!(value(&mut e, "break loop"), Output::PointSet(1));
    assert_eq!(value(&mut e, "watch out 4"), Output::PointSet(2));
    match value(&mut e, "info breakpoints") {
        Output::Points(rows) => {
            let ids: Vec<u32> = rows.iter().map(PointRow::id).collect();
            assert_eq!(ids, [1, 2]);
            assert!(matches!(rows[0], PointRow::Break(_)));
            assert!(matches!(rows[1], PointRow::Watch(_)));
            assert!(rows.iter().all(|r| *r.owner() == Owner::User));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(value(&mut e, "print 2 + 3"), Output::Value(Scalar::Int(5)));
    assert_eq!(
        value(&mut e, "print lane + 1"),
        Output::Value(Scalar::Int(1))
    );
    // A float result is a float, not truncated.
    assert_eq!(
        value(&mut e, "print 7 / 2.0"),
        Output::Value(Scalar::F64(3.5))
    );
    stop(&mut e, "stepi 3");
    match value(&mut e, "info waves") {
        Output::Waves(rows) => {
            assert_eq!(rows.len(), e.machine().waves.len());
            assert!(rows[0].selected && rows[0].id == 0 && rows[0].exec == u32::MAX);
            assert_eq!(rows[0].pc, e.machine().waves[0].pc);
        }
        other => panic!("{other:?}"),
    }
    run(&mut e, "lane 5");
    assert_eq!(
        value(&mut e, "info lanes"),
        Output::LaneMask {
            wave: 0,
            exec: u32::MAX,
            selected: 5
        }
    );
    match value(&mut e, "print v0") {
        Output::Registers {
            wave: 0,
            vector: Some((0, lanes)),
            uniforms,
            ..
        } => {
            assert_eq!(lanes, (0..32).collect::<Vec<u32>>());
            assert_eq!(uniforms.len(), 64);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        value(&mut e, "info registers"),
        Output::Registers { vector: None, .. }
    ));
    match value(&mut e, "print v0 + 1") {
        Output::Lanes { values, exec } => {
            assert_eq!(values, (1..=32).map(Scalar::Int).collect::<Vec<_>>());
            assert_eq!(exec, u32::MAX);
        }
        other => panic!("{other:?}"),
    }
    match value(&mut e, "print v0 * 0.5") {
        Output::Lanes { values, .. } => {
            assert_eq!(values[3], Scalar::F64(1.5));
            assert_eq!(values[3].to_string(), "1.5");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_clients_points_are_named_by_their_owner_and_stay_out_of_sessions() {
    let mut e = one_wave_loop();
    let id = e
        .add_breakpoint(&loc("after"), None, Filters::default(), false)
        .expect("sets");
    e.set_owner(id, Owner::Client("Breakpoint at 0x0028 <after>".into()))
        .expect("owns");
    assert!(e.set_owner(99, Owner::User).is_err());
    let s = e.continue_all();
    let text = wavedbg_emulator::debug::view::describe_stop(&e, &s);
    assert!(
        text.starts_with("Breakpoint at 0x0028 <after>, wave 0"),
        "{text}"
    );
    assert!(Session::capture(&e).breakpoints.is_empty());
}

#[test]
fn a_front_end_may_keep_the_lane_through_stops() {
    let hit = |lane: u32, follows: bool| {
        let mut e = engine(WRITERS);
        e.set_lane_follows_stops(follows);
        run(&mut e, &format!("lane {lane}"));
        run(&mut e, "watch shared:0 4");
        let (_, s) = stop(&mut e, "continue");
        (watch_hits(&s)[0].lanes, e.selected_lane)
    };
    let (lanes, _) = hit(0, true);
    let other = (0..32)
        .find(|l| lanes >> l & 1 == 0)
        .expect("a lane that did not touch");
    assert_eq!(hit(other, false).1 as u32, other, "kept");
    assert_eq!(
        hit(other, true).1 as u32,
        lanes.trailing_zeros(),
        "the first lane that touched the range"
    );
}

#[test]
fn every_kind_of_kernel_source_opens() {
    let dir = std::env::temp_dir().join(format!("wavedbg-open-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let options = LaunchOptions::default;
    let demo = Engine::open(KernelSource::Demo, options()).expect("demo");
    assert_eq!(demo.kernel_path(), Some(wavedbg_emulator::demo::NAME));
    assert!(demo.no_source().is_none(), "the demo's source is built in");

    let s = dir.join("loop.s");
    std::fs::write(&s, LOOP).expect("write");
    let mut from_s = Engine::open(KernelSource::File(s.clone()), options()).expect(".s");
    assert!(from_s.no_source().is_none(), "a .s file has its source");

    let o = dir.join("loop.wko");
    std::fs::write(&o, program(LOOP).to_object().expect("object")).expect("write");
    let from_o = Engine::open(KernelSource::File(o.clone()), options()).expect(".wko");
    assert_eq!(
        from_o.machine().program().code,
        from_s.machine().program().code
    );

    // A session opens its own kernel and brings its points back.
    run(&mut from_s, "break after");
    let session = dir.join("s.ron");
    run(&mut from_s, &format!("save {}", session.display()));
    let back = Engine::open(
        KernelSource::Session {
            file: session.clone(),
            kernel: None,
        },
        options(),
    )
    .expect("session");
    assert_eq!(back.breakpoints().len(), 1);
    assert_eq!(back.kernel_path(), from_s.kernel_path());

    // Each failure says which file and why.
    let missing =
        Engine::open(KernelSource::File(dir.join("none.s")), options()).expect_err("missing");
    assert!(matches!(missing, OpenError::Assemble(_)), "{missing}");
    assert!(missing.to_string().contains("none.s"), "{missing}");
    let bad = dir.join("bad.wko");
    std::fs::write(&bad, "not an object").expect("write");
    let bad = Engine::open(KernelSource::File(bad), options()).expect_err("bad object");
    assert!(matches!(bad, OpenError::Object { .. }), "{bad}");
    assert!(bad.to_string().contains("bad.wko"), "{bad}");
    let shape = Engine::open(
        KernelSource::File(s),
        LaunchOptions {
            workgroup_lanes: Some(33),
            ..Default::default()
        },
    )
    .expect_err("bad shape");
    assert!(matches!(shape, OpenError::Launch { .. }), "{shape}");
    assert_eq!(
        KernelSource::named("demo:histogram.s", &session).expect("the demo"),
        KernelSource::Demo
    );
    // A kernel named but not there: the session and both places looked at are named.
    let missing = KernelSource::named("nothere.s", &session).expect_err("missing");
    let text = missing.to_string();
    let beside = session.with_file_name("nothere.s");
    assert!(
        text.contains(&session.display().to_string())
            && text.contains(&beside.display().to_string())
            && text.contains("`nothere.s`"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Review findings: what prints back parses to the same command, and a session or script
/// written elsewhere still names the kernel's file.
#[test]
fn printed_commands_keep_what_the_text_said() {
    for line in [
        "x/4xw global:global:(0x100000000)",
        "x/4xw global:shared:(0)",
        "last-write global:global:(0x100000000)",
        "last-write global:shared:(0) 8",
        "save \" x\"",
        "load \"a b\"",
        "display/xw v2",
        "display/4xw v2",
    ] {
        let cmd = command::parse(line)
            .unwrap_or_else(|e| panic!("{line}: {e}"))
            .expect("a command");
        let text = cmd.to_string();
        assert_eq!(command::parse(&text), Ok(Some(cmd)), "{line} -> {text}");
    }
    for (line, what) in [
        ("save \"\"", "`save` needs a file name"),
        ("break *a:b", "bad location `*a:b`"),
        (
            "watch 0x100000000 4 wave 3",
            "`wave` does not apply to global memory",
        ),
        (
            "watch shared:0 4 lane 3",
            "`lane` does not apply to shared memory",
        ),
        (
            "watch scratch:0 4 workgroup 1",
            "`workgroup` does not apply to scratch memory",
        ),
        ("display/s v2", "unknown format `/s`"),
    ] {
        let e = parse_error(line);
        assert!(e.message.contains(what), "{line}: {e}");
    }
    // A display of an earlier version's session keeps its letter, or its natural form.
    assert_eq!(
        command::parse_display("/xw v2").map(|d| d.format),
        Ok(Some('x'))
    );
    assert_eq!(command::parse_display("/s v2").map(|d| d.format), Ok(None));
    // `/i` shows the instruction at the address (gdb's `display/i $pc`).
    assert_eq!(
        command::parse_display("/i pc").map(|d| d.format),
        Ok(Some('i'))
    );
}

#[test]
fn a_source_file_is_named_by_its_last_component_from_anywhere() {
    let mut e = loop_with_source();
    let line = line_of(LOOP, "vaddi.u32 v1, v1, 1");
    let set = run(&mut e, &format!("break sub/dir/loop.s:{line}"));
    assert!(set.starts_with("Breakpoint 1 at"), "{set}");
    assert!(!run(&mut e, "list ../loop.s:3").is_empty());
    fails_with_usage(
        &mut e,
        "break sub/other.s:3",
        "no source file `sub/other.s`",
    );
}

/// An error about a huge input quotes its start, not all of it.
#[test]
fn errors_quote_huge_text_cut_to_a_line() {
    let word = "z".repeat(1 << 20);
    let e = parse_error(&word);
    assert!(e.message.len() < 200, "{} bytes", e.message.len());
    assert!(
        e.message.starts_with(&format!(
            "unknown command `{}…` (1048576 bytes)",
            "z".repeat(40)
        )),
        "{}",
        e.message
    );
    let e = parse_error(&format!("print 1 + {}", ")".repeat(100_000)));
    assert!(e.message.len() < 400, "{}", e.message);
    assert!(e.message.contains("(100000 bytes)"), "{}", e.message);
    // Short quotes stay whole.
    assert_eq!(parse_error("stepi x").message, "`x` is not a number");
}

/// A kernel is read once when opened: the text the engine assembled is the text `list`
/// shows, even from a stream that cannot be read twice (a FIFO).
#[test]
fn an_opened_kernel_keeps_the_source_it_assembled() {
    let dir = std::env::temp_dir().join(format!("wavedbg-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let fifo = dir.join("loop.s");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        eprintln!("skipped: no mkfifo");
        return;
    }
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(&fifo, LOOP))
    };
    let mut e = Engine::open(KernelSource::File(fifo), LaunchOptions::default()).expect("opens");
    writer.join().expect("writer").expect("written");
    assert!(e.no_source().is_none(), "{:?}", e.no_source());
    let listed = run(&mut e, "list 10");
    assert!(listed.contains("loop:"), "{listed}");
    let _ = std::fs::remove_dir_all(&dir);
}
