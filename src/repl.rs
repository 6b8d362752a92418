//! `wavedbg repl`: the line-oriented debugger (rustyline), with a persistent history shared
//! with the TUI's command line, completion of commands, registers, labels and buffer names,
//! hints from history, Ctrl-C to interrupt a run and Ctrl-D to quit.

use std::borrow::Cow;
use std::sync::Mutex;

use color_eyre::eyre::{eyre, Result};
use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::{Hinter, HistoryHinter};
use rustyline::history::{DefaultHistory, History};
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};
use wavedbg_emulator::debug::command::HELP;
use wavedbg_emulator::debug::session::{history_path, Recorder};
use wavedbg_emulator::debug::{Engine, InterruptHandle};

use crate::cli::emit;
use crate::launch::{open_engine, DebugArgs};

const PROMPT: &str = "(wavedbg) ";

/// Completion words: commands, registers, labels, buffers, `info` topics.
struct Words {
    commands: Vec<String>,
    names: Vec<String>,
}

impl Words {
    fn of(engine: &Engine) -> Words {
        let mut commands: Vec<String> = HELP.iter().map(|(n, ..)| n.to_string()).collect();
        commands.extend(["quit".to_string()]);
        let p = engine.machine().program();
        let mut names: Vec<String> = p.labels.keys().cloned().collect();
        names.extend(p.buffers.iter().map(|b| b.name.clone()));
        names.extend((0..128).map(|i| format!("v{i}")));
        names.extend((0..64).map(|i| format!("u{i}")));
        names.extend(
            [
                "exec",
                "pc",
                "lane",
                "wave",
                "global:",
                "shared:",
                "scratch:",
                "barrier",
                "scheduler-locking",
                "on",
                "off",
            ]
            .map(String::from),
        );
        names.extend(
            [
                "waves",
                "lanes",
                "registers",
                "breakpoints",
                "watchpoints",
                "changes",
                "display",
            ]
            .map(String::from),
        );
        Words { commands, names }
    }
}

struct ReplHelper {
    words: Words,
    hinter: HistoryHinter,
}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = &line[..pos];
        let start = before
            .rfind(|c: char| c.is_whitespace() || c == '[' || c == '(' || c == ',')
            .map_or(0, |i| i + 1);
        let word = &before[start..];
        let pool = if before[..start].trim().is_empty() {
            &self.words.commands
        } else {
            &self.words.names
        };
        let pairs = pool
            .iter()
            .filter(|w| w.starts_with(word))
            .map(|w| Pair {
                display: w.clone(),
                replacement: w.clone(),
            })
            .collect();
        Ok((start, pairs))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;

    fn hint(&self, line: &str, pos: usize, ctx: &Context<'_>) -> Option<String> {
        self.hinter.hint(line, pos, ctx)
    }
}

impl Highlighter for ReplHelper {
    fn highlight_hint<'h>(&self, hint: &'h str) -> Cow<'h, str> {
        // Dim, so a hint is not mistaken for typed text.
        Cow::Owned(format!("\x1b[2m{hint}\x1b[0m"))
    }
}

impl Validator for ReplHelper {}

impl Helper for ReplHelper {}

/// Routes Ctrl-C to the engine while a command runs (rustyline reads Ctrl-C as a key
/// while editing, so the handler only fires during runs).
fn install_interrupt(handle: InterruptHandle) -> Result<()> {
    static CURRENT: Mutex<Option<InterruptHandle>> = Mutex::new(None);
    if let Ok(mut c) = CURRENT.lock() {
        *c = Some(handle);
    }
    let result = ctrlc::set_handler(|| {
        if let Ok(c) = CURRENT.lock() {
            if let Some(h) = c.as_ref() {
                h.interrupt();
            }
        }
    });
    match result {
        Ok(()) | Err(ctrlc::Error::MultipleHandlers) => Ok(()),
        Err(e) => Err(eyre!("cannot install the Ctrl-C handler: {e}")),
    }
}

/// Runs the REPL.
pub fn run(args: &DebugArgs) -> Result<i32> {
    let mut engine = open_engine(
        args.kernel.as_deref(),
        args.session.as_deref(),
        &args.launch,
    )?;
    let record = args.record.as_deref();
    install_interrupt(engine.interrupt_handle())?;
    let mut recorder = record
        .map(|p| Recorder::create(p, &engine).map_err(|e| eyre!("{}: {e}", p.display())))
        .transpose()?;
    let mut rl: Editor<ReplHelper, DefaultHistory> =
        Editor::new().map_err(|e| eyre!("cannot start the line editor: {e}"))?;
    rl.set_helper(Some(ReplHelper {
        words: Words::of(&engine),
        hinter: HistoryHinter::new(),
    }));
    let history = history_path();
    if let Some(dir) = history.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = rl.load_history(&history);
    let m = engine.machine();
    emit(&format!(
        "wavedbg: {} ({} waves resident, {} workgroups of {} lanes). `help` lists commands; Ctrl-C interrupts a run, Ctrl-D quits.\n",
        engine.kernel_path().unwrap_or("kernel"),
        m.waves.len(),
        m.launch().grid,
        m.launch().workgroup_lanes
    ))?;
    loop {
        let line = match rl.readline(PROMPT) {
            Ok(l) => l,
            Err(ReadlineError::Interrupted) => {
                emit("Quit with Ctrl-D or `quit`.\n")?;
                continue;
            }
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(eyre!("reading input: {e}")),
        };
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        if rl.history_mut().add(trimmed).unwrap_or(false) {
            // Append as we go, so the TUI (and a crash) see the history too.
            let _ = rl.append_history(&history);
        }
        if matches!(trimmed, "quit" | "q" | "exit") {
            break;
        }
        if let Some(r) = recorder.as_mut() {
            r.record(trimmed).map_err(|e| eyre!("recording: {e}"))?;
        }
        match engine.execute_line(trimmed) {
            Ok(out) => emit(&out.text)?,
            Err(e) => emit(&format!("error: {e}\n"))?,
        }
    }
    Ok(0)
}
