//! The `.wko` document, format versions 2 and 3: the program with its code, line table and
//! buffer contents packed as runs of bytes, so that an object's size follows the
//! information in it (a 1 GiB `.fill` is one run), not the bytes it expands to; version 3
//! adds the source-level debug information, which a version 2 document lacks.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{
    ArgDef, BufferDef, LaunchConfig, ObjectError, Program, ProgramError, SourceInfo,
    MAX_CODE_WORDS, OBJECT_FORMAT_VERSION,
};

/// Just the version of a document, read first to choose the format.
#[derive(Deserialize)]
#[serde(rename = "Program")]
pub(super) struct Version {
    pub format_version: u32,
}

/// The document as written (field order and names are the format).
#[derive(Serialize, Deserialize)]
#[serde(rename = "Program")]
pub(super) struct Object {
    format_version: u32,
    name: String,
    source: Option<String>,
    /// Code words, little-endian bytes.
    code: Vec<Run>,
    labels: BTreeMap<String, u64>,
    /// The line table: per entry, the address's increase over the previous entry's
    /// (from 0) and the line's change (zigzag), each an unsigned LEB128 number.
    lines: Vec<Run>,
    launch: LaunchConfig,
    buffers: Vec<Buffer>,
    args: Vec<ArgDef>,
    /// Files, line-table rows and variables of `.file N`, `.loc` and `.var` (version 3;
    /// empty when a version 2 document has none).
    #[serde(default)]
    source_info: SourceInfo,
}

/// A buffer as written: its initial contents packed.
#[derive(Serialize, Deserialize)]
struct Buffer {
    name: String,
    size: u64,
    init: Vec<Run>,
}

/// A run of bytes.
#[derive(Serialize, Deserialize)]
enum Run {
    /// Bytes as written, base64 (standard alphabet, padded).
    Bytes(String),
    /// `count` copies of `pattern` (base64, 1 to [`MAX_PATTERN`] bytes).
    Fill {
        /// The repeated bytes, base64.
        pattern: String,
        /// How many times they repeat.
        count: u64,
    },
}

/// The period a repeated pattern is looked for with: any run of a period dividing it
/// (1, 2, 4 or 8 bytes: every element type) is a fill of this pattern length.
const PERIOD: usize = 8;
/// Shortest repetition written as a fill rather than as bytes.
const MIN_FILL: usize = 64;
/// Longest pattern read.
const MAX_PATTERN: usize = 64;

impl Object {
    pub(super) fn from_program(p: &Program) -> Object {
        let code: Vec<u8> = p.code.iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut lines = Vec::new();
        let (mut addr, mut line) = (0u64, 0u32);
        for &(a, l) in &p.lines {
            leb128(&mut lines, a.wrapping_sub(addr));
            let d = l.wrapping_sub(line) as i32;
            leb128(&mut lines, ((d << 1) ^ (d >> 31)) as u32 as u64);
            (addr, line) = (a, l);
        }
        Object {
            format_version: OBJECT_FORMAT_VERSION,
            name: p.name.clone(),
            source: p.source.clone(),
            code: pack(&code),
            labels: p.labels.clone(),
            lines: pack(&lines),
            launch: p.launch,
            buffers: p
                .buffers
                .iter()
                .map(|b| Buffer {
                    name: b.name.clone(),
                    size: b.size,
                    init: pack(&b.init),
                })
                .collect(),
            args: p.args.clone(),
            source_info: p.source_info.clone(),
        }
    }

    /// The program, validated; each field's length is checked before it is expanded.
    pub(super) fn into_program(self) -> Result<Program, ObjectError> {
        let code_limit = MAX_CODE_WORDS as u64 * 4;
        let code_len = packed_len(&self.code, "code")?;
        if code_len > code_limit {
            return Err(ProgramError::CodeTooLarge {
                words: (code_len / 4).min(usize::MAX as u64) as usize,
            }
            .into());
        }
        if code_len % 4 != 0 {
            return Err(packed_error(
                "code",
                format!("{code_len} bytes is not whole words"),
            ));
        }
        let code: Vec<u32> = unpack(&self.code, "code")?
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        if code.is_empty() {
            return Err(ProgramError::NoInstructions.into());
        }
        // An entry takes at least two bytes and there is at most one per word.
        if packed_len(&self.lines, "lines")? > code_len / 4 * 2 * 10 {
            return Err(packed_error(
                "lines",
                "longer than the code can have".into(),
            ));
        }
        let mut lines = Vec::new();
        let bytes = unpack(&self.lines, "lines")?;
        let mut at = 0;
        let (mut addr, mut line) = (0u64, 0u32);
        while at < bytes.len() {
            let da = read_leb128(&bytes, &mut at)?;
            let dl = read_leb128(&bytes, &mut at)?;
            let dl = u32::try_from(dl).map_err(|_| packed_error("lines", "bad line".into()))?;
            let dl = ((dl >> 1) as i32) ^ -((dl & 1) as i32);
            addr = addr.wrapping_add(da);
            line = line.wrapping_add(dl as u32);
            lines.push((addr, line));
        }
        let mut p = Program {
            format_version: OBJECT_FORMAT_VERSION,
            name: self.name,
            source: self.source,
            code,
            labels: self.labels,
            lines,
            launch: self.launch,
            buffers: self
                .buffers
                .iter()
                .map(|b| BufferDef {
                    name: b.name.clone(),
                    size: b.size,
                    init: Vec::new(),
                })
                .collect(),
            args: self.args,
            source_info: self.source_info,
        };
        // Sizes (each buffer's and their total) are checked before any contents are
        // expanded, and each buffer's contents against its size.
        p.validate()?;
        for (def, b) in p.buffers.iter_mut().zip(&self.buffers) {
            let field = format!("buffers[{}].init", b.name);
            let len = packed_len(&b.init, &field)?;
            if len > b.size {
                return Err(ProgramError::InitTooLong {
                    name: b.name.clone(),
                    init: len.min(usize::MAX as u64) as usize,
                    size: b.size,
                }
                .into());
            }
            def.init = unpack(&b.init, &field)?;
        }
        Ok(p)
    }
}

fn packed_error(field: &str, reason: String) -> ObjectError {
    ObjectError::Packed {
        field: field.to_string(),
        reason,
    }
}

/// Packs bytes into runs: stretches that repeat with period [`PERIOD`] for at least
/// [`MIN_FILL`] bytes become fills, the rest base64. One pass, linear in `bytes`.
fn pack(bytes: &[u8]) -> Vec<Run> {
    let mut runs = Vec::new();
    let mut literal = 0; // start of the bytes not yet written
    let mut i = 0;
    while i + PERIOD < bytes.len() {
        // The stretch from `i` on that repeats its first PERIOD bytes.
        let mut end = i + PERIOD;
        while end < bytes.len() && bytes[end] == bytes[end - PERIOD] {
            end += 1;
        }
        let count = (end - i) / PERIOD;
        if count * PERIOD >= MIN_FILL {
            if literal < i {
                runs.push(Run::Bytes(base64::encode(&bytes[literal..i])));
            }
            runs.push(Run::Fill {
                pattern: base64::encode(&bytes[i..i + PERIOD]),
                count: count as u64,
            });
            i += count * PERIOD;
            literal = i;
        } else {
            // No stretch from here to `end - PERIOD` reaches beyond `end` either, so
            // none of them is long enough: skip them (keeps the pass linear).
            i = (end - PERIOD + 1).max(i + 1);
        }
    }
    if literal < bytes.len() {
        runs.push(Run::Bytes(base64::encode(&bytes[literal..])));
    }
    runs
}

/// The length runs expand to, without expanding them (malformed runs are errors).
fn packed_len(runs: &[Run], field: &str) -> Result<u64, ObjectError> {
    let mut total = 0u64;
    for r in runs {
        let n = match r {
            Run::Bytes(b) => base64::decoded_len(b),
            Run::Fill { pattern, count } => {
                let p = base64::decoded_len(pattern);
                if !(1..=MAX_PATTERN as u64).contains(&p) {
                    return Err(packed_error(
                        field,
                        format!("a fill pattern of {p} bytes (1 to {MAX_PATTERN})"),
                    ));
                }
                p.checked_mul(*count)
                    .ok_or_else(|| packed_error(field, "a fill too long".into()))?
            }
        };
        total = total
            .checked_add(n)
            .ok_or_else(|| packed_error(field, "runs too long".into()))?;
    }
    Ok(total)
}

/// Expands runs whose length [`packed_len`] has checked.
fn unpack(runs: &[Run], field: &str) -> Result<Vec<u8>, ObjectError> {
    let mut out = Vec::new();
    for r in runs {
        match r {
            Run::Bytes(b) => {
                base64::decode_into(b, &mut out).map_err(|reason| packed_error(field, reason))?
            }
            Run::Fill { pattern, count } => {
                let mut p = Vec::new();
                base64::decode_into(pattern, &mut p)
                    .map_err(|reason| packed_error(field, reason))?;
                for _ in 0..*count {
                    out.extend_from_slice(&p);
                }
            }
        }
    }
    Ok(out)
}

fn leb128(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn read_leb128(bytes: &[u8], at: &mut usize) -> Result<u64, ObjectError> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes
            .get(*at)
            .ok_or_else(|| packed_error("lines", "truncated".into()))?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(packed_error("lines", "a number longer than 64 bits".into()))
}

/// Base64 (RFC 4648, standard alphabet, padded), enough for the object format.
mod base64 {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    pub fn encode(bytes: &[u8]) -> String {
        let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
        for c in bytes.chunks(3) {
            let n = (u32::from(c[0]) << 16)
                | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
                | u32::from(*c.get(2).unwrap_or(&0));
            for k in 0..4 {
                if k <= c.len() {
                    out.push(ALPHABET[(n >> (18 - 6 * k)) as usize & 63] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

    /// The length `s` decodes to if it is well formed (checked when decoding).
    pub fn decoded_len(s: &str) -> u64 {
        let pad = s.bytes().rev().take_while(|&b| b == b'=').count().min(2);
        (s.len() / 4 * 3).saturating_sub(pad) as u64
    }

    pub fn decode_into(s: &str, out: &mut Vec<u8>) -> Result<(), String> {
        let b = s.as_bytes();
        if !b.len().is_multiple_of(4) {
            return Err(format!(
                "base64 of {} characters, not a multiple of 4",
                b.len()
            ));
        }
        let value = |i: usize| -> Result<u32, String> {
            let c = b[i];
            ALPHABET
                .iter()
                .position(|&a| a == c)
                .map(|v| v as u32)
                .ok_or_else(|| format!("bad base64 character at offset {i}"))
        };
        out.reserve(b.len() / 4 * 3);
        for q in (0..b.len()).step_by(4) {
            let last = q + 4 == b.len();
            let pad = if last {
                b[q + 2..].iter().filter(|&&c| c == b'=').count()
            } else {
                0
            };
            if pad == 1 && b[q + 2] == b'=' {
                return Err(format!("bad base64 padding at offset {q}"));
            }
            let mut n = 0u32;
            for k in 0..4 - pad {
                n |= value(q + k)? << (18 - 6 * k);
            }
            out.push((n >> 16) as u8);
            if pad < 2 {
                out.push((n >> 8) as u8);
            }
            if pad < 1 {
                out.push(n as u8);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        for n in 0..20 {
            let bytes: Vec<u8> = (0..n).map(|i| (i * 37 + 5) as u8).collect();
            let s = base64::encode(&bytes);
            assert_eq!(base64::decoded_len(&s), n as u64);
            let mut back = Vec::new();
            base64::decode_into(&s, &mut back).unwrap();
            assert_eq!(back, bytes);
        }
        assert_eq!(base64::encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64::encode(b"fo"), "Zm8=");
        let mut v = Vec::new();
        assert!(base64::decode_into("Zm9", &mut v).is_err());
        assert!(base64::decode_into("Z!9v", &mut v).is_err());
    }

    #[test]
    fn pack_finds_fills_and_round_trips() {
        let mut bytes = vec![1u8, 2, 3];
        bytes.extend([7u8; 1000]);
        bytes.extend((0..500u32).flat_map(|i| (i * 2654435761).to_le_bytes()));
        bytes.extend([1u8, 2, 3, 4].repeat(100));
        bytes.extend([9u8; 63]);
        let runs = pack(&bytes);
        assert_eq!(
            runs.iter()
                .filter(|r| matches!(r, Run::Fill { .. }))
                .count(),
            2
        );
        assert_eq!(packed_len(&runs, "x").unwrap(), bytes.len() as u64);
        assert_eq!(unpack(&runs, "x").unwrap(), bytes);
        assert!(pack(&[]).is_empty());
    }
}
