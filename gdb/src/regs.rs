//! Register numbering, the `g` packet layout and the target description XML.
//!
//! Stock gdb and lldb accept no unknown architecture, so the server describes itself as
//! `i386:x86-64` with `osabi none`: the required `org.gnu.gdb.i386.core` feature carries
//! its 40 registers (numbers 0-39, as gdb numbers them), of which only `rip` (the wave's
//! PC) and `rbx` (the base of the wave's memory window, [`RBX`]) mean something; the
//! others read as zero, and all but `rip` ignore writes. The wave's own
//! registers follow in two project features:
//!
//! | numbers   | registers   | size       | feature              |
//! |-----------|-------------|------------|----------------------|
//! | 0-15      | rax ... r15 | 64 bits    | org.gnu.gdb.i386.core (inert; rbx reads as the wave window's base, rsp as unavailable to gdb and as [`RSP_VALUE`], an address of no memory, to lldb) |
//! | 16        | rip         | 64 bits    | org.gnu.gdb.i386.core (the wave's PC) |
//! | 17-39     | eflags, segments, st0-st7, x87 control | 32/80 bits | org.gnu.gdb.i386.core (inert) |
//! | 40        | exec        | 32 bits    | org.wavedbg.wave     |
//! | 41-104    | u0-u63      | 32 bits    | org.wavedbg.wave     |
//! | 105-232   | v0-v127     | 32 x 32 bits (a `<vector>` of uint32, one element per lane) | org.wavedbg.vector |
//! | 233       | lane        | 32 bits    | org.wavedbg.lane: the selected lane (writable) |
//! | 234       | wave        | 32 bits    | org.wavedbg.lane: the global wave id (read-only) |
//! | 235       | workgroup   | 32 bits    | org.wavedbg.lane: the wave's workgroup (read-only) |
//! | 236       | wave_in_wg  | 32 bits    | org.wavedbg.lane: the wave's index in its workgroup (read-only) |
//! | 237-364   | lv0-lv127   | 32 bits    | org.wavedbg.lane: the selected lane's value of v0-v127 |
//!
//! The `g` packet holds registers 0-104 only (536 bytes): gdb fetches a vector register
//! (and the lane registers) with `p` when it is first used, so a stop does not move 16 KiB
//! of vector state.
//!
//! `lane` is one selection for the whole kernel (as cuda-gdb's lane focus), the engine's
//! selected lane: every thread reads the same value, so a condition such as
//! `$v3[$lane] == 5` means the same lane in whichever wave hits it, and `monitor` lane
//! views follow it. The vector registers themselves are plain 32-element vectors, so the
//! selected lane's value of `v3` is `$v3[$lane]` in gdb; `lv3` is the same value as a
//! plain register (writable, in the group `lv`), for lldb, whose expression interpreter
//! cannot subscript a vector register without running code in the target
//! (`breakpoint set -n next_word -c '$lv3 == 5'`).
//!
//! The `group` attributes (`vector`, `lv`) keep those registers out of lldb's default
//! `register read`; gdb's x86 architecture ignores them (every register it does not know
//! is in its general group), so scripts/wavedbg.gdb replaces `info registers`.

use std::fmt::Write;
use std::num::NonZeroUsize;

use gdbstub::arch::{Arch, RegId, Registers};
use gdbstub_arch::x86::reg::id::X86_64CoreRegId;
use gdbstub_arch::x86::reg::{X86SegmentRegs, X87FpuInternalRegs, F80};
use wavedbg_emulator::machine::wave::{LANES, UREGS, VREGS};

/// Number of the x86 core registers (inert except `rip`).
pub const CORE_REGS: usize = 40;
/// gdb's number of `rip` (the wave's PC).
pub const RIP: usize = 16;
/// gdb's number of `rsp`.
pub const RSP: usize = 7;
/// The value `rsp` reads as for lldb: an address in no window (far above global memory,
/// below the shared windows), so a read there fails and lldb's x86 unwinder finds no
/// return address.
///
/// gdb reads `rsp` as unavailable instead (`xx` in `g` and `p` replies, never in a stop
/// reply). Without the symbol file gdb unwinds the wave as x86 code: its prologue analyser
/// (which finds no function, so no prologue) and its epilogue heuristic (at a PC whose
/// first code byte is 0xc3, x86's `ret`, as the first byte of `vmovi`/`vandi`... with an
/// odd destination is) both start from `rsp`; an unavailable `rsp` ends both before they
/// read memory, with the same frame id (no stack address, no function) at every PC. So
/// `bt` shows one frame, `info frame` completes (an address that cannot be read made it
/// fail on the saved `rip`, aborting a user-defined command), `finish` finds no caller
/// ("not meaningful in the outermost frame"), and `until`/`advance` stop where asked,
/// since the frame is the same one wherever the wave goes. (A readable `rsp` of 8 gives
/// the prologue analyser a clean outermost frame, but the epilogue heuristic then reads
/// the code bytes at address 8 as a return address.) With the symbol file the call-frame
/// information makes every frame outermost without `rsp` (its CFA is `rbp + 8`, `rbp`
/// reads 0).
pub const RSP_VALUE: u64 = 0x4000_0000_0000_0000;
/// gdb's number of `rbx`, which reads as the wave's window base
/// ([`crate::memory::Window::wave_base`]): x86-64 DWARF register 3, through which the
/// symbol file's variables are read (`DW_OP_breg3`).
pub const RBX: usize = 1;
/// gdb's number of `rbp`.
pub const RBP: usize = 6;
/// gdb's number of `exec`, the first after the x86 core registers.
pub const EXEC: usize = CORE_REGS;
/// gdb's number of `u0`; `uN` is `U0 + N`.
pub const U0: usize = EXEC + 1;
/// gdb's number of `v0`; `vN` is `V0 + N`.
pub const V0: usize = U0 + UREGS;
/// Number of `lane`, the selected lane.
pub const LANE: usize = V0 + VREGS;
/// Number of `wave`, the global wave id.
pub const WAVE: usize = LANE + 1;
/// Number of `workgroup`, the wave's workgroup id.
pub const WORKGROUP: usize = LANE + 2;
/// Number of `wave_in_wg`, the wave's index in its workgroup.
pub const WAVE_IN_WG: usize = LANE + 3;
/// Number of `lv0`, the selected lane's value of `v0`.
pub const LV0: usize = WAVE_IN_WG + 1;
/// One past the last register number.
pub const NUM_REGS: usize = LV0 + VREGS;
/// Bytes of one vector register (32 lanes of 32 bits).
pub const VREG_BYTES: usize = LANES * 4;
/// The DWARF register number of register `regnum` (from [`EXEC`] on) is `DWARF_BASE +
/// regnum`: the symbol file's variables name them (`DW_OP_regx`), and the target
/// description gives each its number (`dwarf_regnum`, which lldb reads). The base keeps
/// them clear of the x86-64 DWARF numbers (0-130), which lldb gives the x86 registers of
/// the same names.
pub const DWARF_BASE: usize = 4096;

/// The DWARF register number of the wave register `regnum` (see [`DWARF_BASE`]).
pub fn dwarf_register(regnum: usize) -> u16 {
    u16::try_from(DWARF_BASE + regnum).unwrap_or(u16::MAX)
}

/// Bytes of the x86 core registers in the `g` packet.
const CORE_BYTES: usize = 16 * 8 + 8 + 4 + 6 * 4 + 8 * 10 + 8 * 4;
/// Bytes of the `g` packet: the core registers, `exec` and `u0`-`u63`.
pub const G_BYTES: usize = CORE_BYTES + 4 + UREGS * 4;

/// A register as gdb numbers it.
#[derive(Debug, Clone, Copy)]
pub enum WaveRegId {
    /// One of the 40 x86 core registers (only `rip` means something).
    Core(X86_64CoreRegId),
    /// The EXEC mask (32 bits, bit `i` = lane `i` active).
    Exec,
    /// A uniform register by number, 0-63.
    U(u8),
    /// A vector register (all 32 lanes).
    V(u8),
    /// The selected lane (writable; the same for every thread).
    Lane,
    /// The global wave id (read-only).
    Wave,
    /// The wave's workgroup id (read-only).
    Workgroup,
    /// The wave's index in its workgroup (read-only).
    WaveInWorkgroup,
    /// The selected lane's value of a vector register.
    LaneV(u8),
}

impl RegId for WaveRegId {
    fn from_raw_id(id: usize) -> Option<(Self, Option<NonZeroUsize>)> {
        let (reg, size) = match id {
            0..CORE_REGS => {
                let (r, size) = X86_64CoreRegId::from_raw_id(id)?;
                (WaveRegId::Core(r), size?.get())
            }
            EXEC => (WaveRegId::Exec, 4),
            U0..V0 => (WaveRegId::U((id - U0) as u8), 4),
            V0..LANE => (WaveRegId::V((id - V0) as u8), VREG_BYTES),
            LANE => (WaveRegId::Lane, 4),
            WAVE => (WaveRegId::Wave, 4),
            WORKGROUP => (WaveRegId::Workgroup, 4),
            WAVE_IN_WG => (WaveRegId::WaveInWorkgroup, 4),
            LV0..NUM_REGS => (WaveRegId::LaneV((id - LV0) as u8), 4),
            _ => return None,
        };
        Some((reg, NonZeroUsize::new(size)))
    }

    fn to_raw_id(&self) -> Option<usize> {
        Some(match *self {
            WaveRegId::Core(X86_64CoreRegId::Rip) => RIP,
            WaveRegId::Core(X86_64CoreRegId::Gpr(n)) if (n as usize) < 16 => n as usize,
            WaveRegId::Core(_) => return None,
            WaveRegId::Exec => EXEC,
            WaveRegId::U(n) => U0 + n as usize,
            WaveRegId::V(n) => V0 + n as usize,
            WaveRegId::Lane => LANE,
            WaveRegId::Wave => WAVE,
            WaveRegId::Workgroup => WORKGROUP,
            WaveRegId::WaveInWorkgroup => WAVE_IN_WG,
            WaveRegId::LaneV(n) => LV0 + n as usize,
        })
    }
}

/// The registers of the `g` packet: the inert x86 core around `rip`, then `exec` and the
/// uniform registers. Vector registers are not in it (they travel with `p`/`P`).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct WaveRegs {
    /// rax ... r15 (zero but rbx, the wave window's base; rsp is sent as `rsp`).
    pub gpr: [u64; 16],
    /// What `rsp` is sent as: unavailable (`xx`, gdb's) or [`RSP_VALUE`] (lldb's); see
    /// [`RSP_VALUE`].
    pub rsp: Option<u64>,
    /// The wave's PC.
    pub pc: u64,
    /// eflags (always zero).
    pub eflags: u32,
    /// Segment registers (always zero).
    pub segments: X86SegmentRegs,
    /// st0-st7 (always zero).
    pub st: [F80; 8],
    /// x87 control registers (always zero).
    pub fpu: X87FpuInternalRegs,
    /// The EXEC mask: bit `i` set = lane `i` active.
    pub exec: u32,
    /// u0-u63 in order; empty until filled or when a `G` packet left them out.
    pub u: Vec<u32>,
    /// Whether `exec` and `u` were present in a `G` packet.
    pub has_wave_part: bool,
}

impl Registers for WaveRegs {
    type ProgramCounter = u64;

    fn pc(&self) -> u64 {
        self.pc
    }

    fn gdb_serialize(&self, mut write_byte: impl FnMut(Option<u8>)) {
        // `rsp` unavailable: `xx` bytes.
        let mut bytes =
            |b: &[u8], known: bool| b.iter().for_each(|x| write_byte(known.then_some(*x)));
        for (n, r) in self.gpr.iter().enumerate() {
            match (n == RSP, self.rsp) {
                (true, v) => bytes(&v.unwrap_or(0).to_le_bytes(), v.is_some()),
                (false, _) => bytes(&r.to_le_bytes(), true),
            }
        }
        bytes(&self.pc.to_le_bytes(), true);
        bytes(&self.eflags.to_le_bytes(), true);
        let mut rest = Vec::with_capacity(G_BYTES);
        self.segments.gdb_serialize(|b| rest.push(b.unwrap_or(0)));
        for st in &self.st {
            rest.extend_from_slice(st);
        }
        self.fpu.gdb_serialize(|b| rest.push(b.unwrap_or(0)));
        rest.extend_from_slice(&self.exec.to_le_bytes());
        for k in 0..UREGS {
            rest.extend_from_slice(&self.u.get(k).copied().unwrap_or(0).to_le_bytes());
        }
        bytes(&rest, true);
    }

    /// Accepts the core registers alone or followed by `exec` and `u0`-`u63`; only `rip`,
    /// `exec` and the uniform registers are kept.
    fn gdb_deserialize(&mut self, bytes: &[u8]) -> Result<(), ()> {
        if bytes.len() != CORE_BYTES && bytes.len() < G_BYTES {
            return Err(());
        }
        let word = |at: usize| -> u32 {
            let mut b = [0u8; 4];
            b.copy_from_slice(&bytes[at..at + 4]);
            u32::from_le_bytes(b)
        };
        let mut pc = [0u8; 8];
        pc.copy_from_slice(&bytes[RIP * 8..RIP * 8 + 8]);
        self.pc = u64::from_le_bytes(pc);
        if bytes.len() >= G_BYTES {
            self.has_wave_part = true;
            self.exec = word(CORE_BYTES);
            self.u = (0..UREGS).map(|k| word(CORE_BYTES + 4 + 4 * k)).collect();
        }
        Ok(())
    }
}

/// The architecture as gdbstub sees it: 64-bit addresses, our registers, and breakpoint
/// kinds taken as given (gdb on x86 sends kind 1 and never patches memory).
#[derive(Debug)]
pub enum WaveArch {}

impl Arch for WaveArch {
    type Usize = u64;
    type Registers = WaveRegs;
    type BreakpointKind = usize;
    type RegId = WaveRegId;
}

/// One `<reg>` of the target description; `extra` holds further attributes. A wave
/// register (from [`EXEC`] on) carries its DWARF number ([`dwarf_register`]).
fn reg(x: &mut String, name: &str, bits: usize, ty: &str, regnum: usize, extra: &str) {
    let _ = write!(
        x,
        "  <reg name=\"{name}\" bitsize=\"{bits}\" type=\"{ty}\" regnum=\"{regnum}\"{extra}"
    );
    if regnum >= EXEC {
        let _ = write!(x, " dwarf_regnum=\"{}\"", dwarf_register(regnum));
    }
    x.push_str("/>\n");
}

/// The target description sent for `qXfer:features:read:target.xml`.
pub fn target_xml() -> String {
    let mut x = String::with_capacity(24 * 1024);
    x.push_str(concat!(
        "<?xml version=\"1.0\"?>\n",
        "<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n",
        "<target version=\"1.0\">\n",
        "<architecture>i386:x86-64</architecture>\n",
        "<osabi>none</osabi>\n",
        "<feature name=\"org.gnu.gdb.i386.core\">\n",
    ));
    let gprs = [
        "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12",
        "r13", "r14", "r15",
    ];
    for (n, name) in gprs.iter().enumerate() {
        reg(&mut x, name, 64, "int64", n, "");
    }
    reg(&mut x, "rip", 64, "code_ptr", RIP, " generic=\"pc\"");
    let segments = ["eflags", "cs", "ss", "ds", "es", "fs", "gs"].map(|r| (r.into(), 32, "int32"));
    let st = (0..8).map(|k| (format!("st{k}"), 80, "i387_ext"));
    let x87 = [
        "fctrl", "fstat", "ftag", "fiseg", "fioff", "foseg", "fooff", "fop",
    ]
    .map(|r| (r.into(), 32, "int"));
    let after_rip = segments.into_iter().chain(st).chain(x87);
    for (k, (name, bits, ty)) in after_rip.enumerate() {
        reg(&mut x, &name, bits, ty, RIP + 1 + k, "");
    }
    debug_assert_eq!(x.matches("<reg ").count(), CORE_REGS);
    x.push_str("</feature>\n<feature name=\"org.wavedbg.wave\">\n");
    let general = " group=\"general\"";
    reg(&mut x, "exec", 32, "uint32", EXEC, general);
    for k in 0..UREGS {
        reg(&mut x, &format!("u{k}"), 32, "uint32", U0 + k, general);
    }
    x.push_str("</feature>\n<feature name=\"org.wavedbg.vector\">\n");
    let _ = writeln!(
        x,
        "  <vector id=\"vec32u32\" type=\"uint32\" count=\"{LANES}\"/>"
    );
    let vector = " group=\"vector\" encoding=\"vector\" format=\"vector-uint32\"";
    for k in 0..VREGS {
        reg(
            &mut x,
            &format!("v{k}"),
            VREG_BYTES * 8,
            "vec32u32",
            V0 + k,
            vector,
        );
    }
    x.push_str("</feature>\n<feature name=\"org.wavedbg.lane\">\n");
    for (name, regnum) in [
        ("lane", LANE),
        ("wave", WAVE),
        ("workgroup", WORKGROUP),
        ("wave_in_wg", WAVE_IN_WG),
    ] {
        reg(&mut x, name, 32, "uint32", regnum, general);
    }
    for k in 0..VREGS {
        reg(
            &mut x,
            &format!("lv{k}"),
            32,
            "uint32",
            LV0 + k,
            " group=\"lv\"",
        );
    }
    x.push_str("</feature>\n</target>\n");
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_covers_every_register_once() {
        let mut g = 0;
        for id in 0..NUM_REGS {
            let (reg, size) = WaveRegId::from_raw_id(id).expect("known register");
            let size = size.expect("sized").get();
            if id < V0 {
                g += size;
            }
            if (V0..LANE).contains(&id) {
                assert_eq!(size, VREG_BYTES, "v register {id}");
            }
            if (LANE..NUM_REGS).contains(&id) {
                assert_eq!(size, 4, "lane register {id}");
            }
            if let Some(raw) = reg.to_raw_id() {
                assert_eq!(raw, id);
            }
        }
        assert_eq!(g, G_BYTES);
        assert!(WaveRegId::from_raw_id(NUM_REGS).is_none());
    }

    #[test]
    fn g_packet_round_trips_pc_exec_and_uniforms() {
        let regs = WaveRegs {
            pc: 0x40,
            exec: 0xffff_0000,
            u: (0..64).collect(),
            ..Default::default()
        };
        let mut bytes = Vec::new();
        regs.gdb_serialize(|b| bytes.push(b.unwrap_or(0)));
        assert_eq!(bytes.len(), G_BYTES);
        let mut back = WaveRegs::default();
        back.gdb_deserialize(&bytes).expect("valid");
        assert_eq!((back.pc, back.exec, back.u[63]), (0x40, 0xffff_0000, 63));
        assert!(back.gdb_deserialize(&bytes[..100]).is_err());
    }

    /// gdb's `rsp` is unavailable (`xx` in the `g` packet), so its x86 unwinders stop
    /// before reading memory; lldb's is [`RSP_VALUE`].
    #[test]
    fn rsp_is_unavailable_to_gdb_and_points_to_no_memory_for_lldb() {
        let gdb = WaveRegs::default();
        let mut bytes = Vec::new();
        gdb.gdb_serialize(|b| bytes.push(b));
        assert_eq!(bytes.len(), G_BYTES);
        assert!(bytes[RSP * 8..RSP * 8 + 8].iter().all(Option::is_none));
        assert_eq!(bytes.iter().filter(|b| b.is_none()).count(), 8);
        let lldb = WaveRegs {
            rsp: Some(RSP_VALUE),
            ..Default::default()
        };
        let mut bytes = Vec::new();
        lldb.gdb_serialize(|b| bytes.push(b));
        let rsp: Vec<u8> = bytes[RSP * 8..RSP * 8 + 8]
            .iter()
            .flatten()
            .copied()
            .collect();
        assert_eq!(rsp, RSP_VALUE.to_le_bytes());
    }

    /// lldb's `rsp` points where nothing can be read, whatever the kernel's buffers: lldb
    /// finds no return address there (nor a little above or below it).
    #[test]
    fn rsp_points_to_no_memory() {
        let src = "\
.kernel t
.workgroup 32
.buffer out, 1024
.arg u[0:1], out
    end
";
        let engine = crate::testing::engine(src, 8);
        for addr in [RSP_VALUE - 4096, RSP_VALUE - 8, RSP_VALUE, RSP_VALUE + 4096] {
            let mut word = [0u8; 8];
            for tail in [crate::memory::Tail::Short, crate::memory::Tail::Padded] {
                assert!(
                    crate::memory::read(engine.machine(), addr, &mut word, tail).is_err(),
                    "{addr:#x}"
                );
            }
        }
        assert!(matches!(
            crate::memory::Window::of(RSP_VALUE),
            crate::memory::Window::Global(_)
        ));
    }

    #[test]
    fn description_names_every_register() {
        let x = target_xml();
        assert_eq!(x.matches("<reg ").count(), NUM_REGS);
        assert!(x.contains("regnum=\"232\""));
        assert!(x.contains("<reg name=\"lane\" bitsize=\"32\" type=\"uint32\" regnum=\"233\""));
        assert!(
            x.contains("<reg name=\"wave_in_wg\" bitsize=\"32\" type=\"uint32\" regnum=\"236\"")
        );
        assert!(x.contains("<reg name=\"lv127\" bitsize=\"32\" type=\"uint32\" regnum=\"364\""));
        assert!(x.contains("<architecture>i386:x86-64</architecture>"));
        assert!(x.contains("<reg name=\"v0\" bitsize=\"1024\" type=\"vec32u32\" regnum=\"105\" group=\"vector\" encoding=\"vector\" format=\"vector-uint32\" dwarf_regnum=\"4201\"/>"));
        assert!(!x.contains(
            "<reg name=\"rip\" bitsize=\"64\" type=\"code_ptr\" regnum=\"16\" generic=\"pc\" dwarf"
        ));
    }
}
