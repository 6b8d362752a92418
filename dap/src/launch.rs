//! `initialize`, `launch`, `configurationDone` and `restart`: what the adapter can do,
//! opening the kernel with the client's launch options, and where it starts.

use std::io::Write;
use std::path::PathBuf;

use wavedbg_emulator::asm::AssembleOptions;
use wavedbg_emulator::check::CheckGroup;
use wavedbg_emulator::debug::command::Command;
use wavedbg_emulator::debug::driver::Planned;
use wavedbg_emulator::debug::{Engine, KernelSource};
use wavedbg_emulator::machine::LaunchOptions;

use crate::error::DapError;
use crate::paths::normal_path;
use crate::session::{Reply, Session, Then};
use crate::types::{
    Capabilities, ExceptionBreakpointsFilter, InitializeArguments, LaunchArguments,
    RestartArguments,
};

/// The `faults` exception filter.
pub const FAULTS: &str = "faults";

/// The exception filters: faults, then each sanitizer detector group.
pub fn exception_filters() -> Vec<ExceptionBreakpointsFilter> {
    let mut filters = vec![ExceptionBreakpointsFilter {
        filter: FAULTS.into(),
        label: "Faults".into(),
        description: "Stop when a wave faults (bad address, illegal instruction, ...)".into(),
        default: true,
    }];
    for group in CheckGroup::GROUPS {
        filters.push(ExceptionBreakpointsFilter {
            filter: group.name().into(),
            label: format!("Sanitizer: {}", group.name()),
            description: format!(
                "Run the `{}` detector and stop at each new finding (set check {} on)",
                group.name(),
                group.name()
            ),
            default: false,
        });
    }
    filters
}

/// The launch options the arguments name (the machine's defaults for the others).
fn options(args: &LaunchArguments) -> LaunchOptions {
    let defaults = LaunchOptions::default();
    LaunchOptions {
        grid: args.grid,
        workgroup_lanes: args.workgroup,
        seed: args.seed.unwrap_or(0),
        quantum: args.quantum.unwrap_or(defaults.quantum),
        resident_workgroups: args.resident.unwrap_or(defaults.resident_workgroups),
        max_instructions: args.max_instructions.filter(|n| *n > 0),
    }
}

/// The sanitizer groups the arguments turn on.
fn groups(args: &LaunchArguments) -> Result<Vec<CheckGroup>, DapError> {
    args.checks
        .iter()
        .map(|name| {
            CheckGroup::parse(name).ok_or_else(|| {
                DapError::Invalid(format!(
                    "`{name}` is not a sanitizer group ({}, all)",
                    CheckGroup::GROUPS.map(CheckGroup::name).join(", ")
                ))
            })
        })
        .collect()
}

impl<W: Write> Session<W> {
    pub(crate) fn initialize(&mut self, args: InitializeArguments) -> Result<Reply, DapError> {
        if self.initialized {
            return Err(DapError::OutOfOrder {
                command: "initialize".into(),
                why: "the session is initialized already",
            });
        }
        self.initialized = true;
        self.line_base = i64::from(args.lines_start_at1.unwrap_or(true));
        self.column_base = i64::from(args.columns_start_at1.unwrap_or(true));
        Reply::body(Capabilities {
            supports_configuration_done_request: true,
            supports_function_breakpoints: true,
            supports_conditional_breakpoints: true,
            supports_hit_conditional_breakpoints: true,
            supports_evaluate_for_hovers: true,
            exception_breakpoint_filters: exception_filters(),
            supports_step_back: true,
            supports_set_variable: true,
            supports_restart_request: true,
            supports_goto_targets_request: true,
            supports_exception_info_request: true,
            supports_terminate_request: true,
            supports_log_points: true,
            supports_data_breakpoints: true,
            supports_data_breakpoint_bytes: true,
            supports_read_memory_request: true,
            supports_write_memory_request: true,
            supports_disassemble_request: true,
            supports_stepping_granularity: true,
            supports_instruction_breakpoints: true,
            supports_completions_request: true,
            supports_breakpoint_locations_request: true,
        })
    }

    pub(crate) fn launch(&mut self, args: LaunchArguments) -> Result<Reply, DapError> {
        if self.engine.is_some() {
            return Err(DapError::OutOfOrder {
                command: "launch".into(),
                why: "a kernel is launched already (use `restart`)",
            });
        }
        let options = options(&args);
        let source = match (&args.program, &args.session) {
            (kernel, Some(file)) => KernelSource::Session {
                file: PathBuf::from(file),
                kernel: kernel.as_ref().map(PathBuf::from),
            },
            (Some(k), None) => KernelSource::File(PathBuf::from(k)),
            (None, None) => KernelSource::Demo,
        };
        let groups = groups(&args)?;
        let asm = AssembleOptions {
            allow_files_outside_dir: args.allow_file_outside_dir,
        };
        self.engine = Some(Engine::open_with(source, options, &asm)?);
        for group in groups {
            self.command(Command::Check(group, true))?;
        }
        self.stop_on_entry = args.stop_on_entry;
        self.launched = Some(args);
        self.share_interrupt();
        // Configuration requests may come now that there is an engine to take them.
        Ok(Reply::empty().then(Then::Initialized))
    }

    pub(crate) fn configuration_done(&mut self) -> Result<Reply, DapError> {
        let engine = self.engine()?;
        let first = engine.machine().waves.first().map(|w| i64::from(w.id) + 1);
        if self.configured {
            return Err(DapError::OutOfOrder {
                command: "configurationDone".into(),
                why: "the configuration is done already",
            });
        }
        self.configured = true;
        Ok(Reply::empty().then(if self.stop_on_entry {
            Then::Stopped {
                reason: "entry",
                thread: first,
            }
        } else {
            Then::Run(Command::Continue)
        }))
    }

    pub(crate) fn restart(&mut self, args: RestartArguments) -> Result<Reply, DapError> {
        // The run it interrupted (if any) reported its stop; the relaunch's run must not
        // take the request for a pause.
        self.pause_handled();
        match args.arguments {
            // Other launch options for the same kernel: the engine relaunches with them,
            // keeping the points.
            Some(new) => {
                let old = self.launched.clone().unwrap_or_default();
                // The same files however the paths are spelled.
                let files = |a: &LaunchArguments| {
                    let normal = |p: &Option<String>| p.as_deref().map(normal_path);
                    (normal(&a.program), normal(&a.session))
                };
                if files(&new) != files(&old) {
                    return Err(DapError::Invalid(
                        "restart runs the same kernel: start a new session for another one".into(),
                    ));
                }
                let groups = groups(&new)?;
                self.engine()?
                    .relaunch(options(&new))
                    .map_err(|e| DapError::Invalid(e.to_string()))?;
                let checks = self.engine()?.checks();
                for group in CheckGroup::GROUPS {
                    let on = groups.iter().any(|g| *g == group || *g == CheckGroup::All);
                    if on && !checks.get(group) {
                        self.command(Command::Check(group, true))?;
                    }
                }
                self.stop_on_entry = new.stop_on_entry;
                self.launched = Some(new);
            }
            None => {
                self.command(Command::Restart)?;
            }
        }
        self.ended = false;
        let first = self
            .engine()?
            .machine()
            .waves
            .first()
            .map(|w| i64::from(w.id) + 1);
        Ok(Reply::empty().then(if self.stop_on_entry {
            Then::Stopped {
                reason: "entry",
                thread: first,
            }
        } else {
            // The client hears that the relaunched kernel runs (`continued`), as after
            // a console line that runs it.
            Then::RunLine(Box::new(Planned::typed(Command::Continue)))
        }))
    }
}
