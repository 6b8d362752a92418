//! The TUI's state and input handling, without a terminal: keys become engine commands,
//! runs go to the worker and come back, interrupts land quickly.

mod common;

use std::time::{Duration, Instant};
use wavedbg_emulator::debug::driver::run_line;

use common::*;
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use wavedbg_emulator::debug::StopReason;
use wavedbg_tui::app::{App, CodeLayout, LineKind, Pane, SourceMode};
use wavedbg_tui::ui::DrawState;
use wavedbg_tui::TuiOptions;

#[test]
fn s_steps_the_selected_wave_and_c_continues_to_a_breakpoint_set_with_b() {
    let mut app = demo();
    let pc0 = app.selected_pc();
    keys(&mut app, "s");
    assert_ne!(app.selected_pc(), pc0);
    assert_eq!(app.engine.machine().stats.wave_instructions, 1);
    // Put the cursor on `next_word` and toggle a breakpoint there.
    let addr = app.engine.machine().program().labels["next_word"];
    app.code.cursor = app.code.index_of(addr).expect("a line at the label");
    press(&mut app, KeyCode::F(9));
    assert_eq!(app.engine.breakpoints().len(), 1);
    assert_eq!(app.engine.breakpoints()[0].addr(), addr);
    keys(&mut app, "c");
    let stop = app.engine.last_stop().expect("stopped");
    assert!(
        matches!(stop.reason, StopReason::Breakpoint { id: 1, .. }),
        "{stop:?}"
    );
    assert_eq!(app.selected_pc(), Some(addr));
    assert!(app.status.0.starts_with("Breakpoint 1"), "{}", app.status.0);
    // The cursor follows the PC; b again removes the breakpoint.
    assert_eq!(
        app.code.cursor,
        app.code.index_of(addr).unwrap_or(usize::MAX)
    );
    keys(&mut app, "b");
    assert!(app.engine.breakpoints().is_empty());
}

#[test]
fn step_all_advances_every_ready_wave() {
    let mut app = demo();
    keys(&mut app, "S");
    let m = app.engine.machine();
    assert!(m.waves.iter().all(|w| w.pc == 4), "every wave stepped once");
    assert!(app.engine.scheduler_locking, "the setting is restored");
}

#[test]
fn w_and_l_select_waves_and_lanes() {
    let mut app = demo();
    keys(&mut app, "w");
    assert_eq!(app.engine.selected_wave, 1);
    keys(&mut app, "WW");
    assert_eq!(
        app.engine.selected_wave,
        app.engine.machine().waves.len() - 1
    );
    keys(&mut app, "l");
    assert_eq!(app.engine.selected_lane, 1);
    keys(&mut app, "LL");
    assert_eq!(app.engine.selected_lane, 31);
}

#[test]
fn tab_moves_focus_and_arrows_move_in_the_focused_pane() {
    let mut app = demo();
    assert_eq!(app.focus, Pane::Code);
    press(&mut app, KeyCode::Down);
    assert_eq!(app.code.cursor, 1);
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Waves);
    press(&mut app, KeyCode::Char('j'));
    assert_eq!(app.engine.selected_wave, 1);
    press(&mut app, KeyCode::BackTab);
    press(&mut app, KeyCode::BackTab);
    // The source comes before the code (it is above it), the console last.
    assert_eq!(app.focus, Pane::Source);
    press(&mut app, KeyCode::BackTab);
    assert_eq!(app.focus, Pane::Console);
    keys(&mut app, "3");
    assert_eq!(app.focus, Pane::Lanes);
    press(&mut app, KeyCode::Down);
    assert_eq!(app.engine.selected_lane, 1);
    press(&mut app, KeyCode::Right);
    assert_eq!(app.lanes.offset, 1);
}

#[test]
fn the_command_line_runs_commands_with_history_and_completion() {
    let dir = std::env::temp_dir().join(format!("wavedbg-tui-app-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let history = dir.join("history");
    std::fs::write(&history, "#V2\nprint u6\n").expect("writes the history");
    let options = TuiOptions {
        record: Some(dir.join("rec.wdbg")),
        history: history.clone(),
    };
    let mut app = App::new(common::demo().engine, &options).expect("starts");
    keys(&mut app, ":");
    assert!(app.editor.is_some());
    keys(&mut app, "adv");
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.editor.as_ref().map(|e| e.text()), Some("advance "));
    keys(&mut app, "next_w");
    press(&mut app, KeyCode::Tab);
    assert_eq!(
        app.editor.as_ref().map(|e| e.text()),
        Some("advance next_word ")
    );
    press(&mut app, KeyCode::Enter);
    assert!(app.editor.is_none());
    let addr = app.engine.machine().program().labels["next_word"];
    assert_eq!(app.selected_pc(), Some(addr));
    // History: Up recalls the last line, then the one from the file.
    keys(&mut app, ":");
    press(&mut app, KeyCode::Up);
    assert_eq!(
        app.editor.as_ref().map(|e| e.text()),
        Some("advance next_word")
    );
    press(&mut app, KeyCode::Up);
    assert_eq!(app.editor.as_ref().map(|e| e.text()), Some("print u6"));
    press(&mut app, KeyCode::Esc);
    assert!(app.editor.is_none());
    let saved = std::fs::read_to_string(&history).unwrap_or_default();
    assert_eq!(saved, "#V2\nprint u6\nadvance next_word\n");
    // Keys that act on the engine are recorded as commands.
    keys(&mut app, "s");
    let rec = std::fs::read_to_string(dir.join("rec.wdbg")).unwrap_or_default();
    assert!(rec.contains("\nadvance next_word\nstepi\n"), "{rec}");
    // An unknown command is an error on the message line.
    keys(&mut app, ":bogus");
    press(&mut app, KeyCode::Enter);
    assert!(app
        .message
        .as_ref()
        .is_some_and(|m| m.error && m.text.contains("unknown command")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_long_continue_keeps_the_ui_live_reports_progress_and_stops_within_100ms() {
    let mut app = App::new(engine_of(SPIN), &TuiOptions::default()).expect("starts");
    app.on_key(KeyEvent::new(KeyCode::F(5), KeyModifiers::NONE));
    assert!(app.is_running());
    // The UI thread is free: progress shows up while the run goes on.
    let start = Instant::now();
    let mut seen = 0;
    while start.elapsed() < Duration::from_secs(5) {
        app.tick().expect("alive");
        seen = app.progress().map_or(0, |p| p.instructions);
        if seen > 100_000 {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(seen > 100_000, "progress reported: {seen}");
    assert_eq!(app.progress().map(|p| p.waves_remaining), Some(1));
    // Navigation works while running; q asks first.
    app.on_key(KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE));
    assert_eq!(app.focus, Pane::Waves);
    app.on_key(KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE));
    assert!(app.confirm_quit && !app.quit);
    app.on_key(KeyEvent::new(KeyCode::Char('n'), KeyModifiers::NONE));
    assert!(!app.confirm_quit && !app.quit);
    // Engine keys wait for the run to stop (Esc drops them).
    app.on_key(KeyEvent::new(KeyCode::Char('s'), KeyModifiers::NONE));
    assert_eq!(app.typeahead.len(), 1);
    // Esc interrupts.
    let t = Instant::now();
    app.on_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    while app.is_running() && t.elapsed() < Duration::from_secs(2) {
        app.tick().expect("alive");
        std::thread::sleep(Duration::from_millis(1));
    }
    let took = t.elapsed();
    assert!(!app.is_running());
    assert!(took < Duration::from_millis(100), "interrupt took {took:?}");
    let stop = app.engine.last_stop().expect("stopped");
    assert_eq!(stop.reason, StopReason::Interrupted);
    assert!(app.status.0.starts_with("Interrupted"), "{}", app.status.0);
    // The interrupted continue is logged as the commands that stop where it stopped, so
    // a saved session replays to this point (docs/sessions.md).
    assert_interrupted_run_logged(app.engine.log());
}

/// An interrupted run's log: `goto N` and the wave it stopped with.
fn assert_interrupted_run_logged(log: &[String]) {
    assert_eq!(log.len(), 2, "{log:?}");
    assert!(log[0].starts_with("goto "), "{log:?}");
    assert!(log[1].starts_with("wave "), "{log:?}");
}

#[test]
fn ctrl_c_interrupts_and_q_during_a_run_quits_after_yes() {
    let mut app = App::new(engine_of(SPIN), &TuiOptions::default()).expect("starts");
    app.submit(&["continue"]);
    std::thread::sleep(Duration::from_millis(20));
    app.on_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    app.wait_idle(Duration::from_secs(2)).expect("alive");
    assert!(!app.is_running());
    app.submit(&["continue"]);
    app.on_key(KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE));
    app.on_key(KeyEvent::new(KeyCode::Char('y'), KeyModifiers::NONE));
    assert!(app.quit);
    app.shutdown();
    assert!(!app.is_running());
}

/// `interrupt` on the command line stops a run, as Esc does (docs: "stop a run in
/// progress"); any other command is still refused while it runs.
#[test]
fn the_interrupt_command_stops_a_run() {
    let mut app = App::new(engine_of(SPIN), &TuiOptions::default()).expect("starts");
    app.submit(&["continue"]);
    assert!(app.is_running());
    app.submit(&["stepi"]);
    assert!(
        app.message.as_ref().is_some_and(|m| m.error),
        "{:?}",
        app.message
    );
    assert!(app.is_running());
    // Typed while the run goes on (the helpers' `keys` would wait for it to end).
    for c in ":interrupt".chars() {
        app.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    }
    app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    app.wait_idle(Duration::from_secs(2)).expect("alive");
    assert!(!app.is_running());
    let stop = app.engine.last_stop().expect("stopped");
    assert_eq!(stop.reason, StopReason::Interrupted);
    assert_interrupted_run_logged(app.engine.log());
}

/// The time the process spent suspended (Ctrl-Z) is not the run's: the status line's
/// elapsed time leaves it out.
#[test]
fn a_runs_elapsed_time_leaves_out_a_suspension() {
    let mut app = App::new(engine_of(SPIN), &TuiOptions::default()).expect("starts");
    app.submit(&["continue"]);
    let started = app.job.as_ref().map(|j| j.started).expect("running");
    app.resumed_after(Duration::from_secs(3600));
    let now = app.job.as_ref().map(|j| j.started).expect("running");
    assert_eq!(now.duration_since(started), Duration::from_secs(3600));
    app.on_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    app.wait_idle(Duration::from_secs(5)).expect("alive");
    assert!(!app.is_running());
}

#[test]
fn a_continue_on_the_worker_ends_where_a_direct_one_does() {
    let mut app = demo();
    run(&mut app, &["break merged", "continue"]);
    let mut plain = demo_engine();
    run_line(&mut plain, "break merged").expect("sets");
    let stop = run_line(&mut plain, "continue").expect("runs").stop;
    assert_eq!(app.engine.last_stop(), stop.as_ref());
    assert_eq!(app.engine.selected_wave, plain.selected_wave);
    // Change highlighting covers the whole run: the previous state is the launch.
    assert_eq!(app.engine.previous().stats.wave_instructions, 0);
}

fn demo_engine() -> wavedbg_emulator::debug::Engine {
    wavedbg_tui::app::demo_engine(None).expect("demo")
}

#[test]
fn mouse_clicks_select_panes_waves_and_lanes() {
    let mut app = demo();
    let buf = draw(&mut app, 120, 40);
    // Click on wave 3's row in the waves pane.
    let (x, y) = find(&buf, "   3   0  ready").expect("wave 3 is listed");
    app.on_mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: x + 2,
        row: y,
        modifiers: KeyModifiers::NONE,
    });
    app.wait_idle(Duration::from_secs(2)).expect("alive");
    assert_eq!(app.focus, Pane::Waves);
    assert_eq!(app.engine.selected_wave, 3);
    // Click on lane 17's row of the lane grid.
    let buf = draw(&mut app, 120, 40);
    let (x, y) = find(&buf, " 17  ").expect("lane 17 is shown");
    app.on_mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: x + 1,
        row: y,
        modifiers: KeyModifiers::NONE,
    });
    app.wait_idle(Duration::from_secs(2)).expect("alive");
    assert_eq!(app.focus, Pane::Lanes);
    assert_eq!(app.engine.selected_lane, 17);
}

#[test]
fn memory_keys_switch_spaces_and_t_toggles_a_watchpoint() {
    let mut app = demo();
    let _ = draw(&mut app, 120, 40);
    keys(&mut app, "5");
    assert_eq!(app.focus, Pane::Memory);
    keys(&mut app, "n");
    let out = app.engine.machine().global.by_name("out").map(|a| a.base);
    assert_eq!(Some(app.memory.addr()), out);
    keys(&mut app, "t");
    assert_eq!(app.engine.watchpoints().len(), 1);
    assert_eq!(Some(app.engine.watchpoints()[0].addr), out);
    keys(&mut app, "c");
    let stop = app.engine.last_stop().expect("stopped");
    assert!(matches!(stop.reason, StopReason::Watchpoint(_)), "{stop:?}");
    keys(&mut app, "t");
    assert!(app.engine.watchpoints().is_empty());
    keys(&mut app, "m");
    assert_eq!(app.memory.space, wavedbg_emulator::memory::Space::Shared);
    // TUI commands: lanes and mem.
    keys(&mut app, ":lanes v9 v1-v2");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.lanes.regs, [9, 1, 2]);
    keys(&mut app, ":mem global out");
    press(&mut app, KeyCode::Enter);
    assert_eq!(Some(app.memory.addr()), out);
}

#[test]
fn help_opens_with_question_mark_and_any_key_closes_it() {
    let mut app = demo();
    keys(&mut app, "?");
    assert!(app.help.open);
    press(&mut app, KeyCode::Esc);
    assert!(!app.help.open);
    keys(&mut app, "q");
    assert!(app.quit);
}

/// The command line's quit words go through the engine's driver: each quits, and a line
/// that only starts with one is a command like any other (an error here).
#[test]
fn quit_words_on_the_command_line_quit() {
    for word in ["quit", "q", "exit"] {
        let mut app = demo();
        keys(&mut app, &format!(":{word}"));
        press(&mut app, KeyCode::Enter);
        assert!(app.quit, "{word}");
    }
    let mut app = demo();
    keys(&mut app, ":quitx");
    press(&mut app, KeyCode::Enter);
    assert!(!app.quit);
    assert!(app.message.as_ref().is_some_and(|m| m.error));
}

#[test]
fn the_lane_grid_shows_the_kernels_registers_and_follows_changes() {
    let mut app = demo();
    assert_eq!(
        app.lanes.regs,
        (0..10).collect::<Vec<_>>(),
        "v0-v9 appear in the demo"
    );
    let _ = draw(&mut app, 120, 40);
    run(&mut app, &["stepi 7"]);
    assert_eq!(app.lanes.offset, 0, "v0-v2 changed and are shown");
    // `vmovi v7, 1` changes only v7: the grid scrolls to it.
    run(&mut app, &["stepi"]);
    assert_eq!(app.lanes.shown(3).first(), Some(&7));
}

#[test]
fn quick_steps_run_at_once_so_repeated_keys_all_count() {
    let mut app = demo();
    for _ in 0..7 {
        app.on_key(KeyEvent::new(KeyCode::Char('s'), KeyModifiers::NONE));
    }
    assert!(!app.is_running());
    assert_eq!(app.engine.machine().stats.wave_instructions, 7);
    // Change tracking compares with the state before the last step.
    assert_eq!(app.baseline.stats.wave_instructions, 6);
}

#[test]
fn the_lane_grid_finds_registers_named_only_through_tuples() {
    // v4 and v5 appear only as the 64-bit pair `v[4:5]` (no `vN` in the disassembly).
    let kernel = ".kernel pair\n.workgroup 32\n.grid 1\n    ld.global.b64 v[4:5], v[4:5], 0\n    wait.vm 0\n    end\n";
    let app = App::new(engine_of(kernel), &TuiOptions::default()).expect("starts");
    assert_eq!(app.lanes.regs, [4, 5]);
}

#[test]
fn step_keys_are_one_recorded_command_each() {
    let dir = std::env::temp_dir().join(format!("wavedbg-tui-stepall-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let options = TuiOptions {
        record: Some(dir.join("rec.wdbg")),
        history: Default::default(),
    };
    let mut app = App::new(common::demo().engine, &options).expect("starts");
    keys(&mut app, "Ss");
    let rec = std::fs::read_to_string(dir.join("rec.wdbg")).unwrap_or_default();
    assert!(rec.ends_with("\nstepi all\nstepi\n"), "{rec}");
    assert!(!rec.contains("scheduler-locking"), "{rec}");
    // With scheduler-locking off, `s` still steps the selected wave alone, in one command
    // that leaves the setting as the user set it.
    app.engine.scheduler_locking = false;
    let pcs: Vec<u64> = app.engine.machine().waves.iter().map(|w| w.pc).collect();
    keys(&mut app, "s");
    let after: Vec<u64> = app.engine.machine().waves.iter().map(|w| w.pc).collect();
    let moved = pcs.iter().zip(&after).filter(|(a, b)| a != b).count();
    assert_eq!(moved, 1, "one wave stepped: {pcs:?} -> {after:?}");
    assert!(!app.engine.scheduler_locking);
    let rec = std::fs::read_to_string(dir.join("rec.wdbg")).unwrap_or_default();
    assert!(rec.ends_with("\nstepi alone\n"), "{rec}");
    assert!(!rec.contains("scheduler-locking"), "{rec}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two waves of one workgroup: wave 1 stores a word wave 0 then loads, no barrier.
const RACE: &str = include_str!("../../tests/kernels/race.s");

#[test]
fn a_sanitizer_finding_stops_the_run_and_marks_both_instructions_in_the_code_pane() {
    let mut app = App::new(engine_of(RACE), &TuiOptions::default()).expect("the app starts");
    run(&mut app, &["set check races on", "continue"]);
    let stop = app.engine.last_stop().expect("stopped");
    let StopReason::Finding(found) = &stop.reason else {
        panic!("{:?}", stop.reason);
    };
    assert_eq!(found.len(), 1);
    // Round-robin runs wave 0's load first; wave 1's store races with it.
    assert_eq!(stop.wave_id, Some(1));
    for size in [(80, 24), (120, 40), (200, 60)] {
        let screen = text(&draw(&mut app, size.0, size.1));
        // The `!` column marks both sides at every size; the side's name follows where
        // the pane is wide enough.
        assert!(
            screen.contains("! 0018  st.shared.b32 v2, v1, 0"),
            "{size:?}\n{screen}"
        );
        assert!(
            screen.contains("! 0028  ld.shared.b32 v3, v1, 0"),
            "{size:?}\n{screen}"
        );
        if size.0 != 120 {
            assert!(
                screen.contains("v1, 0  ! data race: now"),
                "{size:?}\n{screen}"
            );
            assert!(
                screen.contains("v1, 0  ! data race: before"),
                "{size:?}\n{screen}"
            );
        }
        assert!(
            screen.contains("Sanitizer error: data race on shared:0x0"),
            "{size:?}\n{screen}"
        );
    }
    // The next stop clears the marks (the Breakpoints pane lists the finding still).
    run(&mut app, &["continue"]);
    let screen = text(&draw(&mut app, 120, 40));
    assert!(!screen.contains("! data race:"), "{screen}");
    assert!(screen.contains("#1 ! data race  0x0018"), "{screen}");
}

/// Writes `source` to a file of this test's own and opens it (so the engine reads the
/// source back, as when the TUI opens a `.s` file).
fn app_of_file(name: &str, source: &str) -> App {
    let dir = std::env::temp_dir().join(format!("wavedbg-tui-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("{name}.s"));
    std::fs::write(&path, source).expect("writes the kernel");
    let engine = wavedbg_tui::app::demo_engine(Some(&path)).expect("assembles");
    // The engine read the text when it opened the file.
    let _ = std::fs::remove_dir_all(&dir);
    App::new(engine, &TuiOptions::default()).expect("the app starts")
}

#[test]
fn the_source_view_mirrors_the_findings_marks() {
    let mut app = app_of_file("race", RACE);
    assert!(app.source.view.is_ok(), "the source was read");
    run(&mut app, &["set check races on", "continue"]);
    app.focus = Pane::Source;
    for size in [(80, 24), (120, 40), (200, 60)] {
        let screen = text(&draw(&mut app, size.0, size.1));
        // Lines 9 (the store) and 13 (the load) of the file carry the `!` mark, and the
        // side's name where the pane is wide enough.
        assert!(
            screen.contains("  !   9      st.shared.b32 v2, v1, 0"),
            "{size:?}\n{screen}"
        );
        assert!(
            screen.contains("  !  13      ld.shared.b32 v3, v1, 0"),
            "{size:?}\n{screen}"
        );
        if size.0 != 120 {
            assert!(
                screen.contains("v1, 0  ! data race: now"),
                "{size:?}\n{screen}"
            );
            assert!(
                screen.contains("v1, 0  ! data race: before"),
                "{size:?}\n{screen}"
            );
        }
    }
    // The code pane keeps its marks too.
    app.focus = Pane::Code;
    let screen = text(&draw(&mut app, 200, 60));
    assert!(
        screen.contains("! 0018  st.shared.b32 v2, v1, 0"),
        "{screen}"
    );
}

#[test]
fn v_cycles_the_code_views_and_8_shows_the_source() {
    let mut app = demo();
    assert_eq!(app.layout, CodeLayout::Split, "the demo has its source");
    keys(&mut app, "v");
    assert_eq!(app.layout, CodeLayout::Src);
    assert_eq!(
        app.focus,
        Pane::Source,
        "the code view went, so did its focus"
    );
    keys(&mut app, "v");
    assert_eq!(app.layout, CodeLayout::Asm);
    assert_eq!(app.focus, Pane::Code);
    // Tab skips the pane that is not shown; 8 brings the source back.
    for _ in 0..8 {
        press(&mut app, KeyCode::Tab);
        assert_ne!(app.focus, Pane::Source);
    }
    keys(&mut app, "8");
    assert_eq!(app.layout, CodeLayout::Split);
    assert_eq!(app.focus, Pane::Source);
}

#[test]
fn the_source_cursor_follows_the_code_and_sets_breakpoints_on_lines() {
    let mut app = demo();
    let _ = draw(&mut app, 120, 40);
    // The PC's line: line 30 (`uwgid u4`), index 29.
    assert_eq!(app.source.cursor, 29);
    keys(&mut app, "8");
    // Down to the blank line 39: no instruction there.
    for _ in 0..9 {
        press(&mut app, KeyCode::Down);
    }
    assert_eq!(app.source.cursor, 38);
    keys(&mut app, "b");
    assert!(app
        .message
        .as_ref()
        .is_some_and(|m| m.error && m.text.contains("Line 39")));
    assert!(app.engine.breakpoints().is_empty());
    // Line 42 (`st.shared.b32 v8, v2, 0`): the breakpoint goes on its instruction, and
    // the code cursor follows.
    for _ in 0..3 {
        press(&mut app, KeyCode::Down);
    }
    let addr = app.source.line_addr(41).expect("line 42 has code");
    assert_eq!(app.code.lines[app.code.cursor].addr, addr);
    keys(&mut app, "b");
    assert_eq!(app.engine.breakpoints().len(), 1);
    assert_eq!(app.engine.breakpoints()[0].addr(), addr);
    // `a` runs to the line; `b` again removes the breakpoint.
    keys(&mut app, "a");
    assert_eq!(app.selected_pc(), Some(addr));
    keys(&mut app, "b");
    assert!(app.engine.breakpoints().is_empty());
    // Moving in the code moves the source cursor.
    keys(&mut app, "1");
    press(&mut app, KeyCode::Down);
    let line = app
        .engine
        .machine()
        .program()
        .line_at(app.code.lines[app.code.cursor].addr);
    assert_eq!(Some(app.source.cursor as u32 + 1), line);
}

#[test]
fn z_maximises_any_pane_and_o_the_console() {
    let mut app = demo();
    for p in Pane::ALL {
        app.focus = p;
        keys(&mut app, "z");
        assert!(app.zoom);
        let hits = {
            let _ = draw(&mut app, 120, 40);
            app.hits.clone()
        };
        assert_eq!(hits.shown, [p], "only the maximised pane shows");
        keys(&mut app, "z");
        assert!(!app.zoom);
    }
    // `o`: the console full screen from any pane, and back to that pane.
    keys(&mut app, "3o");
    assert!(app.zoom);
    assert_eq!(app.focus, Pane::Console);
    keys(&mut app, "o");
    assert!(!app.zoom);
    assert_eq!(app.focus, Pane::Lanes);
    // Esc restores too.
    keys(&mut app, "z");
    press(&mut app, KeyCode::Esc);
    assert!(!app.zoom);
}

/// Past 10,000 lines the oldest go, and the top of the console says so; the rows each
/// line wraps to are kept between frames, and agree with counting them all afresh after
/// lines came and went and after resizes.
#[test]
fn the_console_drops_its_oldest_lines_and_says_so() {
    let mut app = demo();
    keys(&mut app, "7");
    // The event loop's caches, kept across every frame below.
    let mut kept_state = DrawState::default();
    let fresh_total = |app: &mut App, w, h| {
        let _ = draw(app, w, h);
        app.hits.console_rows
    };
    while app.console.dropped == 0 {
        run(&mut app, &["help"]);
        let _ = draw_with(&mut app, &mut kept_state, 120, 40);
    }
    run(&mut app, &["help"]);
    let _ = draw_with(&mut app, &mut kept_state, 120, 40);
    let kept = app.hits.console_rows;
    assert_eq!(kept, fresh_total(&mut app, 120, 40));
    let _ = draw_with(&mut app, &mut kept_state, 100, 30);
    let narrow = app.hits.console_rows;
    assert_eq!(narrow, fresh_total(&mut app, 100, 30));
    let _ = draw_with(&mut app, &mut kept_state, 120, 40);
    assert_eq!(app.hits.console_rows, kept);
    press(&mut app, KeyCode::Home);
    let screen = text(&draw(&mut app, 120, 40));
    let header = format!("({} older lines were dropped;", app.console.dropped);
    assert!(screen.contains(&header), "{screen}");
}

#[test]
fn the_console_scrolls_back_through_its_whole_history() {
    let mut app = demo();
    for _ in 0..40 {
        run(&mut app, &["stepi"]);
    }
    run(&mut app, &["help"]);
    keys(&mut app, "7");
    let _ = draw(&mut app, 120, 40);
    let total = app.hits.console_rows;
    let page = app.hits.rows[Pane::Console.index()] as usize;
    assert!(total > 200, "{total} rows");
    press(&mut app, KeyCode::PageUp);
    assert_eq!(app.console.scroll, page);
    press(&mut app, KeyCode::Home);
    assert_eq!(
        app.console.scroll,
        total - page,
        "the oldest row at the top"
    );
    let screen = text(&draw(&mut app, 120, 40));
    assert!(screen.contains("(wavedbg) stepi"), "{screen}");
    press(&mut app, KeyCode::PageDown);
    assert_eq!(app.console.scroll, total - 2 * page);
    press(&mut app, KeyCode::End);
    assert_eq!(app.console.scroll, 0);
    // The wheel over the console scrolls it, three rows a notch, focused or not.
    keys(&mut app, "1");
    let buf = draw(&mut app, 120, 40);
    let (x, y) = find(&buf, " Console ").expect("the console is shown");
    let wheel = |kind| MouseEvent {
        kind,
        column: x + 2,
        row: y + 2,
        modifiers: KeyModifiers::NONE,
    };
    app.on_mouse(wheel(MouseEventKind::ScrollUp));
    assert_eq!(app.console.scroll, 3);
    app.on_mouse(wheel(MouseEventKind::ScrollDown));
    assert_eq!(app.console.scroll, 0);
    assert_eq!(app.focus, Pane::Code);
}

#[test]
fn ctrl_r_restarts_after_asking() {
    let mut app = demo();
    let ctrl_r = KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL);
    // Nothing has run: nothing to lose, so no question.
    app.on_key(ctrl_r);
    assert!(app.question.is_none());
    assert_eq!(app.status.0, "Restarted: every wave at the start.");
    run(&mut app, &["stepi 5"]);
    app.on_key(ctrl_r);
    assert!(app.question.is_some());
    // The question first, so a narrow screen cuts the reason, not the question.
    let t = text(&draw(&mut app, 80, 24));
    assert!(
        t.contains("Start it from the beginning? (y or n)  The launch"),
        "{t}"
    );
    keys(&mut app, "n");
    assert!(app.question.is_none());
    assert_eq!(
        app.message.as_ref().map(|m| m.text.as_str()),
        Some("Not confirmed.")
    );
    assert_eq!(app.engine.machine().stats.wave_instructions, 5);
    app.on_key(ctrl_r);
    keys(&mut app, "y");
    assert_eq!(app.engine.machine().stats.wave_instructions, 0);
    assert_eq!(app.status.0, "Restarted: every wave at the start.");
    assert_eq!(app.engine.log().last().map(String::as_str), Some("restart"));
    // `r` alone is still a step back.
    run(&mut app, &["stepi 2"]);
    keys(&mut app, "r");
    assert_eq!(app.engine.machine().stats.wave_instructions, 1);
}

/// A `load` that cannot happen (a broken session file) fails at once: no question (there
/// is nothing to confirm), its error on the message line, and the launch as it was, not
/// "Restarted" on the status line.
#[test]
fn a_load_of_a_broken_file_neither_asks_nor_says_restarted() {
    let dir = std::env::temp_dir().join(format!("wavedbg-tui-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let broken = dir.join("trunc.ron");
    std::fs::write(
        &broken,
        "(format_version: 1, kernel: \"k.s\", breakpoints: [(",
    )
    .expect("write");
    let mut app = demo();
    run(&mut app, &["stepi 5"]);
    let status = app.status.0.clone();
    let line = format!(":load {}", broken.display());
    for c in line.chars() {
        app.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    }
    press(&mut app, KeyCode::Enter);
    assert!(
        app.question.is_none(),
        "asked: {:?}",
        app.question.as_ref().map(|q| &q.text)
    );
    assert!(
        app.message
            .as_ref()
            .is_some_and(|m| m.error && m.text.contains("trunc.ron")),
        "{:?}",
        app.message
    );
    assert_eq!(app.status.0, status);
    assert_eq!(app.engine.machine().stats.wave_instructions, 5);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `:run` (and every word of `restart`, and `load`) asks through the same question as
/// Ctrl-R once something has run: `n`, Esc, Ctrl-C and any other key answer no and change
/// nothing; `y` restarts; `set confirm off` turns the question off. Only what ran is
/// recorded.
#[test]
fn the_command_lines_run_asks_as_ctrl_r_does() {
    let dir = std::env::temp_dir().join(format!("wavedbg-tui-run-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let options = TuiOptions {
        record: Some(dir.join("rec.wdbg")),
        history: Default::default(),
    };
    let mut app = App::new(common::demo().engine, &options).expect("starts");
    let count = |app: &App| app.engine.machine().stats.wave_instructions;
    let command = |app: &mut App, line: &str| {
        keys(app, ":");
        keys(app, line);
        press(app, KeyCode::Enter);
    };
    run(&mut app, &["stepi 4"]);
    let no = [
        KeyEvent::new(KeyCode::Char('n'), KeyModifiers::NONE),
        KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE),
        KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL),
        KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE),
        KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE),
    ];
    for (word, key) in ["r", "run", "restart", "r", "run"].into_iter().zip(no) {
        command(&mut app, word);
        let q = app.question.as_ref().expect("asks");
        assert_eq!(
            q.text,
            "The launch restarts and its recorded history goes.\nStart it from the beginning? (y or n) "
        );
        app.on_key(key);
        app.wait_idle(Duration::from_secs(10)).expect("idle");
        assert!(app.question.is_none(), "{key:?}");
        assert!(!app.quit, "q answered the question, it did not quit");
        assert_eq!(count(&app), 4, "{key:?} kept the state");
        assert_eq!(
            app.message.as_ref().map(|m| m.text.as_str()),
            Some("Not confirmed.")
        );
        let tail: Vec<&str> = app.console.lines[app.console.lines.len() - 2..]
            .iter()
            .map(|(l, _)| l.as_str())
            .collect();
        assert_eq!(
            tail,
            [format!("(wavedbg) {word}").as_str(), "Not confirmed."]
        );
    }
    // `load` of a session it can load asks the same way.
    let session = dir.join("elsewhere.ron");
    run(&mut app, &[&format!("save {}", session.display())]);
    command(&mut app, &format!("load {}", session.display()));
    let q = app.question.as_ref().expect("load asks");
    assert!(
        q.text.contains(&format!(
            "restarts with the settings of `{}`",
            session.display()
        )),
        "{}",
        q.text
    );
    keys(&mut app, "n");
    assert_eq!(count(&app), 4);
    // `y` restarts (`restart`: `run`, as gdb's, would run the launch after).
    command(&mut app, "restart");
    keys(&mut app, "y");
    assert!(app.question.is_none());
    assert_eq!(count(&app), 0);
    assert_eq!(app.status.0, "Restarted: every wave at the start.");
    // Nothing ran since: no question.
    command(&mut app, "restart");
    assert!(app.question.is_none());
    // Off: no question however much ran.
    command(&mut app, "set confirm off");
    run(&mut app, &["stepi 3"]);
    command(&mut app, "restart");
    assert!(app.question.is_none());
    assert_eq!(count(&app), 0);
    run(&mut app, &["set confirm on", "stepi 2"]);
    // A batch waits for the answer whole, and runs in order after it.
    app.submit(&["print 1", "restart", "print 2"]);
    assert!(app.question.is_some());
    assert_eq!(count(&app), 2, "nothing of the batch ran yet");
    keys(&mut app, "y");
    let echoed: Vec<&str> = app
        .console
        .lines
        .iter()
        .filter(|(_, k)| *k == LineKind::Command)
        .map(|(l, _)| l.as_str())
        .collect();
    assert!(
        echoed.ends_with(&[
            "(wavedbg) print 1",
            "(wavedbg) restart",
            "(wavedbg) print 2"
        ]),
        "{echoed:?}"
    );
    assert_eq!(count(&app), 0);
    // What was not confirmed is neither logged nor recorded.
    let recorded = std::fs::read_to_string(dir.join("rec.wdbg")).unwrap_or_default();
    let lines: Vec<&str> = recorded.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(
        lines,
        [
            "stepi 4",
            "restart",
            "restart",
            "set confirm off",
            "stepi 3",
            "restart",
            "set confirm on",
            "stepi 2",
            "print 1",
            "restart",
            "print 2"
        ],
        "{recorded}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_watchpoint_stop_selects_the_lane_that_wrote() {
    let dir = std::env::temp_dir().join(format!("wavedbg-tui-watchlane-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let options = TuiOptions {
        record: Some(dir.join("rec.wdbg")),
        history: Default::default(),
    };
    let mut app = App::new(common::demo().engine, &options).expect("starts");
    // Bin 4 of the shared histogram: lane 4 of wave 0 clears it.
    run(&mut app, &["watch shared:0x10 4", "continue"]);
    assert!(matches!(
        app.engine.last_stop().map(|s| &s.reason),
        Some(StopReason::Watchpoint(_))
    ));
    assert_eq!(app.engine.selected_lane, 4);
    assert_eq!(app.stop_lanes().watch, 1 << 4);
    // The engine selects it (as for a breakpoint), so the REPL and a replay of the
    // recording select it too: no command of its own.
    let rec = std::fs::read_to_string(dir.join("rec.wdbg")).unwrap_or_default();
    assert!(rec.ends_with("\ncontinue\n"), "{rec}");
    assert!(!app
        .console
        .lines
        .iter()
        .any(|(l, _)| l == "(wavedbg) lane 4"));
    let mut e = common::demo().engine;
    for line in ["watch shared:0x10 4", "continue"] {
        assert!(run_line(&mut e, line).is_ok(), "{line}");
    }
    assert_eq!(e.selected_lane, 4);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_sparkline_follows_time_travel() {
    let mut app = demo();
    let id = app.engine.machine().waves[0].id;
    for _ in 0..5 {
        keys(&mut app, "s");
    }
    let executed: Vec<u64> = app.activity.of(id).iter().map(|s| s.executed).collect();
    assert_eq!(executed, [0, 1, 2, 3, 4, 5]);
    keys(&mut app, "rr");
    let executed: Vec<u64> = app.activity.of(id).iter().map(|s| s.executed).collect();
    assert_eq!(executed, [0, 1, 2, 3], "the undone steps are gone");
    run(&mut app, &["restart"]);
    keys(&mut app, "y");
    assert_eq!(app.activity.of(id).len(), 1);
}

#[test]
fn the_command_line_shows_completions_while_typing() {
    let mut app = demo();
    keys(&mut app, ":");
    assert_eq!(app.completions(), None, "nothing typed yet");
    keys(&mut app, "con");
    let (start, c) = app.completions().expect("candidates");
    assert_eq!(start, 0);
    assert!(c.contains(&"continue".to_string()) && c.contains(&"condition".to_string()));
    let screen = text(&draw(&mut app, 120, 40));
    assert!(screen.contains("completions (Tab)"), "{screen}");
    assert!(screen.contains("continue"), "{screen}");
    keys(&mut app, "zz");
    let (_, c) = app.completions().expect("an unknown command says so");
    assert!(c.is_empty());
    let screen = text(&draw(&mut app, 120, 40));
    assert!(
        screen.contains("no command starts with `conzz`"),
        "{screen}"
    );
    // An argument with no candidates (a number) shows nothing.
    press(&mut app, KeyCode::Esc);
    keys(&mut app, ":stepi 1");
    assert_eq!(app.completions(), None);
}

#[test]
fn the_record_keeps_what_replays() {
    let dir = std::env::temp_dir().join(format!("wavedbg-tui-replays-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let options = TuiOptions {
        record: Some(dir.join("rec.wdbg")),
        history: Default::default(),
    };
    let mut app = App::new(engine_of(SPIN), &options).expect("starts");
    // A command that fails is left out.
    keys(&mut app, ":bogus");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "s");
    // A continue interrupted by Esc is written as the command that stops there.
    app.on_key(KeyEvent::new(KeyCode::F(5), KeyModifiers::NONE));
    std::thread::sleep(Duration::from_millis(50));
    app.on_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    app.wait_idle(Duration::from_secs(5)).expect("alive");
    let stop = app.engine.last_stop().expect("stopped").clone();
    assert_eq!(stop.reason, StopReason::Interrupted);
    let rec = std::fs::read_to_string(dir.join("rec.wdbg")).unwrap_or_default();
    assert!(!rec.contains("bogus"), "{rec}");
    assert!(
        rec.ends_with(&format!("\nstepi\ngoto {}\nwave 0\n", stop.instructions)),
        "{rec}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn enter_on_an_empty_command_line_repeats_a_step_and_x_goes_on() {
    let mut app = demo();
    keys(&mut app, ":stepi 2");
    press(&mut app, KeyCode::Enter);
    let after_first = app.engine.machine().stats.wave_instructions;
    assert_eq!(after_first, 2);
    keys(&mut app, ":");
    press(&mut app, KeyCode::Enter);
    assert_eq!(
        app.engine.machine().stats.wave_instructions,
        4,
        "stepi 2 again"
    );
    // x goes on from where it ended.
    keys(&mut app, ":x/2xw global:0x100000000");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, ":");
    press(&mut app, KeyCode::Enter);
    let console: Vec<String> = app.console.lines.iter().map(|(l, _)| l.clone()).collect();
    let text = console.join("\n");
    assert!(text.contains("global:0x100000008:"), "{text}");
    // A command that does not repeat leaves Enter doing nothing.
    keys(&mut app, ":info waves");
    press(&mut app, KeyCode::Enter);
    let before = app.engine.machine().stats.wave_instructions;
    keys(&mut app, ":");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.engine.machine().stats.wave_instructions, before);
}

/// An Esc and a key that reach the terminal together arrive as Alt-key: both count.
#[test]
fn an_esc_and_a_key_read_as_alt_key_are_both_handled() {
    let mut app = demo();
    keys(&mut app, "?");
    assert!(app.help.open);
    app.on_key(KeyEvent::new(KeyCode::Char('q'), KeyModifiers::ALT));
    assert!(!app.help.open, "the Esc closed the help");
    assert!(app.quit, "and the q quit");
}

/// On the command line Alt-b and Alt-f move by words (readline's keys); no Alt key closes
/// it or reaches the panes (Alt-b used to close it and set a breakpoint).
#[test]
fn alt_keys_on_the_command_line_edit_it() {
    let mut app = demo();
    let breakpoints = app.engine.breakpoints().len();
    keys(&mut app, ":print v1 v2");
    let alt = |app: &mut wavedbg_tui::App, c: char| {
        app.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT))
    };
    alt(&mut app, 'b');
    alt(&mut app, 'b');
    keys(&mut app, "x");
    alt(&mut app, 'f');
    // An Alt key the line does not bind does nothing (Alt-q does not quit).
    alt(&mut app, 'q');
    keys(&mut app, "y");
    let line = app.editor.as_ref().map(|e| e.text().to_string());
    assert_eq!(line.as_deref(), Some("print xv1y v2"));
    assert_eq!(
        app.engine.breakpoints().len(),
        breakpoints,
        "no breakpoint set"
    );
}

/// Enter on a breakpoint shows its place in the code view the layout shows, with both
/// cursors on it (with the source view alone, it focused the hidden disassembly).
#[test]
fn enter_on_a_breakpoint_goes_to_it_in_the_shown_code_view() {
    let mut app = demo();
    let _ = draw(&mut app, 120, 40);
    // The demo's last label, far from the top of the source.
    let label = *app
        .engine
        .machine()
        .program()
        .labels
        .values()
        .max()
        .expect("the demo has labels");
    keys(&mut app, &format!(":break *{label:#x}"));
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "v");
    assert_eq!(app.layout, CodeLayout::Src);
    app.source.cursor = 0;
    app.focus = Pane::Breakpoints;
    app.breakpoints.cursor = 0;
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Source, "the source view is the one shown");
    assert_eq!(
        app.code.lines.get(app.code.cursor).map(|l| l.addr),
        Some(label)
    );
    let want = app
        .source
        .view
        .as_ref()
        .ok()
        .and_then(|s| s.line_of(app.engine.machine(), label));
    assert_eq!(
        Some(app.source.cursor),
        want,
        "the source cursor is on its line"
    );
    assert_ne!(want, Some(0));
}

/// Issue 25 item 6: `f` cycles the focused pane's number format and `u` the Memory pane's
/// unit, each key one `set format` / `set memory-unit` command (recorded as such); a
/// session saved then loaded shows the panes as they were left.
#[test]
fn f_and_u_change_number_formats_as_recorded_commands_kept_in_sessions() {
    use wavedbg_emulator::debug::panes::{MemoryUnit, NumberFormat};
    let dir = std::env::temp_dir().join(format!("wavedbg-tui-formats-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let options = TuiOptions {
        record: Some(dir.join("rec.wdbg")),
        history: Default::default(),
    };
    let mut app = App::new(demo_engine(), &options).expect("starts");
    let _ = draw(&mut app, 120, 40);
    // Not a format key in the code pane.
    keys(&mut app, "1f");
    assert_eq!(app.engine.panes(), &Default::default());
    keys(&mut app, "3f4ff5fffu");
    let p = *app.engine.panes();
    assert_eq!(p.lanes, NumberFormat::Unsigned);
    assert_eq!(p.registers, NumberFormat::Signed);
    assert_eq!(p.memory, NumberFormat::F32);
    assert_eq!(p.memory_unit, MemoryUnit::Words);
    let rec = std::fs::read_to_string(dir.join("rec.wdbg")).unwrap_or_default();
    assert!(
        rec.contains(
            "set format lanes unsigned\nset format registers unsigned\n\
             set format registers signed\nset format memory unsigned\n\
             set format memory signed\nset format memory f32\nset memory-unit words\n"
        ),
        "{rec}"
    );
    let t = text(&draw(&mut app, 120, 40));
    assert!(t.contains("Lanes [unsigned]"), "{t}");
    assert!(t.contains("Registers [signed]"), "{t}");
    assert!(t.contains("Memory [f32 words]"), "{t}");
    // Round the cycle back to hex.
    keys(&mut app, "3fff");
    assert_eq!(app.engine.panes().lanes, NumberFormat::Hex);
    keys(&mut app, "f");
    // Saved, then loaded by a new TUI.
    let session = dir.join("formats.ron");
    keys(&mut app, &format!(":save {}", session.display()));
    press(&mut app, KeyCode::Enter);
    let mut again = demo();
    keys(&mut again, &format!(":load {}", session.display()));
    press(&mut again, KeyCode::Enter);
    assert_eq!(again.engine.panes(), app.engine.panes());
    let t = text(&draw(&mut again, 120, 40));
    assert!(t.contains("Lanes [unsigned]"), "{t}");
    assert!(t.contains("Memory [f32 words]"), "{t}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The REPL's `p/f v1`, `p/u`, `p/d` and `x/4fw` write the values the panes show: one
/// formatter (`view::format_value`) for both.
#[test]
fn the_repl_and_the_panes_write_the_same_numbers() {
    use wavedbg_emulator::debug::panes::NumberFormat;
    use wavedbg_tui::number;
    let mut app = demo();
    run(&mut app, &["break next_word", "continue"]);
    let base = app.memory.addr();
    let floats: [u32; 4] = [0x3fc0_0000, 0xff7f_ffff, 0x8080_0000, 0xbe99_999a];
    let mut lines = Vec::new();
    for (l, w) in floats.iter().enumerate() {
        lines.push(format!("set v1[{l}] = {w:#x}"));
        lines.push(format!("set global:{:#x} = {w:#x}", base + 4 * l as u64));
    }
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    run(&mut app, &lines);
    app.lanes.regs = vec![1];
    // The REPL's lane values: the tokens after each `[ n]`, without marks.
    let lane_tokens = |out: &str| -> Vec<String> {
        out.lines()
            .skip(1)
            .flat_map(|l| {
                l.split_once(']')
                    .map_or("", |(_, rest)| rest)
                    .split_whitespace()
                    .map(|t| t.trim_matches(['(', ')', '*']).to_string())
                    .filter(|t| !t.is_empty())
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let v1: Vec<u32> = app.engine.machine().waves[app.engine.selected_wave].v[1].to_vec();
    for (letter, f) in [
        ('f', NumberFormat::F32),
        ('u', NumberFormat::Unsigned),
        ('d', NumberFormat::Signed),
    ] {
        let out = run_line(&mut app.engine, &format!("print/{letter} v1"))
            .expect("prints")
            .text;
        let repl = lane_tokens(&out);
        let ours: Vec<String> = v1.iter().map(|v| number::word(*v, f)).collect();
        assert_eq!(repl, ours, "p/{letter} v1:\n{out}");
        // The lane grid in that format shows each of them.
        run(&mut app, &[&format!("set format lanes {}", f.word())]);
        keys(&mut app, "3z");
        let t = text(&draw(&mut app, 120, 40));
        for v in &ours {
            assert!(
                t.contains(&format!(" {v:>w$}", w = number::width(f))),
                "{v}:\n{t}"
            );
        }
        keys(&mut app, "z");
    }
    assert!(
        lane_tokens(
            &run_line(&mut app.engine, "print/f v1")
                .expect("prints")
                .text
        )[0] == "1.5"
    );
    // x/4fw and the Memory pane in f32 words.
    let out = run_line(&mut app.engine, &format!("x/4fw global:{base:#x}"))
        .expect("examines")
        .text;
    let repl: Vec<&str> = out
        .split_once(": ")
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    let ours: Vec<String> = floats
        .iter()
        .map(|w| number::word(*w, NumberFormat::F32))
        .collect();
    assert_eq!(repl, ours, "{out}");
    run(&mut app, &["set format memory f32"]);
    keys(&mut app, "5");
    let t = text(&draw(&mut app, 120, 40));
    for v in &ours {
        assert!(t.contains(v.as_str()), "{v}:\n{t}");
    }
}

/// Issue 25 item 7: the Watch pane shows while there are displays (or focused); `a` and
/// Enter open the command line with `display `, `d` and Delete undisplay the selected row;
/// values per lane for a vector expression, one for a scalar, marked where they changed.
#[test]
fn the_watch_pane_adds_removes_and_marks_displays() {
    use wavedbg_tui::app::WatchValue;
    let mut app = demo();
    let _ = draw(&mut app, 120, 40);
    assert!(
        !app.hits.shown.contains(&Pane::Watch),
        "no displays: hidden"
    );
    keys(&mut app, "9");
    assert_eq!(app.focus, Pane::Watch);
    let _ = draw(&mut app, 120, 40);
    assert!(app.hits.shown.contains(&Pane::Watch), "focused: shown");
    keys(&mut app, "a");
    assert_eq!(app.editor.as_ref().map(|e| e.text()), Some("display "));
    keys(&mut app, "v1");
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.editor.as_ref().map(|e| e.text()), Some("display "));
    keys(&mut app, "u6");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, ":display/f v0");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.engine.displays().len(), 3);
    // s steps from the Watch pane too; then five more in one command: v1 and u6 change.
    keys(&mut app, "s");
    assert_eq!(app.engine.machine().stats.wave_instructions, 1);
    keys(&mut app, ":stepi 5");
    press(&mut app, KeyCode::Enter);
    let rows = app.watch_rows();
    assert_eq!(rows.len(), 3);
    match &rows[0].value {
        WatchValue::Lanes { texts, changed, .. } => {
            assert_eq!(texts.len(), 32);
            assert_eq!(texts[1], "0x00000001");
            assert_eq!(*changed, !1, "lanes 1-31 of v1 changed");
        }
        v => panic!("v1 per lane: {v:?}"),
    }
    assert_eq!(
        rows[1].value,
        WatchValue::Scalar {
            text: "256".into(),
            changed: true
        }
    );
    // The console's display output says the same.
    let shown = app.engine.display_text();
    assert!(shown.contains("2: u6 = 256"), "{shown}");
    // A click on a display's row selects it (the pane maximised shows every row); Up,
    // Down move.
    keys(&mut app, "z");
    let _ = draw(&mut app, 120, 40);
    let third = app
        .hits
        .hits
        .iter()
        .find(|h| h.pane == Pane::Watch && h.item == Some(2))
        .map(|h| h.area)
        .expect("the third display is drawn");
    app.on_mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: third.x + 2,
        row: third.y,
        modifiers: KeyModifiers::NONE,
    });
    assert_eq!(app.watch_selected(), Some(2));
    keys(&mut app, "z");
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Up);
    // Remove the second with d, the (now) second with Delete.
    press(&mut app, KeyCode::Down);
    keys(&mut app, "d");
    assert_eq!(app.engine.displays().len(), 2);
    assert_eq!(app.engine.displays()[1].to_string(), "/f v0");
    press(&mut app, KeyCode::Delete);
    assert_eq!(app.engine.displays().len(), 1);
    assert_eq!(app.watch_selected(), Some(0));
    let _ = draw(&mut app, 120, 40);
    assert!(app.hits.shown.contains(&Pane::Watch));
    keys(&mut app, "d");
    assert!(app.engine.displays().is_empty());
    // Unfocused with no displays: hidden again.
    keys(&mut app, "1");
    let _ = draw(&mut app, 120, 40);
    assert!(!app.hits.shown.contains(&Pane::Watch));
}

/// While a run has the engine, a key that needs it (`f`, `u`, the Watch pane's `d`, `r`)
/// waits, with every key after it (so `5` then `f` is memory's `f`), and they are handled
/// in order when the run stops, as gdb's type-ahead; the `--record` script has what ran.
/// Esc interrupts at once and drops what waits.
#[test]
fn keys_typed_during_a_run_wait_for_it_to_stop() {
    use wavedbg_emulator::debug::panes::{FormatTarget, MemoryUnit, NumberFormat};
    let dir = std::env::temp_dir().join(format!("wavedbg-tui-ahead-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let options = TuiOptions {
        record: Some(dir.join("rec.wdbg")),
        history: Default::default(),
    };
    let mut app = App::new(engine_of(SPIN), &options).expect("starts");
    let key =
        |app: &mut App, c: char| app.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    run(&mut app, &["display u1"]);
    let _ = draw(&mut app, 120, 40);
    keys(&mut app, "3");
    key(&mut app, 'c');
    assert!(app.is_running());
    for c in "3f5f5u9d".chars() {
        key(&mut app, c);
    }
    // `3` acts at once (nothing waits yet); the first `f` needs the engine.
    assert_eq!(app.typeahead.len(), 7);
    assert_eq!(app.focus, Pane::Lanes);
    assert_eq!(app.engine.panes(), &Default::default());
    assert!(app
        .message
        .as_ref()
        .is_some_and(|m| !m.error && m.text.contains("7 keys typed ahead")));
    // The run stops (as at a breakpoint): what waited is handled, in order.
    app.interrupt();
    app.wait_idle(Duration::from_secs(5)).expect("alive");
    assert!(app.typeahead.is_empty());
    let panes = app.engine.panes();
    assert_eq!(panes.format(FormatTarget::Lanes), NumberFormat::Unsigned);
    assert_eq!(panes.format(FormatTarget::Memory), NumberFormat::Unsigned);
    assert_eq!(panes.memory_unit, MemoryUnit::Words);
    assert!(app.engine.displays().is_empty());
    // `r` ten times in a burst during a run: ten steps back once it stops.
    keys(&mut app, "3");
    key(&mut app, 'c');
    for _ in 0..10 {
        key(&mut app, 'r');
    }
    app.interrupt();
    app.wait_idle(Duration::from_secs(5)).expect("alive");
    let backs = |log: &[String]| log.iter().filter(|l| *l == "reverse-stepi").count();
    assert_eq!(backs(app.engine.log()), 10, "{:?}", app.engine.log());
    let rec = std::fs::read_to_string(dir.join("rec.wdbg")).unwrap_or_default();
    assert_eq!(
        rec.lines().filter(|l| *l == "reverse-stepi").count(),
        10,
        "{rec}"
    );
    // Esc interrupts at once and drops what waits.
    key(&mut app, 'c');
    key(&mut app, 'r');
    key(&mut app, 'r');
    app.on_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    app.wait_idle(Duration::from_secs(5)).expect("alive");
    assert_eq!(backs(app.engine.log()), 10);
    assert!(app.typeahead.is_empty());
    // A command line entered during a run runs after it (`interrupt` at once).
    key(&mut app, 'c');
    for c in ":print 7".chars() {
        key(&mut app, c);
    }
    app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    assert_eq!(app.typeahead.len(), 1);
    app.interrupt();
    app.wait_idle(Duration::from_secs(5)).expect("alive");
    assert_eq!(app.engine.log().last().map(String::as_str), Some("print 7"));
}

/// The movement keys the help (`?`) and docs/tui.md list for every pane.
const MOVES: [KeyCode; 10] = [
    KeyCode::Up,
    KeyCode::Down,
    KeyCode::Char('k'),
    KeyCode::Char('j'),
    KeyCode::PageUp,
    KeyCode::PageDown,
    KeyCode::Home,
    KeyCode::End,
    KeyCode::Char('g'),
    KeyCode::Char('G'),
];

/// Where a pane is, as one number that grows toward the end of what it shows: the
/// cursor, the selected wave or lane, the scroll (the console's counted from its oldest
/// row), the memory address, the selected display.
fn place(app: &App, pane: Pane) -> i64 {
    match pane {
        Pane::Code => app.code.cursor as i64,
        Pane::Source => app.source.cursor as i64,
        Pane::Waves => app.engine.selected_wave as i64,
        Pane::Lanes => i64::from(app.engine.selected_lane),
        Pane::Registers => app.registers.scroll.min(app.hits.registers_scroll_max) as i64,
        Pane::Memory => app.memory.addr() as i64,
        Pane::Breakpoints => app.breakpoints.cursor as i64,
        Pane::Console => {
            let max = app
                .hits
                .console_rows
                .saturating_sub(app.hits.rows[Pane::Console.index()] as usize);
            max as i64 - app.console.scroll.min(max) as i64
        }
        Pane::Watch => app.watch_selected().map_or(-1, |i| i as i64),
        Pane::Locals => {
            let n = app.engine.locals().len();
            app.locals_selected(n).map_or(-1, |i| i as i64)
        }
    }
}

/// A pane set up in the middle of what it shows at 100x30, with what one step, a page,
/// the first and the last place are (in [`place`]'s units).
fn pane_in_the_middle(pane: Pane) -> (App, i64, i64, i64, i64) {
    // The demo has no variables: saxpy has five live on line 11.
    let mut app = if pane == Pane::Locals {
        let mut app = saxpy();
        run(&mut app, &["break saxpy.cl:11", "continue", "delete"]);
        app
    } else {
        demo()
    };
    let breaks: Vec<String> = app.code.lines[..6]
        .iter()
        .map(|l| format!("break *{:#x}", l.addr))
        .collect();
    run(
        &mut app,
        &breaks.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    for i in 0..200 {
        app.console.push(&format!("line {i}"), LineKind::Output);
    }
    if pane == Pane::Watch {
        // A dozen one-row displays (the pane shows only some of them at 100x30).
        let displays: Vec<String> = (0..12).map(|i| format!("display u{i}")).collect();
        run(
            &mut app,
            &displays.iter().map(String::as_str).collect::<Vec<_>>(),
        );
    }
    let digit = char::from_digit(pane.digit() as u32, 10).expect("a digit");
    press(&mut app, KeyCode::Char(digit));
    let _ = draw(&mut app, 100, 30);
    let rows = app.hits.rows[pane.index()] as i64;
    let (step, page, first, last) = match pane {
        Pane::Code => {
            app.code.cursor = app.code.lines.len() / 2;
            (1, rows, 0, app.code.lines.len() as i64 - 1)
        }
        Pane::Source => {
            app.source.cursor = app.source.len() / 2;
            (1, rows, 0, app.source.len() as i64 - 1)
        }
        Pane::Waves => {
            app.select_wave_index(16);
            app.wait_idle(Duration::from_secs(10)).expect("idle");
            (1, rows, 0, app.engine.machine().waves.len() as i64 - 1)
        }
        Pane::Lanes => {
            run(&mut app, &["lane 16"]);
            (1, 8, 0, 31)
        }
        Pane::Registers => {
            let max = app.hits.registers_scroll_max as i64;
            assert!(max >= 2, "the u registers scroll at 100x30 ({max})");
            app.registers.scroll = 1;
            (1, rows, 0, max)
        }
        Pane::Memory => {
            let bpr = app.hits.mem_bytes_per_row as i64;
            let (lo, hi) = app.mem_region().expect("a buffer");
            app.memory.cursor[0] = ((lo + hi) / 2) & !3;
            (bpr, (rows * bpr), lo as i64, (hi as i64 - 1) & !3)
        }
        Pane::Breakpoints => {
            app.breakpoints.cursor = 3;
            (1, rows, 0, 5)
        }
        Pane::Console => {
            app.console.scroll = 40;
            let max = app.hits.console_rows as i64 - rows;
            (1, rows, 0, max)
        }
        Pane::Watch => {
            let n = app.engine.displays().len() as i64;
            assert_eq!(n, 12, "the displays are kept");
            app.watch.at.cursor = 5;
            (1, rows, 0, n - 1)
        }
        Pane::Locals => {
            let n = app.engine.locals().len() as i64;
            assert_eq!(n, 5, "a, n, i, xi and yi are live");
            // `n`, one line (`i`, per lane, is taller than the pane: the keys scroll it).
            app.locals.at.cursor = 1;
            (1, rows, 0, n - 1)
        }
    };
    let _ = draw(&mut app, 100, 30);
    (app, step, page, first, last)
}

/// Every movement key the help lists does what it says in every pane: ↑ ↓ j k a step
/// (Waves, Lanes, Watch: select), PgUp PgDn a page (Lanes: 8 lanes; Watch: as many
/// displays as it has rows), Home End g G the ends.
#[test]
fn every_movement_key_the_help_lists_works_in_every_pane() {
    for pane in Pane::ALL {
        for key in MOVES {
            let (mut app, step, page, first, last) = pane_in_the_middle(pane);
            let at = place(&app, pane);
            assert!(first < at && at < last, "{pane:?} starts in the middle");
            press(&mut app, key);
            let _ = draw(&mut app, 100, 30);
            let want = match key {
                KeyCode::Up | KeyCode::Char('k') => at - step,
                KeyCode::Down | KeyCode::Char('j') => at + step,
                KeyCode::PageUp => (at - page).max(first),
                KeyCode::PageDown => (at + page).min(last),
                KeyCode::Home | KeyCode::Char('g') => first,
                _ => last,
            };
            let got = place(&app, pane);
            // The source cursor moves with the code cursor, so lines without code can
            // be skipped: the source moves by at least what the key says.
            if pane == Pane::Source && !matches!(key, KeyCode::Home | KeyCode::End) {
                assert!(
                    (got - at).signum() == (want - at).signum(),
                    "{pane:?} {key:?}: {at} -> {got}, want {want}"
                );
            } else {
                assert_eq!(got, want, "{pane:?} {key:?}: from {at}");
            }
            assert!(
                app.message.as_ref().is_none_or(|m| !m.error),
                "{pane:?} {key:?}: {:?}",
                app.message
            );
        }
    }
}

/// `:mem NAME` shows the buffer in global memory whatever space was shown; `SPACE:ADDR`
/// goes to that space.
#[test]
fn mem_goes_to_the_space_of_what_it_names() {
    use wavedbg_emulator::memory::Space;
    let mut app = demo();
    let out = app.engine.machine().global.by_name("out").map(|a| a.base);
    keys(&mut app, "5m");
    assert_eq!(app.memory.space, Space::Shared);
    keys(&mut app, ":mem out");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.memory.space, Space::Global);
    assert_eq!(Some(app.memory.addr()), out);
    keys(&mut app, ":mem shared:0x40");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.memory.space, Space::Shared);
    assert_eq!(app.memory.addr(), 0x40);
    // An expression that starts with a buffer's name is a global address.
    keys(&mut app, ":mem out+16");
    press(&mut app, KeyCode::Enter);
    assert_eq!(
        (app.memory.space, Some(app.memory.addr())),
        (Space::Global, out.map(|o| o + 16))
    );
    // A kernel without shared memory: a buffer name still goes to global memory.
    let source = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scripts/divergent.s"
    ))
    .expect("reads the kernel");
    let mut app = App::new(engine_of(&source), &TuiOptions::default()).expect("starts");
    keys(&mut app, "5m");
    assert_eq!(app.memory.space, Space::Shared);
    keys(&mut app, ":mem steps_out");
    press(&mut app, KeyCode::Enter);
    let steps = app
        .engine
        .machine()
        .global
        .by_name("steps_out")
        .map(|a| a.base);
    assert_eq!(
        (app.memory.space, Some(app.memory.addr())),
        (Space::Global, steps)
    );
    let text = text(&draw(&mut app, 100, 30));
    assert!(text.contains("buffer `steps_out`"), "{text}");
}

/// In tab mode `z`, `o`, `o` gives the maximised pane back; the console's title names the
/// key that restores it.
#[test]
fn the_zoom_survives_the_console_and_its_title_names_the_key() {
    let mut app = demo();
    let _ = draw(&mut app, 80, 24);
    keys(&mut app, "1z");
    assert!(app.zoom);
    assert!(text(&draw(&mut app, 80, 24)).contains("[z restores]"));
    keys(&mut app, "o");
    assert_eq!((app.focus, app.zoom), (Pane::Console, true));
    assert!(text(&draw(&mut app, 80, 24)).contains("[o restores]"));
    keys(&mut app, "o");
    assert_eq!((app.focus, app.zoom), (Pane::Code, true));
    keys(&mut app, "z");
    assert!(!app.zoom);
    // From an unmaximised pane, `o` twice gives it back unmaximised.
    keys(&mut app, "oo");
    assert_eq!((app.focus, app.zoom), (Pane::Code, false));
}

/// `/` in the Source, Code and Console panes: Enter finds the next match from the cursor,
/// wrapping with a message; `n`/`N` repeat; not found says so. Memory keeps its `n`; the
/// command line takes `/` as text.
#[test]
fn slash_searches_and_n_repeats() {
    let mut app = demo();
    let _ = draw(&mut app, 120, 40);
    keys(&mut app, "8");
    assert_eq!(app.focus, Pane::Source);
    let lines = app
        .source
        .view
        .as_ref()
        .map(|s| s.lines.clone())
        .unwrap_or_default();
    let hits: Vec<usize> = (0..lines.len())
        .filter(|i| lines[*i].contains("wait"))
        .collect();
    assert!(hits.len() >= 2, "the demo has waits");
    keys(&mut app, "/wait");
    assert_eq!(app.search.prompt.as_ref().map(|e| e.text()), Some("wait"));
    assert!(text(&draw(&mut app, 120, 40)).contains("/wait"));
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.source.cursor, hits[0]);
    keys(&mut app, "n");
    assert_eq!(app.source.cursor, hits[1]);
    keys(&mut app, "N");
    assert_eq!(app.source.cursor, hits[0]);
    keys(&mut app, "N");
    assert_eq!(app.source.cursor, *hits.last().unwrap_or(&0));
    assert!(app
        .message
        .as_ref()
        .is_some_and(|m| m.text.contains("wrapped to the bottom")));
    // The code view: the same pattern, from its own cursor.
    keys(&mut app, "1");
    app.code.cursor = 0;
    keys(&mut app, "n");
    let at = app.code.cursor;
    assert!(
        app.code.lines[at].text.contains("wait"),
        "{}",
        app.code.lines[at].text
    );
    // Not found.
    keys(&mut app, "/zzznothing");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.code.cursor, at);
    assert!(app
        .message
        .as_ref()
        .is_some_and(|m| m.error && m.text.contains("Not found")));
    // The console: the match shows (the view scrolls to it) and is highlighted.
    keys(&mut app, "7");
    for i in 0..100 {
        app.console.push(&format!("output {i}"), LineKind::Output);
    }
    keys(&mut app, "/output 7");
    press(&mut app, KeyCode::Enter);
    let found = app.console.found.expect("found in the console");
    assert_eq!(app.console.lines[found].0, "output 7");
    let screen = text(&draw(&mut app, 120, 40));
    assert!(screen.contains("output 7"), "{screen}");
    keys(&mut app, "n");
    assert_eq!(
        app.console.lines[app.console.found.unwrap_or(0)].0,
        "output 70"
    );
    // Memory keeps `n` for the next buffer; `/` there says where it works.
    keys(&mut app, "5/");
    assert!(app.search.prompt.is_none());
    assert!(app
        .message
        .as_ref()
        .is_some_and(|m| m.text.contains("/ searches")));
    // The command line takes `/` as text.
    keys(&mut app, ":p 4/2");
    assert_eq!(app.editor.as_ref().map(|e| e.text()), Some("p 4/2"));
}

/// `+`/`-`/`<`/`>` send `set split` (so `--record` has them) and the layout follows; in the
/// compact layout they say where they work.
#[test]
fn split_keys_resize_through_set_split() {
    use wavedbg_emulator::debug::panes::SplitTarget;
    let dir = std::env::temp_dir().join(format!("wavedbg-tui-split-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let options = TuiOptions {
        record: Some(dir.join("rec.wdbg")),
        history: Default::default(),
    };
    let mut app = App::new(common::demo().engine, &options).expect("starts");
    let _ = draw(&mut app, 120, 40);
    let lanes_rows = app.hits.rows[Pane::Lanes.index()];
    let left = app.hits.split_shares[SplitTarget::Left as usize];
    keys(&mut app, "3++");
    let _ = draw(&mut app, 120, 40);
    assert!(app.hits.rows[Pane::Lanes.index()] > lanes_rows);
    let lanes = app
        .engine
        .panes()
        .splits
        .get(SplitTarget::Lanes)
        .expect("set");
    keys(&mut app, "5+");
    assert_eq!(
        app.engine.panes().splits.lanes,
        Some(lanes - 5),
        "Memory grows"
    );
    keys(&mut app, ">");
    let _ = draw(&mut app, 120, 40);
    assert_eq!(app.engine.panes().splits.left, Some(left + 5));
    keys(&mut app, "8-");
    let _ = draw(&mut app, 120, 40);
    assert!(app.engine.panes().splits.source.is_some_and(|s| s < 50));
    keys(&mut app, "2+");
    assert!(
        app.message.as_ref().is_some_and(|m| m.error),
        "Waves has no split"
    );
    let rec = std::fs::read_to_string(dir.join("rec.wdbg")).unwrap_or_default();
    assert!(rec.contains("set split lanes"), "{rec}");
    assert!(
        rec.contains(&format!("set split left {}", left + 5)),
        "{rec}"
    );
    // The compact layout shows one pane: nothing to resize.
    let _ = draw(&mut app, 80, 24);
    let before = app.engine.panes().splits;
    keys(&mut app, "3+");
    assert_eq!(app.engine.panes().splits, before);
    assert!(app
        .message
        .as_ref()
        .is_some_and(|m| m.text.contains("100x30")));
}

/// The Watch pane and a lanes split together: the lane grid keeps the height the split
/// gives it and the Watch pane takes its rows from memory's part; at the split's largest
/// the grid leaves the Watch pane and memory a line each. `+`/`-` on the Watch pane say
/// what to resize instead and send no command.
#[test]
fn the_watch_pane_takes_its_rows_from_memory_under_a_lanes_split() {
    let rows = |app: &App, p: Pane| app.hits.rows[p.index()];
    let mut app = demo();
    run(&mut app, &["set split lanes 50"]);
    let _ = draw(&mut app, 120, 40);
    let (lanes, mem) = (rows(&app, Pane::Lanes), rows(&app, Pane::Memory));
    run(&mut app, &["display u0", "display u1", "display v1"]);
    let _ = draw(&mut app, 120, 40);
    let watch = rows(&app, Pane::Watch);
    assert!(watch >= 1, "the Watch pane shows");
    assert_eq!(rows(&app, Pane::Lanes), lanes, "the lanes split is kept");
    assert_eq!(
        rows(&app, Pane::Memory) + watch + 2,
        mem,
        "out of memory's rows"
    );
    run(&mut app, &["set split lanes 90"]);
    for (w, h) in [(100, 30), (120, 40), (200, 60)] {
        let _ = draw(&mut app, w, h);
        assert!(
            rows(&app, Pane::Watch) >= 1 && rows(&app, Pane::Memory) >= 1,
            "{w}x{h}: watch {} memory {}",
            rows(&app, Pane::Watch),
            rows(&app, Pane::Memory)
        );
    }
    let _ = draw(&mut app, 120, 40);
    let before = app.engine.panes().splits;
    keys(&mut app, "9+");
    assert_eq!(app.engine.panes().splits, before);
    assert!(
        app.message
            .as_ref()
            .is_some_and(|m| m.error && m.text.contains("Watch pane")),
        "{:?}",
        app.message
    );
}

/// Ctrl-Z asks the event loop to suspend, from the panes and from the command line.
#[test]
fn ctrl_z_asks_to_suspend() {
    let mut app = demo();
    app.on_key(KeyEvent::new(KeyCode::Char('z'), KeyModifiers::CONTROL));
    assert!(app.suspend && !app.zoom);
    app.suspend = false;
    keys(&mut app, ":p");
    app.on_key(KeyEvent::new(KeyCode::Char('z'), KeyModifiers::CONTROL));
    assert!(app.suspend);
    assert_eq!(app.editor.as_ref().map(|e| e.text()), Some("p"));
}

/// The help scrolls with every movement key at the smallest screen, and stops at its end.
#[test]
fn the_help_scrolls_at_the_smallest_size() {
    let mut app = demo();
    keys(&mut app, "?");
    let _ = draw(&mut app, 20, 6);
    let max = app.hits.help_scroll_max;
    assert!(max > 50, "{max}");
    press(&mut app, KeyCode::End);
    assert_eq!(app.help.scroll, max);
    keys(&mut app, "k");
    assert_eq!(app.help.scroll, max - 1);
    keys(&mut app, "G");
    keys(&mut app, "j");
    assert_eq!(app.help.scroll, max);
    keys(&mut app, "g");
    assert_eq!(app.help.scroll, 0);
    assert!(app.help.open);
    keys(&mut app, "x");
    assert!(!app.help.open);
}

/// `:set check ` lists the detector groups in the box above the command line, as the
/// REPL's second Tab lists them; an expression's operator starts a new word (`p v3+ne`
/// completes the label), and an empty word inside an expression lists nothing.
#[test]
fn the_command_line_lists_an_empty_arguments_words() {
    let mut app = demo();
    keys(&mut app, ":set check ");
    let (_, c) = app.completions().expect("the groups");
    assert_eq!(c, ["races", "sync", "init", "hazards", "xlane", "all"]);
    let screen = text(&draw(&mut app, 120, 40));
    assert!(screen.contains("6 completions (Tab)"), "{screen}");
    assert!(screen.contains("hazards"), "{screen}");
    press(&mut app, KeyCode::Esc);
    keys(&mut app, ":p v3+");
    assert_eq!(app.completions(), None, "an empty word in an expression");
    keys(&mut app, "next_w");
    press(&mut app, KeyCode::Tab);
    let screen = text(&draw(&mut app, 120, 40));
    assert!(screen.contains("p v3+next_word"), "{screen}");
}

/// A ragged tail whose shuffle reads lanes 24-31 of v1, inactive there (RAGGED in the
/// engine's tests): one read of inactive lanes, written first by `vmovi v1, 7`.
const RAGGED: &str = "\
.kernel ragged
.workgroup 32
    vlaneid v0
    vmovi v1, 7
    vmovi v2, 24
    vcmp.lt.u32 u10, v0, v2
    exec.and.save u11, u10
    vaddi.u32 v1, v0, 100
    shfl.down.vi v3, v1, 8
    exec.set u11
    end
";

/// Issue 26 item 5: Enter on a finding in the Breakpoints pane visits it (`finding N`):
/// the first side, then the second, then the first again; each is one recorded command,
/// and the keys that edit breakpoints leave a finding alone.
#[test]
fn enter_on_a_finding_visits_its_sides() {
    use wavedbg_emulator::debug::{FindingSide, Reached, StopReason};
    let mut app = App::new(engine_of(RAGGED), &TuiOptions::default()).expect("starts");
    run(&mut app, &["set check xlane on", "continue", "continue"]);
    assert_eq!(app.engine.recorded_findings().len(), 1);
    app.focus = Pane::Breakpoints;
    press(&mut app, KeyCode::End);
    assert_eq!(app.breakpoints.cursor, 0, "the finding is the only entry");
    let side = |app: &App| match app.engine.last_stop().map(|s| (&s.reason, s.pc)) {
        Some((
            StopReason::Reached(Reached::Finding {
                number: 1, side, ..
            }),
            pc,
        )) => (*side, pc),
        other => panic!("{other:?}"),
    };
    press(&mut app, KeyCode::Enter);
    assert_eq!(side(&app), (FindingSide::First, Some(0x24)), "the shuffle");
    assert_eq!(app.engine.selected_lane, 16, "the first lane that reads");
    press(&mut app, KeyCode::Enter);
    assert_eq!(
        side(&app),
        (FindingSide::Second, Some(0x4)),
        "the write of lanes 24-31"
    );
    assert_eq!(app.engine.selected_lane, 24);
    press(&mut app, KeyCode::Enter);
    assert_eq!(side(&app), (FindingSide::First, Some(0x24)));
    let log = app.engine.log().join("\n");
    assert!(log.ends_with("finding 1\nfinding 1\nfinding 1"), "{log}");
    // `d` and `e` are for breakpoints: nothing happens to a finding.
    keys(&mut app, "de");
    assert!(app.engine.log().join("\n").ends_with("finding 1"));
    assert_eq!(app.engine.recorded_findings().len(), 1);
}

/// The higher-level line (1-based) of the selected wave's PC.
fn pc_line(app: &App) -> Option<u32> {
    app.selected_pc()
        .and_then(|pc| app.engine.line_row_at(pc))
        .map(|r| r.line)
}

/// Issue 27: with a line table the Source pane shows the higher-level file; `V` cycles it
/// to the `.s` and to both interleaved, keeping the cursor on the code cursor's place. A
/// kernel without one says so and keeps its `.s`.
#[test]
fn capital_v_cycles_the_source_modes() {
    let mut app = saxpy();
    assert_eq!(app.source.mode, SourceMode::HighLevel);
    assert_eq!(app.layout, CodeLayout::Split);
    // The PC (0x0000) is on line 4.
    assert_eq!(app.source.cursor, 3);
    let lines = app.source.len();
    keys(&mut app, "V");
    assert_eq!(app.source.mode, SourceMode::Assembly);
    let asm_line = app
        .engine
        .machine()
        .program()
        .line_at(0)
        .expect("a .s line");
    assert_eq!(app.source.cursor as u32 + 1, asm_line);
    keys(&mut app, "V");
    assert_eq!(app.source.mode, SourceMode::Interleaved);
    assert!(app.source.len() > lines, "lines and instructions");
    // The cursor is on the PC's instruction, right under line 4.
    assert_eq!(app.source.cursor, 4);
    let said = app.message.as_ref().map(|m| m.text.clone());
    assert_eq!(
        said.as_deref(),
        Some("Source: interleaved (src/saxpy.cl) (V: high-level)")
    );
    keys(&mut app, "V");
    assert_eq!(app.source.mode, SourceMode::HighLevel);
    // With the disassembly alone, `V` shows the source again.
    keys(&mut app, "vv");
    assert_eq!(app.layout, CodeLayout::Asm);
    keys(&mut app, "V");
    assert_eq!(app.layout, CodeLayout::Split);
    // Without a line table: as before.
    let mut demo = demo();
    assert_eq!(demo.source.mode, SourceMode::Assembly);
    keys(&mut demo, "V");
    assert_eq!(demo.source.mode, SourceMode::Assembly);
    assert!(demo
        .message
        .as_ref()
        .is_some_and(|m| m.text.contains("no line table")));
}

/// Issue 27: `b` or Enter on a higher-level line sets the breakpoints `break FILE:LINE`
/// sets (the first statement of each stretch of the line's code), and again deletes
/// them; a line without code is refused; `a` runs to the line.
#[test]
fn a_breakpoint_on_a_high_level_line_is_break_file_line() {
    let mut app = saxpy();
    keys(&mut app, "8");
    // Line 6 (index 5) is in two stretches of code.
    app.source.cursor = 5;
    keys(&mut app, "b");
    let mut reference = saxpy();
    run(&mut reference, &["break saxpy.cl:6"]);
    let addrs = |a: &App| -> Vec<u64> {
        a.engine
            .breakpoints()
            .iter()
            .flat_map(|b| b.addrs.clone())
            .collect()
    };
    assert_eq!(addrs(&app), addrs(&reference));
    assert_eq!(addrs(&app).len(), 2, "one a stretch");
    assert!(
        app.engine.log().iter().any(|l| l == "break src/saxpy.cl:6"),
        "{:?}",
        app.engine.log()
    );
    press(&mut app, KeyCode::Enter);
    assert!(app.engine.breakpoints().is_empty(), "Enter deletes them");
    press(&mut app, KeyCode::Enter);
    assert_eq!(addrs(&app), addrs(&reference), "and sets them again");
    // Line 5 (`{`) has no code.
    app.source.cursor = 4;
    keys(&mut app, "b");
    assert!(app.message.as_ref().is_some_and(|m| m.error));
    assert_eq!(
        app.engine.breakpoints().len(),
        1,
        "one breakpoint of two locations"
    );
    assert_eq!(addrs(&app).len(), 2);
    // `a` on line 9 runs the selected wave to its first statement (line 6's breakpoints
    // would stop it first).
    run(&mut app, &["delete"]);
    app.source.cursor = 8;
    keys(&mut app, "a");
    assert_eq!(pc_line(&app), Some(9));
    assert_eq!(app.source.cursor, 8);
    // Interleaved, an instruction's row toggles a breakpoint at that instruction alone.
    keys(&mut app, "V");
    keys(&mut app, "V");
    assert_eq!(app.source.mode, SourceMode::Interleaved);
    keys(&mut app, "j");
    let addr = app.code.lines[app.code.cursor].addr;
    keys(&mut app, "b");
    assert_eq!(app.engine.breakpoints().len(), 1);
    assert_eq!(app.engine.breakpoints()[0].addr(), addr);
}

/// Issue 27: line stepping (`next`, `step`, `reverse-step`) moves the current line in
/// the Source pane, in the high-level and the interleaved modes.
#[test]
fn line_steps_move_the_current_line() {
    let mut app = saxpy();
    let _ = draw(&mut app, 120, 40);
    for want in [6, 7, 6, 8] {
        run(&mut app, &["next"]);
        assert_eq!(pc_line(&app), Some(want));
        assert_eq!(app.source.cursor as u32 + 1, want);
        let screen = text(&draw(&mut app, 120, 40));
        assert!(
            screen.contains(&format!("=>   {want:>2}  ")),
            "line {want} marked:\n{screen}"
        );
    }
    run(&mut app, &["reverse-step"]);
    assert_eq!(pc_line(&app), Some(6));
    assert_eq!(app.source.cursor, 5);
    keys(&mut app, "VV");
    run(&mut app, &["step"]);
    assert_eq!(pc_line(&app), Some(8));
    let row = app.source.cursor;
    let pc = app.selected_pc().expect("a wave");
    assert_eq!(app.code.lines[app.code.cursor].addr, pc);
    let screen = text(&draw(&mut app, 120, 40));
    assert!(
        screen.contains(&format!("=>         {pc:04x}")),
        "the PC's instruction (row {row}) marked:\n{screen}"
    );
}

/// Issue 27: `0` focuses the Locals pane, which shows for a kernel with variables and
/// follows the selected wave; the movement keys select a variable.
#[test]
fn zero_focuses_the_locals_pane() {
    let mut app = saxpy();
    assert!(app.shown_panes().contains(&Pane::Locals));
    run(&mut app, &["break saxpy.cl:11", "continue"]);
    keys(&mut app, "0");
    assert_eq!(app.focus, Pane::Locals);
    let names: Vec<String> = app.engine.locals().into_iter().map(|l| l.name).collect();
    assert_eq!(names, ["a", "n", "i", "xi", "yi"]);
    keys(&mut app, "jjj");
    assert_eq!(app.locals_selected(5), Some(3));
    keys(&mut app, "G");
    assert_eq!(app.locals_selected(5), Some(4));
    // A kernel without variables hides it unless focused.
    let mut demo = demo();
    assert!(!demo.shown_panes().contains(&Pane::Locals));
    keys(&mut demo, "0");
    assert!(demo.shown_panes().contains(&Pane::Locals));
    let screen = text(&draw(&mut demo, 80, 24));
    assert!(screen.contains("the kernel declares none"), "{screen}");
}

/// Issue 27: a line table whose higher-level file cannot be read keeps the `.s` view; `V`
/// shows why there is no higher-level text, and stepping by line still works.
#[test]
fn an_unreadable_high_level_file_keeps_the_assembly() {
    let text = std::fs::read_to_string("../scripts/saxpy_src.s").expect("saxpy_src.s");
    // Alone in a temporary directory: src/saxpy.cl is not beside it.
    let mut app = app_of_file("saxpy_alone", &text);
    assert_eq!(app.source.mode, SourceMode::Assembly);
    assert_eq!(app.layout, CodeLayout::Split);
    // From the `.s`, `V` goes to the interleaved view, which needs the text too.
    keys(&mut app, "8V");
    assert_eq!(app.source.mode, SourceMode::Interleaved);
    let screen = text_of(&mut app);
    assert!(
        screen.contains("No source text for src/saxpy.cl"),
        "{screen}"
    );
    keys(&mut app, "b");
    assert!(app.message.as_ref().is_some_and(|m| m.error));
    run(&mut app, &["next"]);
    assert_eq!(pc_line(&app), Some(6));
}

/// The screen at 120x40, as text.
fn text_of(app: &mut App) -> String {
    text(&draw(app, 120, 40))
}

/// Issue 27: search and movement in the higher-level and interleaved views; the code
/// cursor follows (to a line's first statement, or an instruction's own row).
#[test]
fn search_and_movement_in_the_high_level_views() {
    let mut app = saxpy();
    let _ = draw(&mut app, 120, 40);
    keys(&mut app, "8");
    keys(&mut app, "/float xi");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.source.cursor, 8, "line 9");
    let stmt = app.engine.line_row_at(app.code.lines[app.code.cursor].addr);
    assert_eq!(stmt.map(|r| (r.line, r.is_stmt)), Some((9, true)));
    press(&mut app, KeyCode::Down);
    assert_eq!(app.source.cursor, 9);
    keys(&mut app, "G");
    assert_eq!(app.source.cursor, app.source.len() - 1);
    keys(&mut app, "VV");
    assert_eq!(app.source.mode, SourceMode::Interleaved);
    keys(&mut app, "/vfma");
    press(&mut app, KeyCode::Enter);
    assert_eq!(
        app.code.lines[app.code.cursor].text,
        "vfma.f32 v6, v3, v4, v5"
    );
    assert_eq!(
        app.source_row_addr(app.source.cursor),
        Some(app.code.lines[app.code.cursor].addr)
    );
    // `n` goes on to the next match, wrapping around.
    keys(&mut app, "n");
    assert!(app
        .message
        .as_ref()
        .is_some_and(|m| m.text.contains("wrapped")));
    keys(&mut app, "g");
    assert_eq!(app.source.cursor, 0);
}

/// The name of the higher-level file the Source pane shows.
fn shown_file(app: &App) -> &str {
    app.source.shown_file().map_or("", |f| f.name.as_str())
}

/// Issue 27: a kernel with code of two higher-level files (util.h's `mad` inlined in
/// two_files.cl): the Source pane shows the file of the selected wave's line and switches
/// with the PC, after a line step, a reverse step, a continue and a wave switch; where the
/// PC has no line the file shown stays.
#[test]
fn the_source_pane_shows_the_file_of_the_pcs_line() {
    let mut app = two_files();
    // The PC (0x0000) has no line: the first file with code shows.
    assert_eq!(app.source.mode, SourceMode::HighLevel);
    assert_eq!(shown_file(&app), "two_files.cl");
    run(&mut app, &["next", "next", "next"]);
    assert_eq!(pc_line(&app), Some(9));
    assert_eq!(app.source.cursor, 8);
    run(&mut app, &["next"]);
    assert_eq!(shown_file(&app), "util.h");
    assert_eq!(app.source.cursor, 3, "util.h:4");
    assert!(text_of(&mut app).contains("Source: util.h "));
    run(&mut app, &["next", "next"]);
    assert_eq!(shown_file(&app), "two_files.cl");
    assert_eq!(app.source.cursor, 9, "two_files.cl:10");
    run(&mut app, &["reverse-step"]);
    assert_eq!(shown_file(&app), "util.h");
    assert_eq!(app.source.cursor, 4, "util.h:5");
    // Code of no line (`.loc 1 0`, right before util.h:4): the file stays.
    run(&mut app, &["reverse-stepi 2"]);
    assert_eq!(pc_line(&app), None);
    assert_eq!(shown_file(&app), "util.h");
    // A restart puts the PC before the first `.loc`: still util.h.
    run(&mut app, &["restart"]);
    keys(&mut app, "y");
    assert_eq!(app.selected_pc(), Some(0));
    assert_eq!(shown_file(&app), "util.h");
    // A continue to a breakpoint in the other file.
    run(&mut app, &["break two_files.cl:8", "continue"]);
    assert_eq!(shown_file(&app), "two_files.cl");
    assert_eq!(app.source.cursor, 7);
    // Wave 0 into util.h alone (scheduler locking): selecting the waves switches files.
    run(&mut app, &["delete", "stepi 5"]);
    assert_eq!(shown_file(&app), "util.h");
    let other = if app.engine.selected_wave == 0 { 1 } else { 0 };
    let line_of = |app: &App, w: usize| {
        let pc = app.engine.machine().waves[w].pc;
        app.engine.line_row_at(pc).map(|r| r.line)
    };
    assert_eq!(
        line_of(&app, other),
        Some(8),
        "the other wave stopped there too"
    );
    keys(&mut app, "w");
    assert_eq!(app.engine.selected_wave, other);
    assert_eq!(shown_file(&app), "two_files.cl");
    assert_eq!(app.source.cursor, 7);
    let back = format!("wave {}", app.engine.machine().waves[1 - other].id);
    app.run_typed(&back);
    assert_eq!(shown_file(&app), "util.h");
    assert_eq!(app.source.cursor, 3);
}

/// Issue 27: with two higher-level files, `b` on a line of the file shown is `break
/// FILE:LINE` with that file's name, and each file shows its own breakpoints; in the
/// high-level mode the code cursor on another file's instruction shows that file.
#[test]
fn breakpoints_and_the_code_cursor_in_the_file_shown() {
    let mut app = two_files();
    run(&mut app, &["break util.h:4", "continue"]);
    assert_eq!(shown_file(&app), "util.h");
    keys(&mut app, "8j");
    assert_eq!(app.source.cursor, 4);
    keys(&mut app, "b");
    assert!(
        app.engine.log().iter().any(|l| l == "break util.h:5"),
        "{:?}",
        app.engine.log()
    );
    let screen = text_of(&mut app);
    assert!(screen.contains("=>●   4      float p = a * b;"), "{screen}");
    assert!(screen.contains("  ●   5      return p + c;"), "{screen}");
    // The code cursor on line 10's store: two_files.cl shows, with no breakpoint mark.
    keys(&mut app, "1");
    let store = app.engine.machine().program().labels["store"];
    let i = app.code.index_of(store).expect("the store");
    while app.code.cursor < i {
        keys(&mut app, "j");
    }
    assert_eq!(shown_file(&app), "two_files.cl");
    assert_eq!(app.source.cursor, 9);
    let screen = text_of(&mut app);
    assert!(screen.contains("Source: two_files.cl "), "{screen}");
    assert!(screen.contains("     10      y[i] = r;"), "{screen}");
    // Code of no line leaves the file shown as it is.
    keys(&mut app, "g");
    assert_eq!(app.engine.line_row_at(0), None);
    assert_eq!(shown_file(&app), "two_files.cl");
    // `.` goes back to the PC, in util.h.
    keys(&mut app, ".");
    assert_eq!(shown_file(&app), "util.h");
    assert_eq!(app.source.cursor, 3);
}

/// Issue 27: the interleaved view of each file shows every instruction exactly once, in
/// address order around the file's own (code of no line and of the other file under a
/// head naming where it comes from), labels on rows of their own; the code cursor and the
/// source cursor follow each other over every row.
#[test]
fn the_interleaved_view_shows_every_instruction_once() {
    use wavedbg_tui::app::high_level::Row;
    let mut app = two_files();
    keys(&mut app, "VV");
    assert_eq!(app.source.mode, SourceMode::Interleaved);
    let n = app.code.lines.len();
    for number in [1, 2] {
        app.source.show_file(number);
        let h = app.source.high_level().expect("the file's text");
        let instrs: Vec<usize> = h
            .rows
            .iter()
            .filter_map(|r| match r {
                Row::Instr(ci) => Some(*ci),
                _ => None,
            })
            .collect();
        let mut sorted = instrs.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..n).collect::<Vec<_>>(), "file {number}");
        for ci in 0..n {
            assert_eq!(
                h.rows.get(h.row_of_instr(ci).expect("a row")),
                Some(&Row::Instr(ci))
            );
        }
        let labels = h
            .rows
            .iter()
            .filter(|r| matches!(r, Row::Label(..)))
            .count();
        assert_eq!(labels, 1, "store:");
    }
    // util.h's view: what comes before its code first, under heads.
    let texts: Vec<String> = {
        let h = app.source.high_level().expect("util.h");
        h.rows
            .iter()
            .filter_map(|r| match r {
                Row::From(p) => Some(app.source.from_text(*p)),
                _ => None,
            })
            .collect()
    };
    assert_eq!(
        texts,
        [
            "<no line>",
            "two_files.cl:7  uint i = group_id() * group_size() + lane_id();",
            "two_files.cl:8  float xi = x[i];",
            "two_files.cl:9  float r = mad(a, xi, y[i]);",
            "<no line>",
            "two_files.cl:10  y[i] = r;",
            "two_files.cl:11  }",
        ]
    );
    // two_files.cl's: the prologue first, then `mad`'s code after line 9's.
    app.source.show_file(1);
    let mut screen = text(&draw(&mut app, 200, 60));
    app.source.cursor = app.source.len() - 1;
    screen.push_str(&text(&draw(&mut app, 200, 60)));
    for row in [
        "<no line>",
        "0000  uwgid u6",
        "9      float r = mad(a, xi, y[i]);",
        "0034  ld.ubase.b32 v5, u[2:3], v2, 0",
        "util.h:4  float p = a * b;",
        "0044  vmul.f32 v6, v3, v4",
        "util.h:5  return p + c;",
        "store:",
    ] {
        assert!(screen.contains(row), "{row}:\n{screen}");
    }
    // The code cursor on each instruction puts the source cursor on its row, and the
    // source cursor on each row the code cursor on its instruction.
    keys(&mut app, "1");
    for ci in 0..n {
        keys(&mut app, if ci == 0 { "g" } else { "j" });
        assert_eq!(app.code.cursor, ci);
        assert_eq!(
            shown_file(&app),
            "two_files.cl",
            "interleaved, every row is here"
        );
        assert_eq!(
            app.source_row_addr(app.source.cursor),
            Some(app.code.lines[ci].addr)
        );
    }
    keys(&mut app, "8g");
    for r in 0..app.source.len() {
        assert_eq!(app.source.cursor, r);
        let addr = app.source_row_addr(r);
        if addr.is_some() {
            assert_eq!(addr, Some(app.code.lines[app.code.cursor].addr), "row {r}");
        }
        keys(&mut app, "j");
    }
    // `b` on a head sets a breakpoint at its first instruction.
    let head = app
        .source
        .high_level()
        .and_then(|h| h.rows.iter().position(|r| *r == Row::From(Some((2, 4)))))
        .expect("util.h:4's head");
    app.source.cursor = head;
    keys(&mut app, "b");
    let vmul = app
        .code
        .lines
        .iter()
        .find(|l| l.text.starts_with("vmul"))
        .map(|l| l.addr);
    assert_eq!(app.engine.breakpoints().first().map(|b| b.addr()), vmul);
}

/// Issue 27: the Locals pane's changes since the last stop: per lane for a per-lane
/// variable (lane 0 of `p = a * xi` stays 0), one bit for a uniform one; none after a
/// switch to another wave.
#[test]
fn the_locals_pane_marks_what_changed() {
    let mut app = two_files();
    run(&mut app, &["break util.h:4", "continue"]);
    run(&mut app, &["next"]);
    let locals = app.engine.locals();
    let names: Vec<&str> = locals.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["a", "base", "i", "xi", "p"]);
    assert_eq!(app.locals_changed(&locals), [0, 0, 0, 0, !1]);
    // `base` (u6) in wave 1: 1, then 32 once multiplied by the group size.
    let mut app = two_files();
    run(&mut app, &["wave 1", "stepi 2"]);
    let changed = |app: &App| {
        let locals = app.engine.locals();
        let base = locals.iter().position(|l| l.name == "base").expect("live");
        (
            locals[base].values.clone(),
            app.locals_changed(&locals)[base],
        )
    };
    assert_eq!(changed(&app).0, [Ok("1".to_string())]);
    run(&mut app, &["stepi 2"]);
    assert_eq!(changed(&app), (vec![Ok("32".to_string())], 1));
    run(&mut app, &["wave 0"]);
    assert!(app
        .locals_changed(&app.engine.locals())
        .iter()
        .all(|c| *c == 0));
}

/// Every pane of the wide layout keeps a usable minimum (borders, its header, a line):
/// with the Watch and Locals panes shown, whatever the height and the lanes split, the
/// Memory pane shows its spaces' header and a row, and the lane grid a lane.
#[test]
fn every_pane_keeps_a_usable_minimum_in_the_wide_layout() {
    let rows = |app: &App, p: Pane| app.hits.rows[p.index()];
    let mut app = saxpy();
    run(&mut app, &["display v3"]);
    for split in ["default", "10", "90"] {
        run(&mut app, &[&format!("set split lanes {split}")]);
        for (w, h) in [
            (100, 30),
            (100, 33),
            (100, 36),
            (100, 38),
            (100, 40),
            (100, 50),
        ]
        .into_iter()
        .chain((30..=70).step_by(3).map(|h| (130, h)))
        {
            let buf = draw(&mut app, w, h);
            let at = format!("{w}x{h} split {split}");
            assert!(rows(&app, Pane::Memory) >= 2, "{at}: memory");
            assert!(rows(&app, Pane::Lanes) >= 2, "{at}: lanes");
            for p in [Pane::Watch, Pane::Locals, Pane::Registers, Pane::Console] {
                assert!(rows(&app, p) >= 1, "{at}: {p:?}");
            }
            let t = text(&buf);
            assert!(t.contains(" global  shared  scratch "), "{at}\n{t}");
            assert!(!t.contains("The lane grid needs"), "{at}\n{t}");
        }
    }
}

/// `-` on the lane grid stops at the smallest split that still draws a lane (and `+` at
/// the largest that leaves the panes under it theirs), saying so, instead of setting
/// sizes the layout cannot give.
#[test]
fn the_lanes_split_stops_where_the_grid_still_draws() {
    use wavedbg_emulator::debug::panes::SplitTarget;
    let mut app = saxpy();
    run(&mut app, &["display v3"]);
    let _ = draw(&mut app, 100, 30);
    press(&mut app, KeyCode::Char('3'));
    for _ in 0..20 {
        press(&mut app, KeyCode::Char('-'));
        let _ = draw(&mut app, 100, 30);
    }
    let (lo, hi) = app.hits.split_bounds[SplitTarget::Lanes as usize];
    assert_eq!(app.engine.panes().splits.lanes, Some(lo));
    assert!(app.hits.rows[Pane::Lanes.index()] >= 2);
    assert!(app
        .message
        .as_ref()
        .is_some_and(|m| m.text.contains("at its smallest")));
    for _ in 0..20 {
        press(&mut app, KeyCode::Char('+'));
        let _ = draw(&mut app, 100, 30);
    }
    assert_eq!(app.engine.panes().splits.lanes, Some(hi));
    assert!(app.hits.rows[Pane::Memory.index()] >= 2);
}

/// The command line and the search prompt have the emacs editing keys the REPL's
/// rustyline has: Ctrl-K kills to the end, Ctrl-B/Ctrl-F move a character, Ctrl-D deletes
/// the one under the cursor, Ctrl-H is Backspace, Ctrl-Left/Ctrl-Right move a word, Alt-d
/// deletes the next word.
#[test]
fn the_command_line_has_readlines_emacs_keys() {
    let ctrl = |app: &mut App, code: KeyCode| {
        app.on_key(KeyEvent::new(code, KeyModifiers::CONTROL));
    };
    let line = |app: &App| {
        let e = app.editor.as_ref().or(app.search.prompt.as_ref());
        e.map(|e| (e.text().to_string(), e.cursor()))
    };
    let mut app = demo();
    keys(&mut app, ":print v1 + v2");
    ctrl(&mut app, KeyCode::Left);
    ctrl(&mut app, KeyCode::Left);
    assert_eq!(line(&app), Some(("print v1 + v2".into(), 9)));
    ctrl(&mut app, KeyCode::Right);
    assert_eq!(line(&app), Some(("print v1 + v2".into(), 10)));
    ctrl(&mut app, KeyCode::Char('b'));
    ctrl(&mut app, KeyCode::Char('b'));
    ctrl(&mut app, KeyCode::Char('f'));
    assert_eq!(line(&app), Some(("print v1 + v2".into(), 9)));
    ctrl(&mut app, KeyCode::Char('d'));
    assert_eq!(line(&app), Some(("print v1  v2".into(), 9)));
    ctrl(&mut app, KeyCode::Char('h'));
    assert_eq!(line(&app), Some(("print v1 v2".into(), 8)));
    ctrl(&mut app, KeyCode::Char('k'));
    assert_eq!(line(&app), Some(("print v1".into(), 8)));
    app.on_key(KeyEvent::new(KeyCode::Home, KeyModifiers::NONE));
    app.on_key(KeyEvent::new(KeyCode::Char('d'), KeyModifiers::ALT));
    assert_eq!(line(&app), Some((" v1".into(), 0)));
    // The search prompt edits the same way.
    press(&mut app, KeyCode::Esc);
    keys(&mut app, "1/vadd u1");
    ctrl(&mut app, KeyCode::Left);
    ctrl(&mut app, KeyCode::Char('k'));
    assert_eq!(line(&app), Some(("vadd ".into(), 5)));
}

/// A multi-line paste on the command line runs line by line, as in the REPL (blank lines
/// skipped, the last line left to edit unless the paste ends it); a tab is a space, so
/// tokens never join; in the search prompt line breaks are spaces.
#[test]
fn a_pasted_line_break_runs_the_line_and_a_tab_is_a_space() {
    let mut app = demo();
    keys(&mut app, ":");
    app.on_paste("print 1\r\n\nprint 2\nprint 3\tx");
    app.wait_idle(Duration::from_secs(5)).expect("alive");
    let log = app.engine.log();
    assert_eq!(log[log.len() - 2..], ["print 1", "print 2"]);
    assert_eq!(app.editor.as_ref().map(|e| e.text()), Some("print 3 x"));
    press(&mut app, KeyCode::Esc);
    // During a run, what the paste types waits for it.
    let mut app = App::new(engine_of(SPIN), &TuiOptions::default()).expect("starts");
    app.on_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::NONE));
    app.on_key(KeyEvent::new(KeyCode::Char(':'), KeyModifiers::NONE));
    app.on_paste("print 4\nprint 5\n");
    assert!(app.engine.log().iter().all(|l| !l.starts_with("print")));
    app.interrupt();
    app.wait_idle(Duration::from_secs(5)).expect("alive");
    let log = app.engine.log();
    assert_eq!(log[log.len() - 2..], ["print 4", "print 5"]);
    assert!(app.editor.is_none());
    // The search prompt takes one line.
    keys(&mut app, "1/");
    app.on_paste("uaddi\tu1,\nu1\n");
    assert_eq!(
        app.search.prompt.as_ref().map(|e| e.text()),
        Some("uaddi u1, u1")
    );
}

/// The lanes of a per-lane entry taller than its pane can all be brought into view: with
/// the last entry selected, the movement keys scroll within it (a display of `v1` at 40x10,
/// the loop variable `i` in the Locals pane at 40x12). Down and End changed nothing: the
/// last lanes stayed below the pane though its border showed `▼`.
#[test]
fn an_entry_taller_than_its_pane_scrolls_within() {
    fn lane_rows(buf: &ratatui::buffer::Buffer) -> Vec<u32> {
        text(buf)
            .lines()
            .filter_map(|l| {
                let at = l.find("[")?;
                l[at + 1..].split(']').next()?.trim().parse().ok()
            })
            .collect()
    }
    // End shows the last lane row; from Home, `j` brings every lane row into view.
    let check = |app: &mut App, pane: Pane, (w, h): (u16, u16), what: &str| {
        let digit = char::from_digit(pane.digit() as u32, 10).expect("a digit");
        press(app, KeyCode::Char(digit));
        press(app, KeyCode::Char('G'));
        let buf = draw(app, w, h);
        let rows = lane_rows(&buf);
        assert!(rows.len() >= 2, "{what}: lane rows shown:\n{}", text(&buf));
        let per_row = rows[1] - rows[0];
        assert_eq!(
            rows.last().copied(),
            Some(32 - per_row),
            "{what}: End shows the last lanes:\n{}",
            text(&buf)
        );
        press(app, KeyCode::Char('g'));
        let _ = draw(app, w, h);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..80 {
            press(app, KeyCode::Char('j'));
            seen.extend(lane_rows(&draw(app, w, h)));
        }
        let want: std::collections::BTreeSet<u32> = (0..32).step_by(per_row as usize).collect();
        assert_eq!(seen, want, "{what}: j reaches every lane row");
    };
    let mut app = saxpy();
    run(&mut app, &["display v0", "display v1"]);
    check(&mut app, Pane::Watch, (40, 10), "Watch");
    let mut app = saxpy();
    run(&mut app, &["break saxpy.cl:11", "continue", "delete"]);
    check(&mut app, Pane::Locals, (40, 12), "Locals");
}

/// A narrow Memory pane shows whole values (offsets for addresses when whole addresses
/// leave no room), or says what it needs; the lane grid's explanation of what it lacks is
/// never cut either. Values were cut (`100000000: 00 0…` at 20x8) or none was left (f32
/// words at 30x8), and the lane grid's explanation ended `The lane grid needs 2 …`.
#[test]
fn narrow_memory_and_lane_panes_cut_no_value_and_no_explanation() {
    let forms = [
        ("hex", "bytes"),
        ("f32", "words"),
        ("signed", "words"),
        ("unsigned", "bytes"),
    ];
    for (format, unit) in forms {
        let mut app = demo();
        run(
            &mut app,
            &[
                &format!("set format memory {format}"),
                &format!("set format lanes {format}"),
                &format!("set memory-unit {unit}"),
            ],
        );
        for pane in [Pane::Memory, Pane::Lanes] {
            let digit = char::from_digit(pane.digit() as u32, 10).expect("a digit");
            press(&mut app, KeyCode::Char(digit));
            for w in 20..=60u16 {
                for h in 6..=9u16 {
                    let buf = draw(&mut app, w, h);
                    let screen = text(&buf);
                    let lines: Vec<&str> = screen.lines().collect();
                    let Some(top) = lines.iter().position(|l| l.starts_with('┌')) else {
                        panic!("{pane:?} {w}x{h}: no pane:\n{screen}");
                    };
                    let bottom = lines
                        .iter()
                        .rposition(|l| l.starts_with('└'))
                        .expect("its bottom");
                    // Memory's first row is its head line (spaces and where), which may
                    // be cut with `…`.
                    let first = top + 1 + usize::from(pane == Pane::Memory);
                    let rows = &lines[first.min(bottom)..bottom];
                    let what = format!("{pane:?} {format} {unit} at {w}x{h}:\n{screen}");
                    assert!(rows.iter().all(|r| !r.contains('…')), "cut: {what}");
                    if pane == Pane::Memory && !rows.is_empty() {
                        let r = rows[0];
                        let all = rows.concat();
                        let shown = all.contains("Need")
                            || all.contains("needs")
                            || all.contains('x')
                            || r.chars().any(|c| c.is_ascii_digit())
                                && r.split(": ").nth(1).is_some_and(|v| {
                                    v.trim_matches(|c| c == ' ' || c == '│' || c == '▼')
                                        .chars()
                                        .any(|c| c.is_ascii_digit())
                                });
                        assert!(shown, "a value or what is needed: {what}");
                    }
                }
            }
        }
    }
}

/// A pending y/n question always shows its answer keys on the footer, at any width: the
/// fixed `? help  q quit` gives way, and what is cut (the reason, else the question) is cut
/// at a word. The questions were cut before `(y or n)` (Ctrl-R at 40x10, `q` during a run
/// at 30x8) and the reason in the middle of a word at 100x30.
#[test]
fn a_question_shows_its_answer_keys_at_any_width() {
    let footer = |app: &mut App, w: u16| {
        let t = text(&draw(app, w, 10));
        t.lines().last().expect("a footer").to_string()
    };
    let check = |line: &str, w: u16, what: &str| {
        assert!(
            line.contains("(y or n)") || w < 30 && line.contains("y/n"),
            "{what} at {w}: {line:?}"
        );
        assert!(!line.contains("? help"), "{what} at {w}: {line:?}");
        // Cut only at a word: a `…` follows a space.
        if let Some(i) = line.find('…') {
            assert!(
                line[..i].ends_with(' ') || i == 0,
                "{what} at {w}, cut mid-word: {line:?}"
            );
        }
    };
    let mut app = demo();
    run(&mut app, &["stepi 3"]);
    app.on_key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL));
    assert!(app.question.is_some());
    for w in 20..=140 {
        let line = footer(&mut app, w);
        check(&line, w, "Ctrl-R");
    }
    keys(&mut app, "n");
    let mut app = App::new(engine_of(SPIN), &TuiOptions::default()).expect("starts");
    app.submit(&["continue"]);
    app.on_key(KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE));
    assert!(app.confirm_quit);
    for w in 20..=140 {
        let line = footer(&mut app, w);
        check(&line, w, "q during a run");
    }
    app.on_key(KeyEvent::new(KeyCode::Char('n'), KeyModifiers::NONE));
    app.on_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    app.wait_idle(Duration::from_secs(5)).expect("alive");
    app.shutdown();
}

/// The EXEC bitmap's rows line up and fit at every width: the group numbers are
/// right-aligned, so each row's first lane is in the same column, and no row is cut.
/// From lane 16 the squares moved a column right, and at 22 columns the last lane
/// numbers were cut (`2…`).
#[test]
fn the_exec_bitmap_rows_line_up_and_fit() {
    let mut app = demo();
    keys(&mut app, "4");
    for w in 20..=120u16 {
        let screen = text(&draw(&mut app, w, 30));
        let rows: Vec<&str> = screen
            .lines()
            .filter(|l| l.contains('■') || l.contains('·'))
            .collect();
        assert!(!rows.is_empty(), "at {w}: no bitmap:\n{screen}");
        for r in &rows {
            assert!(!r.contains('…'), "at {w}, cut: {r:?}\n{screen}");
        }
        if rows.len() > 1 {
            let first = |r: &str| r.chars().position(|c| c == '■' || c == '·');
            let cols: Vec<_> = rows.iter().map(|r| first(r)).collect();
            assert!(
                cols.windows(2).all(|p| p[0] == p[1]),
                "at {w}, not lined up: {cols:?}\n{}",
                rows.join("\n")
            );
        }
    }
}

/// Moving along a command line longer than the screen moves the cursor, not the text, as
/// readline and fish do: the view scrolls only when the cursor reaches an edge (ASCII and
/// wide CJK characters). Every Left slid the text under a cursor pinned at the right.
#[test]
fn a_long_command_line_keeps_still_while_the_cursor_moves() {
    let (w, h) = (41u16, 12u16);
    for body in [
        (0..80)
            .map(|i| char::from(b'a' + i % 26))
            .collect::<String>(),
        "漢字かな".repeat(10),
    ] {
        let mut app = demo();
        let mut state = DrawState::default();
        keys(&mut app, ":");
        keys(&mut app, &format!("print {body}"));
        let footer =
            |buf: &ratatui::buffer::Buffer| text(buf).lines().last().expect("a footer").to_string();
        let (buf, mut at) = draw_cursor(&mut app, &mut state, w, h);
        let first = footer(&buf);
        assert!(first.starts_with('…'), "{first}");
        // Left moves the cursor over the still text until the left edge.
        let mut moves = 0;
        loop {
            press(&mut app, KeyCode::Left);
            let (buf, now) = draw_cursor(&mut app, &mut state, w, h);
            if now.x >= at.x {
                break;
            }
            assert_eq!(footer(&buf), first, "{body}: the text moved");
            at = now;
            moves += 1;
        }
        assert!(moves >= 10, "{body}: the cursor moved {moves} times");
        assert!(at.x <= 2, "{body}: it scrolled at x {}", at.x);
        // Right moves back over the same still text.
        press(&mut app, KeyCode::Right);
        let (_, right) = draw_cursor(&mut app, &mut state, w, h);
        assert!(right.x > at.x, "{body}: Right moved the cursor right");
        // Home shows the start, End the end.
        press(&mut app, KeyCode::Home);
        let (buf, home) = draw_cursor(&mut app, &mut state, w, h);
        assert!(footer(&buf).starts_with(":print"), "{}", footer(&buf));
        assert_eq!(home.x, 1, "after the `:`");
        press(&mut app, KeyCode::End);
        let (buf, _) = draw_cursor(&mut app, &mut state, w, h);
        assert!(footer(&buf).starts_with('…'), "{}", footer(&buf));
        press(&mut app, KeyCode::Esc);
    }
}

/// Tab in the middle of a word completes the word up to the cursor and puts no space
/// before the rest of it, as readline does: `info wav|esXX` became `info waves esXX`.
#[test]
fn tab_in_the_middle_of_a_word_puts_no_space_before_the_rest() {
    let mut app = demo();
    keys(&mut app, ":info wavesXX");
    for _ in 0..4 {
        press(&mut app, KeyCode::Left);
    }
    press(&mut app, KeyCode::Tab);
    let e = app.editor.as_ref().expect("the command line");
    assert_eq!(e.text(), "info wavesesXX");
    assert_eq!(e.before_cursor(), "info waves");
    // At the end of a word the space follows, as before.
    press(&mut app, KeyCode::Esc);
    keys(&mut app, ":info wav");
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.editor.as_ref().map(|e| e.text()), Some("info waves "));
}

/// The help overlay's first line of text (under its title).
fn help_top_line(buf: &ratatui::buffer::Buffer) -> String {
    let (x, y) = find(buf, " Keys ").expect("the help shows");
    // The title starts one column inside the overlay's left border.
    let left = x.saturating_sub(1);
    let mut row = String::new();
    for col in left + 1..buf.area.right() {
        let c = buf[(col, y + 1)].symbol();
        if c == "│" {
            break;
        }
        row.push_str(c);
    }
    row.trim().to_string()
}

/// A resize keeps the entry that was at the top of the help at its top (its lines wrap
/// differently at another width, so the same line number would show another entry), and
/// the keys scroll on from there.
#[test]
fn the_help_keeps_its_top_entry_across_a_resize() {
    let mut app = demo();
    keys(&mut app, "?");
    let _ = draw(&mut app, 120, 20);
    for _ in 0..12 {
        keys(&mut app, "j");
    }
    let wide = help_top_line(&draw(&mut app, 120, 20));
    let key = wide
        .split_whitespace()
        .next()
        .expect("an entry")
        .to_string();
    assert!(!wide.ends_with(':'), "a key's entry, not a heading: {wide}");
    let narrow = help_top_line(&draw(&mut app, 40, 12));
    assert!(
        narrow.starts_with(&key),
        "{key} at the top at 40 columns: {narrow}"
    );
    // Scrolling on from there and back: one line down at 40 columns, then the wide screen
    // shows the same entry or the one after it, not a line 12 lines off.
    keys(&mut app, "k");
    keys(&mut app, "j");
    assert!(help_top_line(&draw(&mut app, 40, 12)).starts_with(&key));
    assert_eq!(help_top_line(&draw(&mut app, 120, 20)), wide);
}

/// After a resize the help's scroll is kept at the new width as the overlay's state, so
/// the next frames lay the help out once each (not again at the old width to find the
/// entry): the frames after it show the same top entry from the state as it is.
#[test]
fn the_help_keeps_its_scroll_at_the_new_width_after_a_resize() {
    let mut app = demo();
    keys(&mut app, "?");
    let _ = draw(&mut app, 120, 20);
    for _ in 0..12 {
        keys(&mut app, "j");
    }
    let _ = draw(&mut app, 120, 20);
    assert_eq!((app.help.scroll, app.help.room), (12, 117));
    let narrow = help_top_line(&draw(&mut app, 40, 12));
    assert_eq!(app.help.room, 37, "the width drawn is the state's");
    assert_ne!(app.help.scroll, 12, "counted in the narrow layout's lines");
    assert_eq!(app.hits.help_scroll, Some(app.help.scroll));
    let state = app.help;
    for _ in 0..3 {
        assert_eq!(help_top_line(&draw(&mut app, 40, 12)), narrow);
        assert_eq!(app.help, state, "nothing to lay out again");
    }
    // A screen that shows every line shows the top, and the entry is still kept for a
    // smaller one after it.
    let _ = draw(&mut app, 200, 80);
    assert_eq!(app.help.room, 197);
    assert_eq!(help_top_line(&draw(&mut app, 40, 12)), narrow);
}

/// Ctrl-L redraws the whole screen with the help open, and the help stays open.
#[test]
fn ctrl_l_redraws_with_the_help_open() {
    let mut app = demo();
    keys(&mut app, "?");
    let _ = draw(&mut app, 80, 24);
    keys(&mut app, "jj");
    app.on_key(KeyEvent::new(KeyCode::Char('l'), KeyModifiers::CONTROL));
    assert!(app.redraw);
    assert!(app.help.open);
    assert_eq!(app.help.scroll, 2);
}
