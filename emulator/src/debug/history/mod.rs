//! Time travel: every change the engine makes to the machine is recorded (runs, single
//! steps, register and memory edits), with snapshots of the whole machine every so many
//! instructions. Any earlier point is reached again by restoring the nearest snapshot
//! before it and replaying the record, which is exact because the machine is
//! deterministic (docs/time-travel.md).

mod search;

pub use search::{LastWrite, WriteTarget};

use super::edit::RegisterWrite;
use super::Engine;
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
}

/// The waves ready at the start of a `stepi all` round, in index order.
fn ready_waves(m: &Machine) -> Vec<usize> {
    (0..m.waves.len())
        .filter(|&i| m.waves[i].state == crate::wave::WaveState::Ready)
        .collect()
}
