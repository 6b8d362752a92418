//! How the wide layout's right column shares its rows: the lane grid, the registers, the
//! Watch and Locals panes (when shown) and memory. Every pane keeps a usable minimum (its
//! borders, its header, one line of content), so none shrinks to a bare border the user
//! can focus but not see; what is left over goes first to what the panes want.

/// The smallest lane grid that shows something: borders, the register names, one lane.
pub const LANES_MIN: u16 = 4;
/// The smallest Memory pane: borders, the spaces' header, one row.
pub const MEMORY_MIN: u16 = 4;
/// The smallest Watch or Locals pane: borders and one line.
pub const LIST_MIN: u16 = 3;
/// Rows each pane below the registers wants before the default lane grid keeps its
/// taller sizes: borders and 3 lines (memory's header and two rows; a display or
/// variable and some of its lanes).
const COMFORTABLE: u16 = 5;

/// What the right column holds, in rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wants {
    /// The column's height.
    pub height: u16,
    /// The Registers pane's height (fixed).
    pub registers: u16,
    /// The lane grid's height from the split the user set, if any.
    pub lanes_set: Option<u16>,
    /// The Watch pane's height for all its lines (0: hidden).
    pub watch: u16,
    /// The Locals pane's height for all its lines (0: hidden).
    pub locals: u16,
}

/// The heights given: lane grid, Watch, Locals, memory (registers as wanted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Heights {
    /// The lane grid.
    pub lanes: u16,
    /// The Watch pane (0: hidden).
    pub watch: u16,
    /// The Locals pane (0: hidden).
    pub locals: u16,
    /// Memory: what the others leave.
    pub memory: u16,
}

impl Wants {
    /// The rows below the registers.
    fn below(&self) -> u16 {
        self.height.saturating_sub(self.registers)
    }

    /// The minimum rows of the panes under the lane grid.
    fn under_lanes_min(&self) -> u16 {
        let list = |want: u16| if want > 0 { LIST_MIN } else { 0 };
        MEMORY_MIN + list(self.watch) + list(self.locals)
    }

    /// The most rows the lane grid can take and leave the panes under it their minimum.
    pub fn lanes_max(&self) -> u16 {
        self.below()
            .saturating_sub(self.under_lanes_min())
            .max(LANES_MIN)
    }

    /// Shares the column out. The default lane grid (no split set) is 35, 19 or 11 rows
    /// by the height, and steps down while the panes under it would get less than they
    /// want (35 rows) or a comfortable height of it (19); a split the user set keeps its height
    /// within the minimums. Watch, then Locals, get their lines up to half of what is
    /// left above them (more where memory keeps 6 rows anyway); memory the rest.
    pub fn share(&self) -> Heights {
        let h = self.height;
        let below = self.below();
        let comfortable = |want: u16| want.min(COMFORTABLE);
        // Up to half of what is left under `above` rows, or more where memory keeps 6.
        let room = |above: u16| {
            let left = h.saturating_sub(above);
            left.saturating_sub(6).max(left / 2).max(LIST_MIN)
        };
        let lanes = match self.lanes_set {
            Some(rows) => rows,
            // On a tall screen the grid gives up rows the displays and variables want in
            // full (two blocks of 16 lanes still show every lane)...
            None if h >= 56 && self.watch + self.locals <= room(35 + self.registers) => 35,
            // ...and then rows they want to be usable, down to 8 lanes a block.
            None => {
                let under = COMFORTABLE + comfortable(self.watch) + comfortable(self.locals);
                if h >= 36 && below.saturating_sub(19) >= under {
                    19
                } else {
                    11
                }
            }
        };
        let lanes = lanes.clamp(LANES_MIN, self.lanes_max());
        let locals_min = if self.locals > 0 { LIST_MIN } else { 0 };
        let fit = |want: u16, above: u16, keep: u16| {
            if want == 0 {
                return 0;
            }
            let most = h.saturating_sub(above + keep);
            want.min(room(above)).min(most).max(LIST_MIN)
        };
        let above = lanes + self.registers;
        let watch = fit(self.watch, above, MEMORY_MIN + locals_min);
        let locals = fit(self.locals, above + watch, MEMORY_MIN);
        Heights {
            lanes,
            watch,
            locals,
            memory: below.saturating_sub(lanes + watch + locals),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pane_keeps_its_minimum_at_every_wide_height() {
        // The wide layout's column: 28 rows (a 100x30 screen) and more.
        for height in 28..=120 {
            let registers = if height >= 50 { 11 } else { 9 };
            for lanes_set in [None, Some(0), Some(height / 10), Some(height * 9 / 10)] {
                for (watch, locals) in [(0, 0), (40, 0), (0, 40), (40, 40), (7, 12), (3, 3)] {
                    let w = Wants {
                        height,
                        registers,
                        lanes_set,
                        watch,
                        locals,
                    };
                    let s = w.share();
                    let at = format!("{w:?}: {s:?}");
                    assert!(s.lanes >= LANES_MIN, "{at}");
                    assert!(s.memory >= MEMORY_MIN, "{at}");
                    assert!(watch == 0 || s.watch >= LIST_MIN, "{at}");
                    assert!(locals == 0 || s.locals >= LIST_MIN, "{at}");
                    assert_eq!(
                        s.lanes + registers + s.watch + s.locals + s.memory,
                        height,
                        "{at}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_default_lane_grid_gives_rows_to_the_panes_under_it() {
        // 100x38's column with Watch and Locals: the grid steps down from 19 rows.
        let w = Wants {
            height: 36,
            registers: 9,
            lanes_set: None,
            watch: 7,
            locals: 12,
        };
        let s = w.share();
        assert_eq!(s.lanes, 11);
        assert!(s.memory >= MEMORY_MIN && s.watch == 7, "{s:?}");
        // Without them it keeps its 19 rows.
        let s = Wants {
            watch: 0,
            locals: 0,
            ..w
        }
        .share();
        assert_eq!(s.lanes, 19);
    }
}
