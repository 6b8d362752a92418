//! `ReverseStep` and `ReverseCont`: gdb's `reverse-stepi` and `reverse-continue` (packets
//! `bs` and `bc`) run the engine's time travel (docs/time-travel.md). Use them as rr's
//! users do: the server advertises them, so gdb runs backwards without `record`. At the
//! start of the recorded history the stop is a replay-log stop, which gdb reports as
//! "No more reverse-execution history."

use gdbstub::common::Tid;
use gdbstub::target::ext::base::reverse_exec::{ReverseCont, ReverseStep};

use super::WaveTarget;
use crate::plan::Plan;

/// `bs`: the wave one instruction back (the whole machine as it was right before it).
///
/// gdb names the thread with `Hc`, and without scheduler-locking it sends "any thread"
/// (`Hc p1.0`), which gdbstub turns into the first one, so `tid` cannot be trusted. The
/// wave meant is gdb's current thread, which the engine's selection follows: the last
/// stop selects its wave, and gdb's `thread N` (a `T` packet) selects that one.
impl ReverseStep<Tid> for WaveTarget {
    fn reverse_step(&mut self, _tid: Tid) -> Result<(), String> {
        self.plan = Some(Plan::ReverseStep(self.engine.selected_wave));
        Ok(())
    }
}

/// `bc`: back to the previous breakpoint or watchpoint stop, or the start of history.
impl ReverseCont<Tid> for WaveTarget {
    fn reverse_cont(&mut self) -> Result<(), String> {
        self.plan = Some(Plan::ReverseCont);
        Ok(())
    }
}
