//! Kernel directives: name, launch shape, memory sizes, global buffers and their initial
//! contents, and preloaded uniform-register arguments (docs/assembler.md).

use std::path::{Path, PathBuf};

use super::text::{self, Span, Token};
use super::{suggestable, Assembler, Hint};
use crate::isa::RegFile;
use crate::program::{
    ArgDef, ArgValue, BufferDef, MAX_BUFFERS, MAX_BUFFER_BYTES, MAX_SCRATCH_BYTES, MAX_SHARED_BYTES,
};

/// Largest file `.file` reads (checked before reading): the largest buffer.
pub const MAX_FILE_BYTES: u64 = MAX_BUFFER_BYTES;

/// Every directive with its usage, for hints.
const DIRECTIVES: &[(&str, &str)] = &[
    (".kernel", ".kernel NAME"),
    (
        ".workgroup",
        ".workgroup LANES (a multiple of 32, at most 1024)",
    ),
    (".grid", ".grid WORKGROUPS"),
    (".shared", ".shared BYTES (per workgroup)"),
    (".scratch", ".scratch BYTES (per lane)"),
    (".buffer", ".buffer NAME, BYTES"),
    (".init", ".init NAME, u8|u16|u32|i32|u64|f32, VALUE, ..."),
    (".fill", ".fill NAME, u8|u16|u32|i32|u64|f32, VALUE, COUNT"),
    (
        ".iota",
        ".iota NAME, u8|u16|u32|i32|u64|f32, COUNT[, START[, STEP[, wrap]]]",
    ),
    (
        ".file",
        ".file NAME, \"PATH\" (a buffer's bytes) | .file N \"PATH\" (a source file)",
    ),
    (".loc", super::source_level::LOC_USAGE),
    (".var", super::source_level::VAR_USAGE),
    (".endvar", super::source_level::ENDVAR_USAGE),
    (
        ".arg",
        ".arg u[0:1], NAME | .arg u[4:7], desc NAME | .arg u8, VALUE",
    ),
];

impl Assembler<'_> {
    pub(super) fn directive(&mut self, line: &str, head: Span, ops: &[Span]) {
        let name = &line[head.start..head.end];
        let Some(&(_, usage)) = DIRECTIVES.iter().find(|(n, _)| *n == name) else {
            let names: Vec<&str> = DIRECTIVES.iter().map(|(n, _)| *n).collect();
            let near = text::nearest(name, &names, 2);
            let lower = name.to_ascii_lowercase();
            let hint = if lower != name && names.contains(&lower.as_str()) {
                format!("directives are lower case: did you mean {lower}?")
            } else if near.is_empty() {
                format!("directives: {}", names.join(" "))
            } else {
                format!("did you mean {}?", near.join(", "))
            };
            self.error(head, format!("unknown directive `{name}`"), Some(hint));
            return;
        };
        let arity_ok = match name {
            ".kernel" | ".workgroup" | ".grid" | ".shared" | ".scratch" => ops.len() == 1,
            ".buffer" | ".file" | ".arg" => ops.len() == 2,
            ".fill" => ops.len() == 4,
            ".iota" => (3..=6).contains(&ops.len()),
            _ => ops.len() >= 3,
        };
        if !arity_ok {
            let span = ops.last().copied().unwrap_or(head);
            self.error(
                span,
                format!("wrong number of operands for `{name}`"),
                Some(format!("usage: {usage}")),
            );
            return;
        }
        let t = |s: &Span| &line[s.start..s.end];
        match name {
            ".kernel" => {
                if text::is_ident(t(&ops[0])) {
                    self.program.name = t(&ops[0]).to_string();
                } else {
                    self.error(
                        ops[0],
                        format!("`{}` is not a valid kernel name", t(&ops[0])),
                        Some("use letters, digits, `_`, `.`".into()),
                    );
                }
            }
            ".workgroup" => {
                if let Some(v) = self.number(line, ops[0], 32, 1024, usage) {
                    if v % 32 != 0 {
                        self.error(
                            ops[0],
                            format!("workgroup size {v} is not a multiple of 32"),
                            Some("a workgroup is made of whole 32-lane waves".into()),
                        );
                    } else {
                        self.program.launch.workgroup_lanes = v as u32;
                    }
                }
            }
            ".grid" => {
                if let Some(v) = self.number(line, ops[0], 1, u32::MAX as i64, usage) {
                    self.program.launch.grid = v as u32;
                }
            }
            ".shared" => {
                if let Some(v) = self.number(line, ops[0], 0, MAX_SHARED_BYTES as i64, usage) {
                    self.program.launch.shared_bytes = v as u32;
                }
            }
            ".scratch" => {
                if let Some(v) = self.number(line, ops[0], 0, MAX_SCRATCH_BYTES as i64, usage) {
                    self.program.launch.scratch_bytes = v as u32;
                }
            }
            ".buffer" => {
                let bname = t(&ops[0]);
                if !text::is_ident(bname) {
                    self.error(
                        ops[0],
                        format!("`{bname}` is not a valid buffer name"),
                        Some(format!("usage: {usage}")),
                    );
                } else if self.buffer_ids.contains_key(bname) {
                    self.error(ops[0], format!("buffer `{bname}` is declared twice"), None);
                } else if self.program.buffers.len() >= MAX_BUFFERS {
                    self.error(
                        ops[0],
                        format!("more than {MAX_BUFFERS} buffers"),
                        Some(format!("a kernel declares at most {MAX_BUFFERS} buffers")),
                    );
                } else if let Some(size) =
                    self.number(line, ops[1], 1, MAX_BUFFER_BYTES as i64, usage)
                {
                    self.buffer_ids
                        .insert(bname.to_string(), self.program.buffers.len());
                    self.program.buffers.push(BufferDef {
                        name: bname.to_string(),
                        size: size as u64,
                        init: Vec::new(),
                    });
                }
            }
            ".init" | ".fill" | ".iota" => self.init(line, name, ops, usage),
            ".file" => {
                let Some(idx) = self.buffer_index(line, ops[0]) else {
                    return;
                };
                let path = t(&ops[1]);
                let Some(path) = path.strip_prefix('"').and_then(|p| p.strip_suffix('"')) else {
                    self.error(
                        ops[1],
                        "expected a quoted path".into(),
                        Some(format!("usage: {usage}")),
                    );
                    return;
                };
                match self.read_file(path, idx) {
                    Ok(bytes) => self.append(ops[1], idx, bytes),
                    Err((message, hint)) => self.error(ops[1], message, hint),
                }
            }
            ".arg" => self.arg(line, ops, usage),
            _ => {}
        }
    }

    fn number(&mut self, line: &str, span: Span, lo: i64, hi: i64, usage: &str) -> Option<i64> {
        let s = &line[span.start..span.end];
        match text::parse_int(s) {
            Some(v) if (lo..=hi).contains(&v) => Some(v),
            Some(v) => {
                self.error(
                    span,
                    format!("{v} is out of range"),
                    Some(format!("allowed range: {lo}..={hi}; usage: {usage}")),
                );
                None
            }
            None => {
                self.error(
                    span,
                    format!("expected a number, found `{s}`"),
                    Some(format!("usage: {usage}")),
                );
                None
            }
        }
    }

    fn buffer_index(&mut self, line: &str, span: Span) -> Option<usize> {
        let name = &line[span.start..span.end];
        let idx = self.buffer_ids.get(name).copied();
        if idx.is_none() {
            self.error_hint(
                self.line_no,
                span,
                format!("unknown buffer `{name}`"),
                Hint::Buffer(
                    suggestable(name),
                    "declare it first with .buffer NAME, BYTES",
                ),
            );
        }
        idx
    }

    /// The bytes of `.file`'s `path` for buffer `idx`: only a regular file under the
    /// source's directory (unless the options allow any), of at most the room left in the
    /// buffer and [`MAX_FILE_BYTES`], checked before reading.
    fn read_file(&self, path: &str, idx: usize) -> Result<Vec<u8>, (String, Option<String>)> {
        use std::io::Read;
        let base = if self.base_dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            self.base_dir.as_path()
        };
        let full = base.join(path);
        let cannot = |e: std::io::Error, what: &Path| {
            (
                format!("cannot read `{}`: {}", what.display(), crate::io_reason(&e)),
                None,
            )
        };
        // Resolved (symlinks, `..`) before the check, so neither leads outside.
        let real = std::fs::canonicalize(&full).map_err(|e| cannot(e, &full))?;
        if !self.options.allow_files_outside_dir {
            let root: PathBuf = std::fs::canonicalize(base).map_err(|e| cannot(e, base))?;
            if !real.starts_with(&root) {
                return Err((
                    format!(
                        "`{path}` is outside the kernel's directory (it resolves to `{}`, not under `{}`)",
                        real.display(),
                        root.display()
                    ),
                    Some(
                        ".file reads only files under the source's directory; allow others \
                         with --allow-file-outside-dir (allowFileOutsideDir in a DAP launch)"
                            .into(),
                    ),
                ));
            }
        }
        let meta = std::fs::metadata(&real).map_err(|e| cannot(e, &real))?;
        if !meta.is_file() {
            return Err((
                format!("`{path}` is not a regular file"),
                Some(
                    ".file reads a file's bytes; devices, pipes and directories have none to read"
                        .into(),
                ),
            ));
        }
        let buf = &self.program.buffers[idx];
        let room = buf.size - buf.init.len() as u64;
        if meta.len() > MAX_FILE_BYTES {
            return Err((
                format!(
                    "`{path}` is {} bytes, more than the {MAX_FILE_BYTES} bytes .file reads",
                    meta.len()
                ),
                None,
            ));
        }
        if meta.len() > room {
            return Err((
                format!(
                    "initial contents overflow buffer `{}`: `{path}` is {} bytes",
                    buf.name,
                    meta.len()
                ),
                Some(format!(
                    "the buffer holds {} bytes; {} are already initialised and this adds {}",
                    buf.size,
                    buf.init.len(),
                    meta.len()
                )),
            ));
        }
        // At most one byte more than checked: the file may grow after the check.
        let mut bytes = Vec::new();
        std::fs::File::open(&real)
            .and_then(|f| f.take(room + 1).read_to_end(&mut bytes))
            .map_err(|e| cannot(e, &real))?;
        if bytes.len() as u64 > room {
            return Err((format!("`{path}` grew while it was read"), None));
        }
        Ok(bytes)
    }

    /// Whether `n` more bytes fit in buffer `idx` (reporting the overflow if not).
    fn fits(&mut self, span: Span, idx: usize, n: u64) -> bool {
        let buf = &self.program.buffers[idx];
        if buf.init.len() as u64 + n <= buf.size {
            return true;
        }
        let (name, size, have) = (buf.name.clone(), buf.size, buf.init.len());
        self.error(
            span,
            format!("initial contents overflow buffer `{name}`"),
            Some(format!(
                "the buffer holds {size} bytes; {have} are already initialised and this adds {n}"
            )),
        );
        false
    }

    fn append(&mut self, span: Span, idx: usize, bytes: Vec<u8>) {
        let buf = &mut self.program.buffers[idx];
        if buf.init.len() as u64 + bytes.len() as u64 > buf.size {
            let (name, size, have) = (buf.name.clone(), buf.size, buf.init.len());
            self.error(span, format!("initial contents overflow buffer `{name}`"), Some(format!("the buffer holds {size} bytes; {have} are already initialised and this adds {}", bytes.len())));
        } else if buf.init.is_empty() {
            // Moved, not copied: a 1 GiB `.fill` is held once.
            buf.init = bytes;
        } else {
            buf.init.extend_from_slice(&bytes);
        }
    }

    fn init(&mut self, line: &str, name: &str, ops: &[Span], usage: &str) {
        let Some(idx) = self.buffer_index(line, ops[0]) else {
            return;
        };
        let ty = &line[ops[1].start..ops[1].end];
        let Some(elem) = Elem::parse(ty) else {
            self.error(
                ops[1],
                format!("unknown element type `{ty}`"),
                Some("types: u8 u16 u32 i32 u64 f32".into()),
            );
            return;
        };
        let mut bytes = Vec::new();
        match name {
            ".init" => {
                for s in &ops[2..] {
                    match elem.encode(&line[s.start..s.end]) {
                        Some(b) => bytes.extend(b),
                        None => {
                            self.error(
                                *s,
                                format!("`{}` is not a valid {ty} value", &line[s.start..s.end]),
                                Some(format!("usage: {usage}")),
                            );
                            return;
                        }
                    }
                }
            }
            ".fill" => {
                let Some(v) = elem.encode(&line[ops[2].start..ops[2].end]) else {
                    self.error(
                        ops[2],
                        format!("not a valid {ty} value"),
                        Some(format!("usage: {usage}")),
                    );
                    return;
                };
                let Some(count) = self.number(line, ops[3], 0, MAX_BUFFER_BYTES as i64, usage)
                else {
                    return;
                };
                if !self.fits(ops[0], idx, count as u64 * v.len() as u64) {
                    return;
                }
                bytes = v.repeat(count as usize);
            }
            _ => {
                let Some(count) = self.number(line, ops[2], 0, MAX_BUFFER_BYTES as i64, usage)
                else {
                    return;
                };
                if !self.fits(ops[0], idx, count as u64 * elem.size() as u64) {
                    return;
                }
                match elem.iota(line, ops, count as u64) {
                    Ok(b) => bytes = b,
                    Err((span, message)) => {
                        self.error(span, message, Some(format!("usage: {usage}")));
                        return;
                    }
                }
            }
        }
        self.append(ops[0], idx, bytes);
    }

    fn arg(&mut self, line: &str, ops: &[Span], usage: &str) {
        let reg_text = &line[ops[0].start..ops[0].end];
        let (first, count) = match text::parse_reg(reg_text) {
            Token::Reg(RegFile::Uniform, first, n) => (first, n.unwrap_or(1)),
            _ => {
                self.error(
                    ops[0],
                    format!("expected uniform register(s), found `{reg_text}`"),
                    Some(format!("usage: {usage}")),
                );
                return;
            }
        };
        let what = &line[ops[1].start..ops[1].end];
        let value = if let Some(b) = what.strip_prefix("desc ") {
            ArgValue::Descriptor(b.trim().to_string())
        } else if let Some(v) =
            text::parse_int(what).or_else(|| text::parse_f32(what).map(|f| f.to_bits() as i64))
        {
            if !(-(1i64 << 31)..(1i64 << 32)).contains(&v) {
                self.error(ops[1], format!("{v} does not fit in 32 bits"), None);
                return;
            }
            ArgValue::Value(v as u32)
        } else if text::is_ident(what) {
            ArgValue::Address(what.to_string())
        } else {
            self.error(
                ops[1],
                format!("`{what}` is neither a buffer name nor a number"),
                Some(format!("usage: {usage}")),
            );
            return;
        };
        let need = value.regs() as u32;
        // u64 arithmetic: the register number comes from the user and may be huge.
        if first as u64 + need as u64 > 64 {
            self.error(
                ops[0],
                format!(
                    "registers u{first}..u{} do not exist",
                    first as u64 + need as u64 - 1
                ),
                Some("u0-u63 exist".into()),
            );
            return;
        }
        if count != need && count != 1 {
            self.error(
                ops[0],
                format!(
                    "this argument fills {need} register{}, not {count}",
                    if need == 1 { "" } else { "s" }
                ),
                Some(format!("write u[{first}:{}]", first + need - 1)),
            );
            return;
        }
        if let Some(other) =
            self.program.args.iter().find(|a| {
                first < a.reg as u32 + a.value.regs() as u32 && (a.reg as u32) < first + need
            })
        {
            let other = other.reg;
            self.error(
                ops[0],
                format!("argument registers overlap the argument at u{other}"),
                None,
            );
            return;
        }
        self.program.args.push(ArgDef {
            reg: first as u8,
            value,
        });
        self.arg_sites.push((self.line_no, ops[1]));
    }
}

/// Checks what can only be checked once the whole file is read.
pub(super) fn finish(asm: &mut Assembler<'_>) {
    let args = asm.program.args.clone();
    let sites = std::mem::take(&mut asm.arg_sites);
    for (arg, (line, span)) in args.iter().zip(sites) {
        if let ArgValue::Address(b) | ArgValue::Descriptor(b) = &arg.value {
            if asm.program.buffer(b).is_none() {
                asm.error_hint(
                    line,
                    span,
                    format!("unknown buffer `{b}`"),
                    Hint::Buffer(suggestable(b), "declare it with .buffer NAME, BYTES"),
                );
            }
        }
    }
}

/// Element types of `.init`, `.fill` and `.iota`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Elem {
    U8,
    U16,
    U32,
    I32,
    U64,
    F32,
}

impl Elem {
    fn parse(s: &str) -> Option<Elem> {
        Some(match s {
            "u8" => Elem::U8,
            "u16" => Elem::U16,
            "u32" => Elem::U32,
            "i32" => Elem::I32,
            "u64" => Elem::U64,
            "f32" => Elem::F32,
            _ => return None,
        })
    }

    fn size(self) -> usize {
        match self {
            Elem::U8 => 1,
            Elem::U16 => 2,
            Elem::U32 | Elem::I32 | Elem::F32 => 4,
            Elem::U64 => 8,
        }
    }

    fn encode(self, s: &str) -> Option<Vec<u8>> {
        let int = text::parse_int(s);
        let fits = |lo: i64, hi: i64| int.filter(|v| (lo..=hi).contains(v));
        Some(match self {
            Elem::U8 => vec![fits(-128, 255)? as u8],
            Elem::U16 => (fits(-(1 << 15), (1 << 16) - 1)? as u16)
                .to_le_bytes()
                .to_vec(),
            Elem::U32 | Elem::I32 => (fits(-(1 << 31), (1 << 32) - 1)? as u32)
                .to_le_bytes()
                .to_vec(),
            Elem::U64 => (int? as u64).to_le_bytes().to_vec(),
            Elem::F32 => {
                let f = text::parse_f32(s).or_else(|| int.map(|v| v as f32))?;
                f.to_le_bytes().to_vec()
            }
        })
    }

    /// The integers an element holds, as `.init` accepts them: either signedness of its
    /// width (`-1` is all ones); `None` for f32.
    fn int_range(self) -> Option<(i128, i128)> {
        let bits = match self {
            Elem::U8 => 8,
            Elem::U16 => 16,
            Elem::U32 | Elem::I32 => 32,
            Elem::U64 => 64,
            Elem::F32 => return None,
        };
        Some((-(1i128 << (bits - 1)), (1i128 << bits) - 1))
    }

    /// `.iota`'s values: START, START+STEP, ... (`ops[3]`, `ops[4]`, default 0 and 1),
    /// `count` of them, each of which must fit the element as `.init` would take it;
    /// otherwise the operand to blame and a message naming the first value that does not.
    ///
    /// A sixth operand `wrap` asks for integer values modulo 2^width instead (a cheap
    /// pseudo-random fill: `.iota b, u32, 256, 74565, 2654435761, wrap`).
    fn iota(self, line: &str, ops: &[Span], count: u64) -> Result<Vec<u8>, (Span, String)> {
        let op = |i: usize| ops.get(i).map(|s| (*s, line[s.start..s.end].trim()));
        let wrap = match op(5) {
            None => false,
            Some((_, "wrap")) if self != Elem::F32 => true,
            Some((span, t)) => {
                return Err((
                    span,
                    format!("expected `wrap` (integer types only), found `{t}`"),
                ))
            }
        };
        let mut out = Vec::with_capacity(count as usize * self.size());
        let Some((lo, hi)) = self.int_range() else {
            let num = |i: usize, d: f64| match op(i) {
                None => Ok(d),
                Some((span, t)) => text::parse_f32(t)
                    .map(f64::from)
                    .or_else(|| text::parse_int(t).map(|v| v as f64))
                    .filter(|v| v.is_finite())
                    .ok_or((
                        span,
                        format!("START and STEP must be numbers: `{t}` is not a finite f32 value"),
                    )),
            };
            let (start, step) = (num(3, 0.0)?, num(4, 1.0)?);
            for i in 0..count {
                let v = (start + step * i as f64) as f32;
                if !v.is_finite() {
                    let span = ops.get(4).or(ops.get(3)).copied().unwrap_or(ops[2]);
                    return Err((
                        span,
                        format!("value {i} of the sequence does not fit in f32"),
                    ));
                }
                out.extend(v.to_le_bytes());
            }
            return Ok(out);
        };
        let num = |i: usize, d: i128| match op(i) {
            None => Ok(d),
            Some((span, t)) => text::parse_int(t).map(i128::from).ok_or((
                span,
                format!(
                    "START and STEP must be numbers: `{t}` is not an integer for {}",
                    self.name()
                ),
            )),
        };
        let (start, step) = (num(3, 0)?, num(4, 1)?);
        // The sequence is monotonic: the first value out of range is found by arithmetic,
        // not by generating them all.
        let first_bad = if count == 0 || wrap {
            None
        } else if !(lo..=hi).contains(&start) {
            Some(start)
        } else if step == 0 {
            None
        } else {
            let bound = if step > 0 { hi } else { lo };
            let k = (bound - start) / step + 1;
            (k < count as i128).then(|| start + k * step)
        };
        if let Some(v) = first_bad {
            let span = if v == start {
                ops.get(3)
            } else {
                ops.get(4).or(ops.get(3))
            };
            return Err((
                span.copied().unwrap_or(ops[2]),
                format!(
                    "the sequence reaches {v}, which does not fit in {} ({lo}..={hi})",
                    self.name()
                ),
            ));
        }
        let size = self.size();
        for i in 0..count as i128 {
            let v = (start + step * i) as u64;
            out.extend_from_slice(&v.to_le_bytes()[..size]);
        }
        Ok(out)
    }

    fn name(self) -> &'static str {
        match self {
            Elem::U8 => "u8",
            Elem::U16 => "u16",
            Elem::U32 => "u32",
            Elem::I32 => "i32",
            Elem::U64 => "u64",
            Elem::F32 => "f32",
        }
    }
}
