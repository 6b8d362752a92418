//! The semantic operation of each instruction, derived once from its mnemonic (the
//! mnemonics are regular: `ld.SPACE.TYPE`, `atom.SPACE.OP.TYPE[.rtn]`, ...).

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

fn alu(name: &str) -> Option<AluOp> {
    Some(match name {
        "add" | "add.u32" => AluOp::Add,
        "sub" | "sub.u32" => AluOp::Sub,
        "mul" | "mul.u32" => AluOp::Mul,
        "mulhi.u32" => AluOp::MulHi,
        "and" => AluOp::And,
        "or" => AluOp::Or,
        "xor" => AluOp::Xor,
        "shl" => AluOp::Shl,
        "shr" => AluOp::Shr,
        "sra" => AluOp::Sra,
        "min.i32" => AluOp::MinI,
        "max.i32" => AluOp::MaxI,
        "min.u32" => AluOp::MinU,
        "max.u32" => AluOp::MaxU,
        "add.f32" => AluOp::FAdd,
        "sub.f32" => AluOp::FSub,
        "mul.f32" => AluOp::FMul,
        "min.f32" => AluOp::FMin,
        "max.f32" => AluOp::FMax,
        "mov" => AluOp::Mov,
        _ => return None,
    })
}

fn cmp(name: &str) -> Option<CmpOp> {
    Some(match name {
        "eq" | "eq.b32" => CmpOp::Eq,
        "ne" | "ne.b32" => CmpOp::Ne,
        "lt.i32" => CmpOp::LtI,
        "le.i32" => CmpOp::LeI,
        "gt.i32" => CmpOp::GtI,
        "ge.i32" => CmpOp::GeI,
        "lt.u32" => CmpOp::LtU,
        "le.u32" => CmpOp::LeU,
        "gt.u32" => CmpOp::GtU,
        "ge.u32" => CmpOp::GeU,
        "eq.f32" => CmpOp::EqF,
        "ne.f32" => CmpOp::NeF,
        "lt.f32" => CmpOp::LtF,
        "le.f32" => CmpOp::LeF,
        "gt.f32" => CmpOp::GtF,
        "ge.f32" => CmpOp::GeF,
        _ => return None,
    })
}

fn addr_mode(s: &str) -> Option<AddrMode> {
    Some(match s {
        "global" => AddrMode::Global,
        "ubase" => AddrMode::Ubase,
        "buf" => AddrMode::Buf,
        "shared" => AddrMode::Shared,
        "scratch" => AddrMode::Scratch,
        _ => return None,
    })
}

fn width_bytes(s: &str) -> Option<u8> {
    Some(match s {
        "b8" => 1,
        "b16" => 2,
        "b32" => 4,
        "b64" => 8,
        "b96" => 12,
        "b128" => 16,
        "b256" => 32,
        "b512" => 64,
        _ => return None,
    })
}

fn atom_op(s: &str) -> Option<AtomOp> {
    Some(match s {
        "add" => AtomOp::Add,
        "sub" => AtomOp::Sub,
        "and" => AtomOp::And,
        "or" => AtomOp::Or,
        "xor" => AtomOp::Xor,
        "min" => AtomOp::MinS,
        "max" => AtomOp::MaxS,
        "xchg" => AtomOp::Xchg,
        "cmpxchg" => AtomOp::CmpXchg,
        "inc" => AtomOp::Inc,
        "dec" => AtomOp::Dec,
        "fadd" => AtomOp::FAdd,
        "fmin" => AtomOp::FMin,
        "fmax" => AtomOp::FMax,
        _ => return None,
    })
}

/// The operation a mnemonic performs, or `None` for a mnemonic with no semantics (a
/// table error that the test suite rules out).
pub fn op_of(mnemonic: &str) -> Option<Op> {
    let parts: Vec<&str> = mnemonic.split('.').collect();
    let fixed = match mnemonic {
        "cache.inv.l1" | "cache.inv.l2" => Some(Op::CacheInvalidate),
        "cache.wb.l2" => Some(Op::CacheWriteBack),
        "quad.swizzle" => Some(Op::QuadSwizzle),
        "writelane" => Some(Op::Writelane),
        "readfirst" => Some(Op::Readfirst),
        "readlane" => Some(Op::Readlane { uniform: false }),
        "readlane.u" => Some(Op::Readlane { uniform: true }),
        "fddx.fine.f32" => Some(Op::Deriv {
            y: false,
            coarse: false,
        }),
        "fddx.coarse.f32" => Some(Op::Deriv {
            y: false,
            coarse: true,
        }),
        "fddy.fine.f32" => Some(Op::Deriv {
            y: true,
            coarse: false,
        }),
        "fddy.coarse.f32" => Some(Op::Deriv {
            y: true,
            coarse: true,
        }),
        "xscan.add.u32" => Some(Op::XscanAdd),
        "ballot" => Some(Op::Ballot),
        "vote.any" => Some(Op::Vote(VoteKind::Any)),
        "vote.all" => Some(Op::Vote(VoteKind::All)),
        "vote.eq" => Some(Op::Vote(VoteKind::Eq)),
        "end" => Some(Op::End),
        "nop" => Some(Op::Nop),
        "brk" => Some(Op::Brk),
        "trap" => Some(Op::Trap),
        "barrier" => Some(Op::Barrier),
        "wait.vm" => Some(Op::Wait(Some(Counter::Vm))),
        "wait.vst" => Some(Op::Wait(Some(Counter::Vst))),
        "wait.ls" => Some(Op::Wait(Some(Counter::Ls))),
        "wait.sm" => Some(Op::Wait(Some(Counter::Sm))),
        "wait.all" => Some(Op::Wait(None)),
        "br" => Some(Op::Branch(BrCond::Always)),
        "br.uz" => Some(Op::Branch(BrCond::UZero)),
        "br.unz" => Some(Op::Branch(BrCond::UNonZero)),
        "br.execz" => Some(Op::Branch(BrCond::ExecZero)),
        "br.execnz" => Some(Op::Branch(BrCond::ExecNonZero)),
        "umov" => Some(Op::UAlu(AluOp::Mov, Src::Reg)),
        "umovi" => Some(Op::UAlu(AluOp::Mov, Src::Imm)),
        "uadd.u64" => Some(Op::UAdd64(Src::Reg)),
        "uaddi.u64" => Some(Op::UAdd64(Src::Imm)),
        "exec.get" => Some(Op::Exec(ExecOp::Get)),
        "exec.set" => Some(Op::Exec(ExecOp::Set)),
        "exec.and.save" => Some(Op::Exec(ExecOp::AndSave)),
        "exec.andn.save" => Some(Op::Exec(ExecOp::AndNotSave)),
        "uwaveid" => Some(Op::Id(IdKind::Wave)),
        "uwgid" => Some(Op::Id(IdKind::Workgroup)),
        "uwgsize" => Some(Op::Id(IdKind::WorkgroupSize)),
        "ugridsize" => Some(Op::Id(IdKind::GridSize)),
        "unumwaves" => Some(Op::Id(IdKind::WavesPerWorkgroup)),
        "vmov" => Some(Op::VAlu(AluOp::Mov, Src::Reg)),
        "vmovi" => Some(Op::VAlu(AluOp::Mov, Src::Imm)),
        "vmov.u" => Some(Op::VAlu(AluOp::Mov, Src::Uniform)),
        "vlaneid" => Some(Op::VLaneId),
        "vcvt.f32.i32" => Some(Op::VCvt(CvtOp::F32FromI32)),
        "vcvt.f32.u32" => Some(Op::VCvt(CvtOp::F32FromU32)),
        "vcvt.i32.f32" => Some(Op::VCvt(CvtOp::I32FromF32)),
        "vcvt.u32.f32" => Some(Op::VCvt(CvtOp::U32FromF32)),
        "vadd.u64" => Some(Op::VAdd64(Src::Reg)),
        "vaddi.u64" => Some(Op::VAdd64(Src::Imm)),
        "vmov.u64.u" => Some(Op::VMovU64),
        "vadd.u64.u" => Some(Op::VAdd64U),
        "vmad.u32" => Some(Op::VMad),
        "vfma.f32" => Some(Op::VFma),
        "vsel" => Some(Op::VSel),
        _ => None,
    };
    if fixed.is_some() {
        return fixed;
    }
    match parts.as_slice() {
        ["ld", space, ty] => {
            let ty = match *ty {
                "u8" => LoadType {
                    bytes: 1,
                    signed: false,
                },
                "i8" => LoadType {
                    bytes: 1,
                    signed: true,
                },
                "u16" => LoadType {
                    bytes: 2,
                    signed: false,
                },
                "i16" => LoadType {
                    bytes: 2,
                    signed: true,
                },
                w => LoadType {
                    bytes: width_bytes(w)?,
                    signed: false,
                },
            };
            Some(Op::Load {
                mode: addr_mode(space)?,
                ty,
            })
        }
        ["st", space, w] => Some(Op::Store {
            mode: addr_mode(space)?,
            bytes: width_bytes(w)?,
        }),
        ["atom", space, op, ty, rest @ ..] => {
            let rtn = match rest {
                [] => false,
                ["rtn"] => true,
                _ => return None,
            };
            let mut op = atom_op(op)?;
            let unsigned = ty.starts_with('u');
            op = match (op, unsigned) {
                (AtomOp::MinS, true) => AtomOp::MinU,
                (AtomOp::MaxS, true) => AtomOp::MaxU,
                (o, _) => o,
            };
            let wide = ty.ends_with("64");
            Some(Op::Atomic {
                mode: addr_mode(space)?,
                op,
                wide,
                rtn,
            })
        }
        ["uld", w] => Some(Op::Uld {
            mode: UldMode::Plain,
            dwords: width_bytes(w)? / 4,
        }),
        ["uld", m, w] => {
            let mode = match *m {
                "x" => UldMode::Indexed,
                "buf" => UldMode::Buf,
                "bufx" => UldMode::BufIndexed,
                _ => return None,
            };
            Some(Op::Uld {
                mode,
                dwords: width_bytes(w)? / 4,
            })
        }
        ["shfl", "bcast", src] => Some(Op::ShflBcast {
            src: if *src == "vi" {
                ShflSrc::Imm
            } else {
                ShflSrc::Uniform
            },
        }),
        ["shfl", mode, src @ ..] => {
            let mode = match *mode {
                "idx" => ShflMode::Idx,
                "up" => ShflMode::Up,
                "down" => ShflMode::Down,
                "xor" => ShflMode::Xor,
                "rot" => ShflMode::Rot,
                _ => return None,
            };
            let src = match src {
                [] => ShflSrc::Vector,
                ["vi"] => ShflSrc::Imm,
                ["vu"] => ShflSrc::Uniform,
                _ => return None,
            };
            Some(Op::Shfl { mode, src })
        }
        ["xred", op, _] => Some(Op::Xred(match *op {
            "add" => RedOp::Add,
            "and" => RedOp::And,
            "or" => RedOp::Or,
            "xor" => RedOp::Xor,
            "min" if mnemonic.ends_with("i32") => RedOp::MinI,
            "max" if mnemonic.ends_with("i32") => RedOp::MaxI,
            "min" => RedOp::MinU,
            "max" => RedOp::MaxU,
            _ => return None,
        })),
        _ => base_alu(mnemonic),
    }
}

/// Base-group ALU and compare mnemonics: `u...`, `v...`, with `i` for immediate forms and
/// `.u` for a uniform second operand.
fn base_alu(mnemonic: &str) -> Option<Op> {
    if let Some(rest) = mnemonic.strip_prefix("ucmpi.") {
        return Some(Op::UCmp(cmp(rest)?, Src::Imm));
    }
    if let Some(rest) = mnemonic.strip_prefix("ucmp.") {
        return Some(Op::UCmp(cmp(rest)?, Src::Reg));
    }
    if let Some(rest) = mnemonic.strip_prefix("vcmp.") {
        return Some(Op::VCmp(cmp(rest)?));
    }
    let (file, rest) = mnemonic.split_at(1);
    let (name, tail) = rest.split_once('.').map_or((rest, ""), |(a, b)| (a, b));
    let (name, src) = match (
        name.strip_suffix('i'),
        tail.strip_suffix(".u").or((tail == "u").then_some("")),
    ) {
        (_, Some(t)) => (
            format!("{name}{}{t}", if t.is_empty() { "" } else { "." }),
            Src::Uniform,
        ),
        (Some(n), None) if alu(&join(n, tail)).is_some() => (join(n, tail), Src::Imm),
        _ => (join(name, tail), Src::Reg),
    };
    let op = alu(&name)?;
    match file {
        "u" if src != Src::Uniform => Some(Op::UAlu(op, src)),
        "v" => Some(Op::VAlu(op, src)),
        _ => None,
    }
}

fn join(name: &str, tail: &str) -> String {
    if tail.is_empty() {
        name.to_string()
    } else {
        format!("{name}.{tail}")
    }
}
