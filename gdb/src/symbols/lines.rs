//! The DWARF line program of a symbol file: the `.s` lines of the kernel, and where the
//! kernel has a line table of a higher-level language (`.file`, `.loc`;
//! docs/source-level.md) the higher-level files and lines from its first `.loc` on.

use std::collections::BTreeSet;
use std::path::Path;

use gimli::write::{Address, DirectoryId, FileId, LineProgram, LineString};
use gimli::{Encoding, LineEncoding};
use wavedbg_emulator::program::Program;

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

/// The directory and name of a higher-level file's entry: `path` as `.file` gives it,
/// relative to the directory of `source` (the `.s`, as the symbol file names it; the
/// engine's `list` reads it from there too) unless absolute. The directory is relative
/// to `DW_AT_comp_dir` (empty: the compile directory itself).
fn file_entry(source: &str, path: &str) -> (String, String) {
    let full = Path::new(source)
        .parent()
        .unwrap_or(Path::new(""))
        .join(path);
    let name = full
        .file_name()
        .map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned());
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
        let (dir, name) = file_entry(source, &f.path);
        Path::new(&dir).join(name).to_string_lossy().into_owned()
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
        let (dir, name) = file_entry(source, &f.path);
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
    for f in functions.iter().filter(|f| f.size > 0 && f.address >= first) {
        let range = f.address..f.address + f.size;
        if rows.iter().any(|r| r.prologue_end && range.contains(&r.addr)) {
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
