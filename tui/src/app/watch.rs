//! The Watch pane: the engine's `display` expressions kept on screen with their values,
//! per lane for a vector expression, one value for a scalar one, each marked where it
//! changed since the last stop. Its keys add a display (`a`, Enter: the command line with
//! `display `) and remove the selected one (`d`, Delete: `undisplay N`).
//!
//! The values come from the engine's evaluator ([`Expr::eval`], which `display` and
//! `print` use), evaluated the way `print` shows them: a whole v register or an expression
//! that reads lane data per lane, anything else at the selected lane; written by
//! [`view::format_value`] in the display's format (or `print`'s default), so the pane and
//! the console's display output agree.

use ratatui::crossterm::event::KeyCode;
use wavedbg_emulator::debug::command::{Command, DisplaySpec, Numbers};
use wavedbg_emulator::debug::expr::Expr;
use wavedbg_emulator::debug::view;
use wavedbg_emulator::machine::Machine;

use super::entries::EntryCursor;
use super::input::Motion;
use super::state::App;
use crate::editor::LineEditor;
use crate::pane::Pane;

/// The Watch pane's state: the selected display (0-based, clamped to the displays there
/// are) and how far the view has scrolled into it when it is taller than the pane.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WatchPane {
    /// The selected display and the scroll within it.
    pub at: EntryCursor,
}

/// One display's value now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchValue {
    /// A value at the selected lane.
    Scalar {
        /// The value as `print` writes it.
        text: String,
        /// Whether it differs from the value at the last stop.
        changed: bool,
    },
    /// A value per lane, lane 0 first.
    Lanes {
        /// Each lane's value as `print` writes it.
        texts: Vec<String>,
        /// The lanes whose value differs from the last stop's (bit i = lane i).
        changed: u32,
        /// The wave's EXEC (inactive lanes are dimmed).
        exec: u32,
    },
    /// The expression cannot be evaluated now: why.
    Error(String),
}

/// One row of the Watch pane: a display and its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchRow {
    /// The display's number, as `info display` and `undisplay` count (from 1).
    pub number: usize,
    /// The display as written (`/f v1`).
    pub text: String,
    /// Its value.
    pub value: WatchValue,
}

/// Whether `e` shows per lane, as `print` shows it: a whole v register, or an expression
/// that reads lane data; with the format and size `print` uses by default.
fn per_lane(e: &Expr) -> Option<(char, usize)> {
    match e {
        Expr::VReg(_, None) => Some(('x', 4)),
        _ if e.reads_lane_data() => Some(('u', 8)),
        _ => None,
    }
}

/// The value of `d` in machine `m` (wave index `w`), per lane or at `lane`.
fn values(d: &DisplaySpec, m: &Machine, w: usize, lane: u8) -> Result<Vec<i64>, String> {
    let e = &d.expr.expr;
    let eval = |l: u8| e.eval(m, w, Some(l)).map_err(|e| e.message);
    if per_lane(e).is_some() {
        (0..32u8).map(eval).collect()
    } else {
        eval(lane).map(|v| vec![v])
    }
}

/// A scalar as `print` writes it ([`view::scalar_text`]).
fn scalar_text(m: &Machine, d: &DisplaySpec, v: i64) -> String {
    view::scalar_text(m, &d.expr.expr, v, d.format)
}

impl App {
    /// Every display with its value now and whether it changed since the last stop (the
    /// same expression evaluated in [`App::baseline`]).
    pub fn watch_rows(&self) -> Vec<WatchRow> {
        let m = self.engine.machine();
        let (w, lane) = (self.engine.selected_wave, self.engine.selected_lane);
        let same_wave = match (m.waves.get(w), self.baseline.waves.get(w)) {
            (Some(a), Some(b)) => a.id == b.id,
            _ => false,
        };
        let exec = m.waves.get(w).map_or(0, |w| w.exec);
        self.engine
            .displays()
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let now = values(d, m, w, lane);
                let before = if same_wave {
                    values(d, &self.baseline, w, lane).ok()
                } else {
                    None
                };
                let differs = |l: usize, v: i64| {
                    before
                        .as_ref()
                        .and_then(|b| b.get(l))
                        .is_some_and(|b| *b != v)
                };
                let value = match (now, per_lane(&d.expr.expr)) {
                    (Err(e), _) => WatchValue::Error(e),
                    (Ok(vs), Some((fmt, size))) => WatchValue::Lanes {
                        texts: vs
                            .iter()
                            .map(|v| view::format_value(*v as u64, d.format.unwrap_or(fmt), size))
                            .collect(),
                        changed: vs
                            .iter()
                            .enumerate()
                            .filter(|(l, v)| differs(*l, **v))
                            .fold(0, |a, (l, _)| a | 1 << l),
                        exec,
                    },
                    (Ok(vs), None) => {
                        let v = vs.first().copied().unwrap_or(0);
                        WatchValue::Scalar {
                            text: scalar_text(m, d, v),
                            changed: differs(0, v),
                        }
                    }
                };
                WatchRow {
                    number: i + 1,
                    text: d.to_string(),
                    value,
                }
            })
            .collect()
    }

    /// The selected display (0-based), clamped to the displays there are; `None` when
    /// there are none.
    pub fn watch_selected(&self) -> Option<usize> {
        let n = self.engine.displays().len();
        (n > 0).then(|| self.watch.at.cursor.min(n - 1))
    }

    /// Watch keys: up and down select a display, PgUp/PgDn as many displays away as the
    /// pane has rows, Home/End the first or last (within a display taller than the pane
    /// they scroll it first: [`EntryCursor::apply`]); `a` or Enter opens the command line with
    /// `display `; `d` or Delete runs `undisplay N` for the selected one. Returns whether
    /// the key was used.
    pub(super) fn watch_key(&mut self, code: KeyCode) -> bool {
        let n = self.engine.displays().len();
        let page = self.page(Pane::Watch);
        match (Motion::of(code), code) {
            (Some(Motion::Left | Motion::Right), _) => return false,
            (Some(m), _) => {
                let lines = &self.hits.entry_lines[Pane::Watch.index()];
                self.watch.at.apply(m, n, lines, page);
            }
            (_, KeyCode::Char('a') | KeyCode::Enter) => {
                let mut e = LineEditor::new();
                e.set("display ");
                self.editor = Some(e);
                self.history.reset();
            }
            (_, KeyCode::Char('d') | KeyCode::Delete) => self.undisplay_selected(),
            _ => return false,
        }
        true
    }

    /// `d` in the Watch pane: `undisplay N` for the selected display.
    fn undisplay_selected(&mut self) {
        let Some(i) = self.watch_selected() else {
            self.say("No displays (a adds one).");
            return;
        };
        if self.is_running() {
            self.refuse_busy();
            return;
        }
        self.submit_commands(vec![Command::Undisplay(Numbers::one(i as u32 + 1))]);
        self.watch.at = EntryCursor {
            cursor: i.min(self.engine.displays().len().saturating_sub(1)),
            within: 0,
        };
    }
}
