//! Run control: `continue`, the steps (`next`/`stepIn` one line of the wave, a source
//! line where the kernel has a line table and the client does not ask for instructions,
//! else one instruction; `stepOut` the wave to its end; `stepBack` one line or
//! instruction back), `reverseContinue`,
//! `pause`, and `gotoTargets`/`goto` (moving a wave's PC to a line's first instruction).

use std::io::Write;

use wavedbg_emulator::debug::command::{Command, Location, RegRef, SetTarget};
use wavedbg_emulator::debug::expr::ParsedExpr;
use wavedbg_emulator::debug::view;

use crate::error::DapError;
use crate::events::thread_id;
use crate::session::{Reply, Session, Then};
use crate::types::{
    ContinueBody, GotoArguments, GotoTarget, GotoTargetsArguments, GotoTargetsBody, ThreadArguments,
};

impl<W: Write> Session<W> {
    /// Selects the wave a thread id names.
    pub(crate) fn select_thread(&mut self, thread: i64) -> Result<(), DapError> {
        // Checked here so the error names the thread, not the wave (its id less one).
        self.wave_of(thread)?;
        let id = u32::try_from(thread.saturating_sub(1))
            .map_err(|_| DapError::Invalid(format!("no thread {thread}")))?;
        self.engine()?.select_wave(id)?;
        Ok(())
    }

    fn check_running_allowed(&mut self, command: &str) -> Result<(), DapError> {
        self.engine()?;
        if !self.configured {
            return Err(DapError::OutOfOrder {
                command: command.into(),
                why: "send `configurationDone` first",
            });
        }
        if self.ended {
            return Err(DapError::Invalid(
                "the launch is over: restart it to run again".into(),
            ));
        }
        Ok(())
    }

    pub(crate) fn resume(
        &mut self,
        args: ThreadArguments,
        command: Command,
    ) -> Result<Reply, DapError> {
        self.check_running_allowed(command.name())?;
        // A deadlocked launch cannot go forward: the request fails with why, rather than
        // running nothing and reporting the same stop again (backwards still works).
        let backwards = matches!(
            command,
            Command::ReverseContinue
                | Command::ReverseStepi(_)
                | Command::ReverseStep(_)
                | Command::ReverseNext(_)
        );
        if !backwards {
            let m = self.engine()?.machine();
            if let Some(d) = m.launch_deadlock() {
                let text = view::deadlocked_text(m, &d, "");
                return Err(DapError::Deadlocked(text.replace("\n  ", "; ")));
            }
        }
        // A step is the thread's: it must name a resident wave (thread ids count from
        // 1, so 0 or none is refused). Continue runs them all.
        if !matches!(command, Command::Continue | Command::ReverseContinue) {
            self.select_thread(args.thread_id)?;
        }
        let reply = if matches!(command, Command::Continue) {
            Reply::body(ContinueBody {
                all_threads_continued: true,
            })?
        } else {
            Reply::empty()
        };
        Ok(reply.then(Then::Run(command)))
    }

    /// A step request: `line` (a source line of the wave, through the engine's line
    /// stepping) in a kernel with a line table (`.loc`) unless the client asks for
    /// `instruction` granularity (VS Code does in its disassembly view); `instruction`
    /// (one instruction) otherwise, where every line is one instruction.
    pub(crate) fn step(
        &mut self,
        args: ThreadArguments,
        line: Command,
        instruction: Command,
    ) -> Result<Reply, DapError> {
        let lines =
            self.engine()?.has_line_table() && args.granularity.as_deref() != Some("instruction");
        self.resume(args, if lines { line } else { instruction })
    }

    pub(crate) fn pause(&mut self) -> Result<Reply, DapError> {
        self.engine()?;
        // A run in progress was interrupted by the reader as this request arrived, and
        // its stop was reported; if none was running, nothing is left to stop.
        self.pause_handled();
        Ok(Reply::empty())
    }

    pub(crate) fn goto_targets(&mut self, args: GotoTargetsArguments) -> Result<Reply, DapError> {
        let line = self.engine_line(args.line)?;
        let engine = self.engine()?;
        let named =
            crate::breakpoints::Named::resolve(engine, args.source.as_ref(), "gotoTargets")?;
        let location = Location::Line {
            file: Some(named.file),
            line,
        };
        let addr = engine.resolve_location(&location)?;
        let label = wavedbg_emulator::debug::view::pc_text(engine.machine(), addr);
        self.goto_targets.insert(addr);
        Reply::body(GotoTargetsBody {
            targets: vec![GotoTarget {
                id: addr as i64,
                label: format!("line {} ({label})", args.line),
                line: args.line,
                instruction_pointer_reference: format!("{addr:#x}"),
            }],
        })
    }

    pub(crate) fn goto(&mut self, args: GotoArguments) -> Result<Reply, DapError> {
        self.check_running_allowed("goto")?;
        // The thread first: a goto for a thread that is not there is refused for that,
        // whatever the target.
        self.wave_of(args.thread_id)?;
        // Only a target `gotoTargets` gave (an id is a code address).
        let addr = u64::try_from(args.target_id)
            .ok()
            .filter(|a| self.goto_targets.contains(a))
            .ok_or_else(|| {
                DapError::Invalid(format!(
                    "no goto target {} (gotoTargets gives them)",
                    args.target_id
                ))
            })?;
        self.select_thread(args.thread_id)?;
        self.command(Command::Set {
            target: SetTarget::Register(RegRef::Pc),
            value: ParsedExpr::number(addr),
        })?;
        Ok(Reply::empty().then(Then::Stopped {
            reason: "goto",
            thread: Some(args.thread_id)
                .filter(|t| *t > 0)
                .or(Some(thread_id(0))),
        }))
    }

    /// A client's line number as the engine counts (from 1); a line before the client's
    /// first is refused, naming it as the client did.
    pub(crate) fn engine_line(&self, line: i64) -> Result<u64, DapError> {
        u64::try_from(line.saturating_add(1).saturating_sub(self.line_base))
            .ok()
            .filter(|l| *l >= 1)
            .ok_or_else(|| {
                DapError::Invalid(format!("no line {line}: lines start at {}", self.line_base))
            })
    }

    /// An engine line as the client counts.
    pub(crate) fn client_line(&self, line: u32) -> i64 {
        i64::from(line) - 1 + self.line_base
    }
}
