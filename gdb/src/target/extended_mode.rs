//! `ExtendedMode`: gdbstub calls it after `!` (`target extended-remote`) for `vRun` and
//! `R` (gdb's `run`: restart the launch), `vAttach`, `qAttached` and `vKill` (`kill`
//! restarts the launch and keeps serving, with no process until `run`).

use gdbstub::common::Pid;
use gdbstub::target::ext::extended_mode::{Args, AttachKind, ExtendedMode, ShouldTerminate};
use gdbstub::target::{TargetError, TargetResult};

use super::WaveTarget;

impl ExtendedMode for WaveTarget {
    fn run(&mut self, _filename: Option<&[u8]>, _args: Args<'_, '_>) -> TargetResult<Pid, Self> {
        self.restart();
        self.no_process = false;
        Pid::new(1).ok_or(TargetError::NonFatal)
    }

    fn attach(&mut self, _pid: Pid) -> TargetResult<(), Self> {
        self.no_process = false;
        Ok(())
    }

    fn query_if_attached(&mut self, _pid: Pid) -> TargetResult<AttachKind, Self> {
        Ok(if self.extended {
            AttachKind::Run
        } else {
            AttachKind::Attach
        })
    }

    fn kill(&mut self, _pid: Option<Pid>) -> TargetResult<ShouldTerminate, Self> {
        if self.extended {
            self.restart();
            self.no_process = true;
            Ok(ShouldTerminate::No)
        } else {
            Ok(ShouldTerminate::Yes)
        }
    }

    fn restart(&mut self) -> Result<(), String> {
        WaveTarget::restart(self);
        self.no_process = false;
        Ok(())
    }

    fn on_start(&mut self) -> Result<(), String> {
        self.extended = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use gdbstub::common::Tid;
    use gdbstub::target::ext::base::multithread::MultiThreadBase;

    use super::*;
    use crate::target::tests::target;

    #[test]
    fn no_thread_is_listed_without_a_process() {
        let mut t = target();
        let mut n = 0;
        let _ = t.list_active_threads(&mut |_| n += 1);
        assert_eq!(n, 2);
        t.extended = true;
        assert!(matches!(t.kill(None), Ok(ShouldTerminate::No)));
        let mut n = 0;
        let _ = t.list_active_threads(&mut |_| n += 1);
        assert_eq!(n, 0);
        assert!(t.wave_of(Tid::new(1).expect("tid")).is_err());
        assert!(ExtendedMode::restart(&mut t).is_ok());
        let mut n = 0;
        let _ = t.list_active_threads(&mut |_| n += 1);
        assert_eq!(n, 2);
    }
}
