//! `Breakpoints`, `SwBreakpoint` and `HwBreakpoint`: gdbstub calls them for `Z0`/`z0`
//! (`break`; gdb sends kind 1 and never patches memory) and `Z1`/`z1` (`hbreak`), and asks
//! `Breakpoints` which kinds exist (watchpoints are in [`super::watchpoints`]). Each client
//! breakpoint is an engine breakpoint; `Z` and `z` are idempotent (see [`crate::points`]).

use gdbstub::target::ext::breakpoints::{
    Breakpoints, HwBreakpoint, HwBreakpointOps, HwWatchpointOps, SwBreakpoint, SwBreakpointOps,
};
use gdbstub::target::{TargetError, TargetResult};
use wavedbg_emulator::debug::breakpoint::{Filters, Owner};
use wavedbg_emulator::debug::command::Location;

use super::{refused, RefusedPoint, WaveTarget};
use crate::codes::ENOENT;
use crate::points::BreakAt;

impl WaveTarget {
    /// A breakpoint the engine refuses (an address inside an instruction or past the
    /// code) is an error reply, which gdb shows as `Cannot access memory` at each resume:
    /// the engine's reason goes to the server's stderr and `monitor info breakpoints`.
    fn add_break(&mut self, at: BreakAt) -> TargetResult<bool, Self> {
        if !self.breaks.reinsert(&at) {
            let engine_id = match self.engine.add_breakpoint(
                &Location::Address(at.addr),
                None,
                Filters::default(),
                false,
            ) {
                Ok(id) => id,
                Err(e) => {
                    self.note_refused(RefusedPoint {
                        label: at.label(self.engine.machine()),
                        why: e.to_string(),
                        watch: false,
                    });
                    return Err(refused(&e));
                }
            };
            let label = at.label(self.engine.machine());
            self.engine
                .set_owner(engine_id, Owner::Client(label))
                .map_err(|e| refused(&e))?;
            self.breaks.insert(at, engine_id);
        }
        Ok(true)
    }

    fn remove_break(&mut self, at: BreakAt) -> TargetResult<bool, Self> {
        if self.breaks.remove(&at) {
            Ok(true)
        } else {
            Err(TargetError::Errno(ENOENT))
        }
    }
}

impl Breakpoints for WaveTarget {
    #[inline(always)]
    fn support_sw_breakpoint(&mut self) -> Option<SwBreakpointOps<'_, Self>> {
        Some(self)
    }

    #[inline(always)]
    fn support_hw_breakpoint(&mut self) -> Option<HwBreakpointOps<'_, Self>> {
        Some(self)
    }

    #[inline(always)]
    fn support_hw_watchpoint(&mut self) -> Option<HwWatchpointOps<'_, Self>> {
        Some(self)
    }
}

/// `break` (Z0).
impl SwBreakpoint for WaveTarget {
    fn add_sw_breakpoint(&mut self, addr: u64, _kind: usize) -> TargetResult<bool, Self> {
        self.add_break(BreakAt { addr, hw: false })
    }

    fn remove_sw_breakpoint(&mut self, addr: u64, _kind: usize) -> TargetResult<bool, Self> {
        self.remove_break(BreakAt { addr, hw: false })
    }
}

/// `hbreak` (Z1): the same breakpoints.
impl HwBreakpoint for WaveTarget {
    fn add_hw_breakpoint(&mut self, addr: u64, _kind: usize) -> TargetResult<bool, Self> {
        self.add_break(BreakAt { addr, hw: true })
    }

    fn remove_hw_breakpoint(&mut self, addr: u64, _kind: usize) -> TargetResult<bool, Self> {
        self.remove_break(BreakAt { addr, hw: true })
    }
}

#[cfg(test)]
mod tests {
    use gdbstub::target::ext::breakpoints::{HwWatchpoint, WatchKind};

    use super::*;
    use crate::memory::Window;
    use crate::target::tests::target;

    #[test]
    fn z_packets_are_idempotent() {
        let mut t = target();
        let shared = Window::shared_addr(0, 8);
        for _ in 0..2 {
            assert_eq!(t.add_sw_breakpoint(0, 1).ok(), Some(true));
            assert_eq!(
                t.add_hw_watchpoint(shared, 4, WatchKind::Write).ok(),
                Some(true)
            );
        }
        assert_eq!(t.engine.breakpoints().len(), 1);
        assert_eq!(t.engine.watchpoints().len(), 1);
        // A hardware breakpoint at the same address is another breakpoint to the protocol.
        assert_eq!(t.add_hw_breakpoint(0, 1).ok(), Some(true));
        assert_eq!(t.engine.breakpoints().len(), 2);
        assert!(t.remove_sw_breakpoint(0, 1).is_ok());
        assert!(t.remove_sw_breakpoint(0, 1).is_err(), "one z removes it");
        assert!(t.remove_hw_watchpoint(shared, 4, WatchKind::Write).is_ok());
        assert!(t.remove_hw_watchpoint(shared, 4, WatchKind::Write).is_err());
        // Removed ones stay listed while stopped and go when the kernel runs.
        assert_eq!(t.engine.watchpoints().len(), 1);
        t.settle_points();
        assert_eq!(t.engine.watchpoints().len(), 0);
        assert_eq!(t.engine.breakpoints().len(), 1, "the Z1 breakpoint stays");
    }
}
