//! Barrier misuse: lanes inactive at a barrier rejoining their wave (they skipped it),
//! waves of a workgroup released from barriers at different PCs, and barriers that can
//! never complete because waves of the workgroup exited or faulted.

use std::sync::Arc;

use super::{Finding, FindingKind, Sanitizer, Site, WaveAt};
use crate::code::{CodeWord, Decoded};
use crate::isa::op::BrCond;
use crate::isa::Op;
use crate::wave::{Wave, WaveState};

/// Per code word: whether a wave there can only go on to `end` through instructions that
/// do nothing lanes could share (`nop`, `wait.*`, `br`), so that lanes rejoining it there
/// rejoin no work. Exact: none of them branches on anything, so the path is the code's.
pub(super) fn idle_exits(code: &[CodeWord]) -> Arc<[bool]> {
    /// Where a wave goes from an instruction: its end, the next word, or work.
    enum Next {
        End,
        To(usize),
        Work,
    }
    let next = |i: usize| {
        let Some(CodeWord::Instr(d)) = code.get(i) else {
            return Next::Work;
        };
        match d.op {
            Op::End => Next::End,
            Op::Nop | Op::Wait(_) => Next::To(i + d.len as usize / 4),
            Op::Branch(BrCond::Always) => {
                usize::try_from(i as i64 + d.instr.imm).map_or(Next::Work, Next::To)
            }
            _ => Next::Work,
        }
    };
    // Per word: 0 not known yet, 1 on the path being followed (a loop: never ends),
    // 2 idle to `end`, 3 not.
    let mut state = vec![0u8; code.len()];
    let mut path = Vec::new();
    for start in 0..code.len() {
        let mut i = start;
        let idle = loop {
            match state.get(i) {
                Some(0) => {}
                Some(2) => break true,
                _ => break false,
            }
            state[i] = 1;
            path.push(i);
            match next(i) {
                Next::End => break true,
                Next::Work => break false,
                Next::To(j) => i = j,
            }
        };
        for p in path.drain(..) {
            state[p] = if idle { 2 } else { 3 };
        }
    }
    state.iter().map(|&x| x == 2).collect()
}

impl Sanitizer {
    /// After wave `w` executed `d` at `pc` with EXEC `exec`: the lanes a barrier leaves
    /// behind, and those of them EXEC brings back.
    #[inline]
    pub(super) fn barrier_skips(&mut self, w: usize, wave: &Wave, d: &Decoded, pc: u64, exec: u32) {
        let shadow = self.wave_shadow(w, wave);
        if matches!(d.op, Op::Barrier) {
            shadow.skipped |= !exec;
            shadow.skipped_at = pc;
            shadow.barrier_exec = exec;
        }
        let back = wave.exec & shadow.skipped;
        if back != 0 {
            shadow.skipped &= !wave.exec;
            let (barrier, barrier_exec) = (shadow.skipped_at, shadow.barrier_exec);
            // Lanes back only to end the wave (an epilogue restoring EXEC) rejoin no
            // work: they were masked off for good.
            let next = wave.pc;
            if next.is_multiple_of(4) && self.idle_exits.get((next / 4) as usize) == Some(&true) {
                return;
            }
            let mut f = Finding::new(FindingKind::BarrierDivergence, Site::of(wave, back, pc));
            // The barrier's side: the lanes that were active there (none when the wave
            // passed it with EXEC 0).
            f.other = Some(Site::of(wave, barrier_exec, barrier));
            self.push(f);
        }
    }

    /// The waves of a workgroup about to be released from a barrier (`last` arrived last;
    /// `epoch`: the barriers the workgroup completed, this one included): whether they
    /// waited at different barriers.
    pub(super) fn barrier_mismatch(&mut self, group: &[Wave], last: &Wave, epoch: u32) {
        let Some(first) = group.first() else {
            return;
        };
        // A waiting wave's PC is past its (32-bit) barrier.
        let at = |w: &Wave| w.pc.wrapping_sub(4);
        if group.iter().any(|w| at(w) != at(first)) {
            let side = |w: &Wave| Site {
                epoch: Some(epoch - 1),
                ..Site::of(w, w.exec, at(w))
            };
            let mut f = Finding::new(FindingKind::BarrierMismatch, side(last));
            f.other = group.iter().find(|w| at(w) != at(last)).map(side);
            f.waves = waves_at(group, at);
            self.push(f);
        }
    }
}

/// The finding for a barrier of `group` that can never complete: the first waiting wave,
/// and a wave that exited or faulted (`None` when no wave waits).
pub(super) fn barrier_deadlock(group: &[Wave]) -> Option<Finding> {
    let waiting = group.iter().find(|w| w.state == WaveState::AtBarrier)?;
    let site = |w: &Wave, pc: u64| Site::of(w, w.exec, pc);
    // Waiting and exited waves are past their (32-bit) barrier or `end`; a faulted
    // wave is at the instruction that faulted.
    let at = |w: &Wave| match w.state {
        WaveState::AtBarrier | WaveState::Exited => w.pc.wrapping_sub(4),
        _ => w.pc,
    };
    let mut f = Finding::new(FindingKind::BarrierDeadlock, site(waiting, at(waiting)));
    if let Some(gone) = group.iter().find(|w| !w.alive()) {
        f.other = Some(site(gone, at(gone)));
    }
    f.waves = waves_at(group, at);
    Some(f)
}

/// Every wave of a workgroup with its PC as `at` gives it, for barrier findings.
fn waves_at(group: &[Wave], at: impl Fn(&Wave) -> u64) -> Vec<WaveAt> {
    group
        .iter()
        .map(|w| WaveAt {
            wave: w.id,
            pc: at(w),
            state: w.state,
        })
        .collect()
}
