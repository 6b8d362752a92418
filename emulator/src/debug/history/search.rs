//! Searches of the record: `goto`, `reverse-stepi`, `reverse-continue` and `last-write`,
//! each by replaying from the snapshots (`walk`) and arriving at the point it finds.

use std::sync::atomic::{AtomicBool, Ordering};

use super::index::{Probe, Summary};
use super::{ready_waves, Change, History, Replayed};
use crate::check::regs::{RegUse, Special};
use crate::check::SourceWrite;
use crate::debug::breakpoint::WatchKind;
use crate::debug::handle::ProgressHandle;
use crate::debug::stop::{Blocked, Reached};
use crate::debug::{Engine, EngineError, StopEvent, StopReason};
use crate::exec::space_read;
use crate::exec::AccessLog;
use crate::isa::RegFile;
use crate::machine::{BreakAt, CodeWord, Event, Machine, StopBefore};
use crate::memory::Space;
use crate::wave::WaveState;
use std::sync::Arc;

/// Which side of an instruction a walk is on.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Side {
    Before,
    After,
    /// After an instruction that stopped the run it was part of as a trap does (`brk`, a
    /// fault), with the machine's event ([`Hooks::traps`]).
    Trap(Event),
}

/// A wave's instruction seen by a walk: the wave index, its global id, and how many
/// instructions it had executed before this one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Seen {
    wave: usize,
    id: u32,
    executed: u64,
    pc: u64,
}

/// Instructions a search replays between looks at the interrupt flag (a few
/// milliseconds), publishing its progress each time.
pub(super) const CHUNK: u64 = 1 << 15;

/// A search stopped by an interrupt before it found anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Interrupted;

/// Where a replay stops to look: before each instruction at a marked code word (of the
/// waves the mark names) and after it, and after each instruction that accessed a range
/// of the access log.
#[derive(Debug, Clone, Default)]
struct Hooks {
    /// Per code word: the machine's breakpoint marks (empty: none).
    marks: Vec<BreakAt>,
    /// The ranges whose accesses are looked at.
    accesses: Option<AccessLog>,
    /// Whether `brk` and faults are looked at (after the instruction, as a forward run
    /// stops for them).
    traps: bool,
}

/// What a backward search needs besides the record: when to give up, and where to say it
/// has got to.
#[derive(Clone, Copy)]
pub(super) struct Watch<'a> {
    pub(super) interrupt: &'a AtomicBool,
    pub(super) progress: &'a ProgressHandle,
}

impl Watch<'_> {
    pub(super) fn interrupted(&self) -> bool {
        self.interrupt.load(Ordering::Relaxed)
    }
}

/// How a backward search over the intervals ended.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Back<T> {
    /// The newest hit, in the newest interval that has one.
    Found(T),
    /// No hit anywhere before the point searched from.
    Nothing,
    /// Interrupted: nothing was found from snapshot `.0` (if any) on.
    Interrupted(Option<usize>),
}

impl History {
    /// Replays from snapshot `k` until the count reaches `until`, stopping where `hooks`
    /// say and calling `visit` there (the machine's access log holds the instruction's
    /// accesses after it). Runs between stops go through the machine's own loop, so a
    /// replay costs about what the run it replays did.
    fn scan(
        &self,
        k: usize,
        until: u64,
        hooks: &Hooks,
        watch: Watch<'_>,
        mut visit: impl FnMut(Side, Seen, &mut Machine),
    ) -> Result<(), Interrupted> {
        let Some(snap) = self.snapshots.get(k) else {
            return Ok(());
        };
        let mut m = snap.machine.clone();
        m.break_at.clone_from(&hooks.marks);
        m.accesses.clone_from(&hooks.accesses);
        let traps = hooks.traps;
        let seen_at = |m: &Machine, w: usize, done: u64| {
            m.waves.get(w).map(|x| Seen {
                wave: w,
                id: x.id,
                executed: x.executed - done,
                pc: x.pc,
            })
        };
        // One instruction the debugger chose (a step, a round of `stepi all`).
        let one = |m: &mut Machine, w: usize, visit: &mut dyn FnMut(Side, Seen, &mut Machine)| {
            let Some(seen) = seen_at(m, w, 0) else {
                return;
            };
            let marked = m
                .break_at
                .get((seen.pc / 4) as usize)
                .is_some_and(|b| b.stops(seen.id, m.waves[w].workgroup));
            if marked {
                visit(Side::Before, seen, m);
            }
            let event = m.step_scheduled(w);
            if marked || m.accesses.as_ref().is_some_and(|l| !l.hits.is_empty()) {
                visit(Side::After, seen, m);
            }
            if let Some(e @ (Event::Break { .. } | Event::Fault(_))) = event.filter(|_| traps) {
                visit(Side::Trap(e), seen, m);
            }
        };
        for e in self.log.iter().skip(snap.entry) {
            if m.stats.wave_instructions >= until {
                break;
            }
            match &e.change {
                Change::Run(_) => {
                    let target = e.end.min(until);
                    while m.stats.wave_instructions < target {
                        if watch.interrupted() {
                            return Err(Interrupted);
                        }
                        watch.progress.publish(&m);
                        let before = m.stats.wave_instructions;
                        let event = m.run(Some((target - before).min(CHUNK)));
                        // `brk` and faults stop a run: the instruction has executed (a
                        // fault before executing one, without counting it).
                        let trap = match &event {
                            Some(Event::Break { wave, pc }) => Some((*wave, *pc)),
                            Some(Event::Fault(f)) => m.wave_index(f.wave).map(|w| (w, f.pc)),
                            _ => None,
                        };
                        if let Some((wave, pc)) = trap.filter(|_| traps) {
                            // Its target is the count, not the wave's instruction.
                            if let (Some(seen), Some(e)) = (seen_at(&m, wave, 0), event.clone()) {
                                visit(Side::Trap(e), Seen { pc, ..seen }, &mut m);
                            }
                        }
                        match event {
                            Some(Event::BreakpointHit { wave, pc }) => {
                                let Some(seen) = seen_at(&m, wave, 0) else {
                                    continue;
                                };
                                visit(Side::Before, seen, &mut m);
                                // The same wave executes it: a run split anywhere runs the
                                // same instructions.
                                m.skip_break = Some((wave, pc));
                                let _ = m.run(Some(1));
                                m.skip_break = None;
                                visit(Side::After, seen, &mut m);
                            }
                            // Events of an instruction that executed, with its accesses.
                            Some(
                                Event::WatchHit { wave, pc }
                                | Event::Finding { wave, pc }
                                | Event::Break { wave, pc },
                            ) if m.accesses.as_ref().is_some_and(|l| !l.hits.is_empty()) => {
                                if let Some(seen) = seen_at(&m, wave, 1) {
                                    visit(Side::After, Seen { pc, ..seen }, &mut m);
                                }
                            }
                            // Nothing could run, where the record says something did.
                            Some(Event::Finished | Event::Deadlock(_) | Event::Stalled)
                                if m.stats.wave_instructions == before =>
                            {
                                return Ok(());
                            }
                            _ => {}
                        }
                    }
                }
                Change::Step(w, times) => {
                    for i in 0..*times {
                        if m.stats.wave_instructions >= until {
                            break;
                        }
                        if i.is_multiple_of(CHUNK) && watch.interrupted() {
                            return Err(Interrupted);
                        }
                        one(&mut m, *w, &mut visit);
                    }
                }
                Change::Round(k) => {
                    for w in ready_waves(&m).into_iter().take(*k as usize) {
                        if m.stats.wave_instructions >= until {
                            break;
                        }
                        one(&mut m, w, &mut visit);
                    }
                }
                Change::Fault => {
                    if let Ok(w) = m.schedule() {
                        one(&mut m, w, &mut visit);
                    }
                }
                edit @ (Change::Register(..) | Change::Memory(_) | Change::Checks(_)) => {
                    edit.apply_edit(&mut m)
                }
            }
        }
        Ok(())
    }

    /// The snapshots to search backwards from count `now`, newest first, each with the
    /// count its segment ends at.
    fn segments_before(&self, now: u64) -> Vec<(usize, u64)> {
        let mut out = Vec::new();
        for k in (0..self.snapshots.len()).rev() {
            let start = self.snapshots[k].machine.stats.wave_instructions;
            if start >= now && k > 0 {
                continue;
            }
            let end = self
                .snapshots
                .get(k + 1)
                .map_or(now, |s| s.machine.stats.wave_instructions.min(now));
            out.push((k, end));
        }
        out
    }

    /// Searches backwards from count `now`, interval by interval, newest first: skips
    /// each interval whose summary rules out what `probe` looks for, and runs `search`
    /// (a scan of the interval up to the count it is given) on the others until one
    /// finds something.
    fn search_back<T>(
        &self,
        now: u64,
        probe: &Probe,
        open: Option<&Summary>,
        watch: Watch<'_>,
        mut search: impl FnMut(usize, u64) -> Result<Option<T>, Interrupted>,
    ) -> Back<T> {
        let mut cleared = None;
        if probe.is_empty() {
            return Back::Nothing;
        }
        for (k, end) in self.segments_before(now) {
            if watch.interrupted() {
                return Back::Interrupted(cleared);
            }
            let snap = &self.snapshots[k];
            watch.progress.publish(&snap.machine);
            // The open interval (the newest) has no summary of its own: the live machine's
            // (`open`) when it is at the end of the record; else it is searched.
            let summary = match &snap.after {
                Some(s) => Some(s),
                None if k + 1 == self.snapshots.len() => open,
                None => None,
            };
            let candidate = summary.is_none_or(|s| s.may_hold(probe));
            if candidate {
                match search(k, end) {
                    Ok(Some(found)) => return Back::Found(found),
                    Ok(None) => {}
                    Err(Interrupted) => return Back::Interrupted(cleared),
                }
            }
            cleared = Some(k);
        }
        Back::Nothing
    }
}

/// What `last-write` looks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteTarget {
    /// Bytes of memory: global, the shared memory of workgroup `workgroup`, or the scratch
    /// of lane `lane` of wave `wave` (global ids).
    Memory {
        /// Global, shared or scratch.
        space: Space,
        /// Address (global) or offset (shared, scratch).
        addr: u64,
        /// Length in bytes of the range looked at (at least 1).
        len: u64,
        /// For shared memory: the workgroup.
        workgroup: u32,
        /// For scratch: the wave's global id.
        wave: u32,
        /// For scratch: the lane.
        lane: u8,
    },
    /// Vector register `reg` of wave `wave` (global id): one lane, or any.
    Vector {
        /// The wave's global id.
        wave: u32,
        /// Vector register number, 0-127.
        reg: u8,
        /// Lane (`None`: any lane).
        lane: Option<u8>,
    },
    /// Uniform register `reg` of wave `wave` (global id).
    Uniform {
        /// The wave's global id.
        wave: u32,
        /// Uniform register number, 0-63.
        reg: u8,
    },
    /// The EXEC mask of wave `wave` (global id): written by `exec.set`, `exec.and.save`
    /// and `exec.andn.save` (every lane's bit at once).
    Exec {
        /// The wave's global id.
        wave: u32,
    },
}

/// The answer of `last-write`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastWrite {
    /// The instruction count before the writing instruction (it was instruction
    /// `count + 1`; `goto count` shows the machine right before it).
    pub count: u64,
    /// The writing wave's global id.
    pub wave: u32,
    /// The writing wave's workgroup.
    pub workgroup: u32,
    /// Lanes that wrote the target: a bit per lane, bit `i` = lane `i` (0 for a uniform
    /// register).
    pub lanes: u32,
    /// The writing instruction's code byte address.
    pub pc: u64,
    /// Bytes before (memory), or the register value(s) before, little-endian.
    pub old: Vec<u8>,
    /// Bytes after, in the same layout as `old`.
    pub new: Vec<u8>,
}

impl Engine {
    /// What the searches share: the interrupt flag and the progress handle.
    fn search_handles(&self) -> (Arc<AtomicBool>, ProgressHandle) {
        (self.interrupt.clone(), self.progress.clone())
    }

    /// Replays to `target` and puts the machine there, reporting `reason`; interrupted on
    /// the way, the machine stays where it was, reported as interrupted. `None`:
    /// the record does not reach `target`.
    fn travel(
        &mut self,
        target: StopBefore,
        wave: Option<usize>,
        reason: StopReason,
    ) -> Option<StopEvent> {
        let (interrupt, progress) = self.search_handles();
        // A request made before it starts (a client's Ctrl-C between two steps) stops it
        // where it is.
        if interrupt.load(Ordering::Relaxed) {
            let w = self.selected_wave;
            return Some(self.finish(self.event(StopReason::Interrupted, Some(w))));
        }
        let watch = Watch {
            interrupt: &interrupt,
            progress: &progress,
        };
        match self.history.replay_to(target, Some(watch))? {
            Replayed::Reached(m, at) => Some(self.arrive(*m, at, wave, reason)),
            // The replay's point is before the target (it runs forward from an older
            // snapshot), unrelated to where the command started or where it was going:
            // the machine stays where it was, and the stop says so.
            Replayed::Interrupted => {
                let w = self.selected_wave;
                self.progress.publish(&self.machine);
                Some(self.finish(self.event(StopReason::Interrupted, Some(w))))
            }
        }
    }

    /// Puts the machine at a replayed point: selects `wave`, keeps breakpoints and
    /// watchpoints armed, and reports `reason`.
    fn arrive(
        &mut self,
        m: Machine,
        at: (usize, u64),
        wave: Option<usize>,
        reason: StopReason,
    ) -> StopEvent {
        self.begin();
        // Leaving the end of the record: its findings stay numbered for `finding N`.
        if self.history.cursor.is_none() {
            self.findings_at_end = self.findings().to_vec();
        }
        let (break_at, accesses) = (
            std::mem::take(&mut self.machine.break_at),
            self.machine.accesses.take(),
        );
        self.machine = m;
        self.machine.break_at = break_at;
        self.machine.accesses = accesses;
        // The detectors are part of the recorded state: back before a `set check`, they
        // are as they were then (and a run from there is a new future without it).
        self.checks = self.machine.checks();
        // The snapshot for change highlighting was taken of the machine just replaced.
        self.edited = true;
        self.resume_over = None;
        self.history.cursor = (at.0 < self.history.log.len()).then_some(at);
        self.history.cursor_count = self.machine.stats.wave_instructions;
        self.progress.publish(&self.machine);
        let w = wave.unwrap_or(self.selected_wave);
        self.finish(self.event(reason, Some(w)))
    }

    /// `goto N`: the machine as it was when the launch's instruction count was `n`, right
    /// before the next instruction (anywhere in the recorded history, back or forward).
    /// Past the newest recorded point, every wave runs forward from there as `continue`
    /// runs them, to count `n` (a breakpoint, a watchpoint or the end may stop it first):
    /// that is where a `continue` interrupted at count `n` stopped, so a recorded REPL
    /// session replays an interrupted run with it. Interrupted, the machine is at the
    /// count the replay had reached.
    pub fn goto(&mut self, n: u64) -> Result<StopEvent, EngineError> {
        let end = self.history.end_count();
        let start = self.history.start_count();
        if n < start {
            return Err(EngineError::BeforeHistory { count: n, start });
        }
        if n > end {
            if self.machine.stats.wave_instructions < end {
                let stop = self.goto(end)?;
                if stop.reason == StopReason::Interrupted {
                    return Ok(stop);
                }
            }
            return Ok(self.run_to_count(n));
        }
        let wave = self.selected_wave;
        self.travel(
            StopBefore::Count(n),
            Some(wave),
            StopReason::Reached(Reached::Count(n)),
        )
        .ok_or(EngineError::BeyondHistory { count: n, end })
    }

    /// `reverse-stepi N`: the selected wave `n` instructions back, right before the
    /// instruction it executed then; at the start of history, as far back as there is.
    pub fn reverse_step(&mut self, n: u64) -> StopEvent {
        self.reverse_wave(n, StopReason::Step)
    }

    /// `reverse-finish`: the selected wave back to right before its first instruction. A
    /// wave has no calls, so its one frame began at the kernel's entry: that is where
    /// gdb's `reverse-finish` (back to the call of the current function) goes, as `finish`
    /// runs the wave to its exit. At its entry already, it stays there; if the record
    /// starts after the wave's first instruction, as far back as the record goes.
    pub fn reverse_finish(&mut self) -> StopEvent {
        let w = self.selected_wave;
        let entry = StopReason::Reached(Reached::Entry);
        match self.machine.waves.get(w).map(|x| x.executed) {
            Some(0) => self.finish(self.event(entry, Some(w))),
            Some(executed) => self.reverse_wave(executed, entry),
            None => self.reverse_wave(1, entry),
        }
    }

    /// The selected wave `n` instructions back, reporting `reason` there.
    ///
    /// As gdb's `reverse-stepi`, which goes on back until the thread's previous
    /// instruction: a wave with fewer than `n` instructions to undo (none, at its first
    /// instruction) takes the machine to the start of the record, the wave still
    /// selected, and the stop says "No more reverse-execution history." So the wave
    /// shown there is always the one that was stepped, whatever path led there.
    fn reverse_wave(&mut self, n: u64, reason: StopReason) -> StopEvent {
        let w = self.selected_wave;
        let Some(wave) = self.machine.waves.get(w) else {
            return self.finish(self.event(StopReason::Blocked(Blocked::NoWave(w)), None));
        };
        let (id, executed) = (wave.id, wave.executed);
        let start = StopReason::Blocked(Blocked::HistoryStart);
        let to_start = |e: &mut Engine| {
            let count = e.history.start_count();
            match e.travel(StopBefore::Count(count), Some(w), start.clone()) {
                Some(stop) => stop,
                None => e.finish(e.event(start.clone(), Some(w))),
            }
        };
        if executed < n.max(1) {
            return to_start(self);
        }
        let target = StopBefore::Wave {
            wave: w,
            id,
            executed: executed - n.max(1),
        };
        match self.travel(target, Some(w), reason) {
            Some(stop) => stop,
            // Before the start of the record (its oldest part was dropped to keep within
            // `set history-size`): as far back as it goes.
            None => to_start(self),
        }
    }

    /// [`Engine::reverse_step`], with what a front end says besides the stop: when the
    /// selected wave had faulted and going back left it at the same PC, ready (the
    /// faulting instruction counts as the wave's instruction but changed nothing except
    /// the wave's state), a note that the fault was undone and the PC stayed, so a user
    /// who expected the PC to move is told why (the REPL's and gdb's `reverse-stepi`).
    pub fn reverse_step_explained(&mut self, n: u64) -> (StopEvent, Option<String>) {
        let w = self.selected_wave;
        let faulted = (self.machine.waves.get(w))
            .filter(|x| x.state == WaveState::Faulted)
            .map(|x| (x.id, x.pc));
        let stop = self.reverse_step(n);
        let note = faulted.and_then(|(id, pc)| {
            let x = self.machine.waves.get(w)?;
            (matches!(stop.reason, StopReason::Step)
                && x.id == id
                && x.pc == pc
                && x.state != WaveState::Faulted)
                .then(|| {
                    let at = crate::debug::view::pc_text(&self.machine, pc);
                    format!(
                        "The fault at {at} is undone: the faulting instruction changed nothing but the wave's state, so the wave is right before it again, ready to execute it (reverse-stepi again goes to the instruction before).\n"
                    )
                })
        });
        (stop, note)
    }

    /// What `reverse-continue` looks for, for the index: the code words of the armed
    /// breakpoints and, per watchpoint, the memory it watches written or the code that
    /// reads its space.
    fn reverse_probe(&self) -> Probe {
        let code = self.machine.code();
        let mut p = Probe::new(code.len());
        for (i, a) in self.armed.iter().enumerate() {
            if !a.is_empty() {
                p.code_word(i);
            }
        }
        // `brk` and faults stop a forward run: they stop a backward one too.
        p.faults = true;
        for (i, word) in code.iter().enumerate() {
            if matches!(word, CodeWord::Instr(d) if d.op == crate::exec::Op::Brk) {
                p.code_word(i);
            }
        }
        let scratch = self.machine.launch().scratch_bytes as u64;
        for wp in self.watchpoints.iter().filter(|w| w.enabled) {
            let space = wp.scope.space();
            if wp.kind != WatchKind::Read {
                p.memory(space, wp.addr, wp.len, scratch);
            }
            if wp.kind != WatchKind::Write {
                for (i, word) in code.iter().enumerate() {
                    if matches!(word, CodeWord::Instr(d) if space_read(d.op) == Some(space)) {
                        p.code_word(i);
                    }
                }
            }
        }
        p
    }

    /// `reverse-continue`: back to the previous point where a breakpoint or watchpoint
    /// stops (a watchpoint stops right before the instruction that made the access, with
    /// the values it found and left); at none, the start of the history. Breakpoints'
    /// ignore counts do not apply backwards, and no hit counts change. Only the intervals
    /// the index cannot rule out are replayed; with nothing armed, none is. Interrupted,
    /// the machine is at the earliest point the search had cleared (or stays).
    pub fn reverse_continue(&mut self) -> StopEvent {
        let now = self.machine.stats.wave_instructions;
        // A trap at the current count is behind the machine unless the machine is at its
        // very stop (the last stop was a trap there): then the search starts before it.
        let at_trap = self.last.as_ref().is_some_and(|s| {
            s.instructions == now
                && matches!(
                    s.reason,
                    StopReason::BreakInstruction | StopReason::Fault(_)
                )
        });
        let probe = self.reverse_probe();
        let hooks = Hooks {
            marks: self.machine.break_at.clone(),
            accesses: self.machine.accesses.clone(),
            traps: true,
        };
        let open = self.history.open_summary(&self.machine);
        let history = std::mem::take(&mut self.history);
        let (breakpoints, watchpoints) = (self.breakpoints.clone(), self.watchpoints.clone());
        self.breakpoints.iter_mut().for_each(|b| b.ignore = 0);
        let (interrupt, progress) = self.search_handles();
        let watch = Watch {
            interrupt: &interrupt,
            progress: &progress,
        };
        let back = history.search_back(now, &probe, open.as_ref(), watch, |k, end| {
            let mut last: Option<(Seen, Option<u64>, StopReason)> = None;
            history.scan(k, end, &hooks, watch, |side, seen, m| {
                let count = m.stats.wave_instructions;
                // A trap stops where the forward run stopped: right after it, at its count.
                if let Side::Trap(event) = &side {
                    if count < now || (count == now && !at_trap) {
                        std::mem::swap(&mut self.machine, m);
                        let stop = self.machine_event(event.clone(), Some(seen.wave));
                        std::mem::swap(&mut self.machine, m);
                        last = Some((seen, Some(count), stop.reason));
                    }
                    return;
                }
                let stop = match side {
                    Side::Before if count < now => {
                        std::mem::swap(&mut self.machine, m);
                        let stop = self.check_breakpoints(seen.wave, seen.pc);
                        std::mem::swap(&mut self.machine, m);
                        stop
                    }
                    Side::After if count <= now => {
                        std::mem::swap(&mut self.machine, m);
                        let stop = self.check_watchpoints(seen.wave, seen.pc);
                        std::mem::swap(&mut self.machine, m);
                        stop
                    }
                    _ => None,
                };
                if let Some(stop) = stop {
                    last = Some((seen, None, stop.reason));
                }
            })?;
            Ok(last)
        });
        self.breakpoints = breakpoints;
        self.watchpoints = watchpoints;
        self.history = history;
        let to_start = |e: &mut Engine| {
            let w = e.selected_wave;
            let start = StopReason::Blocked(Blocked::HistoryStart);
            let count = e.history.start_count();
            e.travel(StopBefore::Count(count), Some(w), start)
        };
        let stop = match back {
            Back::Found((seen, count, reason)) => {
                let target = match count {
                    Some(count) => StopBefore::Count(count),
                    None => StopBefore::Wave {
                        wave: seen.wave,
                        id: seen.id,
                        executed: seen.executed,
                    },
                };
                self.travel(target, Some(seen.wave), reason)
            }
            Back::Nothing => to_start(self),
            Back::Interrupted(Some(k)) => {
                let count = self.history.snapshots[k].machine.stats.wave_instructions;
                let w = self.selected_wave;
                // The search has acted on the request: the move to where it had got to (a
                // snapshot's own point, nothing to replay) must not take it as its own and
                // stay where the search started.
                self.interrupt.store(false, Ordering::Relaxed);
                self.travel(StopBefore::Count(count), Some(w), StopReason::Interrupted)
            }
            Back::Interrupted(None) => {
                let w = self.selected_wave;
                Some(self.finish(self.event(StopReason::Interrupted, Some(w))))
            }
        };
        stop.unwrap_or_else(|| {
            self.finish(self.event(StopReason::Blocked(Blocked::HistoryStart), None))
        })
    }

    /// `last-write`: the last write to `target` before instruction count `before` (the
    /// machine stays where it is), whether or not it changed the value. A register's write
    /// is an instruction that writes it in that lane (an active lane, or `writelane`'s) or
    /// changes it. Interrupted, says how far back it had searched.
    pub fn last_write(
        &mut self,
        target: &WriteTarget,
        before: u64,
    ) -> Result<Option<LastWrite>, EngineError> {
        self.last_write_in(target, before, u32::MAX)
    }

    /// `last-write`, where a vector register target of any lane counts only writes of the
    /// lanes in `mask` (the answer's lanes are among them).
    fn last_write_in(
        &self,
        target: &WriteTarget,
        before: u64,
        mask: u32,
    ) -> Result<Option<LastWrite>, EngineError> {
        let code = self.machine.code();
        let mut probe = Probe::new(code.len());
        let mut hooks = Hooks::default();
        // A register target: each code word's register use (its writes, and which lanes).
        let mut uses: Vec<RegUse> = Vec::new();
        match *target {
            WriteTarget::Memory {
                space, addr, len, ..
            } => {
                let scratch = self.machine.launch().scratch_bytes as u64;
                probe.memory(space, addr, len, scratch);
                hooks.accesses = Some(AccessLog::new(vec![(
                    space,
                    addr,
                    addr.saturating_add(len),
                )]));
            }
            WriteTarget::Vector { wave, .. }
            | WriteTarget::Uniform { wave, .. }
            | WriteTarget::Exec { wave } => {
                let writes = |u: &RegUse, word: &CodeWord| match *target {
                    WriteTarget::Uniform { reg, .. } => u
                        .writes()
                        .any(|r| r.file == RegFile::Uniform && r.contains(reg)),
                    WriteTarget::Vector { reg, .. } => u
                        .writes()
                        .any(|r| r.file == RegFile::Vector && r.contains(reg)),
                    _ => matches!(word, CodeWord::Instr(d) if writes_exec(d.op)),
                };
                uses = code.iter().map(RegUse::of).collect();
                let only = BreakAt::Only(Arc::from([(Some(wave), None)]));
                hooks.marks = uses
                    .iter()
                    .zip(code.iter())
                    .enumerate()
                    .map(|(i, (u, word))| {
                        if writes(u, word) {
                            probe.code_word(i);
                            only.clone()
                        } else {
                            BreakAt::No
                        }
                    })
                    .collect();
            }
        }
        let (interrupt, progress) = self.search_handles();
        let watch = Watch {
            interrupt: &interrupt,
            progress: &progress,
        };
        let open = self.history.open_summary(&self.machine);
        let history = &self.history;
        let back = history.search_back(before, &probe, open.as_ref(), watch, |k, end| {
            let mut last = None;
            // A register target: the instruction under way, its EXEC and the value before.
            let mut pending: Option<(Seen, u32, Option<Vec<u8>>)> = None;
            history.scan(k, end, &hooks, watch, |side, seen, m| {
                let count = m.stats.wave_instructions;
                let Some(w) = m.waves.get(seen.wave) else {
                    return;
                };
                let found = |lanes: u32, old: Vec<u8>, new: Vec<u8>| LastWrite {
                    count: count.saturating_sub(1),
                    wave: seen.id,
                    workgroup: w.workgroup,
                    lanes,
                    pc: seen.pc,
                    old,
                    new,
                };
                match (target, side) {
                    (WriteTarget::Memory { .. }, Side::After) => {
                        if let Some(hit) = memory_write(target, m, seen, w) {
                            last = Some(found(hit.0, hit.1, hit.2));
                        }
                    }
                    (WriteTarget::Memory { .. }, Side::Before) | (_, Side::Trap(_)) => {}
                    (_, Side::Before) => pending = Some((seen, w.exec, register_value(target, w))),
                    (_, Side::After) => {
                        let Some((at, exec, old)) = pending.take().filter(|p| p.0 == seen) else {
                            return;
                        };
                        if w.id != seen.id || w.state == WaveState::Faulted {
                            return;
                        }
                        let (Some(old), Some(new)) = (old, register_value(target, w)) else {
                            return;
                        };
                        let special = uses.get((at.pc / 4) as usize).map(|u| u.special);
                        let wrote = match special {
                            Some(Special::WriteLane(l)) => 1u32 << (l & 31),
                            _ => exec,
                        };
                        let changed = old
                            .chunks(4)
                            .zip(new.chunks(4))
                            .enumerate()
                            .filter(|(_, (a, b))| a != b)
                            .fold(0u32, |l, (i, _)| l | 1 << i);
                        let lanes = match *target {
                            WriteTarget::Vector { lane: Some(l), .. } => {
                                let l = l as u32 & 31;
                                // `changed` counts the one lane's value as lane 0.
                                ((wrote >> l) & 1 == 1 || changed != 0).then_some(1 << l)
                            }
                            WriteTarget::Vector { lane: None, .. } => {
                                Some((wrote | changed) & mask).filter(|&l| l != 0)
                            }
                            _ => Some(0),
                        };
                        if let Some(lanes) = lanes {
                            last = Some(found(lanes, old, new));
                        }
                    }
                }
            })?;
            Ok(last)
        });
        self.search_outcome(back, before)
    }
}

/// Whether an instruction of `op` writes its wave's EXEC mask.
fn writes_exec(op: crate::exec::Op) -> bool {
    use crate::isa::op::ExecOp;
    use crate::isa::Op;
    matches!(
        op,
        Op::Exec(ExecOp::Set | ExecOp::AndSave | ExecOp::AndNotSave)
    )
}

/// The value of a register target in wave `w`, little-endian (one lane, or all 32).
fn register_value(target: &WriteTarget, w: &crate::wave::Wave) -> Option<Vec<u8>> {
    match *target {
        WriteTarget::Exec { .. } => Some(w.exec.to_le_bytes().to_vec()),
        WriteTarget::Uniform { reg, .. } => Some(w.u.get(reg as usize)?.to_le_bytes().to_vec()),
        // A register past v127 has no value (and no writes).
        WriteTarget::Vector { reg, .. } if reg as usize >= crate::wave::VREGS => None,
        WriteTarget::Vector { reg, lane, .. } => {
            let v = &w.v[reg as usize];
            Some(match lane {
                Some(l) => v.get(l as usize)?.to_le_bytes().to_vec(),
                None => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            })
        }
        WriteTarget::Memory { .. } => None,
    }
}

/// The write to a memory target the instruction just replayed made (its access log
/// holds its accesses): the lanes that wrote, and what the range held before and holds
/// after it (up to 16 bytes each).
fn memory_write(
    target: &WriteTarget,
    m: &Machine,
    seen: Seen,
    w: &crate::wave::Wave,
) -> Option<(u32, Vec<u8>, Vec<u8>)> {
    let WriteTarget::Memory {
        space,
        addr,
        len,
        workgroup,
        wave,
        lane,
    } = *target
    else {
        return None;
    };
    let log = m.accesses.as_ref()?;
    let mine = |a: &&crate::exec::Access| {
        matches!(
            a.kind,
            crate::exec::AccessKind::Write | crate::exec::AccessKind::ReadWrite
        ) && a.space == space
            && match space {
                Space::Global => true,
                Space::Shared => w.workgroup == workgroup,
                Space::Scratch => w.id == wave && a.lane == lane,
            }
    };
    let writes: Vec<_> = log.hits.iter().filter(mine).collect();
    if writes.is_empty() {
        return None;
    }
    let lanes = writes.iter().fold(0u32, |l, a| l | 1 << a.lane);
    let n = len.min(16) as usize;
    let mut new = vec![0u8; n];
    let _ = m.read_space(space, seen.wave, lane, addr, &mut new);
    // The bytes before: what the range holds now, with the instruction's writes undone,
    // last first (each access keeps the bytes it overwrote, wherever it starts).
    let mut old = new.clone();
    for a in writes.iter().rev() {
        for k in 0..(a.len as u64).min(16) {
            let at = a.addr.saturating_add(k);
            if at >= addr && at - addr < n as u64 {
                old[(at - addr) as usize] = a.old[k as usize];
            }
        }
    }
    Some((lanes, old, new))
}

/// An instruction a wave executed, found in the record ([`Engine::last_execution`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::debug) struct Execution {
    seen: Seen,
    /// The launch's instruction count right before it.
    pub(in crate::debug) count: u64,
}

impl Execution {
    /// The instruction's code byte address.
    pub(in crate::debug) fn pc(&self) -> u64 {
        self.seen.pc
    }
}

impl Engine {
    /// The last time before count `before` that wave `id` executed the instruction at
    /// `pc` (the machine stays where it is): a backward search replaying only the
    /// intervals that ran that instruction, with a mark on it for that wave alone.
    pub(in crate::debug) fn last_execution(
        &self,
        id: u32,
        pc: u64,
        before: u64,
    ) -> Result<Option<Execution>, EngineError> {
        self.last_execution_among(id, &[pc], before, |_| true)
    }

    /// The newest execution before count `before` by wave `id` of an instruction at one
    /// of `pcs` that `accept` takes (the machine stays where it is). `accept` sees the
    /// wave's executions at `pcs` newest first, each once, until it takes one: a search
    /// that walks back through them (a line step back) keeps its state there. One
    /// backward search replays only the intervals that ran one of `pcs`, with marks on
    /// them for that wave alone.
    pub(in crate::debug) fn last_execution_among(
        &self,
        id: u32,
        pcs: &[u64],
        before: u64,
        mut accept: impl FnMut(&Execution) -> bool,
    ) -> Result<Option<Execution>, EngineError> {
        let code = self.machine.code();
        let mut probe = Probe::new(code.len());
        let mut hooks = Hooks {
            marks: vec![BreakAt::No; code.len()],
            accesses: None,
            traps: false,
        };
        let mark = BreakAt::Only(Arc::from([(Some(id), None)]));
        for &pc in pcs {
            let word = (pc / 4) as usize;
            if word < code.len() {
                probe.code_word(word);
                hooks.marks[word] = mark.clone();
            }
        }
        let (interrupt, progress) = self.search_handles();
        let watch = Watch {
            interrupt: &interrupt,
            progress: &progress,
        };
        let open = self.history.open_summary(&self.machine);
        let history = &self.history;
        let back = history.search_back(before, &probe, open.as_ref(), watch, |k, end| {
            let mut seen_here = Vec::new();
            history.scan(k, end, &hooks, watch, |side, seen, m| {
                let count = m.stats.wave_instructions;
                // Only the marked words (`pcs`) stop a replay before an instruction.
                if side == Side::Before && count < before && seen.id == id {
                    seen_here.push(Execution { seen, count });
                }
            })?;
            // The interval's executions newest first, as a step back meets them.
            Ok(seen_here.into_iter().rev().find(|x| accept(x)))
        });
        self.search_outcome(back, before)
    }

    /// A backward search's answer from count `before`: what it found, nothing, or how far
    /// back it got when interrupted. The search consumes an interrupt request, as a stop
    /// does: left pending, it would stop the next command at once.
    fn search_outcome<T>(&self, back: Back<T>, before: u64) -> Result<Option<T>, EngineError> {
        self.interrupt.store(false, Ordering::Relaxed);
        match back {
            Back::Found(found) => Ok(Some(found)),
            Back::Nothing => Ok(None),
            Back::Interrupted(cleared) => Err(EngineError::SearchInterrupted {
                searched_back_to: cleared.map_or(before, |k| {
                    self.history.snapshots[k].machine.stats.wave_instructions
                }),
            }),
        }
    }

    /// Goes to right before execution `x`, its wave selected, reporting `reason`.
    pub(in crate::debug) fn travel_to(&mut self, x: Execution, reason: StopReason) -> StopEvent {
        let target = StopBefore::Wave {
            wave: x.seen.wave,
            id: x.seen.id,
            executed: x.seen.executed,
        };
        self.travel(target, Some(x.seen.wave), reason)
            .unwrap_or_else(|| {
                self.finish(self.event(StopReason::Blocked(Blocked::HistoryStart), None))
            })
    }

    /// Where the values of vector register `reg` of wave `id` in `lanes` were last written
    /// before count `before`, newest first: each write with the lanes whose last write it
    /// was (lanes none names were not written before it).
    pub(in crate::debug) fn source_writes(
        &self,
        id: u32,
        reg: u8,
        lanes: u32,
        mut before: u64,
    ) -> Result<Vec<SourceWrite>, EngineError> {
        let target = WriteTarget::Vector {
            wave: id,
            reg,
            lane: None,
        };
        let mut left = lanes;
        let mut out = Vec::new();
        // At most one search per lane: each write found takes at least one lane off.
        while left != 0 {
            let Some(w) = self.last_write_in(&target, before, left)? else {
                break;
            };
            let lanes = w.lanes & left;
            out.push(SourceWrite {
                lanes,
                wave: w.wave,
                pc: w.pc,
                count: w.count,
            });
            left &= !lanes;
            before = w.count;
        }
        Ok(out)
    }
}
