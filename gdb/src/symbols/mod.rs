//! A symbol file for a kernel, so stock gdb and lldb know its labels, buffers, memory
//! windows and source lines (`wavedbg elf K.s -o K.elf`, and `wavedbg serve`, which writes
//! one too).
//!
//! The file is a 64-bit little-endian x86-64 ELF executable (the server's target
//! description says `i386:x86-64`, so both clients accept it), written with the `object`
//! crate's ELF writer, and its DWARF with `gimli::write`:
//!
//! - `.text` at address 0 is as long as the code, in a read/execute `PT_LOAD` segment;
//!   its bytes are an x86 stand-in with the kernel's instruction boundaries and branches
//!   ([`shadow`]: lldb plans its line steps from them); the code itself is the server's
//!   memory at the same addresses;
//! - `.global`, a `NOBITS` section (and a read/write segment with no file bytes) covering
//!   the buffers at their global addresses (the addresses the launch gives them);
//! - `.shared` and `.scratch`, `NOBITS` sections (no segment) over the shared and scratch
//!   windows of the launch (`crate::memory`), when the kernel has shared memory or
//!   scratch;
//! - symbols: every label a global `STT_FUNC` at its address, sized up to the next label
//!   (or the end of the code); the kernel's name the same way at 0 when no label is there;
//!   every buffer a global `STT_OBJECT` at its address with its size; and an `STT_OBJECT`
//!   per window ([`window_symbols`]): `__shared_wgW` for the shared memory of workgroup W
//!   (the first [`MAX_SHARED_SYMBOLS`] workgroups) and `__scratch_waveV_laneL` for the
//!   scratch of lane L of wave V (the first [`MAX_SCRATCH_SYMBOL_WAVES`] waves), each with
//!   the real size of its memory, so `info symbol` names a window address;
//! - DWARF 4: one compile unit naming the source file as given (`DW_AT_comp_dir` is the
//!   directory it was written from), a line program with one row per instruction, and a
//!   `DW_TAG_subprogram` per function symbol. The first row of each function is marked
//!   `prologue_end` (and `is_stmt`): gdb and lldb then put a breakpoint on a function at
//!   its very first instruction instead of analysing an x86 "prologue". A kernel with a
//!   line table of a higher-level language (`.loc`) has its rows from the first `.loc`
//!   on, in its files, and the compile unit is named after that file ([`lines`]); its
//!   `.var` variables are locals of the subprograms with location lists ([`locals`]),
//!   and it is one subprogram, the kernel, whose labels are `DW_TAG_label`s;
//! - call-frame information: a `.debug_frame` whose one FDE covers all the
//!   code and whose CIE marks the return address (`rip`) undefined, so every PC is in an
//!   outermost frame and gdb and lldb unwind no caller from the kernel's code bytes (the
//!   compile unit's [`PRODUCER`] makes gdb 13 trust it at every PC);
//! - typed DWARF variables ([`variables`]): every buffer an array of `unsigned int` (of
//!   `unsigned char` when its size is not a multiple of 4), and the windows as
//!   `__shared[W].w[k]` and `__scratch[V][L].w[k]`, arrays over the launch's workgroups
//!   and waves of structs as large as one window, so that indexing them gives exactly the
//!   window addresses (the arrays declare at most 4095 workgroups and 2047 waves:
//!   [`MAX_ARRAY_BYTES`]; C indexing goes on past them).
//!
//! A window name the kernel itself uses (a label or buffer called `__shared`, say) is left
//! out: the kernel's own names win.

use std::collections::BTreeSet;
use std::path::Path;

use gimli::write::{
    Address, AttributeValue, CallFrameInstruction, CommonInformationEntry, DebugFrame, DwarfUnit,
    EndianVec, Expression, FrameDescriptionEntry, FrameTable, Sections, UnitEntryId,
};
use gimli::{Encoding, Format, LittleEndian, X86_64};
use object::elf;
use object::write::elf::{FileHeader, ProgramHeader, SectionHeader, Sym, Writer};
use object::Endianness;
use wavedbg_emulator::machine::{LaunchError, LaunchOptions, Machine};
use wavedbg_emulator::program::Program;

mod lines;
mod locals;
mod shadow;

use crate::memory::{
    Window, SCRATCH_BASE, SCRATCH_OFFSET_BITS, SCRATCH_WAVE_SHIFT, SHARED_BASE, SHARED_OFFSET_BITS,
};

/// What marks a symbol file this module wrote: [`is_symbol_file`] looks for it (it ends
/// [`PRODUCER`]).
pub const SIGNATURE: &str = concat!("wavedbg ", env!("CARGO_PKG_VERSION"), " symbols");

/// The `DW_AT_producer` of every symbol file, `GNU wavedbg 5.0 (wavedbg VERSION symbols)`.
/// Its form is GCC's (`GNU`, a word, then a version of at least 4.5) because gdb 13 trusts
/// a compile unit's call-frame information at every PC only for such a producer: for any
/// other it lets its x86 epilogue heuristic take over at each PC whose first code byte is
/// 0xc3 (x86's `ret`), which reads a return address at `rsp` and shows a caller frame that
/// does not exist. (5.0 is no GCC with DWARF quirks that gdb works around.)
pub const PRODUCER: &str = concat!(
    "GNU wavedbg 5.0 (wavedbg ",
    env!("CARGO_PKG_VERSION"),
    " symbols)"
);

/// The DWARF variable over every workgroup's shared window: `__shared[W].w[k]` is word k
/// of workgroup W's shared memory.
pub const SHARED_VARIABLE: &str = "__shared";
/// The DWARF variable over every lane's scratch window: `__scratch[V][L].w[k]` is word k
/// of the scratch of lane L of wave V (the global wave id).
pub const SCRATCH_VARIABLE: &str = "__scratch";
/// The member of a window struct when the window is whole words (`unsigned int[]`).
pub const WORDS_MEMBER: &str = "w";
/// The member of a window struct when the window's size is not a multiple of 4
/// (`unsigned char[]`).
pub const BYTES_MEMBER: &str = "b";
/// Window symbols `__shared_wgW` are written for workgroups below this (the DWARF
/// variable covers every workgroup).
pub const MAX_SHARED_SYMBOLS: u32 = 1024;
/// Window symbols `__scratch_waveV_laneL` are written for waves below this (32 a wave; the
/// DWARF variable covers every wave).
pub const MAX_SCRATCH_SYMBOL_WAVES: u32 = 32;

/// The window variables' arrays stay below this many bytes: gdb 13 checks an index
/// against an array's size in 32 bits, so it refuses (`no such vector element`) any index
/// of an array of 4 GiB or more. Past the declared end, C indexing still reaches the right
/// address (gdb and lldb then add the index times the element's size).
pub const MAX_ARRAY_BYTES: u64 = 1 << 32;

/// Why a symbol file could not be built.
#[derive(Debug, thiserror::Error)]
pub enum SymbolsError {
    /// The ELF writer failed.
    #[error("cannot write the ELF file: {0}")]
    Elf(#[from] object::write::Error),
    /// The DWARF writer failed.
    #[error("cannot write the DWARF: {0}")]
    Dwarf(#[from] gimli::write::Error),
    /// The kernel cannot be launched, so its buffers have no addresses.
    #[error("cannot place the buffers: {0}")]
    Launch(#[from] LaunchError),
}

/// What a launch decides about the addresses a symbol file names: where the buffers are,
/// and how many workgroups and waves have shared and scratch windows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// The global address of each buffer, in `program.buffers` order.
    pub buffer_bases: Vec<u64>,
    /// Workgroups in the grid (at least 1): shared windows 0 to `grid - 1`.
    pub grid: u32,
    /// Waves per workgroup (lanes per workgroup / 32).
    pub waves_per_workgroup: u32,
    /// Shared-memory bytes per workgroup (0: no shared window, no `__shared` symbols).
    pub shared_bytes: u32,
    /// Scratch bytes per lane (0: no scratch window, no `__scratch` symbols).
    pub scratch_bytes: u32,
}

impl Launch {
    /// The launch a machine was made with.
    pub fn of(machine: &Machine) -> Launch {
        let l = machine.launch();
        Launch {
            buffer_bases: machine.buffer_bases.clone(),
            grid: l.grid,
            waves_per_workgroup: l.waves_per_workgroup(),
            shared_bytes: l.shared_bytes,
            scratch_bytes: l.scratch_bytes,
        }
    }

    /// The launch of `program` with `options` (the kernel's own `.grid` and `.workgroup`
    /// unless the options override them).
    pub fn new(program: &Program, options: LaunchOptions) -> Result<Launch, SymbolsError> {
        Ok(Launch::of(&Machine::new(program, options)?))
    }

    /// Waves in the launch (global wave ids are 32-bit, so at most 2^32).
    pub fn waves(&self) -> u64 {
        (u64::from(self.grid) * u64::from(self.waves_per_workgroup)).min(1 << 32)
    }

    /// The workgroups [`SHARED_VARIABLE`] declares: the grid, at most
    /// [`MAX_ARRAY_BYTES`]` >> 20` - 1 (4095).
    pub fn shared_dimension(&self) -> u64 {
        u64::from(self.grid).min((MAX_ARRAY_BYTES >> SHARED_OFFSET_BITS) - 1)
    }

    /// The waves [`SCRATCH_VARIABLE`] declares: the launch's, at most
    /// [`MAX_ARRAY_BYTES`]` >> 21` - 1 (2047).
    pub fn scratch_dimension(&self) -> u64 {
        self.waves()
            .min((MAX_ARRAY_BYTES >> SCRATCH_WAVE_SHIFT) - 1)
    }

    /// The `.shared` section: from [`SHARED_BASE`] to the end of the last workgroup's
    /// window (`None` without shared memory).
    fn shared_range(&self) -> Option<(u64, u64)> {
        (self.shared_bytes > 0 && self.grid > 0).then(|| {
            let last = Window::shared_addr(self.grid - 1, u64::from(self.shared_bytes));
            (SHARED_BASE, last - SHARED_BASE)
        })
    }

    /// The `.scratch` section: from [`SCRATCH_BASE`] to the end of the last lane's window
    /// (`None` without scratch).
    fn scratch_range(&self) -> Option<(u64, u64)> {
        // (Wave ids are 32-bit: `waves` is at most 2^32.)
        let last_wave = u32::try_from(self.waves().checked_sub(1)?).unwrap_or(u32::MAX);
        (self.scratch_bytes > 0).then(|| {
            let last = Window::scratch_addr(last_wave, 31, u64::from(self.scratch_bytes));
            (SCRATCH_BASE, last - SCRATCH_BASE)
        })
    }
}

/// A function symbol: a label (or the kernel's name) and its address range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    /// The label, or the kernel's name for the function at 0.
    pub name: String,
    /// Its code byte address (the symbol's value; code starts at 0).
    pub address: u64,
    /// Bytes up to the next label at a higher address, or to the end of the code.
    pub size: u64,
}

/// The function symbols of a kernel, by address: every label, and the kernel's name at 0
/// when no label is there (and no label has that name).
pub fn functions(program: &Program) -> Vec<Function> {
    let end = program.code.len() as u64 * 4;
    let mut starts: Vec<(u64, String)> = program
        .labels
        .iter()
        .map(|(name, &addr)| (addr, name.clone()))
        .collect();
    if !starts.iter().any(|(a, _)| *a == 0) && !program.labels.contains_key(&program.name) {
        starts.push((0, program.name.clone()));
    }
    starts.sort();
    starts
        .iter()
        .map(|(addr, name)| {
            let next = starts
                .iter()
                .map(|(a, _)| *a)
                .find(|a| a > addr)
                .unwrap_or(end)
                .max(*addr);
            Function {
                name: name.clone(),
                address: *addr,
                size: next.min(end.max(*addr)) - addr,
            }
        })
        .collect()
}

/// The names the kernel itself gives: its labels, its buffers and its name.
fn kernel_names(program: &Program) -> BTreeSet<&str> {
    program
        .labels
        .keys()
        .map(String::as_str)
        .chain(program.buffers.iter().map(|b| b.name.as_str()))
        .chain([program.name.as_str()])
        .collect()
}

/// Which memory window a [`WindowSymbol`] covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowKind {
    /// The shared memory of a workgroup.
    Shared,
    /// The scratch of one lane of one wave.
    Scratch,
}

/// An `STT_OBJECT` symbol at a memory window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowSymbol {
    /// Shared (one workgroup's window) or scratch (one lane's window).
    pub kind: WindowKind,
    /// `__shared_wgW` or `__scratch_waveV_laneL`.
    pub name: String,
    /// The window's first address in the server's address space (offset 0 of it).
    pub address: u64,
    /// The real size of the memory behind it.
    pub size: u64,
}

/// The window symbols of a launch, by address: `__shared_wgW` at the shared window of
/// workgroup W (for W below [`MAX_SHARED_SYMBOLS`]), then `__scratch_waveV_laneL` at the
/// scratch window of lane L of wave V (for V below [`MAX_SCRATCH_SYMBOL_WAVES`]), each as
/// large as the memory really is (`shared_bytes`, `scratch_bytes`); none for a window the
/// kernel does not have, and none whose name the kernel uses.
pub fn window_symbols(program: &Program, launch: &Launch) -> Vec<WindowSymbol> {
    let taken = kernel_names(program);
    let mut out = Vec::new();
    if launch.shared_bytes > 0 {
        for wg in 0..launch.grid.min(MAX_SHARED_SYMBOLS) {
            out.push(WindowSymbol {
                kind: WindowKind::Shared,
                name: format!("__shared_wg{wg}"),
                address: Window::shared_addr(wg, 0),
                size: launch.shared_bytes.into(),
            });
        }
    }
    if launch.scratch_bytes > 0 {
        let waves = launch.waves().min(MAX_SCRATCH_SYMBOL_WAVES.into()) as u32;
        for wave in 0..waves {
            for lane in 0..32u8 {
                out.push(WindowSymbol {
                    kind: WindowKind::Scratch,
                    name: format!("__scratch_wave{wave}_lane{lane}"),
                    address: Window::scratch_addr(wave, lane, 0),
                    size: launch.scratch_bytes.into(),
                });
            }
        }
    }
    out.retain(|w| !taken.contains(w.name.as_str()));
    out
}

/// A typed DWARF variable of the symbol file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    /// The buffer's name, or [`SHARED_VARIABLE`] / [`SCRATCH_VARIABLE`].
    pub name: String,
    /// Its address (`DW_OP_addr`).
    pub address: u64,
    /// What it covers, which decides its type.
    pub kind: VariableKind,
}

/// What a [`Variable`] covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VariableKind {
    /// A buffer of this many bytes: `unsigned int[bytes / 4]`, or `unsigned char[bytes]`
    /// when `bytes` is not a multiple of 4.
    Buffer(u64),
    /// Every workgroup's shared window: `struct __shared_window[grid]`, each struct
    /// `1 << 20` bytes whose member `w` (or `b`) is the real shared memory.
    Shared,
    /// Every lane's scratch window: `struct __scratch_window[waves][32]`, each struct
    /// `1 << 16` bytes whose member `w` (or `b`) is the real scratch.
    Scratch,
}

/// The element type and count of a block of `bytes` bytes: whole words as `unsigned int`,
/// anything else as `unsigned char` (so every byte is covered).
fn elements(bytes: u64) -> (&'static str, u64) {
    if bytes.is_multiple_of(4) {
        ("unsigned int", bytes / 4)
    } else {
        ("unsigned char", bytes)
    }
}

/// The member of a window struct of `bytes` bytes: `w` for words, `b` for bytes.
fn member(bytes: u64) -> &'static str {
    if bytes.is_multiple_of(4) {
        WORDS_MEMBER
    } else {
        BYTES_MEMBER
    }
}

/// The typed variables of a launch: every buffer, then [`SHARED_VARIABLE`] (when the
/// kernel has shared memory) and [`SCRATCH_VARIABLE`] (when it has scratch), unless the
/// kernel uses those names itself.
pub fn variables(program: &Program, launch: &Launch) -> Vec<Variable> {
    let taken = kernel_names(program);
    let mut out: Vec<Variable> = program
        .buffers
        .iter()
        .zip(&launch.buffer_bases)
        .map(|(b, &base)| Variable {
            name: b.name.clone(),
            address: base,
            kind: VariableKind::Buffer(b.size),
        })
        .collect();
    if launch.shared_bytes > 0 && !taken.contains(SHARED_VARIABLE) {
        out.push(Variable {
            name: SHARED_VARIABLE.into(),
            address: SHARED_BASE,
            kind: VariableKind::Shared,
        });
    }
    if launch.scratch_bytes > 0 && !taken.contains(SCRATCH_VARIABLE) {
        out.push(Variable {
            name: SCRATCH_VARIABLE.into(),
            address: SCRATCH_BASE,
            kind: VariableKind::Scratch,
        });
    }
    out
}

/// The struct of one workgroup's shared window.
const SHARED_STRUCT: &str = "__shared_window";
/// The struct of one lane's scratch window.
const SCRATCH_STRUCT: &str = "__scratch_window";

/// Whether `bytes` look like a symbol file this module wrote (an ELF file holding
/// [`SIGNATURE`]), so that writing a new one over it loses nothing.
pub fn is_symbol_file(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\x7fELF")
        && bytes
            .windows(SIGNATURE.len())
            .any(|w| w == SIGNATURE.as_bytes())
}

/// Builds the DWARF types and variables of [`variables`] in `dwarf`'s unit.
struct TypeBuilder<'a> {
    dwarf: &'a mut DwarfUnit,
    root: UnitEntryId,
    index: Option<UnitEntryId>,
    bases: Vec<(&'static str, UnitEntryId)>,
}

impl TypeBuilder<'_> {
    fn add(&mut self, parent: UnitEntryId, tag: gimli::DwTag) -> UnitEntryId {
        self.dwarf.unit.add(parent, tag)
    }

    fn set(&mut self, id: UnitEntryId, attr: gimli::DwAt, value: AttributeValue) {
        self.dwarf.unit.get_mut(id).set(attr, value);
    }

    fn name(&mut self, id: UnitEntryId, name: &str) {
        let s = self.dwarf.strings.add(name);
        self.set(id, gimli::DW_AT_name, AttributeValue::StringRef(s));
    }

    /// A base type: `unsigned int`, `unsigned char`, `long unsigned int` (the index type),
    /// and the variables' `int`, `float`, `double`.
    fn base(&mut self, name: &'static str) -> UnitEntryId {
        if let Some(&(_, id)) = self.bases.iter().find(|(n, _)| *n == name) {
            return id;
        }
        let (size, encoding) = match name {
            "unsigned char" => (1, gimli::DW_ATE_unsigned_char),
            "long unsigned int" => (8, gimli::DW_ATE_unsigned),
            "int" => (4, gimli::DW_ATE_signed),
            "float" => (4, gimli::DW_ATE_float),
            "double" => (8, gimli::DW_ATE_float),
            _ => (4, gimli::DW_ATE_unsigned),
        };
        let id = self.add(self.root, gimli::DW_TAG_base_type);
        self.name(id, name);
        self.set(id, gimli::DW_AT_byte_size, AttributeValue::Udata(size));
        self.set(
            id,
            gimli::DW_AT_encoding,
            AttributeValue::Encoding(encoding),
        );
        self.bases.push((name, id));
        id
    }

    /// An array of `element` with these dimensions (outermost first).
    fn array(&mut self, element: UnitEntryId, dims: &[u64]) -> UnitEntryId {
        let index = match self.index {
            Some(i) => i,
            None => {
                let i = self.base("long unsigned int");
                self.index = Some(i);
                i
            }
        };
        let id = self.add(self.root, gimli::DW_TAG_array_type);
        self.set(id, gimli::DW_AT_type, AttributeValue::UnitRef(element));
        for &n in dims {
            let sub = self.add(id, gimli::DW_TAG_subrange_type);
            self.set(sub, gimli::DW_AT_type, AttributeValue::UnitRef(index));
            self.set(
                sub,
                gimli::DW_AT_upper_bound,
                AttributeValue::Udata(n.saturating_sub(1)),
            );
        }
        id
    }

    /// The array type of a block of `bytes` bytes ([`elements`]).
    fn block(&mut self, bytes: u64) -> UnitEntryId {
        let (elem, n) = elements(bytes);
        let elem = self.base(elem);
        self.array(elem, &[n])
    }

    /// A struct `name` of `size` bytes whose one member ([`member`]) is a block of `bytes`.
    fn window(&mut self, name: &str, size: u64, bytes: u64) -> UnitEntryId {
        let block = self.block(bytes);
        let id = self.add(self.root, gimli::DW_TAG_structure_type);
        self.name(id, name);
        self.set(id, gimli::DW_AT_byte_size, AttributeValue::Udata(size));
        let m = self.add(id, gimli::DW_TAG_member);
        self.name(m, member(bytes));
        self.set(m, gimli::DW_AT_type, AttributeValue::UnitRef(block));
        self.set(
            m,
            gimli::DW_AT_data_member_location,
            AttributeValue::Udata(0),
        );
        id
    }

    /// A global variable of type `ty` at `address`.
    fn variable(&mut self, name: &str, ty: UnitEntryId, address: u64) {
        let id = self.add(self.root, gimli::DW_TAG_variable);
        self.name(id, name);
        self.set(id, gimli::DW_AT_type, AttributeValue::UnitRef(ty));
        self.set(id, gimli::DW_AT_external, AttributeValue::Flag(true));
        let mut location = Expression::new();
        location.op_addr(Address::Constant(address));
        self.set(id, gimli::DW_AT_location, AttributeValue::Exprloc(location));
    }
}

/// Adds the types and variables of [`variables`] to the compile unit, then the kernel's
/// own variables (`.var`) to the subprograms whose code they live in ([`locals`]).
fn add_variables(
    dwarf: &mut DwarfUnit,
    program: &Program,
    launch: &Launch,
    subprograms: &[(UnitEntryId, &Function)],
) {
    let root = dwarf.unit.root();
    let mut t = TypeBuilder {
        dwarf,
        root,
        index: None,
        bases: Vec::new(),
    };
    for v in variables(program, launch) {
        let ty = match v.kind {
            VariableKind::Buffer(bytes) => t.block(bytes),
            VariableKind::Shared => {
                let s = t.window(
                    SHARED_STRUCT,
                    1 << SHARED_OFFSET_BITS,
                    launch.shared_bytes.into(),
                );
                t.array(s, &[launch.shared_dimension()])
            }
            VariableKind::Scratch => {
                let s = t.window(
                    SCRATCH_STRUCT,
                    1 << SCRATCH_OFFSET_BITS,
                    launch.scratch_bytes.into(),
                );
                t.array(s, &[launch.scratch_dimension(), 32])
            }
        };
        t.variable(&v.name, ty, v.address);
    }
    locals::add_locals(&mut t, program, launch, subprograms);
}

/// The DWARF sections of a kernel: `(name, bytes)`, empty ones left out.
fn dwarf(
    program: &Program,
    launch: &Launch,
    functions: &[Function],
    source: &str,
    comp_dir: &str,
) -> Result<Vec<(&'static str, Vec<u8>)>, SymbolsError> {
    let encoding = Encoding {
        format: Format::Dwarf32,
        version: 4,
        address_size: 8,
    };
    let end = program.code.len() as u64 * 4;
    let mut dwarf = DwarfUnit::new(encoding);
    let source = if source.is_empty() {
        program.name.as_str()
    } else {
        source
    };
    let comp_dir = if comp_dir.is_empty() { "." } else { comp_dir };
    let lines::Lines {
        program: line_program,
        rows,
        primary,
    } = lines::line_program(program, encoding, functions, source, comp_dir);
    dwarf.unit.line_program = line_program;

    let root = dwarf.unit.root();
    let producer = dwarf.strings.add(PRODUCER);
    let name = dwarf.strings.add(primary.as_deref().unwrap_or(source));
    let dir = dwarf.strings.add(comp_dir);
    let cu = dwarf.unit.get_mut(root);
    cu.set(gimli::DW_AT_producer, AttributeValue::StringRef(producer));
    cu.set(gimli::DW_AT_name, AttributeValue::StringRef(name));
    cu.set(gimli::DW_AT_comp_dir, AttributeValue::StringRef(dir));
    cu.set(
        gimli::DW_AT_language,
        AttributeValue::Language(gimli::DW_LANG_C99),
    );
    cu.set(
        gimli::DW_AT_low_pc,
        AttributeValue::Address(Address::Constant(0)),
    );
    cu.set(gimli::DW_AT_high_pc, AttributeValue::Udata(end));
    // A kernel compiled from a higher-level language is one function of it: its labels
    // are places in that function (`DW_TAG_label`), not functions of their own, so a
    // watch on one of its variables lasts past them, `until` stays in the frame, and
    // displays, `bt` and stops name the kernel. An assembly kernel's labels are its
    // functions.
    let whole = [Function {
        name: program.name.clone(),
        address: 0,
        size: end,
    }];
    let one = !program.source_info.rows.is_empty() && end > 0;
    let mut subprograms = Vec::new();
    for f in (if one { &whole[..] } else { functions })
        .iter()
        .filter(|f| f.size > 0)
    {
        let id = dwarf.unit.add(root, gimli::DW_TAG_subprogram);
        subprograms.push((id, f));
        let name = dwarf.strings.add(f.name.as_str());
        let row = lines::row_at(&rows, f.address).copied();
        let entry = dwarf.unit.get_mut(id);
        entry.set(gimli::DW_AT_name, AttributeValue::StringRef(name));
        entry.set(gimli::DW_AT_external, AttributeValue::Flag(true));
        entry.set(
            gimli::DW_AT_low_pc,
            AttributeValue::Address(Address::Constant(f.address)),
        );
        entry.set(gimli::DW_AT_high_pc, AttributeValue::Udata(f.size));
        if let Some(row) = row {
            entry.set(
                gimli::DW_AT_decl_file,
                AttributeValue::FileIndex(Some(row.file)),
            );
            entry.set(gimli::DW_AT_decl_line, AttributeValue::Udata(row.line));
        }
    }
    if let (true, Some(&(kernel, _))) = (one, subprograms.first()) {
        for f in functions.iter().filter(|f| f.name != program.name) {
            let id = dwarf.unit.add(kernel, gimli::DW_TAG_label);
            let name = dwarf.strings.add(f.name.as_str());
            let entry = dwarf.unit.get_mut(id);
            entry.set(gimli::DW_AT_name, AttributeValue::StringRef(name));
            entry.set(
                gimli::DW_AT_low_pc,
                AttributeValue::Address(Address::Constant(f.address)),
            );
        }
    }
    add_variables(&mut dwarf, program, launch, &subprograms);

    let mut sections = Sections::new(EndianVec::new(LittleEndian));
    dwarf.write(&mut sections)?;
    let mut out = Vec::new();
    sections.for_each(|id, data| -> Result<(), gimli::write::Error> {
        if !data.slice().is_empty() {
            out.push((id.name(), data.slice().to_vec()));
        }
        Ok(())
    })?;
    if end > 0 {
        out.push((".debug_frame", debug_frame(end)?));
    }
    Ok(out)
}

/// The `.debug_frame` of `code_bytes` of code: one CIE whose return address (`rip`, DWARF
/// register 16) is `DW_CFA_undefined`, and one FDE over the whole code. Every PC is then in
/// an outermost frame, as at a native program's entry point: gdb's DWARF unwinder sees no
/// caller (`bt` shows one frame, `finish` is "not meaningful in the outermost frame", and
/// the frame is the same at every PC, so `until` and `advance` stop where asked) instead
/// of unwinding the kernel's code bytes as x86. The CFA rule (`rbp + 8`; `rbp` reads 0) is
/// there because gdb needs one; nothing is read through it. It is not `rsp`, which gdb
/// reads as unavailable (`regs::RSP_VALUE`): a CFA that cannot be computed would end the
/// unwinding as "not enough registers" instead of at the outermost frame.
fn debug_frame(code_bytes: u64) -> Result<Vec<u8>, SymbolsError> {
    let encoding = Encoding {
        format: Format::Dwarf32,
        version: 1,
        address_size: 8,
    };
    let mut cie = CommonInformationEntry::new(encoding, 1, -8, X86_64::RA);
    cie.add_instruction(CallFrameInstruction::Cfa(X86_64::RBP, 8));
    cie.add_instruction(CallFrameInstruction::Undefined(X86_64::RA));
    let mut table = FrameTable::default();
    let cie = table.add_cie(cie);
    let length = u32::try_from(code_bytes).map_err(|_| gimli::write::Error::ValueTooLarge)?;
    table.add_fde(
        cie,
        FrameDescriptionEntry::new(Address::Constant(0), length),
    );
    let mut section = DebugFrame::from(EndianVec::new(LittleEndian));
    table.write_debug_frame(&mut section)?;
    Ok(section.slice().to_vec())
}

/// An allocated section with no file bytes: `.global`, `.shared` or `.scratch`.
struct DataSection {
    name: &'static [u8],
    address: u64,
    size: u64,
    /// Whether a `PT_LOAD` segment covers it (only `.global`: the windows lie at addresses
    /// no loader maps).
    segment: bool,
}

/// Builds the symbol file of `program` for `launch` ([`Launch::of`] the machine being
/// served, or [`Launch::new`]). `source` names the source file as the clients should look
/// for it (relative to `comp_dir`, or absolute).
pub fn elf_file(
    program: &Program,
    launch: &Launch,
    source: &str,
    comp_dir: &str,
) -> Result<Vec<u8>, SymbolsError> {
    let functions = functions(program);
    let debug = dwarf(program, launch, &functions, source, comp_dir)?;
    let code = shadow::x86_stand_in(&program.code);
    let buffers: Vec<(&str, u64, u64)> = program
        .buffers
        .iter()
        .zip(&launch.buffer_bases)
        .map(|(b, &base)| (b.name.as_str(), base, b.size))
        .collect();
    let windows = window_symbols(program, launch);
    let mut data = Vec::new();
    if let Some(lo) = buffers.iter().map(|&(_, base, _)| base).min() {
        let hi = buffers.iter().map(|&(_, b, s)| b + s).max().unwrap_or(lo);
        data.push(DataSection {
            name: b".global",
            address: lo,
            size: hi - lo,
            segment: true,
        });
    }
    if let Some((address, size)) = launch.shared_range() {
        data.push(DataSection {
            name: b".shared",
            address,
            size,
            segment: false,
        });
    }
    if let Some((address, size)) = launch.scratch_range() {
        data.push(DataSection {
            name: b".scratch",
            address,
            size,
            segment: false,
        });
    }

    let mut bytes = Vec::new();
    let mut w = Writer::new(Endianness::Little, true, &mut bytes);

    // Phase 1: reserve names, indices and file ranges, in file order.
    w.reserve_file_header();
    let segments = 1 + data.iter().filter(|d| d.segment).count() as u32;
    w.reserve_program_headers(segments);
    let text_name = w.add_section_name(b".text");
    let text_index = w.reserve_section_index();
    let text_offset = w.reserve(code.len() as u64, 16);
    let data_sections: Vec<_> = data
        .iter()
        .map(|d| (w.add_section_name(d.name), w.reserve_section_index()))
        .collect();
    let section_of = |name: &[u8]| {
        data.iter()
            .position(|d| d.name == name)
            .map(|i| data_sections[i].1)
    };
    let debug_sections: Vec<_> = debug
        .iter()
        .map(|(name, data)| {
            let id = w.add_section_name(name.as_bytes());
            let index = w.reserve_section_index();
            let offset = w.reserve(data.len() as u64, 1);
            (id, index, offset, data)
        })
        .collect();
    let mut symbols = Vec::new();
    for f in &functions {
        let name = w.add_string(f.name.as_bytes());
        w.reserve_symbol_index(Some(text_index));
        symbols.push((name, text_index, elf::STT_FUNC, f.address, f.size));
    }
    if let Some(index) = section_of(b".global") {
        for &(name, base, size) in &buffers {
            let name = w.add_string(name.as_bytes());
            w.reserve_symbol_index(Some(index));
            symbols.push((name, index, elf::STT_OBJECT, base, size));
        }
    }
    for s in &windows {
        let section = match s.kind {
            WindowKind::Shared => section_of(b".shared"),
            WindowKind::Scratch => section_of(b".scratch"),
        };
        if let Some(index) = section {
            let name = w.add_string(s.name.as_bytes());
            w.reserve_symbol_index(Some(index));
            symbols.push((name, index, elf::STT_OBJECT, s.address, s.size));
        }
    }
    w.reserve_symtab_section_index();
    w.reserve_symtab();
    w.reserve_strtab_section_index();
    w.reserve_strtab()?;
    w.reserve_shstrtab_section_index();
    w.reserve_shstrtab()?;
    w.reserve_section_headers();

    // Phase 2: write everything in the same order.
    w.write_file_header(&FileHeader {
        os_abi: elf::ELFOSABI_NONE,
        abi_version: 0,
        e_type: elf::ET_EXEC,
        e_machine: elf::EM_X86_64,
        e_entry: 0,
        e_flags: Default::default(),
    })?;
    w.write_align_program_headers();
    w.write_program_header(&ProgramHeader {
        p_type: elf::PT_LOAD,
        p_flags: elf::PF_R | elf::PF_X,
        p_offset: text_offset,
        p_vaddr: 0,
        p_paddr: 0,
        p_filesz: code.len() as u64,
        p_memsz: code.len() as u64,
        p_align: 16,
    });
    for d in data.iter().filter(|d| d.segment) {
        w.write_program_header(&ProgramHeader {
            p_type: elf::PT_LOAD,
            p_flags: elf::PF_R | elf::PF_W,
            p_offset: text_offset + code.len() as u64,
            p_vaddr: d.address,
            p_paddr: d.address,
            p_filesz: 0,
            p_memsz: d.size,
            p_align: 16,
        });
    }
    w.write_align(16);
    w.write(&code);
    for (_, _, _, data) in &debug_sections {
        w.write(data);
    }
    w.write_null_symbol();
    for &(name, index, kind, value, size) in &symbols {
        w.write_symbol(&Sym {
            section: Some(index.0),
            st_name: w.string_offset(Some(name)),
            st_info: elf::SymbolInfo::new(elf::STB_GLOBAL, kind),
            st_other: elf::STV_DEFAULT.into(),
            st_shndx: Default::default(),
            st_value: value,
            st_size: size,
        });
    }
    w.write_strtab();
    w.write_shstrtab();
    w.write_null_section_header();
    w.write_section_header(&SectionHeader {
        sh_name: w.section_name_offset(Some(text_name)),
        sh_type: elf::SHT_PROGBITS,
        sh_flags: elf::SHF_ALLOC | elf::SHF_EXECINSTR,
        sh_addr: 0,
        sh_offset: text_offset,
        sh_size: code.len() as u64,
        sh_link: 0,
        sh_info: 0,
        sh_addralign: 4,
        sh_entsize: 0,
    });
    for (d, (name, _)) in data.iter().zip(&data_sections) {
        w.write_section_header(&SectionHeader {
            sh_name: w.section_name_offset(Some(*name)),
            sh_type: elf::SHT_NOBITS,
            sh_flags: elf::SHF_ALLOC | elf::SHF_WRITE,
            sh_addr: d.address,
            sh_offset: text_offset + code.len() as u64,
            sh_size: d.size,
            sh_link: 0,
            sh_info: 0,
            sh_addralign: 16,
            sh_entsize: 0,
        });
    }
    for (name, _, offset, data) in &debug_sections {
        w.write_section_header(&SectionHeader {
            sh_name: w.section_name_offset(Some(*name)),
            sh_type: elf::SHT_PROGBITS,
            sh_flags: Default::default(),
            sh_addr: 0,
            sh_offset: *offset,
            sh_size: data.len() as u64,
            sh_link: 0,
            sh_info: 0,
            sh_addralign: 1,
            sh_entsize: 0,
        });
    }
    w.write_symtab_section_header(1);
    w.write_strtab_section_header();
    w.write_shstrtab_section_header();
    Ok(bytes)
}

/// [`elf_file`] for a kernel read from `source` (as given on the command line), launched
/// as `launch` says, with the current directory as `DW_AT_comp_dir`.
pub fn elf_for(program: &Program, launch: &Launch, source: &Path) -> Result<Vec<u8>, SymbolsError> {
    let comp_dir = std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_else(|_| ".".into());
    elf_file(program, launch, &source.display().to_string(), &comp_dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::{Object, ObjectSection, ObjectSymbol, SectionKind, SymbolKind};

    const KERNEL: &str = "\
.kernel symtest
.workgroup 32
.grid 1
.buffer out, 512
.buffer other, 64
.arg u[0:1], out

    vlaneid v0
    vshli v1, v0, 2
loop:
    st.ubase.b32 v0, u[0:1], v1, 0
    wait.vst 0
done:
    end
";

    pub(super) type R<'a> = gimli::EndianSlice<'a, gimli::LittleEndian>;

    /// Runs `f` on a symbol file's DWARF and its one compile unit.
    pub(super) fn with_unit<T>(
        bytes: &[u8],
        f: impl for<'a> FnOnce(&gimli::Dwarf<R<'a>>, &gimli::Unit<R<'a>>) -> T,
    ) -> T {
        let file = object::read::File::parse(bytes).unwrap();
        let load = |id: gimli::SectionId| -> Result<std::borrow::Cow<[u8]>, gimli::Error> {
            Ok(file
                .section_by_name(id.name())
                .and_then(|s| s.uncompressed_data().ok())
                .unwrap_or_default())
        };
        let sections = gimli::DwarfSections::load(load).unwrap();
        let dwarf = sections.borrow(|s| gimli::EndianSlice::new(s, gimli::LittleEndian));
        let header = dwarf.units().next().unwrap().unwrap();
        let unit = dwarf.unit(header).unwrap();
        f(&dwarf, &unit)
    }

    fn program() -> Program {
        wavedbg_emulator::asm::assemble(KERNEL, "k.s", None).expect("assembles")
    }

    #[test]
    fn symbols_and_sections_read_back() {
        let p = program();
        let launch = Launch::new(&p, LaunchOptions::default()).unwrap();
        let bases = launch.buffer_bases.clone();
        let bytes = elf_file(&p, &launch, "k.s", "/tmp").unwrap();
        assert!(is_symbol_file(&bytes));
        let file = object::read::File::parse(&*bytes).unwrap();
        assert_eq!(file.architecture(), object::Architecture::X86_64);
        assert!(file.is_little_endian() && file.is_64());
        assert_eq!(file.kind(), object::ObjectKind::Executable);
        let text = file.section_by_name(".text").unwrap();
        assert_eq!(text.address(), 0);
        assert_eq!(text.kind(), SectionKind::Text);
        let code = shadow::x86_stand_in(&p.code);
        assert_eq!(text.data().unwrap(), &code[..]);
        let global = file.section_by_name(".global").unwrap();
        assert_eq!(global.address(), bases[0]);
        assert_eq!(global.kind(), SectionKind::UninitializedData);
        assert!(file.section_by_name(".debug_info").is_some());
        assert!(file.section_by_name(".debug_line").is_some());

        let sym = |name: &str| {
            file.symbols()
                .find(|s| s.name() == Ok(name))
                .unwrap_or_else(|| panic!("no symbol {name}"))
        };
        let end = code.len() as u64;
        let (lp, dn) = (p.labels["loop"], p.labels["done"]);
        for (name, addr, size) in [
            ("symtest", 0, lp),
            ("loop", lp, dn - lp),
            ("done", dn, end - dn),
        ] {
            let s = sym(name);
            assert_eq!(s.kind(), SymbolKind::Text, "{name}");
            assert_eq!((s.address(), s.size()), (addr, size), "{name}");
            assert_eq!(s.section_index(), Some(text.index()));
        }
        for (i, b) in p.buffers.iter().enumerate() {
            let s = sym(&b.name);
            assert_eq!(s.kind(), SymbolKind::Data);
            assert_eq!((s.address(), s.size()), (bases[i], b.size));
            assert_eq!(s.section_index(), Some(global.index()));
        }
    }

    /// The `.debug_frame` reads back with gimli: for every instruction address, the CFA is
    /// `rbp + 8` and the return address (`rip`) is undefined; past the code there is no
    /// FDE.
    #[test]
    fn every_pc_is_in_an_outermost_frame() {
        use gimli::{BaseAddresses, CfaRule, RegisterRule, UnwindContext, UnwindSection};
        let p = program();
        let launch = Launch::new(&p, LaunchOptions::default()).unwrap();
        let bytes = elf_file(&p, &launch, "k.s", "/tmp").unwrap();
        let file = object::read::File::parse(&*bytes).unwrap();
        let data = file
            .section_by_name(".debug_frame")
            .expect("a .debug_frame")
            .data()
            .unwrap();
        let mut frame = gimli::DebugFrame::new(data, gimli::LittleEndian);
        frame.set_address_size(8);
        let bases = BaseAddresses::default();
        let mut ctx = UnwindContext::new();
        let end = p.code.len() as u64 * 4;
        for pc in (0..end).step_by(4) {
            let row = frame
                .unwind_info_for_address(&bases, &mut ctx, pc, gimli::DebugFrame::cie_from_offset)
                .unwrap_or_else(|e| panic!("no unwind row at {pc:#x}: {e}"));
            assert_eq!(
                *row.cfa(),
                CfaRule::RegisterAndOffset {
                    register: gimli::X86_64::RBP,
                    offset: 8
                }
            );
            assert_eq!(
                row.register(gimli::X86_64::RA),
                Some(RegisterRule::Undefined)
            );
        }
        assert!(frame
            .unwind_info_for_address(&bases, &mut ctx, end, gimli::DebugFrame::cie_from_offset)
            .is_err());
        // gdb 13 trusts the call-frame information only of a GCC-like producer of 4.5 or later.
        let producer = PRODUCER.strip_prefix("GNU ").expect("GNU first");
        let version = producer.split_whitespace().nth(1).unwrap();
        let (major, minor) = version.split_once('.').unwrap();
        let (major, minor): (u32, u32) = (major.parse().unwrap(), minor.parse().unwrap());
        assert!(major > 4 || (major == 4 && minor >= 5), "{PRODUCER}");
        assert!(PRODUCER.contains(SIGNATURE));
    }

    #[test]
    fn line_table_reads_back_with_gimli() {
        let p = program();
        let launch = Launch::new(&p, LaunchOptions::default()).unwrap();
        let bytes = elf_file(&p, &launch, "k.s", "/work").unwrap();
        with_unit(&bytes, |dwarf, unit| {
            assert_eq!(unit.name.unwrap().slice(), b"k.s");
            assert_eq!(unit.comp_dir.unwrap().slice(), b"/work");
            let program = unit.line_program.clone().unwrap();
            let mut rows = program.rows();
            let mut got = Vec::new();
            while let Some((header, row)) = rows.next_row().unwrap() {
                if row.end_sequence() {
                    assert_eq!(row.address(), p.code.len() as u64 * 4);
                    continue;
                }
                let file = row.file(header).unwrap();
                let fname = dwarf.attr_string(unit, file.path_name()).unwrap();
                assert_eq!(fname.slice(), b"k.s");
                got.push((
                    row.address(),
                    row.line().map_or(0, |l| l.get() as u32),
                    row.prologue_end(),
                    row.is_stmt(),
                ));
            }
            let starts = [0, p.labels["loop"], p.labels["done"]];
            let want: Vec<_> = p
                .lines
                .iter()
                .map(|&(a, l)| (a, l, starts.contains(&a), true))
                .collect();
            assert_eq!(got, want);

            // One subprogram per function, with its range.
            let mut entries = unit.entries();
            let mut subprograms = Vec::new();
            while let Some(e) = entries.next_dfs().unwrap() {
                if e.tag() == gimli::DW_TAG_subprogram {
                    let name = e.attr_value(gimli::DW_AT_name).unwrap();
                    let name = dwarf
                        .attr_string(unit, name)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned();
                    let low = match e.attr_value(gimli::DW_AT_low_pc) {
                        Some(gimli::AttributeValue::Addr(a)) => a,
                        other => panic!("low_pc {other:?}"),
                    };
                    let high = e
                        .attr_value(gimli::DW_AT_high_pc)
                        .unwrap()
                        .udata_value()
                        .unwrap();
                    subprograms.push((name, low, high));
                }
            }
            let want: Vec<_> = functions(&p)
                .into_iter()
                .map(|f| (f.name, f.address, f.size))
                .collect();
            assert_eq!(subprograms, want);
        })
    }

    /// Two workgroups' worth of windows: 3 workgroups of 2 waves, 64 shared bytes, 8
    /// scratch bytes a lane, a word buffer and a 10-byte one.
    const WINDOWS: &str = "\
.kernel win
.workgroup 64
.grid 3
.shared 64
.scratch 8
.buffer out, 512
.buffer odd, 10
.arg u[0:1], out

    vlaneid v0
done:
    end
";

    fn windows() -> Program {
        wavedbg_emulator::asm::assemble(WINDOWS, "w.s", None).expect("assembles")
    }

    /// The variables of a symbol file as (name, `DW_OP_addr` address, type in words):
    /// `unsigned int[128]`, `struct __shared_window (1048576 bytes) {w at 0: unsigned
    /// int[16]}[3]`.
    fn read_variables(bytes: &[u8]) -> Vec<(String, u64, String)> {
        fn string(
            dwarf: &gimli::Dwarf<R>,
            unit: &gimli::Unit<R>,
            e: &gimli::DebuggingInformationEntry<R>,
        ) -> String {
            let v = e.attr_value(gimli::DW_AT_name).expect("a name");
            dwarf
                .attr_string(unit, v)
                .expect("a string")
                .to_string_lossy()
                .into_owned()
        }
        fn udata(e: &gimli::DebuggingInformationEntry<R>, at: gimli::DwAt) -> u64 {
            e.attr_value(at)
                .and_then(|v| v.udata_value())
                .unwrap_or_else(|| panic!("no {at} in {:?}", e.tag()))
        }
        /// `f` of each child of the entry at `at`, each of tag `tag`.
        fn children(
            unit: &gimli::Unit<R>,
            at: gimli::UnitOffset,
            tag: gimli::DwTag,
            mut f: impl FnMut(&gimli::DebuggingInformationEntry<R>) -> String,
        ) -> Vec<String> {
            let mut out = Vec::new();
            let mut tree = unit.entries_tree(Some(at)).expect("tree");
            let root = tree.root().expect("root");
            let mut children = root.children();
            while let Some(child) = children.next().expect("child") {
                assert_eq!(child.entry().tag(), tag);
                out.push(f(child.entry()));
            }
            out
        }
        fn describe(
            dwarf: &gimli::Dwarf<R>,
            unit: &gimli::Unit<R>,
            at: gimli::UnitOffset,
        ) -> String {
            let e = unit.entry(at).expect("a type entry");
            let target =
                |e: &gimli::DebuggingInformationEntry<R>| match e.attr_value(gimli::DW_AT_type) {
                    Some(gimli::AttributeValue::UnitRef(o)) => o,
                    other => panic!("type {other:?}"),
                };
            match e.tag() {
                gimli::DW_TAG_base_type => format!(
                    "{}/{}/{}",
                    string(dwarf, unit, &e),
                    udata(&e, gimli::DW_AT_byte_size),
                    match e.attr_value(gimli::DW_AT_encoding) {
                        Some(gimli::AttributeValue::Encoding(enc)) => enc,
                        other => panic!("encoding {other:?}"),
                    }
                ),
                gimli::DW_TAG_array_type => {
                    let dims: String = children(unit, at, gimli::DW_TAG_subrange_type, |sub| {
                        assert_eq!(
                            describe(dwarf, unit, target(sub)),
                            "long unsigned int/8/DW_ATE_unsigned"
                        );
                        format!("[{}]", udata(sub, gimli::DW_AT_upper_bound) + 1)
                    })
                    .concat();
                    format!("{}{dims}", describe(dwarf, unit, target(&e)))
                }
                gimli::DW_TAG_structure_type => {
                    let members = children(unit, at, gimli::DW_TAG_member, |m| {
                        format!(
                            "{} at {}: {}",
                            string(dwarf, unit, m),
                            udata(m, gimli::DW_AT_data_member_location),
                            describe(dwarf, unit, target(m))
                        )
                    });
                    format!(
                        "struct {} ({} bytes) {{{}}}",
                        string(dwarf, unit, &e),
                        udata(&e, gimli::DW_AT_byte_size),
                        members.join("; ")
                    )
                }
                other => panic!("unexpected type tag {other}"),
            }
        }

        with_unit(bytes, |dwarf, unit| {
            let mut out = Vec::new();
            let mut entries = unit.entries();
            while let Some(e) = entries.next_dfs().unwrap() {
                if e.tag() != gimli::DW_TAG_variable {
                    continue;
                }
                assert_eq!(
                    e.attr_value(gimli::DW_AT_external),
                    Some(gimli::AttributeValue::Flag(true))
                );
                let address = match e.attr_value(gimli::DW_AT_location) {
                    Some(gimli::AttributeValue::Exprloc(expr)) => {
                        let mut ops = expr.operations(unit.encoding());
                        let op = ops.next().unwrap();
                        assert!(ops.next().unwrap().is_none(), "one operation");
                        match op {
                            Some(gimli::Operation::Address { address }) => address,
                            other => panic!("location {other:?}"),
                        }
                    }
                    other => panic!("location {other:?}"),
                };
                let ty = match e.attr_value(gimli::DW_AT_type) {
                    Some(gimli::AttributeValue::UnitRef(o)) => o,
                    other => panic!("type {other:?}"),
                };
                out.push((string(dwarf, unit, e), address, describe(dwarf, unit, ty)));
            }
            out
        })
    }

    #[test]
    fn buffers_and_windows_are_typed_variables() {
        let p = windows();
        let launch = Launch::new(&p, LaunchOptions::default()).unwrap();
        assert_eq!(launch.waves(), 6);
        let bytes = elf_file(&p, &launch, "w.s", "/tmp").unwrap();
        let uint = "unsigned int/4/DW_ATE_unsigned";
        let want = vec![
            (
                "out".to_string(),
                launch.buffer_bases[0],
                format!("{uint}[128]"),
            ),
            (
                "odd".to_string(),
                launch.buffer_bases[1],
                "unsigned char/1/DW_ATE_unsigned_char[10]".to_string(),
            ),
            (
                "__shared".to_string(),
                0x8000_0000_0000_0000,
                format!("struct __shared_window (1048576 bytes) {{w at 0: {uint}[16]}}[3]"),
            ),
            (
                "__scratch".to_string(),
                0xc000_0000_0000_0000,
                format!("struct __scratch_window (65536 bytes) {{w at 0: {uint}[2]}}[6][32]"),
            ),
        ];
        assert_eq!(read_variables(&bytes), want);
        assert_eq!(
            variables(&p, &launch)
                .iter()
                .map(|v| (v.name.as_str(), v.address, v.kind))
                .collect::<Vec<_>>(),
            vec![
                ("out", launch.buffer_bases[0], VariableKind::Buffer(512)),
                ("odd", launch.buffer_bases[1], VariableKind::Buffer(10)),
                ("__shared", SHARED_BASE, VariableKind::Shared),
                ("__scratch", SCRATCH_BASE, VariableKind::Scratch),
            ]
        );
    }

    #[test]
    fn the_grid_and_workgroup_options_shape_the_windows() {
        let p = windows();
        let options = LaunchOptions {
            grid: Some(5),
            workgroup_lanes: Some(96),
            ..LaunchOptions::default()
        };
        let launch = Launch::new(&p, options).unwrap();
        assert_eq!(
            (launch.grid, launch.waves_per_workgroup, launch.waves()),
            (5, 3, 15)
        );
        let bytes = elf_file(&p, &launch, "w.s", "/tmp").unwrap();
        let vars = read_variables(&bytes);
        assert!(vars[2].2.ends_with("}[5]"), "{vars:?}");
        assert!(vars[3].2.ends_with("}[15][32]"), "{vars:?}");
    }

    #[test]
    fn an_odd_sized_window_is_bytes() {
        let text = WINDOWS
            .replace(".shared 64", ".shared 6")
            .replace(".scratch 8", ".scratch 3");
        let p = wavedbg_emulator::asm::assemble(&text, "w.s", None).expect("assembles");
        let launch = Launch::new(&p, LaunchOptions::default()).unwrap();
        let vars = read_variables(&elf_file(&p, &launch, "w.s", "/tmp").unwrap());
        let uchar = "unsigned char/1/DW_ATE_unsigned_char";
        assert_eq!(
            vars[2].2,
            format!("struct __shared_window (1048576 bytes) {{b at 0: {uchar}[6]}}[3]")
        );
        assert_eq!(
            vars[3].2,
            format!("struct __scratch_window (65536 bytes) {{b at 0: {uchar}[3]}}[6][32]")
        );
    }

    #[test]
    fn window_symbols_read_back() {
        let p = windows();
        let launch = Launch::new(&p, LaunchOptions::default()).unwrap();
        let bytes = elf_file(&p, &launch, "w.s", "/tmp").unwrap();
        let file = object::read::File::parse(&*bytes).unwrap();
        let shared = file.section_by_name(".shared").unwrap();
        assert_eq!(shared.kind(), SectionKind::UninitializedData);
        // Up to the end of workgroup 2's 64 bytes.
        assert_eq!(
            (shared.address(), shared.size()),
            (SHARED_BASE, (2 << 20) + 64)
        );
        let scratch = file.section_by_name(".scratch").unwrap();
        assert_eq!(scratch.kind(), SectionKind::UninitializedData);
        // Up to the end of lane 31 of wave 5's 8 bytes.
        assert_eq!(
            (scratch.address(), scratch.size()),
            (SCRATCH_BASE, (5 << 21) + (31 << 16) + 8)
        );
        let windows: Vec<_> = file
            .symbols()
            .filter(|s| {
                s.section_index() == Some(shared.index())
                    || s.section_index() == Some(scratch.index())
            })
            .map(|s| {
                assert_eq!(s.kind(), SymbolKind::Data);
                (s.name().unwrap().to_string(), s.address(), s.size())
            })
            .collect();
        assert_eq!(windows.len(), 3 + 6 * 32);
        assert_eq!(windows[0], ("__shared_wg0".into(), SHARED_BASE, 64));
        assert_eq!(
            windows[2],
            ("__shared_wg2".into(), 0x8000_0000_0020_0000, 64)
        );
        assert_eq!(
            windows[3],
            ("__scratch_wave0_lane0".into(), SCRATCH_BASE, 8)
        );
        assert_eq!(
            windows[3 + 5 * 32 + 31],
            ("__scratch_wave5_lane31".into(), 0xc000_0000_00bf_0000, 8)
        );
        let want: Vec<_> = window_symbols(&p, &launch)
            .into_iter()
            .map(|w| (w.name, w.address, w.size))
            .collect();
        assert_eq!(windows, want);
    }

    #[test]
    fn window_symbols_stop_at_the_cap_but_the_variables_do_not() {
        let p = windows();
        let launch = Launch {
            buffer_bases: Launch::new(&p, LaunchOptions::default())
                .unwrap()
                .buffer_bases,
            grid: 4_000_000_000,
            waves_per_workgroup: 2,
            shared_bytes: 64,
            scratch_bytes: 8,
        };
        assert_eq!(launch.waves(), 1 << 32, "global wave ids are 32-bit");
        let symbols = window_symbols(&p, &launch);
        assert_eq!(
            symbols.len() as u32,
            MAX_SHARED_SYMBOLS + MAX_SCRATCH_SYMBOL_WAVES * 32
        );
        assert_eq!(
            symbols.last().map(|s| s.name.as_str()),
            Some("__scratch_wave31_lane31")
        );
        let bytes = elf_file(&p, &launch, "w.s", "/tmp").unwrap();
        assert!(bytes.len() < 100_000, "{} bytes", bytes.len());
        let vars = read_variables(&bytes);
        assert!(vars[2].2.ends_with("}[4095]"), "{vars:?}");
        assert!(vars[3].2.ends_with("}[2047][32]"), "{vars:?}");
        let file = object::read::File::parse(&*bytes).unwrap();
        let scratch = file.section_by_name(".scratch").unwrap();
        assert_eq!(
            scratch.address() + scratch.size(),
            Window::scratch_addr(u32::MAX, 31, 8)
        );
    }

    #[test]
    fn the_kernels_own_names_win() {
        // A label called __shared and a buffer called __scratch_wave0_lane1.
        let text = WINDOWS
            .replace("done:", "__shared:")
            .replace(".buffer odd, 10", ".buffer __scratch_wave0_lane1, 10");
        let p = wavedbg_emulator::asm::assemble(&text, "w.s", None).expect("assembles");
        let launch = Launch::new(&p, LaunchOptions::default()).unwrap();
        let names: Vec<String> = variables(&p, &launch).into_iter().map(|v| v.name).collect();
        assert_eq!(names, ["out", "__scratch_wave0_lane1", "__scratch"]);
        let windows = window_symbols(&p, &launch);
        assert_eq!(windows.len(), 3 + 6 * 32 - 1);
        assert!(!windows.iter().any(|w| w.name == "__scratch_wave0_lane1"));
        let bytes = elf_file(&p, &launch, "w.s", "/tmp").unwrap();
        let file = object::read::File::parse(&*bytes).unwrap();
        let named = |n: &str| {
            file.symbols()
                .filter(|s| s.name() == Ok(n))
                .map(|s| (s.kind(), s.address()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            named("__shared"),
            [(SymbolKind::Text, p.labels["__shared"])]
        );
        assert_eq!(
            named("__scratch_wave0_lane1"),
            [(SymbolKind::Data, launch.buffer_bases[1])]
        );
        let vars = read_variables(&bytes);
        assert_eq!(
            vars.iter().map(|v| v.0.as_str()).collect::<Vec<_>>(),
            ["out", "__scratch_wave0_lane1", "__scratch"]
        );
    }

    #[test]
    fn no_windows_without_shared_memory_or_scratch() {
        let p = program();
        let launch = Launch::new(&p, LaunchOptions::default()).unwrap();
        assert!(window_symbols(&p, &launch).is_empty());
        let bytes = elf_file(&p, &launch, "k.s", "/tmp").unwrap();
        let file = object::read::File::parse(&*bytes).unwrap();
        assert!(file.section_by_name(".shared").is_none());
        assert!(file.section_by_name(".scratch").is_none());
        let vars = read_variables(&bytes);
        assert_eq!(
            vars.iter().map(|v| v.0.as_str()).collect::<Vec<_>>(),
            ["out", "other"]
        );
    }
}
