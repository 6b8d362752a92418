//! Cross-lane reads of inactive lanes: a shuffle, swizzle, lane read or derivative whose
//! active lanes read a lane that EXEC has switched off. The spec has such instructions
//! read the source lane whatever EXEC says, so the value is what that lane's register
//! last held (a ragged tail's stale value, or nothing the program meant).

use super::{Finding, FindingKind, Sanitizer, Site};
use crate::code::Decoded;
use crate::exec::xlane::inactive_reads;
use crate::isa::{Op, RegFile};
use crate::wave::Wave;

impl Sanitizer {
    /// Before wave `w` executes `d` at `pc`: the active lanes that read an inactive one.
    #[inline]
    pub(super) fn inactive_lane_reads(&mut self, wave: &Wave, d: &Decoded, pc: u64) {
        if !matches!(
            d.op,
            Op::Shfl { .. }
                | Op::ShflBcast { .. }
                | Op::QuadSwizzle
                | Op::Readlane { .. }
                | Op::Deriv { .. }
        ) {
            return;
        }
        let (readers, sources) = inactive_reads(wave, d);
        if readers == 0 {
            return;
        }
        let mut f = Finding::new(FindingKind::InactiveLaneRead, Site::of(wave, readers, pc));
        f.other = Some(Site::of(wave, sources, pc));
        f.reg = Some((RegFile::Vector, d.instr.rs1));
        self.push(f);
    }
}
