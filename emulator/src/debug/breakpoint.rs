//! Breakpoints and watchpoints: what is armed, and whether a wave hits it.

use serde::{Deserialize, Serialize};

use crate::exec::{Access, AccessKind};
use crate::machine::Machine;
use crate::memory::Space;

/// Lane mask of lanes `0..32`.
pub const ALL_LANES: u32 = u32::MAX;

/// Wave, workgroup and lane filters of a breakpoint.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Filters {
    /// Only this wave (global id).
    pub wave: Option<u32>,
    /// Only waves of this workgroup.
    pub workgroup: Option<u32>,
    /// Only this lane (it must be active, and the condition is evaluated only there).
    pub lane: Option<u8>,
}

impl Filters {
    /// The filters as a confirmation names them, as gdb confirms a thread-specific
    /// breakpoint (`, wave 3, workgroup 1, lane 5`); empty without any.
    pub fn text(&self) -> String {
        let mut s = String::new();
        if let Some(w) = self.wave {
            s.push_str(&format!(", wave {w}"));
        }
        if let Some(g) = self.workgroup {
            s.push_str(&format!(", workgroup {g}"));
        }
        if let Some(l) = self.lane {
            s.push_str(&format!(", lane {l}"));
        }
        s
    }
}

/// A breakpoint's locations after its first address, with several (` (2 locations:
/// 0x0008, 0x0024)`, as gdb's `1.1`, `1.2`); empty with one.
pub fn locations_text(addrs: &[u64]) -> String {
    if addrs.len() > 1 {
        let list: Vec<String> = addrs.iter().map(|&a| super::view::addr_text(a)).collect();
        format!(" ({} locations: {})", addrs.len(), list.join(", "))
    } else {
        String::new()
    }
}

/// A condition as written and as parsed.
pub type Condition = super::expr::ParsedExpr;

/// Who made a breakpoint or watchpoint, so a front end that inserts points of its own
/// (the GDB server, for the client's `Z` packets) tells its points from the user's
/// without reading listings back.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Owner {
    /// The command language (`break`, `watch`, a session): numbered and listed.
    #[default]
    User,
    /// A client of the GDB server, which numbers its points itself: listings and stop
    /// descriptions name the point by this text (`the client's breakpoint at 0x40 <loop>`)
    /// instead of the engine's number.
    Client(String),
}

/// A breakpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breakpoint {
    /// Number (shared with watchpoints, as in gdb).
    pub id: u32,
    /// Its locations: the code byte address of an instruction's first word (checked
    /// when set; a multiple of 4) per location, in address order, at least one. A source
    /// line whose code is in several stretches has several, as gdb's `1.1`, `1.2`.
    pub addrs: Vec<u64>,
    /// The location as given (`loop`, `*0x40`, `loop+8`, `k.s:12`), for sessions.
    pub location: super::command::Location,
    /// Who made it.
    pub owner: Owner,
    /// Condition evaluated per active lane; the breakpoint stops if any lane satisfies it.
    pub condition: Option<Condition>,
    /// Which waves, workgroups and lane it applies to (`wave N`, `workgroup N`, `lane N`).
    pub filters: Filters,
    /// Hits still to ignore.
    pub ignore: u32,
    /// Times the breakpoint was reached with its filters and condition satisfied.
    pub hits: u64,
    /// Deleted after the first stop.
    pub temporary: bool,
    /// Whether it stops at all; a disabled breakpoint keeps its hit count and ignore count.
    pub enabled: bool,
}

impl Breakpoint {
    /// Its first location's address (the one a confirmation names first).
    pub fn addr(&self) -> u64 {
        self.addrs.first().copied().unwrap_or_default()
    }

    /// Whether one of its locations is at `addr`.
    pub fn is_at(&self, addr: u64) -> bool {
        self.addrs.contains(&addr)
    }

    /// The lanes for which wave `w` at this breakpoint satisfies filters and condition;
    /// `None` if it does not stop. Lanes are the active lanes (or EXEC when no lane matters).
    pub fn lanes(&self, m: &Machine, w: usize) -> Result<Option<u32>, String> {
        let wave = &m.waves[w];
        if self.filters.wave.is_some_and(|id| id != wave.id)
            || self.filters.workgroup.is_some_and(|g| g != wave.workgroup)
        {
            return Ok(None);
        }
        let mut candidates = wave.exec;
        if let Some(l) = self.filters.lane {
            candidates &= 1 << (l & 31);
            if candidates == 0 {
                return Ok(None);
            }
        }
        let Some(cond) = &self.condition else {
            return Ok(Some(candidates));
        };
        if !cond.expr.per_lane_at(m, w) {
            let v = cond
                .expr
                .eval(m, w, self.filters.lane)
                .map_err(|e| e.to_string())?;
            return Ok((v != 0).then_some(candidates));
        }
        let mut lanes = 0;
        for l in 0..32u8 {
            if candidates >> l & 1 == 1
                && cond.expr.eval(m, w, Some(l)).map_err(|e| e.to_string())? != 0
            {
                lanes |= 1 << l;
            }
        }
        Ok((lanes != 0).then_some(lanes))
    }
}

/// What accesses trigger a watchpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WatchKind {
    /// Writes (`watch`); atomics count.
    Write,
    /// Reads (`rwatch`); atomics count.
    Read,
    /// Reads and writes (`awatch`).
    Access,
}

impl WatchKind {
    /// Whether an access of `kind` triggers this watchpoint.
    pub fn triggered_by(self, kind: AccessKind) -> bool {
        match self {
            WatchKind::Write => kind != AccessKind::Read,
            WatchKind::Read => kind != AccessKind::Write,
            WatchKind::Access => true,
        }
    }

    /// The command that creates it.
    pub fn command(self) -> &'static str {
        match self {
            WatchKind::Write => "watch",
            WatchKind::Read => "rwatch",
            WatchKind::Access => "awatch",
        }
    }

    /// Its name at a stop and when it is set, as gdb says it ("Hardware watchpoint").
    pub fn name(self) -> &'static str {
        match self {
            WatchKind::Write => "Hardware watchpoint",
            WatchKind::Read => "Hardware read watchpoint",
            WatchKind::Access => "Hardware access (read/write) watchpoint",
        }
    }

    /// Its type column in a breakpoint table, as gdb's `info breakpoints` shows it.
    pub fn table_name(self) -> &'static str {
        match self {
            WatchKind::Write => "hw watchpoint",
            WatchKind::Read => "read watchpoint",
            WatchKind::Access => "acc watchpoint",
        }
    }
}

/// Which instance of a space a watchpoint covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Scope {
    /// Global memory: every wave's accesses are watched.
    Global,
    /// The shared memory of one workgroup, or of every workgroup.
    Shared(Option<u32>),
    /// The scratch of one lane of one wave (global wave id).
    Scratch {
        /// The watched wave's global id.
        wave: u32,
        /// The lane (0-31) whose scratch is watched.
        lane: u8,
    },
}

impl Scope {
    /// Whether the scope covers an access by lane `lane` of wave `wave_id` of workgroup
    /// `workgroup` (global memory and every-workgroup shared memory cover all of them).
    pub fn covers(self, workgroup: u32, wave_id: u32, lane: u8) -> bool {
        match self {
            Scope::Global | Scope::Shared(None) => true,
            Scope::Shared(Some(g)) => workgroup == g,
            Scope::Scratch { wave, lane: l } => wave_id == wave && lane == l,
        }
    }

    /// Which instance it names, for messages: "" (global), " (workgroup 3)",
    /// " (every workgroup)", " (wave 9 lane 5)".
    pub fn instance_text(self) -> String {
        match self {
            Scope::Global => String::new(),
            Scope::Shared(None) => " (every workgroup)".into(),
            Scope::Shared(Some(g)) => format!(" (workgroup {g})"),
            Scope::Scratch { wave, lane } => format!(" (wave {wave} lane {lane})"),
        }
    }

    /// The address space the scope is an instance of.
    pub fn space(self) -> Space {
        match self {
            Scope::Global => Space::Global,
            Scope::Shared(_) => Space::Shared,
            Scope::Scratch { .. } => Space::Scratch,
        }
    }
}

/// A watchpoint on a byte range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Watchpoint {
    /// Number shown and used by commands; one counter with breakpoints, from 1, never reused.
    pub id: u32,
    /// Which accesses trigger it (`watch`, `rwatch`, `awatch`).
    pub kind: WatchKind,
    /// Which space and which instance of it (workgroup, or wave and lane).
    pub scope: Scope,
    /// First watched byte: a global address, or an offset in the shared window or the lane's
    /// scratch.
    pub addr: u64,
    /// Length in bytes (at least 1).
    pub len: u64,
    /// Value condition, evaluated after the access.
    pub condition: Option<Condition>,
    /// Instructions whose accesses triggered it (and satisfied its condition), from 0.
    pub hits: u64,
    /// Whether it is checked at all; a disabled watchpoint keeps its hit count.
    pub enabled: bool,
    /// Who made it.
    pub owner: Owner,
}

impl Watchpoint {
    /// The lanes of `accesses` (made by wave `w`) that trigger this watchpoint.
    pub fn lanes_hit(&self, m: &Machine, w: usize, accesses: &[Access]) -> u32 {
        let Some(wave) = m.waves.get(w) else {
            return 0;
        };
        if !self.enabled {
            return 0;
        }
        let end = self.addr.saturating_add(self.len);
        let mut lanes = 0;
        for a in accesses {
            let in_range = a.space == self.scope.space()
                && a.addr < end
                && a.addr.saturating_add(a.len as u64) > self.addr;
            if in_range
                && self.scope.covers(wave.workgroup, wave.id, a.lane)
                && self.kind.triggered_by(a.kind)
            {
                lanes |= 1 << a.lane;
            }
        }
        lanes
    }

    /// The lane whose scratch is watched (0 for other spaces).
    pub fn lane(&self) -> u8 {
        match self.scope {
            Scope::Scratch { lane, .. } => lane,
            _ => 0,
        }
    }

    /// Reads the watched bytes as wave `w` sees them.
    pub fn read(&self, m: &Machine, w: usize) -> Option<Vec<u8>> {
        let mut buf = vec![0; self.len.min(4096) as usize];
        m.read_space(self.scope.space(), w, self.lane(), self.addr, &mut buf)
            .ok()?;
        Some(buf)
    }
}
