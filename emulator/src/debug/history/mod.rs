//! Time travel: every change the engine makes to the machine is recorded (runs, single
//! steps, register and memory edits), with snapshots of the whole machine every so many
//! instructions. Any earlier point is reached again by restoring the nearest snapshot
//! before it and replaying the record, which is exact because the machine is
//! deterministic (docs/time-travel.md).

mod index;
mod search;

pub use search::{LastWrite, WriteTarget};

use search::Watch;

use index::Summary;

use super::edit::RegisterWrite;
use super::Engine;
use crate::machine::{Event, Machine, StopBefore};
use crate::memory::Space;

/// The default bound on snapshot memory (`set history-size`), in bytes.
pub const DEFAULT_HISTORY_BYTES: usize = 256 << 20;

/// The largest `set history-size` (in MiB) whose bytes the address space can count; a
/// larger one is refused, as every setting refuses a value out of its range.
pub const MAX_HISTORY_MIB: u64 = (usize::MAX >> 20) as u64;

/// Instructions between snapshots to begin with; the spacing doubles whenever the
/// snapshots outgrow the bound (and every other one is dropped).
const FIRST_SPACING: u64 = 50_000;

/// The record (its entries) is never cut for a bound this small or smaller: the smallest
/// `set history-size` (1 MiB) keeps more, so only the engine's own tests of tiny bounds,
/// which rely on the launch staying reachable, meet it.
const MIN_DROPPED_RECORD: usize = 256 << 10;

/// Entries of the open interval that force a snapshot even under a tiny bound.
const MIN_OPEN_RECORD: usize = 64 << 10;

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
    /// A register write (boxed: a whole vector register is 128 bytes, and every entry
    /// of the record would be that large).
    Register(usize, Box<RegisterWrite>),
    /// The sanitizer's detectors changed.
    Checks(crate::check::Checks),
    /// A memory write (boxed, as a register write is).
    Memory(Box<MemoryEdit>),
}

/// A recorded memory write.
#[derive(Debug, Clone, PartialEq)]
struct MemoryEdit {
    space: Space,
    wave: usize,
    lane: u8,
    addr: u64,
    data: Vec<u8>,
}

// Every stop adds an entry or two: they stay small (docs/time-travel.md says 40 bytes).
const _: () = assert!(std::mem::size_of::<Entry>() <= 40);

impl Change {
    /// Applies a recorded edit (a register or memory write) to `m`; runs and steps are
    /// replayed by their callers.
    fn apply_edit(&self, m: &mut Machine) {
        match self {
            Change::Register(w, write) => {
                let _ = write.apply(m, *w);
            }
            Change::Memory(e) => {
                let _ = m.write_space(e.space, e.wave, e.lane, e.addr, &e.data);
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

/// The machine before record entry `entry`, and what happened from there to the next
/// snapshot.
#[derive(Debug, Clone)]
struct Snapshot {
    entry: usize,
    machine: Machine,
    bytes: usize,
    /// The interval from here to the next snapshot (`None`: the newest, still open).
    after: Option<Summary>,
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
    /// What happened in the open interval before the live machine began its own record
    /// of it: when the newest snapshot is dropped, the open interval starts at an older
    /// one, and the summary of the part between them is kept here (the live machine's
    /// code record and write marks start at the snapshot dropped).
    open_prefix: Option<Summary>,
    /// The launch state and its estimated size, once the oldest part of the record has
    /// been dropped to keep within the bound (until then it is the first snapshot).
    dropped_launch: Option<(Box<Machine>, usize)>,
    /// Checkpoints of the last replays, in record order, each after the snapshot it was
    /// replayed from and before the next one (at most [`NEAR_CHECKPOINTS`]). They stay
    /// valid while the snapshots and the record before them are as they were: every
    /// change of either forgets them.
    near: Vec<Checkpoint>,
}

/// What `info history` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryInfo {
    /// The launch's instruction count at the start of the record: 0 (the launch) unless
    /// the oldest part was dropped to keep within the bound.
    pub start: u64,
    /// Whether the oldest part of the record was dropped to keep within the bound (the
    /// record can start at count 0 and still not at the launch: edits made before any
    /// instruction ran are part of the record).
    pub dropped: bool,
    /// Recorded changes (runs, steps, edits); consecutive runs count as one.
    pub entries: usize,
    /// Machine snapshots held, the launch state included (at least 1).
    pub snapshots: usize,
    /// The estimated size in bytes of everything the bound covers: the snapshots, the
    /// index, the record and the replay checkpoints.
    pub bytes: usize,
    /// Replay checkpoints held near the last replayed point (at most 16; the oldest go
    /// first when the bound needs their room).
    pub checkpoints: usize,
    /// Their estimated size in bytes (part of `bytes`).
    pub checkpoint_bytes: usize,
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
    /// A record starting at the launch state `start`, which from now on keeps what the
    /// index needs (the code it runs, its memory writes by epoch).
    pub(super) fn new(start: &mut Machine, limit: usize) -> Self {
        let mut h = History {
            log: Vec::new(),
            snapshots: Vec::new(),
            cursor: None,
            cursor_count: 0,
            spacing: FIRST_SPACING,
            limit,
            last_snapshot: 0,
            open_prefix: None,
            dropped_launch: None,
            near: Vec::new(),
        };
        start.keep_ran();
        h.push_snapshot(start);
        h
    }

    /// The launch state: the first snapshot, or kept aside once the oldest part of the
    /// record was dropped.
    pub(super) fn launch(&self) -> Option<&Machine> {
        match &self.dropped_launch {
            Some((m, _)) => Some(m),
            None => self.snapshots.first().map(|s| &s.machine),
        }
    }

    /// The instruction count of the oldest point the record reaches: 0 (the launch)
    /// unless the oldest part was dropped to keep within the bound.
    pub fn start_count(&self) -> u64 {
        self.snapshots
            .first()
            .map_or(0, |s| s.machine.stats.wave_instructions)
    }

    /// Forgets everything recorded after the launch (the engine goes on from a copy of
    /// it, [`History::launch_copy`]).
    pub(super) fn restart(&mut self) {
        self.near.clear();
        self.log.clear();
        if let Some((machine, bytes)) = self.dropped_launch.take() {
            self.snapshots.clear();
            self.snapshots.push(Snapshot {
                entry: 0,
                machine: *machine,
                bytes,
                after: None,
            });
        }
        self.snapshots.truncate(1);
        if let Some(s) = self.snapshots.first_mut() {
            s.after = None;
        }
        self.open_prefix = None;
        self.cursor = None;
        self.cursor_count = 0;
        self.spacing = FIRST_SPACING;
        self.last_snapshot = 0;
    }

    /// Whether the machine is in the past: before the end of the record.
    pub(super) fn in_past(&self) -> bool {
        self.cursor.is_some()
    }

    fn end_count(&self) -> u64 {
        // With the record dropped up to the newest snapshot, the end is that snapshot.
        self.log.last().map_or_else(
            || {
                self.snapshots
                    .last()
                    .map_or(0, |s| s.machine.stats.wave_instructions)
            },
            |e| e.end,
        )
    }

    /// A copy of the launch state to run from, keeping what the index needs.
    pub(super) fn launch_copy(&self) -> Option<Machine> {
        let mut m = self.launch()?.clone();
        m.keep_ran();
        Some(m)
    }

    /// Snapshot, index, record and checkpoint memory.
    fn bytes(&self) -> usize {
        self.near_bytes()
            + self
                .snapshots
                .iter()
                .map(|s| s.bytes + s.after.as_ref().map_or(0, Summary::bytes))
                .sum::<usize>()
            + self.open_prefix.as_ref().map_or(0, Summary::bytes)
            + self.dropped_launch.as_ref().map_or(0, |(_, b)| *b)
            + self.log_bytes()
    }

    /// The replay checkpoints' memory.
    fn near_bytes(&self) -> usize {
        self.near.iter().map(|c| c.bytes).sum()
    }

    /// Drops the oldest replay checkpoints while everything the bound covers is over
    /// `target` (checkpoints only shorten replays: they go before any snapshot does).
    fn trim_near(&mut self, target: usize) {
        let mut over = self.bytes().saturating_sub(target);
        let extra = self
            .near
            .iter()
            .take_while(|c| {
                let drop = over > 0;
                over = over.saturating_sub(c.bytes);
                drop
            })
            .count();
        self.near.drain(..extra);
    }

    /// The record's memory: its entries and the bytes of its memory edits.
    fn log_bytes(&self) -> usize {
        self.log.len() * std::mem::size_of::<Entry>()
            + self
                .log
                .iter()
                .map(|e| match &e.change {
                    Change::Memory(e) => std::mem::size_of::<MemoryEdit>() + e.data.len(),
                    Change::Register(..) => std::mem::size_of::<RegisterWrite>(),
                    _ => 0,
                })
                .sum::<usize>()
    }

    /// Drops the oldest interval of the record (from the first snapshot to the second):
    /// the history then starts at the second snapshot. Refused (false) with one snapshot
    /// (the newest, where the open interval starts, stays) or when the machine is in that
    /// interval.
    fn drop_oldest(&mut self) -> bool {
        if self.snapshots.len() < 2 {
            return false;
        }
        let cut = self.snapshots[1].entry;
        if self.cursor.is_some_and(|(entry, _)| entry < cut) {
            return false;
        }
        let first = self.snapshots.remove(0);
        if self.dropped_launch.is_none() {
            self.dropped_launch = Some((Box::new(first.machine), first.bytes));
        }
        self.log.drain(..cut);
        for s in &mut self.snapshots {
            s.entry -= cut;
        }
        if let Some((entry, _)) = &mut self.cursor {
            *entry -= cut;
        }
        true
    }

    /// Keeps a snapshot of `m`, closing the previous interval with its summary.
    fn push_snapshot(&mut self, m: &mut Machine) {
        self.near.clear();
        if let Some(last) = self.snapshots.last_mut() {
            let mut summary = Summary::take(m, &last.machine);
            if let Some(prefix) = self.open_prefix.take() {
                summary.merge(&prefix);
            }
            last.after = Some(summary);
        }
        // The snapshot shares every page: later writes copy them, marked in a new epoch.
        m.next_epoch();
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
            after: None,
        });
        self.thin();
    }

    /// Over the bound: keep the launch, the newest and every other snapshot between (or
    /// only the launch), and space the next ones twice as far apart. A dropped snapshot's interval
    /// joins the one before it in the index.
    ///
    /// When the record itself (its entries: a stop of gdb or the REPL adds one or two) is
    /// the larger part of the bound, the oldest interval is dropped instead: the history
    /// then starts later, as gdb's record-full drops its oldest instructions at its limit.
    ///
    /// The target is seven eighths of the bound: the open interval's entries may take the
    /// last eighth before the next snapshot is taken ([`History::record`]).
    fn thin(&mut self) {
        let target = self.limit - self.limit / 8;
        self.trim_near(target);
        while self.bytes() > target && self.snapshots.len() > 1 {
            if self.log_bytes() > (target / 2).max(MIN_DROPPED_RECORD) {
                if self.drop_oldest() {
                    continue;
                }
                // The oldest interval cannot go (the machine is in it): fewer snapshots
                // would not bring the record under the bound, only make replays longer.
                // The next snapshot tries again.
                if self.log_bytes() > target {
                    break;
                }
            }
            let newest = self.snapshots.len() - 1;
            let mut kept: Vec<Snapshot> = Vec::with_capacity(self.snapshots.len() / 2 + 1);
            for (i, s) in std::mem::take(&mut self.snapshots).into_iter().enumerate() {
                // Counted from the newest, which stays while it can (the live machine's
                // record of the code run starts there).
                let keep = i == 0 || (newest >= 2 && (newest - i).is_multiple_of(2));
                match kept.last_mut() {
                    Some(prev) if !keep && i == newest => {
                        // The open interval now starts at `prev`: what happened from there
                        // to `s` joins the part before the live machine's own record.
                        if let Some(mut closed) = prev.after.take() {
                            if let Some(prefix) = self.open_prefix.take() {
                                closed.merge(&prefix);
                            }
                            self.open_prefix = Some(closed);
                        }
                    }
                    Some(prev) if !keep => {
                        prev.after = match (prev.after.take(), &s.after) {
                            (Some(mut a), Some(b)) => {
                                a.merge(b);
                                Some(a)
                            }
                            _ => None,
                        };
                    }
                    _ => kept.push(s),
                }
            }
            self.snapshots = kept;
            self.spacing = self.spacing.saturating_mul(2);
        }
    }

    /// Sets the bound on snapshot memory.
    pub(super) fn set_limit(&mut self, limit: usize) {
        self.near.clear();
        self.limit = limit;
        self.thin();
    }

    /// Forgets the recorded future when the machine, moved into the past, changes: the
    /// record is cut at the cursor (keeping the part of a run done before it).
    fn truncate_at_cursor(&mut self) {
        let Some((entry, done)) = self.cursor.take() else {
            return;
        };
        self.near.clear();
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
        // The machine was replayed from the newest snapshot kept (it is the latest one
        // before the cursor), keeping the code it ran: the open interval starts there.
        if let Some(s) = self.snapshots.last_mut() {
            s.after = None;
        }
        self.open_prefix = None;
        self.log.extend(partial);
        self.last_snapshot = self
            .snapshots
            .last()
            .map_or(0, |s| s.machine.stats.wave_instructions);
    }

    /// Records a change the engine has just made to `m`, whose count was `start` before.
    fn record(&mut self, change: Change, start: u64, m: &mut Machine) {
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
        // A snapshot also closes an interval whose entries outgrow an eighth of the bound
        // (many short steps and stops), so the oldest intervals can be dropped to keep
        // the record within it.
        let open_entries = self.log.len() - self.snapshots.last().map_or(0, |s| s.entry);
        if m.stats.wave_instructions >= self.last_snapshot.saturating_add(self.spacing)
            || open_entries * std::mem::size_of::<Entry>() > (self.limit / 8).max(MIN_OPEN_RECORD)
        {
            self.push_snapshot(m);
        }
    }

    /// The summary of the open interval (from the newest snapshot to now), when the live
    /// machine `m` is at the end of the record.
    fn open_summary(&self, m: &Machine) -> Option<Summary> {
        if self.cursor.is_some() {
            return None;
        }
        let newest = self.snapshots.last()?;
        let mut open = Summary::peek(m, &newest.machine);
        if let Some(prefix) = &self.open_prefix {
            open.merge(prefix);
        }
        Some(open)
    }

    /// What `info history` shows.
    pub fn info(&self, now: u64) -> HistoryInfo {
        HistoryInfo {
            start: self.start_count(),
            dropped: self.dropped_launch.is_some(),
            entries: self.log.len(),
            snapshots: self.snapshots.len(),
            bytes: self.bytes(),
            checkpoints: self.near.len(),
            checkpoint_bytes: self.near_bytes(),
            limit: self.limit,
            spacing: self.spacing,
            end: self.end_count(),
            now,
        }
    }

    /// Replays from the latest snapshot that can reach `target` (or a checkpoint after
    /// it, [`History::near`]) to it: the machine there and the record position, or where
    /// the replay was when `watch`'s flag interrupted it; `None` if the record does not
    /// reach it. On the way it keeps checkpoints, so the next point a little before this
    /// one (the next `reverse-stepi`: gdb sends one packet per instruction) is replayed
    /// from near it rather than from the snapshot.
    fn replay_to(&mut self, target: StopBefore, watch: Option<Watch<'_>>) -> Option<Replayed> {
        let usable = |m: &Machine| match target {
            StopBefore::Count(n) => m.stats.wave_instructions <= n,
            // Not past the point: the slot still holds an earlier wave (a slot takes waves
            // in dispatch order, so by increasing id), or the wave itself not past it. A
            // later wave in the slot means the wave has exited: past it.
            StopBefore::Wave { wave, id, executed } => m
                .waves
                .get(wave)
                .is_none_or(|w| w.id < id || (w.id == id && w.executed <= executed)),
        };
        let snap = self.snapshots.iter().rev().find(|s| usable(&s.machine))?;
        // A checkpoint after the snapshot that is not past the point: it holds what the
        // replay from that snapshot had run (the code and the write marks the index
        // needs), so the machine may become the live one as well.
        let near = (self.near.iter().rev())
            .find(|c| (c.entry, c.done) > (snap.entry, 0) && usable(&c.machine));
        // What the first checkpoint kept shares its pages with (for its size).
        let base = near.map_or(&snap.machine, |c| &c.machine);
        let (mut m, from) = match near {
            Some(c) => (c.machine.clone(), (c.entry, c.done)),
            None => {
                let mut m = snap.machine.clone();
                // The machine may become the live one: it keeps the code it runs from the
                // snapshot on, as the live machine does for the index.
                m.keep_ran();
                (m, (snap.entry, 0))
            }
        };
        m.stop_before = Some(target);
        let every = (self.spacing / 8).max(NEAR_MIN_SPACING);
        let mut next_near = m.stats.wave_instructions + every;
        let mut kept: Vec<Checkpoint> = Vec::new();
        let mut keep = |m: &Machine, at: (usize, u64), next_near: &mut u64| {
            if m.stats.wave_instructions >= *next_near && at > from {
                let mut machine = m.clone();
                machine.stop_before = None;
                // Counted against the bound as a snapshot is: its own pages are those not
                // shared with the checkpoint (or snapshot) before it.
                let bytes = machine.snapshot_bytes(Some(kept.last().map_or(base, |c| &c.machine)));
                kept.push(Checkpoint {
                    entry: at.0,
                    done: at.1,
                    machine,
                    bytes,
                });
                *next_near = m.stats.wave_instructions + every;
            }
        };
        let interrupted = |m: &Machine| {
            watch.is_some_and(|w| {
                w.progress.publish(m);
                w.interrupted()
            })
        };
        let done_at = |mut m: Machine, at: (usize, u64), reached: bool| {
            m.stop_before = None;
            if reached {
                Replayed::Reached(Box::new(m), at)
            } else {
                Replayed::Interrupted
            }
        };
        let result = 'replay: {
            for (i, e) in self.log.iter().enumerate().skip(from.0) {
                let first = if i == from.0 { from.1 } else { 0 };
                match &e.change {
                    Change::Run(n) => {
                        let mut done = first;
                        while done < *n {
                            if interrupted(&m) {
                                break 'replay Some(done_at(m, (i, done), false));
                            }
                            keep(&m, (i, done), &mut next_near);
                            let before = m.stats.wave_instructions;
                            let chunk = (n - done)
                                .min(search::CHUNK)
                                .min(next_near.saturating_sub(before).max(1));
                            let ev = m.run(Some(chunk));
                            done += m.stats.wave_instructions - before;
                            match ev {
                                Some(Event::StopBefore) => {
                                    break 'replay Some(done_at(m, (i, done), true));
                                }
                                // Nothing could run, where the record says something did: not
                                // this history. (With progress, a deadlock or fault is just an
                                // event the original run stopped at and went on from.)
                                Some(Event::Finished | Event::Deadlock(_) | Event::Stalled)
                                    if m.stats.wave_instructions == before =>
                                {
                                    break 'replay None;
                                }
                                _ => {}
                            }
                        }
                    }
                    Change::Step(w, times) => {
                        for k in first..*times {
                            if k.is_multiple_of(search::CHUNK) && k > 0 && interrupted(&m) {
                                break 'replay Some(done_at(m, (i, k), false));
                            }
                            keep(&m, (i, k), &mut next_near);
                            if let Some(Event::StopBefore) = m.step_scheduled(*w) {
                                break 'replay Some(done_at(m, (i, k), true));
                            }
                        }
                    }
                    Change::Round(k) => {
                        // A round is resumed only from its start (its waves are the ones
                        // ready then).
                        keep(&m, (i, 0), &mut next_near);
                        for (j, w) in ready_waves(&m).into_iter().take(*k as usize).enumerate() {
                            if let Some(Event::StopBefore) = m.step_scheduled(w) {
                                break 'replay Some(done_at(m, (i, j as u64), true));
                            }
                        }
                    }
                    Change::Fault => {
                        keep(&m, (i, 0), &mut next_near);
                        if let Some(Event::StopBefore) = m.run(None) {
                            break 'replay Some(done_at(m, (i, 0), true));
                        }
                    }
                    edit @ (Change::Register(..) | Change::Memory(_) | Change::Checks(_)) => {
                        edit.apply_edit(&mut m)
                    }
                }
            }
            // The end of the record: the point is the present (a count equal to now).
            if m.stops_at(target) {
                break 'replay Some(done_at(m, (self.log.len(), 0), true));
            }
            None
        };
        // Checkpoints before where this replay started stay; the new ones join them, the
        // newest few kept.
        if !kept.is_empty() {
            self.near.retain(|c| (c.entry, c.done) < from);
            self.near.append(&mut kept);
            let extra = self.near.len().saturating_sub(NEAR_CHECKPOINTS);
            self.near.drain(..extra);
            // They count against `set history-size` with the snapshots: the oldest go
            // while the total is over the bound's seven eighths (see `thin`).
            self.trim_near(self.limit - self.limit / 8);
        }
        result
    }
}

/// At most this many checkpoints are kept near the last replayed point.
const NEAR_CHECKPOINTS: usize = 16;

/// Checkpoints are at least this many instructions apart (an eighth of the snapshot
/// spacing otherwise).
const NEAR_MIN_SPACING: u64 = 4096;

/// A copy of the machine a replay passed, at record position (`entry`, `done`), with the
/// code it had run and the memory it had written since the snapshot it started from.
#[derive(Debug, Clone)]
struct Checkpoint {
    entry: usize,
    done: u64,
    machine: Machine,
    /// Its estimated size, as a snapshot's ([`Machine::snapshot_bytes`]).
    bytes: usize,
}

/// Where a replay ended.
#[derive(Debug)]
enum Replayed {
    /// At the point asked for: the machine, and its position in the record (before entry
    /// `.0`, with `.1` of it done).
    Reached(Box<Machine>, (usize, u64)),
    /// Interrupted on the way (the machine it had got to is not kept: it is before the
    /// point asked for, unrelated to where the command started).
    Interrupted,
}

impl Engine {
    /// Records a change made to the machine (the run-control and edit paths call this).
    pub(super) fn record_run(&mut self, start: u64) {
        let done = self.machine.stats.wave_instructions - start;
        self.history
            .record(Change::Run(done), start, &mut self.machine);
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
                self.history.record(Change::Fault, now, &mut self.machine);
            }
        }
    }

    pub(super) fn record_round(&mut self, stepped: u64, start: u64) {
        if stepped > 0 {
            self.history
                .record(Change::Round(stepped), start, &mut self.machine);
        }
    }

    pub(super) fn record_step(&mut self, w: usize, start: u64) {
        self.history
            .record(Change::Step(w, 1), start, &mut self.machine);
    }

    pub(super) fn record_register(&mut self, w: usize, write: RegisterWrite) {
        let start = self.machine.stats.wave_instructions;
        self.history.record(
            Change::Register(w, Box::new(write)),
            start,
            &mut self.machine,
        );
    }

    pub(super) fn record_checks(&mut self, checks: crate::check::Checks) {
        let start = self.machine.stats.wave_instructions;
        self.history
            .record(Change::Checks(checks), start, &mut self.machine);
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
        let change = Change::Memory(Box::new(MemoryEdit {
            space,
            wave,
            lane,
            addr,
            data: data.to_vec(),
        }));
        self.history.record(change, start, &mut self.machine);
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
