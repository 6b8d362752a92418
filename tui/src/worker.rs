//! Runs commands on a worker thread, so a long `continue` never freezes the screen.
//!
//! The worker owns the engine for the run and hands it back when done; the UI keeps the
//! engine's interrupt handle (Esc, Ctrl-C) and its progress handle (instructions executed,
//! waves remaining, published by the engine as it runs).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use wavedbg_emulator::debug::command::{Command, CommandError};
use wavedbg_emulator::debug::driver::{Planned, Ran};
pub use wavedbg_emulator::debug::Progress;
use wavedbg_emulator::debug::{Engine, InterruptHandle, ProgressHandle};

/// `stepi N` up to this many instructions runs at once on the UI thread (it takes well
/// under a millisecond), so keys pressed quickly (a held `s`) all count.
pub const QUICK_STEPS: u64 = 1000;

/// One item of a batch the command line or a key submitted, in order: a command
/// planned by the driver, or a line that is not a command (shown as an error in its
/// place).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// A command to run.
    Run(Planned),
    /// A line that did not parse.
    Invalid {
        /// The line as typed.
        text: String,
        /// Why it is not a command.
        error: CommandError,
    },
}

impl Item {
    /// The text it is echoed as.
    pub fn text(&self) -> &str {
        match self {
            Item::Run(p) => &p.text,
            Item::Invalid { text, .. } => text,
        }
    }

    fn command(&self) -> Option<&Command> {
        match self {
            Item::Run(p) => Some(&p.command),
            Item::Invalid { .. } => None,
        }
    }

    /// Whether it may run the machine for long (and so goes to the worker).
    pub fn runs_machine(&self) -> bool {
        self.command()
            .is_some_and(|c| c.runs_machine() && c.step_count().is_none_or(|n| n > QUICK_STEPS))
    }

    /// Whether it runs the machine at all (its stop updates change tracking).
    pub fn moves_machine(&self) -> bool {
        self.command().is_some_and(Command::runs_machine)
    }

    /// Runs it on `engine` (where the engine is: the UI thread or the worker).
    pub fn run(self, engine: &mut Engine) -> Step {
        match self {
            Item::Run(planned) => {
                let ran = planned.run(engine);
                Step::Ran(planned, Box::new(ran))
            }
            Item::Invalid { text, error } => Step::Invalid { text, error },
        }
    }
}

/// An item after it ran.
#[derive(Debug)]
pub enum Step {
    /// A command and what it gave (boxed: a stop event is large).
    Ran(Planned, Box<Ran>),
    /// A line that did not parse.
    Invalid {
        /// The line as typed.
        text: String,
        /// Why it is not a command.
        error: CommandError,
    },
}

/// The worker thread died (the engine panicked; the panic hook reported it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkerLost;

/// What a finished job hands back.
#[derive(Debug)]
pub struct Done {
    /// The engine.
    pub engine: Engine,
    /// Each item after it ran, in order.
    pub results: Vec<Step>,
}

/// A job in progress.
#[derive(Debug)]
pub struct Job {
    rx: Receiver<Done>,
    thread: Option<JoinHandle<()>>,
    interrupt: InterruptHandle,
    user_stop: Arc<AtomicBool>,
    progress: ProgressHandle,
    /// The items being run.
    pub commands: Vec<Item>,
    /// When it started.
    pub started: Instant,
}

impl Job {
    /// Starts running `commands` on `engine` in a new thread.
    pub fn start(mut engine: Engine, commands: Vec<Item>) -> Job {
        let (tx, rx) = mpsc::channel();
        let interrupt = engine.interrupt_handle();
        let user_stop = Arc::new(AtomicBool::new(false));
        let progress = engine.progress_handle();
        let job_commands = commands.clone();
        let thread = std::thread::Builder::new()
            .name("wavedbg-engine".into())
            .spawn(move || {
                let results = job_commands
                    .into_iter()
                    .map(|c| c.run(&mut engine))
                    .collect();
                let _ = tx.send(Done { engine, results });
            });
        // Without a thread the job reports itself lost (the channel closes at once).
        let thread = thread.ok();
        Job {
            rx,
            thread,
            interrupt,
            user_stop,
            progress,
            commands,
            started: Instant::now(),
        }
    }

    /// The commands' text, separated by `; `.
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self.commands.iter().map(Item::text).collect();
        texts.join("; ")
    }

    /// Asks the run to stop as soon as possible (within a few hundred instructions).
    pub fn interrupt(&self) {
        self.user_stop.store(true, Ordering::SeqCst);
        self.interrupt.interrupt();
    }

    /// Whether the user asked the run to stop.
    pub fn stopping(&self) -> bool {
        self.user_stop.load(Ordering::SeqCst)
    }

    /// The last progress sample.
    pub fn progress(&self) -> Progress {
        self.progress.get()
    }

    /// Returns the result when the job is over, `Err` if the worker died (it panicked).
    pub fn poll(&mut self) -> Result<Option<Done>, WorkerLost> {
        match self.rx.try_recv() {
            Ok(done) => {
                if let Some(t) = self.thread.take() {
                    let _ = t.join();
                }
                // A request that came as the run ended by itself must not stop the next one.
                self.interrupt.cancel();
                return Ok(Some(done));
            }
            Err(TryRecvError::Disconnected) => {
                if let Some(t) = self.thread.take() {
                    let _ = t.join();
                }
                return Err(WorkerLost);
            }
            Err(TryRecvError::Empty) => {}
        }
        Ok(None)
    }

    /// Waits for the job to finish (at most `timeout`).
    pub fn wait(&mut self, timeout: Duration) -> Result<Option<Done>, WorkerLost> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(done) = self.poll()? {
                return Ok(Some(done));
            }
            if Instant::now() >= deadline {
                return Ok(None);
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}
