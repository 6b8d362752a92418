//! Terminal setup and restoration: raw mode, the alternate screen and mouse capture are
//! undone on every way out (return, error, panic, and SIGTERM or SIGHUP, which
//! [`Signals`] turns into a request to quit, with a watchdog should the loop not answer),
//! and while the process is suspended (Ctrl-Z, or SIGTSTP from outside: [`Guard::suspend`]).
//! SIGINT from outside is Ctrl-C ([`Signals::take_interrupt`], as in gdb), and SIGCONT
//! after a stop the program did not see coming (SIGSTOP) sets the terminal up again
//! ([`Signals::take_continued`], [`Guard::resume`]).

use std::io::{self, Read, Stdout};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex, Once, PoisonError};
use std::time::Duration;

use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use ratatui::crossterm::terminal::{self as ct, EnterAlternateScreen, LeaveAlternateScreen};
use ratatui::crossterm::{cursor, execute};
use ratatui::Terminal;
use signal_hook::consts::{SIGCONT, SIGHUP, SIGINT, SIGTERM, SIGTSTP};
use signal_hook::flag;

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

/// Enters raw mode, the alternate screen, mouse capture and bracketed paste (restoring
/// the terminal if that fails half-way).
fn set_up() -> io::Result<()> {
    ACTIVE.store(true, Ordering::SeqCst);
    let setup = || -> io::Result<()> {
        ct::enable_raw_mode()?;
        execute!(
            io::stdout(),
            EnterAlternateScreen,
            EnableMouseCapture,
            EnableBracketedPaste
        )
    };
    setup().inspect_err(|_| restore())
}

impl Guard {
    /// Enters raw mode, the alternate screen and mouse capture.
    pub fn enter() -> io::Result<Guard> {
        set_up()?;
        let setup = || -> io::Result<Terminal<CrosstermBackend<Stdout>>> {
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

    /// Ctrl-Z, or SIGTSTP from outside: restores the terminal (as on the way out), stops
    /// the process as a shell's job control expects, and once it is continued (`fg`,
    /// SIGCONT) sets the terminal up again and clears it, so the next frame is drawn whole.
    pub fn suspend(&mut self) -> io::Result<()> {
        restore();
        // SIGTSTP's default action (SIGTSTP itself is caught while the TUI runs:
        // [`Signals::take_stop`]) stops the process here; this returns once it is
        // continued.
        signal_hook::low_level::emulate_default_handler(SIGTSTP)?;
        self.resume()
    }

    /// SIGCONT after a stop the TUI could not prepare for (SIGSTOP, which cannot be
    /// caught): the shell took the terminal back meanwhile and reset it (cooked mode,
    /// echo), so raw mode, the alternate screen, mouse capture and bracketed paste are
    /// set up again, whatever crossterm believes, and the screen is cleared for a whole
    /// frame.
    pub fn resume(&mut self) -> io::Result<()> {
        // crossterm keeps raw mode's "before" state and will not enter raw mode again
        // while it holds one: give it back (the terminal is cooked already) to forget it.
        let _ = ct::disable_raw_mode();
        set_up()?;
        // The screen may have changed size while stopped.
        self.terminal.autoresize()?;
        self.clear()
    }

    /// Ctrl-L: clears the terminal, so the next frame is drawn whole (ratatui otherwise
    /// draws only what changed since the frame it believes is on screen).
    pub fn clear(&mut self) -> io::Result<()> {
        self.terminal.clear()
    }

    /// The terminal to draw on (stdout, in raw mode on the alternate screen).
    pub fn terminal(&mut self) -> &mut Terminal<CrosstermBackend<Stdout>> {
        &mut self.terminal
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

/// The signals that would end the process with the terminal still set up. (Ctrl-C typed in
/// the TUI is not among them: raw mode turns it into a key; and SIGINT from outside is
/// taken as that key, [`Signals::take_interrupt`].)
const TERMINATING: [i32; 2] = [SIGTERM, SIGHUP];

/// How long the event loop has, after a signal, to quit and restore the terminal before the
/// watchdog does it: the loop sees the request within a poll and stops a run at once.
const GRACE: Duration = Duration::from_secs(2);

/// The flags the signal handlers set, registered once per process (signal-hook cannot
/// truly unregister: its handler stays and would swallow the signal).
struct Flags {
    /// When set, a signal gets its default action at once: outside the TUI, and for a
    /// second signal while the first is being handled (so a stuck TUI still dies).
    default_action: Arc<AtomicBool>,
    /// The signal caught (0: none).
    caught: Arc<AtomicUsize>,
    /// SIGTSTP came from outside (a `kill -TSTP`; Ctrl-Z typed in the TUI is a key in raw
    /// mode): the event loop suspends as for Ctrl-Z, restoring the terminal first.
    stop: Arc<AtomicBool>,
    /// SIGINT came from outside (a `kill -INT`): the event loop takes it as Ctrl-C, as gdb
    /// does (a run is interrupted; the TUI stays).
    interrupt: Arc<AtomicBool>,
    /// SIGCONT came: the process was stopped, perhaps by SIGSTOP, which it cannot catch, and
    /// the shell may have reset the terminal meanwhile.
    continued: Arc<AtomicBool>,
}

impl Flags {
    fn register() -> io::Result<Flags> {
        let flags = Flags {
            default_action: Arc::new(AtomicBool::new(true)),
            caught: Arc::new(AtomicUsize::new(0)),
            stop: Arc::new(AtomicBool::new(false)),
            interrupt: Arc::new(AtomicBool::new(false)),
            continued: Arc::new(AtomicBool::new(false)),
        };
        let (wake_rx, wake_tx) = UnixStream::pair()?;
        for signal in TERMINATING {
            // In this order (signal-hook runs actions in registration order): the default
            // action if it is due, else arm it for the next signal, record which one came
            // and wake the watchdog. Only atomic stores and a pipe write run in the handler.
            flag::register_conditional_default(signal, flags.default_action.clone())?;
            flag::register(signal, flags.default_action.clone())?;
            flag::register_usize(signal, flags.caught.clone(), signal as usize)?;
            signal_hook::low_level::pipe::register(signal, wake_tx.try_clone()?)?;
        }
        // SIGTSTP: its default action outside the TUI; in it, a request the event loop
        // answers within a poll (left to its default, the process would stop with the
        // terminal still set up, and come back from `fg` with it reset by the shell).
        flag::register_conditional_default(SIGTSTP, flags.default_action.clone())?;
        flag::register(SIGTSTP, flags.stop.clone())?;
        // SIGINT: its default action outside the TUI; in it, Ctrl-C.
        flag::register_conditional_default(SIGINT, flags.default_action.clone())?;
        flag::register(SIGINT, flags.interrupt.clone())?;
        // SIGCONT continues the process whatever its handlers do; this only tells the loop.
        flag::register(SIGCONT, flags.continued.clone())?;
        let caught = flags.caught.clone();
        std::thread::Builder::new()
            .name("wavedbg-signals".into())
            .spawn(move || watchdog(wake_rx, &caught))?;
        Ok(flags)
    }
}

/// Ends the process if the event loop has not done so within [`GRACE`] of a signal. The
/// loop can miss the request: once the terminal is hung up (closed), crossterm's (seen with 0.28)
/// `event::poll` keeps retrying reads that return nothing and never comes back.
fn watchdog(mut wake: UnixStream, caught: &AtomicUsize) {
    let mut byte = [0u8; 1];
    loop {
        match wake.read(&mut byte) {
            Ok(0) => return,
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        }
        std::thread::sleep(GRACE);
        let signal = caught.load(Ordering::SeqCst);
        let Ok(signal @ 1..) = i32::try_from(signal) else {
            continue;
        };
        // The terminal may be stuck too (a full, unread pty): restore from another thread
        // and give up on it after a moment rather than hang here.
        let (done_tx, done_rx) = mpsc::channel();
        let restorer = std::thread::Builder::new().spawn(move || {
            restore();
            let _ = done_tx.send(());
        });
        if restorer.is_ok() {
            let _ = done_rx.recv_timeout(Duration::from_millis(500));
        }
        end_by(signal);
    }
}

/// SIGTERM and SIGHUP caught while the TUI runs: instead of ending the process with
/// the terminal in raw mode and the alternate screen, each is recorded for the event loop,
/// which quits so the terminal is restored, and then [`end_by`] ends the process with it.
/// Dropping this gives the signals their default action back.
pub struct Signals {
    flags: Arc<Flags>,
}

impl Signals {
    /// Starts catching the signals (registering the handlers on the first call of the
    /// process; later calls re-arm them).
    pub fn catch() -> io::Result<Signals> {
        static FLAGS: Mutex<Option<Arc<Flags>>> = Mutex::new(None);
        let mut registered = FLAGS.lock().unwrap_or_else(PoisonError::into_inner);
        let flags = match registered.as_ref() {
            Some(f) => f.clone(),
            None => registered.insert(Arc::new(Flags::register()?)).clone(),
        };
        flags.caught.store(0, Ordering::SeqCst);
        flags.stop.store(false, Ordering::SeqCst);
        flags.interrupt.store(false, Ordering::SeqCst);
        flags.continued.store(false, Ordering::SeqCst);
        flags.default_action.store(false, Ordering::SeqCst);
        Ok(Signals { flags })
    }

    /// Whether SIGTSTP came from outside since the last call (the request is taken).
    pub fn take_stop(&self) -> bool {
        self.flags.stop.swap(false, Ordering::SeqCst)
    }

    /// Whether SIGINT came from outside since the last call (the request is taken).
    pub fn take_interrupt(&self) -> bool {
        self.flags.interrupt.swap(false, Ordering::SeqCst)
    }

    /// Whether SIGCONT came since the last call (the request is taken).
    pub fn take_continued(&self) -> bool {
        self.flags.continued.swap(false, Ordering::SeqCst)
    }

    /// The number of the first signal caught since [`Signals::catch`], if any.
    pub fn caught(&self) -> Option<i32> {
        match self.flags.caught.load(Ordering::SeqCst) {
            0 => None,
            n => i32::try_from(n).ok(),
        }
    }
}

impl Drop for Signals {
    fn drop(&mut self) {
        self.flags.default_action.store(true, Ordering::SeqCst);
    }
}

/// Ends the process by `signal` with its default action, as if it had not been caught, so
/// the parent sees the conventional status (a shell shows 128 + the signal's number). Call
/// it after the terminal is restored.
pub fn end_by(signal: i32) -> ! {
    let _ = signal_hook::low_level::emulate_default_handler(signal);
    // Not reached for the terminating signals; the shell's status, should it be.
    std::process::exit(128 + signal)
}
