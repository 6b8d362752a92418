//! `/` search in the Source, Code and Console panes: the prompt, the pattern kept for `n`
//! and `N`, and finding the next line that holds it from the pane's cursor, wrapping
//! around the ends. (Drawing highlights the matches with [`matches`].)

use std::borrow::Cow;

use super::state::App;
use crate::editor::LineEditor;
use crate::pane::Pane;

/// The search's state: the prompt while it is open, and the last pattern searched for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Search {
    /// The pattern being typed after `/` (the footer shows it), while the prompt is open.
    pub prompt: Option<LineEditor>,
    /// The last pattern searched for (`n`/`N` repeat it; drawing highlights it).
    pub pattern: Option<String>,
}

/// The panes `/` searches in.
pub const SEARCHABLE: [Pane; 3] = [Pane::Source, Pane::Code, Pane::Console];

/// The byte ranges of `line` that match `pattern`, left to right, not overlapping. Smart
/// case, as in vim and less: a pattern without capitals ignores case.
pub fn matches(line: &str, pattern: &str) -> Vec<(usize, usize)> {
    if pattern.is_empty() {
        return Vec::new();
    }
    let fold = !pattern.chars().any(char::is_uppercase);
    // ASCII folding keeps byte offsets the same in both strings.
    let (hay, needle) = if fold {
        (line.to_ascii_lowercase(), pattern.to_ascii_lowercase())
    } else {
        (line.to_string(), pattern.to_string())
    };
    hay.match_indices(&needle)
        .map(|(i, m)| (i, i + m.len()))
        .collect()
}

impl App {
    /// `/`: opens the search prompt in a searchable pane (else says where `/` works).
    pub(super) fn open_search(&mut self) {
        if SEARCHABLE.contains(&self.focus) {
            self.search.prompt = Some(LineEditor::new());
        } else {
            self.complain("/ searches in the Source, Code and Console panes.");
        }
    }

    /// Enter on the search prompt: searches forward for what was typed (an empty line
    /// searches for the last pattern again).
    pub(super) fn run_search(&mut self, typed: &str) {
        if !typed.is_empty() {
            self.search.pattern = Some(typed.to_string());
        }
        self.search_next(true);
    }

    /// `n` (forward) or `N` (backward): the next line of the focused pane holding the
    /// pattern, from the line after the cursor, wrapping around the ends (the message
    /// says so); a message when there is none.
    pub(super) fn search_next(&mut self, forward: bool) {
        let Some(pattern) = self.search.pattern.clone() else {
            self.complain("No search yet: / starts one.");
            return;
        };
        let lines: Vec<Cow<str>> = match self.focus {
            Pane::Source => self.source_texts(),
            Pane::Code => self
                .code
                .lines
                .iter()
                .map(|l| l.text.as_str().into())
                .collect(),
            Pane::Console => self
                .console
                .lines
                .iter()
                .map(|(l, _)| l.as_str().into())
                .collect(),
            _ => return,
        };
        let n = lines.len();
        let from = match self.focus {
            Pane::Source => self.source.cursor,
            Pane::Code => self.code.cursor,
            // The console has no cursor: from the last match, else from the latest line.
            _ => self.console.found.unwrap_or(n),
        };
        let hit = (1..=n).find_map(|k| {
            let i = if forward {
                (from + k) % n
            } else {
                (from + n * 2 - k) % n
            };
            let labels = match self.focus {
                Pane::Code => self.code.lines[i].labels.join(" "),
                _ => String::new(),
            };
            let found =
                !matches(&lines[i], &pattern).is_empty() || !matches(&labels, &pattern).is_empty();
            found.then_some((i, k))
        });
        let Some((i, k)) = hit else {
            self.complain(format!("Not found: {pattern}"));
            return;
        };
        let wrapped = if forward { from + k >= n } else { k > from };
        match self.focus {
            Pane::Source => {
                self.source.cursor = i;
                self.sync_code_to_source();
            }
            Pane::Code => self.set_code_cursor(i),
            _ => {
                self.console.found = Some(i);
                self.console.reveal = true;
            }
        }
        if wrapped {
            self.say(format!(
                "/{pattern}: search wrapped to the {}",
                if forward { "top" } else { "bottom" }
            ));
        } else {
            self.say(format!("/{pattern}  (n next, N previous)"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn smart_case() {
        assert_eq!(matches("Foo foo", "foo"), vec![(0, 3), (4, 7)]);
        assert_eq!(matches("Foo foo", "Foo"), vec![(0, 3)]);
        assert!(matches("abc", "").is_empty());
    }
}
