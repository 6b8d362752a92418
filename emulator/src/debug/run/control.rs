//! Run control and selection: `continue`, the steps, `reverse-*`, `goto`, `advance`,
//! `finish`, `interrupt`, `restart`, `wave`, `lane`.

use super::CommandOutput;
use crate::debug::command::CommandError;
use crate::debug::{view, Engine, Reached, StopEvent, StopReason};

impl Engine {
    /// A run-control command's output: it runs, and the stop is shown.
    pub(super) fn resumed(
        &mut self,
        run: impl FnOnce(&mut Engine) -> StopEvent,
    ) -> Result<CommandOutput, CommandError> {
        let stop = run(self);
        Ok(self.stopped(stop))
    }

    /// A step command of `n` instructions (`what` as written): as gdb, a count of zero
    /// executes nothing.
    pub(super) fn steps(
        &mut self,
        what: &str,
        n: u64,
        run: impl FnOnce(&mut Engine) -> StopEvent,
    ) -> Result<CommandOutput, CommandError> {
        if n == 0 {
            return Ok(CommandOutput::text(format!(
                "{what} 0: no instruction executed.\n"
            )));
        }
        self.resumed(run)
    }

    pub(super) fn reverse_stepi_command(&mut self, n: u64) -> Result<CommandOutput, CommandError> {
        if n == 0 {
            return Ok(CommandOutput::text(
                "reverse-stepi 0: nothing to undo.\n".into(),
            ));
        }
        let (stop, note) = self.reverse_step_explained(n);
        let mut out = self.stopped(stop);
        if let Some(note) = note {
            out.text.push_str(&note);
        }
        Ok(out)
    }

    /// Commands run one at a time, so no run is in progress when this one runs; front ends
    /// interrupt a run through `Engine::interrupt_handle` (Ctrl-C, Esc).
    pub(super) fn interrupt_command() -> CommandOutput {
        CommandOutput::text("Nothing is running (Ctrl-C interrupts a run in progress).\n".into())
    }

    pub(super) fn restart_command(&mut self) -> CommandOutput {
        self.restart();
        let n = self.machine().waves.len();
        CommandOutput::text(format!(
            "Restarted: {} resident, all at {}.\n",
            view::count(n as u64, "wave"),
            view::pc_text(self.machine(), 0)
        ))
    }

    /// `run`: as gdb's, the launch from the beginning (the restart's line), run until
    /// something stops it.
    pub(super) fn run_command(&mut self) -> CommandOutput {
        let restarted = self.restart_command().text;
        let mut out = self.stopped_by(Engine::continue_all);
        out.text.insert_str(0, &restarted);
        out
    }

    /// `start`: the launch from the beginning, stopped at the selected wave's first
    /// instruction (gdb's `start` stops at `main`; a kernel starts at its first).
    pub(super) fn start_command(&mut self) -> CommandOutput {
        let restarted = self.restart_command().text;
        let w = self.selected_wave;
        let pc = self.machine().waves.get(w).map_or(0, |x| x.pc);
        let stop = self.event(StopReason::Reached(Reached::Address(pc)), Some(w));
        let stop = self.finish(stop);
        let mut out = self.stopped(stop);
        out.text.insert_str(0, &restarted);
        out
    }

    /// [`Engine::resumed`] for a run that cannot fail.
    fn stopped_by(&mut self, run: impl FnOnce(&mut Engine) -> StopEvent) -> CommandOutput {
        let stop = run(self);
        self.stopped(stop)
    }

    pub(super) fn wave_command(&mut self, id: u32) -> Result<CommandOutput, CommandError> {
        self.select_wave(id)
            .map_err(|e| CommandError::engine("wave", e))?;
        let w = &self.machine().waves[self.selected_wave];
        Ok(CommandOutput::text(format!(
            "[Switching to wave {} (workgroup {}), {}]\n  {}: {}\n",
            w.id,
            w.workgroup,
            w.state.name(),
            view::pc_text(self.machine(), w.pc),
            view::instr_text(self.machine(), w.pc)
        )))
    }

    /// `wave` alone: the selected wave, as gdb's `thread` shows the current thread.
    pub(super) fn current_wave_command(&self) -> Result<CommandOutput, CommandError> {
        let w = self
            .machine()
            .waves
            .get(self.selected_wave)
            .ok_or_else(|| CommandError::refused("wave", "no wave is selected"))?;
        Ok(CommandOutput::text(format!(
            "[Current wave is {} (workgroup {}, wave_in_wg {}), {}]\n  {}: {}\n",
            w.id,
            w.workgroup,
            w.index,
            w.state.name(),
            view::pc_text(self.machine(), w.pc),
            view::instr_text(self.machine(), w.pc)
        )))
    }

    pub(super) fn lane_command(&mut self, l: u32) -> Result<CommandOutput, CommandError> {
        self.select_lane(l)
            .map_err(|e| CommandError::engine("lane", e))?;
        let w = &self.machine().waves[self.selected_wave];
        Ok(CommandOutput::text(format!(
            "[Switching to lane {l} of wave {} ({})]\n",
            w.id,
            if w.exec >> l & 1 == 1 {
                "active"
            } else {
                "inactive"
            }
        )))
    }
}
