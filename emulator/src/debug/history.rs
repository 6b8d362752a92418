//! Time travel: every change the engine makes to the machine is recorded (runs, single
//! steps, register and memory edits), with snapshots of the whole machine every so many
//! instructions. Any earlier point is reached again by restoring the nearest snapshot
//! before it and replaying the record, which is exact because the machine is
//! deterministic (docs/time-travel.md).

use super::edit::RegisterWrite;
use super::stop::{Blocked, Reached};
use super::{Engine, EngineError, StopEvent, StopReason};
use crate::machine::{Event, Machine, StopBefore};
use crate::memory::Space;

/// The default bound on snapshot memory (`set history-size`), in bytes.
pub const DEFAULT_HISTORY_BYTES: usize = 256 << 20;

/// Instructions between snapshots to begin with; the spacing doubles whenever the
/// snapshots outgrow the bound (and every other one is dropped).
const FIRST_SPACING: u64 = 50_000;

/// One recorded change of the machine.
#[derive(Debug, Clone, PartialEq)]
enum Change {
    /// `Machine::run` executed this many instructions (consecutive runs are merged: a run
    /// split anywhere is the same run).
    Run(u64),
    /// `Machine::step_scheduled` on wave `.0`, `.1` times in a row (the debugger picked
    /// it: a stepi, or a run of one wave alone).
    Step(usize, u64),
    /// A round of `stepi all`: the first `.0` of the waves ready at its start, in index
    /// order, each stepped once.
    Round(u64),
    /// A run that stopped on a fault raised without executing an instruction (an illegal
    /// word, a PC outside the code, the budget): replayed as a run to its next event.
    Fault,
    /// A register write.
    Register(usize, RegisterWrite),
    /// The sanitizer's detectors changed.
    Checks(crate::check::Checks),
    /// A memory write.
    Memory {
        space: Space,
        wave: usize,
        lane: u8,
        addr: u64,
        data: Vec<u8>,
    },
}

impl Change {
    /// Applies a recorded edit (a register or memory write) to `m`; runs and steps are
    /// replayed by their callers.
    fn apply_edit(&self, m: &mut Machine) {
        match self {
            Change::Register(w, write) => {
                let _ = write.apply(m, *w);
            }
            Change::Memory {
                space,
                wave,
                lane,
                addr,
                data,
            } => {
                let _ = m.write_space(*space, *wave, *lane, *addr, data);
            }
            Change::Checks(c) => m.set_checks(*c),
            Change::Run(_) | Change::Step(..) | Change::Round(_) | Change::Fault => {}
        }
    }
}

/// A change and the launch's instruction counts before and after it.
#[derive(Debug, Clone, PartialEq)]
struct Entry {
    change: Change,
    start: u64,
    end: u64,
}

/// The machine before record entry `entry`.
#[derive(Debug, Clone)]
struct Snapshot {
    entry: usize,
    machine: Machine,
    bytes: usize,
}

/// The record of a launch under the debugger, and where in it the machine is.
#[derive(Debug, Clone, Default)]
pub struct History {
    log: Vec<Entry>,
    snapshots: Vec<Snapshot>,
    /// The machine is at the end of the record (`None`), or earlier: before entry `.0`
    /// with `.1` of it done (instructions of a run, steps of a series), after a reverse
    /// command or `goto`.
    cursor: Option<(usize, u64)>,
    /// The instruction count at the cursor.
    cursor_count: u64,
    spacing: u64,
    limit: usize,
    /// Instruction count of the newest snapshot.
    last_snapshot: u64,
}

/// What `info history` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryInfo {
    /// Recorded changes (runs, steps, edits); consecutive runs count as one.
    pub entries: usize,
    /// Machine snapshots held, the launch state included (at least 1).
    pub snapshots: usize,
    /// Their estimated size in bytes.
    pub bytes: usize,
    /// The bound on snapshot bytes (`set history-size`, [`DEFAULT_HISTORY_BYTES`] by default).
    pub limit: usize,
    /// Wave-instructions between snapshots; doubles each time the snapshots outgrow `limit`.
    pub spacing: u64,
    /// The launch's instruction count at the end of the record.
    pub end: u64,
    /// The machine's current instruction count.
    pub now: u64,
}

impl History {
    /// A record starting at the launch state `start`.
    pub(super) fn new(start: &Machine, limit: usize) -> Self {
        let mut h = History {
            log: Vec::new(),
            snapshots: Vec::new(),
            cursor: None,
            cursor_count: 0,
            spacing: FIRST_SPACING,
            limit,
            last_snapshot: 0,
        };
        h.push_snapshot(start);
        h
    }

    /// The launch state: the first snapshot (thinning never drops it).
    pub(super) fn launch(&self) -> Option<&Machine> {
        self.snapshots.first().map(|s| &s.machine)
    }

    /// Forgets everything recorded after the launch.
    pub(super) fn restart(&mut self) {
        self.log.clear();
        self.snapshots.truncate(1);
        self.cursor = None;
        self.cursor_count = 0;
        self.spacing = FIRST_SPACING;
        self.last_snapshot = 0;
    }

    fn end_count(&self) -> u64 {
        self.log.last().map_or(0, |e| e.end)
    }

    fn bytes(&self) -> usize {
        self.snapshots.iter().map(|s| s.bytes).sum()
    }

    fn push_snapshot(&mut self, m: &Machine) {
        let mut machine = m.clone();
        machine.strip_hooks();
        let bytes = machine.snapshot_bytes(self.snapshots.last().map(|s| &s.machine));
        // A large machine is copied less often: at least 16 bytes of snapshot per
        // instruction between them, so copying stays a small part of a run.
        self.spacing = self.spacing.max(bytes as u64 / 16);
        self.last_snapshot = m.stats.wave_instructions;
        self.snapshots.push(Snapshot {
            entry: self.log.len(),
            machine,
            bytes,
        });
        self.thin();
    }

    /// Over the bound: keep the launch and every other snapshot after it (or only the
    /// launch), and space the next ones twice as far apart.
    fn thin(&mut self) {
        while self.bytes() > self.limit && self.snapshots.len() > 1 {
            if self.snapshots.len() > 2 {
                let mut i = 0;
                self.snapshots.retain(|_| {
                    i += 1;
                    i == 1 || i % 2 == 0
                });
            } else {
                self.snapshots.truncate(1);
            }
            self.spacing = self.spacing.saturating_mul(2);
        }
    }

    /// Sets the bound on snapshot memory.
    pub(super) fn set_limit(&mut self, limit: usize) {
        self.limit = limit;
        self.thin();
    }

    /// Forgets the recorded future when the machine, moved into the past, changes: the
    /// record is cut at the cursor (keeping the part of a run done before it).
    fn truncate_at_cursor(&mut self) {
        let Some((entry, done)) = self.cursor.take() else {
            return;
        };
        // The part of a run or of a series of steps done before the cursor; a series of
        // steps ends where the cursor's replay stopped, at the count it had there.
        let partial = match self.log.get(entry) {
            Some(Entry {
                change: Change::Run(_),
                start,
                ..
            }) if done > 0 => Some(Entry {
                change: Change::Run(done),
                start: *start,
                end: *start + done,
            }),
            Some(Entry {
                change: Change::Step(w, _),
                start,
                ..
            }) if done > 0 => Some(Entry {
                change: Change::Step(*w, done),
                start: *start,
                end: self.cursor_count,
            }),
            Some(Entry {
                change: Change::Round(_),
                start,
                ..
            }) if done > 0 => Some(Entry {
                change: Change::Round(done),
                start: *start,
                end: self.cursor_count,
            }),
            _ => None,
        };
        self.log.truncate(entry);
        self.snapshots.retain(|s| s.entry <= entry);
        self.log.extend(partial);
        self.last_snapshot = self
            .snapshots
            .last()
            .map_or(0, |s| s.machine.stats.wave_instructions);
    }

    /// Records a change the engine has just made to `m`, whose count was `start` before.
    fn record(&mut self, change: Change, start: u64, m: &Machine) {
        self.truncate_at_cursor();
        // A run continuing the previous one is the same run (unless a snapshot sits
        // between them: snapshots are positions in the record).
        let snapshot_here = self
            .snapshots
            .last()
            .is_some_and(|s| s.entry == self.log.len());
        let end = m.stats.wave_instructions;
        match (&change, self.log.last_mut()) {
            (Change::Run(0), _) => {}
            (
                Change::Run(n),
                Some(Entry {
                    change: Change::Run(prev),
                    end: e,
                    ..
                }),
            ) if !snapshot_here && *e == start => {
                *prev += n;
                *e = end;
            }
            (
                Change::Step(w, n),
                Some(Entry {
                    change: Change::Step(pw, prev),
                    end: e,
                    ..
                }),
            ) if !snapshot_here && pw == w && *e == start => {
                *prev += n;
                *e = end;
            }
            _ => self.log.push(Entry { change, start, end }),
        }
        if m.stats.wave_instructions >= self.last_snapshot.saturating_add(self.spacing) {
            self.push_snapshot(m);
        }
    }

    /// What `info history` shows.
    pub fn info(&self, now: u64) -> HistoryInfo {
        HistoryInfo {
            entries: self.log.len(),
            snapshots: self.snapshots.len(),
            bytes: self.bytes(),
            limit: self.limit,
            spacing: self.spacing,
            end: self.end_count(),
            now,
        }
    }

    /// Replays from the latest snapshot that can reach `target` to it; returns the machine
    /// there and the record position, or `None` if the record does not reach it.
    fn replay_to(&self, target: StopBefore) -> Option<(Machine, (usize, u64))> {
        let usable = |m: &Machine| match target {
            StopBefore::Count(n) => m.stats.wave_instructions <= n,
            StopBefore::Wave { wave, id, executed } => m
                .waves
                .get(wave)
                .is_none_or(|w| w.id != id || w.executed <= executed),
        };
        let snap = self.snapshots.iter().rev().find(|s| usable(&s.machine))?;
        let mut m = snap.machine.clone();
        m.stop_before = Some(target);
        let reached = |m: &Machine| m.stops_at(target);
        for (i, e) in self.log.iter().enumerate().skip(snap.entry) {
            match &e.change {
                Change::Run(n) => {
                    let mut done = 0;
                    while done < *n {
                        let before = m.stats.wave_instructions;
                        let ev = m.run(Some(n - done));
                        done += m.stats.wave_instructions - before;
                        match ev {
                            Some(Event::StopBefore) => {
                                m.stop_before = None;
                                return Some((m, (i, done)));
                            }
                            // Nothing could run, where the record says something did: not
                            // this history. (With progress, a deadlock or fault is just an
                            // event the original run stopped at and went on from.)
                            Some(Event::Finished | Event::Deadlock(_) | Event::Stalled)
                                if m.stats.wave_instructions == before =>
                            {
                                return None;
                            }
                            _ => {}
                        }
                    }
                }
                Change::Step(w, times) => {
                    for k in 0..*times {
                        if let Some(Event::StopBefore) = m.step_scheduled(*w) {
                            m.stop_before = None;
                            return Some((m, (i, k)));
                        }
                    }
                }
                Change::Round(k) => {
                    for (j, w) in ready_waves(&m).into_iter().take(*k as usize).enumerate() {
                        if let Some(Event::StopBefore) = m.step_scheduled(w) {
                            m.stop_before = None;
                            return Some((m, (i, j as u64)));
                        }
                    }
                }
                Change::Fault => {
                    if let Some(Event::StopBefore) = m.run(None) {
                        m.stop_before = None;
                        return Some((m, (i, 0)));
                    }
                }
                edit @ (Change::Register(..) | Change::Memory { .. } | Change::Checks(_)) => {
                    edit.apply_edit(&mut m)
                }
            }
        }
        // The end of the record: the point is the present (a count equal to now).
        if reached(&m) {
            m.stop_before = None;
            return Some((m, (self.log.len(), 0)));
        }
        None
    }
}

/// The waves ready at the start of a `stepi all` round, in index order.
fn ready_waves(m: &Machine) -> Vec<usize> {
    (0..m.waves.len())
        .filter(|&i| m.waves[i].state == crate::wave::WaveState::Ready)
        .collect()
}

/// Which side of an instruction a walk is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Before,
    After,
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

impl History {
    /// Replays from snapshot `k` one instruction at a time until the count reaches
    /// `until`, calling `visit` right before and right after each instruction (the
    /// machine carries `accesses`, so the accesses of the instruction are in its log).
    fn walk(
        &self,
        k: usize,
        until: u64,
        accesses: Option<crate::exec::AccessLog>,
        mut visit: impl FnMut(Side, Seen, &mut Machine),
    ) {
        let Some(snap) = self.snapshots.get(k) else {
            return;
        };
        let mut m = snap.machine.clone();
        m.accesses = accesses;
        let one = |m: &mut Machine, w: usize, visit: &mut dyn FnMut(Side, Seen, &mut Machine)| {
            let Some(x) = m.waves.get(w) else {
                return;
            };
            let seen = Seen {
                wave: w,
                id: x.id,
                executed: x.executed,
                pc: x.pc,
            };
            visit(Side::Before, seen, m);
            let _ = m.step_scheduled(w);
            visit(Side::After, seen, m);
        };
        for e in self.log.iter().skip(snap.entry) {
            match &e.change {
                Change::Run(_) => {
                    let target = e.end.min(until);
                    while m.stats.wave_instructions < target {
                        match m.schedule() {
                            Ok(w) => one(&mut m, w, &mut visit),
                            Err(_) => return,
                        }
                    }
                }
                Change::Step(w, times) => {
                    for _ in 0..*times {
                        if m.stats.wave_instructions >= until {
                            return;
                        }
                        one(&mut m, *w, &mut visit);
                    }
                }
                Change::Round(k) => {
                    for w in ready_waves(&m).into_iter().take(*k as usize) {
                        if m.stats.wave_instructions >= until {
                            return;
                        }
                        one(&mut m, w, &mut visit);
                    }
                }
                Change::Fault => {
                    if let Ok(w) = m.schedule() {
                        one(&mut m, w, &mut visit);
                    }
                }
                edit @ (Change::Register(..) | Change::Memory { .. } | Change::Checks(_)) => {
                    edit.apply_edit(&mut m)
                }
            }
            if m.stats.wave_instructions >= until {
                return;
            }
        }
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
    /// Records a change made to the machine (the run-control and edit paths call this).
    pub(super) fn record_run(&mut self, start: u64) {
        let done = self.machine.stats.wave_instructions - start;
        self.history.record(Change::Run(done), start, &self.machine);
    }

    /// After a run that stopped on `event`: a fault that executed nothing is recorded too.
    pub(super) fn record_fault(&mut self, event: &Option<Event>) {
        use crate::fault::FaultKind;
        if let Some(Event::Fault(f)) = event {
            if matches!(
                f.kind,
                FaultKind::IllegalInstruction { .. }
                    | FaultKind::BadPc
                    | FaultKind::BudgetExhausted { .. }
            ) {
                let now = self.machine.stats.wave_instructions;
                self.history.record(Change::Fault, now, &self.machine);
            }
        }
    }

    pub(super) fn record_round(&mut self, stepped: u64, start: u64) {
        if stepped > 0 {
            self.history
                .record(Change::Round(stepped), start, &self.machine);
        }
    }

    pub(super) fn record_step(&mut self, w: usize, start: u64) {
        self.history
            .record(Change::Step(w, 1), start, &self.machine);
    }

    pub(super) fn record_register(&mut self, w: usize, write: RegisterWrite) {
        let start = self.machine.stats.wave_instructions;
        self.history
            .record(Change::Register(w, write), start, &self.machine);
    }

    pub(super) fn record_checks(&mut self, checks: crate::check::Checks) {
        let start = self.machine.stats.wave_instructions;
        self.history
            .record(Change::Checks(checks), start, &self.machine);
    }

    pub(super) fn record_memory(
        &mut self,
        space: Space,
        wave: usize,
        lane: u8,
        addr: u64,
        data: &[u8],
    ) {
        let start = self.machine.stats.wave_instructions;
        let change = Change::Memory {
            space,
            wave,
            lane,
            addr,
            data: data.to_vec(),
        };
        self.history.record(change, start, &self.machine);
    }

    /// The time-travel record.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// Bounds snapshot memory (`set history-size`, in bytes).
    pub fn set_history_size(&mut self, bytes: usize) {
        self.history.set_limit(bytes);
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
        let w = wave.unwrap_or(self.selected_wave);
        self.finish(self.event(reason, Some(w)))
    }

    /// `goto N`: the machine as it was when the launch's instruction count was `n`, right
    /// before the next instruction (anywhere in the recorded history, back or forward).
    /// Past the newest recorded point, every wave runs forward from there as `continue`
    /// runs them, to count `n` (a breakpoint, a watchpoint or the end may stop it first):
    /// that is where a `continue` interrupted at count `n` stopped, so a recorded REPL
    /// session replays an interrupted run with it.
    pub fn goto(&mut self, n: u64) -> Result<StopEvent, EngineError> {
        let end = self.history.end_count();
        if n > end {
            if self.machine.stats.wave_instructions < end {
                self.goto(end)?;
            }
            return Ok(self.run_to_count(n));
        }
        let (m, at) = self
            .history
            .replay_to(StopBefore::Count(n))
            .ok_or(EngineError::BeyondHistory { count: n, end })?;
        let wave = self.selected_wave;
        Ok(self.arrive(m, at, Some(wave), StopReason::Reached(Reached::Count(n))))
    }

    /// `reverse-stepi N`: the selected wave `n` instructions back, right before the
    /// instruction it executed then; at the start of history, as far back as there is.
    pub fn reverse_step(&mut self, n: u64) -> StopEvent {
        let w = self.selected_wave;
        let Some(wave) = self.machine.waves.get(w) else {
            return self.finish(self.event(StopReason::Blocked(Blocked::NoWave(w)), None));
        };
        let (id, executed) = (wave.id, wave.executed);
        if executed == 0 {
            return self.finish(self.event(StopReason::Blocked(Blocked::HistoryStart), Some(w)));
        }
        let back = n.max(1).min(executed);
        let target = StopBefore::Wave {
            wave: w,
            id,
            executed: executed - back,
        };
        match self.history.replay_to(target) {
            Some((m, at)) => {
                let reason = if back < n.max(1) {
                    StopReason::Blocked(Blocked::HistoryStart)
                } else {
                    StopReason::Step
                };
                self.arrive(m, at, Some(w), reason)
            }
            None => self.finish(self.event(StopReason::Blocked(Blocked::HistoryStart), Some(w))),
        }
    }

    /// `reverse-continue`: back to the previous point where a breakpoint or watchpoint
    /// stops (a watchpoint stops right before the instruction that made the access, with
    /// the values it found and left); at none, the start of the history. Breakpoints'
    /// ignore counts do not apply backwards, and no hit counts change.
    pub fn reverse_continue(&mut self) -> StopEvent {
        let now = self.machine.stats.wave_instructions;
        let history = std::mem::take(&mut self.history);
        let (breakpoints, watchpoints) = (self.breakpoints.clone(), self.watchpoints.clone());
        self.breakpoints.iter_mut().for_each(|b| b.ignore = 0);
        let accesses = self.machine.accesses.clone();
        let mut found: Option<(Seen, u64, StopReason)> = None;
        for (k, end) in history.segments_before(now) {
            let mut last = None;
            history.walk(k, end, accesses.clone(), |side, seen, m| {
                let count = m.stats.wave_instructions;
                let stop = match side {
                    Side::Before if count < now => {
                        let armed = self
                            .armed
                            .get((seen.pc / 4) as usize)
                            .is_some_and(|a| !a.is_empty());
                        armed.then(|| {
                            std::mem::swap(&mut self.machine, m);
                            let stop = self.check_breakpoints(seen.wave, seen.pc);
                            std::mem::swap(&mut self.machine, m);
                            stop
                        })
                    }
                    Side::After if count <= now => {
                        let hit = m.accesses.as_ref().is_some_and(|l| !l.hits.is_empty());
                        hit.then(|| {
                            std::mem::swap(&mut self.machine, m);
                            let stop = self.check_watchpoints(seen.wave, seen.pc);
                            std::mem::swap(&mut self.machine, m);
                            stop
                        })
                    }
                    _ => None,
                };
                if let Some(stop) = stop.flatten() {
                    last = Some((seen, count, stop.reason));
                }
            });
            if last.is_some() {
                found = last;
                break;
            }
        }
        self.breakpoints = breakpoints;
        self.watchpoints = watchpoints;
        self.history = history;
        match found {
            Some((seen, _, reason)) => {
                let target = StopBefore::Wave {
                    wave: seen.wave,
                    id: seen.id,
                    executed: seen.executed,
                };
                match self.history.replay_to(target) {
                    Some((m, at)) => self.arrive(m, at, Some(seen.wave), reason),
                    None => {
                        self.finish(self.event(StopReason::Blocked(Blocked::HistoryStart), None))
                    }
                }
            }
            None => match self.history.replay_to(StopBefore::Count(0)) {
                Some((m, at)) => {
                    let w = self.selected_wave;
                    self.arrive(m, at, Some(w), StopReason::Blocked(Blocked::HistoryStart))
                }
                None => self.finish(self.event(StopReason::Blocked(Blocked::HistoryStart), None)),
            },
        }
    }

    /// `last-write`: the last write to `target` before instruction count `before` (the
    /// machine stays where it is). A register's write is a change of its value.
    pub fn last_write(&mut self, target: &WriteTarget, before: u64) -> Option<LastWrite> {
        let history = std::mem::take(&mut self.history);
        let filter = match target {
            WriteTarget::Memory {
                space, addr, len, ..
            } => Some(crate::exec::AccessLog::new(vec![(
                *space,
                *addr,
                addr.saturating_add(*len),
            )])),
            _ => None,
        };
        // A register target: its wave, and its value (little-endian) in a wave.
        let reg_wave = match target {
            WriteTarget::Vector { wave, .. } | WriteTarget::Uniform { wave, .. } => Some(*wave),
            WriteTarget::Memory { .. } => None,
        };
        let reg_value = |w: &crate::wave::Wave| -> Option<Vec<u8>> {
            match *target {
                WriteTarget::Uniform { reg, .. } => {
                    Some(w.u.get(reg as usize)?.to_le_bytes().to_vec())
                }
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
        };
        let mut found = None;
        for (k, end) in history.segments_before(before) {
            let mut last = None;
            let mut old_reg: Option<Vec<u8>> = None;
            history.walk(k, end, filter.clone(), |side, seen, m| {
                let count = m.stats.wave_instructions;
                let Some(w) = m.waves.get(seen.wave) else {
                    return;
                };
                // The write this instruction made, as the answer names it.
                let found =
                    |w: &crate::wave::Wave, lanes: u32, old: Vec<u8>, new: Vec<u8>| LastWrite {
                        count: count.saturating_sub(1),
                        wave: w.id,
                        workgroup: w.workgroup,
                        lanes,
                        pc: seen.pc,
                        old,
                        new,
                    };
                match (target, side) {
                    (
                        WriteTarget::Memory {
                            space,
                            addr,
                            len,
                            workgroup,
                            wave,
                            lane,
                        },
                        Side::After,
                    ) => {
                        let Some(log) = &m.accesses else { return };
                        let mine = |a: &crate::exec::Access| {
                            matches!(
                                a.kind,
                                crate::exec::AccessKind::Write | crate::exec::AccessKind::ReadWrite
                            ) && a.space == *space
                                && match space {
                                    Space::Global => true,
                                    Space::Shared => w.workgroup == *workgroup,
                                    Space::Scratch => w.id == *wave && a.lane == *lane,
                                }
                        };
                        let writes: Vec<_> = log.hits.iter().filter(|a| mine(a)).collect();
                        if let Some(first) = writes.first() {
                            let lanes = writes.iter().fold(0u32, |l, a| l | 1 << a.lane);
                            // The first writing lane's bytes before; what the range holds after.
                            let n = (*len).min(16) as usize;
                            let mut old = vec![0u8; n];
                            let skip = addr.saturating_sub(first.addr) as usize;
                            for (i, b) in old.iter_mut().enumerate() {
                                if let Some(&x) = first.old.get(skip + i) {
                                    *b = x;
                                }
                            }
                            let mut new = vec![0u8; n];
                            let _ = m.read_space(*space, seen.wave, *lane, *addr, &mut new);
                            last = Some(found(w, lanes, old, new));
                        }
                    }
                    (_, side) if reg_wave == Some(w.id) => {
                        let now = reg_value(w);
                        if side == Side::After && old_reg.is_some() && now != old_reg {
                            let old = old_reg.take().unwrap_or_default();
                            let new = now.clone().unwrap_or_default();
                            let lanes = match target {
                                WriteTarget::Vector { lane: Some(l), .. } => 1 << l,
                                WriteTarget::Vector { lane: None, .. } => old
                                    .chunks(4)
                                    .zip(new.chunks(4))
                                    .enumerate()
                                    .filter(|(_, (a, b))| a != b)
                                    .fold(0u32, |l, (i, _)| l | 1 << i),
                                _ => 0,
                            };
                            last = Some(found(w, lanes, old, new));
                        }
                        old_reg = now;
                    }
                    _ => {}
                }
            });
            if last.is_some() {
                found = last;
                break;
            }
        }
        self.history = history;
        found
    }
}
