//! Running commands: on a worker thread when they may run the machine for long (the
//! screen stays live), at once otherwise; then taking in their output and stops.

use std::time::Duration;

use wavedbg_emulator::debug::command::{Command, CommandError};
use wavedbg_emulator::debug::{view, Blocked, CommandOutput, Engine, StopEvent, StopReason};
use wavedbg_emulator::machine::Machine;

use super::source::printable;
use super::state::{App, LineKind, Message, StatusKind};
use crate::worker::{self, Job, Planned, Progress};
use crate::TuiError;

impl App {
    /// Whether a job is running.
    pub fn is_running(&self) -> bool {
        self.job.is_some()
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
                let count = before.as_ref().map_or(0, |m| m.stats.wave_instructions);
                self.absorb(done.results, before, count);
                if self.confirm_quit {
                    self.confirm_quit = false;
                }
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

    /// Runs lines of the command language, each parsed once (see [`App::run`]).
    pub fn submit(&mut self, lines: &[&str]) {
        self.run(lines.iter().map(|l| Planned::parsed(l)).collect());
    }

    /// Runs typed commands, as keys build them (see [`App::run`]).
    pub fn submit_commands(&mut self, commands: Vec<Command>) {
        self.run(commands.into_iter().map(Planned::typed).collect());
    }

    /// Runs commands: each is echoed; if one may run the machine for long, they go to a
    /// worker thread (the UI stays live), otherwise they run now. Each is recorded when it
    /// has run (see [`App::absorb`]).
    pub(super) fn run(&mut self, commands: Vec<Planned>) {
        if self.is_running() {
            self.complain("A run is in progress (Esc interrupts it).");
            return;
        }
        for c in &commands {
            self.log(&format!("(wavedbg) {}", c.text), LineKind::Command);
        }
        let count = self.engine.machine().stats.wave_instructions;
        if commands.iter().any(Planned::runs_machine) {
            self.job_before = Some(self.engine.machine().clone());
            let texts: Vec<&str> = commands.iter().map(|c| c.text.as_str()).collect();
            let running = format!("Running `{}`... (Esc interrupts)", texts.join("; "));
            let engine = self.engine.clone();
            self.job = Some(Job::start(engine, commands));
            self.say(running);
        } else {
            let before = commands
                .iter()
                .any(Planned::moves_machine)
                .then(|| self.engine.machine().clone());
            let results = commands
                .into_iter()
                .map(|c| {
                    let result = c.run(&mut self.engine);
                    (c, result)
                })
                .collect();
            self.absorb(results, before, count);
        }
    }

    /// Takes in the results of command lines; `count` is the launch's instruction count
    /// before the first ran.
    ///
    /// Each goes into the `--record` script as the REPL records it
    /// ([`Recorder::record_outcome`](wavedbg_emulator::debug::session::Recorder::record_outcome)):
    /// a command that failed is left out and an interrupted run is written as the command
    /// that stops where it stopped, so the script replays to success.
    pub(super) fn absorb(
        &mut self,
        results: Vec<(Planned, Result<CommandOutput, CommandError>)>,
        before: Option<Machine>,
        mut count: u64,
    ) {
        let mut stopped = false;
        let mut relaunched = false;
        let mut last: Option<Message> = None;
        let mut record_error = None;
        for (planned, result) in results {
            if planned.relaunches() {
                relaunched = true;
            }
            if let Some(r) = self.recorder.as_mut() {
                let cmd = planned.command.as_ref().ok().and_then(Option::as_ref);
                if let Err(e) = r.record_outcome(&self.engine, &planned.text, cmd, count, &result) {
                    self.recorder = None;
                    record_error = Some(format!("recording stopped: {e}"));
                }
            }
            if let Some(stop) = result.as_ref().ok().and_then(|o| o.stop.as_ref()) {
                count = stop.instructions;
            } else if planned.relaunches() && result.is_ok() {
                count = 0;
            }
            match result {
                Ok(out) => {
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
                        let more = if extra > 0 && out.stop.is_none() {
                            format!("  (+{extra} lines in the console)")
                        } else {
                            String::new()
                        };
                        last = Some(Message {
                            text: printable(&format!("{}{more}", first.trim())),
                            error: failed,
                        });
                    }
                }
                Err(e) => {
                    let text = format!("error: {e}");
                    self.log(&text, LineKind::Error);
                    last = Some(Message {
                        text: printable(text.lines().next().unwrap_or_default()),
                        error: true,
                    });
                }
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
            self.complain(e);
        }
        let nbp = self.engine.breakpoints().len() + self.engine.watchpoints().len();
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
        | StopReason::BreakInstruction => StatusKind::Hit,
        StopReason::Finished => StatusKind::Finished,
        // Time travel at the start of the history stops like a step.
        StopReason::Blocked(Blocked::HistoryStart) => StatusKind::Stopped,
        StopReason::Fault(_)
        | StopReason::Deadlock(_)
        | StopReason::Blocked(_)
        | StopReason::Terminated(_)
        | StopReason::ConditionError { .. } => StatusKind::Problem,
        StopReason::Step | StopReason::Reached(_) | StopReason::Interrupted => StatusKind::Stopped,
    };
    (lines.join("  |  "), kind)
}
