//! Where the last frame drew things: drawing ([`crate::ui`]) fills a [`HitMap`], the state
//! ([`crate::app`]) reads it for mouse clicks and page sizes. It lives apart from both so
//! that neither imports the other.

use ratatui::layout::{Position, Rect};

use crate::pane::{Pane, PANES};

/// Something clickable drawn at `area`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    /// The cells it covers, in screen coordinates.
    pub area: Rect,
    /// The pane it belongs to.
    pub pane: Pane,
    /// The item: code line, wave index, lane, breakpoint list row (`None`: the pane).
    pub item: Option<usize>,
}

/// Where the last frame drew things, and the sizes it chose (which the state's page
/// moves and scroll limits use).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HitMap {
    /// Clickable areas; later ones lie on top.
    pub hits: Vec<Hit>,
    /// Inner height of each pane as drawn (0: not shown), by [`Pane::index`].
    pub rows: [u16; PANES],
    /// The panes drawn, in [`Pane::ALL`] order.
    pub shown: Vec<Pane>,
    /// Bytes per row in the memory view (a multiple of 4; 0 when not drawn).
    pub mem_bytes_per_row: u64,
    /// Registers per block in the lane grid: as many as fit whole (0 when not drawn).
    pub lane_regs: usize,
    /// Rows the console's lines take at the width drawn (wrapped).
    pub console_rows: usize,
    /// The console's scroll as drawn (rows back from the latest): what it showed after a
    /// search moved it to a match.
    pub console_scroll: usize,
    /// The most rows the Registers pane's u registers can scroll at the size drawn.
    pub registers_scroll_max: usize,
    /// The help overlay's rows inside its borders, and the most it can scroll.
    pub help_rows: usize,
    /// The most lines the help overlay can scroll at the size drawn.
    pub help_scroll_max: usize,
    /// The columns the help overlay's lines were laid out in (its scroll counts them).
    pub help_room: usize,
    /// The help overlay's scroll as drawn (kept across a resize, clamped), when it was
    /// drawn: the app keeps it with `help_room` as its state.
    pub help_scroll: Option<usize>,
    /// Whether the memory view left its ASCII column out for lack of width.
    pub mem_ascii_hidden: bool,
    /// The wide layout's splits as drawn, in percent, by `SplitTarget as usize` (left
    /// column, source, console, lane grid): where `+`/`-`/`<`/`>` start from.
    pub split_shares: [u16; 4],
    /// The percentages each split can take at the size drawn (lowest, highest), by
    /// `SplitTarget as usize`: beyond them a pane would go under its minimum (or another
    /// under its), so `+`/`-`/`<`/`>` stop there.
    pub split_bounds: [(u16, u16); 4],
    /// The height in lines of each entry of a pane of entries (Watch, Locals) as drawn, by
    /// [`Pane::index`] (empty for other panes): how far its movement keys scroll within
    /// an entry taller than the pane.
    pub entry_lines: [Vec<usize>; PANES],
    /// Whether the layout was the compact (tabbed) one.
    pub compact: bool,
}

impl HitMap {
    /// The topmost hit at cell (`x`, `y`) of the screen: the last drawn there.
    pub fn at(&self, x: u16, y: u16) -> Option<Hit> {
        self.hits
            .iter()
            .rev()
            .find(|h| h.area.contains(Position { x, y }))
            .copied()
    }

    /// Records that `item` of `pane` was drawn at `area`.
    pub(crate) fn item(&mut self, pane: Pane, area: Rect, item: usize) {
        self.hits.push(Hit {
            area,
            pane,
            item: Some(item),
        });
    }
}
