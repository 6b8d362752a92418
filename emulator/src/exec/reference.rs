//! The reference interpreter: a deliberately simple, obviously correct second
//! implementation of every instruction, used only to test the fast one.
//!
//! Where it lives: behind the `reference` feature of `wavedbg-emulator`, which nothing but
//! the crate's own dev-dependency on itself turns on (`emulator/Cargo.toml`). So it is
//! compiled for the crate's tests (`tests/lockstep.rs`), benches and
//! `cargo clippy --all-targets`, and never into the product: `cargo build` leaves this file
//! out.
//!
//! Why it exists: the fast semantics (`alu.rs`, `lsu.rs`, `xlane.rs`) are written for speed
//! (register-major, branch-free EXEC merging, shared helpers). Bugs there are easy to make
//! and hard to see. This file restates the same rules the slow, plain way, from the spec
//! rows (`isa/spec_rows.rs`, `isa/base_rows.rs`, docs/isa.md) and docs/memory.md: one lane
//! at a time, `for lane in 0..32 { if inactive { continue } ... }`, one `match` arm per
//! operation. `tests/lockstep.rs` runs random legal programs on both and compares the whole
//! machine state after every instruction (the model is tinygrad's comparison of its
//! emulator against a simple one).
//!
//! It shares no semantic code with the fast path. It never sees the fast path's decoding
//! (`Decoded`, the table's `Op` column and the enums of `isa/op.rs`): it takes the bare [`Instr`] and reads
//! what to do from the mnemonic text ([`decode`], written here) and from the table row
//! (which registers and immediates the operand syntax names, the `async:` counter).
//! Arithmetic, comparisons, conversions, the minimumNumber/maximumNumber rules, shuffles,
//! address computation, alignment, window, mapping and buffer-descriptor checks and atomics
//! are all written in this file. What it shares is data and state: the ISA table, the
//! [`Wave`] (including [`Wave::issue`], the async-counter bookkeeping), the memory
//! containers' raw byte reads and writes, and `Ctx::record` (the watchpoint log).
//!
//! [`execute`] has the contract of [`super::execute`]: it returns the same [`Flow`] and, on
//! a fault, the same [`ExecFault`] (kind, lane mask, address, length) and changes nothing.
//! Rules the docs leave open are settled as docs/memory.md settles them, and are marked
//! "(choice)" below:
//!
//! - fault precedence within one lane: shared/scratch check the window before the
//!   alignment; global addresses check the alignment before the mapping; a buffer access
//!   out of bounds is dropped before anything else is checked;
//! - a fault reports the kind and address of the lowest faulting lane, and the mask of all
//!   faulting lanes (which may have faulted for different reasons);
//! - an address outside a window below 0 is reported as the two's-complement offset;
//! - a uniform-load fault has lane mask 0 and the length of the whole load;
//! - minimumNumber / maximumNumber of two NaNs return the first operand, quieted;
//! - all sources are read before any destination is written (`exec.and.save u1, u1`
//!   narrows EXEC by the old `u1`).
//!
//! Every instruction with an `async:` latency counts on its counter (`Wave::issue`) with
//! the registers it writes (a load or `.rtn` atomic, even under EXEC 0), and each lane's
//! memory access goes to the watchpoint log (`Ctx::record`; stores and atomics with the
//! bytes they overwrite).
//!
//! Speed does not matter here; clarity does.

// The plain `for lane in 0..32` loops are the point of this file.
#![allow(clippy::needless_range_loop)]

use std::cmp::Ordering;

use super::{AccessKind, Ctx, ExecFault, Flow};
use crate::fault::FaultKind;
use crate::isa::{Counter, Instr, Latency, OperandKind, RegFile, Slot};
use crate::memory::Space;
use crate::wave::{RegRange, Wave};

/// Lanes of a wave.
const N: usize = 32;

// ---------------------------------------------------------------------------------------
// What an instruction does, read from its mnemonic
// ---------------------------------------------------------------------------------------

/// What an instruction does, as the reference reads it from the mnemonic alone.
///
/// Where the sources come from (a vector register, a uniform register or the immediate)
/// is not part of it: the reference reads that from the row's operand syntax when it
/// executes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Semantics {
    /// `ld.SPACE.TYPE`: reads `bytes` bytes into `ceil(bytes / 4)` registers.
    Load {
        /// How each lane's address is formed.
        at: Addressing,
        /// Bytes per lane from the type: 1, 2, 4, 8, 12 or 16.
        bytes: usize,
        /// Sign-extends the value (`i8`, `i16`); otherwise zero-extends.
        signed: bool,
    },
    /// `st.SPACE.bN`: writes the low `bytes` bytes of the data registers.
    Store {
        /// How each lane's address is formed.
        at: Addressing,
        /// Bytes per lane from `bN`: 1, 2, 4, 8, 12 or 16.
        bytes: usize,
    },
    /// `atom.SPACE.OP.TYPE[.rtn]`: a read-modify-write per lane.
    Atomic {
        /// How each lane's address is formed.
        at: Addressing,
        /// The new value computed from the old one and the data.
        rmw: Rmw,
        /// A 64-bit operation (`*64`); otherwise 32-bit.
        wide: bool,
        /// `.rtn`: the old value goes to `rd`.
        returns: bool,
    },
    /// `uld[.x|.buf|.bufx].bN`: one load for the whole wave into uniform registers.
    UniformLoad {
        /// Through a buffer descriptor (`.buf`, `.bufx`); otherwise a 64-bit pointer.
        descriptor: bool,
        /// Adds the index `zext(u2)` (`.x`, `.bufx`).
        indexed: bool,
        /// 32-bit values read, one per destination register: 1, 2, 4, 8 or 16.
        dwords: usize,
    },
    /// `cache.inv.*`: counts on its counter, changes no data.
    CacheInvalidate,
    /// `cache.wb.*`: counts on its counter, changes no data.
    CacheWriteBack,
    /// `shfl.*`: each lane reads `s1` of the lane the pattern selects.
    Shuffle(Pattern),
    /// `quad.swizzle`: a 2-bit selector per lane position within the quad.
    QuadSwizzle,
    /// `writelane`: one lane of `rd` from a uniform register.
    WriteLane,
    /// `readfirst`: `s1` of the lowest active lane to a uniform register.
    ReadFirst,
    /// `readlane[.u]`: `s1` of a chosen lane to a uniform register.
    ReadLane,
    /// `fddx.*`, `fddy.*`: a difference of two lanes of the quad.
    Derivative {
        /// `fddy` (lanes 2 apart); otherwise `fddx` (lanes 1 apart).
        y: bool,
        /// One value per quad; otherwise per lane pair.
        coarse: bool,
    },
    /// `xscan.add.u32`: the inclusive prefix sum over active lanes.
    ScanAdd,
    /// `ballot`: the mask of active lanes with `s1 != 0`.
    Ballot,
    /// `vote.*`.
    Vote(Agreement),
    /// `xred.*`: a reduction over the active lanes.
    Reduce(Reduction),
    /// `end`.
    End,
    /// `nop`.
    Nop,
    /// `brk`.
    Break,
    /// `trap`.
    Trap,
    /// `barrier`.
    Barrier,
    /// `wait.COUNTER`, or `wait.all` (`None`).
    Wait(Option<Counter>),
    /// `br*`.
    Branch(Condition),
    /// `exec.*`.
    Exec(ExecUpdate),
    /// `uwaveid`, `uwgid`, `uwgsize`, `ugridsize`, `unumwaves`.
    Id(LaunchValue),
    /// `umov`, `umovi`: `U[d] =` the source.
    UniformMove,
    /// Uniform two-operand ALU (`uadd`, `uandi`, `umin.i32`, ...).
    UniformAlu(Binary),
    /// `ucmp.*`, `ucmpi.*`: `U[d] = 1` if the comparison holds, else 0.
    UniformCompare(Compare),
    /// `uadd.u64`, `uaddi.u64`.
    UniformAdd64,
    /// `vmov`, `vmovi`, `vmov.u`: `d =` the source, in active lanes.
    VectorMove,
    /// Vector two-operand ALU (`vadd.u32`, `vandi`, `vshl.u`, `vmax.f32`, ...).
    VectorAlu(Binary),
    /// `vcmp.*`: the mask of active lanes where the comparison holds.
    VectorCompare(Compare),
    /// `vadd.u64`, `vaddi.u64`, `vadd.u64.u`.
    VectorAdd64,
    /// `vmov.u64.u`.
    VectorMove64,
    /// `vlaneid`.
    LaneId,
    /// `vcvt.TO.FROM`.
    Convert {
        /// The result's type.
        to: Number,
        /// The source's type.
        from: Number,
    },
    /// `vmad.u32`: `s1 * s2 + s3`, low 32 bits.
    MultiplyAdd,
    /// `vfma.f32`: `fma(s1, s2, s3)`, one rounding.
    FusedMultiplyAdd,
    /// `vsel`: `bit lane of U[s3] ? s2 : s1`.
    Select,
}

/// How a vector memory instruction forms a lane's address (the mnemonic's space).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Addressing {
    /// `.global`: `s1_64 + sext(imm)`.
    Global,
    /// `.ubase`: `U64[u2] + zext(s1) + sext(imm)`.
    UniformBase,
    /// `.buf`: `DESC(u2..u2+3).base + zext(s1) + sext(imm)`, bounds-checked.
    Buffer,
    /// `.shared`: `zext(s1) + sext(imm)` in the workgroup's shared window.
    Shared,
    /// `.scratch`: `zext(s1) + sext(imm)` in the lane's scratch.
    Scratch,
}

/// The read-modify-write of an atomic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rmw {
    /// `add`: `M + data`, wrapping.
    Add,
    /// `sub`: `M - data`, wrapping.
    Sub,
    /// `and`.
    And,
    /// `or`.
    Or,
    /// `xor`.
    Xor,
    /// `min.iN`.
    MinSigned,
    /// `max.iN`.
    MaxSigned,
    /// `min.uN`.
    MinUnsigned,
    /// `max.uN`.
    MaxUnsigned,
    /// `xchg`: `data`.
    Exchange,
    /// `cmpxchg`: `M == data0 ? data1 : M`.
    CompareExchange,
    /// `inc`: `old >= data ? 0 : old + 1`.
    Increment,
    /// `dec`: `old == 0 || old > data ? data : old - 1`.
    Decrement,
    /// `fadd.f32`.
    FloatAdd,
    /// `fmin.f32`: minimumNumber.
    FloatMin,
    /// `fmax.f32`: maximumNumber.
    FloatMax,
}

/// Which lane a shuffle reads, given the selector `x`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// `idx`: lane `x & 31`.
    Index,
    /// `up`: lane `lane - x` if `x <= lane`, else the lane itself.
    Up,
    /// `down`: lane `lane + x` if below 32, else the lane itself.
    Down,
    /// `xor`: lane `lane ^ (x & 31)`.
    Xor,
    /// `rot`: lane `(lane + x) & 31`.
    Rotate,
    /// `bcast`: lane `x & 31`, the same for every lane.
    Broadcast,
}

/// What a vote asks of the active lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agreement {
    /// `vote.any`: some `s1 != 0` (EXEC 0: 0).
    Any,
    /// `vote.all`: every `s1 != 0` (EXEC 0: 1).
    All,
    /// `vote.eq`: all `s1` equal (EXEC 0: 1).
    Equal,
}

/// The operator of a reduction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduction {
    /// `add.u32` (empty: 0).
    Sum,
    /// `min.i32` (empty: `INT_MAX`).
    MinSigned,
    /// `max.i32` (empty: `INT_MIN`).
    MaxSigned,
    /// `min.u32` (empty: `0xffffffff`).
    MinUnsigned,
    /// `max.u32` (empty: 0).
    MaxUnsigned,
    /// `and.b32` (empty: all ones).
    And,
    /// `or.b32` (empty: 0).
    Or,
    /// `xor.b32` (empty: 0).
    Xor,
}

/// When a branch is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Condition {
    /// `br`.
    Always,
    /// `br.uz`: `U[s1] == 0`.
    UniformZero,
    /// `br.unz`: `U[s1] != 0`.
    UniformNonZero,
    /// `br.execz`: `EXEC == 0`.
    ExecZero,
    /// `br.execnz`: `EXEC != 0`.
    ExecNonZero,
}

/// What an `exec.*` instruction does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecUpdate {
    /// `U[d] = EXEC`.
    Get,
    /// `EXEC = U[s1]`.
    Set,
    /// `U[d] = EXEC; EXEC = EXEC & U[s1]`.
    AndSave,
    /// `U[d] = EXEC; EXEC = EXEC & ~U[s1]`.
    AndNotSave,
}

/// A value of the launch an id instruction reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaunchValue {
    /// `uwaveid`: the wave's index within its workgroup.
    WaveIndex,
    /// `uwgid`: the workgroup id.
    Workgroup,
    /// `uwgsize`: lanes per workgroup.
    WorkgroupLanes,
    /// `ugridsize`: workgroups in the grid.
    GridSize,
    /// `unumwaves`: waves per workgroup.
    WavesPerWorkgroup,
}

/// A two-operand 32-bit operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binary {
    /// `a + b`, wrapping at 32 bits.
    Add,
    /// `a - b`, wrapping at 32 bits.
    Sub,
    /// Low 32 bits of the product.
    MulLow,
    /// High 32 bits of the unsigned product.
    MulHigh,
    /// Bitwise `a & b`.
    And,
    /// Bitwise `a | b`.
    Or,
    /// Bitwise `a ^ b`.
    Xor,
    /// `a << (b & 31)`.
    ShiftLeft,
    /// `a >> (b & 31)`, logical.
    ShiftRightLogical,
    /// `a >> (b & 31)`, arithmetic.
    ShiftRightArithmetic,
    /// `min(a, b)`, both two's-complement.
    MinSigned,
    /// `max(a, b)`, both two's-complement.
    MaxSigned,
    /// `min(a, b)`, both unsigned.
    MinUnsigned,
    /// `max(a, b)`, both unsigned.
    MaxUnsigned,
    /// f32 add.
    FloatAdd,
    /// f32 subtract.
    FloatSub,
    /// f32 multiply.
    FloatMul,
    /// f32 minimumNumber.
    FloatMin,
    /// f32 maximumNumber.
    FloatMax,
}

/// A comparison: a relation between the operands read as some kind of number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compare {
    /// `eq`, `ne`, `lt`, `le`, `gt`, `ge`.
    pub relation: Relation,
    /// How the 32 bits are read.
    pub reading: Number,
}

/// The relation of a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// `a == b`; for f32, false when either is a NaN.
    Eq,
    /// `a != b`; for f32, true when either is a NaN.
    Ne,
    /// `a < b`; for f32, false when either is a NaN.
    Lt,
    /// `a <= b`; for f32, false when either is a NaN.
    Le,
    /// `a > b`; for f32, false when either is a NaN.
    Gt,
    /// `a >= b`; for f32, false when either is a NaN.
    Ge,
}

/// How 32 bits are read as a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Number {
    /// Raw bits (`b32`, or no type: only equality is defined).
    Bits,
    /// Two's-complement integer (`i32`).
    Signed,
    /// Unsigned integer (`u32`).
    Unsigned,
    /// IEEE 754 binary32 (`f32`).
    Float,
}

/// What an instruction does, from its mnemonic; `None` for a mnemonic the reference does
/// not know (no table row should be one: `tests/lockstep.rs` checks every row).
pub fn decode(mnemonic: &str) -> Option<Semantics> {
    let parts: Vec<&str> = mnemonic.split('.').collect();
    match parts[..] {
        ["ld", space, ty] => {
            let (kind, bits) = typed(ty)?;
            let signed = match kind {
                'i' => true,
                'u' | 'b' => false,
                _ => return None,
            };
            Some(Semantics::Load {
                at: addressing(space)?,
                bytes: bytes_of(bits)?,
                signed,
            })
        }
        ["st", space, ty] => match typed(ty)? {
            ('b', bits) => Some(Semantics::Store {
                at: addressing(space)?,
                bytes: bytes_of(bits)?,
            }),
            _ => None,
        },
        ["atom", space, op, ty] => atomic_of(space, op, ty, false),
        ["atom", space, op, ty, "rtn"] => atomic_of(space, op, ty, true),
        ["uld", ty] => uniform_load_of(false, false, ty),
        ["uld", "x", ty] => uniform_load_of(false, true, ty),
        ["uld", "buf", ty] => uniform_load_of(true, false, ty),
        ["uld", "bufx", ty] => uniform_load_of(true, true, ty),
        ["cache", "inv", _] => Some(Semantics::CacheInvalidate),
        ["cache", "wb", _] => Some(Semantics::CacheWriteBack),
        // The selector (`s2`, `.vi` immediate, `.vu` uniform) is in the row's syntax.
        ["shfl", pattern] | ["shfl", pattern, "vi" | "vu"] => {
            Some(Semantics::Shuffle(match pattern {
                "idx" => Pattern::Index,
                "up" => Pattern::Up,
                "down" => Pattern::Down,
                "xor" => Pattern::Xor,
                "rot" => Pattern::Rotate,
                "bcast" => Pattern::Broadcast,
                _ => return None,
            }))
        }
        ["quad", "swizzle"] => Some(Semantics::QuadSwizzle),
        ["writelane"] => Some(Semantics::WriteLane),
        ["readfirst"] => Some(Semantics::ReadFirst),
        ["readlane"] | ["readlane", "u"] => Some(Semantics::ReadLane),
        [axis @ ("fddx" | "fddy"), grain @ ("fine" | "coarse"), "f32"] => {
            Some(Semantics::Derivative {
                y: axis == "fddy",
                coarse: grain == "coarse",
            })
        }
        ["xscan", "add", "u32"] => Some(Semantics::ScanAdd),
        ["ballot"] => Some(Semantics::Ballot),
        ["vote", "any"] => Some(Semantics::Vote(Agreement::Any)),
        ["vote", "all"] => Some(Semantics::Vote(Agreement::All)),
        ["vote", "eq"] => Some(Semantics::Vote(Agreement::Equal)),
        ["xred", op, ty] => Some(Semantics::Reduce(match (op, ty) {
            ("add", "u32") => Reduction::Sum,
            ("min", "i32") => Reduction::MinSigned,
            ("max", "i32") => Reduction::MaxSigned,
            ("min", "u32") => Reduction::MinUnsigned,
            ("max", "u32") => Reduction::MaxUnsigned,
            ("and", "b32") => Reduction::And,
            ("or", "b32") => Reduction::Or,
            ("xor", "b32") => Reduction::Xor,
            _ => return None,
        })),
        ["vcvt", to, from] => {
            let (to, from) = (number(to)?, number(from)?);
            // One side a float, the other an integer.
            let int = |n: Number| matches!(n, Number::Signed | Number::Unsigned);
            let ok = (to == Number::Float && int(from)) || (int(to) && from == Number::Float);
            ok.then_some(Semantics::Convert { to, from })
        }
        ["ucmp" | "ucmpi", ref rest @ ..] => Some(Semantics::UniformCompare(compare_of(rest)?)),
        ["vcmp", ref rest @ ..] => Some(Semantics::VectorCompare(compare_of(rest)?)),
        _ => base_of(mnemonic),
    }
}

/// A type token `u8`, `i16`, `b128`, `f32`, ...: its kind letter and width in bits.
fn typed(ty: &str) -> Option<(char, usize)> {
    let mut chars = ty.chars();
    let kind = chars.next()?;
    let bits: usize = chars.as_str().parse().ok()?;
    Some((kind, bits))
}

/// Whole bytes of a width in bits.
fn bytes_of(bits: usize) -> Option<usize> {
    (bits > 0 && bits.is_multiple_of(8)).then_some(bits / 8)
}

fn addressing(space: &str) -> Option<Addressing> {
    Some(match space {
        "global" => Addressing::Global,
        "ubase" => Addressing::UniformBase,
        "buf" => Addressing::Buffer,
        "shared" => Addressing::Shared,
        "scratch" => Addressing::Scratch,
        _ => return None,
    })
}

/// `atom.SPACE.OP.TYPE`: the operation from OP and the kind of TYPE (`u`, `i`, `b`, `f`).
fn atomic_of(space: &str, op: &str, ty: &str, returns: bool) -> Option<Semantics> {
    let (kind, bits) = typed(ty)?;
    let wide = match bits {
        32 => false,
        64 => true,
        _ => return None,
    };
    let rmw = match (op, kind) {
        ("add", 'u') => Rmw::Add,
        ("sub", 'u') => Rmw::Sub,
        ("and", 'b') => Rmw::And,
        ("or", 'b') => Rmw::Or,
        ("xor", 'b') => Rmw::Xor,
        ("min", 'i') => Rmw::MinSigned,
        ("max", 'i') => Rmw::MaxSigned,
        ("min", 'u') => Rmw::MinUnsigned,
        ("max", 'u') => Rmw::MaxUnsigned,
        ("xchg", 'b') => Rmw::Exchange,
        ("cmpxchg", 'b') => Rmw::CompareExchange,
        ("inc", 'u') => Rmw::Increment,
        ("dec", 'u') => Rmw::Decrement,
        // Float atomics are f32 only.
        ("fadd", 'f') if !wide => Rmw::FloatAdd,
        ("fmin", 'f') if !wide => Rmw::FloatMin,
        ("fmax", 'f') if !wide => Rmw::FloatMax,
        _ => return None,
    };
    Some(Semantics::Atomic {
        at: addressing(space)?,
        rmw,
        wide,
        returns,
    })
}

/// `uld[.x|.buf|.bufx].bN`: N bits, a whole number of dwords.
fn uniform_load_of(descriptor: bool, indexed: bool, ty: &str) -> Option<Semantics> {
    match typed(ty)? {
        ('b', bits) if bits > 0 && bits.is_multiple_of(32) => Some(Semantics::UniformLoad {
            descriptor,
            indexed,
            dwords: bits / 32,
        }),
        _ => None,
    }
}

fn number(ty: &str) -> Option<Number> {
    Some(match ty {
        "b32" => Number::Bits,
        "i32" => Number::Signed,
        "u32" => Number::Unsigned,
        "f32" => Number::Float,
        _ => return None,
    })
}

/// The parts after `ucmp.`, `ucmpi.` or `vcmp.`: a relation and a type (`eq` and `ne`
/// may omit it: raw bits).
fn compare_of(parts: &[&str]) -> Option<Compare> {
    let (relation, reading) = match parts {
        [r] => (*r, Number::Bits),
        [r, ty] => (*r, number(ty)?),
        _ => return None,
    };
    let relation = match relation {
        "eq" => Relation::Eq,
        "ne" => Relation::Ne,
        "lt" => Relation::Lt,
        "le" => Relation::Le,
        "gt" => Relation::Gt,
        "ge" => Relation::Ge,
        _ => return None,
    };
    // Ordering raw bits means nothing: the table always names the type.
    let ordered = !matches!(relation, Relation::Eq | Relation::Ne);
    if ordered && reading == Number::Bits {
        return None;
    }
    Some(Compare { relation, reading })
}

/// The rest of the base group, one mnemonic at a time (docs/isa.md, `isa/base_rows.rs`).
/// Register, uniform (`.u`) and immediate (`...i`) forms of one operation share an arm:
/// the reference reads the second source from the row's syntax.
fn base_of(mnemonic: &str) -> Option<Semantics> {
    use Binary as B;
    use Semantics as S;
    Some(match mnemonic {
        "end" => S::End,
        "nop" => S::Nop,
        "brk" => S::Break,
        "trap" => S::Trap,
        "barrier" => S::Barrier,
        "wait.vm" => S::Wait(Some(Counter::Vm)),
        "wait.vst" => S::Wait(Some(Counter::Vst)),
        "wait.ls" => S::Wait(Some(Counter::Ls)),
        "wait.sm" => S::Wait(Some(Counter::Sm)),
        "wait.all" => S::Wait(None),
        "br" => S::Branch(Condition::Always),
        "br.uz" => S::Branch(Condition::UniformZero),
        "br.unz" => S::Branch(Condition::UniformNonZero),
        "br.execz" => S::Branch(Condition::ExecZero),
        "br.execnz" => S::Branch(Condition::ExecNonZero),
        "exec.get" => S::Exec(ExecUpdate::Get),
        "exec.set" => S::Exec(ExecUpdate::Set),
        "exec.and.save" => S::Exec(ExecUpdate::AndSave),
        "exec.andn.save" => S::Exec(ExecUpdate::AndNotSave),
        "uwaveid" => S::Id(LaunchValue::WaveIndex),
        "uwgid" => S::Id(LaunchValue::Workgroup),
        "uwgsize" => S::Id(LaunchValue::WorkgroupLanes),
        "ugridsize" => S::Id(LaunchValue::GridSize),
        "unumwaves" => S::Id(LaunchValue::WavesPerWorkgroup),
        "umov" | "umovi" => S::UniformMove,
        "uadd" | "uaddi" => S::UniformAlu(B::Add),
        "usub" => S::UniformAlu(B::Sub),
        "umul" | "umuli" => S::UniformAlu(B::MulLow),
        "uand" | "uandi" => S::UniformAlu(B::And),
        "uor" | "uori" => S::UniformAlu(B::Or),
        "uxor" | "uxori" => S::UniformAlu(B::Xor),
        "ushl" | "ushli" => S::UniformAlu(B::ShiftLeft),
        "ushr" | "ushri" => S::UniformAlu(B::ShiftRightLogical),
        "usra" => S::UniformAlu(B::ShiftRightArithmetic),
        "umin.i32" => S::UniformAlu(B::MinSigned),
        "umax.i32" => S::UniformAlu(B::MaxSigned),
        "umin.u32" => S::UniformAlu(B::MinUnsigned),
        "umax.u32" => S::UniformAlu(B::MaxUnsigned),
        "uadd.u64" | "uaddi.u64" => S::UniformAdd64,
        "vmov" | "vmovi" | "vmov.u" => S::VectorMove,
        "vadd.u32" | "vadd.u32.u" | "vaddi.u32" => S::VectorAlu(B::Add),
        "vsub.u32" | "vsub.u32.u" => S::VectorAlu(B::Sub),
        "vmul.u32" | "vmul.u32.u" | "vmuli.u32" => S::VectorAlu(B::MulLow),
        "vmulhi.u32" => S::VectorAlu(B::MulHigh),
        "vand" | "vand.u" | "vandi" => S::VectorAlu(B::And),
        "vor" | "vor.u" | "vori" => S::VectorAlu(B::Or),
        "vxor" | "vxor.u" | "vxori" => S::VectorAlu(B::Xor),
        "vshl" | "vshl.u" | "vshli" => S::VectorAlu(B::ShiftLeft),
        "vshr" | "vshr.u" | "vshri" => S::VectorAlu(B::ShiftRightLogical),
        "vsra" | "vsra.u" | "vsrai" => S::VectorAlu(B::ShiftRightArithmetic),
        "vmin.i32" => S::VectorAlu(B::MinSigned),
        "vmax.i32" => S::VectorAlu(B::MaxSigned),
        "vmin.u32" => S::VectorAlu(B::MinUnsigned),
        "vmax.u32" => S::VectorAlu(B::MaxUnsigned),
        "vadd.f32" | "vaddi.f32" => S::VectorAlu(B::FloatAdd),
        "vsub.f32" => S::VectorAlu(B::FloatSub),
        "vmul.f32" | "vmuli.f32" => S::VectorAlu(B::FloatMul),
        "vmin.f32" => S::VectorAlu(B::FloatMin),
        "vmax.f32" => S::VectorAlu(B::FloatMax),
        "vadd.u64" | "vaddi.u64" | "vadd.u64.u" => S::VectorAdd64,
        "vmov.u64.u" => S::VectorMove64,
        "vlaneid" => S::LaneId,
        "vmad.u32" => S::MultiplyAdd,
        "vfma.f32" => S::FusedMultiplyAdd,
        "vsel" => S::Select,
        _ => return None,
    })
}

// ---------------------------------------------------------------------------------------
// Operands, as the row's syntax names them
// ---------------------------------------------------------------------------------------

/// Where a source operand's value comes from.
#[derive(Debug, Clone, Copy)]
enum Source {
    /// `count` vector registers from the first: one value per lane.
    Vector(usize, u8),
    /// `count` uniform registers from the first: one value for the wave.
    Uniform(usize, u8),
    /// An immediate as encoded (`imm`, or a lane number in a register field).
    Immediate(i64),
}

impl Source {
    /// The 32-bit value in `lane`: the first register, or the immediate's bit pattern.
    fn word(self, w: &Wave, lane: usize) -> u32 {
        match self {
            Source::Vector(r, _) => w.v[r][lane],
            Source::Uniform(r, _) => w.u[r],
            Source::Immediate(x) => x as u32,
        }
    }

    /// The 64-bit value in `lane`: a register pair as one value (low register first), one
    /// register zero-extended, the 32-bit immediate sign-extended (docs/isa.md:
    /// `zext(s2)`, `zext(U[s2])`, `sext(imm)`).
    fn wide(self, w: &Wave, lane: usize) -> u64 {
        match self {
            Source::Vector(r, 2) => pair(w.v[r][lane], w.v[r + 1][lane]),
            Source::Uniform(r, 2) => pair(w.u[r], w.u[r + 1]),
            Source::Vector(..) | Source::Uniform(..) => self.word(w, lane) as u64,
            Source::Immediate(x) => x as u32 as i32 as i64 as u64,
        }
    }
}

/// The instruction's sources in syntax order: every operand but `rd` and `cpol`.
fn sources(i: &Instr) -> Vec<Source> {
    let mut out = Vec::new();
    for o in &i.def().operands {
        if o.slot == Slot::Rd {
            continue;
        }
        let value = i.get(o.slot);
        out.push(match o.kind {
            OperandKind::Reg {
                file: RegFile::Vector,
                count,
            } => Source::Vector(value as usize, count),
            OperandKind::Reg {
                file: RegFile::Uniform,
                count,
            } => Source::Uniform(value as usize, count),
            OperandKind::Imm(_) => Source::Immediate(value),
            OperandKind::Cpol => continue,
        });
    }
    out
}

/// Exactly `K` sources, or an illegal instruction (a row whose syntax does not fit its
/// mnemonic: the table tests rule it out).
fn exactly<const K: usize>(i: &Instr, sources: &[Source]) -> Result<[Source; K], ExecFault> {
    <[Source; K]>::try_from(sources).map_err(|_| {
        illegal(
            i,
            &format!("{} sources where the reference expects {K}", sources.len()),
        )
    })
}

// ---------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------

/// The canonical quiet NaN every NaN arithmetic result becomes (docs/memory.md).
const CANONICAL_NAN: u32 = 0x7fc0_0000;
/// The quiet bit of an f32 NaN.
const QUIET_BIT: u32 = 0x0040_0000;
const NEGATIVE_ZERO: u32 = 0x8000_0000;
const POSITIVE_ZERO: u32 = 0;

fn is_active(exec: u32, lane: usize) -> bool {
    (exec >> lane) & 1 == 1
}

fn fl(bits: u32) -> f32 {
    f32::from_bits(bits)
}

/// Whether f32 bits are a NaN: all exponent bits set and a non-zero fraction.
fn is_nan(bits: u32) -> bool {
    bits & 0x7f80_0000 == 0x7f80_0000 && bits & 0x007f_ffff != 0
}

/// An arithmetic result's bits: a NaN is the canonical NaN (payloads are not carried).
fn arith(x: f32) -> u32 {
    let bits = x.to_bits();
    if is_nan(bits) {
        CANONICAL_NAN
    } else {
        bits
    }
}

fn pair(lo: u32, hi: u32) -> u64 {
    ((hi as u64) << 32) | lo as u64
}

fn plain(kind: FaultKind) -> ExecFault {
    ExecFault {
        kind,
        lanes: 0,
        addr: None,
        len: 0,
    }
}

fn illegal(i: &Instr, why: &str) -> ExecFault {
    plain(FaultKind::IllegalInstruction {
        reason: format!("reference: {why} for {}", i.def().mnemonic()),
    })
}

/// Counts an issued async operation (rows with an `async:` latency) with the registers it
/// will write.
fn issue(ctx: &mut Ctx<'_>, i: &Instr, pc: u64, regs: Option<RegRange>) {
    if let Latency::Async(counter) = i.def().latency {
        ctx.wave.issue(counter, pc, regs);
    }
}

/// Executes one instruction at `pc` on `ctx.wave`, the simple way.
pub fn execute(ctx: &mut Ctx<'_>, instr: &Instr, pc: u64) -> Result<Flow, ExecFault> {
    let Some(sem) = decode(instr.def().mnemonic()) else {
        return Err(illegal(instr, "no semantics"));
    };
    use Semantics as S;
    match sem {
        S::Load { at, bytes, signed } => load(ctx, instr, pc, at, bytes, signed),
        S::Store { at, bytes } => store(ctx, instr, pc, at, bytes),
        S::Atomic {
            at,
            rmw,
            wide,
            returns,
        } => atomic(ctx, instr, pc, at, rmw, wide, returns),
        S::UniformLoad {
            descriptor,
            indexed,
            dwords,
        } => uniform_load(ctx, instr, pc, descriptor, indexed, dwords),
        // Cache maintenance changes no data: it only counts (flag `ei`: even with EXEC 0).
        S::CacheInvalidate | S::CacheWriteBack => {
            issue(ctx, instr, pc, None);
            Ok(Flow::Next)
        }
        S::Shuffle(_)
        | S::QuadSwizzle
        | S::WriteLane
        | S::ReadFirst
        | S::ReadLane
        | S::Derivative { .. }
        | S::ScanAdd
        | S::Ballot
        | S::Vote(_)
        | S::Reduce(_) => cross_lane(ctx, instr, sem),
        _ => base(ctx, instr, pc, sem),
    }
}

// ---------------------------------------------------------------------------------------
// Memory (spec group 4, docs/memory.md)
// ---------------------------------------------------------------------------------------

/// Where one active lane's access goes, after its checks passed.
#[derive(Debug, Clone, Copy)]
enum Place {
    /// A global address.
    Global(u64),
    /// An offset in the workgroup's shared window.
    Shared(u64),
    /// An offset in the lane's own scratch.
    Scratch(u64),
    /// A buffer access out of bounds or through a null descriptor: reads 0, writes nothing.
    Nowhere,
}

/// A buffer descriptor in four uniform registers (docs/memory.md): dwords 0-1 the base
/// address, dword 2 the size in bytes, dword 3 flags with bit 0 *valid*.
struct Descriptor {
    base: u64,
    size: u64,
    valid: bool,
}

impl Descriptor {
    fn at(u: &[u32], first: usize) -> Self {
        Self {
            base: pair(u[first], u[first + 1]),
            size: u[first + 2] as u64,
            valid: u[first + 3] & 1 == 1,
        }
    }

    /// The global address of `[offset, offset + len)` when every byte of it lies in
    /// `[0, size)` of a non-null descriptor (not valid, or base 0, is null); `None` when
    /// the access is out of bounds (partial overlap included).
    fn address(&self, offset: i64, len: u64) -> Option<u64> {
        let null = !self.valid || self.base == 0;
        if null || offset < 0 {
            return None;
        }
        let first = offset as u64;
        if first + len > self.size {
            return None;
        }
        Some(self.base.wrapping_add(first))
    }
}

/// Whether every byte of `[addr, addr + size)` lies in one allocated buffer.
fn mapped(ctx: &Ctx<'_>, addr: u64, size: u64) -> bool {
    let Some(end) = addr.checked_add(size) else {
        return false;
    };
    ctx.global
        .allocations()
        .iter()
        .any(|a| a.base <= addr && end <= a.base + a.data.len())
}

/// A global address: misaligned before unmapped (choice).
fn global_place(
    ctx: &Ctx<'_>,
    addr: u64,
    size: u64,
    align: u64,
) -> Result<Place, (FaultKind, u64)> {
    if !addr.is_multiple_of(align) {
        let kind = FaultKind::Misaligned {
            space: Space::Global,
            align: align as u32,
        };
        return Err((kind, addr));
    }
    if !mapped(ctx, addr, size) {
        return Err((FaultKind::Unmapped, addr));
    }
    Ok(Place::Global(addr))
}

/// The place of one lane's access of `size` bytes that must be aligned to `align`.
fn lane_place(
    ctx: &Ctx<'_>,
    i: &Instr,
    at: Addressing,
    lane: usize,
    size: u64,
    align: u64,
) -> Result<Place, (FaultKind, u64)> {
    let w = &*ctx.wave;
    let (rs1, rs2) = (i.rs1 as usize, i.rs2 as usize);
    let s1 = w.v[rs1][lane];
    // The decoder sign-extends imm24 already: `imm` is sext(imm).
    let imm: i64 = i.imm;
    match at {
        // A = s1_64 + sext(imm), wrapping.
        Addressing::Global => {
            let a = pair(s1, w.v[rs1 + 1][lane]);
            global_place(ctx, a.wrapping_add(imm as u64), size, align)
        }
        // A = U64[u2] + zext(s1) + sext(imm), wrapping.
        Addressing::UniformBase => {
            let base = pair(w.u[rs2], w.u[rs2 + 1]);
            let a = base.wrapping_add(s1 as u64).wrapping_add(imm as u64);
            global_place(ctx, a, size, align)
        }
        // A = DESC.base + zext(s1) + sext(imm); the whole access must lie in [0, size) of a
        // non-null descriptor, or it is dropped (no fault, no alignment check).
        Addressing::Buffer => {
            let offset = s1 as i64 + imm;
            match Descriptor::at(&w.u, rs2).address(offset, size) {
                Some(a) => global_place(ctx, a, size, align),
                None => Ok(Place::Nowhere),
            }
        }
        Addressing::Shared | Addressing::Scratch => {
            let (space, window) = if at == Addressing::Shared {
                (Space::Shared, ctx.shared.len())
            } else {
                (Space::Scratch, ctx.scratch_bytes)
            };
            // A = zext(s1) + sext(imm); any byte outside [0, window) faults, then
            // alignment (choice: window first).
            let offset: i64 = s1 as i64 + imm;
            if offset < 0 || offset + size as i64 > window as i64 {
                let kind = FaultKind::OutOfWindow {
                    space,
                    size: window,
                };
                return Err((kind, offset as u64));
            }
            let offset = offset as u64;
            if !offset.is_multiple_of(align) {
                let kind = FaultKind::Misaligned {
                    space,
                    align: align as u32,
                };
                return Err((kind, offset));
            }
            Ok(if space == Space::Shared {
                Place::Shared(offset)
            } else {
                Place::Scratch(offset)
            })
        }
    }
}

/// Checks every active lane before anything is touched. The fault (if any) is that of the
/// lowest faulting lane, with every faulting lane in its mask.
fn check_lanes(
    ctx: &Ctx<'_>,
    i: &Instr,
    at: Addressing,
    size: u64,
    align: u64,
) -> Result<[Option<Place>; N], ExecFault> {
    let exec = ctx.wave.exec;
    let mut places = [None; N];
    let mut fault: Option<ExecFault> = None;
    for lane in 0..N {
        if !is_active(exec, lane) {
            continue;
        }
        match lane_place(ctx, i, at, lane, size, align) {
            Ok(p) => places[lane] = Some(p),
            Err((kind, addr)) => match fault.as_mut() {
                Some(f) => f.lanes |= 1 << lane,
                None => {
                    fault = Some(ExecFault {
                        kind,
                        lanes: 1 << lane,
                        addr: Some(addr),
                        len: size as u32,
                    })
                }
            },
        }
    }
    match fault {
        Some(f) => Err(f),
        None => Ok(places),
    }
}

/// Reads `out.len()` bytes for `lane` (zeros for a dropped access), recording nothing.
fn peek(ctx: &Ctx<'_>, p: Place, lane: usize, out: &mut [u8]) {
    match p {
        Place::Global(a) => {
            if ctx.global.read(a, out).is_none() {
                // Checked before: cannot happen.
                out.fill(0);
            }
        }
        Place::Shared(o) => ctx.shared.read(o, out),
        Place::Scratch(o) => ctx
            .wave
            .scratch
            .read(lane as u64 * ctx.scratch_bytes + o, out),
        Place::Nowhere => out.fill(0),
    }
}

/// Records one lane's access for the watchpoints (a dropped access touches nothing).
/// `old` is the memory's content before the access.
fn record(ctx: &mut Ctx<'_>, p: Place, lane: usize, len: u32, kind: AccessKind, old: &[u8]) {
    match p {
        Place::Global(a) => ctx.record(Space::Global, a, len, lane, kind, old),
        Place::Shared(o) => ctx.record(Space::Shared, o, len, lane, kind, old),
        Place::Scratch(o) => ctx.record(Space::Scratch, o, len, lane, kind, old),
        Place::Nowhere => {}
    }
}

/// Reads `out.len()` bytes for `lane` and records the access.
fn read_place(ctx: &mut Ctx<'_>, p: Place, lane: usize, out: &mut [u8], kind: AccessKind) {
    peek(ctx, p, lane, out);
    record(ctx, p, lane, out.len() as u32, kind, out);
}

/// Writes bytes for `lane` (nothing for a dropped access). Records nothing: the caller
/// records stores, and an atomic was recorded once when it read.
fn write_place(ctx: &mut Ctx<'_>, p: Place, lane: usize, data: &[u8]) {
    match p {
        Place::Global(a) => {
            // Checked before: the write cannot miss.
            let _ = ctx.global.write(a, data);
        }
        Place::Shared(o) => ctx.shared.write(o, data),
        Place::Scratch(o) => {
            let at = lane as u64 * ctx.scratch_bytes + o;
            ctx.wave.scratch.write(at, data);
        }
        Place::Nowhere => {}
    }
}

/// Alignment docs/memory.md asks of a load or store of `bytes`: natural up to 4.
fn load_store_alignment(bytes: usize) -> u64 {
    match bytes {
        1 => 1,
        2 => 2,
        _ => 4,
    }
}

/// Dword `k` of little-endian bytes.
fn dword(bytes: &[u8], k: usize) -> u32 {
    let b = &bytes[4 * k..4 * k + 4];
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

fn load(
    ctx: &mut Ctx<'_>,
    i: &Instr,
    pc: u64,
    at: Addressing,
    bytes: usize,
    signed: bool,
) -> Result<Flow, ExecFault> {
    let places = check_lanes(ctx, i, at, bytes as u64, load_store_alignment(bytes))?;
    let rd = i.rd as usize;
    let dwords = bytes.div_ceil(4);
    for lane in 0..N {
        let Some(p) = places[lane] else { continue };
        // Unread bytes stay 0: a narrow load is zero-extended.
        let mut data = [0u8; 16];
        read_place(ctx, p, lane, &mut data[..bytes], AccessKind::Read);
        for k in 0..dwords {
            ctx.wave.v[rd + k][lane] = dword(&data, k);
        }
        if signed && bytes < 4 {
            // Sign-extend: move the value's top bit to bit 31, shift back arithmetically.
            let unused = 32 - 8 * bytes as u32;
            let x = ctx.wave.v[rd][lane];
            ctx.wave.v[rd][lane] = (((x << unused) as i32) >> unused) as u32;
        }
    }
    let regs = RegRange {
        file: RegFile::Vector,
        first: rd as u8,
        count: dwords as u8,
    };
    issue(ctx, i, pc, Some(regs));
    Ok(Flow::Next)
}

fn store(
    ctx: &mut Ctx<'_>,
    i: &Instr,
    pc: u64,
    at: Addressing,
    bytes: usize,
) -> Result<Flow, ExecFault> {
    let places = check_lanes(ctx, i, at, bytes as u64, load_store_alignment(bytes))?;
    let rd = i.rd as usize;
    // Ascending lane order: the highest lane's store to an address remains.
    for lane in 0..N {
        let Some(p) = places[lane] else { continue };
        let mut data = Vec::new();
        for k in 0..bytes.div_ceil(4) {
            data.extend_from_slice(&ctx.wave.v[rd + k][lane].to_le_bytes());
        }
        data.truncate(bytes);
        // Recorded with the bytes it overwrites.
        let mut before = vec![0u8; bytes];
        peek(ctx, p, lane, &mut before);
        record(ctx, p, lane, bytes as u32, AccessKind::Write, &before);
        write_place(ctx, p, lane, &data);
    }
    issue(ctx, i, pc, None);
    Ok(Flow::Next)
}

/// The order minimumNumber and maximumNumber use on two non-NaN values: numeric, with -0
/// below +0. Whether `x` comes strictly before `y`.
fn below(x: u32, y: u32) -> bool {
    fl(x) < fl(y) || (x == NEGATIVE_ZERO && y == POSITIVE_ZERO)
}

/// IEEE 754-2019 minimumNumber: a NaN operand yields the other; -0 < +0; two NaNs give
/// the first, quieted (choice).
fn minimum_number(a: u32, b: u32) -> u32 {
    match (is_nan(a), is_nan(b)) {
        (true, true) => a | QUIET_BIT,
        (true, false) => b,
        (false, true) => a,
        (false, false) => {
            if below(b, a) {
                b
            } else {
                a
            }
        }
    }
}

/// IEEE 754-2019 maximumNumber: a NaN operand yields the other; +0 > -0; two NaNs give
/// the first, quieted (choice).
fn maximum_number(a: u32, b: u32) -> u32 {
    match (is_nan(a), is_nan(b)) {
        (true, true) => a | QUIET_BIT,
        (true, false) => b,
        (false, true) => a,
        (false, false) => {
            if below(a, b) {
                b
            } else {
                a
            }
        }
    }
}

/// The new memory value of an atomic of `bits` (32 or 64; spec rows, docs/memory.md),
/// computed on the values zero-extended to 64 bits; `None` for a 64-bit float operation,
/// which no instruction encodes ([`decode`] never makes one).
fn atomic_value(op: Rmw, bits: u32, old: u64, data: u64, data1: u64) -> Option<u64> {
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    // Signed comparisons on the operand width.
    let signed = |x: u64| ((x << (64 - bits)) as i64) >> (64 - bits);
    let value = match op {
        Rmw::Add => old.wrapping_add(data),
        Rmw::Sub => old.wrapping_sub(data),
        Rmw::And => old & data,
        Rmw::Or => old | data,
        Rmw::Xor => old ^ data,
        Rmw::MinSigned => {
            if signed(old) <= signed(data) {
                old
            } else {
                data
            }
        }
        Rmw::MaxSigned => {
            if signed(old) >= signed(data) {
                old
            } else {
                data
            }
        }
        Rmw::MinUnsigned => old.min(data),
        Rmw::MaxUnsigned => old.max(data),
        Rmw::Exchange => data,
        Rmw::CompareExchange => {
            if old == data {
                data1
            } else {
                old
            }
        }
        Rmw::Increment => {
            if old >= data {
                0
            } else {
                old + 1
            }
        }
        Rmw::Decrement => {
            if old == 0 || old > data {
                data
            } else {
                old - 1
            }
        }
        Rmw::FloatAdd | Rmw::FloatMin | Rmw::FloatMax if bits == 64 => return None,
        Rmw::FloatAdd => arith(fl(old as u32) + fl(data as u32)) as u64,
        Rmw::FloatMin => minimum_number(old as u32, data as u32) as u64,
        Rmw::FloatMax => maximum_number(old as u32, data as u32) as u64,
    };
    Some(value & mask)
}

fn atomic(
    ctx: &mut Ctx<'_>,
    i: &Instr,
    pc: u64,
    at: Addressing,
    op: Rmw,
    wide: bool,
    returns: bool,
) -> Result<Flow, ExecFault> {
    // Atomics are naturally aligned: 4 or 8 bytes.
    let size: u64 = if wide { 8 } else { 4 };
    let places = check_lanes(ctx, i, at, size, size)?;
    let rd = i.rd as usize;
    // data0 in v[d] (v[d:d+1]); cmpxchg's data1 in v[d+1] (v[d+2:d+3]). Registers a form
    // does not use are not read.
    let words = if wide { 2 } else { 1 };
    let data_regs = if op == Rmw::CompareExchange {
        2 * words
    } else {
        words
    };
    // Ascending lane order: each lane sees the value the lanes below it left.
    for lane in 0..N {
        let Some(p) = places[lane] else { continue };
        let mut v = [0u32; 4];
        for k in 0..data_regs {
            v[k] = ctx.wave.v[rd + k][lane];
        }
        let mut buf = [0u8; 8];
        read_place(
            ctx,
            p,
            lane,
            &mut buf[..size as usize],
            AccessKind::ReadWrite,
        );
        let old = u64::from_le_bytes(buf);
        let (bits, data, data1) = if wide {
            (64, pair(v[0], v[1]), pair(v[2], v[3]))
        } else {
            (32, v[0] as u64, v[1] as u64)
        };
        let Some(new) = atomic_value(op, bits, old, data, data1) else {
            return Err(illegal(i, "no 64-bit float atomic"));
        };
        write_place(ctx, p, lane, &new.to_le_bytes()[..size as usize]);
        // `.rtn`: the old value (0 for a dropped buffer access) to v[d] (v[d:d+1]).
        if returns {
            ctx.wave.v[rd][lane] = old as u32;
            if wide {
                ctx.wave.v[rd + 1][lane] = (old >> 32) as u32;
            }
        }
    }
    let regs = returns.then_some(RegRange {
        file: RegFile::Vector,
        first: rd as u8,
        count: words as u8,
    });
    issue(ctx, i, pc, regs);
    Ok(Flow::Next)
}

/// `uld.*`: ignores EXEC (flag `ei`), loads `dwords` dwords into `u[d..]`.
fn uniform_load(
    ctx: &mut Ctx<'_>,
    i: &Instr,
    pc: u64,
    descriptor: bool,
    indexed: bool,
    dwords: usize,
) -> Result<Flow, ExecFault> {
    let (rd, rs1, rs2) = (i.rd as usize, i.rs1 as usize, i.rs2 as usize);
    let len = 4 * dwords as u32;
    let fault = |kind: FaultKind, addr: u64| ExecFault {
        kind,
        lanes: 0,
        addr: Some(addr),
        len,
    };
    let misaligned = || FaultKind::Misaligned {
        space: Space::Global,
        align: 4,
    };
    let u = ctx.wave.u;
    // The index u2 is zero-extended (docs/memory.md).
    let index: u64 = if indexed { u[rs2] as u64 } else { 0 };
    let mut vals = vec![0u32; dwords];
    if !descriptor {
        // A = U64[u1] (+ zext(u2)) + sext(imm): one access, 4-byte aligned, all mapped.
        let addr = pair(u[rs1], u[rs1 + 1])
            .wrapping_add(index)
            .wrapping_add(i.imm as u64);
        if !addr.is_multiple_of(4) {
            return Err(fault(misaligned(), addr));
        }
        if !mapped(ctx, addr, len as u64) {
            return Err(fault(FaultKind::Unmapped, addr));
        }
        let mut bytes = vec![0u8; len as usize];
        let _ = ctx.global.read(addr, &mut bytes);
        for (k, val) in vals.iter_mut().enumerate() {
            *val = dword(&bytes, k);
        }
        // (Lane 0 stands for the wave.)
        ctx.record(Space::Global, addr, len, 0, AccessKind::Read, &bytes);
    } else {
        // A = DESC.base (+ zext(u2)) + sext(imm); each dword is checked on its own: out of
        // bounds (or null) reads 0.
        let desc = Descriptor::at(&u, rs1);
        for (k, val) in vals.iter_mut().enumerate() {
            let offset = index as i64 + i.imm + 4 * k as i64;
            let Some(addr) = desc.address(offset, 4) else {
                continue;
            };
            if !addr.is_multiple_of(4) {
                return Err(fault(misaligned(), addr));
            }
            if !mapped(ctx, addr, 4) {
                return Err(fault(FaultKind::Unmapped, addr));
            }
            let mut b = [0u8; 4];
            let _ = ctx.global.read(addr, &mut b);
            *val = u32::from_le_bytes(b);
            ctx.record(Space::Global, addr, 4, 0, AccessKind::Read, &b);
        }
    }
    for (k, val) in vals.iter().enumerate() {
        ctx.wave.u[rd + k] = *val;
    }
    let regs = RegRange {
        file: RegFile::Uniform,
        first: rd as u8,
        count: dwords as u8,
    };
    issue(ctx, i, pc, Some(regs));
    Ok(Flow::Next)
}

// ---------------------------------------------------------------------------------------
// Cross-lane (spec group 5): sources are read from every lane, active or not; vector
// results go to active lanes only (writelane: flag `ei`).
// ---------------------------------------------------------------------------------------

/// The lane a shuffle reads for `lane`, given its selector `x` (delta, index or mask).
fn shuffle_lane(pattern: Pattern, lane: usize, x: u64) -> usize {
    let lane = lane as u64;
    let from = match pattern {
        // d = s1[x & 31]
        Pattern::Index | Pattern::Broadcast => x % 32,
        // d = (x <= lane) ? s1[lane - x] : s1[lane]; the delta is not truncated.
        Pattern::Up => {
            if x <= lane {
                lane - x
            } else {
                lane
            }
        }
        // j = lane + x; d = (j < 32) ? s1[j] : s1[lane]
        Pattern::Down => {
            if lane + x < 32 {
                lane + x
            } else {
                lane
            }
        }
        // d = s1[lane ^ (x & 31)]
        Pattern::Xor => lane ^ (x % 32),
        // d = s1[(lane + x) & 31]
        Pattern::Rotate => (lane + x) % 32,
    };
    from as usize
}

fn cross_lane(ctx: &mut Ctx<'_>, i: &Instr, sem: Semantics) -> Result<Flow, ExecFault> {
    let rd = i.rd as usize;
    let src = sources(i);
    let w = &mut *ctx.wave;
    let exec = w.exec;
    if sem == Semantics::WriteLane {
        // `rd:v* rs2:u rs1:ln7`: d[lane] = u2, the lane in the rs1 field; EXEC ignored.
        let [value, lane] = exactly::<2>(i, &src)?;
        let (value, lane) = (value.word(w, 0), lane.word(w, 0));
        if lane >= 32 {
            return Err(plain(FaultKind::IllegalLane { lane }));
        }
        w.v[rd][lane as usize] = value;
        return Ok(Flow::Next);
    }
    // Every other row reads the vector register s1 first, then maybe a selector. All of it
    // is read before anything is written: rd may be s1 or s2.
    let (s1, selector) = match src[..] {
        [Source::Vector(r, 1)] => (w.v[r], None),
        [Source::Vector(r, 1), sel] => (w.v[r], Some(sel)),
        _ => return Err(illegal(i, "no vector source s1")),
    };
    let sel: [u64; N] = std::array::from_fn(|lane| match selector {
        Some(s) => s.word(w, lane) as u64,
        None => 0,
    });
    let immediate = matches!(selector, Some(Source::Immediate(_)));
    // Vector results: `Some` in the lanes that are written.
    let mut out: [Option<u32>; N] = [None; N];
    match sem {
        Semantics::Shuffle(pattern) => {
            if selector.is_none() {
                return Err(illegal(i, "no shuffle selector"));
            }
            for lane in 0..N {
                if !is_active(exec, lane) {
                    continue;
                }
                // `.vi`: the selector is imm[4:0] ("delta = imm[4:0]"). For `rot.vi`,
                // (lane + imm) & 31 with the signed imm is the same as with imm[4:0].
                let x = if immediate { sel[lane] & 31 } else { sel[lane] };
                out[lane] = Some(s1[shuffle_lane(pattern, lane, x)]);
            }
        }
        Semantics::QuadSwizzle => {
            for lane in 0..N {
                if !is_active(exec, lane) {
                    continue;
                }
                // Lane q + k of the quad takes selector bits [2k+1:2k].
                let quad = lane - lane % 4;
                let pick = (sel[lane] >> (2 * (lane % 4))) & 3;
                out[lane] = Some(s1[quad + pick as usize]);
            }
        }
        Semantics::Derivative { y, coarse } => {
            for lane in 0..N {
                if !is_active(exec, lane) {
                    continue;
                }
                let quad = lane - lane % 4;
                let (plus, minus) = match (y, coarse) {
                    (false, false) => (lane | 1, lane & !1),
                    (true, false) => (lane | 2, lane & !2),
                    (false, true) => (quad + 1, quad),
                    (true, true) => (quad + 2, quad),
                };
                out[lane] = Some(arith(fl(s1[plus]) - fl(s1[minus])));
            }
        }
        Semantics::ScanAdd => {
            for lane in 0..N {
                if !is_active(exec, lane) {
                    continue;
                }
                let mut sum = 0u32;
                for j in 0..=lane {
                    if is_active(exec, j) {
                        sum = sum.wrapping_add(s1[j]);
                    }
                }
                out[lane] = Some(sum);
            }
        }
        Semantics::ReadFirst => {
            // The lowest active lane; lane 0 when none is.
            let first = (0..N).find(|&l| is_active(exec, l)).unwrap_or(0);
            w.u[rd] = s1[first];
        }
        Semantics::ReadLane => {
            // U[d] = s1[x & 31] (imm or u2); EXEC ignored.
            if selector.is_none() {
                return Err(illegal(i, "no lane selector"));
            }
            w.u[rd] = s1[(sel[0] % 32) as usize];
        }
        Semantics::Ballot => {
            let mut mask = 0u32;
            for lane in 0..N {
                if is_active(exec, lane) && s1[lane] != 0 {
                    mask |= 1 << lane;
                }
            }
            w.u[rd] = mask;
        }
        Semantics::Vote(kind) => {
            let active: Vec<u32> = (0..N)
                .filter(|&l| is_active(exec, l))
                .map(|l| s1[l])
                .collect();
            let holds = match kind {
                Agreement::Any => active.iter().any(|&x| x != 0),
                Agreement::All => active.iter().all(|&x| x != 0),
                Agreement::Equal => active.windows(2).all(|p| p[0] == p[1]),
            };
            w.u[rd] = holds as u32;
        }
        Semantics::Reduce(op) => {
            // Empty set: the operation's identity.
            let mut acc: u32 = match op {
                Reduction::Sum | Reduction::MaxUnsigned | Reduction::Or | Reduction::Xor => 0,
                Reduction::MinSigned => i32::MAX as u32,
                Reduction::MaxSigned => i32::MIN as u32,
                Reduction::MinUnsigned | Reduction::And => u32::MAX,
            };
            for lane in 0..N {
                if !is_active(exec, lane) {
                    continue;
                }
                let x = s1[lane];
                acc = match op {
                    Reduction::Sum => acc.wrapping_add(x),
                    Reduction::MinSigned => (acc as i32).min(x as i32) as u32,
                    Reduction::MaxSigned => (acc as i32).max(x as i32) as u32,
                    Reduction::MinUnsigned => acc.min(x),
                    Reduction::MaxUnsigned => acc.max(x),
                    Reduction::And => acc & x,
                    Reduction::Or => acc | x,
                    Reduction::Xor => acc ^ x,
                };
            }
            w.u[rd] = acc;
        }
        _ => return Err(illegal(i, "no cross-lane semantics")),
    }
    for lane in 0..N {
        if let Some(x) = out[lane] {
            w.v[rd][lane] = x;
        }
    }
    Ok(Flow::Next)
}

// ---------------------------------------------------------------------------------------
// The base group (docs/isa.md): control, waits, uniform and vector ALU, EXEC, ids.
// ---------------------------------------------------------------------------------------

/// One two-operand operation, as the base rows define it.
fn binary(op: Binary, a: u32, b: u32) -> u32 {
    let (sa, sb) = (a as i32, b as i32);
    let product = a as u64 * b as u64;
    match op {
        Binary::Add => a.wrapping_add(b),
        Binary::Sub => a.wrapping_sub(b),
        Binary::MulLow => product as u32,
        Binary::MulHigh => (product >> 32) as u32,
        Binary::And => a & b,
        Binary::Or => a | b,
        Binary::Xor => a ^ b,
        // The shift amount is the low 5 bits of the second operand.
        Binary::ShiftLeft => a << (b & 31),
        Binary::ShiftRightLogical => a >> (b & 31),
        Binary::ShiftRightArithmetic => (sa >> (b & 31)) as u32,
        Binary::MinSigned => {
            if sa <= sb {
                a
            } else {
                b
            }
        }
        Binary::MaxSigned => {
            if sa >= sb {
                a
            } else {
                b
            }
        }
        Binary::MinUnsigned => {
            if a <= b {
                a
            } else {
                b
            }
        }
        Binary::MaxUnsigned => {
            if a >= b {
                a
            } else {
                b
            }
        }
        Binary::FloatAdd => arith(fl(a) + fl(b)),
        Binary::FloatSub => arith(fl(a) - fl(b)),
        Binary::FloatMul => arith(fl(a) * fl(b)),
        Binary::FloatMin => minimum_number(a, b),
        Binary::FloatMax => maximum_number(a, b),
    }
}

/// Whether a comparison holds. Two f32 values are unordered when either is a NaN: then
/// only `ne` holds (docs/isa.md: "false on NaN", "true on NaN").
fn holds(c: Compare, a: u32, b: u32) -> bool {
    let order: Option<Ordering> = match c.reading {
        Number::Bits | Number::Unsigned => Some(a.cmp(&b)),
        Number::Signed => Some((a as i32).cmp(&(b as i32))),
        Number::Float => fl(a).partial_cmp(&fl(b)),
    };
    match c.relation {
        Relation::Eq => order == Some(Ordering::Equal),
        Relation::Ne => order != Some(Ordering::Equal),
        Relation::Lt => order == Some(Ordering::Less),
        Relation::Le => matches!(order, Some(Ordering::Less | Ordering::Equal)),
        Relation::Gt => order == Some(Ordering::Greater),
        Relation::Ge => matches!(order, Some(Ordering::Greater | Ordering::Equal)),
    }
}

/// f32 to an integer in `[lo, hi]`: truncated toward zero, saturated, NaN -> 0 (in f64,
/// which holds every f32 and both bounds exactly).
fn truncate_saturate(bits: u32, lo: i64, hi: i64) -> i64 {
    let x = fl(bits) as f64;
    if x.is_nan() {
        return 0;
    }
    let t = x.trunc();
    if t <= lo as f64 {
        lo
    } else if t >= hi as f64 {
        hi
    } else {
        t as i64
    }
}

/// `vcvt.TO.FROM` ([`decode`] only makes float/integer pairs).
fn convert(to: Number, from: Number, x: u32) -> u32 {
    match (to, from) {
        // Round to nearest even (Rust's integer-to-float conversion).
        (Number::Float, Number::Signed) => (x as i32 as f32).to_bits(),
        (Number::Float, _) => (x as f32).to_bits(),
        (Number::Signed, _) => truncate_saturate(x, i32::MIN as i64, i32::MAX as i64) as u32,
        _ => truncate_saturate(x, 0, u32::MAX as i64) as u32,
    }
}

fn base(ctx: &mut Ctx<'_>, i: &Instr, pc: u64, sem: Semantics) -> Result<Flow, ExecFault> {
    use Semantics as S;
    let rd = i.rd as usize;
    let src = sources(i);
    let launch = ctx.launch;
    let w = &mut *ctx.wave;
    let exec = w.exec;
    match sem {
        S::End => return Ok(Flow::End),
        S::Nop => {}
        S::Break => return Ok(Flow::Break),
        S::Trap => return Err(plain(FaultKind::Trap { code: i.imm as u32 })),
        S::Barrier => return Ok(Flow::Barrier),
        S::Wait(which) => {
            // Retire the oldest outstanding operations until at most `imm` remain
            // (`wait.all`: none, on every counter).
            let (counters, keep): (Vec<Counter>, usize) = match which {
                Some(c) => (vec![c], i.imm as usize),
                None => (Counter::ALL.to_vec(), 0),
            };
            for c in counters {
                let q = &mut w.outstanding[c.index()];
                while q.len() > keep {
                    q.pop_front();
                }
            }
        }
        S::Branch(cond) => {
            let taken = match cond {
                Condition::Always => true,
                Condition::UniformZero => w.u[i.rs1 as usize] == 0,
                Condition::UniformNonZero => w.u[i.rs1 as usize] != 0,
                Condition::ExecZero => exec == 0,
                Condition::ExecNonZero => exec != 0,
            };
            if taken {
                // rel14: a signed count of 4-byte words from the branch.
                return Ok(Flow::Jump(pc.wrapping_add_signed(i.imm * 4)));
            }
        }
        S::Exec(op) => {
            let s = w.u[i.rs1 as usize];
            match op {
                ExecUpdate::Get => w.u[rd] = exec,
                ExecUpdate::Set => w.exec = s,
                ExecUpdate::AndSave => {
                    w.u[rd] = exec;
                    w.exec = exec & s;
                }
                ExecUpdate::AndNotSave => {
                    w.u[rd] = exec;
                    w.exec = exec & !s;
                }
            }
        }
        S::Id(what) => {
            w.u[rd] = match what {
                LaunchValue::WaveIndex => w.index,
                LaunchValue::Workgroup => w.workgroup,
                LaunchValue::WorkgroupLanes => launch.workgroup_lanes,
                LaunchValue::GridSize => launch.grid,
                // Whole waves of 32 lanes, the last one possibly partial.
                LaunchValue::WavesPerWorkgroup => launch.workgroup_lanes.div_ceil(32),
            };
        }
        S::UniformMove => {
            let [s] = exactly::<1>(i, &src)?;
            w.u[rd] = s.word(w, 0);
        }
        S::UniformAlu(op) => {
            let [a, b] = exactly::<2>(i, &src)?;
            w.u[rd] = binary(op, a.word(w, 0), b.word(w, 0));
        }
        S::UniformCompare(c) => {
            let [a, b] = exactly::<2>(i, &src)?;
            w.u[rd] = holds(c, a.word(w, 0), b.word(w, 0)) as u32;
        }
        S::UniformAdd64 => {
            // U64[d] = U64[s1] + zext(U[s2]) or + sext(imm).
            let [a, b] = exactly::<2>(i, &src)?;
            let r = a.wide(w, 0).wrapping_add(b.wide(w, 0));
            w.u[rd] = r as u32;
            w.u[rd + 1] = (r >> 32) as u32;
        }
        S::VectorMove => {
            let [s] = exactly::<1>(i, &src)?;
            for lane in 0..N {
                if is_active(exec, lane) {
                    let x = s.word(w, lane);
                    w.v[rd][lane] = x;
                }
            }
        }
        S::VectorAlu(op) => {
            let [a, b] = exactly::<2>(i, &src)?;
            for lane in 0..N {
                if is_active(exec, lane) {
                    let x = binary(op, a.word(w, lane), b.word(w, lane));
                    w.v[rd][lane] = x;
                }
            }
        }
        S::VectorCompare(c) => {
            let [a, b] = exactly::<2>(i, &src)?;
            // Inactive lanes are 0.
            let mut mask = 0u32;
            for lane in 0..N {
                if is_active(exec, lane) && holds(c, a.word(w, lane), b.word(w, lane)) {
                    mask |= 1 << lane;
                }
            }
            w.u[rd] = mask;
        }
        S::VectorAdd64 => {
            // d64 = s1_64 + zext(s2) | s1_64 + sext(imm) | U64[s2] + zext(s1).
            let [a, b] = exactly::<2>(i, &src)?;
            for lane in 0..N {
                if is_active(exec, lane) {
                    let r = a.wide(w, lane).wrapping_add(b.wide(w, lane));
                    w.v[rd][lane] = r as u32;
                    w.v[rd + 1][lane] = (r >> 32) as u32;
                }
            }
        }
        S::VectorMove64 => {
            // d64 = U64[s2].
            let [s] = exactly::<1>(i, &src)?;
            for lane in 0..N {
                if is_active(exec, lane) {
                    let r = s.wide(w, lane);
                    w.v[rd][lane] = r as u32;
                    w.v[rd + 1][lane] = (r >> 32) as u32;
                }
            }
        }
        S::LaneId => {
            for lane in 0..N {
                if is_active(exec, lane) {
                    w.v[rd][lane] = lane as u32;
                }
            }
        }
        S::Convert { to, from } => {
            let [s] = exactly::<1>(i, &src)?;
            for lane in 0..N {
                if is_active(exec, lane) {
                    let x = convert(to, from, s.word(w, lane));
                    w.v[rd][lane] = x;
                }
            }
        }
        S::MultiplyAdd => {
            let [a, b, c] = exactly::<3>(i, &src)?;
            for lane in 0..N {
                if is_active(exec, lane) {
                    let (a, b, c) = (a.word(w, lane), b.word(w, lane), c.word(w, lane));
                    // Low 32 bits of s1 * s2 + s3.
                    w.v[rd][lane] = ((a as u64 * b as u64 + c as u64) & 0xffff_ffff) as u32;
                }
            }
        }
        S::FusedMultiplyAdd => {
            let [a, b, c] = exactly::<3>(i, &src)?;
            for lane in 0..N {
                if is_active(exec, lane) {
                    let (a, b, c) = (a.word(w, lane), b.word(w, lane), c.word(w, lane));
                    // One rounding.
                    w.v[rd][lane] = arith(fl(a).mul_add(fl(b), fl(c)));
                }
            }
        }
        S::Select => {
            // d = bit lane of U[s3] ? s2 : s1.
            let [a, b, mask] = exactly::<3>(i, &src)?;
            for lane in 0..N {
                if is_active(exec, lane) {
                    let x = if is_active(mask.word(w, lane), lane) {
                        b.word(w, lane)
                    } else {
                        a.word(w, lane)
                    };
                    w.v[rd][lane] = x;
                }
            }
        }
        _ => return Err(illegal(i, "no semantics")),
    }
    Ok(Flow::Next)
}
