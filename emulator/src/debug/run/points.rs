//! Breakpoint and watchpoint commands: `break`, `tbreak`, `delete`, `enable`, `disable`,
//! `ignore`, `condition`, `watch`, `rwatch`, `awatch`.

use std::fmt::Write;

use super::{CommandOutput, Output};
use crate::debug::breakpoint::{Filters, Scope, WatchKind};
use crate::debug::command::{CommandError, Location, Numbers, WatchWhere};
use crate::debug::expr::{Expr, ParsedExpr};
use crate::debug::{locals, view, Engine, EngineError};
use crate::program::VarLocation;

impl Engine {
    /// Where a breakpoint of these locations is, as its confirmation and the TUI's
    /// Breakpoints pane say it: the first address with its label, its source line, and
    /// with several locations every address (`0x0008 (saxpy.cl:6) (2 locations: 0x0008,
    /// 0x0024)`, as gdb's `1.1`, `1.2`).
    pub fn breakpoint_place(&self, addrs: &[u64]) -> String {
        let addr = addrs.first().copied().unwrap_or_default();
        let high = self
            .line_row_at(addr)
            .map(|r| format!(" ({}:{})", self.line_file_display(r.file), r.line));
        let line = high
            .or_else(|| {
                self.machine()
                    .program()
                    .line_at(addr)
                    .zip(self.source())
                    .map(|(l, src)| {
                        let file = std::path::Path::new(src.name)
                            .file_name()
                            .map_or(src.name.into(), |f| f.to_string_lossy());
                        format!(" ({file}:{l})")
                    })
            })
            .unwrap_or_default();
        format!(
            "{}{line}{}",
            view::pc_text(self.machine(), addr),
            crate::debug::breakpoint::locations_text(addrs)
        )
    }

    pub(super) fn break_command(
        &mut self,
        location: &Location,
        condition: &Option<ParsedExpr>,
        filters: Filters,
        temporary: bool,
    ) -> Result<CommandOutput, CommandError> {
        let name = if temporary { "tbreak" } else { "break" };
        let others: Vec<(u32, Vec<u64>)> = self
            .breakpoints()
            .iter()
            .map(|b| (b.id, b.addrs.clone()))
            .collect();
        let id = self
            .add_breakpoint(location, condition.clone(), filters, temporary)
            .map_err(|e| CommandError::engine(name, e))?;
        let addrs = self
            .breakpoints()
            .iter()
            .find(|b| b.id == id)
            .map_or_else(Vec::new, |b| b.addrs.clone());
        // As gdb: a breakpoint at an address another already has is noted.
        let mut notes = String::new();
        for &a in &addrs {
            let also: Vec<u32> = others
                .iter()
                .filter(|(_, at)| at.contains(&a))
                .map(|(n, _)| *n)
                .collect();
            if !also.is_empty() {
                let _ = writeln!(
                    notes,
                    "Note: {} also set at pc {}.",
                    view::numbered_list("breakpoint", &also),
                    view::addr_text(a)
                );
            }
        }
        let place = self.breakpoint_place(&addrs);
        let filter_text = filters.text();
        let text = notes
            + &format!(
                "{} {id} at {place}{filter_text}{}\n",
                if temporary {
                    "Temporary breakpoint"
                } else {
                    "Breakpoint"
                },
                condition
                    .as_ref()
                    .map(|c| format!(" if {c}"))
                    .unwrap_or_default()
            );
        Ok(CommandOutput::with(text, Output::PointSet(id)))
    }

    pub(super) fn delete_command(&mut self, ids: &Numbers) -> Result<CommandOutput, CommandError> {
        if ids.is_all() {
            self.delete(None)
                .map_err(|e| CommandError::engine("delete", e))?;
            return Ok(CommandOutput::default());
        }
        self.each_point("delete", ids, |e, id| e.delete(Some(id)))
    }

    pub(super) fn enable_command(
        &mut self,
        ids: &Numbers,
        on: bool,
    ) -> Result<CommandOutput, CommandError> {
        let name = if on { "enable" } else { "disable" };
        self.each_point(name, ids, |e, id| e.set_enabled(id, on))
    }

    /// Runs `one` on every point `ids` lists, or on every point when it lists none, as
    /// gdb does: a number or range that names no point is reported (refused when none
    /// does, and then nothing changed), the others still done.
    fn each_point(
        &mut self,
        name: &'static str,
        ids: &Numbers,
        mut one: impl FnMut(&mut Engine, u32) -> Result<(), EngineError>,
    ) -> Result<CommandOutput, CommandError> {
        let mut points: Vec<u32> = (self.breakpoints.iter().map(|b| b.id))
            .chain(self.watchpoints.iter().map(|w| w.id))
            .collect();
        points.sort_unstable();
        let (named, missing) = ids.pick(&points);
        for &id in &named {
            one(self, id).map_err(|e| CommandError::engine(name, e))?;
        }
        partly(name, named.is_empty(), &missing, "breakpoint or watchpoint")
    }

    pub(super) fn ignore_command(
        &mut self,
        id: u32,
        n: u32,
    ) -> Result<CommandOutput, CommandError> {
        self.set_ignore(id, n)
            .map_err(|e| CommandError::engine("ignore", e))?;
        Ok(CommandOutput::text(format!(
            "Will ignore next {} of breakpoint {id}.\n",
            view::count(n as u64, "crossing")
        )))
    }

    pub(super) fn condition_command(
        &mut self,
        id: u32,
        condition: &Option<ParsedExpr>,
    ) -> Result<CommandOutput, CommandError> {
        self.set_condition(id, condition.clone())
            .map_err(|e| CommandError::engine("condition", e))?;
        Ok(CommandOutput::default())
    }

    pub(super) fn watch_command(
        &mut self,
        kind: WatchKind,
        place: WatchWhere,
        addr: &ParsedExpr,
        len: u64,
        condition: &Option<ParsedExpr>,
    ) -> Result<CommandOutput, CommandError> {
        let name = kind.command();
        let wave = self
            .machine()
            .waves
            .get(self.selected_wave)
            .ok_or_else(|| CommandError::refused(name, "no wave selected"))?;
        if let Some((scope, a, var_len)) = self.watched_variable(name, place, addr)? {
            // The variable's bytes, unless a length other than the default is given.
            let len = if len == 4 { var_len } else { len };
            return self.add_watch(kind, scope, a, len, condition);
        }
        let a = self.eval(name, addr, None)? as u64;
        let scope = match place {
            WatchWhere::Global => Scope::Global,
            WatchWhere::Shared(None) => Scope::Shared(Some(wave.workgroup)),
            WatchWhere::Shared(Some(g)) => Scope::Shared(g),
            WatchWhere::Scratch(w, l) => Scope::Scratch {
                wave: w.unwrap_or(wave.id),
                lane: l.unwrap_or(self.selected_lane),
            },
        };
        self.add_watch(kind, scope, a, len, condition)
    }

    /// `watch NAME` of a source variable live at the selected wave's PC: the scope,
    /// address and size of its memory (a shared one in the wave's workgroup, a scratch one
    /// in the selected lane); `None` when the expression is not a bare variable name.
    /// A variable in registers is refused: watchpoints watch memory.
    fn watched_variable(
        &self,
        name: &'static str,
        place: WatchWhere,
        addr: &ParsedExpr,
    ) -> Result<Option<(Scope, u64, u64)>, CommandError> {
        let (Expr::Label(var), WatchWhere::Global) = (&addr.expr, place) else {
            return Ok(None);
        };
        let m = self.machine();
        let w = self.selected_wave;
        let (Some(v), Some(wave)) = (locals::live_var(m, w, var), m.waves.get(w)) else {
            return Ok(None);
        };
        let (scope, a) = match &v.location {
            VarLocation::Global { buffer, offset } => {
                let base = m
                    .buffer_base(buffer)
                    .ok_or_else(|| CommandError::refused(name, format!("no buffer `{buffer}`")))?;
                (Scope::Global, base.wrapping_add(*offset))
            }
            VarLocation::Shared(a) => (Scope::Shared(Some(wave.workgroup)), *a),
            VarLocation::Scratch(a) => (
                Scope::Scratch {
                    wave: wave.id,
                    lane: self.selected_lane,
                },
                *a,
            ),
            other => {
                return Err(CommandError::refused(
                    name,
                    format!("`{var}` lives in {other}, not memory: watchpoints watch memory"),
                ))
            }
        };
        Ok(Some((scope, a, v.ty.bytes())))
    }

    /// Adds a watchpoint and says so, as gdb does.
    fn add_watch(
        &mut self,
        kind: WatchKind,
        scope: Scope,
        a: u64,
        len: u64,
        condition: &Option<ParsedExpr>,
    ) -> Result<CommandOutput, CommandError> {
        let name = kind.command();
        let id = self
            .add_watchpoint(kind, scope, a, len, condition.clone())
            .map_err(|e| CommandError::engine(name, e))?;
        let text = format!(
            "{} {id}: {}:{a:#x}{}, {len} byte{}\n",
            kind.name(),
            scope.space().name(),
            scope.instance_text(),
            if len == 1 { "" } else { "s" }
        );
        Ok(CommandOutput::with(text, Output::PointSet(id)))
    }
}

/// What a command that takes [`Numbers`] says when some of them name nothing: refused
/// when none named anything (`nothing`: nothing was done), else a line that says which.
pub(super) fn partly(
    name: &'static str,
    nothing: bool,
    missing: &Numbers,
    what: &str,
) -> Result<CommandOutput, CommandError> {
    if missing.is_all() {
        return Ok(CommandOutput::default());
    }
    let text = missing.none_named(what);
    if nothing {
        return Err(CommandError::refused(name, text));
    }
    let mut line = String::new();
    let mut chars = text.chars();
    line.extend(chars.next().map(|c| c.to_ascii_uppercase()));
    line.extend(chars);
    Ok(CommandOutput::text(line + ".\n"))
}
