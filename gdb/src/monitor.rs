//! `monitor` commands: the command language (docs/commands.md) on the engine, plus a few
//! of the server's own.
//!
//! Commands act on the engine's selected wave, which follows the thread gdb last read
//! registers or memory of (and every stop); `monitor wave N` selects by global wave id
//! and `monitor lane N` selects the lane whose scratch the scratch window shows.
//! Commands that run the kernel (`continue`, `stepi`, `advance`, `finish`, `restart`,
//! `load`) are refused: gdb would not know the kernel moved. `save` and `load` write and
//! read files on the server's machine, so they are refused when the server listens on a
//! non-loopback address.

use std::fmt::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};

use wavedbg_emulator::debug::command::{self, Command};
use wavedbg_emulator::debug::view;

use crate::memory;
use crate::target::WaveTarget;

/// The server's own commands, for `monitor help`.
pub const SERVER_HELP: &str = "\
Server commands (wavedbg serve):
  why                    describe the last stop (fault text, watchpoint lanes, deadlock)
  threads                gdb thread ids and the waves in them
  windows                the address windows: code, global buffers, shared, scratch
  disassemble [LOC]      the kernel's own disassembly (gdb's x/i decodes x86)
Run control stays with the client: continue, stepi, Ctrl-C, kill.
";

fn refused(cmd: &Command, files_allowed: bool) -> Option<&'static str> {
    match cmd {
        Command::Continue
        | Command::Stepi(_)
        | Command::Advance(_)
        | Command::AdvanceBarrier
        | Command::Finish
        | Command::Interrupt => {
            Some("run control belongs to the client: use continue, stepi, until or Ctrl-C there\n")
        }
        Command::Restart => Some(
            "restart from the client: `target extended-remote` then `run`, or kill and reconnect\n",
        ),
        Command::Load(_) => Some("load a session with `wavedbg serve --session FILE`\n"),
        Command::Save(_) if !files_allowed => {
            Some("save is refused when the server listens on a non-loopback address\n")
        }
        _ => None,
    }
}

/// gdb thread ids and the waves in them.
pub fn threads(t: &WaveTarget) -> String {
    let e = t.engine();
    let m = e.machine();
    let mut s = String::from("thread  wave  workgroup  state       pc\n");
    for (i, w) in m.waves.iter().enumerate() {
        if !t.listed(i) {
            continue;
        }
        let _ = writeln!(
            s,
            "{}{:<6} {:<5} {:<10} {:<11} {}",
            if i == e.selected_wave { "*" } else { " " },
            i + 1,
            w.id,
            w.workgroup,
            w.state.name(),
            view::pc_text(m, w.pc)
        );
    }
    s
}

/// Runs one monitor command line and returns its output.
pub fn run(t: &mut WaveTarget, line: &str) -> String {
    let line = line.trim();
    let (word, rest) = line
        .split_once(char::is_whitespace)
        .map_or((line, ""), |(w, r)| (w, r.trim()));
    match word {
        "why" => {
            return match t.engine().last_stop() {
                Some(s) => format!("{}\n", view::describe_stop(t.engine(), s)),
                None => "The kernel has not stopped yet (it is at its launch).\n".into(),
            }
        }
        "threads" => return threads(t),
        "windows" => {
            let e = t.engine();
            return memory::describe(e.machine(), e.selected_wave, e.selected_lane);
        }
        "help" if rest.is_empty() => {
            let base = command::help(None).unwrap_or_default();
            return format!("{base}\n{SERVER_HELP}");
        }
        _ => {}
    }
    match command::parse(line) {
        Err(e) => return format!("{e}\n"),
        Ok(Some(cmd)) => {
            if let Some(why) = refused(&cmd, t.files_allowed) {
                return why.to_string();
            }
        }
        Ok(None) => return String::new(),
    }
    let engine = &mut t.engine;
    match catch_unwind(AssertUnwindSafe(|| engine.execute_line(line))) {
        Ok(Ok(out)) => out.text,
        Ok(Err(e)) => format!("{e}\n"),
        Err(_) => "internal error: the command failed (the server goes on)\n".into(),
    }
}
