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
use wavedbg_emulator::debug::completion::Words;
use wavedbg_emulator::debug::session::{history_path, Recorder};
use wavedbg_emulator::debug::InterruptHandle;

use crate::cli::emit;
use crate::launch::{open_engine, DebugArgs};

const PROMPT: &str = "(wavedbg) ";

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
        let (start, words) = self.words.candidates(&line[..pos]);
        Ok((
            start,
            words
                .into_iter()
                .map(|w| Pair {
                    display: w.clone(),
                    replacement: w,
                })
                .collect(),
        ))
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
        words: Words::of(&engine, &["quit"]),
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
