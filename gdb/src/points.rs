//! The client's breakpoints and watchpoints (`Z`/`z` packets) and the engine's behind
//! them, as plain data, with the names gdb gives them: the client numbers its points itself
//! and never tells the server, so the server names them by address (`monitor why`,
//! `monitor info breakpoints`).
//!
//! `Z` and `z` are idempotent, as the protocol wants: inserting one twice leaves one, and
//! one `z` removes it. gdb removes every point at each stop and inserts them again before
//! resuming, so `z` only marks an entry as removed (`ClientPoints::remove`); the engine's
//! point goes when the kernel next runs without it being inserted again
//! (`ClientPoints::take_removed`). While stopped, `monitor info breakpoints` still lists
//! what gdb has.

use std::ops::Deref;

use gdbstub::target::ext::breakpoints::WatchKind;
use wavedbg_emulator::debug::breakpoint;
use wavedbg_emulator::debug::view;
use wavedbg_emulator::machine::Machine;

use crate::memory::Window;

/// Where a client breakpoint (Z0/Z1) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BreakAt {
    pub addr: u64,
    /// Z1 (`hbreak`) rather than Z0: a distinct breakpoint to the protocol.
    pub hw: bool,
}

impl BreakAt {
    /// What gdb calls it: `Breakpoint at 0x006c <next_word>`.
    pub(crate) fn label(&self, m: &Machine) -> String {
        let kind = if self.hw {
            "Hardware breakpoint"
        } else {
            "Breakpoint"
        };
        format!("{kind} at {}", view::pc_text(m, self.addr))
    }
}

/// What a client watchpoint (Z2/Z3/Z4) watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WatchAt {
    /// The address as the client sent it: it names its window (see [`crate::memory`]).
    pub addr: u64,
    pub len: u64,
    pub kind: WatchKind,
}

impl WatchAt {
    /// The engine's kind of watchpoint for the client's.
    pub(crate) fn engine_kind(&self) -> breakpoint::WatchKind {
        match self.kind {
            WatchKind::Write => breakpoint::WatchKind::Write,
            WatchKind::Read => breakpoint::WatchKind::Read,
            WatchKind::ReadWrite => breakpoint::WatchKind::Access,
        }
    }

    /// What gdb calls it, and what it watches: `Hardware watchpoint at 0x8000000000100008
    /// (shared:0x8 of workgroup 1, 4 bytes)`.
    pub(crate) fn label(&self) -> String {
        format!(
            "{} at {:#x} ({}, {} byte{})",
            self.engine_kind().name(),
            self.addr,
            Window::of(self.addr).describe(),
            self.len,
            if self.len == 1 { "" } else { "s" }
        )
    }
}

/// A client breakpoint or watchpoint and the engine's behind it.
#[derive(Debug, Clone)]
pub(crate) struct ClientPoint<K> {
    /// Where it is (what the `Z` packet said).
    pub at: K,
    /// The engine's breakpoint or watchpoint number.
    pub engine_id: u32,
    /// Cleared by `z`; the entry goes when the kernel next runs (see the module docs).
    pub inserted: bool,
}

/// The client's breakpoints (`K` = [`BreakAt`]) or watchpoints ([`WatchAt`]).
#[derive(Debug, Clone)]
pub(crate) struct ClientPoints<K>(Vec<ClientPoint<K>>);

impl<K> Default for ClientPoints<K> {
    fn default() -> Self {
        ClientPoints(Vec::new())
    }
}

impl<K> Deref for ClientPoints<K> {
    type Target = [ClientPoint<K>];

    fn deref(&self) -> &[ClientPoint<K>] {
        &self.0
    }
}

impl<K: PartialEq> ClientPoints<K> {
    /// A `Z` of a point already there (inserted, or removed while stopped): inserts it
    /// again, keeping its engine number. False if there is none.
    pub(crate) fn reinsert(&mut self, at: &K) -> bool {
        match self.0.iter_mut().find(|p| p.at == *at) {
            Some(p) => {
                p.inserted = true;
                true
            }
            None => false,
        }
    }

    /// A `Z` of a new point, which the engine numbered `engine_id`.
    pub(crate) fn insert(&mut self, at: K, engine_id: u32) {
        self.0.push(ClientPoint {
            at,
            engine_id,
            inserted: true,
        });
    }

    /// A `z`: marks the point removed. False if no such point is inserted.
    pub(crate) fn remove(&mut self, at: &K) -> bool {
        match self.0.iter_mut().find(|p| p.at == *at && p.inserted) {
            Some(p) => {
                p.inserted = false;
                true
            }
            None => false,
        }
    }
}

impl<K> ClientPoints<K> {
    /// Takes out the points removed and not inserted again; returns their engine numbers.
    pub(crate) fn take_removed(&mut self) -> Vec<u32> {
        let (keep, gone): (Vec<_>, Vec<_>) = std::mem::take(&mut self.0)
            .into_iter()
            .partition(|p| p.inserted);
        self.0 = keep;
        gone.into_iter().map(|p| p.engine_id).collect()
    }

    /// Forgets every point; returns their engine numbers.
    pub(crate) fn take_all(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.0)
            .into_iter()
            .map(|p| p.engine_id)
            .collect()
    }

    /// The point behind engine number `id`.
    pub(crate) fn by_engine_id(&self, id: u32) -> Option<&ClientPoint<K>> {
        self.0.iter().find(|p| p.engine_id == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn z_and_z_are_idempotent() {
        let mut p = ClientPoints::default();
        let at = BreakAt { addr: 4, hw: false };
        assert!(!p.reinsert(&at));
        p.insert(at, 7);
        assert!(p.reinsert(&at));
        assert!(p.remove(&at));
        assert!(!p.remove(&at), "one z removes it");
        assert!(p.reinsert(&at), "inserted again before running");
        assert!(p.take_removed().is_empty());
        assert!(p.remove(&at));
        assert_eq!(p.take_removed(), vec![7]);
        assert!(p.is_empty());
    }

    #[test]
    fn watchpoints_are_named_as_gdb_names_them() {
        let at = WatchAt {
            addr: Window::shared_addr(1, 8),
            len: 4,
            kind: WatchKind::ReadWrite,
        };
        assert_eq!(
            at.label(),
            "Hardware access (read/write) watchpoint at 0x8000000000100008 (shared:0x8 of workgroup 1, 4 bytes)"
        );
    }
}
