//! Running commands: on a worker thread when they may run the machine for long (the
//! screen stays live), at once otherwise; then taking in their output and stops.

use std::time::Duration;

use wavedbg_emulator::debug::command::Command;
use wavedbg_emulator::debug::driver::{Input, Outcome, Plan, NOT_CONFIRMED};
use wavedbg_emulator::debug::{view, Blocked, Engine, Reached, StopEvent, StopReason};
use wavedbg_emulator::machine::Machine;

use super::source::printable;
use super::state::{App, Entry, LineKind, Message, Question, StatusKind};
use crate::worker::{self, Item, Job, Progress, Step};
use crate::TuiError;

impl App {
    /// Whether a job is running.
    pub fn is_running(&self) -> bool {
        self.job.is_some()
    }

    /// The process was suspended (Ctrl-Z) for `stopped`, the engine's thread with it: the
    /// running job's elapsed time on the status line leaves that time out.
    pub fn resumed_after(&mut self, stopped: Duration) {
        if let Some(job) = self.job.as_mut() {
            job.started += stopped;
        }
    }

    /// Progress of the running job.
    pub fn progress(&self) -> Option<Progress> {
        self.job.as_ref().map(Job::progress)
    }

    /// Drives a running job; returns whether anything changed (always while running, so
    /// the progress on the status line moves).
    pub fn tick(&mut self) -> Result<bool, TuiError> {
        let Some(job) = self.job.as_mut() else {
            return Ok(false);
        };
        match job.poll() {
            Ok(None) => Ok(true),
            Ok(Some(done)) => {
                self.job = None;
                self.engine = done.engine;
                let before = self.job_before.take();
                self.absorb(done.results, before);
                if self.confirm_quit {
                    self.confirm_quit = false;
                }
                self.drain_typeahead();
                Ok(true)
            }
            Err(worker::WorkerLost) => {
                let text = job.text();
                self.job = None;
                Err(TuiError::EngineLost(text))
            }
        }
    }

    /// Waits until the running job (if any) is over, at most `timeout`.
    pub fn wait_idle(&mut self, timeout: Duration) -> Result<(), TuiError> {
        let deadline = std::time::Instant::now() + timeout;
        while self.is_running() && std::time::Instant::now() < deadline {
            self.tick()?;
            std::thread::sleep(Duration::from_millis(1));
        }
        Ok(())
    }

    /// Stops a running job before exiting (interrupts it and waits briefly).
    pub fn shutdown(&mut self) {
        if let Some(job) = self.job.as_mut() {
            job.interrupt();
            let _ = job.wait(Duration::from_secs(2));
        }
        self.job = None;
    }

    /// Interrupts a run in progress.
    pub fn interrupt(&mut self) {
        if let Some(job) = &self.job {
            job.interrupt();
            self.say("Interrupting...");
        }
    }

    /// Runs lines of the command language, each planned by the driver (parsed once; an
    /// empty line repeats, a quit word asks to quit, `run` may ask first), see
    /// [`App::plan_batch`].
    pub fn submit(&mut self, lines: &[&str]) {
        let entries = lines.iter().map(|l| Entry::Line(l.to_string())).collect();
        self.plan_batch(Vec::new(), entries);
    }

    /// Runs typed commands, as keys build them, through the driver as lines go (Ctrl-R's
    /// `restart` may ask first), see [`App::plan_batch`].
    pub fn submit_commands(&mut self, commands: Vec<Command>) {
        let entries = commands.into_iter().map(Entry::Command).collect();
        self.plan_batch(Vec::new(), entries);
    }

    /// Plans `entries` after the `items` of their batch planned already, then runs the
    /// batch ([`App::run`]). A command the driver asks about ([`Plan::Confirm`]) stops the
    /// planning there: its question waits for a key, holding the batch around it, and
    /// the answer goes on ([`App::answer`]). Every command of a batch is planned, and so
    /// judged, as the engine is before any of it runs.
    pub(super) fn plan_batch(&mut self, mut items: Vec<Item>, entries: Vec<Entry>) {
        let mut entries = entries.into_iter();
        while let Some(entry) = entries.next() {
            let input = match &entry {
                Entry::Line(line) => Input::Line(line),
                Entry::Command(c) => Input::Command(c.clone()),
            };
            match self.driver.plan(&self.engine, input) {
                Plan::Run(p) => items.push(Item::Run(p)),
                Plan::Confirm { question, planned } => {
                    if self.is_running() {
                        // A batch is refused whole while a run has the engine.
                        self.refuse_busy();
                    } else {
                        self.question = Some(Question {
                            text: question,
                            planned,
                            before: items,
                            after: entries.collect(),
                        });
                    }
                    return;
                }
                Plan::Invalid { text, error } => items.push(Item::Invalid { text, error }),
                Plan::Quit => self.request_quit(),
                Plan::Nothing => {}
            }
        }
        self.run(items);
    }

    /// The answer to the question: on a yes its command runs with the rest of its batch;
    /// on anything else the batch goes on without it, and the console and the message
    /// line say [`NOT_CONFIRMED`], as gdb does.
    pub(super) fn answer(&mut self, yes: bool) {
        let Some(q) = self.question.take() else {
            return;
        };
        let mut items = q.before;
        if yes {
            items.push(Item::Run(q.planned));
        } else {
            self.log(&format!("(wavedbg) {}", q.planned.text), LineKind::Command);
            self.log(NOT_CONFIRMED, LineKind::Output);
            self.say(NOT_CONFIRMED);
        }
        self.plan_batch(items, q.after);
    }

    /// Runs commands: each is echoed; if one may run the machine for long, they go to a
    /// worker thread (the UI stays live), otherwise they run now. Each is recorded when it
    /// has run (see [`App::absorb`]).
    pub(super) fn run(&mut self, commands: Vec<Item>) {
        if commands.is_empty() {
            return;
        }
        if self.is_running() {
            // `interrupt` is what the command line can do to a run, as Esc does.
            let interrupts = commands
                .iter()
                .all(|c| matches!(c, Item::Run(p) if matches!(p.command, Command::Interrupt)));
            if interrupts {
                for c in &commands {
                    self.log(&format!("(wavedbg) {}", c.text()), LineKind::Command);
                }
                self.interrupt();
            } else {
                self.refuse_busy();
            }
            return;
        }
        for c in &commands {
            self.log(&format!("(wavedbg) {}", c.text()), LineKind::Command);
        }
        if commands.iter().any(Item::runs_machine) {
            self.job_before = Some(self.engine.machine().clone());
            let texts: Vec<&str> = commands.iter().map(Item::text).collect();
            let running = format!("Running `{}`... (Esc interrupts)", texts.join("; "));
            let engine = self.engine.clone();
            self.job = Some(Job::start(engine, commands));
            self.say(running);
        } else {
            let before = commands
                .iter()
                .any(Item::moves_machine)
                .then(|| self.engine.machine().clone());
            let wave = self.engine.selected_wave;
            let results = commands
                .into_iter()
                .map(|c| c.run(&mut self.engine))
                .collect();
            self.absorb(results, before);
            // Another wave selected (`wave N`, a key): the code views go to its PC.
            if self.engine.selected_wave != wave {
                self.follow_pc();
            }
        }
    }

    /// Takes in the results of commands, in order.
    ///
    /// Each goes through
    /// [`Driver::finish`](wavedbg_emulator::debug::driver::Driver::finish), which records it into the `--record` script
    /// as the REPL records it: a command that failed is left out and an interrupted run is
    /// written as the command that stops where it stopped, so the script replays to
    /// success.
    pub(super) fn absorb(&mut self, results: Vec<Step>, before: Option<Machine>) {
        let mut stopped = false;
        let mut relaunched = false;
        let mut last: Option<Message> = None;
        let mut record_error = None;
        for step in results {
            let (outcome, lost) = match step {
                Step::Ran(planned, ran) => {
                    // Only a relaunch that happened: a `load` of a broken file fails and
                    // leaves the launch as it was.
                    if planned.command.relaunches() && ran.result.is_ok() {
                        relaunched = true;
                    }
                    self.driver.finish(&self.engine, planned, *ran)
                }
                Step::Invalid { text, error } => (Outcome::Invalid { text, error }, None),
            };
            if let Some(e) = lost {
                record_error = Some(format!("recording stopped: {e}"));
            }
            match outcome.result() {
                Some(Ok(out)) => {
                    self.log(&out.text, LineKind::Output);
                    if let Some(stop) = &out.stop {
                        stopped = true;
                        self.status = stop_status(&self.engine, stop);
                    }
                    let failed = out.expect.as_ref().is_some_and(|e| !e.passed);
                    if out.stop.is_some() {
                        // The status line shows the stop.
                        last = None;
                    } else if let Some(first) = out.text.lines().find(|l| !l.trim().is_empty()) {
                        let extra = out.text.lines().count().saturating_sub(1);
                        let more = if extra > 0 {
                            format!("  (+{} in the console)", view::count(extra as u64, "line"))
                        } else {
                            String::new()
                        };
                        last = Some(Message {
                            text: printable(&format!("{}{more}", first.trim())),
                            error: failed,
                        });
                    }
                }
                Some(Err(e)) => {
                    let text = format!("error: {e}");
                    self.log(&text, LineKind::Error);
                    last = Some(Message {
                        text: printable(text.lines().next().unwrap_or_default()),
                        error: true,
                    });
                }
                None => {}
            }
        }
        if stopped {
            if let Some(b) = before {
                self.baseline = b;
            }
        }
        if relaunched {
            self.baseline = self.engine.machine().clone();
            if !stopped {
                self.status = (
                    "Restarted: every wave at the start.".to_string(),
                    StatusKind::Ready,
                );
            }
        }
        if stopped || relaunched {
            self.follow_pc();
            self.activity.sample(self.engine.machine());
            // The resident waves (`wave N` completes their ids) change as the launch runs.
            self.words.refresh(&self.engine);
        }
        if stopped {
            self.show_changed_regs();
        }
        self.message = last;
        if let Some(e) = record_error {
            // In the console too, and the status line keeps saying so: the rest of the
            // session is not in the script.
            self.log(&format!("warning: {e}"), LineKind::Error);
            self.complain(&e);
            self.recording_lost = Some(e);
        }
        let nbp = self.breakpoints_entries();
        self.breakpoints.cursor = self.breakpoints.cursor.min(nbp.saturating_sub(1));
    }
}

/// The status line for a stop: the stop's description on one line.
pub(super) fn stop_status(e: &Engine, stop: &StopEvent) -> (String, StatusKind) {
    let text = view::describe_stop(e, stop);
    let lines: Vec<String> = text
        .lines()
        .map(|l| printable(l.trim()))
        .filter(|l| !l.is_empty())
        .collect();
    let kind = match stop.reason {
        StopReason::Breakpoint { .. }
        | StopReason::Watchpoint(_)
        | StopReason::Finding(_)
        | StopReason::Reached(Reached::Finding { .. })
        | StopReason::BreakInstruction => StatusKind::Hit,
        StopReason::Finished => StatusKind::Finished,
        // Time travel at the start of the history stops like a step.
        StopReason::Blocked(Blocked::HistoryStart) => StatusKind::Stopped,
        StopReason::Fault(_)
        | StopReason::Deadlock(_)
        | StopReason::Deadlocked(_)
        | StopReason::Blocked(_)
        | StopReason::Terminated(_)
        | StopReason::ConditionError { .. } => StatusKind::Problem,
        StopReason::Step | StopReason::Reached(_) | StopReason::Interrupted => StatusKind::Stopped,
    };
    (lines.join("  |  "), kind)
}
