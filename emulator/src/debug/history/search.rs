//! Searches of the record: `goto`, `reverse-stepi`, `reverse-continue` and `last-write`,
//! each by replaying from the snapshots (`walk`) and arriving at the point it finds.

use super::{ready_waves, Change, History};
use crate::debug::stop::{Blocked, Reached};
use crate::debug::{Engine, EngineError, StopEvent, StopReason};
use crate::machine::{Machine, StopBefore};
use crate::memory::Space;

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
