//! The numbers replies carry: the errno of an `Exx` error reply, chosen for each engine
//! error in one place ([`errno`]), and the protocol's number for a fault's signal
//! ([`signal`]).
//!
//! gdb and lldb show neither errno to the user (gdb says `Cannot access memory`, `Could not
//! insert hardware watchpoint`, ...), but a script driving the protocol sees them, so they
//! say what went wrong: `ESRCH` no such thread or wave, `EFAULT` memory that cannot be
//! reached, `EINVAL` a malformed or meaningless request, `ENOENT` nothing to remove.

use gdbstub::common::Signal;
use wavedbg_emulator::debug::EngineError;

/// Operation not permitted: a packet gdbstub could not handle (or panicked on).
pub const EPERM: u8 = 1;
/// No such breakpoint, watchpoint or annex.
pub const ENOENT: u8 = 2;
/// No such thread or wave.
pub const ESRCH: u8 = 3;
/// Interrupted (a Ctrl-C during a search).
pub const EINTR: u8 = 4;
/// A packet longer than the server accepts.
pub const E2BIG: u8 = 7;
/// Memory that cannot be reached (unmapped, not resident, past a window's end).
pub const EFAULT: u8 = 14;
/// Malformed or meaningless (a PC that is no instruction, an access too large).
pub const EINVAL: u8 = 22;
/// The code window is read-only.
pub const EROFS: u8 = 30;

/// The errno the client gets for an engine operation that was refused.
pub fn errno(e: &EngineError) -> u8 {
    match e {
        EngineError::NoWave { .. }
        | EngineError::NoWaveId(_)
        | EngineError::NoWaveIndex(_)
        | EngineError::WaveNotInLaunch { .. } => ESRCH,
        EngineError::Memory(_)
        | EngineError::WorkgroupFinished(_)
        | EngineError::WorkgroupNotInGrid { .. } => EFAULT,
        EngineError::NoPoint(_) | EngineError::NoBreakpoint(_) => ENOENT,
        EngineError::NoLabel { .. }
        | EngineError::NoSourceFile { .. }
        | EngineError::NotALine { .. }
        | EngineError::AmbiguousSourceFile { .. }
        | EngineError::NoCodeOnLine { .. }
        | EngineError::NotAnInstruction(_)
        | EngineError::LocationValue { .. }
        | EngineError::OutsideCode { .. }
        | EngineError::BadCondition { .. }
        | EngineError::LaneOutOfRange(_)
        | EngineError::WatchLength(_)
        | EngineError::NoRegister(_)
        | EngineError::PcMisaligned(_)
        | EngineError::BeyondHistory { .. }
        | EngineError::BeforeHistory { .. } => EINVAL,
        EngineError::SearchInterrupted { .. } => EINTR,
    }
}

/// The protocol's signal for a signal the engine gives by its Linux number (the second
/// half of [`Fault::signal`](wavedbg_emulator::fault::Fault::signal)).
///
/// gdb's remote protocol numbers signals its own way (gdb's `include/gdb/signals.def`),
/// which agrees with Linux for most signals but not all: Linux's SIGBUS (7, a misaligned
/// access) would reach gdb as SIGEMT. So the number is translated, never looked up by name.
pub fn signal(linux: u8) -> Signal {
    match linux {
        7 => Signal::SIGBUS,
        10 => Signal::SIGUSR1,
        12 => Signal::SIGUSR2,
        17 => Signal::SIGCHLD,
        18 => Signal::SIGCONT,
        19 => Signal::SIGSTOP,
        20 => Signal::SIGTSTP,
        23 => Signal::SIGURG,
        29 => Signal::SIGIO,
        30 => Signal::SIGPWR,
        31 => Signal::SIGSYS,
        // SIGSTKFLT has no protocol number.
        16 | 32.. => Signal::UNKNOWN,
        // The same number in both.
        n => Signal(n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wavedbg_emulator::machine::MemoryError;

    #[test]
    fn fault_signals_keep_their_meaning() {
        // The signals faults stop with (SIGILL, SIGBUS, SIGSEGV, SIGTRAP, SIGXCPU).
        assert_eq!(signal(4), Signal::SIGILL);
        assert_eq!(signal(7), Signal::SIGBUS);
        assert_eq!(signal(11), Signal::SIGSEGV);
        assert_eq!(signal(5), Signal::SIGTRAP);
        assert_eq!(signal(24), Signal::SIGXCPU);
        assert_eq!(signal(6), Signal::SIGABRT);
    }

    #[test]
    fn engine_errors_have_their_errno() {
        assert_eq!(errno(&EngineError::NoPoint(3)), ENOENT);
        assert_eq!(errno(&EngineError::NoWaveIndex(9)), ESRCH);
        assert_eq!(errno(&EngineError::NoWaveId(9)), ESRCH);
        assert_eq!(errno(&EngineError::NotAnInstruction(2)), EINVAL);
        let unmapped = EngineError::Memory(MemoryError::Unmapped {
            addr: 0x10,
            end: 0x14,
        });
        assert_eq!(errno(&unmapped), EFAULT);
    }
}
