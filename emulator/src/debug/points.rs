//! Breakpoints and watchpoints: resolving locations, creating, enabling, conditions and
//! ignore counts, and checking them as the machine runs.

use super::breakpoint::{Breakpoint, Condition, Filters, Owner, Scope, WatchKind, Watchpoint};
use super::command::Location;
use super::{Engine, EngineError, StopEvent, StopReason, WatchHit};
use crate::exec::AccessKind;
use crate::machine::BreakAt;
use crate::memory::Space;

impl Engine {
    /// The code address of a location: a label plus offset, an address, or the first
    /// instruction of a source line (of its first file, where a base name names
    /// several). It must be the start of an instruction.
    /// The kernel's name is its entry (`list K`, `info line K`, `disassemble K`).
    pub fn resolve_location(&self, location: &Location) -> Result<u64, EngineError> {
        let addrs = self.locations_of(location, false)?;
        // Never empty: no address is an error.
        Ok(addrs.first().copied().unwrap_or_default())
    }

    /// Every code address of a location, as gdb's locations of one breakpoint: one for a
    /// label or an address; for a higher-level line the first statement of each stretch
    /// of its code, in every file the name matches (`a.cl:3` in `src/a.cl` and
    /// `lib/a.cl`), in address order. Never empty: a location with no code is an error.
    /// The kernel's name (`.kernel K`) where no label has it is, as gdb's `break main`,
    /// the first instruction after its prologue (the line table's `prologue_end`; its
    /// entry without one); `K+N` is N bytes after the entry.
    pub fn resolve_locations(&self, location: &Location) -> Result<Vec<u64>, EngineError> {
        self.locations_of(location, true)
    }

    /// The address after the kernel's prologue: the line table's `prologue_end` row, or
    /// the entry.
    fn after_prologue(&self) -> u64 {
        let info = &self.machine.program().source_info;
        info.rows
            .iter()
            .find(|r| r.prologue_end)
            .map_or(0, |r| r.addr)
    }

    fn locations_of(
        &self,
        location: &Location,
        skip_prologue: bool,
    ) -> Result<Vec<u64>, EngineError> {
        let program = self.machine.program();
        let addrs = match location {
            Location::Address(a) => vec![*a],
            Location::Expr(e) => vec![self.location_value(e)?],
            Location::Label { file, name, offset } => {
                // A higher-level file has lines, not labels: `saxpy.cl:abc` is a bad line.
                if let Some(f) = file
                    .as_deref()
                    .filter(|f| !self.line_files_named(f).is_empty())
                {
                    return Err(EngineError::NotALine {
                        file: f.to_string(),
                        text: if *offset == 0 {
                            name.clone()
                        } else {
                            format!("{name}+{offset}")
                        },
                    });
                }
                self.check_source_file(file.as_deref())?;
                let base = match program.labels.get(name) {
                    Some(a) => *a,
                    None if *name == program.name && skip_prologue && *offset == 0 => {
                        self.after_prologue()
                    }
                    None if *name == program.name => 0,
                    None => {
                        return Err(EngineError::NoLabel {
                            name: name.clone(),
                            labels: program.labels.keys().cloned().collect(),
                        })
                    }
                };
                vec![base.wrapping_add(*offset)]
            }
            Location::Line { file, line } if !self.line_files_of(file.as_deref()).is_empty() => {
                let mut addrs = Vec::new();
                let mut first_error = None;
                for n in self.line_files_of(file.as_deref()) {
                    match self.line_addresses(n, *line) {
                        Ok(a) => addrs.extend(a),
                        Err(e) => {
                            first_error.get_or_insert(e);
                        }
                    }
                }
                if addrs.is_empty() {
                    if let Some(e) = first_error {
                        return Err(e);
                    }
                }
                addrs.sort_unstable();
                addrs.dedup();
                addrs
            }
            Location::Line { file, line } => {
                let file = self.check_source_file(file.as_deref())?;
                let a = (0..self.machine.code().len() as u64)
                    .map(|i| i * 4)
                    .find(|&a| program.line_at(a).is_some_and(|l| u64::from(l) == *line))
                    .ok_or(EngineError::NoCodeOnLine { line: *line, file })?;
                vec![a]
            }
        };
        if let Some(&bad) = addrs.iter().find(|&&a| self.machine.instr_at(a).is_none()) {
            let end = program.code_bytes();
            return Err(if bad >= end {
                EngineError::OutsideCode { addr: bad, end }
            } else {
                EngineError::NotAnInstruction(bad)
            });
        }
        Ok(addrs)
    }

    /// The address a `*EXPR` location names now: its value for the selected wave and lane.
    pub(super) fn location_value(&self, e: &super::expr::ParsedExpr) -> Result<u64, EngineError> {
        let bad = |message: String| EngineError::LocationValue {
            text: e.text.clone(),
            message,
        };
        let v = e
            .expr
            .eval(&self.machine, self.selected_wave, Some(self.selected_lane))
            .map_err(|x| bad(x.message))?;
        u64::try_from(v).map_err(|_| bad(format!("{v} is negative")))
    }

    /// Checks that `file`, when given, names the kernel's source (its name as opened, or
    /// that name's last component); returns the name to show.
    pub(super) fn check_source_file(&self, file: Option<&str>) -> Result<String, EngineError> {
        let name = self
            .source
            .as_ref()
            .map(|(n, _)| n.as_str())
            .or(self.kernel_path())
            .unwrap_or_default()
            .to_string();
        let short = std::path::Path::new(&name)
            .file_name()
            .map_or(name.clone(), |f| f.to_string_lossy().into_owned());
        // A file named by its last component matches wherever the session or script
        // that names it was written from (`sub/k.s:12` from the folder above).
        let last = |p: &str| {
            std::path::Path::new(p)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
        };
        match file {
            Some(f) if f != name && f != short && last(f).as_deref() != Some(short.as_str()) => {
                Err(EngineError::NoSourceFile {
                    file: f.to_string(),
                    kernel_source: format!("{name}{}", self.compiled_from_text()),
                })
            }
            _ => Ok(short),
        }
    }

    fn take_id(&mut self) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    pub(super) fn rearm(&mut self) {
        self.armed.iter_mut().for_each(Vec::clear);
        for (i, b) in self
            .breakpoints
            .iter()
            .enumerate()
            .filter(|(_, b)| b.enabled)
        {
            for &addr in &b.addrs {
                if let Some(a) = self.armed.get_mut((addr / 4) as usize) {
                    if !a.contains(&i) {
                        a.push(i);
                    }
                }
            }
        }
        // The machine stops only waves some breakpoint's wave and workgroup filters can
        // match; the engine decides the rest (lanes, conditions, ignore counts). A filter
        // naming a wave or workgroup outside the launch can never match.
        let launch = self.machine.launch();
        let waves = launch.grid as u64 * launch.waves_per_workgroup() as u64;
        let grid = launch.grid;
        self.machine.break_at = if self.armed.iter().any(|a| !a.is_empty()) {
            self.armed
                .iter()
                .map(|a| {
                    let filters: Vec<(Option<u32>, Option<u32>)> = a
                        .iter()
                        .map(|&i| {
                            let f = &self.breakpoints[i].filters;
                            (f.wave, f.workgroup)
                        })
                        .filter(|&(w, g)| {
                            w.is_none_or(|w| (w as u64) < waves) && g.is_none_or(|g| g < grid)
                        })
                        .collect();
                    match filters.as_slice() {
                        [] => BreakAt::No,
                        f if f.contains(&(None, None)) => BreakAt::Any,
                        _ => BreakAt::Only(filters.into()),
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        let filter: Vec<(Space, u64, u64)> = self
            .watchpoints
            .iter()
            .filter(|w| w.enabled)
            .map(|w| (w.scope.space(), w.addr, w.addr.saturating_add(w.len)))
            .collect();
        self.machine.accesses = (!filter.is_empty()).then(|| crate::exec::AccessLog::new(filter));
    }

    /// Sets a breakpoint made by the user; returns its number (shared with watchpoints,
    /// as in gdb). One breakpoint holds every address of its location (gdb's locations
    /// `N.1`, `N.2`: a line whose code is in several stretches, a base name several files
    /// share); a hit at any of them is a hit of the breakpoint. [`Engine::set_owner`] gives it to another owner.
    pub fn add_breakpoint(
        &mut self,
        location: &Location,
        condition: Option<Condition>,
        filters: Filters,
        temporary: bool,
    ) -> Result<u32, EngineError> {
        let addrs = self.resolve_locations(location)?;
        if let Some(l) = filters.lane {
            if l >= 32 {
                return Err(EngineError::LaneOutOfRange(l as u64));
            }
        }
        // A filter naming a wave or workgroup the launch does not have could never match:
        // refused, as gdb refuses `break L thread N` for an unknown thread (a wave of the
        // launch not dispatched yet, or finished, is one it has).
        self.check_in_launch(filters.wave, filters.workgroup)?;
        let id = self.take_id();
        // An expression's value now is the breakpoint's address (`break *pc` stays where
        // the PC was, as gdb's): sessions and listings keep that address.
        let location = match location {
            Location::Expr(_) => Location::Address(addrs.first().copied().unwrap_or_default()),
            l => l.clone(),
        };
        self.breakpoints.push(Breakpoint {
            id,
            addrs,
            location,
            owner: Owner::User,
            condition,
            filters,
            ignore: 0,
            hits: 0,
            temporary,
            enabled: true,
        });
        self.rearm();
        Ok(id)
    }

    /// Checks that a global wave id and a workgroup (each if given) are in the launch.
    pub(crate) fn check_in_launch(
        &self,
        wave: Option<u32>,
        workgroup: Option<u32>,
    ) -> Result<(), EngineError> {
        let launch = self.machine.launch();
        let waves = u64::from(launch.grid) * u64::from(launch.waves_per_workgroup());
        if let Some(wave) = wave.filter(|&w| u64::from(w) >= waves) {
            return Err(EngineError::WaveNotInLaunch { wave, waves });
        }
        if let Some(workgroup) = workgroup.filter(|&g| g >= launch.grid) {
            return Err(EngineError::WorkgroupNotInGrid {
                workgroup,
                grid: launch.grid,
            });
        }
        Ok(())
    }

    /// Gives breakpoint or watchpoint `id` to `owner` (the GDB server takes the points it
    /// inserts for its client).
    pub fn set_owner(&mut self, id: u32, owner: Owner) -> Result<(), EngineError> {
        if let Some(b) = self.breakpoints.iter_mut().find(|b| b.id == id) {
            b.owner = owner;
        } else if let Some(w) = self.watchpoints.iter_mut().find(|w| w.id == id) {
            w.owner = owner;
        } else {
            return Err(EngineError::NoPoint(id));
        }
        Ok(())
    }

    /// Sets a watchpoint; returns its number.
    pub fn add_watchpoint(
        &mut self,
        kind: WatchKind,
        scope: Scope,
        addr: u64,
        len: u64,
        condition: Option<Condition>,
    ) -> Result<u32, EngineError> {
        if len == 0 || len > 1 << 20 {
            return Err(EngineError::WatchLength(len));
        }
        let probe = Watchpoint {
            id: 0,
            kind,
            scope,
            addr,
            len,
            condition: None,
            hits: 0,
            enabled: true,
            owner: Owner::User,
        };
        // The range must exist: in a resident wave's view, or, for a workgroup (or a wave
        // of one) not dispatched yet, within the window it will have.
        let m = &self.machine;
        let per = m.launch().waves_per_workgroup();
        let resident = match scope {
            Scope::Scratch { wave, .. } => m.wave_index(wave).ok_or(wave / per).map_err(|g| {
                let outside = || EngineError::WaveNotInLaunch {
                    wave,
                    waves: u64::from(m.launch().grid) * u64::from(per),
                };
                self.check_pending(g, scope, addr, len, || EngineError::NoWaveId(wave), outside)
            }),
            Scope::Shared(Some(g)) => m
                .waves
                .iter()
                .position(|w| w.workgroup == g)
                .ok_or(g)
                .map_err(|g| {
                    self.check_pending(
                        g,
                        scope,
                        addr,
                        len,
                        || EngineError::WorkgroupFinished(g),
                        || EngineError::WorkgroupNotInGrid {
                            workgroup: g,
                            grid: self.machine.launch().grid,
                        },
                    )
                }),
            _ => Ok(self.selected_wave),
        };
        match resident {
            Ok(w) => {
                let mut buf = vec![0; len as usize];
                m.read_space(scope.space(), w, probe.lane(), addr, &mut buf)?;
            }
            Err(pending) => pending?,
        }
        let id = self.take_id();
        self.watchpoints.push(Watchpoint {
            id,
            condition,
            ..probe
        });
        self.rearm();
        Ok(id)
    }

    /// Checks a watched range of workgroup `g`, which is not resident: it must be in the
    /// grid (`outside` otherwise) and still to come (`gone` otherwise), and the range inside
    /// the window its waves will have.
    fn check_pending(
        &self,
        g: u32,
        scope: Scope,
        addr: u64,
        len: u64,
        gone: impl FnOnce() -> EngineError,
        outside: impl FnOnce() -> EngineError,
    ) -> Result<(), EngineError> {
        let launch = self.machine.launch();
        if g >= launch.grid {
            return Err(outside());
        }
        let dispatched = launch.grid - self.machine.workgroups_pending();
        if g < dispatched {
            return Err(gone());
        }
        let size = match scope.space() {
            crate::memory::Space::Shared => launch.shared_bytes as u64,
            _ => launch.scratch_bytes as u64,
        };
        let end = addr.saturating_add(len);
        if end > size {
            return Err(crate::machine::MemoryError::OutOfWindow {
                space: scope.space(),
                addr,
                end,
                size,
            }
            .into());
        }
        Ok(())
    }

    /// Deletes breakpoints/watchpoints by number (all when `None`).
    pub fn delete(&mut self, id: Option<u32>) -> Result<(), EngineError> {
        match id {
            None => {
                self.breakpoints.clear();
                self.watchpoints.clear();
            }
            Some(id) => {
                let before = self.breakpoints.len() + self.watchpoints.len();
                self.breakpoints.retain(|b| b.id != id);
                self.watchpoints.retain(|w| w.id != id);
                if before == self.breakpoints.len() + self.watchpoints.len() {
                    return Err(EngineError::NoPoint(id));
                }
            }
        }
        self.rearm();
        Ok(())
    }

    /// Enables or disables a breakpoint/watchpoint.
    pub fn set_enabled(&mut self, id: u32, enabled: bool) -> Result<(), EngineError> {
        if let Some(b) = self.breakpoints.iter_mut().find(|b| b.id == id) {
            b.enabled = enabled;
        } else if let Some(w) = self.watchpoints.iter_mut().find(|w| w.id == id) {
            w.enabled = enabled;
        } else {
            return Err(EngineError::NoPoint(id));
        }
        self.rearm();
        Ok(())
    }

    /// Sets a breakpoint's ignore count.
    pub fn set_ignore(&mut self, id: u32, count: u32) -> Result<(), EngineError> {
        let b = self
            .breakpoints
            .iter_mut()
            .find(|b| b.id == id)
            .ok_or(EngineError::NoBreakpoint(id))?;
        b.ignore = count;
        Ok(())
    }

    /// Sets or clears a breakpoint's condition.
    pub fn set_condition(
        &mut self,
        id: u32,
        condition: Option<Condition>,
    ) -> Result<(), EngineError> {
        let c = condition;
        if let Some(b) = self.breakpoints.iter_mut().find(|b| b.id == id) {
            b.condition = c;
        } else if let Some(w) = self.watchpoints.iter_mut().find(|w| w.id == id) {
            w.condition = c;
        } else {
            return Err(EngineError::NoPoint(id));
        }
        Ok(())
    }

    pub(super) fn filters_lane_of(&self, id: u32) -> Option<u8> {
        self.breakpoints
            .iter()
            .find(|b| b.id == id)
            .and_then(|b| b.filters.lane)
    }

    pub(super) fn check_breakpoints(&mut self, w: usize, pc: u64) -> Option<StopEvent> {
        let slot = (pc / 4) as usize;
        for k in 0..self.armed.get(slot).map_or(0, Vec::len) {
            let i = self.armed[slot][k];
            match self.breakpoints[i].lanes(&self.machine, w) {
                Ok(None) => {}
                Ok(Some(lanes)) => {
                    let b = &mut self.breakpoints[i];
                    b.hits += 1;
                    if b.ignore > 0 {
                        b.ignore -= 1;
                        continue;
                    }
                    let id = b.id;
                    return Some(self.event(StopReason::Breakpoint { id, lanes }, Some(w)));
                }
                Err(message) => {
                    let id = self.breakpoints[i].id;
                    return Some(self.event(StopReason::ConditionError { id, message }, Some(w)));
                }
            }
        }
        None
    }

    pub(super) fn check_watchpoints(&mut self, w: usize, pc: u64) -> Option<StopEvent> {
        let accesses = self
            .machine
            .accesses
            .as_ref()
            .map(|l| l.hits.clone())
            .unwrap_or_default();
        if accesses.is_empty() {
            return None;
        }
        let mut hits = Vec::new();
        for i in 0..self.watchpoints.len() {
            let wp = &self.watchpoints[i];
            let lanes = wp.lanes_hit(&self.machine, w, &accesses);
            if lanes == 0 {
                continue;
            }
            if let Some(c) = &wp.condition {
                let lane = lanes.trailing_zeros() as u8;
                match c.expr.eval(&self.machine, w, Some(lane)) {
                    Ok(0) => continue,
                    Ok(_) => {}
                    Err(e) => {
                        let id = wp.id;
                        return Some(self.event(
                            StopReason::ConditionError {
                                id,
                                message: e.to_string(),
                            },
                            Some(w),
                        ));
                    }
                }
            }
            let access = accesses
                .iter()
                .filter(|a| lanes >> a.lane & 1 == 1)
                .map(|a| a.kind)
                .max_by_key(|k| match k {
                    AccessKind::Read => 0,
                    AccessKind::Write => 1,
                    AccessKind::ReadWrite => 2,
                })
                .unwrap_or(AccessKind::Read);
            let new = wp.read(&self.machine, w).unwrap_or_default();
            // Undo the instruction's writes, last first, to recover the bytes before it.
            let mut old = new.clone();
            for a in accesses
                .iter()
                .rev()
                .filter(|a| a.kind != AccessKind::Read && lanes >> a.lane & 1 == 1)
            {
                for k in 0..(a.len as u64).min(16) {
                    let at = a.addr + k;
                    if at >= wp.addr && at < wp.addr + old.len() as u64 {
                        old[(at - wp.addr) as usize] = a.old[k as usize];
                    }
                }
            }
            let wp = &mut self.watchpoints[i];
            wp.hits += 1;
            hits.push(WatchHit {
                id: wp.id,
                kind: wp.kind,
                space: wp.scope.space(),
                addr: wp.addr,
                len: wp.len,
                lanes,
                pc,
                access,
                old,
                new,
            });
        }
        if hits.is_empty() {
            return None;
        }
        Some(self.event(StopReason::Watchpoint(hits), Some(w)))
    }
}
