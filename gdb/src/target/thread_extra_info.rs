//! `ThreadExtraInfo`: gdbstub calls it for `qThreadExtraInfo`, the text `info threads`
//! shows after a thread's target id: the wave, its workgroup and index in it (named as
//! the registers that hold them, [`crate::regs`]), its state
//! and EXEC. The text starts `wave N,` so `thread find wave 3,` finds wave 3 and not 30.

use gdbstub::common::Tid;
use gdbstub::target::ext::thread_extra_info::ThreadExtraInfo;

use super::WaveTarget;

impl ThreadExtraInfo for WaveTarget {
    fn thread_extra_info(&self, tid: Tid, buf: &mut [u8]) -> Result<usize, String> {
        let m = self.engine.machine();
        let wave = self.slot(tid).and_then(|w| m.waves.get(w));
        let text = match wave.or_else(|| self.ghost_of(tid)) {
            Some(w) => format!(
                "wave {}, workgroup {}, wave_in_wg {}, {}, exec {:#010x}",
                w.id,
                w.workgroup,
                w.index,
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
