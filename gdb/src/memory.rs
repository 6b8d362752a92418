//! The address windows gdb and lldb see, and bounded, checked reads and writes in them.
//!
//! The kernel has three memory spaces (docs/memory.md) but a debugger has one address
//! space, so the server maps them into windows:
//!
//! | window  | addresses | contents |
//! |---------|-----------|----------|
//! | code    | `0` ... code size | the kernel's instruction words, read-only |
//! | global  | each buffer at its own address (from `0x1_0000_0000`) | global memory |
//! | shared  | [`SHARED_BASE`] + offset | the shared memory of the selected wave's workgroup |
//! | scratch | [`SCRATCH_BASE`] + offset | the scratch of the selected lane of the selected wave |
//!
//! The selected wave is the thread of the packet (gdb sends `Hg` before memory packets);
//! the selected lane is the engine's (`monitor lane N`). Every window is readable in whole
//! multiples of [`GRANULE`] bytes: bytes past the real end (up to the next multiple) read
//! as zero, because lldb reads memory in 512-byte lines and lldb 14 crashes later when such
//! a read comes back short. Writes must lie inside the real window. A read or write
//! succeeds whole or fails whole: a short read is never returned.

use wavedbg_emulator::machine::{CodeWord, Machine};
use wavedbg_emulator::memory::Space;

/// First address of the shared-memory window.
pub const SHARED_BASE: u64 = 0xffff_8000_0000_0000;
/// First address of the scratch window.
pub const SCRATCH_BASE: u64 = 0xffff_9000_0000_0000;
/// How far each window may extend (shared and scratch offsets are 32-bit).
pub const WINDOW_SPAN: u64 = 1 << 32;
/// Windows are readable in multiples of this many bytes.
pub const GRANULE: u64 = 512;
/// The most bytes one memory packet may read or write.
pub const MAX_ACCESS: u64 = 64 * 1024;

/// Where an address points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// The code, at this byte offset.
    Code(u64),
    /// Global memory (the address itself).
    Global(u64),
    /// The selected wave's shared memory, at this offset.
    Shared(u64),
    /// The selected lane's scratch, at this offset.
    Scratch(u64),
}

impl Window {
    /// Classifies an address.
    pub fn of(addr: u64) -> Window {
        if (SHARED_BASE..SHARED_BASE + WINDOW_SPAN).contains(&addr) {
            Window::Shared(addr - SHARED_BASE)
        } else if (SCRATCH_BASE..SCRATCH_BASE + WINDOW_SPAN).contains(&addr) {
            Window::Scratch(addr - SCRATCH_BASE)
        } else if addr < wavedbg_emulator::memory::GLOBAL_BASE {
            Window::Code(addr)
        } else {
            Window::Global(addr)
        }
    }

    /// The memory space, and the offset in it, for engine watchpoints.
    pub fn space(self) -> Option<(Space, u64)> {
        match self {
            Window::Code(_) => None,
            Window::Global(a) => Some((Space::Global, a)),
            Window::Shared(o) => Some((Space::Shared, o)),
            Window::Scratch(o) => Some((Space::Scratch, o)),
        }
    }
}

/// Why an access failed; `errno` is what the client sees (`Exx`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessError {
    /// Explanation.
    pub message: String,
    /// The errno for the reply.
    pub errno: u8,
}

const EFAULT: u8 = 14;
const EINVAL: u8 = 22;
const EROFS: u8 = 30;

fn fail(errno: u8, message: String) -> AccessError {
    AccessError { message, errno }
}

fn padded(len: u64) -> u64 {
    len.div_ceil(GRANULE).saturating_mul(GRANULE)
}

/// The real size of the window an address falls in, and the offset of the address in it;
/// `None` when it is in no window (unallocated global memory).
fn locate(m: &Machine, wave: usize, w: Window) -> Option<(u64, u64)> {
    match w {
        Window::Code(o) => Some((m.program().code.len() as u64 * 4, o)),
        Window::Global(a) => m
            .global
            .allocations()
            .iter()
            .rev()
            .find(|x| x.base <= a)
            .map(|x| (x.data.len(), a - x.base)),
        Window::Shared(o) => {
            (wave < m.waves.len()).then(|| (m.slots[m.slot_of(wave)].shared.len(), o))
        }
        Window::Scratch(o) => {
            (wave < m.waves.len()).then_some((m.launch().scratch_bytes as u64, o))
        }
    }
}

fn window_name(w: Window) -> &'static str {
    match w {
        Window::Code(_) => "code",
        Window::Global(_) => "global",
        Window::Shared(_) => "shared",
        Window::Scratch(_) => "scratch",
    }
}

/// Reads `out.len()` bytes at `addr` as wave `wave` (index) and lane `lane` see them.
pub fn read(
    m: &Machine,
    wave: usize,
    lane: u8,
    addr: u64,
    out: &mut [u8],
) -> Result<(), AccessError> {
    let n = out.len() as u64;
    if n > MAX_ACCESS {
        return Err(fail(EINVAL, format!("read of {n} bytes is too large")));
    }
    if n == 0 {
        return Ok(());
    }
    let w = Window::of(addr);
    let (size, off) =
        locate(m, wave, w).ok_or_else(|| fail(EFAULT, format!("{addr:#x} is not mapped")))?;
    let end = off
        .checked_add(n)
        .ok_or_else(|| fail(EFAULT, "address overflow".into()))?;
    if end > padded(size) {
        return Err(fail(
            EFAULT,
            format!("{addr:#x}+{n} is outside the {} window", window_name(w)),
        ));
    }
    out.fill(0);
    let real = size.saturating_sub(off).min(n) as usize;
    if real == 0 {
        return Ok(());
    }
    let part = &mut out[..real];
    match w {
        Window::Code(o) => {
            let code = &m.program().code;
            for (i, b) in part.iter_mut().enumerate() {
                let at = o as usize + i;
                *b = code.get(at / 4).map_or(0, |w| w.to_le_bytes()[at % 4]);
            }
            Ok(())
        }
        _ => {
            let (space, a) = w.space().ok_or_else(|| fail(EFAULT, "no space".into()))?;
            m.read_space(space, wave, lane, a, part)
                .map_err(|e| fail(EFAULT, e.to_string()))
        }
    }
}

/// Writes `data` at `addr` as [`read`] reads it; the code is read-only and the padding
/// past a window's end cannot be written.
pub fn write(
    m: &mut Machine,
    wave: usize,
    lane: u8,
    addr: u64,
    data: &[u8],
) -> Result<(), AccessError> {
    let n = data.len() as u64;
    if n > MAX_ACCESS {
        return Err(fail(EINVAL, format!("write of {n} bytes is too large")));
    }
    if n == 0 {
        return Ok(());
    }
    let w = Window::of(addr);
    let Some((space, a)) = w.space() else {
        return Err(fail(EROFS, "the code is read-only".into()));
    };
    m.write_space(space, wave, lane, a, data)
        .map_err(|e| fail(EFAULT, e.to_string()))
}

/// Whether an instruction starts at `pc` (for breakpoints and PC writes).
pub fn is_instruction(m: &Machine, pc: u64) -> bool {
    pc.is_multiple_of(4) && matches!(m.code().get((pc / 4) as usize), Some(CodeWord::Instr(_)))
}

/// A description of the windows for `monitor windows`.
pub fn describe(m: &Machine, wave: usize, lane: u8) -> String {
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
            "global:  {:#x}..{:#x} buffer `{}` ({} bytes)",
            a.base,
            a.base + a.data.len(),
            a.name,
            a.data.len()
        );
    }
    match m.waves.get(wave) {
        Some(wv) => {
            let shared = m.slots[m.slot_of(wave)].shared.len();
            let _ = writeln!(
                s,
                "shared:  {SHARED_BASE:#x}..{:#x} workgroup {} (of wave {}, {shared} bytes)",
                SHARED_BASE + shared,
                wv.workgroup,
                wv.id
            );
            let scratch = m.launch().scratch_bytes as u64;
            let _ = writeln!(
                s,
                "scratch: {SCRATCH_BASE:#x}..{:#x} lane {lane} of wave {} ({scratch} bytes)",
                SCRATCH_BASE + scratch,
                wv.id
            );
        }
        None => s.push_str("shared, scratch: no wave selected\n"),
    }
    let _ = writeln!(
        s,
        "(windows read in multiples of {GRANULE} bytes; bytes past an end read as 0)"
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use wavedbg_emulator::machine::LaunchOptions;

    fn machine() -> Machine {
        let src = "\
.kernel t
.workgroup 64
.grid 2
.shared 16
.scratch 8
.buffer out, 40
.arg u[0:1], out
    end
";
        let p = wavedbg_emulator::asm::assemble(src, "t.s", None).expect("assembles");
        Machine::new(&p, LaunchOptions::default()).expect("launches")
    }

    #[test]
    fn windows_are_classified() {
        assert_eq!(Window::of(0x10), Window::Code(0x10));
        assert_eq!(Window::of(0x1_0000_0004), Window::Global(0x1_0000_0004));
        assert_eq!(Window::of(SHARED_BASE + 8), Window::Shared(8));
        assert_eq!(Window::of(SCRATCH_BASE + 4), Window::Scratch(4));
        assert_eq!(Window::of(u64::MAX), Window::Global(u64::MAX));
    }

    #[test]
    fn reads_are_whole_and_padded_to_512_bytes() {
        let mut m = machine();
        write(&mut m, 0, 0, 0x1_0000_0000, &[1, 2, 3, 4]).expect("global write");
        let mut b = [0xaa; 512];
        read(&m, 0, 0, 0x1_0000_0000, &mut b).expect("a whole line of a 40-byte buffer");
        assert_eq!(&b[..5], &[1, 2, 3, 4, 0]);
        assert!(b[40..].iter().all(|&x| x == 0));
        // Past the padded end: the whole read fails, nothing partial.
        let mut c = [0u8; 8];
        assert!(read(&m, 0, 0, 0x1_0000_0000 + 508, &mut c).is_err());
        // Padding cannot be written.
        assert!(write(&mut m, 0, 0, 0x1_0000_0000 + 40, &[1]).is_err());
        // Unmapped global memory and oversized accesses fail.
        assert!(read(&m, 0, 0, 0x2_0000_0000, &mut c).is_err());
        let mut big = vec![0u8; MAX_ACCESS as usize + 1];
        assert_eq!(
            read(&m, 0, 0, 0x1_0000_0000, &mut big).map_err(|e| e.errno),
            Err(EINVAL)
        );
    }

    #[test]
    fn shared_follows_the_wave_and_scratch_the_lane() {
        let mut m = machine();
        // Waves 0-1 are workgroup 0, waves 2-3 workgroup 1.
        write(&mut m, 1, 0, SHARED_BASE + 4, &[7]).expect("shared write");
        let mut b = [0u8; 1];
        read(&m, 0, 0, SHARED_BASE + 4, &mut b).expect("same workgroup");
        assert_eq!(b, [7]);
        read(&m, 2, 0, SHARED_BASE + 4, &mut b).expect("other workgroup");
        assert_eq!(b, [0]);
        write(&mut m, 0, 5, SCRATCH_BASE + 2, &[9]).expect("scratch write");
        read(&m, 0, 5, SCRATCH_BASE + 2, &mut b).expect("lane 5");
        assert_eq!(b, [9]);
        read(&m, 0, 6, SCRATCH_BASE + 2, &mut b).expect("lane 6");
        assert_eq!(b, [0]);
        assert!(write(&mut m, 0, 0, SHARED_BASE + 16, &[1]).is_err());
        assert!(read(&m, 9, 0, SHARED_BASE, &mut b).is_err());
    }

    #[test]
    fn code_is_readable_and_read_only() {
        let mut m = machine();
        let mut b = [0u8; 4];
        read(&m, 0, 0, 0, &mut b).expect("code");
        assert_eq!(u32::from_le_bytes(b), m.program().code[0]);
        assert_eq!(write(&mut m, 0, 0, 0, &b).map_err(|e| e.errno), Err(EROFS));
        assert!(is_instruction(&m, 0));
        assert!(!is_instruction(&m, 2));
    }
}
