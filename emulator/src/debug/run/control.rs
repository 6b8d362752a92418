//! Run control and selection: `continue`, the steps, `reverse-*`, `goto`, `advance`,
//! `finish`, `interrupt`, `restart`, `wave`, `lane`.

use super::points::unreachable_family;
use super::CommandOutput;
use crate::debug::command::{Command, CommandError};
use crate::debug::{view, Engine};

impl Engine {
    pub(super) fn run_control(&mut self, cmd: &Command) -> Result<CommandOutput, CommandError> {
        let name = cmd.name();
        let refused = |e| CommandError::engine(name, e);
        // As gdb: a count of zero executes nothing.
        let zero = match cmd {
            Command::Stepi(0) => Some("stepi 0"),
            Command::StepiAll(0) => Some("stepi all 0"),
            Command::StepiAlone(0) => Some("stepi alone 0"),
            _ => None,
        };
        if let Some(what) = zero {
            return Ok(CommandOutput::text(format!(
                "{what}: no instruction executed.\n"
            )));
        }
        let stop = match cmd {
            Command::Continue => self.continue_all(),
            Command::Stepi(n) => self.step(*n),
            Command::StepiAll(n) => self.step_all(*n),
            Command::StepiAlone(n) => self.run_wave(self.selected_wave, *n),
            Command::ReverseStepi(0) => {
                return Ok(CommandOutput::text(
                    "reverse-stepi 0: nothing to undo.\n".into(),
                ))
            }
            Command::ReverseStepi(n) => self.reverse_step(*n),
            Command::ReverseContinue => self.reverse_continue(),
            Command::Goto(n) => self.goto(*n).map_err(refused)?,
            Command::Advance(location) => {
                let a = self.resolve_location(location).map_err(refused)?;
                self.advance(a)
            }
            Command::AdvanceBarrier => self.advance_to_barrier(),
            Command::Finish => self.finish_wave(),
            // Commands run one at a time, so no run is in progress when this one runs;
            // front ends interrupt a run through `Engine::interrupt_handle` (Ctrl-C, Esc).
            Command::Interrupt => {
                return Ok(CommandOutput::text(
                    "Nothing is running (Ctrl-C interrupts a run in progress).\n".into(),
                ))
            }
            Command::Restart => {
                self.restart();
                let n = self.machine().waves.len();
                return Ok(CommandOutput::text(format!(
                    "Restarted: {} resident, all at {}.\n",
                    view::count(n as u64, "wave"),
                    view::pc_text(self.machine(), 0)
                )));
            }
            Command::Wave(id) => {
                self.select_wave(*id).map_err(refused)?;
                let w = &self.machine().waves[self.selected_wave];
                return Ok(CommandOutput::text(format!(
                    "[Switching to wave {} (workgroup {}), {}]\n  {}: {}\n",
                    w.id,
                    w.workgroup,
                    w.state.name(),
                    view::pc_text(self.machine(), w.pc),
                    view::instr_text(self.machine(), w.pc)
                )));
            }
            Command::Lane(l) => {
                self.select_lane(*l).map_err(refused)?;
                let w = &self.machine().waves[self.selected_wave];
                return Ok(CommandOutput::text(format!(
                    "[Switching to lane {l} of wave {} ({})]\n",
                    w.id,
                    if w.exec >> l & 1 == 1 {
                        "active"
                    } else {
                        "inactive"
                    }
                )));
            }
            _ => return Ok(unreachable_family(cmd)),
        };
        Ok(self.stopped(stop))
    }
}
