//! `ThreadExtraInfo`: gdbstub calls it for `qThreadExtraInfo`, the text `info threads`
//! shows after a thread id: which wave is in the slot, its workgroup, state and EXEC.

use gdbstub::common::Tid;
use gdbstub::target::ext::thread_extra_info::ThreadExtraInfo;

use super::{wave_index, WaveTarget};

impl ThreadExtraInfo for WaveTarget {
    fn thread_extra_info(&self, tid: Tid, buf: &mut [u8]) -> Result<usize, String> {
        let m = self.engine.machine();
        let text = match m.waves.get(wave_index(tid)) {
            Some(w) => format!(
                "wave {} wg {} {} exec {:#010x}",
                w.id,
                w.workgroup,
                w.state.name(),
                w.exec
            ),
            None => "gone".to_string(),
        };
        let n = text.len().min(buf.len());
        buf[..n].copy_from_slice(&text.as_bytes()[..n]);
        Ok(n)
    }
}
