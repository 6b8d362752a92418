//! The DWARF line program of a symbol file: the `.s` lines of the kernel, and where the
//! kernel has a line table of a higher-level language (`.file`, `.loc`;
//! docs/source-level.md) the higher-level files and lines from its first `.loc` on.

use std::collections::BTreeSet;
use std::path::Path;

use gimli::write::{Address, DirectoryId, FileId, LineProgram, LineString};
use gimli::{Encoding, LineEncoding};
use wavedbg_emulator::program::{Program, SourceFile};

use super::Function;

/// One row of the line program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Row {
    /// Code byte address.
    pub addr: u64,
    /// The file entry.
    pub file: FileId,
    /// 1-based line (0: code of no line).
    pub line: u64,
    /// 1-based column (0: unknown).
    pub column: u64,
    /// Whether a statement starts here.
    pub is_stmt: bool,
    /// Whether the function's prologue ends here.
    pub prologue_end: bool,
}

/// A line program and its rows (the subprograms name the row at their address).
pub(super) struct Lines {
    /// The program, rows generated.
    pub program: LineProgram,
    /// Its rows, by address.
    pub rows: Vec<Row>,
    /// The higher-level file of the first `.loc`, relative to `DW_AT_comp_dir` (or
    /// absolute): the compile unit's name (lldb's `source list -f FILE` looks for a
    /// compile unit of that name).
    pub primary: Option<String>,
}

/// The row at exactly `addr` of rows by address.
pub(super) fn row_at(rows: &[Row], addr: u64) -> Option<&Row> {
    rows.binary_search_by_key(&addr, |r| r.addr)
        .ok()
        .map(|i| &rows[i])
}

/// The directory and name of a higher-level file's entry: the file beside `source` (the
/// `.s`, as the symbol file names it), where the engine's `list` reads it too
/// ([`SourceFile::beside`]). The directory is relative to `DW_AT_comp_dir` (empty: the
/// compile directory itself).
fn file_entry(source: &str, f: &SourceFile) -> (String, String) {
    let full = f.beside(Some(Path::new(source)));
    let name = full
        .file_name()
        .map_or_else(|| f.path.clone(), |n| n.to_string_lossy().into_owned());
    let dir = full
        .parent()
        .map(|d| d.to_string_lossy().into_owned())
        .unwrap_or_default();
    (dir, name)
}

/// The line program of `program`: file 1 is `source` (the `.s`), with one row per
/// instruction line up to the first `.loc` (all of the code without one), each
/// function's first row marked `prologue_end` (gdb and lldb then put a breakpoint on a
/// function at its first instruction); from the first `.loc` on, the rows of the line
/// table in its files, with their columns, `is_stmt` and `prologue_end`, and a function
/// that starts there without a `prologue_end` of its own gets one on its first row.
pub(super) fn line_program(
    program: &Program,
    encoding: Encoding,
    functions: &[Function],
    source: &str,
    comp_dir: &str,
) -> Lines {
    let end = program.code.len() as u64 * 4;
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
    let info = &program.source_info;
    let first_loc = info.rows.first().map_or(end, |r| r.addr);
    let mut asm: Vec<(u64, u32)> = program
        .lines
        .iter()
        .copied()
        .filter(|&(a, _)| a < end.min(first_loc))
        .collect();
    asm.sort_by_key(|&(a, _)| a);
    asm.dedup_by_key(|&mut (a, _)| a);
    // The address where each function starts (a row there ends its prologue).
    let starts: BTreeSet<u64> = functions
        .iter()
        .filter(|f| f.size > 0)
        .map(|f| f.address)
        .collect();
    let mut rows: Vec<Row> = asm
        .iter()
        .map(|&(addr, line)| Row {
            addr,
            file,
            line: line.into(),
            column: 0,
            is_stmt: true,
            prologue_end: starts.contains(&addr),
        })
        .collect();
    if !info.rows.is_empty() {
        rows.extend(high_level_rows(program, &mut lines, dir, functions, source));
    }
    if !rows.is_empty() {
        lines.begin_sequence(Some(Address::Constant(0)));
        for r in &rows {
            let row = lines.row();
            row.address_offset = r.addr;
            row.file = r.file;
            row.line = r.line;
            row.column = r.column;
            row.is_statement = r.is_stmt;
            row.prologue_end = r.prologue_end;
            lines.generate_row();
        }
        lines.end_sequence(end);
    }
    let primary = info.rows.first().and_then(|r| info.file(r.file)).map(|f| {
        f.beside(Some(Path::new(source)))
            .to_string_lossy()
            .into_owned()
    });
    Lines {
        program: lines,
        rows,
        primary,
    }
}

/// The rows of the kernel's line table (from its first `.loc`), its files added to
/// `lines`. A function starting in them whose code has no `prologue_end` row gets one at
/// its first instruction (a row of the line there, if none starts there): gdb looks for
/// the end of a function's prologue in the line table before it reads the code as x86.
fn high_level_rows(
    program: &Program,
    lines: &mut LineProgram,
    default_dir: DirectoryId,
    functions: &[Function],
    source: &str,
) -> Vec<Row> {
    let info = &program.source_info;
    let end = program.code.len() as u64 * 4;
    let mut ids: Vec<(u32, FileId)> = Vec::with_capacity(info.files.len());
    for f in &info.files {
        let (dir, name) = file_entry(source, f);
        let dir = if dir.is_empty() {
            default_dir
        } else {
            lines.add_directory(LineString::String(dir.into_bytes()))
        };
        let id = lines.add_file(LineString::String(name.into_bytes()), dir, None);
        ids.push((f.number, id));
    }
    let mut rows: Vec<Row> = info
        .rows
        .iter()
        .filter(|r| r.addr < end)
        .filter_map(|r| {
            let file = ids.iter().find(|(n, _)| *n == r.file)?.1;
            Some(Row {
                addr: r.addr,
                file,
                line: r.line.into(),
                column: r.column.into(),
                is_stmt: r.is_stmt,
                prologue_end: r.prologue_end,
            })
        })
        .collect();
    let first = rows.first().map_or(end, |r| r.addr);
    for f in functions
        .iter()
        .filter(|f| f.size > 0 && f.address >= first)
    {
        let range = f.address..f.address + f.size;
        if rows
            .iter()
            .any(|r| r.prologue_end && range.contains(&r.addr))
        {
            continue;
        }
        let at = rows.partition_point(|r| r.addr < f.address);
        match rows.get_mut(at).filter(|r| r.addr == f.address) {
            Some(r) => r.prologue_end = true,
            None => {
                if let Some(covering) = at.checked_sub(1).map(|i| rows[i]) {
                    rows.insert(
                        at,
                        Row {
                            addr: f.address,
                            prologue_end: true,
                            ..covering
                        },
                    );
                }
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::super::tests::{with_unit, R};
    use super::super::{elf_file, Launch};
    use wavedbg_emulator::machine::LaunchOptions;
    use wavedbg_emulator::program::Program;

    /// A row as read back: (address, `DIR/NAME` of its file, line, column, is_stmt,
    /// prologue_end).
    type ReadRow = (u64, String, u64, u64, bool, bool);

    /// The compile unit's name and the rows of a symbol file's line program.
    fn read(bytes: &[u8]) -> (String, Vec<ReadRow>) {
        with_unit(bytes, |dwarf, unit| {
            let name = unit.name.unwrap().to_string_lossy().into_owned();
            let mut rows = unit.line_program.clone().unwrap().rows();
            let mut out = Vec::new();
            while let Some((header, row)) = rows.next_row().unwrap() {
                if row.end_sequence() {
                    continue;
                }
                let file = row.file(header).unwrap();
                let string = |v: gimli::AttributeValue<R<'_>>| {
                    dwarf
                        .attr_string(unit, v)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned()
                };
                let dir = file.directory(header).map(string).unwrap_or_default();
                let path = format!("{dir}/{}", string(file.path_name()));
                let column = match row.column() {
                    gimli::ColumnType::LeftEdge => 0,
                    gimli::ColumnType::Column(c) => c.get(),
                };
                out.push((
                    row.address(),
                    path,
                    row.line().map_or(0, |l| l.get()),
                    column,
                    row.is_stmt(),
                    row.prologue_end(),
                ));
            }
            (name, out)
        })
    }

    fn elf(p: &Program, source: &str) -> Vec<u8> {
        let launch = Launch::new(p, LaunchOptions::default()).unwrap();
        elf_file(p, &launch, source, "/work").unwrap()
    }

    /// scripts/saxpy_src.s: every row is the line table's, in src/saxpy.cl relative to
    /// the .s's directory, and the compile unit is named after it.
    #[test]
    fn the_line_program_names_the_higher_level_file() {
        let text = include_str!("../../../scripts/saxpy_src.s");
        let p = wavedbg_emulator::asm::assemble(text, "scripts/saxpy_src.s", None).unwrap();
        let (name, rows) = read(&elf(&p, "scripts/saxpy_src.s"));
        assert_eq!(name, "scripts/src/saxpy.cl");
        let want: Vec<ReadRow> = p
            .source_info
            .rows
            .iter()
            .map(|r| {
                (
                    r.addr,
                    "scripts/src/saxpy.cl".to_string(),
                    r.line.into(),
                    r.column.into(),
                    r.is_stmt,
                    r.prologue_end,
                )
            })
            .collect();
        assert_eq!(rows.len(), 11);
        // The `join` label starts a function with a row and no prologue_end of its own:
        // its row gets one.
        let join = p.labels["join"];
        let mut want = want;
        for w in want.iter_mut().filter(|w| w.0 == join) {
            w.5 = true;
        }
        assert_eq!(rows, want);
        assert_eq!(
            rows[1],
            (8, "scripts/src/saxpy.cl".into(), 6, 14, true, true)
        );
        assert!(!rows[2].4, "the hoisted load of `a` is no statement");
    }

    /// Code before the first `.loc` keeps its `.s` rows; a function starting inside a
    /// `.loc` row gets a row of that line there, marked `prologue_end`.
    #[test]
    fn code_before_the_first_loc_keeps_the_assembly_lines() {
        let text = "\
.kernel pre
.workgroup 32
    vlaneid v0
    .file 1 \"k.cl\"
    .loc 1 3 5
    vmovi v1, 1
next:
    vmovi v2, 2
    end
";
        let p = wavedbg_emulator::asm::assemble(text, "k.s", None).unwrap();
        let (name, rows) = read(&elf(&p, "k.s"));
        assert_eq!(name, "k.cl");
        let next = p.labels["next"];
        assert_eq!(
            rows,
            [
                (0, "/work/k.s".into(), 3, 0, true, true),
                (4, "/work/k.cl".into(), 3, 5, true, false),
                (next, "/work/k.cl".into(), 3, 5, true, true),
            ]
        );
    }

    /// Without `.loc` the symbol file is the same whatever `.file`s the kernel numbers:
    /// the line program names only the `.s`, one statement row per instruction line.
    #[test]
    fn without_loc_only_the_assembly_is_named() {
        let text = include_str!("../../../scripts/histogram.s");
        let p = wavedbg_emulator::asm::assemble(text, "histogram.s", None).unwrap();
        assert!(p.source_info.rows.is_empty());
        let bytes = elf(&p, "histogram.s");
        let (name, rows) = read(&bytes);
        assert_eq!(name, "histogram.s");
        assert!(rows.iter().all(|r| r.1 == "/work/histogram.s" && r.4));
        let lines: Vec<(u64, u64)> = rows.iter().map(|r| (r.0, r.2)).collect();
        let want: Vec<(u64, u64)> = p.lines.iter().map(|&(a, l)| (a, l.into())).collect();
        assert_eq!(lines, want);
        let with_file = text.replacen(".kernel", ".file 1 \"h.cl\"\n.kernel", 1);
        let q = wavedbg_emulator::asm::assemble(&with_file, "histogram.s", None).unwrap();
        assert_eq!(q.source_info.files.len(), 1);
        let mut q = q;
        q.lines = p.lines.clone();
        assert_eq!(elf(&q, "histogram.s"), bytes);
    }
}
