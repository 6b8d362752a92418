//! Session files: `save` and `load`.

use std::path::Path;

use super::CommandOutput;
use crate::debug::command::CommandError;
use crate::debug::session::Session;
use crate::debug::{view, Engine};

impl Engine {
    /// `save FILE`: the session as RON, written atomically.
    pub(super) fn save_command(&mut self, file: &str) -> Result<CommandOutput, CommandError> {
        let s = Session::capture(self);
        s.save(Path::new(file), &self.source_paths())
            .map_err(|e| CommandError::refused("save", e.to_string()))?;
        let mut text = format!(
            "Saved session to {file} ({}, {}, {}).\n",
            view::count(s.breakpoints.len() as u64, "breakpoint"),
            view::count(s.watchpoints.len() as u64, "watchpoint"),
            view::count(s.log.len() as u64, "command")
        );
        if self.log_truncated() {
            text.push_str(&format!("Warning: the command log holds only the first {} commands of this session; replaying it stops there.\n", crate::debug::MAX_LOG));
        }
        Ok(CommandOutput::text(text))
    }

    /// The session `load FILE` would apply, read and checked (a session of this kernel),
    /// without changing anything: the front ends ask before a `load` only when it can
    /// happen.
    pub(crate) fn loadable(&self, file: &str) -> Result<Session, CommandError> {
        let refused = |m: String| CommandError::refused("load", m);
        let s = Session::load(Path::new(file)).map_err(|e| refused(e.to_string()))?;
        if let Some(mine) = self.kernel_path() {
            if !s.is_for_kernel(Path::new(file), mine) {
                return Err(refused(format!("{file} is a session of kernel {}, not {mine}; open it with `--session {file}` on that kernel", s.kernel)));
            }
        }
        Ok(s)
    }

    /// `load FILE`: a session of this kernel, applied (the launch restarts).
    pub(super) fn load_command(&mut self, file: &str) -> Result<CommandOutput, CommandError> {
        let refused = |m: String| CommandError::refused("load", m);
        let s = self.loadable(file)?;
        s.apply(self, file).map_err(|e| refused(e.to_string()))?;
        Ok(CommandOutput::text(format!(
            "Loaded session {file}: {}, {}, {}; launch restarted.\n",
            view::count(s.breakpoints.len() as u64, "breakpoint"),
            view::count(s.watchpoints.len() as u64, "watchpoint"),
            view::count(s.displays.len() as u64, "display")
        )))
    }
}
