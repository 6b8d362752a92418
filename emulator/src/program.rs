//! An assembled kernel: code plus the metadata of its directives, and the container
//! format it is saved in (`.wko`, a RON document; see docs/assembler.md).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

mod object;
mod source_info;

pub use source_info::{
    is_register_word, LineRange, LineRow, SourceFile, SourceInfo, SourceInfoError, VarDef,
    VarLocation, VarType, MAX_SOURCE_FILES, MAX_VARIABLES,
};

/// The container format's version; bumped on incompatible changes. Version 2 stores code,
/// line table and buffer contents as runs of bytes (base64 or a repeated pattern) instead
/// of a number per word or byte; version 3 adds the source-level debug information
/// (`source_info`). Versions 1 and 2 objects are still read.
pub const OBJECT_FORMAT_VERSION: u32 = 3;

/// The oldest container format version still read.
pub const OLDEST_OBJECT_FORMAT_VERSION: u32 = 1;

/// Largest buffer a kernel may declare (1 GiB): keeps a typo from allocating the machine.
pub const MAX_BUFFER_BYTES: u64 = 1 << 30;
/// Largest total of all buffers (16 GiB; pages are shared zero pages until written).
pub const MAX_GLOBAL_BYTES: u64 = 16 << 30;
/// Most buffers a kernel may declare.
pub const MAX_BUFFERS: usize = 4096;
/// Largest shared window per workgroup (1 MiB).
pub const MAX_SHARED_BYTES: u64 = 1 << 20;
/// Largest scratch per lane (64 KiB).
pub const MAX_SCRATCH_BYTES: u64 = 1 << 16;
/// Most lanes in a workgroup.
pub const MAX_WORKGROUP_LANES: u32 = 1024;
/// Most code words (16 Mi words, 64 MiB of code).
pub const MAX_CODE_WORDS: usize = 1 << 24;

/// Launch settings from the kernel's directives (overridable on the command line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchConfig {
    /// Lanes per workgroup (a multiple of 32).
    pub workgroup_lanes: u32,
    /// Workgroups in the grid (`.grid`), at least 1; workgroup ids are `0..grid`.
    pub grid: u32,
    /// Shared-memory bytes per workgroup (`.shared`), 0 to [`MAX_SHARED_BYTES`].
    pub shared_bytes: u32,
    /// Scratch bytes per lane (`.scratch`), 0 to [`MAX_SCRATCH_BYTES`].
    pub scratch_bytes: u32,
}

impl Default for LaunchConfig {
    fn default() -> Self {
        Self {
            workgroup_lanes: 32,
            grid: 1,
            shared_bytes: 0,
            scratch_bytes: 0,
        }
    }
}

impl LaunchConfig {
    /// Waves per workgroup: `workgroup_lanes / 32` (rounded up, though validation requires a
    /// multiple of 32).
    pub fn waves_per_workgroup(&self) -> u32 {
        self.workgroup_lanes.div_ceil(32)
    }
}

/// A global buffer the kernel declares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BufferDef {
    /// Name (used by `--dump NAME` and the debugger).
    pub name: String,
    /// Size in bytes, 1 to [`MAX_BUFFER_BYTES`].
    pub size: u64,
    /// Initial contents (the rest of the buffer is zero).
    pub init: Vec<u8>,
}

/// What a preloaded uniform-register argument holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ArgValue {
    /// A buffer's 64-bit address, in two registers (low, high).
    Address(String),
    /// A buffer descriptor, in four registers (base low, base high, size, flags).
    Descriptor(String),
    /// A 32-bit constant.
    Value(u32),
}

/// A uniform register (or run of registers) preloaded before the kernel starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArgDef {
    /// The first uniform register (`u0`-`u63`) of the run; the run is [`ArgValue::regs`] long.
    pub reg: u8,
    /// What the registers are set to before the first instruction.
    pub value: ArgValue,
}

impl ArgValue {
    /// How many registers the value occupies.
    pub fn regs(&self) -> u8 {
        match self {
            ArgValue::Address(_) => 2,
            ArgValue::Descriptor(_) => 4,
            ArgValue::Value(_) => 1,
        }
    }
}

/// An assembled kernel (code, directive metadata, labels and line table), as the assembler
/// produces it and a `.wko` file stores it; [`Program::validate`] states its invariants.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Program {
    /// Container format version ([`OBJECT_FORMAT_VERSION`]).
    pub format_version: u32,
    /// Kernel name from `.kernel` (`kernel` when the source has none).
    pub name: String,
    /// The source file it was assembled from, if any.
    pub source: Option<String>,
    /// Code, 32-bit words; a 64-bit instruction takes two (low first). PC 0 is `code[0]`.
    pub code: Vec<u32>,
    /// Labels by name: byte address in the code.
    pub labels: BTreeMap<String, u64>,
    /// Source line of each instruction: (byte address, line number).
    pub lines: Vec<(u64, u32)>,
    /// Launch settings from the `.workgroup`, `.grid`, `.shared` and `.scratch` directives.
    pub launch: LaunchConfig,
    /// Global buffers from `.buffer`, in declaration order (the order their addresses are given).
    pub buffers: Vec<BufferDef>,
    /// Uniform registers preloaded from `.arg` before the first instruction, in declaration order.
    pub args: Vec<ArgDef>,
    /// Source-level debug information from `.file N`, `.loc` and `.var` (empty for
    /// hand-written assembly; absent from objects before format version 3).
    #[serde(default)]
    pub source_info: SourceInfo,
}

/// Why a kernel object could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ObjectError {
    /// Not a valid RON document of the expected shape.
    #[error("not a wavedbg kernel object: {0}")]
    Parse(String),
    /// The program could not be written as RON.
    #[error("cannot serialise the kernel object: {0}")]
    Serialize(String),
    /// A field's packed bytes are malformed (bad base64, an empty pattern, a truncated
    /// line table) or longer than its limit.
    #[error("kernel object field `{field}`: {reason}")]
    Packed {
        /// Which field: `code`, `lines` or `buffers[NAME].init`.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Well-formed, but not a kernel that can run.
    #[error("invalid kernel object: {0}")]
    Invalid(#[from] ProgramError),
    /// Written by an incompatible version.
    #[error(
        "kernel object format version {found} is not supported (expected {OLDEST_OBJECT_FORMAT_VERSION} to {OBJECT_FORMAT_VERSION})"
    )]
    Version {
        /// The `format_version` in the file, which is not [`OBJECT_FORMAT_VERSION`].
        found: u32,
    },
}

/// Why a program is not a kernel that can run: the same checks for the assembler's output
/// and for a `.wko` object read from disk, which is not trusted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProgramError {
    /// No code at all.
    #[error("no instructions: a kernel needs at least one instruction")]
    NoInstructions,
    /// More than [`MAX_CODE_WORDS`] code words.
    #[error("{words} code words is more than the {MAX_CODE_WORDS} allowed")]
    CodeTooLarge {
        /// Code length in 32-bit words.
        words: usize,
    },
    /// Lanes per workgroup not a multiple of 32 in 32..=[`MAX_WORKGROUP_LANES`]; holds it.
    #[error("workgroup size {0} is not a multiple of 32 in 32..={MAX_WORKGROUP_LANES}")]
    WorkgroupLanes(u32),
    /// A grid of 0 workgroups.
    #[error("the grid has no workgroups")]
    EmptyGrid,
    /// Shared memory over the limit.
    #[error(
        "{0} bytes of shared memory per workgroup is more than the {MAX_SHARED_BYTES} allowed"
    )]
    SharedTooLarge(u32),
    /// Scratch over the limit.
    #[error("{0} bytes of scratch per lane is more than the {MAX_SCRATCH_BYTES} allowed")]
    ScratchTooLarge(u32),
    /// More than [`MAX_BUFFERS`] buffers; holds how many.
    #[error("{0} buffers is more than the {MAX_BUFFERS} allowed")]
    TooManyBuffers(usize),
    /// A buffer of a bad size.
    #[error("buffer `{name}` has size {size}: a buffer holds 1 to {MAX_BUFFER_BYTES} bytes")]
    BufferSize {
        /// The buffer's name.
        name: String,
        /// The declared size in bytes (0 or more than [`MAX_BUFFER_BYTES`]).
        size: u64,
    },
    /// All buffers together over the limit.
    #[error("the buffers take {total} bytes in all, more than the {MAX_GLOBAL_BYTES} allowed")]
    GlobalTooLarge {
        /// Sum of all buffer sizes in bytes.
        total: u64,
    },
    /// Initial contents longer than the buffer.
    #[error("buffer `{name}` has {init} bytes of initial contents but holds only {size}")]
    InitTooLong {
        /// The buffer's name.
        name: String,
        /// Length of the initial contents in bytes.
        init: usize,
        /// The buffer's size in bytes.
        size: u64,
    },
    /// Two buffers of one name.
    #[error("buffer `{0}` is declared twice")]
    DuplicateBuffer(String),
    /// An argument names a buffer the kernel does not declare.
    #[error("argument u{reg} names unknown buffer `{name}`")]
    UnknownBuffer {
        /// The argument's first uniform register (`u` number).
        reg: u8,
        /// The name that matches no `.buffer`.
        name: String,
    },
    /// An argument's registers run past the last uniform register.
    #[error("argument at u{0} runs past u63")]
    ArgRegisters(u8),
    /// A label outside the code.
    #[error("label `{name}` at {addr:#x} is outside the code ({code_bytes} bytes)")]
    LabelOutside {
        /// The label's name.
        name: String,
        /// Its byte address in the code.
        addr: u64,
        /// The code's length in bytes (4 per word); a label may equal it (the end of the
        /// code) but not exceed it.
        code_bytes: u64,
    },
    /// The line table is not sorted by address or points outside the code.
    #[error("the line table is not in address order inside the code (entry {0})")]
    LineTable(usize),
    /// The source-level debug information is inconsistent.
    #[error(transparent)]
    SourceInfo(#[from] SourceInfoError),
}

impl Program {
    /// Checks everything the machine relies on: sizes within the documented limits, names
    /// that resolve, registers that exist, a line table in order. The assembler and the
    /// object loader both call it, so a kernel from either is held to the same limits.
    pub fn validate(&self) -> Result<(), ProgramError> {
        if self.code.is_empty() {
            return Err(ProgramError::NoInstructions);
        }
        if self.code.len() > MAX_CODE_WORDS {
            return Err(ProgramError::CodeTooLarge {
                words: self.code.len(),
            });
        }
        let l = &self.launch;
        if l.workgroup_lanes == 0
            || !l.workgroup_lanes.is_multiple_of(32)
            || l.workgroup_lanes > MAX_WORKGROUP_LANES
        {
            return Err(ProgramError::WorkgroupLanes(l.workgroup_lanes));
        }
        if l.grid == 0 {
            return Err(ProgramError::EmptyGrid);
        }
        if l.shared_bytes as u64 > MAX_SHARED_BYTES {
            return Err(ProgramError::SharedTooLarge(l.shared_bytes));
        }
        if l.scratch_bytes as u64 > MAX_SCRATCH_BYTES {
            return Err(ProgramError::ScratchTooLarge(l.scratch_bytes));
        }
        if self.buffers.len() > MAX_BUFFERS {
            return Err(ProgramError::TooManyBuffers(self.buffers.len()));
        }
        let mut total = 0u64;
        for (i, b) in self.buffers.iter().enumerate() {
            if b.size == 0 || b.size > MAX_BUFFER_BYTES {
                return Err(ProgramError::BufferSize {
                    name: b.name.clone(),
                    size: b.size,
                });
            }
            if b.init.len() as u64 > b.size {
                return Err(ProgramError::InitTooLong {
                    name: b.name.clone(),
                    init: b.init.len(),
                    size: b.size,
                });
            }
            if self.buffers[..i].iter().any(|o| o.name == b.name) {
                return Err(ProgramError::DuplicateBuffer(b.name.clone()));
            }
            total += b.size;
        }
        if total > MAX_GLOBAL_BYTES {
            return Err(ProgramError::GlobalTooLarge { total });
        }
        for a in &self.args {
            if let ArgValue::Address(n) | ArgValue::Descriptor(n) = &a.value {
                if self.buffer(n).is_none() {
                    return Err(ProgramError::UnknownBuffer {
                        reg: a.reg,
                        name: n.clone(),
                    });
                }
            }
            if a.reg as usize + a.value.regs() as usize > crate::wave::UREGS {
                return Err(ProgramError::ArgRegisters(a.reg));
            }
        }
        let code_bytes = self.code_bytes();
        if let Some((name, &addr)) = self.labels.iter().find(|(_, a)| **a > code_bytes) {
            return Err(ProgramError::LabelOutside {
                name: name.clone(),
                addr,
                code_bytes,
            });
        }
        for (i, w) in self.lines.windows(2).enumerate() {
            if w[0].0 >= w[1].0 {
                return Err(ProgramError::LineTable(i + 1));
            }
        }
        if let Some(i) = self.lines.iter().position(|(a, _)| *a >= code_bytes) {
            return Err(ProgramError::LineTable(i));
        }
        self.source_info
            .validate(code_bytes, |n| self.buffer(n).map(|b| b.size), &self.launch)?;
        Ok(())
    }

    /// A program with no code and default launch settings.
    pub fn empty(name: &str) -> Self {
        Self {
            format_version: OBJECT_FORMAT_VERSION,
            name: name.to_string(),
            source: None,
            code: Vec::new(),
            labels: BTreeMap::new(),
            lines: Vec::new(),
            launch: LaunchConfig::default(),
            buffers: Vec::new(),
            args: Vec::new(),
            source_info: SourceInfo::default(),
        }
    }

    /// Serializes to the `.wko` container (RON text, format [`OBJECT_FORMAT_VERSION`]).
    /// An error is returned, never an empty text that a caller would write as an empty
    /// file.
    pub fn to_object(&self) -> Result<String, ObjectError> {
        let cfg = ron::ser::PrettyConfig::new().depth_limit(3);
        ron::ser::to_string_pretty(&object::Object::from_program(self), cfg)
            .map_err(|e| ObjectError::Serialize(e.to_string()))
    }

    /// Reads a `.wko` container (format version 1, 2 or 3); the result is validated like the
    /// assembler's output, and no field is expanded before its size is checked.
    pub fn from_object(text: &str) -> Result<Self, ObjectError> {
        let parse =
            |e: ron::error::SpannedError| ObjectError::Parse(crate::clip_quoted(e.to_string()));
        let version = ron::from_str::<object::Version>(text)
            .map_err(parse)?
            .format_version;
        let p = match version {
            1 => {
                let mut p: Program = ron::from_str(text).map_err(parse)?;
                p.validate()?;
                p.format_version = OBJECT_FORMAT_VERSION;
                p
            }
            2 | OBJECT_FORMAT_VERSION => {
                let o: object::Object = ron::from_str(text).map_err(parse)?;
                o.into_program()?
            }
            found => return Err(ObjectError::Version { found }),
        };
        Ok(p)
    }

    /// The label at an address, if any (the first by name).
    pub fn label_at(&self, addr: u64) -> Option<&str> {
        self.labels
            .iter()
            .find(|(_, a)| **a == addr)
            .map(|(n, _)| n.as_str())
    }

    /// The source line of the instruction at `addr`.
    pub fn line_at(&self, addr: u64) -> Option<u32> {
        self.lines
            .binary_search_by_key(&addr, |(a, _)| *a)
            .ok()
            .map(|i| self.lines[i].1)
    }

    /// The buffer with this name.
    pub fn buffer(&self, name: &str) -> Option<&BufferDef> {
        self.buffers.iter().find(|b| b.name == name)
    }

    /// Code size in bytes.
    pub fn code_bytes(&self) -> u64 {
        self.code.len() as u64 * 4
    }
}
