//! The address windows gdb and lldb see, and bounded, checked reads and writes in them.
//!
//! The kernel has three memory spaces (docs/memory.md) but a debugger has one address
//! space, so the server maps them into windows. Every address says by itself which memory
//! it means: no packet depends on a selected thread or lane (lldb's memory packets name no
//! thread, and gdb removes and reinserts its watchpoints around every resumption, from
//! whichever thread is current then).
//!
//! | window  | addresses | contents |
//! |---------|-----------|----------|
//! | code    | `0` ... code size | the kernel's instruction words, read-only |
//! | global  | each buffer at its own address (from `0x1_0000_0000`) | global memory |
//! | shared  | [`SHARED_BASE`] + (W << 20) + offset | the shared memory of workgroup W |
//! | scratch | [`SCRATCH_BASE`] + (V << 21) + (L << 16) + offset | the scratch of lane L of wave V |
//! | wave    | [`WAVE_BASE`] + (V << 28) + (L << 23) + part + offset | wave V's registers, shared memory and scratch, lane L selected ([`Part`]) |
//!
//! The wave windows exist for the symbol file's variables: each thread's `rbx` reads as
//! the base of its wave's window with the selected lane ([`Window::wave_base`]), a
//! register x86-64 DWARF numbers reach (3) and the server can vary per thread, and a
//! variable's location is `DW_OP_breg3 part+offset`, so gdb (whose x86 architecture maps
//! no DWARF number to the wave's own registers) and lldb read it as memory. The lane is
//! in the address, not taken from the engine when the memory is read, so a client's
//! memory cache never holds another lane's value: selecting a lane changes `rbx`. Its
//! parts, at offsets in the window:
//!
//! | offset      | part | contents |
//! |-------------|------|----------|
//! | `0x0`       | vector      | v0-v127, each 32 lanes x 4 bytes |
//! | `0x4000`    | lane vector | lane L's value of v0-v127 (4 bytes each, as `lvN`) |
//! | `0x4200`    | uniform     | u0-u63 (4 bytes each) |
//! | `0x10_0000` | shared      | the shared memory of the wave's workgroup |
//! | `0x20_0000` | scratch     | lane L's scratch at + (L << 16) |
//! | `0x40_0000` | lane scratch | lane L's scratch |
//! | `0x60_0000` | scratch words | the lanes' scratch word by word: word k of lane l at + 128 k + 4 l |
//!
//! The field widths follow the machine's limits: shared memory is at most 1 MiB per
//! workgroup (20 bits), scratch at most 64 KiB per lane (16 bits), 32 lanes (5 bits), and
//! workgroup and wave ids are 32-bit, so every window fits below 2^63 + 2^53 and the two
//! regions never overlap each other or global memory (at most 16 GiB from 4 GiB); the
//! wave windows lie between them (below 2^63 + 2^61 + 2^60).
//! V is the global wave id (`workgroup * waves_per_workgroup + index`), not the gdb thread.
//!
//! Only resident memory can be read or written: a workgroup not dispatched yet has no
//! shared memory, a wave not resident has no scratch, and such accesses fail with a message.
//! Only memory that exists reads: a read that starts at or past the end of a buffer, the
//! code or a window fails, and one that starts inside and runs past the end is short (the
//! protocol's partial read: gdb shows what it got and `Cannot access memory` for the rest).
//! lldb reads memory in 512-byte lines and mishandles a short one (lldb 14 shows the bytes
//! it did not get as `0xdd` and miscounts its cache), so for lldb a read is padded with
//! zeros up to the next multiple of [`GRANULE`] past the real end instead, and is short
//! there when it runs further ([`Tail`]; the session picks it from the client's
//! handshake). Writes must lie inside the real memory
//! and succeed whole or fail whole. Reads look at the machine; writes go through the
//! engine (`Engine::write_memory`), as every front end's do.

use wavedbg_emulator::debug::Engine;
use wavedbg_emulator::debug::RegisterWrite;
use wavedbg_emulator::machine::wave::{LANES, UREGS, VREGS};
use wavedbg_emulator::machine::{CodeWord, Machine};
use wavedbg_emulator::memory::Space;

use crate::codes::{self, EFAULT, EINVAL, EROFS};

/// First address of the shared-memory windows (workgroup 0).
pub const SHARED_BASE: u64 = 0x8000_0000_0000_0000;
/// Bits of the offset in one workgroup's shared window (shared memory is at most 1 MiB).
pub const SHARED_OFFSET_BITS: u32 = 20;
/// First address of the scratch windows (wave 0, lane 0).
pub const SCRATCH_BASE: u64 = 0xc000_0000_0000_0000;
/// Bits of the offset in one lane's scratch window (scratch is at most 64 KiB a lane).
pub const SCRATCH_OFFSET_BITS: u32 = 16;
/// Where the wave id starts in a scratch address: above the offset and 5 bits of lane.
pub const SCRATCH_WAVE_SHIFT: u32 = SCRATCH_OFFSET_BITS + 5;
/// First address of the wave windows (wave 0's), between the shared and scratch windows.
pub const WAVE_BASE: u64 = 0xa000_0000_0000_0000;
/// Where the lane starts in a wave window address: each window spans 8 MiB.
pub const WAVE_LANE_SHIFT: u32 = 23;
/// Where the wave id starts in a wave window address: above 5 bits of lane.
pub const WAVE_SHIFT: u32 = WAVE_LANE_SHIFT + 5;
/// Offset of the vector registers in a wave window.
pub const WAVE_VECTOR: u64 = 0;
/// Offset of the window's lane's values of the vector registers.
pub const WAVE_LANE_VECTOR: u64 = 0x4000;
/// Offset of the uniform registers.
pub const WAVE_UNIFORM: u64 = 0x4200;
/// Offset of the wave's workgroup's shared memory.
pub const WAVE_SHARED: u64 = 1 << 20;
/// Offset of the wave's lanes' scratch (lane L at + (L << [`SCRATCH_OFFSET_BITS`])).
pub const WAVE_SCRATCH: u64 = 2 << 20;
/// Offset of the window's lane's scratch.
pub const WAVE_LANE_SCRATCH: u64 = 4 << 20;
/// Offset of the lanes' scratch word by word ([`Part::ScratchWords`]).
pub const WAVE_SCRATCH_WORDS: u64 = 6 << 20;
/// Windows are readable in multiples of this many bytes.
pub const GRANULE: u64 = 512;
/// The most bytes one memory packet may read or write.
pub const MAX_ACCESS: u64 = 64 * 1024;
/// The most bytes one `m`/`x` packet may read: the reply fits one packet
/// ([`crate::conn::MAX_PACKET`] bytes of hex), so gdbstub reads it in one piece.
pub const MAX_READ: u64 = 16 * 1024;

/// Where an address points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// The code, at this byte offset.
    Code(u64),
    /// Global memory (the address itself).
    Global(u64),
    /// The shared memory of a workgroup.
    Shared {
        /// Workgroup id, 0 to 2^32 - 1 (it may be outside the grid).
        workgroup: u32,
        /// Offset in its shared memory.
        offset: u64,
    },
    /// The scratch of one lane of one wave.
    Scratch {
        /// Global wave id (`workgroup * waves_per_workgroup + index`), not the gdb thread id.
        wave: u32,
        /// Lane (0-31).
        lane: u8,
        /// Offset in the lane's scratch.
        offset: u64,
    },
    /// A part of one wave's window.
    Wave {
        /// Global wave id.
        wave: u32,
        /// The lane of the lane parts (0-31).
        lane: u8,
        /// Which part.
        part: Part,
        /// Offset in the part.
        offset: u64,
    },
    /// Above the global space but in no window (an id wider than 32 bits).
    Invalid,
}

/// A part of a wave window (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// v0-v127, all lanes.
    Vector,
    /// The window's lane's value of v0-v127.
    LaneVector,
    /// u0-u63.
    Uniform,
    /// The shared memory of the wave's workgroup.
    Shared,
    /// The scratch of one lane.
    Scratch(u8),
    /// The window's lane's scratch.
    LaneScratch,
    /// The 32 lanes' scratch word by word: the 4-byte word at scratch offset 4k of lane l
    /// is at 128k + 4l, so a 32-bit scratch variable's lanes are one 128-byte array (a
    /// 64-bit one's two halves two arrays), which gdb prints whole (its `max-value-size`
    /// is 64 KiB; the 32 lane windows of [`Part::Scratch`] are 2 MiB). Whole words only.
    ScratchWords,
}

impl Part {
    /// The part at `offset` of a wave window and the offset in it (`None`: a gap).
    fn at(offset: u64) -> Option<(Part, u64)> {
        let vector_end = WAVE_VECTOR + (VREGS * LANES * 4) as u64;
        let lane_end = WAVE_LANE_VECTOR + (VREGS * 4) as u64;
        let uniform_end = WAVE_UNIFORM + (UREGS * 4) as u64;
        let span = 1u64 << SCRATCH_OFFSET_BITS;
        Some(match offset {
            o if o < vector_end => (Part::Vector, o - WAVE_VECTOR),
            o if (WAVE_LANE_VECTOR..lane_end).contains(&o) => {
                (Part::LaneVector, o - WAVE_LANE_VECTOR)
            }
            o if (WAVE_UNIFORM..uniform_end).contains(&o) => (Part::Uniform, o - WAVE_UNIFORM),
            o if (WAVE_SHARED..WAVE_SHARED + (1 << SHARED_OFFSET_BITS)).contains(&o) => {
                (Part::Shared, o - WAVE_SHARED)
            }
            o if (WAVE_SCRATCH..WAVE_SCRATCH + 32 * span).contains(&o) => {
                let rel = o - WAVE_SCRATCH;
                (Part::Scratch((rel / span) as u8), rel % span)
            }
            o if (WAVE_LANE_SCRATCH..WAVE_LANE_SCRATCH + span).contains(&o) => {
                (Part::LaneScratch, o - WAVE_LANE_SCRATCH)
            }
            o if (WAVE_SCRATCH_WORDS..WAVE_SCRATCH_WORDS + 32 * span).contains(&o) => {
                (Part::ScratchWords, o - WAVE_SCRATCH_WORDS)
            }
            _ => return None,
        })
    }

    /// Bytes of the registers in a register part (`None` for a memory part).
    fn register_bytes(self) -> Option<u64> {
        match self {
            Part::Vector => Some((VREGS * LANES * 4) as u64),
            Part::LaneVector => Some((VREGS * 4) as u64),
            Part::Uniform => Some((UREGS * 4) as u64),
            Part::Shared | Part::Scratch(_) | Part::LaneScratch | Part::ScratchWords => None,
        }
    }

    /// Where byte `offset` of [`Part::ScratchWords`] is: the lane and the offset in its
    /// scratch.
    pub(crate) fn scratch_word(offset: u64) -> (u8, u64) {
        let lane = ((offset / 4) % LANES as u64) as u8;
        (lane, (offset / (4 * LANES as u64)) * 4 + offset % 4)
    }

    fn describe(self) -> String {
        match self {
            Part::Vector => "vector registers".into(),
            Part::LaneVector => "lane's vector registers".into(),
            Part::Uniform => "uniform registers".into(),
            Part::Shared => "shared memory".into(),
            Part::Scratch(l) => format!("scratch of lane {l}"),
            Part::LaneScratch => "lane's scratch".into(),
            Part::ScratchWords => "scratch by word".into(),
        }
    }
}

impl Window {
    /// Classifies an address by its window; the window's memory may not exist now
    /// (see [`unreachable()`]).
    pub fn of(addr: u64) -> Window {
        if addr >= SCRATCH_BASE {
            let rel = addr - SCRATCH_BASE;
            match u32::try_from(rel >> SCRATCH_WAVE_SHIFT) {
                Ok(wave) => Window::Scratch {
                    wave,
                    lane: ((rel >> SCRATCH_OFFSET_BITS) & 31) as u8,
                    offset: rel & ((1 << SCRATCH_OFFSET_BITS) - 1),
                },
                Err(_) => Window::Invalid,
            }
        } else if addr >= WAVE_BASE {
            let rel = addr - WAVE_BASE;
            let part = Part::at(rel & ((1 << WAVE_LANE_SHIFT) - 1));
            let lane = ((rel >> WAVE_LANE_SHIFT) & 31) as u8;
            match (u32::try_from(rel >> WAVE_SHIFT), part) {
                (Ok(wave), Some((part, offset))) => Window::Wave {
                    wave,
                    lane,
                    part,
                    offset,
                },
                _ => Window::Invalid,
            }
        } else if addr >= SHARED_BASE {
            let rel = addr - SHARED_BASE;
            match u32::try_from(rel >> SHARED_OFFSET_BITS) {
                Ok(workgroup) => Window::Shared {
                    workgroup,
                    offset: rel & ((1 << SHARED_OFFSET_BITS) - 1),
                },
                Err(_) => Window::Invalid,
            }
        } else if addr < wavedbg_emulator::memory::GLOBAL_BASE {
            Window::Code(addr)
        } else {
            Window::Global(addr)
        }
    }

    /// The address of `offset` in the shared memory of `workgroup`.
    pub fn shared_addr(workgroup: u32, offset: u64) -> u64 {
        SHARED_BASE + ((workgroup as u64) << SHARED_OFFSET_BITS) + offset
    }

    /// The address of `offset` in the scratch of lane `lane` of wave `wave` (global id).
    pub fn scratch_addr(wave: u32, lane: u8, offset: u64) -> u64 {
        SCRATCH_BASE
            + ((wave as u64) << SCRATCH_WAVE_SHIFT)
            + (((lane & 31) as u64) << SCRATCH_OFFSET_BITS)
            + offset
    }

    /// The base of wave `wave`'s (global id) window with lane `lane`: what its thread's
    /// `rbx` reads while `lane` is selected.
    pub fn wave_base(wave: u32, lane: u8) -> u64 {
        WAVE_BASE + ((wave as u64) << WAVE_SHIFT) + (((lane & 31) as u64) << WAVE_LANE_SHIFT)
    }

    /// The memory space, and the address in it the engine uses (global address, or offset
    /// in the shared memory or the lane's scratch).
    pub fn space(self) -> Option<(Space, u64)> {
        match self {
            Window::Code(_) | Window::Invalid => None,
            Window::Wave { part, offset, .. } => match part {
                Part::Shared => Some((Space::Shared, offset)),
                Part::Scratch(_) | Part::LaneScratch => Some((Space::Scratch, offset)),
                // (The offset of the first byte; an access spans lanes: [`read`], [`write`].)
                Part::ScratchWords => Some((Space::Scratch, Part::scratch_word(offset).1)),
                Part::Vector | Part::LaneVector | Part::Uniform => None,
            },
            Window::Global(a) => Some((Space::Global, a)),
            Window::Shared { offset, .. } => Some((Space::Shared, offset)),
            Window::Scratch { offset, .. } => Some((Space::Scratch, offset)),
        }
    }

    /// The window in words: `shared:0x8 of workgroup 3`, `global:0x100000004`.
    pub fn describe(self) -> String {
        match self {
            Window::Code(o) => format!("code:{o:#x}"),
            Window::Global(a) => format!("global:{a:#x}"),
            Window::Shared { workgroup, offset } => {
                format!("shared:{offset:#x} of workgroup {workgroup}")
            }
            Window::Scratch { wave, lane, offset } => {
                format!("scratch:{offset:#x} of wave {wave} lane {lane}")
            }
            Window::Wave {
                wave,
                lane,
                part,
                offset,
            } => {
                format!(
                    "{}:{offset:#x} of wave {wave} (lane {lane})",
                    part.describe()
                )
            }
            Window::Invalid => "no window".into(),
        }
    }
}

/// The address a fault names, as the client reads memory: a global address as it is, a
/// shared offset in the faulting workgroup's window, a scratch offset in the window of the
/// first faulting lane of the wave. `None` for a fault without an address, or an offset
/// past its window's addresses (which would name another workgroup's or lane's).
pub fn fault_addr(f: &wavedbg_emulator::fault::Fault) -> Option<u64> {
    use wavedbg_emulator::fault::FaultKind;
    let a = f.addr?;
    let space = match f.kind {
        FaultKind::Misaligned { space, .. } | FaultKind::OutOfWindow { space, .. } => space,
        FaultKind::Unmapped => Space::Global,
        _ => return None,
    };
    match space {
        Space::Global => Some(a),
        Space::Shared => (a < 1 << SHARED_OFFSET_BITS).then(|| Window::shared_addr(f.workgroup, a)),
        Space::Scratch => (a < 1 << SCRATCH_OFFSET_BITS)
            .then(|| Window::scratch_addr(f.wave, (f.lanes.trailing_zeros() & 31) as u8, a)),
    }
}

/// The line a fault's stop adds for the client (gdb has no `$_siginfo` from this server):
/// the faulting address as the client reads memory, and where it is.
pub fn fault_addr_line(f: &wavedbg_emulator::fault::Fault) -> Option<String> {
    let a = fault_addr(f)?;
    Some(format!(
        "Fault address: {a:#x} ({}; `monitor why` shows it again)\n",
        Window::of(a).describe()
    ))
}

/// Whether a workgroup's shared memory exists now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Residency {
    /// Resident (or finished in a slot not reused yet): a wave index of it.
    Resident(usize),
    /// Not dispatched yet: in the grid, waiting for a free slot.
    Pending,
    /// Finished, and its slot holds another workgroup.
    Gone,
    /// At or beyond the grid size: no such workgroup.
    Outside,
}

/// Where workgroup `wg` is.
pub fn workgroup(m: &Machine, wg: u32) -> Residency {
    if let Some(i) = m.waves.iter().position(|w| w.workgroup == wg) {
        return Residency::Resident(i);
    }
    let grid = m.launch().grid;
    if wg >= grid {
        Residency::Outside
    } else if wg >= grid - m.workgroups_pending() {
        Residency::Pending
    } else {
        Residency::Gone
    }
}

/// Why the memory of a window cannot be reached now (`None`: it can).
pub fn unreachable(m: &Machine, w: Window) -> Option<String> {
    match w {
        Window::Shared { workgroup: wg, .. } => match workgroup(m, wg) {
            Residency::Resident(_) => None,
            Residency::Pending => Some(format!("workgroup {wg} is not resident yet")),
            Residency::Gone => Some(format!("workgroup {wg} has finished")),
            Residency::Outside => Some(format!(
                "no workgroup {wg} (the grid has {})",
                m.launch().grid
            )),
        },
        Window::Scratch { wave, .. } | Window::Wave { wave, .. } => m
            .wave_index(wave)
            .is_none()
            .then(|| format!("wave {wave} is not resident")),
        Window::Invalid => Some("the address is in no window".into()),
        Window::Code(_) | Window::Global(_) => None,
    }
}

/// Why an access failed; `errno` is what the client sees (`Exx`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessError {
    /// Why, in a sentence for the client's console (e.g. `workgroup 3 has finished`).
    pub message: String,
    /// The errno for the reply.
    pub errno: u8,
}

fn fail(errno: u8, message: String) -> AccessError {
    AccessError { message, errno }
}

fn padded(len: u64) -> u64 {
    len.div_ceil(GRANULE).saturating_mul(GRANULE)
}

/// The memory behind a window: the wave index to read it as, the lane, the real size and
/// the offset of the address in it.
struct Place {
    wave: usize,
    lane: u8,
    size: u64,
    offset: u64,
}

/// Locates `addr` (in window `w`): the wave, lane and size of the memory it is in.
fn locate(m: &Machine, addr: u64, w: Window) -> Result<Place, AccessError> {
    let unmapped = || fail(EFAULT, format!("{addr:#x} is not mapped"));
    let place = |wave, lane, size, offset| Place {
        wave,
        lane,
        size,
        offset,
    };
    match w {
        Window::Code(o) => Ok(place(0, 0, m.program().code.len() as u64 * 4, o)),
        Window::Global(a) => m
            .global
            .allocations()
            .iter()
            .rev()
            .find(|x| x.base <= a)
            .map(|x| place(0, 0, x.data.len(), a - x.base))
            .ok_or_else(unmapped),
        Window::Shared {
            workgroup: wg,
            offset,
        } => match workgroup(m, wg) {
            Residency::Resident(i) => Ok(place(i, 0, m.slots[m.slot_of(i)].shared.len(), offset)),
            _ => Err(fail(
                EFAULT,
                unreachable(m, w).unwrap_or_else(|| format!("{addr:#x} is not mapped")),
            )),
        },
        Window::Scratch { wave, lane, offset } => match m.wave_index(wave) {
            Some(i) => Ok(place(i, lane, m.launch().scratch_bytes as u64, offset)),
            None => Err(fail(EFAULT, format!("wave {wave} is not resident"))),
        },
        Window::Wave {
            wave,
            lane,
            part,
            offset,
        } => {
            let Some(i) = m.wave_index(wave) else {
                return Err(fail(EFAULT, format!("wave {wave} is not resident")));
            };
            let scratch = m.launch().scratch_bytes as u64;
            Ok(match part {
                Part::Shared => place(i, 0, m.slots[m.slot_of(i)].shared.len(), offset),
                Part::Scratch(lane) => place(i, lane, scratch, offset),
                Part::LaneScratch => place(i, lane, scratch, offset),
                Part::ScratchWords => place(i, lane, scratch / 4 * 4 * LANES as u64, offset),
                Part::Vector | Part::LaneVector | Part::Uniform => {
                    place(i, lane, part.register_bytes().unwrap_or(0), offset)
                }
            })
        }
        Window::Invalid => Err(unmapped()),
    }
}

/// The bytes of a register part of wave `wave` (index), lane `lane`'s for
/// [`Part::LaneVector`].
fn register_bytes(m: &Machine, wave: usize, lane: u8, part: Part) -> Vec<u8> {
    let Some(w) = m.waves.get(wave) else {
        return Vec::new();
    };
    let lane = usize::from(lane) % LANES;
    let words: Vec<u32> = match part {
        Part::Vector => w.v.iter().flatten().copied().collect(),
        Part::LaneVector => w.v.iter().map(|r| r[lane]).collect(),
        Part::Uniform => w.u.to_vec(),
        Part::Shared | Part::Scratch(_) | Part::LaneScratch | Part::ScratchWords => Vec::new(),
    };
    words.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Why `addr` (in window `w`, `p` its place) is past the memory there: what ends where.
fn past_end(m: &Machine, addr: u64, w: Window, p: &Place) -> AccessError {
    let what = match w {
        Window::Code(_) => format!("the code ({} bytes)", p.size),
        Window::Global(_) => {
            let base = addr - p.offset;
            let name = m
                .global
                .allocations()
                .iter()
                .find(|x| x.base == base)
                .map_or("?", |x| x.name.as_str());
            format!("buffer `{name}` ({base:#x}..{:#x})", base + p.size)
        }
        Window::Shared { workgroup, .. } => {
            format!(
                "the shared memory of workgroup {workgroup} ({} bytes)",
                p.size
            )
        }
        Window::Scratch { wave, lane, .. } => {
            format!("the scratch of wave {wave} lane {lane} ({} bytes)", p.size)
        }
        Window::Wave {
            wave, lane, part, ..
        } => {
            format!(
                "the {} of wave {wave} (lane {lane}) ({} bytes)",
                part.describe(),
                p.size
            )
        }
        Window::Invalid => "no window".into(),
    };
    fail(EFAULT, format!("{addr:#x} is past the end of {what}"))
}

/// Checks the size of an access of `n` bytes at `addr`: its window, or `None` when it is
/// empty (nothing to do).
fn sized(addr: u64, n: u64, verb: &str) -> Result<Option<Window>, AccessError> {
    if n > MAX_ACCESS {
        return Err(fail(EINVAL, format!("{verb} of {n} bytes is too large")));
    }
    Ok((n > 0).then(|| Window::of(addr)))
}

/// How a read that runs past the end of its window is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tail {
    /// With the bytes that exist only (a short read), as the protocol allows: gdb shows
    /// them and says `Cannot access memory` for the rest.
    Short,
    /// Padded with zeros to the end of the read, if that lies within the [`GRANULE`]
    /// after the real end (for a client that reads whole 512-byte lines).
    Padded,
}

/// Reads up to `out.len()` bytes at `addr`; returns how many were read. A read that starts
/// at or past the end of the memory there fails; one that starts inside and runs past the
/// end reads up to the end (`Tail::Short`) or is padded with zeros (`Tail::Padded`).
pub fn read(m: &Machine, addr: u64, out: &mut [u8], tail: Tail) -> Result<usize, AccessError> {
    let n = out.len() as u64;
    let Some(w) = sized(addr, n, "read")? else {
        return Ok(0);
    };
    let p = locate(m, addr, w)?;
    if p.offset >= p.size {
        return Err(past_end(m, addr, w, &p));
    }
    let real = (p.size - p.offset).min(n) as usize;
    let len = match tail {
        Tail::Short => real,
        // Up to the padded end: a read past it is short there (the protocol's partial
        // read), which lldb takes for a read larger than its 512-byte lines.
        Tail::Padded => {
            let len = (padded(p.size) - p.offset).min(n) as usize;
            out[..len].fill(0);
            len
        }
    };
    let part = &mut out[..real];
    match w {
        Window::Code(o) => {
            let code = &m.program().code;
            for (i, b) in part.iter_mut().enumerate() {
                let at = o as usize + i;
                *b = code.get(at / 4).map_or(0, |w| w.to_le_bytes()[at % 4]);
            }
        }
        Window::Wave {
            part: which @ (Part::Vector | Part::LaneVector | Part::Uniform),
            offset,
            ..
        } => {
            let bytes = register_bytes(m, p.wave, p.lane, which);
            let at = offset as usize;
            let src = bytes
                .get(at..at + part.len())
                .ok_or_else(|| fail(EFAULT, "no such register".into()))?;
            part.copy_from_slice(src);
        }
        Window::Wave {
            part: Part::ScratchWords,
            offset,
            ..
        } => {
            for (k, piece) in scratch_pieces(offset, part.len()) {
                let (lane, at) = Part::scratch_word(offset + k as u64);
                m.read_space(Space::Scratch, p.wave, lane, at, &mut part[k..k + piece])
                    .map_err(|e| fail(EFAULT, e.to_string()))?;
            }
        }
        _ => {
            let (space, a) = w.space().ok_or_else(|| fail(EFAULT, "no space".into()))?;
            m.read_space(space, p.wave, p.lane, a, part)
                .map_err(|e| fail(EFAULT, e.to_string()))?;
        }
    }
    Ok(len)
}

/// Writes `data` at `addr` as [`read`] reads it, through the engine; the code is read-only
/// and the padding past a window's end cannot be written. Registers in a wave window are
/// written in whole, aligned 4-byte words.
pub fn write(e: &mut Engine, addr: u64, data: &[u8]) -> Result<(), AccessError> {
    let Some(w) = sized(addr, data.len() as u64, "write")? else {
        return Ok(());
    };
    if let Window::Code(_) = w {
        return Err(fail(EROFS, "the code is read-only".into()));
    }
    let p = locate(e.machine(), addr, w)?;
    if let Window::Wave { part, offset, .. } = w {
        if part.register_bytes().is_some() {
            return write_registers(e, &p, part, offset, data, addr);
        }
        if part == Part::ScratchWords {
            if offset + data.len() as u64 > p.size {
                return Err(past_end(e.machine(), p.size + (addr - offset), w, &p));
            }
            for (k, piece) in scratch_pieces(offset, data.len()) {
                let (lane, at) = Part::scratch_word(offset + k as u64);
                e.write_memory(Space::Scratch, p.wave, lane, at, &data[k..k + piece])
                    .map_err(|err| fail(codes::errno(&err), err.to_string()))?;
            }
            return Ok(());
        }
    }
    let (space, a) = w.space().ok_or_else(|| fail(EFAULT, "no space".into()))?;
    e.write_memory(space, p.wave, p.lane, a, data)
        .map_err(|err| fail(codes::errno(&err), err.to_string()))
}

/// The pieces of an access of `len` bytes at `offset` in [`Part::ScratchWords`] that lie
/// in one lane's word each: (index in the access, length).
fn scratch_pieces(offset: u64, len: usize) -> impl Iterator<Item = (usize, usize)> {
    let mut k = 0;
    std::iter::from_fn(move || {
        (k < len).then(|| {
            let at = offset + k as u64;
            let piece = (4 - (at % 4) as usize).min(len - k);
            k += piece;
            (k - piece, piece)
        })
    })
}

/// Writes whole words of a register part of a wave window (at `offset` in it, `p` its
/// place) through the engine, each word one register (or one lane of one).
fn write_registers(
    e: &mut Engine,
    p: &Place,
    part: Part,
    offset: u64,
    data: &[u8],
    addr: u64,
) -> Result<(), AccessError> {
    if !offset.is_multiple_of(4) || !data.len().is_multiple_of(4) {
        return Err(fail(
            EINVAL,
            format!("{addr:#x}: registers are written in whole, aligned 4-byte words"),
        ));
    }
    if offset + data.len() as u64 > p.size {
        return Err(fail(
            EFAULT,
            format!("{addr:#x}: the write runs past the {}", part.describe()),
        ));
    }
    for (k, word) in data.chunks_exact(4).enumerate() {
        let value = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
        let index = offset / 4 + k as u64;
        let write = match part {
            Part::Vector => RegisterWrite::VLane {
                reg: (index / LANES as u64) as u8,
                lane: (index % LANES as u64) as u8,
                value,
            },
            Part::LaneVector => RegisterWrite::VLane {
                reg: index as u8,
                lane: p.lane,
                value,
            },
            _ => RegisterWrite::U {
                reg: index as u8,
                value,
            },
        };
        e.write_register(p.wave, write)
            .map_err(|err| fail(codes::errno(&err), err.to_string()))?;
    }
    Ok(())
}

/// Whether an instruction starts at `pc` (for breakpoints and PC writes).
pub fn is_instruction(m: &Machine, pc: u64) -> bool {
    pc.is_multiple_of(4) && matches!(m.code().get((pc / 4) as usize), Some(CodeWord::Instr(_)))
}

/// A description of the windows for `monitor windows`, with the addresses of wave `wave`'s
/// (index) workgroup and scratch.
pub fn describe(m: &Machine, wave: Option<usize>) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "code:    {:#x}..{:#x} (read-only instruction words)",
        0,
        m.program().code.len() * 4
    );
    for a in m.global.allocations() {
        let _ = writeln!(
            s,
            "global:  {:#x}..{:#x} buffer `{}` ({} byte{})",
            a.base,
            a.base + a.data.len(),
            a.name,
            a.data.len(),
            if a.data.len() == 1 { "" } else { "s" }
        );
    }
    let shared = m.launch().shared_bytes;
    let scratch = m.launch().scratch_bytes;
    let _ = writeln!(
        s,
        "shared:  {SHARED_BASE:#x} + (W << {SHARED_OFFSET_BITS}) + offset: workgroup W ({shared} bytes each)"
    );
    let _ = writeln!(
        s,
        "scratch: {SCRATCH_BASE:#x} + (V << {SCRATCH_WAVE_SHIFT}) + (L << {SCRATCH_OFFSET_BITS}) + offset: lane L of wave V ({scratch} bytes each)"
    );
    if let Some(wv) = wave.and_then(|i| m.waves.get(i)) {
        let sh = Window::shared_addr(wv.workgroup, 0);
        let sc = Window::scratch_addr(wv.id, 0, 0);
        let _ = writeln!(
            s,
            "wave {} (workgroup {}):\n  shared:  {sh:#x}..{:#x}\n  scratch: {sc:#x}..{:#x} (lane 0; lane L at + (L << {SCRATCH_OFFSET_BITS}))",
            wv.id,
            wv.workgroup,
            sh + shared as u64,
            sc + scratch as u64,
        );
    }
    let _ = writeln!(
        s,
        "(only these bytes read: a read past an end fails, but lldb's {GRANULE}-byte lines read 0 there)"
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fault's address as the client reads memory: global as it is, shared in the
    /// faulting workgroup's window, scratch in the first faulting lane's; none for a fault
    /// without an address or an offset past the window's addresses.
    #[test]
    fn fault_addresses_are_the_clients() {
        use wavedbg_emulator::fault::{Fault, FaultKind};
        let fault = |kind, addr, lanes| Fault {
            kind,
            wave: 5,
            workgroup: 2,
            lanes,
            pc: 0xc,
            addr,
            len: 4,
            instr: None,
        };
        let out = |space| FaultKind::OutOfWindow { space, size: 64 };
        let f = fault(out(Space::Shared), Some(0x40), 0xffff_0000);
        assert_eq!(fault_addr(&f), Some(Window::shared_addr(2, 0x40)));
        assert_eq!(
            fault_addr_line(&f).as_deref(),
            Some("Fault address: 0x8000000000200040 (shared:0x40 of workgroup 2; `monitor why` shows it again)\n")
        );
        let f = fault(out(Space::Scratch), Some(8), 0b1000);
        assert_eq!(fault_addr(&f), Some(Window::scratch_addr(5, 3, 8)));
        let f = fault(FaultKind::Unmapped, Some(0x1_0000_0040), 1);
        assert_eq!(fault_addr(&f), Some(0x1_0000_0040));
        let f = fault(
            FaultKind::Misaligned {
                space: Space::Shared,
                align: 4,
            },
            Some(2),
            1,
        );
        assert_eq!(fault_addr(&f), Some(Window::shared_addr(2, 2)));
        assert_eq!(
            fault_addr(&fault(out(Space::Shared), Some(1 << 20), 1)),
            None
        );
        assert_eq!(
            fault_addr(&fault(FaultKind::Trap { code: 1 }, None, 0)),
            None
        );
    }

    /// Three workgroups of two waves; `resident` of them at once.
    fn engine(resident: u32) -> Engine {
        let src = "\
.kernel t
.workgroup 64
.grid 3
.shared 16
.scratch 8
.buffer out, 40
.arg u[0:1], out
    end
";
        crate::testing::engine(src, resident)
    }

    #[test]
    fn windows_are_classified() {
        assert_eq!(Window::of(0x10), Window::Code(0x10));
        assert_eq!(Window::of(0x1_0000_0004), Window::Global(0x1_0000_0004));
        assert_eq!(
            Window::of(SHARED_BASE + 8),
            Window::Shared {
                workgroup: 0,
                offset: 8
            }
        );
        // Shared word 8 of workgroup 3 (docs/gdb.md).
        assert_eq!(Window::shared_addr(3, 4 * 8), 0x8000_0000_0030_0020);
        assert_eq!(
            Window::of(0x8000_0000_0030_0020),
            Window::Shared {
                workgroup: 3,
                offset: 0x20
            }
        );
        // Lane 5's scratch of wave 9 (docs/gdb.md).
        assert_eq!(Window::scratch_addr(9, 5, 0), 0xc000_0000_0125_0000);
        assert_eq!(
            Window::of(0xc000_0000_0125_0004),
            Window::Scratch {
                wave: 9,
                lane: 5,
                offset: 4
            }
        );
        // The largest ids still name windows; wider ones name none.
        let last = Window::shared_addr(u32::MAX, (1 << SHARED_OFFSET_BITS) - 1);
        assert!(last < SCRATCH_BASE);
        assert!(matches!(
            Window::of(last),
            Window::Shared {
                workgroup: u32::MAX,
                ..
            }
        ));
        assert_eq!(Window::of(last + 1), Window::Invalid);
        let last = Window::scratch_addr(u32::MAX, 31, (1 << SCRATCH_OFFSET_BITS) - 1);
        assert!(matches!(
            Window::of(last),
            Window::Scratch {
                wave: u32::MAX,
                lane: 31,
                ..
            }
        ));
        assert_eq!(Window::of(last + 1), Window::Invalid);
        assert_eq!(Window::of(u64::MAX), Window::Invalid);
    }

    #[test]
    fn only_memory_that_exists_reads() {
        let mut e = engine(2);
        write(&mut e, 0x1_0000_0000, &[1, 2, 3, 4]).expect("global write");
        let short = |addr, n: usize| {
            let mut b = vec![0xaa; n];
            read(e.machine(), addr, &mut b, Tail::Short).map(|k| b[..k].to_vec())
        };
        // `out` is 40 bytes: a read ending at its last byte is whole, one running past it
        // is short, one starting at its end fails with what ends there.
        assert_eq!(short(0x1_0000_0000, 40).map(|b| b.len()), Ok(40));
        assert_eq!(short(0x1_0000_0000, 5), Ok(vec![1, 2, 3, 4, 0]));
        assert_eq!(short(0x1_0000_0024, 512).map(|b| b.len()), Ok(4));
        assert_eq!(
            short(0x1_0000_0028, 4).map_err(|e| (e.errno, e.message)),
            Err((
                EFAULT,
                "0x100000028 is past the end of buffer `out` (0x100000000..0x100000028)".into()
            ))
        );
        assert!(short(0x1_0000_01fc, 4).is_err());
        // Unmapped global memory and oversized accesses fail.
        assert!(short(0x2_0000_0000, 8).is_err());
        assert_eq!(
            short(0x1_0000_0000, MAX_ACCESS as usize + 1).map_err(|e| e.errno),
            Err(EINVAL)
        );
        // The ends of the shared memory (16 bytes), a lane's scratch (8) and the code (4).
        assert_eq!(
            short(Window::shared_addr(1, 0), 512).map(|b| b.len()),
            Ok(16)
        );
        assert!(short(Window::shared_addr(1, 16), 4).is_err());
        assert_eq!(
            short(Window::scratch_addr(2, 31, 4), 512).map(|b| b.len()),
            Ok(4)
        );
        assert!(short(Window::scratch_addr(2, 31, 8), 1).is_err());
        assert_eq!(short(0, 512).map(|b| b.len()), Ok(4));
        assert_eq!(
            short(4, 4).map_err(|e| e.message),
            Err("0x4 is past the end of the code (4 bytes)".into())
        );
        // Padding cannot be written.
        assert!(write(&mut e, 0x1_0000_0000 + 40, &[1]).is_err());
    }

    /// For lldb, which reads whole 512-byte lines: padded with zeros to the line's end,
    /// never into the next window.
    #[test]
    fn lldb_reads_are_padded_to_512_bytes() {
        let mut e = engine(2);
        write(&mut e, 0x1_0000_0000, &[1, 2, 3, 4]).expect("global write");
        let mut b = [0xaa; 512];
        assert_eq!(
            read(e.machine(), 0x1_0000_0000, &mut b, Tail::Padded),
            Ok(512)
        );
        assert_eq!(&b[..5], &[1, 2, 3, 4, 0]);
        assert!(b[40..].iter().all(|&x| x == 0));
        // Past the padded end: short there (lldb shows what it got and says how much);
        // starting past the real end: the read fails.
        let mut c = [0xaa; 1000];
        assert_eq!(
            read(e.machine(), 0x1_0000_0000 + 36, &mut c, Tail::Padded),
            Ok(512 - 36)
        );
        assert!(c[..512 - 36].iter().all(|&x| x == 0));
        let mut big = [0xaa; 2100];
        assert_eq!(
            read(e.machine(), 0x1_0000_0000, &mut big, Tail::Padded),
            Ok(512)
        );
        assert_eq!(&big[..5], &[1, 2, 3, 4, 0]);
        assert!(read(e.machine(), 0x1_0000_0000 + 40, &mut c, Tail::Padded).is_err());
        let mut line = [0xaa; 512];
        assert_eq!(
            read(
                e.machine(),
                Window::shared_addr(1, 0),
                &mut line,
                Tail::Padded
            ),
            Ok(512)
        );
        assert!(line.iter().all(|&x| x == 0));
        assert!(read(
            e.machine(),
            Window::scratch_addr(2, 31, 0),
            &mut line,
            Tail::Padded
        )
        .is_ok());
        // Short at the padded end: the next window's bytes are never read.
        line.fill(0xaa);
        assert_eq!(
            read(
                e.machine(),
                Window::shared_addr(1, 0) + 8,
                &mut line,
                Tail::Padded
            ),
            Ok(504)
        );
        assert!(line[..504].iter().all(|&x| x == 0) && line[504..].iter().all(|&x| x == 0xaa));
    }

    #[test]
    fn the_address_names_the_workgroup_and_the_lane() {
        let mut e = engine(2);
        // Waves 0-1 are workgroup 0, waves 2-3 workgroup 1.
        write(&mut e, Window::shared_addr(1, 4), &[7]).expect("shared write");
        let mut b = [0u8; 1];
        read(e.machine(), Window::shared_addr(1, 4), &mut b, Tail::Short).expect("workgroup 1");
        assert_eq!(b, [7]);
        read(e.machine(), Window::shared_addr(0, 4), &mut b, Tail::Short).expect("workgroup 0");
        assert_eq!(b, [0]);
        let mut direct = [0u8; 1];
        e.machine()
            .read_space(Space::Shared, 2, 0, 4, &mut direct)
            .expect("engine view");
        assert_eq!(direct, [7]);
        write(&mut e, Window::scratch_addr(3, 5, 2), &[9]).expect("scratch write");
        read(
            e.machine(),
            Window::scratch_addr(3, 5, 2),
            &mut b,
            Tail::Short,
        )
        .expect("wave 3 lane 5");
        assert_eq!(b, [9]);
        read(
            e.machine(),
            Window::scratch_addr(3, 6, 2),
            &mut b,
            Tail::Short,
        )
        .expect("lane 6");
        assert_eq!(b, [0]);
        read(
            e.machine(),
            Window::scratch_addr(2, 5, 2),
            &mut b,
            Tail::Short,
        )
        .expect("wave 2");
        assert_eq!(b, [0]);
        e.machine()
            .read_space(Space::Scratch, 3, 5, 2, &mut direct)
            .expect("engine view");
        assert_eq!(direct, [9]);
        // Writes stay inside the real window.
        assert!(write(&mut e, Window::shared_addr(0, 16), &[1]).is_err());
        assert!(write(&mut e, Window::scratch_addr(0, 0, 8), &[1]).is_err());
    }

    #[test]
    fn memory_that_is_not_resident_is_an_error() {
        let e = engine(1);
        let m = e.machine();
        let mut b = [0u8; 4];
        let err = |addr| read(e.machine(), addr, &mut [0u8; 4], Tail::Short).map_err(|e| e.message);
        assert!(read(e.machine(), Window::shared_addr(0, 0), &mut b, Tail::Short).is_ok());
        assert_eq!(
            err(Window::shared_addr(1, 0)),
            Err("workgroup 1 is not resident yet".into())
        );
        assert_eq!(
            err(Window::shared_addr(7, 0)),
            Err("no workgroup 7 (the grid has 3)".into())
        );
        assert_eq!(
            err(Window::scratch_addr(2, 0, 0)),
            Err("wave 2 is not resident".into())
        );
        assert_eq!(workgroup(m, 0), Residency::Resident(0));
        assert_eq!(workgroup(m, 2), Residency::Pending);
        assert!(err(Window::shared_addr(u32::MAX, 0) + (1 << 20)).is_err());
    }

    /// The wave window's parts sit at their offsets (docs/gdb.md), between the shared and
    /// scratch windows; gaps and ids wider than 32 bits name none.
    #[test]
    fn wave_windows_are_classified() {
        assert_eq!(Window::wave_base(3, 0), 0xa000_0000_3000_0000);
        assert_eq!(Window::wave_base(3, 5), 0xa000_0000_3280_0000);
        let at = |lane, offset| Window::of(Window::wave_base(3, lane) + offset);
        let wave = |lane, part, offset| Window::Wave {
            wave: 3,
            lane,
            part,
            offset,
        };
        assert_eq!(at(0, 7 * 128 + 20), wave(0, Part::Vector, 7 * 128 + 20));
        assert_eq!(at(5, 0x4000 + 8), wave(5, Part::LaneVector, 8));
        assert_eq!(at(0, 0x4200 + 252), wave(0, Part::Uniform, 252));
        assert_eq!(at(0, 0x10_0010), wave(0, Part::Shared, 0x10));
        assert_eq!(
            at(0, 0x20_0000 + (5 << 16) + 4),
            wave(0, Part::Scratch(5), 4)
        );
        assert_eq!(at(31, 0x40_0004), wave(31, Part::LaneScratch, 4));
        assert_eq!(at(0, 0x60_0084), wave(0, Part::ScratchWords, 0x84));
        // Byte 0x84 of the scratch-by-word part: lane 1's word 1 (scratch offset 4).
        assert_eq!(Part::scratch_word(0x84), (1, 4));
        assert_eq!(Part::scratch_word(4 * 128 + 31 * 4 + 3), (31, 4 * 4 + 3));
        for gap in [0x4300, 0xf_ffff, 0x41_0000, 0x5f_ffff] {
            assert_eq!(at(0, gap), Window::Invalid, "{gap:#x}");
        }
        let last = Window::wave_base(u32::MAX, 31) + WAVE_LANE_SCRATCH;
        assert!(Window::shared_addr(u32::MAX, 1 << SHARED_OFFSET_BITS) <= WAVE_BASE);
        assert!(last < SCRATCH_BASE);
        assert!(matches!(
            Window::of(last),
            Window::Wave {
                wave: u32::MAX,
                lane: 31,
                ..
            }
        ));
        assert_eq!(Window::of(last + (8 << 20)), Window::Invalid);
    }

    /// A wave window reads the wave's registers (its lane's for the lane parts), its
    /// workgroup's shared memory and its lanes' scratch; register writes are whole words;
    /// past a part's end, and a wave not resident, fail.
    #[test]
    fn wave_windows_read_and_write_the_waves_state() {
        let mut e = engine(2);
        let base = Window::wave_base(3, 0);
        let lane9 = Window::wave_base(3, 9);
        let word = |e: &Engine, addr| {
            let mut b = [0u8; 4];
            read(e.machine(), addr, &mut b, Tail::Short).map(|_| u32::from_le_bytes(b))
        };
        write(&mut e, base + 5 * 128 + 4 * 9, &7u32.to_le_bytes()).expect("v5 lane 9");
        assert_eq!(e.machine().waves[3].v[5][9], 7);
        assert_eq!(word(&e, base + 5 * 128 + 4 * 9), Ok(7));
        assert_eq!(word(&e, lane9 + WAVE_LANE_VECTOR + 5 * 4), Ok(7));
        assert_eq!(word(&e, base + WAVE_LANE_VECTOR + 5 * 4), Ok(0));
        write(
            &mut e,
            lane9 + WAVE_LANE_VECTOR + 6 * 4,
            &8u32.to_le_bytes(),
        )
        .expect("lv6");
        assert_eq!(e.machine().waves[3].v[6][9], 8);
        write(
            &mut e,
            base + WAVE_UNIFORM + 4 * 12,
            &[1, 0, 0, 0, 2, 0, 0, 0],
        )
        .expect("u12-13");
        assert_eq!(e.machine().waves[3].u[12..14], [1, 2]);
        assert_eq!(word(&e, lane9 + WAVE_UNIFORM + 4 * 13), Ok(2));
        // Registers are written in whole, aligned words, inside their part.
        assert_eq!(
            write(&mut e, base + 2, &[1, 2, 3, 4]).map_err(|e| e.errno),
            Err(EINVAL)
        );
        assert!(write(&mut e, base + WAVE_UNIFORM, &[1, 2]).is_err());
        assert!(write(&mut e, base + WAVE_UNIFORM + 252, &[0; 8]).is_err());
        // The shared memory of wave 3's workgroup (1), the scratch of its lanes.
        write(&mut e, Window::shared_addr(1, 4), &[5]).expect("shared");
        let m = e.machine();
        let mut b = [0u8; 1];
        read(m, base + WAVE_SHARED + 4, &mut b, Tail::Short).expect("shared view");
        assert_eq!(b, [5]);
        write(&mut e, base + WAVE_SCRATCH + (9 << 16) + 2, &[6]).expect("lane 9 scratch");
        let m = e.machine();
        read(m, Window::scratch_addr(3, 9, 2), &mut b, Tail::Short).expect("scratch");
        assert_eq!(b, [6]);
        read(m, lane9 + WAVE_LANE_SCRATCH + 2, &mut b, Tail::Short).expect("lane scratch");
        assert_eq!(b, [6]);
        // Scratch by word: word k of lane l at 128 k + 4 l; a read or a write spans lanes.
        let words = base + WAVE_SCRATCH_WORDS;
        let mut row = [0u8; 128];
        read(m, words, &mut row, Tail::Short).expect("word 0 of every lane");
        assert_eq!(row[9 * 4..9 * 4 + 4], [0, 0, 6, 0]);
        let pattern: Vec<u8> = (0..10).collect();
        write(&mut e, words + 128 + 4 * 7 + 2, &pattern).expect("word 1 of lanes 7-9");
        let m = e.machine();
        let mut lane = [0u8; 8];
        for (l, want) in [(7, [0, 0, 0, 0, 0, 0, 0, 1]), (8, [0, 0, 0, 0, 2, 3, 4, 5])] {
            read(m, Window::scratch_addr(3, l, 0), &mut lane, Tail::Short).expect("scratch");
            assert_eq!(lane, want, "lane {l}");
        }
        read(m, Window::scratch_addr(3, 9, 0), &mut lane, Tail::Short).expect("scratch");
        assert_eq!(lane, [0, 0, 6, 0, 6, 7, 8, 9]);
        read(m, words + 128 + 4 * 7 + 2, &mut row[..10], Tail::Short).expect("read back");
        assert_eq!(row[..10], pattern[..]);
        // 8 scratch bytes a lane: two words, 256 bytes.
        assert_eq!(read(m, words, &mut [0; 512], Tail::Short), Ok(256));
        assert!(write(&mut e, words + 254, &[0; 4]).is_err());
        let m = e.machine();
        // Ends: 16 shared bytes, 8 scratch bytes, 64 uniform registers.
        assert_eq!(
            read(m, base + WAVE_SHARED, &mut [0; 512], Tail::Short),
            Ok(16)
        );
        assert!(read(m, base + WAVE_SHARED + 16, &mut b, Tail::Short).is_err());
        assert!(read(m, base + WAVE_LANE_SCRATCH + 8, &mut b, Tail::Short).is_err());
        assert_eq!(
            read(m, base + WAVE_UNIFORM, &mut [0; 512], Tail::Short),
            Ok(256)
        );
        assert_eq!(
            read(m, base + WAVE_UNIFORM, &mut [0; 512], Tail::Padded),
            Ok(512)
        );
        // Wave 4 is not resident (two workgroups of two waves are).
        assert_eq!(
            word(&e, Window::wave_base(4, 0)).map_err(|e| e.message),
            Err("wave 4 is not resident".into())
        );
    }

    #[test]
    fn code_is_readable_and_read_only() {
        let mut e = engine(2);
        let mut b = [0u8; 4];
        read(e.machine(), 0, &mut b, Tail::Short).expect("code");
        assert_eq!(u32::from_le_bytes(b), e.machine().program().code[0]);
        assert_eq!(write(&mut e, 0, &b).map_err(|e| e.errno), Err(EROFS));
        assert!(is_instruction(e.machine(), 0));
        assert!(!is_instruction(e.machine(), 2));
    }
}
