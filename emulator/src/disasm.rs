//! The disassembler. Its output is assembler input: a whole program disassembles to a
//! source file with directives, labels (the program's own, plus `L_xxxx` for branch targets
//! that have none) and `.word` for words that are not instructions; a program compiled from
//! a higher-level language keeps its `.file`, `.loc` and `.var` directives.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use crate::isa::Instr;
use crate::program::{ArgValue, Program};

/// One line of a disassembly listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// Byte address of the first word in the code (a multiple of 4; PC 0 is the first word).
    pub addr: u64,
    /// The words it covers: 1, or 2 for a 64-bit instruction (low word first).
    pub words: Vec<u32>,
    /// The decoded instruction, or `None` for a word that is not one.
    pub instr: Option<Instr>,
}

/// Decodes a code image into lines: each legal instruction once, and each undecodable word
/// alone (so decoding resynchronises on the next word).
pub fn decode_all(code: &[u32]) -> Vec<Line> {
    decode_with_breaks(code, &BTreeSet::new())
}

/// Like [`decode_all`], but no instruction may span an address in `breaks` (label
/// addresses): a 64-bit word pair that would is shown as `.word` so the label stays.
pub fn decode_with_breaks(code: &[u32], breaks: &BTreeSet<u64>) -> Vec<Line> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < code.len() {
        let addr = i as u64 * 4;
        match Instr::decode(&code[i..]) {
            Ok(instr) if instr.size_bytes() == 4 || !breaks.contains(&(addr + 4)) => {
                let n = instr.size_bytes() as usize / 4;
                out.push(Line {
                    addr,
                    words: code[i..i + n].to_vec(),
                    instr: Some(instr),
                });
                i += n;
            }
            _ => {
                out.push(Line {
                    addr,
                    words: vec![code[i]],
                    instr: None,
                });
                i += 1;
            }
        }
    }
    out
}

/// Labels for a listing: the program's, plus `L_xxxx` for unnamed branch targets that are
/// the start of a line or the end of the code (others stay relative, `.+N`). Generated
/// names never collide with the program's.
pub fn labels_for(
    program_labels: &BTreeMap<String, u64>,
    lines: &[Line],
) -> BTreeMap<u64, Vec<String>> {
    let mut by_addr: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for (name, addr) in program_labels {
        by_addr.entry(*addr).or_default().push(name.clone());
    }
    let end = lines
        .last()
        .map_or(0, |l| l.addr + l.words.len() as u64 * 4);
    let starts: BTreeSet<u64> = lines.iter().map(|l| l.addr).chain([end]).collect();
    for line in lines {
        let Some(target) = line.instr.and_then(|i| i.branch_target(line.addr)) else {
            continue;
        };
        if !starts.contains(&target) || by_addr.contains_key(&target) {
            continue;
        }
        let mut name = format!("L_{target:04x}");
        let mut k = 1;
        while program_labels.contains_key(&name) {
            name = format!("L_{target:04x}_{k}");
            k += 1;
        }
        by_addr.insert(target, vec![name]);
    }
    by_addr
}

/// Writes one instruction with label names for branch targets.
pub fn instr_text(instr: &Instr, addr: u64, labels: &BTreeMap<u64, Vec<String>>) -> String {
    let mut s = String::new();
    let _ = instr.write(&mut s, addr, &|a| {
        labels.get(&a).and_then(|v| v.first().cloned())
    });
    s
}

/// Disassembles a whole program into assembler source.
pub fn disassemble(program: &Program) -> String {
    let mut out = String::new();
    let l = &program.launch;
    let _ = writeln!(out, "; kernel `{}` disassembled by wavedbg", program.name);
    let _ = writeln!(out, ".kernel {}", program.name);
    let _ = writeln!(out, ".workgroup {}", l.workgroup_lanes);
    let _ = writeln!(out, ".grid {}", l.grid);
    let _ = writeln!(out, ".shared {}", l.shared_bytes);
    let _ = writeln!(out, ".scratch {}", l.scratch_bytes);
    for b in &program.buffers {
        let _ = writeln!(out, ".buffer {}, {}", b.name, b.size);
        // Read in place: the contents may be a gigabyte.
        let words = b.init.len() / 4;
        let word = |i: usize| {
            let w = &b.init[4 * i..4 * i + 4];
            u32::from_le_bytes([w[0], w[1], w[2], w[3]])
        };
        // A run of one value is a `.fill`, so a filled buffer disassembles to one line
        // rather than a value per word.
        let mut pending: Vec<String> = Vec::new();
        let mut i = 0;
        while i < words {
            let value = word(i);
            let run = (i..words).take_while(|&j| word(j) == value).count();
            if (run >= 16 || pending.len() == 8) && !pending.is_empty() {
                let _ = writeln!(out, ".init {}, u32, {}", b.name, pending.join(", "));
                pending.clear();
            }
            if run >= 16 {
                let _ = writeln!(out, ".fill {}, u32, {value:#x}, {run}", b.name);
                i += run;
            } else {
                pending.push(format!("{value:#x}"));
                i += 1;
            }
        }
        if !pending.is_empty() {
            let _ = writeln!(out, ".init {}, u32, {}", b.name, pending.join(", "));
        }
        let tail = &b.init[words * 4..];
        if !tail.is_empty() {
            let vals: Vec<String> = tail.iter().map(|v| v.to_string()).collect();
            let _ = writeln!(out, ".init {}, u8, {}", b.name, vals.join(", "));
        }
    }
    for a in &program.args {
        let r = a.reg as u32;
        let _ = match &a.value {
            ArgValue::Address(b) => writeln!(out, ".arg u[{r}:{}], {b}", r + 1),
            ArgValue::Descriptor(b) => writeln!(out, ".arg u[{r}:{}], desc {b}", r + 3),
            ArgValue::Value(v) => writeln!(out, ".arg u{r}, {v:#x}"),
        };
    }
    out.push('\n');
    let info = &program.source_info;
    for f in &info.files {
        let _ = writeln!(out, "    .file {} \"{}\"", f.number, f.path);
    }
    out.push_str(&code_listing(
        &program.code,
        &program.labels,
        &source_directives(program),
    ));
    out
}

/// The source-level directives of a program by the address of the instruction they go
/// before: `.endvar` of the variables whose range ends there, `.var` of those that start
/// there (in declaration order), and the `.loc` of a line-table row (`is_stmt` written
/// where it changes, as it carries over). Ranges that end with the code need no `.endvar`.
fn source_directives(program: &Program) -> BTreeMap<u64, Vec<String>> {
    let info = &program.source_info;
    let code_end = program.code_bytes();
    let mut at: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for v in info.vars.iter().filter(|v| v.end < code_end) {
        at.entry(v.end)
            .or_default()
            .push(format!(".endvar {}", v.name));
    }
    for v in &info.vars {
        at.entry(v.start).or_default().push(format!(
            ".var {}, {}, {}",
            v.name,
            v.location,
            v.ty.name()
        ));
    }
    let mut is_stmt = true;
    for r in &info.rows {
        let mut loc = format!(".loc {} {} {}", r.file, r.line, r.column);
        if r.prologue_end {
            loc.push_str(" prologue_end");
        }
        if r.is_stmt != is_stmt {
            let _ = write!(loc, " is_stmt {}", u8::from(r.is_stmt));
            is_stmt = r.is_stmt;
        }
        at.entry(r.addr).or_default().push(loc);
    }
    at
}

/// Disassembles bare code (no directives) into assembler source with labels.
pub fn disassemble_code(code: &[u32], program_labels: &BTreeMap<String, u64>) -> String {
    code_listing(code, program_labels, &BTreeMap::new())
}

/// The code as assembler source: labels, then `directives` at their address, then the
/// instruction (decoding starts afresh at every label and directive address).
fn code_listing(
    code: &[u32],
    program_labels: &BTreeMap<String, u64>,
    directives: &BTreeMap<u64, Vec<String>>,
) -> String {
    let breaks: BTreeSet<u64> = program_labels
        .values()
        .chain(directives.keys())
        .copied()
        .collect();
    let lines = decode_with_breaks(code, &breaks);
    let labels = labels_for(program_labels, &lines);
    let mut out = String::new();
    for line in &lines {
        if let Some(names) = labels.get(&line.addr) {
            for n in names {
                let _ = writeln!(out, "{n}:");
            }
        }
        for d in directives.get(&line.addr).into_iter().flatten() {
            let _ = writeln!(out, "    {d}");
        }
        let text = match &line.instr {
            Some(i) => instr_text(i, line.addr, &labels),
            None => format!(".word {:#010x}", line.words[0]),
        };
        let _ = writeln!(out, "    {text:<48} ; {:04x}", line.addr);
    }
    // Labels at the end of the code (e.g. a branch to the end).
    let end = code.len() as u64 * 4;
    for names in labels.range(end..=end).map(|(_, n)| n) {
        for n in names {
            let _ = writeln!(out, "{n}:");
        }
    }
    out
}
