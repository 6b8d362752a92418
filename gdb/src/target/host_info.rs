//! `HostInfo`: gdbstub calls it for `qHostInfo`, which only lldb sends: the triple,
//! byte order and pointer size of the x86-64 target the server describes itself as.

use gdbstub::common::Endianness;
use gdbstub::target::ext::host_info::{HostInfo, HostInfoResponse};

use super::WaveTarget;

impl HostInfo for WaveTarget {
    fn host_info(&self, write: &mut dyn FnMut(&HostInfoResponse<'_>)) -> Result<(), String> {
        write(&HostInfoResponse::Triple("x86_64-unknown-none"));
        write(&HostInfoResponse::Endianness(Endianness::Little));
        write(&HostInfoResponse::PointerSize(8));
        Ok(())
    }
}
