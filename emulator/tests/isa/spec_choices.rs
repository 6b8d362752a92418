//! Behaviours the spec leaves open, as docs/memory.md writes them down: each choice has a
//! test here, so a change to it is a visible decision and not an accident.

use crate::fixtures::{fill_v, get_v, machine, set_v, step_fault, step_ok, LANES};

use wavedbg_emulator::fault::FaultKind;

/// A machine whose first instruction is `instr`, with EXEC set to `exec` by hand.
fn with_exec(instr: &str, exec: u32) -> wavedbg_emulator::machine::Machine {
    let mut m = machine(&format!("{instr}\nend\n"));
    m.waves[0].exec = exec;
    m
}

fn lane_values() -> [u32; LANES] {
    std::array::from_fn(|l| (l as u32 + 1) * 0x0101)
}

fn f32_lanes() -> [u32; LANES] {
    std::array::from_fn(|l| ((l * l) as f32 + 0.5).to_bits())
}

/// `wqm` is ignored: in a quad with inactive lanes, the inactive lanes are not written
/// (EXEC alone decides), and the active lanes read their helper lanes' register values
/// whatever EXEC says.
#[test]
fn wqm_is_ignored_by_quad_swizzle() {
    // Only lane 0 of quad 0 and lanes 5, 6 of quad 1 are active.
    let exec = 0b0110_0001;
    let mut m = with_exec("quad.swizzle v1, v2, 0x1b", exec);
    let src = lane_values();
    set_v(&mut m, 2, src);
    fill_v(&mut m, 1, 0xDEAD_BEEF);
    step_ok(&mut m, "quad.swizzle under a partial quad");
    let v1 = get_v(&m, 1);
    // Lane 0 reads lane 3 (inactive) through the reversal; lanes 5, 6 read 6, 5.
    assert_eq!(v1[0], src[3]);
    assert_eq!(v1[5], src[6]);
    assert_eq!(v1[6], src[5]);
    // Inactive lanes of the partly active quads keep their old value.
    for l in [1, 2, 3, 4, 7] {
        assert_eq!(v1[l], 0xDEAD_BEEF, "lane {l}");
    }
}

#[test]
fn wqm_is_ignored_by_derivatives() {
    for (mnemonic, hi, lo) in [
        ("fddx.fine.f32", 1usize, 0usize),
        ("fddy.fine.f32", 2, 0),
        ("fddx.coarse.f32", 1, 0),
        ("fddy.coarse.f32", 2, 0),
    ] {
        let mut m = with_exec(&format!("{mnemonic} v1, v2"), 0b1);
        let src = f32_lanes();
        set_v(&mut m, 2, src);
        fill_v(&mut m, 1, 0xDEAD_BEEF);
        step_ok(&mut m, mnemonic);
        let v1 = get_v(&m, 1);
        let want = f32::from_bits(src[hi]) - f32::from_bits(src[lo]);
        assert_eq!(
            f32::from_bits(v1[0]),
            want,
            "{mnemonic}: lane 0 uses inactive lanes"
        );
        for (l, v) in v1.iter().enumerate().skip(1) {
            assert_eq!(
                *v, 0xDEAD_BEEF,
                "{mnemonic}: lane {l} is inactive, not written"
            );
        }
    }
}

/// The spec writes `A = U64[u1] + u2 + sext(imm)` for `uld.x`; the 32-bit `u2` is
/// zero-extended (an unsigned index, as `zext(s1)` in the vector forms), so `u2 =
/// 0xfffffffc` is 4 GiB - 4 bytes ahead, not 4 bytes back.
#[test]
fn uld_x_index_is_zero_extended() {
    let src = ".buffer b, 64\n.init b, u32, 11, 22, 33, 44\n.arg u[0:1], b\n";
    // u2 = 4: the second dword.
    let mut m = machine(&format!(
        "{src}umovi u2, 4\nuld.x.b32 u5, u[0:1], u2, 0\nend\n"
    ));
    step_ok_n(&mut m, 2);
    assert_eq!(m.waves[0].u[5], 22);
    // u2 = 0xfffffffc with imm = 8: zero-extended it points far past the buffer (a fault);
    // sign-extended it would have read the second dword.
    let mut m = machine(&format!(
        "{src}umovi u2, 0xfffffffc\nuld.x.b32 u5, u[0:1], u2, 8\nend\n"
    ));
    step_ok_n(&mut m, 1);
    let f = step_fault(&mut m, "uld.x with u2 = -4");
    assert_eq!(f.kind, FaultKind::Unmapped);
    let base = m.waves[0].u[0] as u64 | (m.waves[0].u[1] as u64) << 32;
    assert_eq!(f.addr, Some(base + 0xffff_fffc + 8));
    // The buffer forms index the same way: an offset past the descriptor's size reads 0.
    let mut m = machine(
        ".buffer b, 64\n.init b, u32, 11, 22\n.arg u[0:3], desc b\numovi u6, 0xfffffffc\nuld.bufx.b32 u5, u[0:3], u6, 8\nend\n",
    );
    step_ok_n(&mut m, 1);
    m.waves[0].u[5] = 0x1234;
    step_ok_n(&mut m, 1);
    assert_eq!(m.waves[0].u[5], 0, "out of bounds, not the second dword");
}

/// Steps the instructions before the one under test.
fn step_ok_n(m: &mut wavedbg_emulator::machine::Machine, n: usize) {
    for _ in 0..n {
        assert!(m.step_wave(0).is_none());
    }
}
