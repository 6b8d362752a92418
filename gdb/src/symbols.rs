//! A symbol file for a kernel, so stock gdb and lldb know its labels, buffers and source
//! lines (`wavedbg elf K.s -o K.elf`, and `wavedbg serve`, which writes one too).
//!
//! The file is a 64-bit little-endian x86-64 ELF executable (the server's target
//! description says `i386:x86-64`, so both clients accept it), written with the `object`
//! crate's ELF writer, and its DWARF with `gimli::write`:
//!
//! - `.text` at address 0 holds the code words (4 bytes each, little-endian), in a
//!   read/execute `PT_LOAD` segment;
//! - `.global`, a `NOBITS` section (and a read/write segment with no file bytes) covering
//!   the buffers at their global addresses (the addresses a launch gives them);
//! - symbols: every label a global `STT_FUNC` at its address, sized up to the next label
//!   (or the end of the code); the kernel's name the same way at 0 when no label is there;
//!   every buffer a global `STT_OBJECT` at its address with its size;
//! - DWARF 4: one compile unit naming the source file as given (`DW_AT_comp_dir` is the
//!   directory it was written from), a line program with one row per instruction, and a
//!   `DW_TAG_subprogram` per function symbol. The first row of each function is marked
//!   `prologue_end` (and `is_stmt`): gdb and lldb then put a breakpoint on a function at
//!   its very first instruction instead of analysing an x86 "prologue".

use std::path::Path;

use gimli::write::{
    Address, AttributeValue, DwarfUnit, EndianVec, LineProgram, LineString, Sections,
};
use gimli::{Encoding, Format, LineEncoding, LittleEndian};
use object::elf;
use object::write::elf::{FileHeader, ProgramHeader, SectionHeader, Sym, Writer};
use object::Endianness;
use wavedbg_emulator::machine::{LaunchOptions, Machine};
use wavedbg_emulator::program::Program;

/// The `DW_AT_producer` of every symbol file; [`is_symbol_file`] looks for it.
pub const PRODUCER: &str = concat!("wavedbg ", env!("CARGO_PKG_VERSION"), " symbols");

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
    Launch(String),
}

/// A function symbol: a label (or the kernel's name) and its address range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    /// The label.
    pub name: String,
    /// Its address.
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

/// The global addresses a launch gives the kernel's buffers (in `program.buffers` order).
pub fn buffer_bases(program: &Program) -> Result<Vec<u64>, SymbolsError> {
    Machine::new(program, LaunchOptions::default())
        .map(|m| m.buffer_bases)
        .map_err(|e| SymbolsError::Launch(e.to_string()))
}

/// Whether `bytes` look like a symbol file this module wrote (an ELF file holding
/// [`PRODUCER`]), so that writing a new one over it loses nothing.
pub fn is_symbol_file(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\x7fELF")
        && bytes
            .windows(PRODUCER.len())
            .any(|w| w == PRODUCER.as_bytes())
}

/// The DWARF sections of a kernel: `(name, bytes)`, empty ones left out.
fn dwarf(
    program: &Program,
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
    let mut lines = LineProgram::new(
        encoding,
        LineEncoding::default(),
        LineString::String(comp_dir.as_bytes().to_vec()),
        None,
        LineString::String(source.as_bytes().to_vec()),
        None,
    );
    let dir = lines.default_directory();
    let file = lines.add_file(LineString::String(source.as_bytes().to_vec()), dir, None);
    let mut rows: Vec<(u64, u32)> = program
        .lines
        .iter()
        .copied()
        .filter(|&(a, _)| a < end)
        .collect();
    rows.sort_by_key(|&(a, _)| a);
    rows.dedup_by_key(|&mut (a, _)| a);
    if !rows.is_empty() {
        lines.begin_sequence(Some(Address::Constant(0)));
        for &(addr, line) in &rows {
            let starts_function = functions.iter().any(|f| f.address == addr && f.size > 0);
            let row = lines.row();
            row.address_offset = addr;
            row.file = file;
            row.line = u64::from(line);
            row.is_statement = true;
            row.prologue_end = starts_function;
            lines.generate_row();
        }
        lines.end_sequence(end);
    }
    dwarf.unit.line_program = lines;

    let root = dwarf.unit.root();
    let producer = dwarf.strings.add(PRODUCER);
    let name = dwarf.strings.add(source);
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
    for f in functions.iter().filter(|f| f.size > 0) {
        let id = dwarf.unit.add(root, gimli::DW_TAG_subprogram);
        let name = dwarf.strings.add(f.name.as_str());
        let line = rows.iter().find(|&&(a, _)| a == f.address).map(|&(_, l)| l);
        let entry = dwarf.unit.get_mut(id);
        entry.set(gimli::DW_AT_name, AttributeValue::StringRef(name));
        entry.set(gimli::DW_AT_external, AttributeValue::Flag(true));
        entry.set(
            gimli::DW_AT_low_pc,
            AttributeValue::Address(Address::Constant(f.address)),
        );
        entry.set(gimli::DW_AT_high_pc, AttributeValue::Udata(f.size));
        if let Some(line) = line {
            entry.set(
                gimli::DW_AT_decl_file,
                AttributeValue::FileIndex(Some(file)),
            );
            entry.set(gimli::DW_AT_decl_line, AttributeValue::Udata(line.into()));
        }
    }

    let mut sections = Sections::new(EndianVec::new(LittleEndian));
    dwarf.write(&mut sections)?;
    let mut out = Vec::new();
    sections.for_each(|id, data| -> Result<(), gimli::write::Error> {
        if !data.slice().is_empty() {
            out.push((id.name(), data.slice().to_vec()));
        }
        Ok(())
    })?;
    Ok(out)
}

/// Builds the symbol file of `program`, whose buffers are at `buffer_bases` (as a launch
/// places them: [`buffer_bases`]). `source` names the source file as the clients should
/// look for it (relative to `comp_dir`, or absolute).
pub fn elf_file(
    program: &Program,
    buffer_bases: &[u64],
    source: &str,
    comp_dir: &str,
) -> Result<Vec<u8>, SymbolsError> {
    let functions = functions(program);
    let debug = dwarf(program, &functions, source, comp_dir)?;
    let code: Vec<u8> = program.code.iter().flat_map(|w| w.to_le_bytes()).collect();
    let buffers: Vec<(&str, u64, u64)> = program
        .buffers
        .iter()
        .zip(buffer_bases)
        .map(|(b, &base)| (b.name.as_str(), base, b.size))
        .collect();
    let global = buffers.iter().map(|&(_, base, _)| base).min().map(|lo| {
        let hi = buffers.iter().map(|&(_, b, s)| b + s).max().unwrap_or(lo);
        (lo, hi - lo)
    });

    let mut bytes = Vec::new();
    let mut w = Writer::new(Endianness::Little, true, &mut bytes);

    // Phase 1: reserve names, indices and file ranges, in file order.
    w.reserve_file_header();
    let segments = 1 + u32::from(global.is_some());
    w.reserve_program_headers(segments);
    let text_name = w.add_section_name(b".text");
    let text_index = w.reserve_section_index();
    let text_offset = w.reserve(code.len() as u64, 16);
    let global_section =
        global.map(|_| (w.add_section_name(b".global"), w.reserve_section_index()));
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
    if let Some((_, index)) = global_section {
        for &(name, base, size) in &buffers {
            let name = w.add_string(name.as_bytes());
            w.reserve_symbol_index(Some(index));
            symbols.push((name, index, elf::STT_OBJECT, base, size));
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
    if let Some((base, size)) = global {
        w.write_program_header(&ProgramHeader {
            p_type: elf::PT_LOAD,
            p_flags: elf::PF_R | elf::PF_W,
            p_offset: text_offset + code.len() as u64,
            p_vaddr: base,
            p_paddr: base,
            p_filesz: 0,
            p_memsz: size,
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
    if let (Some((name, _)), Some((base, size))) = (global_section, global) {
        w.write_section_header(&SectionHeader {
            sh_name: w.section_name_offset(Some(name)),
            sh_type: elf::SHT_NOBITS,
            sh_flags: elf::SHF_ALLOC | elf::SHF_WRITE,
            sh_addr: base,
            sh_offset: text_offset + code.len() as u64,
            sh_size: size,
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

/// [`elf_file`] for a kernel read from `source` (as given on the command line), with its
/// buffers where a launch puts them and the current directory as `DW_AT_comp_dir`.
pub fn elf_for(program: &Program, source: &Path) -> Result<Vec<u8>, SymbolsError> {
    let bases = buffer_bases(program)?;
    let comp_dir = std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_else(|_| ".".into());
    elf_file(program, &bases, &source.display().to_string(), &comp_dir)
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

    fn program() -> Program {
        wavedbg_emulator::asm::assemble(KERNEL, "k.s", None).expect("assembles")
    }

    #[test]
    fn symbols_and_sections_read_back() {
        let p = program();
        let bases = buffer_bases(&p).unwrap();
        let bytes = elf_file(&p, &bases, "k.s", "/tmp").unwrap();
        assert!(is_symbol_file(&bytes));
        let file = object::read::File::parse(&*bytes).unwrap();
        assert_eq!(file.architecture(), object::Architecture::X86_64);
        assert!(file.is_little_endian() && file.is_64());
        assert_eq!(file.kind(), object::ObjectKind::Executable);
        let text = file.section_by_name(".text").unwrap();
        assert_eq!(text.address(), 0);
        assert_eq!(text.kind(), SectionKind::Text);
        let code: Vec<u8> = p.code.iter().flat_map(|w| w.to_le_bytes()).collect();
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

    #[test]
    fn line_table_reads_back_with_gimli() {
        let p = program();
        let bytes = elf_file(&p, &buffer_bases(&p).unwrap(), "k.s", "/work").unwrap();
        let file = object::read::File::parse(&*bytes).unwrap();
        let load = |id: gimli::SectionId| -> Result<std::borrow::Cow<[u8]>, gimli::Error> {
            Ok(file
                .section_by_name(id.name())
                .and_then(|s| s.uncompressed_data().ok())
                .unwrap_or_default())
        };
        let sections = gimli::DwarfSections::load(load).unwrap();
        let dwarf = sections.borrow(|s| gimli::EndianSlice::new(s, gimli::LittleEndian));
        let mut units = dwarf.units();
        let header = units.next().unwrap().unwrap();
        let unit = dwarf.unit(header).unwrap();
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
            let fname = dwarf.attr_string(&unit, file.path_name()).unwrap();
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
                    .attr_string(&unit, name)
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
    }
}
