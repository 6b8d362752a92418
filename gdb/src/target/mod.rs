//! The gdbstub `Target`: the debug engine seen as a multi-threaded process whose threads
//! are the resident waves. This file holds the struct, the helpers the extensions share and
//! the `Target` impl that says which extensions exist; each extension is in its own file,
//! whose docs say when gdbstub calls it:
//!
//! - [`base`]: the thread list, `g`/`G` registers and `m`/`M`/`X` memory (`MultiThreadBase`);
//! - [`single_register`]: `p`/`P`, one register (`SingleRegisterAccess`);
//! - [`memory`]: reads and writes at window addresses, for [`base`];
//! - [`breakpoints`]: Z0/Z1 (`Breakpoints`, `SwBreakpoint`, `HwBreakpoint`);
//! - [`watchpoints`]: Z2-Z4 (`HwWatchpoint`);
//! - [`resume`]: `vCont`/`c`/`s` actions (`MultiThreadResume`, single step, scheduler
//!   locking);
//! - [`monitor`]: `qRcmd`, the `monitor` commands (`MonitorCmd`);
//! - [`extended_mode`]: `!`, `vRun`, `R`, `vKill` (`ExtendedMode`);
//! - [`thread_extra_info`]: `qThreadExtraInfo` (`ThreadExtraInfo`);
//! - [`target_description`]: the register layout for `qXfer:features:read:target.xml`
//!   (`TargetDescriptionXmlOverride`);
//! - [`host_info`]: `qHostInfo`, lldb's (`HostInfo`).
//!
//! Thread ids are global wave ids plus one (gdb reserves 0): a thread id names the same
//! wave for the whole launch, also when its workgroup's slot is reused by another
//! workgroup (`--resident`), whose waves then come as new threads. Internally the server
//! works with wave indexes (slots in the machine's waves); `WaveTarget::slot` and
//! `WaveTarget::tid` convert at the protocol's edge. Only resident waves are listed:
//! exited waves are dropped from the thread list, except the wave of the last stop, which
//! stays listed until the next resumption so the client can still read it, even when it
//! exited and the next workgroup took its slot at once (the machine keeps the replaced
//! waves; `WaveTarget::ghost`). Faulted waves stay listed. After an extended-remote
//! `kill`, and after the launch ended, there is no process: no thread is listed until
//! `run` starts it again.
//!
//! The extensions depend on this file and on the plain modules below it ([`crate::plan`],
//! [`crate::points`], [`crate::memory`], [`crate::regs`], [`crate::codes`]), never on
//! [`crate::run`] or [`crate::session`], which sit on top.

pub mod base;
pub mod breakpoints;
pub mod extended_mode;
pub mod host_info;
pub mod memory;
pub mod monitor;
pub mod resume;
pub mod reverse;
pub mod single_register;
pub mod target_description;
pub mod thread_extra_info;
pub mod watchpoints;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use gdbstub::common::{Signal, Tid};
use gdbstub::target::ext::base::BaseOps;
use gdbstub::target::ext::breakpoints::BreakpointsOps;
use gdbstub::target::ext::extended_mode::ExtendedModeOps;
use gdbstub::target::ext::host_info::HostInfoOps;
use gdbstub::target::ext::monitor_cmd::MonitorCmdOps;
use gdbstub::target::ext::target_description_xml_override::TargetDescriptionXmlOverrideOps;
use gdbstub::target::{Target, TargetError};
use wavedbg_emulator::debug::{Engine, EngineError};
use wavedbg_emulator::machine::wave::{Wave, WaveState};

use crate::codes::{self, ESRCH};
use crate::memory::Tail;
use crate::plan::{Actions, Plan};
use crate::points::{BreakAt, ClientPoints, WatchAt};
use crate::regs::{self, WaveArch};

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
    pub(crate) breaks: ClientPoints<BreakAt>,
    /// The client's watchpoints.
    pub(crate) watches: ClientPoints<WatchAt>,
    /// `!` was received: kill restarts the launch instead of ending the server.
    pub(crate) extended: bool,
    /// There is no process (killed in extended mode, or the launch ended): no thread is
    /// listed until `run`.
    pub(crate) no_process: bool,
    /// The wave of the last stop (listed even if it exited).
    pub(crate) last_stop_wave: Option<usize>,
    /// The signal of the last stop (SIGTRAP for a breakpoint, a watchpoint or a step):
    /// what a client that connects is told the kernel stopped with ([`WaveTarget::stop_thread`]).
    pub(crate) last_signal: Signal,
    /// The wave of the last stop when it exited and the next workgroup took its slot in
    /// the same step (its global id): listed, and its registers readable from the
    /// machine's retired waves, until the next resumption.
    pub(crate) ghost: Option<u32>,
    /// The client's current thread is the ghost (after its stop, or `thread N` of it): the
    /// engine cannot select that wave, so `monitor` views of the selected wave are
    /// refused rather than shown for the wave that took its slot.
    pub(crate) on_ghost: bool,
    /// The launch stopped in a deadlock: a forward resumption terminates it with this
    /// signal (going back leaves the deadlock).
    pub(crate) terminal: Option<Signal>,
    /// Every wave exited and the end was reported as a stop: the next forward resumption
    /// ends the process ([`crate::run`]).
    pub(crate) ended: bool,
    /// The signal of the last fault (the launch ends with it when only faulted waves are
    /// left).
    pub(crate) last_fault: Option<Signal>,
    /// Set on Ctrl-C while the kernel runs (checked by loops the engine does not poll).
    pub(crate) ctrl_c: Arc<AtomicBool>,
    /// `monitor save` may write files (the server listens on loopback only).
    pub(crate) files_allowed: bool,
    /// The client's breakpoints and watchpoints the engine refused since the kernel last
    /// ran, for `monitor info breakpoints` and `info watchpoints`: gdb and lldb show no
    /// reason a server gives for a failed `Z` packet.
    pub(crate) refused_points: Vec<RefusedPoint>,
    /// The client asked `QListThreadsInStopReply` (lldb does): stop replies list every
    /// thread and its PC ([`WaveTarget::stop_reply_threads`]).
    pub(crate) threads_in_stop_reply: bool,
    /// The client is lldb (told by its handshake, see [`crate::session`]): memory reads
    /// past a window's end are padded ([`Tail::Padded`]), and a stop at a barrier names
    /// lldb's way to let the other waves run.
    pub(crate) lldb: bool,
    /// For lldb: the wave (index, or [`GONE`]) and the launch's instruction count of the
    /// last stop, when it was a lone step that could not move the wave. lldb keeps an
    /// interrupted step and sends it again at every `process continue`: the same step
    /// again, with nothing run since, lets the other waves run ([`WaveTarget::execute`]).
    pub(crate) blocked_step: Option<(usize, u64)>,
    /// For lldb: each resident wave's id and instruction count when the kernel last
    /// resumed, so a stop reply can tell the waves that arrived at a breakpoint
    /// ([`WaveTarget::stop_reply_threads`]).
    pub(crate) resumed_at: Vec<(u32, u64)>,
}

/// The wave index of a resume action on a wave that is no longer resident (the last
/// stop's exited wave: the packet validation refuses any other).
pub(crate) const GONE: usize = usize::MAX;

/// The global wave id a thread id names.
pub(crate) fn wave_id(tid: Tid) -> Option<u32> {
    u32::try_from(tid.get() - 1).ok()
}

/// The error reply for an engine operation that was refused.
/// A client breakpoint or watchpoint the engine refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RefusedPoint {
    /// What the client asked for, as `monitor info breakpoints` lists points.
    pub label: String,
    /// The engine's reason.
    pub why: String,
    /// A watchpoint (listed by `info watchpoints` too).
    pub watch: bool,
}

impl WaveTarget {
    /// Notes a refused point: its reason on the server's stderr (gdb and lldb show none)
    /// and in the `monitor info` listings, once per label.
    pub(crate) fn note_refused(&mut self, point: RefusedPoint) {
        eprintln!("wavedbg: cannot insert {}: {}", point.label, point.why);
        self.refused_points.retain(|p| p.label != point.label);
        self.refused_points.push(point);
    }
}

pub(crate) fn refused(e: &EngineError) -> TargetError<String> {
    TargetError::Errno(codes::errno(e))
}

impl WaveTarget {
    /// A target over `engine`, as launched; the client's breakpoints and plans start empty.
    pub fn new(mut engine: Engine) -> WaveTarget {
        // `$lane` is the client's selection: a stop must not move it to a lane that hit,
        // which a client's lane condition would then see.
        engine.set_lane_follows_stops(false);
        WaveTarget {
            engine,
            xml: regs::target_xml(),
            actions: Actions::default(),
            plan: None,
            bare_continue: false,
            breaks: ClientPoints::default(),
            watches: ClientPoints::default(),
            extended: false,
            no_process: false,
            last_stop_wave: None,
            last_signal: Signal::SIGTRAP,
            ghost: None,
            on_ghost: false,
            terminal: None,
            ended: false,
            last_fault: None,
            ctrl_c: Arc::new(AtomicBool::new(false)),
            files_allowed: true,
            lldb: false,
            blocked_step: None,
            resumed_at: Vec::new(),
            threads_in_stop_reply: false,
            refused_points: Vec::new(),
        }
    }

    /// The engine it drives, for reading state (front ends change it through the target).
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The wave index (slot) of the resident wave a thread id names.
    pub(crate) fn slot(&self, tid: Tid) -> Option<usize> {
        if self.no_process {
            return None;
        }
        self.engine.machine().wave_index(wave_id(tid)?)
    }

    /// The thread id of the wave at index (slot) `w`.
    pub(crate) fn tid(&self, w: usize) -> Option<Tid> {
        let id = self.engine.machine().waves.get(w)?.id;
        Tid::new(id as usize + 1)
    }

    /// The exited wave of the last stop ([`WaveTarget::ghost`]), while there is one.
    pub(crate) fn ghost_wave(&self) -> Option<&Wave> {
        let id = self.ghost.filter(|_| !self.no_process)?;
        self.engine.machine().retired_wave(id)
    }

    /// The exited wave of the last stop, if `tid` names it.
    pub(crate) fn ghost_of(&self, tid: Tid) -> Option<&Wave> {
        self.ghost_wave().filter(|w| wave_id(tid) == Some(w.id))
    }

    /// The wave a thread id names, to read: resident, or the last stop's exited wave.
    pub(crate) fn readable(&self, tid: Tid) -> Result<&Wave, TargetError<String>> {
        match self.slot(tid) {
            Some(w) => Ok(&self.engine.machine().waves[w]),
            None => self.ghost_of(tid).ok_or(TargetError::Errno(ESRCH)),
        }
    }

    /// The wave index of a thread id, if that wave is resident (else ESRCH).
    pub(crate) fn wave_of(&self, tid: Tid) -> Result<usize, TargetError<String>> {
        self.slot(tid).ok_or(TargetError::Errno(ESRCH))
    }

    /// How memory reads past a window's end are answered: padded for lldb, which reads
    /// whole 512-byte lines, short for gdb.
    pub(crate) fn tail(&self) -> Tail {
        if self.lldb {
            Tail::Padded
        } else {
            Tail::Short
        }
    }

    /// Whether the thread of wave index `w` is listed.
    pub(crate) fn listed(&self, w: usize) -> bool {
        !self.no_process
            && self.engine.machine().waves.get(w).is_some_and(|x| {
                x.alive() || x.state == WaveState::Faulted || self.last_stop_wave == Some(w)
            })
    }

    /// Whether thread id `tid` (a number, as a packet gives it) is listed.
    pub(crate) fn listed_tid(&self, tid: usize) -> bool {
        Tid::new(tid).is_some_and(|t| {
            self.slot(t).is_some_and(|w| self.listed(w)) || self.ghost_of(t).is_some()
        })
    }

    /// The listed threads' ids, in the order of their waves' ids (the last stop's exited
    /// wave among them).
    pub(crate) fn listed_tids(&self) -> Vec<Tid> {
        let waves = &self.engine.machine().waves;
        let mut ids: Vec<u32> = self.listed_waves().map(|w| waves[w].id).collect();
        if let Some(g) = self.ghost_wave() {
            ids.push(g.id);
            ids.sort_unstable();
        }
        ids.into_iter()
            .filter_map(|id| Tid::new(id as usize + 1))
            .collect()
    }

    /// The wave index a resume action names: [`GONE`] for the last stop's exited wave
    /// (which has no index), which the plan reports as exited without running anything.
    pub(crate) fn action_slot(&self, tid: Tid) -> usize {
        self.slot(tid).unwrap_or(GONE)
    }

    /// The listed threads' wave indexes, in the order of their waves' ids.
    pub(crate) fn listed_waves(&self) -> impl Iterator<Item = usize> + '_ {
        let waves = &self.engine.machine().waves;
        let mut listed: Vec<usize> = (0..waves.len()).filter(|&w| self.listed(w)).collect();
        listed.sort_by_key(|&w| waves[w].id);
        listed.into_iter()
    }

    /// Forgets the previous client: its protocol state, and the breakpoints and
    /// watchpoints it inserted but never removed (it went away without detaching).
    pub(crate) fn new_client(&mut self) {
        self.extended = false;
        self.no_process = false;
        self.bare_continue = false;
        self.plan = None;
        self.actions = Actions::default();
        self.lldb = false;
        self.resumed_at.clear();
        self.threads_in_stop_reply = false;
        self.refused_points.clear();
        let gone = [self.breaks.take_all(), self.watches.take_all()];
        self.delete_points(gone.concat());
        // The new client's current thread is the one its `?` names, the thread of the last
        // stop ([`WaveTarget::stop_thread`]); the engine's selection follows gdb's current
        // thread (what `bs`, Ctrl-C and `monitor` act on), so it starts there too, not
        // where the last client's `thread N` left it.
        self.on_ghost = self.ghost_wave().is_some();
        if let Some(w) = self.stop_thread().and_then(|tid| self.slot(tid)) {
            // Cannot fail: `slot` found the index.
            let _ = self.engine.select_wave_index(w);
        }
    }

    /// The thread a client that connects finds stopped, as a native gdbserver answers `?`:
    /// the last stop's (its exited wave too, while listed), else the first listed; `None`
    /// when no thread is listed (no process).
    pub(crate) fn stop_thread(&self) -> Option<Tid> {
        if let Some(g) = self.ghost_wave() {
            return Tid::new(g.id as usize + 1);
        }
        self.last_stop_wave
            .filter(|&w| self.listed(w))
            .and_then(|w| self.tid(w))
            .or_else(|| self.listed_tids().first().copied())
    }

    /// Restarts the launch from the beginning (gdb's breakpoints and watchpoints stay).
    pub(crate) fn restart(&mut self) {
        self.engine.restart();
        self.terminal = None;
        self.ended = false;
        self.last_fault = None;
        self.last_stop_wave = None;
        self.last_signal = Signal::SIGTRAP;
        self.ghost = None;
        self.on_ghost = false;
        self.plan = None;
    }

    /// Whether an engine breakpoint or watchpoint number is the client's.
    pub(crate) fn client_owns(&self, id: u32) -> bool {
        self.breaks.by_engine_id(id).is_some() || self.watches.by_engine_id(id).is_some()
    }

    /// Deletes the client's breakpoints and watchpoints that were removed and not inserted
    /// again: called when the kernel is about to run.
    pub(crate) fn settle_points(&mut self) {
        let gone = [self.breaks.take_removed(), self.watches.take_removed()];
        self.delete_points(gone.concat());
    }

    fn delete_points(&mut self, ids: Vec<u32>) {
        for id in ids {
            // Cannot fail but for a point already gone, which is what is wanted.
            let _ = self.engine.delete(Some(id));
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

    /// Z0-Z4 packets carry breakpoints and watchpoints.
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Two workgroups of two waves, one resident at a time.
    pub(crate) fn target() -> WaveTarget {
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
        WaveTarget::new(crate::testing::engine(src, 1))
    }
}
