//! Drawing a list of entries of one or more lines each (the Watch and Locals panes): which
//! line shows first, with the selected entry ([`EntryCursor`]) in view.

use crate::app::EntryCursor;

/// The first line to show of `all` lines (each tagged with its entry) in `rows` rows, with
/// `at` selected: the selected entry's head in view, and the whole entry if it fits; an
/// entry taller than the pane from its line `at.within` (clamped to its last page).
pub fn top<T>(all: &[(T, usize)], at: EntryCursor, rows: usize) -> usize {
    let sel_line = all.iter().position(|(_, i)| *i == at.cursor).unwrap_or(0);
    let sel_end = all.iter().rposition(|(_, i)| *i == at.cursor).unwrap_or(0);
    let height = sel_end + 1 - sel_line.min(sel_end);
    if height > rows {
        return sel_line + at.within.min(height - rows);
    }
    let mut top = super::window(sel_line, rows, all.len());
    if sel_end >= top + rows && sel_line > top {
        top = sel_line.min(all.len().saturating_sub(rows));
    }
    top
}

/// Each entry's height in `all` lines (tagged with their entry, in order).
pub fn heights<T>(all: &[(T, usize)]) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    for (_, i) in all {
        if out.len() <= *i {
            out.resize(i + 1, 0);
        }
        out[*i] += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::entries::Motion;

    /// Every line of every entry comes into view with Down alone, and with Up alone back
    /// from the end, whatever the pane's height.
    #[test]
    fn down_and_up_reach_every_line() {
        let heights = [1usize, 5, 1, 12, 3];
        let all: Vec<((), usize)> = heights
            .iter()
            .enumerate()
            .flat_map(|(i, h)| std::iter::repeat_n(((), i), *h))
            .collect();
        for rows in 1..8 {
            let mut seen = vec![false; all.len()];
            let mut at = EntryCursor::default();
            let mark = |at: EntryCursor, seen: &mut Vec<bool>| {
                let t = top(&all, at, rows);
                for s in seen.iter_mut().skip(t).take(rows) {
                    *s = true;
                }
            };
            for _ in 0..all.len() * 2 {
                mark(at, &mut seen);
                at.apply(Motion::Down, heights.len(), &heights, rows);
            }
            assert!(seen.iter().all(|s| *s), "Down at {rows} rows: {seen:?}");
            let mut seen = vec![false; all.len()];
            at.apply(Motion::End, heights.len(), &heights, rows);
            for _ in 0..all.len() * 2 {
                mark(at, &mut seen);
                at.apply(Motion::Up, heights.len(), &heights, rows);
            }
            assert!(seen.iter().all(|s| *s), "Up at {rows} rows: {seen:?}");
            // End shows the last line.
            at.apply(Motion::End, heights.len(), &heights, rows);
            assert_eq!(top(&all, at, rows) + rows.min(all.len()), all.len());
        }
    }
}
