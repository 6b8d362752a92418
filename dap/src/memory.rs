//! Code and memory: `disassemble` (instructions are 4 or 8 bytes, so offsets count
//! instructions as the code lays them out), `readMemory` and `writeMemory` of global,
//! shared and scratch memory as the selected wave (and lane) sees it.

use std::io::Write;

use base64::Engine as _;
use wavedbg_emulator::debug::view;
use wavedbg_emulator::machine::{CodeWord, Machine};
use wavedbg_emulator::memory::Space;

use crate::error::DapError;
use crate::session::{Reply, Session};
use crate::types::{
    DisassembleArguments, DisassembleBody, DisassembledInstruction, ReadMemoryArguments,
    ReadMemoryBody, WriteMemoryArguments, WriteMemoryBody,
};
use wavedbg_emulator::debug::command::parse_mem_ref;

/// The most bytes one `readMemory` returns, and instructions one `disassemble` lists.
const MAX_READ: u64 = 1 << 20;
const MAX_INSTRUCTIONS: i64 = 65_536;

/// The places `disassemble` lists, in address order around the 64-bit address space:
/// each instruction of the code (4 or 8 bytes, from address 0), then each 4-byte word
/// outside it, up to the last word below 2^64, after which address 0 comes again. A
/// request's rows are consecutive places, so each has an address of its own, and one
/// past the code is at its own word, however far the request reaches.
struct Slots {
    /// Where each instruction starts.
    starts: Vec<u64>,
    /// The first address past the code.
    end: u64,
}

impl Slots {
    fn new(m: &Machine) -> Slots {
        let starts = m
            .code()
            .iter()
            .enumerate()
            .filter(|(_, w)| !matches!(w, CodeWord::Inside))
            .map(|(i, _)| i as u64 * 4)
            .collect();
        Slots {
            starts,
            end: m.code().len() as u64 * 4,
        }
    }

    /// How many places there are (instructions, and words outside the code).
    fn len(&self) -> i128 {
        self.starts.len() as i128 + ((1i128 << 64) - i128::from(self.end)) / 4
    }

    /// The place `addr` is in: the instruction holding it, or its word outside the code.
    fn index_of(&self, addr: u64) -> u64 {
        if addr < self.end {
            self.starts
                .partition_point(|&a| a <= addr)
                .saturating_sub(1) as u64
        } else {
            self.starts.len() as u64 + (addr - self.end) / 4
        }
    }

    /// The address of place `index` (any integer: counted around the address space).
    fn address(&self, index: i128) -> u64 {
        let i = index.rem_euclid(self.len());
        match usize::try_from(i).ok().and_then(|i| self.starts.get(i)) {
            Some(a) => *a,
            // Past the instructions: words from the end of the code (below 2^64).
            None => self.end + ((i - self.starts.len() as i128) as u64) * 4,
        }
    }
}

/// How many bytes from `addr` can be read, up to `data`'s length (read into it): all,
/// else page by page, else byte by byte at the end.
fn readable_prefix(
    m: &Machine,
    space: Space,
    (w, lane): (usize, u8),
    addr: u64,
    data: &mut [u8],
) -> u64 {
    let count = data.len() as u64;
    if m.read_space(space, w, lane, addr, data).is_ok() {
        return count;
    }
    let mut n = 0u64;
    let mut step = 4096u64;
    while n < count && step > 0 {
        let len = step.min(count - n);
        let chunk = &mut data[n as usize..(n + len) as usize];
        if m.read_space(space, w, lane, addr.wrapping_add(n), chunk)
            .is_ok()
        {
            n += len;
        } else if step > 1 {
            step = 1;
        } else {
            break;
        }
    }
    n
}

impl<W: Write> Session<W> {
    /// A memory reference's space and address: a number, or an expression in the
    /// selected wave (`out + 16`).
    fn resolve(&mut self, reference: &str, offset: Option<i64>) -> Result<(Space, u64), DapError> {
        let m = parse_mem_ref(reference, 1)
            .map_err(|e| DapError::Invalid(format!("`{reference}`: {e}")))?;
        let engine = self.engine()?;
        let base =
            m.addr
                .expr
                .eval(
                    engine.machine(),
                    engine.selected_wave,
                    Some(engine.selected_lane),
                )
                .map_err(|e| DapError::Invalid(format!("`{reference}`: {e}")))? as u64;
        let space = m.space;
        Ok((space, base.wrapping_add_signed(offset.unwrap_or(0))))
    }

    pub(crate) fn disassemble(&mut self, args: DisassembleArguments) -> Result<Reply, DapError> {
        // The protocol wants exactly the count asked for: a count this adapter will not
        // list is refused, not cut short.
        let count = args.instruction_count;
        if count < 0 {
            return Err(DapError::Invalid(format!(
                "instructionCount {count} is negative"
            )));
        }
        if count > MAX_INSTRUCTIONS {
            return Err(DapError::Invalid(format!(
                "instructionCount {count} is over the {MAX_INSTRUCTIONS} instructions one \
                 disassemble lists: ask for them in several requests"
            )));
        }
        let (_, base) = self.resolve(&args.memory_reference, args.offset)?;
        let source = self.kernel_source();
        let (line_base, column_base) = (self.line_base, self.column_base);
        let engine = self.engine()?;
        let places = crate::places::Places::new(engine, source);
        let m = engine.machine();
        let slots = Slots::new(m);
        let anchor = slots.index_of(base);
        let first = i128::from(anchor) + i128::from(args.instruction_offset.unwrap_or(0));
        let instructions = (0..count)
            .map(|k| {
                let a = slots.address(first + i128::from(k));
                if a >= slots.end {
                    return DisassembledInstruction {
                        address: format!("{a:#x}"),
                        instruction_bytes: None,
                        instruction: "(outside the code)".into(),
                        symbol: None,
                        location: None,
                        line: None,
                        column: None,
                        presentation_hint: Some("invalid".into()),
                    };
                }
                let symbol = m
                    .program()
                    .labels
                    .iter()
                    .find(|(_, x)| **x == a)
                    .map(|(n, _)| n.clone());
                let place = places.at(engine, a);
                let place = place.as_ref();
                let words = match m.code().get((a / 4) as usize) {
                    Some(CodeWord::Instr(d)) => usize::from(d.len / 4),
                    _ => 1,
                };
                let bytes: Vec<String> = (0..words)
                    .filter_map(|k| m.program().code.get((a / 4) as usize + k))
                    .map(|w| format!("{w:08x}"))
                    .collect();
                DisassembledInstruction {
                    address: format!("{a:#x}"),
                    instruction_bytes: Some(bytes.join(" ")),
                    instruction: view::instr_text(m, a),
                    symbol,
                    location: place.and_then(|p| p.source.clone()),
                    line: place.map(|p| i64::from(p.line) - 1 + line_base),
                    column: place.map(|p| crate::places::client_column(p.column, column_base)),
                    presentation_hint: None,
                }
            })
            .collect();
        Reply::body(DisassembleBody { instructions })
    }

    pub(crate) fn read_memory(&mut self, args: ReadMemoryArguments) -> Result<Reply, DapError> {
        let (space, addr) = self.resolve(&args.memory_reference, args.offset)?;
        let count = u64::try_from(args.count).unwrap_or(0).min(MAX_READ);
        let engine = self.engine()?;
        let (w, lane) = (engine.selected_wave, engine.selected_lane);
        let mut data = vec![0u8; count as usize];
        let readable = readable_prefix(engine.machine(), space, (w, lane), addr, &mut data);
        data.truncate(readable as usize);
        Reply::body(ReadMemoryBody {
            address: format!("{addr:#x}"),
            unreadable_bytes: (count - readable) as i64,
            data: base64::engine::general_purpose::STANDARD.encode(&data),
        })
    }

    pub(crate) fn write_memory(&mut self, args: WriteMemoryArguments) -> Result<Reply, DapError> {
        let (space, addr) = self.resolve(&args.memory_reference, args.offset)?;
        let data = base64::engine::general_purpose::STANDARD
            .decode(args.data.trim())
            .map_err(|e| DapError::Invalid(format!("data is not base64: {e}")))?;
        let engine = self.engine()?;
        let (w, lane) = (engine.selected_wave, engine.selected_lane);
        let whole = engine.write_memory(space, w, lane, addr, &data);
        let written = match whole {
            Ok(()) => data.len(),
            Err(e) if !args.allow_partial => return Err(e.into()),
            Err(e) => {
                // As far as memory goes (what can be read there can be written).
                let mut probe = vec![0u8; data.len()];
                let n = readable_prefix(engine.machine(), space, (w, lane), addr, &mut probe);
                if n == 0 {
                    return Err(e.into());
                }
                engine.write_memory(space, w, lane, addr, &data[..n as usize])?;
                n as usize
            }
        };
        Reply::body(WriteMemoryBody {
            offset: args.allow_partial.then(|| args.offset.unwrap_or(0)),
            bytes_written: written as i64,
        })
    }
}
