//! `HwWatchpoint`: gdbstub calls it for `Z2`-`Z4` and `z2`-`z4` (`watch`, `rwatch`,
//! `awatch`) on global memory or a shared or scratch window. The address alone says which
//! workgroup, or which wave and lane, a watchpoint watches ([`crate::memory`]); each
//! client watchpoint is an engine watchpoint, and `Z` and `z` are idempotent (see
//! [`crate::points`]).

use gdbstub::target::ext::breakpoints::{HwWatchpoint, WatchKind};
use gdbstub::target::{TargetError, TargetResult};
use wavedbg_emulator::debug::breakpoint::{Owner, Scope};

use super::{refused, WaveTarget};
use crate::codes::{EFAULT, EINVAL, ENOENT};
use crate::memory::{self, Residency, Window};
use crate::points::WatchAt;

impl WaveTarget {
    /// The engine scope and offset of a watchpoint at a window address: the address alone
    /// says which workgroup or lane it means. A workgroup not dispatched yet (or a wave of
    /// one) is watched as well as a resident one; one that has finished is refused.
    pub(super) fn watch_scope(&self, addr: u64) -> Result<(Scope, u64), u8> {
        let m = self.engine.machine();
        match Window::of(addr) {
            Window::Global(a) => Ok((Scope::Global, a)),
            // The engine watches a workgroup still to come as well as a resident one.
            Window::Shared { workgroup, offset } => match memory::workgroup(m, workgroup) {
                Residency::Resident(_) | Residency::Pending => {
                    Ok((Scope::Shared(Some(workgroup)), offset))
                }
                Residency::Gone | Residency::Outside => Err(EFAULT),
            },
            Window::Scratch { wave, lane, offset } => Ok((Scope::Scratch { wave, lane }, offset)),
            Window::Code(_) | Window::Invalid => Err(EINVAL),
        }
    }
}

impl HwWatchpoint for WaveTarget {
    fn add_hw_watchpoint(
        &mut self,
        addr: u64,
        len: u64,
        kind: WatchKind,
    ) -> TargetResult<bool, Self> {
        let at = WatchAt { addr, len, kind };
        if self.watches.reinsert(&at) {
            return Ok(true);
        }
        let (scope, offset) = self.watch_scope(addr).map_err(TargetError::Errno)?;
        let engine_id = self
            .engine
            .add_watchpoint(at.engine_kind(), scope, offset, len, None)
            .map_err(|e| {
                eprintln!("wavedbg: cannot watch {addr:#x}+{len}: {e}");
                refused(&e)
            })?;
        self.engine
            .set_owner(engine_id, Owner::Client(at.label()))
            .map_err(|e| refused(&e))?;
        self.watches.insert(at, engine_id);
        Ok(true)
    }

    fn remove_hw_watchpoint(
        &mut self,
        addr: u64,
        len: u64,
        kind: WatchKind,
    ) -> TargetResult<bool, Self> {
        if self.watches.remove(&WatchAt { addr, len, kind }) {
            Ok(true)
        } else {
            Err(TargetError::Errno(ENOENT))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::tests::target;

    #[test]
    fn a_reinserted_watchpoint_keeps_its_engine_number() {
        let mut t = target();
        let a = Window::shared_addr(0, 4);
        assert!(t.add_hw_watchpoint(a, 4, WatchKind::Write).is_ok());
        let id = t.engine.watchpoints()[0].id;
        // gdb at a stop, then before resuming.
        assert!(t.remove_hw_watchpoint(a, 4, WatchKind::Write).is_ok());
        assert!(t.add_hw_watchpoint(a, 4, WatchKind::Write).is_ok());
        t.settle_points();
        assert_eq!(t.engine.watchpoints().len(), 1);
        assert_eq!(t.engine.watchpoints()[0].id, id);
    }

    #[test]
    fn the_address_gives_the_watch_scope() {
        let mut t = target();
        // Whichever wave is selected, the address decides.
        let _ = t.engine.select_wave_index(1);
        let scope = |t: &WaveTarget, a| t.watch_scope(a);
        assert_eq!(
            scope(&t, Window::shared_addr(0, 8)),
            Ok((Scope::Shared(Some(0)), 8))
        );
        assert_eq!(
            scope(&t, Window::scratch_addr(1, 5, 4)),
            Ok((Scope::Scratch { wave: 1, lane: 5 }, 4))
        );
        assert_eq!(scope(&t, 0x1_0000_0004), Ok((Scope::Global, 0x1_0000_0004)));
        // Workgroup 1 is not resident yet: watched as itself.
        assert_eq!(
            scope(&t, Window::shared_addr(1, 8)),
            Ok((Scope::Shared(Some(1)), 8))
        );
        assert!(t
            .add_hw_watchpoint(Window::shared_addr(1, 8), 4, WatchKind::Write)
            .is_ok());
        assert_eq!(scope(&t, Window::shared_addr(2, 0)), Err(EFAULT));
        assert_eq!(scope(&t, 0x10), Err(EINVAL));
        // Wave 2 (of workgroup 1) is not resident yet: its scratch is watched too.
        assert!(t
            .add_hw_watchpoint(Window::scratch_addr(2, 0, 0), 4, WatchKind::Write)
            .is_ok());
    }
}
