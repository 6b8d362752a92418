//! Source-level debug information of a kernel compiled from a higher-level language: the
//! files of `.file N "PATH"`, the line table of `.loc` and the variables of `.var` /
//! `.endvar` (docs/assembler.md, "Source-level debug information"). It is metadata beside
//! the code, never an instruction; a kernel without these directives has none.

use serde::{Deserialize, Serialize};

use crate::wave::{UREGS, VREGS};

/// Most source files a kernel may number.
pub const MAX_SOURCE_FILES: usize = 4096;
/// Most variables a kernel may declare (each live range counts once).
pub const MAX_VARIABLES: usize = 1 << 16;

/// The source-level debug information of a kernel (empty for hand-written assembly).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceInfo {
    /// The numbered source files of `.file N "PATH"`, by number.
    pub files: Vec<SourceFile>,
    /// Line-table rows in strictly increasing address order; a row covers its address up
    /// to the next row's (the last one to the end of the code). Code before the first row
    /// has no source line.
    pub rows: Vec<LineRow>,
    /// Variables with their live ranges, in declaration order.
    pub vars: Vec<VarDef>,
}

/// A source file of the line table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceFile {
    /// Its number in `.file` and `.loc`.
    pub number: u32,
    /// The path as written (relative paths are relative to the `.s` file).
    pub path: String,
}

impl SourceFile {
    /// Its path beside the kernel's file `kernel` (the `.s`): [`SourceFile::path`] in the
    /// kernel's directory, or as it is when absolute or without a kernel path. Every front
    /// end (the engine's `list`, the symbol file's line table) finds the file here.
    pub fn beside(&self, kernel: Option<&std::path::Path>) -> std::path::PathBuf {
        kernel
            .and_then(std::path::Path::parent)
            .unwrap_or(std::path::Path::new(""))
            .join(&self.path)
    }
}

/// One row of the line table: from `addr` on, the code belongs to `file:line`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineRow {
    /// Byte address of the first instruction of the row.
    pub addr: u64,
    /// The source file's number.
    pub file: u32,
    /// 1-based line; 0 is code that belongs to no line (compiler-generated).
    pub line: u32,
    /// 1-based column; 0 when unknown.
    pub column: u32,
    /// Whether the row starts a statement: where `break FILE:LINE` and line stepping stop.
    pub is_stmt: bool,
    /// Whether the row is the first instruction after the kernel's prologue.
    pub prologue_end: bool,
}

/// Where a variable's value is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum VarLocation {
    /// A vector register: one value per lane.
    Vector(u8),
    /// A uniform register: one value for the wave.
    Uniform(u8),
    /// Two vector registers, low half first (a 64-bit value per lane).
    VectorPair(u8),
    /// Two uniform registers, low half first.
    UniformPair(u8),
    /// Global memory: a byte offset into a buffer.
    Global {
        /// The buffer's name.
        buffer: String,
        /// Byte offset in the buffer.
        offset: u64,
    },
    /// A byte address in the workgroup's shared memory.
    Shared(u64),
    /// A byte address in each lane's scratch (one value per lane).
    Scratch(u64),
}

/// A variable's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum VarType {
    /// Unsigned 32-bit (the default).
    U32,
    /// Signed 32-bit.
    I32,
    /// IEEE single.
    F32,
    /// Unsigned 64-bit (a register pair or memory).
    U64,
    /// IEEE double (a register pair or memory).
    F64,
}

/// Whether `name` is a word expressions read as a register or wave property (`v3`, `u5`,
/// `v999`, `exec`, `pc`, `lane`, `wave`): such a name can never be a variable, since
/// `print v3` would print the register.
pub fn is_register_word(name: &str) -> bool {
    let numbered = |p: char| {
        name.strip_prefix(p)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    matches!(name, "exec" | "pc" | "lane" | "wave") || numbered('v') || numbered('u')
}

/// A variable and the code it is live in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VarDef {
    /// The source name.
    pub name: String,
    /// Where its value is.
    pub location: VarLocation,
    /// Its type.
    pub ty: VarType,
    /// First byte address where it is live.
    pub start: u64,
    /// Byte address where it stops being live (exclusive).
    pub end: u64,
}

impl VarType {
    /// Every type with its name, in the order hints list them.
    pub const ALL: [(VarType, &'static str); 5] = [
        (VarType::U32, "u32"),
        (VarType::I32, "i32"),
        (VarType::F32, "f32"),
        (VarType::U64, "u64"),
        (VarType::F64, "f64"),
    ];

    /// The type of a name (`u32`, `i32`, `f32`, `u64`, `f64`).
    pub fn parse(s: &str) -> Option<VarType> {
        Self::ALL.iter().find(|(_, n)| *n == s).map(|(t, _)| *t)
    }

    /// Its name as `.var` writes it.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(t, _)| *t == self)
            .map_or("u32", |(_, n)| n)
    }

    /// Size in bytes.
    pub fn bytes(self) -> u64 {
        match self {
            VarType::U32 | VarType::I32 | VarType::F32 => 4,
            VarType::U64 | VarType::F64 => 8,
        }
    }
}

impl VarLocation {
    /// Whether the location can hold a value of `ty`: a single register 32 bits, a pair
    /// 64 bits, memory either.
    pub fn holds(&self, ty: VarType) -> bool {
        match self {
            VarLocation::Vector(_) | VarLocation::Uniform(_) => ty.bytes() == 4,
            VarLocation::VectorPair(_) | VarLocation::UniformPair(_) => ty.bytes() == 8,
            _ => true,
        }
    }

    /// Why a value of `ty` here is outside the shared or scratch memory `launch` gives
    /// (`None` when it fits, or is not in either): the location, the value's size and the
    /// memory's, as the message says them.
    pub fn outside_memory(
        &self,
        ty: VarType,
        launch: &crate::program::LaunchConfig,
    ) -> Option<String> {
        let (addr, size, what) = match *self {
            VarLocation::Shared(a) => (
                a,
                launch.shared_bytes,
                "shared memory per workgroup (.shared)",
            ),
            VarLocation::Scratch(a) => (a, launch.scratch_bytes, "scratch per lane (.scratch)"),
            _ => return None,
        };
        let fits = addr
            .checked_add(ty.bytes())
            .is_some_and(|e| e <= u64::from(size));
        (!fits).then(|| {
            format!(
                "{self} (a {}, {} bytes) is outside the kernel's {size} bytes of {what}",
                ty.name(),
                ty.bytes()
            )
        })
    }

    /// Whether its registers exist.
    fn registers_exist(&self) -> bool {
        match *self {
            VarLocation::Vector(r) => (r as usize) < VREGS,
            VarLocation::VectorPair(r) => (r as usize) + 1 < VREGS,
            VarLocation::Uniform(r) => (r as usize) < UREGS,
            VarLocation::UniformPair(r) => (r as usize) + 1 < UREGS,
            _ => true,
        }
    }
}

impl std::fmt::Display for VarLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VarLocation::Vector(r) => write!(f, "v{r}"),
            VarLocation::Uniform(r) => write!(f, "u{r}"),
            VarLocation::VectorPair(r) => write!(f, "v[{r}:{}]", *r as u32 + 1),
            VarLocation::UniformPair(r) => write!(f, "u[{r}:{}]", *r as u32 + 1),
            VarLocation::Global { buffer, offset } => write!(f, "global:{buffer}+{offset}"),
            VarLocation::Shared(a) => write!(f, "shared:{a:#x}"),
            VarLocation::Scratch(a) => write!(f, "scratch:{a:#x}"),
        }
    }
}

/// What is wrong with a kernel's source-level debug information (from a hostile object;
/// the assembler reports these at their directives).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceInfoError {
    /// Too many files or variables.
    #[error("more than {limit} {what}")]
    TooMany {
        /// `source files` or `variables`.
        what: &'static str,
        /// The limit.
        limit: usize,
    },
    /// Two files of one number.
    #[error("source file number {0} is given twice")]
    DuplicateFile(u32),
    /// Rows out of address order or outside the code.
    #[error("the source line table is not in address order inside the code (row {0})")]
    RowOrder(usize),
    /// A row names a file that has no number.
    #[error("source line table row {row} names file number {file}, which is not declared")]
    UnknownFile {
        /// The row's index.
        row: usize,
        /// The file number.
        file: u32,
    },
    /// A variable that cannot be read as declared.
    #[error("variable `{name}`: {reason}")]
    Variable {
        /// The variable's name.
        name: String,
        /// What is wrong.
        reason: String,
    },
}

impl SourceInfo {
    /// The paths of its source files beside the kernel's file `kernel`
    /// ([`SourceFile::beside`]): inputs no output of the debugger may be written over.
    pub fn paths_beside(&self, kernel: Option<&std::path::Path>) -> Vec<std::path::PathBuf> {
        self.files.iter().map(|f| f.beside(kernel)).collect()
    }

    /// Whether the kernel has a line table (at least one row with a line).
    pub fn has_lines(&self) -> bool {
        self.rows.iter().any(|r| r.line != 0)
    }

    /// The file of a number.
    pub fn file(&self, number: u32) -> Option<&SourceFile> {
        self.files.iter().find(|f| f.number == number)
    }

    /// The row covering `addr` in code of `code_bytes` bytes, if any (also rows of line 0).
    pub fn row_at(&self, addr: u64, code_bytes: u64) -> Option<&LineRow> {
        if addr >= code_bytes {
            return None;
        }
        let i = self.rows.partition_point(|r| r.addr <= addr);
        i.checked_sub(1).map(|i| &self.rows[i])
    }

    /// The address ranges `[start, end)` of each stretch of consecutive rows of
    /// `file:line`, with the first statement address of each (the row's first address
    /// with `is_stmt`; `None` when no row of the stretch is a statement).
    pub fn line_ranges(&self, file: u32, line: u32, code_bytes: u64) -> Vec<LineRange> {
        let mut out: Vec<LineRange> = Vec::new();
        let mut open = false;
        for (i, r) in self.rows.iter().enumerate() {
            let end = self.rows.get(i + 1).map_or(code_bytes, |n| n.addr);
            if r.file == file && r.line == line && line != 0 {
                match out.last_mut() {
                    Some(last) if open => {
                        last.end = end;
                        if last.stmt.is_none() && r.is_stmt {
                            last.stmt = Some(r.addr);
                        }
                    }
                    _ => out.push(LineRange {
                        start: r.addr,
                        end,
                        stmt: r.is_stmt.then_some(r.addr),
                    }),
                }
                open = true;
            } else {
                open = false;
            }
        }
        out
    }

    /// The variables live at `addr`, in declaration order (a later range of one name
    /// replaces an earlier one, as a variable that moved).
    pub fn live_vars(&self, addr: u64) -> Vec<&VarDef> {
        let mut out: Vec<&VarDef> = Vec::new();
        for v in self.vars.iter().filter(|v| v.start <= addr && addr < v.end) {
            match out.iter_mut().find(|o| o.name == v.name) {
                Some(o) => *o = v,
                None => out.push(v),
            }
        }
        out
    }

    /// Checks what the debugger relies on: limits, rows in order inside the code, file
    /// numbers that resolve, variables whose registers exist and whose ranges are in the
    /// code. `buffer_size` gives a buffer's size by name.
    pub fn validate(
        &self,
        code_bytes: u64,
        buffer_size: impl Fn(&str) -> Option<u64>,
        launch: &crate::program::LaunchConfig,
    ) -> Result<(), SourceInfoError> {
        if self.files.len() > MAX_SOURCE_FILES {
            return Err(SourceInfoError::TooMany {
                what: "source files",
                limit: MAX_SOURCE_FILES,
            });
        }
        if self.vars.len() > MAX_VARIABLES {
            return Err(SourceInfoError::TooMany {
                what: "variables",
                limit: MAX_VARIABLES,
            });
        }
        for (i, f) in self.files.iter().enumerate() {
            if self.files[..i].iter().any(|o| o.number == f.number) {
                return Err(SourceInfoError::DuplicateFile(f.number));
            }
        }
        for (i, r) in self.rows.iter().enumerate() {
            let ordered = i == 0 || self.rows[i - 1].addr < r.addr;
            if !ordered || r.addr >= code_bytes {
                return Err(SourceInfoError::RowOrder(i));
            }
            if self.file(r.file).is_none() {
                return Err(SourceInfoError::UnknownFile {
                    row: i,
                    file: r.file,
                });
            }
        }
        for v in &self.vars {
            let bad = |reason: String| SourceInfoError::Variable {
                name: v.name.clone(),
                reason,
            };
            if !(v.start <= v.end && v.end <= code_bytes) {
                return Err(bad(format!(
                    "live range {:#x}..{:#x} is not inside the code",
                    v.start, v.end
                )));
            }
            if !v.location.registers_exist() {
                return Err(bad(format!("register {} does not exist", v.location)));
            }
            if !v.location.holds(v.ty) {
                return Err(bad(format!("{} cannot hold a {}", v.location, v.ty.name())));
            }
            if let VarLocation::Global { buffer, offset } = &v.location {
                let size =
                    buffer_size(buffer).ok_or_else(|| bad(format!("unknown buffer `{buffer}`")))?;
                if offset.checked_add(v.ty.bytes()).is_none_or(|e| e > size) {
                    return Err(bad(format!("offset {offset} is outside buffer `{buffer}`")));
                }
            }
            if let Some(reason) = v.location.outside_memory(v.ty, launch) {
                return Err(bad(reason));
            }
        }
        Ok(())
    }
}

/// One stretch of code that belongs to a source line (see [`SourceInfo::line_ranges`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineRange {
    /// First byte address.
    pub start: u64,
    /// Byte address past the stretch.
    pub end: u64,
    /// The first statement address in it, where a breakpoint on the line goes.
    pub stmt: Option<u64>,
}
