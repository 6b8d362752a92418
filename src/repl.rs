//! `wavedbg repl`: the line-oriented debugger (rustyline), with a persistent history shared
//! with the TUI's command line, completion by context (the words each command takes; a
//! second Tab lists them), the context after every stop (`set context off` turns it off),
//! hints from history, Ctrl-C to interrupt a run and Ctrl-D to quit. On a terminal it asks,
//! as gdb does, before `run` or `load` throws the recorded history away; piped input is
//! never asked anything.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use color_eyre::eyre::{Result, WrapErr};
use rustyline::completion::{Completer, Pair};
use rustyline::config::Configurer;
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::{Hinter, HistoryHinter};
use rustyline::history::{DefaultHistory, History};
use rustyline::validate::Validator;
use rustyline::{CompletionType, Context, Editor, Helper};
use wavedbg_emulator::debug::command::CommandError;
use wavedbg_emulator::debug::completion::{self, Words};
use wavedbg_emulator::debug::driver::{confirms, Driver, Input, Plan, NOT_CONFIRMED, QUIT_WORDS};
use wavedbg_emulator::debug::session::{history_path, Recorder, HISTORY_ENTRIES};
use wavedbg_emulator::debug::view::count;
use wavedbg_emulator::debug::{CommandOutput, Engine, InterruptHandle};
use wavedbg_emulator::files;

use crate::launch::DebugArgs;
use crate::output::{emit, emit_verbatim};

const PROMPT: &str = "(wavedbg) ";

/// How many new history lines piped input collects before appending them to the file.
const HISTORY_BATCH: usize = 500;

/// Unreadable input lines in a row after which the REPL stops reading.
const BAD_READS: u32 = 1000;

struct ReplHelper {
    words: Words,
    hinter: HistoryHinter,
    /// The columns of the line and of the hint drawn after it, as of the last hint
    /// asked for: Ctrl-C leaves the hint on the screen (rustyline clears it on Enter
    /// only), so the REPL erases it ([`ReplHelper::hint_eraser`]).
    shown: std::cell::Cell<(usize, usize)>,
}

impl ReplHelper {
    /// The escape sequence that erases the hint rustyline left after the line when
    /// Ctrl-C cancelled it (rustyline moved the cursor after the hint, then to the start
    /// of the next row), and comes back to that next row; `None` when no hint shows.
    /// `columns`: the terminal's width, for a line and hint that wrapped.
    fn hint_eraser(&self, prompt: usize, columns: usize) -> Option<String> {
        let (line, hint) = self.shown.take();
        if hint == 0 || columns == 0 {
            return None;
        }
        // Rows and column where the typed text ends, and the row the hint ends on.
        let text_end = prompt + line;
        let rows_up = 1 + (text_end + hint) / columns - text_end / columns;
        let mut s = format!("\x1b[{rows_up}A\r");
        let col = text_end % columns;
        if col > 0 {
            s.push_str(&format!("\x1b[{col}C"));
        }
        // Clear from there to the end of the screen (the hint's rows), and go on under
        // the line.
        s.push_str("\x1b[J\n");
        Some(s)
    }
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
        // A word completed alone is followed by a space, as in gdb (a space prefix such as
        // `global:` is not: its address follows).
        Ok((
            start,
            words
                .into_iter()
                .map(|w| Pair {
                    replacement: completion::completed(&w),
                    display: w,
                })
                .collect(),
        ))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;

    fn hint(&self, line: &str, pos: usize, ctx: &Context<'_>) -> Option<String> {
        let hint = self.hinter.hint(line, pos, ctx);
        let width = |t: &str| t.chars().count();
        self.shown
            .set((width(line), hint.as_deref().map_or(0, width)));
        hint
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

/// Routes SIGINT to the engine while a command runs.
///
/// rustyline (19, without its `signal-hook` feature) installs its own SIGINT handler for
/// each `readline` (when it sets up the terminal reader) and puts back the disposition it
/// found when that `readline` returns: at the prompt it turns `kill -INT` into a cancelled
/// line, and Ctrl-C is a key there anyway (raw mode has no ISIG). While a command runs the
/// terminal is back in cooked mode, so Ctrl-C arrives as SIGINT, and must reach the engine,
/// not a rustyline pipe nobody reads. So around each command the router installs
/// signal-hook's handler, captured before the editor existed, and afterwards puts back
/// whatever was there. (rustyline 17 kept its handler for the editor's whole life, which is
/// why the router swaps rather than relies on rustyline restoring it: it works with both.
/// The `signal-hook` feature, which leaves SIGINT alone, is no way out: in 17.0.2 it made
/// rustyline wait in `select` with keys still buffered, so a line pasted with its newline
/// was not accepted until the next key.)
///
/// A thread reads SIGINT from signal-hook's self-pipe, so nothing but a write happens in
/// the handler, and interrupts the engine only while a command runs.
struct SigintRouter {
    state: Arc<Mutex<CommandState>>,
    engine: InterruptHandle,
    signals: signal_hook::iterator::Handle,
    thread: Option<JoinHandle<()>>,
    /// signal-hook's SIGINT disposition, installed while a command runs.
    ours: libc::sigaction,
    /// The disposition it replaced for the command (rustyline's, on a terminal).
    saved: Option<libc::sigaction>,
}

#[derive(Default)]
struct CommandState {
    running: bool,
    interrupted: bool,
}

/// Sets SIGINT's disposition to `new`; returns the one it replaces.
fn swap_sigint(new: Option<&libc::sigaction>) -> std::io::Result<libc::sigaction> {
    // SAFETY: an all-zero sigaction is a valid value to be overwritten, and `new`, when
    // given, is a disposition read back from the kernel earlier, so it is valid to set.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        let new = new.map_or(std::ptr::null(), |n| n as *const libc::sigaction);
        if libc::sigaction(libc::SIGINT, new, &mut old) == 0 {
            Ok(old)
        } else {
            Err(std::io::Error::last_os_error())
        }
    }
}

impl SigintRouter {
    /// Registers the SIGINT handler. Call it before the editor is created, which saves
    /// this disposition and installs its own.
    fn install(engine: InterruptHandle) -> Result<SigintRouter> {
        let mut signals = signal_hook::iterator::Signals::new([signal_hook::consts::SIGINT])
            .wrap_err("cannot install the Ctrl-C handler")?;
        let ours = swap_sigint(None).wrap_err("cannot read the Ctrl-C handler")?;
        let handle = signals.handle();
        let state = Arc::new(Mutex::new(CommandState::default()));
        let (thread_state, thread_engine) = (state.clone(), engine.clone());
        let thread = std::thread::Builder::new()
            .name("wavedbg-sigint".into())
            .spawn(move || {
                for _ in signals.forever() {
                    // The lock orders this against `end`, so no request outlives its command.
                    let mut s = lock(&thread_state);
                    if s.running {
                        s.interrupted = true;
                        thread_engine.interrupt();
                    }
                }
            })
            .wrap_err("cannot start the Ctrl-C thread")?;
        Ok(SigintRouter {
            state,
            engine,
            signals: handle,
            thread: Some(thread),
            ours,
            saved: None,
        })
    }

    /// A command starts: SIGINT now interrupts it.
    fn begin(&mut self) -> Result<()> {
        // Our handler first: a SIGINT before `running` is set is dropped, not left in
        // rustyline's pipe to cancel a later line.
        let saved = swap_sigint(Some(&self.ours)).wrap_err("cannot install the Ctrl-C handler")?;
        self.saved = Some(saved);
        *lock(&self.state) = CommandState {
            running: true,
            interrupted: false,
        };
        Ok(())
    }

    /// The command is over; returns whether a SIGINT came while it ran.
    fn end(&mut self) -> Result<bool> {
        let interrupted = {
            let mut s = lock(&self.state);
            s.running = false;
            // A request the engine did not act on (the command ended first) must not stop
            // the next run.
            self.engine.cancel();
            std::mem::take(&mut s.interrupted)
        };
        if let Some(saved) = self.saved.take() {
            swap_sigint(Some(&saved))
                .wrap_err("cannot restore the line editor's Ctrl-C handler")?;
        }
        Ok(interrupted)
    }
}

impl Drop for SigintRouter {
    fn drop(&mut self) {
        self.signals.close();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Whether a `readline` has the terminal (raw mode, the prompt on screen): what
/// [`ContinueWatcher`] restores after SIGCONT.
static READING: AtomicBool = AtomicBool::new(false);

/// Reads a line with `prompt`, marked as [`READING`] meanwhile.
fn read_line(
    rl: &mut Editor<ReplHelper, DefaultHistory>,
    prompt: &str,
) -> rustyline::Result<String> {
    // A hint of the previous line is not on the screen any more.
    if let Some(h) = rl.helper() {
        h.shown.set((0, 0));
    }
    READING.store(true, Ordering::SeqCst);
    let line = rl.readline(prompt);
    READING.store(false, Ordering::SeqCst);
    line
}

/// Sets the line editor's terminal up again after SIGCONT, as vim does.
///
/// SIGSTOP cannot be caught, so rustyline (which handles Ctrl-Z itself) does not see it
/// coming: the shell that takes the terminal back resets it to cooked mode, and after `fg`
/// the line was echoed by the terminal and read only on Enter, with no prompt and Tab
/// inert. A thread reads SIGCONT from signal-hook's self-pipe; while a line is read it puts
/// the terminal back in rustyline's raw mode (the same flags rustyline sets, from the
/// cooked state the shell left) and has rustyline's external printer draw the prompt and
/// the line again (an empty message: a fresh line, then the prompt and what was typed).
struct ContinueWatcher {
    signals: signal_hook::iterator::Handle,
    thread: Option<JoinHandle<()>>,
}

impl ContinueWatcher {
    /// Starts watching for SIGCONT; `None` when the editor has no terminal (piped input).
    fn install(rl: &mut Editor<ReplHelper, DefaultHistory>) -> Option<ContinueWatcher> {
        use rustyline::ExternalPrinter;
        let mut printer = rl.create_external_printer().ok()?;
        let mut signals =
            signal_hook::iterator::Signals::new([signal_hook::consts::SIGCONT]).ok()?;
        let handle = signals.handle();
        let thread = std::thread::Builder::new()
            .name("wavedbg-sigcont".into())
            .spawn(move || {
                for _ in signals.forever() {
                    if READING.load(Ordering::SeqCst) && raw_mode_again() {
                        let _ = printer.print(String::new());
                    }
                }
            })
            .ok()?;
        Some(ContinueWatcher {
            signals: handle,
            thread: Some(thread),
        })
    }
}

impl Drop for ContinueWatcher {
    fn drop(&mut self) {
        self.signals.close();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Puts standard input back in the raw mode rustyline reads a line in (19's
/// `termios_::enable_raw_mode`, without ISIG) if something reset it to canonical mode;
/// returns whether it did. Bracketed paste is enabled again too (the shell turns it off).
fn raw_mode_again() -> bool {
    // SAFETY: tcgetattr fills the zeroed termios (a plain C struct) or fails; tcsetattr
    // gets the value tcgetattr read, with flags changed.
    unsafe {
        let fd = libc::STDIN_FILENO;
        let mut t: libc::termios = std::mem::zeroed();
        if libc::tcgetattr(fd, &mut t) != 0 || t.c_lflag & libc::ICANON == 0 {
            return false;
        }
        t.c_iflag &= !(libc::BRKINT | libc::ICRNL | libc::INPCK | libc::ISTRIP | libc::IXON);
        t.c_cflag |= libc::CS8;
        t.c_lflag &= !(libc::ECHO | libc::ICANON | libc::IEXTEN | libc::ISIG);
        t.c_cc[libc::VMIN] = 1;
        t.c_cc[libc::VTIME] = 0;
        if libc::tcsetattr(fd, libc::TCSADRAIN, &t) != 0 {
            return false;
        }
    }
    let mut out = std::io::stdout();
    let _ = out.write_all(b"\x1b[?2004h").and_then(|()| out.flush());
    true
}

/// The state even if a thread panicked holding it (it is two flags, always consistent).
fn lock(state: &Mutex<CommandState>) -> MutexGuard<'_, CommandState> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The line editor's settings for the shared history: what every front end that keeps it
/// uses, so all trim the file alike.
fn history_config() -> rustyline::Config {
    rustyline::Config::builder()
        .max_history_size(HISTORY_ENTRIES)
        .and_then(|b| b.history_ignore_dups(true))
        .map(|b| b.build())
        .unwrap_or_default()
}

/// Runs the REPL.
pub fn run(args: &DebugArgs) -> Result<i32> {
    let mut engine = args.open()?;
    // Ctrl-C in a terminal echoes `^C` with no newline; the stop goes on a line of its own.
    // Only a user at a terminal is asked questions (gdb's batch mode otherwise).
    let terminal = std::io::stdin().is_terminal();
    let mut driver = match args.record.as_deref() {
        Some(p) => Driver::recording(Recorder::create(p, &engine)?),
        None => Driver::new(),
    }
    .asking(terminal);
    // As pwndbg: the context after every stop (the engine's default is off, so replay
    // transcripts stay short).
    engine.set_context(true);
    let mut sigint = SigintRouter::install(engine.interrupt_handle())?;
    let mut rl: Editor<ReplHelper, DefaultHistory> =
        Editor::with_config(history_config()).wrap_err("cannot start the line editor")?;
    // The first Tab completes the common prefix, a second lists the candidates, as in gdb.
    rl.set_completion_type(CompletionType::List);
    rl.set_helper(Some(ReplHelper {
        words: Words::of(&engine, &QUIT_WORDS[..1]),
        hinter: HistoryHinter::new(),
        shown: Default::default(),
    }));
    // After SIGSTOP and `fg`, the prompt and raw mode come back (a terminal only).
    let _continued = if terminal {
        ContinueWatcher::install(&mut rl)
    } else {
        None
    };
    // The history file is kept only if it is a regular file (or new) within its limit:
    // the line editor sets its mode and reads it whole. A file that fails warns once and
    // the history lives in memory from then on.
    let history = history_path();
    if let Some(dir) = history.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let mut history_ok = match files::check_appendable(&history, files::HISTORY) {
        Ok(()) => true,
        Err(e) => {
            eprintln_visible!("warning: command history not saved: {e}");
            false
        }
    };
    if history_ok {
        let _ = rl.load_history(&history);
    }
    // New history lines not yet in the file (piped input saves in batches).
    let mut unsaved = 0usize;
    let m = engine.machine();
    let banner = format!(
        "wavedbg: {} ({} resident, {} of {} lanes). `help` lists commands; Ctrl-C interrupts a run, Ctrl-D quits.\n",
        engine.kernel_path().unwrap_or("kernel"),
        count(m.waves.len() as u64, "wave"),
        count(m.launch().grid as u64, "workgroup"),
        m.launch().workgroup_lanes
    );
    let columns = terminal_columns().unwrap_or(0);
    emit(&(wavedbg_emulator::debug::width::wrap_lines(&banner, columns)))?;
    // Lines read but not run yet: a paste of several lines arrives as one (bracketed
    // paste), and each runs in turn, as gdb runs them.
    let mut pasted: VecDeque<String> = VecDeque::new();
    // Read errors in a row: each consumed what it could not read, so a stream of them
    // ends, but one that never does (a broken terminal) must not spin.
    let mut bad_reads = 0;
    loop {
        let line = match pasted.pop_front() {
            Some(l) => l,
            None => match read_line(&mut rl, PROMPT) {
                Ok(l) if l.contains(['\n', '\r']) => {
                    bad_reads = 0;
                    let lines = l.split(['\n', '\r']).filter(|l| !l.trim().is_empty());
                    pasted.extend(lines.map(str::to_string));
                    continue;
                }
                Ok(l) => {
                    bad_reads = 0;
                    l
                }
                Err(ReadlineError::Interrupted) => {
                    // The dim history hint goes, as it does on Enter.
                    let columns = rl.dimensions().map_or(0, |(c, _)| usize::from(c));
                    let prompt = PROMPT.chars().count();
                    if let Some(erase) = rl.helper().and_then(|h| h.hint_eraser(prompt, columns)) {
                        emit_verbatim(&erase)?;
                    }
                    emit("Quit with Ctrl-D or `quit`.\n")?;
                    continue;
                }
                Err(ReadlineError::Eof) => break,
                // A line that is not UTF-8 (random bytes, a binary file piped in) is one
                // bad line, not the end of the session.
                Err(ReadlineError::Io(e))
                    if e.kind() == std::io::ErrorKind::InvalidData && bad_reads < BAD_READS =>
                {
                    bad_reads += 1;
                    emit("error: input line is not valid UTF-8; ignored\n")?;
                    continue;
                }
                Err(e) => return Err(e).wrap_err("reading input"),
            },
        };
        let trimmed = line.trim();
        // A line longer than the limit, or holding a control character, is run but not
        // kept (nor written to the file).
        if files::history_keeps(trimmed)
            && rl.history_mut().add(trimmed).unwrap_or(false)
            && history_ok
        {
            unsaved += 1;
            // Append as we go, so the TUI (and a crash) see the history too; piped input
            // in batches, as once the file is full every append re-reads and rewrites it
            // whole (0.9 ms a line).
            if terminal || unsaved >= HISTORY_BATCH {
                unsaved = 0;
                if let Err(e) = rl.append_history(&history) {
                    eprintln_visible!(
                        "warning: command history not saved to {} from now on: {e}",
                        history.display()
                    );
                    history_ok = false;
                }
            }
        }
        let planned = match driver.plan(&engine, Input::Line(trimmed)) {
            Plan::Run(planned) => planned,
            Plan::Confirm { question, planned } => {
                if ask(&mut rl, &question)? {
                    planned
                } else {
                    emit(&format!("{NOT_CONFIRMED}\n"))?;
                    continue;
                }
            }
            Plan::Nothing => continue,
            Plan::Quit => break,
            Plan::Invalid { error, .. } => {
                show(Err(&error), &engine, &mut rl)?;
                continue;
            }
        };
        // Output fits the terminal, read again for each command so a resize applies
        // (unless `set width` chose a width); piped output is never fitted.
        if let Some(columns) = terminal_columns() {
            engine.set_terminal_width(columns);
        }
        sigint.begin()?;
        let ran = planned.run(&mut engine);
        if sigint.end()? && terminal {
            emit("\n")?;
        }
        // Only what replays as it ran is recorded (see `Driver::finish`).
        let (outcome, lost) = driver.finish(&engine, planned, ran);
        // The driver has dropped the recorder: say so once and go on unrecorded.
        if let Some(e) = lost {
            eprintln_visible!(
                "warning: recording stopped: `{}` was not recorded ({}); the session goes on unrecorded",
                e.line,
                wavedbg_emulator::io_reason(&e.source)
            );
        }
        if let Some(result) = outcome.result() {
            show(result, &engine, &mut rl)?;
        }
    }
    if unsaved > 0 && history_ok {
        if let Err(e) = rl.append_history(&history) {
            eprintln_visible!(
                "warning: the last commands were not saved to {}: {e}",
                history.display()
            );
        }
    }
    Ok(0)
}

/// The columns of the terminal standard output is, or `None` when it is not one (piped
/// output keeps its lines whole, as replay transcripts do).
fn terminal_columns() -> Option<usize> {
    if !std::io::stdout().is_terminal() {
        return None;
    }
    crossterm::terminal::size()
        .ok()
        .and_then(|(columns, _)| (columns > 0).then_some(columns as usize))
}

/// Asks `question` (its last line is the prompt) and reads the answer as gdb's `query`
/// does: yes is `y` or `yes` ([`confirms`]); anything else, Ctrl-C and Ctrl-D are no. The
/// answer is no command, so it stays out of the history.
fn ask(rl: &mut Editor<ReplHelper, DefaultHistory>, question: &str) -> Result<bool> {
    let (why, prompt) = question.rsplit_once('\n').unwrap_or(("", question));
    if !why.is_empty() {
        emit(&format!("{why}\n"))?;
    }
    match read_line(rl, prompt) {
        Ok(answer) => Ok(confirms(&answer)),
        Err(ReadlineError::Interrupted | ReadlineError::Eof) => Ok(false),
        Err(e) => Err(e).wrap_err("reading the answer"),
    }
}

/// Prints a command's output or error, and refreshes what completion offers.
fn show(
    result: Result<&CommandOutput, &CommandError>,
    engine: &Engine,
    rl: &mut Editor<ReplHelper, DefaultHistory>,
) -> Result<()> {
    if let Some(h) = rl.helper_mut() {
        h.words.refresh(engine);
    }
    // Output echoes what was typed and names files: shown, never obeyed by the terminal.
    match result {
        Ok(out) => emit(&out.text),
        Err(e) => emit(&format!("error: {e}\n")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wavedbg_emulator::debug::completion::{check_case, CASES, CASES_KERNEL};

    /// The line rustyline leaves after Tab (`CompletionType::List`): the only candidate's
    /// replacement, or the replacements' longest common prefix when it is longer than the
    /// typed word.
    fn after_tab(line: &str, start: usize, pairs: &[Pair]) -> String {
        let Some(first) = pairs.first() else {
            return line.to_string();
        };
        let mut prefix = first.replacement.as_str();
        for p in &pairs[1..] {
            let n = prefix
                .char_indices()
                .zip(p.replacement.chars())
                .take_while(|((_, a), b)| a == b)
                .last()
                .map_or(0, |((i, a), _)| i + a.len_utf8());
            prefix = &prefix[..n];
        }
        if prefix.len() > line.len() - start {
            format!("{}{prefix}", &line[..start])
        } else {
            line.to_string()
        }
    }

    /// The engine's table of completion cases through the REPL's rustyline `Completer`.
    #[test]
    fn every_case_of_the_engines_table_through_rustyline() {
        let p = wavedbg_emulator::asm::assemble(CASES_KERNEL, "k.s", None).expect("assembles");
        let engine = Engine::new(&p, Default::default()).expect("launch");
        let helper = ReplHelper {
            words: Words::of(&engine, &QUIT_WORDS[..1]),
            hinter: HistoryHinter::new(),
            shown: Default::default(),
        };
        let history = DefaultHistory::new();
        let ctx = Context::new(&history);
        let failures: Vec<String> = CASES
            .iter()
            .filter_map(|(line, expect)| {
                let (start, pairs) = match helper.complete(line, line.len(), &ctx) {
                    Ok(r) => r,
                    Err(e) => return Some(format!("`{line}`: {e}")),
                };
                let candidates: Vec<String> = pairs.iter().map(|p| p.display.clone()).collect();
                check_case(line, *expect, &candidates, &after_tab(line, start, &pairs)).err()
            })
            .collect();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
