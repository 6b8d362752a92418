//! The one path from what a user does to the engine and back, which every front end
//! adapts (the REPL, replay, the TUI's command line and keys, the GDB server's
//! `monitor`, and a DAP adapter): a line is parsed once into a typed [`Command`]; an
//! empty line repeats the last command as gdb's Enter does; a quit word ends the session;
//! the engine runs the command and logs its text; the driver records what replays to a
//! script and hands back an [`Outcome`] holding the typed result.
//!
//! The driver also decides when a command needs the user's yes first, as gdb asks before
//! `run` restarts a started program: a command that throws away the recorded history
//! (`restart`, `load`) once there is one, while `set confirm` is on, in a front end whose
//! user answers questions ([`Driver::asking`]: the REPL on a terminal, the TUI). Scripts,
//! piped input, `monitor` and DAP never ask, as gdb in batch mode. [`Driver::plan`] then
//! gives [`Plan::Confirm`]; the front end asks its own way and runs the planned command
//! on a yes ([`confirms`]), or prints [`NOT_CONFIRMED`].
//!
//! Running is split from planning so that a front end may run a command on another
//! thread (the TUI's worker owns the engine while a `continue` runs): [`Driver::plan`]
//! and [`Driver::finish`] run where the driver lives, [`Planned::run`] wherever the
//! engine is.

use super::command::{self, Command, CommandError};
use super::session::Recorder;
use super::{CommandOutput, Engine};

/// The words that end an interactive session, as gdb's `quit` (front ends without a
/// session to end, such as replay and `monitor`, refuse them).
pub const QUIT_WORDS: [&str; 3] = ["quit", "q", "exit"];

/// What a front end says when a question is answered no, as gdb does.
pub const NOT_CONFIRMED: &str = "Not confirmed.";

/// Whether `answer` to a question of [`Plan::Confirm`] is yes: `y` or `yes` in any case,
/// blanks around it ignored, as gdb's `query` reads it. Anything else, an empty answer
/// included, is no.
pub fn confirms(answer: &str) -> bool {
    let a = answer.trim();
    a.eq_ignore_ascii_case("y") || a.eq_ignore_ascii_case("yes")
}

/// What a front end hands the driver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input<'a> {
    /// A line the user typed (or a script holds): parsed here, once.
    Line(&'a str),
    /// A command the front end built from what it holds (a key on a cursor, a packet).
    Command(Command),
}

/// A command ready to run, with the text it is echoed, logged and recorded as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    /// The command-language text: the line as typed, or the command's own text.
    pub text: String,
    /// The command.
    pub command: Command,
}

impl Planned {
    /// A command a front end built: its text is the command's own.
    pub fn typed(command: Command) -> Planned {
        Planned {
            text: command.to_string(),
            command,
        }
    }

    /// Runs it on `engine` (on whatever thread holds the engine), which logs its text.
    pub fn run(&self, engine: &mut Engine) -> Ran {
        let before = engine.machine().stats.wave_instructions;
        Ran {
            before,
            result: engine.run_as(&self.command, &self.text),
        }
    }
}

/// What running a planned command gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ran {
    /// The launch's instruction count before it ran (recording an interrupted run as
    /// the command that stops where it stopped needs it).
    pub before: u64,
    /// Its output, or why it failed.
    pub result: Result<CommandOutput, CommandError>,
}

/// What the driver makes of an input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Run this command.
    Run(Planned),
    /// Ask first: the command throws away the recorded history. The front end shows
    /// `question`, runs `planned` when the answer [`confirms`] it, and otherwise says
    /// [`NOT_CONFIRMED`] and runs nothing.
    Confirm {
        /// What to ask: why, then a last line ending `(y or n) ` as gdb's questions do.
        question: String,
        /// The command to run on a yes.
        planned: Planned,
    },
    /// Nothing to do: a blank line with nothing to repeat, or a comment.
    Nothing,
    /// A quit word: the front end ends the session.
    Quit,
    /// The line is not a command.
    Invalid {
        /// The line as typed.
        text: String,
        /// Why it is not a command.
        error: CommandError,
    },
}

/// The result of one input, planned, run and finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A command ran (or failed when it ran).
    Ran {
        /// What ran, as it was echoed and logged.
        planned: Planned,
        /// What it gave (boxed: a stop event is large, and most outcomes are passed on).
        ran: Box<Ran>,
    },
    /// Nothing to do.
    Nothing,
    /// A quit word.
    Quit,
    /// The line is not a command.
    Invalid {
        /// The line as typed.
        text: String,
        /// Why.
        error: CommandError,
    },
    /// The command needed a yes ([`Plan::Confirm`]) that [`Driver::execute`] cannot ask
    /// for: nothing ran.
    NotConfirmed {
        /// The command that did not run.
        planned: Planned,
    },
}

impl Outcome {
    /// The command's result, when something was parsed or ran: `Ok` output, or the
    /// error (a parse error included).
    pub fn result(&self) -> Option<Result<&CommandOutput, &CommandError>> {
        match self {
            Outcome::Ran { ran, .. } => Some(ran.result.as_ref()),
            Outcome::Invalid { error, .. } => Some(Err(error)),
            Outcome::Nothing | Outcome::Quit | Outcome::NotConfirmed { .. } => None,
        }
    }

    /// The text a text front end prints: the output, `error: ...`, or
    /// [`NOT_CONFIRMED`].
    pub fn text(&self) -> String {
        if let Outcome::NotConfirmed { .. } = self {
            return format!("{NOT_CONFIRMED}\n");
        }
        match self.result() {
            Some(Ok(out)) => out.text.clone(),
            Some(Err(e)) => format!("error: {e}\n"),
            None => String::new(),
        }
    }
}

/// The recorder could not write a line; the session goes on, the line is in the error.
#[derive(Debug, thiserror::Error)]
#[error("recording `{line}`: {source}")]
pub struct RecordError {
    /// The line that was not recorded.
    pub line: String,
    /// Why.
    #[source]
    pub source: std::io::Error,
}

/// Parses and runs one line on `engine` without a driver's state (no repeat, no quit
/// words, no recording): for tests and tools that hold a line of text. Blank lines and
/// comments give empty output.
pub fn run_line(engine: &mut Engine, line: &str) -> Result<CommandOutput, CommandError> {
    match command::parse(line)? {
        Some(cmd) => engine.run_as(&cmd, line.trim()),
        None => Ok(CommandOutput::default()),
    }
}

/// A front end's command state: the command Enter repeats, the recorder, whether quit
/// words end a session, whether commands may write files, and whether its user answers
/// questions.
#[derive(Debug)]
pub struct Driver {
    last: Option<Command>,
    recorder: Option<Recorder>,
    interactive: bool,
    writes: Writes,
    asks: bool,
}

/// Whether the commands a driver plans may write files (`save`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writes {
    /// The user types the commands, or allowed a file's commands to write.
    Allowed,
    /// The commands come from a file (a replayed script or session log): one that writes
    /// a file is refused, so a script cannot overwrite what the user can write.
    Refused,
}

impl Default for Driver {
    fn default() -> Driver {
        Driver::new()
    }
}

impl Driver {
    /// A driver for an interactive session (quit words quit) that records nothing.
    pub fn new() -> Driver {
        Driver {
            last: None,
            recorder: None,
            interactive: true,
            writes: Writes::Allowed,
            asks: false,
        }
    }

    /// A driver for a script or a remote console (replay, `monitor`): quit words are
    /// not commands there, so they fail as any unknown word does.
    pub fn non_interactive() -> Driver {
        Driver {
            interactive: false,
            ..Driver::new()
        }
    }

    /// A driver for a file's commands (`wavedbg replay`): not interactive, and commands
    /// that write files are refused unless `writes` allows them (`--allow-writes`).
    pub fn replaying(writes: Writes) -> Driver {
        Driver {
            writes,
            ..Driver::non_interactive()
        }
    }

    /// A driver that records what replays to `recorder` (`--record`).
    pub fn recording(recorder: Recorder) -> Driver {
        Driver {
            recorder: Some(recorder),
            ..Driver::new()
        }
    }

    /// The same driver, asking before a command that throws away the recorded history
    /// when `asks` is true: for a front end whose user answers at once (the REPL on a
    /// terminal, the TUI). Every driver starts asking nothing, as gdb in batch mode.
    pub fn asking(self, asks: bool) -> Driver {
        Driver { asks, ..self }
    }

    /// The last command that parsed: what Enter repeats (through [`Engine::repeat_of`]).
    pub fn last(&self) -> Option<&Command> {
        self.last.as_ref()
    }

    /// Makes a plan of an input: parses a line once (an empty one repeats the last
    /// command, a quit word quits), or takes a built command as it is; a command that
    /// needs the user's yes first is planned as [`Plan::Confirm`] (see the module's
    /// comment).
    pub fn plan(&mut self, engine: &Engine, input: Input<'_>) -> Plan {
        let line = match input {
            // A key or a packet is not what Enter repeats: that is the last typed line.
            Input::Command(cmd) => return self.ready(engine, Planned::typed(cmd)),
            Input::Line(line) => line.trim(),
        };
        if line.is_empty() {
            // As gdb: Enter repeats a step or continue, and `x` goes on from where it
            // ended.
            return match self.last.as_ref().and_then(|c| engine.repeat_of(c)) {
                Some(cmd) => {
                    self.last = Some(cmd.clone());
                    self.ready(engine, Planned::typed(cmd))
                }
                None => Plan::Nothing,
            };
        }
        if self.interactive && QUIT_WORDS.contains(&line) {
            return Plan::Quit;
        }
        match command::parse(line) {
            Ok(Some(cmd)) if cmd.writes_files() && self.writes == Writes::Refused => {
                Plan::Invalid {
                    text: line.to_string(),
                    error: CommandError::refused(
                        cmd.name(),
                        format!("`{}` writes a file, and a replayed script or session may not write files unless you allow it (wavedbg replay --allow-writes)", cmd.name()),
                    ),
                }
            }
            Ok(Some(cmd)) => {
                self.last = Some(cmd.clone());
                self.ready(
                    engine,
                    Planned {
                        text: line.to_string(),
                        command: cmd,
                    },
                )
            }
            Ok(None) => Plan::Nothing,
            Err(e) => Plan::Invalid {
                text: line.to_string(),
                error: e.into(),
            },
        }
    }

    /// `planned` to run, or to ask about first.
    fn ready(&self, engine: &Engine, planned: Planned) -> Plan {
        match self.question(engine, &planned.command) {
            Some(question) => Plan::Confirm { question, planned },
            None => Plan::Run(planned),
        }
    }

    /// The question to ask before `command`, when it matters: this driver asks, `set
    /// confirm` is on, the command throws away the recorded history (it relaunches), and
    /// there is one to lose (an instruction ran, or the record holds an edit, as after
    /// `goto 0`).
    fn question(&self, engine: &Engine, command: &Command) -> Option<String> {
        if !self.asks || !engine.confirm() || !command.relaunches() {
            return None;
        }
        // A `load` that cannot happen (a broken file, another kernel's session) fails
        // without asking: there is nothing to confirm.
        if let Command::Load(file) = command {
            if engine.loadable(file).is_err() {
                return None;
            }
        }
        let ran =
            engine.machine().stats.wave_instructions > 0 || engine.history().info(0).entries > 0;
        if !ran {
            return None;
        }
        let how = match command {
            Command::Load(file) => crate::clip_quoted(format!(" with the settings of `{file}`")),
            _ => String::new(),
        };
        Some(format!(
            "The launch restarts{how} and its recorded history goes.\nStart it from the beginning? (y or n) "
        ))
    }

    /// Finishes a command that ran: records what replays as it ran (not a failed
    /// command, a failed `expect` or a `save`; an interrupted run as the command that
    /// stops where it stopped), and builds the outcome. A recorder that fails is dropped
    /// (the session goes on unrecorded) and reported once, with the line it lost; the
    /// outcome is returned either way.
    pub fn finish(
        &mut self,
        engine: &Engine,
        planned: Planned,
        ran: Ran,
    ) -> (Outcome, Option<RecordError>) {
        let failed = self.recorder.as_mut().and_then(|r| {
            r.record_outcome(
                engine,
                &planned.text,
                Some(&planned.command),
                ran.before,
                &ran.result,
            )
            .err()
            .map(|source| RecordError {
                line: planned.text.clone(),
                source,
            })
        });
        if failed.is_some() {
            self.recorder = None;
        }
        (
            Outcome::Ran {
                planned,
                ran: Box::new(ran),
            },
            failed,
        )
    }

    /// Plans, runs and finishes one input on `engine`, for front ends that run commands
    /// where they read them and ask nothing (replay, DAP). It cannot ask: a command that
    /// needs a yes ([`Plan::Confirm`], only from a driver that asks) does not run, and
    /// the outcome is [`Outcome::NotConfirmed`].
    pub fn execute(
        &mut self,
        engine: &mut Engine,
        input: Input<'_>,
    ) -> (Outcome, Option<RecordError>) {
        let plan = self.plan(engine, input);
        self.execute_plan(engine, plan)
    }

    /// The second half of [`Driver::execute`]: runs and finishes a plan already made (a
    /// front end that looks at the planned command first, as the DAP adapter does to say
    /// `continued` before a console line runs the machine).
    pub fn execute_plan(
        &mut self,
        engine: &mut Engine,
        plan: Plan,
    ) -> (Outcome, Option<RecordError>) {
        match plan {
            Plan::Run(planned) => {
                let ran = planned.run(engine);
                self.finish(engine, planned, ran)
            }
            Plan::Confirm { planned, .. } => (Outcome::NotConfirmed { planned }, None),
            Plan::Nothing => (Outcome::Nothing, None),
            Plan::Quit => (Outcome::Quit, None),
            Plan::Invalid { text, error } => (Outcome::Invalid { text, error }, None),
        }
    }

    /// [`Driver::execute`] of a line, for tests and scripts that hold text.
    pub fn run_line(&mut self, engine: &mut Engine, line: &str) -> Outcome {
        self.execute(engine, Input::Line(line)).0
    }
}
