//! `SingleRegisterAccess`: gdbstub calls it for `p` and `P`, one register of one thread.
//! gdb reads and writes vector registers this way (they are not in the `g` packet), and
//! lldb every register. Register numbers are in [`crate::regs`].

use gdbstub::common::Tid;
use gdbstub::target::ext::base::single_register_access::SingleRegisterAccess;
use gdbstub::target::{TargetError, TargetResult};
use gdbstub_arch::x86::reg::id::X86_64CoreRegId;
use wavedbg_emulator::debug::RegisterWrite;
use wavedbg_emulator::machine::wave::LANES;

use super::WaveTarget;
use crate::codes::EINVAL;
use crate::memory;
use crate::regs::{self, WaveRegId, VREG_BYTES};

/// The 32-bit little-endian words of a register's bytes; `None` unless there are `N`.
fn words<const N: usize>(val: &[u8]) -> Option<[u32; N]> {
    if val.len() != N * 4 {
        return None;
    }
    let mut out = [0u32; N];
    for (w, b) in out.iter_mut().zip(val.chunks_exact(4)) {
        *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
    Some(out)
}

impl SingleRegisterAccess<Tid> for WaveTarget {
    fn read_register(
        &mut self,
        tid: Tid,
        reg: WaveRegId,
        buf: &mut [u8],
    ) -> TargetResult<usize, Self> {
        let selected_lane = self.engine.selected_lane as usize;
        let lldb = self.lldb;
        let wave = self.readable(tid)?;
        let mut put = |bytes: &[u8]| -> TargetResult<usize, Self> {
            let dst = buf
                .get_mut(..bytes.len())
                .ok_or(TargetError::Errno(EINVAL))?;
            dst.copy_from_slice(bytes);
            Ok(bytes.len())
        };
        match reg {
            WaveRegId::Core(X86_64CoreRegId::Rip) => put(&wave.pc.to_le_bytes()),
            // Unavailable to gdb (an empty read is `xx`), an address of no memory to lldb:
            // see `regs::RSP_VALUE`.
            WaveRegId::Core(X86_64CoreRegId::Gpr(n)) if n as usize == regs::RSP => match lldb {
                true => put(&regs::RSP_VALUE.to_le_bytes()),
                false => Ok(0),
            },
            WaveRegId::Core(X86_64CoreRegId::Gpr(n)) if n as usize == regs::RBX => {
                put(&memory::Window::wave_base(wave.id, selected_lane as u8).to_le_bytes())
            }
            WaveRegId::Core(_) => {
                buf.fill(0);
                Ok(buf.len())
            }
            WaveRegId::Exec => put(&wave.exec.to_le_bytes()),
            WaveRegId::U(n) => put(&wave.u[n as usize].to_le_bytes()),
            WaveRegId::V(n) => {
                let mut b = [0u8; VREG_BYTES];
                for (lane, v) in wave.v[n as usize].iter().enumerate() {
                    b[lane * 4..lane * 4 + 4].copy_from_slice(&v.to_le_bytes());
                }
                put(&b)
            }
            WaveRegId::Lane => put(&(selected_lane as u32).to_le_bytes()),
            WaveRegId::Wave => put(&wave.id.to_le_bytes()),
            WaveRegId::Workgroup => put(&wave.workgroup.to_le_bytes()),
            WaveRegId::WaveInWorkgroup => put(&wave.index.to_le_bytes()),
            WaveRegId::LaneV(n) => put(&wave.v[n as usize][selected_lane].to_le_bytes()),
        }
    }

    /// Writes go through the engine; the PC must be the start of an instruction, and the
    /// inert x86 registers accept writes and forget them. `lane` selects the lane (0-31)
    /// for every thread; `lvN` writes the selected lane of `vN`; the wave's ids cannot be
    /// written.
    ///
    /// A refused write is an error reply, which gdb shows as `Could not write register`
    /// without a reason: the reason goes to the server's stderr.
    fn write_register(&mut self, tid: Tid, reg: WaveRegId, val: &[u8]) -> TargetResult<(), Self> {
        let no = |why: String| {
            eprintln!("wavedbg: cannot write register {}: {why}", reg_name(reg));
            TargetError::Errno(EINVAL)
        };
        let bad = || no(format!("{} bytes is not the register's size", val.len()));
        if let WaveRegId::Lane = reg {
            // One selection for every thread: also from the last stop's exited wave.
            self.readable(tid)?;
            let lane = words::<1>(val).ok_or_else(bad)?[0];
            return self.engine.select_lane(lane).map_err(|e| no(e.to_string()));
        }
        let w = self.wave_of(tid)?;
        let write = match reg {
            WaveRegId::Core(X86_64CoreRegId::Rip) => {
                let pc = <[u8; 8]>::try_from(val).map_err(|_| bad())?;
                let pc = u64::from_le_bytes(pc);
                if !memory::is_instruction(self.engine.machine(), pc) {
                    return Err(no(format!("{pc:#x} is not the start of an instruction")));
                }
                RegisterWrite::Pc(pc)
            }
            WaveRegId::Core(_) => return Ok(()),
            WaveRegId::Exec => RegisterWrite::Exec(words::<1>(val).ok_or_else(bad)?[0]),
            WaveRegId::U(reg) => RegisterWrite::U {
                reg,
                value: words::<1>(val).ok_or_else(bad)?[0],
            },
            WaveRegId::V(reg) => RegisterWrite::V {
                reg,
                lanes: words::<LANES>(val).ok_or_else(bad)?,
            },
            WaveRegId::LaneV(reg) => {
                let value = words::<1>(val).ok_or_else(bad)?[0];
                let mut lanes = self.engine.machine().waves[w].v[reg as usize];
                lanes[self.engine.selected_lane as usize] = value;
                RegisterWrite::V { reg, lanes }
            }
            // (`lane` was written above.)
            WaveRegId::Lane
            | WaveRegId::Wave
            | WaveRegId::Workgroup
            | WaveRegId::WaveInWorkgroup => {
                return Err(no(
                    "the wave's ids are read-only (select another wave with `thread N`)".into(),
                ))
            }
        };
        self.engine
            .write_register(w, write)
            .map_err(|e| no(e.to_string()))
    }
}

/// A register's name as gdb's `$` names it (`pc`, `exec`, `u4`, `v3`, `lane`...).
fn reg_name(reg: WaveRegId) -> String {
    match reg {
        WaveRegId::Core(X86_64CoreRegId::Rip) => "pc".into(),
        WaveRegId::Core(r) => format!("{r:?}").to_lowercase(),
        WaveRegId::Exec => "exec".into(),
        WaveRegId::U(n) => format!("u{n}"),
        WaveRegId::V(n) => format!("v{n}"),
        WaveRegId::Lane => "lane".into(),
        WaveRegId::Wave => "wave".into(),
        WaveRegId::Workgroup => "workgroup".into(),
        WaveRegId::WaveInWorkgroup => "wave_in_wg".into(),
        WaveRegId::LaneV(n) => format!("lv{n}"),
    }
}

#[cfg(test)]
mod tests {
    use gdbstub::target::ext::base::multithread::MultiThreadBase;

    use super::*;
    use crate::regs::WaveRegs;
    use crate::target::tests::target;

    fn tid(n: usize) -> Tid {
        Tid::new(n).expect("tid")
    }

    #[test]
    fn register_writes_reach_the_wave() {
        let mut t = target();
        let v: Vec<u8> = (0..32u32).flat_map(|l| (l * 3).to_le_bytes()).collect();
        assert!(t.write_register(tid(2), WaveRegId::V(3), &v).is_ok());
        assert!(t
            .write_register(tid(2), WaveRegId::U(8), &[1, 0, 0, 0])
            .is_ok());
        assert!(t
            .write_register(tid(2), WaveRegId::Exec, &[1, 0, 0, 0])
            .is_ok());
        let wave = &t.engine.machine().waves[1];
        assert_eq!((wave.v[3][5], wave.u[8], wave.exec), (15, 1, 1));
        // Wrong sizes, a PC that is no instruction, a thread that does not exist.
        assert!(t.write_register(tid(2), WaveRegId::U(8), &[1, 0]).is_err());
        assert!(t.write_register(tid(2), WaveRegId::V(3), &v[..64]).is_err());
        let pc = |a: u64| a.to_le_bytes();
        assert!(t
            .write_register(tid(2), WaveRegId::Core(X86_64CoreRegId::Rip), &pc(2))
            .is_err());
        assert!(t
            .write_register(tid(9), WaveRegId::U(8), &[1, 0, 0, 0])
            .is_err());
        // The inert x86 registers accept writes and forget them.
        let rax = WaveRegId::Core(X86_64CoreRegId::Gpr(0));
        assert!(t.write_register(tid(2), rax, &pc(7)).is_ok());
        let mut buf = [0xffu8; 8];
        assert_eq!(t.read_register(tid(2), rax, &mut buf).ok(), Some(8));
        assert_eq!(buf, [0; 8]);
        // `G`: the PC, EXEC and the uniform registers together.
        let regs = WaveRegs {
            pc: 0,
            exec: 0xf0,
            u: (0..64).collect(),
            has_wave_part: true,
            ..Default::default()
        };
        assert!(t.write_registers(&regs, tid(1)).is_ok());
        let wave = &t.engine.machine().waves[0];
        assert_eq!((wave.exec, wave.u[63]), (0xf0, 63));
        let bad_pc = WaveRegs { pc: 2, ..regs };
        assert!(t.write_registers(&bad_pc, tid(1)).is_err());
    }
}
