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
use wavedbg_tui::app::{App, CodeLayout, LineKind, Pane};
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
    assert_eq!(app.engine.breakpoints()[0].addr, addr);
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
    // Engine keys are refused while running; navigation still works.
    app.on_key(KeyEvent::new(KeyCode::Char('s'), KeyModifiers::NONE));
    assert!(app.message.as_ref().is_some_and(|m| m.error));
    app.on_key(KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE));
    assert_eq!(app.focus, Pane::Waves);
    // q asks first.
    app.on_key(KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE));
    assert!(app.confirm_quit && !app.quit);
    app.on_key(KeyEvent::new(KeyCode::Char('n'), KeyModifiers::NONE));
    assert!(!app.confirm_quit && !app.quit);
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
    // One continue in the log.
    assert_eq!(app.engine.log(), ["continue"]);
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
    // The next stop clears the marks.
    run(&mut app, &["continue"]);
    let screen = text(&draw(&mut app, 120, 40));
    assert!(!screen.contains("! data race"), "{screen}");
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
    assert_eq!(app.engine.breakpoints()[0].addr, addr);
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
    // `load` asks the same way.
    command(&mut app, "load elsewhere.ron");
    let q = app.question.as_ref().expect("load asks");
    assert!(
        q.text
            .contains("restarts with the settings of `elsewhere.ron`"),
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
    alt(&mut app, 'd');
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
