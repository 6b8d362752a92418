//! A list of entries of one or more lines each (the Watch pane's displays, the Locals
//! pane's variables), in a pane that may be shorter than one entry: the movement keys
//! select entries, and scroll through the selected one first when it is taller than the
//! pane, so every line marked as more (`▼`) can be brought into view.

pub(crate) use super::input::Motion;

/// The selected entry and how far the view has scrolled into it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EntryCursor {
    /// The selected entry, 0-based (clamped to the entries there are).
    pub cursor: usize,
    /// The selected entry's first line shown, when it is taller than the pane (0: its
    /// head; drawing clamps it to the entry's last page).
    pub within: usize,
}

impl EntryCursor {
    /// Selects entry `item` (a click): its head, unless it is selected already.
    pub fn select(&mut self, item: usize) {
        if item != self.cursor {
            *self = EntryCursor {
                cursor: item,
                within: 0,
            };
        }
    }

    /// Moves by `motion` among `n` entries whose heights as last drawn are `lines` (one
    /// line each when it does not match `n`: not drawn yet) in a pane of `rows` rows. Up
    /// and Down scroll a line within an entry taller than the pane before they select the
    /// next one (Up lands on the previous entry's last page); PgUp/PgDn scroll a page within
    /// it, else select `rows` entries away; Home and End show the first entry's head and
    /// the last entry's end (its end whatever its height when none was drawn yet).
    pub(crate) fn apply(&mut self, motion: Motion, n: usize, lines: &[usize], rows: usize) {
        let rows = rows.max(1);
        let drawn = lines.len() == n;
        let overflow = |i: usize| {
            if drawn {
                lines.get(i).map_or(0, |l| l.saturating_sub(rows))
            } else {
                0
            }
        };
        let last = n.saturating_sub(1);
        let c = self.cursor.min(last);
        let within = self.within.min(overflow(c));
        *self = match motion {
            Motion::Down if within < overflow(c) => EntryCursor {
                cursor: c,
                within: within + 1,
            },
            Motion::Down => EntryCursor {
                cursor: (c + 1).min(last),
                within: if c < last { 0 } else { within },
            },
            Motion::Up if within > 0 => EntryCursor {
                cursor: c,
                within: within - 1,
            },
            Motion::Up if c > 0 => EntryCursor {
                cursor: c - 1,
                within: overflow(c - 1),
            },
            Motion::Up => EntryCursor {
                cursor: 0,
                within: 0,
            },
            Motion::PageDown if within < overflow(c) => EntryCursor {
                cursor: c,
                within: (within + rows).min(overflow(c)),
            },
            Motion::PageDown if c < last => EntryCursor {
                cursor: (c + rows).min(last),
                within: 0,
            },
            Motion::PageUp if within > 0 => EntryCursor {
                cursor: c,
                within: within.saturating_sub(rows),
            },
            Motion::PageUp => EntryCursor {
                cursor: c.saturating_sub(rows),
                within: 0,
            },
            Motion::Home => EntryCursor::default(),
            Motion::End => EntryCursor {
                cursor: last,
                within: if drawn { overflow(last) } else { usize::MAX },
            },
            Motion::PageDown | Motion::Left | Motion::Right => EntryCursor { cursor: c, within },
        };
    }
}
