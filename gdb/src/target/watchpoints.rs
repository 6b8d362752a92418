//! `HwWatchpoint`: gdbstub calls it for `Z2`-`Z4` and `z2`-`z4` (`watch`, `rwatch`,
//! `awatch`) on global memory or a shared or scratch window (also as a wave window shows
//! it: its workgroup's shared memory, a lane's scratch). The address alone says which
//! workgroup, or which wave and lane, a watchpoint watches ([`crate::memory`]); each
//! client watchpoint is an engine watchpoint, and `Z` and `z` are idempotent (see
//! [`crate::points`]).

use gdbstub::target::ext::breakpoints::{HwWatchpoint, WatchKind};
use gdbstub::target::{TargetError, TargetResult};
use wavedbg_emulator::debug::breakpoint::{Owner, Scope};
use wavedbg_emulator::debug::EngineError;

use super::{RefusedPoint, WaveTarget};
use crate::codes::{self, EINVAL, ENOENT};
use crate::memory::{Part, Window};
use crate::points::WatchAt;

impl WaveTarget {
    /// The engine scope and offset of a watchpoint at a window address: the address alone
    /// says which workgroup or lane it means. Whether that memory exists (a buffer's range,
    /// a workgroup resident or still to come, a finished one) the engine decides when it
    /// adds the watchpoint; here only addresses in no memory space are refused.
    /// In the scratch-by-word part of a wave window, a watchpoint is on one lane's word
    /// (`len` bytes from `addr` within it).
    pub(super) fn watch_scope(&self, addr: u64, len: u64) -> Result<(Scope, u64), (u8, String)> {
        match Window::of(addr) {
            Window::Global(a) => Ok((Scope::Global, a)),
            Window::Shared { workgroup, offset } => Ok((Scope::Shared(Some(workgroup)), offset)),
            Window::Scratch { wave, lane, offset } => Ok((Scope::Scratch { wave, lane }, offset)),
            Window::Wave {
                wave,
                lane,
                part,
                offset,
            } => {
                let m = self.engine.machine();
                let w = m
                    .wave_index(wave)
                    .and_then(|i| m.waves.get(i))
                    .ok_or_else(|| (EINVAL, format!("wave {wave} is not resident")))?;
                match part {
                    Part::Shared => Ok((Scope::Shared(Some(w.workgroup)), offset)),
                    Part::Scratch(lane) => Ok((Scope::Scratch { wave, lane }, offset)),
                    Part::LaneScratch => Ok((Scope::Scratch { wave, lane }, offset)),
                    Part::ScratchWords if offset % 4 + len <= 4 => {
                        let (lane, at) = Part::scratch_word(offset);
                        Ok((Scope::Scratch { wave, lane }, at))
                    }
                    Part::ScratchWords => Err((
                        EINVAL,
                        "a watchpoint here covers one lane's word of scratch (watch VAR[LANE])"
                            .into(),
                    )),
                    Part::Vector | Part::LaneVector | Part::Uniform => {
                        Err((EINVAL, "registers cannot be watched".into()))
                    }
                }
            }
            Window::Code(_) => Err((EINVAL, "the code cannot be watched".into())),
            Window::Invalid => Err((EINVAL, format!("{addr:#x} is in no memory window"))),
        }
    }

    /// Adds the engine watchpoint behind a client's `Z2`-`Z4`: its engine number, or the
    /// errno and the engine's reason for refusing it.
    fn watch(&mut self, at: WatchAt) -> Result<u32, (u8, String)> {
        let (scope, offset) = self.watch_scope(at.addr, at.len)?;
        let fail = |e: &EngineError| (codes::errno(e), e.to_string());
        let id = self
            .engine
            .add_watchpoint(at.engine_kind(), scope, offset, at.len, None)
            .map_err(|e| fail(&e))?;
        self.engine
            .set_owner(id, Owner::Client(at.label()))
            .map_err(|e| fail(&e))?;
        Ok(id)
    }
}

impl HwWatchpoint for WaveTarget {
    /// A watchpoint on memory that does not exist is refused with an error reply, which
    /// gdb 13 shows as `Could not insert hardware watchpoint N` (and lldb 14 as `sending
    /// gdb watchpoint packet failed`): neither shows a reason a server sends. So the
    /// engine's reason goes to the server's stderr and stays in `monitor info watchpoints`
    /// until the kernel next runs ([`WaveTarget::refused_points`]).
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
        match self.watch(at) {
            Ok(id) => {
                self.watches.insert(at, id);
                Ok(true)
            }
            Err((errno, why)) => {
                self.note_refused(RefusedPoint {
                    label: at.label(),
                    why,
                    watch: true,
                });
                Err(TargetError::Errno(errno))
            }
        }
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
        let scope = |t: &WaveTarget, a| t.watch_scope(a, 4);
        assert_eq!(
            scope(&t, Window::shared_addr(0, 8)),
            Ok((Scope::Shared(Some(0)), 8))
        );
        assert_eq!(
            scope(&t, Window::scratch_addr(1, 5, 4)),
            Ok((Scope::Scratch { wave: 1, lane: 5 }, 4))
        );
        assert_eq!(scope(&t, 0x1_0000_0004), Ok((Scope::Global, 0x1_0000_0004)));
        // Scratch by word: byte 128 k + 4 l is word k of lane l; one lane's word at most.
        let words = Window::wave_base(1, 0) + crate::memory::WAVE_SCRATCH_WORDS;
        assert_eq!(
            scope(&t, words + 128 + 4 * 5),
            Ok((Scope::Scratch { wave: 1, lane: 5 }, 4))
        );
        assert!(matches!(t.watch_scope(words + 2, 4), Err((EINVAL, _))));
        assert!(matches!(t.watch_scope(words, 8), Err((EINVAL, _))));
        // Workgroup 1 is not resident yet: watched as itself.
        assert_eq!(
            scope(&t, Window::shared_addr(1, 8)),
            Ok((Scope::Shared(Some(1)), 8))
        );
        assert!(t
            .add_hw_watchpoint(Window::shared_addr(1, 8), 4, WatchKind::Write)
            .is_ok());
        assert!(matches!(scope(&t, 0x10), Err((EINVAL, _))));
        // Wave 2 (of workgroup 1) is not resident yet: its scratch is watched too.
        assert!(t
            .add_hw_watchpoint(Window::scratch_addr(2, 0, 0), 4, WatchKind::Write)
            .is_ok());
    }

    /// Memory that does not exist cannot be watched: the reply is an error, and the
    /// engine's reason is kept for `monitor info watchpoints` until the kernel runs.
    #[test]
    fn watchpoints_on_memory_that_does_not_exist_are_refused_with_the_reason() {
        let mut t = target();
        let refused =
            |t: &mut WaveTarget, addr| t.add_hw_watchpoint(addr, 4, WatchKind::Write).is_err();
        // `out` is 64 bytes at 0x100000000: its last word can be watched, the next cannot.
        assert!(!refused(&mut t, 0x1_0000_003c));
        assert!(refused(&mut t, 0x1_0000_0040));
        assert!(refused(&mut t, 0x1_0000_003e));
        // Past the 16 bytes of shared memory, outside the grid, in the code.
        assert!(refused(&mut t, Window::shared_addr(0, 16)));
        assert!(refused(&mut t, Window::shared_addr(2, 0)));
        assert!(refused(&mut t, 0x10));
        assert!(refused(&mut t, 0x1_0000_0040), "refused again: listed once");
        let reasons: Vec<&str> = t.refused_points.iter().map(|p| p.why.as_str()).collect();
        assert_eq!(reasons.len(), 5, "{reasons:?}");
        let info = crate::target::monitor::points(&t, true);
        assert!(
            info.contains(
                "Refused (the client could not insert them):\n  Hardware watchpoint at 0x10000003e"
            ),
            "{info}"
        );
        assert!(
            info.contains("\n  Hardware watchpoint at 0x100000040 (global:0x100000040, 4 bytes): 0x100000040..0x100000044 is not allocated global memory\n"),
            "{info}"
        );
        assert!(info.contains("the code cannot be watched"), "{info}");
        assert!(info.contains("workgroup 2 is not in the grid"), "{info}");
        assert!(info.contains("outside the 16-byte window"), "{info}");
        // Running the kernel clears them.
        let _ = t.execute(crate::plan::Plan::Step {
            wave: 0,
            others: false,
        });
        assert!(t.refused_points.is_empty());
    }
}
