//! The source-level directives a compiler emits, in the LLVM assembler's syntax:
//! `.file N "PATH"`, `.loc N LINE [COL] [prologue_end] [is_stmt 0|1]`, and
//! `.var NAME, LOCATION[, TYPE]` / `.endvar NAME` (docs/assembler.md). They fill the
//! program's [`SourceInfo`](crate::program::SourceInfo); none is an instruction.

use super::text::{self, Span, Token};
use super::{suggestable, Assembler, Hint};
use crate::isa::RegFile;
use crate::program::{
    is_register_word, LineRow, SourceFile, VarDef, VarLocation, VarType, MAX_SOURCE_FILES,
    MAX_VARIABLES,
};

/// Usage of each directive, for hints.
pub(super) const FILE_USAGE: &str = ".file N [\"DIR\"] \"PATH\" [md5 0xHASH] [source \"TEXT\"]";
pub(super) const LOC_USAGE: &str = ".loc FILE LINE [COLUMN] [prologue_end] [epilogue_begin] [is_stmt 0|1] [isa N] [discriminator N] [view N]";

/// The `.loc` flags, for suggestions.
const LOC_FLAGS: [&str; 6] = [
    "prologue_end",
    "epilogue_begin",
    "is_stmt",
    "isa",
    "discriminator",
    "view",
];
pub(super) const VAR_USAGE: &str =
    ".var NAME, vN|uN|v[N:N+1]|u[N:N+1]|global:BUFFER+OFF|shared:ADDR|scratch:ADDR[, u32|i32|f32|u64|f64]";
pub(super) const ENDVAR_USAGE: &str = ".endvar NAME";

/// Largest line or column number `.loc` takes.
const MAX_LINE: i64 = i32::MAX as i64;

/// A `.loc` waiting for the next instruction, which starts its row.
#[derive(Clone, Copy)]
pub(super) struct PendingLoc {
    file: u32,
    line: u32,
    column: u32,
    prologue_end: bool,
}

/// The assembler's state for these directives.
#[derive(Default)]
pub(super) struct SourceState {
    /// The last `.loc` not yet attached to an instruction.
    loc: Option<PendingLoc>,
    /// `is_stmt` as the last `.loc` left it (it carries over, as in the DWARF line
    /// program and LLVM's assembler); `None` before the first `.loc`, which means 1.
    is_stmt: Option<bool>,
    /// Variables not yet ended: name, index in `vars`.
    open: Vec<(String, usize)>,
    /// Variables in shared or scratch memory, with the line and span of their location:
    /// checked against `.shared` and `.scratch` once every directive has been read (they
    /// may come after the `.var`).
    in_memory: Vec<MemoryVar>,
}

/// A `.var` in shared or scratch memory, as [`SourceState::in_memory`] keeps it.
struct MemoryVar {
    name: String,
    location: VarLocation,
    ty: VarType,
    line: u32,
    span: Span,
}

/// Whether `.file`'s operand text is the numbered (line-table) form rather than the
/// buffer form `.file NAME, "PATH"`: a buffer name never starts with a digit.
pub(super) fn is_numbered_file(rest: &str) -> bool {
    rest.trim_start().starts_with(|c: char| c.is_ascii_digit())
}

/// Splits `line[span]` into words at whitespace; a double-quoted string is one word.
fn words(line: &str, span: Span) -> Vec<Span> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = span.start;
    while i < span.end {
        if b[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if b[i] == b'"' {
            i += 1;
            while i < span.end && b[i] != b'"' {
                // A backslash escapes the next character (`\"` inside LLVM's `source`).
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = i.min(span.end);
            i = (i + 1).min(span.end);
        } else {
            while i < span.end && !b[i].is_ascii_whitespace() {
                i += 1;
            }
        }
        out.push(Span::new(start, i));
    }
    out
}

fn unquote(s: &str) -> Option<&str> {
    s.strip_prefix('"')?.strip_suffix('"')
}

impl Assembler<'_> {
    /// Handles `.file N`, `.loc`, `.var` or `.endvar`; `rest` is the text after the
    /// directive's name, `addr` the address of the next instruction.
    pub(super) fn source_directive(
        &mut self,
        line: &str,
        head: Span,
        rest: Span,
        ops: &[Span],
        addr: u64,
    ) {
        match &line[head.start..head.end] {
            ".file" => self.file_number(line, head, rest),
            ".loc" => self.loc(line, head, rest),
            ".var" => self.var(line, head, ops, addr),
            _ => self.endvar(line, head, ops, addr),
        }
    }

    /// A number operand in `lo..=hi`, reporting `what` when it is not one.
    fn source_number(
        &mut self,
        line: &str,
        span: Span,
        what: &str,
        hi: i64,
        usage: &str,
    ) -> Option<u32> {
        let t = &line[span.start..span.end];
        match text::parse_int(t) {
            Some(v) if (0..=hi).contains(&v) => Some(v as u32),
            Some(v) => {
                self.error(
                    span,
                    format!("{what} {v} is out of range"),
                    Some(format!("allowed range: 0..={hi}; usage: {usage}")),
                );
                None
            }
            None => {
                self.error(
                    span,
                    format!("bad {what} `{t}`: expected a number"),
                    Some(format!("usage: {usage}")),
                );
                None
            }
        }
    }

    fn file_number(&mut self, line: &str, head: Span, rest: Span) {
        let w = words(line, rest);
        let Some(&num) = w.first() else { return };
        let Some(number) =
            self.source_number(line, num, "file number", u16::MAX as i64, FILE_USAGE)
        else {
            return;
        };
        // DWARF 5's options after the path, as LLVM writes them: `md5 0xHASH` (16 bytes
        // of hex) and `source "TEXT"` (the file's text, which the debugger reads from the
        // file itself). Both are checked and set aside.
        let mut names = w.len();
        let mut k = 1;
        while k < w.len() {
            let word = &line[w[k].start..w[k].end];
            if word != "md5" && word != "source" {
                k += 1;
                continue;
            }
            names = names.min(k);
            let value = w.get(k + 1).map(|s| (*s, &line[s.start..s.end]));
            let ok = match (word, value) {
                ("md5", Some((_, v))) => v
                    .strip_prefix("0x")
                    .or_else(|| v.strip_prefix("0X"))
                    .is_some_and(|h| h.len() == 32 && h.bytes().all(|c| c.is_ascii_hexdigit())),
                (_, Some((_, v))) => unquote(v).is_some(),
                (_, None) => false,
            };
            if !ok {
                let (span, what) = match value {
                    Some((s, v)) => (s, format!("found `{v}`")),
                    None => (w[k], "found nothing".to_string()),
                };
                let expected = if word == "md5" {
                    "a 128-bit hex number (0x and 32 hex digits)"
                } else {
                    "a quoted string"
                };
                self.error(
                    span,
                    format!("`{word}` takes {expected}, {what}"),
                    Some(format!("usage: {FILE_USAGE}")),
                );
                return;
            }
            k += 2;
        }
        let w = &w[..names];
        let quoted: Vec<Option<&str>> = w[1..]
            .iter()
            .map(|s| unquote(&line[s.start..s.end]))
            .collect();
        let path = match quoted.as_slice() {
            [Some(p)] => p.to_string(),
            [Some(dir), Some(name)] => {
                if name.starts_with('/') || dir.is_empty() {
                    name.to_string()
                } else {
                    format!("{}/{name}", dir.trim_end_matches('/'))
                }
            }
            _ => {
                let span = w.get(1).map_or(head, |s| {
                    w.iter()
                        .skip(1)
                        .find(|s| unquote(&line[s.start..s.end]).is_none())
                        .copied()
                        .unwrap_or(*s)
                });
                let message = if w.len() == 1 {
                    format!("`.file {number}` needs a quoted path")
                } else if w.len() > 3 {
                    "too many operands for `.file N`".to_string()
                } else {
                    format!(
                        "expected a quoted path, found `{}`",
                        &line[span.start..span.end]
                    )
                };
                self.error(span, message, Some(format!("usage: {FILE_USAGE}")));
                return;
            }
        };
        let span = Span::new(w[1].start, w.last().map_or(w[1].end, |s| s.end));
        if path.is_empty() {
            self.error(
                span,
                "the path is empty".into(),
                Some(format!("usage: {FILE_USAGE}")),
            );
            return;
        }
        let info = &mut self.program.source_info;
        match info.file(number) {
            Some(f) if f.path == path => {}
            Some(f) => {
                let first = f.path.clone();
                self.error(
                    num,
                    format!("file number {number} is already `{first}`"),
                    Some("give each source file its own number".into()),
                );
            }
            None if info.files.len() >= MAX_SOURCE_FILES => self.error(
                num,
                format!("more than {MAX_SOURCE_FILES} source files"),
                None,
            ),
            None => info.files.push(SourceFile { number, path }),
        }
    }

    fn loc(&mut self, line: &str, head: Span, rest: Span) {
        let w = words(line, rest);
        if w.len() < 2 {
            let span = w.first().copied().unwrap_or(head);
            self.error(
                span,
                "`.loc` needs a file number and a line".into(),
                Some(format!("usage: {LOC_USAGE}")),
            );
            return;
        }
        let Some(file) = self.source_number(line, w[0], "file number", u16::MAX as i64, LOC_USAGE)
        else {
            return;
        };
        if self.program.source_info.file(file).is_none() {
            let known: Vec<String> = self
                .program
                .source_info
                .files
                .iter()
                .map(|f| f.number.to_string())
                .collect();
            self.error(
                w[0],
                format!("unknown file number {file}"),
                Some(if known.is_empty() {
                    format!("declare it first with .file {file} \"PATH\"")
                } else {
                    format!("declared file numbers: {}", known.join(", "))
                }),
            );
            return;
        }
        let Some(src_line) = self.source_number(line, w[1], "line", MAX_LINE, LOC_USAGE) else {
            return;
        };
        let mut i = 2;
        let mut column = 0;
        if let Some(s) = w.get(2) {
            if line[s.start..s.end].starts_with(|c: char| c.is_ascii_digit() || c == '-') {
                let Some(c) = self.source_number(line, *s, "column", MAX_LINE, LOC_USAGE) else {
                    return;
                };
                column = c;
                i = 3;
            }
        }
        let mut prologue_end = false;
        let mut is_stmt = self.source.is_stmt.unwrap_or(true);
        while i < w.len() {
            let flag = &line[w[i].start..w[i].end];
            match flag {
                "prologue_end" => prologue_end = true,
                // Flags LLVM emits that the debugger does not use: checked and set aside.
                "epilogue_begin" => {}
                "isa" | "discriminator" | "view" => {
                    let value = w.get(i + 1).map(|s| (*s, &line[s.start..s.end]));
                    // `view` also takes a label (`view .LVU3`), as GNU as writes it.
                    let ok = value.is_some_and(|(_, v)| {
                        text::parse_int(v).is_some_and(|n| n >= 0)
                            || (flag == "view"
                                && v.starts_with(|c: char| {
                                    c == '.' || c == '_' || c.is_ascii_alphabetic()
                                }))
                    });
                    if !ok {
                        let (span, message) = match value {
                            Some((s, v)) => (s, format!("`{flag}` takes a number, not `{v}`")),
                            None => (w[i], format!("`{flag}` needs a value, a number")),
                        };
                        self.error(span, message, Some(format!("usage: {LOC_USAGE}")));
                        return;
                    }
                    i += 1;
                }
                "is_stmt" => {
                    let value = w.get(i + 1).map(|s| (*s, &line[s.start..s.end]));
                    match value {
                        Some((_, "0")) => is_stmt = false,
                        Some((_, "1")) => is_stmt = true,
                        Some((s, v)) => {
                            self.error(
                                s,
                                format!("`is_stmt` takes 0 or 1, not `{v}`"),
                                Some(format!("usage: {LOC_USAGE}")),
                            );
                            return;
                        }
                        None => {
                            self.error(
                                w[i],
                                "`is_stmt` needs a value, 0 or 1".into(),
                                Some(format!("usage: {LOC_USAGE}")),
                            );
                            return;
                        }
                    }
                    i += 1;
                }
                _ => {
                    let near = text::nearest(flag, &LOC_FLAGS, 1);
                    self.error(
                        w[i],
                        format!("unknown `.loc` flag `{flag}`"),
                        Some(match near.first() {
                            Some(n) => format!("did you mean `{n}`? usage: {LOC_USAGE}"),
                            None => format!("usage: {LOC_USAGE}"),
                        }),
                    );
                    return;
                }
            }
            i += 1;
        }
        self.source.is_stmt = Some(is_stmt);
        self.source.loc = Some(PendingLoc {
            file,
            line: src_line,
            column,
            prologue_end,
        });
    }

    /// Starts a line-table row at `addr` if a `.loc` is waiting: called for each
    /// instruction (and `.word`) as the first pass places it.
    pub(super) fn take_loc(&mut self, addr: u64) {
        let Some(l) = self.source.loc.take() else {
            return;
        };
        let row = LineRow {
            addr,
            file: l.file,
            line: l.line,
            column: l.column,
            is_stmt: self.source.is_stmt.unwrap_or(true),
            prologue_end: l.prologue_end,
        };
        self.program.source_info.rows.push(row);
    }

    fn var(&mut self, line: &str, head: Span, ops: &[Span], addr: u64) {
        if !(2..=3).contains(&ops.len()) {
            let span = ops.last().copied().unwrap_or(head);
            self.error(
                span,
                "wrong number of operands for `.var`".into(),
                Some(format!("usage: {VAR_USAGE}")),
            );
            return;
        }
        let t = |s: &Span| &line[s.start..s.end];
        let name = t(&ops[0]);
        if !text::is_ident(name) {
            self.error(
                ops[0],
                format!("`{name}` is not a valid variable name"),
                Some("use letters, digits, `_`, `.`, `$`, not starting with a digit".into()),
            );
            return;
        }
        if is_register_word(name) {
            self.error(
                ops[0],
                format!("`{name}` names a register: a variable cannot be called so"),
                Some("v0-v127, u0-u63, exec, pc, lane and wave are never variables".into()),
            );
            return;
        }
        let Some(location) = self.var_location(t(&ops[1]), ops[1]) else {
            return;
        };
        let ty = match ops.get(2) {
            None => VarType::U32,
            Some(s) => match VarType::parse(t(s)) {
                Some(ty) => ty,
                None => {
                    self.error(
                        *s,
                        format!("unknown variable type `{}`", t(s)),
                        Some("types: u32 (the default), i32, f32, u64, f64".into()),
                    );
                    return;
                }
            },
        };
        if !location.holds(ty) {
            let hint = if ty.bytes() == 8 {
                "a 64-bit value lives in a register pair (v[N:N+1], u[N:N+1]) or in memory"
            } else {
                "a register pair holds a u64 or an f64; a 32-bit value lives in one register"
            };
            self.error(
                ops.get(2).copied().unwrap_or(ops[1]),
                format!("{location} cannot hold a {}", ty.name()),
                Some(hint.into()),
            );
            return;
        }
        if let VarLocation::Global { buffer, offset } = &location {
            let size = self.program.buffer(buffer).map_or(0, |b| b.size);
            if offset.checked_add(ty.bytes()).is_none_or(|e| e > size) {
                self.error(
                    ops[1],
                    format!("offset {offset} is outside buffer `{buffer}` ({size} bytes)"),
                    Some(format!("a {} takes {} bytes", ty.name(), ty.bytes())),
                );
                return;
            }
        }
        if self.program.source_info.vars.len() >= MAX_VARIABLES {
            self.error(ops[0], format!("more than {MAX_VARIABLES} variables"), None);
            return;
        }
        if matches!(location, VarLocation::Shared(_) | VarLocation::Scratch(_)) {
            self.source.in_memory.push(MemoryVar {
                name: name.to_string(),
                location: location.clone(),
                ty,
                line: self.line_no,
                span: ops[1],
            });
        }
        // A variable declared again moves: its old range ends here.
        self.close_var(name, addr);
        let vars = &mut self.program.source_info.vars;
        self.source.open.push((name.to_string(), vars.len()));
        vars.push(VarDef {
            name: name.to_string(),
            location,
            ty,
            start: addr,
            end: addr,
        });
    }

    /// Parses a `.var` location, reporting what is wrong with it.
    fn var_location(&mut self, s: &str, span: Span) -> Option<VarLocation> {
        let bad = |this: &mut Self, message: String| {
            this.error(span, message, Some(format!("usage: {VAR_USAGE}")));
            None
        };
        // A register pair has a `:` too, inside its brackets.
        if let Some((space, rest)) = s.split_once(':').filter(|(a, _)| !a.contains('[')) {
            let space = space.trim();
            if matches!(space, "global" | "shared" | "scratch") {
                let rest = rest.trim();
                if space == "global" {
                    let (buffer, offset) = match rest.split_once('+') {
                        Some((b, o)) => (b.trim(), Some(o.trim())),
                        None => (rest, None),
                    };
                    let offset = match offset.map(text::parse_int) {
                        None => 0,
                        Some(Some(o)) if o >= 0 => o as u64,
                        Some(_) => {
                            return bad(self, format!("bad offset in `{s}`: expected a number"))
                        }
                    };
                    if self.program.buffer(buffer).is_none() {
                        self.error_hint(
                            self.line_no,
                            span,
                            format!("unknown buffer `{buffer}`"),
                            Hint::Buffer(
                                suggestable(buffer),
                                "declare it first with .buffer NAME, BYTES",
                            ),
                        );
                        return None;
                    }
                    return Some(VarLocation::Global {
                        buffer: buffer.to_string(),
                        offset,
                    });
                }
                return match text::parse_int(rest) {
                    Some(a) if a >= 0 => Some(if space == "shared" {
                        VarLocation::Shared(a as u64)
                    } else {
                        VarLocation::Scratch(a as u64)
                    }),
                    _ => bad(
                        self,
                        format!("bad {space} address `{rest}`: expected a number"),
                    ),
                };
            }
            return bad(
                self,
                format!("unknown memory `{space}` in `{s}`: expected global, shared or scratch"),
            );
        }
        match text::parse_reg(s) {
            Token::Reg(file, first, n) => {
                let count = n.unwrap_or(1);
                if count > 2 {
                    return bad(
                        self,
                        format!("a variable lives in one register or a pair, not {count}"),
                    );
                }
                if first as u64 + count as u64 > file.count() as u64 {
                    let p = file.prefix();
                    self.error(
                        span,
                        format!("register `{s}` does not exist"),
                        Some(format!("{p}0-{p}{} exist", file.count() - 1)),
                    );
                    return None;
                }
                let r = first as u8;
                Some(match (file, count) {
                    (RegFile::Vector, 1) => VarLocation::Vector(r),
                    (RegFile::Uniform, 1) => VarLocation::Uniform(r),
                    (RegFile::Vector, _) => VarLocation::VectorPair(r),
                    (RegFile::Uniform, _) => VarLocation::UniformPair(r),
                })
            }
            Token::BadTuple => bad(
                self,
                format!("bad register pair `{s}`: write v[N:N+1] or u[N:N+1]"),
            ),
            Token::Other => bad(self, format!("bad variable location `{s}`")),
        }
    }

    /// Ends the open range of `name` at `addr`; whether there was one.
    fn close_var(&mut self, name: &str, addr: u64) -> bool {
        let Some(i) = self.source.open.iter().position(|(n, _)| n == name) else {
            return false;
        };
        let (_, idx) = self.source.open.remove(i);
        self.program.source_info.vars[idx].end = addr;
        true
    }

    fn endvar(&mut self, line: &str, head: Span, ops: &[Span], addr: u64) {
        if ops.len() != 1 {
            let span = ops.last().copied().unwrap_or(head);
            self.error(
                span,
                "wrong number of operands for `.endvar`".into(),
                Some(format!("usage: {ENDVAR_USAGE}")),
            );
            return;
        }
        let name = &line[ops[0].start..ops[0].end];
        if self.close_var(name, addr) {
            return;
        }
        let live: Vec<&str> = self.source.open.iter().map(|(n, _)| n.as_str()).collect();
        let near = text::nearest(name, &live, 2);
        let hint = if live.is_empty() {
            "no variable is live here; declare one with .var NAME, LOCATION".to_string()
        } else if near.is_empty() {
            format!("live variables: {}", live.join(", "))
        } else {
            format!("did you mean {}?", near.join(", "))
        };
        self.error(
            ops[0],
            format!("`.endvar` of unknown variable `{name}`"),
            Some(hint),
        );
    }

    /// At the end of the first pass: variables still open live to the end of the code
    /// (`code_end`), and empty ranges are dropped.
    pub(super) fn finish_source(&mut self, code_end: u64) {
        for (_, idx) in std::mem::take(&mut self.source.open) {
            self.program.source_info.vars[idx].end = code_end;
        }
        self.program.source_info.vars.retain(|v| v.start < v.end);
        // Shared and scratch variables inside the sizes `.shared` and `.scratch` gave,
        // wherever those directives are: reading one outside would fault, or read memory
        // another variable's value is not in.
        let launch = self.program.launch;
        for v in std::mem::take(&mut self.source.in_memory) {
            if let Some(reason) = v.location.outside_memory(v.ty, &launch) {
                let hint = match v.location {
                    VarLocation::Scratch(_) => "`.scratch BYTES` sets each lane's scratch size",
                    _ => "`.shared BYTES` sets each workgroup's shared memory size",
                };
                self.error_at(
                    v.line,
                    v.span,
                    format!("variable `{}`: {reason}", v.name),
                    Some(hint.into()),
                );
            }
        }
    }
}
