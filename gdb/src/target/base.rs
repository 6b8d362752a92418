//! `MultiThreadBase`: every packet that inspects the stopped kernel as a whole. gdbstub
//! calls it for the thread list (`qfThreadInfo`/`qsThreadInfo`), `T` (is a thread alive:
//! gdb's `thread N`), `g`/`G` (the registers of the `g` packet, see [`crate::regs`]) and
//! `m`/`M`/`X` (memory, which [`super::memory`] reads and writes).

use gdbstub::common::Tid;
use gdbstub::target::ext::base::multithread::{MultiThreadBase, MultiThreadResumeOps};
use gdbstub::target::ext::base::single_register_access::SingleRegisterAccessOps;
use gdbstub::target::ext::thread_extra_info::ThreadExtraInfoOps;
use gdbstub::target::{TargetError, TargetResult};
use wavedbg_emulator::debug::RegisterWrite;

use super::{refused, WaveTarget};
use crate::codes::EINVAL;
use crate::memory::{self, Window};
use crate::regs::{self, WaveRegs};

impl WaveTarget {
    /// The `threads:` and `thread-pcs:` fields of a stop reply, for a client that asked
    /// `QListThreadsInStopReply` (lldb): every listed thread and its PC, so the client
    /// needs no thread list (`qfThreadInfo`) and no register packet for another thread's
    /// PC after a stop. Numbers in hex, in the thread list's order.
    pub(crate) fn stop_reply_threads(&self) -> String {
        use std::fmt::Write;
        let waves = &self.engine.machine().waves;
        // (thread id, PC) of every listed thread, in wave-id order as `listed_tids`.
        let mut threads: Vec<(u64, u64)> = self
            .listed_waves()
            .map(|w| (u64::from(waves[w].id) + 1, waves[w].pc))
            .collect();
        if let Some(g) = self.ghost_wave() {
            threads.push((u64::from(g.id) + 1, g.pc));
            threads.sort_unstable();
        }
        let mut text = String::with_capacity(threads.len() * 9 + 24);
        text.push_str("threads:");
        for (i, (tid, _)) in threads.iter().enumerate() {
            let _ = write!(text, "{}{tid:x}", if i == 0 { "" } else { "," });
        }
        text.push_str(";thread-pcs:");
        for (i, (_, pc)) in threads.iter().enumerate() {
            let _ = write!(text, "{}{pc:x}", if i == 0 { "" } else { "," });
        }
        text.push(';');
        let arrived = self.arrived_at_breakpoints();
        if !arrived.is_empty() {
            // lldb's stop reasons of the other threads: those listed stopped at a
            // breakpoint, the rest for no reason.
            let json: Vec<String> = arrived
                .iter()
                .map(|tid| format!(r#"{{"tid":{tid},"signal":5,"reason":"breakpoint"}}"#))
                .collect();
            text.push_str("jstopinfo:");
            for b in format!("[{}]", json.join(",")).bytes() {
                let _ = write!(text, "{b:02x}");
            }
            text.push(';');
        }
        text
    }

    /// The threads, other than the stop's own, that arrived at one of the client's
    /// breakpoints since the kernel last resumed: at a stop every wave whose next
    /// instruction is a breakpoint's has reached it, as the stopping wave has. lldb 14
    /// steps a thread that sits on a breakpoint with no stop reason over it when it
    /// resumes, so without this it would miss them (a breakpoint on a line that eight
    /// waves reach together stopped once instead of eight times, and a line step whose
    /// breakpoint another wave reported first ran on to the end).
    fn arrived_at_breakpoints(&self) -> Vec<u64> {
        if self.resumed_at.is_empty() || self.breaks.is_empty() {
            return Vec::new();
        }
        let waves = &self.engine.machine().waves;
        self.listed_waves()
            .filter(|&w| Some(w) != self.last_stop_wave)
            .filter(|&w| {
                let wave = &waves[w];
                let moved = match self.resumed_at.get(w) {
                    Some(&(id, executed)) => id != wave.id || executed != wave.executed,
                    None => true,
                };
                moved
                    && wave.alive()
                    && self
                        .breaks
                        .iter()
                        .any(|b| b.inserted && b.at.addr == wave.pc)
            })
            .map(|w| u64::from(waves[w].id) + 1)
            .collect()
    }
}

impl MultiThreadBase for WaveTarget {
    fn read_registers(&mut self, regs: &mut WaveRegs, tid: Tid) -> TargetResult<(), Self> {
        let wave = self.readable(tid)?;
        regs.gpr[regs::RBX] = Window::wave_base(wave.id, self.engine.selected_lane);
        regs.rsp = self.lldb.then_some(regs::RSP_VALUE);
        regs.pc = wave.pc;
        regs.exec = wave.exec;
        regs.u = wave.u.to_vec();
        Ok(())
    }

    /// The PC, and `exec` and the uniform registers when the packet has them; the inert
    /// x86 registers are dropped.
    fn write_registers(&mut self, regs: &WaveRegs, tid: Tid) -> TargetResult<(), Self> {
        let w = self.wave_of(tid)?;
        if !memory::is_instruction(self.engine.machine(), regs.pc) {
            return Err(TargetError::Errno(EINVAL));
        }
        let mut writes = vec![RegisterWrite::Pc(regs.pc)];
        if regs.has_wave_part {
            writes.push(RegisterWrite::Exec(regs.exec));
            let uregs = self.engine.machine().waves[w].u.len();
            writes.extend(
                (0..uregs)
                    .zip(&regs.u)
                    .map(|(reg, &value)| RegisterWrite::U {
                        reg: reg as u8,
                        value,
                    }),
            );
        }
        for write in writes {
            self.engine
                .write_register(w, write)
                .map_err(|e| refused(&e))?;
        }
        Ok(())
    }

    #[inline(always)]
    fn support_single_register_access(&mut self) -> Option<SingleRegisterAccessOps<'_, Tid, Self>> {
        Some(self)
    }

    /// The address names its window (workgroup, wave and lane included): the packet's
    /// thread plays no part.
    fn read_addrs(&mut self, start: u64, data: &mut [u8], _tid: Tid) -> TargetResult<usize, Self> {
        self.read_memory(start, data)
    }

    fn write_addrs(&mut self, start: u64, data: &[u8], _tid: Tid) -> TargetResult<(), Self> {
        self.write_memory(start, data)
    }

    fn list_active_threads(&mut self, report: &mut dyn FnMut(Tid)) -> Result<(), String> {
        self.listed_tids().into_iter().for_each(report);
        Ok(())
    }

    /// gdb asks this (`T` packet) when the user switches threads (`thread N`): the engine
    /// selects that wave, so `monitor` commands act on gdb's current thread. (Register and
    /// memory packets name their thread and leave the selection alone: `info threads`
    /// reads every thread.)
    fn is_thread_alive(&mut self, tid: Tid) -> Result<bool, String> {
        // (No thread is listed when there is no process.)
        match self.slot(tid).filter(|&w| self.listed(w)) {
            Some(w) => {
                // Cannot fail: `slot` found the index.
                let _ = self.engine.select_wave_index(w);
                self.on_ghost = false;
                Ok(true)
            }
            // The last stop's exited wave: listed, but not in the engine to select.
            None => {
                self.on_ghost = self.ghost_of(tid).is_some();
                Ok(self.on_ghost)
            }
        }
    }

    #[inline(always)]
    fn support_resume(&mut self) -> Option<MultiThreadResumeOps<'_, Self>> {
        Some(self)
    }

    #[inline(always)]
    fn support_thread_extra_info(&mut self) -> Option<ThreadExtraInfoOps<'_, Self>> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use gdbstub::target::ext::base::single_register_access::SingleRegisterAccess;
    use gdbstub::target::ext::thread_extra_info::ThreadExtraInfo;

    use super::*;
    use crate::regs::WaveRegId;
    use crate::target::tests::target;

    fn threads(t: &mut WaveTarget) -> Vec<usize> {
        let mut tids = Vec::new();
        let _ = t.list_active_threads(&mut |tid| tids.push(tid.get()));
        tids
    }

    fn extra(t: &WaveTarget, tid: usize) -> String {
        let mut buf = [0u8; 128];
        let n = t
            .thread_extra_info(Tid::new(tid).expect("tid"), &mut buf)
            .unwrap_or(0);
        String::from_utf8_lossy(&buf[..n]).into_owned()
    }

    fn reg(t: &mut WaveTarget, tid: usize, reg: WaveRegId) -> Option<u32> {
        let mut buf = [0u8; 4];
        let n = t
            .read_register(Tid::new(tid).expect("tid"), reg, &mut buf)
            .ok()?;
        (n == 4).then(|| u32::from_le_bytes(buf))
    }

    /// With one workgroup resident at a time, the second workgroup's waves come into the
    /// first's slots as new threads: a thread id keeps naming its wave.
    #[test]
    fn thread_ids_are_global_wave_ids_across_recycled_slots() {
        let mut t = target();
        assert_eq!(threads(&mut t), [1, 2]);
        assert_eq!(
            extra(&t, 2),
            "wave 1, workgroup 0, wave_in_wg 1, ready, exec 0xffffffff"
        );
        assert_eq!(reg(&mut t, 2, WaveRegId::Wave), Some(1));
        // Both waves of workgroup 0 execute `end`; workgroup 1 takes their slots.
        let _ = t.engine.run_wave(0, 1);
        let _ = t.engine.run_wave(1, 1);
        t.last_stop_wave = None;
        let ids: Vec<u32> = t.engine.machine().waves.iter().map(|w| w.id).collect();
        assert_eq!(ids, [2, 3], "workgroup 1 is in the slots");
        assert_eq!(threads(&mut t), [3, 4]);
        assert!(t.is_thread_alive(Tid::new(1).expect("tid")) == Ok(false));
        assert_eq!(reg(&mut t, 1, WaveRegId::Wave), None, "wave 0 is gone");
        assert_eq!(extra(&t, 1), "gone");
        assert_eq!(
            extra(&t, 4),
            "wave 3, workgroup 1, wave_in_wg 1, ready, exec 0xffffffff"
        );
        assert_eq!(reg(&mut t, 4, WaveRegId::Wave), Some(3));
        assert_eq!(reg(&mut t, 4, WaveRegId::Workgroup), Some(1));
        assert_eq!(reg(&mut t, 4, WaveRegId::WaveInWorkgroup), Some(1));
        assert!(t.is_thread_alive(Tid::new(4).expect("tid")) == Ok(true));
        assert_eq!(t.engine.selected_wave, 1, "`T` of thread 4 selects slot 1");
    }

    /// `lane` is one selection, the engine's, the same from every thread; the ids are
    /// read-only.
    #[test]
    fn the_lane_register_selects_the_engines_lane() {
        let mut t = target();
        let one = Tid::new(1).expect("tid");
        assert!(t
            .write_register(one, WaveRegId::Lane, &5u32.to_le_bytes())
            .is_ok());
        assert_eq!(t.engine.selected_lane, 5);
        assert_eq!(reg(&mut t, 2, WaveRegId::Lane), Some(5));
        assert!(t
            .write_register(one, WaveRegId::Lane, &32u32.to_le_bytes())
            .is_err());
        assert!(t.write_register(one, WaveRegId::Lane, &[1, 0]).is_err());
        assert_eq!(t.engine.selected_lane, 5);
        for r in [
            WaveRegId::Wave,
            WaveRegId::Workgroup,
            WaveRegId::WaveInWorkgroup,
        ] {
            assert!(t.write_register(one, r, &[0; 4]).is_err(), "{r:?}");
        }
        // `lv3` is lane 5 of v3, to read and to write.
        assert!(t
            .write_register(one, WaveRegId::LaneV(3), &77u32.to_le_bytes())
            .is_ok());
        let v3 = &t.engine.machine().waves[0].v[3];
        assert_eq!((v3[5], v3[4], v3[6]), (77, 0, 0));
        assert_eq!(reg(&mut t, 1, WaveRegId::LaneV(3)), Some(77));
        assert!(t
            .write_register(one, WaveRegId::Lane, &4u32.to_le_bytes())
            .is_ok());
        assert_eq!(reg(&mut t, 1, WaveRegId::LaneV(3)), Some(0));
    }
}
