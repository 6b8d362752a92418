//! Breakpoint requests, each mapped to the engine's `break`, `watch`, `ignore`, `delete`
//! and `set check` commands: source lines, labels, code addresses, watchpoints on
//! global, shared and scratch memory, and the exception filters. Each request replaces
//! its family's points (the protocol sends the full set every time).

use std::io::Write;

use wavedbg_emulator::check::CheckGroup;
use wavedbg_emulator::debug::breakpoint::{Filters, WatchKind};
use wavedbg_emulator::debug::command::{parse_mem_ref, Command, Location, Numbers, WatchWhere};
use wavedbg_emulator::debug::expr::{self, Expr, ParsedExpr};
use wavedbg_emulator::debug::{Engine, Output};
use wavedbg_emulator::memory::Space;

use crate::error::DapError;
use crate::launch::FAULTS;
use crate::session::{Reply, Session};
use crate::types::{
    Breakpoint, BreakpointLocation, BreakpointLocationsArguments, BreakpointLocationsBody,
    BreakpointsBody, DataAccessType, DataBreakpointInfoArguments, DataBreakpointInfoBody,
    SetBreakpointsArguments, SetDataBreakpointsArguments, SetExceptionBreakpointsArguments,
    SetFunctionBreakpointsArguments, SetInstructionBreakpointsArguments, Source,
};
use crate::variables::{Container, Reference};

/// A breakpoint to set, from any of the requests.
struct Wanted {
    location: Location,
    condition: Option<String>,
    hit_condition: Option<String>,
    log_message: Option<String>,
}

/// The ignore count a hit condition means: `N` and `>=N` stop from the Nth hit, `>N`
/// after it (`None`: not a hit condition the engine's ignore count can express, such as
/// `==N`, which stops at the Nth hit only, or `%N`).
pub fn ignore_count(hit: &str) -> Option<u32> {
    let hit = hit.trim();
    let (after, n) = if let Some(n) = hit.strip_prefix(">=") {
        (false, n)
    } else if let Some(n) = hit.strip_prefix('>') {
        (true, n)
    } else {
        (false, hit)
    };
    let n: u32 = n.trim().parse().ok()?;
    Some(if after { n } else { n.saturating_sub(1) })
}

/// A data breakpoint's id: `SPACE:LEN:EXPR`.
pub fn data_id(space: Space, len: u64, expr: &str) -> String {
    format!("{}:{len}:{expr}", space.name())
}

/// A data breakpoint id's parts.
fn parse_data_id(id: &str) -> Result<(Space, u64, &str), DapError> {
    let bad = || DapError::Invalid(format!("`{id}` is not a data id from dataBreakpointInfo"));
    let mut parts = id.splitn(3, ':');
    let space = match parts.next() {
        Some("global") => Space::Global,
        Some("shared") => Space::Shared,
        Some("scratch") => Space::Scratch,
        _ => return Err(bad()),
    };
    let len = parts.next().and_then(|n| n.parse().ok()).ok_or_else(bad)?;
    let expr = parts.next().filter(|e| !e.is_empty()).ok_or_else(bad)?;
    Ok((space, len, expr))
}

/// The higher-level file (`.file N` of the kernel's line table) `file` names, matched as
/// `break FILE:LINE` matches it (by whole trailing path components, an absolute path by
/// its place); `None` for any other file.
fn high_level_file(engine: &Engine, file: Option<&str>) -> Option<u32> {
    engine.line_files_named(file?).first().copied()
}

/// The last component of a path, as the engine matches a file named in a location.
fn last_component(p: &str) -> Option<String> {
    std::path::Path::new(p)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
}

/// A source file a request names (by `path` or `name`), resolved to the file the engine
/// takes it for: the kernel's own, a higher-level file of its line table, or another.
pub(crate) struct Named {
    /// What the file's breakpoints are kept under: the resolved file's path made
    /// canonical, so one file named by path, by name, or by another spelling of its path
    /// is one file.
    pub key: String,
    /// The file as a location names it (the client's path, else its name).
    pub file: String,
    /// The higher-level file: its line-table number and its source as stack frames name
    /// it (name and path).
    pub high: Option<(u32, Source)>,
    /// Whether it is the kernel's own file.
    pub kernel: bool,
}

impl Named {
    /// Resolves `source` in `engine`'s kernel; `request` names the request when it is
    /// refused (no source, or one with neither a path nor a name).
    pub(crate) fn resolve(
        engine: &Engine,
        source: Option<&Source>,
        request: &str,
    ) -> Result<Named, DapError> {
        let source = source.ok_or_else(|| {
            DapError::Invalid(format!("`{request}` needs `source`: the file it is about"))
        })?;
        let file = source
            .path
            .clone()
            .or(source.name.clone())
            .filter(|f| !f.trim().is_empty())
            .ok_or_else(|| {
                DapError::Invalid(format!(
                    "`{request}`: the source names no file (give its `path` or `name`)"
                ))
            })?;
        if let Some(n) = high_level_file(engine, Some(&file)) {
            let beside = engine.kernel_path().map(std::path::Path::new);
            let shown = engine
                .machine()
                .program()
                .source_info
                .files
                .iter()
                .find(|f| f.number == n)
                .map(|f| crate::places::source_of(&f.beside(beside)))
                .unwrap_or_else(|| source.clone());
            let key = shown.path.clone().unwrap_or_else(|| file.clone());
            return Ok(Named {
                key,
                file,
                high: Some((n, shown)),
                kernel: false,
            });
        }
        // The kernel's file is named by its last component, as `break FILE:LINE` takes it.
        let kernel_path = engine.kernel_path();
        let kernel = kernel_path.and_then(last_component) == last_component(&file);
        let key = match (kernel, kernel_path, &source.path) {
            (true, Some(k), _) => crate::paths::normal_path(k),
            (_, _, Some(p)) => crate::paths::normal_path(p),
            _ => file.clone(),
        };
        Ok(Named {
            key,
            file,
            high: None,
            kernel,
        })
    }
}

/// Whether a memory reference names its space (`global:`, `shared:`, `scratch:`).
fn has_space_prefix(name: &str) -> bool {
    name.trim()
        .split_once(':')
        .is_some_and(|(s, _)| ["global", "shared", "scratch"].contains(&s))
}

/// The first register or source variable `expr` reads, as the user would name it (`u4`,
/// `v3`, `exec`, `pc`, `variable x`); `None` when it reads none (a number, buffers and
/// labels, memory).
fn register_named(m: &wavedbg_emulator::machine::Machine, expr: &Expr) -> Option<String> {
    match expr {
        Expr::UReg(n) => Some(format!("register u{n}")),
        Expr::VReg(n, _) => Some(format!("register v{n}")),
        Expr::Exec => Some("register exec".into()),
        Expr::Pc => Some("register pc".into()),
        Expr::Label(name) | Expr::Index(name, _) if expr::symbol(m, name).is_none() => {
            Some(format!("variable `{name}`"))
        }
        Expr::Index(_, a) | Expr::Unary(_, a) | Expr::Call(_, a) => register_named(m, a),
        Expr::Binary(_, a, b) => register_named(m, a).or_else(|| register_named(m, b)),
        // Memory read at an address computed from registers is memory, not a register.
        _ => None,
    }
}

fn condition(text: &Option<String>) -> Result<Option<ParsedExpr>, DapError> {
    match text.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(t) => ParsedExpr::parse(t)
            .map(Some)
            .map_err(|e| DapError::Invalid(format!("condition `{t}`: {e}"))),
    }
}

impl<W: Write> Session<W> {
    fn delete_points(&mut self, ids: Vec<u32>) {
        for id in ids {
            self.points.logs.remove(&id);
            // A point the user deleted in the console is gone already.
            let _ = self.command(Command::Delete(Numbers::one(id)));
        }
    }

    /// Sets one breakpoint through `break` (and `ignore` for a hit condition).
    fn set_one(&mut self, want: &Wanted) -> Result<u32, DapError> {
        let hits = match want.hit_condition.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(h) => Some(ignore_count(h).ok_or_else(|| {
                DapError::Invalid(format!(
                    "hit condition `{h}`: wavedbg takes N, >=N or >N (stop from the Nth hit on, or after it); not ==N or %N"
                ))
            })?),
        };
        let out = self.command(Command::Break {
            location: want.location.clone(),
            condition: condition(&want.condition)?,
            filters: Filters::default(),
            temporary: false,
        })?;
        let Output::PointSet(id) = out.value else {
            return Err(DapError::Invalid("the engine set no breakpoint".into()));
        };
        if let Some(n) = hits.filter(|n| *n > 0) {
            self.command(Command::Ignore(id, n))?;
        }
        if let Some(m) = &want.log_message {
            self.points.logs.insert(id, m.clone());
        }
        Ok(id)
    }

    /// Sets each wanted breakpoint, in order; one refused before (`Err`: why) or that fails
    /// is reported unverified with why. `high`: the higher-level file they were set in.
    fn set_all(
        &mut self,
        wanted: Vec<Result<Wanted, String>>,
        high: Option<&(u32, Source)>,
    ) -> (Vec<u32>, Vec<Breakpoint>) {
        let mut ids = Vec::new();
        let mut shown = Vec::new();
        for want in wanted {
            match want.and_then(|w| self.set_one(&w).map_err(|e| e.to_string())) {
                Ok(id) => {
                    ids.push(id);
                    shown.push(self.describe_point(id, high));
                }
                Err(why) => shown.push(Breakpoint {
                    verified: false,
                    message: Some(wavedbg_emulator::clip_quoted(why)),
                    ..Breakpoint::default()
                }),
            }
        }
        (ids, shown)
    }

    /// A set breakpoint as the protocol shows it: its address, file and line. One set in
    /// a higher-level source file (`high`, a `.file` of the line table) is shown in that
    /// file's lines, the file named as stack frames name it; others in the kernel's own.
    fn describe_point(&self, id: u32, high: Option<&(u32, Source)>) -> Breakpoint {
        let Some(engine) = &self.engine else {
            return Breakpoint::default();
        };
        let Some(b) = engine.breakpoints().iter().find(|b| b.id == id) else {
            return Breakpoint {
                id: Some(i64::from(id)),
                verified: true,
                ..Breakpoint::default()
            };
        };
        let high = high.map(|(n, s)| {
            (
                s.clone(),
                b.addrs
                    .iter()
                    .find_map(|&a| engine.line_row_at(a).filter(|r| r.file == *n)),
            )
        });
        let (source, line) = match high {
            Some((source, row)) => (Some(source), row.map(|r| r.line)),
            None => (
                self.kernel_source(),
                engine.machine().program().line_at(b.addr()),
            ),
        };
        Breakpoint {
            id: Some(i64::from(id)),
            verified: true,
            message: None,
            source,
            line: line.map(|l| self.client_line(l)),
            instruction_reference: Some(format!("{:#x}", b.addr())),
        }
    }

    /// The kernel's source file as the protocol names it (none for an object file).
    pub(crate) fn kernel_source(&self) -> Option<Source> {
        let engine = self.engine.as_ref()?;
        let path = engine.kernel_path()?;
        if path.ends_with(".wko") {
            return None;
        }
        Some(crate::places::source_of(std::path::Path::new(path)))
    }

    pub(crate) fn breakpoint_locations(
        &mut self,
        args: BreakpointLocationsArguments,
    ) -> Result<Reply, DapError> {
        let (first, last) = (
            self.engine_line(args.line)?,
            self.engine_line(args.end_line.unwrap_or(args.line))?,
        );
        let line_base = self.line_base;
        let engine = self.engine()?;
        let named = Named::resolve(engine, args.source.as_ref(), "breakpointLocations")?;
        if let Some((n, _)) = named.high {
            // A higher-level file: its lines with a statement, where `break` goes.
            let mut lines: Vec<u32> = engine
                .machine()
                .program()
                .source_info
                .rows
                .iter()
                .filter(|r| r.file == n && r.is_stmt && r.line != 0)
                .map(|r| r.line)
                .filter(|l| (first..=last).contains(&u64::from(*l)))
                .collect();
            lines.sort_unstable();
            lines.dedup();
            let breakpoints = lines
                .into_iter()
                .map(|l| BreakpointLocation {
                    line: i64::from(l) - 1 + line_base,
                })
                .collect();
            return Reply::body(BreakpointLocationsBody { breakpoints });
        }
        let mut lines: Vec<u32> = engine
            .machine()
            .program()
            .lines
            .iter()
            .map(|(_, l)| *l)
            .filter(|l| (first..=last).contains(&u64::from(*l)))
            .collect();
        lines.sort_unstable();
        lines.dedup();
        // Lines of another file have no code here.
        let breakpoints = if named.kernel {
            lines
                .into_iter()
                .map(|l| BreakpointLocation {
                    line: i64::from(l) - 1 + line_base,
                })
                .collect()
        } else {
            Vec::new()
        };
        Reply::body(BreakpointLocationsBody { breakpoints })
    }

    pub(crate) fn set_breakpoints(
        &mut self,
        args: SetBreakpointsArguments,
    ) -> Result<Reply, DapError> {
        // One file however the client names it: by path (`a/./k.s`, relative or not) or
        // by name, its breakpoints are kept under the file the engine resolves.
        let named = Named::resolve(self.engine()?, args.source.as_ref(), "setBreakpoints")?;
        let old = self.points.source.remove(&named.key).unwrap_or_default();
        self.delete_points(old);
        // The response is in the order of `breakpoints`, or of the deprecated `lines`
        // when a client sends those alone.
        let asked = match (args.breakpoints, args.lines) {
            (Some(b), _) => b,
            (None, Some(lines)) => lines
                .into_iter()
                .map(|line| crate::types::SourceBreakpoint {
                    line,
                    ..Default::default()
                })
                .collect(),
            (None, None) => Vec::new(),
        };
        let wanted = asked
            .iter()
            .map(|b| {
                Ok(Wanted {
                    location: Location::Line {
                        file: Some(named.file.clone()),
                        line: self.engine_line(b.line).map_err(|e| e.to_string())?,
                    },
                    condition: b.condition.clone(),
                    hit_condition: b.hit_condition.clone(),
                    log_message: b.log_message.clone(),
                })
            })
            .collect();
        let (ids, breakpoints) = self.set_all(wanted, named.high.as_ref());
        self.points.source.insert(named.key, ids);
        Reply::body(BreakpointsBody { breakpoints })
    }

    pub(crate) fn set_function_breakpoints(
        &mut self,
        args: SetFunctionBreakpointsArguments,
    ) -> Result<Reply, DapError> {
        self.engine()?;
        let old = std::mem::take(&mut self.points.functions);
        self.delete_points(old);
        let wanted = args
            .breakpoints
            .iter()
            .map(|b| {
                let location = wavedbg_emulator::debug::command::parse_location(&b.name)
                    .map_err(|e| e.to_string())?;
                Ok(Wanted {
                    location,
                    condition: b.condition.clone(),
                    hit_condition: b.hit_condition.clone(),
                    log_message: None,
                })
            })
            .collect();
        let (ids, breakpoints) = self.set_all(wanted, None);
        self.points.functions = ids;
        Reply::body(BreakpointsBody { breakpoints })
    }

    pub(crate) fn set_instruction_breakpoints(
        &mut self,
        args: SetInstructionBreakpointsArguments,
    ) -> Result<Reply, DapError> {
        self.engine()?;
        let old = std::mem::take(&mut self.points.instructions);
        self.delete_points(old);
        let wanted = args
            .breakpoints
            .iter()
            .map(|b| {
                let a = expr::parse_number(b.instruction_reference.trim())
                    .map(|a| a as u64)
                    .ok_or_else(|| {
                        format!("`{}` is not a code address", b.instruction_reference)
                    })?;
                Ok(Wanted {
                    location: Location::Address(a.wrapping_add_signed(b.offset.unwrap_or(0))),
                    condition: b.condition.clone(),
                    hit_condition: b.hit_condition.clone(),
                    log_message: None,
                })
            })
            .collect();
        let (ids, breakpoints) = self.set_all(wanted, None);
        self.points.instructions = ids;
        Reply::body(BreakpointsBody { breakpoints })
    }

    pub(crate) fn data_breakpoint_info(
        &mut self,
        args: DataBreakpointInfoArguments,
    ) -> Result<Reply, DapError> {
        self.engine()?;
        let all = vec![
            DataAccessType::Write,
            DataAccessType::Read,
            DataAccessType::ReadWrite,
        ];
        let reference = args.variables_reference.unwrap_or(0);
        let (data_id, description) = if reference != 0 {
            match Reference::decode(reference).map(|r| r.container) {
                Some(Container::Buffers) => {
                    let engine = self.engine()?;
                    let m = engine.machine();
                    let found = m
                        .program()
                        .buffers
                        .iter()
                        .zip(&m.buffer_bases)
                        .find(|(b, _)| b.name == args.name)
                        .map(|(b, base)| (b.size.min(1 << 20), *base));
                    match found {
                        Some((len, base)) => (
                            Some(data_id(Space::Global, len, &format!("{base:#x}"))),
                            format!("buffer {} ({len} bytes at {base:#x})", args.name),
                        ),
                        None => (None, format!("no buffer `{}`", args.name)),
                    }
                }
                Some(_) => (
                    None,
                    "registers cannot be watched: watch memory (a buffer, or global:/shared:/scratch: ADDR)".into(),
                ),
                None => (None, format!("no variables reference {reference}")),
            }
        } else {
            let len = args.bytes.unwrap_or(4);
            let as_address = args.as_address.unwrap_or(false);
            match parse_mem_ref(&args.name, len) {
                _ if len == 0 => (None, "a watch covers at least 1 byte".into()),
                // An expression (not an address the client vouches for, nor one in a named
                // space) that names a register or a variable is that register or
                // variable, as a watch expression shows it; it is not watched as memory
                // at its value.
                Ok(m) if !as_address && !has_space_prefix(&args.name) => {
                    match register_named(self.engine()?.machine(), &m.addr.expr) {
                        Some(reg) => (
                            None,
                            wavedbg_emulator::clip_quoted(format!(
                                "`{}` reads {reg}: registers and variables cannot be \
                                 watched, only memory (`global:{}` watches the memory at \
                                 its value)",
                                args.name.trim(),
                                args.name.trim()
                            )),
                        ),
                        None => (
                            Some(data_id(m.space, len, &m.addr.text)),
                            format!("{m} ({len} bytes)"),
                        ),
                    }
                }
                Ok(m) => (
                    Some(data_id(m.space, len, &m.addr.text)),
                    format!("{m} ({len} bytes)"),
                ),
                Err(e) => (
                    None,
                    wavedbg_emulator::clip_quoted(format!("`{}`: {e}", args.name)),
                ),
            }
        };
        let access_types = if data_id.is_some() { all } else { Vec::new() };
        Reply::body(DataBreakpointInfoBody {
            data_id,
            description,
            access_types,
            can_persist: false,
        })
    }

    pub(crate) fn set_data_breakpoints(
        &mut self,
        args: SetDataBreakpointsArguments,
    ) -> Result<Reply, DapError> {
        self.engine()?;
        let old = std::mem::take(&mut self.points.data);
        self.delete_points(old);
        let mut breakpoints = Vec::new();
        for b in &args.breakpoints {
            match self.set_watch(b) {
                Ok(id) => {
                    self.points.data.push(id);
                    breakpoints.push(Breakpoint {
                        id: Some(i64::from(id)),
                        verified: true,
                        ..Breakpoint::default()
                    });
                }
                Err(e) => breakpoints.push(Breakpoint {
                    verified: false,
                    message: Some(e.to_string()),
                    ..Breakpoint::default()
                }),
            }
        }
        Reply::body(BreakpointsBody { breakpoints })
    }

    fn set_watch(&mut self, b: &crate::types::DataBreakpoint) -> Result<u32, DapError> {
        if b.hit_condition
            .as_deref()
            .is_some_and(|h| !h.trim().is_empty())
        {
            return Err(DapError::Invalid(
                "data breakpoints take conditions, not hit conditions".into(),
            ));
        }
        let (space, len, expr) = parse_data_id(&b.data_id)?;
        let addr = ParsedExpr::parse(expr).map_err(|e| DapError::Invalid(e.to_string()))?;
        let place = match space {
            Space::Global => WatchWhere::Global,
            Space::Shared => WatchWhere::Shared(None),
            Space::Scratch => WatchWhere::Scratch(None, None),
        };
        let kind = match b.access_type.unwrap_or(DataAccessType::Write) {
            DataAccessType::Write => WatchKind::Write,
            DataAccessType::Read => WatchKind::Read,
            DataAccessType::ReadWrite => WatchKind::Access,
        };
        let out = self.command(Command::Watch {
            kind,
            place,
            addr,
            len,
            condition: condition(&b.condition)?,
        })?;
        match out.value {
            Output::PointSet(id) => Ok(id),
            _ => Err(DapError::Invalid("the engine set no watchpoint".into())),
        }
    }

    pub(crate) fn set_exception_breakpoints(
        &mut self,
        args: SetExceptionBreakpointsArguments,
    ) -> Result<Reply, DapError> {
        self.engine()?;
        let known: Vec<String> = crate::launch::exception_filters()
            .into_iter()
            .map(|f| f.filter)
            .collect();
        if let Some(bad) = args.filters.iter().find(|f| !known.contains(f)) {
            return Err(DapError::Invalid(format!(
                "unknown exception filter `{bad}` (known: {})",
                known.join(", ")
            )));
        }
        self.stop_on_faults = args.filters.iter().any(|f| f == FAULTS);
        let checks = self.engine()?.checks();
        for group in CheckGroup::GROUPS {
            let on = args.filters.iter().any(|f| f == group.name());
            if checks.get(group) != on {
                self.command(Command::Check(group, on))?;
            }
        }
        Reply::body(BreakpointsBody {
            breakpoints: args
                .filters
                .iter()
                .map(|_| Breakpoint {
                    verified: true,
                    ..Breakpoint::default()
                })
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hit_conditions_as_ignore_counts_refuse_exact_counts() {
        assert_eq!(ignore_count("3"), Some(2));
        assert_eq!(ignore_count(">= 3"), Some(2));
        assert_eq!(ignore_count(">3"), Some(3));
        assert_eq!(ignore_count("1"), Some(0));
        assert_eq!(ignore_count("%2"), None);
        // An ignore count stops at every hit from the Nth on, not at the Nth alone.
        assert_eq!(ignore_count("==2"), None);
        assert_eq!(ignore_count("x"), None);
    }

    #[test]
    fn data_ids_round_trip() {
        let id = data_id(Space::Shared, 4, "out+4");
        assert_eq!(id, "shared:4:out+4");
        let (space, len, expr) = parse_data_id(&id).expect("parses");
        assert_eq!((space, len, expr), (Space::Shared, 4, "out+4"));
        assert!(parse_data_id("nope").is_err());
        assert!(parse_data_id("global:x:1").is_err());
        assert!(parse_data_id("global:4:").is_err());
    }
}
