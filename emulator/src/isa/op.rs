//! The semantic operation of each instruction: every table row names its [`Op`], so a row
//! without semantics does not compile, and `exec` matches on it exhaustively.

use crate::isa::Counter;

/// How a vector memory instruction forms its address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddrMode {
    /// `s1_64 + sext(imm)`: a per-lane 64-bit address in a register pair.
    Global,
    /// `U64[u2] + zext(s1) + sext(imm)`.
    Ubase,
    /// `DESC(u2..u2+3).base + s1 + sext(imm)`, bounds-checked against the descriptor.
    Buf,
    /// `s1 + sext(imm)` in the workgroup's shared window.
    Shared,
    /// `s1 + sext(imm)` in the lane's private scratch.
    Scratch,
}

/// The element a load reads per lane, zero- or sign-extended into a 32-bit register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadType {
    /// Bytes per lane: 1, 2, 4, 8, 12 or 16 (above 4, consecutive destination registers).
    pub bytes: u8,
    /// Sign-extend the 1- or 2-byte element (i8, i16); otherwise it is zero-extended.
    pub signed: bool,
}

/// What an atomic does to memory `M[A]` with the lane's `data` (`old` is `M[A]` before);
/// 32-bit, or 64-bit when [`Op::Atomic`]'s `wide` is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomOp {
    /// `M[A] = old + data`, wrapping.
    Add,
    /// `M[A] = old - data`, wrapping.
    Sub,
    /// `M[A] = old & data`.
    And,
    /// `M[A] = old | data`.
    Or,
    /// `M[A] = old ^ data`.
    Xor,
    /// `M[A] = min(old, data)`, both as two's-complement integers.
    MinS,
    /// `M[A] = max(old, data)`, both as two's-complement integers.
    MaxS,
    /// `M[A] = min(old, data)`, both unsigned.
    MinU,
    /// `M[A] = max(old, data)`, both unsigned.
    MaxU,
    /// `M[A] = data` (the old value is what `.rtn` returns).
    Xchg,
    /// Compare and exchange (data0 compare, data1 new).
    CmpXchg,
    /// Wrapping increment: `old >= data ? 0 : old + 1`.
    Inc,
    /// Wrapping decrement: `old == 0 || old > data ? data : old - 1`.
    Dec,
    /// f32 add, round to nearest even.
    FAdd,
    /// f32 minimumNumber.
    FMin,
    /// f32 maximumNumber.
    FMax,
}

/// How a uniform load (`uld`) forms its one address, shared by the wave (EXEC ignored).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UldMode {
    /// `U64[u1] + sext(imm)`.
    Plain,
    /// `U64[u1] + u2 + sext(imm)`.
    Indexed,
    /// `DESC(u1..u1+3).base + sext(imm)`, out of bounds reads 0.
    Buf,
    /// `DESC(u1..u1+3).base + u2 + sext(imm)`, out of bounds reads 0.
    BufIndexed,
}

/// Which source lane a shuffle reads; `x` and `delta` are the selector (see [`ShflSrc`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShflMode {
    /// `s1[x & 31]`.
    Idx,
    /// `s1[lane - delta]` when `delta <= lane`, else own value.
    Up,
    /// `s1[lane + delta]` when `< 32`, else own value.
    Down,
    /// `s1[lane ^ (x & 31)]`.
    Xor,
    /// `s1[(lane + x) & 31]`.
    Rot,
}

/// Where a shuffle's selector comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShflSrc {
    /// A per-lane vector register (rs2).
    Vector,
    /// The immediate (`.vi`; up/down/xor/bcast use `imm[4:0]`).
    Imm,
    /// A uniform register (`.vu`).
    Uniform,
}

/// What a `vote` tests over the active lanes; the result is 1 or 0 in a uniform register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VoteKind {
    /// Any active lane non-zero.
    Any,
    /// All active lanes non-zero.
    All,
    /// All active lanes equal.
    Eq,
}

/// Reduction operators of `xred`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedOp {
    /// Wrapping sum of the active lanes (no active lane: 0).
    Add,
    /// Signed minimum (no active lane: `i32::MAX`).
    MinI,
    /// Signed maximum (no active lane: `i32::MIN`).
    MaxI,
    /// Unsigned minimum (no active lane: `0xffff_ffff`).
    MinU,
    /// Unsigned maximum (no active lane: 0).
    MaxU,
    /// Bitwise and (no active lane: all ones).
    And,
    /// Bitwise or (no active lane: 0).
    Or,
    /// Bitwise xor (no active lane: 0).
    Xor,
}

/// Two-operand ALU operations, shared by the uniform and vector ALUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AluOp {
    /// `a + b`, wrapping at 32 bits.
    Add,
    /// `a - b`, wrapping at 32 bits.
    Sub,
    /// Low 32 bits of the product.
    Mul,
    /// High 32 bits of the unsigned product.
    MulHi,
    /// Bitwise `a & b`.
    And,
    /// Bitwise `a | b`.
    Or,
    /// Bitwise `a ^ b`.
    Xor,
    /// Shift left by `b & 31`.
    Shl,
    /// Logical shift right by `b & 31`.
    Shr,
    /// Arithmetic shift right by `b & 31`.
    Sra,
    /// `min(a, b)` as two's-complement integers.
    MinI,
    /// `max(a, b)` as two's-complement integers.
    MaxI,
    /// `min(a, b)` unsigned.
    MinU,
    /// `max(a, b)` unsigned.
    MaxU,
    /// f32 add.
    FAdd,
    /// f32 subtract.
    FSub,
    /// f32 multiply.
    FMul,
    /// f32 minimumNumber.
    FMin,
    /// f32 maximumNumber.
    FMax,
    /// Second operand (moves).
    Mov,
}

/// Comparisons (uniform and vector).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum CmpOp {
    Eq,
    Ne,
    LtI,
    LeI,
    GtI,
    GeI,
    LtU,
    LeU,
    GtU,
    GeU,
    EqF,
    NeF,
    LtF,
    LeF,
    GtF,
    GeF,
}

/// Conversions between 32-bit integers and f32 (`vcvt.*`), one lane at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CvtOp {
    /// Signed int to f32.
    F32FromI32,
    /// Unsigned int to f32.
    F32FromU32,
    /// f32 to signed int (truncate, saturate, NaN -> 0).
    I32FromF32,
    /// f32 to unsigned int (truncate, saturate, NaN -> 0).
    U32FromF32,
}

/// Second operand of an ALU instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Src {
    /// A register of the instruction's own file (rs2).
    Reg,
    /// A uniform register (rs2) broadcast to the lanes.
    Uniform,
    /// The 32-bit immediate.
    Imm,
}

/// When a branch is taken; `U[rs1]` is the uniform register the branch names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrCond {
    /// Always taken, whatever `U[rs1]` and EXEC (`br`).
    Always,
    /// `U[rs1] == 0`.
    UZero,
    /// `U[rs1] != 0`.
    UNonZero,
    /// `EXEC == 0`.
    ExecZero,
    /// `EXEC != 0`.
    ExecNonZero,
}

/// Launch ids readable by the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    /// Wave index within the workgroup, 0 to waves per workgroup - 1.
    Wave,
    /// The wave's workgroup index in the grid, 0 to grid size - 1.
    Workgroup,
    /// Lanes per workgroup, as launched (`.workgroup`), not rounded up to whole waves.
    WorkgroupSize,
    /// Workgroups in the grid.
    GridSize,
    /// Waves per workgroup: lanes per workgroup divided by 32, rounded up.
    WavesPerWorkgroup,
}

/// EXEC manipulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecOp {
    /// `U[d] = EXEC`.
    Get,
    /// `EXEC = U[s1]`.
    Set,
    /// `U[d] = EXEC; EXEC &= U[s1]`.
    AndSave,
    /// `U[d] = EXEC; EXEC &= !U[s1]`.
    AndNotSave,
}

/// The semantic operation of an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Op {
    CacheInvalidate,
    CacheWriteBack,
    Load {
        mode: AddrMode,
        ty: LoadType,
    },
    Store {
        mode: AddrMode,
        /// Bytes stored per lane: 1, 2, 4, 8, 12 or 16 (above 4, consecutive data registers).
        bytes: u8,
    },
    Atomic {
        mode: AddrMode,
        op: AtomOp,
        /// 64-bit operation on a register pair (`.b64`, `.u64`); else 32-bit.
        wide: bool,
        /// `.rtn`: the old memory value replaces the data in `rd` (one or two registers) in
        /// the active lanes.
        rtn: bool,
    },
    Uld {
        mode: UldMode,
        /// 32-bit words loaded into consecutive uniform registers: 1, 2, 4, 8 or 16.
        dwords: u8,
    },
    Shfl {
        mode: ShflMode,
        src: ShflSrc,
    },
    ShflBcast {
        src: ShflSrc,
    },
    QuadSwizzle,
    Writelane,
    Readfirst,
    Readlane {
        uniform: bool,
    },
    Deriv {
        y: bool,
        coarse: bool,
    },
    XscanAdd,
    Ballot,
    Vote(VoteKind),
    Xred(RedOp),
    End,
    Nop,
    Brk,
    Trap,
    Barrier,
    Wait(Option<Counter>),
    Branch(BrCond),
    UAlu(AluOp, Src),
    UCmp(CmpOp, Src),
    UAdd64(Src),
    Exec(ExecOp),
    Id(IdKind),
    VAlu(AluOp, Src),
    VLaneId,
    VCvt(CvtOp),
    VCmp(CmpOp),
    VAdd64(Src),
    VMovU64,
    VAdd64U,
    VMad,
    VFma,
    VSel,
}
