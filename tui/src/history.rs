//! The command history shared with the REPL. Both use one implementation, rustyline's
//! [`FileHistory`]: the same file format (a `#V2` header line, then one command per line,
//! newlines and backslashes escaped), the same locking and merging when both append to the
//! file. This module adds what the TUI's command line needs on top: browsing with Up/Down
//! and the draft typed before browsing began. Lines typed on the command line are appended
//! as they are run.

use std::path::{Path, PathBuf};

use rustyline::history::{FileHistory, History as _, SearchDirection};
use rustyline::Config;
use wavedbg_emulator::debug::session::HISTORY_ENTRIES;
use wavedbg_emulator::files;

/// Command history with a browsing position.
pub struct History {
    path: Option<PathBuf>,
    file: FileHistory,
    /// Index being shown while browsing (`None`: not browsing).
    pos: Option<usize>,
    /// What was typed before browsing began.
    draft: String,
    /// The entry being shown while browsing.
    shown: String,
    /// Why the file is not used (or no longer), until the front end takes it to show.
    warning: Option<String>,
}

impl std::fmt::Debug for History {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("History")
            .field("path", &self.path)
            .field("entries", &self.file.len())
            .field("pos", &self.pos)
            .finish()
    }
}

impl Default for History {
    fn default() -> History {
        History {
            path: None,
            file: FileHistory::with_config(&config()),
            pos: None,
            draft: String::new(),
            shown: String::new(),
            warning: None,
        }
    }
}

/// The line-editor settings of the shared history: [`HISTORY_ENTRIES`] entries, a line
/// repeating the last one not added, the rules the engine states for every front end
/// (the REPL builds its editor with the same), so both keep and trim the file alike.
pub fn config() -> Config {
    Config::builder()
        .max_history_size(HISTORY_ENTRIES)
        .and_then(|b| b.history_ignore_dups(true))
        .map(|b| b.build())
        .unwrap_or_default()
}

impl History {
    /// Loads the history file at `path` (a missing or unreadable file gives an empty
    /// history); new lines are appended to it. A path that is not a regular file (a
    /// device, a FIFO) or is larger than [`files::HISTORY`] is not used: the line editor
    /// would set its mode and read it whole; the history then lives in memory, and
    /// [`History::take_warning`] says why.
    pub fn load(path: &Path) -> History {
        let mut h = History::default();
        match files::check_appendable(path, files::HISTORY) {
            Ok(()) => {
                let _ = h.file.load(path);
                h.path = Some(path.to_path_buf());
            }
            Err(e) => h.warning = Some(format!("command history not saved: {e}")),
        }
        h
    }

    /// Why the history file is not used, once: the first call after it failed.
    pub fn take_warning(&mut self) -> Option<String> {
        self.warning.take()
    }

    /// A history kept in memory only, lost on exit (tests, and no history file).
    pub fn in_memory() -> History {
        History::default()
    }

    /// A copy of the entries, oldest first.
    pub fn entries(&self) -> Vec<String> {
        self.file.iter().cloned().collect()
    }

    /// Adds a line (unless it repeats the last one, or [`files::history_keeps`] refuses
    /// it: longer than [`files::HISTORY_LINE`], or holding a control character) and
    /// appends it to the file. A file that cannot be written
    /// is not an error: the history then lives for this session only, and
    /// [`History::take_warning`] says why, once.
    pub fn add(&mut self, line: &str) {
        self.pos = None;
        let line = line.trim();
        if !files::history_keeps(line) || !self.file.add(line).unwrap_or(false) {
            return;
        }
        if let Some(path) = &self.path {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                let _ = std::fs::create_dir_all(dir);
            }
            if let Err(e) = self.file.append(path) {
                self.warning = Some(format!(
                    "command history not saved to {} from now on: {e}",
                    path.display()
                ));
                self.path = None;
            }
        }
    }

    fn entry(&mut self, i: usize) -> Option<&str> {
        let e = self.file.get(i, SearchDirection::Forward).ok()??;
        self.shown = e.entry.into_owned();
        Some(&self.shown)
    }

    /// The previous (older) entry while browsing; `current` is the line being edited,
    /// restored when browsing goes past the newest entry.
    pub fn older(&mut self, current: &str) -> Option<&str> {
        let next = match self.pos {
            None => {
                self.draft = current.to_string();
                self.file.len().checked_sub(1)?
            }
            Some(p) => p.checked_sub(1)?,
        };
        self.pos = Some(next);
        self.entry(next)
    }

    /// The next (newer) entry, or the draft after the newest.
    pub fn newer(&mut self) -> Option<&str> {
        let p = self.pos?;
        if p + 1 < self.file.len() {
            self.pos = Some(p + 1);
            self.entry(p + 1)
        } else {
            self.pos = None;
            Some(&self.draft)
        }
    }

    /// Stops browsing: the next Up starts again from the newest entry.
    pub fn reset(&mut self) {
        self.pos = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_the_header_and_appends() {
        let dir = std::env::temp_dir().join(format!("wavedbg-hist-{}", std::process::id()));
        let path = dir.join("history");
        let _ = std::fs::create_dir_all(&dir);
        std::fs::write(&path, "#V2\nbreak next_word\nstepi\n").unwrap_or(());
        let mut h = History::load(&path);
        assert_eq!(h.entries(), ["break next_word", "stepi"]);
        h.add("continue");
        h.add("continue");
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        assert_eq!(text, "#V2\nbreak next_word\nstepi\ncontinue\n");
        assert_eq!(h.older("typed"), Some("continue"));
        assert_eq!(h.older(""), Some("stepi"));
        assert_eq!(h.newer(), Some("continue"));
        assert_eq!(h.newer(), Some("typed"));
        assert_eq!(h.newer(), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn long_lines_stay_out_and_a_device_is_never_the_file() {
        let dir = std::env::temp_dir().join(format!("wavedbg-hist-long-{}", std::process::id()));
        let path = dir.join("history");
        let _ = std::fs::create_dir_all(&dir);
        let mut h = History::load(&path);
        let long = format!("print {}", "1+".repeat(files::HISTORY_LINE));
        h.add(&long);
        h.add("print 1\u{7}");
        h.add("print \u{1b}[2J2");
        h.add("stepi");
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(!text.contains("1+1+"), "a long line was saved");
        assert!(
            !text.contains("print 1") && !text.contains('\u{1b}'),
            "{text:?}"
        );
        assert!(text.ends_with("stepi\n"), "{text:?}");
        let _ = std::fs::remove_dir_all(&dir);

        // /dev/full: refused with one warning, and its mode is not touched.
        let mode = |p: &str| {
            std::fs::metadata(p).map(|m| {
                use std::os::unix::fs::PermissionsExt;
                m.permissions().mode()
            })
        };
        let before = mode("/dev/full").ok();
        let mut h = History::load(Path::new("/dev/full"));
        h.add("continue");
        let warning = h.take_warning().unwrap_or_default();
        assert!(warning.contains("/dev/full"), "{warning}");
        assert_eq!(h.take_warning(), None);
        assert_eq!(mode("/dev/full").ok(), before);
        assert_eq!(h.entries(), ["continue"]);
    }
}
