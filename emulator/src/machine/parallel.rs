//! A launch's workgroups on several threads (`wavedbg run --threads N`), with the result
//! of the one-thread run; and independent runs (the seeded schedules of `wavedbg check
//! --seeds`) on several threads, handed over in order ([`in_order`]).
//!
//! The grid is cut into `N` runs of consecutive workgroups, each run by its own machine
//! on its own thread, which notes every byte of global memory each workgroup reads and
//! writes. Workgroups share nothing else (shared memory and scratch are their own), so
//! when no workgroup reads or writes a byte another one writes, the order in which
//! workgroups run cannot change what any of them reads, and the launch's end is the same
//! under every schedule: each part's writes are put together and the statistics summed.
//! Otherwise (workgroups that communicate through global memory, atomics on one
//! address from two workgroups, a fault, a deadlock, the instruction budget) the launch
//! runs again on one thread, whose result is the result by definition
//! (docs/performance.md, "Workgroups on several threads").

use std::collections::HashMap;
use std::thread;

use super::{Event, LaunchError, LaunchOptions, Machine, Stats};
use crate::exec::AccessLog;
use crate::memory::Space;
use crate::program::Program;
use crate::trace::AccessKind;

/// Bytes of global memory a line of the access sets covers (a bit per byte).
const LINE: u64 = 64;

/// Why a run asked for on several threads ran on one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OneThread {
    /// One thread was asked for, or the grid has one workgroup.
    Asked,
    /// Two workgroups touch a common byte of global memory that one of them writes, so
    /// their order may matter: the first such byte and the two workgroups.
    Shared {
        /// The byte's global address.
        addr: u64,
        /// The workgroup that writes it.
        writer: u32,
        /// The other workgroup, which reads or writes it too.
        other: u32,
    },
    /// A part did not simply finish (a fault, a deadlock, a `brk`, the budget): where
    /// it stops depends on the order of the whole launch.
    Stopped,
    /// The parts together executed more instructions than the launch's budget allows.
    Budget,
}

impl std::fmt::Display for OneThread {
    /// Why, in words (`wavedbg run --threads` says it on stderr).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OneThread::Asked => write!(f, "one thread was asked for, or the grid has one workgroup"),
            OneThread::Shared {
                addr,
                writer,
                other,
            } => write!(
                f,
                "workgroup {writer} writes global byte {addr:#x}, which workgroup {other} also touches"
            ),
            OneThread::Stopped => write!(
                f,
                "the launch does not simply finish (a fault, a deadlock or a brk)"
            ),
            OneThread::Budget => write!(f, "the launch exceeds its instruction budget"),
        }
    }
}

/// The end of a launch run with [`run_on_threads`].
#[derive(Debug)]
pub struct ThreadedRun {
    /// The machine at the end. After a run on several threads, its global memory and
    /// statistics are the launch's (its waves and slots are its first part's); after a
    /// run on one thread, it is that run's machine.
    pub machine: Machine,
    /// How the launch ended, as [`Machine::run`] reports it.
    pub event: Option<Event>,
    /// `None` when the parts ran on several threads; otherwise why one thread ran it.
    pub one_thread: Option<OneThread>,
}

/// The global bytes one workgroup read and wrote: per line of [`LINE`] bytes, a bit per
/// byte read and a bit per byte written.
type AccessSet = HashMap<u64, (u64, u64)>;

/// One part's end: its machine, how it ended, and each of its workgroups' access set.
struct Part {
    machine: Machine,
    event: Option<Event>,
    sets: Vec<(u32, AccessSet)>,
}

/// Runs the launch of `program` with `options` to its end on up to `threads` threads
/// (see the module's documentation); the result, memory and statistics are those of
/// `Machine::new(program, options)?.run(None)`, whatever the thread count.
pub fn run_on_threads(
    program: &Program,
    options: LaunchOptions,
    threads: usize,
) -> Result<ThreadedRun, LaunchError> {
    // The launch as one thread runs it: its errors are the launch's, and it runs when
    // the parts cannot stand for it.
    let whole = Machine::new(program, options)?;
    let grid = whole.launch.grid;
    let n = threads.clamp(1, grid as usize) as u32;
    if n < 2 {
        return Ok(on_one_thread(whole, OneThread::Asked));
    }
    let bounds: Vec<(u32, u32)> = (0..n)
        .map(|t| {
            let cut = |t: u32| (grid as u64 * t as u64 / n as u64) as u32;
            (cut(t), cut(t + 1))
        })
        .collect();
    let parts: Vec<Result<Part, LaunchError>> = thread::scope(|scope| {
        let handles: Vec<_> = bounds
            .iter()
            .map(|&b| scope.spawn(move || run_part(program, options, b)))
            .collect();
        handles
            .into_iter()
            .map(|h| match h.join() {
                Ok(r) => r,
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    });
    let parts = parts.into_iter().collect::<Result<Vec<Part>, _>>()?;
    let why = if parts.iter().any(|p| p.event != Some(Event::Finished)) {
        Some(OneThread::Stopped)
    } else if options.max_instructions.is_some_and(|limit| {
        parts
            .iter()
            .map(|p| p.machine.stats.wave_instructions)
            .sum::<u64>()
            > limit
    }) {
        Some(OneThread::Budget)
    } else {
        first_shared_byte(&parts)
    };
    let mut parts = parts.into_iter();
    let first = match (why, parts.next()) {
        (None, Some(first)) => first,
        (why, _) => return Ok(on_one_thread(whole, why.unwrap_or(OneThread::Asked))),
    };
    let mut machine = first.machine;
    for part in parts {
        for (_, set) in &part.sets {
            copy_written(&part.machine, &mut machine, set);
        }
        add_stats(&mut machine.stats, &part.machine.stats);
    }
    Ok(ThreadedRun {
        machine,
        event: Some(Event::Finished),
        one_thread: None,
    })
}

/// Runs `whole` to its end on this thread, for reason `why`.
fn on_one_thread(mut whole: Machine, why: OneThread) -> ThreadedRun {
    let event = whole.run(None);
    ThreadedRun {
        machine: whole,
        event,
        one_thread: Some(why),
    }
}

/// Runs workgroups `bounds` of the launch to their end, noting each one's global bytes.
fn run_part(
    program: &Program,
    options: LaunchOptions,
    bounds: (u32, u32),
) -> Result<Part, LaunchError> {
    let mut machine = Machine::new_part(program, options, Some(bounds))?;
    machine.set_access_log(Some(AccessLog::new(vec![(Space::Global, 0, u64::MAX)])));
    let mut sets: Vec<(u32, AccessSet)> = (bounds.0..bounds.1)
        .map(|wg| (wg, AccessSet::new()))
        .collect();
    let event = loop {
        match machine.run(None) {
            Some(Event::WatchHit { wave, .. }) => {
                let wg = machine.waves.get(wave).map_or(bounds.0, |w| w.workgroup);
                let set = &mut sets[(wg - bounds.0) as usize].1;
                for a in machine.accesses.iter().flat_map(|l| &l.hits) {
                    note(set, a.addr, a.len, a.kind);
                }
            }
            e => break e,
        }
    };
    machine.set_access_log(None);
    Ok(Part {
        machine,
        event,
        sets,
    })
}

/// Adds `len` bytes at `addr`, accessed as `kind`, to `set`.
fn note(set: &mut AccessSet, addr: u64, len: u32, kind: AccessKind) {
    let (read, write) = match kind {
        AccessKind::Read => (true, false),
        AccessKind::Write => (false, true),
        AccessKind::ReadWrite => (true, true),
    };
    let end = addr.saturating_add(len as u64);
    let mut at = addr;
    while at < end {
        let line = at / LINE;
        let lo = at % LINE;
        let hi = (end - line * LINE).min(LINE);
        let bits = if hi - lo == 64 {
            u64::MAX
        } else {
            ((1u64 << (hi - lo)) - 1) << lo
        };
        let e = set.entry(line).or_default();
        if read {
            e.0 |= bits;
        }
        if write {
            e.1 |= bits;
        }
        at = line * LINE + hi;
    }
}

/// The first byte (lowest address) one workgroup writes and another reads or writes, if
/// any, with the two workgroups.
fn first_shared_byte(parts: &[Part]) -> Option<OneThread> {
    // Pass 1: each written byte's writer (two writers of a byte: shared at once).
    let mut writers: HashMap<u64, [u32; LINE as usize]> = HashMap::new();
    let mut found: Option<OneThread> = None;
    let mut keep = |f: OneThread| {
        let addr = |f: &OneThread| match f {
            OneThread::Shared { addr, .. } => *addr,
            _ => u64::MAX,
        };
        if found.as_ref().is_none_or(|old| addr(&f) < addr(old)) {
            found = Some(f);
        }
    };
    for (wg, set) in parts.iter().flat_map(|p| &p.sets) {
        for (&line, &(_, written)) in set {
            let slots = writers.entry(line).or_insert([u32::MAX; LINE as usize]);
            for b in bits(written) {
                match slots[b] {
                    u32::MAX => slots[b] = *wg,
                    w if w != *wg => keep(OneThread::Shared {
                        addr: line * LINE + b as u64,
                        writer: w,
                        other: *wg,
                    }),
                    _ => {}
                }
            }
        }
    }
    // Pass 2: bytes read by a workgroup other than their writer.
    for (wg, set) in parts.iter().flat_map(|p| &p.sets) {
        for (&line, &(read, _)) in set {
            let Some(slots) = writers.get(&line) else {
                continue;
            };
            for b in bits(read) {
                if slots[b] != u32::MAX && slots[b] != *wg {
                    keep(OneThread::Shared {
                        addr: line * LINE + b as u64,
                        writer: slots[b],
                        other: *wg,
                    });
                }
            }
        }
    }
    found
}

/// The indices of the set bits of `mask`, lowest first.
fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let b = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            b
        })
    })
}

/// Runs `run(1)`, ..., `run(n)` on up to `threads` threads and hands each result to
/// `each` in that order, whichever finished first, so what `each` builds never depends on
/// the number of threads. A thread runs at most `2 * threads` runs ahead of the oldest one
/// not handed over yet, which bounds the results held at once. The first error, in order,
/// stops the runs and is returned (the runs before it were handed over).
pub fn in_order<T: Send, E: Send>(
    n: u64,
    threads: usize,
    run: impl Fn(u64) -> Result<T, E> + Sync,
    mut each: impl FnMut(T),
) -> Result<(), E> {
    let threads = threads.min(usize::try_from(n).unwrap_or(usize::MAX));
    if threads <= 1 {
        for k in 1..=n {
            each(run(k)?);
        }
        return Ok(());
    }
    let ahead = 2 * threads as u64;
    // The runs taken and handed over so far; a thread waits on `merged` while it would
    // run too far ahead, and stops when `stopped` (an error ended the hand-over).
    struct Progress {
        taken: u64,
        merged: u64,
        stopped: bool,
    }
    let progress = std::sync::Mutex::new(Progress {
        taken: 0,
        merged: 0,
        stopped: false,
    });
    let merged = std::sync::Condvar::new();
    thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel::<(u64, Result<T, E>)>();
        for _ in 0..threads {
            let tx = tx.clone();
            let (progress, merged, run) = (&progress, &merged, &run);
            scope.spawn(move || loop {
                let k = {
                    let Ok(mut p) = progress.lock() else { return };
                    while !p.stopped && p.taken < n && p.taken >= p.merged + ahead {
                        p = match merged.wait(p) {
                            Ok(p) => p,
                            Err(_) => return,
                        };
                    }
                    if p.stopped || p.taken == n {
                        return;
                    }
                    p.taken += 1;
                    p.taken
                };
                if tx.send((k, run(k))).is_err() {
                    return;
                }
            });
        }
        drop(tx);
        let mut pending = std::collections::BTreeMap::new();
        let mut next = 1;
        for (k, result) in rx {
            pending.insert(k, result);
            let mut failed = None;
            while let Some(result) = pending.remove(&next) {
                next += 1;
                match result {
                    Ok(value) => each(value),
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            if let Ok(mut p) = progress.lock() {
                p.merged = next - 1;
                p.stopped = failed.is_some();
            }
            merged.notify_all();
            if let Some(e) = failed {
                return Err(e);
            }
        }
        Ok(())
    })
}

/// Copies the bytes `set` says were written from `from`'s global memory into `to`'s
/// (the same buffers at the same addresses), a run of consecutive bytes at a time.
fn copy_written(from: &Machine, to: &mut Machine, set: &AccessSet) {
    let mut bytes = [0u8; LINE as usize];
    for (&line, &(_, mut written)) in set {
        while written != 0 {
            let lo = written.trailing_zeros() as u64;
            let run = (written >> lo).trailing_ones() as u64;
            written &= if lo + run == 64 {
                0
            } else {
                !(((1u64 << run) - 1) << lo)
            };
            let addr = line * LINE + lo;
            let buf = &mut bytes[..run as usize];
            if from.global.read(addr, buf).is_some() {
                let _ = to.global.write(addr, buf);
            }
        }
    }
}

/// Adds one part's statistics to the total.
fn add_stats(total: &mut Stats, part: &Stats) {
    let Stats {
        wave_instructions,
        lane_ops,
        vector_lane_ops,
        waves_launched,
        workgroups_finished,
    } = *part;
    total.wave_instructions += wave_instructions;
    total.lane_ops += lane_ops;
    total.vector_lane_ops += vector_lane_ops;
    total.waves_launched += waves_launched;
    total.workgroups_finished += workgroups_finished;
}

#[cfg(test)]
mod tests {
    use super::in_order;

    /// Results are handed over in order whatever the number of threads and whichever run
    /// finishes first; the first error in order ends the hand-over.
    #[test]
    fn runs_are_handed_over_in_order() {
        for threads in [1, 2, 3, 8] {
            let mut seen = Vec::new();
            let slow_first = |k: u64| {
                // Early runs take longer, so later ones finish first.
                std::thread::sleep(std::time::Duration::from_micros(200 * (20 - k)));
                Ok::<u64, String>(k * 10)
            };
            assert_eq!(in_order(19, threads, slow_first, |v| seen.push(v)), Ok(()));
            assert_eq!(seen, (1..=19).map(|k| k * 10).collect::<Vec<_>>());
            let mut seen = Vec::new();
            let failing = |k: u64| if k == 5 { Err(k) } else { Ok(k) };
            assert_eq!(in_order(50, threads, failing, |v| seen.push(v)), Err(5));
            assert_eq!(seen, [1, 2, 3, 4], "{threads} threads");
        }
        assert_eq!(in_order(0, 4, Ok::<u64, ()>, |_| panic!("no run")), Ok(()));
    }
}
