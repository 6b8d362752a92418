//! `evaluate` and `exceptionInfo`: the console runs any wavedbg command (its text is the
//! result), hovers and watches print an expression in the frame's wave, and a fault or
//! sanitizer finding is described as the engine describes it (both sides of a finding).

use std::io::Write;

use wavedbg_emulator::debug::command::Command;
use wavedbg_emulator::debug::completion::Words;
use wavedbg_emulator::debug::driver::Plan;
use wavedbg_emulator::debug::expr::{Expr, ParsedExpr};
use wavedbg_emulator::debug::{view, CommandOutput, Output, StopReason};

use crate::error::DapError;
use crate::events::thread_id;
use crate::session::{Reply, Session, Then};
use crate::types::{
    CompletionItem, CompletionsArguments, CompletionsBody, EvaluateArguments, EvaluateBody,
    ExceptionDetails, ExceptionInfoArguments, ExceptionInfoBody,
};

/// A printed value as a client shows it: the number alone, or the engine's text of a
/// per-lane value.
pub(crate) fn value_text(output: &CommandOutput) -> String {
    match output.value {
        Output::Value(v) => v.to_string(),
        _ => output.text.trim_end().to_string(),
    }
}

impl<W: Write> Session<W> {
    pub(crate) fn evaluate(&mut self, args: EvaluateArguments) -> Result<Reply, DapError> {
        self.engine()?;
        // Once the launch is over no frame is left to evaluate in (the console still
        // answers, about the machine as it ended).
        if let Some(frame) = args.frame_id.filter(|_| !self.ended) {
            self.select_thread(frame)?;
        }
        if args.context.as_deref() == Some("repl") {
            // An empty line does nothing: the REPL's Enter repeats a step, but a
            // console's Enter on an empty line must not run the machine.
            if args.expression.trim().is_empty() {
                return Reply::body(EvaluateBody {
                    result: String::new(),
                    variables_reference: 0,
                });
            }
            // A name of a value in scope is printed, not taken for the command it may
            // abbreviate (`n`, a variable in saxpy, is not `next`).
            if let Some(expr) = self.value_named(&args.expression) {
                let output = self.command(Command::Print { format: None, expr })?;
                return Reply::body(EvaluateBody {
                    result: output.text.trim_end().to_string(),
                    variables_reference: 0,
                });
            }
            // A line that runs the machine runs after the response, as a `continue`
            // request does: the client hears `continued`, may pause it, and hears its
            // stop. (Once the launch is over only a relaunch runs that way.)
            let plan = match self.plan_line(&args.expression)? {
                Plan::Run(planned)
                    if planned.command.runs_machine()
                        && (!self.ended || planned.command.relaunches()) =>
                {
                    self.configured = true;
                    if planned.command.relaunches() {
                        self.ended = false;
                    }
                    return Ok(Reply::body(EvaluateBody {
                        result: String::new(),
                        variables_reference: 0,
                    })?
                    .then(Then::RunLine(Box::new(planned))));
                }
                // Once the launch is over nothing runs it again but a relaunch.
                Plan::Run(planned) if planned.command.runs_machine() => {
                    return Err(DapError::Invalid(format!(
                        "`{}`: the launch is over (restart it to run again)",
                        planned.text.trim()
                    )));
                }
                other => other,
            };
            let output = self.execute_plan(plan).map_err(|e| match e {
                DapError::Command(e) => DapError::Console(e),
                other => other,
            })?;
            if output.stop.is_some() && !self.configured {
                // A run before configurationDone would start what the client has not
                // finished setting up; the engine ran it, so say where it stopped.
                self.configured = true;
            }
            if output.stop.is_none() && self.engine()?.last_stop().is_none() {
                // `restart` or `load` in the console: the launch starts again.
                self.ended = false;
            }
            let result = output.text.trim_end().to_string();
            let then = if output.stop.is_some() {
                Then::Report(Box::new(output))
            } else {
                Then::Nothing
            };
            return Ok(Reply::body(EvaluateBody {
                result,
                variables_reference: 0,
            })?
            .then(then));
        }
        let expr = ParsedExpr::parse(&args.expression).map_err(|e| {
            DapError::Invalid(wavedbg_emulator::clip_quoted(format!(
                "`{}`: {e}",
                args.expression
            )))
        })?;
        let output = self.command(Command::Print { format: None, expr })?;
        Reply::body(EvaluateBody {
            result: value_text(&output),
            variables_reference: 0,
        })
    }

    /// The expression a console line is when it is one name of a value in scope: a
    /// register (`u4`, `v3`, `v3[2]`, `exec`, `pc`), a source variable live at the
    /// selected wave's PC, or a buffer. `None` for anything else (a command).
    fn value_named(&self, line: &str) -> Option<ParsedExpr> {
        let line = line.trim();
        if line.contains(char::is_whitespace) {
            return None;
        }
        let engine = self.engine.as_ref()?;
        let parsed = ParsedExpr::parse(line).ok()?;
        let m = engine.machine();
        let live = |name: &str| {
            m.waves.get(engine.selected_wave).is_some_and(|w| {
                m.program()
                    .source_info
                    .live_vars(w.pc)
                    .iter()
                    .any(|v| v.name == name)
            })
        };
        let named = match &parsed.expr {
            Expr::UReg(_) | Expr::VReg(..) | Expr::Exec | Expr::Pc => true,
            Expr::Label(name) | Expr::Index(name, _) => live(name) || m.buffer_base(name).is_some(),
            _ => false,
        };
        named.then_some(parsed)
    }

    /// Completes the debug console's line with the words the REPL's Tab offers.
    pub(crate) fn completions(&mut self, args: CompletionsArguments) -> Result<Reply, DapError> {
        let engine = self.engine()?;
        let words = Words::of(engine, &[]);
        // The cursor's line of a text of several.
        let index = args.line.map_or(0, |l| l.saturating_sub(self.line_base));
        let text = usize::try_from(index)
            .ok()
            .and_then(|i| args.text.split('\n').nth(i))
            .ok_or_else(|| {
                DapError::Invalid(format!("the text has no line {}", args.line.unwrap_or(0)))
            })?;
        // Columns count UTF-16 units; the line is cut at the unit before the cursor.
        let units: Vec<u16> = text.encode_utf16().collect();
        let cursor = usize::try_from(args.column.saturating_sub(self.column_base))
            .unwrap_or(0)
            .min(units.len());
        let before = String::from_utf16_lossy(&units[..cursor]);
        let (start, candidates) = words.candidates(&before);
        let start_units = before.get(..start).map_or(0, |s| s.encode_utf16().count());
        let length = (cursor - start_units.min(cursor)) as i64;
        let targets = candidates
            .into_iter()
            .map(|label| CompletionItem {
                label,
                start: start_units as i64 + self.column_base,
                length,
            })
            .collect();
        Reply::body(CompletionsBody { targets })
    }

    pub(crate) fn exception_info(
        &mut self,
        args: ExceptionInfoArguments,
    ) -> Result<Reply, DapError> {
        // The last stop the client was told of: the adapter's own (entry, goto, a pause
        // that ran nothing) are not the engine's, whose last stop may be an older one.
        match self.last_reason.as_deref() {
            None => return Err(DapError::Invalid("nothing has stopped yet".into())),
            Some("exception") => {}
            Some(other) => {
                return Err(DapError::Invalid(format!(
                    "the last stop ({other}) is not an exception: not a fault, a sanitizer \
                     finding, a deadlock or a breakpoint condition that failed"
                )))
            }
        }
        let engine = self.engine()?;
        let stop = engine
            .last_stop()
            .cloned()
            .ok_or_else(|| DapError::Invalid("nothing has stopped yet".into()))?;
        // The stop is one wave's (a deadlock's, a finding's may name none).
        if stop.wave_id.is_some_and(|w| thread_id(w) != args.thread_id) {
            return Err(DapError::Invalid(format!(
                "thread {} did not stop on an exception",
                args.thread_id
            )));
        }
        let description = view::describe_stop(engine, &stop);
        let (id, type_name, message) = match &stop.reason {
            StopReason::Fault(f) => (
                format!("fault:{}", f.signal().0),
                "fault",
                description.lines().next().unwrap_or_default().to_string(),
            ),
            StopReason::Finding(found) => (
                found
                    .first()
                    .map_or("finding".into(), |f| format!("sanitizer:{:?}", f.kind)),
                "sanitizer finding",
                found
                    .first()
                    .map(|f| f.headline_in(engine.machine()))
                    .unwrap_or_default(),
            ),
            StopReason::Deadlock(_) | StopReason::Deadlocked(_) => (
                "deadlock".into(),
                "deadlock",
                description.lines().next().unwrap_or_default().to_string(),
            ),
            StopReason::ConditionError { id, message } => (
                "condition".into(),
                "breakpoint condition error",
                format!("breakpoint {id}: {message}"),
            ),
            _ => {
                return Err(DapError::Invalid(
                    "the last stop is not an exception".into(),
                ))
            }
        };
        Reply::body(ExceptionInfoBody {
            exception_id: id,
            description: description.trim_end().to_string(),
            break_mode: "always".into(),
            details: ExceptionDetails {
                message,
                type_name: type_name.into(),
            },
        })
    }
}
