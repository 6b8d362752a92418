//! The gdbstub `Target`: the debug engine seen as a multi-threaded process whose threads
//! are the resident waves.
//!
//! Thread ids are wave indexes plus one (gdb reserves 0). A wave index is a slot position:
//! when a workgroup finishes, the next one is dispatched into the same slot, so a thread id
//! can come back with another wave in it (`info threads` shows which wave, through
//! `qThreadExtraInfo`). Exited waves are dropped from the thread list, except the wave of
//! the last stop, which stays listed until the next resumption so the client can still
//! read it. Faulted waves stay listed.
//!
//! Each extension trait below says when the client uses it.

use std::collections::HashMap;
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

/// A gdb watchpoint (Z2/Z3/Z4) and the engine watchpoint behind it.
#[derive(Debug, Clone)]
pub(crate) struct GdbWatch {
    /// The address as gdb sent it (in a window).
    pub addr: u64,
    pub len: u64,
    pub kind: WatchKind,
    /// The engine's watchpoint number.
    pub engine_id: u32,
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
    /// gdb breakpoints: address -> (engine number, insertions).
    pub(crate) breaks: HashMap<u64, (u32, u32)>,
    pub(crate) watches: Vec<GdbWatch>,
    /// The scope a watched shared/scratch address got when it was first inserted: gdb
    /// removes and reinserts watchpoints around every resumption, and the workgroup (or
    /// lane) watched must not follow whichever wave stopped last.
    scopes: HashMap<(u64, u64, u8), Scope>,
    /// `!` was received: kill restarts the launch instead of ending the server.
    pub(crate) extended: bool,
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
    /// The client is lldb (it asked `qHostInfo`): lldb reads memory without selecting a
    /// thread first, so the shared and scratch windows follow the engine's selected wave.
    lldb: std::cell::Cell<bool>,
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
            breaks: HashMap::new(),
            watches: Vec::new(),
            scopes: HashMap::new(),
            extended: false,
            last_stop_wave: None,
            terminal: None,
            last_fault: None,
            ctrl_c: Arc::new(AtomicBool::new(false)),
            files_allowed: true,
            lldb: std::cell::Cell::new(false),
        }
    }

    /// The engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The wave index of a thread id, if that wave exists.
    pub(crate) fn wave_of(&self, tid: Tid) -> Result<usize, TargetError<String>> {
        let w = tid.get() - 1;
        if w < self.engine.machine().waves.len() {
            Ok(w)
        } else {
            Err(TargetError::Errno(ESRCH))
        }
    }

    /// The wave whose shared and scratch windows a memory packet addresses.
    fn memory_wave(&self, tid: Tid) -> Result<usize, TargetError<String>> {
        if self.lldb.get() && self.engine.selected_wave < self.engine.machine().waves.len() {
            Ok(self.engine.selected_wave)
        } else {
            self.wave_of(tid)
        }
    }

    /// Whether thread `w` (index) is listed.
    pub(crate) fn listed(&self, w: usize) -> bool {
        self.engine.machine().waves.get(w).is_some_and(|x| {
            x.alive()
                || x.state == wavedbg_emulator::machine::wave::WaveState::Faulted
                || self.last_stop_wave == Some(w)
        })
    }

    /// Forgets the previous client: its protocol state, and the breakpoints and
    /// watchpoints it inserted but never removed (it went away without detaching).
    pub(crate) fn new_client(&mut self) {
        self.lldb.set(false);
        self.extended = false;
        self.bare_continue = false;
        self.plan = None;
        self.actions = Actions::default();
        for (_, (id, _)) in self.breaks.drain() {
            let _ = self.engine.delete(Some(id));
        }
        for w in std::mem::take(&mut self.watches) {
            let _ = self.engine.delete(Some(w.engine_id));
        }
        self.scopes.clear();
    }

    /// Restarts the launch from the beginning (gdb's breakpoints and watchpoints stay).
    pub(crate) fn restart(&mut self) {
        self.engine.restart();
        self.terminal = None;
        self.last_fault = None;
        self.last_stop_wave = None;
        self.plan = None;
    }

    fn kind_code(kind: WatchKind) -> u8 {
        match kind {
            WatchKind::Write => 0,
            WatchKind::Read => 1,
            WatchKind::ReadWrite => 2,
        }
    }

    fn add_break(&mut self, addr: u64) -> TargetResult<bool, Self> {
        if let Some((_, n)) = self.breaks.get_mut(&addr) {
            *n += 1;
            return Ok(true);
        }
        let id = self
            .engine
            .add_breakpoint(&format!("{addr:#x}"), None, Filters::default(), false)
            .map_err(|_| TargetError::Errno(EINVAL))?;
        self.breaks.insert(addr, (id, 1));
        Ok(true)
    }

    fn remove_break(&mut self, addr: u64) -> TargetResult<bool, Self> {
        match self.breaks.get_mut(&addr) {
            Some((_, n)) if *n > 1 => {
                *n -= 1;
                Ok(true)
            }
            Some(&mut (id, _)) => {
                self.breaks.remove(&addr);
                let _ = self.engine.delete(Some(id));
                Ok(true)
            }
            None => Err(TargetError::Errno(ENOENT)),
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

    /// The window's wave is the packet's thread (gdb sends `Hg` first), or for lldb the
    /// engine's selected wave.
    fn read_addrs(&mut self, start: u64, data: &mut [u8], tid: Tid) -> TargetResult<usize, Self> {
        let w = self.memory_wave(tid)?;
        let lane = self.engine.selected_lane;
        memory::read(self.engine.machine(), w, lane, start, data)
            .map_err(|e| TargetError::Errno(e.errno))?;
        Ok(data.len())
    }

    fn write_addrs(&mut self, start: u64, data: &[u8], tid: Tid) -> TargetResult<(), Self> {
        let w = self.memory_wave(tid)?;
        let lane = self.engine.selected_lane;
        memory::write(self.engine.machine_mut(), w, lane, start, data)
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
        self.add_break(addr)
    }

    fn remove_sw_breakpoint(&mut self, addr: u64, _kind: usize) -> TargetResult<bool, Self> {
        self.remove_break(addr)
    }
}

/// `hbreak` (Z1): the same breakpoints.
impl HwBreakpoint for WaveTarget {
    fn add_hw_breakpoint(&mut self, addr: u64, _kind: usize) -> TargetResult<bool, Self> {
        self.add_break(addr)
    }

    fn remove_hw_breakpoint(&mut self, addr: u64, _kind: usize) -> TargetResult<bool, Self> {
        self.remove_break(addr)
    }
}

/// `watch`/`rwatch`/`awatch` (Z2/Z3/Z4) on global memory or the shared/scratch windows.
impl HwWatchpoint for WaveTarget {
    fn add_hw_watchpoint(
        &mut self,
        addr: u64,
        len: u64,
        kind: WatchKind,
    ) -> TargetResult<bool, Self> {
        let key = (addr, len, Self::kind_code(kind));
        let window = Window::of(addr);
        let Some((_, offset)) = window.space() else {
            return Err(TargetError::Errno(EINVAL));
        };
        let scope = match self.scopes.get(&key) {
            Some(s) => *s,
            None => {
                let m = self.engine.machine();
                let wave = m.waves.get(self.engine.selected_wave);
                let scope = match window {
                    Window::Shared(_) => {
                        Scope::Shared(Some(wave.ok_or(TargetError::Errno(ESRCH))?.workgroup))
                    }
                    Window::Scratch(_) => Scope::Scratch {
                        wave: wave.ok_or(TargetError::Errno(ESRCH))?.id,
                        lane: self.engine.selected_lane,
                    },
                    _ => Scope::Global,
                };
                self.scopes.insert(key, scope);
                scope
            }
        };
        let engine_kind = match kind {
            WatchKind::Write => breakpoint::WatchKind::Write,
            WatchKind::Read => breakpoint::WatchKind::Read,
            WatchKind::ReadWrite => breakpoint::WatchKind::Access,
        };
        let engine_id = self
            .engine
            .add_watchpoint(engine_kind, scope, offset, len, None)
            .map_err(|_| TargetError::Errno(EINVAL))?;
        self.watches.push(GdbWatch {
            addr,
            len,
            kind,
            engine_id,
        });
        Ok(true)
    }

    fn remove_hw_watchpoint(
        &mut self,
        addr: u64,
        len: u64,
        kind: WatchKind,
    ) -> TargetResult<bool, Self> {
        let Some(i) = self
            .watches
            .iter()
            .position(|w| w.addr == addr && w.len == len && w.kind == kind)
        else {
            return Err(TargetError::Errno(ENOENT));
        };
        let w = self.watches.remove(i);
        let _ = self.engine.delete(Some(w.engine_id));
        Ok(true)
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
        Pid::new(1).ok_or(TargetError::NonFatal)
    }

    fn attach(&mut self, _pid: Pid) -> TargetResult<(), Self> {
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
            Ok(ShouldTerminate::No)
        } else {
            Ok(ShouldTerminate::Yes)
        }
    }

    fn restart(&mut self) -> Result<(), String> {
        WaveTarget::restart(self);
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
        self.lldb.set(true);
        write(&HostInfoResponse::Triple("x86_64-unknown-none"));
        write(&HostInfoResponse::Endianness(Endianness::Little));
        write(&HostInfoResponse::PointerSize(8));
        Ok(())
    }
}
