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

use super::{refused, thread_id, wave_index, WaveTarget};
use crate::codes::EINVAL;
use crate::memory;
use crate::regs::WaveRegs;

impl MultiThreadBase for WaveTarget {
    fn read_registers(&mut self, regs: &mut WaveRegs, tid: Tid) -> TargetResult<(), Self> {
        let w = self.wave_of(tid)?;
        let wave = &self.engine.machine().waves[w];
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
        self.listed_waves().filter_map(thread_id).for_each(report);
        Ok(())
    }

    /// gdb asks this (`T` packet) when the user switches threads (`thread N`): the engine
    /// selects that wave, so `monitor` commands act on gdb's current thread. (Register and
    /// memory packets name their thread and leave the selection alone: `info threads`
    /// reads every thread.)
    fn is_thread_alive(&mut self, tid: Tid) -> Result<bool, String> {
        let w = wave_index(tid);
        // (`listed` is false for every thread when there is no process.)
        let alive = self.listed(w);
        if alive {
            // Cannot fail: `listed` checked the index.
            let _ = self.engine.select_wave_index(w);
        }
        Ok(alive)
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
