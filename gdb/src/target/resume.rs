//! `MultiThreadResume`, `MultiThreadSingleStep` and `MultiThreadSchedulerLocking` (and
//! the reverse extensions, [`super::reverse`], which gdbstub finds here): while
//! gdbstub parses a resume packet (`vCont`, `c`, `s`) it calls these with each action;
//! `resume` then turns the collected [`Actions`] into the [`Plan`] the serve loop runs
//! ([`crate::run`]) once the packet is handled.

use gdbstub::common::{Signal, Tid};
use gdbstub::target::ext::base::multithread::{
    MultiThreadRangeStepping, MultiThreadRangeSteppingOps, MultiThreadResume,
    MultiThreadSchedulerLocking, MultiThreadSchedulerLockingOps, MultiThreadSingleStep,
    MultiThreadSingleStepOps,
};

use gdbstub::target::ext::base::reverse_exec::{ReverseContOps, ReverseStepOps};

use wavedbg_emulator::debug::RegisterWrite;

use super::WaveTarget;
use crate::plan::{Actions, Plan};

impl WaveTarget {
    /// A legacy `c ADDR` or `s ADDR`: the current wave (gdb's current thread, which the
    /// engine's selection follows) goes on from `addr`, as a write of its `$pc` would.
    pub(crate) fn resume_at(&mut self, addr: u64) -> Result<(), String> {
        // A launch that is over stays as it was: the resumption only reports its end.
        if self.terminal.is_some() || self.ended {
            return Ok(());
        }
        if !crate::memory::is_instruction(self.engine.machine(), addr) {
            return Err(format!("{addr:#x} is not the start of an instruction"));
        }
        let w = self.engine.selected_wave;
        self.engine
            .write_register(w, RegisterWrite::Pc(addr))
            .map_err(|e| format!("cannot resume wave at {addr:#x}: {e}"))
    }
}

impl MultiThreadResume for WaveTarget {
    fn resume(&mut self) -> Result<(), String> {
        let a = std::mem::take(&mut self.actions);
        let bare = std::mem::take(&mut self.bare_continue);
        let listed: Vec<usize> = self.listed_waves().collect();
        self.plan = Some(Plan::from_actions(&a, bare, &listed));
        Ok(())
    }

    fn clear_resume_actions(&mut self) -> Result<(), String> {
        self.actions = Actions::default();
        Ok(())
    }

    fn set_resume_action_continue(
        &mut self,
        tid: Tid,
        _signal: Option<Signal>,
    ) -> Result<(), String> {
        let w = self.action_slot(tid);
        self.actions.continue_wave(w);
        Ok(())
    }

    #[inline(always)]
    fn support_single_step(&mut self) -> Option<MultiThreadSingleStepOps<'_, Self>> {
        Some(self)
    }

    #[inline(always)]
    fn support_range_step(&mut self) -> Option<MultiThreadRangeSteppingOps<'_, Self>> {
        Some(self)
    }

    #[inline(always)]
    fn support_scheduler_locking(&mut self) -> Option<MultiThreadSchedulerLockingOps<'_, Self>> {
        Some(self)
    }

    #[inline(always)]
    fn support_reverse_step(&mut self) -> Option<ReverseStepOps<'_, Tid, Self>> {
        Some(self)
    }

    #[inline(always)]
    fn support_reverse_cont(&mut self) -> Option<ReverseContOps<'_, Tid, Self>> {
        Some(self)
    }
}

/// `vCont;s:TID`: stepi of one wave (gdb also steps a wave off a breakpoint this way).
impl MultiThreadSingleStep for WaveTarget {
    fn set_resume_action_step(&mut self, tid: Tid, _signal: Option<Signal>) -> Result<(), String> {
        let w = self.action_slot(tid);
        self.actions.step_wave(w);
        Ok(())
    }
}

/// `vCont;r START,END:TID`: gdb's `step`/`next` over a source line of several
/// instructions steps the wave through them in one resumption, stopping when its PC leaves
/// `[START, END)` or at whatever stops a step on the way (`Engine::step_range`).
impl MultiThreadRangeStepping for WaveTarget {
    fn set_resume_action_range_step(
        &mut self,
        tid: Tid,
        start: u64,
        end: u64,
    ) -> Result<(), String> {
        let w = self.action_slot(tid);
        self.actions.range_step_wave(w, start, end);
        Ok(())
    }
}

/// A `vCont` without a default continue: only the named waves may run.
impl MultiThreadSchedulerLocking for WaveTarget {
    fn set_resume_action_scheduler_lock(&mut self) -> Result<(), String> {
        self.actions.locked = true;
        Ok(())
    }
}
