//! Terminal user interface for wavedbg: a full-screen debugger (ratatui, with crossterm
//! taken through `ratatui::crossterm`) on the debug engine.
//!
//! The crate keeps state apart from drawing, and dependencies point one way: [`app`] holds
//! the debugger state and turns keys and mouse clicks into typed commands of the command
//! language, which run on the engine (long runs on a [`worker`] thread, so the screen
//! never freezes); [`ui`] draws that state, one pane per file, keeping its own caches
//! between frames ([`ui::DrawState`], owned by the event loop), and is tested with
//! ratatui's `TestBackend`; [`hits`] carries what the last frame drew where back to the
//! state (for clicks and page sizes) without either module importing the other.
//! [`history`] is the command history shared with the REPL (rustyline's file history).
//! [`pane`] names the panes and the code layouts (`v`: disassembly, source, both).
//!
//! The screen, keys and marks are described in docs/tui.md. Drawing never cuts anything
//! silently: cut text ends with `…`, the console wraps and scrolls back, the lane grid
//! shows fewer registers or lanes rather than part of a value, and any pane can be
//! maximised (`z`); `tests/fit.rs` checks this at every size from 40x12 to 250x80.

pub mod app;
pub mod completion;
pub mod editor;
pub mod history;
pub mod hits;
pub mod number;
pub mod pane;
mod terminal;
pub mod ui;
pub mod worker;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use ratatui::crossterm::event::{self, Event};
use wavedbg_emulator::debug::Engine;

pub use app::App;

/// How the TUI is started (`wavedbg tui` options).
#[derive(Debug, Clone, Default)]
pub struct TuiOptions {
    /// Write what the user does to this script, which `wavedbg replay` replays
    /// (`--record`); `None`: no recording.
    pub record: Option<PathBuf>,
    /// The command history file, shared with the REPL (empty: a history in memory only).
    pub history: PathBuf,
}

/// Why the TUI could not run.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// Standard output is not a terminal.
    #[error("wavedbg tui needs a terminal: standard output is not one (use `wavedbg repl` or `wavedbg replay` for scripts)")]
    NotATerminal,
    /// Terminal I/O failed.
    #[error("terminal: {0}")]
    Io(#[from] std::io::Error),
    /// The `--record` script could not be created: the path is refused (a FIFO, the
    /// kernel...), or creating the file or writing its header (kernel, launch) failed.
    #[error(transparent)]
    Record(#[from] wavedbg_emulator::debug::session::RecorderError),
    /// The engine panicked while running a command (the panic was reported).
    #[error("the debug engine stopped unexpectedly while running `{0}`")]
    EngineLost(String),
}

/// How long the event loop waits for input while idle, and while a run is in progress
/// (the latter bounds how quickly progress and the run's end show up).
const IDLE_POLL: Duration = Duration::from_millis(250);
const BUSY_POLL: Duration = Duration::from_millis(30);

/// Runs the full-screen debugger on `engine` until the user quits.
///
/// Fails with [`TuiError::NotATerminal`] (before touching the terminal) when standard
/// output is not a terminal. The terminal is restored on return, on error and on panic.
///
/// SIGTERM or SIGHUP from outside (a `kill`, a closed terminal) also restore the
/// terminal, after stopping a run in progress; then the process ends by that signal, as if
/// it had not been caught (exit status 128 + the signal's number), and this never returns.
/// SIGINT from outside is Ctrl-C (it interrupts a run), as in gdb. SIGTSTP from outside
/// suspends it as Ctrl-Z does (the terminal restored until `fg`); after SIGSTOP, which
/// cannot be caught, SIGCONT sets the terminal up again and redraws it whole.
pub fn run(engine: Engine, options: TuiOptions) -> Result<(), TuiError> {
    if !std::io::stdout().is_terminal() {
        return Err(TuiError::NotATerminal);
    }
    let mut app = App::new(engine, &options)?;
    // The panic hook (chained in front of color-eyre's) is installed before raw mode, and
    // so are the signal handlers: no moment is left where a signal or a panic ends the
    // process with the terminal still set up.
    terminal::install_panic_hook();
    let signals = terminal::Signals::catch()?;
    let mut guard = terminal::Guard::enter()?;
    let result = event_loop(&mut guard, &mut app, &signals);
    app.shutdown();
    drop(guard);
    // Checked whatever the loop returned: after SIGHUP the terminal may be gone too.
    if let Some(signal) = signals.caught() {
        drop(app);
        terminal::end_by(signal);
    }
    result
}

fn event_loop(
    guard: &mut terminal::Guard,
    app: &mut App,
    signals: &terminal::Signals,
) -> Result<(), TuiError> {
    let mut dirty = true;
    // Drawing's caches live as long as the loop that draws.
    let mut drawn = ui::DrawState::default();
    // A caught signal is seen within one poll (`IDLE_POLL` at most).
    while !app.quit && signals.caught().is_none() {
        if app.tick()? {
            dirty = true;
        }
        if std::mem::take(&mut app.suspend) | signals.take_stop() {
            // Ctrl-Z or SIGTSTP: back here after `fg`, with the terminal set up and cleared.
            let stopped = std::time::Instant::now();
            guard.suspend()?;
            // The SIGCONT that ended the stop: the terminal is set up already.
            signals.take_continued();
            app.resumed_after(stopped.elapsed());
            dirty = true;
        }
        if signals.take_continued() {
            // Stopped without warning (SIGSTOP) and continued: the shell reset the
            // terminal meanwhile (cooked mode, main screen).
            guard.resume()?;
            dirty = true;
        }
        if std::mem::take(&mut app.redraw) {
            guard.clear()?;
            dirty = true;
        }
        if signals.take_interrupt() {
            // `kill -INT` is Ctrl-C, as in gdb: it interrupts a run and keeps the session.
            app.on_key(event::KeyEvent::new(
                event::KeyCode::Char('c'),
                event::KeyModifiers::CONTROL,
            ));
            dirty = true;
        }
        if !terminal::active() {
            // A panic elsewhere restored the terminal and reported itself; draw no more.
            return Err(TuiError::EngineLost("a command".into()));
        }
        if dirty {
            let terminal = guard.terminal();
            let mut hits = hits::HitMap::default();
            terminal.draw(|frame| hits = ui::draw(frame, app, &mut drawn))?;
            app.drawn(hits);
            dirty = false;
        }
        let wait = if app.is_running() {
            BUSY_POLL
        } else {
            IDLE_POLL
        };
        if event::poll(wait)? {
            // Drain what is queued before redrawing, so held keys do not lag.
            loop {
                match event::read()? {
                    Event::Key(k) => app.on_key(k),
                    Event::Mouse(m) => app.on_mouse(m),
                    Event::Resize(..) => guard.terminal().autoresize()?,
                    Event::Paste(text) => app.on_paste(&text),
                    _ => {}
                }
                if app.quit || !event::poll(Duration::ZERO)? {
                    break;
                }
            }
            dirty = true;
        }
    }
    Ok(())
}
