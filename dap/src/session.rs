//! One client's session: the dispatcher from request names to the handlers (one file per
//! family: `launch`, `breakpoints`, `inspect`, `memory`, `control`), the responses, and
//! the order the protocol asks for (`initialize` first, then `launch`, then the
//! configuration, then `configurationDone`).
//!
//! The session thread owns the engine and runs it; a reader thread reads the client's
//! messages and, when a `pause`, `terminate`, `restart` or `disconnect` arrives or the
//! client goes away, interrupts the run in progress through the engine's interrupt
//! handle, so a long `continue` stops within a few hundred instructions. Requests are
//! answered in the order they arrive: those that come during a run wait for its stop,
//! and a run-control request answered while a later `pause` (or `terminate`, `restart`,
//! `disconnect`) is pending stops at once without running, so that request's response
//! is never held behind a new run.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufReader, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use wavedbg_emulator::debug::command::Command;
use wavedbg_emulator::debug::driver::{Driver, Input, Outcome, Plan, Planned};
use wavedbg_emulator::debug::{CommandOutput, Engine, InterruptHandle};

use crate::error::DapError;
use crate::protocol::{read_frame, write_message, Frame, WireError};
use crate::types::{ErrorBody, Event, Message, Outgoing, Request, Response};

/// The interrupt handle of the engine launched now, shared with the reader thread.
pub(crate) type SharedInterrupt = Arc<Mutex<Option<InterruptHandle>>>;

/// What a handler asks the session to do once its response is sent.
#[derive(Debug)]
pub(crate) enum Then {
    /// Nothing more.
    Nothing,
    /// The `initialized` event: the adapter takes configuration requests now.
    Initialized,
    /// Run this command (continue, a step) and report its stop.
    Run(Command),
    /// Run this line of the debug console (it runs the machine): say `continued`, then
    /// report its stop.
    RunLine(Box<Planned>),
    /// Report a `stopped` event without running (entry, goto).
    Stopped {
        /// The protocol's reason.
        reason: &'static str,
        /// The wave (thread id).
        thread: Option<i64>,
    },
    /// A command already ran (a repl line): report its stop, if it made one.
    Report(Box<CommandOutput>),
    /// The launch is over at the client's request: `terminated`.
    Terminate,
    /// The session ends.
    Disconnect,
}

/// A handler's success: the response body and what follows.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) body: Option<Value>,
    pub(crate) then: Then,
}

impl Reply {
    /// A response without a body.
    pub(crate) fn empty() -> Reply {
        Reply {
            body: None,
            then: Then::Nothing,
        }
    }

    /// A response with `body`.
    pub(crate) fn body(body: impl Serialize) -> Result<Reply, DapError> {
        Ok(Reply {
            body: Some(serde_json::to_value(body).map_err(|e| DapError::Invalid(e.to_string()))?),
            then: Then::Nothing,
        })
    }

    /// This reply, then `then`.
    pub(crate) fn then(mut self, then: Then) -> Reply {
        self.then = then;
        self
    }
}

/// The engine points the client's requests made, per request family (each request
/// replaces its family's set), with what the adapter maps itself.
#[derive(Debug, Default)]
pub(crate) struct Points {
    /// Per source path: the engine ids of its line breakpoints.
    pub(crate) source: BTreeMap<String, Vec<u32>>,
    /// Label breakpoints.
    pub(crate) functions: Vec<u32>,
    /// Address breakpoints.
    pub(crate) instructions: Vec<u32>,
    /// Watchpoints.
    pub(crate) data: Vec<u32>,
    /// Logpoints: the engine id and the message (with `{expr}` parts).
    pub(crate) logs: BTreeMap<u32, String>,
}

/// A client's session.
pub struct Session<W: Write> {
    out: W,
    seq: i64,
    pub(crate) engine: Option<Engine>,
    pub(crate) driver: Driver,
    interrupt: SharedInterrupt,
    /// Set by the reader thread when a pause (or the end) is asked for; cleared when the
    /// `pause` request is answered. Keeps a logpoint's automatic continue from running on.
    paused: Arc<AtomicBool>,
    /// Set by the reader thread when `terminate` or `disconnect` arrives or the client
    /// goes away: the run it interrupts ends the launch, so its stop is not reported.
    ending: Arc<AtomicBool>,
    pub(crate) initialized: bool,
    pub(crate) configured: bool,
    pub(crate) stop_on_entry: bool,
    /// The launch arguments (a `restart` with new ones must name the same kernel).
    pub(crate) launched: Option<crate::types::LaunchArguments>,
    /// Lines the client counts from: 1 (the default) or 0.
    pub(crate) line_base: i64,
    /// Columns the client counts from: 1 (the default) or 0.
    pub(crate) column_base: i64,
    pub(crate) points: Points,
    /// Whether a fault stops (the `faults` exception filter, on by default).
    pub(crate) stop_on_faults: bool,
    /// The thread ids last reported, for `thread` events.
    threads: BTreeSet<i64>,
    /// The launch is over and `terminated` was sent.
    pub(crate) ended: bool,
    /// The code addresses `gotoTargets` gave as target ids (`goto` takes only those).
    pub(crate) goto_targets: BTreeSet<u64>,
    /// The reason of the last `stopped` event (the adapter's own stops, such as `entry`
    /// and `goto`, included): `exceptionInfo` describes only an `exception`.
    pub(crate) last_reason: Option<String>,
}

impl<W: Write> Session<W> {
    /// A session writing to `out`.
    pub(crate) fn new(
        out: W,
        interrupt: SharedInterrupt,
        paused: Arc<AtomicBool>,
        ending: Arc<AtomicBool>,
    ) -> Self {
        Session {
            out,
            seq: 0,
            engine: None,
            driver: Driver::non_interactive(),
            interrupt,
            paused,
            ending,
            initialized: false,
            configured: false,
            stop_on_entry: false,
            launched: None,
            line_base: 1,
            column_base: 1,
            points: Points::default(),
            stop_on_faults: true,
            threads: BTreeSet::new(),
            ended: false,
            goto_targets: BTreeSet::new(),
            last_reason: None,
        }
    }

    fn next_seq(&mut self) -> i64 {
        self.seq += 1;
        self.seq
    }

    fn send(&mut self, message: Outgoing) -> Result<(), WireError> {
        write_message(&mut self.out, &message)
    }

    /// Sends an event with a typed body.
    pub(crate) fn event(
        &mut self,
        name: &str,
        body: Option<impl Serialize>,
    ) -> Result<(), WireError> {
        let body = body.map(serde_json::to_value).transpose()?;
        let seq = self.next_seq();
        self.send(Outgoing::Event(Event {
            seq,
            event: name.to_string(),
            body,
        }))
    }

    /// Sends text to the client's debug console.
    pub(crate) fn output(&mut self, category: &str, text: &str) -> Result<(), WireError> {
        if text.is_empty() {
            return Ok(());
        }
        let body = crate::types::OutputEventBody {
            category: category.to_string(),
            output: text.to_string(),
        };
        self.event("output", Some(body))
    }

    fn respond(
        &mut self,
        request_seq: i64,
        command: &str,
        result: Result<Option<Value>, DapError>,
    ) -> Result<(), WireError> {
        let seq = self.next_seq();
        let response = match result {
            Ok(body) => Response {
                seq,
                request_seq,
                success: true,
                command: command.to_string(),
                message: None,
                body,
            },
            Err(e) => {
                // Bounded however much of the input it quotes (it lands in pop-ups).
                let text = wavedbg_emulator::clip_quoted(e.to_string());
                Response {
                    seq,
                    request_seq,
                    success: false,
                    command: command.to_string(),
                    message: Some(text.clone()),
                    body: Some(serde_json::to_value(ErrorBody {
                        error: Message {
                            id: e.id(),
                            format: text,
                            show_user: true,
                        },
                    })?),
                }
            }
        };
        self.send(Outgoing::Response(response))
    }

    /// The launched engine, or the error saying there is none.
    pub(crate) fn engine(&mut self) -> Result<&mut Engine, DapError> {
        self.engine.as_mut().ok_or(DapError::NotLaunched)
    }

    /// Runs a command the adapter built through the driver (the one command path).
    pub(crate) fn command(&mut self, command: Command) -> Result<CommandOutput, DapError> {
        let engine = self.engine.as_mut().ok_or(DapError::NotLaunched)?;
        let (outcome, _) = self.driver.execute(engine, Input::Command(command));
        output(outcome)
    }

    /// Plans a line the user typed in the client's console (parsed once, by the driver).
    pub(crate) fn plan_line(&mut self, line: &str) -> Result<Plan, DapError> {
        let engine = self.engine.as_ref().ok_or(DapError::NotLaunched)?;
        Ok(self.driver.plan(engine, Input::Line(line)))
    }

    /// Runs a planned line as [`Driver::execute`] would (this driver never asks).
    pub(crate) fn execute_plan(&mut self, plan: Plan) -> Result<CommandOutput, DapError> {
        let engine = self.engine.as_mut().ok_or(DapError::NotLaunched)?;
        let (outcome, _) = self.driver.execute_plan(engine, plan);
        output(outcome)
    }

    /// Publishes the launched engine's interrupt handle to the reader thread.
    pub(crate) fn share_interrupt(&mut self) {
        let handle = self.engine.as_ref().map(Engine::interrupt_handle);
        if let Ok(mut slot) = self.interrupt.lock() {
            *slot = handle;
        }
    }

    /// Whether a pause (or the end of the session) was asked for since the last `pause`
    /// response.
    pub(crate) fn pause_pending(&self) -> bool {
        self.paused.load(Ordering::SeqCst)
    }

    /// Whether `terminate` or `disconnect` came (or the client went): a run it
    /// interrupted is not reported as a pause, the end of the launch follows.
    pub(crate) fn ending(&self) -> bool {
        self.ending.load(Ordering::SeqCst)
    }

    /// Ends the launch at the client's request, as a launch that ends by itself does:
    /// `thread` `exited` for each wave still reported, `exited` (1: not every wave
    /// finished), then `terminated`. Nothing when it is over already.
    pub(crate) fn end_launch(&mut self) -> Result<(), WireError> {
        self.ending.store(false, Ordering::SeqCst);
        if self.ended {
            return Ok(());
        }
        self.ended = true;
        self.threads_exited()?;
        let body = crate::types::ExitedEventBody { exit_code: 1 };
        self.event("exited", Some(body))?;
        self.event("terminated", None::<()>)
    }

    /// Answers a `pause` that found nothing running: withdraws its interrupt so it does
    /// not stop the next run.
    pub(crate) fn pause_handled(&mut self) {
        self.paused.store(false, Ordering::SeqCst);
        if let Some(e) = &self.engine {
            e.interrupt_handle().cancel();
        }
    }

    /// Sends `thread` `exited` events for every wave still reported (the launch ended).
    pub(crate) fn threads_exited(&mut self) -> Result<(), WireError> {
        for id in std::mem::take(&mut self.threads) {
            let body = crate::types::ThreadEventBody {
                reason: "exited".to_string(),
                thread_id: id,
            };
            self.event("thread", Some(body))?;
        }
        Ok(())
    }

    /// Sends `thread` events for the waves that appeared and went since the last time
    /// (none once the launch is over).
    pub(crate) fn thread_events(&mut self) -> Result<(), WireError> {
        let now: BTreeSet<i64> = self
            .engine
            .as_ref()
            .filter(|_| !self.ended)
            .map(|e| {
                e.machine()
                    .waves
                    .iter()
                    .map(|w| i64::from(w.id) + 1)
                    .collect()
            })
            .unwrap_or_default();
        let gone: Vec<i64> = self.threads.difference(&now).copied().collect();
        let new: Vec<i64> = now.difference(&self.threads).copied().collect();
        for (reason, ids) in [("exited", gone), ("started", new)] {
            for id in ids {
                let body = crate::types::ThreadEventBody {
                    reason: reason.to_string(),
                    thread_id: id,
                };
                self.event("thread", Some(body))?;
            }
        }
        self.threads = now;
        Ok(())
    }

    /// Handles one request: checks its order, dispatches it, responds, then does what
    /// the handler asked. Returns whether the session goes on.
    pub fn handle(&mut self, request: Request) -> Result<bool, WireError> {
        let command = request.command.clone();
        let result = self.dispatch(&request);
        let (body, then) = match result {
            Ok(reply) => (Ok(reply.body), reply.then),
            Err(e) => {
                // A refused `terminate` ends nothing: a later pause is a pause again.
                if command == "terminate" {
                    self.ending.store(false, Ordering::SeqCst);
                }
                (Err(e), Then::Nothing)
            }
        };
        self.respond(request.seq, &command, body)?;
        match then {
            Then::Nothing => {}
            Then::Initialized => self.event("initialized", None::<()>)?,
            Then::Run(command) => self.run(Planned::typed(command), false)?,
            Then::RunLine(planned) => self.run(*planned, true)?,
            Then::Stopped { reason, thread } => {
                self.thread_events()?;
                self.stopped(reason, thread, None, Vec::new())?;
            }
            Then::Report(output) => {
                if let Some(stop) = &output.stop {
                    self.report(stop, "")?;
                }
            }
            Then::Terminate => {
                // The run the request interrupted (if any) ended without a stop; the
                // next run must not take the request for a pause.
                self.pause_handled();
                self.end_launch()?;
            }
            Then::Disconnect => return Ok(false),
        }
        Ok(true)
    }

    fn dispatch(&mut self, request: &Request) -> Result<Reply, DapError> {
        let name = request.command.as_str();
        let order = |why| DapError::OutOfOrder {
            command: name.to_string(),
            why,
        };
        if name != "initialize" && !self.initialized && name != "disconnect" {
            return Err(order("send `initialize` first"));
        }
        match name {
            "initialize" => self.initialize(args(request)?),
            "launch" => self.launch(args(request)?),
            "attach" => Err(DapError::Invalid(
                "wavedbg launches its kernel itself: use `launch`".into(),
            )),
            "configurationDone" => self.configuration_done(),
            "disconnect" => Ok(Reply::empty().then(Then::Disconnect)),
            "terminate" => Ok(Reply::empty().then(Then::Terminate)),
            "restart" => self.restart(args(request)?),
            "setBreakpoints" => self.set_breakpoints(args(request)?),
            "breakpointLocations" => self.breakpoint_locations(args(request)?),
            "setFunctionBreakpoints" => self.set_function_breakpoints(args(request)?),
            "setInstructionBreakpoints" => self.set_instruction_breakpoints(args(request)?),
            "dataBreakpointInfo" => self.data_breakpoint_info(args(request)?),
            "setDataBreakpoints" => self.set_data_breakpoints(args(request)?),
            "setExceptionBreakpoints" => self.set_exception_breakpoints(args(request)?),
            "threads" => self.threads(),
            "stackTrace" => self.stack_trace(args(request)?),
            "scopes" => self.scopes(args(request)?),
            "variables" => self.variables(args(request)?),
            "setVariable" => self.set_variable(args(request)?),
            "evaluate" => self.evaluate(args(request)?),
            "completions" => self.completions(args(request)?),
            "exceptionInfo" => self.exception_info(args(request)?),
            "continue" => self.resume(args(request)?, Command::Continue),
            "next" => self.step(args(request)?, Command::Next(1), Command::Stepi(1)),
            "stepIn" => self.step(args(request)?, Command::Step(1), Command::Stepi(1)),
            "stepOut" => self.resume(args(request)?, Command::Finish),
            "stepBack" => self.step(
                args(request)?,
                Command::ReverseStep(1),
                Command::ReverseStepi(1),
            ),
            "reverseContinue" => self.resume(args(request)?, Command::ReverseContinue),
            "pause" => self.pause(),
            "gotoTargets" => self.goto_targets(args(request)?),
            "goto" => self.goto(args(request)?),
            "disassemble" => self.disassemble(args(request)?),
            "readMemory" => self.read_memory(args(request)?),
            "writeMemory" => self.write_memory(args(request)?),
            other => Err(DapError::Unknown(other.to_string())),
        }
    }

    /// Answers a message that is not a request.
    pub fn reject(&mut self, frame: Frame) -> Result<(), WireError> {
        let (seq, command, error) = match frame {
            Frame::Malformed {
                reason,
                seq,
                command,
            } => (seq.unwrap_or(0), command.unwrap_or_default(), reason),
            Frame::TooLarge(n) => (
                0,
                String::new(),
                format!(
                    "a message of {n} bytes is over the {} bytes this adapter reads",
                    crate::protocol::MAX_BODY
                ),
            ),
            Frame::Request(_) | Frame::Closed => return Ok(()),
        };
        self.respond(seq, &command, Err(DapError::Invalid(error)))
    }
}

/// A request's arguments as the command's type (absent arguments are the defaults).
/// A command's outcome as the adapter answers it. The adapter's driver asks nothing (it
/// is not [`Driver::asking`]: gdb's batch mode), so `restart` and `load` run unasked and
/// `NotConfirmed` does not arise; were it to, the answer says what a text front end says.
fn output(outcome: Outcome) -> Result<CommandOutput, DapError> {
    match outcome {
        Outcome::Ran { ran, .. } => Ok(ran.result?),
        Outcome::Invalid { error, .. } => Err(error.into()),
        Outcome::NotConfirmed { .. } => Ok(CommandOutput {
            text: outcome.text(),
            ..Default::default()
        }),
        Outcome::Nothing | Outcome::Quit => Ok(CommandOutput::default()),
    }
}

fn args<T: DeserializeOwned + Default>(request: &Request) -> Result<T, DapError> {
    match &request.arguments {
        None | Some(Value::Null) => Ok(T::default()),
        // serde would take an array as a struct's fields in order (`[1]` as threadId 1).
        Some(v) if !v.is_object() => Err(DapError::Arguments {
            command: request.command.clone(),
            reason: format!(
                "the arguments must be an object, not {}",
                match v {
                    Value::Array(_) => "an array",
                    Value::String(_) => "a string",
                    Value::Number(_) => "a number",
                    _ => "a boolean",
                }
            ),
        }),
        Some(v) => T::deserialize(v).map_err(|e| DapError::Arguments {
            command: request.command.clone(),
            reason: e.to_string(),
        }),
    }
}

/// Reads frames on a thread of its own, interrupting the engine when the client pauses,
/// terminates, disconnects or goes away.
fn spawn_reader(
    input: impl Read + Send + 'static,
    interrupt: SharedInterrupt,
    paused: Arc<AtomicBool>,
    ending: Arc<AtomicBool>,
    greeted: impl FnOnce() + Send + 'static,
) -> Receiver<Result<Frame, WireError>> {
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("wavedbg-dap-reader".into())
        .spawn(move || {
            let mut input = BufReader::new(input);
            let mut greeted = Some(greeted);
            loop {
                let frame = read_frame(&mut input);
                // A whole message, well-formed or not, ends the handshake.
                if matches!(
                    frame,
                    Ok(Frame::Request(_) | Frame::Malformed { .. } | Frame::TooLarge(_))
                ) {
                    if let Some(greeted) = greeted.take() {
                        greeted();
                    }
                }
                let stops = match &frame {
                    Ok(Frame::Request(r)) => matches!(
                        r.command.as_str(),
                        "pause" | "terminate" | "restart" | "disconnect"
                    ),
                    Ok(Frame::Closed) | Err(_) => true,
                    Ok(_) => false,
                };
                let last = matches!(frame, Ok(Frame::Closed) | Err(_));
                let ends = last
                    || matches!(&frame, Ok(Frame::Request(r))
                        if matches!(r.command.as_str(), "terminate" | "disconnect"));
                if ends {
                    ending.store(true, Ordering::SeqCst);
                }
                if stops {
                    paused.store(true, Ordering::SeqCst);
                    if let Ok(slot) = interrupt.lock() {
                        if let Some(h) = slot.as_ref() {
                            h.interrupt();
                        }
                    }
                }
                if tx.send(frame).is_err() || last {
                    break;
                }
            }
        });
    // Without a reader thread the channel is closed at once: the session ends.
    drop(spawned);
    rx
}

/// Serves one client on `input` and `output` until it disconnects or goes away.
pub fn serve(input: impl Read + Send + 'static, output: impl Write) -> Result<(), WireError> {
    serve_greeted(input, output, || {})
}

/// [`serve`], calling `greeted` once the client's first whole message is read (the
/// TCP transport's handshake time-out ends then).
pub(crate) fn serve_greeted(
    input: impl Read + Send + 'static,
    output: impl Write,
    greeted: impl FnOnce() + Send + 'static,
) -> Result<(), WireError> {
    let interrupt: SharedInterrupt = Arc::new(Mutex::new(None));
    let paused = Arc::new(AtomicBool::new(false));
    let ending = Arc::new(AtomicBool::new(false));
    let frames = spawn_reader(
        input,
        interrupt.clone(),
        paused.clone(),
        ending.clone(),
        greeted,
    );
    let mut session = Session::new(output, interrupt, paused, ending);
    while let Ok(frame) = frames.recv() {
        match frame {
            Ok(Frame::Request(request)) => {
                if !session.handle(request)? {
                    break;
                }
            }
            Ok(Frame::Closed) => break,
            Ok(other) => session.reject(other)?,
            Err(WireError::Header(why)) => {
                // The stream cannot be followed any more: say why, and end.
                session.reject(Frame::Malformed {
                    reason: format!("bad header ({why}); closing the session"),
                    seq: None,
                    command: None,
                })?;
                break;
            }
            // The client went away in the middle of a message: as gone as between two.
            Err(WireError::Io(_)) => break,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;

    fn framed(messages: &[Value]) -> Vec<u8> {
        let mut out = Vec::new();
        for m in messages {
            let body = m.to_string();
            out.extend_from_slice(
                format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes(),
            );
        }
        out
    }

    /// Serves `input` to its end; returns every message the adapter wrote.
    fn session(input: Vec<u8>) -> Vec<Value> {
        let mut out = Vec::new();
        serve(std::io::Cursor::new(input), &mut out).expect("the session ends cleanly");
        let mut messages = Vec::new();
        let mut rest = out.as_slice();
        while !rest.is_empty() {
            let text = String::from_utf8_lossy(rest);
            let end = text.find("\r\n\r\n").expect("a header");
            let n: usize = text["Content-Length: ".len()..end]
                .parse()
                .expect("a length");
            let body = &rest[end + 4..end + 4 + n];
            messages.push(serde_json::from_slice(body).expect("JSON"));
            rest = &rest[end + 4 + n..];
        }
        messages
    }

    fn request(seq: i64, command: &str, arguments: Value) -> Value {
        json!({"seq": seq, "type": "request", "command": command, "arguments": arguments})
    }

    fn response(messages: &[Value], seq: i64) -> &Value {
        messages
            .iter()
            .find(|m| m["type"] == "response" && m["request_seq"] == seq)
            .unwrap_or_else(|| panic!("no response to {seq}: {messages:?}"))
    }

    #[test]
    fn a_session_on_the_demo() {
        let out = session(framed(&[
            request(1, "initialize", json!({"clientID": "test"})),
            request(2, "launch", json!({"stopOnEntry": true})),
            request(
                3,
                "setFunctionBreakpoints",
                json!({"breakpoints": [{"name": "nowhere"}]}),
            ),
            request(4, "configurationDone", Value::Null),
            request(5, "threads", Value::Null),
            request(6, "continue", json!({"threadId": 1})),
            request(
                7,
                "evaluate",
                json!({"expression": "info waves", "context": "repl"}),
            ),
            request(8, "disconnect", Value::Null),
        ]));
        for seq in [1, 2, 3, 4, 5, 6, 7, 8] {
            assert_eq!(response(&out, seq)["success"], true, "{seq}: {out:?}");
        }
        assert_eq!(response(&out, 1)["body"]["supportsStepBack"], true);
        let bp = &response(&out, 3)["body"]["breakpoints"][0];
        assert_eq!(bp["verified"], false);
        let events: Vec<&str> = out
            .iter()
            .filter(|m| m["type"] == "event")
            .filter_map(|m| m["event"].as_str())
            .collect();
        assert_eq!(events[0], "initialized");
        assert!(events.contains(&"stopped"), "{events:?}");
        assert!(events.contains(&"thread"), "{events:?}");
        // The continue ends the launch, or the end of the input (read at once, the
        // client gone) interrupts it: the session ends without reporting a pause.
        let stops = events.iter().filter(|e| **e == "stopped").count();
        assert_eq!(stops, 1, "{events:?}");
        // The repl ran a command of the command language.
        let text = response(&out, 7)["body"]["result"]
            .as_str()
            .unwrap_or_default();
        assert!(text.contains("Wave"), "{text}");
    }

    /// The debug console never asks (gdb's batch mode): `run` after an edit restarts at
    /// once. (An edit, not a step: the end of this input, read at once, interrupts runs.)
    #[test]
    fn the_console_restarts_without_asking() {
        let console = |seq, line: &str| {
            request(
                seq,
                "evaluate",
                json!({"expression": line, "context": "repl"}),
            )
        };
        let out = session(framed(&[
            request(1, "initialize", json!({})),
            request(2, "launch", json!({"stopOnEntry": true})),
            request(3, "configurationDone", Value::Null),
            console(4, "set u9 = 7"),
            console(5, "restart"),
            console(6, "info history"),
            request(7, "disconnect", Value::Null),
        ]));
        let result = |seq| {
            let r = response(&out, seq);
            assert_eq!(r["success"], true, "{seq}: {r:?}");
            r["body"]["result"].as_str().unwrap_or_default().to_string()
        };
        result(4);
        let restarted = result(5);
        assert!(restarted.starts_with("Restarted:"), "{restarted}");
        assert!(!restarted.contains("(y or n)"), "{restarted}");
        assert!(result(6).contains("0 record entries"), "{}", result(6));
    }

    #[test]
    fn order_and_bad_input_are_error_responses() {
        let mut input = framed(&[
            request(1, "launch", json!({})),
            request(2, "initialize", json!({})),
            request(3, "threads", Value::Null),
            request(4, "launch", json!({"grid": "many"})),
            request(5, "launch", json!({"checks": ["nonsense"]})),
            request(6, "configurationDone", Value::Null),
            request(7, "nope", Value::Null),
            json!({"seq": 8, "type": "request"}),
            json!({"seq": 9, "type": "response", "command": "x"}),
            json!([1, 2, 3]),
        ]);
        input.extend_from_slice(b"Content-Length: 5\r\n\r\n{nope");
        let out = session(input);
        for (seq, says) in [
            (1, "initialize"),
            (3, "launch"),
            (4, "bad arguments"),
            (5, "sanitizer group"),
            (6, "launch"),
            (7, "unknown request"),
            (8, "not a request"),
            (9, "requests"),
        ] {
            let r = response(&out, seq);
            assert_eq!(r["success"], false, "{seq}");
            let message = r["message"].as_str().unwrap_or_default();
            assert!(message.contains(says), "{seq}: {message}");
        }
        let unnamed = out
            .iter()
            .filter(|m| m["type"] == "response" && m["request_seq"] == 0)
            .count();
        assert_eq!(unnamed, 2, "{out:?}");
    }

    #[test]
    fn extreme_numbers_are_errors_not_overflows() {
        let big = i64::MAX;
        let small = i64::MIN;
        let out = session(framed(&[
            request(1, "initialize", json!({})),
            request(2, "launch", json!({"stopOnEntry": true})),
            request(3, "configurationDone", Value::Null),
            request(4, "stackTrace", json!({"threadId": small})),
            request(5, "variables", json!({"variablesReference": big})),
            request(
                6,
                "setBreakpoints",
                json!({"source": {"path": "x.s"}, "breakpoints": [{"line": big}, {"line": small}]}),
            ),
            request(
                7,
                "disassemble",
                json!({"memoryReference": "0x0", "instructionOffset": big, "instructionCount": 3}),
            ),
            request(
                13,
                "disassemble",
                json!({"memoryReference": "0x0", "instructionOffset": small, "instructionCount": 3}),
            ),
            request(
                8,
                "disassemble",
                json!({"memoryReference": "0x0", "instructionOffset": small, "instructionCount": big}),
            ),
            request(
                9,
                "readMemory",
                json!({"memoryReference": "global:0xffffffffffffffff", "offset": big, "count": big}),
            ),
            request(
                10,
                "gotoTargets",
                json!({"source": {"path": "x.s"}, "line": small}),
            ),
            request(11, "next", json!({"threadId": big})),
            request(12, "disconnect", Value::Null),
        ]));
        // A count over what one disassemble lists is refused, not cut short.
        for seq in [4, 5, 8, 10, 11] {
            assert_eq!(response(&out, seq)["success"], false, "{seq}");
        }
        // Rows far from the code each have their own address, whatever the offset.
        for seq in [7, 13] {
            let rows = response(&out, seq)["body"]["instructions"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let addrs: BTreeSet<String> = rows
                .iter()
                .filter_map(|r| r["address"].as_str().map(String::from))
                .collect();
            assert_eq!((rows.len(), addrs.len()), (3, 3), "{seq}: {rows:?}");
        }
        for seq in [6, 7, 9, 12, 13] {
            assert_eq!(response(&out, seq)["success"], true, "{seq}");
        }
    }

    #[test]
    fn hostile_streams_get_an_error_or_a_clean_end() {
        let hello = framed(&[request(1, "initialize", json!({}))]);
        // A header line of 1 MB, a Content-Length of 10^12: an error response, then the end.
        for (bad, says) in [
            (format!("X: {}\r\n\r\n", "a".repeat(1 << 20)), "longer than"),
            (
                "Content-Length: 1000000000000\r\n\r\n".to_string(),
                "1000000000000",
            ),
        ] {
            let mut input = hello.clone();
            input.extend_from_slice(bad.as_bytes());
            input.extend_from_slice(&framed(&[request(2, "threads", Value::Null)]));
            let out = session(input);
            assert_eq!(response(&out, 1)["success"], true);
            let last = out.last().expect("a message");
            assert_eq!(last["success"], false, "{out:?}");
            let message = last["message"].as_str().unwrap_or_default();
            assert!(
                message.contains("bad header") && message.contains(says),
                "{message}"
            );
            assert!(!out.iter().any(|m| m["request_seq"] == 2), "{out:?}");
        }
        // The client goes away in the middle of a header, and of a body: a clean end.
        for cut in ["Content-Len", "Content-Length: 40\r\n\r\n{\"seq\": 2"] {
            let mut input = hello.clone();
            input.extend_from_slice(cut.as_bytes());
            let out = session(input);
            assert_eq!(response(&out, 1)["success"], true);
        }
    }

    #[test]
    fn arguments_of_the_wrong_type_are_named() {
        let out = session(framed(&[
            request(1, "initialize", json!({"linesStartAt1": "yes"})),
            request(2, "initialize", json!({})),
            request(3, "launch", json!({"stopOnEntry": "yes"})),
            request(4, "launch", json!({"allowFileOutsideDir": 1})),
            request(5, "launch", json!({"stopOnEntry": true})),
            request(6, "setBreakpoints", json!({"source": "k.s"})),
            request(7, "stackTrace", json!({"threadId": "one"})),
            request(8, "readMemory", json!({"memoryReference": 0, "count": 4})),
            request(9, "evaluate", json!({"expression": ["u4"]})),
            request(10, "configurationDone", Value::Null),
            request(11, "continue", json!([1])),
            request(12, "disconnect", Value::Null),
        ]));
        for seq in [1, 3, 4, 6, 7, 8, 9, 11] {
            let r = response(&out, seq);
            assert_eq!(r["success"], false, "{seq}: {r}");
            let message = r["message"].as_str().unwrap_or_default();
            assert!(message.contains("bad arguments"), "{seq}: {message}");
        }
        for seq in [2, 5, 10, 12] {
            assert_eq!(response(&out, seq)["success"], true, "{seq}");
        }
    }

    /// A fresh directory under the system's temporary one.
    fn scratch_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("wavedbg-dap-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("k")).expect("a temporary directory");
        dir
    }

    #[test]
    fn allow_file_outside_dir_lets_file_read_outside_the_kernel_directory() {
        let dir = scratch_dir("file");
        std::fs::write(dir.join("data.bin"), [7u8, 0, 0, 0, 9, 0, 0, 0]).expect("data");
        let kernel = dir.join("k/k.s");
        std::fs::write(
            &kernel,
            ".kernel k\n.buffer b, 8\n.file b, \"../data.bin\"\n    end\n",
        )
        .expect("kernel");
        let program = kernel.to_string_lossy().to_string();
        let launch = |allow: Option<bool>| {
            let mut args = json!({"program": program, "stopOnEntry": true});
            if let Some(allow) = allow {
                args["allowFileOutsideDir"] = json!(allow);
            }
            session(framed(&[
                request(1, "initialize", json!({})),
                request(2, "launch", args),
                request(3, "configurationDone", Value::Null),
                request(
                    4,
                    "readMemory",
                    json!({"memoryReference": "global:b", "count": 8}),
                ),
            ]))
        };
        for allow in [None, Some(false)] {
            let out = launch(allow);
            let r = response(&out, 2);
            assert_eq!(r["success"], false, "{allow:?}");
            let message = r["message"].as_str().unwrap_or_default();
            assert!(
                message.contains("outside the kernel's directory"),
                "{message}"
            );
        }
        let out = launch(Some(true));
        assert_eq!(response(&out, 2)["success"], true, "{out:?}");
        let data = response(&out, 4)["body"]["data"]
            .as_str()
            .unwrap_or_default();
        // base64 of 07 00 00 00 09 00 00 00.
        assert_eq!(data, "BwAAAAkAAAA=");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A kernel of the repository's scripts/, by its absolute path.
    fn script(name: &str) -> String {
        format!("{}/../scripts/{name}", env!("CARGO_MANIFEST_DIR"))
    }

    #[test]
    fn breakpoints_in_a_higher_level_file_are_shown_in_its_lines() {
        let cl = script("src/saxpy.cl");
        let out = session(framed(&[
            request(1, "initialize", json!({})),
            request(
                2,
                "launch",
                json!({"program": script("saxpy_src.s"), "stopOnEntry": true}),
            ),
            request(
                3,
                "setBreakpoints",
                json!({"source": {"path": cl}, "breakpoints": [{"line": 9}]}),
            ),
            request(
                4,
                "breakpointLocations",
                json!({"source": {"path": cl}, "line": 1, "endLine": 13}),
            ),
            request(5, "gotoTargets", json!({"source": {"path": cl}, "line": 9})),
        ]));
        let bp = &response(&out, 3)["body"]["breakpoints"][0];
        assert_eq!(bp["verified"], true, "{bp}");
        assert_eq!(bp["line"], 9, "{bp}");
        // Named as stack frames name it: its path made canonical, and its name.
        let canonical = crate::paths::normal_path(&cl);
        assert_eq!(bp["source"]["path"], canonical.as_str(), "{bp}");
        assert_eq!(bp["source"]["name"], "saxpy.cl", "{bp}");
        let lines: Vec<i64> = response(&out, 4)["body"]["breakpoints"]
            .as_array()
            .map(|a| a.iter().filter_map(|b| b["line"].as_i64()).collect())
            .unwrap_or_default();
        assert!(
            lines.contains(&9) && lines.iter().all(|l| *l <= 13),
            "{lines:?}"
        );
        assert_eq!(response(&out, 5)["body"]["targets"][0]["line"], 9);
    }

    #[test]
    fn paths_are_compared_however_they_are_spelled() {
        let reduce = script("reduce.s");
        let dotted = script("./reduce.s");
        let console = |seq, line: &str| {
            request(
                seq,
                "evaluate",
                json!({"expression": line, "context": "repl"}),
            )
        };
        let out = session(framed(&[
            request(1, "initialize", json!({})),
            request(2, "launch", json!({"program": reduce, "stopOnEntry": true})),
            request(
                3,
                "setBreakpoints",
                json!({"source": {"path": dotted}, "breakpoints": [{"line": 25}]}),
            ),
            request(
                4,
                "setBreakpoints",
                json!({"source": {"path": reduce}, "breakpoints": []}),
            ),
            console(5, "info breakpoints"),
            request(
                6,
                "restart",
                json!({"arguments": {"program": dotted, "stopOnEntry": true}}),
            ),
        ]));
        assert_eq!(
            response(&out, 3)["body"]["breakpoints"][0]["verified"],
            true
        );
        let listed = response(&out, 5)["body"]["result"]
            .as_str()
            .unwrap_or_default();
        assert!(listed.contains("No breakpoints"), "{listed}");
        assert_eq!(response(&out, 6)["success"], true, "{out:?}");
    }

    #[test]
    fn arguments_are_checked_and_answered_as_the_protocol_says() {
        let long = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
        let out = session(framed(&[
            request(
                1,
                "initialize",
                json!({"linesStartAt1": true, "columnsStartAt1": false}),
            ),
            request(
                2,
                "launch",
                json!({"program": script("reduce.s"), "stopOnEntry": true}),
            ),
            request(3, "configurationDone", Value::Null),
            // A lane named without brackets answers its new value.
            request(
                4,
                "setVariable",
                json!({"variablesReference": 1024 + 16 + 1, "name": "3", "value": "9"}),
            ),
            // Up to the end of `in` (1024 bytes): 4 of 8 written.
            request(
                5,
                "writeMemory",
                json!({"memoryReference": "global:in", "offset": 1020, "allowPartial": true, "data": "AAAAAAAAAAA="}),
            ),
            request(
                6,
                "completions",
                json!({"text": "info br\nbre", "line": 2, "column": 3}),
            ),
            request(7, "stackTrace", json!({"threadId": 1})),
            request(8, "next", json!({"threadId": 0})),
            request(9, "goto", json!({"threadId": 1, "targetId": 0})),
            request(10, "next", json!({"threadId": 99})),
            request(
                11,
                "evaluate",
                json!({"expression": long, "context": "watch", "frameId": 1}),
            ),
            request(
                12,
                "setVariable",
                json!({"variablesReference": 1025, "name": "u4", "value": "1 +"}),
            ),
            request(
                13,
                "dataBreakpointInfo",
                json!({"variablesReference": 5, "name": "x"}),
            ),
            request(
                14,
                "dataBreakpointInfo",
                json!({"name": "global:in", "bytes": 0}),
            ),
            request(
                15,
                "restart",
                json!({"arguments": {"program": script("reduce.s"), "checks": ["nonsense"]}}),
            ),
            request(
                16,
                "setBreakpoints",
                json!({"source": {"path": script("reduce.s")}, "breakpoints": [{"line": 25, "hitCondition": "==2"}]}),
            ),
        ]));
        assert_eq!(response(&out, 4)["body"]["value"], "0x00000009 (9)");
        let w = &response(&out, 5)["body"];
        assert_eq!(
            (w["bytesWritten"].as_i64(), w["offset"].as_i64()),
            (Some(4), Some(1020)),
            "{w}"
        );
        let labels: Vec<&str> = response(&out, 6)["body"]["targets"]
            .as_array()
            .map(|a| a.iter().filter_map(|t| t["label"].as_str()).collect())
            .unwrap_or_default();
        assert!(labels.contains(&"break"), "{labels:?}");
        assert_eq!(response(&out, 7)["body"]["stackFrames"][0]["column"], 0);
        let failed = |seq| {
            let r = response(&out, seq);
            assert_eq!(r["success"], false, "{seq}: {r}");
            r["message"].as_str().unwrap_or_default().to_string()
        };
        assert!(failed(8).contains("no thread 0"));
        assert!(failed(9).contains("no goto target 0"));
        assert!(failed(10).contains("thread 99"), "{}", failed(10));
        assert!(failed(11).len() < 500, "{}", failed(11).len());
        assert!(!failed(12).contains("usage"), "{}", failed(12));
        let info = |seq| {
            response(&out, seq)["body"]["description"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        };
        assert!(
            info(13).contains("no variables reference 5"),
            "{}",
            info(13)
        );
        assert!(info(14).contains("at least 1 byte"), "{}", info(14));
        assert!(failed(15).contains("xlane"), "{}", failed(15));
        let bp = &response(&out, 16)["body"]["breakpoints"][0];
        assert_eq!(bp["verified"], false, "{bp}");
    }

    #[test]
    fn a_refused_terminate_ends_nothing() {
        // The reader marks the end when `terminate` arrives; refused (before
        // `initialize`), it must not leave a later pause unreported.
        let ending = Arc::new(AtomicBool::new(true));
        let mut s = Session::new(
            Vec::new(),
            Arc::new(Mutex::new(None)),
            Arc::new(AtomicBool::new(true)),
            ending.clone(),
        );
        let terminate: Request =
            serde_json::from_value(request(1, "terminate", Value::Null)).expect("a request");
        assert!(s.handle(terminate).expect("answered"));
        assert!(!s.ending(), "a refused terminate left the end marked");
    }

    #[test]
    fn garbage_never_panics() {
        let inputs: [&[u8]; 6] = [
            b"",
            b"\r\n\r\n",
            b"Content-Length: 99999999999999999999\r\n\r\n",
            b"Content-Length: 3\r\n\r\n\xff\xfe\xfd",
            b"Content-Length: 4\r\n\r\nnull",
            b"Content-Length: 2\r\n\r\n{}Content-Length: 1\r\n\r\n",
        ];
        for input in inputs {
            let _ = session(input.to_vec());
        }
    }
}
