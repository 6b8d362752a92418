//! Sessions and scripts: a replayed script gives byte-identical output, the example
//! scripts run to their end, the same session gives the same stops, loaders refuse deep
//! nesting and never panic, and the command log is bounded.

use super::fixtures::*;

/// The transcript of a script: every command and what it printed (or its error).
fn transcript(e: &mut Engine, lines: &str) -> String {
    let mut s = String::new();
    for line in lines.lines() {
        s.push_str(&format!("(wavedbg) {line}\n"));
        match run_line(e, line) {
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

#[test]
fn the_same_session_twice_gives_the_same_stops() {
    let session = |e: &mut Engine| -> Vec<StopEvent> {
        let out = e.machine().buffer_base("out").unwrap();
        e.add_breakpoint(
            &loc("gstore"),
            Some(cond("v4 % 7 == 3")),
            Filters::default(),
            false,
        )
        .unwrap();
        e.add_watchpoint(WatchKind::Write, Scope::Shared(None), 0, 8, None)
            .unwrap();
        e.add_watchpoint(WatchKind::Access, Scope::Global, out + 4 * 60, 16, None)
            .unwrap();
        let mut stops = Vec::new();
        for _ in 0..40 {
            let s = e.continue_all();
            let end = s.is_terminal();
            stops.push(s);
            if end {
                break;
            }
        }
        stops
    };
    let options = LaunchOptions {
        seed: 7,
        ..Default::default()
    };
    let mut a = engine_with(WRITERS, options);
    let mut b = engine_with(WRITERS, options);
    let (sa, sb) = (session(&mut a), session(&mut b));
    assert_eq!(sa, sb);
    assert_eq!(sa.last().unwrap().reason, StopReason::Finished);
    assert!(sa.len() > 4);
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn loaders_never_panic(text in prop_oneof![texty(), bytes_text(), "\\PC*"]) {
        let _ = Session::from_ron(&text, "s.ron");
        let _ = Program::from_object(&text);
        let _ = Script::parse(&text, "s.wdb");
    }
}

#[test]
fn the_command_log_is_bounded() {
    use wavedbg_emulator::debug::MAX_LOG;
    let mut e = bounded_engine(COND);
    for _ in 0..MAX_LOG + 5 {
        run_line(&mut e, "p 1").expect("prints");
    }
    assert_eq!(e.log().len(), MAX_LOG);
    assert!(e.log_truncated());
    let dir = std::env::temp_dir().join(format!("wavedbg-log-bound-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("s.ron");
    let out = run_line(&mut e, &format!("save {}", file.display())).expect("saves");
    assert!(
        out.text.contains("holds only the first 100000 commands"),
        "{}",
        out.text
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A folder of its own under the temporary directory, with a copy of a kernel as `k.s`.
fn kernel_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wavedbg-files-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("k.s"), wavedbg_emulator::demo::SOURCE).expect("k.s");
    dir
}

#[test]
fn sessions_are_read_under_their_limit() {
    let err = Session::load(std::path::Path::new("/dev/zero")).expect_err("endless");
    assert_eq!(
        err.to_string(),
        "/dev/zero: larger than the 16 MiB limit for sessions"
    );
    let err = wavedbg_emulator::debug::load_program(std::path::Path::new("/dev/zero"))
        .expect_err("endless");
    assert_eq!(
        err.to_string(),
        "/dev/zero: larger than the 64 MiB limit for kernel sources"
    );
}

#[test]
fn save_never_overwrites_the_kernel_and_the_recorder_refuses_it() {
    let dir = kernel_dir("save");
    let kernel = dir.join("k.s");
    let mut e = Engine::open(
        wavedbg_emulator::debug::KernelSource::File(kernel.clone()),
        LaunchOptions::default(),
    )
    .expect("open");
    let before = std::fs::read(&kernel).expect("k.s");
    let err = run_line(&mut e, &format!("save {}", kernel.display())).expect_err("refused");
    assert!(err.to_string().contains("it is the kernel"), "{err}");
    assert_eq!(std::fs::read(&kernel).expect("k.s"), before);
    let err = wavedbg_emulator::debug::session::Recorder::create(&kernel, &e).expect_err("refused");
    assert!(err.to_string().contains("it is the kernel"), "{err}");
    assert_eq!(std::fs::read(&kernel).expect("k.s"), before);
    // A session beside it is written, and replaced keeping its mode.
    use std::os::unix::fs::PermissionsExt;
    let s = dir.join("s.ron");
    run_line(&mut e, &format!("save {}", s.display())).expect("save");
    std::fs::set_permissions(&s, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    run_line(&mut e, &format!("save {}", s.display())).expect("save");
    let mode = std::fs::metadata(&s).expect("s.ron").permissions().mode();
    assert_eq!(mode & 0o777, 0o640);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The session and script readers are linear in their input: megabyte tokens, strings and
/// lines are read or refused at once (issue 30: every parser linear, RON included).
#[test]
fn session_and_script_readers_take_megabyte_tokens_and_lines() {
    let mega = 4 << 20;
    let token = "x".repeat(mega);
    let session = Session::capture(&one_wave_loop());
    let ron = session.to_ron().expect("serialises");
    let long_kernel = ron.replacen("kernel: \"", &format!("kernel: \"{token}"), 1);
    let started = Instant::now();
    let read = Session::from_ron(&long_kernel, "s.ron").expect("a long string is a string");
    assert_eq!(read.kernel.len(), mega + session.kernel.len());
    for text in [
        token.clone(),
        format!("({token})"),
        format!("(kernel: {token})"),
        ron.replacen("kernel: \"", &format!("kernel: {token}\""), 1),
    ] {
        let e = Session::from_ron(&text, "s.ron").expect_err("not a session");
        assert!(
            e.to_string().len() < 1000,
            "{} bytes of error",
            e.to_string().len()
        );
    }
    for text in [
        token.clone(),
        format!("({token})"),
        format!("(format_version: {token})"),
    ] {
        let e = Program::from_object(&text).expect_err("not an object");
        assert!(
            e.to_string().len() < 1000,
            "{} bytes of error",
            e.to_string().len()
        );
    }
    let script = format!(
        "#! kernel k.s\nprint {token}\n{}",
        "print 1\n".repeat(200_000)
    );
    let s = Script::parse(&script, "s.wdb").expect("a script");
    assert_eq!(s.commands.len(), 200_001);
    let e = Script::parse(&format!("#! {token}\n"), "s.wdb").expect_err("no such header");
    assert!(
        e.to_string().len() < 1000,
        "{} bytes of error",
        e.to_string().len()
    );
    // Generous: linear takes well under a second; quadratic would take minutes.
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_session_keeps_how_the_panes_show_values() {
    use wavedbg_emulator::debug::panes::{MemoryUnit, NumberFormat};
    let mut e = one_wave_loop();
    for line in [
        "set format lanes f32",
        "set format registers signed",
        "set memory-unit words",
    ] {
        run_line(&mut e, line).unwrap_or_else(|err| panic!("`{line}`: {err}"));
    }
    assert!(run_line(&mut e, "set format lanes octal").is_err());
    assert!(run_line(&mut e, "set memory-unit pages").is_err());
    let text = Session::capture(&e).to_ron().expect("ron");
    let read = Session::from_ron(&text, "s.ron").expect("reads back");
    let mut fresh = one_wave_loop();
    read.apply(&mut fresh, "s.ron").expect("applies");
    let p = fresh.panes();
    assert_eq!(p.lanes, NumberFormat::F32);
    assert_eq!(p.registers, NumberFormat::Signed);
    assert_eq!(p.memory, NumberFormat::Hex);
    assert_eq!(p.memory_unit, MemoryUnit::Words);
    // A session saved before the settings existed opens with the defaults.
    let without: String = {
        let start = text.find("    panes:").expect("panes field");
        let end = text[start..]
            .find("\n    log:")
            .map_or(text.len(), |i| start + i);
        format!("{}{}", &text[..start], &text[end + 1..])
    };
    assert!(!without.contains("panes:"), "{without}");
    let read = Session::from_ron(&without, "s.ron").expect("an older session reads");
    assert_eq!(read.panes, Default::default());
}

#[test]
fn a_session_keeps_the_split_sizes() {
    use wavedbg_emulator::debug::panes::SplitTarget;
    let mut e = one_wave_loop();
    for line in [
        "set split lanes 60",
        "set split left 30",
        "set split left default",
    ] {
        run_line(&mut e, line).unwrap_or_else(|err| panic!("`{line}`: {err}"));
    }
    for bad in [
        "set split lanes 95",
        "set split lanes",
        "set split top 40",
        "set split lanes 4x",
    ] {
        assert!(run_line(&mut e, bad).is_err(), "{bad}");
    }
    let text = Session::capture(&e).to_ron().expect("ron");
    let read = Session::from_ron(&text, "s.ron").expect("reads back");
    let mut fresh = one_wave_loop();
    read.apply(&mut fresh, "s.ron").expect("applies");
    let s = fresh.panes().splits;
    assert_eq!(s.get(SplitTarget::Lanes), Some(60));
    assert_eq!(s.get(SplitTarget::Left), None);
    assert_eq!(s.get(SplitTarget::Console), None);
}

/// A session's selection names a wave of the launch and a lane of a wave: one that does
/// not (a hand-edited file, another launch's) refuses the session whole, naming the field
/// and the valid range; the wave selected before stays, and nothing else was applied (a
/// wave used to fall back to wave 0 silently while a lane was refused).
#[test]
fn a_selection_outside_the_launch_refuses_the_session_whole() {
    let mut e = engine_with(
        LOOP,
        LaunchOptions {
            grid: Some(4),
            workgroup_lanes: Some(32),
            resident_workgroups: 2,
            ..Default::default()
        },
    );
    run_line(&mut e, "break loop").expect("break");
    run_line(&mut e, "wave 1").expect("wave 1");
    let text = Session::capture(&e).to_ron().expect("ron");
    assert!(text.contains("selected_wave: 1,"), "{text}");
    for (from, to, what) in [
        (
            "selected_wave: 1,",
            "selected_wave: 99,",
            "s.ron: selected_wave: wave 99 is not in the launch (0-3)",
        ),
        (
            "selected_lane: 0,",
            "selected_lane: 40,",
            "s.ron: selected_lane: lane 40 out of range (0-31)",
        ),
    ] {
        let bad = Session::from_ron(&text.replace(from, to), "s.ron").expect("reads");
        let mut fresh = one_wave_loop();
        run_line(&mut fresh, "break store").expect("break");
        let before = run(&mut fresh, "info breakpoints");
        let error = bad.apply(&mut fresh, "s.ron").expect_err(to).to_string();
        assert_eq!(error, what);
        assert_eq!(run(&mut fresh, "info breakpoints"), before, "{to}");
    }
    // A wave of the launch not resident at its start (wave 3 with two of four workgroups
    // resident) selects the first resident one.
    let later = Session::from_ron(
        &text.replace("selected_wave: 1,", "selected_wave: 3,"),
        "s.ron",
    )
    .expect("reads");
    let mut fresh = one_wave_loop();
    later.apply(&mut fresh, "s.ron").expect("applies");
    assert_eq!(fresh.machine().waves[fresh.selected_wave].id, 0);
}
