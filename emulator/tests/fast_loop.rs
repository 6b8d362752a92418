//! The machine's fast loop (`exec::fast`: ALU, compare, FMA, select, branch, shuffle and
//! wait instructions pre-decoded at launch) in lock-step with the reference interpreter.
//!
//! Each case is a random program of every instruction the fast loop takes (chosen from
//! the ISA table by `FastCode`, so a new fast instruction is covered without a change
//! here), with random registers among a few (so results feed later operands), edge
//! values in the registers (0, 1, -1, the sign bit, NaN, infinities, -0, denormals),
//! EXEC full, partial, one lane or empty, and a few outstanding operations per counter.
//! `Machine::run` runs it (the fast loop, with the general loop for the rest) and the
//! reference interpreter (`exec::reference`, which shares no semantic code with the
//! machine) steps it from the same state; registers, PC, the outstanding operations and
//! the run's end must agree.

use std::collections::BTreeSet;

use wavedbg_emulator::asm::assemble;
use wavedbg_emulator::code::decode_code;
use wavedbg_emulator::exec::fast::FastCode;
use wavedbg_emulator::exec::{reference, Ctx, Flow, OpClass};
use wavedbg_emulator::isa::{Instr, InstrId, Isa, OperandKind, RegFile, Slot};
use wavedbg_emulator::machine::{Event, LaunchOptions, Machine};
use wavedbg_emulator::wave::Outstanding;

#[path = "support/rng.rs"]
mod rng;
use rng::Rng;

/// Values at the edges of integer and f32 arithmetic.
const EDGES: &[u32] = &[
    0,
    1,
    2,
    31,
    32,
    33,
    0xFFFF_FFFF,
    0x8000_0000,
    0x7FFF_FFFF,
    0x7FC0_0000, // quiet NaN
    0x7F80_0001, // signalling NaN
    0xFFC0_0001, // negative NaN with a payload
    0x7F80_0000, // +inf
    0xFF80_0000, // -inf
    0x0000_0001, // the smallest denormal
    0x3F80_0000, // 1.0
    0xBF80_0000, // -1.0
];

const IMMS: &[i64] = &[
    0,
    1,
    -1,
    3,
    31,
    32,
    -32,
    0x7FFF,
    -0x8000,
    0x7FFF_FFFF,
    0x8000_0000,
];

/// The ISA's definitions the fast loop runs, found by pre-decoding one instance of each,
/// but for its memory accesses, which need buffers and address patterns: those are
/// tests/memory_loop.rs's.
fn fast_defs() -> Vec<InstrId> {
    let isa = Isa::get();
    (0..isa.defs().len())
        .map(|id| id as InstrId)
        .filter(|&id| OpClass::of(isa.def(id).op()) != OpClass::Memory)
        .filter(|&id| {
            let Ok(words) = Instr::new(id).encode_words() else {
                return false;
            };
            FastCode::new(&decode_code(&words)).ops[0].is_fast()
        })
        .collect()
}

/// A random instance of definition `id`: registers among the first few (sometimes the
/// last), immediates at the edges, branches a few words forward.
fn random_instr(rng: &mut Rng, id: InstrId) -> Vec<u32> {
    let mut i = Instr::new(id);
    let def = i.def();
    let branch = i.branch_target(0).is_some();
    for slot in [Slot::Rd, Slot::Rs1, Slot::Rs2, Slot::Rs3] {
        if let Some(o) = def.operand(slot) {
            if let OperandKind::Reg { file, .. } = o.kind {
                let last = match file {
                    RegFile::Vector => 127,
                    RegFile::Uniform => 63,
                };
                let r = if rng.below(16) == 0 {
                    last
                } else {
                    rng.below(6) as i64
                };
                i.set(slot, r);
            }
        }
    }
    if def.operand(Slot::Imm).is_some() {
        if branch {
            i.set(Slot::Imm, 1 + rng.below(3) as i64);
        } else {
            // The first edge value the immediate's field holds.
            for _ in 0..8 {
                i.set(Slot::Imm, rng.pick(IMMS));
                if i.encode_words().is_ok() {
                    break;
                }
                i.set(Slot::Imm, 0);
            }
        }
    }
    i.encode_words()
        .unwrap_or_else(|e| panic!("{}: {e}", def.mnemonic()))
}

/// A random state for wave 0: registers of edge and random values, and EXEC.
fn randomize(m: &mut Machine, rng: &mut Rng) {
    let w = &mut m.waves[0];
    w.exec = match rng.below(6) {
        0 | 1 => u32::MAX,
        2 => rng.next() as u32,
        3 => 1 << rng.below(32),
        4 => u32::MAX >> rng.below(32),
        _ => 0,
    };
    let value = |rng: &mut Rng| {
        if rng.below(2) == 0 {
            rng.pick(EDGES)
        } else {
            rng.next() as u32
        }
    };
    for r in (0..6).chain([127]) {
        w.v[r] = std::array::from_fn(|_| value(rng));
    }
    for r in (0..6).chain([63]) {
        w.u[r] = value(rng);
    }
    // Outstanding operations for the waits to retire: none, fewer than a wait's count,
    // or more.
    for (c, q) in w.outstanding.iter_mut().enumerate() {
        for k in 0..rng.below(5) {
            q.push_back(Outstanding {
                pc: 4 * (c as u64 * 8 + k),
                regs: None,
                exec: rng.next() as u32,
            });
        }
    }
}

/// How a run ended.
#[derive(Debug, PartialEq, Eq)]
enum End {
    Finished,
    Fault(String),
}

/// Steps wave 0 of `m` through the reference interpreter until `end` or a fault.
fn reference_run(m: &mut Machine) -> End {
    let launch = *m.launch();
    loop {
        let pc = m.waves[0].pc;
        let Some(instr) = m.instr_at(pc).map(|d| d.instr) else {
            return End::Fault("BadPc".into());
        };
        let result = {
            let mut ctx = Ctx {
                wave: &mut m.waves[0],
                shared: &mut m.slots[0].shared,
                global: &mut m.global,
                launch: &launch,
                scratch_bytes: launch.scratch_bytes as u64,
                accesses: None,
                trace: None,
            };
            reference::execute(&mut ctx, &instr, pc)
        };
        match result {
            Ok(Flow::Next) => m.waves[0].pc = pc + instr.size_bytes() as u64,
            Ok(Flow::Jump(t)) => m.waves[0].pc = t,
            Ok(Flow::End) => return End::Finished,
            Ok(other) => panic!("unexpected flow {other:?} at {pc:#x}"),
            Err(e) => return End::Fault(format!("{:?}", e.kind)),
        }
    }
}

/// One case from `seed`; returns the definitions it ran.
fn run_case(seed: u64, defs: &[InstrId], quantum: u32) -> BTreeSet<InstrId> {
    let mut rng = Rng(seed);
    let mut program = assemble(
        ".kernel fast\n.workgroup 32\n.grid 1\nend\n",
        "fast.s",
        None,
    )
    .expect("the header assembles");
    let end = program.code.clone();
    let mut code = Vec::new();
    let mut used = BTreeSet::new();
    for _ in 0..1 + rng.below(16) {
        let id = rng.pick(defs);
        used.insert(id);
        code.extend(random_instr(&mut rng, id));
    }
    code.extend(end);
    program.code = code;
    let options = LaunchOptions {
        quantum,
        max_instructions: None,
        ..LaunchOptions::default()
    };
    let mut fast = Machine::new(&program, options).expect("launch");
    randomize(&mut fast, &mut rng);
    let mut slow = fast.clone();
    let want = reference_run(&mut slow);
    let got = match fast.run(None) {
        Some(Event::Finished) => End::Finished,
        Some(Event::Fault(f)) => End::Fault(format!("{:?}", f.kind)),
        other => panic!("seed {seed:#x}: unexpected event {other:?}"),
    };
    let text: Vec<String> = {
        let mut pc = 0;
        let mut lines = Vec::new();
        while let Some(d) = slow.instr_at(pc) {
            lines.push(format!("{pc:#06x}: {}", d.instr.text(pc)));
            pc += d.len as u64;
        }
        lines
    };
    let context = format!(
        "seed {seed:#x}, quantum {quantum}, exec {:#x}\n{}",
        slow.waves[0].exec,
        text.join("\n")
    );
    assert_eq!(got, want, "{context}");
    let (a, b) = (&fast.waves[0], &slow.waves[0]);
    for r in 0..128 {
        assert_eq!(a.v[r], b.v[r], "v{r} differs: {context}");
    }
    assert_eq!(a.u, b.u, "{context}");
    assert_eq!(a.exec, b.exec, "{context}");
    assert_eq!(a.outstanding, b.outstanding, "{context}");
    if want != End::Finished {
        assert_eq!(a.pc, b.pc, "{context}");
    }
    used
}

#[test]
fn the_fast_loop_matches_the_reference() {
    let defs = fast_defs();
    // The fast set is what the kernels' loops are made of.
    let isa = Isa::get();
    let names: BTreeSet<&str> = defs.iter().map(|&id| isa.def(id).mnemonic()).collect();
    for m in [
        "vadd.u32",
        "vfma.f32",
        "vcmp.lt.i32",
        "uaddi",
        "br.unz",
        "vsel",
        "wait.vm",
        "wait.all",
    ] {
        assert!(names.contains(m), "{m} is not in the fast set: {names:?}");
    }
    let mut seen = BTreeSet::new();
    for case in 0..4000u64 {
        // Quantum 1 switches to the general loop's scheduler after every instruction.
        let quantum = [1, 3, 8, 1000][case as usize % 4];
        seen.extend(run_case(0xfa57_0000 + case, &defs, quantum));
    }
    let missed: Vec<&str> = defs
        .iter()
        .filter(|id| !seen.contains(id))
        .map(|&id| isa.def(id).mnemonic())
        .collect();
    assert!(missed.is_empty(), "never generated: {missed:?}");
}
