//! From the engine's typed stop to the protocol's events: `stopped` with its reason
//! (breakpoint, data breakpoint, step, pause, exception with the engine's text), `output`
//! with the stop's description, `thread` for waves that came and went, and `exited` with
//! `terminated` when the launch is over.

use std::io::Write;

use wavedbg_emulator::debug::command::Command;
use wavedbg_emulator::debug::driver::{Plan, Planned};
use wavedbg_emulator::debug::expr::ParsedExpr;
use wavedbg_emulator::debug::{StopEvent, StopReason};

use crate::protocol::WireError;
use crate::session::Session;
use crate::types::{ContinuedEventBody, ExitedEventBody, StoppedEventBody};

/// What follows a reported stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum After {
    /// The client was told; wait for its next request.
    Told,
    /// The stop is not the client's to see (a logpoint, a fault with the `faults` filter
    /// off): continue.
    Continue,
}

/// Whether a run-control command runs every wave (not the selected wave alone), as a
/// `continued` event says.
fn runs_all_waves(command: &Command) -> bool {
    !matches!(
        command,
        Command::Stepi(_)
            | Command::StepiAlone(_)
            | Command::Step(_)
            | Command::Next(_)
            | Command::ReverseStepi(_)
            | Command::ReverseStep(_)
            | Command::ReverseNext(_)
            | Command::Finish
    )
}

/// The thread id of a wave's global id.
pub(crate) fn thread_id(wave_id: u32) -> i64 {
    i64::from(wave_id) + 1
}

impl<W: Write> Session<W> {
    /// Runs a run-control command and reports its stop; logpoints and ignored faults
    /// continue, until a stop the client sees (or a pause). `console`: the debug console
    /// started it, so the client hears `continued` (a `continue` request's response says
    /// it already).
    pub(crate) fn run(&mut self, first: Planned, console: bool) -> Result<(), WireError> {
        if self.pause_pending() {
            // A pause (terminate, restart, disconnect) came after this request: the
            // client wants the machine stopped, so nothing runs and the pause's response
            // comes next instead of waiting behind a new run. Before the end of the
            // launch (terminate, disconnect) no stop is reported: the end is.
            if self.ending() {
                return Ok(());
            }
            let text = "Not run: a pause came after the request.\n";
            self.thread_events()?;
            self.output("console", text)?;
            let thread = self.selected_thread();
            return self.stopped("pause", thread, Some(text.trim_end().into()), Vec::new());
        }
        if console {
            let body = ContinuedEventBody {
                thread_id: self.selected_thread().unwrap_or(1),
                all_threads_continued: runs_all_waves(&first.command),
            };
            self.event("continued", Some(body))?;
        }
        let mut planned = first;
        loop {
            match self.execute_plan(Plan::Run(planned)) {
                // Interrupted by `terminate` or `disconnect`: the end of the launch is
                // reported, not a pause.
                Ok(output)
                    if self.ending()
                        && output
                            .stop
                            .as_ref()
                            .is_some_and(|s| matches!(s.reason, StopReason::Interrupted)) =>
                {
                    return Ok(());
                }
                Ok(output) => match output.stop {
                    Some(stop) => {
                        if self.report(&stop, &output.text)? == After::Told {
                            return Ok(());
                        }
                        if self.pause_pending() {
                            let thread = stop.wave_id.map(thread_id);
                            return self.stopped("pause", thread, None, Vec::new());
                        }
                        planned = Planned::typed(Command::Continue);
                    }
                    None => return self.output("console", &output.text),
                },
                Err(e) => {
                    // The client was told the run started: it must hear that it stopped.
                    self.output("stderr", &format!("error: {e}\n"))?;
                    let thread = self.selected_thread();
                    return self.stopped("pause", thread, Some(e.to_string()), Vec::new());
                }
            }
        }
    }

    /// The selected wave's thread id.
    pub(crate) fn selected_thread(&self) -> Option<i64> {
        self.engine
            .as_ref()
            .and_then(|e| e.machine().waves.get(e.selected_wave))
            .map(|w| thread_id(w.id))
    }

    /// Sends a `stopped` event.
    pub(crate) fn stopped(
        &mut self,
        reason: &str,
        thread: Option<i64>,
        text: Option<String>,
        hits: Vec<i64>,
    ) -> Result<(), WireError> {
        self.last_reason = Some(reason.to_string());
        let body = StoppedEventBody {
            reason: reason.to_string(),
            description: text
                .as_ref()
                .and_then(|t| t.lines().next())
                .map(str::to_string),
            thread_id: thread,
            text,
            all_threads_stopped: true,
            hit_breakpoint_ids: hits,
        };
        self.event("stopped", Some(body))
    }

    /// Reports an engine stop to the client.
    pub(crate) fn report(&mut self, stop: &StopEvent, text: &str) -> Result<After, WireError> {
        self.thread_events()?;
        let thread = stop.wave_id.map(thread_id);
        if let StopReason::Breakpoint { id, .. } = &stop.reason {
            if let Some(message) = self.points.logs.get(id).cloned() {
                let line = self.log_message(&message);
                self.output("console", &format!("{line}\n"))?;
                return Ok(After::Continue);
            }
        }
        if matches!(stop.reason, StopReason::Fault(_)) && !self.stop_on_faults {
            self.output("console", text)?;
            return Ok(After::Continue);
        }
        self.output("console", text)?;
        let description = Some(text.trim_end().to_string());
        match &stop.reason {
            StopReason::Finished | StopReason::Terminated(_) => {
                let code = i64::from(!matches!(stop.reason, StopReason::Finished));
                // The waves the machine keeps at the end are over too.
                self.threads_exited()?;
                self.event("exited", Some(ExitedEventBody { exit_code: code }))?;
                self.ended = true;
                self.event("terminated", None::<()>)?;
            }
            StopReason::Breakpoint { id, .. } => {
                self.stopped("breakpoint", thread, description, vec![i64::from(*id)])?
            }
            StopReason::BreakInstruction => {
                self.stopped("breakpoint", thread, description, Vec::new())?
            }
            StopReason::Watchpoint(hits) => {
                let ids = hits.iter().map(|h| i64::from(h.id)).collect();
                self.stopped("data breakpoint", thread, description, ids)?
            }
            StopReason::Step | StopReason::Reached(_) | StopReason::Blocked(_) => {
                self.stopped("step", thread, description, Vec::new())?
            }
            StopReason::Interrupted => self.stopped("pause", thread, description, Vec::new())?,
            StopReason::Fault(_)
            | StopReason::Finding(_)
            | StopReason::Deadlock(_)
            | StopReason::Deadlocked(_)
            | StopReason::ConditionError { .. } => {
                self.stopped("exception", thread, description, Vec::new())?
            }
        }
        Ok(After::Told)
    }

    /// A logpoint's message with each `{expr}` replaced by its value at the stop.
    fn log_message(&mut self, message: &str) -> String {
        let mut out = String::new();
        let mut rest = message;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let Some(close) = after.find('}') else {
                out.push_str(&rest[open..]);
                return out;
            };
            let text = &after[..close];
            let value = match ParsedExpr::parse(text) {
                Ok(expr) => match self.command(Command::Print { format: None, expr }) {
                    Ok(o) => crate::inspect::value_text(&o),
                    Err(e) => format!("<{e}>"),
                },
                Err(e) => format!("<{e}>"),
            };
            out.push_str(&value);
            rest = &after[close + 1..];
        }
        out.push_str(rest);
        out
    }
}
