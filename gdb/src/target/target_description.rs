//! `TargetDescriptionXmlOverride`: gdbstub calls it for `qXfer:features:read:target.xml`,
//! which gdb and lldb read at connection: the register layout of [`crate::regs`].

use gdbstub::target::ext::target_description_xml_override::TargetDescriptionXmlOverride;
use gdbstub::target::{TargetError, TargetResult};

use super::WaveTarget;
use crate::codes::ENOENT;

impl TargetDescriptionXmlOverride for WaveTarget {
    fn target_description_xml(
        &self,
        annex: &[u8],
        offset: u64,
        length: usize,
        buf: &mut [u8],
    ) -> TargetResult<usize, Self> {
        if annex != b"target.xml" {
            return Err(TargetError::Errno(ENOENT));
        }
        let xml = self.xml.as_bytes();
        let start = usize::try_from(offset).unwrap_or(usize::MAX).min(xml.len());
        let n = length.min(buf.len()).min(xml.len() - start);
        buf[..n].copy_from_slice(&xml[start..start + n]);
        Ok(n)
    }
}
