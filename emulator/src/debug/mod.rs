//! The debug engine: one API and one typed stop event for every front end (TUI, REPL,
//! replay scripts, the GDB server). It runs the machine under breakpoints (per-lane
//! conditions, filters, ignore counts), exact watchpoints on global, shared and scratch
//! byte ranges, stepping with or without scheduler locking, and interrupts from another
//! thread; the command language ([`command`]) parses into typed commands that run here.

pub mod breakpoint;
pub mod command;
pub mod completion;
pub mod expr;
mod run_command;
pub mod session;
pub mod view;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use crate::exec::AccessKind;
use crate::fault::Fault;
use crate::wave::WaveState;
use crate::machine::{Deadlock, Event, LaunchError, LaunchOptions, Machine};
use crate::memory::Space;
use crate::program::Program;
use breakpoint::{Breakpoint, Condition, Filters, Scope, WatchKind, Watchpoint};
pub use run_command::{CommandOutput, ExpectOutcome};

/// One watchpoint trigger: who touched the range, and the values before and after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchHit {
    /// Watchpoint number.
    pub id: u32,
    /// Its kind.
    pub kind: WatchKind,
    /// Space.
    pub space: Space,
    /// Watched address and length.
    pub addr: u64,
    /// Length.
    pub len: u64,
    /// Lanes that touched the range.
    pub lanes: u32,
    /// PC of the accessing instruction (the wave's PC is already past it: the stop is
    /// precise, right after the access).
    pub pc: u64,
    /// How they touched it (the strongest: read-write beats write beats read).
    pub access: AccessKind,
    /// Bytes before the instruction.
    pub old: Vec<u8>,
    /// Bytes after it.
    pub new: Vec<u8>,
}

/// Why execution stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    /// A breakpoint; `lanes` satisfied its condition (or were active).
    Breakpoint {
        /// Number.
        id: u32,
        /// Lanes.
        lanes: u32,
    },
    /// One or more watchpoints triggered by the instruction just executed.
    Watchpoint(Vec<WatchHit>),
    /// A step finished.
    Step,
    /// `advance`/`until` reached its address, or a wave reached its barrier or exited.
    Reached(String),
    /// The program's `brk` instruction.
    BreakInstruction,
    /// A wave faulted.
    Fault(Fault),
    /// A barrier can never complete.
    Deadlock(Deadlock),
    /// Every wave has exited.
    Finished,
    /// Interrupted (Ctrl-C, `interrupt`).
    Interrupted,
    /// Nothing can run the way asked (e.g. the selected wave waits at a barrier while the
    /// other waves are frozen).
    Blocked(String),
    /// The launch cannot go on: the waves left have faulted (the text says what is left).
    Terminated(String),
    /// A breakpoint condition could not be evaluated.
    ConditionError {
        /// Breakpoint number.
        id: u32,
        /// The error.
        message: String,
    },
}

/// A stop, with everything a front end needs to show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StopEvent {
    /// Why.
    pub reason: StopReason,
    /// The wave concerned (index in [`Machine::waves`]), if any.
    pub wave: Option<usize>,
    /// Its global id.
    pub wave_id: Option<u32>,
    /// Its PC at the stop.
    pub pc: Option<u64>,
    /// Wave-instructions executed since the launch.
    pub instructions: u64,
}

impl StopEvent {
    /// Whether the launch is over (finished, faulted or deadlocked).
    pub fn is_terminal(&self) -> bool {
        matches!(
            self.reason,
            StopReason::Finished
                | StopReason::Fault(_)
                | StopReason::Deadlock(_)
                | StopReason::Terminated(_)
        )
    }
}

/// When a run of one wave alone ends on its own (besides breakpoints, watchpoints,
/// faults...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Goal {
    /// Never.
    None,
    /// After this many instructions.
    Steps(u64),
    /// When the wave arrives at a barrier.
    Barrier,
    /// When the wave exits.
    Exit,
}

/// A handle that interrupts a running engine from another thread.
#[derive(Debug, Clone)]
pub struct InterruptHandle(Arc<AtomicBool>);

impl InterruptHandle {
    /// Asks the engine to stop as soon as possible (checked every few hundred instructions).
    /// A request made just before a run starts stops that run; each stop consumes it.
    pub fn interrupt(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Withdraws a request the engine has not acted on (the run it was meant for ended by
    /// itself), so it does not stop the next run.
    pub fn cancel(&self) {
        self.0.store(false, Ordering::Relaxed);
    }
}

/// How far a run has got, readable from another thread while the engine runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Wave-instructions executed since the launch.
    pub instructions: u64,
    /// Waves of the launch not exited yet: resident ones still alive, plus those of
    /// workgroups not dispatched yet.
    pub waves_remaining: u64,
}

/// Reads a running engine's [`Progress`] from another thread (the engine publishes it
/// every few hundred instructions and at every stop).
#[derive(Debug, Clone, Default)]
pub struct ProgressHandle(Arc<[AtomicU64; 2]>);

impl ProgressHandle {
    /// The last published progress.
    pub fn get(&self) -> Progress {
        Progress {
            instructions: self.0[0].load(Ordering::Relaxed),
            waves_remaining: self.0[1].load(Ordering::Relaxed),
        }
    }

    fn publish(&self, m: &Machine) {
        self.0[0].store(m.stats.wave_instructions, Ordering::Relaxed);
        self.0[1].store(m.waves_remaining(), Ordering::Relaxed);
    }
}

/// The debugger engine.
#[derive(Debug, Clone)]
pub struct Engine {
    machine: Machine,
    initial: Machine,
    last_stop: Machine,
    breakpoints: Vec<Breakpoint>,
    watchpoints: Vec<Watchpoint>,
    next_id: u32,
    /// Per code word: the indexes of the enabled breakpoints there (empty: none), so the
    /// hot loop pays one indexed load per instruction however many breakpoints exist.
    armed: Vec<Vec<usize>>,
    /// Selected wave (index into the machine's waves).
    pub selected_wave: usize,
    /// Selected lane.
    pub selected_lane: u8,
    /// `set scheduler-locking on`: stepping moves only the selected wave.
    pub scheduler_locking: bool,
    interrupt: Arc<AtomicBool>,
    progress: ProgressHandle,
    /// The wave and PC of the breakpoint we stopped at: resuming steps over it once.
    resume_over: Option<(usize, u64)>,
    last: Option<StopEvent>,
    /// Expressions shown after every stop (`display`).
    displays: Vec<String>,
    /// Every command line run through [`Engine::execute_line`], for sessions and replay.
    log: Vec<String>,
    /// The kernel's path as the front end opened it (recorded in sessions).
    kernel_path: Option<String>,
}

/// Instructions between interrupt checks.
const POLL: u64 = 256;

impl Engine {
    /// Launches `program` under the debugger.
    pub fn new(program: &Program, options: LaunchOptions) -> Result<Engine, LaunchError> {
        let mut machine = Machine::new(program, options)?;
        machine.break_is_fault = false;
        let armed = vec![Vec::new(); machine.code().len()];
        Ok(Engine {
            initial: machine.clone(),
            last_stop: machine.clone(),
            machine,
            breakpoints: Vec::new(),
            watchpoints: Vec::new(),
            next_id: 1,
            armed,
            selected_wave: 0,
            selected_lane: 0,
            scheduler_locking: true,
            interrupt: Arc::new(AtomicBool::new(false)),
            progress: ProgressHandle::default(),
            resume_over: None,
            last: None,
            displays: Vec::new(),
            log: Vec::new(),
            kernel_path: None,
        })
    }

    /// The machine (read-only: front ends inspect it).
    pub fn machine(&self) -> &Machine {
        &self.machine
    }

    /// The machine for writes (`set` commands, the GDB server's register writes).
    pub fn machine_mut(&mut self) -> &mut Machine {
        &mut self.machine
    }

    /// The machine as it was at the previous stop (for change highlighting).
    pub fn previous(&self) -> &Machine {
        &self.last_stop
    }

    /// The last stop, if any.
    pub fn last_stop(&self) -> Option<&StopEvent> {
        self.last.as_ref()
    }

    /// A handle to read a run's progress from another thread.
    pub fn progress_handle(&self) -> ProgressHandle {
        self.progress.clone()
    }

    /// A handle to interrupt a run from another thread.
    pub fn interrupt_handle(&self) -> InterruptHandle {
        InterruptHandle(self.interrupt.clone())
    }

    /// Breakpoints, in creation order.
    pub fn breakpoints(&self) -> &[Breakpoint] {
        &self.breakpoints
    }

    /// Watchpoints, in creation order.
    pub fn watchpoints(&self) -> &[Watchpoint] {
        &self.watchpoints
    }

    /// Resolves a location: a label, `label+N`, `*ADDR` or an address.
    pub fn resolve_location(&self, text: &str) -> Result<u64, String> {
        let t = text.trim().trim_start_matches('*');
        let (base, off) = match t.split_once('+') {
            Some((b, o)) => (
                b.trim(),
                expr::parse_number(o.trim()).ok_or_else(|| format!("bad offset in `{text}`"))?,
            ),
            None => (t, 0),
        };
        let addr = match expr::parse_number(base) {
            Some(a) => a,
            None => match self.machine.program().labels.get(base) {
                Some(a) => *a as i64,
                None => {
                    let names: Vec<&str> = self
                        .machine
                        .program()
                        .labels
                        .keys()
                        .map(String::as_str)
                        .collect();
                    return Err(format!(
                        "no label `{base}`{}",
                        if names.is_empty() {
                            String::new()
                        } else {
                            format!(" (labels: {})", names.join(", "))
                        }
                    ));
                }
            },
        } + off;
        let addr = addr as u64;
        if self.machine.instr_at(addr).is_none() {
            return Err(format!("{addr:#x} is not the start of an instruction"));
        }
        Ok(addr)
    }

    fn take_id(&mut self) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    fn rearm(&mut self) {
        self.armed.iter_mut().for_each(Vec::clear);
        for (i, b) in self
            .breakpoints
            .iter()
            .enumerate()
            .filter(|(_, b)| b.enabled)
        {
            if let Some(a) = self.armed.get_mut((b.addr / 4) as usize) {
                a.push(i);
            }
        }
        self.machine.break_at = if self.armed.iter().any(|a| !a.is_empty()) {
            self.armed.iter().map(|a| !a.is_empty()).collect()
        } else {
            Vec::new()
        };
        let filter: Vec<(Space, u64, u64)> = self
            .watchpoints
            .iter()
            .filter(|w| w.enabled)
            .map(|w| (w.scope.space(), w.addr, w.addr.saturating_add(w.len)))
            .collect();
        self.machine.accesses = (!filter.is_empty()).then(|| crate::exec::AccessLog::new(filter));
    }

    /// Sets a breakpoint; returns its number.
    pub fn add_breakpoint(
        &mut self,
        location: &str,
        condition: Option<&str>,
        filters: Filters,
        temporary: bool,
    ) -> Result<u32, String> {
        let addr = self.resolve_location(location)?;
        let condition = parse_condition(condition)?;
        if let Some(l) = filters.lane {
            if l >= 32 {
                return Err(format!("lane {l} out of range (0-31)"));
            }
        }
        let id = self.take_id();
        self.breakpoints.push(Breakpoint {
            id,
            addr,
            location: location.trim().to_string(),
            condition,
            filters,
            ignore: 0,
            hits: 0,
            temporary,
            enabled: true,
        });
        self.rearm();
        Ok(id)
    }

    /// Sets a watchpoint; returns its number.
    pub fn add_watchpoint(
        &mut self,
        kind: WatchKind,
        scope: Scope,
        addr: u64,
        len: u64,
        condition: Option<&str>,
    ) -> Result<u32, String> {
        if len == 0 || len > 1 << 20 {
            return Err("watch length must be 1 byte to 1 MiB".into());
        }
        let probe = Watchpoint {
            id: 0,
            kind,
            scope,
            addr,
            len,
            condition: None,
            hits: 0,
            enabled: true,
        };
        // The range must exist (in the selected wave's view for shared and scratch).
        let w = match scope {
            Scope::Scratch { wave, .. } => self
                .machine
                .wave_index(wave)
                .ok_or(format!("no wave {wave}"))?,
            Scope::Shared(Some(g)) => self
                .machine
                .waves
                .iter()
                .position(|w| w.workgroup == g)
                .ok_or(format!("workgroup {g} is not resident"))?,
            _ => self.selected_wave,
        };
        let mut buf = vec![0; len as usize];
        self.machine
            .read_space(scope.space(), w, probe.lane(), addr, &mut buf)
            .map_err(|e| e.to_string())?;
        let condition = parse_condition(condition)?;
        let id = self.take_id();
        self.watchpoints.push(Watchpoint {
            id,
            condition,
            ..probe
        });
        self.rearm();
        Ok(id)
    }

    /// Deletes breakpoints/watchpoints by number (all when `None`).
    pub fn delete(&mut self, id: Option<u32>) -> Result<(), String> {
        match id {
            None => {
                self.breakpoints.clear();
                self.watchpoints.clear();
            }
            Some(id) => {
                let before = self.breakpoints.len() + self.watchpoints.len();
                self.breakpoints.retain(|b| b.id != id);
                self.watchpoints.retain(|w| w.id != id);
                if before == self.breakpoints.len() + self.watchpoints.len() {
                    return Err(format!("no breakpoint or watchpoint number {id}"));
                }
            }
        }
        self.rearm();
        Ok(())
    }

    /// Enables or disables a breakpoint/watchpoint.
    pub fn set_enabled(&mut self, id: u32, enabled: bool) -> Result<(), String> {
        if let Some(b) = self.breakpoints.iter_mut().find(|b| b.id == id) {
            b.enabled = enabled;
        } else if let Some(w) = self.watchpoints.iter_mut().find(|w| w.id == id) {
            w.enabled = enabled;
        } else {
            return Err(format!("no breakpoint or watchpoint number {id}"));
        }
        self.rearm();
        Ok(())
    }

    /// Sets a breakpoint's ignore count.
    pub fn set_ignore(&mut self, id: u32, count: u32) -> Result<(), String> {
        let b = self
            .breakpoints
            .iter_mut()
            .find(|b| b.id == id)
            .ok_or(format!("no breakpoint number {id}"))?;
        b.ignore = count;
        Ok(())
    }

    /// Sets or clears a breakpoint's condition.
    pub fn set_condition(&mut self, id: u32, condition: Option<&str>) -> Result<(), String> {
        let c = parse_condition(condition)?;
        if let Some(b) = self.breakpoints.iter_mut().find(|b| b.id == id) {
            b.condition = c;
        } else if let Some(w) = self.watchpoints.iter_mut().find(|w| w.id == id) {
            w.condition = c;
        } else {
            return Err(format!("no breakpoint or watchpoint number {id}"));
        }
        Ok(())
    }

    /// Selects a wave by global id.
    pub fn select_wave(&mut self, id: u32) -> Result<(), String> {
        self.selected_wave = self.machine.wave_index(id).ok_or_else(|| {
            let ids: Vec<String> = self
                .machine
                .waves
                .iter()
                .map(|w| w.id.to_string())
                .collect();
            format!("no resident wave {id} (resident: {})", ids.join(", "))
        })?;
        Ok(())
    }

    /// Selects a lane.
    pub fn select_lane(&mut self, lane: u32) -> Result<(), String> {
        if lane >= 32 {
            return Err(format!("lane {lane} out of range (0-31)"));
        }
        self.selected_lane = lane as u8;
        Ok(())
    }

    /// Launches the program again with other launch options (a session's), keeping
    /// breakpoints, watchpoints and displays.
    pub fn relaunch(&mut self, options: LaunchOptions) -> Result<(), LaunchError> {
        let mut machine = Machine::new(&self.machine.program().clone(), options)?;
        machine.break_is_fault = false;
        self.initial = machine;
        self.restart();
        Ok(())
    }

    /// Records the kernel's path (for sessions).
    pub fn set_kernel_path(&mut self, path: &str) {
        self.kernel_path = Some(path.to_string());
    }

    /// The kernel's path, if the front end gave one.
    pub fn kernel_path(&self) -> Option<&str> {
        self.kernel_path.as_deref()
    }

    /// The command lines run so far.
    pub fn log(&self) -> &[String] {
        &self.log
    }

    /// The display expressions.
    pub fn displays(&self) -> &[String] {
        &self.displays
    }

    /// Restarts the launch from the beginning, keeping breakpoints and watchpoints.
    pub fn restart(&mut self) {
        self.machine = self.initial.clone();
        self.last_stop = self.machine.clone();
        self.resume_over = None;
        self.last = None;
        self.selected_wave = 0;
        self.breakpoints.iter_mut().for_each(|b| b.hits = 0);
        self.watchpoints.iter_mut().for_each(|w| w.hits = 0);
        self.rearm();
    }

    /// Continues all waves until something stops them.
    pub fn continue_all(&mut self) -> StopEvent {
        self.run_all(None)
    }

    /// Steps `n` instructions: with scheduler locking, of the selected wave only (others
    /// frozen); without, every ready wave advances one instruction per step, in order.
    pub fn step(&mut self, n: u64) -> StopEvent {
        if self.scheduler_locking {
            self.run_alone(self.selected_wave, Goal::Steps(n.max(1)))
        } else {
            self.step_all(n.max(1))
        }
    }

    /// Runs wave `w` (an index into the machine's waves) alone, the others frozen, for `n`
    /// instructions or, with `n == u64::MAX`, until something stops it. Selects the wave.
    pub fn run_wave(&mut self, w: usize, n: u64) -> StopEvent {
        if w >= self.machine.waves.len() {
            return self
                .finish(self.event(StopReason::Blocked(format!("no wave with index {w}")), None));
        }
        self.selected_wave = w;
        let goal = if n == u64::MAX {
            Goal::None
        } else {
            Goal::Steps(n.max(1))
        };
        self.run_alone(w, goal)
    }

    /// Steps wave `w` by one instruction; if it waits at a barrier, the other waves run
    /// (one instruction each per round, interruptibly) until the barrier releases it.
    pub fn step_wave_releasing(&mut self, w: usize) -> StopEvent {
        let at_barrier = |e: &Self| {
            e.machine
                .waves
                .get(w)
                .is_some_and(|x| x.state == WaveState::AtBarrier)
        };
        while at_barrier(self) {
            let s = self.step_all(1);
            if s.reason != StopReason::Step {
                return s;
            }
        }
        self.run_wave(w, 1)
    }

    /// Selects a wave by its index in the machine's waves (front ends that number waves by
    /// index, such as the GDB server's threads).
    pub fn select_wave_index(&mut self, w: usize) -> Result<(), String> {
        if w >= self.machine.waves.len() {
            return Err(format!("no wave with index {w}"));
        }
        self.selected_wave = w;
        Ok(())
    }

    /// Steps every ready wave by one instruction, `n` times.
    pub fn step_all(&mut self, n: u64) -> StopEvent {
        self.begin();
        for _ in 0..n {
            let ready: Vec<usize> = (0..self.machine.waves.len())
                .filter(|&i| self.machine.waves[i].state == WaveState::Ready)
                .collect();
            if ready.is_empty() {
                let e = match self.machine.schedule() {
                    Err(e) => self.machine_event(e, Some(self.selected_wave)),
                    Ok(_) => self.event(StopReason::Step, Some(self.selected_wave)),
                };
                return self.finish(e);
            }
            for w in ready {
                if let Some(stop) = self.run_one(w) {
                    return self.finish(stop);
                }
            }
            if self.interrupt.swap(false, Ordering::Relaxed) {
                return self.finish(self.event(StopReason::Interrupted, Some(self.selected_wave)));
            }
        }
        self.finish(self.event(StopReason::Step, Some(self.selected_wave)))
    }

    /// Continues (all waves run) until the selected wave reaches `addr`.
    pub fn advance(&mut self, addr: u64) -> StopEvent {
        let w = self.selected_wave;
        self.run_all(Some((w, addr)))
    }

    /// Runs the selected wave alone until it arrives at a barrier.
    pub fn advance_to_barrier(&mut self) -> StopEvent {
        let w = self.selected_wave;
        self.run_alone(w, Goal::Barrier)
    }

    /// Runs the selected wave alone until it exits.
    pub fn finish_wave(&mut self) -> StopEvent {
        let w = self.selected_wave;
        self.run_alone(w, Goal::Exit)
    }

    fn event(&self, reason: StopReason, wave: Option<usize>) -> StopEvent {
        let w = wave.and_then(|i| self.machine.waves.get(i));
        StopEvent {
            reason,
            wave: wave.filter(|_| w.is_some()),
            wave_id: w.map(|w| w.id),
            pc: w.map(|w| w.pc),
            instructions: self.machine.stats.wave_instructions,
        }
    }

    /// Records a stop: selects its wave, snapshots for change tracking.
    fn finish(&mut self, stop: StopEvent) -> StopEvent {
        self.progress.publish(&self.machine);
        if let Some(w) = stop.wave {
            self.selected_wave = w;
        }
        if let StopReason::ConditionError { .. } = &stop.reason {
            self.resume_over = stop.wave.zip(stop.pc);
        }
        if let StopReason::Breakpoint { id, lanes } = &stop.reason {
            if self.filters_lane_of(*id).is_none()
                && lanes >> self.selected_lane & 1 == 0
                && *lanes != 0
            {
                self.selected_lane = lanes.trailing_zeros() as u8;
            }
            self.resume_over = stop.wave.zip(stop.pc);
            if self.breakpoints.iter().any(|b| b.id == *id && b.temporary) {
                self.breakpoints.retain(|b| b.id != *id);
                self.rearm();
            }
        }
        self.interrupt.store(false, Ordering::Relaxed);
        self.last = Some(stop.clone());
        stop
    }

    fn filters_lane_of(&self, id: u32) -> Option<u8> {
        self.breakpoints
            .iter()
            .find(|b| b.id == id)
            .and_then(|b| b.filters.lane)
    }

    /// Saves the state at the start of a resumption, for change highlighting at its stop.
    fn begin(&mut self) {
        self.last_stop = self.machine.clone();
        // As gdb does, resuming steps over a breakpoint at the selected wave's PC (we may
        // have arrived there by stepping, or stopped there on a condition error).
        if self.resume_over.is_none() {
            if let Some(w) = self.machine.waves.get(self.selected_wave) {
                if self
                    .armed
                    .get((w.pc / 4) as usize)
                    .is_some_and(|a| !a.is_empty())
                {
                    self.resume_over = Some((self.selected_wave, w.pc));
                }
            }
        }
        // An interrupt requested just before the run starts (gdb's Ctrl-C racing its own
        // `continue`) still stops it; each stop consumes the request (see `finish`).
    }

    /// Runs wave `w` alone (the others frozen), checking breakpoints and watchpoints at
    /// every instruction.
    fn run_alone(&mut self, w: usize, goal: Goal) -> StopEvent {
        self.begin();
        let mut done = 0u64;
        loop {
            match goal {
                Goal::Steps(n) if done >= n => {
                    return self.finish(self.event(StopReason::Step, Some(w)));
                }
                _ => {}
            }
            if done.is_multiple_of(POLL) {
                self.progress.publish(&self.machine);
            }
            if done.is_multiple_of(POLL) && self.interrupt.swap(false, Ordering::Relaxed) {
                return self.finish(self.event(StopReason::Interrupted, Some(w)));
            }
            let Some(wave) = self.machine.waves.get(w) else {
                return self.finish(self.event(StopReason::Blocked(format!("no wave {w}")), None));
            };
            let blocked = match wave.state {
                WaveState::Ready | WaveState::Stopped => None,
                WaveState::AtBarrier => Some(StopReason::Blocked(
                    "the wave waits at a barrier for the other waves of its workgroup, which are frozen (continue, or set scheduler-locking off)".into(),
                )),
                WaveState::Exited if goal == Goal::Exit => Some(StopReason::Reached("exit".into())),
                WaveState::Exited => Some(StopReason::Blocked("the wave has exited".into())),
                WaveState::Faulted => Some(StopReason::Blocked("the wave has faulted".into())),
            };
            if let Some(reason) = blocked {
                return self.finish(self.event(reason, Some(w)));
            }
            let was_barrier = goal == Goal::Barrier
                && self
                    .machine
                    .waves
                    .get(w)
                    .and_then(|x| self.machine.instr_at(x.pc))
                    .is_some_and(|d| d.op == crate::exec::Op::Barrier);
            if let Some(stop) = self.run_one(w) {
                return self.finish(stop);
            }
            done += 1;
            let wave = &self.machine.waves[w];
            match goal {
                // The last wave to arrive releases the barrier at once: it counts as arrived.
                Goal::Barrier if wave.state == WaveState::AtBarrier || was_barrier => {
                    return self.finish(self.event(StopReason::Reached("barrier".into()), Some(w)));
                }
                Goal::Exit if wave.state == WaveState::Exited => {
                    return self.finish(self.event(StopReason::Reached("exit".into()), Some(w)));
                }
                _ => {}
            }
        }
    }

    /// Runs all waves through the machine's own loop, which reports breakpoint addresses
    /// and watched accesses as events: with nothing armed the engine adds nothing per
    /// instruction, and armed but not hit it adds one indexed load.
    fn run_all(&mut self, target: Option<(usize, u64)>) -> StopEvent {
        self.begin();
        if let Some((w, a)) = target {
            // A temporary internal breakpoint; resume over it if the wave is already there.
            if self.machine.break_at.is_empty() {
                self.machine.break_at = vec![false; self.machine.code().len()];
            }
            if let Some(b) = self.machine.break_at.get_mut((a / 4) as usize) {
                *b = true;
            }
            if self.machine.waves.get(w).is_some_and(|x| x.pc == a) && self.resume_over.is_none() {
                self.resume_over = Some((w, a));
            }
        }
        self.machine.skip_break = self.resume_over.take();
        let mut published = 0;
        let stop = loop {
            if self.interrupt.swap(false, Ordering::Relaxed) {
                let w = self.live_wave();
                break self.event(StopReason::Interrupted, Some(w));
            }
            // Breakpoint events come back here at every hit: publish at most every POLL
            // instructions, not at every event.
            let now = self.machine.stats.wave_instructions;
            if now >= published + POLL {
                self.progress.publish(&self.machine);
                published = now;
            }
            match self.machine.run(Some(POLL)) {
                None => continue,
                Some(Event::BreakpointHit { wave, pc }) => {
                    if target == Some((wave, pc)) {
                        break self.event(StopReason::Reached(format!("{pc:#x}")), Some(wave));
                    }
                    let hit = if self
                        .armed
                        .get((pc / 4) as usize)
                        .is_some_and(|a| !a.is_empty())
                    {
                        self.check_breakpoints(wave, pc)
                    } else {
                        None
                    };
                    match hit {
                        Some(stop) => break stop,
                        None => self.machine.skip_break = Some((wave, pc)),
                    }
                }
                Some(Event::WatchHit { wave, pc }) => {
                    if let Some(stop) = self.check_watchpoints(wave, pc) {
                        break stop;
                    }
                }
                Some(e) => break self.machine_event(e, None),
            }
        };
        if target.is_some() {
            self.rearm();
        }
        self.finish(stop)
    }

    /// A wave worth reporting on an interrupt: the selected one if alive, else any ready one.
    fn live_wave(&self) -> usize {
        let alive = |i: usize| self.machine.waves.get(i).is_some_and(|w| w.alive());
        if alive(self.selected_wave) {
            return self.selected_wave;
        }
        (0..self.machine.waves.len())
            .find(|&i| alive(i))
            .unwrap_or(self.selected_wave)
    }

    fn machine_event(&self, e: Event, wave: Option<usize>) -> StopEvent {
        match e {
            Event::Fault(f) => {
                let w = self.machine.wave_index(f.wave).or(wave);
                self.event(StopReason::Fault(f), w)
            }
            Event::Deadlock(d) => {
                let w = d
                    .waiting
                    .first()
                    .and_then(|(id, _)| self.machine.wave_index(*id));
                self.event(StopReason::Deadlock(d), w)
            }
            Event::Break { wave, .. } => self.event(StopReason::BreakInstruction, Some(wave)),
            Event::Finished => self.event(StopReason::Finished, None),
            Event::Stalled => {
                let m = &self.machine;
                let faulted: Vec<String> = m
                    .waves
                    .iter()
                    .filter(|w| w.state == WaveState::Faulted)
                    .map(|w| w.id.to_string())
                    .collect();
                if faulted.is_empty() {
                    self.event(StopReason::Blocked("no wave can run".into()), wave)
                } else {
                    let exited = m
                        .waves
                        .iter()
                        .filter(|w| w.state == WaveState::Exited)
                        .count();
                    let why = format!(
                        "faulted wave{} {} cannot go on; {exited} resident wave{} exited{}",
                        if faulted.len() == 1 { "" } else { "s" },
                        faulted.join(", "),
                        if exited == 1 { "" } else { "s" },
                        if m.workgroups_pending() > 0 {
                            format!("; {} workgroups never ran", m.workgroups_pending())
                        } else {
                            String::new()
                        }
                    );
                    let w = m.waves.iter().position(|w| w.state == WaveState::Faulted);
                    self.event(StopReason::Terminated(why), w)
                }
            }
            // Handled by the run loop before they get here.
            Event::BreakpointHit { wave, .. } | Event::WatchHit { wave, .. } => {
                self.event(StopReason::Step, Some(wave))
            }
        }
    }

    /// Executes one instruction of wave `w`, checking breakpoints before and watchpoints
    /// after it. Returns a stop, if any.
    fn run_one(&mut self, w: usize) -> Option<StopEvent> {
        let pc = self.machine.waves[w].pc;
        let skip = self
            .resume_over
            .take_if(|&mut (rw, rpc)| rw == w && rpc == pc)
            .is_some();
        if !skip
            && self
                .armed
                .get((pc / 4) as usize)
                .is_some_and(|a| !a.is_empty())
        {
            if let Some(stop) = self.check_breakpoints(w, pc) {
                return Some(stop);
            }
        }
        let event = self.machine.step_scheduled(w);
        // A memory instruction that touched a watched range did not fault, exit or
        // deadlock, so its event (if any) cannot be lost by reporting the watchpoint.
        if self
            .machine
            .accesses
            .as_ref()
            .is_some_and(|l| !l.hits.is_empty())
        {
            if let Some(stop) = self.check_watchpoints(w, pc) {
                return Some(stop);
            }
        }
        event.map(|e| self.machine_event(e, Some(w)))
    }

    fn check_breakpoints(&mut self, w: usize, pc: u64) -> Option<StopEvent> {
        let slot = (pc / 4) as usize;
        for k in 0..self.armed.get(slot).map_or(0, Vec::len) {
            let i = self.armed[slot][k];
            match self.breakpoints[i].lanes(&self.machine, w) {
                Ok(None) => {}
                Ok(Some(lanes)) => {
                    let b = &mut self.breakpoints[i];
                    b.hits += 1;
                    if b.ignore > 0 {
                        b.ignore -= 1;
                        continue;
                    }
                    let id = b.id;
                    return Some(self.event(StopReason::Breakpoint { id, lanes }, Some(w)));
                }
                Err(message) => {
                    let id = self.breakpoints[i].id;
                    return Some(self.event(StopReason::ConditionError { id, message }, Some(w)));
                }
            }
        }
        None
    }

    fn check_watchpoints(&mut self, w: usize, pc: u64) -> Option<StopEvent> {
        let accesses = self
            .machine
            .accesses
            .as_ref()
            .map(|l| l.hits.clone())
            .unwrap_or_default();
        if accesses.is_empty() {
            return None;
        }
        let mut hits = Vec::new();
        for i in 0..self.watchpoints.len() {
            let wp = &self.watchpoints[i];
            let lanes = wp.lanes_hit(&self.machine, w, &accesses);
            if lanes == 0 {
                continue;
            }
            if let Some(c) = &wp.condition {
                let lane = lanes.trailing_zeros() as u8;
                match c.expr.eval(&self.machine, w, Some(lane)) {
                    Ok(0) => continue,
                    Ok(_) => {}
                    Err(e) => {
                        let id = wp.id;
                        return Some(self.event(
                            StopReason::ConditionError {
                                id,
                                message: e.to_string(),
                            },
                            Some(w),
                        ));
                    }
                }
            }
            let access = accesses
                .iter()
                .filter(|a| lanes >> a.lane & 1 == 1)
                .map(|a| a.kind)
                .max_by_key(|k| match k {
                    AccessKind::Read => 0,
                    AccessKind::Write => 1,
                    AccessKind::ReadWrite => 2,
                })
                .unwrap_or(AccessKind::Read);
            let new = wp.read(&self.machine, w).unwrap_or_default();
            // Undo the instruction's writes, last first, to recover the bytes before it.
            let mut old = new.clone();
            for a in accesses
                .iter()
                .rev()
                .filter(|a| a.kind != AccessKind::Read && lanes >> a.lane & 1 == 1)
            {
                for k in 0..(a.len as u64).min(16) {
                    let at = a.addr + k;
                    if at >= wp.addr && at < wp.addr + old.len() as u64 {
                        old[(at - wp.addr) as usize] = a.old[k as usize];
                    }
                }
            }
            let wp = &mut self.watchpoints[i];
            wp.hits += 1;
            hits.push(WatchHit {
                id: wp.id,
                kind: wp.kind,
                space: wp.scope.space(),
                addr: wp.addr,
                len: wp.len,
                lanes,
                pc,
                access,
                old,
                new,
            });
        }
        if hits.is_empty() {
            return None;
        }
        Some(self.event(StopReason::Watchpoint(hits), Some(w)))
    }
}

fn parse_condition(text: Option<&str>) -> Result<Option<Condition>, String> {
    match text.map(str::trim).filter(|t| !t.is_empty()) {
        None => Ok(None),
        Some(t) => {
            let expr = expr::parse(t).map_err(|e| format!("bad condition `{t}`: {e}"))?;
            Ok(Some(Condition {
                text: t.to_string(),
                expr,
            }))
        }
    }
}
