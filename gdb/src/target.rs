//! The gdbstub `Target`: the debug engine seen as a multi-threaded process whose threads
//! are the resident waves.
//!
//! Thread ids are wave indexes plus one (gdb reserves 0). A wave index is a slot position:
//! when a workgroup finishes, the next one is dispatched into the same slot, so a thread id
//! can come back with another wave in it (`info threads` shows which wave, through
//! `qThreadExtraInfo`). Exited waves are dropped from the thread list, except the wave of
//! the last stop, which stays listed until the next resumption so the client can still
//! read it. Faulted waves stay listed. After an extended-remote `kill`, and after the
//! launch ended, there is no process: no thread is listed until `run` starts it again.
//!
//! Breakpoints and watchpoints of the client (Z packets) are idempotent, as the protocol
//! wants: inserting one twice leaves one, and one `z` removes it. gdb removes them all at
//! every stop and inserts them again before resuming, so a `z` only marks an entry as
//! removed, and the engine's breakpoint goes when the kernel next runs without it being
//! inserted again: while stopped, `monitor info breakpoints` still lists what gdb has.
//!
//! Each extension trait below says when the client uses it.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use gdbstub::common::{Endianness, Pid, Signal, Tid};
use gdbstub::target::ext::base::multithread::{
    MultiThreadBase, MultiThreadResume, MultiThreadResumeOps, MultiThreadSchedulerLocking,
    MultiThreadSchedulerLockingOps, MultiThreadSingleStep, MultiThreadSingleStepOps,
};
use gdbstub::target::ext::base::single_register_access::{
    SingleRegisterAccess, SingleRegisterAccessOps,
};
use gdbstub::target::ext::base::BaseOps;
use gdbstub::target::ext::breakpoints::{
    Breakpoints, BreakpointsOps, HwBreakpoint, HwBreakpointOps, HwWatchpoint, HwWatchpointOps,
    SwBreakpoint, SwBreakpointOps, WatchKind,
};
use gdbstub::target::ext::extended_mode::{
    Args, AttachKind, ExtendedMode, ExtendedModeOps, ShouldTerminate,
};
use gdbstub::target::ext::host_info::{HostInfo, HostInfoOps, HostInfoResponse};
use gdbstub::target::ext::monitor_cmd::{ConsoleOutput, MonitorCmd, MonitorCmdOps};
use gdbstub::target::ext::target_description_xml_override::{
    TargetDescriptionXmlOverride, TargetDescriptionXmlOverrideOps,
};
use gdbstub::target::ext::thread_extra_info::{ThreadExtraInfo, ThreadExtraInfoOps};
use gdbstub::target::{Target, TargetError, TargetResult};
use gdbstub_arch::x86::reg::id::X86_64CoreRegId;
use wavedbg_emulator::debug::breakpoint::{self, Filters, Scope};
use wavedbg_emulator::debug::Engine;

use crate::memory::{self, Window};
use crate::regs::{self, WaveArch, WaveRegId, WaveRegs, VREG_BYTES};
use crate::run::Plan;

const ESRCH: u8 = 3;
const EINVAL: u8 = 22;
const ENOENT: u8 = 2;
const EFAULT: u8 = 14;

/// A client breakpoint (Z0/Z1) and the engine breakpoint behind it.
#[derive(Debug, Clone)]
pub(crate) struct GdbBreak {
    pub addr: u64,
    /// Z1 (`hbreak`) rather than Z0: a distinct breakpoint to the protocol.
    pub hw: bool,
    /// The engine's breakpoint number.
    pub engine_id: u32,
    /// Cleared by `z`; the entry goes when the kernel next runs (see the module docs).
    pub inserted: bool,
}

/// A client watchpoint (Z2/Z3/Z4) and the engine watchpoint behind it.
#[derive(Debug, Clone)]
pub(crate) struct GdbWatch {
    /// The address as the client sent it: it names its window (see [`crate::memory`]).
    pub addr: u64,
    pub len: u64,
    pub kind: WatchKind,
    /// The engine's watchpoint number.
    pub engine_id: u32,
    /// Cleared by `z`; the entry goes when the kernel next runs.
    pub inserted: bool,
}

impl GdbWatch {
    /// What gdb calls it, and what it watches: `Hardware watchpoint at 0x8000000000100008
    /// (shared:0x8 of workgroup 1, 4 bytes)`.
    pub(crate) fn label(&self) -> String {
        let kind = match self.kind {
            WatchKind::Write => "Hardware watchpoint",
            WatchKind::Read => "Hardware read watchpoint",
            WatchKind::ReadWrite => "Hardware access (read/write) watchpoint",
        };
        format!(
            "{kind} at {:#x} ({}, {} byte{})",
            self.addr,
            Window::of(self.addr).describe(),
            self.len,
            if self.len == 1 { "" } else { "s" }
        )
    }
}

/// How the client asked the waves to resume, collected from `vCont` actions.
#[derive(Debug, Default, Clone)]
pub(crate) struct Actions {
    pub continues: Vec<usize>,
    pub step: Option<usize>,
    pub locked: bool,
}

/// The engine as a gdbstub target.
pub struct WaveTarget {
    pub(crate) engine: Engine,
    xml: String,
    pub(crate) actions: Actions,
    /// What the serve loop runs next (set by `resume`).
    pub(crate) plan: Option<Plan>,
    /// Set by the serve loop when the packet being handled is a bare `c`/`C` (lldb's
    /// `process continue`), which gdbstub maps to the last stopped wave only.
    pub(crate) bare_continue: bool,
    /// The client's breakpoints.
    pub(crate) breaks: Vec<GdbBreak>,
    /// The client's watchpoints.
    pub(crate) watches: Vec<GdbWatch>,
    /// `!` was received: kill restarts the launch instead of ending the server.
    pub(crate) extended: bool,
    /// There is no process (killed in extended mode, or the launch ended): no thread is
    /// listed until `run`.
    pub(crate) no_process: bool,
    /// How the last stop names the client's breakpoints and watchpoints (engine number,
    /// gdb-style name), for `monitor why`: gdb numbers them on its own.
    pub(crate) stop_labels: Vec<(u32, String)>,
    /// The wave of the last stop (listed even if it exited).
    pub(crate) last_stop_wave: Option<usize>,
    /// The launch ended in a deadlock: resuming terminates it with this signal.
    pub(crate) terminal: Option<Signal>,
    /// The signal of the last fault (the launch ends with it when only faulted waves are
    /// left).
    pub(crate) last_fault: Option<Signal>,
    /// Set on Ctrl-C while the kernel runs (checked by loops the engine does not poll).
    pub(crate) ctrl_c: Arc<AtomicBool>,
    /// `monitor save` may write files (the server listens on loopback only).
    pub(crate) files_allowed: bool,
}

impl WaveTarget {
    /// Wraps an engine.
    pub fn new(engine: Engine) -> WaveTarget {
        WaveTarget {
            engine,
            xml: regs::target_xml(),
            actions: Actions::default(),
            plan: None,
            bare_continue: false,
            breaks: Vec::new(),
            watches: Vec::new(),
            extended: false,
            no_process: false,
            stop_labels: Vec::new(),
            last_stop_wave: None,
            terminal: None,
            last_fault: None,
            ctrl_c: Arc::new(AtomicBool::new(false)),
            files_allowed: true,
        }
    }

    /// The engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The wave index of a thread id, if that wave exists.
    pub(crate) fn wave_of(&self, tid: Tid) -> Result<usize, TargetError<String>> {
        let w = tid.get() - 1;
        if !self.no_process && w < self.engine.machine().waves.len() {
            Ok(w)
        } else {
            Err(TargetError::Errno(ESRCH))
        }
    }

    /// Whether thread `w` (index) is listed.
    pub(crate) fn listed(&self, w: usize) -> bool {
        !self.no_process
            && self.engine.machine().waves.get(w).is_some_and(|x| {
                x.alive()
                    || x.state == wavedbg_emulator::machine::wave::WaveState::Faulted
                    || self.last_stop_wave == Some(w)
            })
    }

    /// Forgets the previous client: its protocol state, and the breakpoints and
    /// watchpoints it inserted but never removed (it went away without detaching).
    pub(crate) fn new_client(&mut self) {
        self.extended = false;
        self.no_process = false;
        self.bare_continue = false;
        self.plan = None;
        self.actions = Actions::default();
        for b in std::mem::take(&mut self.breaks) {
            let _ = self.engine.delete(Some(b.engine_id));
        }
        for w in std::mem::take(&mut self.watches) {
            let _ = self.engine.delete(Some(w.engine_id));
        }
    }

    /// Restarts the launch from the beginning (gdb's breakpoints and watchpoints stay).
    pub(crate) fn restart(&mut self) {
        self.engine.restart();
        self.terminal = None;
        self.last_fault = None;
        self.last_stop_wave = None;
        self.plan = None;
        self.stop_labels.clear();
    }

    /// Whether an engine breakpoint or watchpoint number is the client's.
    pub(crate) fn client_owns(&self, id: u32) -> bool {
        self.breaks.iter().any(|b| b.engine_id == id)
            || self.watches.iter().any(|w| w.engine_id == id)
    }

    /// Deletes the client's breakpoints and watchpoints that were removed and not inserted
    /// again: called when the kernel is about to run.
    pub(crate) fn settle_points(&mut self) {
        let (keep, gone): (Vec<_>, Vec<_>) = std::mem::take(&mut self.breaks)
            .into_iter()
            .partition(|b| b.inserted);
        self.breaks = keep;
        for b in gone {
            let _ = self.engine.delete(Some(b.engine_id));
        }
        let (keep, gone): (Vec<_>, Vec<_>) = std::mem::take(&mut self.watches)
            .into_iter()
            .partition(|w| w.inserted);
        self.watches = keep;
        for w in gone {
            let _ = self.engine.delete(Some(w.engine_id));
        }
    }

    fn add_break(&mut self, addr: u64, hw: bool) -> TargetResult<bool, Self> {
        if let Some(b) = self
            .breaks
            .iter_mut()
            .find(|b| b.addr == addr && b.hw == hw)
        {
            b.inserted = true;
            return Ok(true);
        }
        let engine_id = self
            .engine
            .add_breakpoint(&format!("{addr:#x}"), None, Filters::default(), false)
            .map_err(|_| TargetError::Errno(EINVAL))?;
        self.breaks.push(GdbBreak {
            addr,
            hw,
            engine_id,
            inserted: true,
        });
        Ok(true)
    }

    fn remove_break(&mut self, addr: u64, hw: bool) -> TargetResult<bool, Self> {
        match self
            .breaks
            .iter_mut()
            .find(|b| b.addr == addr && b.hw == hw && b.inserted)
        {
            Some(b) => {
                b.inserted = false;
                Ok(true)
            }
            None => Err(TargetError::Errno(ENOENT)),
        }
    }

    /// The engine scope, offset and condition of a watchpoint at a window address: the
    /// address alone says which workgroup or lane it means. A workgroup not dispatched yet
    /// is watched in every workgroup's shared memory, with a condition on the wave id that
    /// only its waves satisfy (the engine takes a specific workgroup only once resident).
    fn watch_scope(&self, addr: u64) -> Result<(Scope, u64, Option<String>), u8> {
        let m = self.engine.machine();
        match Window::of(addr) {
            Window::Global(a) => Ok((Scope::Global, a, None)),
            Window::Shared { workgroup, offset } => match memory::workgroup(m, workgroup) {
                memory::Residency::Resident(_) => {
                    Ok((Scope::Shared(Some(workgroup)), offset, None))
                }
                memory::Residency::Pending => {
                    let per = m.launch().waves_per_workgroup() as u64;
                    let first = workgroup as u64 * per;
                    let cond = format!("wave >= {first} && wave < {}", first + per);
                    Ok((Scope::Shared(None), offset, Some(cond)))
                }
                memory::Residency::Gone | memory::Residency::Outside => Err(EFAULT),
            },
            Window::Scratch { wave, lane, offset } => {
                Ok((Scope::Scratch { wave, lane }, offset, None))
            }
            Window::Code(_) | Window::Invalid => Err(EINVAL),
        }
    }
}

impl Target for WaveTarget {
    type Arch = WaveArch;
    type Error = String;

    fn base_ops(&mut self) -> BaseOps<'_, WaveArch, String> {
        BaseOps::MultiThread(self)
    }

    /// lldb would ask `qRegisterInfo` first; answering nothing sends it to target.xml.
    fn use_lldb_register_info(&self) -> bool {
        false
    }

    /// Z0/Z2-Z4 packets carry breakpoints and watchpoints.
    fn support_breakpoints(&mut self) -> Option<BreakpointsOps<'_, Self>> {
        Some(self)
    }

    /// `monitor CMD` (gdb) / `process plugin packet monitor CMD` (lldb).
    fn support_monitor_cmd(&mut self) -> Option<MonitorCmdOps<'_, Self>> {
        Some(self)
    }

    /// `target extended-remote`: `run` restarts the launch, `kill` keeps the server.
    fn support_extended_mode(&mut self) -> Option<ExtendedModeOps<'_, Self>> {
        Some(self)
    }

    /// The register layout (see [`crate::regs`]), read by gdb and lldb at connection.
    fn support_target_description_xml_override(
        &mut self,
    ) -> Option<TargetDescriptionXmlOverrideOps<'_, Self>> {
        Some(self)
    }

    /// `qHostInfo`: only lldb asks.
    fn support_host_info(&mut self) -> Option<HostInfoOps<'_, Self>> {
        Some(self)
    }
}

/// Registers, memory and the thread list: every packet that inspects the stopped kernel.
impl MultiThreadBase for WaveTarget {
    fn read_registers(&mut self, regs: &mut WaveRegs, tid: Tid) -> TargetResult<(), Self> {
        let w = self.wave_of(tid)?;
        let wave = &self.engine.machine().waves[w];
        regs.pc = wave.pc;
        regs.exec = wave.exec;
        regs.u = wave.u.to_vec();
        Ok(())
    }

    fn write_registers(&mut self, regs: &WaveRegs, tid: Tid) -> TargetResult<(), Self> {
        let w = self.wave_of(tid)?;
        if !memory::is_instruction(self.engine.machine(), regs.pc) {
            return Err(TargetError::Errno(EINVAL));
        }
        let wave = &mut self.engine.machine_mut().waves[w];
        wave.pc = regs.pc;
        if regs.has_wave_part {
            wave.exec = regs.exec;
            for (d, s) in wave.u.iter_mut().zip(&regs.u) {
                *d = *s;
            }
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
        memory::read(self.engine.machine(), start, data)
            .map_err(|e| TargetError::Errno(e.errno))?;
        Ok(data.len())
    }

    fn write_addrs(&mut self, start: u64, data: &[u8], _tid: Tid) -> TargetResult<(), Self> {
        memory::write(self.engine.machine_mut(), start, data)
            .map_err(|e| TargetError::Errno(e.errno))
    }

    fn list_active_threads(&mut self, report: &mut dyn FnMut(Tid)) -> Result<(), String> {
        for w in 0..self.engine.machine().waves.len() {
            if self.listed(w) {
                if let Some(tid) = Tid::new(w + 1) {
                    report(tid);
                }
            }
        }
        Ok(())
    }

    /// gdb asks this (`T` packet) when the user switches threads (`thread N`): the engine
    /// selects that wave, so `monitor` commands act on gdb's current thread. (Register and
    /// memory packets name their thread and leave the selection alone: `info threads`
    /// reads every thread.)
    fn is_thread_alive(&mut self, tid: Tid) -> Result<bool, String> {
        let w = tid.get() - 1;
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

/// `p`/`P`: one register of one wave (gdb reads vector registers this way, lldb all).
impl SingleRegisterAccess<Tid> for WaveTarget {
    fn read_register(
        &mut self,
        tid: Tid,
        reg: WaveRegId,
        buf: &mut [u8],
    ) -> TargetResult<usize, Self> {
        let w = self.wave_of(tid)?;
        let wave = &self.engine.machine().waves[w];
        let mut put = |bytes: &[u8]| -> TargetResult<usize, Self> {
            let dst = buf
                .get_mut(..bytes.len())
                .ok_or(TargetError::Errno(EINVAL))?;
            dst.copy_from_slice(bytes);
            Ok(bytes.len())
        };
        match reg {
            WaveRegId::Core(X86_64CoreRegId::Rip) => put(&wave.pc.to_le_bytes()),
            WaveRegId::Core(X86_64CoreRegId::Gpr(n)) if n as usize == regs::RSP => {
                put(&regs::RSP_VALUE.to_le_bytes())
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
        }
    }

    fn write_register(&mut self, tid: Tid, reg: WaveRegId, val: &[u8]) -> TargetResult<(), Self> {
        let w = self.wave_of(tid)?;
        let word = |i: usize| -> Option<u32> {
            let b = val.get(i * 4..i * 4 + 4)?;
            Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        let bad = TargetError::Errno(EINVAL);
        if reg.is_pc() {
            if val.len() != 8 {
                return Err(bad);
            }
            let mut b = [0u8; 8];
            b.copy_from_slice(val);
            let pc = u64::from_le_bytes(b);
            if !memory::is_instruction(self.engine.machine(), pc) {
                return Err(bad);
            }
            self.engine.machine_mut().waves[w].pc = pc;
            return Ok(());
        }
        let wave = &mut self.engine.machine_mut().waves[w];
        match reg {
            // Inert (rip is handled above): writes are accepted and forgotten.
            WaveRegId::Core(_) => {}
            WaveRegId::Exec if val.len() == 4 => wave.exec = word(0).ok_or(bad)?,
            WaveRegId::U(n) if val.len() == 4 => wave.u[n as usize] = word(0).ok_or(bad)?,
            WaveRegId::V(n) if val.len() == VREG_BYTES => {
                for lane in 0..32 {
                    wave.v[n as usize][lane] = word(lane).ok_or(TargetError::Errno(EINVAL))?;
                }
            }
            _ => return Err(bad),
        }
        Ok(())
    }
}

/// `vCont`, `c`, `s`: the actions are collected here and run by the serve loop
/// ([`crate::run`]) once the packet is handled.
impl MultiThreadResume for WaveTarget {
    fn resume(&mut self) -> Result<(), String> {
        let a = std::mem::take(&mut self.actions);
        let bare = std::mem::take(&mut self.bare_continue);
        self.plan = Some(Plan::from_actions(&a, bare, |w| self.listed(w)));
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
        self.actions.continues.push(tid.get() - 1);
        Ok(())
    }

    #[inline(always)]
    fn support_single_step(&mut self) -> Option<MultiThreadSingleStepOps<'_, Self>> {
        Some(self)
    }

    #[inline(always)]
    fn support_scheduler_locking(&mut self) -> Option<MultiThreadSchedulerLockingOps<'_, Self>> {
        Some(self)
    }
}

/// `vCont;s:TID`: stepi of one wave (gdb also steps a wave off a breakpoint this way).
impl MultiThreadSingleStep for WaveTarget {
    fn set_resume_action_step(&mut self, tid: Tid, _signal: Option<Signal>) -> Result<(), String> {
        self.actions.step = Some(tid.get() - 1);
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

/// Z0-Z4 packets.
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

/// `break` (Z0: gdb sends kind 1 and never patches memory).
impl SwBreakpoint for WaveTarget {
    fn add_sw_breakpoint(&mut self, addr: u64, _kind: usize) -> TargetResult<bool, Self> {
        self.add_break(addr, false)
    }

    fn remove_sw_breakpoint(&mut self, addr: u64, _kind: usize) -> TargetResult<bool, Self> {
        self.remove_break(addr, false)
    }
}

/// `hbreak` (Z1): the same breakpoints.
impl HwBreakpoint for WaveTarget {
    fn add_hw_breakpoint(&mut self, addr: u64, _kind: usize) -> TargetResult<bool, Self> {
        self.add_break(addr, true)
    }

    fn remove_hw_breakpoint(&mut self, addr: u64, _kind: usize) -> TargetResult<bool, Self> {
        self.remove_break(addr, true)
    }
}

/// `watch`/`rwatch`/`awatch` (Z2/Z3/Z4) on global memory or a shared or scratch window.
impl HwWatchpoint for WaveTarget {
    fn add_hw_watchpoint(
        &mut self,
        addr: u64,
        len: u64,
        kind: WatchKind,
    ) -> TargetResult<bool, Self> {
        if let Some(w) = self
            .watches
            .iter_mut()
            .find(|w| w.addr == addr && w.len == len && w.kind == kind)
        {
            w.inserted = true;
            return Ok(true);
        }
        let (scope, offset, condition) = self.watch_scope(addr).map_err(TargetError::Errno)?;
        let engine_kind = match kind {
            WatchKind::Write => breakpoint::WatchKind::Write,
            WatchKind::Read => breakpoint::WatchKind::Read,
            WatchKind::ReadWrite => breakpoint::WatchKind::Access,
        };
        let engine_id = self
            .engine
            .add_watchpoint(engine_kind, scope, offset, len, condition.as_deref())
            .map_err(|e| {
                eprintln!("wavedbg: cannot watch {addr:#x}+{len}: {e}");
                TargetError::Errno(EINVAL)
            })?;
        self.watches.push(GdbWatch {
            addr,
            len,
            kind,
            engine_id,
            inserted: true,
        });
        Ok(true)
    }

    fn remove_hw_watchpoint(
        &mut self,
        addr: u64,
        len: u64,
        kind: WatchKind,
    ) -> TargetResult<bool, Self> {
        match self
            .watches
            .iter_mut()
            .find(|w| w.addr == addr && w.len == len && w.kind == kind && w.inserted)
        {
            Some(w) => {
                w.inserted = false;
                Ok(true)
            }
            None => Err(TargetError::Errno(ENOENT)),
        }
    }
}

/// `qThreadExtraInfo`: what `info threads` shows after the thread id.
impl ThreadExtraInfo for WaveTarget {
    fn thread_extra_info(&self, tid: Tid, buf: &mut [u8]) -> Result<usize, String> {
        let m = self.engine.machine();
        let text = match m.waves.get(tid.get() - 1) {
            Some(w) => format!(
                "wave {} wg {} {} exec {:#010x}",
                w.id,
                w.workgroup,
                w.state.name(),
                w.exec
            ),
            None => "gone".to_string(),
        };
        let n = text.len().min(buf.len());
        buf[..n].copy_from_slice(&text.as_bytes()[..n]);
        Ok(n)
    }
}

/// `monitor`: the command language, plus the server's own commands ([`crate::monitor`]).
impl MonitorCmd for WaveTarget {
    fn handle_monitor_cmd(&mut self, cmd: &[u8], mut out: ConsoleOutput<'_>) -> Result<(), String> {
        let text = crate::monitor::run(self, &String::from_utf8_lossy(cmd));
        out.write_raw(text.as_bytes());
        Ok(())
    }
}

/// `target extended-remote`: `run` (vRun) and `R` restart the launch; `kill` restarts it
/// and keeps serving.
impl ExtendedMode for WaveTarget {
    fn run(&mut self, _filename: Option<&[u8]>, _args: Args<'_, '_>) -> TargetResult<Pid, Self> {
        self.restart();
        self.no_process = false;
        Pid::new(1).ok_or(TargetError::NonFatal)
    }

    fn attach(&mut self, _pid: Pid) -> TargetResult<(), Self> {
        self.no_process = false;
        Ok(())
    }

    fn query_if_attached(&mut self, _pid: Pid) -> TargetResult<AttachKind, Self> {
        Ok(if self.extended {
            AttachKind::Run
        } else {
            AttachKind::Attach
        })
    }

    fn kill(&mut self, _pid: Option<Pid>) -> TargetResult<ShouldTerminate, Self> {
        if self.extended {
            self.restart();
            self.no_process = true;
            Ok(ShouldTerminate::No)
        } else {
            Ok(ShouldTerminate::Yes)
        }
    }

    fn restart(&mut self) -> Result<(), String> {
        WaveTarget::restart(self);
        self.no_process = false;
        Ok(())
    }

    fn on_start(&mut self) -> Result<(), String> {
        self.extended = true;
        Ok(())
    }
}

/// `qXfer:features:read:target.xml`.
impl TargetDescriptionXmlOverride for WaveTarget {
    fn target_description_xml(
        &self,
        annex: &[u8],
        offset: u64,
        length: usize,
        buf: &mut [u8],
    ) -> TargetResult<usize, Self> {
        if annex != b"target.xml" {
            return Err(TargetError::Errno(ENOENT));
        }
        let xml = self.xml.as_bytes();
        let start = usize::try_from(offset).unwrap_or(usize::MAX).min(xml.len());
        let n = length.min(buf.len()).min(xml.len() - start);
        buf[..n].copy_from_slice(&xml[start..start + n]);
        Ok(n)
    }
}

/// `qHostInfo` (lldb).
impl HostInfo for WaveTarget {
    fn host_info(&self, write: &mut dyn FnMut(&HostInfoResponse<'_>)) -> Result<(), String> {
        write(&HostInfoResponse::Triple("x86_64-unknown-none"));
        write(&HostInfoResponse::Endianness(Endianness::Little));
        write(&HostInfoResponse::PointerSize(8));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wavedbg_emulator::machine::LaunchOptions;

    /// Two workgroups of two waves, one resident at a time.
    fn target() -> WaveTarget {
        let src = "\
.kernel t
.workgroup 64
.grid 2
.shared 16
.scratch 8
.buffer out, 64
.arg u[0:1], out
    end
";
        let p = wavedbg_emulator::asm::assemble(src, "t.s", None).expect("assembles");
        let options = LaunchOptions {
            resident_workgroups: 1,
            ..LaunchOptions::default()
        };
        WaveTarget::new(Engine::new(&p, options).expect("launches"))
    }

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
            Ok((Scope::Shared(Some(0)), 8, None))
        );
        assert_eq!(
            scope(&t, Window::scratch_addr(1, 5, 4)),
            Ok((Scope::Scratch { wave: 1, lane: 5 }, 4, None))
        );
        assert_eq!(
            scope(&t, 0x1_0000_0004),
            Ok((Scope::Global, 0x1_0000_0004, None))
        );
        // Workgroup 1 is not resident yet: only its waves (2 and 3) trigger.
        assert_eq!(
            scope(&t, Window::shared_addr(1, 8)),
            Ok((
                Scope::Shared(None),
                8,
                Some("wave >= 2 && wave < 4".to_string())
            ))
        );
        assert!(t
            .add_hw_watchpoint(Window::shared_addr(1, 8), 4, WatchKind::Write)
            .is_ok());
        assert_eq!(scope(&t, Window::shared_addr(2, 0)), Err(EFAULT));
        assert_eq!(scope(&t, 0x10), Err(EINVAL));
        // Wave 2 is not resident: the engine cannot watch its scratch.
        assert!(t
            .add_hw_watchpoint(Window::scratch_addr(2, 0, 0), 4, WatchKind::Write)
            .is_err());
    }

    #[test]
    fn no_thread_is_listed_without_a_process() {
        let mut t = target();
        let mut n = 0;
        let _ = t.list_active_threads(&mut |_| n += 1);
        assert_eq!(n, 2);
        t.extended = true;
        assert!(matches!(t.kill(None), Ok(ShouldTerminate::No)));
        let mut n = 0;
        let _ = t.list_active_threads(&mut |_| n += 1);
        assert_eq!(n, 0);
        assert!(t.wave_of(Tid::new(1).expect("tid")).is_err());
        assert!(ExtendedMode::restart(&mut t).is_ok());
        let mut n = 0;
        let _ = t.list_active_threads(&mut |_| n += 1);
        assert_eq!(n, 2);
    }
}
