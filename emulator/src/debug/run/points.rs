//! Breakpoint and watchpoint commands: `break`, `tbreak`, `delete`, `enable`, `disable`,
//! `ignore`, `condition`, `watch`, `rwatch`, `awatch`.

use std::fmt::Write;

use super::{CommandOutput, Output};
use crate::debug::breakpoint::Scope;
use crate::debug::command::{Command, CommandError, WatchWhere};
use crate::debug::{view, Engine};

impl Engine {
    pub(super) fn run_points(&mut self, cmd: &Command) -> Result<CommandOutput, CommandError> {
        let name = cmd.name();
        let refused = |e| CommandError::engine(name, e);
        Ok(match cmd {
            Command::Break {
                location,
                condition,
                filters,
                temporary,
            } => {
                let id = self
                    .add_breakpoint(location, condition.clone(), *filters, *temporary)
                    .map_err(refused)?;
                let addr = self
                    .breakpoints()
                    .iter()
                    .find(|b| b.id == id)
                    .map_or(0, |b| b.addr);
                // As gdb confirms a thread-specific breakpoint: every filter is named.
                let mut filter_text = String::new();
                if let Some(w) = filters.wave {
                    let _ = write!(filter_text, ", wave {w}");
                }
                if let Some(g) = filters.workgroup {
                    let _ = write!(filter_text, ", workgroup {g}");
                }
                if let Some(l) = filters.lane {
                    let _ = write!(filter_text, ", lane {l}");
                }
                let line = self
                    .machine()
                    .program()
                    .line_at(addr)
                    .zip(self.source())
                    .map(|(l, src)| {
                        let file = std::path::Path::new(src.name)
                            .file_name()
                            .map_or(src.name.into(), |f| f.to_string_lossy());
                        format!(" ({file}:{l})")
                    })
                    .unwrap_or_default();
                let text = format!(
                    "{} {id} at {}{line}{filter_text}{}\n",
                    if *temporary {
                        "Temporary breakpoint"
                    } else {
                        "Breakpoint"
                    },
                    view::pc_text(self.machine(), addr),
                    condition
                        .as_ref()
                        .map(|c| format!(" if {c}"))
                        .unwrap_or_default()
                );
                CommandOutput::with(text, Output::PointSet(id))
            }
            Command::Delete(id) => {
                self.delete(*id).map_err(refused)?;
                CommandOutput::default()
            }
            Command::Enable(id, on) => {
                self.set_enabled(*id, *on).map_err(refused)?;
                CommandOutput::default()
            }
            Command::Ignore(id, n) => {
                self.set_ignore(*id, *n).map_err(refused)?;
                CommandOutput::text(format!(
                    "Will ignore next {} of breakpoint {id}.\n",
                    view::count(*n as u64, "crossing")
                ))
            }
            Command::Condition(id, c) => {
                self.set_condition(*id, c.clone()).map_err(refused)?;
                CommandOutput::default()
            }
            Command::Watch {
                kind,
                place,
                addr,
                len,
                condition,
            } => {
                let a = self.eval(name, addr, None)? as u64;
                let wave = self
                    .machine()
                    .waves
                    .get(self.selected_wave)
                    .ok_or_else(|| CommandError::refused(name, "no wave selected"))?;
                let scope = match place {
                    WatchWhere::Global => Scope::Global,
                    WatchWhere::Shared(None) => Scope::Shared(Some(wave.workgroup)),
                    WatchWhere::Shared(Some(g)) => Scope::Shared(*g),
                    WatchWhere::Scratch(w, l) => Scope::Scratch {
                        wave: w.unwrap_or(wave.id),
                        lane: l.unwrap_or(self.selected_lane),
                    },
                };
                let id = self
                    .add_watchpoint(*kind, scope, a, *len, condition.clone())
                    .map_err(refused)?;
                let text = format!(
                    "{} {id}: {}:{a:#x}{}, {len} byte{}\n",
                    kind.name(),
                    scope.space().name(),
                    scope.instance_text(),
                    if *len == 1 { "" } else { "s" }
                );
                CommandOutput::with(text, Output::PointSet(id))
            }
            _ => unreachable_family(cmd),
        })
    }
}

/// A command routed to the wrong family: `dispatch` sends each command to the one file
/// that handles it, so this is a bug in the engine, reported as a refusal rather than a
/// panic.
pub(super) fn unreachable_family(cmd: &Command) -> CommandOutput {
    CommandOutput::text(format!(
        "internal error: `{}` reached the wrong handler\n",
        cmd.name()
    ))
}
