//! `ReverseStep` and `ReverseCont`: gdb's `reverse-stepi` and `reverse-continue` (packets
//! `bs` and `bc`) run the engine's time travel (docs/time-travel.md). Use them as rr's
//! users do: the server advertises them, so gdb runs backwards without `record`. At the
//! start of the recorded history the stop is a replay-log stop, which gdb reports as
//! "No more reverse-execution history."

use gdbstub::common::Tid;
use gdbstub::target::ext::base::reverse_exec::{ReverseCont, ReverseStep};

use super::{wave_index, WaveTarget};
use crate::plan::Plan;

/// `bs`: the wave one instruction back (the whole machine as it was right before it).
///
/// gdb names the thread with `Hc`, and without scheduler-locking it sends "any thread"
/// (`Hc p1.0`), which gdbstub turns into the first one. The wave meant is gdb's current
/// thread: the one the last stop or gdb's `thread N` selected.
impl ReverseStep<Tid> for WaveTarget {
    fn reverse_step(&mut self, tid: Tid) -> Result<(), String> {
        let w = match wave_index(tid) {
            0 => self.engine.selected_wave,
            w => w,
        };
        self.plan = Some(Plan::ReverseStep(w));
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
