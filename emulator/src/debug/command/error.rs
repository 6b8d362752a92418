//! Why a command did not run: [`ParseError`] when its text is not a command, and
//! [`CommandError`] for every failure, parse or run, typed by where it came from.

use super::help::usage;
use crate::debug::expr::ExprError;
use crate::debug::EngineError;

/// A line that is not a command: what is wrong, where, and the command's usage.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}{}", usage_line(*usage))]
pub struct ParseError {
    /// What is wrong, quoting the text.
    pub message: String,
    /// The 1-based character column of the line where the fault is, when one place is at
    /// fault (an expression's bad token, a number that is not one).
    pub column: Option<usize>,
    /// The usage line of the command, or how to list the commands for an unknown word.
    pub usage: Option<&'static str>,
}

impl ParseError {
    /// A fault in command `name`'s arguments.
    pub(super) fn new(name: &str, message: impl Into<String>) -> ParseError {
        ParseError {
            message: crate::clip_quoted(message.into()),
            column: None,
            usage: usage(name),
        }
    }

    /// The same fault, placed at a 1-based column.
    pub(super) fn at(mut self, column: usize) -> ParseError {
        self.column = Some(column);
        self
    }

    /// `help T` where T names no command.
    pub(super) fn unknown_topic(topic: &str) -> ParseError {
        ParseError {
            message: format!("no command `{topic}`"),
            column: None,
            usage: Some(HELP_HINT),
        }
    }

    /// `help K REST` where K names a command (as the user wrote it) and REST none of its
    /// topics (`help why extra`).
    pub(super) fn unknown_subtopic(known: &str, rest: &str) -> ParseError {
        ParseError {
            message: format!("`{known}` has no topic `{rest}` (`help {known}` shows it whole)"),
            column: None,
            usage: Some(HELP_HINT),
        }
    }
}

/// What an unknown command's error suggests.
pub(super) const HELP_HINT: &str = "help lists every command";

/// The usage an engine refusal shows: none for an interrupt (nothing was mistyped).
fn engine_usage(command: &str, error: &EngineError) -> Option<&'static str> {
    usage(command).filter(|_| !error.is_interrupt())
}

fn usage_line(usage: Option<&str>) -> String {
    usage.map(|u| format!("\nusage: {u}")).unwrap_or_default()
}

/// A command that could not be parsed or run. Nothing was changed. Its text is the
/// message, then the command's usage on a line of its own (`usage: ...`) for faults in
/// what was written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// The text is not a command (unknown word, malformed arguments).
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The engine refused the operation (no such label, wave, point; a range outside
    /// memory).
    #[error("{error}{}", usage_line(engine_usage(command, error)))]
    Engine {
        /// The command's canonical name, whose usage the message shows.
        command: &'static str,
        /// Why the engine refused.
        error: EngineError,
    },
    /// An expression could not be evaluated now (a lane out of range, no such symbol).
    #[error("cannot evaluate `{text}`: {}{}", error.message, usage_line(usage(command)))]
    Eval {
        /// The command's canonical name.
        command: &'static str,
        /// The expression as written.
        text: String,
        /// Why it has no value.
        error: ExprError,
    },
    /// Memory that cannot be read or written (unallocated, outside a window).
    #[error("cannot access memory: {message}{}", usage_line(usage(command)))]
    Memory {
        /// The command's canonical name.
        command: &'static str,
        /// What the machine said about the access.
        message: String,
    },
    /// Anything else the command refuses now: a session file that cannot be written, a
    /// display that does not exist, no source to list.
    #[error("{message}{}", usage_line(usage(command)))]
    Refused {
        /// The command's canonical name.
        command: &'static str,
        /// Why.
        message: String,
    },
}

impl CommandError {
    /// An engine refusal of command `command`.
    pub fn engine(command: &'static str, error: EngineError) -> CommandError {
        CommandError::Engine { command, error }
    }

    /// A refusal of command `command` that is none of the typed kinds.
    pub fn refused(command: &'static str, message: impl Into<String>) -> CommandError {
        CommandError::Refused {
            command,
            message: message.into(),
        }
    }

    /// The message without the usage line.
    pub fn message(&self) -> String {
        match self {
            CommandError::Parse(p) => p.message.clone(),
            CommandError::Engine { error, .. } => error.to_string(),
            CommandError::Eval { text, error, .. } => {
                format!("cannot evaluate `{text}`: {}", error.message)
            }
            CommandError::Memory { message, .. } => format!("cannot access memory: {message}"),
            CommandError::Refused { message, .. } => message.clone(),
        }
    }

    /// The usage line shown under the message, if any.
    pub fn usage(&self) -> Option<&'static str> {
        match self {
            CommandError::Parse(p) => p.usage,
            CommandError::Engine { command, error } => engine_usage(command, error),
            CommandError::Eval { command, .. }
            | CommandError::Memory { command, .. }
            | CommandError::Refused { command, .. } => usage(command),
        }
    }
}
