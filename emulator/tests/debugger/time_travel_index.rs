//! The time-travel index is exact: on random programs (loops, global, shared and scratch
//! loads, stores and atomics, shuffles, readlane/writelane, EXEC changes, barriers, faults,
//! several waves and workgroups, workgroups dispatched into reused slots), run by random
//! mixes of `continue`, `stepi` of one wave and `stepi all`, `last-write` and
//! `reverse-continue` find exactly what an unindexed search finds. The unindexed search
//! is an oracle of its own: a plain `Machine` stepped one instruction at a time from the
//! launch, each picked as the engine's commands picked it (`schedule` + `step_scheduled`
//! for a run, which is what the engine's record of `continue` replays; `step_scheduled`
//! of the debugger's wave for a step), noting for every instruction its wave, PC, EXEC,
//! the registers it changed and the memory it accessed (an access log over every byte of
//! every space).
//!
//! Also: writes that leave the value as it was are writes (the issue's regression cases),
//! interrupted searches and replays leave the machine at a consistent point, thinned
//! snapshots keep their (merged) summaries right, and the bugs these tests found stay
//! fixed.

use super::fixtures::*;
use wavedbg_emulator::code::Decoded;
use wavedbg_emulator::debug::{EngineError, LastWrite, WriteTarget};
use wavedbg_emulator::exec::{Access, AccessLog, Op};
use wavedbg_emulator::isa::{OperandKind, RegFile};
use wavedbg_emulator::machine::{CodeWord, Event};

// ---------------------------------------------------------------------------------------
// Random programs.

/// Bytes of shared memory per workgroup, scratch per lane, and the global buffer.
const SHARED: u64 = 256;
const SCRATCH_BYTES: u64 = 32;
const GLOBAL: u64 = 1024;

/// One random instruction (or two, for an EXEC change): `kind` picks what, `r` the
/// registers and variants, `imm` an immediate.
#[derive(Debug, Clone)]
struct Ins {
    kind: u8,
    r: [u8; 4],
    imm: u32,
}

fn ins() -> impl Strategy<Value = Ins> {
    let imm = prop_oneof![Just(0u32), Just(1u32), Just(3u32), 0u32..256, any::<u32>()];
    (0u8..100, any::<[u8; 4]>(), imm).prop_map(|(kind, r, imm)| Ins { kind, r, imm })
}

/// Data registers: v8-v15 and u8-u15 are written; v0 (lane id), v1-v3 (shared, scratch
/// and global offsets), u2 (wave index) and u3 (workgroup id) are read too.
fn vd(x: u8) -> u8 {
    8 + x % 8
}
fn vs(x: u8) -> u8 {
    [8, 9, 10, 11, 12, 13, 14, 15, 0, 1][x as usize % 10]
}
fn ud(x: u8) -> u8 {
    8 + x % 8
}
fn us(x: u8) -> u8 {
    [8, 9, 10, 11, 12, 13, 14, 15, 2, 3][x as usize % 10]
}

/// Offsets that keep every access inside its window: shared (v1 <= 124), scratch
/// (v2 <= 12) and global (v3 <= 508), for 4- and 8-byte accesses.
fn offset(space: u8, i: u8) -> u32 {
    match space % 3 {
        0 => [0, 4, 64, 120][i as usize % 4],
        1 => [0, 4, 8, 12][i as usize % 4],
        _ => [0, 4, 256, 504][i as usize % 4],
    }
}

/// The assembly of one random instruction. `uniform`: every wave of the workgroup runs it
/// (a barrier may go there); a fault goes only where some waves skip it.
fn render(i: &Ins, uniform: bool, out: &mut Vec<String>) {
    let [a, b, c, d] = i.r;
    let imm = i.imm;
    let line = match i.kind {
        0..=14 => {
            const OPS: [&str; 8] = [
                "vadd.u32", "vsub.u32", "vmul.u32", "vand", "vor", "vxor", "vmax.u32", "vmin.i32",
            ];
            if a % 9 == 8 {
                format!("vmov v{}, v{}", vd(b), vs(c))
            } else {
                format!("{} v{}, v{}, v{}", OPS[a as usize % 8], vd(b), vs(c), vs(d))
            }
        }
        15..=24 => match a % 5 {
            0 => format!("vmovi v{}, {imm}", vd(b)),
            1 => format!("vaddi.u32 v{}, v{}, {imm}", vd(b), vs(c)),
            2 => format!("vandi v{}, v{}, {imm}", vd(b), vs(c)),
            3 => format!("vxori v{}, v{}, {imm}", vd(b), vs(c)),
            _ => format!("vshri v{}, v{}, {}", vd(b), vs(c), imm & 31),
        },
        25..=28 => format!("vmov.u v{}, u{}", vd(b), us(c)),
        29..=34 => match a % 6 {
            0 => format!("umovi u{}, {imm}", ud(b)),
            1 => format!("uaddi u{}, u{}, {imm}", ud(b), us(c)),
            2 => format!("uandi u{}, u{}, {imm}", ud(b), us(c)),
            3 => format!("uadd u{}, u{}, u{}", ud(b), us(c), us(d)),
            4 => format!("uxor u{}, u{}, u{}", ud(b), us(c), us(d)),
            _ => format!("umax.u32 u{}, u{}, u{}", ud(b), us(c), us(d)),
        },
        35..=37 => format!("vcmp.lt.u32 u{}, v{}, v{}", ud(b), vs(c), vs(d)),
        38..=41 => {
            out.push(format!("umovi u17, {imm:#x}"));
            if a.is_multiple_of(2) {
                "exec.and.save u18, u17".to_string()
            } else {
                "exec.set u17".to_string()
            }
        }
        42..=47 => match a % 5 {
            0 => format!("shfl.xor.vi v{}, v{}, {}", vd(b), vs(c), d % 32),
            1 => format!("shfl.idx v{}, v{}, v{}", vd(b), vs(c), vs(d)),
            2 => format!("shfl.bcast.vi v{}, v{}, {}", vd(b), vs(c), d % 32),
            3 => format!("shfl.down.vi v{}, v{}, {}", vd(b), vs(c), d % 32),
            _ => format!("quad.swizzle v{}, v{}, {d}", vd(b), vs(c)),
        },
        48..=50 => format!("readlane u{}, v{}, {}", ud(b), vs(c), d % 32),
        51..=54 => {
            const OPS: [&str; 4] = ["readfirst", "ballot", "xred.add.u32", "vote.any"];
            format!("{} u{}, v{}", OPS[a as usize % 4], ud(b), vs(c))
        }
        55..=58 => format!("writelane v{}, u{}, {}", vd(b), us(c), d % 32),
        59..=64 => match a % 3 {
            0 => format!("vandi v1, v{}, 0x7c", vs(b)),
            1 => format!("vandi v2, v{}, 0xc", vs(b)),
            _ => format!("vandi v3, v{}, 0x1fc", vs(b)),
        },
        65..=84 => {
            let load = i.kind < 75;
            let (op, wide) = (if load { "ld" } else { "st" }, b % 4 == 0);
            let (size, reg) = if wide {
                let r = 8 + c % 7;
                ("b64", format!("v[{}:{}]", r, r + 1))
            } else if load {
                ("b32", format!("v{}", vd(c)))
            } else {
                ("b32", format!("v{}", vs(c)))
            };
            let off = offset(a, d);
            match a % 3 {
                0 => format!("{op}.shared.{size} {reg}, v1, {off}"),
                1 => format!("{op}.scratch.{size} {reg}, v2, {off}"),
                _ => format!("{op}.ubase.{size} {reg}, u[0:1], v3, {off}"),
            }
        }
        85..=91 => {
            const OPS: [&str; 4] = ["add.u32", "max.u32", "xchg.b32", "or.b32"];
            let op = OPS[b as usize % 4];
            let rtn = if c.is_multiple_of(2) { ".rtn" } else { "" };
            let reg = if rtn.is_empty() { vs(d) } else { vd(d) };
            if a.is_multiple_of(2) {
                format!("atom.shared.{op}{rtn} v{reg}, v1, {}", offset(0, c / 2))
            } else {
                format!(
                    "atom.ubase.{op}{rtn} v{reg}, u[0:1], v3, {}",
                    offset(2, c / 2)
                )
            }
        }
        92..=93 => format!("uld.b32 u{}, u[0:1], {}", ud(b), (imm % 256) * 4),
        94..=95 => "wait.all".to_string(),
        96..=98 if uniform => "barrier".to_string(),
        // Out of the shared window: the wave faults (and its workgroup's barriers then
        // deadlock).
        99 if !uniform => "ld.shared.b32 v8, v1, 4000".to_string(),
        _ => "nop".to_string(),
    };
    out.push(line);
}

/// A block of the program: straight-line code, a loop every wave runs, or code some waves
/// skip (by wave index or workgroup).
#[derive(Debug, Clone)]
struct Block {
    kind: u8,
    body: Vec<Ins>,
}

fn block() -> impl Strategy<Value = Block> {
    (0u8..10, prop::collection::vec(ins(), 2..12)).prop_map(|(kind, body)| Block { kind, body })
}

#[derive(Debug, Clone)]
struct Spec {
    waves_per_group: u32,
    grid: u32,
    resident: u32,
    seed: u64,
    quantum: u32,
    blocks: Vec<Block>,
    /// About how many instructions the launch runs (the loops' trip counts follow).
    target: u64,
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        1u32..=3,
        1u32..=4,
        1u32..=4,
        prop::sample::select(vec![0u64, 1, 9]),
        1u32..12,
        prop::collection::vec(block(), 2..6),
        120_000u64..500_000,
    )
        .prop_map(
            |(waves_per_group, grid, resident, seed, quantum, blocks, target)| Spec {
                waves_per_group,
                grid,
                resident,
                seed,
                quantum,
                blocks,
                target,
            },
        )
}

impl Spec {
    fn options(&self) -> LaunchOptions {
        LaunchOptions {
            seed: self.seed,
            quantum: self.quantum,
            resident_workgroups: self.resident,
            ..LaunchOptions::default()
        }
    }

    fn source(&self) -> String {
        let waves = (self.waves_per_group * self.grid) as u64;
        let mut lines: Vec<String> = vec![
            ".kernel rnd".into(),
            format!(".workgroup {}", 32 * self.waves_per_group),
            format!(".grid {}", self.grid),
            format!(".shared {SHARED}"),
            format!(".scratch {SCRATCH_BYTES}"),
            format!(".buffer b, {GLOBAL}"),
            ".arg u[0:1], b".into(),
            "uwaveid u2".into(),
            "uwgid u3".into(),
            "vlaneid v0".into(),
            "vshli v1, v0, 2".into(),
            "vandi v2, v1, 12".into(),
            "vmov v3, v1".into(),
            "exec.get u16".into(),
            "vmov.u v8, u2".into(),
            "vadd.u32.u v9, v0, u3".into(),
            "umovi u8, 5".into(),
        ];
        let loops = self
            .blocks
            .iter()
            .enumerate()
            .filter(|(i, b)| (5..=7).contains(&b.kind) || *i == 0)
            .count()
            .max(1) as u64;
        for (i, b) in self.blocks.iter().enumerate() {
            let mut body = Vec::new();
            // The first block loops, whatever it is: every launch runs long.
            let kind = if i == 0 { 5 } else { b.kind };
            let uniform = kind < 8;
            for x in &b.body {
                render(x, uniform, &mut body);
            }
            body.push("exec.set u16".into());
            match kind {
                0..=4 => lines.extend(body),
                5..=7 => {
                    let per_trip = (body.len() as u64 + 2) * waves * loops;
                    let trips = (self.target / per_trip).clamp(1, 20_000);
                    lines.push(format!("umovi u20, {trips}"));
                    lines.push(format!("loop{i}:"));
                    lines.extend(body);
                    lines.push("uaddi u20, u20, -1".into());
                    lines.push(format!("br.unz u20, loop{i}"));
                }
                _ => {
                    let cond = ["br.uz u2", "br.unz u2", "br.uz u3", "br.unz u3"]
                        [b.body[0].r[0] as usize % 4];
                    lines.push(format!("{cond}, skip{i}"));
                    lines.extend(body);
                    lines.push(format!("skip{i}:"));
                }
            }
        }
        lines.push("wait.all".into());
        lines.push("end".into());
        lines.join("\n") + "\n"
    }
}

// ---------------------------------------------------------------------------------------
// The oracle.

/// One instruction of the launch, as a plain machine stepped it.
#[derive(Debug, Clone, Copy)]
struct Step {
    wave: u32,
    /// Picked by the scheduler (`Machine::schedule`), not by the debugger.
    scheduled: bool,
    id: u32,
    workgroup: u32,
    pc: u32,
    exec: u32,
    faulted: bool,
    /// The registers whose value it changed: `Oracle::changes[changed.0..changed.1]`.
    changed: (u32, u32),
    /// Its memory accesses (every byte of every space is watched):
    /// `Oracle::accesses[accessed.0..accessed.1]`.
    accessed: (u32, u32),
}

/// The registers an instruction writes (file, first, count), and writelane's lane.
type RegWrites = (Option<(RegFile, u8, u8)>, Option<u8>);

/// The registers an instruction writes, from its table row: the destination operand
/// (for a `.rtn` atomic, the one or two registers it returns; none for stores and other
/// atomics), and `writelane`'s lane.
fn writes_of(d: &Decoded) -> RegWrites {
    use wavedbg_emulator::isa::Slot;
    let def = d.instr.def();
    let rd = def.operand(Slot::Rd).and_then(|o| match o.kind {
        OperandKind::Reg { file, count } => Some((file, d.instr.get(Slot::Rd) as u8, count)),
        _ => None,
    });
    match d.op {
        Op::Store { .. } => (None, None),
        Op::Atomic { rtn, wide, .. } => (
            rtn.then_some(rd)
                .flatten()
                .map(|(f, r, _)| (f, r, 1 + wide as u8)),
            None,
        ),
        Op::Writelane => (rd, Some(d.instr.get(Slot::Rs1) as u8)),
        _ => (rd, None),
    }
}

/// How the engine drove the launch, in order: each part's kind and the instructions it
/// executed (the last part, to the end, is a run).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seg {
    /// Every wave as `continue` runs them: the scheduler picks.
    Run(u64),
    /// Wave index `.0` alone (`stepi` with scheduler-locking).
    Alone(usize, u64),
    /// Rounds of `stepi all`: the waves ready at a round's start, in index order.
    Rounds(u64),
}

/// Picks the wave of each instruction as the engine's commands did.
struct Picker<'a> {
    segs: &'a [Seg],
    i: usize,
    done: u64,
    round: std::collections::VecDeque<usize>,
}

impl<'a> Picker<'a> {
    fn new(segs: &'a [Seg]) -> Self {
        Picker {
            segs,
            i: 0,
            done: 0,
            round: Default::default(),
        }
    }

    /// The next instruction's wave and whether the scheduler picked it; `None`: nothing
    /// more runs.
    fn next(&mut self, m: &mut Machine) -> Option<(usize, bool)> {
        loop {
            let (n, pick) = match self.segs.get(self.i) {
                None => return m.schedule().ok().map(|w| (w, true)),
                Some(&Seg::Run(n)) => (n, None),
                Some(&Seg::Alone(w, n)) => (n, Some(w)),
                Some(&Seg::Rounds(n)) => {
                    if self.done < n && self.round.is_empty() {
                        self.round = (0..m.waves.len())
                            .filter(|&w| m.waves[w].state == WaveState::Ready)
                            .collect();
                    }
                    (n, self.round.pop_front())
                }
            };
            if self.done >= n {
                self.i += 1;
                self.done = 0;
                self.round.clear();
                continue;
            }
            self.done += 1;
            return match pick {
                Some(w) => Some((w, false)),
                None => m.schedule().ok().map(|w| (w, true)),
            };
        }
    }
}

/// Instructions between the oracle's checkpoints.
const CHECKPOINT: usize = 2048;

/// A launch stepped one instruction at a time, everything noted.
struct Oracle {
    steps: Vec<Step>,
    /// Registers changed: file, number, lanes (0 for uniform).
    changes: Vec<(RegFile, u8, u32)>,
    accesses: Vec<Access>,
    /// The machine before instruction `k * CHECKPOINT`.
    checkpoints: Vec<Machine>,
    /// Per code word: the registers written, and writelane's lane.
    writes: Vec<RegWrites>,
    base: u64,
}

fn full_log(base: u64) -> AccessLog {
    AccessLog::new(vec![
        (Space::Global, base, base + GLOBAL),
        (Space::Shared, 0, SHARED),
        (Space::Scratch, 0, SCRATCH_BYTES),
    ])
}

impl Oracle {
    fn launch(p: &Program, options: LaunchOptions) -> Machine {
        let mut m = Machine::new(p, options).expect("launch");
        m.set_break_is_fault(false);
        let base = m.buffer_base("b").unwrap_or(0);
        m.set_access_log(Some(full_log(base)));
        m
    }

    fn record(p: &Program, options: LaunchOptions, segs: &[Seg]) -> Oracle {
        let mut m = Self::launch(p, options);
        let mut picker = Picker::new(segs);
        let mut o = Oracle {
            steps: Vec::new(),
            changes: Vec::new(),
            accesses: Vec::new(),
            checkpoints: Vec::new(),
            writes: m
                .code()
                .iter()
                .map(|w| match w {
                    CodeWord::Instr(d) => writes_of(d),
                    _ => (None, None),
                })
                .collect(),
            base: m.buffer_base("b").unwrap_or(0),
        };
        let mut vbefore: Vec<[u32; 32]> = Vec::new();
        loop {
            if o.checkpoints.len() * CHECKPOINT == o.steps.len() {
                o.checkpoints.push(m.clone());
            }
            let Some((w, scheduled)) = picker.next(&mut m) else {
                break;
            };
            let count = m.stats.wave_instructions;
            assert_eq!(count, o.steps.len() as u64, "one instruction per step");
            let wave = &m.waves[w];
            let (id, workgroup, pc, exec) = (wave.id, wave.workgroup, wave.pc, wave.exec);
            let nv = wave.v.allocated();
            vbefore.clear();
            vbefore.extend((0..nv).map(|r| wave.v[r]));
            let ubefore = wave.u;
            let event = m.step_scheduled(w);
            assert_eq!(m.stats.wave_instructions, count + 1, "{event:?}");
            let faulted = matches!(&event, Some(Event::Fault(f)) if f.wave == id);
            let after = &m.waves[w];
            let first_change = o.changes.len() as u32;
            if after.id == id {
                for r in 0..nv.max(after.v.allocated()) {
                    let old = vbefore.get(r).unwrap_or(&[0; 32]);
                    let new = &after.v[r];
                    if old != new {
                        let lanes = (0..32)
                            .filter(|&l| old[l] != new[l])
                            .fold(0, |m, l| m | 1 << l);
                        o.changes.push((RegFile::Vector, r as u8, lanes));
                    }
                }
                if ubefore != after.u {
                    for (r, (a, b)) in ubefore.iter().zip(&after.u).enumerate() {
                        if a != b {
                            o.changes.push((RegFile::Uniform, r as u8, 0));
                        }
                    }
                }
            }
            let first_access = o.accesses.len() as u32;
            if let Some(log) = m.access_log() {
                o.accesses.extend_from_slice(&log.hits);
            }
            o.steps.push(Step {
                wave: w as u32,
                scheduled,
                id,
                workgroup,
                pc: pc as u32,
                exec,
                faulted,
                changed: (first_change, o.changes.len() as u32),
                accessed: (first_access, o.accesses.len() as u32),
            });
        }
        o
    }

    fn changed(&self, s: &Step) -> &[(RegFile, u8, u32)] {
        &self.changes[s.changed.0 as usize..s.changed.1 as usize]
    }

    fn accessed(&self, s: &Step) -> &[Access] {
        &self.accesses[s.accessed.0 as usize..s.accessed.1 as usize]
    }

    fn end(&self) -> u64 {
        self.steps.len() as u64
    }

    /// The machine when the launch had executed `count` instructions.
    fn at(&self, count: u64) -> Machine {
        let mut m = self.checkpoints[count as usize / CHECKPOINT].clone();
        while m.stats.wave_instructions < count {
            self.step(&mut m);
        }
        m
    }

    /// Steps `m` by its next instruction, as the launch did.
    fn step(&self, m: &mut Machine) -> (usize, Option<Event>) {
        let s = &self.steps[m.stats.wave_instructions as usize];
        if s.scheduled {
            assert_eq!(m.schedule(), Ok(s.wave as usize), "the same pick");
        }
        (s.wave as usize, m.step_scheduled(s.wave as usize))
    }

    /// `last-write` of a register, unindexed: the last instruction of the wave before
    /// `before` that writes it in the lane (the table says it writes the register and the
    /// lane was active, or is writelane's; any lane for a uniform register) or changed it,
    /// and did not fault.
    fn last_register_write(&self, target: &WriteTarget, before: u64) -> Option<LastWrite> {
        let (wave, file, reg, lane) = match *target {
            WriteTarget::Vector { wave, reg, lane } => (wave, RegFile::Vector, reg, lane),
            WriteTarget::Uniform { wave, reg } => (wave, RegFile::Uniform, reg, None),
            WriteTarget::Memory { .. } | WriteTarget::Exec { .. } => unreachable!(),
        };
        let upto = before.min(self.end()) as usize;
        for (i, s) in self.steps[..upto].iter().enumerate().rev() {
            if s.id != wave || s.faulted {
                continue;
            }
            let (regs, writelane) = self.writes[(s.pc / 4) as usize];
            let listed = regs.is_some_and(|(f, first, n)| {
                f == file && (first as u32..first as u32 + n as u32).contains(&(reg as u32))
            });
            let wrote = match (listed, writelane, file) {
                (false, _, _) => 0,
                (true, _, RegFile::Uniform) => u32::MAX,
                (true, Some(l), _) => 1 << (l & 31),
                (true, None, _) => s.exec,
            };
            let changed = self
                .changed(s)
                .iter()
                .filter(|c| c.0 == file && c.1 == reg)
                .fold(0, |m, c| {
                    m | if file == RegFile::Uniform {
                        u32::MAX
                    } else {
                        c.2
                    }
                });
            let lanes = match (file, lane) {
                (RegFile::Uniform, _) => ((wrote | changed) != 0).then_some(0),
                (_, Some(l)) => ((wrote | changed) >> (l & 31) & 1 == 1).then_some(1 << (l & 31)),
                (_, None) => Some(wrote | changed).filter(|&l| l != 0),
            };
            let Some(lanes) = lanes else { continue };
            let value = |m: &Machine| -> Vec<u8> {
                let w = &m.waves[s.wave as usize];
                match (file, lane) {
                    (RegFile::Uniform, _) => w.u[reg as usize].to_le_bytes().to_vec(),
                    (_, Some(l)) => w.v[reg as usize][l as usize].to_le_bytes().to_vec(),
                    (_, None) => w.v[reg as usize]
                        .iter()
                        .flat_map(|x| x.to_le_bytes())
                        .collect(),
                }
            };
            let (m0, m1) = (self.at(i as u64), self.at(i as u64 + 1));
            return Some(LastWrite {
                count: i as u64,
                wave: s.id,
                workgroup: s.workgroup,
                lanes,
                pc: s.pc as u64,
                old: value(&m0),
                new: value(&m1),
            });
        }
        None
    }

    /// `last-write` of memory, unindexed: the last instruction before `before` with a
    /// write access (a store or an atomic, whatever it wrote) to the range, in the
    /// workgroup (shared) or the wave's lane (scratch); the range's bytes before and after
    /// it (up to 16).
    fn last_memory_write(&self, target: &WriteTarget, before: u64) -> Option<LastWrite> {
        let WriteTarget::Memory {
            space,
            addr,
            len,
            workgroup,
            wave,
            lane,
        } = *target
        else {
            unreachable!()
        };
        let upto = before.min(self.end()) as usize;
        for (i, s) in self.steps[..upto].iter().enumerate().rev() {
            let lanes = self
                .accessed(s)
                .iter()
                .filter(|a| {
                    a.kind != AccessKind::Read
                        && a.space == space
                        && a.addr < addr + len
                        && a.addr + a.len as u64 > addr
                        && match space {
                            Space::Global => true,
                            Space::Shared => s.workgroup == workgroup,
                            Space::Scratch => s.id == wave && a.lane == lane,
                        }
                })
                .fold(0u32, |m, a| m | 1 << a.lane);
            if lanes == 0 {
                continue;
            }
            let n = len.min(16) as usize;
            let bytes = |m: &Machine| {
                let mut b = vec![0; n];
                m.read_space(space, s.wave as usize, lane, addr, &mut b)
                    .expect("inside");
                b
            };
            return Some(LastWrite {
                count: i as u64,
                wave: s.id,
                workgroup: s.workgroup,
                lanes,
                pc: s.pc as u64,
                old: bytes(&self.at(i as u64)),
                new: bytes(&self.at(i as u64 + 1)),
            });
        }
        None
    }
}

/// Everything that decides what the machine does next (time_travel.rs's comparison).
fn same(a: &Machine, b: &Machine) -> Result<(), String> {
    if a.stats != b.stats {
        return Err(format!("stats {:?} vs {:?}", a.stats, b.stats));
    }
    if a.scheduler_state() != b.scheduler_state() {
        return Err(format!(
            "scheduler {:?} vs {:?}",
            a.scheduler_state(),
            b.scheduler_state()
        ));
    }
    if a.waves != b.waves {
        let i = (0..a.waves.len()).find(|&i| a.waves.get(i) != b.waves.get(i));
        return Err(format!("wave index {i:?} differs"));
    }
    if a.slots != b.slots || a.global != b.global {
        return Err("memory differs".into());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Breakpoints and watchpoints, as the oracle evaluates them.

/// A condition the oracle evaluates itself: `(vR & 3) == K` (per lane) or `(uR & 1) == K`.
#[derive(Debug, Clone, Copy)]
enum Cond {
    Vector(u8, u32),
    Uniform(u8, u32),
}

impl Cond {
    fn text(self) -> String {
        match self {
            Cond::Vector(r, k) => format!("(v{r} & 3) == {k}"),
            Cond::Uniform(r, k) => format!("(u{r} & 1) == {k}"),
        }
    }

    fn holds(self, w: &wavedbg_emulator::wave::Wave, lane: u8) -> bool {
        match self {
            Cond::Vector(r, k) => w.v[r as usize][lane as usize] & 3 == k,
            Cond::Uniform(r, k) => w.u[r as usize] & 1 == k,
        }
    }
}

fn condition() -> impl Strategy<Value = Option<Cond>> {
    prop_oneof![
        2 => Just(None),
        1 => (8u8..12, 0u32..4).prop_map(|(r, k)| Some(Cond::Vector(r, k))),
        1 => (8u8..12, 0u32..2).prop_map(|(r, k)| Some(Cond::Uniform(r, k))),
    ]
}

#[derive(Debug, Clone)]
struct Bp {
    /// Picks an instruction of the code, or (`ran`) of the instructions the launch ran.
    at: prop::sample::Index,
    ran: bool,
    wave: Option<u32>,
    workgroup: Option<u32>,
    lane: Option<u8>,
    cond: Option<Cond>,
}

fn breakpoint() -> impl Strategy<Value = Bp> {
    (
        (any::<prop::sample::Index>(), any::<bool>()),
        prop::option::weighted(0.3, 0u32..12),
        prop::option::weighted(0.2, 0u32..4),
        prop::option::weighted(0.2, 0u8..32),
        condition(),
    )
        .prop_map(|((at, ran), wave, workgroup, lane, cond)| Bp {
            at,
            ran,
            wave,
            workgroup,
            lane,
            cond,
        })
}

#[derive(Debug, Clone)]
struct Wp {
    kind: WatchKind,
    /// 0 global, 1 shared of a workgroup, 2 shared of every workgroup, 3 scratch; 4-9:
    /// around an access the instruction at `pick` (or the next one that has one) made.
    scope: u8,
    pick: prop::sample::Index,
    instance: (u32, u8),
    addr: u64,
    len: u64,
    cond: Option<Cond>,
}

fn watchpoint() -> impl Strategy<Value = Wp> {
    (
        prop::sample::select(vec![WatchKind::Write, WatchKind::Read, WatchKind::Access]),
        (0u8..10, any::<prop::sample::Index>()),
        (0u32..12, 0u8..32),
        0u64..1024,
        prop::sample::select(vec![1u64, 2, 4, 8, 16, 64]),
        condition(),
    )
        .prop_map(|(kind, (scope, pick), instance, addr, len, cond)| Wp {
            kind,
            scope,
            pick,
            instance,
            addr,
            len,
            cond,
        })
}

/// A watchpoint as the engine takes it, inside the launch's windows.
fn watch_scope(w: &Wp, o: &Oracle, waves: u32, grid: u32) -> (Scope, u64, u64) {
    let base = o.base;
    let end = o.end() as usize;
    let start = w.pick.index(end.max(1));
    let access = (w.scope >= 4 && end > 0)
        .then(|| {
            (start..end).chain(0..start).find_map(|i| {
                let s = &o.steps[i];
                o.accessed(s).first().map(|a| (s, *a))
            })
        })
        .flatten();
    let Some((s, a)) = access else {
        return match w.scope % 4 {
            0 => {
                // Inside the buffer: a watched range must exist.
                let len = w.len.min(GLOBAL);
                (Scope::Global, base + w.addr % (GLOBAL - len + 1), len)
            }
            1 | 2 => {
                let len = w.len.min(SHARED);
                let scope = Scope::Shared((w.scope == 1).then_some(w.instance.0 % grid));
                (scope, w.addr % (SHARED - len + 1), len)
            }
            _ => {
                let len = w.len.min(SCRATCH_BYTES);
                let scope = Scope::Scratch {
                    wave: w.instance.0 % waves,
                    lane: w.instance.1,
                };
                (scope, w.addr % (SCRATCH_BYTES - len + 1), len)
            }
        };
    };
    let size = window(a.space);
    let len = w.len.min(size);
    let offset = a.addr - if a.space == Space::Global { base } else { 0 };
    let addr = (offset.saturating_sub(len - 1) + w.addr % (len + a.len as u64)).min(size - len);
    let scope = match a.space {
        Space::Global => Scope::Global,
        Space::Shared => Scope::Shared(w.scope.is_multiple_of(2).then_some(s.workgroup)),
        Space::Scratch => Scope::Scratch {
            wave: s.id,
            lane: a.lane,
        },
    };
    let addr = if a.space == Space::Global {
        base + addr
    } else {
        addr
    };
    (scope, addr, len)
}

/// An armed breakpoint or watchpoint, with the engine's number.
struct ArmedBp {
    id: u32,
    addr: u64,
    filters: Filters,
    cond: Option<Cond>,
}

struct ArmedWp {
    id: u32,
    kind: WatchKind,
    scope: Scope,
    addr: u64,
    len: u64,
    cond: Option<Cond>,
}

/// Every point where `reverse-continue` may stop, in execution order: (count before the
/// instruction, wave id, PC, reason); at one instruction a breakpoint (before it) comes
/// before a watchpoint (after it).
fn stop_points(o: &Oracle, bps: &[ArmedBp], wps: &[ArmedWp]) -> Vec<(u64, u32, u64, StopReason)> {
    let mut m = o.checkpoints[0].clone();
    let mut out = Vec::new();
    while m.stats.wave_instructions < o.end() {
        let count = m.stats.wave_instructions;
        let w = o.steps[count as usize].wave as usize;
        let wave = &m.waves[w];
        for b in bps.iter().filter(|b| b.addr == wave.pc) {
            let f = &b.filters;
            if f.wave.is_some_and(|x| x != wave.id)
                || f.workgroup.is_some_and(|g| g != wave.workgroup)
            {
                continue;
            }
            let mut candidates = wave.exec;
            if let Some(l) = f.lane {
                candidates &= 1 << l;
                if candidates == 0 {
                    continue;
                }
            }
            let lanes = match b.cond {
                None => Some(candidates),
                Some(c @ Cond::Uniform(..)) => c.holds(wave, 0).then_some(candidates),
                Some(c @ Cond::Vector(..)) => {
                    let l = (0..32u8)
                        .filter(|&l| candidates >> l & 1 == 1 && c.holds(wave, l))
                        .fold(0, |m, l| m | 1 << l);
                    (l != 0).then_some(l)
                }
            };
            if let Some(lanes) = lanes {
                let reason = StopReason::Breakpoint { id: b.id, lanes };
                out.push((count, wave.id, wave.pc, reason));
                break;
            }
        }
        let (id, pc, workgroup) = (wave.id, wave.pc, wave.workgroup);
        let view = |m: &Machine, x: &ArmedWp| {
            let lane = match x.scope {
                Scope::Scratch { lane, .. } => lane,
                _ => 0,
            };
            let mut b = vec![0; x.len as usize];
            m.read_space(x.scope.space(), w, lane, x.addr, &mut b)
                .expect("inside");
            b
        };
        let olds: Vec<Vec<u8>> = wps.iter().map(|x| view(&m, x)).collect();
        let (_, event) = o.step(&mut m);
        // `brk` and faults stop there, after the instruction, in both directions.
        let trap = match event {
            Some(Event::Fault(f)) => Some(StopReason::Fault(f)),
            Some(Event::Break { .. }) => Some(StopReason::BreakInstruction),
            _ => None,
        };
        if let Some(reason) = trap {
            out.push((m.stats.wave_instructions, id, m.waves[w].pc, reason));
            continue;
        }
        let accesses = m.access_log().map(|l| l.hits.clone()).unwrap_or_default();
        let mut hits = Vec::new();
        for (x, old) in wps.iter().zip(olds) {
            let mine: Vec<&Access> = accesses
                .iter()
                .filter(|a| {
                    a.space == x.scope.space()
                        && a.addr < x.addr + x.len
                        && a.addr + a.len as u64 > x.addr
                        && x.scope.covers(workgroup, id, a.lane)
                        && x.kind.triggered_by(a.kind)
                })
                .collect();
            let lanes = mine.iter().fold(0u32, |m, a| m | 1 << a.lane);
            if lanes == 0 {
                continue;
            }
            if let Some(c) = x.cond {
                if !c.holds(&m.waves[w], lanes.trailing_zeros() as u8) {
                    continue;
                }
            }
            let access = if mine.iter().any(|a| a.kind == AccessKind::ReadWrite) {
                AccessKind::ReadWrite
            } else if mine.iter().any(|a| a.kind == AccessKind::Write) {
                AccessKind::Write
            } else {
                AccessKind::Read
            };
            hits.push(WatchHit {
                id: x.id,
                kind: x.kind,
                space: x.scope.space(),
                addr: x.addr,
                len: x.len,
                lanes,
                pc,
                access,
                old,
                new: view(&m, x),
            });
        }
        if !hits.is_empty() {
            out.push((count, id, pc, StopReason::Watchpoint(hits)));
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// The engine side.

/// Runs every wave as `continue` does until nothing more runs.
fn run_to_end(e: &mut Engine) {
    loop {
        let before = e.machine().stats.wave_instructions;
        let stop = e.continue_all();
        if stop.reason == StopReason::Finished || e.machine().stats.wave_instructions == before {
            break;
        }
    }
}

/// A random `last-write` question: which target, and before which point.
#[derive(Debug, Clone)]
struct Question {
    /// 0-4: a random target; 5-9: a target the instruction at `pick` (or the next one
    /// that has one) wrote.
    what: u8,
    wave: u32,
    reg: u8,
    lane: Option<u8>,
    addr: u64,
    len: u64,
    pick: prop::sample::Index,
    before: prop::sample::Index,
    /// How many times to walk further back from the answer.
    again: u8,
}

fn question() -> impl Strategy<Value = Question> {
    (
        (0u8..10, 0u32..12, any::<u8>(), prop::option::of(0u8..32)),
        0u64..1024,
        prop::sample::select(vec![1u64, 2, 4, 8, 16, 64]),
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
        0u8..3,
    )
        .prop_map(
            |((what, wave, reg, lane), addr, len, pick, before, again)| Question {
                what,
                wave,
                reg,
                lane,
                addr,
                len,
                pick,
                before,
                again,
            },
        )
}

/// The size of a space's window (global: the buffer).
fn window(space: Space) -> u64 {
    match space {
        Space::Global => GLOBAL,
        Space::Shared => SHARED,
        Space::Scratch => SCRATCH_BYTES,
    }
}

impl Question {
    /// The target and the count to search before.
    fn ask(&self, o: &Oracle, waves: u32, grid: u32) -> (WriteTarget, u64) {
        let end = o.end();
        let random = (
            self.random(o.base, waves, grid),
            self.before.index(end as usize + 1) as u64,
        );
        if self.what < 5 || end == 0 {
            return random;
        }
        let start = self.pick.index(end as usize);
        let memory = self.what >= 7;
        let found = (start..end as usize).chain(0..start).find_map(|i| {
            let s = &o.steps[i];
            let target = if memory {
                let a = o
                    .accessed(s)
                    .iter()
                    .filter(|a| a.kind != AccessKind::Read)
                    .nth(0)?;
                let size = window(a.space);
                let len = self.len.min(size);
                // A range that meets the access (or starts right after it).
                let lo = (a.addr - if a.space == Space::Global { o.base } else { 0 })
                    .saturating_sub(len - 1);
                let addr = (lo + self.addr % (len + a.len as u64)).min(size - len);
                WriteTarget::Memory {
                    space: a.space,
                    addr: if a.space == Space::Global {
                        o.base + addr
                    } else {
                        addr
                    },
                    len,
                    workgroup: s.workgroup,
                    wave: s.id,
                    lane: a.lane,
                }
            } else {
                let (file, reg) = match o.writes[(s.pc / 4) as usize].0 {
                    Some((f, r, n)) => (f, r + self.reg % n),
                    None => o.changed(s).first().map(|c| (c.0, c.1))?,
                };
                match file {
                    RegFile::Uniform => WriteTarget::Uniform { wave: s.id, reg },
                    RegFile::Vector => WriteTarget::Vector {
                        wave: s.id,
                        reg,
                        lane: self.lane,
                    },
                }
            };
            Some((i as u64, target))
        });
        match found {
            Some((i, target)) => (target, i + 1 + self.before.index((end - i) as usize) as u64),
            None => random,
        }
    }

    fn random(&self, base: u64, waves: u32, grid: u32) -> WriteTarget {
        let wave = self.wave % waves;
        // Mostly registers the programs write, sometimes others (never written).
        const VREGS: [u8; 14] = [8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 100];
        const UREGS: [u8; 16] = [8, 9, 10, 11, 12, 13, 14, 15, 2, 3, 16, 17, 18, 20, 30, 0];
        match self.what {
            0 | 1 => WriteTarget::Vector {
                wave,
                reg: VREGS[self.reg as usize % VREGS.len()],
                lane: if self.what == 0 { self.lane } else { None },
            },
            2 => WriteTarget::Uniform {
                wave,
                reg: UREGS[self.reg as usize % UREGS.len()],
            },
            _ => {
                let space = [Space::Global, Space::Shared, Space::Scratch][self.reg as usize % 3];
                let size = window(space);
                let len = self.len.min(size);
                let addr = self.addr % (size - len + 1);
                WriteTarget::Memory {
                    space,
                    addr: if space == Space::Global {
                        base + addr
                    } else {
                        addr
                    },
                    len,
                    workgroup: self.wave % grid,
                    wave,
                    lane: self.lane.unwrap_or(0),
                }
            }
        }
    }
}

/// Asks the engine and the oracle the same `last-write` question, walking back `again`
/// more times from each answer as the repeated command does.
fn compare_last_write(
    e: &mut Engine,
    o: &Oracle,
    target: &WriteTarget,
    mut before: u64,
    again: u8,
) -> Result<(), TestCaseError> {
    for _ in 0..=again {
        let got = e
            .last_write(target, before)
            .map_err(|err| TestCaseError::fail(format!("{target:?}: {err}")))?;
        let want = match target {
            WriteTarget::Memory { .. } => o.last_memory_write(target, before),
            _ => o.last_register_write(target, before),
        };
        prop_assert_eq!(&got, &want, "last-write {:?} before {}", target, before);
        match got {
            Some(found) => before = found.count,
            None => break,
        }
    }
    Ok(())
}

/// History settings: the default bound, or a small one set before the run (so snapshots
/// are dropped and intervals merged as it runs) or after it (thinned at once).
#[derive(Debug, Clone, Copy)]
enum Bound {
    Default,
    Before(usize),
    After(usize),
}

fn bound() -> impl Strategy<Value = Bound> {
    prop_oneof![
        2 => Just(Bound::Default),
        1 => prop::sample::select(vec![0usize, 40 << 10, 120 << 10, 300 << 10]).prop_map(Bound::Before),
        1 => prop::sample::select(vec![0usize, 40 << 10, 120 << 10, 300 << 10]).prop_map(Bound::After),
    ]
}

/// A command that runs part of the launch: every wave as `continue` does (to a count,
/// as `goto` past the record runs), one wave alone (`stepi N` with scheduler-locking),
/// rounds of `stepi all`.
#[derive(Debug, Clone)]
enum Act {
    Run(u64),
    Alone(usize, u64),
    Rounds(u64),
}

fn act() -> impl Strategy<Value = Act> {
    prop_oneof![
        (1u64..60_000).prop_map(Act::Run),
        (0usize..12, 1u64..4000).prop_map(|(w, n)| Act::Alone(w, n)),
        (1u64..400).prop_map(Act::Rounds),
    ]
}

/// An engine that has run the launch to its end after `acts` (possibly twice: back to a
/// random point, then on as `continue` does, which records a new future), with the
/// history settings applied; and how it was driven.
fn recorded_engine(
    p: &Program,
    spec: &Spec,
    bound: Bound,
    acts: &[Act],
    rerun: Option<prop::sample::Index>,
) -> (Engine, Vec<Seg>) {
    let mut e = Engine::new(p, spec.options()).expect("launch");
    if let Bound::Before(b) = bound {
        e.set_history_size(b);
    }
    let count = |e: &Engine| e.machine().stats.wave_instructions;
    let mut segs = Vec::new();
    for a in acts {
        let before = count(&e);
        let seg: fn(u64) -> Seg = match *a {
            Act::Run(n) => {
                e.goto(before + n).expect("runs forward");
                Seg::Run
            }
            Act::Alone(w, n) => {
                let w = w % e.machine().waves.len();
                e.run_wave(w, n);
                segs.push(Seg::Alone(w, count(&e) - before));
                continue;
            }
            Act::Rounds(n) => {
                e.step_all(n);
                Seg::Rounds
            }
        };
        segs.push(seg(count(&e) - before));
    }
    let before = count(&e);
    run_to_end(&mut e);
    segs.push(Seg::Run(count(&e) - before));
    if let Some(at) = rerun {
        let end = count(&e);
        let at = at.index(end as usize + 1) as u64;
        e.goto(at).expect("goto");
        run_to_end(&mut e);
        // What ran before `at`, then a run to the (same) end.
        let mut kept = Vec::new();
        let mut start = 0;
        for s in segs {
            let (Seg::Run(n) | Seg::Alone(_, n) | Seg::Rounds(n)) = s;
            let n = n.min(at - start);
            kept.push(match s {
                Seg::Run(_) => Seg::Run(n),
                Seg::Alone(w, _) => Seg::Alone(w, n),
                Seg::Rounds(_) => Seg::Rounds(n),
            });
            start += n;
        }
        kept.push(Seg::Run(count(&e) - at));
        segs = kept;
    }
    if let Bound::After(b) = bound {
        e.set_history_size(b);
    }
    (e, segs)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 8,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// `last-write` of registers (one lane, any lane, uniform) and memory (global, a
    /// workgroup's shared, a lane's scratch) of random waves before random points, and
    /// walking further back, equals the unindexed search: with many snapshots, with a
    /// small bound during the run or after it (thinned), after going back and recording
    /// the future again, after steps of one wave and rounds of `stepi all`.
    #[test]
    fn last_write_equals_an_unindexed_search(
        spec in spec(),
        bound in bound(),
        acts in prop::collection::vec(act(), 0..6),
        rerun in prop::option::of(any::<prop::sample::Index>()),
        questions in prop::collection::vec(question(), 16..28),
    ) {
        let p = assemble(&spec.source(), "rnd.s", None).expect("assembles");
        let (mut e, segs) = recorded_engine(&p, &spec, bound, &acts, rerun);
        let o = Oracle::record(&p, spec.options(), &segs);
        prop_assert_eq!(e.machine().stats.wave_instructions, o.end());
        let waves = spec.waves_per_group * spec.grid;
        for q in &questions {
            let (target, before) = q.ask(&o, waves, spec.grid);
            compare_last_write(&mut e, &o, &target, before, q.again)?;
        }
        // And from the end, as the command asks first.
        for q in questions.iter().take(4) {
            let (target, _) = q.ask(&o, waves, spec.grid);
            compare_last_write(&mut e, &o, &target, o.end(), 0)?;
        }
    }

    /// `reverse-continue` from the end and from random earlier points, with random
    /// breakpoints (wave, workgroup and lane filters, conditions) and watchpoints (write,
    /// read, access; global, a workgroup's or every workgroup's shared, a lane's scratch;
    /// conditions), stops exactly where an unindexed search of the launch says, with the
    /// same reason, and the machine there is the machine the launch had there.
    #[test]
    fn reverse_continue_equals_an_unindexed_search(
        spec in spec(),
        bound in bound(),
        acts in prop::collection::vec(act(), 0..6),
        rerun in prop::option::of(any::<prop::sample::Index>()),
        bps in prop::collection::vec(breakpoint(), 0..3),
        wps in prop::collection::vec(watchpoint(), 0..3),
        extra in breakpoint(),
        starts in prop::collection::vec(any::<prop::sample::Index>(), 1..3),
    ) {
        let p = assemble(&spec.source(), "rnd.s", None).expect("assembles");
        let (mut e, segs) = recorded_engine(&p, &spec, bound, &acts, rerun);
        let o = Oracle::record(&p, spec.options(), &segs);
        let end = o.end();
        prop_assert_eq!(e.machine().stats.wave_instructions, end);
        // Points are set at the launch, where every workgroup is resident or to come.
        e.goto(0).expect("goto 0");
        let waves = spec.waves_per_group * spec.grid;
        let instrs: Vec<u64> = (0..e.machine().code().len() as u64)
            .map(|i| i * 4)
            .filter(|&a| e.machine().instr_at(a).is_some())
            .collect();
        let mut armed_bps = Vec::new();
        // At least one point.
        let bps = if bps.is_empty() && wps.is_empty() { vec![extra] } else { bps };
        for b in &bps {
            // Any instruction, or one the launch ran.
            let addr = if b.ran && end > 0 {
                o.steps[b.at.index(end as usize)].pc as u64
            } else {
                instrs[b.at.index(instrs.len())]
            };
            let filters = Filters { wave: b.wave, workgroup: b.workgroup, lane: b.lane };
            let c = b.cond.map(|c| cond(&c.text()));
            // A filter outside the launch is refused (it could never match).
            let Ok(id) = e.add_breakpoint(&Location::Address(addr), c, filters, false) else {
                continue;
            };
            armed_bps.push(ArmedBp { id, addr, filters, cond: b.cond });
        }
        let mut armed_wps = Vec::new();
        for w in &wps {
            let (scope, addr, len) = watch_scope(w, &o, waves, spec.grid);
            let c = w.cond.map(|c| cond(&c.text()));
            let id = e.add_watchpoint(w.kind, scope, addr, len, c).expect("watch");
            armed_wps.push(ArmedWp { id, kind: w.kind, scope, addr, len, cond: w.cond });
        }
        let points = stop_points(&o, &armed_bps, &armed_wps);
        let mut from = vec![end];
        from.extend(starts.iter().map(|s| s.index(end as usize + 1) as u64));
        let is_trap = |r: &StopReason| matches!(r, StopReason::BreakInstruction | StopReason::Fault(_));
        for start in from {
            e.goto(start).expect("goto");
            // A trap at the count the machine is at is behind it, unless it is that stop.
            let mut at_trap = false;
            for _ in 0..3 {
                let now = e.machine().stats.wave_instructions;
                let stop = e.reverse_continue();
                let want = points
                    .iter()
                    .rev()
                    .find(|(c, .., r)| *c < now || (*c == now && is_trap(r) && !at_trap));
                at_trap = is_trap(&stop.reason);
                match want {
                    Some((count, id, pc, reason)) => {
                        prop_assert_eq!(&stop.reason, reason, "from {}", now);
                        prop_assert_eq!(
                            (stop.instructions, stop.wave_id, stop.pc),
                            (*count, Some(*id), Some(*pc)),
                            "from {}", now
                        );
                    }
                    None => {
                        prop_assert_eq!(&stop.reason, &StopReason::Blocked(Blocked::HistoryStart), "from {}", now);
                        prop_assert_eq!(stop.instructions, 0);
                    }
                }
                let count = e.machine().stats.wave_instructions;
                if let Err(why) = same(e.machine(), &o.at(count)) {
                    return Err(TestCaseError::fail(format!("at {count} (from {now}): {why}")));
                }
                if count == 0 {
                    break;
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Writes that leave the value as it was.

/// v8 and u12 hold 0 when `vmovi` (every lane), `vmov.u` (lanes 0-3: EXEC is 0xf) and
/// `readlane` write 0 into them again; `vmovi v9, 7` writes lanes 0-3 only.
const SAME_VALUE: &str = r#"
.kernel same
.workgroup 32
    vlaneid v0
all_lanes:
    vmovi v8, 0
    umovi u9, 0xf
    umovi u10, 0
    exec.set u9
four_lanes:
    vmov.u v8, u10
readlane_zero:
    readlane u12, v8, 5
seven:
    vmovi v9, 7
    umovi u9, 0xffffffff
    exec.set u9
    end
"#;

/// `last-write v8[0]` and `last-write u12` name the instructions that wrote the value the
/// register already held, and say so; a lane EXEC masked off is not named.
#[test]
fn writes_of_an_unchanged_value_are_found_and_masked_lanes_are_not() {
    let mut e = engine(SAME_VALUE);
    finish_all(&mut e);
    let (all, four, readlane, seven) = (
        label(&e, "all_lanes"),
        label(&e, "four_lanes"),
        label(&e, "readlane_zero"),
        label(&e, "seven"),
    );
    let v8_0 = run(&mut e, "last-write v8[0]");
    assert!(
        v8_0.contains(&format!(
            "lane 0, at {four:#06x} <four_lanes> (vmov.u v8, u10)"
        )),
        "{v8_0}"
    );
    assert!(
        v8_0.contains("before: 0x00000000\n  after:  0x00000000 (value unchanged)"),
        "{v8_0}"
    );
    let u12 = run(&mut e, "last-write u12");
    assert!(
        u12.contains(&format!(
            "at {readlane:#06x} <readlane_zero> (readlane u12, v8, 5)"
        )),
        "{u12}"
    );
    assert!(
        u12.contains("after:  0x00000000 (value unchanged)"),
        "{u12}"
    );
    // Lane 5 was masked off for `vmov.u`: the write before it, to every lane, is named.
    let v8_5 = run(&mut e, "last-write v8[5]");
    assert!(
        v8_5.contains(&format!("lane 5, at {all:#06x} <all_lanes> (vmovi v8, 0)")),
        "{v8_5}"
    );
    assert!(v8_5.contains("(value unchanged)"), "{v8_5}");
    assert!(run(&mut e, "last-write v8[5]").contains("no write before"));
    // Any lane: the lanes `vmov.u` wrote.
    let v8 = run(&mut e, "last-write v8");
    assert!(v8.contains(&format!("lanes 0-3, at {four:#06x}")), "{v8}");
    assert!(v8.contains("(value unchanged)"), "{v8}");
    // A value that changed in the active lanes only: lane 7 of v9 was never written.
    let v9_1 = run(&mut e, "last-write v9[1]");
    assert!(v9_1.contains(&format!("lane 1, at {seven:#06x}")), "{v9_1}");
    assert!(
        v9_1.contains("before: 0x00000000\n  after:  0x00000007\n"),
        "{v9_1}"
    );
    assert!(run(&mut e, "last-write v9[7]").contains("no write before"));
    // The same answers through the engine's API, with the values.
    let id = e.machine().waves[0].id;
    let found = e
        .last_write(
            &WriteTarget::Uniform { wave: id, reg: 12 },
            e.machine().stats.wave_instructions,
        )
        .expect("not interrupted")
        .expect("a write");
    assert_eq!((found.pc, found.lanes), (readlane, 0));
    assert_eq!((found.old, found.new), (vec![0; 4], vec![0; 4]));
}

// ---------------------------------------------------------------------------------------
// Interrupts.

/// 256 resident waves (32 workgroups of 8): each writes its marker word once at its
/// start (at `once`, which it runs once), then loops; about 2.5 million instructions.
const LONG: &str = r#"
.kernel long
.workgroup 256
.grid 32
.buffer out, 1024
.arg u[0:1], out
    uwgid u3
    uwaveid u2
    vlaneid v0
once:
    umuli u4, u3, 8
    uadd u4, u4, u2
    ushli u4, u4, 2
    vmov.u v2, u4
    vaddi.u32 v3, v0, 1000
    umovi u5, 1
    exec.and.save u6, u5
marker:
    st.ubase.b32 v3, u[0:1], v2, 0
    exec.set u6
    umovi u7, 2400
again:
    vaddi.u32 v4, v4, 1
    vxor v5, v4, v0
    uaddi u7, u7, -1
    br.unz u7, again
    end
"#;

fn long_engine() -> Engine {
    let mut e = engine_with(
        LONG,
        LaunchOptions {
            resident_workgroups: 32,
            ..LaunchOptions::default()
        },
    );
    assert_eq!(e.machine().waves.len(), 256);
    finish_all(&mut e);
    assert!(e.machine().stats.wave_instructions > 2_000_000);
    e
}

/// Sets the interrupt from another thread before `f` starts, so it lands in it.
fn interrupted<T>(e: &mut Engine, f: impl FnOnce(&mut Engine) -> T) -> T {
    let handle = e.interrupt_handle();
    std::thread::spawn(move || handle.interrupt())
        .join()
        .expect("interrupter");
    f(e)
}

/// Where an interrupted command left the machine is a point of the history: `goto` it
/// again (from elsewhere) gives the very same machine, and so does running on from it.
fn consistent(e: &mut Engine, end: &Machine) {
    let here = e.machine().clone();
    let count = here.stats.wave_instructions;
    e.goto(count / 3).expect("goto elsewhere");
    let stop = e.goto(count).expect("goto back");
    assert_eq!(stop.reason, StopReason::Reached(Reached::Count(count)));
    same(e.machine(), &here).unwrap_or_else(|why| panic!("goto {count} again: {why}"));
    // Running on from it replays the same future.
    let stop = e.goto(end.stats.wave_instructions).expect("goto the end");
    assert_ne!(stop.reason, StopReason::Interrupted);
    same(e.machine(), end).unwrap_or_else(|why| panic!("the end again: {why}"));
}

/// An interrupt requested as `reverse-continue`, `last-write`, `goto` and `reverse-stepi
/// N` start stops them where they are (`last-write` says how far it had got), every one
/// consumes the request (the command after it runs), and the progress handle tells where
/// the machine is.
#[test]
fn interrupted_searches_and_replays_stop_at_consistent_points() {
    let mut e = long_engine();
    let end = e.machine().clone();
    let total = end.stats.wave_instructions;
    let progress = e.progress_handle();
    let out = end.buffer_base("out").expect("out");
    e.add_watchpoint(WatchKind::Write, Scope::Global, out, 4, None)
        .expect("watch");
    bp(&mut e, "once");

    // reverse-continue: stays at the end, and the next one searches.
    let stop = interrupted(&mut e, Engine::reverse_continue);
    assert_eq!(stop.reason, StopReason::Interrupted);
    same(e.machine(), &end).expect("stays where it was");
    assert_eq!(progress.get().instructions, total);
    let stop = e.reverse_continue();
    assert!(
        matches!(
            stop.reason,
            StopReason::Breakpoint { .. } | StopReason::Watchpoint(_)
        ),
        "{stop:?}"
    );
    assert!(stop.instructions < 20_000, "a hit at the start: {stop:?}");
    assert_eq!(progress.get().instructions, stop.instructions, "moved");
    e.goto(total).expect("back to the end");

    // last-write: nothing searched, the machine stays; the next one answers.
    let marker = WriteTarget::Memory {
        space: Space::Global,
        addr: out,
        len: 4,
        workgroup: 0,
        wave: 0,
        lane: 0,
    };
    let got = interrupted(&mut e, |e| e.last_write(&marker, total));
    assert_eq!(
        got,
        Err(EngineError::SearchInterrupted {
            searched_back_to: total
        })
    );
    same(e.machine(), &end).expect("stays where it was");
    let found = e
        .last_write(&marker, total)
        .expect("the request was consumed")
        .expect("the marker's write");
    assert_eq!((found.wave, found.lanes), (0, 1));
    assert_eq!(found.new, 1000u32.to_le_bytes());
    assert!(found.count < 20_000);
    let stop = e.goto(total / 2).expect("goto");
    assert_eq!(stop.reason, StopReason::Reached(Reached::Count(total / 2)));

    // goto: asked to stop before it starts, it stays where it is (gdb's Ctrl-C between
    // two steps must not move the machine).
    e.goto(total).expect("back to the end");
    let stop = interrupted(&mut e, |e| e.goto(total / 2)).expect("goto");
    assert_eq!(stop.reason, StopReason::Interrupted);
    same(e.machine(), &end).expect("stays where it was");
    let at = e.machine().stats.wave_instructions;
    assert_eq!(progress.get().instructions, at);
    consistent(&mut e, &end);

    // reverse-stepi N, from the end.
    e.select_wave(200).expect("wave 200");
    let w = e.selected_wave;
    let executed = e.machine().waves[w].executed;
    let stop = interrupted(&mut e, |e| e.reverse_step(5000));
    assert_eq!(stop.reason, StopReason::Interrupted);
    // Asked to stop before it starts: the wave has not moved.
    assert_eq!(
        e.machine().waves[w].executed,
        executed,
        "stays where it was"
    );
    consistent(&mut e, &end);
    let stop = e.reverse_step(5000);
    assert_eq!(stop.reason, StopReason::Step);
    assert_eq!(e.machine().waves[w].executed, executed - 5000);
}

/// An interrupt that arrives while a search or replay runs (from a thread that waits to
/// see the progress handle move, then interrupts): whether it lands or the command ends
/// first, the result is either a right answer or a consistent point, and the progress
/// handle moved. (No timing is asserted: which one happens depends on the threads.)
#[test]
fn an_interrupt_during_a_search_leaves_a_right_answer_or_a_consistent_point() {
    let mut e = long_engine();
    let end = e.machine().clone();
    let total = end.stats.wave_instructions;
    // Few snapshots: replays and searches of long intervals.
    e.set_history_size(0);
    e.goto(total).expect("at the end");
    let out = end.buffer_base("out").expect("out");
    let marker = WriteTarget::Memory {
        space: Space::Global,
        addr: out + 4,
        len: 4,
        workgroup: 0,
        wave: 1,
        lane: 0,
    };
    let want = e
        .last_write(&marker, total)
        .expect("answer")
        .expect("a write");
    // Runs `what` while a thread waits for the progress handle to move, then interrupts.
    let during = |e: &mut Engine, what: &mut dyn FnMut(&mut Engine)| {
        let progress = e.progress_handle();
        let handle = e.interrupt_handle();
        let start = progress.get().instructions;
        let done = Arc::new(AtomicBool::new(false));
        let stop = done.clone();
        let watcher = std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if progress.get().instructions != start {
                    handle.interrupt();
                    return true;
                }
                std::hint::spin_loop();
            }
            false
        });
        what(e);
        done.store(true, Ordering::Relaxed);
        let saw = watcher.join().expect("watcher");
        // A request the command did not see is withdrawn, as a front end does.
        e.interrupt_handle().cancel();
        assert!(
            saw || e.progress_handle().get().instructions != start,
            "the progress handle moved"
        );
    };
    during(&mut e, &mut |e| match e.last_write(&marker, total) {
        Err(EngineError::SearchInterrupted { searched_back_to }) => {
            assert!(searched_back_to <= total);
        }
        got => assert_eq!(got, Ok(Some(want.clone()))),
    });
    same(e.machine(), &end).expect("last-write does not move the machine");
    during(&mut e, &mut |e| {
        let stop = e.goto(total / 2).expect("goto");
        if stop.reason != StopReason::Interrupted {
            assert_eq!(stop.reason, StopReason::Reached(Reached::Count(total / 2)));
            assert_eq!(e.machine().stats.wave_instructions, total / 2);
        }
    });
    consistent(&mut e, &end);
    // From the end: reverse-continue to the last hit at the start, or interrupted.
    let out_word = e
        .add_watchpoint(WatchKind::Write, Scope::Global, out + 4, 4, None)
        .expect("watch");
    during(&mut e, &mut |e| {
        let stop = e.reverse_continue();
        if stop.reason != StopReason::Interrupted {
            assert_eq!(watch_hits(&stop)[0].id, out_word);
            assert_eq!(stop.instructions, want.count);
        }
    });
    consistent(&mut e, &end);
    e.select_wave(77).expect("wave 77");
    let executed = e.machine().waves[e.selected_wave].executed;
    during(&mut e, &mut |e| {
        let stop = e.reverse_step(executed / 2);
        if stop.reason != StopReason::Interrupted {
            assert_eq!(stop.reason, StopReason::Step);
            let now = e.machine().waves[e.selected_wave].executed;
            assert_eq!(now, executed - executed / 2);
        }
    });
    consistent(&mut e, &end);
}

/// A `reverse-continue` interrupted after it has cleared intervals (a breakpoint whose
/// condition never holds makes it replay every one of them) stops where its search had
/// got to, at the start of the earliest interval it cleared, as docs/time-travel.md says:
/// not where it started (the interrupt it had acted on stopped the move there too).
#[test]
fn an_interrupted_reverse_continue_stops_where_its_search_had_got_to() {
    let mut e = long_engine();
    let end = e.machine().clone();
    let total = end.stats.wave_instructions;
    e.add_breakpoint(
        &loc("again"),
        Some(cond("u7 == 99999")),
        Filters::default(),
        false,
    )
    .expect("breakpoint");
    let progress = e.progress_handle();
    let handle = e.interrupt_handle();
    // Interrupts once the search is a quarter of the way back: intervals are cleared.
    let watcher = std::thread::spawn(move || {
        while progress.get().instructions > total / 4 * 3 {
            std::hint::spin_loop();
        }
        handle.interrupt();
    });
    let stop = e.reverse_continue();
    watcher.join().expect("watcher");
    e.interrupt_handle().cancel();
    assert_eq!(stop.reason, StopReason::Interrupted, "{stop:?}");
    let at = e.machine().stats.wave_instructions;
    assert!(
        at > 0 && at < total,
        "stopped at {at} of {total}: where the search had got to"
    );
    assert_eq!(stop.instructions, at);
    consistent(&mut e, &end);
}

// ---------------------------------------------------------------------------------------
// Thinning.

/// Four workgroups of two waves, two resident at a time (workgroups 2 and 3 take the
/// slots of 0 and 1 as they finish): each wave writes global, shared and scratch words
/// once at its start, loops (rewriting a shared word and registers), and workgroup 0
/// writes more words at its end, right before its slot is reused.
const THIN: &str = r#"
.kernel thin
.workgroup 64
.grid 4
.shared 256
.scratch 32
.buffer b, 1024
.arg u[0:1], b
    uwaveid u2
    uwgid u3
    vlaneid v0
    vshli v1, v0, 2
    umuli u4, u3, 2
    uadd u4, u4, u2
    vmov.u v2, u4
    vadd.u32 v2, v2, v0
    ushli u5, u4, 7
    vadd.u32.u v3, v1, u5
    vmovi v6, 0
    ushli u6, u2, 2
    vmov.u v7, u6
start:
    st.ubase.b32 v2, u[0:1], v3, 0
    st.shared.b32 v2, v1, 0
    st.scratch.b32 v2, v6, 4
    umovi u7, 9000
again:
    vaddi.u32 v4, v4, 1
    vand v5, v4, v0
    st.shared.b32 v4, v7, 128
    uaddi u7, u7, -1
    br.unz u7, again
    br.unz u3, skip
middle:
    st.ubase.b32 v5, u[0:1], v3, 512
    st.shared.b32 v5, v1, 4
    st.scratch.b32 v5, v6, 8
    readlane u9, v5, 3
skip:
    wait.all
    end
"#;

/// Questions about every kind of target, for `thinning_keeps_the_summaries_right`.
fn thin_questions(o: &Oracle) -> Vec<(WriteTarget, u64)> {
    let end = o.end();
    let mut out = Vec::new();
    for (k, before) in [end, end / 3, 2 * end / 3, 60_000].into_iter().enumerate() {
        let wave = (k as u32 * 3) % 8;
        let lane = (k as u8 * 5) % 32;
        let memory = |space, addr, len| WriteTarget::Memory {
            space,
            addr,
            len,
            workgroup: wave / 2,
            wave,
            lane,
        };
        let start_word = o.base + wave as u64 * 128 + 4 * lane as u64;
        out.extend(
            [
                WriteTarget::Vector {
                    wave,
                    reg: 2,
                    lane: Some(lane),
                },
                WriteTarget::Uniform {
                    wave,
                    reg: [9, 4][k % 2],
                },
                memory(Space::Global, start_word, 4),
                memory(Space::Global, o.base + 512 + 4 * lane as u64, 8),
                memory(Space::Shared, 4 * lane as u64, 8),
                memory(Space::Scratch, 4, 8),
            ]
            .map(|t| (t, before)),
        );
        // Written at every turn of the loop.
        if k < 2 {
            out.push((
                WriteTarget::Vector {
                    wave,
                    reg: 5,
                    lane: None,
                },
                before,
            ));
            out.push((memory(Space::Shared, 128 + 4 * k as u64, 4), before));
        }
    }
    out
}

/// After a long run, ever smaller bounds drop most snapshots (their intervals merge in
/// the index, the live machine's open interval included): every search still finds
/// what the unindexed search finds. And the same with the bound set before the run.
#[test]
fn thinning_keeps_the_summaries_right() {
    let p = program(THIN);
    let options = LaunchOptions {
        resident_workgroups: 2,
        ..LaunchOptions::default()
    };
    let o = Oracle::record(&p, options, &[]);
    let end = o.end();
    assert!(end > 300_000, "{end}");
    let questions = thin_questions(&o);
    let ask = |e: &mut Engine| {
        for (target, before) in &questions {
            let got = e.last_write(target, *before).expect("not interrupted");
            let want = match target {
                WriteTarget::Memory { .. } => o.last_memory_write(target, *before),
                _ => o.last_register_write(target, *before),
            };
            assert_eq!(got, want, "{target:?} before {before}");
        }
    };
    // Reverse-continue from the end: the last writes of the start-up words of wave 5
    // (workgroup 2, which ran in workgroup 0's slot) and a breakpoint only workgroup 0
    // reaches, at its end.
    let check_reverse = |e: &mut Engine| {
        e.goto(end).expect("the end");
        let wps = [ArmedWp {
            id: e
                .add_watchpoint(WatchKind::Write, Scope::Shared(Some(2)), 0, 8, None)
                .expect("watch"),
            kind: WatchKind::Write,
            scope: Scope::Shared(Some(2)),
            addr: 0,
            len: 8,
            cond: None,
        }];
        let middle = label(e, "middle");
        let bps = [ArmedBp {
            id: e
                .add_breakpoint(&Location::Address(middle), None, Filters::default(), false)
                .expect("break"),
            addr: middle,
            filters: Filters::default(),
            cond: None,
        }];
        let points = stop_points(&o, &bps, &wps);
        assert!(points.len() >= 3, "{points:?}");
        for _ in 0..4 {
            let now = e.machine().stats.wave_instructions;
            let stop = e.reverse_continue();
            let (count, id, pc, reason) = points
                .iter()
                .rev()
                .find(|p| p.0 < now)
                .expect("a stop before");
            assert_eq!(&stop.reason, reason, "from {now}");
            assert_eq!(
                (stop.instructions, stop.wave_id, stop.pc),
                (*count, Some(*id), Some(*pc))
            );
            same(e.machine(), &o.at(*count)).expect("the launch's machine there");
        }
        e.delete(None).expect("delete");
    };
    let mut e = Engine::new(&p, options).expect("launch");
    finish_all(&mut e);
    let full = e.history().info(end);
    assert!(full.snapshots >= 6, "{full:?}");
    ask(&mut e);
    check_reverse(&mut e);
    let mut before = full.snapshots;
    for bound in [100 << 10, 0] {
        e.set_history_size(bound);
        let info = e.history().info(end);
        assert!(info.snapshots < before || info.snapshots == 1, "{info:?}");
        before = info.snapshots;
        ask(&mut e);
        check_reverse(&mut e);
    }
    // A small bound from the start: snapshots dropped as the run goes, the newest one
    // among them (the open interval then starts before the code the machine noted).
    let mut e = Engine::new(&p, options).expect("launch");
    e.set_history_size(90 << 10);
    finish_all(&mut e);
    let info = e.history().info(end);
    assert!(info.spacing > 50_000 && info.snapshots > 1, "{info:?}");
    ask(&mut e);
    check_reverse(&mut e);
}

// ---------------------------------------------------------------------------------------
// The bugs these tests found, each on its own.

/// One wave per workgroup, one workgroup resident: workgroup 1 takes workgroup 0's slot
/// (and wave index 0) when it finishes. Wave 0 runs `short` turns, writes shared and
/// scratch words at `late` and exits; wave 1 runs `long` turns: the record has snapshots
/// after wave 0's end.
const SLOT_REUSED: &str = r#"
.kernel slots
.workgroup 32
.grid 2
.shared 128
.scratch 16
    uwgid u3
    vlaneid v0
first:
    vshli v1, v0, 2
    vmovi v6, 0
    umovi u7, 6000
    br.uz u3, again
    umovi u7, 60000
again:
    vaddi.u32 v4, v4, 1
    uaddi u7, u7, -1
    br.unz u7, again
    br.unz u3, done
late:
    st.shared.b32 v4, v1, 0
    st.scratch.b32 v4, v6, 4
done:
    wait.all
    end
"#;

fn slot_reused() -> Engine {
    let mut e = engine_with(
        SLOT_REUSED,
        LaunchOptions {
            resident_workgroups: 1,
            ..LaunchOptions::default()
        },
    );
    finish_all(&mut e);
    assert!(e.history().info(0).snapshots >= 3);
    e
}

/// The writes of a workgroup that finished between two snapshots are in the index even
/// though a dispatch replaced its shared memory and its waves' scratch: `last-write` and
/// a watchpoint find them. (The interval's summary used to look at the slot's new arrays
/// only, and the search skipped the interval.)
#[test]
fn a_finished_workgroups_writes_are_found_after_its_slot_is_reused() {
    let mut e = slot_reused();
    let end = e.machine().stats.wave_instructions;
    let late = label(&e, "late");
    let shared = WriteTarget::Memory {
        space: Space::Shared,
        addr: 0,
        len: 4,
        workgroup: 0,
        wave: 0,
        lane: 0,
    };
    let found = e
        .last_write(&shared, end)
        .expect("answer")
        .expect("a write");
    assert_eq!((found.wave, found.pc, found.lanes), (0, late, 1));
    assert_eq!(found.new, 6000u32.to_le_bytes());
    let scratch = WriteTarget::Memory {
        space: Space::Scratch,
        addr: 4,
        len: 4,
        workgroup: 0,
        wave: 0,
        lane: 9,
    };
    let found = e
        .last_write(&scratch, end)
        .expect("answer")
        .expect("a write");
    assert_eq!((found.wave, found.pc, found.lanes), (0, late + 8, 1 << 9));
    // A watchpoint on workgroup 0's word, set at the launch: reverse-continue from the end
    // stops right before the store.
    e.goto(0).expect("the launch");
    e.add_watchpoint(WatchKind::Write, Scope::Shared(Some(0)), 0, 4, None)
        .expect("watch");
    e.goto(end).expect("the end");
    let stop = e.reverse_continue();
    assert_eq!(watch_hits(&stop)[0].pc, late, "{stop:?}");
    assert_eq!(stop.instructions, found.count - 1);
}

/// `reverse-continue` to a hit of a wave whose slot a later wave took, and `reverse-stepi`
/// of such a wave: the replay starts from a snapshot before the point, not from a later
/// one where the slot holds the other wave. (It used to pick the newest snapshot whose
/// slot held another wave, never reached the point, and said "No more reverse-execution
/// history".)
#[test]
fn reverse_execution_reaches_a_wave_whose_slot_was_reused() {
    let mut e = slot_reused();
    bp(&mut e, "first");
    let stop = e.reverse_continue();
    assert_eq!(stop.wave_id, Some(1), "{stop:?}");
    let stop = e.reverse_continue();
    assert!(
        matches!(stop.reason, StopReason::Breakpoint { .. }),
        "{stop:?}"
    );
    assert_eq!((stop.wave_id, stop.instructions), (Some(0), 2));
    assert_eq!(e.machine().waves[0].pc, label(&e, "first"));
    // From a point where wave 0 runs, with later snapshots holding wave 1 in its slot.
    e.delete(None).expect("delete");
    e.goto(5000).expect("goto");
    e.select_wave(0).expect("wave 0");
    let executed = e.machine().waves[0].executed;
    let stop = e.reverse_step(100);
    assert_eq!(stop.reason, StopReason::Step);
    assert_eq!(e.machine().waves[0].executed, executed - 100);
}

/// `last-write` of a range longer than the write, or not starting where it does: the
/// bytes before are the range's before the instruction, not the store's old bytes
/// shifted to the range's start.
#[test]
fn last_write_of_a_range_reports_the_range_before_and_after() {
    const RANGE: &str = r#"
.kernel range
.workgroup 32
.buffer b, 64
.init b, u32, 1, 2, 3, 4, 5, 6
.arg u[0:1], b
    vmovi v1, 8
    vmovi v2, 0x99
    umovi u5, 1
    exec.set u5
store:
    st.ubase.b32 v2, u[0:1], v1, 0
same:
    st.ubase.b32 v2, u[0:1], v1, 0
    wait.all
    end
"#;
    let mut e = engine(RANGE);
    finish_all(&mut e);
    let text = run(&mut e, "last-write global:b+4 16");
    assert!(text.contains("(st.ubase.b32 v2, u[0:1], v1, 0)"), "{text}");
    assert!(
        text.contains(
            "before: 0x00000002 0x00000099 0x00000004 0x00000005\n  after:  0x00000002 0x00000099 0x00000004 0x00000005 (value unchanged)"
        ),
        "{text}"
    );
    let text = run(&mut e, "last-write global:b+4 16");
    assert!(
        text.contains(
            "before: 0x00000002 0x00000003 0x00000004 0x00000005\n  after:  0x00000002 0x00000099 0x00000004 0x00000005\n"
        ),
        "{text}"
    );
}

/// Interrupted in the middle of its replay (from a snapshot far back, under a small
/// history size), a `reverse-stepi` or `goto` leaves the machine where it was: the
/// replay's point is before the target, unrelated to either end.
#[test]
fn an_interrupted_replay_leaves_the_machine_where_it_was() {
    let mut e = long_engine();
    e.set_history_size(1);
    let end = e.machine().clone();
    let total = end.stats.wave_instructions;
    let progress = e.progress_handle();
    let mut interrupted_once = false;
    for attempt in 0..6 {
        let handle = e.interrupt_handle();
        let progress = progress.clone();
        // Interrupts once the replay has moved away from the end (a snapshot restored).
        let interrupter = std::thread::spawn(move || {
            let start = std::time::Instant::now();
            while progress.get().instructions == total
                && start.elapsed() < std::time::Duration::from_secs(5)
            {
                std::thread::yield_now();
            }
            handle.interrupt();
        });
        let stop = if attempt % 2 == 0 {
            e.reverse_step(1)
        } else {
            e.goto(total - 1).expect("goto")
        };
        interrupter.join().expect("interrupter");
        if stop.reason == StopReason::Interrupted {
            interrupted_once = true;
            same(e.machine(), &end).expect("stays where it was");
            assert_eq!(stop.instructions, total);
        } else {
            e.goto(total).expect("back to the end");
        }
        // A request left over (the replay ended first) must not stop the next one.
        e.interrupt_handle().cancel();
    }
    assert!(interrupted_once, "some replay was interrupted");
}
