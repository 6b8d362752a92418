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

/// Load element types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadType {
    /// Bytes read.
    pub bytes: u8,
    /// Sign-extend (i8, i16).
    pub signed: bool,
}

/// Atomic operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomOp {
    /// Wrapping add.
    Add,
    /// Wrapping subtract.
    Sub,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise xor.
    Xor,
    /// Signed minimum.
    MinS,
    /// Signed maximum.
    MaxS,
    /// Unsigned minimum.
    MinU,
    /// Unsigned maximum.
    MaxU,
    /// Exchange.
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

/// Uniform-load addressing.
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

/// Shuffle lane selection.
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
    /// The immediate (`.vi`; up/down/xor/bcast use imm[4:0]).
    Imm,
    /// A uniform register (`.vu`).
    Uniform,
}

/// Vote kinds.
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
    /// Sum.
    Add,
    /// Signed min.
    MinI,
    /// Signed max.
    MaxI,
    /// Unsigned min.
    MinU,
    /// Unsigned max.
    MaxU,
    /// And.
    And,
    /// Or.
    Or,
    /// Xor.
    Xor,
}

/// Two-operand ALU operations, shared by the uniform and vector ALUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AluOp {
    /// Wrapping add.
    Add,
    /// Wrapping subtract.
    Sub,
    /// Low 32 bits of the product.
    Mul,
    /// High 32 bits of the unsigned product.
    MulHi,
    /// And.
    And,
    /// Or.
    Or,
    /// Xor.
    Xor,
    /// Shift left by `b & 31`.
    Shl,
    /// Logical shift right by `b & 31`.
    Shr,
    /// Arithmetic shift right by `b & 31`.
    Sra,
    /// Signed min.
    MinI,
    /// Signed max.
    MaxI,
    /// Unsigned min.
    MinU,
    /// Unsigned max.
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

/// Conversions.
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

/// Branch conditions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrCond {
    /// Always.
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
    /// Wave index within the workgroup.
    Wave,
    /// Workgroup id.
    Workgroup,
    /// Lanes per workgroup.
    WorkgroupSize,
    /// Workgroups in the grid.
    GridSize,
    /// Waves per workgroup.
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
        bytes: u8,
    },
    Atomic {
        mode: AddrMode,
        op: AtomOp,
        wide: bool,
        rtn: bool,
    },
    Uld {
        mode: UldMode,
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
