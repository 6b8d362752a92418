//! The command history shared with the REPL: one command per line in a plain file (a
//! leading `#V2` header line, written by the REPL's line editor, is skipped). Lines typed on
//! the command line are appended as they are run.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Command history with a browsing position.
#[derive(Debug, Clone, Default)]
pub struct History {
    path: Option<PathBuf>,
    entries: Vec<String>,
    /// Index being shown while browsing (`None`: not browsing).
    pos: Option<usize>,
    /// What was typed before browsing began.
    draft: String,
}

/// Keep at most this many entries in memory.
const MAX: usize = 1000;

impl History {
    /// Loads the history file at `path` (a missing or unreadable file gives an empty
    /// history); new lines are appended to it.
    pub fn load(path: &Path) -> History {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let mut entries: Vec<String> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if i == 0 && line.starts_with("#V") {
                continue;
            }
            let line = line.trim();
            if !line.is_empty() && entries.last().map(String::as_str) != Some(line) {
                entries.push(line.to_string());
            }
        }
        let skip = entries.len().saturating_sub(MAX);
        entries.drain(..skip);
        History {
            path: Some(path.to_path_buf()),
            entries,
            pos: None,
            draft: String::new(),
        }
    }

    /// A history kept in memory only.
    pub fn in_memory() -> History {
        History::default()
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    /// Adds a line (unless it repeats the last one) and appends it to the file. A file that
    /// cannot be written is not an error: the history then lives for this session only.
    pub fn add(&mut self, line: &str) {
        self.pos = None;
        let line = line.trim();
        if line.is_empty() || self.entries.last().map(String::as_str) == Some(line) {
            return;
        }
        self.entries.push(line.to_string());
        if let Some(path) = &self.path {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                let _ = std::fs::create_dir_all(dir);
            }
            if let Ok(mut f) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
            {
                let _ = writeln!(f, "{line}");
            }
        }
    }

    /// The previous (older) entry while browsing; `current` is the line being edited,
    /// restored when browsing goes past the newest entry.
    pub fn older(&mut self, current: &str) -> Option<&str> {
        let next = match self.pos {
            None => {
                self.draft = current.to_string();
                self.entries.len().checked_sub(1)?
            }
            Some(p) => p.checked_sub(1)?,
        };
        self.pos = Some(next);
        self.entries.get(next).map(String::as_str)
    }

    /// The next (newer) entry, or the draft after the newest.
    pub fn newer(&mut self) -> Option<&str> {
        let p = self.pos?;
        if p + 1 < self.entries.len() {
            self.pos = Some(p + 1);
            self.entries.get(p + 1).map(String::as_str)
        } else {
            self.pos = None;
            Some(&self.draft)
        }
    }

    /// Stops browsing.
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
}
