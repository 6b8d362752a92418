//! Terminal setup and restoration: raw mode, the alternate screen and mouse capture are
//! undone on every way out (return, error, panic).

use std::io::{self, Stdout};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::terminal::{self as ct, EnterAlternateScreen, LeaveAlternateScreen};
use crossterm::{cursor, execute};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

/// Whether the terminal is currently set up by us (the panic hook restores it only then).
static ACTIVE: AtomicBool = AtomicBool::new(false);
static HOOK: Once = Once::new();

/// Puts the terminal back: leaves raw mode and the alternate screen, shows the cursor.
/// Does nothing unless [`Guard::enter`] set it up.
pub fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let _ = ct::disable_raw_mode();
        let _ = execute!(
            io::stdout(),
            DisableBracketedPaste,
            DisableMouseCapture,
            LeaveAlternateScreen,
            cursor::Show
        );
    }
}

/// Whether the terminal is still set up (a panic on the engine thread restores it).
pub fn active() -> bool {
    ACTIVE.load(Ordering::SeqCst)
}

/// Installs (once) a panic hook that restores the terminal and then runs the hook that was
/// there before (color-eyre's, installed by the `wavedbg` binary at start-up), so the
/// report lands on a usable screen.
pub fn install_panic_hook() {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}

/// The terminal in full-screen mode; dropping it restores the terminal.
pub struct Guard {
    terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl Guard {
    /// Enters raw mode, the alternate screen and mouse capture.
    pub fn enter() -> io::Result<Guard> {
        ACTIVE.store(true, Ordering::SeqCst);
        let setup = || -> io::Result<Terminal<CrosstermBackend<Stdout>>> {
            ct::enable_raw_mode()?;
            execute!(
                io::stdout(),
                EnterAlternateScreen,
                EnableMouseCapture,
                EnableBracketedPaste
            )?;
            let mut t = Terminal::new(CrosstermBackend::new(io::stdout()))?;
            t.clear()?;
            Ok(t)
        };
        match setup() {
            Ok(terminal) => Ok(Guard { terminal }),
            Err(e) => {
                restore();
                Err(e)
            }
        }
    }

    /// The terminal to draw on.
    pub fn terminal(&mut self) -> &mut Terminal<CrosstermBackend<Stdout>> {
        &mut self.terminal
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}
