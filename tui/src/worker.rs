//! Runs command lines on a worker thread, so a long `continue` never freezes the screen.
//!
//! The worker owns the engine for the run and hands it back when done; the UI keeps the
//! engine's interrupt handle (Esc, Ctrl-C) and its progress handle (instructions executed,
//! waves remaining, published by the engine as it runs).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use wavedbg_emulator::debug::command::{self, Command, CommandError};
pub use wavedbg_emulator::debug::Progress;
use wavedbg_emulator::debug::{CommandOutput, Engine, InterruptHandle, ProgressHandle};

/// `stepi N` up to this many instructions runs at once on the UI thread (it takes well
/// under a millisecond), so keys pressed quickly (a held `s`) all count.
pub const QUICK_STEPS: u64 = 1000;

/// Whether a command line may run the machine for long (and so goes to the worker).
pub fn runs_machine(line: &str) -> bool {
    match command::parse(line) {
        Ok(Some(Command::Stepi(n))) => n > QUICK_STEPS,
        Ok(Some(
            Command::Continue | Command::Advance(_) | Command::AdvanceBarrier | Command::Finish,
        )) => true,
        _ => false,
    }
}

/// Whether a command line runs the machine at all (its stop updates change tracking).
pub fn moves_machine(line: &str) -> bool {
    matches!(
        command::parse(line),
        Ok(Some(
            Command::Continue
                | Command::Stepi(_)
                | Command::Advance(_)
                | Command::AdvanceBarrier
                | Command::Finish
        ))
    )
}

/// The worker thread died (the engine panicked; the panic hook reported it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkerLost;

/// What a finished job hands back.
#[derive(Debug)]
pub struct Done {
    /// The engine.
    pub engine: Engine,
    /// Each line with its result.
    pub results: Vec<(String, Result<CommandOutput, CommandError>)>,
}

/// A job in progress.
#[derive(Debug)]
pub struct Job {
    rx: Receiver<Done>,
    thread: Option<JoinHandle<()>>,
    interrupt: InterruptHandle,
    user_stop: Arc<AtomicBool>,
    progress: ProgressHandle,
    /// The lines being run.
    pub lines: Vec<String>,
    /// When it started.
    pub started: Instant,
}

impl Job {
    /// Starts running `lines` on `engine` in a new thread.
    pub fn start(mut engine: Engine, lines: Vec<String>) -> Job {
        let (tx, rx) = mpsc::channel();
        let interrupt = engine.interrupt_handle();
        let user_stop = Arc::new(AtomicBool::new(false));
        let progress = engine.progress_handle();
        let job_lines = lines.clone();
        let thread = std::thread::Builder::new()
            .name("wavedbg-engine".into())
            .spawn(move || {
                let results = job_lines
                    .iter()
                    .map(|line| (line.clone(), engine.execute_line(line)))
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
            lines,
            started: Instant::now(),
        }
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
