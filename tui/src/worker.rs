//! Runs command lines on a worker thread, so a long `continue` never freezes the screen.
//!
//! The worker owns the engine for the run and hands it back when done. `continue` runs in
//! slices: the UI interrupts the engine every [`SLICE`] to sample progress (instructions
//! executed, waves remaining), and the worker resumes it unless the user asked to stop. A
//! slice boundary is invisible in the result: the selection is kept, and the final stop is
//! the one an uninterrupted run reaches.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use wavedbg_emulator::debug::command::{self, Command, CommandError};
use wavedbg_emulator::debug::{view, CommandOutput, Engine, InterruptHandle, StopReason};
use wavedbg_emulator::machine::Machine;

/// How often a sliced run reports progress.
pub const SLICE: Duration = Duration::from_millis(100);

/// Progress of a run, as last sampled.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Wave-instructions executed since the launch.
    pub instructions: u64,
    /// Waves not yet exited (resident or still to be dispatched).
    pub waves_remaining: u64,
}

impl Progress {
    /// Samples `m`.
    pub fn of(m: &Machine) -> Progress {
        Progress {
            instructions: m.stats.wave_instructions,
            waves_remaining: waves_remaining(m),
        }
    }
}

/// Waves of the launch that have not exited: the resident ones still alive plus those of
/// workgroups not dispatched yet.
pub fn waves_remaining(m: &Machine) -> u64 {
    let total = m.launch().grid as u64 * m.launch().waves_per_workgroup() as u64;
    let alive = m.waves.iter().filter(|w| w.alive()).count() as u64;
    let gone = m.stats.waves_launched.saturating_sub(alive);
    total.saturating_sub(gone)
}

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

fn is_continue(line: &str) -> bool {
    matches!(command::parse(line), Ok(Some(Command::Continue)))
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
    progress: Arc<Mutex<Progress>>,
    /// The lines being run.
    pub lines: Vec<String>,
    /// When it started.
    pub started: Instant,
    last_slice: Instant,
    sliced: bool,
}

impl Job {
    /// Starts running `lines` on `engine` in a new thread.
    pub fn start(mut engine: Engine, lines: Vec<String>) -> Job {
        let (tx, rx) = mpsc::channel();
        let interrupt = engine.interrupt_handle();
        let user_stop = Arc::new(AtomicBool::new(false));
        let progress = Arc::new(Mutex::new(Progress::of(engine.machine())));
        let sliced = lines.iter().any(|l| is_continue(l));
        let (stop, prog, job_lines) = (user_stop.clone(), progress.clone(), lines.clone());
        let thread = std::thread::Builder::new()
            .name("wavedbg-engine".into())
            .spawn(move || {
                let results = job_lines
                    .iter()
                    .map(|line| {
                        let r = run_line(&mut engine, line, &stop, &prog);
                        (line.clone(), r)
                    })
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
            last_slice: Instant::now(),
            sliced,
        }
    }

    /// Asks the run to stop as soon as possible (within a few hundred instructions).
    pub fn interrupt(&self) {
        self.user_stop.store(true, Ordering::SeqCst);
        self.interrupt.interrupt();
    }

    /// Whether the job reports progress as it goes (it runs `continue` in slices).
    pub fn sliced(&self) -> bool {
        self.sliced
    }

    /// Whether the user asked the run to stop.
    pub fn stopping(&self) -> bool {
        self.user_stop.load(Ordering::SeqCst)
    }

    /// The last progress sample.
    pub fn progress(&self) -> Progress {
        self.progress.lock().map(|p| *p).unwrap_or_default()
    }

    /// Drives the job: interrupts for a progress sample when a slice is due, repeats a
    /// user's interrupt until it lands. Returns the result when the job is over, `Err` if
    /// the worker died (it panicked).
    pub fn poll(&mut self) -> Result<Option<Done>, WorkerLost> {
        match self.rx.try_recv() {
            Ok(done) => {
                if let Some(t) = self.thread.take() {
                    let _ = t.join();
                }
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
        if self.stopping() {
            // The worker may have been between slices when the first request came.
            self.interrupt.interrupt();
        } else if self.sliced && self.last_slice.elapsed() >= SLICE {
            self.last_slice = Instant::now();
            self.interrupt.interrupt();
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

fn run_line(
    engine: &mut Engine,
    line: &str,
    user_stop: &AtomicBool,
    progress: &Mutex<Progress>,
) -> Result<CommandOutput, CommandError> {
    let (wave, lane) = (engine.selected_wave, engine.selected_lane);
    let mut out = engine.execute_line(line)?;
    if !is_continue(line) {
        return Ok(out);
    }
    // A slice ended: sample progress and resume, unless the user interrupted.
    while out
        .stop
        .as_ref()
        .is_some_and(|s| s.reason == StopReason::Interrupted)
        && !user_stop.load(Ordering::SeqCst)
    {
        if let Ok(mut p) = progress.lock() {
            *p = Progress::of(engine.machine());
        }
        engine.selected_wave = wave;
        engine.selected_lane = lane;
        let stop = engine.continue_all();
        let mut text = view::describe_stop(engine, &stop);
        text.push('\n');
        text.push_str(&engine.display_text());
        out = CommandOutput {
            text,
            stop: Some(stop),
            expect: None,
        };
    }
    if let Ok(mut p) = progress.lock() {
        *p = Progress::of(engine.machine());
    }
    Ok(out)
}
